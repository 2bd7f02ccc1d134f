"""Validate what the judge's calibration and the human-scale estimates read: human
ratings of the labelled items (one per item, or items × raters with NaN for "not
rated") on one scale, and the judge's scores (one real number per item, or an items ×
score-points matrix of probabilities), paired by item labels when they carry them.

Human ratings become *positions* on the scale (what kappa's weights read) and *values*
(what means read): the numbers themselves for a numeric scale, the positions 1 … K for
text ratings (the documented convention of the package). A judge's probability matrix
becomes its expected score on its own scale points (eq. C0 of ``docs/calibration.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._scale import positions_on_scale, prepare_labels, rating_matrix
from qwkit._base._validation import as_1d, as_real_array, check_finite, show

__all__ = [
    "PROBABILITY_TOLERANCE",
    "Human",
    "Judge",
    "check_groups",
    "prepare_human",
    "prepare_judge",
]

#: How far from 1 a row of probabilities may sum (rounding of stored probabilities).
PROBABILITY_TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True, eq=False)
class Human:
    """Human ratings of n items: one entry per rating (its item and position)."""

    codes: np.ndarray  # int64 (n_ratings,): position of each rating on the scale
    item: np.ndarray  # intp (n_ratings,): the item of each rating, 0 … n_items − 1
    n_items: int
    scale: np.ndarray  # the labels, in order
    values: np.ndarray  # float64 (K,): the value of each label (text: 1 … K)
    on_values: bool  # False: text ratings, whose positions 1 … K stand in

    @property
    def k(self) -> int:
        return int(self.scale.shape[0])

    @property
    def n_ratings(self) -> int:
        return int(self.codes.shape[0])

    def counts(self) -> np.ndarray:
        """Ratings per item, float64 (n_items,)."""
        return np.bincount(self.item, minlength=self.n_items).astype(np.float64)

    def item_means(self) -> np.ndarray:
        """Each item's mean rating value, float64 (n_items,)."""
        sums = np.bincount(self.item, weights=self.values[self.codes], minlength=self.n_items)
        return sums / self.counts()

    def item_fractions(self) -> np.ndarray:
        """Each item's share of ratings in each category, float64 (n_items, K)."""
        k = self.k
        table = np.bincount(self.item * k + self.codes, minlength=self.n_items * k)
        return table.reshape(self.n_items, k) / self.counts()[:, None]


@dataclass(frozen=True, slots=True, eq=False)
class Judge:
    """A judge's scores of n items: real numbers, or the expected score of its
    probabilities (``proba``) over its scale points (``points``)."""

    scores: np.ndarray  # float64 (n,)
    proba: np.ndarray | None  # float64 (n, M), rows summing to 1
    points: np.ndarray | None  # float64 (M,), increasing


def _is_2d(values) -> bool:
    if hasattr(values, "ndim"):
        return values.ndim == 2
    if hasattr(values, "columns") or isinstance(values, dict):
        return True
    if isinstance(values, (list, tuple)) and values:
        return isinstance(values[0], (list, tuple, np.ndarray))
    return False


def prepare_human(human, labels, name: str) -> Human:
    """Validate human ratings (1-D, or items × raters with NaN for "not rated")."""
    if labels is not None:
        labels = prepare_labels(labels).values
    if _is_2d(human):
        m = rating_matrix(human, name)
        n, n_raters = m.shape
        if n_raters == 0 or m.values.size == 0:
            raise QwkitError(f"`{name}` holds no rating; got shape {m.shape}.", parameter=name)
        rated = m.present.any(axis=1)
        if not rated.all():
            row = int(np.flatnonzero(~rated)[0])
            raise QwkitError(
                f"`{name}` has no rating for the item in row {row}; every labelled item needs "
                "at least one (an item without a human rating belongs to the unlabelled "
                "items).",
                parameter=name,
                row=row,
            )
        if labels is None and m.declared is not None:
            labels = m.declared
        flat = m.values
        item = np.nonzero(m.present)[0].astype(np.intp)
    else:
        flat = human
        item = None
        n = None
    codes, scale = positions_on_scale(flat, labels, name)
    if item is None:
        n = int(codes.shape[0])
        item = np.arange(n, dtype=np.intp)
    if n == 0:
        raise QwkitError(f"`{name}` holds no rating; got 0 items.", parameter=name)
    on_values = scale.dtype.kind in "biuf"
    values = scale.astype(np.float64) if on_values else np.arange(1.0, scale.shape[0] + 1)
    return Human(
        codes=codes,
        item=item,
        n_items=int(codes.shape[0]) if n is None else n,
        scale=scale,
        values=values,
        on_values=on_values,
    )


def _points(judge_labels, m: int, name: str) -> np.ndarray:
    if judge_labels is None:
        return np.arange(1.0, m + 1.0)
    pts = as_real_array(judge_labels, "judge_labels")
    if pts.ndim != 1 or pts.shape[0] != m:
        raise QwkitError(
            f"`judge_labels` must give one value to each of the {m} columns of `{name}`; got "
            f"shape {pts.shape}.",
            parameter="judge_labels",
        )
    if not np.all(np.isfinite(pts)) or np.any(np.diff(pts) <= 0):
        raise QwkitError(
            f"`judge_labels` must be finite and increasing (the judge's ordered scale); got "
            f"{show(pts)}.",
            parameter="judge_labels",
        )
    return pts


def prepare_judge(judge, judge_labels, name: str) -> Judge:
    """Validate a judge's scores: 1-D real numbers, or items × scale points of
    probabilities (non-negative, each row summing to 1), turned into expected scores."""
    arr = as_real_array(judge, name)
    if arr.ndim == 1:
        if judge_labels is not None:
            raise QwkitError(
                f"`judge_labels` names the columns of a probability matrix; `{name}` is one "
                "score per item.",
                parameter="judge_labels",
            )
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise QwkitError(
                f"`{name}` has no finite score ({arr[i]}) for the item at index {i}; every "
                "item needs the judge's score (score it, or leave it out: the items the "
                "judge failed on are seldom a random sample).",
                parameter=name,
                row=i,
            )
        return Judge(scores=arr, proba=None, points=None)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise QwkitError(
            f"`{name}` must be one score per item, or an items × scale-points matrix of "
            f"probabilities (at least two columns); got shape {arr.shape}.",
            parameter=name,
        )
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise QwkitError(
            f"`{name}` holds {arr[i, j]} at row {i}, column {j}; probabilities must be "
            "finite and non-negative.",
            parameter=name,
            row=i,
        )
    sums = arr.sum(axis=1)
    off = np.abs(sums - 1.0) > PROBABILITY_TOLERANCE
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise QwkitError(
            f"`{name}`: the probabilities of row {i} sum to {sums[i]:.6g}, not 1 "
            f"({int(off.sum())} of {arr.shape[0]} rows do not). If the rest of the mass "
            "went to answers off the scale, divide each row by its sum.",
            parameter=name,
            row=i,
        )
    pts = _points(judge_labels, arr.shape[1], name)
    return Judge(scores=arr @ pts, proba=arr, points=pts)  # (eq. C0)


def check_groups(groups, n: int, name: str, items: str) -> np.ndarray | None:
    """One group per item (numbers or text, no missing value)."""
    if groups is None:
        return None
    arr = as_1d(groups, name)
    if arr.shape[0] != n:
        raise QwkitError(
            f"`{name}` must hold one group per {items} ({n}); got {arr.shape[0]}.",
            parameter=name,
        )
    check_finite(arr, name)
    return arr
