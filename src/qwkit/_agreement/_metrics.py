"""Disagreement metrics and rating layouts for agreement among many raters.

A metric is a disagreement d(k, l) ≥ 0 between the categories of a rating scale, with
d(k, k) = 0 and d(k, l) = d(l, k) (``docs/agreement.md`` §2). The coefficients of
``qwkit._agreement._stats`` touch it only through four operations, so that a metric can
be a V×V matrix over the V categories that occur, or — for squared differences of
values — three moments, with no table at all:

* ``pair(a, b)``: d between the categories of two arrays of codes, elementwise;
* ``design(rows, codes, weights, m)``: each row's weighted ratings summarized as a
  vector (an m × p matrix): category masses (p = V), or the moments
  (Σw, Σw·z, Σw·z²) (p = 3) for squared differences (eq. M);
* ``apply(S)``: D applied to a summary, once (for vectors Σₗ d(k, l) Sₗ for every k;
  moments are their own applied form); then ``dot(DS, T)`` = Σₖₗ Sₖ d(k, l) Tₗ and
  ``lookup(DS, codes)`` = Σₗ d(c, l) Sₗ at each code c. ``cross`` and ``at`` do both
  steps at once (batched on leading axes).

Ratings are held in :class:`Rows`: groups (items, raters, one side of a pair of raters)
of distinct categories with their weights, flat with CSR offsets — memory in proportion
to the ratings. :func:`within` applies each group's own distribution at each of its
categories; :func:`row_pairs` gives each group's Σ over ordered pairs of its ratings of d
(eq. 3), the observed disagreement of the Fleiss family. Each metric hands the kernels
its disagreement as ``kernel_args()`` (``qwkit._kernels.cross_at``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from qwkit import _kernels

#: Named metrics over at most this many categories that occur get an explicit V×V
#: matrix; larger ones use prefix sums (linear), chunks (ratio) or moments (squared).
TABLE_MAX = 512
#: Chunked work holds about this many float64 entries at once (16 MiB).
CHUNK = 1 << 21
#: Dense designs (rows × categories) hold at most this many cells (8 MiB).
DENSE_MAX = 1 << 20
#: ``collapse`` merges identical rows only when at most one row in this many is distinct
#: (grouping stops there): measured, merging fewer repeats costs more than it saves.
_DISTINCT_SHARE = 2


# ---------------------------------------------------------------------------- metrics


class _Vector:
    """Operations shared by the metrics whose summaries are category masses."""

    vector = True
    #: Designs of up to this many cells are dense arrays (``DENSE_MAX`` for a value
    #: alone: scipy.sparse's per-call overhead costs more than the zeros). 0 keeps them
    #: sparse, whose sums the bootstrap and the variance reproduce bit for bit.
    dense_cells = 0

    def design(self, rows, codes, weights, m):
        if m * self.v <= self.dense_cells:  # a small table: dense, no sparse bookkeeping
            cells = np.bincount(rows * self.v + codes, weights=weights, minlength=m * self.v)
            return cells.reshape(m, self.v)
        return sparse.csr_array((weights, (rows, codes)), shape=(m, self.v))

    @staticmethod
    def dot(ds, t):
        return np.einsum("...k,...k->...", ds, t)

    @staticmethod
    def lookup(ds, codes):
        return ds[codes]

    def cross(self, s, t):
        return self.dot(self.apply(s), t)

    def at(self, s, codes):
        return self.apply(s)[codes]


_NO_MATRIX = np.zeros((0, 0))
_NO_VALUES = np.zeros(0)


class Identity(_Vector):
    """d = 1 − δₖₗ (nominal data)."""

    def __init__(self, n_categories: int):
        self.v = n_categories

    def kernel_args(self):
        return 1, _NO_MATRIX, _NO_VALUES, 0.0

    def pair(self, a, b):
        return (a != b).astype(np.float64)

    def apply(self, s):
        return s.sum(axis=-1, keepdims=True) - s


class Matrix(_Vector):
    """An explicit symmetric V×V disagreement matrix (custom weights, small scales)."""

    def __init__(self, dmat: np.ndarray):
        self.d = np.ascontiguousarray(dmat, dtype=np.float64)
        self.v = self.d.shape[0]

    def kernel_args(self):
        return 0, self.d, _NO_VALUES, 0.0

    def pair(self, a, b):
        return self.d[a, b]

    def apply(self, s):
        return s @ self.d


class Linear(_Vector):
    """d = |yₖ − yₗ| over many categories: prefix sums, O(V) per summary."""

    def __init__(self, y: np.ndarray):
        self.y = np.ascontiguousarray(y, dtype=np.float64)  # increasing
        self.v = y.shape[0]

    def kernel_args(self):
        return 2, _NO_MATRIX, self.y, 0.0

    def pair(self, a, b):
        return np.abs(self.y[a] - self.y[b])

    def apply(self, s):
        y = self.y
        c = np.cumsum(s, axis=-1)
        cy = np.cumsum(s * y, axis=-1)
        tot, toty = c[..., -1:], cy[..., -1:]
        # Σ_{l ≤ k} Sₗ(yₖ − yₗ) + Σ_{l > k} Sₗ(yₗ − yₖ)
        return (y * c - cy) + (toty - cy) - y * (tot - c)


class Ratio(_Vector):
    """Krippendorff's ratio metric ((yₖ − yₗ)/(yₖ + yₗ))² over many categories: the
    V×V matrix is formed a block of rows at a time, never whole (O(V²) time).

    ``y`` are coordinates relative to the scale's start and ``base`` twice its value,
    so that yₖ − yₗ is a difference of exact positions and only the sum yₖ + yₗ =
    base + y[k] + y[l] is rounded (the ratings 2**53 + 1 and 2**53 + 2 differ by 1)."""

    def __init__(self, y: np.ndarray, base: float = 0.0):
        self.y = np.ascontiguousarray(y, dtype=np.float64)  # base / 2 + y ≥ 0
        self.base = float(base)
        self.v = y.shape[0]

    def kernel_args(self):
        return 3, _NO_MATRIX, self.y, self.base

    @staticmethod
    def _d(ya, yb, base=0.0):
        total = base + ya + yb
        diff = ya - yb
        out = np.zeros(np.broadcast(ya, yb).shape)
        np.divide(diff * diff, total * total, out=out, where=total > 0)
        return out

    def pair(self, a, b):
        return self._d(self.y[a], self.y[b], self.base)

    def apply(self, s):
        y, v = self.y, self.v
        if np.ndim(s) == 1:
            return _kernels.ratio_apply(y, np.ascontiguousarray(s, dtype=np.float64), self.base)
        out = np.empty(np.shape(s))
        step = max(1, CHUNK // v)
        for k0 in range(0, v, step):
            block = self._d(y[k0 : k0 + step, None], y[None, :], self.base)  # (c, V)
            out[..., k0 : k0 + step] = s @ block.T
        return out


class Moments:
    """d = (zₖ − zₗ)², summarized by three moments (eq. M): no table over values.

    ``z`` holds the coordinate of each category, centred and scaled to a unit range so
    that the moment identities lose no precision to large offsets.
    """

    vector = False

    def __init__(self, z: np.ndarray):
        self.z = np.ascontiguousarray(z, dtype=np.float64)
        self.v = z.shape[0]

    def kernel_args(self):
        return 4, _NO_MATRIX, self.z, 0.0

    def pair(self, a, b):
        diff = self.z[a] - self.z[b]
        return diff * diff

    def row_moments(self, rows: Rows) -> np.ndarray:
        """Each row's (Σ mult, Σ mult·z, Σ mult·z², Pᵢ) (eqs. 3, M), Pᵢ in its centred
        form 2 rᵢ Σ mult (z − z̄ᵢ)²: exact for any offset of z."""
        zz = self.z[rows.codes]
        w = rows.mult
        out = np.empty((rows.m, 4))
        out[:, 0] = rows.r
        out[:, 1] = np.bincount(rows.row, weights=w * zz, minlength=rows.m)
        out[:, 2] = np.bincount(rows.row, weights=w * zz * zz, minlength=rows.m)
        mean = out[:, 1] / np.maximum(out[:, 0], 1e-300)
        dev = zz - mean[rows.row]
        out[:, 3] = 2.0 * out[:, 0] * np.bincount(rows.row, weights=w * dev * dev, minlength=rows.m)
        return out

    def design(self, rows, codes, weights, m):
        zz = self.z[codes]
        out = np.empty((m, 3))
        out[:, 0] = np.bincount(rows, weights=weights, minlength=m)
        out[:, 1] = np.bincount(rows, weights=weights * zz, minlength=m)
        out[:, 2] = np.bincount(rows, weights=weights * zz * zz, minlength=m)
        return out

    def apply(self, s):
        return s  # three moments are their own applied form

    def dot(self, s, t):
        # Σₖₗ Sₖ(zₖ − zₗ)²Tₗ = S₀T₂ + S₂T₀ − 2S₁T₁   (eq. M)
        return s[..., 0] * t[..., 2] + s[..., 2] * t[..., 0] - 2.0 * s[..., 1] * t[..., 1]

    def lookup(self, s, codes):
        zz = self.z[codes]
        return s[2] - 2.0 * zz * s[1] + zz * zz * s[0]  # (eq. M)

    def cross(self, s, t):
        return self.dot(s, t)

    def at(self, s, codes):
        return self.lookup(s, codes)


def summarize(design, x: np.ndarray) -> np.ndarray:
    """Σᵢ xᵦᵢ · designᵢ for a batch x of row weights (b, m) → (b, p)."""
    if sparse.issparse(design):
        return np.asarray((design.T @ x.T).T)
    return x @ design


# ---------------------------------------------------------------------------- rows


@dataclass(frozen=True, eq=False)
class Rows:
    """Groups of distinct categories with their weights, flat: group g's categories are
    ``codes[ptr[g]:ptr[g + 1]]`` (increasing) and ``mult`` the weight of each (how many
    ratings of an item fall in it, or their summed weight)."""

    ptr: np.ndarray  # int64 (m + 1,)
    codes: np.ndarray  # intp (E,)
    mult: np.ndarray  # float64 (E,)
    row: np.ndarray = field(init=False, repr=False)  # intp (E,): each entry's group

    def __post_init__(self):
        object.__setattr__(self, "row", np.repeat(np.arange(self.m), np.diff(self.ptr)))

    @property
    def m(self) -> int:
        return int(self.ptr.shape[0] - 1)

    @property
    def r(self) -> np.ndarray:
        """Each row's total weight (its number of ratings)."""
        return np.bincount(self.row, weights=self.mult, minlength=self.m)

    def entries(self):
        """Flat (row, code, multiplicity) of every entry."""
        return self.row, self.codes, self.mult


