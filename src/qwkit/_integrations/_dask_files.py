"""The files of ``qwkit.dask``'s ``data=``: which files a path names, how they are cut
into pieces, and how each piece is read (inside the task that reduces it).

A path, glob, folder or list of them names Parquet files (read by row groups, in pieces of
about a target size of the used columns — at most ``PARQUET_BYTES``, dask's default
block — that may span consecutive files, so that many small files make few tasks) or CSV
files (one piece per file, streamed in blocks of ``CSV_BLOCK`` bytes: a CSV file cannot be
split at a byte offset without reading it from its start, since a quoted value may hold a
line break). Paths are local, or anything ``fsspec`` opens (``s3://``, ``gs://``, ...).
The values read are turned into a piece's columns by ``_dask_pieces``.

Only ``qwkit.dask`` uses this module; it imports pyarrow and fsspec (both come with
``dask[dataframe]``).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._validation import show
from qwkit._integrations._dask_pieces import Piece, Spec, batch_values

__all__ = [
    "CSV_BLOCK",
    "PARQUET_BYTES",
    "data_files",
    "parquet_piece",
    "piece_bytes",
    "plan",
    "read_csv",
    "read_parquet",
]

#: Uncompressed bytes of the used columns in one Parquet piece, at most (dask's default
#: block).
PARQUET_BYTES = 256 * 2**20
#: The smallest Parquet piece worth a task of its own: smaller row groups (or files) are
#: packed together, whatever the parallelism.
MIN_PIECE_BYTES = 16 * 2**20
#: Pieces per core that a Parquet data set is cut into, while they stay within
#: [MIN_PIECE_BYTES, PARQUET_BYTES].
PIECES_PER_CORE = 4
#: Bytes of a CSV file parsed at a time.
CSV_BLOCK = 1 << 23
_CSV = {".csv": ",", ".tsv": "\t"}
_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}


# ---------------------------------------------------------------------------- files


def _suffixes(name: str) -> tuple[str, str | None]:
    """(format extension, compression) of a file name."""
    base = name.lower().rsplit("/", 1)[-1]
    parts = base.split(".")[1:]
    compression = _COMPRESSED.get(f".{parts[-1]}") if parts else None
    if compression and len(parts) > 1:
        return f".{parts[-2]}", compression
    return (f".{parts[-1]}" if parts else ""), compression


def _is_csv(name: str) -> bool:
    return _suffixes(name)[0] in _CSV


def _local(name: str) -> bool:
    from fsspec.utils import get_protocol

    return get_protocol(name) in ("file", "local")


def _hidden(name: str) -> bool:
    """Files a folder of data may hold besides the data (``_SUCCESS``, ``.crc``, ...)."""
    return name.startswith((".", "_"))


def _expand(text: str) -> tuple[list[str], str]:
    """The data files one path names — itself, a glob's matches, or a folder's files (its
    subfolders included; names starting with '.' or '_' skipped) — and what it is."""
    if _local(text):
        path = text.removeprefix("file://")
        if os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not _hidden(d))
                found += [os.path.join(root, f) for f in sorted(files) if not _hidden(f)]
            return found, "the folder"
        if glob.has_magic(path):
            return sorted(p for p in glob.glob(path) if os.path.isfile(p)), "the pattern"
        return ([path] if os.path.isfile(path) else []), ""
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(text)
    if fs.isdir(path):
        names = [
            p
            for p in sorted(fs.find(path))
            if not any(_hidden(part) for part in p[len(path) :].split("/"))
        ]
        what = "the folder"
    elif glob.has_magic(path):
        names, what = sorted(p for p in fs.glob(path) if fs.isfile(p)), "the pattern"
    else:
        names, what = ([path] if fs.isfile(path) else []), ""
    return [fs.unstrip_protocol(p) for p in names], what


def data_files(data) -> tuple[list[str], str]:
    """The files ``data`` (a path, glob or folder, or a list of them) names, and their
    format: ``"parquet"``, or ``"csv"`` when every name ends in .csv or .tsv (possibly
    compressed: .gz, .bz2, .zst, .lz4)."""
    if isinstance(data, (str, os.PathLike)):
        paths = [data]
    else:
        paths = list(data) if isinstance(data, (list, tuple)) else []
    if not paths or not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise QwkitTypeError(
            "`data` must be a dask DataFrame or a path, glob or list of paths to Parquet or "
            f"CSV files; got {type(data).__name__}.",
            parameter="data",
        )
    files = []
    for path in map(os.fspath, paths):
        found, what = _expand(path)
        if not found:
            said = (
                f"{what} {path!r}, which holds no data file"
                if what == "the folder"
                else f"{path!r}, which is neither a file, a folder nor a pattern that matches files"
            )
            raise QwkitError(f"`data` names {said}.", parameter="data")
        files += found
    csv = [f for f in files if _is_csv(f)]
    if csv and len(csv) < len(files):
        other = next(f for f in files if not _is_csv(f))
        raise QwkitError(
            f"`data` mixes CSV and Parquet files ({csv[0]!r} and {other!r}); pass one kind.",
            parameter="data",
        )
    return files, ("csv" if csv else "parquet")


@contextmanager
def _opened(name: str):
    """A file for pyarrow: a local path as it is, anything else opened with fsspec."""
    if _local(name):
        yield name.removeprefix("file://")
        return
    import fsspec

    with fsspec.open(name, "rb") as fh:
        yield fh


def _file_error(name: str, what: str, exc: Exception) -> QwkitError:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if what == "CSV" and "invalid UTF8" in text:  # pyarrow counts the header as row 1
        row = re.search(r"Row #(\d+)", text)
        where = f" (data row {int(row.group(1)) - 1})" if row else ""
        return QwkitError(
            f"File {name!r} is not UTF-8 text{where}: CSV files are read as UTF-8; convert "
            "it first (e.g. `iconv -f cp1252 -t utf-8` for a Windows export).",
            parameter="data",
        )
    return QwkitError(f"File {name!r} cannot be read as {what}: {text}", parameter="data")


#: What a CSV header that lacks a column may say about the file: (test of the header's
#: text and the separator it was split at, the hint).
_HEADER_HINTS = (
    (
        lambda header, sep: ";" in header,
        "the header looks separated by ';', but .csv files are read as comma-separated "
        "and .tsv files as tab-separated, with decimal points",
    ),
    (
        lambda header, sep: sep == "," and "\t" in header,
        "the header looks tab-separated: name the file .tsv",
    ),
    (
        lambda header, sep: header.startswith("#"),
        "the header is a comment: CSV files are read with the header on their first line",
    ),
)


def _check_columns(name: str, found: list[str], spec: Spec) -> None:
    for column in dict.fromkeys(spec.columns.values()):
        if found.count(column) > 1:
            raise QwkitError(
                f"`data` has {found.count(column)} columns named {column!r} in file {name!r}; "
                "rename the copies.",
                parameter="data",
            )
        if column not in found:
            hint = ""
            if spec.format == "csv":
                sep = _CSV.get(_suffixes(name)[0], ",")
                header = sep.join(found)
                said = [why for test, why in _HEADER_HINTS if test(header, sep)]
                hint = f"; {said[0]}" if said else ""
            raise QwkitError(
                f"`data` has no column {column!r} in file {name!r}, whose columns are "
                f"{show(found, limit=20)}{hint}.",
                parameter="data",
            )


def plan(files: list[str], spec: Spec, *, cores: int | None = None) -> list[Piece]:
    """The pieces of ``files``, after checking that each holds the columns (Parquet:
    from its footer; CSV: from its header). Parquet row groups are packed in file
    order into pieces of about :func:`piece_bytes` bytes of the used columns, as read
    (a row group is never split; a piece may span several files, read as one batch
    when their columns hold numbers of the same types)."""
    with ThreadPoolExecutor(max_workers=min(16, len(files))) as pool:
        layouts = list(pool.map(lambda f: _layout(f, spec), files))
    if spec.format == "csv":
        return [Piece(i, name, 0, ()) for i, name in enumerate(files)]
    target = piece_bytes(sum(b for _, groups in layouts for _, b in groups), cores)
    pieces: list[Piece] = []
    parts: list[tuple[Piece, tuple | None]] = []  # (a file's piece, its numeric types)
    size = 0

    def close():
        nonlocal parts, size
        if len(parts) == 1:
            first = parts[0][0]
            pieces.append(Piece(len(pieces), first.file, first.first_row, first.row_groups))
        elif parts:
            kinds = {kind for _, kind in parts}
            whole = len(kinds) == 1 and None not in kinds
            files = tuple(part for part, _ in parts)
            first = files[0]
            pieces.append(Piece(len(pieces), first.file, first.first_row, parts=files, whole=whole))
        parts, size = [], 0

    for name, (kind, groups) in zip(files, layouts, strict=True):
        run: list[int] = []  # this file's row groups in the piece being filled
        run_first = row = 0
        for g, (rows, nbytes) in enumerate(groups):
            if size and size + nbytes > target:
                if run:
                    parts.append((_file_piece(name, run_first, row, run), kind))
                close()
                run, run_first = [], row
            run.append(g)
            size += nbytes
            row += rows
        if run or not groups:  # a file without row groups is read (and checked) too
            parts.append((_file_piece(name, run_first, row, run), kind))
    close()
    return pieces


def _file_piece(name: str, first: int, stop: int, groups: list[int]) -> Piece:
    """The piece of file ``name`` holding its data rows first … stop − 1 (``groups``)."""
    return Piece(0, name, first, tuple(groups), rows=stop - first)


def piece_bytes(total: int, cores: int | None) -> int:
    """The target size of a Parquet piece, chosen from the data: the ``total`` bytes of
    the used columns (as read) spread over PIECES_PER_CORE pieces per core (``cores``:
    the cluster's threads; None: PARQUET_BYTES), within [MIN_PIECE_BYTES,
    PARQUET_BYTES]. Large pieces amortize a task's fixed costs (a fraction of a
    millisecond, as long as summing 10⁷ ratings takes); enough of them keep every core
    busy and bound the memory of a task."""
    if cores is None:
        return PARQUET_BYTES
    return max(MIN_PIECE_BYTES, min(PARQUET_BYTES, total // (PIECES_PER_CORE * max(cores, 1))))


def _layout(name: str, spec: Spec) -> tuple[tuple | None, list[tuple[int, int]]]:
    """(the Arrow types of the used columns when all hold numbers of a fixed width, else
    None; [(rows, bytes of the used columns as read)] of every row group) of a Parquet
    file, after checking its columns; a CSV file's header is checked (and (None, [])
    returned)."""
    if spec.format == "csv":
        _check_columns(name, _csv_header(name, spec), spec)
        return None, []
    import pyarrow as pa
    import pyarrow.parquet as pq

    with _opened(name) as source:
        try:
            pfile = pq.ParquetFile(source)
            meta, schema = pfile.metadata, pfile.schema_arrow
        except Exception as exc:
            raise _file_error(name, "Parquet", exc) from None
    found = list(schema.names)
    _check_columns(name, found, spec)
    columns = list(dict.fromkeys(spec.columns.values()))
    types = tuple(schema.field(c).type for c in columns)
    numeric = all(pa.types.is_integer(t) or pa.types.is_floating(t) for t in types)
    # bytes as read: the width of fixed-width numbers (a dictionary-encoded int8 column
    # is 1 byte a row in memory, far more than its encoded size), else the encoded size
    width = sum(t.bit_width // 8 for t in types) if numeric else None
    leaves = [i for i, path in enumerate(_leaf_paths(meta)) if path.split(".")[0] in columns]
    out = []
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        nbytes = (
            group.num_rows * width
            if width is not None
            else sum(group.column(i).total_uncompressed_size for i in leaves)
        )
        out.append((group.num_rows, nbytes))
    return (tuple(str(t) for t in types) if numeric else None), out


def _leaf_paths(meta) -> list[str]:
    """The dotted path of every leaf column of a Parquet file's row groups."""
    if meta.num_row_groups == 0:
        return []
    group = meta.row_group(0)
    return [group.column(i).path_in_schema for i in range(group.num_columns)]


