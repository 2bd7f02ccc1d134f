"""The columns a command uses: read (``_io``) and turned into numpy arrays.

What only the file can tell is checked here, with the column and the data row (rows are
numbered from 1, the first row below the header): a missing value, a cell that is not a
number. Whether a value is acceptable to qwkit (a rating on the scale, a finite score, a
non-negative weight, whole counts) is qwkit's own check: its error carries the parameter
and the item's position, which :meth:`Loaded.terms` says as the column and the data row
(``_errors.in_file_terms``). Numbers written as text
are decimal numbers with ``.`` as the decimal mark, or ``,`` with ``--decimal ,``
(European CSV files, which then use another separator, e.g. ``;``); hex, digit
separators and the like are errors. Without ``--labels``, ordered categories of the
rating columns (a Parquet dictionary, see ``_io``) declare the rating scale.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from qwkit._base._scale import with_gaps
from qwkit.cli._errors import CliError, file_row, in_file_terms
from qwkit.cli._io import Source, _arrow, codes_to_null, read_columns

__all__ = [
    "Loaded",
    "Ratings",
    "Scored",
    "empty_cells",
    "fractional_rating",
    "load",
    "load_long",
    "load_ratings",
    "load_scored",
    "missing_mask",
    "numeric_values",
    "parse_labels",
    "rating_values",
    "score_values",
    "text_values",
]

#: A number in decimal notation (no hex, no digit separators), or inf / nan; the
#: decimal mark is filled in.
_NUMBER = r"^\s*[+-]?((\d+{0}?\d*|{0}\d+)([eE][+-]?\d+)?|[iI]nf(inity)?|[nN]a[nN])\s*$"


def _row_text(value) -> str:
    if isinstance(value, (int, float, np.number)):
        return str(value)
    text = str(value)
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _null_error(column: str, array, rows: np.ndarray | None = None) -> CliError:
    pa = _arrow()
    import pyarrow.compute as pc

    i = int(pc.index(pc.is_null(array), pa.scalar(True)).as_py())
    return CliError(
        f"column '{column}' has a missing value in data row {file_row(i, rows)}; fill it or pass "
        "--nan-policy omit to skip such rows."
    )


def missing_mask(arrays: Sequence) -> np.ndarray:
    """True for the rows where any of the arrays is null (a missing value)."""
    import pyarrow.compute as pc

    mask = np.zeros(len(arrays[0]), dtype=bool)
    for arr in arrays:
        if arr.null_count:
            mask |= pc.is_null(arr).to_numpy(zero_copy_only=False)
    return mask


def _number_pattern(decimal: str) -> str:
    return _NUMBER.format(re.escape(decimal))


def _first_bad_number(column: str, array, rows: np.ndarray | None, decimal: str = ".") -> CliError:
    import pyarrow.compute as pc

    ok = pc.match_substring_regex(array, _number_pattern(decimal))
    bad = np.flatnonzero(~ok.to_numpy(zero_copy_only=False))
    mark = f" (read with '{decimal}' as the decimal mark)" if decimal != "." else ""
    if bad.size:
        i = int(bad[0])
        value = array[i].as_py()
        comma = decimal == "." and re.match(_number_pattern(","), value) is not None
        hint = " (a decimal comma? --decimal ',' reads them where ',' does not separate)"
        hint = hint if comma else ""
        return CliError(
            f"column '{column}' must hold numbers{mark}; data row {file_row(i, rows)} has "
            f"{_row_text(value)}{hint}."
        )
    return CliError(f"column '{column}' has values that are not numbers pyarrow can read.")


def numeric_values(
    array, column: str, *, rows: np.ndarray | None = None, decimal: str = "."
) -> np.ndarray:
    """A column without missing values as numbers: int64 (uint64 beyond it) when every
    value is an integer written without a decimal mark, float64 otherwise. Text must be
    a decimal number with ``decimal`` as its decimal mark (``0x3`` or ``1_000`` is an
    error naming the row)."""
    pa = _arrow()
    import pyarrow.compute as pc

    if array.null_count:
        raise _null_error(column, array, rows)
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        if not pc.all(pc.match_substring_regex(array, _number_pattern(decimal))).as_py():
            raise _first_bad_number(column, array, rows, decimal)
        trimmed = pc.utf8_trim_whitespace(array)
        integers = pc.all(pc.match_substring_regex(trimmed, r"^[+-]?\d+$")).as_py()
        if decimal != "." and not integers:
            trimmed = pc.replace_substring(trimmed, decimal, ".")
        for target in (pa.int64(), pa.uint64()) if integers else (pa.float64(),):
            try:
                return pc.cast(trimmed, target).to_numpy(zero_copy_only=False)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
        if integers:  # float64 would round them (2**53 + 1 is not a float64)
            cells = trimmed.to_pylist()
            i = next(i for i, v in enumerate(cells) if not -(2**63) <= int(v) < 2**63)
            raise CliError(
                f"column '{column}' holds integers that no 64-bit integer type holds "
                "together (-2**63 to 2**63 - 1, or 0 to 2**64 - 1), which qwkit would have "
                f"to round; data row {file_row(i, rows)} has {cells[i]}."
            )
        raise _first_bad_number(column, array, rows, decimal)
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


def score_values(
    array, column: str, *, rows: np.ndarray | None = None, decimal: str = "."
) -> np.ndarray:
    """A column of real-valued scores as float64 (qwkit checks that they are finite)."""
    return numeric_values(array, column, rows=rows, decimal=decimal).astype(np.float64)


def rating_values(
    array,
    column: str,
    labels: np.ndarray | None,
    *,
    rows: np.ndarray | None = None,
    decimal: str = ".",
) -> np.ndarray:
    """A rating column: text when ``labels`` is text, numbers otherwise. What only the
    file can tell is checked here (a missing value, a cell that is not a number, with
    its data row); whether a rating fits the scale — an integer, finite, in ``labels``
    — is qwkit's check, said in the file's terms by ``_errors.in_file_terms``."""
    if labels is not None and labels.dtype.kind == "U":
        return text_values(array, column, labels, rows=rows)
    try:
        return numeric_values(array, column, rows=rows, decimal=decimal)
    except CliError as exc:
        if labels is not None or "must hold numbers" not in str(exc):
            raise
        raise CliError(
            f"{str(exc).rstrip('.')}; for text ratings pass the ordered scale with "
            "--labels (e.g. --labels low,mid,high)."
        ) from None


def text_values(array, column: str, labels=None, *, rows=None) -> np.ndarray:
    """A column of text ratings (blanks trimmed); a Parquet bool is spelled as in the
    text ``labels`` (``true``/``false`` without them)."""
    pa = _arrow()
    import pyarrow.compute as pc

    if array.null_count:
        raise _null_error(column, array, rows)
    if pa.types.is_boolean(array.type):
        spelling = {str(v).lower(): str(v) for v in (labels if labels is not None else ())}
        flags = array.to_numpy(zero_copy_only=False)
        return np.where(flags, spelling.get("true", "true"), spelling.get("false", "false")).astype(
            str
        )
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        array = pc.cast(array, pa.string())
    return np.asarray(pc.utf8_trim_whitespace(array).to_numpy(zero_copy_only=False), dtype=str)


def fractional_rating(
    exc, columns: dict[str, np.ndarray], rows=None, *, integer_scale: bool = True
) -> str | None:
    """The command line's words for qwkit's error about a fractional rating: the rating
    column ``exc.parameter`` (``columns``: parameter → ``(column name, values)``) holds
    a non-integral number at ``exc.row`` — on an integer scale (``integer_scale``), or,
    whatever the scale, as a real-valued score under weights that need ratings (an
    error that also names ``weights``). None for any other error."""
    if exc.parameter not in columns or exc.row is None:
        return None
    name, values = columns[exc.parameter]
    if values.dtype.kind != "f" or not 0 <= exc.row < len(values):
        return None
    value = float(values[exc.row])
    if not math.isfinite(value) or value == math.floor(value):
        return None
    where = f"data row {file_row(exc.row, rows)} has {value}"
    if "weights" in exc.parameters:  # real-valued scores under weights other than quadratic
        return (
            f"column '{name}' holds real-valued scores ({where}); weights other than "
            "quadratic need ratings on the scale: cut the scores into ratings first "
            "(`qwkit thresholds fit --score COLUMN`, then `qwkit thresholds apply`), or use "
            "--weights quadratic, whose continuous form scores real values as they are."
        )
    if not integer_scale:
        return None
    return (
        f"column '{name}' must hold integer ratings; {where} (real-valued scores are cut "
        "into ratings by `qwkit thresholds fit --score COLUMN`; a scale of non-integer "
        "values needs --labels)."
    )


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


# ---------------------------------------------------------------------------- loading


@dataclass(frozen=True, slots=True)
class Loaded:
    """Columns read and checked by :func:`load`."""

    columns: dict[str, np.ndarray]
    sample_weight: np.ndarray | None
    dropped: int  # rows skipped by --nan-policy omit
    rows: np.ndarray | None  # 0-based file row of each kept position (None: all kept)
    #: The rating scale: the one given, or the order that ordered categories declare.
    labels: np.ndarray | None = None
    counts: np.ndarray | None = None
    #: How messages name where the scale came from.
    labels_origin: str = "--labels"
    #: The columns of ``sample_weight`` and ``counts``, and the rating columns.
    weight_column: str | None = None
    counts_column: str | None = None
    ratings: tuple[str, ...] = ()

    @property
    def item_weights(self) -> dict:
        """``sample_weight=`` and ``counts=`` for the API."""
        return {"sample_weight": self.sample_weight, "counts": self.counts}

    @property
    def n_items(self) -> int:
        """How many items the rows stand for: the sum of the counts, the rows of positive
        weight, or the rows (as ``n_items`` of qwkit's results)."""
        if self.counts is not None:
            return int(np.sum(self.counts, dtype=np.float64))
        if self.sample_weight is not None:
            return int(np.count_nonzero(self.sample_weight > 0))
        return len(next(iter(self.columns.values())))

    def terms(self, parameters: dict[str, str], *, labels=None, said=None):
        """:func:`_errors.in_file_terms` for an API call on these columns:
        ``parameters`` maps the API's parameters to the columns passed (the item-weight
        columns are added); ``labels``: the ``labels=`` of the call (None: qwkit's
        integer scale, whose fractional ratings are said in the command line's words)."""
        columns = {
            **parameters,
            "sample_weight": self.weight_column,
            "counts": self.counts_column,
        }
        rated = {p: (c, self.columns[c]) for p, c in parameters.items() if c in self.ratings}
        explain = functools.partial(
            fractional_rating, columns=rated, rows=self.rows, integer_scale=labels is None
        )
        return in_file_terms(
            columns, self.rows, labels=self.labels_origin, said=said, explain=explain
        )


def _declared_scale(source: Source, orders: dict, ratings: Sequence[str]):
    """The scale that the rating columns' ordered categories declare (all the same), and
    how messages name it; ``(None, None)`` when none declares one."""
    found = None
    for column in dict.fromkeys(ratings):
        order = orders.get(column)
        if order is None:
            continue
        if found is not None and not (
            found[0].shape == order.shape and bool(np.all(found[0] == order))
        ):
            shown = [", ".join(str(v) for v in o[:8]) for o in (found[0], order)]
            raise CliError(
                f"columns '{found[1]}' and '{column}' of {source.name} declare different "
                f"category orders [{shown[0]}] and [{shown[1]}]; pass the scale with --labels."
            )
        found = found or (order, column)
    if found is None:
        return None, None
    return found[0], f"the categories of column '{found[1]}'"


def load(
    source: Source,
    *,
    ratings: Sequence[str],
    scores: Sequence[str] = (),
    labels: np.ndarray | None = None,
    weight: str | None = None,
    counts: str | None = None,
    drop_missing: bool = False,
    labels_origin: str = "--labels",
    text_allowed: bool | None = None,
    console=None,
) -> Loaded:
    """Read the columns a command uses, as numbers (or text, for a text scale). Without
    ``labels``, ordered categories of the rating columns (a Parquet dictionary) declare
    the scale, and rating columns that are not numbers are, by ``text_allowed``: True,
    read as text (unweighted kappa needs no order); False, an error that asks for the
    scale or --weights identity; None (the result needs the order whatever the
    weights, e.g. cut points), an error that asks for the scale. ``weight`` and
    ``counts``: the columns of ``sample_weight=`` and ``counts=``."""
    extra = [c for c in (weight, counts) if c]
    names = [*ratings, *scores, *extra]
    read = read_columns(source, names, console=console)
    arrays = dict(read.arrays)
    if labels is None:
        labels, origin = _declared_scale(source, read.orders, ratings)
        labels_origin = origin or labels_origin
    rows = None
    dropped = 0
    if drop_missing:
        missing = missing_mask([arrays[c] for c in dict.fromkeys(names)])
        dropped = int(missing.sum())
        if dropped == len(missing):
            raise CliError(f"every row of {source.name} has a missing value in a used column.")
        if dropped:
            pa = _arrow()
            keep = pa.array(~missing)
            arrays = {c: a.filter(keep) for c, a in arrays.items()}
            rows = np.flatnonzero(~missing)
    decimal = source.decimal
    try:
        out = {c: rating_values(arrays[c], c, labels, rows=rows, decimal=decimal) for c in ratings}
    except CliError as exc:
        if labels is not None or text_allowed is None or "must hold numbers" not in str(exc):
            raise
        if not text_allowed:
            raise CliError(
                f"{str(exc).rstrip('.')}, or --weights identity (unweighted kappa needs no order)."
            ) from None
        out = {c: text_values(arrays[c], c, rows=rows) for c in ratings}
    for c in scores:
        out[c] = score_values(arrays[c], c, rows=rows, decimal=decimal)
    sw, cnt = (
        numeric_values(arrays[c], c, rows=rows, decimal=decimal) if c else None
        for c in (weight, counts)
    )
    return Loaded(
        out,
        sw,
        dropped,
        rows,
        labels,
        counts=cnt,
        labels_origin=labels_origin,
        weight_column=weight,
        counts_column=counts,
        ratings=tuple(ratings),
    )


# ---------------------------------------------------------------------------- many raters


@dataclass(frozen=True, slots=True)
class Ratings:
    """Ratings of items by raters, read by :func:`load_ratings` or :func:`load_long`:
    ``ratings`` (items × raters with NaN or None where a rater gave none; the long format:
    a ``qwkit.RatingsTable``, one entry per rating), the ``raters``' names, the scale
    (``labels``, None: qwkit's), and ``rows``: the 0-based file row of each row an error
    names (None: row i is data row i + 1 — an item of the wide format, a row of the
    long one); ``duplicates``: repeated ratings left out."""

    ratings: object
    raters: tuple[str, ...]
    labels: np.ndarray | None
    labels_origin: str
    n_rows: int
    rows: np.ndarray | None = None
    duplicates: int = 0


def _with_gaps(array, column, labels, decimal: str, *, text: bool, origin: str = "--labels"):
    """A rating column whose missing values stay missing: float with NaN (numbers) or
    object with None (text, and integers beyond ±2**53, which float64 would round); a
    cell that is not a number is an error with its row."""
    pa = _arrow()
    import pyarrow.compute as pc

    valid = ~pc.is_null(array).to_numpy(zero_copy_only=False)
    present = array.filter(pa.array(valid)) if not valid.all() else array
    rows = np.flatnonzero(valid) if not valid.all() else None
    if text:
        out = np.full(len(array), None, dtype=object)
        if len(present):
            values = text_values(present, column, labels, rows=rows)
            if labels is not None:
                _on_scale(values, column, labels, origin, rows)
            out[valid] = values
        return out
    if not len(present):
        return np.full(len(array), np.nan)
    values = rating_values(present, column, labels, rows=rows, decimal=decimal)
    _on_scale(values, column, labels, origin, rows)
    return with_gaps(valid, values)  # float with NaN; object with None beyond ±2**53


def _on_scale(values: np.ndarray, column: str, labels, origin: str, rows) -> None:
    """Numeric ratings of many raters are finite and, with ``labels``, on the scale:
    qwkit's own error about the ratings matrix names its row, not the file's column, so
    the file's cell is named here."""
    bad = np.flatnonzero(~np.isfinite(values)) if values.dtype.kind == "f" else ()
    if len(bad):
        i = int(bad[0])
        raise CliError(
            f"column '{column}' must hold finite ratings; data row {file_row(i, rows)} has "
            f"{values[i]}."
        )
    if labels is not None:
        outside = np.flatnonzero(~np.isin(values, labels))
        if outside.size:
            i = int(outside[0])
            shown = ", ".join(str(v) for v in labels[:12]) + (", ..." if len(labels) > 12 else "")
            raise CliError(
                f"column '{column}' contains {_row_text(values[i])}, which is not in {origin} "
                f"[{shown}] (data row {file_row(i, rows)})."
            )


def _ratings_matrix(source, arrays: dict, names, labels, origin: str, *, text_allowed: bool):
    """The rating columns as one items × raters matrix: text when ``labels`` is text, or
    when the columns are not numbers and ``text_allowed`` (unweighted agreement)."""
    text = labels is not None and labels.dtype.kind == "U"
    decimal = source.decimal
    try:
        columns = [
            _with_gaps(arrays[c], c, labels, decimal, text=text, origin=origin) for c in names
        ]
    except CliError as exc:
        if text or labels is not None or not text_allowed or "must hold numbers" not in str(exc):
            raise
        columns = [_with_gaps(arrays[c], c, labels, decimal, text=True) for c in names]
        text = True
    if text:
        matrix = np.empty((len(columns[0]), len(columns)), dtype=object)
        for j, col in enumerate(columns):
            matrix[:, j] = col
        return matrix
    return np.column_stack(columns)


def load_ratings(
    source: Source,
    raters: Sequence[str],
    *,
    labels: np.ndarray | None,
    text_allowed: bool,
    missing: Sequence[str] = (),
    console=None,
) -> Ratings:
    """Rater columns (items in rows, one column per rater; an empty cell, or one of the
    ``missing`` codes, is a missing rating)."""
    read = read_columns(source, raters, console=console)
    origin = "--labels"
    if labels is None:
        labels, declared = _declared_scale(source, read.orders, raters)
        origin = declared or origin
    arrays = {name: codes_to_null(read.arrays[name], missing) for name in raters}
    matrix = _ratings_matrix(source, arrays, raters, labels, origin, text_allowed=text_allowed)
    return Ratings(matrix, tuple(raters), labels, origin, matrix.shape[0])


def _ids(array, column: str) -> np.ndarray:
    """Item or rater names as text; a missing one is an error with its row."""
    pa = _arrow()
    import pyarrow.compute as pc

    if array.null_count:
        raise _null_error(column, array)
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        array = pc.cast(array, pa.string())
    return np.asarray(pc.utf8_trim_whitespace(array).to_numpy(zero_copy_only=False), dtype=str)


def load_long(
    source: Source,
    *,
    item: str,
    rater: str,
    rating: str,
    labels: np.ndarray | None,
    text_allowed: bool,
    duplicates: str = "raise",
    missing: Sequence[str] = (),
    console=None,
) -> Ratings:
    """Ratings in long format: one row per rating, with its item and rater, as the sparse
    table of ``qwkit.ratings_from_long`` (a missing rating stays missing; a rater who
    rated an item twice is an error naming both rows, unless ``duplicates`` is "first"
    or "last")."""
    import qwkit

    read = read_columns(source, [item, rater, rating], console=console)
    arrays = dict(read.arrays)
    arrays[rating] = codes_to_null(arrays[rating], missing)
    origin = "--labels"
    if labels is None:
        labels, declared = _declared_scale(source, read.orders, [rating])
        origin = declared or origin
    items, raters = _ids(arrays[item], item), _ids(arrays[rater], rater)
    if duplicates == "raise":
        pairs = np.char.add(np.char.add(items, "\x00"), raters)
        _, first, count = np.unique(pairs, return_index=True, return_counts=True)
        if (count > 1).any():
            twice = np.flatnonzero(pairs == pairs[first[count > 1][0]])[:2]
            raise CliError(
                f"rater '{raters[twice[0]]}' rated item '{items[twice[0]]}' twice (data rows "
                f"{twice[0] + 1} and {twice[1] + 1}); give one rating per item and rater, or "
                "keep the first or the last of them with --duplicates first|last."
            )
    values = _ratings_matrix(source, arrays, [rating], labels, origin, text_allowed=text_allowed)
    table = qwkit.ratings_from_long(items, raters, values[:, 0], duplicates=duplicates)
    return Ratings(
        table,
        tuple(str(r) for r in table.raters),
        labels,
        origin,
        len(items),
        duplicates=table.n_duplicates,
    )


# ---------------------------------------------------------------------------- scorer evaluation


@dataclass(frozen=True, slots=True)
class Scored:
    """Human ratings and machine scores of the same items, read by :func:`load_scored`:
    one array per column (NaN, or None for text, where a cell is empty), the groups (or
    None) and the scale (``labels``; None: qwkit's). Item i is data row i + 1."""

    human: dict[str, np.ndarray]
    machine: dict[str, np.ndarray]
    groups: np.ndarray | None
    labels: np.ndarray | None
    labels_origin: str
    n_rows: int
    ids: np.ndarray | None = None
    clusters: np.ndarray | None = None
    traits: np.ndarray | None = None


def empty_cells(ratings: np.ndarray) -> np.ndarray:
    """Where ratings read with their gaps (NaN, or None for text) have an empty cell."""
    if ratings.dtype.kind == "f":
        return np.isnan(ratings)
    return np.frompyfunc(lambda v: v is None, 1, 1)(ratings).astype(bool)


def _gaps_rows(column: np.ndarray) -> np.ndarray:
    """Positions of the cells present in a column with gaps."""
    return np.flatnonzero(~empty_cells(column))


def _integer_ratings(column: np.ndarray, name: str) -> None:
    """Human ratings on qwkit's own scale are integers: a fractional one is an error
    naming its data row (a scale of other values is passed with --labels)."""
    rows = _gaps_rows(column)
    values = column[rows]
    bad = np.flatnonzero(values != np.floor(values))
    if bad.size:
        i = int(rows[bad[0]])
        raise CliError(
            f"column '{name}' must hold integer ratings; data row {i + 1} has {column[i]} "
            "(a scale of other values needs --labels)."
        )


def _machine_column(array, name: str, labels, origin: str, decimal: str, *, text: bool):
    """A machine column with its gaps: ratings on the scale (text, or numbers in
    ``labels``) or real-valued scores (finite numbers; whether they may be real is
    qwkit's to say)."""
    if text:
        return _with_gaps(array, name, labels, decimal, text=True, origin=origin)
    column = _with_gaps(array, name, None, decimal, text=False)
    rows = _gaps_rows(column)
    values = column[rows]
    if labels is not None and np.all(values == np.floor(values)):  # ratings: on the scale
        _on_scale(values.astype(np.int64), name, labels, origin, rows)
    return column


def _group_values(array, name: str, what: str = "group") -> np.ndarray:
    """The group (id, cluster) of each item: numbers or text; an empty cell is an error
    with its row."""
    pa = _arrow()
    import pyarrow.compute as pc

    if array.null_count:
        i = int(pc.index(pc.is_null(array), pa.scalar(True)).as_py())
        raise CliError(f"column '{name}' has no {what} in data row {i + 1}; every item needs one.")
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        trimmed = pc.utf8_trim_whitespace(array)
        if pc.all(pc.match_substring_regex(trimmed, r"^[+-]?\d{1,18}$")).as_py():
            return pc.cast(trimmed, pa.int64()).to_numpy(zero_copy_only=False)
        return np.asarray(trimmed.to_numpy(zero_copy_only=False), dtype=str)
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind):
        return array.to_numpy(zero_copy_only=False)
    return text_values(array, name)


