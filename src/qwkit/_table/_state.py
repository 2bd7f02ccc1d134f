"""Mergeable sufficient statistics: update with a chunk, merge with another, finalize.

Every statistic of qwkit that reduces to sums over the items is kept here in a form
that merges *exactly*: integer counts, Python-integer sums, and sums of survey weights
as exact dyadic numbers (``_dyadic``). Merging in any order — chunk by chunk, across
processes or across a cluster — gives the same state, and so the same result, to the
last bit, as the in-memory functions, which use the same pieces.

- :class:`QuadraticSums`: the five integer sums of eq. Q (unweighted quadratic kappa on
  an integer scale; no table, any range).
- :class:`TableStats`: the K×K table (int64 counts; exact sums of survey weights, with
  exact Σw² and the count of positive weights per cell for inference).

(The other mergeable states live with their features: the soft kappa's ``SoftSums``
in ``_kappa/_soft.py``, the threshold search's ``PairGroups`` in
``_thresholds/_groups.py``; all three merge by the same exact arithmetic.)

A scale that the data declare (an ordered Categorical) must be declared alike by every
later batch and merged state; unordered text, where the order does not matter, is placed
on the sorted distinct ratings seen so far, a scale that grows as integer ranges do.

Both are small (a K×K table, or five integers), pickle with the standard library, and
import nothing but numpy and numba.
"""

from __future__ import annotations

import math

import numpy as np

from qwkit import _kernels
from qwkit._base._dyadic import ExactRows, exact_cell_sums
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import ItemWeights, item_weights, no_items_error
from qwkit._base._numerics import nan_max, nan_min
from qwkit._base._scale import (
    MAX_DENSE_CLASSES,
    Labels,
    Ratings,
    declared_order,
    measure_scale,
    out_of_scale_error,
    prepare_ratings,
)
from qwkit._base._validation import as_1d, show
from qwkit._base._weights import is_exact_name, resolve
from qwkit._table._moments import kappa_from_sums, quadratic_sums
from qwkit._table._sufficient import (
    TABLE_CLASSES,
    count_table,
    exact_table_kappa,
    guess_table,
    kappa_from_table,
    rounded_table,
)

__all__ = [
    "MAX_DENSE_CLASSES",
    "TABLE_CLASSES",
    "QuadraticSums",
    "TableStats",
    "check_same_labels",
    "same_labels",
]


