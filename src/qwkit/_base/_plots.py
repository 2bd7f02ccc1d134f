"""What every figure of qwkit shares: matplotlib loaded for the ``plot`` extra, one look.

The results draw themselves (``KappaTestResult.plot``, ``ThresholdResult.plot``,
``EvaluationResult.plot``, ``EconomicsResult.plot``) and the command line embeds what
they draw. matplotlib is imported only when a figure is made, and only through
``matplotlib.figure.Figure`` (whose ``savefig`` renders with the Agg canvas): pyplot and
its global backend state are never touched, so nothing opens a window and
``import qwkit`` never loads matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from qwkit._base._extras import require

__all__ = [
    "BLUE",
    "DPI",
    "GREY",
    "MAX_BAR_CLASSES",
    "MAX_CELL_NUMBERS",
    "MAX_CUT_LABELS",
    "MAX_LEGEND_CLASSES",
    "MAX_TICK_LABELS",
    "ORANGE",
    "RED",
    "class_ticks",
    "figure",
    "figure_class",
    "integer_counts",
    "label_text",
    "percent",
    "text",
    "tick_step",
    "tidy",
]

DPI = 110
BLUE, ORANGE, GREY, RED = "#2f6690", "#d9822b", "#8a8a8a", "#b33c3c"
#: Most classes whose counts are written in a heatmap's cells.
MAX_CELL_NUMBERS = 20
#: Most labelled ticks on an axis of classes: with more classes, every n-th is labelled.
MAX_TICK_LABELS = 25
#: Most classes drawn as grouped bars (beyond: lines), and named in a legend.
MAX_BAR_CLASSES = 30
MAX_LEGEND_CLASSES = 10
#: Most cut points labelled in a figure of scores.
MAX_CUT_LABELS = 15


def figure_class(feature: str):
    """matplotlib's ``Figure`` class, or the ImportError of the ``plot`` extra naming
    ``feature`` (what wanted to draw)."""
    return require("matplotlib.figure", feature=feature, package="matplotlib", extra="plot").Figure


def figure(width: float, height: float, *, feature: str):
    """A new figure (inches), laid out by matplotlib's constrained layout."""
    return figure_class(feature)(figsize=(width, height), dpi=DPI, layout="constrained")


def text(value) -> str:
    """User text (a label, a column name) for matplotlib: a '$' is printed, not read as
    the start of a formula."""
    return str(value).replace("$", r"\$")


def label_text(label) -> str:
    """A rating label as text: integers as they are, other numbers with at most six
    significant digits (no ``0.30000000000000004``)."""
    value = label.item() if isinstance(label, np.generic) else label
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def percent(level: float) -> str:
    """A confidence level as a percentage with the digits it needs: 95%, 99.95%."""
    return f"{100 * level:.4g}%"


def tidy(ax) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def tick_step(k: int) -> int:
    """Label every ``tick_step(k)``-th of ``k`` classes (1: all)."""
    return max(1, math.ceil(k / MAX_TICK_LABELS))


def class_ticks(axis, k: int, labels: Sequence | np.ndarray, *, vertical: bool = False) -> None:
    """Ticks at every class, labels at every ``tick_step(k)``-th (text rotated when it
    would not fit side by side)."""
    step = tick_step(k)
    shown = [text(label_text(v)) if i % step == 0 else "" for i, v in enumerate(labels)]
    axis.set_ticks(range(k), shown)
    if vertical:
        return
    if k > 10 or max((len(t) for t in shown), default=0) > 4:
        for tick in axis.get_ticklabels():
            tick.set_rotation(90)


def integer_counts(axis) -> None:
    """Ticks of a count axis at whole numbers (no 2.5 items)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))
