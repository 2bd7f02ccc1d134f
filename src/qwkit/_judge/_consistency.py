"""One judge's self-consistency over its runs, the runs a target reliability needs, the
payoff in agreement with the humans as runs are added, and prompt sensitivity; the human
raters' own reliability beside it. Equation numbers are those of ``docs/judge.md``."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from qwkit._judge import _stats
from qwkit._judge._input import Humans, JudgeScores
from qwkit._judge._records import (
    KappaWithHumans,
    PromptComparison,
    ReliabilityEstimate,
    RunsNeeded,
    nan_estimate,
)

__all__ = [
    "RUN_STEPS",
    "Settings",
    "aggregate_rows",
    "estimate",
    "holm",
    "human_reliability_parts",
    "judge_parts",
    "kappa_row",
]

#: The numbers of runs whose aggregate is scored against the humans (those up to the
#: judge's number of runs, and that number).
RUN_STEPS = (1, 2, 3, 5, 10, 20, 50, 100)


@dataclass(frozen=True, slots=True)
class Settings:
    runs: str
    target: float
    min_kappa: float
    aggregate: str
    level: float


def estimate(name: str, jk: _stats.Jackknifed) -> ReliabilityEstimate:
    return ReliabilityEstimate(
        coefficient=name,
        statistic=float(jk.statistic),
        standard_error=float(jk.standard_error),
        low=float(jk.low),
        high=float(jk.high),
        n_items=int(jk.n_items),
    )


def holm(pvalues) -> list[float]:
    """Holm's (1979) step-down adjustment (nan stays nan and is not counted)."""
    p = np.asarray(pvalues, dtype=float)
    known = np.flatnonzero(~np.isnan(p))
    out = np.full(p.shape, math.nan)
    order = known[np.argsort(p[known], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (order.size - rank) * p[i]))
        out[i] = running
    return out.tolist()


def _centred(values: np.ndarray):
    """(per-item count, sum, sum of squares) of a matrix with NaN, centred on its mean."""
    present = ~np.isnan(values)
    centre = float(values[present].mean()) if present.any() else 0.0
    x = np.where(present, values - centre, 0.0)
    return present.sum(axis=1).astype(np.float64), x.sum(axis=1), (x * x).sum(axis=1)


def _icc_estimates(values: np.ndarray, level: float):
    """ICC(1) and α of an items × runs matrix (NaN = no score)."""
    m, s1, s2 = _centred(values)
    rated = m >= 1
    m, s1, s2 = m[rated], s1[rated], s2[rated]
    full, loo, k0 = _stats.icc1(m, s1, s2)
    icc = estimate("ICC(1)", _stats.jackknife(full, loo, level, "icc", k0))
    a_full, a_loo, k_bar = _stats.alpha_interval(m, s1, s2)
    alpha = estimate("alpha", _stats.jackknife(a_full, a_loo, level, "icc", k_bar))
    return icc, alpha


# ---------------------------------------------------------------------------- aggregates


def aggregate_rows(values: np.ndarray, how: str) -> np.ndarray:
    """Per row of an items × runs matrix (NaN = no score): the mean of its scores, or
    the majority — the most frequent score, and among equally frequent scores their
    median (eq. J8); NaN for a row without a score."""
    present = ~np.isnan(values)
    count = present.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if how == "mean":
            return np.where(present, values, 0.0).sum(axis=1) / np.where(count, count, np.nan)
    ordered = np.sort(values, axis=1)  # NaN last
    times = (ordered[:, :, None] == ordered[:, None, :]).sum(axis=2).astype(np.float64)
    times[np.isnan(ordered)] = 0.0
    top = times.max(axis=1, keepdims=True)
    modes = np.where((times == top) & (top > 0), ordered, np.nan)
    out = np.full(values.shape[0], np.nan)
    rows = count > 0
    if rows.any():
        out[rows] = np.nanmedian(modes[rows], axis=1)
    return out


def _human_centred(humans: Humans, rows: np.ndarray, centre: float):
    c = humans.count[rows]
    h1 = humans.s1[rows]
    h2 = humans.s2[rows]
    return c, h1 - c * centre, h2 - 2.0 * centre * h1 + c * centre * centre


def _verdict(jk: _stats.Jackknifed, threshold: float) -> tuple[float, str]:
    if math.isnan(jk.low) or math.isnan(jk.high):
        return math.nan, "inconclusive"
    p = jk.pvalue_above(threshold)
    if jk.low >= threshold:
        return p, "pass"
    if jk.high < threshold:
        return p, "fail"
    return p, "inconclusive"


