"""One table model for results: a result lays itself out as :class:`Table` records once,
and every output renders the same records — the text of ``summary()`` here, the console
and the HTML report in the command line (``cli/_display.py``, ``cli/_report.py``).

A cell is a Python value; its column's ``kind`` says how to show it: ``"text"``,
``"count"`` (an integer), ``"number"`` (a float to ``digits`` decimals), ``"interval"``
(a ``(low, high)`` pair), ``"pvalue"``, ``"verdict"``. None is an empty cell.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Column", "Table", "cell_text", "render_text"]

KINDS = ("text", "count", "number", "interval", "pvalue", "verdict")


@dataclass(frozen=True, slots=True)
class Column:
    """A column: its header, the kind of its cells and the decimals of numbers."""

    name: str
    kind: str = "number"
    digits: int = 3

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown column kind {self.kind!r}")


@dataclass(frozen=True, slots=True)
class Table:
    """A titled table: ``key`` names it for programs (``"criteria"``), ``notes`` are the
    sentences printed under it."""

    key: str
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple, ...]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """The table as plain values: columns' names and rows of cells."""
        from qwkit._base._results import plain

        return plain(
            {
                "key": self.key,
                "title": self.title,
                "columns": [c.name for c in self.columns],
                "rows": [list(r) for r in self.rows],
                "notes": list(self.notes),
            }
        )


def _number(x, digits: int) -> str:
    if x is None:
        return ""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}f}"


def cell_text(value, column: Column) -> str:
    """How a cell reads in text (the console and the HTML report read the same)."""
    if value is None:
        return ""
    kind = column.kind
    if kind == "count":
        return f"{int(value):,}"
    if kind == "number":
        return _number(value, column.digits)
    if kind == "interval":
        low, high = value
        return f"[{_number(low, column.digits)}, {_number(high, column.digits)}]"
    if kind == "pvalue":
        p = float(value)
        if math.isnan(p):
            return "nan"
        return "<0.0001" if p < 1e-4 else f"{p:.4f}"
    return str(value)


def render_text(table: Table) -> str:
    """The table as aligned plain text: the title, a rule, the header and the rows, then
    the notes."""
    cells = [
        [cell_text(v, c) for v, c in zip(row, table.columns, strict=True)] for row in table.rows
    ]
    heads = [c.name for c in table.columns]
    widths = [max([len(h)] + [len(r[j]) for r in cells]) for j, h in enumerate(heads)]
    left = [c.kind in ("text", "verdict") for c in table.columns]

    def line(values: Sequence[str]) -> str:
        parts = [
            (v.ljust(w) if lft else v.rjust(w))
            for v, w, lft in zip(values, widths, left, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [table.title, "-" * len(table.title), line(heads)]
    out += [line(r) for r in cells]
    out += list(table.notes)
    return "\n".join(out) + "\n"
