"""Bootstrap kernels: the weighted tables of resamples of items, filled from the draws.

A bootstrap resample with unequal survey weights draws n items with replacement and
sums their weights per present cell. ``scipy.stats.bootstrap`` draws the items as
``rng.integers(0, n, (B, n))``; :func:`resample_tables` makes those very draws — for
numpy's default bit generator, PCG64, it runs the generator itself (the state is read
from and written back to the numpy ``Generator``), so that the same seed gives the same
resamples — and adds each drawn item's weight to its cell at once, without the (B, n)
array of indices. Cells are summed in the order of the draws, as ``np.bincount`` does:
the tables are those of the reference implementation, to the last bit.

Other bit generators draw with numpy (``rng.integers``) and :func:`gather_tables` sums.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from qwkit._kernels._jit import JIT as _JIT
from qwkit._kernels._jit import PARALLEL as _PAR

#: The multiplier of PCG64's 128-bit linear congruential step (O'Neill 2014), as numpy
#: uses it: 2549297995355413924 · 2**64 + 4865540595714422341.
_MULT_HI = np.uint64(2549297995355413924)
_MULT_LO = np.uint64(4865540595714422341)
_M32 = np.uint64(0xFFFFFFFF)
_U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Hint the processor to fetch arr[idx] into cache (``llvm.prefetch``; never faults,
    so no bounds check is needed)."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, high temporal locality, data cache
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _umulh(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64 (one ``mul`` on x86-64)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        x = builder.zext(args[0], wide)
        y = builder.zext(args[1], wide)
        high = builder.lshr(builder.mul(x, y), ir.Constant(wide, 64))
        return builder.trunc(high, ir.IntType(64))

    return sig, codegen


@njit(**_JIT, inline="always")
def _step(s_hi, s_lo, i_hi, i_lo):
    """One PCG64 step: (state · MULT + inc) mod 2**128, and the XSL-RR output of the new
    state. Returns (s_hi, s_lo, output)."""
    lo = s_lo * _MULT_LO
    hi = _umulh(s_lo, _MULT_LO) + s_hi * _MULT_LO + s_lo * _MULT_HI
    new_lo = lo + i_lo
    hi += i_hi + (np.uint64(1) if new_lo < lo else np.uint64(0))
    x = hi ^ new_lo
    rot = hi >> np.uint64(58)
    out = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    return hi, new_lo, out


@njit(**_JIT, inline="always")
def _draw(s_hi, s_lo, i_hi, i_lo, has, buf, bound):
    """One draw of ``Generator.integers(0, bound + 1)`` (int64) from a PCG64 state —
    state high/low, increment high/low, ``has_uint32`` and ``uinteger`` (numpy's buffer
    of the unused half of a 64-bit output) — exactly as numpy's
    ``random_bounded_uint64_fill`` makes it: Lemire's method on 32-bit outputs for
    bounds below 2**32, on 64-bit outputs above. Returns the new state and the draw."""
    if bound == np.uint64(0):
        return s_hi, s_lo, has, buf, np.uint64(0)
    if bound <= _M32:
        bound_excl = bound + np.uint64(1)
        while True:
            if has:
                has = False
                r = buf
            else:
                s_hi, s_lo, v = _step(s_hi, s_lo, i_hi, i_lo)
                has = True
                buf = v >> np.uint64(32)
                r = v & _M32
            if bound == _M32:
                return s_hi, s_lo, has, buf, r
            m = r * bound_excl
            leftover = m & _M32
            if leftover >= bound_excl or leftover >= (_M32 - bound) % bound_excl:
                return s_hi, s_lo, has, buf, m >> np.uint64(32)
    s_hi, s_lo, x = _step(s_hi, s_lo, i_hi, i_lo)
    if bound == _U64_MAX:
        return s_hi, s_lo, has, buf, x
    bound_excl = bound + np.uint64(1)
    leftover = x * bound_excl
    if leftover < bound_excl:
        threshold = (_U64_MAX - bound) % bound_excl
        while leftover < threshold:
            s_hi, s_lo, x = _step(s_hi, s_lo, i_hi, i_lo)
            leftover = x * bound_excl
    return s_hi, s_lo, has, buf, _umulh(x, bound_excl)


@njit(**_JIT, inline="always")
def _fill(out, count, s_hi, s_lo, i_hi, i_lo, has, buf, bound):
    """out[:count] = ``count`` draws of ``integers(0, bound + 1)``: :func:`_draw` in a
    loop, with the 32-bit case (bounds below 2**32 − 1, the only one a resample of fewer
    than 2**32 items meets) taken two halves of a 64-bit output at a time and Lemire's
    rejection threshold computed once. Returns the new state."""
    if bound == np.uint64(0) or bound >= _M32:
        for j in range(count):
            s_hi, s_lo, has, buf, v = _draw(s_hi, s_lo, i_hi, i_lo, has, buf, bound)
            out[j] = v
        return s_hi, s_lo, has, buf
    bound_excl = bound + np.uint64(1)
    threshold = (_M32 - bound) % bound_excl  # reject a 32-bit value whose low product is below
    j = 0
    if has and count > 0:
        has = False
        m = buf * bound_excl
        if (m & _M32) >= threshold:
            out[j] = m >> np.uint64(32)
            j += 1
    while j < count:
        s_hi, s_lo, v = _step(s_hi, s_lo, i_hi, i_lo)
        m = (v & _M32) * bound_excl
        if (m & _M32) >= threshold:
            out[j] = m >> np.uint64(32)
            j += 1
            if j == count:  # the high half stays in the buffer, as numpy keeps it
                return s_hi, s_lo, True, v >> np.uint64(32)
        buf = v >> np.uint64(32)  # numpy keeps the last high half, used or not
        m = buf * bound_excl
        if (m & _M32) >= threshold:
            out[j] = m >> np.uint64(32)
            j += 1
    return s_hi, s_lo, False, buf


@njit(**_JIT)
def pcg64_integers(st, n, size):
    """``size`` draws of ``Generator.integers(0, n)`` from the PCG64 state ``st``
    (uint64 (6,): state high/low, increment high/low, has_uint32, uinteger; advanced
    in place): numpy's own draws."""
    out = np.empty(size, dtype=np.int64)
    s_hi, s_lo, has, buf = _fill(
        out, size, st[0], st[1], st[2], st[3], st[4] != np.uint64(0), st[5], np.uint64(n - 1)
    )
    st[0], st[1], st[4], st[5] = s_hi, s_lo, np.uint64(has), buf
    return out


