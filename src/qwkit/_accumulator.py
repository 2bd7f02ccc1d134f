"""Streaming, mergeable kappa: the confusion table is a sufficient statistic."""

from __future__ import annotations

import numpy as np

from qwkit import _kappa
from qwkit import _validation as _v

__all__ = ["KappaAccumulator"]


class KappaAccumulator:
    """Weighted kappa over data that arrives in pieces, on one machine or many.

    The K×K confusion table is a sufficient statistic for kappa and merges by
    addition, so kappa over any number of :meth:`update` calls, or of accumulators
    merged with :meth:`merge`, equals :func:`kappa_score` on all the data at once.

    Parameters
    ----------
    labels : array-like of shape (K,)
        The ordered rating scale, fixed up front so that pieces can be merged.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights; see :func:`weight_matrix`.

    Attributes
    ----------
    labels : ndarray of shape (K,)
        The scale.
    confusion : ndarray of shape (K, K)
        The table so far: int64 counts, or float64 once any update carried
        ``sample_weight``. A copy; the accumulator is not changed through it.
    n_samples : int
        Number of items seen (weighted or not).

    See Also
    --------
    kappa_score : Kappa of data held in memory.

    Examples
    --------
    >>> import qwkit
    >>> acc = qwkit.KappaAccumulator(labels=[0, 1, 2, 3, 4])
    >>> acc.update([4, 4, 3, 4, 4], [0, 4, 1, 0, 4])
    >>> other = qwkit.KappaAccumulator(labels=[0, 1, 2, 3, 4])
    >>> other.update([0, 1, 1, 2, 1], [0, 1, 1, 2, 1])
    >>> round(acc.merge(other).score(), 6)  # seed 004's example, in two pieces
    0.318182
    """

    def __init__(self, labels, *, weights="quadratic"):
        if labels is None:
            raise TypeError("`labels` is required: the scale must be fixed before merging.")
        self._labels = _v.prepare_labels(labels)
        k = self._labels.n_classes
        if k > _v.MAX_DENSE_CLASSES:
            raise ValueError(
                f"`labels` has {k} categories; at most {_v.MAX_DENSE_CLASSES} are supported."
            )
        kind = _v.check_weights(weights)
        if isinstance(kind, str):
            self._wmat = _kappa._named_weights(k, kind)
        elif kind.shape[0] != k:
            raise ValueError(f"`weights` has shape {kind.shape} but `labels` has {k} entries.")
        else:
            self._wmat = kind
        self._weights = weights if isinstance(kind, str) or weights is None else kind
        self._table = np.zeros((k, k), dtype=np.int64)
        self._n = 0

    @property
    def labels(self) -> np.ndarray:
        return self._labels.values.copy()

    @property
    def confusion(self) -> np.ndarray:
        return self._table.copy()

    @property
    def n_samples(self) -> int:
        return self._n

    def update(self, y1, y2, sample_weight=None) -> None:
        """Add a batch of paired ratings (every rating must be in ``labels``).

        An empty batch, or one whose weights are all zero, adds nothing (an empty
        partition of a larger data set is not an error).
        """
        r = _v.prepare_ratings(y1, y2, self._labels.values, allow_empty=True)
        sw = _v.check_sample_weight(sample_weight, r.n_samples, allow_zero_total=True)
        if r.n_samples == 0:
            return
        table = _kappa._table(r, sw, r.offset, r.n_classes)
        self._add(table)
        self._n += r.n_samples

    def merge(self, other: KappaAccumulator) -> KappaAccumulator:
        """Add ``other``'s table into this one (in place) and return ``self``."""
        if not isinstance(other, KappaAccumulator):
            raise TypeError(f"`other` must be a KappaAccumulator; got {type(other).__name__}.")
        same_scale = self._labels.values.shape == other._labels.values.shape and bool(
            np.all(self._labels.values == other._labels.values)
        )
        if not same_scale:
            raise ValueError(
                "`other` has a different scale: labels "
                f"{_v._show(other._labels.values)} vs {_v._show(self._labels.values)}."
            )
        if not _same_up_to_scale(self._wmat, other._wmat):
            raise ValueError("`other` uses different `weights`; merged kappa would be ambiguous.")
        self._add(other._table)
        self._n += other._n
        return self

    def _add(self, table: np.ndarray) -> None:
        """A new table (never in place: copies of this accumulator stay independent)."""
        with np.errstate(over="ignore"):
            total = self._table + table  # int64 + float64 → float64 once weights appear
        if total.dtype.kind == "f" and not np.all(np.isfinite(total)):
            raise ValueError(
                "The summed `sample_weight` overflowed float64; rescale the weights (kappa "
                "does not change when every weight is multiplied by the same factor)."
            )
        self._table = total

    def score(self, *, replace_undefined_by=np.nan) -> float:
        """Kappa of everything seen so far."""
        replace = _v.check_replace_undefined_by(replace_undefined_by)
        if not np.any(self._table > 0):
            raise ValueError("No items with positive weight yet: call `update` before `score`.")
        return _kappa._kappa_from_table(self._table, self._wmat, replace)

    def __repr__(self) -> str:
        return f"KappaAccumulator(labels={_v._show(self._labels.values)}, n_samples={self._n})"


def _same_up_to_scale(w1: np.ndarray, w2: np.ndarray) -> bool:
    """Weight matrices that give the same kappa for every table: equal up to a positive
    factor (e.g. 'quadratic' and ``weight_matrix(K)``, its normalized form)."""
    t1, t2 = w1.max(), w2.max()
    if t1 == 0 or t2 == 0:
        return bool(t1 == t2)
    return bool(np.allclose(w1 / t1, w2 / t2, rtol=1e-12, atol=0.0))
