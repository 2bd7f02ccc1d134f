"""``qwkit score PATH --engine duckdb``: DuckDB counts the table of a folder, a glob or a
file of Parquet or CSV files; the result is the in-memory one, to the last bit
(docs/engines.md)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import qwkit
from cli_helpers import as_json, fails, ok

SEED = 20261121
PARTS = 3
N = 400


@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    rng = np.random.default_rng(SEED)
    folder = tmp_path_factory.mktemp("parquet")
    csv_folder = tmp_path_factory.mktemp("csv")
    parts = []
    for i in range(PARTS):
        a = rng.integers(1, 6, N)
        part = {
            "truth": a,
            "model": np.clip(a + rng.integers(-2, 3, N), 1, 5),
            "n": rng.integers(0, 4, N),
        }
        parts.append(part)
        pq.write_table(pa.table(part), folder / f"part-{i}.parquet")
        pacsv.write_csv(pa.table(part), csv_folder / f"part-{i}.csv")
    whole = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return folder, csv_folder, whole


ARGS = ("-t", "truth", "-p", "model", "--engine", "duckdb")


def test_a_folder_a_glob_and_csv_equal_the_local_engine(ratings):
    folder, csv_folder, whole = ratings
    ref = qwkit.kappa_test(whole["truth"], whole["model"])
    for path in (folder, f"{folder}/*.parquet", csv_folder):
        out = as_json("score", path, *ARGS)
        assert {k: out[k] for k in ref.to_dict()} == ref.to_dict()
        assert [out["ci_low"], out["ci_high"]] == list(ref.confidence_interval())
        assert out["confusion"] == qwkit.confusion_matrix(whole["truth"], whole["model"]).tolist()
        assert out["engine"] == "duckdb"
    out = as_json("score", folder, *ARGS, "--counts", "n", "--weights", "linear")
    ref = qwkit.kappa_test(whole["truth"], whole["model"], counts=whole["n"], weights="linear")
    assert {k: out[k] for k in ref.to_dict()} == ref.to_dict()
    text = ok("score", folder, *ARGS).stdout
    assert "(duckdb)" in text and "Confusion matrix" in text


def test_errors_are_said_in_the_command_lines_words(ratings, tmp_path):
    folder, _, _ = ratings
    line = fails("score", folder, "-t", "truth", "-p", "nope", "--engine", "duckdb")
    assert line == (
        f"qwkit: error: '{folder}' has no column 'nope'; its columns are ['truth', 'model', 'n']."
    )
    missing = tmp_path / "missing.parquet"
    pq.write_table(pa.table({"truth": pa.array([1, 2, None, 3]), "model": [1, 2, 2, 3]}), missing)
    line = fails("score", missing, *ARGS)
    assert line == (
        "qwkit: error: column 'truth' has missing values; every item needs both ratings: "
        "pass --nan-policy omit to leave those rows out."
    )
    out = as_json("score", missing, *ARGS, "--drop-missing")
    assert out["n_items"] == 3
    line = fails("score", folder, *ARGS, "--labels", "1,2,3")
    assert "which is not in --labels [1, 2, 3]" in line
    assert "--sample-weight" in fails("score", folder, *ARGS, "--sample-weight", "n", code=2)
    assert "--sep" in fails("score", folder, *ARGS, "--sep", ";", code=2)
    assert "standard input" in fails("score", "-", *ARGS, code=2)
