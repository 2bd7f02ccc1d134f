# ruff: noqa: E402, E501  (thread settings before the imports; a script that prints wide tables)
"""The training claims of docs/training.md, measured beyond the wine data.

Run from the repository root (about ten minutes on one core; ``--quick`` in about one)::

    nice .venv/bin/python benchmarks/claims_training.py                 # rewrites benchmarks/README_training.md
    nice .venv/bin/python benchmarks/claims_training.py --quick         # prints only
    nice .venv/bin/python benchmarks/claims_training.py --sections 4    # one section, prints only

Four questions, each on data the study of docs/training.md (part 3) did not use:

1. **Objectives, simulated ordinal data with a known truth.** Eight features
   X ~ N(0, I); a non-linear latent mean eta(X) (standardized); a latent rating
   eta + sigma * e; the rating is the class of the latent rating, cut at fixed population
   quantiles. Two scenarios: 5 balanced classes with a strong signal (sigma = 0.5) and
   7 skewed classes with a weak one (sigma = 1.0, about the wine data's QWK). Every
   replication draws a fresh training sample of n items and a fresh test sample of
   10,000 items, fits every model with every library default (one thread; XGBoost's
   kappa objective also with ``base_score`` at the label mean, as the study does) and
   decodes its scores by rounding, by exact cut points fitted out of fold (an inner
   stratified 5-fold, what ``OptimalRounder`` does) and by ``kappa_rescale`` then
   rounding. The replications are independent, so paired differences get a plain
   t interval. The oracle row is the population QWK of the best cut points of the true
   latent mean eta (no model error).
2. **Objectives, binned diabetes.** scikit-learn's diabetes data (442 patients, ten
   features), the disease progression cut at its quintiles into ratings 1-5; stratified
   5-fold cross-validation repeated 10 times; the same models and decodings; paired
   differences of per-fold QWK with the corrected repeated K-fold t-test of
   ``_study_report.corrected_t_test`` (Nadeau & Bengio 2003; Bouckaert & Frank 2004).
3. **Integer weights against repeated rows.** A booster trained with integer sample
   weights c against one trained on the rows repeated c times, every library default,
   on simulated data and on the red wines: the largest difference of their predictions
   and of their held-out QWK (rounded predictions).
4. **The level of the study's test.** Two nulls, each on simulated data sets compared as
   the study compares models (stratified 5-fold cross-validation repeated 3 times,
   predictions rounded): one procedure with two random seeds (LightGBM with row and
   feature subsampling), and two different procedures that are equal in expectation over
   data sets but not on any one of them (LightGBM without feature 1 against LightGBM
   without feature 0, the latent mean symmetric in the two). How often is the difference
   called significant at 5 %, by the median of the three repetitions'
   ``compare_kappa_test`` p-values (what the study did before), by one repetition's
   ``compare_kappa_test``, by a plain t-test of the 15 per-fold differences, and by the
   corrected repeated K-fold t-test (what it does now)?

Seeded: every (section, scenario, n, replication) has its own generator, so the numbers
are reproducible and a section run alone prints what the full run prints.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold

import qwkit
import qwkit.lightgbm
import qwkit.xgboost

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine
import _study_report as report
import study_training as study

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261121
N_TEST = 10_000
N_FEATURES = 8


# ---------------------------------------------------------------------------- data


def latent_mean(X: np.ndarray) -> np.ndarray:
    """A non-linear latent mean (main effects, an interaction, a kink, a curvature);
    features 6 and 7 are noise. Standardized by its population mean and sd."""
    x = X
    raw = (
        0.9 * x[:, 0]
        + 0.6 * np.sin(2 * x[:, 1])
        + 0.5 * x[:, 2] * x[:, 3]
        + 0.5 * np.maximum(x[:, 4], 0)
        - 0.4 * x[:, 5] ** 2
    )
    # in closed form: E[max(Z, 0)] = 1/sqrt(2 pi), E[sin(2Z)^2] = (1 - e^-8)/2,
    # Var(max(Z, 0)) = 1/2 - 1/(2 pi), Var(Z^2) = 2; the terms are uncorrelated
    mean = 0.5 / math.sqrt(2 * math.pi) - 0.4
    var = 0.81 + 0.18 * (1 - math.exp(-8)) + 0.25 + 0.25 * (0.5 - 0.5 / math.pi) + 0.32
    return (raw - mean) / math.sqrt(var)


def symmetric_mean(X: np.ndarray) -> np.ndarray:
    """A latent mean symmetric in features 0 and 1 (section 4's null), standardized."""
    x = X
    raw = 0.7 * x[:, 0] + 0.7 * x[:, 1] + 0.5 * x[:, 2] * x[:, 3] + 0.5 * np.maximum(x[:, 4], 0)
    mean = 0.5 / math.sqrt(2 * math.pi)
    var = 0.98 + 0.25 + 0.25 * (0.5 - 0.5 / math.pi)
    return (raw - mean) / math.sqrt(var)


@dataclass(frozen=True)
class Scenario:
    name: str
    class_probabilities: tuple[float, ...]
    sigma: float
    mean: Callable[[np.ndarray], np.ndarray] = latent_mean


WINE_LIKE = (0.02, 0.08, 0.30, 0.35, 0.17, 0.06, 0.02)
SCENARIOS = (
    Scenario("5 classes, strong signal (σ = 0.5)", (0.15, 0.20, 0.30, 0.20, 0.15), 0.5),
    Scenario("7 classes, skewed, weak signal (σ = 1.0)", WINE_LIKE, 1.0),
)
SYMMETRIC = Scenario("7 classes, symmetric in features 0 and 1", WINE_LIKE, 1.0, symmetric_mean)


class Population:
    """A scenario's population: the cut points of the latent rating (its quantiles, from
    one fixed sample of 10⁶ items) and the oracle QWK."""

    def __init__(self, scenario: Scenario, index: int):
        self.scenario = scenario
        gen = np.random.default_rng([SEED, 0, index])
        eta, latent = self._latent(1_000_000, gen)
        self.cuts = np.quantile(latent, np.cumsum(scenario.class_probabilities)[:-1])
        self.scale = np.arange(1, len(scenario.class_probabilities) + 1)
        y = self._rate(latent)
        self.oracle = qwkit.optimize_thresholds(y, eta, labels=self.scale).statistic

    def _latent(self, n, gen):
        X = gen.normal(size=(n, N_FEATURES))
        eta = self.scenario.mean(X)
        return eta, eta + self.scenario.sigma * gen.normal(size=n)

    def _rate(self, latent):
        return self.scale[np.searchsorted(self.cuts, latent)]

    def draw(self, n: int, gen: np.random.Generator):
        X = gen.normal(size=(n, N_FEATURES))
        latent = self.scenario.mean(X) + self.scenario.sigma * gen.normal(size=n)
        return X, self._rate(latent)


def binned_diabetes():
    data = load_diabetes()
    target = data.target
    cuts = np.quantile(target, [0.2, 0.4, 0.6, 0.8])
    return data.data, 1 + np.searchsorted(cuts, target, side="right")


# ---------------------------------------------------------------------------- models


def _xgboost_kappa_default_start(X, y, seed):
    model = xgb.XGBRegressor(objective=qwkit.xgboost.kappa_objective, n_jobs=1)
    return model.fit(X, y).predict


MODELS = {
    "lgb-se": ("LightGBM, squared error", study.lightgbm_regressor("squared error")),
    "lgb-kappa": ("LightGBM, `kappa_objective`", study.lightgbm_regressor("kappa")),
    "xgb-se": ("XGBoost, squared error", study.xgboost_regressor("squared error")),
    "xgb-kappa": ("XGBoost, `kappa_objective`, `base_score` = ȳ", study.xgboost_regressor("kappa")),
    "xgb-kappa-0.5": ("XGBoost, `kappa_objective`, default start", _xgboost_kappa_default_start),
}
DECODERS = {
    "round": "rounding",
    "cut": "cut points (out of fold)",
    "rescale-round": "`kappa_rescale` → rounding",
}
ROWS = [(m, d) for m in MODELS for d in DECODERS]
#: (label, row a, row b): Δ = QWK(a) − QWK(b)
COMPARISONS = (
    ("LightGBM: kappa − squared error, both → cut points", ("lgb-kappa", "cut"), ("lgb-se", "cut")),
    (
        "LightGBM: kappa − squared error, both → rounding",
        ("lgb-kappa", "round"),
        ("lgb-se", "round"),
    ),
    (
        "LightGBM: kappa → rounding − squared error → cut points",
        ("lgb-kappa", "round"),
        ("lgb-se", "cut"),
    ),
    ("LightGBM, kappa: rounding − cut points", ("lgb-kappa", "round"), ("lgb-kappa", "cut")),
    (
        "XGBoost (ȳ start): kappa − squared error, both → cut points",
        ("xgb-kappa", "cut"),
        ("xgb-se", "cut"),
    ),
    (
        "XGBoost (ȳ start): kappa − squared error, both → rounding",
        ("xgb-kappa", "round"),
        ("xgb-se", "round"),
    ),
    (
        "XGBoost (ȳ start): kappa → rounding − squared error → cut points",
        ("xgb-kappa", "round"),
        ("xgb-se", "cut"),
    ),
    (
        "XGBoost (ȳ start), kappa: rounding − cut points",
        ("xgb-kappa", "round"),
        ("xgb-kappa", "cut"),
    ),
    (
        "XGBoost (default start): kappa − squared error, both → cut points",
        ("xgb-kappa-0.5", "cut"),
        ("xgb-se", "cut"),
    ),
    (
        "LightGBM, squared error: `kappa_rescale` → rounding − cut points",
        ("lgb-se", "rescale-round"),
        ("lgb-se", "cut"),
    ),
)


def fit_and_decode(X, y, X_test, scale, seed: int, inner_splits: int = 5) -> dict:
    """Every model × decoder's predictions of X_test (the study's protocol)."""
    inner = StratifiedKFold(inner_splits, shuffle=True, random_state=seed)
    splits = tuple(inner.split(X, study.strata(y, inner_splits)))
    fold = study.Fold(X, y, X_test, scale, splits, seed)
    out = {}
    for name, (_, fit) in MODELS.items():
        decoded, _, _ = study.run_regression(fold, fit)
        for decoder in DECODERS:
            out[(name, decoder)] = decoded[decoder]
    return out


# ---------------------------------------------------------------------------- helpers


def t_interval(d: np.ndarray) -> tuple[float, float, float, float]:
    """Mean, SE, 95 % t interval half-width and two-sided p of independent values."""
    d = np.asarray(d, dtype=float)
    mean, se = float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size))
    if se == 0:
        return mean, 0.0, 0.0, 1.0 if mean == 0 else 0.0
    half = float(stats.t.ppf(0.975, d.size - 1)) * se
    return mean, se, half, float(2 * stats.t.sf(abs(mean / se), d.size - 1))


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


