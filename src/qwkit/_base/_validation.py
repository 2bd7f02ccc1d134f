"""Input validation: turn what users pass into arrays and values the computations trust.

One home for every check of an argument that is not about the rating scale (that is
``_scale``) or the disagreement weights (``_weights``): array-likes of any container
and the scalar options shared by the public functions (item weights, ``sample_weight`` and
``counts``: ``_item_weights``). Every error is a :class:`~qwkit.QwkitError` (or
:class:`~qwkit.QwkitTypeError`) that names the parameter in backticks, says what is
allowed, shows what was received, and carries the parameter and item position as
attributes. Nothing here computes a statistic.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import KeysView, Mapping, ValuesView
from fractions import Fraction
from typing import TypeAlias, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError, at_index

__all__ = [
    "Columns",
    "as_1d",
    "as_real_array",
    "beyond_exact_floats",
    "check_alternative",
    "check_confidence_level",
    "check_confusion",
    "check_cost",
    "check_finite",
    "check_integer",
    "check_interval_method",
    "check_method",
    "check_n_resamples",
    "check_progress",
    "check_real",
    "check_replace_undefined_by",
    "check_rng",
    "check_same_length",
    "exact_number",
    "feature_matrix",
    "integral_or_none",
    "numbers_array",
    "real_vector",
    "scalar",
    "show",
]

#: Rating columns, as signatures accept them: an array-like of shape (n_items, n_columns)
#: (an array, nested lists, a pandas or Polars data frame) or a mapping of column name →
#: values (a dict of columns, one entry per column).
Columns: TypeAlias = ArrayLike | Mapping[str, ArrayLike]

_Choice = TypeVar("_Choice")

_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


# ---------------------------------------------------------------------------- messages


def show(values, limit: int = 10) -> str:
    """Short printable form of a sequence of labels for error messages."""
    items = [scalar(v) for v in values[:limit]]
    text = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in items)
    return f"[{text}{', ...' if len(values) > limit else ''}]"


def scalar(value):
    """Numpy scalar → Python scalar, for messages."""
    return value.item() if isinstance(value, np.generic) else value


def _is_missing(item) -> bool:
    """None, NaN, or pandas' NA / NaT (checked only when pandas is already imported)."""
    if item is None or (isinstance(item, float) and item != item):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and (item is pd.NA or item is pd.NaT)


def exact_number(item, name: str, where: str, row: int | None):
    """A ``Fraction`` (any non-integral ``numbers.Rational``) as the int or float64 that
    equals it exactly; anything else unchanged.

    qwkit computes with int64 and float64. A whole Fraction is an integer and a dyadic
    one (1/2, 3/8, ...) is exactly a float, so both are taken as such; any other (1/3)
    would have to be rounded, which qwkit leaves to the caller: a
    :class:`~qwkit.QwkitTypeError` naming ``name`` and ``where`` (the item's position)
    says so.

    >>> from fractions import Fraction
    >>> [exact_number(Fraction(*v), "y1", "index 0", 0) for v in [(6, 3), (3, 8)]]
    [2, 0.375]
    >>> exact_number(Fraction(1, 3), "y1", "index 4", 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qwkit.QwkitTypeError: `y1` holds a Fraction (1/3) at index 4 that no float64 equals: ...
    """
    if not isinstance(item, numbers.Rational) or isinstance(item, numbers.Integral):
        return item
    value = Fraction(item)
    if value.denominator == 1:
        return int(value)
    try:
        out = float(value)
    except OverflowError:  # beyond the float64 range
        out = math.nan
    if math.isfinite(out) and Fraction(out) == value:
        return out
    short = max(value.numerator.bit_length(), value.denominator.bit_length()) <= 128
    shown = f" ({value})" if short else ""  # (a Fraction of 10**5 digits cannot be printed)
    raise QwkitTypeError(
        f"`{name}` holds a Fraction{shown} at {where} that no float64 equals: qwkit "
        "computes with integers and float64 and does not round Fractions for you. Pass "
        "integers, or floats (`float(x)` rounds to the nearest float64).",
        parameter=name,
        row=row,
    )


