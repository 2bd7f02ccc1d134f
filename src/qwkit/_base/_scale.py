"""The rating scale: explicit ``labels``, and ratings as positions on a scale.

A scale is the ordered list of K categories; a rating's *position* (0 … K − 1) is what
disagreement weights and tables are indexed by. The scale is ``labels`` when given, the
order an ordered pandas Categorical / polars Enum declares, or — for integer ratings —
every integer from the smallest to the largest rating of all raters (measured lazily by
the kernels, so that a scale is never materialized in proportion to its width). Text
ratings have no order of their own: they need ``labels`` wherever the order matters.

:func:`prepare_ratings` validates any number of rating vectors of the same items;
:func:`rating_matrix` an items × raters matrix with missing ratings.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from qwkit import _kernels
from qwkit._base._errors import QwkitError, QwkitTypeError, at_index
from qwkit._base._scale_check import check_occurring, may_fire, sketch_columns, warn_codes
from qwkit._base._validation import (
    _is_missing,
    as_1d,
    beyond_exact_floats,
    bytes_as_text,
    check_finite,
    check_same_length,
    exact_number,
    integral_or_none,
    numbers_array,
    scalar,
    show,
)

__all__ = [
    "MAX_DENSE_CLASSES",
    "Labels",
    "RatingMatrix",
    "Ratings",
    "check_codes",
    "declared_order",
    "label_coordinates",
    "match_labels",
    "measure_scale",
    "offsets_from",
    "out_of_scale_error",
    "positions_on_scale",
    "prepare_labels",
    "prepare_ratings",
    "rating_matrix",
    "scale_values",
    "with_gaps",
]

#: The largest scale for which a dense K×K table is allocated. Larger scales are
#: handled without a table where the mathematics allows (named weights), and are
#: refused with a clear error where a table is the requested output.
MAX_DENSE_CLASSES = 10_000

_INT64_MAX = np.iinfo(np.int64).max


# ---------------------------------------------------------------------------- labels


@dataclass(frozen=True)
class Labels:
    """A validated, explicit rating scale."""

    values: np.ndarray  # the scale in its given order
    is_text: bool
    offset: int | None  # labels are offset, offset+1, ..., offset+K-1 (ints) -> fast path

    @property
    def n_classes(self) -> int:
        return int(self.values.shape[0])


def prepare_labels(labels, name: str = "labels") -> Labels:
    """Validate ``labels``: 1-D, non-empty, finite, no duplicates, one type."""
    arr = as_1d(labels, name)
    if arr.size == 0:
        raise QwkitError(
            f"`{name}` must contain at least one label; got an empty sequence.", parameter=name
        )
    check_finite(arr, name)
    is_text = arr.dtype.kind == "U"
    uniq, counts = np.unique(arr, return_counts=True)
    if uniq.size != arr.size:
        dup = uniq[counts > 1]
        raise QwkitError(
            f"`{name}` must not repeat a label; got duplicates {show(dup)}.", parameter=name
        )
    offset = None
    if not is_text:
        ints = integral_or_none(arr)
        if ints is not None:
            ints = ints.astype(np.int64)
            if np.all(np.diff(ints) == 1):
                offset = int(ints[0])
    return Labels(values=arr, is_text=is_text, offset=offset)


def label_coordinates(labels: Labels) -> tuple[int | float, np.ndarray]:
    """``(lo, coordinates)`` of numeric labels: label j is the value ``lo + coordinates[j]``
    (float64), exact for integers of any size relative to their smallest (``lo``, a
    Python int); float labels have ``lo`` 0.0."""
    values = labels.values
    ints = values if values.dtype.kind == "u" else integral_or_none(values)
    if ints is not None:
        lo = int(ints.min())
        return lo, offsets_from(ints, lo).astype(np.float64)
    return 0.0, values.astype(np.float64)


def _order_of(values):
    """The category order that a pandas ordered Categorical or a polars Enum declares."""
    dtype = getattr(values, "dtype", None)
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
        return np.asarray(dtype.categories)
    pl = sys.modules.get("polars")
    if pl is not None and isinstance(dtype, pl.Enum):
        return np.asarray(dtype.categories.to_list())
    return None


def declared_order(values, names):
    """Default scale from ordered categorical data: the declared order, not sorted order.

    ``values`` are the rating vectors of one call (``names`` theirs); every declared
    order must be the same. None when no vector declares one.
    """
    if all(type(y) is np.ndarray for y in values):
        return None  # numpy arrays declare no order
    found = None
    for y, name in zip(values, names, strict=True):
        order = _order_of(y)
        if order is None:
            continue
        if found is not None and not (
            found[0].shape == order.shape and bool(np.all(found[0] == order))
        ):
            raise QwkitError(
                f"`{found[1]}` and `{name}` declare different category orders "
                f"{show(found[0])} and {show(order)}; pass `labels`.",
                parameter=name,
                also=(found[1], "labels"),
            )
        found = found or (order, name)
    return None if found is None else found[0]


def _common_dtype(ref: np.ndarray, arr: np.ndarray) -> np.dtype:
    """A dtype in which labels and ratings compare exactly.

    numpy promotes int64 with uint64 to float64, where 2**62 + 1 == 2**62 + 2; integers
    are kept integers here (int64, or uint64 when both are non-negative, or Python
    integers as a last resort).
    """
    if ref.dtype.kind not in "biu" or arr.dtype.kind not in "biu":
        return np.result_type(ref.dtype, arr.dtype, np.float64)
    big = [x for x in (ref, arr) if x.dtype.kind == "u" and x.size and int(x.max()) > _INT64_MAX]
    if not big:
        return np.dtype(np.int64)
    if all(x.dtype.kind in "bu" or x.size == 0 or int(x.min()) >= 0 for x in (ref, arr)):
        return np.dtype(np.uint64)
    return np.dtype(object)


def _comparable(ref: np.ndarray, arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Numeric labels and ratings in one dtype where equal means equal.

    Whole-numbered floats meet integers as integers (float64 would merge 2**62 and
    2**62 + 1); only a side with a fractional value makes the comparison float64 (a
    fractional rating matches no integer label either way)."""
    if (ref.dtype.kind == "f") != (arr.dtype.kind == "f"):
        ints = [x if x.dtype.kind != "f" else integral_or_none(x) for x in (ref, arr)]
        if ints[0] is not None and ints[1] is not None:
            ref, arr = ints
    common = _common_dtype(ref, arr)
    return ref.astype(common), arr.astype(common, copy=False)


