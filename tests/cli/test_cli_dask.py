"""``qwkit score PATH --engine dask``: a folder, a glob or a file of Parquet or CSV files,
read in partitions; the result is the in-memory one, to the last bit (docs/dask.md).

The default runs on dask's threaded scheduler in this process; one test goes through
``--scheduler`` to a ``distributed.LocalCluster`` started here.
"""

from __future__ import annotations

import json
import re

import dask
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from distributed import LocalCluster

import qwkit
from cli_helpers import fails, ok, run
from qwkit._integrations import _dask_files
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
        assert 1 <= out["partitions"] <= PARTS  # small files are packed into few pieces

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
        assert first["n_items"] == N and first["files"] == 1

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
        parts = json.loads(result.stdout)["partitions"]  # small files: packed into few pieces
        assert f"{parts}/{parts}" in result.stderr and "partitions" in result.stderr

    def test_errors(self, ratings, tmp_path):
        folder, csv_folder, _ = ratings
        base = ("-t", "truth", "-p", "model", "--engine", "dask")
        line = fails("score", folder, "-t", "truth", "-p", "nope", "--engine", "dask")
        assert f"'{folder}' has no column 'nope' in file '{folder / 'part-0.parquet'}'" in line
        assert "'truth', 'model', 'w', 'n'" in line
        # the files PATH names are those qwkit.dask.data_files names (one rule)
        assert f"PATH names the folder '{tmp_path}', which holds no data file" in fails(
            "score", tmp_path, *base
        )
        assert "neither a file" in fails("score", tmp_path / "none-*.parquet", *base)
        assert "neither a file" in fails("score", tmp_path / "none.parquet", *base)
        mixed = tmp_path / "mixed"
        mixed.mkdir()
        (mixed / "a.parquet").write_bytes((folder / "part-0.parquet").read_bytes())
        (mixed / "b.csv").write_bytes((csv_folder / "part-0.csv").read_bytes())
        assert "PATH mixes CSV and Parquet files" in fails("score", mixed, *base)
        line = fails("score", folder, *base, "--labels", "1,2,3")
        assert "which is not in --labels [1, 2, 3]" in line
        assert re.search(
            rf"\(data row \d+ of file '{re.escape(str(folder))}/part-\d\.parquet'\)", line
        )
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
                n_workers=1, processes=True, threads_per_worker=1, dashboard_address=":0"
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


def _records(n: int, rng) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """CSV records of two ratings with a quoted line break in every third 'note'."""
    truth = rng.integers(1, 6, n)
    model = np.clip(truth + rng.integers(-1, 2, n), 1, 5)
    notes = ['"a\nb"' if i % 3 == 0 else "c" for i in range(n)]
    return truth, model, [f"{t},{m},{c}" for t, m, c in zip(truth, model, notes, strict=True)]


