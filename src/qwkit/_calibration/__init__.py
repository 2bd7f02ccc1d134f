"""Put an LLM judge on the human scale: the judge's scores mapped onto the human rating
scale with the kappa the mapping will have (``calibrate_judge``), and human-scale means
and category shares of unlabelled items from a labelled slice, prediction-powered
(``human_scale_estimate``).

The public names are re-exported flat by ``qwkit``; ``docs/calibration.md`` derives the
formulas whose equation numbers the code cites.
"""

from qwkit._calibration._calibrate import JudgeCalibration, calibrate_judge
from qwkit._calibration._estimate import (
    HumanScaleEstimate,
    ScaleComparison,
    ScaleEstimate,
    human_scale_estimate,
)

__all__ = [
    "HumanScaleEstimate",
    "JudgeCalibration",
    "ScaleComparison",
    "ScaleEstimate",
    "calibrate_judge",
    "human_scale_estimate",
]
