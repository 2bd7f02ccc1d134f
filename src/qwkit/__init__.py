"""qwkit: quadratic weighted kappa — exact, fast, with inference and optimization.

The public API is flat: ``qwkit.kappa_score``, ``qwkit.confusion_matrix``, ...
Integrations with heavy dependencies live in their own modules and are never
imported here.
"""

from qwkit._accumulator import KappaAccumulator
from qwkit._datasets import WineQuality, load_wine_quality
from qwkit._kappa import (
    confusion_matrix,
    kappa_from_confusion,
    kappa_score,
    soft_kappa_score,
    weight_matrix,
)
from qwkit._warnings import ConvergenceWarning, UndefinedKappaWarning

__version__ = "0.1.0"

__all__ = [
    "ConvergenceWarning",
    "KappaAccumulator",
    "UndefinedKappaWarning",
    "WineQuality",
    "__version__",
    "confusion_matrix",
    "kappa_from_confusion",
    "kappa_score",
    "load_wine_quality",
    "soft_kappa_score",
    "weight_matrix",
]
