"""qwkit: quadratic weighted kappa — exact, fast, with inference and optimization.

The public API is flat: ``qwkit.kappa_score``, ``qwkit.confusion_matrix``, ...
Integrations with heavy dependencies live in their own modules and are never
imported here.

``import qwkit`` loads nothing but this file: each public name is imported from its
home the first time it is used (PEP 562, :func:`__getattr__`), so that the package and
its command line start at once and numpy, scipy and numba load only when a function
that needs them is called for. ``from qwkit import kappa_score``, ``dir(qwkit)``,
``help(qwkit)`` and unpickling a result work as with eager imports. A new public name
is registered in three places here — :data:`_HOMES` (where it lives), the
``TYPE_CHECKING`` imports (what type checkers and editors read) and ``__all__`` — and
``tests/test_startup.py`` checks that the three agree (CONTRIBUTING.md, "Start-up").
"""

# ruff: noqa: E402 - Ctrl-C while the command line loads the package is the command's
from qwkit._base import _startup

_startup.loading()

from importlib import import_module as _import_module

TYPE_CHECKING = False
if TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
    from qwkit._agreement import (
        AgreementTestResult,
        BenchmarkResult,
        CategoryAgreementResult,
        ConcordanceResult,
        ICCResult,
        KendallWResult,
        MarginalHomogeneityResult,
        PairwiseKappas,
        RaterAgreementResult,
        RatingsTable,
        agreement_from_counts,
        agreement_score,
        agreement_test,
        agreement_test_from_counts,
        category_agreement,
        category_kappas,
        concordance_correlation,
        icc,
        kendall_w,
        marginal_homogeneity_test,
        rater_agreement,
        ratings_from_long,
    )
    from qwkit._base._errors import QwkitError, QwkitTypeError
    from qwkit._base._warnings import (
        ConvergenceWarning,
        DegenerateIntervalWarning,
        DesignWarning,
        ScaleWarning,
        UndefinedKappaWarning,
    )
    from qwkit._base._weights import weight_matrix
    from qwkit._calibration import (
        HumanScaleEstimate,
        JudgeCalibration,
        ScaleComparison,
        ScaleEstimate,
        calibrate_judge,
        human_scale_estimate,
    )
    from qwkit._costs import (
        RiskClassModel,
        cost_matrix,
        expected_cost,
        insurance_loss_matrix,
        risk_class_model,
    )
    from qwkit._datasets import (
        Hanna,
        HannaJudges,
        WineQuality,
        load_hanna,
        load_hanna_judges,
        load_wine_quality,
    )
    from qwkit._decision import bayes_decision, kappa_decision
    from qwkit._evaluation import (
        AltTestResult,
        AltTestSampleSizeResult,
        Comparison,
        Criterion,
        DegradationEstimate,
        DegradationTestResult,
        Descriptives,
        Diagnostic,
        Estimate,
        EvaluationResult,
        FairnessResult,
        GroupEvaluation,
        HumanAgreement,
        ModelEvaluation,
        PRMSEResult,
        RegressionFit,
        SampleSizeResult,
        ScoreDistribution,
        SMDResult,
        TraitEvaluationResult,
        alt_test,
        alt_test_sample_size,
        degradation_sample_size,
        degradation_test,
        evaluate_scorer,
        evaluate_traits,
        prmse,
        standardized_mean_difference,
    )
    from qwkit._gradients import kappa_gradient_hessian
    from qwkit._judge import (
        HumanReliability,
        JudgeConsistency,
        JudgePanel,
        JudgeReliabilityResult,
        KappaWithHumans,
        PositionBias,
        PositionBiasResult,
        PromptComparison,
        ReliabilityEstimate,
        RunsNeeded,
        judge_reliability,
        position_bias_sample_size,
        position_bias_test,
    )
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
    "AltTestSampleSizeResult",
    "BenchmarkResult",
    "CategoryAgreementResult",
    "Comparison",
    "ConcordanceResult",
    "ConfidenceInterval",
    "ConvergenceWarning",
    "Criterion",
    "DegenerateIntervalWarning",
    "DegradationEstimate",
    "DegradationTestResult",
    "Descriptives",
    "DesignWarning",
    "Diagnostic",
    "DinkelbachCertificate",
    "Estimate",
    "EvaluationResult",
    "FairnessResult",
    "GroupEvaluation",
    "Hanna",
    "HannaJudges",
    "HumanAgreement",
    "HumanReliability",
    "HumanScaleEstimate",
    "ICCResult",
    "JudgeCalibration",
    "JudgeConsistency",
    "JudgePanel",
    "JudgeReliabilityResult",
    "KappaAccumulator",
    "KappaComparisonResult",
    "KappaRegressionResult",
    "KappaRescaleResult",
    "KappaTestResult",
    "KappaWithHumans",
    "KendallWResult",
    "MarginalHomogeneityResult",
    "ModelEvaluation",
    "OptimismResult",
    "PRMSEResult",
    "PairwiseComparisonResult",
    "PairwiseKappas",
    "PositionBias",
    "PositionBiasResult",
    "PromptComparison",
    "QwkitError",
    "QwkitTypeError",
    "RaterAgreementResult",
    "RatingsTable",
    "RegressionFit",
    "ReliabilityEstimate",
    "RiskClassModel",
    "RunsNeeded",
    "SMDResult",
    "SampleSizeResult",
    "ScaleComparison",
    "ScaleEstimate",
    "ScaleWarning",
    "ScoreDistribution",
    "SoftKappaAccumulator",
    "ThresholdAccumulator",
    "ThresholdResult",
    "TraitEvaluationResult",
    "UndefinedKappaWarning",
    "WineQuality",
    "__version__",
    "agreement_from_counts",
    "agreement_score",
    "agreement_test",
    "agreement_test_from_counts",
    "alt_test",
    "alt_test_sample_size",
    "apply_thresholds",
    "bayes_decision",
    "calibrate_judge",
    "category_agreement",
    "category_kappas",
    "compare_kappa_test",
    "concordance_correlation",
    "confusion_matrix",
    "cost_matrix",
    "degradation_sample_size",
    "degradation_test",
    "evaluate_scorer",
    "evaluate_traits",
    "expected_cost",
    "human_scale_estimate",
    "icc",
    "insurance_loss_matrix",
    "judge_reliability",
    "kappa_decision",
    "kappa_from_confusion",
    "kappa_gradient_hessian",
    "kappa_regression",
    "kappa_rescale",
    "kappa_score",
    "kappa_test",
    "kappa_test_from_confusion",
    "kendall_w",
    "load_hanna",
    "load_hanna_judges",
    "load_wine_quality",
    "marginal_homogeneity_test",
    "mean_kappa",
    "optimism_corrected_kappa",
    "optimize_thresholds",
    "pairwise_compare_kappa_test",
    "position_bias_sample_size",
    "position_bias_test",
    "prmse",
    "rater_agreement",
    "ratings_from_long",
    "risk_class_model",
    "soft_kappa_score",
    "standardized_mean_difference",
    "weight_matrix",
]

