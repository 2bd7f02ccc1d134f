"""Kernels of the exact threshold search (docs/thresholds.md).

The items arrive sorted by score and aggregated into *pairs* (distinct score, true
label) with the summed sample weight of each pair; ``group_start`` delimits the pairs of
each distinct score (``group_start[s]:group_start[s + 1]``), so the work is O(P·K) with
P ≤ min(n, m·K) pairs, whatever the number of items n. Everything is float64; the API
layer validates and guarantees 0 ≤ code < K ≤ 10,000 (so class indices fit in int16).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qwkit._kernels._jit import JIT as _JIT


@njit(**_JIT, inline="always")
def _sort_small(x, count):
    """Insertion sort of x[:count] (the few labels of one distinct score)."""
    for i in range(1, count):
        v = x[i]
        j = i - 1
        while j >= 0 and x[j] > v:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


@njit(**_JIT)
def monotone_dp(pair_code, pair_weight, group_start, wmat, chance, lam):
    """Minimize N − λ·D over monotone assignments of the distinct scores to classes.

    A monotone assignment gives class c_s to distinct score s with c_0 ≤ c_1 ≤ … ≤ c_{m−1}
    (classes may be skipped). Its cost is Σ_s [A[s, c_s] − λ·w_s·chance[c_s]] with
    A[s, c] = Σ_{pairs p of s} w_p·W[t_p, c] (eq. T3) and w_s the weight of score s.
    The recursion (eq. T5) is

        V[s, c] = A[s, c] − λ·w_s·chance[c] + min_{c' ≤ c} V[s − 1, c'],   V[−1, ·] = 0,

    evaluated with a running prefix minimum: O(K) per distinct score. Returns the class
    of every distinct score (int64, non-decreasing) and the minimum value.
    """
    m = group_start.shape[0] - 1
    k = wmat.shape[0]
    pointer = np.empty((m, k), dtype=np.int16)
    prev = np.zeros(k)
    cur = np.empty(k)
    a = np.empty(k)
    for s in range(m):
        for c in range(k):
            a[c] = 0.0
        ws = 0.0
        for p in range(group_start[s], group_start[s + 1]):
            t = pair_code[p]
            w = pair_weight[p]
            ws += w
            for c in range(k):
                a[c] += w * wmat[t, c]  # A[s, c]   (eq. T3)
        best = prev[0]
        arg = 0
        for c in range(k):
            if prev[c] < best:  # running prefix minimum of V[s − 1, ·]
                best = prev[c]
                arg = c
            pointer[s, c] = arg
            cur[c] = best + a[c] - lam * ws * chance[c]  # (eq. T5)
        prev, cur = cur, prev
    last = 0
    for c in range(1, k):
        if prev[c] < prev[last]:
            last = c
    value = prev[last]
    cls = np.empty(m, dtype=np.int64)
    c = last
    for s in range(m - 1, -1, -1):
        cls[s] = c
        c = pointer[s, c]
    return cls, value


@njit(**_JIT)
def assignment_table(pair_code, pair_weight, group_start, cls, k):
    """K×K table (true label × assigned class) of an assignment of the distinct scores."""
    table = np.zeros((k, k))
    m = group_start.shape[0] - 1
    for s in range(m):
        c = cls[s]
        for p in range(group_start[s], group_start[s + 1]):
            table[pair_code[p], c] += pair_weight[p]
    return table


@njit(**_JIT)
def aggregate_pairs(code, weight, order, group_first, k):
    """Sum the weights of equal (distinct score, true label) pairs.

    ``order`` sorts the items by score; ``group_first`` (length m + 1) gives the
    position in that order of the first item of each distinct score. Returns the code
    and summed weight of every pair — the pairs of a score in increasing label order,
    whatever the order of its items — and the first pair of every group (length
    m + 1). O(n): a per-group accumulator is reset only where it was touched.
    """
    n = order.shape[0]
    m = group_first.shape[0] - 1
    pair_code = np.empty(n, dtype=np.int64)
    pair_weight = np.empty(n)
    group_start = np.empty(m + 1, dtype=np.int64)
    acc = np.zeros(k)
    seen = np.zeros(k, dtype=np.bool_)
    touched = np.empty(k, dtype=np.int64)
    p = 0
    for s in range(m):
        group_start[s] = p
        count = 0
        for r in range(group_first[s], group_first[s + 1]):
            i = order[r]
            t = code[i]
            if not seen[t]:
                seen[t] = True
                touched[count] = t
                count += 1
            acc[t] += weight[i]
        _sort_small(touched, count)
        for q in range(count):
            t = touched[q]
            pair_code[p] = t
            pair_weight[p] = acc[t]
            p += 1
            acc[t] = 0.0
            seen[t] = False
    group_start[m] = p
    return pair_code[:p].copy(), pair_weight[:p].copy(), group_start


@njit(**_JIT)
def pair_ids(code, order, group_first, k):
    """The pairs of :func:`aggregate_pairs` without their weights: the pair of every
    item in the sorted order (``pair[r]`` is the pair of item ``order[r]``: increasing
    with r, so that sums over the pairs read the items in order), the code of every
    pair and the first pair of every group (length m + 1)."""
    n = order.shape[0]
    m = group_first.shape[0] - 1
    pair = np.empty(n, dtype=np.int64)
    pair_code = np.empty(n, dtype=np.int64)
    group_start = np.empty(m + 1, dtype=np.int64)
    slot = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    p = 0
    for s in range(m):
        group_start[s] = p
        count = 0
        for r in range(group_first[s], group_first[s + 1]):
            t = code[order[r]]
            if slot[t] < 0:
                slot[t] = 0
                touched[count] = t
                count += 1
        _sort_small(touched, count)
        for q in range(count):
            slot[touched[q]] = p + q
            pair_code[p + q] = touched[q]
        for r in range(group_first[s], group_first[s + 1]):
            pair[r] = slot[code[order[r]]]
        for q in range(count):
            slot[touched[q]] = -1
        p += count
    group_start[m] = p
    return pair, pair_code[:p].copy(), group_start


@njit(**_JIT)
def counting_order(ids, rank_of_id):
    """The items ordered by the rank of their distinct score (a counting sort, stable):
    (order, group_first), ``group_first`` (length m + 1) starting each rank's items."""
    n = ids.shape[0]
    m = rank_of_id.shape[0]
    start = np.zeros(m + 1, dtype=np.int64)
    for i in range(n):
        start[rank_of_id[ids[i]] + 1] += 1
    for s in range(m):
        start[s + 1] += start[s]
    group_first = start.copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = rank_of_id[ids[i]]
        order[start[r]] = i
        start[r] += 1
    return order, group_first


@njit(**_JIT)
def pair_table(ids, rank_of_id, code, weight, k):
    """The (m, K) table of summed weights per (rank of the distinct score, true label),
    in one sequential pass; ``weight`` empty means unit weights."""
    m = rank_of_id.shape[0]
    table = np.zeros((m, k))
    if weight.shape[0] == 0:
        for i in range(ids.shape[0]):
            table[rank_of_id[ids[i]], code[i]] += 1.0
    else:
        for i in range(ids.shape[0]):
            table[rank_of_id[ids[i]], code[i]] += weight[i]
    return table
