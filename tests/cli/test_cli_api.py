"""The command line on the library's structured data: ``--json`` is the result's
``to_dict()`` plus the command's context, errors are said from the error's attributes,
``--counts`` is not ``--sample-weight``, bootstraps and refits drive progress bars, and
fitted cut points come with the kappa they will have on new data.

Data: R irr 0.84.1's ``vision`` (Stuart 1953) as a long-format count table,
tests/data/irr_vision_counts.csv (provenance in its first line), and ``anxiety``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import qwkit
from cli_helpers import ANXIETY, DATA, fails, ok, run

VISION = DATA / "irr_vision_counts.csv"
# R irr 0.84.1, anxiety[, 1:2] (as tests/cli/test_cli.py)
RATER1 = [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3]
RATER2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]


def as_json(*args, **kwargs):
    return json.loads(ok(*args, "--json", **kwargs).stdout)


def _vision():
    table = pacsv.read_csv(VISION, read_options=pacsv.ReadOptions(skip_rows=1))
    return {c: table.column(c).to_numpy() for c in table.column_names}


def _expanded(tmp_path):
    """The vision table with each row repeated Freq times (7,477 rows)."""
    v = _vision()
    reps = v["Freq"]
    path = tmp_path / "vision_rows.csv"
    pacsv.write_csv(
        pa.table({"r.eye": np.repeat(v["r.eye"], reps), "l.eye": np.repeat(v["l.eye"], reps)}),
        path,
    )
    return path


def _same_numbers(a: dict, b: dict, keys) -> None:
    for key in keys:
        assert a[key] == b[key], key


# ---------------------------------------------------------------------------- --json


class TestJsonIsToDict:
    def test_score(self):
        out = as_json("score", ANXIETY, "-t", "rater1", "-p", "rater2")
        ref = qwkit.kappa_test(RATER1, RATER2)
        expected = ref.to_dict()
        assert {k: out[k] for k in expected} == expected
        assert (out["file"], out["truth"], out["pred"]) == (str(ANXIETY), "rater1", "rater2")
        assert [out["ci_low"], out["ci_high"]] == list(ref.confidence_interval())
        assert (out["n_rows"], out["rows_dropped"], out["counts"]) == (20, 0, None)

    def test_compare(self):
        out = as_json("compare", ANXIETY, "-t", "rater1", "-p", "rater2", "-p", "rater3")
        r3 = pacsv.read_csv(ANXIETY, read_options=pacsv.ReadOptions(skip_rows=1))["rater3"]
        expected = qwkit.compare_kappa_test(RATER1, RATER2, r3.to_numpy()).to_dict()
        assert {k: out[k] for k in expected} == expected
        assert (out["pred_a"], out["pred_b"]) == ("rater2", "rater3")

    def test_thresholds_fit(self, tmp_path):
        rng = np.random.default_rng(20261121)
        y = rng.integers(1, 5, 300)
        s = y + rng.normal(0, 0.8, 300)
        path = tmp_path / "s.csv"
        pacsv.write_csv(pa.table({"y": y, "s": s}), path)
        spec_path = tmp_path / "t.json"
        out = as_json("thresholds", "fit", path, "-t", "y", "-s", "s", "--seed", "5")
        ok("thresholds", "fit", path, "-t", "y", "-s", "s", "--seed", "5", "-o", spec_path)
        fit = qwkit.optimize_thresholds(y, s)
        opt = qwkit.optimism_corrected_kappa(y, s, rng=5)
        for key in ("statistic", "n_iterations", "gap", "labels", "n_labels"):
            assert out[key] == fit.to_dict()[key], key
        assert out["thresholds"] == fit.thresholds.tolist()
        corrected = out["optimism_corrected"]
        _same_numbers(corrected, opt.to_dict(), ("statistic", "apparent", "optimism", "method"))
        assert [corrected["ci_low"], corrected["ci_high"]] == list(opt.confidence_interval())
        assert out["n_items"] == opt.n_items == 300
        assert json.loads(spec_path.read_text()) == out

    def test_labels_come_from_the_result(self, tmp_path):
        # ordered categories declare a scale with an unused top level: the JSON's labels
        # are the result's (qwkit decides the scale, the command line does not)
        path = tmp_path / "c.parquet"
        kind = pa.dictionary(pa.int8(), pa.string(), ordered=True)
        cats = pa.array(["lo", "mid", "hi", "top"])
        col = [0, 1, 2, 1, 0, 2, 2, 1]
        table = pa.table(
            {
                "a": pa.DictionaryArray.from_arrays(pa.array(col, pa.int8()), cats).cast(kind),
                "b": pa.DictionaryArray.from_arrays(pa.array(col[::-1], pa.int8()), cats).cast(
                    kind
                ),
            }
        )
        pq.write_table(table, path)
        out = as_json("score", path, "-t", "a", "-p", "b")
        assert out["labels"] == ["lo", "mid", "hi", "top"]
        assert np.array(out["confusion"]).shape == (4, 4)

    def test_nan_is_null(self, tmp_path):
        path = tmp_path / "const.csv"
        path.write_text("a,b\n" + "2,2\n" * 4)
        result = ok("score", path, "-t", "a", "-p", "b", "--json")
        out = json.loads(result.stdout)
        assert out["statistic"] is None and out["ci_low"] is None
        assert "NaN" not in result.stdout


# ---------------------------------------------------------------------------- errors


class TestErrorsFromAttributes:
    def test_counts_error_names_the_column_and_the_option(self, tmp_path):
        path = tmp_path / "c.csv"
        path.write_text("a,b,n\n1,1,2\n2,2,1.5\n1,2,1\n")
        line = fails("score", path, "-t", "a", "-p", "b", "--counts", "n")
        assert "column 'n' must be non-negative whole numbers" in line
        assert "got 1.5 at data row 2" in line and "use --sample-weight" in line

    def test_row_through_the_kept_rows(self, tmp_path):
        path = tmp_path / "d.csv"
        path.write_text("a,b\n1,1\n,2\n2,2\n3,inf\n")
        line = fails("score", path, "-t", "a", "-p", "b", "--drop-missing")
        assert line == "qwkit: error: column 'b' contains inf at data row 4; values must be finite."

    def test_score_column_of_thresholds_apply(self, tmp_path):
        spec = tmp_path / "t.json"
        spec.write_text(json.dumps({"thresholds": [1.5], "labels": [1, 2]}))
        path = tmp_path / "s.csv"
        path.write_text("s\n1.0\n2.0\ninf\n")
        line = fails("thresholds", "apply", path, "-s", "s", "--thresholds", spec, "-o", "-")
        assert "column 's' contains inf at data row 3" in line

    def test_bootstrap_option_is_named(self):
        line = fails(
            "score", ANXIETY, "-t", "rater1", "-p", "rater2", "--method", "bootstrap",
            "--n-resamples", "100000000000",
        )  # fmt: skip
        assert line.startswith("qwkit: error: --n-resamples=100,000,000,000 would need")

    def test_optimism_resamples_are_named(self, tmp_path):
        rng = np.random.default_rng(1)
        path = tmp_path / "s.csv"
        pacsv.write_csv(pa.table({"y": rng.integers(0, 3, 50), "s": rng.normal(size=50)}), path)
        line = fails("thresholds", "fit", path, "-t", "y", "-s", "s", "--optimism-resamples", "25")
        assert "--optimism-resamples counts refits" in line
        assert "a multiple of the number of folds (10); got 25" in line


# ---------------------------------------------------------------------------- --counts


class TestCounts:
    def test_vision_standard_error(self):
        # the 16 rows of R's vision table stand for 7,477 pairs of eyes: SE 0.0084 (the
        # repeated rows'), not the 0.147 of 16 survey-weighted rows
        out = as_json("score", VISION, "-t", "r.eye", "-p", "l.eye", "--counts", "Freq")
        assert out["n_items"] == 7477 and out["n_rows"] == 16
        assert round(out["standard_error"], 4) == 0.0084
        surveyed = as_json("score", VISION, "-t", "r.eye", "-p", "l.eye", "--sample-weight", "Freq")
        assert surveyed["statistic"] == out["statistic"]
        assert surveyed["standard_error"] > 0.1

    def test_counts_are_repeated_rows(self, tmp_path):
        rows = _expanded(tmp_path)
        counted = as_json(
            "score", VISION, "-t", "r.eye", "-p", "l.eye", "--counts", "Freq",
            "--method", "bootstrap", "--n-resamples", "300",
        )  # fmt: skip
        repeated = as_json(
            "score", rows, "-t", "r.eye", "-p", "l.eye", "--method", "bootstrap",
            "--n-resamples", "300",
        )  # fmt: skip
        keys = ("statistic", "standard_error", "pvalue", "n_items", "ci_low", "ci_high")
        _same_numbers(counted, repeated, keys)
        assert counted["confusion"] == repeated["confusion"]

    def test_compare_and_thresholds_take_counts(self, tmp_path):
        path = tmp_path / "c.csv"
        rows = tmp_path / "r.csv"
        rng = np.random.default_rng(20261121)
        y = rng.integers(1, 4, 40)
        a = np.clip(y + rng.integers(-1, 2, 40), 1, 3)
        s = y + rng.normal(0, 0.7, 40)
        n = rng.integers(0, 4, 40)
        pacsv.write_csv(pa.table({"y": y, "a": a, "s": s, "n": n}), path)
        pacsv.write_csv(
            pa.table({k: np.repeat(v, n) for k, v in {"y": y, "a": a, "s": s}.items()}), rows
        )
        c1 = as_json("compare", path, "-t", "y", "-p", "a", "-p", "y", "--counts", "n")
        c2 = as_json("compare", rows, "-t", "y", "-p", "a", "-p", "y")
        _same_numbers(c1, c2, ("statistic", "standard_error", "n_items"))
        t1 = as_json("thresholds", "fit", path, "-t", "y", "-s", "s", "--counts", "n")
        t2 = as_json("thresholds", "fit", rows, "-t", "y", "-s", "s")
        _same_numbers(t1, t2, ("thresholds", "statistic", "n_items"))
        _same_numbers(t1["optimism_corrected"], t2["optimism_corrected"], ("statistic",))

    def test_report_takes_counts(self, tmp_path):
        target = tmp_path / "v.html"
        result = ok(
            "report", VISION, "-t", "r.eye", "-p", "l.eye", "--counts", "Freq", "-o", target,
            "--method", "asymptotic", "--n-resamples", "200",
        )  # fmt: skip
        assert "7,477 items" in result.stdout
        assert "each row stands for that many items" in target.read_text()

    def test_exclusive_with_sample_weight(self, tmp_path):
        line = fails(
            "score", VISION, "-t", "r.eye", "-p", "l.eye", "--counts", "Freq",
            "--sample-weight", "Freq", code=2,
        )  # fmt: skip
        assert "--sample-weight" in line and "not both" in line

    @pytest.mark.parametrize(
        "command", [["score"], ["compare"], ["thresholds", "fit"], ["report"]], ids=" ".join
    )
    def test_help_says_which_to_use_when(self, command):
        text = " ".join(ok(*command, "--help").stdout.split())
        assert "--counts" in text and "--sample-weight" in text
        assert "each row stands for that many identical items" in text
        assert "survey weights" in text


# ---------------------------------------------------------------------------- progress

TERMINAL = {"TTY_COMPATIBLE": "1"}


class TestProgressBars:
    def test_score_bootstrap_bar_on_stderr_only(self):
        args = ("score", ANXIETY, "-t", "rater1", "-p", "rater2", "--method", "bootstrap")
        result = run(*args, "--n-resamples", "700", "--json", env=TERMINAL)
        assert result.exit_code == 0, result.stderr
        assert "700/700" in result.stderr and "resamples" in result.stderr
        out = json.loads(result.stdout)  # stdout: the JSON alone
        ref = qwkit.kappa_test(RATER1, RATER2).confidence_interval(
            method="bootstrap", n_resamples=700, rng=20261121
        )
        assert [out["ci_low"], out["ci_high"]] == list(ref)
        quiet = run(*args, "--n-resamples", "700", "--json")  # not a terminal: no bar
        assert quiet.stderr == "" and json.loads(quiet.stdout) == out

    def test_compare_percentile_bar(self):
        result = run(
            "compare", ANXIETY, "-t", "rater1", "-p", "rater2", "-p", "rater3",
            "--method", "percentile", "--n-resamples", "400", env=TERMINAL,
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert "400/400" in result.stderr

    def test_thresholds_fit_refits_bar(self, tmp_path):
        rng = np.random.default_rng(3)
        path = tmp_path / "s.csv"
        pacsv.write_csv(pa.table({"y": rng.integers(0, 3, 80), "s": rng.normal(size=80)}), path)
        result = run("thresholds", "fit", path, "-t", "y", "-s", "s", "--json", env=TERMINAL)
        assert result.exit_code == 0, result.stderr
        assert "200/200" in result.stderr and "refits" in result.stderr
        json.loads(result.stdout)


# ---------------------------------------------------------------------------- optimism


class TestOptimismCorrectedKappa:
    def test_printed_beside_the_in_sample_kappa(self, tmp_path):
        rng = np.random.default_rng(20261121)
        y = rng.integers(1, 5, 200)
        s = y + rng.normal(0, 1.0, 200)
        path = tmp_path / "s.csv"
        pacsv.write_csv(pa.table({"y": y, "s": s}), path)
        text = " ".join(ok("thresholds", "fit", path, "-t", "y", "-s", "s").stdout.split())
        opt = qwkit.optimism_corrected_kappa(y, s, rng=20261121)
        low, high = opt.confidence_interval()
        assert f"in-sample kappa (quadratic weights): {opt.apparent:.4f}" in text
        assert (
            f"optimism-corrected kappa: {opt.statistic:.4f}, 95% CI [{low:.4f}, {high:.4f}]" in text
        )
        assert "what these cut points will score on new data" in text

    def test_bootstrap_and_none(self, tmp_path):
        rng = np.random.default_rng(4)
        y = rng.integers(1, 4, 120)
        s = y + rng.normal(0, 1.0, 120)
        path = tmp_path / "s.csv"
        pacsv.write_csv(pa.table({"y": y, "s": s}), path)
        boot = as_json(
            "thresholds", "fit", path, "-t", "y", "-s", "s", "--optimism", "bootstrap",
            "--optimism-resamples", "50", "--seed", "9", "--ci", "0.9",
        )  # fmt: skip
        ref = qwkit.optimism_corrected_kappa(y, s, method="bootstrap", n_resamples=50, rng=9)
        assert boot["optimism_corrected"]["statistic"] == ref.statistic
        assert boot["optimism_corrected"]["ci_low"] == ref.confidence_interval(0.9)[0]
        none = as_json("thresholds", "fit", path, "-t", "y", "-s", "s", "--optimism", "none")
        assert none["optimism_corrected"] is None and none["n_items"] == 120
        text = ok("thresholds", "fit", path, "-t", "y", "-s", "s", "--optimism", "none").stdout
        assert "optimism" not in text

    def test_too_few_items_warn(self, tmp_path):
        path = tmp_path / "tiny.csv"
        path.write_text("y,s\n1,0.5\n2,1.5\n3,2.5\n1,0.7\n2,1.9\n")
        result = ok("thresholds", "fit", path, "-t", "y", "-s", "s", "--json")
        assert json.loads(result.stdout)["optimism_corrected"] is None
        assert "qwkit: warning: no optimism-corrected kappa: 5 item(s) are too few" in (
            result.stderr
        )

    def test_report_shows_it_when_cut_points_are_fitted(self, tmp_path):
        rng = np.random.default_rng(20261121)
        y = rng.integers(1, 5, 150)
        s = y + rng.normal(0, 1.0, 150)
        path = tmp_path / "s.csv"
        pacsv.write_csv(pa.table({"y": y, "s": s}), path)
        target = tmp_path / "r.html"
        result = ok(
            "report", path, "-t", "y", "-s", "s", "-o", target, "--method", "asymptotic",
            "--n-resamples", "200",
        )  # fmt: skip
        opt = qwkit.optimism_corrected_kappa(y, s, rng=20261121)
        page = target.read_text()
        assert "The kappa of these cut points on new data" in page
        assert f"{opt.statistic:.4f}" in page
        assert f"optimism-corrected kappa: {opt.statistic:.4f}" in " ".join(result.stdout.split())
        # cut points read from a file were not fitted here: nothing to correct
        spec = tmp_path / "t.json"
        ok("thresholds", "fit", path, "-t", "y", "-s", "s", "-o", spec, "--optimism", "none")
        ok(
            "report", path, "-t", "y", "-s", "s", "--thresholds", spec, "-o", target, "--force",
            "--method", "asymptotic", "--n-resamples", "200",
        )  # fmt: skip
        assert "on new data" not in target.read_text()


def test_no_json_has_nan_or_infinity(tmp_path):
    # cut points at ±inf are strings in the thresholds file and the JSON
    path = tmp_path / "e.csv"
    path.write_text("y,s\n" + "".join(f"{i % 3 + 1},{i % 2}\n" for i in range(30)))
    out = ok("thresholds", "fit", path, "-t", "y", "-s", "s", "--json").stdout
    assert "NaN" not in out and "Infinity" not in out
    assert any(isinstance(t, str) and "inf" in t for t in json.loads(out)["thresholds"])
    assert not math.isnan(json.loads(out)["statistic"])


# ---------------------------------------------------------------------------- README


def _readme_examples():
    """``$ qwkit ...`` lines of the README's command-line section and the output below
    each (dedented, trailing blanks dropped)."""
    import re
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The command line", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"\n( *)```console\n(.*?)\n *```", section, flags=re.DOTALL)
    examples = []
    for indent, body in blocks:
        lines = [line[len(indent) :] for line in body.splitlines()]
        assert lines[0].startswith("$ qwkit ")
        examples.append((shlex.split(lines[0][2:])[1:], [line.rstrip() for line in lines[1:]]))
    return examples


@pytest.mark.parametrize("args, expected", _readme_examples(), ids=lambda a: str(a)[:30])
def test_readme_examples_print_what_the_readme_shows(args, expected):
    # run from the repository's root, as the README's paths are
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    args = [str(root / a) if a.startswith(("tests/data/", "src/qwkit/data/")) else a for a in args]
    result = run(*args, env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.stderr
    shown = [line.rstrip() for line in result.stdout.rstrip("\n").splitlines()]
    shown[0] = shown[0].replace(str(root) + "/", "")  # the title names the file
    assert shown == expected
