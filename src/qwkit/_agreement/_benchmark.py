"""Benchmark scales of agreement coefficients, and Gwet's probabilistic benchmarking.

A benchmark scale cuts [−1, 1] into intervals with names (Landis & Koch 1977, Fleiss
1981, Altman 1991). Gwet (2014, ch. 6) replaces "the interval the estimate falls in" by
the interval that holds the coefficient with 95 % certainty: the normal distribution of
the estimate, truncated to [−1, 1], gives each interval a membership probability; from
the top of the scale down they are added up, and the first interval whose cumulative
probability reaches 0.95 is the benchmark (eq. B1 of ``docs/agreement.md``; R irrCAC's
``landis.koch.bf``, ``fleiss.bf`` and ``altman.bf``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import special

from qwkit._base._errors import QwkitError
from qwkit._base._results import freeze_arrays, plain, public_module, reduce_dataclass
from qwkit._base._validation import check_choice, check_confidence_level

__all__ = ["SCALES", "BenchmarkResult", "benchmark"]

#: Each scale's intervals from the top down: (lower bound, name); the top ends at 1.
SCALES: dict[str, tuple[tuple[float, str], ...]] = {
    # Landis & Koch (1977), Biometrics 33:159-174, Table on p. 165
    "landis-koch": (
        (0.8, "Almost Perfect"),
        (0.6, "Substantial"),
        (0.4, "Moderate"),
        (0.2, "Fair"),
        (0.0, "Slight"),
        (-1.0, "Poor"),
    ),
    # Fleiss (1981), Statistical Methods for Rates and Proportions, 2nd ed., p. 218
    "fleiss": ((0.75, "Excellent"), (0.4, "Intermediate to Good"), (-1.0, "Poor")),
    # Altman (1991), Practical Statistics for Medical Research, p. 404
    "altman": (
        (0.8, "Very Good"),
        (0.6, "Good"),
        (0.4, "Moderate"),
        (0.2, "Fair"),
        (-1.0, "Poor"),
    ),
}
_METHODS = ("probabilistic", "interval")


@dataclass(frozen=True, slots=True, eq=False)
class BenchmarkResult:
    """The benchmark of an agreement coefficient (``str()`` of it is its ``label``).

    Attributes
    ----------
    label : str
        The name of the benchmark interval.
    low, high : float
        Its bounds.
    scale, method : str
        Which scale, and ``"probabilistic"`` (Gwet's) or ``"interval"`` (where the
        estimate falls).
    intervals : tuple of str
        The scale's interval names, from the top down.
    probability : ndarray
        Each interval's membership probability (eq. B1), from the top down.
    cumulative : ndarray
        Their running sums from the top: the benchmark is the first interval where this
        reaches ``confidence_level``.
    confidence_level : float
        0.95 unless asked otherwise.
    """

    label: str
    low: float
    high: float
    scale: str
    method: str
    intervals: tuple[str, ...] = field(repr=False)
    probability: np.ndarray = field(repr=False)
    cumulative: np.ndarray = field(repr=False)
    confidence_level: float = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def __str__(self) -> str:
        return self.label

    def summary(self) -> str:
        """The scale's intervals with their membership and cumulative probabilities."""
        bounds = _bounds(self.scale)
        lines = [f"Benchmark ({self.scale}, {self.method}): {self.label}", ""]
        lines.append(f"{'interval':<14}{'name':<24}{'probability':>12}{'cumulative':>12}")
        for (lo, hi), name, p, c in zip(
            bounds, self.intervals, self.probability, self.cumulative, strict=True
        ):
            mark = "  <-" if name == self.label else ""
            lines.append(f"{f'[{lo:g}, {hi:g}]':<14}{name:<24}{p:>12.4f}{c:>12.4f}{mark}")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values."""
        return plain(
            {
                "label": self.label,
                "low": self.low,
                "high": self.high,
                "scale": self.scale,
                "method": self.method,
                "intervals": list(self.intervals),
                "probability": self.probability,
                "cumulative": self.cumulative,
                "confidence_level": self.confidence_level,
            }
        )


public_module(BenchmarkResult)


def _bounds(scale: str) -> list[tuple[float, float]]:
    lows = [lo for lo, _ in SCALES[scale]]
    return list(zip(lows, [1.0, *lows[:-1]], strict=True))


def benchmark(
    statistic: float,
    standard_error: float,
    *,
    scale: str,
    method: str,
    confidence_level: float,
) -> BenchmarkResult:
    """The benchmark of a coefficient with its standard error (eq. B1)."""
    scale = check_choice(scale, "scale", tuple(SCALES))
    method = check_choice(method, "method", _METHODS)
    level = check_confidence_level(confidence_level)
    if not math.isfinite(statistic):
        raise QwkitError(
            "The coefficient is undefined (nan), so it has no benchmark.", parameter="scale"
        )
    bounds = _bounds(scale)
    names = tuple(name for _, name in SCALES[scale])
    se = standard_error
    if method == "probabilistic" and not (math.isfinite(se) and se >= 0):
        raise QwkitError(
            f"`method`='probabilistic' needs the coefficient's standard error; it is {se}. "
            "Use method='interval'.",
            parameter="method",
        )
    if method == "interval" or se == 0.0:
        # the interval [low, high) that holds the estimate (the top one includes 1); a
        # coefficient within rounding of a bound is on it (1/2 vs 3/8 gives Scott's π as
        # 0.19999999999999996, which is 0.2: "Fair", not "Slight")
        tol = 1e-12
        chosen = next(
            (i for i, (lo, _) in enumerate(bounds) if statistic >= lo - tol), len(bounds) - 1
        )
        prob = np.zeros(len(bounds))
        prob[chosen] = 1.0
        cumulative = np.cumsum(prob)
    else:
        cdf = lambda x: special.ndtr((statistic - x) / se)  # noqa: E731
        truncate = cdf(-1.0) - cdf(1.0)  # P(−1 < κ < 1)   (eq. B1)
        prob = np.array([(cdf(lo) - cdf(hi)) / truncate for lo, hi in bounds])
        cumulative = np.cumsum(prob)
        reached = np.flatnonzero(cumulative >= level - 1e-12)
        chosen = int(reached[0]) if reached.size else len(bounds) - 1
    low, high = bounds[chosen]
    return BenchmarkResult(
        label=names[chosen],
        low=float(low),
        high=float(high),
        scale=scale,
        method=method,
        intervals=names,
        probability=prob,
        cumulative=cumulative,
        confidence_level=level,
    )


#: The scales, for signatures.
Scale = Literal["landis-koch", "fleiss", "altman"]
