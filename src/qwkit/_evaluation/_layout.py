"""An :class:`EvaluationResult` laid out as tables, once: ``summary()``, the console of
``qwkit evaluate`` and its HTML report render these same records
(:mod:`qwkit._base._tables`)."""

from __future__ import annotations

from qwkit._base._tables import Column, Table

__all__ = ["tables"]

_RELATION = {">=": ">=", "<=": "<=", "within": "|x| <="}
#: How the degradation table names each statistic.
_NAMES = {
    "pearson_r": "r",
    "unweighted_kappa": "unw. kappa",
    "exact_agreement": "exact",
    "adjacent_agreement": "adjacent",
    "smd": "SMD",
}


def _percent(level: float) -> str:
    return f"{100 * level:g}%"


def _threshold(c) -> str:
    return f"{_RELATION[c.relation]} {c.threshold:g}"


def _decision(res, m) -> Table:
    level = _percent(res.settings["confidence_level"])
    rows = tuple(
        (c.name, c.estimate, (c.low, c.high), _threshold(c), c.pvalue, c.verdict)
        for c in m.criteria
    )
    passed = sum(c.verdict == "pass" for c in m.criteria)
    notes = [f"Verdict for '{m.name}': {m.verdict} ({passed} of {len(m.criteria)} criteria pass)."]
    notes += [f"  {c.name} inconclusive: {c.reason}." for c in m.criteria if c.reason]
    if m.n_omitted:
        notes.append(f"{m.n_omitted} items not scored by '{m.name}' were left out (omitted).")
    return Table(
        key="criteria",
        title=f"May '{m.name}' stand in for a human rater?",
        columns=(
            Column("criterion", "text"),
            Column("estimate", "number", 4),
            Column(f"{level} CI", "interval", 3),
            Column("threshold", "text"),
            Column("p-value", "pvalue"),
            Column("verdict", "verdict"),
        ),
        rows=rows,
        notes=tuple(notes),
    )


def _legend(res) -> str:
    s = res.settings
    one_sided = _percent((1 - s["confidence_level"]) / 2)
    return (
        f"pass: the whole {_percent(s['confidence_level'])} interval on the passing side of "
        "the threshold; fail: wholly on the other; inconclusive: the data cannot tell (or "
        f"fewer than {s['min_units']} units: the test would not hold its level). p-values: "
        f"the one-sided tests the intervals invert (two for |SMD|), each at level {one_sided}. "
        f"Intervals: {s['method']}"
        + (f", {s['clusters']} clusters" if s.get("clusters") else "")
        + f"; SMD on the {s['smd']} SD."
    )


def _ceiling(res) -> Table:
    hh = res.human_human
    rows = [
        (
            f"{hh.raters[1]} (human)",
            hh.n_items,
            hh.kappa.statistic,
            hh.unweighted_kappa.statistic,
            hh.pearson_r.statistic,
            hh.smd.statistic,
            hh.exact_agreement.statistic,
            hh.adjacent_agreement.statistic,
            None,
        )
    ]
    for m in res.models:
        rows.append(
            (
                str(m.name),
                m.n_items,
                m.kappa.statistic,
                m.unweighted_kappa.statistic,
                m.pearson_r.statistic,
                m.smd.statistic,
                m.exact_agreement.statistic,
                m.adjacent_agreement.statistic,
                m.prmse.statistic,
            )
        )
    number = [Column(n) for n in ("kappa", "unw.", "r", "SMD", "exact", "adj.", "PRMSE")]
    return Table(
        key="ceiling",
        title=(
            f"Agreement with the reference human '{res.human_names[0]}': the human-human "
            "ceiling, then each machine"
        ),
        columns=(Column("rater", "text"), Column("items", "count"), *number),
        rows=tuple(rows),
        notes=(
            f"unw.: unweighted kappa; adj.: adjacent agreement. The humans' SMD is on their "
            f"pooled SD (RSMTool's human-human SMD); a machine's on the {res.settings['smd']} SD.",
        ),
    )


