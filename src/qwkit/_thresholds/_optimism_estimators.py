"""The estimators of ``optimism_corrected_kappa`` (docs/optimism.md): the sample as
(distinct score, true class) pairs, the Efron–Gong bootstrap of the optimism (O1–O3),
repeated K-fold cross-fitting (O4) and the delta-method variances of the interval (O5).

The sample is sorted once: items are aggregated into pairs in lexicographic order, and
every resample or training fold is a vector of pair weights over that fixed order. A
bootstrap resample of unit-weight items is one multinomial draw of the pair counts (O1),
a fold split a chain of multivariate hypergeometric draws; with survey weights the rows
themselves are drawn. A refit is the exact solver of ``optimize_thresholds`` on the pairs
of positive weight, without sorting again: memory O(pairs), whatever the number of
resamples (the sorted sample, ``Pairs``, and the exact solver are
``_table._cut_points``'s). The public function, its checks and its result are in
``_optimism``.
"""

from __future__ import annotations

import math

import numpy as np

from qwkit._table._cells import CellKappa, influence_variance
from qwkit._table._cut_points import Pairs, pairs_of
from qwkit._table._cut_points import table_kappa as _table_kappa

__all__ = ["bootstrap", "cross_fit", "kappa_variance", "pairs_of", "ticker"]

#: numpy's multivariate_hypergeometric needs fewer items than this.
_HYPERGEOMETRIC_LIMIT = 10**9


# ---------------------------------------------------------------------------- estimators


def bootstrap(pairs: Pairs, n_resamples: int, rng: np.random.Generator, tick=None):
    """Efron–Gong optimism (eq. O2): (mean optimism, refits used). ``tick()`` after each
    resample."""
    survey = pairs.row_pair is not None
    if not survey:
        n = pairs.n_items
        pvals = pairs.weight / n
    total = 0.0
    used = 0
    for _ in range(n_resamples):
        if survey:  # rows are the sampling units: draw rows, keep their weights
            idx = rng.integers(0, pairs.row_pair.shape[0], size=pairs.row_pair.shape[0])
            w = np.bincount(
                pairs.row_pair[idx], weights=pairs.row_weight[idx], minlength=pairs.weight.shape[0]
            )
        else:  # a bootstrap resample of the items is a multinomial draw of the pairs (O1)
            w = rng.multinomial(n, pvals).astype(np.float64)
        fit = pairs.refit(w)
        if tick is not None:
            tick()
        if fit is None:
            continue
        cuts, apparent_b = fit
        test_b = pairs.kappa(cuts)
        if math.isnan(apparent_b) or math.isnan(test_b):
            continue
        total += apparent_b - test_b  # optimism of resample b   (eq. O2)
        used += 1
    return (total / used if used else math.nan), used


