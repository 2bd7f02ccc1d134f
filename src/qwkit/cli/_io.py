"""Reading rating files (CSV, TSV, Parquet, .xlsx, or standard input) and checking their
values.

Files are read with pyarrow: CSV/TSV through its streaming reader (only the columns a
command uses, as text, so that every value is checked by us and a bad one is reported
with its row), Parquet through ``ParquetFile.iter_batches``. Rows are numbered from 1,
the first row below the header ("data row 1"). A value is missing when it is empty, only
spaces, or one of pyarrow's null spellings (``NA``, ``NaN``, ``null``, ...).

Inputs. A data file is named by its path; ``-`` is standard input (a file named ``-`` is
``./-``). Standard input, a named pipe, a device or a descriptor (``/dev/stdin``,
``<(...)``'s ``/dev/fd/63``) can be read only once, so it is first copied to a private
temporary file, removed when the command ends (also on an error or an interrupt). Its
format: Parquet when it starts with Parquet's magic bytes, a workbook when it is a zip
archive, otherwise delimited text — comma-separated unless ``--sep`` says otherwise (or
a named pipe's extension does), gzip, bz2, zstd or lz4 compressed when it starts with
their magic bytes.

Text is UTF-8 (``--encoding`` names another); what is not text at all, a byte that is
not text in the encoding, and the semicolon-separated CSV of spreadsheets are
``_text``'s to say or find; Excel workbooks are ``_workbook``'s to read.

Parquet columns of dictionary type (pandas categoricals) are read as their values; an
*ordered* dictionary declares the rating scale (its categories in their order, used
ones or not) when ``--labels`` is not given, as the API honours an ordered pandas
Categorical. pyarrow restores dictionaries of text only: a numeric categorical comes back
as plain numbers, whose scale is the integers they span.

Comment lines: lines above the header whose first non-blank character is ``#`` (after an
optional UTF-8 byte-order mark) are comments and skipped (e.g. a provenance note), except
a line where ``#`` is directly followed by the separator: that is a header whose first
column is named ``#``. ``qwkit thresholds apply`` copies comment lines to its output.

Checking the values of the columns is ``_columns``'s job; writing outputs is
``_output``'s.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from qwkit._base import _files
from qwkit._base._extras import install_command
from qwkit.cli import _text, _workbook
from qwkit.cli._errors import CliError

__all__ = [
    "STDIN",
    "Columns",
    "Source",
    "column_names",
    "open_source",
    "read_columns",
    "read_table",
]

#: The name of standard input (and, for outputs, of standard output).
STDIN = "-"
_CSV_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_PARQUET = (".parquet", ".pq")
_WORKBOOK = (".xlsx", ".xlsm")
_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}
#: Magic bytes of what standard input (or a pipe) may hold.
_PARQUET_MAGIC = b"PAR1"
_ZIP_MAGIC = b"PK\x03\x04"
_COMPRESSION_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"\x04\x22\x4d\x18": "lz4",
}
_BOM = b"\xef\xbb\xbf"
#: Names of file descriptors (read as streams whatever they hold).
_DESCRIPTOR_PATH = re.compile(r"^/(?:dev/(?:stdin|fd/\d+)|proc/(?:self|thread-self)/fd/\d+)$")
#: Files at least this large get a progress bar while they are read.
_PROGRESS_BYTES = 8 * 2**20
#: Bytes read at a time from a delimited text file (by pyarrow and by the copier of
#: ``thresholds apply``); a quoted field may span two blocks.
_BLOCK_BYTES = 1 << 22


def _arrow():
    try:
        import pyarrow as pa
    except ImportError:
        raise CliError(f"Reading files needs pyarrow: {install_command('cli')}") from None
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
    kind: str  # "csv", "parquet" or "xlsx"
    sep: str | None  # CSV delimiter
    compression: str | None
    skip_rows: int = 0  # comment lines (starting with '#') above the header
    #: How messages name it: the path in quotes, or "standard input".
    name: str = ""
    #: Decimal mark of numbers written as text.
    decimal: str = "."
    #: Encoding of a text file (``--encoding``), and the worksheet of a workbook.
    encoding: str = "utf-8"
    sheet: str | None = None

    @property
    def label(self) -> str:
        """A short name for titles and progress bars: the file's name."""
        return self.name if not self.name.startswith("'") else self.path.name

    @classmethod
    def of(
        cls,
        path: Path | str,
        sep: str | None = None,
        *,
        decimal: str = ".",
        encoding: str = "utf-8",
        sheet: str | None = None,
    ) -> Source:
        """Check that ``path`` is a readable, non-empty file and find its format."""
        path = Path(path)
        name = f"'{path}'"
        if not path.exists():
            raise CliError(f"file {name} does not exist.")
        if path.is_dir():
            raise CliError(f"{name} is a folder, not a data file.")
        if path.stat().st_size == 0:
            raise CliError(f"file {name} is empty.")
        if (refused := _workbook.refusal(path, f"file {name}")) is not None:
            raise refused
        ext, compression = _suffixes(path)
        options = {"decimal": decimal, "encoding": encoding, "sheet": sheet}
        if ext in _WORKBOOK and compression is None:
            return cls(path, "xlsx", None, None, 0, name, **options)._options(sep)
        if sep is not None:
            if ext in _PARQUET:
                raise CliError(f"--sep does not apply to the Parquet file {name}.")
            return cls(path, "csv", sep, compression, 0, name, **options)._checked()
        if ext in _PARQUET and compression is None:
            return cls(path, "parquet", None, None, 0, name, **options)._options(sep)
        if ext in _CSV_SEPARATORS:
            source = cls(path, "csv", _CSV_SEPARATORS[ext], compression, 0, name, **options)
            return source._checked(sniff=ext == ".csv")
        raise CliError(
            f"cannot tell the format of {name} from its extension; use .csv, .tsv, .parquet "
            "or .xlsx, or pass --sep (e.g. --sep ';')."
        )

    @classmethod
    def sniffed(
        cls,
        path: Path,
        *,
        name: str,
        sep: str | None,
        hint: Path | None,
        decimal: str = ".",
        encoding: str = "utf-8",
        sheet: str | None = None,
    ) -> Source:
        """A copy of standard input or of a pipe: Parquet, a workbook or compressed text
        from its first bytes; delimited text with ``sep``, else the ``hint`` name's
        extension, else a comma (or a semicolon: ``_text``)."""
        with open(path, "rb") as fh:
            head = fh.read(8)
        if not head:
            raise CliError(f"{name} is empty.")
        options = {"decimal": decimal, "encoding": encoding, "sheet": sheet}
        if head.startswith(_PARQUET_MAGIC):
            if sep is not None:
                raise CliError(f"--sep does not apply to {name}: it holds a Parquet file.")
            return cls(path, "parquet", None, None, 0, name, **options)._options(sep)
        if head.startswith(_ZIP_MAGIC):  # an .xlsx workbook (a zip archive)
            return cls(path, "xlsx", None, None, 0, name, **options)._options(sep)
        compression = next((c for m, c in _COMPRESSION_MAGIC.items() if head.startswith(m)), None)
        ext = _suffixes(hint)[0] if hint is not None else ""
        source = cls(
            path, "csv", sep or _CSV_SEPARATORS.get(ext, ","), compression, 0, name, **options
        )
        return source._checked(sniff=sep is None)

    def _options(self, sep: str | None) -> Source:
        """Refuse the options of text files for a Parquet file or a workbook (and
        ``--sheet`` for anything but a workbook)."""
        what = "a workbook" if self.kind == "xlsx" else "a Parquet file"
        if sep is not None:
            raise CliError(f"--sep does not apply to {self.name}: it is {what}.")
        if self.encoding != "utf-8":
            raise CliError(f"--encoding applies to text files; {self.name} is {what}.")
        if self.sheet is not None and self.kind != "xlsx":
            raise CliError(f"--sheet applies to .xlsx workbooks; {self.name} is {what}.")
        return self

    def _checked(self, *, sniff: bool = False) -> Source:
        """Check that the file is text; count the comment lines above the header (they
        are skipped); with ``sniff``, find a semicolon dialect (``_text``); check the
        decimal mark against the separator."""
        if self.sheet is not None:
            raise CliError(f"--sheet applies to .xlsx workbooks; {self.name} is a text file.")
        raw, stream = _open_stream(self)
        try:
            head = bytes(stream.read(1 << 16))
        except Exception as exc:
            raise _fail_reading(self, exc) from None
        finally:
            raw.close()
        size = self.path.stat().st_size if self.compression is None else None
        if (why := _text.not_text(head, _a_file(self), size)) is not None:
            raise CliError(why)
        lines = head.split(b"\n")
        skip = 0
        while skip < len(lines) - 1 and _is_comment(lines[skip], self.sep, first=skip == 0):
            skip += 1
        source = replace(self, skip_rows=skip)
        if sniff and self.sep == ",":
            semicolons, comma = _text.semicolon_dialect(head, skip, self.encoding)
            if semicolons:
                source = replace(source, sep=";", decimal="," if comma else self.decimal)
        if source.decimal != "." and source.decimal == source.sep:
            raise CliError(
                f"--decimal '{source.decimal}' is also the column separator of {source.name}; "
                "pass another --sep (e.g. --sep ';')."
            )
        return source


