"""Kappa-optimal cut points of real-valued scores: the exact fit, streaming, and the
optimism of the fit (what the cut points will score on new data).

The public functions are re-exported flat by ``qwkit``; ``docs/thresholds.md`` and
``docs/optimism.md`` derive the formulas whose equation numbers the code cites.
"""

from qwkit._thresholds._fit import (
    DinkelbachCertificate,
    ThresholdAccumulator,
    ThresholdResult,
    apply_thresholds,
    optimize_thresholds,
)
from qwkit._thresholds._optimism import OptimismResult, optimism_corrected_kappa

__all__ = [
    "DinkelbachCertificate",
    "OptimismResult",
    "ThresholdAccumulator",
    "ThresholdResult",
    "apply_thresholds",
    "optimism_corrected_kappa",
    "optimize_thresholds",
]
