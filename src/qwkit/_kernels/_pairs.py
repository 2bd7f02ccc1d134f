"""Kernels of Light's kappa from per-pair sums, streamed over the items (eqs. 19–22 of
``docs/agreement.md``).

Every two raters of every item — Σᵢ rᵢ(rᵢ − 1)/2 *incidences*, 134 million for 3,000
items × 300 raters — are visited one item at a time and added into per-pair arrays:
memory in proportion to the pairs of raters P (and the V categories that occur), never
to the incidences. A pair is found in ``index`` (raters × raters, −1 where no pair: when
most pairs occur, it costs no more than the pairs), or else by a binary search among
the pairs of its first rater (``pair_ptr``, ``pair_h``: the pairs in CSR, g < h,
sorted; ``index`` is then 0 × 0), O(log P) each.

Under squared differences (``kind`` 4, ``y`` the centred values z) a pair's chance
cross-sum needs three moments of each side, its values taken from the pair's first
value (``shift``: no cancellation when a pair's ratings are close); otherwise each side's
distribution over the categories (``sg``, ``sh``: P × V). The sums are added in the
order of the items, as ``numpy.bincount`` over the incidences would add them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qwkit._kernels._agreement import _disagreement
from qwkit._kernels._jit import JIT as _JIT

#: ``kind`` of squared differences of ``y`` (``_disagreement``'s last case).
SQUARED = 4


@njit(**_JIT)
def _pair_of(pair_ptr, pair_h, index, g, h):
    """The index of pair (g, h), g < h, or −1 when it is not one of the pairs."""
    if index.shape[0] > 0:
        return index[g, h]
    lo = pair_ptr[g]
    hi = pair_ptr[g + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if pair_h[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    if lo < pair_ptr[g + 1] and pair_h[lo] == h:
        return lo
    return -1


@njit(**_JIT)
def shared_counts(item_ptr, rater, count, n_raters):
    """(n_raters, n_raters): at [g, h], g < h, the Σ of ``count`` over the items both
    raters rated (each item standing for ``count`` items); zero elsewhere. For a few
    raters: a dense table, O(Σᵢ rᵢ²) time."""
    out = np.zeros((n_raters, n_raters))
    for i in range(item_ptr.shape[0] - 1):
        w = count[i]
        for e in range(item_ptr[i], item_ptr[i + 1]):
            for f in range(e + 1, item_ptr[i + 1]):
                g = rater[e]
                h = rater[f]
                if g < h:
                    out[g, h] += w
                else:
                    out[h, g] += w
    return out


@njit(**_JIT)
def pair_sums(item_ptr, rater, code, count, pair_ptr, pair_h, index, kind, dmat, y, base, n_cat):
    """Per pair, over the items both raters rated, each item weighing ``count``: B, O
    (eq. 19), and the sums of the chance cross-sum — with ``kind`` 4 the pair's first
    value ``shift`` and Σz_g, Σz_g², Σz_h, Σz_h² from it; otherwise the two sides'
    distributions over the ``n_cat`` categories (P × V each; empty for kind 4)."""
    n_pairs = pair_h.shape[0]
    moments = kind == SQUARED
    b = np.zeros(n_pairs)
    o = np.zeros(n_pairs)
    mp = n_pairs if moments else 0
    s1, s2, t1, t2 = np.zeros(mp), np.zeros(mp), np.zeros(mp), np.zeros(mp)
    shift = np.zeros(mp)
    seen = np.zeros(mp, dtype=np.bool_)
    dp = 0 if moments else n_pairs
    sg = np.zeros((dp, n_cat))
    sh = np.zeros((dp, n_cat))
    for i in range(item_ptr.shape[0] - 1):
        w = count[i]
        for e in range(item_ptr[i], item_ptr[i + 1]):
            for f in range(e + 1, item_ptr[i + 1]):
                first, second = (e, f) if rater[e] < rater[f] else (f, e)
                p = _pair_of(pair_ptr, pair_h, index, rater[first], rater[second])
                if p < 0:
                    continue
                cg = code[first]
                ch = code[second]
                b[p] += w
                o[p] += w * _disagreement(kind, dmat, y, base, cg, ch)
                if moments:
                    if not seen[p]:
                        shift[p] = y[cg]
                        seen[p] = True
                    zg = y[cg] - shift[p]
                    zh = y[ch] - shift[p]
                    s1[p] += w * zg
                    s2[p] += w * zg * zg
                    t1[p] += w * zh
                    t2[p] += w * zh * zh
                else:
                    sg[p, cg] += w
                    sh[p, ch] += w
    return b, o, s1, s2, t1, t2, shift, sg, sh


@njit(**_JIT)
def _at(kind, y, p, cg, ch, b, s1, s2, t1, t2, shift, dsg, dsh):
    """(D s_h)(x_g) and (D s_g)(x_h): each side's distribution over the pair's items
    applied at the other's rating (eq. 20)."""
    if kind == SQUARED:
        zg = y[cg] - shift[p]
        zh = y[ch] - shift[p]
        at_g = t2[p] - 2.0 * zg * t1[p] + zg * zg * b[p]
        at_h = s2[p] - 2.0 * zh * s1[p] + zh * zh * b[p]
        return at_g, at_h
    return dsh[p, cg], dsg[p, ch]


