"""Numerical helpers shared by the features: exact power-of-two rescaling and exact
integer arithmetic.

Scaling by a power of two is exact in floating point, and every statistic of qwkit is
invariant to multiplying all item weights (or a weight matrix) by one positive factor;
so weights are brought to a safe range — no sum can overflow, no product underflow —
without changing a single result. Integer tables and weights are combined in exact
integer arithmetic (int64 while it cannot overflow, Python integers beyond), so that a
ratio of two exact integers is rounded once, correctly.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from qwkit._base._errors import QwkitError

__all__ = [
    "CenteredMoments",
    "as_exact_integers",
    "centered_moments",
    "exact_dot",
    "exact_sum",
    "nan_max",
    "nan_min",
    "to_unit_max",
    "unit_factors",
    "unit_scale",
]

_INT64_LIMIT = 2**63


def unit_factors(top: float) -> tuple[float, ...]:
    """Two powers of two whose product brings ``top`` (≥ 0) to [½, 1) (none for 0).

    Two steps, so that the factor itself cannot overflow for subnormal maxima.
    """
    if not top > 0.0:
        return ()
    e = int(np.frexp(top)[1])
    return np.ldexp(1.0, -(e // 2)), np.ldexp(1.0, -(e - e // 2))


def unit_scale(x: np.ndarray) -> np.ndarray:
    """``x`` (non-negative floats) times a power of two that brings its maximum to [½, 1).

    Exact (integer counts stay exact); afterwards no product or sum of the entries can
    underflow or overflow. Modifies and returns ``x``.
    """
    for factor in unit_factors(float(x.max()) if x.size else 0.0):
        x *= factor
    return x


def to_unit_max(w: np.ndarray) -> tuple[np.ndarray, int]:
    """(w·2^shift, shift): positive weights times the power of two (exact) that puts the
    largest in [1, 2). A new array; ``w`` is not modified."""
    shift = 1 - int(np.frexp(w.max())[1])
    return np.ldexp(w, shift), shift


def nan_min(a: float, b: float) -> float:
    """The smaller of two floats, a nan standing for "none yet"."""
    return b if math.isnan(a) else (a if math.isnan(b) else min(a, b))


def nan_max(a: float, b: float) -> float:
    """The larger of two floats, a nan standing for "none yet"."""
    return b if math.isnan(a) else (a if math.isnan(b) else max(a, b))


def as_exact_integers(x: np.ndarray) -> np.ndarray | None:
    """An array of whole numbers as int64 (exactly), or None when an entry is not a whole
    number or does not fit in int64."""
    if x.dtype.kind in "iub":
        if x.dtype.kind == "u" and x.size and int(x.max()) >= _INT64_LIMIT:
            return None
        return x.astype(np.int64, copy=False)
    if x.dtype.kind != "f" or not np.all(x == np.floor(x)):
        return None
    if x.size and not (np.abs(x).max() < 2.0**63):
        return None
    return x.astype(np.int64)


def _fits(bound: int) -> bool:
    return bound < _INT64_LIMIT


def exact_sum(x: np.ndarray) -> int:
    """Σ x of an int64 array, exactly (as a Python integer)."""
    if x.size == 0:
        return 0
    big = int(np.abs(x).max())
    if _fits(big * x.size):
        return int(x.sum())
    return sum(int(v) for v in x.tolist())


def exact_dot(a: np.ndarray, b: np.ndarray) -> int | np.ndarray:
    """``a @ b`` of int64 arrays (vector·vector, matrix·vector or vector·matrix), exact.

    int64 when the result cannot overflow (every term and partial sum bounded by
    max|a|·max|b|·n), Python integers (object arrays) otherwise.
    """
    n = a.shape[-1]
    if n == 0:
        return 0 if a.ndim == b.ndim == 1 else np.zeros(0, dtype=np.int64)
    top = int(np.abs(a).max()) * int(np.abs(b).max()) * n
    if _fits(top):
        out = a @ b
        return int(out) if np.ndim(out) == 0 else out
    out = a.astype(object) @ b.astype(object)
    return int(out) if np.ndim(out) == 0 else out


# ---------------------------------------------------------------------------- centered moments


class CenteredMoments(NamedTuple):
    """Centered data scaled by 2**shift (shift chosen so that the largest is in [½, 1)):
    the sums of the soft kappa loss and its derivatives (docs/training.md, T1–T13)."""

    w: np.ndarray  # weights scaled by a power of two (ratios unchanged)
    total: float  # Σw of the scaled weights
    dy: np.ndarray  # y − ȳ, scaled
    df: np.ndarray  # f − f̄, scaled
    gap: float  # f̄ − ȳ, scaled
    syy: float
    sff: float
    syf: float
    shift: int  # data were multiplied by 2**shift


def centered_moments(y: np.ndarray, f: np.ndarray, w: np.ndarray) -> CenteredMoments:
    """Centered, power-of-two-scaled data and their weighted sums (exact scalings):
    the one computation behind ``kappa_gradient_hessian`` and the boosting objectives.
    ``y`` are the true ratings (``y_true``), ``f`` the predictions, ``w`` item weights."""
    used = w > 0
    y_used = y[used]
    if y_used.min() == y_used.max():
        raise QwkitError(
            f"`y_true` is constant ({y_used[0]:g} for every item of positive weight): κ is "
            "0 for every prediction (0/0 when they match), so 1 − κ has no gradient to "
            "follow. Kappa needs at least two different ratings.",
            parameter="y_true",
        )
    # Weights to [½, 1) and data to at most 1 in magnitude, by powers of two: ratios and
    # κ are unchanged, and neither the centering below nor any square can overflow.
    w = np.ldexp(w, -int(np.frexp(w.max())[1]))
    top = max(float(np.abs(y).max()), float(np.abs(f).max()))
    shift = -int(np.frexp(top)[1])
    y, f = np.ldexp(y, shift), np.ldexp(f, shift)
    total = float(w.sum())
    dy = y - np.dot(w, y) / total
    df = f - np.dot(w, f) / total
    dy -= np.dot(w, dy) / total  # second pass: means exact to rounding
    df -= np.dot(w, df) / total
    gap = float(np.dot(w, f - y)) / total
    # Centered data to [½, 1): their squares can neither underflow nor overflow.
    size = max(float(np.abs(dy).max()), float(np.abs(df).max()), abs(gap))
    extra = -int(np.frexp(size)[1])
    dy, df, gap = np.ldexp(dy, extra), np.ldexp(df, extra), float(np.ldexp(gap, extra))
    return CenteredMoments(
        w=w,
        total=total,
        dy=dy,
        df=df,
        gap=gap,
        syy=float(np.dot(w * dy, dy)),
        sff=float(np.dot(w * df, df)),
        syf=float(np.dot(w * dy, df)),
        shift=shift + extra,
    )
