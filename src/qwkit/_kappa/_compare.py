"""Compare and combine kappas: the paired two-model test, every pair of several models,
and the Fisher-z mean.

``compare_kappa_test`` asks whether two models scored on the same items have different
kappas against the same truth. The two kappas are correlated (same items, same truth),
so the test is paired: each item sits in one cell (t, a, b) of the K×K×K table of
truth and both predictions, which is the sufficient statistic for both kappas at once.
Its delta-method variance (eq. 10 of ``docs/inference.md``) is the variance of the
difference of the two influence functions of eq. 3; the bootstrap draws that table.
``pairwise_compare_kappa_test`` runs that test for every pair of several models on one
scale and adjusts the p-values for multiplicity.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import item_weights
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._numerics import unit_scale
from qwkit._base._results import (
    freeze_arrays,
    labels_dict,
    public_module,
    reduce_dataclass,
    result_dict,
)
from qwkit._base._scale import Ratings, check_codes, measure_scale, prepare_ratings, scale_values
from qwkit._base._validation import as_1d, check_alternative, check_choice, check_confidence_level
from qwkit._base._warnings import renamed_attribute
from qwkit._base._weights import WeightsLike, check_weights, weights_name
from qwkit._kappa._compare_soft import (
    as_columns,
    continuous_pair,
    rating_columns,
    real_columns,
    refuse_real,
)
from qwkit._table import _sufficient
from qwkit._table._cells import CellKappa, influence_variance, tabulate
from qwkit._table._resampling import (
    CORRECTIONS,
    Estimator,
    Resampled,
    adjust_pvalues,
    limit_lines,
    pvalue,
    zero_se_pvalue,
)

__all__ = [
    "KappaComparisonResult",
    "PairwiseComparisonResult",
    "compare_kappa_test",
    "mean_kappa",
    "pairwise_compare_kappa_test",
]

#: ml_metrics' ``mean_quadratic_weighted_kappa`` caps kappas at ±0.999 before the
#: Fisher transform (which is infinite at ±1).
_FISHER_CAP = 0.999


@dataclass(frozen=True, slots=True, eq=False)
class KappaComparisonResult(Resampled):
    """Result of :func:`compare_kappa_test`.

    Attributes
    ----------
    statistic : float
        κ_a − κ_b: kappa of model a minus kappa of model b, both against ``y_true``.
    kappa_a, kappa_b : float
        The two kappas.
    standard_error : float
        Paired delta-method standard error of the difference (eq. 10).
    pvalue : float
        p-value of the z-test of κ_a = κ_b, z = statistic / standard_error.
    n_items : int
        Number of items (with positive weight; with ``counts``, their sum).
    labels : ndarray of shape (K,)
        The rating scale shared by the three vectors (for an integer scale wider than
        10,000 categories, a ``range``); with real-valued scores, the scale of the
        vectors that hold ratings (empty when none does).
    real_valued : bool
        Whether a vector held real-valued scores, so that both kappas are quadratic
        kappa's continuous form (:func:`soft_kappa_score`) and the standard error that
        of eq. 12.
    """

    statistic: float
    kappa_a: float
    kappa_b: float
    standard_error: float
    pvalue: float
    n_items: int
    alternative: str = field(repr=False)
    weights: str = field(repr=False)
    labels: np.ndarray | range = field(repr=False)
    _estimator: Estimator = field(repr=False)
    real_valued: bool = field(default=False, repr=False)

    def summary(self, confidence_level: float = 0.95) -> str:
        """Text block: both kappas, the difference, its SE, the limits at
        ``confidence_level`` (one-sided with a one-sided ``alternative``) and the z-test."""
        limits = self._limits(confidence_level)
        z = self.statistic / self.standard_error if self.standard_error > 0 else math.nan
        form = "continuous form, " if self.real_valued else ""
        title = f"Paired Comparison of Kappas ({form}{self.weights} weights)"
        lines = [
            title,
            "-" * len(title),
            f"{'Kappa (a)':<26}{self.kappa_a:>10.4f}",
            f"{'Kappa (b)':<26}{self.kappa_b:>10.4f}",
            f"{'Difference (a - b)':<26}{self.statistic:>10.4f}",
            f"{'ASE':<26}{self.standard_error:>10.4f}",
            *limit_lines(confidence_level, limits, 26),
            "",
            "   Test of H0: Kappa (a) = Kappa (b)",
            "",
            f"{'Z':<26}{z:>10.4f}",
            f"{'Pr (' + self.alternative + ')':<26}{self.pvalue:>10.4f}",
            "",
            f"{'Number of items':<26}{self.n_items:>10d}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values (floats, ints, str, lists)."""
        return result_dict(
            self,
            (
                "statistic",
                "kappa_a",
                "kappa_b",
                "standard_error",
                "pvalue",
                "n_items",
                "alternative",
                "real_valued",
            ),
            weights=self.weights,
            **labels_dict(self.labels),
        )


