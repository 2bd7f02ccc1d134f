"""The coefficient of validated input: its layout, its metric, its model.

``model_of(prepared, collapse)`` turns the output of ``qwkit._agreement._input`` into a
coefficient of ``_stats``, ``_conger`` or ``_light``: the rows (identical items merged
where that is cheap), the metric of ``weights`` over the categories that occur (a
matrix, prefix sums, chunks, or three moments for squared differences) and its largest
disagreement. Equation numbers are those of ``docs/agreement.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from qwkit._agreement import _input as _in
from qwkit._agreement import _metrics as _m
from qwkit._agreement import _stats as _s
from qwkit._agreement._conger import Conger
from qwkit._agreement._light import Light
from qwkit._base._errors import QwkitError
from qwkit._base._registry import COEFFICIENTS, WEIGHTS
from qwkit._base._weights import gwet_disagreement

__all__ = ["METRICS", "MODELS", "metric_of", "model_of"]

#: The ratio metric's Σ over a scale of q categories costs O(q²): refused beyond this.
_RATIO_SCALE_MAX = 20_000
#: Gwet's named weights are a q × q matrix of the scale: refused beyond this many.
_GWET_SCALE_MAX = 2_048


# ---------------------------------------------------------------------------- compute


def _layout(prep: _in.Prepared, collapse):
    """(pooled rows, who rated (``Entries``) or None, row multiplicities).

    Identical rows are merged (``collapse=True``; ``"cheap"``: only when one integer
    key per row can be sorted, which is when rows repeat anyway) wherever their padded
    layout costs at most a few times the ratings (``_metrics.collapse_rows``)."""
    cheap = collapse == "cheap"
    if prep.table is not None:
        rows, count = prep.table, np.ones(prep.table.m)
        if collapse:
            rows, count = _m.collapse_rows(rows, cheap_only=cheap)
        return rows, None, count
    panel = prep.panel
    if not COEFFICIENTS[prep.coefficient].by_rater:  # pooled rows (Scott's: of two raters)
        rows, _ = _m.item_rows(panel.item_ptr, panel.code)
        count = np.ones(rows.m)
        if collapse:
            rows, count = _m.collapse_rows(rows, cheap_only=cheap)
        return rows, None, count
    entries = _m.Entries(panel.item_ptr, panel.rater, panel.code, panel.n_raters)
    count = np.ones(entries.m)
    if collapse:
        entries, count = _m.collapse_entries(entries, cheap_only=cheap)
    return entries.rows(), entries, count


def _pairable_frequencies(rows: _m.Rows, count, v):
    """How many pairable ratings (of items with two or more) each category holds."""
    two = rows.r >= 2
    row, cc, mm = rows.entries()
    return np.bincount(cc, weights=(mm * count[row]) * two[row], minlength=v)


def _metric(prep: _in.Prepared, freq: np.ndarray):
    """(metric, dmax, Σ over the q×q scale of d/dmax as a function) for ``prep.weights``:
    a custom matrix, or the metric ``METRICS`` binds to the name."""
    if prep.weights == "custom":
        mat = prep.matrix
        top = float(mat.max())
        return _m.Matrix(mat[np.ix_(prep.index, prep.index)]), top, lambda: float(mat.sum()) / top
    return METRICS[prep.weights](prep, freq)


def _identity_metric(prep: _in.Prepared, freq):
    q = prep.scale.q
    return _m.Identity(prep.coords.shape[0]), 1.0, lambda: float(q * q - q)


def _extent(prep: _in.Prepared):
    """(the whole scale's coordinates or None for 0 … q − 1, its lowest and highest, the
    centre of the coordinates that occur). Coordinates are relative to the scale's start
    scale.lo (exact positions, never float64 copies of ratings such as 2**53 + 1):
    quadratic and linear metrics are translation-invariant, and the ratio metric adds 2·lo
    to its sums only."""
    scale, coords = prep.scale, prep.coords
    full = scale.coordinates() if scale.points is not None else None
    lo_full = float(full.min()) if full is not None else 0.0
    hi_full = float(full.max()) if full is not None else float(scale.q - 1)
    return full, lo_full, hi_full, (coords.min() + coords.max()) / 2.0


def _quadratic_metric(prep: _in.Prepared, freq):
    coords, q = prep.coords, prep.scale.q
    full, lo_full, hi_full, center = _extent(prep)
    span = hi_full - lo_full
    unit = float(coords.max() - coords.min()) or 1.0
    z = (coords - center) / unit

    def total():  # Σₖₗ (yₖ − yₗ)² / (max − min)² over the scale   (eq. 8)
        if full is None:
            return q * q * (q + 1.0) / (6.0 * (q - 1.0))
        c = full - full.mean()
        return 2.0 * (q * float(c @ c) - float(c.sum()) ** 2) / (span * span)

    return _m.Moments(z), (span / unit) ** 2, total


def _linear_metric(prep: _in.Prepared, freq):
    coords, q = prep.coords, prep.scale.q
    full, lo_full, hi_full, center = _extent(prep)
    span = hi_full - lo_full
    metric = (
        _m.Matrix(np.abs(coords[:, None] - coords[None, :]))
        if coords.shape[0] <= _m.TABLE_MAX
        else _m.Linear(coords - center)
    )

    def total():
        if full is None:
            return q * (q + 1.0) / 3.0
        k = np.arange(q, dtype=np.float64)
        return 2.0 * float(np.sort(full - lo_full) @ (2.0 * k - q + 1.0)) / span

    return metric, span, total


def _ratio_metric(prep: _in.Prepared, freq):
    """Krippendorff's ((yₖ − yₗ)/(yₖ + yₗ))², largest at the ends of the scale (eq. 2b)."""
    coords, scale, q = prep.coords, prep.scale, prep.scale.q
    _, lo_full, hi_full, _ = _extent(prep)
    base = 2.0 * float(scale.lo)  # yₖ + yₗ = 2·lo + (relative coordinates)
    metric = (
        _m.Matrix(_m.Ratio._d(coords[:, None], coords[None, :], base))
        if coords.shape[0] <= _m.TABLE_MAX
        else _m.Ratio(coords, base)
    )
    top = ((hi_full - lo_full) / (base + hi_full + lo_full)) ** 2

    def total():
        if q > _RATIO_SCALE_MAX:
            raise QwkitError(
                f"`weights`='ratio' with this coefficient sums the metric over all {q} "
                f"categories of the scale{scale.text} (O(q²)); pass `labels` with at most "
                f"{_RATIO_SCALE_MAX} categories.",
                parameter="weights",
            )
        ratio = _m.Ratio(scale.coordinates(), base)
        return float(ratio.apply(np.ones(q)).sum()) / top

    return metric, top, total


