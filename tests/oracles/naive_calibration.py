"""Slow, obviously correct references for ``human_scale_estimate`` and the formulas of
prediction-powered inference it rests on.

* :func:`naive_ppi` loops over the groups and the quantities and computes each estimate
  from its definition with ``np.mean``, ``np.var`` and ``np.cov`` on the group's own
  items (eqs. P1–P7 of ``docs/calibration.md``): no shared moments, no bincount.
* :func:`ppi_mean` and :func:`ppi_lambda` transcribe the published formulas for the mean
  as the authors' package ``ppi_py`` (version 0.2.3, ``ppi_py/ppi.py``) computes them:
  the rectified estimate θ̂(λ) = mean(λf̃) + mean(Y − λf) and its normal interval with
  the variance Var(Y − λf)/n + λ²Var(f̃)/N (Angelopoulos et al. 2023, *Science*, the
  mean example; Angelopoulos, Duchi & Zrnic 2023, PPI++ eq. (6) with λ), both variances
  with divisor n (``np.std``); and ppi_py's plug-in λ̂ = Ĉov(Y, f)/((1 + n/N)·V̂ar(f))
  (``_calc_lam_glm`` with the identity Hessian: the covariance with divisor n, the
  variance of f over the labelled and unlabelled items together with divisor n + N − 1,
  clipped to [0, 1]).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["naive_ppi", "ppi_lambda", "ppi_mean"]


def ppi_mean(y, f, fu, lam, level=0.95):
    """(estimate, low, high) as ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, lam=lam)``."""
    y, f, fu = (np.asarray(v, dtype=np.float64) for v in (y, f, fu))
    n, big_n = y.shape[0], fu.shape[0]
    est = np.mean(lam * fu) + np.mean(y - lam * f)
    se = math.sqrt(np.std(y - lam * f) ** 2 / n + np.std(lam * fu) ** 2 / big_n)
    z = stats.norm.ppf(0.5 + level / 2)
    return est, est - z * se, est + z * se


def ppi_lambda(y, f, fu):
    """ppi_py's λ̂ for the mean (``_calc_lam_glm``, identity Hessian, clipped)."""
    y, f, fu = (np.asarray(v, dtype=np.float64) for v in (y, f, fu))
    n, big_n = y.shape[0], fu.shape[0]
    cov = np.mean((y - y.mean()) * (f - f.mean()))
    var = np.var(np.concatenate([f, fu]), ddof=1)
    return float(np.clip(cov / ((1 + n / big_n) * var), 0.0, 1.0))


def _one(y, f, fu, level):
    """PPI++ and the humans-only estimate of one group and quantity, from the
    definitions (eqs. P1–P7)."""
    n, big_n = y.shape[0], fu.shape[0]
    var0 = np.var(y, ddof=1) / n  # (P5)
    classical = (y.mean(), var0, n - 1)
    sff = np.var(f, ddof=1) if n > 1 else 0.0
    sfu = np.var(fu, ddof=1) if big_n > 1 else 0.0
    denom = sff + (n / big_n if big_n else 0.0) * sfu
    if n < 3 or big_n == 0 or denom <= 0:
        return classical, 0.0
    lam = np.cov(y, f, ddof=1)[0, 1] / denom  # (P3)
    est = y.mean() + lam * (fu.mean() - f.mean())  # (P1)
    e = y - lam * f
    s2e = np.sum((e - e.mean()) ** 2) / (n - 2)
    lev = (f.mean() - fu.mean()) ** 2 / ((n - 1) * sff) if sff > 0 else 0.0
    var = s2e * (1 / n + lev) + lam**2 * sfu / big_n  # (P4)
    return (est, var, n - 2), lam


def _shared_lambda(y, f, fu, gl, gu):
    """One λ for all groups from the pooled within-group moments (eq. P3g), by loops."""
    num = den = 0.0
    for g in np.unique(gl):
        a, b = gl == g, gu == g
        n, big_n = a.sum(), b.sum()
        if n < 2:
            continue
        sff = np.var(f[a], ddof=1)
        sfu = np.var(fu[b], ddof=1) if big_n > 1 else 0.0
        num += (n - 1) * np.cov(y[a], f[a], ddof=1)[0, 1]
        den += (n - 1) * (sff + (n / big_n if big_n else 0.0) * sfu)
    return num / den if den > 0 else 0.0


def naive_ppi(y, f, fu, gl, gu, level=0.95, *, shared=False):
    """{(group, column): (estimate, variance, df, lam, classical, classical variance)}
    for y, f: (n, d), fu: (N, d), groups gl (n,), gu (N,); ``shared``: one λ for all the
    groups and each group's plug-in variance (eqs. P3g, P4g)."""
    out = {}
    for c in range(y.shape[1]):
        lam_all = _shared_lambda(y[:, c], f[:, c], fu[:, c], gl, gu) if shared else None
        for g in np.unique(gl):
            a, b = gl == g, gu == g
            yy, ff, fuu = y[a, c], f[a, c], fu[b, c]
            classical = yy.mean()
            var0 = np.var(yy, ddof=1) / a.sum()
            if not shared:
                (est, var, df), lam = _one(yy, ff, fuu, level)
            elif a.sum() < 3 or b.sum() == 0 or lam_all == 0.0:
                est, var, df, lam = classical, var0, a.sum() - 1, 0.0
            else:
                lam = lam_all
                est = yy.mean() + lam * (fuu.mean() - ff.mean())  # (P1)
                var = np.var(yy - lam * ff, ddof=1) / a.sum()  # (P4g)
                var += lam**2 * (np.var(fuu, ddof=1) if b.sum() > 1 else 0.0) / b.sum()
                df = a.sum() - 1
            out[(g, c)] = (est, var, df, lam, classical, var0)
    return out
