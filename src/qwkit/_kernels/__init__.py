"""Numba kernels: validated, fixed-dtype arrays in; arrays or scalars out.

No defaults, no ``None``, no user-facing errors live here: the API layer validates
first (a kernel reports a bad position as an index, and the caller raises). Numba
options are set once, in ``_jit``.

A kernel is exported through ``_jit.interruptible``: an interrupt that lands while it
runs is raised as ``KeyboardInterrupt``, never as numba's ``SystemError``.

Importing this package loads nothing: ``_kernels.five_sums`` imports its module (and
numba, about half a second) the first time it is used (PEP 562), so that a feature
module may ``from qwkit import _kernels`` at its top and numba still loads only when a
kernel runs. A new kernel's name goes into :data:`_HOMES` and ``__all__`` (a test checks
that they agree).

Who may import what — the floors of the package, kernels at the bottom — is in
``CONTRIBUTING.md`` ("The map of the package").
"""

from importlib import import_module as _import_module

TYPE_CHECKING = False
if TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
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
    from qwkit._kernels._hashing import (
        distinct_ids,
    )
    from qwkit._kernels._icc import (
        complete_moments,
        sparse_moments,
    )
    from qwkit._kernels._jit import (
        CHUNK,
        THREAD_MIN_ITEMS,
        n_threads,
        threaded,
    )
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
    "n_threads",
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

#: Where each name lives (the module that ``_kernels.<name>`` imports on first use) ->
#: the names, separated by spaces.
_HOMES: dict[str, str] = {
    "qwkit._kernels._agreement": (
        "applied_at_others column_extremes cross_at cross_batch dense_codes distinct_in_groups "
        "duplicate_raters group_order integer_offsets integral_extremes linear_within "
        "pair_incidences ratio_apply removal_pairs"
    ),
    "qwkit._kernels._counts": (
        "LIMB_BITS confusion_counts confusion_counts_par confusion_weighted distinct_extremes "
        "five_sums_checked five_sums_limbs five_sums_shifted minmax2 pair_cells scan_weights"
    ),
    "qwkit._kernels._exact": (
        "bincount_exact confusion_exact finish_table normalize_rows reduce_rows round_rows "
        "soft_sums soft_sums_weighted weight_extremes window"
    ),
    "qwkit._kernels._hashing": "distinct_ids",
    "qwkit._kernels._icc": "complete_moments sparse_moments",
    "qwkit._kernels._pairs": (
        "pair_batch pair_leave_one_out pair_linearized pair_sums shared_counts"
    ),
    "qwkit._kernels._jit": "CHUNK THREAD_MIN_ITEMS n_threads threaded",
    "qwkit._kernels._resample": "gather_tables pcg64_integers resample_tables resample_tables_par",
    "qwkit._kernels._sums": (
        "MARGIN_CLASSES NARROW_BLOCK five_sums five_sums_narrow five_sums_narrow_par "
        "five_sums_par margins margins_par"
    ),
    "qwkit._kernels._survey": (
        "MOMENT_WINDOW SURVEY_RATINGS TABLE_WINDOW WINDOW_SAMPLE survey_bincount survey_moments "
        "survey_moments_par survey_table window_start"
    ),
    "qwkit._kernels._thresholds": (
        "aggregate_pairs assignment_table counting_order monotone_dp pair_ids pair_table"
    ),
}
_HOME_OF = {name: home for home, names in _HOMES.items() for name in names.split()}


def __getattr__(name: str):
    """Import a kernel (or a constant) from its module on first use and keep it here;
    a compiled kernel is kept as ``_jit.interruptible`` wraps it."""
    try:
        home = _HOME_OF[name]
    except KeyError:
        raise AttributeError(f"module 'qwkit._kernels' has no attribute {name!r}") from None
    value = getattr(_import_module(home), name)
    jit = _import_module("qwkit._kernels._jit")
    if jit.is_kernel(value):
        value = jit.interruptible(value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})
