"""The SQL that computes qwkit's sufficient state in a database, and its reading back.

For an engine that qwkit does not drive itself (PostgreSQL, a warehouse, a notebook's
DuckDB or Spark SQL cell), this module writes the query, you run it where the data
live, and the rows it returns give the result of the in-memory function **to the last
bit**: the engine only counts, qwkit infers.

- :func:`table_query`: the distinct pairs of two raters' ratings and how many rows hold
  each (``COUNT(*)``, or the sum of an integer ``counts`` column) — the K×K table,
  sparse: kappa of any weights, :func:`qwkit.kappa_test` and the confusion matrix.
- :func:`sums_query`: for unweighted quadratic kappa of integer ratings, the five exact
  integer sums n, Σa, Σb, Σ(a² + b²), Σab (eq. Q of ``docs/kappa.md``) — one row per
  group, whatever the width of the scale.
- :func:`ratings_query`: the distinct rating profiles of many raters (the list of
  (rater, rating) of an item) and how many items share each: the agreement coefficients.

Each returns a :class:`StateQuery`: its ``sql`` text, and methods that read the rows
the engine returned (``cursor.fetchall()``, ``spark.sql(q.sql).collect()``, any
iterable of rows in the order of ``columns``). Queries are written for three dialects,
``"duckdb"``, ``"spark"`` (Spark SQL) and ``"postgres"`` (PostgreSQL): the first two
are run by qwkit's tests on their engines, the third is checked by a SQL parser only.

Integer arithmetic is exact where the engine has it: the sums are the engine's wide
integers (DuckDB's HUGEINT, Spark's DECIMAL(38, 0), PostgreSQL's NUMERIC), and an
overflow is refused, never rounded: DuckDB and PostgreSQL stop the query, and Spark's
tried sums come back NULL, which the reading turns into an error (``limbs=True`` then
computes the sums exactly for any 64-bit ratings).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

import qwkit
from qwkit import AgreementTestResult, KappaTestResult
from qwkit._base._errors import QwkitError
from qwkit._base._missing import RAISE_OR_OMIT, check_nan_policy
from qwkit._base._scale import Labels, prepare_labels
from qwkit._base._validation import (
    check_alternative,
    check_replace_undefined_by,
)
from qwkit._base._weights import WeightsLike, check_weights
from qwkit._integrations import _sql_read as _r
from qwkit._integrations import _sql_text as _t

__all__ = ["StateQuery", "ratings_query", "sums_query", "table_query"]

Dialect = Literal["duckdb", "spark", "postgres"]
NanPolicy = Literal["raise", "omit"]
By = str | Sequence[str] | None
Rows = Iterable[Sequence]


def _by(by) -> tuple[str, ...]:
    if by is None:
        return ()
    names = (by,) if isinstance(by, str) else tuple(by)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise QwkitError(f"`by` must name one or more columns; got {by!r}.", parameter="by")
    return names


def _source(source) -> str:
    if not isinstance(source, str) or not source.strip():
        raise QwkitError(
            "`source` must be SQL text for after FROM (a table name, a table function or a "
            f"parenthesized subquery with an alias); got {source!r}.",
            parameter="source",
        )
    return source


def _omit(nan_policy) -> bool:
    return check_nan_policy(nan_policy, RAISE_OR_OMIT) == "omit"


def _labels(labels) -> Labels | None:
    return None if labels is None else prepare_labels(labels)


@dataclass(frozen=True, eq=False)
class StateQuery:
    """A query of qwkit's sufficient state, and the reading of its rows.

    Attributes
    ----------
    sql : str
        The query, in ``dialect``.
    kind : {"table", "sums", "ratings"}
        The state it computes.
    dialect : {"duckdb", "spark", "postgres"}
    columns : tuple of str
        The columns of its rows, in order (``g0``, ``g1``, ... for the ``by`` columns).
    by : tuple of str
        The columns whose groups each get their own result (a dict keyed by the group).
    """

    sql: str
    kind: Literal["table", "sums", "ratings"]
    dialect: str
    columns: tuple[str, ...]
    by: tuple[str, ...]
    _spec: _r.Spec = field(repr=False)
    _limbs: bool = field(default=False, repr=False)

    def __repr__(self) -> str:
        return f"StateQuery(kind={self.kind!r}, dialect={self.dialect!r}, by={self.by!r})"

    def _need(self, *kinds: str, what: str) -> None:
        if self.kind not in kinds:
            made = {"table": "table_query", "sums": "sums_query", "ratings": "ratings_query"}
            hint = " or ".join(made[k] for k in kinds)
            raise QwkitError(
                f"{what} needs the rows of {hint}; this query is a {made[self.kind]}.",
                parameter="rows",
            )

    def _pairs(self, rows: Rows, compute):
        spec = self._spec
        groups = _r.pair_groups(rows, spec)
        if not spec.by and not groups:
            empty = np.empty(0)
            groups = {None: _r.Pairs(empty, empty, np.empty(0, dtype=np.int64))}
        return _r.finish(groups, spec, compute)

    def kappa_score(
        self, rows: Rows, *, weights: WeightsLike = "quadratic", replace_undefined_by=np.nan
    ) -> float | dict:
        """:func:`qwkit.kappa_score` of the rows this query summarized.

        Parameters
        ----------
        rows : iterable of sequences
            The rows the engine returned, in the order of ``columns``.
        weights : {"quadratic", "linear", "identity", ...} or array-like, default="quadratic"
            As in :func:`qwkit.kappa_score` (a :func:`sums_query` gives quadratic kappa
            only).
        replace_undefined_by : float, default=nan
            As in :func:`qwkit.kappa_score`.

        Returns
        -------
        float, or dict of float by group
        """
        self._need("table", "sums", what="kappa_score")
        replace = check_replace_undefined_by(replace_undefined_by)
        checked = check_weights(weights)
        labels = self._labels_given()
        if self.kind == "table":
            return self._pairs(
                rows,
                lambda p: qwkit.kappa_score(
                    p.a,
                    p.b,
                    weights=weights,
                    labels=labels,
                    counts=p.counts,
                    replace_undefined_by=replace,
                ),
            )
        if not (isinstance(checked, str) and checked == "quadratic"):
            raise QwkitError(
                f"A sums_query gives quadratic kappa only; got `weights`={weights!r}. Use "
                "table_query for other weights.",
                parameter="weights",
            )
        spec = self._spec
        groups = {}
        for key, part in _r.by_group(rows, len(spec.by)).items():
            try:
                groups[key] = _r.sums_of(part[0], spec, limbs=self._limbs)
            except QwkitError as exc:
                raise _r.in_group(exc, spec, key) from None
        if not spec.by and not groups:
            qwkit.kappa_score(np.empty(0), np.empty(0))  # raises: no items
        return _r.finish(groups, spec, lambda s: _r.sums_kappa(s, replace, None))

    def _labels_given(self):
        labels = self._spec.labels
        return None if labels is None else labels.values

    def kappa_test(
        self,
        rows: Rows,
        *,
        weights: WeightsLike = "quadratic",
        alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    ) -> KappaTestResult | dict:
        """:func:`qwkit.kappa_test` of the rows a :func:`table_query` summarized.

        Parameters
        ----------
        rows : iterable of sequences
            The rows the engine returned.
        weights, alternative
            As in :func:`qwkit.kappa_test`.

        Returns
        -------
        KappaTestResult, or dict of them by group
        """
        self._need("table", what="kappa_test")
        check_alternative(alternative)
        check_weights(weights)
        labels = self._labels_given()
        return self._pairs(
            rows,
            lambda p: qwkit.kappa_test(
                p.a, p.b, weights=weights, labels=labels, counts=p.counts, alternative=alternative
            ),
        )

    def confusion_matrix(self, rows: Rows) -> np.ndarray | dict:
        """:func:`qwkit.confusion_matrix` of the rows a :func:`table_query` summarized.

        Parameters
        ----------
        rows : iterable of sequences
            The rows the engine returned.

        Returns
        -------
        ndarray of shape (K, K), or dict of them by group
        """
        self._need("table", what="confusion_matrix")
        labels = self._labels_given()
        return self._pairs(
            rows, lambda p: qwkit.confusion_matrix(p.a, p.b, labels=labels, counts=p.counts)
        )

    def _tables(self, rows: Rows):
        spec = self._spec
        groups = _r.by_group(rows, len(spec.by))
        if not spec.by and not groups:
            groups = {None: []}
        out = {}
        for key, part in groups.items():
            try:
                out[key] = _r.profiles_table(part, ("items", "raters", "values"))
            except QwkitError as exc:
                raise _r.in_group(exc, spec, key) from None
        return out

    def agreement_score(
        self,
        rows: Rows,
        *,
        coefficient: str,
        weights: WeightsLike = "quadratic",
        replace_undefined_by: float = np.nan,
    ) -> float | dict:
        """:func:`qwkit.agreement_score` of the ratings a :func:`ratings_query` summarized.

        Parameters
        ----------
        rows : iterable of sequences
            The rows the engine returned.
        coefficient, weights, replace_undefined_by
            As in :func:`qwkit.agreement_score`.

        Returns
        -------
        float, or dict of float by group
        """
        self._need("ratings", what="agreement_score")
        replace = check_replace_undefined_by(replace_undefined_by)
        labels = self._labels_given()
        return _r.finish(
            self._tables(rows),
            self._spec,
            lambda t: qwkit.agreement_score(
                t,
                coefficient=coefficient,
                weights=weights,
                labels=labels,
                replace_undefined_by=replace,
            ),
        )

    def agreement_test(
        self,
        rows: Rows,
        *,
        coefficient: str,
        weights: WeightsLike = "quadratic",
        alternative: Literal["two-sided", "greater", "less"] = "two-sided",
        n_population: float | None = None,
    ) -> AgreementTestResult | dict:
        """:func:`qwkit.agreement_test` of the ratings a :func:`ratings_query` summarized.

        Parameters
        ----------
        rows : iterable of sequences
            The rows the engine returned.
        coefficient, weights, alternative, n_population
            As in :func:`qwkit.agreement_test`.

        Returns
        -------
        AgreementTestResult, or dict of them by group
        """
        self._need("ratings", what="agreement_test")
        labels = self._labels_given()
        return _r.finish(
            self._tables(rows),
            self._spec,
            lambda t: qwkit.agreement_test(
                t,
                coefficient=coefficient,
                weights=weights,
                labels=labels,
                alternative=alternative,
                n_population=n_population,
            ),
        )


def _group_columns(by: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"g{i}" for i in range(len(by)))


def table_query(
    source: str,
    y1: str,
    y2: str,
    *,
    labels: ArrayLike | None = None,
    counts: str | None = None,
    by: By = None,
    nan_policy: NanPolicy = "raise",
    dialect: Dialect = "duckdb",
) -> StateQuery:
    """The query of the distinct pairs of two raters' ratings, with how many rows hold
    each: the sufficient state of kappa of any weights, of its test and of the
    confusion matrix.

    Parameters
    ----------
    source : str
        What the query reads, as SQL after FROM: a table name, a table function
        (``read_parquet('ratings/*.parquet')``) or a parenthesized subquery with an
        alias.
    y1, y2 : str
        The columns of the two raters' ratings.
    labels : array-like of shape (K,), default=None
        The ordered rating scale, as in :func:`qwkit.kappa_score` (kept for the
        reading; the query does not depend on it).
    counts : str, default=None
        An integer column: how many identical items each row stands for (summed in the
        engine's wide integers; a column of fractions would be rounded by the cast).
    by : str or list of str, default=None
        Columns whose groups each get their own result.
    nan_policy : {"raise", "omit"}, default="raise"
        On reading: a NULL (or NaN) rating or count is an error, or its rows are left
        out.
    dialect : {"duckdb", "spark", "postgres"}, default="duckdb"

    Returns
    -------
    StateQuery
        ``sql``, and ``kappa_score(rows)``, ``kappa_test(rows)``,
        ``confusion_matrix(rows)``.

    Examples
    --------
    >>> import duckdb, qwkit.sql
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE r AS SELECT * FROM (VALUES (4, 0), (4, 4), (3, 1), "
    ...                 "(4, 0), (4, 4), (0, 0), (1, 1), (1, 1), (2, 2), (1, 1)) t(a, b)")
    >>> q = qwkit.sql.table_query("r", "a", "b")
    >>> print(q.sql)
    SELECT
      "a" AS a,
      "b" AS b,
      COUNT(*) AS n
    FROM r
    GROUP BY "a", "b"
    >>> round(q.kappa_score(con.execute(q.sql).fetchall()), 6)  # the Kaggle example
    0.318182
    >>> round(q.kappa_test(con.execute(q.sql).fetchall()).standard_error, 6)
    0.282487
    """
    d = _t.dialect_of(dialect)
    names = _by(by)
    text = _t.table_sql(d, _source(source), y1, y2, counts=counts, by=names)
    tail = _t.TABLE_COUNTS_COLUMNS if counts is not None else _t.TABLE_COLUMNS
    spec = _r.Spec(("y1", "y2"), _labels(labels), _omit(nan_policy), names, counts is not None)
    return StateQuery(text, "table", d.name, (*_group_columns(names), *tail), names, spec)


def sums_query(
    source: str,
    y1: str,
    y2: str,
    *,
    labels: ArrayLike | None = None,
    by: By = None,
    nan_policy: NanPolicy = "raise",
    limbs: bool = False,
    dialect: Dialect = "duckdb",
) -> StateQuery:
    """The query of the five exact sums of unweighted quadratic kappa (eq. Q of
    ``docs/kappa.md``): one row per group, whatever the width of the scale.

    Parameters
    ----------
    source, y1, y2, by
        As in :func:`table_query`; ``y1`` and ``y2`` are integer columns (or, with
        ``labels``, columns whose values are labels: the query puts them at their
        positions on the scale).
    labels : array-like of shape (K,), default=None
        The ordered rating scale; None: the ratings are integers, on the integer range.
    nan_policy : {"raise", "omit"}, default="raise"
        A NULL rating is an error on reading, or its row is left out by the query.
    limbs : bool, default=False
        Split each rating into two 32-bit halves, whose products always fit: exact for
        any 64-bit ratings, in the engine's wide integers (about twice the work). The
        plain form multiplies in 64 bits and sums in the wide type: an overflow stops
        DuckDB's and PostgreSQL's query, and Spark's tried sums come back NULL, which
        the reading refuses.
    dialect : {"duckdb", "spark", "postgres"}, default="duckdb"

    Returns
    -------
    StateQuery
        ``sql``, and ``kappa_score(rows)`` (quadratic weights).

    Notes
    -----
    The sums do not show which ratings occur, so the reading cannot say (as
    :func:`qwkit.kappa_score` does with a ``ScaleWarning``) that an inferred integer scale
    holds values that look like missing-value codes: pass ``labels``, or use
    :func:`table_query`.

    Examples
    --------
    >>> import duckdb, qwkit.sql
    >>> con = duckdb.connect()
    >>> big = 2**62  # its square overflows 64 bits: the limbs form sums it exactly
    >>> _ = con.execute(f"CREATE TABLE r AS SELECT * FROM (VALUES ({big}, {big + 1}), "
    ...                 f"({big + 1}, {big + 1}), ({big + 3}, {big + 2})) t(a, b)")
    >>> q = qwkit.sql.sums_query("r", "a", "b", limbs=True)
    >>> kappa = q.kappa_score(con.execute(q.sql).fetchall())
    >>> kappa == qwkit.kappa_score([big, big + 1, big + 3], [big + 1, big + 1, big + 2])
    True
    >>> round(kappa, 6)
    0.625
    """
    d = _t.dialect_of(dialect)
    names = _by(by)
    lab = _labels(labels)
    omit = _omit(nan_policy)
    text = _t.sums_sql(
        d,
        _source(source),
        y1,
        y2,
        labels=None if lab is None else [v.item() for v in lab.values],
        by=names,
        omit=omit,
        limbs=bool(limbs),
    )
    body = _t.SUMS_LIMBS if limbs else _t.SUMS_PLAIN
    columns = (*_group_columns(names), *_t.SUMS_HEAD, *body, *_t.SUMS_TAIL)
    # positions on the labels are checked by the query (off1, off2), not by their range
    spec = _r.Spec(("y1", "y2"), None if lab is None else _positions(lab), omit, names)
    return StateQuery(text, "sums", d.name, columns, names, spec, bool(limbs))


def _positions(lab: Labels) -> Labels:
    """The scale the query's positions are on: 0, ..., K − 1 (whose messages show the
    labels)."""
    return Labels(values=lab.values, is_text=lab.is_text, offset=None)


def ratings_query(
    source: str,
    items: str,
    raters: str,
    values: str,
    *,
    labels: ArrayLike | None = None,
    by: By = None,
    nan_values: bool = False,
    dialect: Dialect = "duckdb",
) -> StateQuery:
    """The query of the distinct rating profiles of many raters, with how many items
    share each: the sufficient state of the agreement coefficients.

    Parameters
    ----------
    source, by, dialect
        As in :func:`table_query`.
    items, raters, values : str
        The columns of a long table of ratings (as :func:`qwkit.ratings_from_long`); a
        NULL rating is no rating.
    labels : array-like of shape (K,), default=None
        The ordered rating scale, as in :func:`qwkit.agreement_score` (kept for the
        reading).
    nan_values : bool, default=False
        ``values`` is a floating-point column whose NaN means no rating, as NULL.

    Returns
    -------
    StateQuery
        ``sql``, and ``agreement_score(rows, coefficient=...)``,
        ``agreement_test(rows, coefficient=...)``.

    Examples
    --------
    >>> import duckdb, qwkit.sql
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE r AS SELECT * FROM (VALUES (1, 'a', 1), (1, 'b', 1), "
    ...                 "(2, 'a', 2), (2, 'b', 3), (3, 'a', 3), (3, 'b', 3)) t(item, rater, y)")
    >>> q = qwkit.sql.ratings_query("r", "item", "rater", "y")
    >>> round(q.agreement_score(con.execute(q.sql).fetchall(), coefficient="krippendorff"), 6)
    0.827586
    """
    d = _t.dialect_of(dialect)
    names = _by(by)
    text = _t.profiles_sql(
        d, _source(source), items, raters, values, by=names, nan_is_missing=bool(nan_values)
    )
    spec = _r.Spec(("values", "values"), _labels(labels), False, names)
    columns = (*_group_columns(names), *_t.PROFILE_COLUMNS)
    return StateQuery(text, "ratings", d.name, columns, names, spec)
