"""``qwkit score PATH --engine dask``: a folder, a glob or a file of Parquet or CSV files,
read in partitions; the result is the in-memory one, to the last bit (docs/dask.md).

The default runs on dask's threaded scheduler in this process; one test goes through
``--scheduler`` to a ``distributed.LocalCluster`` started here.
"""

from __future__ import annotations

import json

import dask
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from distributed import LocalCluster

import qwkit
from cli_helpers import fails, ok, run
from qwkit.cli import _engine

SEED = 20261121
PARTS = 4
N = 500  # rows per part


@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    """Four Parquet files (and the same rows as CSV) in folders, and the whole columns."""
    rng = np.random.default_rng(SEED)
    folder = tmp_path_factory.mktemp("parquet")
    csv_folder = tmp_path_factory.mktemp("csv")
    parts = []
    for i in range(PARTS):
        a = rng.integers(1, 6, N)
        part = {
            "truth": a,
            "model": np.clip(a + rng.integers(-2, 3, N), 1, 5),
            "w": rng.random(N) * 2,
            "n": rng.integers(0, 4, N),
        }
        parts.append(part)
        pq.write_table(pa.table(part), folder / f"part-{i}.parquet")
        pacsv.write_csv(pa.table(part), csv_folder / f"part-{i}.csv")
    whole = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return folder, csv_folder, whole


def as_json(*args, **kwargs):
    return json.loads(ok(*args, "--json", **kwargs).stdout)


def _check(out: dict, ref: qwkit.KappaTestResult) -> None:
    expected = ref.to_dict()
    assert {k: out[k] for k in expected} == expected


class TestEngineDask:
    def test_folder_equals_in_memory(self, ratings):
        folder, _, whole = ratings
        out = as_json("score", folder, "-t", "truth", "-p", "model", "--engine", "dask")
        ref = qwkit.kappa_test(whole["truth"], whole["model"])
        _check(out, ref)
        assert [out["ci_low"], out["ci_high"]] == list(ref.confidence_interval())
        assert (out["engine"], out["scheduler"], out["files"]) == ("dask", "threads", PARTS)
        assert out["partitions"] >= PARTS

    def test_glob_file_and_csv(self, ratings):
        folder, csv_folder, whole = ratings
        ref = qwkit.kappa_test(whole["truth"], whole["model"], weights="linear")
        for path in (folder / "part-*.parquet", csv_folder):
            out = as_json(
                "score", path, "-t", "truth", "-p", "model", "--engine", "dask",
                "--weights", "linear",
            )  # fmt: skip
            _check(out, ref)
        first = as_json("score", folder / "part-0.parquet", "-t", "truth", "-p", "model",
                        "--engine", "dask")  # fmt: skip
        assert first["n_samples"] == N and first["files"] == 1

    def test_item_weights_and_bootstrap(self, ratings):
        folder, _, whole = ratings
        args = ("score", folder, "-t", "truth", "-p", "model", "--engine", "dask")
        counted = as_json(*args, "--counts", "n", "--method", "bootstrap", "--n-resamples", "300")
        ref = qwkit.kappa_test(whole["truth"], whole["model"], counts=whole["n"])
        _check(counted, ref)
        boot = ref.confidence_interval(method="bootstrap", n_resamples=300, rng=SEED)
        assert [counted["ci_low"], counted["ci_high"]] == list(boot)
        weighted = as_json(*args, "--sample-weight", "w")
        _check(weighted, qwkit.kappa_test(whole["truth"], whole["model"], sample_weight=whole["w"]))
        # a merged table keeps no rows to resample with unequal survey weights
        line = fails(*args, "--sample-weight", "w", "--method", "bootstrap")
        assert "resample the rows themselves" in line and "column 'w'" in line

    def test_table_and_progress(self, ratings):
        folder, _, whole = ratings
        args = ("score", folder, "-t", "truth", "-p", "model", "--engine", "dask")
        text = ok(*args).stdout
        assert f"{qwkit.kappa_score(whole['truth'], whole['model']):.4f}" in text
        assert "confusion matrix not computed with --engine dask" in text
        result = run(*args, "--json", env={"TTY_COMPATIBLE": "1"})
        assert result.exit_code == 0, result.stderr
        assert f"{PARTS}/{PARTS}" in result.stderr and "partitions" in result.stderr
        json.loads(result.stdout)

    def test_errors(self, ratings, tmp_path):
        folder, csv_folder, _ = ratings
        base = ("-t", "truth", "-p", "model", "--engine", "dask")
        line = fails("score", folder, "-t", "truth", "-p", "nope", "--engine", "dask")
        assert "column 'nope' not found" in line and "'truth', 'model', 'w', 'n'" in line
        assert "holds no .parquet" in fails("score", tmp_path, *base)
        assert "holds no .parquet" in fails("score", tmp_path / "none-*.parquet", *base)
        assert "neither a file" in fails("score", tmp_path / "none.parquet", *base)
        mixed = tmp_path / "mixed"
        mixed.mkdir()
        (mixed / "a.parquet").write_bytes((folder / "part-0.parquet").read_bytes())
        (mixed / "b.csv").write_bytes((csv_folder / "part-0.csv").read_bytes())
        assert "mixes Parquet and CSV" in fails("score", mixed, *base)
        line = fails("score", folder, *base, "--labels", "1,2,3")
        assert "which is not in --labels [1, 2, 3]" in line
        assert "of one of the partitions" in line
        fails("score", "-", *base, code=2)
        fails("score", folder, *base, "--drop-missing", code=2)
        fails("score", folder, *base, "--sep", ";", code=2)
        fails("score", folder / "part-0.parquet", "-t", "truth", "-p", "model",
              "--scheduler", "tcp://127.0.0.1:1", code=2)  # fmt: skip

    def test_scheduler_address_of_a_cluster(self, ratings):
        folder, _, whole = ratings
        with (
            dask.config.set({"distributed.worker.daemon": False}),
            LocalCluster(
                n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None
            ) as cluster,
        ):
            out = as_json(
                "score", folder, "-t", "truth", "-p", "model", "--engine", "dask",
                "--scheduler", cluster.scheduler_address, "--counts", "n",
            )  # fmt: skip
        _check(out, qwkit.kappa_test(whole["truth"], whole["model"], counts=whole["n"]))
        assert out["scheduler"] == cluster.scheduler_address

    def test_unreachable_scheduler(self, ratings, monkeypatch):
        monkeypatch.setattr(_engine, "CONNECT_TIMEOUT", "1s")
        folder, _, _ = ratings
        line = fails(
            "score", folder, "-t", "truth", "-p", "model", "--engine", "dask",
            "--scheduler", "tcp://127.0.0.1:9",
        )  # fmt: skip
        assert "cannot connect to the dask scheduler at tcp://127.0.0.1:9" in line
