"""The registry: one record per member of every open family of qwkit, the one place the
API, the command line, the Polars namespace, the reports and the docs tables read them
from (the generic :class:`~qwkit._base._families.Family`). A feature binds each member
to its computation; adding a member is its computation, one record here and its tests
(CONTRIBUTING.md, "Adding a member to a family").

Families: the evaluation criteria (:data:`CRITERIA`).
"""

from __future__ import annotations

from dataclasses import dataclass

from qwkit._base._families import Family, Member

__all__ = ["CRITERIA", "DEFAULT_CRITERIA", "CriterionRecord"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CriterionRecord(Member):
    """One criterion. ``relation`` ">=" (the estimate must reach the threshold) or
    "within" (|estimate| ≤ threshold); ``parameter`` the option of
    :func:`qwkit.evaluate_scorer` holding the threshold, ``default`` its default (the
    degradation's threshold is −margin); ``source`` where the threshold comes from;
    ``statistic`` the statistic tested (a field of :class:`qwkit.ModelEvaluation`, or of
    each :class:`qwkit.GroupEvaluation` when ``per_group``); ``units`` what the fewest-
    units rule counts."""

    relation: str
    parameter: str
    default: float
    source: str
    statistic: str
    units: str
    per_group: bool = False


_WXB = "Williamson, Xi & Breyer (2012)"

CRITERIA: Family[CriterionRecord] = Family(
    "criterion",
    "criteria",
    [
        CriterionRecord(
            name="kappa",
            display="QWK",
            help="weighted kappa with the reference human",
            relation=">=",
            parameter="min_kappa",
            default=0.70,
            source=_WXB,
            statistic="kappa",
            units="items scored by the reference human and the machine",
        ),
        CriterionRecord(
            name="pearson_r",
            display="Pearson r",
            help="Pearson's correlation with the reference human",
            relation=">=",
            parameter="min_correlation",
            default=0.70,
            source=_WXB,
            statistic="pearson_r",
            units="items scored by the reference human and the machine",
        ),
        CriterionRecord(
            name="degradation",
            display="degradation",
            help="human-machine minus human-human kappa on the same items (≥ −margin)",
            needs="items rated by two humans",
            relation=">=",
            parameter="margin",
            default=0.10,
            source=_WXB,
            statistic="degradation",
            units="double-scored items",
        ),
        CriterionRecord(
            name="smd",
            display="SMD",
            help="standardized mean difference, machine − human (|SMD| ≤ bound)",
            relation="within",
            parameter="max_smd",
            default=0.15,
            source=_WXB + ", on the pooled SD",
            statistic="smd",
            units="items scored by the reference human and the machine",
        ),
        CriterionRecord(
            name="group_smd",
            display="SMD within group",
            help="SMD within each subgroup on the population SD (|SMD| ≤ bound in every group)",
            needs="groups",
            relation="within",
            parameter="max_group_smd",
            default=0.10,
            source=_WXB,
            statistic="group_smd",
            units="items in the group",
            per_group=True,
        ),
        CriterionRecord(
            name="dsm",
            display="DSM",
            help="difference of standardized means in each subgroup (RSMTool's DSM)",
            needs="groups",
            relation="within",
            parameter="max_dsm",
            default=0.10,
            source="Loukina, Madnani & Zechner (2019); RSMTool",
            statistic="dsm",
            units="items in the group",
            per_group=True,
        ),
    ],
)
#: The criteria of a verdict unless ``criteria=`` says otherwise (the group criterion
#: only when there are groups).
DEFAULT_CRITERIA = ("kappa", "pearson_r", "degradation", "smd", "group_smd")
