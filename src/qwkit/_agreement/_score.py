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
from qwkit._agreement import _stats as _s
from qwkit._agreement._benchmark import BenchmarkResult, Scale, benchmark
from qwkit._agreement._light import Light
from qwkit._agreement._model import model_of
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._ratings import RatingsLike, RatingsTable, from_long
from qwkit._base._registry import COEFFICIENTS, Coefficient, CountsCoefficient, RaterWeightsName
from qwkit._base._results import labels_dict, public_module, result_dict
from qwkit._base._validation import check_alternative, check_replace_undefined_by
from qwkit._base._warnings import renamed_parameter, warn_undefined
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

Weights = RaterWeightsName


def _undefined(replace: float) -> float:
    return warn_undefined(
        replace,
        "every rating in one category, or every pair of categories that occur at zero disagreement",
    )


def statistic(prep: _in.Prepared) -> float:
    """The coefficient's value: the one computation behind every entry point —
    ``agreement_score``, ``agreement_test``, their ``_from_counts`` forms, the pairs of
    ``rater_agreement`` (Light's kappa) and the command line — so that each gives the
    same bits. The rows as they come, identical items merged only where that is cheap
    (``model_of(collapse="cheap")``), real-valued ratings one category each
    (``_input.per_rating``); the test's standard error and resamples read a model of
    merged rows, built for them."""
    return model_of(_in.per_rating(prep), collapse="cheap").value()


def _score(prep: _in.Prepared, replace) -> float:
    value = statistic(prep)
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
    n_items_rated_once : int
        Items with a single rating: they carry no pair, so no observed agreement, but
        count in the chance agreement of Fleiss', Conger's and Gwet's coefficients
        (``docs/agreement.md`` §7).
    n_items_dropped, n_raters_dropped : int
        Items and raters with no rating at all, left out (not in ``n_items``,
        ``n_raters``).
    n_pairs, n_pairs_left_out : int or None
        Light's kappa: the pairs of raters whose kappas it averages, and the pairs that
        share an item but are left out (a single common item, or every common rating in
        one category: no kappa). None for the other coefficients.
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
    n_items_rated_once: int = field(default=0, repr=False)
    n_items_dropped: int = field(default=0, repr=False)
    n_raters_dropped: int = field(default=0, repr=False)
    n_pairs: int | None = field(default=None, repr=False)
    n_pairs_left_out: int | None = field(default=None, repr=False)
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
        title = f"{COEFFICIENTS[self.coefficient].display} ({self.weights} weights)"
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
        if self.n_items_rated_once:
            lines.append(f"{'Items rated once':<28}{self.n_items_rated_once:>10d}")
        for label, value in (
            ("Items with no rating", self.n_items_dropped),
            ("Raters with no rating", self.n_raters_dropped),
        ):
            if value:
                lines.append(f"{label + ' (dropped)':<28}{value:>10d}")
        if self.n_pairs is not None:
            lines.append(f"{'Pairs of raters averaged':<28}{self.n_pairs:>10d}")
            if self.n_pairs_left_out:
                lines.append(f"{'Pairs left out':<28}{self.n_pairs_left_out:>10d}")
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
                "n_items_rated_once",
                "n_items_dropped",
                "n_raters_dropped",
                "n_pairs",
                "n_pairs_left_out",
            ),
            weights=self.weights,
            **labels_dict(self.labels),
        )


public_module(AgreementTestResult)


