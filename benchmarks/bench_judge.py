"""Time ``qwkit.judge_reliability`` on 10⁶ judgements (10⁵ items × 5 judges × 2 runs,
two human ratings per item) against a straightforward pandas implementation of the same
statistics, and measure the memory of both.

Run from the repository root (the README's numbers come from this script)::

    nice .venv/bin/python benchmarks/bench_judge.py
    nice .venv/bin/python benchmarks/bench_judge.py --items 10000 --rounds 3   # a quick check
    nice .venv/bin/python benchmarks/bench_judge.py --append benchmarks/README_judge.md

The statistics (what both compute, and the script checks equal to 1e-9 before timing):
per judge ICC(1) and Krippendorff's α over its runs, the kappa with the humans of one run
and of the mean of two, each with its jackknife standard error over items; the panel's
error correlations and effective number of judges with its jackknife standard error; the
human raters' own ICC(1). The pandas implementation is what one writes with group-bys and
pivots (``pandas_judge`` below); its leave-one-item-out values use the same sums as qwkit
(a jackknife that refits each item's leave-out would be 10⁵ refits), so the ratio
measures the implementation, not the algorithm. Times are paired and interleaved in one
process (``_timing``): the median over rounds of the ratio within a round. Memory is the
peak of Python's tracemalloc (numpy reports its arrays to it) during one call, beyond the
input, at 2·10⁵ and 10⁶ judgements: in proportion to the judgements when the peak per
judgement stays flat.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import time
import tracemalloc
from datetime import date

import numpy as np
import pandas as pd

import qwkit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine
import _timing

JUDGES, RUNS = 5, 2


def data(n: int, seed: int = 20261121):
    """(long judgements frame, items × 2 human ratings): judges that read a true score
    with noise of their own and a shared part, on a 1–5 scale."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    shared = rng.normal(0, 0.4, n)
    item = np.repeat(np.arange(n), JUDGES * RUNS)
    judge = np.tile(np.repeat(np.arange(JUDGES), RUNS), n)
    run = np.tile(np.arange(RUNS), n * JUDGES)
    bias = np.linspace(-0.3, 0.3, JUDGES)[judge]
    latent = 3 + truth[item] + shared[item] + bias + rng.normal(0, 0.8, item.size)
    score = np.clip(np.rint(latent), 1, 5)
    human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.6, (n, 2))), 1, 5)
    frame = pd.DataFrame({"item": item, "judge": judge, "run": run, "score": score})
    return frame, human


def _jk_se(loo: np.ndarray) -> float:
    n = loo.size
    return math.sqrt((n - 1) / n * float(((loo - loo.mean()) ** 2).sum()))


def _icc1(big_n, n, t1, a, ss2, m2):
    msw = (ss2 - a) / (big_n - n)
    msb = (a - t1 * t1 / big_n) / (n - 1)
    k0 = (big_n - m2 / big_n) / (n - 1)
    return (msb - msw) / (msb + (k0 - 1) * msw)


def _icc1_and_loo(g: pd.DataFrame):
    """ICC(1) of per-item (m, s1, s2) columns and its leave-one-item-out values."""
    m, s1, s2 = (g[c].to_numpy(float) for c in ("m", "s1", "s2"))
    big_n, n = m.sum(), float(m.size)
    t1, a, ss2, m2 = s1.sum(), (s1 * s1 / m).sum(), s2.sum(), (m * m).sum()
    full = _icc1(big_n, n, t1, a, ss2, m2)
    loo = _icc1(big_n - m, n - 1, t1 - s1, a - s1 * s1 / m, ss2 - s2, m2 - m * m)
    return full, loo


def _alpha_and_loo(g: pd.DataFrame):
    g = g[g["m"] >= 2]
    m, s1, s2 = (g[c].to_numpy(float) for c in ("m", "s1", "s2"))
    w = 2 * (m * s2 - s1 * s1) / (m - 1)

    def alpha(big_n, t1, t2, within):
        d_e = 2 * (big_n * t2 - t1 * t1) / (big_n * (big_n - 1))
        return 1 - (within / big_n) / d_e

    full = alpha(m.sum(), s1.sum(), s2.sum(), w.sum())
    loo = alpha(m.sum() - m, s1.sum() - s1, s2.sum() - s2, w.sum() - w)
    return full, loo


