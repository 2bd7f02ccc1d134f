"""Slow, obviously correct oracles for kappa inference (``tests/oracles/naive.py`` style).

Each oracle takes the long way round, independent of the library's closed forms:
the delta-method variance from a *numerical* gradient of kappa over the cells of the
table; the null variance from Fleiss, Cohen and Everitt's (1969) agreement-weight
formula written out cell by cell; the jackknife by literally deleting each item and
re-scoring with the exact rational kappa of ``tests/oracles/naive.py``.
"""

from __future__ import annotations

import math

import numpy as np

from oracles.naive import naive_kappa

__all__ = [
    "kappa_of_proportions",
    "naive_delta_variance",
    "naive_delta_variance_difference",
    "naive_fce_null_variance",
    "naive_jackknife_se",
    "naive_mean_quadratic_weighted_kappa",
]


def kappa_of_proportions(p, wmat) -> float:
    """1 − Σ d p / Σ d r c with r, c the margins of p (p need not sum to one)."""
    k = len(p)
    total = sum(p[i][j] for i in range(k) for j in range(k))
    rows = [sum(p[i][j] for j in range(k)) for i in range(k)]
    cols = [sum(p[i][j] for i in range(k)) for j in range(k)]
    observed = sum(wmat[i][j] * p[i][j] for i in range(k) for j in range(k)) / total
    expected = sum(wmat[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k))
    return 1.0 - observed / (expected / total**2)


def _gradient(f, p: np.ndarray, step: float = 1e-6) -> np.ndarray:
    """Central differences of f at p, one cell at a time."""
    g = np.zeros_like(p)
    for idx in np.ndindex(p.shape):
        up = p.copy()
        down = p.copy()
        up[idx] += step
        down[idx] -= step
        g[idx] = (f(up) - f(down)) / (2 * step)
    return g


def naive_delta_variance(table, wmat) -> float:
    """Multinomial delta method: (Σ p g² − (Σ p g)²) / n, g the numerical gradient."""
    t = np.asarray(table, dtype=float)
    n = t.sum()
    p = t / n
    g = _gradient(lambda q: kappa_of_proportions(q, wmat), p)
    return float(((p * g * g).sum() - (p * g).sum() ** 2) / n)


def naive_delta_variance_difference(table3, wmat) -> float:
    """Same for κ(truth, a) − κ(truth, b) on the K×K×K table of (truth, a, b)."""
    t = np.asarray(table3, dtype=float)
    n = t.sum()
    p = t / n

    def diff(q):
        return kappa_of_proportions(q.sum(axis=2), wmat) - kappa_of_proportions(q.sum(axis=1), wmat)

    g = _gradient(diff, p)
    return float(((p * g * g).sum() - (p * g).sum() ** 2) / n)


def naive_fce_null_variance(table, wmat) -> float:
    """Fleiss, Cohen & Everitt (1969), variance under κ = 0, agreement weights.

    With agreement weights vᵢⱼ = 1 − dᵢⱼ / max d, v̄ᵢ. = Σⱼ p.ⱼ vᵢⱼ,
    v̄.ⱼ = Σᵢ pᵢ. vᵢⱼ and pₑ = Σ vᵢⱼ pᵢ. p.ⱼ:

        Var₀ = [Σᵢⱼ pᵢ. p.ⱼ (vᵢⱼ − (v̄ᵢ. + v̄.ⱼ))² − pₑ²] / (n (1 − pₑ)²)
    """
    t = [[float(x) for x in row] for row in table]
    k = len(t)
    n = sum(sum(row) for row in t)
    top = max(max(row) for row in wmat)
    v = [[1.0 - wmat[i][j] / top for j in range(k)] for i in range(k)]
    pr = [sum(t[i]) / n for i in range(k)]
    pc = [sum(t[i][j] for i in range(k)) / n for j in range(k)]
    vr = [sum(pc[j] * v[i][j] for j in range(k)) for i in range(k)]
    vc = [sum(pr[i] * v[i][j] for i in range(k)) for j in range(k)]
    pe = sum(v[i][j] * pr[i] * pc[j] for i in range(k) for j in range(k))
    acc = 0.0
    for i in range(k):
        for j in range(k):
            acc += pr[i] * pc[j] * (v[i][j] - (vr[i] + vc[j])) ** 2
    return (acc - pe * pe) / (n * (1.0 - pe) ** 2)


def naive_jackknife_se(y1, y2, *, weights="quadratic", labels=None, sample_weight=None):
    """Delete each item in turn, re-score exactly, SE² = (n − 1)/n · Σ (θ₍ᵢ₎ − θ̄)²."""
    y1, y2 = list(y1), list(y2)
    n = len(y1)
    if labels is None:
        values = sorted(set(y1) | set(y2))
        labels = list(range(min(values), max(values) + 1))
    values = []
    for i in range(n):
        keep = [j for j in range(n) if j != i]
        sw = None if sample_weight is None else [sample_weight[j] for j in keep]
        kappa = naive_kappa(
            [y1[j] for j in keep],
            [y2[j] for j in keep],
            weights=weights,
            labels=labels,
            sample_weight=sw,
        )
        values.append(float(kappa))
    mean = sum(values) / n
    return math.sqrt((n - 1) / n * sum((v - mean) ** 2 for v in values))


def naive_mean_quadratic_weighted_kappa(kappas, weights=None) -> float:
    """Transcription of ml_metrics' ``mean_quadratic_weighted_kappa``.

    Source: benhamner/Metrics, Python/ml_metrics/quadratic_weighted_kappa.py
    (commit 51bfadef): cap at ±0.999, z = ½ ln((1 + κ)/(1 − κ)), weights divided
    by their mean, mean of w·z, back-transform (e^{2z} − 1)/(e^{2z} + 1).
    """
    kappas = np.array(kappas, dtype=float)
    weights = (
        np.ones(np.shape(kappas)) if weights is None else np.asarray(weights) / np.mean(weights)
    )
    kappas = np.array([min(x, 0.999) for x in kappas])
    kappas = np.array([max(x, -0.999) for x in kappas])
    z = 0.5 * np.log((1 + kappas) / (1 - kappas)) * weights
    z = np.mean(z)
    return float((np.exp(2 * z) - 1) / (np.exp(2 * z) + 1))
