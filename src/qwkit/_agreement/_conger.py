"""Conger's kappa from each rater's distribution, at the cost of reading the ratings.

Conger's chance disagreement pairs two *different* raters (eq. 17 of
``docs/agreement.md``); over all ordered pairs g ≠ h of the k raters,

    Σ_{g≠h} p_gᵀ D p_h = Pᵀ D P − Σ_g p_gᵀ D p_g,   P = Σ_g p_g                    (17b)

so it needs the pooled vector P and each rater's own term, never the k² pairs: O(N) in
the N ratings for the value and Gwet's variance (eq. 18). The bootstrap re-weights each
rater's distribution (O(N) per resample); the jackknife removes one item at a time,
which changes only the distributions of the raters who rated it (eq. 22 for each of
their pairs: O(Σᵢ rᵢ²) in all). A rater left without a rating — in a resample, or with
an item removed — is dropped, as :func:`~qwkit.agreement_score` drops raters with no
rating.
"""

from __future__ import annotations

import numpy as np

from qwkit import _kernels
from qwkit._agreement import _metrics as _m
from qwkit._agreement._stats import _REL_ZERO, _Base, _safe_div


def _batch_steps(b: int, per_resample: int):
    step = max(1, _m.CHUNK // max(per_resample, 1))
    return [(j, min(b, j + step)) for j in range(0, b, step)]


class Conger(_Base):
    """Conger's kappa: chance from each rater's own distribution (eqs. 17, 17b)."""

    def __init__(self, entries: _m.Entries, rows: _m.Rows, count, metric, dmax):
        super().__init__(rows, count, metric, dmax)
        self.entries = entries
        self.k = entries.n_raters
        w = count[entries.item]
        # each rater's distribution S_g (weights of its distinct categories)
        self.rr, self.inv = _m.group_rows(entries.rater, self.k, entries.code, w)
        self.ng = self.rr.r
        p = metric.design(
            np.zeros(self.rr.codes.shape[0], dtype=np.intp),
            self.rr.codes,
            self.rr.mult / self.ng[self.rr.row],
            1,
        )
        self.p = _m.summarize(p, np.ones((1, 1)))[0]  # P = Σ_g S_g / n_g
        self.dp = metric.apply(self.p)  # D P, once
        self.pdp = float(metric.dot(self.dp, self.p))
        self.self_raw = _m.row_pairs(metric, self.rr)  # S_gᵀ D S_g
        self.q_total = float(np.sum(self.self_raw / (self.ng * self.ng)))
        rr = self.rr  # S_gᵀ D P
        self.sdp = np.bincount(
            rr.row, weights=rr.mult * metric.lookup(self.dp, rr.codes), minlength=self.k
        )

    def _chance(self) -> float:
        k = self.k
        return (self.pdp - self.q_total) / (k * (k - 1.0))  # D_e   (eqs. 17, 17b)

    def value(self) -> float:
        n2, o = float(self.count @ self.e), float(self.count @ self.o)
        return float(self._coefficient(np.float64(n2), o, np.float64(self._chance())))

    def _coefficient(self, n2, o, chance):
        ok = (n2 > 0) & (chance > _REL_ZERO * self.dmax)
        return 1.0 - _safe_div(o, n2 * chance, ok)  # (eq. 17)

    # ------------------------------------------------------------------ variance

    def variance(self, f):
        metric, dm, k = self.metric, self.dmax, float(self.k)
        n, n2, o = self.n, float(self.count @ self.e), float(self.count @ self.o)
        rr, ng = self.rr, self.ng
        # p_gᵀ D Σ_{h≠g} p_h = (S_gᵀ D P − S_gᵀ D S_g / n_g) / n_g
        cross = (self.sdp - self.self_raw / ng) / ng
        chance = float(cross.sum()) / (k * (k - 1.0))
        pa, pe = 1.0 - o / (n2 * dm), 1.0 - chance / dm
        kappa = (pa - pe) / (1.0 - pe)
        others = (k - 1.0) - cross / dm
        ent = self.entries
        g = ent.rater
        at_self = _m.within(metric, rr)[self.inv]  # (D S_g)(x_ig)
        dp = metric.lookup(self.dp, ent.code) - at_self / ng[g]  # (D Σ_{h≠g} p_h)(x_ig)
        term = (n / ng[g]) * ((k - 1.0) - dp / dm - others[g])
        lam = float(others.sum()) + np.bincount(ent.item, weights=term, minlength=self.m)
        pe_i = lam / (k * (k - 1.0))  # (eq. 18)
        pa_i = np.where(self.e > 0, 1.0 - self.o / dm, 0.0)
        c_i = (n / n2) * (pa_i - pe * self.e) / (1.0 - pe)
        x = c_i - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
        return self._gwet_sum(x, kappa, f, n)

    # ------------------------------------------------------------------ bootstrap

    def batch(self, x):
        out = np.empty(x.shape[0])
        rr, ent = self.rr, self.entries
        # rows of rater-category weights as functions of the item weights
        to_rr = _rater_matrix(self.inv, ent.item, rr.codes.shape[0], self.m)
        for lo, hi in _batch_steps(x.shape[0], rr.codes.shape[0] + self.k):
            out[lo:hi] = self._batch(x[lo:hi], to_rr)
        return out

    def _batch(self, x, to_rr):
        metric, rr = self.metric, self.rr
        s = np.ascontiguousarray(to_rr @ x.T)  # (E_rr, b): S_g(x) per category
        starts = rr.ptr[:-1]
        ng = np.add.reduceat(s, starts, axis=0)  # (k, b)
        present = ng > 0
        k = present.sum(axis=0).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv_ng = np.where(present, 1.0 / ng, 0.0)
        pw = s * inv_ng[rr.row]  # S_g / n_g
        if isinstance(metric, _m.Moments):
            z = metric.z[rr.codes]
            pm = np.stack([pw.sum(axis=0), z @ pw, (z * z) @ pw], axis=1)  # (b, 3)
            pdp = metric.dot(pm, pm)
            m1 = np.add.reduceat(s * z[:, None], starts, axis=0)
            m2 = np.add.reduceat(s * (z * z)[:, None], starts, axis=0)
            own = 2.0 * (ng * m2 - m1 * m1)  # S_gᵀ D S_g   (eq. M)
        else:
            pv = _scatter_codes(rr.codes, pw, metric.v)  # (b, V)
            pdp = metric.cross(pv, pv)
            if isinstance(metric, _m.Identity):
                own = ng * ng - np.add.reduceat(s * s, starts, axis=0)
            else:
                kind, dmat, y, base = metric.kernel_args()
                own = _kernels.cross_batch(
                    rr.ptr, rr.codes, s, rr.ptr, rr.codes, s, kind, dmat, y, base
                )
        q = (own * inv_ng * inv_ng).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            chance = (pdp - q) / (k * (k - 1.0))
            chance = np.where(k >= 2, chance, np.nan)
            return self._coefficient(x @ self.e, x @ self.o, chance)

    # ------------------------------------------------------------------ jackknife

    def leave_one_out(self, cell, u):
        metric, rr, ent = self.metric, self.rr, self.entries
        ng = self.ng
        # the removed items' ratings: for removal l, entries ptr[l]:ptr[l + 1]
        which, entry, ptr = _m.gather(ent.ptr, cell)
        uu = u[which]
        g = ent.rater[entry]
        n_g = ng[g]
        left = n_g - uu
        gone = left <= 1e-9 * n_g
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(gone, -1.0 / n_g, 1.0 / left - 1.0 / n_g)
            b = np.where(gone, 0.0, uu / left)
        at_self = _m.within(metric, rr)[self.inv[entry]]
        self_g = self.self_raw[g]
        sdp = self.sdp
        dp_at = metric.lookup(self.dp, ent.code[entry])
        with np.errstate(divide="ignore", invalid="ignore"):
            q_new = np.where(gone, 0.0, (self_g - 2.0 * uu * at_self) / (left * left))
        single = (
            2.0 * (a * sdp[g] - b * dp_at)  # 2 δ_eᵀ D P
            + a * a * self_g
            - 2.0 * a * b * at_self  # δ_eᵀ D δ_e
            + self_g / (n_g * n_g)
            - q_new  # Σ_g Q_g changes for the raters of the item
        )
        if isinstance(metric, _m.Moments):
            moments = _rater_moments(rr, metric.z, self.k)
        else:
            moments = np.zeros((0, 3))
        kind, dmat, y, base = metric.kernel_args()
        pairs = _kernels.removal_pairs(
            ptr,
            entry.astype(np.intp),
            a,
            b,
            ent.rater,
            ent.code,
            rr.ptr,
            rr.codes,
            rr.mult,
            moments,
            kind,
            dmat,
            y,
            base,
        )
        total = (
            self.pdp - self.q_total + np.bincount(which, weights=single, minlength=cell.shape[0])
        )
        total += pairs
        k = self.k - np.bincount(which, weights=gone.astype(np.float64), minlength=cell.shape[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            chance = np.where(k >= 2, total / (k * (k - 1.0)), np.nan)
        n2 = float(self.count @ self.e) - u * self.e[cell]
        o = float(self.count @ self.o) - u * self.o[cell]
        return self._coefficient(n2, o, np.where(np.isfinite(chance), chance, 0.0))


def _rater_matrix(inv, item, n_rr, m):
    """The sparse (E_rr × m) matrix adding item weights into rater-category weights."""
    from scipy import sparse

    ones = np.ones(inv.shape[0])
    return sparse.csr_array((ones, (inv, item)), shape=(n_rr, m))


def _scatter_codes(codes, w, v):
    """(b, V): the weights ``w`` (E, b) added into their categories."""
    from scipy import sparse

    cols = np.arange(codes.shape[0])
    mat = sparse.csr_array((np.ones(codes.shape[0]), (codes, cols)), shape=(v, codes.shape[0]))
    return np.asarray((mat @ w).T)


def _rater_moments(rr: _m.Rows, z, k):
    zz = z[rr.codes]
    out = np.empty((k, 3))
    out[:, 0] = np.bincount(rr.row, weights=rr.mult, minlength=k)
    out[:, 1] = np.bincount(rr.row, weights=rr.mult * zz, minlength=k)
    out[:, 2] = np.bincount(rr.row, weights=rr.mult * zz * zz, minlength=k)
    return out