#: Draws made ahead of their use, so that the cache lines of the drawn items can be
#: requested long before they are added (random reads of a large array otherwise wait
#: on memory one at a time).
_BATCH = 1024
_AHEAD = 64


@njit(**_JIT, inline="always")
def _add_drawn(row, flat, index, count):
    """Add the weights of the drawn items index[:count] to their cells of ``row``, in
    order, prefetching the items ``_AHEAD`` draws ahead. ``flat`` is the (n, 2) items
    array raveled: weight at 2t, cell at 2t + 1."""
    for j in range(min(count, _AHEAD)):
        _prefetch(flat, 2 * index[j])
    for j in range(count):
        if j + _AHEAD < count:
            _prefetch(flat, 2 * index[j + _AHEAD])
        t = 2 * index[j]
        row[np.int64(flat[t + 1])] += flat[t]


@njit(**_JIT)
def resample_tables(st, items, m, n_rows):
    """Weighted tables of ``n_rows`` bootstrap resamples of the items.

    ``items`` is (n, 2) float64: the weight and the cell (a whole number below ``m``) of
    each item, side by side so that a drawn item costs one cache line. Row r of the
    (n_rows, m) result sums, in the order of the draws, the weights of the n items
    drawn for resample r by ``Generator.integers(0, n, (n_rows, n))`` from the PCG64
    state ``st`` (advanced in place, as :func:`pcg64_integers`).
    """
    n = items.shape[0]
    flat = items.ravel()
    out = np.zeros((n_rows, m))
    index = np.empty(_BATCH, dtype=np.int64)
    bound = np.uint64(n - 1)
    s_hi, s_lo, i_hi, i_lo = st[0], st[1], st[2], st[3]
    has, buf = st[4] != np.uint64(0), st[5]
    for r in range(n_rows):
        row = out[r]
        for start in range(0, n, _BATCH):
            count = min(_BATCH, n - start)
            s_hi, s_lo, has, buf = _fill(index, count, s_hi, s_lo, i_hi, i_lo, has, buf, bound)
            _add_drawn(row, flat, index, count)
    st[0], st[1], st[4], st[5] = s_hi, s_lo, np.uint64(has), buf
    return out


@njit(**_PAR)
def resample_tables_par(st, items, m, n_rows):
    """:func:`resample_tables` with the work shared by threads: the draws are made in
    order on one thread (one random stream), then the rows are summed in parallel, each
    in the order of its draws — the same tables, bit for bit. Holds the (n_rows, n)
    drawn indices (int32: n < 2**31) for the duration of the call."""
    n = items.shape[0]
    flat = items.ravel()
    out = np.zeros((n_rows, m))
    index = np.empty((n_rows, n), dtype=np.int32)
    bound = np.uint64(n - 1)
    s_hi, s_lo, i_hi, i_lo = st[0], st[1], st[2], st[3]
    has, buf = st[4] != np.uint64(0), st[5]
    for r in range(n_rows):
        s_hi, s_lo, has, buf = _fill(index[r], n, s_hi, s_lo, i_hi, i_lo, has, buf, bound)
    st[0], st[1], st[4], st[5] = s_hi, s_lo, np.uint64(has), buf
    for r in prange(n_rows):
        _add_drawn(out[r], flat, index[r], n)
    return out


@njit(**_JIT)
def gather_tables(index, items, m):
    """Weighted tables of resamples whose drawn items are ``index`` (n_rows, n): row r
    sums, in order, the weights of the items index[r] into their cells (see
    :func:`resample_tables`)."""
    n_rows = index.shape[0]
    flat = items.ravel()
    out = np.zeros((n_rows, m))
    for r in range(n_rows):
        _add_drawn(out[r], flat, index[r], index.shape[1])
    return out