def _fold_sizes(n: int, n_splits: int) -> np.ndarray:
    """Sizes of n_splits folds as equal as possible (the first n % n_splits one larger)."""
    sizes = np.full(n_splits, n // n_splits, dtype=np.int64)
    sizes[: n % n_splits] += 1
    return sizes


class _Cells:
    """Weights of the (true, fitted class, out-of-fold class) cells of one repetition,
    merged whenever the buffer outgrows ``limit`` entries (memory O(cells + pairs))."""

    def __init__(self, k: int, limit: int):
        self.k = k
        self.limit = limit
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.size = 0

    def add(self, t, a, b, w, w_sq) -> None:
        k = self.k
        self.parts.append(((t * k + a) * k + b, w, w_sq))
        self.size += t.shape[0]
        if self.size > self.limit:
            self.parts = [self.merged()]
            self.size = self.parts[0][0].shape[0]

    def merged(self):
        code, w, w_sq = (np.concatenate(x) for x in zip(*self.parts, strict=True))
        cells, where = np.unique(code, return_inverse=True)
        m = cells.shape[0]
        return cells, np.bincount(where, w, minlength=m), np.bincount(where, w_sq, minlength=m)


def kappa_variance(t, a, b, w, w_sq, wmat) -> float:
    """Delta-method variance over cells of weight w (Σw² per cell: w_sq) of κ(t, a) —
    eq. 5 of docs/inference.md — or, with ``b``, of κ(t, a) − κ(t, b) (its eq. 10);
    both from the influence function of its eq. 3. nan if a kappa is undefined."""
    model_a = CellKappa(rows=t, cols=a, wmat=wmat)
    ka = model_a.value(w)
    if math.isnan(ka):
        return math.nan
    g = model_a.influence(w, ka)
    if b is not None:
        model_b = CellKappa(rows=t, cols=b, wmat=wmat)
        kb = model_b.value(w)
        if math.isnan(kb):
            return math.nan
        g = g - model_b.influence(w, kb)  # (eq. 10)
    return influence_variance(g, w, w_sq)  # (eq. 5, eq. 10)


def cross_fit(
    pairs: Pairs, fitted_cls: np.ndarray, n_splits: int, n_repeats: int, rng, tick=None
) -> tuple[float, int, float]:
    """Repeated K-fold cross-fitting (eq. O4); ``tick()`` after each fold.

    Returns the mean pooled out-of-fold kappa, the number of refits used and the mean
    over repetitions of the paired variance (eq. O5) of apparent − out-of-fold kappa.
    """
    k = pairs.k
    survey = pairs.row_pair is not None
    n_pairs = pairs.weight.shape[0]
    n_units = pairs.row_pair.shape[0] if survey else pairs.n_items
    sizes = _fold_sizes(n_units, n_splits)
    # numpy's hypergeometric sampler takes fewer than 10**9 items; beyond, fold sizes
    # vary by about sqrt(n / n_splits), a relative 10**-4 or less
    exact_sizes = survey or n_units < _HYPERGEOMETRIC_LIMIT
    pair_a = fitted_cls[pairs.group]
    total = 0.0
    total_var = 0.0
    used = 0
    for _ in range(n_repeats):
        if survey:  # a random partition of the rows
            fold_of_row = np.empty(n_units, dtype=np.intp)
            fold_of_row[rng.permutation(n_units)] = np.repeat(np.arange(n_splits), sizes)
        else:  # a random partition of the items: a chain of hypergeometric draws
            remaining = pairs.weight.astype(np.int64)
        cells = _Cells(k, limit=4 * n_pairs + 64)
        complete = True
        for f in range(n_splits):
            if survey:
                held = fold_of_row == f
                rows, rw = pairs.row_pair[held], pairs.row_weight[held]
                fold = np.bincount(rows, weights=rw, minlength=n_pairs)
                fold_sq = np.bincount(rows, weights=rw * rw, minlength=n_pairs)
                # summed afresh, not weight − fold: a pair held out entirely must get
                # exactly 0, not a rounding residue that would still place a cut point
                train = np.bincount(
                    pairs.row_pair[~held], weights=pairs.row_weight[~held], minlength=n_pairs
                )
            else:
                if f == n_splits - 1:
                    draw = remaining
                elif exact_sizes:
                    draw = rng.multivariate_hypergeometric(remaining, int(sizes[f]))
                else:  # each item in a fold uniformly at random: a multinomial per pair
                    draw = rng.binomial(remaining, 1.0 / (n_splits - f))
                remaining = remaining - draw
                fold = fold_sq = draw.astype(np.float64)
                train = pairs.weight - fold  # whole numbers: exact
            if tick is not None:
                tick()
            if not complete:
                continue  # keep drawing: the random stream does not depend on the data
            fit = pairs.refit(train)
            if fit is None:
                complete = False
                continue
            cls = np.searchsorted(fit[0], pairs.values, side="left")  # apply_thresholds
            held = np.flatnonzero(fold > 0)
            cells.add(
                pairs.code[held], pair_a[held], cls[pairs.group[held]], fold[held], fold_sq[held]
            )
        if not complete:
            continue
        code, w, w_sq = cells.merged()
        t, a, b = code // (k * k), (code // k) % k, code % k
        pooled = np.bincount(t * k + b, weights=w, minlength=k * k).reshape(k, k)
        value = _table_kappa(pooled, pairs.wmat)  # pooled out-of-fold kappa   (eq. O4)
        if math.isnan(value):
            continue
        total += value
        total_var += kappa_variance(t, a, b, w, w_sq, pairs.wmat)
        used += 1
    if not used:
        return math.nan, 0, math.nan
    return total / used, used * n_splits, total_var / used


def ticker(progress, total: int):
    """A ``tick()`` that calls ``progress(done, total)`` (None without ``progress``)."""
    if progress is None:
        return None
    done = [0]
    progress(0, total)

    def tick() -> None:
        done[0] += 1
        progress(done[0], total)

    return tick
