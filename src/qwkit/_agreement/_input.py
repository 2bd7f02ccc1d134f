"""Input validation for agreement among many raters: ratings and count tables.

Two entry points — :func:`prepare_for_coefficient` (a :class:`~qwkit.RatingsTable`, or
items × raters with NaN/None for missing) and :func:`prepare_counts` (``table``: the items ×
categories counts of Fleiss 1971) — turn what users pass into integer category codes on
an explicit scale, or raise a ``ValueError``/``TypeError`` naming the parameter, what is
allowed and what was received. :func:`prepare_panel` is the step every statistic of many
raters shares (no coefficient needed): it gives the :class:`Panel`, the sparse layout
they all read. Nothing here computes a coefficient.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import numpy as np

from qwkit import _kernels
from qwkit._agreement._metrics import Rows
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._ratings import RatingsTable, Sparse, as_sparse
from qwkit._base._registry import COEFFICIENTS
from qwkit._base._scale import (
    label_coordinates,
    match_labels,
    offsets_from,
    prepare_labels,
    rating_matrix,
)
from qwkit._base._scale_check import SKETCH, check_sparse, may_fire, sketch_values, warn_codes
from qwkit._base._validation import (
    as_real_array,
    check_choice,
    integral_or_none,
    scalar,
    show,
)
from qwkit._base._weights import check_weights

#: Coefficients that are functions of the items × categories count table.
POOLED = COEFFICIENTS.where(lambda r: r.pooled)
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
    #: One category per rating, in reading order, at its value (``value_only``): only
    #: the moments of squared differences may read such a scale.
    per_rating: bool = False

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

    def labels_at(self, index: np.ndarray) -> np.ndarray:
        """The categories at the scale positions ``index`` (the ones that occur): as
        :attr:`labels` would give them, without building the whole scale — memory in
        proportion to ``index``, never to the span of the ratings (0 and 10**12 are two
        categories here, not 10**12 + 1)."""
        index = np.asarray(index)
        if self.values is not None:
            return np.asarray(self.values)[index]
        if self.points is not None:
            return self.lo + self.points[index]
        lo = int(self.lo)
        dtype = np.int64 if lo + self.q - 1 <= _INT64.max else np.uint64
        return index.astype(dtype) + dtype(lo)


@dataclass(frozen=True, eq=False)
class Panel:
    """Ratings on a scale, one entry per rating, sorted by item (CSR): the sparse layout
    every statistic of many raters reads (``docs/agreement.md`` §2).

    ``item_ptr`` (n_items + 1,) int64: item i's ratings are the entries
    ``item_ptr[i]:item_ptr[i + 1]``, in the order given (the columns of a wide matrix,
    the rows of a long table); ``item`` and ``rater`` (N,) intp: each entry's item
    (0 … n_items − 1, non-decreasing) and rater (0 … n_raters − 1) — an item holds at
    most one rating per rater; ``code`` (N,) intp: its category, a code 0 … V − 1 into
    the V categories that occur, whose positions on the scale (0 … q − 1) are
    ``index`` (V,) and whose coordinates relative to ``scale.lo`` are ``coords`` (V,)
    float64 (the position of entry e is ``index[code[e]]``: exact for integer ratings of
    any size, never a float64 copy of a rating). ``raters`` (n_raters,) names the raters
    (a table's ids, a data frame's columns, or 0, 1, …).

    Items and raters with no rating are dropped (``n_items_dropped``,
    ``n_raters_dropped``); memory is O(N + n_items + n_raters), never items × raters.
    """

    item_ptr: np.ndarray
    item: np.ndarray
    rater: np.ndarray
    code: np.ndarray
    index: np.ndarray
    coords: np.ndarray
    scale: Scale
    raters: np.ndarray
    n_items_dropped: int = 0
    n_raters_dropped: int = 0

    @property
    def n_items(self) -> int:
        return int(self.item_ptr.shape[0] - 1)

    @property
    def n_raters(self) -> int:
        return int(self.raters.shape[0])

    @property
    def n_ratings(self) -> int:
        return int(self.code.shape[0])

    @property
    def per_item(self) -> np.ndarray:
        """How many ratings each item has (int64, (n_items,))."""
        return np.diff(self.item_ptr)

    @property
    def n_items_rated_once(self) -> int:
        return int(np.count_nonzero(self.per_item == 1))


@dataclass(frozen=True, eq=False)
class Prepared:
    """Validated input of an agreement coefficient: ratings (``panel``) or a count table
    (``table``: each item's categories and counts), codes 0..V−1 into the V categories
    that occur."""

    coefficient: str
    weights: str  # a named metric, or "custom"
    matrix: np.ndarray | None  # custom (q, q) disagreement weights
    panel: Panel | None
    table: Rows | None
    coords: np.ndarray  # (V,) coordinate of each category that occurs
    index: np.ndarray  # (V,) its position on the scale, 0..q−1
    scale: Scale
    n_items: int
    n_raters: int
    n_items_dropped: int = 0
    n_raters_dropped: int = 0
    n_items_rated_once: int = 0


# ---------------------------------------------------------------------------- options


def check_coefficient(coefficient) -> str:
    """One of the coefficients of the registry (``_base._registry.COEFFICIENTS``)."""
    return check_choice(coefficient, "coefficient", COEFFICIENTS.names)


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
            lo, pts = label_coordinates(lab)
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
        return pos, Scale(values.size, points=values, text=" (the ratings)", per_rating=True)
    used, pos = np.unique(values, return_inverse=True)
    return pos.astype(np.int64), Scale(used.size, points=used, text=" (the distinct values)")


def _finish(weights, matrix, positions, scale):
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


def _check_codes(coefficient: str | None, scale: Scale, index: np.ndarray, n_ratings: int) -> None:
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


def _compact(sp: Sparse, codes: np.ndarray, scale: Scale, index, coords) -> Panel:
    """Drop the items and raters with no rating (counted), renumber the rest."""
    per_item = np.diff(sp.item_ptr)
    item_kept = per_item > 0
    per_rater = np.bincount(sp.rater, minlength=sp.n_raters)
    rater_kept = per_rater > 0
    item, rater, item_ptr = sp.item, sp.rater, sp.item_ptr
    if not item_kept.all():
        item = (np.cumsum(item_kept) - 1)[item]
        item_ptr = np.zeros(int(item_kept.sum()) + 1, dtype=np.int64)
        np.cumsum(per_item[item_kept], out=item_ptr[1:])
    if not rater_kept.all():
        rater = (np.cumsum(rater_kept) - 1)[rater]
    names = sp.rater_ids if sp.rater_ids is not None else sp.columns
    if names is None:
        names = np.arange(sp.n_raters)
    names = np.asarray(names if not isinstance(names, tuple) else list(names), dtype=object)
    return Panel(
        item_ptr=item_ptr,
        item=item.astype(np.intp, copy=False),
        rater=rater.astype(np.intp, copy=False),
        code=codes,
        index=index,
        coords=coords,
        scale=scale,
        raters=names[rater_kept],
        n_items_dropped=int(item_kept.size - np.count_nonzero(item_kept)),
        n_raters_dropped=int(rater_kept.size - np.count_nonzero(rater_kept)),
    )


def prepare_panel(
    ratings, weights, labels, *, coefficient: str | None = None, value_only=False, name="ratings"
) -> tuple[Panel, str, np.ndarray | None]:
    """Validate ratings of many raters — a :class:`~qwkit.RatingsTable`, or an items ×
    raters array (NaN/None for missing) — onto a scale: ``(panel, weights, matrix)``,
    ``weights`` the name of the weights ("custom" for a matrix, then ``matrix``).

    ``coefficient`` (Gwet's and Brennan–Prediger's count the categories of the scale)
    only chooses a warning; ``value_only``: only the value of a coefficient of
    ``MOMENT_ONLY`` under squared differences is wanted, so real-valued ratings need no
    sort (see :func:`_scale_and_codes`). O(N) in the N ratings after the input's own
    reading (a wide matrix is read once, cell by cell)."""
    weights = check_weights(weights, many_raters=True)
    matrix = None if isinstance(weights, str) else weights
    weights = weights if isinstance(weights, str) else "custom"
    sp = as_sparse(ratings, name)
    if sp.source is None and sp.n_raters < 2:
        raise QwkitError(
            f"`{name}` must be 2-D, one row per item and one column per rater, with at least "
            f"two raters; got shape {(sp.n_items, sp.n_raters)}.",
            parameter=name,
        )
    if sp.values.size == 0:
        raise QwkitError(f"`{name}` holds no rating: every entry is missing.", parameter=name)
    if labels is None:
        labels = sp.declared
    distinct = not (value_only and weights == "quadratic" and coefficient in MOMENT_ONLY)
    positions, scale = _scale_and_codes(sp, labels, weights, distinct)
    codes, index, coords = _finish(weights, matrix, positions, scale)
    if scale.points is None and scale.values is None:  # the integer range of the ratings
        _check_codes(coefficient, scale, index, int(positions.size))
    return _compact(sp, codes, scale, index, coords), weights, matrix


def prepare_for_coefficient(ratings, coefficient, weights, labels, *, value_only=False) -> Prepared:
    """Validate ratings of many raters for the agreement coefficient ``coefficient``: its
    panel (:func:`prepare_panel`), checked for a pair of ratings of one item, cut to the
    items both raters rated for Scott's π. (``_base._scale.prepare_ratings`` is another
    thing: any number of rating vectors of the same items as positions on one scale.)"""
    coefficient = check_coefficient(coefficient)
    panel, weights, matrix = prepare_panel(
        ratings, weights, labels, coefficient=coefficient, value_only=value_only
    )
    check_pairs(panel)
    if COEFFICIENTS[coefficient].two_raters:
        panel = _two_raters(panel, coefficient)
    return prepared(coefficient, weights, matrix, panel)


def prepared(coefficient: str, weights, matrix, panel: Panel) -> Prepared:
    """The :class:`Prepared` of a checked panel (its codes, scale and counts)."""
    return Prepared(
        coefficient,
        weights,
        matrix,
        panel,
        None,
        panel.coords,
        panel.index,
        panel.scale,
        panel.n_items,
        panel.n_raters,
        n_items_dropped=panel.n_items_dropped,
        n_raters_dropped=panel.n_raters_dropped,
        n_items_rated_once=panel.n_items_rated_once,
    )


def per_rating(prep: Prepared) -> Prepared:
    """``prep`` as ``value_only=True`` prepares it (:func:`_scale_and_codes`): for a
    coefficient of ``MOMENT_ONLY`` under squared differences of real-valued ratings, one
    category per rating, in reading order, at its value — the same arrays, so that the
    coefficient's value is the same computation whichever way the ratings were
    prepared. Any other ``prep`` is returned as it is."""
    scale, panel = prep.scale, prep.panel
    if (
        panel is None
        or scale.per_rating
        or scale.points is None
        or scale.values is not None
        or prep.weights != "quadratic"
        or prep.coefficient not in MOMENT_ONLY
    ):
        return prep
    points = panel.coords[panel.code]  # each rating's value, exactly
    n = points.shape[0]
    scale = Scale(n, points=points, text=" (the ratings)", per_rating=True)
    panel = replace(
        panel, code=np.arange(n, dtype=np.intp), index=np.arange(n), coords=points, scale=scale
    )
    return prepared(prep.coefficient, prep.weights, prep.matrix, panel)


def _two_raters(panel: Panel, coefficient: str) -> Panel:
    """A coefficient of two raters (Scott's π): the items both rated (its table)."""
    if panel.n_raters != 2:
        record = COEFFICIENTS[coefficient]
        raise QwkitError(
            f"`coefficient`={coefficient!r} is {record.display} of two raters; `ratings` has "
            f"{panel.n_raters} raters with ratings. {COEFFICIENTS[record.generalized].display} "
            f"({record.generalized!r}) is its generalization to any number.",
            parameter="coefficient",
            also=("ratings",),
        )
    both = panel.per_item == 2
    if both.all():
        return panel
    keep = np.repeat(both, panel.per_item)
    item_ptr = np.zeros(int(both.sum()) + 1, dtype=np.int64)
    np.cumsum(np.full(item_ptr.size - 1, 2), out=item_ptr[1:])
    return replace(
        panel,
        item_ptr=item_ptr,
        item=np.repeat(np.arange(item_ptr.size - 1, dtype=np.intp), 2),
        rater=panel.rater[keep],
        code=panel.code[keep],
        n_items_dropped=panel.n_items_dropped + int(both.size - both.sum()),
    )


def check_pairs(panel: Panel, name: str = "ratings") -> None:
    """At least one item with two or more ratings."""
    if panel.n_items == 0 or int(np.diff(panel.item_ptr).max()) < 2:
        raise QwkitError(
            f"`{name}` has no item with two or more ratings; agreement needs items rated by "
            "at least two raters.",
            parameter=name,
        )


def prepare_counts(table, coefficient, weights, labels) -> Prepared:
    """Validate the items × categories table of counts (Fleiss 1971), or the ratings of a
    :class:`~qwkit.RatingsTable` (whose pooled coefficients are those of its counts)."""
    coefficient = check_coefficient(coefficient)
    if isinstance(table, RatingsTable) and coefficient in POOLED:
        return prepare_for_coefficient(table, coefficient, weights, labels)
    if coefficient not in POOLED:
        raise QwkitError(
            f"`coefficient`={coefficient!r} needs to know which rater gave which rating; a "
            "count table does not say. From counts use "
            f"{COEFFICIENTS.choices_text(POOLED)}, or pass the items × raters ratings to "
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
            lo, points = label_coordinates(lab)
            scale = Scale(k, lo, points, text=" (the `labels`)", values=lab.values)
        else:
            scale = Scale(k, text=" (the `labels`)", values=lab.values)
    else:
        # without labels the columns are the categories 1..K (as R irrCAC's *.dist)
        scale = Scale(k, lo=1, text=" (the columns of `table`)")
    rated = arr.sum(axis=1) > 0
    dropped = rated.size - np.count_nonzero(rated)
    arr = arr[rated]
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
    _, index, coords = _finish(weights, matrix, positions, scale)
    n = arr.shape[0]
    rows, cols = np.nonzero(arr > 0)  # row by row, categories in scale order
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(arr > 0, axis=1), out=ptr[1:])
    totals = arr.sum(axis=1)
    return Prepared(
        coefficient,
        weights,
        matrix,
        None,
        Rows(ptr, cols.astype(np.intp), arr[rows, cols].astype(np.float64)),
        coords,
        index,
        scale,
        int(n),
        int(totals.max()),
        n_items_dropped=int(dropped),
        n_items_rated_once=int(np.count_nonzero(totals == 1)),
    )


# ---------------------------------------------------------------------------- numeric ratings


@dataclass(frozen=True, eq=False)
class Numeric:
    """Real-valued ratings, one entry per rating, sorted by item (CSR): item i's ratings
    are ``values[offsets[i]:offsets[i + 1]]``, by the raters ``raters[...]`` (0 … k − 1).
    Only the items and raters with a rating are kept. ``in_rows``: the entries are the
    rows of an items × raters matrix, column by column (a wide input)."""

    offsets: np.ndarray  # (n + 1,) int64
    raters: np.ndarray  # (N,) intp
    values: np.ndarray  # (N,) float64
    n_items: int
    n_raters: int
    in_rows: bool
    first: object = None  # the first rating as given (``values`` may be shifted), for messages

    @property
    def complete(self) -> bool:
        """Whether every kept item was rated by every kept rater."""
        return self.values.size == self.n_items * self.n_raters

    def dense(self) -> np.ndarray:
        """The items × raters matrix of ratings, NaN where missing."""
        n, k = self.n_items, self.n_raters
        if self.complete and self.in_rows:
            return self.values.reshape(n, k)
        out = np.full((n, k), np.nan)
        out[np.repeat(np.arange(n), np.diff(self.offsets)), self.raters] = self.values
        return out


def prepare_numeric(ratings, what: str) -> Numeric:
    """Validate numeric ratings of many raters — a :class:`~qwkit.RatingsTable`, or an
    items × raters array (NaN/None for missing) — for ``what`` (a statistic of real
    values, e.g. "the ICC"), keeping the items and raters with a rating."""
    sp = as_sparse(ratings, "ratings")
    if sp.is_text:
        raise QwkitTypeError(
            f"`ratings` must hold numbers for {what}; got text ratings. Give their "
            "positions on the scale (e.g. 1, 2, 3) instead.",
            parameter="ratings",
        )
    per_rater = np.bincount(sp.rater, minlength=sp.n_raters)
    kept = per_rater > 0
    if int(kept.sum()) < 2:
        raise QwkitError(
            f"`ratings` must hold at least two raters with a rating for {what}; got "
            f"{int(kept.sum())} (of {sp.n_raters}).",
            parameter="ratings",
        )
    per_item = np.diff(sp.item_ptr)
    offsets = sp.item_ptr
    if not per_item.all():
        offsets = np.zeros(int(np.count_nonzero(per_item)) + 1, dtype=np.int64)
        np.cumsum(per_item[per_item > 0], out=offsets[1:])
    rater = sp.rater if kept.all() else (np.cumsum(kept) - 1)[sp.rater]
    raw = np.asarray(sp.values)
    first = raw[0].item() if raw.size else None
    if raw.dtype.kind in "iu" and raw.size:
        # differences from the smallest, taken in integers (mod 2**64: exact): a float64
        # copy of integers beyond 2**53 loses digits, and the statistics of numeric
        # ratings (ICC, Kendall's W) do not change under a shift
        raw = raw.astype(np.uint64) - np.asarray(raw.min()).astype(np.uint64)
    return Numeric(
        offsets=offsets,
        raters=rater.astype(np.intp, copy=False),
        values=raw.astype(np.float64, copy=False),
        n_items=int(offsets.size - 1),
        n_raters=int(kept.sum()),
        in_rows=sp.source is None,
        first=first,
    )


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
