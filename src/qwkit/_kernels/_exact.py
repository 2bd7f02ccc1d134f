"""Exact sums of doubles: fixed-point limbs, so that the sum does not depend on the order.

A finite double x ≥ 0 is m·2^(p − 1074) with an integer mantissa m < 2**53 and a bit
position p = max(E, 1) − 1, E being its biased exponent field. A sum of such values is
kept exactly as a row of *limbs* — int64 slots, limb j weighing 2^(32·j) — above a base
position: adding m at position p adds three 32-bit pieces of m·2^(p mod 32) to three
consecutive limbs. Every limb receives less than 2**33 per addition, so rows are
*normalized* (carries propagated: every limb but the top one in [0, 2**32)) long
before an int64 could overflow. A normalized row is an exact integer; rows of
different pieces merge by integer addition, and :func:`round_rows` rounds each one
once, correctly (to nearest, ties to even).

Inputs are validated by the caller: weights finite and non-negative, positions in
range. No ``fastmath``: every operation here is integer arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from qwkit._kernels._jit import JIT as _JIT

#: Bits per limb.
LIMB_BITS = 32
#: Spare limbs above the highest piece of a window: room for the carries of 2**64 items.
SPARE_LIMBS = 2
#: Rows are normalized after this many additions to one row (each adds < 2**33 per limb).
NORMALIZE_EVERY = 1 << 26
_M32 = (1 << 32) - 1
_ABS = (1 << 63) - 1
_INF_BITS = 0x7FF0000000000000
_MANT = (1 << 52) - 1
_HIDDEN = 1 << 52
_M27 = (1 << 27) - 1
#: Subtables for small tables: consecutive items of one cell do not wait on each other.
_SUBTABLES = 4
_SUBTABLE_MAX_CELLS = 4096
#: Fixed offsets of the full-range rows of :func:`soft_sums`: a sum of products of d
#: doubles sits at bit position (Σ p) + offset, with value 2^(position − 1074·d).
SOFT_LIMBS = 210


@njit(**_JIT, inline="always")
def _add(rows, r, s, v):
    """rows[r] += v·2^s for 0 ≤ v < 2**63, s ≥ 0 (three 32-bit pieces)."""
    j = s >> 5
    o = s & 31
    x = (v & _M32) << o
    y = (v >> 32) << o
    rows[r, j] += x & _M32
    rows[r, j + 1] += (x >> 32) + (y & _M32)
    rows[r, j + 2] += y >> 32


@njit(**_JIT, inline="always")
def _sub(rows, r, s, v):
    """rows[r] −= v·2^s (signed rows: the soft-kappa sums)."""
    j = s >> 5
    o = s & 31
    x = (v & _M32) << o
    y = (v >> 32) << o
    rows[r, j] -= x & _M32
    rows[r, j + 1] -= (x >> 32) + (y & _M32)
    rows[r, j + 2] -= y >> 32


@njit(**_JIT)
def normalize_rows(rows):
    """Propagate carries in place: every limb but the top one in [0, 2**32)."""
    n_limbs = rows.shape[1]
    for r in range(rows.shape[0]):
        carry = np.int64(0)
        for j in range(n_limbs - 1):
            x = rows[r, j] + carry
            carry = x >> 32  # floor division: exact for negative limbs too
            rows[r, j] = x & _M32
        rows[r, n_limbs - 1] += carry


@njit(**_JIT, inline="always")
def _decode(b):
    """(mantissa, position) of a non-negative double given as int64 bits."""
    e = (b >> 52) & 0x7FF
    m = b & _MANT
    if e > 0:
        return m | _HIDDEN, e - 1
    return m, np.int64(0)


@njit(**_JIT)
def weight_span(bits):
    """(lowest, highest) biased exponent field of the positive weights, and whether any
    weight is positive. Non-negative doubles order as their bit patterns (−0.0, with
    the sign bit, is below every one of them)."""
    lo = np.int64(0x7FF0000000000000)
    hi = np.int64(0)
    for i in range(bits.shape[0]):
        b = bits[i]
        hi = max(hi, b)
        lo = min(lo, b if b > 0 else lo)
    if hi == 0:
        return np.int64(0), np.int64(0), False
    return lo >> 52, hi >> 52, True


@njit(**_JIT)
def weight_extremes(w):
    """(smallest, largest, smallest positive, largest) weight and the count of positive
    ones, in one pass (weights validated: finite, non-negative; n ≥ 1).

    On the bit patterns, with the sign bit cleared (−0.0 is 0.0): non-negative doubles
    order as their bits, so the pass is integer minima, maxima and a count, in vector
    lanes."""
    bits = w.view(np.int64)
    lo = hi = bits[0] & _ABS
    pos_lo = _INF_BITS
    count = 0
    for i in range(bits.shape[0]):
        b = bits[i] & _ABS
        lo = min(lo, b)
        hi = max(hi, b)
        pos_lo = min(pos_lo, b if b > 0 else _INF_BITS)
        count += b > 0
    as_float = np.array([lo, hi, pos_lo], dtype=np.int64).view(np.float64)
    return as_float[0], as_float[1], as_float[2], count


def window(bits: np.ndarray) -> tuple[int, int]:
    """(base, n_limbs) of rows that hold exact sums of these weights over their whole
    range: ``base`` a multiple of 32 below the lowest bit position of a positive weight,
    ``n_limbs`` enough limbs above it (the general kernels below; the windowed passes of
    ``_survey`` need no such pass over the weights)."""
    elo, ehi, positive = weight_span(bits)
    elo, ehi = int(elo), int(ehi)
    if not positive:
        return 0, 1
    plo, phi = max(elo - 1, 0), max(ehi - 1, 0)
    base = (plo >> 5) << 5
    return base, ((phi - base) >> 5) + 3 + SPARE_LIMBS


@njit(**_JIT)
def confusion_exact(a, b, bits, lo, k, base, n_limbs):
    """Exact K×K table of weights: rows (K·K, n_limbs) of limbs above bit ``base``.

    Same contract as ``confusion_weighted``: the first out-of-range item of ``a`` (or
    ``b``) or −1, and a bit mask of the positions below 64 that occur. The limbs are
    laid out limb-major during the pass (limb j of every cell together).
    """
    kk = k * k
    mask = _SUBTABLES - 1 if kk <= _SUBTABLE_MAX_CELLS else 0
    n_rows = (mask + 1) * kk
    flat = np.zeros(n_limbs * n_rows, dtype=np.int64)
    uk = np.uint64(k)
    present = np.uint64(0)
    one = np.uint64(1)
    n = a.shape[0]
    bad = False
    done = 0
    while done < n and not bad:
        stop = min(n, done + NORMALIZE_EVERY)
        for i in range(done, stop):
            p = np.uint64(np.int64(a[i]) - lo)
            q = np.uint64(np.int64(b[i]) - lo)
            if p >= uk or q >= uk:
                bad = True
                break
            present |= (one << (p & np.uint64(63))) | (one << (q & np.uint64(63)))
            wb = bits[i]
            if wb << 1 == 0:  # ±0.0
                continue
            m, pos = _decode(wb)
            r = (i & mask) * kk + np.int64(p * uk + q)
            s = pos - base
            j = (s >> 5) * n_rows + r
            o = s & 31
            x = (m & _M32) << o
            y = (m >> 32) << o
            flat[j] += x & _M32
            flat[j + n_rows] += (x >> 32) + (y & _M32)
            flat[j + 2 * n_rows] += y >> 32
        rows = np.ascontiguousarray(flat.reshape((n_limbs, n_rows)).T)
        normalize_rows(rows)
        flat = np.ascontiguousarray(rows.T).ravel()
        done = stop
    rows = np.ascontiguousarray(flat.reshape((n_limbs, n_rows)).T)
    return rows, bad, present


@njit(**_JIT)
def finish_table(rows, a, b, lo, k, bad, present):
    """The K×K rows of a counting pass (its sub-tables added), the first out-of-range
    item of ``a`` or ``b`` (or −1), and the mask. Kept out of the counting kernels:
    a call after their loop slows the loop itself down by half."""
    uk = np.uint64(k)
    kk = k * k
    mask = rows.shape[0] // kk - 1
    if bad:
        ba = -1
        bb = -1
        for i in range(a.shape[0]):
            if np.uint64(np.int64(a[i]) - lo) >= uk:
                ba = i
                break
            if np.uint64(np.int64(b[i]) - lo) >= uk:
                bb = i
                break
        return rows[:kk], ba, bb, present
    out = rows[:kk].copy()
    for s in range(1, mask + 1):
        out += rows[s * kk : (s + 1) * kk]
    normalize_rows(out)
    return out, -1, -1, present


@njit(**_JIT)
def bincount_exact(index, bits, n_bins, base, n_limbs, squares):
    """Exact Σw (and, with ``squares``, Σw²) of the items of every bin.

    Σw² is kept exactly too: m² = h²·2^54 + 2hl·2^27 + l² (m = h·2^27 + l), three
    pieces at position 2p (rows of the squares have base 2·``base``). Returns the rows
    of Σw, those of Σw² (or an empty array), and the count of positive weights per bin.
    """
    rows = np.zeros((n_bins, n_limbs), dtype=np.int64)
    sq_limbs = 2 * n_limbs + 2 if squares else 1
    sq = np.zeros((n_bins if squares else 0, sq_limbs), dtype=np.int64)
    positive = np.zeros(n_bins, dtype=np.int64)
    n = index.shape[0]
    done = 0
    while done < n:
        stop = min(n, done + NORMALIZE_EVERY)
        for i in range(done, stop):
            wb = bits[i]
            if wb << 1 == 0:  # ±0.0
                continue
            m, pos = _decode(wb)
            r = index[i]
            _add(rows, r, pos - base, m)
            positive[r] += 1
            if squares:
                h = m >> 27
                low = m & _M27
                s2 = 2 * (pos - base)
                _add(sq, r, s2 + 54, h * h)
                _add(sq, r, s2 + 27, 2 * h * low)
                _add(sq, r, s2, low * low)
        normalize_rows(rows)
        if squares:
            normalize_rows(sq)
        done = stop
    return rows, sq, positive


@njit(**_JIT)
def reduce_rows(rows, index, n_out):
    """Normalized rows summed by ``index`` (row r goes to output index[r]), normalized:
    limbs below 2**32, so 2**30 rows add to one output before a normalization."""
    out = np.zeros((n_out, rows.shape[1] + 1), dtype=np.int64)
    for start in range(0, rows.shape[0], 1 << 30):
        for r in range(start, min(rows.shape[0], start + (1 << 30))):
            o = index[r]
            for j in range(rows.shape[1]):
                out[o, j] += rows[r, j]
        normalize_rows(out)
    return out


@njit(**_JIT)
def round_rows(rows, exponent):
    """Each normalized non-negative row, times 2**exponent, rounded to the nearest double
    (ties to even). Returns the values and a flag per row whose result is subnormal
    (the caller rounds those with Python integers); overflow gives inf."""
    n_rows, n_limbs = rows.shape
    out = np.zeros(n_rows)
    tiny = np.zeros(n_rows, dtype=np.bool_)
    for r in range(n_rows):
        t = n_limbs - 1
        while t >= 0 and rows[r, t] == 0:
            t -= 1
        if t < 0:
            continue
        l2 = rows[r, t]
        l1 = rows[r, t - 1] if t >= 1 else np.int64(0)
        l0 = rows[r, t - 2] if t >= 2 else np.int64(0)
        sticky = False
        for j in range(t - 2):
            if rows[r, j] != 0:
                sticky = True
                break
        if l2 >= (np.int64(1) << 32):  # a top limb above 32 bits: split it first
            tiny[r] = True
            continue
        nb = math.frexp(float(l2))[1]  # bit length of the top limb, 1..32
        d = 32 - nb
        # W' = W·2^d: the 96-bit window with its top bit at position 95
        u2 = ((l2 << d) | (l1 >> (32 - d))) & _M32
        u1 = ((l1 << d) | (l0 >> (32 - d))) & _M32
        u0 = (l0 << d) & _M32
        q = (u2 << 21) | (u1 >> 11)  # the top 53 bits
        half = (u1 >> 10) & 1
        rest = (u1 & 0x3FF) != 0 or u0 != 0 or sticky
        e = exponent + 32 * (t - 2) + 43 - d
        if half == 1 and (rest or (q & 1) == 1):
            q += 1
            if q == (np.int64(1) << 53):
                q = np.int64(1) << 52
                e += 1
        if e + 52 < -1022:
            tiny[r] = True
            continue
        out[r] = math.ldexp(float(q), e)
    return out, tiny


@njit(**_JIT, inline="always")
def _decode_signed(b):
    """(mantissa, position, negative) of any finite double given as int64 bits."""
    e = (b >> 52) & 0x7FF
    m = b & _MANT
    if e > 0:
        return m | _HIDDEN, e - 1, b < 0
    return m, np.int64(0), b < 0


@njit(**_JIT, inline="always")
def _add_signed(rows, r, s, v, negative):
    if negative:
        _sub(rows, r, s, v)
    else:
        _add(rows, r, s, v)


@njit(**_JIT, inline="always")
def _product2(rows, r, s, ma, mb, negative):
    """rows[r] ± ma·mb·2^s exactly: three pieces of the 106-bit product."""
    ha = ma >> 27
    la = ma & _M27
    hb = mb >> 27
    lb = mb & _M27
    _add_signed(rows, r, s + 54, ha * hb, negative)
    _add_signed(rows, r, s + 27, ha * lb + la * hb, negative)
    _add_signed(rows, r, s, la * lb, negative)


@njit(**_JIT, inline="always")
def _product3(rows, r, s, mw, ma, mb, negative):
    """rows[r] ± mw·ma·mb·2^s exactly: five pieces of the 159-bit product."""
    ha = ma >> 27
    la = ma & _M27
    hb = mb >> 27
    lb = mb & _M27
    c2 = ha * hb  # at 54
    c1 = ha * lb + la * hb  # at 27
    c0 = la * lb  # at 0
    hw = mw >> 27
    lw = mw & _M27
    c2h, c2l = c2 >> 27, c2 & _M27
    c1h, c1l = c1 >> 27, c1 & _M27
    c0h, c0l = c0 >> 27, c0 & _M27
    _add_signed(rows, r, s + 108, hw * c2h, negative)
    _add_signed(rows, r, s + 81, hw * c2l + lw * c2h + hw * c1h, negative)
    _add_signed(rows, r, s + 54, lw * c2l + hw * c1l + lw * c1h + hw * c0h, negative)
    _add_signed(rows, r, s + 27, lw * c1l + hw * c0l + lw * c0h, negative)
    _add_signed(rows, r, s, lw * c0l, negative)


@njit(**_JIT)
def soft_sums(ybits, fbits):
    """Exact Σy, Σf (rows 0, 1; value 2^(−1074) per unit) and Σy², Σf², Σyf (rows 2–4;
    2^(−2148) per unit) of finite doubles, over the full double range."""
    rows = np.zeros((5, SOFT_LIMBS), dtype=np.int64)
    n = ybits.shape[0]
    done = 0
    while done < n:
        stop = min(n, done + NORMALIZE_EVERY // 8)
        for i in range(done, stop):
            my, py, ny = _decode_signed(ybits[i])
            mf, pf, nf = _decode_signed(fbits[i])
            _add_signed(rows, 0, py, my, ny)
            _add_signed(rows, 1, pf, mf, nf)
            _product2(rows, 2, 2 * py, my, my, False)
            _product2(rows, 3, 2 * pf, mf, mf, False)
            _product2(rows, 4, py + pf, my, mf, ny != nf)
        normalize_rows(rows)
        done = stop
    return rows


@njit(**_JIT)
def soft_sums_weighted(ybits, fbits, wbits):
    """Exact Σw (row 0; 2^(−1074) per unit), Σwy, Σwf (rows 1, 2; 2^(−2148)) and Σwy²,
    Σwf², Σwyf (rows 3–5; 2^(−3222)) of finite doubles, weights ≥ 0."""
    rows = np.zeros((6, SOFT_LIMBS), dtype=np.int64)
    n = ybits.shape[0]
    done = 0
    while done < n:
        stop = min(n, done + NORMALIZE_EVERY // 8)
        for i in range(done, stop):
            wb = wbits[i]
            if wb == 0:
                continue
            mw, pw = _decode(wb)
            my, py, ny = _decode_signed(ybits[i])
            mf, pf, nf = _decode_signed(fbits[i])
            _add(rows, 0, pw, mw)
            _product2(rows, 1, pw + py, mw, my, ny)
            _product2(rows, 2, pw + pf, mw, mf, nf)
            _product3(rows, 3, pw + 2 * py, mw, my, my, False)
            _product3(rows, 4, pw + 2 * pf, mw, mf, mf, False)
            _product3(rows, 5, pw + py + pf, mw, my, mf, ny != nf)
        normalize_rows(rows)
        done = stop
    return rows
