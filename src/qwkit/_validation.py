"""Input validation: turn what users pass into arrays the kernels can trust.

Every error names the parameter in backticks, says what is allowed and shows what
was received (STYLE.md, "Errors and warnings"). Nothing here computes kappa.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import KeysView, ValuesView
from dataclasses import dataclass

import numpy as np

from qwkit import _kernels

__all__ = [
    "MAX_DENSE_CLASSES",
    "Ratings",
    "as_real_array",
    "check_confusion",
    "check_replace_undefined_by",
    "check_same_length",
    "check_sample_weight",
    "check_weights",
    "declared_order",
    "prepare_labels",
    "prepare_ratings",
]

#: The largest scale for which a dense K×K table is allocated. Larger scales are
#: handled without a table where the mathematics allows (named weights), and are
#: refused with a clear error where a table is the requested output.
MAX_DENSE_CLASSES = 10_000

_NAMED_WEIGHTS = ("quadratic", "linear", "identity")
_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


def _show(values, limit: int = 10) -> str:
    """Short printable form of a sequence of labels for error messages."""
    items = [_scalar(v) for v in values[:limit]]
    text = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in items)
    return f"[{text}{', ...' if len(values) > limit else ''}]"


def _scalar(value):
    """Numpy scalar → Python scalar, for messages."""
    return value.item() if isinstance(value, np.generic) else value


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


# ---------------------------------------------------------------------------- arrays


def _classify_objects(values: np.ndarray, name: str) -> np.ndarray:
    """Object array → a typed array of str or numbers, or a clear error."""
    items = values.tolist()
    kinds = set()
    for i, item in enumerate(items):
        if _is_missing(item):
            raise ValueError(f"`{name}` contains a missing value ({item!r}) at index {i}.")
        if isinstance(item, str):
            kinds.add("str")
        elif isinstance(item, (numbers.Integral, numbers.Real)) and not isinstance(item, complex):
            kinds.add("number")
        else:
            raise TypeError(
                f"`{name}` must hold numbers or strings; got {type(item).__name__} "
                f"{item!r} at index {i}."
            )
        if len(kinds) > 1:
            raise TypeError(
                f"`{name}` mixes strings and numbers (index {i} holds {item!r}); "
                "use one type for every rating."
            )
    if kinds == {"str"}:
        return np.asarray(items, dtype=str)
    try:
        out = np.asarray(items)
    except OverflowError:  # pragma: no cover - numpy raises for huge ints on some versions
        out = np.asarray(items, dtype=object)
    if out.dtype == object:
        raise ValueError(
            f"`{name}` holds numbers that are neither int64 nor float64 (for example "
            "integers beyond ±2**63 or Fractions); convert them first."
        )
    return out


def as_1d(values, name: str) -> np.ndarray:
    """Any array-like (list, ndarray, pandas/polars Series) → a 1-D numpy array."""
    if values is None:
        raise TypeError(f"`{name}` must be array-like; got None.")
    if isinstance(values, (str, bytes)):
        raise TypeError(f"`{name}` must be array-like; got the string {values!r}.")
    if isinstance(values, (KeysView, ValuesView)):  # ordered in Python: take them as listed
        values = list(values)
    if isinstance(values, (set, frozenset, dict)) or hasattr(values, "__next__"):
        raise TypeError(
            f"`{name}` must be an ordered sequence or array (list, ndarray, Series); got a "
            f"{type(values).__name__}."
        )
    if isinstance(values, (list, tuple)):
        try:
            arr = np.asarray(values)
        except ValueError:  # ragged nesting
            arr = np.asarray(values, dtype=object)
        if arr.ndim == 1 and arr.dtype.kind in "US":
            # numpy turns [1, "a"] into strings; re-read item by item to catch mixing
            arr = np.empty(len(values), dtype=object)
            arr[:] = values
    else:
        if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
            values = values.to_numpy()
        arr = np.asarray(values)
    if arr.ndim != 1:
        what = "a scalar" if arr.ndim == 0 else f"an array of shape {arr.shape}"
        raise ValueError(f"`{name}` must be 1-D; got {what}.")
    if arr.dtype == object:
        arr = _classify_objects(arr, name)
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"`{name}` must be real; got complex dtype {arr.dtype}.")
    if kind not in "biufUS":
        raise TypeError(f"`{name}` must hold numbers or strings; got dtype {arr.dtype}.")
    if kind == "S":
        arr = arr.astype(str)
    elif not arr.dtype.isnative:  # big-endian data: the kernels read native order only
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _check_finite(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"`{name}` contains {arr[i]} at index {i}; values must be finite.")


def _integral_or_none(arr: np.ndarray) -> np.ndarray | None:
    """Integer-valued numeric array as an integer array (no copy when possible)."""
    kind = arr.dtype.kind
    if kind == "b":
        return arr.view(np.uint8)
    if kind == "i":
        return arr
    if kind == "u":
        if arr.dtype.itemsize < 8 or arr.size == 0 or int(arr.max()) <= _INT64_MAX:
            return arr
        return None
    if kind == "f":
        arr = arr.astype(np.float64, copy=False) if arr.dtype.itemsize < 8 else arr
        if not np.all(arr == np.floor(arr)):
            return None
        if arr.size and (arr.min() < _INT64_MIN or arr.max() >= 2.0**63):
            return None
        return arr.astype(np.int64)
    return None


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


def prepare_labels(labels) -> Labels:
    """Validate ``labels``: 1-D, non-empty, finite, no duplicates, one type."""
    arr = as_1d(labels, "labels")
    if arr.size == 0:
        raise ValueError("`labels` must contain at least one label; got an empty sequence.")
    _check_finite(arr, "labels")
    is_text = arr.dtype.kind == "U"
    uniq, counts = np.unique(arr, return_counts=True)
    if uniq.size != arr.size:
        dup = uniq[counts > 1]
        raise ValueError(f"`labels` must not repeat a label; got duplicates {_show(dup)}.")
    offset = None
    if not is_text:
        ints = _integral_or_none(arr)
        if ints is not None:
            ints = ints.astype(np.int64)
            if np.all(np.diff(ints) == 1):
                offset = int(ints[0])
    return Labels(values=arr, is_text=is_text, offset=offset)


# ---------------------------------------------------------------------------- ratings


@dataclass(frozen=True)
class Ratings:
    """Two validated rating vectors as integer positions on a scale.

    ``a`` and ``b`` are integer arrays (any integer dtype, possibly the caller's own
    memory); the position of a rating on the scale is ``value - offset``. When
    ``n_classes`` is None the scale is the integer range spanned by the data, still
    to be measured; otherwise every position lies in ``[0, n_classes)`` once checked
    by a kernel (``checked`` says whether that is already known).
    """

    a: np.ndarray
    b: np.ndarray
    offset: int | None
    n_classes: int | None
    labels: Labels | None
    checked: bool

    @property
    def n_samples(self) -> int:
        return int(self.a.shape[0])


def _codes(arr: np.ndarray, labels: Labels, name: str) -> np.ndarray:
    """Position of every rating in ``labels``; error on the first unknown rating."""
    scale = labels.values
    if labels.is_text:
        order = np.argsort(scale, kind="stable")
        ref = scale[order]
    else:
        order = np.argsort(scale, kind="stable")
        ref = scale[order]
        common = _common_dtype(ref, arr)
        ref = ref.astype(common)
        arr = arr.astype(common, copy=False)
    idx = np.searchsorted(ref, arr)
    idx_clipped = np.minimum(idx, ref.size - 1)
    bad = (idx >= ref.size) | (ref[idx_clipped] != arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"`{name}` contains {_scalar(arr[i])!r}, which is not in `labels` "
            f"{_show(scale)} (index {i})."
        )
    return order[idx_clipped].astype(np.intp, copy=False)


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
    found = None
    for y, name in zip(values, names, strict=True):
        order = _order_of(y)
        if order is None:
            continue
        if found is not None and not (
            found[0].shape == order.shape and bool(np.all(found[0] == order))
        ):
            raise ValueError(
                f"`{found[1]}` and `{name}` declare different category orders "
                f"{_show(found[0])} and {_show(order)}; pass `labels`."
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


def _text_kind(arr: np.ndarray) -> bool:
    return arr.dtype.kind == "U"


def prepare_ratings(y1, y2, labels, *, names=("y1", "y2"), allow_empty=False) -> Ratings:
    """Validate two rating vectors against an optional explicit scale.

    ``allow_empty`` lets a streaming update accept an empty batch (explicit labels only).
    """
    n1, n2 = names
    if labels is None:
        labels = declared_order((y1, y2), names)
    a = as_1d(y1, n1)
    b = as_1d(y2, n2)
    check_same_length(a, b, names)
    if a.shape[0] == 0 and allow_empty and labels is not None:
        lab = prepare_labels(labels)
        empty = np.empty(0, dtype=np.intp)
        return Ratings(empty, empty, 0, lab.n_classes, lab, True)
    if a.shape[0] == 0:
        raise ValueError(f"`{n1}` and `{n2}` are empty; kappa needs at least one rated item.")
    if _text_kind(a) != _text_kind(b):
        text, num = (n1, n2) if _text_kind(a) else (n2, n1)
        raise TypeError(
            f"`{text}` holds strings but `{num}` holds numbers; both raters must use one scale."
        )
    _check_finite(a, n1)
    _check_finite(b, n2)
    lab = None if labels is None else prepare_labels(labels)

    if _text_kind(a):
        if lab is None:
            lab = prepare_labels(np.union1d(a, b))
        elif not lab.is_text:
            raise TypeError(f"`{n1}` holds strings but `labels` holds numbers {_show(lab.values)}.")
        return Ratings(_codes(a, lab, n1), _codes(b, lab, n2), 0, lab.n_classes, lab, True)

    if lab is not None and lab.is_text:
        raise TypeError(f"`{n1}` holds numbers but `labels` holds strings {_show(lab.values)}.")

    ia, ib = _integral_or_none(a), _integral_or_none(b)
    if lab is None:
        for arr, ints, name in ((a, ia, n1), (b, ib, n2)):
            if ints is None and arr.dtype.kind == "u":
                raise ValueError(
                    f"`{name}` holds values above 2**63 - 1 ({arr.max()}); pass `labels` "
                    "to rate on an explicit scale."
                )
            if ints is None and arr.dtype.kind == "f" and np.all(arr == np.floor(arr)):
                raise ValueError(
                    f"`{name}` holds integral values outside the int64 range (largest "
                    f"magnitude {np.abs(arr).max()}); pass `labels` to rate on an explicit scale."
                )
            if ints is None:
                bad = np.flatnonzero(arr != np.floor(arr)) if arr.dtype.kind == "f" else []
                where = f" (index {int(bad[0])} holds {arr[bad[0]]})" if len(bad) else ""
                raise ValueError(
                    f"`{name}` must hold integer ratings{where}. For real-valued scores "
                    "use `soft_kappa_score`, or round them first with `optimize_thresholds`"
                    " / `apply_thresholds`; for a non-integer scale pass `labels`."
                )
        return Ratings(ia, ib, None, None, None, False)

    if lab.offset is not None and ia is not None and ib is not None:
        return Ratings(ia, ib, lab.offset, lab.n_classes, lab, False)
    return Ratings(_codes(a, lab, n1), _codes(b, lab, n2), 0, lab.n_classes, lab, True)


def check_same_length(a: np.ndarray, b: np.ndarray, names) -> None:
    """Two arrays with one entry (or row) per item must have as many items."""
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"`{names[0]}` and `{names[1]}` must have the same length; got "
            f"{a.shape[0]} and {b.shape[0]}."
        )


def out_of_scale_error(ratings: Ratings, bad_a: int, bad_b: int, names=("y1", "y2")):
    """The error for a rating that a counting kernel found outside the scale."""
    name, arr, i = (names[0], ratings.a, bad_a) if bad_a >= 0 else (names[1], ratings.b, bad_b)
    return ValueError(
        f"`{name}` contains {_scalar(arr[i])!r}, which is not in `labels` "
        f"{_show(ratings.labels.values)} (index {i})."
    )


# ---------------------------------------------------------------------------- options


def check_weights(weights):
    """``weights`` → one of the named kinds, or a validated float64 (K, K) matrix."""
    if weights is None:
        return "identity"
    if isinstance(weights, str):
        if weights in _NAMED_WEIGHTS:
            return weights
        raise ValueError(
            "`weights` must be 'quadratic', 'linear', 'identity', None or a (K, K) array; "
            f"got {weights!r}."
        )
    if isinstance(weights, (numbers.Number, bool)):
        raise TypeError(
            "`weights` must be 'quadratic', 'linear', 'identity', None or a (K, K) array; "
            f"got {weights!r}."
        )
    mat = as_real_array(weights, "weights")  # frames, nullable dtypes; not text/sparse
    if mat.ndim != 2 or mat.shape[0] != mat.shape[1] or mat.shape[0] == 0:
        raise ValueError(f"`weights` must be a square (K, K) matrix; got shape {mat.shape}.")
    if not np.all(np.isfinite(mat)):
        raise ValueError("`weights` must be finite; got a matrix containing NaN or inf.")
    if np.any(mat < 0):
        raise ValueError(
            "`weights` are disagreement weights and must be non-negative; got "
            f"{mat.min()} in the matrix."
        )
    return mat


def check_sample_weight(
    sample_weight, n_samples: int, *, allow_zero_total: bool = False
) -> np.ndarray | None:
    """``sample_weight`` → float64 array of length n, finite, non-negative, positive sum.

    ``allow_zero_total`` accepts all-zero weights (a streaming batch that adds nothing).
    """
    if sample_weight is None:
        return None
    arr = as_1d(sample_weight, "sample_weight")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"`sample_weight` must be numeric; got dtype {arr.dtype}.")
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"`sample_weight` must have one weight per item ({n_samples}); got {arr.shape[0]}."
        )
    arr = arr.astype(np.float64, copy=False)
    bad, positive = _kernels.scan_weights(arr)
    if bad >= 0:
        raise ValueError(
            f"`sample_weight` must be finite and non-negative; got {arr[bad]} at index {bad}."
        )
    if not positive and not allow_zero_total:
        raise ValueError("`sample_weight` must not sum to zero; every item would be dropped.")
    return arr


def check_replace_undefined_by(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"`replace_undefined_by` must be a real number; got {value!r}.")
    return float(value)


def check_confusion(confusion) -> np.ndarray:
    """A (K, K) table of non-negative finite counts or weights."""
    if confusion is None or isinstance(confusion, (str, bytes)):
        raise TypeError(f"`confusion` must be a (K, K) array; got {confusion!r}.")
    if hasattr(confusion, "to_numpy") and not isinstance(confusion, np.ndarray):
        confusion = confusion.to_numpy()
    try:
        arr = np.asarray(confusion)
    except ValueError:  # ragged nesting
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":  # frames of nullable dtypes, sparse, ...
        arr = as_real_array(confusion, "confusion")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"`confusion` must be a square (K, K) table; got shape {arr.shape}.")
    if arr.dtype.kind == "f":
        arr = arr.astype(np.float64, copy=False)
        if not np.all(np.isfinite(arr)):
            raise ValueError("`confusion` must be finite; got NaN or inf.")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if np.any(arr < 0):
        raise ValueError(f"`confusion` must be non-negative; got {_scalar(arr.min())}.")
    if not np.any(arr > 0):
        raise ValueError("`confusion` is all zeros; kappa needs at least one rated item.")
    return arr


# ---------------------------------------------------------------------------- matrices


def _position(index: int, shape: tuple[int, ...]) -> str:
    where = np.unravel_index(index, shape)
    if len(shape) == 2:
        return f"row {int(where[0])}, column {int(where[1])}"
    return f"index {tuple(int(i) for i in where)}"


def _is_missing(item) -> bool:
    """None, NaN, or pandas' NA / NaT (checked only when pandas is already imported)."""
    if item is None or (isinstance(item, float) and item != item):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and (item is pd.NA or item is pd.NaT)


