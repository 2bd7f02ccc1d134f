"""Weighted kappa, its inference and exact thresholds over data that does not fit in memory.

Every function here mirrors the in-memory function of the same name and returns the
same result **to the last bit**: each partition of a dask collection is reduced to a
small mergeable state (the K×K table, five integer sums, the sums of soft kappa, or the
per-(score, true rating) weights of the threshold search), the states are merged in a
tree (``split_every`` at a time), and the merged state is finalized by the same code
the in-memory functions run. Counts are integers and sums of survey weights are exact
(rounded once, at the end), so the order in which a cluster merges does not matter.

Inputs: two dask arrays, two dask Series, or column names with ``data`` — a dask
DataFrame, or a path, glob, folder or list of paths to Parquet (or ``.csv``) files, read
piece by piece (Parquet by row groups, CSV a file at a time; ``_dask_files``,
``_dask_pieces``). An error at an item names its file and data row, or its index in the
whole collection — never its place inside a partition. ``compute=False`` returns a
``dask.delayed`` object instead of the result. See ``docs/dask.md``.

This module imports dask; ``import qwkit`` never does.
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

_DASK = {"feature": "qwkit.dask", "package": "dask[distributed,dataframe]", "extra": "dask"}
require("dask", minimum="2024.1", **_DASK)
require("dask.array", **_DASK)
require("dask.dataframe", **_DASK)


import dask
import dask.array as da
import dask.dataframe as dd
from dask.delayed import Delayed

import qwkit
from qwkit import KappaTestResult, ThresholdResult
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._items import paired
from qwkit._base._scale import MAX_DENSE_CLASSES, prepare_labels
from qwkit._base._validation import (
    check_alternative,
    check_integer,
    check_progress,
    check_replace_undefined_by,
)
from qwkit._base._weights import WeightsLike, check_weights
from qwkit._integrations._dask_files import data_files as _data_files
from qwkit._integrations._dask_files import plan, read_csv, read_parquet
from qwkit._integrations._dask_pieces import Checks, Deferred, Piece, Seen, Spec, located
from qwkit._table._state import QuadraticSums, TableStats
from qwkit._table._sufficient import TABLE_CLASSES, scale_hint

__all__ = [
    "confusion_matrix",
    "data_files",
    "kappa_score",
    "kappa_test",
    "optimize_thresholds",
    "soft_kappa_score",
]

Alternative = Literal["two-sided", "greater", "less"]
#: An input column: a dask array or dask Series, or a column name of ``data``.
Column = da.Array | dd.Series | str
#: A table: a dask DataFrame, or a path, glob or folder of files, or a list of them.
Data = dd.DataFrame | str | os.PathLike | list[str | os.PathLike]
Progress = Callable[[int, int], None]
#: Default bound on the (score, true rating) pairs of optimize_thresholds (≈ 2.4 GB).
MAX_PAIRS = 100_000_000


# ---------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class _Inputs:
    """The partitions of a call: where each one's rows come from (``pieces``), what its
    leaf task is given (``args``: delayed partitions; nothing for files, which the leaf
    reads itself) and ``load(piece, *args)``, which yields the batches ({parameter:
    values}), each with the piece whose rows it holds (a file's, or the partition's)."""

    pieces: list[Piece]
    args: list[tuple]
    load: Callable


def _modes(params, labels, *, ordered: bool) -> dict[str, str]:
    """How a file's text is read for the rating parameters: as text on a text scale, as
    numbers on a numeric one or when the scale must be ordered, else as either."""
    if labels is not None:
        mode = "text" if labels.is_text else "numbers"
    else:
        mode = "numbers" if ordered else "auto"
    return dict.fromkeys(params, mode)


def _frame(data, columns: list[str]):
    """``data`` (a dask DataFrame) with only ``columns``."""
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise QwkitError(
            f"`data` has no column {missing[0]!r}; columns: {list(data.columns)}.",
            parameter="data",
        )
    return data[columns]


def _inputs(named: dict, data, modes: dict[str, str]) -> _Inputs:
    """The partitions of every given input (``named``: parameter → value; the first two,
    the rated inputs, are required)."""
    for k in list(named)[:2]:
        if named[k] is None:
            raise QwkitTypeError(
                f"`{k}` must be a dask array or Series, or a column name with `data`; got None.",
                parameter=k,
            )
    given = {k: v for k, v in named.items() if v is not None}
    if data is not None:
        bad = [k for k, v in given.items() if not isinstance(v, str)]
        if bad:
            raise QwkitTypeError(
                f"With `data`, `{bad[0]}` must be a column name; got "
                f"{type(given[bad[0]]).__name__}.",
                parameter=bad[0],
            )
        if isinstance(data, dd.DataFrame):
            parts = _frame(data, list(dict.fromkeys(given.values()))).to_delayed()
            pieces = [Piece(i, first_row=None) for i in range(len(parts))]
            return _Inputs(pieces, [(p,) for p in parts], partial(_frame_batch, given))
        return _file_inputs(given, data, modes)
    first = next(iter(named))
    collections = {k: _collection(v, k) for k, v in given.items()}
    if len(set(collections.values())) > 1:
        raise QwkitTypeError(
            "The inputs must all be dask arrays or all dask Series (or column names with "
            f"`data`); got {', '.join(f'`{k}`: {v}' for k, v in collections.items())}.",
            parameter=first,
        )
    if collections[first] == "array":
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
        sizes = ref.chunks[0]
        starts: list[int | None] = [None] * len(sizes)
        if not any(math.isnan(s) for s in sizes):  # the place of every chunk is known
            starts = [int(s) for s in np.cumsum((0, *sizes[:-1]))]
    else:
        n = {k: v.npartitions for k, v in given.items()}
        if len(set(n.values())) > 1:
            raise QwkitError(
                "The dask Series must be partitioned alike; got "
                f"{', '.join(f'{v} partitions in `{k}`' for k, v in n.items())}. Pass one "
                "DataFrame as `data` with column names instead.",
                parameter=first,
            )
        out = {k: list(v.to_delayed()) for k, v in given.items()}
        starts = [None] * n[first]
    pieces = [Piece(i, first_row=start) for i, start in enumerate(starts)]
    args = list(zip(*out.values(), strict=True))
    return _Inputs(pieces, args, partial(_named_batch, tuple(out)))


def _file_inputs(given: dict, data, modes: dict[str, str]) -> _Inputs:
    """Parquet pieces or CSV files, each read inside the task that reduces it (one task
    per partition: no read task, no hand-over of its columns)."""
    names, file_format = _data_files(data)
    spec = Spec(given, file_format, {k: m for k, m in modes.items() if k in given})
    if file_format == "csv":
        pieces = plan(names, spec)
        return _Inputs(pieces, [()] * len(pieces), partial(read_csv, spec))
    client = _client()
    cores = sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1
    pieces = plan(names, spec, cores=cores)
    return _Inputs(pieces, [()] * len(pieces), partial(read_parquet, spec))


def _named_batch(names, piece, *values):
    # a partition of each dask Series: pandas Series, paired by their index (or refused)
    values = paired(values, names)
    yield piece, dict(zip(names, values, strict=True))


def _frame_batch(columns: dict, piece, frame):
    yield piece, {param: frame[column] for param, column in columns.items()}


def _collection(value, name: str) -> str:
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


@dataclass(slots=True)
class _Part:
    """The reduction of consecutive partitions: their merged state, their number of
    rows, what their ratings held, and the first error whose place is still to count."""

    state: Any  # a QuadraticSums, TableStats or threshold state: each has .merge()
    rows: int
    seen: Seen
    deferred: Deferred | None = None


# ---------------------------------------------------------------------------- reduction


#: Rows a state's ``update`` is given at a time (views of a larger batch): its per-row
#: temporaries stay in the hundreds of MB (the threshold search takes several times the
#: CPU time per row on batches of 5·10⁷ rows: ``benchmarks/README_dask.md``). The five
#: sums of quadratic kappa allocate nothing per row and take whole batches.
BATCH_ROWS = 1 << 23


def _leaf(make, update, checks: Checks, load, batch_rows, piece: Piece, *args) -> _Part:
    """One partition's state, batch by batch (a batch may hold one file of several, or
    all of them; each is let go before the next is read), ``update`` given at most
    ``batch_rows`` rows at a time (None: whole batches); an error names the item's file
    and data row, or its index (deferred to the root when the partition's place is
    unknown)."""
    state, rows, seen = make(), 0, Seen()
    where, offset = None, 0  # the piece the batches come from, its items before the batch
    for part, batch in load(piece, *args):
        if part is not where:
            where, offset = part, 0
        n = len(next(iter(batch.values())))
        if n:
            seen.merge(Seen.of(batch, part, checks), checks)
        step = max(min(batch_rows or n, n), 1)
        for start in range(0, n, step):
            rows_of = batch if step == n else {k: v[start : start + step] for k, v in batch.items()}
            try:
                update(state, **rows_of)
            except QwkitError as exc:
                if exc.row is not None and part.first_row is None:
                    return _Part(None, rows + start, seen, Deferred(exc, rows + start))
                raise located(exc, part, offset + start) from None
            del rows_of
        del batch
        offset += n
        rows += n
    return _Part(state, rows, seen)


def _merge_parts(checks: Checks, *parts: _Part) -> _Part:
    """Merge consecutive partitions into the first (merging states is exact in any
    order; the first error, in the order of the items, wins)."""
    out = parts[0]
    for part in parts[1:]:
        if out.deferred is None:
            if part.deferred is not None:
                out.deferred, out.state = part.deferred.shifted(out.rows), None
            else:
                out.seen.merge(part.seen, checks)
                out.state = out.state.merge(part.state)
        out.rows += part.rows
    return out


def _finish(finish: Callable, no_rows: Callable, part: _Part):
    if part.deferred is not None:
        raise located(part.deferred.error, Piece(0), part.deferred.offset)
    if part.rows == 0:
        no_rows()  # raises what the in-memory function raises for no items
    return finish(part.state)


def _empty_part(make) -> _Part:
    return _Part(make(), 0, Seen())


def _reduce(
    make: Callable,
    update: Callable,
    finish: Callable,
    inputs: _Inputs,
    *,
    checks: Checks,
    no_rows: Callable,
    split_every: int,
    compute: bool,
    progress: Progress | None,
    whole: bool = False,
):
    """Tree reduction of partition states with ``dask.delayed``: one state per partition
    (``make()`` then ``update(state, **columns)`` for each of its batches, in slices of
    at most BATCH_ROWS rows unless ``whole``), merged ``split_every`` at a time, then
    ``finish(state)``."""
    batch_rows = None if whole else BATCH_ROWS
    split_every = check_integer(split_every, "split_every", 2)
    progress = check_progress(progress)
    token = uuid.uuid4().hex[:12]
    leaves = [
        dask.delayed(_leaf, pure=False)(
            make,
            update,
            checks,
            inputs.load,
            batch_rows,
            piece,
            *args,
            dask_key_name=(f"qwkit-{token}", i),
        )
        for i, (piece, args) in enumerate(zip(inputs.pieces, inputs.args, strict=True))
    ]

    def tree(level):
        depth = 0
        while len(level) > 1:
            level = [
                dask.delayed(_merge_parts, pure=False)(
                    checks,
                    *level[i : i + split_every],
                    dask_key_name=(f"qwkit-merge-{token}-{depth}", i),
                )
                for i in range(0, len(level), split_every)
            ]
            depth += 1
        root = level[0] if level else dask.delayed(_empty_part)(make)
        return dask.delayed(_finish, pure=False)(
            finish, no_rows, root, dask_key_name=f"qwkit-result-{token}"
        )

    if not compute:
        return tree(leaves)
    if progress is None:
        return tree(leaves).compute()
    return _compute_with_progress(leaves, tree, f"qwkit-{token}", progress)


def _no_rows(function: Callable) -> Callable:
    """``function`` (the in-memory namesake) called on no items: it raises its error."""
    return partial(function, np.empty(0), np.empty(0))


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

    finished = [0]

    def posttask(key, value, dsk, state, worker_id):
        if isinstance(key, tuple) and key and key[0] == leaf_name:
            finished[0] += 1
            progress(finished[0], total)

    with Callback(posttask=posttask):
        return tree(leaves).compute()


def _client():
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def _check_named_scale(weights, labels) -> None:
    if isinstance(weights, str) and labels is not None and labels.n_classes > TABLE_CLASSES:
        raise QwkitError(
            f"`labels` has {labels.n_classes} categories; qwkit.dask tables hold at most "
            f"{TABLE_CLASSES} for named weights (beyond that the in-memory functions use a "
            "table-free computation that does not merge exactly). Pass a weight matrix.",
            parameter="labels",
        )


# ---------------------------------------------------------------------------- public


_COMMON = """
    data : dask DataFrame, path, glob, folder or list of paths, default=None
        When given, the inputs are column names of this table. Paths name Parquet
        files (read by row groups) or, when every name ends in ``.csv`` or ``.tsv``
        (possibly ``.gz``, ``.bz2``, ``.zst``), CSV files (one task per file, its values
        read as the command line reads them: ``2.0`` is the rating 2); only the named
        columns are read, and errors name the file and the data row.
    compute : bool, default=True
        False returns a ``dask.delayed`` object whose ``.compute()`` is the result.
    split_every : int, default=8
        How many partition states one merge task combines (the fan-in of the tree).
    progress : callable, default=None
        Called as ``progress(done, total)`` as partitions finish (with ``compute``).
