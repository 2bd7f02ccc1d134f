"""Kappa of named weights from moments: one vectorized pass, no K×K table.

Named weights depend only on the difference of two positions, so kappa (eq. 1 of
Vaughn & Justice 2015, κ = (S − O·N)/S with N = Σw, O = Σ w·d(a, b) and S = hᵀ·D·g)
needs far less than the table:

- quadratic weights: Σw, Σw·a, Σw·b, Σw·(a² + b²), Σw·ab (eq. Q), since
  O = Σw(a² + b²) − 2Σw·ab and S = N·Σw(a² + b²) − 2·Σw·a·Σw·b;
- linear and unweighted kappa: the two margins h, g and one per-item sum,
  O = Σa + Σb − 2·Σ min(a, b) (linear) or O = N − #{a = b} (unweighted).

Every sum here is an exact integer — sums of survey weights too, in units of a power of
two (``_kernels.survey_moments``) — so kappa is one correctly rounded division of exact
integers: the value the table path computes from the same items, to the last bit. Each
function returns None when its kernel's bound shows the fast path does not apply
(ratings out of its range, weights outside its exponent window or invalid); the caller
then counts a table.
"""

from __future__ import annotations

import numpy as np

from qwkit import _kernels
from qwkit._base._dyadic import exact_cell_sums, exception_buffer, weight_bits, weight_window
from qwkit._base._scale import Ratings, check_in_scale, check_whole_scale
from qwkit._base._warnings import warn_undefined
from qwkit._base._weights import BOTH_CONSTANT, named_weights, zero_disagreement_reason

__all__ = [
    "exact_kappa",
    "kappa_from_sums",
    "margin_kappa",
    "quadratic_sums",
    "survey_quadratic_kappa",
]

_INT64_LIMIT = 2**63
#: Ratings read natively in int32 lanes (int8, int16, int32, and the unsigned ones).
_NARROW_ITEMSIZE = 4
#: Values below this bound keep the int32 block sums of the narrow kernel exact.
_NARROW_MAX = 128


def _pick(serial, threaded, n: int):
    return threaded if _kernels.threaded(n) else serial


def exact_kappa(observed: int, n: int, s: int, replace, reason, *, quiet: bool = False):
    """Eq. 1 in exact integers: κ = (S − O·N)/S with O = ⟨U, W⟩, N the total and
    S = hᵀ·W·g = N·⟨V, W⟩, one correctly rounded division — the one place every exact path
    divides. S = 0 (kappa 0/0) gives ``replace``, with an UndefinedKappaWarning saying
    ``reason()`` (a function, called only then) unless ``quiet``."""
    if s == 0:
        return replace if quiet else warn_undefined(replace, reason())
    return (s - observed * n) / s  # κ = 1 − O·N/S, one correctly rounded division (eq. 1)


# ---------------------------------------------------------------------------- quadratic


