"""How a criterion of the evaluation becomes a test (the criteria's records are in
``qwkit._base._registry``: ``CRITERIA``).

Williamson, Xi & Breyer (2012) flag an automated scorer whose quadratic kappa or Pearson's
r with a human falls below 0.70, whose kappa falls more than 0.10 below the human-human
kappa, whose standardized mean difference exceeds 0.15 in absolute value, or whose SMD
within a subgroup exceeds 0.10. Here each is a test (an estimate, an interval, the
threshold, a p-value and a verdict), and RSMTool's difference of standardized means (DSM)
per subgroup is one more (Loukina, Madnani & Zechner 2019's threshold 0.10). A record
says what the criterion is — its name, how tables print it, the relation, the parameter
of :func:`qwkit.evaluate_scorer` that holds its threshold and that threshold's default,
where the threshold comes from, what it needs, and which statistic of the evaluation it
tests. The API, the command line (``--criteria``, the threshold options), the reports
and the docs' table read these records.
"""

from __future__ import annotations

import math

from qwkit._base._registry import CriterionRecord
from qwkit._evaluation._estimates import MIN_UNITS, Inference
from qwkit._evaluation._records import Criterion, Estimate

__all__ = ["criterion_test", "test_pvalue", "too_few", "verdict"]


def verdict(low: float, high: float, threshold: float, relation: str) -> str:
    """'pass' when the whole interval lies on the passing side of the threshold, 'fail'
    when it lies wholly on the other side, else 'inconclusive' (``relation`` is '>=',
    '<=' or 'within': |θ| ≤ threshold)."""
    if math.isnan(low) or math.isnan(high):
        return "inconclusive"
    if relation == ">=":
        return "pass" if low > threshold else "fail" if high < threshold else "inconclusive"
    if relation == "<=":
        return "pass" if high < threshold else "fail" if low > threshold else "inconclusive"
    if -threshold < low and high < threshold:
        return "pass"
    return "fail" if low > threshold or high < -threshold else "inconclusive"


def test_pvalue(inf: Inference, threshold: float, relation: str) -> float:
    """The p-value of the one-sided test (">=") or of the two one-sided tests ("within")
    that the interval of ``inf`` inverts."""
    if relation == "within":
        return max(inf.pvalue(-threshold, "greater"), inf.pvalue(threshold, "less"))
    if relation == "<=":
        return inf.pvalue(threshold, "less")
    return inf.pvalue(threshold, "greater")


def too_few(estimate: Estimate, units: str) -> str:
    """Why a verdict is inconclusive whatever its interval ("" when it is not)."""
    n = estimate.n_units
    if n >= MIN_UNITS:
        return ""
    what = "clusters" if estimate.n_clusters is not None else units
    return (
        f"{n} {what}: the test holds its level from {MIN_UNITS} (docs/evaluation.md, small samples)"
    )


def criterion_test(
    record: CriterionRecord,
    model: str,
    estimate: Estimate,
    inf: Inference,
    threshold: float,
) -> Criterion:
    """The criterion ``record`` as a test of ``estimate`` against ``threshold``."""
    relation = record.relation
    reason = too_few(estimate, record.units)
    found = verdict(estimate.low, estimate.high, threshold, relation)
    return Criterion(
        model=model,
        criterion=record.name,
        name=record.display,
        estimate=estimate.statistic,
        low=estimate.low,
        high=estimate.high,
        threshold=threshold,
        relation=relation,
        pvalue=test_pvalue(inf, threshold, relation),
        verdict="inconclusive" if reason else found,
        reason=reason,
    )
