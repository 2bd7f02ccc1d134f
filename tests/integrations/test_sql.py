"""qwkit.sql: the text of each dialect (DuckDB's run here, Spark's by test_spark.py's
engine, PostgreSQL's parsed by sqlglot) and the reading of the rows it returns."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest
import sqlglot
from engine_cases import (
    cases,
    expected_by_group,
    in_memory_agreement,
    long_ratings,
    results_equal,
    same,
)

import qwkit
import qwkit.sql as qsql

CASES = {c.name: c for c in cases(n=300)}
DIALECTS = ("duckdb", "spark", "postgres")
#: sqlglot's names of the dialects
SQLGLOT = {"duckdb": "duckdb", "spark": "spark", "postgres": "postgres"}


def _queries(dialect):
    labels = ["low", "mid", "it's {odd}"]  # quotes and braces in a literal
    yield qsql.table_query("ratings", "a", "b", dialect=dialect)
    yield qsql.table_query("ratings", "a", "b b", counts="c", by=["g", "h"], dialect=dialect)
    yield qsql.sums_query("ratings", "a", "b", dialect=dialect)
    yield qsql.sums_query(
        "ratings", "a", "b", labels=labels, by="g", nan_policy="omit", dialect=dialect
    )
    yield qsql.sums_query("ratings", "a", "b", limbs=True, by="g", dialect=dialect)
    yield qsql.ratings_query(
        "ratings", "item", "rater", "y", by="g", nan_values=True, dialect=dialect
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_query_parses(dialect):
    for q in _queries(dialect):
        parsed = sqlglot.parse_one(q.sql, read=SQLGLOT[dialect])
        assert parsed is not None and q.dialect == dialect
        assert len(parsed.expressions) == len(q.columns), q.sql


@pytest.fixture
def con():
    with duckdb.connect() as c:
        yield c


def _load(con, table: pa.Table):
    con.register("ratings", table)
    return con


@pytest.mark.parametrize("name", ["short", "text", "matrix", "negative", "100-groups"])
def test_table_query(con, name):
    case = CASES[name]
    _load(con, case.table())
    q = qsql.table_query("ratings", "a", "b", labels=case.labels, by="g")
    rows = con.execute(q.sql).fetchall()
    assert same(
        q.kappa_score(rows, weights=case.weights), expected_by_group(case, qwkit.kappa_score)
    )
    got = q.kappa_test(rows, weights=case.weights)
    want = expected_by_group(case, qwkit.kappa_test)
    assert all(results_equal(got[k], want[k]) for k in want)
    whole = qsql.table_query("ratings", "a", "b", labels=case.labels)
    table = whole.confusion_matrix(con.execute(whole.sql).fetchall())
    assert same(table, qwkit.confusion_matrix(case.a, case.b, labels=case.labels))


@pytest.mark.parametrize("limbs", [False, True])
@pytest.mark.parametrize("name", ["short", "beyond-2**53", "negative", "wide", "text"])
def test_sums_query(con, name, limbs):
    case = CASES[name]
    _load(con, case.table())
    q = qsql.sums_query("ratings", "a", "b", labels=case.labels, by="g", limbs=limbs)
    if name in ("wide", "beyond-2**53") and not limbs:  # 64-bit products overflow
        with pytest.raises(duckdb.OutOfRangeException):
            con.execute(q.sql)
        return
    got = q.kappa_score(con.execute(q.sql).fetchall())
    want = {k: qwkit.kappa_score(a, b, labels=case.labels) for k, a, b in case.groups()}
    assert same(got, want)


def test_spark_overflow_is_refused_on_reading():
    """Spark's tried sums: a NULL sum (or a product that overflowed) is an error naming
    the cure, never a wrong kappa."""
    q = qsql.sums_query("ratings", "a", "b", dialect="spark")
    assert "try_sum" in q.sql
    #      n  n1 n2 off1 off2 sa  sb  s2    sab  ok2 okab lo1 hi1 lo2 hi2
    row = (3, 3, 3, 0, 0, 6, 6, None, 12, 2, 3, 1, 3, 1, 3)
    with pytest.raises(qwkit.QwkitError, match="limbs=True") as info:
        q.kappa_score([row])
    assert info.value.parameter == "y1"
    fine = (3, 3, 3, 0, 0, 6, 6, 28, 14, 3, 3, 1, 3, 1, 3)
    assert same(q.kappa_score([fine]), qwkit.kappa_score([1, 2, 3], [1, 2, 3]))


def test_ratings_query(con):
    items, raters, values, group = long_ratings()
    _load(con, pa.table({"item": items, "rater": raters, "y": values, "g": group}))
    q = qsql.ratings_query("ratings", "item", "rater", "y", nan_values=True)
    rows = con.execute(q.sql).fetchall()
    assert len(rows) < len(items) // 4  # the items collapse to their distinct profiles
    for coefficient in ("fleiss", "light"):
        want = in_memory_agreement(
            items, raters, values, qwkit.agreement_test, coefficient=coefficient
        )
        assert same(q.agreement_test(rows, coefficient=coefficient), want)


def test_reading_the_wrong_rows_or_options(con):
    _load(con, pa.table({"a": [1, 2, 3], "b": [1, 2, 2]}))
    sums = qsql.sums_query("ratings", "a", "b")
    rows = con.execute(sums.sql).fetchall()
    with pytest.raises(qwkit.QwkitError, match="kappa_test needs the rows of table_query") as info:
        sums.kappa_test(rows)
    assert info.value.parameter == "rows"
    with pytest.raises(qwkit.QwkitError, match="quadratic kappa only") as info:
        sums.kappa_score(rows, weights="linear")
    assert info.value.parameter == "weights"
    with pytest.raises(qwkit.QwkitError, match="`dialect` must be"):
        qsql.table_query("ratings", "a", "b", dialect="mysql")
    with pytest.raises(qwkit.QwkitError, match="`source` must be SQL text"):
        qsql.table_query("", "a", "b")


def test_labels_off_the_scale_in_the_sums(con):
    _load(con, pa.table({"a": ["low", "high", "odd"], "b": ["low", "high", "low"]}))
    q = qsql.sums_query("ratings", "a", "b", labels=["low", "high"])
    with pytest.raises(qwkit.QwkitError, match="`y1` holds 1 rating that is not in `labels`"):
        q.kappa_score(con.execute(q.sql).fetchall())


def test_empty_input_says_what_memory_says(con):
    _load(con, pa.table({"a": pa.array([], pa.int64()), "b": pa.array([], pa.int64())}))
    for q in (qsql.table_query("ratings", "a", "b"), qsql.sums_query("ratings", "a", "b")):
        with pytest.raises(qwkit.QwkitError, match="are empty"):
            q.kappa_score(con.execute(q.sql).fetchall())
    grouped = qsql.table_query("ratings", "a", "b", by="a")
    assert grouped.kappa_score(con.execute(grouped.sql).fetchall()) == {}
