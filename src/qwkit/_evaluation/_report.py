"""The text summary and the figures of an :class:`EvaluationResult`."""

from __future__ import annotations

import math

import numpy as np

from qwkit._base import _plots as _p
from qwkit._base._errors import QwkitError
from qwkit._base._validation import check_choice

__all__ = ["plot", "summary"]

_RELATION = {">=": ">=", "<=": "<=", "within": "|x| <="}


def _num(x: float, width: int = 8, digits: int = 4) -> str:
    return f"{'nan':>{width}}" if math.isnan(x) else f"{x:>{width}.{digits}f}"


def _interval(e) -> str:
    return f"[{_num(e.low, 7, 3)}, {_num(e.high, 7, 3)}]"


def summary(res) -> str:
    s = res.settings
    level = f"{100 * s['confidence_level']:g}%"
    title = "Scorer evaluation: may the machine stand in for a human rater?"
    hh = res.human_human
    lines = [
        title,
        "=" * len(title),
        f"Humans: {', '.join(map(str, res.human_names))} (the first is the reference); "
        f"{res.n_items} items, {res.n_double_scored} rated by two or more.",
        f"Weights: {res.weights}; {level} intervals ({s['method']}); verdict 'pass' when the "
        "whole interval lies on the passing side.",
        "",
        f"{'model':<14}{'criterion':<16}{'estimate':>9}  {level + ' interval':<20}"
        f"{'threshold':>14}{'p-value':>9}  verdict",
    ]
    for c in res.criteria:
        rel = f"{_RELATION[c.relation]} {c.threshold:g}"
        lines.append(
            f"{str(c.model)[:13]:<14}{c.name:<16}{_num(c.estimate, 9)}  "
            f"[{_num(c.low, 7, 3)}, {_num(c.high, 7, 3)}] {rel:>14}{_num(c.pvalue, 9)}  "
            f"{c.verdict}"
        )
    lines += ["", f"Overall verdict: {res.verdict}", ""]
    lines += [
        f"Human-human ceiling ({' vs '.join(map(str, hh.raters))}, {hh.n_items} items)",
        f"  kappa {_num(hh.kappa.statistic, 7)} {_interval(hh.kappa)}   "
        f"r {_num(hh.pearson_r.statistic, 7)}   exact {_num(hh.exact_agreement.statistic, 6, 3)}"
        f"   adjacent {_num(hh.adjacent_agreement.statistic, 6, 3)}   "
        f"SMD {_num(hh.smd.statistic, 7)}",
    ]
    if len(hh.pairs) > 1:
        for a, b, e in hh.pairs:
            lines.append(
                f"  kappa {a} vs {b}: {_num(e.statistic, 7)} {_interval(e)} ({e.n_items} items)"
            )
    for m in res.models:
        deg = m.degradation
        omitted = f", {m.n_omitted} not scored (omitted)" if m.n_omitted else ""
        lines += [
            "",
            f"Model {m.name!r} ({m.n_items} items with the reference human{omitted}"
            f"{', real-valued scores' if m.real_valued else ''})",
            f"  kappa with the reference   {_num(m.kappa.statistic, 7)} {_interval(m.kappa)}",
            f"  degradation ({deg.pairs} pair{'s' if deg.n_pairs > 1 else ''}, "
            f"{deg.n_items} items): human-machine {deg.human_machine:.4f}, "
            f"human-human {deg.human_human:.4f}",
            f"  exact agreement            {_num(m.exact_agreement.statistic, 7)} "
            f"{_interval(m.exact_agreement)}",
            f"  adjacent agreement         {_num(m.adjacent_agreement.statistic, 7)} "
            f"{_interval(m.adjacent_agreement)}",
            f"  PRMSE                      {_num(m.prmse.statistic, 7)} "
            f"[{_num(m.prmse.confidence_interval()[0], 7, 3)}, "
            f"{_num(m.prmse.confidence_interval()[1], 7, 3)}]",
        ]
        for rater, e in m.per_rater:
            lines.append(
                f"  kappa with {rater!s:<15} {_num(e.statistic, 7)} {_interval(e)} "
                f"({e.n_items} items)"
            )
        if m.groups:
            lines += [
                f"  Subgroups ({len(m.groups)}; Bonferroni-adjusted intervals, Student's t):",
                f"  {'group':<18}{'items':>6}  {'kappa':>7} {'interval':<18}  {'SMD':>7} "
                f"{'interval':<18}  verdict",
            ]
            for g in m.groups:
                lines.append(
                    f"  {str(g.group)[:17]:<18}{g.n_items:>6}  {_num(g.kappa.statistic, 7)} "
                    f"{_interval(g.kappa)}  {_num(g.smd.statistic, 7)} {_interval(g.smd)}  "
                    f"{g.verdict}"
                )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- figures

