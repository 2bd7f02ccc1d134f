"""The HTML reports in a real browser: headless Chromium (Debian's ``chromium`` package).

For each report (``qwkit report`` on scores, ``qwkit evaluate``'s on HANNA, and ``qwkit
demo``'s) a copy of the page with a small script appended is loaded with ``--dump-dom``;
on the load event the script writes, for every ``<img>``, whether it decoded and its
natural size into the DOM, which Chromium then prints. The original page is also
rendered to a PNG with ``--screenshot``. Never skipped: without Chromium the test fails
and says how to install it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from PIL import Image
from typer.testing import CliRunner

import qwkit
from browser_helpers import browser as _browser
from browser_helpers import image_check as _image_check
from qwkit.cli._app import app


def _screenshot(tmp_path: Path, report: Path, height: int) -> Image.Image:
    shot = tmp_path / f"{report.stem}.png"
    result = _browser(
        tmp_path, f"--window-size=1100,{height}", f"--screenshot={shot}", report.as_uri()
    )
    assert shot.exists(), result.stderr[-2000:]
    return Image.open(shot).convert("RGB")


def _check(tmp_path: Path, report: Path, n_images: int, height: int) -> None:
    images = _image_check(tmp_path, report)
    assert len(images) == n_images
    for img in images:
        assert img["complete"], img
        assert img["width"] > 0 and img["height"] > 0, img
    picture = _screenshot(tmp_path, report, height)
    assert picture.size == (1100, height)
    # the page is drawn: many colours (figures, text), not a blank or error page
    colours = picture.resize((275, height // 4)).getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 200


class TestReportInBrowser:
    def test_scores_report(self, tmp_path):
        wine = qwkit.load_wine_quality("red")
        design = np.column_stack([np.ones(len(wine.y)), wine.X])
        coef, *_ = np.linalg.lstsq(design, wine.y, rcond=None)
        data = tmp_path / "wine.csv"
        pacsv.write_csv(pa.table({"quality": wine.y, "score": design @ coef}), data)
        report = tmp_path / "report.html"
        result = CliRunner().invoke(
            app,
            [
                "report",
                str(data),
                "-t",
                "quality",
                "-s",
                "score",
                "-o",
                str(report),
                "--n-resamples",
                "2000",
            ],
        )
        assert result.exit_code == 0, result.stderr
        _check(tmp_path, report, n_images=4, height=5000)

    def test_evaluation_report(self, tmp_path):
        hanna = Path(qwkit.__file__).parent / "data" / "hanna_wide.csv"
        report = tmp_path / "evaluation.html"
        result = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(hanna),
                "--human",
                "CH_h1,CH_h2,CH_h3",
                "--machine",
                "CH_chatgpt,CH_mistral",
                "--group",
                "system",
                "--pairs",
                "all",
                "--nan-policy",
                "omit",
                "--report",
                str(report),
            ],
        )
        assert result.exit_code == 0, result.stderr
        # the criteria, every pair of raters, and per machine its groups, score
        # distributions and confusion tables
        _check(tmp_path, report, n_images=2 + 2 * 3, height=7000)

    def test_crowd_agreement_report(self, tmp_path):
        # 500 raters, 3,000 items: a small page of distributions and rankings, no
        # raters × raters heatmap
        rng = np.random.default_rng(20261121)
        items = np.repeat(np.arange(3000), 4)
        raters = rng.integers(0, 500, items.size)  # a worker may be drawn twice: --duplicates
        latent = rng.normal(size=3000)
        grade = np.clip(np.rint(3 + latent[items] + rng.normal(0, 0.7, items.size)), 1, 5)
        data = tmp_path / "crowd.csv"
        pacsv.write_csv(
            pa.table(
                {
                    "item": items,
                    "worker": [f"w{r}" for r in raters],
                    "grade": grade.astype(np.int64),
                }
            ),
            data,
        )
        report = tmp_path / "crowd.html"
        result = CliRunner().invoke(
            app,
            [
                "agreement", str(data), "--long", "--item", "item", "--rater", "worker",
                "--rating", "grade", "--duplicates", "first", "--report", str(report),
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert report.stat().st_size < 400_000
        _check(tmp_path, report, n_images=2, height=3000)

    def test_demo_report(self, tmp_path):
        out = tmp_path / "demo"
        result = CliRunner().invoke(app, ["demo", "--output", str(out)])
        assert result.exit_code == 0, result.stderr
        _check(tmp_path, out / "report.html", n_images=6, height=6600)


@pytest.mark.parametrize("bad", ["data:image/png;base64,AAAA"])
def test_probe_detects_a_broken_image(tmp_path, bad):
    """The check can fail: a page with an undecodable image reports width 0."""
    page = tmp_path / "broken.html"
    page.write_text(f'<!DOCTYPE html><html><body><img id="x" src="{bad}"></body></html>')
    images = _image_check(tmp_path, page)
    assert images == [{"id": "x", "complete": True, "width": 0, "height": 0}]


class TestJudgeReportsInBrowser:
    def test_judge_report_on_hanna(self, tmp_path):
        # HANNA's five LLM judges × four prompts on complexity, the crowd's three ratings
        # repeated on each row of a story, the story generators as systems
        judges, hanna = qwkit.load_hanna_judges(), qwkit.load_hanna()
        cx = judges.criterion == "CX"
        story = judges.story_id[cx]
        human = hanna.human["CX"][story]
        data = tmp_path / "hanna_judges_cx.csv"
        pacsv.write_csv(
            pa.table(
                {
                    "story": story,
                    "judge": judges.judge[cx],
                    "prompt": judges.prompt[cx],
                    "score": judges.score[cx],
                    "system": judges.system[cx],
                    **{f"h{k + 1}": human[:, k] for k in range(3)},
                }
            ),
            data,
        )
        report = tmp_path / "judge.html"
        result = CliRunner().invoke(
            app,
            [
                "judge", str(data), "--item", "story", "--judge", "judge", "--run", "prompt",
                "--score", "score", "--human", "h1,h2,h3", "--system", "system", "--run-kind",
                "prompts", "--n-resamples", "500", "--report", str(report),
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        html = report.read_text(encoding="utf-8")
        # the answers lead: before the first figure
        assert html.index("How many independent judges") < html.index("<img")
        # consistency, runs, prompts, errors, panel and ranking
        _check(tmp_path, report, n_images=6, height=9000)

    def test_position_report(self, tmp_path):
        # GPT-4's MT-Bench verdicts in both orders (tests/data, Apache-2.0)
        fixture = Path(__file__).resolve().parents[1] / "data" / "mtbench_phi3_position.csv"
        rows = [line for line in fixture.read_text().splitlines() if not line.endswith(",error")]
        data = tmp_path / "mtbench.csv"
        data.write_text("\n".join(rows) + "\n")
        report = tmp_path / "position.html"
        result = CliRunner().invoke(
            app,
            [
                "judge", str(data), "--item", "question_id", "--order", "order", "--score",
                "verdict", "--judge", "judge_prompt", "--verdicts", "A,B,tie",
                "--report", str(report),
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        _check(tmp_path, report, n_images=1, height=3000)
