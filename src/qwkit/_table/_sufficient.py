"""Sufficient statistics of two raters, and kappa from them.

Notation (Vaughn & Justice 2015, §1.1): two raters give n items ratings a, b on a scale
of K ordered categories; U is the observed K×K table, h = U·e and g = Uᵀ·e its margins,
and W a disagreement weight matrix. Kappa is

    κ = 1 − ⟨U, W⟩ / ⟨V, W⟩,   V = h ⊗ g / n                                (eq. 1)

Any positive scaling of W cancels. Three sufficient statistics compute it:

- the K×K table U (any weights, item weights), counted in one pass;
- for quadratic weights on an integer scale, five sums over the items (the alternate
  form of Vaughn & Justice, §1.2), with every sum an exact integer,

      κ = 2·(n·Σab − Σa·Σb) / (n·(Σa² + Σb²) − 2·Σa·Σb)                     (eq. Q)

  — one pass, no table;
- for scales too wide for a table, sums over the distinct values of each margin
  (``docs/kappa.md`` §5).

With integer counts and integer-valued weights (the names but Gwet's) eq. 1 is evaluated in
exact integer arithmetic, κ = (S − O·N)/S with O = ⟨U, W⟩, N = n and S = hᵀ·W·g, and
rounded once: every entry point returns the same correctly rounded value as eq. Q.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qwkit import _kernels
from qwkit._base._dyadic import (
    UNIT_EXPONENT,
    ExactRows,
    exception_buffer,
    weight_bits,
    weight_window,
)
from qwkit._base._errors import QwkitError
from qwkit._base._item_weights import ItemWeights, item_weights
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, nan_rows
from qwkit._base._numerics import as_exact_integers, exact_dot, exact_sum, unit_scale
from qwkit._base._scale import (
    MAX_DENSE_CLASSES,
    Ratings,
    check_codes,
    check_whole_scale,
    measure_scale,
    out_of_scale_error,
    prepare_ratings,
)
from qwkit._base._warnings import warn_undefined
from qwkit._base._weights import (
    BOTH_CONSTANT,
    check_weights,
    is_exact_name,
    resolve,
    zero_disagreement_reason,
)
from qwkit._table._moments import (
    exact_kappa,
    kappa_from_sums,
    margin_kappa,
    quadratic_sums,
    survey_quadratic_kappa,
)

__all__ = [
    "GUESS_CLASSES",
    "TABLE_CLASSES",
    "Pair",
    "count_table",
    "exact_confusion",
    "exact_table_kappa",
    "guess_table",
    "kappa",
    "kappa_from_table",
    "kappa_tablefree",
    "prepare_pair",
    "rounded_table",
    "scale_hint",
    "scaled_table",
]

_INT64_LIMIT = 2**63
#: Named-weight scales up to this size are counted in a dense K×K table; larger ones
#: (huge integer ranges) use the table-free path.
TABLE_CLASSES = 1024
#: Ratings that all lie in [0, 32) — most rating scales — are counted in one pass into a
#: 32×32 table that is then trimmed to the occurring range, instead of measuring the
#: range in a pass of its own first.
GUESS_CLASSES = 32


# ---------------------------------------------------------------------------- tables


def exact_confusion(a: np.ndarray, b: np.ndarray, item_weight: np.ndarray, lo: int, k: int):
    """Exact K×K table of survey weights: (ExactRows of K·K cells, bad_a, bad_b, mask).

    Every cell is the exact sum of its weights (``_dyadic``), whatever the order of the
    items: one windowed pass (``_kernels.survey_table``), and the general kernel for
    the weights outside its window. The contract is that of
    :func:`_kernels.confusion_weighted` otherwise.
    """
    bits = weight_bits(item_weight)
    lo = np.int64(lo)
    start = weight_window(bits, _kernels.TABLE_WINDOW)
    exc = exception_buffer(bits.shape[0])[0]
    rows, bad, mask, n_exc = _kernels.survey_table(a, b, bits, lo, k, start, exc)
    rows, bad_a, bad_b, mask = _kernels.finish_table(rows, a, b, lo, k, bad, mask)
    table = ExactRows.of(rows, start + UNIT_EXPONENT - 1)  # units of 2^(L − 1075)
    if bad_a >= 0 or bad_b >= 0:
        return table, bad_a, bad_b, 0
    if n_exc > exc.shape[0]:  # too many weights outside the window: sum all of them
        table = _general_confusion(a, b, bits, lo, k)
    elif n_exc:
        idx = exc[:n_exc]
        table = table + _general_confusion(a[idx], b[idx], bits[idx], lo, k)
    return table, -1, -1, int(mask)


def _general_confusion(a, b, bits, lo, k) -> ExactRows:
    """The exact table of items on the scale by the general kernel (any doubles)."""
    base, n_limbs = _kernels.window(bits)
    rows, bad, mask = _kernels.confusion_exact(a, b, bits, lo, k, base, n_limbs)
    rows = _kernels.finish_table(rows, a, b, lo, k, bad, mask)[0]
    return ExactRows.of(rows, base + UNIT_EXPONENT)


def _count(r: Ratings, item_weight: np.ndarray | None, offset: int, k: int, exact: bool):
    """One counting pass: (table, bad_a, bad_b, bit mask of positions < 64 that occur).

    The table is int64 counts (no weights), float64 sums of whole-number ``item_weight``
    (exact: their total is below 2**53), or with ``exact`` the exact sums of survey
    weights as :class:`ExactRows`.
    """
    lo = np.int64(offset)
    n = r.n_items
    if item_weight is None:
        if _kernels.threaded(n):
            parts = _kernels.n_threads()
            table, bad_a, bad_b = _kernels.confusion_counts_par(r.a, r.b, lo, k, parts)
        else:
            table, bad_a, bad_b = _kernels.confusion_counts(r.a, r.b, lo, k)
        occurs = (table.sum(axis=0) + table.sum(axis=1)) > 0
        mask = sum(1 << int(i) for i in np.flatnonzero(occurs[:64]))
        return table, bad_a, bad_b, mask
    if exact:
        return exact_confusion(r.a, r.b, item_weight, offset, k)
    table, bad_a, bad_b, mask = _kernels.confusion_weighted(r.a, r.b, item_weight, lo, k)
    return table, bad_a, bad_b, int(mask)


def count_table(
    r: Ratings, item_weight: np.ndarray | None, offset: int, k: int, *, exact: bool = False
):
    """Dense K×K table of positions (value − offset): int64 counts, float64 sums of
    whole-number weights, or (``exact``) :class:`ExactRows` of survey weights."""
    table, bad_a, bad_b, _ = _count(r, item_weight, offset, k, exact)
    if bad_a >= 0:
        raise out_of_scale_error(r, 0, bad_a)
    if bad_b >= 0:
        raise out_of_scale_error(r, 1, bad_b)
    return table


def _trim(table, k: int, lo: int, hi: int):
    """The block [lo, hi] × [lo, hi] of a K×K table (dense array or ExactRows)."""
    if isinstance(table, ExactRows):
        idx = np.arange(lo, hi + 1)
        return table.take((idx[:, None] * k + idx[None, :]).ravel())
    return np.ascontiguousarray(table[lo : hi + 1, lo : hi + 1])


def guess_table(r: Ratings, item_weight, max_classes: int, exact: bool):
    """(table, offset, K) as :func:`count_table` counts it, on the scale of the ratings;
    None if K > ``max_classes`` (integer ranges only). Ratings in [0, 32) — most rating
    scales — are counted in one pass into a 32×32 table trimmed to the occurring range,
    without a pass to measure the range first."""
    if r.n_classes is None:
        table, bad_a, bad_b, mask = _count(r, item_weight, 0, GUESS_CLASSES, exact)
        if bad_a < 0 and bad_b < 0:
            lo, hi = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
            return _trim(table, GUESS_CLASSES, lo, hi), lo, hi - lo + 1
    offset, k = measure_scale(r)
    if r.n_classes is None and k > max_classes:
        return None
    return count_table(r, item_weight, offset, k, exact=exact), offset, k


def rounded_table(table: ExactRows, k: int, *, shown: bool = False) -> np.ndarray:
    """The K×K float64 table of exact sums, each correctly rounded once. If a sum
    overflows float64, every cell is first scaled by the same power of two (kappa does
    not change) — unless the table is ``shown`` to the user (``confusion_matrix``, an
    accumulator's ``confusion``): a scaled table would be a wrong table, so that is an
    error naming ``sample_weight``."""
    if not shown:
        return table.finite_float().reshape(k, k)
    out = table.to_float().reshape(k, k)
    if not np.all(np.isfinite(out)):
        raise QwkitError(
            "A cell of the table sums `sample_weight` beyond the largest float64 "
            f"({np.finfo(np.float64).max:.3g}): the table cannot be given in float64. Divide "
            "the weights by a power of two (kappa and its standard errors do not change).",
            parameter="sample_weight",
        )
    return out


def scaled_table(
    r: Ratings, item_weight: np.ndarray | None, max_classes: int, *, counts=False, shown=False
):
    """(table, offset, K) of the ratings on their scale; None if K > ``max_classes``
    (integer ranges only: an explicit scale is always counted).

    ``item_weight`` are float64 item weights (or None); with ``counts`` they are whole
    numbers and the table is returned as exact int64 counts. Survey weights are summed
    exactly and rounded once per cell (:func:`rounded_table`; ``shown``: the user's
    table): the table does not depend on the order of the items.
    """
    exact = item_weight is not None and not counts
    counted = guess_table(r, item_weight, max_classes, exact)
    if counted is None or item_weight is None:
        return counted
    table, offset, k = counted
    if counts:
        return table.astype(np.int64), offset, k
    return rounded_table(table, k, shown=shown), offset, k


# ---------------------------------------------------------------------------- kappa


def _margins_present(table: np.ndarray):
    return np.flatnonzero(table.sum(axis=1)), np.flatnonzero(table.sum(axis=0))


def _exact_kappa(table: np.ndarray, wmat: np.ndarray, replace: float, quiet: bool) -> float | None:
    """Eq. 1 in exact integer arithmetic; None when the table or weights are not whole
    numbers."""
    t = as_exact_integers(table)
    w = as_exact_integers(wmat)
    if t is None or w is None:
        return None
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    n = exact_sum(rows)
    observed = exact_dot(t.ravel(), w.ravel())  # O = ⟨U, W⟩
    s = exact_dot(rows, exact_dot(w, cols))  # S = hᵀ·W·g = n·⟨V, W⟩
    return exact_kappa(  # (eq. 1)
        observed,
        n,
        s,
        replace,
        lambda: zero_disagreement_reason(wmat, *_margins_present(t)),
        quiet=quiet,
    )


def exact_table_kappa(table: ExactRows, wmat: np.ndarray, replace: float) -> float:
    """Eq. 1 of a table of exact survey sums and integer-valued (named) weights, in
    exact integer arithmetic: κ = (S − O·N)/S, rounded once. The value the
    moment paths (``_moments``) compute from the same items, to the last bit."""
    k = wmat.shape[0]
    t = np.array([table.row_integer(i) for i in range(k * k)], dtype=object).reshape(k, k)
    w = wmat.astype(np.int64).astype(object)
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    n = int(rows.sum())
    observed = int((t * w).sum())  # O = ⟨U, W⟩
    s = int(rows.dot(w.dot(cols)))  # S = hᵀ·W·g = n·⟨V, W⟩
    present = (np.flatnonzero(rows != 0), np.flatnonzero(cols != 0))
    return exact_kappa(  # (eq. 1)
        observed, n, s, replace, lambda: zero_disagreement_reason(wmat, *present)
    )


def kappa_from_table(
    table: np.ndarray, wmat: np.ndarray, replace: float, *, quiet: bool = False
) -> float:
    """Eq. 1 on a K×K table: exact for whole-number tables and weights, else float64.

    An undefined kappa (0/0) is ``replace``, with an UndefinedKappaWarning unless
    ``quiet`` (for callers that count undefined resamples and warn once).
    """
    exact = _exact_kappa(table, wmat, replace, quiet)
    if exact is not None:
        return exact
    t = unit_scale(table.astype(np.float64))
    rows = t.sum(axis=1)
    cols = t.sum(axis=0)
    observed = float(np.sum(wmat * t))  # ⟨U, W⟩
    expected = float(rows @ wmat @ cols) / float(t.sum())  # ⟨V, W⟩, V = h ⊗ g / n   (eq. 1)
    if expected == 0.0:
        if quiet:
            return replace
        return warn_undefined(replace, zero_disagreement_reason(wmat, *_margins_present(t)))
    if np.count_nonzero(rows) == 1 or np.count_nonzero(cols) == 1:
        return 0.0  # one rater constant: ⟨U, W⟩ = ⟨V, W⟩ exactly, whatever rounding says
    return float(1.0 - observed / expected)


def kappa_tablefree(
    r: Ratings, weights: str, item_weight, offset: int, replace: float, *, counts: bool = False
) -> float:
    """Named-weight kappa on a scale too large for a table (e.g. ratings 0 and 10¹²).

    Numerator: the per-item sum Σ wₖ·d(aₖ, bₖ). Denominator: Σᵢⱼ hᵢ gⱼ d(xᵢ, xⱼ) / n over
    the distinct values of each margin (docs/kappa.md §5), in O(m log m) memory and
    time — never in proportion to the width of the scale. Without weights, or with
    whole-number counts, every sum is an exact integer (eq. 1'); with survey weights the
    sums are float64.
    """
    ua, ub = ((x.astype(np.int64) - np.int64(offset)).view(np.uint64) for x in (r.a, r.b))
    if item_weight is None or counts:
        c = None if item_weight is None else item_weight.astype(np.int64)
        observed, n, s = _tablefree_integers(ua, ub, c, weights)
        return exact_kappa(observed, n, s, replace, lambda: BOTH_CONSTANT)  # (eq. 1')
    w = unit_scale(item_weight.astype(np.float64))
    total = float(w.sum())
    va, inv_a = np.unique(ua, return_inverse=True)
    vb, inv_b = np.unique(ub, return_inverse=True)
    ha = np.bincount(inv_a, weights=w, minlength=va.size)
    hb = np.bincount(inv_b, weights=w, minlength=vb.size)
    if weights == "identity":
        observed = float(w[ua != ub].sum())
        _, ia, ib = np.intersect1d(va, vb, assume_unique=True, return_indices=True)
        expected = total * total - float(np.dot(ha[ia], hb[ib]))
    else:
        center = (np.dot(ha, va.astype(np.float64)) + np.dot(hb, vb.astype(np.float64))) / (
            2 * total
        )
        xa, xb = va.astype(np.float64) - center, vb.astype(np.float64) - center
        diff = xa[inv_a] - xb[inv_b]
        if weights == "quadratic":
            observed = float(np.dot(w, diff * diff))
            ma, mb = np.dot(ha, xa), np.dot(hb, xb)
            expected = total * (np.dot(ha, xa * xa) + np.dot(hb, xb * xb)) - 2 * ma * mb
        else:
            observed = float(np.dot(w, np.abs(diff)))
            cum_w = np.concatenate(([0.0], np.cumsum(hb)))
            cum_wx = np.concatenate(([0.0], np.cumsum(hb * xb)))
            j = np.searchsorted(vb, va)  # rater-2 values below each rater-1 value: vb[:j]
            below = xa * cum_w[j] - cum_wx[j]
            above = (cum_wx[-1] - cum_wx[j]) - xa * (cum_w[-1] - cum_w[j])
            expected = float(np.dot(ha, below + above))
    expected = float(expected) / total
    if expected <= 0.0:
        return warn_undefined(replace, BOTH_CONSTANT)
    if np.count_nonzero(ha) == 1 or np.count_nonzero(hb) == 1:
        return 0.0  # one rater constant: ⟨U, W⟩ = ⟨V, W⟩ exactly, whatever rounding says
    return float(1.0 - observed / expected)


def _exact_ints(x: np.ndarray, bound: int) -> np.ndarray:
    """``x`` (uint64/int64) as int64 when every value and sum stays below ``bound`` <
    2**63, else as an object array of Python integers."""
    return x.astype(np.int64) if bound < _INT64_LIMIT else x.astype(object)


def _tablefree_integers(ua, ub, c, weights: str) -> tuple[int, int, int]:
    """O, N and S of eq. 1' over the distinct values of each margin, in exact integers.

    ``ua``, ``ub`` are uint64 positions, ``c`` int64 counts (None: one each). Arithmetic is
    int64 where the bounds allow and Python integers (object arrays) beyond.
    """
    one = np.ones(ua.shape[0], dtype=np.int64) if c is None else c
    n = exact_sum(one)
    va, inv_a = np.unique(ua, return_inverse=True)
    vb, inv_b = np.unique(ub, return_inverse=True)
    ha = np.bincount(inv_a, weights=None if c is None else c, minlength=va.size)
    hb = np.bincount(inv_b, weights=None if c is None else c, minlength=vb.size)
    ha, hb = ha.astype(np.int64), hb.astype(np.int64)  # whole numbers below 2**53
    if weights == "identity":
        observed = exact_sum(one[ua != ub])
        _, ia, ib = np.intersect1d(va, vb, assume_unique=True, return_indices=True)
        return observed, n, n * n - exact_dot(ha[ia], hb[ib])
    span = int(max(va[-1], vb[-1]))
    if weights == "quadratic":
        bound = n * span * span
        lo, hi = np.minimum(ua, ub), np.maximum(ua, ub)
        d = _exact_ints(hi - lo, bound)  # |a − b| < 2**64, exact in uint64
        observed = _dot(one, d * d)
        xa, xb = _exact_ints(va, bound), _exact_ints(vb, bound)
        sa, sb = _dot(ha, xa), _dot(hb, xb)
        s = n * (_dot(ha, xa * xa) + _dot(hb, xb * xb)) - 2 * sa * sb
        return observed, n, s
    bound = 4 * n * span  # every partial sum below is at most 2·N·span in size
    lo, hi = np.minimum(ua, ub), np.maximum(ua, ub)
    d = _exact_ints(hi - lo, bound)
    observed = _dot(one, d)
    xa, xb = _exact_ints(va, bound), _exact_ints(vb, bound)
    g = np.concatenate(([0], np.cumsum(hb)))  # counts of rater 2 below each split
    gx = np.concatenate(([0], np.cumsum(hb * xb)))
    j = np.searchsorted(vb, va)  # rater-2 values below each rater-1 value: vb[:j]
    # Σⱼ g_j·|x_i − y_j| = x_i·(2·G_i − N) − 2·GX_i + GX_total, G/GX below x_i
    per_value = xa * (2 * g[j] - n) - 2 * gx[j] + gx[-1]
    return observed, n, _dot(ha, per_value)


def _dot(a: np.ndarray, b: np.ndarray) -> int:
    """Σ a·b exactly: int64 arrays through ``exact_dot``, object arrays in Python."""
    if a.dtype == object or b.dtype == object:
        return int(np.dot(a.astype(object), b.astype(object)))
    return int(exact_dot(a, b))


# ---------------------------------------------------------------------------- validate, compute


@dataclass(frozen=True, slots=True)
class Pair:
    """Validated inputs of a two-rater statistic: the ratings, the checked weights (a
    name or a matrix) and the item weights."""

    ratings: Ratings
    weights: str | np.ndarray
    item_weights: ItemWeights


def prepare_pair(
    y1,
    y2,
    *,
    weights,
    labels,
    sample_weight=None,
    counts=None,
    names=("y1", "y2"),
    scan: bool = True,
    nan_policy="raise",
) -> Pair:
    """The validation step of every two-rater function: weights, ratings (whose scale
    must be ordered unless the weights are 'identity'), item weights — after
    ``nan_policy``, "raise" or "omit" (``_missing.nan_rows``; a caller that takes
    "propagate" applies it first).

    With ``scan=False`` the values of ``sample_weight`` are left unchecked (type and
    length are checked): :func:`kappa` checks them inside its own pass, or calls
    ``ItemWeights.scanned`` before any other use.
    """
    weights = check_weights(weights)
    y1, y2, sample_weight, counts = paired(
        (y1, y2, sample_weight, counts), (*names, "sample_weight", "counts")
    )
    y1, y2, sample_weight, counts = nan_rows(
        nan_policy,
        (y1, y2, sample_weight, counts),
        (*names, "sample_weight", "counts"),
        rated=2,
        allowed=RAISE_OR_OMIT,
    ).values
    ordered = not (isinstance(weights, str) and weights == "identity")
    r = prepare_ratings((y1, y2), labels, names=names, ordered=ordered)
    return Pair(r, weights, item_weights(sample_weight, counts, r.n_items, scan=scan))


def scale_hint(labels, offset: int, k: int) -> str:
    """How a weight matrix that does not fit the scale can be fixed (``labels``: the
    explicit scale or None)."""
    where = "" if labels is not None else f" ({offset}..{offset + k - 1})"
    return f"{where}; pass `labels` to fix the scale"


def kappa(pair: Pair, replace: float) -> float:
    """Kappa of validated inputs: the one computation behind every entry point.

    Named weights take one vectorized pass over moments where they can (``_moments``):
    unweighted quadratic kappa the five sums (eq. Q), linear and unweighted kappa on at
    most eight positions the margins, quadratic kappa with survey weights the exact
    weighted moments. Otherwise a one-pass table (eq. 1) — survey weights summed
    exactly per cell, and with named weights kappa computed exactly from those sums —
    and named weights on scales too wide for a table the table-free path. Every path
    gives the same correctly rounded value for the same items.
    """
    r, weights, iw = pair.ratings, pair.weights, pair.item_weights
    named = is_exact_name(weights)  # Gwet's named weights: a matrix once K is known
    if named and iw.values is None:
        if weights == "quadratic":
            sums = quadratic_sums(r)
            check_codes(r)  # from the bounds the sums' pass saw
            return kappa_from_sums(r.n_items, *sums, replace)
        fast = margin_kappa(r, weights, replace)
        if fast is not None:
            return fast  # ratings in 0..7: no code can be told apart there
    if named and weights == "quadratic" and iw.survey:
        fast = survey_quadratic_kappa(r, iw.values, replace)
        if fast is not None:
            check_codes(r)
            return fast
    iw = iw.scanned()  # sample weights not yet checked: check them now
    w = iw.as_float()
    if named and r.n_classes is not None and r.n_classes > TABLE_CLASSES:
        check_whole_scale(r)  # explicit labels, too many for a table
        return kappa_tablefree(r, weights, w, r.offset, replace, counts=iw.counts)
    survey = named and iw.survey
    if survey:
        counted = guess_table(r, w, TABLE_CLASSES, exact=True)
    else:
        limit = TABLE_CLASSES if named else MAX_DENSE_CLASSES
        counted = scaled_table(r, w, limit, counts=iw.counts)
    if counted is None:
        offset, k = measure_scale(r)
        if isinstance(weights, str) and not named:
            raise QwkitError(
                f"`weights`={weights!r} is a matrix of the rating scale, which has {k} "
                f"categories{scale_hint(r.labels, offset, k)} (at most "
                f"{MAX_DENSE_CLASSES} are supported).",
                parameter="weights",
            )
        if not named:
            resolve(weights, k, hint=scale_hint(r.labels, offset, k))  # raises: no matrix fits
        check_codes(r)
        return kappa_tablefree(r, weights, w, offset, replace, counts=iw.counts)
    table, offset, k = counted
    wmat = resolve(weights, k, hint=scale_hint(r.labels, offset, k))
    r.memo.setdefault("bounds", (offset, offset + k - 1))
    check_codes(r, table=table if isinstance(table, np.ndarray) else None, offset=offset)
    if survey:
        return exact_table_kappa(table, wmat, replace)
    return kappa_from_table(table, wmat, replace)
