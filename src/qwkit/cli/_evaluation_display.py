"""What ``qwkit evaluate`` shows of an :class:`qwkit.EvaluationResult`: the result's own
tables (``EvaluationResult.tables()``, the ones ``summary()`` prints) on the console and
in the HTML report (``--report``), where the result's figures
(``EvaluationResult.plot``) stand beside the tables they draw. This module only lays
them out."""

from __future__ import annotations

from pathlib import Path

import qwkit
from qwkit.cli import _display, _plots
from qwkit.cli._report import HtmlReport

__all__ = ["print_evaluation", "report"]


def print_evaluation(res, console, *, label: str) -> None:
    """Every table of the result (an evaluation, or one per trait), its notes under it."""
    console.print(f"{label}: may a machine stand in for a human rater?")
    for table in res.tables():
        if table.columns:
            console.print(_display.rich_table(table))
        else:
            console.print(f"{table.title}:")
        for note in table.notes:
            console.print(note)
    if isinstance(res, qwkit.TraitEvaluationResult):
        return
    console.print(
        f"{res.n_items:,} items, {res.n_double_scored:,} rated by two or more humans; "
        f"humans {', '.join(repr(str(h)) for h in res.human_names)} (the first is the "
        "reference)."
    )


# ---------------------------------------------------------------------------- report

#: The figure that follows a table in the report: (the table's key, the plot's kind,
#: alt text, caption).
_FIGURES = {
    "criteria": (
        "criteria",
        "Each criterion's estimate and interval against its threshold",
        "Green: pass; red: fail; orange: inconclusive. Dashed: the threshold(s).",
    ),
    "pairs": (
        "raters",
        "Kappa of each pair of human raters and of each machine with each human",
        "Grey: the pairs of humans (their range shaded); colours: each machine with each "
        "human column. Dashed: the kappa criterion.",
    ),
}


def _figure(report: HtmlReport, fig, *, alt: str, caption: str = "") -> None:
    report.figure(_plots.png(fig), alt=alt, caption=caption)


def _passed(criteria) -> str:
    return f"{sum(c.verdict == 'pass' for c in criteria)} of {len(criteria)} criteria pass"


def report(
    res,
    *,
    file: str,
    source_name: str,
    group: str | None,
    n_rows: int,
    labels_given: bool,
    title: str | None,
    seed: int,
    n_resamples: int,
) -> HtmlReport:
    """The report page of an :class:`qwkit.EvaluationResult` (to be rendered): the
    result's tables in their order, each figure after the table it draws. Of a
    :class:`qwkit.TraitEvaluationResult`: its tables, each trait's criteria drawn."""
    if isinstance(res, qwkit.TraitEvaluationResult):
        return _trait_report(res, file=file, source_name=source_name, title=title)
    s = res.settings
    names = ", ".join(f"'{m.name}'" for m in res.models)
    report = HtmlReport(
        title or f"Scorer evaluation: {Path(file).name if file != '-' else source_name}",
        subtitle=f"May {names} stand in for a human rater? "
        + "; ".join(f"'{m.name}': {m.verdict} ({_passed(m.criteria)})" for m in res.models)
        + ".",
    )
    drawn = set()
    for table in res.tables():
        report.result_table(table)
        key = table.key
        if key in _FIGURES and key not in drawn:
            kind, alt, caption = _FIGURES[key]
            _figure(report, res.plot(kind), alt=alt, caption=caption)
            drawn.add(key)
        model = next((m for m in res.models if f"'{m.name}'" in table.title), None)
        if key == "groups" and model is not None:
            _figure(report, res.plot("groups", model=model.name), alt=f"Subgroups of {model.name}")
        if key == "distribution" and model is not None:
            _figure(
                report,
                res.plot("distribution", model=model.name),
                alt=f"Score distributions of the reference human and {model.name}",
            )
            if res.human_human.confusion is not None and model.confusion is not None:
                _figure(
                    report,
                    res.plot("confusion", model=model.name),
                    alt=f"Confusion tables of the humans and of {model.name}",
                    caption="Counts of each pair of ratings (real-valued scores rounded to "
                    "the nearest point).",
                )
    report.section("Data and settings")
    level = _plots.percent(s["confidence_level"])
    method = s["method"] + (
        f" ({n_resamples:,} resamples, seed {seed})" if s["method"] == "bootstrap" else ""
    )
    scale = ", ".join(_display.label_text(v) for v in list(res.labels)[:30])
    if len(res.labels) > 30:
        scale += f", ... ({len(res.labels):,} categories)"
    rows = [
        ["data", source_name],
        [
            "human columns",
            ", ".join(f"'{h}'" for h in res.human_names) + " (the first is the reference)",
        ],
        ["machine columns", ", ".join(f"'{m.name}'" for m in res.models)],
        ["rows", n_rows],
        ["items with a human rating", res.n_items],
        ["rated by two or more humans", res.n_double_scored],
        ["rating scale", scale + ("" if labels_given else " (every integer between the extremes)")],
        ["weights", res.weights],
        ["intervals", f"{level}, {method}"],
        ["criteria", ", ".join(s["criteria"])],
        ["SMD", f"{s['smd']} SD"],
        ["degradation margin", s["margin"]],
        ["human pairs of the degradation", s["pairs"]],
        [
            "trimming of real-valued scores",
            f"within {s['trim']:g} of the scale" if s["trim"] is not False else "off",
        ],
    ]
    if s.get("clusters"):
        rows.append(["clusters", s["clusters"]])
    if group is not None:
        rows.append(["groups", f"column '{group}'"])
    omitted = [f"'{m.name}': {m.n_omitted:,}" for m in res.models if m.n_omitted]
    if omitted:
        rows.append(["items a machine did not score (omitted)", "; ".join(omitted)])
    report.table(None, rows)
    return report


def _trait_report(res, *, file: str, source_name: str, title: str | None) -> HtmlReport:
    report = HtmlReport(
        title or f"Scorer evaluation by trait: {Path(file).name if file != '-' else source_name}",
        subtitle=f"May the machine stand in for a human rater on {len(res.traits)} traits? "
        f"Overall verdict: {res.verdict}.",
    )
    for table in res.tables():
        report.result_table(table)
        if table.key == "criteria":
            trait = next(t for t in res.traits if table.title.startswith(f"[{t}] "))
            _figure(
                report,
                res[trait].plot("criteria"),
                alt=f"The criteria of trait {trait}",
                caption="Green: pass; red: fail; orange: inconclusive.",
            )
    return report