@contextmanager
def _spooled(stream, name: str) -> Iterator[Path]:
    """A private temporary copy of a stream that can be read only once, in the system's
    temporary folder; removed when the block ends, however it ends (and, if the process
    is killed, by the next qwkit that copies a stream: ``_files``)."""
    fd, tmp = _files.new_temporary(Path(tempfile.gettempdir()) / "qwkit-input")
    try:
        try:
            with os.fdopen(fd, "wb", closefd=False) as out:
                while chunk := _read_chunk(stream, name):
                    out.write(chunk)
        except OSError as exc:  # writing the copy: e.g. a full temporary folder
            raise CliError(
                f"could not copy {name} into the temporary folder '{tmp.parent}': "
                f"{exc.strerror or exc} (TMPDIR chooses another)."
            ) from None
        yield tmp
    finally:
        os.close(fd)  # first: Windows removes no open file
        with suppress(FileNotFoundError):
            os.unlink(tmp)


def _read_chunk(stream, name: str) -> bytes:
    try:
        return stream.read(1 << 20)
    except OSError as exc:
        raise CliError(f"could not read {name}: {exc.strerror or exc}.") from None


@contextmanager
def open_source(
    text: str,
    *,
    sep: str | None = None,
    decimal: str = ".",
    encoding: str = "utf-8",
    sheet: str | None = None,
) -> Iterator[Source]:
    """The data file named on the command line: a path, or ``-`` for standard input. A
    stream (standard input, a named pipe, a device) is read into a temporary copy that
    is removed when the block ends."""
    options = {"sep": sep, "decimal": decimal, "encoding": encoding, "sheet": sheet}
    if text == STDIN:
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
        with _spooled(stdin, "standard input") as tmp:
            yield Source.sniffed(tmp, name="standard input", hint=None, **options)
        return
    path = Path(text)
    if _DESCRIPTOR_PATH.match(os.path.normpath(text)):  # /dev/stdin, /dev/fd/63 (<(...)), ...
        try:
            stream = open(path, "rb")  # closed below
        except OSError as exc:
            raise CliError(f"cannot read '{path}': {exc.strerror or exc}.") from None
        with stream, _spooled(stream, f"'{path}'") as tmp:
            yield Source.sniffed(tmp, name=f"'{path}'", hint=None, **options)
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise CliError(f"file '{path}' does not exist.") from None
    except OSError as exc:
        raise CliError(f"cannot read '{path}': {exc.strerror or exc}.") from None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        yield Source.of(path, **options)
    elif stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        try:
            stream = open(path, "rb")  # closed below
        except OSError as exc:
            raise CliError(f"cannot read '{path}': {exc.strerror or exc}.") from None
        with stream, _spooled(stream, f"'{path}'") as tmp:
            yield Source.sniffed(tmp, name=f"'{path}'", hint=path, **options)
    else:
        raise CliError(f"'{path}' is not a data file (it is a socket or a block device).")


