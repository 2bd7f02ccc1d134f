"""Intervals and tests of the scorer evaluation that hold their level at the small samples
users have (docs/evaluation.md §3, "Small samples").

Every statistic is θ = f(S) of per-unit sums (:mod:`qwkit._evaluation._sums`); a unit
is an item, or a cluster of items (``cluster=``). Three ways to an interval:

``"jackknife"`` (the default) — the exact delete-one-unit jackknife, on the scale where
    the statistic's spread does not move with its value (Fisher's z for kappas and
    correlations), with Student's t on an *effective* number of degrees of freedom: the
    Satterthwaite df of the jackknife variance, ν = 2G / (b₂ − 1), b₂ the kurtosis of the
    delete-one values (the variance of a variance estimate is (μ₄ − σ⁴)/G), capped at
    G − 1 (eq. S1). A difference of two kappas (the degradation) combines their own
    intervals by Zou's (2007) MOVER (eq. S2); a ratio (PRMSE) is tested by inverting
    Fieller's linearization at each null value (eq. S3), so that its interval is the set
    of values the test does not reject.
``"asymptotic"`` — the delta method on each unit's influence, normal critical values:
    exact for large samples, liberal below a few hundred units.
``"bootstrap"`` — BCa of the units (B resamples).

:class:`Inference` keeps what an interval or p-value needs later (a result's
``confidence_interval(level)``); one class per kind of pivot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy import optimize, special

from qwkit._base._results import freeze_arrays, reduce_dataclass, result_dict
from qwkit._base._validation import check_confidence_level, check_interval_method
from qwkit._base._warnings import DegenerateIntervalWarning, UndefinedKappaWarning, warn
from qwkit._evaluation._sums import ItemSums
from qwkit._table._resampling import ConfidenceInterval

__all__ = [
    "METHODS",
    "MIN_UNITS",
    "Difference",
    "Inference",
    "IntervalResult",
    "Ratio",
    "infer",
    "infer_difference",
    "infer_ratio",
    "moments_row",
    "text_block",
]

METHODS = ("jackknife", "asymptotic", "bootstrap")
#: The fewest units (double-scored items, or clusters) at which the tests hold their level
#: in the committed simulations (docs/evaluation.md §3): below, a verdict is inconclusive.
MIN_UNITS = 20
#: Kappas and correlations on Fisher's scale are kept within ±(1 − 1e-12).
_EDGE = 1.0 - 1e-12


def _critical(p: float, df: float) -> float:
    return float(special.ndtri(p) if math.isinf(df) else special.stdtrit(df, p))


def _cdf(t: float, df: float) -> float:
    return float(special.ndtr(t) if math.isinf(df) else special.stdtr(df, t))


def _z(x):
    return np.arctanh(np.clip(x, -_EDGE, _EDGE))


def jackknife(loo: np.ndarray) -> tuple[float, float]:
    """(the jackknife standard error, its effective df) from the delete-one values
    ``loo`` of G units (eq. 5): the df is Satterthwaite's, 2G/(b₂ − 1), b₂ the kurtosis
    of the delete-one values — the variance of a variance estimate is (μ₄ − σ⁴)/G — at
    most G − 1 and at least 1 (eq. S1)."""
    g = loo.size
    dev = loo - loo.mean()
    sq = dev * dev
    ss = float(sq.sum())
    se = math.sqrt((g - 1.0) / g * ss)
    if not ss > 0:
        return se, float(g - 1)
    kurtosis = g * float(np.dot(sq, sq)) / (ss * ss)
    return se, float(min(g - 1.0, max(1.0, 2.0 * g / max(kurtosis - 1.0, 1e-12))))


def effective_df(loo: np.ndarray) -> float:
    """Satterthwaite's df of a jackknife variance (eq. S1; :func:`jackknife`)."""
    return jackknife(loo)[1]


def _jackknife_se(loo: np.ndarray) -> float:
    g = loo.size
    dev = loo - loo.mean()
    return math.sqrt((g - 1.0) / g * float(np.dot(dev, dev)))  # (eq. 5)


# ---------------------------------------------------------------------------- one statistic


