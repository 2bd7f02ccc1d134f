"""The records a judge's analysis is made of: a coefficient with its interval, the runs
a target reliability needs, a kappa with the humans and its verdict, a comparison of two
prompt variants (frozen dataclasses of Python values)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from qwkit._base._results import plain, result_dict

__all__ = [
    "KappaWithHumans",
    "PromptComparison",
    "ReliabilityEstimate",
    "RunsNeeded",
    "koo_li",
]


@dataclass(frozen=True, slots=True, eq=False)
class ReliabilityEstimate:
    """A coefficient with its standard error and two-sided confidence interval.

    ``coefficient`` names it (``"ICC(1)"``, ``"ICC(A,1)"``, ``"alpha"``, ``"kappa"``,
    ``"effective judges"``, ``"Kendall's W"``, ...). The standard error is the
    jackknife's over items (or the bootstrap's, for Kendall's W); the interval is
    Student's t on ``n_items`` − 1 degrees of freedom on the scale where the coefficient
    is close to normal (``docs/judge.md``, eq. J10), so it is not symmetric about
    ``statistic``. nan where the coefficient is undefined (a judge who gives every item
    the same score).
    """

    coefficient: str
    statistic: float
    standard_error: float
    low: float
    high: float
    n_items: int

    def to_dict(self) -> dict:
        """The estimate as plain Python values."""
        return result_dict(
            self, ("coefficient", "statistic", "standard_error", "low", "high", "n_items")
        )


def nan_estimate(coefficient: str, n_items: int = 0) -> ReliabilityEstimate:
    return ReliabilityEstimate(
        coefficient=coefficient,
        statistic=math.nan,
        standard_error=math.nan,
        low=math.nan,
        high=math.nan,
        n_items=n_items,
    )


#: Koo & Li's (2016) bands of an ICC, read on its 95% interval.
_BANDS = ((0.5, "poor"), (0.75, "moderate"), (0.9, "good"), (math.inf, "excellent"))


def _band(x: float) -> str:
    for edge, name in _BANDS:
        if x < edge:
            return name
    return "excellent"


def koo_li(estimate: ReliabilityEstimate) -> str:
    """Koo & Li's (2016) reading of an ICC from its interval: the band of each limit
    ("good", or "moderate to good" when the interval spans two)."""
    if math.isnan(estimate.low) or math.isnan(estimate.high):
        return "undefined"
    low, high = _band(estimate.low), _band(estimate.high)
    return low if low == high else f"{low} to {high}"


@dataclass(frozen=True, slots=True, eq=False)
class RunsNeeded:
    """How many runs a judge's mean needs to reach ``target`` reliability, by
    Spearman–Brown from ``basis`` (ICC(1) for repetitions, ICC(A,1) for prompt
    variants; eqs. J4 and J6 of ``docs/judge.md``).

    ``runs`` is the estimate (inf: no number of runs reaches the target, the
    reliability of one run being ≤ 0; nan: undefined), ``low`` and ``high`` the runs
    that the interval's limits of the single-run reliability need (``high`` is inf when
    the lower limit is ≤ 0). ``reliability`` holds, for k = 1, 2, …, the Spearman–Brown
    reliability of the mean of k runs and its interval: ``((k, estimate, low, high),
    ...)``.
    """

    target: float
    basis: str
    runs: float
    low: float
    high: float
    reliability: tuple

    def to_dict(self) -> dict:
        """As plain Python values (inf, for "never", stays inf)."""
        out = result_dict(self, ("target", "basis", "runs", "low", "high"))
        out["reliability"] = [
            {"runs": k, "estimate": e, "low": lo, "high": hi} for k, e, lo, hi in self.reliability
        ]
        return plain(out)


@dataclass(frozen=True, slots=True, eq=False)
class KappaWithHumans:
    """Quadratic kappa of a judge's scores — one run, the mean or majority of k runs,
    one prompt variant, or a panel's aggregate — with the human ratings, pooled over
    every human rating of an item (the continuous form: real-valued scores as they are),
    with its interval and verdict against ``threshold``.

    ``label`` says what was scored ("3 runs", "prompt 2", "panel of 3"), ``size`` how
    many runs or judges it aggregates, ``members`` the prompt variant or the panel's
    judges. ``verdict`` is "pass" when the whole interval is at or above the threshold,
    "fail" when wholly below it, "inconclusive" otherwise; ``pvalue`` is that of the
    one-sided test of kappa ≤ threshold the interval inverts.
    """

    label: str
    size: int
    members: tuple
    aggregate: str
    kappa: ReliabilityEstimate
    threshold: float
    pvalue: float
    verdict: str

    def to_dict(self) -> dict:
        """As plain Python values."""
        out = result_dict(
            self, ("label", "size", "members", "aggregate", "threshold", "pvalue", "verdict")
        )
        out["kappa"] = self.kappa.to_dict()
        return out


@dataclass(frozen=True, slots=True, eq=False)
class PromptComparison:
    """Kappa with the humans under prompt variant ``first`` minus under ``second``, on
    the items scored under both (paired: the jackknife of the difference over those
    items), with its interval, two-sided p-value and the p-value Holm-adjusted over the
    judge's pairs of variants."""

    judge: str
    first: str
    second: str
    difference: float
    standard_error: float
    low: float
    high: float
    pvalue: float
    pvalue_adjusted: float
    n_items: int

    def to_dict(self) -> dict:
        """As plain Python values."""
        return result_dict(
            self,
            (
                "judge",
                "first",
                "second",
                "difference",
                "standard_error",
                "low",
                "high",
                "pvalue",
                "pvalue_adjusted",
                "n_items",
            ),
        )
