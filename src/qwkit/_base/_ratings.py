"""Ratings of any number of raters stored one entry per rating: the sparse table.

A crowd panel — thousands of raters, each rating a few of many items — is almost empty as
an items × raters matrix (825 workers × 11,040 sites hold 90,000 ratings in 9.1 million
cells). Every statistic of many raters here reads the ratings as they come instead:

* :class:`Sparse` is the validated layout, sorted by item with CSR offsets: item i's
  ratings are the entries ``item_ptr[i]:item_ptr[i + 1]``, each with its ``rater`` code
  and its value, in the order they were given (the columns of a wide matrix, the rows of
  a long table). Cost and memory are in proportion to the number of ratings N.
* :class:`RatingsTable` (public, ``qwkit.ratings_from_long``) holds a :class:`Sparse`
  with the names of its items and raters.
* :func:`as_sparse` turns what users pass as ``ratings`` (or ``human``) — a table, or an
  items × raters array-like with NaN/None where a rater gave no rating — into a
  :class:`Sparse`; a wide matrix costs one pass over its cells, nothing after that.

Values stay as validated (numbers exactly as given, integers beyond 2**53 too; or text):
the rating scale is chosen later, by the statistic, with its ``labels``
(``qwkit._agreement._input``, ``qwkit._evaluation._input``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from qwkit import _kernels
from qwkit._base import _memory
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._results import public_module
from qwkit._base._scale import declared_order, rating_matrix, with_gaps
from qwkit._base._validation import (
    Columns,
    _bytes,
    as_1d,
    check_choice,
    check_same_length,
    scalar,
)
from qwkit._base._warnings import REMOVED_IN, warn

__all__ = [
    "DUPLICATES",
    "RatingsLike",
    "RatingsTable",
    "Sparse",
    "as_sparse",
    "from_long",
    "slot_columns",
]

#: What ``duplicates=`` may be: what to do when a rater rated an item more than once.
DUPLICATES = ("raise", "first", "last")
#: ``RatingsTable.to_wide`` refuses a matrix of more cells than this (2**31: 16 GiB).
_MAX_WIDE_CELLS = 1 << 31


@dataclass(frozen=True, eq=False)
class Sparse:
    """Validated ratings, one entry per rating, sorted by item (CSR).

    ``item_ptr`` (n_items + 1,) int64: item i's ratings are entries
    ``item_ptr[i]:item_ptr[i + 1]``, in the order they were given; ``item`` (N,) and
    ``rater`` (N,) intp: each entry's item and rater codes; ``values`` (N,): the ratings
    (float64, int64, uint64 or str), exact. An item or a rater may have no entry (a row
    of NaN, a long-format row whose rating is missing): statistics drop them and say so.
    Each item holds at most one rating per rater.

    For messages: ``source`` (long format) is each entry's row in the long table;
    ``columns`` (wide format) the rater names of a data frame.
    """

    item_ptr: np.ndarray
    item: np.ndarray
    rater: np.ndarray
    values: np.ndarray
    is_text: bool
    declared: np.ndarray | None
    n_raters: int
    source: np.ndarray | None = None
    columns: tuple | None = None
    item_ids: np.ndarray | None = None
    rater_ids: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return int(self.item_ptr.shape[0] - 1)

    @property
    def n_ratings(self) -> int:
        return int(self.item.shape[0])

    def where(self, k: int) -> str:
        """Where entry k is, in words."""
        i, g = int(self.item[k]), int(self.rater[k])
        if self.source is not None:
            item = scalar(self.item_ids[i]) if self.item_ids is not None else i
            rater = scalar(self.rater_ids[g]) if self.rater_ids is not None else g
            return f"row {int(self.source[k])} of the long table (item {item!r}, rater {rater!r})"
        col = f"column {self.columns[g]!r}" if self.columns is not None else f"column {g}"
        return f"row {i}, {col}"

    def row(self, k: int) -> int:
        """The row of entry k: the item (wide), or the row of the long table."""
        return int(self.source[k]) if self.source is not None else int(self.item[k])


# ---------------------------------------------------------------------------- wide


def _from_wide(ratings, name: str) -> Sparse:
    """An items × raters array-like (NaN/None = no rating) as entries, row by row."""
    m = rating_matrix(ratings, name)
    present = m.present
    if present.ndim != 2:
        raise QwkitError(
            f"`{name}` must be 2-D, one row per item and one column per rater; got shape "
            f"{present.shape}.",
            parameter=name,
        )
    n, r = present.shape
    item, rater = np.nonzero(present)  # row-major: the order of ``m.values``
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(present, axis=1), out=ptr[1:])
    return Sparse(
        item_ptr=ptr,
        item=item.astype(np.intp, copy=False),
        rater=rater.astype(np.intp, copy=False),
        values=m.values,
        is_text=m.is_text,
        declared=m.declared,
        n_raters=int(r),
        columns=m.columns,
    )


# ---------------------------------------------------------------------------- long


def _ids(values, name: str) -> np.ndarray:
    arr = as_1d(values, name)
    if arr.dtype.kind == "f" and np.any(np.isnan(arr)):
        k = int(np.flatnonzero(np.isnan(arr))[0])
        raise QwkitError(f"`{name}` contains NaN at index {k}.", parameter=name)
    return arr


def _factorize(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct values, code of each value): integers and floats by one hashing
    pass (O(n), then a sort of the distinct values only), text by a sort."""
    if arr.dtype.kind in "biuf" and arr.size:
        if arr.dtype.kind == "f":
            bits = (arr.astype(np.float64) + 0.0).view(np.uint64)  # −0.0 is 0.0
            as_values = lambda u: u.view(np.float64)  # noqa: E731
        elif arr.dtype.kind == "u":
            bits = arr.astype(np.uint64)
            as_values = lambda u: u  # noqa: E731
        else:
            bits = arr.astype(np.int64).view(np.uint64)
            as_values = lambda u: u.view(np.int64)  # noqa: E731
        ids, distinct, _ = _kernels.distinct_ids(np.ascontiguousarray(bits), arr.size)
        uniq = as_values(distinct)
        order = np.argsort(uniq, kind="stable")
        rank = np.empty(order.size, dtype=np.intp)
        rank[order] = np.arange(order.size)
        out = uniq[order]
        if arr.dtype.kind == "b":
            out = out.astype(bool)
        return out, rank[ids]
    uniq, codes = np.unique(arr, return_inverse=True)
    return uniq, codes.astype(np.intp, copy=False).reshape(-1)


