"""The columns a command uses: read (``_io``), checked, and turned into numpy arrays.

Every value is checked here so that a bad one is reported with its column and its data
row (rows are numbered from 1, the first row below the header). Numbers written as text
are decimal numbers with ``.`` as the decimal mark, or ``,`` with ``--decimal ,``
(European CSV files, which then use another separator, e.g. ``;``); hex, digit
separators and the like are errors. Without ``--labels``, ordered categories of the
rating columns (a Parquet dictionary, see ``_io``) declare the rating scale.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from qwkit.cli._errors import CliError
from qwkit.cli._io import Source, _arrow, read_columns

__all__ = [
    "Loaded",
    "load",
    "missing_mask",
    "n_labels",
    "numeric_values",
    "parse_labels",
    "rating_values",
    "scale",
    "score_values",
    "weight_values",
]

#: A number in decimal notation (no hex, no digit separators), or inf / nan; the
#: decimal mark is filled in.
_NUMBER = r"^\s*[+-]?((\d+{0}?\d*|{0}\d+)([eE][+-]?\d+)?|[iI]nf(inity)?|[nN]a[nN])\s*$"


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


def _number_pattern(decimal: str) -> str:
    return _NUMBER.format(re.escape(decimal))


def _first_bad_number(column: str, array, rows: np.ndarray | None, decimal: str = ".") -> CliError:
    import pyarrow.compute as pc

    ok = pc.match_substring_regex(array, _number_pattern(decimal))
    bad = np.flatnonzero(~ok.to_numpy(zero_copy_only=False))
    mark = f" (read with '{decimal}' as the decimal mark)" if decimal != "." else ""
    if bad.size:
        i = int(bad[0])
        return CliError(
            f"column '{column}' must hold numbers{mark}; data row {_row(i, rows)} has "
            f"{_row_text(array[i].as_py())}."
        )
    return CliError(f"column '{column}' has values that are not numbers pyarrow can read.")


def numeric_values(
    array, column: str, *, rows: np.ndarray | None = None, decimal: str = "."
) -> np.ndarray:
    """A column without missing values as numbers: int64 when every value is an integer
    written without a decimal mark, float64 otherwise. Text must be a decimal number
    with ``decimal`` as its decimal mark (``0x3`` or ``1_000`` is an error naming the
    row)."""
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
        for target in (pa.int64(), pa.float64()) if integers else (pa.float64(),):
            try:
                return pc.cast(trimmed, target).to_numpy(zero_copy_only=False)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
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
    """A column of real-valued scores: finite float64."""
    values = numeric_values(array, column, rows=rows, decimal=decimal).astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        raise CliError(
            f"column '{column}' must hold finite scores; data row {_row(i, rows)} has {values[i]}."
        )
    return values


def weight_values(
    array, column: str, *, rows: np.ndarray | None = None, decimal: str = "."
) -> np.ndarray:
    """A column of item weights: finite and non-negative."""
    values = numeric_values(array, column, rows=rows, decimal=decimal)
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
    decimal: str = ".",
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
            values = numeric_values(array, column, rows=rows, decimal=decimal)
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


# ---------------------------------------------------------------------------- loading


@dataclass(frozen=True, slots=True)
class Loaded:
    """Columns read and checked by :func:`load`."""

    columns: dict[str, np.ndarray]
    sample_weight: np.ndarray | None
    dropped: int  # rows skipped by --drop-missing
    rows: np.ndarray | None  # 0-based file row of each kept position (None: all kept)
    #: The rating scale: the one given, or the order that ordered categories declare.
    labels: np.ndarray | None = None


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
    drop_missing: bool = False,
    labels_origin: str = "--labels",
    console=None,
) -> Loaded:
    """Read and check the columns a command uses. Without ``labels``, ordered
    categories of the rating columns (a Parquet dictionary) declare the scale."""
    names = [*ratings, *scores] + ([weight] if weight else [])
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
    out = {
        c: rating_values(arrays[c], c, labels, rows=rows, origin=labels_origin, decimal=decimal)
        for c in ratings
    }
    for c in scores:
        out[c] = score_values(arrays[c], c, rows=rows, decimal=decimal)
    sw = weight_values(arrays[weight], weight, rows=rows, decimal=decimal) if weight else None
    return Loaded(out, sw, dropped, rows, labels)


def n_labels(labels: np.ndarray | None, *columns: np.ndarray) -> int:
    """Size of the rating scale: ``labels``, or every integer from the smallest to the
    largest rating (the rule of ``qwkit.kappa_score``)."""
    if labels is not None:
        return len(labels)
    return max(int(np.max(c)) for c in columns) - min(int(np.min(c)) for c in columns) + 1


def scale(labels: np.ndarray | None, *columns: np.ndarray) -> np.ndarray:
    """The rating scale used (build it only when :func:`n_labels` is moderate)."""
    if labels is not None:
        return labels
    low = min(int(np.min(c)) for c in columns)
    high = max(int(np.max(c)) for c in columns)
    return np.arange(low, high + 1)