@dataclass(frozen=True, slots=True, eq=False)
class Inference:
    """An estimate and what its intervals and tests need.

    Wald (``method`` "jackknife" or "asymptotic"): ``scale_se`` is the standard error on
    the interval's scale (Fisher's z when ``fisher``), ``df`` its degrees of freedom (inf:
    normal); ``standard_error`` is on the statistic's own scale. A proportion under
    "asymptotic" gets Wilson's interval. "bootstrap": BCa from ``draws`` and the jackknife
    values ``loo``.
    """

    estimate: float
    standard_error: float
    method: str
    n_units: int
    df: float = math.inf
    scale_se: float = math.nan
    fisher: bool = False
    proportion: bool = False
    draws: np.ndarray | None = None
    loo: np.ndarray | None = None
    lower_bound: float = -math.inf
    upper_bound: float = math.inf

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def n_items(self) -> int:
        """The units of the estimate (items, or clusters)."""
        return self.n_units

    def _defined(self) -> bool:
        if math.isnan(self.estimate):
            return False
        if self.method == "bootstrap":
            return self.draws is not None and self.draws.size > 0
        return not math.isnan(self.scale_se)

    def interval(self, confidence_level: float) -> ConfidenceInterval:
        """Two-sided interval at ``confidence_level``."""
        if not self._defined():
            return ConfidenceInterval(math.nan, math.nan)
        tail = (1.0 - confidence_level) / 2.0
        est = self.estimate
        if self.method == "bootstrap":
            lo, hi = (self._bca_quantile(p) for p in (tail, 1.0 - tail))
        elif self.proportion and self.method == "asymptotic":
            lo, hi = _wilson(est, self.n_units, _critical(1.0 - tail, self.df))
        else:
            c = _critical(1.0 - tail, self.df)
            if self.fisher and self.scale_se == 0.0:
                lo = hi = est  # every item on one line: a one-point interval
            elif self.fisher:
                z = float(_z(est))
                lo, hi = math.tanh(z - c * self.scale_se), math.tanh(z + c * self.scale_se)
            else:
                lo, hi = est - c * self.scale_se, est + c * self.scale_se
        return ConfidenceInterval(
            float(max(lo, self.lower_bound)), float(min(hi, self.upper_bound))
        )

    def pvalue(self, null: float, alternative: str) -> float:
        """p-value of H0: θ ≤ null (``alternative="greater"``) or θ ≥ null ("less"), the
        test that the interval of the same method inverts."""
        if not self._defined():
            return math.nan
        if self.method == "bootstrap":
            p_greater = self._bca_pvalue(null)
            return p_greater if alternative == "greater" else 1.0 - p_greater
        est, se = self.estimate, self.scale_se
        if self.fisher:
            est, null = float(_z(est)), float(_z(null))
        if not se > 0:
            if est == null:
                return math.nan
            return float((est > null) == (alternative == "less"))
        t = (est - null) / se
        return _cdf(-t, self.df) if alternative == "greater" else _cdf(t, self.df)

    # ------------------------------------------------------------------ BCa

    def _bootstrap(self) -> tuple[np.ndarray, np.ndarray]:
        """The draws and the delete-one values (both set when ``_defined()`` under
        "bootstrap": :func:`infer`)."""
        assert self.draws is not None and self.loo is not None
        return self.draws, self.loo

    def _bca_terms(self) -> tuple[float, float]:
        theta, loo = self._bootstrap()
        below = float(np.count_nonzero(theta < self.estimate))
        ties = float(np.count_nonzero(theta == self.estimate))
        z0 = float(special.ndtri(_clip((below + ties / 2.0) / theta.size, theta.size)))
        dev = np.mean(loo) - loo
        ss = float(np.dot(dev, dev))
        accel = float(np.sum(dev**3)) / (6.0 * ss**1.5) if ss > 0 else 0.0
        return z0, accel

    def _bca_quantile(self, p: float) -> float:
        z0, a = self._bca_terms()
        zp = z0 + float(special.ndtri(p))
        return float(
            np.quantile(self._bootstrap()[0], float(special.ndtr(z0 + zp / (1.0 - a * zp))))
        )

    def _bca_pvalue(self, null: float) -> float:
        """The one-sided level at which the BCa lower limit equals ``null``."""
        theta = self._bootstrap()[0]
        z0, a = self._bca_terms()
        frac = (np.count_nonzero(theta < null) + np.count_nonzero(theta == null) / 2.0) / theta.size
        w = float(special.ndtri(_clip(frac, theta.size))) - z0
        return float(special.ndtr(w / (1.0 + a * w) - z0))


def _clip(frac: float, b: int) -> float:
    """A bootstrap proportion kept within (1/(2B), 1 − 1/(2B)): never an infinite z."""
    return min(max(frac, 0.5 / b), 1.0 - 0.5 / b)


