"""Slow, obviously correct oracles for the LLM-judge statistics: plain loops over items
and pandas group-bys, the textbook formulas written out, the jackknife by actually
leaving each item out.

Sources: the one-way ANOVA with unequal group sizes and its k₀ (Snedecor & Cochran,
*Statistical Methods*, §10.12; Shrout & Fleiss 1979 for ICC(1)); Spearman–Brown
(Spearman 1910, Brown 1910); McNemar's test as a binomial test of the discordant pairs;
the effective number of judges and the true-score correlation of docs/judge.md
(eqs. J11–J12), written with numpy's own covariances.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd

__all__ = [
    "cyclic_kappa",
    "icc1_anova",
    "jackknife_se",
    "m_eff",
    "majority",
    "pooled_kappa",
    "position_counts",
    "sign_flip_pvalue",
]


def icc1_anova(frame: pd.DataFrame) -> float:
    """ICC(1) of a long frame (item, score) by the one-way ANOVA with unequal groups."""
    groups = [g["score"].to_numpy(dtype=float) for _, g in frame.groupby("item")]
    n = len(groups)
    big_n = sum(len(g) for g in groups)
    grand = sum(g.sum() for g in groups) / big_n
    ssb = sum(len(g) * (g.mean() - grand) ** 2 for g in groups)
    ssw = sum(((g - g.mean()) ** 2).sum() for g in groups)
    msb, msw = ssb / (n - 1), ssw / (big_n - n)
    k0 = (big_n - sum(len(g) ** 2 for g in groups) / big_n) / (n - 1)
    return (msb - msw) / (msb + (k0 - 1) * msw)


def jackknife_se(frame: pd.DataFrame, statistic) -> float:
    """The jackknife SE of ``statistic(frame)`` over items, leaving each item out."""
    items = frame["item"].unique()
    values = np.array([statistic(frame[frame["item"] != i]) for i in items])
    n = len(items)
    return math.sqrt((n - 1) / n * float(((values - values.mean()) ** 2).sum()))


def pooled_kappa(pairs: list[tuple[float, float]]) -> float:
    """Quadratic kappa of pairs (x, y): 1 − mean (x − y)² / mean over all x, y of (x − y)²."""
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    observed = float(np.mean((x - y) ** 2))
    expected = float(np.mean((x[:, None] - y[None, :]) ** 2))
    return 1.0 - observed / expected


def majority(values) -> float:
    """The most frequent score; ties: the median of the tied scores."""
    counts = Counter(v for v in values if not math.isnan(v))
    top = max(counts.values())
    return float(np.median([v for v, c in counts.items() if c == top]))


def cyclic_kappa(scores: np.ndarray, human: np.ndarray, k: int, how: str) -> float:
    """Kappa with the humans of the aggregate of k runs, averaged over the cyclic subsets
    {s, …, s+k−1 mod r}, every pair (aggregate, human rating) of an item pooled."""
    r = scores.shape[1]
    subsets = {tuple(sorted((s + t) % r for t in range(k))) for s in range(r)}
    out = []
    for sub in sorted(subsets):
        pairs = []
        for i in range(scores.shape[0]):
            vals = [scores[i, j] for j in sub if not math.isnan(scores[i, j])]
            if not vals:
                continue
            a = float(np.mean(vals)) if how == "mean" else majority(vals)
            pairs += [(a, h) for h in human[i] if not math.isnan(h)]
        out.append(pooled_kappa(pairs))
    return float(np.mean(out))


def m_eff(means: np.ndarray, human: np.ndarray) -> tuple[float, np.ndarray]:
    """(effective number of judges, each judge's true-score correlation) of items ×
    judges ``means`` against items × raters ``human`` (NaN = not rated)."""
    hbar = np.nanmean(human, axis=1)
    count = np.sum(~np.isnan(human), axis=1)
    within = [
        np.nanvar(row, ddof=1) * (c - 1) for row, c in zip(human, count, strict=True) if c > 1
    ]
    dfw = sum(c - 1 for c in count if c > 1)
    noise = (sum(within) / dfw) * float(np.mean(1.0 / count)) if dfw else 0.0
    full = np.cov(np.column_stack([means, hbar]), rowvar=False)
    m = means.shape[1]
    s, c, vh = full[:m, :m], full[:m, m], full[m, m]
    tau = vh - noise
    cov = s - np.outer(c, c) / tau
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    return m * m / corr.sum(), c / np.sqrt(np.diag(s) * tau)


def position_counts(ab: list[str], ba: list[str]):
    """(first-slot wins, decisive verdicts, agreeing pairs, d_i) of one verdict per order."""
    first = sum(v == "A" for v in ab) + sum(v == "B" for v in ba)
    decisive = sum(v != "tie" for v in ab) + sum(v != "tie" for v in ba)
    agree = sum(a == b for a, b in zip(ab, ba, strict=True))
    g = {"A": 1, "B": -1, "tie": 0}
    d = [g[a] - g[b] for a, b in zip(ab, ba, strict=True)]
    return first, decisive, agree, d


def sign_flip_pvalue(d: list[int]) -> float:
    """P(|Σ s_i d_i| ≥ |Σ d_i|) over all 2^n sign vectors (n small)."""
    total = abs(sum(d))
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        hits += abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= total
    return hits / 2 ** len(d)
