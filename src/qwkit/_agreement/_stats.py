"""The agreement coefficients as functions of sums over items, with Gwet's variances.

Every coefficient of ``qwkit.agreement_score`` is a smooth function of a few sums over
the rated items (``docs/agreement.md``, whose equation numbers the code cites). Each
class below holds the per-item terms of those sums for the m distinct rows of the data
(each row standing for ``count`` identical items) and evaluates the coefficient

* on the data (``value``),
* on a batch of resampled row weights, B resamples at once (``batch``: the bootstrap),
* with one item left out, for every row in O(1) each (``leave_one_out``: the
  jackknife), by expanding the bilinear chance terms around the full-sample sums,

and gives Gwet's (2014) linearization variance of the coefficient (``variance``), as
R irrCAC computes it. Disagreements d are those of a metric of
``qwkit._agreement._metrics`` in its own units; ``dmax`` is the largest disagreement on
the rating scale, so that Gwet's agreement weights are 1 − d/dmax (eq. 2).
"""

from __future__ import annotations

import numpy as np

from qwkit._agreement import _metrics as _m

#: A chance disagreement this small relative to its largest possible value is zero up
#: to rounding: the coefficient is undefined there.
_REL_ZERO = 1e-12


def _safe_div(num, den, ok):
    out = np.full(np.shape(den), np.nan)
    np.divide(num, den, out=out, where=ok)
    return out


def _row_sums(rows, values, m):
    return np.bincount(rows, weights=values, minlength=m)


class _Base:
    """Shared pieces: the observed disagreement of the Fleiss family (eq. 3) and the
    (1 − f)/(n(n − 1)) sum of squares of Gwet's linearized item values (eq. 10).

    ``rows`` (:class:`~qwkit._agreement._metrics.Rows`): each item's distinct categories
    and how many of its ratings each holds; ``count``: how many items each row stands
    for."""

    def __init__(self, rows, count, metric, dmax):
        self.rows, self.count = rows, count
        self.metric, self.dmax = metric, float(dmax)
        self.m = rows.m
        if isinstance(metric, _m.Moments):  # r, Σz, Σz², Pᵢ   (eqs. 3, M)
            self._moments = metric.row_moments(rows)
            self.r, self.pairs = self._moments[:, 0], self._moments[:, 3]
        else:
            self.r = rows.r
            self.pairs = _m.row_pairs(metric, rows)  # Pᵢ (eq. 3)
        two = self.r >= 2
        self.e = two.astype(np.float64)
        # oᵢ: mean disagreement over the ordered pairs of item i's ratings (eq. 4)
        self.o = np.where(two, self.pairs / np.maximum(self.r * (self.r - 1.0), 1.0), 0.0)

    @property
    def _entries(self):
        """Flat (row, code, multiplicity) of every rating slot."""
        return self.rows.entries()

    def _pooled(self, per_row, divide=False):
        """Each row's ratings, each weighted ``per_row[i]`` (or 1/``per_row[i]``),
        pooled over the scale.

        Returns the design (m × p summaries, ``metric.design``) and a function of
        ``ds`` = D S giving every row's Σ over its ratings of coefᵢ·(D S)(c).
        Squared differences need no entries: both are the row's three moments (eq. M).
        """
        metric = self.metric
        weigh = np.divide if divide else np.multiply
        if isinstance(metric, _m.Moments):
            design = weigh(self._moments[:, :3], per_row[:, None])
            return design, lambda ds: metric.dot(design, ds)  # Σ coef·(D S)(c)   (eq. M)
        rows, cc, mm = self._entries
        coef = weigh(mm, per_row[rows])
        design = metric.design(rows, cc, coef, self.m)
        return design, lambda ds: _row_sums(rows, coef * metric.lookup(ds, cc), self.m)

    @property
    def n(self) -> float:
        return float(self.count.sum())

    def _gwet_sum(self, x, center, f, n):
        if n < 2:
            return np.nan
        dev = x - center
        return (1.0 - f) / (n * (n - 1.0)) * float(np.dot(self.count, dev * dev))  # (eq. 10)

    def value(self) -> float:
        return float(self.batch(self.count[None, :])[0])  # overridden where it pays


# ---------------------------------------------------------------------------- Fleiss


