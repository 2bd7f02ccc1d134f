"""Exact sums of survey weights at the speed of reading them: a window of fixed-point digits.

A finite double w > 0 with biased exponent field E ≥ 1 is m·2^(E − 1075), m < 2**53 its
mantissa with the hidden bit. For every weight whose field lies in a *window*
[L, L + width), w is the integer v = m·2^d, d = E − L, in units of 2^(L − 1075): a
fixed-point number whose digits can be summed with integer adds in vector lanes, no
branch and no per-item normalization. Three layouts:

- **moments** (width 44): v < 2**96 as three 32-bit digits g0, g1, g2; each digit times
  the small integer coefficients of eq. Q (1, a, b, a² + b², ab for ratings below 32)
  is below 2**43, so 2**20 items add in a uint64 lane without overflow;
- **tables** (width 32): v < 2**85 as a low part below 2**42 and a high part below
  2**43 — two integer adds per item into the item's cell, 2**20 items before a flush;
- **bins with squares** (width 32): v as three 32-bit digits (Σw) and v² as six (Σw²),
  every slot below 2**35 per item: 2**28 items without a flush.

Every weight outside the window — far below or above it, subnormal, or not a valid
weight (negative, NaN, infinite) — is an *exception*: the pass does not add it but lists
its index (``exc``, up to the buffer's length; the count goes on), and the caller sums
the exceptions with the general kernels of ``_exact`` and adds the results exactly. Zero
weights (±0.0) are never exceptions: they add nothing. A window placed on a sample of
the weights (:func:`window_start`) holds every weight of any realistic survey weights
(uniform, log-normal, inverse probabilities: ratios up to 2**32, or 2**44); the
exceptions are the rare outliers, and only the blocks that hold one are read twice.

Each pass adds integers only, so its sums do not depend on the order of the items: the
threaded twins split the items in parts and add the parts' integers — the same bits for
any number of threads. No ``fastmath``: there is no floating-point arithmetic here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from qwkit._kernels._exact import normalize_rows
from qwkit._kernels._jit import JIT as _JIT
from qwkit._kernels._jit import PARALLEL as _PAR

#: Binades of the window of :func:`survey_moments` (v < 2**96: three 32-bit digits).
MOMENT_WINDOW = 44
#: Binades of the window of :func:`survey_table` and :func:`survey_bincount` (v < 2**85).
TABLE_WINDOW = 32
#: Ratings must lie in [0, 32) for the coefficients of the moments to stay below 2**11.
SURVEY_RATINGS = 32
#: Items per block: the vectorized pass runs over a block, and a block that holds an
#: exception is read again (from cache) to list it.
BLOCK = 512
#: Items between two flushes of the uint64 lanes (each lane gains < 2**43 per item).
_FLUSH = 1 << 20
#: Limbs (32-bit, in int64) of the rows a table or bin flushes its slots into.
TABLE_LIMBS = 6
SQUARE_LIMBS = 9
#: Weights sampled to place the window.
WINDOW_SAMPLE = 64

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_U42 = np.uint64(42)
_U52 = np.uint64(52)
_U63 = np.uint64(63)
_M32 = np.uint64(0xFFFFFFFF)
_M42 = np.uint64((1 << 42) - 1)
_MANT = np.uint64((1 << 52) - 1)
_HIDDEN = np.uint64(1 << 52)
_RATING_MASK = np.uint64(0x7FFF)
_SUBTABLES = 4
_SUBTABLE_MAX_CELLS = 4096
#: The bits of the mask of occurring positions that are returned (an int64).
_POSITIONS = (1 << 63) - 1


# ---------------------------------------------------------------------------- the window


@njit(**_JIT)
def window_start(bits, step, width):
    """The start L of a window [L, L + width) of exponent fields centred on those of the
    positive normal weights among bits[::step] (1 ≤ L ≤ 0x7FF − width, so that the fields
    of inf and NaN always fall outside). A sample without one gives the window of 1.0."""
    lo = 0x7FF
    hi = -1
    for i in range(0, bits.shape[0], step):
        e = bits[i] >> 52  # negatives and −0.0 have the sign bit: e < 0
        if 0 < e < 0x7FF:
            lo = min(lo, e)
            hi = max(hi, e)
    if hi < 0:
        lo = hi = 1023
    return max(1, min((lo + hi + 1) // 2 - width // 2, 0x7FF - width))


@njit(**_JIT, inline="always")
def _digits(wb, ul, width):
    """(m, d, exception) of a weight's bits: its mantissa m and offset d in the window
    (m = 0 outside it and for ±0.0), and whether it is an exception."""
    d = (wb >> _U52) - ul  # the sign bit puts negatives far outside
    inside = d < width
    zero = (wb << _U1) == _U0
    m = ((wb & _MANT) | _HIDDEN) if inside else _U0
    return m, d & _U63, not (inside or zero)


@njit(**_JIT, inline="always")
def _list(bits, start, stop, ul, width, exc, n_exc):
    """Append the exceptions among items start..stop to ``exc`` (as far as it holds)."""
    for i in range(start, stop):
        wb = np.uint64(bits[i])
        if (wb >> _U52) - ul >= width and (wb << _U1) != _U0:
            if n_exc < exc.shape[0]:
                exc[n_exc] = i
            n_exc += 1
    return n_exc


@njit(**_JIT, inline="always")
def _add128(acc, k, x):
    """The 128-bit number acc[2k] + acc[2k + 1]·2**64 (uint64 words) += x."""
    low = acc[2 * k] + x
    acc[2 * k + 1] += _U1 if low < x else _U0
    acc[2 * k] = low


# ---------------------------------------------------------------------------- moments


@njit(**_JIT, inline="always")
def _moment_block(a, b, bits, ul):
    """The 15 digit sums of one block — digit j of v times coefficient c at 3c + j, for
    the coefficients 1, a, b, a² + b², ab — the OR of the ratings, and whether the block
    holds an exception."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = s9 = s10 = s11 = s12 = s13 = s14 = _U0
    or_v = np.int64(0)
    exc = False
    width = np.uint64(MOMENT_WINDOW)
    for i in range(a.shape[0]):
        x = np.int64(a[i])
        y = np.int64(b[i])
        or_v |= x | y
        m, d, out = _digits(np.uint64(bits[i]), ul, width)
        exc |= out
        v = m << d  # the low 64 bits of m·2^d
        g0 = v & _M32
        g1 = v >> _U32
        g2 = (m >> _U1) >> (_U63 - d)  # m·2^d >> 64 (d ≤ 63: no shift by 64)
        xu = np.uint64(x) & _RATING_MASK  # < 2**15: 32×32-bit multiplies
        yu = np.uint64(y) & _RATING_MASK
        q = xu * xu + yu * yu
        p = xu * yu
        s0 += g0
        s1 += g1
        s2 += g2
        s3 += g0 * xu
        s4 += g1 * xu
        s5 += g2 * xu
        s6 += g0 * yu
        s7 += g1 * yu
        s8 += g2 * yu
        s9 += g0 * q
        s10 += g1 * q
        s11 += g2 * q
        s12 += g0 * p
        s13 += g1 * p
        s14 += g2 * p
    sums = (s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14)
    return sums, or_v, exc