def _gwet_metric(prep: _in.Prepared, freq=None):
    """Gwet's radical, circular or bipolar weights on the values of the scale (eq. 2d):
    a matrix over the categories that occur, the largest disagreement and the sum over
    the whole scale (O(q²): at most ``_GWET_SCALE_MAX`` categories)."""
    scale, weights = prep.scale, prep.weights
    if scale.q > _GWET_SCALE_MAX:
        raise QwkitError(
            f"`weights`={weights!r} is a matrix over the {scale.q} categories of the rating "
            f"scale{scale.text}; pass `labels` with at most {_GWET_SCALE_MAX} categories.",
            parameter="weights",
        )
    full = scale.coordinates()
    lo, hi = float(full.min()), float(full.max())
    whole = gwet_disagreement(weights, full, lo, hi)
    top = float(whole.max())
    mat = gwet_disagreement(weights, prep.coords, lo, hi)
    return _m.Matrix(mat), top, lambda: float(whole.sum()) / top


def _ordinal_metric(prep: _in.Prepared, freq: np.ndarray):
    """Krippendorff's ordinal metric: squared differences of mid-ranks (eq. 2c)."""
    q, index = prep.scale.q, prep.index
    big_n = float(freq.sum())
    cum = np.cumsum(freq)
    mid = cum - freq / 2.0  # mid-rank of each category that occurs
    first = freq[0] / 2.0 if index[0] == 0 else 0.0
    last = big_n - freq[-1] / 2.0 if index[-1] == q - 1 else big_n
    center = (mid.min() + mid.max()) / 2.0
    unit = float(mid.max() - mid.min()) or 1.0
    z = (mid - center) / unit
    span = last - first

    def total():
        # every category of the scale, the ones that never occur in runs of equal rank
        gaps = np.diff(index).astype(np.float64) - 1.0
        values = np.concatenate([[0.0], mid, cum[:-1], [big_n]])
        counts = np.concatenate([[float(index[0])], np.ones(mid.size), gaps, [q - 1.0 - index[-1]]])
        mean = float(counts @ values) / q
        c = values - mean
        return 2.0 * q * float(counts @ (c * c)) / (span * span)

    return _m.Moments(z), (span / unit) ** 2, total


