"""Slow, obviously correct oracles for the scorer evaluation (``tests/oracles/naive.py`` style).

Each takes the long way round, independent of the library's item sums: kappa of a
candidate against a panel by expanding every (item, reference) pair and averaging the
weights over all pairs of pairs; influence functions by numerically tilting the weight of
one item; the jackknife by deleting each item and recomputing; PRMSE by its formulas
written out item by item; and the Alternative Annotator Test by following the steps of
the authors' reference code (the ``alt_test`` function of the example notebook in
github.com/nitaytech/AltTest), written out on dictionaries as that code takes them.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = [
    "naive_degradation",
    "naive_influence_se",
    "naive_jackknife_se",
    "naive_prmse",
    "naive_pseudo_values",
    "panel_kappa",
    "reference_alt_test",
]


def _weight(a, b, weights):
    if isinstance(weights, str):
        if weights == "quadratic":
            return (a - b) ** 2
        if weights == "linear":
            return np.abs(a - b)
        return (a != b).astype(float)
    return np.asarray(weights)[np.asarray(a, dtype=int), np.asarray(b, dtype=int)]


def panel_kappa(candidate, reference, weights="quadratic", item_weights=None) -> float:
    """Kappa of the pooled pairs (reference rating, candidate score) of every item, by
    brute force: 1 − mean observed weight / mean weight over all pairs of pairs."""
    candidate = np.asarray(candidate, dtype=float)
    reference = np.asarray(reference, dtype=float).reshape(len(candidate), -1)
    w = np.ones(len(candidate)) if item_weights is None else np.asarray(item_weights, float)
    ys, xs, ws = [], [], []
    for i in range(len(candidate)):
        for r in reference[i]:
            if not np.isnan(r):
                ys.append(r)
                xs.append(candidate[i])
                ws.append(w[i])
    y, x, pw = np.array(ys), np.array(xs), np.array(ws)
    observed = np.sum(pw * _weight(y, x, weights)) / pw.sum()
    chance = np.sum(pw[:, None] * pw[None, :] * _weight(y[:, None], x[None, :], weights))
    return float(1.0 - observed / (chance / pw.sum() ** 2))


def naive_degradation(human, machine, pairs="first", weights="quadratic", item_weights=None):
    """κ(h₁, m) − κ(h₁, h₂) on the items of the first two columns, or the average over
    pairs of ½[κ(h_r, m) + κ(h_s, m)] − κ(h_r, h_s) weighted by their numbers of items
    (items tilted by ``item_weights``)."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(machine, dtype=float)
    w = np.ones(len(m)) if item_weights is None else np.asarray(item_weights, float)
    chosen = (
        [(0, 1)]
        if pairs == "first"
        else [(r, s) for r in range(h.shape[1]) for s in range(r + 1, h.shape[1])]
    )
    total = num = 0.0
    for r, s in chosen:
        rows = ~np.isnan(h[:, r]) & ~np.isnan(h[:, s]) & ~np.isnan(m)
        if rows.sum() < 2:
            continue
        wr = w[rows]
        hm = (
            panel_kappa(m[rows], h[rows, r], weights, wr)
            + panel_kappa(m[rows], h[rows, s], weights, wr)
        ) / 2
        if pairs == "first":
            hm = panel_kappa(m[rows], h[rows, r], weights, wr)
        hh = panel_kappa(h[rows, s], h[rows, r], weights, wr)
        num += wr.sum() * (hm - hh)
        total += wr.sum()
    return num / total


def naive_jackknife_se(statistic, n: int) -> float:
    """√((n − 1)/n Σ (θ₍ᵢ₎ − θ̄)²) with θ₍ᵢ₎ = statistic(keep) recomputed without item i."""
    values = []
    for i in range(n):
        keep = np.ones(n, dtype=bool)
        keep[i] = False
        values.append(statistic(keep))
    values = np.array(values)
    return math.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2))


def naive_influence_se(statistic, n: int, step: float = 1e-6) -> float:
    """Delta-method SE from numerical influence functions: IF_i is the derivative of the
    statistic as the empirical distribution of the items is tilted toward item i,
    statistic(weights) taking one weight per item."""
    base = np.full(n, 1.0 / n)
    infl = []
    for i in range(n):
        point = np.zeros(n)
        point[i] = 1.0
        up = statistic((1 - step) * base + step * point)
        down = statistic((1 + step) * base - step * point)
        infl.append((up - down) / (2 * step))
    infl = np.array(infl)
    return math.sqrt(np.sum(infl**2)) / n


