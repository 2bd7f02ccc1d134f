"""Kernels of the intraclass correlations (``docs/agreement.md``, "Intraclass correlation").

Every ICC is a function of a few sums over the ratings that exist, taken item by item:

* :func:`complete_moments`: items × raters with no missing rating — each item's mean and
  its sum of squared deviations from it, and each rater's sum of deviations from the
  item means (eqs. I1–I3), in one pass;
* :func:`sparse_moments`: ratings one entry per rating, sorted by item (CSR offsets,
  rater codes, values) — the same per-item and per-rater sums with any missing
  ratings, and, for the REML fit, the sums of eq. I8 grouped by how many ratings an item
  has (each item's total, squared and spread over its raters; the raters' co-occurrence).

Items are visited once; within an item its few ratings are read twice (mean, then
deviations), so no sum suffers the cancellation of uncentered squares.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qwkit._kernels._jit import JIT as _JIT


@njit(**_JIT)
def complete_moments(values):
    """Per-item means and sums of squares, per-rater sums of deviations (eqs. I1–I3).

    Parameters
    ----------
    values : ndarray of shape (n, k), float64
        Finite ratings, no missing one.

    Returns
    -------
    mean : ndarray of shape (n,)
        Each item's mean rating ȳᵢ.
    within : ndarray of shape (n,)
        Each item's Σⱼ (yᵢⱼ − ȳᵢ)².
    deviation : ndarray of shape (k,)
        Each rater's Σᵢ (yᵢⱼ − ȳᵢ).
    """
    n, k = values.shape
    mean = np.empty(n)
    within = np.empty(n)
    deviation = np.zeros(k)
    for i in range(n):
        s = 0.0
        for j in range(k):
            s += values[i, j]
        m = s / k
        ss = 0.0
        for j in range(k):
            d = values[i, j] - m
            ss += d * d
            deviation[j] += d
        mean[i] = m
        within[i] = ss
    return mean, within, deviation


@njit(**_JIT)
def sparse_moments(offsets, raters, values, center, group, n_groups, k):
    """The sums of the ICC with missing ratings, one pass over the ratings (eq. I8).

    Parameters
    ----------
    offsets : ndarray of shape (n + 1,), int64
        Item i's ratings are ``offsets[i]:offsets[i + 1]`` (each item has at least one).
    raters : ndarray of shape (N,), int64
        The rater (0..k−1) of each rating; one rating per item and rater.
    values : ndarray of shape (N,), float64
        The ratings.
    center : float
        Subtracted from every rating first (the mean of all ratings).
    group : ndarray of shape (k + 1,), int64
        ``group[m]``: the group of items with m ratings (0..n_groups−1).
    n_groups, k : int
        How many groups; how many raters.

    Returns
    -------
    mean : ndarray of shape (n,)
        ȳᵢ − center.
    within : ndarray of shape (n,)
        Σⱼ (yᵢⱼ − ȳᵢ)².
    rater_count, rater_sum, rater_within : ndarray of shape (k,)
        Each rater's number of ratings, Σ (y − center) and Σ (y − ȳ_rater)² (Welford).
    items, totals2 : ndarray of shape (n_groups,)
        Per group: how many items, Σᵢ tᵢ² with tᵢ = Σⱼ (yᵢⱼ − center).
    spread : ndarray of shape (n_groups, k)
        Per group: Σᵢ tᵢ·[j rated i] for every rater j.
    cooccur : ndarray of shape (n_groups, k, k)
        Per group: how many items raters j and l both rated (the diagonal: rated by j).
    """
    n = offsets.shape[0] - 1
    mean = np.empty(n)
    within = np.empty(n)
    rater_count = np.zeros(k)
    rater_sum = np.zeros(k)
    rater_mean = np.zeros(k)
    rater_within = np.zeros(k)
    items = np.zeros(n_groups)
    totals2 = np.zeros(n_groups)
    spread = np.zeros((n_groups, k))
    cooccur = np.zeros((n_groups, k, k))
    for i in range(n):
        lo, hi = offsets[i], offsets[i + 1]
        r = hi - lo
        s = 0.0
        for p in range(lo, hi):
            x = values[p] - center
            s += x
            j = raters[p]
            rater_count[j] += 1.0
            rater_sum[j] += x
            delta = x - rater_mean[j]
            rater_mean[j] += delta / rater_count[j]
            rater_within[j] += delta * (x - rater_mean[j])
        m = s / r
        ss = 0.0
        for p in range(lo, hi):
            d = values[p] - center - m
            ss += d * d
        mean[i] = m
        within[i] = ss
        g = group[r]
        items[g] += 1.0
        totals2[g] += s * s
        for p in range(lo, hi):
            j = raters[p]
            spread[g, j] += s
            for q in range(lo, hi):
                cooccur[g, j, raters[q]] += 1.0
    return (
        mean,
        within,
        rater_count,
        rater_sum,
        rater_within,
        items,
        totals2,
        spread,
        cooccur,
    )