def quadratic_sums(r: Ratings) -> tuple[int, int, int, int]:
    """Σa, Σb, Σ(a² + b²), Σab of eq. Q for unweighted quadratic kappa, exact for any
    int64 data.

    The common case (small non-negative ratings) takes one pass of the fastest kernel
    for the dtype: int32 lanes for ratings of at most 4 bytes, int64 lanes otherwise.
    Else one pass returns the sums and the extremes (which also check explicit
    labels); if the extremes show that the int64 sums could have overflowed, a shifted
    pass (values minus the minimum) or, for ranges whose squares exceed int64, the
    limb-split pass recomputes them.
    """
    n = r.n_items
    a, b = r.a, r.b
    if a.dtype.itemsize <= _NARROW_ITEMSIZE and b.dtype.itemsize <= _NARROW_ITEMSIZE:
        kernel = _pick(_kernels.five_sums_narrow, _kernels.five_sums_narrow_par, n)
        sa, sb, s2, sab, hi, lo = kernel(a, b)
        if 0 <= lo and hi < _NARROW_MAX:
            if r.n_classes is not None and not r.checked:
                if lo < r.offset or hi >= r.offset + r.n_classes:
                    check_whole_scale(r)  # raises, naming the first rating off the scale
            r.memo["bounds"] = (int(lo), int(hi))  # for check_codes: no pass of its own
            return int(sa), int(sb), int(s2), int(sab)
    if r.n_classes is None:
        kernel = _pick(_kernels.five_sums, _kernels.five_sums_par, n)
        sa, sb, saa, sbb, sab, bound = kernel(a, b)
        if 0 <= bound < 2**31 and n * int(bound) ** 2 < _INT64_LIMIT:  # every value ≤ bound
            r.memo["bounds"] = (0, int(bound))
            return int(sa), int(sb), int(saa) + int(sbb), int(sab)
    sa, sb, saa, sbb, sab, amin, amax, bmin, bmax = _kernels.five_sums_checked(a, b)
    check_in_scale(r, [(amin, amax), (bmin, bmax)])
    r.memo["bounds"] = (min(int(amin), int(bmin)), max(int(amax), int(bmax)))
    big = max(abs(int(amin)), abs(int(amax)), abs(int(bmin)), abs(int(bmax)))
    if big < 2**31 and n * big * big < _INT64_LIMIT:  # products were formed in int32
        return int(sa), int(sb), int(saa) + int(sbb), int(sab)
    lo = min(int(amin), int(bmin))
    span = max(int(amax), int(bmax)) - lo
    if n * span * span < _INT64_LIMIT:
        sa, sb, saa, sbb, sab = (int(s) for s in _kernels.five_sums_shifted(a, b, np.int64(lo)))
        return sa, sb, saa + sbb, sab
    parts = _kernels.five_sums_limbs(a, b, np.int64(lo))
    col = [sum(int(x) for x in parts[:, j]) for j in range(parts.shape[1])]
    base = 1 << _kernels.LIMB_BITS
    powers = [base**p for p in range(5)]
    sa = sum(col[j] * powers[j] for j in range(3))
    sb = sum(col[3 + j] * powers[j] for j in range(3))
    s2 = sum((col[6 + j] + col[11 + j]) * powers[j] for j in range(5))
    sab = sum(col[16 + j] * powers[j] for j in range(5))
    return sa, sb, s2, sab


def kappa_from_sums(n: int, sa: int, sb: int, s2: int, sab: int, replace) -> float:
    """Eq. Q with Python integers — n items (or the total weight), Σa, Σb, Σ(a² + b²),
    Σab — exact up to one correctly rounded division."""
    # eq. Q is eq. 1 with O = Σ(a² + b²) − 2Σab and S = n·Σ(a² + b²) − 2·Σa·Σb: the same
    # exact numerator, 2·(n·Σab − Σa·Σb), over the same S   (eq. Q)
    return exact_kappa(s2 - 2 * sab, n, n * s2 - 2 * sa * sb, replace, lambda: BOTH_CONSTANT)


# ---------------------------------------------------------------------------- margins


def margin_kappa(r: Ratings, weights: str, replace: float) -> float | None:
    """Linear or unweighted kappa of ratings on eight values 0..7 (positions from the
    offset of explicit labels), from the two margins and Σ min(a, b) or #{a = b} (one
    pass, no table); None when a rating falls outside 0..7 (the caller counts a
    table)."""
    if r.n_classes is not None and r.checked:
        return None  # text labels: the ratings are positions already, counted in a table
    n = r.n_items
    linear = weights == "linear"
    m = _pick(_kernels.margins, _kernels.margins_par, n)(r.a, r.b, linear).tolist()
    if not 0 <= m[17] < _kernels.MARGIN_CLASSES:
        return None
    lo = 0 if r.n_classes is None else r.offset  # positions: values − lo
    h, g, pair = m[:8], m[8:16], m[16]
    if r.n_classes is not None:
        inside = range(lo, lo + r.n_classes)
        if any(h[v] or g[v] for v in range(8) if v not in inside):
            check_whole_scale(r)  # raises, naming the first rating off the scale
    if linear:
        total = sum(v * (x + y) for v, (x, y) in enumerate(zip(h, g, strict=True)))
        observed = total - 2 * pair  # Σ|a − b| = Σa + Σb − 2·Σ min(a, b)
        s = _linear_chance(h, g)
    else:
        observed = n - pair
        s = n * n - sum(x * y for x, y in zip(h, g, strict=True))  # S = Σᵢⱼ hᵢ gⱼ [i ≠ j]

    def reason():
        rows = np.flatnonzero(np.array(h)) - lo
        cols = np.flatnonzero(np.array(g)) - lo
        return zero_disagreement_reason(named_weights(8, weights), rows, cols)

    return exact_kappa(observed, n, s, replace, reason)  # (eq. 1)