_COLORS = {"pass": "tab:green", "fail": "tab:red", "inconclusive": "tab:orange"}


KINDS = ("criteria", "raters", "groups", "confusion")


def _figure():
    return _p.figure_class("EvaluationResult.plot")


def plot(res, kind: str, model):
    kind = check_choice(kind, "kind", KINDS)
    figure = _figure()
    if kind == "criteria":
        return _criteria(res, figure)
    if kind == "raters":
        return _raters(res, figure)
    m = res.models[0] if model is None else res[model]
    if kind == "groups":
        if not m.groups:
            raise QwkitError(
                "This evaluation has no subgroups: pass `groups` to `evaluate_scorer`.",
                parameter="kind",
            )
        return _groups(res, m, figure)
    return _confusion(res, m, figure)


def _criteria(res, figure):
    names = list(dict.fromkeys(c.name for c in res.criteria))
    fig = figure(figsize=(7.0, 1.2 + 1.1 * len(names) * max(1, len(res.models)) ** 0.5))
    axes = fig.subplots(len(names), 1, squeeze=False)[:, 0]
    models = [m.name for m in res.models]
    for ax, name in zip(axes, names, strict=True):
        rows = [c for c in res.criteria if c.name == name]
        for c in rows:
            y = models.index(c.model)
            color = _COLORS[c.verdict]
            ax.errorbar(
                [c.estimate],
                [y],
                xerr=[[max(c.estimate - c.low, 0.0)], [max(c.high - c.estimate, 0.0)]],
                fmt="o",
                color=color,
                capsize=3,
            )
        t = rows[0].threshold
        lines = (-t, t) if rows[0].relation == "within" else (t,)
        for x in lines:
            ax.axvline(x, color="gray", linestyle="--", linewidth=1)
        ax.set_yticks(range(len(models)), [_p.text(x) for x in models])
        ax.set_ylim(len(models) - 0.3, -0.7)  # the first model on top
        ax.set_title(f"{name} ({_RELATION[rows[0].relation]} {t:g})", fontsize=9, loc="left")
    fig.suptitle(
        "Criteria as tests: estimate and interval against the threshold\n"
        "(green: pass, red: fail, orange: inconclusive)",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def _raters(res, figure):
    """Kappa of each machine with each human column, under the kappa of each pair of
    human columns: the machine beside the human-human ceiling, rater by rater."""
    rows = [(f"{_p.text(a)} vs {_p.text(b)}", e, "tab:gray") for a, b, e in res.human_human.pairs]
    palette = ("tab:blue", "tab:purple", "tab:brown", "tab:olive", "tab:cyan", "tab:pink")
    for i, m in enumerate(res.models):
        color = palette[i % len(palette)]
        rows += [(f"{_p.text(m.name)} vs {_p.text(r)}", e, color) for r, e in m.per_rater]
    fig = figure(figsize=(7.5, 1.4 + 0.32 * len(rows)))
    ax = fig.subplots()
    for y, (_, e, color) in enumerate(rows):
        if math.isnan(e.statistic):
            continue
        finite = math.isfinite(e.low) and math.isfinite(e.high)
        ax.errorbar(
            [e.statistic],
            [y],
            xerr=[[e.statistic - e.low], [e.high - e.statistic]] if finite else None,
            fmt="o",
            color=color,
            capsize=3,
        )
    known = [e.statistic for _, _, e in res.human_human.pairs if not math.isnan(e.statistic)]
    if known:
        ax.axvspan(min(known), max(known), color="tab:gray", alpha=0.15, linewidth=0)
    threshold = res.settings["min_kappa"]
    ax.axvline(threshold, color="gray", linestyle="--", linewidth=1)
    n_pairs = len(res.human_human.pairs)
    if n_pairs < len(rows):
        ax.axhline(n_pairs - 0.5, color="lightgray", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for label, _, _ in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel(f"kappa ({res.weights} weights)")
    level = f"{100 * res.settings['confidence_level']:g}%"
    ax.set_title(
        f"Kappa of each pair of raters, {level} intervals; shaded: the human pairs' range, "
        f"dashed: {threshold:g}",
        fontsize=9,
        loc="left",
    )
    fig.tight_layout()
    return fig


def _groups(res, m, figure):
    fig = figure(figsize=(9.0, 1.5 + 0.35 * len(m.groups)))
    ax_k, ax_s = fig.subplots(1, 2, sharey=True)
    labels = [_p.text(g.group) for g in m.groups]
    for y, g in enumerate(m.groups):
        for ax, e in ((ax_k, g.kappa), (ax_s, g.smd)):
            if math.isnan(e.statistic):
                continue
            color = _COLORS[g.verdict] if ax is ax_s else "tab:blue"
            ax.errorbar(
                [e.statistic],
                [y],
                xerr=[[e.statistic - e.low], [e.high - e.statistic]]
                if math.isfinite(e.low) and math.isfinite(e.high)
                else None,
                fmt="o",
                color=color,
                capsize=3,
            )
    bound = res.settings["max_group_smd"]
    for x in (-bound, bound):
        ax_s.axvline(x, color="gray", linestyle="--", linewidth=1)
    ax_k.axvline(m.kappa.statistic, color="gray", linestyle=":", linewidth=1)
    ax_k.set_yticks(range(len(labels)), labels)
    ax_k.set_ylim(len(labels) - 0.5, -0.5)  # the first group on top, as in the tables
    ax_k.set_title("kappa by group", fontsize=9)
    ax_s.set_title(f"SMD by group (|SMD| <= {bound:g})", fontsize=9)
    fig.suptitle(f"{_p.text(m.name)}: subgroups, Bonferroni-adjusted intervals", fontsize=10)
    fig.tight_layout()
    return fig


def _confusion(res, m, figure):
    hh = res.human_human
    tables = [
        (hh.confusion, (_p.text(hh.raters[0]), _p.text(hh.raters[1]))),
        (
            m.confusion,
            (
                _p.text(res.human_names[0]),
                _p.text(m.name) + (" (rounded)" if m.real_valued else ""),
            ),
        ),
    ]
    tables = [(t, title) for t, title in tables if t is not None]
    if not tables:
        raise QwkitError("The scale is too wide for confusion tables.", parameter="kind")
    fig = figure(figsize=(4.5 * len(tables), 4.2))
    axes = fig.subplots(1, len(tables), squeeze=False)[0]
    ticks = [_p.text(x) for x in np.asarray(res.labels).tolist()]
    for ax, (table, (rows, columns)) in zip(axes, tables, strict=True):
        image = ax.imshow(table, cmap="Blues")
        k = table.shape[0]
        for i in range(k):
            for j in range(k):
                if table[i, j]:
                    ax.text(
                        j,
                        i,
                        str(int(table[i, j])),
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if table[i, j] > table.max() / 2 else "black",
                    )
        ax.set_xticks(range(k), ticks)
        ax.set_yticks(range(k), ticks)
        ax.set_title(f"{rows} vs {columns}", fontsize=9)
        ax.set_ylabel(rows)
        ax.set_xlabel(columns)
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    return fig
