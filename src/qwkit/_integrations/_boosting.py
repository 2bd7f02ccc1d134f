"""What the LightGBM and XGBoost objectives share (``qwkit.lightgbm``, ``qwkit.xgboost``).

:func:`boosting_gradient_hessian` is what a booster receives: the derivatives of the soft
kappa loss 1 − κ (docs/training.md, T4 and T9a, as :func:`qwkit.kappa_gradient_hessian`
computes them) times the common factor D/2 (T10), with the intercept handled exactly
(T13). :class:`BoostingObjective` holds the ``intercept`` option; each integration adds
its library's calling conventions, and :func:`users_terms` says errors in the words of
the booster's user.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Literal

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._item_weights import item_weights
from qwkit._base._numerics import centered_moments
from qwkit._base._validation import check_choice, check_same_length, real_vector

__all__ = ["BoostingObjective", "boosting_gradient_hessian", "call_names", "users_terms"]

INTERCEPTS = ("exact", "gradient")


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
    m = centered_moments(y, f, w)
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
