"""Weighted kappa from ratings, from a confusion matrix, and from real-valued scores.

Notation (seed 000, §1.1): two raters give n items ratings a, b on a scale of K ordered
categories; U is the observed K×K table, h = U·e and g = Uᵀ·e its margins, and
W a disagreement weight matrix. Kappa is

    κ = 1 − ⟨U, W⟩ / ⟨V, W⟩,   V = h ⊗ g / n                                (eq. 1)

Any positive scaling of W cancels, so the (K−1)² normalization of the seeds changes
nothing. For quadratic weights on an integer scale the alternate form of seed 000 (§1.2)
needs only five sums over the items,

    ⟨U, W⟩ ∝ Σ(a − b)²,   ⟨V, W⟩ ∝ Σa² + Σb² − 2·Σa·Σb / n,

which gives, with every sum an exact integer,

    κ = 2·(n·Σab − Σa·Σb) / (n·(Σa² + Σb²) − 2·Σa·Σb)                       (eq. Q)

— one pass, no table, and a single correctly rounded division at the end.
"""

from __future__ import annotations

import warnings

import numpy as np

from qwkit import _kernels
from qwkit import _validation as _v
from qwkit._warnings import UndefinedKappaWarning

__all__ = [
    "confusion_matrix",
    "kappa_from_confusion",
    "kappa_score",
    "soft_kappa_score",
    "weight_matrix",
]

_INT64_LIMIT = 2**63
#: Named-weight scales up to this size are counted in a dense K×K table; larger ones
#: (huge integer ranges) use the table-free path.
_TABLE_CLASSES = 1024


# ---------------------------------------------------------------------------- weights


