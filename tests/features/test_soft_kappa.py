"""soft_kappa_score: the continuous form, its oracle and its numerics."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from helpers import (
    close,
)
from oracles.naive import (
    naive_soft_kappa,
)
from qwkit import (
    UndefinedKappaWarning,
    kappa_score,
    soft_kappa_score,
)

SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


class TestSoftKappaScore:
    def test_huge_values_do_not_overflow(self):
        y, f = np.array([1.0, 2.0, 3.0]), np.array([1.1, 2.0, 2.9])
        assert close(soft_kappa_score(y * 1e160, f * 1e160), soft_kappa_score(y, f))

    def test_docstring_value(self):
        y, f = [1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6]
        got = soft_kappa_score(y, f)
        assert close(got, float(naive_soft_kappa(y, f)), rtol=1e-14)
        assert type(got) is float

    @settings(max_examples=150)
    @given(
        n=st.integers(2, 30),
        data=st.data(),
        weighted=st.booleans(),
    )
    def test_matches_naive(self, n, data, weighted):
        reals = st.floats(-100, 100, allow_subnormal=False)
        y = data.draw(st.lists(reals, min_size=n, max_size=n))
        f = data.draw(st.lists(reals, min_size=n, max_size=n))
        sw = data.draw(st.lists(st.floats(0.01, 5), min_size=n, max_size=n)) if weighted else None
        expected = naive_soft_kappa(y, f, sw)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                assert math.isnan(soft_kappa_score(y, f, sample_weight=sw))
            return
        # Near-degenerate denominators amplify rounding legitimately; keep well-posed data.
        assume(abs(float(expected)) < 1e6)
        got = soft_kappa_score(y, f, sample_weight=sw)
        assert close(got, float(expected), rtol=1e-9, atol=1e-9), (got, float(expected))

    @settings(max_examples=100)
    @given(
        n=st.integers(2, 25),
        data=st.data(),
        seed=st.integers(0, 2**32 - 1),
    )
    def test_invariances(self, n, data, seed):
        reals = st.floats(-50, 50, allow_subnormal=False)
        y = np.array(data.draw(st.lists(reals, min_size=n, max_size=n)))
        f = np.array(data.draw(st.lists(reals, min_size=n, max_size=n)))
        reps = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
        assume(reps.sum() > 0)
        ry, rf = np.repeat(y, reps), np.repeat(f, reps)
        expected = naive_soft_kappa(ry, rf)
        assume(expected is not None and abs(float(expected)) < 1e6)
        expected = float(expected)
        # Integer weights = repeated rows; zero weights = dropped rows.
        assert close(soft_kappa_score(y, f, sample_weight=reps), expected, rtol=1e-8, atol=1e-9)
        assert close(soft_kappa_score(ry, rf), expected, rtol=1e-8, atol=1e-9)
        # Unit weights = none; order invariance; symmetry.
        assert close(
            soft_kappa_score(ry, rf, sample_weight=np.ones(ry.size)), expected, rtol=1e-8, atol=1e-9
        )
        perm = np.random.default_rng(seed).permutation(ry.size)
        assert close(soft_kappa_score(ry[perm], rf[perm]), expected, rtol=1e-8, atol=1e-9)
        assert close(soft_kappa_score(rf, ry), expected, rtol=1e-8, atol=1e-9)

    @pytest.mark.parametrize("offset", [1e6, 1e9, -1e9, 1e12])
    def test_large_offset_accuracy(self, offset):
        rng = np.random.default_rng(SEED)
        base = rng.integers(0, 5, 500).astype(float)
        y = offset + base
        f = offset + base + rng.normal(0, 0.7, 500)
        expected = float(naive_soft_kappa(y, f))
        got = soft_kappa_score(y, f)
        assert close(got, expected, rtol=1e-10, atol=1e-12), (got, expected)
        sw = rng.uniform(0.1, 3.0, 500)
        expected_w = float(naive_soft_kappa(y, f, sw))
        assert close(soft_kappa_score(y, f, sample_weight=sw), expected_w, rtol=1e-10)

    def test_shift_invariance(self):
        rng = np.random.default_rng(SEED)
        y = rng.normal(0, 1, 200)
        f = y + rng.normal(0, 0.5, 200)
        assert close(soft_kappa_score(y + 1e9, f + 1e9), soft_kappa_score(y, f), rtol=1e-6)

    def test_integers_equal_kappa_score(self):
        rng = np.random.default_rng(SEED)
        y = rng.integers(1, 6, 300)
        f = np.clip(y + rng.integers(-1, 2, 300), 1, 5)
        assert close(soft_kappa_score(y, f), kappa_score(y, f), rtol=1e-12)

    def test_input_containers(self):

        y = [1.0, 2.0, 3.0, 4.0, 2.0]
        f = [1.5, 2.5, 2.5, 3.5, 2.0]
        expected = float(naive_soft_kappa(y, f))
        for conv in (
            list,
            tuple,
            np.array,
            pd.Series,
            pl.Series,
            lambda v: np.asarray(v, np.float32),
            lambda v: np.repeat(v, 2)[::2],
        ):
            assert close(soft_kappa_score(conv(y), conv(f)), expected, rtol=1e-7)

    def test_undefined(self):
        with pytest.warns(UndefinedKappaWarning) as record:
            assert math.isnan(soft_kappa_score([2.5, 2.5], [2.5, 2.5]))
        assert record[0].filename == __file__

    def test_undefined_weighted_constant(self):
        # Both raters constant and equal is 0/0 whatever the weights; rounding noise in a
        # weighted mean must not turn it into a number (found by Hypothesis).
        y = [0.01] * 13
        sw = [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.01, 1.0, 1.0, 0.5, 0.01171875, 0.01171875]
        assert naive_soft_kappa(y, y, sw) is None
        with pytest.warns(UndefinedKappaWarning):
            assert math.isnan(soft_kappa_score(y, y, sample_weight=sw))

    def test_perfect(self):
        y = [0.1, 0.7, 3.3]
        assert soft_kappa_score(y, y) == pytest.approx(1.0, rel=1e-15)

    def test_soft_kappa_large_integers_are_exact(self):
        b = 2**55
        y, f = [b, b + 4, b + 8, b + 4], [b, b + 8, b + 4, b + 12]
        assert soft_kappa_score(y, f) == kappa_score(y, f)
        y, f = [10**17 + i for i in range(4)], [10**17 + i for i in (1, 2, 3, 3)]
        assert soft_kappa_score(y, f) == kappa_score(y, f)

    def test_soft_kappa_near_float_max(self):
        y, f = np.array([1.0, 2, 3, 15]), np.array([1.0, 3, 2, 15])
        assert soft_kappa_score(y * 1e307, f * 1e307) == pytest.approx(soft_kappa_score(y, f))
