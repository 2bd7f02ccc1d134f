"""Kernels for agreement among many raters (``docs/agreement.md``).

* :func:`integral_extremes`, :func:`integer_offsets`: whole-numbered float ratings as
  positions on the integer scale from their smallest, in two passes;
* :func:`dense_codes`: ratings' positions on a scale as codes into the categories that
  occur;
* :func:`group_order`, :func:`distinct_in_groups`, :func:`duplicate_raters`: the sparse
  layout — entries grouped by item, rater or pair of raters with one counting sort, each
  group's distinct categories and their weights, a rater's repeated ratings of an item;
* :func:`cross_at`, :func:`cross_batch`, :func:`linear_within`: a group's distribution
  applied at categories, and its bilinear cross-sums with another (for a batch of
  weightings: the bootstrap), under any disagreement (``_disagreement``);
* :func:`pair_incidences`: every two raters of every item (Light's kappa);
  :func:`removal_pairs`: the pair terms of Conger's chance disagreement with an item left
  out (the jackknife);
* :func:`column_extremes`: bounds of the columns that the keys of identical items are
  made of (the keys are grouped by ``_hashing.distinct_ids``);
* :func:`ratio_apply`: Krippendorff's ratio metric applied to a vector of category
  masses, Σₗ Sₗ((yₖ − yₗ)/(yₖ + yₗ))² for every k. The ratio metric has no moment form,
  so this is O(V²) in the V categories; the kernel makes it a tight loop over the upper
  triangle (each pair once) with no V×V temporary.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qwkit._kernels._jit import JIT as _JIT

#: Rows with at most this many ratings are sorted by insertion (no allocation).
_INSERTION_MAX = 32


@njit(**_JIT)
def integral_extremes(values):
    """Whether every value is a whole number, and the smallest and largest value.

    ``values``: 1-D float64, finite, at least one. One pass (no temporaries).
    """
    lo = values[0]
    hi = lo
    integral = True
    for k in range(values.shape[0]):
        x = values[k]
        if x != np.floor(x):
            integral = False
        lo = min(lo, x)
        hi = max(hi, x)
    return integral, lo, hi


@njit(**_JIT)
def integer_offsets(values, lo):
    """int64(values) − lo, wrapping as int64 arithmetic does (exact for any int64 range
    when read as unsigned). ``values``: whole numbers within the int64 range."""
    out = np.empty(values.shape[0], dtype=np.int64)
    for k in range(values.shape[0]):
        out[k] = np.int64(values[k]) - lo
    return out


@njit(**_JIT)
def dense_codes(positions, size):
    """Codes 0..V−1 into the V positions that occur, in increasing order.

    Parameters
    ----------
    positions : ndarray of shape (N,), int64
        Positions on a scale, each in [0, size).
    size : int
        The number of positions on the scale.

    Returns
    -------
    index : ndarray of shape (V,), int64
        The positions that occur, increasing.
    codes : ndarray of shape (N,), intp
        The code of each position: ``index[codes] == positions``.
    """
    lookup = np.zeros(size, dtype=np.intp)
    for k in range(positions.shape[0]):
        lookup[positions[k]] = 1
    v = 0
    for p in range(size):
        if lookup[p]:
            lookup[p] = v
            v += 1
        else:
            lookup[p] = -1
    index = np.empty(v, dtype=np.int64)
    for p in range(size):
        if lookup[p] >= 0:
            index[lookup[p]] = p
    codes = np.empty(positions.shape[0], dtype=np.intp)
    for k in range(positions.shape[0]):
        codes[k] = lookup[positions[k]]
    return index, codes


@njit(**_JIT)
def column_extremes(a):
    """Smallest and largest value of every column of a 2-D integer array (m ≥ 1 rows),
    in one pass over the rows (a reduction down the columns of a C-ordered array)."""
    m, k = a.shape
    lo = np.empty(k, dtype=np.int64)
    hi = np.empty(k, dtype=np.int64)
    for j in range(k):
        lo[j] = a[0, j]
        hi[j] = a[0, j]
    for i in range(1, m):
        for j in range(k):
            x = np.int64(a[i, j])
            lo[j] = min(lo[j], x)
            hi[j] = max(hi[j], x)
    return lo, hi


@njit(**_JIT)
def ratio_apply(y, s, base):
    """out[k] = Σₗ s[l]·((y[k] − y[l])/(base + y[k] + y[l]))², 0/0 read as 0
    (base/2 + y ≥ 0: ``y`` relative to the scale's start, ``base`` twice that start)."""
    v = y.shape[0]
    out = np.zeros(v)
    for k in range(v):
        yk = y[k]
        sk = s[k]
        acc = 0.0
        for m in range(k + 1, v):
            t = base + yk + y[m]
            if t > 0.0:
                d = (yk - y[m]) / t
                d *= d
                acc += s[m] * d
                out[m] += sk * d
        out[k] += acc
    return out


# ---------------------------------------------------------------------------- groups
#
# The sparse layouts of ``docs/agreement.md`` (§2, "How the per-item sums are formed"):
# entries (one per rating, or per distinct category of a group) held in groups by CSR
# offsets ``ptr`` — group g's entries are ``ptr[g]:ptr[g + 1]`` — where a group is an
# item, a rater, or one side of a pair of raters. A disagreement d(a, b) between two
# category codes is read through ``(kind, dmat, y, base)``:
#
# * kind 0: ``dmat[a, b]`` (an explicit V×V matrix);
# * kind 1: 1 − δ_ab (identity);
# * kind 2: |y[a] − y[b]| (linear);
# * kind 3: ((y[a] − y[b])/(base + y[a] + y[b]))², 0/0 read as 0 (Krippendorff's ratio);
# * kind 4: (y[a] − y[b])² (squared differences).


@njit(**_JIT)
def _disagreement(kind, dmat, y, base, a, b):
    if kind == 0:
        return dmat[a, b]
    if kind == 1:
        return 0.0 if a == b else 1.0
    if kind == 2:
        return abs(y[a] - y[b])
    if kind == 3:
        t = base + y[a] + y[b]
        if t > 0.0:
            q = (y[a] - y[b]) / t
            return q * q
        return 0.0
    diff = y[a] - y[b]
    return diff * diff


@njit(**_JIT)
def group_order(keys, n_groups):
    """A stable counting sort of entries by group: ``(ptr, order)`` with group g's entries
    ``order[ptr[g]:ptr[g + 1]]`` in their order in ``keys``.

    ``keys``: (N,) integers in [0, n_groups). O(N + n_groups), no comparison sort.
    """
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    for e in range(keys.shape[0]):
        ptr[keys[e] + 1] += 1
    for g in range(n_groups):
        ptr[g + 1] += ptr[g]
    fill = ptr[:-1].copy()
    order = np.empty(keys.shape[0], dtype=np.intp)
    for e in range(keys.shape[0]):
        g = keys[e]
        order[fill[g]] = e
        fill[g] += 1
    return ptr, order


@njit(**_JIT)
def distinct_in_groups(ptr, order, codes, weight):
    """Each group's distinct codes in increasing order and the summed weight of each.

    Parameters
    ----------
    ptr : ndarray of shape (G + 1,), int64
        Group g's members are ``order[ptr[g]:ptr[g + 1]]``.
    order : ndarray of shape (N,) or (0,), intp
        Entries, grouped; empty: the entries themselves are grouped (entry t is
        ``order[t]`` = t), with no array of N indices.
    codes : ndarray of shape (N,), intp
        Category codes ≥ 0 of the entries.
    weight : ndarray of shape (N,) or (0,), float64
        Weight of each entry; empty: 1 each.

    Returns
    -------
    out_ptr : ndarray of shape (G + 1,), int64
        Group g's distinct codes are ``out_codes[out_ptr[g]:out_ptr[g + 1]]``.
    out_codes : ndarray of shape (E,), intp
    out_weight : ndarray of shape (E,), float64
    inverse : ndarray of shape (N,), intp
        The distinct entry of each entry: ``out_codes[inverse] == codes``.
    """
    n_groups = ptr.shape[0] - 1
    n = codes.shape[0]
    identity = order.shape[0] == 0
    unit = weight.shape[0] == 0
    width = 0
    for g in range(n_groups):
        width = max(width, ptr[g + 1] - ptr[g])
    bc = np.empty(width, dtype=codes.dtype)
    bi = np.empty(width, dtype=np.intp)
    out_ptr = np.zeros(n_groups + 1, dtype=np.int64)
    out_codes = np.empty(n, dtype=codes.dtype)
    out_weight = np.empty(n)
    inverse = np.empty(n, dtype=np.intp)
    pos = 0
    for g in range(n_groups):
        k = 0
        for t in range(ptr[g], ptr[g + 1]):
            e = t if identity else order[t]
            bc[k] = codes[e]
            bi[k] = e
            k += 1
        if k > _INSERTION_MAX:
            idx = np.argsort(bc[:k], kind="mergesort")
            sc = bc[:k][idx]
            si = bi[:k][idx]
            bc[:k] = sc
            bi[:k] = si
        else:
            for t in range(1, k):  # insertion sort: groups hold few entries
                c = bc[t]
                i = bi[t]
                p = t
                while p > 0 and bc[p - 1] > c:
                    bc[p] = bc[p - 1]
                    bi[p] = bi[p - 1]
                    p -= 1
                bc[p] = c
                bi[p] = i
        start = pos
        for t in range(k):
            c = bc[t]
            w = 1.0 if unit else weight[bi[t]]
            if pos > start and out_codes[pos - 1] == c:
                out_weight[pos - 1] += w
            else:
                out_codes[pos] = c
                out_weight[pos] = w
                pos += 1
            inverse[bi[t]] = pos - 1
        out_ptr[g + 1] = pos
    return out_ptr, out_codes[:pos].copy(), out_weight[:pos].copy(), inverse


@njit(**_JIT)
def cross_at(ptr_a, codes_a, ptr_b, codes_b, weight_b, kind, dmat, y, base):
    """For every entry e of A: Σ over the entries f of B in the same group of
    ``weight_b[f]·d(codes_a[e], codes_b[f])`` — a group's distribution B applied at
    each category of A (eqs. 18, 20 of ``docs/agreement.md``). O(Σ_g |A_g|·|B_g|)."""
    out = np.zeros(codes_a.shape[0])
    for g in range(ptr_a.shape[0] - 1):
        for e in range(ptr_a[g], ptr_a[g + 1]):
            a = codes_a[e]
            acc = 0.0
            for f in range(ptr_b[g], ptr_b[g + 1]):
                acc += weight_b[f] * _disagreement(kind, dmat, y, base, a, codes_b[f])
            out[e] = acc
    return out


@njit(**_JIT)
def cross_batch(ptr_a, codes_a, weight_a, ptr_b, codes_b, weight_b, kind, dmat, y, base):
    """Σ_{e∈A_g} Σ_{f∈B_g} weight_a[e, j]·weight_b[f, j]·d(codes_a[e], codes_b[f]) for
    every group g and column j (a batch of b weightings, e.g. bootstrap resamples).

    ``weight_a`` (E_A, b) and ``weight_b`` (E_B, b) are C-contiguous float64; returns
    (G, b). O(Σ_g |A_g|·|B_g|·b)."""
    n_groups = ptr_a.shape[0] - 1
    b = weight_a.shape[1]
    out = np.zeros((n_groups, b))
    for g in range(n_groups):
        for e in range(ptr_a[g], ptr_a[g + 1]):
            a = codes_a[e]
            for f in range(ptr_b[g], ptr_b[g + 1]):
                dd = _disagreement(kind, dmat, y, base, a, codes_b[f])
                if dd != 0.0:
                    for j in range(b):
                        out[g, j] += weight_a[e, j] * weight_b[f, j] * dd
    return out


@njit(**_JIT)
def pair_incidences(item_ptr, rater, n_raters, kept):
    """Every two raters of every item whose pair is one of ``kept`` (sorted uint64 keys
    g·n_raters + h, g < h): ``(pair, first, second)`` with ``pair`` the index of the key
    in ``kept``, ``first`` the entry of rater g and ``second`` that of h; items in
    order. Each lookup is a binary search: O(Σᵢ rᵢ² log P)."""
    n_items = item_ptr.shape[0] - 1
    big = np.uint64(n_raters)
    n_kept = kept.shape[0]
    total = 0
    for _ in range(2):
        pair = np.empty(total, dtype=np.intp)
        first = np.empty(total, dtype=np.intp)
        second = np.empty(total, dtype=np.intp)
        k = 0
        for i in range(n_items):
            for e in range(item_ptr[i], item_ptr[i + 1]):
                for f in range(e + 1, item_ptr[i + 1]):
                    g = rater[e]
                    h = rater[f]
                    a, b = (e, f) if g < h else (f, e)
                    key = np.uint64(min(g, h)) * big + np.uint64(max(g, h))
                    lo = 0
                    hi = n_kept
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if kept[mid] < key:
                            lo = mid + 1
                        else:
                            hi = mid
                    if lo < n_kept and kept[lo] == key:
                        if pair.shape[0] > 0:
                            pair[k] = lo
                            first[k] = a
                            second[k] = b
                        k += 1
        if pair.shape[0] > 0 or k == 0:
            break
        total = k
    return pair, first, second


@njit(**_JIT)
def duplicate_raters(ptr, rater, n_raters, policy):
    """Ratings of an item by a rater who rated it before, in entries grouped by item.

    ``ptr`` (G + 1,): group g (an item) holds positions ``ptr[g]:ptr[g + 1]`` of
    ``rater`` (its raters' codes, in reading order). ``policy``: 0 — find the first
    repeat; 1 — keep each rater's first rating of an item; 2 — keep the last.

    Returns ``(keep, first, second)``: which positions to keep, and with policy 0 the two
    positions of the first repeat found (−1, −1 when there is none).
    """
    n = rater.shape[0]
    keep = np.ones(n, dtype=np.bool_)
    stamp = np.zeros(n_raters, dtype=np.int64)
    at = np.zeros(n_raters, dtype=np.int64)
    for g in range(ptr.shape[0] - 1):
        for t in range(ptr[g], ptr[g + 1]):
            r = rater[t]
            if stamp[r] == g + 1:
                if policy == 0:
                    return keep, at[r], t
                if policy == 1:
                    keep[t] = False
                    continue
                keep[at[r]] = False
            stamp[r] = g + 1
            at[r] = t
    return keep, -1, -1


@njit(**_JIT)
def linear_within(ptr, y, mult):
    """For every entry e of group g: Σ_{f∈g} mult[f]·|y[e] − y[f]|, the values ``y``
    increasing within each group: prefix sums within the group, O(N)."""
    out = np.empty(y.shape[0])
    for g in range(ptr.shape[0] - 1):
        tw = 0.0
        ty = 0.0
        for e in range(ptr[g], ptr[g + 1]):
            tw += mult[e]
            ty += mult[e] * y[e]
        bw = 0.0
        by = 0.0
        for e in range(ptr[g], ptr[g + 1]):
            bw += mult[e]
            by += mult[e] * y[e]
            out[e] = (y[e] * bw - by) + ((ty - by) - y[e] * (tw - bw))
    return out


@njit(**_JIT)
def _applied(ptr, codes, weight, g, x, kind, dmat, y, base):
    """(D S_g)(x): group g's distribution applied at category x."""
    acc = 0.0
    for f in range(ptr[g], ptr[g + 1]):
        acc += weight[f] * _disagreement(kind, dmat, y, base, x, codes[f])
    return acc


@njit(**_JIT)
def removal_pairs(
    ptr, entry, a, b, rater, codes, rptr, rcodes, rweight, moments, kind, dmat, y, base
):
    """Σ over ordered pairs e ≠ f of removal l's entries of δ_eᵀ D δ_f, where
    δ_e = a_e S_g − b_e 1_{x_e} (g the rater of e, S_g its distribution, x_e its rating):
    the cross terms of Conger's chance disagreement with one item left out (eq. 22 of
    ``docs/agreement.md``, for each pair of raters of the item).

    ``ptr`` (L + 1,): removal l's entries are ``entry[ptr[l]:ptr[l + 1]]``, with their
    ``a`` and ``b``; the raters' distributions are groups ``rptr``/``rcodes``/
    ``rweight``; with squared differences (kind 4) and ``moments`` (n_raters, 3) of each
    distribution (Σ S, Σ S·z, Σ S·z²), every term is O(1).
    """
    n = ptr.shape[0] - 1
    out = np.zeros(n)
    use_moments = kind == 4 and moments.shape[0] > 0
    for t in range(n):
        acc = 0.0
        for p in range(ptr[t], ptr[t + 1]):
            e = entry[p]
            ge = rater[e]
            xe = codes[e]
            for q in range(p + 1, ptr[t + 1]):
                f = entry[q]
                gf = rater[f]
                xf = codes[f]
                if use_moments:
                    m0, m1, m2 = moments[ge, 0], moments[ge, 1], moments[ge, 2]
                    n0, n1, n2 = moments[gf, 0], moments[gf, 1], moments[gf, 2]
                    cross = m0 * n2 + m2 * n0 - 2.0 * m1 * n1
                    zf = y[xf]
                    ze = y[xe]
                    e_at_f = m2 - 2.0 * zf * m1 + zf * zf * m0
                    f_at_e = n2 - 2.0 * ze * n1 + ze * ze * n0
                else:
                    cross = 0.0
                    for c in range(rptr[ge], rptr[ge + 1]):
                        cross += rweight[c] * _applied(
                            rptr, rcodes, rweight, gf, rcodes[c], kind, dmat, y, base
                        )
                    e_at_f = _applied(rptr, rcodes, rweight, ge, xf, kind, dmat, y, base)
                    f_at_e = _applied(rptr, rcodes, rweight, gf, xe, kind, dmat, y, base)
                dd = _disagreement(kind, dmat, y, base, xe, xf)
                acc += (
                    a[p] * a[q] * cross
                    - a[p] * b[q] * e_at_f
                    - a[q] * b[p] * f_at_e
                    + b[p] * b[q] * dd
                )
        out[t] = 2.0 * acc
    return out


@njit(**_JIT)
def applied_at_others(item_ptr, rater, codes, ptr, group_codes, values):
    """For every entry e (rater g, item i): Σ over the other entries f of item i of
    ``values`` at (g, codes[f]) — group g's entry of that category, found by binary
    search in ``group_codes[ptr[g]:ptr[g + 1]]`` (increasing; every category of g's
    co-raters is there). O(Σᵢ rᵢ² log w)."""
    out = np.zeros(codes.shape[0])
    for i in range(item_ptr.shape[0] - 1):
        for e in range(item_ptr[i], item_ptr[i + 1]):
            g = rater[e]
            acc = 0.0
            for f in range(item_ptr[i], item_ptr[i + 1]):
                if f == e:
                    continue
                c = codes[f]
                lo = ptr[g]
                hi = ptr[g + 1]
                while lo < hi:
                    mid = (lo + hi) // 2
                    if group_codes[mid] < c:
                        lo = mid + 1
                    else:
                        hi = mid
                acc += values[lo]
            out[e] = acc
    return out