public_module(KappaComparisonResult)


@dataclass(frozen=True, slots=True)
class _Difference:
    """f(x) − g(x) as a picklable callable (results can cross process boundaries)."""

    f: object
    g: object

    def __call__(self, *args):
        return self.f(*args) - self.g(*args)


def compare_kappa_test(
    y_true: ArrayLike,
    y_pred_a: ArrayLike,
    y_pred_b: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    nan_policy: NanPolicy = "raise",
) -> KappaComparisonResult:
    """Paired test of whether two models' kappas on the same items differ.

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        True ratings.
    y_pred_a, y_pred_b : array-like of shape (n_items,)
        Predictions of model a and model b for the same items: ratings on the scale,
        or real-valued scores (quadratic weights only; either or both).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, indexed ``[rating of y_true, rating of y_pred]``. Only
        ``"quadratic"`` scores real values (its continuous form); other weights refuse
        them.
    labels : array-like of shape (K,), default=None
        The ordered rating scale, shared by the three vectors. When None and the
        ratings are integers, every integer from the smallest to the largest rating of
        all three. Real-valued scores need the integers as the scale: None, or
        consecutive integers.
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative survey weight of each item (the rows are the sampling units, as
        in :func:`kappa_test`).
    counts : array-like of shape (n_items,), default=None
        Whole numbers: how many identical items each row stands for (exclusive with
        ``sample_weight``); the result equals that of the repeated rows.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"`` tests κ_a > κ_b.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its item is
        left out (from both kappas), with its item weight. The result has no NaN form:
        ``"propagate"`` is refused (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    KappaComparisonResult
        ``statistic`` (κ_a − κ_b), ``kappa_a``, ``kappa_b``, ``standard_error``,
        ``pvalue``, ``n_items``, ``.confidence_interval(...)``, ``.summary()``.

    Warns
    -----
    UndefinedKappaWarning
        When either kappa is 0/0: every number is nan.
    DegenerateIntervalWarning
        When the standard error is zero (e.g. identical predictions): p-value nan.
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1):
        drop those items, or pass ``labels`` (docs/kappa.md, "Missing-value codes").

    Raises
    ------
    QwkitError, QwkitTypeError
        As :func:`kappa_score` for each pair, for an unknown ``alternative``, and for
        real-valued scores under weights other than ``"quadratic"`` (naming the vector
        and ``weights``).

    See Also
    --------
    kappa_test : Inference for one kappa.
    soft_kappa_score : Quadratic kappa of real-valued scores.

    Notes
    -----
    Both kappas are functions of the K×K×K table U of (truth, a, b): kappa a of its
    (truth, a) margin, kappa b of its (truth, b) margin. Each item's influence on the
    difference is g_a(t, a) − g_b(t, b) with g of eq. 3, and the variance of the
    difference is the variance of that influence over the items (eq. 10): the
    correlation between the two kappas, which an unpaired test would ignore, is
    accounted for exactly. Unlike two separate intervals, this is a valid test.

    Real-valued scores (a number that is not an integer, on the integers' scale) have no
    table: quadratic kappa scores them by its continuous form (eq. 2' of
    ``docs/kappa.md``), each kappa the value :func:`soft_kappa_score` gives, both
    functions of nine sums over the items. The influence of an item on the difference
    is then the difference of the two kappas' influences (eq. 12) and its variance the
    sandwich of eq. 5, over items instead of cells; the bootstrap and the jackknife
    resample the items. On integer ratings both forms are one function of one
    distribution: they agree to rounding (the tests hold them within 1e-12).

    Examples
    --------
    >>> import qwkit
    >>> truth = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 3, 3]
    >>> a =     [1, 2, 3, 4, 4, 1, 2, 3, 5, 5, 3, 2]
    >>> b =     [2, 2, 2, 3, 4, 1, 3, 3, 3, 4, 4, 2]
    >>> res = qwkit.compare_kappa_test(truth, a, b)
    >>> round(res.kappa_a, 6), round(res.kappa_b, 6), round(res.statistic, 6)
    (0.926829, 0.709677, 0.217152)
    >>> round(res.standard_error, 6), round(res.pvalue, 6)
    (0.083447, 0.009261)

    Real-valued scores of model b (an average of several answers, say):

    >>> b_real = [1.6, 2.2, 2.4, 3.3, 4.1, 1.2, 2.7, 3.1, 3.4, 4.2, 3.6, 2.3]
    >>> res = qwkit.compare_kappa_test(truth, a, b_real)
    >>> res.real_valued, round(res.kappa_b, 6) == round(qwkit.soft_kappa_score(truth, b_real), 6)
    (True, True)
    >>> round(res.statistic, 6), round(res.standard_error, 6)
    (0.0, 0.0)
    """
    alternative = check_alternative(alternative)
    weights = check_weights(weights)
    names = ("y_true", "y_pred_a", "y_pred_b")
    every = (*names, "sample_weight", "counts")
    inputs = paired((y_true, y_pred_a, y_pred_b, sample_weight, counts), every)
    rows = nan_rows(nan_policy, inputs, every, rated=3, allowed=RAISE_OR_OMIT)
    y_true, y_pred_a, y_pred_b, sample_weight, counts = rows.values
    arrays, first = real_columns((y_true, y_pred_a, y_pred_b), names, labels)
    if any(f is not None for f in first):  # real-valued scores: the continuous form
        refuse_real(weights, names, arrays, first)
        r, scale = rating_columns(arrays, names, first, labels)
        iw = item_weights(sample_weight, counts, next(len(a) for a in arrays if a is not None))
        return _continuous(as_columns(arrays, first, r), names, iw, alternative, scale)
    r = prepare_ratings(
        (y_true, y_pred_a, y_pred_b), labels, names=names, ordered=_ordered(weights)
    )
    iw = item_weights(sample_weight, counts, r.n_items)
    return _paired(r, iw, weights, alternative)


