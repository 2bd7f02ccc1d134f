"""Peer implementations of quadratic weighted kappa, written as their users write them.

These are the anchors that ``bench_kappa.py`` times qwkit against. The two functions of
the Kaggle reference page on quadratic weighted kappa are copied as printed there ("How
to implement it"); the only changes are the ones
needed to run them today, outside a notebook: imports at the top; no
``warnings.filterwarnings('ignore')`` (the benchmark silences nothing globally); and in
``qwk3``, ``np.asarray(a, dtype=int)`` becomes ``dtype=np.int64`` (the same type on
Linux). The page's numba (2020) could not compile ``dtype=int`` either: its ``@jit``
silently fell back to object mode and lifted the loop into nopython code — which is why
the page hides warnings. Numba ≥ 0.59 makes ``@jit`` nopython-only and rejects
``dtype=int`` outright, so this one-word change is what a user does now.
Callers pass ``max_rat`` / ``n`` / ``hist_range`` for a 5-class scale, as a user would.

``bincount_kappa`` is the plain numpy baseline a careful user writes without any
library: the confusion table from one ``np.bincount`` of ``a * K + b``, then eq. 1 of
Vaughn & Justice (2015) on the table in numpy.
"""

from __future__ import annotations

import numpy as np
from numba import jit, njit, prange
from sklearn.metrics import confusion_matrix

from qwkit._kernels._sums import _five


# -- the Kaggle page, "afajohn Method" (https://www.kaggle.com/afajohn/quadratic-weighted-kappa-with-numpy-flavor)
def quadKappa(act, pred, n=4, hist_range=(0, 3)):
    O = confusion_matrix(act, pred)  # noqa: E741
    O = np.divide(O, np.sum(O))  # noqa: E741

    W = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            W[i][j] = ((i - j) ** 2) / ((n - 1) ** 2)

    act_hist = np.histogram(act, bins=n, range=hist_range)[0]
    prd_hist = np.histogram(pred, bins=n, range=hist_range)[0]

    E = np.outer(act_hist, prd_hist)
    E = np.divide(E, np.sum(E))

    num = np.sum(np.multiply(W, O))
    den = np.sum(np.multiply(W, E))

    return 1 - np.divide(num, den)


# -- the Kaggle page, "cpmp method" (https://www.kaggle.com/c/data-science-bowl-2019/discussion/114133)
@jit
def qwk3(a1, a2, max_rat=3):
    assert len(a1) == len(a2)
    a1 = np.asarray(a1, dtype=np.int64)  # as published: dtype=int (see module docstring)
    a2 = np.asarray(a2, dtype=np.int64)

    hist1 = np.zeros((max_rat + 1,))
    hist2 = np.zeros((max_rat + 1,))

    o = 0
    for k in range(a1.shape[0]):
        i, j = a1[k], a2[k]
        hist1[i] += 1
        hist2[j] += 1
        o += (i - j) * (i - j)

    e = 0
    for i in range(max_rat + 1):
        for j in range(max_rat + 1):
            e += hist1[i] * hist2[j] * (i - j) * (i - j)

    e = e / a1.shape[0]

    return 1 - o / e


# -- the np.bincount baseline
def bincount_kappa(a, b, k, weights="quadratic", sample_weight=None):
    """Weighted kappa of ratings 0..k-1: one ``np.bincount`` table, then eq. 1 in numpy."""
    table = np.bincount(a * k + b, weights=sample_weight, minlength=k * k).reshape(k, k)
    table = table.astype(np.float64)
    pos = np.arange(k, dtype=np.float64)
    diff = pos[:, None] - pos[None, :]
    w = diff * diff if weights == "quadratic" else np.abs(diff)
    n = table.sum()
    observed = np.sum(w * table)
    expected = table.sum(axis=1) @ w @ table.sum(axis=0) / n
    return float(1.0 - observed / expected)


# -- the memory floor: what no one-pass kernel can beat
@njit(cache=True, nogil=True)
def read_floor(a, b):
    """Read both arrays once and do nothing else worth the name: the memory floor.

    Compiled with the options of qwkit's own kernels; the speed any one-pass kernel
    over the same arrays cannot beat.
    """
    s = np.int64(0)
    for i in range(a.shape[0]):
        s += np.int64(a[i]) + np.int64(b[i])
    return s


@njit(cache=True, nogil=True)
def read_floor3(a, b, w):
    """The memory floor of a pass over two ratings and float64 weights: read all three
    once (the weights as their int64 bit patterns, so that the sum is an integer add
    that vectorizes — a float sum would be a chain of dependent additions, slower than
    reading, and no floor)."""
    bits = w.view(np.int64)
    s = np.int64(0)
    for i in range(a.shape[0]):
        s += np.int64(a[i]) + np.int64(b[i]) + bits[i]
    return s


@njit(cache=True, nogil=True, parallel=True)
def read_floor_par(a, b):
    """:func:`read_floor` on numba's thread pool (``numba.set_num_threads``): the memory
    floor for that many threads."""
    s = np.int64(0)
    for i in prange(a.shape[0]):
        s += np.int64(a[i]) + np.int64(b[i])
    return s


@njit(cache=True, nogil=True, parallel=True)
def read_floor3_par(a, b, w):
    """:func:`read_floor3` on numba's thread pool."""
    bits = w.view(np.int64)
    s = np.int64(0)
    for i in prange(a.shape[0]):
        s += np.int64(a[i]) + np.int64(b[i]) + bits[i]
    return s


# -- qwkit's previous threaded five sums (before issue 24), to show what changed
@njit(cache=True, nogil=True, parallel=True)
def five_sums_halves_par(a, b):
    """The threaded five sums as qwkit had them: chunks of 2**16 items on the thread
    pool, each summed by ``_five`` (the first and the second half of the chunk read in
    the same loop: four load streams per thread)."""
    chunk = 1 << 16
    n = a.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    part = np.zeros((n_chunks, 6), dtype=np.int64)
    for c in prange(n_chunks):
        s = c * chunk
        e = min(n, s + chunk)
        r = _five(a[s:e], b[s:e])
        for j in range(6):
            part[c, j] = r[j]
    return part.sum(axis=0)
