"""The small records an evaluation is made of: an estimate with its interval, descriptive
statistics, a criterion as a test, a degradation, a comparison, a score distribution, a
note about the human reference (frozen dataclasses of Python values)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qwkit._base._results import freeze_arrays, plain, reduce_dataclass, result_dict

__all__ = [
    "NAN",
    "Comparison",
    "Criterion",
    "DegradationEstimate",
    "Descriptives",
    "Diagnostic",
    "Estimate",
    "ScoreDistribution",
]


@dataclass(frozen=True, slots=True, eq=False)
class Estimate:
    """A statistic with its standard error and two-sided confidence interval.

    ``n_items`` are the items it is computed on; ``n_clusters`` the clusters that hold
    them when the items are nested (``cluster=``; None otherwise): the sampling units of
    its standard error. ``df`` is the degrees of freedom of its Student-t interval (inf:
    a normal interval).
    """

    statistic: float
    standard_error: float
    low: float
    high: float
    n_items: int
    df: float = math.inf
    n_clusters: int | None = None

    @property
    def n_units(self) -> int:
        """The sampling units: the clusters, or the items."""
        return self.n_items if self.n_clusters is None else self.n_clusters

    def to_dict(self) -> dict:
        """The estimate as plain Python values."""
        return result_dict(
            self, ("statistic", "standard_error", "low", "high", "n_items", "df", "n_clusters")
        )


NAN = Estimate(statistic=math.nan, standard_error=math.nan, low=math.nan, high=math.nan, n_items=0)


@dataclass(frozen=True, slots=True, eq=False)
class Descriptives:
    """One rater's scores on the items of a comparison: how many, mean, SD (n − 1),
    lowest and highest (in the ratings' values; text ratings: positions 1 … K)."""

    n_items: int
    mean: float
    sd: float
    min: float
    max: float

    def to_dict(self) -> dict:
        """As plain Python values."""
        return result_dict(self, ("n_items", "mean", "sd", "min", "max"))


@dataclass(frozen=True, slots=True, eq=False)
class Criterion:
    """One criterion as a test: estimate, interval, threshold, p-value and verdict.

    ``criterion`` is its name in the registry of criteria (``"kappa"``, ``"pearson_r"``,
    ``"degradation"``, ``"smd"``, ``"group_smd"``, ``"dsm"``), ``name`` how tables print
    it. ``relation`` is ">=" (the estimate must reach the threshold) or "within"
    (|estimate| ≤ threshold, an equivalence test). ``verdict`` is "pass" when the whole
    interval lies on the passing side, "fail" when it lies wholly on the other side,
    "inconclusive" otherwise — and "inconclusive" whatever the interval when the test
    cannot hold its level (too few units: ``reason`` says so); ``pvalue`` is that of the
    one-sided (or two one-sided) test the interval inverts.
    """

    model: str
    criterion: str
    name: str
    estimate: float
    low: float
    high: float
    threshold: float
    relation: str
    pvalue: float
    verdict: str
    reason: str = ""

    def to_dict(self) -> dict:
        """The criterion as plain Python values."""
        return result_dict(
            self,
            (
                "model",
                "criterion",
                "name",
                "estimate",
                "low",
                "high",
                "threshold",
                "relation",
                "pvalue",
                "verdict",
                "reason",
            ),
        )


@dataclass(frozen=True, slots=True, eq=False)
class DegradationEstimate:
    """The change of one statistic from the human-human pair to human-machine, on the
    same items (those two humans and the machine rated): ``estimate`` of
    ``human_machine − human_human`` with its paired interval."""

    statistic: str
    human_machine: float
    human_human: float
    estimate: Estimate

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain(
            {
                "statistic": self.statistic,
                "human_machine": self.human_machine,
                "human_human": self.human_human,
                **self.estimate.to_dict(),
            }
        )


@dataclass(frozen=True, slots=True, eq=False)
class Comparison:
    """Two machines' kappa with the reference human on the same items: the difference
    ``a − b``, its paired interval, the two-sided p-value and the p-value adjusted over
    every pair of machines (Holm)."""

    a: str
    b: str
    kappa_a: float
    kappa_b: float
    estimate: Estimate
    pvalue: float
    pvalue_adjusted: float

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain(
            {
                "a": self.a,
                "b": self.b,
                "kappa_a": self.kappa_a,
                "kappa_b": self.kappa_b,
                **self.estimate.to_dict(),
                "pvalue": self.pvalue,
                "pvalue_adjusted": self.pvalue_adjusted,
            }
        )


@dataclass(frozen=True, slots=True, eq=False)
class ScoreDistribution:
    """How many of the items each score point got from the reference human and from the
    machine (real-valued scores rounded to the nearest point within the scale)."""

    labels: np.ndarray
    human: np.ndarray
    machine: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain({"labels": self.labels, "human": self.human, "machine": self.machine})


@dataclass(frozen=True, slots=True, eq=False)
class Diagnostic:
    """A note about the evaluation that a verdict depends on: ``code`` (a stable word:
    "low_human_agreement", "implausible_human_agreement", "few_units", "trimmed",
    "outside_scale", "two_annotators") and ``message`` (a sentence)."""

    code: str
    message: str

    def to_dict(self) -> dict:
        """As plain Python values."""
        return {"code": self.code, "message": self.message}
