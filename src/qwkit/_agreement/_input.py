"""Input validation for agreement among many raters: ratings, count tables, long format.

One entry point per input form — :func:`prepare_ratings` (items × raters),
:func:`prepare_counts` (``table``: the items × categories counts of Fleiss 1971) and
:func:`ratings_table` (long format) — turns what users pass into integer category
codes on an explicit scale, or raises a ``ValueError``/``TypeError`` naming the
parameter, what is allowed and what was received. Nothing here computes a coefficient,
so a shared "ratings for n raters" validation can replace this module whole.
"""

from __future__ import annotations

import functools
import numbers
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from qwkit import _kernels
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._scale import (
    match_labels,
    offsets_from,
    prepare_labels,
    rating_matrix,
    with_gaps,
)
from qwkit._base._scale_check import SKETCH, check_sparse, may_fire, sketch_values, warn_codes
from qwkit._base._validation import (
    as_1d,
    as_real_array,
    check_choice,
    check_same_length,
    integral_or_none,
    scalar,
    show,
)
from qwkit._base._weights import check_weights

COEFFICIENTS = (
    "fleiss",
    "conger",
    "krippendorff",
    "gwet",
    "brennan-prediger",
    "light",
    "percent",
    "scott",
)
#: Coefficients that are functions of the items × categories count table.
POOLED = ("fleiss", "krippendorff", "gwet", "brennan-prediger", "percent")
_INT64 = np.iinfo(np.int64)
_INT64_MIN_F = -(2.0**63)


@dataclass(frozen=True)
class Scale:
    """The rating scale: q categories at ``lo, lo+1, ...`` (a range) or at the explicit
    ``lo + points`` (in scale order).

    ``lo`` is exact (a Python int for integer scales, however large) and every
    coordinate the metrics read is relative to it: quadratic and linear metrics are
    translation-invariant, and the ratio metric adds ``2·lo`` to a sum only, so that a
    float64 copy of a rating such as 2**53 + 1 is never made."""

    q: int
    lo: int | float = 0
    points: np.ndarray | None = None  # relative to lo
    text: str = ""  # how the scale was chosen, for messages
    values: np.ndarray | None = None  # the categories as given (labels, text ratings)

    def coordinates(self) -> np.ndarray:
        """The coordinate of every category relative to ``lo`` (float64)."""
        if self.points is not None:
            return self.points
        return np.arange(self.q, dtype=np.float64)

    @property
    def labels(self):
        """The categories of the scale: the labels or values as given, or the integers
        ``lo … lo + q − 1`` (a ``range`` beyond 10,000 of them)."""
        if self.values is not None:
            return self.values
        if self.points is not None:
            return self.lo + self.points
        lo = int(self.lo)
        if self.q > 10_000:
            return range(lo, lo + self.q)
        dtype = np.int64 if lo + self.q - 1 <= _INT64.max else np.uint64
        return np.arange(self.q, dtype=dtype) + dtype(lo)


def _label_points(lab) -> tuple[int | float, np.ndarray]:
    """(lo, coordinates relative to lo) of numeric labels, exact for integers."""
    ints = lab.values if lab.values.dtype.kind == "u" else integral_or_none(lab.values)
    if ints is not None:
        lo = int(ints.min())
        return lo, offsets_from(ints, lo).astype(np.float64)
    values = lab.values.astype(np.float64)
    return 0.0, values


@dataclass(frozen=True)
class Prepared:
    """Validated ratings: codes 0..V−1 into the V categories that occur.

    Raw ratings fill ``codes`` (n, r), −1 where missing; a count table fills ``table``
    (each row's category codes and counts, (n, w) each).
    """

    coefficient: str
    weights: str  # a named metric, or "custom"
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
    return check_choice(coefficient, "coefficient", COEFFICIENTS)


def check_n_population(n_population, n_items: int) -> float:
    """The finite-population correction f = n/N (0 for an infinite population)."""
    if n_population is None:
        return 0.0
    if isinstance(n_population, bool) or not isinstance(n_population, numbers.Real):
        raise QwkitTypeError(
            f"`n_population` must be None or a number; got {n_population!r}.",
            parameter="n_population",
        )
    big_n = float(n_population)
    if not big_n >= n_items:
        raise QwkitError(
            f"`n_population` is the number of items in the population and must be at least "
            f"the {n_items} rated items; got {n_population!r}.",
            parameter="n_population",
        )
    return n_items / big_n


# ---------------------------------------------------------------------------- arrays


# ---------------------------------------------------------------------------- scale


