"""Benchmark qwkit.kappa_score against its memory floors and its peers, side by side.

Run from the repository root (``make bench`` runs every benchmark this way)::

    nice .venv/bin/python benchmarks/bench_kappa.py           # everything (~10 minutes)
    nice .venv/bin/python benchmarks/bench_kappa.py --quick   # 1e7 only, fewer rounds
    nice .venv/bin/python benchmarks/bench_kappa.py --output results.md

Sections of the output (markdown, printed to stdout):

1. **Targets, one thread** — n = 1e7 and 1e8, int64, 5 classes, three data patterns
   (independent uniform ratings; rater 2 copies rater 1 on half of the items; ratings
   within ±1 of each other): quadratic kappa / memory floor, the Kaggle numba loop /
   quadratic kappa, linear weights / floor, ``sample_weight`` / three-array floor for
   four weight distributions (``_weights.py``: integer, uniform(0, 1), log-normal,
   1/p with p ~ Beta(2, 5); the worst is reported); and quadratic kappa of int8, int16
   and int32 ratings / the floor of that dtype.
2. **Threads** — the same with two threads against the two-thread floors (the worst
   weight distribution again), one thread against two, and the crossover: a kernel on
   one thread and on two, by size (which sets ``qwkit._kernels._jit.THREAD_MIN_ITEMS``).
3. **Small inputs** — µs per call at n = 10, 100, 1000 against scikit-learn's
   ``cohen_kappa_score`` and torchmetrics' ``cohen_kappa`` (CPU tensors).
4. **Peers by size** — 1e4 … 1e8 against scikit-learn, the Kaggle page's two functions
   and ``np.bincount``.
5. **Kernel anatomy** — ns per item of the bare kernels, in cache and from memory.

Floors (``_anchors.py``): ``read_floor`` reads both rating arrays once and adds them —
no one-pass kernel over the same arrays can be faster; ``read_floor3`` reads the
weights too; ``read_floor_par`` / ``read_floor3_par`` the same on numba's thread pool.

Method: every implementation is called once first (numba compiles or loads its cache)
and its answer checked against qwkit's to 1e-9 (the script stops on a disagreement).
Then R rounds call every implementation of a group once each, interleaved, so that other
work on the machine hits them alike; calls faster than 20 ms are looped within a round.
The primary figure is the **median over rounds of the ratio within a round** (paired,
robust to a noisy moment); the best-of-rounds ratio is shown beside it. BLAS/OpenMP
threads are 1; numba uses one thread except in the Threads section.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.metrics import cohen_kappa_score  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _anchors  # noqa: E402
import _machine  # noqa: E402
import _weights  # noqa: E402
from _timing import measure, paired  # noqa: E402

import qwkit  # noqa: E402
from qwkit import _kernels  # noqa: E402
from qwkit._base._dyadic import exception_buffer, weight_window  # noqa: E402

K = 5
SEED = 20261121
TOLERANCE = 1e-9
PATTERNS = ("independent", "copy half", "within ±1")
PEERS = ("scikit-learn", "Kaggle numba qwk3", "Kaggle numpy quadKappa", "np.bincount")
numba.set_num_threads(1)


# ---------------------------------------------------------------------------- data


def make_data(n: int, pattern: str = "copy half", dtype=np.int64):
    """Two raters on 0..4 and survey weights (``_weights.TYPICAL``); the same seed for
    every pattern."""
    rng = np.random.default_rng(SEED)
    a = rng.integers(0, K, n, dtype=np.int64)
    if pattern == "independent":
        b = rng.integers(0, K, n, dtype=np.int64)
    elif pattern == "copy half":
        b = np.where(rng.random(n) < 0.5, a, rng.integers(0, K, n, dtype=np.int64))
    else:
        b = np.clip(a + rng.integers(-1, 2, n, dtype=np.int64), 0, K - 1)
    w = _weights.weights(_weights.TYPICAL, n)
    return a.astype(dtype), b.astype(dtype), w


# ---------------------------------------------------------------------------- timing


def check(got, expected: float, what: str) -> None:
    if not abs(float(got) - expected) <= TOLERANCE:
        raise SystemExit(f"{what} disagrees with qwkit: {float(got)!r} vs {expected!r}")


def fmt(x: float) -> str:
    return f"{x:,.0f}×" if x >= 100 else (f"{x:.1f}×" if x >= 10 else f"{x:.2f}×")


def fmt_pair(p: tuple[float, float]) -> str:
    return f"{fmt(p[0])} ({fmt(p[1])})"


def _met(value: float, op: str, target: float) -> str:
    ok = value <= target if op == "<=" else value >= target
    return "yes" if ok else "**no**"


# ---------------------------------------------------------------------------- 1. targets


def _target_fns(a, b, floor=_anchors.read_floor):
    return {
        "floor": lambda: floor(a, b),
        "quad": lambda: qwkit.kappa_score(a, b),
        "qwk3": lambda: _anchors.qwk3(a, b, K - 1),
        "linear": lambda: qwkit.kappa_score(a, b, weights="linear"),
    }


def _weight_fns(a, b, w, floor3=_anchors.read_floor3):
    return {
        "floor3": lambda: floor3(a, b, w),
        "sw": lambda: qwkit.kappa_score(a, b, sample_weight=w),
    }


def _dtype_fns(a, b):
    return {"floor": lambda: _anchors.read_floor(a, b), "quad": lambda: qwkit.kappa_score(a, b)}


def survey_weights(a, b, rounds, floor3=_anchors.read_floor3, extra=None):
    """{distribution: (paired ratio of sample_weight to the 3-array floor, times)} for
    every weight distribution of ``_weights``, each checked against np.bincount; one
    weight array at a time (1e8 items: 800 MB each). ``extra(fns, a, b, w)`` may add
    functions to time alongside."""
    out = {}
    for name in _weights.DISTRIBUTIONS:
        w = _weights.weights(name, a.shape[0])
        fns = _weight_fns(a, b, w, floor3)
        check(fns["sw"](), _anchors.bincount_kappa(a, b, K, sample_weight=w), f"bincount {name}")
        if extra is not None:
            extra(fns, a, b, w)
        t = measure(fns, rounds)
        out[name] = (paired(t, "sw", "floor3"), t)
        del w
    return out


def _worst(by_dist: dict) -> tuple[str, tuple[float, float]]:
    name = max(by_dist, key=lambda k: by_dist[k][0][0])
    return name, by_dist[name][0]


def targets(sizes, rounds, log) -> list[str]:
    names = list(_weights.DISTRIBUTIONS)
    lines = [
        "### Targets, one thread",
        "",
        "Median of paired ratios (best-of-rounds ratio in parentheses); int64, 5 classes. "
        "`sample_weight`: the worst of the four weight distributions (named), each timed "
        "against the 3-array floor; every one in the second table.",
        "",
        "| n | data | quadratic / floor | Kaggle numba / quadratic | linear / floor | "
        "sample_weight / 3-array floor (worst) |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    by_weights = [
        "",
        "| n | data | " + " | ".join(f"sample_weight {d} / 3-array floor" for d in names) + " |",
        "|---:|---|" + "---:|" * len(names),
    ]
    worst = {"quad": 0.0, "qwk3": np.inf, "linear": 0.0, "sw": 0.0, "dtype": 0.0}
    worst_name = ""
    for n in sizes:
        for pattern in PATTERNS:
            a, b, _ = make_data(n, pattern)
            expected = qwkit.kappa_score(a, b)
            check(_anchors.qwk3(a, b, K - 1), expected, "qwk3")
            fns = _target_fns(a, b)
            check(fns["linear"](), _anchors.bincount_kappa(a, b, K, "linear"), "bincount")
            t = measure(fns, rounds)
            q, k3 = paired(t, "quad", "floor"), paired(t, "qwk3", "quad")
            lin = paired(t, "linear", "floor")
            by_dist = survey_weights(a, b, rounds)
            name, sw = _worst(by_dist)
            worst["quad"] = max(worst["quad"], q[0])
            worst["qwk3"] = min(worst["qwk3"], k3[0])
            worst["linear"] = max(worst["linear"], lin[0])
            if sw[0] > worst["sw"]:
                worst["sw"], worst_name = sw[0], name
            size = f"1e{round(np.log10(n))}"
            lines.append(
                f"| {size} | {pattern} | {fmt_pair(q)} | {fmt_pair(k3)} | "
                f"{fmt_pair(lin)} | {fmt_pair(sw)} {name} |"
            )
            by_weights.append(
                f"| {size} | {pattern} | "
                + " | ".join(fmt_pair(by_dist[d][0]) for d in names)
                + " |"
            )
            log(f"  targets n={n:.0e} {pattern}: quadratic/floor {q[0]:.2f}, worst sw {sw[0]:.2f}")
            del a, b
    lines += by_weights
    lines += [
        "",
        "| n | dtype | quadratic / floor of that dtype | floor (ms) | qwkit (ms) |",
        "|---:|---|---:|---:|---:|",
    ]
    for n in sizes:
        for dtype in (np.int8, np.int16, np.int32):
            a, b, _ = make_data(n, "copy half", dtype)
            check(qwkit.kappa_score(a, b), qwkit.kappa_score(a.astype(np.int64), b), "dtype")
            t = measure(_dtype_fns(a, b), rounds)
            r = paired(t, "quad", "floor")
            worst["dtype"] = max(worst["dtype"], r[0])
            lines.append(
                f"| 1e{round(np.log10(n))} | {np.dtype(dtype).name} | {fmt_pair(r)} | "
                f"{min(t['floor']) * 1e3:.2f} | {min(t['quad']) * 1e3:.2f} |"
            )
            log(f"  targets n={n:.0e} {np.dtype(dtype).name}: {r[0]:.2f}")
    summary = [
        "",
        "| target (worst case over sizes and patterns, paired medians) | target | measured | met |",
        "|---|---:|---:|:---:|",
        f"| quadratic / floor | ≤ 1.2× | {fmt(worst['quad'])} | {_met(worst['quad'], '<=', 1.2)} |",
        f"| Kaggle numba / quadratic | ≥ 2.2× | {fmt(worst['qwk3'])} | "
        f"{_met(worst['qwk3'], '>=', 2.2)} |",
        f"| linear / floor | ≤ 1.6× | {fmt(worst['linear'])} | "
        f"{_met(worst['linear'], '<=', 1.6)} |",
        f"| sample_weight / 3-array floor (worst weights: {worst_name}) | ≤ 1.6× | "
        f"{fmt(worst['sw'])} | {_met(worst['sw'], '<=', 1.6)} |",
        f"| int8/16/32 / floor of the dtype | ≤ 2× | {fmt(worst['dtype'])} | "
        f"{_met(worst['dtype'], '<=', 2.0)} |",
    ]
    return lines + summary


# ---------------------------------------------------------------------------- 2. threads


def _crossover_fns(a, b, bits, start, exc, exc_par):
    return {
        "s": lambda: _kernels.five_sums(a, b),
        "p": lambda: _kernels.five_sums_par(a, b),
        "ws": lambda: _kernels.survey_moments(a, b, bits, start, exc),
        "wp": lambda: _kernels.survey_moments_par(a, b, bits, start, exc_par),
    }


def _one_thread(f, n_threads):
    """``f`` called with numba on one thread (then back to ``n_threads``)."""

    def call():
        numba.set_num_threads(1)
        try:
            return f()
        finally:
            numba.set_num_threads(n_threads)

    return call


def _five_sums_anatomy(rounds, n_threads: int) -> list[str]:
    a, b, _ = make_data(10**8)
    numba.set_num_threads(n_threads)
    fns = {
        "floor": lambda: _anchors.read_floor_par(a, b),
        f"five_sums_par ({n_threads} threads)": lambda: _kernels.five_sums_par(a, b),
        f"before: chunks of interleaved halves ({n_threads} threads)": lambda: (
            _anchors.five_sums_halves_par(a, b)
        ),
        "five_sums (1 thread)": lambda: _kernels.five_sums(a, b),
        "read_floor (1 thread)": lambda: _anchors.read_floor(a, b),
    }
    t = measure(fns, max(rounds, 15))
    numba.set_num_threads(1)
    return [f"| {name} | {fmt_pair(paired(t, name, 'floor'))} |" for name in list(fns)[1:]]


def threads(sizes, rounds, log, n_threads: int = 2) -> list[str]:
    lines = [
        f"### Threads ({n_threads})",
        "",
        f"qwkit with {n_threads} threads against the {n_threads}-thread floors (median of "
        "paired ratios, best-of-rounds in parentheses; `sample_weight`: the worst weight "
        f"distribution, named); speed-up = one thread / {n_threads} threads; "
        f"one-thread floor / {n_threads}-thread floor: what a second thread gives a bare "
        "read on this machine.",
        "",
        "| n | quadratic / floor | linear / floor | sample_weight / 3-array floor (worst) | "
        "speed-up quadratic | speed-up sample_weight | 1-thread floor / 2-thread floor |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    worst = 0.0
    for n in sizes:
        a, b, _ = make_data(n)
        numba.set_num_threads(n_threads)
        fns = _target_fns(a, b, _anchors.read_floor_par)
        del fns["qwk3"]
        fns["quad1"] = _one_thread(fns["quad"], n_threads)
        fns["floor1"] = lambda a=a, b=b: _anchors.read_floor(a, b)
        t = measure(fns, rounds)

        def one(fns, a, b, w):
            fns["sw1"] = _one_thread(fns["sw"], n_threads)

        by_dist = survey_weights(a, b, rounds, _anchors.read_floor3_par, one)
        numba.set_num_threads(1)
        name, sw = _worst(by_dist)
        q, lin = paired(t, "quad", "floor"), paired(t, "linear", "floor")
        worst = max(worst, q[0], lin[0], sw[0])
        lines.append(
            f"| 1e{round(np.log10(n))} | {fmt_pair(q)} | {fmt_pair(lin)} | "
            f"{fmt_pair(sw)} {name} | {fmt(paired(t, 'quad1', 'quad')[0])} | "
            f"{fmt(paired(by_dist[name][1], 'sw1', 'sw')[0])} | "
            f"{fmt(paired(t, 'floor1', 'floor')[0])} |"
        )
        log(f"  threads n={n:.0e}: quadratic/floor {q[0]:.2f}, worst sw {sw[0]:.2f}")
        del a, b
    lines += [
        "",
        f"Target: within 1.2× of the {n_threads}-thread floor — worst measured "
        f"{fmt(worst)}: {_met(worst, '<=', 1.2)}.",
        "",
        f"**The five sums at 1e8, bare kernels** / the {n_threads}-thread floor (median of "
        "paired ratios, best-of-rounds in parentheses): the threaded kernel as it is (one "
        "plain loop split among the threads, two load streams each) and as it was before "
        "(chunks of 2¹⁶ items, each read as two interleaved halves: four streams a thread), "
        "and one thread.",
        "",
        "| kernel | / 2-thread floor |",
        "|---|---:|",
        *_five_sums_anatomy(rounds, n_threads),
        "",
        "**Crossover** — a kernel on one thread and on the pool (µs per call, medians); "
        f"qwkit uses the pool from {_kernels.THREAD_MIN_ITEMS:,} items "
        "(`_kernels._jit.THREAD_MIN_ITEMS`).",
        "",
        "| n | five sums: 1 thread | pool | ratio | exact weighted moments: 1 thread | pool "
        "| ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for e in range(12, 24, 2):
        n = 2**e
        a, b, w = make_data(n)
        bits = w.view(np.int64)
        start = weight_window(bits, _kernels.MOMENT_WINDOW)
        exc, exc_par = exception_buffer(n)[0], exception_buffer(n, n_threads)
        numba.set_num_threads(n_threads)
        t = measure(_crossover_fns(a, b, bits, start, exc, exc_par), rounds)
        numba.set_num_threads(1)
        med = {k: statistics.median(v) * 1e6 for k, v in t.items()}
        lines.append(
            f"| 2^{e} | {med['s']:,.1f} | {med['p']:,.1f} | {paired(t, 's', 'p')[0]:.2f} | "
            f"{med['ws']:,.1f} | {med['wp']:,.1f} | {paired(t, 'ws', 'wp')[0]:.2f} |"
        )
    return lines


# ---------------------------------------------------------------------------- 3. small n


def _small_fns(a, b, tm):
    fns = {
        "qwkit": lambda: qwkit.kappa_score(a, b),
        "sk": lambda: cohen_kappa_score(a, b, weights="quadratic", labels=range(K)),
    }
    if tm is not None:
        torch, cohen_kappa = tm
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        fns["tm"] = lambda: cohen_kappa(
            ta, tb, task="multiclass", num_classes=K, weights="quadratic"
        )
    return fns


def small(rounds, log) -> list[str]:
    try:
        import torch
        from torchmetrics.functional import cohen_kappa
    except ImportError:  # the bench dependency group installs it
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
    head = "| n | qwkit (µs) | scikit-learn (µs) | scikit-learn / qwkit |"
    if torch is not None:
        head += " torchmetrics (µs) | torchmetrics / qwkit |"
    lines = [
        "### Small inputs",
        "",
        "Per-call time of quadratic kappa on int64 numpy arrays (torchmetrics: CPU int64 "
        "tensors, `cohen_kappa(task='multiclass', num_classes=5, weights='quadratic')`); "
        "medians.",
        "",
        head,
        "|---:|---:|---:|---:|" + ("---:|---:|" if torch is not None else ""),
    ]
    for n in (10, 100, 1000):
        a, b, _ = make_data(n)
        expected = qwkit.kappa_score(a, b, labels=range(K))
        fns = _small_fns(a, b, None if torch is None else (torch, cohen_kappa))
        check(fns["sk"](), expected, "scikit-learn")
        if torch is not None:
            got = float(fns["tm"]())  # torchmetrics computes in float32
            if abs(got - expected) > 1e-6:
                raise SystemExit(f"torchmetrics disagrees with qwkit: {got!r} vs {expected!r}")
        t = measure(fns, rounds)
        med = {k: statistics.median(v) * 1e6 for k, v in t.items()}
        row = f"| {n} | {med['qwkit']:.1f} | {med['sk']:.1f} | {fmt(paired(t, 'sk', 'qwkit')[0])} |"
        if torch is not None:
            row += f" {med['tm']:.1f} | {fmt(paired(t, 'tm', 'qwkit')[0])} |"
        lines.append(row)
        log(f"  small n={n}: qwkit {med['qwkit']:.1f} µs")
    return lines


# ---------------------------------------------------------------------------- 4. peers


def _peer_cases(a, b, w):
    return {
        "quadratic": (
            lambda: qwkit.kappa_score(a, b),
            {
                "scikit-learn": lambda: cohen_kappa_score(a, b, weights="quadratic"),
                "Kaggle numba qwk3": lambda: _anchors.qwk3(a, b, K - 1),
                "Kaggle numpy quadKappa": lambda: _anchors.quadKappa(
                    a, b, n=K, hist_range=(0, K - 1)
                ),
                "np.bincount": lambda: _anchors.bincount_kappa(a, b, K),
            },
        ),
        "labels given": (
            lambda: qwkit.kappa_score(a, b, labels=range(K)),
            {"scikit-learn": lambda: cohen_kappa_score(a, b, weights="quadratic", labels=range(K))},
        ),
        "linear": (
            lambda: qwkit.kappa_score(a, b, weights="linear"),
            {
                "scikit-learn": lambda: cohen_kappa_score(a, b, weights="linear"),
                "np.bincount": lambda: _anchors.bincount_kappa(a, b, K, "linear"),
            },
        ),
        "sample_weight": (
            lambda: qwkit.kappa_score(a, b, sample_weight=w),
            {
                "scikit-learn": lambda: cohen_kappa_score(
                    a, b, weights="quadratic", sample_weight=w
                ),
                "np.bincount": lambda: _anchors.bincount_kappa(a, b, K, sample_weight=w),
            },
        ),
    }


def peers(sizes, rounds, log) -> list[str]:
    lines = [
        "### Peers by size",
        "",
        "Data: copy half, int64; `sample_weight` of the uniform(0, 1) distribution (full "
        "mantissas). Ratios peer / qwkit (median of paired rounds); "
        "peers slower than 5 s per call are skipped at 1e8.",
        "",
        "| case | n | qwkit (ms) | qwkit / floor (3-array for sample_weight) | scikit-learn "
        "| Kaggle numba qwk3 | "
        "Kaggle numpy quadKappa | np.bincount |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    per_item: dict[tuple[str, str], float] = {}
    for n in sizes:
        a, b, w = make_data(n)
        cases = _peer_cases(a, b, w)
        for case, (ours, anchors) in cases.items():
            expected = float(ours())
            fns = {"qwkit": ours, "floor": _dtype_fns(a, b)["floor"]}
            if case == "sample_weight":
                fns["floor3"] = _weight_fns(a, b, w)["floor3"]
            for name, fn in anchors.items():
                slow = per_item.get((case, name), 0.0) * n > 5.0
                if slow:
                    continue
                check(fn(), expected, name)
                fns[name] = fn
            t = measure(fns, rounds if n < 10**8 else max(3, rounds // 2))
            floor = "floor3" if case == "sample_weight" else "floor"
            for name in anchors:
                if name in t:
                    per_item[(case, name)] = min(t[name]) / n
            cells = []
            for name in PEERS:
                if name in t:
                    cells.append(fmt(paired(t, name, "qwkit")[0]))
                else:
                    cells.append("skipped" if name in anchors else "—")
            lines.append(
                f"| {case} | 1e{round(np.log10(n))} | {min(t['qwkit']) * 1e3:,.3f} | "
                f"{fmt(paired(t, 'qwkit', floor)[0])} | " + " | ".join(cells) + " |"
            )
        log(f"  peers n={n:.0e}")
    return lines


# ---------------------------------------------------------------------------- 5. anatomy


def _anatomy_fns(a, b, w, a8, b8, bits, start, exc):
    return {
        "floor (read_floor)": lambda: _anchors.read_floor(a, b),
        "3-array floor (read_floor3)": lambda: _anchors.read_floor3(a, b, w),
        "five sums (quadratic)": lambda: _kernels.five_sums(a, b),
        "five sums, int32 lanes, int8 data": lambda: _kernels.five_sums_narrow(a8, b8),
        "int8 floor": lambda: _anchors.read_floor(a8, b8),
        "packed margins (linear)": lambda: _kernels.margins(a, b, True),
        "exact weighted moments (sample_weight, uniform(0, 1))": lambda: _kernels.survey_moments(
            a, b, bits, start, exc
        ),
        "K×K counting table": lambda: _kernels.confusion_counts(a, b, np.int64(0), K),
    }


def anatomy(rounds) -> list[str]:
    lines = [
        "### Kernel anatomy",
        "",
        "Bare kernels on int64 ratings (copy half), ns per item (best of rounds): 1e5 items "
        "sit in cache (compute cost); 1e7 items stream from memory.",
        "",
        "| kernel | 1e5 (in cache) | × floor | 1e7 (memory) | × floor |",
        "|---|---:|---:|---:|---:|",
    ]
    res: dict[str, dict[int, float]] = {}
    for n in (10**5, 10**7):
        a, b, w = make_data(n)
        a8, b8 = a.astype(np.int8), b.astype(np.int8)
        bits = w.view(np.int64)
        start = weight_window(bits, _kernels.MOMENT_WINDOW)
        kernels = _anatomy_fns(a, b, w, a8, b8, bits, start, exception_buffer(n)[0])
        t = measure(kernels, rounds)
        for name, v in t.items():
            res.setdefault(name, {})[n] = min(v) / n * 1e9
    for name, by_n in res.items():
        ref = "floor (read_floor)"
        if "int8" in name:
            ref = "int8 floor"
        elif "weighted" in name:
            ref = "3-array floor (read_floor3)"
        lines.append(
            f"| {name} | {by_n[10**5]:.3f} | {fmt(by_n[10**5] / res[ref][10**5])} | "
            f"{by_n[10**7]:.3f} | {fmt(by_n[10**7] / res[ref][10**7])} |"
        )
    return lines


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1e7 only, fewer rounds")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument(
        "--sizes", type=float, nargs="+", default=None, help="override the large sizes (a check)"
    )
    parser.add_argument("--output", type=Path, default=None, help="also write markdown here")
    parser.add_argument(
        "--sections",
        default="targets,threads,small,peers,anatomy",
        help="comma-separated subset of targets,threads,small,peers,anatomy",
    )
    args = parser.parse_args(argv)
    rounds = args.rounds or (5 if args.quick else 9)
    big = (10**7,) if args.quick else (10**7, 10**8)
    peer_sizes = (10**4, 10**5, 10**6, 10**7) + (() if args.quick else (10**8,))
    if args.sizes:
        big = peer_sizes = tuple(int(x) for x in args.sizes)
    sections = set(args.sections.split(","))

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    out = ["## Results", ""]
    body: list[str] = []
    if "targets" in sections:
        body += [*targets(big, rounds, log), ""]
    if "threads" in sections:
        body += [*threads(big, rounds, log), ""]
    if "small" in sections:
        body += [*small(rounds, log), ""]
    if "peers" in sections:
        body += [*peers(peer_sizes, rounds, log), ""]
    if "anatomy" in sections:
        body += [*anatomy(rounds), ""]
    out += _machine.describe(
        "numba threads: 1 (2 in the Threads section)",
        {"scikit-learn": sklearn.__version__},
    )
    out += [
        f"- {rounds} interleaved rounds after one warm-up call each "
        f"({'--quick' if args.quick else 'full run'}); every implementation agreed with "
        f"qwkit to {TOLERANCE:g}",
        "",
        *body,
    ]
    text = "\n".join(out)
    print(text)
    if args.output is not None:
        args.output.write_text(text)
    log(f"total {time.perf_counter() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
