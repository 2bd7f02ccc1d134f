"""The intraclass correlations with missing ratings: REML, exact tests and intervals.

With every item rated by every rater the ICCs are closed forms of the two-way ANOVA
(``_icc``). With missing ratings the variance components come from the REML fit of the
two-way random model yᵢⱼ = μ + sᵢ + rⱼ + eᵢⱼ (eq. I6), computed from the per-item sums of
``_kernels.sparse_moments`` (eq. I8): the item effects are integrated out item by item
(each item's covariance is compound symmetric) and the rater effects, the intercept and
the profiled residual variance leave a (k + 1)-dimensional problem, whatever the number
of items. Tests and intervals use the fixed-effects sums of squares of the same data
(eqs. I10–I12): exact F tests of "no item variance", Wald's (1940) exact interval for
the ratio σ²ₛ/σ²ₑ (the one-way and consistency forms), and McGraw & Wong's
Satterthwaite interval on Henderson's method-III mean squares (the agreement forms).
Equation numbers are those of ``docs/agreement.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import linalg, optimize, special

from qwkit import _kernels
from qwkit._base._errors import QwkitError
from qwkit._base._warnings import DegenerateIntervalWarning, warn

__all__ = ["MissingFit", "fit_missing"]


@dataclass(frozen=True)
class _Sums:
    """The sums of eq. I8 (ratings centred at their mean)."""

    n: int  # items
    k: int  # raters
    big_n: int  # ratings
    within: float  # Σᵢ Σⱼ (yᵢⱼ − ȳᵢ)²
    rater_within: float  # Σⱼ Σᵢ (yᵢⱼ − ȳ.ⱼ)²
    rater_count: np.ndarray  # Nⱼ
    rater_sum: np.ndarray  # Yⱼ = Σᵢ yᵢⱼ
    m: np.ndarray  # ratings per item of each group
    items: np.ndarray  # items per group
    totals2: np.ndarray  # Σᵢ tᵢ² per group (tᵢ = Σⱼ yᵢⱼ)
    spread: np.ndarray  # (G, k): Σᵢ tᵢ [j rated i]
    cooccur: np.ndarray  # (G, k, k)
    group_means: np.ndarray  # per group: mean of the item means
    group_spread: np.ndarray  # per group: Σᵢ (ȳᵢ − group mean)²

    def base(self):
        """WᵀW and Wᵀy of W = [1, rater indicators]."""
        k = self.k
        wtw = np.zeros((k + 1, k + 1))
        wtw[0, 0] = self.big_n
        wtw[0, 1:] = wtw[1:, 0] = self.rater_count
        wtw[1:, 1:] = np.diag(self.rater_count)
        wty = np.concatenate([[self.rater_sum.sum()], self.rater_sum])
        return wtw, wty

    def blocks(self):
        """Per group: BBₘ = Σᵢ bᵢbᵢᵀ and Uₘ = Σᵢ tᵢbᵢ with bᵢ = Wᵀzᵢ = [rᵢ; eⱼ∈ᵢ]."""
        g, k = self.m.shape[0], self.k
        bb = np.zeros((g, k + 1, k + 1))
        diag = np.einsum("gjj->gj", self.cooccur)
        bb[:, 0, 0] = self.m * self.m * self.items
        bb[:, 0, 1:] = bb[:, 1:, 0] = self.m[:, None] * diag
        bb[:, 1:, 1:] = self.cooccur
        u = np.concatenate([self.spread.sum(axis=1)[:, None], self.spread], axis=1)
        return bb, u


#: The co-occurrence of the raters is a k × k matrix per number of ratings of an item:
#: refused beyond this many entries (8 bytes each).
MAX_COOCCURRENCE = 1 << 27


def _sums(offsets, raters, values, k) -> _Sums:
    counts = np.diff(offsets)
    present = np.unique(counts)
    if present.size * k * k > MAX_COOCCURRENCE:
        raise QwkitError(
            f"`ratings`: the ICC with missing ratings holds a {k} × {k} co-occurrence of the "
            f"raters for each of the {present.size} different numbers of ratings per item "
            f"({present.size * k * k * 8 / 2**30:.1f} GiB); at most "
            f"{MAX_COOCCURRENCE * 8 // 2**30} GiB are allowed. Fewer raters (columns) are "
            "needed for the REML fit.",
            parameter="ratings",
        )
    group = np.full(k + 1, -1, dtype=np.int64)
    group[present] = np.arange(present.size)
    center = float(np.mean(values))
    out = _kernels.sparse_moments(offsets, raters, values, center, group, present.size, k)
    mean, within, r_count, r_sum, r_within, items, totals2, spread, cooccur = out
    gid = group[counts]
    size = np.bincount(gid, minlength=present.size).astype(np.float64)
    gmean = np.bincount(gid, weights=mean, minlength=present.size) / size
    dev = mean - gmean[gid]
    gspread = np.bincount(gid, weights=dev * dev, minlength=present.size)
    return _Sums(
        n=int(counts.size),
        k=int(k),
        big_n=int(values.size),
        within=float(np.sum(within)),
        rater_within=float(np.sum(r_within)),
        rater_count=r_count,
        rater_sum=r_sum,
        m=present.astype(np.float64),
        items=items,
        totals2=totals2,
        spread=spread,
        cooccur=cooccur,
        group_means=gmean,
        group_spread=gspread,
    )


# ---------------------------------------------------------------------------- REML


class _Point(NamedTuple):
    """The pieces of eq. I7 at one θ."""

    ts: float
    h: np.ndarray  # per group 1/(1 + mθₛ)
    a: np.ndarray  # Wᵀ Hₛ⁻¹ W
    ay: np.ndarray  # Wᵀ Hₛ⁻¹ y
    scale: np.ndarray  # S = diag(1, √θᵣ)
    chol: tuple  # Cholesky factor of M = S A S + diag(0, I)
    sol: np.ndarray  # M⁻¹ S Wᵀ Hₛ⁻¹ y
    q: float  # yᵀ P y


class _Reml:
    """The profiled REML criterion of eq. I7 and its gradient, in θ = (σ²ₛ/σ²ₑ, σ²ᵣ/σ²ₑ)."""

    def __init__(self, s: _Sums):
        self.s = s
        self.wtw, self.wty = s.base()
        self.bb, self.u = s.blocks()
        self.df = s.big_n - 1  # N − p, p = 1 (the intercept)

    def _pieces(self, theta) -> _Point:
        s = self.s
        ts, tr = max(theta[0], 0.0), max(theta[1], 0.0)
        h = 1.0 / (1.0 + s.m * ts)  # per group 1/(1 + mθₛ)
        g = ts * h  # θₛ/(1 + mθₛ)
        a = self.wtw - np.einsum("g,gij->ij", g, self.bb)  # Wᵀ Hₛ⁻¹ W
        ay = self.wty - g @ self.u  # Wᵀ Hₛ⁻¹ y
        yhy = s.within + float(np.sum(s.totals2 * h / s.m))  # yᵀ Hₛ⁻¹ y   (eq. I8)
        scale = np.concatenate([[1.0], np.full(s.k, math.sqrt(tr))])
        mm = scale[:, None] * a * scale[None, :]
        mm[1:, 1:] += np.eye(s.k)
        rhs = scale * ay
        chol = linalg.cho_factor(mm, lower=True)
        sol = linalg.cho_solve(chol, rhs)
        q = yhy - float(rhs @ sol)
        return _Point(ts, h, a, ay, scale, chol, sol, q)

    def value(self, theta) -> float:
        return self._value(self._pieces(theta))

    def _value(self, p: _Point) -> float:
        logdet = float(np.sum(self.s.items * np.log1p(self.s.m * p.ts))) + 2.0 * float(
            np.sum(np.log(np.diag(p.chol[0])))
        )
        return self.df * math.log(p.q) + logdet  # (eq. I7)

    def gradient(self, theta) -> np.ndarray:
        return self._gradient(self._pieces(theta))

    def value_and_gradient(self, theta) -> tuple[float, np.ndarray]:
        p = self._pieces(theta)
        return self._value(p), self._gradient(p)

    def _gradient(self, p: _Point) -> np.ndarray:
        """∂/∂θ of eq. I7: tr(ZᵀPZ) − (N − 1)‖ZᵀPy‖²/Q for items and raters."""
        s = self.s
        h, a, scale = p.h, p.a, p.scale
        beta = scale * p.sol  # S M⁻¹ h
        minv = linalg.cho_solve(p.chol, np.eye(s.k + 1))
        smss = scale[:, None] * minv * scale[None, :]
        trace_s = float(np.sum(s.items * s.m * h)) - float(
            np.sum(h * h * np.einsum("ij,gji->g", smss, self.bb))
        )
        resid = s.totals2 - 2.0 * (self.u @ beta) + np.einsum("i,gij,j->g", beta, self.bb, beta)
        grad_s = trace_s - self.df * float(np.sum(h * h * resid)) / p.q
        zpy = p.ay[1:] - a[1:, :] @ beta
        x = scale[:, None] * a[:, 1:]
        trace_r = float(np.trace(a[1:, 1:])) - float(np.sum(x * (minv @ x)))
        grad_r = trace_r - self.df * float(zpy @ zpy) / p.q
        return np.array([grad_s, grad_r])

    def residual_variance(self, theta) -> float:
        return self._pieces(theta).q / self.df


def _reml(s: _Sums, start) -> np.ndarray:
    """θ̂ = argmin of eq. I7 over θ ≥ 0: L-BFGS-B from Henderson's estimates (``start``),
    then projected Newton steps on the analytic gradient until it vanishes (or the bound
    holds); two more starts when that point is not a minimum (the gradient does not
    vanish where a component is free)."""
    fn = _Reml(s)
    unit = np.maximum(np.asarray(start, dtype=np.float64), 1e-3)

    def objective(x):
        value, grad = fn.value_and_gradient(x * unit)
        return value, grad * unit

    def solve(x0):
        res = optimize.minimize(
            objective,
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, None), (0.0, None)],
            options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 500},
        )
        theta = _polish(fn, res.x * unit)
        return theta, fn.value(theta)

    theta, value = solve(np.maximum(np.asarray(start) / unit, 1e-3))
    if not _stationary(fn, theta):
        for x0 in (np.ones(2), np.array([1.0, 1e-3]), np.array([1e-3, 1.0])):
            other, other_value = solve(x0)
            if other_value < value:
                theta, value = other, other_value
    return theta, fn


def _stationary(fn: _Reml, theta: np.ndarray) -> bool:
    """The first-order conditions of a minimum on θ ≥ 0, to rounding."""
    grad = fn.gradient(theta)
    scale = np.abs(fn.df) + 1.0
    free = theta > 0.0
    return bool(
        np.all(np.abs(grad[free] * theta[free]) <= 1e-7 * scale)
        and np.all(grad[~free] >= -1e-7 * scale)
    )


#: The polish stops when a Newton step moves θ by less than this, relative: the REML
#: estimate is then the zero of the analytic gradient to its rounding (eq. I7).
THETA_RTOL = 1e-13
#: θ this close to 0 is at the bound, for the steps' relative size.
_THETA_FLOOR = 1e-10


def _scaled_gradient(fn: _Reml, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(∇ of eq. I7, the components not held at θ = 0 by the bound)."""
    grad = fn.gradient(theta)
    return grad, ~((theta <= 0.0) & (grad > 0.0))


