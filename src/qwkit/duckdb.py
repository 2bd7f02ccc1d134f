"""Weighted kappa, its inference and agreement computed where the data live, in DuckDB.

Every function here mirrors the in-memory function of the same name and returns the same
result **to the last bit**, without loading the rows into Python: DuckDB reduces them to
qwkit's sufficient state with one query — the distinct pairs of ratings and how many rows
hold each (the K×K table, sparse), or for unweighted quadratic kappa of a wide integer
scale the five exact integer sums (HUGEINT), or the distinct rating profiles of many
raters — and that state is finalized by the code the in-memory functions run
(``qwkit.sql`` writes the queries; ``docs/engines.md`` says when to use which engine).

``data`` is a DuckDB relation, a path, glob or list of Parquet (or CSV) files, a table or
view name of ``connection``, or an Arrow table (anything DuckDB reads by Arrow: a pyarrow
Table, Dataset or RecordBatchReader, a polars or pandas DataFrame). ``by`` names columns
whose groups each get their own result (a dict keyed by the group's value, or by the
tuple of values for several columns).

This module imports duckdb; ``import qwkit`` never does.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

require("duckdb", feature="qwkit.duckdb", package="duckdb", extra="duckdb", minimum="1.1")

import duckdb

from qwkit import AgreementTestResult, KappaTestResult, ThresholdResult
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._registry import Coefficient
from qwkit._base._weights import WeightsLike
from qwkit._integrations import _sql_engine as _e
from qwkit._integrations._sql_text import dialect_of

__all__ = [
    "agreement_score",
    "agreement_test",
    "confusion_matrix",
    "kappa_score",
    "kappa_test",
    "optimize_thresholds",
]

Alternative = Literal["two-sided", "greater", "less"]
NanPolicy = Literal["raise", "omit"]
#: What ``data`` may be.
Data = object
By = str | Sequence[str] | None

_KINDS = {
    **dict.fromkeys(
        ("tinyint", "smallint", "integer", "bigint", "utinyint", "usmallint", "uinteger"),
        _e.INTEGER,
    ),
    **dict.fromkeys(("ubigint", "hugeint", "uhugeint"), _e.WIDE_INTEGER),
    **dict.fromkeys(("float", "double"), _e.FLOAT),
    "decimal": _e.DECIMAL,
    "varchar": _e.TEXT,
    "enum": _e.TEXT,
    "boolean": _e.BOOLEAN,
}
#: The name the data have inside qwkit's queries.
_VIEW = "qwkit_input"


def _is_files(data) -> bool:
    if isinstance(data, os.PathLike):
        return True
    if isinstance(data, list | tuple):
        return bool(data) and all(isinstance(x, str | os.PathLike) for x in data)
    return isinstance(data, str) and (
        os.path.exists(data)
        or glob.has_magic(data)
        or data.lower().endswith((".parquet", ".csv", ".tsv"))
        or "://" in data
    )


def _files(connection, data):
    names = [os.fspath(x) for x in (data if isinstance(data, list | tuple) else [data])]
    expanded = []
    for name in names:
        if os.path.isdir(name):
            found = sorted(glob.glob(os.path.join(name, "**", "*"), recursive=True))
            expanded += [f for f in found if os.path.isfile(f) and not _hidden(f, name)]
        else:
            expanded.append(name)
    csv = all(n.lower().endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz")) for n in expanded)
    try:
        if csv:
            return connection.read_csv(expanded)
        return connection.read_parquet(expanded)
    except duckdb.Error as exc:
        raise QwkitError(f"`data` cannot be read: {exc}", parameter="data") from None


def _hidden(path: str, root: str) -> bool:
    return any(p.startswith((".", "_")) for p in os.path.relpath(path, root).split(os.sep))


def _relation(data, connection):
    """(the relation of ``data``, the connection to close after, or None)."""
    if isinstance(data, duckdb.DuckDBPyRelation):
        return data, None
    own = None
    if connection is None:
        connection = own = duckdb.connect()
    elif not isinstance(connection, duckdb.DuckDBPyConnection):
        raise QwkitTypeError(
            f"`connection` must be a DuckDB connection; got {type(connection).__name__}.",
            parameter="connection",
        )
    try:
        if isinstance(data, str) and own is None and not _is_files(data):
            try:
                return connection.table(data), own
            except duckdb.Error as exc:
                raise QwkitError(
                    f"`data` names no table or view of `connection`: {data!r} ({exc}).",
                    parameter="data",
                ) from None
        if _is_files(data):
            return _files(connection, data), own
        if hasattr(data, "__arrow_c_stream__") or type(data).__module__.startswith("pyarrow"):
            return connection.from_arrow(data), own
        if type(data).__module__.startswith("pandas"):
            return connection.from_df(data), own
    except BaseException:
        if own is not None:
            own.close()
        raise
    if own is not None:
        own.close()
    raise QwkitTypeError(
        "`data` must be a DuckDB relation, a path, glob or list of Parquet or CSV files, a "
        "table name of `connection`, or an Arrow table or data frame; got "
        f"{type(data).__name__}.",
        parameter="data",
    )


class _Engine:
    """The engine of one call: the relation, its columns, and its connection closed at
    the end."""

    def __init__(self, data, connection):
        self.relation, self._own = _relation(data, connection)

    def __enter__(self) -> _e.Engine:
        rel = self.relation
        columns = {
            name: (_KINDS.get(t.id, _e.OTHER), str(t))
            for name, t in zip(rel.columns, rel.types, strict=True)
        }
        return _e.Engine(
            dialect=dialect_of("duckdb"),
            source=_VIEW,
            run=self._run,
            columns=columns,
            overflow=(duckdb.OutOfRangeException,),
        )

    def _run(self, text: str) -> list:
        return self.relation.query(_VIEW, text).fetchall()

    def __exit__(self, *exc) -> None:
        if self._own is not None:
            self._own.close()


_COMMON = """
    by : str or list of str, default=None
        Columns whose groups each get their own result: a dict keyed by the group's
        value (a tuple of values for several columns), in ascending order of the keys.
    nan_policy : {"raise", "omit"}, default="raise"
        A NULL (or NaN) rating, or count, is an error naming its column, as a missing
        rating is in memory; ``"omit"`` leaves such rows out (a group left with no item
        is an error, as no items are in memory).
    connection : duckdb.DuckDBPyConnection, default=None
        The connection that reads ``data`` (files, a table name, an Arrow table); by
        default a new in-memory one. A relation uses its own.