@njit(**_JIT)  # not inlined: numba's parfor analysis fails on its body (numba 0.68)
def _moments(a, b, bits, L, acc, exc):
    """Add the moments of a stretch of items to ``acc`` (30 uint64: 15 sums of 128
    bits); list its exceptions in ``exc``. Returns (OR of the ratings, exceptions)."""
    n = a.shape[0]
    ul = np.uint64(L)
    width = np.uint64(MOMENT_WINDOW)
    part = np.zeros(15, dtype=np.uint64)
    or_v = np.int64(0)
    n_exc = 0
    for start in range(0, n, _FLUSH):
        stop = min(n, start + _FLUSH)
        for s in range(start, stop, BLOCK):
            t = min(stop, s + BLOCK)
            r, ov, out = _moment_block(a[s:t], b[s:t], bits[s:t], ul)
            for k in range(15):
                part[k] += r[k]
            or_v |= ov
            if out:
                n_exc = _list(bits, s, t, ul, width, exc, n_exc)
        for k in range(15):
            _add128(acc, k, part[k])
            part[k] = 0
    return or_v, n_exc


@njit(**_JIT)
def survey_moments(a, b, bits, L, exc):
    """Exact weighted moments of quadratic kappa over the weights in the window
    [L, L + MOMENT_WINDOW): Σv, Σv·a, Σv·b, Σv·(a² + b²), Σv·ab, v = m·2^(E − L) the
    weight in units of 2^(L − 1075).

    ``bits`` are the weights as int64 bit patterns. Returns ``(acc, or_ratings,
    n_exceptions)``: ``acc`` (30,) uint64 holds 15 sums of 128 bits (low word, high
    word) — digit j (weight 2^(32·j)) of v times coefficient c (1, a, b, a² + b², ab) at
    3c + j; the sums are those of the ratings only when ``0 <= or_ratings <
    SURVEY_RATINGS``. The indices of the exceptions are written to ``exc`` (their count
    may exceed its length: then the list is incomplete).
    """
    acc = np.zeros(30, dtype=np.uint64)
    or_v, n_exc = _moments(a, b, bits, L, acc, exc)
    return acc, or_v, n_exc