# ---------------------------------------------------------------------------- 1. simulation


def section_simulation(sizes, reps) -> list[str]:
    lines = [
        "## 1. Objectives on simulated ordinal data (known truth)",
        "",
        f"{reps} independent replications per cell; held-out QWK on {N_TEST:,} fresh items per "
        "replication (the population QWK of the fitted model to about ±0.005); every library "
        "default, one thread. Mean held-out QWK:",
        "",
    ]
    results = {}
    for s_index, scenario in enumerate(SCENARIOS):
        population = Population(scenario, s_index)
        for n in sizes:
            started = time.perf_counter()
            qwk = {row: [] for row in ROWS}
            for r in range(reps):
                gen = np.random.default_rng([SEED, 1, s_index, n, r])
                X, y = population.draw(n, gen)
                X_test, y_test = population.draw(N_TEST, gen)
                preds = fit_and_decode(X, y, X_test, population.scale, seed=r)
                for row in ROWS:
                    qwk[row].append(qwkit.kappa_score(y_test, preds[row], labels=population.scale))
            results[(s_index, n)] = (population, {k: np.array(v) for k, v in qwk.items()})
            print(
                f"{scenario.name}, n = {n}: {time.perf_counter() - started:.0f} s", file=sys.stderr
            )
    head = "| model → decoding |" + "".join(f" {SCENARIOS[s].name}, n = {n} |" for s, n in results)
    lines += [head, "|---|" + "---:|" * len(results)]
    lines.append(
        "| oracle: true latent mean → best cut points |"
        + "".join(f" {population.oracle:.3f} |" for population, _ in results.values())
    )
    for row in ROWS:
        name = f"{MODELS[row[0]][0]} → {DECODERS[row[1]]}"
        lines.append(
            f"| {name} |" + "".join(f" {q[row].mean():.3f} |" for _, q in results.values())
        )
    lines += [
        "",
        "Paired differences of held-out QWK, mean over the replications [95 % t interval]:",
        "",
        "| comparison |" + "".join(f" {SCENARIOS[s].name}, n = {n} |" for s, n in results),
        "|---|" + "---:|" * len(results),
    ]
    for label, a, b in COMPARISONS:
        cells = []
        for _, q in results.values():
            mean, _, half, _ = t_interval(q[a] - q[b])
            cells.append(f" {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}] |")
        lines.append(f"| {label} |" + "".join(cells))
    return lines


