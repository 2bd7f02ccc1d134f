"""Slow, obviously correct oracles for the kappa-optimal linear model.

Nothing here uses the closed forms of ``qwkit._regression``: the soft kappa is written
out from its definition (1 − weighted SSE / weighted chance-expected SSE) and maximized
numerically with ``scipy.optimize`` from several starts, then polished with Newton
steps on a finite-difference Hessian of the analytic gradient.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize as so

__all__ = [
    "naive_kappa_and_gradient",
    "naive_ridge_direction",
    "scipy_best_scale",
    "scipy_kappa_regression",
    "soft_kappa_definition",
]


def soft_kappa_definition(y, f, w=None) -> float:
    """1 − Σw(y − f)² / Σᵢ Σⱼ wᵢwⱼ(yᵢ − fⱼ)²/Σw: observed over chance-expected loss."""
    y = np.asarray(y, float)
    f = np.asarray(f, float)
    w = np.ones_like(y) if w is None else np.asarray(w, float)
    observed = np.sum(w * (y - f) ** 2)
    expected = np.sum(np.outer(w, w) * (y[:, None] - f[None, :]) ** 2) / w.sum()
    return float(1.0 - observed / expected)


def naive_kappa_and_gradient(params, X, y, w, fit_intercept):
    """Soft kappa of f = b + X·β (b = params[0], ignored without an intercept) and its
    gradient with respect to params, from the uncentered textbook form."""
    b = params[0] if fit_intercept else 0.0
    f = b + X @ params[1:]
    total = w.sum()
    sy, sf = w @ y, w @ f
    num = 2.0 * (w @ (y * f) - sy * sf / total)  # 2·S_yf
    den = w @ (y * y) + w @ (f * f) - 2.0 * sy * sf / total  # S_yy + S_ff + W·(ȳ − f̄)²
    dnum = 2.0 * w * (y - sy / total)  # ∂num/∂f
    dden = 2.0 * w * (f - sy / total)  # ∂den/∂f
    gf = (dnum * den - num * dden) / den**2
    grad = np.empty_like(params)
    grad[0] = gf.sum() if fit_intercept else 0.0
    grad[1:] = X.T @ gf
    return num / den, grad


def _newton_polish(fun_grad, x, steps=8):
    """Newton steps on a central-difference Hessian of the analytic gradient."""
    for _ in range(steps):
        g = fun_grad(x)[1]
        h = np.empty((x.size, x.size))
        for j in range(x.size):
            step = 1e-5 * max(1.0, abs(x[j]))
            e = np.zeros_like(x)
            e[j] = step
            h[:, j] = (fun_grad(x + e)[1] - fun_grad(x - e)[1]) / (2 * step)
        h = 0.5 * (h + h.T)
        x = x - np.linalg.lstsq(h, g, rcond=None)[0]
    return x


def scipy_kappa_regression(X, y, w=None, *, fit_intercept=True, rng=None, n_starts=4):
    """argmax over (b, β) of the soft kappa by BFGS from several starts + Newton polish.

    Returns (kappa, intercept, coef).
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    w = np.ones_like(y) if w is None else np.asarray(w, float)
    rng = np.random.default_rng(20261121) if rng is None else rng
    d = X.shape[1]

    def neg(p):
        k, g = naive_kappa_and_gradient(p, X, y, w, fit_intercept)
        return -k, -g

    best = None
    for _ in range(n_starts):
        x0 = np.concatenate([[np.average(y, weights=w)], rng.standard_normal(d)])
        if naive_kappa_and_gradient(x0, X, y, w, fit_intercept)[0] < 0:
            x0[1:] = -x0[1:]  # start in the region κ > 0 (the problem is not
            # quasiconcave where κ < 0: see docs/regression.md)
        res = so.minimize(neg, x0, jac=True, method="BFGS", options={"gtol": 1e-12})
        if best is None or res.fun < best.fun:
            best = res
    x = _newton_polish(neg, best.x)
    kappa = -neg(x)[0]
    return float(kappa), float(x[0]) if fit_intercept else 0.0, x[1:]


def naive_ridge_direction(X, y, w, alpha):
    """Ridge coefficients on weighted-centered data from the normal equations."""
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    w = np.ones_like(y) if w is None else np.asarray(w, float)
    xc = X - np.average(X, axis=0, weights=w)
    yc = y - np.average(y, weights=w)
    a = xc.T @ (w[:, None] * xc) + alpha * np.eye(X.shape[1])
    return np.linalg.solve(a, xc.T @ (w * yc))


def scipy_best_scale(X, y, w, direction):
    """argmax over (b, c) of the soft kappa of b + c·X·direction, numerically: the
    generic optimizer above on the single feature X·direction. Returns (kappa, b, c)."""
    g = np.asarray(X, float) @ direction
    kappa, b, c = scipy_kappa_regression(g[:, None], y, w)
    return kappa, b, float(c[0])


def exact_kappa_regression(X, y):
    """Unweighted intercept model in exact rational arithmetic (fractions.Fraction).

    Centering, the normal equations X_cᵀX_c·β = X_cᵀy_c (Gauss–Jordan, exact) and
    κ̂² = β·X_cᵀy_c / y_cᵀy_c are exact; only the final square root and the conversion
    to float round. Requires X_c of full column rank. Returns (kappa, coef).
    """
    from fractions import Fraction

    rows = [[Fraction(float(v)) for v in row] for row in np.asarray(X, float)]
    ys = [Fraction(float(v)) for v in np.asarray(y, float)]
    n, d = len(rows), len(rows[0])
    xbar = [sum(r[j] for r in rows) / n for j in range(d)]
    ybar = sum(ys) / n
    xc = [[r[j] - xbar[j] for j in range(d)] for r in rows]
    yc = [v - ybar for v in ys]
    a = [[sum(r[i] * r[j] for r in xc) for j in range(d)] for i in range(d)]
    b = [sum(r[i] * v for r, v in zip(xc, yc, strict=True)) for i in range(d)]
    for col in range(d):  # Gauss–Jordan elimination with exact pivots
        piv = next(i for i in range(col, d) if a[i][col] != 0)
        a[col], a[piv], b[col], b[piv] = a[piv], a[col], b[piv], b[col]
        for i in range(d):
            if i != col and a[i][col] != 0:
                factor = a[i][col] / a[col][col]
                a[i] = [u - factor * v for u, v in zip(a[i], a[col], strict=True)]
                b[i] -= factor * b[col]
    beta = [b[i] / a[i][i] for i in range(d)]
    xty = [sum(r[i] * v for r, v in zip(xc, yc, strict=True)) for i in range(d)]
    kappa2 = sum(bi * ci for bi, ci in zip(beta, xty, strict=True)) / sum(v * v for v in yc)
    kappa = float(kappa2) ** 0.5
    return kappa, np.array([float(bi) / kappa for bi in beta])
