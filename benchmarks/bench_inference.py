"""Benchmark the kappa bootstrap: a multinomial draw of the table vs resampling items.

Run from the repository root::

    .venv/bin/python benchmarks/bench_inference.py           # n = 1e6, K = 10, B = 9999
    .venv/bin/python benchmarks/bench_inference.py --append benchmarks/README_inference.md

Everything runs in one process on the same simulated data (two raters on a 10-point
scale, n = 10⁶ items). qwkit's percentile and BCa intervals use B = 9999 resamples,
drawn as multinomial tables (O(B·K²), independent of n; BCa adds the O(K²) exact
jackknife). The anchors resample the n items and rescore each resample:

* scikit-learn: ``cohen_kappa_score(a[i], b[i], weights="quadratic")``, what a user
  writes with scikit-learn and numpy;
* numpy: ``np.bincount`` of the resampled cell codes, then eq. 1 on the table — the
  fastest item-resampling loop a careful user writes without a library.

The anchors are far too slow to run 9999 times on 10⁶ items; they run a smaller B
(``--anchor-resamples``) and their time is extrapolated linearly to B = 9999 (each
resample costs the same), which the output says.

A second section times the bootstrap with unequal **survey weights** (``sample_weight``)
of four distributions (``_weights.py``: integer, uniform(0, 1), log-normal, 1/p with
p ~ Beta(2, 5); the worst is reported), where the rows themselves are resampled — the
draws of ``scipy.stats.bootstrap``, ``rng.integers(0, n, (B, n))`` — against what a user
writes without it: draw the indices with numpy and rescore each resample with
``qwkit.kappa_score`` (the same draws, so the same resampled kappas up to rounding). Both
run the same B in the same process, interleaved; the time per resample is the median
over ``--repeat`` runs; ``kappa_test`` with those weights is timed too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa, to_table

import qwkit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine
import _timing
import _weights


def simulate(n, k, seed=20261121):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=n)
    cuts = np.linspace(-1.8, 1.8, k - 1)
    a = np.searchsorted(cuts, latent + 0.5 * rng.normal(size=n))
    b = np.searchsorted(cuts, latent + 0.5 * rng.normal(size=n))
    return a.astype(np.int64), b.astype(np.int64)


def statsmodels_test(a, b):
    """statsmodels as users write it: a table from the ratings, then ``cohens_kappa``."""
    table, _ = to_table(np.column_stack([a, b]))
    res = cohens_kappa(table, wt="quadratic")
    return res.kappa, res.std_kappa


def sklearn_item_bootstrap(a, b, n_resamples, rng):
    n = a.shape[0]
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        i = rng.integers(0, n, n)
        out[r] = cohen_kappa_score(a[i], b[i], weights="quadratic")
    return np.quantile(out, [0.025, 0.975])


def numpy_item_bootstrap(a, b, k, n_resamples, rng):
    n = a.shape[0]
    code = a * k + b
    w = (np.arange(k)[:, None] - np.arange(k)[None, :]) ** 2.0
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        t = np.bincount(code[rng.integers(0, n, n)], minlength=k * k).reshape(k, k)
        expected = t.sum(1) @ w @ t.sum(0) / n
        out[r] = 1.0 - (w * t).sum() / expected
    return np.quantile(out, [0.025, 0.975])


def weighted_bootstrap(n, k, n_resamples, repeat, dist, seed=20261121):
    """Seconds per resample: qwkit's bootstrap of unequally weighted rows (weights of
    the distribution ``dist`` of ``_weights``) against numpy draws + rescoring with
    qwkit.kappa_score, interleaved; the two percentile intervals from the same seed;
    and the seconds of ``kappa_test`` with those weights (best of ``repeat``)."""
    a, b = simulate(n, k, seed)
    w = _weights.weights(dist, n)
    t_test, res = _timing.best(lambda: qwkit.kappa_test(a, b, sample_weight=w), repeat)
    res.confidence_interval(method="percentile", n_resamples=2, rng=0)  # compile

    def ours():
        return res.confidence_interval(
            method="percentile", n_resamples=n_resamples, rng=np.random.default_rng(7)
        )

    def rescore():
        rng = np.random.default_rng(7)
        out = np.empty(n_resamples)
        for r in range(n_resamples):
            i = rng.integers(0, n, n)
            out[r] = qwkit.kappa_score(a[i], b[i], sample_weight=w[i], labels=range(k))
        return tuple(np.quantile(out, [0.025, 0.975]))

    t_ours, t_rescore = [], []
    ci_ours = ci_rescore = None
    for _ in range(repeat):
        start = time.perf_counter()
        ci_ours = ours()
        t_ours.append((time.perf_counter() - start) / n_resamples)
        start = time.perf_counter()
        ci_rescore = rescore()
        t_rescore.append((time.perf_counter() - start) / n_resamples)
    ratio = statistics.median(x / y for x, y in zip(t_rescore, t_ours, strict=True))
    t_w, t_r = statistics.median(t_ours), statistics.median(t_rescore)
    return t_w, t_r, ratio, ci_ours, ci_rescore, t_test


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=9999)
    parser.add_argument("--anchor-resamples", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--append", help="append the markdown section to this file")
    parser.add_argument("--weighted-n", type=int, default=1_000_000)
    parser.add_argument("--weighted-resamples", type=int, default=50)
    args = parser.parse_args(argv)

    a, b = simulate(args.n, args.k)
    big_b = args.resamples
    qwkit.kappa_test(a[:1000], b[:1000]).confidence_interval(  # compile and warm up
        method="bootstrap", n_resamples=10, rng=0
    )

    t_test, res = _timing.best(lambda: qwkit.kappa_test(a, b), args.repeat)
    t_pct, ci_pct = _timing.best(
        lambda: res.confidence_interval(method="percentile", n_resamples=big_b, rng=1),
        args.repeat,
    )
    t_bca, ci_bca = _timing.best(
        lambda: res.confidence_interval(method="bootstrap", n_resamples=big_b, rng=1),
        args.repeat,
    )
    t_jack, ci_jack = _timing.best(lambda: res.confidence_interval(method="jackknife"), args.repeat)
    t_sm, (sm_kappa, sm_se) = _timing.best(lambda: statsmodels_test(a, b), args.repeat)
    if abs(sm_kappa - res.statistic) > 1e-9 or abs(sm_se - res.standard_error) > 1e-9:
        raise SystemExit(f"statsmodels disagrees: {sm_kappa}, {sm_se} vs {res}")

    small = args.anchor_resamples
    t_sk, ci_sk = _timing.best(
        lambda: sklearn_item_bootstrap(a, b, small, np.random.default_rng(2)), 1
    )
    t_np, ci_np = _timing.best(
        lambda: numpy_item_bootstrap(a, b, args.k, small, np.random.default_rng(3)), 1
    )
    sk_full = t_sk * big_b / small
    np_full = t_np * big_b / small

    rows = [
        ("qwkit `kappa_test` (table, SEs, z-test)", t_test, "measured", None),
        ("statsmodels `to_table` + `cohens_kappa` (same kappa and SE)", t_sm, "measured", None),
        (f"qwkit percentile bootstrap, B = {big_b}", t_pct, "measured", ci_pct),
        (f"qwkit BCa bootstrap, B = {big_b}", t_bca, "measured", ci_bca),
        ("qwkit exact jackknife interval", t_jack, "measured", ci_jack),
        (
            f"scikit-learn item resampling, B = {big_b}",
            sk_full,
            f"extrapolated from B = {small} ({t_sk:.2f} s)",
            None,
        ),
        (
            f"numpy bincount item resampling, B = {big_b}",
            np_full,
            f"extrapolated from B = {small} ({t_np:.2f} s)",
            None,
        ),
    ]
    lines = [
        f"## Bootstrap of quadratic kappa: n = {args.n:,}, K = {args.k} ({date.today()})",
        "",
        *_machine.describe("one thread"),
        "",
        f"Best of {args.repeat} for qwkit. kappa = {res.statistic:.6f}, "
        f"ASE = {res.standard_error:.6f}.",
        "",
        "| what | seconds | how | 95% interval |",
        "|---|---:|---|---|",
    ]
    for name, sec, how, ci in rows:
        shown = "" if ci is None else f"{ci[0]:.5f} – {ci[1]:.5f}"
        lines.append(f"| {name} | {sec:.3f} | {how} | {shown} |")
    lines += [
        "",
        f"Asymptotic test from the ratings: statsmodels / qwkit = {t_sm / t_test:,.0f}× "
        "(kappa and standard error agree to 1e-9).",
        f"Ratios (anchor time / qwkit BCa time, same B = {big_b}): scikit-learn "
        f"{sk_full / t_bca:,.0f}×, numpy bincount {np_full / t_bca:,.0f}×. "
        f"Percentile: scikit-learn {sk_full / t_pct:,.0f}×, numpy {np_full / t_pct:,.0f}×.",
        f"Anchor percentile intervals from their B = {small} runs (too few resamples to "
        f"compare digits): scikit-learn {ci_sk[0]:.5f} – {ci_sk[1]:.5f}, numpy "
        f"{ci_np[0]:.5f} – {ci_np[1]:.5f}.",
        "",
    ]
    wn, wb = args.weighted_n, args.weighted_resamples
    lines += [
        f"### Bootstrap with survey weights: n = {wn:,}, K = {args.k}, B = {wb} "
        "(rows resampled as scipy.stats.bootstrap draws them)",
        "",
        "Four weight distributions (`benchmarks/_weights.py`); the same seed for every run. "
        "qwkit: `kappa_test(..., sample_weight=w).confidence_interval(method='percentile')`; "
        "rescoring: numpy `rng.integers(0, n, n)` + `qwkit.kappa_score(a[i], b[i], "
        "sample_weight=w[i])`, the same draws.",
        "",
        "| weights | `kappa_test` (s) | qwkit ms per resample | rescoring ms per resample "
        "| rescoring / qwkit | 95% percentile interval: qwkit | rescoring |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    worst = None
    for dist in _weights.DISTRIBUTIONS:
        t_w, t_r, ratio, ci_w, ci_r, t_test = weighted_bootstrap(wn, args.k, wb, args.repeat, dist)
        if worst is None or ratio < worst[1]:
            worst = (dist, ratio)
        lines.append(
            f"| {dist} | {t_test:.3f} | {t_w * 1e3:.2f} | {t_r * 1e3:.2f} | {ratio:.1f}× "
            f"| {ci_w[0]:.5f} – {ci_w[1]:.5f} | {ci_r[0]:.5f} – {ci_r[1]:.5f} |"
        )
    lines += [
        "",
        f"Resampling + rescoring / qwkit, worst of the four distributions: {worst[1]:.1f}× "
        f"({worst[0]}; median of {args.repeat} paired runs each; target ≥ 5×). Memory: one "
        "(resamples, cells) table per chunk of about 2**22 draws, independent of B.",
        "",
    ]
    _machine.emit("\n".join(lines), args.append)


if __name__ == "__main__":
    main()
