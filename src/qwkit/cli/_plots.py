"""The report's figures, drawn with matplotlib (the ``plot`` extra) and returned as PNG bytes.

matplotlib is imported here, lazily, and only through ``matplotlib.figure.Figure`` (whose
``savefig`` renders with the Agg canvas): pyplot and its global backend state are never
touched, so nothing opens a window and ``import qwkit`` never loads matplotlib.
"""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Sequence

import numpy as np

from qwkit._extras import install_command
from qwkit.cli._display import label_text
from qwkit.cli._errors import CliError

__all__ = [
    "MAX_BAR_CLASSES",
    "MAX_CELL_NUMBERS",
    "MAX_CUT_LABELS",
    "MAX_TICK_LABELS",
    "confusion_heatmap",
    "cost_bars",
    "kappa_distribution",
    "model_intervals",
    "pairwise_heatmap",
    "per_class_agreement",
    "percent",
    "png",
    "threshold_plot",
    "tick_step",
]

_DPI = 110
_BLUE, _ORANGE, _GREY, _RED = "#2f6690", "#d9822b", "#8a8a8a", "#b33c3c"


def _missing() -> str:
    return f"Plots need matplotlib: {install_command('plot')}"


def percent(level: float) -> str:
    """A confidence level as a percentage with the digits it needs: 95%, 99.95%."""
    return f"{100 * level:.4g}%"


def _text(value) -> str:
    """User text (a label, a column name) for matplotlib: a '$' is printed, not read as
    the start of a formula."""
    return str(value).replace("$", r"\$")


def _figure(width: float, height: float):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise CliError(_missing()) from None
    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    return fig


def png(fig) -> bytes:
    """A matplotlib figure (one of ours, or a result's ``.plot()``) as PNG bytes."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # a label in a script the font lacks (e.g. CJK) is drawn as a box, not a warning
        warnings.filterwarnings(
            "ignore", message=r"(?s)Glyph .* missing from", category=UserWarning
        )
        fig.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    return buffer.getvalue()


def _tidy(ax) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


#: Most classes whose counts are written in the heatmap's cells.
MAX_CELL_NUMBERS = 20
#: Most labelled ticks on an axis of classes: with more classes, every n-th is labelled.
MAX_TICK_LABELS = 25
#: Most classes drawn as grouped bars (beyond: lines) and named in a legend.
MAX_BAR_CLASSES = 30
MAX_LEGEND_CLASSES = 10
#: Most cut points labelled in the score plot, and rows of labels above the histogram.
MAX_CUT_LABELS = 15
_MAX_CUT_ROWS = 4


def tick_step(k: int) -> int:
    """Label every ``tick_step(k)``-th of ``k`` classes (1: all)."""
    return max(1, math.ceil(k / MAX_TICK_LABELS))


def _class_ticks(axis, k: int, labels: Sequence, *, vertical: bool = False) -> None:
    """Ticks at every class, labels at every ``tick_step(k)``-th (text rotated when it
    would not fit side by side)."""
    step = tick_step(k)
    shown = [_text(label_text(v)) if i % step == 0 else "" for i, v in enumerate(labels)]
    axis.set_ticks(range(k), shown)
    if vertical:
        return
    if k > 10 or max((len(t) for t in shown), default=0) > 4:
        for tick in axis.get_ticklabels():
            tick.set_rotation(90)


def _integer_counts(axis) -> None:
    """Ticks of a count axis at whole numbers (no 2.5 items)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def heatmap_figure(
    confusion: np.ndarray,
    labels: Sequence,
    *,
    title: str,
    truth_name: str,
    pred_name: str,
):
    """The figure of :func:`confusion_heatmap` (for tests of its layout)."""
    table = np.asarray(confusion, dtype=np.float64)
    k = table.shape[0]
    rows = table.sum(axis=1, keepdims=True)
    share = np.divide(table, rows, out=np.zeros_like(table), where=rows > 0)
    size = min(7.5, 3.2 + 0.42 * k)
    fig = _figure(size + 1.2, size)
    ax = fig.add_subplot()
    image = ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0, interpolation="nearest")
    _class_ticks(ax.xaxis, k, labels)
    _class_ticks(ax.yaxis, k, labels, vertical=True)
    ax.set_xlabel(_text(pred_name))
    ax.set_ylabel(_text(truth_name))
    ax.set_title(_text(title))
    if k <= MAX_CELL_NUMBERS:
        whole = np.all(table == np.round(table))
        for i in range(k):
            for j in range(k):
                text = f"{table[i, j]:.0f}" if whole else f"{table[i, j]:.3g}"
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=9 if k <= 10 else 7,
                    color="white" if share[i, j] > 0.55 else "black",
                )
    fig.colorbar(image, ax=ax, shrink=0.8, label="share of the row")
    return fig


