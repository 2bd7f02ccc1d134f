"""Tests of marginal homogeneity of two raters: do they use the categories equally
often? Stuart (1955) and Maxwell (1970), and Bhapkar (1966).

``marginal_homogeneity_test`` reads validate → compute → wrap: the pairs with both
ratings give the K×K table; the differences of its margins d and their covariance S
(eq. H1 of ``docs/agreement.md``) give the Stuart–Maxwell statistic dᵀS⁺d on rank(S)
degrees of freedom (eq. H2) and Bhapkar's W = X²/(1 − X²/n) (eq. H3).
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
from qwkit._base._results import labels_dict, public_module, result_dict
from qwkit._base._validation import check_choice

__all__ = ["MarginalHomogeneityResult", "marginal_homogeneity_test"]

_METHODS = ("stuart-maxwell", "bhapkar")


@dataclass(frozen=True, slots=True, eq=False)
class MarginalHomogeneityResult:
    """Result of :func:`marginal_homogeneity_test`.

    Attributes
    ----------
    statistic : float
        The chi-square statistic (Stuart–Maxwell's X², or Bhapkar's W).
    df : int
        Its degrees of freedom: the rank of the covariance of the margin differences
        (K − 1 when every category has a rating off the diagonal).
    pvalue : float
        Upper tail of the chi-square distribution on ``df`` degrees of freedom.
    method : str
        ``"stuart-maxwell"`` or ``"bhapkar"``.
    differences : ndarray of shape (K,)
        How many more items the first rater put in each category than the second.
    n_items : int
        Items with both ratings.
    labels : ndarray of shape (K,)
        The categories.
    """

    statistic: float
    df: int
    pvalue: float
    method: str
    differences: np.ndarray = field(repr=False)
    n_items: int
    labels: np.ndarray = field(repr=False)

    def summary(self) -> str:
        """A text block: the statistic, its degrees of freedom and p-value."""
        name = {"stuart-maxwell": "Stuart-Maxwell", "bhapkar": "Bhapkar"}[self.method]
        lines = [
            f"{name} test of marginal homogeneity",
            "-" * 38,
            f"{'Chi-square':<28}{self.statistic:>10.4f}",
            f"{'df':<28}{self.df:>10d}",
            f"{'p':<28}{self.pvalue:>10.4g}",
            f"{'Items':<28}{self.n_items:>10d}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values."""
        return result_dict(
            self,
            ("method", "statistic", "df", "pvalue", "n_items", "differences"),
            **labels_dict(self.labels),
        )


public_module(MarginalHomogeneityResult)


