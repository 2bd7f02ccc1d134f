"""Confidence intervals and tests of a statistic of cell weights.

The bootstrap as a redraw of the table (eq. 6 of ``docs/inference.md``), the exact
jackknife (eq. 8), BCa (eq. 7), Wald intervals (eq. 2a) and z-test p-values, for any
statistic of the present cells (``_cells``): one kappa, a difference of two kappas,
an agreement coefficient. :class:`Resampled` gives a result class its
``confidence_interval`` and ``bootstrap_distribution``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from qwkit._base._results import public_module
from qwkit._base._validation import (
    check_confidence_level,
    check_method,
    check_n_resamples,
    check_progress,
    check_rng,
)
from qwkit._base._warnings import (
    DegenerateIntervalWarning,
    UndefinedKappaWarning,
    renamed_attribute,
    warn,
)
from qwkit._table._cells import Sample

__all__ = [
    "CORRECTIONS",
    "MIN_ITEMS",
    "ConfidenceInterval",
    "Estimator",
    "Method",
    "Resampled",
    "adjust_pvalues",
    "corrected_kappa_interval",
    "interval",
    "limit_lines",
    "pvalue",
    "wald_interval",
    "zero_se_pvalue",
]

#: Fewer items than this make every interval method untrustworthy: a warning says so.
MIN_ITEMS = 10

#: The multiplicity corrections of :func:`adjust_pvalues`, each valid whatever the
#: dependence between the tests (statsmodels' names).
CORRECTIONS = ("holm", "bonferroni", "fdr_by")

Method = Literal["asymptotic", "bootstrap", "percentile", "jackknife"]


#: Why a leave-one-out statistic may be undefined: too few items, or (survey weights) one
#: item carrying nearly all of the weight, whose removal the rounded sums cannot resolve.
_WHY_LOO = "too few items, or one item carrying nearly all of the weight"


class ConfidenceInterval(NamedTuple):
    """A confidence interval: ``low`` and ``high`` (Python floats)."""

    low: float
    high: float


public_module(ConfidenceInterval)


@dataclass(frozen=True, slots=True)
class Estimator:
    """A statistic of the cell weights, with its resampling machinery."""

    sample: Sample
    batch: Callable[[np.ndarray], np.ndarray]  # (b, m) -> (b,)
    leave_one_out: Callable[[np.ndarray, np.ndarray], np.ndarray]  # cell, u -> values

    def bootstrap(self, n_resamples: int, rng: np.random.Generator, progress=None):
        out = np.empty(n_resamples)
        done = 0
        for x in self.sample.draws(n_resamples, rng):
            out[done : done + x.shape[0]] = self.batch(x)
            done += x.shape[0]
            if progress is not None:
                progress(done, n_resamples)
        return out

    def jackknife(self):
        """Leave-one-out values and their multiplicities (they sum to n)."""
        cell, u, mult = self.sample.removals()
        return self.leave_one_out(cell, u), mult


def _jackknife_moments(values: np.ndarray, mult: np.ndarray):
    """Jackknife SE (eq. 9) and BCa acceleration (eq. 7b) from leave-one-out values."""
    n = float(mult.sum())
    mean = float(np.dot(mult, values)) / n
    dev = mean - values
    ss = float(np.dot(mult, dev * dev))
    se = math.sqrt((n - 1.0) / n * ss)  # (eq. 9)
    accel = float(np.dot(mult, dev**3)) / (6.0 * ss**1.5) if ss > 0 else 0.0  # (eq. 7b)
    return se, accel


def _undefined_interval(message: str, category=DegenerateIntervalWarning) -> ConfidenceInterval:
    warn(message, category)
    return ConfidenceInterval(math.nan, math.nan)


def _tail_levels(level: float, alternative: str):
    """Probabilities of the lower and upper ends (None: that side is unbounded)."""
    if alternative == "two-sided":
        return (1.0 - level) / 2.0, (1.0 + level) / 2.0
    if alternative == "greater":
        return 1.0 - level, None
    return None, level


def _zero_width(interval: ConfidenceInterval, what: str) -> ConfidenceInterval:
    low, high = interval
    warn(
        f"The interval [{low:.6g}, {high:.6g}] has zero width: {what}. That is not "
        "certainty: these data hold too little information for an interval (too few "
        "items, perfect agreement on a handful of items, or a constant rater).",
        DegenerateIntervalWarning,
    )
    return interval


def _too_few(n_items: int, method: str) -> None:
    if n_items < MIN_ITEMS:
        warn(
            f"Only {n_items} item{'s' if n_items != 1 else ''}: too few for a trustworthy "
            f"{method} interval (qwkit warns below {MIN_ITEMS} items).",
            DegenerateIntervalWarning,
        )


def interval(
    estimate: float,
    standard_error: float,
    estimator: Estimator,
    *,
    n_items: int,
    confidence_level,
    method,
    n_resamples,
    rng,
    alternative: str,
    upper_bound: float,
    progress=None,
    df: float = math.inf,
) -> ConfidenceInterval:
    """The confidence interval of ``estimate`` by any of the four methods.

    ``df`` gives the Wald intervals (asymptotic and jackknife) Student-t critical values
    with that many degrees of freedom; the default (infinite) is the normal.
    """
    level = check_confidence_level(confidence_level)
    method = check_method(method)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    progress = check_progress(progress)
    lo_p, hi_p = _tail_levels(level, alternative)
    if math.isnan(estimate):
        return _undefined_interval(
            "The estimate is undefined (nan); so is its confidence interval.",
            UndefinedKappaWarning,
        )
    _too_few(n_items, method)

    if method in ("asymptotic", "jackknife"):
        if method == "jackknife":
            values, mult = estimator.jackknife()
            if not np.all(np.isfinite(values)):
                return _undefined_interval(
                    f"A leave-one-out sample has an undefined statistic ({_WHY_LOO}); the "
                    "jackknife interval is undefined. Use method='asymptotic' or "
                    "'percentile'."
                )
            standard_error, _ = _jackknife_moments(values, mult)
        out = wald_interval(
            estimate, standard_error, level, alternative, upper_bound=upper_bound, df=df
        )
        if standard_error == 0.0:
            return _zero_width(out, f"the {method} standard error is exactly 0")
        return out

    theta = estimator.bootstrap(n_resamples, gen, progress)
    finite = np.isfinite(theta)
    if not finite.all():
        dropped = int((~finite).sum())
        warn(
            f"{dropped} of {n_resamples} bootstrap resamples have an undefined statistic "
            "(every rating of the resample in one category) and were left out of the "
            "interval.",
            UndefinedKappaWarning,
        )
        theta = theta[finite]
        if theta.size == 0:
            return ConfidenceInterval(math.nan, math.nan)

    if method == "bootstrap":  # BCa (eq. 7)
        from scipy import special  # here, where it is used: kappa_score needs no scipy

        values, mult = estimator.jackknife()
        if not np.all(np.isfinite(values)):
            return _undefined_interval(
                f"A leave-one-out sample has an undefined statistic ({_WHY_LOO}), so the "
                "BCa acceleration is undefined. Use method='percentile'."
            )
        _, accel = _jackknife_moments(values, mult)
        below = float(np.count_nonzero(theta < estimate) + np.count_nonzero(theta <= estimate))
        z0 = special.ndtri(below / (2.0 * theta.size))  # (eq. 7a), ties count half
        if not math.isfinite(z0):
            return _undefined_interval(
                "Every bootstrap value lies on one side of the estimate, so the BCa "
                "bias correction is infinite. Use method='percentile'."
            )

        def adjust(p):
            if p is None:
                return None
            zp = z0 + special.ndtri(p)
            return float(special.ndtr(z0 + zp / (1.0 - accel * zp)))  # (eq. 7)

        lo_p, hi_p = adjust(lo_p), adjust(hi_p)

    low = float(np.quantile(theta, lo_p)) if lo_p is not None else -math.inf
    high = float(np.quantile(theta, hi_p)) if hi_p is not None else upper_bound
    out = ConfidenceInterval(low, high)
    if theta.min() == theta.max():
        return _zero_width(out, "every bootstrap resample gives the same value")
    return out


def wald_interval(
    estimate: float,
    standard_error: float,
    confidence_level: float,
    alternative: str,
    *,
    upper_bound: float = math.inf,
    df: float = math.inf,
) -> ConfidenceInterval:
    """The Wald interval (eq. 2a) — two-sided, or one-sided by ``alternative`` — with
    Student's t on ``df`` degrees of freedom when finite, its upper limit at most
    ``upper_bound`` (kappa never exceeds 1, so neither does the limit). Warns about
    nothing: the asymptotic interval of :func:`interval`, and what summaries print."""
    lo_p, hi_p = _tail_levels(confidence_level, alternative)
    low = estimate + _critical(lo_p, df) * standard_error if lo_p is not None else -math.inf
    high = estimate + _critical(hi_p, df) * standard_error if hi_p is not None else upper_bound
    return ConfidenceInterval(float(low), float(min(high, upper_bound)))  # (eq. 2a)


def limit_lines(confidence_level: float, limits: ConfidenceInterval, width: int) -> list[str]:
    """A summary's two lines of an interval's limits (SAS's words): ``95% Lower Conf
    Limit`` and ``95% Upper Conf Limit``."""
    level = f"{100 * confidence_level:g}%"
    return [
        f"{level + ' Lower Conf Limit':<{width}}{limits.low:>10.4f}",
        f"{level + ' Upper Conf Limit':<{width}}{limits.high:>10.4f}",
    ]


def _critical(p: float, df: float) -> float:
    """The p-quantile of the normal (df infinite) or of Student's t with df degrees."""
    from scipy import special

    return float(special.ndtri(p) if math.isinf(df) else special.stdtrit(df, p))


def pvalue(z: float, alternative: str, df: float = math.inf) -> float:
    """p-value of a z statistic (of a t statistic with ``df`` degrees of freedom when
    finite) against the alternative."""
    from scipy import special

    def cdf(x):
        return special.ndtr(x) if math.isinf(df) else special.stdtr(df, x)

    if alternative == "two-sided":
        return float(2.0 * cdf(-abs(z)))
    if alternative == "greater":
        return float(cdf(-z))
    return float(cdf(z))


def adjust_pvalues(pvalues, method: str) -> np.ndarray:
    """p-values of a family of tests adjusted for multiplicity (``method`` in
    :data:`CORRECTIONS`); nan p-values (undefined tests) stay nan and do not count.

    With the m defined p-values sorted, p₍₁₎ ≤ … ≤ p₍ₘ₎:

    - ``"holm"`` (Holm 1979): p̃₍ᵢ₎ = maxⱼ≤ᵢ min(1, (m − j + 1)·p₍ⱼ₎), controls the
      family-wise error rate;
    - ``"bonferroni"``: min(1, m·pᵢ), the same, less powerful;
    - ``"fdr_by"`` (Benjamini & Yekutieli 2001): p̃₍ᵢ₎ = minⱼ≥ᵢ min(1, m·cₘ·p₍ⱼ₎/j),
      cₘ = Σₖ 1/k, controls the false discovery rate.

    Each holds under any dependence between the tests (pairwise comparisons that share
    a model are dependent). ``statsmodels.stats.multitest.multipletests`` gives the same
    values (the tests check it).

    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    defined = np.flatnonzero(~np.isnan(p))
    m = defined.size
    if m == 0:
        return out
    order = defined[np.argsort(p[defined], kind="stable")]
    ranked = p[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * ranked))
    elif method == "bonferroni":
        adjusted = np.minimum(1.0, m * ranked)
    else:  # fdr_by
        c_m = float(np.sum(1.0 / rank))
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * c_m * ranked / rank)[::-1])[::-1]
    out[order] = adjusted
    return out


def zero_se_pvalue(
    what: str, why: str = "e.g. a rater used a single category", test: str = "z-test"
) -> float:
    """Warn that the test is undefined (its standard error is 0) and return nan."""
    warn(
        f"The {what} is zero ({why}), so the {test} is undefined; the p-value is nan.",
        DegenerateIntervalWarning,
    )
    return math.nan


class Resampled:
    """Confidence intervals and bootstrap draws of a test result (shared by
    ``KappaTestResult``, ``KappaComparisonResult`` and the agreement results).

    Subclasses are frozen dataclasses with ``statistic``, ``standard_error``,
    ``alternative`` and ``_estimator`` fields and a ``_n_units`` property (the number of
    sampling units), and set ``_upper_bound`` (the largest value the statistic can take).
    """

    __slots__ = ()
    # The fields of the subclasses that these methods read (declared for type checkers;
    # annotations only: no class attributes, no slots).
    statistic: float
    standard_error: float
    alternative: str
    n_items: int
    _estimator: Estimator
    _upper_bound = math.inf
    #: Deprecated: the old names of ``n_items`` and ``weights``.
    n_samples = renamed_attribute("n_samples", "n_items")
    weights_kind = renamed_attribute("weights_kind", "weights")

    @property
    def _n_units(self) -> int:
        return self.n_items

    @property
    def _df(self) -> float:
        """Degrees of freedom of the Wald intervals (infinite: the normal)."""
        return math.inf

    def _limits(self, confidence_level) -> ConfidenceInterval:
        """The asymptotic interval a summary prints (no warnings: it says them itself)."""
        return wald_interval(
            self.statistic,
            self.standard_error,
            check_confidence_level(confidence_level),
            self.alternative,
            upper_bound=self._upper_bound,
            df=self._df,
        )

    def confidence_interval(
        self,
        confidence_level: float = 0.95,
        *,
        method: Method = "asymptotic",
        n_resamples: int = 9999,
        rng: int | np.random.Generator | None = None,
        progress: Callable[[int, int], object] | None = None,
    ) -> ConfidenceInterval:
        """Confidence interval for the statistic.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Confidence level, strictly between 0 and 1.
        method : {"asymptotic", "bootstrap", "percentile", "jackknife"}, \
default="asymptotic"
            ``"asymptotic"``: Wald interval on the asymptotic standard error (for
            kappa, SAS PROC FREQ's interval; for agreement coefficients with Student's t
            on n − 1 degrees of freedom, R irrCAC's interval). ``"bootstrap"``: bias-corrected and
            accelerated (BCa) bootstrap, the acceleration from the exact jackknife.
            ``"percentile"``: the plain percentile bootstrap. ``"jackknife"``: Wald
            interval on the exact jackknife standard error.
        n_resamples : int, default=9999
            Bootstrap resamples (``"bootstrap"`` and ``"percentile"`` only).
        rng : None, int or numpy.random.Generator, default=None
            Source of randomness for the bootstrap; an integer seeds a new Generator.
        progress : callable, default=None
            ``progress(done, total)`` is called as bootstrap resamples are completed
            (e.g. to drive a progress bar); not called for the other methods.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``. With ``alternative="greater"`` the interval is one-sided
            ``(low, upper bound)``; with ``"less"``, ``(-inf, high)``. Wald-type upper
            limits above the largest possible value (1 for kappa) are truncated there.

        Warns
        -----
        UndefinedKappaWarning
            When the statistic is undefined (the interval is nan), or when some
            bootstrap resamples are undefined (they are left out).
        DegenerateIntervalWarning
            When the interval has zero width (a standard error of exactly 0, or every
            bootstrap resample giving one value) — it does not mean certainty — or is
            undefined (BCa or the jackknife with too few items: nan), and when there
            are fewer than 10 items, too few for any of these methods.

        Notes
        -----
        Without sample weights (or with ``counts``) a bootstrap resample of the items
        *is* a multinomial draw of the contingency table (eq. 6): the work is
        O(B·cells), whatever the number of items. With unequal sample weights the items
        themselves are resampled, O(B·n). Pairs of predictions of the same item stay together.
        """
        return interval(
            self.statistic,
            self.standard_error,
            self._estimator,
            n_items=self._n_units,
            confidence_level=confidence_level,
            method=method,
            n_resamples=n_resamples,
            rng=rng,
            alternative=self.alternative,
            upper_bound=self._upper_bound,
            progress=progress,
            df=self._df,
        )

    def bootstrap_distribution(
        self,
        n_resamples: int = 9999,
        *,
        rng: int | np.random.Generator | None = None,
        progress: Callable[[int, int], object] | None = None,
    ) -> np.ndarray:
        """The statistic on each bootstrap resample: what the bootstrap intervals are
        made of (nan where a resample's statistic is undefined).

        Parameters
        ----------
        n_resamples : int, default=9999
            Number of resamples.
        rng : None, int or numpy.random.Generator, default=None
            Source of randomness; with the same seed the draws are those of
            :meth:`confidence_interval` with ``method="bootstrap"`` or ``"percentile"``.
        progress : callable, default=None
            ``progress(done, total)`` is called as resamples are completed.

        Returns
        -------
        ndarray of shape (n_resamples,)

        Examples
        --------
        >>> import qwkit
        >>> res = qwkit.kappa_test_from_confusion([[10, 2], [3, 15]], weights=None)
        >>> draws = res.bootstrap_distribution(2000, rng=20261121)
        >>> draws.shape, bool(abs(draws.mean() - res.statistic) < 0.05)
        ((2000,), True)
        """
        return self._estimator.bootstrap(
            check_n_resamples(n_resamples), check_rng(rng), check_progress(progress)
        )


def corrected_kappa_interval(
    statistic: float, standard_error: float, n_items: int, confidence_level: float
) -> ConfidenceInterval:
    """The Wald interval of an optimism-corrected kappa, at most 1 (eqs. O5, C7): NaN with
    a warning when the kappa or its standard error is undefined, and a warning when it
    rests on fewer than :data:`MIN_ITEMS` items or a zero standard error. One home for
    ``optimism_corrected_kappa``'s and ``calibrate_judge``'s intervals."""
    if not (math.isfinite(statistic) and math.isfinite(standard_error)):
        warn(
            "The corrected kappa or its standard error is undefined (too few items or "
            "refits); so is its confidence interval.",
            DegenerateIntervalWarning,
        )
        return ConfidenceInterval(math.nan, math.nan)
    if n_items < MIN_ITEMS or standard_error == 0.0:
        warn(
            f"The interval rests on {n_items} items and a standard error of "
            f"{standard_error:.3g}: too little information for it to be trusted.",
            DegenerateIntervalWarning,
        )
    return wald_interval(statistic, standard_error, confidence_level, "two-sided", upper_bound=1.0)