def _wilson(p: float, n: int, z: float) -> tuple[float, float]:
    """Wilson's (1927) score interval for a proportion p of n items."""
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    return centre - half, centre + half


def _undefined(what: str, method: str, n: int, **keep) -> Inference:
    warn(f"The {what} is undefined (0/0: a rater used a single rating).", UndefinedKappaWarning)
    return Inference(math.nan, math.nan, method, n, **keep)


def _loo_or_none(stat: ItemSums, total: np.ndarray, what: str) -> np.ndarray | None:
    loo = stat.leave_one_out(total)
    if np.all(np.isfinite(loo)):
        return loo
    warn(
        f"Leaving out one item makes the {what} undefined (too few items, or one item "
        "holds all of a rater's spread); its jackknife interval is nan.",
        DegenerateIntervalWarning,
    )
    return None


def _bootstrap_draws(stat: ItemSums, n_resamples: int, rng, what: str) -> np.ndarray:
    draws = stat.resample(n_resamples, rng)
    finite = np.isfinite(draws)
    if not finite.all():
        warn(
            f"{int((~finite).sum())} of {n_resamples} bootstrap resamples have an undefined "
            f"{what} and were left out.",
            UndefinedKappaWarning,
        )
    return draws[finite]


def infer(
    stat: ItemSums,
    method: str,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    fisher: bool = False,
    proportion: bool = False,
    lower_bound: float = -math.inf,
    upper_bound: float = math.inf,
    what: str = "statistic",
) -> Inference:
    """The estimate of ``stat`` and what its intervals need, by ``method``; ``fisher``:
    a kappa or a correlation, whose Wald intervals are made on Fisher's z scale."""
    total = stat.total()
    estimate = stat.value(total)
    n = stat.n_items
    keep: dict[str, Any] = {
        "fisher": fisher,
        "proportion": proportion,
        "lower_bound": lower_bound,
        "upper_bound": upper_bound,
    }
    if not math.isfinite(estimate):
        return _undefined(what, method, n, **keep)
    if method == "asymptotic":
        if proportion:  # Wilson's interval needs p and n only
            se = math.sqrt(estimate * (1.0 - estimate) / n)
            return Inference(estimate, se, method, n, scale_se=se, **keep)
        infl = stat.influence(total)
        se = math.sqrt(float(np.dot(infl, infl))) / n  # (eq. 4)
        scale_se = se / (1.0 - estimate * estimate) if fisher else se
        if fisher and abs(estimate) >= 1.0:
            scale_se = 0.0
        return Inference(estimate, se, method, n, scale_se=scale_se, **keep)
    loo = _loo_or_none(stat, total, what)
    if loo is None:
        return Inference(estimate, math.nan, method, n, **keep)
    se = _jackknife_se(loo)
    if method == "jackknife":
        scale_se, df = jackknife(_z(loo)) if fisher else (se, effective_df(loo))
        if fisher and abs(estimate) >= 1.0:
            scale_se = 0.0
        return Inference(estimate, se, method, n, df=df, scale_se=scale_se, **keep)
    draws = _bootstrap_draws(stat, n_resamples, rng, what)
    se = float(np.std(draws, ddof=1)) if draws.size > 1 else math.nan
    return Inference(estimate, se, method, n, draws=draws, loo=loo, **keep)


# ---------------------------------------------------------------------------- a difference


