"""Compare and combine kappas: the paired two-model test and the Fisher-z mean.

``compare_kappa_test`` asks whether two models scored on the same items have different
kappas against the same truth. The two kappas are correlated (same items, same truth),
so the test is paired: each item sits in one cell (t, a, b) of the K×K×K table of
truth and both predictions, which is the sufficient statistic for both kappas at once.
Its delta-method variance (eq. 10 of ``docs/inference.md``) is the variance of the
difference of the two influence functions of eq. 3; the bootstrap draws that table.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from qwkit import _sufficient
from qwkit._cells import CellKappa, tabulate
from qwkit._errors import QwkitError, QwkitTypeError
from qwkit._numerics import unit_scale
from qwkit._resampling import Estimator, Resampled, pvalue, zero_se_pvalue
from qwkit._results import labels_dict, result_dict
from qwkit._scale import measure_scale, prepare_ratings, scale_values
from qwkit._validation import as_1d, check_alternative, item_weights
from qwkit._weights import WeightsLike, check_weights, kind_name

__all__ = ["KappaComparisonResult", "compare_kappa_test", "mean_kappa"]

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
    n_samples : int
        Number of items (with positive weight; with ``counts``, their sum).
    labels : ndarray of shape (K,)
        The rating scale shared by the three vectors (for an integer scale wider than
        10,000 categories, a ``range``).
    """

    statistic: float
    kappa_a: float
    kappa_b: float
    standard_error: float
    pvalue: float
    n_samples: int
    alternative: str = field(repr=False)
    weights_kind: str = field(repr=False)
    labels: np.ndarray | range = field(repr=False)
    _estimator: Estimator = field(repr=False)

    def summary(self) -> str:
        """Text block: both kappas, the difference, its SE, 95% limits and the z-test."""
        half = float(special.ndtri(0.975)) * self.standard_error
        z = self.statistic / self.standard_error if self.standard_error > 0 else math.nan
        title = f"Paired Comparison of Kappas ({self.weights_kind} weights)"
        lines = [
            title,
            "-" * len(title),
            f"{'Kappa (a)':<26}{self.kappa_a:>10.4f}",
            f"{'Kappa (b)':<26}{self.kappa_b:>10.4f}",
            f"{'Difference (a - b)':<26}{self.statistic:>10.4f}",
            f"{'ASE':<26}{self.standard_error:>10.4f}",
            f"{'95% Lower Conf Limit':<26}{self.statistic - half:>10.4f}",
            f"{'95% Upper Conf Limit':<26}{self.statistic + half:>10.4f}",
            "",
            "   Test of H0: Kappa (a) = Kappa (b)",
            "",
            f"{'Z':<26}{z:>10.4f}",
            f"{'Pr (' + self.alternative + ')':<26}{self.pvalue:>10.4f}",
            "",
            f"{'Number of items':<26}{self.n_samples:>10d}",
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
                "n_samples",
                "alternative",
            ),
            weights=self.weights_kind,
            **labels_dict(self.labels),
        )


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
) -> KappaComparisonResult:
    """Paired test of whether two models' kappas on the same items differ.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True ratings.
    y_pred_a, y_pred_b : array-like of shape (n_samples,)
        Predictions of model a and model b for the same items.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights, indexed ``[rating of y_true, rating of y_pred]``.
    labels : array-like of shape (K,), default=None
        The ordered rating scale, shared by the three vectors. When None and the
        ratings are integers, every integer from the smallest to the largest rating of
        all three.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative survey weight of each item (the rows are the sampling units, as
        in :func:`kappa_test`).
    counts : array-like of shape (n_samples,), default=None
        Whole numbers: how many identical items each row stands for (exclusive with
        ``sample_weight``); the result equals that of the repeated rows.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"`` tests κ_a > κ_b.

    Returns
    -------
    KappaComparisonResult
        ``statistic`` (κ_a − κ_b), ``kappa_a``, ``kappa_b``, ``standard_error``,
        ``pvalue``, ``n_samples``, ``.confidence_interval(...)``, ``.summary()``.

    Warns
    -----
    UndefinedKappaWarning
        When either kappa is 0/0: every number is nan.
    DegenerateIntervalWarning
        When the standard error is zero (e.g. identical predictions): p-value nan.

    Raises
    ------
    QwkitError, QwkitTypeError
        As :func:`kappa_score` for each pair, and for an unknown ``alternative``.

    See Also
    --------
    kappa_test : Inference for one kappa.

    Notes
    -----
    Both kappas are functions of the K×K×K table U of (truth, a, b): kappa a of its
    (truth, a) margin, kappa b of its (truth, b) margin. Each item's influence on the
    difference is g_a(t, a) − g_b(t, b) with g of eq. 3, and the variance of the
    difference is the variance of that influence over the items (eq. 10): the
    correlation between the two kappas, which an unpaired test would ignore, is
    accounted for exactly. Unlike two separate intervals, this is a valid test.

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
    """
    alternative = check_alternative(alternative)
    kind = check_weights(weights)
    names = ("y_true", "y_pred_a", "y_pred_b")
    ordered = not (isinstance(kind, str) and kind == "identity")
    r = prepare_ratings((y_true, y_pred_a, y_pred_b), labels, names=names, ordered=ordered)
    iw = item_weights(sample_weight, counts, r.n_samples)

    offset, k = measure_scale(r)
    cells = tabulate(r, iw, kind, hint=_sufficient.scale_hint(r.labels, offset, k))
    truth, pred_a, pred_b = cells.digits
    model_a = CellKappa(rows=truth, cols=pred_a, wmat=cells.wmat)
    model_b = CellKappa(rows=truth, cols=pred_b, wmat=cells.wmat)
    sample = cells.sample
    w = sample.counts
    sa, sb = model_a.parts(w)[-1], model_b.parts(w)[-1]
    estimator = Estimator(
        sample=sample,
        batch=_Difference(
            functools.partial(model_a.batch, full_s=sa), functools.partial(model_b.batch, full_s=sb)
        ),
        leave_one_out=_Difference(
            functools.partial(model_a.leave_one_out, w), functools.partial(model_b.leave_one_out, w)
        ),
    )
    # each kappa is the value kappa_score returns (exact for integer ratings)
    ka, kb = (_sufficient.kappa(_sufficient.Pair(r.pair(0, j), kind, iw), math.nan) for j in (1, 2))
    scale = scale_values(r, offset, k)
    result = functools.partial(
        KappaComparisonResult,
        n_samples=sample.n_items,
        alternative=alternative,
        weights_kind=kind_name(kind),
        labels=scale,
        _estimator=estimator,
    )
    if math.isnan(ka) or math.isnan(kb):  # already warned
        nan = math.nan
        return result(nan, ka, kb, nan, nan)
    g = model_a.influence(w, ka) - model_b.influence(w, kb)  # (eq. 10)
    total = float(w.sum())
    gbar = float(np.dot(w, g)) / total
    se = math.sqrt(float(np.dot(sample.counts_sq, (g - gbar) ** 2))) / total  # (eq. 10)
    diff = ka - kb
    p = (
        pvalue(diff / se, alternative)
        if se > 0
        else zero_se_pvalue("standard error of the difference")
    )
    return result(float(diff), float(ka), float(kb), se, p)


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
