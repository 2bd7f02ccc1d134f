"""Time the statistics of issue 22 on large data: ``qwkit.icc`` (complete: the ANOVA in
one pass over the ratings; with missing ratings: the REML fit), ``concordance_correlation``,
``kendall_w`` and ``category_agreement``.

Run from the repository root (the lead runs the real sizes on a quiet machine)::

    .venv/bin/python benchmarks/bench_icc.py                       # 1e4 … 1e6 items
    .venv/bin/python benchmarks/bench_icc.py --sizes 1000          # a quick check
    .venv/bin/python benchmarks/bench_icc.py --append benchmarks/README_agreement.md

Data: n items × 5 raters from the two-way model yᵢⱼ = sᵢ + rⱼ + eᵢⱼ (σ²ₛ = 1, σ²ᵣ = 0.1,
σ²ₑ = 1), complete, or with 20% of the ratings missing at random; categorical data are
the same rounded to 1..5. The anchor is pingouin's ``intraclass_corr`` (when installed:
``pip install pingouin``; it is not a qwkit dependency) on the same data in long format
(the frame built outside the timing), side by side in this process: with complete data
its ICC(A,1) must equal qwkit's "A,1" to 1e-9 (the script stops otherwise); with missing
ratings it drops every item that lacks one (``nan_policy="omit"``), so its value is
another estimate, on the items it kept. R's psych and irr are not Python. Rows report
the best of ``--repeat`` runs after one warm-up call (numba compiles on the first); the
header records the machine and the load average.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from datetime import date

import numpy as np

import qwkit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine
import _timing

RATERS = 5


def _data(n, seed=20261121):
    rng = np.random.default_rng(seed)
    x = (
        rng.normal(size=(n, 1))
        + rng.normal(scale=0.1**0.5, size=(1, RATERS))
        + rng.normal(size=(n, RATERS))
    )
    missing = x.copy()
    missing[rng.random(x.shape) < 0.2] = np.nan
    return x, missing


def _long(x):
    """The items × raters matrix as pingouin's long frame (missing ratings as NaN)."""
    import pandas as pd

    n, k = x.shape
    return pd.DataFrame(
        {"item": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n), "y": x.ravel()}
    )


def _pingouin(frame):
    import warnings

    import pingouin

    with warnings.catch_warnings():  # pingouin 0.7 on pandas 3.1: deprecation warnings
        warnings.simplefilter("ignore")
        return pingouin.intraclass_corr(
            data=frame, targets="item", raters="rater", ratings="y", nan_policy="omit"
        ).set_index("Type")


def run(sizes, repeat):
    try:
        import pingouin  # noqa: F401
    except ImportError:
        have_pingouin = False
        print("pingouin is not installed: no anchor (pip install pingouin)", flush=True)
    else:
        have_pingouin = True
    rows = []
    small, small_missing = _data(200)
    qwkit.icc(small, form="A,1")  # compile the kernels first
    qwkit.icc(small_missing, form="A,1")
    for n in sizes:
        x, missing = _data(n)
        cases = [
            ("`icc` A,1, complete (ANOVA)", lambda x=x: qwkit.icc(x, form="A,1")),
            ("`icc` C,k, complete (ANOVA)", lambda x=x: qwkit.icc(x, form="C,k")),
            ("`icc` A,1, 20% missing (REML)", lambda m=missing: qwkit.icc(m, form="A,1")),
            (
                "`concordance_correlation` (2 raters)",
                lambda x=x: qwkit.concordance_correlation(x[:, 0], x[:, 1]),
            ),
            ("`kendall_w`", lambda x=x: qwkit.kendall_w(x)),
            (
                "`category_agreement` (1..5)",
                lambda x=x: qwkit.category_agreement(np.clip(np.round(x + 3), 1, 5)),
            ),
        ]
        timed = {}
        for what, fn in cases:
            seconds, res = _timing.best(fn, repeat)
            timed[what] = (seconds, res)
            stat = getattr(res, "statistic", None)
            note = "" if stat is None or np.ndim(stat) else f"{stat:.6f}"
            rows.append((n, what, seconds, note))
            print(f"n={n:>9,}  {what:<40} {seconds:9.4f} s  {note}", flush=True)
        if not have_pingouin:
            continue
        for data, ours, label in (
            (x, "`icc` A,1, complete (ANOVA)", "complete"),
            (missing, "`icc` A,1, 20% missing (REML)", "20% missing: items with one dropped"),
        ):
            frame = _long(data)
            seconds, table = _timing.best(lambda f=frame: _pingouin(f), repeat)
            theirs = float(table.loc["ICC(A,1)", "ICC"])
            mine_s, mine = timed[ours]
            if label == "complete" and abs(theirs - mine.statistic) > 1e-9:
                raise SystemExit(f"pingouin's ICC(A,1) {theirs} != qwkit's A,1 {mine.statistic}")
            what = f"pingouin `intraclass_corr`, {label}"
            note = f"ICC(A,1) {theirs:.6f}; {seconds / mine_s:,.0f}× qwkit's A,1"
            rows.append((n, what, seconds, note))
            print(f"n={n:>9,}  {what:<40} {seconds:9.4f} s  {note}", flush=True)
    return rows


def markdown(rows, repeat) -> str:
    out = [
        f"## The statistics of issue 22, {RATERS} raters ({date.today().isoformat()})",
        "",
        *_machine.describe(f"best of {repeat}, numba's default threads"),
        "",
        "| items | what | seconds | statistic |",
        "|---:|---|---:|---:|",
    ]
    out += [f"| {n:,} | {what} | {s:.4f} | {note} |" for n, what, s, note in rows]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--append", type=pathlib.Path, default=None)
    args = parser.parse_args()
    rows = run(args.sizes, args.repeat)
    _machine.emit(markdown(rows, args.repeat), args.append)


if __name__ == "__main__":
    main()
