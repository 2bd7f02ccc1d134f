"""The result of :func:`evaluate_scorer`: the criteria as tests, the human-human ceiling,
everything about each machine, the comparisons of machines and the notes a verdict
depends on (frozen dataclasses of Python values). It lays itself out as tables once
(``_layout``), which ``summary()``, the console and the HTML report all render."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._results import freeze_arrays, labels_dict, plain, reduce_dataclass
from qwkit._base._tables import Table, render_text
from qwkit._evaluation import _report
from qwkit._evaluation._degradation import DegradationTestResult
from qwkit._evaluation._fairness import FairnessResult, GroupEvaluation
from qwkit._evaluation._prmse import PRMSEResult
from qwkit._evaluation._records import (
    Comparison,
    Criterion,
    DegradationEstimate,
    Descriptives,
    Diagnostic,
    Estimate,
    ScoreDistribution,
)

__all__ = ["EvaluationResult", "HumanAgreement", "ModelEvaluation", "overall"]

_ESTIMATES = (
    "kappa",
    "unweighted_kappa",
    "pearson_r",
    "smd",
    "exact_agreement",
    "adjacent_agreement",
)


def overall(criteria) -> str:
    """'fail' when a criterion fails, 'inconclusive' when one is, else 'pass'."""
    found = {c.verdict for c in criteria}
    return "fail" if "fail" in found else "inconclusive" if "inconclusive" in found else "pass"


@dataclass(frozen=True, slots=True, eq=False)
class HumanAgreement:
    """The human-human ceiling: the first two human columns on the items both rated
    (kappa, unweighted kappa, r, the pooled SMD — RSMTool's human-human SMD — exact and
    adjacent agreement, each rater's descriptives), and the kappa of every pair of human
    columns."""

    raters: tuple
    n_items: int
    kappa: Estimate
    unweighted_kappa: Estimate
    pearson_r: Estimate
    smd: Estimate
    exact_agreement: Estimate
    adjacent_agreement: Estimate
    first: Descriptives | None
    second: Descriptives | None
    pairs: tuple  # ((rater a, rater b, Estimate), ...)
    confusion: np.ndarray | None = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def to_dict(self) -> dict:
        """The human-human agreement as plain Python values."""
        out = {"raters": list(self.raters), "n_items": self.n_items}
        for name in _ESTIMATES:
            out[name] = getattr(self, name).to_dict()
        out["first"] = None if self.first is None else self.first.to_dict()
        out["second"] = None if self.second is None else self.second.to_dict()
        out["pairs"] = [{"a": a, "b": b, **e.to_dict()} for a, b, e in self.pairs]
        out["confusion"] = self.confusion
        return plain(out)


@dataclass(frozen=True, slots=True, eq=False)
class ModelEvaluation:
    """Everything about one machine (one column of ``machine``) against the reference
    human: the statistics an RSMTool user expects, each with an interval (kappa with the
    call's weights, unweighted kappa, Pearson's r, the SMD under the call's definition
    and under both, exact and adjacent agreement, RMSE, R², the disattenuated
    correlation), the descriptives and score distributions, kappa with every human,
    the degradation test and the degradation of each statistic on the same items,
    PRMSE, the subgroups and the fairness analyses, and the criteria as tests.

    Real-valued scores enter kappa, r, the SMDs, RMSE, R² and PRMSE as they are (after
    trimming); unweighted kappa, exact and adjacent agreement, the distribution and the
    confusion table round them to the nearest score point (halves to even, RSMTool's
    ``np.rint``).
    """

    name: str
    n_items: int
    n_omitted: int
    real_valued: bool
    n_trimmed: int
    n_outside: int
    kappa: Estimate
    unweighted_kappa: Estimate
    pearson_r: Estimate
    smd: Estimate
    smd_pooled: Estimate
    smd_unpooled: Estimate
    exact_agreement: Estimate
    adjacent_agreement: Estimate
    rmse: Estimate
    r2: Estimate
    disattenuated_r: Estimate
    human: Descriptives
    machine: Descriptives
    per_rater: tuple[tuple[str, Estimate], ...]  # (human column, Estimate): κ(h_r, m)
    degradation: DegradationTestResult
    degradations: tuple[DegradationEstimate, ...]  # of r, unweighted kappa, exact, adjacent, SMD
    prmse: PRMSEResult
    groups: tuple[GroupEvaluation, ...]
    fairness: FairnessResult | None
    criteria: tuple[Criterion, ...]
    distribution: ScoreDistribution | None
    confusion: np.ndarray | None = field(repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def verdict(self) -> str:
        """'pass' when every criterion passes, 'fail' when one fails, else
        'inconclusive'."""
        return overall(self.criteria)

    def to_dict(self) -> dict:
        """The model's evaluation as plain Python values."""
        out = {
            "name": self.name,
            "n_items": self.n_items,
            "n_omitted": self.n_omitted,
            "real_valued": self.real_valued,
            "n_trimmed": self.n_trimmed,
            "n_outside": self.n_outside,
            "verdict": self.verdict,
            "criteria": [c.to_dict() for c in self.criteria],
        }
        for name in (*_ESTIMATES, "smd_pooled", "smd_unpooled", "rmse", "r2", "disattenuated_r"):
            out[name] = getattr(self, name).to_dict()
        out["human"] = self.human.to_dict()
        out["machine"] = self.machine.to_dict()
        out["per_rater"] = [{"rater": r, **e.to_dict()} for r, e in self.per_rater]
        out["degradation"] = self.degradation.to_dict()
        out["degradations"] = [d.to_dict() for d in self.degradations]
        out["prmse"] = self.prmse.to_dict()
        out["groups"] = [g.to_dict() for g in self.groups]
        out["fairness"] = None if self.fairness is None else self.fairness.to_dict()
        out["distribution"] = None if self.distribution is None else self.distribution.to_dict()
        out["confusion"] = self.confusion
        return plain(out)


@dataclass(frozen=True, slots=True, eq=False)
class EvaluationResult:
    """Result of :func:`evaluate_scorer`.

    Attributes
    ----------
    models : tuple of ModelEvaluation
        One per machine column: its criteria (tests) and every statistic, each with its
        interval.
    human_human : HumanAgreement
        The ceiling: the same statistics for the first two human columns, and every
        pair of humans.
    comparisons : tuple of Comparison
        With several machines: each pair's difference in kappa with the reference human
        on the same items, its interval and p-values (Holm-adjusted over the pairs).
    diagnostics : tuple of Diagnostic
        What the verdict depends on and a reader must know: a human reference below the
        kappa criterion, or implausibly close (adjudicated ratings?), too few units for a
        conclusive verdict, trimmed or out-of-scale scores.
    human_names : tuple of str
        The human columns; the first is the reference (RSMTool's ``sc1``).
    labels : ndarray
        The rating scale (the rows and columns of the confusion tables).
    weights : str
        Weights of every kappa.
    settings : dict
        margin, thresholds, criteria, SMD definition, confidence level, method, pairs,
        trimming, clusters, groups' correction, what the moments are computed on.
    n_items, n_double_scored : int
        Items with a human rating; of them, rated by two or more humans.

    Notes
    -----
    With one machine, the attributes of its :class:`ModelEvaluation` are reachable
    directly (``result.degradation``, ``result.prmse``, ...); with several, pick one by
    name or position: ``result["model_a"]``, ``result[0]``.
    """

    models: tuple[ModelEvaluation, ...]
    human_human: HumanAgreement
    human_names: tuple[str, ...]
    labels: object = field(repr=False)
    weights: str = field(repr=False)
    settings: dict = field(repr=False)
    n_items: int = 0
    n_double_scored: int = 0
    comparisons: tuple[Comparison, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

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
    def criteria(self) -> tuple[Criterion, ...]:
        """Every criterion of every model, in one table (tuple of Criterion)."""
        return tuple(c for m in self.models for c in m.criteria)

    @property
    def verdict(self) -> str:
        """'pass', 'fail' or 'inconclusive' over every criterion of every model."""
        return overall(self.criteria)

    @property
    def kappa(self) -> Estimate:
        """κ(h₁, m) of the one model."""
        return self._only().kappa

    @property
    def unweighted_kappa(self) -> Estimate:
        """The unweighted kappa of the one model."""
        return self._only().unweighted_kappa

    @property
    def pearson_r(self) -> Estimate:
        """Pearson r of the one model."""
        return self._only().pearson_r

    @property
    def smd(self) -> Estimate:
        """SMD of the one model."""
        return self._only().smd

    @property
    def exact_agreement(self) -> Estimate:
        """The exact agreement of the one model."""
        return self._only().exact_agreement

    @property
    def adjacent_agreement(self) -> Estimate:
        """The adjacent agreement of the one model."""
        return self._only().adjacent_agreement

    @property
    def rmse(self) -> Estimate:
        """RMSE of the one model."""
        return self._only().rmse

    @property
    def r2(self) -> Estimate:
        """R² of the one model."""
        return self._only().r2

    @property
    def degradation(self) -> DegradationTestResult:
        """The degradation test."""
        return self._only().degradation

    @property
    def degradations(self) -> tuple[DegradationEstimate, ...]:
        """The degradations of the one model."""
        return self._only().degradations

    @property
    def prmse(self) -> PRMSEResult:
        """PRMSE of the one model."""
        return self._only().prmse

    @property
    def groups(self) -> tuple[GroupEvaluation, ...]:
        """Subgroups of the one model."""
        return self._only().groups

    @property
    def fairness(self) -> FairnessResult | None:
        """Fairness analyses."""
        return self._only().fairness

    def tables(self) -> tuple[Table, ...]:
        """The evaluation laid out as tables, in the order a report reads: the decision
        table of each model, the notes, the ceiling beside each machine, the degradation
        of each statistic, every pair's kappa, the subgroups and fairness analyses, the
        comparisons and the score distributions. ``summary()``, the command line and its
        HTML report render these."""
        from qwkit._evaluation._layout import tables

        return tables(self)

    def summary(self) -> str:
        """The tables of :meth:`tables` as text."""
        title = "Scorer evaluation: may the machine stand in for a human rater?"
        blocks = [title + "\n" + "=" * len(title) + "\n"]
        blocks += [render_text(t) for t in self.tables()]
        return "\n".join(blocks)

    def to_dict(self) -> dict:
        """The whole evaluation as plain Python values (for JSON)."""
        return plain(
            {
                "verdict": self.verdict,
                "criteria": [c.to_dict() for c in self.criteria],
                "diagnostics": [d.to_dict() for d in self.diagnostics],
                "human_names": list(self.human_names),
                **labels_dict(self.labels),
                "weights": self.weights,
                "settings": self.settings,
                "n_items": self.n_items,
                "n_double_scored": self.n_double_scored,
                "human_human": self.human_human.to_dict(),
                "models": [m.to_dict() for m in self.models],
                "comparisons": [c.to_dict() for c in self.comparisons],
            }
        )

    def plot(
        self,
        kind: Literal["criteria", "raters", "groups", "confusion", "distribution"] = "criteria",
        *,
        model: str | int | None = None,
    ):
        """Draw the evaluation with matplotlib (the ``plot`` extra).

        Parameters
        ----------
        kind : {"criteria", "raters", "groups", "confusion", "distribution"}, \
default="criteria"
            ``"criteria"``: every criterion's estimate and interval against its
            threshold, one panel per criterion, the models side by side.
            ``"raters"``: the kappa of each model with each human column, under the
            kappa of each pair of human columns (the human-human ceiling, shaded).
            ``"groups"``: each subgroup's kappa, human-human kappa, SMD within the group
            and DSM with their simultaneous intervals.
            ``"confusion"``: heat maps of the first two humans' table and of the first
            human against the machine.
            ``"distribution"``: the share of each score point from the reference human
            and from the machine.
        model : str or int, default=None
            The model of ``"groups"``, ``"confusion"`` and ``"distribution"`` (default:
            the first).

        Returns
        -------
        matplotlib.figure.Figure
        """
        return _report.plot(self, kind, model)
