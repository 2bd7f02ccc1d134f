"""The table that ``qwkit thresholds apply`` writes: its input with one more column.

A delimited text input written as delimited text is copied line by line
(:func:`append_column`): every byte is kept (comment lines above the header, blank
lines, each field's text, line endings), re-delimited only when the separator changes.
Otherwise the table is written from a ``pyarrow.Table`` (:func:`write_table`): Parquet
with its column types and qwkit's mark in its metadata, or text with a plain header.
Where it goes, and whether it may go there, is ``_output``'s decision (an
:class:`Output` wraps one of its targets).
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from qwkit.cli import _io
from qwkit.cli._errors import CliError
from qwkit.cli._io import _CSV_SEPARATORS, _PARQUET, Source, _arrow, _open_stream, _suffixes
from qwkit.cli._output import Target, open_target, parquet_mark

__all__ = ["Output", "append_column", "write_table", "written_from"]


@dataclass(frozen=True, slots=True)
class Output:
    """Where and how ``thresholds apply`` writes its table."""

    target: Target
    kind: str  # "csv" or "parquet"
    sep: str | None
    compression: str | None
    decimal: str = "."

    @classmethod
    def of(cls, target: Target, *, sep: str | None, source_sep: str | None) -> Output:
        """The format from the extension (.csv, .tsv, .parquet, optionally compressed);
        a .csv output of a semicolon-separated input is semicolon-separated too (the CSV
        of spreadsheets in comma-decimal locales). A stream without one (standard output,
        a pipe, a device) gets delimited text with ``sep``, else the input's separator,
        else a comma; another file needs ``sep`` (``--sep``), never a silent guess."""
        name = Path(target.shown)
        ext, compression = _suffixes(name) if target.how != "descriptor" else ("", None)
        if ext in _PARQUET and compression is None:
            return cls(target, "parquet", None, None)
        if ext == ".csv" and source_sep == ";":  # a spreadsheet's CSV keeps its dialect
            return cls(target, "csv", ";", compression)
        if ext in _CSV_SEPARATORS:
            return cls(target, "csv", _CSV_SEPARATORS[ext], compression)
        if sep is None and target.is_stream:
            return cls(target, "csv", source_sep or ",", compression)
        if sep is None:
            raise CliError(
                f"cannot tell the format of the output '{target.shown}' from its extension; "
                "use .csv, .tsv or .parquet (or pass --sep to write delimited text)."
            )
        return cls(target, "csv", sep, compression)

    @contextmanager
    def open(self) -> Iterator:
        """A pyarrow output stream to the output (compressed as named)."""
        pa = _arrow()
        with open_target(self.target) as out:
            sink = pa.PythonFile(_Kept(out), mode="w")
            stream = pa.CompressedOutputStream(sink, self.compression) if self.compression else sink
            try:
                yield stream
            finally:
                stream.close()  # flushes (a compressed tail too); ``out`` stays open


class _Kept:
    """A binary stream seen through a file whose ``close`` only flushes (standard
    output must stay open) and whose ``tell`` counts the bytes written (a pipe has no
    position; Parquet's writer asks for it)."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._written = 0
        self.closed = False

    def write(self, data) -> int:
        self._raw.write(data)
        self._written += len(data)
        return len(data)

    def tell(self) -> int:
        return self._written

    def flush(self) -> None:
        self._raw.flush()

    def close(self) -> None:
        if not self.closed:
            self._raw.flush()
            self.closed = True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False


def _quoted(text: str, sep: str) -> str:
    """A CSV field: quoted (quotes doubled) only when it holds the separator, a quote or
    a line break."""
    if any(ch in text for ch in (sep, '"', "\n", "\r")):
        return '"' + text.replace('"', '""') + '"'
    return text


def _split_records(block: bytes, final: bool) -> tuple[list[bytes], list[bytes], bytes]:
    """The CSV records of ``block`` (lines joined while a quoted field is open):
    ``(bodies, line endings, the incomplete rest)``; ``final``: the rest is a record too."""
    bodies: list[bytes] = []
    endings: list[bytes] = []
    lines = block.split(b"\n")
    last = len(lines) - 1  # lines[last] follows the block's last newline
    i = 0
    while i <= last:
        start, quotes = i, lines[i].count(b'"')
        while quotes % 2 and i < last:
            i += 1
            quotes += lines[i].count(b'"')
        if i == last and not final:  # no newline after it yet, or a quote still open
            return bodies, endings, b"\n".join(lines[start:])
        body = b"\n".join(lines[start : i + 1]) if i > start else lines[i]
        newline = i < last
        i += 1
        if body == b"" and not newline:
            break  # the file ends with a newline
        if body.endswith(b"\r"):
            bodies.append(body[:-1])
            endings.append(b"\r\n" if newline else b"\r")
        else:
            bodies.append(body)
            endings.append(b"\n" if newline else b"")
    return bodies, endings, b""


def _record_batches(stream, rest: bytes) -> Iterator[tuple[list[bytes], list[bytes] | None]]:
    """Batches of CSV records ``(bodies, line endings)`` of what is left of ``stream``
    after ``rest``; the endings are None when all are ``\n`` (the common case, split in
    one go when the batch has no quote and no carriage return)."""
    while True:
        chunk = stream.read(_io._BLOCK_BYTES)
        if not chunk:
            break
        data = rest + bytes(chunk)
        cut = data.rfind(b"\n") + 1
        block, rest = data[:cut], data[cut:]
        if not block:
            continue
        if b'"' not in block and b"\r" not in block:
            bodies = block.split(b"\n")
            bodies.pop()
            yield bodies, None
        else:
            bodies, endings, tail = _split_records(block, final=False)
            rest = tail + rest
            yield bodies, endings
    if rest:
        bodies, endings, _ = _split_records(rest, final=True)
        yield bodies, endings


def _redelimit(body: bytes, sep: str, out_sep: str, encoding: str) -> bytes:
    fields = next(csv.reader([body.decode(encoding)], delimiter=sep, strict=False), [""])
    return out_sep.join(_quoted(f, out_sep) for f in fields).encode(encoding)


def _encoded(text: str, source: Source) -> bytes:
    """Text added to a copy of ``source``, in its encoding."""
    try:
        return text.encode(source.encoding)
    except UnicodeEncodeError:
        raise CliError(
            f"{text!r} cannot be written in {source.encoding}, the encoding of {source.name}; "
            "write a Parquet output (-o FILE.parquet) instead."
        ) from None


def _cell_text(value, decimal: str = ".") -> str:
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and decimal != ".":
        return str(value).replace(".", decimal)
    return str(value)


def _comment_lines(stream, n: int) -> tuple[list[bytes], bytes]:
    """The first ``n`` lines of ``stream`` (the comment lines above the header) and the
    bytes read beyond them."""
    rest = b""
    while rest.count(b"\n") < n:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        rest += bytes(chunk)
    lines = []
    for _ in range(n):
        line, _, rest = rest.partition(b"\n")
        lines.append(line)
    return lines, rest


def _lines(stream, skip_rows: int) -> Iterator[bytes]:
    """The comment lines, then the records (without their line endings; blank lines
    skipped) of delimited text."""
    comments, rest = _comment_lines(stream, skip_rows)
    yield from comments
    for bodies, _ in _record_batches(stream, rest):
        yield from (body for body in bodies if body)


def _one_field(text: bytes, sep: bytes) -> bool:
    """Whether ``text`` is one CSV field (quoted, or without separator and quote)."""
    if text.startswith(b'"'):
        return len(text) > 1 and text.endswith(b'"') and b'"' not in text[1:-1].replace(b'""', b"")
    return sep not in text and b'"' not in text


def written_from(source: Source, output: Output, name: str) -> bool:
    """Whether the existing file of ``output`` is what ``thresholds apply`` writes from
    ``source`` as delimited text: the input's comment lines, then its header and data
    rows (some dropped, by ``--drop-missing``) as the output writes them, each with one
    more field, the header's being ``name`` — whatever the cut points. This is how qwkit
    recognizes its own text table, which cannot carry a mark (blank lines and line
    endings aside, it compares the bytes)."""
    sep = _encoded(output.sep, source)
    header_tail = sep + _encoded(_quoted(name, output.sep), source)
    with ExitStack() as stack:
        if source.kind == "csv":
            raw, stream = _open_stream(source)
            stack.callback(raw.close)
            skip = source.skip_rows
            theirs = _lines(stream, skip)
            if source.sep != output.sep:
                comments = list(itertools.islice(theirs, skip))
                rows = (_redelimit(b, source.sep, output.sep, source.encoding) for b in theirs)
                theirs = itertools.chain(comments, rows)
        else:  # written from a table (write_table): the input as that table, as text
            buffer = io.BytesIO()
            _write_text(_io.read_table(source), buffer, output.sep)
            buffer.seek(0)
            skip = 0
            theirs = _lines(buffer, skip)
        try:
            mine, mine_stream = _open_stream(
                Source(output.target.path, "csv", output.sep, output.compression)
            )
            stack.callback(mine.close)
            ours = _lines(mine_stream, skip)
            if list(itertools.islice(ours, skip)) != list(itertools.islice(theirs, skip)):
                return False
            head = next(theirs, None)
            if head is None or next(ours, None) != head + header_tail:
                return False
            for line in ours:
                for row in theirs:  # in order; rows the output dropped are skipped
                    if line.startswith(row + sep) and _one_field(line[len(row) + len(sep) :], sep):
                        break
                else:
                    return False
            return True
        except (UnicodeError, csv.Error, OSError, ValueError):  # not recognizably ours
            return False


def append_column(
    source: Source,
    output: Output,
    name: str,
    values: np.ndarray,
    *,
    keep: np.ndarray | None,
    n_rows: int,
) -> None:
    """Copy a delimited text file with one more column, keeping every other byte: the
    comment lines above the header, blank lines, each field's text (re-delimited only
    when the output's separator differs) and the line endings. ``keep`` (one flag per
    data row) drops rows; ``values`` holds the new column of the kept rows."""
    in_sep, out_sep = source.sep, output.sep
    in_b, out_b = _encoded(in_sep, source), _encoded(out_sep, source)
    distinct, codes = np.unique(values, return_inverse=True)
    texts = [
        out_b + _encoded(_quoted(_cell_text(v, output.decimal), out_sep), source) for v in distinct
    ]
    tails = [texts[c] for c in codes.ravel().tolist()]
    flags = None if keep is None else keep.tolist()
    header_tail = out_b + _encoded(_quoted(name, out_sep), source)
    row = kept = 0
    header = True

    def one_by_one(bodies: list[bytes], endings: list[bytes]) -> bytes:
        nonlocal row, kept, header
        out = []
        for body, end in zip(bodies, endings, strict=True):
            if body == b"":  # a blank line: pyarrow skips it too
                out.append(end)
                continue
            if in_sep != out_sep:
                body = _redelimit(body, in_sep, out_sep, source.encoding)
            if header:
                header = False
                out.append(body + header_tail + end)
            else:
                if row < n_rows and (flags is None or flags[row]):
                    out.append(body + tails[kept] + end)
                    kept += 1
                row += 1
        return b"".join(out)

    def in_one_go(bodies: list[bytes]) -> bytes:
        nonlocal row, kept
        n = len(bodies)
        if flags is not None:
            bodies = list(itertools.compress(bodies, flags[row : row + n]))
        row += n
        m = len(bodies)
        if row > n_rows or m == 0:
            return b""
        kept += m
        return b"\n".join(map(bytes.__add__, bodies, tails[kept - m : kept])) + b"\n"

    raw, stream = _open_stream(source)
    try:
        with output.open() as sink:
            comments, rest = _comment_lines(stream, source.skip_rows)
            for line in comments:  # as they are
                sink.write(line + b"\n")
            same = in_sep == out_sep
            for bodies, endings in _record_batches(stream, rest):
                if header and endings is None:  # the header (and blank lines above it)
                    i = next((j for j, body in enumerate(bodies) if body), len(bodies) - 1)
                    sink.write(one_by_one(bodies[: i + 1], [b"\n"] * (i + 1)))
                    bodies = bodies[i + 1 :]
                if endings is None and not header and b"" not in bodies:
                    if same or not any(out_b in b for b in bodies):
                        if not same:
                            bodies = [b.replace(in_b, out_b) for b in bodies]
                        sink.write(in_one_go(bodies))
                        continue
                sink.write(one_by_one(bodies, endings or [b"\n"] * len(bodies)))
            if row != n_rows:
                raise CliError(
                    f"could not copy {source.name} line by line: found {row:,} data lines "
                    f"but {n_rows:,} rows; write a Parquet output (-o FILE.parquet) instead."
                )
    except UnicodeDecodeError as exc:
        raise _io._fail_reading(source, exc) from None
    except csv.Error as exc:
        raise CliError(f"could not copy {source.name}: {exc}") from None
    finally:
        raw.close()


def write_table(table, output: Output) -> None:
    """Write a ``pyarrow.Table`` to ``output`` (Parquet with its column types, or
    delimited text with a plain header), whole or not at all. A Parquet table carries
    qwkit's mark in its metadata (see ``_output``)."""
    if output.kind == "parquet":
        import pyarrow.parquet as pq

        metadata = {**(table.schema.metadata or {}), **parquet_mark("thresholds apply")}
        with output.open() as sink:
            pq.write_table(table.replace_schema_metadata(metadata), sink)
        return
    with output.open() as sink:
        _write_text(table, sink, output.sep)


def _write_text(table, sink, sep: str) -> None:
    """A ``pyarrow.Table`` as delimited text: a plain header, then pyarrow's rows."""
    from pyarrow import csv as pacsv

    header = sep.join(_quoted(c, sep) for c in table.column_names) + "\n"
    sink.write(header.encode("utf-8"))
    pacsv.write_csv(
        table, sink, write_options=pacsv.WriteOptions(include_header=False, delimiter=sep)
    )