def pairwise_figure(values: np.ndarray, names: Sequence[str], *, title: str, label: str):
    """The figure of :func:`pairwise_heatmap` (for tests of its layout)."""
    table = np.asarray(values, dtype=np.float64)
    r = table.shape[0]
    size = min(8.0, 3.2 + 0.5 * r)
    fig = _figure(size + 1.4, size)
    ax = fig.add_subplot()
    shown = np.ma.masked_invalid(table)
    image = ax.imshow(shown, cmap="RdYlBu", vmin=-1.0, vmax=1.0, interpolation="nearest")
    _class_ticks(ax.xaxis, r, names)
    _class_ticks(ax.yaxis, r, names, vertical=True)
    ax.set_title(_text(title))
    if r <= MAX_CELL_NUMBERS:
        for i in range(r):
            for j in range(r):
                if i != j:
                    value = table[i, j]
                    text = "–" if not np.isfinite(value) else f"{value:.2f}"
                    dark = np.isfinite(value) and abs(value) > 0.7
                    ax.text(
                        j,
                        i,
                        text,
                        ha="center",
                        va="center",
                        fontsize=9 if r <= 10 else 7,
                        color="white" if dark else "black",
                    )
    fig.colorbar(image, ax=ax, shrink=0.8, label=_text(label))
    return fig


def pairwise_heatmap(values: np.ndarray, names: Sequence[str], *, title: str, label: str) -> bytes:
    """Heatmap of an r × r matrix of pairwise agreement between raters (the diagonal
    and undefined pairs blank), the values written in the cells up to
    ``MAX_CELL_NUMBERS`` raters."""
    return png(pairwise_figure(values, names, title=title, label=label))


def confusion_heatmap(
    confusion: np.ndarray,
    labels: Sequence,
    *,
    title: str,
    truth_name: str,
    pred_name: str,
) -> bytes:
    """Heatmap of the K×K table; colour is the share of each row. Counts are written in
    the cells up to ``MAX_CELL_NUMBERS`` classes; beyond ``MAX_TICK_LABELS`` classes
    every ``tick_step(K)``-th is labelled (the caption says so)."""
    return png(
        heatmap_figure(confusion, labels, title=title, truth_name=truth_name, pred_name=pred_name)
    )


def per_class_figure(confusion: np.ndarray, labels: Sequence, *, truth_name: str, pred_name: str):
    """The figure of :func:`per_class_agreement` (for tests of its layout)."""
    table = np.asarray(confusion, dtype=np.float64)
    k = table.shape[0]
    rows = table.sum(axis=1)
    diag = np.diag(table)
    near = np.array([table[i, max(0, i - 1) : i + 2].sum() for i in range(k)])
    with np.errstate(invalid="ignore", divide="ignore"):
        exact = np.where(rows > 0, diag / rows, np.nan)
        within = np.where(rows > 0, near / rows, np.nan)
    total = table.sum()
    bars = k <= MAX_BAR_CLASSES
    fig = _figure(min(9.0, 4.0 + 0.55 * k), 5.2)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    x = np.arange(k)
    if bars:
        top.bar(x - 0.2, exact, 0.4, color=_BLUE, label="exact agreement")
        top.bar(x + 0.2, within, 0.4, color=_ORANGE, label="within one class")
    else:  # too many classes for bars: lines
        top.plot(x, exact, "o-", markersize=3, color=_BLUE, label="exact agreement")
        top.plot(x, within, "s-", markersize=3, color=_ORANGE, label="within one class")
    if k <= 12:
        for xi, value in zip(x, exact, strict=True):
            if np.isfinite(value):
                top.text(xi - 0.2, value + 0.02, f"{value:.0%}", ha="center", fontsize=8)
    top.set_ylim(0, 1.32)  # the legend sits above the bars (shares end at 100%)
    top.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    top.set_ylabel("share of the row's items")
    top.set_title(f"Agreement with {_text(truth_name)}, class by class")
    top.legend(loc="upper left", frameon=False, ncols=2, fontsize=9)
    _tidy(top)
    columns = table.sum(axis=0)
    if bars:
        bottom.bar(x - 0.2, rows / total, 0.4, color=_GREY, label=_text(truth_name))
        bottom.bar(x + 0.2, columns / total, 0.4, color=_BLUE, alpha=0.6, label=_text(pred_name))
    else:
        bottom.plot(x, rows / total, "-", color=_GREY, label=_text(truth_name))
        bottom.plot(x, columns / total, "-", color=_BLUE, label=_text(pred_name))
    highest = float(np.nanmax([rows.max(), columns.max()]) / total) if total else 1.0
    bottom.set_ylim(0, 1.6 * highest if highest > 0 else 1.0)  # room for the legend
    bottom.set_ylabel("share of items")
    _class_ticks(bottom.xaxis, k, labels)
    bottom.set_xlabel("class")
    bottom.legend(loc="upper left", frameon=False, ncols=2, fontsize=9)
    _tidy(bottom)
    return fig