@njit(**_PAR)
def survey_moments_par(a, b, bits, L, exc):
    """:func:`survey_moments` on the thread pool: ``exc`` is (parts, capacity), one list
    of exceptions per part of the items; returns their counts per part instead of one
    count. The sums of the parts are added as integers: the same sums."""
    n = a.shape[0]
    n_parts = exc.shape[0]
    part = np.zeros((n_parts, 30), dtype=np.uint64)
    ors = np.zeros(n_parts, dtype=np.int64)
    counts = np.zeros(n_parts, dtype=np.int64)
    for t in prange(n_parts):
        s = n * t // n_parts
        e = n * (t + 1) // n_parts
        ov, ne = _moments(a[s:e], b[s:e], bits[s:e], L, part[t], exc[t])
        ors[t] = ov
        counts[t] = ne
    acc = np.zeros(30, dtype=np.uint64)
    or_v = np.int64(0)
    for t in range(n_parts):
        for k in range(15):
            _add128(acc, k, part[t, 2 * k])
            acc[2 * k + 1] += part[t, 2 * k + 1]
        or_v |= ors[t]
    for t in range(n_parts):  # exception indices are relative to the part: make them global
        s = n * t // n_parts
        for j in range(min(counts[t], exc.shape[1])):
            exc[t, j] += s
    return acc, or_v, counts


# ---------------------------------------------------------------------------- tables


@njit(**_JIT, inline="always")
def _table_block(a, b, bits, lo, uk, trash, ul, cell, low, high):
    """Cell (×2) and the two pieces of v (the low 42 bits, the rest) of every item of a
    block, into ``cell``, ``low`` and ``high``; an item off the scale goes to ``trash``. Returns
    the bit mask of positions below 64 that occur, whether an item is off the scale,
    and whether the block holds an exception."""
    present = _U0
    bad = False
    exc = False
    width = np.uint64(TABLE_WINDOW)
    for i in range(a.shape[0]):
        p = np.uint64(np.int64(a[i]) - lo)
        q = np.uint64(np.int64(b[i]) - lo)
        inside = p < uk and q < uk
        bad |= not inside
        present |= (_U1 << (p & _U63)) | (_U1 << (q & _U63))
        m, d, out = _digits(np.uint64(bits[i]), ul, width)
        exc |= out
        d = d & np.uint64(31)
        cell[i] = (p * uk + q if inside else trash) << _U1
        low[i] = (m << d) & _M42
        high[i] = m >> (_U42 - d)
    return present, bad, exc


@njit(**_JIT, inline="always")
def _scatter_pieces(tables, cell, low, high, count):
    """Add the pieces of ``count`` items to their cells; with four sub-tables,
    consecutive items go to different ones (their additions do not wait on each
    other)."""
    t0 = tables[0]
    j = 0
    if tables.shape[0] == 4:
        t1, t2, t3 = tables[1], tables[2], tables[3]
        while j + 4 <= count:
            c = cell[j]
            t0[c] += low[j]
            t0[c + _U1] += high[j]
            c = cell[j + 1]
            t1[c] += low[j + 1]
            t1[c + _U1] += high[j + 1]
            c = cell[j + 2]
            t2[c] += low[j + 2]
            t2[c + _U1] += high[j + 2]
            c = cell[j + 3]
            t3[c] += low[j + 3]
            t3[c + _U1] += high[j + 3]
            j += 4
    while j < count:
        c = cell[j]
        t0[c] += low[j]
        t0[c + _U1] += high[j]
        j += 1