def same_labels(a: Labels | None, b: Labels | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.values.shape == b.values.shape and bool(np.all(a.values == b.values))


def check_same_labels(mine, theirs, what: str = "labels") -> None:
    """Refuse to merge ``other``, a state on another scale."""
    if not same_labels(mine, theirs):
        shown = [show(x.values) if x is not None else "the integer range" for x in (theirs, mine)]
        raise QwkitError(
            f"`other` has a different scale: {what} {shown[0]} vs {shown[1]}.",
            parameter="other",
        )


def _check_declared(labels: Labels, y1, y2) -> None:
    """A batch may not declare another order than the one adopted from earlier batches."""
    order = declared_order((y1, y2), ("y1", "y2"))
    if order is not None and not np.array_equal(order, labels.values):
        raise QwkitError(
            f"The ratings declare the category order {show(order)}, but earlier batches "
            f"declared {show(labels.values)}; pass `labels` to fix the scale.",
            parameter="labels",
            also=("y1", "y2"),
        )


def _two_kinds(text: Labels, first: str) -> QwkitTypeError:
    """Text ratings after numbers, or numbers after text (``first``: which came first)."""
    return QwkitTypeError(
        f"The ratings mix batches of numbers and of text (such as {show(text.values[:4])}), "
        f"{first} first; every batch must rate on one scale.",
        parameter="y1",
        also=("y2",),
    )


def _declared_after_integers(labels: Labels) -> QwkitError:
    return QwkitError(
        "The ratings declare an order of categories "
        f"{show(labels.values)}, but earlier batches were integers; pass `labels`.",
        parameter="labels",
    )


# ---------------------------------------------------------------------------- five sums


class QuadraticSums:
    """n and the integer sums Σa, Σb, Σ(a² + b²), Σab of eq. Q (exact integers)."""

    __slots__ = ("declared", "labels", "sums")

    def __init__(self, labels: Labels | None):
        self.labels = labels
        self.declared = False  # labels adopted from an order the data declare
        self.sums = [0, 0, 0, 0, 0]  # n, Σa, Σb, Σ(a² + b²), Σab

    def update(self, y1, y2) -> None:
        if _empty(y1, y2):
            return
        r = prepare_ratings((y1, y2), _values(self.labels))
        if self.declared:
            _check_declared(self.labels, y1, y2)
        elif self.labels is None and r.labels is not None:  # a declared order
            if self.sums[0]:
                raise _declared_after_integers(r.labels)
            self.labels, self.declared = r.labels, True
        for i, s in enumerate((r.n_items, *quadratic_sums(r))):
            self.sums[i] += int(s)

    def merge(self, other: QuadraticSums) -> QuadraticSums:
        if other.sums[0] == 0:
            return self
        if self.sums[0] == 0 and self.labels is None:
            self.labels, self.declared = other.labels, other.declared
        check_same_labels(self.labels, other.labels, "labels")
        self.sums = [x + y for x, y in zip(self.sums, other.sums, strict=True)]
        return self

    @property
    def n_items(self) -> int:
        return self.sums[0]

    def kappa(self, replace: float) -> float:
        if self.sums[0] == 0:
            raise QwkitError("No items yet: kappa needs at least one rated item.")
        return kappa_from_sums(*self.sums, replace)


def _values(labels: Labels | None):
    return None if labels is None else labels.values


def _empty(y1, y2) -> bool:
    """An empty batch (a partition of a larger data set may be): validated, adds nothing."""
    a = as_1d(y1, "y1") if not hasattr(y1, "__len__") else y1
    b = as_1d(y2, "y2") if not hasattr(y2, "__len__") else y2
    if len(a) == 0 or len(b) == 0:
        if len(a) != len(b):
            raise QwkitError(
                f"`y1` and `y2` must have the same length; got {len(a)} and {len(b)}.",
                parameter="y2",
                also=("y1",),
            )
        return True
    return False


# ---------------------------------------------------------------------------- table


class TableStats:
    """The K×K table of two raters on one scale, mergeable exactly.

    Without ``labels`` the scale is the integer range of everything seen, which grows
    with updates and merges (at most ``max_classes`` categories), or the order the data
    declare, or (``ordered=False``) the sorted distinct text ratings seen. Unweighted
    items and ``counts`` go to an int64 table; survey weights to exact sums per cell,
    with (when ``moments``) exact Σw² and the number of items of positive weight per
    cell, and the smallest and largest weight — everything :func:`kappa_test` needs.
    """

    __slots__ = (
        "counts",
        "declared",
        "given",
        "inferred",
        "k",
        "labels",
        "max_classes",
        "moments",
        "n_rows",
        "offset",
        "ordered",
        "positive",
        "squares",
        "survey",
        "wmax",
        "wmin",
        "wpos_max",
        "wpos_min",
    )

    def __init__(self, labels: Labels | None, *, max_classes: int, moments=True, ordered=True):
        self.labels = labels
        self.max_classes = max_classes
        self.moments = moments
        self.ordered = ordered
        self.declared = False  # labels adopted from an order the data declare
        self.inferred = False  # labels: the sorted distinct text ratings seen so far
        self.offset = labels.offset if labels is not None and labels.offset is not None else 0
        self.k = labels.n_classes if labels is not None else 0
        if self.k > max_classes:
            raise QwkitError(
                f"`labels` has {self.k} categories; at most {max_classes} are supported "
                "for a mergeable table with these weights.",
                parameter="labels",
            )
        self.counts = np.zeros((self.k, self.k), dtype=np.int64)
        self.survey: ExactRows | None = None
        self.squares: ExactRows | None = None
        self.positive: np.ndarray | None = None
        self.given: set[str] = set()  # the item weights seen: the parameters, or "unit"
        self.n_rows = 0  # rows of positive weight (with counts: their sum)
        self.wmin = self.wmax = self.wpos_min = self.wpos_max = math.nan

    # ------------------------------------------------------------------ scale

    def _grow(self, lo: int, k: int) -> None:
        """Widen the integer scale to cover [lo, lo + k)."""
        if self.k == 0:
            new_lo, new_hi = lo, lo + k - 1
        else:
            new_lo = min(self.offset, lo)
            new_hi = max(self.offset + self.k - 1, lo + k - 1)
        new_k = new_hi - new_lo + 1
        if new_k > self.max_classes:
            raise QwkitError(
                f"The ratings span {new_k} integer categories ({new_lo}..{new_hi}); a "
                f"mergeable table holds at most {self.max_classes}. Pass `labels` with the "
                "ratings that occur.",
                parameter="labels",
            )
        if new_lo == self.offset and new_k == self.k:
            return
        shift = self.offset - new_lo if self.k else 0
        self._remap(np.arange(self.k) + shift, new_k)
        self.offset = new_lo

    def _remap(self, idx: np.ndarray, new_k: int) -> None:
        """Move the table onto a wider scale: category i goes to position ``idx[i]``."""
        cells = _cells(idx, new_k)
        counts = np.zeros((new_k, new_k), dtype=np.int64)
        counts[np.ix_(idx, idx)] = self.counts
        self.counts = counts
        if self.survey is not None:
            self.survey = _scatter(self.survey, cells, new_k * new_k)
            if self.moments:
                self.squares = _scatter(self.squares, cells, new_k * new_k)
                positive = np.zeros(new_k * new_k, dtype=np.int64)
                positive[cells] = self.positive
                self.positive = positive
        self.k = new_k

    def _adopt(self, labels: Labels, *, inferred: bool = False) -> None:
        """Take the scale that the data declare (an ordered Categorical or Enum), or
        (``inferred``) the sorted distinct text ratings of a batch."""
        if self.k == 0:
            self.labels, self.offset, self.k = labels, 0, labels.n_classes
            self.declared, self.inferred = not inferred, inferred
            self.counts = np.zeros((self.k, self.k), dtype=np.int64)
            return
        raise _two_kinds(labels, "numbers") if inferred else _declared_after_integers(labels)

    def _place_text(self, r: Ratings) -> Ratings:
        """Text ratings without a declared order (``r``: positions on their sorted
        distinct values) as positions on the sorted distinct ratings seen so far."""
        batch = r.labels.values
        if not (self.k and self.inferred):  # the first batch (or one after numbers: an error)
            self._adopt(Labels(batch[:0], is_text=True, offset=None), inferred=True)
        self._widen_text(batch)
        where = np.searchsorted(self.labels.values, batch)
        return Ratings(tuple(where[c] for c in r.columns), r.names, 0, self.k, self.labels, True)

    def _widen_text(self, values: np.ndarray) -> None:
        """Widen a scale of sorted distinct text ratings to hold ``values`` too."""
        mine = self.labels.values
        union = np.union1d(mine, values)
        if union.shape[0] == mine.shape[0]:
            return
        if union.shape[0] > self.max_classes:
            raise QwkitError(
                f"The text ratings take {union.shape[0]} distinct values; a mergeable table "
                f"holds at most {self.max_classes}. Pass `labels`.",
                parameter="labels",
            )
        self._remap(np.searchsorted(union, mine), union.shape[0])
        self.labels = Labels(values=union, is_text=True, offset=None)

    def _place(self, lo: int, k: int) -> np.ndarray:
        """Cell indices in this table of the cells of a k×k table starting at lo."""
        if self.labels is not None:
            return np.arange(self.k * self.k)
        return _cells(np.arange(k) + (lo - self.offset), self.k)

    # ------------------------------------------------------------------ update, merge

    def update(self, y1, y2, sample_weight=None, *, counts=None) -> None:
        if _empty(y1, y2):
            item_weights(sample_weight, counts, 0, allow_zero_total=True)
            return
        given = None if self.inferred else _values(self.labels)
        r = prepare_ratings((y1, y2), given, ordered=self.ordered)
        iw = item_weights(sample_weight, counts, r.n_items, allow_zero_total=True)
        if self.declared:
            _check_declared(self.labels, y1, y2)
        elif given is None and r.labels is not None:
            if r.labels.is_text and declared_order((y1, y2), ("y1", "y2")) is None:
                r = self._place_text(r)  # unordered text: the sorted ratings seen so far
            else:
                self._adopt(r.labels)  # a declared order (an ordered Categorical)
        elif self.inferred:
            raise _two_kinds(self.labels, "text")
        survey = iw.survey
        if self.labels is not None:
            self._add_ratings(r, iw, r.offset, self.k)
        elif survey and self.moments:
            lo, k = measure_scale(r)
            self._grow(lo, k)
            self._add_ratings(r, iw, lo, k)
        else:  # count on the batch's own range, then place it in the growing table
            counted = guess_table(r, iw.as_float(), self.max_classes, survey)
            if counted is None:
                lo, k = measure_scale(r)
                self._grow(lo, k)  # raises: too wide
            table, lo, k = counted
            self._grow(lo, k)
            self._add_table(table, iw, r, lo, k)

    def _add_ratings(self, r, iw: ItemWeights, lo: int, k: int) -> None:
        w = iw.as_float()
        if iw.survey and self.moments:
            self._add_survey(r, w, lo, k)
            return
        self._add_table(count_table(r, w, lo, k, exact=iw.survey), iw, r, lo, k)

    def _add_table(self, table, iw: ItemWeights, r, lo: int, k: int) -> None:
        """Add a counted k×k table of the batch (on positions from ``lo``)."""
        if iw.survey:
            self._note_weights(iw.values)
            cells = self._place(lo, k)
            self.survey = _accumulate(self.survey, table, cells, self.k * self.k)
            return
        if iw.counts:
            table = table.astype(np.int64)
            self.n_rows += int(iw.values.sum())
            self.given.add("counts")
        else:
            self.n_rows += r.n_items
            self.given.add("unit")
        if self.labels is not None or (lo == self.offset and k == self.k):
            self.counts = self.counts + table
        else:
            flat = self.counts.ravel().copy()
            flat[self._place(lo, k)] += table.ravel()
            self.counts = flat.reshape(self.k, self.k)

    def _add_survey(self, r, w: np.ndarray, lo: int, k: int) -> None:
        self._note_weights(w)
        cell, bad_a, bad_b = _kernels.pair_cells(r.a, r.b, np.int64(lo), k)
        if bad_a >= 0 or bad_b >= 0:  # explicit labels: a rating off the scale
            raise out_of_scale_error(r, 0 if bad_a >= 0 else 1, int(max(bad_a, bad_b)))
        sums, squares, positive = exact_cell_sums(cell, w, k * k, squares=True)
        cells = self._place(lo, k)
        n_cells = self.k * self.k
        self.survey = _accumulate(self.survey, sums, cells, n_cells)
        self.squares = _accumulate(self.squares, squares, cells, n_cells)
        if self.positive is None:
            self.positive = np.zeros(n_cells, dtype=np.int64)
        self.positive[cells] += positive

    def _note_weights(self, w: np.ndarray) -> None:
        self.given.add("sample_weight")
        wmin, wmax, pos_min, n_pos = _kernels.weight_extremes(w)
        self.wmin = nan_min(self.wmin, float(wmin))
        self.wmax = nan_max(self.wmax, float(wmax))
        if n_pos:
            self.wpos_min = nan_min(self.wpos_min, float(pos_min))
            self.wpos_max = nan_max(self.wpos_max, float(wmax))
        self.n_rows += int(n_pos)

    def merge(self, other: TableStats) -> TableStats:
        if not isinstance(other, TableStats):
            raise QwkitTypeError(
                f"`other` must be of the same kind; got {type(other).__name__}.",
                parameter="other",
            )
        if other.k == 0:
            return self
        if self.k == 0 and self.labels is None and other.labels is not None:
            self._adopt(other.labels, inferred=other.inferred)
        if self.inferred and other.inferred:  # sorted text ratings: onto their union
            self._widen_text(other.labels.values)
            cells = _cells(np.searchsorted(self.labels.values, other.labels.values), self.k)
        else:
            check_same_labels(self.labels, other.labels, "labels")
            if self.labels is None:
                self._grow(other.offset, other.k)
            cells = self._place(other.offset, other.k)
        flat = self.counts.ravel().copy()
        flat[cells] += other.counts.ravel()
        self.counts = flat.reshape(self.k, self.k)
        n_cells = self.k * self.k
        if other.survey is not None:
            self.survey = _accumulate(self.survey, other.survey, cells, n_cells)
            if self.moments and other.moments:
                self.squares = _accumulate(self.squares, other.squares, cells, n_cells)
                if self.positive is None:
                    self.positive = np.zeros(n_cells, dtype=np.int64)
                self.positive[cells] += other.positive
            else:
                self.moments = False
        self.given |= other.given
        self.n_rows += other.n_rows
        self.wmin = nan_min(self.wmin, other.wmin)
        self.wmax = nan_max(self.wmax, other.wmax)
        self.wpos_min = nan_min(self.wpos_min, other.wpos_min)
        self.wpos_max = nan_max(self.wpos_max, other.wpos_max)
        return self

    # ------------------------------------------------------------------ finalize

    def check_items(self) -> None:
        """Raise :func:`no_items_error` when no item of positive weight was added."""
        if self.n_rows == 0:
            weighted = "counts" if "counts" in self.given else None
            raise no_items_error("sample_weight" if "sample_weight" in self.given else weighted)

    def scale(self):
        """The categories of the scale (labels, or the integer range)."""
        if self.labels is not None:
            return self.labels.values
        return np.arange(self.offset, self.offset + self.k)

    def table(self, *, shown: bool = True) -> np.ndarray:
        """The K×K table: int64 counts, or (with survey weights) float64 exact sums,
        rounded once per cell (unweighted items count with weight 1); not ``shown`` (for
        kappa), scaled by a power of two if a sum overflows (:func:`rounded_table`)."""
        if self.survey is None:
            return self.counts.copy()
        return rounded_table(self._exact_total(), self.k, shown=shown)

    def _exact_total(self) -> ExactRows:
        """The exact sums of every cell, survey weights and unweighted counts together."""
        total = self.survey
        if np.any(self.counts):
            total = total + ExactRows.from_integers(self.counts.ravel())
        return total

    def weighted(self) -> bool:
        return self.survey is not None

    def kappa(self, weights, replace: float, *, hint: str = "") -> float:
        """Kappa of the merged table: the value the in-memory functions return for the
        same items (named weights with survey weights: exactly from the exact sums)."""
        wmat = resolve(weights, self.k, hint=hint)
        if self.survey is None or not is_exact_name(weights):
            return kappa_from_table(self.table(shown=False), wmat, replace)
        return exact_table_kappa(self._exact_total(), wmat, replace)


def _cells(idx: np.ndarray, k: int) -> np.ndarray:
    """Flat cell indices in a k×k table of the cells of the categories at ``idx``."""
    return (idx[:, None] * k + idx[None, :]).ravel()


def _scatter(rows: ExactRows, cells: np.ndarray, n_cells: int) -> ExactRows:
    limbs = np.zeros((n_cells, rows.limbs.shape[1]), dtype=np.int64)
    limbs[cells] = rows.limbs
    return ExactRows(limbs, rows.exponent)


def _accumulate(total: ExactRows | None, part: ExactRows, cells, n_cells) -> ExactRows:
    placed = _scatter(part, cells, n_cells) if part.n_rows != n_cells else part
    if total is None:
        return placed
    return total + placed