def _kappa(p, sx, sy, sxx, syy, sxy):
    return 2 * (p * sxy - sx * sy) / (p * (sxx + syy) - 2 * sx * sy)


def _kappa_and_loo(a: pd.Series, hum: pd.DataFrame):
    """Quadratic kappa (continuous form) of a per-item score with every human rating of
    the item, pooled, and its leave-one-item-out values."""
    j = hum.join(a.rename("a"), how="inner")
    c, h1, h2, x = (j[k].to_numpy(float) for k in ("c", "h1", "h2", "a"))
    terms = [c, c * x, h1, c * x * x, h2, x * h1]
    sums = [t.sum() for t in terms]
    return _kappa(*sums), _kappa(*(s - t for s, t in zip(sums, terms, strict=True)))


def pandas_judge(frame: pd.DataFrame, human: np.ndarray) -> dict:
    """The same statistics as qwkit, written with pandas group-bys and pivots."""
    out = {}
    centre = frame.groupby("judge")["score"].transform("mean")
    f = frame.assign(x=frame["score"] - centre)
    f["xx"] = f["x"] ** 2
    sums = f.groupby(["judge", "item"]).agg(m=("x", "count"), s1=("x", "sum"), s2=("xx", "sum"))
    hum = pd.DataFrame(human, columns=["h1r", "h2r"])
    for jname, g in sums.groupby(level="judge"):
        icc, loo = _icc1_and_loo(g)
        alpha, aloo = _alpha_and_loo(g)
        c0 = float(frame.loc[frame["judge"] == jname, "score"].mean())
        hc = hum - c0
        h = pd.DataFrame(
            {"c": 2.0, "h1": hc.sum(axis=1), "h2": (hc**2).sum(axis=1)}, index=hum.index
        )
        wide = f[f["judge"] == jname].pivot(index="item", columns="run", values="x")
        ones = [_kappa_and_loo(wide[r], h) for r in wide.columns]
        k1 = float(np.mean([k for k, _ in ones]))
        k1_loo = np.mean([lo for _, lo in ones], axis=0)
        k2, k2_loo = _kappa_and_loo(wide.mean(axis=1), h)
        out[jname] = {
            "icc": (icc, _jk_se(loo)),
            "alpha": (alpha, _jk_se(aloo)),
            "kappa_1": (k1, _jk_se(k1_loo)),
            "kappa_2": (k2, _jk_se(k2_loo)),
        }
    # the panel: error covariance beyond the human true score (eqs. J11–J12)
    means = frame.groupby(["item", "judge"])["score"].mean().unstack()
    hbar = hum.mean(axis=1)
    noise = float(((hum["h1r"] - hum["h2r"]) ** 2 / 2).mean()) * 0.5
    both = means.assign(h=hbar)
    cov = both.cov().to_numpy()
    m = JUDGES
    s, c, vh = cov[:m, :m], cov[:m, m], cov[m, m]
    err = s - np.outer(c, c) / (vh - noise)
    sd = np.sqrt(np.diag(err))
    out["m_eff"] = m * m / (err / np.outer(sd, sd)).sum()
    # its leave-one-item-out values, from the same sums
    y = means.to_numpy() - float(hum.to_numpy().mean())
    hb = hbar.to_numpy() - float(hum.to_numpy().mean())
    n = y.shape[0]
    sy, syy, sh, shh, syh = y.sum(0), y.T @ y, hb.sum(), (hb * hb).sum(), (y * hb[:, None]).sum(0)
    within = ((hum["h1r"] - hum["h2r"]) ** 2 / 2).to_numpy()
    nn, d = n - 1.0, n - 2.0
    sy_i = sy - y
    sh_i = sh - hb
    var_y = (np.diag(syy) - y * y - sy_i * sy_i / nn) / d
    cc = (syh - y * hb[:, None] - sy_i * sh_i[:, None] / nn) / d
    vh_i = (shh - hb * hb - sh_i * sh_i / nn) / d
    tau = vh_i - (within.sum() - within) / nn * 0.5
    sd_i = np.sqrt(var_y - cc * cc / tau[:, None])
    v = 1 / sd_i
    quad = ((v @ syy) * v).sum(1) - (v * y).sum(1) ** 2 - (v * sy_i).sum(1) ** 2 / nn
    total = quad / d - (cc * v).sum(1) ** 2 / tau
    out["m_eff_se"] = _jk_se(m * m / total)
    return out


