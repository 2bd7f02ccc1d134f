"""The report's figures, drawn with matplotlib (the ``plot`` extra) and returned as PNG bytes.

matplotlib is imported here, lazily, and only through ``matplotlib.figure.Figure`` (whose
``savefig`` renders with the Agg canvas): pyplot and its global backend state are never
touched, so nothing opens a window and ``import qwkit`` never loads matplotlib.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence

import numpy as np

from qwkit.cli._errors import CliError

__all__ = [
    "confusion_heatmap",
    "cost_bars",
    "kappa_distribution",
    "model_intervals",
    "per_class_agreement",
    "percent",
    "threshold_plot",
]

_MISSING = "Plots need matplotlib: pip install 'qwkit[plot]'"
_DPI = 110
_BLUE, _ORANGE, _GREY, _RED = "#2f6690", "#d9822b", "#8a8a8a", "#b33c3c"


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
        raise CliError(_MISSING) from None
    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    return fig


def _png(fig) -> bytes:
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


def confusion_heatmap(
    confusion: np.ndarray,
    labels: Sequence,
    *,
    title: str,
    truth_name: str = "true rating",
    pred_name: str = "predicted rating",
) -> bytes:
    """Heatmap of the K×K table; colour is the share of each true class (row)."""
    table = np.asarray(confusion, dtype=np.float64)
    k = table.shape[0]
    rows = table.sum(axis=1, keepdims=True)
    share = np.divide(table, rows, out=np.zeros_like(table), where=rows > 0)
    size = min(7.5, 3.2 + 0.42 * k)
    fig = _figure(size + 1.2, size)
    ax = fig.add_subplot()
    image = ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0)
    names = [_text(v) for v in labels]
    ax.set_xticks(range(k), names)
    ax.set_yticks(range(k), names)
    ax.set_xlabel(_text(pred_name))
    ax.set_ylabel(_text(truth_name))
    ax.set_title(_text(title))
    if k <= 20:
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
    fig.colorbar(image, ax=ax, shrink=0.8, label="share of the true class")
    return _png(fig)


def per_class_agreement(confusion: np.ndarray, labels: Sequence) -> bytes:
    """For each true class: exact agreement, agreement within one category, and the
    share of the class among the true and the predicted ratings."""
    table = np.asarray(confusion, dtype=np.float64)
    k = table.shape[0]
    rows = table.sum(axis=1)
    diag = np.diag(table)
    near = np.array([table[i, max(0, i - 1) : i + 2].sum() for i in range(k)])
    with np.errstate(invalid="ignore", divide="ignore"):
        exact = np.where(rows > 0, diag / rows, np.nan)
        within = np.where(rows > 0, near / rows, np.nan)
    total = table.sum()
    fig = _figure(min(9.0, 4.0 + 0.55 * k), 5.2)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    x = np.arange(k)
    top.bar(x - 0.2, exact, 0.4, color=_BLUE, label="exact agreement")
    top.bar(x + 0.2, within, 0.4, color=_ORANGE, label="within one category")
    for xi, value in zip(x, exact, strict=True):
        if np.isfinite(value):
            top.text(xi - 0.2, value + 0.02, f"{value:.0%}", ha="center", fontsize=8)
    top.set_ylim(0, 1.32)  # the legend sits above the bars (shares end at 100%)
    top.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    top.set_ylabel("share of the true class")
    top.set_title("Per-class agreement")
    top.legend(loc="upper left", frameon=False, ncols=2, fontsize=9)
    _tidy(top)
    bottom.bar(x - 0.2, rows / total, 0.4, color=_GREY, label="true ratings")
    bottom.bar(
        x + 0.2, table.sum(axis=0) / total, 0.4, color=_BLUE, alpha=0.6, label="predicted ratings"
    )
    highest = float(np.nanmax([rows.max(), table.sum(axis=0).max()]) / total) if total else 1.0
    bottom.set_ylim(0, 1.6 * highest if highest > 0 else 1.0)  # room for the legend
    bottom.set_ylabel("share of items")
    bottom.set_xticks(x, [_text(v) for v in labels])
    bottom.set_xlabel("rating")
    bottom.legend(loc="upper left", frameon=False, ncols=2, fontsize=9)
    _tidy(bottom)
    return _png(fig)


def kappa_distribution(
    kappa: float,
    interval: tuple[float, float],
    confidence_level: float,
    method: str,
    replicates: np.ndarray,
) -> bytes:
    """Histogram of bootstrap kappas with the estimate and the confidence interval."""
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
    ax.set_title("Kappa, its confidence interval and the bootstrap distribution")
    ax.legend(frameon=False, fontsize=8, loc="upper left")
    _tidy(ax)
    return _png(fig)


def threshold_plot(
    scores: np.ndarray,
    truth: np.ndarray,
    labels: Sequence,
    thresholds: np.ndarray,
    *,
    cut_labels: Sequence | None = None,
    title: str = "Scores by true class, with the cut points",
) -> bytes:
    """Histogram of the scores of each true class (``labels``), with the cut points as
    vertical lines, each marked with the two classes (``cut_labels``) it separates."""
    cut_labels = labels if cut_labels is None else cut_labels
    scores = np.asarray(scores, dtype=np.float64)
    fig = _figure(7.2, 4.2)
    ax = fig.add_subplot()
    low, high = float(scores.min()), float(scores.max())
    pad = 0.02 * (high - low or 1.0)
    bins = np.linspace(low - pad, high + pad, 60)
    try:
        from matplotlib import colormaps

        cmap = colormaps["viridis"]
    except ImportError:  # pragma: no cover - matplotlib is there if _figure worked
        raise CliError(_MISSING) from None
    k = len(labels)
    for i, label in enumerate(labels):
        part = scores[truth == label]
        if part.size:
            ax.hist(
                part,
                bins=bins,
                histtype="stepfilled",
                alpha=0.35,
                color=cmap(i / max(1, k - 1)),
                label=f"true {_text(label)} (n={part.size})",
            )
            ax.hist(part, bins=bins, histtype="step", color=cmap(i / max(1, k - 1)))
    for j, cut in enumerate(thresholds):
        if np.isfinite(cut) and low - pad <= cut <= high + pad:
            ax.axvline(cut, color=_RED, linestyle="--", linewidth=1.2)
            ax.text(
                cut,
                1.0,
                f" {_text(cut_labels[j])}|{_text(cut_labels[j + 1])}",
                color=_RED,
                fontsize=8,
                rotation=90,
                va="top",
                ha="left",
                transform=ax.get_xaxis_transform(),
            )
    ax.set_xlabel("score")
    ax.set_ylabel("items")
    ax.set_title(_text(title))
    ax.legend(frameon=False, fontsize=8, loc="upper right")
    _tidy(ax)
    return _png(fig)


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
    ax.set_xlabel("quadratic weighted kappa (held-out)")
    ax.set_title(title)
    _tidy(ax)
    return _png(fig)


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
    return _png(fig)
