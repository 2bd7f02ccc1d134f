"""``qwkit evaluate``: the command against the API on the same data (equal numbers), its
``--json``, its tables, its report, and every bad input's one-line error and exit code.

Data: a simulated panel (three human columns with most items rated once, a real-valued
and an integer machine, groups), and HANNA as bundled (``src/qwkit/data/hanna_wide.csv``).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import qwkit
from cli_helpers import fails, ok, run
from qwkit.cli._display import plain

HANNA = Path(qwkit.__file__).parent / "data" / "hanna_wide.csv"
TERMINAL = {"TTY_COMPATIBLE": "1"}


def _panel(n=240, seed=20261121):
    """Three human columns (the second on 40% of the items, the third on 30%), a
    real-valued machine, an integer machine, a group per item."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.7, (n, 3))), 1, 5)
    human[rng.random(n) > 0.4, 1] = np.nan
    human[rng.random(n) > 0.3, 2] = np.nan
    real = 3 + truth + rng.normal(0, 0.6, n)
    rated = np.clip(np.rint(3 + 0.9 * truth + rng.normal(0, 0.8, n)), 1, 5)
    groups = np.array(["north", "south", "east"])[rng.integers(0, 3, n)]
    return human, real, rated, groups


def _write(tmp_path, name="panel.csv", **columns) -> Path:
    path = tmp_path / name
    table = pa.table({k: pa.array(v) for k, v in columns.items()})
    if name.endswith(".parquet"):
        pq.write_table(table, path)
    else:
        pacsv.write_csv(table, path)
    return path


@pytest.fixture
def panel_file(tmp_path):
    human, real, rated, groups = _panel()
    cols = {f"h{j + 1}": [None if np.isnan(v) else int(v) for v in human[:, j]] for j in range(3)}
    path = _write(tmp_path, **cols, model=real, rounded=rated.astype(int), prompt=groups)
    return path, human, real, rated, groups


def _nulls(values) -> list:
    """NaN as a missing value (null) of the file."""
    return [None if np.isnan(v) else float(v) for v in values]


def _api(human, machines: dict, **kwargs):
    names = {f"h{j + 1}": human[:, j] for j in range(human.shape[1])}
    return qwkit.evaluate_scorer(names, machines, **kwargs)


def _json(*args) -> dict:
    return json.loads(ok(*args, "--json").stdout)


def _same(out: dict, res) -> None:
    """The command's JSON holds the result's ``to_dict()``, number for number."""
    want = json.loads(json.dumps(plain(res.to_dict())))
    got = {k: out[k] for k in want}
    assert got == want


