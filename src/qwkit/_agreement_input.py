"""Input validation for agreement among many raters: ratings, count tables, long format.

One entry point per input form — :func:`prepare_ratings` (items × raters),
:func:`prepare_counts` (the items × categories table of Fleiss 1971) and
:func:`ratings_table` (long format) — turns what users pass into integer category
codes on an explicit scale, or raises a ``ValueError``/``TypeError`` naming the
parameter, what is allowed and what was received. Nothing here computes a coefficient,
so a shared "ratings for n raters" validation can replace this module whole.
"""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from qwkit import _validation as _v

COEFFICIENTS = ("fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", "light")
#: Coefficients that are functions of the items × categories count table.
POOLED = ("fleiss", "krippendorff", "gwet", "brennan-prediger")
NAMED_WEIGHTS = ("quadratic", "linear", "identity", "ordinal", "ratio")
_INT64 = np.iinfo(np.int64)


@dataclass(frozen=True)
class Scale:
    """The rating scale: q categories with coordinates ``lo, lo+1, ...`` (a range) or
    the explicit ``points`` (in scale order)."""

    q: int
    lo: float = 0.0
    points: np.ndarray | None = None
    text: str = ""  # how the scale was chosen, for messages

    def coordinates(self) -> np.ndarray:
        if self.points is not None:
            return self.points
        return self.lo + np.arange(self.q, dtype=np.float64)


@dataclass(frozen=True)
class Prepared:
    """Validated ratings: codes 0..V−1 into the V categories that occur.

    Raw ratings fill ``codes`` (n, r), −1 where missing; a count table fills ``table``
    (each row's category codes and counts, (n, w) each).
    """

    coefficient: str
    kind: str  # a named metric, or "custom"
    matrix: np.ndarray | None  # custom (q, q) disagreement weights
    codes: np.ndarray | None
    table: tuple[np.ndarray, np.ndarray] | None
    coords: np.ndarray  # (V,) coordinate of each category that occurs
    index: np.ndarray  # (V,) its position on the scale, 0..q−1
    scale: Scale
    n_items: int
    n_raters: int


# ---------------------------------------------------------------------------- options


def check_coefficient(coefficient) -> str:
    if not isinstance(coefficient, str) or coefficient not in COEFFICIENTS:
        names = ", ".join(repr(c) for c in COEFFICIENTS)
        raise ValueError(f"`coefficient` must be one of {names}; got {coefficient!r}.")
    return coefficient


def check_weights(weights):
    """``weights`` → a named kind, or a validated symmetric (K, K) matrix with a zero
    diagonal (disagreement weights, as everywhere in qwkit)."""
    if weights is None:
        return "identity"
    if isinstance(weights, str):
        if weights in NAMED_WEIGHTS:
            return weights
        raise ValueError(
            "`weights` must be 'quadratic', 'linear', 'identity', 'ordinal', 'ratio', None "
            f"or a (K, K) array; got {weights!r}."
        )
    mat = _v.check_weights(weights)
    if isinstance(mat, str):  # pragma: no cover - strings handled above
        return mat
    if not np.allclose(mat, mat.T, rtol=1e-12, atol=0.0):
        i, j = (int(x) for x in np.argwhere(~np.isclose(mat, mat.T, rtol=1e-12, atol=0.0))[0])
        raise ValueError(
            "`weights` must be symmetric for agreement among raters (the raters of a pair "
            f"are interchangeable); got {mat[i, j]} at [{i}, {j}] and {mat[j, i]} at [{j}, {i}]."
        )
    diag = np.diag(mat)
    if np.any(diag != 0):
        i = int(np.flatnonzero(diag)[0])
        raise ValueError(
            "`weights` are disagreement weights and must be zero on the diagonal (a rating "
            f"agrees with itself); got {diag[i]} at [{i}, {i}]."
        )
    if not np.any(mat > 0):
        raise ValueError("`weights` is all zeros: no two ratings would ever disagree.")
    return (mat + mat.T) / 2.0


