"""Weighted kappa, its inference and exact thresholds over data that does not fit in memory.

Every function here mirrors the in-memory function of the same name and returns the
same result **to the last bit**: each partition of a dask collection is reduced to a
small mergeable state (the K×K table, five integer sums, the sums of soft kappa, or the
per-(score, true rating) weights of the threshold search), the states are merged in a
tree (``split_every`` at a time), and the merged state is finalized by the same code
the in-memory functions run. Counts are integers and sums of survey weights are exact
(rounded once, at the end), so the order in which a cluster merges does not matter.

Inputs: two dask arrays, two dask Series, or column names with ``data`` — a dask
DataFrame, or a path, glob or list of paths to Parquet (or ``.csv``) files read with
``dask.dataframe``. ``compute=False`` returns a ``dask.delayed`` object instead of the
result. See ``docs/dask.md``.

This module imports dask; ``import qwkit`` never does.
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._extras import require

_DASK = {"feature": "qwkit.dask", "package": "dask[distributed,dataframe]", "extra": "dask"}
dask = require("dask", minimum="2024.1", **_DASK)
da = require("dask.array", **_DASK)
dd = require("dask.dataframe", **_DASK)

import qwkit
from qwkit._errors import QwkitError, QwkitTypeError
from qwkit._scale import MAX_DENSE_CLASSES, prepare_labels
from qwkit._state import QuadraticSums, TableStats
from qwkit._sufficient import TABLE_CLASSES, scale_hint
from qwkit._validation import (
    check_alternative,
    check_integer,
    check_progress,
    check_replace_undefined_by,
)
from qwkit._weights import WeightsLike, check_weights

__all__ = [
    "confusion_matrix",
    "kappa_score",
    "kappa_test",
    "optimize_thresholds",
    "soft_kappa_score",
]

Alternative = Literal["two-sided", "greater", "less"]
Progress = Callable[[int, int], None]
#: Default bound on the (score, true rating) pairs of optimize_thresholds (≈ 2.4 GB).
MAX_PAIRS = 100_000_000
_CSV = (".csv", ".csv.gz", ".csv.bz2", ".csv.zst", ".tsv")


# ---------------------------------------------------------------------------- inputs


def _frame(data, columns: list[str]):
    """A dask DataFrame holding ``columns`` of ``data`` (read from files if a path)."""
    if isinstance(data, dd.DataFrame):
        missing = [c for c in columns if c not in data.columns]
        if missing:
            raise QwkitError(
                f"`data` has no column {missing[0]!r}; columns: {list(data.columns)}.",
                parameter="data",
            )
        return data[columns]
    paths = [data] if isinstance(data, (str, os.PathLike)) else list(data)
    if not paths or not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise QwkitTypeError(
            "`data` must be a dask DataFrame or a path, glob or list of paths to Parquet or "
            f"CSV files; got {type(data).__name__}.",
            parameter="data",
        )
    names = [os.fspath(p) for p in paths]
    if all(n.lower().endswith(_CSV) for n in names):
        sep = "\t" if names[0].lower().endswith(".tsv") else ","
        return dd.read_csv(names if len(names) > 1 else names[0], usecols=columns, sep=sep)
    return dd.read_parquet(names if len(names) > 1 else names[0], columns=columns)


def _columns(named: dict, data) -> dict:
    """{parameter: per-partition delayed objects} for every given input."""
    given = {k: v for k, v in named.items() if v is not None}
    if data is not None:
        bad = [k for k, v in given.items() if not isinstance(v, str)]
        if bad:
            raise QwkitTypeError(
                f"With `data`, `{bad[0]}` must be a column name; got "
                f"{type(given[bad[0]]).__name__}.",
                parameter=bad[0],
            )
        frame = _frame(data, list(dict.fromkeys(given.values())))
        parts = frame.to_delayed()
        return {k: [dask.delayed(_column)(p, v) for p in parts] for k, v in given.items()}
    first = next(iter(named))
    kinds = {k: _kind(v, k) for k, v in given.items()}
    if len(set(kinds.values())) > 1:
        raise QwkitTypeError(
            "The inputs must all be dask arrays or all dask Series (or column names with "
            f"`data`); got {', '.join(f'`{k}`: {v}' for k, v in kinds.items())}.",
            parameter=first,
        )
    if kinds[first] == "array":
        ref = given[first]
        out = {}
        for k, v in given.items():
            if v.ndim != 1:
                raise QwkitError(
                    f"`{k}` must be 1-D; got a dask array of shape {v.shape}.", parameter=k
                )
            if v.shape[0] != ref.shape[0] and not (
                math.isnan(v.shape[0]) or math.isnan(ref.shape[0])
            ):
                raise QwkitError(
                    f"`{first}` and `{k}` must have the same length; got {ref.shape[0]} and "
                    f"{v.shape[0]}.",
                    parameter=k,
                    also=(first,),
                )
            if v.chunks != ref.chunks:
                v = v.rechunk(ref.chunks)
            out[k] = list(v.to_delayed().ravel())
        return out
    n = {k: v.npartitions for k, v in given.items()}
    if len(set(n.values())) > 1:
        raise QwkitError(
            "The dask Series must be partitioned alike; got "
            f"{', '.join(f'{v} partitions in `{k}`' for k, v in n.items())}. Pass one "
            "DataFrame as `data` with column names instead.",
            parameter=first,
        )
    return {k: list(v.to_delayed()) for k, v in given.items()}


def _kind(value, name: str) -> str:
    if isinstance(value, da.Array):
        return "array"
    if isinstance(value, dd.Series):
        return "Series"
    if isinstance(value, str):
        raise QwkitTypeError(
            f"`{name}` is a column name ({value!r}): pass the table as `data`.", parameter=name
        )
    raise QwkitTypeError(
        f"`{name}` must be a dask array or dask Series (or a column name with `data`); got "
        f"{type(value).__name__}. For data in memory, use the function of the same name "
        "in `qwkit`.",
        parameter=name,
    )


def _column(frame, name):
    return frame[name]


# ---------------------------------------------------------------------------- reduction


def _merge_states(*states):
    """Merge a group of partition states into the first (merging is exact in any order)."""
    out = states[0]
    for s in states[1:]:
        out = out.merge(s)
    return out


def _reduce(
    make: Callable,
    update: Callable,
    finish: Callable,
    parts: dict,
    *,
    split_every: int,
    compute: bool,
    progress: Progress | None,
):
    """Tree reduction of partition states with ``dask.delayed``: one state per partition
    (``make()`` then ``update(state, **columns)``), merged ``split_every`` at a time,
    then ``finish(state)``."""
    split_every = check_integer(split_every, "split_every", 2)
    progress = check_progress(progress)
    names = list(parts)
    n_parts = len(parts[names[0]])
    token = uuid.uuid4().hex[:12]
    leaves = [
        dask.delayed(_partition, pure=False)(
            make, update, names, *(parts[k][i] for k in names), dask_key_name=(f"qwkit-{token}", i)
        )
        for i in range(n_parts)
    ]

    def tree(level):
        depth = 0
        while len(level) > 1:
            level = [
                dask.delayed(_merge_states, pure=False)(
                    *level[i : i + split_every],
                    dask_key_name=(f"qwkit-merge-{token}-{depth}", i),
                )
                for i in range(0, len(level), split_every)
            ]
            depth += 1
        root = level[0] if level else dask.delayed(make)()
        return dask.delayed(finish, pure=False)(root, dask_key_name=f"qwkit-result-{token}")

    if not compute:
        return tree(leaves)
    if progress is None:
        return tree(leaves).compute()
    return _compute_with_progress(leaves, tree, f"qwkit-{token}", progress)


def _partition(make, update, names, *columns):
    state = make()
    update(state, **dict(zip(names, columns, strict=True)))
    return state


def _compute_with_progress(leaves, tree, leaf_name: str, progress: Progress):
    """Compute, calling ``progress(done, total)`` as partitions finish: through futures
    when a distributed client is active, else a local scheduler callback."""
    total = len(leaves)
    progress(0, total)
    client = _client()
    if client is not None:
        from distributed import as_completed

        futures = client.compute(leaves)
        for done, _ in enumerate(as_completed(futures), 1):
            progress(done, total)
        return client.compute(tree(futures)).result()
    from dask.callbacks import Callback

    done = [0]

    def posttask(key, value, dsk, state, worker_id):
        if isinstance(key, tuple) and key and key[0] == leaf_name:
            done[0] += 1
            progress(done[0], total)

    with Callback(posttask=posttask):
        return tree(leaves).compute()


def _client():
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def _check_named_scale(kind, labels) -> None:
    if isinstance(kind, str) and labels is not None and labels.n_classes > TABLE_CLASSES:
        raise QwkitError(
            f"`labels` has {labels.n_classes} categories; qwkit.dask tables hold at most "
            f"{TABLE_CLASSES} for named weights (beyond that the in-memory functions use a "
            "table-free computation that does not merge exactly). Pass a weight matrix.",
            parameter="labels",
        )


# ---------------------------------------------------------------------------- public


_COMMON = """
    data : dask DataFrame, path, glob or list of paths, default=None
        When given, ``y1``, ``y2`` (and ``sample_weight``, ``counts``) are column
        names of this table; paths are read with ``dask.dataframe.read_parquet`` (or
        ``read_csv`` for ``.csv`` files), only those columns.
    compute : bool, default=True
        False returns a ``dask.delayed`` object whose ``.compute()`` is the result.
    split_every : int, default=8
        How many partition states one merge task combines (the fan-in of the tree).
    progress : callable, default=None
        Called as ``progress(done, total)`` as partitions finish (with ``compute``).
