"""Inference for weighted kappa: standard errors, tests and confidence intervals.

Everything here works on the *present cells* of a contingency table: the m ≤ K² cells
(i, j) that hold at least one item, with Σw (the table entry) and Σw² per cell. Notation
as in ``docs/inference.md``, whose equation numbers the code cites:

    N = Σ Tᵢⱼ,  rᵢ = Σⱼ Tᵢⱼ,  cⱼ = Σᵢ Tᵢⱼ,  O = Σ dᵢⱼ Tᵢⱼ,  S = rᵀ D c,
    κ = 1 − O·N / S                                                      (eq. 1)

(the chance-expected disagreement is E = S / N). The asymptotic variance is the
Fleiss–Cohen–Everitt (1969) formula written as the variance of the influence function

    gᵢⱼ = −[dᵢⱼ − (1 − κ)(d̄ᵢ· + d̄·ⱼ)] / Eₚ,  d̄ᵢ· = (Dc)ᵢ/N,  d̄·ⱼ = (rᵀD)ⱼ/N    (eq. 3)

so that Var κ̂ = Σ T²ᵢⱼ (gᵢⱼ − ḡ)² / N² (eq. 5; T² is Σw², = T for counts, which gives
FCE's eq. 2). The bootstrap draws whole tables (eq. 6) and evaluates eq. 1 on each; the
jackknife uses the closed-form leave-one-out kappa of eq. 8.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from qwkit import _kappa
from qwkit import _validation as _v
from qwkit._resampling import (
    ConfidenceInterval,
    Resampled,
    _Estimator,
    _Kappa,
    _pvalue,
    _Sample,
    _zero_se_pvalue,
    check_alternative,
)

__all__ = [
    "ConfidenceInterval",
    "KappaTestResult",
    "kappa_test",
    "kappa_test_from_confusion",
]


# ---------------------------------------------------------------------------- inputs → cells


def _positions(ratings: list[_v.Ratings], names) -> tuple[list[np.ndarray], int]:
    """Integer scale positions (0..K−1) of every rating vector, on one common scale."""
    first = ratings[0]
    if first.n_classes is not None:
        k = first.n_classes
        out = []
        for r, (na, nb) in zip(ratings, names, strict=False):
            pa = np.asarray(r.a, dtype=np.int64) - np.int64(r.offset)
            pb = np.asarray(r.b, dtype=np.int64) - np.int64(r.offset)
            if not r.checked:
                bad_a = np.flatnonzero((pa < 0) | (pa >= k))
                bad_b = np.flatnonzero((pb < 0) | (pb >= k))
                if bad_a.size or bad_b.size:
                    raise _v.out_of_scale_error(
                        r,
                        int(bad_a[0]) if bad_a.size else -1,
                        -1 if bad_a.size else int(bad_b[0]),
                        names=(na, nb),
                    )
            out += [pa, pb]
        return _dedupe(out, len(ratings)), k
    lo = min(min(int(r.a.min()), int(r.b.min())) for r in ratings)
    hi = max(max(int(r.a.max()), int(r.b.max())) for r in ratings)
    out = []
    for r in ratings:
        for x in (r.a, r.b):
            # Wrapping int64 subtraction read as unsigned is exact for any int64 range.
            out.append((np.asarray(x, dtype=np.int64) - np.int64(lo)).view(np.uint64))
    return _dedupe(out, len(ratings)), hi - lo + 1


def _dedupe(arrays: list[np.ndarray], n_pairs: int) -> list[np.ndarray]:
    """Drop the repeated first vector of every pair after the first (compare: y_true)."""
    return arrays if n_pairs == 1 else [arrays[0], arrays[1], *arrays[3::2]]


def _compress(positions: list[np.ndarray], k: int):
    """Codes 0..Ku−1 over the categories any rater used, and those categories' positions."""
    if k <= 4 * sum(p.shape[0] for p in positions) + 1024:
        present = np.zeros(k, dtype=bool)
        for p in positions:
            present[p.astype(np.intp, copy=False)] = True
        used = np.flatnonzero(present)
        lookup = np.cumsum(present) - 1
        codes = [lookup[p.astype(np.intp, copy=False)] for p in positions]
        return codes, used
    used = np.unique(np.concatenate(positions))
    return [np.searchsorted(used, p) for p in positions], used


