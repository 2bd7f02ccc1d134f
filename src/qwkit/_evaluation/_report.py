"""The figures of an :class:`EvaluationResult` (its tables are ``_layout``'s)."""

from __future__ import annotations

import math

import numpy as np

from qwkit._base import _plots as _p
from qwkit._base._errors import QwkitError
from qwkit._base._validation import check_choice

__all__ = ["plot"]

_RELATION = {">=": ">=", "<=": "<=", "within": "|x| <="}


# ---------------------------------------------------------------------------- figures

_COLORS = {"pass": "tab:green", "fail": "tab:red", "inconclusive": "tab:orange"}


KINDS = ("criteria", "raters", "groups", "confusion", "distribution")


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
    if kind == "distribution":
        return _distribution(res, m, figure)
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


def _point(ax, e, y: float, color: str) -> None:
    """An estimate ``e`` at height ``y``, with its interval where both ends are finite."""
    finite = math.isfinite(e.low) and math.isfinite(e.high)
    ax.errorbar(
        [e.statistic],
        [y],
        xerr=[[e.statistic - e.low], [e.high - e.statistic]] if finite else None,
        fmt="o",
        color=color,
        capsize=3,
    )


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
        _point(ax, e, y, color)
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
    panels = (
        ("kappa", "kappa with the reference human", None),
        ("human_human", "kappa of the humans", None),
        ("group_smd", f"SMD in group (|x| <= {res.settings['max_group_smd']:g})", "group_smd"),
        ("dsm", f"DSM (|x| <= {res.settings['max_dsm']:g})", "dsm"),
    )
    fig = figure(figsize=(11.0, 1.5 + 0.35 * len(m.groups)))
    axes = fig.subplots(1, len(panels), sharey=True)
    labels = [_p.text(g.group) for g in m.groups]
    for ax, (field, title, criterion) in zip(axes, panels, strict=True):
        for y, g in enumerate(m.groups):
            e = getattr(g, field)
            if math.isnan(e.statistic):
                continue
            color = _COLORS[getattr(g, f"verdict_{criterion}")] if criterion else "tab:blue"
            _point(ax, e, y, color)
        if criterion:
            bound = res.settings["max_group_smd" if criterion == "group_smd" else "max_dsm"]
            for x in (-bound, bound):
                ax.axvline(x, color="gray", linestyle="--", linewidth=1)
        ax.set_title(title, fontsize=9)
    axes[0].axvline(m.kappa.statistic, color="gray", linestyle=":", linewidth=1)
    axes[0].set_yticks(range(len(labels)), labels)
    axes[0].set_ylim(len(labels) - 0.5, -0.5)  # the first group on top, as in the tables
    fig.suptitle(f"{_p.text(m.name)}: subgroups, simultaneous (Bonferroni) intervals", fontsize=10)
    fig.tight_layout()
    return fig


def _distribution(res, m, figure):
    dist = m.distribution
    if dist is None:
        raise QwkitError("The scale is too wide for a score distribution.", parameter="kind")
    fig = figure(figsize=(6.5, 3.6))
    ax = fig.subplots()
    x = np.arange(dist.labels.size)
    total_h, total_m = max(int(dist.human.sum()), 1), max(int(dist.machine.sum()), 1)
    ax.bar(x - 0.2, 100.0 * dist.human / total_h, width=0.4, label=_p.text(res.human_names[0]))
    name = _p.text(m.name) + (" (rounded)" if m.real_valued else "")
    ax.bar(x + 0.2, 100.0 * dist.machine / total_m, width=0.4, label=name)
    ax.set_xticks(x, [_p.text(v) for v in dist.labels.tolist()])
    ax.set_ylabel("% of items")
    ax.set_xlabel("score")
    ax.legend(fontsize=8)
    ax.set_title("Score distributions", fontsize=10, loc="left")
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
