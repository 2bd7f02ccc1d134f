"""``qwkit plan degradation`` and ``qwkit plan alt-test``: thin over
``degradation_sample_size`` and ``alt_test_sample_size`` (the same numbers, ``--json`` is
``to_dict()``), from assumed values or a pilot file, with one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

import qwkit
from cli_helpers import fails, ok


def _pilot(tmp_path, n=150, seed=20261121):
    """Three annotators (the second rated about a third of the items), a real-valued
    machine and an integer judge."""
    rng = np.random.default_rng(seed)
    t = rng.normal(size=n)
    h = np.clip(np.rint(3 + 1.2 * t[:, None] + rng.normal(0, 0.7, (n, 3))), 1, 5)
    h[rng.random(n) < 0.65, 1] = np.nan
    machine = np.round(3 + 1.1 * t + rng.normal(0, 0.6, n), 3)
    judge = np.clip(np.rint(3 + 1.2 * t + rng.normal(0, 0.8, n)), 1, 5)
    lines = ["h1,h2,h3,model,judge"]
    for i in range(n):
        cells = ["" if np.isnan(v) else str(int(v)) for v in h[i]]
        lines.append(",".join([*cells, str(machine[i]), str(int(judge[i]))]))
    path = tmp_path / "pilot.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, h, machine, judge


class TestPlanDegradation:
    def test_assumed_kappas(self):
        out = json.loads(ok("plan", "degradation", "--kappa-hh", "0.75", "--kappa-hm", "0.72",
                            "--json").stdout)  # fmt: skip
        ref = qwkit.degradation_sample_size(0.75, 0.72)
        assert out == {"file": None, **json.loads(json.dumps(ref.to_dict()))}
        text = ok("plan", "degradation", "--kappa-hh", "0.75", "--kappa-hm", "0.72").stdout
        assert "double-scored items needed" in text and str(ref.n_items) in text

    def test_failing_kappas_give_a_reason(self):
        text = ok("plan", "degradation", "--kappa-hh", "0.8", "--kappa-hm", "0.65").stdout
        assert "none" in text and "at or below −margin" in " ".join(text.split())

    def test_pilot_file(self, tmp_path):
        path, h, machine, _ = _pilot(tmp_path)
        args = ("plan", "degradation", path, "--human", "h1,h2", "--machine", "model")
        out = json.loads(ok(*args, "--power", "0.9", "--json").stdout)
        ref = qwkit.degradation_sample_size(human=h[:, :2], machine=machine, power=0.9)
        assert out["n_items"] == ref.n_items and out["file"] == str(path)
        assert out["standard_deviation"] == pytest.approx(ref.standard_deviation, rel=1e-12)
        stated = json.loads(ok(*args, "--expected-degradation", "-0.05", "--json").stdout)
        assert stated["expected_degradation"] == -0.05 and stated["n_items"] > out["n_items"]
        worse = ok(*args, "--expected-degradation", "-0.2").stdout
        assert "none" in worse

    def test_errors(self, tmp_path):
        path, *_ = _pilot(tmp_path)
        line = fails("plan", "degradation", "--kappa-hh", "0.8", code=2)
        assert "--kappa-hm" in line
        line = fails("plan", "degradation", path, "--kappa-hh", "0.8", code=2)
        assert "is an assumption and FILE a pilot" in line
        line = fails("plan", "degradation", "--human", "h1,h2", code=2)
        assert "goes with a pilot FILE" in line
        line = fails("plan", "degradation", path, "--human", "h1,h2", code=2)
        assert "give --machine COLUMN" in line
        line = fails("plan", "degradation", "--kappa-hh", "1.2", "--kappa-hm", "0.7")
        assert "--kappa-hh must be a kappa in [0, 1); got 1.2" in line
        line = fails("plan", "degradation", "--kappa-hh", "0.8", "--kappa-hm", "0.7", "--power",
                     "1.5", code=2)  # fmt: skip
        assert "--power" in line
        line = fails("plan", "degradation", "--kappa-hh", "0.8", "--kappa-hm", "0.7",
                     "--alpha", "0.6")  # fmt: skip
        assert "--alpha is the level of a one-sided test" in line
        line = fails("plan", "degradation", path, "--human", "h1,h2", "--machine", "nope")
        assert "nope" in line


class TestPlanAltTest:
    def test_assumed_rates(self):
        args = ("plan", "alt-test", "--advantage", "0.7", "--ties", "0.3", "--epsilon", "0.15",
                "--annotators", "3,5", "--seed", "4")  # fmt: skip
        out = json.loads(ok(*args, "--json").stdout)
        ref = qwkit.alt_test_sample_size(
            advantage=[0.7], ties=[0.3], epsilon=0.15, n_annotators=[3, 5], rng=4
        )
        assert out == {"file": None, **json.loads(json.dumps(ref.to_dict()))}
        text = " ".join(ok(*args).stdout.split())
        plan = f"Plan: {ref.n_annotators} annotators x {ref.n_items_per_annotator} items each"
        assert plan in text and "(plan)" in text

    def test_rates_per_annotator_and_no_design(self):
        out = json.loads(
            ok(
                "plan",
                "alt-test",
                "--advantage",
                "0.7,0.6",
                "--ties",
                "0.2,0.2",
                "--annotators",
                "2",
                "--json",
            ).stdout
        )
        assert len(out["rates"]) == 2 and out["annotators"] == [2]
        text = " ".join(ok("plan", "alt-test", "--advantage", "0.3").stdout.split())
        assert "No design reaches the power" in text and "no number of items" in text
        text = " ".join(
            ok(
                "plan",
                "alt-test",
                "--advantage",
                "0.6",
                "--ties",
                "0.3",
                "--annotators",
                "3",
                "--max-items",
                "40",
            ).stdout.split()
        )
        assert "raise --max-items" in text

    def test_pilot_file(self, tmp_path):
        path, h, _, judge = _pilot(tmp_path)
        args = ("plan", "alt-test", path, "--human", "h1,h2,h3", "--judge", "judge",
                "--annotators", "3", "--simulations", "2000", "--json")  # fmt: skip
        out = json.loads(ok(*args).stdout)
        ref = qwkit.alt_test_sample_size(h, judge, n_annotators=3, n_simulations=2000, rng=20261121)
        assert out["items_per_annotator"] == list(ref.items_per_annotator)
        assert out["rates"] == [list(r) for r in ref.rates] and out["alignment"] == "accuracy"

    def test_errors(self, tmp_path):
        path, *_ = _pilot(tmp_path)
        line = fails("plan", "alt-test", code=2)
        assert "--advantage" in line
        line = fails("plan", "alt-test", path, "--advantage", "0.6", code=2)
        assert "is an assumption and FILE a pilot" in line
        line = fails("plan", "alt-test", "--advantage", "0.6,1.3")
        assert "--advantage must hold probabilities in [0, 1]; got 1.3 at value 2" in line
        line = fails("plan", "alt-test", "--advantage", "high", code=2)
        assert "comma-separated numbers" in line
        line = fails("plan", "alt-test", "--advantage", "0.6", "--ties", "0.7")
        assert "--ties (0.7) cannot exceed --advantage (0.6)" in line
        line = fails("plan", "alt-test", "--advantage", "0.6", "--annotators", "1,3")
        assert "--annotators must be at least 2" in line
        line = fails("plan", "alt-test", "--advantage", "0.6", "--epsilon", "1")
        assert "--epsilon must be in [0, 1)" in line
        line = fails("plan", "alt-test", path, "--human", "h1", "--judge", "judge", code=2)
        assert "at least two" in line
        line = fails("plan", "alt-test", path, "--human", "h1,h2,judge", "--judge", "judge",
                     code=2)  # fmt: skip
        assert "given to both --human and --judge" in line
