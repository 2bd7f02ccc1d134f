"""Resampling and interval machinery shared by the kappa tests.

Weighted kappa as a function of the cell weights of a contingency table (``_Kappa``),
the bootstrap as a multinomial redraw of the table (eq. 6 of ``docs/inference.md``),
the exact jackknife (eq. 8), BCa (eq. 7), Wald intervals (eq. 2a) and z-test p-values.
``qwkit._inference`` and ``qwkit._compare`` build their results on these pieces.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import sparse, special

from qwkit._warnings import UndefinedKappaWarning

_ALTERNATIVES = ("two-sided", "greater", "less")
_METHODS = ("asymptotic", "bootstrap", "percentile", "jackknife")
#: Bootstrap work is done in chunks of about this many float64 entries (16 MiB).
_CHUNK_ENTRIES = 1 << 21
#: A resampled chance-expected disagreement this small relative to the full sample's
#: is zero up to rounding: kappa is undefined there.
_REL_ZERO = 1e-12


class ConfidenceInterval(NamedTuple):
    """A confidence interval: ``low`` and ``high`` (Python floats)."""

    low: float
    high: float


# ---------------------------------------------------------------------------- options


def check_alternative(alternative) -> str:
    if not isinstance(alternative, str) or alternative not in _ALTERNATIVES:
        raise ValueError(
            f"`alternative` must be 'two-sided', 'greater' or 'less'; got {alternative!r}."
        )
    return alternative


def check_confidence_level(confidence_level) -> float:
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(
            f"`confidence_level` must be a real number in (0, 1); got {confidence_level!r}."
        )
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"`confidence_level` must be strictly between 0 and 1; got {level}.")
    return level


def check_method(method) -> str:
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError(
            "`method` must be 'asymptotic', 'bootstrap' (BCa), 'percentile' or "
            f"'jackknife'; got {method!r}."
        )
    return method


def check_n_resamples(n_resamples) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError(f"`n_resamples` must be an integer; got {n_resamples!r}.")
    if n_resamples < 1:
        raise ValueError(f"`n_resamples` must be at least 1; got {n_resamples}.")
    return int(n_resamples)


def check_rng(rng) -> np.random.Generator:
    if isinstance(rng, bool):
        raise TypeError(f"`rng` must be None, an integer seed or a numpy Generator; got {rng!r}.")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"`rng` must be None, an integer seed or a numpy Generator; got {rng!r}."
        ) from exc


# ---------------------------------------------------------------------------- the table


@dataclass(frozen=True, slots=True)
class _Kappa:
    """Weighted kappa as a function of the weights of m present cells.

    ``rows[c]``, ``cols[c]`` are the categories of cell c on a K-category scale and
    ``wmat`` the (K, K) disagreement weights. Every method takes cell weights (one
    vector, or a batch of them) and evaluates eq. 1 and its derivatives.
    """

    rows: np.ndarray
    cols: np.ndarray
    wmat: np.ndarray

    @property
    def k(self) -> int:
        return int(self.wmat.shape[0])

    def parts(self, w: np.ndarray):
        """N, O, r, c, Dc, rᵀD, S for one vector of cell weights."""
        k = self.k
        r = np.bincount(self.rows, weights=w, minlength=k)
        c = np.bincount(self.cols, weights=w, minlength=k)
        total = float(w.sum())
        observed = float(np.dot(w, self.wmat[self.rows, self.cols]))  # O = Σ dᵢⱼ Tᵢⱼ
        dc = self.wmat @ c
        rd = r @ self.wmat
        s = float(np.dot(r, dc))  # S = rᵀ D c
        return total, observed, r, c, dc, rd, s

    def degenerate(self, w: np.ndarray) -> bool:
        """True when one rater is constant: every cell of positive weight shares a row,
        or every one shares a column. Then κ = 0 exactly for every table of that support
        (⟨U, W⟩ = ⟨V, W⟩), and so do its resamples: its standard errors are exactly 0."""
        used = w > 0
        rows, cols = self.rows[used], self.cols[used]
        return bool(np.all(rows == rows[0]) or np.all(cols == cols[0]))

    def value(self, w: np.ndarray) -> float:
        total, observed, *_, s = self.parts(w)
        if s <= 0.0:
            return math.nan
        if self.degenerate(w):
            return 0.0  # exactly, not 1 − O·N/S with rounding noise
        return 1.0 - observed * total / s  # (eq. 1)

    def influence(self, w: np.ndarray, kappa: float) -> np.ndarray:
        """gᵢⱼ of eq. 3 at every present cell (the derivative of κ by pᵢⱼ)."""
        if self.degenerate(w):
            return np.zeros(self.rows.shape[0])
        total, _, _, _, dc, rd, s = self.parts(w)
        e_p = s / (total * total)  # Eₚ: expected disagreement in proportions
        d = self.wmat[self.rows, self.cols]
        h = d - (1.0 - kappa) * (dc[self.rows] + rd[self.cols]) / total
        return -h / e_p  # (eq. 3)

    def null_variance(self, w: np.ndarray, n_eff: float) -> float:
        """Var κ̂ under independence with the observed margins (eq. 4)."""
        if self.degenerate(w):
            return 0.0
        total, _, r, c, dc, rd, s = self.parts(w)
        rp, cp = r / total, c / total
        e_p = s / (total * total)
        g0 = self.wmat - dc[:, None] / total - rd[None, :] / total + e_p  # (eq. 4)
        return float(rp @ (g0 * g0) @ cp) / (e_p * e_p * n_eff)

    def batch(self, x: np.ndarray, full_s: float) -> np.ndarray:
        """Eq. 1 for each row of x (B, m): B resampled tables at once, O(B·m·K)."""
        k = self.k
        m = self.rows.shape[0]
        ones, cells = np.ones(m), np.arange(m)
        # Margins of every resampled table: sparse (m × K) indicator products, O(B·m).
        hot_r = sparse.csr_array((ones, (cells, self.rows)), shape=(m, k))
        hot_c = sparse.csr_array((ones, (cells, self.cols)), shape=(m, k))
        total = x.sum(axis=1)
        observed = x @ self.wmat[self.rows, self.cols]
        r = (hot_r.T @ x.T).T
        c = (hot_c.T @ x.T).T
        s = np.einsum("bi,bi->b", r @ self.wmat, c)
        out = _finish(total, observed, s, full_s)
        # A resample in which one rater is constant has kappa 0 exactly (see degenerate).
        constant = (np.count_nonzero(r, axis=1) == 1) | (np.count_nonzero(c, axis=1) == 1)
        out[constant & np.isfinite(out)] = 0.0
        return out

    def leave_one_out(self, w: np.ndarray, cell: np.ndarray, u: np.ndarray) -> np.ndarray:
        """κ after removing weight u[t] from cell[t], for every t, in O(1) each (eq. 8)."""
        total, observed, _, _, dc, rd, s = self.parts(w)
        i = self.rows[cell]
        j = self.cols[cell]
        d = self.wmat[i, j]
        total_ = total - u
        observed_ = observed - u * d
        s_ = s - u * dc[i] - u * rd[j] + u * u * d  # (eq. 8)
        out = _finish(total_, observed_, s_, s)
        if self.degenerate(w):  # one rater constant: so in every leave-one-out table
            out[np.isfinite(out)] = 0.0
        return out


def _finish(total, observed, s, full_s: float) -> np.ndarray:
    """1 − O·N/S elementwise, nan where S is zero up to rounding (undefined kappa)."""
    ok = s > _REL_ZERO * full_s
    out = np.full(np.shape(s), np.nan)
    np.divide(observed * total, s, out=out, where=ok)
    np.subtract(1.0, out, out=out, where=ok)
    return out


# ---------------------------------------------------------------------------- resampling


@dataclass(frozen=True, slots=True)
class _Sample:
    """What the bootstrap and jackknife need to know about the items.

    With unit weights (or none) the items are fully described by the integer count of
    every present cell: a bootstrap resample is one multinomial draw of the table
    (eq. 6). With unequal sample weights each item keeps its own cell and weight and
    the items themselves are resampled.
    """

    counts: np.ndarray  # float64 (m,): Σw per present cell
    counts_sq: np.ndarray  # float64 (m,): Σw² per present cell
    n_items: int
    item_cell: np.ndarray | None = None  # intp (n,): cell of each item (weighted only)
    item_weight: np.ndarray | None = None  # float64 (n,)

    @property
    def unit(self) -> bool:
        return self.item_cell is None

    @property
    def n_eff(self) -> float:
        """Kish's effective sample size (Σw)² / Σw² (= n for unit weights)."""
        return float(self.counts.sum() ** 2 / self.counts_sq.sum())

    def draws(self, n_resamples: int, rng: np.random.Generator):
        """Yield (b, m) float arrays of resampled cell weights, b rows at a time."""
        m = self.counts.shape[0]
        if self.unit:
            n = self.n_items
            pvals = self.counts / n
            step = max(1, _CHUNK_ENTRIES // m)
            for start in range(0, n_resamples, step):
                b = min(step, n_resamples - start)
                yield rng.multinomial(n, pvals, size=b).astype(np.float64)  # (eq. 6)
            return
        n = self.item_cell.shape[0]
        step = max(1, _CHUNK_ENTRIES // max(n, m))
        for start in range(0, n_resamples, step):
            b = min(step, n_resamples - start)
            idx = rng.integers(0, n, size=(b, n))
            flat = (self.item_cell[idx] + (np.arange(b) * m)[:, None]).ravel()
            x = np.bincount(flat, weights=self.item_weight[idx].ravel(), minlength=b * m)
            yield x.reshape(b, m)

    def removals(self):
        """(cell, weight removed, multiplicity) of every distinct leave-one-out sample."""
        if self.unit:
            cell = np.arange(self.counts.shape[0])
            return cell, np.ones(cell.shape[0]), self.counts
        n = self.item_cell.shape[0]
        return self.item_cell, self.item_weight, np.ones(n)


@dataclass(frozen=True, slots=True)
class _Estimator:
    """A statistic of the cell weights, with its resampling machinery."""

    sample: _Sample
    batch: Callable[[np.ndarray], np.ndarray]  # (b, m) -> (b,)
    leave_one_out: Callable[[np.ndarray, np.ndarray], np.ndarray]  # cell, u -> values

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate([self.batch(x) for x in self.sample.draws(n_resamples, rng)])

    def jackknife(self):
        """Leave-one-out values and their multiplicities (they sum to n)."""
        cell, u, mult = self.sample.removals()
        return self.leave_one_out(cell, u), mult


def _jackknife_moments(values: np.ndarray, mult: np.ndarray):
    """Jackknife SE (eq. 9) and BCa acceleration (eq. 7b) from leave-one-out values."""
    n = float(mult.sum())
    mean = float(np.dot(mult, values)) / n
    dev = mean - values
    ss = float(np.dot(mult, dev * dev))
    se = math.sqrt((n - 1.0) / n * ss)  # (eq. 9)
    accel = float(np.dot(mult, dev**3)) / (6.0 * ss**1.5) if ss > 0 else 0.0  # (eq. 7b)
    return se, accel


def _degenerate(message: str, category=RuntimeWarning) -> ConfidenceInterval:
    warnings.warn(message, category, stacklevel=4)
    return ConfidenceInterval(math.nan, math.nan)


def _tail_levels(level: float, alternative: str):
    """Probabilities of the lower and upper ends (None: that side is unbounded)."""
    if alternative == "two-sided":
        return (1.0 - level) / 2.0, (1.0 + level) / 2.0
    if alternative == "greater":
        return 1.0 - level, None
    return None, level


def _interval(
    estimate: float,
    standard_error: float,
    estimator: _Estimator,
    *,
    confidence_level,
    method,
    n_resamples,
    rng,
    alternative: str,
    upper_bound: float,
    df: float = math.inf,
) -> ConfidenceInterval:
    """The confidence interval of ``estimate`` by any of the four methods.

    ``df`` gives the Wald intervals (asymptotic and jackknife) Student-t critical values
    with that many degrees of freedom; the default (infinite) is the normal.
    """
    level = check_confidence_level(confidence_level)
    method = check_method(method)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    lo_p, hi_p = _tail_levels(level, alternative)
    if math.isnan(estimate):
        return _degenerate(
            "The estimate is undefined (nan); so is its confidence interval.",
            UndefinedKappaWarning,
        )

    if method in ("asymptotic", "jackknife"):
        if method == "jackknife":
            values, mult = estimator.jackknife()
            if not np.all(np.isfinite(values)):
                return _degenerate(
                    "A leave-one-out sample has an undefined kappa (too few items); the "
                    "jackknife interval is undefined. Use method='asymptotic' or "
                    "'percentile'."
                )
            standard_error, _ = _jackknife_moments(values, mult)
        low = estimate + _critical(lo_p, df) * standard_error if lo_p is not None else -math.inf
        high = estimate + _critical(hi_p, df) * standard_error if hi_p is not None else upper_bound
        # (eq. 2a) Wald interval; kappa never exceeds 1, so neither does the upper limit.
        return ConfidenceInterval(float(low), float(min(high, upper_bound)))

    theta = estimator.bootstrap(n_resamples, gen)
    finite = np.isfinite(theta)
    if not finite.all():
        dropped = int((~finite).sum())
        warnings.warn(
            f"{dropped} of {n_resamples} bootstrap resamples have an undefined kappa (every "
            "rating of the resample in one category) and were left out of the interval.",
            UndefinedKappaWarning,
            stacklevel=3,
        )
        theta = theta[finite]
        if theta.size == 0:
            return ConfidenceInterval(math.nan, math.nan)

    if method == "bootstrap":  # BCa (eq. 7)
        values, mult = estimator.jackknife()
        if not np.all(np.isfinite(values)):
            return _degenerate(
                "A leave-one-out sample has an undefined kappa (too few items), so the BCa "
                "acceleration is undefined. Use method='percentile'."
            )
        _, accel = _jackknife_moments(values, mult)
        below = float(np.count_nonzero(theta < estimate) + np.count_nonzero(theta <= estimate))
        z0 = special.ndtri(below / (2.0 * theta.size))  # (eq. 7a), ties count half
        if not math.isfinite(z0):
            return _degenerate(
                "Every bootstrap kappa lies on one side of the estimate, so the BCa "
                "bias correction is infinite. Use method='percentile'."
            )

        def adjust(p):
            if p is None:
                return None
            zp = z0 + special.ndtri(p)
            return float(special.ndtr(z0 + zp / (1.0 - accel * zp)))  # (eq. 7)

        lo_p, hi_p = adjust(lo_p), adjust(hi_p)

    low = float(np.quantile(theta, lo_p)) if lo_p is not None else -math.inf
    high = float(np.quantile(theta, hi_p)) if hi_p is not None else upper_bound
    return ConfidenceInterval(low, high)


def _critical(p: float, df: float) -> float:
    """The p-quantile of the normal (df infinite) or of Student's t with df degrees."""
    return float(special.ndtri(p) if math.isinf(df) else special.stdtrit(df, p))


def _pvalue(z: float, alternative: str) -> float:
    if alternative == "two-sided":
        return float(2.0 * special.ndtr(-abs(z)))
    if alternative == "greater":
        return float(special.ndtr(-z))
    return float(special.ndtr(z))


def _zero_se_pvalue(what: str) -> float:
    warnings.warn(
        f"The {what} is zero (e.g. a rater used a single category), so the z-test is "
        "undefined; the p-value is nan.",
        RuntimeWarning,
        stacklevel=4,
    )
    return math.nan


class Resampled:
    """Confidence intervals and bootstrap draws of a test result (shared by
    ``KappaTestResult`` and ``KappaComparisonResult``).

    Subclasses are frozen dataclasses with ``statistic``, ``standard_error``,
    ``alternative`` and ``_estimator`` fields, and set ``_upper_bound`` (the largest
    value the statistic can take).
    """

    __slots__ = ()
    _upper_bound = math.inf

    def confidence_interval(
        self,
        confidence_level=0.95,
        *,
        method="asymptotic",
        n_resamples=9999,
        rng=None,
    ) -> ConfidenceInterval:
        """Confidence interval for the statistic.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Confidence level, strictly between 0 and 1.
        method : {"asymptotic", "bootstrap", "percentile", "jackknife"}, \
default="asymptotic"
            ``"asymptotic"``: Wald interval on the asymptotic standard error (for
            kappa, SAS PROC FREQ's interval). ``"bootstrap"``: bias-corrected and
            accelerated (BCa) bootstrap, the acceleration from the exact jackknife.
            ``"percentile"``: the plain percentile bootstrap. ``"jackknife"``: Wald
            interval on the exact jackknife standard error.
        n_resamples : int, default=9999
            Bootstrap resamples (``"bootstrap"`` and ``"percentile"`` only).
        rng : None, int or numpy.random.Generator, default=None
            Source of randomness for the bootstrap; an integer seeds a new Generator.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``. With ``alternative="greater"`` the interval is one-sided
            ``(low, upper bound)``; with ``"less"``, ``(-inf, high)``. Wald-type upper
            limits above the largest possible value (1 for kappa) are truncated there.

        Warns
        -----
        UndefinedKappaWarning
            When the statistic is undefined (the interval is nan), or when some
            bootstrap resamples are undefined (they are left out).
        RuntimeWarning
            When BCa or the jackknife is undefined for these data (nan interval).

        Notes
        -----
        With unit sample weights a bootstrap resample of the items *is* a multinomial
        draw of the contingency table (eq. 6): the work is O(B·cells), whatever the
        number of items. With unequal sample weights the items themselves are
        resampled, O(B·n). Pairs of predictions of the same item stay together.
        """
        return _interval(
            self.statistic,
            self.standard_error,
            self._estimator,
            confidence_level=confidence_level,
            method=method,
            n_resamples=n_resamples,
            rng=rng,
            alternative=self.alternative,
            upper_bound=self._upper_bound,
        )

    def bootstrap_distribution(self, n_resamples=9999, *, rng=None) -> np.ndarray:
        """The statistic on each bootstrap resample: what the bootstrap intervals are
        made of (nan where a resample's statistic is undefined).

        Parameters
        ----------
        n_resamples : int, default=9999
            Number of resamples.
        rng : None, int or numpy.random.Generator, default=None
            Source of randomness; with the same seed the draws are those of
            :meth:`confidence_interval` with ``method="bootstrap"`` or ``"percentile"``.

        Returns
        -------
        ndarray of shape (n_resamples,)

        Examples
        --------
        >>> import qwkit
        >>> res = qwkit.kappa_test_from_confusion([[10, 2], [3, 15]], weights=None)
        >>> draws = res.bootstrap_distribution(2000, rng=20261121)
        >>> draws.shape, bool(abs(draws.mean() - res.statistic) < 0.05)
        ((2000,), True)
        """
        return self._estimator.bootstrap(check_n_resamples(n_resamples), check_rng(rng))
