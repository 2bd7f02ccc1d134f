"""Benchmark qwkit.kappa_score against its peers, side by side in one process.

Run from the repository root::

    .venv/bin/python benchmarks/bench_kappa.py            # sizes 1e4 .. 1e8 (a few minutes)
    .venv/bin/python benchmarks/bench_kappa.py --quick    # sizes 1e4 .. 1e7 (under a minute)
    .venv/bin/python benchmarks/bench_kappa.py --output benchmarks/results.md

Everything runs on one thread (NUMBA_NUM_THREADS, OMP/OPENBLAS/MKL threads = 1, set
before numpy is imported). Data: two int64 raters on 5 classes (0..4), each uniform;
the second copies the first on half of the items so kappa is about 0.5, not 0.

Method: every implementation is called once to warm up (numba compiles there, so
compile time is excluded) and its answer is checked against qwkit's to 1e-9 — the
script stops if any implementation disagrees. Then R rounds run every implementation
once each, interleaved, so that noise from other work on the machine hits all of them
alike. Fast calls are looped inside a round to last at least ~20 ms. A time is the
best of the R rounds; a ratio is a ratio of best times. The targets table also gives
the median over rounds of the ratio within a round (a paired measure, robust to noise).
Implementations slower than 1 s per call run in fewer rounds and are skipped at 1e8.

Output is markdown (tables of ratios, times only alongside), printed to stdout.
"""

from __future__ import annotations

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.metrics import cohen_kappa_score  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _anchors  # noqa: E402

import qwkit  # noqa: E402
from qwkit import _kernels  # noqa: E402

K = 5
LABELS = list(range(K))
SEED = 20261121
TOLERANCE = 1e-9
MIN_SAMPLE_SECONDS = 0.02  # loop fast calls inside a round up to this
SLOW_SECONDS = 1.0  # calls slower than this: fewer rounds, and none at n = 1e8


# ---------------------------------------------------------------------------- data


@dataclass
class Data:
    a: np.ndarray
    b: np.ndarray
    w: np.ndarray

    @property
    def n(self) -> int:
        return int(self.a.shape[0])


def make_data(n: int, dtype=np.int64) -> Data:
    rng = np.random.default_rng(SEED)
    a = rng.integers(0, K, n, dtype=np.int64)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, K, n, dtype=np.int64))
    w = rng.uniform(0.5, 2.0, n)
    return Data(a.astype(dtype), b.astype(dtype), w)


# ---------------------------------------------------------------------------- cases


@dataclass
class Impl:
    name: str
    fn: Callable[[Data], object]
    is_kappa: bool = True  # False for the memory floor (returns a sum, not a kappa)


@dataclass
class Case:
    """One computation (e.g. quadratic kappa of int64 data) and the ways to do it."""

    key: str
    title: str
    qwkit: Impl
    anchors: list[Impl]
    dtype: type = np.int64
    sizes: tuple[int, ...] = ()
    times: dict[int, dict[str, list[float]]] = field(default_factory=dict)
    skipped: dict[int, list[str]] = field(default_factory=dict)


FLOOR = Impl("memory floor", lambda d: _anchors.read_floor(d.a, d.b), is_kappa=False)