def bytes_as_text(arr: np.ndarray, name: str, where=None) -> np.ndarray:
    """A numpy bytes array (dtype ``S``) as text, decoded as numpy decodes it (ASCII).

    Bytes that are not ASCII have no one reading (UTF-8? Latin-1?): a
    :class:`~qwkit.QwkitTypeError` names the first such value and where it is
    (``where(flat_index) -> (text, row)``; default: ``index i`` of a vector).

    >>> bytes_as_text(np.array([b"low", b"high"]), "y1").tolist()
    ['low', 'high']
    >>> bytes_as_text(np.array([b"ok", b"caf\\xc3\\xa9"]), "y1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qwkit.QwkitTypeError: `y1` holds bytes that are not ASCII (b'caf\\xc3\\xa9' at index 1)...
    """
    try:
        return arr.astype(str)
    except UnicodeDecodeError:
        items = arr.ravel().tolist()
        i = next(k for k, item in enumerate(items) if not item.isascii())
        text, row = where(i) if where is not None else (at_index(i), i)
        raise QwkitTypeError(
            f"`{name}` holds bytes that are not ASCII ({items[i]!r} at {text}); decode them "
            f"to text first, in their encoding (e.g. `np.char.decode({name}, 'utf-8')`).",
            parameter=name,
            row=row,
        ) from None


# ---------------------------------------------------------------------------- 1-D arrays


def _classify_objects(values: np.ndarray, name: str) -> np.ndarray:
    """Object array → a typed array of str or numbers, or a clear error."""
    items = values.tolist()
    types = set()
    for i, item in enumerate(items):
        if _is_missing(item):
            raise QwkitError(
                f"`{name}` contains a missing value ({item!r}) at {at_index(i)}.",
                parameter=name,
                row=i,
            )
        item = items[i] = exact_number(item, name, at_index(i), i)
        if isinstance(item, str):
            types.add("str")
        elif isinstance(item, (numbers.Integral, numbers.Real)) and not isinstance(item, complex):
            types.add("number")
        else:
            raise QwkitTypeError(
                f"`{name}` must hold numbers or strings; got {type(item).__name__} "
                f"{item!r} at {at_index(i)}.",
                parameter=name,
                row=i,
            )
        if len(types) > 1:
            raise QwkitTypeError(
                f"`{name}` mixes strings and numbers ({at_index(i)} holds {item!r}); "
                "use one type for every rating.",
                parameter=name,
                row=i,
            )
    if types == {"str"}:
        return np.asarray(items, dtype=str)
    return numbers_array(items, name)


#: Integers of larger magnitude are not all float64 numbers (2**53 + 1 is not).
_FLOAT_EXACT = 2**53


def numbers_array(kept, name: str) -> np.ndarray:
    """A sequence of numbers → int64, uint64 (beyond int64, none negative) or float64,
    never rounding an integer as ``np.asarray`` does (``[0, 2**63 + 5]`` is float64
    there): whole floats among integers beyond ±2**53 become integers."""
    integral = [isinstance(x, (numbers.Integral, np.bool_)) for x in kept]
    if not all(integral):
        big = any(i and abs(int(x)) > _FLOAT_EXACT for i, x in zip(integral, kept, strict=True))
        if not big:
            return np.asarray(kept, dtype=np.float64)
        if not all(i or float(x).is_integer() for i, x in zip(integral, kept, strict=True)):
            raise QwkitError(
                f"`{name}` mixes integers beyond ±2**53 with fractional numbers, which "
                "float64 cannot hold both exactly; pass integers, or floats throughout.",
                parameter=name,
            )
        kept = [int(x) for x in kept]
    for dtype in (np.int64, np.uint64):
        try:
            return np.asarray(kept, dtype=dtype)
        except OverflowError:
            continue
    raise QwkitError(
        f"`{name}` holds integers beyond the int64 and uint64 ranges (below −2**63, above "
        "2**64 − 1, or negative ones beside ones above 2**63 − 1); convert them first.",
        parameter=name,
    )


