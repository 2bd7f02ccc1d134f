"""Streaming, mergeable kappa: the confusion table is a sufficient statistic.

``KappaAccumulator.test`` finalizes into the inference feature's result through
``_inference.stats_test_result`` — the one place that turns a table state into a
:class:`KappaTestResult`, shared with nothing else (see the report of issue 12).
"""

from __future__ import annotations

import copy
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import item_weights
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._results import public_module
from qwkit._base._scale import MAX_DENSE_CLASSES, prepare_labels
from qwkit._base._scale_check import check_occurring
from qwkit._base._validation import check_alternative, check_replace_undefined_by, show
from qwkit._base._warnings import renamed_attribute
from qwkit._base._weights import (
    WeightsLike,
    check_weights,
    is_exact_name,
    resolve,
    same_weights,
)
from qwkit._kappa._inference import KappaTestResult, stats_test_result
from qwkit._table._state import TableStats, same_labels
from qwkit._table._sufficient import TABLE_CLASSES, scale_hint

Alternative = Literal["two-sided", "greater", "less"]

__all__ = ["KappaAccumulator"]


class KappaAccumulator:
    """Weighted kappa over data that arrives in pieces, on one machine or many.

    The K×K confusion table is a sufficient statistic for kappa and merges by
    addition, so kappa over any number of :meth:`update` calls, or of accumulators
    merged with :meth:`merge`, equals :func:`kappa_score` on all the data at once —
    to the last bit, in any order: counts are integers, and sums of ``sample_weight``
    are kept exactly and rounded once (``docs/dask.md``). :meth:`test` gives the
    :class:`KappaTestResult` of :func:`kappa_test`.

    Parameters
    ----------
    labels : array-like of shape (K,), default=None
        The ordered rating scale. When None, the ratings must be integers (or ordered
        Categoricals) and the scale is the integer range of every rating seen, which
        grows with the updates (at most 1,024 categories for named weights, 10,000 for
        a matrix); text ratings need ``labels``, except with ``weights="identity"``,
        where the order does not matter and the scale is the sorted distinct ratings
        seen.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights; see :func:`weight_matrix`.

    Attributes
    ----------
    labels : ndarray of shape (K,)
        The scale (so far).
    confusion : ndarray of shape (K, K)
        The table so far: int64 counts, or float64 once any update carried
        ``sample_weight`` (each cell the exact sum, rounded once). A copy.
    n_items : int
        Number of rows seen (weighted or not; with ``counts``, their sum).

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
    >>> round(acc.test().standard_error, 6)
    0.282487
    """

    def __init__(self, labels: ArrayLike | None = None, *, weights: WeightsLike = "quadratic"):
        self._weights = check_weights(weights)
        named = is_exact_name(self._weights)
        lab = None if labels is None else prepare_labels(labels)
        if lab is not None:
            if lab.n_classes > MAX_DENSE_CLASSES:
                raise QwkitError(
                    f"`labels` has {lab.n_classes} categories; at most {MAX_DENSE_CLASSES} are "
                    "supported.",
                    parameter="labels",
                )
            self._wmat = resolve(self._weights, lab.n_classes, scale="`labels`")
        else:
            self._wmat = None  # resolved when the scale is known
        limit = TABLE_CLASSES if named and lab is None else MAX_DENSE_CLASSES
        ordered = not (named and self._weights == "identity")
        self._stats = TableStats(lab, max_classes=limit, ordered=ordered)
        self._n = 0

    @property
    def labels(self) -> np.ndarray:
        return np.array(self._stats.scale(), copy=True)

    @property
    def confusion(self) -> np.ndarray:
        return self._stats.table()

    @property
    def n_items(self) -> int:
        return self._n

    #: Deprecated: the old name of ``n_items``.
    n_samples = renamed_attribute("n_samples", "n_items")

    def update(
        self,
        y1: ArrayLike,
        y2: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        counts: ArrayLike | None = None,
        nan_policy: NanPolicy = "raise",
    ) -> None:
        """Add a batch of paired ratings (every rating must be in ``labels``, if given).

        ``sample_weight`` (survey weights) or ``counts`` (whole numbers: how many
        identical items each row stands for) as in :func:`kappa_score`. An empty
        batch, or one whose weights are all zero, adds nothing (an empty partition of a
        larger data set is not an error).
        ``nan_policy``: a missing rating is an error (``"raise"``) or its item is left out
        of the batch (``"omit"``), as in :func:`kappa_score`.
        """
        names = ("y1", "y2", "sample_weight", "counts")
        inputs = paired((y1, y2, sample_weight, counts), names)
        rows = nan_rows(nan_policy, inputs, names, rated=2, allowed=RAISE_OR_OMIT)
        y1, y2, sample_weight, counts = rows.values
        stats = copy.deepcopy(self._stats)  # a refused batch leaves the state unchanged
        stats.update(y1, y2, sample_weight, counts=counts)
        n = len(y1)
        if counts is not None and n:
            n = int(item_weights(None, counts, n, allow_zero_total=True).values.sum())
        self._stats = stats
        self._n += n

    def merge(self, other: KappaAccumulator) -> KappaAccumulator:
        """Add ``other``'s table into this one (in place) and return ``self``."""
        if not isinstance(other, KappaAccumulator):
            raise QwkitTypeError(
                f"`other` must be a KappaAccumulator; got {type(other).__name__}.",
                parameter="other",
            )
        mine, theirs = self._stats.labels, other._stats.labels
        sorted_text = self._stats.inferred and other._stats.inferred  # merged as a union
        if (
            mine is not None
            and theirs is not None
            and not sorted_text
            and not same_labels(mine, theirs)
        ):
            raise QwkitError(
                "`other` has a different scale: labels "
                f"{show(other.labels)} vs {show(self.labels)}.",
                parameter="other",
            )
        k = None if self._wmat is None or other._wmat is None else self._wmat.shape[0]
        if not same_weights(self._weights, other._weights, k):
            raise QwkitError(
                "`other` uses different `weights`; merged kappa would be ambiguous.",
                parameter="other",
            )
        self._stats = copy.deepcopy(self._stats).merge(other._stats)
        self._n += other._n
        return self

    def __copy__(self) -> KappaAccumulator:
        new = object.__new__(KappaAccumulator)
        new.__dict__.update(self.__dict__)
        new._stats = copy.deepcopy(self._stats)
        return new

    def _weight_matrix(self) -> np.ndarray:
        st = self._stats
        if self._wmat is not None:
            return self._wmat
        return resolve(self._weights, st.k, hint=scale_hint(st.labels, st.offset, st.k))

    def score(self, *, replace_undefined_by: float = np.nan) -> float:
        """Kappa of everything seen so far (the value :func:`kappa_score` gives on all the
        data at once, with its :class:`ScaleWarning` when the integer scale inferred from
        the data seen holds values that look like missing-value codes)."""
        replace = check_replace_undefined_by(replace_undefined_by)
        self._check_seen()
        st = self._stats
        self._check_codes()
        return st.kappa(self._weights, replace, hint=scale_hint(st.labels, st.offset, st.k))

    def test(self, *, alternative: Alternative = "two-sided") -> KappaTestResult:
        """:func:`kappa_test` of everything seen so far: the statistic, its standard
        errors, the z-test and every interval method — except that with unequal survey
        weights the rows themselves are not kept, so intervals are asymptotic only.
        Warns as :meth:`score` does."""
        alternative = check_alternative(alternative)
        self._check_seen()
        self._weight_matrix()  # a matrix must fit the scale
        self._check_codes()
        return stats_test_result(self._stats, self._weights, alternative)

    def _check_seen(self) -> None:
        self._stats.check_items()

    def _check_codes(self) -> None:
        """ScaleWarning when the integer scale inferred from the data holds values that
        look like missing-value codes (read from the table's margins)."""
        st = self._stats
        if st.labels is None and st.k:
            nonzero = st.table(shown=False) != 0
            check_occurring(st.offset, nonzero.any(axis=0) | nonzero.any(axis=1))

    def __repr__(self) -> str:
        return f"KappaAccumulator(labels={show(self.labels)}, n_items={self._n})"


public_module(KappaAccumulator)
