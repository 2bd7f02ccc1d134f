"""Simulation against the exact truth: does `optimism_corrected_kappa` remove the optimism?

Run from the repository root (about eight minutes on one core; ``--quick`` in under a
minute)::

    .venv/bin/python benchmarks/optimism_simulation.py
    .venv/bin/python benchmarks/optimism_simulation.py --output optimism_table.md
    .venv/bin/python benchmarks/optimism_simulation.py --quick

Model: a latent Z ~ N(0, 1) gives the true class y (cut points ``a`` of the scenario:
class probabilities as listed), and the score is s = Z + sigma * E, E ~ N(0, 1)
independent. Four scenarios: 5 classes with a very strong (sigma = 0.15), a strong
(sigma = 0.3) and a moderate (sigma = 0.6) signal, 7 classes with a weak one
(sigma = 1.0); n from 30 to 1,000. Each replication draws n items, fits the cut points
of s (``optimize_thresholds``, the exact optimum), and asks what quadratic weighted kappa
those cut points have on the population: the *truth*. It is computed exactly, not by
Monte Carlo: the population table of (true class, predicted class) is

    P[t, j] = integral over (a_(t-1), a_t] of phi(z) [Phi((c_j - z) / sigma)
                                                    - Phi((c_(j-1) - z) / sigma)] dz

(c the fitted cut points), by Gauss-Legendre quadrature on each class interval; the
script checks it against a sample of 10**6 items once per scenario. Reported, per
scenario and n, over the replications:

* optimism = mean apparent - mean truth (the inflation a leaderboard punishes);
* for each method of `optimism_corrected_kappa`: bias = mean corrected - mean truth,
  and as a share of the optimism (with its Monte Carlo SE, that of the bias divided by
  the optimism); root mean squared error against the truth;
  coverage of the truth by the 95% interval, how often the truth fell below and above
  it, and its mean width;
* for the cv method, the pieces of the interval: the spread of apparent - truth and
  of the estimated optimism against their mean standard errors, the correlation of
  the two, and the coverage of the intervals built with the apparent kappa's
  standard error only (kappa_test's, shifted by the optimism), with the two
  standard errors combined as if independent, and with their sum (what the
  library does, eq. O5).

The Monte Carlo standard errors are given in parentheses. Seeded: the numbers are
reproducible (the generator of each (scenario, n) cell is seeded from the seed, the
scenario and n, so that the cells do not depend on one another). The output records the
machine, the wall time and any warning; docs/optimism.md shows that of the full run with
the default settings.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import optimize, special

import qwkit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine

Z975 = float(special.ndtri(0.975))
_NODES, _NODE_WEIGHTS = np.polynomial.legendre.leggauss(128)


@dataclass(frozen=True)
class Scenario:
    name: str
    class_probabilities: tuple[float, ...]
    sigma: float

    @property
    def cuts(self) -> np.ndarray:
        """Cut points of the latent normal for the class probabilities."""
        return special.ndtri(np.cumsum(self.class_probabilities)[:-1])

    @property
    def k(self) -> int:
        return len(self.class_probabilities)


SCENARIOS = (
    Scenario("5 classes, sigma = 0.15", (0.10, 0.20, 0.35, 0.25, 0.10), 0.15),
    Scenario("5 classes, sigma = 0.3", (0.10, 0.20, 0.35, 0.25, 0.10), 0.3),
    Scenario("5 classes, sigma = 0.6", (0.10, 0.20, 0.35, 0.25, 0.10), 0.6),
    Scenario("7 classes, sigma = 1.0", (0.05, 0.10, 0.20, 0.30, 0.20, 0.10, 0.05), 1.0),
)
SIZES = (30, 50, 100, 200, 1000)


# ---------------------------------------------------------------------------- truth


def population_table(scenario: Scenario, thresholds) -> np.ndarray:
    """Exact probabilities P[true class, predicted class] of cut points on the scores."""
    edges = np.concatenate(([-10.0], scenario.cuts, [10.0]))  # Phi(-10) ~ 1e-23
    lo, hi = edges[:-1, None], edges[1:, None]
    z = (hi - lo) / 2 * _NODES[None, :] + (hi + lo) / 2  # (K, Q) nodes per class
    wz = (hi - lo) / 2 * _NODE_WEIGHTS[None, :] * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    c = np.concatenate(([-np.inf], np.asarray(thresholds, dtype=float), [np.inf]))
    cdf = special.ndtr((c[None, None, :] - z[..., None]) / scenario.sigma)  # (K, Q, K + 1)
    return np.einsum("tq,tqj->tj", wz, np.diff(cdf, axis=2))


def population_kappa(scenario: Scenario, thresholds) -> float:
    return qwkit.kappa_from_confusion(population_table(scenario, thresholds))


def best_population_kappa(scenario: Scenario) -> float:
    """kappa* of the best cut points for the population (a numerical optimum)."""
    start = scenario.cuts * math.sqrt(1 + scenario.sigma**2)

    def loss(c):
        return -population_kappa(scenario, np.sort(c))

    res = optimize.minimize(loss, start, method="Nelder-Mead", options={"xatol": 1e-7})
    return -float(res.fun)


def draw(scenario: Scenario, n: int, gen: np.random.Generator):
    latent = gen.normal(size=n)
    y = np.searchsorted(scenario.cuts, latent)  # class t: a_(t-1) < z <= a_t
    return y, latent + scenario.sigma * gen.normal(size=n)


def check_truth(scenario: Scenario, gen: np.random.Generator) -> tuple[float, float, float]:
    """Exact kappa of some fitted cut points vs its value (and s.e.) on 10**6 fresh items."""
    y, s = draw(scenario, 300, gen)
    fit = qwkit.optimize_thresholds(y, s, labels=range(scenario.k))
    y, s = draw(scenario, 1_000_000, gen)
    sampled = qwkit.kappa_test(y, fit.predict(s), labels=range(scenario.k))
    exact = population_kappa(scenario, fit.thresholds)
    return exact, sampled.statistic, sampled.standard_error


# ---------------------------------------------------------------------------- study


def replicate(scenario, n, reps, resamples, seed):
    gen = np.random.default_rng([seed, SCENARIOS.index(scenario), n])
    labels = np.arange(scenario.k)
    keys = ("apparent", "truth", "se_apparent")
    per_method = ("statistic", "hit", "below", "above", "width", "se_optimism")
    per_method += ("hit_apparent_se", "hit_rss")
    out = {key: np.empty(reps) for key in keys}
    out.update({f"{m}_{key}": np.empty(reps) for m in ("cv", "bootstrap") for key in per_method})
    for r in range(reps):
        y, s = draw(scenario, n, gen)
        res = {
            m: qwkit.optimism_corrected_kappa(
                y, s, labels=labels, method=m, n_resamples=resamples, rng=gen
            )
            for m in ("cv", "bootstrap")
        }
        truth = population_kappa(scenario, res["cv"].thresholds)
        out["apparent"][r] = res["cv"].apparent
        out["truth"][r] = truth
        out["se_apparent"][r] = res["cv"].standard_error_apparent
        for m in ("cv", "bootstrap"):
            low, high = res[m].confidence_interval(0.95)
            err = abs(res[m].statistic - truth)
            se_a, se_o = res[m].standard_error_apparent, res[m].standard_error_optimism
            out[f"{m}_statistic"][r] = res[m].statistic
            out[f"{m}_hit"][r] = low <= truth <= high
            out[f"{m}_below"][r] = truth < low  # the interval lies above the truth
            out[f"{m}_above"][r] = truth > high
            out[f"{m}_width"][r] = high - low
            out[f"{m}_se_optimism"][r] = se_o
            out[f"{m}_hit_apparent_se"][r] = err <= Z975 * se_a  # kappa_test's SE only
            out[f"{m}_hit_rss"][r] = err <= Z975 * math.hypot(se_a, se_o)  # as if independent
    return out


def _pm(x: np.ndarray, digits: int = 4) -> str:
    return f"{x.mean():.{digits}f} ({x.std(ddof=1) / math.sqrt(x.size):.{digits}f})"


def run(reps: int, resamples: int, seed: int, sizes=SIZES) -> str:
    started = time.perf_counter()
    inflation = [
        "| scenario | κ* (best cut points) | n | mean apparent | mean truth "
        "| optimism = apparent − truth |",
        "|---|---|---|---|---|---|",
    ]
    methods = [
        "| scenario | n | method | bias (corrected − truth) | bias / optimism | RMSE "
        "| 95% coverage | misses: truth below / above | mean width |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    errors = [
        "| scenario | n | sd(apparent − truth) | mean SE apparent | sd(optimism) "
        "| mean SE optimism | corr(apparent − truth, optimism) | coverage: SE apparent only "
        "| coverage: √(SE_a² + SE_o²) | coverage: SE_a + SE_o |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    checks = []
    for scenario in SCENARIOS:
        exact, sampled, se = check_truth(scenario, np.random.default_rng([seed, 99]))
        checks.append(
            f"- {scenario.name}: exact {exact:.5f}, on 10⁶ simulated items {sampled:.5f} "
            f"(s.e. {se:.5f})"
        )
        best = best_population_kappa(scenario)
        for n in sizes:
            out = replicate(scenario, n, reps, resamples, seed)
            excess = out["apparent"] - out["truth"]
            inflation.append(
                f"| {scenario.name} | {best:.4f} | {n} | {out['apparent'].mean():.4f} "
                f"| {out['truth'].mean():.4f} | {_pm(excess)} |"
            )
            for m, label in (("cv", "cv (10-fold)"), ("bootstrap", "bootstrap")):
                err = out[f"{m}_statistic"] - out["truth"]
                methods.append(
                    f"| {scenario.name} | {n} | {label} | {_pm(err)} "
                    f"| {err.mean() / excess.mean():+.0%} "
                    f"(±{err.std(ddof=1) / math.sqrt(reps) / excess.mean():.0%}) "
                    f"| {math.sqrt(np.mean(err**2)):.4f} | {_pm(out[f'{m}_hit'], 3)} "
                    f"| {out[f'{m}_below'].mean():.3f} / {out[f'{m}_above'].mean():.3f} "
                    f"| {out[f'{m}_width'].mean():.4f} |"
                )
            estimated = out["apparent"] - out["cv_statistic"]  # the cv optimism
            errors.append(
                f"| {scenario.name} | {n} | {excess.std(ddof=1):.4f} "
                f"| {out['se_apparent'].mean():.4f} | {estimated.std(ddof=1):.4f} "
                f"| {out['cv_se_optimism'].mean():.4f} "
                f"| {np.corrcoef(excess, estimated)[0, 1]:+.2f} "
                f"| {out['cv_hit_apparent_se'].mean():.3f} | {out['cv_hit_rss'].mean():.3f} "
                f"| {out['cv_hit'].mean():.3f} |"
            )
            elapsed = time.perf_counter() - started
            print(f"{scenario.name}, n = {n}: done ({elapsed:.0f} s)", file=sys.stderr)
    return "\n".join(
        [
            f"Settings: {reps} replications per row, n_resamples = {resamples} "
            f"(cv: 10-fold × {resamples // 10}; bootstrap: {resamples} resamples), "
            f"seed = {seed}. Monte Carlo standard errors in parentheses. "
            f"Wall time {(time.perf_counter() - started) / 60:.1f} minutes.",
            *_machine.describe(),
            "",
            *inflation,
            "",
            *methods,
            "",
            "The error of the cv estimate and its interval (eq. O5):",
            "",
            *errors,
            "",
            "Exact truth against a sample (the same fitted cut points):",
            *checks,
        ]
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="30 replications, 100 refits")
    parser.add_argument("--reps", type=int, default=None, help="replications (default 300)")
    parser.add_argument("--resamples", type=int, default=None, help="refits (default 200)")
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--output", default=None, help="write the Markdown here too")
    args = parser.parse_args(argv)
    reps = args.reps or (30 if args.quick else 300)
    resamples = args.resamples or (100 if args.quick else 200)
    with warnings.catch_warnings(record=True) as caught:  # reported, not hidden
        warnings.simplefilter("always")
        text = run(reps, resamples, args.seed)
    seen = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    text += "\n\nWarnings during the run: " + ("; ".join(seen) if seen else "none") + "."
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
