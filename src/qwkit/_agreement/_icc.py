"""Intraclass correlations: the six forms of McGraw & Wong (1996), with F tests and
exact intervals, complete or with missing ratings.

``icc`` reads validate → compute → wrap. With every item rated by every rater the
ICCs, tests and intervals are closed forms of the two-way ANOVA mean squares, computed
from per-item moments in one compiled pass (``_kernels.complete_moments``); with missing
ratings the variance components are REML estimates and the tests and intervals come from
``_icc_missing``. Equation numbers are those of ``docs/agreement.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import special

from qwkit import _kernels
from qwkit._agreement import _input as _in
from qwkit._agreement._icc_missing import MissingFit, agreement_interval, fit_missing
from qwkit._base._errors import QwkitError
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._ratings import RatingsLike
from qwkit._base._registry import ICC_FORMS, ICCForm
from qwkit._base._results import public_module, result_dict
from qwkit._base._validation import check_choice, check_confidence_level, check_interval_method
from qwkit._table._resampling import ConfidenceInterval

__all__ = ["FORMS", "ICCResult", "icc"]

#: McGraw & Wong's (1996) forms, in Shrout & Fleiss's (1979) order (the records of the
#: registry, ``_base._registry.ICC_FORMS``).
FORMS = ICC_FORMS.names


#: Shrout & Fleiss's names as users write them — ICC(2,1), ICC2, ICC2k (pingouin's) —
#: after "ICC", brackets and commas are removed: for the error that names the form.
_SF_WRITTEN = {"1": "1,1", "11": "1,1", "2": "A,1", "21": "A,1", "3": "C,1", "31": "C,1",
               "1K": "1,k", "2K": "A,k", "3K": "C,k"}  # fmt: skip


def _check_form(form) -> str:
    """One of :data:`FORMS` (letters in either case, spaces and the comma optional:
    ``"a1"``, the command line's ``icc-A1`` without its prefix); a Shrout–Fleiss or pingouin
    name (``"ICC(2,1)"``, ``"2,1"``, ``"ICC2k"``) is refused with the form it means."""
    if isinstance(form, str):
        key = form.replace(" ", "")
        for f in FORMS:
            if key.lower() in (f.lower(), f.lower().replace(",", "")):
                return f
        written = key.upper()
        bare = written[3:] if written.startswith("ICC") else written
        if bare[:1] in "(23" or written.startswith("ICC"):
            meant = _SF_WRITTEN.get(bare.strip("()").replace(",", ""))
            if meant is not None:
                raise QwkitError(
                    f"`form` takes McGraw & Wong's names {', '.join(map(repr, FORMS))}; got "
                    f"{form!r}, which is Shrout & Fleiss's {ICC_FORMS[meant].shrout_fleiss}: "
                    f"form={meant!r}.",
                    parameter="form",
                )
    return check_choice(form, "form", FORMS)


@dataclass(frozen=True)
class _MeanSquares:
    """The two-way ANOVA mean squares (or their REML equivalents, eq. I9)."""

    items: float  # MSR (McGraw & Wong), MSB (Shrout & Fleiss)
    raters: float  # MSC, MSJ
    error: float  # MSE
    within: float  # MSW (one-way)
    n: int
    k: int

    def icc(self, form: str) -> float:
        """The ICC of ``form`` (eqs. I4a–I4f)."""
        return _ICC[form](self)


#: Each form of the registry bound to its ratio of mean squares.
_ICC = ICC_FORMS.bind(
    {
        "1,1": lambda m: (m.items - m.within) / (m.items + (m.k - 1) * m.within),  # (eq. I4a)
        "A,1": lambda m: (
            (m.items - m.error) / (m.items + (m.k - 1) * m.error + m.k * (m.raters - m.error) / m.n)
        ),  # (eq. I4b)
        "C,1": lambda m: (m.items - m.error) / (m.items + (m.k - 1) * m.error),  # (eq. I4c)
        "1,k": lambda m: (m.items - m.within) / m.items,  # (eq. I4d)
        "A,k": lambda m: (m.items - m.error) / (m.items + (m.raters - m.error) / m.n),  # (eq. I4e)
        "C,k": lambda m: (m.items - m.error) / m.items,  # (eq. I4f)
    }
)


def _spearman_brown(rho: float, k: float) -> float:
    """The reliability of the mean of k ratings from that of one (eq. I3)."""
    den = 1.0 + (k - 1.0) * rho
    if den == 0.0:
        return -math.inf
    return k * rho / den


def _average_limits(low: float, high: float, k: int) -> tuple[float, float]:
    """The ",k" limits from the ",1" limits (eq. I3). Spearman–Brown increases on
    ρ > −1/(k − 1), from −∞ at that pole to 1: a single-rater limit at or below the pole
    maps to −∞ (mapped across the pole, as psych and pingouin do, it gave a lower limit
    above the upper one)."""
    pole = -1.0 / (k - 1.0)
    return tuple(-math.inf if x <= pole else _spearman_brown(x, k) for x in (low, high))


def _ratio_limits(f: float, d1: float, d2: float, k: int, level: float):
    """Single-rater limits from an F ratio with (d1, d2) degrees of freedom: McGraw &
    Wong's cases 1 and 3 (eq. I5)."""
    if math.isinf(f):  # no error variance: every interval is the point 1
        return 1.0, 1.0
    alpha = 1.0 - level
    f_low = f / float(special.fdtri(d1, d2, 1.0 - alpha / 2.0))
    f_high = f * float(special.fdtri(d2, d1, 1.0 - alpha / 2.0))
    return (f_low - 1.0) / (f_low + k - 1.0), (f_high - 1.0) / (f_high + k - 1.0)


def _safe(num: float, den: float) -> float:
    if den == 0.0:
        return math.inf if num > 0 else (-math.inf if num < 0 else math.nan)
    return num / den


@dataclass(frozen=True)
class _AnovaLimits:
    """The F-based limits of complete data (eq. I5), at any level."""

    form: str
    ms: _MeanSquares
    f: float
    d1: float
    d2: float

    def __call__(self, level: float) -> tuple[float, float]:
        ms, k = self.ms, self.ms.k
        if self.form[0] == "A":
            n = ms.n
            low, high = agreement_interval(
                ms.items, ms.raters, ms.error, k, n, ms.icc("A,1"), n - 1, k - 1, self.d2, level
            )
        else:
            low, high = _ratio_limits(self.f, self.d1, self.d2, k, level)
        if self.form.endswith("k"):
            return _average_limits(low, high, k)
        return low, high


@dataclass(frozen=True)
class _RemlLimits:
    """The limits with missing ratings (eqs. I12–I13), at any level."""

    form: str
    k: int
    fit: MissingFit

    def __call__(self, level: float) -> tuple[float, float]:
        if self.form[0] == "A":
            low, high = self.fit.agreement_limits(level)
        else:
            low, high = self.fit.ratio_limits(self.form[0] == "1", level)
        if self.form.endswith("k"):
            return _average_limits(low, high, self.k)
        return low, high


# ---------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True, eq=False)
class ICCResult:
    """Result of :func:`icc`.

    Attributes
    ----------
    statistic : float
        The intraclass correlation of ``form``.
    pvalue : float
        p-value of the F test of no item variance (ICC = 0) against larger values:
        ``f_statistic`` on (``df1``, ``df2``) degrees of freedom, exact under the
        normal model (eq. I10).
    f_statistic, df1, df2 : float
        The F ratio of that test and its degrees of freedom.
    form : str
        McGraw & Wong's (1996) form: ``"1,1"``, ``"A,1"``, ``"C,1"``, ``"1,k"``,
        ``"A,k"`` or ``"C,k"``.
    variance_items, variance_raters, variance_error : float
        The variance components of the two-way random model (eq. I6): items (the
        "true score"), raters (their systematic differences) and error. ANOVA estimates
        with complete data (negative when a mean square falls below the error's), REML
        estimates (≥ 0) with missing ratings.
    n_items, n_raters, n_ratings : int
        Items and raters with at least one rating; ratings.
    method : str
        ``"anova"`` (every item rated by every rater) or ``"reml"`` (missing ratings).
    confidence_level : float
        The level of :meth:`confidence_interval` and :meth:`summary` when they are
        given none.
    """

    statistic: float
    pvalue: float
    f_statistic: float
    df1: float
    df2: float
    form: str
    variance_items: float
    variance_raters: float
    variance_error: float
    n_items: int
    n_raters: int
    n_ratings: int
    method: str
    confidence_level: float = field(repr=False)
    _limits: Callable[[float], tuple[float, float]] = field(repr=False)

    def confidence_interval(
        self, confidence_level: float | None = None, *, method: Literal["f"] = "f"
    ) -> ConfidenceInterval:
        """Confidence interval for the ICC from the F distribution.

        Parameters
        ----------
        confidence_level : float, default=None
            Strictly between 0 and 1; None: the ``confidence_level`` given to
            :func:`icc`.
        method : {"f"}, default="f"
            F-based limits (eq. I5): exact for the one-way and consistency forms,
            Satterthwaite's approximation (McGraw & Wong 1996) for the agreement forms;
            with missing ratings Wald's (1940) exact limits and the same approximation
            on Henderson's mean squares (eqs. I12–I13).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; an average-rater form's limits are the single-rater
            form's through eq. I3.
        """
        check_interval_method(method, "f", "icc")
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = self._limits(check_confidence_level(level))
        return ConfidenceInterval(float(low), float(high))

    def summary(self, confidence_level: float | None = None) -> str:
        """A text block: the ICC, its interval, the F test and the variance components."""
        level = self.confidence_level if confidence_level is None else confidence_level
        low, high = self.confidence_interval(level)
        record = ICC_FORMS[self.form]
        unit = record.unit.replace(" k ", f" {self.n_raters} ")
        title = f"{record.display} = Shrout-Fleiss {record.shrout_fleiss}: {record.model}, {unit}"
        pct = f"{100 * check_confidence_level(level):g}%"
        lines = [
            title,
            "-" * len(title),
            f"{'ICC':<28}{self.statistic:>10.4f}",
            f"{pct + ' lower limit':<28}{low:>10.4f}",
            f"{pct + ' upper limit':<28}{high:>10.4f}",
            f"{'F':<28}{self.f_statistic:>10.4f}",
            f"{'df1, df2':<28}{self.df1:>10.4g}{self.df2:>10.4g}",
            f"{'p (ICC > 0)':<28}{self.pvalue:>10.4g}",
            "",
            f"{'Variance of items':<28}{self.variance_items:>10.4g}",
            f"{'Variance of raters':<28}{self.variance_raters:>10.4g}",
            f"{'Error variance':<28}{self.variance_error:>10.4g}",
            f"{'Items':<28}{self.n_items:>10d}",
            f"{'Raters':<28}{self.n_raters:>10d}",
            f"{'Ratings':<28}{self.n_ratings:>10d}",
            f"{'Estimation':<28}{self.method:>10}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values, with the interval at the
        result's ``confidence_level``."""
        low, high = self.confidence_interval()
        return result_dict(
            self,
            (
                "form",
                "statistic",
                "pvalue",
                "f_statistic",
                "df1",
                "df2",
                "variance_items",
                "variance_raters",
                "variance_error",
                "n_items",
                "n_raters",
                "n_ratings",
                "method",
                "confidence_level",
            ),
            shrout_fleiss=ICC_FORMS[self.form].shrout_fleiss,
            ci_low=low,
            ci_high=high,
        )


public_module(ICCResult)


# ---------------------------------------------------------------------------- compute


def _complete(values: np.ndarray, form: str, first=None):
    """(ICC, F, df1, df2, components, limits) from the two-way ANOVA (eqs. I1–I5);
    ``first``: the first rating as given, for the message of zero variance."""
    n, k = values.shape
    mean, within, deviation = _kernels.complete_moments(values)
    dev = mean - mean.mean()
    ss_items = k * float(dev @ dev)  # (eq. I1)
    rater_effect = deviation / n  # ȳ.ⱼ − ȳ.. (eq. I2)
    ss_raters = n * float(rater_effect @ rater_effect)
    ss_within = float(np.sum(within))
    ss_error = max(ss_within - ss_raters, 0.0)
    if ss_items + ss_within == 0.0:
        raise QwkitError(
            f"`ratings` has zero variance: every one of the {n * k} ratings is "
            f"{values.flat[0] if first is None else first:g}, so no ICC is defined.",
            parameter="ratings",
        )
    if max(ss_items, ss_error) <= 1e-12 * (ss_items + ss_within):
        raise QwkitError(
            "`ratings` give every item the same ratings (the raters differ by constant "
            "offsets): no variance among the items and none left for the error, so the "
            "ICC's F test is 0/0 and no ICC is defined.",
            parameter="ratings",
        )
    df_e = (n - 1) * (k - 1)
    ms = _MeanSquares(
        items=ss_items / (n - 1),
        raters=ss_raters / (k - 1),
        error=ss_error / df_e,
        within=ss_within / (n * (k - 1)),
        n=n,
        k=k,
    )
    rho = ms.icc(form)
    if form[0] == "1":
        f, d1, d2 = _safe(ms.items, ms.within), n - 1, n * (k - 1)
    else:
        f, d1, d2 = _safe(ms.items, ms.error), n - 1, df_e
    components = ((ms.items - ms.error) / k, (ms.raters - ms.error) / n, ms.error)
    return rho, f, d1, d2, components, _AnovaLimits(form, ms, f, d1, d2)


def _missing(num: _in.Numeric, form: str):
    """(ICC, F, df1, df2, components, limits) from the REML fit (eqs. I6–I13)."""
    if num.values.min() == num.values.max():
        raise QwkitError(
            f"`ratings` has zero variance: every one of the {num.values.size} ratings is "
            f"{num.first:g}, so no ICC is defined.",
            parameter="ratings",
        )
    fit = fit_missing(num.offsets, num.raters, num.values, num.n_raters)
    n, k = num.n_items, num.n_raters
    vs, vr, ve = fit.var_items, fit.var_raters, fit.var_error
    if vs + vr + ve == 0.0:
        raise QwkitError(
            "`ratings` has zero variance: every rating is the same, so no ICC is defined.",
            parameter="ratings",
        )
    ms = _MeanSquares(  # REML equivalents of the mean squares (eq. I9)
        items=k * vs + ve, raters=n * vr + ve, error=ve, within=ve + vr, n=n, k=k
    )
    rho = ms.icc(form)
    f, d1, d2 = fit.one_way_test() if form[0] == "1" else fit.two_way_test()
    return rho, f, d1, d2, (vs, vr, ve), _RemlLimits(form, k, fit)


# ---------------------------------------------------------------------------- public


def icc(
    ratings: RatingsLike,
    *,
    form: ICCForm,
    confidence_level: float = 0.95,
    nan_policy: NanPolicy = "omit",
) -> ICCResult:
    """Intraclass correlation of numeric ratings, with its F test and interval.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        One row per item, one column per rater (numpy array, pandas or polars
        DataFrame, nested lists); NaN or None where a rater did not rate an item.
        Numbers only.
    form : {"1,1", "A,1", "C,1", "1,k", "A,k", "C,k"}
        McGraw & Wong's (1996) form; Shrout & Fleiss (1979) call them ICC(1,1),
        ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k). ``"1"``: one-way model, each
        item rated by its own raters; ``"A"``: absolute agreement of raters drawn at
        random (rater differences count as error); ``"C"``: consistency (rater
        differences are removed); ``",1"``: one rater's rating, ``",k"``: the mean of
        k = ``n_raters`` ratings.
    confidence_level : float, default=0.95
        The level of the result's :meth:`~ICCResult.confidence_interval` and
        :meth:`~ICCResult.summary` by default (any other level may be asked there).
    nan_policy : {"omit", "raise"}, default="omit"
        A missing entry (NaN, None, ``pd.NA``; in a :class:`RatingsTable`, a rating not
        given) means "not rated": with ``"omit"`` the item counts with the ratings it has.
        ``"raise"`` asks for a complete table (every item rated by every rater). The result
        has no NaN form: ``"propagate"`` is refused (``docs/getting-started.md``, "Missing
        values").

    Returns
    -------
    ICCResult
        ``statistic``, ``pvalue``, ``confidence_interval()``, the variance components,
        ``summary()``, ``to_dict()``.

    Raises
    ------
    ValueError, TypeError
        For text ratings, fewer than two raters or two items with ratings, ratings of
        zero variance, an unknown ``form``.

    See Also
    --------
    concordance_correlation : Lin's concordance correlation of two raters.
    agreement_test : Kappa-type coefficients of categorical ratings.

    Notes
    -----
    With every item rated by every rater (items and raters with no rating at all are
    dropped) the ICCs are McGraw & Wong's ratios of the two-way ANOVA mean squares
    (eqs. I4a–I4f), as R ``psych::ICC(lmer = FALSE)`` and ``irr::icc`` compute them, with
    their F tests and intervals (eq. I5; the ``"A,k"`` interval is the ``"A,1"``
    interval through Spearman–Brown, eq. I3, as psych). With missing ratings nothing is
    dropped: the variance components are REML estimates of the two-way random model
    (eqs. I6–I8, the fit of R ``psych::ICC(lmer = TRUE)``, exact), the ICCs their ratios
    (eq. I9), the tests exact F tests of the fixed-effects sums of squares, and the
    intervals Wald's (1940) exact limits for the one-way and consistency forms and
    McGraw & Wong's on Henderson's method-III mean squares for the agreement forms
    (eqs. I10–I13); ``docs/agreement.md`` shows their coverage in a simulation.

    For two raters and complete data, ICC(A,1) = n·κ/(n − 1 + κ) with κ the quadratic
    weighted kappa (Lin's concordance correlation); ``docs/agreement.md``, "Which
    statistic when", derives this and the other identities of the family.

    References
    ----------
    .. [1] K. O. McGraw and S. P. Wong, "Forming inferences about some intraclass
       correlation coefficients", Psychological Methods 1(1):30-46, 1996.
    .. [2] P. E. Shrout and J. L. Fleiss, "Intraclass correlations: uses in assessing
       rater reliability", Psychological Bulletin 86(2):420-428, 1979.

    Examples
    --------
    Shrout & Fleiss (1979), Table 2: six targets rated by four judges; their Table 4
    gives ICC(1,1) = .17, ICC(2,1) = .29, ICC(3,1) = .71:

    >>> import qwkit
    >>> sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
    ...       [6, 2, 4, 7]]
    >>> [round(qwkit.icc(sf, form=f).statistic, 2) for f in ("1,1", "A,1", "C,1")]
    [0.17, 0.29, 0.71]
    >>> res = qwkit.icc(sf, form="C,1")
    >>> [round(x, 2) for x in res.confidence_interval()]   # psych::ICC: 0.34 0.95
    [0.34, 0.95]
    >>> float(f"{res.pvalue:.2g}")                           # psych::ICC: 0.00013
    0.00013
    """
    nan_rows(nan_policy, (ratings,), ("ratings",), kind="table", allowed=RAISE_OR_OMIT)
    form = _check_form(form)
    level = check_confidence_level(confidence_level)
    num = _in.prepare_numeric(ratings, "the ICC")
    if num.n_items < 2:
        raise QwkitError(
            f"`ratings` must hold at least two items (rows) with a rating for the ICC; got "
            f"{num.n_items}.",
            parameter="ratings",
        )
    # in units of the largest |rating| (a power of two: exact, and every ICC, F and limit
    # is unchanged): sums of squares of ratings near 1e300 overflowed, near 1e-300
    # underflowed; the components are given back in the ratings' units
    top = float(np.max(np.abs(num.values))) if num.values.size else 0.0
    e = int(np.frexp(top)[1]) if 0.0 < top < math.inf else 0
    if e:
        num = dataclasses.replace(num, values=np.ldexp(num.values, -e))
    if num.complete:
        rho, f, d1, d2, comps, limits = _complete(num.dense(), form, num.first)
        method = "anova"
    else:
        rho, f, d1, d2, comps, limits = _missing(num, form)
        method = "reml"
    with np.errstate(over="ignore"):  # a variance beyond float64 (ratings near 1e300): inf
        comps = np.ldexp(np.asarray(comps, dtype=np.float64), 2 * e)
    pvalue = float(special.fdtrc(d1, d2, f)) if not math.isinf(f) else 0.0
    return ICCResult(
        statistic=float(rho),
        pvalue=pvalue,
        f_statistic=float(f),
        df1=float(d1),
        df2=float(d2),
        form=form,
        variance_items=float(comps[0]),
        variance_raters=float(comps[1]),
        variance_error=float(comps[2]),
        n_items=num.n_items,
        n_raters=num.n_raters,
        n_ratings=int(num.values.size),
        method=method,
        confidence_level=level,
        _limits=limits,
    )
