"""Numba kernels: validated, fixed-dtype arrays in; arrays or scalars out.

No defaults, no ``None``, no user-facing errors live here: the API layer validates
first. Every kernel is compiled lazily on first call (so ``import qwkit`` stays fast)
and cached on disk. No ``fastmath``: every path here is meant to be exact.
"""

from qwkit._kernels._agreement import ratio_apply
from qwkit._kernels._counts import (
    confusion_counts,
    confusion_weighted,
    five_sums,
    five_sums_checked,
    five_sums_limbs,
    five_sums_shifted,
    minmax2,
    read_floor,
    scan_weights,
)

__all__ = [
    "confusion_counts",
    "confusion_weighted",
    "five_sums",
    "five_sums_checked",
    "five_sums_limbs",
    "five_sums_shifted",
    "minmax2",
    "ratio_apply",
    "read_floor",
    "scan_weights",
]
