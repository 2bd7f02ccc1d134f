"""Kendall's coefficient of concordance W, with the correction for ties and the
chi-square test (Kendall & Babington Smith 1939; R ``irr::kendall``).

``kendall_w`` reads validate → compute → wrap: each rater's ratings are ranked over the
items (mid-ranks for ties), the items' rank sums give W (eq. W1 of
``docs/agreement.md``), and m(n − 1)W is referred to chi-square on n − 1 degrees of
freedom (eq. W2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from qwkit._agreement import _input as _in
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._ratings import RatingsLike
from qwkit._base._results import public_module, result_dict

__all__ = ["KendallWResult", "kendall_w"]


@dataclass(frozen=True, slots=True, eq=False)
class KendallWResult:
    """Result of :func:`kendall_w`.

    Attributes
    ----------
    statistic : float
        Kendall's W, between 0 (no concordance) and 1 (every rater ranks the items
        alike).
    chi_square : float
        m(n − 1)W, the test statistic (eq. W2).
    df : int
        n − 1.
    pvalue : float
        Upper tail of chi-square on ``df`` degrees of freedom: the test of no
        concordance.
    correct_ties : bool
        Whether W was corrected for ties (eq. W1).
    n_items, n_raters : int
        Items (with every rater's rating) and raters.
    """

    statistic: float
    chi_square: float
    df: int
    pvalue: float
    correct_ties: bool
    n_items: int
    n_raters: int

    def summary(self) -> str:
        """A text block: W, the chi-square test and the sizes."""
        title = "Kendall's W" + (" (corrected for ties)" if self.correct_ties else "")
        lines = [
            title,
            "-" * 38,
            f"{'W':<28}{self.statistic:>10.4f}",
            f"{'Chi-square':<28}{self.chi_square:>10.4f}",
            f"{'df':<28}{self.df:>10d}",
            f"{'p':<28}{self.pvalue:>10.4g}",
            f"{'Items':<28}{self.n_items:>10d}",
            f"{'Raters':<28}{self.n_raters:>10d}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values."""
        return result_dict(
            self,
            ("statistic", "chi_square", "df", "pvalue", "correct_ties", "n_items", "n_raters"),
        )


public_module(KendallWResult)


def kendall_w(
    ratings: RatingsLike,
    *,
    correct_ties: bool = True,
    nan_policy: NanPolicy = "omit",
) -> KendallWResult:
    """Kendall's coefficient of concordance of m raters ranking n items.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        Numeric ratings or ranks, one column per rater. Items with a missing rating are
        left out (as R ``irr::kendall``): W needs every rater's ranking of the same
        items.
    correct_ties : bool, default=True
        Subtract the ties' term m·Σ(t³ − t) from the denominator (eq. W1), so that W
        reaches 1 when the raters agree and use ties. R irr's default is False.
    nan_policy : {"omit", "raise"}, default="omit"
        A missing entry (NaN, None, ``pd.NA``) means "not rated": with ``"omit"`` the items
        with a missing rating are left out (as R ``irr::kendall``: W needs every rater's
        ranking of the same items). ``"raise"`` asks for a complete table (every item rated
        by every rater). The result has no NaN form: ``"propagate"`` is refused
        (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    KendallWResult
        ``statistic`` (W), ``chi_square``, ``df``, ``pvalue``, ``summary()``.

    Raises
    ------
    ValueError, TypeError
        For text, fewer than two raters or three items with every rating, or every
        rater's ratings constant.

    Notes
    -----
    With Rᵢ the sum over raters of item i's ranks (mid-ranks for ties) and Tⱼ = Σ(t³ − t)
    over rater j's groups of t tied ratings,

        W = 12 Σᵢ (Rᵢ − R̄)² / (m²(n³ − n) − m Σⱼ Tⱼ)

    (the last term only with ``correct_ties``), and m(n − 1)W is approximately
    chi-square on n − 1 degrees of freedom under no concordance (eqs. W1–W2).

    Examples
    --------
    R irr's ``anxiety`` (20 subjects, 3 raters): ``kendall(anxiety, TRUE)`` prints
    Wt = 0.54, Chisq(19) = 30.8, p-value = 0.0429:

    >>> import qwkit
    >>> anxiety = [[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2],
    ...            [2, 2, 1], [3, 4, 6], [5, 3, 1], [2, 3, 1], [2, 2, 1], [6, 3, 2],
    ...            [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1], [1, 1, 3], [2, 3, 3],
    ...            [4, 3, 2], [3, 4, 2]]
    >>> res = qwkit.kendall_w(anxiety)
    >>> round(res.statistic, 4), round(res.chi_square, 2), round(res.pvalue, 4)
    (0.5397, 30.76, 0.0429)
    """
    nan_rows(nan_policy, (ratings,), ("ratings",), kind="table", allowed=RAISE_OR_OMIT)
    if not isinstance(correct_ties, (bool, np.bool_)):
        raise QwkitTypeError(
            f"`correct_ties` must be True or False; got {correct_ties!r}.",
            parameter="correct_ties",
        )
    num = _in.prepare_numeric(ratings, "Kendall's W")
    x = num.dense()
    x = x[~np.isnan(x).any(axis=1)]
    n, m = x.shape
    if n < 3:
        raise QwkitError(
            f"`ratings` must hold at least three items rated by every rater for Kendall's "
            f"W; got {n}.",
            parameter="ratings",
        )
    total = np.zeros(n)
    ties = 0.0
    for j in range(m):  # each rater's mid-ranks of the items, and its ties
        _, inverse, t = np.unique(x[:, j], return_inverse=True, return_counts=True)
        t = t.astype(np.float64)
        total += (np.cumsum(t) - (t - 1.0) / 2.0)[inverse]
        if correct_ties:
            ties += float(np.sum(t**3 - t))
    spread = float(np.sum((total - total.mean()) ** 2))
    den = m * m * (n**3 - n) - m * ties
    if den <= 0:
        raise QwkitError(
            "`ratings`: every rater gives every item the same rating, so no ranking (and "
            "no W) exists.",
            parameter="ratings",
        )
    w = 12.0 * spread / den  # (eq. W1)
    chi2 = m * (n - 1) * w  # (eq. W2)
    return KendallWResult(
        statistic=float(w),
        chi_square=float(chi2),
        df=n - 1,
        pvalue=float(special.chdtrc(n - 1, chi2)),
        correct_ties=bool(correct_ties),
        n_items=int(n),
        n_raters=int(m),
    )
