"""A judge's mapping onto the human scale — fitted on all the labelled items, or on a
part of them (a training fold) — and cross-fitting (``docs/calibration.md``).

The labelled sample is sorted once: the human ratings as (judge score, position) pairs
for the exact cut points (``_table._cut_points``: eqs. T1–T6 of ``docs/thresholds.md``),
and the items' summed rating values per distinct judge score for isotonic regression
(eq. C2). A fit on a subset of the items is a re-weighting of those sorted pairs: no
sorting again, whatever the number of folds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qwkit._calibration._input import Human
from qwkit._calibration._isotonic import curve_cut_points, pava
from qwkit._table._cut_points import Pairs, pairs_of

__all__ = ["METHODS", "Mapping", "Sample", "fold_of_items"]

METHODS = ("thresholds", "isotonic")


@dataclass(frozen=True, slots=True, eq=False)
class Mapping:
    """A monotone mapping from judge scores to the human scale: K − 1 cut points (the
    classes), and for isotonic regression its curve (the expected human value)."""

    thresholds: np.ndarray  # (K − 1,)
    curve_x: np.ndarray  # isotonic: the distinct training scores; thresholds: empty
    curve_y: np.ndarray  # isotonic: the fitted values there

    def classes(self, scores: np.ndarray) -> np.ndarray:
        """Positions 0 … K − 1 of the scores' classes (``apply_thresholds``'s rule)."""
        return np.searchsorted(self.thresholds, scores, side="left")

    def expected(self, scores: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The calibrated value: the isotonic curve, linear between its points and flat
        beyond (eq. C2); for cut points, the value of the class."""
        if self.curve_x.shape[0]:
            return np.interp(scores, self.curve_x, self.curve_y)
        return values[self.classes(scores)]


@dataclass(frozen=True, slots=True, eq=False)
class Sample:
    """The labelled items, sorted once for every fit."""

    human: Human
    scores: np.ndarray  # float64 (n_items,): the judge's score of each item
    wmat: np.ndarray
    pairs: Pairs  # the ratings as (judge score, position) pairs, with their rows
    distinct: np.ndarray  # float64 (m,): the distinct judge scores, increasing
    item_group: np.ndarray  # intp (n_items,): the distinct score of each item

    @classmethod
    def of(cls, human: Human, scores: np.ndarray, wmat: np.ndarray) -> Sample:
        row_scores = scores[human.item]
        ones = np.ones(human.n_ratings)
        pairs = pairs_of(
            human.codes, row_scores, ones, wmat, human.scale, human.n_ratings, survey=True
        )
        distinct, item_group = np.unique(scores, return_inverse=True)
        return cls(human, scores, wmat, pairs, distinct, item_group.astype(np.intp))

    def fit(self, method: str, train: np.ndarray | None = None) -> Mapping | None:
        """The mapping fitted on the items where ``train`` (bool, per item) is True, or
        on all of them; None when those items hold fewer than two human categories."""
        h = self.human
        rows = None if train is None else train[h.item]
        if method == "thresholds":
            p = self.pairs
            weight = p.weight if rows is None else self._pair_weight(rows)
            fit = p.refit(weight, with_kappa=False)  # the exact optimum (eqs. T1–T6)
            if fit is None:  # fewer than two human categories
                return None
            empty = np.empty(0)
            return Mapping(thresholds=fit[0], curve_x=empty, curve_y=empty)
        codes = h.codes if rows is None else h.codes[rows]
        if np.count_nonzero(np.bincount(codes, minlength=h.k)) < 2:
            return None
        return self._isotonic(rows)

    def _pair_weight(self, rows: np.ndarray) -> np.ndarray:
        p = self.pairs
        assert p.row_pair is not None  # pairs_of(..., survey=True) keeps the rows
        return np.bincount(p.row_pair[rows], minlength=p.weight.shape[0]).astype(np.float64)

    def _isotonic(self, rows) -> Mapping:
        h = self.human
        group = self.item_group[h.item]
        vals = h.values[h.codes]
        if rows is not None:
            group, vals = group[rows], vals[rows]
        m = self.distinct.shape[0]
        count = np.bincount(group, minlength=m).astype(np.float64)
        total = np.bincount(group, weights=vals, minlength=m)
        used = count > 0
        x = self.distinct[used]
        y = pava(total[used] / count[used], count[used])  # (eq. C2)
        return Mapping(thresholds=curve_cut_points(x, y, h.values), curve_x=x, curve_y=y)


def fold_of_items(n_items: int, n_splits: int, rng: np.random.Generator) -> np.ndarray:
    """A random partition of the items into ``n_splits`` folds of sizes as equal as
    possible (the first n % n_splits one larger)."""
    sizes = np.full(n_splits, n_items // n_splits, dtype=np.int64)
    sizes[: n_items % n_splits] += 1
    fold = np.empty(n_items, dtype=np.intp)
    fold[rng.permutation(n_items)] = np.repeat(np.arange(n_splits), sizes)
    return fold
