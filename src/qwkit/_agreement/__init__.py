"""Agreement among any number of raters: the coefficients, their standard errors and
tests, from ratings (items × raters, or long format) or from count tables.

The public functions are re-exported flat by ``qwkit``; ``docs/agreement.md`` derives the
formulas whose equation numbers the code cites.
"""

from qwkit._agreement._benchmark import BenchmarkResult
from qwkit._agreement._category import (
    CategoryAgreementResult,
    category_agreement,
    category_kappas,
)
from qwkit._agreement._concordance import ConcordanceResult, concordance_correlation
from qwkit._agreement._icc import ICCResult, icc
from qwkit._agreement._kendall import KendallWResult, kendall_w
from qwkit._agreement._marginal import MarginalHomogeneityResult, marginal_homogeneity_test
from qwkit._agreement._rater import PairwiseKappas, RaterAgreementResult, rater_agreement
from qwkit._agreement._score import (
    AgreementTestResult,
    RatingsTable,
    agreement_from_counts,
    agreement_score,
    agreement_test,
    agreement_test_from_counts,
    ratings_from_long,
)

__all__ = [
    "AgreementTestResult",
    "BenchmarkResult",
    "CategoryAgreementResult",
    "ConcordanceResult",
    "ICCResult",
    "KendallWResult",
    "MarginalHomogeneityResult",
    "PairwiseKappas",
    "RaterAgreementResult",
    "RatingsTable",
    "agreement_from_counts",
    "agreement_score",
    "agreement_test",
    "agreement_test_from_counts",
    "category_agreement",
    "category_kappas",
    "concordance_correlation",
    "icc",
    "kendall_w",
    "marginal_homogeneity_test",
    "rater_agreement",
    "ratings_from_long",
]
