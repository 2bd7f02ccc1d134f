"""Tests of the ``qwkit`` commands, in-process with typer's CliRunner on real files.

Data: tests/data/irr_anxiety.csv and tests/data/psy_expsy_r1_r2_r3.csv (provenance in
their first line, which the CLI skips as a comment), and the red wine quality data
bundled with qwkit (Cortez et al. 2009, CC BY 4.0), from which the tests write CSV, TSV,
gzipped CSV and Parquet prediction files to tmp_path (``cli_helpers.wine_files``).
Reading and writing files: test_cli_files.py; how the command line behaves (errors,
signals, words): test_cli_behaviour.py.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import qwkit
import qwkit.economics
from cli_helpers import (
    ANXIETY,
    EXPSY,
    PNG_MAGIC,
    RATER1,
    RATER2,
    as_json,
    expsy_columns,
    fails,
    ok,
    png_images,
    run,
    write_wine_files,
)
from qwkit.cli import _columns, _io, _output


@pytest.fixture(scope="module")
def wine_files(tmp_path_factory):
    return write_wine_files(tmp_path_factory.mktemp("wine"))


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
        assert out["n_items"] == 20
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
        assert out["n_items"] == 1599
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
        data = expsy_columns()
        keep = np.array([v is not None for v in data["r1"]]) & np.array(
            [v is not None for v in data["r2"]]
        )
        y1, y2 = data["r1"][keep].astype(int), data["r2"][keep].astype(int)
        assert (out["n_items"], out["rows_dropped"]) == (29, 1)
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
        assert out["n_items"] == 1599

    def test_table_output(self):
        text = ok("compare", EXPSY, "-t", "r1", "-p", "r2", "-p", "r3", "--drop-missing").stdout
        data = expsy_columns()
        keep = np.all([[v is not None for v in data[c]] for c in ("r1", "r2", "r3")], axis=0)
        y, a, b = (data[c][keep].astype(int) for c in ("r1", "r2", "r3"))
        ref = qwkit.compare_kappa_test(y, a, b)
        assert f"{ref.statistic:.4f}" in text
        assert "29 (1 dropped)" in text

    @staticmethod
    def _models(tmp_path):
        rng = np.random.default_rng(20261121)
        y = rng.integers(1, 6, 200)
        cols = {
            "y": y,
            "m1": np.clip(y + rng.integers(-1, 2, 200), 1, 5),
            "m2": np.clip(y + rng.integers(-2, 3, 200), 1, 5),
            "m3": rng.integers(1, 6, 200),
            "m4": np.clip(y + rng.integers(0, 2, 200), 1, 5),
        }
        path = tmp_path / "models.csv"
        path.write_text(
            "y,m1,m2,m3,m4\n"
            + "".join(
                ",".join(str(v) for v in row) + "\n" for row in zip(*cols.values(), strict=True)
            )
        )
        return path, cols

    @pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_by"])
    def test_many_models_json_is_the_api(self, tmp_path, correction):
        # issue 18: every pair of any number of models, p-values adjusted
        path, cols = self._models(tmp_path)
        preds = ["m1", "m2", "m3", "m4"]
        out = as_json("compare", path, "-t", "y", *[x for m in preds for x in ("-p", m)],
                      "--correction", correction)  # fmt: skip
        ref = qwkit.pairwise_compare_kappa_test(
            cols["y"], {m: cols[m] for m in preds}, correction=correction
        )
        expected = ref.to_dict()
        for entry, one in zip(expected["comparisons"], ref.comparisons, strict=True):
            entry["ci_low"], entry["ci_high"] = one.confidence_interval()
        assert {k: out[k] for k in expected} == expected
        assert (out["truth"], out["preds"], out["n_rows"]) == ("y", preds, 200)
        assert len(out["comparisons"]) == 6 and out["correction"] == correction

    def test_many_models_table(self, tmp_path):
        path, cols = self._models(tmp_path)
        text = ok("compare", path, "-t", "y", "-p", "m1", "-p", "m2", "-p", "m3").stdout
        ref = qwkit.pairwise_compare_kappa_test(cols["y"], {m: cols[m] for m in ("m1", "m2", "m3")})
        assert "3 models against 'y'" in text and "p (Holm)" in text
        assert "'m1' − 'm3'" in text
        for kappa, adjusted in zip(ref.kappas, ref.pvalue_adjusted, strict=True):
            assert f"{kappa:.4f}" in text and f"{adjusted:.4g}" in text
        assert "adjusted for the 3 pairs" in " ".join(text.split())

    def test_many_models_errors_name_the_column(self, tmp_path):
        path = tmp_path / "bad.csv"
        path.write_text("y,a,b,c\n1,1,2,1\n2,2,2,2.5\n3,3,2,3\n")
        line = fails(
            "compare", path, "-t", "y", "-p", "a", "-p", "b", "-p", "c", "--weights", "linear"
        )
        assert "column 'c' holds real-valued scores (data row 2 has 2.5)" in line
        assert "--weights quadratic" in line
        path.write_text("y,a,b,c\n1,1,2,1\n2,2,2,7\n3,3,2,3\n")
        line = fails(
            "compare", path, "-t", "y", "-p", "a", "-p", "b", "-p", "c", "--labels", "1,2,3"
        )
        assert "column 'c' contains 7, which is not in --labels" in line and "data row 2" in line

    @pytest.mark.parametrize(
        "preds", [["rater2"], ["rater2", "rater3", "rater2"], ["rater2", "rater2"]]
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


class TestEmptyClasses:
    """Issue 18: cut points that leave a class empty printed ``(-inf, -inf]``; the class
    is flagged instead (table, a line, JSON, and the report's warning box)."""

    @staticmethod
    def _file(tmp_path):
        # as in HANNA: class 1 is rated, but its few items score among class 2's
        rng = np.random.default_rng(20261121)
        y = rng.choice([1, 2, 3, 4], p=[0.03, 0.3, 0.47, 0.2], size=300)
        score = 0.8 * y + rng.normal(0, 0.9, 300)
        score[y == 1] = rng.uniform(1.5, 2.5, (y == 1).sum())
        path = tmp_path / "hanna_like.csv"
        pacsv.write_csv(pa.table({"human": y, "llm": score}), path)
        return path, y, score

    def test_thresholds_fit_flags_the_class(self, tmp_path):
        path, y, score = self._file(tmp_path)
        ref = qwkit.optimize_thresholds(y, score)
        assert ref.empty_classes.tolist() == [1]
        args = ("thresholds", "fit", path, "-t", "human", "-s", "llm", "--optimism-resamples", "20")
        text = " ".join(ok(*args).stdout.split())
        assert "(-inf, -inf]" not in text and "│ 1 │ none (empty) │" in text
        assert (
            "no score is rounded to class 1: the kappa-optimal cut points leave it empty "
            "(kappa is highest without it)." in text
        )
        out = as_json(*args)
        assert out["empty_classes"] == [1] and out["thresholds"][0] == "-inf"

    def test_report_flags_the_class(self, tmp_path):
        path, *_ = self._file(tmp_path)
        target = tmp_path / "r.html"
        ok("report", path, "-t", "human", "-s", "llm", "-o", target, "--method", "asymptotic",
           "--optimism-resamples", "20")  # fmt: skip
        page = target.read_text()
        flag = "No score is rounded to class 1: the kappa-optimal cut points leave it empty"
        assert 'id="warnings"' in page and page.count(flag) == 2  # the box and the section
        assert "<td>none (empty)</td>" in page and "-inf, -inf" not in page
        spec = tmp_path / "t.json"
        ok("thresholds", "fit", path, "-t", "human", "-s", "llm", "-o", spec,
           "--optimism", "none")  # fmt: skip
        ok("report", path, "-t", "human", "-s", "llm", "--thresholds", spec, "-o", target,
           "--method", "asymptotic", "--force")  # fmt: skip
        assert "No score is rounded to class 1: the cut points leave it empty." in (
            target.read_text()
        )


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
        images = png_images(text)
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
        assert len(png_images(text)) == 3
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
        assert "missing value in data row 1" in line and "--nan-policy omit" in line

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
        line = fails("demo", "--output", tmp_path / "a" / "b")
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
        result = ok("economics", "--output", out, "--n-repeats", "1", "--seed", "5")
        ref = qwkit.economics.simulate_economics(rng=5, n_repeats=1)
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
        result = ok("demo", "--output", out)
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
        images = png_images(report)
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
        # HANNA: may ChatGPT stand in for a crowd rater? The numbers are the API's
        hanna = qwkit.load_hanna()
        flat, page = " ".join(text.split()), " ".join(report.split())
        assert "May ChatGPT stand in for a crowd rater?" in flat
        assert "May ChatGPT stand in for a crowd rater? (HANNA)" in report
        rows = {}
        for code, name in hanna.criteria.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)  # PRMSE
                res = qwkit.evaluate_scorer(
                    hanna.human[code], hanna.chatgpt[code], pairs="all", groups=hanna.system
                )
            alt = qwkit.alt_test(hanna.human[code], hanna.chatgpt[code], alignment="kappa",
                                 epsilon=0.1)  # fmt: skip
            d = res.degradation
            low, high = d.confidence_interval()
            verdict = {c.name: c.verdict for c in res.criteria}
            rows[name] = (d, alt, verdict)
            line = next(x for x in text.splitlines() if x.strip().startswith(name + " "))
            cells = [c.strip() for c in line.split("│")]
            assert cells == [
                name, f"{d.human_human:.3f}", f"{d.human_machine:.3f}", f"{d.statistic:+.3f}",
                f"[{low:.2f}, {high:.2f}]", verdict["degradation"],
                "pass" if alt.passed else "fail",
            ]  # fmt: skip
            assert f"<td>{name}</td>" in report
        passed = [n for n, (_, _, v) in rows.items() if v["degradation"] == "pass"]
        better = [n for n, (d, _, _) in rows.items() if d.confidence_interval()[0] > 0]
        assert f"passes on {len(passed)} of 6 criteria" in flat
        assert f"on {len(better)} of 6 ({', '.join(better[:-1])} and {better[-1]})" in flat
        crowd = [d.human_human for d, _, _ in rows.values()]
        kappa_ok = sum(v["QWK"] == "pass" for _, _, v in rows.values())
        assert (
            f"QWK >= 0.70 passes on {kappa_ok} of 6 criteria (two crowd workers agree at kappa "
            f"{min(crowd):.2f} to {max(crowd):.2f})"
        ) in flat
        assert "Chhun" in page and "qwkit evaluate" in page


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
