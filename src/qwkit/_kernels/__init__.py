"""Numba kernels: validated, fixed-dtype arrays in; arrays or scalars out.

No defaults, no ``None``, no user-facing errors live here: the API layer validates
first (a kernel reports a bad position as an index, and the caller raises). Numba
options are set once, in ``_jit``.

Who may import what — the floors of the package, kernels at the bottom — is in
``CONTRIBUTING.md`` ("The map of the package").
"""

from qwkit._kernels._agreement import ratio_apply
from qwkit._kernels._counts import (
    LIMB_BITS,
    confusion_counts,
    confusion_weighted,
    five_sums,
    five_sums_checked,
    five_sums_limbs,
    five_sums_shifted,
    minmax2,
    scan_weights,
)
from qwkit._kernels._exact import (
    aggregate_pairs_exact,
    bincount_exact,
    confusion_exact,
    confusion_narrow,
    finish_table,
    normalize_rows,
    round_rows,
    soft_sums,
    soft_sums_weighted,
    weight_extremes,
    window,
)
from qwkit._kernels._thresholds import aggregate_pairs, assignment_table, monotone_dp

__all__ = [
    "LIMB_BITS",
    "aggregate_pairs",
    "aggregate_pairs_exact",
    "assignment_table",
    "bincount_exact",
    "confusion_counts",
    "confusion_exact",
    "confusion_narrow",
    "confusion_weighted",
    "finish_table",
    "five_sums",
    "five_sums_checked",
    "five_sums_limbs",
    "five_sums_shifted",
    "minmax2",
    "monotone_dp",
    "normalize_rows",
    "ratio_apply",
    "round_rows",
    "scan_weights",
    "soft_sums",
    "soft_sums_weighted",
    "weight_extremes",
    "window",
]