def beyond_exact_floats(arr: np.ndarray) -> bool:
    """Whether a float64 array holds a value of magnitude 2**53 or more (where numpy
    may have rounded an integer of the list it was made from)."""
    finite = arr[np.isfinite(arr)]
    return bool(finite.size) and float(np.abs(finite).max()) >= _FLOAT_EXACT


def unmasked(values, name: str):
    """A numpy masked array without masked entries as its data; with some, an error
    (numpy would drop the mask silently; where missing values are allowed, NaN or None
    mark them)."""
    if not isinstance(values, np.ma.MaskedArray):
        return values
    hidden = int(np.count_nonzero(np.ma.getmaskarray(values)))
    if hidden:
        raise QwkitError(
            f"`{name}` is a masked array with {hidden} masked entries; qwkit does not read "
            "masks here: drop those items, or fill them.",
            parameter=name,
        )
    return np.asarray(values.data)


def as_1d(values, name: str) -> np.ndarray:
    """Any array-like (list, ndarray, pandas/polars Series) → a 1-D numpy array of
    numbers (native byte order) or of str."""
    values = unmasked(values, name)
    if (
        type(values) is np.ndarray
        and values.ndim == 1
        and values.dtype.kind in "biuf"
        and values.dtype.isnative
    ):
        return values  # the common case, without the checks below (small inputs)
    if values is None:
        raise QwkitTypeError(f"`{name}` must be array-like; got None.", parameter=name)
    if isinstance(values, (str, bytes)):
        raise QwkitTypeError(
            f"`{name}` must be array-like; got the string {values!r}.", parameter=name
        )
    if isinstance(values, (KeysView, ValuesView)):  # ordered in Python: take them as listed
        values = list(values)
    if isinstance(values, (set, frozenset, dict)) or hasattr(values, "__next__"):
        raise QwkitTypeError(
            f"`{name}` must be an ordered sequence or array (list, ndarray, Series); got a "
            f"{type(values).__name__}.",
            parameter=name,
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
        elif arr.ndim == 1 and arr.dtype.kind == "f" and beyond_exact_floats(arr):
            arr = numbers_array(values, name)  # [0, 2**63 + 5]: integers, not rounded
    else:
        if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
            values = values.to_numpy()
        arr = np.asarray(values)
    if arr.ndim != 1:
        what = "a scalar" if arr.ndim == 0 else f"an array of shape {arr.shape}"
        raise QwkitError(f"`{name}` must be 1-D; got {what}.", parameter=name)
    if arr.dtype == object:
        arr = _classify_objects(arr, name)
    kind = arr.dtype.kind
    if kind == "c":
        raise QwkitTypeError(
            f"`{name}` must be real; got complex dtype {arr.dtype}.", parameter=name
        )
    if kind not in "biufUS":
        raise QwkitTypeError(
            f"`{name}` must hold numbers or strings; got dtype {arr.dtype}.", parameter=name
        )
    if kind == "S":
        arr = bytes_as_text(arr, name)
    elif not arr.dtype.isnative:  # big-endian data: the kernels read native order only
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def check_finite(arr: np.ndarray, name: str) -> None:
    """No NaN or infinity in a numeric array (the first one found is reported)."""
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise QwkitError(
                f"`{name}` contains {arr[i]} at {at_index(i)}; values must be finite.",
                parameter=name,
                row=i,
            )


def real_vector(values, name: str) -> np.ndarray:
    """A 1-D array-like of finite real numbers → float64 (strings refused)."""
    arr = as_1d(values, name)
    if arr.dtype.kind == "U":
        raise QwkitTypeError(f"`{name}` must be numeric; got strings.", parameter=name)
    arr = arr.astype(np.float64)
    check_finite(arr, name)
    return arr


def integral_or_none(arr: np.ndarray) -> np.ndarray | None:
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


def check_same_length(a: np.ndarray, b: np.ndarray, names) -> None:
    """Two arrays with one entry (or row) per item must have as many items."""
    if a.shape[0] != b.shape[0]:
        raise QwkitError(
            f"`{names[0]}` and `{names[1]}` must have the same length; got "
            f"{a.shape[0]} and {b.shape[0]}.",
            parameter=names[1],
            also=(names[0],),
        )


# ---------------------------------------------------------------------------- n-D arrays


def _position(index: int, shape: tuple[int, ...]) -> str:
    where = np.unravel_index(index, shape)
    if len(shape) == 2:
        return f"row {int(where[0])}, column {int(where[1])}"
    return f"index {tuple(int(i) for i in where)}"


def _objects_to_float(arr: np.ndarray, name: str) -> np.ndarray:
    """Object array (e.g. a data frame of nullable dtypes) → float64, or a clear error."""
    items = arr.ravel().tolist()
    numeric = (numbers.Real, np.bool_)
    types = set(map(type, items))
    if any(issubclass(t, numbers.Rational) and not issubclass(t, numbers.Integral) for t in types):
        rows = np.unravel_index(np.arange(len(items)), arr.shape)[0] if arr.ndim else [None]
        items = [
            exact_number(item, name, _position(i, arr.shape), rows[i])
            for i, item in enumerate(items)
        ]
    if not all(issubclass(t, numeric) for t in types):
        for i, item in enumerate(items):
            row = int(np.unravel_index(i, arr.shape)[0])
            if _is_missing(item):
                raise QwkitError(
                    f"`{name}` has a missing value ({item!r}) at {_position(i, arr.shape)}; "
                    "fill or drop it first.",
                    parameter=name,
                    row=row,
                )
            if not isinstance(item, numeric):
                raise QwkitTypeError(
                    f"`{name}` must be numeric; got {type(item).__name__} {item!r} at "
                    f"{_position(i, arr.shape)}.",
                    parameter=name,
                    row=row,
                )
    try:
        return np.array(items, dtype=np.float64).reshape(arr.shape)
    except OverflowError as exc:
        raise QwkitError(
            f"`{name}` holds a number beyond the float64 range.", parameter=name
        ) from exc


def as_real_array(values, name: str) -> np.ndarray:
    """An array-like of real numbers → float64 ndarray (any shape), or a clear error.

    Accepts ndarrays, nested sequences and data frames (pandas nullable dtypes
    included: a missing value is an error naming its row and column). Sparse
    matrices, ragged nesting, and non-numeric dtypes (strings, even numeric-looking
    ones; datetimes; complex) are refused.
    """
    if values is None or isinstance(values, (str, bytes)):
        raise QwkitTypeError(
            f"`{name}` must be an array-like of numbers; got {values!r}.", parameter=name
        )
    values = unmasked(values, name)
    if hasattr(values, "tocsr") or type(values).__module__.startswith("scipy.sparse"):
        raise QwkitTypeError(
            f"`{name}` must be a dense array; got a sparse {type(values).__name__}, which is "
            f"not supported. Convert it with `{name}.toarray()`.",
            parameter=name,
        )
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    try:
        arr = np.asarray(values)
    except ValueError as exc:  # ragged nesting
        raise QwkitError(
            f"`{name}` must be a rectangular array; got nested sequences of different lengths.",
            parameter=name,
        ) from exc
    except TypeError as exc:  # pragma: no cover - exotic objects
        raise QwkitTypeError(
            f"`{name}` must be an array-like of numbers; got {exc}.", parameter=name
        ) from exc
    kind = arr.dtype.kind
    if kind == "O":
        return _objects_to_float(arr, name)
    if kind == "c":
        raise QwkitTypeError(
            f"`{name}` must be real; got complex dtype {arr.dtype}.", parameter=name
        )
    if kind not in "biuf":
        raise QwkitTypeError(f"`{name}` must be numeric; got dtype {arr.dtype}.", parameter=name)
    return np.asarray(arr, dtype=np.float64)


def feature_matrix(X, name: str = "X") -> np.ndarray:
    """A 2-D, finite, real feature matrix as float64 (scikit-learn's rule: 2-D only)."""
    if X is None or isinstance(X, (str, bytes)):
        raise QwkitTypeError(
            f"`{name}` must be a 2-D array-like of numbers; got {X!r}.", parameter=name
        )
    arr = as_real_array(X, name)
    if arr.ndim != 2:
        what = "a scalar" if arr.ndim == 0 else f"an array of shape {arr.shape}"
        hint = (
            f" For a single feature pass `{name}.reshape(-1, 1)`; for the scores of one "
            "model use `kappa_rescale`."
            if arr.ndim == 1
            else ""
        )
        raise QwkitError(
            f"`{name}` must be 2-D (n_items, n_features); got {what}.{hint}", parameter=name
        )
    if arr.shape[1] == 0:
        raise QwkitError(
            f"`{name}` must have at least one feature; got shape {arr.shape}.", parameter=name
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise QwkitError(
            f"`{name}` contains {arr[i, j]} at row {i}, column {j}; features must be finite.",
            parameter=name,
            row=i,
        )
    return arr


def check_cost(cost, k: int | None = None, *, what: str = "`confusion`", name: str = "cost"):
    """A (K, K) float64 matrix of finite costs (any sign); K must equal ``k`` if given
    (``what`` names what fixes K)."""
    if cost is None or isinstance(cost, (str, bytes)):
        raise QwkitTypeError(
            f"`{name}` must be a (K, K) numeric array; got {cost!r}.", parameter=name
        )
    arr = as_real_array(cost, name)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise QwkitError(
            f"`{name}` must be a square (K, K) matrix; got shape {arr.shape}.", parameter=name
        )
    if not np.all(np.isfinite(arr)):
        raise QwkitError(
            f"`{name}` must be finite; got a matrix containing NaN or inf.", parameter=name
        )
    if k is not None and arr.shape[0] != k:
        raise QwkitError(
            f"`{name}` must have shape ({k}, {k}) to match the {k} classes of {what}; got "
            f"shape {arr.shape}.",
            parameter=name,
        )
    return arr


def check_confusion(confusion, name: str = "confusion") -> np.ndarray:
    """A (K, K) table of non-negative finite counts or weights, not all zero."""
    if confusion is None or isinstance(confusion, (str, bytes)):
        raise QwkitTypeError(f"`{name}` must be a (K, K) array; got {confusion!r}.", parameter=name)
    if hasattr(confusion, "to_numpy") and not isinstance(confusion, np.ndarray):
        confusion = confusion.to_numpy()
    try:
        arr = np.asarray(confusion)
    except ValueError:  # ragged nesting
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":  # frames of nullable dtypes, sparse, ...
        arr = as_real_array(confusion, name)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise QwkitError(
            f"`{name}` must be a square (K, K) table; got shape {arr.shape}.", parameter=name
        )
    if arr.dtype.kind == "f":
        arr = arr.astype(np.float64, copy=False)
        if not np.all(np.isfinite(arr)):
            raise QwkitError(f"`{name}` must be finite; got NaN or inf.", parameter=name)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > _INT64_MAX:
        arr = arr.astype(np.float64)
    if np.any(arr < 0):
        raise QwkitError(f"`{name}` must be non-negative; got {scalar(arr.min())}.", parameter=name)
    if not np.any(arr > 0):
        raise QwkitError(
            f"`{name}` is all zeros; kappa needs at least one rated item.", parameter=name
        )
    return arr


# ---------------------------------------------------------------------------- options


def check_replace_undefined_by(value) -> float:
    if type(value) is float:  # the default (nan) and most values: no ABC check
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(
            f"`replace_undefined_by` must be a real number; got {value!r}.",
            parameter="replace_undefined_by",
        )
    return float(value)


def check_real(value, name: str, *, positive: bool = False) -> float:
    """A finite real number, non-negative (or positive)."""
    need = "positive" if positive else "non-negative"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(
            f"`{name}` must be a {need} real number; got {value!r}.", parameter=name
        )
    out = float(value)
    if not math.isfinite(out) or out < 0 or (positive and out == 0):
        raise QwkitError(f"`{name}` must be finite and {need}; got {value!r}.", parameter=name)
    return out


def check_integer(value, name: str, minimum: int) -> int:
    """An integer (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise QwkitTypeError(f"`{name}` must be an integer; got {value!r}.", parameter=name)
    if value < minimum:
        raise QwkitError(f"`{name}` must be at least {minimum}; got {int(value)}.", parameter=name)
    return int(value)


_ALTERNATIVES = ("two-sided", "greater", "less")
_METHODS = ("asymptotic", "bootstrap", "percentile", "jackknife")
#: A bootstrap keeps one float64 per resample (its distribution, for the quantiles):
#: requests beyond this many bytes are refused up front.
MAX_BOOTSTRAP_BYTES = 2**30


def check_choice(value: _Choice, name: str, choices: tuple[str, ...]) -> _Choice:
    """``value`` if it is one of the strings ``choices``, else a QwkitError naming ``name``
    — the one check of every option that takes one of a few words.

    >>> check_choice("less", "alternative", ("two-sided", "greater", "less"))
    'less'
    >>> check_choice("both", "alternative", ("two-sided", "greater", "less"))
    Traceback (most recent call last):
    ...
    qwkit.QwkitError: `alternative` must be 'two-sided', 'greater' or 'less'; got 'both'.
    """
    if not isinstance(value, str) or value not in choices:
        words = [repr(c) for c in choices]
        if len(words) > 4:
            shown = "one of " + ", ".join(words)
        else:
            shown = " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
        raise QwkitError(f"`{name}` must be {shown}; got {value!r}.", parameter=name)
    return value


def check_alternative(alternative: _Choice) -> _Choice:
    return check_choice(alternative, "alternative", _ALTERNATIVES)


def check_confidence_level(confidence_level) -> float:
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise QwkitTypeError(
            f"`confidence_level` must be a real number in (0, 1); got {confidence_level!r}.",
            parameter="confidence_level",
        )
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise QwkitError(
            f"`confidence_level` must be strictly between 0 and 1; got {level}.",
            parameter="confidence_level",
        )
    return level


def check_method(method: _Choice, methods: tuple[str, ...] = _METHODS) -> _Choice:
    return check_choice(method, "method", methods)


def check_interval_method(method, available: str, where: str) -> None:
    """A result whose interval has one method (``available``): any other ``method`` is
    refused, saying where to choose it (``where``: the function that made the result)."""
    if method != available:
        raise QwkitError(
            f"`method` must be {available!r} for this result, whose interval is made of "
            f"what {where} computed; got {method!r}. Choose the method there.",
            parameter="method",
        )


def check_n_resamples(n_resamples, *, bytes_per_resample: int = 8) -> int:
    """A positive number of resamples whose results fit in the stated memory limit."""
    n = check_integer(n_resamples, "n_resamples", 1)
    need = n * bytes_per_resample
    if need > MAX_BOOTSTRAP_BYTES:
        limit = MAX_BOOTSTRAP_BYTES // bytes_per_resample
        raise QwkitError(
            f"`n_resamples`={n:,} would need {_bytes(need)} to hold the bootstrap "
            f"distribution; the limit is {_bytes(MAX_BOOTSTRAP_BYTES)} ({limit:,} "
            "resamples). A few thousand resamples are plenty for a 95% interval.",
            parameter="n_resamples",
        )
    return n


def _bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


def check_progress(progress):
    """None, or a callable to be called as ``progress(done, total)``.

    >>> check_progress(5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qwkit.QwkitTypeError: `progress` must be None or a function called as ...; got 5.
    """
    if progress is None or callable(progress):
        return progress
    raise QwkitTypeError(
        "`progress` must be None or a function called as `progress(done, total)` as the "
        f"work advances (e.g. to move a progress bar); got {progress!r}.",
        parameter="progress",
    )


def check_rng(rng) -> np.random.Generator:
    if isinstance(rng, bool):
        raise QwkitTypeError(
            f"`rng` must be None, an integer seed or a numpy Generator; got {rng!r}.",
            parameter="rng",
        )
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise QwkitTypeError(
            f"`rng` must be None, an integer seed or a numpy Generator; got {rng!r}.",
            parameter="rng",
        ) from exc