def _polish(fn: _Reml, theta: np.ndarray, steps: int = 40) -> np.ndarray:
    """Projected Newton steps to the zero of the analytic gradient (Hessian from
    central differences of it), from L-BFGS-B's point, which stops where the criterion
    no longer changes in float64 — a plateau about √ε wide, where θ moved by 1e-7 when
    the items or raters were put in another order. A step is taken while it lowers the
    gradient's size on the free components (its value is flat to rounding there), and
    the polish ends when a step moves θ by less than ``THETA_RTOL`` relative: θ̂ is
    then as order-free as the gradient's own rounding."""
    grad, free = _scaled_gradient(fn, theta)
    size = float(np.max(np.abs(grad[free]) * np.maximum(theta[free], _THETA_FLOOR), initial=0.0))
    for _ in range(steps):
        if not np.any(free):
            return theta
        hess = np.empty((2, 2))
        for a in range(2):
            step = 1e-5 * max(theta[a], 1e-3)
            plus, minus = theta.copy(), theta.copy()
            plus[a] += step
            minus[a] = max(minus[a] - step, 0.0)
            hess[:, a] = (fn.gradient(plus) - fn.gradient(minus)) / (plus[a] - minus[a])
        hess = (hess + hess.T) / 2.0
        idx = np.flatnonzero(free)
        sub = hess[np.ix_(idx, idx)]
        if np.any(np.linalg.eigvalsh(sub) <= 0):
            return theta
        delta = np.zeros(2)
        delta[idx] = -np.linalg.solve(sub, grad[idx])
        candidate = np.maximum(theta + delta, 0.0)
        moved = np.abs(candidate - theta) / np.maximum(np.abs(theta), _THETA_FLOOR)
        c_grad, c_free = _scaled_gradient(fn, candidate)
        c_size = float(
            np.max(
                np.abs(c_grad[c_free]) * np.maximum(candidate[c_free], _THETA_FLOOR), initial=0.0
            )
        )
        if not (c_size < size or fn.value(candidate) < fn.value(theta)):
            return theta  # the gradient's rounding floor: no step does better
        theta, grad, free, size = candidate, c_grad, c_free, c_size
        if np.all(moved <= THETA_RTOL):
            return theta
    return theta