def _test(prep: _in.Prepared, alternative, n_population) -> AgreementTestResult:
    alternative = check_alternative(alternative)
    f = _in.check_n_population(n_population, prep.n_items)
    population = None if n_population is None else float(n_population)
    value = statistic(prep)  # first: its model is gone when the test's is built
    model = model_of(prep, collapse=True)
    count = model.count
    sample = Sample(counts=count, counts_sq=count, n_items=int(count.sum()))
    estimator = Estimator(sample=sample, batch=model.batch, leave_one_out=model.leave_one_out)
    weights = prep.weights

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
            n_items_rated_once=prep.n_items_rated_once,
            n_items_dropped=prep.n_items_dropped,
            n_raters_dropped=prep.n_raters_dropped,
            n_pairs=model.n_pairs if isinstance(model, Light) else None,
            n_pairs_left_out=model.n_all - model.n_pairs if isinstance(model, Light) else None,
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
        p = zero_se_pvalue(
            "standard error",
            "every item with the same agreement (all agree, or all disagree), or a single item",
            "t-test",
        )
    return result(float(value), se, p, se0)


# ---------------------------------------------------------------------------- public


def agreement_score(
    ratings: RatingsLike,
    *,
    coefficient: Coefficient,
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    replace_undefined_by: float = np.nan,
    nan_policy: NanPolicy = "omit",
) -> float:
    """Weighted agreement among any number of raters, with missing ratings.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        One row per item, one column per rater (numpy array, pandas or polars
        DataFrame, nested lists). Missing ratings are NaN or None. Numbers or text.
    coefficient : {"fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", \
"light", "percent", "scott", "cohen"}
        ``"fleiss"``: Fleiss' (1971) kappa, chance from the pooled ratings (eq. 6);
        ``"conger"``: Conger's (1980) kappa, chance from each rater's own
        distribution (eq. 17; = Cohen's kappa for two raters); ``"krippendorff"``:
        Krippendorff's alpha (eq. 14); ``"gwet"``: Gwet's AC1, AC2 with weights
        (eq. 7); ``"brennan-prediger"``: chance from a uniform distribution over the
        scale (eq. 9); ``"light"``: Light's (1971) mean of the pairwise Cohen kappas
        (eq. 19); ``"percent"``: the (weighted) percent agreement p_a itself (eq. 5),
        not corrected for chance; ``"scott"``: Scott's (1955) π of two raters, over
        the items both rated (Fleiss' kappa of two raters; eq. 12' for its standard
        error); ``"cohen"``: Cohen's (1960, 1968) weighted kappa of two raters, over
        the items both rated (Conger's kappa of two raters, eq. 17c; R irr's ``kappa2``,
        which drops the items with a missing rating).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar", \
"ordinal", "ratio"}, None or array-like of shape (K, K), default="quadratic"
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
    nan_policy : {"omit", "raise", "propagate"}, default="omit"
        A missing entry (NaN, None, ``pd.NA``; in a :class:`RatingsTable`, a rating not
        given) means "not rated": with ``"omit"`` the item counts with the ratings it has.
        ``"raise"`` asks for a complete table (every item rated by every rater);
        ``"propagate"`` makes the coefficient NaN when the table is not complete
        (``docs/getting-started.md``, "Missing values").

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
    if nan_rows(nan_policy, (ratings,), ("ratings",), kind="table").propagate:
        return float("nan")
    prep = _in.prepare_for_coefficient(ratings, coefficient, weights, labels, value_only=True)
    return _score(prep, check_replace_undefined_by(replace_undefined_by))


@renamed_parameter("counts", "table")
def agreement_from_counts(
    table: ArrayLike,
    *,
    coefficient: CountsCoefficient,
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    replace_undefined_by: float = np.nan,
) -> float:
    """Agreement from the items × categories table of counts (Fleiss 1971).

    Parameters
    ----------
    table : array-like of shape (n_items, K) or RatingsTable
        ``table[i, k]``: how many raters put item i in category k (the counts of
        Fleiss 1971). Items may have different numbers of ratings. A
        :class:`RatingsTable` gives the counts of its ratings. (Its old name,
        ``counts``, still works and is deprecated: ``counts`` is the multiplicity of a
        row everywhere else.)
    coefficient : {"fleiss", "krippendorff", "gwet", "brennan-prediger", "percent"}
        The coefficients that the count table determines (Conger's, Light's and
        Scott's need to know which rater gave which rating).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar", \
"ordinal", "ratio"}, None or array-like of shape (K, K), default="quadratic"
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
    ratings: RatingsLike,
    *,
    coefficient: Coefficient,
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    n_population: float | None = None,
    nan_policy: NanPolicy = "omit",
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
    nan_policy : {"omit", "raise"}, default="omit"
        A missing entry (NaN, None, ``pd.NA``; in a :class:`RatingsTable`, a rating not
        given) means "not rated": with ``"omit"`` the item counts with the ratings it has.
        ``"raise"`` asks for a complete table (every item rated by every rater). The result
        has no NaN form: ``"propagate"`` is refused (``docs/getting-started.md``, "Missing
        values").

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
        When the standard error is zero (every item with the same agreement, or a single
        item): the p-value is nan.
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
    nan_rows(nan_policy, (ratings,), ("ratings",), kind="table", allowed=RAISE_OR_OMIT)
    prep = _in.prepare_for_coefficient(ratings, coefficient, weights, labels)
    return _test(prep, alternative, n_population)


@renamed_parameter("counts", "table")
def agreement_test_from_counts(
    table: ArrayLike,
    *,
    coefficient: CountsCoefficient,
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


def ratings_from_long(
    items: ArrayLike,
    raters: ArrayLike,
    values: ArrayLike,
    *,
    duplicates: Literal["raise", "first", "last"] = "raise",
) -> RatingsTable:
    """Ratings in long format (one row per rating) as a sparse table.

    The table stores the ratings as they come, one entry per rating: every function of
    many raters takes it directly, at a cost in proportion to the number of ratings —
    never to items × raters, which for a crowd (thousands of raters, each rating a few
    of many items) is mostly empty.

    Parameters
    ----------
    items, raters : array-like of shape (n_ratings,)
        Which item and which rater each rating belongs to (numbers or strings).
    values : array-like of shape (n_ratings,)
        The ratings. A missing one (NaN, None) is no rating: its row is ignored (its
        item and rater are kept, and a statistic drops them if they have no rating).
    duplicates : {"raise", "first", "last"}, default="raise"
        What to do when a rater rated an item more than once (two rows with the same
        item and rater, both with a rating): ``"raise"`` an error naming both rows;
        keep the ``"first"`` of them in the order of the rows, or the ``"last"`` (a
        corrected rating). The table's ``n_duplicates`` says how many were left out.

    Returns
    -------
    RatingsTable
        ``items`` and ``raters`` (sorted), ``n_items``, ``n_raters``, ``n_ratings``,
        ``n_duplicates``; ``to_long()`` and ``to_wide()`` (the items × raters matrix).

    Raises
    ------
    ValueError
        When a rater rated an item twice (``duplicates="raise"``), the lengths differ, or
        ``items`` or ``raters`` hold NaN.

    Notes
    -----
    O(N) for N rows with numeric ids (one hashing pass, one counting sort by item),
    O(N log N) with text ids; integer ratings of any size stay exact.

    Examples
    --------
    >>> import qwkit
    >>> table = qwkit.ratings_from_long(["a", "a", "b", "b", "b", "b"],
    ...                                 ["r1", "r2", "r1", "r2", "r3", "r3"],
    ...                                 [1, 1, 2, 2, 1, 2], duplicates="last")
    >>> table
    RatingsTable(n_items=2, n_raters=3, n_ratings=5, n_duplicates=1)
    >>> table.to_wide()
    array([[ 1.,  1., nan],
           [ 2.,  2.,  2.]])
    >>> qwkit.agreement_score(table, coefficient="krippendorff")
    1.0
    """
    # three columns of one long table: rows paired by their index when they carry one
    items, raters, values = paired((items, raters, values), ("items", "raters", "values"))
    sparse, item_ids, rater_ids, dropped = from_long(items, raters, values, duplicates)
    return RatingsTable(items=item_ids, raters=rater_ids, n_duplicates=dropped, _sparse=sparse)
