"""Slow, obviously correct references for ``optimism_corrected_kappa``.

Each loops over the resamples (or folds) and calls only public functions on
materialized data: ``qwkit.optimize_thresholds`` on the resampled rows,
``qwkit.kappa_score`` on the original rows. They draw from the random generator in
the same order as the library, so the results must agree to rounding:

* unit items (no weights, equal weights, or ``counts`` expanded into repeated rows):
  the distinct (score, true class) pairs in lexicographic order with their counts;
  a bootstrap resample is ``multinomial(n, counts / n)`` over them (identical items
  are exchangeable, so this *is* drawing n items with replacement); a fold split is
  a chain of ``multivariate_hypergeometric`` draws of the items left;
* survey weights: the rows are drawn, ``integers(0, n, n)``; a fold split is a
  ``permutation`` of the rows cut into consecutive folds.
"""

from __future__ import annotations

import numpy as np

import qwkit

__all__ = ["naive_bootstrap", "naive_cross_fit"]


def _items(y, score, labels, counts):
    """Rows repeated by their counts (every item its own row), as float scores."""
    y = np.asarray(y)
    score = np.asarray(score, dtype=np.float64)
    if counts is not None:
        y, score = np.repeat(y, counts), np.repeat(score, counts)
    code = np.array([list(labels).index(v) for v in y.tolist()], dtype=np.float64)
    return y, score, code


def _distinct_pairs(score, code, labels):
    """Distinct (score, class) pairs sorted by score then class, and their counts."""
    uniq, cnt = np.unique(np.column_stack([score, code]), axis=0, return_counts=True)
    return uniq[:, 0], np.asarray(labels)[uniq[:, 1].astype(int)], cnt


def _survey_rows(y, score, sample_weight):
    keep = np.asarray(sample_weight, dtype=np.float64) > 0
    return np.asarray(y)[keep], np.asarray(score, np.float64)[keep], np.asarray(sample_weight)[keep]


def _is_survey(sample_weight):
    if sample_weight is None:
        return False
    w = np.asarray(sample_weight, dtype=np.float64)
    w = w[w > 0]
    return not np.all(w == w[0])


def naive_bootstrap(
    y, score, *, labels, weights="quadratic", sample_weight=None, counts=None, n_resamples, rng
):
    """(apparent, optimism) by Efron–Gong: mean over resamples of κ_resample(own cuts) −
    κ_original(cuts of the resample)."""
    gen = np.random.default_rng(rng)
    opts = dict(labels=labels, weights=weights)
    fitted = qwkit.optimize_thresholds(
        y, score, **opts, sample_weight=counts if counts is not None else sample_weight
    )
    optimism = []
    if _is_survey(sample_weight):
        yr, sr, wr = _survey_rows(y, score, sample_weight)
        n = yr.shape[0]
        for _ in range(n_resamples):
            idx = gen.integers(0, n, size=n)
            fit_b = qwkit.optimize_thresholds(yr[idx], sr[idx], **opts, sample_weight=wr[idx])
            test_b = qwkit.kappa_score(yr, fit_b.predict(sr), **opts, sample_weight=wr)
            optimism.append(fit_b.statistic - test_b)
    else:
        if sample_weight is not None:  # equal weights: drop the zeros, then no weights
            y, score, _ = _survey_rows(y, score, sample_weight)
        yi, si, code = _items(y, score, labels, counts)
        ps, py, cnt = _distinct_pairs(si, code, labels)
        n = int(cnt.sum())
        for _ in range(n_resamples):
            draw = gen.multinomial(n, cnt / n)
            fit_b = qwkit.optimize_thresholds(np.repeat(py, draw), np.repeat(ps, draw), **opts)
            test_b = qwkit.kappa_score(yi, fit_b.predict(si), **opts)
            optimism.append(fit_b.statistic - test_b)
    return fitted.statistic, float(np.mean(optimism))


def _fold_sizes(n, n_splits):
    return [n // n_splits + (1 if f < n % n_splits else 0) for f in range(n_splits)]


def naive_cross_fit(
    y,
    score,
    *,
    labels,
    weights="quadratic",
    sample_weight=None,
    counts=None,
    n_splits,
    n_repeats,
    rng,
    classes=None,
):
    """Mean over repetitions of the kappa of the pooled out-of-fold classes.

    ``classes``, a list, receives (y, class under the cut points fitted to all the
    data, out-of-fold class) of every item of every repetition (unit items only).
    """
    gen = np.random.default_rng(rng)
    opts = dict(labels=labels, weights=weights)
    values = []
    if _is_survey(sample_weight):
        yr, sr, wr = _survey_rows(y, score, sample_weight)
        n = yr.shape[0]
        for _ in range(n_repeats):
            fold_of_row = np.empty(n, dtype=int)
            sizes = _fold_sizes(n, n_splits)
            fold_of_row[gen.permutation(n)] = np.repeat(np.arange(n_splits), sizes)
            pred = np.empty(n, dtype=np.asarray(labels).dtype)
            for f in range(n_splits):
                held = fold_of_row == f
                fit = qwkit.optimize_thresholds(
                    yr[~held], sr[~held], **opts, sample_weight=wr[~held]
                )
                pred[held] = fit.predict(sr[held])
            values.append(qwkit.kappa_score(yr, pred, **opts, sample_weight=wr))
        return float(np.mean(values))
    if sample_weight is not None:
        y, score, _ = _survey_rows(y, score, sample_weight)
    yi, si, code = _items(y, score, labels, counts)
    ps, py, cnt = _distinct_pairs(si, code, labels)
    n = int(cnt.sum())
    sizes = _fold_sizes(n, n_splits)
    for _ in range(n_repeats):
        remaining = cnt.astype(np.int64)
        truth, pred, held_scores = [], [], []
        for f in range(n_splits):
            if f < n_splits - 1:
                fold = gen.multivariate_hypergeometric(remaining, sizes[f])
                remaining = remaining - fold
            else:
                fold = remaining
            train = cnt - fold
            fit = qwkit.optimize_thresholds(np.repeat(py, train), np.repeat(ps, train), **opts)
            truth.append(np.repeat(py, fold))
            pred.append(fit.predict(np.repeat(ps, fold)))
            held_scores.append(np.repeat(ps, fold))
        truth, pred = np.concatenate(truth), np.concatenate(pred)
        values.append(qwkit.kappa_score(truth, pred, **opts))
        if classes is not None:
            full = qwkit.optimize_thresholds(yi, si, **opts)
            classes.append((truth, full.predict(np.concatenate(held_scores)), pred))
    return float(np.mean(values))