@njit(**_JIT, inline="always")
def _flush_pieces(tables, rows, kk):
    """Move the two pieces of every cell of the sub-tables into ``rows`` (sub-table s,
    cell c at row s·kk + c; the low piece at bit 0, the high one at bit 42)."""
    for s in range(tables.shape[0]):
        t = tables[s]
        for c in range(kk):
            _add_u(rows, s * kk + c, 0, t[2 * c])
            _add_u(rows, s * kk + c, 42, t[2 * c + 1])
            t[2 * c] = 0
            t[2 * c + 1] = 0
    normalize_rows(rows)


@njit(**_JIT, inline="always")
def _add_u(rows, r, s, v):
    """rows[r] += v·2^s for a uint64 v < 2**63 (three 32-bit pieces)."""
    j = s >> 5
    o = np.uint64(s & 31)
    x = (v & _M32) << o
    y = (v >> _U32) << o
    rows[r, j] += np.int64(x & _M32)
    rows[r, j + 1] += np.int64((x >> _U32) + (y & _M32))
    rows[r, j + 2] += np.int64(y >> _U32)


@njit(**_JIT)
def survey_table(a, b, bits, lo, k, L, exc):
    """Exact K×K table of the weights in the window [L, L + TABLE_WINDOW).

    Returns ``(rows, bad, present, n_exceptions)``: rows (S·K·K, TABLE_LIMBS) of
    normalized limbs, value 2^(L − 1075) per unit, for S sub-tables (added by
    ``finish_table``); whether an item lies off the scale [lo, lo + k) (then the table
    and the mask are not meaningful); the bit mask of positions below 63 that occur in
    ``a`` or ``b`` (zero weights included); and the count of exceptions, whose indices
    are written to ``exc`` as far as it holds them.
    """
    kk = k * k
    n_sub = _SUBTABLES if kk <= _SUBTABLE_MAX_CELLS else 1
    tables = np.zeros((n_sub, 2 * (kk + 1)), dtype=np.uint64)
    rows = np.zeros((n_sub * kk, TABLE_LIMBS), dtype=np.int64)
    cell = np.empty(BLOCK, dtype=np.uint64)
    low = np.empty(BLOCK, dtype=np.uint64)
    high = np.empty(BLOCK, dtype=np.uint64)
    uk = np.uint64(k)
    trash = np.uint64(kk)
    ul = np.uint64(L)
    width = np.uint64(TABLE_WINDOW)
    n = a.shape[0]
    present = _U0
    bad = False
    n_exc = 0
    for start in range(0, n, _FLUSH):
        stop = min(n, start + _FLUSH)
        for s in range(start, stop, BLOCK):
            t = min(stop, s + BLOCK)
            pr, off, out = _table_block(
                a[s:t], b[s:t], bits[s:t], lo, uk, trash, ul, cell, low, high
            )
            present |= pr
            bad |= off
            _scatter_pieces(tables, cell, low, high, t - s)
            if out:
                n_exc = _list(bits, s, t, ul, width, exc, n_exc)
        _flush_pieces(tables, rows, kk)
    return rows, bad, np.int64(present & np.uint64(_POSITIONS)), n_exc


# ---------------------------------------------------------------------------- bins


@njit(**_JIT, inline="always")
def _square_slots(g0, g1, g2):
    """The six 32-bit-aligned slots of v² from the digits of v (each below 2**35)."""
    p00 = g0 * g0
    p01 = g0 * g1
    p02 = g0 * g2
    p11 = g1 * g1
    p12 = g1 * g2
    p22 = g2 * g2
    s0 = p00 & _M32
    s1 = (p00 >> _U32) + ((p01 & _M32) << _U1)
    s2 = ((p01 >> _U32) << _U1) + (p11 & _M32) + ((p02 & _M32) << _U1)
    s3 = (p11 >> _U32) + ((p02 >> _U32) << _U1) + ((p12 & _M32) << _U1)
    s4 = ((p12 >> _U32) << _U1) + (p22 & _M32)
    s5 = p22 >> _U32
    return s0, s1, s2, s3, s4, s5