class TestAgainstTheApi:
    def test_two_machines_three_humans_groups(self, panel_file):
        path, human, real, rated, groups = panel_file
        out = _json(
            "evaluate", path, "--human", "h1,h2,h3", "--machine", "model,rounded",
            "--group", "prompt",
        )  # fmt: skip
        res = _api(human, {"model": real, "rounded": rated}, groups=groups)
        _same(out, res)
        assert out["human"] == ["h1", "h2", "h3"] and out["machine"] == ["model", "rounded"]
        assert out["group"] == "prompt" and out["n_rows"] == 240
        assert [c["model"] for c in out["criteria"]] == ["model"] * 5 + ["rounded"] * 5
        text = ok(
            "evaluate", path, "--human", "h1,h2,h3", "--machine", "model,rounded",
            "--group", "prompt",
        ).stdout  # fmt: skip
        for m in res.models:  # one decision table per machine
            assert f"May '{m.name}' stand in for a human rater?" in text
            assert f"Verdict for '{m.name}': {m.verdict}" in text
        assert [g["group"] for g in out["models"][0]["groups"]] == ["east", "north", "south"]

    def test_declared_order_does_not_change_a_value(self, panel_file, tmp_path):
        # issue 28: `--labels 5,4,3,2,1` and a Parquet column whose ordered categories run
        # high to low flipped the sign of the SMD (and gave a negative SD)
        path, human, _, rated, _ = panel_file
        args = ("evaluate", path, "--human", "h1,h2,h3", "--machine", "rounded")
        up = _json(*args)
        down = _json(*args, "--labels", "5,4,3,2,1")
        cols = {
            f"h{j + 1}": [None if np.isnan(v) else int(v) for v in human[:, j]] for j in range(3)
        }
        cols["rounded"] = rated.astype(int).tolist()
        order = pa.array([5, 4, 3, 2, 1])
        table = pa.table(
            {
                k: pa.DictionaryArray.from_arrays(
                    pa.array([None if v is None else 5 - v for v in c], pa.int32()),
                    order,
                    ordered=True,
                )
                for k, c in cols.items()
            }
        )
        pq.write_table(table, tmp_path / "down.parquet")
        parquet = _json("evaluate", tmp_path / "down.parquet", *args[2:])
        for out in (down, parquet):
            mine, want = out["models"][0], up["models"][0]
            for key in ("kappa", "pearson_r", "smd", "prmse"):
                assert mine[key]["statistic"] == pytest.approx(want[key]["statistic"], rel=1e-12)

    @pytest.mark.parametrize(
        "options, kwargs",
        [
            (
                ["--pairs", "all", "--margin", "0.05", "--ci", "0.9"],
                {"pairs": "all", "margin": 0.05, "confidence_level": 0.9},
            ),
            (
                ["--method", "jackknife", "--ci", "0.99"],
                {"method": "jackknife", "confidence_level": 0.99},
            ),
            (
                ["--method", "bootstrap", "--n-resamples", "300", "--seed", "7"],
                {"method": "bootstrap", "n_resamples": 300, "rng": 7},
            ),
            (
                ["--min-kappa", "0.6", "--min-correlation", "0.5", "--max-smd", "0.2"],
                {"min_kappa": 0.6, "min_correlation": 0.5, "max_smd": 0.2},
            ),
        ],
    )
    def test_options_are_the_api_s(self, panel_file, options, kwargs):
        path, human, real, _, _ = panel_file
        out = _json("evaluate", path, "--human", "h1,h2,h3", "--machine", "model", *options)
        _same(out, _api(human, {"model": real}, **kwargs))

    def test_weights_and_labels(self, panel_file):
        path, human, _, rated, _ = panel_file
        out = _json(
            "evaluate", path, "--human", "h1,h2", "--machine", "rounded", "--weights",
            "linear", "--labels", "1,2,3,4,5,6",
        )  # fmt: skip
        res = _api(human[:, :2], {"rounded": rated}, weights="linear", labels=[1, 2, 3, 4, 5, 6])
        _same(out, res)
        assert out["labels"] == [1, 2, 3, 4, 5, 6]

    def test_text_ratings_on_a_declared_scale(self, tmp_path):
        levels = np.array(["low", "mid", "high"])
        human, _, rated, _ = _panel(90, seed=3)
        h = np.clip(human - 2, 0, 2)
        r = np.clip(rated - 2, 0, 2).astype(int)
        cols = {
            f"h{j + 1}": [None if np.isnan(v) else levels[int(v)] for v in h[:, j]]
            for j in range(2)
        }
        path = _write(tmp_path, **cols, judge=levels[r])
        out = _json(
            "evaluate", path, "--human", "h1,h2", "--machine", "judge", "--labels", "low,mid,high"
        )
        text = {k: np.array(v, dtype=object) for k, v in cols.items()}
        res = qwkit.evaluate_scorer(text, {"judge": levels[r]}, labels=["low", "mid", "high"])
        _same(out, res)

    def test_parquet_and_omitted_scores(self, tmp_path):
        human, real, _, _ = _panel(150, seed=5)
        real[[3, 40]] = np.nan
        cols = {f"h{j + 1}": _nulls(human[:, j]) for j in range(2)}
        path = _write(tmp_path, "p.parquet", **cols, llm=_nulls(real))
        out = _json(
            "evaluate", path, "--human", "h1,h2", "--machine", "llm", "--nan-policy", "omit"
        )
        _same(out, _api(human[:, :2], {"llm": real}, nan_policy="omit"))
        assert out["models"][0]["n_omitted"] == 2 and out["nan_policy"] == "omit"

    def test_missing_codes(self, tmp_path):
        # an LLM judge's failure code -1 and a human's 99 are read as missing (--missing)
        human, _, integer, _ = _panel(150, seed=7)
        judge = integer.astype(float)
        judge[[4, 50]] = -1
        h1 = human[:, 0].copy()
        h1[9] = 99
        path = _write(tmp_path, h1=h1.tolist(), h2=_nulls(human[:, 1]), judge=judge.tolist())
        out = _json("evaluate", path, "--human", "h1,h2", "--machine", "judge",
                    "--nan-policy", "omit", "--missing", "-1,99")  # fmt: skip
        human[9, 0] = np.nan
        judge[[4, 50]] = np.nan
        _same(out, _api(human[:, :2], {"judge": judge}, nan_policy="omit"))
        assert out["models"][0]["n_omitted"] == 2

    def test_hanna_as_bundled(self):
        out = _json(
            "evaluate", HANNA, "--human", "RE_h1,RE_h2,RE_h3", "--machine", "RE_chatgpt",
            "--pairs", "all", "--group", "system",
        )  # fmt: skip
        hanna = qwkit.load_hanna()
        res = qwkit.evaluate_scorer(
            {f"RE_h{j + 1}": hanna.human["RE"][:, j] for j in range(3)},
            {"RE_chatgpt": hanna.chatgpt["RE"]},
            pairs="all",
            groups=hanna.system,
        )
        _same(out, res)


