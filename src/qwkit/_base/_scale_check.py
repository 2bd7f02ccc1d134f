"""Does an inferred integer scale look like a rating scale, or like ratings with codes?

Without ``labels`` the scale of integer ratings is every integer from the smallest to
the largest rating. A missing-value code — 99 for "not rated", −1 for a failed LLM
judgement — then enters the statistics as a rating far from the others and stretches
the scale (so Gwet's and Brennan–Prediger's chance terms count categories that no one
used): a code in 2 of 12 rows takes quadratic kappa from 0.89 to 0.03. This module
decides, from a *sketch* of the ratings — their few smallest and largest distinct values
— whether some look like such codes, and says so with a :class:`ScaleWarning`.

The sketch costs no pass of its own: the pass that measures the scale finds it
(:func:`sketch_columns`, the kernel ``distinct_extremes`` in place of a min/max), a
table or a list of the categories that occur shows it (:func:`sketch_values`), and
ratings known to lie within 22 non-negative integers need none (no rule can fire
there, :func:`may_fire`).

The rule (``docs/kappa.md``, "Missing-value codes"; measured rates there):

* **A, an outlying value**: at most two distinct values at one end (or at each end) of
  the ratings, separated from the others by a run of unused integers at least
  ``MIN_GAP`` (20) long and at least twice as long as the others span (99 or 98 and 99
  among 1..5; 999; −99). Lengths are counted in steps of the grid the others lie on (the
  gcd of their differences: 10 for ratings 0, 10, ..., 100).
* **B, negative codes**: one or two distinct negative values beside at least three
  more non-negative ones, when the largest rating M reaches 2c + 2 (c: the magnitude of
  the most negative one), or an unused integer separates the negative from the
  non-negative ratings and M > c, or the unused run between them is at least as long as
  the non-negative ratings span (−1 among 1..5, 0..4 or 0..10; −9 among 1..5 or 0..10;
  −1 and −2 among 1..5). A symmetric scale whose sample shows few negative ratings is
  what these conditions spare, as far as they can; a positive value among negative
  ratings is no code.
* **C, a sparse wide scale** (only where the number of categories enters the
  coefficient — Gwet's AC, Brennan–Prediger): 16 or more categories of which at most
  half occur, among at least twice as many ratings as categories.

A and B need a negative rating or a span of 23 integers: ratings in 0..21 — almost
every rating scale — never warn, whatever their sample size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qwkit import _kernels
from qwkit._base._warnings import ScaleWarning, warn

__all__ = [
    "MIN_GAP",
    "SKETCH",
    "Sketch",
    "check_occurring",
    "check_sparse",
    "may_fire",
    "merge_sketches",
    "sketch_columns",
    "sketch_values",
    "warn_codes",
]

#: How many smallest and largest distinct values a sketch keeps.
SKETCH = 4
#: Rule A: the shortest run of unused integers that sets a value apart.
MIN_GAP = 20
#: Rule C: the narrowest scale that may be called sparse.
SPARSE_MIN = 16


@dataclass(frozen=True, slots=True)
class Sketch:
    """The ``SKETCH`` smallest and largest distinct ratings (Python ints, ascending)."""

    low: tuple[int, ...]
    high: tuple[int, ...]

    @property
    def values(self) -> list[int]:
        return sorted(set(self.low) | set(self.high))

    @property
    def complete(self) -> bool:
        """Whether the sketch holds every distinct rating (fewer than 2·SKETCH)."""
        return len(self.values) < 2 * SKETCH


def sketch_values(distinct) -> Sketch:
    """The sketch of the sorted distinct ratings (e.g. the categories that occur)."""
    d = [int(v) for v in distinct]
    return Sketch(tuple(d[:SKETCH]), tuple(d[-SKETCH:]))


def merge_sketches(sketches) -> Sketch:
    """The sketch of the union of the ratings that ``sketches`` describe."""
    low = sorted({v for sk in sketches for v in sk.low})[:SKETCH]
    high = sorted({v for sk in sketches for v in sk.high})[-SKETCH:]
    return Sketch(tuple(low), tuple(high))


def sketch_columns(columns) -> Sketch:
    """The sketch of integer rating columns: one pass of ``distinct_extremes`` each."""
    low = np.zeros(SKETCH, dtype=np.int64)
    high = np.zeros(SKETCH, dtype=np.int64)
    n_low = n_high = 0
    for x in columns:
        if x.shape[0]:
            n_low, n_high = _kernels.distinct_extremes(x, low, high, n_low, n_high)
    return Sketch(tuple(int(v) for v in low[:n_low]), tuple(int(v) for v in high[:n_high][::-1]))


def check_occurring(offset: int, present: np.ndarray) -> None:
    """Rules A and B on the categories that occur: ``present`` marks the positions (from
    ``offset``) of a table's margins or of a histogram that hold a rating."""
    used = np.flatnonzero(present)
    if used.size and may_fire(offset + int(used[0]), offset + int(used[-1])):
        warn_codes(sketch_values(offset + used))


def may_fire(lo: int, hi: int) -> bool:
    """Whether rule A or B can fire on ratings within [lo, hi]: only with a negative
    rating or a span of 23 integers or more (two ratings, then ``MIN_GAP`` unused)."""
    return lo < 0 or hi - lo >= MIN_GAP + 2


