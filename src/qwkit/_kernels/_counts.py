"""Counting kernels: the sufficient statistics of weighted kappa in one pass.

Inputs are 1-D integer arrays of any integer dtype (numba specializes per dtype, so a
user's ``int8`` data is never widened to a copy); every value is read once and widened
to ``int64`` in a register. The API layer guarantees that ``uint64`` inputs fit in
``int64`` and that shapes match.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from qwkit._kernels._jit import JIT as _JIT
from qwkit._kernels._jit import PARALLEL as _PAR

# Limb decomposition for the overflow-proof path: a shifted value u < 2**64 is
# u = l0 + l1 * 2**22 + l2 * 2**44 with every limb < 2**22, so a product of two limbs
# is < 2**44, a group of three such products is < 2**46, and 2**16 items of one group
# sum to < 2**62: exact in int64.
LIMB_BITS = 22
LIMB_CHUNK = 1 << 16
_LIMB_MASK = np.uint64((1 << LIMB_BITS) - 1)
_SHIFT1 = np.uint64(LIMB_BITS)
_SHIFT2 = np.uint64(2 * LIMB_BITS)
#: Small counting tables (K² ≤ 4096 cells) are split into this many sub-tables (see
#: :func:`confusion_counts`); larger ones are not, to keep memory at one table.
_SUBTABLES = 4
_SUBTABLE_MAX_CELLS = 4096
#: Bit pattern of +inf: below it lie exactly the finite non-negative doubles.
_INF_BITS = np.uint64(0x7FF0000000000000)


@njit(**_JIT)
def minmax2(a, b):
    """Smallest and largest value of ``a`` and of ``b``: (amin, amax, bmin, bmax)."""
    amin = np.int64(a[0])
    amax = amin
    bmin = np.int64(b[0])
    bmax = bmin
    for i in range(a.shape[0]):
        x = np.int64(a[i])
        y = np.int64(b[i])
        amin = min(amin, x)
        amax = max(amax, x)
        bmin = min(bmin, y)
        bmax = max(bmax, y)
    return amin, amax, bmin, bmax


#: Items per block of :func:`distinct_extremes`.
_SKETCH_BLOCK = 1024


@njit(**_JIT)
def _merge_extremes(x, low, high, n_low, n_high):
    """Merge the values of ``x`` into the sketch, value by value (most cost two
    compares: those between the k-th smallest and the k-th largest)."""
    k = low.shape[0]
    for i in range(x.shape[0]):
        v = np.int64(x[i])
        if n_low < k or v < low[n_low - 1]:
            j = n_low
            while j > 0 and low[j - 1] > v:
                j -= 1
            if j == 0 or low[j - 1] != v:
                end = min(n_low, k - 1)
                for t in range(end, j, -1):
                    low[t] = low[t - 1]
                low[j] = v
                n_low = min(n_low + 1, k)
        if n_high < k or v > high[n_high - 1]:
            j = n_high
            while j > 0 and high[j - 1] < v:
                j -= 1
            if j == 0 or high[j - 1] != v:
                end = min(n_high, k - 1)
                for t in range(end, j, -1):
                    high[t] = high[t - 1]
                high[j] = v
                n_high = min(n_high + 1, k)
    return n_low, n_high


@njit(**_JIT)
def distinct_extremes(x, low, high, n_low, n_high):
    """Merge the values of ``x`` into the k smallest and k largest distinct values.

    ``low`` (ascending) and ``high`` (descending) are int64 arrays of length k whose
    first ``n_low`` and ``n_high`` entries hold the values found so far (0 and 0 on a
    first call); returns the new (n_low, n_high). One pass, block by block: a block whose
    values span fewer than 64 integers (a rating scale) is reduced in vector lanes to
    the bit set of the values it holds, and only those few distinct values are merged;
    other blocks are merged value by value.
    """
    n = x.shape[0]
    distinct = np.empty(64, dtype=np.int64)
    for s in range(0, n, _SKETCH_BLOCK):
        y = x[s : s + _SKETCH_BLOCK]  # a slice: its loops vectorize
        lo = np.int64(y[0])
        hi = lo
        for i in range(y.shape[0]):
            v = np.int64(y[i])
            lo = min(lo, v)
            hi = max(hi, v)
        span = np.uint64(hi) - np.uint64(lo)
        if span >= np.uint64(64):
            n_low, n_high = _merge_extremes(y, low, high, n_low, n_high)
            continue
        ulo = np.uint64(lo)
        bits = np.uint64(0)
        for i in range(y.shape[0]):
            bits |= np.uint64(1) << (np.uint64(np.int64(y[i])) - ulo)
        count = 0
        for j in range(np.int64(span) + 1):
            if (bits >> np.uint64(j)) & np.uint64(1):
                distinct[count] = lo + j
                count += 1
        n_low, n_high = _merge_extremes(distinct[:count], low, high, n_low, n_high)
    return n_low, n_high


@njit(**_JIT)
def five_sums_checked(a, b):
    """Σa, Σb, Σa², Σb², Σab in int64, with the extremes of both arrays.

    Products are formed from the values truncated to int32 (vector ``vpmuldq``), and the
    extremes are tracked in the input dtype. The caller trusts the sums only when the
    returned extremes show ``max|v| < 2**31`` and ``n * max|v|**2 < 2**63``; otherwise
    it calls :func:`five_sums_shifted` or :func:`five_sums_limbs`.
    """
    sa = np.int64(0)
    sb = np.int64(0)
    saa = np.int64(0)
    sbb = np.int64(0)
    sab = np.int64(0)
    amin = a[0]
    amax = amin
    bmin = b[0]
    bmax = bmin
    for i in range(a.shape[0]):
        u = a[i]
        v = b[i]
        x = np.int64(u)
        y = np.int64(v)
        x32 = np.int64(np.int32(x))
        y32 = np.int64(np.int32(y))
        sa += x
        sb += y
        saa += x32 * x32
        sbb += y32 * y32
        sab += x32 * y32
        amin = min(amin, u)
        amax = max(amax, u)
        bmin = min(bmin, v)
        bmax = max(bmax, v)
    return sa, sb, saa, sbb, sab, np.int64(amin), np.int64(amax), np.int64(bmin), np.int64(bmax)


@njit(**_JIT)
def five_sums_shifted(a, b, lo):
    """The five sums of ``a - lo`` and ``b - lo`` (exact when n·(max−lo)² < 2**63)."""
    sa = np.int64(0)
    sb = np.int64(0)
    saa = np.int64(0)
    sbb = np.int64(0)
    sab = np.int64(0)
    for i in range(a.shape[0]):
        x = np.int64(a[i]) - lo
        y = np.int64(b[i]) - lo
        sa += x
        sb += y
        saa += x * x
        sbb += y * y
        sab += x * y
    return sa, sb, saa, sbb, sab


@njit(**_JIT)
def five_sums_limbs(a, b, lo):
    """Exact five sums of ``a - lo`` and ``b - lo`` for any int64 range.

    Returns an (n_chunks, 21) int64 array of per-chunk partial sums, by limb (see
    ``LIMB_BITS``): columns 0–2 Σ limbs of a, 3–5 Σ limbs of b, then Σa², Σb², Σab
    split by power of 2**22 (five columns each). The caller adds the chunks and the
    powers with Python integers.
    """
    n = a.shape[0]
    n_chunks = (n + LIMB_CHUNK - 1) // LIMB_CHUNK
    out = np.zeros((n_chunks, 21), dtype=np.int64)
    ulo = np.uint64(lo)
    for c in range(n_chunks):
        start = c * LIMB_CHUNK
        stop = min(n, start + LIMB_CHUNK)
        row = out[c]
        for i in range(start, stop):
            u = np.uint64(np.int64(a[i])) - ulo
            v = np.uint64(np.int64(b[i])) - ulo
            a0 = np.int64(u & _LIMB_MASK)
            a1 = np.int64((u >> _SHIFT1) & _LIMB_MASK)
            a2 = np.int64(u >> _SHIFT2)
            b0 = np.int64(v & _LIMB_MASK)
            b1 = np.int64((v >> _SHIFT1) & _LIMB_MASK)
            b2 = np.int64(v >> _SHIFT2)
            row[0] += a0
            row[1] += a1
            row[2] += a2
            row[3] += b0
            row[4] += b1
            row[5] += b2
            row[6] += a0 * a0
            row[7] += 2 * a0 * a1
            row[8] += 2 * a0 * a2 + a1 * a1
            row[9] += 2 * a1 * a2
            row[10] += a2 * a2
            row[11] += b0 * b0
            row[12] += 2 * b0 * b1
            row[13] += 2 * b0 * b2 + b1 * b1
            row[14] += 2 * b1 * b2
            row[15] += b2 * b2
            row[16] += a0 * b0
            row[17] += a0 * b1 + a1 * b0
            row[18] += a0 * b2 + a1 * b1 + a2 * b0
            row[19] += a1 * b2 + a2 * b1
            row[20] += a2 * b2
    return out


@njit(**_JIT, inline="always")
def _cell(x, y, lo, uk, trash):
    """Cell (a − lo)·K + (b − lo) of one item as an unsigned index, or ``trash`` (the
    extra last cell) when the item is off the scale — a select, not a branch."""
    p = np.uint64(np.int64(x) - lo)
    q = np.uint64(np.int64(y) - lo)
    return p * uk + q if p < uk and q < uk else trash


@njit(**_JIT, inline="always")
def _count_into(tables, a, b, lo, k):
    """Count the (a − lo, b − lo) pairs of a stretch of items into ``tables`` (S, K·K + 1),
    S = 1 or 4: with four, consecutive items go to different sub-tables, so that
    increments of one cell do not wait on each other; an item off the scale goes to the
    extra last cell."""
    uk = np.uint64(k)
    trash = np.uint64(k * k)
    n = a.shape[0]
    t0 = tables[0]
    start = 0
    if tables.shape[0] == 4:
        t1, t2, t3 = tables[1], tables[2], tables[3]
        start = n - n % 4
        for i in range(0, start, 4):
            t0[_cell(a[i], b[i], lo, uk, trash)] += 1
            t1[_cell(a[i + 1], b[i + 1], lo, uk, trash)] += 1
            t2[_cell(a[i + 2], b[i + 2], lo, uk, trash)] += 1
            t3[_cell(a[i + 3], b[i + 3], lo, uk, trash)] += 1
    for i in range(start, n):
        t0[_cell(a[i], b[i], lo, uk, trash)] += 1


@njit(**_JIT, inline="always")
def _n_tables(kk):
    return _SUBTABLES if kk <= _SUBTABLE_MAX_CELLS else 1


@njit(**_JIT, inline="always")
def _finish_counts(tables, a, b, lo, k):
    kk = k * k
    total = tables.sum(axis=0)
    if total[kk] > 0:
        bad_a, bad_b = _first_out_of_range(a, b, lo, np.uint64(k))
        return total[:kk].reshape((k, k)), bad_a, bad_b
    return total[:kk].reshape((k, k)), -1, -1


@njit(**_JIT)
def confusion_counts(a, b, lo, k):
    """K×K int64 table of (a − lo, b − lo) pairs.

    Returns ``(table, bad_a, bad_b)``: the index of the first item of ``a`` (or ``b``)
    whose position falls outside [0, k), or −1 (then the table is not meaningful).
    """
    kk = k * k
    tables = np.zeros((_n_tables(kk), kk + 1), dtype=np.int64)
    _count_into(tables, a, b, lo, k)
    return _finish_counts(tables, a, b, lo, k)


@njit(**_PAR)
def confusion_counts_par(a, b, lo, k, n_parts):
    """:func:`confusion_counts` on the thread pool: one set of sub-tables for each of
    ``n_parts`` parts of the items (one per thread), added at the end (integer counts:
    the same table)."""
    kk = k * k
    n = a.shape[0]
    tables = np.zeros((n_parts, _n_tables(kk), kk + 1), dtype=np.int64)
    for t in prange(n_parts):
        s = n * t // n_parts
        e = n * (t + 1) // n_parts
        _count_into(tables[t], a[s:e], b[s:e], lo, k)
    return _finish_counts(tables.sum(axis=0), a, b, lo, k)


@njit(**_JIT)
def confusion_weighted(a, b, w, lo, k):
    """K×K float64 table of (a − lo, b − lo) pairs, each counted with weight ``w``.

    Same contract as :func:`confusion_counts`, plus a fourth result: a bit mask of the
    positions below 64 that occur in ``a`` or ``b`` at all (zero weight included), so
    that the scale of zero-weight items is known without a second pass.
    """
    kk = k * k
    mask = _SUBTABLES - 1 if kk <= _SUBTABLE_MAX_CELLS else 0
    tables = np.zeros((mask + 1, kk), dtype=np.float64)
    uk = np.uint64(k)
    present = np.uint64(0)
    one = np.uint64(1)
    n = a.shape[0]
    bad = False
    for i in range(n):
        p = np.uint64(np.int64(a[i]) - lo)
        q = np.uint64(np.int64(b[i]) - lo)
        if p >= uk or q >= uk:
            bad = True
            break
        present |= (one << (p & np.uint64(63))) | (one << (q & np.uint64(63)))
        tables[i & mask, p * uk + q] += w[i]
    if bad:
        bad_a, bad_b = _first_out_of_range(a, b, lo, uk)
        return tables[0].reshape((k, k)), bad_a, bad_b, present
    return tables.sum(axis=0).reshape((k, k)), -1, -1, present


@njit(**_JIT)
def pair_cells(a, b, lo, k):
    """The cell (a − lo)·K + (b − lo) of every item (int64), in one vectorized pass, and
    the first item of ``a`` (or of ``b``) whose position falls outside [0, K): (index, −1)
    or (−1, index), or (−1, −1) — then the cells are not meaningful."""
    n = a.shape[0]
    out = np.empty(n, dtype=np.int64)
    uk = np.uint64(k)
    bad = False
    for i in range(n):
        p = np.uint64(np.int64(a[i]) - lo)
        q = np.uint64(np.int64(b[i]) - lo)
        bad |= not (p < uk and q < uk)
        out[i] = np.int64(p * uk + q)
    if bad:
        bad_a, bad_b = _first_out_of_range(a, b, lo, uk)
        return out, bad_a, bad_b
    return out, -1, -1


@njit(**_JIT)
def _first_out_of_range(a, b, lo, uk):
    """(index in a, −1) or (−1, index in b) of the first position outside [0, k)."""
    for i in range(a.shape[0]):
        if np.uint64(np.int64(a[i]) - lo) >= uk:
            return i, -1
        if np.uint64(np.int64(b[i]) - lo) >= uk:
            return -1, i
    return -1, -1


@njit(**_JIT)
def scan_weights(w):
    """Index of the first weight that is NaN, infinite or negative (−1 if none), and
    whether any weight is positive. Used to validate sample weights.

    Fast path: read as uint64, the finite non-negative doubles are exactly the bit
    patterns below that of +inf (NaNs lie above it, and everything with the sign bit
    set — negatives, −0.0 — above 2**63), so one vectorized integer max decides. Only
    when it fails does the scalar scan locate the first bad weight.
    """
    bits = w.view(np.uint64)
    top = np.uint64(0)
    for i in range(bits.shape[0]):
        top = max(top, bits[i])
    if top < _INF_BITS:
        return -1, top > 0
    positive = False
    for i in range(w.shape[0]):
        x = w[i]
        if not (x >= 0.0 and x < np.inf):
            return i, positive
        positive |= x > 0.0
    return -1, positive
