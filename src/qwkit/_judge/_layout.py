"""The tables of a :class:`JudgeReliabilityResult` (the one table model of
``qwkit._base._tables``): the answers first, then the evidence."""

from __future__ import annotations

import math

from qwkit._base._tables import Column, Table

__all__ = ["answers", "tables"]


def _num(x: float, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}f}"


def _runs(x: float) -> str:
    if math.isnan(x):
        return "nan"
    return "never" if math.isinf(x) else f"{int(x)}"


def _interval(e, digits: int = 2) -> str:
    return f"[{_num(e.low, digits)}, {_num(e.high, digits)}]"


def _consistent(j) -> str:
    if j.constant:
        return "undefined: it gives every item the same score"
    basis = j.icc_agreement if j.icc_agreement is not None else j.icc
    return f"{j.rating} ({basis.coefficient} = {_num(basis.statistic)} {_interval(basis)})"


def _how_many(j) -> str:
    r = j.runs_needed
    if math.isnan(r.runs):
        return "undefined"
    span = f"[{_runs(r.low)}, {_runs(r.high)}]"
    if math.isinf(r.runs):
        return f"no number of runs reaches {r.target:g} (single-run reliability <= 0) {span}"
    if r.runs == 1:
        return f"one run already reaches reliability {r.target:g} {span}"
    return f"{_runs(r.runs)} runs for reliability {r.target:g} {span}"


def _payoff(j) -> str:
    first, last = j.kappa_by_runs[0], j.kappa_by_runs[-1]
    text = f"kappa {_num(first.kappa.statistic)} with one run ({first.verdict})"
    if last.size > 1:
        text += f"; {_num(last.kappa.statistic)} with {last.label} ({last.verdict})"
    return text + f"; threshold {last.threshold:g}"


def _ceiling(res) -> str:
    if res.human is None or math.isnan(res.human.kappa.statistic):
        return ""
    return f"; humans with each other: {_num(res.human.kappa.statistic)}"


def _prompt_answer(j) -> str:
    verdicts = j.prompt_verdicts
    decided = {v for v in verdicts if v != "inconclusive"}
    kappas = [k.kappa.statistic for k in j.prompt_kappas]
    spread = f"kappa {_num(min(kappas))} to {_num(max(kappas))} across variants"
    differ = [c for c in j.prompt_comparisons if c.pvalue_adjusted < 0.05]
    pairs = f"{len(differ)} of {len(j.prompt_comparisons)} pairs differ (Holm, 5%)"
    if len(decided) > 1:
        head = "yes: " + ", ".join(f"{k.members[0]}: {k.verdict}" for k in j.prompt_kappas)
    elif len(set(verdicts)) > 1:
        head = "perhaps: " + ", ".join(f"{k.members[0]}: {k.verdict}" for k in j.prompt_kappas)
    else:
        head = f"no: {verdicts[0]} under every variant"
    return f"{head}; {spread}; {pairs}"


def answers(res) -> tuple[tuple[str, str], ...]:
    out = []
    for j in res.judges:
        out.append((f"Is {j.judge} self-consistent?", _consistent(j)))
    for j in res.judges:
        out.append((f"How many runs does {j.judge} need?", _how_many(j)))
    for j in res.judges:
        if j.kappa_by_runs:
            out.append(
                (f"Does asking {j.judge} more often make it pass?", _payoff(j) + _ceiling(res))
            )
    for j in res.judges:
        if j.prompt_kappas:
            out.append((f"Does the prompt change {j.judge}'s verdict?", _prompt_answer(j)))
    p = res.panel
    if p is not None and not math.isnan(p.effective_judges.statistic):
        e = p.effective_judges
        out.append(
            (
                f"How many independent judges are the {len(p.judges)}?",
                f"{_num(e.statistic, 1)} {_interval(e, 1)}",
            )
        )
    if p is not None and p.kendall_w is not None:
        w = p.kendall_w
        out.append(
            (
                "Do the judges rank the systems alike?",
                f"Kendall's W = {_num(w.statistic)} {_interval(w)} over {len(p.systems)} systems",
            )
        )
    return tuple(out)


def _est_cells(e):
    if e is None:
        return (None, None)
    return (e.statistic, (e.low, e.high))


