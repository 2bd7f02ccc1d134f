"""The paired comparison of kappas of real-valued scores: quadratic kappa's continuous form.

Real-valued predictions have no table. Quadratic kappa scores them by its continuous
form (eq. 2' of ``docs/kappa.md``, :func:`soft_kappa_score`), a function of weighted
moments of the items; with three columns (truth y, predictions a and b) both kappas are
functions of nine sums over the items, Z_i = (1, y, a, b, y², a², b², ya, yb). The paired
comparison is then eq. 10 of ``docs/inference.md`` with the items in place of the cells
of the K×K×K table: the influence of item i on κ_a − κ_b is the difference of the two
kappas' influences (eq. 12), its variance the sandwich of eq. 5, and the bootstrap and
the jackknife resample the items (``_table._resampling``). On integer ratings the value
is that of the table (the same function of the same distribution); the tests hold the
two equal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import ItemWeights
from qwkit._base._numerics import unit_scale
from qwkit._base._scale import (
    Ratings,
    check_codes,
    declared_order,
    measure_scale,
    prepare_labels,
    prepare_ratings,
    scale_values,
)
from qwkit._base._validation import as_1d, check_finite, check_same_length
from qwkit._base._warnings import warn_undefined
from qwkit._base._weights import weights_name
from qwkit._kappa._soft import SoftSums, soft_floats, soft_sums
from qwkit._table._cells import Sample, influence_variance
from qwkit._table._resampling import Estimator

__all__ = [
    "Continuous",
    "as_columns",
    "continuous_pair",
    "rating_columns",
    "real_columns",
    "refuse_real",
]

#: Column positions in the rows Z of (1, y, a, b, y², a², b², ya, yb).
_ONE, _Y, _A, _B, _YY, _AA, _BB, _YA, _YB = range(9)
#: (n, Σy, Σx, Σy², Σx², Σxy) of each kappa among the nine sums.
_KAPPA_A = (_ONE, _Y, _A, _YY, _AA, _YA)
_KAPPA_B = (_ONE, _Y, _B, _YY, _BB, _YB)
#: A resampled denominator this small relative to its terms is zero up to rounding.
_REL_ZERO = 1e-12


def _fractional(values: np.ndarray) -> int | None:
    """Index of the first finite non-integral number of a float array, or None."""
    if values.dtype.kind != "f":
        return None
    bad = np.isfinite(values) & (values != np.floor(values))
    return int(np.argmax(bad)) if bad.any() else None


def real_columns(vectors, names, labels) -> tuple[list[np.ndarray | None], list[int | None]]:
    """Which rating vectors hold real-valued scores: (the vectors as arrays, the index of
    the first non-integral value of each, None for ratings).

    A vector holds real-valued scores when it has a finite number that is not an integer
    and the scale is the integers (``labels`` None or consecutive integers, and no
    declared category order): on a scale of other values (``labels=[0.5, 1, 1.5]``) such
    a number is a rating, checked against ``labels`` as any other. A vector that cannot
    be read as numbers is reported as ratings, for the table path to say what is wrong.
    """
    arrays: list[np.ndarray | None] = []
    first: list[int | None] = []
    try:
        order = labels if labels is not None else declared_order(vectors, names)
    except QwkitError:
        order = None  # the table path says it
    if order is not None:
        try:
            scale = prepare_labels(order)
        except QwkitError:
            return [None] * len(vectors), [None] * len(vectors)
        if scale.offset is None:  # text, or numbers that are not consecutive integers
            return [None] * len(vectors), [None] * len(vectors)
    for values, name in zip(vectors, names, strict=True):
        try:
            arr = as_1d(values, name)
        except QwkitError:
            arr = None
        arrays.append(arr)
        first.append(None if arr is None else _fractional(arr))
    return arrays, first


def refuse_real(weights, names, arrays, first) -> None:
    """Real-valued scores under weights other than 'quadratic': an error naming the
    first such vector (``parameter``, ``row``) and ``weights``."""
    if isinstance(weights, str) and weights == "quadratic":
        return
    j = next(i for i, f in enumerate(first) if f is not None)
    row = first[j]
    got = f"{weights_name(weights)!r}" if isinstance(weights, str) else "a (K, K) matrix"
    raise QwkitError(
        f"`{names[j]}` holds real-valued scores ({arrays[j][row]} at index {row}); "
        f"`weights` other than 'quadratic' (got {got}) need ratings on the scale. Round "
        "the scores first (`optimize_thresholds`, `apply_thresholds`), or use "
        "weights='quadratic', whose continuous form scores real values as they are.",
        parameter=names[j],
        row=row,
        also=("weights",),
    )


def rating_columns(arrays, names, first, labels):
    """The vectors that hold ratings beside real-valued scores, validated on one scale
    (None if there are none), and that scale (empty without ratings)."""
    rated = [i for i, f in enumerate(first) if f is None]
    real = next(i for i, f in enumerate(first) if f is not None)
    for i in rated:
        if arrays[i] is not None and arrays[i].dtype.kind == "U":
            raise QwkitTypeError(
                f"`{names[i]}` holds strings but `{names[real]}` holds numbers; both must "
                "rate on one scale.",
                parameter=names[real],
                also=(names[i],),
            )
    if not rated:
        scale = np.asarray(prepare_labels(labels).values) if labels is not None else np.array([])
        return None, scale
    r = prepare_ratings([arrays[i] for i in rated], labels, names=[names[i] for i in rated])
    offset, k = measure_scale(r)
    check_codes(r)
    return r, scale_values(r, offset, k)


def as_columns(arrays, first, r: Ratings | None) -> list[np.ndarray]:
    """The vectors as numbers: real-valued scores as given, ratings as validated."""
    ratings = iter(r.columns if r is not None else ())
    return [arrays[i] if f is not None else next(ratings) for i, f in enumerate(first)]


def _floats(columns: list[np.ndarray]) -> list[np.ndarray]:
    """float64 copies of the columns, integer columns first shifted by their common
    smallest value (exact for integers of any size: kappa does not move with a shift
    shared by both raters of a pair)."""
    ints = [c for c in columns if c.dtype.kind in "biu"]
    lo = min(int(c.min()) for c in ints) if ints else 0
    out = []
    for c in columns:
        if c.dtype.kind in "biu":
            out.append((c.astype(np.int64) - np.int64(lo)).view(np.uint64).astype(np.float64))
        else:
            out.append(c.astype(np.float64) - float(lo))
    return out


def _kappa(s: np.ndarray, index: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator of eq. 2' from the sums ``s`` (..., 9)."""
    n, sy, sx, syy, sxx, sxy = (s[..., j] for j in index)
    return 2.0 * (n * sxy - sy * sx), n * (syy + sxx) - 2.0 * sy * sx  # (eq. 2')


