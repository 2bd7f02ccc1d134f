"""The result of :func:`evaluate_scorer`: the criteria as tests, the human-human ceiling,
and everything about each machine (frozen dataclasses of Python floats)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._results import freeze_arrays, labels_dict, plain, reduce_dataclass, result_dict
from qwkit._evaluation import _report
from qwkit._evaluation._degradation import DegradationTestResult
from qwkit._evaluation._prmse import PRMSEResult

__all__ = [
    "NAN",
    "Criterion",
    "Estimate",
    "EvaluationResult",
    "GroupEvaluation",
    "HumanAgreement",
    "ModelEvaluation",
]


@dataclass(frozen=True, slots=True, eq=False)
class Estimate:
    """A statistic with its standard error and two-sided confidence interval."""

    statistic: float
    standard_error: float
    low: float
    high: float
    n_items: int

    def to_dict(self) -> dict:
        """The estimate as plain Python values."""
        return result_dict(self, ("statistic", "standard_error", "low", "high", "n_items"))


NAN = Estimate(statistic=math.nan, standard_error=math.nan, low=math.nan, high=math.nan, n_items=0)


@dataclass(frozen=True, slots=True, eq=False)
class Criterion:
    """One criterion as a test: estimate, interval, threshold, p-value and verdict.

    ``relation`` is ">=" (the estimate must exceed the threshold), "<=" or "within"
    (|estimate| ≤ threshold, an equivalence test). ``verdict`` is "pass" when the whole
    interval lies on the passing side, "fail" when it lies wholly on the other side,
    "inconclusive" otherwise; the p-value is that of the one-sided (or two one-sided)
    test that the interval inverts.
    """

    model: str
    name: str
    estimate: float
    low: float
    high: float
    threshold: float
    relation: str
    pvalue: float
    verdict: str

    def to_dict(self) -> dict:
        """The criterion as plain Python values."""
        return result_dict(
            self,
            (
                "model",
                "name",
                "estimate",
                "low",
                "high",
                "threshold",
                "relation",
                "pvalue",
                "verdict",
            ),
        )


@dataclass(frozen=True, slots=True, eq=False)
class GroupEvaluation:
    """Kappa and SMD of one subgroup, with multiplicity-adjusted intervals."""

    group: object
    n_items: int
    kappa: Estimate
    smd: Estimate
    pvalue: float  # equivalence |SMD| ≤ max_group_smd, Bonferroni-adjusted
    verdict: str

    def to_dict(self) -> dict:
        """The group as plain Python values."""
        return plain(
            {
                "group": self.group,
                "n_items": self.n_items,
                "kappa": self.kappa.to_dict(),
                "smd": self.smd.to_dict(),
                "pvalue": self.pvalue,
                "verdict": self.verdict,
            }
        )


@dataclass(frozen=True, slots=True, eq=False)
class HumanAgreement:
    """The human-human ceiling: the first two human columns on the items both rated,
    and the kappa of every pair of human columns."""

    raters: tuple
    n_items: int
    kappa: Estimate
    pearson_r: Estimate
    smd: Estimate  # (mean h₂ − mean h₁) / pooled sd, RSMTool's human-human SMD
    exact_agreement: Estimate
    adjacent_agreement: Estimate
    pairs: tuple  # ((rater a, rater b, Estimate), ...)
    confusion: np.ndarray | None = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def to_dict(self) -> dict:
        """The human-human agreement as plain Python values."""
        out = {"raters": list(self.raters), "n_items": self.n_items}
        for name in ("kappa", "pearson_r", "smd", "exact_agreement", "adjacent_agreement"):
            out[name] = getattr(self, name).to_dict()
        out["pairs"] = [{"a": a, "b": b, **e.to_dict()} for a, b, e in self.pairs]
        out["confusion"] = self.confusion
        return plain(out)


@dataclass(frozen=True, slots=True, eq=False)
class ModelEvaluation:
    """Everything about one machine (one column of ``machine``)."""

    name: str
    n_items: int
    n_omitted: int
    real_valued: bool
    kappa: Estimate
    pearson_r: Estimate
    smd: Estimate
    exact_agreement: Estimate
    adjacent_agreement: Estimate
    per_rater: tuple  # ((human column, Estimate), ...): κ(h_r, m)
    degradation: DegradationTestResult
    prmse: PRMSEResult
    groups: tuple
    criteria: tuple
    confusion: np.ndarray | None = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def verdict(self) -> str:
        """'pass' when every criterion passes, 'fail' when one fails, else
        'inconclusive'."""
        return _overall(self.criteria)

    def to_dict(self) -> dict:
        """The model's evaluation as plain Python values."""
        out = {
            "name": self.name,
            "n_items": self.n_items,
            "n_omitted": self.n_omitted,
            "real_valued": self.real_valued,
            "verdict": self.verdict,
            "criteria": [c.to_dict() for c in self.criteria],
        }
        for name in ("kappa", "pearson_r", "smd", "exact_agreement", "adjacent_agreement"):
            out[name] = getattr(self, name).to_dict()
        out["per_rater"] = [{"rater": r, **e.to_dict()} for r, e in self.per_rater]
        out["degradation"] = self.degradation.to_dict()
        out["prmse"] = self.prmse.to_dict()
        out["groups"] = [g.to_dict() for g in self.groups]
        out["confusion"] = self.confusion
        return plain(out)