def _linear_chance(h: list[int], g: list[int]) -> int:
    """S = Σᵢⱼ hᵢ gⱼ |i − j| in O(K): Σⱼ gⱼ|i − j| from running sums of g below and
    above i."""
    below_n = below_s = 0  # Σ gⱼ and Σ j·gⱼ over j < i
    total_n, total_s = sum(g), sum(j * x for j, x in enumerate(g))
    s = 0
    for i, (x, y) in enumerate(zip(h, g, strict=True)):
        above_n, above_s = total_n - below_n, total_s - below_s
        s += x * (i * below_n - below_s + above_s - i * above_n)
        below_n += y
        below_s += i * y
    return s


# ---------------------------------------------------------------------------- survey weights


def survey_quadratic_kappa(r: Ratings, item_weight: np.ndarray, replace: float) -> float | None:
    """Quadratic kappa with survey weights from exact weighted moments (eq. Q).

    One windowed pass (``_kernels.survey_moments``) sums Σw, Σw·a, Σw·b, Σw·(a² + b²),
    Σw·ab exactly for every weight within 2**44 of the others, and lists the rest —
    outliers, subnormals, invalid weights — whose cells are then summed exactly
    (``_dyadic.exact_cell_sums``); the pass validates the weights on the way. None
    when the fast path does not apply (explicit labels, ratings outside [0, 32), an
    invalid weight, a zero total, or more outliers than the pass lists — the caller
    validates and counts a table).
    """
    if r.n_classes is not None:
        return None
    bits = weight_bits(item_weight)
    n = r.n_items
    start = weight_window(bits, _kernels.MOMENT_WINDOW)
    if _kernels.threaded(n):
        exc = exception_buffer(n, _kernels.n_threads())
        acc, or_v, counts = _kernels.survey_moments_par(r.a, r.b, bits, start, exc)
        listed = [exc[t, : counts[t]] for t in range(exc.shape[0])]
        outliers = np.concatenate(listed) if int(counts.max()) <= exc.shape[1] else None
    else:
        exc = exception_buffer(n)[0]
        acc, or_v, n_exc = _kernels.survey_moments(r.a, r.b, bits, start, exc)
        outliers = exc[:n_exc] if n_exc <= exc.shape[0] else None
    if not 0 <= or_v < _kernels.SURVEY_RATINGS or outliers is None:
        return None
    words = acc.tolist()
    digit = [words[2 * j] | words[2 * j + 1] << 64 for j in range(15)]
    sums = [digit[3 * c] + (digit[3 * c + 1] << 32) + (digit[3 * c + 2] << 64) for c in range(5)]
    exponent = start - 1075  # v counts units of 2^(L − 1075)
    if outliers.shape[0]:
        more = _outlier_moments(r, item_weight, outliers)
        if more is None:
            return None  # an invalid weight: the caller's validation says which
        sums, exponent = _add_scaled(sums, exponent, *more)
    if sums[0] == 0:
        return None  # every weight zero: the caller's validation says so
    r.memo["bounds"] = (0, int(or_v))  # for check_codes: no pass of its own
    return kappa_from_sums(*sums, replace)


def _outlier_moments(r: Ratings, item_weight: np.ndarray, idx: np.ndarray):
    """(the five moments, their binary exponent) of the items ``idx`` — exact, from the
    exact sums of their cells — or None if one of their weights is invalid."""
    w = item_weight[idx]
    bad, _ = _kernels.scan_weights(w)
    if bad >= 0:
        return None
    k = _kernels.SURVEY_RATINGS
    a, b = r.a[idx].astype(np.int64), r.b[idx].astype(np.int64)
    cells = exact_cell_sums(a * k + b, w, k * k, squares=False)[0]
    present = np.flatnonzero(~cells.is_zero()).tolist()
    sums = [0] * 5
    for c in present:
        v, x, y = cells.row_integer(c), c // k, c % k
        for j, coef in enumerate((1, x, y, x * x + y * y, x * y)):
            sums[j] += v * coef
    return sums, cells.exponent


def _add_scaled(x: list[int], ex: int, y: list[int], ey: int) -> tuple[list[int], int]:
    """x·2^ex + y·2^ey, elementwise, as integers times 2^min(ex, ey)."""
    e = min(ex, ey)
    return [(p << (ex - e)) + (q << (ey - e)) for p, q in zip(x, y, strict=True)], e