# ---------------------------------------------------------------------------- fixed effects


class _Fixed:
    """Fixed-effects sums of squares of the same data (eqs. I10–I12)."""

    def __init__(self, s: _Sums):
        self.s = s
        s_ = s
        inv_m = 1.0 / s_.m
        lap = np.diag(s_.rater_count) - np.einsum("g,gjl->jl", inv_m, s_.cooccur)
        rhs = s_.rater_sum - inv_m @ s_.spread
        sol, *_ = np.linalg.lstsq(lap, rhs, rcond=None)
        rank = int(np.linalg.matrix_rank(lap))
        self.ss_raters = float(sol @ rhs)  # R(r | μ, s): raters after items
        self.sse = max(s_.within - self.ss_raters, 0.0)  # two-way additive residual
        self.df_raters = rank
        self.df_error = s_.big_n - s_.n - rank
        self.df_items = s_.n + rank - s_.k  # R(s | μ, r): items after raters
        self.ss_items = s_.rater_within - self.sse
        # Henderson III: E[MS] = σ²ₑ + (coefficient)·σ²   (eq. I11)
        self.k_items = (s_.big_n - s_.k) / self.df_items if self.df_items > 0 else math.nan
        self.n_raters = (s_.big_n - s_.n) / rank if rank else math.nan
        self.mse = self.sse / self.df_error if self.df_error > 0 else math.nan
        self.ms_items = self.ss_items / self.df_items if self.df_items > 0 else math.nan
        self.ms_raters = self.ss_raters / rank if rank else math.nan
        self.m_max = float(s_.m.max())

    def two_way_f(self, theta: float) -> float:
        """W(θ) of eq. I12: the items' sum of squares after raters under σ²ₛ/σ²ₑ = θ,
        per degree of freedom, over the residual mean square."""
        s = self.s
        h = 1.0 / (1.0 + s.m * theta)
        g = theta * h
        yhy = s.within + float(np.sum(s.totals2 * h / s.m))
        a = np.diag(s.rater_count) - np.einsum("g,gjl->jl", g, s.cooccur)
        ay = s.rater_sum - g @ s.spread
        q = yhy - float(ay @ np.linalg.solve(a, ay))
        return ((q - self.sse) / self.df_items) / self.mse

    def one_way_f(self, theta: float) -> float:
        """Wald's (1940) statistic of the one-way model (eq. I12')."""
        s = self.s
        w = s.m / (1.0 + s.m * theta)  # per item of each group
        mu = float(np.sum(w * s.items * s.group_means) / np.sum(w * s.items))
        between = float(np.sum(w * (s.group_spread + s.items * (s.group_means - mu) ** 2)))
        return (between / (s.n - 1)) / (s.within / (s.big_n - s.n))