@njit(**_JIT)
def pair_linearized(
    item_ptr, rater, code, pair_ptr, pair_h, index, kind, dmat, y, base, n, dm, pairs, sums
):
    """Each item's Σ over its pairs that enter of (n/B)(kᵢ − κ) (eq. 20, before the
    division by the number of pairs): Gwet's linearized value of Light's kappa.
    ``pairs`` = (B, C, κ, enters), ``sums`` = (s1, s2, t1, t2, shift, D s_g, D s_h)."""
    b, c, kappa, enter = pairs
    s1, s2, t1, t2, shift, dsg, dsh = sums
    out = np.zeros(item_ptr.shape[0] - 1)
    for i in range(item_ptr.shape[0] - 1):
        acc = 0.0
        for e in range(item_ptr[i], item_ptr[i + 1]):
            for f in range(e + 1, item_ptr[i + 1]):
                first, second = (e, f) if rater[e] < rater[f] else (f, e)
                p = _pair_of(pair_ptr, pair_h, index, rater[first], rater[second])
                if p < 0:
                    continue
                if not enter[p]:
                    continue
                cg = code[first]
                ch = code[second]
                d = _disagreement(kind, dmat, y, base, cg, ch)
                at_g, at_h = _at(kind, y, p, cg, ch, b, s1, s2, t1, t2, shift, dsg, dsh)
                pe = 1.0 - c[p] / (b[p] * b[p] * dm)
                pa_i = 1.0 - d / dm
                pe_i = 1.0 - (at_g + at_h) / (2.0 * b[p] * dm)
                k_i = (pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - kappa[p]) * (pe_i - pe) / (1.0 - pe)
                acc += (n / b[p]) * (k_i - kappa[p])
        out[i] = acc
    return out


@njit(**_JIT)
def pair_leave_one_out(
    item_ptr,
    rater,
    code,
    cell,
    u,
    pair_ptr,
    pair_h,
    index,
    kind,
    dmat,
    y,
    base,
    dm,
    rel,
    pairs,
    sums,
):
    """For each row ``cell[j]`` with ``u[j]`` of its items left out: (Σ of the kappas of
    the pairs that enter, how many enter), as changes from the whole sample (eq. 22).
    ``pairs`` = (B, O, C, κ, enters), ``sums`` as in :func:`pair_linearized`."""
    b, o, c, kappa, enter = pairs
    s1, s2, t1, t2, shift, dsg, dsh = sums
    total = np.zeros(cell.shape[0])
    count = np.zeros(cell.shape[0])
    for j in range(cell.shape[0]):
        i = cell[j]
        uu = u[j]
        for e in range(item_ptr[i], item_ptr[i + 1]):
            for f in range(e + 1, item_ptr[i + 1]):
                first, second = (e, f) if rater[e] < rater[f] else (f, e)
                p = _pair_of(pair_ptr, pair_h, index, rater[first], rater[second])
                if p < 0:
                    continue
                cg = code[first]
                ch = code[second]
                d = _disagreement(kind, dmat, y, base, cg, ch)
                at_g, at_h = _at(kind, y, p, cg, ch, b, s1, s2, t1, t2, shift, dsg, dsh)
                bb = b[p] - uu
                oo = o[p] - uu * d
                cc = c[p] - uu * (at_g + at_h) + uu * uu * d  # (eq. 22)
                now = bb >= 2.0 and cc > rel * bb * bb * dm
                k_new = 1.0 - oo * bb / cc if now else 0.0
                k_old = kappa[p] if enter[p] else 0.0
                total[j] += k_new - k_old
                count[j] += (1.0 if now else 0.0) - (1.0 if enter[p] else 0.0)
    return total, count