def _values(values) -> np.ndarray:
    if values is None or isinstance(values, (str, bytes)):
        raise QwkitTypeError(f"`values` must be array-like; got {values!r}.", parameter="values")
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    val = np.asarray(values) if not isinstance(values, list) else np.asarray(values, dtype=object)
    if val.ndim != 1:
        raise QwkitError(f"`values` must be 1-D; got shape {val.shape}.", parameter="values")
    return val


def from_long(items, raters, values, duplicates: str = "raise"):
    """Long format (one row per rating) → (Sparse, item ids, rater ids, duplicates left
    out). A row whose value is missing (NaN, None) is no rating; its item and rater are
    kept, with no entry."""
    policy = check_choice(duplicates, "duplicates", DUPLICATES)
    it = _ids(items, "items")
    ra = _ids(raters, "raters")
    check_same_length(it, ra, ("items", "raters"))
    val = _values(values)
    check_same_length(it, val, ("items", "values"))
    declared = declared_order([values], ["values"]) if hasattr(values, "dtype") else None
    m = rating_matrix(val.reshape(-1, 1), "values")
    present = m.present.ravel()
    item_ids, item_code = _factorize(it)
    rater_ids, rater_code = _factorize(ra)
    source = np.flatnonzero(present)
    item_code, rater_code = item_code[source], rater_code[source]
    # group by item in reading order (a stable counting sort), then duplicates per item
    ptr, order = _kernels.group_order(item_code, item_ids.size)
    keep, first, second = _kernels.duplicate_raters(
        ptr, rater_code[order], rater_ids.size, DUPLICATES.index(policy)
    )
    if first >= 0:
        a, b = int(source[order[first]]), int(source[order[second]])
        g = int(rater_code[order[second]])
        i = int(item_code[order[second]])
        raise QwkitError(
            f"Rater {scalar(rater_ids[g])!r} rated item {scalar(item_ids[i])!r} twice "
            f"(rows {a} and {b} of `items`, `raters`, `values`); give one rating per item "
            "and rater, or pass duplicates='first' or 'last' to keep one of them.",
            parameter="items",
            row=b,
        )
    dropped = int(keep.size - np.count_nonzero(keep))
    if dropped:
        order = order[keep]
        counts = np.bincount(item_code[order], minlength=item_ids.size)
        ptr = np.zeros(item_ids.size + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
    sparse = Sparse(
        item_ptr=ptr,
        item=item_code[order],
        rater=rater_code[order],
        values=m.values[order],
        is_text=m.is_text,
        declared=declared if declared is not None else m.declared,
        n_raters=int(rater_ids.size),
        source=source[order],
        item_ids=item_ids,
        rater_ids=rater_ids,
    )
    return sparse, item_ids, rater_ids, dropped


# ---------------------------------------------------------------------------- public


@dataclass(frozen=True, slots=True, eq=False)
class RatingsTable:
    """Ratings of items by raters, stored one entry per rating.

    Made by :func:`ratings_from_long`; every function of many raters accepts it where it
    accepts an items × raters array (``agreement_score``, ``agreement_test``,
    ``rater_agreement``, the scorer evaluation's ``human``), at a cost in proportion to
    the number of ratings, never to items × raters.

    Attributes
    ----------
    items : ndarray of shape (n_items,)
        The items, sorted (every item of the long table, also one whose rating was
        missing: it has no rating here, and the statistics drop it and say so).
    raters : ndarray of shape (n_raters,)
        The raters, sorted.
    n_duplicates : int
        Ratings left out by ``duplicates="first"`` or ``"last"``.
    n_items, n_raters, n_ratings : int
        How many items, raters and ratings.
    """

    items: np.ndarray
    raters: np.ndarray
    n_duplicates: int
    _sparse: Sparse = field(repr=False)

    def __post_init__(self):
        for name in ("items", "raters"):
            arr = np.array(getattr(self, name))
            arr.flags.writeable = False
            object.__setattr__(self, name, arr)

    @property
    def n_items(self) -> int:
        return int(self.items.shape[0])

    @property
    def n_raters(self) -> int:
        return int(self.raters.shape[0])

    @property
    def n_ratings(self) -> int:
        return self._sparse.n_ratings

    def __repr__(self) -> str:
        return (
            f"RatingsTable(n_items={self.n_items}, n_raters={self.n_raters}, "
            f"n_ratings={self.n_ratings}, n_duplicates={self.n_duplicates})"
        )

    def to_long(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(items, raters, values)``: one entry per rating, sorted by item, in the
        order given within an item."""
        sp = self._sparse
        return self.items[sp.item], self.raters[sp.rater], sp.values.copy()

    def to_wide(self) -> np.ndarray:
        """The items × raters matrix: float with NaN (numbers) or object with None
        (text, integers beyond ±2**53) where a rater gave no rating — rows ``items``,
        columns ``raters``. It takes 8 bytes per cell: nothing in qwkit needs it.

        Raises
        ------
        ValueError
            When the matrix has more than 2**31 cells, or would need more memory than
            the process has available (``_memory.available``): said with its size, up
            front, instead of numpy's ``MemoryError`` half-way."""
        sp = self._sparse
        cells = self.n_items * self.n_raters
        what = f"The items × raters matrix of {self.n_items:,} items and {self.n_raters:,} raters"
        instead = "every qwkit function takes the table itself (`to_long()` gives its ratings)."
        if cells > _MAX_WIDE_CELLS:
            raise QwkitError(
                f"{what} would take {_bytes(8.0 * cells)}; {instead}", parameter="ratings"
            )
        # 8 bytes a cell, 1 for the cells rated, 16 a rating to order them (and a Python
        # object each for text or integers beyond 2**53)
        per_rating = 16 + (0 if sp.values.dtype.kind == "f" else 48)
        _memory.check(9.0 * cells + per_rating * sp.n_ratings, what, "ratings", instead)
        present = np.zeros((self.n_items, self.n_raters), dtype=bool)
        present[sp.item, sp.rater] = True
        flat = sp.item.astype(np.int64) * self.n_raters + sp.rater
        return with_gaps(present, sp.values[np.argsort(flat, kind="stable")])

    @property
    def ratings(self) -> np.ndarray:
        """Deprecated: the items × raters matrix, :meth:`to_wide`."""
        warn(
            f"`RatingsTable.ratings` is deprecated and will be removed in qwkit {REMOVED_IN}: "
            "every function of many raters takes the table itself; `to_wide()` gives the "
            "items × raters matrix.",
            FutureWarning,
        )
        return self.to_wide()

    def __reduce__(self):
        return (_rebuild, (self.items, self.raters, self.n_duplicates, self._sparse))


def _rebuild(items, raters, n_duplicates, sparse):
    return RatingsTable(items=items, raters=raters, n_duplicates=n_duplicates, _sparse=sparse)


public_module(RatingsTable)


def as_sparse(ratings, name: str = "ratings") -> Sparse:
    """What users pass as ratings of many raters → :class:`Sparse`."""
    if isinstance(ratings, RatingsTable):
        return ratings._sparse
    return _from_wide(ratings, name)


def slot_columns(ratings: RatingsTable, name: str = "human") -> dict[str, np.ndarray]:
    """A sparse panel as rating *slots*: ``{"rating 1": …, "rating 2": …}``, slot k
    holding the k-th rating of each item in the table's order (the order of the rows of
    the long table), NaN/None where an item has fewer — what the scorer evaluation reads
    as human columns. n_items × (the largest number of ratings of an item) cells: refused
    when that is far more than the ratings (a few items rated very many times)."""
    sp = ratings._sparse
    per_item = np.diff(sp.item_ptr)
    width = int(per_item.max(initial=0))
    cells = sp.n_items * width
    if cells > 8 * sp.n_ratings + (1 << 22):
        i = int(np.argmax(per_item))
        item = scalar(ratings.items[i])
        raise QwkitError(
            f"`{name}`: the evaluation reads a sparse panel as rating slots (the k-th rating "
            f"of each item); item {item!r} has {width:,} ratings, so {sp.n_items:,} items "
            f"would take {width:,} slots ({_bytes(8.0 * cells)}) for {sp.n_ratings:,} "
            "ratings. Keep a few ratings of the items rated most often.",
            parameter=name,
        )
    starts = sp.item_ptr[:-1]
    out = {}
    for k in range(width):
        present = per_item > k
        out[f"rating {k + 1}"] = with_gaps(present, sp.values[starts[present] + k])
    return out


#: What a function of many raters accepts as its ratings (or a scorer evaluation as its
#: human ratings): rating columns, or a :class:`RatingsTable`.
RatingsLike: TypeAlias = Columns | RatingsTable
