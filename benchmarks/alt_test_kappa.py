"""Simulation: does the Alternative Annotator Test's kappa alignment hold its level?

Run from the repository root (about fifteen minutes on an idle machine)::

    .venv/bin/python benchmarks/alt_test_kappa.py
    .venv/bin/python benchmarks/alt_test_kappa.py --reps 2000 --sizes 30,100

Each annotator's test in ``alt_test`` is one-sided, H0: mean(d) ≥ ε, with d the
annotator's win minus the judge's (eq. 16 of ``docs/evaluation.md``); under
``alignment="kappa"`` an item's scores are the jackknife pseudo-values of the pooled kappa
against the remaining annotators (eq. 17). What the test estimates is the *population*
mean of d: the win rates of the pseudo-values' limit, κ + ∇κ(μ)·(Z − μ), with μ the
population mean of each candidate's row of sums Z = (k, Σy, k·x, Σy², k·x², x·Σy)
(kappa is homogeneous of degree 0 in the sums, so ∇κ(μ)·μ = 0).

The panels have a known truth. A latent score T ~ N(0, 1); R annotators rate every item,
h_r = clip(round(c + s·T + e_r), 1, K), e_r ~ N(0, σ_h²); the judge scores
c + s·T + e_f, e_f ~ N(0, σ_f²), real-valued or rounded and clipped to the scale. Given T
everything is independent, so μ is a one-dimensional integral over T (Gauss–Hermite, 200
nodes, exact to rounding); the population mean of d is then an average over 2,000,000
simulated items of the limit pseudo-values' wins (Monte Carlo SE about 0.0005), and ε is
set to it: every annotator's null hypothesis holds with equality, the hardest case for the
level. Each replication draws a study of n items and computes, for every annotator, the mean of d
and its two standard errors: the delete-one-item jackknife's, which ``alt_test`` uses now
(eq. 17b), and the t-test's, which the kappa alignment used before (the pseudo-values of all
items share the sample's κ̂ and moments, so their wins are not independent). The share of
one-sided p-values below 0.05 is reported with ε at the limit of the mean of d (the level:
nominal 0.05), with ε at the mean of d over the simulated studies of that n (the level
against what n items estimate: with a discrete judge some rating patterns' pseudo-values lie
within sampling noise of a tie, and the mean of d approaches its limit slowly), and with ε
0.1 above the limit (power). Seeded: reproducible; Monte Carlo SE of a rate near 0.05 about
0.005 (R·reps p-values, dependent within a study).
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
from scipy import special

from qwkit._evaluation._alt_test import _kappa_pvalue

_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(200)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def _probabilities(center, sd, k):
    """P(clip(round(center + N(0, sd²)), 1, k) = r | T), r = 1..k, at every node."""
    cuts = np.concatenate(([-np.inf], np.arange(1.5, k), [np.inf]))
    return np.diff(special.ndtr((cuts[None, :] - center[:, None]) / sd), axis=1)


class Panel:
    """R annotators and a judge of the same items (module docstring)."""

    def __init__(self, k, raters, center, slope, human_sd, judge_sd, judge_real):
        self.k, self.raters, self.center, self.slope = k, raters, center, slope
        self.human_sd, self.judge_sd, self.judge_real = human_sd, judge_sd, judge_real

    def draw(self, n, rng):
        t = rng.normal(size=n)
        loc = self.center + self.slope * t
        human = np.clip(
            np.rint(loc[:, None] + rng.normal(0, self.human_sd, (n, self.raters))), 1, self.k
        )
        judge = loc + rng.normal(0, self.judge_sd, n)
        if not self.judge_real:
            judge = np.clip(np.rint(judge), 1, self.k)
        return human, judge

    def _moments(self, judge: bool):
        """E[x | T], E[x² | T] of a candidate at the nodes."""
        loc = self.center + self.slope * _NODES
        if judge and self.judge_real:
            return loc, loc**2 + self.judge_sd**2
        scale = np.arange(1, self.k + 1)
        p = _probabilities(loc, self.judge_sd if judge else self.human_sd, self.k)
        return p @ scale, p @ scale**2

    def population_rows(self, judge: bool) -> np.ndarray:
        """μ = E[Z] of a candidate against the R − 1 other annotators."""
        ey, eyy = self._moments(False)
        ex, exx = self._moments(judge)
        m = self.raters - 1
        e = lambda v: float(_WEIGHTS @ v)  # noqa: E731
        return np.array([m, m * e(ey), m * e(ex), m * e(eyy), m * e(exx), m * e(ex * ey)])


def _kappa(s):
    n, sy, sx, syy, sxx, sxy = (s[..., j] for j in range(6))
    return 2.0 * (n * sxy - sy * sx) / (n * (syy + sxx) - 2.0 * sy * sx)


def _gradient(mu):
    h = 1e-20 * np.maximum(np.abs(mu), 1.0)
    return np.array([_kappa(mu + 1j * h[j] * np.eye(6)[j]).imag / h[j] for j in range(6)])


def _rows(x, others):
    m = others.shape[1]
    return np.column_stack(
        (
            np.full(x.shape, float(m)),
            others.sum(1),
            m * x,
            (others**2).sum(1),
            m * x * x,
            x * others.sum(1),
        )
    )


def population_d(panel: Panel, n=2_000_000, seed=1) -> float:
    """The population mean of d for annotator 0 (the limit pseudo-values' wins)."""
    human, judge = panel.draw(n, np.random.default_rng(seed))
    others = human[:, 1:]
    scores = []
    for is_judge, x in ((True, judge), (False, human[:, 0])):
        mu = panel.population_rows(is_judge)
        scores.append(_kappa(mu) + (_rows(x, others) - mu) @ _gradient(mu))
    tie = judge == human[:, 0]
    sf, sh = (np.where(tie, 0.0, s) for s in scores)
    return float(np.mean((sh >= sf).astype(float) - (sf >= sh)))


def scenarios():
    return [
        ("5-point, 3 annotators, real-valued judge", Panel(5, 3, 3.0, 1.2, 0.8, 0.9, True)),
        ("5-point, 3 annotators, integer judge", Panel(5, 3, 3.0, 1.2, 0.8, 1.0, False)),
        ("10-point, 5 annotators, real-valued judge", Panel(10, 5, 5.5, 2.0, 1.3, 1.6, True)),
    ]


def _pvalue(mean, se, epsilon, n):
    """The one-sided p-value of H0: mean(d) ≥ ε on a standard error (as alt_test)."""
    if se == 0.0:
        return math.nan if mean == epsilon else float(mean > epsilon)
    return float(special.stdtr(n - 1, (mean - epsilon) / se))


def study_statistics(panel, n, reps, rng):
    """(mean of d, jackknife SE, t-test SE) of every annotator of ``reps`` studies: what
    ``alt_test(..., alignment="kappa")`` computes (``_kappa_pvalue``), so that the tests at
    any ε follow."""
    out = []
    for _ in range(reps):
        human, judge = panel.draw(n, rng)
        for j in range(panel.raters):
            others = np.delete(human, j, axis=1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, d, effect = _kappa_pvalue(judge, human[:, j], others, None, 0.0)
            naive = float(np.std(d, ddof=1)) / math.sqrt(n)
            out.append((float(np.mean(d)), math.sqrt(effect) * naive, naive))
    return np.array(out)


def run(sizes, reps, seed=20261121):
    rows = []
    for name, panel in scenarios():
        limit = population_d(panel)
        for n in sizes:
            stats = study_statistics(panel, n, reps, np.random.default_rng(seed))
            at_n = float(stats[:, 0].mean())

            def rate(epsilon, column, stats=stats, n=n):
                return float(
                    np.mean([_pvalue(m, se, epsilon, n) < 0.05 for m, se in stats[:, [0, column]]])
                )

            rows.append(
                (name, limit, n, at_n, rate(limit, 1), rate(limit, 2), rate(at_n, 1), rate(at_n, 2),
                 rate(limit + 0.1, 1), rate(limit + 0.1, 2))
            )  # fmt: skip
            print(f"  {name}, n={n}: done", flush=True)
    return rows


def table(rows, reps) -> str:
    out = [
        "| panel | limit of mean d | n | mean d at n | jackknife (qwkit) | t-test (before) "
        "| jackknife, ε at n | t-test, ε at n | power: jackknife | power: t-test |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    last = None
    for name, limit, n, at_n, *rates in rows:
        first = name != last
        last = name
        shown = (name, f"{limit:.3f}") if first else ("", "")
        cells = " | ".join(f"{r:.3f}" for r in rates)
        out.append(f"| {shown[0]} | {shown[1]} | {n} | {at_n:.3f} | {cells} |")
    out.append(
        f"\n{reps} simulated studies per row; the share of annotators' one-sided p-values "
        "below 0.05 (nominal 0.05) with ε at the limit of the mean of d, with ε at its mean "
        "at that n, and (power) with ε 0.1 above the limit."
    )
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="30,50,100,200,500")
    parser.add_argument("--reps", type=int, default=1000)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = run([int(x) for x in args.sizes.split(",")], args.reps)
    print()
    print(table(rows, args.reps))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
