"""Writing outputs: atomically, one file or a set of files, and ``thresholds apply``'s copy
of a table with one more column.

Outputs are written to a temporary file in the destination folder and renamed over the
destination (``os.replace``) only when complete: a failed or interrupted command leaves no
partial file. A set of outputs (``economics``) is written into a hidden temporary folder
and moved into place only when all of it is written. A symbolic link is written through
(its target is replaced) and an existing file keeps its permission bits.
"""

from __future__ import annotations

import csv
import itertools
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qwkit.cli import _io
from qwkit.cli._errors import CliError
from qwkit.cli._io import _CSV_SEPARATORS, _PARQUET, Source, _arrow, _open_stream, _suffixes

__all__ = [
    "Output",
    "append_column",
    "atomic_path",
    "check_output",
    "make_folder",
    "staged_outputs",
    "write_table",
    "write_text",
]


def check_output(path: Path | str) -> Path:
    """Fail early (before any work) when an output cannot be written to ``path``."""
    path = Path(path)
    parent = path.parent
    if not parent.is_dir():
        raise CliError(f"cannot write '{path}': the folder '{parent}' does not exist.")
    if path.is_dir():
        raise CliError(f"cannot write '{path}': it is a folder.")
    if not os.access(parent, os.W_OK):
        raise CliError(f"cannot write '{path}': the folder '{parent}' is not writable.")
    return path


def make_folder(out: Path | str, *, option: str) -> Path:
    """An output folder: created if missing (not its parents), checked to be writable."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CliError(f"{option} '{out}' exists and is not a folder.")
    if not out.exists():
        if not out.parent.is_dir():
            raise CliError(f"cannot create '{out}': the folder '{out.parent}' does not exist.")
        out.mkdir()
    if not os.access(out, os.W_OK):
        raise CliError(f"cannot write into '{out}': the folder is not writable.")
    return out


def _destination(path: Path | str) -> tuple[Path, int]:
    """Where an output really goes (a symbolic link's target) and the permission bits the
    new file gets: those of the file it replaces, or the umask's default."""
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path = check_output(path)
    if path.exists():
        return path, stat.S_IMODE(path.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return path, 0o666 & ~umask


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed onto ``path`` only if the block succeeds."""
    target, mode = _destination(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextmanager
def staged_outputs(folder: Path) -> Iterator[Path]:
    """A hidden temporary folder inside ``folder`` to write a set of outputs into; when the
    block succeeds every file in it is checked, then all are moved into ``folder``
    together. On failure (or an interrupt) nothing is moved and the folder is removed."""
    stage = Path(tempfile.mkdtemp(dir=folder, prefix=".qwkit-"))
    try:
        yield stage
        moves = [(item, *_destination(folder / item.name)) for item in sorted(stage.iterdir())]
        for item, target, mode in moves:
            os.chmod(item, mode)
            os.replace(item, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def write_text(path: Path | str, text: str) -> None:
    """Write a text file atomically (UTF-8)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Output:
    """Where and how ``thresholds apply`` writes its table."""

    path: Path
    kind: str  # "csv" or "parquet"
    sep: str | None
    compression: str | None

    @classmethod
    def of(cls, path: Path | str, *, sep: str | None) -> Output:
        """The format from the extension (.csv, .tsv, .parquet, optionally compressed);
        another extension is delimited text only with an explicit ``--sep`` (``sep``),
        and an error otherwise (never a silent CSV)."""
        path = check_output(path)
        ext, compression = _suffixes(path)
        if ext in _PARQUET and compression is None:
            return cls(path, "parquet", None, None)
        if ext in _CSV_SEPARATORS:
            return cls(path, "csv", _CSV_SEPARATORS[ext], compression)
        if sep is None:
            raise CliError(
                f"cannot tell the format of the output '{path}' from its extension; use "
                ".csv, .tsv or .parquet (or pass --sep to write delimited text)."
            )
        return cls(path, "csv", sep, compression)

    @contextmanager
    def open(self) -> Iterator:
        """A binary stream to the output's temporary file (compressed as named)."""
        pa = _arrow()
        with atomic_path(self.path) as tmp:
            sink = pa.OSFile(str(tmp), "wb")
            stream = pa.CompressedOutputStream(sink, self.compression) if self.compression else sink
            try:
                yield stream
            finally:
                stream.close()
                if not sink.closed:
                    sink.close()


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


def _cell_text(value) -> str:
    return str(value.item() if isinstance(value, np.generic) else value)


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
    texts = [out_b + _quoted(_cell_text(v), out_sep).encode("utf-8") for v in distinct]
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
                    f"could not copy '{source.path}' line by line: found {row:,} data lines "
                    f"but {n_rows:,} rows; write a Parquet output (-o FILE.parquet) instead."
                )
    except (UnicodeDecodeError, csv.Error) as exc:
        raise CliError(f"could not copy '{source.path}': {exc}") from None
    finally:
        raw.close()


def write_table(table, output: Output) -> None:
    """Write a ``pyarrow.Table`` to ``output`` (Parquet with its column types, or
    delimited text with a plain header), atomically."""
    if output.kind == "parquet":
        import pyarrow.parquet as pq

        with atomic_path(output.path) as tmp:
            pq.write_table(table, str(tmp))
        return
    from pyarrow import csv as pacsv

    header = output.sep.join(_quoted(c, output.sep) for c in table.column_names) + "\n"
    options = pacsv.WriteOptions(include_header=False, delimiter=output.sep)
    with output.open() as sink:
        sink.write(header.encode("utf-8"))
        pacsv.write_csv(table, sink, write_options=options)