@njit(**_JIT)
def pair_batch(
    item_ptr,
    rater,
    code,
    cap,
    x,
    pair_ptr,
    pair_h,
    index,
    kind,
    dmat,
    y,
    base,
    dm,
    rel,
    shift,
    dfull,
    enter,
):
    """Light's kappa of each of the b weightings of the rows ``x`` (b × m; e.g.
    bootstrap resamples): each pair's sums over its items weighted so (an item drawn
    twice still one of the pair's distinct items: ``min(x, cap)``), the pairs that enter
    the whole sample's mean and still enter (two or more distinct items, C above
    ``rel``·B²·dmax), their kappas' mean. One weighting at a time: memory P (× V)."""
    n_pairs = pair_h.shape[0]
    n_cat = dfull.shape[0]
    moments = kind == SQUARED
    out = np.empty(x.shape[0])
    b = np.empty(n_pairs)
    o = np.empty(n_pairs)
    shared = np.empty(n_pairs)
    mp = n_pairs if moments else 0
    s1, s2, t1, t2 = np.empty(mp), np.empty(mp), np.empty(mp), np.empty(mp)
    dp = 0 if moments else n_pairs
    sg = np.empty((dp, n_cat))
    sh = np.empty((dp, n_cat))
    for r in range(x.shape[0]):
        b[:] = 0.0
        o[:] = 0.0
        shared[:] = 0.0
        if moments:
            s1[:] = 0.0
            s2[:] = 0.0
            t1[:] = 0.0
            t2[:] = 0.0
        else:
            sg[:] = 0.0
            sh[:] = 0.0
        for i in range(item_ptr.shape[0] - 1):
            w = x[r, i]
            if w == 0.0:
                continue
            distinct = min(w, cap[i])
            for e in range(item_ptr[i], item_ptr[i + 1]):
                for f in range(e + 1, item_ptr[i + 1]):
                    first, second = (e, f) if rater[e] < rater[f] else (f, e)
                    p = _pair_of(pair_ptr, pair_h, index, rater[first], rater[second])
                    if p < 0 or not enter[p]:
                        continue
                    cg = code[first]
                    ch = code[second]
                    b[p] += w
                    shared[p] += distinct
                    o[p] += w * _disagreement(kind, dmat, y, base, cg, ch)
                    if moments:
                        zg = y[cg] - shift[p]
                        zh = y[ch] - shift[p]
                        s1[p] += w * zg
                        s2[p] += w * zg * zg
                        t1[p] += w * zh
                        t2[p] += w * zh * zh
                    else:
                        sg[p, cg] += w
                        sh[p, ch] += w
        total = 0.0
        entering = 0.0
        for p in range(n_pairs):
            if not enter[p] or b[p] == 0.0:
                continue
            if moments:
                c = b[p] * t2[p] + s2[p] * b[p] - 2.0 * s1[p] * t1[p]
            else:
                c = 0.0
                for a in range(n_cat):
                    if sg[p, a] != 0.0:
                        acc = 0.0
                        for h in range(n_cat):
                            acc += dfull[a, h] * sh[p, h]
                        c += sg[p, a] * acc
            if shared[p] >= 2.0 and c > rel * b[p] * b[p] * dm:
                total += 1.0 - o[p] * b[p] / c
                entering += 1.0
        out[r] = total / entering if entering > 0.0 else np.nan
    return out