def check_n_population(n_population, n_items: int) -> float:
    """The finite-population correction f = n/N (0 for an infinite population)."""
    if n_population is None:
        return 0.0
    if isinstance(n_population, bool) or not isinstance(n_population, numbers.Real):
        raise TypeError(f"`n_population` must be None or a number; got {n_population!r}.")
    big_n = float(n_population)
    if not big_n >= n_items:
        raise ValueError(
            f"`n_population` is the number of items in the population and must be at least "
            f"the {n_items} rated items; got {n_population!r}."
        )
    return n_items / big_n


# ---------------------------------------------------------------------------- arrays


def _scalar(value):
    return value.item() if isinstance(value, np.generic) else value


def _show(values, limit: int = 10) -> str:
    """Short printable form of a scale for messages."""
    shown = ", ".join(repr(_scalar(v)) for v in values[:limit])
    return f"[{shown}{', ...' if len(values) > limit else ''}]"


def _is_missing(item) -> bool:
    if item is None or (isinstance(item, float) and item != item):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and (item is pd.NA or item is pd.NaT)


def _where(flat_index: int, shape, columns) -> str:
    i, j = divmod(int(flat_index), shape[1])
    col = f"column {columns[j]!r}" if columns is not None else f"column {j}"
    return f"row {i}, {col}"


def _frame_to_array(frame):
    """A pandas/polars DataFrame → (2-D array, column names, declared category order)."""
    cols = list(frame.columns)
    series = [frame[c] for c in cols]
    order = _v.declared_order(series, [str(c) for c in cols])
    if type(frame).__module__.startswith("pandas"):
        kinds = {getattr(dt, "kind", "O") for dt in frame.dtypes}
        numeric = all(isinstance(dt, np.dtype) for dt in frame.dtypes) and kinds <= set("biuf")
        arr = frame.to_numpy() if numeric else frame.to_numpy(dtype=object)
    else:
        arr = frame.to_numpy()
    return arr, cols, order


def _to_2d(ratings):
    """ratings → (2-D ndarray, column names or None, declared order or None)."""
    if ratings is None or isinstance(ratings, (str, bytes)):
        raise TypeError(
            f"`ratings` must be a 2-D array-like of shape (n_items, n_raters); got {ratings!r}."
        )
    if hasattr(ratings, "tocsr") or type(ratings).__module__.startswith("scipy.sparse"):
        raise TypeError(
            "`ratings` must be dense; got a sparse matrix. Missing ratings are NaN or None, "
            "not absent entries."
        )
    if hasattr(ratings, "columns") and hasattr(ratings, "to_numpy"):
        return _frame_to_array(ratings)
    if hasattr(ratings, "to_numpy") and not isinstance(ratings, np.ndarray):
        ratings = ratings.to_numpy()
    try:
        arr = np.asarray(ratings)
        if arr.dtype.kind in "US" and not isinstance(ratings, np.ndarray):
            arr = np.asarray(ratings, dtype=object)  # numpy turns [1, "a"] into text
    except ValueError as exc:
        raise ValueError(
            "`ratings` must be rectangular (n_items, n_raters); got rows of different lengths."
        ) from exc
    if arr.dtype == object and arr.ndim == 1 and arr.size and isinstance(arr[0], (list, tuple)):
        raise ValueError(
            "`ratings` must be rectangular (n_items, n_raters); got rows of different lengths."
        )
    return arr, None, None