def _progress(console, total: float, what: str):
    """The bar of a long read (``what``: "bytes" or "rows"), with the time left."""
    from qwkit.cli._progress import bar

    return bar(console, unit=what)


def _check_columns(source: Source, names: Sequence[str], wanted: Sequence[str]) -> None:
    """Every wanted column is in the file, exactly once."""
    absent = [c for c in dict.fromkeys(wanted) if c not in names]
    if absent:
        which = ", ".join(f"'{c}'" for c in absent)
        plural = "s" if len(absent) > 1 else ""
        raise CliError(
            f"column{plural} {which} not found in {source.name}; its columns are: "
            + ", ".join(f"'{c}'" for c in names)
            + (
                f" (is the separator right? it was read as {_separator_name(source.sep)}-separated"
                + (f"; {_text.SEMICOLON_HINT}" if ";" in names[0] else "")
                + ")"
                if source.kind == "csv" and len(names) == 1
                else ""
            )
            + "."
        )
    for c in dict.fromkeys(wanted):
        count = list(names).count(c)
        if count > 1:
            raise CliError(
                f"column '{c}' appears {count} times in {source.name}; rename the copies."
            )


def _parse_options(source: Source, invalid=None):
    """How a delimited text file is split: a quoted field may hold line breaks (as
    ``thresholds apply``'s copier assumes), wherever they fall in pyarrow's blocks.
    ``invalid(row)``: pyarrow's handler of a row with too few or too many fields."""
    from pyarrow import csv as pacsv

    return pacsv.ParseOptions(
        delimiter=source.sep, newlines_in_values=True, invalid_row_handler=invalid
    )