def tables(res) -> tuple[Table, ...]:
    level = f"{100 * res.settings.get('confidence_level', 0.95):g}%"
    out = [
        Table(
            "answers",
            "The answers",
            (Column("question", "text"), Column("answer", "text")),
            tuple(answers(res)),
        )
    ]
    prompts = any(j.icc_agreement is not None for j in res.judges)
    cols = [
        Column("judge", "text"),
        Column("items", "count"),
        Column("runs", "count"),
        Column("ICC(1)"),
        Column(level, "interval"),
        Column("alpha"),
        Column(level, "interval"),
    ]
    if prompts:
        cols += [Column("ICC(A,1)"), Column(level, "interval")]
    cols += [Column("rating", "text")]
    rows = []
    for j in res.judges:
        row = [j.judge, j.n_items, j.n_runs, *_est_cells(j.icc), *_est_cells(j.alpha)]
        if prompts:
            row += list(_est_cells(j.icc_agreement))
        row.append(j.rating)
        rows.append(tuple(row))
    basis = "ICC(A,1)" if prompts else "ICC(1)"
    out.append(
        Table(
            "consistency",
            "Self-consistency over runs",
            tuple(cols),
            tuple(rows),
            (
                "Jackknife over items, Student's t on a Fisher-z scale. Rating: Koo & Li "
                f"(2016) bands of {basis} read on its interval (poor < 0.5 <= moderate < "
                "0.75 <= good < 0.9 <= excellent).",
            ),
        )
    )
    out.append(
        Table(
            "runs_needed",
            f"Runs needed for reliability {res.settings.get('target', 0.8):g} (Spearman-Brown)",
            (
                Column("judge", "text"),
                Column("basis", "text"),
                Column("one run"),
                Column("runs", "text"),
                Column(f"{level} runs", "text"),
            ),
            tuple(
                (
                    j.judge,
                    j.runs_needed.basis,
                    j.runs_needed.reliability[0][1] if j.runs_needed.reliability else None,
                    _runs(j.runs_needed.runs),
                    f"[{_runs(j.runs_needed.low)}, {_runs(j.runs_needed.high)}]",
                )
                for j in res.judges
            ),
            ("The interval's runs are those its single-run limits need.",),
        )
    )
    if res.human is not None:
        h = res.human
        out.append(
            Table(
                "human",
                "The humans' own reliability",
                (
                    Column("statistic", "text"),
                    Column("estimate"),
                    Column(level, "interval"),
                    Column("items", "count"),
                ),
                tuple(
                    (name, *_est_cells(e), e.n_items)
                    for name, e in (
                        ("ICC(1) of one rating", h.icc),
                        ("alpha", h.alpha),
                        ("kappa of pairs of ratings", h.kappa),
                    )
                ),
                (
                    f"{h.n_items:,} items with a human rating, {h.n_double_rated:,} with two "
                    "or more.",
                ),
            )
        )
    kappa_cols = (
        Column("judge", "text"),
        Column("scored", "text"),
        Column("kappa"),
        Column(level, "interval"),
        Column("p (<= min)", "pvalue"),
        Column("verdict", "verdict"),
    )
    runs_rows = tuple(
        (j.judge, k.label, *_est_cells(k.kappa), k.pvalue, k.verdict)
        for j in res.judges
        for k in j.kappa_by_runs
    )
    if runs_rows:
        notes = [
            f"Quadratic kappa with every human rating of an item (pooled); verdict against "
            f"{res.settings.get('min_kappa', 0.7):g}: pass when the whole interval is at or "
            "above it, fail when wholly below. k runs: averaged over the cyclic subsets of "
            "k runs."
        ]
        if res.human is not None:
            notes.append(
                f"Human-human kappa (the ceiling): {_num(res.human.kappa.statistic, 3)} "
                f"{_interval(res.human.kappa, 3)}."
            )
        out.append(
            Table(
                "runs",
                "Kappa with the humans as runs are added",
                kappa_cols,
                runs_rows,
                tuple(notes),
            )
        )
    prompt_rows = tuple(
        (j.judge, k.label, *_est_cells(k.kappa), k.pvalue, k.verdict)
        for j in res.judges
        for k in j.prompt_kappas
    )
    if prompt_rows:
        out.append(
            Table(
                "prompts",
                "Kappa with the humans under each prompt variant",
                kappa_cols,
                prompt_rows,
            )
        )
        out.append(
            Table(
                "prompt_pairs",
                "Prompt variants compared on the same items",
                (
                    Column("judge", "text"),
                    Column("variants", "text"),
                    Column("difference"),
                    Column(level, "interval"),
                    Column("p-value", "pvalue"),
                    Column("Holm", "pvalue"),
                    Column("items", "count"),
                ),
                tuple(
                    (
                        c.judge,
                        f"{c.first} - {c.second}",
                        c.difference,
                        (c.low, c.high),
                        c.pvalue,
                        c.pvalue_adjusted,
                        c.n_items,
                    )
                    for j in res.judges
                    for c in j.prompt_comparisons
                ),
                ("Paired jackknife of the difference of kappas; Holm over each judge's pairs.",),
            )
        )
    p = res.panel
    if p is not None and p.curve:
        e = p.effective_judges
        note = "Errors: each judge's mean over its runs minus the mean human rating" + (
            ", the human mean's own noise removed (eq. J11)." if p.human_noise_removed else "."
        )
        out.append(
            Table(
                "errors",
                "Correlation of the judges' errors",
                (
                    Column("judge", "text"),
                    Column("error SD"),
                    *(Column(name) for name in p.judges),
                ),
                tuple(
                    (name, float(p.error_sd[a]), *(float(x) for x in p.error_correlation[a]))
                    for a, name in enumerate(p.judges)
                ),
                (
                    note,
                    f"Effective number of independent judges: {_num(e.statistic, 2)} "
                    f"{_interval(e, 2)} of {len(p.judges)} ({p.n_items:,} items).",
                ),
            )
        )
        out.append(
            Table(
                "panel",
                "Kappa with the humans as judges join the panel",
                (
                    Column("panel", "text"),
                    Column("judges", "text"),
                    Column("kappa"),
                    Column(level, "interval"),
                    Column("p (<= min)", "pvalue"),
                    Column("verdict", "verdict"),
                ),
                tuple(
                    (k.label, ", ".join(k.members), *_est_cells(k.kappa), k.pvalue, k.verdict)
                    for k in p.curve
                ),
                ("Judges join in the order of their own kappa with the humans.",),
            )
        )
    if p is not None and p.kendall_w is not None:
        w = p.kendall_w
        out.append(
            Table(
                "ranking",
                "Stability of the systems' ranking across judges",
                (
                    Column("statistic", "text"),
                    Column("estimate"),
                    Column(level, "interval"),
                    Column("Friedman p", "pvalue"),
                    Column("systems", "count"),
                ),
                (("Kendall's W", w.statistic, (w.low, w.high), p.kendall_pvalue, len(p.systems)),),
                ("Interval: parametric bootstrap of the systems' mean scores (eq. J14).",),
            )
        )
    if res.notes:
        out.append(Table("notes", "Notes", (), (), tuple(res.notes)))
    return tuple(out)
