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

``row_pairs`` gives each row's Σ over ordered pairs of its ratings of d (eq. 3), the
observed disagreement of the Fleiss family.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from qwkit import _kernels

#: Named metrics over at most this many categories that occur get an explicit V×V
#: matrix; larger ones use prefix sums (linear), chunks (ratio) or moments (squared).
TABLE_MAX = 512
#: Chunked work holds about this many float64 entries at once (16 MiB).
_CHUNK = 1 << 21
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


class Identity(_Vector):
    """d = 1 − δₖₗ (nominal data)."""

    def __init__(self, n_categories: int):
        self.v = n_categories

    def pair(self, a, b):
        return (a != b).astype(np.float64)

    def apply(self, s):
        return s.sum(axis=-1, keepdims=True) - s


class Matrix(_Vector):
    """An explicit symmetric V×V disagreement matrix (custom weights, small scales)."""

    def __init__(self, dmat: np.ndarray):
        self.d = np.ascontiguousarray(dmat, dtype=np.float64)
        self.v = self.d.shape[0]

    def pair(self, a, b):
        return self.d[a, b]

    def apply(self, s):
        return s @ self.d


class Linear(_Vector):
    """d = |yₖ − yₗ| over many categories: prefix sums, O(V) per summary."""

    def __init__(self, y: np.ndarray):
        self.y = y  # increasing
        self.v = y.shape[0]

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
        self.y = y  # base / 2 + y ≥ 0
        self.base = float(base)
        self.v = y.shape[0]

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
        step = max(1, _CHUNK // v)
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
        self.z = z
        self.v = z.shape[0]

    def pair(self, a, b):
        diff = self.z[a] - self.z[b]
        return diff * diff

    def rows(self, codes, mult):
        """Each row's (Σ mult, Σ mult·z, Σ mult·z², Pᵢ) in one pass (eqs. 3, M)."""
        return _kernels.moment_rows(
            np.ascontiguousarray(codes, dtype=np.intp),
            np.ascontiguousarray(mult, dtype=np.float64),
            self.z,
        )

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


def row_pairs(metric, codes: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """Σ over ordered pairs of ratings of each row of d (eq. 3).

    ``codes`` (m, w) are each row's distinct categories (−1 where empty) and ``mult``
    (m, w) how many ratings each holds (0 where empty).
    """
    safe = np.maximum(codes, 0)
    r = mult.sum(axis=1)
    if isinstance(metric, Identity):
        return r * r - np.einsum("ij,ij->i", mult, mult)  # rows hold distinct codes
    if isinstance(metric, Moments):
        return metric.rows(codes, mult)[:, 3]  # centred, exact form
    if isinstance(metric, Linear):
        yy = np.where(codes >= 0, metric.y[safe], 0.0)
        order = np.argsort(yy, axis=1, kind="stable")
        ys = np.take_along_axis(yy, order, axis=1)
        ws = np.take_along_axis(mult, order, axis=1)
        before = np.cumsum(ws, axis=1) - ws
        return 2.0 * np.einsum("ij,ij->i", ws * ys, 2.0 * before + ws - r[:, None])
    out = np.zeros(codes.shape[0])
    w = codes.shape[1]
    for j in range(w):
        for k in range(j + 1, w):
            out += mult[:, j] * mult[:, k] * metric.pair(safe[:, j], safe[:, k])
    return 2.0 * out


def compress_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m, r) codes with −1 for missing → each row's distinct codes and their counts.

    Returns (codes, mult), both (m, w) with w the largest number of distinct categories
    in a row; empty slots hold −1 and 0. One pass of :func:`qwkit._kernels.distinct_rows`.
    """
    codes = np.ascontiguousarray(codes, dtype=np.intp)
    r = codes.shape[1]
    v = int(codes.max(initial=-1)) + 1
    out, mult, w = _kernels.distinct_rows(codes, max(1, min(r, v)))
    return out[:, :w], mult[:, :w]


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
    parts = [np.ascontiguousarray(a, dtype=np.int64) for a in arrays]
    m = parts[0].shape[0]
    weight = np.ones(m) if counts is None else np.asarray(counts, dtype=np.float64)
    if m == 0:
        return list(arrays), weight
    bounds = [_kernels.column_extremes(a) for a in parts]
    lo = np.concatenate([b[0] for b in bounds])
    span = np.concatenate([b[1] for b in bounds]) - lo + 1
    fits = float(np.prod(span.astype(np.float64))) < 2.0**62
    if cheap_only and not fits:
        return list(arrays), weight
    stacked = parts[0] if len(parts) == 1 else np.column_stack(parts)
    if fits:
        # one mixed-radix int64 key per row, grouped by hashing (no sort of all rows);
        # the groups are then put in the order of their keys, as np.unique's
        radix = np.concatenate([[1], np.cumprod(span[:-1])]).astype(np.int64)
        # = (stacked − lo) @ radix: int64 arithmetic wraps modulo 2**64 and the key is
        # below 2**62, so subtracting lo @ radix afterwards is exact (and saves a copy)
        key = stacked @ radix - lo @ radix
        first, total = group_keys(key, weight, max(1, m // _DISTINCT_SHARE))
        if total.size == 0:  # most rows are distinct: merging cannot pay
            if cheap_only:
                return list(arrays), weight
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            total = np.bincount(inverse, weights=weight, minlength=first.size)
        else:
            order = np.argsort(key[first])
            first, total = first[order], total[order]
        uniq = stacked[first]
    else:
        # np.unique(axis=0)'s order and groups, without its sort of whole rows
        order = _lexicographic_order(stacked)
        ordered = stacked[order]
        start = np.ones(m, dtype=bool)
        start[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
        first = np.flatnonzero(start)
        uniq = ordered[first]
        total = np.add.reduceat(weight[order], first)
    out, start = [], 0
    for a in arrays:
        width = a.shape[1]
        out.append(uniq[:, start : start + width])
        start += width
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


def entries(codes: np.ndarray, mult: np.ndarray):
    """Flat (row, code, multiplicity) of every non-empty slot."""
    rows, cols = np.nonzero(codes >= 0)
    return rows, codes[rows, cols], mult[rows, cols]