def group_rows(groups: np.ndarray, n_groups: int, codes: np.ndarray, weight: np.ndarray):
    """Entries (each with a group, a category code and a weight) as :class:`Rows`, and
    the entry of the Rows each falls in (``inverse``). O(N + n_groups), one counting
    sort and one compiled pass."""
    ptr, order = _kernels.group_order(np.ascontiguousarray(groups, dtype=np.intp), n_groups)
    out_ptr, out_codes, out_w, inverse = _kernels.distinct_in_groups(
        ptr,
        order,
        np.ascontiguousarray(codes, dtype=np.intp),
        np.ascontiguousarray(weight, dtype=np.float64),
    )
    return Rows(out_ptr, out_codes, out_w), inverse


_NO_ORDER = np.zeros(0, dtype=np.intp)


def gather(ptr: np.ndarray, rows: np.ndarray):
    """The entries of ``rows`` (groups of CSR offsets ``ptr``), concatenated:
    ``(which, entry, offsets)`` — for each gathered entry the position in ``rows`` of its
    row and its index, and the CSR offsets of the gathered rows. O(entries gathered)."""
    lengths = np.diff(ptr)[rows]
    offsets = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    which = np.repeat(np.arange(rows.shape[0]), lengths)
    entry = ptr[:-1][rows][which] + (np.arange(offsets[-1]) - offsets[:-1][which])
    return which, entry, offsets


