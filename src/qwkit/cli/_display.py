"""What the commands print: JSON, rich tables, and numbers as text.

Consoles never read user text (column names, labels, paths) as rich markup. Numbers
shown to a user are rounded here, never in the library.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from qwkit._base import _results as results
from qwkit._base._plots import label_text
from qwkit._base._tables import Table as ResultTable
from qwkit._base._tables import cell_text
from qwkit.cli._errors import StdoutConsole, stderr_console, writing_stdout

__all__ = [
    "class_ranges",
    "confusion_table",
    "cut_texts",
    "empty_classes_text",
    "items",
    "label_text",
    "number",
    "plain",
    "print_json",
    "pvalue",
    "rich_table",
    "rows",
    "stats_table",
    "stdout_console",
]


def plain(value: Any) -> Any:
    """numpy scalars and arrays → Python; nan and ±inf → None (JSON has neither)."""
    return results.plain(value, json=True)


def print_json(obj: dict) -> None:
    with writing_stdout():
        typer.echo(json.dumps(plain(obj)))


def stdout_console(*, to_stderr: bool = False) -> Console:
    """The console of tables and summaries: user text is printed as it is (no markup).
    ``to_stderr``: when standard output carries a file (``-o -``)."""
    if to_stderr:
        return stderr_console()
    return StdoutConsole(markup=False)


def cut_texts(cuts: Sequence[float]) -> list[str]:
    """Cut points as short text: six significant digits, or more (at most 12) where two
    different neighbouring cut points would look the same; ±inf as inf and -inf."""
    values = [float(c) for c in cuts]
    finite = [v for v in values if math.isfinite(v)]
    pairs = [(a, b) for a, b in itertools.pairwise(finite) if a != b]
    digits = 6
    while digits < 12 and any(f"{a:.{digits}g}" == f"{b:.{digits}g}" for a, b in pairs):
        digits += 1
    return [f"{v:.{digits}g}" if math.isfinite(v) else ("inf" if v > 0 else "-inf") for v in values]


def class_ranges(cuts: Sequence[float] | np.ndarray, labels) -> list[tuple[str, str, bool]]:
    """(class, the scores it gets, whether it is empty) for every class of cut points:
    ``(a, b]``, or "none (empty)" for a class that no score can get (an empty interval:
    equal cut points, or an end class cut at -inf or inf; ``ThresholdResult.empty_classes``
    for fitted ones)."""
    values = [-math.inf, *(float(c) for c in cuts), math.inf]
    edges = cut_texts(values)
    out = []
    for j, label in enumerate(labels):
        empty = not values[j] < values[j + 1]
        scores = "none (empty)" if empty else f"({edges[j]}, {edges[j + 1]}]"
        out.append((label_text(label), scores, empty))
    return out


def empty_classes_text(empty, *, optimal: bool) -> str:
    """The line that flags classes no score is rounded to (``optimal``: the cut points
    are the kappa-optimal ones, fitted here)."""
    listed = ", ".join(label_text(v) for v in empty)
    one = len(empty) == 1
    which, it = ("class " + listed, "it") if one else ("classes " + listed, "them")
    why = f" (kappa is highest without {it})" if optimal else ""
    kind = "kappa-optimal cut points" if optimal else "cut points"
    return f"no score is rounded to {which}: the {kind} leave {it} empty{why}."


def number(x: float | None, digits: int = 4) -> str:
    return "nan" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def pvalue(p: float) -> str:
    if not math.isfinite(p):
        return "nan"
    return f"{p:.4g}" if p >= 1e-300 else "< 1e-300"


def stats_table(title: str, table_rows: list[tuple[str, str]]) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for name, value in table_rows:
        table.add_row(name, value)
    return table


def confusion_table(confusion: np.ndarray, scale: np.ndarray, truth: str, pred: str) -> Table:
    table = Table(title=f"Confusion matrix (rows: '{truth}', columns: '{pred}')")
    table.add_column("")
    for label in scale:
        table.add_column(label_text(label), justify="right")
    whole = np.all(confusion == np.round(confusion))
    for label, row in zip(scale, confusion, strict=True):
        table.add_row(label_text(label), *((f"{v:.0f}" if whole else f"{v:.4g}") for v in row))
    return table


def items(n: int, dropped: int) -> str:
    return f"{n:,}" + (f" ({dropped:,} dropped)" if dropped else "")


def rows(n: int) -> str:
    return f"{n:,} row" + ("" if n == 1 else "s")


def rich_table(table: ResultTable) -> Table:
    """A result's table (the table model of ``qwkit._base._tables``) for the console:
    the same cells as ``summary()`` prints, numbers right-aligned."""
    out = Table(title=table.title, show_edge=False)
    for column in table.columns:
        left = column.kind in ("text", "verdict")
        out.add_column(column.name, justify="left" if left else "right")
    for row in table.rows:
        out.add_row(*(cell_text(v, c) for v, c in zip(row, table.columns, strict=True)))
    return out
