"""What ``qwkit evaluate`` shows of an :class:`qwkit.EvaluationResult`: the tables it
prints, and its HTML report (``--report``). Both lead with the decision table, then the
human-human ceiling beside each machine, every pair of raters' kappa, the subgroups; the
report adds the degradation and PRMSE in detail, the confusion tables and the figures,
which are the result's own (``EvaluationResult.plot``): this module only lays them out."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from qwkit.cli import _display, _plots
from qwkit.cli._report import HtmlReport

__all__ = ["print_evaluation", "report"]


# ---------------------------------------------------------------------------- tables


def _interval(low: float, high: float) -> str:
    return f"[{_display.number(low, 3)}, {_display.number(high, 3)}]"


_RELATION = {">=": ">=", "<=": "<=", "within": "|x| <="}


def _threshold_text(c) -> str:
    """A criterion's threshold as a user reads it: ``>= 0.7``, ``|x| <= 0.15``."""
    return f"{_RELATION[c.relation]} {c.threshold:g}"


def _decision_table(res, model, title: str) -> Table:
    """The criteria of one machine as tests, one row each: what ``evaluate`` prints
    first."""
    level = _plots.percent(res.settings["confidence_level"])
    table = Table(title=title, show_edge=False)
    for name in ("criterion", "estimate", f"{level} CI", "threshold", "p-value"):
        table.add_column(name, justify="left" if name == "criterion" else "right")
    table.add_column("verdict")
    for c in model.criteria:
        table.add_row(
            c.name,
            _display.number(c.estimate),
            _interval(c.low, c.high),
            _threshold_text(c),
            _display.pvalue(c.pvalue),
            c.verdict,
        )
    return table


def _passed(criteria) -> str:
    return f"{sum(c.verdict == 'pass' for c in criteria)} of {len(criteria)} criteria pass"


def _ceiling_rows(res) -> list[list]:
    """The human-human pair and each machine with the reference human, side by side:
    (who, items, kappa (an Estimate), r, SMD, exact, adjacent, PRMSE or None)."""
    hh = res.human_human
    rows = [
        [
            f"{hh.raters[1]} (human)",
            hh.n_items,
            hh.kappa,
            hh.pearson_r.statistic,
            hh.smd.statistic,
            hh.exact_agreement.statistic,
            hh.adjacent_agreement.statistic,
            None,
        ]
    ]
    for m in res.models:
        rows.append(
            [
                str(m.name),
                m.n_items,
                m.kappa,
                m.pearson_r.statistic,
                m.smd.statistic,
                m.exact_agreement.statistic,
                m.adjacent_agreement.statistic,
                m.prmse.statistic,
            ]
        )
    return rows


def _pair_rows(res) -> list[tuple[str, str, object]]:
    """(rater, rater, Estimate) of every pair of human columns, then of every machine
    with every human column."""
    rows = [(str(a), str(b), e) for a, b, e in res.human_human.pairs]
    for m in res.models:
        rows += [(str(m.name), str(r), e) for r, e in m.per_rater]
    return rows


def print_evaluation(res, console, *, label: str) -> None:
    number = _display.number
    level = _plots.percent(res.settings["confidence_level"])
    for m in res.models:
        title = f"{label}: may '{m.name}' stand in for a human rater?"
        console.print(_decision_table(res, m, title))
        console.print(f"Verdict for '{m.name}': {m.verdict} ({_passed(m.criteria)}).")
    console.print(
        f"pass: the whole {level} interval on the passing side of the threshold; fail: "
        "wholly on the other; inconclusive: the data cannot tell. p-values: the one-sided "
        "tests the intervals invert (two for |SMD|), each at level "
        f"{_plots.percent((1 - res.settings['confidence_level']) / 2)}: a p-value above it is "
        "inconclusive, however small."
    )
    ref = res.human_names[0]
    ceiling = Table(
        title=f"Agreement with the reference human '{ref}': the human-human ceiling, then "
        "each machine",
        show_edge=False,
    )
    for name in ("rater", "items", "kappa", "r", "SMD", "exact", "adjacent", "PRMSE"):
        ceiling.add_column(name, justify="left" if name == "rater" else "right")
    for who, n, kappa, r, smd, exact, adjacent, prm in _ceiling_rows(res):
        ceiling.add_row(
            who,
            f"{n:,}",
            number(kappa.statistic, 3),
            number(r, 3),
            number(smd, 3),
            number(exact, 3),
            number(adjacent, 3),
            "" if prm is None else number(prm, 3),
        )
    console.print(ceiling)
    for m in res.models:
        d = m.degradation
        low, high = d.confidence_interval()
        console.print(
            f"'{m.name}': degradation {number(d.statistic)} {_interval(low, high)} = "
            f"human-machine {number(d.human_machine)} - human-human {number(d.human_human)} "
            f"on the same {d.n_items:,} items ({d.n_pairs} human pair"
            f"{'s' if d.n_pairs != 1 else ''})"
            + (f"; {m.n_omitted:,} items not scored, omitted" if m.n_omitted else "")
        )
    pairs = Table(title=f"Kappa of each pair of raters ({res.weights} weights)", show_edge=False)
    for name in ("rater", "rater", "items", "kappa", f"{level} CI"):
        pairs.add_column(name, justify="left" if name == "rater" else "right")
    for a, b, e in _pair_rows(res):
        pairs.add_row(a, b, f"{e.n_items:,}", number(e.statistic), _interval(e.low, e.high))
    console.print(pairs)
    for m in res.models:
        if not m.groups:
            continue
        groups = Table(
            title=f"'{m.name}' by group: SMD within each, |SMD| <= "
            f"{res.settings['max_group_smd']:g}; intervals Bonferroni-adjusted over "
            f"{len(m.groups)} groups",
            show_edge=False,
        )
        for name in ("group", "items", "kappa", "SMD", f"{level} CI"):
            groups.add_column(name, justify="left" if name == "group" else "right")
        groups.add_column("verdict")
        for g in m.groups:
            groups.add_row(
                _display.label_text(g.group),
                f"{g.n_items:,}",
                number(g.kappa.statistic, 3),
                number(g.smd.statistic, 3),
                _interval(g.smd.low, g.smd.high),
                g.verdict,
            )
        console.print(groups)
    console.print(
        f"{res.n_items:,} items, {res.n_double_scored:,} rated by two or more humans; "
        f"humans {', '.join(repr(str(h)) for h in res.human_names)} (the first is the "
        f"reference); {res.settings['method']} intervals."
    )


