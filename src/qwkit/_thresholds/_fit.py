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

import copy
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import ItemWeights, item_weights, no_items_error
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._results import (
    freeze_arrays,
    labels_dict,
    public_module,
    reduce_dataclass,
    result_dict,
)
from qwkit._base._scale import (
    MAX_DENSE_CLASSES,
    measure_scale,
    positions_on_scale,
    prepare_labels,
    prepare_ratings,
)
from qwkit._base._scale_check import check_occurring
from qwkit._base._validation import as_1d, check_integer, check_same_length, real_vector, show
from qwkit._base._weights import WeightsLike, check_weights, resolve, same_weights
from qwkit._table._cut_points import solve_sorted
from qwkit._table._state import same_labels
from qwkit._table._sufficient import kappa_from_table
from qwkit._thresholds import _plots
from qwkit._thresholds._groups import PairGroups

__all__ = [
    "DinkelbachCertificate",
    "ThresholdAccumulator",
    "ThresholdResult",
    "apply_thresholds",
    "empty_intervals",
    "fit",
    "fit_sorted",
    "optimize_thresholds",
    "prepare",
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


public_module(DinkelbachCertificate)


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
    empty_classes : ndarray
        The labels that no score is rounded to: classes whose interval
        ``(thresholds[j − 1], thresholds[j]]`` holds no number (an end class cut at
        ∓inf, or two equal cut points). The optimum may leave a class empty — kappa is
        then highest without it — and no score, of these data or new ones, gets it.
    """

    thresholds: np.ndarray
    statistic: float
    labels: np.ndarray
    certificate: DinkelbachCertificate = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def empty_classes(self) -> np.ndarray:
        return self.labels[empty_intervals(self.thresholds)]

    def predict(self, y_score: ArrayLike) -> np.ndarray:
        """Classes (values of ``labels``) of new scores; see :func:`apply_thresholds`."""
        return apply_thresholds(y_score, self.thresholds, labels=self.labels)

    def plot(
        self,
        y_true: ArrayLike,
        y_score: ArrayLike,
        *,
        classes: ArrayLike | None = None,
        title: str = "Scores by class, with the cut points",
        name: str = "y_true",
        legend_title: str | None = None,
    ):
        """Draw scores with these cut points, with matplotlib (the ``plot`` extra): the
        histogram of the scores of each class of ``y_true``, the cut points as dashed
        lines, each marked with the two classes it separates (up to 15 cut points).

        Parameters
        ----------
        y_true : array-like of shape (n_items,)
            The classes of the items (values of ``classes``).
        y_score : array-like of shape (n_items,)
            Their real-valued scores, finite.
        classes : array-like, default=None
            The classes of ``y_true`` to draw, in order; None: ``labels``.
        title : str, default="Scores by class, with the cut points"
        name : str, default="y_true"
            How the figure calls the rater of ``y_true``.
        legend_title : str, default=None
            The legend's title; None: "class of" ``name``.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import qwkit
        >>> y, score = [0, 0, 1, 1, 2, 2], [0.1, 0.4, 0.9, 1.3, 1.8, 2.6]
        >>> fig = qwkit.optimize_thresholds(y, score).plot(y, score)
        >>> fig.axes[0].get_xlabel()
        'score'
        """
        scores = real_vector(y_score, "y_score")
        truth = as_1d(y_true, "y_true")
        check_same_length(truth, scores, ("y_true", "y_score"))
        drawn = self.labels if classes is None else as_1d(classes, "classes")
        return _plots.threshold_figure(
            scores,
            truth,
            drawn,
            self.thresholds,
            cut_labels=self.labels,
            title=title,
            truth_name=name,
            legend_title=legend_title,
        )

    def summary(self) -> str:
        """Text block: the scores of every class, the in-sample kappa, and the classes
        that no score gets.

        Examples
        --------
        The two items rated 2 score 0.1 and 0.6, among the 1s and the 3s: kappa is
        highest when no score is rounded to 2.

        >>> import qwkit
        >>> y = [1, 1, 1, 2, 2, 3, 3, 3]
        >>> score = [0.0, 0.2, 0.3, 0.1, 0.6, 0.4, 0.5, 1.0]
        >>> res = qwkit.optimize_thresholds(y, score)
        >>> res.empty_classes
        array([2])
        >>> print(res.summary())
        Kappa-Optimal Cut Points
        ------------------------
        Class       Scores
        1           (-inf, 0.35]
        2           none (empty)
        3           (0.35, inf]
        <BLANKLINE>
        In-sample kappa       0.8571
        Empty classes         2 (no score is rounded to it)
        <BLANKLINE>
        """
        edges = [-np.inf, *self.thresholds.tolist(), np.inf]
        empty = empty_intervals(self.thresholds)
        title = "Kappa-Optimal Cut Points"
        width = max(12, *(len(str(label)) + 2 for label in self.labels.tolist()))
        lines = [title, "-" * len(title), f"{'Class':<{width}}Scores"]
        for j, label in enumerate(self.labels.tolist()):
            scores = "none (empty)" if empty[j] else f"({edges[j]:.6g}, {edges[j + 1]:.6g}]"
            lines.append(f"{label!s:<{width}}{scores}")
        lines += ["", f"{'In-sample kappa':<22}{self.statistic:.4f}"]
        if empty.any():
            listed = ", ".join(str(v) for v in self.empty_classes.tolist())
            which = "it" if empty.sum() == 1 else "them"
            lines.append(f"{'Empty classes':<22}{listed} (no score is rounded to {which})")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values (±inf cut points stay floats)."""
        return result_dict(
            self,
            ("thresholds", "statistic", "empty_classes"),
            n_iterations=self.certificate.n_iterations,
            gap=self.certificate.gap,
            **labels_dict(self.labels),
        )


public_module(ThresholdResult)


def empty_intervals(thresholds: np.ndarray) -> np.ndarray:
    """Which of the K classes of K − 1 non-decreasing cut points no number falls in: class
    j holds (thresholds[j − 1], thresholds[j]], empty when the lower end is not below the
    upper one (the first class when thresholds[0] = −inf, the last when
    thresholds[K − 2] = +inf, a middle one between equal cut points)."""
    edges = np.concatenate(([-np.inf], thresholds, [np.inf]))
    return ~(edges[:-1] < edges[1:])


# ---------------------------------------------------------------------------- validation


def _weight_matrix(weights, k: int) -> np.ndarray:
    return np.ascontiguousarray(
        resolve(
            weights,
            k,
            scale="the rating scale of `y_true`",
            hint="; pass `labels` to fix the scale",
        ),
        dtype=np.float64,
    )


def _problem(groups: PairGroups, wmat: np.ndarray):
    """The merged groups as float64 arrays, with the chance term δ (eq. T1); checks that
    some rounding has a defined kappa."""
    values, pair_code, pair_weight, group_start, h = groups.groups()
    if np.count_nonzero(h) < 2:
        scale = groups.labels.values
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
    return values, pair_code, pair_weight, group_start, h, chance


# ---------------------------------------------------------------------------- the state


class ThresholdAccumulator:
    """Kappa-optimal thresholds over data that arrives in pieces, on one machine or many.

    Per distinct score and true rating, the summed weight is all the exact search
    needs; it merges by union (equal pairs added exactly, survey weights included), so
    :meth:`optimize` after any sequence of :meth:`update` and :meth:`merge` calls
    returns the :class:`ThresholdResult` that :func:`optimize_thresholds` gives on all
    the data at once, to the last bit.

    Parameters
    ----------
    labels : array-like of shape (K,), default=None
        The ordered rating scale of ``y_true``. When None, the true ratings must be
        integers (or an ordered Categorical) and the scale is the integer range of
        every rating seen, which grows with the updates.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, indexed ``[true class, predicted class]``.
    max_pairs : int, default=None
        Refuse (with a clear error) to hold more distinct (score, true rating) pairs than
        this; None: no limit. About 24 bytes per pair (more with survey weights).

    Attributes
    ----------
    n_pairs : int
        Distinct (score, true rating) pairs held.

    See Also
    --------
    optimize_thresholds : The same on data held in memory.

    Examples
    --------
    >>> import qwkit
    >>> acc = qwkit.ThresholdAccumulator()
    >>> acc.update([0, 0, 1, 1], [0.1, 0.9, 0.7, 1.6])
    >>> other = qwkit.ThresholdAccumulator()
    >>> other.update([2, 2, 3, 3], [1.2, 1.9, 2.1, 2.4])
    >>> res = acc.merge(other).optimize()
    >>> res.thresholds
    array([1.05, 1.75, 2.  ])
    >>> round(res.statistic, 6)
    0.909091
    """

    def __init__(
        self,
        labels: ArrayLike | None = None,
        *,
        weights: WeightsLike = "quadratic",
        max_pairs: int | None = None,
    ):
        self._weights = check_weights(weights)
        self._max_pairs = (
            (1 << 62) if max_pairs is None else check_integer(max_pairs, "max_pairs", 1)
        )
        self._fixed = labels is not None
        lab = None if labels is None else prepare_labels(labels)
        if lab is not None and lab.n_classes > MAX_DENSE_CLASSES:
            raise QwkitError(
                f"`labels` has {lab.n_classes} categories; at most {MAX_DENSE_CLASSES} are "
                "supported here.",
                parameter="labels",
            )
        self._offset = 0
        self._ranged = False  # the scale is the integer range of the data, growing
        self._weighted = None  # the item weights of the rows seen, if any
        k = 0 if lab is None else lab.n_classes
        self._groups = PairGroups(lab, k, max_pairs=self._max_pairs)

    @property
    def n_pairs(self) -> int:
        return self._groups.n_pairs

    def update(
        self,
        y_true: ArrayLike,
        y_score: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        counts: ArrayLike | None = None,
        nan_policy: NanPolicy = "raise",
    ) -> None:
        """Add a batch of true ratings and scores (``sample_weight`` or ``counts`` as in
        :func:`optimize_thresholds`). An empty batch, or one of zero weight, adds
        nothing.
        ``nan_policy``: a missing rating is an error (``"raise"``) or its item is left out
        of the batch (``"omit"``), as in :func:`optimize_thresholds`.
        """
        names = ("y_true", "y_score", "sample_weight", "counts")
        inputs = paired((y_true, y_score, sample_weight, counts), names)
        rows = nan_rows(nan_policy, inputs, names, rated=2, allowed=RAISE_OR_OMIT)
        y_true, y_score, sample_weight, counts = rows.values
        scores = real_vector(y_score, "y_score")
        if scores.shape[0] == 0:
            truth = as_1d(y_true, "y_true")
            check_same_length(truth, scores, ("y_true", "y_score"))
            item_weights(sample_weight, counts, 0, allow_zero_total=True)
            return
        g = self._groups
        if self._fixed:
            codes, _ = positions_on_scale(y_true, g.labels.values, "y_true")
        else:
            r = prepare_ratings((y_true,), None, names=("y_true",))
            if r.labels is not None:  # a declared order: it fixes the scale
                codes = np.asarray(r.a, dtype=np.int64)
                if g.labels is None:
                    self._set_scale(r.labels, 0)
                elif not same_labels(g.labels, r.labels):
                    raise QwkitError(
                        "`y_true` declares an order different from earlier batches: "
                        f"{show(r.labels.values)} vs {show(g.labels.values)}.",
                        parameter="y_true",
                    )
            else:
                lo, k = measure_scale(r)
                self._grow(lo, k)
                codes = np.asarray(r.a, dtype=np.int64) - np.int64(self._offset)
        check_same_length(codes, scores, ("y_true", "y_score"))
        iw = item_weights(sample_weight, counts, codes.shape[0], allow_zero_total=True)
        if iw.parameter is not None:
            self._weighted = iw.parameter
        g.add_items(codes, scores, iw)

    def _set_scale(self, labels, offset: int) -> None:
        self._groups.labels = labels
        self._groups.k = labels.n_classes
        self._offset = offset

    def _grow(self, lo: int, k: int) -> None:
        g = self._groups
        if g.k == 0:
            new_lo, new_hi = lo, lo + k - 1
        else:
            new_lo, new_hi = min(self._offset, lo), max(self._offset + g.k - 1, lo + k - 1)
        if (new_lo, new_hi - new_lo + 1) == (self._offset, g.k):
            return
        if new_hi - new_lo + 1 > MAX_DENSE_CLASSES:
            raise QwkitError(
                f"`y_true` spans {new_hi - new_lo + 1} integer categories ({new_lo}..{new_hi});"
                f" at most {MAX_DENSE_CLASSES} are supported here. Pass `labels` with the "
                "ratings that occur.",
                parameter="y_true",
            )
        g.pair_code = g.pair_code + (self._offset - new_lo)
        self._set_scale(prepare_labels(np.arange(new_lo, new_hi + 1)), new_lo)
        self._ranged = True

    def merge(self, other: ThresholdAccumulator) -> ThresholdAccumulator:
        """Add ``other``'s pairs into this accumulator (in place) and return ``self``."""
        if not isinstance(other, ThresholdAccumulator):
            raise QwkitTypeError(
                f"`other` must be a ThresholdAccumulator; got {type(other).__name__}.",
                parameter="other",
            )
        if not same_weights(self._weights, other._weights, self._groups.k if self._fixed else None):
            raise QwkitError("`other` uses different `weights`.", parameter="other")
        mine, theirs = self._groups, other._groups
        self._weighted = self._weighted or other._weighted
        if theirs.labels is None:  # nothing seen there
            return self
        if mine.labels is None:  # nothing seen here: adopt the other scale
            self._groups = copy.deepcopy(theirs)
            self._groups.max_pairs = self._max_pairs
            self._offset, self._ranged = other._offset, other._ranged
            return self
        if self._ranged and other._ranged:  # integer ranges: align the codes, then merge
            self._grow(other._offset, theirs.k)
            theirs = copy.copy(theirs)
            theirs.pair_code = theirs.pair_code + (other._offset - self._offset)
            theirs.labels, theirs.k = self._groups.labels, self._groups.k
        self._groups.merge(theirs)
        return self

    def optimize(self) -> ThresholdResult:
        """The kappa-optimal cut points of everything seen so far (the result of
        :func:`optimize_thresholds` on all the data at once, with its warnings)."""
        if self._groups.n_pairs == 0:
            raise no_items_error(self._weighted)
        # the integer range of y_true: codes among its classes?
        check_from = self._offset if self._ranged else None
        return _fit_groups(self._groups, self._weights, check_from=check_from)

    def __repr__(self) -> str:
        return f"ThresholdAccumulator(n_pairs={self.n_pairs})"


public_module(ThresholdAccumulator)


# ---------------------------------------------------------------------------- public


def optimize_thresholds(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    nan_policy: NanPolicy = "raise",
) -> ThresholdResult:
    """Cut points that maximize the weighted kappa of rounded scores — the global optimum.

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        True ratings, as in :func:`kappa_score`.
    y_score : array-like of shape (n_items,)
        Real-valued scores (e.g. a regressor's predictions), finite; larger means a
        higher class.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, indexed ``[true class, predicted class]``; any
        non-negative matrix, asymmetric ones included.
    labels : array-like of shape (K,), default=None
        The ordered rating scale of ``y_true``. When None: a declared order (ordered
        Categorical / Enum), else, for integer ratings, every integer from the
        smallest to the largest true rating (the rule of :func:`kappa_score`). Text
        ratings need ``labels``: cut points need the order of the classes.
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative weight of each item.
    counts : array-like of shape (n_items,), default=None
        Whole numbers: how many identical items each row stands for (exclusive with
        ``sample_weight``); the result equals that of the repeated rows.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its item is
        left out of the fit, with its item weight. A fit has no NaN form: ``"propagate"`` is
        refused (``docs/getting-started.md``, "Missing values").

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
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1):
        drop those items, or pass ``labels`` (docs/kappa.md, "Missing-value codes").

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
    inputs = prepare(
        y_true,
        y_score,
        labels=labels,
        weights=weights,
        sample_weight=sample_weight,
        counts=counts,
        nan_policy=nan_policy,
    )
    return fit(inputs)


@dataclass(frozen=True, slots=True)
class Prepared:
    """Validated inputs of a threshold fit — the validation step of
    :func:`optimize_thresholds`, which :func:`optimism_corrected_kappa` reuses rather
    than validating again."""

    codes: np.ndarray  # int64 positions of y_true on the scale
    scores: np.ndarray  # finite float64 y_score
    scale: np.ndarray  # the rating scale (the labels)
    item_weights: ItemWeights
    weights: str | np.ndarray  # checked disagreement weights
    wmat: np.ndarray  # their (K, K) matrix on the scale


def prepare(
    y_true, y_score, *, labels, weights, sample_weight, counts, nan_policy="raise"
) -> Prepared:
    """Validate the inputs of :func:`optimize_thresholds` (``nan_policy``: "raise" or
    "omit")."""
    weights = check_weights(weights)
    names = ("y_true", "y_score", "sample_weight", "counts")
    inputs = paired((y_true, y_score, sample_weight, counts), names)
    rows = nan_rows(nan_policy, inputs, names, rated=2, allowed=RAISE_OR_OMIT)
    y_true, y_score, sample_weight, counts = rows.values
    scores = real_vector(y_score, "y_score")
    codes, scale = positions_on_scale(y_true, labels, "y_true")
    check_same_length(codes, scores, ("y_true", "y_score"))
    iw = item_weights(sample_weight, counts, codes.shape[0])
    wmat = _weight_matrix(weights, scale.shape[0])
    return Prepared(codes, scores, scale, iw, weights, wmat)


def fit(inputs: Prepared) -> ThresholdResult:
    """The exact fit of validated inputs."""
    groups = PairGroups(prepare_labels(inputs.scale), inputs.scale.shape[0], max_pairs=1 << 62)
    groups.add_items(inputs.codes, inputs.scores, inputs.item_weights)
    return _fit_groups(groups, inputs.weights)


def _fit_groups(groups: PairGroups, weights, *, check_from: int | None = None):
    """The fit of merged groups; ``check_from``: the first integer of a scale inferred
    from ``y_true``, whose classes are checked for missing-value codes."""
    scale = groups.labels.values
    wmat = _weight_matrix(weights, groups.k)
    problem = _problem(groups, wmat)
    if check_from is not None:
        check_occurring(check_from, problem[4] > 0)
    cuts, table, certificate, classes = fit_sorted(*problem, wmat, scale)
    if groups.survey:  # the table of the cut points from the exact pair sums
        statistic = groups.kappa_of(classes, problem[3], wmat, named=isinstance(weights, str))
    else:
        statistic = float(kappa_from_table(table, wmat, np.nan))
    return ThresholdResult(
        thresholds=cuts,
        statistic=statistic,
        labels=scale,
        certificate=certificate,
    )


def fit_sorted(values, pair_code, pair_weight, group_start, h, chance, wmat, scale):
    """The exact search (``_table._cut_points.solve_sorted``: eqs. T4–T6) on items
    sorted by score and aggregated into pairs: the cut points of the global optimum, its
    K×K table, the certificate and the class of every distinct score. The merged groups
    of a ``ThresholdAccumulator`` are solved here."""
    found = solve_sorted(values, pair_code, pair_weight, group_start, h, chance, wmat, scale)
    certificate = DinkelbachCertificate(
        ratio=found.ratio, n_iterations=found.n_iterations, gap=found.gap
    )
    return found.cuts, found.table, certificate, found.classes


def apply_thresholds(
    y_score: ArrayLike, thresholds: ArrayLike, *, labels: ArrayLike | None = None
) -> np.ndarray:
    """Round real-valued scores to classes with cut points.

    Parameters
    ----------
    y_score : array-like of shape (n_items,)
        Finite real-valued scores.
    thresholds : array-like of shape (K − 1,)
        Non-decreasing cut points (no NaN; ``-inf``/``+inf`` allowed). Equal cut points
        leave the classes between them empty.
    labels : array-like of shape (K,), default=None
        Values returned for the K classes; default ``0, 1, ..., K − 1``.

    Returns
    -------
    ndarray of shape (n_items,)
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
