"""What ``qwkit judge`` shows of a :class:`qwkit.JudgeReliabilityResult` or a
:class:`qwkit.PositionBiasResult`: the result's own tables (``tables()``, the ones
``summary()`` prints) on the console and in the HTML report (``--report``), where the
result's figures stand after the tables they draw. The report leads with the answers.
This module only lays them out."""

from __future__ import annotations

import functools
from pathlib import Path

from qwkit.cli import _display, _plots
from qwkit.cli._report import HtmlReport

__all__ = ["position_report", "print_tables", "reliability_report"]


def print_tables(res, console, *, heading: str) -> None:
    """Every table of the result, its notes under it."""
    console.print(heading)
    for table in res.tables():
        if table.columns:
            console.print(_display.rich_table(table))
        else:
            console.print(f"{table.title}:")
        for note in table.notes:
            console.print(note)


#: The figure after a table of the reliability report: table key → (kind, alt, caption).
_FIGURES = {
    "consistency": (
        "consistency",
        "Each judge's single-run reliability with its interval, beside the humans'",
        "Dotted: Koo & Li's bands (0.5, 0.75, 0.9).",
    ),
    "runs": (
        "runs",
        "Kappa with the humans as runs are added, per judge",
        "Grey band: the human-human kappa and its interval; dashed: the threshold. "
        "Bars: green pass, orange inconclusive, red fail.",
    ),
    "prompts": ("prompts", "Kappa with the humans under each prompt variant", ""),
    "errors": ("errors", "Correlation of the judges' errors", ""),
    "panel": ("panel", "Kappa with the humans as judges join the panel", ""),
    "ranking": ("ranking", "Each judge's mean score of each system", ""),
}


def _name(file: str, source_name: str) -> str:
    return Path(file).name if file != "-" else source_name


def _subtitle(res) -> str:
    s = res.settings
    judges = ", ".join(j.judge for j in res.judges)
    runs = "prompt variants" if s["runs"] == "prompts" else "runs"
    humans = f"; {s['human_raters']} human rating column(s)" if s.get("human_raters") else ""
    return (
        f"{len(res.judges)} judge(s) ({judges}) on {s['n_items']:,} items, "
        f"{len(s['run_names'])} {runs}{humans}. The answers first, then the evidence."
    )


def reliability_report(res, *, file: str, source_name: str, settings: list, title) -> HtmlReport:
    """The report page of a judge reliability analysis (to be rendered)."""
    report = HtmlReport(
        title or f"LLM judge reliability: {_name(file, source_name)}",
        subtitle=_subtitle(res),
    )
    for table in res.tables():
        report.result_table(table)
        if table.key in _FIGURES:
            kind, alt, caption = _FIGURES[table.key]
            report.figure(_plots.drawn(functools.partial(res.plot, kind)), alt=alt, caption=caption)
    report.section("Data and settings")
    report.table(None, settings)
    return report


def position_report(res, *, file: str, source_name: str, settings: list, title) -> HtmlReport:
    """The report page of a position-bias test (to be rendered)."""
    verdicts = "; ".join(f"{j.judge}: {j.verdict}" for j in res.judges)
    report = HtmlReport(
        title or f"Position bias of a pairwise judge: {_name(file, source_name)}",
        subtitle=f"Is there a position bias? {verdicts}.",
    )
    drawn = False
    for table in res.tables():
        report.result_table(table)
        if table.key == "position" and not drawn:
            report.figure(
                _plots.drawn(res.plot),
                alt="Verdicts with the responses in both orders, per judge",
                caption="Rows: the verdict with A shown first; columns: with B shown first. "
                "A judge without position bias fills the diagonal.",
            )
            drawn = True
    report.section("Data and settings")
    report.table(None, settings)
    return report