# ---------------------------------------------------------------------------- 2. diabetes


def section_diabetes(n_repeats) -> list[str]:
    X, y = binned_diabetes()
    scale = np.arange(1, 6)
    n_splits = 5
    outer = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=SEED)
    qwk = {row: [] for row in ROWS}
    started = time.perf_counter()
    for index, (train, test) in enumerate(outer.split(X, y)):
        preds = fit_and_decode(X[train], y[train], X[test], scale, seed=SEED + index)
        for row in ROWS:
            qwk[row].append(qwkit.kappa_score(y[test], preds[row], labels=scale))
    print(f"diabetes: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    qwk = {k: np.array(v) for k, v in qwk.items()}
    lines = [
        "## 2. Objectives on binned diabetes (real data)",
        "",
        f"scikit-learn's diabetes data, n = {len(y)}, progression cut at its quintiles into "
        f"ratings 1–5; stratified {n_splits}-fold cross-validation repeated {n_repeats} times "
        f"({n_splits * n_repeats} held-out folds of about {len(y) // n_splits} patients). QWK: "
        "mean of the per-fold QWKs; Δ: mean per-fold difference; SE and p: the corrected "
        f"repeated K-fold t-test ({n_splits * n_repeats - 1} degrees of freedom).",
        "",
        "| model → decoding | mean per-fold QWK |",
        "|---|---:|",
    ]
    for row in ROWS:
        lines.append(f"| {MODELS[row[0]][0]} → {DECODERS[row[1]]} | {qwk[row].mean():.3f} |")
    lines += ["", "| comparison | Δ | SE | p |", "|---|---:|---:|---:|"]
    for label, a, b in COMPARISONS:
        mean, se, p = report.corrected_t_test(qwk[a] - qwk[b], n_splits)
        lines.append(f"| {label} | {mean:+.3f} | {se:.3f} | {_p(p)} |")
    return lines


# ---------------------------------------------------------------------------- 3. weights


def _weighted_vs_repeated(X, y, X_test, y_test, counts, scale) -> list[tuple[str, float, float]]:
    rep_X, rep_y = np.repeat(X, counts, axis=0), np.repeat(y, counts)
    w = counts.astype(float)
    mean_w = float(np.average(y, weights=w))
    kappa = qwkit.lightgbm.kappa_objective
    xkappa = qwkit.xgboost.kappa_objective
    quiet = {"n_jobs": 1, "verbose": -1}
    one_row_rules = {"min_child_samples": 1, "min_data_in_bin": 1}
    setups = {
        "LightGBM, squared error, defaults": lambda: lgb.LGBMRegressor(**quiet),
        "LightGBM, `kappa_objective`, defaults": lambda: lgb.LGBMRegressor(
            objective=kappa, **quiet
        ),
        "LightGBM, `kappa_objective`, `min_data_in_leaf=1`, `min_data_in_bin=1`": lambda: (
            lgb.LGBMRegressor(objective=kappa, **one_row_rules, **quiet)
        ),
        "XGBoost, squared error, defaults (`hist`)": lambda: xgb.XGBRegressor(n_jobs=1),
        "XGBoost, `kappa_objective`, `base_score` = ȳ (`hist`)": lambda: xgb.XGBRegressor(
            objective=xkappa, base_score=mean_w, n_jobs=1
        ),
        'XGBoost, `kappa_objective`, `base_score` = ȳ, `tree_method="exact"`': lambda: (
            xgb.XGBRegressor(objective=xkappa, base_score=mean_w, tree_method="exact", n_jobs=1)
        ),
    }
    out = []
    for name, make in setups.items():
        weighted = make().fit(X, y, sample_weight=w).predict(X_test)
        repeated = make().fit(rep_X, rep_y).predict(X_test)
        q = [
            qwkit.kappa_score(y_test, study.round_to_scale(p, scale), labels=scale)
            for p in (weighted, repeated)
        ]
        out.append((name, float(np.max(np.abs(weighted - repeated))), q[0] - q[1]))
    return out


def section_weights() -> list[str]:
    lines = [
        "## 3. Integer weights against repeated rows",
        "",
        "A booster trained with integer sample weights c ∈ {1, 2, 3} (drawn at random) "
        "against the same booster trained on the rows repeated c times. Largest absolute "
        "difference of their predictions on held-out items, and the difference of their "
        "held-out QWK (predictions rounded to the scale).",
        "",
        "| data | booster | max |Δ prediction| | Δ held-out QWK |",
        "|---|---|---:|---:|",
    ]
    gen = np.random.default_rng([SEED, 3])
    population = Population(SCENARIOS[1], 1)
    X, y = population.draw(1000, gen)
    X_test, y_test = population.draw(N_TEST, gen)
    counts = gen.integers(1, 4, len(y))
    for name, diff, dq in _weighted_vs_repeated(X, y, X_test, y_test, counts, population.scale):
        lines.append(f"| simulated (7 classes), n = 1000 | {name} | {diff:.3g} | {dq:+.4f} |")
    wine = qwkit.load_wine_quality("red")
    order = np.random.default_rng([SEED, 3, 1]).permutation(len(wine.y))
    train, test = order[:1000], order[1000:]
    counts = gen.integers(1, 4, len(train))
    scale = np.arange(wine.y.min(), wine.y.max() + 1)
    for name, diff, dq in _weighted_vs_repeated(
        wine.X[train], wine.y[train], wine.X[test], wine.y[test], counts, scale
    ):
        lines.append(f"| red wine, n = 1000 | {name} | {diff:.3g} | {dq:+.4f} |")
    return lines


# ---------------------------------------------------------------------------- 4. the test


def _seeds_null(X, y, arm: int, seed: int):
    """Null 1: one procedure (LightGBM with row and feature subsampling), two seeds."""
    model = lgb.LGBMRegressor(
        subsample=0.8,
        subsample_freq=1,
        colsample_bytree=0.8,
        random_state=seed + arm,
        n_jobs=1,
        verbose=-1,
    )
    return model.fit(X, y).predict


def _symmetric_null(X, y, arm: int, seed: int):
    """Null 2: LightGBM without feature 1 (arm 0) or without feature 0 (arm 1), on data
    whose latent mean is symmetric in the two: equal in expectation over data sets, but
    on any one data set the luckier feature wins in every fold."""
    keep = np.delete(np.arange(X.shape[1]), 1 - arm)
    model = lgb.LGBMRegressor(n_jobs=1, verbose=-1).fit(X[:, keep], y)
    return lambda Z: model.predict(Z[:, keep])


NULLS = {
    "seeds": (
        "the same procedure with two seeds — LightGBM with `subsample=0.8`, `subsample_freq=1`, "
        "`colsample_bytree=0.8` — on the 7-class weak-signal data of section 1",
        SCENARIOS[1],
        1,  # the population of section 1's second scenario
        _seeds_null,
    ),
    "symmetric": (
        "two procedures that differ but are equal in expectation — LightGBM without feature 1 "
        "against LightGBM without feature 0, on data whose latent mean is symmetric in the two "
        "(0.7·x₀ + 0.7·x₁ + 0.5·x₂x₃ + 0.5·max(x₄, 0), standardized; 7 skewed classes, σ = 1)",
        SYMMETRIC,
        2,
        _symmetric_null,
    ),
}
LEVEL_NAMES = {
    "median": "median of the 3 repetitions' `compare_kappa_test` p-values (the study before)",
    "one": "one repetition's `compare_kappa_test` p-value",
    "plain": "plain t-test of the 15 per-fold differences",
    "corrected": "corrected repeated K-fold t-test of the 15 per-fold differences (the study now)",
}


def rejection_rates(null: str, reps: int, n: int, n_splits=5, n_repeats=3) -> dict[str, float]:
    """Share of data sets in which each p-value of LEVEL_NAMES is below 0.05."""
    _, scenario, population_seed, arm_fit = NULLS[null]
    population = Population(scenario, population_seed)
    scale = population.scale
    rejected = dict.fromkeys(LEVEL_NAMES, 0)
    for r in range(reps):
        gen = np.random.default_rng([SEED, 4, list(NULLS).index(null), r])
        X, y = population.draw(n, gen)
        outer = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=r)
        pooled = np.zeros((2, n_repeats, n), dtype=np.int64)
        fold_diffs = []
        for index, (train, test) in enumerate(outer.split(X, study.strata(y, n_splits))):
            rep = index // n_splits
            qwk = []
            for arm in (0, 1):
                fit = arm_fit(X[train], y[train], arm, seed=10_000 * r + 100 * index)
                pooled[arm, rep, test] = study.round_to_scale(fit(X[test]), scale)
                qwk.append(qwkit.kappa_score(y[test], pooled[arm, rep, test], labels=scale))
            fold_diffs.append(qwk[0] - qwk[1])
        conditional = [
            qwkit.compare_kappa_test(y, pooled[0, rep], pooled[1, rep], labels=scale).pvalue
            for rep in range(n_repeats)
        ]
        d = np.array(fold_diffs)
        plain = 2 * stats.t.sf(abs(d.mean() / (d.std(ddof=1) / math.sqrt(d.size))), d.size - 1)
        pvalues = {
            "median": float(np.median(conditional)),
            "one": conditional[0],
            "plain": float(plain),
            "corrected": report.corrected_t_test(d, n_splits)[2],
        }
        for key, p in pvalues.items():
            rejected[key] += p < 0.05
    return {key: count / reps for key, count in rejected.items()}


