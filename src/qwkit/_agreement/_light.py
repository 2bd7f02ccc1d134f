"""Light's kappa from per-pair sums over the items each two raters share.

Light's kappa is the mean over pairs of raters of Cohen's weighted kappa on the items
both rated (eq. 19 of ``docs/agreement.md``). Each pair's kappa needs only sums over its
common items: their number B, the observed disagreement O = Σ d(x_g, x_h) and the chance
cross-sum C = s_gᵀ D s_h of the two raters' distributions on those items (three moments
each under squared differences, eq. M). They come from the *incidences* — every two
raters of every item, Σᵢ rᵢ(rᵢ − 1)/2 of them: never the items × raters matrix.

**Memory in proportion to the ratings and the pairs present.** Which pairs of raters
share items is one sparse product (raters × items by items × raters: O(Σᵢ rᵢ²) time,
memory in proportion to the pairs that occur). Then the incidences are *streamed*, item
by item, into per-pair sums (``_kernels.pair_sums``; the variance, the bootstrap and the
jackknife likewise): memory O(N + P·V) for N ratings, P pairs and V categories — 3,000
items × 300 raters, 134 million incidences, take a few MiB, where holding each
incidence took 20 GiB. Only where a pair's distribution over the categories costs more
than its incidences (many categories: real-valued ratings with linear or ratio weights,
a crowd's few items per pair) are the incidences held (O(Σᵢ rᵢ²) memory), after a check
that they fit (``_base._memory``): refused up front otherwise, with what they need.

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
from qwkit._base import _memory
from qwkit._base._errors import QwkitError

#: Bytes an incidence takes when the incidences are held (the arrays of ``_hold``).
_BYTES_PER_INCIDENCE = 168
#: Bytes a pair's streamed sums take, plus per category (its two sides' distributions,
#: and D applied to each).
_BYTES_PER_PAIR, _BYTES_PER_PAIR_CATEGORY = 96, 32
_SQUARED = 4  # the kernels' kind of squared differences (``Moments``)


#: Up to this many raters, which pairs share items is counted in a dense raters × raters
#: table (16 MiB at most); beyond, by a sparse product.
_DENSE_RATERS = 1448


def _shared_pairs(entries: _m.Entries, count: np.ndarray):
    """The pairs of raters (g < h) that share an item: (pairs sharing any, g and h of the
    pairs that share two or more — an item that stands for several counts as two, as
    the incidences' keys are written twice for it), sorted by (g, h). Never the
    incidences: a dense count for a few raters, else one sparse product of raters ×
    items by items × raters (scipy's, compiled; memory in proportion to the pairs)."""
    k = entries.n_raters
    if k <= _DENSE_RATERS:
        shared = _kernels.shared_counts(entries.ptr, entries.rater, np.ascontiguousarray(count), k)
        g, h = np.nonzero(shared)
        kept = shared[g, h] >= 2.0
        return int(g.size), g[kept].astype(np.intp), h[kept].astype(np.intp)
    n_ratings = entries.rater.shape[0]
    shape = (entries.m, k)
    rated = sparse.csr_array((np.ones(n_ratings), (entries.item, entries.rater)), shape=shape)
    weighed = sparse.csr_array((count[entries.item], (entries.item, entries.rater)), shape=shape)
    shared = sparse.triu(rated.T @ weighed, k=1, format="csr")
    shared.sort_indices()
    g = np.repeat(np.arange(k), np.diff(shared.indptr))
    kept = shared.data >= 2.0
    return int(shared.nnz), g[kept], shared.indices[kept].astype(np.intp)


class Light:
    """Light's kappa: the mean of the defined pairwise Cohen kappas (eqs. 19–21)."""

    def __init__(self, entries: _m.Entries, count, metric, dmax):
        self.count, self.metric, self.dmax = count, metric, float(dmax)
        self.m, self.k = entries.m, entries.n_raters
        self.n_all, g, h = _shared_pairs(entries, count)
        if self.n_all == 0:
            raise QwkitError(
                "`ratings`: no two raters rated a common item, so no pairwise kappa exists.",
                parameter="ratings",
            )
        # pairs sharing two or more items: the only ones that may enter
        self.keys = g.astype(np.uint64) * np.uint64(self.k) + h.astype(np.uint64)
        n_pairs = self.keys.shape[0]
        per_row = np.diff(entries.ptr).astype(np.float64)
        incidences = float(np.sum(per_row * (per_row - 1.0) / 2.0))
        kind, dmat, y, base = metric.kernel_args()
        v = int(y.shape[0]) if kind == _SQUARED else int(metric.v)
        self.kind, self.kernel_args = kind, (kind, dmat, y, base)
        streamed_bytes = n_pairs * (
            _BYTES_PER_PAIR + (kind != _SQUARED) * _BYTES_PER_PAIR_CATEGORY * v
        )
        self.streamed = kind == _SQUARED or (
            kind in (0, 1)
            and v <= _m.TABLE_MAX
            and streamed_bytes <= incidences * _BYTES_PER_INCIDENCE
        )
        need = streamed_bytes if self.streamed else incidences * _BYTES_PER_INCIDENCE
        _memory.check(
            need + 32.0 * entries.rater.shape[0],
            f"Light's kappa of these ratings ({n_pairs:,} pairs of raters sharing two or "
            f"more items, {incidences:,.0f} pairs of ratings of one item)",
            "coefficient",
            "another coefficient needs memory in proportion to the ratings only "
            "(e.g. coefficient='conger', chance from each rater's own distribution).",
        )
        self.entries = entries
        if self.streamed:
            self._stream(g, h, v)
        else:
            self._hold(entries, count, metric)
        self.enter = self._enters(self.b, self.b, self.c)
        self.kappa = np.full(n_pairs, np.nan)
        e = self.enter
        self.kappa[e] = 1.0 - self.o[e] * self.b[e] / self.c[e]  # Cohen's κ   (eq. 19)

    # ------------------------------------------------------------------ streamed

    def _stream(self, g, h, v):
        """Per-pair sums, streamed over the items (``_kernels.pair_sums``)."""
        entries = self.entries
        self.pair_ptr = np.zeros(self.k + 1, dtype=np.int64)
        np.cumsum(np.bincount(g, minlength=self.k), out=self.pair_ptr[1:])
        self.pair_h = h
        # a raters × raters index where most pairs occur (no larger than the pairs)
        if self.k * self.k <= 4 * self.n_all + 1024:
            self.index = np.full((self.k, self.k), -1, dtype=np.int64)
            self.index[g, h] = np.arange(h.shape[0])
        else:
            self.index = np.zeros((0, 0), dtype=np.int64)
        b, o, s1, s2, t1, t2, shift, sg, sh = _kernels.pair_sums(
            entries.ptr,
            entries.rater,
            entries.code,
            np.ascontiguousarray(self.count),
            self.pair_ptr,
            self.pair_h,
            self.index,
            *self.kernel_args,
            v,
        )
        self.b, self.o = b, o
        if self.kind == _SQUARED:
            self.c = b * t2 + s2 * b - 2.0 * s1 * t1  # s_gᵀ D s_h   (eq. M)
            self.dfull = np.zeros((0, 0))
            dsg = dsh = np.zeros((0, 0))
        else:
            kind, dmat = self.kernel_args[:2]
            self.dfull = dmat if kind == 0 else 1.0 - np.eye(v)
            dsg = sg @ self.dfull.T  # (D s_g)(k) for every category k
            dsh = sh @ self.dfull.T
            self.c = np.einsum("pk,pk->p", sg, dsh)
        self.sums = (s1, s2, t1, t2, shift, dsg, dsh)

    def _streamed_args(self):
        entries = self.entries
        return entries.ptr, entries.rater, entries.code

    # ------------------------------------------------------------------ held

    def _hold(self, entries, count, metric):
        """Every incidence of the pairs that may enter held in arrays (many categories:
        a pair's distribution over them would cost more)."""
        pid, first, second = _kernels.pair_incidences(entries.ptr, entries.rater, self.k, self.keys)
        n_pairs = self.keys.shape[0]
        self.pid = pid
        self.inc_item = entries.item[first]  # non-decreasing: items in order
        self.inc_ptr = np.zeros(self.m + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.inc_item, minlength=self.m), out=self.inc_ptr[1:])
        cg, ch = entries.code[first], entries.code[second]
        w = count[self.inc_item]
        self.d = metric.pair(cg, ch)
        self.b = np.bincount(pid, weights=w, minlength=n_pairs)
        self.o = np.bincount(pid, weights=w * self.d, minlength=n_pairs)
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
        if not self.enter.any() or n < 2:
            return np.nan
        if self.streamed:
            pairs = (self.b, self.c, self.kappa, self.enter)
            lin = _kernels.pair_linearized(
                *self._streamed_args(),
                self.pair_ptr,
                self.pair_h,
                self.index,
                *self.kernel_args,
                n,
                dm,
                pairs,
                self.sums,
            )
            lin /= self.n_pairs
        else:
            lin = self._held_linearized(n, dm)
        return (1.0 - f) / (n * (n - 1.0)) * float(np.dot(self.count, lin * lin))  # (eq. 21)

    def _held_linearized(self, n, dm):
        pid, e = self.pid, self.enter
        keep = e[pid]
        b, c, kappa = self.b[pid], self.c[pid], self.kappa[pid]
        with np.errstate(divide="ignore", invalid="ignore"):
            pe = 1.0 - c / (b * b * dm)
            pa_i = 1.0 - self.d / dm
            pe_i = 1.0 - (self.at_g + self.at_h) / (2.0 * b * dm)  # (eq. 20)
            k_i = (pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
            contribution = np.where(keep, (n / b) * (k_i - kappa), 0.0)
        return np.bincount(self.inc_item, weights=contribution, minlength=self.m) / self.n_pairs

    # ------------------------------------------------------------------ bootstrap

    def _item_matrix(self, values, rows=None, n_rows=None):
        """Sparse (rows × m): each incidence's ``values`` at (its row, its item)."""
        rows = self.pid if rows is None else rows
        n_rows = self.keys.shape[0] if n_rows is None else n_rows
        return sparse.csr_array((values, (rows, self.inc_item)), shape=(n_rows, self.m))

    def batch(self, x):
        if self.streamed:
            shift = self.sums[4]
            return _kernels.pair_batch(
                *self._streamed_args(),
                np.ascontiguousarray(self.count),
                np.ascontiguousarray(x, dtype=np.float64),
                self.pair_ptr,
                self.pair_h,
                self.index,
                *self.kernel_args,
                self.dmax,
                _REL_ZERO,
                shift,
                self.dfull,
                self.enter,
            )
        ones = np.ones(self.pid.shape[0])
        mats = {"b": self._item_matrix(ones), "o": self._item_matrix(self.d)}
        cap = np.ascontiguousarray(self.count)
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
        b, o = mats["b"] @ xt, mats["o"] @ xt  # (P, b)
        # the pair's distinct items drawn: an item drawn twice is still one item
        shared = mats["b"] @ distinct
        sg, sh = self.side_g, self.side_h
        wg = np.ascontiguousarray(mats["wg"] @ xt)
        wh = np.ascontiguousarray(mats["wh"] @ xt)
        c = _kernels.cross_batch(sg.ptr, sg.codes, wg, sh.ptr, sh.codes, wh, *self.kernel_args)
        enter = self._enters(shared, b, c) & self.enter[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = np.where(enter, 1.0 - o * b / c, 0.0)
            return kappa.sum(axis=0) / enter.sum(axis=0)

    # ------------------------------------------------------------------ jackknife

    def leave_one_out(self, cell, u):
        whole = float(np.sum(self.kappa[self.enter]))
        if self.streamed:
            pairs = (self.b, self.o, self.c, self.kappa, self.enter)
            change, entering = _kernels.pair_leave_one_out(
                *self._streamed_args(),
                np.ascontiguousarray(cell, dtype=np.intp),
                np.ascontiguousarray(u, dtype=np.float64),
                self.pair_ptr,
                self.pair_h,
                self.index,
                *self.kernel_args,
                self.dmax,
                _REL_ZERO,
                pairs,
                self.sums,
            )
            total, count = whole + change, self.n_pairs + entering
        else:
            total, count = self._held_leave_one_out(cell, u, whole)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, total / count, np.nan)

    def _held_leave_one_out(self, cell, u, whole):
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
        total = whole + np.bincount(which, weights=kappa - old, minlength=n_out)
        count = self.n_pairs + np.bincount(
            which, weights=enter.astype(np.float64) - before, minlength=n_out
        )
        return total, count

    # ------------------------------------------------------------------ pairs

    def pairs(self):
        """(rater g, rater h, common items B, kappa (nan where left out)) per pair."""
        g, h = np.divmod(self.keys, np.uint64(self.k))
        return g.astype(np.intp), h.astype(np.intp), self.b.copy(), self.kappa.copy()
