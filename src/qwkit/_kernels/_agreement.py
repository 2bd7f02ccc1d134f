"""Kernels for agreement among many raters (``docs/agreement.md``).

* :func:`integral_extremes`, :func:`integer_offsets`: whole-numbered float ratings as
  positions on the integer scale from their smallest, in two passes;
* :func:`dense_codes` and :func:`scatter_codes`: ratings' positions on a scale as
  codes into the categories that occur, laid out items × raters (−1 where missing);
* :func:`distinct_rows`: each item's distinct categories and how many of its ratings
  each holds — the (codes, multiplicities) layout every pooled coefficient reads — in
  one pass over the items × raters codes, with no row-wise sort of the whole matrix;
* :func:`moment_rows`: each item's moments Σ, Σz, Σz² and its sum over ordered pairs of
  squared differences (eqs. 3, M), in one pass, for squared-difference metrics;
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
def scatter_codes(present, codes):
    """The items × raters matrix of codes, −1 where no rating, and ratings per item.

    Parameters
    ----------
    present : ndarray of shape (n, r), bool
        Which ratings were given.
    codes : ndarray of shape (present.sum(),), intp
        Their codes, in row-major order.

    Returns
    -------
    out : ndarray of shape (n, r), intp
        ``codes`` where ``present``, −1 elsewhere.
    per_item : ndarray of shape (n,), int64
        How many ratings each item has.
    per_rater : ndarray of shape (r,), int64
        How many ratings each rater gave.
    """
    n, r = present.shape
    out = np.empty((n, r), dtype=np.intp)
    per_item = np.zeros(n, dtype=np.int64)
    per_rater = np.zeros(r, dtype=np.int64)
    k = 0
    for i in range(n):
        for j in range(r):
            if present[i, j]:
                out[i, j] = codes[k]
                k += 1
                per_item[i] += 1
                per_rater[j] += 1
            else:
                out[i, j] = -1
    return out, per_item, per_rater


@njit(**_JIT)
def distinct_rows(codes, width):
    """Each row's distinct codes in increasing order and their multiplicities.

    Parameters
    ----------
    codes : ndarray of shape (m, r), intp
        Category codes ≥ 0, −1 where a rating is missing.
    width : int
        A bound on the number of distinct codes in a row (min(r, V) for V categories).

    Returns
    -------
    out : ndarray of shape (m, width), intp
        Row i's distinct codes in increasing order, then −1.
    mult : ndarray of shape (m, width), float64
        How many of row i's ratings hold each code, then 0.
    w : int
        The largest number of distinct codes in a row (at least 1): the columns of
        ``out`` and ``mult`` from ``w`` on are empty.
    """
    m, r = codes.shape
    buf = np.empty(r, dtype=codes.dtype)
    out = np.empty((m, width), dtype=codes.dtype)
    mult = np.empty((m, width))
    w = 1
    for i in range(m):
        k = 0
        for j in range(r):
            c = codes[i, j]
            if c >= 0:
                buf[k] = c
                k += 1
        if k > _INSERTION_MAX:
            buf[:k].sort()
        else:
            for t in range(1, k):  # insertion sort: rows hold few ratings
                c = buf[t]
                p = t
                while p > 0 and buf[p - 1] > c:
                    buf[p] = buf[p - 1]
                    p -= 1
                buf[p] = c
        d = 0
        for t in range(k):
            c = buf[t]
            if d > 0 and out[i, d - 1] == c:
                mult[i, d - 1] += 1.0
            else:
                out[i, d] = c
                mult[i, d] = 1.0
                d += 1
        w = max(w, d)
        for t in range(d, width):
            out[i, t] = -1
            mult[i, t] = 0.0
    return out, mult, w


@njit(**_JIT)
def moment_rows(codes, mult, z):
    """Each row's moments and its sum of squared differences over ordered pairs.

    Parameters
    ----------
    codes : ndarray of shape (m, w), intp
        Each row's categories, −1 in empty slots.
    mult : ndarray of shape (m, w), float64
        How many ratings each slot holds (0 in empty slots).
    z : ndarray of shape (V,), float64
        The coordinate of each category.

    Returns
    -------
    ndarray of shape (m, 4)
        Σ mult, Σ mult·z, Σ mult·z² and 2 r Σ mult (z − z̄)², the last being
        Σ over ordered pairs of the row's ratings of (zₖ − zₗ)² (eq. 3) in its centred
        form, exact for any offset of z.
    """
    m, w = codes.shape
    out = np.zeros((m, 4))
    for i in range(m):
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        for j in range(w):
            c = codes[i, j]
            if c >= 0:
                u = mult[i, j]
                x = z[c]
                s0 += u
                s1 += u * x
                s2 += u * x * x
        mean = s1 / max(s0, 1.0)
        dev2 = 0.0
        for j in range(w):
            c = codes[i, j]
            if c >= 0:
                d = z[c] - mean
                dev2 += mult[i, j] * (d * d)
        out[i, 0] = s0
        out[i, 1] = s1
        out[i, 2] = s2
        out[i, 3] = 2.0 * s0 * dev2  # Pᵢ = 2 rᵢ Σ (z − z̄)²   (eqs. 3, M)
    return out


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