"""


def kappa_score(
    y1,
    y2,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight=None,
    counts=None,
    replace_undefined_by: float = np.nan,
    data=None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
):
    """Weighted kappa of two raters over dask collections: :func:`qwkit.kappa_score`.

    Parameters
    ----------
    y1, y2 : dask array, dask Series, or column name (with ``data``)
        Ratings of the same items, partitioned alike (dask arrays are rechunked to
        ``y1``'s chunks).
    weights, labels, replace_undefined_by
        As in :func:`qwkit.kappa_score`. Text ratings need ``labels``; without them
        the scale is the integer range of all the data (at most 1,024 categories for
        named weights, 10,000 for a matrix — except unweighted quadratic kappa, which
        needs no table).
    sample_weight, counts : dask array, dask Series or column name, default=None
        As in :func:`qwkit.kappa_score`, partitioned like ``y1``.
    {common}
    Returns
    -------
    float, or dask.delayed.Delayed when ``compute`` is False
        Exactly :func:`qwkit.kappa_score` of all the data.

    Examples
    --------
    >>> import dask.array as da, qwkit.dask
    >>> actuals = da.from_array([4, 4, 3, 4, 4, 0, 1, 1, 2, 1], chunks=3)
    >>> preds = da.from_array([0, 4, 1, 0, 4, 0, 1, 1, 2, 1], chunks=3)
    >>> round(qwkit.dask.kappa_score(actuals, preds), 6)  # the Kaggle page's example
    0.318182
    """
    replace = check_replace_undefined_by(replace_undefined_by)
    kind = check_weights(weights)
    lab = None if labels is None else prepare_labels(labels)
    _check_named_scale(kind, lab)
    parts = _columns({"y1": y1, "y2": y2, "sample_weight": sample_weight, "counts": counts}, data)
    if isinstance(kind, str) and kind == "quadratic" and sample_weight is None and counts is None:
        return _reduce(  # five integer sums: one pass, no table, any integer range
            lambda: QuadraticSums(lab),
            lambda s, y1, y2: s.update(y1, y2),
            lambda s: s.kappa(replace),
            parts,
            split_every=split_every,
            compute=compute,
            progress=progress,
        )
    limit = TABLE_CLASSES if isinstance(kind, str) else MAX_DENSE_CLASSES
    return _reduce(
        lambda: TableStats(lab, max_classes=limit, moments=False),
        _update_table,
        lambda s: _kappa_of_table(s, kind, replace),
        parts,
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def _update_table(state, y1, y2, sample_weight=None, counts=None):
    state.update(y1, y2, sample_weight, counts=counts)


def _kappa_of_table(stats: TableStats, kind, replace) -> float:
    if stats.empty:
        raise QwkitError("No items with positive weight: kappa needs at least one rated item.")
    hint = scale_hint(stats.labels, stats.offset, stats.k)
    return stats.kappa(kind, replace, hint=hint)


def confusion_matrix(
    y1,
    y2,
    *,
    labels: ArrayLike | None = None,
    sample_weight=None,
    counts=None,
    data=None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
):
    """The K×K table of two raters over dask collections: :func:`qwkit.confusion_matrix`.

    Parameters
    ----------
    y1, y2, sample_weight, counts, labels
        As in :func:`kappa_score` (text ratings need ``labels``).
    {common}
    Returns
    -------
    ndarray of shape (K, K), or dask.delayed.Delayed when ``compute`` is False
        int64 counts, or float64 sums of ``sample_weight`` (each exact, rounded once).
    """
    lab = None if labels is None else prepare_labels(labels)
    parts = _columns({"y1": y1, "y2": y2, "sample_weight": sample_weight, "counts": counts}, data)
    return _reduce(
        lambda: TableStats(lab, max_classes=MAX_DENSE_CLASSES, moments=False),
        _update_table,
        _table_of,
        parts,
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def _table_of(stats: TableStats) -> np.ndarray:
    if stats.k == 0:
        raise QwkitError("`y1` and `y2` are empty; a table needs at least one rated item.")
    return stats.table()


def kappa_test(
    y1,
    y2,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight=None,
    counts=None,
    alternative: Alternative = "two-sided",
    data=None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
):
    """Kappa with standard errors, test and intervals over dask collections.

    The merged table carries everything :func:`qwkit.kappa_test` needs: with unit
    weights or ``counts``, every interval method works (the bootstrap redraws the
    merged table); with unequal ``sample_weight`` the statistic, both standard errors
    (the sandwich form, from exact per-cell Σw and Σw²), the test and the asymptotic
    interval are those of the in-memory function, while the bootstrap and the
    jackknife — which resample the rows themselves — raise a clear error.

    Parameters
    ----------
    y1, y2, weights, labels, sample_weight, counts
        As in :func:`kappa_score`.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        As in :func:`qwkit.kappa_test`.
    {common}
    Returns
    -------
    KappaTestResult, or dask.delayed.Delayed when ``compute`` is False
    """
    alternative = check_alternative(alternative)
    kind = check_weights(weights)
    lab = None if labels is None else prepare_labels(labels)
    _check_named_scale(kind, lab)
    parts = _columns({"y1": y1, "y2": y2, "sample_weight": sample_weight, "counts": counts}, data)
    return _reduce(
        lambda: qwkit.KappaAccumulator(labels, weights=weights),
        _update_table,
        lambda acc: acc.test(alternative=alternative),
        parts,
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def soft_kappa_score(
    y_true,
    y_score,
    *,
    sample_weight=None,
    counts=None,
    data=None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
):
    """Soft kappa of real-valued predictions over dask collections:
    :func:`qwkit.soft_kappa_score`, from its six sums, kept exactly.

    Parameters
    ----------
    y_true, y_score, sample_weight, counts
        Dask arrays or Series (or column names with ``data``), as in
        :func:`qwkit.soft_kappa_score`.
    {common}
    Returns
    -------
    float, or dask.delayed.Delayed when ``compute`` is False
    """
    parts = _columns(
        {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight, "counts": counts},
        data,
    )
    return _reduce(
        qwkit.SoftKappaAccumulator,
        _update_soft,
        lambda acc: acc.score(),
        parts,
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def _update_soft(acc, y_true, y_score, sample_weight=None, counts=None):
    acc.update(y_true, y_score, sample_weight, counts=counts)


def optimize_thresholds(
    y_true,
    y_score,
    *,
    labels: ArrayLike | None = None,
    weights: WeightsLike = "quadratic",
    sample_weight=None,
    counts=None,
    max_pairs: int = MAX_PAIRS,
    data=None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
):
    """The exact kappa-optimal cut points over dask collections:
    :func:`qwkit.optimize_thresholds`.

    Every partition aggregates its items into (distinct score, true rating) pairs with
    their summed weight; the pairs merge by union (equal pairs added exactly), and the
    exact search (Dinkelbach's method over the dynamic program) runs once on the merged
    pairs — the global optimum, as in memory.

    Parameters
    ----------
    y_true, y_score, labels, weights, sample_weight, counts
        As in :func:`qwkit.optimize_thresholds`.
    max_pairs : int, default=100_000_000
        The merged pairs live in one process (about 24 bytes each, more with survey
        weights). Beyond this many distinct (score, true rating) pairs the computation
        stops with an error that says how many there are: round the scores (e.g. to 4
        decimals) to bound them — kappa-optimal cut points then fall between the
        rounded values — or raise the bound if the memory allows.
    {common}
    Returns
    -------
    ThresholdResult, or dask.delayed.Delayed when ``compute`` is False
    """
    check_weights(weights)
    if labels is not None:
        prepare_labels(labels)
    max_pairs = check_integer(max_pairs, "max_pairs", 1)
    parts = _columns(
        {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight, "counts": counts},
        data,
    )
    return _reduce(
        lambda: qwkit.ThresholdAccumulator(labels, weights=weights, max_pairs=max_pairs),
        _update_soft,
        lambda acc: acc.optimize(),
        parts,
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


for _f in (kappa_score, confusion_matrix, kappa_test, soft_kappa_score, optimize_thresholds):
    _f.__doc__ = _f.__doc__.replace("    {common}\n", _COMMON.lstrip("\n"))
del _f
