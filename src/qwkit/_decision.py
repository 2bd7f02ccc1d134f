"""Decisions from class probabilities: minimum expected cost, and the maximum kappa of the
expected confusion table.

Notation (docs/thresholds.md, part 2): P is the n×K matrix of posterior class
probabilities pᵢₜ = Pr(yᵢ = t | data), a decision gives item i the class jᵢ, and X is its
n×K one-hot matrix. Because the decisions are fixed numbers, the expected confusion
matrix and the expected chance table are

    E[U] = Pᵀ·X,   E[V] = q ⊗ g / n,   q = Pᵀ·1 (expected true margin), g = Xᵀ·1    (eq. D2)

so the kappa of the expected table is 1 − N/D with per-item sums

    N = Σᵢ Σₜ pᵢₜ·W[t, jᵢ],   D = Σᵢ δ[jᵢ],   δ[j] = Σₜ qₜ·W[t, j] / n            (eq. D3)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._fractional import minimize_ratio
from qwkit._base._scale import prepare_labels
from qwkit._base._validation import as_real_array, check_cost
from qwkit._base._weights import WeightsLike, check_weights, resolve

__all__ = ["bayes_decision", "kappa_decision"]

_ROW_SUM_TOL = 1e-6


def _check_proba(proba) -> np.ndarray:
    """(n, K) float64 matrix of finite, non-negative rows summing to 1 (± 1e-6).

    Data frames of nullable dtypes are accepted; a missing value is a ValueError.
    """
    if proba is None or isinstance(proba, (str, bytes)):
        raise QwkitTypeError(
            f"`proba` must be a 2-D array of probabilities; got {proba!r}.", parameter="proba"
        )
    arr = as_real_array(proba, "proba")
    if arr.ndim != 2:
        raise QwkitError(
            f"`proba` must be 2-D of shape (n_items, n_classes); got shape {arr.shape}.",
            parameter="proba",
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise QwkitError(f"`proba` must not be empty; got shape {arr.shape}.", parameter="proba")
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise QwkitError(
            f"`proba` must hold finite, non-negative probabilities; got {arr[i, j]} at "
            f"row {i}, column {j}.",
            parameter="proba",
            row=i,
        )
    sums = arr.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > _ROW_SUM_TOL)
    if off.size:
        i = int(off[0])
        raise QwkitError(
            f"Every row of `proba` must sum to 1 (within {_ROW_SUM_TOL}); row {i} sums to "
            f"{float(sums[i])!r}.",
            parameter="proba",
            row=i,
        )
    return arr / sums[:, None]


def _check_labels(labels, k: int) -> np.ndarray | None:
    """The K classes the columns of ``proba`` stand for (None: their indices)."""
    if labels is None:
        return None
    scale = prepare_labels(labels).values
    if scale.shape[0] != k:
        raise QwkitError(
            f"`labels` must name the {k} columns of `proba`, in their order; got "
            f"{scale.shape[0]} labels.",
            parameter="labels",
            also=("proba",),
        )
    return scale


def _decided(decision: np.ndarray, scale: np.ndarray | None) -> np.ndarray:
    """The decided column indices, or the labels of those columns."""
    return decision if scale is None else scale[decision]


def bayes_decision(
    proba: ArrayLike, cost: ArrayLike, *, labels: ArrayLike | None = None
) -> np.ndarray:
    """The minimum expected cost class of every row of class probabilities.

    Parameters
    ----------
    proba : array-like of shape (n_items, K)
        Class probabilities (e.g. ``predict_proba``): finite, non-negative, each row
        summing to 1 within 1e-6 (rows are then renormalized).
    cost : array-like of shape (K, K)
        ``cost[t, j]`` is the cost of deciding class j when the truth is t. Any finite
        values (negative ones are rewards).
    labels : array-like of shape (K,), default=None
        The classes the columns of ``proba`` stand for, in their order (e.g. a
        classifier's ``classes_``): the decisions are returned as these labels. When
        None, as column indices.

    Returns
    -------
    ndarray of shape (n_items,)
        Column index jᵢ = argminⱼ Σₜ pᵢₜ·cost[t, j] (eq. D1), or ``labels[jᵢ]``; ties go
        to the smallest j.

    Raises
    ------
    ValueError
        ``proba`` not 2-D, empty, negative, NaN/inf or rows not summing to 1; ``cost``
        of the wrong shape or not finite; ``labels`` not K distinct labels.

    See Also
    --------
    kappa_decision : The decisions that maximize the kappa of the expected table instead.

    Examples
    --------
    Deciding 0 when the truth is 1 costs ten times the reverse error:

    >>> import qwkit
    >>> proba = [[0.8, 0.2], [0.95, 0.05]]
    >>> qwkit.bayes_decision(proba, [[0, 1], [10, 0]])
    array([1, 0])
    >>> qwkit.bayes_decision(proba, [[0, 1], [10, 0]], labels=["low", "high"])
    array(['high', 'low'], dtype='<U4')
    """
    p = _check_proba(proba)
    c = check_cost(cost, p.shape[1], what="the columns of `proba`")
    scale = _check_labels(labels, p.shape[1])
    return _decided(np.argmin(p @ c, axis=1), scale)  # expected cost of each decision (eq. D1)


def _expected_table(p: np.ndarray, decision: np.ndarray) -> np.ndarray:
    """E[U] = Pᵀ·X (eq. D2), rows the true class, columns the decision."""
    k = p.shape[1]
    table = np.empty((k, k))
    for t in range(k):
        table[t] = np.bincount(decision, weights=p[:, t], minlength=k)
    return table


def kappa_decision(
    proba: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
) -> np.ndarray:
    """The label-free decisions that maximize the kappa of the expected confusion matrix.

    Parameters
    ----------
    proba : array-like of shape (n_items, K)
        Class probabilities of every item, columns in the order of the rating scale:
        finite, non-negative, rows summing to 1 within 1e-6 (then renormalized).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights ``[true class, decided class]``; see :func:`weight_matrix`.
        Named weights use the positions of the columns (0, ..., K − 1), whatever their
        ``labels``: the rule of :func:`kappa_score` with ``labels``.
    labels : array-like of shape (K,), default=None
        The ordered rating scale: the class each column of ``proba`` stands for (e.g. a
        classifier's ``classes_``). The decisions are returned as these labels; when
        None, as column indices.

    Returns
    -------
    ndarray of shape (n_items,)
        The decided column index of every row, or its label.

    Raises
    ------
    QwkitError
        Bad ``proba`` (as :func:`bayes_decision`), fewer than two classes with positive
        probability overall (kappa is undefined or 0 for every decision), ``weights``
        that do not match K or give zero chance disagreement everywhere, ``labels`` not
        K distinct labels.

    Warns
    -----
    ConvergenceWarning
        If Dinkelbach's method has not converged in 200 steps (not expected).

    See Also
    --------
    bayes_decision : Minimum expected cost decisions.
    optimize_thresholds : The same ratio, maximized with the true labels known.

    Notes
    -----
    What is maximized is the kappa of the *expected* confusion matrix,
    ``kappa_from_confusion(proba.T @ X)`` with X the one-hot decisions (eqs. D2–D3):
    a ratio of expectations, 1 − E[observed disagreement] / E[chance disagreement],
    not the expectation of the ratio E[κ] (which has no per-item structure; the two
    agree to O(1/n)). With the labels unknown, both parts are sums of per-item terms
    of the decisions, so Dinkelbach's method solves it exactly: each step decides
    jᵢ = argminⱼ (P·W)ᵢⱼ − λ·δⱼ for every item independently (eq. D4) — no
    monotonicity is needed — and λ decreases strictly to the global minimum of 1 − κ.

    For quadratic weights the step is a convex parabola in j, so (eq. D5)

        jᵢ = clip(round(μ̄ + (μᵢ − μ̄) / κ*), 0, K − 1),

    with μᵢ the posterior mean of the class index, μ̄ their average and κ* > 0 the
    optimal kappa of the expected table itself: stretch the posterior means away from their mean
    by 1/κ*, then round. See ``docs/thresholds.md``.

    Examples
    --------
    The third item (posterior mean 1.0) lies far below the others (mean about 1.6);
    kappa stretches it away from them, to class 0, where argmax and rounding give 1:

    >>> import numpy as np
    >>> import qwkit
    >>> proba = np.array([[0.1, 0.1, 0.8], [0.2, 0.0, 0.8], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    >>> decision = qwkit.kappa_decision(proba)
    >>> decision
    array([2, 2, 0, 2])
    >>> qwkit.kappa_decision(proba, labels=[1, 2, 3])  # the classes the columns stand for
    array([3, 3, 1, 3])
    >>> def kappa_of_expected_table(j):
    ...     return qwkit.kappa_from_confusion(proba.T @ np.eye(3)[j])
    >>> kappa_of = kappa_of_expected_table
    >>> round(kappa_of(decision), 6), round(kappa_of(proba.argmax(axis=1)), 6)
    (0.365385, 0.292308)
    """
    p = _check_proba(proba)
    n, k = p.shape
    wmat = resolve(check_weights(weights), k, scale="the columns of `proba`")
    scale = _check_labels(labels, k)
    q = p.sum(axis=0)  # expected true margin   (eq. D2)
    if np.count_nonzero(q > 0) < 2:
        raise QwkitError(
            "`proba` puts all probability on one class; kappa is undefined or 0 for every "
            "decision, so there is nothing to maximize.",
            parameter="proba",
        )
    chance = q @ wmat / n  # δ[j]   (eq. D3)
    if not np.any(chance > 0):
        raise QwkitError(
            "`weights` give zero chance-expected disagreement for every class; kappa is "
            "undefined for every decision.",
            parameter="weights",
        )
    per_item = p @ wmat  # (P·W)ᵢⱼ: expected disagreement of deciding j for item i

    def ratio(decision):
        table = _expected_table(p, decision)
        num = float(np.sum(table * wmat)) / n  # N / n   (eq. D3)
        den = float(np.bincount(decision, minlength=k) @ chance) / n  # D / n   (eq. D3)
        return num, den

    def solve(lam):
        return np.argmin(per_item - lam * chance, axis=1)  # (eq. D4)

    mean = p @ np.arange(k)
    starts = (
        np.argmin(per_item, axis=1),  # Bayes under W
        np.clip(np.rint(mean), 0, k - 1).astype(np.intp),  # round(E[y])
        np.full(n, int(np.argmax(chance)), dtype=np.intp),  # a constant with δ > 0
    )
    return _decided(minimize_ratio(starts, ratio, solve, what="decisions").solution, scale)