def _root(fn, target: float, low: float) -> float:
    """The θ > ``low`` where the decreasing ``fn`` (∞ at ``low``, 0 at ∞) equals
    ``target``; ``low`` itself when ``fn`` stays below it (a limit at the edge of the
    parameter space), inf when ``fn`` never falls to it."""
    lo = low + 1e-9 * (1.0 + abs(low))
    if not fn(lo) > target:
        return lo
    hi = max(1.0, 2.0 * abs(lo))
    while fn(hi) > target:
        hi *= 4.0
        if hi > 1e200:
            return math.inf
    return float(optimize.brentq(lambda t: fn(t) - target, lo, hi, xtol=1e-15, rtol=1e-14))


# ---------------------------------------------------------------------------- the fit


@dataclass(frozen=True)
class MissingFit:
    """What an ICC with missing ratings is made of."""

    var_items: float
    var_raters: float
    var_error: float
    fixed: _Fixed
    sums: _Sums

    def one_way_test(self) -> tuple[float, float, float]:
        """(F, df1, df2) of the one-way ANOVA F test of no item variance."""
        s = self.sums
        return self.fixed.one_way_f(0.0), float(s.n - 1), float(s.big_n - s.n)

    def two_way_test(self) -> tuple[float, float, float]:
        """(F, df1, df2): items after raters, over the two-way residual (eq. I10)."""
        fx = self.fixed
        return fx.ms_items / fx.mse, float(fx.df_items), float(fx.df_error)

    def ratio_limits(self, one_way: bool, level: float) -> tuple[float, float]:
        """Wald's exact limits for θ = σ²ₛ/σ²ₑ, as ICC limits θ/(1 + θ) (eq. I12)."""
        fx = self.fixed
        if one_way:
            fn, d1, d2 = fx.one_way_f, self.sums.n - 1, self.sums.big_n - self.sums.n
        else:
            fn, d1, d2 = fx.two_way_f, fx.df_items, fx.df_error
        alpha = 1.0 - level
        low = -1.0 / fx.m_max
        t_lo = _root(fn, float(special.fdtri(d1, d2, 1.0 - alpha / 2.0)), low)
        t_hi = _root(fn, float(special.fdtri(d1, d2, alpha / 2.0)), low)
        return _ratio_icc(t_lo), _ratio_icc(t_hi)

    def agreement_limits(self, level: float) -> tuple[float, float]:
        """McGraw & Wong's interval of ICC(A,1) on Henderson's method-III mean squares
        (eq. I13); with every item rated by every rater, their interval itself."""
        fx = self.fixed
        msb, msj, mse = fx.ms_items, fx.ms_raters, fx.mse
        k, n = fx.k_items, fx.n_raters
        # the estimate that sets Satterthwaite's ν, from components truncated at 0 as REML
        # truncates them: negative Henderson components gave ρ > 1 and the point (1, 1)
        vs, vr = max((msb - mse) / k, 0.0), max((msj - mse) / n, 0.0)
        rho = vs / (vs + vr + mse)
        return agreement_interval(
            msb, msj, mse, k, n, rho, fx.df_items, fx.df_raters, fx.df_error, level
        )


