"""The exact kappa-optimal cut points of (score, true class) pairs — the solver that
``optimize_thresholds`` and its optimism (``_thresholds``) and the judge's calibration
onto the human scale (``_calibration``) share. Equation numbers are those of
``docs/thresholds.md``.

With the true ratings y fixed, any assignment x of the items to classes has

    1 − κ(x) = N(x) / D(x),  N = Σᵢ wᵢ·W[yᵢ, xᵢ],  D = Σᵢ wᵢ·δ[xᵢ],
    δ[c] = Σₜ hₜ·W[t, c] / Σw                                              (eq. T1)

(h: the weighted margin of y). Cut points choose the *monotone* assignments, and
Dinkelbach's method (eq. T4) minimizes the ratio over all of them exactly, each step an
O(m·K) dynamic program (eq. T5) over the m distinct scores; the cut points sit midway
between classes (eq. T6).

:func:`solve_sorted` is the search on sorted, aggregated pairs; :class:`Pairs` is a
sample sorted once by (score, true class), whose :meth:`Pairs.refit` solves any
re-weighting of it (a bootstrap resample, a training fold) without sorting again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qwkit._base._fractional import minimize_ratio
from qwkit._kernels import assignment_table, monotone_dp
from qwkit._table._sufficient import kappa_from_table

__all__ = ["Pairs", "Solution", "pairs_of", "solve_sorted", "table_kappa"]


@dataclass(frozen=True, slots=True)
class Solution:
    """The global optimum of :func:`solve_sorted`: cut points (eq. T6), the K×K table
    (true × assigned class), Dinkelbach's final ratio, iterations and gap, and the class
    of every distinct score."""

    cuts: np.ndarray
    table: np.ndarray
    ratio: float
    n_iterations: int
    gap: float
    classes: np.ndarray


def _ratio_parts(table: np.ndarray, wmat: np.ndarray, chance: np.ndarray, total: float):
    """N and D of eq. T1 from the (true × assigned) table, per unit of total weight."""
    n_part = float(np.sum(table * wmat)) / total  # N   (eq. T1)
    d_part = float(table.sum(axis=0) @ chance) / total  # D   (eq. T1)
    return n_part, d_part


def _initial_assignments(values, group_weight, h, scale):
    """Feasible monotone starts: nearest label (numeric increasing scales) and quantiles."""
    starts = []
    k = h.shape[0]
    if scale.dtype.kind in "biuf" and np.all(np.diff(scale.astype(np.float64)) > 0):
        pos = scale.astype(np.float64)
        mids = pos[:-1] / 2 + pos[1:] / 2
        starts.append(np.searchsorted(mids, values, side="left").astype(np.int64))
    cum = np.cumsum(group_weight) - group_weight / 2
    cuts = np.cumsum(h)[:-1]
    starts.append(np.minimum(np.searchsorted(cuts, cum, side="right"), k - 1).astype(np.int64))
    return starts


def _cut_points(values: np.ndarray, cls: np.ndarray, k: int) -> np.ndarray:
    """Midpoints between the last score of classes ≤ j and the first of classes > j (T6)."""
    out = np.empty(k - 1)
    m = values.shape[0]
    n_le = np.searchsorted(cls, np.arange(k - 1), side="right")
    for j in range(k - 1):
        i = int(n_le[j])
        if i == 0:
            out[j] = -np.inf  # classes 0..j are empty below the smallest score
        elif i == m:
            out[j] = np.inf  # classes j+1.. are empty above the largest score
        else:
            lo, hi = values[i - 1], values[i]
            mid = lo / 2 + hi / 2  # no overflow for huge scores   (eq. T6)
            out[j] = mid if lo <= mid < hi else lo  # adjacent floats: cut at lo
    return out


def solve_sorted(values, pair_code, pair_weight, group_start, h, chance, wmat, scale) -> Solution:
    """The exact search on items sorted by score and aggregated into pairs.

    ``values`` are the m distinct scores (increasing), ``group_start`` delimits the
    (true class, summed weight) pairs of each one — every group non-empty, every pair
    weight positive — ``h`` is the weighted true margin (≥ 2 positive entries) and
    ``chance`` the δ of eq. T1 (some entry positive). Dinkelbach's method (eq. T4) with
    the dynamic program (eq. T5) as the exact subproblem solver.
    """
    k = h.shape[0]
    total = float(h.sum())
    group_weight = np.add.reduceat(pair_weight, group_start[:-1])

    def table(cls):
        return assignment_table(pair_code, pair_weight, group_start, cls, k)

    def ratio(cls):
        return _ratio_parts(table(cls), wmat, chance, total)

    def solve(lam):
        return monotone_dp(pair_code, pair_weight, group_start, wmat, chance, lam)[0]

    # λ₀: the best feasible start (D > 0); a constant class with δ > 0 always is one.
    starts = _initial_assignments(values, group_weight, h, scale)
    starts.append(np.full(values.shape[0], int(np.argmax(chance)), dtype=np.int64))
    res = minimize_ratio(starts, ratio, solve, what="thresholds")
    return Solution(
        cuts=_cut_points(values, res.solution, k),
        table=table(res.solution),
        ratio=res.ratio,
        n_iterations=res.n_iterations,
        gap=float(res.gap),
        classes=res.solution,
    )


# ---------------------------------------------------------------------------- the sample


def table_kappa(table: np.ndarray, wmat: np.ndarray) -> float:
    """Eq. 1 on a K×K table; nan (no warning: refits count them) when undefined."""
    return kappa_from_table(table, wmat, math.nan, quiet=True)


@dataclass(frozen=True, slots=True)
class Pairs:
    """The items sorted once by (score, true class) and aggregated into pairs.

    ``weight`` is the summed weight of each pair (whole numbers for unit weights and
    counts); with survey weights (or whenever the rows are wanted), ``row_pair`` and
    ``row_weight`` keep every row (the sampling unit) with the pair it belongs to.
    """

    values: np.ndarray  # float64 (m,): distinct scores, increasing
    code: np.ndarray  # int64 (P,): true class of each pair
    group: np.ndarray  # intp (P,): distinct score of each pair
    weight: np.ndarray  # float64 (P,)
    weight_sq: np.ndarray  # float64 (P,): Σw² per pair (= weight for unit items)
    wmat: np.ndarray
    scale: np.ndarray
    n_items: int
    row_pair: np.ndarray | None = None
    row_weight: np.ndarray | None = None

    @property
    def k(self) -> int:
        return int(self.wmat.shape[0])

    def refit(self, weight: np.ndarray, *, with_kappa: bool = True):
        """Optimal cut points and in-sample kappa (None without ``with_kappa``) for pair
        weights ``weight`` (zeros allowed); None when the subsample has fewer than two
        true classes."""
        keep = weight > 0
        code = self.code[keep]
        w = weight[keep]
        group = self.group[keep]
        h = np.bincount(code, weights=w, minlength=self.k)
        if np.count_nonzero(h) < 2:
            return None
        chance = h @ self.wmat / float(h.sum())  # δ of eq. T1
        if not np.any(chance > 0):
            return None
        first = np.empty(group.shape[0], dtype=bool)
        first[0] = True
        np.not_equal(group[1:], group[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        group_start = np.append(starts, group.shape[0]).astype(np.int64)
        found = solve_sorted(
            self.values[group[starts]],
            code,
            w,
            group_start,
            h,
            chance,
            self.wmat,
            self.scale,
        )
        return found.cuts, (table_kappa(found.table, self.wmat) if with_kappa else None)

    def table(self, cuts: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """K×K table (true × class under ``cuts``) of the pairs with weights ``weight``."""
        k = self.k
        cls = np.searchsorted(cuts, self.values, side="left")  # apply_thresholds
        cell = self.code * k + cls[self.group]
        return np.bincount(cell, weights=weight, minlength=k * k).reshape(k, k)

    def kappa(self, cuts: np.ndarray) -> float:
        """κ of ``cuts`` on the whole sample."""
        return table_kappa(self.table(cuts, self.weight), self.wmat)


def pairs_of(codes, scores, weight, wmat, scale, n_items, survey: bool) -> Pairs:
    """Sort by (score, true class) — once — and aggregate equal (score, class) rows;
    ``survey``: keep the rows too (``row_pair``, ``row_weight``) and Σw² per pair."""
    order = np.lexsort((codes, scores))
    s = scores[order]
    c = codes[order]
    n = s.shape[0]
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    np.not_equal(s[1:], s[:-1], out=new_group[1:])  # -0.0 and 0.0 are one score
    new_pair = new_group.copy()
    new_pair[1:] |= c[1:] != c[:-1]
    first = np.flatnonzero(new_pair)
    group = (np.cumsum(new_group) - 1)[first].astype(np.intp)
    pair_weight = np.add.reduceat(weight[order], first)
    pair_weight_sq = pair_weight
    row_pair = row_weight = None
    if survey:
        pair_weight_sq = np.add.reduceat(weight[order] ** 2, first)
        row_pair = np.empty(n, dtype=np.intp)
        row_pair[order] = np.cumsum(new_pair) - 1
        row_weight = weight
    return Pairs(
        values=s[new_group],
        code=np.ascontiguousarray(c[first], dtype=np.int64),
        group=group,
        weight=pair_weight,
        weight_sq=pair_weight_sq,
        wmat=wmat,
        scale=scale,
        n_items=n_items,
        row_pair=row_pair,
        row_weight=row_weight,
    )
