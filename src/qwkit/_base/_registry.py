"""The registry: one record per member of every open family of qwkit, the one place the
API, the command line, the Polars namespace, the reports and the docs tables read them
from (the generic :class:`~qwkit._base._families.Family`). A feature binds each member
to its computation; adding a member is its computation, one record here and its tests
(CONTRIBUTING.md, "Adding a member to a family").

Families: the agreement coefficients (:data:`COEFFICIENTS`), the named weights
(:data:`WEIGHTS`), the forms of the intraclass correlation (:data:`ICC_FORMS`) and the
evaluation criteria (:data:`CRITERIA`). Where a type checker must read a family's names,
a ``Literal`` beside it spells them (:data:`Coefficient`, ...): the one home of that
spelling, which every signature imports, and ``tests/test_registry.py`` holds it to the
records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from qwkit._base._families import Family, Member

__all__ = [
    "COEFFICIENTS",
    "CRITERIA",
    "DEFAULT_CRITERIA",
    "ICC_FORMS",
    "WEIGHTS",
    "Coefficient",
    "CoefficientRecord",
    "CountsCoefficient",
    "CriterionRecord",
    "ICCForm",
    "ICCFormRecord",
    "RaterWeightsName",
    "WeightsName",
    "WeightsRecord",
]


# ---------------------------------------------------------------------------- coefficients


@dataclass(frozen=True, slots=True, kw_only=True)
class CoefficientRecord(Member):
    """One agreement coefficient of :func:`qwkit.agreement_score` and
    :func:`qwkit.agreement_test` (computed by ``qwkit._agreement._model``: ``MODELS``).

    ``source`` the work that defines it; ``equation`` its equation in
    ``docs/agreement.md``; ``by_rater``: it reads which rater gave which rating (not a
    function of the items × categories count table); ``two_raters``: a coefficient of
    exactly two raters, on the items both rated; ``chance_corrected``: corrected for
    chance agreement; ``generalized`` (of a coefficient of two raters) the coefficient of
    any number of raters it is a case of. A coefficient with neither ``by_rater`` nor
    ``two_raters`` is ``pooled``: :func:`qwkit.agreement_from_counts` computes it from a
    count table.
    """

    source: str
    equation: str
    by_rater: bool = False
    two_raters: bool = False
    chance_corrected: bool = True
    generalized: str = ""

    @property
    def pooled(self) -> bool:
        """Whether the items × categories count table determines it."""
        return not (self.by_rater or self.two_raters)

    @property
    def in_all(self) -> bool:
        """Whether the command line's ``--coefficient all`` computes it: the
        chance-corrected coefficients of any number of raters."""
        return self.chance_corrected and not self.two_raters


COEFFICIENTS: Family[CoefficientRecord] = Family(
    "coefficient",
    "coefficient",
    [
        CoefficientRecord(
            name="fleiss",
            display="Fleiss' kappa",
            help="chance from the pooled ratings",
            source="Fleiss (1971)",
            equation="6",
        ),
        CoefficientRecord(
            name="conger",
            display="Conger's kappa",
            help="chance from each rater's own distribution (Cohen's kappa for two raters)",
            needs="who gave which rating",
            source="Conger (1980)",
            equation="17",
            by_rater=True,
        ),
        CoefficientRecord(
            name="krippendorff",
            display="Krippendorff's alpha",
            help="the pairable ratings' coincidences",
            source="Krippendorff (2011)",
            equation="14",
        ),
        CoefficientRecord(
            name="gwet",
            display="Gwet's AC",
            help="AC1, AC2 with weights: chance times the propensity to rate at random",
            source="Gwet (2008, 2014)",
            equation="7",
        ),
        CoefficientRecord(
            name="brennan-prediger",
            display="Brennan-Prediger coefficient",
            help="chance from a uniform distribution over the scale",
            source="Brennan & Prediger (1981)",
            equation="9",
        ),
        CoefficientRecord(
            name="light",
            display="Light's kappa",
            help="the mean of the pairwise Cohen kappas",
            needs="who gave which rating",
            source="Light (1971)",
            equation="19",
            by_rater=True,
        ),
        CoefficientRecord(
            name="percent",
            display="Percent agreement",
            help="the (weighted) share of agreeing pairs, not corrected for chance",
            source="Gwet (2014)",
            equation="5",
            chance_corrected=False,
        ),
        CoefficientRecord(
            name="scott",
            display="Scott's pi",
            help="Scott's π of two raters, on the items both rated",
            needs="two raters",
            source="Scott (1955)",
            equation="12'",
            two_raters=True,
            generalized="fleiss",
        ),
        CoefficientRecord(
            name="cohen",
            display="Cohen's kappa",
            help="Cohen's (weighted) kappa of two raters, on the items both rated",
            needs="two raters",
            source="Cohen (1960, 1968)",
            equation="17c",
            by_rater=True,
            two_raters=True,
            generalized="conger",
        ),
    ],
)
#: The coefficients' names, for type checkers (``tests/test_registry.py`` holds them to
#: :data:`COEFFICIENTS`).
Coefficient = Literal[
    "fleiss",
    "conger",
    "krippendorff",
    "gwet",
    "brennan-prediger",
    "light",
    "percent",
    "scott",
    "cohen",
]
#: The coefficients a count table determines (the ``pooled`` records).
CountsCoefficient = Literal["fleiss", "krippendorff", "gwet", "brennan-prediger", "percent"]


# ---------------------------------------------------------------------------- weights


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightsRecord(Member):
    """One name ``weights`` takes: disagreement weights d(k, l) between categories
    (``qwkit._base._weights``; for many raters ``qwkit._agreement._model``).

    ``formula`` the disagreement; ``source`` where it comes from; ``equation`` its
    equation in ``docs/agreement.md``; ``exact``: an integer-valued matrix, with the
    exact, table-free paths of the two-rater functions; ``gwet``: one of Gwet's (2014)
    weights on the values of the scale (a matrix of it); ``many_raters``: accepted by
    agreement among raters only (it depends on the frequencies or values of the
    categories, not on their positions).
    """

    formula: str
    source: str
    equation: str
    exact: bool = False
    gwet: bool = False
    many_raters: bool = False


WEIGHTS: Family[WeightsRecord] = Family(
    "weights",
    "weights",
    [
        WeightsRecord(
            name="quadratic",
            display="quadratic",
            help="squared differences, Krippendorff's interval metric",
            formula="(yₖ − yₗ)²",
            source="Cohen (1968); Fleiss & Cohen (1973)",
            equation="1",
            exact=True,
        ),
        WeightsRecord(
            name="linear",
            display="linear",
            help="absolute differences",
            formula="|yₖ − yₗ|",
            source="Cicchetti & Allison (1971)",
            equation="1",
            exact=True,
        ),
        WeightsRecord(
            name="identity",
            display="identity",
            help="unweighted, every disagreement counts 1 (None in the API)",
            formula="1 − δₖₗ",
            source="Cohen (1960)",
            equation="1",
            exact=True,
        ),
        WeightsRecord(
            name="radical",
            display="radical",
            help="square roots of the differences",
            formula="√|yₖ − yₗ|",
            source="Gwet (2014)",
            equation="2d",
            gwet=True,
        ),
        WeightsRecord(
            name="circular",
            display="circular",
            help="differences on a circle: hours, directions",
            formula="sin²(π(yₖ − yₗ)/U), U = y_max − y_min + 1",
            source="Gwet (2014)",
            equation="2d",
            gwet=True,
        ),
        WeightsRecord(
            name="bipolar",
            display="bipolar",
            help="differences that matter most near the ends of the scale",
            formula="(yₖ − yₗ)² / ((yₖ + yₗ − 2y_min)(2y_max − yₖ − yₗ))",
            source="Gwet (2014)",
            equation="2d",
            gwet=True,
        ),
        WeightsRecord(
            name="ordinal",
            display="ordinal",
            help="Krippendorff's ordinal metric: squared differences of mid-ranks",
            needs="agreement among raters",
            formula="(Mₖ − Mₗ)², Mₖ the mid-rank of category k",
            source="Krippendorff (2011)",
            equation="2c",
            many_raters=True,
        ),
        WeightsRecord(
            name="ratio",
            display="ratio",
            help="Krippendorff's ratio metric on the values, y ≥ 0",
            needs="agreement among raters",
            formula="((yₖ − yₗ)/(yₖ + yₗ))²",
            source="Krippendorff (2011)",
            equation="2b",
            many_raters=True,
        ),
    ],
)
#: The names ``weights`` takes everywhere, for type checkers (the records without
#: ``many_raters``).
WeightsName = Literal["quadratic", "linear", "identity", "radical", "circular", "bipolar"]
#: The names agreement among raters takes (every record).
RaterWeightsName = Literal[
    "quadratic", "linear", "identity", "radical", "circular", "bipolar", "ordinal", "ratio"
]


# ---------------------------------------------------------------------------- ICC forms


@dataclass(frozen=True, slots=True, kw_only=True)
class ICCFormRecord(Member):
    """One form of :func:`qwkit.icc` (McGraw & Wong 1996; computed by
    ``qwkit._agreement._icc``: ``_MeanSquares``). ``name`` is McGraw & Wong's
    (``"A,1"``), ``display`` how results print it, ``aliases`` the command line's name
    (``icc-A1``); ``shrout_fleiss`` Shrout & Fleiss's (1979) name; ``model`` the model and
    what differences count; ``unit`` one rater's rating or the mean of k;
    ``population`` the population value it estimates; ``equation`` the equation in
    ``docs/agreement.md``."""

    shrout_fleiss: str
    model: str
    unit: str
    population: str
    equation: str


_ONE_WAY = "one-way random, absolute agreement"
_AGREEMENT = "two-way, absolute agreement"
_CONSISTENCY = "two-way, consistency"


def _form(name: str, sf: str, model: str, equation: str, help: str, population: str):
    return ICCFormRecord(
        name=name,
        display=f"ICC({name})",
        help=help,
        aliases=("icc-" + name.replace(",", ""),),
        shrout_fleiss=sf,
        model=model,
        unit="single rater" if name.endswith("1") else "mean of k raters",
        population=population,
        equation=equation,
    )


ICC_FORMS: Family[ICCFormRecord] = Family(
    "ICC form",
    "form",
    [
        _form("1,1", "ICC(1,1)", _ONE_WAY, "I4a", "one-way: each item rated by its own raters",
              "σ²ₛ/(σ²ₛ + σ²_w)"),
        _form("A,1", "ICC(2,1)", _AGREEMENT, "I4b", "agreement of one rater drawn at random",
              "σ²ₛ/(σ²ₛ + σ²ᵣ + σ²ₑ)"),
        _form("C,1", "ICC(3,1)", _CONSISTENCY, "I4c", "consistency of one rater (offsets removed)",
              "σ²ₛ/(σ²ₛ + σ²ₑ)"),
        _form("1,k", "ICC(1,k)", _ONE_WAY, "I4d", "the one-way form for the mean of k raters",
              "σ²ₛ/(σ²ₛ + σ²_w/k)"),
        _form("A,k", "ICC(2,k)", _AGREEMENT, "I4e", "agreement of the mean of k raters",
              "σ²ₛ/(σ²ₛ + (σ²ᵣ + σ²ₑ)/k)"),
        _form("C,k", "ICC(3,k)", _CONSISTENCY, "I4f", "consistency of the mean of k raters",
              "σ²ₛ/(σ²ₛ + σ²ₑ/k)"),
    ],
)  # fmt: skip
#: The forms' names, for type checkers.
ICCForm = Literal["1,1", "A,1", "C,1", "1,k", "A,k", "C,k"]


# ---------------------------------------------------------------------------- criteria


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
