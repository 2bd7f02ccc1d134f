"""Slow, obviously correct oracles for thresholds and kappa decisions (brute force).

Kappa is computed from its definition (the QWK notebook's double loop over cells of the
table, eq. 1 of Vaughn & Justice 2015) for *every* candidate: every monotone assignment of
the distinct scores to classes (thresholds), or every one of the K**n decision vectors (decisions).
Candidates where kappa is 0/0 are skipped. Plain Python floats and loops; tiny inputs.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = [
    "brute_force_decision",
    "brute_force_thresholds",
    "naive_expected_kappa",
    "naive_table_kappa",
    "weight_matrix_of",
]


def naive_table_kappa(table, wmat):
    """κ = 1 − Σᵢⱼ W·U / Σᵢⱼ W·V, V = row ⊗ col / n, cell by cell; None when 0/0."""
    k = len(table)
    n = sum(table[i][j] for i in range(k) for j in range(k))
    rows = [sum(table[i][j] for j in range(k)) for i in range(k)]
    cols = [sum(table[i][j] for i in range(k)) for j in range(k)]
    observed = 0.0
    expected = 0.0
    for i in range(k):
        for j in range(k):
            observed += wmat[i][j] * table[i][j]
            expected += wmat[i][j] * rows[i] * cols[j] / n
    if expected == 0.0:
        return None
    return 1.0 - observed / expected


def brute_force_thresholds(codes, scores, k, wmat, sample_weight=None):
    """Best kappa over ALL monotone assignments (ties share a class), and one argmax.

    Returns ``(best_kappa, classes)`` with ``classes`` the class of every item.
    """
    n = len(codes)
    w = [1.0] * n if sample_weight is None else [float(v) for v in sample_weight]
    distinct = sorted(set(float(s) for s in scores))
    where = {s: i for i, s in enumerate(distinct)}
    best, best_classes = None, None
    for assignment in itertools.combinations_with_replacement(range(k), len(distinct)):
        table = [[0.0] * k for _ in range(k)]
        for i in range(n):
            table[int(codes[i])][assignment[where[float(scores[i])]]] += w[i]
        kappa = naive_table_kappa(table, wmat)
        if kappa is not None and (best is None or kappa > best):
            best = kappa
            best_classes = [assignment[where[float(s)]] for s in scores]
    return best, best_classes


def naive_expected_kappa(proba, decision, wmat):
    """Kappa of the expected confusion matrix E[U][t][j] = Σᵢ pᵢₜ·[jᵢ = j]."""
    k = len(wmat)
    table = [[0.0] * k for _ in range(k)]
    for i, j in enumerate(decision):
        for t in range(k):
            table[t][j] += float(proba[i][t])
    return naive_table_kappa(table, wmat)


def brute_force_decision(proba, wmat):
    """Best expected kappa over all K**n decision vectors, and one argmax."""
    n, k = len(proba), len(wmat)
    best, best_decision = None, None
    for decision in itertools.product(range(k), repeat=n):
        kappa = naive_expected_kappa(proba, decision, wmat)
        if kappa is not None and (best is None or kappa > best):
            best, best_decision = kappa, list(decision)
    return best, np.array(best_decision)


def weight_matrix_of(k, kind):
    """Weight matrices written out independently of the library."""
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    if kind == "quadratic":
        return ((i - j) ** 2).astype(float)
    if kind == "linear":
        return np.abs(i - j).astype(float)
    if kind == "identity":
        return (i != j).astype(float)
    if kind == "asymmetric":  # over-prediction squared, under-prediction 3× linear
        return np.where(j > i, (j - i) ** 2, 3 * (i - j)).astype(float)
    if kind == "under_only":  # only under-prediction costs: many assignments are 0/0
        return np.maximum(i - j, 0).astype(float)
    raise AssertionError(kind)