def _difference(s: np.ndarray) -> np.ndarray:
    """κ_a − κ_b of sums ``s`` (..., 9), nan where either is 0/0 up to rounding."""
    out = np.full(s.shape[:-1], np.nan)
    num_a, den_a = _kappa(s, _KAPPA_A)
    num_b, den_b = _kappa(s, _KAPPA_B)
    n = s[..., _ONE]
    # each denominator is a sum of squares (n·Σ(y − x)² over pairs of items, halved):
    # zero up to rounding against the size of its terms
    ok = (den_a > _REL_ZERO * n * (s[..., _YY] + s[..., _AA])) & (
        den_b > _REL_ZERO * n * (s[..., _YY] + s[..., _BB])
    )
    np.divide(num_a, den_a, out=out, where=ok)
    out[ok] -= num_b[ok] / den_b[ok]
    return out


@dataclass(frozen=True, slots=True)
class _Rows:
    """The rows Z (m, 9) of the items behind the sums, with resampling in their terms."""

    z: np.ndarray
    total: np.ndarray  # Σ wᵢ Zᵢ

    def batch(self, x: np.ndarray) -> np.ndarray:
        """κ_a − κ_b of each row of item weights x (b, m)."""
        return _difference(x @ self.z)

    def leave_one_out(self, item: np.ndarray, u: np.ndarray) -> np.ndarray:
        """κ_a − κ_b after removing weight u[t] from item[t], for every t (eq. 8)."""
        return _difference(self.total - u[:, None] * self.z[item])


