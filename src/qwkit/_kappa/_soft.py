"""Soft kappa: quadratic weighted kappa of real-valued scores (the continuous form).

:func:`soft_kappa_score` and :class:`SoftKappaAccumulator` rest on one sufficient
statistic, :class:`SoftSums`: the six sums of eq. 2', kept exactly (every double is an
integer multiple of 2**−1074, so every sum of products of doubles is an exact integer at a
fixed binary exponent) and merged by integer addition.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from qwkit import _kernels
from qwkit._base._dyadic import weight_bits
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import item_weights, no_items_error
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._results import public_module
from qwkit._base._validation import as_1d, check_finite, check_same_length
from qwkit._base._warnings import renamed_attribute, warn_undefined

__all__ = ["SoftKappaAccumulator", "SoftSums", "soft_floats", "soft_kappa_score", "soft_sums"]


def soft_kappa_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    nan_policy: NanPolicy = "raise",
) -> float:
    """Quadratic weighted kappa of real-valued predictions (the continuous form).

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        True ratings (real or integer).
    y_score : array-like of shape (n_items,)
        Real-valued predictions, not rounded.
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative weight of each item.
    counts : array-like of shape (n_items,), default=None
        Whole numbers: how many identical items each row stands for. Exclusive with
        ``sample_weight``.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error; or (``"omit"``) its item is
        left out, with its item weight; or (``"propagate"``) the result is NaN
        (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    float
        κ(y, f) = 1 − Σw(y − f)² / (Σwy² + Σwf² − 2·Σwy·Σwf / Σw), which equals
        :func:`kappa_score` with quadratic weights whenever both are integers.

    Notes
    -----
    This is the alternate form of Vaughn & Justice (2015, §1.2). With n = Σw and the
    sums Sy = Σwy, Sf = Σwf, Syy = Σwy², Sff = Σwf², Syf = Σwyf,

        κ = 2·(n·Syf − Sy·Sf) / (n·(Syy + Sff) − 2·Sy·Sf)                      (eq. 2')

    (their eq. 2 is the centered special case). The six sums are computed *exactly*:
    every double is an integer multiple of 2**−1074, so each product of doubles is an
    exact integer at a fixed binary exponent, and so is each sum (``docs/dask.md``).
    Eq. 2' is then evaluated in integer arithmetic and rounded once: the result is the
    correctly rounded soft kappa of the given doubles, free of the cancellation that
    the uncentered float sums suffer for data far from zero (e.g. 10⁹ + small
    ratings), and independent of the order of the items (:class:`SoftKappaAccumulator`
    merges pieces to the same value).

    Examples
    --------
    >>> import qwkit
    >>> round(qwkit.soft_kappa_score([1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6]), 6)
    0.959206
    """
    names = ("y_true", "y_score", "sample_weight", "counts")
    inputs = paired((y_true, y_score, sample_weight, counts), names)
    rows = nan_rows(nan_policy, inputs, names, rated=2)
    if rows.propagate:
        return float("nan")
    y_true, y_score, sample_weight, counts = rows.values
    y, f = _soft_inputs(y_true, y_score)
    w = item_weights(sample_weight, counts, y.shape[0]).as_float()
    sums = SoftSums()
    sums.add(soft_sums(y, f, w))
    return _soft_kappa(sums)


def _soft_kappa(sums: SoftSums) -> float:
    kappa = sums.kappa()
    if kappa is None:
        return warn_undefined(np.nan, "`y_true` and `y_score` are one and the same constant")
    return kappa


class SoftKappaAccumulator:
    """Soft kappa over data that arrives in pieces, on one machine or many.

    Soft kappa (eq. 2') is a function of six sums — Σw, Σwy, Σwf, Σwy², Σwf², Σwyf —
    which qwkit keeps exactly (every double is an integer multiple of 2**−1074, so
    every sum of products of doubles is an exact integer at a fixed binary exponent).
    They merge by integer addition, so :meth:`score` after any sequence of
    :meth:`update` and :meth:`merge` calls equals :func:`soft_kappa_score` on all the
    data at once, to the last bit.

    Attributes
    ----------
    n_items : int
        Number of rows seen (zero-weight rows included).

    See Also
    --------
    soft_kappa_score : Soft kappa of data held in memory.

    Examples
    --------
    >>> import qwkit
    >>> acc = qwkit.SoftKappaAccumulator()
    >>> acc.update([1, 2], [1.2, 1.9])
    >>> other = qwkit.SoftKappaAccumulator()
    >>> other.update([3, 4], [3.4, 3.6])
    >>> round(acc.merge(other).score(), 6)
    0.959206
    """

    def __init__(self):
        self._sums = SoftSums()
        self._n = 0
        self._weighted = None  # the item weights of the rows seen, if any

    @property
    def n_items(self) -> int:
        return self._n

    #: Deprecated: the old name of ``n_items``.
    n_samples = renamed_attribute("n_samples", "n_items")

    def update(
        self,
        y_true: ArrayLike,
        y_score: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        counts: ArrayLike | None = None,
        nan_policy: NanPolicy = "raise",
    ) -> None:
        """Add a batch (``sample_weight`` or ``counts`` as in :func:`soft_kappa_score`).
        An empty batch adds nothing.
        ``nan_policy``: a missing rating is an error (``"raise"``) or its item is left out
        of the batch (``"omit"``), as in :func:`soft_kappa_score`.
        """
        names = ("y_true", "y_score", "sample_weight", "counts")
        inputs = paired((y_true, y_score, sample_weight, counts), names)
        rows = nan_rows(nan_policy, inputs, names, rated=2, allowed=RAISE_OR_OMIT)
        y_true, y_score, sample_weight, counts = rows.values
        if len(as_1d(y_true, "y_true")) == 0:
            check_same_length(as_1d(y_true, "y_true"), as_1d(y_score, "y_score"), _SOFT_NAMES)
            item_weights(sample_weight, counts, 0, allow_zero_total=True)
            return
        y, f = _soft_inputs(y_true, y_score)
        w = item_weights(sample_weight, counts, y.shape[0], allow_zero_total=True).as_float()
        self._sums.add(soft_sums(y, f, w))
        self._n += int(y.shape[0])
        if w is not None:
            self._weighted = "counts" if counts is not None else "sample_weight"

    def merge(self, other: SoftKappaAccumulator) -> SoftKappaAccumulator:
        """Add ``other``'s sums into this accumulator (in place) and return ``self``."""
        if not isinstance(other, SoftKappaAccumulator):
            raise QwkitTypeError(
                f"`other` must be a SoftKappaAccumulator; got {type(other).__name__}.",
                parameter="other",
            )
        self._sums.merge(other._sums)
        self._n += other._n
        self._weighted = self._weighted or other._weighted
        return self

    def score(self) -> float:
        """Soft kappa of everything seen so far."""
        if self._sums.sums[0] == 0:
            raise no_items_error(self._weighted)
        return _soft_kappa(self._sums)

    def __repr__(self) -> str:
        return f"SoftKappaAccumulator(n_items={self._n})"


public_module(SoftKappaAccumulator)


_SOFT_NAMES = ("y_true", "y_score")


def _soft_inputs(y_true, y_score) -> tuple[np.ndarray, np.ndarray]:
    """Validated float64 vectors. Integers are shifted by their common minimum before
    conversion (so 2**55 + small integers stay exact; soft kappa does not change when
    both vectors move together)."""
    y = as_1d(y_true, "y_true")
    f = as_1d(y_score, "y_score")
    for arr, name in ((y, "y_true"), (f, "y_score")):
        if arr.dtype.kind == "U":
            raise QwkitTypeError(f"`{name}` must be numeric; got strings.", parameter=name)
    check_same_length(y, f, ("y_true", "y_score"))
    if y.shape[0] == 0:
        raise QwkitError(
            "`y_true` and `y_score` are empty; kappa needs at least one item.",
            parameter="y_true",
            also=("y_score",),
        )
    if not (y.dtype.kind in "biu" and f.dtype.kind in "biu"):
        check_finite(y, "y_true")
        check_finite(f, "y_score")
    return soft_floats(y, f)


def soft_floats(y: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float64 vectors soft kappa sums, of validated numeric vectors: two integer
    vectors are shifted by their common minimum before conversion (so 2**55 + small
    integers stay exact; soft kappa does not change when both vectors move together),
    anything else is converted as it is."""
    if y.dtype.kind in "biu" and f.dtype.kind in "biu":
        lo = np.int64(min(int(y.min()), int(f.min())))
        return tuple((x.astype(np.int64) - lo).view(np.uint64).astype(np.float64) for x in (y, f))
    return y.astype(np.float64), f.astype(np.float64)


class SoftSums:
    """The six sums of soft kappa, exact: Σw, Σwy, Σwf, Σwy², Σwf², Σwyf.

    Kept as Python integers at fixed binary exponents (−1074, −2148, −3222 for sums of
    one, two and three factors): every finite double is an integer multiple of
    2**−1074, so every sum is an exact integer there, and merging is integer addition.
    """

    __slots__ = ("sums",)

    _EXPONENTS = (1, 2, 2, 3, 3, 3)  # factors per sum (times −1074)

    def __init__(self):
        self.sums = [0, 0, 0, 0, 0, 0]

    def add(self, sums: list[int]) -> None:
        self.sums = [x + y for x, y in zip(self.sums, sums, strict=True)]

    def merge(self, other: SoftSums) -> SoftSums:
        self.add(other.sums)
        return self

    def kappa(self):
        """Soft kappa (eq. 2'), exact up to one correctly rounded division; None when
        it is undefined (0/0: both vectors one and the same constant)."""
        s1, sy, sf, syy, sff, syf = self.sums
        # In units of 2**(−4·1074·…): every product below has three factors' exponent.
        num = 2 * (s1 * syf - sy * sf)
        den = s1 * (syy + sff) - 2 * sy * sf  # (eq. 2')
        if den == 0:
            return None
        return num / den


def soft_sums(y: np.ndarray, f: np.ndarray, w: np.ndarray | None) -> list[int]:
    """The exact sums of :class:`SoftSums` of float64 vectors (weights ≥ 0 or None)."""
    yb, fb = weight_bits(y), weight_bits(f)
    if w is None:
        rows = _kernels.soft_sums(yb, fb)
        ints = [_signed(rows[r]) for r in range(5)]
        n = y.shape[0]
        # Unit weights: Σw = n, and every other sum gains one factor 2**1074 of w = 1.
        return [n << 1074, ints[0] << 1074, ints[1] << 1074] + [x << 1074 for x in ints[2:]]
    rows = _kernels.soft_sums_weighted(yb, fb, weight_bits(w))
    return [_signed(rows[r]) for r in range(6)]


def _signed(limbs: np.ndarray) -> int:
    """The integer Σⱼ limbs[j]·2^(32j) of a normalized row (every limb in [0, 2**32)
    but the top one, which is signed): the lower limbs read as one little-endian
    unsigned integer, the top one added at its place."""
    low = int.from_bytes(limbs[:-1].astype("<u4").tobytes(), "little")
    return low + (int(limbs[-1]) << (32 * (limbs.shape[0] - 1)))
