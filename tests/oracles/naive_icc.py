"""Slow, obviously correct oracles of the intraclass correlations.

* :func:`anova_icc`: the six ICCs of McGraw & Wong (1996) from the two-way ANOVA sums of
  squares written out as in a textbook (two passes, explicit means);
* :func:`dense_reml`: the REML fit of yᵢⱼ = μ + sᵢ + rⱼ + eᵢⱼ with dense N × N matrices
  and a general-purpose optimizer, from several starts;
* :func:`wald_statistic`: W(θ) of the two-way model with raters fixed (eq. I12 of
  ``docs/agreement.md``) by generalized least squares on dense matrices.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

__all__ = ["anova_icc", "dense_reml", "psych_iccs", "wald_statistic"]


def anova_icc(x: np.ndarray) -> dict[str, float]:
    """The six ICCs of complete ratings (items × raters), McGraw & Wong's Table 4."""
    n, k = x.shape
    grand = x.mean()
    ss_rows = k * np.sum((x.mean(axis=1) - grand) ** 2)
    ss_cols = n * np.sum((x.mean(axis=0) - grand) ** 2)
    ss_total = np.sum((x - grand) ** 2)
    ss_error = ss_total - ss_rows - ss_cols
    msr = ss_rows / (n - 1)
    msc = ss_cols / (k - 1)
    mse = ss_error / ((n - 1) * (k - 1))
    msw = (ss_cols + ss_error) / (n * (k - 1))
    return {
        "1,1": (msr - msw) / (msr + (k - 1) * msw),
        "A,1": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
        "C,1": (msr - mse) / (msr + (k - 1) * mse),
        "1,k": (msr - msw) / msr,
        "A,k": (msr - mse) / (msr + (msc - mse) / n),
        "C,k": (msr - mse) / msr,
    }


def _design(x):
    present = ~np.isnan(x)
    rows, cols = np.nonzero(present)
    y = x[present]
    big_n = y.size
    zs = np.zeros((big_n, x.shape[0]))
    zs[np.arange(big_n), rows] = 1.0
    zr = np.zeros((big_n, x.shape[1]))
    zr[np.arange(big_n), cols] = 1.0
    return y, zs, zr


def dense_reml(x: np.ndarray) -> tuple[float, float, float]:
    """REML (σ²ₛ, σ²ᵣ, σ²ₑ) of items × raters ratings with NaN for missing."""
    y, zs, zr = _design(x)
    big_n = y.size
    ones = np.ones((big_n, 1))

    def criterion(theta):
        h = np.eye(big_n) + theta[0] * zs @ zs.T + theta[1] * zr @ zr.T
        hi = np.linalg.inv(h)
        xhx = ones.T @ hi @ ones
        p = hi - hi @ ones @ np.linalg.inv(xhx) @ ones.T @ hi
        q = float(y @ p @ y)
        value = (big_n - 1) * np.log(q) + np.linalg.slogdet(h)[1] + np.linalg.slogdet(xhx)[1]
        return value, q

    best = None
    for s0 in (0.1, 1.0, 10.0):
        for r0 in (0.01, 0.5, 5.0):
            res = optimize.minimize(
                lambda t: criterion(t)[0],
                [s0, r0],
                bounds=[(0, None), (0, None)],
                method="L-BFGS-B",
                options={"ftol": 1e-15, "gtol": 1e-12},
            )
            if best is None or res.fun < best.fun:
                best = res
    theta = best.x
    var_e = criterion(theta)[1] / (big_n - 1)
    return theta[0] * var_e, theta[1] * var_e, var_e


def psych_iccs(var_s, var_r, var_e, n, k) -> dict[str, float]:
    """R psych's ICCs from variance components (its ``lmer = TRUE`` conversion)."""
    msb, msj, msw, mse = k * var_s + var_e, n * var_r + var_e, var_e + var_r, var_e
    return {
        "1,1": (msb - msw) / (msb + (k - 1) * msw),
        "A,1": (msb - mse) / (msb + (k - 1) * mse + k * (msj - mse) / n),
        "C,1": (msb - mse) / (msb + (k - 1) * mse),
        "1,k": (msb - msw) / msb,
        "A,k": (msb - mse) / (msb + (msj - mse) / n),
        "C,k": (msb - mse) / msb,
    }


def wald_statistic(x: np.ndarray, theta: float) -> float:
    """W(θ): [(Q(θ) − SSE)/(n − 1)] / [SSE/df], Q(θ) the GLS residual quadratic form with
    raters fixed and items random with variance ratio θ, SSE the residual of the
    additive fixed-effects fit."""
    y, zs, zr = _design(x)
    big_n = y.size
    h = np.eye(big_n) + theta * zs @ zs.T
    hi = np.linalg.inv(h)
    beta = np.linalg.solve(zr.T @ hi @ zr, zr.T @ hi @ y)
    resid = y - zr @ beta
    q = float(resid @ hi @ resid)
    full = np.column_stack([zs, zr])
    coef, *_ = np.linalg.lstsq(full, y, rcond=None)
    sse = float(np.sum((y - full @ coef) ** 2))
    rank = np.linalg.matrix_rank(full)
    n = x.shape[0]
    df_items = rank - np.linalg.matrix_rank(zr)
    assert df_items == n - 1
    return ((q - sse) / df_items) / (sse / (big_n - rank))
