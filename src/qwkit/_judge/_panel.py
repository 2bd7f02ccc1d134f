"""A panel of judges against the human reference: how correlated their errors are, how
many independent judges they amount to, how the panel's agreement with the humans grows
as judges are added, and how stable the systems' ranking is across judges. Equation
numbers are those of ``docs/judge.md``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from qwkit._judge import _stats
from qwkit._judge._consistency import (
    Settings,
    aggregate_rows,
    estimate,
    kappa_of_columns,
    kappa_row,
)
from qwkit._judge._input import Humans
from qwkit._judge._records import ReliabilityEstimate, nan_estimate

__all__ = ["PanelParts", "effective_judges", "kendall_w", "panel_parts"]


def _m_eff(n, sy, syy, sh, shh, syh, ssw, dfw, inv, corrected: bool):
    """The effective number of judges from the panel's sums (batched over a leading
    axis): the judges' errors are what remains of each judge beyond its linear relation
    to the human true score (eq. J11), and m_eff = m² / Σ of their correlations (eq. J12).
    Returns (m_eff, the error covariance matrix, each judge's correlation with the human
    true score)."""
    m = sy.shape[-1]
    d = n - 1.0
    s = (syy - sy[..., :, None] * sy[..., None, :] / n[..., None, None]) / d[..., None, None]
    c = (syh - sy * sh[..., None] / n[..., None]) / d[..., None]
    vh = (shh - sh * sh / n) / d
    noise = np.where(dfw > 0, ssw / np.where(dfw > 0, dfw, 1.0), 0.0) * inv / n
    tau = vh - (noise if corrected else 0.0)  # Var(τ): the human mean's variance less its noise
    cov = s - c[..., :, None] * c[..., None, :] / tau[..., None, None]  # (eq. J11)
    sd = np.sqrt(np.einsum("...jj->...j", cov))
    corr = cov / (sd[..., :, None] * sd[..., None, :])
    m_eff = m * m / corr.sum(axis=(-2, -1))  # (eq. J12)
    # an error covariance that is not positive semidefinite: the judges' errors cannot be
    # told from the human raters' noise (a true-score correlation at or beyond 1)
    safe = np.where(np.isfinite(cov), cov, 0.0)
    psd = np.linalg.eigvalsh(safe)[..., 0] >= -1e-12 * np.abs(safe).max(axis=(-2, -1))
    bad = ~(tau > 0) | np.any(~(sd > 0), axis=-1) | ~(m_eff > 0) | ~psd
    var_y = np.einsum("...jj->...j", s)
    rho = c / np.sqrt(var_y * tau[..., None])  # correlation with the true score (eq. J11)
    rho = np.where((tau > 0)[..., None], rho, np.nan)
    return np.where(bad, np.nan, m_eff), np.where(bad[..., None, None], np.nan, cov), rho


def _m_eff_loo(y, hb, sy, syy, sh, shh, syh, ssw, hc, tssw, tdfw, tinv, corrected: bool):
    """The leave-one-item-out values of m_eff and of the true-score correlations (eqs.
    J11–J12), as :func:`_m_eff` computes them on the items left, in O(n·m²) by matrix
    products and no n × m × m array: with v = 1 / (each judge's error SD), the sum of the
    error correlations is vᵀSv − (c·v)² / Var(τ), and vᵀSv of the items but i is
    (vᵀ(Σ y yᵀ)v − (v·yᵢ)² − (v·Σ₋ᵢ y)² / (n − 1)) / (n − 2)."""
    n, m = y.shape
    nn = n - 1.0
    d = nn - 1.0
    sy_i = sy - y  # (n, m): column sums without item i
    sh_i = sh - hb
    var_y = (np.diag(syy) - y * y - sy_i * sy_i / nn) / d
    c = (syh - y * hb[:, None] - sy_i * sh_i[:, None] / nn) / d
    vh = (shh - hb * hb - sh_i * sh_i / nn) / d
    dfw = tdfw - (hc - 1.0)
    noise = np.where(dfw > 0, (tssw - ssw) / np.where(dfw > 0, dfw, 1.0), 0.0)
    noise = noise * (tinv - 1.0 / hc) / nn
    tau = vh - (noise if corrected else 0.0)
    sd = np.sqrt(var_y - c * c / tau[:, None])  # the errors' SDs (eq. J11)
    v = 1.0 / sd
    quad = (np.einsum("ij,jk,ik->i", v, syy, v) - np.einsum("ij,ij->i", v, y) ** 2
            - np.einsum("ij,ij->i", v, sy_i) ** 2 / nn) / d  # fmt: skip
    total = quad - np.einsum("ij,ij->i", c, v) ** 2 / tau
    m_eff = m * m / total  # (eq. J12)
    bad = ~(tau > 0) | np.any(~(sd > 0), axis=1) | ~(m_eff > 0)
    rho = np.where((tau > 0)[:, None], c / np.sqrt(var_y * tau[:, None]), np.nan)
    return np.where(bad, np.nan, m_eff), rho


def effective_judges(y: np.ndarray, hc, h1, h2, level: float, corrected: bool):
    """(m_eff with its interval, the error covariance matrix, the human mean's noise
    variance) of an items × judges matrix ``y`` (each judge's mean over its runs,
    centred as the human sums ``h1``, ``h2`` of ``hc`` ratings are)."""
    n, m = y.shape
    hb = h1 / hc
    with np.errstate(invalid="ignore", divide="ignore"):
        ssw = np.where(hc > 1, h2 - h1 * h1 / hc, 0.0)
    terms = (y, hb, hb * hb, y * hb[:, None], ssw, hc - 1.0, 1.0 / hc)
    sy, sh, shh, syh, tssw, tdfw, tinv = (t.sum(axis=0) for t in terms)
    syy = y.T @ y
    with np.errstate(all="ignore"):
        full, cov, rho = _m_eff(
            np.float64(n), sy, syy, np.float64(sh), np.float64(shh), syh,
            np.float64(tssw), np.float64(tdfw), np.float64(tinv), corrected,
        )  # fmt: skip
        loo, rho_loo = _m_eff_loo(
            y, hb, sy, syy, sh, shh, syh, ssw, hc, tssw, tdfw, tinv, corrected
        )
    noise = float(tssw / tdfw * tinv / n) if corrected and tdfw > 0 else 0.0
    est = estimate("effective judges", _stats.jackknife(float(full), loo, level, "log"))
    rhos = tuple(
        estimate(
            "true-score correlation",
            _stats.jackknife(float(rho[j]), rho_loo[:, j], level, "fisher"),
        )
        for j in range(m)
    )
    return est, cov, noise, rhos


def _ranks(x: np.ndarray) -> np.ndarray:
    """Mid-ranks along the first axis (ties share their mean rank)."""
    order = np.argsort(x, axis=0, kind="stable")
    ranks = np.empty_like(x, dtype=np.float64)
    s = x.shape[0]
    np.put_along_axis(ranks, order, np.arange(1, s + 1, dtype=np.float64)[:, None], axis=0)
    for j in range(x.shape[1]):  # ties: rare in means of real scores
        col = x[:, j]
        _uniq, inv, cnt = np.unique(col, return_inverse=True, return_counts=True)
        if (cnt > 1).any():
            ranks[:, j] = (np.cumsum(cnt) - (cnt - 1) / 2.0)[inv]
    return ranks


def _w(ranks: np.ndarray) -> np.ndarray:
    """Kendall's W of ranks (systems along axis −2, judges along −1), no ties (eq. J13)."""
    s, m = ranks.shape[-2], ranks.shape[-1]
    total = ranks.sum(axis=-1)
    spread = ((total - total.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
    return 12.0 * spread / (m * m * (s**3 - s))


def kendall_w(means: np.ndarray, covs: list, level: float, n_resamples: int, rng):
    """Kendall's W of the judges' rankings of the systems (rows of ``means``, one column
    per judge), its Friedman p-value, and a parametric-bootstrap interval: system means
    drawn from their normal approximation (each system's covariance of the judges'
    item scores / its items) and ranked (eq. J14)."""
    s, m = means.shape
    ranks = _ranks(means)
    ties = 0.0
    for j in range(m):
        _, cnt = np.unique(means[:, j], return_counts=True)
        ties += float(np.sum(cnt.astype(float) ** 3 - cnt))
    total = ranks.sum(axis=1)
    w = 12.0 * float(np.sum((total - total.mean()) ** 2)) / (m * m * (s**3 - s) - m * ties)
    chi2 = m * (s - 1) * w
    pvalue = float(special.chdtrc(s - 1, chi2))
    roots = []
    for cov in covs:  # a square root of each system's covariance (eigen: PSD-safe)
        vals, vecs = np.linalg.eigh(cov)
        roots.append(vecs * np.sqrt(np.clip(vals, 0.0, None)))
    root = np.stack(roots)  # (s, m, m)
    draws = np.empty(n_resamples)
    batch = 2048
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        z = rng.standard_normal((b, s, m))
        sim = means[None] + np.einsum("sij,bsj->bsi", root, z)
        r = np.argsort(np.argsort(sim, axis=1), axis=1).astype(np.float64) + 1.0
        draws[start : start + b] = _w(r)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(draws, [alpha, 1.0 - alpha])
    # separation (eq. J14): the median, over judges, of the median over neighbouring
    # systems (in the judge's order) of their difference / its standard error
    se = np.sqrt(np.stack([np.diag(c) for c in covs]))
    per_judge = []
    for j in range(m):
        o = np.argsort(means[:, j], kind="stable")
        with np.errstate(invalid="ignore", divide="ignore"):
            gaps = np.diff(means[o, j]) / np.hypot(se[o[1:], j], se[o[:-1], j])
        per_judge.append(float(np.median(gaps)))
    separation = float(np.median(per_judge))
    est = ReliabilityEstimate(
        coefficient="Kendall's W",
        statistic=float(w),
        standard_error=float(np.std(draws, ddof=1)),
        low=float(low),
        high=float(high),
        n_items=int(s),
    )
    return est, pvalue, separation


@dataclass(frozen=True, slots=True)
class PanelParts:
    n_items: int
    order: tuple  # judge positions, best single kappa first
    error_correlation: np.ndarray
    error_sd: np.ndarray
    human_noise: float
    corrected: bool
    effective: ReliabilityEstimate
    true_score: tuple
    curve: tuple
    kendall: ReliabilityEstimate | None
    kendall_pvalue: float
    separation: float
    system_names: tuple
    system_means: np.ndarray | None
    n_system_items: int


def panel_parts(
    means: np.ndarray,
    humans: Humans | None,
    systems: np.ndarray | None,
    system_names: tuple,
    names: tuple,
    single: list,
    s: Settings,
    n_resamples: int,
    rng,
) -> PanelParts:
    """Everything about the panel: ``means`` is items × judges (each judge's mean over
    its runs; NaN where it scored nothing), ``single`` each judge's kappa with the
    humans (for the order in which judges join the panel)."""
    m = means.shape[1]
    complete = ~np.isnan(means).any(axis=1)
    nan = math.nan
    corr = np.full((m, m), nan)
    sd = np.full(m, nan)
    effective = nan_estimate("effective judges")
    true_score: tuple = ()
    curve: tuple = ()
    noise, corrected = nan, False
    order = tuple(
        int(j)
        for j in np.argsort([-x if not math.isnan(x) else math.inf for x in single], kind="stable")
    )
    rows = complete if humans is None else complete & (humans.count > 0)
    n_items = int(np.count_nonzero(rows))
    if humans is not None and n_items >= 3:
        hc = humans.count[rows]
        centre = float(humans.s1[rows].sum() / hc.sum())
        h1 = humans.s1[rows] - hc * centre
        h2 = humans.s2[rows] - 2.0 * centre * humans.s1[rows] + hc * centre * centre
        y = means[rows] - centre
        corrected = bool(np.any(hc >= 2))
        effective, cov, noise, true_score = effective_judges(y, hc, h1, h2, s.level, corrected)
        with np.errstate(invalid="ignore", divide="ignore"):
            sd = np.sqrt(np.diag(cov))
            corr = cov / np.outer(sd, sd)
        steps = []
        for size in range(1, m + 1):
            members = [order[t] for t in range(size)]
            agg = aggregate_rows(y[:, members], s.aggregate) if size > 1 else y[:, members[0]]
            jk = kappa_of_columns([agg], hc, h1, h2, s.level)
            label = "1 judge" if size == 1 else f"{size} judges ({s.aggregate})"
            how = "one judge" if size == 1 else s.aggregate
            steps.append(kappa_row(label, size, [names[j] for j in members], how, jk, s))
        curve = tuple(steps)
    kendall, kendall_p, sys_means, n_sys_items, separation = None, nan, None, 0, nan
    if systems is not None:
        code = systems[complete]
        y = means[complete]
        present = [k for k in range(len(system_names)) if np.count_nonzero(code == k) >= 2]
        if len(present) >= 3:
            sys_means = np.stack([y[code == k].mean(axis=0) for k in present])
            covs = [
                np.cov(y[code == k], rowvar=False, ddof=1).reshape(m, m)
                / np.count_nonzero(code == k)
                for k in present
            ]
            kendall, kendall_p, separation = kendall_w(sys_means, covs, s.level, n_resamples, rng)
            system_names = tuple(system_names[k] for k in present)
            n_sys_items = int(np.isin(code, present).sum())
    return PanelParts(
        n_items=n_items,
        order=order,
        error_correlation=corr,
        error_sd=sd,
        human_noise=noise,
        corrected=corrected,
        effective=effective,
        true_score=true_score,
        curve=curve,
        kendall=kendall,
        kendall_pvalue=kendall_p,
        separation=separation,
        system_names=tuple(system_names) if sys_means is not None else (),
        system_means=sys_means,
        n_system_items=n_sys_items,
    )
