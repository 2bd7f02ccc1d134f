"""Prediction-powered estimates of means, power-tuned (PPI++), with their classical
twins (``docs/calibration.md``, eqs. P1–P7).

n labelled items with human values Y and judge predictions f, N unlabelled items with
predictions f̃; for each group and each coordinate (the mean, or one category's share):

    θ̂(λ) = Ȳ + λ·(mean f̃ − f̄)                                                   (P1)
    Var θ̂(λ) = Var(Y − λf)/n + λ²·Var(f̃)/N                                       (P2)
    λ̂ = S_Yf / (S_ff + (n/N)·S̃_ff)   (the minimizer of the estimated P2)           (P3)
    V̂ = S²_e·(1/n + (f̄ − mean f̃)²/((n − 1)·S_ff)) + λ̂²·S̃_ff/N,  S²_e = Σ(eᵢ − ē)²/(n − 2),
        eᵢ = Yᵢ − λ̂fᵢ, on n − 2 degrees of freedom                                (P4)
    classical: Ȳ, S_YY/n, on n − 1 degrees of freedom                              (P5)

and for the groups of one call, one λ from the pooled within-group moments, the same
for every group (a fixed λ keeps each group's estimate unbiased; pooling keeps it from
the noise of a group's few items), each group's variance the plug-in P2 on n_g − 1
degrees of freedom:

    λ̂ = Σ_g (n_g − 1)·S_Yf,g / Σ_g (n_g − 1)·(S_ff,g + (n_g/N_g)·S̃_ff,g)           (P3g)
    V̂_g = S²(Y − λ̂f)_g / n_g + λ̂²·S̃_ff,g / N_g                                   (P4g)

with the classical estimate where the judge cannot be used (P6: constant on the
labelled items, no unlabelled item, fewer than 3 labelled items), and the effective
number of human labels S_YY / V̂ (P7). Everything is computed from per-group moments
(two passes of ``np.bincount``), for all groups and coordinates at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PPI", "Compressed", "Moments", "moments", "ppi"]

#: Why an estimate is the classical one (``PPI.reason``).
REASONS = {
    2: "the judge is constant on the labelled items: the humans-only estimate",
    3: "no unlabelled item: the humans-only estimate",
    4: "fewer than 3 labelled items: the humans-only estimate",
}


@dataclass(frozen=True, slots=True)
class Compressed:
    """Predictions that take few distinct rows: item i's is ``table[where[i]]`` (the
    unlabelled items of a cross-fitted mapping: one row per distinct judge score)."""

    table: np.ndarray  # (m, d)
    where: np.ndarray  # (N,)


@dataclass(frozen=True, slots=True)
class Moments:
    """Per group (rows) and coordinate (columns): counts, means and (co)variances
    (divisor n − 1; 0 with fewer than two items) of Y and f, and of f̃."""

    n: np.ndarray  # (G,)
    y_mean: np.ndarray  # (G, d)
    f_mean: np.ndarray
    syy: np.ndarray
    sff: np.ndarray
    syf: np.ndarray
    big_n: np.ndarray  # (G,)
    fu_mean: np.ndarray
    sfu: np.ndarray


def _means(x: np.ndarray, g: np.ndarray, n: np.ndarray, n_groups: int) -> np.ndarray:
    out = np.column_stack(
        [np.bincount(g, weights=x[:, c], minlength=n_groups) for c in range(x.shape[1])]
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return out / n[:, None]


def _co(a, b, g, n, n_groups) -> np.ndarray:
    out = np.column_stack(
        [np.bincount(g, weights=a[:, c] * b[:, c], minlength=n_groups) for c in range(a.shape[1])]
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n[:, None] > 1, out / (n[:, None] - 1), 0.0)


def _compressed_moments(fu: Compressed, gu, n_groups: int):
    """Counts, means and variances of compressed predictions per group: one pass over
    the items (their (group, row) counts), then products of small matrices."""
    m = fu.table.shape[0]
    counts = np.bincount(gu * m + fu.where, minlength=n_groups * m).reshape(n_groups, m)
    counts = counts.astype(np.float64)
    big_n = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (counts @ fu.table) / big_n[:, None]
        dev = fu.table[None, :, :] - np.nan_to_num(mean)[:, None, :]  # (G, m, d)
        sq = np.einsum("gm,gmd->gd", counts, dev * dev)
        var = np.where(big_n[:, None] > 1, sq / (big_n[:, None] - 1), 0.0)
    return big_n, mean, var


def moments(y, f, g, fu, gu, n_groups: int) -> Moments:
    """The moments of labelled (y, f: (n, d), groups g) and unlabelled (fu: (N, d) or
    :class:`Compressed`, groups gu) items, two passes each."""
    n = np.bincount(g, minlength=n_groups).astype(np.float64)
    y_mean, f_mean = _means(y, g, n, n_groups), _means(f, g, n, n_groups)
    yc, fc = y - y_mean[g], f - f_mean[g]
    if isinstance(fu, Compressed) and n_groups * fu.table.shape[0] <= max(
        4 * fu.where.shape[0], 1 << 16
    ):
        big_n, fu_mean, sfu = _compressed_moments(fu, gu, n_groups)
    else:
        if isinstance(fu, Compressed):
            fu = fu.table[fu.where]
        big_n = np.bincount(gu, minlength=n_groups).astype(np.float64)
        fu_mean = _means(fu, gu, big_n, n_groups)
        fuc = fu - np.nan_to_num(fu_mean)[gu]
        sfu = _co(fuc, fuc, gu, big_n, n_groups)
    return Moments(
        n=n,
        y_mean=y_mean,
        f_mean=f_mean,
        syy=_co(yc, yc, g, n, n_groups),
        sff=_co(fc, fc, g, n, n_groups),
        syf=_co(yc, fc, g, n, n_groups),
        big_n=big_n,
        fu_mean=np.nan_to_num(fu_mean),
        sfu=sfu,
    )


@dataclass(frozen=True, slots=True)
class PPI:
    """PPI++ and classical estimates, variances and degrees of freedom, (G, d) each;
    ``reason`` > 0 where the PPI++ row is the classical one (:data:`REASONS`)."""

    estimate: np.ndarray
    variance: np.ndarray
    df: np.ndarray
    lam: np.ndarray
    classical: np.ndarray
    classical_variance: np.ndarray
    classical_df: np.ndarray
    reason: np.ndarray


def ppi(m: Moments, level: float, *, shared: bool = False) -> PPI:
    """Eqs. P1–P6 for every group and coordinate; with ``shared``, one λ per coordinate
    for all the groups (eqs. P3g, P4g).

    No estimate falls back to the classical one because its interval came out wider:
    choosing the narrower of two intervals after seeing both breaks the coverage (0.935
    instead of 0.95 per group at about ten labelled items, in ``docs/calibration.md``'s
    simulation); the fallbacks of P6 depend on the design only."""
    n = m.n[:, None] * np.ones_like(m.y_mean)
    big_n = m.big_n[:, None] * np.ones_like(m.y_mean)
    reason = np.zeros(n.shape, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = m.sff + np.where(big_n > 0, n / big_n, 0.0) * m.sfu
        if shared:  # pooled within-group moments: one λ for every group   (P3g)
            w = np.maximum(n - 1, 0.0)
            pooled = (w * denom).sum(axis=0)
            lam = np.where(pooled > 0, (w * m.syf).sum(axis=0) / pooled, 0.0) * np.ones_like(n)
            reason[np.broadcast_to(pooled <= 0, n.shape)] = 2
        else:
            lam = np.where(denom > 0, m.syf / denom, 0.0)  # (P3)
            reason[denom <= 0] = 2
        reason[big_n == 0] = 3
        reason[n < 3] = 4
        lam = np.where(reason > 0, 0.0, lam)
        est = m.y_mean + lam * (m.fu_mean - m.f_mean)  # (P1)
        see = np.maximum(m.syy - 2 * lam * m.syf + lam * lam * m.sff, 0.0)  # S² of Y − λf
        unl = np.where(big_n > 0, lam * lam * m.sfu / big_n, 0.0)
        if shared:
            var = see / n + unl  # (P4g)
            df = n - 1
        else:
            lev = np.where(m.sff > 0, (m.f_mean - m.fu_mean) ** 2 / ((n - 1) * m.sff), 0.0)
            var = see * (n - 1) / (n - 2) * (1 / n + lev) + unl  # (P4)
            df = n - 2
        var0 = m.syy / n  # (P5)
        df0 = n - 1
    classical = reason > 0
    return PPI(
        estimate=np.where(classical, m.y_mean, est),
        variance=np.where(classical, var0, var),
        df=np.where(classical, df0, df),
        lam=np.where(classical, 0.0, lam),
        classical=m.y_mean,
        classical_variance=var0,
        classical_df=df0,
        reason=reason,
    )
