"""confusion_matrix: the oracle, scales and containers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings

from helpers import (
    labelled_ratings,
)
from oracles.naive import (
    integer_scale,
    naive_confusion,
)
from qwkit import (
    confusion_matrix,
)

SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


class TestConfusionMatrix:
    @settings(max_examples=100)
    @given(data=labelled_ratings())
    def test_matches_naive(self, data):
        labels, y1, y2, sw = data
        got = confusion_matrix(y1, y2, labels=labels, sample_weight=sw)
        expected = np.array(
            [[float(c) for c in row] for row in naive_confusion(y1, y2, labels, sw)]
        )
        assert got.shape == (len(labels), len(labels))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        assert got.dtype == (np.int64 if sw is None else np.float64)

    @settings(max_examples=100)
    @given(data=labelled_ratings())
    def test_matches_sklearn(self, data):
        from sklearn.metrics import confusion_matrix as sk_confusion

        labels, y1, y2, sw = data
        got = confusion_matrix(y1, y2, labels=labels, sample_weight=sw)
        np.testing.assert_allclose(
            got, sk_confusion(y1, y2, labels=labels, sample_weight=sw), rtol=1e-12
        )

    def test_integer_range_default(self):
        # docs/kappa.md §2: labels None → every integer from min to max, absent ones included.
        got = confusion_matrix([1, 4, 4], [2, 4, 1])
        expected = np.zeros((4, 4), dtype=np.int64)
        expected[0, 1] = 1
        expected[3, 3] = 1
        expected[3, 0] = 1
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == np.int64

    def test_negative_and_shifted_range(self):
        rng = np.random.default_rng(SEED)
        y1, y2 = rng.integers(-7, 3, 50), rng.integers(-7, 3, 50)
        expected = naive_confusion(y1, y2, integer_scale(y1, y2))
        np.testing.assert_array_equal(confusion_matrix(y1, y2), np.array(expected, dtype=int))

    def test_strings_sorted_and_labelled(self):
        y1 = ["b", "a", "c", "c"]
        y2 = ["a", "a", "c", "b"]
        np.testing.assert_array_equal(
            confusion_matrix(y1, y2), np.array(naive_confusion(y1, y2, ["a", "b", "c"]), int)
        )
        np.testing.assert_array_equal(
            confusion_matrix(y1, y2, labels=["c", "b", "a"]),
            np.array(naive_confusion(y1, y2, ["c", "b", "a"]), int),
        )

    def test_bools_and_containers(self):

        y1 = [True, False, True, True]
        y2 = [True, True, False, True]
        expected = np.array([[0, 1], [1, 2]])
        for conv in (list, np.array, pd.Series, pl.Series):
            np.testing.assert_array_equal(confusion_matrix(conv(y1), conv(y2)), expected)

    def test_rows_are_y1(self):
        got = confusion_matrix([0, 0, 0], [1, 1, 0])
        np.testing.assert_array_equal(got, [[1, 2], [0, 0]])

    def test_too_wide_range_needs_labels(self):
        with pytest.raises(ValueError, match="`labels`"):
            confusion_matrix([0, 10**12], [0, 1])
        got = confusion_matrix([0, 10**12], [0, 1], labels=[0, 1, 10**12])
        np.testing.assert_array_equal(got, [[1, 0, 0], [0, 0, 0], [0, 1, 0]])

    def test_refuses_huge_labels(self):
        with pytest.raises(ValueError, match="`labels` has 50000 categories"):
            confusion_matrix([0, 1, 49999], [0, 2, 49998], labels=np.arange(50000))
