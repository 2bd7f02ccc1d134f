"""Does training on kappa pay? Repeated cross-validation on the wine quality data.

Run from the repository root::

    .venv/bin/python benchmarks/study_training.py            # the study (~20 min, 2 cores)
    .venv/bin/python benchmarks/study_training.py --quick    # a fast check (~2 min)

The full run rewrites the results block of ``docs/training.md`` (between the markers
``<!-- study:begin -->`` and ``<!-- study:end -->``), ``docs/study_training.png`` and
``benchmarks/study_training.json`` (every number per repetition). ``--quick`` writes the
same three outputs into ``--out-dir`` (default: a ``qwkit-study-quick`` folder in the
temporary directory) and never touches the docs; ``--out-dir`` with the full run does
the same.

Protocol (docs/training.md, part 3). For each data set (red, white), stratified K-fold
cross-validation repeated with fixed seeds. In every outer fold each model is fitted on
the training part and predicts the held-out part. A regression model's cut points are
fitted *out of fold*: an inner stratified K-fold on the training part gives out-of-fold
scores, ``qwkit.optimize_thresholds`` fits the exact cut points on them, the model is
refitted on the whole training part and its scores on the held-out part are cut there
(what ``qwkit.sklearn.OptimalRounder`` does). The held-out predictions of all folds of
one repetition are pooled (each item is predicted once, by a model that never saw it),
and ``_study_report`` turns them into QWK, bootstrap intervals (``kappa_test``) and
paired tests against the practitioners' default, LightGBM with squared error then cut
points fitted out of fold: the corrected repeated K-fold t-test (Nadeau & Bengio 2003;
Bouckaert & Frank 2004) of the per-fold QWK differences, then Holm's adjustment.

Threads: every library runs on one thread (boosters' ``n_jobs=1``, torch's
``set_num_threads(1)``, BLAS via the environment variables set below), so that the
results are reproducible and the fit times comparable. Nothing but the times depends on
the machine.
"""

# ruff: noqa: E402  (the thread settings must come before the imports)
from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy, torch, lightgbm and xgboost load

import argparse
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import lightgbm as lgb
import numpy as np
import torch
import xgboost as xgb
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold, train_test_split
from statsmodels.miscmodels.ordinal_model import OrderedModel

import qwkit
import qwkit.lightgbm
import qwkit.xgboost
from qwkit.torch import SoftKappaLoss, WeightedKappaLoss

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _study_report as report

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261121


@dataclass(frozen=True)
class Config:
    """Everything that sets the numbers of a run (recorded in its outputs)."""

    n_splits: int = 5  # outer folds
    n_repeats: int = 3  # repetitions of the outer K-fold
    inner_splits: int = 5  # inner folds for out-of-fold cut points (OptimalRounder's cv=5)
    subsample: int | None = None  # items per data set (None: all)
    mlp_steps: int = 1000  # Adam steps per MLP fit
    mlp_batch: int = 64
    mlp_hidden: int = 32
    mlp_lr: float = 1e-3
    n_resamples: int = 9999  # bootstrap resamples of kappa_test's interval
    optimism_refits: int = 200  # optimism_corrected_kappa's n_resamples
    seed: int = SEED


FULL = Config()
QUICK = replace(
    FULL, n_splits=3, n_repeats=1, inner_splits=3, subsample=1200, mlp_steps=600, n_resamples=999
)