def _csv_options(source: Source, columns: Sequence[str] | None, bad_rows: list | None = None):
    """pyarrow's options; with ``bad_rows``, a row that does not parse is added to it
    (on one thread, so that pyarrow numbers the rows: the error then names the row)."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    read = pacsv.ReadOptions(
        block_size=_BLOCK_BYTES,
        skip_rows=source.skip_rows,
        use_threads=bad_rows is None,
        encoding=source.encoding,
    )
    parse = _parse_options(source, None if bad_rows is None else _keep_invalid(bad_rows))
    if columns is None:
        convert = pacsv.ConvertOptions(strings_can_be_null=True, decimal_point=source.decimal)
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


def _keep_invalid(bad_rows: list):
    def invalid(row):
        bad_rows.append(row)
        return "error"

    return invalid


def _skip(row) -> str:
    return "skip"


def _undecodable(source: Source, exc: BaseException) -> CliError | None:
    """A text file that is not text in its encoding (pyarrow's error, about a column or
    the header, names neither the byte nor the line): the first such byte, with its
    offset and line, and what to do (``_text``)."""
    if source.kind != "csv" or not (
        isinstance(exc, UnicodeError) or "UTF8" in str(exc) or "utf-8" in str(exc)
    ):
        return None
    raw, stream = _open_stream(source)
    try:
        found = _text.first_undecodable(stream, source.encoding)
    except Exception:  # the file cannot be read again: say pyarrow's words
        return None
    finally:
        raw.close()
    if found is None:
        return None
    message = _text.undecodable_message(
        _a_file(source), source.encoding, found, compressed=source.compression is not None
    )
    return CliError(message)


def _fail_reading(source: Source, exc: Exception, bad_rows=()) -> CliError:
    if (undecodable := _undecodable(source, exc)) is not None:
        return undecodable
    what = "Parquet" if source.kind == "parquet" else "delimited text"
    if bad_rows and bad_rows[0].number is not None:  # pyarrow counts every line read
        row = bad_rows[0]
        return CliError(
            f"could not read {source.name} as {what}: data row "
            f"{row.number - source.skip_rows - 1} has {row.actual_columns} field(s) where the "
            f"header has {row.expected_columns} (a value that holds the separator must be "
            "quoted)."
        )
    hint = f" ({_text.SEMICOLON_HINT})" if _semicolon_header(source) else ""
    return CliError(f"could not read {source.name} as {what}: {' '.join(str(exc).split())}{hint}")


def _semicolon_header(source: Source) -> bool:
    """A comma-separated file whose header is separated by semicolons (``_text``)."""
    if source.kind != "csv" or source.sep != ",":
        return False
    raw, stream = _open_stream(source)
    try:
        return _text.semicolon_header(
            bytes(stream.read(1 << 16)), source.skip_rows, source.encoding
        )
    except Exception:  # unreadable: no hint
        return False
    finally:
        raw.close()


def _csv_header(source: Source) -> list[str]:
    from pyarrow import csv as pacsv

    raw, stream = _open_stream(source)
    try:
        reader = pacsv.open_csv(
            stream,
            read_options=pacsv.ReadOptions(
                block_size=1 << 16, skip_rows=source.skip_rows, encoding=source.encoding
            ),
            parse_options=_parse_options(source, _skip),  # rows are read (and named) later
            convert_options=pacsv.ConvertOptions(strings_can_be_null=True),
        )
        return list(reader.schema.names)
    except Exception as exc:
        if "Empty CSV file" in str(exc):
            raise CliError(f"{_a_file(source)} is empty.") from None
        raise _fail_reading(source, exc) from None
    finally:
        raw.close()


def _a_file(source: Source) -> str:
    """``file 'x.csv'`` or ``standard input`` (how a message starts)."""
    return f"file {source.name}" if source.name.startswith("'") else source.name


def _parquet_file(source: Source):
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(str(source.path))
    except Exception as exc:
        raise _fail_reading(source, exc) from None


def column_names(source: Source) -> list[str]:
    """The file's column names (in file order, duplicates kept)."""
    if source.kind == "xlsx":
        return _workbook.column_names(source)
    if source.kind == "parquet":
        return list(_parquet_file(source).schema_arrow.names)
    return _csv_header(source)


