"""Slow, obviously correct oracles for the derivatives of the soft kappa loss 1 − κ.

Nothing here uses ``qwkit._gradients``. The loss is written from its definition (observed
over chance-expected squared disagreement, every pair of items); derivatives come from
central finite differences, and the dense Hessian is assembled entry by entry from the
derivatives of N and D (docs/training.md, T3 and T5) for comparison with both.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "dense_hessian",
    "fd_gradient",
    "fd_jacobian",
    "gauss_newton_matrix",
    "loss_definition",
    "loss_parts",
]


def _weights(y, w):
    return np.ones(len(y)) if w is None else np.asarray(w, dtype=float)


def loss_definition(y, f, w=None) -> float:
    """1 − κ = Σw(y − f)² / (Σᵢ Σⱼ wᵢwⱼ(yᵢ − fⱼ)² / Σw): the definition, O(n²)."""
    y, f = np.asarray(y, float), np.asarray(f, float)
    w = _weights(y, w)
    observed = np.sum(w * (y - f) ** 2)
    expected = np.sum(np.outer(w, w) * (y[:, None] - f[None, :]) ** 2) / w.sum()
    return float(observed / expected)


def loss_parts(y, f, w=None):
    """(N, D, ȳ) of T1 from the uncentered textbook sums."""
    y, f = np.asarray(y, float), np.asarray(f, float)
    w = _weights(y, w)
    total = w.sum()
    num = np.sum(w * (y - f) ** 2)
    den = np.sum(w * y * y) + np.sum(w * f * f) - 2.0 * np.sum(w * y) * np.sum(w * f) / total
    return float(num), float(den), float(np.sum(w * y) / total)


def fd_gradient(loss, f, step=1e-6):
    """Central differences of ``loss`` (a function of f) with a relative step."""
    f = np.asarray(f, float)
    out = np.empty_like(f)
    for i in range(f.shape[0]):
        h = step * max(1.0, abs(f[i]))
        up, down = f.copy(), f.copy()
        up[i] += h
        down[i] -= h
        out[i] = (loss(up) - loss(down)) / (2.0 * h)
    return out


def fd_jacobian(func, f, step=1e-6):
    """Central-difference Jacobian ∂func(f)ᵢ/∂fⱼ of a vector function, column by column."""
    f = np.asarray(f, float)
    cols = []
    for j in range(f.shape[0]):
        h = step * max(1.0, abs(f[j]))
        up, down = f.copy(), f.copy()
        up[j] += h
        down[j] -= h
        cols.append((np.asarray(func(up)) - np.asarray(func(down))) / (2.0 * h))
    return np.column_stack(cols)


def dense_hessian(y, f, w=None) -> np.ndarray:
    """The exact Hessian of N/D, entry by entry from the quotient rule.

    ∂ᵢⱼ(N/D) = (Nᵢⱼ − L·Dᵢⱼ − gⱼDᵢ − gᵢDⱼ)/D with Nᵢ = 2wᵢ(fᵢ − yᵢ), Dᵢ = 2wᵢ(fᵢ − ȳ),
    Nᵢⱼ = Dᵢⱼ = 2wᵢδᵢⱼ and gᵢ = (Nᵢ − L·Dᵢ)/D.
    """
    y, f = np.asarray(y, float), np.asarray(f, float)
    w = _weights(y, w)
    num, den, ybar = loss_parts(y, f, w)
    loss = num / den
    n = y.shape[0]
    dn = 2.0 * w * (f - y)
    dd = 2.0 * w * (f - ybar)
    g = (dn - loss * dd) / den
    hess = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            second = 2.0 * w[i] if i == j else 0.0
            hess[i, j] = (second - loss * second - g[j] * dd[i] - g[i] * dd[j]) / den
    return hess


def gauss_newton_matrix(y, f, w=None) -> np.ndarray:
    """2JᵀJ for the residuals rᵢ(f) = √wᵢ (fᵢ − yᵢ)/√D(f), whose squares sum to N/D;
    J by central differences."""
    y = np.asarray(y, float)
    w = _weights(y, w)

    def residuals(g):
        _, den, _ = loss_parts(y, g, w)
        return np.sqrt(w) * (g - y) / np.sqrt(den)

    jac = fd_jacobian(residuals, f)
    return 2.0 * jac.T @ jac