def _ratio_icc(theta: float) -> float:
    if math.isinf(theta):
        return 1.0
    return theta / (1.0 + theta)


def agreement_interval(msb, msj, mse, k, n, rho, df_b, df_j, df_e, level):
    """McGraw & Wong's (1996) interval of ICC(A,1) (their Table 7, case 2A): the
    denominator a·MSJ + b·MSE of eq. I5 with Satterthwaite's degrees of freedom ν at
    the estimate; ``k`` items' and ``n`` raters' multipliers of the mean squares."""
    if rho >= 1.0:  # no error and no rater variance: every rating agrees
        return 1.0, 1.0
    alpha = 1.0 - level
    a = k * rho / (n * (1.0 - rho))
    b = 1.0 + k * rho / (1.0 - rho) - a
    nu = (a * msj + b * mse) ** 2 / ((a * msj) ** 2 / df_j + (b * mse) ** 2 / df_e)  # (eq. I5)
    f_low = float(special.fdtri(df_b, nu, 1.0 - alpha / 2.0))
    f_high = float(special.fdtri(nu, df_b, 1.0 - alpha / 2.0))
    den_low = f_low * k * (msj + (n - 1.0) * mse) + n * (msb - f_low * mse)
    den_high = k * (msj + (n - 1.0) * mse) + n * (f_high * msb - mse)
    low = n * (msb - f_low * mse) / den_low if den_low > 0.0 else math.nan
    high = n * (f_high * msb - mse) / den_high if den_high > 0.0 else math.nan
    if not low <= high:  # a denominator not positive: the approximation has no interval
        warn(
            "McGraw & Wong's interval of the agreement form is undefined for these data (a "
            "denominator of eq. I5 is not positive: the raters' or items' mean square is "
            "far below the error's); the interval is nan.",
            DegenerateIntervalWarning,
        )
        return math.nan, math.nan
    return float(low), float(high)


