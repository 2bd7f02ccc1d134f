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
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from qwkit.cli import _io
from qwkit.cli._errors import CliError
from qwkit.cli._io import _CSV_SEPARATORS, _PARQUET, Source, _arrow, _open_stream, _suffixes
from qwkit.cli._output import Target, open_target, parquet_mark

__all__ = ["Output", "append_column", "write_table"]


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
        """The format from the extension (.csv, .tsv, .parquet, optionally compressed).
        A stream without one (standard output, a pipe, a device) gets delimited text with
        ``sep``, else the input's separator, else a comma; another file needs ``sep``
        (``--sep``), never a silent guess."""
        name = Path(target.shown)
        ext, compression = _suffixes(name) if target.how != "descriptor" else ("", None)
        if ext in _PARQUET and compression is None:
            return cls(target, "parquet", None, None)
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


def _redelimit(body: bytes, sep: str, out_sep: str) -> bytes:
    fields = next(csv.reader([body.decode("utf-8")], delimiter=sep, strict=False), [""])
    return out_sep.join(_quoted(f, out_sep) for f in fields).encode("utf-8")


def _cell_text(value, decimal: str = ".") -> str:
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and decimal != ".":
        return str(value).replace(".", decimal)
    return str(value)


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
    in_b, out_b = in_sep.encode("utf-8"), out_sep.encode("utf-8")
    distinct, codes = np.unique(values, return_inverse=True)
    texts = [
        out_b + _quoted(_cell_text(v, output.decimal), out_sep).encode("utf-8") for v in distinct
    ]
    tails = [texts[c] for c in codes.ravel().tolist()]
    flags = None if keep is None else keep.tolist()
    header_tail = out_b + _quoted(name, out_sep).encode("utf-8")
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
                body = _redelimit(body, in_sep, out_sep)
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
            rest = b""
            while rest.count(b"\n") < source.skip_rows:  # the comment lines, as they are
                chunk = stream.read(1 << 16)
                if not chunk:
                    break
                rest += bytes(chunk)
            for _ in range(source.skip_rows):
                line, _, rest = rest.partition(b"\n")
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
    except (UnicodeDecodeError, csv.Error) as exc:
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
    from pyarrow import csv as pacsv

    header = output.sep.join(_quoted(c, output.sep) for c in table.column_names) + "\n"
    options = pacsv.WriteOptions(include_header=False, delimiter=output.sep)
    with output.open() as sink:
        sink.write(header.encode("utf-8"))
        pacsv.write_csv(table, sink, write_options=options)