#: Each name of the registry's weights (``_base._registry.WEIGHTS``) bound to its metric
#: over the categories that occur: (metric, largest disagreement, Σ over the q × q scale
#: of d/dmax as a function).
METRICS = WEIGHTS.bind(
    {
        "quadratic": _quadratic_metric,  # (eq. 1; M)
        "linear": _linear_metric,  # (eq. 1)
        "identity": _identity_metric,  # (eq. 1)
        "radical": _gwet_metric,  # (eq. 2d)
        "circular": _gwet_metric,
        "bipolar": _gwet_metric,
        "ordinal": _ordinal_metric,  # (eq. 2c)
        "ratio": _ratio_metric,  # (eq. 2b)
    }
)


@dataclass(frozen=True)
class Parts:
    """What a coefficient's model is built from: the rows (and who rated what, for the
    coefficients that read it), their multiplicities, the metric and its largest
    disagreement, the scale's q categories (v of them occur) and Σ d/dmax over the
    q × q scale (``total()``, eq. 8)."""

    rows: _m.Rows
    entries: _m.Entries | None
    count: np.ndarray
    metric: object
    dmax: float
    q: int
    v: int
    total: Callable[[], float]


#: Each coefficient of the registry (``_base._registry.COEFFICIENTS``), bound to its
#: computation: its model of ``_stats``, ``_conger`` or ``_light``.
MODELS: dict[str, Callable[[Parts], object]] = COEFFICIENTS.bind(
    {
        "fleiss": lambda p: _s.Fleiss(p.rows, p.count, p.metric, p.dmax),  # (eq. 6)
        "conger": lambda p: Conger(p.entries, p.rows, p.count, p.metric, p.dmax),  # (eq. 17)
        "krippendorff": lambda p: _s.Krippendorff(p.rows, p.count, p.metric, p.dmax),  # (eq. 14)
        "gwet": lambda p: _s.Gwet(
            p.rows, p.count, p.metric, p.dmax, p.q * p.q - p.total(), p.q, p.v
        ),  # (eq. 7)
        "brennan-prediger": lambda p: _s.BrennanPrediger(
            p.rows, p.count, p.metric, p.dmax, p.q * p.q - p.total(), p.q
        ),  # (eq. 9)
        "light": lambda p: Light(p.entries, p.count, p.metric, p.dmax),  # (eq. 19)
        # p_a itself: Brennan-Prediger's form with p_e = 0   (eq. 5)
        "percent": lambda p: _s.BrennanPrediger(p.rows, p.count, p.metric, p.dmax, 0.0, p.q),
        "scott": lambda p: _s.Scott(p.rows, p.count, p.metric, p.dmax),  # (eq. 12')
        # Conger's kappa of two raters on the items both rated   (eq. 17c)
        "cohen": lambda p: Conger(p.entries, p.rows, p.count, p.metric, p.dmax),
    }
)


def model_of(prep: _in.Prepared, collapse):
    """The model of the coefficient of ``prep`` (``MODELS``) on its rows, identical rows
    merged as ``collapse`` says."""
    rows, entries, count = _layout(prep, collapse)
    v = prep.coords.shape[0]
    freq = _pairable_frequencies(rows, count, v) if prep.weights == "ordinal" else None
    metric, dmax, total = _metric(prep, freq)
    if collapse == "cheap" and metric.vector:  # a value alone: small designs dense
        metric.dense_cells = _m.DENSE_MAX
    parts = Parts(rows, entries, count, metric, dmax, prep.scale.q, v, total)
    return MODELS[prep.coefficient](parts)


def metric_of(prep: _in.Prepared):
    """(metric, dmax) of the ratings of ``prep.panel`` (Krippendorff's ordinal metric
    from their pairable frequencies)."""
    freq = None
    if prep.weights == "ordinal":
        panel = prep.panel
        rows, _ = _m.item_rows(panel.item_ptr, panel.code)
        freq = _pairable_frequencies(rows, np.ones(rows.m), prep.coords.shape[0])
    metric, dmax, _ = _metric(prep, freq)
    return metric, dmax
