"""May a machine or an LLM judge stand in for a human rater? Human-machine evaluation
with inference: the degradation test, PRMSE, the standardized mean difference, the
Alternative Annotator Test, Williamson et al.'s criteria as tests, and sample sizes.

The public functions are re-exported flat by ``qwkit``; ``docs/evaluation.md`` derives
the formulas whose equation numbers the code cites.
"""

from qwkit._base._results import public_module
from qwkit._evaluation._alt_planning import AltTestSampleSizeResult, alt_test_sample_size
from qwkit._evaluation._alt_test import AltTestResult, alt_test
from qwkit._evaluation._degradation import DegradationTestResult, degradation_test
from qwkit._evaluation._evaluate import evaluate_scorer
from qwkit._evaluation._fairness import FairnessResult, GroupEvaluation, RegressionFit
from qwkit._evaluation._observed import SMDResult, standardized_mean_difference
from qwkit._evaluation._planning import SampleSizeResult, degradation_sample_size
from qwkit._evaluation._prmse import PRMSEResult, prmse
from qwkit._evaluation._records import (
    Comparison,
    Criterion,
    DegradationEstimate,
    Descriptives,
    Diagnostic,
    Estimate,
    ScoreDistribution,
)
from qwkit._evaluation._result import EvaluationResult, HumanAgreement, ModelEvaluation
from qwkit._evaluation._traits import TraitEvaluationResult, evaluate_traits

__all__ = [
    "AltTestResult",
    "AltTestSampleSizeResult",
    "Comparison",
    "Criterion",
    "DegradationEstimate",
    "DegradationTestResult",
    "Descriptives",
    "Diagnostic",
    "Estimate",
    "EvaluationResult",
    "FairnessResult",
    "GroupEvaluation",
    "HumanAgreement",
    "ModelEvaluation",
    "PRMSEResult",
    "RegressionFit",
    "SMDResult",
    "SampleSizeResult",
    "ScoreDistribution",
    "TraitEvaluationResult",
    "alt_test",
    "alt_test_sample_size",
    "degradation_sample_size",
    "degradation_test",
    "evaluate_scorer",
    "evaluate_traits",
    "prmse",
    "standardized_mean_difference",
]

# Public classes report ``qwkit`` as their module (``qwkit.EvaluationResult``), however
# they were first imported.
public_module(*[globals()[name] for name in __all__ if isinstance(globals()[name], type)])