def _on_labels(m, labels):
    """Positions of the ratings in ``labels`` (the ordered scale), compared exactly."""
    lab = prepare_labels(labels)
    if lab.is_text != m.is_text:
        what = "text" if m.is_text else "numbers"
        other = "text" if lab.is_text else "numbers"
        raise QwkitTypeError(
            f"`ratings` hold {what} but `labels` hold {other}.", parameter="ratings"
        )
    pos, k = match_labels(m.values, lab)
    if k is not None:
        raise QwkitError(
            f"`ratings` contains {scalar(m.values[k])!r} at {m.where(k)}, which "
            f"is not in `labels` {show(lab.values)}.",
            parameter="ratings",
            row=m.row(k),
            also=("labels",),
        )
    return pos.astype(np.int64, copy=False), lab


#: Coefficients whose value under squared differences needs only each item's moments
#: of the rating values (eq. M), never which ratings are equal.
MOMENT_ONLY = ("fleiss", "krippendorff")


def _scale_and_codes(m, labels, weights, distinct=True):
    """(positions of the ratings on the scale, coords of scale positions, Scale).

    With ``distinct=False`` real-valued ratings (not integers, no ``labels``) skip the
    sort of every value: each rating is its own category, in reading order, at its own
    value (the scale's points repeat values that occur twice). Only the moments of
    squared differences may read such a scale."""
    values, is_text = m.values, m.is_text
    if labels is not None:
        pos, lab = _on_labels(m, labels)
        k = lab.n_classes
        if weights == "ratio":
            if lab.is_text:
                raise QwkitTypeError(
                    "`weights`='ratio' (Krippendorff's ratio metric) needs numeric ratings; "
                    "`labels` hold text.",
                    parameter="weights",
                )
            lo, pts = _label_points(lab)
            return pos, Scale(k, lo, pts, text=" (the `labels`)", values=lab.values)
        return pos, Scale(k, text=" (the `labels`)", values=lab.values)
    if is_text:
        if weights != "identity":
            shown = weights if weights != "custom" else "a matrix"
            raise QwkitError(
                f"`ratings` hold text, whose order `weights`={shown!r} needs: pass `labels`, "
                "the ordered rating scale (text without `labels` allows weights='identity').",
                parameter="ratings",
            )
        used, pos = np.unique(values, return_inverse=True)
        return pos.astype(np.int64), Scale(
            used.size, text=" (the distinct text ratings)", values=used
        )
    if values.dtype == np.float64:  # one compiled pass, no temporaries
        integral, lo_f, hi_f = _kernels.integral_extremes(values)
        if integral and lo_f >= _INT64_MIN_F and hi_f < -_INT64_MIN_F:
            lo, hi = int(lo_f), int(hi_f)
            # wrapping int64 subtraction read as unsigned is exact for any int64 range
            pos = _kernels.integer_offsets(values, np.int64(lo)).view(np.uint64)
            text = f" (the integers from {lo} to {hi})"
            return pos, Scale(hi - lo + 1, lo, text=text)
        ints = None
    elif values.dtype.kind == "u":
        ints = values  # any size: uint64 beyond int64 too, subtracted as uint64
    else:
        ints = integral_or_none(values)
    if ints is not None:
        lo, hi = int(ints.min()), int(ints.max())
        # positions on the scale, exact: never a float64 copy of the ratings
        pos = offsets_from(ints, lo)
        text = f" (the integers from {lo} to {hi})"
        return pos, Scale(hi - lo + 1, lo, text=text)
    values = values.astype(np.float64, copy=False)
    if not distinct and values.min() < values.max():
        pos = np.arange(values.size, dtype=np.int64)
        return pos, Scale(values.size, points=values, text=" (the ratings)")
    used, pos = np.unique(values, return_inverse=True)
    return pos.astype(np.int64), Scale(used.size, points=used, text=" (the distinct values)")


