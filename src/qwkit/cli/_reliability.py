"""What ``qwkit agreement`` reports beside the kappa-type coefficients (issue 22): the
intraclass correlations (``--coefficient icc-A1,...``, ``qwkit.icc``) and the agreement
on each category (``--by-category``, ``qwkit.category_agreement``) — their names on the
command line, their rows, tables, JSON and report sections. The command calls these; the
numbers are the API's (``to_dict()``).
"""

from __future__ import annotations

import numpy as np
from rich.table import Table

import qwkit
from qwkit._base._ratings import as_sparse
from qwkit._base._registry import ICC_FORMS
from qwkit.cli import _display, _plots

__all__ = [
    "ICC_NAMES",
    "by_category",
    "category_json",
    "category_section",
    "category_table",
    "cli_name",
    "icc_form",
    "icc_result",
    "positions",
]

#: ``--coefficient`` names of the ICC forms (McGraw & Wong; the registry's aliases),
#: case-insensitive.
ICC_NAMES = {alias.lower(): form for form, r in ICC_FORMS.items() for alias in r.aliases}


def icc_form(name: str) -> str | None:
    """The form of an ICC name (``icc-A1`` → ``"A,1"``), None for other names."""
    return ICC_NAMES.get(name.strip().lower())


def display_name(form: str) -> str:
    return ICC_FORMS[form].display


def cli_name(form: str) -> str:
    """The command line's name of an ICC form (``"A,1"`` → ``icc-A1``)."""
    return ICC_FORMS[form].aliases[0]


def positions(ratings, labels):
    """Text ratings on the ``--labels`` scale as their positions 1 … K, the numbers the
    ICC needs (any equally spaced recoding gives the same ICC, and these are the
    positions quadratic weights use); numeric ratings, or no ``--labels``, as they are."""
    if labels is None:
        return ratings
    sp = as_sparse(ratings, "ratings")
    if not sp.is_text:
        return ratings
    pos = {label: float(i + 1) for i, label in enumerate(np.asarray(labels).tolist())}
    values = np.array([pos[v] for v in sp.values.tolist()], dtype=np.float64)
    return qwkit.ratings_from_long(sp.item, sp.rater, values)


def icc_result(
    ratings, form: str, ci: float, nan_policy: str = "omit"
) -> tuple[qwkit.ICCResult, float, float]:
    """``qwkit.icc`` of the table of ratings (text on ``--labels``: :func:`positions`),
    with its F-based interval at ``ci``."""
    res = qwkit.icc(ratings, form=form, confidence_level=ci, nan_policy=nan_policy)
    low, high = res.confidence_interval()
    return res, low, high


def by_category(ratings, labels, nan_policy: str = "omit") -> qwkit.CategoryAgreementResult:
    return qwkit.category_agreement(ratings, labels=labels, nan_policy=nan_policy)


def category_table(res: qwkit.CategoryAgreementResult, ci: float, label: str) -> Table:
    """The rich table of ``--by-category``."""
    number = _display.number
    low, high = res.confidence_interval(ci)
    table = Table(
        title=f"{label}: agreement on each category (Fleiss' kappa of it against the rest)",
        caption=_category_caption(res, ci),
    )
    for name in ("category", "kappa", "SE", f"{_plots.percent(ci)} CI", "z (null SE)", "p-value"):
        table.add_column(name, justify="left" if name == "category" else "right")
    for i, lab in enumerate(res.labels.tolist()):
        table.add_row(
            _display.label_text(lab),
            number(res.statistic[i]),
            number(res.standard_error[i]),
            f"[{number(low[i])}, {number(high[i])}]",
            number(res.zstatistic[i], 3),
            _display.pvalue(res.pvalue[i]),
        )
    return table


def _category_caption(res: qwkit.CategoryAgreementResult, ci: float) -> str:
    """What the intervals and p-values of ``--by-category`` are (terminal and report)."""
    return f"{_plots.percent(ci)} intervals (t on n − 1 df); p-values: " + (
        "z-test on the standard error under no agreement (R irr)."
        if np.all(np.isfinite(res.standard_error_null))
        else "t-test on Gwet's standard error (items have different numbers of ratings; "
        "no standard error under no agreement: z is nan)."
    )


def category_json(res: qwkit.CategoryAgreementResult, ci: float) -> dict:
    low, high = res.confidence_interval(ci)
    return {**res.to_dict(), "ci_low": low.tolist(), "ci_high": high.tolist()}


def category_section(report, res: qwkit.CategoryAgreementResult, ci: float) -> None:
    """The report's section of ``--by-category``."""
    low, high = res.confidence_interval(ci)
    report.section("Agreement on each category")
    report.paragraph(
        "Each category's Fleiss kappa after recoding every rating as that category or "
        "another (qwkit.category_agreement; docs/agreement.md, eq. K1): which categories "
        "the raters agree on, and which they confuse. Fleiss' overall kappa is their "
        "average weighted by p(1 − p) (eq. K3)."
    )
    rows = [
        [
            _display.label_text(lab),
            float(res.proportion[i]),
            float(res.statistic[i]),
            float(res.standard_error[i]),
            float(low[i]),
            float(high[i]),
            float(res.pvalue[i]),
        ]
        for i, lab in enumerate(res.labels.tolist())
    ]
    report.table(
        ["category", "share of ratings", "kappa", "standard error", "CI low", "CI high", "p-value"],
        rows,
        caption=_category_caption(res, ci),
    )
