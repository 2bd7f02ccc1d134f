"""Lin's concordance correlation coefficient, with Lin's (2000) standard error and the
Fisher-z interval.

``concordance_correlation`` reads validate → compute → wrap: pairs with a missing value
are left out (as R ``epiR::epi.ccc``), the moments are taken about the means (two passes,
no cancellation), and the coefficient is eq. C1 of ``docs/agreement.md`` — with divisor
n, so that it *is* the quadratic weighted kappa of the two vectors (``soft_kappa_score``;
eq. C2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from qwkit._agreement import _input as _in
from qwkit._base._errors import QwkitError
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._results import public_module, result_dict
from qwkit._base._validation import check_choice, check_confidence_level
from qwkit._base._warnings import DegenerateIntervalWarning, warn
from qwkit._table._resampling import ConfidenceInterval

__all__ = ["ConcordanceResult", "concordance_correlation"]

_METHODS = ("fisher-z", "asymptotic")


@dataclass(frozen=True, slots=True, eq=False)
class ConcordanceResult:
    """Result of :func:`concordance_correlation`.

    Attributes
    ----------
    statistic : float
        Lin's concordance correlation ρ_c (eq. C1).
    standard_error : float
        Lin's (2000) asymptotic standard error of ρ_c (eq. C3).
    pearson : float
        The Pearson correlation r of the pairs (precision).
    bias_correction : float
        C_b = ρ_c / r (accuracy: 1 when the pairs scatter about the identity line).
    location_shift, scale_shift : float
        u = (ȳ − x̄)/√(s_x s_y) and v = s_y/s_x (divisor n), Lin's (1989) shifts.
    n_items : int
        Pairs with both values.
    confidence_level : float
        The level of :meth:`confidence_interval` and :meth:`summary` by default.
    """

    statistic: float
    standard_error: float
    pearson: float
    bias_correction: float
    location_shift: float
    scale_shift: float
    n_items: int
    confidence_level: float = field(repr=False)

    def confidence_interval(
        self,
        confidence_level: float | None = None,
        *,
        method: Literal["fisher-z", "asymptotic"] = "fisher-z",
    ) -> ConfidenceInterval:
        """Confidence interval for ρ_c.

        Parameters
        ----------
        confidence_level : float, default=None
            Strictly between 0 and 1; None: the level given to
            :func:`concordance_correlation`.
        method : {"fisher-z", "asymptotic"}, default="fisher-z"
            ``"fisher-z"``: normal limits for z = atanh ρ_c with standard error
            SE/(1 − ρ_c²), transformed back (Lin 1989, eq. C4), R epiR's default;
            ``"asymptotic"``: ρ_c ± z·SE.

        Returns
        -------
        ConfidenceInterval
        """
        method = check_choice(method, "method", _METHODS)
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        z = float(special.ndtri(1.0 - (1.0 - level) / 2.0))
        rho, se = self.statistic, self.standard_error
        if not (math.isfinite(se) and abs(rho) < 1.0):
            warn(
                "The concordance correlation's standard error is not defined here (|ρ_c| "
                "= 1, r = 0, or fewer than three pairs): the interval is nan.",
                DegenerateIntervalWarning,
            )
            return ConfidenceInterval(math.nan, math.nan)
        if method == "asymptotic":
            return ConfidenceInterval(rho - z * se, rho + z * se)
        t, se_t = math.atanh(rho), se / (1.0 - rho * rho)  # (eq. C4)
        return ConfidenceInterval(math.tanh(t - z * se_t), math.tanh(t + z * se_t))

    def summary(self, confidence_level: float | None = None) -> str:
        """A text block: ρ_c, its standard error and Fisher-z limits, r and C_b."""
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        low, high = self.confidence_interval(level)
        pct = f"{100 * level:g}%"
        title = "Lin's concordance correlation"
        lines = [
            title,
            "-" * 38,
            f"{'Concordance correlation':<28}{self.statistic:>10.4f}",
            f"{'Standard error':<28}{self.standard_error:>10.4f}",
            f"{pct + ' lower limit':<28}{low:>10.4f}",
            f"{pct + ' upper limit':<28}{high:>10.4f}",
            f"{'Pearson r (precision)':<28}{self.pearson:>10.4f}",
            f"{'C_b (accuracy)':<28}{self.bias_correction:>10.4f}",
            f"{'Pairs':<28}{self.n_items:>10d}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values, with the Fisher-z interval at
        the result's ``confidence_level``."""
        low, high = self.confidence_interval()
        return result_dict(
            self,
            (
                "statistic",
                "standard_error",
                "pearson",
                "bias_correction",
                "location_shift",
                "scale_shift",
                "n_items",
                "confidence_level",
            ),
            ci_low=low,
            ci_high=high,
        )


public_module(ConcordanceResult)


def _integer_shift(x, y):
    """Integer arrays ``x`` and ``y`` as differences from their joint smallest value,
    taken in integers (mod 2**64: exact) — float64 copies of integers beyond 2**53 lose
    digits (ratings near 2**62 looked like one constant), and the CCC does not change
    under a shift of both; anything else as given."""
    ax, ay = np.asarray(x), np.asarray(y)
    if not (ax.dtype.kind in "iu" and ay.dtype.kind in "iu" and ax.size and ay.size):
        return x, y
    lo = min(int(ax.min()), int(ay.min()))
    if max(int(ax.max()), int(ay.max())) - lo >= 2**64:
        return x, y
    base = np.asarray(lo % 2**64, dtype=np.uint64)
    return ax.astype(np.uint64) - base, ay.astype(np.uint64) - base