def _finish(coefficient, weights, matrix, positions, scale, **layout):
    """Codes into the categories that occur, their coordinates, and the custom matrix."""
    if scale.q < 2:
        raise QwkitError(
            f"The rating scale has a single category{scale.text}; agreement beyond chance "
            "needs at least two. Pass `labels` to declare the scale.",
            parameter="labels",
        )
    if positions.size == scale.q and scale.points is not None and scale.values is None:
        # the points are the ratings' values, each occurring once (all distinct, or one
        # category per rating): every category occurs, no count of them is needed
        index, codes = np.arange(scale.q), positions
    elif positions.size and int(positions.max()) < 4 * positions.size + 1024:
        size = int(positions.max()) + 1  # O(N + q), no sort
        index, codes = _kernels.dense_codes(positions.astype(np.int64, copy=False), size)
    else:  # uint64 positions sort as they should for any span below 2**64
        index, codes = np.unique(positions, return_inverse=True)
    if matrix is not None and matrix.shape[0] != scale.q:
        raise QwkitError(
            f"`weights` has shape {matrix.shape} but the rating scale has {scale.q} "
            f"categories{scale.text}; pass `labels` to fix the scale.",
            parameter="weights",
        )
    # coordinates relative to the scale's start (scale.lo): exact positions, then float
    coords = index.astype(np.float64) if scale.points is None else scale.points[index]
    if weights == "ratio":
        first = scale.lo + (int(index[0]) if scale.points is None else float(coords.min()))
        if first < 0:
            raise QwkitError(
                "`weights`='ratio' (Krippendorff's ratio metric) needs non-negative values "
                f"(a ratio scale has a true zero); `ratings` contain {first}.",
                parameter="weights",
            )
    return codes.astype(np.intp), index, coords


#: Coefficients whose chance term counts the categories of the scale (eqs. 7, 9).
_COUNT_CATEGORIES = {"gwet": "Gwet's AC", "brennan-prediger": "the Brennan-Prediger coefficient"}


def _check_codes(coefficient: str, scale: Scale, index: np.ndarray, n_ratings: int) -> None:
    """ScaleWarning for an inferred integer scale that holds missing-value codes, or —
    for Gwet's and Brennan–Prediger's coefficients — of which at most half occurs.
    ``index``: the positions that occur (sorted), which the codes already hold."""
    ends = index if index.size <= 2 * SKETCH else np.r_[index[:SKETCH], index[-SKETCH:]]
    lo, hi = scale.lo + int(index[0]), scale.lo + int(index[-1])
    if may_fire(lo, hi) and warn_codes(sketch_values([scale.lo + int(i) for i in ends])):
        return
    if coefficient in _COUNT_CATEGORIES:
        name = _COUNT_CATEGORIES[coefficient]
        check_sparse(int(index.size), n_ratings, scale.lo, scale.q, name)


def prepare_ratings(ratings, coefficient, weights, labels, *, value_only=False) -> Prepared:
    """Validate an items × raters array of ratings (NaN/None for missing).

    ``value_only``: only the coefficient's value is wanted (no labels, no resampling),
    so real-valued ratings under squared differences for a coefficient of
    ``MOMENT_ONLY`` need no sort of the values (see :func:`_scale_and_codes`)."""
    coefficient = check_coefficient(coefficient)
    weights = check_weights(weights, many_raters=True)
    matrix = None if isinstance(weights, str) else weights
    weights = weights if isinstance(weights, str) else "custom"
    m = rating_matrix(ratings)
    arr = m.present
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise QwkitError(
            "`ratings` must be 2-D, one row per item and one column per rater, with at least "
            f"two raters; got shape {arr.shape}.",
            parameter="ratings",
        )
    present, values = m.present, m.values
    if labels is None:
        labels = m.declared
    if values.size == 0:
        raise QwkitError(
            "`ratings` holds no rating: every entry is missing.",
            parameter="ratings",
        )
    distinct = not (value_only and weights == "quadratic" and coefficient in MOMENT_ONLY)
    positions, scale = _scale_and_codes(m, labels, weights, distinct)
    codes_flat, index, coords = _finish(coefficient, weights, matrix, positions, scale)
    if scale.points is None and scale.values is None:  # the integer range of the ratings
        _check_codes(coefficient, scale, index, int(positions.size))
    codes, per_item, per_rater = _kernels.scatter_codes(
        np.ascontiguousarray(present), np.ascontiguousarray(codes_flat, dtype=np.intp)
    )
    if not per_item.all():
        codes = codes[per_item > 0]
    if not per_rater.all():
        codes = codes[:, per_rater > 0]
    if per_item.max() < 2:
        raise QwkitError(
            "`ratings` has no item with two or more ratings; agreement needs items rated by "
            "at least two raters.",
            parameter="ratings",
        )
    if coefficient == "scott":
        codes = _two_raters(codes)
    return Prepared(
        coefficient,
        weights,
        matrix,
        codes,
        None,
        coords,
        index,
        scale,
        int(codes.shape[0]),
        int(codes.shape[1]),
    )


def _two_raters(codes: np.ndarray) -> np.ndarray:
    """Scott's π is a coefficient of two raters: the items both rated (its table)."""
    if codes.shape[1] != 2:
        raise QwkitError(
            f"`coefficient`='scott' is Scott's π of two raters; `ratings` has "
            f"{codes.shape[1]} raters with ratings. Fleiss' kappa ('fleiss') is its "
            "generalization to any number.",
            parameter="coefficient",
            also=("ratings",),
        )
    both = (codes >= 0).all(axis=1)
    return codes if both.all() else codes[both]