def match_labels(arr: np.ndarray, labels: Labels) -> tuple[np.ndarray, int | None]:
    """Position of every rating in ``labels`` (intp), and the index of the first rating
    that is not a label (None when all are): exact for integers of any size."""
    scale = labels.values
    order = np.argsort(scale, kind="stable")
    ref = scale[order]
    if not labels.is_text:
        ref, arr = _comparable(ref, arr)
    idx = np.searchsorted(ref, arr)
    idx_clipped = np.minimum(idx, ref.size - 1)
    bad = (idx >= ref.size) | (ref[idx_clipped] != arr)
    first = int(np.flatnonzero(bad)[0]) if bad.any() else None
    return order[idx_clipped].astype(np.intp, copy=False), first


def _codes(arr: np.ndarray, labels: Labels, name: str) -> np.ndarray:
    """Position of every rating in ``labels``; error on the first unknown rating."""
    codes, bad = match_labels(arr, labels)
    if bad is not None:
        raise _not_in_labels(name, arr[bad], labels.values, bad)
    return codes


def _not_in_labels(name: str, value, scale: np.ndarray, i: int) -> QwkitError:
    return QwkitError(
        f"`{name}` contains {scalar(value)!r}, which is not in `labels` {show(scale)} "
        f"({at_index(i)}).",
        parameter=name,
        row=i,
        also=("labels",),
    )