#: An error mean square this small relative to the ratings' variance is rounding.
_ROUNDING = 1e-12


def fit_missing(offsets, raters, values, k) -> MissingFit:
    """The REML components and the fixed-effects sums of squares (eqs. I6–I12).

    Raises a QwkitError naming ``ratings`` when the ratings leave no error variance to
    estimate (too few ratings beyond one per item and rater effect, or an exact fit)."""
    s = _sums(offsets, raters, values, k)
    fx = _Fixed(s)
    # an error mean square at the rounding level of the ratings' spread is no error: the
    # REML fit and its Cholesky factors fail on it (raters offset by 0.9, one missing)
    noise = _ROUNDING * float(np.var(values))
    if not fx.df_error > 0 or not fx.mse > noise or not fx.df_items > 0:
        why = (
            "too few ratings: each item's first rating and each rater's effect leave no "
            "degree of freedom for the error"
            if not fx.df_error > 0
            else "the ratings are exactly item effects plus rater effects: no error at all"
        )
        raise QwkitError(
            f"`ratings` leaves no error variance to estimate ({why}), so the ICC with "
            "missing ratings is not defined.",
            parameter="ratings",
        )
    vs0 = max((fx.ms_items - fx.mse) / fx.k_items, 0.0)
    vr0 = max((fx.ms_raters - fx.mse) / fx.n_raters, 0.0) if fx.df_raters else 0.0
    start = np.array([vs0, vr0]) / fx.mse
    theta, fn = _reml(s, start)
    var_e = fn.residual_variance(theta)
    return MissingFit(
        var_items=float(theta[0] * var_e),
        var_raters=float(theta[1] * var_e),
        var_error=float(var_e),
        fixed=fx,
        sums=s,
    )