def cases(sizes: tuple[int, ...], int8_sizes: tuple[int, ...]) -> list[Case]:
    sk_quad = Impl("scikit-learn", lambda d: cohen_kappa_score(d.a, d.b, weights="quadratic"))
    qwk3 = Impl("Kaggle numba qwk3", lambda d: _anchors.qwk3(d.a, d.b, max_rat=K - 1))
    afajohn = Impl(
        "Kaggle numpy quadKappa",
        lambda d: _anchors.quadKappa(d.a, d.b, n=K, hist_range=(0, K - 1)),
    )
    binc_quad = Impl("np.bincount", lambda d: _anchors.bincount_kappa(d.a, d.b, K))
    return [
        Case(
            "quadratic",
            "Quadratic weights (default), int64",
            Impl("qwkit", lambda d: qwkit.kappa_score(d.a, d.b)),
            [FLOOR, sk_quad, qwk3, afajohn, binc_quad],
            sizes=sizes,
        ),
        Case(
            "labels",
            "Quadratic weights, `labels=[0, 1, 2, 3, 4]` given, int64",
            Impl("qwkit", lambda d: qwkit.kappa_score(d.a, d.b, labels=LABELS)),
            [
                FLOOR,
                Impl(
                    "scikit-learn",
                    lambda d: cohen_kappa_score(d.a, d.b, weights="quadratic", labels=LABELS),
                ),
            ],
            sizes=sizes,
        ),
        Case(
            "linear",
            'Linear weights (`weights="linear"`), int64',
            Impl("qwkit", lambda d: qwkit.kappa_score(d.a, d.b, weights="linear")),
            [
                FLOOR,
                Impl("scikit-learn", lambda d: cohen_kappa_score(d.a, d.b, weights="linear")),
                Impl("np.bincount", lambda d: _anchors.bincount_kappa(d.a, d.b, K, "linear")),
            ],
            sizes=sizes,
        ),
        Case(
            "sample_weight",
            "Quadratic weights with `sample_weight` (float64), int64",
            Impl("qwkit", lambda d: qwkit.kappa_score(d.a, d.b, sample_weight=d.w)),
            [
                FLOOR,
                Impl(
                    "scikit-learn",
                    lambda d: cohen_kappa_score(d.a, d.b, weights="quadratic", sample_weight=d.w),
                ),
                Impl(
                    "np.bincount",
                    lambda d: _anchors.bincount_kappa(d.a, d.b, K, sample_weight=d.w),
                ),
            ],
            sizes=sizes,
        ),
        Case(
            "int8",
            "Quadratic weights, int8 data (read natively by qwkit)",
            Impl("qwkit", lambda d: qwkit.kappa_score(d.a, d.b)),
            [FLOOR, sk_quad, qwk3, binc_quad],
            dtype=np.int8,
            sizes=int8_sizes,
        ),
    ]


# ---------------------------------------------------------------------------- timing


def _time_once(fn: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def run_size(case_list: list[Case], n: int, dtype, rounds: int, slow_rounds: int, log) -> None:
    """Warm up, check and time every implementation of every case at one size."""
    todo = [c for c in case_list if n in c.sizes and c.dtype is dtype]
    if not todo:
        return
    data = make_data(n, dtype)
    plan = []  # (case, impl, number, n_rounds)
    for case in todo:
        case.times[n] = {}
        case.skipped[n] = []
        start = time.perf_counter()
        expected = float(case.qwkit.fn(data))  # warm-up (compiles) and the reference
        for impl in [case.qwkit, *case.anchors]:
            if impl is not case.qwkit and n >= 10**8 and _slow(impl, case, n):
                case.skipped[n].append(impl.name)
                continue
            t0 = time.perf_counter()
            got = impl.fn(data)  # warm-up call: compiles numba code, checks the answer
            first = time.perf_counter() - t0
            if impl.is_kappa and not abs(float(got) - expected) <= TOLERANCE:
                raise SystemExit(
                    f"{impl.name} disagrees with qwkit on {case.key}, n={n}: "
                    f"{float(got)!r} vs {expected!r}"
                )
            number = max(1, int(MIN_SAMPLE_SECONDS / max(first, 1e-7)))
            n_rounds = rounds if first < SLOW_SECONDS else min(rounds, slow_rounds)
            plan.append((case, impl, number, n_rounds))
            case.times[n][impl.name] = []
        log(
            f"  n={n:.0e} {dtype.__name__} {case.key}: warm-up and checks "
            f"{time.perf_counter() - start:.1f} s"
        )
    for r in range(rounds):
        for case, impl, number, n_rounds in plan:
            if r < n_rounds:
                case.times[n][impl.name].append(_time_once(lambda impl=impl: impl.fn(data), number))
    for case, impl, _, _ in plan:  # seconds per item, to decide what to skip at 1e8
        _SLOW_SEEN[(case.key, impl.name)] = _best(case.times[n][impl.name]) / n


_SLOW_SEEN: dict[tuple[str, str], float] = {}
_LOAD_AT_START = os.getloadavg()


def _slow(impl: Impl, case: Case, n: int) -> bool:
    """At 1e8, skip what would take over 5·SLOW_SECONDS per call, extrapolated from 1e7."""
    per_item = _SLOW_SEEN.get((case.key, impl.name))
    return per_item is not None and per_item * n > SLOW_SECONDS * 5


# ---------------------------------------------------------------------------- report


def _best(ts: list[float]) -> float:
    return min(ts)


def _paired_median(num: list[float], den: list[float]) -> float:
    m = min(len(num), len(den))
    return statistics.median(x / y for x, y in zip(num[:m], den[:m], strict=True))


def _fmt_ratio(x: float | None) -> str:
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:,.0f}×"
    if x >= 10:
        return f"{x:.1f}×"
    return f"{x:.2f}×"


