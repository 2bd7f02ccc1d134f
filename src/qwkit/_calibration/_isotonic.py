"""Isotonic regression by pool-adjacent-violators, in numpy (eq. C2 of
``docs/calibration.md``), and the cut points of its curve (eq. C3).

PAV on m points sorted by x: while two adjacent blocks violate the order (the mean of
the left one above the mean of the right one), pool them. Any order of pooling reaches
the same, unique, solution (Barlow, Bartholomew, Bremner & Brunk 1972); here every run
of consecutive violators is pooled at once, one vectorized pass per round, so the rounds
are few (each pools at least one pair, and in practice many).
"""

from __future__ import annotations

import numpy as np

__all__ = ["curve_cut_points", "pava"]


def pava(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The non-decreasing fit minimizing Σ wᵢ (yᵢ − mᵢ)² (eq. C2), for y sorted by x and
    positive weights w."""
    m = y.shape[0]
    sums = y * w
    weights = w.astype(np.float64, copy=True)
    starts = np.arange(m)
    while True:
        means = sums / weights
        violates = means[:-1] > means[1:]
        if not violates.any():
            break
        opens = np.ones(means.shape[0], dtype=bool)  # a block that starts a pooled one
        opens[1:] = ~violates
        first = np.flatnonzero(opens)
        sums = np.add.reduceat(sums, first)
        weights = np.add.reduceat(weights, first)
        starts = starts[first]
    lengths = np.diff(np.append(starts, m))
    return np.repeat(sums / weights, lengths)


def curve_cut_points(x: np.ndarray, y: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Cut points of the classes of the nearest label along a non-decreasing curve.

    The curve is linear between its points (x increasing, y non-decreasing) and flat
    beyond them; class j + 1 starts where the curve rises above the midpoint between the
    values of labels j and j + 1 (eq. C3): cut point t_j is the largest score whose curve
    value is at most that midpoint (−inf when none is, +inf when all are), so that the
    classes of :func:`qwkit.apply_thresholds` (s ≤ t_j: class ≤ j) are the nearest labels.
    """
    mids = values[:-1] / 2 + values[1:] / 2
    out = np.empty(mids.shape[0])
    for j, mid in enumerate(mids):
        a = int(np.searchsorted(y, mid, side="right"))  # points with y ≤ mid: 0 … a − 1
        if a == 0:
            out[j] = -np.inf
        elif a == y.shape[0]:
            out[j] = np.inf
        else:  # y[a − 1] ≤ mid < y[a]: the curve crosses mid on (x[a − 1], x[a]]
            x0, x1, y0, y1 = x[a - 1], x[a], y[a - 1], y[a]
            out[j] = x0 + (mid - y0) / (y1 - y0) * (x1 - x0)  # (eq. C3)
    return out
