"""The windowed passes over survey weights against exact rational arithmetic.

Every weight inside the window is summed as a fixed-point integer; every other one is
listed (an *exception*) and summed by the general kernels. The oracle is
``fractions.Fraction`` (every double is a rational) and ``math.fsum`` (correctly
rounded), on adversarial weights: huge and tiny magnitudes mixed, subnormals, values
near 2**1024, one weight dominating, ±0.0 — with the window placed anywhere, so that
any weight may be an exception; and one thread against several, bit for bit.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qwkit import _kernels
from qwkit._base._dyadic import ExactRows, exact_cell_sums, exception_buffer, weight_bits
from qwkit._table._sufficient import exact_confusion

SEED = 20261121
#: Binary exponent of one unit of a windowed sum: 2^(L − 1075).
UNIT = -1075

#: Doubles from every part of the range: subnormal, tiny, ordinary, huge.
adversarial = st.one_of(
    st.floats(min_value=0.0, max_value=1.7e308, allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.0, 1.7976931348623157e308, 2.0**1023]
    ),
    st.builds(
        math.ldexp,
        st.floats(min_value=0.5, max_value=1.0, exclude_max=True),
        st.integers(-60, 60),
    ),
)
weight_lists = st.lists(adversarial, min_size=1, max_size=60)
#: The start of a window: anywhere, so that any weight may fall outside.
starts = st.integers(1, 0x7FF - _kernels.MOMENT_WINDOW)


def _fractions(values) -> list[Fraction]:
    return [Fraction(float(v)) for v in values]


def _outside(w: np.ndarray, start: int, width: int) -> list[int]:
    """Indices of the nonzero weights whose exponent field lies outside the window."""
    fields = (weight_bits(w) >> 52) & 0x7FF
    return [
        i
        for i, (x, e) in enumerate(zip(w, fields, strict=True))
        if x != 0 and not start <= e < start + width
    ]


def _rounded(x: Fraction) -> float:
    """x correctly rounded to a double (Python's int/int division rounds correctly)."""
    try:
        return x.numerator / x.denominator
    except OverflowError:
        return math.inf


class TestMoments:
    @settings(max_examples=300, deadline=None)
    @given(w=weight_lists, start=starts, data=st.data())
    def test_window_and_exceptions_sum_exactly(self, w, start, data):
        n = len(w)
        a = np.array(data.draw(st.lists(st.integers(0, 31), min_size=n, max_size=n)))
        b = np.array(data.draw(st.lists(st.integers(0, 31), min_size=n, max_size=n)))
        w = np.array(w)
        exc = exception_buffer(n)[0]
        acc, or_v, n_exc = _kernels.survey_moments(a, b, weight_bits(w), start, exc)
        assert or_v == int(np.bitwise_or.reduce(np.concatenate([a, b])))
        assert sorted(exc[:n_exc].tolist()) == _outside(w, start, _kernels.MOMENT_WINDOW)
        words = [int(x) for x in acc]
        digit = [words[2 * j] | words[2 * j + 1] << 64 for j in range(15)]
        window = [
            digit[3 * c] + (digit[3 * c + 1] << 32) + (digit[3 * c + 2] << 64) for c in range(5)
        ]
        unit = Fraction(2) ** (start + UNIT)
        got = [x * unit for x in window]
        inside = [i for i in range(n) if i not in set(exc[:n_exc].tolist())]
        fw = _fractions(w)
        x, y = a.tolist(), b.tolist()
        coef = [(1, p, q, p * p + q * q, p * q) for p, q in zip(x, y, strict=True)]
        expected = [sum((fw[i] * coef[i][c] for i in inside), Fraction(0)) for c in range(5)]
        assert got == expected

    @pytest.mark.parametrize("parts", [1, 2, 3, 7])
    def test_threads_give_the_same_sums(self, parts):
        rng = np.random.default_rng(SEED + parts)
        n = 3 * _kernels.CHUNK + 17
        a, b = rng.integers(0, 32, n), rng.integers(0, 32, n)
        w = rng.lognormal(0.0, 4.0, n)  # wide: outside a 2**44 window now and then
        w[::11] = 0.0
        w[5] = 1e300
        bits = weight_bits(w)
        start = 1023 - 20
        serial = exception_buffer(n)[0]
        acc, or_v, n_exc = _kernels.survey_moments(a, b, bits, start, serial)
        exc = exception_buffer(n, parts)
        acc_p, or_p, counts = _kernels.survey_moments_par(a, b, bits, start, exc)
        np.testing.assert_array_equal(acc_p, acc)
        assert or_p == or_v
        listed = np.concatenate([exc[t, : counts[t]] for t in range(parts)])
        assert n_exc > 0
        np.testing.assert_array_equal(np.sort(listed), np.sort(serial[:n_exc]))

    def test_many_items_past_the_flush(self):
        # 2**20 items fill a uint64 lane; the pass moves its lanes to 128-bit sums
        rng = np.random.default_rng(SEED)
        n = (1 << 20) + 777
        a, b = rng.integers(0, 32, n), rng.integers(0, 32, n)
        w = np.ldexp(rng.integers(2**52, 2**53, n, dtype=np.int64).astype(np.float64), -20)
        w[-1] = 2.0**43  # exponent fields 1075 - 20 + 32 .. : all in [1055, 1099)
        start = 1055
        exc = exception_buffer(n)[0]
        acc, _, n_exc = _kernels.survey_moments(a, b, weight_bits(w), start, exc)
        assert n_exc == 0
        words = [int(x) for x in acc]
        digit = [words[2 * j] | words[2 * j + 1] << 64 for j in range(15)]
        got = [digit[3 * c] + (digit[3 * c + 1] << 32) + (digit[3 * c + 2] << 64) for c in range(5)]
        units = np.array([int(v) for v in np.ldexp(w, 1075 - start).tolist()], dtype=object)
        x, y = a.astype(object), b.astype(object)
        assert got == [
            int(units.sum()),
            int((units * x).sum()),
            int((units * y).sum()),
            int((units * (x * x + y * y)).sum()),
            int((units * x * y).sum()),
        ]

    def test_window_start(self):
        def start(w, width=_kernels.MOMENT_WINDOW):
            bits = np.asarray(w, dtype=np.float64).view(np.int64)
            return _kernels.window_start(bits, 1, width)

        assert start([0.5, 2.0]) == 1023 - 22  # fields 1022..1024, centred in 44
        assert start([0.0, -0.0]) == 1023 - 22  # no positive normal weight: 1.0's window
        assert start([5e-324, 1e-310]) == 1023 - 22
        assert start([1e-320, 2.0**-1020]) == 1  # the window never starts below field 1
        assert start([1.7e308]) == 0x7FF - 44  # inf and NaN always fall outside
        assert start([1.0, 2.0**10], 32) == 1023 + 5 - 16


class TestTablesAndBins:
    @settings(max_examples=200, deadline=None)
    @given(w=weight_lists, data=st.data())
    def test_bins_are_exact(self, w, data):
        n = len(w)
        index = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
        sums, squares, positive = exact_cell_sums(index, np.array(w), 4, squares=True)
        _check_cells(w, index, 4, sums, squares, positive)

    @settings(max_examples=200, deadline=None)
    @given(w=weight_lists, data=st.data())
    def test_tables_are_exact(self, w, data):
        n = len(w)
        a = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
        b = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
        table, bad_a, bad_b, mask = exact_confusion(a, b, np.array(w), 0, 3)
        assert (bad_a, bad_b) == (-1, -1)
        assert mask == sum(1 << int(v) for v in np.unique(np.concatenate([a, b])))
        _check_cells(w, a * 3 + b, 9, table, None, None)

    @pytest.mark.parametrize("start", [1, 1000, 1023 - 16, 2000])
    def test_window_anywhere(self, start, monkeypatch):
        # wherever the window lands, the exceptions make up the rest exactly
        rng = np.random.default_rng(start)
        n = 3000
        w = np.ldexp(rng.random(n), rng.integers(-1074, 1000, n))
        w[::9] = rng.random(w[::9].shape[0])
        index = rng.integers(0, 5, n)
        monkeypatch.setattr(_kernels, "window_start", lambda bits, step, width: start)
        sums, squares, positive = exact_cell_sums(index, w, 5, squares=True)
        _check_cells(w.tolist(), index, 5, sums, squares, positive)
        table = exact_confusion(index // 3, index % 3, w, 0, 3)[0]
        _check_cells(w.tolist(), (index // 3) * 3 + index % 3, 9, table, None, None)

    def test_too_many_exceptions_sum_everything(self, monkeypatch):
        rng = np.random.default_rng(SEED)
        w = np.ldexp(rng.random(400), rng.integers(-1000, 1000, 400))
        index = rng.integers(0, 3, 400)
        monkeypatch.setattr(_kernels, "window_start", lambda bits, step, width: 1)
        sums, squares, positive = exact_cell_sums(index, w, 3, squares=True)
        _check_cells(w.tolist(), index, 3, sums, squares, positive)

    def test_off_the_scale(self):
        a, b = np.array([0, 1, 2, 7, 1]), np.array([0, 1, 5, 1, 1])
        _, bad_a, bad_b, _ = exact_confusion(a, b, np.ones(5), 0, 3)
        assert (bad_a, bad_b) == (-1, 2)


def _check_cells(w, index, n_cells, sums: ExactRows, squares, positive):
    got = sums.to_float()
    got_sq = None if squares is None else squares.to_float()
    for c in range(n_cells):
        mine = [float(x) for x, i in zip(w, index, strict=True) if i == c]
        exact = sum(_fractions(mine), Fraction(0))
        assert sums.row_integer(c) * Fraction(2) ** sums.exponent == exact
        assert got[c] == _rounded(exact)
        if not math.isinf(got[c]):
            assert got[c] == math.fsum(mine)
        if squares is not None:
            assert got_sq[c] == _rounded(sum((x * x for x in _fractions(mine)), Fraction(0)))
            assert positive[c] == sum(1 for x in mine if x > 0)


def test_threads_are_used_by_quadratic_kappa(monkeypatch):
    """The threaded pass of kappa_score gives the value of the serial pass."""
    import qwkit
    from qwkit._kernels import _jit

    rng = np.random.default_rng(SEED)
    n = 2 * _kernels.CHUNK + 5
    a, b = rng.integers(0, 6, n), rng.integers(0, 6, n)
    w = 1.0 / rng.beta(0.5, 3.0, n)  # a heavy tail: many weights outside the window
    serial = qwkit.kappa_score(a, b, sample_weight=w)
    monkeypatch.setattr(_jit, "THREAD_MIN_ITEMS", 0)
    before = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        assert qwkit.kappa_score(a, b, sample_weight=w) == serial
    finally:
        numba.set_num_threads(before)
    assert serial == qwkit.kappa_score(a, b, sample_weight=w, labels=range(6))