"""


def kappa_score(
    data: Data,
    y1: str,
    y2: str,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    counts: str | None = None,
    by: By = None,
    nan_policy: NanPolicy = "raise",
    replace_undefined_by: float = np.nan,
    connection: duckdb.DuckDBPyConnection | None = None,
) -> float | dict:
    """Weighted kappa of two rating columns, computed in DuckDB: :func:`qwkit.kappa_score`.

    Parameters
    ----------
    data : DuckDB relation, path, glob, list of paths, table name or Arrow table
        The rows (see the module's description).
    y1, y2 : str
        The columns of the two raters' ratings (integers, whole-number floats, booleans,
        or text with ``labels``).
    weights, labels, replace_undefined_by
        As in :func:`qwkit.kappa_score`.
    counts : str, default=None
        An integer column: how many identical items each row stands for.
    {common}
    Returns
    -------
    float, or dict of float by group
        Exactly :func:`qwkit.kappa_score` of the same rows.

    Notes
    -----
    One query: the distinct pairs of ratings and their counts (GROUP BY, the sparse K×K
    table). Unweighted quadratic kappa of integer columns whose ratings hold more than
    65,536 distinct pairs (a wide integer scale) is computed from the five exact sums
    instead (``docs/engines.md``).

    Examples
    --------
    >>> import duckdb, qwkit.duckdb
    >>> rel = duckdb.sql("SELECT * FROM (VALUES (4, 0), (4, 4), (3, 1), (4, 0), (4, 4), "
    ...                  "(0, 0), (1, 1), (1, 1), (2, 2), (1, 1)) AS t(actual, pred)")
    >>> round(qwkit.duckdb.kappa_score(rel, "actual", "pred"), 6)  # the Kaggle example
    0.318182
    """
    with _Engine(data, connection) as engine:
        return _e.kappa_score(
            engine,
            y1,
            y2,
            weights=weights,
            labels=labels,
            counts=counts,
            by=by,
            nan_policy=nan_policy,
            replace=replace_undefined_by,
        )


def kappa_test(
    data: Data,
    y1: str,
    y2: str,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    counts: str | None = None,
    alternative: Alternative = "two-sided",
    by: By = None,
    nan_policy: NanPolicy = "raise",
    connection: duckdb.DuckDBPyConnection | None = None,
) -> KappaTestResult | dict:
    """Kappa with its standard errors, test and intervals, computed in DuckDB:
    :func:`qwkit.kappa_test`.

    The table DuckDB counts carries everything the test needs: every interval method
    works (the bootstrap redraws the table).

    Parameters
    ----------
    data, y1, y2, weights, labels, counts
        As in :func:`kappa_score`.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        As in :func:`qwkit.kappa_test`.
    {common}
    Returns
    -------
    KappaTestResult, or dict of them by group

    Examples
    --------
    >>> import duckdb, qwkit.duckdb
    >>> rel = duckdb.sql("SELECT * FROM (VALUES (3, 3), (3, 6), (3, 4), (4, 6), (5, 2), "
    ...                  "(5, 4), (2, 2), (3, 4), (5, 3), (2, 3)) AS t(r1, r2)")
    >>> res = qwkit.duckdb.kappa_test(rel, "r1", "r2")
    >>> round(res.statistic, 6), res.n_items
    (0.032258, 10)
    """
    with _Engine(data, connection) as engine:
        return _e.kappa_test(
            engine,
            y1,
            y2,
            weights=weights,
            labels=labels,
            counts=counts,
            by=by,
            nan_policy=nan_policy,
            alternative=alternative,
        )


def confusion_matrix(
    data: Data,
    y1: str,
    y2: str,
    *,
    labels: ArrayLike | None = None,
    counts: str | None = None,
    by: By = None,
    nan_policy: NanPolicy = "raise",
    connection: duckdb.DuckDBPyConnection | None = None,
) -> np.ndarray | dict:
    """The K×K table of two rating columns, counted in DuckDB:
    :func:`qwkit.confusion_matrix`.

    Parameters
    ----------
    data, y1, y2, labels, counts
        As in :func:`kappa_score` (text ratings without ``labels``: their sorted
        distinct values, as in memory).
    {common}
    Returns
    -------
    ndarray of shape (K, K) of int64, or dict of them by group

    Examples
    --------
    >>> import duckdb, qwkit.duckdb
    >>> rel = duckdb.sql("SELECT * FROM (VALUES (1, 1), (1, 2), (2, 2)) AS t(a, b)")
    >>> qwkit.duckdb.confusion_matrix(rel, "a", "b")
    array([[1, 1],
           [0, 1]])
    """
    with _Engine(data, connection) as engine:
        return _e.confusion_matrix(
            engine, y1, y2, labels=labels, counts=counts, by=by, nan_policy=nan_policy
        )


def optimize_thresholds(
    data: Data,
    y_true: str,
    y_score: str,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    counts: str | None = None,
    max_pairs: int = _e.MAX_PAIRS,
    by: By = None,
    nan_policy: NanPolicy = "raise",
    connection: duckdb.DuckDBPyConnection | None = None,
) -> ThresholdResult | dict:
    """The exact kappa-optimal cut points of real-valued scores, from the distinct
    (true rating, score) pairs DuckDB counts: :func:`qwkit.optimize_thresholds`.

    Parameters
    ----------
    data : DuckDB relation, path, glob, list of paths, table name or Arrow table
        The rows.
    y_true : str
        The column of the true ratings.
    y_score : str
        The column of the real-valued scores.
    weights, labels
        As in :func:`qwkit.optimize_thresholds`.
    counts : str, default=None
        An integer column: how many identical items each row stands for.
    max_pairs : int, default=10_000_000
        The distinct (true rating, score) pairs come to Python (about 24 bytes each);
        beyond this many the computation stops with an error: round the scores (the
        cut points then fall between the rounded values), or raise the bound.
    {common}
    Returns
    -------
    ThresholdResult, or dict of them by group

    Examples
    --------
    >>> import duckdb, qwkit.duckdb
    >>> rel = duckdb.sql("SELECT * FROM (VALUES (0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8), "
    ...                  "(2, 0.9), (2, 1.7)) AS t(y, score)")
    >>> res = qwkit.duckdb.optimize_thresholds(rel, "y", "score")
    >>> [round(float(t), 6) for t in res.thresholds]
    [0.6, 0.85]
    """
    with _Engine(data, connection) as engine:
        return _e.optimize_thresholds(
            engine,
            y_true,
            y_score,
            weights=weights,
            labels=labels,
            counts=counts,
            by=by,
            nan_policy=nan_policy,
            max_pairs=max_pairs,
        )


_MANY = """
    data : DuckDB relation, path, glob, list of paths, table name or Arrow table
        The ratings in long format, one row per rating.
    items, raters, values : str
        The columns of the item, the rater and the rating of each row (as
        :func:`qwkit.ratings_from_long`); a NULL (or NaN) rating is no rating.
    coefficient, weights, labels
        As in :func:`qwkit.agreement_score`.
    by : str or list of str, default=None
        Columns whose groups each get their own result (a dict keyed by the group).
    connection : duckdb.DuckDBPyConnection, default=None
        As in :func:`kappa_score`.
