"""``qwkit calibrate fit | apply | estimate`` against the API (docs/calibration.md)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import qwkit
from cli_helpers import fails, ok


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """400 items, a 1-10 judge on all, two humans (1-5) on the first 120 (the second on
    half of them), three systems."""
    gen = np.random.default_rng(20261208)
    q = gen.normal(size=400)
    h = np.clip(np.rint(3 + q[:, None] + gen.normal(0, 0.6, (400, 2))), 1, 5)
    h[120:] = np.nan
    h[60:120, 1] = np.nan
    judge = np.round(6 + 2 * q + gen.normal(0, 1, 400), 2)
    system = np.array(["s1", "s2", "s3"])[np.arange(400) % 3]
    path = tmp_path_factory.mktemp("calibrate") / "judged.csv"
    pd.DataFrame({"h1": h[:, 0], "h2": h[:, 1], "judge": judge, "system": system}).to_csv(
        path, index=False
    )
    return path, h, judge, system


def test_fit_writes_the_calibration_and_apply_uses_it(judged, tmp_path):
    path, h, judge, _ = judged
    mapping = tmp_path / "mapping.json"
    res = ok("calibrate", "fit", path, "--human", "h1,h2", "--judge", "judge", "-o", mapping)
    assert "corrected (new items)" in res.stdout and "280 rows without" in res.stdout
    spec = json.loads(mapping.read_text())
    want = qwkit.calibrate_judge(h[:120], judge[:120], rng=20261121)
    assert spec["statistic"] == pytest.approx(want.statistic, rel=1e-12)
    cal = qwkit.JudgeCalibration.from_dict(spec)
    np.testing.assert_array_equal(cal.thresholds, want.thresholds)
    out = tmp_path / "out.csv"
    ok("calibrate", "apply", path, "--judge", "judge", "--mapping", mapping, "-o", out)
    got = pd.read_csv(out)["judge_human"].to_numpy()
    np.testing.assert_array_equal(got, want.transform(judge))
    # the mapping is a thresholds file too
    ok(
        "thresholds",
        "apply",
        path,
        "--score",
        "judge",
        "--thresholds",
        mapping,
        "-o",
        out,
        "--force",
    )


def test_estimate_json_matches_the_api(judged):
    path, h, judge, system = judged
    res = ok(
        "calibrate", "estimate", path, "--human", "h1,h2", "--judge", "judge",
        "--group", "system", "--json",
    )  # fmt: skip
    got = json.loads(res.stdout)
    want = qwkit.human_scale_estimate(
        h[:120], judge[:120], judge[120:], groups=system[:120], groups_unlabelled=system[120:]
    ).to_dict()
    assert got["groups"] == want["groups"] == ["s1", "s2", "s3"]
    for a, b in zip(got["estimates"], want["estimates"], strict=True):
        assert a["estimate"] == pytest.approx(b["estimate"], rel=1e-12)
        assert a["high"] == pytest.approx(b["high"], rel=1e-12)
    text = ok("calibrate", "estimate", path, "--human", "h1,h2", "--judge", "judge").stdout
    assert "PPI++" in text and "humans only" in text


def test_bad_input(judged, tmp_path):
    path, *_ = judged
    line = fails("calibrate", "estimate", path, "--human", "h1", "--judge", "nope")
    assert "nope" in line
    everyone = tmp_path / "all.csv"
    everyone.write_text("h,j\n1,2.0\n2,3.0\n3,4.5\n")
    assert "nothing to estimate" in fails(
        "calibrate", "estimate", everyone, "--human", "h", "--judge", "j"
    )
    one = tmp_path / "one.csv"
    one.write_text("h,j\n3,2.0\n3,3.0\n3,4.5\n,5\n")
    assert "only the rating 3" in fails("calibrate", "fit", one, "--human", "h", "--judge", "j")