def _weights_on(kind, used: np.ndarray, k: int, scale_text: str) -> np.ndarray:
    if isinstance(kind, str):
        return _kappa._named_weights_at(used.astype(np.float64), kind)
    if kind.shape[0] != k:
        raise ValueError(
            f"`weights` has shape {kind.shape} but the rating scale has {k} categories"
            f"{scale_text}; pass `labels` to fix the scale."
        )
    idx = used.astype(np.intp)
    return np.ascontiguousarray(kind[np.ix_(idx, idx)])


def _cells(cell_code: np.ndarray, n_codes: int, sample_weight: np.ndarray | None):
    """Present cells of integer cell codes: (codes, counts, counts², item → cell or None)."""
    small = n_codes <= max(1 << 20, 2 * cell_code.shape[0])
    if sample_weight is None:
        if small:
            counts = np.bincount(cell_code, minlength=n_codes)
            present = np.flatnonzero(counts)
            c = counts[present].astype(np.float64)
        else:
            present, counts = np.unique(cell_code, return_counts=True)
            c = counts.astype(np.float64)
        return present, c, c, None
    if small:
        hit = np.bincount(cell_code, minlength=n_codes)
        present = np.flatnonzero(hit)
        lookup = np.full(n_codes, -1, dtype=np.intp)
        lookup[present] = np.arange(present.shape[0])
        item_cell = lookup[cell_code]
    else:
        present, item_cell = np.unique(cell_code, return_inverse=True)
    m = present.shape[0]
    w = np.bincount(item_cell, weights=sample_weight, minlength=m)
    w2 = np.bincount(item_cell, weights=sample_weight * sample_weight, minlength=m)
    return present, w, w2, item_cell


def _make_sample(counts, counts_sq, item_cell, sample_weight, n_items) -> _Sample:
    if item_cell is None:
        return _Sample(counts=counts, counts_sq=counts_sq, n_items=n_items)
    if np.all(sample_weight == sample_weight[0]):
        # Equal weights: kappa and every SE are scale-free, so this is the unit case.
        unit = np.bincount(item_cell, minlength=counts.shape[0]).astype(np.float64)
        return _Sample(counts=unit, counts_sq=unit, n_items=n_items)
    return _Sample(counts, counts_sq, n_items, item_cell, sample_weight)


def _drop_zero_weight(arrays: list[np.ndarray], sample_weight):
    """Items of zero weight are dropped: identical to never passing them. The other
    weights are scaled by a power of two (kappa and its standard errors do not change)
    so that sums of their squares can neither underflow nor overflow."""
    if sample_weight is None:
        return arrays, None
    keep = sample_weight > 0
    if not keep.all():
        arrays, sample_weight = [a[keep] for a in arrays], sample_weight[keep]
    return arrays, _kappa._unit_scale(sample_weight.copy())


def _scale_text(ratings: _v.Ratings) -> str:
    return "" if ratings.labels is not None else " (the integer range of the ratings)"


def _kind_name(kind) -> str:
    return kind if isinstance(kind, str) else "custom"


