"""Reading rating files (CSV, TSV, Parquet) and checking their values.

Files are read with pyarrow: CSV/TSV through its streaming reader (only the columns a
command uses, as text, so that every value is checked by us and a bad one is reported
with its row), Parquet through ``ParquetFile.iter_batches``. Rows are numbered from 1,
the first row below the header ("data row 1"). A value is missing when it is empty, only
spaces, or one of pyarrow's null spellings (``NA``, ``NaN``, ``null``, ...).

Comment lines: lines above the header whose first non-blank character is ``#`` (after an
optional UTF-8 byte-order mark) are comments and skipped (e.g. a provenance note), except
a line where ``#`` is directly followed by the separator: that is a header whose first
column is named ``#``. ``qwkit thresholds apply`` copies comment lines to its output.

Writing outputs is ``_output``'s job.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qwkit.cli._errors import CliError

__all__ = [
    "Source",
    "column_names",
    "missing_mask",
    "numeric_values",
    "parse_labels",
    "rating_values",
    "read_columns",
    "read_table",
    "score_values",
    "weight_values",
]

_CSV_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_PARQUET = (".parquet", ".pq")
_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}
_BOM = b"\xef\xbb\xbf"
#: Files at least this large get a progress bar while they are read.
_PROGRESS_BYTES = 8 * 2**20
#: Bytes read at a time from a delimited text file (by pyarrow and by the copier of
#: ``thresholds apply``); a quoted field may span two blocks.
_BLOCK_BYTES = 1 << 22
#: A number in decimal notation (no hex, no digit separators), or inf / nan.
_NUMBER = r"^\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[iI]nf(inity)?|[nN]a[nN])\s*$"
_ARROW_MISSING = "Reading files needs pyarrow: pip install 'qwkit[cli]'"


def _arrow():
    try:
        import pyarrow as pa
    except ImportError:
        raise CliError(_ARROW_MISSING) from None
    return pa


def _separator_name(sep: str) -> str:
    return {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(sep, repr(sep))


def _suffixes(path: Path) -> tuple[str, str | None]:
    """``(format extension, compression)`` of a file name, e.g. ``('.csv', 'gzip')``."""
    suffixes = [s.lower() for s in path.suffixes]
    compression = _COMPRESSED.get(suffixes[-1]) if suffixes else None
    if compression:
        return (suffixes[-2] if len(suffixes) > 1 else ""), compression
    return (suffixes[-1] if suffixes else ""), None


def _is_comment(line: bytes, sep: str, *, first: bool) -> bool:
    """A comment line: '#' first (after a byte-order mark and blanks), unless the '#' is
    directly followed by the separator (a header whose first column is named '#')."""
    if first and line.startswith(_BOM):
        line = line[len(_BOM) :]
    text = line.lstrip(b" \t")
    return text.startswith(b"#") and text[1:2] != sep.encode("utf-8")


@dataclass(frozen=True, slots=True)
class Source:
    """A data file and how to read it."""

    path: Path
    kind: str  # "csv" or "parquet"
    sep: str | None  # CSV delimiter
    compression: str | None
    skip_rows: int = 0  # comment lines (starting with '#') above the header

    @classmethod
    def of(cls, path: Path | str, sep: str | None = None) -> Source:
        """Check that ``path`` is a readable, non-empty file and find its format."""
        path = Path(path)
        if not path.exists():
            raise CliError(f"file '{path}' does not exist.")
        if path.is_dir():
            raise CliError(f"'{path}' is a folder, not a data file.")
        if path.stat().st_size == 0:
            raise CliError(f"file '{path}' is empty.")
        ext, compression = _suffixes(path)
        if sep is not None:
            if ext in _PARQUET:
                raise CliError(f"--sep does not apply to the Parquet file '{path}'.")
            return cls(path, "csv", sep, compression)._with_comments()
        if ext in _PARQUET and compression is None:
            return cls(path, "parquet", None, None)
        if ext in _CSV_SEPARATORS:
            return cls(path, "csv", _CSV_SEPARATORS[ext], compression)._with_comments()
        raise CliError(
            f"cannot tell the format of '{path}' from its extension; use .csv, .tsv or "
            ".parquet, or pass --sep (e.g. --sep ';')."
        )

    def _with_comments(self) -> Source:
        """Count the comment lines above the header; they are skipped."""
        raw, stream = _open_stream(self)
        try:
            head = stream.read(1 << 16)
        except Exception as exc:
            raise _fail_reading(self, exc) from None
        finally:
            raw.close()
        lines = bytes(head).split(b"\n")
        skip = 0
        while skip < len(lines) - 1 and _is_comment(lines[skip], self.sep, first=skip == 0):
            skip += 1
        if skip == 0:
            return self
        return Source(self.path, self.kind, self.sep, self.compression, skip)


def _progress(console, total: float, what: str):
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}", style="progress.description", markup=False),
        BarColumn(),
        DownloadColumn() if what == "bytes" else TextColumn("{task.completed:,.0f} rows"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=console is None or not console.is_terminal,
    )


def _check_columns(source: Source, names: Sequence[str], wanted: Sequence[str]) -> None:
    """Every wanted column is in the file, exactly once."""
    absent = [c for c in dict.fromkeys(wanted) if c not in names]
    if absent:
        which = ", ".join(f"'{c}'" for c in absent)
        plural = "s" if len(absent) > 1 else ""
        raise CliError(
            f"column{plural} {which} not found in '{source.path}'; its columns are: "
            + ", ".join(f"'{c}'" for c in names)
            + (
                f" (is the separator right? it was read as {_separator_name(source.sep)}-separated)"
                if source.kind == "csv" and len(names) == 1
                else ""
            )
            + "."
        )
    for c in dict.fromkeys(wanted):
        count = list(names).count(c)
        if count > 1:
            raise CliError(
                f"column '{c}' appears {count} times in '{source.path}'; rename the copies."
            )


def _parse_options(source: Source):
    """How a delimited text file is split: a quoted field may hold line breaks (as
    ``thresholds apply``'s copier assumes), wherever they fall in pyarrow's blocks."""
    from pyarrow import csv as pacsv

    return pacsv.ParseOptions(delimiter=source.sep, newlines_in_values=True)


def _csv_options(source: Source, columns: Sequence[str] | None):
    import pyarrow as pa
    from pyarrow import csv as pacsv

    read = pacsv.ReadOptions(block_size=_BLOCK_BYTES, skip_rows=source.skip_rows)
    parse = _parse_options(source)
    if columns is None:
        convert = pacsv.ConvertOptions(strings_can_be_null=True)
    else:
        convert = pacsv.ConvertOptions(
            include_columns=list(columns),
            column_types={c: pa.string() for c in columns},
            strings_can_be_null=True,
        )
    return read, parse, convert


def _open_stream(source: Source):
    pa = _arrow()
    raw = pa.OSFile(str(source.path), "rb")
    stream = pa.CompressedInputStream(raw, source.compression) if source.compression else raw
    return raw, stream


def _fail_reading(source: Source, exc: Exception) -> CliError:
    what = "Parquet" if source.kind == "parquet" else "delimited text"
    return CliError(f"could not read '{source.path}' as {what}: {' '.join(str(exc).split())}")


def _csv_header(source: Source) -> list[str]:
    from pyarrow import csv as pacsv

    raw, stream = _open_stream(source)
    try:
        reader = pacsv.open_csv(
            stream,
            read_options=pacsv.ReadOptions(block_size=1 << 16, skip_rows=source.skip_rows),
            parse_options=_parse_options(source),
            convert_options=pacsv.ConvertOptions(strings_can_be_null=True),
        )
        return list(reader.schema.names)
    except Exception as exc:
        if "Empty CSV file" in str(exc):
            raise CliError(f"file '{source.path}' is empty.") from None
        raise _fail_reading(source, exc) from None
    finally:
        raw.close()


def _parquet_file(source: Source):
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(str(source.path))
    except Exception as exc:
        raise _fail_reading(source, exc) from None


def column_names(path: Path | str, *, sep: str | None = None) -> tuple[Source, list[str]]:
    """The file's format and its column names (in file order, duplicates kept)."""
    source = Source.of(path, sep)
    if source.kind == "parquet":
        return source, list(_parquet_file(source).schema_arrow.names)
    return source, _csv_header(source)


def _blank_to_null(array):
    """Text that is empty or only blanks becomes a missing value."""
    pa = _arrow()
    import pyarrow.compute as pc

    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return array
    blank = pc.equal(pc.utf8_trim_whitespace(array), "")
    if not pc.any(blank).as_py():
        return array
    return pc.if_else(blank, pa.scalar(None, array.type), array)


def read_columns(
    path: Path | str,
    columns: Sequence[str],
    *,
    sep: str | None = None,
    console=None,
) -> dict:
    """Read the named columns of a file: ``{name: pyarrow.Array}``, all of one length.

    Raises :class:`CliError` for a missing or empty file, an unknown format, a missing
    or repeated column (listing those that exist), a file without data rows, or a parse
    error.
    """
    source = Source.of(path, sep)
    pa = _arrow()
    wanted = list(dict.fromkeys(columns))
    if source.kind == "parquet":
        pfile = _parquet_file(source)
        _check_columns(source, pfile.schema_arrow.names, wanted)
        total = pfile.metadata.num_rows
        batches = []
        with _progress(console if total >= 1_000_000 else None, total, "rows") as bar:
            task = bar.add_task(f"reading {source.path.name}", total=total)
            try:
                for batch in pfile.iter_batches(batch_size=1 << 16, columns=wanted):
                    batches.append(batch)
                    bar.advance(task, batch.num_rows)
            except Exception as exc:
                raise _fail_reading(source, exc) from None
        schema = pa.schema([pfile.schema_arrow.field(name) for name in wanted])
        table = pa.Table.from_batches(batches, schema=schema)
    else:
        from pyarrow import csv as pacsv

        _check_columns(source, _csv_header(source), wanted)
        raw, stream = _open_stream(source)
        size = source.path.stat().st_size
        try:
            with _progress(console if size >= _PROGRESS_BYTES else None, size, "bytes") as bar:
                task = bar.add_task(f"reading {source.path.name}", total=size)
                try:
                    reader = pacsv.open_csv(stream, *_csv_options(source, wanted))
                    batches = []
                    for batch in reader:
                        batches.append(batch)
                        bar.update(task, completed=min(raw.tell(), size))
                except Exception as exc:
                    raise _fail_reading(source, exc) from None
                table = pa.Table.from_batches(batches, schema=reader.schema)
        finally:
            raw.close()
    if table.num_rows == 0:
        raise CliError(f"file '{source.path}' has a header but no data rows.")
    return {name: _blank_to_null(table.column(name).combine_chunks()) for name in wanted}


def read_table(path: Path | str, *, sep: str | None = None):
    """Read a whole file as a ``pyarrow.Table``: Parquet with its own types, delimited
    text with types inferred (for a Parquet output of ``thresholds apply``)."""
    source = Source.of(path, sep)
    _arrow()
    try:
        if source.kind == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(str(source.path))
        else:
            from pyarrow import csv as pacsv

            raw, stream = _open_stream(source)
            try:
                read, parse, convert = _csv_options(source, None)
                table = pacsv.read_csv(
                    stream, read_options=read, parse_options=parse, convert_options=convert
                )
            finally:
                raw.close()
    except Exception as exc:
        if "Empty CSV file" in str(exc):
            raise CliError(f"file '{source.path}' is empty.") from None
        raise _fail_reading(source, exc) from None
    if table.num_rows == 0:
        raise CliError(f"file '{source.path}' has a header but no data rows.")
    return table


# ---------------------------------------------------------------------------- values


def _row_text(value) -> str:
    if isinstance(value, (int, float, np.number)):
        return str(value)
    text = str(value)
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _row(i: int, rows: np.ndarray | None) -> int:
    """1-based data row of position ``i`` (``rows`` maps positions after dropped rows)."""
    return int(rows[i] if rows is not None else i) + 1


def _null_error(column: str, array, rows: np.ndarray | None = None) -> CliError:
    pa = _arrow()
    import pyarrow.compute as pc

    i = int(pc.index(pc.is_null(array), pa.scalar(True)).as_py())
    return CliError(
        f"column '{column}' has a missing value in data row {_row(i, rows)}; fill it or pass "
        "--drop-missing to skip such rows."
    )


def missing_mask(arrays: Sequence) -> np.ndarray:
    """True for the rows where any of the arrays is null (a missing value)."""
    import pyarrow.compute as pc

    mask = np.zeros(len(arrays[0]), dtype=bool)
    for arr in arrays:
        if arr.null_count:
            mask |= pc.is_null(arr).to_numpy(zero_copy_only=False)
    return mask


def _first_bad_number(column: str, array, rows: np.ndarray | None) -> CliError:
    import pyarrow.compute as pc

    ok = pc.match_substring_regex(array, _NUMBER).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(~ok)
    if bad.size:
        i = int(bad[0])
        return CliError(
            f"column '{column}' must hold numbers; data row {_row(i, rows)} has "
            f"{_row_text(array[i].as_py())}."
        )
    return CliError(f"column '{column}' has values that are not numbers pyarrow can read.")


def numeric_values(array, column: str, *, rows: np.ndarray | None = None) -> np.ndarray:
    """A column without missing values as numbers: int64 when every value is an integer
    written without a decimal point, float64 otherwise. Text must be a decimal number
    (``0x3`` or ``1_000`` is an error naming the row)."""
    pa = _arrow()
    import pyarrow.compute as pc

    if array.null_count:
        raise _null_error(column, array, rows)
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        if not pc.all(pc.match_substring_regex(array, _NUMBER)).as_py():
            raise _first_bad_number(column, array, rows)
        trimmed = pc.utf8_trim_whitespace(array)
        integers = pc.all(pc.match_substring_regex(trimmed, r"^[+-]?\d+$")).as_py()
        for target in (pa.int64(), pa.float64()) if integers else (pa.float64(),):
            try:
                return pc.cast(trimmed, target).to_numpy(zero_copy_only=False)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
        raise _first_bad_number(column, trimmed, rows)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        values = array.to_numpy(zero_copy_only=False)
        return values.astype(np.int64) if values.dtype == bool else values
    if pa.types.is_decimal(kind):  # like text: integers stay integers (scale 0)
        target = pa.int64() if kind.scale == 0 else pa.float64()
        try:
            return pc.cast(array, target).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return pc.cast(array, pa.float64(), safe=False).to_numpy(zero_copy_only=False)
    raise CliError(f"column '{column}' must hold numbers; it has type {kind}.")


def score_values(array, column: str, *, rows: np.ndarray | None = None) -> np.ndarray:
    """A column of real-valued scores: finite float64."""
    values = numeric_values(array, column, rows=rows).astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        raise CliError(
            f"column '{column}' must hold finite scores; data row {_row(i, rows)} has {values[i]}."
        )
    return values


def weight_values(array, column: str, *, rows: np.ndarray | None = None) -> np.ndarray:
    """A column of item weights: finite and non-negative."""
    values = numeric_values(array, column, rows=rows)
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
    if bad.size:
        i = int(bad[0])
        raise CliError(
            f"column '{column}' must hold finite, non-negative weights; data row "
            f"{_row(i, rows)} has {values[i]}."
        )
    return values


def rating_values(
    array,
    column: str,
    labels: np.ndarray | None,
    *,
    rows: np.ndarray | None = None,
    origin: str = "--labels",
) -> np.ndarray:
    """A rating column: numbers, or text when ``labels`` is text; every value checked
    against ``labels`` (when given; integers otherwise) so that a bad one is reported
    with its row. ``origin`` names where the labels came from."""
    if labels is not None and labels.dtype.kind == "U":
        pa = _arrow()
        import pyarrow.compute as pc

        if array.null_count:
            raise _null_error(column, array, rows)
        if pa.types.is_boolean(array.type):  # a Parquet bool: spelled as in the labels
            spelling = {str(v).lower(): str(v) for v in labels}
            flags = array.to_numpy(zero_copy_only=False)
            values = np.where(
                flags, spelling.get("true", "true"), spelling.get("false", "false")
            ).astype(str)
        else:
            if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
                array = pc.cast(array, pa.string())
            values = np.asarray(
                pc.utf8_trim_whitespace(array).to_numpy(zero_copy_only=False), dtype=str
            )
    else:
        try:
            values = numeric_values(array, column, rows=rows)
        except CliError as exc:
            if labels is not None or "must hold numbers" not in str(exc):
                raise
            raise CliError(
                f"{str(exc).rstrip('.')}; for text ratings pass the ordered scale with "
                "--labels (e.g. --labels low,mid,high)."
            ) from None
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            i = int(np.flatnonzero(~np.isfinite(values))[0])
            raise CliError(
                f"column '{column}' must hold finite ratings; data row {_row(i, rows)} has "
                f"{values[i]}."
            )
        if labels is None and values.dtype.kind == "f":
            fractional = np.flatnonzero(values != np.floor(values))
            if fractional.size:
                i = int(fractional[0])
                raise CliError(
                    f"column '{column}' must hold integer ratings; data row {_row(i, rows)} "
                    f"has {values[i]} (for scores use `qwkit thresholds fit` or --score; for "
                    "a non-integer scale pass --labels)."
                )
    if labels is not None:
        known = np.isin(values, labels)
        if not known.all():
            i = int(np.flatnonzero(~known)[0])
            shown = ", ".join(str(v) for v in labels[:12]) + (", ..." if len(labels) > 12 else "")
            raise CliError(
                f"column '{column}', data row {_row(i, rows)}: {_row_text(values[i])} is not "
                f"in {origin} [{shown}]."
            )
    return values


def parse_labels(text: str | None) -> np.ndarray | None:
    """``"1,2,3"`` → int array; ``"0.5,1"`` → float; ``"low,mid,high"`` → text.

    Raises ValueError (a usage error) for an empty item or a repeated label.
    """
    if text is None:
        return None
    items = [item.strip() for item in text.split(",")]
    if not items or any(item == "" for item in items):
        raise ValueError(f"expected comma-separated labels such as 1,2,3; got {text!r}.")
    labels = np.asarray(items, dtype=str)
    for kind in (int, float):
        try:
            values = [kind(item) for item in items]
        except ValueError:
            continue
        if kind is float and not all(math.isfinite(v) for v in values):
            break
        labels = np.asarray(values)
        break
    unique, counts = np.unique(labels, return_counts=True)
    if (counts > 1).any():
        repeated = unique[counts > 1][0]
        raise ValueError(f"each label must appear once; {repeated} is repeated in {text!r}.")
    return labels