class _PooledChance(_Base):
    """Coefficients whose chance term pools every item's ratings (Fleiss, Gwet).

    A subclass sets ``design`` (each item's pooled ratings), ``chance`` (the metric of
    the chance term), ``full_c`` (the chance cross-sum of all items), ``a`` and
    ``self_cross`` (its terms per item, for eq. 22), and defines
    ``_coefficient(n1, n2, o, c)``.
    """

    def value(self) -> float:
        n1, n2, o = self._totals()
        return float(self._coefficient(np.float64(n1), n2, o, self.full_c))

    def batch(self, x):
        s = _m.summarize(self.design, x)
        return self._coefficient(x.sum(axis=1), x @ self.e, x @ self.o, self.chance.cross(s, s))

    def _totals(self):
        c = self.count
        return self.n, float(c @ self.e), float(c @ self.o)

    def leave_one_out(self, cell, u):
        n1, n2, o = self._totals()
        c = self.full_c - 2.0 * u * self.a[cell] + u * u * self.self_cross[cell]  # (eq. 22)
        return self._coefficient(n1 - u, n2 - u * self.e[cell], o - u * self.o[cell], c)


class Fleiss(_PooledChance):
    """Fleiss' kappa, generalized to any weights and missing ratings (eqs. 4–6)."""

    def __init__(self, rows, count, metric, dmax):
        super().__init__(rows, count, metric, dmax)
        self.chance = metric
        # πᵢ: item i's ratings, each 1/rᵢ
        self.design, against = self._pooled(self.r, divide=True)
        self.self_cross = self.pairs / (self.r * self.r)  # cross(πᵢ, πᵢ)
        s = _m.summarize(self.design, self.count[None, :])[0]
        ds = metric.apply(s)  # D S, once
        self.s = s
        self.full_c = float(metric.dot(ds, s))
        self.a = against(ds)  # aᵢ = πᵢᵀ D S: item i's ratings against all of them

    def _coefficient(self, n1, n2, o, c):
        ok = (n2 > 0) & (c > _REL_ZERO * n1 * n1 * self.dmax)
        return 1.0 - _safe_div(o * n1 * n1, n2 * c, ok)  # κ = 1 − D_o/D_e   (eq. 6)

    def variance(self, f):
        n, n2, o = self._totals()
        dm = self.dmax
        pa = 1.0 - o / (n2 * dm)  # (eq. 5)
        pe = 1.0 - self.full_c / (n * n * dm)
        k = (pa - pe) / (1.0 - pe)
        pa_i = np.where(self.e > 0, 1.0 - self.o / dm, 0.0)
        k_i = (n / n2) * (pa_i - pe * self.e) / (1.0 - pe)  # (eq. 11)
        pe_i = 1.0 - self.a / (n * dm)  # πᵢᵀ A Π
        x = k_i - 2.0 * (1.0 - k) * (pe_i - pe) / (1.0 - pe)  # (eq. 12)
        return self._gwet_sum(x, k, f, n)

    def null_variance(self) -> float:
        """Fleiss, Nee & Landis (1979): Var κ̂ under no agreement beyond chance, for
        unweighted kappa with m ratings of every item (eq. 13); nan otherwise."""
        if not isinstance(self.metric, _m.Identity) or not np.all(self.r == self.r[0]):
            return np.nan
        m = float(self.r[0])
        p = self.s / self.n
        pq = p * (1.0 - p)
        total = float(pq.sum())
        if m < 2 or total <= 0:
            return np.nan
        num = total * total - float(np.dot(pq, 1.0 - 2.0 * p))
        return 2.0 * num / (total * total * self.n * m * (m - 1.0))  # (eq. 13)


class Scott(Fleiss):
    """Scott's π: Fleiss' kappa of two raters over the items both rated, with the
    variance of R irrCAC's ``scott2.table`` — Gwet's linearization with divisor n²
    instead of n(n − 1) (eq. 12')."""

    def variance(self, f):
        n = self.n
        return super().variance(f) * (n - 1.0) / n  # (eq. 12')


# ---------------------------------------------------------------------------- Gwet, BP


class Gwet(_PooledChance):
    """Gwet's AC1 (identity weights) and AC2 (eqs. 7–8)."""

    def __init__(self, rows, count, metric, dmax, total_agreement, q, n_categories):
        super().__init__(rows, count, metric, dmax)
        ident = _m.Identity(n_categories)
        self.chance = ident
        row, cc, mm = self._entries
        coef = mm / self.r[row]
        self.design = ident.design(row, cc, coef, self.m)
        self.self_cross = _m.row_pairs(ident, rows) / (self.r * self.r)
        self.cq = float(total_agreement) / (q * (q - 1.0))  # T_w / (q(q − 1))
        s = _m.summarize(self.design, self.count[None, :])[0]
        self.full_c = float(ident.cross(s, s))  # N²(1 − Σπₖ²)
        self.a = _row_sums(row, coef * ident.at(s, cc), self.m)

    def _coefficient(self, n1, n2, o, c):
        pa = 1.0 - _safe_div(o, n2 * self.dmax, n2 > 0)
        pe = self.cq * c / (n1 * n1)  # (eq. 7)
        return _safe_div(pa - pe, 1.0 - pe, pe < 1.0)

    def variance(self, f):
        n, n2, o = self._totals()
        pa = 1.0 - o / (n2 * self.dmax)
        pe = self.cq * self.full_c / (n * n)
        ac = (pa - pe) / (1.0 - pe)
        pa_i = np.where(self.e > 0, 1.0 - self.o / self.dmax, 0.0)
        ac_i = (n / n2) * (pa_i - pe * self.e) / (1.0 - pe)  # (eq. 11)
        pe_i = self.cq * self.a / n  # T_w/(q(q−1)) Σₖ πᵢₖ(1 − Πₖ)
        x = ac_i - 2.0 * (1.0 - ac) * (pe_i - pe) / (1.0 - pe)  # (eq. 12)
        return self._gwet_sum(x, ac, f, n)


