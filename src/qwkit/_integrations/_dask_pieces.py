"""The pieces of ``qwkit.dask``'s inputs, where each item comes from, and the values of
their columns.

A piece is a partition of a dask collection, or a piece of a file that ``data=`` names
(``_dask_files`` plans and reads those); it knows its file and the data row of its first
item (or its place among the items), so that an error at an item names the file and the
data row — or the item's index in the whole collection — never a position inside a
partition (:func:`located`). What the rating columns held (numbers or text, the category
order they declare) is recorded per piece and checked when pieces merge (:class:`Seen`):
a column of numbers in one file and text in another, or two files whose ordered
categories declare different orders, are refused with both files named.

The values of a column, as the command line's local engine reads them: CSV cells are
text, turned into numbers where the column must hold numbers (int64 when every value is
an integer written without a decimal mark, float64 otherwise, so that ``2.0`` is the
rating 2; hexadecimal refused); an empty cell, only blanks or a null spelling (``NA``,
``null``, ...) is a missing value, refused with its row. Parquet columns keep their
types (text columns are read as CSV cells are, as numbers when they all are); an
ordered dictionary column (a pandas ordered Categorical) declares its scale and becomes
an ordered ``pandas.Categorical`` (:func:`column_values`, :func:`batch_values`).

Only ``qwkit.dask`` uses this module; it imports pandas (with ``dask[dataframe]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from qwkit._base._errors import QwkitError, QwkitTypeError, at_index
from qwkit._base._scale import declared_order
from qwkit._base._validation import show

__all__ = [
    "Checks",
    "Deferred",
    "Piece",
    "Seen",
    "Spec",
    "batch_values",
    "column_values",
    "located",
]

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


def batch_values(table, spec: Spec, piece: Piece, row0: int, decided: dict) -> dict:
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