def naive_pseudo_values(candidate, reference, weights="quadratic"):
    """G·κ − (G − 1)·κ₍ᵢ₎ by deleting each item and recomputing the panel kappa."""
    candidate = np.asarray(candidate, dtype=float)
    reference = np.asarray(reference, dtype=float).reshape(len(candidate), -1)
    g = len(candidate)
    full = panel_kappa(candidate, reference, weights)
    out = []
    for i in range(g):
        keep = np.arange(g) != i
        out.append(g * full - (g - 1) * panel_kappa(candidate[keep], reference[keep], weights))
    return np.array(out)


def naive_prmse(human, machine):
    """(V_e, σ²_T, MSE_true, PRMSE) of Loukina et al. (2020), item by item."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(machine, dtype=float)
    items = []
    for i in range(h.shape[0]):
        ratings = [x for x in h[i] if not np.isnan(x)]
        if ratings and not np.isnan(m[i]):
            items.append((ratings, m[i]))
    within = sum(sum((x - np.mean(r)) ** 2 for x in r) for r, _ in items)
    dof = sum(len(r) - 1 for r, _ in items)
    ve = within / dof
    n_items = len(items)
    m_total = sum(len(r) for r, _ in items)
    grand = sum(sum(r) for r, _ in items) / m_total
    ss = sum(len(r) * (np.mean(r) - grand) ** 2 for r, _ in items)
    vt = (ss - (n_items - 1) * ve) / (m_total - sum(len(r) ** 2 for r, _ in items) / m_total)
    mse = (sum(len(r) * (np.mean(r) - s) ** 2 for r, s in items) - n_items * ve) / m_total
    return ve, vt, mse, 1 - mse / vt


# ---------------------------------------------------------------------------- alt-test


def _accuracy(prediction, annotations):
    return float(np.mean([prediction == a for a in annotations]))


def _neg_rmse(prediction, annotations):
    return -float(np.sqrt(np.mean([(prediction - a) ** 2 for a in annotations])))


def _benjamini_yekutieli(pvalues, q):
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    order = np.argsort(p)
    harmonic = sum(1.0 / k for k in range(1, m + 1))
    last = -1
    for rank in range(m):
        if p[order[rank]] <= (rank + 1) / m * q / harmonic:
            last = rank
    return [int(i) for i in order[: last + 1]]


def reference_alt_test(
    llm_annotations: dict,
    humans_annotations: dict,
    scoring: str = "accuracy",
    epsilon: float = 0.2,
    q_fdr: float = 0.05,
    min_humans_per_instance: int = 2,
    min_instances_per_human: int = 30,
):
    """The reference procedure, step by step: (winning rate, advantage probability,
    {annotator: p-value}). ``humans_annotations`` maps annotator → {instance: label},
    ``llm_annotations`` instance → label."""
    score = _accuracy if scoring == "accuracy" else _neg_rmse
    annotators_of = {}
    for h, anns in humans_annotations.items():
        for i in anns:
            annotators_of.setdefault(i, []).append(h)
    kept = {
        i
        for i, hs in annotators_of.items()
        if len(hs) >= min_humans_per_instance and i in llm_annotations
    }
    pvalues, advantages, tested = {}, [], []
    for excluded, anns in humans_annotations.items():
        instances = [i for i in anns if i in kept]
        if len(instances) < min_instances_per_human:
            continue
        llm_wins, human_wins = [], []
        for i in instances:
            others = [humans_annotations[h][i] for h in annotators_of[i] if h != excluded]
            human_score = score(anns[i], others)
            llm_score = score(llm_annotations[i], others)
            llm_wins.append(1 if llm_score >= human_score else 0)
            human_wins.append(1 if human_score >= llm_score else 0)
        diff = [a - b for a, b in zip(human_wins, llm_wins, strict=True)]
        with np.errstate(all="ignore"):
            pvalues[excluded] = float(stats.ttest_1samp(diff, epsilon, alternative="less").pvalue)
        advantages.append(float(np.mean(llm_wins)))
        tested.append(excluded)
    rejected = _benjamini_yekutieli([pvalues[h] for h in tested], q_fdr)
    return len(rejected) / len(tested), float(np.mean(advantages)), pvalues