# ---------------------------------------------------------------------------- ratings


@dataclass(frozen=True)
class Ratings:
    """Rating vectors of the same items by several raters, as positions on one scale.

    ``columns`` are integer arrays (any integer dtype, possibly the caller's own memory);
    the position of a rating on the scale is ``value - offset``. When ``n_classes`` is
    None the scale is the integer range spanned by the data, still to be measured
    (:func:`measure_scale`); otherwise every position lies in ``[0, n_classes)`` once
    checked by a kernel (``checked`` says whether that is already known).
    """

    columns: tuple[np.ndarray, ...]
    names: tuple[str, ...]
    offset: int | None
    n_classes: int | None
    labels: Labels | None
    checked: bool
    #: What is learned about an inferred scale, once per call: its "sketch" (the
    #: extreme distinct ratings), "bounds" a kernel saw, whether it was "inspected".
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def a(self) -> np.ndarray:
        return self.columns[0]

    @property
    def b(self) -> np.ndarray:
        return self.columns[1]

    @property
    def n_items(self) -> int:
        return int(self.columns[0].shape[0])

    def pair(self, i: int, j: int) -> Ratings:
        """The two raters ``i`` and ``j`` on the same scale."""
        return Ratings(
            (self.columns[i], self.columns[j]),
            (self.names[i], self.names[j]),
            self.offset,
            self.n_classes,
            self.labels,
            self.checked,
            {"inspected": True} if self.memo.get("inspected") else {},  # warned once
        )


def _text(arr: np.ndarray) -> bool:
    return arr.dtype.kind == "U"


def _check_integers(arr: np.ndarray, ints, name: str) -> None:
    """Ratings without ``labels`` must be integers within the int64 range."""
    if ints is not None:
        return
    if arr.dtype.kind == "u":
        raise QwkitError(
            f"`{name}` holds values above 2**63 - 1 ({arr.max()}); pass `labels` "
            "to rate on an explicit scale.",
            parameter=name,
        )
    if arr.dtype.kind == "f" and np.all(arr == np.floor(arr)):
        raise QwkitError(
            f"`{name}` holds integral values outside the int64 range (largest "
            f"magnitude {np.abs(arr).max()}); pass `labels` to rate on an explicit scale.",
            parameter=name,
        )
    bad = np.flatnonzero(arr != np.floor(arr)) if arr.dtype.kind == "f" else []
    row = int(bad[0]) if len(bad) else None
    where = f" ({at_index(row)} holds {arr[row]})" if row is not None else ""
    raise QwkitError(
        f"`{name}` must hold integer ratings{where}. For real-valued scores "
        "use `soft_kappa_score`, or round them first with `optimize_thresholds`"
        " / `apply_thresholds`; for a non-integer scale pass `labels`.",
        parameter=name,
        row=row,
    )


def _unordered_text_error(name: str, arr: np.ndarray) -> QwkitError:
    shown = show(np.unique(arr)[:4]) if arr.size else "[]"
    return QwkitError(
        f"`{name}` holds text ratings such as {shown} with no declared order; weighted kappa "
        "needs the order of the scale: pass `labels` in order (e.g. labels=['low', "
        "'medium', 'high']), an ordered Categorical, or use weights='identity' (unweighted "
        "kappa, where the order does not matter).",
        parameter="labels",
        also=(name,),
    )


