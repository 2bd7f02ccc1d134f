"""Exact kappa-optimal thresholds for real-valued scores (docs/thresholds.md).

With the true ratings y fixed, any assignment x of the items to classes has

    1 − κ(x) = N(x) / D(x),  N = Σᵢ wᵢ·W[yᵢ, xᵢ],  D = Σᵢ wᵢ·δ[xᵢ],
    δ[c] = Σₜ hₜ·W[t, c] / Σw                                              (eq. T1)

(h: the weighted margin of y), a ratio of two sums of per-item terms. Cut points
choose the *monotone* assignments — classes non-decreasing along the sorted distinct
scores — and Dinkelbach's method (eq. T4) minimizes the ratio over all of them exactly,
each step an O(m·K) dynamic program (eq. T5) over the m distinct scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from qwkit._errors import QwkitError, QwkitTypeError
from qwkit._fractional import minimize_ratio
from qwkit._kernels import aggregate_pairs, assignment_table, monotone_dp
from qwkit._numerics import to_unit_max
from qwkit._results import freeze_arrays, labels_dict, reduce_dataclass, result_dict
from qwkit._scale import positions_on_scale, prepare_labels
from qwkit._sufficient import kappa_from_table
from qwkit._validation import (
    as_1d,
    check_same_length,
    item_weights,
    real_vector,
    show,
)
from qwkit._weights import WeightsLike, check_weights, resolve

__all__ = [
    "DinkelbachCertificate",
    "ThresholdResult",
    "apply_thresholds",
    "fit_sorted",
    "optimize_thresholds",
]


@dataclass(frozen=True, slots=True, eq=False)
class DinkelbachCertificate:
    """Proof of global optimality of a ratio minimized by Dinkelbach's method.

    Attributes
    ----------
    ratio : float
        The final λ* = N(x*)/D(x*) = 1 − κ* of the returned assignment x*.
    n_iterations : int
        Number of exact subproblems solved (the last one proves optimality).
    gap : float
        −min_x [N(x) − λ*·D(x)] over every feasible assignment x, computed by the exact
        subproblem solver, with N and D per unit of total sample weight. It is 0 (up to
        floating-point rounding) at the optimum: no assignment has N/D < λ*.
    """

    ratio: float
    n_iterations: int
    gap: float


@dataclass(frozen=True, slots=True, eq=False)
class ThresholdResult:
    """Kappa-optimal cut points, as returned by :func:`optimize_thresholds`.

    Attributes
    ----------
    thresholds : ndarray of shape (K − 1,)
        Non-decreasing cut points; a score s gets class j when
        ``thresholds[j − 1] < s <= thresholds[j]`` (see :func:`apply_thresholds`).
        ``-inf`` / ``+inf`` mark classes below / above every fitted score that the
        optimum leaves empty; equal cut points mark empty classes in between.
        Read-only, like `labels`: both are copies, never the caller's arrays.
    statistic : float
        The in-sample kappa of the fitted classes — the global maximum over every
        assignment that cut points can produce.
    labels : ndarray of shape (K,)
        The ordered rating scale; ``predict`` returns values from it.
    certificate : DinkelbachCertificate
        Final ratio, iteration count and optimality gap.
    """

    thresholds: np.ndarray
    statistic: float
    labels: np.ndarray
    certificate: DinkelbachCertificate = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def predict(self, y_score: ArrayLike) -> np.ndarray:
        """Classes (values of ``labels``) of new scores; see :func:`apply_thresholds`."""
        return apply_thresholds(y_score, self.thresholds, labels=self.labels)

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values (±inf cut points stay floats)."""
        return result_dict(
            self,
            ("thresholds", "statistic"),
            n_iterations=self.certificate.n_iterations,
            gap=self.certificate.gap,
            **labels_dict(self.labels),
        )


# ---------------------------------------------------------------------------- validation


@dataclass(frozen=True, slots=True)
class _Problem:
    """Validated inputs of the threshold search: items of positive weight only."""

    codes: np.ndarray  # int64 positions of the true ratings
    scores: np.ndarray  # float64
    weights: np.ndarray  # float64, positive
    scale: np.ndarray  # the K labels
    wmat: np.ndarray  # (K, K) disagreement weights
    h: np.ndarray  # weighted margin of the truth
    chance: np.ndarray  # δ[c] (eq. T1)


