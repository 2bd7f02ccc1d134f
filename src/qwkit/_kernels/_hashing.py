"""Hashing kernels: the distinct values of an array in O(n), without sorting it.

Open addressing with Fibonacci hashing (Knuth) and linear probing, in a table that
doubles whenever it would be more than half full. Used to group the items of the
threshold search by distinct score and the items of the agreement coefficients by
identical rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qwkit._kernels._jit import JIT as _JIT

#: Fibonacci hashing (Knuth): the golden ratio times 2**64.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(**_JIT)
def _hash_table(uniq, m, log_size):
    """An open-addressing table of 2**log_size slots holding the keys uniq[:m]."""
    size = np.int64(1) << np.int64(log_size)
    mask = size - 1
    shift = np.uint64(64 - log_size)
    slot_key = np.empty(size, dtype=np.uint64)
    slot_id = np.full(size, -1, dtype=np.int64)
    for q in range(m):
        j = np.int64((uniq[q] * _GOLDEN) >> shift)
        while slot_id[j] >= 0:
            j = (j + 1) & mask
        slot_id[j] = q
        slot_key[j] = uniq[q]
    return slot_key, slot_id


@njit(**_JIT)
def distinct_ids(bits, limit):
    """Ids of the distinct values of ``bits`` in order of first appearance.

    ``bits`` are the float64 bit patterns of the scores (−0.0 already made +0.0), hashed
    by open addressing (Fibonacci hashing, linear probing) into a table that doubles
    whenever it would be more than half full, so its memory follows the number of
    distinct values, not n. O(n) expected. Returns (ids, distinct bit patterns, True),
    or (empty, empty, False) as soon as there are more than ``limit`` distinct values
    (the caller then sorts).
    """
    n = bits.shape[0]
    log_size = 10
    uniq = np.empty(1 << (log_size - 1), dtype=np.uint64)
    slot_key, slot_id = _hash_table(uniq, 0, log_size)
    mask = (np.int64(1) << np.int64(log_size)) - 1
    shift = np.uint64(64 - log_size)
    ids = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        key = bits[i]
        j = np.int64((key * _GOLDEN) >> shift)
        while True:
            sid = slot_id[j]
            if sid >= 0:
                if slot_key[j] == key:
                    ids[i] = sid
                    break
                j = (j + 1) & mask
                continue
            if m == limit:
                return ids[:0], uniq[:0], False
            if 2 * (m + 1) > mask + 1:  # keep the table at most half full: double it
                log_size += 1
                if m == uniq.shape[0]:
                    grown = np.empty(2 * uniq.shape[0], dtype=np.uint64)
                    grown[:m] = uniq[:m]
                    uniq = grown
                slot_key, slot_id = _hash_table(uniq, m, log_size)
                mask = (np.int64(1) << np.int64(log_size)) - 1
                shift = np.uint64(64 - log_size)
                j = np.int64((key * _GOLDEN) >> shift)
                continue
            slot_id[j] = m
            slot_key[j] = key
            uniq[m] = key
            ids[i] = m
            m += 1
            break
    return ids, uniq[:m].copy(), True