def prepare_ratings(
    vectors: Sequence,
    labels,
    *,
    names: Sequence[str] = ("y1", "y2"),
    ordered: bool = True,
    allow_empty: bool = False,
) -> Ratings:
    """Validate rating vectors of the same items against an optional explicit scale.

    Parameters
    ----------
    vectors : sequence of array-likes
        One rating vector per rater, all of the same length.
    labels : array-like or None
        The explicit scale; None: a declared order (ordered Categorical / Enum), else
        the integer range of all ratings, else (text, ``ordered=False`` only) the sorted
        distinct ratings.
    names : sequence of str
        The parameter name of every vector, for messages.
    ordered : bool
        Whether the order of the scale matters (weighted kappa, thresholds). Text
        ratings without a declared order are refused when it does.
    allow_empty : bool
        Accept empty vectors when ``labels`` is given (a streaming batch that adds
        nothing).
    """
    names = tuple(names)
    if labels is None:
        labels = declared_order(vectors, names)
    arrays = [as_1d(y, name) for y, name in zip(vectors, names, strict=True)]
    for arr, name in zip(arrays[1:], names[1:], strict=True):
        check_same_length(arrays[0], arr, (names[0], name))
    if arrays[0].shape[0] == 0:
        if allow_empty and labels is not None:
            lab = prepare_labels(labels)
            empty = np.empty(0, dtype=np.intp)
            return Ratings((empty,) * len(arrays), names, 0, lab.n_classes, lab, True)
        listed = " and ".join(f"`{n}`" for n in names)
        raise QwkitError(
            f"{listed} are empty; kappa needs at least one rated item.",
            parameter=names[0],
            also=names[1:],
        )
    if labels is None and all(
        a.dtype.kind == "i" or (a.dtype.kind == "u" and a.dtype.itemsize < 8) for a in arrays
    ):
        return Ratings(tuple(arrays), names, None, None, None, False)  # integers: as they are
    texts = [_text(a) for a in arrays]
    if any(texts) and not all(texts):
        text = names[texts.index(True)]
        num = names[texts.index(False)]
        raise QwkitTypeError(
            f"`{text}` holds strings but `{num}` holds numbers; both raters must use one scale.",
            parameter=num,
            also=(text,),
        )
    for arr, name in zip(arrays, names, strict=True):
        check_finite(arr, name)
    lab = None if labels is None else prepare_labels(labels)

    if texts[0]:
        if lab is None:
            if ordered:
                raise _unordered_text_error(names[0], arrays[0])
            lab = prepare_labels(np.unique(np.concatenate(arrays)))
        elif not lab.is_text:
            raise QwkitTypeError(
                f"`{names[0]}` holds strings but `labels` holds numbers {show(lab.values)}.",
                parameter="labels",
                also=(names[0],),
            )
        codes = tuple(_codes(a, lab, n) for a, n in zip(arrays, names, strict=True))
        return Ratings(codes, names, 0, lab.n_classes, lab, True)

    if lab is not None and lab.is_text:
        raise QwkitTypeError(
            f"`{names[0]}` holds numbers but `labels` holds strings {show(lab.values)}.",
            parameter="labels",
            also=(names[0],),
        )
    ints = [integral_or_none(a) for a in arrays]
    if lab is None:
        for arr, i, name in zip(arrays, ints, names, strict=True):
            _check_integers(arr, i, name)
        return Ratings(tuple(ints), names, None, None, None, False)
    if lab.offset is not None and all(i is not None for i in ints):
        return Ratings(tuple(ints), names, lab.offset, lab.n_classes, lab, False)
    codes = tuple(_codes(a, lab, n) for a, n in zip(arrays, names, strict=True))
    return Ratings(codes, names, 0, lab.n_classes, lab, True)


def out_of_scale_error(ratings: Ratings, column: int, item: int) -> QwkitError:
    """The error for a rating that a kernel found outside the explicit scale."""
    name = ratings.names[column]
    return _not_in_labels(name, ratings.columns[column][item], ratings.labels.values, item)


def check_in_scale(ratings: Ratings, extremes: Sequence[tuple[int, int]]) -> None:
    """Explicit consecutive-integer labels: every rating must fall inside them.

    ``extremes`` are the (min, max) of every column (from a kernel pass).
    """
    if ratings.checked or ratings.n_classes is None:
        return
    lo, hi = ratings.offset, ratings.offset + ratings.n_classes - 1
    for c, (cmin, cmax) in enumerate(extremes):
        if cmin < lo or cmax > hi:
            x = ratings.columns[c]
            bad = np.flatnonzero((x < lo) | (x > hi))[0]
            raise out_of_scale_error(ratings, c, int(bad))


