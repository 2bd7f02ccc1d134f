"""Light's kappa from per-pair sums over the items each two raters share.

Light's kappa is the mean over pairs of raters of Cohen's weighted kappa on the items
both rated (eq. 19 of ``docs/agreement.md``). Each pair's kappa needs only sums over its
common items: their number B, the observed disagreement O = Σ d(x_g, x_h) and the chance
cross-sum C = s_gᵀ D s_h of the two raters' distributions on those items (three moments
each under squared differences, eq. M). They are read from the *incidences* — every two
raters of every item, Σᵢ rᵢ(rᵢ − 1)/2 of them — grouped by pair with one sort of their
keys: never the items × raters matrix, never pairs of raters × items.

**Which pairs.** A pair enters the mean when it shares at least two items and its kappa
is defined (C > 0): a single common item has no chance-corrected kappa (its chance
disagreement is its observed one), and two raters whose common ratings all fall in one
category have 0/0. The other pairs are left out and counted (``n_pairs_left_out``);
with none left Light's kappa is undefined. The bootstrap and the jackknife apply the same
rule to each resample.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from qwkit import _kernels
from qwkit._agreement import _metrics as _m
from qwkit._agreement._stats import _REL_ZERO
from qwkit._base._errors import QwkitError


class Light:
    """Light's kappa: the mean of the defined pairwise Cohen kappas (eqs. 19–21)."""

    def __init__(self, entries: _m.Entries, count, metric, dmax):
        self.count, self.metric, self.dmax = count, metric, float(dmax)
        self.m, self.k = entries.m, entries.n_raters
        # every two raters of every item, by key (g, h): one sort of Σᵢ rᵢ(rᵢ − 1)/2 keys
        keys = _kernels.pair_keys(entries.ptr, entries.rater, self.k, count > 1)
        if keys.size == 0:
            raise QwkitError(
                "`ratings`: no two raters rated a common item, so no pairwise kappa exists.",
                parameter="ratings",
            )
        keys.sort()
        repeated = keys[1:] == keys[:-1]
        self.n_all = int(keys.size - np.count_nonzero(repeated))  # pairs sharing an item
        # pairs sharing two or more items: the only ones that may enter
        self.keys = np.unique(keys[1:][repeated])
        del keys, repeated
        pid, first, second = _kernels.pair_incidences(entries.ptr, entries.rater, self.k, self.keys)
        self.pid = pid
        self.inc_item = entries.item[first]  # non-decreasing: items in order
        self.inc_ptr = np.zeros(self.m + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.inc_item, minlength=self.m), out=self.inc_ptr[1:])
        cg, ch = entries.code[first], entries.code[second]
        n_pairs = self.keys.shape[0]
        w = count[self.inc_item]
        self.d = metric.pair(cg, ch)
        self.b = np.bincount(pid, weights=w, minlength=n_pairs)
        self.o = np.bincount(pid, weights=w * self.d, minlength=n_pairs)
        if isinstance(metric, _m.Moments):
            shift = np.empty(n_pairs)
            shift[pid[::-1]] = metric.z[cg[::-1]]  # the pair's first value: no offset
            self.zg = metric.z[cg] - shift[pid]
            self.zh = metric.z[ch] - shift[pid]
            s1 = np.bincount(pid, weights=w * self.zg, minlength=n_pairs)
            s2 = np.bincount(pid, weights=w * self.zg * self.zg, minlength=n_pairs)
            t1 = np.bincount(pid, weights=w * self.zh, minlength=n_pairs)
            t2 = np.bincount(pid, weights=w * self.zh * self.zh, minlength=n_pairs)
            b = self.b
            self.c = b * t2 + s2 * b - 2.0 * s1 * t1  # s_gᵀ D s_h   (eq. M)
            zg, zh = self.zg, self.zh
            self.at_g = t2[pid] - 2.0 * zg * t1[pid] + zg * zg * b[pid]  # (D s_h)(x_g)
            self.at_h = s2[pid] - 2.0 * zh * s1[pid] + zh * zh * b[pid]  # (D s_g)(x_h)
        else:
            self.side_g, inv_g = _m.group_rows(pid, n_pairs, cg, w)
            self.side_h, inv_h = _m.group_rows(pid, n_pairs, ch, w)
            self.inv_g, self.inv_h = inv_g, inv_h
            kind, dmat, y, base = metric.kernel_args()
            sg, sh = self.side_g, self.side_h
            at_gside = _kernels.cross_at(
                sg.ptr, sg.codes, sh.ptr, sh.codes, sh.mult, kind, dmat, y, base
            )
            at_hside = _kernels.cross_at(
                sh.ptr, sh.codes, sg.ptr, sg.codes, sg.mult, kind, dmat, y, base
            )
            self.c = np.bincount(sg.row, weights=sg.mult * at_gside, minlength=n_pairs)
            self.at_g, self.at_h = at_gside[inv_g], at_hside[inv_h]
        self.enter = self._enters(self.b, self.b, self.c)
        self.kappa = np.full(n_pairs, np.nan)
        e = self.enter
        self.kappa[e] = 1.0 - self.o[e] * self.b[e] / self.c[e]  # Cohen's κ   (eq. 19)

    def _enters(self, shared, b, c):
        """Pairs sharing two or more items whose kappa is defined (C > 0, relative to the
        largest value B²·dmax it could take)."""
        return (shared >= 2.0) & (c > _REL_ZERO * b * b * self.dmax)

    @property
    def n(self) -> float:
        return float(self.count.sum())

    @property
    def n_pairs(self) -> int:
        return int(np.count_nonzero(self.enter))

    def value(self) -> float:
        if not self.enter.any():
            return float("nan")
        return float(np.mean(self.kappa[self.enter]))

    # ------------------------------------------------------------------ variance

    def variance(self, f):
        n, dm = self.n, self.dmax
        pid, e = self.pid, self.enter
        keep = e[pid]
        if not keep.any() or n < 2:
            return np.nan
        b, c, kappa = self.b[pid], self.c[pid], self.kappa[pid]
        with np.errstate(divide="ignore", invalid="ignore"):
            pe = 1.0 - c / (b * b * dm)
            pa_i = 1.0 - self.d / dm
            pe_i = 1.0 - (self.at_g + self.at_h) / (2.0 * b * dm)  # (eq. 20)
            k_i = (pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
            contribution = np.where(keep, (n / b) * (k_i - kappa), 0.0)
        lin = np.bincount(self.inc_item, weights=contribution, minlength=self.m) / self.n_pairs
        return (1.0 - f) / (n * (n - 1.0)) * float(np.dot(self.count, lin * lin))  # (eq. 21)

    # ------------------------------------------------------------------ bootstrap

    def _item_matrix(self, values, rows=None, n_rows=None):
        """Sparse (rows × m): each incidence's ``values`` at (its row, its item)."""
        rows = self.pid if rows is None else rows
        n_rows = self.keys.shape[0] if n_rows is None else n_rows
        return sparse.csr_array((values, (rows, self.inc_item)), shape=(n_rows, self.m))

    def batch(self, x):
        metric = self.metric
        ones = np.ones(self.pid.shape[0])
        mats = {"b": self._item_matrix(ones), "o": self._item_matrix(self.d)}
        cap = np.ascontiguousarray(self.count)
        if isinstance(metric, _m.Moments):
            for name, v in (
                ("s1", self.zg),
                ("s2", self.zg**2),
                ("t1", self.zh),
                ("t2", self.zh**2),
            ):
                mats[name] = self._item_matrix(v)
            per = 6 * self.keys.shape[0]
        else:
            sg, sh = self.side_g, self.side_h
            mats["wg"] = self._item_matrix(ones, self.inv_g, sg.codes.shape[0])
            mats["wh"] = self._item_matrix(ones, self.inv_h, sh.codes.shape[0])
            per = 3 * self.keys.shape[0] + sg.codes.shape[0] + sh.codes.shape[0]
        out = np.empty(x.shape[0])
        step = max(1, _m.CHUNK // max(per, 1))
        for lo in range(0, x.shape[0], step):
            xt = np.ascontiguousarray(x[lo : lo + step].T)
            out[lo : lo + step] = self._batch(xt, np.minimum(xt, cap[:, None]), mats)
        return out

    def _batch(self, xt, distinct, mats):
        metric = self.metric
        b, o = mats["b"] @ xt, mats["o"] @ xt  # (P, b)
        # the pair's distinct items drawn: an item drawn twice is still one item
        shared = mats["b"] @ distinct
        if isinstance(metric, _m.Moments):
            s1, s2, t1, t2 = (mats[k] @ xt for k in ("s1", "s2", "t1", "t2"))
            c = b * t2 + s2 * b - 2.0 * s1 * t1
        else:
            sg, sh = self.side_g, self.side_h
            wg = np.ascontiguousarray(mats["wg"] @ xt)
            wh = np.ascontiguousarray(mats["wh"] @ xt)
            kind, dmat, y, base = metric.kernel_args()
            c = _kernels.cross_batch(
                sg.ptr, sg.codes, wg, sh.ptr, sh.codes, wh, kind, dmat, y, base
            )
        enter = self._enters(shared, b, c) & self.enter[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = np.where(enter, 1.0 - o * b / c, 0.0)
            return kappa.sum(axis=0) / enter.sum(axis=0)

    # ------------------------------------------------------------------ jackknife

    def leave_one_out(self, cell, u):
        which, inc, _ = _m.gather(self.inc_ptr, cell)
        p = self.pid[inc]
        uu = u[which]
        d = self.d[inc]
        b = self.b[p] - uu
        o = self.o[p] - uu * d
        c = self.c[p] - uu * (self.at_g[inc] + self.at_h[inc]) + uu * uu * d  # (eq. 22)
        enter = self._enters(b, b, c)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = np.where(enter, 1.0 - o * b / c, 0.0)
        before = self.enter[p]
        old = np.where(before, self.kappa[p], 0.0)
        n_out = cell.shape[0]
        total = float(np.sum(self.kappa[self.enter])) + np.bincount(
            which, weights=kappa - old, minlength=n_out
        )
        count = self.n_pairs + np.bincount(
            which, weights=enter.astype(np.float64) - before, minlength=n_out
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, total / count, np.nan)

    # ------------------------------------------------------------------ pairs

    def pairs(self):
        """(rater g, rater h, common items B, kappa (nan where left out)) per pair."""
        g, h = np.divmod(self.keys, np.uint64(self.k))
        return g.astype(np.intp), h.astype(np.intp), self.b.copy(), self.kappa.copy()
