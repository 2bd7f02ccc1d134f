"""Gradient and Hessian approximations of the soft kappa loss 1 − κ (docs/training.md).

Notation (docs/training.md, part 1): items with weights wᵢ ≥ 0, W = Σw, weighted means
ȳ and f̄, centered sums S_yy, S_ff, S_yf, and

    N = Σw(y − f)²,   D = S_yy + S_ff + W(f̄ − ȳ)²,   L = N / D = 1 − κ        (T1)
    κ = 2·S_yf / D                                                           (T2)
    gᵢ = ∂L/∂fᵢ = 2wᵢ·[κ(fᵢ − ȳ) − (yᵢ − ȳ)] / D                             (T4)
    H = (2κ/D)·diag(w) − (g dᵀ + d gᵀ)/D,   dᵢ = ∂D/∂fᵢ = 2wᵢ(fᵢ − ȳ)          (T5)

Everything is computed from centered data scaled by powers of two (exact), so that data
far from zero (10⁹ + small ratings) or of extreme magnitude lose nothing to cancellation,
overflow or underflow.

The boosting integrations (`qwkit.lightgbm`, `qwkit.xgboost`) share
:func:`boosting_gradient_hessian`: the same derivatives times the common factor D/2
(T10), with the intercept handled exactly (T13).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qwkit._errors import QwkitError
from qwkit._validation import (
    check_choice,
    check_same_length,
    item_weights,
    real_vector,
)

__all__ = ["kappa_gradient_hessian"]

_HESSIANS = ("gauss-newton", "dinkelbach", "diagonal")
INTERCEPTS = ("exact", "gradient")


class _Moments(NamedTuple):
    """Centered data scaled by 2**shift (shift chosen so that the largest is in [½, 1))."""

    w: np.ndarray  # weights scaled by a power of two (ratios unchanged)
    total: float  # Σw of the scaled weights
    dy: np.ndarray  # y − ȳ, scaled
    df: np.ndarray  # f − f̄, scaled
    gap: float  # f̄ − ȳ, scaled
    syy: float
    sff: float
    syf: float
    shift: int  # data were multiplied by 2**shift


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
    y_true : array-like of shape (n_samples,)
        True ratings (real or integer); not all equal.
    raw_prediction : array-like of shape (n_samples,)
        Real-valued predictions f (raw scores, not rounded).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weight of each item (finite, positive sum).
    counts : array-like of int of shape (n_samples,), default=None
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
    gradient : ndarray of shape (n_samples,)
        ∂(1 − κ)/∂fᵢ (T4). Zero for items of zero weight.
    hessian : ndarray of shape (n_samples,)
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
    m = _moments(y, f, w)
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


def boosting_gradient_hessian(
    y: np.ndarray, f: np.ndarray, w: np.ndarray | None, *, intercept: str
) -> tuple[np.ndarray, np.ndarray]:
    """What a booster receives: (T4) and (T9a) times the common factor D/2 (T10).

    ``intercept="gradient"``: the scaled exact gradient wᵢ[κ(fᵢ − ȳ) − (yᵢ − ȳ)].
    ``intercept="exact"`` (T13): the scaled exact gradient at the mean-corrected
    predictions f − f̄ + ȳ, plus the intercept's own residual wᵢ(f̄ − ȳ), i.e.
    wᵢ[(fᵢ − yᵢ) − (1 − κ_c)(fᵢ − f̄)] with κ_c = 2S_yf/(S_yy + S_ff). The Hessian is
    wᵢ in both cases (the Gauss–Newton curvature times D/2).

    ``y``: the labels (``y_true``), ``f``: the raw predictions (``y_pred``), ``w``: None
    or the item weights (``sample_weight``), as the booster passes them; each is
    validated under that name (numbers, finite, one per item, not empty, ``y`` not
    constant). :func:`users_terms` says the names as the booster's user knows them.
    """
    if isinstance(f, np.ndarray) and f.ndim == 2 and f.shape[1] != 1:
        raise QwkitError(
            "qwkit's kappa objective is for regression with one raw score per item; got "
            f"predictions of shape {f.shape}.",
            parameter="y_pred",
        )
    y, f = (
        real_vector(v.ravel() if isinstance(v, np.ndarray) and v.ndim == 2 else v, name)
        for v, name in ((y, "y_true"), (f, "y_pred"))
    )
    if y.shape[0] == 0:
        given = f" ({f.shape[0]:,} predictions, no label)" if f.shape[0] else ""
        raise QwkitError(
            f"`y_true` is empty{given}: the kappa objective needs the rating of every item.",
            parameter="y_true",
        )
    check_same_length(y, f, ("y_true", "y_pred"))
    w = item_weights(None if w is None else np.ravel(w), None, y.shape[0]).as_float()
    w = np.ones_like(y) if w is None else w
    m = _moments(y, f, w)
    if intercept == "exact":
        kappa_c = 2.0 * m.syf / (m.syy + m.sff)  # (T13): κ of f − f̄ + ȳ
        err = kappa_c * m.df - m.dy + m.gap  # (f − y) − (1 − κ_c)(f − f̄)   (T13)
    else:
        den = m.syy + m.sff + m.total * m.gap * m.gap  # (T1)
        err = 2.0 * m.syf / den * (m.df + m.gap) - m.dy  # κ(f − ȳ) − (y − ȳ)   (T10)
    # err is in units of the data scaled by 2**shift; the weights are the caller's.
    return w * np.ldexp(err, -m.shift), w.copy()  # (T10)


@contextlib.contextmanager
def users_terms(names: Mapping[str, str] | None) -> Iterator[None]:
    """Errors raised inside, with the parameters they name said as the booster's user
    knows them: in a native call (``(preds, dataset)``) the labels are the Dataset's
    ``label``, not a ``y_true`` the user never wrote. ``names``: parameter → text (None:
    errors pass unchanged)."""
    if not names:
        yield
        return
    try:
        yield
    except QwkitError as exc:
        text = exc.reworded(dict(names))
        also = exc.parameters[1:] if exc.parameter is not None else exc.parameters
        raise type(exc)(
            text[:1].upper() + text[1:], parameter=exc.parameter, row=exc.row, also=also
        ) from None


def call_names(container: str | None, preds: str) -> dict[str, str]:
    """The names of :func:`users_terms` for a booster's call: in a native call
    (``container``: "Dataset", "DMatrix") the labels and weights are that object's
    fields and the predictions are ``preds``; in the scikit-learn call (``container``
    None) the arguments are ``y_true``, ``y_pred`` and ``sample_weight``, as named, and
    the metric's scores (``soft_kappa_score``'s ``y_score``) are ``y_pred``."""
    if container is None:
        return {"y_score": "`y_pred`"}
    return {
        "y_true": f"the {container}'s `label`",
        "y_pred": f"`{preds}`",
        "y_score": f"`{preds}`",
        "sample_weight": f"the {container}'s `weight`",
    }


class BoostingObjective:
    """What the LightGBM and XGBoost objectives share: the ``intercept`` option
    (validated once), the gradient and curvature of :func:`boosting_gradient_hessian`,
    repr, equality and hash. Each integration adds ``__call__`` for its library's
    calling conventions."""

    def __init__(self, *, intercept: Literal["exact", "gradient"] = "exact"):
        self.intercept = check_choice(intercept, "intercept", INTERCEPTS)

    def gradient_hessian(
        self, labels, preds, weight, *, names: Mapping[str, str] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The booster's gradient and Hessian; errors name the inputs by ``names`` (qwkit's
        parameter name → the name the booster's user knows it by)."""
        with users_terms(names):
            return boosting_gradient_hessian(labels, preds, weight, intercept=self.intercept)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(intercept={self.intercept!r})"

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.intercept == self.intercept

    def __hash__(self) -> int:
        return hash((type(self), self.intercept))


