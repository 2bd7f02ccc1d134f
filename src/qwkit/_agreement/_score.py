"""Weighted agreement among any number of raters, with standard errors.

``agreement_score`` and ``agreement_test`` read validate → compute → wrap: the input
module (``qwkit._agreement._input``) turns ratings or a count table into category codes
on an explicit scale; the metric of ``weights`` is built over the categories that occur
(``_metric`` below: a matrix, prefix sums, chunks, or three moments for squared
differences); a coefficient of ``qwkit._agreement._stats`` gives the value, Gwet's
variance, the bootstrap and the jackknife. Equation numbers are those of
``docs/agreement.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._agreement import _input as _in
from qwkit._agreement import _metrics as _m
from qwkit._agreement import _stats as _s
from qwkit._agreement._benchmark import BenchmarkResult, Scale, benchmark
from qwkit._agreement._input import RatingsTable
from qwkit._base._errors import QwkitError
from qwkit._base._results import labels_dict, public_module, result_dict
from qwkit._base._validation import check_alternative, check_replace_undefined_by
from qwkit._base._warnings import renamed_parameter, warn_undefined
from qwkit._base._weights import GWET_WEIGHTS, gwet_disagreement
from qwkit._table._cells import Sample
from qwkit._table._resampling import Estimator, Resampled, pvalue, zero_se_pvalue

__all__ = [
    "AgreementTestResult",
    "RatingsTable",
    "agreement_from_counts",
    "agreement_score",
    "agreement_test",
    "agreement_test_from_counts",
    "ratings_from_long",
]

Coefficient = Literal[
    "fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", "light", "percent", "scott"
]
Weights = Literal[
    "quadratic", "linear", "identity", "ordinal", "ratio", "radical", "circular", "bipolar"
]

_NAMES = {
    "fleiss": "Fleiss' kappa",
    "conger": "Conger's kappa",
    "krippendorff": "Krippendorff's alpha",
    "gwet": "Gwet's AC",
    "brennan-prediger": "Brennan-Prediger coefficient",
    "light": "Light's kappa",
    "percent": "Percent agreement",
    "scott": "Scott's pi",
}
#: The ratio metric's Σ over a scale of q categories costs O(q²): refused beyond this.
_RATIO_SCALE_MAX = 20_000
#: Gwet's named weights are a q × q matrix of the scale: refused beyond this many.
_GWET_SCALE_MAX = 2_048


# ---------------------------------------------------------------------------- compute


def _layout(prep: _in.Prepared, collapse):
    """(pooled codes, pooled counts, rater codes or None, row multiplicities).

    Identical rows are merged (``collapse=True``; ``"cheap"``: only when one integer
    key per row can be sorted, which is when rows repeat anyway)."""
    cheap = collapse == "cheap"
    if prep.table is not None:
        codes, mult = prep.table
        count = np.ones(codes.shape[0])
        if collapse:
            (codes, mult), count = _m.collapse(codes, mult, cheap_only=cheap)
            codes, mult = codes.astype(np.intp), mult.astype(np.float64)
        return codes, mult, None, count
    rcodes = prep.codes
    if prep.coefficient in _in.POOLED or prep.coefficient == "scott":
        count = np.ones(rcodes.shape[0])
        if collapse:
            # items rated alike by the same raters first (one cheap key per row), so that
            # only their distinct rows are compressed; then items alike once pooled
            (rcodes,), count = _m.collapse(rcodes, cheap_only=True)
        codes, mult = _m.compress_rows(rcodes)
        if collapse:
            (codes, mult), count = _m.collapse(codes, mult, cheap_only=cheap, counts=count)
            codes, mult = codes.astype(np.intp), mult.astype(np.float64)
        return codes, mult, None, count
    count = np.ones(rcodes.shape[0])
    if collapse:
        (rcodes,), count = _m.collapse(rcodes, cheap_only=cheap)
        rcodes = rcodes.astype(np.intp)
    codes, mult = _m.compress_rows(rcodes)
    return codes, mult, rcodes, count


def _pairable_frequencies(codes, mult, count, v):
    """How many pairable ratings (of items with two or more) each category holds."""
    two = mult.sum(axis=1) >= 2
    rows, cc, mm = _m.entries(codes, mult)
    return np.bincount(cc, weights=(mm * count[rows]) * two[rows], minlength=v)


def _metric(prep: _in.Prepared, freq: np.ndarray):
    """(metric, dmax, Σ over the q×q scale of d/dmax as a function) for ``prep.weights``."""
    weights, coords, scale, q = prep.weights, prep.coords, prep.scale, prep.scale.q
    v = coords.shape[0]
    if weights == "identity":
        return _m.Identity(v), 1.0, lambda: float(q * q - q)
    if weights == "custom":
        mat = prep.matrix
        top = float(mat.max())
        return _m.Matrix(mat[np.ix_(prep.index, prep.index)]), top, lambda: float(mat.sum()) / top
    if weights == "ordinal":
        return _ordinal_metric(prep, freq)
    if weights in GWET_WEIGHTS:
        return _gwet_metric(prep)
    # coordinates relative to the scale's start scale.lo (exact positions, never float64
    # copies of ratings such as 2**53 + 1): quadratic and linear metrics are
    # translation-invariant, and the ratio metric adds 2·lo to its sums only
    full = scale.coordinates() if scale.points is not None else None
    lo_full = float(full.min()) if full is not None else 0.0
    hi_full = float(full.max()) if full is not None else float(q - 1)
    span = hi_full - lo_full
    center = (coords.min() + coords.max()) / 2.0
    if weights == "quadratic":
        unit = float(coords.max() - coords.min()) or 1.0
        z = (coords - center) / unit

        def total():  # Σₖₗ (yₖ − yₗ)² / (max − min)² over the scale   (eq. 8)
            if full is None:
                return q * q * (q + 1.0) / (6.0 * (q - 1.0))
            c = full - full.mean()
            return 2.0 * (q * float(c @ c) - float(c.sum()) ** 2) / (span * span)

        return _m.Moments(z), (span / unit) ** 2, total
    if weights == "linear":
        metric = (
            _m.Matrix(np.abs(coords[:, None] - coords[None, :]))
            if v <= _m.TABLE_MAX
            else _m.Linear(coords - center)
        )

        def total():
            if full is None:
                return q * (q + 1.0) / 3.0
            k = np.arange(q, dtype=np.float64)
            return 2.0 * float(np.sort(full - lo_full) @ (2.0 * k - q + 1.0)) / span

        return metric, span, total
    # ratio: Krippendorff's ((yₖ − yₗ)/(yₖ + yₗ))², largest at the ends of the scale
    base = 2.0 * float(scale.lo)  # yₖ + yₗ = 2·lo + (relative coordinates)
    metric = (
        _m.Matrix(_m.Ratio._d(coords[:, None], coords[None, :], base))
        if v <= _m.TABLE_MAX
        else _m.Ratio(coords, base)
    )
    top = ((hi_full - lo_full) / (base + hi_full + lo_full)) ** 2

    def total():
        if q > _RATIO_SCALE_MAX:
            raise QwkitError(
                f"`weights`='ratio' with this coefficient sums the metric over all {q} "
                f"categories of the scale{scale.text} (O(q²)); pass `labels` with at most "
                f"{_RATIO_SCALE_MAX} categories.",
                parameter="weights",
            )
        ratio = _m.Ratio(scale.coordinates(), base)
        return float(ratio.apply(np.ones(q)).sum()) / top

    return metric, top, total


def _gwet_metric(prep: _in.Prepared):
    """Gwet's radical, circular or bipolar weights on the values of the scale (eq. 2d):
    a matrix over the categories that occur, the largest disagreement and the sum over
    the whole scale (O(q²): at most ``_GWET_SCALE_MAX`` categories)."""
    scale, weights = prep.scale, prep.weights
    if scale.q > _GWET_SCALE_MAX:
        raise QwkitError(
            f"`weights`={weights!r} is a matrix over the {scale.q} categories of the rating "
            f"scale{scale.text}; pass `labels` with at most {_GWET_SCALE_MAX} categories.",
            parameter="weights",
        )
    full = scale.coordinates()
    lo, hi = float(full.min()), float(full.max())
    whole = gwet_disagreement(weights, full, lo, hi)
    top = float(whole.max())
    mat = gwet_disagreement(weights, prep.coords, lo, hi)
    return _m.Matrix(mat), top, lambda: float(whole.sum()) / top


def _ordinal_metric(prep: _in.Prepared, freq: np.ndarray):
    """Krippendorff's ordinal metric: squared differences of mid-ranks (eq. 2c)."""
    q, index = prep.scale.q, prep.index
    big_n = float(freq.sum())
    cum = np.cumsum(freq)
    mid = cum - freq / 2.0  # mid-rank of each category that occurs
    first = freq[0] / 2.0 if index[0] == 0 else 0.0
    last = big_n - freq[-1] / 2.0 if index[-1] == q - 1 else big_n
    center = (mid.min() + mid.max()) / 2.0
    unit = float(mid.max() - mid.min()) or 1.0
    z = (mid - center) / unit
    span = last - first

    def total():
        # every category of the scale, the ones that never occur in runs of equal rank
        gaps = np.diff(index).astype(np.float64) - 1.0
        values = np.concatenate([[0.0], mid, cum[:-1], [big_n]])
        counts = np.concatenate([[float(index[0])], np.ones(mid.size), gaps, [q - 1.0 - index[-1]]])
        mean = float(counts @ values) / q
        c = values - mean
        return 2.0 * q * float(counts @ (c * c)) / (span * span)

    return _m.Moments(z), (span / unit) ** 2, total