def _split(arr: np.ndarray, name: str, columns):
    """2-D array → (present mask, present values in row-major order, is_text)."""
    kind = arr.dtype.kind
    if kind == "f":
        present = ~np.isnan(arr)
        values = arr[present].astype(np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            flat = np.flatnonzero(present)[bad[0]]
            raise ValueError(
                f"`{name}` contains {values[bad[0]]} at {_where(flat, arr.shape, columns)}; "
                "ratings must be finite (NaN marks a missing rating)."
            )
        return present, values, False
    if kind in "biu":
        return np.ones(arr.shape, dtype=bool), arr.ravel(), False
    if kind in "US":
        values = arr.ravel().astype(str)
        return np.ones(arr.shape, dtype=bool), values, True
    if kind != "O":
        raise TypeError(f"`{name}` must hold numbers or strings; got dtype {arr.dtype}.")
    items = arr.ravel().tolist()
    present = np.ones(len(items), dtype=bool)
    kinds = set()
    kept = []
    for i, item in enumerate(items):
        if _is_missing(item):
            present[i] = False
            continue
        if isinstance(item, str):
            kinds.add("text")
        elif isinstance(item, (numbers.Real, np.bool_)) and not isinstance(item, complex):
            kinds.add("number")
        else:
            raise TypeError(
                f"`{name}` must hold numbers or strings; got {type(item).__name__} {item!r} "
                f"at {_where(i, arr.shape, columns)}."
            )
        if len(kinds) > 1:
            raise TypeError(
                f"`{name}` mixes text and numbers ({item!r} at "
                f"{_where(i, arr.shape, columns)}); use one type for every rating."
            )
        kept.append(item)
    present = present.reshape(arr.shape)
    if kinds == {"text"}:
        return present, np.asarray(kept, dtype=str), True
    values = np.asarray(kept)
    if values.dtype == object:
        raise ValueError(f"`{name}` holds numbers beyond the int64 and float64 ranges.")
    if values.dtype.kind == "f":
        return _split(_refill(values, present), name, columns)
    return present, values, False


def _refill(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    out = np.full(present.shape, np.nan)
    out[present] = values
    return out


def _integral(values: np.ndarray):
    """Integer-valued numbers as int64 (None when some are not whole or too large)."""
    kind = values.dtype.kind
    if kind == "b":
        return values.astype(np.int64)
    if kind == "i":
        return values.astype(np.int64, copy=False)
    if kind == "u":
        if values.size and int(values.max()) > _INT64.max:
            return None
        return values.astype(np.int64)
    if np.all(values == np.floor(values)) and (
        values.size == 0 or (values.min() >= -(2.0**63) and values.max() < 2.0**63)
    ):
        return values.astype(np.int64)
    return None


# ---------------------------------------------------------------------------- scale


def _on_labels(values, is_text, labels, present, columns):
    """Positions of the ratings in ``labels`` (the ordered scale)."""
    lab = _v.prepare_labels(labels)
    if lab.is_text != is_text:
        what = "text" if is_text else "numbers"
        other = "text" if lab.is_text else "numbers"
        raise TypeError(f"`ratings` hold {what} but `labels` hold {other}.")
    ref_order = np.argsort(lab.values, kind="stable")
    ref = lab.values[ref_order]
    vals = values
    if not is_text:
        ref = ref.astype(np.float64)
        vals = values.astype(np.float64)
    idx = np.searchsorted(ref, vals)
    clipped = np.minimum(idx, ref.size - 1)
    bad = (idx >= ref.size) | (ref[clipped] != vals)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        flat = np.flatnonzero(present.ravel())[k]
        shown = values[k].item() if isinstance(values[k], np.generic) else values[k]
        raise ValueError(
            f"`ratings` contains {shown!r} at {_where(flat, present.shape, columns)}, which "
            f"is not in `labels` {_show(lab.values)}."
        )
    return ref_order[clipped].astype(np.int64), lab


def _scale_and_codes(values, is_text, labels, kind, present, columns):
    """(positions of the ratings on the scale, coords of scale positions, Scale)."""
    if labels is not None:
        pos, lab = _on_labels(values, is_text, labels, present, columns)
        k = lab.n_classes
        if kind == "ratio":
            if lab.is_text:
                raise TypeError(
                    "`weights`='ratio' (Krippendorff's ratio metric) needs numeric ratings; "
                    "`labels` hold text."
                )
            pts = lab.values.astype(np.float64)
            return pos, Scale(k, points=pts, text=" (the `labels`)")
        return pos, Scale(k, text=" (the `labels`)")
    if is_text:
        if kind != "identity":
            shown = kind if kind != "custom" else "a matrix"
            raise ValueError(
                f"`ratings` hold text, whose order `weights`={shown!r} needs: pass `labels`, "
                "the ordered rating scale (text without `labels` allows weights='identity')."
            )
        used, pos = np.unique(values, return_inverse=True)
        return pos.astype(np.int64), Scale(used.size, text=" (the distinct text ratings)")
    ints = _integral(values)
    if ints is not None:
        lo, hi = int(ints.min()), int(ints.max())
        q = hi - lo + 1
        # wrapping int64 subtraction read as unsigned is exact for any int64 range
        pos = (ints - np.int64(lo)).view(np.uint64).astype(np.int64, copy=False)
        text = f" (the integers from {lo} to {hi})"
        return pos, Scale(q, lo=float(lo), text=text)
    used, pos = np.unique(values.astype(np.float64), return_inverse=True)
    return pos.astype(np.int64), Scale(used.size, points=used, text=" (the distinct values)")


def _finish(coefficient, kind, matrix, positions, scale, **layout):
    """Codes into the categories that occur, their coordinates, and the custom matrix."""
    if scale.q < 2:
        raise ValueError(
            f"The rating scale has a single category{scale.text}; agreement beyond chance "
            "needs at least two. Pass `labels` to declare the scale."
        )
    if positions.size and int(positions.max()) < 4 * positions.size + 1024:
        present = np.zeros(int(positions.max()) + 1, dtype=bool)  # O(N + q), no sort
        present[positions] = True
        index = np.flatnonzero(present)
        codes = (np.cumsum(present) - 1)[positions]
    else:
        index, codes = np.unique(positions, return_inverse=True)
    if matrix is not None and matrix.shape[0] != scale.q:
        raise ValueError(
            f"`weights` has shape {matrix.shape} but the rating scale has {scale.q} "
            f"categories{scale.text}; pass `labels` to fix the scale."
        )
    coords = scale.lo + index.astype(np.float64) if scale.points is None else scale.points[index]
    if kind == "ratio" and coords.min() < 0:
        raise ValueError(
            "`weights`='ratio' (Krippendorff's ratio metric) needs non-negative values (a "
            f"ratio scale has a true zero); `ratings` contain {coords.min()}."
        )
    return codes.astype(np.intp), index, coords


def prepare_ratings(ratings, coefficient, weights, labels) -> Prepared:
    """Validate an items × raters array of ratings (NaN/None for missing)."""
    coefficient = check_coefficient(coefficient)
    kind = check_weights(weights)
    matrix = None if isinstance(kind, str) else kind
    kind = kind if isinstance(kind, str) else "custom"
    arr, columns, declared = _to_2d(ratings)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(
            "`ratings` must be 2-D, one row per item and one column per rater, with at least "
            f"two raters; got shape {arr.shape}."
        )
    present, values, is_text = _split(arr, "ratings", columns)
    if labels is None:
        labels = declared
    if values.size == 0:
        raise ValueError("`ratings` holds no rating: every entry is missing.")
    positions, scale = _scale_and_codes(values, is_text, labels, kind, present, columns)
    codes_flat, index, coords = _finish(coefficient, kind, matrix, positions, scale)
    codes = np.full(arr.shape, -1, dtype=np.intp)
    codes[present] = codes_flat
    codes = codes[present.any(axis=1)][:, present.any(axis=0)]
    per_item = (codes >= 0).sum(axis=1)
    if per_item.max() < 2:
        raise ValueError(
            "`ratings` has no item with two or more ratings; agreement needs items rated by "
            "at least two raters."
        )
    return Prepared(
        coefficient,
        kind,
        matrix,
        codes,
        None,
        coords,
        index,
        scale,
        int(codes.shape[0]),
        int(codes.shape[1]),
    )


def prepare_counts(counts, coefficient, weights, labels) -> Prepared:
    """Validate the items × categories table of counts (Fleiss 1971)."""
    coefficient = check_coefficient(coefficient)
    if coefficient not in POOLED:
        raise ValueError(
            f"`coefficient`={coefficient!r} needs to know which rater gave which rating; a "
            "count table does not say. From counts use 'fleiss', 'krippendorff', 'gwet' or "
            "'brennan-prediger', or pass the items × raters ratings to `agreement_score`."
        )
    kind = check_weights(weights)
    matrix = None if isinstance(kind, str) else kind
    kind = kind if isinstance(kind, str) else "custom"
    arr = _v.as_real_array(counts, "counts")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"`counts` must be 2-D, one row per item and one column per category; got shape "
            f"{arr.shape}."
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.floor(arr)):
        bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.floor(arr))
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise ValueError(
            "`counts` must hold non-negative whole numbers (how many raters put each item "
            f"in each category); got {arr[i, j]} at row {i}, column {j}."
        )
    k = arr.shape[1]
    if labels is not None:
        lab = _v.prepare_labels(labels)
        if lab.n_classes != k:
            raise ValueError(
                f"`labels` must name the {k} columns of `counts`; got {lab.n_classes} labels."
            )
        if kind == "ratio":
            if lab.is_text:
                raise TypeError("`weights`='ratio' needs numeric categories; `labels` hold text.")
            scale = Scale(k, points=lab.values.astype(np.float64), text=" (the `labels`)")
        else:
            scale = Scale(k, text=" (the `labels`)")
    else:
        # without labels the columns are the categories 1..K (as R irrCAC's *.dist)
        scale = Scale(k, lo=1.0, text=" (the columns of `counts`)")
    arr = arr[arr.sum(axis=1) > 0]
    if arr.shape[0] == 0:
        raise ValueError("`counts` has no rated item: every row sums to zero.")
    if arr.sum(axis=1).max() < 2:
        raise ValueError(
            "`counts` has no item with two or more ratings; agreement needs items rated by "
            "at least two raters."
        )
    if not arr.sum() < 2.0**53:
        raise ValueError("`counts` totals 2**53 or more ratings; counts are not exact.")
    positions = np.arange(k, dtype=np.int64)
    _, index, coords = _finish(coefficient, kind, matrix, positions, scale)
    nz = arr > 0
    slot = np.cumsum(nz, axis=1) - 1
    w = int(nz.sum(axis=1).max())
    n = arr.shape[0]
    codes = np.full((n, w), -1, dtype=np.intp)
    mult = np.zeros((n, w))
    rows, cols = np.nonzero(nz)
    codes[rows, slot[rows, cols]] = cols
    mult[rows, slot[rows, cols]] = arr[rows, cols]
    return Prepared(
        coefficient,
        kind,
        matrix,
        None,
        (codes, mult),
        coords,
        index,
        scale,
        int(n),
        int(arr.sum(axis=1).max()),
    )


