"""Memory in proportion to the input, never to a rating's value (issue 28, item 5 and
sweep (d)).

Every public function that builds a table from ratings is called (``memory_cases.py``,
in one process whose address space is limited to what it holds plus 1 GiB) with ratings
far apart — 0, 10**12 and 2·10**12, as integers and as floats — and far from zero —
2**62 + 0, 1, 2, and unsigned 2**63 − 1 + 0, 1, 2. Each either works (a table as large as
the span of the ratings would need terabytes) or refuses with a clear error: a
``QwkitError`` naming its parameter. A ``MemoryError`` fails the case. Which cases may
refuse is written down below, with the reason, so that a case that works keeps working.
Before: ``category_agreement`` and ``marginal_homogeneity_test`` of six ratings in
{0, 10**12} raised ``MemoryError`` (they built the labels of every integer in the span).
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import qwkit
import qwkit.dask
import qwkit.polars
from memory_cases import EXTREME, LIMITED, _cases

HERE = Path(__file__).parent

#: Functions whose value cannot be computed from integers beyond 2**63 − 1 without an
#: explicit scale: they refuse and ask for `labels` (their `labels` cases work).
_NEEDS_LABELS = (
    "kappa_score",
    "kappa_score sample_weight",
    "kappa_test",
    "kappa_test bootstrap",
    "confusion_matrix",
    "compare_kappa_test",
    "pairwise_compare_kappa_test",
    "KappaAccumulator",
    "optimize_thresholds",
    "ThresholdAccumulator",
    "optimism_corrected_kappa",
    "evaluate_scorer",
    "evaluate_traits",
    "degradation_test",
    "prmse",
    "standardized_mean_difference",
    "alt_test",
    "alt_test_sample_size",
    "degradation_sample_size",
    "qwkit.dask",
    "qwkit.dask optimize_thresholds",
    "qwkit.polars",
)
#: Functions of real-valued targets: 2**62 + 0, 1, 2 are one float64, a constant target.
_REAL_VALUED = ("kappa_rescale", "kappa_regression", "kappa_gradient_hessian")
#: A dense table over every integer of the span (bounded: 10,000 or 1,024 categories).
_DENSE = (
    "confusion_matrix",
    "KappaAccumulator",
    "optimize_thresholds",
    "ThresholdAccumulator",
    "optimism_corrected_kappa",
    "qwkit.dask",
    "qwkit.dask optimize_thresholds",
)
#: Krippendorff's ratio metric sums over every category of the scale: O(q²), bounded.
_WHOLE_SCALE = ("agreement_score", "agreement_score RatingsTable")

#: The judge on the human scale: the scale is the integer range of the human ratings when
#: no ``labels`` are declared (as the docs say); a span too wide for a scale is refused.
_HUMAN_SCALE = ("calibrate_judge", "human_scale_estimate")

MAY_REFUSE = {
    **{(name, family): "scale" for name in _HUMAN_SCALE for family in EXTREME},
    **{(name, "uint64 about 2**63"): "labels" for name in _NEEDS_LABELS},
    **{(name, family): "float64" for name in _REAL_VALUED for family in EXTREME[1:3]},
    **{(name, family): "span" for name in _DENSE + _WHOLE_SCALE for family in EXTREME[::3]},
}


@pytest.fixture(scope="module")
def outcomes() -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    done = subprocess.run(
        [sys.executable, str(HERE / "memory_cases.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return {(d["case"], d["family"]): d for d in lines}


CASES = [(name, family) for name in _cases() for family in EXTREME]


class TestFlatMemory:
    @pytest.mark.parametrize(("case", "family"), CASES)
    def test_works_or_refuses_clearly(self, outcomes, case, family):
        got = outcomes[case, family]
        assert got["outcome"] != "memory", f"{case} on {family} ratings needs more than 1 GiB"
        if (case, family) not in MAY_REFUSE:
            assert got["outcome"] == "ok", got
            return
        if got["outcome"] == "refused":
            assert got["type"] in ("QwkitError", "QwkitTypeError"), got
            # the error names the parameter (Polars keeps the message, not the attribute)
            named = got["parameter"] or re.search(r"`(\w+)`", got["message"]).group(1)
            assert f"`{named}`" in got["message"] or named == "labels", got

    @pytest.mark.parametrize("case", [c for c in LIMITED if "Light" in c or "agreement" in c])
    def test_light_s_kappa_of_many_pairs_of_ratings(self, outcomes, case):
        # 11 million pairs of ratings of one item took 1.9 GB (3,000 items × 300 raters,
        # 134 million, more than 3 GiB: the issue's panel): now per-pair sums
        assert outcomes[case, "any"]["outcome"] == "ok", outcomes[case, "any"]

    @pytest.mark.parametrize("case", [c for c in LIMITED if "to_wide" in c])
    def test_a_matrix_that_does_not_fit_is_refused_with_its_size(self, outcomes, case):
        # just under 2**31 cells (18 GiB) to_wide asked numpy for the memory (MemoryError
        # where it is not there); now both sizes are refused with what they need
        got = outcomes[case, "any"]
        assert (got["outcome"], got["parameter"]) == ("refused", "ratings"), got
        assert "GiB" in got["message"] and "table itself" in got["message"]

    def test_the_issue_s_calls(self):
        # six ratings in {0, 10**12}: MemoryError before
        panel = [[0, 10**12, 0], [10**12, 0, 0]]
        res = qwkit.category_agreement(panel)
        assert res.labels.tolist() == [0, 10**12]
        assert res.kappas == {0: res.statistic[0], 10**12: res.statistic[1]}
        mh = qwkit.marginal_homogeneity_test([0, 10**12, 0], [10**12, 0, 10**12])
        assert mh.labels.tolist() == [0, 10**12] and mh.differences.tolist() == [1, -1]
        assert qwkit.kappa_score([0, 10**12, 0], [10**12, 0, 10**12]) == pytest.approx(-0.8)


#: Public names that build no table from ratings (results, warnings, errors, the scale
#: and cost matrices of a number of classes, kappa of a given table, the data sets).
NO_TABLE = {
    "position_bias_test",  # verdicts on three fixed labels: a 3×3 table
    "position_bias_sample_size",  # rates, no ratings
    # the records of a judge_reliability result (its case), built by it
    "HumanReliability",
    "JudgeConsistency",
    "JudgePanel",
    "KappaWithHumans",
    "PositionBias",
    "PromptComparison",
    "ReliabilityEstimate",
    "RunsNeeded",
    "bayes_decision",  # probabilities and a cost matrix
    "cost_matrix",
    "expected_cost",
    "insurance_loss_matrix",
    "kappa_from_confusion",  # a table already
    "kappa_test_from_confusion",
    "load_hanna",
    "load_hanna_judges",
    "load_wine_quality",
    "mean_kappa",  # kappas
    "risk_class_model",
    "weight_matrix",
}


def test_every_public_function_is_a_case():
    """A new public function joins the table of cases (or ``NO_TABLE``, with a reason)."""
    names = {
        name
        for module, prefix in ((qwkit, ""), (qwkit.dask, "qwkit.dask "))
        for name in module.__all__
        if callable(obj := getattr(module, name))
        and not (inspect.isclass(obj) and issubclass(obj, (Exception, Warning)))
        and not name.endswith(("Result", "Kappas"))
        and name not in ("Criterion", "Estimate", "GroupEvaluation", "HumanAgreement")
        and name not in ("ModelEvaluation", "DinkelbachCertificate", "RiskClassModel")
        and name not in ("Hanna", "HannaJudges", "WineQuality", "ConfidenceInterval", "data_files")
        # the records of an evaluation's result
        and name not in ("Comparison", "DegradationEstimate", "Descriptives", "Diagnostic")
        and name not in ("RegressionFit", "ScoreDistribution", "ScaleEstimate")
        and name not in ("ScaleComparison", "JudgeCalibration", "HumanScaleEstimate")
    }
    covered = {case.split(" ")[0] for case, _ in CASES} | {"RatingsTable"}
    covered |= {"qwkit.dask " + n for n in qwkit.dask.__all__ if "qwkit.dask" in covered}
    assert names - covered - NO_TABLE == set()
    assert "KappaNamespace" in qwkit.polars.__all__ and "qwkit.polars" in covered
