"""qwkit: quadratic weighted kappa — exact, fast, with inference and optimization.

The public API is flat: ``qwkit.kappa_score``, ``qwkit.confusion_matrix``, ...
Integrations with heavy dependencies live in their own modules and are never
imported here.
"""

# ruff: noqa: E402 - Ctrl-C while the command line loads the package is the command's
from qwkit._base import _startup

_startup.loading()

from qwkit._agreement import (
    AgreementTestResult,
    PairwiseKappas,
    RaterAgreementResult,
    RatingsTable,
    agreement_from_counts,
    agreement_score,
    agreement_test,
    agreement_test_from_counts,
    rater_agreement,
    ratings_from_long,
)
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._results import public_module
from qwkit._base._warnings import (
    ConvergenceWarning,
    DegenerateIntervalWarning,
    ScaleWarning,
    UndefinedKappaWarning,
)
from qwkit._base._weights import weight_matrix
from qwkit._costs import (
    RiskClassModel,
    cost_matrix,
    expected_cost,
    insurance_loss_matrix,
    risk_class_model,
)
from qwkit._datasets import Hanna, WineQuality, load_hanna, load_wine_quality
from qwkit._decision import bayes_decision, kappa_decision
from qwkit._evaluation import (
    AltTestResult,
    Criterion,
    DegradationTestResult,
    Estimate,
    EvaluationResult,
    GroupEvaluation,
    HumanAgreement,
    ModelEvaluation,
    PRMSEResult,
    SampleSizeResult,
    SMDResult,
    alt_test,
    degradation_sample_size,
    degradation_test,
    evaluate_scorer,
    prmse,
    standardized_mean_difference,
)
from qwkit._gradients import kappa_gradient_hessian
from qwkit._kappa import (
    KappaAccumulator,
    KappaComparisonResult,
    KappaTestResult,
    PairwiseComparisonResult,
    SoftKappaAccumulator,
    compare_kappa_test,
    confusion_matrix,
    kappa_from_confusion,
    kappa_score,
    kappa_test,
    kappa_test_from_confusion,
    mean_kappa,
    pairwise_compare_kappa_test,
    soft_kappa_score,
)
from qwkit._regression import (
    KappaRegressionResult,
    KappaRescaleResult,
    kappa_regression,
    kappa_rescale,
)
from qwkit._table._resampling import ConfidenceInterval
from qwkit._thresholds import (
    DinkelbachCertificate,
    OptimismResult,
    ThresholdAccumulator,
    ThresholdResult,
    apply_thresholds,
    optimism_corrected_kappa,
    optimize_thresholds,
)

__version__ = "0.2.0"

__all__ = [
    "AgreementTestResult",
    "AltTestResult",
    "ConfidenceInterval",
    "ConvergenceWarning",
    "Criterion",
    "DegenerateIntervalWarning",
    "DegradationTestResult",
    "DinkelbachCertificate",
    "Estimate",
    "EvaluationResult",
    "GroupEvaluation",
    "Hanna",
    "HumanAgreement",
    "KappaAccumulator",
    "KappaComparisonResult",
    "KappaRegressionResult",
    "KappaRescaleResult",
    "KappaTestResult",
    "ModelEvaluation",
    "OptimismResult",
    "PRMSEResult",
    "PairwiseComparisonResult",
    "PairwiseKappas",
    "QwkitError",
    "QwkitTypeError",
    "RaterAgreementResult",
    "RatingsTable",
    "RiskClassModel",
    "SMDResult",
    "SampleSizeResult",
    "ScaleWarning",
    "SoftKappaAccumulator",
    "ThresholdAccumulator",
    "ThresholdResult",
    "UndefinedKappaWarning",
    "WineQuality",
    "__version__",
    "agreement_from_counts",
    "agreement_score",
    "agreement_test",
    "agreement_test_from_counts",
    "alt_test",
    "apply_thresholds",
    "bayes_decision",
    "compare_kappa_test",
    "confusion_matrix",
    "cost_matrix",
    "degradation_sample_size",
    "degradation_test",
    "evaluate_scorer",
    "expected_cost",
    "insurance_loss_matrix",
    "kappa_decision",
    "kappa_from_confusion",
    "kappa_gradient_hessian",
    "kappa_regression",
    "kappa_rescale",
    "kappa_score",
    "kappa_test",
    "kappa_test_from_confusion",
    "load_hanna",
    "load_wine_quality",
    "mean_kappa",
    "optimism_corrected_kappa",
    "optimize_thresholds",
    "pairwise_compare_kappa_test",
    "prmse",
    "rater_agreement",
    "ratings_from_long",
    "risk_class_model",
    "soft_kappa_score",
    "standardized_mean_difference",
    "weight_matrix",
]

public_module(
    AltTestResult,
    ConfidenceInterval,
    Criterion,
    DegradationTestResult,
    Estimate,
    EvaluationResult,
    GroupEvaluation,
    Hanna,
    HumanAgreement,
    ModelEvaluation,
    PRMSEResult,
    SampleSizeResult,
    SMDResult,
    ConvergenceWarning,
    DegenerateIntervalWarning,
    DinkelbachCertificate,
    KappaAccumulator,
    KappaComparisonResult,
    KappaRegressionResult,
    KappaRescaleResult,
    KappaTestResult,
    PairwiseComparisonResult,
    QwkitError,
    QwkitTypeError,
    RiskClassModel,
    ScaleWarning,
    SoftKappaAccumulator,
    ThresholdAccumulator,
    ThresholdResult,
    UndefinedKappaWarning,
    WineQuality,
)
del public_module
