"""Rows an engine returned, read back into qwkit's results.

The engine's rows are a sufficient state (``_sql_text``): the distinct pairs of ratings
with their counts, five exact integer sums, or the distinct profiles of many raters
with how many items share each. Each is finalized by the code the in-memory functions
run — the public functions with ``counts=`` (a distinct pair stands for that many
identical items: the same numbers, to the last bit, as the rows), eq. Q on the five
sums (``_table._moments.kappa_from_sums``), ``ratings_from_long`` on the profiles
repeated — never by a formula of its own.

What the in-memory functions would say of an item (a missing rating, a rating off the
scale, a fraction on an integer scale, a negative count) is said here of the column, by
its parameter, and of the group; engines do not keep the order of rows, so no message
names a row.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

import qwkit
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._scale import Labels, match_labels
from qwkit._base._scale_check import may_fire, sketch_values, warn_codes
from qwkit._base._validation import scalar, show
from qwkit._integrations import _sql_text as _t
from qwkit._table._moments import kappa_from_sums

__all__ = [
    "Group",
    "Pairs",
    "Spec",
    "Sums",
    "Unsafe",
    "by_group",
    "finish",
    "in_group",
    "missing_error",
    "needs_sketch",
    "pair_groups",
    "pairs",
    "profiles_table",
    "sketches",
    "sums_kappa",
    "sums_of",
    "where",
]

_INT64_LIMIT = 2**63
#: A group's key: None (no ``by``), the value of one ``by`` column, or a tuple of them.
Group = object


class Unsafe(QwkitError):
    """Spark's BIGINT sums may have wrapped (the extremes do not bound them): the caller
    recomputes them in the limbs form."""


@dataclass(frozen=True, slots=True)
class Spec:
    """What a call reads: the parameters its columns were given as (for messages), the
    scale, the missing-value policy and the ``by`` columns."""

    names: tuple[str, str] = ("y1", "y2")
    labels: Labels | None = None
    omit: bool = False
    by: tuple[str, ...] = ()
    counts: bool = False
    #: The second column is a real-valued score (no scale), not a rating.
    scored: bool = False


# ---------------------------------------------------------------------------- groups


def by_group(rows: Iterable[Sequence], n_by: int) -> dict[Group, list[tuple]]:
    """The rows of each group (the first ``n_by`` fields are the group's key), keys in
    ascending order where they compare (NULL first)."""
    out: dict[Group, list[tuple]] = {}
    for row in rows:
        row = tuple(row)
        key = None if n_by == 0 else (row[0] if n_by == 1 else row[:n_by])
        out.setdefault(key, []).append(row[n_by:])
    try:
        order = sorted(out, key=_sort_key)
    except TypeError:  # keys of different types: the engine's order
        return out
    return {k: out[k] for k in order}


def _sort_key(key):
    parts = key if isinstance(key, tuple) else (key,)
    return tuple((p is not None, p) for p in parts)


def where(spec: Spec, key: Group) -> str:
    """The group in words, for messages ('' without ``by``)."""
    if not spec.by:
        return ""
    values = key if len(spec.by) > 1 else (key,)
    shown = ", ".join(f"{c}={v!r}" for c, v in zip(spec.by, values, strict=True))
    return f" (in the group {shown})"


def in_group(exc: QwkitError, spec: Spec, key: Group) -> QwkitError:
    """``exc`` said of the group (the same class, parameter and parameters)."""
    if not spec.by:
        return exc
    also = exc.parameters[1:] if exc.parameter is not None else exc.parameters
    return type(exc)(
        str(exc).rstrip(".") + where(spec, key) + ".", parameter=exc.parameter, also=also
    )


def finish(groups: Mapping[Group, object], spec: Spec, compute: Callable):
    """``compute(state)`` of each group (a dict by group with ``by``, else the one
    result); an error names its group."""
    out = {}
    for key, state in groups.items():
        try:
            out[key] = compute(state)
        except QwkitError as exc:
            raise in_group(exc, spec, key) from None
    if spec.by:
        return out
    return next(iter(out.values()))


# ---------------------------------------------------------------------------- values


def _value(v):
    """An engine's value as a Python scalar (exact Decimals: ints when whole)."""
    if isinstance(v, decimal.Decimal):
        if v.is_finite() and v == v.to_integral_value():
            return int(v)
        return float(v)
    if isinstance(v, np.generic):
        return v.item()
    return v


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _array(values: list, name: str) -> np.ndarray:
    """Ratings of one column as the array the in-memory functions are given: int64 (or
    uint64 beyond), float64, bool or text."""
    kinds = {type(v) for v in values}
    if kinds <= {bool}:
        return np.array(values, dtype=bool)
    if kinds <= {int, bool}:
        ints = [int(v) for v in values]
        if not ints or (min(ints) >= -_INT64_LIMIT and max(ints) < _INT64_LIMIT):
            return np.array(ints, dtype=np.int64)
        if min(ints) >= 0 and max(ints) < 2 * _INT64_LIMIT:
            return np.array(ints, dtype=np.uint64)
        raise QwkitError(
            f"`{name}` holds integers beyond 64 bits (such as {max(ints, key=abs)}).",
            parameter=name,
        )
    if kinds <= {int, float, bool}:
        return np.array(values, dtype=np.float64)
    if kinds <= {str}:
        return np.array(values, dtype=str)
    raise QwkitTypeError(
        f"`{name}` must hold numbers or text; got values of type "
        f"{', '.join(sorted(k.__name__ for k in kinds))}.",
        parameter=name,
    )


def _scores(values: list, name: str) -> np.ndarray:
    """Real-valued scores as float64 (what the in-memory functions read them as)."""
    if not all(isinstance(v, int | float) for v in values):
        kinds = sorted({type(v).__name__ for v in values})
        raise QwkitTypeError(
            f"`{name}` must hold numbers; got values of type {', '.join(kinds)}.",
            parameter=name,
        )
    return np.array(values, dtype=np.float64)


def _check_scale(arr: np.ndarray, name: str, labels: Labels | None) -> None:
    """The checks the in-memory functions make of each item, said of the column: a
    rating off ``labels``, a fraction on an integer scale."""
    if labels is not None:
        if labels.is_text != (arr.dtype.kind == "U") or arr.dtype.kind == "b":
            return  # a type mismatch: the public function says so, naming no item
        _, bad = match_labels(arr, labels)
        if bad is not None:
            raise QwkitError(
                f"`{name}` contains {scalar(arr[bad])!r}, which is not in `labels` "
                f"{show(labels.values)}.",
                parameter=name,
                also=("labels",),
            )
    elif arr.dtype.kind == "f":
        frac = arr != np.floor(arr)
        if frac.any():
            raise QwkitError(
                f"`{name}` must hold integer ratings; it holds {scalar(arr[frac][0])}. For "
                "real-valued scores use `soft_kappa_score`, or round them first with "
                "`optimize_thresholds` / `apply_thresholds`; for a non-integer scale pass "
                "`labels`.",
                parameter=name,
            )


def missing_error(name: str, n_missing: int) -> QwkitError:
    """A NULL (or NaN) where ``nan_policy="raise"`` allows none (``parameters`` names
    ``nan_policy``: the option that leaves such rows out)."""
    return QwkitError(
        f"`{name}` has {n_missing} missing value{'s' if n_missing != 1 else ''} (NULL or "
        "NaN); every item needs both ratings: drop those rows, or pass nan_policy='omit' to "
        "leave them out.",
        parameter=name,
        also=("nan_policy",),
    )


# ---------------------------------------------------------------------------- pairs


@dataclass(frozen=True, slots=True)
class Pairs:
    """One group's distinct pairs: the ratings of each side and how many items (rows,
    or the sum of ``counts``) hold each pair."""

    a: np.ndarray
    b: np.ndarray
    counts: np.ndarray


def pairs(rows: list[tuple], spec: Spec) -> Pairs:
    """The validated distinct pairs of one group (``rows``: the table's fields after the
    group's key: a, b, n and, with ``counts``, c, c_rows, c_min)."""
    first, second = spec.names
    a = [_value(r[0]) for r in rows]
    b = [_value(r[1]) for r in rows]
    n = [int(r[2]) for r in rows]
    if spec.counts:
        c_rows = [int(r[4]) for r in rows]
        c_min = [_value(r[5]) for r in rows]
        if not spec.omit and any(x < y for x, y in zip(c_rows, n, strict=True)):
            lost = sum(y - x for x, y in zip(c_rows, n, strict=True))
            raise missing_error("counts", lost)
        negative = [m for m in c_min if m is not None and m < 0]
        if negative:
            raise QwkitError(
                f"`counts` must hold non-negative whole numbers; got {min(negative)}.",
                parameter="counts",
            )
        weight = [0 if r[3] is None else _value(r[3]) for r in rows]
        keep = [not (spec.omit and k == 0) for k in c_rows]
    else:
        weight, keep = n, [True] * len(rows)
    lost_a = sum(k for v, k in zip(a, n, strict=True) if _missing(v))
    lost_b = sum(k for v, k in zip(b, n, strict=True) if _missing(v))
    if lost_a or lost_b:
        if not spec.omit:
            raise missing_error(first if lost_a else second, lost_a or lost_b)
        keep = [k and not (_missing(x) or _missing(y)) for k, x, y in zip(keep, a, b, strict=True)]
    idx = [i for i, k in enumerate(keep) if k]
    arr_a = _array([a[i] for i in idx], first)
    _check_scale(arr_a, first, spec.labels)
    if spec.scored:
        arr_b = _scores([b[i] for i in idx], second)
    else:
        arr_b = _array([b[i] for i in idx], second)
        _check_scale(arr_b, second, spec.labels)
    counts = np.array([weight[i] for i in idx], dtype=np.int64)
    return Pairs(arr_a, arr_b, counts)


def pair_groups(rows: Iterable[Sequence], spec: Spec) -> dict[Group, Pairs]:
    out = {}
    for key, part in by_group(rows, len(spec.by)).items():
        try:
            out[key] = pairs(part, spec)
        except QwkitError as exc:
            raise in_group(exc, spec, key) from None
    return out


# ---------------------------------------------------------------------------- five sums


@dataclass(frozen=True, slots=True)
class Sums:
    """One group's five sums and extremes (positions on ``labels``, or the ratings)."""

    n: int
    sums: tuple[int, int, int, int]
    bounds: tuple[int, int]


def sums_of(row: Sequence, spec: Spec, *, limbs: bool) -> Sums:
    """The validated sums of one group (``row``: the fields after the group's key)."""
    head = dict(zip(_t.SUMS_HEAD, (int(_value(x) or 0) for x in row[:5]), strict=True))
    body = _t.SUMS_LIMBS if limbs else _t.SUMS_PLAIN
    values = [_value(x) for x in row[5 : 5 + len(body)]]
    lo1, hi1, lo2, hi2 = (_value(x) for x in row[5 + len(body) :])
    n = head["n"]
    first, second = spec.names
    if n == 0:
        qwkit.kappa_score(np.empty(0), np.empty(0))  # raises: no items
    for name, known, off in ((first, head["n1"], head["off1"]), (second, head["n2"], head["off2"])):
        if not spec.omit and known < n:
            raise missing_error(name, n - known)
        if off:
            raise QwkitError(
                f"`{name}` holds {off} rating{'s that are' if off > 1 else ' that is'} not in "
                f"`labels` {show(spec.labels.values)}.",
                parameter=name,
                also=("labels",),
            )
    if limbs:
        sums = _t.combine_limbs(dict(zip(body, values, strict=True)))
    else:
        *sums, ok2, okab = values
        if any(v is None for v in sums) or ok2 < n or okab < n:  # a tried sum overflowed
            raise Unsafe(
                "The sums overflow the engine's 64-bit integers; compute them with "
                "`limbs=True` (exact for any 64-bit ratings).",
                parameter=first,
            )
        sums = tuple(int(v) for v in sums)
    labels = spec.labels
    if labels is not None and labels.offset is not None:  # ratings on an integer range
        for name, lo, hi in ((first, lo1, hi1), (second, lo2, hi2)):
            for v in (lo, hi):
                if not labels.offset <= v < labels.offset + labels.n_classes:
                    raise QwkitError(
                        f"`{name}` contains {v}, which is not in `labels` {show(labels.values)}.",
                        parameter=name,
                        also=("labels",),
                    )
    return Sums(n, sums, (min(lo1, lo2), max(hi1, hi2)))


def needs_sketch(s: Sums, spec: Spec) -> bool:
    """Whether the missing-value-code rule can fire on this group (an inferred scale,
    a negative rating or a span of 23 integers)."""
    return spec.labels is None and may_fire(*s.bounds)


def sketches(rows: Iterable[Sequence], n_by: int) -> dict[Group, list[int]]:
    """The sketch query's values per group."""
    return {
        key: sorted(int(_value(r[0])) for r in part) for key, part in by_group(rows, n_by).items()
    }


def sums_kappa(s: Sums, replace: float, sketch: list[int] | None) -> float:
    """Kappa from one group's sums: the codes warning first, as in memory, then eq. Q."""
    if sketch is not None:
        warn_codes(sketch_values(sketch))
    return kappa_from_sums(s.n, *s.sums, replace)  # (eq. Q)


# ---------------------------------------------------------------------------- profiles


def profiles_table(rows: list[tuple], names: tuple[str, str, str]):
    """The ratings of many raters that the distinct profiles of one group stand for, as
    a :class:`qwkit.RatingsTable` (each profile repeated for the items that hold it;
    the order of the items moves a coefficient, a floating-point sum over items, at most
    in its last bits). The values' type is decided
    once, from the distinct profiles; the repetition is numpy's."""
    items_name, raters_name, values_name = names
    flat_raters: list = []
    flat_values: list = []
    spans = []
    for raters_of, values_of, null_item, null_rater, dup, n in rows:
        if null_item:
            raise QwkitError(
                f"`{items_name}` contains a missing value (NULL).", parameter=items_name
            )
        if null_rater:
            raise QwkitError(
                f"`{raters_name}` contains a missing value (NULL).", parameter=raters_name
            )
        if dup:
            raise QwkitError(
                f"A rater rated an item twice (two rows with the same `{items_name}` and "
                f"`{raters_name}`, both with a rating); give one rating per item and rater.",
                parameter=items_name,
                also=(raters_name, values_name),
            )
        spans.append((len(flat_values), len(values_of), int(n)))
        flat_raters.extend(_value(r) for r in raters_of)
        flat_values.extend(_value(v) for v in values_of)
    values = _ratings_values(flat_values, values_name)
    raters = np.array(flat_raters)
    items, rater_parts, value_parts = [], [], []
    first = 0
    for start, m, n in spans:
        items.append(np.repeat(np.arange(first, first + n), m))
        rater_parts.append(np.tile(raters[start : start + m], n))
        value_parts.append(np.tile(values[start : start + m], n))
        first += n
    if not spans:
        return qwkit.ratings_from_long(np.empty(0), np.empty(0), np.empty(0))
    return qwkit.ratings_from_long(
        np.concatenate(items), np.concatenate(rater_parts), np.concatenate(value_parts)
    )


def _ratings_values(values: list, name: str) -> np.ndarray:
    """The values of many raters' ratings, missing ones as NaN (numbers) or None."""
    present = [v for v in values if not _missing(v)]
    if not present:
        return np.full(len(values), np.nan)
    if any(_missing(v) for v in values):
        kinds = {type(v) for v in present}
        if kinds <= {int, float, bool} and not (
            kinds >= {int} and max(abs(int(v)) for v in present) >= 2**53
        ):
            return np.array([np.nan if _missing(v) else v for v in values], dtype=np.float64)
        return np.array([None if _missing(v) else v for v in values], dtype=object)
    return _array(values, name)