def _ordered(weights) -> bool:
    """Whether the weights need the order of the scale (all but 'identity')."""
    return not (isinstance(weights, str) and weights == "identity")


def _paired(r: Ratings, iw, weights, alternative: str) -> KappaComparisonResult:
    """The paired test of validated ratings (truth, a, b) on one scale (eq. 10)."""
    offset, k = measure_scale(r)
    check_codes(r)
    cells = tabulate(r, iw, weights, hint=_sufficient.scale_hint(r.labels, offset, k))
    truth, pred_a, pred_b = cells.digits
    model_a = CellKappa(rows=truth, cols=pred_a, wmat=cells.wmat)
    model_b = CellKappa(rows=truth, cols=pred_b, wmat=cells.wmat)
    sample = cells.sample
    w = sample.counts
    estimator = Estimator(
        sample=sample,
        batch=_Difference(model_a.batch, model_b.batch),
        leave_one_out=_Difference(
            functools.partial(model_a.leave_one_out, w), functools.partial(model_b.leave_one_out, w)
        ),
    )
    # each kappa is the value kappa_score returns (exact for integer ratings)
    ka, kb = (
        _sufficient.kappa(_sufficient.Pair(r.pair(0, j), weights, iw), math.nan) for j in (1, 2)
    )
    scale = scale_values(r, offset, k)
    result = functools.partial(
        KappaComparisonResult,
        n_items=sample.n_items,
        alternative=alternative,
        weights=weights_name(weights),
        labels=scale,
        _estimator=estimator,
    )
    if math.isnan(ka) or math.isnan(kb):  # already warned
        nan = math.nan
        return result(statistic=nan, kappa_a=ka, kappa_b=kb, standard_error=nan, pvalue=nan)
    g = model_a.influence(w, ka) - model_b.influence(w, kb)  # (eq. 10)
    se = math.sqrt(influence_variance(g, w, sample.counts_sq))  # (eq. 10)
    diff = ka - kb
    p = (
        pvalue(diff / se, alternative)
        if se > 0
        else zero_se_pvalue("standard error of the difference")
    )
    return result(
        statistic=float(diff),
        kappa_a=float(ka),
        kappa_b=float(kb),
        standard_error=se,
        pvalue=p,
    )