"""


def data_files(data: str | os.PathLike | list[str | os.PathLike]) -> list[str]:
    """The data files that ``data=`` names, in the order they are read.

    Parameters
    ----------
    data : path, glob, folder or list of them
        As ``data`` of the functions here: a file, a glob's matches, or a folder's
        files (its subfolders included; names starting with '.' or '_' skipped); local
        paths or anything ``fsspec`` opens.

    Returns
    -------
    list of str
        The files, all Parquet or all CSV (``.csv``, ``.tsv``, possibly compressed).

    Raises
    ------
    QwkitError
        A path that names no file, or files of both kinds (the error names ``data``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from qwkit.dask import data_files
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.csv", "a.csv", "_SUCCESS"):
    ...     _ = (folder / name).write_text("y1,y2")
    >>> [pathlib.Path(f).name for f in data_files(folder)]
    ['a.csv', 'b.csv']
    """
    return _data_files(data)[0]


def kappa_score(
    y1: Column,
    y2: Column,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: Column | None = None,
    counts: Column | None = None,
    replace_undefined_by: float = np.nan,
    data: Data | None = None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
) -> float | Delayed:
    """Weighted kappa of two raters over dask collections: :func:`qwkit.kappa_score`.

    Parameters
    ----------
    y1, y2 : dask array, dask Series, or column name (with ``data``)
        Ratings of the same items, partitioned alike (dask arrays are rechunked to
        ``y1``'s chunks).
    weights, labels, replace_undefined_by
        As in :func:`qwkit.kappa_score`. Text ratings need ``labels`` (or an ordered
        Categorical), except with ``weights="identity"``, where the order does not
        matter: the scale is then the sorted distinct ratings of all the data. Without
        ``labels`` integer ratings are placed on the integer range of all the data (at
        most 1,024 categories for named weights, 10,000 for a matrix — except
        unweighted quadratic kappa, which needs no table).
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
    weights = check_weights(weights)
    lab = None if labels is None else prepare_labels(labels)
    _check_named_scale(weights, lab)
    ordered = not (isinstance(weights, str) and weights == "identity")
    inputs, checks = _pair_inputs(y1, y2, sample_weight, counts, data, lab, ordered=ordered)
    no_rows = _no_rows(qwkit.kappa_score)
    if (
        isinstance(weights, str)
        and weights == "quadratic"
        and sample_weight is None
        and counts is None
    ):
        return _reduce(  # five integer sums: one pass, no table, any integer range
            lambda: QuadraticSums(lab),
            lambda s, y1, y2: s.update(y1, y2),
            lambda s: s.kappa(replace),
            inputs,
            checks=checks,
            no_rows=no_rows,
            split_every=split_every,
            compute=compute,
            progress=progress,
            whole=True,  # nothing allocated per row: whole batches, one pass each
        )
    limit = TABLE_CLASSES if isinstance(weights, str) else MAX_DENSE_CLASSES
    return _reduce(
        lambda: TableStats(lab, max_classes=limit, moments=False, ordered=ordered),
        _update_table,
        lambda s: _kappa_of_table(s, weights, replace),
        inputs,
        checks=checks,
        no_rows=no_rows,
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def _update_table(state, y1, y2, sample_weight=None, counts=None):
    state.update(y1, y2, sample_weight, counts=counts)


def _pair_inputs(y1, y2, sample_weight, counts, data, labels, *, ordered: bool):
    """The inputs of a function of two raters, and what is checked across partitions."""
    named = {"y1": y1, "y2": y2, "sample_weight": sample_weight, "counts": counts}
    modes = _modes(("y1", "y2"), labels, ordered=ordered)
    return _inputs(named, data, modes), Checks(("y1", "y2"), orders=labels is None)


def _kappa_of_table(stats: TableStats, weights, replace) -> float:
    stats.check_items()
    hint = scale_hint(stats.labels, stats.offset, stats.k)
    return stats.kappa(weights, replace, hint=hint)


def confusion_matrix(
    y1: Column,
    y2: Column,
    *,
    labels: ArrayLike | None = None,
    sample_weight: Column | None = None,
    counts: Column | None = None,
    data: Data | None = None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
) -> np.ndarray | Delayed:
    """The K×K table of two raters over dask collections: :func:`qwkit.confusion_matrix`.

    Parameters
    ----------
    y1, y2, sample_weight, counts, labels
        As in :func:`kappa_score` (text ratings without ``labels``: the sorted distinct
        ratings of all the data, as in memory).
    {common}
    Returns
    -------
    ndarray of shape (K, K), or dask.delayed.Delayed when ``compute`` is False
        int64 counts, or float64 sums of ``sample_weight`` (each exact, rounded once).
    """
    lab = None if labels is None else prepare_labels(labels)
    inputs, checks = _pair_inputs(y1, y2, sample_weight, counts, data, lab, ordered=False)
    return _reduce(
        lambda: TableStats(lab, max_classes=MAX_DENSE_CLASSES, moments=False, ordered=False),
        _update_table,
        _table_of,
        inputs,
        checks=checks,
        no_rows=_no_rows(qwkit.confusion_matrix),
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def _table_of(stats: TableStats) -> np.ndarray:
    stats.check_items()
    return stats.table()


def kappa_test(
    y1: Column,
    y2: Column,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: Column | None = None,
    counts: Column | None = None,
    alternative: Alternative = "two-sided",
    data: Data | None = None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
) -> KappaTestResult | Delayed:
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
    weights = check_weights(weights)
    lab = None if labels is None else prepare_labels(labels)
    _check_named_scale(weights, lab)
    ordered = not (isinstance(weights, str) and weights == "identity")
    inputs, checks = _pair_inputs(y1, y2, sample_weight, counts, data, lab, ordered=ordered)
    return _reduce(
        lambda: qwkit.KappaAccumulator(labels, weights=weights),
        _update_table,
        lambda acc: acc.test(alternative=alternative),
        inputs,
        checks=checks,
        no_rows=_no_rows(qwkit.kappa_test),
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def soft_kappa_score(
    y_true: Column,
    y_score: Column,
    *,
    sample_weight: Column | None = None,
    counts: Column | None = None,
    data: Data | None = None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
) -> float | Delayed:
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
    inputs = _inputs(
        {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight, "counts": counts},
        data,
        {},
    )
    return _reduce(
        qwkit.SoftKappaAccumulator,
        _update_soft,
        lambda acc: acc.score(),
        inputs,
        checks=Checks((), orders=False),  # soft kappa uses the values, not an order
        no_rows=_no_rows(qwkit.soft_kappa_score),
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


def _update_soft(acc, y_true, y_score, sample_weight=None, counts=None):
    acc.update(y_true, y_score, sample_weight, counts=counts)


def optimize_thresholds(
    y_true: Column,
    y_score: Column,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: Column | None = None,
    counts: Column | None = None,
    max_pairs: int = MAX_PAIRS,
    data: Data | None = None,
    compute: bool = True,
    split_every: int = 8,
    progress: Progress | None = None,
) -> ThresholdResult | Delayed:
    """The exact kappa-optimal cut points over dask collections:
    :func:`qwkit.optimize_thresholds`.

    Every partition aggregates its items into (distinct score, true rating) pairs with
    their summed weight; the pairs merge by union (equal pairs added exactly), and the
    exact search (Dinkelbach's method over the dynamic program) runs once on the merged
    pairs — the global optimum, as in memory.

    Parameters
    ----------
    y_true, y_score, weights, labels, sample_weight, counts
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
    lab = None if labels is None else prepare_labels(labels)
    max_pairs = check_integer(max_pairs, "max_pairs", 1)
    inputs = _inputs(
        {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight, "counts": counts},
        data,
        _modes(("y_true",), lab, ordered=True),
    )
    return _reduce(
        lambda: qwkit.ThresholdAccumulator(labels, weights=weights, max_pairs=max_pairs),
        _update_soft,
        lambda acc: acc.optimize(),
        inputs,
        checks=Checks(("y_true",), orders=lab is None),
        no_rows=_no_rows(qwkit.optimize_thresholds),
        split_every=split_every,
        compute=compute,
        progress=progress,
    )


for _f in (kappa_score, confusion_matrix, kappa_test, soft_kappa_score, optimize_thresholds):
    _f.__doc__ = (_f.__doc__ or "").replace("    {common}\n", _COMMON.lstrip("\n"))
del _f
