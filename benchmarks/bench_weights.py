"""Survey weights on every path: each function with four weight distributions, the worst.

Run from the repository root::

    nice .venv/bin/python benchmarks/bench_weights.py              # n = 1e6 and 1e7 (minutes)
    nice .venv/bin/python benchmarks/bench_weights.py --quick      # n = 1e6, fewer rounds
    nice .venv/bin/python benchmarks/bench_weights.py --output benchmarks/README_weights.md

Every function that takes ``sample_weight`` is timed with the four weight distributions
of ``_weights.py`` (integer, uniform(0, 1), log-normal, 1/p with p ~ Beta(2, 5)) against
the same call without weights (or, for kappa, the three-array memory floor), paired and
interleaved in one process (``_timing.py``); the table shows every distribution and the
summary the worst. Data: two raters on 0..4 (rater 2 copies rater 1 on half of the
items), scores for the threshold search rater 1 + N(0, 0.8) — rounded to 0.01 (few
distinct scores) or not. One numba thread.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _anchors  # noqa: E402
import _machine  # noqa: E402
import _weights  # noqa: E402
from _timing import measure, paired  # noqa: E402

import qwkit  # noqa: E402

SEED = 20261124
numba.set_num_threads(1)


def _data(n: int):
    rng = np.random.default_rng(SEED)
    a = rng.integers(0, 5, n)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, 5, n))
    score = a + rng.normal(0, 0.8, n)
    return a, b, score, np.round(score, 2)


def _accumulate(a, b, w):
    acc = qwkit.KappaAccumulator()
    acc.update(a, b, sample_weight=w)
    return acc.score()


#: (name, the reference it is paired with, call with weights w (None: the reference)).
def _cases(a, b, score, rounded):
    return [
        (
            "kappa_score, quadratic",
            "3-array floor",
            lambda w: qwkit.kappa_score(a, b, sample_weight=w),
        ),
        (
            "kappa_score, linear",
            "3-array floor",
            lambda w: qwkit.kappa_score(a, b, weights="linear", sample_weight=w),
        ),
        (
            "confusion_matrix",
            "3-array floor",
            lambda w: qwkit.confusion_matrix(a, b, sample_weight=w),
        ),
        ("KappaAccumulator.update + score", "no weights", lambda w: _accumulate(a, b, w)),
        ("kappa_test", "no weights", lambda w: qwkit.kappa_test(a, b, sample_weight=w)),
        (
            "optimize_thresholds, scores rounded to 0.01",
            "no weights",
            lambda w: qwkit.optimize_thresholds(a, rounded, sample_weight=w),
        ),
        (
            "optimize_thresholds, continuous scores",
            "no weights",
            lambda w: qwkit.optimize_thresholds(a, score, sample_weight=w),
        ),
    ]


def run(sizes, rounds, log) -> list[str]:
    names = list(_weights.DISTRIBUTIONS)
    lines = [
        "| function | n | reference | " + " | ".join(names) + " | worst |",
        "|---|---:|---|" + "---:|" * (len(names) + 1),
    ]
    worst_rows = []
    for n in sizes:
        a, b, score, rounded = _data(n)
        weights = {d: _weights.weights(d, n) for d in names}
        for case, ref, call in _cases(a, b, score, rounded):
            fns = {}
            if ref == "3-array floor":
                w0 = weights[names[0]]
                fns["ref"] = lambda a=a, b=b, w0=w0: _anchors.read_floor3(a, b, w0)
            else:
                fns["ref"] = lambda call=call: call(None)
            for d in names:
                fns[d] = lambda call=call, w=weights[d]: call(w)
            t = measure(fns, rounds)
            ratios = {d: paired(t, d, "ref")[0] for d in names}
            worst = max(ratios, key=ratios.get)
            worst_rows.append((case, n, ref, worst, ratios[worst]))
            lines.append(
                f"| {case} | 1e{round(np.log10(n))} | {ref} | "
                + " | ".join(f"{ratios[d]:.2f}×" for d in names)
                + f" | {ratios[worst]:.2f}× {worst} |"
            )
            log(f"  {case} n={n:.0e}: worst {ratios[worst]:.2f} ({worst})")
        del a, b, score, rounded, weights
    summary = [
        "",
        "| function | n | worst distribution | with weights / reference |",
        "|---|---:|---|---:|",
    ]
    for case, n, ref, worst, ratio in worst_rows:
        summary.append(f"| {case} | 1e{round(np.log10(n))} | {worst} | {ratio:.2f}× {ref} |")
    return lines + summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e6 only, fewer rounds")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--output", type=Path, default=None, help="also write markdown here")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 7)
    sizes = (10**6,) if args.quick else (10**6, 10**7)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    body = run(sizes, rounds, log)
    out = [
        "# Survey weights on every path",
        "",
        "Generated by `benchmarks/bench_weights.py`"
        + (" --quick" if args.quick else "")
        + ". Each function with `sample_weight` of four distributions (`_weights.py`), "
        "against the same call without weights (kappa: the three-array memory floor), "
        "median of paired ratios over interleaved rounds.",
        "",
        *_machine.describe("one thread"),
        f"- {rounds} interleaved rounds after one warm-up call each",
        "",
        *body,
        "",
    ]
    text = "\n".join(out)
    print(text)
    if args.output is not None:
        args.output.write_text(text, encoding="utf-8")
    log(f"total {time.perf_counter() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
