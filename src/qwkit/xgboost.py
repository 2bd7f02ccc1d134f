"""XGBoost objective and metric for quadratic weighted kappa (docs/training.md).

``import qwkit`` never imports this module; ``import qwkit.xgboost`` imports XGBoost
(``pip install 'qwkit[xgboost]'``).

- :data:`kappa_objective` — minimizes the soft kappa loss 1 − κ; give it as ``obj=`` to
  ``xgboost.train`` or as ``objective=`` to ``XGBRegressor``. :class:`KappaObjective`
  makes one with other options.
- :func:`kappa_metric` — the soft kappa loss 1 − κ (lower is better, XGBoost's default
  direction) as ``custom_metric=`` of ``xgboost.train`` or ``eval_metric=`` of
  ``XGBRegressor``.

Both callables serve both APIs: they recognize XGBoost's native call ``(preds, dmatrix)``
by the ``xgboost.DMatrix`` and its scikit-learn call ``(y_true, y_pred, sample_weight=...)``
by arrays. Sample weights come from the DMatrix (native) or ``fit(sample_weight=...)``.
"""

from __future__ import annotations

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

_xgb = require(
    "xgboost", feature="qwkit.xgboost", package="XGBoost", extra="xgboost", minimum="2.0"
)


import numpy as np

from qwkit import soft_kappa_score
from qwkit._integrations._boosting import BoostingObjective, call_names, users_terms

__all__ = ["KappaObjective", "kappa_metric", "kappa_objective"]

_METRIC_NAME = "soft_kappa_loss"


class KappaObjective(BoostingObjective):
    """XGBoost objective minimizing the soft kappa loss 1 − κ.

    A callable for ``obj=`` of ``xgboost.train`` (called as ``(preds, dtrain)``) and
    for ``objective=`` of ``XGBRegressor`` (called as ``(y_true, y_pred)`` or
    ``(y_true, y_pred, sample_weight=w)``). It returns the exact gradient of 1 − κ and
    its Gauss–Newton curvature, both multiplied by D/2 (docs/training.md, T10), so that
    the curvature of an item is its weight, as for squared error: ``min_child_weight``
    and ``reg_lambda`` keep their usual meaning.

    Parameters
    ----------
    intercept : {"exact", "gradient"}, default="exact"
        ``"exact"``: every round also moves the mean prediction to the weighted mean of
        the labels, the kappa-optimal intercept (T13); this is what makes training from
        XGBoost's start (``base_score`` 0.5 with a custom objective) work out of the box
        (``base_score`` at the label mean still did a little better on the wine data,
        docs/training.md, 2.3). ``"gradient"``: the plain gradient of 1 − κ (T10),
        which moves the mean only in proportion to κ (T11); use it only with
        ``base_score`` at the weighted label mean.

    Examples
    --------
    >>> from qwkit.xgboost import KappaObjective, kappa_objective
    >>> kappa_objective
    KappaObjective(intercept='exact')
    >>> grad, hess = kappa_objective([1.0, 2.0, 3.0], [0.5, 0.5, 0.5])
    >>> grad.tolist(), hess.tolist()  # from a constant, exactly squared error's step
    ([-0.5, -1.5, -2.5], [1.0, 1.0, 1.0])
    """

    def __call__(self, y_true, y_pred, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
        labels, preds, weight = _unpack(y_true, y_pred, sample_weight)
        shape = np.shape(preds)
        grad, hess = self.gradient_hessian(labels, _one_column(preds), weight, names=_names(y_pred))
        return grad.reshape(shape), hess.reshape(shape)


#: The default :class:`KappaObjective` (``intercept="exact"``).
kappa_objective = KappaObjective()


def kappa_metric(y_true, y_pred, sample_weight=None):
    """XGBoost evaluation metric: the soft kappa loss 1 − κ, lower is better.

    For ``custom_metric=`` of ``xgboost.train`` (called as ``(preds, dmatrix)``) and for
    ``eval_metric=`` of ``XGBRegressor`` (called as ``(y_true, y_pred)`` or with
    ``sample_weight=``). XGBoost minimizes custom metrics in early stopping unless told
    ``maximize=True``; a loss needs no flag, so leave ``maximize`` unset.

    Returns
    -------
    tuple of (str, float) or float
        Native call: ``("soft_kappa_loss", 1 − κ)``. scikit-learn call: the float 1 − κ
        (XGBoost names it after this function, ``kappa_metric``). κ is
        :func:`qwkit.soft_kappa_score` of the raw scores, with the data's weights.

    Examples
    --------
    >>> from qwkit.xgboost import kappa_metric
    >>> round(kappa_metric([1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6]), 6)
    0.040794
    """
    labels, preds, weight = _unpack(y_true, y_pred, sample_weight)
    with users_terms(_names(y_pred)):
        value = 1.0 - soft_kappa_score(labels, _one_column(preds), sample_weight=weight)
    if isinstance(y_pred, _xgb.DMatrix):
        return _METRIC_NAME, value
    return value


def _unpack(first, second, weight):
    """(labels, predictions, weights) from either calling convention."""
    if isinstance(second, _xgb.DMatrix):  # native: (preds, dmatrix)
        w = second.get_weight()
        return second.get_label(), first, (w if w.size else None)
    return first, second, weight


def _names(second) -> dict[str, str]:
    """How errors name the inputs of this call (see ``_integrations._boosting.call_names``)."""
    return call_names("DMatrix" if isinstance(second, _xgb.DMatrix) else None, "predt")


def _one_column(preds):
    """An (n, 1) column (one target) as a vector; anything else as it is."""
    shape = np.shape(preds)
    return np.ravel(preds) if len(shape) == 2 and shape[1] == 1 else preds