def _prepare(y_true, y_score, labels, weights, sample_weight, counts) -> _Problem:
    kind = check_weights(weights)
    codes, scale = positions_on_scale(y_true, labels, "y_true")
    scores = real_vector(y_score, "y_score")
    check_same_length(codes, scores, ("y_true", "y_score"))
    iw = item_weights(sample_weight, counts, codes.shape[0])
    k = int(scale.shape[0])
    wmat = np.ascontiguousarray(
        resolve(
            kind, k, scale="the rating scale of `y_true`", hint="; pass `labels` to fix the scale"
        ),
        dtype=np.float64,
    )
    w = iw.as_float()
    if w is None:
        w = np.ones(codes.shape[0])
    else:  # zero weight = dropped row, also for where the cut points land
        kept = w > 0
        codes, scores, w = codes[kept], scores[kept], w[kept]
        if not iw.counts:
            # A power of two (exact) puts the largest weight in [1, 2): sums of huge
            # weights cannot overflow nor subnormal ones vanish; kappa is unchanged.
            w = to_unit_max(w)[0]
    h = np.bincount(codes, weights=w, minlength=k)
    if np.count_nonzero(h) < 2:
        raise QwkitError(
            "`y_true` must contain at least two distinct ratings (of positive weight); got "
            f"only {show(scale[h > 0])}. Kappa is undefined or 0 for every rounding.",
            parameter="y_true",
        )
    chance = h @ wmat / float(h.sum())  # δ[c]   (eq. T1)
    if not np.any(chance > 0):
        raise QwkitError(
            "`weights` give zero chance-expected disagreement for every class, so kappa is "
            "undefined for every rounding of `y_score`.",
            parameter="weights",
        )
    return _Problem(codes, scores, w, scale, wmat, h, chance)


# ---------------------------------------------------------------------------- helpers


def _ratio_parts(table: np.ndarray, wmat: np.ndarray, chance: np.ndarray, total: float):
    """N and D of eq. T1 from the (true × assigned) table, per unit of total weight."""
    n_part = float(np.sum(table * wmat)) / total  # N   (eq. T1)
    d_part = float(table.sum(axis=0) @ chance) / total  # D   (eq. T1)
    return n_part, d_part


def _groups(scores, codes, weights, k: int):
    """Sort by score; aggregate the items into (distinct score, true label) pairs."""
    order = np.argsort(scores)
    s = scores[order]
    new_score = np.empty(s.shape[0], dtype=bool)
    new_score[0] = True
    np.not_equal(s[1:], s[:-1], out=new_score[1:])  # -0.0 and 0.0 are one score
    first = np.flatnonzero(new_score)
    values = s[first]
    group_first = np.append(first, s.shape[0]).astype(np.int64)
    pair_code, pair_weight, group_start = aggregate_pairs(codes, weights, order, group_first, k)
    group_weight = np.add.reduceat(pair_weight, group_start[:-1])
    return values, pair_code, pair_weight, group_start, group_weight


def _initial_assignments(values, group_weight, h, scale):
    """Feasible monotone starts: nearest label (numeric increasing scales) and quantiles."""
    starts = []
    k = h.shape[0]
    if scale.dtype.kind in "biuf" and np.all(np.diff(scale.astype(np.float64)) > 0):
        pos = scale.astype(np.float64)
        mids = pos[:-1] / 2 + pos[1:] / 2
        starts.append(np.searchsorted(mids, values, side="left").astype(np.int64))
    cum = np.cumsum(group_weight) - group_weight / 2
    cuts = np.cumsum(h)[:-1]
    starts.append(np.minimum(np.searchsorted(cuts, cum, side="right"), k - 1).astype(np.int64))
    return starts


def _cut_points(values: np.ndarray, cls: np.ndarray, k: int) -> np.ndarray:
    """Midpoints between the last score of classes ≤ j and the first of classes > j (T6)."""
    out = np.empty(k - 1)
    m = values.shape[0]
    n_le = np.searchsorted(cls, np.arange(k - 1), side="right")
    for j in range(k - 1):
        i = int(n_le[j])
        if i == 0:
            out[j] = -np.inf  # classes 0..j are empty below the smallest score
        elif i == m:
            out[j] = np.inf  # classes j+1.. are empty above the largest score
        else:
            lo, hi = values[i - 1], values[i]
            mid = lo / 2 + hi / 2  # no overflow for huge scores   (eq. T6)
            out[j] = mid if lo <= mid < hi else lo  # adjacent floats: cut at lo
    return out


# ---------------------------------------------------------------------------- public