class BrennanPrediger(_Base):
    """Brennan & Prediger's coefficient: chance agreement T_w/q² (eq. 9)."""

    def __init__(self, rows, count, metric, dmax, total_agreement, q):
        super().__init__(rows, count, metric, dmax)
        self.pe = float(total_agreement) / (q * q)  # (eq. 9)

    def _coefficient(self, n2, o):
        pa = 1.0 - _safe_div(o, n2 * self.dmax, n2 > 0)
        return (pa - self.pe) / (1.0 - self.pe)

    def batch(self, x):
        return self._coefficient(x @ self.e, x @ self.o)

    def leave_one_out(self, cell, u):
        n2, o = float(self.count @ self.e), float(self.count @ self.o)
        return self._coefficient(n2 - u * self.e[cell], o - u * self.o[cell])

    def variance(self, f):
        n, n2 = self.n, float(self.count @ self.e)
        bp = self.value()
        pa_i = np.where(self.e > 0, 1.0 - self.o / self.dmax, 0.0)
        x = (n / n2) * (pa_i - self.pe * self.e) / (1.0 - self.pe)  # (eq. 11)
        return self._gwet_sum(x, bp, f, n)


# ---------------------------------------------------------------------------- Krippendorff


class Krippendorff(_Base):
    """Krippendorff's alpha: pairable values only, D_e over the pooled values (eq. 14)."""

    def __init__(self, rows, count, metric, dmax):
        super().__init__(rows, count, metric, dmax)
        e = self.e
        self.rr = e * self.r  # pairable values of item i
        self.q = np.where(e > 0, self.pairs / np.maximum(self.r - 1.0, 1.0), 0.0)
        self.design, against = self._pooled(e)  # the pairable ratings
        self.self_cross = e * self.pairs
        s = _m.summarize(self.design, self.count[None, :])[0]
        ds = metric.apply(s)
        self.full_c = float(metric.dot(ds, s))
        self.b = against(ds)

    def value(self) -> float:
        rr, q = float(self.count @ self.rr), float(self.count @ self.q)
        return float(self._coefficient(np.float64(rr), q, self.full_c))

    def _coefficient(self, rr, q, c):
        ok = (rr >= 2) & (c > _REL_ZERO * rr * rr * self.dmax)
        return 1.0 - _safe_div(q * (rr - 1.0), c, ok)  # α = 1 − D_o/D_e   (eq. 14)

    def batch(self, x):
        s = _m.summarize(self.design, x)
        return self._coefficient(x @ self.rr, x @ self.q, self.metric.cross(s, s))

    def leave_one_out(self, cell, u):
        rr, q = float(self.count @ self.rr), float(self.count @ self.q)
        c = self.full_c - 2.0 * u * self.b[cell] + u * u * self.self_cross[cell]  # (eq. 22)
        return self._coefficient(rr - u * self.rr[cell], q - u * self.q[cell], c)

    def variance(self, f):
        keep = self.e > 0
        n = float(self.count @ self.e)  # pairable items
        big_r, q = float(self.count @ self.rr), float(self.count @ self.q)
        dm, rbar = self.dmax, big_r / n
        pa1 = 1.0 - q / (big_r * dm)  # pa′ (eq. 15)
        pe = 1.0 - self.full_c / (big_r * big_r * dm)
        alpha1 = (pa1 - pe) / (1.0 - pe)  # α′: Gwet centres the variance on it
        r = self.r[keep]
        pa_i = (r - self.q[keep] / dm) / rbar - pa1 * (r - rbar) / rbar  # (eq. 16)
        k_i = (pa_i - pe) / (1.0 - pe)
        pe_i = (r - self.b[keep] / (big_r * dm)) / rbar - pe * (r - rbar) / rbar
        x = k_i - 2.0 * (1.0 - alpha1) * (pe_i - pe) / (1.0 - pe)
        if n < 2:
            return np.nan
        dev = x - alpha1
        return (1.0 - f) / (n * (n - 1.0)) * float(np.dot(self.count[keep], dev * dev))