def _influence(y: np.ndarray, x: np.ndarray, w: np.ndarray, kappa: float) -> np.ndarray:
    """The influence of every item on quadratic kappa of (y, x) (eq. 12): with weighted
    means ȳ, x̄, centered moments s and D = s_yy + s_xx + (x̄ − ȳ)²,
    [2((x − x̄)(y − ȳ) − s_xy) − κ((x − x̄)² − s_xx + (y − ȳ)² − s_yy
    + 2(x̄ − ȳ)((x − x̄) − (y − ȳ)))] / D."""
    total = float(w.sum())
    mean_y, mean_x = float(np.dot(w, y)) / total, float(np.dot(w, x)) / total
    dy, dx = y - mean_y, x - mean_x
    gap = mean_x - mean_y
    syy, sxx, sxy = (float(np.dot(w, p)) / total for p in (dy * dy, dx * dx, dx * dy))
    den = syy + sxx + gap * gap
    spread = dx * dx - sxx + dy * dy - syy + 2.0 * gap * (dx - dy)
    return (2.0 * (dx * dy - sxy) - kappa * spread) / den  # (eq. 12)


@dataclass(frozen=True, slots=True)
class Continuous:
    """What the paired comparison of continuous kappas computes: both kappas (exact,
    as :func:`soft_kappa_score`), the paired standard error, and the estimator that
    resamples the items."""

    kappa_a: float
    kappa_b: float
    standard_error: float
    estimator: Estimator
    n_items: int


def continuous_pair(columns: list[np.ndarray], names, iw: ItemWeights) -> Continuous:
    """The paired comparison of y = columns[0] against a = columns[1] and b = columns[2]
    by quadratic kappa's continuous form (eqs. 2', 12 and 5)."""
    for c, name in zip(columns[1:], names[1:], strict=True):
        check_same_length(columns[0], c, (names[0], name))
    for c, name in zip(columns, names, strict=True):
        check_finite(c, name)
    w = iw.as_float()
    if w is not None:
        keep = w > 0
        if not keep.all():  # zero weight: the item is not there
            columns, w = [c[keep] for c in columns], w[keep]
    # both kappas exactly, as soft_kappa_score gives them (the same six exact sums)
    kappas = []
    for x, name in ((columns[1], names[1]), (columns[2], names[2])):
        sums = SoftSums()
        sums.add(soft_sums(*soft_floats(columns[0], x), w))
        value = sums.kappa()
        if value is None:
            value = warn_undefined(
                math.nan, f"`{names[0]}` and `{name}` are one and the same constant"
            )
        kappas.append(float(value))
    y, a, b = _floats(list(columns))
    n_rows = y.shape[0]
    survey = w is not None and not iw.counts and not np.all(w == w[0])
    if w is None or (not iw.counts and not survey):  # no weights, or all equal
        cw = np.ones(n_rows)
        sample = Sample(counts=cw, counts_sq=cw, n_items=n_rows)
    elif iw.counts:
        sample = Sample(counts=w, counts_sq=w, n_items=round(float(w.sum())))
    else:
        cw = unit_scale(w.copy())  # a power of two: kappa and its SE do not change
        sample = Sample(cw, cw * cw, n_rows, np.arange(n_rows), cw)
    cw = sample.counts
    shift = float(np.dot(cw, y)) / float(cw.sum())  # centered: no cancellation in the sums
    yc, ac, bc = y - shift, a - shift, b - shift
    z = np.column_stack((np.ones(n_rows), yc, ac, bc, yc * yc, ac * ac, bc * bc, yc * ac, yc * bc))
    rows = _Rows(z=z, total=cw @ z)
    estimator = Estimator(sample=sample, batch=rows.batch, leave_one_out=rows.leave_one_out)
    ka, kb = kappas
    if math.isnan(ka) or math.isnan(kb):
        se = math.nan
    else:
        g = _influence(yc, ac, cw, ka) - _influence(yc, bc, cw, kb)  # (eq. 12)
        se = math.sqrt(influence_variance(g, cw, sample.counts_sq))  # (eq. 5)
    return Continuous(
        kappa_a=ka, kappa_b=kb, standard_error=se, estimator=estimator, n_items=sample.n_items
    )