def optimize_thresholds(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    weights: WeightsLike = "quadratic",
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
) -> ThresholdResult:
    """Cut points that maximize the weighted kappa of rounded scores — the global optimum.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True ratings, as in :func:`kappa_score`.
    y_score : array-like of shape (n_samples,)
        Real-valued scores (e.g. a regressor's predictions), finite; larger means a
        higher class.
    labels : array-like of shape (K,), default=None
        The ordered rating scale of ``y_true``. When None: a declared order (ordered
        Categorical / Enum), else, for integer ratings, every integer from the
        smallest to the largest true rating (the rule of :func:`kappa_score`). Text
        ratings need ``labels``: cut points need the order of the classes.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights, indexed ``[true class, predicted class]``; any
        non-negative matrix, asymmetric ones included.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weight of each item.
    counts : array-like of shape (n_samples,), default=None
        Whole numbers: how many identical items each row stands for (exclusive with
        ``sample_weight``); the result equals that of the repeated rows.

    Returns
    -------
    ThresholdResult
        ``thresholds`` (K − 1 non-decreasing cut points), ``statistic`` (the
        maximal in-sample kappa), ``labels``, ``certificate`` and ``predict``.

    Raises
    ------
    QwkitError
        Scores that are NaN or infinite, mismatched lengths, fewer than two distinct
        true ratings (of positive weight), a weight matrix that does not match the scale
        or under which kappa is undefined for every assignment, bad ``sample_weight``
        or ``counts``, text ratings without ``labels``, more than 10,000 classes.
    QwkitTypeError
        Non-numeric scores or unsupported rating types.

    Warns
    -----
    ConvergenceWarning
        If Dinkelbach's method has not converged after 200 exact steps (not expected:
        it converges in a handful).

    See Also
    --------
    apply_thresholds : Round scores with given cut points.
    kappa_score : Kappa of the rounded scores.

    Notes
    -----
    With ``y_true`` fixed, 1 − κ of an assignment is N/D with both N and D sums of
    per-item terms (eq. T1). Dinkelbach's method (eq. T4) starts from the ratio λ₀ of
    the better of two feasible monotone assignments (nearest label; matching the true
    class proportions) and repeatedly solves min_x N(x) − λ·D(x) exactly over all
    monotone assignments by a dynamic program over the m sorted distinct scores
    (eq. T5, O(m·K) with a running prefix minimum), setting λ to the ratio of the
    solution. λ strictly decreases, so no assignment repeats; since there are finitely
    many, the method stops, and it stops only when the minimum is 0 — which proves that
    no monotone assignment has a smaller ratio: the result is the **global** maximum
    of kappa over all cut points, not a local one. Tied scores always share a class.
    Cut points sit midway between the last score of one class and the first of the
    next (eq. T6). Total cost: one O(n log n) sort, then O(P·K) per step, P ≤ n the
    number of distinct (score, true rating) pairs. See ``docs/thresholds.md``.

    References
    ----------
    .. [1] W. Dinkelbach, "On nonlinear fractional programming", Management Science
       13(7):492-498, 1967.

    Examples
    --------
    >>> import qwkit
    >>> y = [0, 0, 1, 1, 2, 2, 3, 3]
    >>> score = [0.1, 0.9, 0.7, 1.6, 1.2, 1.9, 2.1, 2.4]
    >>> res = qwkit.optimize_thresholds(y, score)
    >>> res.thresholds
    array([1.05, 1.75, 2.  ])
    >>> round(res.statistic, 6)
    0.909091
    >>> res.predict([0.5, 1.5, 3.0])
    array([0, 1, 3])
    >>> round(qwkit.kappa_score(y, res.predict(score)), 6)
    0.909091
    """
    p = _prepare(y_true, y_score, labels, weights, sample_weight, counts)
    values, pair_code, pair_weight, group_start, _ = _groups(
        p.scores, p.codes, p.weights, p.scale.shape[0]
    )
    cuts, table, certificate = fit_sorted(
        values, pair_code, pair_weight, group_start, p.h, p.chance, p.wmat, p.scale
    )
    return ThresholdResult(
        thresholds=cuts,
        statistic=float(kappa_from_table(table, p.wmat, np.nan)),
        labels=p.scale,
        certificate=certificate,
    )