@dataclass(frozen=True, slots=True, eq=False)
class Difference(Inference):
    """θ_a − θ_b of two statistics of the same units (the degradation: κ(h, m) − κ(h, h)).

    Under "jackknife", with ``fisher`` (two kappas or correlations), Zou's (2007) method
    of variance estimates recovery (MOVER): each statistic gets its own interval — the
    jackknife on Fisher's z with Student's t on its effective df, so each is on the scale
    where its spread does not move with its level and never leaves [−1, 1] — and the
    limits of the difference recover its variance from theirs and from the jackknife
    correlation r of the two (eq. S2):

        L = θ̂_a − θ̂_b − √[(θ̂_a − l_a)² + (u_b − θ̂_b)² − 2r(θ̂_a − l_a)(u_b − θ̂_b)]
        U = θ̂_a − θ̂_b + √[(u_a − θ̂_a)² + (θ̂_b − l_b)² − 2r(u_a − θ̂_a)(θ̂_b − l_b)].

    Without ``fisher`` the jackknife's Student-t interval of the linear difference.
    "asymptotic" and "bootstrap" are the linear difference's Wald and BCa intervals (the
    base class).
    """

    loo_a: np.ndarray | None = None
    loo_b: np.ndarray | None = None
    estimate_a: float = math.nan
    estimate_b: float = math.nan
    #: each side on Fisher's scale: (z of the estimate, jackknife SE of z, effective df)
    side_a: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    side_b: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    correlation: float = 0.0  # of the two statistics' delete-one values

    def _mover(self) -> bool:
        return self.method == "jackknife" and self.fisher and self.loo_a is not None

    def _limits(self, confidence_level: float) -> tuple[float, float]:
        """MOVER's (L, U) at ``confidence_level`` (eq. S2)."""
        a, b = self.estimate_a, self.estimate_b
        la, ua = _fisher_interval(a, self.side_a, confidence_level)
        lb, ub = _fisher_interval(b, self.side_b, confidence_level)
        r = self.correlation
        low = (a - la) ** 2 + (ub - b) ** 2 - 2.0 * r * (a - la) * (ub - b)
        high = (ua - a) ** 2 + (b - lb) ** 2 - 2.0 * r * (ua - a) * (b - lb)
        d = a - b
        return d - math.sqrt(max(low, 0.0)), d + math.sqrt(max(high, 0.0))

    def interval(self, confidence_level: float) -> ConfidenceInterval:
        if not self._mover():
            return Inference.interval(self, confidence_level)
        if not self._defined():
            return ConfidenceInterval(math.nan, math.nan)
        low, high = self._limits(confidence_level)
        return ConfidenceInterval(
            float(max(low, self.lower_bound)), float(min(high, self.upper_bound))
        )

    def pvalue(self, null: float, alternative: str) -> float:
        """The one-sided level at which a MOVER limit reaches ``null``: the test the
        interval inverts."""
        if not self._mover():
            return Inference.pvalue(self, null, alternative)
        if not self._defined():
            return math.nan
        est = self.estimate
        if est == null:
            return 0.5
        side = 0 if est > null else 1  # the limit that moves toward the null

        def gap(c):
            return self._limits(c)[side] - null

        ends = (1e-12, 1.0 - 1e-15)
        g0, g1 = gap(ends[0]), gap(ends[1])
        if side == 1:  # the upper limit rises with the level: look at it from below
            g0, g1 = -g0, -g1
        if g1 > 0:  # even the widest interval excludes the null
            c = ends[1]
        elif g0 <= 0:  # the null is (to rounding) the estimate
            c = 0.0
        else:
            c = float(optimize.brentq(gap, *ends, xtol=1e-14, rtol=4 * np.finfo(float).eps))
        p_greater = (1.0 - c) / 2.0 if side == 0 else (1.0 + c) / 2.0
        return p_greater if alternative == "greater" else 1.0 - p_greater


def _fisher_side(estimate: float, loo: np.ndarray) -> tuple[float, float, float]:
    """(z of the estimate, the jackknife SE of z, its effective df) of a kappa or a
    correlation and its delete-one values."""
    return (float(_z(estimate)), *jackknife(_z(loo)))


def _fisher_interval(estimate: float, side, level: float) -> tuple[float, float]:
    """A kappa's or correlation's interval from its side on Fisher's z: Student's t on
    the effective df (one point when the estimate is ±1)."""
    if abs(estimate) >= 1.0:
        return estimate, estimate
    centre, se, df = side
    c = _critical(1.0 - (1.0 - level) / 2.0, df)
    return math.tanh(centre - c * se), math.tanh(centre + c * se)


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    """The correlation of two statistics' delete-one values (0 when one does not move)."""
    dx, dy = x - x.mean(), y - y.mean()
    denom = math.sqrt(float(dx @ dx) * float(dy @ dy))
    return float(dx @ dy) / denom if denom > 0 else 0.0


