"""Exact kappa-optimal thresholds vs Kaggle's ``OptimizedRounder``; kappa decisions.

Run from the repository root:

    .venv/bin/python benchmarks/bench_thresholds.py            # full (about 20-30 min)
    .venv/bin/python benchmarks/bench_thresholds.py --quick    # smaller sizes, a minute

It writes ``benchmarks/README_thresholds.md`` (ratios and QWK values, not bare times).

Part 1 fits cut points on a training set with (a) ``qwkit.optimize_thresholds`` and
(b) the ``OptimizedRounder`` that Kaggle notebooks copy (scipy Nelder–Mead from
[0.5, 1.5, …], ``pd.cut`` and ``sklearn.metrics.cohen_kappa_score``), then reports
QWK in-sample and on an equally large held-out set, and the fitting-time ratio.
Part 2 compares ``qwkit.kappa_decision`` with argmax and round(E[y]) on class
posteriors: expected QWK (kappa of the expected confusion matrix) and realized QWK.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import scipy as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import cohen_kappa_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import qwkit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine

OUT = Path(__file__).with_name("README_thresholds.md")


# ---------------------------------------------------------------------------- Kaggle


class OptimizedRounder:
    """Kaggle's OptimizedRounder, as it is copied between notebooks (PetFinder 2019).

    Only the number of classes is a parameter (the notebooks hard-code 5 labels).
    """

    def __init__(self, n_classes=5):
        self.coef_ = 0
        self.labels = list(range(n_classes))

    def _kappa_loss(self, coef, X, y):
        X_p = pd.cut(X, [-np.inf, *list(np.sort(coef)), np.inf], labels=self.labels)
        ll = cohen_kappa_score(y, X_p, weights="quadratic")
        return -ll

    def fit(self, X, y):
        loss_partial = partial(self._kappa_loss, X=X, y=y)
        initial_coef = [i + 0.5 for i in range(len(self.labels) - 1)]
        self.coef_ = sp.optimize.minimize(loss_partial, initial_coef, method="nelder-mead")

    def predict(self, X, coef):
        return pd.cut(X, [-np.inf, *list(np.sort(coef)), np.inf], labels=self.labels)

    def coefficients(self):
        return self.coef_["x"]


# ---------------------------------------------------------------------------- data


def synthetic(n, k, seed):
    """Skewed latent trait, uneven classes, a noisy feature; scores = a least-squares fit.

    Returns (y_train, score_train, y_test, score_test), n items each.
    """
    rng = np.random.default_rng(seed)
    z = rng.gamma(shape=1.5 + seed % 3, size=2 * n)
    props = rng.dirichlet(np.full(k, 4.0))
    cuts = np.quantile(z, np.cumsum(props)[:-1])
    y = np.searchsorted(cuts, z)
    x = z + rng.normal(scale=rng.uniform(0.3, 0.8) * z.std(), size=2 * n)
    design = np.column_stack([np.ones(2 * n), x])
    beta, *_ = np.linalg.lstsq(design[:n], y[:n].astype(float), rcond=None)
    score = design @ beta
    return y[:n], score[:n], y[n:], score[n:]


def wine_split(seed):
    """Red wine: least squares on the 11 features, random halves; y = quality − 3."""
    wine = qwkit.load_wine_quality("red")
    y = wine.y - 3
    rng = np.random.default_rng(seed)
    idx = rng.permutation(y.size)
    tr, te = idx[: y.size // 2], idx[y.size // 2 :]
    design = np.column_stack([np.ones(y.size), wine.X])
    beta, *_ = np.linalg.lstsq(design[tr], y[tr].astype(float), rcond=None)
    score = design @ beta
    return y[tr], score[tr], y[te], score[te]


# ---------------------------------------------------------------------------- part 1


def compare(name, k, data):
    y_tr, s_tr, y_te, s_te = data
    labels = np.arange(k)
    t0 = time.perf_counter()
    exact = qwkit.optimize_thresholds(y_tr, s_tr, labels=labels)
    t_exact = time.perf_counter() - t0
    t0 = time.perf_counter()
    rounder = OptimizedRounder(k)
    rounder.fit(s_tr, y_tr)
    t_nm = time.perf_counter() - t0
    coef = np.sort(rounder.coefficients())

    def qwk(y, pred):
        return qwkit.kappa_score(y, pred, labels=labels)

    row = {
        "data": name,
        "n": y_tr.size,
        "K": k,
        "exact_in": exact.statistic,
        "nm_in": qwk(y_tr, np.asarray(rounder.predict(s_tr, coef), dtype=int)),
        "exact_out": qwk(y_te, exact.predict(s_te)),
        "nm_out": qwk(y_te, np.asarray(rounder.predict(s_te, coef), dtype=int)),
        "speed": t_nm / t_exact,
        "nfev": rounder.coef_["nfev"],
        "iters": exact.certificate.n_iterations,
    }
    print(
        f"{name:>14} n={row['n']:>7} K={k:>2}  in {row['exact_in']:.4f} vs {row['nm_in']:.4f}"
        f"  out {row['exact_out']:.4f} vs {row['nm_out']:.4f}  speed ×{row['speed']:.0f}"
        f" (NM {t_nm:.2f}s / exact {t_exact:.3f}s, {row['nfev']} evaluations)",
        flush=True,
    )
    return row


def part1(quick):
    qwkit.optimize_thresholds([0, 1, 2], [0.0, 1.0, 2.0])  # load the numba cache once
    rows = []
    sizes = [(10_000, 2)] if quick else [(100_000, 3), (1_000_000, 1)]
    for n, n_seeds in sizes:
        for k in (5, 10):
            for seed in range(n_seeds):
                rows.append(compare(f"synthetic-{seed}", k, synthetic(n, k, 20261121 + seed)))
    for seed in range(3 if quick else 20):
        rows.append(compare(f"wine-{seed}", 6, wine_split(20261121 + seed)))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- part 2


def expected_qwk(proba, decision):
    """Kappa of the expected confusion matrix Pᵀ·X (what kappa_decision maximizes)."""
    return qwkit.kappa_from_confusion(proba.T @ np.eye(proba.shape[1])[decision])


def rules(proba):
    k = proba.shape[1]
    return {
        "kappa_decision": qwkit.kappa_decision(proba),
        "argmax": np.argmax(proba, axis=1),
        "round(E[y])": np.clip(np.rint(proba @ np.arange(k)), 0, k - 1).astype(int),
        "bayes (W as cost)": qwkit.bayes_decision(proba, qwkit.weight_matrix(k)),
    }


def cumulative_logit(eta, cuts):
    upper = 1 / (1 + np.exp(-(np.append(cuts, np.inf)[None, :] - eta[:, None])))
    lower = 1 / (1 + np.exp(-(np.insert(cuts, 0, -np.inf)[None, :] - eta[:, None])))
    return upper - lower


def part2(quick):
    rng = np.random.default_rng(20261121)
    reps = 20 if quick else 200
    rows = []
    cuts = np.array([-2.5, -0.8, 0.8, 2.5])
    for strength in (0.5, 1.0, 2.0, 4.0):
        # a calibrated ordinal model: the posteriors are the true class probabilities
        acc = {}
        for _ in range(reps):
            eta = strength * rng.normal(size=2000)
            proba = cumulative_logit(eta, cuts)
            y = (rng.random(2000)[:, None] > np.cumsum(proba, axis=1)).sum(axis=1)
            for name, decision in rules(proba).items():
                acc.setdefault(name, []).append(
                    (expected_qwk(proba, decision), qwkit.kappa_score(y, decision, labels=range(5)))
                )
        for name, vals in acc.items():
            vals = np.array(vals)
            rows.append(
                {
                    "data": f"ordinal logit, signal {strength}",
                    "rule": name,
                    "expected": vals[:, 0].mean(),
                    "realized": vals[:, 1].mean(),
                    "realized_se": vals[:, 1].std(ddof=1) / np.sqrt(len(vals)),
                }
            )
    wine = qwkit.load_wine_quality("red")
    y = wine.y - 3
    acc = {}
    for seed in range(3 if quick else 10):
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
        cv = StratifiedKFold(5, shuffle=True, random_state=seed)
        proba = cross_val_predict(model, wine.X, y, cv=cv, method="predict_proba")
        for name, decision in rules(proba).items():
            acc.setdefault(name, []).append(
                (expected_qwk(proba, decision), qwkit.kappa_score(y, decision, labels=range(6)))
            )
    for name, vals in acc.items():
        vals = np.array(vals)
        rows.append(
            {
                "data": "wine, multinomial logit (5-fold out-of-fold)",
                "rule": name,
                "expected": vals[:, 0].mean(),
                "realized": vals[:, 1].mean(),
                "realized_se": vals[:, 1].std(ddof=1) / np.sqrt(len(vals)),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- report


def report(t, d, quick):
    t = t.copy()
    t["d_in"] = t.exact_in - t.nm_in
    t["d_out"] = t.exact_out - t.nm_out
    lines = [
        "# Thresholds and kappa decisions — benchmark",
        "",
        "Generated by `benchmarks/bench_thresholds.py`"
        + (" --quick" if quick else "")
        + ". Rerun it to refresh this file.",
        "",
        *_machine.describe("one thread", {"scipy": sp.__version__}),
        "",
        "The threshold search with survey weights of four distributions (integer, uniform, "
        "log-normal, inverse probabilities) against no weights: `benchmarks/bench_weights.py` "
        "→ `README_weights.md`.",
        "",
        "## 1. `optimize_thresholds` vs Kaggle's `OptimizedRounder`",
        "",
        "`OptimizedRounder` is the class copied between Kaggle notebooks: scipy Nelder–Mead from "
        "[0.5, 1.5, …, K − 1.5], `pd.cut` rounding, loss = −`cohen_kappa_score(quadratic)`. "
        "Both fit on the training set (n items); held-out QWK is on n more items from the same "
        "source. Synthetic data: a skewed latent trait cut into K uneven classes, scores = a "
        "least-squares fit on a noisy feature. Wine: red wine quality (0..5 = quality − 3), "
        "scores = least squares on the 11 features, random halves (n = 799). "
        "**speed** = Nelder–Mead fitting time / exact fitting time (numba cache warm; "
        "one call, so treat small-n ratios as rough).",
        "",
        "| data | n | K | QWK in: exact | QWK in: NM | QWK out: exact | QWK out: NM "
        "| speed (×) | NM evals | Dinkelbach steps |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in t.itertuples():
        lines.append(
            f"| {r.data} | {r.n} | {r.K} | {r.exact_in:.4f} | {r.nm_in:.4f} | "
            f"{r.exact_out:.4f} | {r.nm_out:.4f} | {r.speed:.0f} | {r.nfev} | {r.iters} |"
        )
    big = t[t.n >= 100_000]
    lines += [
        "",
        "Summary:",
        "",
        f"- In-sample QWK, exact − NM: min {t.d_in.min():+.5f}, mean {t.d_in.mean():+.5f} "
        f"over {len(t)} fits (the exact method is never lower: "
        f"{'yes' if (t.d_in >= -1e-12).all() else '**NO**'}).",
    ]
    groups = {
        "synthetic": t[t.data.str.startswith("synthetic")],
        "wine": t[t.data.str.startswith("wine")],
        "all": t,
    }
    for label, g in groups.items():
        lines.append(
            f"- Held-out QWK, exact − NM, {label}: mean {g.d_out.mean():+.5f}, min "
            f"{g.d_out.min():+.5f}, max {g.d_out.max():+.5f}; higher on {(g.d_out > 0).sum()}, "
            f"equal on {(g.d_out == 0).sum()}, lower on {(g.d_out < 0).sum()} of {len(g)}."
        )
    if len(big):
        lines.append(
            f"- Speed at n ≥ 10⁵: min ×{big.speed.min():.0f}, median ×{big.speed.median():.0f}."
        )
    lines.append(
        f"- Speed on wine (n = 799): median ×{t[t.data.str.startswith('wine')].speed.median():.0f}."
    )
    lines += [
        "",
        "Held-out QWK can be lower for the exact method on a given split: it maximizes the "
        "*training* kappa, and cut points fitted to one sample are noisy on another (with "
        "small n, NM's poor in-sample fit can by chance generalize as well). On the small wine "
        "splits (n = 799, with only 5–10 wines in each extreme class) this sampling noise "
        "dominates — compare the per-group lines above. The in-sample guarantee is a theorem "
        "(docs/thresholds.md); held-out results are empirical findings, not guarantees.",
        "",
        "## 2. Decisions from class probabilities",
        "",
        "Rules: `kappa_decision` (this library), argmax, round(E[y]) and `bayes_decision` with "
        "the quadratic weights as cost (minimum expected squared error, class-valued). "
        "**expected** = kappa of the expected confusion matrix Pᵀ·X (what `kappa_decision` "
        "maximizes); **realized** = QWK against labels: for the ordinal-logit model, labels "
        f"drawn from the (calibrated) posteriors, {20 if quick else 200} replications of 2000 "
        "items, K = 5; for wine, the true quality with out-of-fold multinomial-logistic "
        f"posteriors, {3 if quick else 10} CV seeds. Mean (± standard error).",
        "",
        "| data | rule | expected QWK | realized QWK |",
        "|---|---|---:|---:|",
    ]
    for r in d.itertuples():
        lines.append(
            f"| {r.data} | {r.rule} | {r.expected:.4f} | {r.realized:.4f} ± {r.realized_se:.4f} |"
        )
    lines.append("")
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {OUT}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, about a minute")
    args = parser.parse_args()
    d = part2(args.quick)
    print(d.to_string(), flush=True)
    t = part1(args.quick)
    report(t, d, args.quick)


if __name__ == "__main__":
    main()