def fit_sorted(values, pair_code, pair_weight, group_start, h, chance, wmat, scale):
    """The exact search on items sorted by score and aggregated into pairs.

    ``values`` are the m distinct scores (increasing), ``group_start`` delimits the
    (true class, summed weight) pairs of each one — every group non-empty, every pair
    weight positive — ``h`` is the weighted true margin (≥ 2 positive entries) and
    ``chance`` the δ of eq. T1 (some entry positive). Dinkelbach's method (eq. T4) with
    the dynamic program (eq. T5) as the exact subproblem solver; returns the cut points
    (eq. T6) of the global optimum, its K×K table and the certificate. Resamples of one
    sorted sample (``qwkit._optimism``) are refitted through here without sorting again.
    """
    k = h.shape[0]
    total = float(h.sum())
    group_weight = np.add.reduceat(pair_weight, group_start[:-1])

    def table(cls):
        return assignment_table(pair_code, pair_weight, group_start, cls, k)

    def ratio(cls):
        return _ratio_parts(table(cls), wmat, chance, total)

    def solve(lam):
        return monotone_dp(pair_code, pair_weight, group_start, wmat, chance, lam)[0]

    # λ₀: the best feasible start (D > 0); a constant class with δ > 0 always is one.
    starts = _initial_assignments(values, group_weight, h, scale)
    starts.append(np.full(values.shape[0], int(np.argmax(chance)), dtype=np.int64))
    res = minimize_ratio(starts, ratio, solve, what="thresholds")
    certificate = DinkelbachCertificate(
        ratio=res.ratio, n_iterations=res.n_iterations, gap=float(res.gap)
    )
    return _cut_points(values, res.solution, k), table(res.solution), certificate


def apply_thresholds(
    y_score: ArrayLike, thresholds: ArrayLike, *, labels: ArrayLike | None = None
) -> np.ndarray:
    """Round real-valued scores to classes with cut points.

    Parameters
    ----------
    y_score : array-like of shape (n_samples,)
        Finite real-valued scores.
    thresholds : array-like of shape (K − 1,)
        Non-decreasing cut points (no NaN; ``-inf``/``+inf`` allowed). Equal cut points
        leave the classes between them empty.
    labels : array-like of shape (K,), default=None
        Values returned for the K classes; default ``0, 1, ..., K − 1``.

    Returns
    -------
    ndarray of shape (n_samples,)
        ``labels[j]`` for the class j of each score, where

            class j  ⇔  thresholds[j − 1] < s ≤ thresholds[j]

        with thresholds[−1] = −∞ and thresholds[K − 1] = +∞: intervals are closed on
        the right, as in ``pandas.cut``, and j is the number of cut points strictly
        below s. Equal scores always get the same class.

    Raises
    ------
    ValueError
        NaN or infinite scores, NaN or decreasing thresholds, ``labels`` of the wrong
        length.

    See Also
    --------
    optimize_thresholds : The kappa-optimal cut points.

    Examples
    --------
    >>> import qwkit
    >>> qwkit.apply_thresholds([0.2, 0.5, 0.7, 2.0], [0.5, 1.5])
    array([0, 0, 1, 2])
    >>> qwkit.apply_thresholds([0.2, 0.7, 2.0], [0.5, 1.5], labels=["low", "mid", "high"])
    array(['low', 'mid', 'high'], dtype='<U4')
    """
    scores = real_vector(y_score, "y_score")
    cuts = as_1d(thresholds, "thresholds")
    if cuts.dtype.kind not in "biuf":
        raise QwkitTypeError(
            f"`thresholds` must be numeric; got dtype {cuts.dtype}.", parameter="thresholds"
        )
    cuts = cuts.astype(np.float64)
    if np.isnan(cuts).any():
        i = int(np.flatnonzero(np.isnan(cuts))[0])
        raise QwkitError(f"`thresholds` contains nan at index {i}.", parameter="thresholds", row=i)
    down = np.flatnonzero(cuts[1:] < cuts[:-1])  # no diff: inf − inf is nan
    if down.size:
        i = int(down[0])
        raise QwkitError(
            "`thresholds` must be non-decreasing; got "
            f"{cuts[i]} then {cuts[i + 1]} at indices {i} and {i + 1}.",
            parameter="thresholds",
            row=i + 1,
        )
    if labels is None:
        scale = np.arange(cuts.shape[0] + 1)
    else:
        scale = prepare_labels(labels).values
        if scale.shape[0] != cuts.shape[0] + 1:
            raise QwkitError(
                f"`labels` must have one more entry than `thresholds` ({cuts.shape[0] + 1});"
                f" got {scale.shape[0]}.",
                parameter="labels",
            )
    return scale[np.searchsorted(cuts, scores, side="left")]
