"""qwkit.dask on a real LocalCluster: every result equals the in-memory one, to the bit.

Two worker processes, one thread each: partitions are reduced in other processes and
their states travel pickled, so exactness does not rest on a shared address space. The
lazy results of a test are computed together (one round trip to the cluster).
"""

from __future__ import annotations

import math
import subprocess
import sys

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.delayed import Delayed
from distributed import Client, LocalCluster

import qwkit
import qwkit.dask as qd
from qwkit._extras import install_command

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
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
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
            assert got.n_samples == ref.n_samples
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
