# ruff: noqa: E501  (a script that prints wide tables)
"""Semi-synthetic simulations of the LLM judge on the human scale, on real HANNA data,
quoted in docs/calibration.md ("How well it works") and benchmarks/README_calibration.md.

Run from the repository root (about 15 minutes on an idle 2-core machine; ``--reps 200``
for a quick look)::

    nice .venv/bin/python benchmarks/coverage_calibration.py

The population: HANNA's 1,056 stories (Chhun et al. 2022), each with the mean of its three
crowd ratings of a criterion (relevance, RE, by default) and the score of each of the five
LLM judges of Chhun et al. (2024), averaged over its four prompts (stories a judge failed
on are left out of that judge's population). The **truth** is the mean human rating over
the whole population (the full-data value). Each replicate draws as many stories as the
population holds *with replacement* (the population is then the superpopulation, and the
estimand its mean), hides the human ratings of all but a random fraction (2–50 %), and
estimates the mean human rating with ``human_scale_estimate``: the 95 % PPI++ interval and
the humans-only interval. Reported per judge and fraction: both coverages, that of the normal PPI++ interval
of ppi_py's formulas (``numpy_ppi``), and the mean
ratio of the PPI++ width to the humans-only width (at most 1 by construction, eq. P6).
Monte-Carlo SE of a coverage near 0.95: 0.0031 at 5,000 replicates.

Fourth table, per judge: the calibrated judge (``calibrate_judge``, exact cut points,
10-fold cross-fitting) fitted on a random half of the stories and scored on the other half
(kappa of its classes against every human rating of the held-out stories), beside the
raw judge (its 1–5 scores) rounded to the nearest label, and the optimism-corrected kappa of the fit
against that held-out kappa: the mean of (corrected − held-out) and of its absolute value
over 200 splits (the mean difference is the correction's bias; the absolute one is
dominated by the sampling error of the held-out kappa on 528 stories).

Third table: the same per story generator (``groups``: eleven estimates per replicate,
about 10 or 20 labelled stories each at 10 or 20 %), pooled over the generators: the
coverage of each generator's full-data mean, and the share of estimates that use the judge
(λ ≠ 0).

Last table: time of ``human_scale_estimate`` on 10⁴ labelled and 10⁶ unlabelled items,
against a straightforward numpy PPI++ (the formulas of ppi_py for the mean: np.cov, np.var,
one λ).
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np

import qwkit

FRACTIONS = (0.02, 0.05, 0.10, 0.20, 0.50)


def population(criterion: str):
    hanna = qwkit.load_hanna()
    judges = qwkit.load_hanna_judges()
    human = hanna.human[criterion].astype(np.float64)
    out = {}
    for name in judges.judges:
        sel = (judges.judge == name) & (judges.criterion == criterion)
        scores = np.full((human.shape[0], 4), np.nan)
        scores[judges.story_id[sel], judges.prompt[sel] - 1] = judges.score[sel]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a story with no answer
            s = np.nanmean(scores, axis=1)
        ok = np.isfinite(s)
        out[name] = (human[ok], s[ok], hanna.system[ok])
    return out


def coverage(human, judge, fraction, reps, gen):
    truth = human.mean()  # every story has three ratings: the mean of the item means
    size = human.shape[0]
    n = max(3, round(fraction * size))
    hit = hit0 = hit_normal = 0
    ratio = 0.0
    for _ in range(reps):
        draw = gen.integers(0, size, size)
        lab, unl = draw[:n], draw[n:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            r = qwkit.human_scale_estimate(human[lab], judge[lab], judge[unl]).estimate()
        hit += r.low <= truth <= r.high
        hit0 += r.human_only_low <= truth <= r.human_only_high
        ratio += (r.high - r.low) / (r.human_only_high - r.human_only_low)
        _, lo, hi = numpy_ppi(human[lab].mean(axis=1), judge[lab], judge[unl])
        hit_normal += lo <= truth <= hi
    return n, hit / reps, hit0 / reps, hit_normal / reps, ratio / reps


def group_coverage(human, judge, system, fraction, reps, gen):
    """Per story generator: coverage of each generator's full-data mean by its PPI++ and
    humans-only intervals (pooled over the eleven), and the share that are PPI++."""
    truth = {g: human[system == g].mean() for g in np.unique(system)}
    size = human.shape[0]
    n = round(fraction * size)
    hit = hit0 = total = used = 0
    for _ in range(reps):
        draw = gen.integers(0, size, size)
        lab, unl = draw[:n], draw[n:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            try:
                res = qwkit.human_scale_estimate(
                    human[lab], judge[lab], judge[unl], groups=system[lab],
                    groups_unlabelled=system[unl],
                )  # fmt: skip
            except qwkit.QwkitError:  # a generator with fewer than 2 labelled stories
                continue
        for r in res.estimates:
            if r.group is None:
                continue
            total += 1
            hit += r.low <= truth[r.group] <= r.high
            hit0 += r.human_only_low <= truth[r.group] <= r.human_only_high
            used += r.lam != 0.0
    return n, hit / total, hit0 / total, used / total, total


def held_out(human, judge, splits, gen):
    size = human.shape[0]
    cal_k, raw_k, diff, adiff = [], [], [], []
    for _ in range(splits):
        perm = gen.permutation(size)
        a, b = perm[: size // 2], perm[size // 2 :]
        cal = qwkit.calibrate_judge(human[a], judge[a], n_resamples=50, n_splits=10, rng=gen)
        rows = ~np.isnan(human[b])
        reps = np.broadcast_to(judge[b][:, None], human[b].shape)[rows]
        k = qwkit.kappa_score(human[b][rows], cal.transform(reps), labels=np.arange(1, 6))
        cal_k.append(k)
        diff.append(cal.statistic - k)
        adiff.append(abs(cal.statistic - k))
        rr = np.clip(np.floor(reps + 0.5), 1, 5)  # the judge's 1-5 scores, nearest label
        raw_k.append(qwkit.kappa_score(human[b][rows], rr, labels=np.arange(1, 6)))
    se = np.std(diff, ddof=1) / math.sqrt(len(diff))
    return np.mean(cal_k), np.mean(raw_k), np.mean(diff), se, np.mean(adiff)


def numpy_ppi(y, f, fu):
    """A straightforward numpy PPI++ for the mean: ppi_py's formulas (its λ̂, clipped to
    [0, 1]; divisor-n variances; the normal interval)."""
    n, big_n = y.shape[0], fu.shape[0]
    cov = np.mean((y - y.mean()) * (f - f.mean()))
    lam = cov / ((1 + n / big_n) * np.var(np.concatenate([f, fu]), ddof=1))
    lam = min(max(lam, 0.0), 1.0)
    est = np.mean(lam * fu) + np.mean(y - lam * f)
    se = math.sqrt(np.var(y - lam * f) / n + np.var(lam * fu) / big_n)
    return est, est - 1.959963984540054 * se, est + 1.959963984540054 * se


def timing():
    gen = np.random.default_rng(20261208)
    q = gen.normal(size=1_010_000)
    human = np.clip(np.rint(3 + q[:10_000] + gen.normal(0, 0.6, 10_000)), 1, 5)
    judge = 6 + 2 * q + gen.normal(0, 1, q.size)
    rows = []
    cases = [
        (
            "human_scale_estimate (mean)",
            lambda: qwkit.human_scale_estimate(human, judge[:10_000], judge[10_000:]),
        ),
        ("numpy PPI++ (mean)", lambda: numpy_ppi(human, judge[:10_000], judge[10_000:])),
        (
            "human_scale_estimate (mean, calibration='thresholds')",
            lambda: qwkit.human_scale_estimate(
                human, judge[:10_000], judge[10_000:], calibration="thresholds", rng=0
            ),
        ),
        (
            "human_scale_estimate (proportions, calibration='thresholds')",
            lambda: qwkit.human_scale_estimate(
                human,
                judge[:10_000],
                judge[10_000:],
                statistic="proportions",
                calibration="thresholds",
                rng=0,
            ),
        ),
        (
            "calibrate_judge (10⁴ items, 200 refits)",
            lambda: qwkit.calibrate_judge(human, judge[:10_000], rng=0),
        ),
    ]
    for name, fn in cases:
        fn()
        best = math.inf
        for _ in range(5):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        rows.append((name, best))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5000)
    parser.add_argument("--splits", type=int, default=200)
    parser.add_argument("--group-reps", type=int, default=1000)
    parser.add_argument("--criterion", default="RE")
    parser.add_argument("--seed", type=int, default=20261208)
    args = parser.parse_args()
    gen = np.random.default_rng(args.seed)
    pop = population(args.criterion)
    start = time.time()
    print(f"criterion {args.criterion}; {args.reps} replicates per cell; seed {args.seed}\n")
    print(
        "| judge | stories | labelled | n | PPI++ coverage | humans-only coverage | ppi_py-style normal PPI++ coverage | width PPI++ / humans |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (human, judge, _) in pop.items():
        for fraction in FRACTIONS:
            n, c, c0, cn, ratio = coverage(human, judge, fraction, args.reps, gen)
            print(
                f"| {name} | {human.shape[0]} | {100 * fraction:g} % | {n} | {c:.3f} | {c0:.3f} | {cn:.3f} | {ratio:.3f} |",
                flush=True,
            )
    print(f"\nPer story generator (groups), {args.group_reps} replicates per cell\n")
    print(
        "| judge | labelled | n | PPI++ coverage | humans-only coverage | PPI++ (λ ≠ 0) | intervals |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (human, judge, system) in pop.items():
        for fraction in (0.10, 0.20):
            n, c, c0, share, total = group_coverage(
                human, judge, system, fraction, args.group_reps, gen
            )
            print(
                f"| {name} | {100 * fraction:g} % | {n} | {c:.3f} | {c0:.3f} | {share:.3f} | {total} |",
                flush=True,
            )
    print(f"\n{args.splits} random halves per judge: fit on one, kappa on the other\n")
    print(
        "| judge | held-out kappa, calibrated | held-out kappa, raw rounded | mean (corrected − held-out) ± MC SE | mean abs(corrected − held-out) |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, (human, judge, _) in pop.items():
        k, k0, d, se, ad = held_out(human, judge, args.splits, gen)
        print(f"| {name} | {k:.3f} | {k0:.3f} | {d:+.4f} ± {se:.4f} | {ad:.4f} |", flush=True)
    print("\n10⁴ labelled and 10⁶ unlabelled items (best of 5)\n")
    print("| call | seconds |")
    print("|---|---:|")
    for name, secs in timing():
        print(f"| {name} | {secs:.3f} |")
    print(f"\n{time.time() - start:.0f} s in all")


if __name__ == "__main__":
    main()
