"""Item weights: what ``sample_weight`` and ``counts`` say about the items, checked once.

``sample_weight`` holds survey (or importance) weights — any finite non-negative reals;
``counts`` whole numbers, each row standing for that many identical items. Both give an
:class:`ItemWeights`; errors name the parameter, the item and what was received (a
:class:`~qwkit.QwkitError`). The array-likes themselves are read by ``_validation``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qwkit import _kernels
from qwkit._base._errors import QwkitError, QwkitTypeError, at_index
from qwkit._base._validation import as_1d, scalar

__all__ = ["MAX_TOTAL_COUNT", "ItemWeights", "item_weights", "no_items_error", "zero_total_error"]

#: Largest total of ``counts`` (and of a table of counts): beyond 2**53 float64 sums of
#: counts are no longer exact.
MAX_TOTAL_COUNT = 2**53


@dataclass(frozen=True, slots=True)
class ItemWeights:
    """The validated weight of every item: ``sample_weight`` or ``counts``, or neither.

    ``values`` is None (every item counts once), float64 survey weights (``parameter ==
    "sample_weight"``: the rows are the sampling units) or int64 multiplicities
    (``parameter == "counts"``: each row stands for that many identical items).
    """

    values: np.ndarray | None
    parameter: str | None  # the parameter they came from: None, "sample_weight" or "counts"
    #: False: survey weights whose values are not yet checked (``scan=False``).
    checked: bool = True

    @property
    def counts(self) -> bool:
        return self.parameter == "counts"

    @property
    def survey(self) -> bool:
        return self.parameter == "sample_weight"

    @property
    def uniform(self) -> bool:
        """No weights, or every weight equal (kappa and its standard errors are then
        those of unweighted items)."""
        v = self.values
        return v is None or bool(v.shape[0] == 0 or np.all(v == v[0]))

    def as_float(self) -> np.ndarray | None:
        """The weights as float64 (counts included), or None."""
        return None if self.values is None else self.values.astype(np.float64, copy=False)

    def scanned(self) -> ItemWeights:
        """These weights with their values checked (raises on a bad weight)."""
        if self.checked:
            return self
        _scan_sample_weight(self.values, allow_zero_total=False)
        return ItemWeights(self.values, self.parameter)


def _sample_weight(
    sample_weight, n_items: int, allow_zero_total: bool, scan: bool = True
) -> np.ndarray:
    arr = as_1d(sample_weight, "sample_weight")
    if arr.dtype.kind not in "biuf":
        raise QwkitTypeError(
            f"`sample_weight` must be numeric; got dtype {arr.dtype}.", parameter="sample_weight"
        )
    if arr.shape[0] != n_items:
        raise QwkitError(
            f"`sample_weight` must have one weight per item ({n_items}); got {arr.shape[0]}.",
            parameter="sample_weight",
        )
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if scan:
        _scan_sample_weight(arr, allow_zero_total)
    return arr


def _scan_sample_weight(arr: np.ndarray, allow_zero_total: bool) -> None:
    """Every weight finite and non-negative, and (unless allowed) not all zero."""
    bad, positive = _kernels.scan_weights(arr)
    if bad >= 0:
        raise QwkitError(
            f"`sample_weight` must be finite and non-negative; got {arr[bad]} at {at_index(bad)}.",
            parameter="sample_weight",
            row=bad,
        )
    if not positive and not allow_zero_total:
        raise zero_total_error("sample_weight")


def zero_total_error(parameter: str) -> QwkitError:
    """The error for item weights under which no item counts (``parameter``:
    ``"sample_weight"`` or ``"counts"``): one message for the in-memory functions, the
    accumulators and ``qwkit.dask``, whatever the data came in."""
    dropped = "every item" if parameter == "sample_weight" else "every row"
    return QwkitError(
        f"`{parameter}` must not sum to zero; {dropped} would be dropped.", parameter=parameter
    )


def no_items_error(weighted: str | None) -> QwkitError:
    """Why a mergeable state holds no item of positive weight: the item weights of every
    row it saw were zero (``weighted``: ``"sample_weight"`` or ``"counts"``; the message of
    the in-memory functions), or it saw no row."""
    if weighted is not None:
        return zero_total_error(weighted)
    return QwkitError("No items yet: call `update` first.")


def _counts(counts, n_items: int, allow_zero_total: bool) -> np.ndarray:
    arr = as_1d(counts, "counts")
    if arr.dtype.kind not in "iuf":  # not bools either: a count is not a flag
        raise QwkitTypeError(
            f"`counts` must hold non-negative integers (how many items each row stands for); "
            f"got dtype {arr.dtype}.",
            parameter="counts",
        )
    if arr.shape[0] != n_items:
        raise QwkitError(
            f"`counts` must have one count per row ({n_items}); got {arr.shape[0]}.",
            parameter="counts",
        )
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (arr < 0)
    else:
        bad = arr < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QwkitError(
            "`counts` must be non-negative whole numbers (how many items each row stands "
            f"for); got {scalar(arr[i])} at {at_index(i)}. For survey weights use "
            "`sample_weight`.",
            parameter="counts",
            row=i,
        )
    with np.errstate(over="ignore"):
        total = float(np.sum(arr, dtype=np.float64))
    if not total < MAX_TOTAL_COUNT:
        raise QwkitError(
            f"`counts` total {total:.3g} items; at most 2**53 are supported (beyond that "
            "sums of counts are not exact).",
            parameter="counts",
        )
    if total == 0 and not allow_zero_total:
        raise zero_total_error("counts")
    return arr.astype(np.int64)


def item_weights(
    sample_weight, counts, n_items: int, *, allow_zero_total: bool = False, scan: bool = True
) -> ItemWeights:
    """``sample_weight`` / ``counts`` → :class:`ItemWeights` (at most one may be given).

    ``allow_zero_total`` accepts all-zero weights (a streaming batch that adds nothing).
    ``scan=False`` leaves the values of ``sample_weight`` to be checked later (by a
    kernel that reads them anyway, or :meth:`ItemWeights.scanned`).
    """
    if sample_weight is not None and counts is not None:
        raise QwkitError(
            "`sample_weight` and `counts` are exclusive: pass `counts` when each row stands "
            "for that many identical items (a table in long format), `sample_weight` when "
            "the rows are the sampled units and the weights are survey weights.",
            parameter="counts",
            also=("sample_weight",),
        )
    if counts is not None:
        return ItemWeights(_counts(counts, n_items, allow_zero_total), "counts")
    if sample_weight is not None:
        arr = _sample_weight(sample_weight, n_items, allow_zero_total, scan)
        return ItemWeights(arr, "sample_weight", scan)
    return ItemWeights(None, None)
