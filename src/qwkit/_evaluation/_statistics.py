"""Every statistic of one rater against a reference, as item sums with their inference.

A pair is a reference (the first human) and a candidate (a machine, or the second human)
on the items both rated: positions for kappa's weights and for agreement, values for the
moments (``Scores``). :class:`Context` carries the options of the call and the clusters,
and turns each statistic of per-item sums into an :class:`Estimate` — cluster-robust when
the items are nested (the sums of a cluster's items are one unit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from qwkit._evaluation._design import Categories
from qwkit._evaluation._estimates import (
    Inference,
    infer,
    infer_difference,
    infer_ratio,
)
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._records import Descriptives, Estimate
from qwkit._evaluation._sums import ItemSums, by_cluster

__all__ = [
    "SMD_DEFINITIONS",
    "Context",
    "agreement_sums",
    "descriptives",
    "pearson_sums",
    "pooled_smd_sums",
    "r2_sums",
    "rmse_sums",
    "rounded",
    "smd_sums",
]


#: The SD of a standardized mean difference: pooled over the two raters (Williamson, Xi &
#: Breyer 2012) or the reference's alone (RSMTool's default, "unpooled").
SMD_DEFINITIONS = ("pooled", "unpooled")

# ---------------------------------------------------------------------------- sums


def _rows(h: np.ndarray, m: np.ndarray, products: tuple[str, ...]) -> np.ndarray:
    """The sums' rows (1, h, m, then the named products) of h and m minus one common
    constant (none of the statistics here moves with it)."""
    z = np.empty((3 + len(products), h.shape[0]))
    shift = float(np.mean(h))
    z[0] = 1.0
    a, b = np.subtract(h, shift, out=z[1]), np.subtract(m, shift, out=z[2])
    pick = {"hh": (a, a), "mm": (b, b), "hm": (a, b)}
    for row, name in enumerate(products, start=3):
        np.multiply(*pick[name], out=z[row])
    return z


def _smd(s):
    n, sh, sm, shh = (s[..., j] for j in range(4))
    sd = np.sqrt((shh - sh * sh / n) / (n - 1.0))  # ddof = 1, as RSMTool
    return (sm - sh) / n / sd  # (eq. 13)


def smd_sums(h: np.ndarray, m: np.ndarray) -> ItemSums:
    """(mean(m) − mean(h)) / sd(h): the "unpooled" SMD, RSMTool's default (eq. 13)."""
    return ItemSums(_rows(h, m, ("hh",)), _smd)


def _pooled_smd(s):
    n, s1, s2, s11, s22 = (s[..., j] for j in range(5))
    var1 = (s11 - s1 * s1 / n) / (n - 1.0)
    var2 = (s22 - s2 * s2 / n) / (n - 1.0)
    return (s2 - s1) / n / np.sqrt((var1 + var2) / 2.0)  # (eq. 14)


def pooled_smd_sums(h: np.ndarray, m: np.ndarray) -> ItemSums:
    """(mean(m) − mean(h)) / √((sd_h² + sd_m²)/2): the "pooled" SMD, Williamson, Xi &
    Breyer's (2012), on whose scale their bound 0.15 was set (eq. 14)."""
    return ItemSums(_rows(h, m, ("hh", "mm")), _pooled_smd)


def _pearson(s):
    n, sx, sy, sxx, syy, sxy = (s[..., j] for j in range(6))
    return (n * sxy - sx * sy) / np.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy))


def pearson_sums(h: np.ndarray, m: np.ndarray) -> ItemSums:
    """Pearson's correlation of h and m."""
    return ItemSums(_rows(h, m, ("hh", "mm", "hm")), _pearson)


def _proportion(s):
    return s[..., 1] / s[..., 0]


def agreement_sums(h: np.ndarray, m: np.ndarray, tolerance: int) -> ItemSums:
    """The proportion of items whose ratings differ by at most ``tolerance`` points."""
    z = np.empty((2, h.shape[0]))
    z[0] = 1.0
    z[1] = np.abs(h - m) <= tolerance
    return ItemSums(z, _proportion)


def _rmse(s):
    return np.sqrt(s[..., 1] / s[..., 0])


def rmse_sums(h: np.ndarray, m: np.ndarray) -> ItemSums:
    """√(mean (h − m)²): the root mean squared error of m as a prediction of h (eq. R1)."""
    z = np.empty((2, h.shape[0]))
    z[0] = 1.0
    d = np.subtract(h, m, out=z[1])
    np.multiply(d, d, out=z[1])
    return ItemSums(z, _rmse)


def _r2(s):
    n, sh, shh, see = (s[..., j] for j in range(4))
    return 1.0 - see / (shh - sh * sh / n)


def r2_sums(h: np.ndarray, m: np.ndarray) -> ItemSums:
    """1 − Σ(h − m)² / Σ(h − h̄)²: the R² of m as a prediction of h (scikit-learn's
    ``r2_score``, as RSMTool reports it; eq. R2)."""
    z = np.empty((4, h.shape[0]))
    z[0] = 1.0
    np.subtract(h, float(np.mean(h)), out=z[1])
    np.multiply(z[1], z[1], out=z[2])
    d = h - m
    np.multiply(d, d, out=z[3])
    return ItemSums(z, _r2)