def marginal_homogeneity_test(
    a: ArrayLike,
    b: ArrayLike,
    *,
    method: Literal["stuart-maxwell", "bhapkar"] = "stuart-maxwell",
    labels: ArrayLike | None = None,
    nan_policy: NanPolicy = "raise",
) -> MarginalHomogeneityResult:
    """Test whether two raters use the categories equally often (rater bias).

    Parameters
    ----------
    a, b : array-like of shape (n_items,)
        The two raters' ratings of the same items (numbers or text).
    method : {"stuart-maxwell", "bhapkar"}, default="stuart-maxwell"
        Stuart–Maxwell's statistic (eq. H2; R ``irr::stuart.maxwell.mh``, with two
        categories McNemar's test and ``irr::rater.bias``) or Bhapkar's (eq. H3;
        ``irr::bhapkar``), its Wald form, larger and more powerful.
    labels : array-like of shape (K,), default=None
        The categories; without them, those that occur.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its pair is
        left out. The result has no NaN form: ``"propagate"`` is refused
        (``docs/getting-started.md``, "Missing values"). Until 0.2 such pairs were left out
        silently; the default is now that of every statistic of two raters.

    Returns
    -------
    MarginalHomogeneityResult
        ``statistic``, ``df``, ``pvalue``, ``summary()``, ``to_dict()``.

    Raises
    ------
    ValueError
        When no pair disagrees (the covariance of the margins is zero: there is
        nothing to test), for unequal lengths or an unknown ``method``.

    Notes
    -----
    With nₖₗ the table and dₖ = nₖ. − n.ₖ, the covariance of d is
    Sₖₖ = nₖ. + n.ₖ − 2nₖₖ and Sₖₗ = −(nₖₗ + nₗₖ) (eq. H1); S is singular (its
    rows sum to zero), and the statistic is dᵀS⁺d with S⁺ the Moore–Penrose inverse, on
    rank(S) degrees of freedom (eq. H2). When one category is left out and the rest of
    S is invertible this is Stuart's and Maxwell's dᵀS⁻¹d on K − 1 degrees of freedom,
    whichever category is left out; a category rated only on the diagonal contributes
    nothing and loses a degree of freedom. (R irr drops every category with equal
    margins before it inverts, which changes the statistic when such a category has
    ratings off the diagonal; it fails on a singular S otherwise.)

    Examples
    --------
    Stuart's (1953) unaided vision of 7,477 women, right eye against left (R irr's
    ``vision``): ``stuart.maxwell.mh`` prints χ² = 11.96 on 3 df, p = 0.00753:

    >>> import numpy as np, qwkit
    >>> table = np.array([[1520, 266, 124, 66], [234, 1512, 432, 78],
    ...                   [117, 362, 1772, 205], [36, 82, 179, 492]])
    >>> right, left = np.divmod(np.repeat(np.arange(16), table.ravel()), 4)
    >>> res = qwkit.marginal_homogeneity_test(right + 1, left + 1)
    >>> round(res.statistic, 2), res.df, round(res.pvalue, 5)
    (11.96, 3, 0.00753)
    """
    method = check_choice(method, "method", _METHODS)
    a, b = paired((a, b), ("a", "b"))
    a, b = nan_rows(nan_policy, (a, b), ("a", "b"), allowed=RAISE_OR_OMIT).values
    if np.ndim(a) != 1 or np.ndim(b) != 1 or len(a) != len(b):
        raise QwkitError(
            f"`a` and `b` must be 1-D and of the same length; got shapes {np.shape(a)} "
            f"and {np.shape(b)}.",
            parameter="a",
            also=("b",),
        )
    try:
        prep = _in.prepare_for_coefficient({"a": a, "b": b}, "fleiss", "identity", labels)
    except QwkitError as exc:  # said of the two raters' columns: name them, not `ratings`
        if exc.parameter != "ratings":
            raise
        column = "b" if "column 'b'" in str(exc) else "a"
        message = str(exc).replace("`ratings`", "`(a, b)`", 1)
        raise type(exc)(message, parameter=column, also=("a", "b")) from None
    panel = prep.panel
    both = np.repeat(panel.per_item == 2, panel.per_item)
    code, rater = panel.code[both], panel.rater[both]
    x, y = code[rater == 0], code[rater == 1]  # items rated by both, in item order
    k = prep.index.shape[0]
    table = np.bincount(x * k + y, minlength=k * k).reshape(k, k).astype(np.float64)
    n = int(x.shape[0])
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    d = rows - cols
    s = -(table + table.T)
    np.fill_diagonal(s, rows + cols - 2.0 * np.diag(table))  # (eq. H1)
    rank = int(np.linalg.matrix_rank(s))
    if rank == 0:
        raise QwkitError(
            f"`a` and `b` agree on every one of the {n} items: no pair disagrees, so "
            "there is no difference between the margins to test.",
            parameter="a",
            also=("b",),
        )
    stat = float(d @ np.linalg.pinv(s, hermitian=True) @ d)  # (eq. H2)
    if method == "bhapkar":
        rest = 1.0 - stat / n
        # X² = n (every pair disagrees one way) makes W infinite; rounding leaves ~1e-16
        stat = stat / rest if rest > 1e-12 else math.inf  # (eq. H3)
    labels_out = prep.scale.labels_at(prep.index)
    return MarginalHomogeneityResult(
        statistic=stat,
        df=rank,
        pvalue=float(special.chdtrc(rank, stat)),
        method=method,
        differences=d.astype(np.int64),
        n_items=n,
        labels=labels_out,
    )
