"""How the command line behaves: user text is never markup, signals end it cleanly,
usage errors and data errors are one line (with the column and the file row), help and
warnings in its own words, a closed pipe is not an error, item counts and weights.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import qwkit
import qwkit.economics
from cli_helpers import (
    ANXIETY,
    RATER1,
    RATER2,
    as_json,
    fails,
    ok,
    png_images,
    write_file,
    write_wine_files,
)
from qwkit._base._extras import install_command
from qwkit.cli import _output
from qwkit.cli._app import app


@pytest.fixture(scope="module")
def wine_files(tmp_path_factory):
    return write_wine_files(tmp_path_factory.mktemp("wine"))


class TestUserTextIsNotMarkup:
    """Column names, labels, paths and values print as they are: rich markup in them
    neither crashes nor disappears."""

    def test_column_name_with_a_closing_tag(self, tmp_path):
        path = write_file(tmp_path / "mk.csv", "grade,model[/b]\n1,2\n3,3\n2,2\n")
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
        path = write_file(tmp_path / "lab.csv", "a,b\n[/x],[bold]\n[bold],[bold]\n[/x],[/x]\n")
        out = ok("score", path, "-t", "a", "-p", "b", "--labels", "[/x],[bold]").stdout
        assert "[/x]" in out and "[bold]" in out

    def test_nan_interval_is_shown(self, tmp_path):
        path = write_file(tmp_path / "const.csv", "a,b\n3,3\n3,3\n")
        result = ok("score", path, "-t", "a", "-p", "b")
        assert "[nan, nan]" in result.stdout

    def test_report_output_path_and_names_with_markup_and_dollars(self, tmp_path):
        path = write_file(
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
        result = ok("demo", "--output", out)
        assert install_command("plot") in " ".join(result.stdout.split())
        assert not out.exists()  # nothing to write: the folder is not even made


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
        assert "give --pred at least twice (once per model); got 1" in line

    def test_unknown_command(self):
        assert "No such command 'scor'" in fails("scor", code=2)

    def test_help_still_works(self):
        assert "--truth" in ok("score", "--help").stdout


class TestRowsInErrors:
    def test_non_integer_rating_names_column_and_row(self, tmp_path):
        path = write_file(tmp_path / "f.csv", "grade,model\n1,2\n,3\n1.5,3\n")
        line = fails("score", path, "-t", "grade", "-p", "model", "--drop-missing")
        assert "column 'grade' must hold integer ratings; data row 3 has 1.5" in line
        # the hint names an option that exists (it said --score, which `score` lacks)
        assert "`qwkit thresholds fit --score COLUMN`" in line and "--labels" in line

    def test_one_column_is_not_two_raters(self, tmp_path):
        path = write_file(tmp_path / "f.csv", "grade,model\n1,2\n2,3\n")
        line = fails("score", path, "-t", "grade", "-p", "grade", code=2)
        assert "column 'grade' is given to both --truth and --pred" in line

    def test_compare_names_the_second_model(self, tmp_path):
        path = write_file(tmp_path / "f.csv", "grade,a,b\n1,2,1\n2,3,2.5\n")
        line = fails("compare", path, "-t", "grade", "-p", "a", "-p", "b", "--weights", "identity")
        assert "column 'b' holds real-valued scores (data row 2 has 2.5)" in line
        path = write_file(tmp_path / "g.csv", "grade,a,b\n1,2,1\n2,3,2\n2.5,3,2\n")
        line = fails("compare", path, "-t", "grade", "-p", "a", "-p", "b", "--weights", "linear")
        assert "column 'grade' holds real-valued scores (data row 3 has 2.5)" in line

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
        path = write_file(tmp_path / "w.csv", "a,b,w\n1,1,1\n2,2,-1\n")
        line = fails("score", path, "-t", "a", "-p", "b", "--sample-weight", "w")
        assert "column 'w' must be finite and non-negative; got -1.0 at data row 2" in line

    def test_blank_cell_is_missing(self, tmp_path):
        path = write_file(tmp_path / "ws.csv", "g,m\n1,1\n   ,2\n2,2\n3,3\n")
        line = fails("score", path, "-t", "g", "-p", "m")
        assert "missing value in data row 2" in line
        out = as_json("score", path, "-t", "g", "-p", "m", "--drop-missing")
        assert (out["n_items"], out["rows_dropped"]) == (3, 1)

    @pytest.mark.parametrize("value", ["0x3", "1_000", "3e", "0b1"])
    def test_only_decimal_numbers(self, tmp_path, value):
        path = write_file(tmp_path / "hex.csv", f"g,m\n1,2\n3,{value}\n")
        line = fails("score", path, "-t", "g", "-p", "m")
        assert f"column 'm' must hold numbers; data row 2 has '{value}'" in line


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
            assert "--seed" in fails(command, "--output", out, "--seed", "-3", code=2)
            assert not out.exists()  # checked before any folder is made
        assert not (tmp_path / "r.html").exists()


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
        path = write_file(tmp_path / "c.csv", "a,b\n2,2\n2,2\n2,2\n")
        result = ok("score", path, "-t", "a", "-p", "b")
        assert "qwkit: warning: Kappa is undefined" in result.stderr
        assert "It is reported as nan" in result.stderr
        assert "replace_undefined_by" not in result.stderr

    def test_bca_warning_names_the_option(self, tmp_path):
        # leaving out the only item rated 2 leaves a constant pair: the BCa acceleration
        # is undefined and the advice is the percentile interval
        path = write_file(tmp_path / "s.csv", "a,b\n1,1\n1,1\n2,2\n")
        result = ok(
            "score", path, "-t", "a", "-p", "b", "--method", "bootstrap", "--n-resamples", "200"
        )
        assert "--method percentile" in result.stderr
        assert "method='percentile'" not in result.stderr


class TestBrokenPipe:
    """`qwkit demo | head -1` when the reader stops before the summary is written: the
    result is lost, so one line and 141 — and the report, written before anything is
    printed, stays (tests/cli/test_cli_stdout.py has every command, in-process and as a
    process with a real pipe)."""

    def test_demo_still_writes_its_report(self, tmp_path):
        from test_cli_stdout import FAILURES, _FailingStdoutRunner

        error, line, code = FAILURES["broken"]
        out = tmp_path / "dp"
        result = _FailingStdoutRunner(error).invoke(app, ["demo", "--output", str(out)])
        assert (result.exit_code, result.stderr.splitlines()) == (code, [line])
        assert (out / "report.html").read_text().count("<img") == 6


class TestItemCounts:
    def test_n_is_items_of_positive_weight_everywhere(self, tmp_path):
        path = write_file(
            tmp_path / "w.csv",
            "y,p,s,w\n1,1,0.9,1\n2,2,2.1,0\n3,3,3.2,2\n1,2,1.4,1\n2,3,2.7,0\n3,3,2.9,1\n",
        )
        score = as_json("score", path, "-t", "y", "-p", "p", "--sample-weight", "w")
        fit = as_json("thresholds", "fit", path, "-t", "y", "-s", "s", "--sample-weight", "w")
        compare = as_json("compare", path, "-t", "y", "-p", "p", "-p", "y", "--sample-weight", "w")
        assert score["n_items"] == fit["n_items"] == compare["n_items"] == 4
        assert score["n_rows"] == fit["n_rows"] == compare["n_rows"] == 6
        unweighted = as_json("thresholds", "fit", path, "-t", "y", "-s", "s")
        assert unweighted["n_items"] == unweighted["n_rows"] == 6

    def test_one_row_dropped(self, tmp_path):
        path = write_file(tmp_path / "m.csv", "y,s\n1,0.9\n2,\n3,3.2\n1,1.4\n2,2.2\n")
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
            f"{ref.n_items:,} items"
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
        path = write_file(tmp_path / "w.csv", "y,p,w\n1,1,1\n2,2,-1\n")
        line = fails(
            "report", path, "-t", "y", "-p", "p", "--sample-weight", "w", "-o", tmp_path / "r.html"
        )
        assert "column 'w'" in line and "data row 2" in line


class TestTextRatingsHint:
    def test_text_ratings_without_labels(self, tmp_path):
        path = write_file(tmp_path / "t.csv", "y,p\nlow,low\nhigh,mid\n")
        line = fails("score", path, "-t", "y", "-p", "p")
        assert "data row 1 has 'low'" in line and "pass the ordered scale with --labels" in line


class TestFiguresWithoutGlyphs:
    def test_cjk_labels_give_no_warning(self, tmp_path):
        path = write_file(tmp_path / "c.csv", "y,p\n" + "低,低\n中,中\n高,中\n中,低\n高,高\n" * 2)
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
        assert len(png_images(target.read_text())) >= 3


class TestTextRatingsWithIdentityWeights:
    """Issue 18: unweighted kappa needs no order, so text ratings need no --labels with
    --weights identity — as in the API (``kappa_score(a, b, weights="identity")``)."""

    A = ("low", "mid", "high", "low", "mid", "mid", "high", "low", "high", "mid", "low", "mid")
    B = ("low", "high", "high", "mid", "mid", "mid", "high", "low", "mid", "mid", "low", "low")
    C = ("mid", "mid", "high", "low", "low", "mid", "high", "low", "high", "high", "low", "mid")

    def _file(self, tmp_path):
        rows = "".join(f"{a},{b},{c}\n" for a, b, c in zip(self.A, self.B, self.C, strict=True))
        return write_file(tmp_path / "text.csv", "a,b,c\n" + rows)

    def test_score_compare_and_report_follow_the_api(self, tmp_path):
        path = self._file(tmp_path)
        out = as_json("score", path, "-t", "a", "-p", "b", "--weights", "identity")
        ref = qwkit.kappa_test(self.A, self.B, weights="identity")
        assert out["statistic"] == ref.statistic and out["labels"] == ["high", "low", "mid"]
        out = as_json("compare", path, "-t", "a", "-p", "b", "-p", "c", "--weights", "identity")
        assert (
            out["statistic"]
            == qwkit.compare_kappa_test(self.A, self.B, self.C, weights="identity").statistic
        )
        result = ok(
            "report", path, "-t", "a", "-p", "b", "--weights", "identity", "-o",
            tmp_path / "r.html", "--method", "asymptotic",
        )  # fmt: skip
        assert f"kappa {ref.statistic:.4f}" in result.stdout

    def test_ordered_weights_still_ask_for_the_scale(self, tmp_path):
        path = self._file(tmp_path)
        line = fails("score", path, "-t", "a", "-p", "b")
        assert "column 'a' must hold numbers; data row 1 has 'low'" in line
        assert "--labels (e.g. --labels low,mid,high), or --weights identity" in line
        # cut points need the order whatever the weights: no hint at identity there
        rows = "".join(f"{a},{i / 3}\n" for i, a in enumerate(self.A))
        scores = write_file(tmp_path / "s.csv", "a,s\n" + rows)
        line = fails("thresholds", "fit", scores, "-t", "a", "-s", "s", "--weights", "identity")
        assert "pass the ordered scale with --labels" in line and "identity" not in line