def _column_extremes(ratings: Ratings) -> list[tuple[int, int]]:
    cols = ratings.columns
    out = []
    for start in range(0, len(cols), 2):
        a = cols[start]
        b = cols[start + 1] if start + 1 < len(cols) else a
        amin, amax, bmin, bmax = _kernels.minmax2(a, b)
        out.append((int(amin), int(amax)))
        if start + 1 < len(cols):
            out.append((int(bmin), int(bmax)))
    return out


def check_whole_scale(ratings: Ratings) -> None:
    """Explicit consecutive-integer labels not yet checked: check every rating in a pass."""
    if not ratings.checked and ratings.n_classes is not None:
        check_in_scale(ratings, _column_extremes(ratings))


def measure_scale(ratings: Ratings) -> tuple[int, int]:
    """(offset, K) of the scale; measures the integer range when labels were not given
    (and checks explicit consecutive-integer labels on the way)."""
    if ratings.n_classes is not None:
        check_whole_scale(ratings)
        return ratings.offset, ratings.n_classes
    sketch = ratings.memo.get("sketch")
    if sketch is None:  # the extremes and, in the same pass, what check_codes reads
        sketch = ratings.memo["sketch"] = sketch_columns(ratings.columns)
    lo = sketch.low[0]
    return lo, sketch.high[-1] - lo + 1


def check_codes(ratings: Ratings, *, table=None, offset: int = 0) -> None:
    """Warn (ScaleWarning, once per call) when an inferred integer scale holds values
    that look like missing-value codes (``qwkit._base._scale_check``).

    What the computation already found is read, never an extra pass when it can be
    helped: the sketch of :func:`measure_scale`, a K×K ``table`` (an ndarray) of the
    positions from ``offset``, or the "bounds" a kernel saw (ratings within 22
    non-negative integers need nothing). Only ratings that may hold codes (negative, or
    spanning 23 integers or more) and were summed without a table get a pass of their
    own.
    """
    memo = ratings.memo
    if ratings.n_classes is not None or memo.get("inspected"):
        return
    memo["inspected"] = True
    sketch = memo.get("sketch")
    if sketch is not None:
        warn_codes(sketch)
    elif table is not None:
        nonzero = np.asarray(table) != 0  # which categories occur (no sums: they may overflow)
        check_occurring(offset, nonzero.any(axis=0) | nonzero.any(axis=1))
    elif memo.get("bounds") is None or may_fire(*memo["bounds"]):
        warn_codes(sketch_columns(ratings.columns))


def scale_values(ratings: Ratings, offset: int, k: int):
    """The categories of the scale: the explicit labels, or the integers offset … offset
    + K − 1 (an ndarray up to ``MAX_DENSE_CLASSES`` categories, a ``range`` beyond:
    never materialized in proportion to the width of the scale)."""
    if ratings.labels is not None:
        return ratings.labels.values
    if k <= MAX_DENSE_CLASSES:
        return np.arange(offset, offset + k)
    return range(offset, offset + k)


def offsets_from(values: np.ndarray, lo: int) -> np.ndarray:
    """Exact ``values − lo`` as uint64, for integers (any integer dtype) no smaller
    than ``lo``: wrapping int64 subtraction read as unsigned is exact for any int64
    range, and uint64 subtracts as it is. Never a float64 copy of the values, which
    would merge 2**53 and 2**53 + 1."""
    if values.dtype.kind == "u" and values.dtype.itemsize == 8 and lo >= 0:
        return values - np.uint64(lo)
    return (np.asarray(values, dtype=np.int64) - np.int64(lo)).view(np.uint64)


def positions(ratings: Ratings, offset: int) -> list[np.ndarray]:
    """Exact scale positions ``x − offset`` of every column as uint64."""
    return [offsets_from(x, offset) for x in ratings.columns]