"""


def agreement_score(
    data: Data,
    items: str,
    raters: str,
    values: str,
    *,
    coefficient: Coefficient,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    by: By = None,
    replace_undefined_by: float = np.nan,
    connection: duckdb.DuckDBPyConnection | None = None,
) -> float | dict:
    """Agreement among any number of raters, from a long table of ratings reduced in
    DuckDB: :func:`qwkit.agreement_score` of :func:`qwkit.ratings_from_long`.

    DuckDB checks the ratings (a NULL item or rater, two ratings of one item by one
    rater) and reduces the items to their distinct profiles — the list of (rater,
    rating) of an item — with how many items share each; qwkit computes the coefficient
    from them. The profiles come to Python, and the ratings they stand for are rebuilt
    there (memory in proportion to the ratings): the transfer is small when items
    repeat (a few raters, a short scale), not when they do not.

    Parameters
    ----------
    {many}
    replace_undefined_by : float, default=nan
        As in :func:`qwkit.agreement_score`.

    Returns
    -------
    float, or dict of float by group

    Examples
    --------
    >>> import duckdb, qwkit.duckdb
    >>> rel = duckdb.sql("SELECT * FROM (VALUES (1, 'a', 1), (1, 'b', 1), (2, 'a', 2), "
    ...                  "(2, 'b', 3), (3, 'a', 3), (3, 'b', 3)) AS t(item, rater, y)")
    >>> round(qwkit.duckdb.agreement_score(rel, "item", "rater", "y",
    ...                                    coefficient="krippendorff"), 6)
    0.827586
    """
    with _Engine(data, connection) as engine:
        return _e.agreement_score(
            engine,
            items,
            raters,
            values,
            coefficient=coefficient,
            weights=weights,
            labels=labels,
            by=by,
            replace=replace_undefined_by,
        )


def agreement_test(
    data: Data,
    items: str,
    raters: str,
    values: str,
    *,
    coefficient: Coefficient,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    alternative: Alternative = "two-sided",
    n_population: float | None = None,
    by: By = None,
    connection: duckdb.DuckDBPyConnection | None = None,
) -> AgreementTestResult | dict:
    """Agreement among any number of raters with its standard error, test and intervals,
    from a long table of ratings reduced in DuckDB: :func:`qwkit.agreement_test`.

    Parameters
    ----------
    {many}
    alternative, n_population
        As in :func:`qwkit.agreement_test`.

    Returns
    -------
    AgreementTestResult, or dict of them by group

    Examples
    --------
    >>> import duckdb, qwkit.duckdb
    >>> rel = duckdb.sql("SELECT * FROM (VALUES (1, 'a', 1), (1, 'b', 1), (2, 'a', 2), "
    ...                  "(2, 'b', 3), (3, 'a', 3), (3, 'b', 3)) AS t(item, rater, y)")
    >>> res = qwkit.duckdb.agreement_test(rel, "item", "rater", "y", coefficient="fleiss")
    >>> round(res.statistic, 6), res.n_items
    (0.793103, 3)
    """
    with _Engine(data, connection) as engine:
        return _e.agreement_test(
            engine,
            items,
            raters,
            values,
            coefficient=coefficient,
            weights=weights,
            labels=labels,
            by=by,
            alternative=alternative,
            n_population=n_population,
        )


for _f in (kappa_score, kappa_test, confusion_matrix, optimize_thresholds):
    _f.__doc__ = (_f.__doc__ or "").replace("    {common}\n", _COMMON.lstrip("\n"))
for _g in (agreement_score, agreement_test):
    _g.__doc__ = (_g.__doc__ or "").replace("    {many}\n", _MANY.lstrip("\n"))
del _f, _g
