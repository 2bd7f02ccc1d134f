"""Inference for weighted kappa: standard errors, tests and confidence intervals.

Notation as in ``docs/inference.md``, whose equation numbers the code cites. The
asymptotic variance is the Fleiss–Cohen–Everitt (1969) formula written as the variance
of the influence function

    gᵢⱼ = −[dᵢⱼ − (1 − κ)(d̄ᵢ· + d̄·ⱼ)] / Eₚ,  d̄ᵢ· = (Dc)ᵢ/N,  d̄·ⱼ = (rᵀD)ⱼ/N    (eq. 3)

so that Var κ̂ = Σ T²ᵢⱼ (gᵢⱼ − ḡ)² / N² (eq. 5; T² is Σw², = T for counts, which gives
FCE's eq. 2). Kappa itself is computed exactly as by ``kappa_score``; the present cells
(``_cells``) carry the variance, the bootstrap (eq. 6) and the jackknife (eq. 8).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._item_weights import MAX_TOTAL_COUNT
from qwkit._base._missing import NanPolicy
from qwkit._base._results import labels_dict, public_module, result_dict
from qwkit._base._scale import check_codes, measure_scale, scale_values
from qwkit._base._validation import check_alternative, check_choice, check_confusion, check_rng
from qwkit._base._weights import WeightsLike, check_weights, resolve, weights_name
from qwkit._kappa import _plots
from qwkit._table import _sufficient
from qwkit._table._cells import (
    CellKappa,
    Sample,
    influence_variance,
    stats_cells,
    table_cells,
    tabulate,
)
from qwkit._table._resampling import (
    MIN_ITEMS,
    ConfidenceInterval,
    Estimator,
    Method,
    Resampled,
    interval,
    limit_lines,
    pvalue,
    zero_se_pvalue,
)
from qwkit._table._state import TableStats

__all__ = [
    "ConfidenceInterval",
    "KappaTestResult",
    "kappa_test",
    "kappa_test_from_confusion",
    "stats_test_result",
]

Alternative = Literal["two-sided", "greater", "less"]

#: The most categories a figure of the table draws.
MAX_PLOT_CLASSES = 1000


class _Drawn:
    """An estimator whose bootstrap resamples are made already (a figure's): the interval
    of :func:`interval` from the same draws the figure shows."""

    def __init__(self, estimator: Estimator, draws: np.ndarray):
        self._estimator, self._draws = estimator, draws

    def bootstrap(self, n_resamples, rng, progress=None):
        return self._draws

    def jackknife(self):
        return self._estimator.jackknife()


@dataclass(frozen=True, slots=True, eq=False)
class KappaTestResult(Resampled):
    """Result of :func:`kappa_test` and :func:`kappa_test_from_confusion`.

    Attributes
    ----------
    statistic : float
        The weighted kappa.
    standard_error : float
        Fleiss–Cohen–Everitt (1969) asymptotic standard error (eq. 2; with sample
        weights its sandwich form, eq. 5). Use it for intervals.
    standard_error_null : float
        Standard error under the null hypothesis κ = 0 (eq. 4). It is used for the
        z-test only; never for an interval.
    pvalue : float
        p-value of the z-test of κ = 0, z = statistic / standard_error_null, against
        the ``alternative``.
    n_items : int
        Number of rated items (with positive weight; with ``counts``, their sum).
    labels : ndarray of shape (K,)
        The rating scale the table was built on (for an integer scale wider than
        10,000 categories, a ``range``).
    """

    statistic: float
    standard_error: float
    standard_error_null: float
    pvalue: float
    n_items: int
    alternative: str = field(repr=False)
    weights: str = field(repr=False)
    labels: np.ndarray | range = field(repr=False)
    _estimator: Estimator = field(repr=False)
    #: The table the test was computed on: the scale positions (rows, columns) and the
    #: Σw (or count) of each present cell.
    _table: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False)
    _upper_bound = 1.0  # the largest value the statistic can take

    def summary(self, confidence_level: float = 0.95) -> str:
        """A SAS PROC FREQ-style text block: kappa, ASE, the limits at
        ``confidence_level`` (one-sided with a one-sided ``alternative``, as
        :meth:`confidence_interval`) and the z-test (its p-value for the ``alternative``,
        and the two-sided one)."""
        simple = self.weights == "identity"
        which = "Simple" if simple else "Weighted"
        title = f"{which} Kappa Coefficient" + ("" if simple else f" ({self.weights} weights)")
        limits = self._limits(confidence_level)
        se0 = self.standard_error_null
        z = self.statistic / se0 if se0 > 0 else math.nan
        from scipy import special  # here, where it is used: kappa_score needs no scipy

        one = float(special.ndtr(-abs(z))) if math.isfinite(z) else math.nan
        if self.alternative == "two-sided":  # SAS: the side the estimate falls on
            sign, p_one = ("<" if z < 0 else ">"), one
        else:
            sign, p_one = (">" if self.alternative == "greater" else "<"), self.pvalue
        lines = [
            title,
            "-" * max(32, len(title)),
            f"{'Kappa':<26}{self.statistic:>10.4f}",
            f"{'ASE':<26}{self.standard_error:>10.4f}",
            *limit_lines(confidence_level, limits, 26),
            "",
            f"   Test of H0: {which} Kappa = 0",
            "",
            f"{'ASE under H0':<26}{se0:>10.4f}",
            f"{'Z':<26}{z:>10.4f}",
            f"{f'One-sided Pr {sign}  Z':<26}{p_one:>10.4f}",
            f"{'Two-sided Pr > |Z|':<26}{2 * one:>10.4f}",
            "",
            f"{'Number of items':<26}{self.n_items:>10d}",
        ]
        if self.n_items < MIN_ITEMS or self.standard_error == 0.0:
            lines += ["", "Warning: too few items or a zero standard error; the limits above"]
            lines += ["are not trustworthy (see DegenerateIntervalWarning)."]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values (floats, ints, str, lists)."""
        return result_dict(
            self,
            (
                "statistic",
                "standard_error",
                "standard_error_null",
                "pvalue",
                "n_items",
                "alternative",
            ),
            weights=self.weights,
            **labels_dict(self.labels),
        )

    def plot(
        self,
        kind: Literal["confusion", "classes", "bootstrap"] = "confusion",
        *,
        names: tuple[str, str] = ("y1", "y2"),
        confidence_level: float = 0.95,
        method: Method = "bootstrap",
        n_resamples: int = 9999,
        rng: int | np.random.Generator | None = None,
        progress: Callable[[int, int], object] | None = None,
    ):
        """Draw the result with matplotlib (the ``plot`` extra).

        Parameters
        ----------
        kind : {"confusion", "classes", "bootstrap"}, default="confusion"
            ``"confusion"``: the table the test was computed on as a heatmap, colour
            the share of each row (the counts written in the cells up to 20 classes).
            ``"classes"``: for each class of the first rater, the share of its items
            the second puts in the same class and within one class, and both raters'
            margins. ``"bootstrap"``: the bootstrap distribution of kappa
            (:meth:`bootstrap_distribution`) with the estimate and the interval of
            :meth:`confidence_interval` at ``confidence_level`` by ``method`` — drawn
            from the same resamples.
        names : (str, str), default=("y1", "y2")
            How the figure calls the two raters (rows, columns).
        confidence_level, method, n_resamples, rng, progress
            As in :meth:`confidence_interval` (``"bootstrap"`` only).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import qwkit
        >>> res = qwkit.kappa_test([1, 2, 3, 3, 2, 1, 2], [1, 2, 3, 2, 2, 1, 3])
        >>> fig = res.plot("confusion", names=("rater A", "rater B"))
        >>> fig.axes[0].get_ylabel(), fig.axes[0].get_xlabel()
        ('rater A', 'rater B')
        """
        kind = check_choice(kind, "kind", ("confusion", "classes", "bootstrap"))
        first, second = (str(n) for n in names)
        if kind == "bootstrap":
            gen = check_rng(rng)
            draws = self.bootstrap_distribution(n_resamples, rng=gen, progress=progress)
            low, high = interval(
                self.statistic,
                self.standard_error,
                _Drawn(self._estimator, draws),  # the same resamples as the figure's
                n_items=self._n_units,
                confidence_level=confidence_level,
                method=method,
                n_resamples=n_resamples,
                rng=gen,
                alternative=self.alternative,
                upper_bound=self._upper_bound,
                df=self._df,
            )
            return _plots.bootstrap_figure(
                self.statistic, (low, high), confidence_level, method, draws
            )
        k = len(self.labels)
        if k > MAX_PLOT_CLASSES:
            raise QwkitError(
                f"The scale has {k:,} categories; a figure of the table draws at most "
                f"{MAX_PLOT_CLASSES:,}.",
                parameter="kind",
            )
        rows, cols, sums = self._table
        table = np.zeros((k, k))
        np.add.at(table, (rows, cols), sums)
        if kind == "confusion":
            return _plots.confusion_figure(
                table, self.labels, title="Confusion matrix", truth_name=first, pred_name=second
            )
        return _plots.classes_figure(table, self.labels, truth_name=first, pred_name=second)


public_module(KappaTestResult)


def _test_result(
    model: CellKappa,
    sample: Sample,
    statistic: float,
    alternative: str,
    weights: str,
    labels,
    table: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> KappaTestResult:
    """Wrap: standard errors (eqs. 4–5) and the z-test around the exact kappa."""
    w = sample.counts
    estimator = Estimator(
        sample=sample,
        batch=model.batch,
        leave_one_out=functools.partial(model.leave_one_out, w),
    )
    result = functools.partial(
        KappaTestResult,
        n_items=sample.n_items,
        alternative=alternative,
        weights=weights,
        labels=labels,
        _estimator=estimator,
        _table=table,
    )
    if math.isnan(statistic):  # already warned by the computation of kappa
        nan = math.nan
        return result(statistic=nan, standard_error=nan, standard_error_null=nan, pvalue=nan)
    var = influence_variance(model.influence(w, statistic), w, sample.counts_sq)  # (eq. 5)
    var0 = model.null_variance(w, sample.n_eff)  # (eq. 4)
    se, se0 = math.sqrt(var), math.sqrt(var0)
    p = (
        pvalue(statistic / se0, alternative)
        if se0 > 0
        else zero_se_pvalue("standard error under the null")
    )
    return result(statistic=float(statistic), standard_error=se, standard_error_null=se0, pvalue=p)


def _from_table(
    table: np.ndarray, wmat: np.ndarray, alternative: str, weights: str, labels, unit=1.0
):
    """Test result from a K×K table of whole-number counts (of items of equal weight
    ``unit``: the result's table holds Σw, as the user counts it)."""
    rows, cols, sample = table_cells(table)
    statistic = _sufficient.kappa_from_table(table, wmat, math.nan)
    model = CellKappa(rows, cols, wmat)
    with np.errstate(over="ignore"):  # equal weights near 1.8e308: the figure's table of
        cells = (rows, cols, sample.counts * unit)  # Σw holds inf; the rest uses counts
    return _test_result(model, sample, statistic, alternative, weights, labels, cells)


def stats_test_result(stats: TableStats, weights, alternative: str) -> KappaTestResult:
    """:func:`kappa_test` of the items merged into a table state: the same branches on
    the same numbers, so the same result to the last bit (with unequal survey weights,
    the rows themselves are not at hand: intervals are asymptotic only)."""
    k = stats.k
    offset = stats.offset
    scale = stats.scale()
    hint = _sufficient.scale_hint(stats.labels, offset, k)
    survey_only = stats.survey is not None and not np.any(stats.counts)
    uniform = stats.survey is None or (survey_only and stats.wmin == stats.wmax)
    if uniform and k <= _sufficient.TABLE_CLASSES:
        table = stats.counts if stats.survey is None else stats.positive.reshape(k, k)
        unit = 1.0 if stats.survey is None else stats.wmin  # equal weights: each is wmin
        wmat = resolve(weights, k, hint=hint)
        return _from_table(table, wmat, alternative, weights_name(weights), scale, unit)
    cells = stats_cells(stats, weights, hint=hint)
    model = CellKappa(cells.digits[0], cells.digits[1], cells.wmat)
    statistic = stats.kappa(weights, math.nan, hint=hint)
    return _test_result(
        model, cells.sample, statistic, alternative, weights_name(weights), scale, cells.table()
    )


def kappa_test(
    y1: ArrayLike,
    y2: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    alternative: Alternative = "two-sided",
    nan_policy: NanPolicy = "raise",
) -> KappaTestResult:
    """Weighted kappa with its standard errors, z-test and confidence intervals.

    Parameters
    ----------
    y1, y2 : array-like of shape (n_items,)
        Ratings of the same items by two raters, as in :func:`kappa_score`.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights; a matrix is indexed ``[rating of y1, rating of y2]`` and
        may be asymmetric.
    labels : array-like of shape (K,), default=None
        The ordered rating scale (see :func:`kappa_score`).
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative survey weight of each item. The rows are the sampling units: the
        variance is the sandwich form of eq. 5 and the bootstrap resamples rows with
        their weights. For frequencies — a table in long format, one row per cell with
        how many items fall in it — use ``counts`` instead.
    counts : array-like of shape (n_items,), default=None
        Non-negative whole numbers: each row stands for that many identical items.
        Exclusive with ``sample_weight``. Every number, intervals included, equals
        that of the repeated rows (n = Σ counts), computed without repeating them.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis of the z-test of κ = 0 (and sidedness of intervals).
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its item is
        left out, with its item weight. A test has no NaN result: ``"propagate"`` is refused
        (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    KappaTestResult
        ``statistic``, ``standard_error``, ``standard_error_null``, ``pvalue``,
        ``n_items``, ``.confidence_interval(...)`` and ``.summary()``.

    Warns
    -----
    UndefinedKappaWarning
        When kappa is 0/0 (both raters constant on one category): every number is nan.
    DegenerateIntervalWarning
        When the null standard error is zero (one rater constant): the p-value is nan.
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1):
        drop those items, or pass ``labels`` (docs/kappa.md, "Missing-value codes").

    Raises
    ------
    QwkitError, QwkitTypeError
        As :func:`kappa_score`, and for an unknown ``alternative``.

    See Also
    --------
    kappa_test_from_confusion : The same from a K×K table of counts.
    compare_kappa_test : Are two models' kappas on the same items different?

    Notes
    -----
    The standard error is the general large-sample formula of Fleiss, Cohen and
    Everitt (1969) for any weight matrix (eq. 2 of ``docs/inference.md``), computed
    as the variance of the influence function of each item (eq. 3), which is
    non-negative by construction. The null standard error (eq. 4) evaluates the same
    variance at independence with the observed margins; it is right for the test and
    wrong for an interval, which must be centred on the alternative. Only the
    categories that occur are tabulated, so a wide integer scale costs nothing.

    References
    ----------
    .. [1] J. L. Fleiss, J. Cohen and B. S. Everitt, "Large sample standard errors of
       kappa and weighted kappa", Psychological Bulletin 72(5):323-327, 1969.
    .. [2] B. Efron, "Better bootstrap confidence intervals", JASA 82:171-185, 1987.

    Examples
    --------
    R irr's ``kappa2(anxiety[, 1:2], "squared")`` prints Kappa = 0.297, z = 1.34,
    p-value = 0.18:

    >>> import qwkit
    >>> rater1 = [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3]
    >>> rater2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]
    >>> res = qwkit.kappa_test(rater1, rater2)
    >>> round(res.statistic, 6), round(res.statistic / res.standard_error_null, 6)
    (0.296765, 1.340499)
    >>> round(res.pvalue, 6)
    0.180083
    >>> low, high = res.confidence_interval()
    >>> round(low, 6), round(high, 6)
    (-0.010962, 0.604492)
    """
    alternative = check_alternative(alternative)
    pair = _sufficient.prepare_pair(
        y1,
        y2,
        weights=weights,
        labels=labels,
        sample_weight=sample_weight,
        counts=counts,
        nan_policy=nan_policy,
    )
    r, weights, iw = pair.ratings, pair.weights, pair.item_weights
    offset, k = measure_scale(r)
    check_codes(r)
    scale = scale_values(r, offset, k)
    hint = _sufficient.scale_hint(r.labels, offset, k)
    if (iw.counts or iw.uniform) and k <= _sufficient.TABLE_CLASSES:
        # One counting pass (numba) into the K×K table; equal weights change nothing.
        table = _sufficient.count_table(r, iw.as_float() if iw.counts else None, offset, k)
        table = table.astype(np.int64)  # counts: whole numbers (their total is < 2**53)
        unit = float(iw.values[0]) if iw.survey and iw.values.size else 1.0
        wmat = resolve(weights, k, hint=hint)
        return _from_table(table, wmat, alternative, weights_name(weights), scale, unit)
    cells = tabulate(r, iw, weights, hint=hint)
    model = CellKappa(cells.digits[0], cells.digits[1], cells.wmat)
    statistic = _sufficient.kappa(pair, math.nan)  # the value kappa_score returns
    return _test_result(
        model, cells.sample, statistic, alternative, weights_name(weights), scale, cells.table()
    )


def kappa_test_from_confusion(
    confusion: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    alternative: Alternative = "two-sided",
) -> KappaTestResult:
    """Weighted kappa with standard errors, test and intervals from a table of counts.

    Parameters
    ----------
    confusion : array-like of shape (K, K)
        Counts of items rated i by rater 1 (rows) and j by rater 2 (columns). Entries
        must be whole numbers: the standard errors depend on the number of items,
        which a table of summed weights does not carry.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, indexed like ``confusion``; may be asymmetric.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis of the z-test of κ = 0.

    Returns
    -------
    KappaTestResult
        As :func:`kappa_test`; ``n_items`` is the table total.

    Warns
    -----
    UndefinedKappaWarning
        When kappa is 0/0: every number is nan.

    Raises
    ------
    ValueError
        A non-square, negative, all-zero or non-integral table; a weight matrix of the
        wrong shape; an unknown ``alternative``.

    See Also
    --------
    kappa_test : The same from two rating vectors.

    Notes
    -----
    SAS PROC FREQ's "linear" (Cicchetti–Allison) agreement weights 1 − |i − j|/(K − 1)
    are our ``"linear"`` disagreement weights; its Fleiss–Cohen weights are our
    ``"quadratic"``. Kappa and both standard errors are unchanged by any positive
    rescaling of the weights and by the switch between agreement and disagreement
    weights (``docs/inference.md`` §2).

    Examples
    --------
    The SAS PROC FREQ printout reproduced in statsmodels' tests (unweighted kappa
    0.4842, ASE 0.1380, 95% limits 0.2137–0.7547, ASE under H0 0.1484, Z 3.2626):

    >>> import qwkit
    >>> table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    >>> res = qwkit.kappa_test_from_confusion(table, weights="identity")
    >>> round(res.statistic, 6), round(res.standard_error, 6)
    (0.484163, 0.138014)
    >>> round(res.standard_error_null, 6), round(res.statistic / res.standard_error_null, 6)
    (0.148398, 3.262591)
    >>> [round(x, 6) for x in res.confidence_interval(0.95)]
    [0.213661, 0.754665]
    >>> print(res.summary())  # doctest: +ELLIPSIS
    Simple Kappa Coefficient
    --------------------------------
    Kappa                         0.4842
    ASE                           0.1380
    95% Lower Conf Limit          0.2137
    95% Upper Conf Limit          0.7547
    ...
    """
    alternative = check_alternative(alternative)
    table = check_confusion(confusion)
    weights = check_weights(weights)
    if table.dtype.kind == "f":
        frac = table != np.floor(table)
        if frac.any():
            i, j = (int(x) for x in np.argwhere(frac)[0])
            raise QwkitError(
                "`confusion` must hold whole-number counts for inference (the standard "
                f"error depends on the number of items); got {table[i, j]} at [{i}, {j}]. "
                "For weighted items use `kappa_test(y1, y2, sample_weight=...)`.",
                parameter="confusion",
                row=i,
            )
    with np.errstate(over="ignore"):  # an overflowing float sum is inf: also too many
        total = table.astype(np.float64).sum()
    if not total < MAX_TOTAL_COUNT:
        raise QwkitError(
            "`confusion` totals 2**53 or more items; counts are not exact.",
            parameter="confusion",
        )
    k = table.shape[0]
    wmat = resolve(weights, k, scale=f"`confusion` of shape {table.shape}")
    return _from_table(
        table.astype(np.int64), wmat, alternative, weights_name(weights), np.arange(k)
    )
