"""The figures of two raters' kappa (``KappaTestResult.plot``): the confusion matrix as a
heatmap, agreement class by class, and the bootstrap distribution with the interval."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from qwkit._base import _plots as _p

__all__ = ["bootstrap_figure", "classes_figure", "confusion_figure"]


def confusion_figure(
    confusion: np.ndarray,
    labels: Sequence | np.ndarray,
    *,
    title: str,
    truth_name: str,
    pred_name: str,
):
    """Heatmap of the K×K table; colour is the share of each row. Counts are written in
    the cells up to ``MAX_CELL_NUMBERS`` classes; beyond ``MAX_TICK_LABELS`` classes
    every ``tick_step(K)``-th is labelled."""
    table = np.asarray(confusion, dtype=np.float64)
    k = table.shape[0]
    rows = table.sum(axis=1, keepdims=True)
    share = np.divide(table, rows, out=np.zeros_like(table), where=rows > 0)
    size = min(7.5, 3.2 + 0.42 * k)
    fig = _p.figure(size + 1.2, size, feature="KappaTestResult.plot")
    ax = fig.add_subplot()
    image = ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0, interpolation="nearest")
    _p.class_ticks(ax.xaxis, k, labels)
    _p.class_ticks(ax.yaxis, k, labels, vertical=True)
    ax.set_xlabel(_p.text(pred_name))
    ax.set_ylabel(_p.text(truth_name))
    ax.set_title(_p.text(title))
    if k <= _p.MAX_CELL_NUMBERS:
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


def classes_figure(
    confusion: np.ndarray, labels: Sequence | np.ndarray, *, truth_name: str, pred_name: str
):
    """For each class of the rows (``truth_name``): exact agreement, agreement within one
    class, and the share of the class among both raters' ratings. Beyond
    ``MAX_BAR_CLASSES`` classes, lines instead of bars."""
    table = np.asarray(confusion, dtype=np.float64)
    k = table.shape[0]
    rows = table.sum(axis=1)
    diag = np.diag(table)
    near = np.array([table[i, max(0, i - 1) : i + 2].sum() for i in range(k)])
    with np.errstate(invalid="ignore", divide="ignore"):
        exact = np.where(rows > 0, diag / rows, np.nan)
        within = np.where(rows > 0, near / rows, np.nan)
    total = table.sum()
    bars = k <= _p.MAX_BAR_CLASSES
    fig = _p.figure(min(9.0, 4.0 + 0.55 * k), 5.2, feature="KappaTestResult.plot")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    x = np.arange(k)
    if bars:
        top.bar(x - 0.2, exact, 0.4, color=_p.BLUE, label="exact agreement")
        top.bar(x + 0.2, within, 0.4, color=_p.ORANGE, label="within one class")
    else:  # too many classes for bars: lines
        top.plot(x, exact, "o-", markersize=3, color=_p.BLUE, label="exact agreement")
        top.plot(x, within, "s-", markersize=3, color=_p.ORANGE, label="within one class")
    if k <= 12:
        for xi, value in zip(x, exact, strict=True):
            if np.isfinite(value):
                top.text(xi - 0.2, value + 0.02, f"{value:.0%}", ha="center", fontsize=8)
    top.set_ylim(0, 1.32)  # the legend sits above the bars (shares end at 100%)
    top.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    top.set_ylabel("share of the row's items")
    top.set_title(f"Agreement with {_p.text(truth_name)}, class by class")
    top.legend(loc="upper left", frameon=False, ncols=2, fontsize=9)
    _p.tidy(top)
    columns = table.sum(axis=0)
    if bars:
        bottom.bar(x - 0.2, rows / total, 0.4, color=_p.GREY, label=_p.text(truth_name))
        bottom.bar(
            x + 0.2, columns / total, 0.4, color=_p.BLUE, alpha=0.6, label=_p.text(pred_name)
        )
    else:
        bottom.plot(x, rows / total, "-", color=_p.GREY, label=_p.text(truth_name))
        bottom.plot(x, columns / total, "-", color=_p.BLUE, label=_p.text(pred_name))
    highest = float(np.nanmax([rows.max(), columns.max()]) / total) if total else 1.0
    bottom.set_ylim(0, 1.6 * highest if highest > 0 else 1.0)  # room for the legend
    bottom.set_ylabel("share of items")
    _p.class_ticks(bottom.xaxis, k, labels)
    bottom.set_xlabel("class")
    bottom.legend(loc="upper left", frameon=False, ncols=2, fontsize=9)
    _p.tidy(bottom)
    return fig


def bootstrap_figure(
    kappa: float,
    interval: tuple[float, float],
    confidence_level: float,
    method: str,
    replicates: np.ndarray,
):
    """Histogram of bootstrap kappas with the estimate and the confidence interval."""
    fig = _p.figure(6.6, 3.8, feature="KappaTestResult.plot")
    ax = fig.add_subplot()
    finite = replicates[np.isfinite(replicates)]
    ax.hist(
        finite,
        bins=min(60, max(10, finite.size // 40)),
        color=_p.BLUE,
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
            color=_p.ORANGE,
            alpha=0.18,
            zorder=0,
            label=f"{_p.percent(confidence_level)} CI ({method}) [{low:.4f}, {high:.4f}]",
        )
        for end in (low, high):
            ax.axvline(end, color=_p.ORANGE, linestyle="--", zorder=3)
    ax.set_xlabel("kappa")
    ax.set_ylabel("resamples")
    _p.integer_counts(ax.yaxis)
    ax.set_title("Kappa, its confidence interval and the bootstrap distribution")
    ax.legend(frameon=False, fontsize=8, loc="upper left")
    _p.tidy(ax)
    return fig