def infer_difference(
    a: ItemSums,
    b: ItemSums,
    method: str,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    fisher: bool = False,
    lower_bound: float = -math.inf,
    upper_bound: float = math.inf,
    what: str = "difference",
) -> Difference:
    """θ_a − θ_b of two statistics of the same units, by ``method`` (:class:`Difference`)."""
    from qwkit._evaluation._sums import combine

    diff = combine([a, b], np.subtract)
    base = infer(
        diff,
        method if method != "jackknife" else "asymptotic",
        n_resamples=n_resamples,
        rng=rng,
        lower_bound=lower_bound,
        upper_bound=upper_bound,
        what=what,
    )
    fields: dict[str, Any] = {
        "estimate": base.estimate,
        "standard_error": base.standard_error,
        "method": method,
        "n_units": base.n_units,
        "df": base.df,
        "scale_se": base.scale_se,
        "fisher": fisher if method == "jackknife" else False,  # else: the linear difference
        "draws": base.draws,
        "loo": base.loo,
        "lower_bound": lower_bound,
        "upper_bound": upper_bound,
    }
    if method != "jackknife" or math.isnan(base.estimate):
        return Difference(**fields)
    ta, tb = a.total(), b.total()
    loo_a = _loo_or_none(a, ta, what)
    loo_b = _loo_or_none(b, tb, what) if loo_a is not None else None
    if loo_a is None or loo_b is None:
        return Difference(**{**fields, "scale_se": math.nan, "standard_error": math.nan})
    linear = loo_a - loo_b
    se = _jackknife_se(linear)
    est_a, est_b = a.value(ta), b.value(tb)
    side_a, side_b = _fisher_side(est_a, loo_a), _fisher_side(est_b, loo_b)
    # MOVER's intervals: each kappa's own df, the smaller reported; linear: its own
    df = min(side_a[2], side_b[2]) if fisher else effective_df(linear)
    return Difference(
        **{**fields, "standard_error": se, "scale_se": se, "df": df},
        loo_a=loo_a,
        loo_b=loo_b,
        estimate_a=est_a,
        estimate_b=est_b,
        side_a=side_a,
        side_b=side_b,
        correlation=_correlation(loo_a, loo_b),
    )


# ---------------------------------------------------------------------------- a ratio


@dataclass(frozen=True, slots=True, eq=False)
class Ratio(Inference):
    """ρ = 1 − A/B (PRMSE: A the machine's mean squared error about the true score, B the
    true-score variance), by Fieller's method: ρ₀ is rejected when
    U(ρ₀) = A − (1 − ρ₀)·B is far from 0 in units of its standard error, which is linear
    in ρ₀ — so the interval is the set where a quadratic is ≤ 0, bounded or not (a B that
    is not clearly positive leaves ρ unbounded: honest, where a Wald interval on
    1 − Â/B̂ is not; eq. S3). ``cov`` holds the variances and covariance of (A − B, B)
    (jackknife or delta), ``df`` Student's t df ("asymptotic": inf).
    """

    estimate_a: float = math.nan
    estimate_b: float = math.nan
    cov: tuple[float, float, float] = (math.nan, math.nan, math.nan)

    def _quadratic(self, c: float) -> tuple[float, float, float]:
        """(A₂, A₁, A₀) of U(ρ)² − c²·Var U(ρ) = A₂ρ² + A₁ρ + A₀ (U = (A − B) + ρ·B)."""
        vaa, vab, vbb = self.cov
        a0 = self.estimate_a - self.estimate_b
        b = self.estimate_b
        return b * b - c * c * vbb, 2.0 * (a0 * b - c * c * vab), a0 * a0 - c * c * vaa

    def interval(self, confidence_level: float) -> ConfidenceInterval:
        if self.method == "bootstrap":
            return Inference.interval(self, confidence_level)
        if math.isnan(self.estimate) or any(math.isnan(x) for x in self.cov):
            return ConfidenceInterval(math.nan, math.nan)
        c = _critical(1.0 - (1.0 - confidence_level) / 2.0, self.df)
        q2, q1, q0 = self._quadratic(c)
        disc = q1 * q1 - 4.0 * q2 * q0
        if q2 <= 0.0 or disc < 0.0:  # B is not clearly positive: ρ is not bounded
            return ConfidenceInterval(-math.inf, min(1.0, self.upper_bound))
        root = math.sqrt(disc)
        lo, hi = sorted(((-q1 - root) / (2.0 * q2), (-q1 + root) / (2.0 * q2)))
        return ConfidenceInterval(float(lo), float(min(hi, self.upper_bound)))

    def pvalue(self, null: float, alternative: str) -> float:
        if self.method == "bootstrap":
            return Inference.pvalue(self, null, alternative)
        if math.isnan(self.estimate) or any(math.isnan(x) for x in self.cov):
            return math.nan
        vaa, vab, vbb = self.cov
        u = (self.estimate_a - self.estimate_b) + null * self.estimate_b
        var = vaa + 2.0 * null * vab + null * null * vbb
        if not var > 0:
            return math.nan
        t = u / math.sqrt(var)  # U grows with ρ₀: H0 ρ ≤ ρ₀ is rejected when U(ρ₀) < 0
        return _cdf(t, self.df) if alternative == "greater" else _cdf(-t, self.df)