def kappa_row(label, size, members, how, jk: _stats.Jackknifed, s: Settings) -> KappaWithHumans:
    p, verdict = _verdict(jk, s.min_kappa)
    return KappaWithHumans(
        label=label,
        size=int(size),
        members=tuple(members),
        aggregate=how,
        kappa=estimate("kappa", jk),
        threshold=s.min_kappa,
        pvalue=float(p),
        verdict=verdict,
    )


def kappa_of_columns(scores: list[np.ndarray], c, h1, h2, level: float) -> _stats.Jackknifed:
    """Kappa with the humans of one or several per-item score vectors (NaN = none),
    averaged over them (the cyclic subsets of k runs), jackknifed over every item that
    any of them scores (eq. J7)."""
    fulls, loos, kept = [], [], np.zeros(c.size, dtype=bool)
    for a in scores:
        full, loo, keep = _stats.kappa_pairs(a, c, h1, h2)
        fulls.append(full)
        whole = np.full(c.size, full)
        whole[keep] = loo
        loos.append(whole)
        kept |= keep
    full = float(np.mean(fulls))
    loo = np.mean(loos, axis=0)[kept]
    return _stats.jackknife(full, loo, level, "fisher")


def _subsets(r: int, k: int) -> list[tuple[int, ...]]:
    """The cyclic subsets of k of r runs: {s, s+1, …, s+k−1 mod r}, each run in k of them."""
    found = dict.fromkeys(tuple(sorted((s + t) % r for t in range(k))) for s in range(r))
    return list(found)


def _runs_needed(icc: ReliabilityEstimate, basis: str, target: float, r: int) -> RunsNeeded:
    runs = _stats.runs_for(icc.statistic, target)
    low = _stats.runs_for(icc.high, target)
    high = _stats.runs_for(icc.low, target)
    last = int(max(r, runs if math.isfinite(runs) else r, 1))
    last = min(last, 100)
    table = tuple(
        (
            k,
            _stats.spearman_brown(icc.statistic, k),
            _stats.spearman_brown(icc.low, k),
            _stats.spearman_brown(icc.high, k),
        )
        for k in range(1, last + 1)
    )
    return RunsNeeded(target=target, basis=basis, runs=runs, low=low, high=high, reliability=table)


@dataclass(frozen=True, slots=True)
class Parts:
    """What :func:`judge_parts` computes of one judge (the result's record is built from
    it by the caller)."""

    n_items: int
    n_repeated: int
    n_scores: int
    constant: bool
    icc: ReliabilityEstimate
    alpha: ReliabilityEstimate
    icc_agreement: ReliabilityEstimate | None
    runs_needed: RunsNeeded
    kappa_by_runs: tuple
    prompt_kappas: tuple
    prompt_comparisons: tuple
    run_mean: np.ndarray  # per item of the judge: the mean of its runs


def _icc_agreement(values: np.ndarray, level: float) -> ReliabilityEstimate:
    complete = ~np.isnan(values).any(axis=1)
    x = values[complete]
    if x.shape[0] < 3 or x.shape[1] < 2:
        return nan_estimate("ICC(A,1)", int(x.shape[0]))
    x = x - x.mean()
    full, loo = _stats.icc_a1(x)
    return estimate("ICC(A,1)", _stats.jackknife(full, loo, level, "icc", x.shape[1]))