def prepare_counts(table, coefficient, weights, labels) -> Prepared:
    """Validate the items × categories table of counts (Fleiss 1971)."""
    coefficient = check_coefficient(coefficient)
    if coefficient not in POOLED:
        raise QwkitError(
            f"`coefficient`={coefficient!r} needs to know which rater gave which rating; a "
            "count table does not say. From counts use 'fleiss', 'krippendorff', 'gwet', "
            "'brennan-prediger' or 'percent', or pass the items × raters ratings to "
            "`agreement_score`.",
            parameter="coefficient",
        )
    weights = check_weights(weights, many_raters=True)
    matrix = None if isinstance(weights, str) else weights
    weights = weights if isinstance(weights, str) else "custom"
    arr = as_real_array(table, "table")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise QwkitError(
            f"`table` must be 2-D, one row per item and one column per category; got shape "
            f"{arr.shape}.",
            parameter="table",
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.floor(arr)):
        bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.floor(arr))
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise QwkitError(
            "`table` must hold non-negative whole numbers (how many raters put each item "
            f"in each category); got {arr[i, j]} at row {i}, column {j}.",
            parameter="table",
        )
    k = arr.shape[1]
    if labels is not None:
        lab = prepare_labels(labels)
        if lab.n_classes != k:
            raise QwkitError(
                f"`labels` must name the {k} columns of `table`; got {lab.n_classes} labels.",
                parameter="labels",
            )
        if weights == "ratio":
            if lab.is_text:
                raise QwkitTypeError(
                    "`weights`='ratio' needs numeric categories; `labels` hold text.",
                    parameter="weights",
                )
            if lab.values.min() < 0:  # the categories of the table: none may be negative
                j = int(np.argmin(lab.values))
                raise QwkitError(
                    "`weights`='ratio' (Krippendorff's ratio metric) needs non-negative "
                    f"values (a ratio scale has a true zero); `labels` contain "
                    f"{lab.values[j].item()} (column {j} of `counts`).",
                    parameter="weights",
                    also=("labels",),
                )
            lo, points = _label_points(lab)
            scale = Scale(k, lo, points, text=" (the `labels`)", values=lab.values)
        else:
            scale = Scale(k, text=" (the `labels`)", values=lab.values)
    else:
        # without labels the columns are the categories 1..K (as R irrCAC's *.dist)
        scale = Scale(k, lo=1, text=" (the columns of `table`)")
    arr = arr[arr.sum(axis=1) > 0]
    if arr.shape[0] == 0:
        raise QwkitError(
            "`table` has no rated item: every row sums to zero.",
            parameter="table",
        )
    if arr.sum(axis=1).max() < 2:
        raise QwkitError(
            "`table` has no item with two or more ratings; agreement needs items rated by "
            "at least two raters.",
            parameter="table",
        )
    if not arr.sum() < 2.0**53:
        raise QwkitError(
            "`table` totals 2**53 or more ratings; its counts are not exact.", parameter="table"
        )
    positions = np.arange(k, dtype=np.int64)
    _, index, coords = _finish(coefficient, weights, matrix, positions, scale)
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
        weights,
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
    (text, integers beyond ±2**53) where a rater did not rate an item, and the
    ``items`` and ``raters`` that label its rows and columns."""

    ratings: np.ndarray
    items: np.ndarray
    raters: np.ndarray


def _ids(values, name):
    arr = as_1d(values, name)
    if arr.dtype.kind == "f" and np.any(np.isnan(arr)):
        raise QwkitError(f"`{name}` contains NaN at index {int(np.flatnonzero(np.isnan(arr))[0])}.")
    return arr


def ratings_table(items, raters, values) -> RatingsTable:
    """Long format (one row per rating) → wide form."""
    it = _ids(items, "items")
    ra = _ids(raters, "raters")
    check_same_length(it, ra, ("items", "raters"))
    if values is None or isinstance(values, (str, bytes)):
        raise QwkitTypeError(
            f"`values` must be array-like; got {values!r}.",
            parameter="values",
        )
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    val = np.asarray(values) if not isinstance(values, list) else np.asarray(values, dtype=object)
    if val.ndim != 1:
        raise QwkitError(
            f"`values` must be 1-D; got shape {val.shape}.",
            parameter="values",
        )
    check_same_length(it, val, ("items", "values"))
    m = rating_matrix(val.reshape(-1, 1), "values")
    present, kept = m.present, m.values
    present = present.ravel()
    item_ids, row = np.unique(it, return_inverse=True)
    rater_ids, col = np.unique(ra, return_inverse=True)
    key = row.astype(np.int64) * rater_ids.size + col
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if dup.size:
        first, second = order[dup[0]], order[dup[0] + 1]
        raise QwkitError(
            f"Rater {scalar(ra[second])!r} rated item {scalar(it[second])!r} twice "
            f"(rows {int(min(first, second))} and {int(max(first, second))} of `items`, "
            "`raters`, `values`); give one rating per item and rater.",
            parameter="items",
        )
    given = np.zeros((item_ids.size, rater_ids.size), dtype=bool)
    given[row[present], col[present]] = True
    # the present values in the wide array's C order: the order of their keys
    in_order = order[present[order]]
    kept = kept[(np.cumsum(present) - 1)[in_order]]
    return RatingsTable(with_gaps(given, kept), item_ids, rater_ids)


# ---------------------------------------------------------------------------- numeric ratings


@dataclass(frozen=True)
class Numeric:
    """Real-valued ratings stored one entry per rating, sorted by item (CSR): item i's
    ratings are ``values[offsets[i]:offsets[i + 1]]``, by the raters ``raters[...]``.
    Only items and raters with at least one rating are kept."""

    offsets: np.ndarray  # (n + 1,) int64
    values: np.ndarray  # (N,) float64
    n_items: int
    n_raters: int
    present: np.ndarray = field(repr=False)  # (n_input, k) bool, the kept raters

    @property
    def complete(self) -> bool:
        """Whether every kept item was rated by every kept rater."""
        return self.values.size == self.n_items * self.n_raters

    @functools.cached_property
    def raters(self) -> np.ndarray:
        """The rater (0..k−1) of each rating, int64."""
        return np.nonzero(self.present)[1].astype(np.int64)

    def dense(self) -> np.ndarray:
        """The items × raters matrix of ratings, NaN where missing."""
        if self.complete:
            return self.values.reshape(self.n_items, self.n_raters)
        out = np.full((self.n_items, self.n_raters), np.nan)
        out[np.repeat(np.arange(self.n_items), np.diff(self.offsets)), self.raters] = self.values
        return out


def prepare_numeric(ratings, what: str) -> Numeric:
    """Validate items × raters numeric ratings (NaN/None for missing) for ``what`` (a
    statistic of real values, e.g. "the ICC"), keeping the items and raters with a
    rating."""
    m = rating_matrix(ratings)
    if m.is_text:
        raise QwkitTypeError(
            f"`ratings` must hold numbers for {what}; got text ratings. Give their "
            "positions on the scale (e.g. 1, 2, 3) instead.",
            parameter="ratings",
        )
    present = m.present
    values = np.asarray(m.values).astype(np.float64, copy=False)
    per_item = present.sum(axis=1)
    per_rater = present.sum(axis=0)
    cols = np.flatnonzero(per_rater > 0)
    if cols.size < 2:
        raise QwkitError(
            f"`ratings` must hold at least two raters (columns) with a rating for {what}; "
            f"got {cols.size} of shape {present.shape}.",
            parameter="ratings",
        )
    rows = np.flatnonzero(per_item > 0)
    if cols.size < present.shape[1]:
        present = present[:, cols]
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(per_item[rows], out=offsets[1:])
    return Numeric(offsets, values, int(rows.size), int(cols.size), present)


def numeric_column(values, name: str) -> np.ndarray:
    """One rater's real-valued ratings → float64 with NaN where missing (None, NaN,
    pandas' NA); text is refused."""
    arr = values
    if hasattr(arr, "to_numpy") and not isinstance(arr, np.ndarray):
        arr = arr.to_numpy()
    if arr is None or isinstance(arr, (str, bytes)) or np.ndim(arr) != 1:
        what = (
            repr(arr) if arr is None or isinstance(arr, (str, bytes)) else f"shape {np.shape(arr)}"
        )
        raise QwkitError(f"`{name}` must be 1-D array-like; got {what}.", parameter=name)
    column = np.asarray(arr, dtype=object if isinstance(arr, (list, tuple)) else None)
    m = rating_matrix(column.reshape(-1, 1), name)
    if m.is_text:
        raise QwkitTypeError(f"`{name}` must hold numbers; got text.", parameter=name)
    out = np.full(m.present.shape[0], np.nan)
    out[m.present[:, 0]] = np.asarray(m.values).astype(np.float64)
    return out