def _fmt_ms(t: float) -> str:
    ms = t * 1e3
    if ms >= 100:
        return f"{ms:,.0f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.4f}"


def case_table(case: Case) -> list[str]:
    anchors = [a.name for a in case.anchors if a is not FLOOR]
    head = ["n", "qwkit (ms)", "qwkit / floor", *[f"{a} / qwkit" for a in anchors]]
    lines = [f"**{case.title}** — ratios of best times", ""]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---:"] * len(head)) + "|")
    for n in case.sizes:
        t = case.times.get(n)
        if not t:
            continue
        q = _best(t["qwkit"])
        row = [f"1e{round(np.log10(n))}", _fmt_ms(q), _fmt_ratio(q / _best(t[FLOOR.name]))]
        for a in anchors:
            row.append(_fmt_ratio(_best(t[a]) / q) if a in t else "skipped")
        lines.append("| " + " | ".join(row) + " |")
    skipped = sorted({s for n in case.sizes for s in case.skipped.get(n, [])})
    if skipped:
        lines.append("")
        lines.append(f"Skipped at 1e8 (minutes per run): {', '.join(skipped)}.")
    return lines


def times_table(case_list: list[Case]) -> list[str]:
    """All best times in ms, for reference (the ratios above are what to read)."""
    lines = [
        "| case | implementation | "
        + " | ".join(
            f"1e{round(np.log10(n))}" for n in sorted({n for c in case_list for n in c.sizes})
        )
        + " |"
    ]
    all_sizes = sorted({n for c in case_list for n in c.sizes})
    lines.append("|---|---|" + "|".join(["---:"] * len(all_sizes)) + "|")
    for case in case_list:
        for impl in [case.qwkit, *case.anchors]:
            cells = []
            for n in all_sizes:
                t = case.times.get(n, {}).get(impl.name)
                cells.append(_fmt_ms(_best(t)) if t else "")
            lines.append(f"| {case.key} | {impl.name} | " + " | ".join(cells) + " |")
    return lines


def targets_table(case_list: list[Case], n: int = 10**7) -> list[str]:
    by = {c.key: c for c in case_list}
    rows = [
        ("quadratic", "scikit-learn / qwkit", "scikit-learn", "qwkit", ">=", 100.0),
        ("quadratic", "Kaggle numba qwk3 / qwkit", "Kaggle numba qwk3", "qwkit", ">=", 2.0),
        ("quadratic", "qwkit / memory floor", "qwkit", FLOOR.name, "<=", 1.5),
        ("linear", "scikit-learn / qwkit (linear)", "scikit-learn", "qwkit", ">=", 20.0),
        (
            "sample_weight",
            "scikit-learn / qwkit (sample_weight)",
            "scikit-learn",
            "qwkit",
            ">=",
            20.0,
        ),
    ]
    lines = [
        f"**Targets at n = 1e{round(np.log10(n))}, int64, 5 classes, one thread**",
        "",
        "| ratio | target | best-of-rounds | median of paired rounds | met |",
        "|---|---:|---:|---:|:---:|",
    ]
    for key, label, num, den, op, target in rows:
        t = by[key].times.get(n)
        if not t or num not in t or den not in t:
            continue
        best = _best(t[num]) / _best(t[den])
        paired = _paired_median(t[num], t[den])
        ok = best >= target if op == ">=" else best <= target
        lines.append(
            f"| {label} | {op} {target:g}× | {_fmt_ratio(best)} | {_fmt_ratio(paired)} | "
            f"{'yes' if ok else '**no**'} |"
        )
    return lines


