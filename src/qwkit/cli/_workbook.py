"""Excel workbooks (.xlsx, .xlsm) as data files, read with openpyxl.

The first worksheet (in the workbook's tab order) unless ``--sheet`` names another. Its
first non-empty row is the header, the rows below are the data rows (empty rows are
skipped, as blank lines of a text file are). Cells are read as Excel last computed them
(a formula's cached value). A column of numbers becomes numbers, of TRUE/FALSE booleans,
and anything else text (numbers written as text, as a CSV file would hold them), which
``_columns`` then checks as it checks a text file's cells. The old binary ``.xls`` and
OpenDocument ``.ods`` are refused with the way to export them.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from qwkit._base._extras import install_command
from qwkit.cli._errors import CliError

__all__ = ["EXPORT_HINT", "column_names", "read_table", "refusal"]

#: How to make a file qwkit reads out of a spreadsheet it does not (``{path}``: its own).
EXPORT_HINT = (
    "save it as .xlsx or as CSV (UTF-8) — in Excel: File > Save As > 'Excel Workbook' "
    "or 'CSV UTF-8'; in LibreOffice: File > Save As > 'Excel 2007-365' or 'Text CSV'; "
    "or in a shell: libreoffice --headless --convert-to xlsx {path}"
)
_REFUSED = {".xls": "an old Excel workbook (.xls)", ".ods": "an OpenDocument spreadsheet (.ods)"}


def refusal(path: Path, name: str) -> CliError | None:
    """The error for a spreadsheet format qwkit does not read (by its extension)."""
    what = _REFUSED.get(path.suffix.lower())
    if what is None:
        return None
    hint = EXPORT_HINT.format(path=shlex.quote(str(path)))
    return CliError(f"{name} is {what}, which qwkit does not read; {hint}.")


@contextmanager
def _sheet(source) -> Iterator:
    """The worksheet to read, open while the block runs."""
    try:
        import openpyxl
    except ImportError:
        raise CliError(
            f"Reading .xlsx workbooks needs openpyxl: {install_command('cli')}"
        ) from None
    # a file object: openpyxl would refuse a copy of standard input for its name
    with open(source.path, "rb") as handle:
        try:
            book = openpyxl.load_workbook(handle, read_only=True, data_only=True)
        except Exception as exc:  # not a zip, not a workbook, encrypted, ...
            what = " ".join(str(exc).split())
            raise CliError(f"could not read {source.name} as an Excel workbook: {what}") from None
        try:
            names = [ws.title for ws in book.worksheets]
            if not names:
                raise CliError(f"{source.name} has no worksheet.")
            if source.sheet is not None and source.sheet not in names:
                raise CliError(
                    f"sheet '{source.sheet}' not found in {source.name}; its sheets are: "
                    + ", ".join(f"'{n}'" for n in names)
                    + "."
                )
            yield book[source.sheet or names[0]]
        finally:
            book.close()


def _rows(source) -> tuple[list[str], list[tuple]]:
    """The header (as text) and the non-empty data rows of the sheet."""
    info = os.stat(source.path)
    return _read_rows(source, (info.st_ino, info.st_size, info.st_mtime_ns))


@functools.lru_cache(maxsize=1)  # a command asks for the names, then for the columns
def _read_rows(source, identity) -> tuple[list[str], list[tuple]]:
    """:func:`_rows` of the file as it is now (``identity``: its inode, size, time)."""
    with _sheet(source) as sheet:
        rows = [row for row in sheet.iter_rows(values_only=True) if _filled(row)]
        title = sheet.title
    if not rows:
        raise CliError(f"sheet '{title}' of {source.name} is empty.")
    header = ["" if v is None else _text(v) for v in rows[0]]
    while header and header[-1] == "":  # formatted but empty cells on the right
        header.pop()
    return header, rows[1:]


def _filled(row) -> bool:
    return any(v is not None and (not isinstance(v, str) or v.strip()) for v in row)


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def _array(values: list):
    """A column's cells as one pyarrow array: numbers, booleans, or text."""
    import pyarrow as pa

    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.array(values, pa.bool_())
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
    if present and numbers:
        whole = all(isinstance(v, int) and -(2**63) <= v < 2**63 for v in present)
        return pa.array(values, pa.int64() if whole else pa.float64())
    return pa.array([None if v is None else _text(v) for v in values], pa.string())


def column_names(source) -> list[str]:
    """The sheet's column names (its header row)."""
    return _rows(source)[0]


def read_table(source, columns=None):
    """The sheet (or its named ``columns``) as a ``pyarrow.Table``."""
    import pyarrow as pa

    header, rows = _rows(source)
    wanted = header if columns is None else list(columns)
    arrays = []
    for name in wanted:
        j = header.index(name)
        arrays.append(_array([row[j] if j < len(row) else None for row in rows]))
    return pa.table(arrays, names=wanted)