def item_rows(ptr: np.ndarray, codes: np.ndarray):
    """:func:`group_rows` of entries already grouped by ``ptr`` (items in order), one
    rating each: no sort, no array of indices or of weights."""
    out_ptr, out_codes, out_w, inverse = _kernels.distinct_in_groups(
        ptr, _NO_ORDER, np.ascontiguousarray(codes, dtype=np.intp), _NO_VALUES
    )
    return Rows(out_ptr, out_codes, out_w), inverse


def within(metric, rows: Rows) -> np.ndarray:
    """Each entry's Σ over its row's categories l of mult_l·d(c, l): the row's own
    distribution applied at each of its categories. O(E) for identity, linear and
    squared differences (moments, centred), O(Σ w_g²) for a matrix or the ratio metric."""
    row, codes, mult = rows.entries()
    if isinstance(metric, Identity):
        return rows.r[row] - mult  # rows hold distinct codes
    if isinstance(metric, Moments):
        zz = metric.z[codes]
        s0 = rows.r
        mean = np.bincount(row, weights=mult * zz, minlength=rows.m) / np.maximum(s0, 1e-300)
        dev = zz - mean[row]
        m2 = np.bincount(row, weights=mult * dev * dev, minlength=rows.m)
        return s0[row] * dev * dev + m2[row]  # Σ mult_l (z − z_l)², centred   (eq. M)
    if isinstance(metric, Linear):  # codes, and so values, increase within a row
        return _kernels.linear_within(rows.ptr, metric.y[codes], mult)
    kind, dmat, y, base = metric.kernel_args()
    return _kernels.cross_at(rows.ptr, codes, rows.ptr, codes, mult, kind, dmat, y, base)