# ---------------------------------------------------------------------------- reading


def read_parquet(spec: Spec, piece: Piece) -> Iterator[tuple[Piece, dict]]:
    """The batches of a Parquet partition, each with the piece it holds the rows of:
    one batch of all its files when their columns hold numbers of the same types
    (``piece.whole``: one pass of qwkit over the whole partition), else one batch per
    file, read in turn."""
    if not piece.whole:
        for part in piece.files:
            yield part, parquet_piece(part, spec)
        return
    import pyarrow as pa

    tables = [_parquet_table(part, spec) for part in piece.parts]
    batch = batch_values(pa.concat_tables(tables), spec, piece, 0, {})
    del tables
    yield piece, batch


def parquet_piece(piece: Piece, spec: Spec) -> dict:
    """The columns of one Parquet piece of one file, as one batch ({parameter: values})."""
    return batch_values(_parquet_table(piece, spec), spec, piece, 0, {})


def _parquet_table(piece: Piece, spec: Spec):
    """The used columns of the row groups of one file's piece (a pyarrow Table)."""
    import pyarrow.parquet as pq

    columns = list(dict.fromkeys(spec.columns.values()))
    with _opened(piece.file) as source:
        try:
            return pq.ParquetFile(source).read_row_groups(list(piece.row_groups), columns=columns)
        except Exception as exc:
            raise _file_error(piece.file, "Parquet", exc) from None


