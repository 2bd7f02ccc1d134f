"""Streaming, mergeable kappa: the confusion table is a sufficient statistic."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from qwkit._errors import QwkitError, QwkitTypeError
from qwkit._scale import MAX_DENSE_CLASSES, prepare_labels, prepare_ratings
from qwkit._sufficient import count_table, kappa_from_table
from qwkit._validation import check_replace_undefined_by, item_weights, show
from qwkit._weights import WeightsLike, check_weights, resolve

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
        Number of items seen (weighted or not; with ``counts``, their sum).

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
    >>> round(acc.merge(other).score(), 6)  # the Kaggle page's example, in two pieces
    0.318182
    """

    def __init__(self, labels: ArrayLike, *, weights: WeightsLike = "quadratic"):
        if labels is None:
            raise QwkitTypeError(
                "`labels` is required: the scale must be fixed before merging.",
                parameter="labels",
            )
        self._labels = prepare_labels(labels)
        k = self._labels.n_classes
        if k > MAX_DENSE_CLASSES:
            raise QwkitError(
                f"`labels` has {k} categories; at most {MAX_DENSE_CLASSES} are supported.",
                parameter="labels",
            )
        self._wmat = resolve(check_weights(weights), k, scale="`labels`")
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

    def update(
        self,
        y1: ArrayLike,
        y2: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        counts: ArrayLike | None = None,
    ) -> None:
        """Add a batch of paired ratings (every rating must be in ``labels``).

        ``sample_weight`` (survey weights) or ``counts`` (whole numbers: how many
        identical items each row stands for) as in :func:`kappa_score`. An empty
        batch, or one whose weights are all zero, adds nothing (an empty partition of a
        larger data set is not an error).
        """
        r = prepare_ratings((y1, y2), self._labels.values, allow_empty=True)
        iw = item_weights(sample_weight, counts, r.n_samples, allow_zero_total=True)
        if r.n_samples == 0:
            return
        table = count_table(r, iw.as_float(), r.offset, r.n_classes)
        if iw.counts:
            table = table.astype(np.int64)
        self._add(table)
        self._n += int(iw.values.sum()) if iw.counts else r.n_samples

    def merge(self, other: KappaAccumulator) -> KappaAccumulator:
        """Add ``other``'s table into this one (in place) and return ``self``."""
        if not isinstance(other, KappaAccumulator):
            raise QwkitTypeError(
                f"`other` must be a KappaAccumulator; got {type(other).__name__}.",
                parameter="other",
            )
        same_scale = self._labels.values.shape == other._labels.values.shape and bool(
            np.all(self._labels.values == other._labels.values)
        )
        if not same_scale:
            raise QwkitError(
                "`other` has a different scale: labels "
                f"{show(other._labels.values)} vs {show(self._labels.values)}.",
                parameter="other",
            )
        if not _same_up_to_scale(self._wmat, other._wmat):
            raise QwkitError(
                "`other` uses different `weights`; merged kappa would be ambiguous.",
                parameter="other",
            )
        self._add(other._table)
        self._n += other._n
        return self

    def _add(self, table: np.ndarray) -> None:
        """A new table (never in place: copies of this accumulator stay independent)."""
        with np.errstate(over="ignore"):
            total = self._table + table  # int64 + float64 → float64 once weights appear
        if total.dtype.kind == "f" and not np.all(np.isfinite(total)):
            raise QwkitError(
                "The summed `sample_weight` overflowed float64; rescale the weights (kappa "
                "does not change when every weight is multiplied by the same factor).",
                parameter="sample_weight",
            )
        self._table = total

    def score(self, *, replace_undefined_by: float = np.nan) -> float:
        """Kappa of everything seen so far (the value :func:`kappa_score` gives on all the
        data at once)."""
        replace = check_replace_undefined_by(replace_undefined_by)
        if not np.any(self._table > 0):
            raise QwkitError("No items with positive weight yet: call `update` before `score`.")
        return kappa_from_table(self._table, self._wmat, replace)

    def __repr__(self) -> str:
        return f"KappaAccumulator(labels={show(self._labels.values)}, n_samples={self._n})"


def _same_up_to_scale(w1: np.ndarray, w2: np.ndarray) -> bool:
    """Weight matrices that give the same kappa for every table: equal up to a positive
    factor (e.g. 'quadratic' and ``weight_matrix(K)``, its normalized form)."""
    t1, t2 = w1.max(), w2.max()
    if t1 == 0 or t2 == 0:
        return bool(t1 == t2)
    return bool(np.allclose(w1 / t1, w2 / t2, rtol=1e-12, atol=0.0))
