"""Agreement on each category: Fleiss' kappa of "this category or another", category by
category (Fleiss 1971), with standard errors and tests.

``category_agreement`` reads validate → compute → wrap: the ratings are validated once
(``_input.prepare_for_coefficient``), then each category that occurs gives a two-category
problem — its codes 1, every other code 0 — whose Fleiss kappa, Gwet's standard error and
t-test are those of :func:`agreement_test` (eq. K1 of ``docs/agreement.md``), and
whose null standard error is Fleiss, Nee & Landis's (eq. K2), the z of R
``irr::kappam.fleiss(detail = TRUE)``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from qwkit._agreement import _input as _in
from qwkit._agreement._score import _test
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._ratings import RatingsLike
from qwkit._base._results import freeze_arrays, plain, public_module, reduce_dataclass
from qwkit._base._validation import check_confidence_level, check_interval_method
from qwkit._base._warnings import DegenerateIntervalWarning
from qwkit._table._resampling import ConfidenceInterval

__all__ = ["CategoryAgreementResult", "category_agreement", "category_kappas"]


@dataclass(frozen=True, slots=True, eq=False)
class CategoryAgreementResult:
    """Result of :func:`category_agreement`: one entry per category that occurs.

    Attributes
    ----------
    labels : ndarray of shape (V,)
        The categories that occur, in scale order.
    statistic : ndarray of shape (V,)
        Fleiss' kappa of each category against all others (eq. K1).
    standard_error : ndarray of shape (V,)
        Gwet's (2014) standard error of each (as :func:`agreement_test`).
    standard_error_null : ndarray of shape (V,)
        The standard error under no agreement beyond chance, √(2/(n·m(m − 1))) for n
        items with m ratings each (eq. K2; R irr's); nan unless every item has the same
        number of ratings.
    zstatistic : ndarray of shape (V,)
        statistic / standard_error_null (R irr's z).
    pvalue : ndarray of shape (V,)
        Two-sided p-value of no agreement beyond chance on the category: the z-test of
        R irr when every item has as many ratings, else Student's t on the standard
        error with n − 1 degrees of freedom (as :func:`agreement_test`).
    proportion : ndarray of shape (V,)
        Πₖ, the share of the ratings in each category (each item weighing 1).
    n_items, n_raters : int
        Rated items and raters with a rating.
    """

    labels: np.ndarray
    statistic: np.ndarray
    standard_error: np.ndarray
    standard_error_null: np.ndarray
    zstatistic: np.ndarray
    pvalue: np.ndarray
    proportion: np.ndarray
    n_items: int
    n_raters: int

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def kappas(self) -> dict:
        """``{category: kappa}``, in scale order."""
        return dict(zip(plain(self.labels), plain(self.statistic), strict=True))

    def confidence_interval(
        self, confidence_level: float = 0.95, *, method: str = "asymptotic"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each category's interval, statistic ± t(1 − α/2, n − 1)·SE (irrCAC's
        interval, upper limit capped at 1), as arrays.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Strictly between 0 and 1.
        method : {"asymptotic"}, default="asymptotic"
            The only one (resample one category with :func:`agreement_test` on the
            two-category ratings for the others).
        """
        check_interval_method(method, "asymptotic", "category_agreement")
        level = check_confidence_level(confidence_level)
        t = float(special.stdtrit(max(self.n_items - 1, 1), (1.0 + level) / 2.0))
        low = self.statistic - t * self.standard_error
        high = np.minimum(self.statistic + t * self.standard_error, 1.0)
        # a ConfidenceInterval (low, high) holding arrays, one value per category
        return ConfidenceInterval(low, high)  # type: ignore[arg-type, return-value]

    def summary(self, confidence_level: float = 0.95) -> str:
        """A table: each category's kappa, standard errors, limits, z and p-value."""
        low, high = self.confidence_interval(confidence_level)
        pct = f"{100 * check_confidence_level(confidence_level):g}%"
        head = (
            f"{'category':<14}{'kappa':>9}{'SE':>9}{'SE (null)':>11}"
            f"{pct + ' limits':>20}{'z':>9}{'p':>11}"
        )
        lines = ["Agreement on each category (Fleiss' kappa, category vs the rest)", head]
        lines.append("-" * len(head))
        for i, lab in enumerate(plain(self.labels)):
            lines.append(
                f"{lab!s:<14}{self.statistic[i]:>9.4f}{self.standard_error[i]:>9.4f}"
                f"{self.standard_error_null[i]:>11.4f}{low[i]:>10.4f}{high[i]:>10.4f}"
                f"{self.zstatistic[i]:>9.3f}{self.pvalue[i]:>11.4g}"
            )
        lines += ["", f"{self.n_items} items, {self.n_raters} raters"]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values (lists for the arrays)."""
        return plain(
            {
                "labels": self.labels,
                "statistic": self.statistic,
                "standard_error": self.standard_error,
                "standard_error_null": self.standard_error_null,
                "zstatistic": self.zstatistic,
                "pvalue": self.pvalue,
                "proportion": self.proportion,
                "n_items": self.n_items,
                "n_raters": self.n_raters,
            }
        )


public_module(CategoryAgreementResult)

_TWO = _in.Scale(2, text=" (this category or another)")
_TWO_INDEX = np.array([0, 1])
_TWO_COORDS = np.array([0.0, 1.0])


def category_agreement(
    ratings: RatingsLike,
    *,
    labels: ArrayLike | None = None,
    nan_policy: NanPolicy = "omit",
) -> CategoryAgreementResult:
    """Fleiss' kappa of each category: how well raters agree on putting items in it.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        One row per item, one column per rater, NaN or None where missing; numbers or
        text (categories, in any order).
    labels : array-like of shape (K,), default=None
        The categories, to order the result and to check the ratings against; only the
        categories that occur get a kappa.
    nan_policy : {"omit", "raise"}, default="omit"
        A missing entry (NaN, None, ``pd.NA``; in a :class:`RatingsTable`, a rating not
        given) means "not rated": with ``"omit"`` the item counts with the ratings it has.
        ``"raise"`` asks for a complete table (every item rated by every rater). The result
        has no NaN form: ``"propagate"`` is refused (``docs/getting-started.md``, "Missing
        values").

    Returns
    -------
    CategoryAgreementResult
        Arrays ``labels``, ``statistic``, ``standard_error``, ``standard_error_null``,
        ``zstatistic``, ``pvalue``; ``kappas`` as a dict; ``confidence_interval()``,
        ``summary()``, ``to_dict()``.

    See Also
    --------
    agreement_test : One coefficient over every category (``coefficient="fleiss"``).

    Notes
    -----
    Category k's kappa is Fleiss' kappa after recoding every rating as "k" or "not k"
    (eq. K1): with every item rated m times it is Fleiss' (1971) κₖ = (p̄ₖ − pₖ)/(1 − pₖ),
    R ``irr::kappam.fleiss(detail = TRUE)``'s values; with missing ratings it is the
    Fleiss kappa of :func:`agreement_test` (items with fewer ratings count as there).
    Fleiss' overall kappa is the average of the κₖ weighted by pₖ(1 − pₖ) (eq. K3).

    Examples
    --------
    R irr's ``diagnoses`` (Fleiss 1971: 30 patients, 6 psychiatrists, five diagnoses):
    ``kappam.fleiss(diagnoses, detail = TRUE)`` prints 0.245, 0.245, 0.520, 0.471,
    0.566 with z = 5.192 for the first:

    >>> import qwkit
    >>> rows = [
    ...  "444444", "222555", "233335", "555555", "222444", "113333", "333355",
    ...  "113334", "114444", "555555", "144444", "124444", "222333", "144444",
    ...  "224445", "333335", "111455", "111112", "224444", "133555", "555555",
    ...  "244444", "224555", "114444", "144445", "222224", "111155", "224444",
    ...  "133333", "555555"]
    >>> diagnoses = [[int(c) for c in row] for row in rows]
    >>> res = qwkit.category_agreement(diagnoses)
    >>> res.statistic.round(3).tolist()
    [0.245, 0.245, 0.52, 0.471, 0.566]
    >>> round(float(res.zstatistic[0]), 3)
    5.192
    """
    nan_rows(nan_policy, (ratings,), ("ratings",), kind="table", allowed=RAISE_OR_OMIT)
    prep = _in.prepare_for_coefficient(ratings, "fleiss", "identity", labels)
    panel = prep.panel
    per_item = panel.per_item.astype(np.float64)
    same = bool(np.all(per_item == per_item[0]))
    n, r = panel.n_items, float(per_item[0])
    item = np.repeat(np.arange(n), panel.per_item)
    v = prep.index.shape[0]
    kappa, se, se0, p, share = (np.empty(v) for _ in range(5))
    for c in range(v):
        hit = (panel.code == c).astype(np.intp)
        two = replace(
            prep,
            panel=replace(panel, code=hit, index=_TWO_INDEX, coords=_TWO_COORDS, scale=_TWO),
            coords=_TWO_COORDS,
            index=_TWO_INDEX,
            scale=_TWO,
        )
        res = _quiet_test(two)
        kappa[c], se[c] = res.statistic, res.standard_error
        share[c] = float(np.mean(np.bincount(item, weights=hit, minlength=n) / per_item))
        if same and r >= 2:
            se0[c] = math.sqrt(2.0 / (n * r * (r - 1.0)))  # (eq. K2)
            p[c] = float(2.0 * special.ndtr(-abs(kappa[c] / se0[c])))
        else:
            se0[c], p[c] = math.nan, res.pvalue
    return CategoryAgreementResult(
        labels=prep.scale.labels_at(prep.index),
        statistic=kappa,
        standard_error=se,
        standard_error_null=se0,
        zstatistic=kappa / se0,
        pvalue=p,
        proportion=share,
        n_items=int(n),
        n_raters=int(panel.n_raters),
    )


def _quiet_test(prep):
    """``agreement_test`` of a two-category problem; a zero standard error (perfect
    agreement on the category) leaves its t-test nan without a warning here: the
    z-test is what is reported then."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        return _test(prep, "two-sided", None)


#: R irr's name (``kappam.fleiss(detail = TRUE)`` prints "kappas" per category).
category_kappas = category_agreement
