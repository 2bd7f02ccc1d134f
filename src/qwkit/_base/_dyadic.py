"""Exact sums of floating-point weights, independent of the order of the items.

Float64 addition is not associative: the same weights summed in another order — by
another chunking, another partitioning of a data set over a cluster, or four
interleaved sub-tables instead of one — may differ in the last bits. qwkit therefore
keeps every sum of weights *exactly*, as a dyadic number (an integer times a power of
two) held in rows of 32-bit limbs, adds such sums with integer arithmetic, and rounds
each one once, correctly, at the end. A sum is then a function of the multiset of its
terms only: in memory, streamed or merged across a cluster in any order, the rounded
result is the same double.

The sums are made in one pass over the weights by the windowed kernels
(``_kernels._survey``): every weight within a window of 2**32 (or 2**44) of exponents,
placed on a sample of the weights, is a fixed-point integer added in integer lanes;
the few weights outside it (the *exceptions*, which the pass lists) are summed by the
general kernels (``_kernels._exact``), which cover the whole range of doubles.

:class:`ExactRows` is a block of such sums (one per cell of a table, per pair of a
threshold search, ...); every operation keeps it exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qwkit import _kernels

__all__ = [
    "ExactRows",
    "exact_cell_sums",
    "exception_buffer",
    "weight_bits",
    "weight_window",
]

_M32 = (1 << 32) - 1
#: The exponent of one unit of a mantissa at bit position 0: a double is m·2^(p − 1074).
UNIT_EXPONENT = -1074


#: A windowed pass lists at most one item in EXCEPTION_SHARE as an exception; beyond
#: that, the general kernels sum every weight instead.
EXCEPTION_SHARE = 4


def weight_bits(values: np.ndarray) -> np.ndarray:
    """The float64 weights as int64 bit patterns (a view: no copy for float64 input)."""
    return np.ascontiguousarray(values, dtype=np.float64).view(np.int64)


def weight_window(bits: np.ndarray, width: int) -> int:
    """The start L of the exponent window [L, L + width) of a windowed pass, centred on
    a sample of the weights (``_kernels.window_start``)."""
    step = max(1, bits.shape[0] // _kernels.WINDOW_SAMPLE)
    return int(_kernels.window_start(bits, step, width))


def exception_buffer(n_items: int, parts: int = 1) -> np.ndarray:
    """(parts, capacity) int64: room for the exceptions of a windowed pass over
    ``n_items`` items in ``parts`` parts, one in EXCEPTION_SHARE of each part's items
    (the pages that no exception touches are never allocated)."""
    capacity = n_items // parts // EXCEPTION_SHARE + 64
    return np.empty((parts, capacity), dtype=np.int64)


@dataclass(frozen=True, slots=True)
class ExactRows:
    """Exact sums: row r is Σⱼ limbs[r, j]·2^(32·j + exponent), an exact dyadic number.

    ``limbs`` is normalized: every limb in [0, 2**32) except the last, which is below
    2**31 (room to add). Rows never hold negative sums here (sums of weights).
    """

    limbs: np.ndarray  # (n_rows, n_limbs) int64
    exponent: int  # binary exponent of bit 0 of limb 0

    @property
    def n_rows(self) -> int:
        return int(self.limbs.shape[0])

    @staticmethod
    def zeros(n_rows: int) -> ExactRows:
        return ExactRows(np.zeros((n_rows, 1), dtype=np.int64), 0)

    @staticmethod
    def of(limbs: np.ndarray, exponent: int) -> ExactRows:
        """Rows from a kernel's normalized limbs (a spare limb is added if the top one is
        not below 2**31)."""
        return ExactRows(_room(limbs), int(exponent))

    @staticmethod
    def from_integers(values: np.ndarray) -> ExactRows:
        """Rows holding non-negative int64 values exactly (e.g. counts)."""
        v = np.asarray(values, dtype=np.int64)
        limbs = np.zeros((v.shape[0], 3), dtype=np.int64)
        limbs[:, 0] = v & _M32
        limbs[:, 1] = v >> 32
        return ExactRows(limbs, 0)

    def is_zero(self) -> np.ndarray:
        return ~np.any(self.limbs != 0, axis=1)

    def shifted(self, exponent: int) -> ExactRows:
        """The same numbers times 2**``exponent`` (exact)."""
        return ExactRows(self.limbs, self.exponent + exponent)

    def aligned(self, exponent: int, n_limbs: int) -> np.ndarray:
        """The limbs of these rows written above a lower ``exponent`` (same numbers)."""
        d = self.exponent - exponent
        if d < 0:
            raise ValueError("can only align to a lower exponent")
        whole, bits = divmod(d, 32)
        n, width = self.limbs.shape
        out = np.zeros((n, max(n_limbs, width + whole + 1)), dtype=np.int64)
        if bits == 0:
            out[:, whole : whole + width] = self.limbs
        else:
            out[:, whole : whole + width] += (self.limbs << bits) & _M32
            out[:, whole + 1 : whole + width + 1] += self.limbs >> (32 - bits)
        return out

    def __add__(self, other: ExactRows) -> ExactRows:
        """Row-wise sum (exact)."""
        if self.n_rows != other.n_rows:
            raise ValueError("row counts differ")
        exponent = min(self.exponent, other.exponent)
        top = max(
            self.limbs.shape[1] * 32 + self.exponent, other.limbs.shape[1] * 32 + other.exponent
        )
        n_limbs = (top - exponent + 31) // 32 + 1
        total = self.aligned(exponent, n_limbs)
        b = other.aligned(exponent, n_limbs)
        width = max(total.shape[1], b.shape[1])
        total = _pad(total, width) + _pad(b, width)
        return ExactRows(_normalized(total), exponent)

    def added_at(self, rows: np.ndarray, other: ExactRows) -> ExactRows:
        """These rows with the rows of ``other`` added to rows ``rows`` (distinct): exact,
        and in proportion to the rows of ``other`` — the others are copied at most once."""
        exponent = min(self.exponent, other.exponent)
        exponent = self.exponent - 32 * -(-(self.exponent - exponent) // 32)  # whole limbs
        below = (self.exponent - exponent) // 32  # zero limbs to put under these rows
        more = other.aligned(exponent, 1)
        width = max(below + self.limbs.shape[1], more.shape[1]) + 1  # room for a carry
        limbs = np.zeros((self.n_rows, width), dtype=np.int64)
        limbs[:, below : below + self.limbs.shape[1]] = self.limbs
        touched = np.ascontiguousarray(limbs[rows] + _pad(more, width))
        _kernels.normalize_rows(touched)  # the spare top limb takes the carries
        limbs[rows] = touched
        return ExactRows(_room(limbs), exponent)

    def take(self, index: np.ndarray) -> ExactRows:
        return ExactRows(self.limbs[index], self.exponent)

    def reduce(self, index: np.ndarray, n_out: int) -> ExactRows:
        """Rows summed by ``index`` (row r goes to output index[r]); exact."""
        index = np.ascontiguousarray(index, dtype=np.int64)
        out = _kernels.reduce_rows(np.ascontiguousarray(self.limbs), index, n_out)
        return ExactRows(_room(out), self.exponent)

    def total(self) -> ExactRows:
        return self.reduce(np.zeros(self.n_rows, dtype=np.intp), 1)

    def to_float(self, exponent: int = 0) -> np.ndarray:
        """Every row times 2**``exponent``, correctly rounded to float64 (inf on
        overflow)."""
        out, tiny = _kernels.round_rows(self.limbs, self.exponent + exponent)
        for r in np.flatnonzero(tiny):
            out[r] = _round_int(self.row_integer(int(r)), self.exponent + exponent)
        return out

    def finite_float(self) -> np.ndarray:
        """:meth:`to_float`, scaled by a power of two (the same for every row, a function
        of the sums alone) when a row would overflow float64."""
        out = self.to_float()
        if np.all(np.isfinite(out)):
            return out
        return self.to_float(-self.magnitude())

    def magnitude(self) -> int:
        """The least e with every row < 2**e: exponent plus the bit length of the
        largest row (a property of the numbers, not of how their limbs are laid out)."""
        nonzero = self.limbs != 0
        if not nonzero.any():
            return self.exponent
        width = self.limbs.shape[1]
        top = width - 1 - np.argmax(nonzero[:, ::-1], axis=1)
        top_limb = self.limbs[np.arange(self.n_rows), top].astype(np.float64)
        bits = 32 * top + np.frexp(top_limb)[1]
        return self.exponent + int(bits[nonzero.any(axis=1)].max())

    def row_integer(self, r: int) -> int:
        """The integer I with row r = I·2**exponent."""
        return sum(int(x) << (32 * j) for j, x in enumerate(self.limbs[r].tolist()))

    def top_exponent(self) -> int:
        """An exponent e with every row < 2**e."""
        nonzero = np.flatnonzero(np.any(self.limbs != 0, axis=0))
        if nonzero.size == 0:
            return self.exponent
        return self.exponent + 32 * (int(nonzero[-1]) + 1)


def _pad(x: np.ndarray, width: int) -> np.ndarray:
    if x.shape[1] == width:
        return x
    out = np.zeros((x.shape[0], width), dtype=np.int64)
    out[:, : x.shape[1]] = x
    return out


def _normalized(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    _kernels.normalize_rows(x)
    return _room(x)


def _room(x: np.ndarray) -> np.ndarray:
    """Append zero limbs until the top limb is below 2**31."""
    while x.shape[0] and x.shape[1] and int(x[:, -1].max()) >= 1 << 31:
        x = _pad(x, x.shape[1] + 1)
        _kernels.normalize_rows(x)
    return x


def _round_int(value: int, exponent: int) -> float:
    """value·2**exponent correctly rounded (Python's integer division rounds correctly,
    subnormal results included)."""
    if exponent >= 0:
        try:
            return float(value << exponent)
        except OverflowError:
            return float("inf")
    return value / (1 << -exponent)


def exact_cell_sums(index: np.ndarray, item_weight: np.ndarray, n_cells: int, *, squares: bool):
    """Exact Σw, Σw² (ExactRows) and the count of positive weights of every cell
    (``index``: each item's cell, in range)."""
    index = np.ascontiguousarray(index, dtype=np.int64)
    bits = weight_bits(item_weight)
    start = weight_window(bits, _kernels.TABLE_WINDOW)
    exc = exception_buffer(bits.shape[0])[0]
    rows, sq, positive, n_exc = _kernels.survey_bincount(index, bits, n_cells, start, squares, exc)
    if n_exc > exc.shape[0]:  # too many weights outside the window: sum all of them
        return _general_cell_sums(index, bits, n_cells, squares)
    unit = start + UNIT_EXPONENT - 1  # v counts units of 2^(L − 1075)
    sums = ExactRows.of(rows, unit)
    sq_rows = ExactRows.of(sq, 2 * unit) if squares else None
    if n_exc:  # the few weights outside the window, in the few cells they fall in
        idx = exc[:n_exc]
        cells, local = np.unique(index[idx], return_inverse=True)
        more, more_sq, more_positive = _general_cell_sums(local, bits[idx], cells.size, squares)
        sums = sums.added_at(cells, more)
        sq_rows = sq_rows.added_at(cells, more_sq) if squares else None
        positive[cells] += more_positive
    return sums, sq_rows, positive


def _general_cell_sums(index: np.ndarray, bits: np.ndarray, n_cells: int, squares: bool):
    """:func:`exact_cell_sums` by the general kernel (any doubles, a pass to size its
    rows first)."""
    index = np.ascontiguousarray(index, dtype=np.int64)
    base, n_limbs = _kernels.window(bits)
    rows, sq, positive = _kernels.bincount_exact(index, bits, n_cells, base, n_limbs, squares)
    sums = ExactRows.of(rows, base + UNIT_EXPONENT)
    sq_rows = ExactRows.of(sq, 2 * (base + UNIT_EXPONENT)) if squares else None
    return sums, sq_rows, positive