def _accuracy(res) -> Table:
    level = _percent(res.settings["confidence_level"])
    rows = []
    for m in res.models:
        for name, e in (
            ("RMSE", m.rmse),
            ("R²", m.r2),
            ("disattenuated r", m.disattenuated_r),
            ("SMD, pooled SD", m.smd_pooled),
            ("SMD, human SD", m.smd_unpooled),
        ):
            rows.append((str(m.name), name, e.statistic, (e.low, e.high)))
    return Table(
        key="accuracy",
        title=f"Prediction of the reference human '{res.human_names[0]}'",
        columns=(
            Column("model", "text"),
            Column("statistic", "text"),
            Column("estimate", "number", 4),
            Column(f"{level} CI", "interval", 3),
        ),
        rows=tuple(rows),
        notes=(
            "disattenuated r: r with the reference over the square root of the humans' r "
            "(RSMTool's); SMD on the pooled SD: Williamson et al.'s; on the human SD: "
            "RSMTool's default.",
        ),
    )


def _descriptives(res) -> Table:
    rows = []
    hh = res.human_human
    for name, d in ((hh.raters[0], hh.first), (hh.raters[1], hh.second)):
        if d is not None:
            rows.append((f"{name} (double-scored items)", d.n_items, d.mean, d.sd, d.min, d.max))
    for m in res.models:
        rows.append((f"{res.human_names[0]} (with {m.name})", *_desc(m.human)))
        rows.append((str(m.name), *_desc(m.machine)))
    moments = "" if res.settings["moments_on"] == "values" else " (text: positions 1 … K)"
    return Table(
        key="descriptives",
        title=f"Scores{moments}",
        columns=(
            Column("scores", "text"),
            Column("items", "count"),
            Column("mean"),
            Column("SD"),
            Column("min"),
            Column("max"),
        ),
        rows=tuple(rows),
    )


def _desc(d):
    return (d.n_items, d.mean, d.sd, d.min, d.max)


def _degradations(res) -> Table:
    level = _percent(res.settings["confidence_level"])
    rows = []
    for m in res.models:
        d = m.degradation
        rows.append(
            (str(m.name), "kappa", d.human_machine, d.human_human, d.statistic,
             tuple(d.confidence_interval()), d.n_items)
        )  # fmt: skip
        for e in m.degradations:
            rows.append(
                (str(m.name), _NAMES[e.statistic], e.human_machine, e.human_human,
                 e.estimate.statistic, (e.estimate.low, e.estimate.high), e.estimate.n_items)
            )  # fmt: skip
    return Table(
        key="degradation",
        title="Degradation: human-machine minus human-human, on the same items",
        columns=(
            Column("model", "text"),
            Column("statistic", "text"),
            Column("human-machine", "number", 4),
            Column("human-human", "number", 4),
            Column("degradation", "number", 4),
            Column(f"{level} CI", "interval", 3),
            Column("items", "count"),
        ),
        rows=tuple(rows),
    )


def _pairs(res) -> Table:
    level = _percent(res.settings["confidence_level"])
    rows = [
        (str(a), str(b), e.n_items, e.statistic, (e.low, e.high))
        for a, b, e in res.human_human.pairs
    ]
    for m in res.models:
        rows += [
            (str(m.name), str(r), e.n_items, e.statistic, (e.low, e.high)) for r, e in m.per_rater
        ]
    return Table(
        key="pairs",
        title=f"Kappa of each pair of raters ({res.weights} weights)",
        columns=(
            Column("rater", "text"),
            Column("rater", "text"),
            Column("items", "count"),
            Column("kappa", "number", 4),
            Column(f"{level} CI", "interval", 3),
        ),
        rows=tuple(rows),
    )


def _groups(res, m) -> Table:
    s = res.settings
    rows = tuple(
        (
            str(g.group),
            g.n_items,
            g.n_double_scored,
            g.kappa.statistic,
            g.human_human.statistic,
            g.degradation.statistic,
            g.group_smd.statistic,
            (g.group_smd.low, g.group_smd.high),
            g.dsm.statistic,
            (g.dsm.low, g.dsm.high),
            g.verdict_group_smd,
            g.verdict_dsm,
        )
        for g in m.groups
    )
    return Table(
        key="groups",
        title=f"'{m.name}' by group ({len(m.groups)} groups; simultaneous intervals, Bonferroni)",
        columns=(
            Column("group", "text"),
            Column("items", "count"),
            Column("double", "count"),
            Column("kappa"),
            Column("kappa h-h"),
            Column("degradation"),
            Column("SMD in group"),
            Column("CI", "interval"),
            Column("DSM"),
            Column("CI", "interval"),
            Column(f"|SMD| <= {s['max_group_smd']:g}", "verdict"),
            Column(f"|DSM| <= {s['max_dsm']:g}", "verdict"),
        ),
        rows=rows,
        notes=(
            f"SMD in group: (machine mean - human mean) in the group over the population's "
            f"{s['smd']} SD (Williamson et al.'s subgroup SMD); DSM: RSMTool's difference of "
            "standardized means, each score standardized by the population's mean and SD.",
        ),
    )