def load_scored(
    source: Source,
    *,
    human: Sequence[str],
    machine: Sequence[str],
    group: str | None,
    labels: np.ndarray | None,
    omit_unscored: bool,
    text_allowed: bool,
    missing: Sequence[str] = (),
    console=None,
    id_column: str | None = None,
    cluster: str | None = None,
    trait: str | None = None,
) -> Scored:
    """The columns of ``qwkit evaluate``: human rating columns (an empty cell is an item
    that rater did not rate), machine columns (an empty cell is an error unless
    ``omit_unscored``) and an optional group column. What only the file can tell is
    checked here with the column and the data row: a cell that is not a number, a rating
    that is not an integer (without ``labels``) or not on the scale, a score that is not
    finite, a missing score, group, id or cluster."""
    extra = [c for c in (group, id_column, cluster, trait) if c]
    names = [*human, *machine, *dict.fromkeys(extra)]
    read = read_columns(source, names, console=console)
    arrays = dict(read.arrays)
    for name in [*human, *machine]:  # missing-value codes: no rating, or no score
        arrays[name] = codes_to_null(arrays[name], missing)
    origin = "--labels"
    if labels is None:
        labels, declared = _declared_scale(source, read.orders, [*human, *machine])
        origin = declared or origin
    matrix = _ratings_matrix(source, arrays, human, labels, origin, text_allowed=text_allowed)
    text = matrix.dtype == object
    if not text and labels is None:
        for j, name in enumerate(human):
            _integer_ratings(matrix[:, j], name)
    decimal = source.decimal
    scores = {}
    for name in machine:
        column = _machine_column(arrays[name], name, labels, origin, decimal, text=text)
        missing = np.flatnonzero(empty_cells(column))
        if missing.size and not omit_unscored:
            raise CliError(
                f"column '{name}' has no score in data row {int(missing[0]) + 1}; every item "
                "needs one, or pass --nan-policy omit to evaluate each machine on the items it "
                "scored."
            )
        scores[name] = column
    groups = _group_values(arrays[group], group) if group else None
    ids = _group_values(arrays[id_column], id_column, "id") if id_column else None
    clusters = _group_values(arrays[cluster], cluster, "cluster") if cluster else None
    traits = _group_values(arrays[trait], trait, "trait") if trait else None
    return Scored(
        human={name: matrix[:, j] for j, name in enumerate(human)},
        machine=scores,
        groups=groups,
        labels=labels,
        labels_origin=origin,
        n_rows=matrix.shape[0],
        ids=ids,
        clusters=clusters,
        traits=traits,
    )
