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

import numpy as np

__all__ = [
    "as_exact_integers",
    "exact_dot",
    "exact_sum",
    "is_constant",
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


def is_constant(x: np.ndarray) -> bool:
    return bool(x.min() == x.max())


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