def per_class_agreement(
    confusion: np.ndarray, labels: Sequence, *, truth_name: str, pred_name: str
) -> bytes:
    """For each class of the rows (``truth_name``): exact agreement, agreement within one
    class, and the share of the class among both raters' ratings. Beyond
    ``MAX_BAR_CLASSES`` classes, lines instead of bars."""
    return png(per_class_figure(confusion, labels, truth_name=truth_name, pred_name=pred_name))


def kappa_distribution(
    kappa: float,
    interval: tuple[float, float],
    confidence_level: float,
    method: str,
    replicates: np.ndarray,
) -> bytes:
    """Histogram of bootstrap kappas with the estimate and the confidence interval."""
    return png(kappa_figure(kappa, interval, confidence_level, method, replicates))


def kappa_figure(
    kappa: float,
    interval: tuple[float, float],
    confidence_level: float,
    method: str,
    replicates: np.ndarray,
):
    """The figure of :func:`kappa_distribution` (for tests of its layout)."""
    fig = _figure(6.6, 3.8)
    ax = fig.add_subplot()
    finite = replicates[np.isfinite(replicates)]
    ax.hist(
        finite,
        bins=min(60, max(10, finite.size // 40)),
        color=_BLUE,
        alpha=0.85,
        zorder=2,
        label=f"bootstrap kappas ({finite.size:,} resamples)",
    )
    ax.axvline(kappa, color="black", linewidth=2, zorder=3, label=f"kappa = {kappa:.4f}")
    low, high = interval
    if np.isfinite(low) and np.isfinite(high):
        ax.axvspan(
            low,
            high,
            color=_ORANGE,
            alpha=0.18,
            zorder=0,
            label=f"{percent(confidence_level)} CI ({method}) [{low:.4f}, {high:.4f}]",
        )
        for end in (low, high):
            ax.axvline(end, color=_ORANGE, linestyle="--", zorder=3)
    ax.set_xlabel("kappa")
    ax.set_ylabel("resamples")
    _integer_counts(ax.yaxis)
    ax.set_title("Kappa, its confidence interval and the bootstrap distribution")
    ax.legend(frameon=False, fontsize=8, loc="upper left")
    _tidy(ax)
    return fig


def _place_cut_labels(fig, ax, texts: list) -> bool:
    """Stack the cut points' labels in rows at the top of the plot so that no two
    overlap (each as low as it fits, in order along the axis); False (and the labels
    removed) when they would need more than ``_MAX_CUT_ROWS`` rows."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()  # lays the figure out, so that sizes are final
    pad = 4.0  # pixels between two labels of one row
    ends: list[float] = []  # right edge (pixels) of the last label of each row
    boxes = [text.get_window_extent(renderer) for text in texts]
    rows = [0] * len(texts)
    for i in sorted(range(len(texts)), key=lambda i: boxes[i].x0):
        box = boxes[i]
        row = next((r for r, end in enumerate(ends) if box.x0 > end + pad), len(ends))
        if row == len(ends):
            ends.append(box.x1)
        else:
            ends[row] = box.x1
        rows[i] = row
    if len(ends) > _MAX_CUT_ROWS:
        for text in texts:
            text.remove()
        return False
    height = max((box.height for box in boxes), default=0.0)
    axes_height = ax.get_window_extent(renderer).height or 1.0
    step = 1.25 * height / axes_height  # one row, in axes fraction
    for text, row in zip(texts, rows, strict=True):
        text.set_y(0.985 - row * step)
    low, high = ax.get_ylim()
    ax.set_ylim(low, high / max(0.3, 1.0 - (len(ends) * step + 0.04)))  # room above the bars
    return True


def threshold_figure(
    scores: np.ndarray,
    truth: np.ndarray,
    labels: Sequence,
    thresholds: np.ndarray,
    *,
    cut_labels: Sequence | None = None,
    title: str = "Scores by class, with the cut points",
    truth_name: str = "reference",
    legend_title: str | None = None,
):
    """The figure of :func:`threshold_plot` (for tests of its layout)."""
    legend_title = legend_title or f"class of {truth_name}"
    cut_labels = labels if cut_labels is None else cut_labels
    scores = np.asarray(scores, dtype=np.float64)
    fig = _figure(7.2, 4.2)
    ax = fig.add_subplot()
    low, high = float(scores.min()), float(scores.max())
    pad = 0.02 * (high - low or 1.0)
    bins = np.linspace(low - pad, high + pad, 60)
    try:
        from matplotlib import cm, colormaps
        from matplotlib.colors import Normalize
    except ImportError:  # pragma: no cover - matplotlib is there if _figure worked
        raise CliError(_missing()) from None
    cmap = colormaps["viridis"]
    k = len(labels)
    legend = k <= MAX_LEGEND_CLASSES
    for i, label in enumerate(labels):
        part = scores[truth == label]
        if part.size:
            colour = cmap(i / max(1, k - 1))
            ax.hist(
                part,
                bins=bins,
                histtype="stepfilled",
                alpha=0.35,
                color=colour,
                label=f"{_text(label_text(label))} (n={part.size:,})",
            )
            ax.hist(part, bins=bins, histtype="step", color=colour)
    shown = [
        (j, cut)
        for j, cut in enumerate(thresholds)
        if np.isfinite(cut) and low - pad <= cut <= high + pad
    ]
    for _, cut in shown:
        ax.axvline(cut, color=_RED, linestyle="--", linewidth=1.2)
    ax.set_xlabel("score")
    ax.set_ylabel("items")
    _integer_counts(ax.yaxis)
    ax.set_title(_text(title))
    if legend:
        fig.legend(
            title=_text(legend_title),
            frameon=False,
            fontsize=8,
            title_fontsize=8,
            loc="outside right upper",
        )
    else:
        bar = fig.colorbar(
            cm.ScalarMappable(norm=Normalize(-0.5, k - 0.5), cmap=cmap), ax=ax, shrink=0.9
        )
        step = tick_step(k)
        bar.set_ticks(range(0, k, step), labels=[_text(label_text(v)) for v in labels[::step]])
        bar.set_label(_text(legend_title))
    _tidy(ax)
    if 0 < len(shown) <= MAX_CUT_LABELS:
        texts = [
            ax.text(
                cut,
                0.985,
                f"{_text(label_text(cut_labels[j]))}|{_text(label_text(cut_labels[j + 1]))}",
                color=_RED,
                fontsize=8,
                va="top",
                ha="center",
                transform=ax.get_xaxis_transform(),
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5},
            )
            for j, cut in shown
        ]
        _place_cut_labels(fig, ax, texts)
    return fig


def threshold_plot(
    scores: np.ndarray,
    truth: np.ndarray,
    labels: Sequence,
    thresholds: np.ndarray,
    *,
    cut_labels: Sequence | None = None,
    title: str = "Scores by class, with the cut points",
    truth_name: str = "reference",
    legend_title: str | None = None,
) -> bytes:
    """Histogram of the scores of each class of ``truth`` (``labels``), with the cut
    points as dashed lines, each marked with the two classes (``cut_labels``) it
    separates. The marks are stacked so that none overlaps another; with more than
    ``MAX_CUT_LABELS`` cut points (or marks that would need more than four rows) the
    lines are left unmarked (the report's table lists them)."""
    return png(
        threshold_figure(
            scores,
            truth,
            labels,
            thresholds,
            cut_labels=cut_labels,
            title=title,
            truth_name=truth_name,
            legend_title=legend_title,
        )
    )


def model_intervals(
    names: Sequence[str],
    kappas: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    *,
    title: str,
) -> bytes:
    """Forest plot: each model's kappa with its confidence interval."""
    n = len(names)
    fig = _figure(7.2, 1.2 + 0.5 * n)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    k = np.asarray(kappas, dtype=float)
    err = np.vstack([k - np.asarray(lows, dtype=float), np.asarray(highs, dtype=float) - k])
    ax.errorbar(k, y, xerr=err, fmt="o", color=_BLUE, ecolor=_BLUE, capsize=4)
    for yi, value in zip(y, k, strict=True):
        ax.text(value, yi + 0.18, f"{value:.3f}", ha="center", fontsize=8)
    ax.set_yticks(y, list(names))
    ax.set_ylim(-0.6, n - 0.3)
    ax.set_xlabel("quadratic weighted kappa (held out)")
    ax.set_title(title)
    _tidy(ax)
    return png(fig)


def cost_bars(names: Sequence[str], values: Sequence[float], *, xlabel: str, title: str) -> bytes:
    """Horizontal bars of one number per decision rule (e.g. expected profit)."""
    n = len(names)
    fig = _figure(7.2, 1.2 + 0.5 * n)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    v = np.asarray(values, dtype=float)
    ax.barh(y, v, color=[_BLUE if x >= 0 else _RED for x in v])
    for yi, value in zip(y, v, strict=True):
        ax.text(
            value,
            yi,
            f" {value:,.2f} ",
            va="center",
            ha="left" if value >= 0 else "right",
            fontsize=8,
        )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, list(names))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.margins(x=0.2)
    _tidy(ax)
    return png(fig)
