"""Subgroups as the field analyses them: per group, the machine's and the humans'
agreement, the degradation, the SMD within the group and RSMTool's difference of
standardized means (DSM), with simultaneous intervals; and Loukina, Madnani & Zechner's
(2019) fairness analyses — overall score accuracy, overall score difference and
conditional score difference — as RSMTool computes them (docs/evaluation.md §5)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from qwkit._base._registry import CRITERIA
from qwkit._base._results import plain, result_dict
from qwkit._base._warnings import renamed_attribute
from qwkit._evaluation._criteria import test_pvalue, too_few, verdict
from qwkit._evaluation._design import Categories
from qwkit._evaluation._input import Scores
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._records import NAN, Estimate
from qwkit._evaluation._statistics import Context, kappa_of
from qwkit._evaluation._sums import ItemSums

__all__ = ["FairnessResult", "GroupEvaluation", "RegressionFit", "fairness", "group_statistics"]


@dataclass(frozen=True, slots=True, eq=False)
class GroupEvaluation:
    """One subgroup: its items, the machine's kappa with the reference human, the humans'
    own kappa and the degradation on the group's double-scored items, the SMD within
    the group and the DSM — intervals at the level that holds for all groups at once
    (Bonferroni) — and the p-values of the group criteria, Holm-adjusted over groups.

    ``group_smd`` is the SMD within the group on the population SD (pooled over human
    and machine with ``smd="pooled"``: Williamson, Xi & Breyer's; the human's with
    ``"unpooled"``: RSMTool's "johnson"): it carries the overall difference of means
    into every group. ``dsm`` is RSMTool's difference of standardized means,
    mean[(m − m̄)/s_m − (h − h̄)/s_h] over the group with the population's means and SDs:
    the group's own departure, free of the overall bias.
    """

    group: object
    n_items: int
    n_double_scored: int
    kappa: Estimate
    human_human: Estimate
    degradation: Estimate
    group_smd: Estimate
    dsm: Estimate
    pvalue_group_smd: float
    pvalue_dsm: float
    verdict_group_smd: str
    verdict_dsm: str
    reason: str = ""

    smd = renamed_attribute("smd", "group_smd")
    verdict = renamed_attribute("verdict", "verdict_group_smd")
    pvalue = renamed_attribute("pvalue", "pvalue_group_smd")

    def to_dict(self) -> dict:
        """The group as plain Python values."""
        return plain(
            {
                "group": self.group,
                "n_items": self.n_items,
                "n_double_scored": self.n_double_scored,
                "kappa": self.kappa.to_dict(),
                "human_human": self.human_human.to_dict(),
                "degradation": self.degradation.to_dict(),
                "group_smd": self.group_smd.to_dict(),
                "dsm": self.dsm.to_dict(),
                "pvalue_group_smd": self.pvalue_group_smd,
                "pvalue_dsm": self.pvalue_dsm,
                "verdict_group_smd": self.verdict_group_smd,
                "verdict_dsm": self.verdict_dsm,
                "reason": self.reason,
            }
        )


class _Mean:
    """(Σ u)/n of the rows (n, Σu), scaled by a fixed constant."""

    __slots__ = ("scale",)

    def __init__(self, scale: float):
        self.scale = scale

    def __call__(self, s):
        return s[..., 1] / s[..., 0] / self.scale


def _mean_sums(u: np.ndarray, scale: float = 1.0) -> ItemSums:
    z = np.empty((2, u.shape[0]))
    z[0] = 1.0
    z[1] = u
    return ItemSums(z, _Mean(scale))


def holm(pvalues) -> list[float]:
    """Holm's (1979) step-down adjustment (nan stays nan and is not counted)."""
    p = np.asarray(pvalues, dtype=float)
    known = np.flatnonzero(~np.isnan(p))
    out = np.full(p.shape, math.nan)
    order = known[np.argsort(p[known], kind="stable")]
    m = order.size
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out.tolist()


def group_statistics(
    scores: Scores,
    column: int,
    rows: np.ndarray,
    groups: Categories,
    ctx: Context,
    *,
    smd: str,
    max_group_smd: float,
    max_dsm: float,
) -> tuple[GroupEvaluation, ...]:
    """Every subgroup of the items ``rows`` (scored by the reference human and machine
    ``column``): simultaneous intervals at 1 − (1 − level)/G (Bonferroni), the group
    criteria's p-values Holm-adjusted over the G groups (eqs. 15, F1)."""
    codes = groups.codes[rows]
    n_groups = groups.n
    level = 1.0 - (1.0 - ctx.level) / n_groups
    hp, mp = scores.human[rows, 0], scores.machine[rows, column]
    hv, mv = scores.human_values[rows, 0], scores.machine_values[rows, column]
    second = scores.human[rows, 1] if scores.human.shape[1] > 1 else np.full(rows.size, np.nan)
    sd_h, sd_m = float(np.std(hv, ddof=1)), float(np.std(mv, ddof=1))
    mean_h, mean_m = float(np.mean(hv)), float(np.mean(mv))
    pooled = math.sqrt((sd_h * sd_h + sd_m * sd_m) / 2.0)
    unit = pooled if smd == "pooled" else sd_h  # Williamson's, or RSMTool's "johnson"
    dsm_u = (mv - mean_m) / sd_m - (hv - mean_h) / sd_h  # (eq. F1)
    out, tests = [], []
    for g in range(n_groups):
        where = np.flatnonzero(codes == g)
        items = rows[where]
        double = where[~np.isnan(second[where])]
        n = int(where.size)
        if n < 2:
            nan = dict.fromkeys(("kappa", "human_human", "degradation", "group_smd", "dsm"), NAN)
            out.append((g, n, int(double.size), nan))
            tests.append((math.nan, math.nan))
            continue
        est = {}
        with warnings.catch_warnings():  # an undefined statistic of a small group: nan
            warnings.simplefilter("ignore")
            est["kappa"] = kappa_of(ctx, mp[where], hp[where], scores.wmat, items, level=level)[0]
            smd_sums = _mean_sums(mv[where] - hv[where], unit)
            est["group_smd"], inf_smd = ctx.estimate(smd_sums, items, "SMD", level=level)
            dsm_sums = _mean_sums(dsm_u[where])
            est["dsm"], inf_dsm = ctx.estimate(dsm_sums, items, "DSM", level=level)
            est["human_human"] = est["degradation"] = NAN
            if double.size >= 2:
                h1, h2, m = hp[double], second[double], mp[double]
                pair_rows = rows[double]
                est["human_human"] = kappa_of(ctx, h2, h1, scores.wmat, pair_rows, level=level)[0]
                est["degradation"] = ctx.difference(
                    kappa_sums(m, h1, scores.wmat),
                    kappa_sums(h2, h1, scores.wmat),
                    pair_rows,
                    "degradation",
                    fisher=True,
                    level=level,
                )[0]
        out.append((g, n, int(double.size), est))
        tests.append(
            (
                test_pvalue(inf_smd, max_group_smd, "within"),
                test_pvalue(inf_dsm, max_dsm, "within"),
            )
        )
    p_smd = holm([t[0] for t in tests])
    p_dsm = holm([t[1] for t in tests])
    units = CRITERIA["group_smd"].units
    groups_out = []
    for (g, n, n_double, est), ps, pd_ in zip(out, p_smd, p_dsm, strict=True):
        gs, gd = est["group_smd"], est["dsm"]
        reason = too_few(gs, units) if gs.n_items else f"{n} item(s) in the group"
        v_smd = "inconclusive" if reason else verdict(gs.low, gs.high, max_group_smd, "within")
        v_dsm = "inconclusive" if reason else verdict(gd.low, gd.high, max_dsm, "within")
        groups_out.append(
            GroupEvaluation(
                group=groups.labels[g],
                n_items=n,
                n_double_scored=n_double,
                kappa=est["kappa"],
                human_human=est["human_human"],
                degradation=est["degradation"],
                group_smd=gs,
                dsm=gd,
                pvalue_group_smd=ps,
                pvalue_dsm=pd_,
                verdict_group_smd=v_smd,
                verdict_dsm=v_dsm,
                reason=reason,
            )
        )
    return tuple(groups_out)


# ---------------------------------------------------------------------------- fairness


@dataclass(frozen=True, slots=True, eq=False)
class RegressionFit:
    """One of Loukina et al.'s (2019) analyses as RSMTool fits it: an OLS regression of a
    per-item measure on group membership (the largest group the base), its adjusted R²
    (for the conditional score difference: the gain in adjusted R² over the model with
    the human score alone), the F test's p-value, and each group's coefficient (its
    difference from the base group) with the OLS interval, p-value and Holm-adjusted
    p-value."""

    name: str
    r2: float
    pvalue: float
    base_group: object
    groups: tuple
    estimate: tuple
    low: tuple
    high: tuple
    pvalues: tuple
    pvalues_adjusted: tuple

    def to_dict(self) -> dict:
        """As plain Python values."""
        return result_dict(
            self,
            (
                "name",
                "r2",
                "pvalue",
                "base_group",
                "groups",
                "estimate",
                "low",
                "high",
                "pvalues",
                "pvalues_adjusted",
            ),
        )


@dataclass(frozen=True, slots=True, eq=False)
class FairnessResult:
    """Loukina, Madnani & Zechner's (2019) fairness analyses of one machine: overall
    score accuracy (squared error ~ group), overall score difference (error ~ group)
    and conditional score difference (error ~ group + human score, against error ~
    human score), each a :class:`RegressionFit`."""

    overall_score_accuracy: RegressionFit
    overall_score_difference: RegressionFit
    conditional_score_difference: RegressionFit

    def to_dict(self) -> dict:
        """As plain Python values."""
        return {
            "overall_score_accuracy": self.overall_score_accuracy.to_dict(),
            "overall_score_difference": self.overall_score_difference.to_dict(),
            "conditional_score_difference": self.conditional_score_difference.to_dict(),
        }


def _by_size(codes: np.ndarray, labels: tuple) -> np.ndarray:
    """The categories ordered as RSMTool orders them: by size, largest first, ties by
    label (the first is the base category)."""
    counts = np.bincount(codes, minlength=len(labels))
    return np.array(sorted(range(len(labels)), key=lambda c: (-counts[c], labels[c])))


def _columns(factors) -> tuple[list[np.ndarray], int]:
    """Each item's design column under treatment coding of each factor — (codes, order):
    the first category of ``order`` is the base, in no column (−1) — after the intercept
    (column 0); and the number of columns."""
    out, p = [], 1
    for codes, order in factors:
        col = np.full(int(max(codes.max(), order.max())) + 1, -1, dtype=np.intp)
        col[order[1:]] = p + np.arange(order.size - 1)
        out.append(col[codes])
        p += order.size - 1
    return out, p


def _ols(y: np.ndarray, factors):
    """OLS of y on [1, treatment dummies of each factor] from its normal equations, counted
    by cell (X'X and X'y by bincount: O(n), whatever the number of categories), the
    minimum-norm solution pinv(X'X) X'y — statsmodels' pinv fit — and the residuals
    themselves. Returns (coefficients, their SEs, residual SS, residual df, number of
    regressors, adjusted R²)."""
    n = y.shape[0]
    cols, p = _columns(factors)
    # counted one slot up: slot 0 collects the base category's items, dropped after
    slots = [c + 1 for c in cols]
    xtx = np.zeros((p, p))
    xty = np.zeros(p)
    xtx[0, 0], xty[0] = n, y.sum()
    for a, sa in enumerate(slots):
        count = np.bincount(sa, minlength=p + 1)[1:].astype(np.float64)  # column 0: none
        xtx[0] += count
        xtx[1:, 0] += count[1:]
        xtx[np.diag_indices(p)] += np.where(np.arange(p) > 0, count, 0.0)
        xty += np.bincount(sa, weights=y, minlength=p + 1)[1:]
        for sb in slots[a + 1 :]:
            cross = np.bincount(sa * (p + 1) + sb, minlength=(p + 1) ** 2)
            cross = cross.reshape(p + 1, p + 1)[1:, 1:]
            xtx += cross + cross.T
    inverse = np.linalg.pinv(xtx, hermitian=True)
    coef = inverse @ xty
    fitted = np.full(n, coef[0])
    extended = np.append(coef, 0.0)  # column −1 (a base category) adds nothing
    for c in cols:
        fitted += extended[c]
    resid = y - fitted
    rss = float(resid @ resid)
    rank = int(np.linalg.matrix_rank(xtx, hermitian=True))
    df = n - rank
    tss = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - rss / tss if tss > 0 else math.nan
    adj = 1.0 - (1.0 - r2) * (n - 1) / df if df > 0 else math.nan
    cov = rss / df * inverse if df > 0 else np.full((p, p), np.nan)
    return coef, np.sqrt(np.diag(cov)), rss, df, rank - 1, adj


def _fit(name, y, group, human, labels, level) -> RegressionFit:
    """One analysis: y on the groups (``group``: (codes, order)), and with ``human`` (the
    human score's (codes, order)) the conditional form against y on the human score."""
    factors = [group] if human is None else [group, human]
    coef, se, rss, df, k, adj = _ols(y, factors)
    if human is None:
        tss = float(((y - y.mean()) ** 2).sum())
        f = ((tss - rss) / k) / (rss / df) if k > 0 and df > 0 and rss > 0 else math.nan
        pvalue = float(stats.f.sf(f, k, df)) if math.isfinite(f) else math.nan
        r2_reported = adj
    else:
        _, _, rss0, df0, _, adj0 = _ols(y, [human])
        extra = df0 - df
        f = ((rss0 - rss) / extra) / (rss / df) if extra > 0 and df > 0 and rss > 0 else math.nan
        pvalue = float(stats.f.sf(f, extra, df)) if math.isfinite(f) else math.nan
        r2_reported = adj - adj0
    order = group[1]
    n_terms = order.size - 1
    est = coef[1 : 1 + n_terms]
    ses = se[1 : 1 + n_terms]
    crit = float(stats.t.ppf(1.0 - (1.0 - level) / 2.0, df)) if df > 0 else math.nan
    with np.errstate(all="ignore"):  # a coefficient without spread: nan, as statsmodels
        tvals = est / ses
        pv = 2.0 * stats.t.sf(np.abs(tvals), df) if df > 0 else np.full(n_terms, np.nan)
    return RegressionFit(
        name=name,
        r2=float(r2_reported),
        pvalue=pvalue,
        base_group=labels[order[0]],
        groups=tuple(labels[c] for c in order[1:]),
        estimate=tuple(float(v) for v in est),
        low=tuple(float(v) for v in est - crit * ses),
        high=tuple(float(v) for v in est + crit * ses),
        pvalues=tuple(float(v) for v in pv),
        pvalues_adjusted=tuple(holm(pv)),
    )


def fairness(
    scores: Scores, column: int, rows: np.ndarray, groups: Categories, level: float
) -> FairnessResult | None:
    """Loukina et al.'s three analyses of machine ``column`` on ``rows`` (eqs. F2–F3); None
    with fewer than two groups or too few items to fit."""
    codes = groups.codes[rows]
    used = np.unique(codes)
    if used.size < 2 or rows.size <= used.size + 1:
        return None
    h, m = scores.human_values[rows, 0], scores.machine_values[rows, column]
    error = m - h
    order = _by_size(codes, groups.labels)
    order = order[np.isin(order, used)]
    human = scores.human[rows, 0]
    hcodes = (human - np.nanmin(human)).astype(np.intp)  # positions: small integers
    present = np.flatnonzero(np.bincount(hcodes))
    hlabels = tuple(range(int(hcodes.max()) + 1))
    horder = _by_size(hcodes, hlabels)
    horder = horder[np.isin(horder, present)]
    group, by_human = (codes, order), (hcodes, horder)
    labels = groups.labels
    return FairnessResult(
        overall_score_accuracy=_fit(
            "overall score accuracy", error * error, group, None, labels, level
        ),
        overall_score_difference=_fit(
            "overall score difference", error, group, None, labels, level
        ),
        conditional_score_difference=_fit(
            "conditional score difference", error, group, by_human, labels, level
        ),
    )