# ---------------------------------------------------------------------------- report


def _figure(report: HtmlReport, fig, *, alt: str, caption: str = "") -> None:
    report.figure(_plots.png(fig), alt=alt, caption=caption)


def _decision(report: HtmlReport, res, level: str) -> None:
    report.section("Decision: the criteria as tests")
    report.paragraph(
        "Each criterion of Williamson, Xi & Breyer (2012) is a test: its estimate, the "
        f"{level} confidence interval, the threshold, the p-value of the one-sided test "
        "(for |SMD|, the larger of two one-sided tests) and the verdict — pass when the "
        "whole interval lies on the passing side of the threshold, fail when it lies wholly "
        "on the other, inconclusive when the data cannot tell (too few items)."
    )
    report.table(
        [
            "machine",
            "criterion",
            "estimate",
            "CI low",
            "CI high",
            "threshold",
            "p-value",
            "verdict",
        ],
        [
            [
                str(c.model),
                c.name,
                c.estimate,
                c.low,
                c.high,
                _threshold_text(c),
                _display.pvalue(c.pvalue),
                c.verdict,
            ]
            for c in res.criteria
        ],
    )
    _figure(
        report,
        res.plot("criteria"),
        alt="Each criterion's estimate and interval against its threshold",
        caption="Green: pass; red: fail; orange: inconclusive. Dashed: the threshold(s).",
    )


def _ceiling(report: HtmlReport, res, level: str) -> None:
    ref = res.human_names[0]
    report.section("The human-human ceiling beside each machine")
    report.paragraph(
        f"Every statistic with the reference human '{ref}': first the second human on the "
        "items both humans rated (how well humans agree with each other), then each "
        "machine on the items it shares with the reference."
    )
    report.table(
        [
            "rater",
            "items",
            "kappa",
            "CI low",
            "CI high",
            "Pearson r",
            "SMD",
            "exact",
            "adjacent",
            "PRMSE",
        ],
        [
            [who, n, k.statistic, k.low, k.high, r, smd, exact, adjacent, "" if p is None else p]
            for who, n, k, r, smd, exact, adjacent, p in _ceiling_rows(res)
        ],
        caption=f"{level} intervals. SMD: (mean − mean of '{ref}') / sd of '{ref}' "
        "(between the humans: over their pooled sd). Exact and adjacent agreement round "
        "real-valued scores to the nearest rating.",
    )
    rows = []
    for m in res.models:
        d = m.degradation
        low, high = d.confidence_interval()
        rows.append(
            [
                str(m.name),
                d.n_items,
                d.human_machine,
                d.human_human,
                d.statistic,
                d.standard_error,
                low,
                high,
                _display.pvalue(d.pvalue),
                f"{d.n_pairs} ({d.pairs})",
            ]
        )
    report.section("The degradation, on the same items", level=3)
    report.paragraph(
        "Kappa of the machine with a human minus the kappa of two humans, both on the items "
        "rated by the humans and scored by the machine, with a paired standard error (the "
        "two kappas share a rater and the items). The p-value is that of H0: degradation ≤ "
        f"−{res.settings['margin']:g}."
    )
    report.table(
        [
            "machine",
            "items",
            "human-machine",
            "human-human",
            "degradation",
            "SE",
            "CI low",
            "CI high",
            "p-value",
            "human pairs",
        ],
        rows,
    )
    report.section("Kappa of each pair of raters", level=3)
    _figure(
        report,
        res.plot("raters"),
        alt="Kappa of each pair of human raters and of each machine with each human",
        caption="Grey: the pairs of humans (their range shaded); colours: each machine with "
        "each human column. Dashed: the kappa criterion.",
    )
    report.table(
        ["rater", "rater", "items", "kappa", "SE", "CI low", "CI high"],
        [
            [a, b, e.n_items, e.statistic, e.standard_error, e.low, e.high]
            for a, b, e in _pair_rows(res)
        ],
    )


