"""Is an LLM judge reliable? Self-consistency over repeated runs, the runs a target
reliability needs, prompt sensitivity, position bias of pairwise judges, and panels of
judges — each with an interval checked by simulation.

The public functions are re-exported flat by ``qwkit``; ``docs/judge.md`` derives the
formulas whose equation numbers the code cites.
"""

from qwkit._base._results import public_module
from qwkit._judge._position import (
    PositionBias,
    PositionBiasResult,
    position_bias_sample_size,
    position_bias_test,
)
from qwkit._judge._records import (
    KappaWithHumans,
    PromptComparison,
    ReliabilityEstimate,
    RunsNeeded,
)
from qwkit._judge._reliability import judge_reliability
from qwkit._judge._result import (
    HumanReliability,
    JudgeConsistency,
    JudgePanel,
    JudgeReliabilityResult,
)

__all__ = [
    "HumanReliability",
    "JudgeConsistency",
    "JudgePanel",
    "JudgeReliabilityResult",
    "KappaWithHumans",
    "PositionBias",
    "PositionBiasResult",
    "PromptComparison",
    "ReliabilityEstimate",
    "RunsNeeded",
    "judge_reliability",
    "position_bias_sample_size",
    "position_bias_test",
]

# Public classes report ``qwkit`` as their module (``qwkit.JudgeReliabilityResult``).
public_module(*[globals()[name] for name in __all__ if isinstance(globals()[name], type)])
