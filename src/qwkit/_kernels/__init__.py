"""Numba kernels: validated, fixed-dtype arrays in; arrays or scalars out.

No defaults, no ``None``, no user-facing errors live here: the API layer validates
first (a kernel reports a bad position as an index, and the caller raises). Numba
options are set once, in ``_jit``.

A kernel is exported through ``_jit.interruptible``: an interrupt that lands while it
runs is raised as ``KeyboardInterrupt``, never as numba's ``SystemError``.

Who may import what — the floors of the package, kernels at the bottom — is in
``CONTRIBUTING.md`` ("The map of the package").
"""

import numba

from qwkit._kernels._agreement import (
    applied_at_others,
    column_extremes,
    cross_at,
    cross_batch,
    dense_codes,
    distinct_in_groups,
    duplicate_raters,
    group_order,
    integer_offsets,
    integral_extremes,
    linear_within,
    pair_incidences,
    ratio_apply,
    removal_pairs,
)
from qwkit._kernels._counts import (
    LIMB_BITS,
    confusion_counts,
    confusion_counts_par,
    confusion_weighted,
    distinct_extremes,
    five_sums_checked,
    five_sums_limbs,
    five_sums_shifted,
    minmax2,
    pair_cells,
    scan_weights,
)
from qwkit._kernels._exact import (
    bincount_exact,
    confusion_exact,
    finish_table,
    normalize_rows,
    reduce_rows,
    round_rows,
    soft_sums,
    soft_sums_weighted,
    weight_extremes,
    window,
)
from qwkit._kernels._hashing import distinct_ids
from qwkit._kernels._icc import complete_moments, sparse_moments
from qwkit._kernels._jit import CHUNK, THREAD_MIN_ITEMS, interruptible, threaded
from qwkit._kernels._pairs import (
    pair_batch,
    pair_leave_one_out,
    pair_linearized,
    pair_sums,
    shared_counts,
)
from qwkit._kernels._resample import (
    gather_tables,
    pcg64_integers,
    resample_tables,
    resample_tables_par,
)
from qwkit._kernels._sums import (
    MARGIN_CLASSES,
    NARROW_BLOCK,
    five_sums,
    five_sums_narrow,
    five_sums_narrow_par,
    five_sums_par,
    margins,
    margins_par,
)
from qwkit._kernels._survey import (
    MOMENT_WINDOW,
    SURVEY_RATINGS,
    TABLE_WINDOW,
    WINDOW_SAMPLE,
    survey_bincount,
    survey_moments,
    survey_moments_par,
    survey_table,
    window_start,
)
from qwkit._kernels._thresholds import (
    aggregate_pairs,
    assignment_table,
    counting_order,
    monotone_dp,
    pair_ids,
    pair_table,
)

__all__ = [
    "CHUNK",
    "LIMB_BITS",
    "MARGIN_CLASSES",
    "MOMENT_WINDOW",
    "NARROW_BLOCK",
    "SURVEY_RATINGS",
    "TABLE_WINDOW",
    "THREAD_MIN_ITEMS",
    "WINDOW_SAMPLE",
    "aggregate_pairs",
    "applied_at_others",
    "assignment_table",
    "bincount_exact",
    "column_extremes",
    "complete_moments",
    "confusion_counts",
    "confusion_counts_par",
    "confusion_exact",
    "confusion_weighted",
    "counting_order",
    "cross_at",
    "cross_batch",
    "dense_codes",
    "distinct_extremes",
    "distinct_ids",
    "distinct_in_groups",
    "duplicate_raters",
    "finish_table",
    "five_sums",
    "five_sums_checked",
    "five_sums_limbs",
    "five_sums_narrow",
    "five_sums_narrow_par",
    "five_sums_par",
    "five_sums_shifted",
    "gather_tables",
    "group_order",
    "integer_offsets",
    "integral_extremes",
    "linear_within",
    "margins",
    "margins_par",
    "minmax2",
    "monotone_dp",
    "normalize_rows",
    "pair_batch",
    "pair_cells",
    "pair_ids",
    "pair_incidences",
    "pair_leave_one_out",
    "pair_linearized",
    "pair_sums",
    "pair_table",
    "pcg64_integers",
    "ratio_apply",
    "reduce_rows",
    "removal_pairs",
    "resample_tables",
    "resample_tables_par",
    "round_rows",
    "scan_weights",
    "shared_counts",
    "soft_sums",
    "soft_sums_weighted",
    "sparse_moments",
    "survey_bincount",
    "survey_moments",
    "survey_moments_par",
    "survey_table",
    "threaded",
    "weight_extremes",
    "window",
    "window_start",
]

for _name in __all__:
    if isinstance(globals()[_name], numba.core.registry.CPUDispatcher):
        globals()[_name] = interruptible(globals()[_name])
del _name
