"""The statistics of a judge's repeated scores, each with its leave-one-item-out values.

Every statistic here is a smooth function of sums over items (an item's count, sum and
sum of squares of scores; its human ratings' sums), so that leaving item i out is
subtracting its terms: the jackknife over items costs O(n), not O(n²). Items are the
sampling units — runs, prompt variants and human rating slots are nested in them — and
the interval is Student's t on n − 1 degrees of freedom on a scale where the statistic
is close to normal (eq. J10 of ``docs/judge.md``):

* ICC(1), ICC(A,1) and Krippendorff's α: z = ½ log((1 + (k − 1)ρ) / (1 − ρ)), the log of
  the F ratio the coefficient is made of (Fisher's z for intraclass correlations);
* kappa (the continuous quadratic form): Fisher's z = atanh(κ);
* the effective number of judges: its log.

Values are centred on the grand mean before any sum of squares is taken (the statistics
are location-free), so that no sum cancels catastrophically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

__all__ = [
    "Jackknifed",
    "alpha_interval",
    "icc1",
    "icc_a1",
    "jackknife",
    "kappa_human_pairs",
    "kappa_pairs",
    "pooled_kappa_sums",
    "runs_for",
    "spearman_brown",
    "t_quantile",
]


def t_quantile(level: float, df: float) -> float:
    """The two-sided ``level`` quantile of Student's t on ``df`` degrees of freedom."""
    return float(special.stdtrit(df, 0.5 + level / 2.0))


def _z(kind: str, k: float):
    """(transform, inverse) of the interval's scale (eq. J10)."""
    if kind == "icc":
        return (
            lambda r: 0.5 * np.log((1.0 + (k - 1.0) * r) / (1.0 - r)),
            lambda z: (np.exp(2.0 * z) - 1.0) / (np.exp(2.0 * z) + k - 1.0),
        )
    if kind == "fisher":
        return np.arctanh, np.tanh
    if kind == "log":
        return np.log, np.exp
    return (lambda r: r), (lambda z: z)


@dataclass(frozen=True, slots=True)
class Jackknifed:
    """A statistic, its jackknife standard error (its own scale), its interval, and the
    standard error on the interval's scale (for one-sided tests)."""

    statistic: float
    standard_error: float
    low: float
    high: float
    n_items: int
    z: float  # the statistic on the interval's scale
    z_error: float  # its standard error there
    kind: str
    k: float

    def pvalue_above(self, threshold: float) -> float:
        """One-sided p-value of H0: statistic ≤ threshold (Student's t, n − 1 df)."""
        f, _ = _z(self.kind, self.k)
        with np.errstate(all="ignore"):
            t = (self.z - float(f(np.float64(threshold)))) / self.z_error
        if not math.isfinite(t):
            if math.isnan(t):
                return math.nan
            return 0.0 if t > 0 else 1.0
        return float(special.stdtr(self.n_items - 1, -t))


def _spread(values: np.ndarray) -> float:
    n = values.size
    return math.sqrt((n - 1.0) / n * float(np.sum((values - values.mean()) ** 2)))


def jackknife(
    statistic: float, loo: np.ndarray, level: float, kind: str = "none", k: float = 2.0
) -> Jackknifed:
    """The jackknife standard error and Student-t interval of ``statistic`` from its
    leave-one-out values ``loo`` (eq. J10), on the scale ``kind`` ("icc" with ``k``
    ratings per item, "fisher", "log", "none")."""
    n = int(loo.size)
    nan = Jackknifed(math.nan, math.nan, math.nan, math.nan, n, math.nan, math.nan, kind, k)
    if n < 2 or not math.isfinite(statistic):
        return Jackknifed(statistic, math.nan, math.nan, math.nan, n, math.nan, math.nan, kind, k)
    se = _spread(loo) if np.all(np.isfinite(loo)) else math.nan
    f, finv = _z(kind, k)
    with np.errstate(all="ignore"):
        z, zl = float(f(np.float64(statistic))), f(loo)
    if not (math.isfinite(z) and np.all(np.isfinite(zl))):
        if not np.all(np.isfinite(loo)):
            return nan
        kind, k = "none", 2.0  # at the edge of the scale (ρ = 1): the statistic's own scale
        f, finv = _z(kind, k)
        z, zl = statistic, loo
    z_error = _spread(zl)
    q = t_quantile(level, n - 1)
    with np.errstate(all="ignore"):
        low, high = (
            float(finv(np.float64(z - q * z_error))),
            float(finv(np.float64(z + q * z_error))),
        )
    return Jackknifed(statistic, se, low, high, n, z, z_error, kind, k)


# ---------------------------------------------------------------------------- ICC(1), α


def _icc1(big_n, n, t1, a, ss2, m2):
    """ICC(1) of the one-way ANOVA with unequal counts (eqs. J1–J2)."""
    ssw = ss2 - a  # within items
    ssb = a - t1 * t1 / big_n  # between items
    msw = ssw / (big_n - n)
    msb = ssb / (n - 1.0)
    k0 = (big_n - m2 / big_n) / (n - 1.0)  # (eq. J1)
    return (msb - msw) / (msb + (k0 - 1.0) * msw), k0  # (eq. J2)


