"""Statistics of per-item sums: value, influence, exact jackknife and bootstrap in one place.

Every statistic of the scorer evaluation is θ = f(S), a smooth function of the column
sums S = Σ_g Z_g of one row of numbers per item — the moments or margins of a pair of
raters, PRMSE's sums of squares — because the items are the sampling units. From the
rows Z (G items × p sums) and f alone (eq. numbers of ``docs/evaluation.md``):

- the influence of item g, IF_g = ∇f(S)·(G·Z_g − S), the delta method (eq. 3), with the
  gradient by complex-step differentiation, exact to rounding (Squire & Trapp 1998);
- the asymptotic variance Σ_g IF_g² / G² (eq. 4);
- the exact delete-one-item jackknife θ_(g) = f(S − Z_g) (eq. 5), in O(G·p);
- the bootstrap θ* = f(Σ_g V_g·Z_g), V the multinomial counts of a resample (eq. 6).

:class:`Inference` keeps what an interval or a p-value needs later (a result's
``confidence_interval(level)``): Wald intervals on the asymptotic or jackknife standard
error (on Fisher's z scale for correlations, Wilson's score interval for proportions),
or the BCa bootstrap, and the p-values that invert each.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from qwkit._base._results import freeze_arrays, reduce_dataclass, result_dict
from qwkit._base._validation import check_confidence_level, check_interval_method
from qwkit._base._warnings import DegenerateIntervalWarning, UndefinedKappaWarning, warn
from qwkit._table._resampling import ConfidenceInterval

__all__ = [
    "METHODS",
    "Inference",
    "IntervalResult",
    "ItemSums",
    "combine",
    "infer",
    "moments_row",
    "text_block",
]

METHODS = ("asymptotic", "jackknife", "bootstrap")
#: Numbers held at once by a jackknife or bootstrap chunk (8 MiB of float64).
_CHUNK = 1 << 20
#: Relative step of the complex-step derivative: far below rounding, never cancelling.
_STEP = 1e-20


def _sparse(z) -> bool:
    return not isinstance(z, np.ndarray)


@dataclass(frozen=True, slots=True, eq=False)
class ItemSums:
    """θ = f(S), S the sums over items of ``z``: a float64 ndarray of shape (p, G) —
    one contiguous row per sum — or a scipy sparse CSR matrix of shape (G, p) (one row
    per item, for tables). ``f`` maps (..., p) arrays to (...) arrays, real or complex
    (no ``abs``, ``max`` or comparisons: the gradient is taken in complex arithmetic)."""

    z: object
    f: Callable[[np.ndarray], np.ndarray]
    #: ∇f(S), when f is built from parts (``combine``: the chain rule); else complex steps
    grad: Callable[[np.ndarray], np.ndarray] | None = None

    @property
    def n_items(self) -> int:
        return int(self.z.shape[0] if _sparse(self.z) else self.z.shape[1])

    @property
    def width(self) -> int:
        return int(self.z.shape[1] if _sparse(self.z) else self.z.shape[0])

    def total(self) -> np.ndarray:
        if _sparse(self.z):
            return np.asarray(self.z.sum(axis=0), dtype=np.float64).ravel()
        return self.z.sum(axis=1)

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Items lo..hi as a dense (hi − lo, p) block."""
        if _sparse(self.z):
            return self.z[lo:hi].toarray()
        return self.z[:, lo:hi].T

    def at(self, sums: np.ndarray) -> np.ndarray:
        """f of one or many sum vectors (0/0 gives nan, silently: callers warn)."""
        with np.errstate(all="ignore"):
            return np.asarray(self.f(sums))

    def value(self, total: np.ndarray | None = None) -> float:
        return float(self.at(self.total() if total is None else total).real)

    def gradient(self, total: np.ndarray) -> np.ndarray:
        """∇f(S) by complex steps, one vectorized call of f."""
        if self.grad is not None:
            return self.grad(total)
        return _complex_step(self.at, total)

    def influence(self, total: np.ndarray | None = None) -> np.ndarray:
        """IF_g = ∇f(S)·(G·Z_g − S) for every item (eq. 3)."""
        s = self.total() if total is None else total
        grad = self.gradient(s)
        proj = self.z @ grad if _sparse(self.z) else grad @ self.z
        return self.n_items * proj - float(s @ grad)

    def leave_one_out(self, total: np.ndarray | None = None) -> np.ndarray:
        """θ_(g) = f(S − Z_g) for every item g (eq. 5), in chunks of items."""
        s = self.total() if total is None else total
        g = self.n_items
        out = np.empty(g)
        step = max(1, _CHUNK // max(self.width, 1))
        for lo in range(0, g, step):
            out[lo : lo + step] = self.at(s - self.rows(lo, min(g, lo + step))).real
        return out

    def resample(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        """θ* of ``n_resamples`` bootstrap resamples of the items (eq. 6)."""
        g = self.n_items
        out = np.empty(n_resamples)
        step = max(1, _CHUNK // max(g, 1))
        for lo in range(0, n_resamples, step):
            b = min(step, n_resamples - lo)
            draws = rng.integers(0, g, size=(b, g)) + (g * np.arange(b))[:, None]
            counts = np.bincount(draws.ravel(), minlength=b * g).reshape(b, g)
            counts = counts.astype(np.float64)
            sums = (self.z.T @ counts.T).T if _sparse(self.z) else counts @ self.z.T
            out[lo : lo + b] = self.at(np.asarray(sums)).real
        return out


def _complex_step(fun, x: np.ndarray) -> np.ndarray:
    """∇fun(x) from one vectorized call on x + i·h·e_j for every j (Squire & Trapp 1998)."""
    h = _STEP * np.maximum(np.abs(x), 1.0)
    return fun(x + 1j * np.diag(h)).imag / h


def on_rows(stat: ItemSums, rows: np.ndarray, n_items: int) -> ItemSums:
    """``stat`` of some of ``n_items`` items (``rows``, their positions), as a sparse
    statistic of all of them: the other items add zero rows (memory in proportion to the
    rows that are there)."""
    from scipy import sparse

    if _sparse(stat.z):
        coo = stat.z.tocoo()
        r, c, data = rows[coo.row], coo.col, coo.data
    else:
        p, g = stat.z.shape
        r, c, data = np.repeat(rows, p), np.tile(np.arange(p), g), stat.z.T.ravel()
    z = sparse.csr_array((data, (r, c)), shape=(n_items, stat.width), dtype=np.float64)
    return ItemSums(z, stat.f, stat.grad)


def combine(parts: Sequence[ItemSums], f: Callable[..., np.ndarray]) -> ItemSums:
    """One statistic f(θ₁(S₁), θ₂(S₂), …) of several on the same items: their sums side
    by side (sparse when any part is); its gradient by the chain rule, so that its cost
    grows with the number of parts, not with the square of all their sums."""
    widths = np.cumsum([0] + [p.width for p in parts])
    if any(_sparse(p.z) for p in parts):
        from scipy import sparse

        blocks = [p.z if _sparse(p.z) else sparse.csr_array(p.z.T) for p in parts]
        z = sparse.hstack(blocks, format="csr", dtype=np.float64)
    else:
        z = np.vstack([p.z for p in parts])
    slices = [slice(int(a), int(b)) for a, b in itertools.pairwise(widths)]
    fs = [p.f for p in parts]

    def joint(s):
        return f(*(fi(s[..., sl]) for fi, sl in zip(fs, slices, strict=True)))

    def joint_gradient(s):
        values = np.array([complex(fi(s[sl])) for fi, sl in zip(fs, slices, strict=True)])
        outer = _complex_step(lambda v: f(*(v[..., k] for k in range(v.shape[-1]))), values.real)
        return np.concatenate(
            [w * p.gradient(s[sl]) for w, p, sl in zip(outer, parts, slices, strict=True)]
        )

    return ItemSums(z, joint, joint_gradient)


# ---------------------------------------------------------------------------- inference


@dataclass(frozen=True, slots=True, eq=False)
class Inference:
    """What intervals and p-values of one estimate need, after the fact.

    ``method`` is "asymptotic" or "jackknife" (Wald on ``standard_error``; on Fisher's z
    scale when ``fisher``; Wilson's interval when ``proportion`` and asymptotic) or
    "bootstrap" (BCa from ``draws`` and the jackknife values ``loo``).
    """

    estimate: float
    standard_error: float
    method: str
    n_items: int
    draws: np.ndarray | None = None
    loo: np.ndarray | None = None
    fisher: bool = False
    proportion: bool = False
    lower_bound: float = -math.inf
    upper_bound: float = math.inf

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    # ------------------------------------------------------------------ intervals

    def interval(self, confidence_level: float, *, df: float = math.inf) -> ConfidenceInterval:
        """Two-sided interval at ``confidence_level``; ``df`` gives Wald intervals
        Student's t critical values (the subgroups of ``evaluate_scorer``)."""
        est = self.estimate
        if math.isnan(est) or not self._has_draws():
            return ConfidenceInterval(math.nan, math.nan)
        tail = (1.0 - confidence_level) / 2.0
        if self.method == "bootstrap":
            lo, hi = (self._bca_quantile(p) for p in (tail, 1.0 - tail))
        elif self.proportion and self.method == "asymptotic":
            lo, hi = _wilson(est, self.n_items, _critical(1.0 - tail, df))
        else:
            c = _critical(1.0 - tail, df)
            se = self.standard_error
            if self.fisher:
                z, se_z = _fisher(est, se)
                with np.errstate(all="ignore"):
                    lo, hi = float(np.tanh(z - c * se_z)), float(np.tanh(z + c * se_z))
            else:
                lo, hi = est - c * se, est + c * se
        return ConfidenceInterval(
            float(max(lo, self.lower_bound)), float(min(hi, self.upper_bound))
        )

    def pvalue(self, null: float, alternative: str, *, df: float = math.inf) -> float:
        """p-value of H0: θ ≤ null (``alternative="greater"``) or θ ≥ null ("less"),
        the test that the interval of the same method inverts."""
        est = self.estimate
        if math.isnan(est) or not self._has_draws():
            return math.nan
        if self.method == "bootstrap":
            p_greater = self._bca_pvalue(null)
            return p_greater if alternative == "greater" else 1.0 - p_greater
        se = self.standard_error
        if self.fisher:
            z, se_z = _fisher(est, se)
            est, se, null = z, se_z, float(np.arctanh(null))
        if not se > 0:
            if est == null:
                return math.nan
            return float((est > null) == (alternative == "less"))
        t = (est - null) / se
        cdf = special.ndtr if math.isinf(df) else (lambda x: special.stdtr(df, x))
        return float(cdf(-t) if alternative == "greater" else cdf(t))

    # ------------------------------------------------------------------ BCa

    def _has_draws(self) -> bool:
        """False for a bootstrap without draws: the jackknife behind it was undefined, or
        every resample was (a warning said so); its interval and p-value are nan."""
        return self.method != "bootstrap" or (self.draws is not None and self.draws.size > 0)

    def _bca_terms(self) -> tuple[float, float]:
        theta = self.draws
        below = float(np.count_nonzero(theta < self.estimate))
        ties = float(np.count_nonzero(theta == self.estimate))
        z0 = float(special.ndtri(_clip((below + ties / 2.0) / theta.size, theta.size)))
        dev = np.mean(self.loo) - self.loo
        ss = float(np.dot(dev, dev))
        accel = float(np.sum(dev**3)) / (6.0 * ss**1.5) if ss > 0 else 0.0
        return z0, accel

    def _bca_quantile(self, p: float) -> float:
        z0, a = self._bca_terms()
        zp = z0 + float(special.ndtri(p))
        return float(np.quantile(self.draws, float(special.ndtr(z0 + zp / (1.0 - a * zp)))))

    def _bca_pvalue(self, null: float) -> float:
        """The one-sided level at which the BCa lower limit equals ``null``."""
        theta = self.draws
        z0, a = self._bca_terms()
        frac = (np.count_nonzero(theta < null) + np.count_nonzero(theta == null) / 2.0) / theta.size
        w = float(special.ndtri(_clip(frac, theta.size))) - z0
        return float(special.ndtr(w / (1.0 + a * w) - z0))


def _clip(frac: float, b: int) -> float:
    """A bootstrap proportion kept within (1/(2B), 1 − 1/(2B)): never an infinite z."""
    return min(max(frac, 0.5 / b), 1.0 - 0.5 / b)


def _critical(p: float, df: float) -> float:
    return float(special.ndtri(p) if math.isinf(df) else special.stdtrit(df, p))


def _fisher(r: float, se: float) -> tuple[float, float]:
    """Fisher's z of a correlation and its standard error; a correlation of ±1 (every
    item on one line) is ±inf with standard error 0: a one-point interval."""
    if abs(r) >= 1.0:
        return math.copysign(math.inf, r), 0.0
    with np.errstate(all="ignore"):
        return float(np.arctanh(r)), se / (1.0 - r * r)


def _wilson(p: float, n: int, z: float) -> tuple[float, float]:
    """Wilson's (1927) score interval for a proportion p of n items."""
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    return centre - half, centre + half


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
    """The estimate of ``stat`` and what its intervals need, by ``method``."""
    total = stat.total()
    estimate = stat.value(total)
    n = stat.n_items
    keep = {
        "fisher": fisher,
        "proportion": proportion,
        "lower_bound": lower_bound,
        "upper_bound": upper_bound,
    }
    if not math.isfinite(estimate):
        warn(f"The {what} is undefined (0/0: a rater used a single rating).", UndefinedKappaWarning)
        return Inference(math.nan, math.nan, method, n, **keep)
    if method == "asymptotic" and proportion:  # Wilson's interval needs p and n only
        return Inference(estimate, math.sqrt(estimate * (1.0 - estimate) / n), method, n, **keep)
    if method == "asymptotic":
        infl = stat.influence(total)
        se = math.sqrt(float(np.dot(infl, infl))) / n  # (eq. 4)
        return Inference(estimate, se, method, n, **keep)
    loo = stat.leave_one_out(total)
    if not np.all(np.isfinite(loo)):
        warn(
            f"Leaving out one item makes the {what} undefined (too few items); its "
            "jackknife standard error is nan.",
            DegenerateIntervalWarning,
        )
        return Inference(estimate, math.nan, method, n, **keep)
    dev = loo - loo.mean()
    se = math.sqrt((n - 1.0) / n * float(np.dot(dev, dev)))  # (eq. 5)
    if method == "jackknife":
        return Inference(estimate, se, method, n, **keep)
    draws = stat.resample(n_resamples, rng)
    finite = np.isfinite(draws)
    if not finite.all():
        warn(
            f"{int((~finite).sum())} of {n_resamples} bootstrap resamples have an undefined "
            f"{what} and were left out.",
            UndefinedKappaWarning,
        )
        draws = draws[finite]
    se = float(np.std(draws, ddof=1)) if draws.size > 1 else math.nan
    return Inference(estimate, se, method, n, draws=draws, loo=loo, **keep)


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
    _fields: tuple = ()

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
            ``(low, high)``: Wald on ``standard_error`` (``method="asymptotic"`` or
            ``"jackknife"``), or the BCa bootstrap interval (``"bootstrap"``).
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