def _continuous(columns, names, iw, alternative: str, scale) -> KappaComparisonResult:
    """The paired test of real-valued scores by quadratic kappa's continuous form."""
    c = continuous_pair(columns, names, iw)
    diff, se = c.kappa_a - c.kappa_b, c.standard_error
    if math.isnan(se):
        p = math.nan
    elif se > 0:
        p = pvalue(diff / se, alternative)
    else:
        p = zero_se_pvalue("standard error of the difference")
    return KappaComparisonResult(
        statistic=float(diff),
        kappa_a=c.kappa_a,
        kappa_b=c.kappa_b,
        standard_error=se,
        pvalue=p,
        n_items=c.n_items,
        alternative=alternative,
        weights="quadratic",
        labels=scale,
        _estimator=c.estimator,
        real_valued=True,
    )


@dataclass(frozen=True, slots=True, eq=False)
class PairwiseComparisonResult:
    """Result of :func:`pairwise_compare_kappa_test`: every pair of several models.

    Attributes
    ----------
    models : tuple of str
        The models' names, in the order given.
    kappas : ndarray of shape (n_models,)
        The kappa of each model against ``y_true``.
    pairs : tuple of (str, str)
        The pairs (a, b) compared, a before b in ``models``: (0, 1), (0, 2), …, (1, 2), …
    statistic : ndarray of shape (n_pairs,)
        κ_a − κ_b of every pair.
    pvalue : ndarray of shape (n_pairs,)
        The two-sided p-value of every pair's paired z-test, unadjusted.
    pvalue_adjusted : ndarray of shape (n_pairs,)
        The same p-values adjusted for multiplicity by ``correction`` (nan where a test
        is undefined; such tests do not count in the family).
    correction : str
        ``"holm"``, ``"bonferroni"`` or ``"fdr_by"``.
    comparisons : tuple of KappaComparisonResult
        The test of every pair, as :func:`compare_kappa_test` returns it (standard
        errors, ``confidence_interval``, ``summary``): unadjusted.
    n_items : int
        Number of items (with positive weight; with ``counts``, their sum).
    labels : ndarray of shape (K,)
        The rating scale shared by every column (a ``range`` beyond 10,000 categories).
    """

    models: tuple[str, ...]
    kappas: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    correction: str
    n_items: int
    #: Deprecated: the old name of ``n_items``.
    n_samples = renamed_attribute("n_samples", "n_items")
    comparisons: tuple[KappaComparisonResult, ...] = field(repr=False)
    weights: str = field(repr=False)
    #: Deprecated: the old name of ``weights``.
    weights_kind = renamed_attribute("weights_kind", "weights")
    labels: np.ndarray | range = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def summary(self, confidence_level: float = 0.95) -> str:
        """Text block: each model's kappa, then every pair's difference, its paired
        standard error, its limits at ``confidence_level`` (not adjusted for
        multiplicity), z, and the p-value before and after the correction."""
        names = [*self.models, *(f"{a} - {b}" for a, b in self.pairs), "Model", "Pair"]
        width = max(26, *(len(n) + 2 for n in names))
        form = "continuous form, " if any(c.real_valued for c in self.comparisons) else ""
        title = f"Pairwise Comparison of Kappas ({form}{self.weights} weights)"
        adjusted = _CORRECTION_NAMES[self.correction]
        level = f"{100 * check_confidence_level(confidence_level):g}%"
        lines = [title, "-" * len(title), f"{'Model':<{width}}{'Kappa':>10}"]
        lines += [f"{m:<{width}}{k:>10.4f}" for m, k in zip(self.models, self.kappas, strict=True)]
        lines += [
            "",
            f"{'Pair (a - b)':<{width}}{'Difference':>12}{'ASE':>10}"
            f"{level + ' limits':>20}{'Z':>10}{'Pr (two-sided)':>16}{adjusted:>12}",
        ]
        for (a, b), res, p in zip(self.pairs, self.comparisons, self.pvalue_adjusted, strict=True):
            se = res.standard_error
            z = res.statistic / se if se > 0 else math.nan
            low, high = res._limits(confidence_level)
            lines.append(
                f"{a + ' - ' + b:<{width}}{res.statistic:>12.4f}{se:>10.4f}"
                f"{low:>10.4f}{high:>10.4f}{z:>10.4f}{res.pvalue:>16.4f}{p:>12.4f}"
            )
        lines += ["", f"{'Number of items':<{width}}{self.n_items:>10d}"]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values: the models and their kappas,
        and one entry per pair (its test and adjusted p-value)."""
        comparisons = [
            {
                "model_a": a,
                "model_b": b,
                **result_dict(
                    res,
                    ("statistic", "kappa_a", "kappa_b", "standard_error", "pvalue", "real_valued"),
                ),
                "pvalue_adjusted": float(p),
            }
            for (a, b), res, p in zip(
                self.pairs, self.comparisons, self.pvalue_adjusted, strict=True
            )
        ]
        return result_dict(
            self,
            ("models", "kappas", "correction", "n_items"),
            alternative="two-sided",
            comparisons=comparisons,
            weights=self.weights,
            **labels_dict(self.labels),
        )


public_module(PairwiseComparisonResult)


_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_by": "FDR (B-Y)"}


def pairwise_compare_kappa_test(
    y_true: ArrayLike,
    y_preds: Mapping[str, ArrayLike] | ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    correction: Literal["holm", "bonferroni", "fdr_by"] = "holm",
    nan_policy: NanPolicy = "raise",
) -> PairwiseComparisonResult:
    """Paired tests of every pair of several models' kappas on the same items, with
    p-values adjusted for multiplicity.

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        True ratings.
    y_preds : mapping of str to array-like, or array-like of shape (n_items, n_models)
        The predictions of at least two models for the same items: a dict (model name →
        predictions), a data frame (one column per model, named after it), or a 2-D
        array (one column per model, named ``"0"``, ``"1"``, …). Ratings on the scale
        or real-valued scores (quadratic weights only), as in :func:`compare_kappa_test`.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, indexed ``[rating of y_true, rating of a prediction]``.
    labels : array-like of shape (K,), default=None
        The ordered rating scale, shared by every column. When None and the ratings
        are integers, every integer from the smallest to the largest rating of all the
        columns: one scale for every pair.
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative survey weight of each item, as in :func:`compare_kappa_test`.
    counts : array-like of shape (n_items,), default=None
        Whole numbers: how many identical items each row stands for (exclusive with
        ``sample_weight``).
    correction : {"holm", "bonferroni", "fdr_by"}, default="holm"
        The multiplicity correction over the n_models·(n_models − 1)/2 tests: Holm's
        step-down (family-wise error rate), Bonferroni (the same, less powerful), or
        Benjamini–Yekutieli (false discovery rate). All three hold however the tests
        depend on each other — and tests that share a model do.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its item is
        left out of every pair (all are tested on the same items), with its item weight. The
        result has no NaN form: ``"propagate"`` is refused (``docs/getting-started.md``,
        "Missing values").

    Returns
    -------
    PairwiseComparisonResult
        ``models``, ``kappas``, ``pairs``, ``statistic`` (κ_a − κ_b), ``pvalue``,
        ``pvalue_adjusted``, ``comparisons`` (each pair's
        :class:`KappaComparisonResult`), ``.summary()``, ``.to_dict()``.

    Warns
    -----
    UndefinedKappaWarning, DegenerateIntervalWarning
        As :func:`compare_kappa_test`, for the pairs concerned.
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1):
        drop those items, or pass ``labels`` (docs/kappa.md, "Missing-value codes").

    Raises
    ------
    QwkitError, QwkitTypeError
        As :func:`compare_kappa_test`; fewer than two models, or a ``y_preds`` that is
        neither a mapping nor 2-D. An error about one model's predictions names it
        as ``y_preds['name']`` (``y_preds[:, j]`` for an array).

    See Also
    --------
    compare_kappa_test : The test of one pair.

    Notes
    -----
    Each pair is tested exactly as :func:`compare_kappa_test` tests it (eq. 10: paired,
    on the same items; eq. 12 when a column of the pair holds real-valued scores), all
    on one rating scale; only the p-values are adjusted
    (Holm 1979; Benjamini & Yekutieli 2001). The standard errors and confidence
    intervals of ``comparisons`` are those of each pair alone.

    Examples
    --------
    >>> import qwkit
    >>> truth = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 3, 3]
    >>> preds = {
    ...     "a": [1, 2, 3, 4, 4, 1, 2, 3, 5, 5, 3, 2],
    ...     "b": [2, 2, 2, 3, 4, 1, 3, 3, 3, 4, 4, 2],
    ...     "c": [1, 3, 3, 4, 5, 2, 2, 3, 4, 4, 3, 3],
    ... }
    >>> res = qwkit.pairwise_compare_kappa_test(truth, preds)
    >>> res.pairs
    (('a', 'b'), ('a', 'c'), ('b', 'c'))
    >>> [round(float(k), 6) for k in res.kappas]
    [0.926829, 0.709677, 0.909091]
    >>> [round(float(p), 6) for p in res.pvalue]  # as compare_kappa_test(truth, a, b), ...
    [0.009261, 0.80448, 0.093028]
    >>> [round(float(p), 6) for p in res.pvalue_adjusted]  # Holm: 3 × 0.009261, ...
    [0.027782, 0.80448, 0.186056]
    """
    weights = check_weights(weights)
    correction = check_choice(correction, "correction", CORRECTIONS)
    y_true, y_preds, sample_weight, counts = paired(
        (y_true, y_preds, sample_weight, counts), ("y_true", "y_preds", "sample_weight", "counts")
    )
    models, names, vectors = _models(y_preds, y_true)
    every = ("y_true", *names, "sample_weight", "counts")
    rows = nan_rows(
        nan_policy,
        (y_true, *vectors, sample_weight, counts),
        every,
        rated=1 + len(vectors),
        allowed=RAISE_OR_OMIT,
    )
    y_true, *vectors, sample_weight, counts = rows.values
    pairs = [(i, j) for i in range(len(models)) for j in range(i + 1, len(models))]
    all_names = ("y_true", *names)
    arrays, first = real_columns((y_true, *vectors), all_names, labels)
    if any(f is not None for f in first):  # real-valued scores: the continuous form
        refuse_real(weights, all_names, arrays, first)
        comparisons = _mixed_pairs(arrays, all_names, first, labels, pairs, sample_weight, counts)
    else:
        r = prepare_ratings((y_true, *vectors), labels, names=all_names, ordered=_ordered(weights))
        iw = item_weights(sample_weight, counts, r.n_items)
        offset, k = measure_scale(r)  # one scale for every pair (checked once)
        check_codes(r)
        shared = dataclasses.replace(r, offset=offset, n_classes=k, checked=True)
        comparisons = tuple(
            _paired(_three(shared, (0, i + 1, j + 1)), iw, weights, "two-sided") for i, j in pairs
        )
    kappas = [comparisons[0].kappa_a] + [comparisons[j - 1].kappa_b for j in range(1, len(models))]
    raw = np.array([c.pvalue for c in comparisons])
    return PairwiseComparisonResult(
        models=models,
        kappas=np.array(kappas),
        pairs=tuple((models[i], models[j]) for i, j in pairs),
        statistic=np.array([c.statistic for c in comparisons]),
        pvalue=raw,
        pvalue_adjusted=adjust_pvalues(raw, correction),
        correction=correction,
        n_items=comparisons[0].n_items,
        comparisons=comparisons,
        weights=comparisons[0].weights,
        labels=comparisons[0].labels,
    )


def _three(shared: Ratings, columns: tuple[int, int, int]) -> Ratings:
    """Three of the rating columns of ``shared``, on its scale."""
    return dataclasses.replace(
        shared,
        columns=tuple(shared.columns[c] for c in columns),
        names=tuple(shared.names[c] for c in columns),
    )


def _mixed_pairs(arrays, names, first, labels, pairs, sample_weight, counts):
    """Every pair's test when some columns hold real-valued scores: the pairs of two
    rating columns (and rated truth) on the table of their shared scale, exactly as
    :func:`compare_kappa_test` tests them; the others by the continuous form."""
    r, scale = rating_columns(arrays, names, first, labels)
    iw = item_weights(sample_weight, counts, len(arrays[0]))
    columns = as_columns(arrays, first, r)
    shared = None
    if r is not None:
        offset, k = measure_scale(r)
        shared = dataclasses.replace(r, offset=offset, n_classes=k, checked=True)
        rated = {c: n for n, c in enumerate(i for i, f in enumerate(first) if f is None)}
    out = []
    for i, j in pairs:
        idx = (0, i + 1, j + 1)
        if all(first[c] is None for c in idx):
            out.append(
                _paired(_three(shared, tuple(rated[c] for c in idx)), iw, "quadratic", "two-sided")
            )
        else:
            three = [columns[c] for c in idx]
            out.append(_continuous(three, [names[c] for c in idx], iw, "two-sided", scale))
    return tuple(out)


def _models(y_preds, y_true) -> tuple[tuple[str, ...], tuple[str, ...], list]:
    """(model names, parameter names for messages, prediction vectors) of ``y_preds``."""
    if y_preds is None or isinstance(y_preds, (str, bytes)):
        raise QwkitTypeError(
            "`y_preds` must be a mapping of model names to predictions or a 2-D array "
            f"(n_items, n_models); got {y_preds!r}.",
            parameter="y_preds",
        )
    if isinstance(y_preds, Mapping):
        keys, vectors = list(y_preds), list(y_preds.values())
        names = [f"y_preds[{key!r}]" for key in keys]
    elif hasattr(y_preds, "columns") and not isinstance(y_preds, np.ndarray):  # a frame
        keys = list(y_preds.columns)
        vectors = [y_preds[key] for key in keys]
        names = [f"y_preds[{key!r}]" for key in keys]
    else:
        try:
            arr = np.asarray(y_preds)
        except ValueError:  # ragged
            arr = np.asarray(y_preds, dtype=object)
        if arr.ndim != 2:
            raise QwkitError(
                "`y_preds` must be a mapping of model names to predictions or a 2-D array "
                f"(n_items, n_models); got an array of shape {arr.shape}.",
                parameter="y_preds",
            )
        n_true = len(y_true) if hasattr(y_true, "__len__") else None
        if arr.shape[0] != n_true and arr.shape[1] == n_true:
            raise QwkitError(
                f"`y_preds` must have one row per item ({n_true}) and one column per model; "
                f"got shape {arr.shape}. Stack the models' predictions as columns "
                "(`numpy.column_stack`) or pass a dict of model names to predictions.",
                parameter="y_preds",
            )
        keys = list(range(arr.shape[1]))
        vectors = [arr[:, j] for j in keys]
        names = [f"y_preds[:, {j}]" for j in keys]
    models = tuple(str(key) for key in keys)
    if len(models) < 2:
        raise QwkitError(
            f"`y_preds` must hold at least two models to compare; got {len(models)}.",
            parameter="y_preds",
        )
    if len(set(models)) < len(models):
        seen = [m for i, m in enumerate(models) if m in models[:i]]
        raise QwkitError(
            f"`y_preds` names a model twice ({seen[0]!r}); every model needs its own name.",
            parameter="y_preds",
        )
    return models, tuple(names), vectors


def mean_kappa(kappas: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Fisher-z average of several kappas (the ASAP competitions' mean QWK).

    Parameters
    ----------
    kappas : array-like of shape (n_kappas,)
        Kappas to combine (e.g. one per essay prompt), each at most 1.
    sample_weight : array-like of shape (n_kappas,), default=None
        Non-negative weight of each kappa, e.g. its number of items (equal when None).

    Returns
    -------
    float
        tanh(Σ wᵢ zᵢ / Σ wᵢ), zᵢ = artanh(κᵢ) = ½ ln((1 + κᵢ)/(1 − κᵢ)) (eq. 11),
        with every κᵢ first clipped to [−0.999, 0.999].

    Raises
    ------
    QwkitError
        Empty, non-finite or > 1 kappas; weights of the wrong length, negative,
        non-finite or summing to zero.
    QwkitTypeError
        Non-numeric input.

    Notes
    -----
    This is ``mean_quadratic_weighted_kappa`` of Kaggle's ``ml_metrics`` (Ben
    Hamner's Metrics package, ``Python/ml_metrics/quadratic_weighted_kappa.py``),
    used to combine per-prompt QWKs in the ASAP automated essay scoring
    competitions: its cap of ±0.999 keeps a perfect kappa finite (artanh(0.999) ≈
    3.8), and weights are applied in z-space. The Fisher transform is approximately
    variance-stabilizing for correlations; for kappa it is a convention, not a
    theorem.

    Examples
    --------
    >>> import qwkit
    >>> round(qwkit.mean_kappa([0.8, 0.6, 0.7]), 6)
    0.709588
    >>> round(qwkit.mean_kappa([1.0, 0.5], sample_weight=[1, 3]), 6)
    0.876863
    """
    kappas, sample_weight = paired((kappas, sample_weight), ("kappas", "sample_weight"))
    k = as_1d(kappas, "kappas")
    if k.dtype.kind not in "biuf":
        raise QwkitTypeError(f"`kappas` must be numeric; got dtype {k.dtype}.", parameter="kappas")
    k = k.astype(np.float64)
    if k.size == 0:
        raise QwkitError("`kappas` is empty; nothing to average.", parameter="kappas")
    bad = ~np.isfinite(k) | (k > 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QwkitError(
            f"`kappas` must be finite and at most 1; got {k[i]} at index {i}.",
            parameter="kappas",
            row=i,
        )
    w = item_weights(sample_weight, None, k.shape[0]).as_float()
    # a power of two: sums cannot overflow or underflow
    w = np.ones_like(k) if w is None else unit_scale(w.copy())
    z = np.arctanh(np.clip(k, -_FISHER_CAP, _FISHER_CAP))  # (eq. 11)
    return float(np.tanh(np.dot(w, z) / w.sum()))
