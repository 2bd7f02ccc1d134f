"""Numba kernels: validated, fixed-dtype arrays in; arrays or scalars out.

No defaults, no ``None``, no user-facing errors live here: the API layer validates
first (a kernel reports a bad position as an index, and the caller raises). Numba
options are set once, in ``_jit``.

Who may import what (the floors of the package, bottom up):

1. ``_kernels`` (numba only), ``_errors``, ``_warnings``, ``_numerics``, ``_dyadic``
   (exact sums of float weights, whatever their order).
2. ``_validation`` (arrays, item weights, options) → ``_scale`` (labels, ratings on a
   scale, for any number of raters) → ``_weights`` (the one resolver of ``weights``).
3. Shared machinery: ``_sufficient`` (five sums, tables, kappa from them; two-rater
   inputs), ``_cells`` (present cells, kappa of cells, resampling units),
   ``_resampling`` (intervals, tests), ``_fractional`` (Dinkelbach), ``_linalg``
   (least squares), ``_results`` (result helpers), ``_files`` (atomic writing),
   ``_state`` (mergeable sufficient statistics: the one implementation behind the
   in-memory functions, the accumulators and ``qwkit.dask``).
4. Features — ``_kappa``, ``_accumulator``, ``_inference``, ``_compare``,
   ``_thresholds``, ``_decision``, ``_regression``, ``_costs``, and the newer ones —
   import floors 1–3, never each other's private names (a public function of another
   feature may be called).
5. ``qwkit/__init__.py`` (the flat public API); integrations (``qwkit.sklearn``,
   ``qwkit.economics``, ``qwkit.lightgbm``, ``qwkit.xgboost``, ``qwkit.torch``,
   ``qwkit.dask``) and ``qwkit.cli`` import the public API (and floors 1–3 where they
   need shared validation), never a feature's private names.
"""

from qwkit._kernels._agreement import ratio_apply
from qwkit._kernels._counts import (
    LIMB_BITS,
    confusion_counts,
    confusion_counts_par,
    confusion_weighted,
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
from qwkit._kernels._jit import CHUNK, THREAD_MIN_ITEMS, threaded
from qwkit._kernels._resample import (
    gather_tables,
    pcg64_integers,
    resample_tables,
    resample_tables_par,
)
from qwkit._kernels._sums import (
    MARGIN_CLASSES,
    NARROW_BLOCK,
    SURVEY_RATINGS,
    SURVEY_WINDOW,
    five_sums,
    five_sums_narrow,
    five_sums_narrow_par,
    five_sums_par,
    margins,
    margins_par,
    survey_sums,
    survey_sums_par,
    survey_window,
)
from qwkit._kernels._thresholds import aggregate_pairs, assignment_table, monotone_dp

__all__ = [
    "CHUNK",
    "LIMB_BITS",
    "MARGIN_CLASSES",
    "NARROW_BLOCK",
    "SURVEY_RATINGS",
    "SURVEY_WINDOW",
    "THREAD_MIN_ITEMS",
    "aggregate_pairs",
    "aggregate_pairs_exact",
    "assignment_table",
    "bincount_exact",
    "confusion_counts",
    "confusion_counts_par",
    "confusion_exact",
    "confusion_narrow",
    "confusion_weighted",
    "finish_table",
    "five_sums",
    "five_sums_checked",
    "five_sums_limbs",
    "five_sums_narrow",
    "five_sums_narrow_par",
    "five_sums_par",
    "five_sums_shifted",
    "gather_tables",
    "margins",
    "margins_par",
    "minmax2",
    "monotone_dp",
    "normalize_rows",
    "pcg64_integers",
    "ratio_apply",
    "resample_tables",
    "resample_tables_par",
    "round_rows",
    "scan_weights",
    "soft_sums",
    "soft_sums_weighted",
    "survey_sums",
    "survey_sums_par",
    "survey_window",
    "threaded",
    "weight_extremes",
    "window",
]