def _model(prep: _in.Prepared, collapse):
    codes, mult, rcodes, count = _layout(prep, collapse)
    v = prep.coords.shape[0]
    freq = _pairable_frequencies(codes, mult, count, v) if prep.weights == "ordinal" else None
    metric, dmax, total = _metric(prep, freq)
    if collapse == "cheap" and metric.vector:  # a value alone: small designs dense
        metric.dense_cells = _m.DENSE_MAX
    name = prep.coefficient
    q = prep.scale.q
    if name == "fleiss":
        return _s.Fleiss(codes, mult, count, metric, dmax)
    if name == "scott":
        return _s.Scott(codes, mult, count, metric, dmax)
    if name == "percent":  # p_a itself: Brennan-Prediger's form with p_e = 0   (eq. 5)
        return _s.BrennanPrediger(codes, mult, count, metric, dmax, 0.0, q)
    if name == "krippendorff":
        return _s.Krippendorff(codes, mult, count, metric, dmax)
    if name == "gwet":
        return _s.Gwet(codes, mult, count, metric, dmax, q * q - total(), q, v)
    if name == "brennan-prediger":
        return _s.BrennanPrediger(codes, mult, count, metric, dmax, q * q - total(), q)
    if name == "conger":
        return _s.Conger(rcodes, count, metric, dmax)
    return _s.Light(rcodes, count, metric, dmax)


