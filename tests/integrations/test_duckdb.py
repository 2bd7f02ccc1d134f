"""qwkit.duckdb: every result equals the in-memory one, to the last bit; bad input gets
the in-memory function's error, said of the column and of the group."""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from engine_cases import (
    ITEM_ORDER_RTOL,
    SEED,
    cases,
    expected_by_group,
    in_memory_agreement,
    long_ratings,
    results_equal,
    same,
)

import qwkit
import qwkit.duckdb as qd
from qwkit._base._registry import COEFFICIENTS as REGISTRY
from qwkit._integrations import _sql_engine

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
class TestParity:
    def test_kappa_score(self, case):
        got = qd.kappa_score(
            case.table(), "a", "b", weights=case.weights, labels=case.labels, by="g"
        )
        assert same(got, expected_by_group(case, qwkit.kappa_score))

    def test_kappa_test(self, case):
        if case.name == "wide":  # present cells of n distinct pairs: covered ungrouped below
            return
        got = qd.kappa_test(
            case.table(), "a", "b", weights=case.weights, labels=case.labels, by="g"
        )
        want = expected_by_group(case, qwkit.kappa_test)
        assert got.keys() == want.keys()
        assert all(results_equal(got[k], want[k]) for k in want)

    def test_confusion_matrix(self, case):
        if case.name in ("wide", "beyond-2**53", "beyond-2**53-linear"):
            return  # a table of 2**64 categories is refused, in memory too
        got = qd.confusion_matrix(case.table(), "a", "b", labels=case.labels, by="g")
        want = {k: qwkit.confusion_matrix(a, b, labels=case.labels) for k, a, b in case.groups()}
        assert same(got, want)


class TestWideScales:
    """Ratings up to 2**63: the five sums (64-bit products overflow: the limbs form)."""

    def test_more_pairs_than_the_cap_take_the_five_sums(self, monkeypatch):
        monkeypatch.setattr(_sql_engine, "PAIR_CAP", 16)
        for case in CASES[:7]:
            if case.weights != "quadratic":
                continue
            got = qd.kappa_score(case.table(), "a", "b", labels=case.labels, by="g")
            assert same(got, expected_by_group(case, qwkit.kappa_score)), case.name
            whole = qd.kappa_score(case.table(), "a", "b", labels=case.labels)
            assert same(whole, qwkit.kappa_score(case.a, case.b, labels=case.labels))

    def test_extreme_integers(self, monkeypatch):
        monkeypatch.setattr(_sql_engine, "PAIR_CAP", 2)
        lo, hi = -(2**63), 2**63 - 1
        a = np.array([lo, hi, hi, lo, 0, hi], dtype=np.int64)
        b = np.array([lo, hi, lo, lo, 1, hi - 1], dtype=np.int64)
        table = pa.table({"a": a, "b": b})
        with warnings.catch_warnings():  # both warn of missing-value codes, alike
            warnings.simplefilter("ignore", qwkit.ScaleWarning)
            assert same(qd.kappa_score(table, "a", "b"), qwkit.kappa_score(a, b))

    def test_kappa_test_of_a_wide_scale(self):
        case = CASES[4]
        got = qd.kappa_test(case.table(), "a", "b")
        assert results_equal(got, qwkit.kappa_test(case.a, case.b))

    def test_codes_warn_as_in_memory(self, monkeypatch):
        a = np.array([1, 2, 3, 4, 5, 99, 2, 3] * 5)
        b = np.array([1, 2, 3, 4, 5, 2, 99, 3] * 5)
        table = pa.table({"a": a, "b": b})
        with pytest.warns(qwkit.ScaleWarning) as memory:
            want = qwkit.kappa_score(a, b)
        for cap in (1000, 2):  # the table, then the five sums with their sketch
            monkeypatch.setattr(_sql_engine, "PAIR_CAP", cap)
            with pytest.warns(qwkit.ScaleWarning) as engine:
                assert same(qd.kappa_score(table, "a", "b"), want)
            assert [str(w.message) for w in engine] == [str(w.message) for w in memory]


