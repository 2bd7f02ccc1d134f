"""Dinkelbach's method: the exact minimum of a ratio N(x)/D(x) over a finite set.

Both kappa maximizations of qwkit — cut points with the true ratings known
(``_thresholds``) and decisions from class probabilities (``_decision``) — minimize
1 − κ = N(x)/D(x), a ratio of two sums of per-item terms, over a finite set of
assignments x. Dinkelbach (1967): from a feasible x₀ with D > 0 and λ₀ = N(x₀)/D(x₀),
repeatedly solve

    x_{t+1} = argmin_x N(x) − λ_t·D(x),   λ_{t+1} = N(x_{t+1})/D(x_{t+1})        (eq. T4)

exactly; λ strictly decreases, so no x repeats and the method stops, and it stops only
when min_x N(x) − λ·D(x) = 0 — which proves that no x has a smaller ratio: the global
minimum (``docs/thresholds.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from qwkit._base._warnings import ConvergenceWarning, warn

__all__ = ["FractionalResult", "minimize_ratio"]

#: The iterations are finite (the set is finite) and in practice a handful; this cap
#: only guards against an unforeseen floating-point cycle.
MAX_ITER = 200


@dataclass(frozen=True, slots=True)
class FractionalResult:
    """The minimizer, its ratio λ*, the number of subproblems solved, and the optimality
    gap −min_x [N(x) − λ*·D(x)] (0 up to rounding at a certified optimum; nan if the
    method did not converge)."""

    solution: Any
    ratio: float
    n_iterations: int
    gap: float


def minimize_ratio(
    starts: Iterable,
    ratio: Callable[[Any], tuple[float, float]],
    solve: Callable[[float], Any],
    *,
    what: str,
) -> FractionalResult:
    """Minimize N(x)/D(x) by Dinkelbach's method (eq. T4).

    Parameters
    ----------
    starts : iterable
        Feasible assignments; the best one with D > 0 starts the method (at least one
        must have D > 0).
    ratio : callable
        ``ratio(x) -> (N, D)``.
    solve : callable
        ``solve(λ) -> x`` minimizing N(x) − λ·D(x) exactly over the whole set.
    what : str
        What the assignments are, for the warning if the method does not converge.
    """
    best: tuple[float, Any] | None = None
    for x in starts:
        num, den = ratio(x)
        if den > 0 and (best is None or num / den < best[0]):
            best = (num / den, x)
    assert best is not None, "no start with a positive denominator"
    lam, x = best
    for step in range(1, MAX_ITER + 1):
        new = solve(lam)  # (eq. T4)
        num, den = ratio(new)
        if den > 0 and num / den < lam:
            lam, x = num / den, new
            continue
        # −min_x N − λ*·D = 0 certifies optimality (eq. T7)
        return FractionalResult(x, float(lam), step, max(0.0, lam * den - num))
    warn(
        f"Dinkelbach's method did not converge in {MAX_ITER} steps; the {what} are "
        "feasible but not certified optimal.",
        ConvergenceWarning,
    )
    return FractionalResult(x, float(lam), MAX_ITER, math.nan)