def anatomy_table(rounds: int) -> list[str]:
    """ns per item of the bare kernels, in cache (1e5) and from memory (1e7)."""
    kernels = {
        "memory floor (read_floor)": lambda d: _anchors.read_floor(d.a, d.b),
        "five sums (five_sums, quadratic)": lambda d: _kernels.five_sums(d.a, d.b),
        "min/max (minmax2)": lambda d: _kernels.minmax2(d.a, d.b),
        "K×K counts (confusion_counts)": lambda d: _kernels.confusion_counts(
            d.a, d.b, np.int64(0), K
        ),
        "K×K weighted (confusion_weighted)": lambda d: _kernels.confusion_weighted(
            d.a, d.b, d.w, np.int64(0), K
        ),
    }
    sizes = (10**5, 10**7)
    res: dict[str, dict[int, list[float]]] = {k: {n: [] for n in sizes} for k in kernels}
    for n in sizes:
        data = make_data(n)
        numbers = {}
        for name, fn in kernels.items():
            t0 = time.perf_counter()
            fn(data)
            numbers[name] = max(1, int(MIN_SAMPLE_SECONDS / max(time.perf_counter() - t0, 1e-7)))
        for _ in range(rounds):
            for name, fn in kernels.items():
                t = _time_once(lambda fn=fn, data=data: fn(data), numbers[name])
                res[name][n].append(t / n)
    floor = "memory floor (read_floor)"
    lines = [
        "**Kernel anatomy** — bare numba kernels on int64, ns per item (best of rounds); "
        "1e5 items (1.6 MB) sit in L2 cache, so that column is compute cost; 1e7 items "
        "(160 MB) stream from memory",
        "",
        "| kernel | ns/item, 1e5 (in cache) | × floor | ns/item, 1e7 (memory) | × floor |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in kernels:
        cells = []
        for n in sizes:
            t = min(res[name][n])
            cells += [f"{t * 1e9:.3f}", _fmt_ratio(t / min(res[floor][n]))]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def machine_lines(rounds: int, slow_rounds: int, quick: bool) -> list[str]:
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        import llvmlite.binding as llvm

        target = llvm.get_host_cpu_name()
    except Exception:  # pragma: no cover - informational only
        target = "?"
    return [
        f"- machine: {cpu}, {os.cpu_count()} cores (LLVM target `{target}`), "
        f"{platform.system()} {platform.machine()}; one thread used",
        f"- Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"scikit-learn {sklearn.__version__}, qwkit {qwkit.__version__}",
        "- load average (1, 5, 15 min) at the start: "
        + ", ".join(f"{x:.1f}" for x in _LOAD_AT_START)
        + f"; at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
        "(other work on the machine slows everything; ratios are measured side by side)",
        f"- {rounds} interleaved rounds after one warm-up call each "
        f"({'--quick' if quick else 'full run'}); slow anchors (> {SLOW_SECONDS:g} s/call) "
        f"{slow_rounds} rounds",
        "- data: 5 classes, uniform ratings 0..4, rater 2 copies rater 1 on half the items "
        f"(seed {SEED}); every implementation agreed with qwkit to {TOLERANCE:g}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 1e7 (under a minute)")
    parser.add_argument("--rounds", type=int, default=None, help="timing rounds per size")
    parser.add_argument("--output", type=Path, default=None, help="also write markdown here")
    parser.add_argument(
        "--no-anatomy", action="store_true", help="skip the per-kernel ns/item table"
    )
    args = parser.parse_args(argv)

    sizes = (10**4, 10**5, 10**6, 10**7) if args.quick else (10**4, 10**5, 10**6, 10**7, 10**8)
    int8_sizes = (10**7,) if args.quick else (10**7, 10**8)
    rounds = args.rounds or (5 if args.quick else 7)
    slow_rounds = min(rounds, 2 if args.quick else 3)
    case_list = cases(sizes, int8_sizes)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    for n in sorted(set(sizes) | set(int8_sizes)):
        for dtype in (np.int64, np.int8):
            run_size(case_list, n, dtype, rounds, slow_rounds, log)
    out = ["## Results", "", *machine_lines(rounds, slow_rounds, args.quick), ""]
    out += [*targets_table(case_list), ""]
    for case in case_list:
        out += [*case_table(case), ""]
    if not args.no_anatomy:
        out += [*anatomy_table(rounds), ""]
    out += [
        "<details><summary>Best times (ms)</summary>",
        "",
        *times_table(case_list),
        "",
        "</details>",
        "",
    ]
    text = "\n".join(out)
    print(text)
    if args.output is not None:
        args.output.write_text(text)
    log(f"total {time.perf_counter() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