def qwkit_judge(frame: pd.DataFrame, human: np.ndarray):
    return qwkit.judge_reliability(
        item=frame["item"].to_numpy(),
        judge=frame["judge"].to_numpy(),
        run=frame["run"].to_numpy(),
        score=frame["score"].to_numpy(),
        human=human,
    )


def check(res, ref: dict) -> float:
    """The largest difference between qwkit's and pandas' numbers (stops beyond 1e-9)."""
    worst = 0.0
    for j in res.judges:
        r = ref[int(j.judge)]
        got = {
            "icc": (j.icc.statistic, j.icc.standard_error),
            "alpha": (j.alpha.statistic, j.alpha.standard_error),
            "kappa_1": (
                j.kappa_by_runs[0].kappa.statistic,
                j.kappa_by_runs[0].kappa.standard_error,
            ),
            "kappa_2": (
                j.kappa_by_runs[1].kappa.statistic,
                j.kappa_by_runs[1].kappa.standard_error,
            ),
        }
        for key, pair in got.items():
            worst = max(worst, *(abs(a - b) for a, b in zip(pair, r[key], strict=True)))
    e = res.panel.effective_judges
    worst = max(worst, abs(e.statistic - ref["m_eff"]), abs(e.standard_error - ref["m_eff_se"]))
    if not worst < 1e-9:
        raise SystemExit(f"qwkit and pandas differ by {worst:g}")
    return worst


def cpu_seconds(fn, repeat: int) -> float:
    """The least CPU time (this process, every thread) of ``repeat`` calls: what the
    call costs whatever else the machine runs (wall time on a shared machine also counts
    the time other processes held the cores)."""
    out = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        out.append(time.process_time() - start)
    return min(out)


def peak_bytes(fn) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--append", default=None)
    args = parser.parse_args()
    n = args.items
    frame, human = data(n)
    ref = pandas_judge(frame, human)
    worst = check(qwkit_judge(frame, human), ref)
    times = _timing.measure(
        {"qwkit": lambda: qwkit_judge(frame, human), "pandas": lambda: pandas_judge(frame, human)},
        args.rounds,
    )
    med, best = _timing.paired(times, "pandas", "qwkit")
    cpu = {
        "qwkit": cpu_seconds(lambda: qwkit_judge(frame, human), args.rounds),
        "pandas": cpu_seconds(lambda: pandas_judge(frame, human), args.rounds),
    }
    rows = [
        f"### `judge_reliability`: {n * JUDGES * RUNS:,} judgements ({n:,} items × {JUDGES} "
        f"judges × {RUNS} runs, 2 human ratings per item), {date.today()}",
        "",
        *_machine.describe(extra={"pandas": pd.__version__}),
        "",
        f"qwkit and pandas agree to {worst:.1e} (statistics and jackknife SEs).",
        "",
        "| | wall s, median | wall s, best | CPU s, best | pandas / qwkit (median of paired "
        "wall ratios) | best / best (wall) | CPU / CPU |",
        "|---|---|---|---|---|---|---|",
        f"| qwkit | {statistics.median(times['qwkit']):.3f} | {min(times['qwkit']):.3f} | "
        f"{cpu['qwkit']:.3f} | {med:.2f} | {best:.2f} | {cpu['pandas'] / cpu['qwkit']:.2f} |",
        f"| pandas | {statistics.median(times['pandas']):.3f} | {min(times['pandas']):.3f} | "
        f"{cpu['pandas']:.3f} | | | |",
        "",
        "| judgements | qwkit peak MB | bytes per judgement | pandas peak MB |",
        "|---|---|---|---|",
    ]
    for size in sorted({max(n // 5, 100), n}):
        f, h = data(size, seed=7)
        q = peak_bytes(lambda f=f, h=h: qwkit_judge(f, h))
        p = peak_bytes(lambda f=f, h=h: pandas_judge(f, h))
        judgements = size * JUDGES * RUNS
        rows.append(f"| {judgements:,} | {q / 1e6:.0f} | {q / judgements:.0f} | {p / 1e6:.0f} |")

    _machine.emit("\n".join(rows), args.append)


if __name__ == "__main__":
    main()