# ---------------------------------------------------------------------------- internals


def _moments(y: np.ndarray, f: np.ndarray, w: np.ndarray) -> _Moments:
    """Centered, power-of-two-scaled data and their weighted sums (exact scalings)."""
    used = w > 0
    y_used = y[used]
    if y_used.min() == y_used.max():
        raise QwkitError(
            f"`y_true` is constant ({y_used[0]:g} for every item of positive weight): κ is "
            "0 for every prediction (0/0 when they match), so 1 − κ has no gradient to "
            "follow. Kappa needs at least two different ratings.",
            parameter="y_true",
        )
    # Weights to [½, 1) and data to at most 1 in magnitude, by powers of two: ratios and
    # κ are unchanged, and neither the centering below nor any square can overflow.
    w = np.ldexp(w, -int(np.frexp(w.max())[1]))
    top = max(float(np.abs(y).max()), float(np.abs(f).max()))
    shift = -int(np.frexp(top)[1])
    y, f = np.ldexp(y, shift), np.ldexp(f, shift)
    total = float(w.sum())
    dy = y - np.dot(w, y) / total
    df = f - np.dot(w, f) / total
    dy -= np.dot(w, dy) / total  # second pass: means exact to rounding
    df -= np.dot(w, df) / total
    gap = float(np.dot(w, f - y)) / total
    # Centered data to [½, 1): their squares can neither underflow nor overflow.
    size = max(float(np.abs(dy).max()), float(np.abs(df).max()), abs(gap))
    extra = -int(np.frexp(size)[1])
    dy, df, gap = np.ldexp(dy, extra), np.ldexp(df, extra), float(np.ldexp(gap, extra))
    return _Moments(
        w=w,
        total=total,
        dy=dy,
        df=df,
        gap=gap,
        syy=float(np.dot(w * dy, dy)),
        sff=float(np.dot(w * df, df)),
        syf=float(np.dot(w * dy, df)),
        shift=shift + extra,
    )
