"""May a machine or an LLM judge stand in for a human rater? Human-machine evaluation
with inference: the degradation test, PRMSE, the standardized mean difference, the
Alternative Annotator Test, Williamson et al.'s criteria as tests, and sample sizes.

The public functions are re-exported flat by ``qwkit``; ``docs/evaluation.md`` derives
the formulas whose equation numbers the code cites.
"""

from qwkit._evaluation._alt_planning import AltTestSampleSizeResult, alt_test_sample_size
from qwkit._evaluation._alt_test import AltTestResult, alt_test
from qwkit._evaluation._degradation import DegradationTestResult, degradation_test
from qwkit._evaluation._evaluate import evaluate_scorer
from qwkit._evaluation._observed import SMDResult, standardized_mean_difference
from qwkit._evaluation._planning import SampleSizeResult, degradation_sample_size
from qwkit._evaluation._prmse import PRMSEResult, prmse
from qwkit._evaluation._result import (
    Criterion,
    Estimate,
    EvaluationResult,
    GroupEvaluation,
    HumanAgreement,
    ModelEvaluation,
)

__all__ = [
    "AltTestResult",
    "AltTestSampleSizeResult",
    "Criterion",
    "DegradationTestResult",
    "Estimate",
    "EvaluationResult",
    "GroupEvaluation",
    "HumanAgreement",
    "ModelEvaluation",
    "PRMSEResult",
    "SMDResult",
    "SampleSizeResult",
    "alt_test",
    "alt_test_sample_size",
    "degradation_sample_size",
    "degradation_test",
    "evaluate_scorer",
    "prmse",
    "standardized_mean_difference",
]