def icc1(m: np.ndarray, s1: np.ndarray, s2: np.ndarray):
    """(ICC(1), its leave-one-item-out values, k₀) from each item's count ``m``, sum
    ``s1`` and sum of squares ``s2`` (items with m ≥ 1; centred values)."""
    big_n, n = np.float64(m.sum()), np.float64(m.size)  # numpy floats: 0/0 is nan, no error
    t1, a, ss2, m2 = (np.float64(x.sum()) for x in (s1, s1 * s1 / m, s2, m * m))
    with np.errstate(all="ignore"):
        full, k0 = _icc1(big_n, n, t1, a, ss2, m2)
        loo, _ = _icc1(big_n - m, n - 1.0, t1 - s1, a - s1 * s1 / m, ss2 - s2, m2 - m * m)
    return float(full), loo, float(k0)


def _alpha(big_n, t1, t2, within):
    d_e = 2.0 * (big_n * t2 - t1 * t1) / (big_n * (big_n - 1.0))
    d_o = within / big_n
    return 1.0 - d_o / d_e  # (eq. J3)


def alpha_interval(m: np.ndarray, s1: np.ndarray, s2: np.ndarray):
    """(Krippendorff's α with the interval metric, its leave-one-out values, the mean
    number of scores per item) over items with m ≥ 2."""
    keep = m >= 2
    m, s1, s2 = m[keep], s1[keep], s2[keep]
    w = 2.0 * (m * s2 - s1 * s1) / (m - 1.0)  # Σ over ordered pairs of an item, / (m − 1)
    big_n, t1, t2, within = (np.float64(x.sum()) for x in (m, s1, s2, w))
    with np.errstate(all="ignore"):
        full = _alpha(big_n, t1, t2, within)
        loo = _alpha(big_n - m, t1 - s1, t2 - s2, within - w)
    return float(full), loo, big_n / max(m.size, 1)


def icc_a1(x: np.ndarray):
    """(ICC(A,1), its leave-one-item-out values) of a complete items × runs matrix
    (centred): two-way ANOVA, absolute agreement (eq. J5)."""
    n, r = x.shape
    s1 = x.sum(axis=1)
    s2 = (x * x).sum(axis=1)
    c = x.sum(axis=0)
    cross = x @ c  # Σ_j C_j x_ij

    def value(n, t, rows, cols, total):
        ssr = rows / r - t * t / (n * r)
        ssc = cols / n - t * t / (n * r)
        sse = total - t * t / (n * r) - ssr - ssc
        msr, msc = ssr / (n - 1.0), ssc / (r - 1.0)
        mse = sse / ((n - 1.0) * (r - 1.0))
        return (msr - mse) / (msr + (r - 1.0) * mse + r * (msc - mse) / n)  # (eq. J5)

    t, rows, total = (np.float64(x.sum()) for x in (s1, s1 * s1, s2))
    cols = np.float64(c @ c)
    with np.errstate(all="ignore"):
        full = value(np.float64(n), t, rows, cols, total)
        loo = value(n - 1.0, t - s1, rows - s1 * s1, cols - 2.0 * cross + s2, total - s2)
    return float(full), loo


# ---------------------------------------------------------------------------- runs needed


def spearman_brown(rho: float, k: float) -> float:
    """The reliability of the mean of k runs from that of one (eq. J4)."""
    den = 1.0 + (k - 1.0) * rho
    return k * rho / den if den > 0 else math.nan


def runs_for(rho: float, target: float) -> float:
    """The fewest runs whose mean reaches ``target`` by Spearman–Brown (eq. J6): inf
    when ρ ≤ 0 (no number of runs does), nan when ρ is."""
    if math.isnan(rho):
        return math.nan
    if rho >= 1.0:
        return 1.0
    if rho <= 0.0:
        return math.inf
    need = target * (1.0 - rho) / (rho * (1.0 - target))
    return float(max(1, math.ceil(need - 1e-9)))


# ---------------------------------------------------------------------------- kappa


def pooled_kappa_sums(p, sx, sy, sxx, syy, sxy):
    """Quadratic kappa of pooled pairs from their sums (eq. J7): 2 cov / (var + var +
    squared mean difference), every moment with divisor P (QWK = CCC with divisor n)."""
    return 2.0 * (p * sxy - sx * sy) / (p * (sxx + syy) - 2.0 * sx * sy)


def kappa_pairs(a: np.ndarray, count: np.ndarray, h1: np.ndarray, h2: np.ndarray):
    """(kappa of a judge's per-item score ``a`` with every human rating of the item,
    pooled over ratings; its leave-one-item-out values) over items with ``a`` and a
    human rating; values centred by the caller."""
    keep = ~np.isnan(a) & (count > 0)
    a, c, h1, h2 = a[keep], count[keep], h1[keep], h2[keep]
    terms = (c, c * a, h1, c * a * a, h2, a * h1)  # P, Sx, Sy, Sxx, Syy, Sxy per item
    sums = [np.float64(t.sum()) for t in terms]
    with np.errstate(all="ignore"):
        full = pooled_kappa_sums(*sums)
        loo = pooled_kappa_sums(*(s - t for s, t in zip(sums, terms, strict=True)))
    return float(full), loo, keep


def kappa_human_pairs(count: np.ndarray, h1: np.ndarray, h2: np.ndarray):
    """(kappa of every ordered pair of human ratings of the same item, pooled; its
    leave-one-item-out values) over items with two or more ratings."""
    keep = count >= 2
    c, h1, h2 = count[keep], h1[keep], h2[keep]
    sx = (c - 1.0) * h1
    sxx = (c - 1.0) * h2
    terms = (c * (c - 1.0), sx, sx, sxx, sxx, h1 * h1 - h2)
    sums = [np.float64(t.sum()) for t in terms]
    with np.errstate(all="ignore"):
        full = pooled_kappa_sums(*sums)
        loo = pooled_kappa_sums(*(s - t for s, t in zip(sums, terms, strict=True)))
    return float(full), loo, keep