def _csv_options(spec: Spec, columns, handler=None):
    import pyarrow as pa
    from pyarrow import csv as pacsv

    read = pacsv.ReadOptions(block_size=CSV_BLOCK, use_threads=False)  # rows get numbers
    parse = pacsv.ParseOptions(
        delimiter=spec.sep, newlines_in_values=True, invalid_row_handler=handler
    )
    convert = pacsv.ConvertOptions(
        include_columns=list(columns),
        column_types={c: pa.string() for c in columns},
        strings_can_be_null=True,
    )
    return read, parse, convert


@contextmanager
def _csv_stream(name: str, spec: Spec):
    import pyarrow as pa

    compression = _suffixes(name)[1]
    with _opened(name) as source:
        raw = pa.OSFile(source, "rb") if isinstance(source, str) else pa.PythonFile(source, "r")
        try:
            yield pa.CompressedInputStream(raw, compression) if compression else raw
        finally:
            raw.close()


def _csv_spec(name: str, spec: Spec) -> Spec:
    sep = _CSV.get(_suffixes(name)[0], ",")
    return Spec(spec.columns, "csv", spec.modes, sep)


def _skip(row) -> str:
    return "skip"


def _csv_header(name: str, spec: Spec) -> list[str]:
    from pyarrow import csv as pacsv

    spec = _csv_spec(name, spec)
    try:
        with _csv_stream(name, spec) as stream:
            reader = pacsv.open_csv(
                stream,
                read_options=pacsv.ReadOptions(block_size=1 << 16),
                parse_options=pacsv.ParseOptions(  # rows are read (and named) later
                    delimiter=spec.sep, newlines_in_values=True, invalid_row_handler=_skip
                ),
            )
            return list(reader.schema.names)
    except Exception as exc:
        if "Empty CSV file" in str(exc):  # pyarrow's words for a file of no bytes
            raise QwkitError(f"File {name!r} is empty.", parameter="data") from None
        raise _file_error(name, "CSV", exc) from None