def _prmse(report: HtmlReport, res) -> None:
    report.section("PRMSE: agreement with the true score")
    report.paragraph(
        "How well each machine predicts the true score (the mean rating of infinitely many "
        "raters), with rater error estimated from the items rated twice or more (Loukina "
        "et al. 2020). It is undefined (nan) when the human ratings vary no more between "
        "items than rater error explains."
    )
    rows = []
    for m in res.models:
        p = m.prmse
        low, high = p.confidence_interval()
        rows.append(
            [
                str(m.name),
                p.statistic,
                p.standard_error,
                low,
                high,
                p.variance_of_errors,
                p.true_score_variance,
                p.mse_true,
                p.n_items,
                p.n_double_scored,
            ]
        )
    report.table(
        [
            "machine",
            "PRMSE",
            "SE",
            "CI low",
            "CI high",
            "rater error variance",
            "true-score variance",
            "MSE (true score)",
            "items",
            "double-scored",
        ],
        rows,
    )


def _groups(report: HtmlReport, res, level: str) -> None:
    bound = res.settings["max_group_smd"]
    report.section("Subgroups")
    report.paragraph(
        f"Kappa and SMD within each group, with {level} intervals adjusted for the number of "
        "groups (Bonferroni) on Student's t: a small group gets a wide interval. The SMD's "
        f"unit is the reference human's sd over all items; the criterion is |SMD| ≤ {bound:g}."
    )
    for m in res.models:
        report.section(f"Machine '{m.name}'", level=3)
        _figure(report, res.plot("groups", model=m.name), alt=f"Subgroups of {m.name}")
        report.table(
            [
                "group",
                "items",
                "kappa",
                "CI low",
                "CI high",
                "SMD",
                "CI low",
                "CI high",
                "p-value",
                "verdict",
            ],
            [
                [
                    _display.label_text(g.group),
                    g.n_items,
                    g.kappa.statistic,
                    g.kappa.low,
                    g.kappa.high,
                    g.smd.statistic,
                    g.smd.low,
                    g.smd.high,
                    _display.pvalue(g.pvalue),
                    g.verdict,
                ]
                for g in m.groups
            ],
        )


def _confusion(report: HtmlReport, res) -> None:
    report.section("Confusion tables")
    hh = res.human_human
    if hh.confusion is None:
        report.paragraph(
            f"The scale has {len(res.labels):,} categories: too many for confusion tables."
        )
        return
    report.paragraph(
        f"Counts of each pair of ratings: the first two humans ('{hh.raters[0]}' in rows), "
        "then the reference human and the machine (real-valued scores rounded to the "
        "nearest rating)."
    )
    for m in res.models:
        _figure(
            report,
            res.plot("confusion", model=m.name),
            alt=f"Confusion tables of the humans and of {m.name}",
        )


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
    """The report page of an :class:`qwkit.EvaluationResult` (to be rendered)."""
    s = res.settings
    level = _plots.percent(s["confidence_level"])
    names = ", ".join(f"'{m.name}'" for m in res.models)
    report = HtmlReport(
        title or f"Scorer evaluation: {Path(file).name if file != '-' else source_name}",
        subtitle=f"May {names} stand in for a human rater? "
        + "; ".join(f"'{m.name}': {m.verdict} ({_passed(m.criteria)})" for m in res.models)
        + ".",
    )
    _decision(report, res, level)
    _ceiling(report, res, level)
    _prmse(report, res)
    if any(m.groups for m in res.models):
        _groups(report, res, level)
    _confusion(report, res)
    report.section("Data and settings")
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
        ["degradation margin", s["margin"]],
        ["human pairs of the degradation", s["pairs"]],
    ]
    if group is not None:
        rows.append(["groups", f"column '{group}'"])
    omitted = [f"'{m.name}': {m.n_omitted:,}" for m in res.models if m.n_omitted]
    if omitted:
        rows.append(["items a machine did not score (omitted)", "; ".join(omitted)])
    report.table(None, rows)
    return report
