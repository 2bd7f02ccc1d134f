"""``qwkit judge``: the LLM-judge analyses from a long file (judge_reliability), and the
position-bias test with ``--order`` (position_bias_test). The command's numbers are the
API's (``--json`` is the result's ``to_dict()``); bad input is one line on stderr naming
the option."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import qwkit
from cli_helpers import fails, ok

DATA = Path(__file__).resolve().parents[1] / "data"
SEED = 20261121


def _long(tmp_path: Path, n=80, runs=3, judges=2, seed=SEED) -> tuple[Path, pd.DataFrame]:
    """A long CSV: judges × runs rows per item, two human columns repeated on each row."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.6, (n, 2))), 1, 5)
    human[rng.random(n) < 0.3, 1] = np.nan
    rows = []
    for j in range(judges):
        for r in range(runs):
            score = np.clip(np.rint(3 + truth + rng.normal(0, 0.8, n)), 1, 5)
            rows.append(
                pd.DataFrame(
                    {"item": np.arange(n), "judge": f"j{j}", "run": r, "score": score,
                     "h1": human[:, 0], "h2": human[:, 1]}
                )
            )  # fmt: skip
    frame = pd.concat(rows, ignore_index=True).sample(frac=1.0, random_state=1)
    path = tmp_path / "judgements.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _json(*args) -> dict:
    return json.loads(ok(*args, "--json").stdout)


class TestReliability:
    def test_json_is_the_api(self, tmp_path):
        path, frame = _long(tmp_path)
        got = _json(
            "judge", path, "--item", "item", "--judge", "judge", "--run", "run", "--score",
            "score", "--human", "h1,h2", "--seed", "1",
        )  # fmt: skip
        human = frame.groupby("item")[["h1", "h2"]].first()
        want = qwkit.judge_reliability(
            frame, item="item", judge="judge", run="run", score="score", human=human, rng=1
        ).to_dict()
        assert [j["judge"] for j in got["judges"]] == ["j0", "j1"]
        for a, b in zip(got["judges"], want["judges"], strict=True):
            for key in ("statistic", "standard_error", "low", "high"):
                assert a["icc"][key] == pytest.approx(b["icc"][key], rel=1e-12)
            assert a["runs_needed"]["runs"] == b["runs_needed"]["runs"]
        for key in ("statistic", "low", "high"):
            assert got["panel"]["effective_judges"][key] == pytest.approx(
                want["panel"]["effective_judges"][key], rel=1e-12, nan_ok=True
            )

    def test_console_leads_with_the_answers(self, tmp_path):
        path, _ = _long(tmp_path)
        out = ok(
            "judge", path, "--item", "item", "--judge", "judge", "--run", "run", "--score",
            "score", "--human", "h1,h2",
        ).stdout  # fmt: skip
        assert out.index("self-consistent") < out.index("Self-consistency over runs")
        assert "How many runs" in out

    def test_report(self, tmp_path):
        path, _ = _long(tmp_path, judges=1)
        report = tmp_path / "judge.html"
        ok(
            "judge", path, "--item", "item", "--run", "run", "--score", "score", "--human",
            "h1,h2", "--report", report,
        )  # fmt: skip
        html = report.read_text(encoding="utf-8")
        assert html.count("<img") >= 2 and "self-consistent" in html

    def test_one_run_per_item_names_run(self, tmp_path):
        path, _ = _long(tmp_path, runs=1)
        line = fails("judge", path, "--item", "item", "--judge", "judge", "--score", "score")
        assert "run" in line and "no repetition" in line

    def test_human_ratings_that_differ_within_an_item(self, tmp_path):
        _, frame = _long(tmp_path)
        frame.loc[frame.index[0], "h1"] = 9
        path = tmp_path / "clash.csv"
        frame.to_csv(path, index=False)
        line = fails(
            "judge", path, "--item", "item", "--judge", "judge", "--run", "run", "--score",
            "score", "--human", "h1,h2",
        )  # fmt: skip
        assert "h1" in line and "two ratings" in line


class TestPosition:
    def _fixture(self, tmp_path) -> Path:
        data = pd.read_csv(DATA / "mtbench_phi3_position.csv", comment="#")
        path = tmp_path / "mtbench.csv"
        data[data["verdict"] != "error"].to_csv(path, index=False)
        return path

    def test_mtbench_json_is_the_api(self, tmp_path):
        path = self._fixture(tmp_path)
        got = _json("judge", path, "--item", "question_id", "--order", "order", "--score",
                    "verdict")  # fmt: skip
        data = pd.read_csv(path)
        want = qwkit.position_bias_test(data, item="question_id", order="order",
                                        verdict="verdict").to_dict()  # fmt: skip
        j, w = got["judges"][0], want["judges"][0]
        assert j["table"] == w["table"] == [[18, 16, 5], [2, 20, 1], [0, 3, 8]]
        assert j["pvalue"] == pytest.approx(w["pvalue"], rel=1e-12)
        assert j["verdict"] == "first slot favoured"

    def test_report(self, tmp_path):
        path = self._fixture(tmp_path)
        report = tmp_path / "position.html"
        ok("judge", path, "--item", "question_id", "--order", "order", "--score", "verdict",
           "--report", report)  # fmt: skip
        assert "position" in report.read_text(encoding="utf-8").lower()

    def test_a_verdict_outside_the_labels(self, tmp_path):
        path = self._fixture(tmp_path)
        line = fails("judge", path, "--item", "question_id", "--order", "order", "--score",
                     "verdict", "--verdicts", "X,Y,tie")  # fmt: skip
        assert "column 'verdict'" in line and "'A'" in line and "--verdicts" in line
