"""The figure of cut points (``ThresholdResult.plot``): the scores of each class, with
the cut points that round them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from qwkit._base import _plots as _p

__all__ = ["threshold_figure"]

#: Most rows of cut-point labels stacked above the histogram.
_MAX_CUT_ROWS = 4


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
    labels: Sequence | np.ndarray,
    thresholds: np.ndarray,
    *,
    cut_labels: Sequence | np.ndarray | None = None,
    title: str = "Scores by class, with the cut points",
    truth_name: str = "reference",
    legend_title: str | None = None,
):
    """Histogram of the scores of each class of ``truth`` (``labels``), with the cut
    points as dashed lines, each marked with the two classes (``cut_labels``) it
    separates. The marks are stacked so that none overlaps another; with more than
    ``MAX_CUT_LABELS`` cut points (or marks that would need more than four rows) the
    lines are left unmarked."""
    legend_title = legend_title or f"class of {truth_name}"
    cut_labels = labels if cut_labels is None else cut_labels
    scores = np.asarray(scores, dtype=np.float64)
    fig = _p.figure(7.2, 4.2, feature="ThresholdResult.plot")
    ax = fig.add_subplot()
    low, high = float(scores.min()), float(scores.max())
    pad = 0.02 * (high - low or 1.0)
    bins = np.linspace(low - pad, high + pad, 60)
    from matplotlib import cm, colormaps  # there: the figure was made
    from matplotlib.colors import Normalize

    cmap = colormaps["viridis"]
    k = len(labels)
    legend = k <= _p.MAX_LEGEND_CLASSES
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
                label=f"{_p.text(_p.label_text(label))} (n={part.size:,})",
            )
            ax.hist(part, bins=bins, histtype="step", color=colour)
    shown = [
        (j, cut)
        for j, cut in enumerate(thresholds)
        if np.isfinite(cut) and low - pad <= cut <= high + pad
    ]
    for _, cut in shown:
        ax.axvline(cut, color=_p.RED, linestyle="--", linewidth=1.2)
    ax.set_xlabel("score")
    ax.set_ylabel("items")
    _p.integer_counts(ax.yaxis)
    ax.set_title(_p.text(title))
    if legend:
        fig.legend(
            title=_p.text(legend_title),
            frameon=False,
            fontsize=8,
            title_fontsize=8,
            loc="outside right upper",
        )
    else:
        bar = fig.colorbar(
            cm.ScalarMappable(norm=Normalize(-0.5, k - 0.5), cmap=cmap), ax=ax, shrink=0.9
        )
        step = _p.tick_step(k)
        bar.set_ticks(range(0, k, step), labels=[_p.text(_p.label_text(v)) for v in labels[::step]])
        bar.set_label(_p.text(legend_title))
    _p.tidy(ax)
    if 0 < len(shown) <= _p.MAX_CUT_LABELS:
        texts = [
            ax.text(
                cut,
                0.985,
                "|".join(_p.text(_p.label_text(v)) for v in cut_labels[j : j + 2]),
                color=_p.RED,
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