#: Where each public name lives (the module that ``qwkit.<name>`` imports on first use)
#: -> the names, separated by spaces.
_HOMES: dict[str, str] = {
    "qwkit._agreement": (
        "AgreementTestResult BenchmarkResult CategoryAgreementResult ConcordanceResult ICCResult "
        "KendallWResult MarginalHomogeneityResult PairwiseKappas RaterAgreementResult "
        "RatingsTable agreement_from_counts agreement_score agreement_test "
        "agreement_test_from_counts category_agreement category_kappas concordance_correlation "
        "icc kendall_w marginal_homogeneity_test rater_agreement ratings_from_long"
    ),
    "qwkit._base._errors": "QwkitError QwkitTypeError",
    "qwkit._base._warnings": (
        "ConvergenceWarning DegenerateIntervalWarning DesignWarning ScaleWarning "
        "UndefinedKappaWarning"
    ),
    "qwkit._base._weights": "weight_matrix",
    "qwkit._calibration": (
        "HumanScaleEstimate JudgeCalibration ScaleComparison ScaleEstimate calibrate_judge "
        "human_scale_estimate"
    ),
    "qwkit._costs": (
        "RiskClassModel cost_matrix expected_cost insurance_loss_matrix risk_class_model"
    ),
    "qwkit._datasets": (
        "Hanna HannaJudges WineQuality load_hanna load_hanna_judges load_wine_quality"
    ),
    "qwkit._decision": "bayes_decision kappa_decision",
    "qwkit._evaluation": (
        "AltTestResult AltTestSampleSizeResult Comparison Criterion DegradationEstimate "
        "DegradationTestResult Descriptives Diagnostic Estimate EvaluationResult "
        "FairnessResult GroupEvaluation HumanAgreement ModelEvaluation PRMSEResult "
        "RegressionFit SampleSizeResult ScoreDistribution SMDResult TraitEvaluationResult "
        "alt_test alt_test_sample_size degradation_sample_size degradation_test "
        "evaluate_scorer evaluate_traits prmse standardized_mean_difference"
    ),
    "qwkit._gradients": "kappa_gradient_hessian",
    "qwkit._judge": (
        "HumanReliability JudgeConsistency JudgePanel JudgeReliabilityResult KappaWithHumans "
        "PositionBias PositionBiasResult PromptComparison ReliabilityEstimate RunsNeeded "
        "judge_reliability position_bias_sample_size position_bias_test"
    ),
    "qwkit._kappa": (
        "KappaAccumulator KappaComparisonResult KappaTestResult PairwiseComparisonResult "
        "SoftKappaAccumulator compare_kappa_test confusion_matrix kappa_from_confusion "
        "kappa_score kappa_test kappa_test_from_confusion mean_kappa pairwise_compare_kappa_test "
        "soft_kappa_score"
    ),
    "qwkit._regression": "KappaRegressionResult KappaRescaleResult kappa_regression kappa_rescale",
    "qwkit._table._resampling": "ConfidenceInterval",
    "qwkit._thresholds": (
        "DinkelbachCertificate OptimismResult ThresholdAccumulator ThresholdResult "
        "apply_thresholds optimism_corrected_kappa optimize_thresholds"
    ),
}
_HOME_OF = {name: home for home, names in _HOMES.items() for name in names.split()}


if not TYPE_CHECKING:  # type checkers read the imports above: `qwkit.typo` is an error

    def __getattr__(name: str) -> object:
        """Import a public name from its home on first use (PEP 562) and keep it here."""
        try:
            home = _HOME_OF[name]
        except KeyError:
            raise AttributeError(f"module 'qwkit' has no attribute {name!r}") from None
        value = getattr(_import_module(home), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})
