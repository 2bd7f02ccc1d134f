"""The command line reads as a user expects: its words (no internal vocabulary, roles
instead of "true" and "predicted" for two raters), its help (``-h``, ``--version``, 80
columns), its inputs (ordered categories, decimal commas) and its report (readable cut
points and scales, integer counts, warnings in the page)."""

from __future__ import annotations

import html
import itertools
import json
import re
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import typer
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

import qwkit
from cli_helpers import ANXIETY, FAST_REPORT, fails, ok, run
from qwkit.cli._app import app

CLI_SOURCES = Path(qwkit.__file__).parent / "cli"
INTERNAL = re.compile(r"seed ?0[0-9][0-9]|§", re.IGNORECASE)
COMMANDS = [
    [],
    ["score"],
    ["compare"],
    ["agreement"],
    ["evaluate"],
    ["report"],
    ["demo"],
    ["economics"],
    ["thresholds"],
    ["thresholds", "fit"],
    ["thresholds", "apply"],
    ["calibrate"],
    ["calibrate", "fit"],
    ["calibrate", "apply"],
    ["calibrate", "estimate"],
    ["plan"],
    ["plan", "degradation"],
    ["plan", "alt-test"],
]


def _visible_text(page: str) -> str:
    """What a reader of an HTML report sees: no style sheet, no tags, no image data."""
    page = re.sub(r"<style>.*?</style>", " ", page, flags=re.S)
    page = re.sub(r"<[^>]+>", " ", page)
    return re.sub(r"\s+", " ", html.unescape(page))


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _overlapping(fig, texts) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose boxes overlap."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    shown = [t for t in texts if t.get_visible() and t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in shown]
    return [
        (shown[i].get_text(), shown[j].get_text())
        for i, j in itertools.combinations(range(len(shown)), 2)
        if boxes[i].overlaps(boxes[j])
    ]


# ---------------------------------------------------------------------------- words


class TestNoInternalVocabulary:
    def test_sources(self):
        found = [
            f"{path.name}:{n}: {line.strip()}"
            for path in sorted(CLI_SOURCES.glob("*.py"))
            for n, line in enumerate(path.read_text().splitlines(), 1)
            if INTERNAL.search(line)
        ]
        assert found == []

    @pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
    def test_help(self, command):
        text = ok(*command, "--help").stdout
        assert not INTERNAL.search(text)

    def test_economics_cites_the_work(self):
        text = ok("economics", "--help").stdout
        assert "Steele" in text and "2016" in text


class TestHelp:
    def test_version(self):
        assert ok("--version").stdout == f"qwkit {qwkit.__version__}\n"

    @pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
    def test_short_help_option(self, command):
        assert ok(*command, "-h").stdout == ok(*command, "--help").stdout

    @staticmethod
    def _wide(command: list[str]) -> str:
        """The help as click renders it without any width limit (nothing wrapped)."""
        group = typer.main.get_command(app)
        width = {"terminal_width": 100_000, "max_content_width": 100_000}
        ctx = group.make_context("qwkit", [], resilient_parsing=True, **width)
        cmd = group
        for name in command:
            cmd = cmd.get_command(ctx, name)
            ctx = cmd.make_context(name, [], parent=ctx, resilient_parsing=True, **width)
        return cmd.get_help(ctx)

    @pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
    def test_80_columns_break_no_word(self, command):
        text = run(*command, "--help", env={"COLUMNS": "80"}).stdout
        assert text
        assert max(len(line) for line in text.splitlines()) <= 80
        # the same words, each whole, as in a rendering that wraps nothing
        assert Counter(text.split()) == Counter(self._wide(command).split())


# ---------------------------------------------------------------------------- inputs