def _undefined(replace: float) -> float:
    return warn_undefined(
        replace,
        "every rating in one category, or every pair of categories that occur at zero disagreement",
    )


def _score(prep: _in.Prepared, replace) -> float:
    value = _model(prep, collapse="cheap").value()
    if math.isnan(value):
        return _undefined(replace)
    return value


# ---------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True, eq=False)
class AgreementTestResult(Resampled):
    """Result of :func:`agreement_test` and :func:`agreement_test_from_counts`.

    Attributes
    ----------
    statistic : float
        The agreement coefficient.
    standard_error : float
        Gwet's (2014) linearization standard error (eqs. 10–21 of
        ``docs/agreement.md``), as R irrCAC computes it, with the finite-population
        correction when ``n_population`` was given.
    pvalue : float
        p-value of the test of no agreement beyond chance (coefficient = 0),
        t = statistic / standard_error on ``n_items − 1`` degrees of freedom, against
        the ``alternative``. R irrCAC prints the ``alternative="greater"`` value.
    n_items : int
        Number of rated items (rows with at least one rating).
    n_raters : int
        Number of raters (columns with at least one rating); for a count table, the
        largest number of ratings of one item.
    coefficient : str
        Which coefficient.
    weights : str
        ``"quadratic"``, ``"linear"``, ``"identity"``, ``"ordinal"``, ``"ratio"`` or
        ``"custom"``.
    standard_error_null : float
        Standard error under no agreement beyond chance where a closed form exists:
        Fleiss' kappa with identity weights and as many ratings of every item
        (Fleiss, Nee & Landis 1979, eq. 13; the z of R irr's ``kappam.fleiss``); nan
        otherwise. Informational: ``pvalue`` uses ``standard_error``.
    labels : ndarray of shape (K,)
        The rating scale the coefficient was computed on (for an integer scale wider
        than 10,000 categories, a ``range``).
    """

    statistic: float
    standard_error: float
    pvalue: float
    n_items: int
    n_raters: int
    coefficient: str
    weights: str
    standard_error_null: float = field(repr=False)
    alternative: str = field(repr=False)
    n_population: float | None = field(repr=False)
    labels: np.ndarray | range = field(repr=False)
    _estimator: Estimator = field(repr=False)
    _upper_bound = 1.0  # no agreement coefficient exceeds 1

    @property
    def degrees_of_freedom(self) -> int:
        """n_items − 1: the degrees of freedom of the t-test and the Wald intervals."""
        return self.n_items - 1

    @property
    def _n_units(self) -> int:
        return self.n_items

    @property
    def _df(self) -> float:
        # R irrCAC's intervals: statistic ± t(1 − α/2, n − 1)·SE
        return float(max(self.degrees_of_freedom, 1))

    def summary(self, confidence_level: float = 0.95) -> str:
        """A text block: the coefficient, its standard error, its limits at
        ``confidence_level`` (Student's t; one-sided with a one-sided ``alternative``)
        and the t-test's p-value for the ``alternative``."""
        title = f"{_NAMES[self.coefficient]} ({self.weights} weights)"
        df = self.degrees_of_freedom
        se = self.standard_error
        low, high = self._limits(confidence_level)
        t = self.statistic / se if se > 0 else math.nan
        sided = "Two-sided p" if self.alternative == "two-sided" else f"p ({self.alternative})"
        level = f"{100 * confidence_level:g}%"
        lines = [
            title,
            "-" * max(36, len(title)),
            f"{'Coefficient':<28}{self.statistic:>10.4f}",
            f"{'Standard error':<28}{se:>10.4f}",
            f"{level + ' lower limit':<28}{low:>10.4f}",
            f"{level + ' upper limit':<28}{high:>10.4f}",
            f"{'t (' + str(df) + ' df)':<28}{t:>10.4f}",
            f"{sided:<28}{self.pvalue:>10.4g}",
            "",
            f"{'Items':<28}{self.n_items:>10d}",
            f"{'Raters':<28}{self.n_raters:>10d}",
        ]
        return "\n".join(lines) + "\n"

    def benchmark(
        self,
        scale: Scale = "landis-koch",
        *,
        method: Literal["probabilistic", "interval"] = "probabilistic",
        confidence_level: float = 0.95,
    ) -> BenchmarkResult:
        """The coefficient's interpretation on a benchmark scale.

        Parameters
        ----------
        scale : {"landis-koch", "fleiss", "altman"}, default="landis-koch"
            Landis & Koch (1977): Poor < 0 ≤ Slight < 0.2 ≤ Fair < 0.4 ≤ Moderate < 0.6
            ≤ Substantial < 0.8 ≤ Almost Perfect; Fleiss (1981): Poor < 0.4 ≤
            Intermediate to Good < 0.75 ≤ Excellent; Altman (1991): Poor < 0.2 ≤ Fair <
            0.4 ≤ Moderate < 0.6 ≤ Good < 0.8 ≤ Very Good.
        method : {"probabilistic", "interval"}, default="probabilistic"
            ``"probabilistic"``: Gwet's (2014) benchmarking — the first interval from
            the top whose cumulative membership probability (normal, with the standard
            error, truncated to [−1, 1]) reaches ``confidence_level`` (eq. B1; R
            irrCAC's ``landis.koch.bf`` and the like); ``"interval"``: the interval the
            estimate falls in.
        confidence_level : float, default=0.95
            The certainty the probabilistic benchmark asks for.

        Returns
        -------
        BenchmarkResult
            ``label`` (also its ``str()``), the interval's ``low`` and ``high``, each
            interval's ``probability`` and their ``cumulative`` sums.

        Examples
        --------
        >>> import numpy as np, qwkit
        >>> nan = np.nan
        >>> ratings = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3],
        ...            [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1],
        ...            [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]]
        >>> res = qwkit.agreement_test(ratings, coefficient="gwet", weights=None)
        >>> str(res.benchmark(method="interval")), str(res.benchmark())
        ('Substantial', 'Moderate')
        """
        return benchmark(
            self.statistic,
            self.standard_error,
            scale=scale,
            method=method,
            confidence_level=confidence_level,
        )

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values (floats, ints, str, lists)."""
        return result_dict(
            self,
            (
                "coefficient",
                "statistic",
                "standard_error",
                "standard_error_null",
                "pvalue",
                "alternative",
                "degrees_of_freedom",
                "n_items",
                "n_raters",
                "n_population",
            ),
            weights=self.weights,
            **labels_dict(self.labels),
        )


public_module(AgreementTestResult, RatingsTable)


def _test(prep: _in.Prepared, alternative, n_population) -> AgreementTestResult:
    alternative = check_alternative(alternative)
    f = _in.check_n_population(n_population, prep.n_items)
    population = None if n_population is None else float(n_population)
    model = _model(prep, collapse=True)
    count = model.count
    sample = Sample(counts=count, counts_sq=count, n_items=int(count.sum()))
    estimator = Estimator(sample=sample, batch=model.batch, leave_one_out=model.leave_one_out)
    weights = prep.weights
    value = model.value()

    def result(stat, se, pvalue, se0):
        return AgreementTestResult(
            statistic=stat,
            standard_error=se,
            pvalue=pvalue,
            n_items=prep.n_items,
            n_raters=prep.n_raters,
            coefficient=prep.coefficient,
            weights=weights,
            standard_error_null=se0,
            alternative=alternative,
            n_population=population,
            labels=prep.scale.labels,
            _estimator=estimator,
        )

    if math.isnan(value):
        _undefined(math.nan)
        return result(math.nan, math.nan, math.nan, math.nan)
    var = model.variance(f)
    se = math.sqrt(var) if var >= 0 else math.nan
    se0 = math.nan
    if isinstance(model, _s.Fleiss):
        var0 = model.null_variance()
        se0 = math.sqrt(var0) if var0 >= 0 else math.nan
    df = prep.n_items - 1
    if se > 0 and df >= 1:
        p = pvalue(value / se, alternative, df)  # t on n − 1 degrees of freedom, as irrCAC
    else:
        p = zero_se_pvalue("standard error", "perfect agreement, or a single item", "t-test")
    return result(float(value), se, p, se0)


# ---------------------------------------------------------------------------- public


def agreement_score(
    ratings: ArrayLike,
    *,
    coefficient: Coefficient,
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    replace_undefined_by: float = np.nan,
) -> float:
    """Weighted agreement among any number of raters, with missing ratings.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        One row per item, one column per rater (numpy array, pandas or polars
        DataFrame, nested lists). Missing ratings are NaN or None. Numbers or text.
    coefficient : {"fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", \
"light", "percent", "scott"}
        ``"fleiss"``: Fleiss' (1971) kappa, chance from the pooled ratings (eq. 6);
        ``"conger"``: Conger's (1980) kappa, chance from each rater's own
        distribution (eq. 17; = Cohen's kappa for two raters); ``"krippendorff"``:
        Krippendorff's alpha (eq. 14); ``"gwet"``: Gwet's AC1, AC2 with weights
        (eq. 7); ``"brennan-prediger"``: chance from a uniform distribution over the
        scale (eq. 9); ``"light"``: Light's (1971) mean of the pairwise Cohen kappas
        (eq. 19); ``"percent"``: the (weighted) percent agreement p_a itself (eq. 5),
        not corrected for chance; ``"scott"``: Scott's (1955) π of two raters, over
        the items both rated (Fleiss' kappa of two raters; eq. 12' for its standard
        error).
    weights : {"quadratic", "linear", "identity", "ordinal", "ratio", "radical", \
"circular", "bipolar"}, None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, as in :func:`kappa_score`: positions on the ``labels``
        scale (or the values of numeric ratings without ``labels``); Gwet's radical,
        circular and bipolar weights are eq. 2d. ``"ordinal"``
        and ``"ratio"`` are Krippendorff's metrics. A matrix must be symmetric with a
        zero diagonal. For real-valued ratings ``"quadratic"`` is the squared
        difference of the values (Krippendorff's interval metric), computed from
        moments, never from a table.
    labels : array-like of shape (K,), default=None
        The ordered rating scale. Without it: every integer from the smallest to the
        largest rating for integer ratings; the distinct values for real-valued ones;
        the declared order of ordered categorical columns; text needs ``labels``
        unless ``weights="identity"``.
    replace_undefined_by : float, default=nan
        Returned (with an :class:`UndefinedKappaWarning`) when the coefficient is
        undefined (zero chance-expected disagreement).

    Returns
    -------
    float

    Warns
    -----
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1), or
        — for Gwet's and Brennan–Prediger's coefficients, which count the categories —
        when at most half of a wide inferred scale occurs: drop the codes, or pass
        ``labels`` (docs/agreement.md, "Missing-value codes").

    Raises
    ------
    ValueError, TypeError
        For ratings that are not 2-D, hold no item with two ratings, mix text and
        numbers, fall outside ``labels``, a scale of a single category, text with
        ordered weights and no ``labels``, an unknown ``coefficient`` or ``weights``.

    See Also
    --------
    agreement_test : The same with standard errors, a test and intervals.
    agreement_from_counts : From the items × categories table of counts.
    ratings_from_long : Long format (item, rater, rating) to this layout.

    Notes
    -----
    Items with fewer than two ratings carry no pair: they are left out of the
    observed agreement of every coefficient and of Krippendorff's alpha entirely,
    but count in the chance agreement of Fleiss', Conger's and Gwet's coefficients
    (as in R irrCAC). Light's kappa uses, for each pair of raters, the items both
    rated. Gwet's and Brennan–Prediger's coefficients depend on the number of
    categories q of the scale: for integer ratings without ``labels`` every integer
    between the extremes counts, where R irrCAC counts only the values that occur —
    pass ``labels`` to choose. ``docs/agreement.md`` has every formula.

    References
    ----------
    .. [1] J. L. Fleiss, "Measuring nominal scale agreement among many raters",
       Psychological Bulletin 76(5):378-382, 1971.
    .. [2] K. Krippendorff, "Computing Krippendorff's alpha-reliability", 2011.
    .. [3] K. L. Gwet, *Handbook of Inter-Rater Reliability*, 4th ed., 2014.

    Examples
    --------
    Krippendorff's (2011) example, four coders and twelve units, with missing
    values (α = 0.743 nominal, 0.849 interval):

    >>> import numpy as np
    >>> import qwkit
    >>> nan = np.nan
    >>> ratings = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3],
    ...            [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1],
    ...            [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> round(qwkit.agreement_score(ratings, coefficient="krippendorff",
    ...                             weights="identity"), 6)
    0.743421
    >>> round(qwkit.agreement_score(ratings, coefficient="krippendorff"), 6)
    0.849107
    """
    prep = _in.prepare_ratings(ratings, coefficient, weights, labels, value_only=True)
    return _score(prep, check_replace_undefined_by(replace_undefined_by))


@renamed_parameter("counts", "table")
def agreement_from_counts(
    table: ArrayLike,
    *,
    coefficient: Literal["fleiss", "krippendorff", "gwet", "brennan-prediger", "percent"],
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    replace_undefined_by: float = np.nan,
) -> float:
    """Agreement from the items × categories table of counts (Fleiss 1971).

    Parameters
    ----------
    table : array-like of shape (n_items, K)
        ``table[i, k]``: how many raters put item i in category k (the counts of
        Fleiss 1971). Items may have different numbers of ratings. (Its old name,
        ``counts``, still works and is deprecated: ``counts`` is the multiplicity of a
        row everywhere else.)
    coefficient : {"fleiss", "krippendorff", "gwet", "brennan-prediger", "percent"}
        The coefficients that the count table determines (Conger's, Light's and
        Scott's need to know which rater gave which rating).
    weights : {"quadratic", "linear", "identity", "ordinal", "ratio", "radical", \
"circular", "bipolar"}, None or array-like of shape (K, K), default="quadratic"
        As in :func:`agreement_score`; the columns are the scale, in order.
    labels : array-like of shape (K,), default=None
        The categories of the columns; without them the columns are 1, …, K (the
        values the ``"ratio"`` metric uses).
    replace_undefined_by : float, default=nan
        Returned when the coefficient is undefined.

    Returns
    -------
    float

    Examples
    --------
    R irrCAC's ``distrib.6raters`` (six psychiatrists, 15 patients, five diagnoses);
    its ``fleiss.kappa.dist`` prints 0.4139265 and ``gwet.ac1.dist`` 0.4448007:

    >>> import qwkit
    >>> table = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6],
    ...           [0, 3, 0, 3, 0], [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0],
    ...           [2, 0, 0, 4, 0], [0, 0, 0, 0, 6], [1, 0, 0, 5, 0], [1, 1, 0, 4, 0],
    ...           [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
    >>> round(qwkit.agreement_from_counts(table, coefficient="fleiss", weights=None), 7)
    0.4139265
    >>> round(qwkit.agreement_from_counts(table, coefficient="gwet", weights=None), 7)
    0.4448007
    """
    prep = _in.prepare_counts(table, coefficient, weights, labels)
    return _score(prep, check_replace_undefined_by(replace_undefined_by))


def agreement_test(
    ratings: ArrayLike,
    *,
    coefficient: Coefficient,
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    n_population: float | None = None,
) -> AgreementTestResult:
    """Agreement among any number of raters with its standard error, test and intervals.

    Parameters
    ----------
    ratings, coefficient, weights, labels
        As in :func:`agreement_score`.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis of the t-test of no agreement beyond chance (and the
        sidedness of intervals).
    n_population : float, default=None
        Size N of the population of items the rated ones were drawn from: the
        variance is multiplied by 1 − n/N (R irrCAC's ``N``). None: infinite.

    Returns
    -------
    AgreementTestResult
        ``statistic``, ``standard_error``, ``pvalue``, ``n_items``, ``n_raters``,
        ``.confidence_interval(...)``, ``.summary()``, ``.to_dict()``.

    Warns
    -----
    UndefinedKappaWarning
        When the coefficient is undefined: every number is nan.
    RuntimeWarning
        When the standard error is zero (perfect agreement): the p-value is nan.
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1), or
        — for Gwet's and Brennan–Prediger's coefficients, which count the categories —
        when at most half of a wide inferred scale occurs: drop the codes, or pass
        ``labels`` (docs/agreement.md, "Missing-value codes").

    Notes
    -----
    The standard error is Gwet's (2014) linearization variance (R irrCAC's
    ``*.raw`` functions), a sum of squares over items of each item's linearized
    contribution (eq. 10); for Light's kappa, which irrCAC lacks, the same
    construction on the mean of the pairwise kappas (eq. 21). Tests and intervals
    use Student's t with n − 1 degrees of freedom, as Gwet and irrCAC do.

    Examples
    --------
    R irrCAC (README of kgwet/irrCAC) prints for its ``cac.raw4raters`` data —
    Krippendorff's (2011) example — Fleiss' kappa 0.76117, standard error 0.15302,
    p-value 0.0002095865 (one-sided):

    >>> import numpy as np
    >>> import qwkit
    >>> nan = np.nan
    >>> ratings = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3],
    ...            [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1],
    ...            [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> res = qwkit.agreement_test(ratings, coefficient="fleiss", weights="identity")
    >>> round(res.statistic, 5), round(res.standard_error, 5)
    (0.76117, 0.15302)
    >>> [round(x, 3) for x in res.confidence_interval()]  # irrCAC prints (0.424,1)
    [0.424, 1.0]
    >>> one_sided = qwkit.agreement_test(ratings, coefficient="fleiss", weights="identity",
    ...                                  alternative="greater")
    >>> float(f"{one_sided.pvalue:.7g}")
    0.0002095865
    """
    prep = _in.prepare_ratings(ratings, coefficient, weights, labels)
    return _test(prep, alternative, n_population)


@renamed_parameter("counts", "table")
def agreement_test_from_counts(
    table: ArrayLike,
    *,
    coefficient: Literal["fleiss", "krippendorff", "gwet", "brennan-prediger", "percent"],
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    n_population: float | None = None,
) -> AgreementTestResult:
    """:func:`agreement_test` from the items × categories table of counts.

    Parameters are those of :func:`agreement_from_counts` and :func:`agreement_test`.
    ``n_raters`` of the result is the largest number of ratings of one item.

    Examples
    --------
    R irrCAC's ``gwet.ac1.dist(distrib.6raters)`` prints AC1 0.4448007, standard
    error 0.08418757, p-value 5.779637e-05 (one-sided):

    >>> import qwkit
    >>> table = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6],
    ...           [0, 3, 0, 3, 0], [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0],
    ...           [2, 0, 0, 4, 0], [0, 0, 0, 0, 6], [1, 0, 0, 5, 0], [1, 1, 0, 4, 0],
    ...           [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
    >>> res = qwkit.agreement_test_from_counts(table, coefficient="gwet", weights=None,
    ...                                        alternative="greater")
    >>> round(res.statistic, 7), round(res.standard_error, 8), float(f"{res.pvalue:.7g}")
    (0.4448007, 0.08418757, 5.779637e-05)
    """
    prep = _in.prepare_counts(table, coefficient, weights, labels)
    return _test(prep, alternative, n_population)


def ratings_from_long(items: ArrayLike, raters: ArrayLike, values: ArrayLike) -> RatingsTable:
    """Ratings in long format (one row per rating) → the items × raters layout.

    Parameters
    ----------
    items, raters : array-like of shape (n_ratings,)
        Which item and which rater each rating belongs to (any hashable-by-value
        numbers or strings).
    values : array-like of shape (n_ratings,)
        The ratings (missing ones as NaN or None are allowed and stay missing).

    Returns
    -------
    RatingsTable
        ``(ratings, items, raters)``: ``ratings`` of shape (n_items, n_raters), float
        with NaN for numbers, object with None for text and for integers beyond
        ±2**53 (which float64 would round: they stay Python integers); ``items`` and
        ``raters`` in sorted order label its rows and columns.

    Raises
    ------
    ValueError
        When a rater rated an item twice, or the lengths differ.

    Examples
    --------
    >>> import qwkit
    >>> table = qwkit.ratings_from_long(["a", "a", "b", "b", "b"],
    ...                                 ["r1", "r2", "r1", "r2", "r3"],
    ...                                 [1, 2, 2, 2, 3])
    >>> table.ratings
    array([[ 1.,  2., nan],
           [ 2.,  2.,  3.]])
    >>> table.raters.tolist()
    ['r1', 'r2', 'r3']
    """
    return _in.ratings_table(items, raters, values)
