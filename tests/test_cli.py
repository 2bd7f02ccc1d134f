"""Tests of the ``qwkit`` command line, in-process with typer's CliRunner on real files.

Data: tests/data/irr_anxiety.csv and tests/data/psy_expsy_r1_r2_r3.csv (provenance in
their first line, which the CLI skips as a comment), and the red wine quality data
bundled with qwkit (Cortez et al. 2009, CC BY 4.0), from which the tests write CSV, TSV,
gzipped CSV and Parquet prediction files to tmp_path.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import qwkit
import qwkit.economics
from qwkit.cli import _columns, _io, _output
from qwkit.cli._app import app

DATA = Path(__file__).parent / "data"
ANXIETY = DATA / "irr_anxiety.csv"
EXPSY = DATA / "psy_expsy_r1_r2_r3.csv"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# R irr 0.84.1: kappa2(anxiety[, 1:2], "squared") prints Kappa = 0.297, z = 1.34,
# p-value = 0.18 (the same published value as the kappa_test docstring).
RATER1 = [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3]
RATER2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]


def run(*args, env=None):
    runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "160", **(env or {})})


def ok(*args):
    result = run(*args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def as_json(*args):
    return json.loads(ok(*args, "--json").stdout)


def fails(*args, code=1):
    """Run a failing command: exit code, one line on stderr, no traceback; usage errors
    (exit code 2) are one line too."""
    result = run(*args)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("qwkit: error: " if code == 1 else "qwkit: usage error: ")
    return lines[0]


def _expsy():
    table = pacsv.read_csv(EXPSY, read_options=pacsv.ReadOptions(skip_rows=1))
    return {c: np.array(table.column(c).to_pylist(), dtype=object) for c in table.column_names}


@pytest.fixture(scope="module")
def wine_files(tmp_path_factory):
    """Least-squares scores of the bundled red wines, in every supported format."""
    wine = qwkit.load_wine_quality("red")
    design = np.column_stack([np.ones(len(wine.y)), wine.X])
    coef, *_ = np.linalg.lstsq(design, wine.y, rcond=None)
    score = design @ coef
    rounded = np.clip(np.rint(score), 3, 8).astype(np.int64)
    rng = np.random.default_rng(20261121)
    other = np.clip(rounded + rng.integers(-1, 2, len(rounded)), 3, 8)
    table = pa.table(
        {
            "quality": wine.y,
            "ls_score": score,
            "ls_rounded": rounded,
            "noisy": other,
            "weight": rng.integers(1, 4, len(rounded)),
        }
    )
    folder = tmp_path_factory.mktemp("wine")
    files = {
        "csv": folder / "wine.csv",
        "tsv": folder / "wine.tsv",
        "parquet": folder / "wine.parquet",
        "gz": folder / "wine.csv.gz",
        "semicolon": folder / "wine.txt",
    }
    pacsv.write_csv(table, files["csv"])
    pacsv.write_csv(table, files["tsv"], write_options=pacsv.WriteOptions(delimiter="\t"))
    pacsv.write_csv(table, files["semicolon"], write_options=pacsv.WriteOptions(delimiter=";"))
    pq.write_table(table, files["parquet"])
    files["gz"].write_bytes(gzip.compress(files["csv"].read_bytes()))
    arrays = {name: table.column(name).to_numpy() for name in table.column_names}
    return files, arrays


class TestScore:
    def test_json_matches_api_and_published_value(self):
        out = as_json("score", ANXIETY, "--truth", "rater1", "--pred", "rater2")
        ref = qwkit.kappa_test(RATER1, RATER2)
        assert round(out["statistic"], 3) == 0.297  # R irr kappa2(..., "squared")
        assert round(out["statistic"] / out["standard_error_null"], 2) == 1.34
        assert round(out["pvalue"], 2) == 0.18
        assert out["statistic"] == ref.statistic
        assert out["standard_error"] == ref.standard_error
        assert (out["ci_low"], out["ci_high"]) == tuple(ref.confidence_interval(0.95))
        assert out["n_samples"] == 20
        assert out["labels"] == [1, 2, 3, 4, 5, 6]
        assert out["confusion"] == qwkit.confusion_matrix(RATER1, RATER2).tolist()
        assert (out["method"], out["confidence_level"], out["weights"]) == (
            "asymptotic",
            0.95,
            "quadratic",
        )

    @pytest.mark.parametrize("method", ["bootstrap", "percentile", "jackknife"])
    def test_interval_methods_match_api(self, method):
        out = as_json(
            "score",
            ANXIETY,
            "-t",
            "rater1",
            "-p",
            "rater2",
            "--method",
            method,
            "--ci",
            "0.9",
            "--n-resamples",
            "2000",
            "--seed",
            "7",
        )
        ref = qwkit.kappa_test(RATER1, RATER2).confidence_interval(
            0.9, method=method, n_resamples=2000, rng=7
        )
        assert (out["ci_low"], out["ci_high"]) == pytest.approx(tuple(ref), rel=1e-12)

    @pytest.mark.parametrize("weights", ["linear", "identity"])
    def test_weights(self, weights):
        out = as_json("score", ANXIETY, "-t", "rater1", "-p", "rater3", "--weights", weights)
        rater3 = pacsv.read_csv(ANXIETY, read_options=pacsv.ReadOptions(skip_rows=1))["rater3"]
        expected = qwkit.kappa_score(RATER1, rater3.to_numpy(), weights=weights)
        assert out["statistic"] == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "gz"])
    def test_every_format_reads_the_same(self, wine_files, fmt):
        files, arrays = wine_files
        out = as_json("score", files[fmt], "-t", "quality", "-p", "ls_rounded")
        assert out["statistic"] == pytest.approx(
            qwkit.kappa_score(arrays["quality"], arrays["ls_rounded"]), rel=1e-12
        )
        assert out["n_samples"] == 1599
        assert out["labels"] == [3, 4, 5, 6, 7, 8]

    def test_sep_option_for_other_extensions(self, wine_files):
        files, arrays = wine_files
        out = as_json(
            "score", files["semicolon"], "-t", "quality", "-p", "ls_rounded", "--sep", ";"
        )
        assert out["statistic"] == pytest.approx(
            qwkit.kappa_score(arrays["quality"], arrays["ls_rounded"]), rel=1e-12
        )

    def test_sample_weight_column(self, wine_files):
        files, a = wine_files
        out = as_json(
            "score", files["parquet"], "-t", "quality", "-p", "noisy", "--sample-weight", "weight"
        )
        ref = qwkit.kappa_test(a["quality"], a["noisy"], sample_weight=a["weight"])
        assert out["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert out["standard_error"] == pytest.approx(ref.standard_error, rel=1e-12)

    def test_drop_missing(self):
        out = as_json("score", EXPSY, "-t", "r1", "-p", "r2", "--drop-missing")
        data = _expsy()
        keep = np.array([v is not None for v in data["r1"]]) & np.array(
            [v is not None for v in data["r2"]]
        )
        y1, y2 = data["r1"][keep].astype(int), data["r2"][keep].astype(int)
        assert (out["n_samples"], out["rows_dropped"]) == (29, 1)
        assert out["statistic"] == pytest.approx(qwkit.kappa_score(y1, y2), rel=1e-12)

    def test_text_labels(self, tmp_path):
        path = tmp_path / "text.csv"
        names = np.array(["low", "mid", "high"])
        a = names[np.array(RATER1) % 3]
        b = names[np.array(RATER2) % 3]
        path.write_text("a,b\n" + "".join(f"{x}, {y}\n" for x, y in zip(a, b, strict=True)))
        out = as_json("score", path, "-t", "a", "-p", "b", "--labels", "low,mid,high")
        assert out["statistic"] == pytest.approx(
            qwkit.kappa_score(a, b, labels=["low", "mid", "high"]), rel=1e-12
        )
        assert out["labels"] == ["low", "mid", "high"]

    def test_wider_labels_widen_the_table(self):
        out = as_json(
            "score", ANXIETY, "-t", "rater1", "-p", "rater2", "--labels", "0,1,2,3,4,5,6,7"
        )
        assert out["labels"] == list(range(8))
        assert np.array(out["confusion"]).shape == (8, 8)
        assert out["statistic"] == pytest.approx(
            qwkit.kappa_score(RATER1, RATER2, labels=range(8)), rel=1e-12
        )

    def test_table_output(self):
        text = ok("score", ANXIETY, "-t", "rater1", "-p", "rater2").stdout
        assert "0.2968" in text
        assert "Confusion matrix" in text
        assert re.search(r"│ 2 │ 0 │ 4 │ 2 │ 0 │ 0 │ 0 │", text)

    def test_undefined_kappa_warns_on_stderr_and_prints_null(self, tmp_path):
        path = tmp_path / "constant.csv"
        path.write_text("a,b\n" + "3,3\n" * 5)
        result = ok("score", path, "-t", "a", "-p", "b", "--json")
        assert json.loads(result.stdout)["statistic"] is None
        assert "qwkit: warning:" in result.stderr


class TestCompare:
    def test_json_matches_api(self, wine_files):
        files, a = wine_files
        out = as_json("compare", files["csv"], "-t", "quality", "-p", "ls_rounded", "-p", "noisy")
        ref = qwkit.compare_kappa_test(a["quality"], a["ls_rounded"], a["noisy"])
        assert out["kappa_a"] == ref.kappa_a
        assert out["kappa_b"] == ref.kappa_b
        assert out["statistic"] == ref.statistic
        assert out["standard_error"] == ref.standard_error
        assert out["pvalue"] == ref.pvalue
        assert (out["ci_low"], out["ci_high"]) == tuple(ref.confidence_interval())
        assert out["n_samples"] == 1599

    def test_table_output(self):
        text = ok("compare", EXPSY, "-t", "r1", "-p", "r2", "-p", "r3", "--drop-missing").stdout
        data = _expsy()
        keep = np.all([[v is not None for v in data[c]] for c in ("r1", "r2", "r3")], axis=0)
        y, a, b = (data[c][keep].astype(int) for c in ("r1", "r2", "r3"))
        ref = qwkit.compare_kappa_test(y, a, b)
        assert f"{ref.statistic:.4f}" in text
        assert "29 (1 dropped)" in text

    @pytest.mark.parametrize(
        "preds", [["rater2"], ["rater2", "rater3", "rater1"], ["rater2", "rater2"]]
    )
    def test_needs_two_different_predictions(self, preds):
        args = [x for p in preds for x in ("--pred", p)]
        fails("compare", ANXIETY, "-t", "rater1", *args, code=2)


class TestThresholdsFit:
    def test_matches_api_and_writes_json(self, wine_files, tmp_path):
        files, a = wine_files
        target = tmp_path / "thresholds.json"
        out = as_json(
            "thresholds", "fit", files["parquet"], "-t", "quality", "-s", "ls_score", "-o", target
        )
        ref = qwkit.optimize_thresholds(a["quality"], a["ls_score"])
        assert out["thresholds"] == ref.thresholds.tolist()
        assert out["statistic"] == ref.statistic
        assert out["labels"] == ref.labels.tolist()
        assert json.loads(target.read_text()) == out
        assert [p.name for p in tmp_path.iterdir()] == ["thresholds.json"]

    def test_infinite_cut_points_round_trip(self, tmp_path):
        # labels 0..6 while the ratings are 1..6: the optimum leaves classes empty
        spec_path = tmp_path / "t.json"
        out = as_json(
            "thresholds",
            "fit",
            ANXIETY,
            "-t",
            "rater1",
            "-s",
            "rater2",
            "--labels",
            "0,1,2,3,4,5,6",
            "-o",
            spec_path,
        )
        ref = qwkit.optimize_thresholds(RATER1, np.array(RATER2, float), labels=range(7))
        cuts = [float(c) for c in out["thresholds"]]
        np.testing.assert_array_equal(cuts, ref.thresholds)
        assert out["thresholds"][-2:] == ["inf", "inf"]  # classes 5, 6 are left empty
        target = tmp_path / "out.csv"
        ok("thresholds", "apply", ANXIETY, "-s", "rater2", "--thresholds", spec_path, "-o", target)
        # the provenance comment line of the input is kept above the header
        assert target.read_text().splitlines()[0] == ANXIETY.read_text().splitlines()[0]
        written = pacsv.read_csv(target, read_options=pacsv.ReadOptions(skip_rows=1))
        written = written["rater2_class"].to_numpy()
        np.testing.assert_array_equal(written, ref.predict(np.array(RATER2, float)))

    def test_table_output(self, wine_files):
        files, a = wine_files
        text = ok("thresholds", "fit", files["csv"], "-t", "quality", "-s", "ls_score").stdout
        ref = qwkit.optimize_thresholds(a["quality"], a["ls_score"])
        assert f"{ref.statistic:.4f}" in text
        assert f"{ref.thresholds[0]:.6g}" in text


class TestThresholdsApply:
    @pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet"])
    def test_new_column_matches_api(self, wine_files, tmp_path, suffix):
        files, a = wine_files
        spec = tmp_path / "t.json"
        ok("thresholds", "fit", files["csv"], "-t", "quality", "-s", "ls_score", "-o", spec)
        target = tmp_path / f"out{suffix}"
        result = ok(
            "thresholds",
            "apply",
            files["csv"],
            "-s",
            "ls_score",
            "--thresholds",
            spec,
            "-o",
            target,
            "--column",
            "grade",
        )
        assert "1,599 rows" in result.stderr
        if suffix == ".parquet":
            table = pq.read_table(target)
        else:
            sep = "\t" if suffix == ".tsv" else ","
            table = pacsv.read_csv(target, parse_options=pacsv.ParseOptions(delimiter=sep))
        fit = qwkit.optimize_thresholds(a["quality"], a["ls_score"])
        expected = qwkit.apply_thresholds(a["ls_score"], fit.thresholds, labels=fit.labels)
        np.testing.assert_array_equal(table["grade"].to_numpy(), expected)
        np.testing.assert_array_equal(table["quality"].to_numpy(), a["quality"])
        assert table.column_names == [
            "quality",
            "ls_score",
            "ls_rounded",
            "noisy",
            "weight",
            "grade",
        ]

    def test_existing_column_is_an_error(self, wine_files, tmp_path):
        files, _ = wine_files
        spec = tmp_path / "t.json"
        spec.write_text(json.dumps({"thresholds": [4.5, 5.5, 6.5], "labels": [4, 5, 6, 7]}))
        line = fails(
            "thresholds",
            "apply",
            files["csv"],
            "-s",
            "ls_score",
            "--thresholds",
            spec,
            "-o",
            tmp_path / "o.csv",
            "--column",
            "quality",
        )
        assert "'quality' already exists" in line
        assert not (tmp_path / "o.csv").exists()

    @pytest.mark.parametrize(
        "content, message",
        [
            ("{not json", "is not valid JSON"),
            ('{"labels": [1, 2]}', 'no "thresholds" list'),
            ('{"thresholds": ["a"]}', "must be a list of numbers"),
            ('{"thresholds": [2.0, 1.0]}', "non-decreasing"),
        ],
    )
    def test_bad_thresholds_file(self, wine_files, tmp_path, content, message):
        files, _ = wine_files
        spec = tmp_path / "t.json"
        spec.write_text(content)
        line = fails(
            "thresholds",
            "apply",
            files["csv"],
            "-s",
            "ls_score",
            "--thresholds",
            spec,
            "-o",
            tmp_path / "o.csv",
        )
        assert message in line
        assert not (tmp_path / "o.csv").exists()


def _images(html_text: str) -> list[bytes]:
    found = re.findall(r'<img [^>]*src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html_text)
    return [base64.b64decode(x) for x in found]


class TestReport:
    def test_scores_report_is_self_contained(self, wine_files, tmp_path):
        files, a = wine_files
        target = tmp_path / "report.html"
        result = ok(
            "report",
            files["parquet"],
            "-t",
            "quality",
            "-s",
            "ls_score",
            "-o",
            target,
            "--n-resamples",
            "500",
        )
        text = target.read_text()
        images = _images(text)
        assert len(images) == 4  # thresholds, kappa + bootstrap, confusion, per class
        assert all(img.startswith(PNG_MAGIC) for img in images)
        assert text.count("<img ") == 4
        assert not re.search(r'(src|href)="(?!data:)', text)  # nothing loaded from outside
        fit = qwkit.optimize_thresholds(a["quality"], a["ls_score"])
        assert f"{fit.statistic:.4f}" in text and f"{fit.statistic:.4f}" in result.stdout
        assert [p.name for p in tmp_path.iterdir()] == ["report.html"]

    def test_predictions_report(self, tmp_path):
        target = tmp_path / "r.html"
        ok(
            "report",
            ANXIETY,
            "-t",
            "rater1",
            "-p",
            "rater2",
            "-o",
            target,
            "--method",
            "asymptotic",
            "--n-resamples",
            "300",
        )
        text = target.read_text()
        assert len(_images(text)) == 3
        ref = qwkit.kappa_test(RATER1, RATER2)
        low, high = ref.confidence_interval()
        assert f"{ref.statistic:.4f}" in text and f"{low:.4f}" in text and f"{high:.4f}" in text

    def test_thresholds_from_file(self, wine_files, tmp_path):
        files, a = wine_files
        spec = tmp_path / "t.json"
        spec.write_text(json.dumps({"thresholds": [4.5, 5.5, 6.5], "labels": [4, 5, 6, 7]}))
        target = tmp_path / "r.html"
        ok(
            "report",
            files["csv"],
            "-t",
            "quality",
            "-s",
            "ls_score",
            "--thresholds",
            spec,
            "-o",
            target,
            "--n-resamples",
            "300",
        )
        classes = qwkit.apply_thresholds(a["ls_score"], [4.5, 5.5, 6.5], labels=[4, 5, 6, 7])
        kappa = qwkit.kappa_score(a["quality"], classes)
        text = target.read_text()
        assert f"{kappa:.4f}" in text and "read from" in text

    def test_labels_must_fit_the_cut_points(self, wine_files, tmp_path):
        files, _ = wine_files
        spec = tmp_path / "t.json"
        spec.write_text(json.dumps({"thresholds": [4.5, 5.5, 6.5], "labels": [4, 5, 6, 7]}))
        line = fails(
            "report",
            files["csv"],
            "-t",
            "quality",
            "-s",
            "ls_score",
            "--thresholds",
            spec,
            "--labels",
            "3,4,5,6,7,8",
            "-o",
            tmp_path / "r.html",
        )
        assert "3 entries" in line and "needs 4 labels" in line
        assert not (tmp_path / "r.html").exists()

    @pytest.mark.parametrize("args", [[], ["-p", "rater2", "-s", "rater3"]])
    def test_needs_exactly_one_of_pred_and_score(self, tmp_path, args):
        fails("report", ANXIETY, "-t", "rater1", "-o", tmp_path / "r.html", *args, code=2)
        assert not (tmp_path / "r.html").exists()


class TestBadInput:
    """Every bad input: one line on stderr, exit code 1, no traceback, no output file."""

    def test_missing_file(self, tmp_path):
        line = fails("score", tmp_path / "nope.csv", "-t", "a", "-p", "b")
        assert "nope.csv' does not exist" in line

    def test_missing_column_lists_the_columns(self):
        line = fails("score", ANXIETY, "-t", "rater1", "-p", "rater9")
        assert "'rater9' not found" in line
        assert "'rater1', 'rater2', 'rater3'" in line

    def test_missing_column_parquet(self, wine_files):
        files, _ = wine_files
        line = fails("score", files["parquet"], "-t", "Quality", "-p", "ls_rounded")
        assert "'Quality' not found" in line and "'quality'" in line

    def test_non_numeric_value_names_the_row(self, tmp_path):
        path = tmp_path / "bad.csv"
        path.write_text("truth,pred\n1,1\n2,2\n3,three\n4,4\n")
        line = fails("score", path, "-t", "truth", "-p", "pred")
        assert "column 'pred'" in line and "data row 3" in line and "'three'" in line

    def test_non_numeric_value_far_down_a_big_file(self, tmp_path):
        rows = [f"{i % 5},{(i + 1) % 5}" for i in range(200_000)]
        rows[150_000] = "2,n/a?"
        path = tmp_path / "big.tsv"
        path.write_text("a\tb\n" + "\n".join(r.replace(",", "\t") for r in rows) + "\n")
        line = fails("score", path, "-t", "a", "-p", "b")
        assert "data row 150001" in line and "'n/a?'" in line

    def test_missing_value_without_drop(self):
        line = fails("score", EXPSY, "-t", "r1", "-p", "r2")
        assert "missing value in data row 1" in line and "--drop-missing" in line

    def test_non_integer_rating(self, wine_files):
        files, _ = wine_files
        line = fails("score", files["csv"], "-t", "quality", "-p", "ls_score")
        assert "integer" in line

    @pytest.mark.parametrize("content", ["", "a,b\n"])
    def test_empty_file(self, tmp_path, content):
        path = tmp_path / "empty.csv"
        path.write_text(content)
        line = fails("score", path, "-t", "a", "-p", "b")
        assert "empty" in line or "no data rows" in line

    def test_mismatched_labels(self):
        line = fails("score", ANXIETY, "-t", "rater1", "-p", "rater2", "--labels", "1,2,3,4,5")
        assert "column 'rater1'" in line and "data row 12" in line  # RATER1[11] == 6
        # qwkit's own error, said with the column and the file row
        assert "contains 6, which is not in --labels [1, 2, 3, 4, 5]" in line

    def test_text_labels_on_numbers_is_an_error(self):
        line = fails("score", ANXIETY, "-t", "rater1", "-p", "rater2", "--labels", "a,b")
        assert "contains '3', which is not in --labels ['a', 'b']" in line

    def test_malformed_labels_is_a_usage_error(self):
        fails("score", ANXIETY, "-t", "rater1", "-p", "rater2", "--labels", "1,,2", code=2)

    def test_unknown_extension(self, tmp_path):
        path = tmp_path / "data.dat"
        path.write_text("a,b\n1,2\n")
        assert "--sep" in fails("score", path, "-t", "a", "-p", "b")

    @pytest.mark.parametrize(
        "command",
        [
            ["report", ANXIETY, "-t", "rater1", "-p", "rater2"],
            ["thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater2"],
        ],
    )
    def test_output_in_a_missing_folder(self, tmp_path, command):
        target = tmp_path / "missing" / "out.file"
        line = fails(*command, "-o", target)
        assert "does not exist" in line and "missing" in line
        assert not (tmp_path / "missing").exists()

    def test_apply_output_in_a_missing_folder(self, tmp_path, wine_files):
        files, _ = wine_files
        spec = tmp_path / "t.json"
        spec.write_text(json.dumps({"thresholds": [5.5]}))
        fails(
            "thresholds",
            "apply",
            files["csv"],
            "-s",
            "ls_score",
            "--thresholds",
            spec,
            "-o",
            tmp_path / "nowhere" / "o.csv",
        )
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]

    def test_failure_after_start_leaves_no_output(self, tmp_path):
        # the output folder exists; the data fails only once read: nothing is written
        path = tmp_path / "bad.csv"
        path.write_text("truth,pred\n1,1\n2,x\n")
        fails("report", path, "-t", "truth", "-p", "pred", "-o", tmp_path / "r.html")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]

    def test_demo_out_in_a_missing_folder(self, tmp_path):
        line = fails("demo", "--out", tmp_path / "a" / "b")
        assert "does not exist" in line


class TestAtomicWrite:
    def test_failure_keeps_the_old_file_and_no_temporary(self, tmp_path):
        target = tmp_path / "out.txt"
        target.write_text("old")
        plan = _output.plan(str(target), kind=_output.REPORT, force=True)
        with pytest.raises(RuntimeError), _output.open_target(plan) as out:
            out.write(b"partial")
            raise RuntimeError("boom")
        assert target.read_text() == "old"
        assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]

    def test_success_replaces(self, tmp_path):
        target = tmp_path / "out.txt"
        _output.write_text(_output.plan(str(target), kind=_output.REPORT), "new")
        assert target.read_text() == "new"
        assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


class TestParseLabels:
    @pytest.mark.parametrize(
        "text, expected",
        [
            ("1,2,3", [1, 2, 3]),
            (" 0.5, 1 ,1.5", [0.5, 1.0, 1.5]),
            ("low, mid,high", ["low", "mid", "high"]),
            ("-2,-1", [-2, -1]),
        ],
    )
    def test_values(self, text, expected):
        assert _columns.parse_labels(text).tolist() == expected

    @pytest.mark.parametrize("text", ["", "1,,2", ","])
    def test_bad(self, text):
        with pytest.raises(ValueError, match="comma-separated"):
            _columns.parse_labels(text)


class TestEconomics:
    def test_writes_table_and_plots(self, tmp_path):
        out = tmp_path / "econ"
        result = ok("economics", "--out", out, "--n-repeats", "1", "--seed", "5")
        ref = qwkit.economics.simulate_economics(seed=5, n_repeats=1)
        assert "Steele (2016)" in result.stdout
        assert not re.search(r"seed ?0\d\d", result.stdout, re.IGNORECASE)
        for row in ref.rows:
            assert f"{row.qwk:.3f}" in result.stdout
        names = sorted(p.name for p in out.iterdir())
        assert "economics.csv" in names
        pngs = [n for n in names if n.endswith(".png")]
        assert pngs and all((out / n).read_bytes().startswith(PNG_MAGIC) for n in pngs)
        table = pacsv.read_csv(out / "economics.csv")
        assert table.num_rows == len(ref.rows)
        assert table["qwk"].to_pylist() == pytest.approx([r.qwk for r in ref.rows])


class TestDemo:
    def test_demo_prints_summary_and_writes_report(self, tmp_path):
        out = tmp_path / "demo"
        result = ok("demo", "--out", out)
        text = result.stdout
        assert "qwkit demo" in text and "1119 wines to fit, 480 held out" in text
        # recompute the plainest row independently: least squares, rounded
        wine = qwkit.load_wine_quality("red")
        order = np.random.default_rng(20261121).permutation(len(wine.y))
        test, train = order[:480], order[480:]
        design = np.column_stack([np.ones(len(train)), wine.X[train]])
        coef, *_ = np.linalg.lstsq(design, wine.y[train], rcond=None)
        score = coef[0] + wine.X[test] @ coef[1:]
        rounded = np.clip(np.rint(score), 3, 8)
        kappa = qwkit.kappa_score(wine.y[test], rounded)
        assert re.search(rf"least squares, rounded\s+│\s+{kappa:.4f}", text)
        cut = qwkit.optimize_thresholds(wine.y[train], design @ coef)
        assert f"in-sample QWK {cut.statistic:.4f}" in text
        report = (out / "report.html").read_text()
        images = _images(report)
        assert len(images) == 6 and all(img.startswith(PNG_MAGIC) for img in images)
        assert "Cortez" in report
        # it says why held-out exact cut points can lose to rounding: few extreme wines
        why = "Why the exact cut points can lose to plain rounding on new wines"
        n3 = int(np.count_nonzero(wine.y[train] == 3))
        for page in (" ".join(text.split()), " ".join(report.split())):
            assert why in page
            assert f"{n3} of the 1,119 training wines are grade 3" in page
        # no internal vocabulary: works are cited by author and year
        for page in (text, report):
            assert not re.search(r"seed ?0\d\d|§", page, re.IGNORECASE)
        assert "Steele (2016)" in report


class TestEntryPoints:
    def test_python_m_qwkit(self):
        result = subprocess.run(
            [sys.executable, "-m", "qwkit", "--help"], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0
        for command in ("score", "compare", "thresholds", "report", "demo", "economics"):
            assert command in result.stdout

    def test_import_qwkit_loads_no_cli_dependency(self):
        code = (
            "import sys, qwkit; print(sorted(m for m in ('typer', 'rich', 'matplotlib', "
            "'pyarrow', 'qwkit.cli') if m in sys.modules))"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert result.stdout.strip() == "[]"


def test_finite_json_only():
    # nan and inf never reach the JSON output (JSON has neither)
    from qwkit.cli._display import plain

    assert plain({"a": math.nan, "b": [np.float64(math.inf), np.int64(3)]}) == {
        "a": None,
        "b": [None, 3],
    }


class TestProgress:
    def test_progress_bars_go_to_stderr(self, wine_files, tmp_path, monkeypatch):
        # a terminal (TTY_COMPATIBLE) and every file "big": the bars are drawn on stderr
        # and the JSON on stdout stays clean
        files, a = wine_files
        monkeypatch.setattr(_io, "_PROGRESS_BYTES", 0)
        env = {"TTY_COMPATIBLE": "1"}
        result = run(
            "score",
            files["csv"],
            "-t",
            "quality",
            "-p",
            "noisy",
            "--method",
            "bootstrap",
            "--n-resamples",
            "500",
            "--json",
            env=env,
        )
        assert result.exit_code == 0, result.stderr
        out = json.loads(result.stdout)
        assert out["statistic"] == qwkit.kappa_test(a["quality"], a["noisy"]).statistic
        report = tmp_path / "r.html"
        result = run(
            "report",
            files["csv"],
            "-t",
            "quality",
            "-p",
            "noisy",
            "-o",
            report,
            "--n-resamples",
            "600",
            env=env,
        )
        assert result.exit_code == 0, result.stderr
        assert "600/600" in result.stderr  # the bootstrap bar, finished
        assert report.exists()


# ------------------------------------------------------------------ review regressions


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


SPEC_1_2_3 = {"thresholds": [1.0, 2.0], "labels": [1, 2, 3]}


def _spec(tmp_path: Path, **content) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(content))
    return path


class TestUserTextIsNotMarkup:
    """Column names, labels, paths and values print as they are: rich markup in them
    neither crashes nor disappears."""

    def test_column_name_with_a_closing_tag(self, tmp_path):
        path = _write(tmp_path / "mk.csv", "grade,model[/b]\n1,2\n3,3\n2,2\n")
        text = ok("score", path, "-t", "grade", "-p", "model[/b]").stdout
        assert "'model[/b]'" in text and "0.6667" in text
        spec = tmp_path / "a["
        spec.mkdir()
        result = ok(
            "thresholds", "fit", path, "-t", "grade", "-s", "model[/b]", "-o", spec / "b].json"
        )
        assert "'model[/b]'" in result.stdout and "b].json" in result.stdout
        assert json.loads((spec / "b].json").read_text())["score"] == "model[/b]"

    def test_text_labels_with_markup(self, tmp_path):
        path = _write(tmp_path / "lab.csv", "a,b\n[/x],[bold]\n[bold],[bold]\n[/x],[/x]\n")
        out = ok("score", path, "-t", "a", "-p", "b", "--labels", "[/x],[bold]").stdout
        assert "[/x]" in out and "[bold]" in out

    def test_nan_interval_is_shown(self, tmp_path):
        path = _write(tmp_path / "const.csv", "a,b\n3,3\n3,3\n")
        result = ok("score", path, "-t", "a", "-p", "b")
        assert "[nan, nan]" in result.stdout

    def test_report_output_path_and_names_with_markup_and_dollars(self, tmp_path):
        path = _write(
            tmp_path / "r.csv",
            "grade $a$,pred[/b]\n"
            + "".join(f"{x},{y}\n" for x, y in zip(RATER1, RATER2, strict=True)),
        )
        folder = tmp_path / "a["
        folder.mkdir()
        result = ok(
            "report",
            path,
            "-t",
            "grade $a$",
            "-p",
            "pred[/b]",
            "-o",
            folder / "b].html",
            "--method",
            "asymptotic",
            "--n-resamples",
            "200",
        )
        assert "b].html" in result.stdout
        assert "pred[/b]" in (folder / "b].html").read_text()

    def test_missing_matplotlib_hint_keeps_the_extra(self, tmp_path, monkeypatch):
        from qwkit.cli import _cmd_demo

        monkeypatch.setattr(_cmd_demo, "_has_matplotlib", lambda: False)
        out = tmp_path / "d"
        result = ok("demo", "--out", out)
        assert "pip install 'qwkit[plot]'" in result.stdout
        assert not out.exists()  # nothing to write: the folder is not even made


class TestApplyKeepsTheFile:
    """`thresholds apply` appends one column and keeps every other byte."""

    def test_text_output_is_the_input_plus_one_field(self, tmp_path):
        lines = [
            "\ufeff# provenance, with a comma\r\n",
            "# second note\r\n",
            "\r\n",
            '"id","zip",raw,note,x\r\n',
            "007,01234,1.5,NA,1.10\r\n",
            '008,00001,2.5,"a, b",\r\n',
            '009,99999,0.5,"multi\r\nline ""quoted""",3\r\n',
            "\r\n",
            "010,12345,0.2,#,x",  # no newline at the end
        ]
        path = _write(tmp_path / "in.csv", "".join(lines))
        spec = _spec(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        expected = [
            *lines[:3],
            '"id","zip",raw,note,x,raw_class\r\n',
            "007,01234,1.5,NA,1.10,2\r\n",
            '008,00001,2.5,"a, b",,3\r\n',
            '009,99999,0.5,"multi\r\nline ""quoted""",3,1\r\n',
            "\r\n",
            "010,12345,0.2,#,x,1",
        ]
        assert target.read_bytes() == "".join(expected).encode("utf-8")

    def test_other_separator_keeps_every_field(self, tmp_path):
        text = 'id,raw,note\n007,1.5,"a, b"\n008,2.5,"tab\there"\n009,0.5,\n'
        path = _write(tmp_path / "in.csv", text)
        spec = _spec(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.tsv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        assert target.read_text() == (
            'id\traw\tnote\traw_class\n007\t1.5\ta, b\t2\n008\t2.5\t"tab\there"\t3\n009\t0.5\t\t1\n'
        )

    def test_big_file_in_batches(self, tmp_path):
        # more than one 4 MiB read: the batched path must match line for line
        rng = np.random.default_rng(20261121)
        scores = rng.normal(1.5, 1.0, 300_000)
        body = "".join(f"{i:07d},{s:.5f},x\n" for i, s in enumerate(scores))
        path = _write(tmp_path / "big.csv", "# note\nid,raw,tag\n" + body)
        spec = _spec(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        classes = qwkit.apply_thresholds(np.round(scores, 5), [1.0, 2.0], labels=[1, 2, 3])
        out_lines = target.read_text().splitlines()
        in_lines = path.read_text().splitlines()
        assert out_lines[:2] == ["# note", "id,raw,tag,raw_class"]
        assert [line.rsplit(",", 1)[0] for line in out_lines[2:]] == in_lines[2:]
        assert [int(line.rsplit(",", 1)[1]) for line in out_lines[2:]] == classes.tolist()

    def test_drop_missing_drops_the_lines(self, tmp_path):
        path = _write(tmp_path / "in.csv", "id,raw\n007,1.5\n008,\n009,  \n010,NA\n011,2.5\n")
        spec = _spec(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        result = ok(
            "thresholds",
            "apply",
            path,
            "-s",
            "raw",
            "--thresholds",
            spec,
            "-o",
            target,
            "--drop-missing",
        )
        assert target.read_text() == "id,raw,raw_class\n007,1.5,2\n011,2.5,3\n"
        assert "; 3 rows with a missing score dropped" in result.stderr

    def test_parquet_keeps_column_types(self, tmp_path):
        table = pa.table(
            {
                "small": pa.array([1, 2, 3], pa.int8()),
                "when": pa.array([0, 1, 2], pa.timestamp("ms")),
                "kind": pa.array(["a", "b", "a"]).dictionary_encode(),
                "zip": pa.array(["01234", "00001", "99999"]),
                "raw": pa.array([0.5, 1.5, 2.5], pa.float32()),
            }
        )
        path = tmp_path / "in.parquet"
        pq.write_table(table, path)
        spec = _spec(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.parquet"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        written = pq.read_table(target)
        assert written.schema.remove(5).equals(table.schema)
        assert written.drop_columns(["raw_class"]).equals(table)
        assert written["raw_class"].to_pylist() == [1, 2, 3]
        csv_target = tmp_path / "out.csv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", csv_target)
        assert csv_target.read_text().splitlines()[0] == "small,when,kind,zip,raw,raw_class"
        back = pacsv.read_csv(
            csv_target, convert_options=pacsv.ConvertOptions(column_types={"zip": pa.string()})
        )
        assert back["zip"].to_pylist() == ["01234", "00001", "99999"]
        assert back["raw_class"].to_pylist() == [1, 2, 3]

    def test_drop_missing_reports_the_file_row(self, tmp_path):
        path = _write(tmp_path / "in.csv", "raw\n1\n\n 1.5\n  \n2\nx\n")
        line = fails(
            "thresholds",
            "apply",
            path,
            "-s",
            "raw",
            "--thresholds",
            _spec(tmp_path, **SPEC_1_2_3),
            "-o",
            tmp_path / "o.csv",
            "--drop-missing",
        )
        # the empty line is no row; '  ' is data row 3 (missing, dropped); 'x' is row 5
        assert "data row 5 has 'x'" in line
        assert not (tmp_path / "o.csv").exists()


class TestDuplicateColumns:
    @pytest.mark.parametrize("suffix", [".csv", ".parquet"])
    def test_repeated_column_is_an_error(self, tmp_path, suffix):
        path = tmp_path / f"dup{suffix}"
        if suffix == ".csv":
            _write(path, "raw,raw,g\n1,2,1\n2,3,2\n")
        else:
            pq.write_table(pa.table([[1, 2], [2, 3], [1, 2]], names=["raw", "raw", "g"]), path)
        line = fails("score", path, "-t", "g", "-p", "raw")
        assert line == f"qwkit: error: column 'raw' appears 2 times in '{path}'; rename the copies."
        spec = _spec(tmp_path, thresholds=[1.5])
        line = fails(
            "thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", tmp_path / "o.csv"
        )
        assert "column 'raw' appears 2 times" in line
        assert not (tmp_path / "o.csv").exists()

    def test_unused_repeated_columns_are_kept(self, tmp_path):
        path = _write(tmp_path / "dup.csv", "x,x,raw\na,b,1.5\n")
        target = tmp_path / "o.csv"
        spec = _spec(tmp_path, thresholds=[1.0])
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        assert target.read_text() == "x,x,raw,raw_class\na,b,1.5,1\n"


class TestSigterm:
    def test_guard_turns_sigterm_into_a_clean_exit(self, tmp_path):
        import os
        import signal

        import typer

        from qwkit.cli._errors import guard

        target = _output.plan(str(tmp_path / "out.txt"), kind=_output.REPORT)
        before = signal.getsignal(signal.SIGTERM)
        with pytest.raises(typer.Exit) as info, guard(), _output.open_target(target) as out:
            out.write(b"partial")
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs between bytecodes
                pass
        assert info.value.exit_code == 143
        assert list(tmp_path.iterdir()) == []
        assert signal.getsignal(signal.SIGTERM) is before  # restored after the command

    def test_terminated_command_leaves_no_file(self, tmp_path):
        target = tmp_path / "r.html"
        code = f"""
import os, signal, sys, time
from qwkit.cli import _output

def slow(target, text):
    with _output.open_target(target) as out:
        out.write(text[:100].encode())
        out.flush()
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(60)

_output.write_text = slow
sys.argv = ["qwkit", "report", {str(ANXIETY)!r}, "-t", "rater1", "-p", "rater2",
            "-o", {str(target)!r}, "--method", "asymptotic", "--n-resamples", "200"]
from qwkit.cli import main
main()
"""
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 143, result.stderr
        assert result.stderr.strip() == "qwkit: terminated"
        assert list(tmp_path.iterdir()) == []


class TestUsageErrors:
    @pytest.mark.parametrize(
        "args, hint",
        [
            (["--ci", "1.5"], "--ci"),
            (["--ci", "0.2"], "--ci"),
            (["--n-resamples", "0"], "--n-resamples"),
            (["--weights", "cubic"], "--weights"),
            (["--labels", "1,2,,3"], "--labels"),
            (["--labels", "1,1,2"], "--labels"),
            (["--labels", "low,mid,low"], "--labels"),
            (["--sep", "ab"], "--sep"),
            (["--method", "magic"], "--method"),
            (["--no-such-option"], "--no-such-option"),
        ],
    )
    def test_one_line_exit_2(self, args, hint):
        line = fails("score", ANXIETY, "-t", "rater1", "-p", "rater2", *args, code=2)
        assert hint in line and "(see 'qwkit score --help')" in line

    def test_missing_option(self):
        line = fails("score", ANXIETY, "-t", "rater1", code=2)
        assert "--pred" in line

    def test_compare_with_one_pred(self):
        line = fails("compare", ANXIETY, "-t", "rater1", "-p", "rater2", code=2)
        assert "give --pred exactly twice; got 1" in line

    def test_unknown_command(self):
        assert "No such command 'scor'" in fails("scor", code=2)

    def test_help_still_works(self):
        assert "--truth" in ok("score", "--help").stdout


class TestRowsInErrors:
    def test_non_integer_rating_names_column_and_row(self, tmp_path):
        path = _write(tmp_path / "f.csv", "grade,model\n1,2\n,3\n1.5,3\n")
        line = fails("score", path, "-t", "grade", "-p", "model", "--drop-missing")
        assert "column 'grade' must hold integer ratings; data row 3 has 1.5" in line

    def test_compare_names_the_second_model(self, tmp_path):
        path = _write(tmp_path / "f.csv", "grade,a,b\n1,2,1\n2,3,2.5\n")
        line = fails("compare", path, "-t", "grade", "-p", "a", "-p", "b")
        assert "column 'b' must hold integer ratings; data row 2 has 2.5" in line

    def test_api_errors_are_mapped_to_columns_and_rows(self):
        # from the error's attributes (parameter, row), through the kept-row map
        from qwkit.cli._errors import CliError, in_file_terms

        with (
            pytest.raises(CliError) as info,
            in_file_terms({"y_pred_b": "model b"}, np.array([0, 2, 5])),
        ):
            raise qwkit.QwkitError(
                "`y_pred_b` contains 9, which is not in `labels` [1, 2] (index 2).",
                parameter="y_pred_b",
                row=2,
                also=("labels",),
            )
        assert str(info.value) == (
            "column 'model b' contains 9, which is not in --labels [1, 2] (data row 6)."
        )

    def test_messages_are_not_parsed(self):
        # a ValueError that is not qwkit's passes through untouched (no guessing from
        # its text), and a QwkitError without a row keeps its positions as they are
        from qwkit.cli._errors import CliError, in_file_terms

        with pytest.raises(ValueError) as plain, in_file_terms({"y1": "a"}):
            raise ValueError("`y1` at index 2")
        assert type(plain.value) is ValueError and str(plain.value) == "`y1` at index 2"
        with pytest.raises(CliError) as said, in_file_terms({"y1": "a"}):
            raise qwkit.QwkitError("`y1` at index 2", parameter="y1")
        assert str(said.value) == "column 'a' at index 2"

    def test_negative_weight_names_the_row(self, tmp_path):
        path = _write(tmp_path / "w.csv", "a,b,w\n1,1,1\n2,2,-1\n")
        line = fails("score", path, "-t", "a", "-p", "b", "--sample-weight", "w")
        assert "column 'w' must be finite and non-negative; got -1.0 at data row 2" in line

    def test_blank_cell_is_missing(self, tmp_path):
        path = _write(tmp_path / "ws.csv", "g,m\n1,1\n   ,2\n2,2\n3,3\n")
        line = fails("score", path, "-t", "g", "-p", "m")
        assert "missing value in data row 2" in line
        out = as_json("score", path, "-t", "g", "-p", "m", "--drop-missing")
        assert (out["n_samples"], out["rows_dropped"]) == (3, 1)

    @pytest.mark.parametrize("value", ["0x3", "1_000", "3e", "0b1"])
    def test_only_decimal_numbers(self, tmp_path, value):
        path = _write(tmp_path / "hex.csv", f"g,m\n1,2\n3,{value}\n")
        line = fails("score", path, "-t", "g", "-p", "m")
        assert f"column 'm' must hold numbers; data row 2 has '{value}'" in line


class TestWideScale:
    def test_score_skips_the_confusion_matrix(self, tmp_path):
        path = _write(
            tmp_path / "wide.csv", "g,m\n0,0\n1000000000000,1000000000000\n0,1000000000000\n5,0\n"
        )
        y = [0, 10**12, 0, 5]
        p = [0, 10**12, 10**12, 0]
        out = as_json("score", path, "-t", "g", "-p", "m")
        assert out["statistic"] == qwkit.kappa_score(y, p) == qwkit.kappa_test(y, p).statistic
        assert round(out["statistic"], 6) == 0.5
        assert (out["confusion"], out["labels"], out["n_labels"]) == (None, None, 10**12 + 1)
        text = ok("score", path, "-t", "g", "-p", "m").stdout
        assert "confusion matrix not shown" in text and "0.5000" in text

    def test_table_up_to_30_labels_json_beyond(self, tmp_path):
        path = _write(tmp_path / "w.csv", "g,m\n0,0\n40,40\n0,40\n")
        text = ok("score", path, "-t", "g", "-p", "m").stdout
        assert "(41×41 confusion matrix not shown; see --json)" in text
        out = as_json("score", path, "-t", "g", "-p", "m")
        assert np.array(out["confusion"]).shape == (41, 41)

    def test_report_on_a_wide_scale_is_an_error(self, tmp_path):
        path = _write(tmp_path / "w.csv", "g,m\n0,0\n1000,1000\n0,1000\n")
        line = fails("report", path, "-t", "g", "-p", "m", "-o", tmp_path / "r.html")
        assert "1,001 integer labels" in line
        assert not (tmp_path / "r.html").exists()


class TestThresholdsFile:
    def _apply(self, tmp_path, spec):
        return fails(
            "thresholds",
            "apply",
            ANXIETY,
            "-s",
            "rater2",
            "--thresholds",
            spec,
            "-o",
            tmp_path / "o.csv",
        )

    @pytest.mark.parametrize(
        "content, message",
        [
            ('{"thresholds": [' + "9" * 400 + "]}", '"thresholds" must be a list of numbers'),
            ('{"thresholds": [1.5], "labels": [1, ' + "9" * 30 + "]}", "int64 range"),
            ('{"thresholds": [true]}', '"thresholds" must be a list of numbers'),
            ('{"thresholds": [1.5], "labels": [true, false]}', "true/false are neither"),
            ('{"thresholds": [1.5], "labels": [1, "a"]}', "all numbers or all text"),
            ('{"thresholds": "1.5"}', '"thresholds" must be a list of numbers'),
            ('{"thresholds": [2.0, 1.0]}', "non-decreasing"),
            ('{"thresholds": [1.0], "labels": [1, 2, 3]}', "one more entry"),
        ],
    )
    def test_bad_file_is_named(self, tmp_path, content, message):
        spec = tmp_path / "t.json"
        spec.write_text(content)
        line = self._apply(tmp_path, spec)
        assert f"thresholds file '{spec}'" in line and message in line
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]

    def test_folder(self, tmp_path):
        folder = tmp_path / "adir"
        folder.mkdir()
        assert "is a folder" in self._apply(tmp_path, folder)

    def test_report_uses_the_text_labels_of_the_file(self, tmp_path):
        names = np.array(["low", "mid", "high"])
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 3, 200)
        s = np.round(y + rng.normal(0, 0.7, 200), 3)
        path = _write(
            tmp_path / "sl.csv",
            "grade,score\n" + "".join(f"{names[a]},{b}\n" for a, b in zip(y, s, strict=True)),
        )
        spec = tmp_path / "sl.json"
        ok(
            "thresholds",
            "fit",
            path,
            "-t",
            "grade",
            "-s",
            "score",
            "--labels",
            "low,mid,high",
            "-o",
            spec,
        )
        target = tmp_path / "r.html"
        result = ok(
            "report",
            path,
            "-t",
            "grade",
            "-s",
            "score",
            "--thresholds",
            spec,
            "-o",
            target,
            "--n-resamples",
            "200",
        )
        fit = qwkit.optimize_thresholds(names[y], s, labels=names)
        kappa = qwkit.kappa_score(names[y], fit.predict(s), labels=names)
        assert f"kappa {kappa:.4f}" in result.stdout
        text = target.read_text()
        assert "low, mid, high" in text


class TestOutputs:
    def test_demo_checks_its_report_path_first(self, tmp_path):
        (tmp_path / "d1" / "report.html").mkdir(parents=True)
        result = run("demo", "--out", tmp_path / "d1")
        assert result.exit_code == 1
        assert result.stdout == ""  # failed before the work, not after printing it
        assert result.stderr.strip() == (
            f"qwkit: error: cannot write '{tmp_path / 'd1' / 'report.html'}': it is a folder."
        )

    def test_economics_checks_its_targets_first(self, tmp_path):
        out = tmp_path / "e4"
        (out / "economics_wine.png").mkdir(parents=True)
        line = fails("economics", "--out", out, "--n-repeats", "1")
        assert line == f"qwkit: error: cannot write '{out / 'economics_wine.png'}': it is a folder."
        assert [p.name for p in out.iterdir()] == ["economics_wine.png"]

    def test_staged_outputs_all_or_nothing(self, tmp_path):
        (tmp_path / "keep.txt").write_text("old")
        folder = _output.plan_folder(str(tmp_path), option="--out")

        def targets():
            return {
                n: folder.file(n, kind=_output.REPORT, force=True) for n in ("keep.txt", "b.txt")
            }

        with pytest.raises(RuntimeError), _output.staged_outputs(folder, targets()) as stage:
            (stage / "keep.txt").write_text("new")
            (stage / "b.txt").write_text("new")
            raise RuntimeError("boom")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
        assert (tmp_path / "keep.txt").read_text() == "old"
        with _output.staged_outputs(folder, targets()) as stage:
            (stage / "keep.txt").write_text("new")
            (stage / "b.txt").write_text("new")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt", "keep.txt"]
        assert (tmp_path / "keep.txt").read_text() == "new"

    def test_symlink_is_written_through_and_mode_kept(self, tmp_path):
        real = tmp_path / "real.json"
        ok("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater1", "-o", real)
        real.chmod(0o600)
        link = tmp_path / "link.json"
        link.symlink_to(real.name)
        ok("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater2", "-o", link)
        assert link.is_symlink() and link.resolve() == real
        assert json.loads(real.read_text())["score"] == "rater2"
        assert real.stat().st_mode & 0o777 == 0o600
        assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]

    @pytest.mark.parametrize(
        "level, shown", [(0.95, "95% CI"), (0.9995, "99.95% CI"), (0.999, "99.9% CI")]
    )
    def test_confidence_level_digits(self, level, shown):
        text = ok("score", ANXIETY, "-t", "rater1", "-p", "rater2", "--ci", level).stdout
        assert shown in text


class TestCommentLines:
    def test_header_whose_first_column_is_hash(self, tmp_path):
        path = _write(tmp_path / "h.csv", "#,grade,model\n1,1,2\n2,3,3\n3,2,2\n")
        out = as_json("score", path, "-t", "grade", "-p", "model")
        assert out["n_samples"] == 3 and out["statistic"] == pytest.approx(
            qwkit.kappa_score([1, 3, 2], [2, 3, 2]), rel=1e-12
        )

    def test_comment_after_a_byte_order_mark(self, tmp_path):
        path = _write(
            tmp_path / "b.csv", "\ufeff# note, with a comma\ngrade,model\n1,2\n3,3\n2,2\n"
        )
        out = as_json("score", path, "-t", "grade", "-p", "model")
        assert out["n_samples"] == 3 and out["statistic"] == pytest.approx(
            qwkit.kappa_score([1, 3, 2], [2, 3, 2]), rel=1e-12
        )


# ---------------------------------------------------------------------------- review fixes


def _multiline_csv(path: Path, n: int) -> tuple[Path, np.ndarray, np.ndarray]:
    """Every other 'note' is a quoted field with a line break in it."""
    rng = np.random.default_rng(20261121)
    grade = rng.integers(1, 6, n)
    raw = grade + rng.normal(0.0, 0.8, n)
    lines = ["note,grade,raw"]
    for i in range(n):
        note = '"two\nlines, ""quoted"""' if i % 2 == 0 else "x"
        lines.append(f"{note},{grade[i]},{float(raw[i])!r}")
    _write(path, "\n".join(lines) + "\n")
    return path, grade, raw


class TestQuotedLineBreaks:
    """A quoted field may hold a line break wherever it falls in the blocks read."""

    @pytest.mark.parametrize("block", [97, 1 << 10, 1 << 22])
    def test_score_and_apply(self, tmp_path, monkeypatch, block):
        monkeypatch.setattr(_io, "_BLOCK_BYTES", block)
        path, _, raw = _multiline_csv(tmp_path / "ml.csv", 3000)
        out = as_json("score", path, "-t", "grade", "-p", "grade")
        assert out["n_samples"] == 3000 and out["statistic"] == 1.0
        spec = tmp_path / "t.json"
        ok("thresholds", "fit", path, "-t", "grade", "-s", "raw", "-o", spec)
        cuts = json.loads(spec.read_text())["thresholds"]
        expected = qwkit.apply_thresholds(raw, cuts, labels=[1, 2, 3, 4, 5])
        for suffix in (".csv", ".tsv", ".parquet"):
            target = tmp_path / f"out{suffix}"
            ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
            if suffix == ".parquet":
                table = pq.read_table(target)
            else:
                table = pacsv.read_csv(
                    target,
                    parse_options=pacsv.ParseOptions(
                        delimiter="\t" if suffix == ".tsv" else ",", newlines_in_values=True
                    ),
                )
            assert table.num_rows == 3000
            np.testing.assert_array_equal(table.column("raw_class").to_numpy(), expected)
            assert table.column("note")[0].as_py() == 'two\nlines, "quoted"'
        # the CSV copy keeps the input's bytes, one field more per line
        copied = (tmp_path / "out.csv").read_text()
        assert copied.startswith('note,grade,raw,raw_class\n"two\nlines, ""quoted""",')


class TestSeedsAreNonNegative:
    def test_negative_seed_is_a_usage_error(self, wine_files, tmp_path):
        files, _ = wine_files
        for command in (
            ["score", files["csv"], "-t", "quality", "-p", "noisy"],
            ["compare", files["csv"], "-t", "quality", "-p", "noisy", "-p", "ls_rounded"],
            ["report", files["csv"], "-t", "quality", "-p", "noisy", "-o", tmp_path / "r.html"],
        ):
            line = fails(*command, "--seed", "-1", code=2)
            assert "--seed" in line
        for command in ("demo", "economics"):
            out = tmp_path / command
            assert "--seed" in fails(command, "--out", out, "--seed", "-3", code=2)
            assert not out.exists()  # checked before any folder is made
        assert not (tmp_path / "r.html").exists()


class TestApplyOutputFormat:
    def test_unknown_extension_is_refused(self, tmp_path):
        path = _write(tmp_path / "in.csv", "id,raw\n1,1.5\n2,2.5\n")
        spec = _spec(tmp_path, **SPEC_1_2_3)
        for name in ("out.xlsx", "out.txt"):
            line = fails(
                "thresholds",
                "apply",
                path,
                "-s",
                "raw",
                "--thresholds",
                spec,
                "-o",
                tmp_path / name,
            )
            assert "cannot tell the format of the output" in line
            assert not (tmp_path / name).exists()

    def test_other_extension_with_sep(self, tmp_path):
        path = _write(tmp_path / "in.txt", "id;raw\n1;1.5\n2;2.5\n")
        spec = _spec(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.txt"
        ok(
            "thresholds",
            "apply",
            path,
            "-s",
            "raw",
            "--thresholds",
            spec,
            "-o",
            target,
            "--sep",
            ";",
        )
        assert target.read_text() == "id;raw;raw_class\n1;1.5;2\n2;2.5;3\n"

    def test_class_counts_in_scale_order(self, tmp_path):
        path = _write(tmp_path / "in.csv", "raw\n0.5\n1.5\n1.6\n2.5\n2.6\n2.7\n")
        spec = _spec(tmp_path, thresholds=[1.0, 2.0], labels=["low", "mid", "high"])
        result = ok(
            "thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", tmp_path / "o.csv"
        )
        assert "6 rows, column 'raw_class' (low: 1, mid: 2, high: 3)" in result.stderr


class TestHelpText:
    def test_flags_take_no_value(self):
        for command in (
            ["--help"],
            ["score", "--help"],
            ["thresholds", "--help"],
            ["thresholds", "apply", "--help"],
            ["report", "--help"],
        ):
            text = ok(*command).stdout
            assert "<bool>" not in text, command
            assert "--help" in text

    def test_paragraphs_are_rewrapped(self):
        text = ok("report", "--help").stdout
        assert any("agreement class by class, and for scores" in line for line in text.splitlines())
        text = ok("thresholds", "apply", "--help").stdout
        assert any("one more field on each line" in line for line in text.splitlines())


class TestWarningWording:
    def test_api_words_become_options(self):
        from qwkit.cli._errors import cli_wording

        assert cli_wording("... is infinite. Use method='percentile'.") == (
            "... is infinite. Use --method percentile."
        )
        assert (
            cli_wording("Kappa is undefined: x. Returning `replace_undefined_by`=nan.")
            == "Kappa is undefined: x. It is reported as nan (null in --json)."
        )

    def test_undefined_kappa_warning(self, tmp_path):
        path = _write(tmp_path / "c.csv", "a,b\n2,2\n2,2\n2,2\n")
        result = ok("score", path, "-t", "a", "-p", "b")
        assert "qwkit: warning: Kappa is undefined" in result.stderr
        assert "It is reported as nan" in result.stderr
        assert "replace_undefined_by" not in result.stderr

    def test_bca_warning_names_the_option(self, tmp_path):
        # leaving out the only item rated 2 leaves a constant pair: the BCa acceleration
        # is undefined and the advice is the percentile interval
        path = _write(tmp_path / "s.csv", "a,b\n1,1\n1,1\n2,2\n")
        result = ok(
            "score", path, "-t", "a", "-p", "b", "--method", "bootstrap", "--n-resamples", "200"
        )
        assert "--method percentile" in result.stderr
        assert "method='percentile'" not in result.stderr


class TestBrokenPipe:
    """`qwkit ... | head -1`: the reader stops; the command ends quietly with 0."""

    @staticmethod
    def _closed_stdout(*args):
        proc = subprocess.Popen(
            [sys.executable, "-m", "qwkit", *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        proc.stdout.close()  # before the command prints anything
        _, err = proc.communicate(timeout=120)
        return proc.returncode, err.decode()

    def test_score(self, wine_files):
        files, _ = wine_files
        code, err = self._closed_stdout("score", files["csv"], "-t", "quality", "-p", "noisy")
        assert (code, err) == (0, "")
        code, err = self._closed_stdout(
            "score", files["csv"], "-t", "quality", "-p", "noisy", "--json"
        )
        assert (code, err) == (0, "")

    def test_demo_still_writes_its_report(self, tmp_path):
        out = tmp_path / "dp"
        code, err = self._closed_stdout("demo", "--out", out)
        assert (code, err) == (0, "")
        assert (out / "report.html").read_text().count("<img") == 6


class TestItemCounts:
    def test_n_is_items_of_positive_weight_everywhere(self, tmp_path):
        path = _write(
            tmp_path / "w.csv",
            "y,p,s,w\n1,1,0.9,1\n2,2,2.1,0\n3,3,3.2,2\n1,2,1.4,1\n2,3,2.7,0\n3,3,2.9,1\n",
        )
        score = as_json("score", path, "-t", "y", "-p", "p", "--sample-weight", "w")
        fit = as_json("thresholds", "fit", path, "-t", "y", "-s", "s", "--sample-weight", "w")
        compare = as_json("compare", path, "-t", "y", "-p", "p", "-p", "y", "--sample-weight", "w")
        assert score["n_samples"] == fit["n_samples"] == compare["n_samples"] == 4
        assert score["n_rows"] == fit["n_rows"] == compare["n_rows"] == 6
        unweighted = as_json("thresholds", "fit", path, "-t", "y", "-s", "s")
        assert unweighted["n_samples"] == unweighted["n_rows"] == 6

    def test_one_row_dropped(self, tmp_path):
        path = _write(tmp_path / "m.csv", "y,s\n1,0.9\n2,\n3,3.2\n1,1.4\n2,2.2\n")
        text = ok("thresholds", "fit", path, "-t", "y", "-s", "s", "--drop-missing").stdout
        assert "; 1 row dropped" in text


class TestReportSampleWeight:
    def test_weighted_report(self, wine_files, tmp_path):
        files, a = wine_files
        target = tmp_path / "w.html"
        result = ok(
            "report",
            files["csv"],
            "-t",
            "quality",
            "-p",
            "noisy",
            "--sample-weight",
            "weight",
            "-o",
            target,
            "--n-resamples",
            "200",
            "--method",
            "percentile",
        )
        ref = qwkit.kappa_test(a["quality"], a["noisy"], sample_weight=a["weight"])
        low, high = ref.confidence_interval(
            0.95, method="percentile", n_resamples=200, rng=20261121
        )
        assert result.stdout.startswith(
            f"kappa {ref.statistic:.4f}, 95% CI [{low:.4f}, {high:.4f}] (percentile), "
            f"{ref.n_samples:,} items"
        )
        html_text = target.read_text()
        assert "column &#x27;weight&#x27;" in html_text or "column 'weight'" in html_text
        unweighted = qwkit.kappa_score(a["quality"], a["noisy"])
        assert f"{unweighted:.4f}" != f"{ref.statistic:.4f}"

    def test_weighted_scores_fit_weighted_cut_points(self, wine_files, tmp_path):
        files, a = wine_files
        result = ok(
            "report",
            files["csv"],
            "-t",
            "quality",
            "-s",
            "ls_score",
            "--sample-weight",
            "weight",
            "-o",
            tmp_path / "s.html",
            "--n-resamples",
            "200",
        )
        fit = qwkit.optimize_thresholds(a["quality"], a["ls_score"], sample_weight=a["weight"])
        assert result.stdout.startswith(f"kappa {fit.statistic:.4f}")

    def test_bad_weight_column(self, tmp_path):
        path = _write(tmp_path / "w.csv", "y,p,w\n1,1,1\n2,2,-1\n")
        line = fails(
            "report", path, "-t", "y", "-p", "p", "--sample-weight", "w", "-o", tmp_path / "r.html"
        )
        assert "column 'w'" in line and "data row 2" in line


class TestParquetTypes:
    def test_decimal_columns(self, tmp_path):
        import decimal

        path = tmp_path / "d.parquet"
        y = [1, 2, 3, 2, 1, 3]
        p = [1, 2, 2, 2, 1, 3]
        table = pa.table(
            {
                "y": pa.array([decimal.Decimal(v) for v in y], pa.decimal128(5, 0)),
                "p": pa.array([decimal.Decimal(v) for v in p], pa.decimal128(5, 0)),
                "s": pa.array([decimal.Decimal(f"{v}.25") for v in p], pa.decimal128(6, 2)),
                "half": pa.array([decimal.Decimal("1.50")] * 6, pa.decimal128(4, 2)),
            }
        )
        pq.write_table(table, path)
        out = as_json("score", path, "-t", "y", "-p", "p")
        assert out["statistic"] == pytest.approx(qwkit.kappa_score(y, p), rel=1e-12)
        fit = as_json("thresholds", "fit", path, "-t", "y", "-s", "s")
        ref = qwkit.optimize_thresholds(y, np.array(p) + 0.25)
        assert fit["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        line = fails("score", path, "-t", "y", "-p", "half")
        assert "must hold integer ratings" in line and "1.5" in line

    def test_bool_columns_with_text_labels(self, tmp_path):
        path = tmp_path / "b.parquet"
        y = [False, True, True, False, True]
        p = [False, True, False, False, True]
        pq.write_table(pa.table({"y": y, "p": p}), path)
        ref = qwkit.kappa_score(np.array(y, int), np.array(p, int))
        for labels in ("False,True", "false,true"):
            out = as_json("score", path, "-t", "y", "-p", "p", "--labels", labels)
            assert out["statistic"] == pytest.approx(ref, rel=1e-12)
            assert out["labels"] == labels.split(",")
        assert as_json("score", path, "-t", "y", "-p", "p")["statistic"] == pytest.approx(ref)
        # the same as a CSV file spelling them True/False
        csv_path = _write(
            tmp_path / "b.csv", "y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p, strict=True))
        )
        out = as_json("score", csv_path, "-t", "y", "-p", "p", "--labels", "False,True")
        assert out["statistic"] == pytest.approx(ref, rel=1e-12)


class TestTextRatingsHint:
    def test_text_ratings_without_labels(self, tmp_path):
        path = _write(tmp_path / "t.csv", "y,p\nlow,low\nhigh,mid\n")
        line = fails("score", path, "-t", "y", "-p", "p")
        assert "data row 1 has 'low'" in line and "pass the ordered scale with --labels" in line


class TestFiguresWithoutGlyphs:
    def test_cjk_labels_give_no_warning(self, tmp_path):
        path = _write(tmp_path / "c.csv", "y,p\n" + "低,低\n中,中\n高,中\n中,低\n高,高\n" * 2)
        target = tmp_path / "c.html"
        result = ok(
            "report",
            path,
            "-t",
            "y",
            "-p",
            "p",
            "--labels",
            "低,中,高",
            "-o",
            target,
            "--n-resamples",
            "200",
        )
        assert "warning" not in result.stderr
        assert len(_images(target.read_text())) >= 3