# ---------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True, eq=False)
class KappaTestResult(Resampled):
    """Result of :func:`kappa_test` and :func:`kappa_test_from_confusion`.

    Attributes
    ----------
    statistic : float
        The weighted kappa.
    standard_error : float
        Fleiss–Cohen–Everitt (1969) asymptotic standard error (eq. 2; with sample
        weights its sandwich form, eq. 5). Use it for intervals.
    standard_error_null : float
        Standard error under the null hypothesis κ = 0 (eq. 4). It is used for the
        z-test only; never for an interval.
    pvalue : float
        p-value of the z-test of κ = 0, z = statistic / standard_error_null, against
        the ``alternative``.
    n_samples : int
        Number of rated items (with positive weight).
    """

    statistic: float
    standard_error: float
    standard_error_null: float
    pvalue: float
    n_samples: int
    alternative: str = field(repr=False)
    weights_kind: str = field(repr=False)
    _estimator: _Estimator = field(repr=False)
    _upper_bound = 1.0  # the largest value the statistic can take

    def summary(self) -> str:
        """A SAS PROC FREQ-style text block: kappa, ASE, 95% limits and the z-test."""
        simple = self.weights_kind == "identity"
        kind = "Simple" if simple else "Weighted"
        title = f"{kind} Kappa Coefficient" + ("" if simple else f" ({self.weights_kind} weights)")
        half = float(special.ndtri(0.975)) * self.standard_error  # SAS: always two-sided
        # as confidence_interval(): kappa never exceeds 1, so neither does the upper limit
        low, high = self.statistic - half, min(self.statistic + half, self._upper_bound)
        se0 = self.standard_error_null
        z = self.statistic / se0 if se0 > 0 else math.nan
        one = float(special.ndtr(-abs(z))) if math.isfinite(z) else math.nan
        sign = "<" if z < 0 else ">"
        lines = [
            title,
            "-" * max(32, len(title)),
            f"{'Kappa':<26}{self.statistic:>10.4f}",
            f"{'ASE':<26}{self.standard_error:>10.4f}",
            f"{'95% Lower Conf Limit':<26}{low:>10.4f}",
            f"{'95% Upper Conf Limit':<26}{high:>10.4f}",
            "",
            f"   Test of H0: {kind} Kappa = 0",
            "",
            f"{'ASE under H0':<26}{se0:>10.4f}",
            f"{'Z':<26}{z:>10.4f}",
            f"{f'One-sided Pr {sign}  Z':<26}{one:>10.4f}",
            f"{'Two-sided Pr > |Z|':<26}{2 * one:>10.4f}",
            "",
            f"{'Number of items':<26}{self.n_samples:>10d}",
        ]
        return "\n".join(lines) + "\n"


def _test_result(model: _Kappa, sample: _Sample, alternative: str, kind_name: str):
    w = sample.counts
    kappa = model.value(w)
    full_s = model.parts(w)[-1]
    estimator = _Estimator(
        sample=sample,
        batch=functools.partial(model.batch, full_s=full_s),
        leave_one_out=functools.partial(model.leave_one_out, w),
    )
    if math.isnan(kappa):
        _kappa._undefined(math.nan, stacklevel=4)
        nan = math.nan
        return KappaTestResult(
            nan, nan, nan, nan, sample.n_items, alternative, kind_name, estimator
        )
    g = model.influence(w, kappa)
    total = float(w.sum())
    gbar = float(np.dot(w, g)) / total
    var = float(np.dot(sample.counts_sq, (g - gbar) ** 2)) / (total * total)  # (eq. 5)
    var0 = model.null_variance(w, sample.n_eff)  # (eq. 4)
    se, se0 = math.sqrt(var), math.sqrt(var0)
    pvalue = (
        _pvalue(kappa / se0, alternative)
        if se0 > 0
        else _zero_se_pvalue("standard error under the null")
    )
    return KappaTestResult(
        float(kappa), se, se0, pvalue, sample.n_items, alternative, kind_name, estimator
    )


# ---------------------------------------------------------------------------- public