def _write_parquet(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_parquet(path)
    return path


class TestOrderedCategories:
    SCALE = ("low", "mid", "high", "top")  # not alphabetical; "top" never occurs

    def _data(self):
        rng = np.random.default_rng(20261121)
        return rng.choice(self.SCALE[:3], 60), rng.choice(self.SCALE[:3], 60)

    def test_ordered_dictionary_is_the_scale(self, tmp_path):
        a, b = self._data()
        kind = pd.CategoricalDtype(self.SCALE, ordered=True)
        frame = pd.DataFrame({"a": pd.Series(a, dtype=kind), "b": pd.Series(b, dtype=kind)})
        path = _write_parquet(tmp_path / "c.parquet", frame)
        out = json.loads(ok("score", path, "-t", "a", "-p", "b", "--json").stdout)
        assert out["labels"] == list(self.SCALE)
        # the API honours the same ordered categoricals
        kappa = out["statistic"]
        assert kappa == pytest.approx(qwkit.kappa_score(frame["a"], frame["b"]), abs=1e-15)
        assert kappa == pytest.approx(qwkit.kappa_score(a, b, labels=self.SCALE), abs=1e-15)

    def test_labels_option_wins(self, tmp_path):
        a, b = self._data()
        kind = pd.CategoricalDtype(self.SCALE, ordered=True)
        frame = pd.DataFrame({"a": pd.Series(a, dtype=kind), "b": pd.Series(b, dtype=kind)})
        path = _write_parquet(tmp_path / "c.parquet", frame)
        out = json.loads(
            ok("score", path, "-t", "a", "-p", "b", "--labels", "high,mid,low", "--json").stdout
        )
        assert out["labels"] == ["high", "mid", "low"]

    def test_unordered_dictionary_is_read_as_values(self, tmp_path):
        a, b = self._data()
        frame = pd.DataFrame(
            {"a": pd.Categorical(a), "b": pd.Categorical(b), "n": pd.Categorical([1, 3] * 30)}
        )
        path = _write_parquet(tmp_path / "u.parquet", frame)
        out = json.loads(
            ok("score", path, "-t", "a", "-p", "b", "--labels", "low,mid,high", "--json").stdout
        )
        assert out["statistic"] == pytest.approx(
            qwkit.kappa_score(a, b, labels=["low", "mid", "high"]), abs=1e-15
        )
        assert "--labels" in fails("score", path, "-t", "a", "-p", "b")  # text needs a scale
        arrow = pa.table(
            {"x": pa.array([3, 1, 2, 3]).dictionary_encode(), "y": pa.array([3, 1, 1, 2])}
        )
        pq.write_table(arrow, tmp_path / "d.parquet")
        out = json.loads(ok("score", tmp_path / "d.parquet", "-t", "x", "-p", "y", "--json").stdout)
        assert out["labels"] == [1, 2, 3]

    def test_different_orders_are_an_error(self, tmp_path):
        a, b = self._data()
        frame = pd.DataFrame(
            {
                "a": pd.Categorical(a, categories=self.SCALE, ordered=True),
                "b": pd.Categorical(b, categories=self.SCALE[::-1], ordered=True),
            }
        )
        path = _write_parquet(tmp_path / "c.parquet", frame)
        line = fails("score", path, "-t", "a", "-p", "b")
        assert "different category orders" in line and "--labels" in line


class TestDecimalComma:
    def test_european_csv(self, tmp_path):
        rng = np.random.default_rng(20261121)
        y = rng.integers(1, 5, 40)
        s = y + rng.normal(0, 0.7, 40)
        w = rng.integers(1, 4, 40) / 2
        text = "note;grade;score;weight\n" + "".join(
            f"x;{a};{float(b)!r};{float(c)!r}\n".replace(".", ",")
            for a, b, c in zip(y, s, w, strict=True)
        )
        path = tmp_path / "eu.csv"
        path.write_text(text)
        out = json.loads(
            ok(
                "thresholds",
                "fit",
                path,
                "-t",
                "grade",
                "-s",
                "score",
                "--sample-weight",
                "weight",
                "--sep",
                ";",
                "--decimal",
                ",",
                "--json",
            ).stdout
        )
        ref = qwkit.optimize_thresholds(y, s, sample_weight=w)
        assert out["statistic"] == pytest.approx(ref.statistic, abs=1e-12)
        assert out["thresholds"] == pytest.approx(ref.thresholds.tolist(), abs=1e-12)

    def test_decimal_point_is_then_an_error(self, tmp_path):
        path = tmp_path / "eu.csv"
        path.write_text("a;s\n1;1,5\n2;2.5\n")
        line = fails(
            "thresholds", "fit", path, "-t", "a", "-s", "s", "--sep", ";", "--decimal", ","
        )
        assert "data row 2" in line and "'2.5'" in line and "decimal mark" in line

    def test_decimal_comma_needs_another_separator(self, tmp_path):
        path = tmp_path / "eu.csv"
        path.write_text("a,s\n1,2\n")
        assert "--sep" in fails("score", path, "-t", "a", "-p", "s", "--decimal", ",")
        assert "--decimal" in fails(
            "score", path, "-t", "a", "-p", "s", "--decimal", ",", "--sep", ",", code=2
        )
        assert "--decimal" in fails("score", path, "-t", "a", "-p", "s", "--decimal", ";", code=2)


# ---------------------------------------------------------------------------- the report


class TestReportWords:
    def test_two_raters_are_not_true_and_predicted(self, tmp_path):
        out = tmp_path / "r.html"
        ok("report", ANXIETY, "-t", "rater1", "-p", "rater2", "-o", out, *FAST_REPORT)
        text = _visible_text(out.read_text())
        assert not re.search(r"\btrue\b|predict", text, re.IGNORECASE), text
        assert "'rater1'" in text and "'rater2'" in text

    def test_roles_given(self, tmp_path):
        out = tmp_path / "r.html"
        ok(
            "report",
            ANXIETY,
            "-t",
            "rater1",
            "-p",
            "rater2",
            "-o",
            out,
            *FAST_REPORT,
            "--truth-role",
            "the expert",
            "--pred-role",
            "the trainee",
        )
        text = _visible_text(out.read_text())
        assert "The expert against the trainee" in text
        assert "items: the trainee" in text

    def test_api_warnings_are_shown_in_the_report(self, tmp_path):
        path = tmp_path / "c.csv"
        path.write_text("a,b\n2,2\n2,2\n2,2\n")
        out = tmp_path / "r.html"
        result = ok("report", path, "-t", "a", "-p", "b", "-o", out, *FAST_REPORT)
        assert "qwkit: warning: Kappa is undefined" in result.stderr
        page = out.read_text()
        box = re.search(r'<div class="warnings" id="warnings".*?</div>', page, re.S)
        assert box and "Kappa is undefined" in box.group(0)
        assert page.index('id="warnings"') < page.index("<h2>Overview</h2>")  # at the top

    def test_any_warning_is_shown(self, tmp_path, monkeypatch):
        real = qwkit.kappa_test

        def warns(*args, **kwargs):
            warnings.warn("an unusual condition of the data", RuntimeWarning, stacklevel=2)
            return real(*args, **kwargs)

        monkeypatch.setattr(qwkit, "kappa_test", warns)
        out = tmp_path / "r.html"
        result = ok("report", ANXIETY, "-t", "rater1", "-p", "rater2", "-o", out, *FAST_REPORT)
        assert "an unusual condition of the data" in result.stderr
        assert "an unusual condition of the data" in _visible_text(out.read_text())

    def test_no_warning_no_box(self, tmp_path):
        out = tmp_path / "r.html"
        ok("report", ANXIETY, "-t", "rater1", "-p", "rater2", "-o", out, *FAST_REPORT)
        assert 'id="warnings"' not in out.read_text()


class TestReportFigures:
    def test_report_on_a_wide_scale_says_how_it_is_drawn(self, tmp_path):
        rng = np.random.default_rng(20261121)
        t = rng.integers(1, 61, 600)
        p = np.clip(t + rng.integers(-3, 4, 600), 1, 60)
        path = tmp_path / "wide.csv"
        pacsv.write_csv(pa.table({"t": t, "p": p}), path)
        out = tmp_path / "r.html"
        ok("report", path, "-t", "t", "-p", "p", "-o", out, *FAST_REPORT)
        text = _visible_text(out.read_text())
        assert "With 60 classes the cells are too small to hold their counts" in text
        assert "Every 3rd class is labelled" in text
        assert "lines instead of bars" in text


def test_helpers_detect_overlap():
    """The overlap check can fail: two texts at one place overlap."""
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    texts = [ax.text(0.5, 0.5, "3|4"), ax.text(0.5, 0.5, "4|5")]
    assert _overlapping(fig, texts) == [("3|4", "4|5")]
