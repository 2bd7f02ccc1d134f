"""The pieces of ``qwkit.dask``'s inputs, and where each item comes from.

A piece is a partition of a dask collection, or a piece of a file that ``data=`` names;
it knows its file and the data row of its first item (or its place among the items), so
that an error at an item names the file and the data row — or the item's index in the
whole collection — never a position inside a partition (:func:`located`). What the
rating columns held (numbers or text, the category order they declare) is recorded per
piece and checked when pieces merge (:class:`Seen`): a column of numbers in one file and
text in another, or two files whose ordered categories declare different orders, are
refused with both files named.

Files. A path, glob, folder or list of them names Parquet files (read by row groups, in
pieces of about a target size of the used columns — at most ``PARQUET_BYTES``, dask's
default block — that may span consecutive files, so that many small files make few
tasks; each piece is read inside the task that reduces it) or CSV files (one piece per
file, streamed in blocks: a CSV file cannot be split at a byte offset without reading it
from its start, since a quoted value may hold a line break).
Paths are local, or anything ``fsspec`` opens (``s3://``, ``gs://``, ...).

The values of a column, as the command line's local engine reads them: CSV cells are
text, turned into numbers where the column must hold numbers (int64 when every value is
an integer written without a decimal mark, float64 otherwise, so that ``2.0`` is the
rating 2; hexadecimal refused); an empty cell, only blanks or a null spelling (``NA``,
``null``, ...) is a missing value, refused with its row. Parquet columns keep their
types (text columns are read as CSV cells are, as numbers when they all are); an
ordered dictionary column (a pandas ordered Categorical) declares its scale and becomes
an ordered ``pandas.Categorical``.

Only ``qwkit.dask`` uses this module; it imports pyarrow, pandas and fsspec (all three
come with ``dask[dataframe]``).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from qwkit._base._errors import QwkitError, QwkitTypeError, at_index
from qwkit._base._scale import declared_order
from qwkit._base._validation import show

__all__ = [
    "PARQUET_BYTES",
    "Checks",
    "Deferred",
    "Piece",
    "Seen",
    "Spec",
    "data_files",
    "located",
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
#: A number written in decimal notation (no hex, no digit separators), or inf / nan —
#: the command line's rule for numbers written as text.
_NUMBER = r"^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[iI]nf(inity)?|[nN]a[nN])$"


# ---------------------------------------------------------------------------- pieces


@dataclass(frozen=True)
class Piece:
    """Where the rows of one partition come from: a file (``file``) from its data row
    ``first_row`` (``rows`` rows, from its footer), or partition ``index`` of a dask
    collection, whose first item is item ``first_row`` of the whole collection (None:
    unknown until the partitions before it are counted). A partition of several Parquet
    files lists one such piece per file in ``parts``; with ``whole`` (the used columns
    of every part hold numbers of one type) they are read as one batch."""

    index: int
    file: str | None = None
    first_row: int | None = 0
    row_groups: tuple[int, ...] = ()
    parts: tuple[Piece, ...] = ()
    rows: int = 0
    whole: bool = False

    @property
    def files(self) -> tuple[Piece, ...]:
        """The pieces of one file each that make this partition."""
        return self.parts or (self,)

    @property
    def name(self) -> str:
        if self.parts:
            return f"files {self.parts[0].file!r} to {self.parts[-1].file!r}"
        return f"file {self.file!r}" if self.file is not None else f"partition {self.index}"

    def _part(self, row: int) -> tuple[Piece, int]:
        """(the piece of one file that holds item ``row``, the item's place in it)."""
        for part in self.parts[:-1]:
            if row < part.rows:
                return part, row
            row -= part.rows
        return self.parts[-1], row

    def where(self, row: int) -> str:
        """How a message says item ``row`` of this piece (counted from its first)."""
        if self.parts:
            return Piece.where(*self._part(row))
        if self.file is not None:
            return f"data row {self.first_row + row + 1} of file {self.file!r}"
        return at_index(self.first_row + row)

    def row(self, row: int) -> int:
        """The ``row`` attribute of an error at item ``row`` of this piece: the 0-based
        data row in the file, or the position in the collection."""
        if self.parts:
            return Piece.row(*self._part(row))
        return self.first_row + row


@dataclass(frozen=True)
class Spec:
    """What to read: ``columns`` (parameter → column name), the format, and how the text
    of each rating parameter is read (``modes``): ``"numbers"``, ``"text"``, or
    ``"auto"`` (numbers when the first block of a file holds only numbers, text when it
    holds no number, an error when it mixes them); other parameters hold numbers."""

    columns: dict[str, str]
    format: str  # "parquet" or "csv"
    modes: dict[str, str] = field(default_factory=dict)
    sep: str = ","


@dataclass(frozen=True)
class Checks:
    """What is checked across batches and partitions: the rating parameters hold one
    mode of value (numbers or text), and (``orders``: no ``labels`` given) every order
    they declare is the same."""

    rated: tuple[str, ...]
    orders: bool


def value_mode(values, order) -> str | None:
    """``"numbers"`` or ``"text"`` (of a categorical: its categories, ``order`` when it
    declares them); None when the dtype does not say (object arrays)."""
    if order is not None:
        return "numbers" if np.asarray(order).dtype.kind in "biuf" else "text"
    dtype = getattr(values, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if dtype is None:
        return None
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        return "numbers"
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return "text"
    return None


@dataclass(slots=True)
class Seen:
    """What the rating parameters held so far: their mode (numbers or text) and the first
    category order they declared, each with where it was seen."""

    modes: dict = field(default_factory=dict)  # parameter -> (mode, where)
    order: tuple | None = None  # (parameter, categories, where)

    @classmethod
    def of(cls, batch: dict, piece: Piece, checks: Checks) -> Seen:
        seen = cls()
        for param in checks.rated:
            if param not in batch:
                continue
            order = declared_order([batch[param]], [param])
            mode = value_mode(batch[param], order)
            if mode is not None:
                seen.modes[param] = (mode, piece.name)
            if order is not None and checks.orders:
                seen.merge(cls(order=(param, order, piece.name)), checks)
        return seen

    def merge(self, other: Seen, checks: Checks) -> None:
        """Add ``other`` (seen after this); a rating parameter holding numbers in one
        place and text in another, or two different declared orders, are refused."""
        for param, (mode, where) in other.modes.items():
            mine, there = self.modes.setdefault(param, (mode, where))
            if mine != mode:
                raise QwkitTypeError(
                    f"`{param}` holds {mine} in {there} but {mode} in {where}; a rating "
                    "column must hold numbers everywhere, or text everywhere (then pass "
                    "`labels`).",
                    parameter=param,
                )
        if other.order is None:
            return
        if self.order is None:
            self.order = other.order
            return
        (p1, o1, w1), (p2, o2, w2) = self.order, other.order
        if not (o1.shape == o2.shape and bool(np.all(o1 == o2))):
            raise QwkitError(
                f"`{p1}` declares the category order {show(o1)} in {w1}, but `{p2}` declares "
                f"{show(o2)} in {w2}; one scale must hold for all the data: pass `labels`.",
                parameter="labels",
                also=(p1, p2),
            )


def _reworded(exc: QwkitError, text: str, row: int | None) -> QwkitError:
    also = exc.parameters[1:] if exc.parameter is not None else exc.parameters
    return type(exc)(text, parameter=exc.parameter, row=row, also=also)


def located(exc: QwkitError, piece: Piece, offset: int) -> QwkitError:
    """``exc``, raised on a batch whose first item is item ``offset`` of ``piece``, with
    the item's place in the file (or the collection): its file and data row, or its
    index among all the items."""
    text = str(exc)
    if exc.row is None:
        if piece.file is None:
            return exc
        return _reworded(exc, f"{text.rstrip('.')} (in {piece.name}).", None)
    where = piece.where(offset + exc.row)
    if at_index(exc.row) in text:
        text = text.replace(at_index(exc.row), where)
    else:
        text = f"{text.rstrip('.')} ({where})."
    return _reworded(exc, text, piece.row(offset + exc.row))


@dataclass(frozen=True)
class Deferred:
    """An error at an item of a partition whose place was not known (a partition of a
    dask DataFrame or Series): ``offset`` items precede its batch, counted from the
    first partition of the merged range; at the root, from the first of all."""

    error: QwkitError
    offset: int

    def shifted(self, n: int) -> Deferred:
        return Deferred(self.error, self.offset + n)


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


# ---------------------------------------------------------------------------- values


def _missing(param: str, piece: Piece, row: int) -> QwkitError:
    return QwkitError(
        f"`{param}` has a missing value ({piece.where(row)}); fill it, or drop such rows first.",
        parameter=param,
        row=piece.row(row),
    )


def _first_true(mask) -> int:
    import pyarrow.compute as pc

    return int(pc.index(mask, True).as_py())


def _cast_numbers(text):
    """Text → int64 (every value an integer written without a decimal mark) or float64
    numbers, as pyarrow parses them (hex refused, as the command line refuses it); None
    if a value is not a number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if any(pc.any(pc.match_substring(text, x)).as_py() for x in "xX"):  # 0x3
        return None
    for target in (pa.int64(), pa.float64()):  # '+3' or beyond int64: float64, as the CLI
        try:
            return pc.cast(text, target).to_numpy(zero_copy_only=False)
        except pa.ArrowInvalid:
            continue
    return None


def _any_number(text) -> bool:
    import pyarrow.compute as pc

    return bool(pc.any(pc.match_substring_regex(text, _NUMBER)).as_py())


def _not_a_number(text, param: str, piece: Piece, row0: int, *, rated: bool) -> QwkitError:
    """The error at the first value of ``text`` that is not a number."""
    import pyarrow.compute as pc

    ok = pc.match_substring_regex(text, _NUMBER)
    i = _first_true(pc.invert(ok)) if not pc.all(ok).as_py() else 0
    value = text[i].as_py()
    hint = ". For text ratings pass `labels` (in order)." if rated else "."
    if re.fullmatch(_NUMBER.replace(r"\.", ","), value.strip()):
        hint = " (a decimal comma? CSV files are read with decimal points)."
    return QwkitError(
        f"`{param}` must hold numbers; {piece.where(row0 + i)} has {value!r}{hint}",
        parameter=param,
        row=piece.row(row0 + i),
    )


def _trimmed(text, param: str, piece: Piece, row0: int):
    """Text without the blanks around it; a value that is only blanks is missing."""
    import pyarrow.compute as pc

    text = pc.utf8_trim_whitespace(text)
    blank = pc.equal(text, "")
    if pc.any(blank).as_py():
        raise _missing(param, piece, row0 + _first_true(blank))
    return text


def _ordered_categorical(chunked, param: str, piece: Piece):
    """An ordered dictionary column as an ordered ``pandas.Categorical`` (its categories
    in their declared order, used or not)."""
    chunks = [c for c in chunked.chunks if len(c)] or chunked.chunks[:1]
    order = chunks[0].dictionary
    if any(not c.dictionary.equals(order) for c in chunks[1:]):
        raise QwkitError(
            f"`{param}` declares different category orders in different parts of "
            f"{piece.name}; pass `labels`.",
            parameter="labels",
            also=(param,),
        )
    categories = order.to_pylist()
    if any(v is None for v in categories) or len(set(categories)) != len(categories):
        raise QwkitError(
            f"`{param}` declares categories with a missing or repeated value "
            f"({show(categories)}) in {piece.name}; pass `labels`.",
            parameter="labels",
            also=(param,),
        )
    codes = np.concatenate(
        [np.asarray(c.indices.to_numpy(zero_copy_only=False), dtype=np.int64) for c in chunks]
    )
    return pd.Categorical.from_codes(codes, categories=categories, ordered=True)


def column_values(
    chunked, param: str, mode: str, piece: Piece, row0: int, decided: dict, *, rated: bool
):
    """The values of one column of a batch (a pyarrow ChunkedArray or Array) for qwkit:
    numpy numbers or text, or an ordered ``pandas.Categorical``. ``row0``: the batch's
    first item in the piece; ``decided``: the mode an ``"auto"`` column took in this
    file (updated); ``rated``: a column of ratings (text ratings are possible)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(chunked, pa.Array):
        chunked = pa.chunked_array([chunked], type=chunked.type)
    arrow_type = chunked.type
    if len(chunked) == 0:
        return np.empty(0)  # an empty file or row group adds nothing
    if chunked.null_count:
        raise _missing(param, piece, row0 + _first_true(pc.is_null(chunked)))
    if pa.types.is_dictionary(arrow_type):
        if arrow_type.ordered:
            return _ordered_categorical(chunked, param, piece)
        chunked = chunked.cast(arrow_type.value_type)
        arrow_type = chunked.type
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        text = chunked.combine_chunks()
        mode = decided.setdefault(param, mode)
        if mode != "text":  # numbers as they are written (the common case), then trimmed
            values = _cast_numbers(text)
            if values is not None:
                decided[param] = "numbers"
                return values
        text = _trimmed(text, param, piece, row0)
        values = None if mode == "text" else _cast_numbers(text)
        if values is not None:
            decided[param] = "numbers"
            return values
        if mode == "numbers" or (mode == "auto" and _any_number(text)):  # numbers and text
            raise _not_a_number(text, param, piece, row0, rated=rated)
        decided[param] = "text"  # "text", or "auto" whose first block holds no number
        return np.asarray(text.to_numpy(zero_copy_only=False), dtype=str)
    if pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type):
        return chunked.to_numpy()
    if pa.types.is_boolean(arrow_type):
        return chunked.to_numpy().astype(np.int64)
    if pa.types.is_decimal(arrow_type):  # like text: integers stay integers (scale 0)
        target = pa.int64() if arrow_type.scale == 0 else pa.float64()
        try:
            return pc.cast(chunked, target).to_numpy()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return pc.cast(chunked, pa.float64(), safe=False).to_numpy()
    raise QwkitTypeError(
        f"`{param}` must hold numbers or text; its column has type {arrow_type} in {piece.name}.",
        parameter=param,
    )


def _writable(values):
    """A numpy array over Arrow's (read-only) memory, copied: numba compiles every kernel
    anew for read-only arrays, which the in-memory functions never see."""
    if isinstance(values, np.ndarray) and not values.flags.writeable:
        return values.copy()
    return values


def _batch(table, spec: Spec, piece: Piece, row0: int, decided: dict) -> dict:
    out = {}
    for param, column in spec.columns.items():
        mode = spec.modes.get(param, "numbers")
        if mode == "numbers" and param in spec.modes and spec.format == "parquet":
            mode = "auto"  # a Parquet text column is text (another may declare its order)
        values = column_values(
            table.column(column), param, mode, piece, row0, decided, rated=param in spec.modes
        )
        out[param] = _writable(values)
    return out


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
    batch = _batch(pa.concat_tables(tables), spec, piece, 0, {})
    del tables
    yield piece, batch


def parquet_piece(piece: Piece, spec: Spec) -> dict:
    """The columns of one Parquet piece of one file, as one batch ({parameter: values})."""
    return _batch(_parquet_table(piece, spec), spec, piece, 0, {})


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
                    yield piece, _batch(batch, spec, piece, row0, decided)
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