@njit(**_JIT, inline="always")
def _bin_block(bits, ul, digits, squares):
    """The three digits of v and (with ``squares``) the six slots of v² of every item of
    a block, into the rows of ``digits`` (one row per digit or slot, a column per item;
    the last row: 1 for a weight in the window); whether the block holds an exception."""
    width = np.uint64(TABLE_WINDOW)
    exc = False
    for i in range(bits.shape[0]):
        m, d, out = _digits(np.uint64(bits[i]), ul, width)
        exc |= out
        v = m << d
        g0 = v & _M32
        g1 = v >> _U32
        g2 = (m >> _U1) >> (_U63 - d)
        digits[0, i] = g0
        digits[1, i] = g1
        digits[2, i] = g2
        digits[9, i] = _U1 if m != _U0 else _U0
        if squares:
            s0, s1, s2, s3, s4, s5 = _square_slots(g0, g1, g2)
            digits[3, i] = s0
            digits[4, i] = s1
            digits[5, i] = s2
            digits[6, i] = s3
            digits[7, i] = s4
            digits[8, i] = s5
    return exc


@njit(**_JIT)
def survey_bincount(index, bits, n_bins, L, squares, exc):
    """Exact Σv (and, with ``squares``, Σv²) of the weights in the window
    [L, L + TABLE_WINDOW) of every bin, and the count of those weights per bin.

    ``index`` holds each item's bin (validated: in range). Two phases per block, as
    :func:`survey_table`: the digits of v and the slots of v² of the block's items in
    vector lanes, then their additions to the limbs of the items' bins (each limb gains
    less than 2**35 per item; normalized every 2**27 items; few bins are counted in four
    sub-tables, consecutive items in different ones). Returns ``(rows, sq, positive,
    n_exceptions)``: rows (n_bins, TABLE_LIMBS) of Σv, value 2^(L − 1075) per unit; sq
    (n_bins, SQUARE_LIMBS) of Σv², 2^(2L − 2150) per unit (or an empty array); the
    count of window weights per bin (the exceptions, listed in ``exc`` as far as it
    holds them, are counted by the caller).
    """
    n_sub = _SUBTABLES if n_bins <= _SUBTABLE_MAX_CELLS else 1
    rows = np.zeros((n_sub * n_bins, TABLE_LIMBS), dtype=np.int64)
    sq = np.zeros((n_sub * n_bins if squares else 0, SQUARE_LIMBS), dtype=np.int64)
    positive = np.zeros(n_sub * n_bins, dtype=np.int64)
    digits = np.zeros((10, BLOCK), dtype=np.uint64)
    ul = np.uint64(L)
    width = np.uint64(TABLE_WINDOW)
    n = index.shape[0]
    n_exc = 0
    for start in range(0, n, 1 << 27):
        stop = min(n, start + (1 << 27))
        for s in range(start, stop, BLOCK):
            t = min(stop, s + BLOCK)
            out = _bin_block(bits[s:t], ul, digits, squares)
            for j in range(t - s):
                r = (j % n_sub) * n_bins + index[s + j]
                rows[r, 0] += np.int64(digits[0, j])
                rows[r, 1] += np.int64(digits[1, j])
                rows[r, 2] += np.int64(digits[2, j])
                positive[r] += np.int64(digits[9, j])
                if squares:
                    for k in range(6):
                        sq[r, k] += np.int64(digits[3 + k, j])
            if out:
                n_exc = _list(bits, s, t, ul, width, exc, n_exc)
        normalize_rows(rows)
        normalize_rows(sq)
    if n_sub > 1:  # the sub-tables, normalized: their limbs add without overflow
        rows = _fold(rows, n_bins)
        sq = _fold(sq, n_bins) if squares else sq
        positive = positive.reshape((n_sub, n_bins)).sum(axis=0)
    return rows, sq, positive, n_exc


@njit(**_JIT)
def _fold(rows, n_bins):
    """The sum of the sub-tables of ``rows`` (normalized)."""
    out = rows[:n_bins].copy()
    for s in range(1, rows.shape[0] // n_bins):
        out += rows[s * n_bins : (s + 1) * n_bins]
    normalize_rows(out)
    return out
