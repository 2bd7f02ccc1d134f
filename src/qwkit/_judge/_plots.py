"""The figures of the judge results (matplotlib through the ``plot`` extra)."""

from __future__ import annotations

import math

import numpy as np

from qwkit._base import _plots as _p
from qwkit._base._errors import QwkitError
from qwkit._base._validation import check_choice

__all__ = ["plot", "plot_position"]

KINDS = ("consistency", "runs", "prompts", "panel", "errors", "ranking")
_COLORS = {"pass": "tab:green", "fail": "tab:red", "inconclusive": "tab:orange"}
_PALETTE = ("tab:blue", "tab:purple", "tab:brown", "tab:olive", "tab:cyan", "tab:pink")


def _figure(width: float, height: float, feature: str = "JudgeReliabilityResult.plot"):
    return _p.figure(width, height, feature=feature)


def _bar(ax, x: float, y: float, e, color: str) -> None:
    """A point at (x, y) with the horizontal interval of the estimate ``e``."""
    if math.isnan(e.statistic):
        return
    finite = math.isfinite(e.low) and math.isfinite(e.high)
    err = [[max(e.statistic - e.low, 0.0)], [max(e.high - e.statistic, 0.0)]] if finite else None
    ax.errorbar([x], [y], xerr=err, fmt="o", color=color, capsize=3)


def _needs(res, what: str, kind: str) -> None:
    raise QwkitError(f"`kind`={kind!r} needs {what}; this result has none.", parameter="kind")


def plot(res, kind: str, judge):
    kind = check_choice(kind, "kind", KINDS)
    judges = [j for j in res.judges if judge is None or j.judge == judge]
    level = _p.percent(res.settings.get("confidence_level", 0.95))
    if kind == "consistency":
        return _consistency(res, judges, level)
    if kind == "runs":
        if not any(j.kappa_by_runs for j in judges):
            _needs(res, "human ratings (`human=`)", kind)
        return _curves(res, [(j.judge, j.kappa_by_runs) for j in judges], level, "runs")
    if kind == "prompts":
        if not any(j.prompt_kappas for j in judges):
            _needs(res, 'prompt variants with human ratings (runs="prompts", `human=`)', kind)
        return _prompts(res, judges, level)
    p = res.panel
    if p is None:
        _needs(res, "a panel (two or more judges)", kind)
    if kind == "panel":
        if not p.curve:
            _needs(res, "human ratings (`human=`)", kind)
        return _curves(res, [("panel", p.curve)], level, "judges")
    if kind == "errors":
        if not p.curve:
            _needs(res, "human ratings (`human=`)", kind)
        return _errors(p)
    if p.system_means is None:
        _needs(res, "systems (`system=`)", kind)
    return _ranking(p)