def weight_matrix(n_classes, weights="quadratic"):
    """Disagreement weight matrix of a K-category scale.

    Parameters
    ----------
    n_classes : int
        Number of categories K of the scale (K ≥ 1).
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        ``"quadratic"`` gives (i − j)² / (K − 1)², ``"linear"`` |i − j| / (K − 1),
        ``"identity"`` or None 1 − δᵢⱼ (unweighted kappa). A (K, K) array is validated
        and returned as float64.

    Returns
    -------
    ndarray of shape (K, K)
        Non-negative disagreement weights, zero on the diagonal for the named kinds.

    Examples
    --------
    >>> import qwkit
    >>> qwkit.weight_matrix(3)
    array([[0.  , 0.25, 1.  ],
           [0.25, 0.  , 0.25],
           [1.  , 0.25, 0.  ]])
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
        raise TypeError(f"`n_classes` must be an integer; got {n_classes!r}.")
    k = int(n_classes)
    if k < 1:
        raise ValueError(f"`n_classes` must be at least 1; got {k}.")
    if k > _v.MAX_DENSE_CLASSES:
        raise ValueError(
            f"`n_classes` must be at most {_v.MAX_DENSE_CLASSES} for a dense matrix; got {k}."
        )
    kind = _v.check_weights(weights)
    if not isinstance(kind, str):
        if kind.shape[0] != k:
            raise ValueError(f"`weights` has shape {kind.shape} but `n_classes` is {k}.")
        return kind.copy()
    return _named_weights(k, kind) / _named_scale(k, kind)


def _named_weights(k: int, kind: str) -> np.ndarray:
    """Unnormalized weights: integer-valued (i − j)², |i − j| or 1 − δ, as float64."""
    return _named_weights_at(np.arange(k, dtype=np.float64), kind)


def _named_weights_at(positions: np.ndarray, kind: str) -> np.ndarray:
    """Unnormalized named weights between categories at the given scale positions."""
    diff = positions[:, None] - positions[None, :]
    if kind == "quadratic":
        return diff * diff
    if kind == "linear":
        return np.abs(diff)
    return (diff != 0).astype(np.float64)


def _named_scale(k: int, kind: str) -> float:
    if kind == "identity" or k == 1:
        return 1.0
    return float((k - 1) ** 2 if kind == "quadratic" else k - 1)


# ---------------------------------------------------------------------------- finishing


def _undefined(replace_undefined_by: float, stacklevel: int = 4) -> float:
    """Warn (at the public caller's caller) and return the replacement value."""
    warnings.warn(
        "Kappa is undefined: the chance-expected disagreement is zero (both raters use a "
        f"single, identical rating). Returning `replace_undefined_by`={replace_undefined_by}.",
        UndefinedKappaWarning,
        stacklevel=stacklevel,
    )
    return replace_undefined_by


def _kappa_from_table(table: np.ndarray, wmat: np.ndarray, replace: float) -> float:
    """Eq. 1 on a K×K table, in float64."""
    t = _unit_scale(table.astype(np.float64))
    rows = t.sum(axis=1)
    cols = t.sum(axis=0)
    observed = float(np.sum(wmat * t))  # ⟨U, W⟩
    expected = float(rows @ wmat @ cols) / float(t.sum())  # ⟨V, W⟩, V = h ⊗ g / n   (eq. 1)
    if expected == 0.0:
        return _undefined(replace)
    if np.count_nonzero(rows) == 1 or np.count_nonzero(cols) == 1:
        return 0.0  # one rater constant: ⟨U, W⟩ = ⟨V, W⟩ exactly, whatever rounding says
    return float(1.0 - observed / expected)


def _unit_scale(x: np.ndarray) -> np.ndarray:
    """``x`` (non-negative floats) times a power of two that brings its maximum to [½, 1).

    Exact (integer counts stay exact), in two steps so that the factor itself cannot
    overflow for subnormal maxima; afterwards no product or sum of the entries can
    underflow or overflow. Modifies and returns ``x``.
    """
    for factor in _unit_factors(float(x.max()) if x.size else 0.0):
        x *= factor
    return x


def _unit_factors(top: float) -> tuple[float, ...]:
    """Two powers of two whose product brings ``top`` (≥ 0) to [½, 1)."""
    if not top > 0.0:
        return ()
    e = int(np.frexp(top)[1])
    return np.ldexp(1.0, -(e // 2)), np.ldexp(1.0, -(e - e // 2))


def _kappa_from_sums(n: int, sa: int, sb: int, saa: int, sbb: int, sab: int, replace) -> float:
    """Eq. Q with Python integers: exact up to one correctly rounded division."""
    den = n * (saa + sbb) - 2 * sa * sb
    if den == 0:
        return _undefined(replace)
    return 2 * (n * sab - sa * sb) / den  # (eq. Q)


# ---------------------------------------------------------------------------- kernels


def _quadratic_sums(r: _v.Ratings) -> tuple[int, int, int, int, int]:
    """The five sums of eq. Q for unweighted quadratic kappa, exact for any int64 data.

    The common case (small non-negative ratings, no explicit labels) takes one pass of
    the fastest kernel. Otherwise one pass returns the sums and the extremes (which also
    check explicit labels); if the extremes show that the int64 sums could have
    overflowed, a shifted pass (values minus the minimum) or, for ranges whose squares
    exceed int64, the limb-split pass recomputes them.
    """
    n = r.n_samples
    if r.n_classes is None:
        sa, sb, saa, sbb, sab, or_all = _kernels.five_sums(r.a, r.b)
        if 0 <= or_all < 2**31 and n * int(or_all) ** 2 < _INT64_LIMIT:  # max ≤ OR of all
            return int(sa), int(sb), int(saa), int(sbb), int(sab)
    sa, sb, saa, sbb, sab, amin, amax, bmin, bmax = _kernels.five_sums_checked(r.a, r.b)
    _check_in_scale(r, amin, amax, bmin, bmax)
    big = max(abs(int(amin)), abs(int(amax)), abs(int(bmin)), abs(int(bmax)))
    if big < 2**31 and n * big * big < _INT64_LIMIT:  # products were formed in int32
        return int(sa), int(sb), int(saa), int(sbb), int(sab)
    lo = min(int(amin), int(bmin))
    span = max(int(amax), int(bmax)) - lo
    if n * span * span < _INT64_LIMIT:
        return tuple(int(s) for s in _kernels.five_sums_shifted(r.a, r.b, np.int64(lo)))
    parts = _kernels.five_sums_limbs(r.a, r.b, np.int64(lo))
    col = [sum(int(x) for x in parts[:, j]) for j in range(parts.shape[1])]
    base = 1 << _kernels._counts.LIMB_BITS
    powers = [base**p for p in range(5)]
    sa = sum(col[j] * powers[j] for j in range(3))
    sb = sum(col[3 + j] * powers[j] for j in range(3))
    saa = sum(col[6 + j] * powers[j] for j in range(5))
    sbb = sum(col[11 + j] * powers[j] for j in range(5))
    sab = sum(col[16 + j] * powers[j] for j in range(5))
    return sa, sb, saa, sbb, sab


def _check_in_scale(r: _v.Ratings, amin, amax, bmin, bmax) -> None:
    """Explicit consecutive-integer labels: every rating must fall inside them."""
    if r.checked or r.n_classes is None:
        return
    lo, hi = r.offset, r.offset + r.n_classes - 1
    if amin < lo or amax > hi:
        bad = np.flatnonzero((r.a < lo) | (r.a > hi))[0]
        raise _v.out_of_scale_error(r, int(bad), -1)
    if bmin < lo or bmax > hi:
        bad = np.flatnonzero((r.b < lo) | (r.b > hi))[0]
        raise _v.out_of_scale_error(r, -1, int(bad))


def _check_whole_scale(r: _v.Ratings) -> None:
    """Explicit consecutive-integer labels not yet checked: check every rating in a pass."""
    if not r.checked and r.n_classes is not None:
        _check_in_scale(r, *_kernels.minmax2(r.a, r.b))


def _scale(r: _v.Ratings) -> tuple[int, int]:
    """(offset, K) of the scale; measures the integer range when labels were not given."""
    if r.n_classes is not None:
        return r.offset, r.n_classes
    amin, amax, bmin, bmax = _kernels.minmax2(r.a, r.b)
    lo = min(int(amin), int(bmin))
    return lo, max(int(amax), int(bmax)) - lo + 1


def _count(r: _v.Ratings, sample_weight, offset: int, k: int):
    """One counting pass: (table, bad_a, bad_b, bit mask of positions < 64 that occur)."""
    lo = np.int64(offset)
    if sample_weight is None:
        table, bad_a, bad_b = _kernels.confusion_counts(r.a, r.b, lo, k)
        occurs = (table.sum(axis=0) + table.sum(axis=1)) > 0
        mask = sum(1 << int(i) for i in np.flatnonzero(occurs[:64]))
        return table, bad_a, bad_b, mask
    table, bad_a, bad_b, mask = _kernels.confusion_weighted(r.a, r.b, sample_weight, lo, k)
    return table, bad_a, bad_b, int(mask)


def _table(r: _v.Ratings, sample_weight, offset: int, k: int) -> np.ndarray:
    """Dense K×K table of positions (value − offset); int64 counts or float64 weights."""
    table, bad_a, bad_b, _ = _count(r, sample_weight, offset, k)
    if bad_a >= 0 or bad_b >= 0:
        raise _v.out_of_scale_error(r, bad_a, bad_b)
    return table


def _positions_on_scale(y, labels, name: str) -> tuple[np.ndarray, np.ndarray]:
    """One rating vector → (positions 0..K−1 as int64, the scale as an array).

    The scale is ``labels`` or, when None, the integer range of ``y`` (strings: sorted);
    it must fit a dense table (at most ``MAX_DENSE_CLASSES`` categories).
    """
    names = (name, name)
    r = _v.prepare_ratings(y, y, labels, names=names)
    if r.n_classes is not None and r.n_classes > _v.MAX_DENSE_CLASSES:
        what = "`labels` has" if labels is not None else f"`{name}` has"
        unit = "categories" if labels is not None else "distinct ratings"
        raise ValueError(
            f"{what} {r.n_classes} {unit}; at most {_v.MAX_DENSE_CLASSES} categories are "
            "supported here."
        )
    if r.checked:  # positions on an explicit or text scale, already validated
        return np.asarray(r.a, dtype=np.int64), r.labels.values
    offset, k = _scale(r)
    if k > _v.MAX_DENSE_CLASSES:
        raise ValueError(
            f"`{name}` spans {k} integer categories ({offset}..{offset + k - 1}); at most "
            f"{_v.MAX_DENSE_CLASSES} are supported here. Pass `labels` with the ratings "
            "that occur."
        )
    codes = r.a.astype(np.int64) - np.int64(offset)
    bad = np.flatnonzero((codes < 0) | (codes >= k))
    if bad.size:
        raise _v.out_of_scale_error(r, int(bad[0]), -1, names=names)
    scale = r.labels.values if r.labels is not None else np.arange(offset, offset + k)
    return codes, scale


#: Ratings that all lie in [0, 32) — most rating scales — are counted in one pass into a
#: 32×32 table that is then trimmed to the occurring range, instead of measuring the
#: range in a pass of its own first.
_GUESS_CLASSES = 32


def _scaled_table(r: _v.Ratings, sample_weight, max_classes: int):
    """(table, offset, K) of the ratings on their scale; None if K > ``max_classes``."""
    if r.n_classes is None:
        table, bad_a, bad_b, mask = _count(r, sample_weight, 0, _GUESS_CLASSES)
        if bad_a < 0 and bad_b < 0:
            lo, hi = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
            return np.ascontiguousarray(table[lo : hi + 1, lo : hi + 1]), lo, hi - lo + 1
    offset, k = _scale(r)
    if r.n_classes is None and k > max_classes:
        return None
    return _table(r, sample_weight, offset, k), offset, k


def _positions(x: np.ndarray, offset: int) -> np.ndarray:
    """Exact scale positions ``x − offset`` as uint64 (computed in wrapping int64)."""
    return (x.astype(np.int64) - np.int64(offset)).view(np.uint64)


def _kappa_tablefree(r, kind: str, sample_weight, offset: int, replace: float) -> float:
    """Named-weight kappa on a scale too large for a table (e.g. ratings 0 and 10¹²).

    Numerator: the per-item sum Σ wₖ·d(aₖ, bₖ). Denominator: Σᵢⱼ hᵢ gⱼ d(xᵢ, xⱼ) / n over
    the distinct values of each margin (docs/kappa.md §5), in O(m log m) memory and
    time — never in proportion to the width of the scale. Equality is decided on exact
    integer positions; distances are float64.
    """
    ua, ub = _positions(r.a, offset), _positions(r.b, offset)
    w = np.ones(ua.shape[0]) if sample_weight is None else _unit_scale(sample_weight.copy())
    total = float(w.sum())
    va, inv_a = np.unique(ua, return_inverse=True)
    vb, inv_b = np.unique(ub, return_inverse=True)
    ha = np.bincount(inv_a, weights=w, minlength=va.size)
    hb = np.bincount(inv_b, weights=w, minlength=vb.size)
    if kind == "identity":
        observed = float(w[ua != ub].sum())
        _, ia, ib = np.intersect1d(va, vb, assume_unique=True, return_indices=True)
        expected = total * total - float(np.dot(ha[ia], hb[ib]))
    else:
        center = (np.dot(ha, va.astype(np.float64)) + np.dot(hb, vb.astype(np.float64))) / (
            2 * total
        )
        xa, xb = va.astype(np.float64) - center, vb.astype(np.float64) - center
        diff = xa[inv_a] - xb[inv_b]
        if kind == "quadratic":
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
        return _undefined(replace)
    if np.count_nonzero(ha) == 1 or np.count_nonzero(hb) == 1:
        return 0.0  # one rater constant: ⟨U, W⟩ = ⟨V, W⟩ exactly, whatever rounding says
    return float(1.0 - observed / expected)


# ---------------------------------------------------------------------------- public


def kappa_score(
    y1,
    y2,
    *,
    weights="quadratic",
    labels=None,
    sample_weight=None,
    replace_undefined_by=np.nan,
) -> float:
    """Weighted kappa of two raters: quadratic (default), linear, unweighted or custom.

    Parameters
    ----------
    y1, y2 : array-like of shape (n_samples,)
        Ratings of the same items by two raters (or truth and prediction). Integers,
        integral floats or bools; strings or any other values with ``labels``.
        Lists, numpy arrays and pandas or polars Series are accepted.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights; see :func:`weight_matrix`. A matrix is indexed
        ``[rating of y1, rating of y2]`` by position on the scale.
    labels : array-like of shape (K,), default=None
        The ordered rating scale; weights use positions in it. When None and the
        ratings are integers the scale is every integer from the smallest to the
        largest rating of both raters; strings are taken in sorted order.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weight of each item.
    replace_undefined_by : float, default=nan
        Returned, with an :class:`UndefinedKappaWarning`, when kappa is 0/0.

    Returns
    -------
    float
        Kappa, between −1 and 1 for the named weights (1 is perfect agreement, 0 chance).

    Warns
    -----
    UndefinedKappaWarning
        When the chance-expected disagreement is zero (both raters constant and equal).

    Raises
    ------
    ValueError
        Mismatched lengths, empty input, NaN/inf, non-integral floats without
        ``labels``, a rating outside ``labels``, duplicate ``labels``, a bad weight
        matrix or bad ``sample_weight``.
    TypeError
        Mixed strings and numbers, unsupported types.

    See Also
    --------
    kappa_from_confusion : The same from a K×K table.
    soft_kappa_score : Quadratic kappa of real-valued predictions.
    KappaAccumulator : Streaming and mergeable kappa.

    Notes
    -----
    Kappa is eq. 1 of Vaughn & Justice (seed 000): κ = 1 − ⟨U, W⟩/⟨V, W⟩. For
    unweighted quadratic kappa on integer ratings it is computed, without any table,
    from five integer sums (eq. Q in the module docstring) in one pass, and is exact:
    the sums are integers and the one division is correctly rounded. Other weights
    and sample weights count a K×K table in one pass. No memory is allocated in
    proportion to the width of the scale: ratings 0 and 10¹² are fine.

    When ``labels`` is None the scale is the full integer range, which differs from
    scikit-learn's ``cohen_kappa_score`` (it uses only the observed values) when a
    middle rating never occurs; pass ``labels`` to choose.

    References
    ----------
    .. [1] J. Cohen, "Weighted kappa", Psychological Bulletin 70(4):213-220, 1968.
    .. [2] D. Vaughn and D. Justice, "On the direct maximization of quadratic weighted
       kappa", preprint (withdrawn), 2015.

    Examples
    --------
    The step-by-step example of the Kaggle reference page (seed 004):

    >>> import qwkit
    >>> actuals = [4, 4, 3, 4, 4, 0, 1, 1, 2, 1]
    >>> preds = [0, 4, 1, 0, 4, 0, 1, 1, 2, 1]
    >>> round(qwkit.kappa_score(actuals, preds), 6)
    0.318182

    The integer-range scale versus scikit-learn's observed-values scale:

    >>> y1, y2 = [9, 7, 8, 7, 6, 8, 3, 5, 10], [8, 8, 6, 6, 7, 6, 1, 4, 8]
    >>> round(qwkit.kappa_score(y1, y2), 6)
    0.758621
    >>> round(qwkit.kappa_score(y1, y2, labels=sorted(set(y1) | set(y2))), 4)
    0.7632
    """
    replace = _v.check_replace_undefined_by(replace_undefined_by)
    kind = _v.check_weights(weights)
    r = _v.prepare_ratings(y1, y2, labels)
    sw = _v.check_sample_weight(sample_weight, r.n_samples)
    if isinstance(kind, str) and kind == "quadratic" and sw is None:
        return _kappa_from_sums(r.n_samples, *_quadratic_sums(r), replace)
    if isinstance(kind, str) and r.n_classes is not None and r.n_classes > _TABLE_CLASSES:
        _check_whole_scale(r)  # explicit labels, too many for a table
        return _kappa_tablefree(r, kind, sw, r.offset, replace)
    max_classes = _TABLE_CLASSES if isinstance(kind, str) else _v.MAX_DENSE_CLASSES
    counted = _scaled_table(r, sw, max_classes)
    if counted is not None and sw is not None and not np.all(np.isfinite(counted[0])):
        # Summed weights overflowed: kappa is invariant to scaling every weight by one
        # power of two, so count again with weights scaled to at most 1 (rare path).
        counted = _scaled_table(r, _unit_scale(sw.copy()), max_classes)
    if counted is None:
        offset, k = _scale(r)
        if not isinstance(kind, str):
            raise _weights_shape_error(kind, k, offset)
        return _kappa_tablefree(r, kind, sw, offset, replace)
    table, offset, k = counted
    if isinstance(kind, str):
        return _kappa_from_table(table, _named_weights(k, kind), replace)
    if kind.shape[0] != k:
        raise _weights_shape_error(kind, k, None if r.labels is not None else offset)
    return _kappa_from_table(table, kind, replace)


def _weights_shape_error(wmat: np.ndarray, k: int, offset: int | None) -> ValueError:
    where = "" if offset is None else f" ({offset}..{offset + k - 1})"
    return ValueError(
        f"`weights` has shape {wmat.shape} but the rating scale has {k} categories{where}; "
        "pass `labels` to fix the scale."
    )


def kappa_from_confusion(confusion, *, weights="quadratic", replace_undefined_by=np.nan):
    """Weighted kappa from a K×K confusion matrix (rows: rater 1, columns: rater 2).

    Parameters
    ----------
    confusion : array-like of shape (K, K)
        Counts (or summed sample weights) of items rated i by rater 1 and j by rater 2.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights; see :func:`weight_matrix`.
    replace_undefined_by : float, default=nan
        Returned, with an :class:`UndefinedKappaWarning`, when kappa is 0/0.

    Returns
    -------
    float
        Kappa (eq. 1). For a table of integer counts and quadratic weights it is
        computed from five exact integer sums (eq. Q), so it is the same float as
        :func:`kappa_score` on the items the table counts.

    Examples
    --------
    Seed 003's two tables with equal error rates and different kappas (§3.1):

    >>> import qwkit
    >>> o1 = [[100, 0, 0, 0], [30, 70, 0, 0], [0, 0, 70, 30], [0, 0, 0, 100]]
    >>> o2 = [[90, 10, 0, 0], [10, 80, 10, 0], [0, 10, 80, 10], [0, 0, 10, 90]]
    >>> round(qwkit.kappa_from_confusion(o1), 4), round(qwkit.kappa_from_confusion(o2), 4)
    (0.9464, 0.94)
    """
    replace = _v.check_replace_undefined_by(replace_undefined_by)
    table = _v.check_confusion(confusion)
    k = table.shape[0]
    kind = _v.check_weights(weights)
    if isinstance(kind, str):
        if kind == "quadratic" and table.dtype.kind in "iu":
            sums = _quadratic_sums_of_table(table)
            if sums is not None:  # counts: exact, the same number as kappa_score's eq. Q
                return _kappa_from_sums(*sums, replace)
        wmat = _named_weights(k, kind)
    elif kind.shape[0] != k:
        raise ValueError(
            f"`weights` has shape {kind.shape} but `confusion` has shape {table.shape}."
        )
    else:
        wmat = kind
    return _kappa_from_table(table, wmat, replace)


def _quadratic_sums_of_table(table: np.ndarray) -> tuple[int, ...] | None:
    """The six integers (n, Σa, Σb, Σa², Σb², Σab) of eq. Q from an integer table, with
    ratings at positions 0..K−1; None when an int64 sum could overflow (float path)."""
    k = table.shape[0]
    if int(table.max()) * k * k * max(k - 1, 1) ** 2 >= _INT64_LIMIT:
        return None
    t = table.astype(np.int64, copy=False)
    pos = np.arange(k, dtype=np.int64)
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    return (
        int(rows.sum()),
        int(pos @ rows),
        int(pos @ cols),
        int((pos * pos) @ rows),
        int((pos * pos) @ cols),
        int(pos @ t @ pos),
    )


def confusion_matrix(y1, y2, *, labels=None, sample_weight=None) -> np.ndarray:
    """K×K table of how often rater 1 gave rating i and rater 2 rating j.

    Parameters
    ----------
    y1, y2 : array-like of shape (n_samples,)
        Ratings, as in :func:`kappa_score`.
    labels : array-like of shape (K,), default=None
        The ordered scale (rows and columns follow it). When None: every integer from
        the smallest to the largest rating (strings: sorted).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each item.

    Returns
    -------
    ndarray of shape (K, K)
        int64 counts, or float64 sums of weights when ``sample_weight`` is given.

    Raises
    ------
    ValueError
        As :func:`kappa_score`; also when the integer range is wider than
        10,000 categories (pass ``labels``).

    Examples
    --------
    >>> import qwkit
    >>> qwkit.confusion_matrix([1, 2, 3, 3], [1, 3, 3, 3])
    array([[1, 0, 0],
           [0, 0, 1],
           [0, 0, 2]])
    """
    r = _v.prepare_ratings(y1, y2, labels)
    sw = _v.check_sample_weight(sample_weight, r.n_samples)
    if r.n_classes is not None and r.n_classes > _v.MAX_DENSE_CLASSES:
        raise ValueError(
            f"`labels` has {r.n_classes} categories; a dense confusion matrix is built only "
            f"up to {_v.MAX_DENSE_CLASSES}."
        )
    counted = _scaled_table(r, sw, _v.MAX_DENSE_CLASSES)
    if counted is not None:
        return counted[0]
    offset, k = _scale(r)
    if k > _v.MAX_DENSE_CLASSES:
        raise ValueError(
            f"The ratings span {k} integer categories ({offset}..{offset + k - 1}); a dense "
            f"table is built only up to {_v.MAX_DENSE_CLASSES}. Pass `labels` with the "
            "ratings that occur."
        )


def soft_kappa_score(y_true, y_score, *, sample_weight=None) -> float:
    """Quadratic weighted kappa of real-valued predictions (the continuous form).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True ratings (real or integer).
    y_score : array-like of shape (n_samples,)
        Real-valued predictions, not rounded.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weight of each item.

    Returns
    -------
    float
        κ(y, f) = 1 − Σw(y − f)² / (Σwy² + Σwf² − 2·Σwy·Σwf / Σw), which equals
        :func:`kappa_score` with quadratic weights whenever both are integers.

    Notes
    -----
    This is the alternate form of seed 000 (§1.2). It is evaluated in the centered
    form, with weighted means ȳ, f̄ and centered sums S:

        κ = 2·S_yf / (S_yy + S_ff + Σw·(ȳ − f̄)²)                             (eq. 2')

    (seed 000's eq. 2 is the special case ȳ = f̄ = 0). Centering first keeps the
    result accurate for data far from zero (e.g. 10⁹ + small ratings), where the
    uncentered sums would cancel catastrophically.

    Examples
    --------
    >>> import qwkit
    >>> round(qwkit.soft_kappa_score([1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6]), 6)
    0.959206
    """
    y, f = _soft_inputs(y_true, y_score)
    w = _v.check_sample_weight(sample_weight, y.shape[0])
    w = np.ones_like(y) if w is None else _unit_scale(w.copy())
    total = w.sum()
    used = w > 0
    y_const, f_const = _is_constant(y[used]), _is_constant(f[used])
    if y_const or f_const:  # S_yf = 0 exactly; decide 0/0 exactly, not from rounding noise
        if y_const and f_const and y[used][0] == f[used][0]:
            return _undefined(np.nan, stacklevel=3)
        return 0.0
    dy = y - np.dot(w, y) / total
    df = f - np.dot(w, f) / total
    # Second-pass correction of the means (two-pass algorithm): exact to rounding.
    dy -= np.dot(w, dy) / total
    df -= np.dot(w, df) / total
    mean_gap = np.dot(w, y - f) / total
    # κ is invariant to scaling y and f together: scale the centered data to unit size
    # so that their squares neither underflow nor overflow.
    size = max(np.abs(dy).max(), np.abs(df).max(), abs(mean_gap))
    dy, df, mean_gap = dy / size, df / size, mean_gap / size
    syf = np.dot(w * dy, df)
    den = np.dot(w * dy, dy) + np.dot(w * df, df) + total * mean_gap * mean_gap  # (eq. 2')
    return float(2.0 * syf / den)


def _soft_inputs(y_true, y_score) -> tuple[np.ndarray, np.ndarray]:
    """Validated float64 copies of both vectors, shifted and scaled without rounding.

    Integers are shifted by their common minimum before conversion (so 2**55 + small
    integers stay exact), and both vectors are scaled by one power of two that brings
    the largest magnitude to [½, 1) (so sums of values near 1e308 cannot overflow).
    """
    y = _v.as_1d(y_true, "y_true")
    f = _v.as_1d(y_score, "y_score")
    for arr, name in ((y, "y_true"), (f, "y_score")):
        if arr.dtype.kind == "U":
            raise TypeError(f"`{name}` must be numeric; got strings.")
    _v.check_same_length(y, f, ("y_true", "y_score"))
    if y.shape[0] == 0:
        raise ValueError("`y_true` and `y_score` are empty; kappa needs at least one item.")
    if y.dtype.kind in "biu" and f.dtype.kind in "biu":
        lo = min(int(y.min()), int(f.min()))
        y, f = _positions(y, lo).astype(np.float64), _positions(f, lo).astype(np.float64)
    else:
        y, f = y.astype(np.float64), f.astype(np.float64)
        _v._check_finite(y, "y_true")
        _v._check_finite(f, "y_score")
    for factor in _unit_factors(max(np.abs(y).max(), np.abs(f).max())):
        y *= factor  # the same power of two for both vectors
        f *= factor
    return y, f


def _is_constant(x: np.ndarray) -> bool:
    return bool(x.min() == x.max())


def _real_vector(values, name: str) -> np.ndarray:
    arr = _v.as_1d(values, name)
    if arr.dtype.kind == "U":
        raise TypeError(f"`{name}` must be numeric; got strings.")
    arr = arr.astype(np.float64)
    _v._check_finite(arr, name)
    return arr