def read_csv(spec: Spec, piece: Piece) -> Iterator[tuple[Piece, dict]]:
    """The batches ({parameter: values}) of one CSV file, block by block, each with
    ``piece``; a row that does not parse is reported with its data row (rows are
    numbered as records, so a quoted value that spans lines counts once)."""
    from pyarrow import csv as pacsv

    spec = _csv_spec(piece.file, spec)
    bad = []

    def invalid(row):
        bad.append(row)
        return "error"

    columns = list(dict.fromkeys(spec.columns.values()))
    decided: dict = {}
    row0 = 0
    with _csv_stream(piece.file, spec) as stream:
        try:
            reader = pacsv.open_csv(stream, *_csv_options(spec, columns, invalid))
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                if batch.num_rows:
                    yield piece, batch_values(batch, spec, piece, row0, decided)
                    row0 += batch.num_rows
        except QwkitError:
            raise
        except Exception as exc:
            raise _csv_error(piece, bad, exc) from None


def _fields(n: int) -> str:
    return f"{n} field" if n == 1 else f"{n} fields"


def _csv_error(piece: Piece, bad: list, exc: Exception) -> QwkitError:
    if bad and bad[0].number is not None:  # pyarrow counts the header as row 1
        row = bad[0]
        return QwkitError(
            f"File {piece.file!r} is not valid CSV: data row {row.number - 1} has "
            f"{_fields(row.actual_columns)} where the header has "
            f"{_fields(row.expected_columns)} (a value that holds the separator must be "
            "quoted).",
            parameter="data",
            row=row.number - 2,
        )
    return _file_error(piece.file, "CSV", exc)
