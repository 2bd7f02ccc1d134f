"""Agreement among any number of raters: the coefficients, their standard errors and
tests, from ratings (items × raters, or long format) or from count tables.

The public functions are re-exported flat by ``qwkit``; ``docs/agreement.md`` derives the
formulas whose equation numbers the code cites.
"""

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
    "PairwiseKappas",
    "RaterAgreementResult",
    "RatingsTable",
    "agreement_from_counts",
    "agreement_score",
    "agreement_test",
    "agreement_test_from_counts",
    "rater_agreement",
    "ratings_from_long",
]