def section_level(reps, n=500) -> list[str]:
    rates = {}
    for null in NULLS:
        started = time.perf_counter()
        rates[null] = rejection_rates(null, reps, n)
        print(f"level, {null}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    mc = math.sqrt(0.05 * 0.95 / reps)
    lines = [
        "## 4. The level of the study's paired test",
        "",
        f"{reps} simulated data sets of n = {n} items per null, each compared as the study "
        "compares models: stratified 5-fold cross-validation repeated 3 times, predictions "
        "rounded to the scale. Two nulls, under which no test should call the procedures "
        "different more than 5 % of the time:",
        "",
        *[f"- **{null}**: {NULLS[null][0]}." for null in NULLS],
        "",
        "Share of data sets where the difference was called significant at 5 % (Monte Carlo "
        f"SE near 0.05: {mc:.3f}):",
        "",
        "| p-value |" + "".join(f" {null} |" for null in NULLS),
        "|---|" + "---:|" * len(NULLS),
    ]
    for key, name in LEVEL_NAMES.items():
        lines.append(f"| {name} |" + "".join(f" {rates[null][key]:.3f} |" for null in NULLS))
    return lines


# ---------------------------------------------------------------------------- main


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast check; prints only")
    parser.add_argument(
        "--sections", default="1,2,3,4", help="which sections to run (default: all)"
    )
    parser.add_argument(
        "--output",
        default=None,
        help="write the Markdown here (default: benchmarks/README_training.md for a full run "
        "of every section, nowhere otherwise)",
    )
    args = parser.parse_args(argv)
    quick = args.quick
    wanted = sorted({int(x) for x in args.sections.split(",")})
    sizes, sim_reps, diabetes_repeats, level_reps = (
        ((300,), 3, 2, 20) if quick else ((500, 2000), 20, 10, 150)
    )
    sections = {
        1: lambda: section_simulation(sizes, sim_reps),
        2: lambda: section_diabetes(diabetes_repeats),
        3: section_weights,
        4: lambda: section_level(level_reps),
    }
    started = time.perf_counter()
    body = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for number in wanted:
            body += [*sections[number](), ""]
    minutes = (time.perf_counter() - started) / 60
    seen = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    command = "python benchmarks/claims_training.py" + (" --quick" if quick else "")
    if wanted != [1, 2, 3, 4]:
        command += f" --sections {','.join(map(str, wanted))}"
    text = "\n".join(
        [
            "# Training claims beyond the wine data",
            "",
            f"Generated by `{command}` ({minutes:.1f} minutes of wall time); rerun it to "
            "refresh this file. What each section measures, and how, is in the script's "
            "docstring; docs/training.md quotes these tables.",
            "",
            *_machine.describe(
                "one thread per model",
                {"lightgbm": lgb.__version__, "xgboost": xgb.__version__},
            ),
            f"- warnings during the run: {'; '.join(seen) if seen else 'none'}",
            "",
            *body,
        ]
    ).rstrip("\n")
    print(text)
    full = not quick and wanted == [1, 2, 3, 4]
    output = args.output or (str(ROOT / "benchmarks" / "README_training.md") if full else None)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
