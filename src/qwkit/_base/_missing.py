"""Missing values: scipy's ``nan_policy``, applied by one function, :func:`nan_rows`.

Every public statistic that takes per-item ratings takes
``nan_policy="propagate" | "raise" | "omit"`` (scipy's words) and hands its per-item
inputs to :func:`nan_rows` right after pairing them (``_items.paired``). What is missing:
a float NaN, None, or anything pandas calls missing (``pd.NA``, ``NaT``) in a rating —
never ``inf``, which stays bad input. The policies:

* ``"raise"``: a missing rating is an error (a :class:`QwkitError` that names the input,
  the item's position and ``nan_policy``);
* ``"omit"``: the items with a missing rating are left out of every per-item input of
  the call (their ``sample_weight``, ``counts``, ``item`` ids ... too), and the statistic
  is that of the other items;
* ``"propagate"``: a missing rating makes the statistic NaN (the function says what it
  returns; a function whose result cannot be NaN — a fit, a table — does not accept it).

Two kinds of input read a missing entry differently (``docs/getting-started.md``,
"Missing values"):

* **per-item ratings** of two raters, or of a reference and a prediction
  (``kind="items"``): a missing entry is a missing value; the default of these functions
  is ``"raise"``, so that nothing is left out silently;
* **multi-rater tables** (items × raters, a :class:`RatingsTable`; ``kind="table"``): a
  missing entry means "not rated" by design. ``"omit"`` (their default) is that reading —
  the item counts with the ratings it has, nothing is dropped here (each statistic says
  what it does with items of too few ratings); ``"raise"`` asks for a complete table
  (every item rated by every rater) and ``"propagate"`` makes the statistic NaN when the
  table is not complete.

The scores of one or more models beside a table of human ratings (the scorer evaluation,
``kind="models"``) are per-item ratings (default ``"raise"``) whose ``"omit"`` leaves
out, for each model, the items it did not score.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._ratings import RatingsTable
from qwkit._base._validation import check_choice, scalar

__all__ = [
    "NAN_POLICIES",
    "RAISE_OR_OMIT",
    "NanPolicy",
    "Rows",
    "check_nan_policy",
    "missing_mask",
    "nan_rows",
]

NanPolicy = Literal["propagate", "raise", "omit"]
NAN_POLICIES: tuple[str, ...] = ("propagate", "raise", "omit")
#: what a function that cannot return NaN (a fit, a table, a result with an interval) takes
RAISE_OR_OMIT: tuple[str, ...] = ("raise", "omit")


def check_nan_policy(nan_policy, allowed: tuple[str, ...] = NAN_POLICIES) -> str:
    """``nan_policy`` if it is one of ``allowed``; else a QwkitError that names it (and
    says why ``"propagate"`` is not taken where it is not)."""
    if nan_policy == "propagate" and "propagate" not in allowed:
        raise QwkitError(
            "`nan_policy` must be 'raise' or 'omit' here: this function returns no single "
            "number that could be NaN; got 'propagate'.",
            parameter="nan_policy",
        )
    return check_choice(nan_policy, "nan_policy", allowed)


def _pandas():
    return sys.modules.get("pandas")


def _polars():
    return sys.modules.get("polars")


def _object_missing(arr: np.ndarray) -> np.ndarray:
    pd = _pandas()
    if pd is not None:
        return np.asarray(pd.isna(arr), dtype=bool)
    flat = [v is None or (isinstance(v, (float, np.floating)) and v != v) for v in arr.ravel()]
    return np.array(flat, dtype=bool).reshape(arr.shape)


def _entries(value) -> np.ndarray | None:
    """Where ``value`` (one rating per item, or items × columns) has a missing entry:
    a bool array of its shape, or None when it cannot have one."""
    pd = _pandas()
    if pd is not None and isinstance(value, pd.Series) and not value.hasnans:
        return None
    if pd is not None and isinstance(value, (pd.Series, pd.DataFrame)):
        return np.asarray(value.isna(), dtype=bool)
    pl = _polars()
    if pl is not None and isinstance(value, pl.Series):
        if value.null_count() == 0 and not (value.dtype.is_float() and value.is_nan().any()):
            return None
        return _entries(value.to_numpy())
    if pl is not None and isinstance(value, pl.DataFrame):
        cols = [_entries(value[c]) for c in value.columns]
        n = value.height
        return np.column_stack([np.zeros(n, bool) if c is None else c for c in cols])
    if isinstance(value, Mapping):
        found = [_entries(v) for v in value.values()]
        stacked = [c.reshape(c.shape[0], -1) for c in found if c is not None]
        return np.column_stack(stacked) if stacked else None
    arr = _array(value)
    if arr.dtype.kind in "fc":
        # one pass without a copy when nothing is missing (the common case): min is NaN
        # as soon as one value is
        if arr.size == 0 or not np.isnan(arr.min() if arr.dtype.kind == "f" else arr.sum()):
            return None
        return np.isnan(arr)
    if arr.dtype == object:
        return _object_missing(arr)
    return None


def missing_mask(value) -> np.ndarray | None:
    """The items (rows) of ``value`` with a missing entry: a bool vector, or None when
    ``value`` has none. A :class:`RatingsTable` misses the ratings a rater did not give."""
    if value is None:
        return None
    if isinstance(value, RatingsTable):
        per_item = np.diff(value._sparse.item_ptr)
        mask = per_item < value.n_raters
        return mask if mask.any() else None
    entries = _entries(value)
    if entries is None or not entries.any():
        return None
    if entries.ndim > 1:
        return np.asarray(entries.reshape(entries.shape[0], -1).any(axis=1))
    return entries


def _take(value, keep: np.ndarray):
    """The rows ``keep`` (positions) of one per-item input, in its own container."""
    if value is None:
        return None
    pd = _pandas()
    if pd is not None and isinstance(value, (pd.Series, pd.DataFrame)):
        return value.iloc[keep]
    pl = _polars()
    if pl is not None and isinstance(value, (pl.Series, pl.DataFrame)):
        return value[keep]
    if isinstance(value, Mapping):
        return {k: _take(v, keep) for k, v in value.items()}
    if isinstance(value, str):  # a column name (item=, cluster=): not per item
        return value
    return _array(value)[keep]


def _array(value) -> np.ndarray:
    """``value`` as an array without copying an array (ragged lists: an object array)."""
    if isinstance(value, np.ndarray):
        return value
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        return np.asarray(value, dtype=object)
    if arr.dtype.kind == "U" and not isinstance(value, str):
        # text with a None or a float NaN among it: numpy writes them as 'None', 'nan'
        return np.asarray(value, dtype=object)
    return arr


def _length(value) -> int | None:
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, Mapping):
        found = {_length(v) for v in value.values()} - {None}
        return found.pop() if len(found) == 1 else -1
    try:
        return len(value)
    except TypeError:
        return None


@dataclass(frozen=True, slots=True)
class Rows:
    """What :func:`nan_rows` made of a call's per-item inputs.

    ``values``: the inputs, in the order given (under ``"omit"`` without the items that
    miss a rating; otherwise as given); ``propagate``: ``"propagate"`` met a missing
    rating, so the statistic is NaN; ``n_omitted``: the items left out; ``policy``: the
    checked ``nan_policy``."""

    values: tuple
    propagate: bool
    n_omitted: int
    policy: str


def _where(value, entries_row: int, name: str) -> str:
    if isinstance(value, RatingsTable):
        item = scalar(value.items[entries_row])
        return f"`{name}` has no rating from every rater for item {item!r} (index {entries_row})"
    entries = _entries(value)
    col, j = "", None
    if entries is not None and entries.ndim > 1:
        j = int(np.flatnonzero(entries.reshape(entries.shape[0], -1)[entries_row])[0])
        cols = list(value.keys()) if isinstance(value, Mapping) else getattr(value, "columns", None)
        col = f", column {cols[j]!r}" if cols is not None else f", column {j}"
    shown = _shown(value, entries_row, j)
    at = f"row {entries_row}{col}" if col else f"index {entries_row}"
    return f"`{name}` has a missing value{shown} at {at}"


def _shown(value, row: int, col: int | None) -> str:
    """`` (None)``, `` (nan)``, `` (<NA>)``: the missing entry as given, for messages."""
    try:
        if isinstance(value, Mapping):
            value, col = list(value.values())[col if col is not None else 0], None
        if hasattr(value, "iloc"):
            entry = value.iloc[row] if col is None else value.iloc[row, col]
        elif hasattr(value, "to_numpy"):
            entry = value.to_numpy()[row] if col is None else value.to_numpy()[row, col]
        else:
            arr = np.asarray(value, dtype=object)
            entry = arr[row] if col is None else arr.reshape(arr.shape[0], -1)[row, col]
    except (IndexError, TypeError, ValueError, KeyError):
        return ""
    return f" ({entry.item() if isinstance(entry, np.generic) else entry})"


def nan_rows(
    nan_policy,
    inputs: Sequence,
    names: Sequence[str],
    *,
    rated: int | None = None,
    kind: Literal["items", "table", "models"] = "items",
    allowed: tuple[str, ...] = NAN_POLICIES,
) -> Rows:
    """Apply ``nan_policy`` to the per-item inputs of one call — the one place it is done.

    ``inputs``/``names``: every per-item input of the call, already paired
    (``_items.paired``), None where not given; the first ``rated`` of them (all, when
    None) are ratings, whose missing entries the policy reads; the others (item weights,
    item ids) follow them. ``kind="items"``: a missing entry is a missing value (omit
    leaves its item out of every input); ``kind="table"``: a multi-rater table, where a
    missing entry means "not rated" (omit keeps every item; see the module's text);
    ``kind="models"``: one or more models' scores of the items (columns), where omit is
    the caller's (each model on the items it scored: nothing is left out here).
    ``allowed``: the policies the function takes (``RAISE_OR_OMIT`` where no NaN result
    can be returned). Raises a QwkitError naming the input, the item's position and
    ``nan_policy`` under ``"raise"``.
    """
    policy = check_nan_policy(nan_policy, allowed)
    inputs = tuple(inputs)
    if policy == "omit" and kind != "items":  # nothing to leave out here (see above)
        return Rows(inputs, False, 0, policy)
    n_rated = len(inputs) if rated is None else rated
    masks = [missing_mask(v) for v in inputs[:n_rated]]
    found = [(i, m) for i, m in enumerate(masks) if m is not None]
    if not found:
        return Rows(inputs, False, 0, policy)
    if policy == "raise":
        i, m = min(found, key=lambda im: int(np.argmax(im[1])))
        row = int(np.argmax(m))
        advice = {
            "models": " (nan_policy='raise'); pass nan_policy='omit' to leave out, for each "
            "model, the items it did not score",
            "table": ": nan_policy='raise' asks for a complete table; the default, 'omit', "
            "reads a missing entry as 'not rated'",
            "items": " (nan_policy='raise'); pass nan_policy='omit' to leave out the items "
            "with a missing value",
        }[kind]
        raise QwkitError(
            f"{_where(inputs[i], row, names[i])}{advice}.",
            parameter=names[i],
            row=row,
            also=("nan_policy",),
        )
    if policy == "propagate":
        return Rows(inputs, True, 0, policy)
    lengths = {_length(v) for v in inputs} - {None}
    if len(lengths) > 1:  # the validation after this says which lengths differ
        return Rows(inputs, False, 0, policy)
    missing = np.logical_or.reduce([m for _, m in found])
    keep = np.flatnonzero(~missing)
    return Rows(tuple(_take(v, keep) for v in inputs), False, int(missing.sum()), policy)