def _fairness(res, m) -> Table:
    rows = []
    for fit in (
        m.fairness.overall_score_accuracy,
        m.fairness.overall_score_difference,
        m.fairness.conditional_score_difference,
    ):
        if fit.estimate:
            k = max(range(len(fit.estimate)), key=lambda i: abs(fit.estimate[i]))
            largest: tuple[object, ...] = (
                str(fit.groups[k]),
                fit.estimate[k],
                (fit.low[k], fit.high[k]),
                fit.pvalues_adjusted[k],
            )
        else:
            largest = (None, None, None, None)
        rows.append((fit.name, fit.r2, fit.pvalue, str(fit.base_group), *largest))
    return Table(
        key="fairness",
        title=f"'{m.name}': fairness analyses (Loukina, Madnani & Zechner 2019)",
        columns=(
            Column("analysis", "text"),
            Column("adj. R²", "number", 4),
            Column("p (F)", "pvalue"),
            Column("base group", "text"),
            Column("largest group effect", "text"),
            Column("estimate", "number", 4),
            Column("CI", "interval"),
            Column("p (Holm)", "pvalue"),
        ),
        rows=tuple(rows),
        notes=(
            "Accuracy: squared error ~ group; difference: error ~ group; conditional: "
            "error ~ group + human score, R² the gain over the human score alone (as "
            "RSMTool fits them, by OLS).",
        ),
    )


def _comparisons(res) -> Table:
    level = _percent(res.settings["confidence_level"])
    rows = tuple(
        (c.a, c.b, c.kappa_a, c.kappa_b, c.estimate.statistic, (c.estimate.low, c.estimate.high),
         c.pvalue, c.pvalue_adjusted)
        for c in res.comparisons
    )  # fmt: skip
    return Table(
        key="comparisons",
        title="Machines compared: kappa with the reference human on the same items",
        columns=(
            Column("a", "text"),
            Column("b", "text"),
            Column("kappa a", "number", 4),
            Column("kappa b", "number", 4),
            Column("a - b", "number", 4),
            Column(f"{level} CI", "interval", 3),
            Column("p", "pvalue"),
            Column("p (Holm)", "pvalue"),
        ),
        rows=rows,
    )


def _distribution(res, m) -> Table:
    dist = m.distribution
    n_h, n_m = max(int(dist.human.sum()), 1), max(int(dist.machine.sum()), 1)
    rows = tuple(
        (str(label), int(h), 100.0 * h / n_h, int(x), 100.0 * x / n_m)
        for label, h, x in zip(dist.labels.tolist(), dist.human, dist.machine, strict=True)
    )
    return Table(
        key="distribution",
        title=f"Score distribution: '{res.human_names[0]}' and '{m.name}'"
        + (" (rounded)" if m.real_valued else ""),
        columns=(
            Column("score", "text"),
            Column("human", "count"),
            Column("%", "number", 1),
            Column("machine", "count"),
            Column("%", "number", 1),
        ),
        rows=rows,
    )


def _notes(res) -> Table:
    return Table(
        key="diagnostics",
        title="Notes",
        columns=(),
        rows=(),
        notes=tuple(d.message for d in res.diagnostics),
    )


def tables(res) -> tuple[Table, ...]:
    """Every table of the evaluation, in report order."""
    out = [_decision(res, m) for m in res.models]
    legend = Table(
        key="legend", title="How to read the verdicts", columns=(), rows=(), notes=(_legend(res),)
    )
    out.append(legend)
    if res.diagnostics:
        out.append(_notes(res))
    out += [_ceiling(res), _accuracy(res), _degradations(res), _descriptives(res), _pairs(res)]
    for m in res.models:
        if m.groups:
            out.append(_groups(res, m))
        if m.fairness is not None:
            out.append(_fairness(res, m))
    if res.comparisons:
        out.append(_comparisons(res))
    out += [_distribution(res, m) for m in res.models if m.distribution is not None]
    return tuple(out)
