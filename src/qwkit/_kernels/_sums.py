"""Moment kernels: the sufficient statistics of named weights without a K×K table.

Quadratic kappa needs five sums (Σa, Σb, Σa², Σb², Σab); linear and unweighted kappa
need the two margins and one per-item sum (Σ min(a, b), Σ [a = b]). All are
vectorizable reductions — no scatter into a table — so they run at the speed of
reading the ratings. Every sum is an exact integer; each kernel returns a bound (the
OR of the values read) from which the caller decides whether the sums are exact and
the fast path applies, and otherwise falls back to a general kernel.

Each kernel has a threaded twin (``*_par``) that reduces chunks of ``CHUNK`` items on
numba's thread pool and adds their integer results: the same sums, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from qwkit._kernels._jit import CHUNK as _CHUNK
from qwkit._kernels._jit import JIT as _JIT
from qwkit._kernels._jit import PARALLEL as _PAR

#: Items per block of the int32 sums of narrow ratings: with every value below 128,
#: 2**15 · 2 · 127² < 2**31, so no block sum can overflow int32.
NARROW_BLOCK = 1 << 15
#: Ratings below this bound are counted by the packed-margin kernels (8-bit counters).
MARGIN_CLASSES = 8
_MARGIN_BLOCK = 248  # items per block of 8-bit counters (< 256, a multiple of 8)
_BYTE = np.uint64(0xFF)
_ONE = np.uint64(1)
_SEVEN = np.uint64(7)
_THREE = np.uint64(3)
_I32_MIN = -(2**31)
_I32_MAX = 2**31 - 1


# ---------------------------------------------------------------------------- quadratic


@njit(**_JIT, inline="always")
def _five(a, b):
    """Five sums of one stretch of items, read as two interleaved halves.

    Reading the first and the second half in the same loop keeps four streams of
    loads in flight instead of two, which brings the pass to the speed of a bare read
    of both arrays (benchmarks/README.md). Products are formed from the values
    truncated to int32 (one ``vpmuldq`` each); the sums Σa, Σb use the values as read.
    """
    n = a.shape[0]
    h = n // 2
    sa = sb = saa = sbb = sab = orr = np.int64(0)
    ta = tb = taa = tbb = tab = ort = np.int64(0)
    for i in range(h):
        x = np.int64(a[i])
        y = np.int64(b[i])
        u = np.int64(a[i + h])
        v = np.int64(b[i + h])
        orr |= x | y
        ort |= u | v
        x32 = np.int64(np.int32(x))
        y32 = np.int64(np.int32(y))
        u32 = np.int64(np.int32(u))
        v32 = np.int64(np.int32(v))
        sa += x
        sb += y
        ta += u
        tb += v
        saa += x32 * x32
        sbb += y32 * y32
        sab += x32 * y32
        taa += u32 * u32
        tbb += v32 * v32
        tab += u32 * v32
    for i in range(2 * h, n):
        x = np.int64(a[i])
        y = np.int64(b[i])
        orr |= x | y
        x32 = np.int64(np.int32(x))
        y32 = np.int64(np.int32(y))
        sa += x
        sb += y
        saa += x32 * x32
        sbb += y32 * y32
        sab += x32 * y32
    return sa + ta, sb + tb, saa + taa, sbb + tbb, sab + tab, orr | ort


@njit(**_JIT)
def five_sums(a, b):
    """Σa, Σb, Σa², Σb², Σab for small non-negative ratings, and the OR of every value.

    The caller trusts the sums only when ``0 <= or_all < 2**31`` (no negative value,
    every value exact in int32) and ``n * or_all**2 < 2**63`` (no int64 overflow: the
    largest value is at most the OR of all); otherwise it calls
    :func:`five_sums_checked`.
    """
    return _five(a, b)


@njit(**_PAR)
def five_sums_par(a, b):
    """:func:`five_sums` on the thread pool (same contract, same sums)."""
    n = a.shape[0]
    n_chunks = (n + _CHUNK - 1) // _CHUNK
    part = np.zeros((n_chunks, 6), dtype=np.int64)
    for c in prange(n_chunks):
        s = c * _CHUNK
        e = min(n, s + _CHUNK)
        r = _five(a[s:e], b[s:e])
        for j in range(6):
            part[c, j] = r[j]
    sa = sb = saa = sbb = sab = orr = np.int64(0)
    for c in range(n_chunks):
        sa += part[c, 0]
        sb += part[c, 1]
        saa += part[c, 2]
        sbb += part[c, 3]
        sab += part[c, 4]
        orr |= part[c, 5]
    return sa, sb, saa, sbb, sab, orr


@njit(**_JIT, inline="always")
def _five_narrow_block(a, b):
    """Σa, Σb, Σ(a² + b²), Σab of one block in int32 lanes (eight items per vector
    instruction), and the extremes of the values (as int32)."""
    sa = sb = s2 = sab = np.int32(0)
    hi = np.int32(_I32_MIN)
    lo = np.int32(_I32_MAX)
    for i in range(a.shape[0]):
        x = np.int32(a[i])
        y = np.int32(b[i])
        sa = np.int32(sa + x)
        sb = np.int32(sb + y)
        s2 = np.int32(s2 + x * x)
        s2 = np.int32(s2 + y * y)
        sab = np.int32(sab + x * y)
        hi = max(hi, max(x, y))
        lo = min(lo, min(x, y))
    return sa, sb, s2, sab, hi, lo


@njit(**_JIT, inline="always")
def _five_narrow(a, b):
    sa = sb = s2 = sab = np.int64(0)
    hi = np.int32(_I32_MIN)
    lo = np.int32(_I32_MAX)
    for s in range(0, a.shape[0], NARROW_BLOCK):
        t = s + NARROW_BLOCK
        x, y, z, w, h, m = _five_narrow_block(a[s:t], b[s:t])
        sa += x
        sb += y
        s2 += z
        sab += w
        hi = max(hi, h)
        lo = min(lo, m)
    return sa, sb, s2, sab, np.int64(hi), np.int64(lo)


@njit(**_JIT)
def five_sums_narrow(a, b):
    """Σa, Σb, Σ(a² + b²), Σab of int8/int16/int32 ratings with int32 arithmetic per
    block of ``NARROW_BLOCK`` items, and the largest and the smallest value (read as
    int32).

    Exact only when the extremes show every value in [0, 128) (every block sum then
    fits in int32); the caller checks and otherwise calls :func:`five_sums`.
    """
    return _five_narrow(a, b)


@njit(**_PAR)
def five_sums_narrow_par(a, b):
    """:func:`five_sums_narrow` on the thread pool."""
    n = a.shape[0]
    n_chunks = (n + _CHUNK - 1) // _CHUNK
    part = np.zeros((n_chunks, 6), dtype=np.int64)
    for c in prange(n_chunks):
        s = c * _CHUNK
        e = min(n, s + _CHUNK)
        r = _five_narrow(a[s:e], b[s:e])
        for j in range(6):
            part[c, j] = r[j]
    out = np.zeros(6, dtype=np.int64)
    out[4] = _I32_MIN
    out[5] = _I32_MAX
    for c in range(n_chunks):
        for j in range(4):
            out[j] += part[c, j]
        out[4] = max(out[4], part[c, 4])
        out[5] = min(out[5], part[c, 5])
    return out[0], out[1], out[2], out[3], out[4], out[5]


# ---------------------------------------------------------------------------- margins


@njit(**_JIT, inline="always")
def _margin_block(a, b, linear):
    """Packed margins of one block of at most 255 items: byte c of ``ha`` counts the
    values of a equal to c (c < 8); likewise ``hb``. Also Σ min(a, b) (``linear``) or
    the count of a = b, and the OR of the values (negative or ≥ 8: not countable)."""
    ha = hb = np.uint64(0)
    pair = orr = np.int64(0)
    for i in range(a.shape[0]):
        p = np.int64(a[i])
        q = np.int64(b[i])
        orr |= p | q
        ha += _ONE << ((np.uint64(p) & _SEVEN) << _THREE)
        hb += _ONE << ((np.uint64(q) & _SEVEN) << _THREE)
        if linear:
            pair += min(p, q)
        else:
            pair += p == q
    return ha, hb, pair, orr


@njit(**_JIT, inline="always")
def _margins(a, b, linear, out):
    """Add the margins of a stretch of items to ``out`` (int64, 18 entries: hist_a[8],
    hist_b[8], Σ min or #equal, OR)."""
    for s in range(0, a.shape[0], _MARGIN_BLOCK):
        t = s + _MARGIN_BLOCK
        ha, hb, pair, orr = _margin_block(a[s:t], b[s:t], linear)
        for c in range(8):
            sh = np.uint64(8 * c)
            out[c] += np.int64((ha >> sh) & _BYTE)
            out[8 + c] += np.int64((hb >> sh) & _BYTE)
        out[16] += pair
        out[17] |= orr


@njit(**_JIT)
def margins(a, b, linear):
    """Margins of ratings below ``MARGIN_CLASSES``, for linear and unweighted kappa
    without a table.

    Returns int64 (18,): counts of a = 0..7, counts of b = 0..7, Σ min(a, b) (with
    ``linear``) or the number of items with a = b, and the OR of all values. Exact
    only when ``0 <= OR < 8``; the caller checks (and otherwise counts a table).
    """
    out = np.zeros(18, dtype=np.int64)
    if linear:
        _margins(a, b, True, out)
    else:
        _margins(a, b, False, out)
    return out


@njit(**_PAR)
def margins_par(a, b, linear):
    """:func:`margins` on the thread pool."""
    n = a.shape[0]
    n_chunks = (n + _CHUNK - 1) // _CHUNK
    part = np.zeros((n_chunks, 18), dtype=np.int64)
    for c in prange(n_chunks):
        s = c * _CHUNK
        e = min(n, s + _CHUNK)
        if linear:
            _margins(a[s:e], b[s:e], True, part[c])
        else:
            _margins(a[s:e], b[s:e], False, part[c])
    out = np.zeros(18, dtype=np.int64)
    for c in range(n_chunks):
        for j in range(17):
            out[j] += part[c, j]
        out[17] |= part[c, 17]
    return out


# ---------------------------------------------------------------------------- survey weights

_M32 = np.uint64(0xFFFFFFFF)
_MANT = np.uint64((1 << 52) - 1)
_HIDDEN = np.uint64(1 << 52)
_RATING_MASK = np.uint64(0x7FFF)
#: Exponent window of :func:`survey_sums`: every positive weight must have its biased
#: exponent field in [e0, e0 + 8), so that m·2^(E − e0) < 2**60.
SURVEY_WINDOW = 8
#: Items per block of :func:`survey_sums`: a 32-bit half of a weight times a
#: coefficient below 2**11 is below 2**43, and 2**19 of them stay below 2**62.
_SURVEY_BLOCK = 1 << 19
#: Ratings must lie in [0, 32) for the coefficients to stay below 2**11.
SURVEY_RATINGS = 32


@njit(**_JIT)
def survey_window(bits, step):
    """The start e0 of an exponent window [e0, e0 + SURVEY_WINDOW) holding the exponent
    fields of the positive finite weights among bits[::step], centred on them; −1 when
    there is none, or when they alone span more than the window or include subnormals
    (then the general path sums the weights). e0 ≤ 0x7FF − SURVEY_WINDOW, so that the
    fields of inf and NaN always fall outside the window."""
    lo = 0x7FF
    hi = -1
    for i in range(0, bits.shape[0], step):
        e = bits[i] >> 52  # negatives and −0.0 have the sign bit: e < 0
        if 0 <= e < 0x7FF and bits[i] != 0:
            lo = min(lo, e)
            hi = max(hi, e)
    slack = SURVEY_WINDOW - 1 - (hi - lo)
    if hi < 0 or lo == 0 or slack < 0:
        return -1
    return max(1, min(lo - slack // 2, 0x7FF - SURVEY_WINDOW))


@njit(**_JIT, inline="always")
def _survey_block(a, b, bits, e0):
    """Ten exact partial sums of one block (see :func:`survey_sums`), the OR of the
    ratings and the OR of the exponent offsets of the nonzero weights."""
    w_lo = w_hi = a_lo = a_hi = b_lo = b_hi = q_lo = q_hi = p_lo = p_hi = np.uint64(0)
    or_v = np.int64(0)
    or_d = np.uint64(0)
    ue0 = np.uint64(e0)
    for i in range(a.shape[0]):
        x = np.int64(a[i])
        y = np.int64(b[i])
        or_v |= x | y
        wb = np.uint64(bits[i])
        d = (wb >> np.uint64(52)) - ue0  # exponent offset; NaN, inf, −0.0 and negatives
        zero = wb == np.uint64(0)  # land far outside [0, 8) and fail the check
        or_d |= np.uint64(0) if zero else d
        v = ((wb & _MANT) | _HIDDEN) << (d & _SEVEN)  # the weight in units of 2^(e0−1075)
        v = np.uint64(0) if zero else v
        lo = v & _M32
        hi = v >> np.uint64(32)
        xu = np.uint64(x) & _RATING_MASK  # < 2**15: products use 32×32-bit multiplies
        yu = np.uint64(y) & _RATING_MASK
        q = xu * xu + yu * yu
        p = xu * yu
        w_lo += lo
        w_hi += hi
        a_lo += lo * xu
        a_hi += hi * xu
        b_lo += lo * yu
        b_hi += hi * yu
        q_lo += lo * q
        q_hi += hi * q
        p_lo += lo * p
        p_hi += hi * p
    return (w_lo, w_hi, a_lo, a_hi, b_lo, b_hi, q_lo, q_hi, p_lo, p_hi), or_v, or_d


@njit(**_JIT, inline="always")
def _add128(acc, k, x):
    """The 128-bit number acc[2k] + acc[2k + 1]·2**64 (uint64 words) += x."""
    low = acc[2 * k] + x
    acc[2 * k + 1] += np.uint64(1) if low < x else np.uint64(0)
    acc[2 * k] = low


@njit(**_JIT)  # not inlined: numba's parfor analysis fails on its body (numba 0.68)
def _survey(a, b, bits, e0, acc):
    """Add the sums of a stretch of items to ``acc`` (20 uint64); return the ORs."""
    or_v = np.int64(0)
    or_d = np.uint64(0)
    for s in range(0, a.shape[0], _SURVEY_BLOCK):
        t = s + _SURVEY_BLOCK
        r, ov, od = _survey_block(a[s:t], b[s:t], bits[s:t], e0)
        for k in range(10):
            _add128(acc, k, r[k])
        or_v |= ov
        or_d |= od
    return or_v, or_d


@njit(**_JIT)
def survey_sums(a, b, bits, e0):
    """Exact weighted moments of quadratic kappa: Σv, Σv·a, Σv·b, Σv·(a² + b²), Σv·ab.

    ``bits`` are the float64 weights as int64 bit patterns; a weight m·2^(E − 1075) is
    taken as v = m·2^(E − e0), an integer below 2**60, in units of 2^(e0 − 1075). Each
    sum is kept in two halves — over the low and the high 32 bits of v — as 128-bit
    integers: ``acc`` (20,) uint64, the low and the high 64-bit word of Σlo, then of Σhi,
    for each moment in the order above. One vectorized pass, no table; it also
    validates the weights on the way.

    Returns ``(acc, or_ratings, or_offsets)``. The sums are exact only when
    ``0 <= or_ratings < SURVEY_RATINGS`` and ``or_offsets < SURVEY_WINDOW`` (every
    nonzero weight finite, positive, normal and within the window; zero weights count
    for nothing); the caller checks and otherwise takes the general path, which also
    reports invalid weights.
    """
    acc = np.zeros(20, dtype=np.uint64)
    or_v, or_d = _survey(a, b, bits, e0, acc)
    return acc, or_v, or_d


@njit(**_PAR)
def survey_sums_par(a, b, bits, e0):
    """:func:`survey_sums` on the thread pool (128-bit sums of the chunks added)."""
    n = a.shape[0]
    n_chunks = (n + _CHUNK - 1) // _CHUNK
    part = np.zeros((n_chunks, 20), dtype=np.uint64)
    ors = np.zeros((n_chunks, 2), dtype=np.uint64)
    for c in prange(n_chunks):
        s = c * _CHUNK
        e = min(n, s + _CHUNK)
        ov, od = _survey(a[s:e], b[s:e], bits[s:e], e0, part[c])
        ors[c, 0] = np.uint64(ov)
        ors[c, 1] = od
    acc = np.zeros(20, dtype=np.uint64)
    or_v = np.uint64(0)
    or_d = np.uint64(0)
    for c in range(n_chunks):
        for k in range(10):
            _add128(acc, k, part[c, 2 * k])
            acc[2 * k + 1] += part[c, 2 * k + 1]
        or_v |= ors[c, 0]
        or_d |= ors[c, 1]
    return acc, np.int64(or_v), or_d
