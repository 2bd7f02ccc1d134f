"""The command line's own figures (the agreement report's pairwise heatmap, the demo's
intervals and bars) and the PNG bytes of every figure a report embeds.

The results draw themselves (``KappaTestResult.plot``, ``ThresholdResult.plot``,
``EvaluationResult.plot``): a report calls them through :func:`drawn`. Every figure
shares the look of ``qwkit._base._plots``; matplotlib is loaded only to draw.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from qwkit._base import _plots as _p
from qwkit._base._extras import install_command
from qwkit._base._plots import (
    MAX_BAR_CLASSES,
    MAX_CELL_NUMBERS,
    percent,
    tick_step,
)
from qwkit.cli._errors import CliError

__all__ = [
    "MAX_BAR_CLASSES",
    "MAX_CELL_NUMBERS",
    "cost_bars",
    "drawn",
    "model_intervals",
    "pairwise_heatmap",
    "percent",
    "png",
    "tick_step",
]


def _missing() -> str:
    return f"Plots need matplotlib: {install_command('plot')}"


def _figure(width: float, height: float):
    try:
        return _p.figure(width, height, feature="the command line's figures")
    except ImportError:
        raise CliError(_missing()) from None


def drawn(make: Callable[[], object]) -> bytes:
    """The PNG bytes of a result's figure (``make()`` calls its ``plot``), or the command
    line's one-line error when the ``plot`` extra is missing."""
    try:
        fig = make()
    except ImportError:
        raise CliError(_missing()) from None
    return png(fig)


def png(fig) -> bytes:
    """A matplotlib figure (one of ours, or a result's ``.plot()``) as PNG bytes."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # a label in a script the font lacks (e.g. CJK) is drawn as a box, not a warning
        warnings.filterwarnings(
            "ignore", message=r"(?s)Glyph .* missing from", category=UserWarning
        )
        fig.savefig(buffer, format="png", dpi=_p.DPI, metadata={"Software": None})
    return buffer.getvalue()


def pairwise_figure(values: np.ndarray, names: Sequence[str], *, title: str, label: str):
    """The figure of :func:`pairwise_heatmap` (for tests of its layout)."""
    table = np.asarray(values, dtype=np.float64)
    r = table.shape[0]
    size = min(8.0, 3.2 + 0.5 * r)
    fig = _figure(size + 1.4, size)
    ax = fig.add_subplot()
    shown = np.ma.masked_invalid(table)
    image = ax.imshow(shown, cmap="RdYlBu", vmin=-1.0, vmax=1.0, interpolation="nearest")
    _p.class_ticks(ax.xaxis, r, names)
    _p.class_ticks(ax.yaxis, r, names, vertical=True)
    ax.set_title(_p.text(title))
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
    fig.colorbar(image, ax=ax, shrink=0.8, label=_p.text(label))
    return fig


def pairwise_heatmap(values: np.ndarray, names: Sequence[str], *, title: str, label: str) -> bytes:
    """Heatmap of an r × r matrix of pairwise agreement between raters (the diagonal
    and undefined pairs blank), the values written in the cells up to
    ``MAX_CELL_NUMBERS`` raters."""
    return png(pairwise_figure(values, names, title=title, label=label))


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
    ax.errorbar(k, y, xerr=err, fmt="o", color=_p.BLUE, ecolor=_p.BLUE, capsize=4)
    for yi, value in zip(y, k, strict=True):
        ax.text(value, yi + 0.18, f"{value:.3f}", ha="center", fontsize=8)
    ax.set_yticks(y, list(names))
    ax.set_ylim(-0.6, n - 0.3)
    ax.set_xlabel("quadratic weighted kappa (held out)")
    ax.set_title(title)
    _p.tidy(ax)
    return png(fig)


def cost_bars(names: Sequence[str], values: Sequence[float], *, xlabel: str, title: str) -> bytes:
    """Horizontal bars of one number per decision rule (e.g. expected profit)."""
    n = len(names)
    fig = _figure(7.2, 1.2 + 0.5 * n)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    v = np.asarray(values, dtype=float)
    ax.barh(y, v, color=[_p.BLUE if x >= 0 else _p.RED for x in v])
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
    _p.tidy(ax)
    return png(fig)