def _consistency(res, judges, level):
    rows = []
    for j in judges:
        rows += [(f"{_p.text(j.judge)}: {e.coefficient}", e) for e in (j.icc, j.alpha)]
        if j.icc_agreement is not None:
            rows.append((f"{_p.text(j.judge)}: ICC(A,1)", j.icc_agreement))
    if res.human is not None:
        rows += [(f"humans: {e.coefficient}", e) for e in (res.human.icc, res.human.alpha)]
    fig = _figure(7.0, 1.3 + 0.3 * len(rows))
    ax = fig.subplots()
    for y, (label, e) in enumerate(rows):
        _bar(ax, e.statistic, y, e, "tab:gray" if label.startswith("humans") else "tab:blue")
    for edge in (0.5, 0.75, 0.9):
        ax.axvline(edge, color="lightgray", linestyle=":", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("reliability of one run (or one rating)")
    ax.set_title(
        f"Self-consistency over runs, {level} intervals (dotted: Koo & Li's bands)", fontsize=10
    )
    _p.tidy(ax)
    return fig


def _curves(res, series, level, what: str):
    fig = _figure(7.0, 4.2)
    ax = fig.subplots()
    width = 0.08 * max(len(series) - 1, 0)
    for i, (name, rows) in enumerate(series):
        color = _PALETTE[i % len(_PALETTE)]
        xs = [k.size for k in rows]
        ys = [k.kappa.statistic for k in rows]
        shift = -width / 2 + (width * i / max(len(series) - 1, 1) if len(series) > 1 else 0.0)
        ax.plot([x + shift for x in xs], ys, "-", color=color, alpha=0.6, label=_p.text(name))
        for k in rows:
            e = k.kappa
            if math.isnan(e.statistic):
                continue
            ax.errorbar(
                [k.size + shift],
                [e.statistic],
                yerr=[[e.statistic - e.low], [e.high - e.statistic]],
                fmt="o",
                color=color,
                ecolor=_COLORS[k.verdict],
                capsize=3,
            )
    threshold = res.settings.get("min_kappa", 0.7)
    ax.axhline(threshold, color="gray", linestyle="--", linewidth=1)
    if res.human is not None and not math.isnan(res.human.kappa.statistic):
        h = res.human.kappa
        ax.axhspan(h.low, h.high, color="tab:gray", alpha=0.15, linewidth=0)
        ax.axhline(h.statistic, color="tab:gray", linewidth=1)
    ax.set_xlabel(f"number of {what} aggregated ({res.settings.get('aggregate', 'mean')})")
    ax.set_ylabel("kappa with the humans")
    _p.integer_counts(ax.xaxis)
    ax.set_title(
        f"Kappa with the humans as {what} are added, {level} intervals\n(grey: human-human "
        f"kappa; dashed: {threshold:g}; bars: green pass, orange inconclusive, red fail)",
        fontsize=10,
    )
    if len(series) > 1:
        ax.legend(fontsize=8, frameon=False)
    _p.tidy(ax)
    return fig


def _prompts(res, judges, level):
    judges = [j for j in judges if j.prompt_kappas]
    rows = [(j.judge, k) for j in judges for k in j.prompt_kappas]
    fig = _figure(7.0, 1.3 + 0.3 * len(rows))
    ax = fig.subplots()
    for y, (_, k) in enumerate(rows):
        e = k.kappa
        if math.isnan(e.statistic):
            continue
        ax.errorbar(
            [e.statistic], [y], xerr=[[e.statistic - e.low], [e.high - e.statistic]],
            fmt="o", color=_COLORS[k.verdict], capsize=3,
        )  # fmt: skip
    ax.axvline(res.settings.get("min_kappa", 0.7), color="gray", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)), [f"{_p.text(j)}: {_p.text(k.label)}" for j, k in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("kappa with the humans")
    ax.set_title(f"Kappa under each prompt variant, {level} intervals", fontsize=10)
    _p.tidy(ax)
    return fig


def _errors(p):
    m = len(p.judges)
    fig = _figure(1.8 + 0.7 * m, 1.4 + 0.6 * m)
    ax = fig.subplots()
    im = ax.imshow(p.error_correlation, vmin=-1, vmax=1, cmap="RdBu_r")
    names = [_p.text(n) for n in p.judges]
    ax.set_xticks(range(m), names, rotation=45, ha="right")
    ax.set_yticks(range(m), names)
    if m <= _p.MAX_CELL_NUMBERS:
        for a in range(m):
            for b in range(m):
                v = p.error_correlation[a, b]
                if np.isfinite(v):
                    ax.text(b, a, f"{v:.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(im, ax=ax, shrink=0.8)
    e = p.effective_judges
    ax.set_title(
        f"Error correlation; effective judges {e.statistic:.2f} [{e.low:.2f}, {e.high:.2f}]",
        fontsize=10,
    )
    return fig


def _ranking(p):
    s, m = p.system_means.shape
    fig = _figure(7.0, 1.4 + 0.3 * s)
    ax = fig.subplots()
    order = np.argsort(p.system_means.mean(axis=1))[::-1]
    for j in range(m):
        ax.plot(
            p.system_means[order, j],
            range(s),
            "o-",
            color=_PALETTE[j % len(_PALETTE)],
            alpha=0.8,
            label=_p.text(p.judges[j]),
        )
    ax.set_yticks(range(s), [_p.text(p.systems[k]) for k in order])
    ax.set_ylim(s - 0.5, -0.5)
    ax.set_xlabel("mean score")
    w = p.kendall_w
    ax.set_title(
        f"Each judge's mean score of each system; Kendall's W {w.statistic:.2f} "
        f"[{w.low:.2f}, {w.high:.2f}]",
        fontsize=10,
    )
    ax.legend(fontsize=8, frameon=False)
    _p.tidy(ax)
    return fig


def plot_position(res, judge):
    """The 3×3 table of verdicts in both orders, one panel per judge, with the
    first-slot rate and the test's p-value."""
    judges = [j for j in res.judges if judge is None or j.judge == judge]
    n = len(judges)
    fig = _p.figure(3.2 * n + 0.6, 3.4, feature="PositionBiasResult.plot")
    axes = fig.subplots(1, n, squeeze=False)[0]
    names = res.settings.get("verdict_labels", ("A", "B", "tie"))
    for ax, j in zip(axes, judges, strict=True):
        ax.imshow(j.table, cmap="Blues")
        for a in range(3):
            for b in range(3):
                ax.text(b, a, f"{int(j.table[a, b])}", ha="center", va="center", fontsize=9)
        ax.set_xticks(range(3), [_p.text(x) for x in names])
        ax.set_yticks(range(3), [_p.text(x) for x in names])
        ax.set_xlabel("verdict, swapped order")
        ax.set_ylabel("verdict, original order")
        f = j.first_slot_rate
        ax.set_title(
            f"{_p.text(j.judge)}\nfirst slot {f.statistic:.2f} [{f.low:.2f}, {f.high:.2f}], "
            f"p = {j.pvalue:.3g}",
            fontsize=9,
        )
    return fig
