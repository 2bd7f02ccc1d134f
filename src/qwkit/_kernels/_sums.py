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
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1


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
    """Σa, Σb, Σa², Σb², Σab for small non-negative ratings, and a bound on the values.

    The bound is the OR of every value: negative when a value is, else at least the
    largest. The caller trusts the sums only when ``0 <= bound < 2**31`` (no negative
    value, every value exact in int32) and ``n * bound**2 < 2**63`` (no int64
    overflow); otherwise it calls :func:`five_sums_checked`.
    """
    return _five(a, b)


@njit(**_PAR)
def five_sums_par(a, b):
    """:func:`five_sums` on the thread pool: the same sums; the bound is the largest
    value, or −1 when a value is negative (the same contract).

    One plain loop over the items that numba splits among the threads, each adding its
    part with two load streams: the access pattern of the two-thread memory floor. The
    two interleaved halves of :func:`five_sums`, which keep one thread's loads in
    flight, cost more than they give when two threads already share the memory
    (``benchmarks/README.md``, "Threads").
    """
    sa = sb = saa = sbb = sab = np.int64(0)
    hi = np.int64(_I64_MIN)
    lo = np.int64(_I64_MAX)
    for i in prange(a.shape[0]):
        x = np.int64(a[i])
        y = np.int64(b[i])
        hi = max(hi, max(x, y))
        lo = min(lo, min(x, y))
        x32 = np.int64(np.int32(x))
        y32 = np.int64(np.int32(y))
        sa += x
        sb += y
        saa += x32 * x32
        sbb += y32 * y32
        sab += x32 * y32
    return sa, sb, saa, sbb, sab, hi if lo >= 0 else np.int64(-1)


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
def _count(h, p):
    """``h`` with byte ``p & 7`` counted once more (a packed 8-bit counter)."""
    return h + (_ONE << ((np.uint64(p) & _SEVEN) << _THREE))


@njit(**_JIT, inline="always")
def _margin_quarters(a0, b0, a1, b1, a2, b2, a3, b3, linear):
    """:func:`_margin_block` of four blocks of equal length at once (one from each
    quarter of a stretch): eight packed counters, and Σ min or #equal and the OR over
    the four."""
    h0 = g0 = h1 = g1 = h2 = g2 = h3 = g3 = np.uint64(0)
    pair = orr = np.int64(0)
    for i in range(a0.shape[0]):
        p0 = np.int64(a0[i])
        q0 = np.int64(b0[i])
        p1 = np.int64(a1[i])
        q1 = np.int64(b1[i])
        p2 = np.int64(a2[i])
        q2 = np.int64(b2[i])
        p3 = np.int64(a3[i])
        q3 = np.int64(b3[i])
        orr |= p0 | q0 | p1 | q1 | p2 | q2 | p3 | q3
        h0 = _count(h0, p0)
        g0 = _count(g0, q0)
        h1 = _count(h1, p1)
        g1 = _count(g1, q1)
        h2 = _count(h2, p2)
        g2 = _count(g2, q2)
        h3 = _count(h3, p3)
        g3 = _count(g3, q3)
        if linear:
            pair += min(p0, q0) + min(p1, q1) + min(p2, q2) + min(p3, q3)
        else:
            pair += (p0 == q0) + (p1 == q1) + (p2 == q2) + (p3 == q3)
    return h0, g0, h1, g1, h2, g2, h3, g3, pair, orr


@njit(**_JIT, inline="always")
def _add_margins(out, ha, hb, pair, orr):
    """Unpack a block's counters into ``out`` (see :func:`_margins`)."""
    for c in range(8):
        sh = np.uint64(8 * c)
        out[c] += np.int64((ha >> sh) & _BYTE)
        out[8 + c] += np.int64((hb >> sh) & _BYTE)
    out[16] += pair
    out[17] |= orr


@njit(**_JIT, inline="always")
def _margins(a, b, linear, out):
    """Add the margins of a stretch of items to ``out`` (int64, 18 entries: hist_a[8],
    hist_b[8], Σ min or #equal, OR).

    The stretch is read as four interleaved quarters, blocks of at most 248 items from
    each in the same loop: eight streams of loads in flight instead of two, which brings
    the pass to the speed of a bare read of both arrays (1.05–1.08× at 10⁷–10⁸ items,
    1.7× read as one stream; benchmarks/README.md, kernel anatomy)."""
    n = a.shape[0]
    q = n // 4
    for s in range(0, q, _MARGIN_BLOCK):
        t = min(s + _MARGIN_BLOCK, q)
        h0, g0, h1, g1, h2, g2, h3, g3, pair, orr = _margin_quarters(
            a[s:t], b[s:t], a[q + s : q + t], b[q + s : q + t],
            a[2 * q + s : 2 * q + t], b[2 * q + s : 2 * q + t],
            a[3 * q + s : 3 * q + t], b[3 * q + s : 3 * q + t], linear,
        )  # fmt: skip
        _add_margins(out, h0, g0, pair, orr)
        _add_margins(out, h1, g1, 0, 0)
        _add_margins(out, h2, g2, 0, 0)
        _add_margins(out, h3, g3, 0, 0)
    if n > 4 * q:  # the last n mod 4 items
        ha, hb, pair, orr = _margin_block(a[4 * q :], b[4 * q :], linear)
        _add_margins(out, ha, hb, pair, orr)


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
