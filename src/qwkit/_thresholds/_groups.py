"""The threshold search's sufficient statistic: per distinct score, per true label, the
summed weight (:class:`PairGroups`), mergeable exactly.

Weights are exact: float64 whole numbers (unit weights, counts) or :class:`ExactRows`
(survey weights), so pieces merged in any order — chunk by chunk, across processes or a
cluster — give the same groups, and so the same cut points, to the last bit. The groups
are small (one entry per distinct score and label) and pickle with the standard library.
"""

from __future__ import annotations

import math

import numpy as np

from qwkit import _kernels
from qwkit._base._dyadic import ExactRows, exact_cell_sums
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import ItemWeights
from qwkit._base._numerics import nan_max
from qwkit._base._scale import Labels
from qwkit._table._state import check_same_labels
from qwkit._table._sufficient import exact_table_kappa, kappa_from_table, rounded_table

__all__ = ["PairGroups"]


class PairGroups:
    """The threshold search's sufficient statistic: per distinct score, per true label,
    the summed weight — sorted by score, labels increasing within a score.

    One entry per pair: ``pair_score``, ``pair_code`` and ``pair_weight``; weights are
    exact: float64 whole numbers (unit weights, counts) or :class:`ExactRows` (survey
    weights). ``max_pairs`` bounds the memory.
    """

    __slots__ = ("k", "labels", "max_pairs", "pair_code", "pair_score", "pair_weight", "wpos_max")

    def __init__(self, labels: Labels, k: int, *, max_pairs: int):
        self.labels = labels
        self.k = k
        self.max_pairs = max_pairs
        self.pair_score = np.empty(0)
        self.pair_code = np.empty(0, dtype=np.int64)
        self.pair_weight: np.ndarray | ExactRows = np.empty(0)
        self.wpos_max = math.nan

    @property
    def n_pairs(self) -> int:
        return int(self.pair_code.shape[0])

    @property
    def survey(self) -> bool:
        return isinstance(self.pair_weight, ExactRows)

    def add_items(self, codes: np.ndarray, scores: np.ndarray, iw: ItemWeights) -> None:
        """Aggregate items (positions of the true labels, finite scores) into pairs."""
        w = iw.as_float()
        if w is not None:  # zero weight = dropped row, also for where cut points land
            kept = w > 0
            codes, scores, w = codes[kept], scores[kept], w[kept]
        if codes.shape[0] == 0:
            return
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        distinct = _distinct_scores(scores)
        if distinct is not None:
            ids, values, rank_of_id = distinct
            cells = values.shape[0] * self.k  # the table is no larger than the items
            if cells * (SURVEY_TABLE_RATIO if iw.survey else 1) <= codes.shape[0]:
                self._add_table(ids, values, rank_of_id, codes, w, iw.survey)
                return
            order, group_first = _kernels.counting_order(ids, rank_of_id)
        else:
            order, group_first, values = _sorted_groups(scores)
        if iw.survey:  # the pairs of the sorted items, their weights summed exactly
            pair, pair_code, group_start = _kernels.pair_ids(codes, order, group_first, self.k)
            weight = exact_cell_sums(pair, w[order], pair_code.shape[0], squares=False)[0]
            self.wpos_max = nan_max(self.wpos_max, float(w.max()))
        else:
            ones = np.ones(codes.shape[0]) if w is None else w
            pair_code, weight, group_start = _kernels.aggregate_pairs(
                codes, ones, order, group_first, self.k
            )
        self._combine(np.repeat(values, np.diff(group_start)), pair_code, weight)

    def _add_table(self, ids, values, rank_of_id, codes, w, survey: bool) -> None:
        """Aggregate items with few distinct scores through the (score, label) table:
        one pass, no sort."""
        if survey:
            cell = rank_of_id[ids] * self.k + codes
            sums, _, positive = exact_cell_sums(cell, w, values.shape[0] * self.k, squares=False)
            present = np.flatnonzero(positive)  # by score, labels increasing within a score
            self.wpos_max = nan_max(self.wpos_max, float(w.max()))
            self._combine(values[present // self.k], present % self.k, sums.take(present))
            return
        unit = np.empty(0) if w is None else w
        table = _kernels.pair_table(ids, rank_of_id, codes, unit, self.k)
        rows, cols = np.nonzero(table)  # by score, labels increasing within a score
        self._combine(values[rows], cols.astype(np.int64), table[rows, cols])

    def kappa_of(self, classes: np.ndarray, group_start: np.ndarray, wmat, *, named: bool):
        """Kappa of an assignment of the distinct scores to ``classes`` (survey weights):
        the true × assigned table from the exact pair sums — exactly, with named
        weights (eq. 1 in integers), else on the table rounded once per cell."""
        k = self.k
        assigned = np.repeat(classes, np.diff(group_start))
        table = self.pair_weight.reduce(self.pair_code * k + assigned, k * k)
        if named:
            return exact_table_kappa(table, wmat, np.nan)
        return float(kappa_from_table(rounded_table(table, k), wmat, np.nan))

    def _combine(self, scores: np.ndarray, codes: np.ndarray, weight) -> None:
        if self.n_pairs:
            scores, codes, weight = _merge_pairs(
                (self.pair_score, self.pair_code, self.pair_weight), (scores, codes, weight)
            )
        if codes.shape[0] > self.max_pairs:
            raise QwkitError(
                f"The scores make more than {self.max_pairs:,} distinct (score, true rating) "
                f"pairs ({codes.shape[0]:,} so far); the exact search keeps every pair in "
                "one process. Round `y_score` (e.g. to 4 decimals) to bound the number of "
                "distinct scores, or raise `max_pairs` if the memory allows (about "
                f"{_pair_bytes(weight)} bytes per pair).",
                parameter="y_score",
            )
        self.pair_score, self.pair_code, self.pair_weight = scores, codes, weight

    def merge(self, other: PairGroups) -> PairGroups:
        if not isinstance(other, PairGroups):
            raise QwkitTypeError(
                f"`other` must be of the same kind; got {type(other).__name__}.",
                parameter="other",
            )
        check_same_labels(self.labels, other.labels, "labels")
        if other.n_pairs:
            self._combine(other.pair_score, other.pair_code, other.pair_weight)
        self.wpos_max = nan_max(self.wpos_max, other.wpos_max)
        return self

    def groups(self):
        """(distinct scores, pair_code, pair_weight, group_start, label margin h), all
        float64 — survey weights rounded once, after scaling by the power of two that
        puts the largest weight in [1, 2) (kappa does not change; no sum can overflow)."""
        s = self.pair_score
        new = np.empty(s.shape[0], dtype=bool)
        if s.shape[0]:
            new[0] = True
            np.not_equal(s[1:], s[:-1], out=new[1:])
        first = np.flatnonzero(new)
        group_start = np.append(first, s.shape[0]).astype(np.int64)
        if self.survey:
            shift = 1 - int(np.frexp(self.wpos_max)[1])
            weight = self.pair_weight.to_float(shift)
            h = self.pair_weight.reduce(self.pair_code, self.k).to_float(shift)
        else:
            weight = np.asarray(self.pair_weight, dtype=np.float64)
            h = np.bincount(self.pair_code, weights=weight, minlength=self.k)
        return s[first], self.pair_code, weight, group_start, h

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)


def _pair_bytes(weight) -> int:
    return 16 + (8 * weight.limbs.shape[1] if isinstance(weight, ExactRows) else 8)


#: With survey weights a (score, label) table is counted while it has at most one cell
#: in SURVEY_TABLE_RATIO items (its exact sums take 80 bytes a cell while counted).
SURVEY_TABLE_RATIO = 8

#: Below this many items the scores are simply sorted.
HASH_MIN_ITEMS = 1 << 12


#: The hash path is tried while the distinct scores are at most n / HASH_RATIO (and at
#: most HASH_MAX_DISTINCT); beyond, sorting the items is as fast.
HASH_RATIO = 4


HASH_MAX_DISTINCT = 1 << 21


def _distinct_scores(scores: np.ndarray):
    """(ids, values, rank_of_id) when the scores take few distinct values (rounded
    scores, averaged ratings): each item's id of its score (one hashing pass, O(n)),
    the distinct scores sorted (−0.0 and 0.0 are one score, +0.0), and the rank of each
    id among them. None for few items, or when the distinct scores turn out to be many
    (then sorting the items is as fast)."""
    n = scores.shape[0]
    if n < HASH_MIN_ITEMS:
        return None
    bits = (np.asarray(scores, dtype=np.float64) + 0.0).view(np.uint64)  # −0.0 → +0.0
    head = bits[:HASH_MIN_ITEMS]
    if not _kernels.distinct_ids(head, head.shape[0] // HASH_RATIO)[2]:
        return None  # the first items already have many distinct scores: sort
    limit = min(n // HASH_RATIO, HASH_MAX_DISTINCT)
    ids, distinct, ok = _kernels.distinct_ids(bits, limit)
    if not ok:
        return None
    values = distinct.view(np.float64)
    by_value = np.argsort(values)
    rank_of_id = np.empty(values.shape[0], dtype=np.int64)
    rank_of_id[by_value] = np.arange(values.shape[0])
    return ids, values[by_value], rank_of_id


def _sorted_groups(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, group_first, values): the items sorted by score (O(n log n)), where each
    distinct score's items start in that order (length m + 1), and the distinct scores."""
    order = np.argsort(scores)
    s = scores[order]
    new_score = np.empty(s.shape[0], dtype=bool)
    new_score[0] = True
    np.not_equal(s[1:], s[:-1], out=new_score[1:])  # -0.0 and 0.0 are one score
    first = np.flatnonzero(new_score)
    group_first = np.append(first, s.shape[0]).astype(np.int64)
    return order, group_first, s[first] + 0.0  # one zero: +0.0


def _merge_pairs(a, b):
    """Union of two sorted pair lists, equal (score, label) pairs summed exactly."""
    sa, ca, wa = a
    sb, cb, wb = b
    survey = isinstance(wa, ExactRows) or isinstance(wb, ExactRows)
    if survey:
        wa = wa if isinstance(wa, ExactRows) else _float_rows(wa)
        wb = wb if isinstance(wb, ExactRows) else _float_rows(wb)
    scores = np.concatenate([sa, sb])
    codes = np.concatenate([ca, cb])
    order = np.lexsort((codes, scores))
    scores, codes = scores[order], codes[order]
    new = np.empty(scores.shape[0], dtype=bool)
    new[0] = True
    new[1:] = (scores[1:] != scores[:-1]) | (codes[1:] != codes[:-1])
    slot = np.cumsum(new) - 1
    n_out = int(slot[-1]) + 1
    if survey:
        exponent = min(wa.exponent, wb.exponent)
        top = max(wa.top_exponent(), wb.top_exponent())
        n_limbs = (top - exponent + 31) // 32 + 1
        la, lb = wa.aligned(exponent, n_limbs), wb.aligned(exponent, n_limbs)
        width = max(la.shape[1], lb.shape[1])
        limbs = np.concatenate([_pad_to(la, width), _pad_to(lb, width)])
        weight = ExactRows(limbs[order], exponent).reduce(slot, n_out)
    else:
        weight = np.zeros(n_out)
        np.add.at(weight, slot, np.concatenate([wa, wb])[order])  # whole numbers: exact
    return scores[new], codes[new], weight


def _pad_to(limbs: np.ndarray, width: int) -> np.ndarray:
    if limbs.shape[1] >= width:
        return limbs
    out = np.zeros((limbs.shape[0], width), dtype=np.int64)
    out[:, : limbs.shape[1]] = limbs
    return out


def _float_rows(w: np.ndarray) -> ExactRows:
    """Whole-number float weights (unit weights, counts) as exact rows."""
    return ExactRows.from_integers(np.asarray(w).astype(np.int64))