class TestDaskInTheFilesTerms:
    """--engine dask reads CSV values as the local engine does, and its errors name the
    file and the data row (issue 18)."""

    ARGS = ("-t", "truth", "-p", "model")

    def _csv(self, tmp_path, records, name="r.csv"):
        path = tmp_path / name
        path.write_text("truth,model,note\n" + "\n".join(records) + "\n")
        return path

    def test_ratings_written_as_floats_in_later_blocks(self, tmp_path, monkeypatch):
        monkeypatch.setattr(_dask_files, "CSV_BLOCK", 1 << 10)  # many blocks
        truth, model, records = _records(600, np.random.default_rng(SEED))
        records[-3:] = [r.replace(",", ".0,", 1) for r in records[-3:]]  # '2.0'
        path = self._csv(tmp_path, records)
        for weights in ("quadratic", "linear"):
            local = as_json("score", path, *self.ARGS, "--weights", weights)
            dask_ = as_json("score", path, *self.ARGS, "--weights", weights, "--engine", "dask")
            _check(dask_, qwkit.kappa_test(truth, model, weights=weights))
            assert {k: dask_[k] for k in ("statistic", "standard_error", "pvalue")} == {
                k: local[k] for k in ("statistic", "standard_error", "pvalue")
            }

    def test_errors_name_the_data_row_of_a_later_block(self, tmp_path, monkeypatch):
        monkeypatch.setattr(_dask_files, "CSV_BLOCK", 1 << 10)
        _, _, records = _records(3000, np.random.default_rng(SEED))
        base = ("score", "-t", "truth", "-p", "model", "--engine", "dask")
        bad = list(records)
        bad[2993] = "9," + bad[2993].split(",", 1)[1]
        path = self._csv(tmp_path, bad, "label.csv")
        line = fails(*base[:1], path, *base[1:], "--labels", "1,2,3,4,5")
        assert line.endswith(
            f"column 'truth' contains 9, which is not in --labels [1, 2, 3, 4, 5] (data row "
            f"2994 of file '{path}')."
        )
        bad = list(records)
        bad[2993] = bad[2993].split(",", 1)[0] + ",x,c"
        line = fails(*base[:1], self._csv(tmp_path, bad, "text.csv"), *base[1:])
        assert "column 'model' must hold numbers; data row 2994 of file" in line
        assert "has 'x'. For text ratings pass --labels (in order)." in line
        bad = list(records)
        bad[2993] = "1,2,c,extra"
        line = fails(*base[:1], self._csv(tmp_path, bad, "fields.csv"), *base[1:])
        assert "is not valid CSV: data row 2994 has 4 fields where the header has 3" in line
        bad = list(records)
        bad[2993] = "1,,c"
        line = fails(*base[:1], self._csv(tmp_path, bad, "missing.csv"), *base[1:])
        assert "column 'model' has a missing value (data row 2994 of file" in line

    def test_declared_orders_that_differ_are_refused(self, tmp_path):
        folder = tmp_path / "ordered"
        folder.mkdir()
        scale = ["low", "mid", "high"]
        for i, order in enumerate((scale, scale[::-1])):
            kind = pa.dictionary(pa.int8(), pa.string(), ordered=True)
            column = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 1], pa.int8()), order)
            pq.write_table(
                pa.table({"truth": column.cast(kind), "model": column}), folder / f"{i}.parquet"
            )
        line = fails("score", folder, *self.ARGS, "--engine", "dask")
        assert (
            f"column 'truth' declares the category order ['low', 'mid', 'high'] in file "
            f"'{folder / '0.parquet'}', but column 'truth' declares ['high', 'mid', 'low'] in "
            f"file '{folder / '1.parquet'}'; one scale must hold for all the data: pass --labels."
        ) in line
        out = as_json("score", folder, *self.ARGS, "--engine", "dask", "--labels", "low,mid,high")
        assert out["statistic"] == 1.0

    def test_zero_counts_say_what_the_local_engine_says(self, tmp_path):
        path = tmp_path / "zero.csv"
        path.write_text("truth,model,n\n1,2,0\n2,2,0\n3,3,0\n")
        args = ("score", path, *self.ARGS, "--counts", "n")
        assert fails(*args, "--engine", "dask") == fails(*args)
        assert "column 'n' must not sum to zero" in fails(*args, "--engine", "dask")

    def test_text_ratings_with_identity_weights(self, tmp_path):
        scale = np.array(["cat", "dog", "fox"])
        truth, model, _ = _records(300, np.random.default_rng(SEED))
        path = tmp_path / "text.csv"
        rows = (f"{scale[t % 3]},{scale[m % 3]}" for t, m in zip(truth, model, strict=True))
        path.write_text("truth,model\n" + "\n".join(rows) + "\n")
        out = as_json("score", path, *self.ARGS, "--engine", "dask", "--weights", "identity")
        _check(out, qwkit.kappa_test(scale[truth % 3], scale[model % 3], weights="identity"))
        line = fails("score", path, *self.ARGS, "--engine", "dask")
        assert "column 'truth' must hold numbers; data row 1 of file" in line
        # numbers and text in one column are not a text scale, even where order does not matter
        path.write_text("truth,model\n1,cat\ndog,cat\n")
        line = fails("score", path, *self.ARGS, "--engine", "dask", "--weights", "identity")
        assert f"column 'truth' must hold numbers; data row 2 of file '{path}' has 'dog'" in line
