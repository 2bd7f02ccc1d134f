"""weight_matrix: the named kinds and custom matrices."""

from __future__ import annotations

import numpy as np
import pytest

from oracles.naive import (
    naive_weights,
)
from qwkit import (
    weight_matrix,
)

SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


class TestWeightMatrix:
    @pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
    @pytest.mark.parametrize("weights", NAMED)
    def test_matches_naive(self, k, weights):
        got = weight_matrix(k, weights)
        expected = np.array([[float(x) for x in row] for row in naive_weights(k, weights)])
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
        assert got.shape == (k, k)
        assert got.dtype == np.float64

    def test_default_is_quadratic(self):
        np.testing.assert_array_equal(weight_matrix(4), weight_matrix(4, "quadratic"))

    def test_kaggle_page_weights(self):
        # Kaggle reference page, Step 2 "weights matrix": w[i][j] = (i − j)²/16 for N = 5.
        expected = np.array(
            [
                [0.0, 0.0625, 0.25, 0.5625, 1.0],
                [0.0625, 0.0, 0.0625, 0.25, 0.5625],
                [0.25, 0.0625, 0.0, 0.0625, 0.25],
                [0.5625, 0.25, 0.0625, 0.0, 0.0625],
                [1.0, 0.5625, 0.25, 0.0625, 0.0],
            ]
        )
        np.testing.assert_array_equal(weight_matrix(5), expected)

    def test_steele_weights(self):
        # Steele, §3.2, the four-category weight matrix printed to two decimals.
        printed = [
            [0, 0.11, 0.44, 1],
            [0.11, 0, 0.11, 0.44],
            [0.44, 0.11, 0, 0.11],
            [1, 0.44, 0.11, 0],
        ]
        np.testing.assert_allclose(weight_matrix(4, "quadratic"), printed, atol=0.005)

    def test_custom_matrix_is_validated_copy(self):
        w = np.arange(9, dtype=np.int64).reshape(3, 3)
        got = weight_matrix(3, w)
        np.testing.assert_array_equal(got, w)
        assert got.dtype == np.float64
        got[0, 0] = 99.0
        assert w[0, 0] == 0
        wf = np.ones((3, 3))
        out = weight_matrix(3, wf)
        out[1, 1] = 5.0
        assert wf[1, 1] == 1.0

    def test_numpy_integer_n_classes(self):
        np.testing.assert_array_equal(weight_matrix(np.int64(3)), weight_matrix(3))

    def test_weight_matrix_refuses_huge_n_classes(self):
        with pytest.raises(ValueError, match="`n_classes` must be at most"):
            weight_matrix(10**6)