def _overall(criteria) -> str:
    found = {c.verdict for c in criteria}
    return "fail" if "fail" in found else "inconclusive" if "inconclusive" in found else "pass"


@dataclass(frozen=True, slots=True, eq=False)
class EvaluationResult:
    """Result of :func:`evaluate_scorer`.

    Attributes
    ----------
    models : tuple of ModelEvaluation
        One per machine column: its criteria (tests), kappa, Pearson r, SMD, exact and
        adjacent agreement, kappa with each human, the degradation test, PRMSE, the
        subgroups and its confusion table against the first human.
    human_human : HumanAgreement
        The ceiling: the same statistics for the first two human columns, and every
        pair of humans.
    human_names : tuple of str
        The human columns; the first is the reference (RSMTool's ``sc1``).
    labels : ndarray
        The rating scale (the rows and columns of the confusion tables).
    weights : str
        Weights of every kappa.
    settings : dict
        margin, thresholds, confidence level, method, pairs, groups' correction.
    n_items, n_double_scored : int
        Items with a human rating; of them, rated by two or more humans.

    Notes
    -----
    With one machine, the attributes of its :class:`ModelEvaluation` are reachable
    directly (``result.degradation``, ``result.prmse``, ...); with several, pick one by
    name or position: ``result["model_a"]``, ``result[0]``.
    """

    models: tuple
    human_human: HumanAgreement
    human_names: tuple
    labels: object = field(repr=False)
    weights: str = field(repr=False)
    settings: dict = field(repr=False)
    n_items: int = 0
    n_double_scored: int = 0

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def __getitem__(self, key) -> ModelEvaluation:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            return self.models[key]
        for m in self.models:
            if m.name == key:
                return m
        names = ", ".join(repr(m.name) for m in self.models)
        raise KeyError(f"no model {key!r}; the models are {names}")

    def _only(self) -> ModelEvaluation:
        if len(self.models) != 1:
            names = ", ".join(repr(m.name) for m in self.models)
            raise QwkitError(
                f"This evaluation holds {len(self.models)} models ({names}); pick one, e.g. "
                f"result[{self.models[0].name!r}].",
                parameter="machine",
            )
        return self.models[0]

    @property
    def criteria(self) -> tuple:
        """Every criterion of every model, in one table (tuple of Criterion)."""
        return tuple(c for m in self.models for c in m.criteria)

    @property
    def verdict(self) -> str:
        """'pass', 'fail' or 'inconclusive' over every criterion of every model."""
        return _overall(self.criteria)

    kappa = property(lambda self: self._only().kappa, doc="κ(h₁, m) of the one model.")
    pearson_r = property(lambda self: self._only().pearson_r, doc="Pearson r of the one model.")
    smd = property(lambda self: self._only().smd, doc="SMD of the one model.")
    exact_agreement = property(lambda self: self._only().exact_agreement)
    adjacent_agreement = property(lambda self: self._only().adjacent_agreement)
    degradation = property(lambda self: self._only().degradation, doc="The degradation test.")
    prmse = property(lambda self: self._only().prmse, doc="PRMSE of the one model.")
    groups = property(lambda self: self._only().groups, doc="Subgroups of the one model.")

    def summary(self) -> str:
        """The decision table first, then the ceiling, the other statistics and the
        subgroups, as text."""
        return _report.summary(self)

    def to_dict(self) -> dict:
        """The whole evaluation as plain Python values (for JSON)."""
        return plain(
            {
                "verdict": self.verdict,
                "criteria": [c.to_dict() for c in self.criteria],
                "human_names": list(self.human_names),
                **labels_dict(self.labels),
                "weights": self.weights,
                "settings": self.settings,
                "n_items": self.n_items,
                "n_double_scored": self.n_double_scored,
                "human_human": self.human_human.to_dict(),
                "models": [m.to_dict() for m in self.models],
            }
        )

    def plot(
        self,
        kind: Literal["criteria", "raters", "groups", "confusion"] = "criteria",
        *,
        model: str | int | None = None,
    ):
        """Draw the evaluation with matplotlib (the ``plot`` extra).

        Parameters
        ----------
        kind : {"criteria", "raters", "groups", "confusion"}, default="criteria"
            ``"criteria"``: every criterion's estimate and interval against its
            threshold, one panel per criterion, the models side by side.
            ``"raters"``: the kappa of each model with each human column, under the
            kappa of each pair of human columns (the human-human ceiling, shaded).
            ``"groups"``: each subgroup's kappa and SMD with their adjusted intervals.
            ``"confusion"``: heat maps of the first two humans' table and of the first
            human against the machine.
        model : str or int, default=None
            The model of ``"groups"`` and ``"confusion"`` (default: the first).

        Returns
        -------
        matplotlib.figure.Figure
        """
        return _report.plot(self, kind, model)
