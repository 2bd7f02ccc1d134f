"""Weighted kappa of two raters: the score, its inference, comparisons and streaming.

The public functions are re-exported flat by ``qwkit``; ``docs/kappa.md`` and
``docs/inference.md`` derive the formulas whose equation numbers the code cites.
"""

from qwkit._kappa._accumulator import KappaAccumulator
from qwkit._kappa._compare import (
    KappaComparisonResult,
    PairwiseComparisonResult,
    compare_kappa_test,
    mean_kappa,
    pairwise_compare_kappa_test,
)
from qwkit._kappa._inference import KappaTestResult, kappa_test, kappa_test_from_confusion
from qwkit._kappa._score import confusion_matrix, kappa_from_confusion, kappa_score
from qwkit._kappa._soft import SoftKappaAccumulator, soft_kappa_score

__all__ = [
    "KappaAccumulator",
    "KappaComparisonResult",
    "KappaTestResult",
    "PairwiseComparisonResult",
    "SoftKappaAccumulator",
    "compare_kappa_test",
    "confusion_matrix",
    "kappa_from_confusion",
    "kappa_score",
    "kappa_test",
    "kappa_test_from_confusion",
    "mean_kappa",
    "pairwise_compare_kappa_test",
    "soft_kappa_score",
]