def positions_on_scale(
    y, labels, name: str, *, ordered: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """One rating vector → (positions 0..K−1 as int64, the scale as an array).

    The scale is ``labels``, a declared order, or the integer range of ``y`` (text:
    sorted, when ``ordered`` is False); it must fit a dense table (at most
    ``MAX_DENSE_CLASSES`` categories).
    """
    r = prepare_ratings((y,), labels, names=(name,), ordered=ordered)
    if r.n_classes is not None and r.n_classes > MAX_DENSE_CLASSES:
        given = labels is not None
        raise QwkitError(
            f"`{'labels' if given else name}` has {r.n_classes} "
            f"{'categories' if given else 'distinct ratings'}; at most {MAX_DENSE_CLASSES} "
            "categories are supported here.",
            parameter="labels" if given else name,
        )
    if r.checked:  # positions on an explicit or text scale, already validated
        return np.asarray(r.a, dtype=np.int64), r.labels.values
    offset, k = measure_scale(r)
    if k > MAX_DENSE_CLASSES:
        raise QwkitError(
            f"`{name}` spans {k} integer categories ({offset}..{offset + k - 1}); at most "
            f"{MAX_DENSE_CLASSES} are supported here. Pass `labels` with the ratings "
            "that occur.",
            parameter=name,
        )
    check_codes(r)
    codes = r.a.astype(np.int64) - np.int64(offset)
    return codes, scale_values(r, offset, k)


# ---------------------------------------------------------------------------- n raters, missing


@dataclass(frozen=True)
class RatingMatrix:
    """Ratings of n items by r raters with missing entries, validated.

    ``present`` marks the ratings given; ``values`` holds them in row-major order
    (numbers — integers, or finite floats — or str); ``columns`` are the rater names of a
    data frame (None for arrays); ``declared`` is the category order an ordered
    Categorical / Enum column declares (None if none does).
    """

    present: np.ndarray  # (n, r) bool
    values: np.ndarray  # (present.sum(),)
    is_text: bool
    columns: tuple | None
    declared: np.ndarray | None

    @property
    def shape(self) -> tuple[int, int]:
        return self.present.shape

    def where(self, k: int) -> str:
        """Where the k-th present rating is, in words: ``row i, column j``."""
        return _where(int(np.flatnonzero(self.present.ravel())[k]), self.shape, self.columns)

    def row(self, k: int) -> int:
        """The item (row) of the k-th present rating."""
        return int(np.flatnonzero(self.present.ravel())[k]) // self.shape[1]


def _where(flat_index: int, shape, columns) -> str:
    i, j = divmod(int(flat_index), shape[1])
    col = f"column {columns[j]!r}" if columns is not None else f"column {j}"
    return f"row {i}, {col}"


def _frame_to_array(frame):
    """A pandas/polars DataFrame → (2-D array, column names, declared category order)."""
    cols = tuple(frame.columns)
    series = [frame[c] for c in cols]
    order = declared_order(series, [str(c) for c in cols])
    if type(frame).__module__.startswith("pandas"):
        types = {getattr(dt, "kind", "O") for dt in frame.dtypes}
        numeric = all(isinstance(dt, np.dtype) for dt in frame.dtypes) and types <= set("biuf")
        arr = frame.to_numpy() if numeric else frame.to_numpy(dtype=object)
    else:
        arr = frame.to_numpy()
    return arr, cols, order


def _mapping_to_array(columns: Mapping, name: str):
    """A mapping of column name → ratings (one per item) → (2-D array, names, declared
    order): a data frame as a dict of columns."""
    names = tuple(columns)
    if not names:
        raise QwkitError(f"`{name}` holds no column; got an empty mapping.", parameter=name)
    series = list(columns.values())
    arrays = []
    for key, values in zip(names, series, strict=True):
        if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
            values = values.to_numpy()
        arr = np.asarray(values)
        if arr.dtype.kind in "US" and not isinstance(values, np.ndarray):
            arr = np.asarray(values, dtype=object)  # numpy turns [1, "a"] into text
        elif arr.dtype.kind == "f" and not isinstance(values, np.ndarray):
            if beyond_exact_floats(arr):  # numpy rounds [2**63 + 1, 5] to float64
                arr = np.asarray(values, dtype=object)
        if arr.ndim != 1:
            raise QwkitError(
                f"`{name}` column {key!r} must hold one rating per item (1-D); got shape "
                f"{arr.shape}.",
                parameter=name,
            )
        arrays.append(arr)
    lengths = [a.shape[0] for a in arrays]
    if len(set(lengths)) > 1:
        shown = ", ".join(f"{k!r}: {n}" for k, n in zip(names, lengths, strict=True))
        raise QwkitError(
            f"`{name}` columns must rate the same items, one rating per item; got lengths {shown}.",
            parameter=name,
        )
    kinds = {a.dtype.kind for a in arrays}
    # a float64 stack must not round integers (int64 beside uint64 or float columns)
    exact = np.result_type(*arrays).kind != "f" or all(_float_exact(a) for a in arrays)
    if (kinds <= set("biuf") and exact) or (len(kinds) == 1 and kinds <= set("US")):
        arr = np.column_stack(arrays)
    else:
        arr = np.empty((lengths[0], len(arrays)), dtype=object)
        for j, a in enumerate(arrays):
            arr[:, j] = a
    order = declared_order(series, [str(k) for k in names])
    return arr, names, order


def _to_2d(ratings, name: str):
    """ratings → (2-D ndarray, column names or None, declared order or None)."""
    if isinstance(ratings, Mapping):
        return _mapping_to_array(ratings, name)
    if ratings is None or isinstance(ratings, (str, bytes)):
        raise QwkitTypeError(
            f"`{name}` must be a 2-D array-like of shape (n_items, n_raters); got {ratings!r}.",
            parameter=name,
        )
    if hasattr(ratings, "tocsr") or type(ratings).__module__.startswith("scipy.sparse"):
        raise QwkitTypeError(
            f"`{name}` must be dense; got a sparse matrix. Missing ratings are NaN or None, "
            "not absent entries.",
            parameter=name,
        )
    if hasattr(ratings, "columns") and hasattr(ratings, "to_numpy"):
        return _frame_to_array(ratings)
    if hasattr(ratings, "to_numpy") and not isinstance(ratings, np.ndarray):
        ratings = ratings.to_numpy()
    if isinstance(ratings, np.ma.MaskedArray):  # a masked entry is a missing rating
        mask = np.ma.getmaskarray(ratings)
        if ratings.dtype.kind == "f":
            ratings = ratings.filled(np.nan)
        else:
            data = np.asarray(ratings.data, dtype=object)
            data[mask] = None
            ratings = data
    ragged = QwkitError(
        f"`{name}` must be rectangular (n_items, n_raters); got rows of different lengths.",
        parameter=name,
    )
    try:
        arr = np.asarray(ratings)
        if arr.dtype.kind in "US" and not isinstance(ratings, np.ndarray):
            arr = np.asarray(ratings, dtype=object)  # numpy turns [1, "a"] into text
        elif arr.dtype.kind == "f" and not isinstance(ratings, np.ndarray):
            if beyond_exact_floats(arr):  # numpy rounds [[2**60 + 1, 0.5]] to float64
                arr = np.asarray(ratings, dtype=object)
    except ValueError as exc:
        raise ragged from exc
    if arr.dtype == object and arr.ndim == 1 and arr.size and isinstance(arr[0], (list, tuple)):
        raise ragged
    return arr, None, None


def _split(arr: np.ndarray, name: str, columns):
    """2-D array → (present mask, present values in row-major order, is_text)."""
    kind = arr.dtype.kind
    if kind == "f":
        present = ~np.isnan(arr)
        values = arr[present].astype(np.float64, copy=False)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            flat = np.flatnonzero(present)[bad[0]]
            raise QwkitError(
                f"`{name}` contains {values[bad[0]]} at {_where(flat, arr.shape, columns)}; "
                "ratings must be finite (NaN marks a missing rating).",
                parameter=name,
                row=int(flat) // arr.shape[1],
            )
        return present, values, False
    if kind in "biu":
        return np.ones(arr.shape, dtype=bool), arr.ravel(), False
    if kind in "US":
        where = lambda i: (_where(i, arr.shape, columns), i // arr.shape[1])  # noqa: E731
        return np.ones(arr.shape, dtype=bool), bytes_as_text(arr.ravel(), name, where), True
    if kind != "O":
        raise QwkitTypeError(
            f"`{name}` must hold numbers or strings; got dtype {arr.dtype}.", parameter=name
        )
    items = arr.ravel().tolist()
    present = np.ones(len(items), dtype=bool)
    types = set()
    kept = []
    for i, item in enumerate(items):
        if _is_missing(item):
            present[i] = False
            continue
        item = exact_number(item, name, _where(i, arr.shape, columns), i // arr.shape[1])
        if isinstance(item, str):
            types.add("text")
        elif isinstance(item, (numbers.Real, np.bool_)) and not isinstance(item, complex):
            types.add("number")
        else:
            raise QwkitTypeError(
                f"`{name}` must hold numbers or strings; got {type(item).__name__} {item!r} "
                f"at {_where(i, arr.shape, columns)}.",
                parameter=name,
                row=i // arr.shape[1],
            )
        if len(types) > 1:
            raise QwkitTypeError(
                f"`{name}` mixes text and numbers ({item!r} at "
                f"{_where(i, arr.shape, columns)}); use one type for every rating.",
                parameter=name,
                row=i // arr.shape[1],
            )
        kept.append(item)
    present = present.reshape(arr.shape)
    if types == {"text"}:
        return present, np.asarray(kept, dtype=str), True
    values = numbers_array(kept, name)
    if values.dtype.kind == "f":
        refilled = np.full(present.shape, np.nan)
        refilled[present] = values
        return _split(refilled, name, columns)
    return present, values, False


def _float_exact(values: np.ndarray) -> bool:
    """Whether float64 holds every number of ``values`` exactly: floats, and integers
    within ±2**53 (2**53 + 1 is no float64)."""
    if values.dtype.kind not in "biu" or not values.size:
        return True
    return -(2**53) <= int(values.min()) and int(values.max()) <= 2**53


def with_gaps(present: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Ratings laid out with the ones not given left empty: float64 with NaN, or object
    with None for text and for integers that float64 cannot hold (beyond ±2**53, where
    it would merge 2**53 and 2**53 + 1). ``values`` fill ``present`` in C order."""
    if values.dtype.kind in "biuf" and _float_exact(values):
        out = np.full(present.shape, np.nan)
    else:
        out = np.full(present.shape, None, dtype=object)
        if values.dtype.kind in "iu":
            values = values.astype(object)  # Python integers, exactly
    out[present] = values
    return out


def rating_matrix(ratings, name: str = "ratings") -> RatingMatrix:
    """Validate an items × raters array-like of ratings with missing entries.

    numpy arrays (NaN for missing), nested lists and object arrays (None, NaN, pandas'
    NA), pandas and polars data frames and mappings of column name → ratings (one column
    per rater; an ordered Categorical or Enum declares the order of the scale). Every
    rating is a number or every one is text; numbers must be finite.
    """
    arr, columns, declared = _to_2d(ratings, name)
    if arr.ndim != 2:
        raise QwkitError(
            f"`{name}` must be 2-D, one row per item and one column per rater; got shape "
            f"{arr.shape}.",
            parameter=name,
        )
    present, values, is_text = _split(arr, name, columns)
    return RatingMatrix(present, values, is_text, columns, declared)
