"""Gradient and Hessian approximations of the soft kappa loss 1 − κ (docs/training.md).

Notation (docs/training.md, part 1): items with weights wᵢ ≥ 0, W = Σw, weighted means
ȳ and f̄, centered sums S_yy, S_ff, S_yf, and

    N = Σw(y − f)²,   D = S_yy + S_ff + W(f̄ − ȳ)²,   L = N / D = 1 − κ        (T1)
    κ = 2·S_yf / D                                                           (T2)
    gᵢ = ∂L/∂fᵢ = 2wᵢ·[κ(fᵢ − ȳ) − (yᵢ − ȳ)] / D                             (T4)
    H = (2κ/D)·diag(w) − (g dᵀ + d gᵀ)/D,   dᵢ = ∂D/∂fᵢ = 2wᵢ(fᵢ − ȳ)          (T5)

Everything is computed from centered data scaled by powers of two (exact), so that data
far from zero (10⁹ + small ratings) or of extreme magnitude lose nothing to cancellation,
overflow or underflow (``_base._numerics.centered_moments``, which the boosting
objectives of ``_integrations._boosting`` use too: the same derivatives times the common
factor D/2, T10, with the intercept handled exactly, T13).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._item_weights import item_weights
from qwkit._base._items import paired
from qwkit._base._numerics import centered_moments
from qwkit._base._validation import check_choice, check_same_length, real_vector

__all__ = ["kappa_gradient_hessian"]

_HESSIANS = ("gauss-newton", "dinkelbach", "diagonal")


def kappa_gradient_hessian(
    y_true: ArrayLike,
    raw_prediction: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    hessian: Literal["gauss-newton", "dinkelbach", "diagonal"] = "gauss-newton",
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and a Hessian approximation of the soft kappa loss 1 − κ.

    The loss is L = 1 − κ with κ the continuous quadratic weighted kappa of
    :func:`qwkit.soft_kappa_score`. The gradient ∂L/∂fᵢ is exact; the Hessian is dense,
    so a per-item approximation is returned, chosen by ``hessian``.

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        True ratings (real or integer); not all equal.
    raw_prediction : array-like of shape (n_items,)
        Real-valued predictions f (raw scores, not rounded).
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative weight of each item (finite, positive sum).
    counts : array-like of int of shape (n_items,), default=None
        Integer multiplicities: each row stands for that many identical items. For the
        derivatives this is the same as ``sample_weight``; give one or the other.
    hessian : {"gauss-newton", "dinkelbach", "diagonal"}, default="gauss-newton"
        The per-item curvature:

        - ``"gauss-newton"``: 2wᵢ/D (T9a), the Gauss–Newton matrix of the least-squares
          problem with the denominator frozen at the current predictions. Strictly
          positive for every item of positive weight: the one to give a booster.
        - ``"dinkelbach"``: 2κwᵢ/D (T9b), the exact Hessian without its rank-two term:
          the Hessian of Dinkelbach's parametric problem, and the exact Hessian wherever
          the gradient vanishes (T8). Positive only where κ > 0; zero at any constant.
        - ``"diagonal"``: the exact diagonal Hᵢᵢ (T6). Indefinite in general: zero at
          the constant ȳ (the weighted mean of ``y_true``), of either sign at other
          constants.

    Returns
    -------
    gradient : ndarray of shape (n_items,)
        ∂(1 − κ)/∂fᵢ (T4). Zero for items of zero weight.
    hessian : ndarray of shape (n_items,)
        The chosen curvature per item. Zero for items of zero weight.

    Raises
    ------
    ValueError
        Lengths differ, values are NaN or infinite, an input is empty, both
        ``sample_weight`` and ``counts`` are given, weights or counts are invalid, or
        ``y_true`` is constant (then κ is 0 for every prediction, or 0/0: there is no
        gradient to follow).
    TypeError
        Non-numeric input.

    See Also
    --------
    soft_kappa_score : The κ whose loss this differentiates.
    qwkit.lightgbm.kappa_objective, qwkit.xgboost.kappa_objective : Boosting objectives
        built on these derivatives.

    Notes
    -----
    With weights w, W = Σw, weighted means ȳ, f̄ and centered sums S (docs/training.md,
    where each equation is derived):

        N = Σw(y − f)²,  D = S_yy + S_ff + W(f̄ − ȳ)² = S_yy + Σw(f − ȳ)²,  L = N/D  (T1)
        κ = 1 − L = 2·S_yf / D                                                  (T2)
        gᵢ = 2wᵢ·[κ(fᵢ − ȳ) − (yᵢ − ȳ)] / D                                     (T4)
        H = (2κ/D)·diag(w) − (g dᵀ + d gᵀ)/D,   dᵢ = 2wᵢ(fᵢ − ȳ)                 (T5)

    The derivatives are raw: per-item gradients are O(1/n), because 1 − κ is a ratio of
    sums. The boosting objectives multiply gradient and Hessian by D/2 (T10), which
    leaves every Newton step unchanged and makes the Gauss–Newton curvature equal to
    wᵢ, as for squared error.

    Examples
    --------
    >>> import qwkit
    >>> y, f = [1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6]
    >>> grad, hess = qwkit.kappa_gradient_hessian(y, f)
    >>> [round(float(v), 6) for v in grad]
    [0.055795, -0.016654, 0.080107, -0.098098]
    >>> [round(float(v), 6) for v in hess]
    [0.220507, 0.220507, 0.220507, 0.220507]
    """
    check_choice(hessian, "hessian", _HESSIANS)
    y_true, raw_prediction, sample_weight, counts = paired(  # one value per prediction
        (y_true, raw_prediction, sample_weight, counts),
        ("y_true", "raw_prediction", "sample_weight", "counts"),
        reference=1,
    )
    y = real_vector(y_true, "y_true")
    f = real_vector(raw_prediction, "raw_prediction")
    check_same_length(y, f, ("y_true", "raw_prediction"))
    if y.shape[0] == 0:
        raise QwkitError(
            "`y_true` and `raw_prediction` are empty; kappa needs items.",
            parameter="y_true",
            also=("raw_prediction",),
        )
    w = item_weights(sample_weight, counts, y.shape[0]).as_float()
    w = np.ones(y.shape[0]) if w is None else w
    m = centered_moments(y, f, w)
    den = m.syy + m.sff + m.total * m.gap * m.gap  # (T1)
    kappa = 2.0 * m.syf / den  # (T2)
    dev = m.df + m.gap  # f − ȳ
    err = kappa * dev - m.dy  # κ(f − ȳ) − (y − ȳ)
    grad = 2.0 * m.w * err / den  # (T4)
    if hessian == "gauss-newton":
        curv = 2.0 * m.w / den  # (T9a)
    elif hessian == "dinkelbach":
        curv = 2.0 * kappa * m.w / den  # (T9b)
    else:
        curv = 2.0 * m.w / den * (kappa - 4.0 * m.w * err * dev / den)  # (T6)
    # Undo the scaling: data were multiplied by 2**shift; L is invariant, so the
    # gradient carries one factor 2**shift and the Hessian two.
    with np.errstate(over="ignore"):
        grad, curv = np.ldexp(grad, m.shift), np.ldexp(curv, 2 * m.shift)
    if not (np.isfinite(grad).all() and np.isfinite(curv).all()):
        raise QwkitError(
            "The derivatives overflow float64: the spread of `y_true` and `raw_prediction` "
            f"is about 2**{-m.shift}. Multiply both by one constant first (κ does not change).",
            parameter="y_true",
        )
    return grad, curv


# ---------------------------------------------------------------------------- internals