def _missing_to_null(array):
    """What delimited text reads as missing is missing in every format: text that is
    empty or only blanks, and a floating-point NaN (pyarrow reads ``nan``, ``NaN``,
    ``NA`` … of a CSV file as null; Parquet keeps NaN as a number, where pandas,
    Polars and numpy write it for a missing value)."""
    pa = _arrow()
    import pyarrow.compute as pc

    if pa.types.is_floating(array.type):
        missing = pc.is_nan(array)
    elif pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        missing = pc.equal(pc.utf8_trim_whitespace(array), "")
    else:
        return array
    if not pc.any(missing).as_py():
        return array
    return pc.if_else(missing, pa.scalar(None, array.type), array)


def codes_to_null(array, codes: Sequence[str]):
    """Cells that hold one of the missing-value ``codes`` (``--missing``) as missing:
    text compared as written (blanks around it trimmed), numbers by value (a code that is
    not a number matches no number)."""
    if not codes:
        return array
    pa = _arrow()
    import pyarrow.compute as pc

    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        hit = pc.is_in(pc.utf8_trim_whitespace(array), value_set=pa.array(list(codes)))
    elif pa.types.is_integer(array.type) or pa.types.is_floating(array.type):
        numbers = []
        for code in codes:
            try:
                numbers.append(float(code))
            except ValueError:
                continue
        if not numbers:
            return array
        hit = pc.is_in(pc.cast(array, pa.float64()), value_set=pa.array(numbers))
    else:
        return array
    if not pc.any(hit).as_py():
        return array
    return pc.if_else(hit, pa.scalar(None, array.type), array)