def concordance_correlation(
    x: ArrayLike,
    y: ArrayLike,
    *,
    confidence_level: float = 0.95,
    nan_policy: NanPolicy = "raise",
) -> ConcordanceResult:
    """Lin's concordance correlation coefficient of two raters' real-valued ratings.

    Parameters
    ----------
    x, y : array-like of shape (n_items,)
        The two raters' ratings of the same items.
    confidence_level : float, default=0.95
        The default level of the result's interval.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its pair is
        left out (as R ``epiR::epi.ccc`` does). The result has no NaN form: ``"propagate"``
        is refused (``docs/getting-started.md``, "Missing values"). Until 0.2 such pairs
        were left out silently; the default is now that of every statistic of two raters.

    Returns
    -------
    ConcordanceResult
        ``statistic``, ``standard_error``, ``confidence_interval()`` (Fisher z),
        ``pearson``, ``bias_correction``, ``summary()``, ``to_dict()``.

    Raises
    ------
    ValueError, TypeError
        For text, different lengths, fewer than three complete pairs, or both raters
        constant at one value (ρ_c is 0/0).

    See Also
    --------
    soft_kappa_score : The same number: quadratic weighted kappa of real values.
    icc : ICC(A,1) = n·ρ_c/(n − 1 + ρ_c) for two raters (eq. C5).

    Notes
    -----
    With means x̄, ȳ and moments about them with divisor n,

        ρ_c = 2 s_xy / (s_x² + s_y² + (x̄ − ȳ)²)

    (Lin 1989), the quadratic weighted kappa of the pairs (``docs/agreement.md``,
    eqs. C1–C2). Lin's (2000) corrected variance gives the standard error, and the
    interval is normal on z = atanh ρ_c (eqs. C3–C4), as R ``epiR::epi.ccc``.

    References
    ----------
    .. [1] L. I.-K. Lin, "A concordance correlation coefficient to evaluate
       reproducibility", Biometrics 45(1):255-268, 1989; "A note on the concordance
       correlation coefficient", Biometrics 56(1):324-325, 2000.

    Examples
    --------
    >>> import qwkit
    >>> x = [2.5, 3.1, 4.0, 4.4, 5.2, 6.0, 6.3, 7.1]
    >>> y = [2.7, 3.0, 4.3, 4.1, 5.6, 5.8, 6.6, 7.4]
    >>> res = qwkit.concordance_correlation(x, y)
    >>> round(res.statistic, 6)
    0.983987
    >>> [round(v, 4) for v in res.confidence_interval()]
    [0.9281, 0.9965]
    >>> round(res.statistic - qwkit.soft_kappa_score(x, y), 12)
    0.0
    """
    level = check_confidence_level(confidence_level)
    x, y = paired((x, y), ("x", "y"))
    x, y = nan_rows(nan_policy, (x, y), ("x", "y"), allowed=RAISE_OR_OMIT).values
    x, y = _integer_shift(x, y)
    a = _in.numeric_column(x, "x")
    b = _in.numeric_column(y, "y")
    if a.shape[0] != b.shape[0]:
        raise QwkitError(
            f"`x` and `y` must have the same length; got {a.shape[0]} and {b.shape[0]}.",
            parameter="x",
            also=("y",),
        )
    both = ~(np.isnan(a) | np.isnan(b))
    if not both.all():
        a, b = a[both], b[both]
    n = a.shape[0]
    if n < 3:
        raise QwkitError(
            f"`x` and `y` must hold at least three pairs with both values; got {n}.",
            parameter="x",
            also=("y",),
        )
    # in units of the largest |value| (a power of two, the same for x and y: exact, and
    # every quantity below is unchanged): moments of values near 1e100 overflowed, near
    # 1e-100 underflowed
    top = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))))
    if 0.0 < top < math.inf:
        e = int(np.frexp(top)[1])
        a, b = np.ldexp(a, -e), np.ldexp(b, -e)
    da, db = a - a.mean(), b - b.mean()
    da -= da.mean()  # second pass: the means exact to rounding
    db -= db.mean()
    gap = float(np.mean(b - a))
    sxx, syy, sxy = float(da @ da) / n, float(db @ db) / n, float(da @ db) / n
    den = sxx + syy + gap * gap
    if den == 0.0:
        raise QwkitError(
            "`x` and `y` are one and the same constant: the concordance correlation is 0/0.",
            parameter="x",
            also=("y",),
        )
    rho = 2.0 * sxy / den  # (eq. C1)
    r = sxy / (math.sqrt(sxx) * math.sqrt(syy)) if sxx > 0 and syy > 0 else math.nan
    u = gap / math.sqrt(math.sqrt(sxx) * math.sqrt(syy)) if sxx > 0 and syy > 0 else math.nan
    se = math.nan
    if math.isfinite(r) and r != 0.0:
        var = (  # Lin (2000)   (eq. C3)
            (1.0 - r * r) * rho * rho * (1.0 - rho * rho) / (r * r)
            + 2.0 * rho**3 * (1.0 - rho) * u * u / r
            - 0.5 * rho**4 * u**4 / (r * r)
        ) / (n - 2)
        se = math.sqrt(var) if var >= 0 else math.nan
    return ConcordanceResult(
        statistic=float(rho),
        standard_error=float(se),
        pearson=float(r),
        bias_correction=float(rho / r) if r and math.isfinite(r) else math.nan,
        location_shift=float(u),
        scale_shift=float(math.sqrt(syy / sxx)) if sxx > 0 else math.nan,
        n_items=int(n),
        confidence_level=level,
    )