def row_pairs(metric, rows: Rows) -> np.ndarray:
    """Σ over ordered pairs of each row's ratings of d (eq. 3)."""
    if isinstance(metric, Identity):
        r = rows.r
        return r * r - np.bincount(rows.row, weights=rows.mult * rows.mult, minlength=rows.m)
    if isinstance(metric, Moments):
        return metric.row_moments(rows)[:, 3]  # centred, exact form
    at = within(metric, rows)
    return np.bincount(rows.row, weights=rows.mult * at, minlength=rows.m)


def padded(rows: Rows) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows as (m, w) arrays of codes and multiplicities (−1 and 0 in empty slots), when
    that costs at most a few times the entries (None otherwise)."""
    widths = np.diff(rows.ptr)
    w = max(1, int(widths.max(initial=0)))
    if rows.m * w > 4 * rows.codes.shape[0] + 1024:
        return None
    codes = np.full((rows.m, w), -1, dtype=np.intp)
    mult = np.zeros((rows.m, w))
    slot = np.arange(rows.codes.shape[0]) - rows.ptr[:-1][rows.row]
    codes[rows.row, slot] = rows.codes
    mult[rows.row, slot] = rows.mult
    return codes, mult


def from_padded(codes: np.ndarray, mult: np.ndarray) -> Rows:
    full = codes >= 0
    ptr = np.zeros(codes.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(full, axis=1), out=ptr[1:])
    return Rows(ptr, codes[full].astype(np.intp), mult[full].astype(np.float64))


def collapse_rows(rows: Rows, *, cheap_only: bool = False, counts=None):
    """:func:`collapse` of :class:`Rows` (identical rows merged, in key order), when
    their padded form is cheap; otherwise the rows as they are (they rarely repeat:
    real-valued ratings, or items of very different numbers of ratings)."""
    weight = np.ones(rows.m) if counts is None else np.asarray(counts, dtype=np.float64)
    dense = padded(rows)
    if dense is None:
        return rows, weight
    (codes, mult), total = collapse(*dense, cheap_only=cheap_only, counts=weight)
    return from_padded(codes, mult), total


def group_keys(key: np.ndarray, weight: np.ndarray, max_groups: int):
    """Groups of equal int64 keys in order of first appearance, by one hashing pass
    (no sort): each group's first index and summed weight (in the order of the items);
    both empty when there are more than ``max_groups`` groups."""
    ids, distinct, ok = _kernels.distinct_ids(key.view(np.uint64), max_groups)
    if not ok:
        return ids, np.empty(0)
    # a group starts where an id first appears: above every id before it
    new = np.empty(ids.shape[0], dtype=bool)
    new[:1] = True
    np.greater(ids[1:], np.maximum.accumulate(ids)[:-1], out=new[1:])
    return np.flatnonzero(new), np.bincount(ids, weights=weight, minlength=distinct.shape[0])


def collapse(*arrays: np.ndarray, cheap_only: bool = False, counts: np.ndarray | None = None):
    """Identical rows of the column-stacked arrays, once each, with their multiplicity.

    ``counts``: how many items each row already stands for (1 each by default); the
    multiplicity of a merged row is their sum. The merged rows come in increasing
    lexicographic order (of a mixed-radix key whose last column is the most
    significant, when one fits in int64), whatever the order of the rows, so that a
    bootstrap draws the same resamples. With ``cheap_only`` the arrays come back
    unchanged unless such a key fits and rows repeat (at most one distinct row in
    ``_DISTINCT_SHARE``)."""
    m = arrays[0].shape[0]
    weight = np.ones(m) if counts is None else np.asarray(counts, dtype=np.float64)
    if m == 0:
        return list(arrays), weight

    def as_int(a):
        return np.ascontiguousarray(a, dtype=np.int64)

    bounds = [_kernels.column_extremes(as_int(a)) for a in arrays]
    lo = np.concatenate([b[0] for b in bounds])
    span = np.concatenate([b[1] for b in bounds]) - lo + 1
    fits = float(np.prod(span.astype(np.float64))) < 2.0**62
    if cheap_only and not fits:
        return list(arrays), weight
    if fits:
        # one mixed-radix int64 key per row, grouped by hashing (no sort of all rows);
        # the groups are then put in the order of their keys, as np.unique's
        radix = np.concatenate([[1], np.cumprod(span[:-1])]).astype(np.int64)
        # = Σ (column − lo)·radix, one array at a time (no stacked copy): int64
        # arithmetic wraps modulo 2**64 and the key is below 2**62, so subtracting
        # lo @ radix afterwards is exact
        key = np.zeros(m, dtype=np.int64)
        start = 0
        for a in arrays:
            width = a.shape[1]
            key += as_int(a) @ radix[start : start + width]
            start += width
        key -= lo @ radix
        first, total = group_keys(key, weight, max(1, m // _DISTINCT_SHARE))
        if total.size == 0:  # most rows are distinct: merging cannot pay
            if cheap_only:
                return list(arrays), weight
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            total = np.bincount(inverse, weights=weight, minlength=first.size)
        else:
            order = np.argsort(key[first])
            first, total = first[order], total[order]
        return [as_int(a[first]) for a in arrays], total
    # np.unique(axis=0)'s order and groups, without its sort of whole rows
    stacked = np.column_stack([as_int(a) for a in arrays])
    order = _lexicographic_order(stacked)
    ordered = stacked[order]
    start = np.ones(m, dtype=bool)
    start[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    first = np.flatnonzero(start)
    uniq = ordered[first]
    total = np.add.reduceat(weight[order], first)
    out, begin = [], 0
    for a in arrays:
        width = a.shape[1]
        out.append(uniq[:, begin : begin + width])
        begin += width
    return out, total


def _lexicographic_order(stacked: np.ndarray) -> np.ndarray:
    """The order of the rows by their first column, then their second, ... (np.unique's
    with ``axis=0``): one sort of the first column, then a full sort of only the rows
    whose first value is shared (few for real-valued ratings)."""
    order = np.argsort(stacked[:, 0], kind="stable")
    lead = stacked[order, 0]
    same = lead[1:] == lead[:-1]
    tied = np.zeros(lead.shape[0], dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():
        sub = order[tied]  # runs of a shared first value, in place in the order
        order[tied] = sub[np.lexsort(stacked[sub].T[::-1])]
    return order


# ---------------------------------------------------------------------------- who rated


@dataclass(frozen=True, eq=False)
class Entries:
    """Ratings of m rows (items, or identical items merged) with who gave them: row i's
    ratings are ``ptr[i]:ptr[i + 1]``, each with its ``rater`` (0 … k − 1, at most one
    per row) and category ``code``. Conger's and Light's kappas read these."""

    ptr: np.ndarray  # int64 (m + 1,)
    rater: np.ndarray  # intp (N,)
    code: np.ndarray  # intp (N,)
    n_raters: int
    item: np.ndarray = field(init=False, repr=False)  # intp (N,): each rating's row

    def __post_init__(self):
        object.__setattr__(self, "item", np.repeat(np.arange(self.m), np.diff(self.ptr)))

    @property
    def m(self) -> int:
        return int(self.ptr.shape[0] - 1)

    def rows(self) -> Rows:
        """Each row's distinct categories and how many of its ratings each holds."""
        return item_rows(self.ptr, self.code)[0]


def collapse_entries(entries: Entries, *, cheap_only: bool = False):
    """Identical rows (the same raters giving the same ratings) merged, in the order of
    :func:`collapse`, when the items × raters layout costs at most a few times the
    ratings (dense panels, where rows repeat); otherwise the rows as they are."""
    m, k, n = entries.m, entries.n_raters, entries.code.shape[0]
    if m * k > 4 * n + 1024:
        return entries, np.ones(m)
    rcodes = np.full((m, k), -1, dtype=np.intp)
    rcodes[entries.item, entries.rater] = entries.code
    (rcodes,), count = collapse(rcodes, cheap_only=cheap_only)
    item, rater = np.nonzero(rcodes >= 0)
    ptr = np.zeros(rcodes.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(item, minlength=rcodes.shape[0]), out=ptr[1:])
    code = rcodes[item, rater].astype(np.intp)
    return Entries(ptr, rater.astype(np.intp), code, k), count