def _declared_order(source: Source, column: str, chunked) -> np.ndarray | None:
    """The categories of an ordered dictionary column, in their order (None for any
    other column)."""
    pa = _arrow()
    kind = chunked.type
    if not pa.types.is_dictionary(kind) or not kind.ordered or chunked.num_chunks == 0:
        return None
    orders = [chunk.dictionary.to_pylist() for chunk in chunked.chunks]
    if any(order != orders[0] for order in orders[1:]):
        raise CliError(
            f"column '{column}' of {source.name} declares different category orders in "
            "different parts of the file; pass the scale with --labels."
        )
    values = orders[0]
    if any(v is None for v in values) or len(set(values)) != len(values):
        raise CliError(
            f"column '{column}' of {source.name} declares categories with a missing or "
            "repeated value; pass the scale with --labels."
        )
    if all(isinstance(v, str) for v in values):
        return np.asarray(values, dtype=str)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.int64)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.float64)
    return np.asarray([str(v) for v in values], dtype=str)


def _plain_values(chunked):
    """One array of plain values: dictionary (categorical) columns decoded."""
    pa = _arrow()
    if pa.types.is_dictionary(chunked.type):
        chunked = chunked.cast(chunked.type.value_type)
    return chunked.combine_chunks()


@dataclass(frozen=True, slots=True)
class Columns:
    """The columns :func:`read_columns` read: ``arrays`` (``{name: pyarrow.Array}``, all
    of one length) and the category order each ordered dictionary column declares."""

    arrays: dict
    orders: dict = field(default_factory=dict)

    def __getitem__(self, name: str):
        return self.arrays[name]


def read_columns(source: Source, columns: Sequence[str], *, console=None) -> Columns:
    """Read the named columns of a file.

    Raises :class:`CliError` for a missing or repeated column (listing those that
    exist), a file without data rows, or a parse error.
    """
    pa = _arrow()
    wanted = list(dict.fromkeys(columns))
    if source.kind == "xlsx":
        _check_columns(source, _workbook.column_names(source), wanted)
        table = _workbook.read_table(source, wanted)
    elif source.kind == "parquet":
        pfile = _parquet_file(source)
        _check_columns(source, pfile.schema_arrow.names, wanted)
        total = pfile.metadata.num_rows
        batches = []
        with _progress(console if total >= 1_000_000 else None, total, "rows") as bar:
            task = bar.add_task(f"reading {source.label}", total=total)
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
                task = bar.add_task(f"reading {source.label}", total=size)
                bad_rows = []
                try:
                    reader = pacsv.open_csv(stream, *_csv_options(source, wanted, bad_rows))
                    batches = []
                    for batch in reader:
                        batches.append(batch)
                        bar.update(task, completed=min(raw.tell(), size))
                except Exception as exc:
                    raise _fail_reading(source, exc, bad_rows) from None
                table = pa.Table.from_batches(batches, schema=reader.schema)
        finally:
            raw.close()
    if table.num_rows == 0:
        raise CliError(f"{_a_file(source)} has a header but no data rows.")
    orders = {}
    for name in wanted:
        order = _declared_order(source, name, table.column(name))
        if order is not None:
            orders[name] = order
    arrays = {name: _missing_to_null(_plain_values(table.column(name))) for name in wanted}
    return Columns(arrays, orders)


def read_table(source: Source):
    """Read a whole file as a ``pyarrow.Table``: Parquet with its own types, delimited
    text with types inferred (for a Parquet output of ``thresholds apply``)."""
    _arrow()
    try:
        if source.kind == "xlsx":
            table = _workbook.read_table(source)
        elif source.kind == "parquet":
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
    except CliError:  # a workbook's own words
        raise
    except Exception as exc:
        if "Empty CSV file" in str(exc):
            raise CliError(f"{_a_file(source)} is empty.") from None
        raise _fail_reading(source, exc) from None
    if table.num_rows == 0:
        raise CliError(f"{_a_file(source)} has a header but no data rows.")
    return table
