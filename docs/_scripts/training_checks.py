"""Numbers quoted in docs/training.md, part 2 (run: python docs/_scripts/training_checks.py).

Held-out quadratic weighted kappa of gradient boosting on the wine quality data bundled with
qwkit, every library setting at its default: squared error against qwkit's kappa objective,
with the intercept handled exactly (the default) or left to the gradient, and the gradient
version started at the weighted label mean. Five random 70/30 splits per data set; the mean
is printed. "rounded": predictions rounded to the nearest rating (clipped to the scale);
"cut points": `qwkit.optimize_thresholds` fitted on the training predictions; "soft": the
soft kappa of the raw predictions. One thread per fit (n_jobs=1), as in the tests.
"""

from __future__ import annotations

import warnings

import lightgbm as lgb
import numpy as np
import xgboost as xgb

import qwkit
import qwkit.lightgbm
import qwkit.xgboost

SEEDS = range(5)


def scores(y_train, y_test, p_train, p_test):
    lo, hi = int(y_train.min()), int(y_train.max())
    scale = list(range(min(lo, int(y_test.min())), max(hi, int(y_test.max())) + 1))
    rounded = np.clip(np.rint(p_test), lo, hi).astype(int)
    cuts = qwkit.optimize_thresholds(y_train, p_train, labels=scale)
    return (
        qwkit.kappa_score(y_test, rounded, labels=scale),
        qwkit.kappa_score(y_test, cuts.predict(p_test), labels=scale),
        qwkit.soft_kappa_score(y_test, p_test),
    )


def lightgbm_fits(X, y, Xt):
    mean = float(y.mean())
    out = {}
    m = lgb.LGBMRegressor(verbose=-1, n_jobs=1).fit(X, y)
    out["squared error"] = m.predict(X), m.predict(Xt)
    m = lgb.LGBMRegressor(objective=qwkit.lightgbm.kappa_objective, verbose=-1, n_jobs=1)
    m = m.fit(X, y)
    out["kappa_objective (intercept='exact')"] = m.predict(X), m.predict(Xt)
    grad = qwkit.lightgbm.KappaObjective(intercept="gradient")
    m = lgb.LGBMRegressor(objective=grad, verbose=-1, n_jobs=1).fit(X, y)
    out["intercept='gradient', start 0"] = m.predict(X), m.predict(Xt)
    m = lgb.LGBMRegressor(objective=grad, verbose=-1, n_jobs=1)
    m = m.fit(X, y, init_score=np.full(len(y), mean))
    out["intercept='gradient', init_score=mean"] = m.predict(X) + mean, m.predict(Xt) + mean
    return out


def xgboost_fits(X, y, Xt):
    out = {}
    m = xgb.XGBRegressor(n_jobs=1).fit(X, y)
    out["squared error"] = m.predict(X), m.predict(Xt)
    m = xgb.XGBRegressor(base_score=0.5, n_jobs=1).fit(X, y)
    out["squared error, base_score=0.5"] = m.predict(X), m.predict(Xt)
    m = xgb.XGBRegressor(objective=qwkit.xgboost.kappa_objective, n_jobs=1).fit(X, y)
    out["kappa_objective (intercept='exact')"] = m.predict(X), m.predict(Xt)
    m = xgb.XGBRegressor(
        objective=qwkit.xgboost.kappa_objective, base_score=float(y.mean()), n_jobs=1
    ).fit(X, y)
    out["kappa_objective, base_score=mean"] = m.predict(X), m.predict(Xt)
    grad = qwkit.xgboost.KappaObjective(intercept="gradient")
    m = xgb.XGBRegressor(objective=grad, n_jobs=1).fit(X, y)
    out["intercept='gradient', start 0.5"] = m.predict(X), m.predict(Xt)
    m = xgb.XGBRegressor(objective=grad, base_score=float(y.mean()), n_jobs=1).fit(X, y)
    out["intercept='gradient', base_score=mean"] = m.predict(X), m.predict(Xt)
    return out


def main():
    warnings.simplefilter("ignore", UserWarning)
    for color in ("red", "white"):
        wine = qwkit.load_wine_quality(color)
        for library, fits in (("LightGBM", lightgbm_fits), ("XGBoost", xgboost_fits)):
            table: dict[str, list] = {}
            for seed in SEEDS:
                order = np.random.default_rng(seed).permutation(len(wine.y))
                cut = int(0.7 * len(order))
                tr, te = order[:cut], order[cut:]
                for name, (p_tr, p_te) in fits(wine.X[tr], wine.y[tr], wine.X[te]).items():
                    gap = float(p_te.mean() - wine.y[tr].mean())
                    row = (*scores(wine.y[tr], wine.y[te], p_tr, p_te), gap, float(p_te.std()))
                    table.setdefault(name, []).append(row)
            print(f"\n{color} wine, {library} defaults (mean of {len(SEEDS)} splits)")
            print(f"| {'objective':40s} | rounded | cut points | soft κ | mean − ȳ | sd  |")
            print(f"|{'-' * 42}|---------|------------|--------|----------|-----|")
            for name, rows in table.items():
                r, c, s, gap, sd = np.mean(rows, axis=0)
                print(
                    f"| {name:40s} | {r:.3f}   | {c:.3f}      | {s:.3f}  | {gap:+.3f}   | {sd:.2f}|"
                )
        print(f"(label sd {wine.y.std():.2f}, mean {wine.y.mean():.3f})")


if __name__ == "__main__":
    main()