def _step(values) -> int:
    """The grid the ratings lie on: the gcd of their differences (1 for most scales,
    10 for 0, 10, ..., 100). Gaps are counted in steps of it, so that 0, 25 and 100
    (a scale by 25 whose 50 and 75 did not occur) are not called apart. Known from
    some of the values only, it is a multiple of the true step: never more warnings."""
    return math.gcd(*(v - values[0] for v in values[1:])) or 1


def _outlying_ends(sk: Sketch):
    """Rule A: (values set apart at the low end, at the high end, the gap, the others'
    bounds) for the fewest values removed; None when no end stands apart."""
    d = sk.values
    m = len(d) if sk.complete else None  # None: at least 2·SKETCH distinct values
    low, high = sk.low, sk.high[::-1]  # high: descending
    for removed in (1, 2, 3, 4):
        for o_low in range(0, min(2, removed) + 1):
            o_high = removed - o_low
            if o_high > 2:
                continue
            rest = None if m is None else m - removed
            if rest is not None and (rest < 2 or rest <= removed):
                continue
            first, last = low[o_low], high[o_high]  # the rest's extremes
            step = _step([v for v in d if first <= v <= last])
            need = max(MIN_GAP, 2 * ((last - first) // step + 1))  # in steps
            gaps = []  # unused integers between each end and the rest
            if o_low:
                gaps.append(first - low[o_low - 1] - 1)
            if o_high:
                gaps.append(high[o_high - 1] - last - 1)
            if all((g + 1) / step - 1 >= need for g in gaps):
                return list(low[:o_low]), list(high[:o_high][::-1]), min(gaps), (first, last)
    return None


def _negative_codes(sk: Sketch, drop: set[int]):
    """Rule B on the values not set apart by rule A: (the negative codes, the bounds of
    the non-negative ratings) or None."""
    d = [v for v in sk.values if v not in drop]
    complete = sk.complete
    negatives = [v for v in d if v < 0]
    if not negatives or len(negatives) > 2 or (not complete and len(negatives) >= SKETCH):
        return None
    n_pos = len(d) - len(negatives) if complete else None  # None: many
    if n_pos is not None and n_pos < len(negatives) + 3:
        return None
    step = _step(d)  # in steps of the grid, as rule A
    first = d[len(negatives)]  # the smallest non-negative rating
    top, c = d[-1] / step, -negatives[0] / step
    unused = (first - negatives[-1]) / step - 1
    if top >= 2 * c + 2 or (unused >= 1 and top > c) or unused >= top - first / step + 1:
        return negatives, (first, d[-1])
    return None


def _listed(values: list[int]) -> str:
    """``[1, 2, 3]`` → ``"1, 2 and 3"``."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def warn_codes(sk: Sketch) -> bool:
    """Warn (:class:`ScaleWarning`) when rule A or B finds codes; whether it did."""
    ends = _outlying_ends(sk)
    drop: set[int] = set()
    reasons = []
    found: list[int] = []
    if ends is not None:
        below, above, gap, (first, last) = ends
        apart = below + above
        drop = set(apart)
        found += apart
        reasons.append(
            f"{_listed(apart)} {'lies' if len(apart) == 1 else 'lie'} {gap} or more unused "
            f"integers away from the other ratings ({first}..{last})"
        )
    negative = _negative_codes(sk, drop)
    if negative is not None:
        codes, (first, top) = negative
        found = sorted(set(found) | set(codes))
        only = "is the only negative rating" if len(codes) == 1 else "are the only negative ratings"
        reasons.append(f"{_listed(codes)} {only} beside ratings {first}..{top}")
    if not found:
        return False
    values = sk.values
    lo, hi = values[0], values[-1]
    plural = len(found) > 1
    warn(
        f"The rating scale was inferred as the integers {lo}..{hi} ({hi - lo + 1} "
        f"categories) because of {_listed(sorted(found))}, which look{'' if plural else 's'} "
        f"like {'missing-value codes' if plural else 'a missing-value code'}: "
        f"{'; '.join(reasons)}. A code is not a rating: drop the items that carry it. If "
        f"{'they are ratings' if plural else 'it is a rating'}, pass `labels` with the "
        "whole scale to say so.",
        ScaleWarning,
    )
    return True


def check_sparse(n_used: int, n_ratings: int, lo: int, n_classes: int, coefficient: str) -> None:
    """Rule C: a coefficient whose chance term counts every category of a wide inferred
    scale of which at most half occur, although there are at least twice as many
    ratings as categories (fewer ratings leave a scale half empty by chance)."""
    if n_classes >= SPARSE_MIN and 2 * n_used <= n_classes and n_ratings >= 2 * n_classes:
        warn(
            f"The chance agreement of {coefficient} counts all {n_classes} categories of "
            f"the inferred rating scale {lo}..{lo + n_classes - 1}, of which only {n_used} "
            "occur. Pass `labels` with the categories of the scale (every integer "
            f"from {lo} to {lo + n_classes - 1} if that is the scale).",
            ScaleWarning,
        )