def _prompts(js: JudgeScores, values: np.ndarray, run_names, c, h1, h2, s: Settings):
    """Kappa with the humans under each prompt variant (``values``: the judge's scores,
    centred as the human sums are), and each pair's paired difference (Holm-adjusted
    over the judge's pairs)."""
    names = [run_names[r] for r in js.runs]
    rows = []
    for v, name in enumerate(names):
        jk = kappa_of_columns([values[:, v]], c, h1, h2, s.level)
        rows.append(kappa_row(f"prompt {name}", 1, (name,), "one run", jk, s))
    pairs = []
    for v, w in itertools.combinations(range(len(names)), 2):
        both = ~np.isnan(values[:, v]) & ~np.isnan(values[:, w]) & (c > 0)
        n = int(both.sum())
        if n < 3:
            pairs.append((names[v], names[w], math.nan, math.nan, math.nan, math.nan, math.nan, n))
            continue
        fv, lv, _ = _stats.kappa_pairs(values[both, v], c[both], h1[both], h2[both])
        fw, lw, _ = _stats.kappa_pairs(values[both, w], c[both], h1[both], h2[both])
        jk = _stats.jackknife(fv - fw, lv - lw, s.level)
        with np.errstate(all="ignore"):
            t = jk.statistic / jk.standard_error
        p = float(2.0 * special.stdtr(n - 1, -abs(t))) if math.isfinite(t) else math.nan
        pairs.append((names[v], names[w], jk.statistic, jk.standard_error, jk.low, jk.high, p, n))
    adjusted = holm([p[6] for p in pairs])
    comparisons = tuple(
        PromptComparison(
            judge=js.name,
            first=a,
            second=b,
            difference=float(d),
            standard_error=float(se),
            low=float(lo),
            high=float(hi),
            pvalue=float(p),
            pvalue_adjusted=float(q),
            n_items=n,
        )
        for (a, b, d, se, lo, hi, p, n), q in zip(pairs, adjusted, strict=True)
    )
    return tuple(rows), comparisons


def judge_parts(js: JudgeScores, humans: Humans | None, run_names, s: Settings) -> Parts:
    """Everything about one judge's repeated scores (eqs. J1–J8)."""
    values = js.values
    present = ~np.isnan(values)
    count = present.sum(axis=1)
    scored = values[present]
    constant = bool(scored.size) and bool(np.all(scored == scored[0]))
    icc, alpha = _icc_estimates(values, s.level)
    agreement = _icc_agreement(values, s.level) if s.runs == "prompts" else None
    basis = agreement if agreement is not None else icc
    r = values.shape[1]
    needed = _runs_needed(basis, basis.coefficient, s.target, r)
    run_mean = aggregate_rows(values, "mean")
    by_runs: tuple = ()
    prompt_rows: tuple = ()
    comparisons: tuple = ()
    if humans is not None:
        centre = float(np.mean(scored)) if scored.size else 0.0
        c, h1, h2 = _human_centred(humans, js.items, centre)
        x = values - centre
        steps = sorted({k for k in RUN_STEPS if k <= r} | {r})
        rows = []
        for k in steps:
            subsets = _subsets(r, k)
            how = "one run" if k == 1 else s.aggregate
            cols = [aggregate_rows(x[:, list(sub)], s.aggregate) for sub in subsets]
            jk = kappa_of_columns(cols, c, h1, h2, s.level)
            label = "1 run" if k == 1 else f"{k} runs ({s.aggregate})"
            rows.append(kappa_row(label, k, (), how, jk, s))
        by_runs = tuple(rows)
        if s.runs == "prompts":
            prompt_rows, comparisons = _prompts(js, x, run_names, c, h1, h2, s)
    return Parts(
        n_items=int(np.count_nonzero(count)),
        n_repeated=int(np.count_nonzero(count >= 2)),
        n_scores=int(present.sum()),
        constant=constant,
        icc=icc,
        alpha=alpha,
        icc_agreement=agreement,
        runs_needed=needed,
        kappa_by_runs=by_runs,
        prompt_kappas=prompt_rows,
        prompt_comparisons=comparisons,
        run_mean=run_mean,
    )


def human_reliability_parts(humans: Humans, level: float):
    """ICC(1), α and the pooled kappa of pairs of human ratings of the same items."""
    rated = humans.count >= 1
    c = humans.count[rated]
    centre = float(humans.s1[rated].sum() / c.sum())
    _, h1, h2 = _human_centred(humans, np.flatnonzero(rated), centre)
    if not np.any(c >= 2):
        return None
    full, loo, k0 = _stats.icc1(c, h1, h2)
    icc = estimate("ICC(1)", _stats.jackknife(full, loo, level, "icc", k0))
    a_full, a_loo, k_bar = _stats.alpha_interval(c, h1, h2)
    alpha = estimate("alpha", _stats.jackknife(a_full, a_loo, level, "icc", k_bar))
    k_full, k_loo, _ = _stats.kappa_human_pairs(c, h1, h2)
    kappa = estimate("kappa", _stats.jackknife(k_full, k_loo, level, "fisher"))
    return {
        "n_items": int(rated.sum()),
        "n_double_rated": int(np.count_nonzero(c >= 2)),
        "icc": icc,
        "alpha": alpha,
        "kappa": kappa,
    }