def rounded(m: np.ndarray, origin: float) -> np.ndarray:
    """Real-valued positions to the nearest category: the value ``origin + m`` rounded as
    RSMTool rounds it (``np.rint``: a half to the even value), back to positions. Not
    clipped: an untrimmed score far outside the scale stays outside (as RSMTool's)."""
    return np.rint(m + origin) - origin


def categories_of(m: np.ndarray, n_classes: int) -> tuple[np.ndarray, int]:
    """Rounded positions as categories of a table: those outside the scale pooled into
    one more category ``n_classes`` (no human rating is in it, so it agrees with none:
    the unweighted kappa of RSMTool, whose categories are the values that occur). Returns
    the codes and the number of categories."""
    outside = (m < 0) | (m > n_classes - 1)
    if not outside.any():
        return m, n_classes
    return np.where(outside, float(n_classes), m), n_classes + 1


def descriptives(values: np.ndarray, origin: float) -> Descriptives:
    """n, mean, SD (n − 1), min and max of ``values`` (relative to ``origin``)."""
    n = int(values.size)
    sd = float(np.std(values, ddof=1)) if n > 1 else math.nan
    return Descriptives(
        n_items=n,
        mean=origin + float(np.mean(values)),
        sd=sd,
        min=origin + float(np.min(values)),
        max=origin + float(np.max(values)),
    )


# ---------------------------------------------------------------------------- inference


@dataclass(frozen=True, slots=True)
class Context:
    """The options of one evaluation, and its clusters (None: the items are the units).

    Every statistic of the evaluation becomes an :class:`Estimate` here: its rows are the
    items ``rows`` (indices into the evaluation's items), summed by cluster when the
    items are nested, then inferred by ``method``.
    """

    level: float
    method: str
    n_resamples: int
    gen: np.random.Generator
    clusters: Categories | None = None
    _taken: dict = field(default_factory=dict, repr=False, compare=False)

    def units(self, stat: ItemSums, rows: np.ndarray) -> tuple[ItemSums, int | None]:
        """``stat`` with one row per unit, and the number of clusters (None: items)."""
        if self.clusters is None:
            return stat, None
        key = id(rows)
        if key not in self._taken:  # the same rows serve many statistics
            self._taken[key] = (rows, self.clusters.take(rows))  # rows kept: id stays unique
        used = self._taken[key][1]
        return by_cluster(stat, used.codes, used.n), used.n

    def _wrap(self, inf: Inference, rows, n_clusters, level) -> Estimate:
        low, high = inf.interval(self.level if level is None else level)
        return Estimate(
            statistic=inf.estimate,
            standard_error=inf.standard_error,
            low=low,
            high=high,
            n_items=len(rows),
            df=float(inf.df),
            n_clusters=n_clusters,
        )

    def estimate(
        self,
        stat: ItemSums,
        rows: np.ndarray,
        what: str,
        *,
        fisher: bool = False,
        proportion: bool = False,
        lower_bound: float = -math.inf,
        upper_bound: float = math.inf,
        level: float | None = None,
    ) -> tuple[Estimate, Inference]:
        """One statistic: its estimate and its inference (for tests later)."""
        units, n_clusters = self.units(stat, rows)
        inf = infer(
            units,
            self.method,
            n_resamples=self.n_resamples,
            rng=self.gen,
            fisher=fisher,
            proportion=proportion,
            lower_bound=lower_bound,
            upper_bound=upper_bound,
            what=what,
        )
        return self._wrap(inf, rows, n_clusters, level), inf

    def difference(
        self,
        a: ItemSums,
        b: ItemSums,
        rows: np.ndarray,
        what: str,
        *,
        fisher: bool = False,
        level: float | None = None,
    ) -> tuple[Estimate, Inference]:
        """θ_a − θ_b of two statistics of the same items (a degradation)."""
        (ua, n_clusters), (ub, _) = self.units(a, rows), self.units(b, rows)
        inf = infer_difference(
            ua,
            ub,
            self.method,
            n_resamples=self.n_resamples,
            rng=self.gen,
            fisher=fisher,
            what=what,
        )
        return self._wrap(inf, rows, n_clusters, level), inf

    def ratio(
        self, a: ItemSums, b: ItemSums, rows: np.ndarray, what: str
    ) -> tuple[Estimate, Inference]:
        """1 − θ_a/θ_b by Fieller's method (PRMSE)."""
        (ua, n_clusters), (ub, _) = self.units(a, rows), self.units(b, rows)
        inf = infer_ratio(
            ua, ub, self.method, n_resamples=self.n_resamples, rng=self.gen, what=what
        )
        return self._wrap(inf, rows, n_clusters, None), inf


def kappa_of(ctx: Context, candidate, reference, wmat, rows, what="kappa", *, level=None):
    """Kappa of ``candidate`` against ``reference`` on ``rows`` (Fisher's scale)."""
    return ctx.estimate(
        kappa_sums(candidate, reference, wmat),
        rows,
        what,
        fisher=True,
        upper_bound=1.0,
        level=level,
    )