def kappa_test(
    y1,
    y2,
    *,
    weights="quadratic",
    labels=None,
    sample_weight=None,
    alternative="two-sided",
) -> KappaTestResult:
    """Weighted kappa with its standard errors, z-test and confidence intervals.

    Parameters
    ----------
    y1, y2 : array-like of shape (n_samples,)
        Ratings of the same items by two raters, as in :func:`kappa_score`.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights; a matrix is indexed ``[rating of y1, rating of y2]`` and
        may be asymmetric.
    labels : array-like of shape (K,), default=None
        The ordered rating scale (see :func:`kappa_score`).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weight of each item. Items are the sampling units: the variance
        is the sandwich form of eq. 5 and the bootstrap resamples items with their
        weights. For frequency weights (each weight a count of identical items), pass
        ``confusion_matrix(y1, y2, sample_weight=w)`` to
        :func:`kappa_test_from_confusion` instead.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis of the z-test of κ = 0 (and sidedness of intervals).

    Returns
    -------
    KappaTestResult
        ``statistic``, ``standard_error``, ``standard_error_null``, ``pvalue``,
        ``n_samples``, ``.confidence_interval(...)`` and ``.summary()``.

    Warns
    -----
    UndefinedKappaWarning
        When kappa is 0/0 (both raters constant on one category): every number is nan.
    RuntimeWarning
        When the null standard error is zero (one rater constant): the p-value is nan.

    Raises
    ------
    ValueError, TypeError
        As :func:`kappa_score`, and for an unknown ``alternative``.

    See Also
    --------
    kappa_test_from_confusion : The same from a K×K table of counts.
    compare_kappa_test : Are two models' kappas on the same items different?

    Notes
    -----
    The standard error is the general large-sample formula of Fleiss, Cohen and
    Everitt (1969) for any weight matrix (eq. 2 of ``docs/inference.md``), computed
    as the variance of the influence function of each item (eq. 3), which is
    non-negative by construction. The null standard error (eq. 4) evaluates the same
    variance at independence with the observed margins; it is right for the test and
    wrong for an interval, which must be centred on the alternative. Only the
    categories that occur are tabulated, so a wide integer scale costs nothing.

    References
    ----------
    .. [1] J. L. Fleiss, J. Cohen and B. S. Everitt, "Large sample standard errors of
       kappa and weighted kappa", Psychological Bulletin 72(5):323-327, 1969.
    .. [2] B. Efron, "Better bootstrap confidence intervals", JASA 82:171-185, 1987.

    Examples
    --------
    R irr's ``kappa2(anxiety[, 1:2], "squared")`` prints Kappa = 0.297, z = 1.34,
    p-value = 0.18:

    >>> import qwkit
    >>> rater1 = [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3]
    >>> rater2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]
    >>> res = qwkit.kappa_test(rater1, rater2)
    >>> round(res.statistic, 6), round(res.statistic / res.standard_error_null, 6)
    (0.296765, 1.340499)
    >>> round(res.pvalue, 6)
    0.180083
    >>> low, high = res.confidence_interval()
    >>> round(low, 6), round(high, 6)
    (-0.010962, 0.604492)
    """
    alternative = check_alternative(alternative)
    kind = _v.check_weights(weights)
    r = _v.prepare_ratings(y1, y2, labels)
    sw = _v.check_sample_weight(sample_weight, r.n_samples)
    unit = sw is None or (sw[0] > 0 and bool(np.all(sw == sw[0])))
    offset, k = _kappa._scale(r)
    if unit and k <= _kappa._TABLE_CLASSES:
        # One counting pass (numba) into the K×K table; equal weights change nothing.
        table = _kappa._table(r, None, offset, k)
        wmat = _weights_on(kind, np.arange(k), k, _scale_text(r))
        return _from_table(table, wmat, alternative, _kind_name(kind))
    positions, k = _positions([r], [("y1", "y2")])
    positions, sw = _drop_zero_weight(positions, sw)
    codes, used = _compress(positions, k)
    wmat = _weights_on(kind, used, k, _scale_text(r))
    ku = used.shape[0]
    cell_code = codes[0].astype(np.int64) * ku + codes[1]
    present, counts, counts_sq, item_cell = _cells(cell_code, ku * ku, sw)
    model = _Kappa(
        rows=(present // ku).astype(np.intp), cols=(present % ku).astype(np.intp), wmat=wmat
    )
    sample = _make_sample(counts, counts_sq, item_cell, sw, int(codes[0].shape[0]))
    return _test_result(model, sample, alternative, _kind_name(kind))


def _from_table(table: np.ndarray, wmat: np.ndarray, alternative: str, kind_name: str):
    """Test result from a K×K table of whole-number counts."""
    k = table.shape[0]
    flat = table.ravel()
    present = np.flatnonzero(flat)
    counts = flat[present].astype(np.float64)
    model = _Kappa(
        rows=(present // k).astype(np.intp), cols=(present % k).astype(np.intp), wmat=wmat
    )
    sample = _Sample(counts=counts, counts_sq=counts, n_items=int(counts.sum()))
    return _test_result(model, sample, alternative, kind_name)


def kappa_test_from_confusion(
    confusion, *, weights="quadratic", alternative="two-sided"
) -> KappaTestResult:
    """Weighted kappa with standard errors, test and intervals from a table of counts.

    Parameters
    ----------
    confusion : array-like of shape (K, K)
        Counts of items rated i by rater 1 (rows) and j by rater 2 (columns). Entries
        must be whole numbers: the standard errors depend on the number of items,
        which a table of summed weights does not carry.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights, indexed like ``confusion``; may be asymmetric.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis of the z-test of κ = 0.

    Returns
    -------
    KappaTestResult
        As :func:`kappa_test`; ``n_samples`` is the table total.

    Warns
    -----
    UndefinedKappaWarning
        When kappa is 0/0: every number is nan.

    Raises
    ------
    ValueError
        A non-square, negative, all-zero or non-integral table; a weight matrix of the
        wrong shape; an unknown ``alternative``.

    See Also
    --------
    kappa_test : The same from two rating vectors.

    Notes
    -----
    SAS PROC FREQ's "linear" (Cicchetti–Allison) agreement weights 1 − |i − j|/(K − 1)
    are our ``"linear"`` disagreement weights; its Fleiss–Cohen weights are our
    ``"quadratic"``. Kappa and both standard errors are unchanged by any positive
    rescaling of the weights and by the switch between agreement and disagreement
    weights (``docs/inference.md`` §2).

    Examples
    --------
    The SAS PROC FREQ printout reproduced in statsmodels' tests (unweighted kappa
    0.4842, ASE 0.1380, 95% limits 0.2137–0.7547, ASE under H0 0.1484, Z 3.2626):

    >>> import qwkit
    >>> table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    >>> res = qwkit.kappa_test_from_confusion(table, weights="identity")
    >>> round(res.statistic, 6), round(res.standard_error, 6)
    (0.484163, 0.138014)
    >>> round(res.standard_error_null, 6), round(res.statistic / res.standard_error_null, 6)
    (0.148398, 3.262591)
    >>> [round(x, 6) for x in res.confidence_interval(0.95)]
    [0.213661, 0.754665]
    >>> print(res.summary())  # doctest: +ELLIPSIS
    Simple Kappa Coefficient
    --------------------------------
    Kappa                         0.4842
    ASE                           0.1380
    95% Lower Conf Limit          0.2137
    95% Upper Conf Limit          0.7547
    ...
    """
    alternative = check_alternative(alternative)
    table = _v.check_confusion(confusion)
    k = table.shape[0]
    kind = _v.check_weights(weights)
    if table.dtype.kind == "f":
        frac = table != np.floor(table)
        if frac.any():
            i, j = (int(x) for x in np.argwhere(frac)[0])
            raise ValueError(
                "`confusion` must hold whole-number counts for inference (the standard "
                f"error depends on the number of items); got {table[i, j]} at [{i}, {j}]. "
                "For weighted items use `kappa_test(y1, y2, sample_weight=...)`."
            )
    with np.errstate(over="ignore"):  # an overflowing float sum is inf: also too many
        total = table.astype(np.float64).sum()
    if not total < 2.0**53:
        raise ValueError("`confusion` totals 2**53 or more items; counts are not exact.")
    if isinstance(kind, str):
        wmat = _kappa._named_weights(k, kind)
    elif kind.shape[0] != k:
        raise ValueError(
            f"`weights` has shape {kind.shape} but `confusion` has shape {table.shape}."
        )
    else:
        wmat = kind
    return _from_table(table, wmat, alternative, _kind_name(kind))