def infer_ratio(
    a: ItemSums,
    b: ItemSums,
    method: str,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    what: str = "ratio",
) -> Ratio:
    """ρ = 1 − A/B of two statistics of the same units by Fieller's method (:class:`Ratio`);
    its standard error is the jackknife's (or the delta method's) of 1 − A/B."""
    from qwkit._evaluation._sums import combine

    rho = combine([a, b], _one_minus_ratio)
    base = infer(rho, method, n_resamples=n_resamples, rng=rng, what=what, upper_bound=1.0)
    fields: dict[str, Any] = {
        "estimate": base.estimate,
        "standard_error": base.standard_error,
        "method": method,
        "n_units": base.n_units,
        "df": base.df,
        "scale_se": base.scale_se,
        "draws": base.draws,
        "loo": base.loo,
        "upper_bound": 1.0,
    }
    if method == "bootstrap" or math.isnan(base.estimate):
        return Ratio(**fields)
    ta, tb = a.total(), b.total()
    est_a, est_b = a.value(ta), b.value(tb)
    if method == "jackknife":
        la, lb = a.leave_one_out(ta), b.leave_one_out(tb)
        if not (np.all(np.isfinite(la)) and np.all(np.isfinite(lb))):
            return Ratio(**fields)
        g = la.size
        u, v = (la - lb) - np.mean(la - lb), lb - np.mean(lb)
        scale = (g - 1.0) / g
        cov = (scale * float(u @ u), scale * float(u @ v), scale * float(v @ v))
        df = effective_df((la - lb) + base.estimate * lb)  # U at the estimate
    else:
        ia, ib = a.influence(ta), b.influence(tb)
        g = ia.size
        u, v = ia - ib, ib
        cov = (float(u @ u) / g / g, float(u @ v) / g / g, float(v @ v) / g / g)
        df = math.inf
    return Ratio(**{**fields, "df": df}, estimate_a=est_a, estimate_b=est_b, cov=cov)


def _one_minus_ratio(a, b):
    return 1.0 - a / b


# ---------------------------------------------------------------------------- results


def moments_row(moments_on: str) -> list:
    """The summary row that says text ratings' moments are on their positions (none for
    values, the rule)."""
    return [("Moments on (text ratings)", "positions 1..K")] if moments_on == "positions" else []


def text_block(title: str, rows) -> str:
    """A result's ``summary()``: a title, a rule, then (label, value) rows — floats to
    four decimals, a pair of floats side by side, ``None`` for a blank line."""
    lines = [title, "-" * len(title)]
    for row in rows:
        if row is None:
            lines.append("")
            continue
        label, value = row
        if isinstance(value, tuple):
            shown = "".join(f"{v:>10.4f}" for v in value)
        elif isinstance(value, float):
            shown = f"{value:>10.4f}"
        else:
            shown = f"{value!s:>10}"
        lines.append(f"{label:<30}{shown}")
    return "\n".join(lines) + "\n"


class IntervalResult:
    """``confidence_interval`` and ``to_dict`` of a result of one statistic: a frozen
    dataclass with ``confidence_level``, ``_inference`` and, as a class attribute,
    ``_fields`` (the names ``to_dict`` lists before the interval)."""

    __slots__ = ()
    _fields: ClassVar[tuple] = ()
    # The fields of the subclasses that these methods read (annotations only).
    confidence_level: float
    method: str
    _inference: Inference

    def confidence_interval(
        self, confidence_level: float | None = None, *, method: str | None = None
    ) -> ConfidenceInterval:
        """Two-sided confidence interval of ``statistic``.

        Parameters
        ----------
        confidence_level : float, default=None
            The level; None: the level of the call that made this result.
        method : str, default=None
            The method of the call that made this result (None says the same): the
            interval is made of what that call computed (a bootstrap's draws, a
            jackknife's values).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``: the jackknife's Student-t interval (``method="jackknife"``,
            the default), Wald's on the delta method's standard error
            (``"asymptotic"``), or the BCa bootstrap interval (``"bootstrap"``).
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        if method is not None:
            check_interval_method(method, self.method, "the function that made this result")
        return self._inference.interval(check_confidence_level(level))

    def _level(self, confidence_level: float | None = None) -> str:
        level = self.confidence_level if confidence_level is None else confidence_level
        return f"{100 * level:g}% confidence interval"

    def to_dict(self) -> dict:
        """The result as plain Python values, its interval as ``confidence_interval``."""
        low, high = self.confidence_interval()
        return result_dict(self, self._fields, confidence_interval=[low, high])