def _objects_to_float(arr: np.ndarray, name: str) -> np.ndarray:
    """Object array (e.g. a data frame of nullable dtypes) → float64, or a clear error."""
    items = arr.ravel().tolist()
    numeric = (numbers.Real, np.bool_)
    if not all(issubclass(t, numeric) for t in set(map(type, items))):
        for i, item in enumerate(items):
            if _is_missing(item):
                raise ValueError(
                    f"`{name}` has a missing value ({item!r}) at {_position(i, arr.shape)}; "
                    "fill or drop it first."
                )
            if not isinstance(item, numeric):
                raise TypeError(
                    f"`{name}` must be numeric; got {type(item).__name__} {item!r} at "
                    f"{_position(i, arr.shape)}."
                )
    try:
        return np.array(items, dtype=np.float64).reshape(arr.shape)
    except OverflowError as exc:
        raise ValueError(f"`{name}` holds a number beyond the float64 range.") from exc


def as_real_array(values, name: str) -> np.ndarray:
    """An array-like of real numbers → float64 ndarray (any shape), or a clear error.

    Accepts ndarrays, nested sequences and data frames (pandas nullable dtypes
    included: a missing value is a ValueError naming its row and column). Sparse
    matrices, ragged nesting, and non-numeric dtypes (strings, even numeric-looking
    ones; datetimes; complex) are refused.
    """
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"`{name}` must be an array-like of numbers; got {values!r}.")
    if hasattr(values, "tocsr") or type(values).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"`{name}` must be a dense array; got a sparse {type(values).__name__}, which is "
            f"not supported. Convert it with `{name}.toarray()`."
        )
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    try:
        arr = np.asarray(values)
    except ValueError as exc:  # ragged nesting
        raise ValueError(
            f"`{name}` must be a rectangular array; got nested sequences of different lengths."
        ) from exc
    except TypeError as exc:  # pragma: no cover - exotic objects
        raise TypeError(f"`{name}` must be an array-like of numbers; got {exc}.") from exc
    kind = arr.dtype.kind
    if kind == "O":
        return _objects_to_float(arr, name)
    if kind == "c":
        raise TypeError(f"`{name}` must be real; got complex dtype {arr.dtype}.")
    if kind not in "biuf":
        raise TypeError(f"`{name}` must be numeric; got dtype {arr.dtype}.")
    return np.asarray(arr, dtype=np.float64)