class TestInputs:
    def test_parquet_glob_relation_arrow_and_table_name(self, tmp_path):
        case = CASES[0]
        table = case.table()
        for i, part in enumerate((table.slice(0, 150), table.slice(150))):
            pq.write_table(part, tmp_path / f"part-{i}.parquet")
        want = qwkit.kappa_score(case.a, case.b)
        con = duckdb.connect()
        con.register("ratings_view", table)
        sources = [
            (str(tmp_path / "*.parquet"), None),
            (tmp_path, None),
            ([tmp_path / "part-0.parquet", tmp_path / "part-1.parquet"], None),
            (con.from_arrow(table), None),
            (table, None),
            ("ratings_view", con),
        ]
        for data, connection in sources:
            assert same(qd.kappa_score(data, "a", "b", connection=connection), want)

    def test_counts(self):
        rng = np.random.default_rng(SEED)
        a, b = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
        c = rng.integers(0, 5, 50)
        table = pa.table({"a": a, "b": b, "c": c})
        assert same(qd.kappa_score(table, "a", "b", counts="c"), qwkit.kappa_score(a, b, counts=c))
        assert results_equal(
            qd.kappa_test(table, "a", "b", counts="c"), qwkit.kappa_test(a, b, counts=c)
        )

    def test_whole_floats_and_booleans(self):
        a = np.array([1.0, 2.0, 3.0, 2.0])
        b = np.array([1.0, 3.0, 3.0, 2.0])
        table = pa.table({"a": a, "b": b, "x": a > 1, "y": b > 1})
        assert same(qd.kappa_score(table, "a", "b"), qwkit.kappa_score(a, b))
        assert same(qd.kappa_score(table, "x", "y"), qwkit.kappa_score(a > 1, b > 1))

    def test_several_by_columns(self):
        case = CASES[0]
        h = case.group % 2
        table = pa.table({"a": case.a, "b": case.b, "g": case.group, "h": h})
        got = qd.kappa_score(table, "a", "b", by=["g", "h"])
        want = {
            (g, k): qwkit.kappa_score(
                case.a[(case.group == g) & (h == k)], case.b[(case.group == g) & (h == k)]
            )
            for g, k in sorted({(int(x), int(y)) for x, y in zip(case.group, h, strict=True)})
        }
        assert same(got, want)

    def test_optimize_thresholds(self):
        rng = np.random.default_rng(SEED)
        y = rng.integers(0, 5, 500)
        score = np.round(y + rng.normal(0, 0.8, 500), 2)
        table = pa.table({"y": y, "s": score, "g": y % 2})
        got = qd.optimize_thresholds(table, "y", "s")
        want = qwkit.optimize_thresholds(y, score)
        assert same(got.thresholds, want.thresholds) and same(got.statistic, want.statistic)
        groups = qd.optimize_thresholds(table, "y", "s", by="g", labels=[0, 1, 2, 3, 4])
        for k, res in groups.items():
            rows = y % 2 == k
            ref = qwkit.optimize_thresholds(y[rows], score[rows], labels=[0, 1, 2, 3, 4])
            assert same(res.thresholds, ref.thresholds) and same(res.statistic, ref.statistic)
        with pytest.raises(qwkit.QwkitError, match="`max_pairs`=10") as info:
            qd.optimize_thresholds(table, "y", "s", max_pairs=10)
        assert info.value.parameter == "max_pairs"


class TestAgreement:
    #: The registry's coefficients of any number of raters.
    COEFFICIENTS = REGISTRY.where(lambda r: not r.two_raters)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    def test_parity(self, coefficient):
        items, raters, values, group = long_ratings()
        table = pa.table({"item": items, "rater": raters, "y": values, "g": group})
        got = qd.agreement_score(table, "item", "rater", "y", coefficient=coefficient)
        want = in_memory_agreement(
            items, raters, values, qwkit.agreement_score, coefficient=coefficient
        )
        assert same(got, want, ITEM_ORDER_RTOL)
        res = qd.agreement_test(table, "item", "rater", "y", coefficient=coefficient, by="g")
        for k, r in res.items():
            rows = group == k
            ref = in_memory_agreement(
                items[rows],
                raters[rows],
                values[rows],
                qwkit.agreement_test,
                coefficient=coefficient,
            )
            assert same(r, ref, ITEM_ORDER_RTOL)

    def test_duplicates_and_missing_ids(self):
        table = pa.table({"item": [1, 1, 2, 2], "rater": ["a", "a", "a", "b"], "y": [1, 2, 3, 3]})
        with pytest.raises(qwkit.QwkitError, match="rated an item twice") as info:
            qd.agreement_score(table, "item", "rater", "y", coefficient="fleiss")
        assert info.value.parameter == "items"
        table = pa.table(
            {"item": [1, None, 2, 2], "rater": ["a", "b", "a", "b"], "y": [1, 2, 3, 3]}
        )
        with pytest.raises(qwkit.QwkitError, match="`items` contains a missing value"):
            qd.agreement_score(table, "item", "rater", "y", coefficient="fleiss")


