"""Items are items: inputs of one call that carry item labels are paired by those labels.

A pandas Series or DataFrame carries its index, a :class:`~qwkit.RatingsTable` its
``items``, a mapping of columns the index of its pandas columns. Two inputs of one call
that both carry labels — ``human`` and ``machine``, ``y1`` and ``y2``, ratings and their
``sample_weight`` — are paired by them, never by position:

* the same labels in the same order: nothing to do (the common case, one comparison);
* the same labels in another order: every input is reordered to the reference's order
  (a ``RatingsTable``, which cannot be reordered, else ``reference=``, else the first
  input that carries labels);
* anything else — different label sets, a label repeated where the order differs — is
  refused with an error that names both parameters and shows labels found in one only.

Inputs without labels (NumPy arrays, lists, Polars objects: Polars has no index) pair by
position, with each other and with the labelled ones (a NumPy vector of predictions beside
a pandas Series of truths is the usual scikit-learn call). :func:`paired` is the one place
this happens; every public function that takes more than one array-like of the same items
calls it before anything else (``docs/getting-started.md``, "Items are items").
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

import numpy as np

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._ratings import RatingsTable
from qwkit._base._validation import show

__all__ = [
    "carries_labels",
    "has_column",
    "item_labels",
    "order_by_ids",
    "paired",
    "take_column",
    "unique_ids",
]


def _pandas():
    return sys.modules.get("pandas")


def _is_pandas(value) -> bool:
    pd = _pandas()
    return pd is not None and isinstance(value, (pd.Series, pd.DataFrame))


def item_labels(value):
    """The item labels ``value`` carries (a pandas Index, or a RatingsTable's items as an
    array), or None. A mapping of columns carries the labels of its pandas columns when
    they all have the same ones (in the same order); columns with different indexes are
    refused by :func:`paired`."""
    if _is_pandas(value):
        return value.index
    if isinstance(value, RatingsTable):
        return value.items
    if isinstance(value, Mapping):
        found = [v.index for v in value.values() if _is_pandas(v)]
        return found[0] if found else None
    return None


def carries_labels(value) -> bool:
    """Whether ``value`` carries item labels (see :func:`item_labels`)."""
    return item_labels(value) is not None


def _as_index(labels):
    pd = _pandas()
    if pd is None:  # only RatingsTables carry labels without pandas loaded
        return np.asarray(labels)
    return labels if isinstance(labels, pd.Index) else pd.Index(labels)


def _same(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and bool(np.all(a == b))
    return bool(_as_index(a).equals(_as_index(b)))


def _duplicate_error(name: str, labels) -> QwkitError:
    index = _as_index(labels)
    dup = index[index.duplicated()][0]
    rows = np.flatnonzero(np.asarray(index == dup)).tolist()
    return QwkitError(
        f"`{name}` labels two items {dup!r} (rows {rows[0]} and {rows[1]}); items are paired "
        "by their labels (a pandas index, a RatingsTable's items), so each label must name "
        "one item. Give each item its own label, or pass NumPy arrays to pair by position.",
        parameter=name,
        row=rows[1],
    )


def _mismatch_error(name: str, labels, ref_name: str, ref) -> QwkitError:
    mine, theirs = _as_index(labels), _as_index(ref)
    only_mine = mine.difference(theirs, sort=False)
    only_theirs = theirs.difference(mine, sort=False)
    parts = []
    if len(only_theirs):
        parts.append(
            f"{len(only_theirs)} item(s) of `{ref_name}` are not in `{name}` "
            f"(e.g. {show(np.asarray(only_theirs[:3]), 3)})"
        )
    if len(only_mine):
        parts.append(
            f"{len(only_mine)} item(s) of `{name}` are not in `{ref_name}` "
            f"(e.g. {show(np.asarray(only_mine[:3]), 3)})"
        )
    if not parts:  # the same set, sizes differ: a repeated label
        parts.append(f"`{name}` has {len(mine)} rows and `{ref_name}` {len(theirs)}")
    return QwkitError(
        f"`{name}` and `{ref_name}` label different items: {'; '.join(parts)}. Items are "
        "paired by their labels (a pandas index, a RatingsTable's items); align them first, "
        "or pass NumPy arrays to pair by position.",
        parameter=name,
        also=(ref_name,),
    )


def _reordered(value, labels, ref, name: str, ref_name: str):
    """``value`` (whose labels are ``labels``) in the order of the labels ``ref``."""
    index, target = _as_index(labels), _as_index(ref)
    if not target.is_unique:
        raise _duplicate_error(ref_name, target)
    if not index.is_unique:
        raise _duplicate_error(name, index)
    if len(index) != len(target):
        raise _mismatch_error(name, index, ref_name, target)
    order = index.get_indexer(target)
    if (order < 0).any():
        raise _mismatch_error(name, index, ref_name, target)
    if isinstance(value, RatingsTable):  # a table is never reordered: it is the reference
        raise _mismatch_error(name, index, ref_name, target)
    if isinstance(value, Mapping):
        return {k: v.iloc[order] if _is_pandas(v) else v for k, v in value.items()}
    return value.iloc[order]


def paired(values: Sequence, names: Sequence[str], *, reference: int | None = None) -> list:
    """``values`` (array-likes of the same items; None for an omitted option) paired by
    the item labels they carry, in the order of the reference input's labels.

    ``reference`` is the position of the input whose order the others take (a function
    whose output has one value per item passes the input that output follows); by
    default a RatingsTable, else the first input that carries labels. Inputs without
    labels are returned as given.
    """
    values = list(values)
    labelled = [(k, item_labels(v)) for k, v in enumerate(values) if v is not None]
    labelled = [(k, lab) for k, lab in labelled if lab is not None]
    for k, _ in labelled:  # a mapping's pandas columns: one set of labels
        if isinstance(values[k], Mapping):
            cols = [(c, v) for c, v in values[k].items() if _is_pandas(v)]
            for c, v in cols[1:]:
                if not _same(v.index, cols[0][1].index):
                    raise QwkitError(
                        f"`{names[k]}` columns {cols[0][0]!r} and {c!r} have different "
                        "indexes; the columns of one input must label the same items in the "
                        "same order (as the columns of one data frame do).",
                        parameter=names[k],
                    )
    if len(labelled) < 2:
        return values
    tables = [k for k, _ in labelled if isinstance(values[k], RatingsTable)]
    if tables:  # a table cannot be reordered: it leads
        reference = tables[0]
    elif reference is None or all(k != reference for k, _ in labelled):
        reference = labelled[0][0]
    ref = dict(labelled)[reference]
    for k, lab in labelled:
        if k == reference or _same(lab, ref):
            continue
        values[k] = _reordered(values[k], lab, ref, names[k], names[reference])
    return values


# ---------------------------------------------------------------------------- id columns


def _is_frame(value) -> bool:
    return hasattr(value, "columns") and hasattr(value, "to_numpy")


def has_column(value, column: str) -> bool:
    """Whether ``value`` (a data frame or a mapping of columns) has ``column``."""
    if isinstance(value, Mapping):
        return column in value
    return _is_frame(value) and column in list(value.columns)


def take_column(value, column: str, *, owner: str, parameter: str):
    """``(the column's values, value without it)`` of a data frame or mapping ``value``
    (the argument ``owner``), for an option ``parameter`` that names a column; an error
    when ``value`` has no columns or not that one."""
    if not (isinstance(value, Mapping) or _is_frame(value)):
        raise QwkitTypeError(
            f"`{parameter}`={column!r} names a column, but `{owner}` is not a data frame "
            "or a mapping of columns; pass the values themselves (one per row).",
            parameter=parameter,
            also=(owner,),
        )
    if not has_column(value, column):
        names = list(value) if isinstance(value, Mapping) else list(value.columns)
        raise QwkitError(
            f"`{parameter}`={column!r}: `{owner}` has no column {column!r}; its columns "
            f"are {show(np.asarray([str(c) for c in names], dtype=object), 8)}.",
            parameter=parameter,
            also=(owner,),
        )
    if isinstance(value, Mapping):
        rest = {k: v for k, v in value.items() if k != column}
        return value[column], rest
    values = value[column]
    if type(value).__module__.startswith("polars"):
        return values, value.drop(column)
    return values, value.drop(columns=[column])


def _first_repeat(ids: np.ndarray) -> tuple[int, int] | None:
    """Rows (first, second) of the first id that occurs twice, in reading order."""
    order = np.argsort(ids, kind="stable")
    same = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if not same.size:
        return None
    rows = np.sort(np.stack([order[same], order[same + 1]], axis=1), axis=1)
    first = rows[np.argmin(rows[:, 1])]
    return int(first[0]), int(first[1])


def unique_ids(ids: np.ndarray, name: str, *, hint: str = "") -> None:
    """Refuse an id that names two rows, naming the id and its first two rows."""
    repeat = _first_repeat(ids)
    if repeat is not None:
        a, b = repeat
        raise QwkitError(
            f"`{name}` holds the id {ids[a].item() if hasattr(ids[a], 'item') else ids[a]!r} "
            f"twice (rows {a} and {b}): one row per item.{hint}",
            parameter=name,
            row=b,
        )


def order_by_ids(ref: np.ndarray, other: np.ndarray, names: tuple[str, str]) -> np.ndarray:
    """The rows of ``other`` in the order of ``ref`` (both 1-D id arrays, unique, the
    same set), or an error naming both (``names``: the ref's, then the other's)."""
    ref_name, name = names
    unique_ids(ref, ref_name)
    unique_ids(other, name)
    try:
        sorter = np.argsort(other, kind="stable")
        pos = np.searchsorted(other, ref, sorter=sorter)
    except TypeError:  # ids of kinds that do not compare (numbers and text)
        pos = None
    if pos is not None:
        pos = np.minimum(pos, other.size - 1)
        found = other[sorter[pos]] == ref
    if pos is None or other.size != ref.size or not np.all(found):
        missing = ref[~found] if pos is not None else ref[:3]
        raise QwkitError(
            f"`{name}` and `{ref_name}` hold different ids: {len(missing)} id(s) of "
            f"`{ref_name}` are not in `{name}` (e.g. {show(np.asarray(missing[:3]), 3)})"
            + (
                f"; `{name}` has {other.size} rows and `{ref_name}` {ref.size}"
                if other.size != ref.size
                else ""
            )
            + ". Items are paired by their ids.",
            parameter=name,
            also=(ref_name,),
        )
    return sorter[pos]