class TestPrinted:
    def test_decision_table_first_then_the_ceiling(self, panel_file):
        path, human, real, _, groups = panel_file
        text = ok(
            "evaluate", path, "--human", "h1,h2,h3", "--machine", "model", "--group", "prompt"
        ).stdout
        res = _api(human, {"model": real}, groups=groups)
        lines = text.splitlines()
        assert lines[0] == "panel.csv: may a machine stand in for a human rater?"
        assert lines[1].strip() == "May 'model' stand in for a human rater?"
        assert lines[2].split() == [
            "criterion", "┃", "estimate", "┃", "95%", "CI", "┃", "threshold", "┃", "p-value",
            "┃", "verdict",
        ]  # fmt: skip
        rows = lines[4 : 4 + len(res.criteria)]
        for c, row in zip(res.criteria, rows, strict=True):
            assert row.split("│")[0].strip() == c.name
            assert f"{c.estimate:.4f}" in row and f"[{c.low:.3f}, {c.high:.3f}]" in row
            assert row.split("│")[-1].strip() == c.verdict
        passed = sum(c.verdict == "pass" for c in res.criteria)
        assert lines[4 + len(res.criteria)] == (
            f"Verdict for 'model': {res.verdict} ({passed} of {len(res.criteria)} criteria pass)."
        )
        flat = " ".join(text.split())
        # the same tables as summary(), in its order: the ceiling after the decision
        for table in res.tables():
            if table.columns:
                assert " ".join(table.title.split()) in flat
        ceiling = flat.index("the human-human ceiling")
        assert flat.index("h2 (human)") > ceiling
        assert f"{res.human_human.kappa.statistic:.3f}" in flat[ceiling:]
        d = res.degradation
        assert f"{d.statistic:.4f}" in flat[flat.index("Degradation:") :]
        assert "by group" in flat and "south" in flat
        assert "240 items" in flat

    def test_progress_bar_on_a_terminal_only(self, panel_file):
        path = panel_file[0]
        args = ("evaluate", path, "--human", "h1,h2", "--machine", "model", "--json")
        loud = run(*args, env=TERMINAL)
        assert loud.exit_code == 0, loud.stderr
        assert "statistics" in loud.stderr and re.search(r"(\d+)/\1", loud.stderr)
        quiet = run(*args)
        assert quiet.stderr == "" and json.loads(quiet.stdout) == json.loads(loud.stdout)

    def test_warnings_once_each_on_stderr(self):
        result = run(
            "evaluate", HANNA, "--human", "CH_h1,CH_h2,CH_h3", "--machine",
            "CH_chatgpt,CH_mistral", "--pairs", "all", "--nan-policy", "omit",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        warned = result.stderr.strip().splitlines()
        assert len(warned) == 2 and all(w.startswith("qwkit: warning: ") for w in warned)
        assert "'CH_chatgpt'" in warned[0] and "'CH_mistral'" in warned[1]
        assert "28 items not scored by 'CH_mistral' were left out" in " ".join(
            result.stdout.split()
        )


class TestReport:
    def test_decision_first_and_every_figure(self, panel_file, tmp_path):
        path, human, real, rated, groups = panel_file
        target = tmp_path / "eval.html"
        result = ok(
            "evaluate", path, "--human", "h1,h2,h3", "--machine", "model,rounded", "--group",
            "prompt", "--report", target,
        )  # fmt: skip
        assert f"wrote {target}" in result.stdout
        page = target.read_text()
        headings = [html.unescape(h) for h in re.findall(r"<h2>(.*?)</h2>", page)]
        res = _api(human, {"model": real, "rounded": rated}, groups=groups)
        # the result's own tables, in the order of summary(), then the settings
        assert headings == [t.title for t in res.tables()] + ["Data and settings"]
        assert headings[0] == "May 'model' stand in for a human rater?"
        # criteria, raters, and per machine groups, distribution and confusion figures
        assert page.count("<img ") == 2 + 3 * 2
        decision = page[: page.index("<h2>How to read")]
        for c in res.criteria:
            assert f"{c.estimate:.4f}" in decision
        assert page.index("<table>") < page.index("<img ")  # the table leads
        for m in res.models:
            assert html.escape(f"'{m.name}': {m.verdict} (") in page

    def test_report_on_stdout_and_json_exclude_each_other(self, panel_file):
        path = panel_file[0]
        line = fails(
            "evaluate", path, "--human", "h1,h2", "--machine", "model", "--report", "-",
            "--json", code=2,
        )  # fmt: skip
        assert "--json" in line

    def test_refuses_to_replace_a_file_it_did_not_write(self, panel_file, tmp_path):
        path = panel_file[0]
        mine = tmp_path / "notes.html"
        mine.write_text("<html>my notes</html>")
        line = fails("evaluate", path, "--human", "h1,h2", "--machine", "model", "--report", mine)
        assert "--force" in line and mine.read_text() == "<html>my notes</html>"


class TestBadInput:
    """One line on stderr, exit code 1 (the data) or 2 (the command line), no traceback."""

    def test_no_double_scored_item(self, tmp_path):
        path = _write(tmp_path, a=[1, 2, 3, None, None, None], b=[None, None, None, 2, 3, 4],
                      m=[1.5, 2, 3, 2, 3.2, 4])  # fmt: skip
        line = fails("evaluate", path, "--human", "a,b", "--machine", "m")
        assert line == (
            "qwkit: error: --human has no item rated by two or more humans (0 of 6 items are "
            "double-scored); the machine is judged against human-human agreement, which "
            "needs double-scored items."
        )

    def test_missing_machine_score_needs_the_policy(self, tmp_path):
        path = _write(tmp_path, a=[1, 2, 3, 4, 5], b=[1, 3, 3, 4, 4], m=[1.0, None, 3.0, 4.0, 5.0])
        line = fails("evaluate", path, "--human", "a,b", "--machine", "m")
        assert line == (
            "qwkit: error: column 'm' has no score in data row 2; every item needs one, or "
            "pass --nan-policy omit to evaluate each machine on the items it scored."
        )

    @pytest.mark.parametrize(
        "columns, message",
        [
            (
                {"a": [1, 2, 3, 4], "b": [2, 2, 3, 4], "m": [3, 3, 3, 3]},
                "--machine column 'm' gives every item the same score",
            ),
            (
                {"a": [1, 2, 3, 4], "b": [2, 2, 2, 2], "m": [1, 2, 3, 4]},
                "--human column 'b' gives every item the same rating",
            ),
            (
                {"a": [1, 2.5, 3, 4], "b": [2, 2, 3, 4], "m": [1, 2, 3, 4]},
                "column 'a' must hold integer ratings; data row 2 has 2.5",
            ),
            (
                {"a": [1, 2, 3, 4], "b": [2, 2, 3, 4], "m": ["1", "x", "3", "4"]},
                "column 'm' must hold numbers; data row 2 has 'x'",
            ),
            (
                {"a": [1, 2, 3, 4], "b": [2, 2, 3, 4], "m": [1, 2, 3, float("inf")]},
                "column 'm' must hold finite ratings; data row 4 has inf",
            ),
            (
                {"a": [1, 2, 3, 4], "b": [None, None, None, None], "m": [1, 2, 3, 4]},
                "--human column 'b' rates no item; drop the column",
            ),
        ],
    )
    def test_bad_columns(self, tmp_path, columns, message):
        path = _write(tmp_path, **columns)
        line = fails("evaluate", path, "--human", "a,b", "--machine", "m")
        assert message in line

    def test_rating_off_the_scale(self, tmp_path):
        path = _write(tmp_path, a=[1, 2, 3, 4], b=[2, 2, 3, 4], m=[1, 2, 9, 4])
        line = fails("evaluate", path, "--human", "a,b", "--machine", "m", "--labels", "1,2,3,4")
        assert "column 'm' contains 9, which is not in --labels [1, 2, 3, 4] (data row 3)" in line

    def test_real_scores_with_other_weights(self, tmp_path):
        path = _write(tmp_path, a=[1, 2, 3, 4], b=[2, 2, 3, 4], m=[1.2, 2, 3, 4])
        line = fails("evaluate", path, "--human", "a,b", "--machine", "m", "--weights", "linear")
        assert line == (
            "qwkit: error: column 'm' holds real-valued scores; --weights linear needs ratings "
            "on the scale: round the scores first (qwkit thresholds apply), or use --weights "
            "quadratic, whose continuous form scores real values as they are."
        )

    def test_missing_group(self, tmp_path):
        path = _write(
            tmp_path, a=[1, 2, 3, 4], b=[2, 2, 3, 4], m=[1, 2, 3, 4], g=["x", None, "y", "y"]
        )
        line = fails("evaluate", path, "--human", "a,b", "--machine", "m", "--group", "g")
        assert line == "qwkit: error: column 'g' has no group in data row 2; every item needs one."

    def test_missing_column(self, tmp_path):
        path = _write(tmp_path, a=[1, 2, 3, 4], b=[2, 2, 3, 4], m=[1, 2, 3, 4])
        line = fails("evaluate", path, "--human", "a,b", "--machine", "gpt")
        assert "'gpt'" in line

    @pytest.mark.parametrize("margin", ["0", "1", "-0.1", "1.5"])
    def test_margin_outside_zero_one(self, tmp_path, margin):
        path = _write(tmp_path, a=[1, 2, 3, 4], b=[2, 2, 3, 4], m=[1, 2, 3, 4])
        line = fails("evaluate", path, "--human", "a,b", "--machine", "m", "--margin", margin,
                     code=2)  # fmt: skip
        assert "--margin" in line and "strictly between 0 and 1" in line

    @pytest.mark.parametrize(
        "args, words",
        [
            (["--human", "a", "--machine", "m"], "give at least two human columns; got 1"),
            (["--human", "a,b"], "give at least one machine column; got 0"),
            (["--machine", "m"], "give at least two human columns; got 0"),
            (
                ["--human", "a,b", "--machine", "b"],
                "column 'b' is given to both --human and --machine",
            ),
            (["--human", "a,b", "--machine", "m", "--group", "a"], "column 'a' is given to both"),
            (["--human", "a,a", "--machine", "m"], "'a' is given twice"),
            (["--human", "a,,b", "--machine", "m"], "comma-separated column names"),
            (["--human", "a,b", "--machine", "m", "--max-smd", "0"], "must be positive"),
            (["--human", "a,b", "--machine", "m", "--min-kappa", "1.5"], "--min-kappa"),
            # the range the help gives is the library's: [0, 1)
            (["--human", "a,b", "--machine", "m", "--min-kappa", "1"], "must be in [0, 1)"),
            (["--human", "a,b", "--machine", "m", "--min-correlation", "-0.5"], "in [0, 1)"),
            (["--human", "a,b", "--machine", "m", "--method", "percentile"], "--method"),
            (["--human", "a,b", "--machine", "m", "--nan-policy", "drop"], "--nan-policy"),
        ],
    )
    def test_usage_errors(self, tmp_path, args, words):
        path = _write(tmp_path, a=[1, 2, 3, 4], b=[2, 2, 3, 4], m=[1, 2, 3, 4])
        line = fails("evaluate", path, *args, code=2)
        assert words in line


class TestAltTest:
    """``--alt-test``: the alternative annotator test of each machine, equal to
    ``qwkit.alt_test`` on the same columns."""

    @pytest.fixture
    def annotated(self, tmp_path):
        rng = np.random.default_rng(31)
        truth = rng.normal(size=150)
        human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.8, (150, 3))), 1, 5)
        judge = np.clip(np.rint(3 + truth + rng.normal(0, 0.5, 150)), 1, 5).astype(int)
        real = 3 + truth + rng.normal(0, 0.5, 150)
        cols = {f"h{j + 1}": human[:, j].astype(int) for j in range(3)}
        return _write(tmp_path, **cols, judge=judge, real=real), human, judge, real

    def test_equals_the_api(self, annotated):
        path, human, judge, real = annotated
        out = json.loads(
            ok(
                "evaluate", path, "--human", "h1,h2,h3", "--machine", "judge,real",
                "--alt-test", "--epsilon", "0.15", "--alignment", "kappa",
                "--method", "asymptotic", "--json",
            ).stdout
        )  # fmt: skip
        for name, scores in (("judge", judge), ("real", real)):
            want = qwkit.alt_test(human, scores, epsilon=0.15, alignment="kappa").to_dict()
            got = out["alt_test"][name]
            assert got["pvalues"] == pytest.approx(want["pvalues"], rel=1e-12)
            assert (got["winning_rate"], got["passed"]) == (want["winning_rate"], want["passed"])

    def test_printed_and_in_the_report(self, annotated, tmp_path):
        path = annotated[0]
        args = ("evaluate", path, "--human", "h1,h2,h3", "--machine", "judge", "--alt-test")
        printed = plain(ok(*args, "--method", "asymptotic").stdout)
        assert "'judge' as an annotator:" in printed and "Winning rate" in printed
        report = tmp_path / "r.html"
        ok(*args, "--method", "asymptotic", "--report", report)
        assert "Alternative annotator test" in html.unescape(report.read_text())
        assert "alt_test" not in json.loads(ok(*args[:-1], "--json").stdout)

    def test_its_options_need_it(self, annotated):
        path = annotated[0]
        base = ("evaluate", path, "--human", "h1,h2,h3", "--machine", "judge")
        assert "add --alt-test" in fails(*base, "--epsilon", "0.1", code=2)
        assert "add --alt-test" in fails(*base, "--alignment", "rmse", code=2)
        assert "--epsilon" in fails(*base, "--alt-test", "--epsilon", "1.5", code=2)
