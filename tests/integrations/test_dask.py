"""qwkit.dask on a real LocalCluster: every result equals the in-memory one, to the bit.

Two worker processes, one thread each: partitions are reduced in other processes and
their states travel pickled, so exactness does not rest on a shared address space. The
lazy results of a test are computed together (one round trip to the cluster).
"""

from __future__ import annotations

import gzip
import math
import subprocess
import sys

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dask.delayed import Delayed
from distributed import Client, LocalCluster

import qwkit
import qwkit.dask as qd
from oracles.naive import naive_kappa
from qwkit._base._extras import install_command
from qwkit._integrations import _dask_files, _dask_pieces

SEED = 20261121
N = 3_000
CHUNKS = ((700, 0, 1_100, 1, 1_199),)  # uneven, with an empty chunk
MATRIX = np.random.default_rng(SEED).random((5, 5)) * (1 - np.eye(5))
WEIGHTS = ["quadratic", "linear", "identity", MATRIX]
WEIGHT_IDS = ["quadratic", "linear", "identity", "matrix"]


@pytest.fixture(scope="module")
def client():
    with (
        dask.config.set({"distributed.worker.daemon": False}),
        LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(SEED)
    a = rng.integers(0, 5, N)
    b = np.clip(a + rng.integers(-2, 3, N), 0, 4)
    w = rng.random(N) * 3
    w[::11] = 0.0
    w[5] = 1e-300  # a tiny weight among ordinary ones: exact sums keep it
    counts = rng.integers(0, 4, N)
    score = a + rng.normal(0, 0.8, N)
    return {"a": a, "b": b, "w": w, "counts": counts, "score": score}


def _arrays(d):
    return {k: da.from_array(v, chunks=CHUNKS) for k, v in d.items()}


def _item_kwargs(kind, d, arrays):
    if kind == "sample_weight":
        return {"sample_weight": d["w"]}, {"sample_weight": arrays["w"]}
    if kind == "counts":
        return {"counts": d["counts"]}, {"counts": arrays["counts"]}
    return {}, {}


ITEM_KINDS = ["unit", "sample_weight", "counts"]


class TestKappaScore:
    def test_every_weight_kind_and_item_weight_is_exact(self, client, data):
        arrays = _arrays(data)
        cases, lazy = [], []
        for weights in WEIGHTS:
            for items in ITEM_KINDS:
                for labels in (None, range(5)):
                    mem, dist = _item_kwargs(items, data, arrays)
                    ref = qwkit.kappa_score(
                        data["a"], data["b"], weights=weights, labels=labels, **mem
                    )
                    cases.append((ref, items, labels))
                    lazy.append(
                        qd.kappa_score(
                            arrays["a"],
                            arrays["b"],
                            weights=weights,
                            labels=labels,
                            compute=False,
                            **dist,
                        )
                    )
        results = dask.compute(*lazy)
        for (ref, items, labels), got in zip(cases, results, strict=True):
            assert got == ref, (items, labels)  # exact, not approximate
            assert type(got) is float

    def test_adversarial_survey_weights_are_exact(self, client):
        # subnormal, ordinary and 2**1000-scale weights in one sample, one dominating:
        # every partition's state is exact, so the merged kappa is the exact one
        rng = np.random.default_rng(SEED)
        n = 3_000
        a = rng.integers(0, 5, n)
        b = np.clip(a + rng.integers(-1, 2, n), 0, 4)
        w = np.ldexp(rng.random(n), rng.integers(-1074, 1000, n))
        w[::7] = rng.random(w[::7].shape[0])
        w[11] = 2.0**1023
        arrays = [da.from_array(x, chunks=(700, 900, 1400)) for x in (a, b, w)]
        named = ("quadratic", "linear", "identity")
        lazy = [
            qd.kappa_score(*arrays[:2], sample_weight=arrays[2], weights=weights, compute=False)
            for weights in named
        ]
        for weights, got in zip(named, dask.compute(*lazy), strict=True):
            exact = naive_kappa(a, b, weights=weights, labels=list(range(5)), sample_weight=w)
            assert got == float(exact) == qwkit.kappa_score(a, b, weights=weights, sample_weight=w)

    def test_text_labels_from_a_dataframe(self, client, data):
        scale = np.array(["none", "mild", "moderate", "severe", "extreme"])
        frame = pd.DataFrame({"r1": scale[data["a"]], "r2": scale[data["b"]], "w": data["w"]})
        ddf = dd.from_pandas(frame, npartitions=4)
        for weights in ("linear", "identity"):
            got = qd.kappa_score("r1", "r2", data=ddf, labels=scale, weights=weights)
            ref = qwkit.kappa_score(frame.r1, frame.r2, labels=scale, weights=weights)
            assert got == ref
        got = qd.kappa_score(ddf.r1, ddf.r2, labels=scale, sample_weight=ddf.w)
        assert got == qwkit.kappa_score(frame.r1, frame.r2, labels=scale, sample_weight=frame.w)
        # an ordered Categorical declares the scale itself
        ordered = frame.astype({"r1": pd.CategoricalDtype(scale, ordered=True)})
        ordered["r2"] = ordered.r2.astype(ordered.r1.dtype)
        dordered = dd.from_pandas(ordered, npartitions=3)
        got = qd.kappa_test("r1", "r2", data=dordered, weights="linear")
        assert got.statistic == qwkit.kappa_score(ordered.r1, ordered.r2, weights="linear")
        np.testing.assert_array_equal(got.labels, scale)

    def test_order_of_partitions_does_not_matter(self, client, data):
        # the same items, partitioned and ordered differently: the same bits
        rng = np.random.default_rng(SEED)
        perm = rng.permutation(N)
        lazy = [
            qd.kappa_score(
                da.from_array(data["a"][p], chunks=c),
                da.from_array(data["b"][p], chunks=c),
                weights="linear",
                sample_weight=da.from_array(data["w"][p], chunks=c),
                split_every=s,
                compute=False,
            )
            for p, c, s in ((np.arange(N), 500, 2), (perm, 333, 3), (perm[::-1], N, 8))
        ]
        first, *others = dask.compute(*lazy)
        assert all(x == first for x in others)

    def test_integer_scale_without_labels_spans_the_partitions(self, client):
        # each partition sees part of the range; the merged scale is the union
        a = np.array([10, 11, 12, 10, 30, 31, 29, 30])
        b = np.array([10, 12, 12, 11, 31, 31, 30, 29])
        A, B = (da.from_array(x, chunks=4) for x in (a, b))
        assert qd.kappa_score(A, B, weights="linear") == qwkit.kappa_score(a, b, weights="linear")
        np.testing.assert_array_equal(qd.confusion_matrix(A, B), qwkit.confusion_matrix(a, b))

    def test_lazy_returns_delayed(self, client, data):
        arrays = _arrays(data)
        lazy = qd.kappa_score(arrays["a"], arrays["b"], compute=False)
        assert isinstance(lazy, Delayed)
        assert lazy.compute() == qwkit.kappa_score(data["a"], data["b"])

    def test_progress(self, client, data):
        arrays = _arrays(data)
        seen = []
        qd.kappa_score(arrays["a"], arrays["b"], progress=lambda done, total: seen.append(done))
        assert seen == list(range(len(CHUNKS[0]) + 1))

    def test_bad_input(self, client, data):
        arrays = _arrays(data)
        with pytest.raises(TypeError, match="`y2` must be a dask array or dask Series"):
            qd.kappa_score(arrays["a"], data["b"])
        with pytest.raises(ValueError, match="same length"):
            qd.kappa_score(arrays["a"], arrays["b"][:-1])
        with pytest.raises(ValueError, match="`data` has no column 'nope'"):
            qd.kappa_score("a", "nope", data=dd.from_pandas(pd.DataFrame(data), npartitions=2))
        with pytest.raises(ValueError, match="1025 integer categories"):
            qd.kappa_score(
                da.from_array(np.array([0, 1024]), chunks=1),
                da.from_array(np.array([0, 0]), chunks=1),
                weights="linear",
            )
        with pytest.raises(ValueError, match="`y1` contains 7"):
            qd.kappa_score(
                da.from_array(np.array([1, 7]), chunks=1),
                da.from_array(np.array([1, 1]), chunks=1),
                labels=[0, 1, 2],
            )


class TestConfusionMatrix:
    def test_exact_tables(self, client, data):
        arrays = _arrays(data)
        for items in ITEM_KINDS:
            mem, dist = _item_kwargs(items, data, arrays)
            got = qd.confusion_matrix(arrays["a"], arrays["b"], **dist)
            ref = qwkit.confusion_matrix(data["a"], data["b"], **mem)
            assert got.dtype == ref.dtype
            np.testing.assert_array_equal(got, ref)


class TestKappaTest:
    @pytest.mark.parametrize("weights", WEIGHTS, ids=WEIGHT_IDS)
    def test_exact_results(self, client, data, weights):
        arrays = _arrays(data)
        lazy, refs = [], []
        for items in ITEM_KINDS:
            mem, dist = _item_kwargs(items, data, arrays)
            refs.append(qwkit.kappa_test(data["a"], data["b"], weights=weights, **mem))
            lazy.append(
                qd.kappa_test(arrays["a"], arrays["b"], weights=weights, compute=False, **dist)
            )
        for items, ref, got in zip(ITEM_KINDS, refs, dask.compute(*lazy), strict=True):
            for name in ("statistic", "standard_error", "standard_error_null", "pvalue"):
                assert getattr(got, name) == getattr(ref, name), (items, name)
            assert got.n_items == ref.n_items
            assert got.confidence_interval(0.9) == ref.confidence_interval(0.9)
            if items == "sample_weight":
                with pytest.raises(ValueError, match="method='asymptotic'"):
                    got.confidence_interval(method="bootstrap", rng=1)
                continue
            for method in ("bootstrap", "percentile", "jackknife"):
                kw = {"method": method, "n_resamples": 300, "rng": 7}
                assert got.confidence_interval(**kw) == ref.confidence_interval(**kw)

    def test_equal_survey_weights_are_unit_items(self, client, data):
        arrays = _arrays(data)
        w = np.full(N, 2.5)
        got = qd.kappa_test(arrays["a"], arrays["b"], sample_weight=da.from_array(w, chunks=CHUNKS))
        ref = qwkit.kappa_test(data["a"], data["b"], sample_weight=w)
        kw = {"method": "bootstrap", "n_resamples": 200, "rng": 3}
        assert got.confidence_interval(**kw) == ref.confidence_interval(**kw)
        assert got.standard_error == ref.standard_error


class TestSoftKappa:
    def test_exact(self, client, data):
        arrays = _arrays(data)
        lazy, refs = [], []
        for items in ITEM_KINDS:
            mem, dist = _item_kwargs(items, data, arrays)
            refs.append(qwkit.soft_kappa_score(data["a"], data["score"], **mem))
            lazy.append(qd.soft_kappa_score(arrays["a"], arrays["score"], compute=False, **dist))
        assert list(dask.compute(*lazy)) == refs


class TestOptimizeThresholds:
    @pytest.mark.parametrize("weights", WEIGHTS, ids=WEIGHT_IDS)
    def test_exact(self, client, data, weights):
        arrays = _arrays(data)
        lazy, refs = [], []
        for items in ITEM_KINDS:
            mem, dist = _item_kwargs(items, data, arrays)
            refs.append(qwkit.optimize_thresholds(data["a"], data["score"], weights=weights, **mem))
            lazy.append(
                qd.optimize_thresholds(
                    arrays["a"], arrays["score"], weights=weights, compute=False, **dist
                )
            )
        for ref, got in zip(refs, dask.compute(*lazy), strict=True):
            np.testing.assert_array_equal(got.thresholds, ref.thresholds)
            assert got.statistic == ref.statistic
            assert got.certificate.ratio == ref.certificate.ratio
            np.testing.assert_array_equal(got.labels, ref.labels)

    def test_ties_across_partitions_and_text_labels(self, client):
        # the same scores in several partitions merge into one group
        rng = np.random.default_rng(SEED)
        scale = np.array(["low", "mid", "high"])
        y = rng.integers(0, 3, 900)
        s = np.round(y + rng.normal(0, 0.7, 900), 1)
        frame = pd.DataFrame({"y": scale[y], "s": s, "w": rng.random(900)})
        ddf = dd.from_pandas(frame, npartitions=6)
        got = qd.optimize_thresholds("y", "s", sample_weight="w", labels=scale, data=ddf)
        ref = qwkit.optimize_thresholds(frame.y, frame.s, sample_weight=frame.w, labels=scale)
        np.testing.assert_array_equal(got.thresholds, ref.thresholds)
        assert got.statistic == ref.statistic

    def test_too_many_pairs_is_refused_with_the_number(self, client, data):
        arrays = _arrays(data)
        with pytest.raises(ValueError, match=r"more than 100 distinct \(score, true rating\)"):
            qd.optimize_thresholds(arrays["a"], arrays["score"], max_pairs=100)


class TestParquet:
    def test_directory_and_glob(self, client, data, tmp_path):
        frame = pd.DataFrame(data)
        folder = tmp_path / "ratings"
        folder.mkdir()
        for i, rows in enumerate(np.array_split(np.arange(N), 4)):
            frame.iloc[rows].to_parquet(folder / f"part-{i}.parquet")
        ref = qwkit.kappa_score(data["a"], data["b"], weights="linear", sample_weight=data["w"])
        for source in (str(folder), str(folder / "*.parquet")):
            got = qd.kappa_score("a", "b", weights="linear", sample_weight="w", data=source)
            assert got == ref
        res = qd.optimize_thresholds("a", "score", counts="counts", data=str(folder))
        np.testing.assert_array_equal(
            res.thresholds,
            qwkit.optimize_thresholds(data["a"], data["score"], counts=data["counts"]).thresholds,
        )


def _ordered(values, order):
    kind = pa.dictionary(pa.int8(), pa.string(), ordered=True)
    codes = pa.array([order.index(v) for v in values], pa.int8())
    return pa.DictionaryArray.from_arrays(codes, order).cast(kind)


class TestFiles:
    """Files named by `data`: values read as the command line reads them, and every
    error in the user's terms — the file, the column, the data row (issue 18)."""

    SCALE = ("low", "mid", "high")

    def test_declared_orders_that_differ_are_refused_everywhere(self, client, tmp_path):
        a, b = ["low", "mid", "high", "mid"], ["low", "high", "high", "mid"]
        for i, order in enumerate((list(self.SCALE), list(self.SCALE[::-1]))):
            table = pa.table({"y": _ordered(a, order), "p": _ordered(b, order), "s": [0.1] * 4})
            pq.write_table(table, tmp_path / f"{i}.parquet")
        calls = [
            lambda **kw: qd.kappa_score("y", "p", **kw),  # five sums: it gave a number
            lambda **kw: qd.kappa_score("y", "p", weights="linear", **kw),
            lambda **kw: qd.kappa_score("y", "p", weights="identity", **kw),
            lambda **kw: qd.kappa_test("y", "p", **kw),
            lambda **kw: qd.confusion_matrix("y", "p", **kw),
            lambda **kw: qd.optimize_thresholds("y", "s", **kw),
        ]
        first, second = (repr(str(tmp_path / f"{i}.parquet")) for i in (0, 1))
        for call in calls:
            with pytest.raises(qwkit.QwkitError) as caught:
                call(data=str(tmp_path))
            text = str(caught.value)
            assert f"in file {first}, but `" in text and f"in file {second};" in text, text
            assert caught.value.parameter == "labels"
            assert call(data=str(tmp_path), labels=list(self.SCALE)) is not None  # labels decide
        # one state fed batch by batch refuses a second order too
        acc = qwkit.KappaAccumulator()
        acc.update(
            pd.Categorical(a, self.SCALE, ordered=True), pd.Categorical(b, self.SCALE, ordered=True)
        )
        later = pd.Categorical(a, list(self.SCALE[::-1]), ordered=True)
        with pytest.raises(ValueError, match="but earlier batches declared"):
            acc.update(later, later)

    def test_missing_paths_and_columns_are_named(self, client, tmp_path):
        pq.write_table(pa.table({"a": [1, 2], "b": [1, 2]}), tmp_path / "x.parquet")
        for name in ("nope.parquet", "nope-*.parquet", "nope/", "nope.csv"):
            path = str(tmp_path / name)
            with pytest.raises(qwkit.QwkitError, match="neither a file, a folder nor") as caught:
                qd.kappa_score("a", "b", data=path)
            assert repr(path) in str(caught.value) and caught.value.parameter == "data"
        with pytest.raises(
            qwkit.QwkitError, match=r"`data` has no column 'c' in file .*x\.parquet"
        ):
            qd.kappa_score("a", "c", data=str(tmp_path))

    def test_csv_values_as_the_command_line_reads_them(self, tmp_path, monkeypatch):
        # '2.0' in the last rows, in a later block than the first: the rating 2
        monkeypatch.setattr(_dask_files, "CSV_BLOCK", 1 << 9)
        rng = np.random.default_rng(SEED)
        a, b = rng.integers(0, 5, 400), rng.integers(0, 5, 400)
        lines = [f"{x},{y}" for x, y in zip(a, b, strict=True)]
        lines[-2:] = [f"{x}.0,{y}.0" for x, y in zip(a[-2:], b[-2:], strict=True)]
        (tmp_path / "r.csv").write_text("a,b\n" + "\n".join(lines) + "\n")
        data = str(tmp_path / "r.csv")
        with dask.config.set(scheduler="sync"):
            for weights in WEIGHTS:
                got = qd.kappa_score("a", "b", weights=weights, data=data)
                assert got == qwkit.kappa_score(a, b, weights=weights)
            assert qd.kappa_test("a", "b", data=data).pvalue == qwkit.kappa_test(a, b).pvalue

    def test_csv_errors_name_the_file_column_and_data_row(self, tmp_path, monkeypatch):
        monkeypatch.setattr(_dask_files, "CSV_BLOCK", 1 << 9)
        good = [
            f'{i % 5},{(i + 1) % 5},"a\nb"' if i % 4 == 0 else f"{i % 5},{i % 5},c"
            for i in range(500)
        ]
        cases = [  # (record 495 = data row 496, the parameter, the message)
            ("2,abc,c", "y2", "`y2` must hold numbers; data row 496 of file {f} has 'abc'."),
            ("2,,c", "y2", "`y2` has a missing value (data row 496 of file {f})"),
            (
                "2,2,c,d",
                "data",
                "{F} is not valid CSV: data row 496 has 4 fields where the header has 3",
            ),
            (
                "9,2,c",
                "y1",
                "`y1` contains 9, which is not in `labels` [0, 1, 2, 3, 4] (data row 496 of "
                "file {f}).",
            ),
        ]
        for i, (record, parameter, message) in enumerate(cases):
            lines = list(good)
            lines[495] = record
            path = tmp_path / f"bad{i}.csv"
            path.write_text("a,b,note\n" + "\n".join(lines) + "\n")
            with dask.config.set(scheduler="sync"), pytest.raises(qwkit.QwkitError) as caught:
                qd.kappa_score("a", "b", data=str(path), labels=range(5))
            assert message.format(f=repr(str(path)), F=f"File {str(path)!r}") in str(caught.value)
            assert (caught.value.parameter, caught.value.row) == (parameter, 495)

    @pytest.mark.parametrize(
        ("name", "text", "said"),
        [
            ("s.csv", "a;b\n1;2\n", "the header looks separated by ';', but .csv files are"),
            ("t.csv", "a\tb\n1\t2\n", "the header looks tab-separated: name the file .tsv"),
            ("c.csv", "# made by hand\na,b\n1,2\n", "the header is a comment: CSV files"),
        ],
    )
    def test_a_csv_dialect_that_is_not_read_is_said(self, tmp_path, name, text, said):
        # the command line's local engine reads these; qwkit.dask says why it cannot
        (tmp_path / name).write_text(text)
        with pytest.raises(qwkit.QwkitError) as caught:
            qd.kappa_score("a", "b", data=str(tmp_path / name))
        assert said in str(caught.value) and caught.value.parameter == "data"

    def test_decimal_commas_and_other_encodings_are_said(self, tmp_path):
        (tmp_path / "d.tsv").write_text("a\tb\n1\t0,5\n2\t1,5\n")
        with pytest.raises(qwkit.QwkitError) as caught:
            qd.soft_kappa_score("a", "b", data=str(tmp_path / "d.tsv"))
        assert str(caught.value) == (
            f"`y_score` must hold numbers; data row 1 of file {str(tmp_path / 'd.tsv')!r} has "
            "'0,5' (a decimal comma? CSV files are read with decimal points)."
        )
        (tmp_path / "e.csv").write_bytes(b"a,b\n1,1\n2,\xe9\n")  # cp1252
        with pytest.raises(qwkit.QwkitError) as caught:
            qd.kappa_score("a", "b", data=str(tmp_path / "e.csv"), weights="identity")
        assert str(caught.value).startswith(
            f"File {str(tmp_path / 'e.csv')!r} is not UTF-8 text (data row 2): CSV files are"
        )

    def test_inputs_that_are_not_there_or_not_paths(self, tmp_path):
        (tmp_path / "dup.csv").write_text("a,a,b\n1,2,2\n2,1,2\n3,3,3\n")
        cases = [  # (call, parameter, message); before: a number, or a TypeError
            (
                lambda: qd.kappa_score("a", "b", data=str(tmp_path / "dup.csv")),
                "data",
                f"`data` has 2 columns named 'a' in file {str(tmp_path / 'dup.csv')!r}; "
                "rename the copies.",
            ),
            (
                lambda: qd.kappa_score("a", "b", data=5),
                "data",
                "`data` must be a dask DataFrame or a path, glob or list of paths to Parquet "
                "or CSV files; got int.",
            ),
            (
                lambda: qd.kappa_score(None, "b", data=str(tmp_path)),
                "y1",
                "`y1` must be a dask array or Series, or a column name with `data`; got None.",
            ),
            (
                lambda: qd.optimize_thresholds(da.from_array(np.arange(3)), None),
                "y_score",
                "`y_score` must be a dask array or Series, or a column name with `data`; got None.",
            ),
        ]
        for call, parameter, message in cases:
            with pytest.raises(qwkit.QwkitError) as caught:
                call()
            assert (str(caught.value), caught.value.parameter) == (message, parameter)

    def test_paths_that_fsspec_opens(self):
        # not a local path: listed and read through fsspec (its in-memory filesystem here)
        import io

        import fsspec

        fs, root = fsspec.filesystem("memory"), "/qwkit-test-fsspec"
        a, b = np.arange(300) % 5, (np.arange(300) * 7) % 5
        try:
            for i in range(3):
                rows = slice(100 * i, 100 * (i + 1))
                buf = io.BytesIO()
                pq.write_table(pa.table({"a": a[rows], "b": b[rows]}), buf)
                fs.pipe(f"{root}/pq/{i}.parquet", buf.getvalue())
                text = "\n".join(f"{x},{y}" for x, y in zip(a[rows], b[rows], strict=True))
                fs.pipe(f"{root}/csv/{i}.csv.gz", gzip.compress(f"a,b\n{text}\n".encode()))
            fs.pipe(f"{root}/pq/_SUCCESS", b"")
            ref = qwkit.kappa_score(a, b, weights="linear")
            with dask.config.set(scheduler="sync"):
                for data in (f"memory://{root}/pq", f"memory://{root}/csv/*.csv.gz"):
                    assert qd.kappa_score("a", "b", weights="linear", data=data) == ref
        finally:
            fs.rm(root, recursive=True)

    def test_parquet_rows_count_from_the_file_start(self, tmp_path, monkeypatch):
        # ten row groups, in pieces of a few: an error names the row in the file
        monkeypatch.setattr(_dask_files, "PARQUET_BYTES", 2_000)
        b = np.arange(1000) % 5
        b[999] = 7
        pq.write_table(
            pa.table({"a": np.arange(1000) % 5, "b": b}), tmp_path / "g.parquet", row_group_size=100
        )
        path = str(tmp_path / "g.parquet")
        assert (
            len(_dask_files.plan([path], _dask_pieces.Spec({"y1": "a", "y2": "b"}, "parquet"))) >= 2
        )
        with dask.config.set(scheduler="sync"), pytest.raises(qwkit.QwkitError) as caught:
            qd.kappa_score("a", "b", data=path, labels=range(5))
        assert f"(data row 1000 of file {path!r})" in str(caught.value)
        assert caught.value.row == 999

    def test_small_files_are_packed_and_errors_name_their_file(self, tmp_path, monkeypatch):
        # eight files of 300 rows: packed into pieces of several files, read by one task
        # each; an error at an item still names its own file and data row
        paths = []
        for i in range(8):
            b = np.arange(300) % 5
            if i == 4:
                b[123] = 9
            paths.append(str(tmp_path / f"p{i}.parquet"))
            pq.write_table(pa.table({"a": np.arange(300) % 5, "b": b}), paths[-1])
        spec = _dask_pieces.Spec({"y1": "a", "y2": "b"}, "parquet")
        packed = _dask_files.plan(paths, spec, cores=2)
        assert len(packed) == 1 and [p.file for p in packed[0].files] == paths
        monkeypatch.setattr(_dask_files, "MIN_PIECE_BYTES", 1)
        split = _dask_files.plan(paths, spec, cores=1)  # about four pieces per core
        assert 3 <= len(split) <= 5 and max(len(p.files) for p in split) > 1
        assert [f.file for p in split for f in p.files] == paths  # in order, each once
        with dask.config.set(scheduler="sync"), pytest.raises(qwkit.QwkitError) as caught:
            qd.kappa_score("a", "b", data=paths[:4] + paths[4:], labels=range(5))
        assert f"(data row 124 of file {paths[4]!r})" in str(caught.value)
        assert caught.value.row == 123
        good = paths[:4] + paths[5:]
        a = np.tile(np.arange(300) % 5, 7)
        assert qd.kappa_score("a", "b", data=good, weights="linear") == qwkit.kappa_score(
            a, a, weights="linear"
        )

    def test_batches_fed_in_slices(self, tmp_path, monkeypatch):
        # a batch is given to a state's update a few rows at a time: the same results,
        # and an error still names its file and data row
        monkeypatch.setattr(qd, "BATCH_ROWS", 7)
        a = np.arange(100) % 5
        b = a.copy()
        b[60] = 9
        path = str(tmp_path / "s.parquet")
        pq.write_table(pa.table({"a": a, "b": b, "w": np.linspace(0.1, 2, 100)}), path)
        with dask.config.set(scheduler="sync"):
            got = qd.kappa_score("a", "b", weights="linear", sample_weight="w", data=path)
            assert got == qwkit.kappa_score(
                a, b, weights="linear", sample_weight=np.linspace(0.1, 2, 100)
            )
            with pytest.raises(qwkit.QwkitError) as caught:
                qd.kappa_score("a", "b", data=path, weights="linear", labels=range(5))
        assert f"(data row 61 of file {path!r})" in str(caught.value)
        assert caught.value.row == 60


class TestGlobalRows:
    """An error at item 999 says index 999, not the index inside its partition."""

    def test_arrays_frames_and_series(self, client):
        a = np.arange(1000) % 5
        b = a.copy()
        b[999] = 7
        frame = dd.from_pandas(pd.DataFrame({"a": a, "b": b}), npartitions=10)
        calls = [
            lambda: qd.kappa_score(
                da.from_array(a, chunks=100), da.from_array(b, chunks=100), labels=range(5)
            ),
            lambda: qd.kappa_score("a", "b", data=frame, labels=range(5)),
            lambda: qd.kappa_test(frame.a, frame.b, labels=range(5)),
            lambda: qd.kappa_score("a", "b", data=frame, labels=range(5), compute=False).compute(),
        ]
        for call in calls:
            with pytest.raises(qwkit.QwkitError) as caught:
                call()
            assert (
                str(caught.value)
                == "`y2` contains 7, which is not in `labels` [0, 1, 2, 3, 4] (index 999)."
            )
            assert caught.value.row == 999


class TestTextWithIdentityWeights:
    def test_unordered_text_needs_no_labels_where_the_order_does_not_matter(self, client):
        rng = np.random.default_rng(SEED)
        words = np.array(["ant", "bee", "cat", "dog"])
        # partitions that see different subsets of the words
        y1 = np.concatenate([words[rng.integers(0, 2, 300)], words[rng.integers(1, 4, 300)]])
        y2 = np.concatenate([words[rng.integers(0, 3, 300)], words[rng.integers(2, 4, 300)]])
        frame = pd.DataFrame({"y1": y1, "y2": y2, "w": rng.random(600)})
        ddf = dd.from_pandas(frame, npartitions=4)
        for kw in ({}, {"sample_weight": "w"}):
            mem = {k: frame[v] for k, v in kw.items()}
            got = qd.kappa_score("y1", "y2", weights="identity", data=ddf, **kw)
            assert got == qwkit.kappa_score(y1, y2, weights="identity", **mem)
            res = qd.kappa_test("y1", "y2", weights="identity", data=ddf, **kw)
            ref = qwkit.kappa_test(y1, y2, weights="identity", **mem)
            assert (res.statistic, res.standard_error) == (ref.statistic, ref.standard_error)
            np.testing.assert_array_equal(res.labels, words)
            got = qd.confusion_matrix("y1", "y2", data=ddf, **kw)
            np.testing.assert_array_equal(got, qwkit.confusion_matrix(y1, y2, **mem))
        with pytest.raises(qwkit.QwkitError, match="with no declared order"):
            qd.kappa_score("y1", "y2", weights="linear", data=ddf)


class TestNoItems:
    """Weights that drop every row, or no rows: the in-memory function's error."""

    def test_zero_weights_and_no_rows(self, client, tmp_path):
        frame = pd.DataFrame({"a": [1, 2, 3, 1], "b": [1, 2, 2, 1], "z": [0, 0, 0, 0]})
        ddf = dd.from_pandas(frame, npartitions=2)
        for name in ("counts", "sample_weight"):
            for pair, calls in (
                (("a", "b"), (qd.kappa_score, qd.kappa_test, qd.confusion_matrix)),
                (("a", "b"), (qd.soft_kappa_score, qd.optimize_thresholds)),
            ):
                for call in calls:
                    memory = getattr(qwkit, call.__name__)
                    with pytest.raises(qwkit.QwkitError) as expected:
                        memory(frame.a, frame.b, **{name: frame.z})
                    with pytest.raises(qwkit.QwkitError) as caught:
                        call(*pair, data=ddf, **{name: "z"})
                    assert str(caught.value) == str(expected.value)
                    assert caught.value.parameter == name
        (tmp_path / "h.csv").write_text("a,b\n")
        with pytest.raises(qwkit.QwkitError, match="`y1` and `y2` are empty"):
            qd.kappa_test("a", "b", data=str(tmp_path / "h.csv"))


def test_missing_dask_names_the_extra():
    code = (
        "import sys\n"
        "sys.modules['dask'] = None\n"
        "try:\n"
        "    import qwkit.dask\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert f"Install it with: {install_command('dask')}" in out.stdout


def test_states_pickle_small(data):
    import pickle

    acc = qwkit.KappaAccumulator(weights="linear")
    acc.update(data["a"], data["b"], sample_weight=data["w"])
    # a 5×5 table with its exact Σw and Σw²: 25 cells × (36 + 74) limbs here, since the
    # weight 1e-300 beside weights near 1 spans 1,000 binades; never in proportion to n
    assert len(pickle.dumps(acc)) < 30_000
    assert pickle.loads(pickle.dumps(acc)).score() == acc.score()
    assert math.isfinite(acc.score())