# ---------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Fold:
    """One outer fold: the training part, the held-out features, the rating scale."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    scale: np.ndarray  # the whole rating scale of the data set
    inner: tuple[tuple[np.ndarray, np.ndarray], ...]  # inner splits of the training part
    seed: int  # for the models' own randomness (torch)


def strata(y: np.ndarray, n_splits: int) -> np.ndarray:
    """Ratings for stratification, extreme classes with fewer than `n_splits` items merged
    into their neighbours (the white wines' 5 nines), so that every class is split."""
    values, counts = np.unique(y, return_counts=True)
    counts = counts.copy()
    lo, hi = 0, len(values) - 1
    while lo < hi and counts[lo] < n_splits:
        counts[lo + 1] += counts[lo]
        lo += 1
    while hi > lo and counts[hi] < n_splits:
        counts[hi - 1] += counts[hi]
        hi -= 1
    return np.clip(y, values[lo], values[hi])


def load(color: str, config: Config):
    wine = qwkit.load_wine_quality(color)
    X, y = wine.X, wine.y
    scale = np.arange(y.min(), y.max() + 1)
    if config.subsample is not None and config.subsample < len(y):
        keep, _ = train_test_split(
            np.arange(len(y)),
            train_size=config.subsample,
            stratify=strata(y, 2),
            random_state=config.seed,
        )
        keep = np.sort(keep)
        X, y = X[keep], y[keep]
    return X, y, scale


def folds(X, y, scale, config: Config):
    """Yield (repetition, outer test indices, Fold) for every outer fold."""
    outer = RepeatedStratifiedKFold(
        n_splits=config.n_splits, n_repeats=config.n_repeats, random_state=config.seed
    )
    for index, (train, test) in enumerate(outer.split(X, strata(y, config.n_splits))):
        rep = index // config.n_splits
        inner = StratifiedKFold(config.inner_splits, shuffle=True, random_state=config.seed + index)
        y_train = y[train]
        splits = tuple(inner.split(X[train], strata(y_train, config.inner_splits)))
        yield rep, test, Fold(X[train], y_train, X[test], scale, splits, config.seed + index)


# ---------------------------------------------------------------------------- decoding


def round_to_scale(score: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(score), scale[0], scale[-1]).astype(np.int64)


def decode_scores(fold: Fold, oof: np.ndarray, test: np.ndarray, train: np.ndarray) -> dict:
    """Every decoding of a regression model's scores (scores on the rating scale).

    oof: inner out-of-fold scores of the training part; test: the refitted model's
    scores on the held-out part; train: its in-sample scores on the training part.
    """
    y, scale = fold.y_train, fold.scale
    cuts = qwkit.optimize_thresholds(y, oof, labels=scale)
    rescale = qwkit.kappa_rescale(y, oof)
    cuts_rescaled = qwkit.optimize_thresholds(y, rescale.predict(oof), labels=scale)
    cuts_in_sample = qwkit.optimize_thresholds(y, train, labels=scale)
    return {
        "round": round_to_scale(test, scale),
        "cut": cuts.predict(test),
        "rescale-round": round_to_scale(rescale.predict(test), scale),
        "rescale-cut": cuts_rescaled.predict(rescale.predict(test)),
        "cut-in-sample": cuts_in_sample.predict(test),
    }


def decode_proba(fold: Fold, proba: np.ndarray) -> dict:
    """Class probabilities (columns: the whole scale) → argmax and kappa_decision."""
    return {
        "argmax": fold.scale[np.argmax(proba, axis=1)],
        "kappa-decision": fold.scale[qwkit.kappa_decision(proba)],
    }


def run_regression(fold: Fold, fit: Callable) -> tuple[dict, float, dict]:
    """Inner CV for out-of-fold scores, refit on the training part, decode.

    `fit(X, y, seed)` returns a function from features to scores on the rating scale.
    Returns the decoded held-out predictions, the wall time of the refit, and what the
    optimism illustration needs.
    """
    oof = np.empty(len(fold.y_train))
    inner_test = []  # the inner models' scores of the held-out part (for the optimism)
    for i, (a, b) in enumerate(fold.inner):
        predict = fit(fold.X_train[a], fold.y_train[a], fold.seed * 10 + i)
        oof[b] = predict(fold.X_train[b])
        inner_test.append(predict(fold.X_test))
    start = time.perf_counter()
    predict = fit(fold.X_train, fold.y_train, fold.seed * 10 + 9)
    seconds = time.perf_counter() - start
    test, train = predict(fold.X_test), predict(fold.X_train)
    extra = {"oof": oof, "test": test, "train": train, "inner_test": inner_test}
    return decode_scores(fold, oof, test, train), seconds, extra


def run_classifier(fold: Fold, fit: Callable) -> tuple[dict, float, dict]:
    """One fit on the training part; `fit(X, y, scale, seed)` returns X → probabilities."""
    start = time.perf_counter()
    proba = fit(fold.X_train, fold.y_train, fold.scale, fold.seed * 10 + 9)
    seconds = time.perf_counter() - start
    return decode_proba(fold, proba(fold.X_test)), seconds, {}


def full_columns(proba: np.ndarray, present: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Probabilities of the classes present in training → columns of the whole scale."""
    out = np.zeros((proba.shape[0], len(scale)))
    out[:, np.searchsorted(scale, present)] = proba
    return out


# ---------------------------------------------------------------------------- models
# One function per model family. Boosters keep every library default except one thread
# (n_jobs=1) and, for XGBoost's kappa objective, base_score at the label mean (where
# XGBoost starts its own squared error: docs/training.md, 2.3).


def lightgbm_regressor(objective: str) -> Callable:
    def fit(X, y, seed):
        params = {"n_jobs": 1, "verbose": -1}
        if objective == "kappa":
            params["objective"] = qwkit.lightgbm.kappa_objective
        return lgb.LGBMRegressor(**params).fit(X, y).predict

    return fit


def xgboost_regressor(objective: str) -> Callable:
    def fit(X, y, seed):
        params = {"n_jobs": 1}
        if objective == "kappa":
            params.update(objective=qwkit.xgboost.kappa_objective, base_score=float(y.mean()))
        return xgb.XGBRegressor(**params).fit(X, y).predict

    return fit


def lightgbm_multiclass(X, y, scale, seed):
    model = lgb.LGBMClassifier(n_jobs=1, verbose=-1).fit(X, y)
    return lambda Z: full_columns(model.predict_proba(Z), model.classes_, scale)


def ordered_logit(X, y, scale, seed):
    """statsmodels' cumulative-link model, logit link, on standardized features (BFGS)."""
    mean, sd = X.mean(axis=0), X.std(axis=0)
    result = OrderedModel(y, (X - mean) / sd, distr="logit").fit(
        method="bfgs", maxiter=2000, disp=False
    )
    if not result.mle_retvals["converged"]:
        raise RuntimeError("OrderedModel did not converge")
    present = np.unique(y)
    return lambda Z: full_columns(
        result.model.predict(result.params, exog=(Z - mean) / sd), present, scale
    )


def kappa_regression(X, y, seed):
    return qwkit.kappa_regression(X, y).predict


# Small MLP, the same for the three losses: 11 → 32 → 32 → (1 or K), ReLU; standardized
# features; Adam (lr 1e-3), batches of 64 drawn by epoch-wise shuffling, a fixed number of
# steps; torch.manual_seed per fit. Regression targets are standardized with the training
# part's mean and sd (MSE and soft kappa are invariant to that affine map, and it puts the
# targets where the output starts); the scores are mapped back to the rating scale.


def _mlp(n_features: int, n_out: int, config: Config) -> torch.nn.Module:
    h = config.mlp_hidden
    return torch.nn.Sequential(
        torch.nn.Linear(n_features, h),
        torch.nn.ReLU(),
        torch.nn.Linear(h, h),
        torch.nn.ReLU(),
        torch.nn.Linear(h, n_out),
    )


def _train(net, loss_fn, X, target, config: Config, seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=config.mlp_lr)
    step, n = 0, len(target)
    net.train()
    while step < config.mlp_steps:
        order = torch.randperm(n, generator=generator)
        for i in range(0, n - config.mlp_batch // 2, config.mlp_batch):  # no tiny last batch
            batch = order[i : i + config.mlp_batch]
            out = net(X[batch])
            loss = loss_fn(out.squeeze(1) if out.shape[1] == 1 else out, target[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step == config.mlp_steps:
                break
    net.eval()


def mlp_regressor(loss: str, config: Config) -> Callable:
    """MLP with one output, trained with MSE or qwkit.torch.SoftKappaLoss()."""

    def fit(X, y, seed):
        torch.manual_seed(seed)
        mean, sd = X.mean(axis=0), X.std(axis=0)
        y_mean, y_sd = y.mean(), y.std()
        net = _mlp(X.shape[1], 1, config)
        loss_fn = torch.nn.MSELoss() if loss == "mse" else SoftKappaLoss()
        Xt = torch.tensor((X - mean) / sd, dtype=torch.float32)
        target = torch.tensor((y - y_mean) / y_sd, dtype=torch.float32)
        _train(net, loss_fn, Xt, target, config, seed)

        def predict(Z):
            with torch.no_grad():
                z = net(torch.tensor((Z - mean) / sd, dtype=torch.float32))
            return y_mean + y_sd * z.squeeze(1).double().numpy()

        return predict

    return fit


def mlp_classifier(config: Config) -> Callable:
    """MLP with K class logits, trained with qwkit.torch.WeightedKappaLoss(K)."""

    def fit(X, y, scale, seed):
        torch.manual_seed(seed)
        mean, sd = X.mean(axis=0), X.std(axis=0)
        net = _mlp(X.shape[1], len(scale), config)
        Xt = torch.tensor((X - mean) / sd, dtype=torch.float32)
        target = torch.tensor(np.searchsorted(scale, y))
        _train(net, WeightedKappaLoss(len(scale)), Xt, target, config, seed)

        def proba(Z):
            with torch.no_grad():
                logits = net(torch.tensor((Z - mean) / sd, dtype=torch.float32))
            return torch.softmax(logits.double(), dim=1).numpy()

        return proba

    return fit


def families(config: Config) -> dict[str, tuple[Callable, Callable]]:
    """Model family → (runner, fit), in the order of the tables."""
    return {
        "lgb-se": (run_regression, lightgbm_regressor("squared error")),
        "xgb-se": (run_regression, xgboost_regressor("squared error")),
        "lgb-kappa": (run_regression, lightgbm_regressor("kappa")),
        "xgb-kappa": (run_regression, xgboost_regressor("kappa")),
        "lgb-multiclass": (run_classifier, lightgbm_multiclass),
        "ordered-logit": (run_classifier, ordered_logit),
        "kappa-regression": (run_regression, kappa_regression),
        "mlp-mse": (run_regression, mlp_regressor("mse", config)),
        "mlp-soft": (run_regression, mlp_regressor("soft", config)),
        "mlp-wk": (run_classifier, mlp_classifier(config)),
    }


# ---------------------------------------------------------------------------- the study


def study(color: str, config: Config, *, progress=print) -> dict:
    """Pooled held-out predictions per repetition, fit times and optimism records."""
    X, y, scale = load(color, config)
    models = families(config)
    preds: dict[tuple[str, str], np.ndarray] = {}
    seconds: dict[str, list[float]] = {name: [] for name in models}
    optimism = []
    fold_ids = np.full((config.n_repeats, len(y)), -1)  # each item's outer fold, per repetition
    for index, (rep, test, fold) in enumerate(folds(X, y, scale, config)):
        fold_ids[rep, test] = index % config.n_splits
        started = time.perf_counter()
        for name, (runner, fit) in models.items():
            decoded, fit_seconds, extra = runner(fold, fit)
            seconds[name].append(fit_seconds)
            for decoder, pred in decoded.items():
                empty = np.zeros((config.n_repeats, len(y)), dtype=np.int64)
                preds.setdefault((name, decoder), empty)[rep, test] = pred
            if name == "lgb-se":
                optimism.append(optimism_record(fold, y[test], extra, config))
        seconds_fold = time.perf_counter() - started
        progress(f"{color}: repetition {rep + 1}, a fold in {seconds_fold:.1f} s")
    return {
        "y": y,
        "scale": scale,
        "preds": preds,
        "folds": fold_ids,
        "seconds": seconds,
        "optimism": optimism,
    }


def optimism_record(fold: Fold, y_test, extra, config: Config) -> dict:
    """Cut points of LightGBM's scores: apparent, corrected and held-out QWK.

    ``optimism_corrected_kappa`` estimates the QWK of the cut points on new items scored
    the way the items they were fitted on were scored: by the inner models. Its target
    is therefore the held-out QWK of the inner models' scores ("held_out_inner"); the
    refitted model, trained on more data, scores the held-out part better ("held_out").
    """
    y, scale = fold.y_train, fold.scale
    cuts = qwkit.optimize_thresholds(y, extra["oof"], labels=scale)
    corrected = qwkit.optimism_corrected_kappa(
        y, extra["oof"], labels=scale, n_resamples=config.optimism_refits, rng=fold.seed
    )
    interval = corrected.confidence_interval()
    in_sample = qwkit.optimize_thresholds(y, extra["train"], labels=scale)
    inner = [qwkit.kappa_score(y_test, cuts.predict(s), labels=scale) for s in extra["inner_test"]]
    return {
        "in_sample_apparent": in_sample.statistic,
        "in_sample_held_out": qwkit.kappa_score(
            y_test, in_sample.predict(extra["test"]), labels=scale
        ),
        "apparent": cuts.statistic,
        "corrected": corrected.statistic,
        "corrected_low": interval.low,
        "corrected_high": interval.high,
        "held_out_inner": float(np.mean(inner)),
        "held_out": qwkit.kappa_score(y_test, cuts.predict(extra["test"]), labels=scale),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast check (~2 minutes)")
    parser.add_argument("--out-dir", default=None, help="write the outputs here, not the docs")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else FULL
    out_dir = args.out_dir
    if out_dir is None and args.quick:
        out_dir = str(Path(tempfile.gettempdir()) / "qwkit-study-quick")
    torch.set_num_threads(1)
    command = "python benchmarks/study_training.py" + (" --quick" if args.quick else "")
    machine = report.machine_info()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # reported, not hidden
        warnings.simplefilter("always")
        results = {color: study(color, config) for color in ("red", "white")}
        summary = report.summarize(results, config)
    machine["warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    machine["wall_minutes"] = (time.perf_counter() - start) / 60
    machine["load_end"] = report.load_average()
    markdown = report.markdown(summary, config, machine, command)
    print(markdown)
    if out_dir is None:
        report.update_block(ROOT / "docs" / "training.md", markdown)
        report.plot(summary, ROOT / "docs" / "study_training.png")
        report.write_json(summary, config, machine, ROOT / "benchmarks" / "study_training.json")
    else:
        path = Path(out_dir)
        path.mkdir(parents=True, exist_ok=True)
        (path / "study_training.md").write_text(markdown + "\n", encoding="utf-8")
        report.plot(summary, path / "study_training.png")
        report.write_json(summary, config, machine, path / "study_training.json")
        print(f"outputs written to {path}")


if __name__ == "__main__":
    main()
