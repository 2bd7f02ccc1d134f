"""LightGBM objective and metric for quadratic weighted kappa (docs/training.md).

``import qwkit`` never imports this module; ``import qwkit.lightgbm`` imports LightGBM
(``pip install 'qwkit[lightgbm]'``).

- :data:`kappa_objective` — minimizes the soft kappa loss 1 − κ; give it as
  ``params["objective"]`` to ``lightgbm.train`` or as ``objective=`` to
  ``LGBMRegressor``. :class:`KappaObjective` makes one with other options.
- :func:`kappa_metric` — reports 1 − κ (lower is better) as ``feval=`` of
  ``lightgbm.train`` or ``eval_metric=`` of ``LGBMRegressor.fit``.

Both callables serve both APIs: they recognize LightGBM's native call ``(preds, dataset)``
by the ``lightgbm.Dataset`` and its scikit-learn call ``(y_true, y_pred, weight)`` by
arrays. Sample weights come from the Dataset (native) or ``fit(sample_weight=...)``.
"""

from __future__ import annotations

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

_lgb = require(
    "lightgbm", feature="qwkit.lightgbm", package="LightGBM", extra="lightgbm", minimum="4.0"
)


import numpy as np

from qwkit import soft_kappa_score
from qwkit._integrations._boosting import BoostingObjective, call_names, users_terms

__all__ = ["KappaObjective", "kappa_metric", "kappa_objective"]

_METRIC_NAME = "soft_kappa_loss"


class KappaObjective(BoostingObjective):
    """LightGBM objective minimizing the soft kappa loss 1 − κ.

    A callable for ``params["objective"]`` of ``lightgbm.train`` (called as
    ``(preds, train_set)``) and for ``objective=`` of ``LGBMRegressor`` (called as
    ``(y_true, y_pred, weight)``). It returns the exact gradient of 1 − κ and its
    Gauss–Newton curvature, both multiplied by D/2 (docs/training.md, T10), so that the
    curvature of an item is its weight, as for squared error.

    Parameters
    ----------
    intercept : {"exact", "gradient"}, default="exact"
        ``"exact"``: every round also moves the mean prediction to the weighted mean of
        the labels, the kappa-optimal intercept (T13); this is what makes training from
        LightGBM's start at raw score 0 work out of the box. ``"gradient"``: the plain
        gradient of 1 − κ (T10), which moves the mean only in proportion to κ (T11);
        use it only with an ``init_score`` at the weighted label mean.

    Examples
    --------
    >>> from qwkit.lightgbm import KappaObjective, kappa_objective
    >>> kappa_objective
    KappaObjective(intercept='exact')
    >>> grad, hess = kappa_objective([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    >>> grad.tolist(), hess.tolist()  # from a constant, exactly squared error's step
    ([-1.0, -2.0, -3.0], [1.0, 1.0, 1.0])
    """

    def __call__(self, y_true, y_pred, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
        labels, preds, weight = _unpack(y_true, y_pred, sample_weight)
        return self.gradient_hessian(labels, preds, weight, names=_names(y_pred))


#: The default :class:`KappaObjective` (``intercept="exact"``).
kappa_objective = KappaObjective()


def kappa_metric(y_true, y_pred, sample_weight=None) -> tuple[str, float, bool]:
    """LightGBM evaluation metric: the soft kappa loss 1 − κ, lower is better.

    For ``feval=`` of ``lightgbm.train`` (called as ``(preds, eval_data)``) and for
    ``eval_metric=`` of ``LGBMRegressor.fit`` (called as ``(y_true, y_pred, weight)``).

    Returns
    -------
    tuple of (str, float, bool)
        ``("soft_kappa_loss", 1 − κ, False)``: κ is :func:`qwkit.soft_kappa_score` of
        the raw scores, with the evaluation data's weights; ``False`` says lower is
        better, so that ``lightgbm.early_stopping`` keeps the round of highest κ.

    Examples
    --------
    >>> from qwkit.lightgbm import kappa_metric
    >>> name, value, higher_is_better = kappa_metric([1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6])
    >>> name, round(value, 6), higher_is_better
    ('soft_kappa_loss', 0.040794, False)
    """
    labels, preds, weight = _unpack(y_true, y_pred, sample_weight)
    with users_terms(_names(y_pred)):
        kappa = soft_kappa_score(labels, preds, sample_weight=weight)
    return _METRIC_NAME, 1.0 - kappa, False


def _unpack(first, second, weight):
    """(labels, predictions, weights) from either calling convention."""
    if isinstance(second, _lgb.Dataset):  # native: (preds, dataset)
        return second.get_label(), first, second.get_weight()
    return first, second, weight


def _names(second) -> dict[str, str]:
    """How errors name the inputs of this call (see ``_integrations._boosting.call_names``)."""
    return call_names("Dataset" if isinstance(second, _lgb.Dataset) else None, "preds")