class TestBadInput:
    def _table(self, **columns):
        return pa.table(columns)

    def test_null_is_refused_naming_the_column_or_omitted(self):
        table = self._table(a=[1, 2, None, 3], b=[1, 2, 2, 3])
        with pytest.raises(
            qwkit.QwkitError, match=r"`y1` has 1 missing value .*nan_policy='omit'"
        ) as info:
            qd.kappa_score(table, "a", "b")
        assert info.value.parameter == "y1"
        got = qd.kappa_score(table, "a", "b", nan_policy="omit")
        assert same(got, qwkit.kappa_score([1, 2, 3], [1, 2, 3]))
        nan = self._table(a=[1.0, 2.0, np.nan, 3.0], b=[1.0, 2.0, 2.0, 3.0])
        with pytest.raises(qwkit.QwkitError, match="`y1` has 1 missing value"):
            qd.kappa_score(nan, "a", "b")

    def test_labels_off_the_scale(self):
        table = self._table(a=[1, 2, 7], b=[1, 2, 3])
        with pytest.raises(
            qwkit.QwkitError, match=r"`y1` contains 7, which is not in `labels` \[1, 2, 3\]"
        ) as info:
            qd.kappa_score(table, "a", "b", labels=[1, 2, 3])
        assert info.value.parameter == "y1" and info.value.row is None

    def test_text_without_labels(self):
        table = self._table(a=["x", "y"], b=["x", "x"])
        with pytest.raises(qwkit.QwkitError, match="pass `labels`"):
            qd.kappa_score(table, "a", "b")
        assert same(
            qd.kappa_score(table, "a", "b", weights="identity"),
            qwkit.kappa_score(["x", "y"], ["x", "x"], weights="identity"),
        )

    def test_fractions_on_an_integer_scale(self):
        table = self._table(a=[1.5, 2.0], b=[1.0, 2.0])
        with pytest.raises(qwkit.QwkitError, match=r"`y1` must hold integer .*; it holds 1\.5"):
            qd.kappa_score(table, "a", "b")

    def test_empty_data_and_empty_group(self):
        empty = self._table(a=pa.array([], pa.int64()), b=pa.array([], pa.int64()))
        with pytest.raises(qwkit.QwkitError, match="are empty") as info:
            qd.kappa_score(empty, "a", "b")
        assert info.value.parameter == "y1"
        table = self._table(a=[1, 2, None], b=[1, 2, 3], g=["x", "x", "y"])
        with pytest.raises(qwkit.QwkitError, match=r"are empty.*\(in the group g='y'\)"):
            qd.kappa_score(table, "a", "b", by="g", nan_policy="omit")

    def test_columns_and_types(self):
        table = self._table(a=[1, 2], b=[1, 2], c=[1.5, 2.0], d=[[1], [2]])
        with pytest.raises(
            qwkit.QwkitError,
            match=r"`data` has no column 'z'; its columns are \['a', 'b', 'c', 'd'\]",
        ) as info:
            qd.kappa_score(table, "a", "z")
        assert info.value.parameter == "y2"
        with pytest.raises(
            qwkit.QwkitTypeError, match="`counts` must be an integer column; 'c' is DOUBLE"
        ):
            qd.kappa_score(table, "a", "b", counts="c")
        with pytest.raises(qwkit.QwkitTypeError, match="`y1` must be a number or text column"):
            qd.kappa_score(table, "d", "b")
        with pytest.raises(qwkit.QwkitError, match="`nan_policy` must be"):
            qd.kappa_score(table, "a", "b", nan_policy="propagate")
        with pytest.raises(qwkit.QwkitTypeError, match="`data` must be a DuckDB relation"):
            qd.kappa_score(42, "a", "b")

    def test_negative_and_null_counts(self):
        table = self._table(a=[1, 2, 3], b=[1, 2, 3], c=[1, -2, 1], d=[1, None, 1])
        with pytest.raises(qwkit.QwkitError, match="`counts` must hold non-negative") as info:
            qd.kappa_score(table, "a", "b", counts="c")
        assert info.value.parameter == "counts"
        with pytest.raises(qwkit.QwkitError, match="`counts` has 1 missing value"):
            qd.kappa_score(table, "a", "b", counts="d")
        assert same(
            qd.kappa_score(table, "a", "b", counts="d", nan_policy="omit"),
            qwkit.kappa_score([1, 3], [1, 3]),
        )