# ---------------------------------------------------------------------------- long format


class RatingsTable(NamedTuple):
    """Ratings in wide form: ``ratings`` (n_items, n_raters) with NaN (numbers) or None
    (text) where a rater did not rate an item, and the ``items`` and ``raters`` that
    label its rows and columns."""

    ratings: np.ndarray
    items: np.ndarray
    raters: np.ndarray


def _ids(values, name):
    arr = _v.as_1d(values, name)
    if arr.dtype.kind == "f" and np.any(np.isnan(arr)):
        raise ValueError(f"`{name}` contains NaN at index {int(np.flatnonzero(np.isnan(arr))[0])}.")
    return arr


def ratings_table(items, raters, values) -> RatingsTable:
    """Long format (one row per rating) → wide form."""
    it = _ids(items, "items")
    ra = _ids(raters, "raters")
    _v.check_same_length(it, ra, ("items", "raters"))
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"`values` must be array-like; got {values!r}.")
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    val = np.asarray(values) if not isinstance(values, list) else np.asarray(values, dtype=object)
    if val.ndim != 1:
        raise ValueError(f"`values` must be 1-D; got shape {val.shape}.")
    _v.check_same_length(it, val, ("items", "values"))
    present, kept, is_text = _split(val.reshape(-1, 1), "values", None)
    present = present.ravel()
    item_ids, row = np.unique(it, return_inverse=True)
    rater_ids, col = np.unique(ra, return_inverse=True)
    key = row.astype(np.int64) * rater_ids.size + col
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if dup.size:
        first, second = order[dup[0]], order[dup[0] + 1]
        raise ValueError(
            f"Rater {_scalar(ra[second])!r} rated item {_scalar(it[second])!r} twice "
            f"(rows {int(min(first, second))} and {int(max(first, second))} of `items`, "
            "`raters`, `values`); give one rating per item and rater."
        )
    shape = (item_ids.size, rater_ids.size)
    if is_text:
        out = np.full(shape, None, dtype=object)
    else:
        out = np.full(shape, np.nan)
    out[row[present], col[present]] = kept
    return RatingsTable(out, item_ids, rater_ids)
