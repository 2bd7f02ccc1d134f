"""KappaAccumulator: streaming and merging equal kappa_score on all the data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from helpers import (
    asymmetric_weights,
    close,
    labelled_ratings,
)
from oracles.naive import (
    naive_kappa,
)
from qwkit import (
    KappaAccumulator,
    ScaleWarning,
    UndefinedKappaWarning,
    confusion_matrix,
    kappa_score,
    weight_matrix,
)

SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


class TestKappaAccumulator:
    def test_empty_and_zero_weight_batches_add_nothing(self):
        acc = KappaAccumulator(labels=[1, 2, 3])
        acc.update([], [])
        with pytest.raises(ValueError, match="No items yet: call `update` first"):
            acc.score()
        acc.update([1, 2], [1, 3], sample_weight=[0, 0])
        # the in-memory function's message for weights that drop every row
        with pytest.raises(ValueError, match="`sample_weight` must not sum to zero"):
            acc.score()
        acc.update([1, 2, 3], [1, 2, 2])
        assert acc.score() == pytest.approx(kappa_score([1, 2, 3], [1, 2, 2]), rel=1e-14)

    def test_kaggle_page_in_pieces(self):
        # The Kaggle reference page's step-by-step example (0.318182), fed in three pieces.
        actuals = [4, 4, 3, 4, 4, 0, 1, 1, 2, 1]
        preds = [0, 4, 1, 0, 4, 0, 1, 1, 2, 1]
        acc = KappaAccumulator(labels=[0, 1, 2, 3, 4])
        for lo, hi in ((0, 3), (3, 4), (4, 10)):
            acc.update(actuals[lo:hi], preds[lo:hi])
        assert acc.score() == pytest.approx(0.3181818181818182, rel=1e-14)
        assert acc.n_items == 10
        np.testing.assert_array_equal(acc.confusion, confusion_matrix(actuals, preds))
        assert type(acc.score()) is float

    @settings(max_examples=100)
    @given(
        data=labelled_ratings(max_n=50),
        weights=st.sampled_from(["quadratic", "linear", "identity", None, "custom"]),
        n_pieces=st.integers(1, 5),
    )
    def test_matches_naive(self, data, weights, n_pieces):
        labels, y1, y2, sw = data
        if weights == "custom":
            weights = asymmetric_weights(len(labels), np.random.default_rng(len(y1)))
        expected = naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        acc = KappaAccumulator(labels, weights=weights)
        for idx in np.array_split(np.arange(len(y1)), n_pieces):
            if idx.size == 0:
                continue
            piece_sw = None if sw is None else np.asarray(sw)[idx]
            assume(piece_sw is None or piece_sw.sum() > 0)
            acc.update(np.asarray(y1)[idx], np.asarray(y2)[idx], sample_weight=piece_sw)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                assert math.isnan(acc.score())
        else:
            assert close(acc.score(), float(expected))
        assert acc.n_items == len(y1)

    def test_mixed_weighted_and_unweighted_updates(self):
        labels = [0, 1, 2]
        acc = KappaAccumulator(labels)
        acc.update([0, 1, 2], [0, 2, 2])
        acc.update([2, 1], [1, 1], sample_weight=[0.5, 2.0])
        y1, y2 = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
        sw = [1, 1, 1, 0.5, 2.0]
        assert close(acc.score(), float(naive_kappa(y1, y2, labels=labels, sample_weight=sw)))
        assert acc.confusion.dtype == np.float64

    def test_merge_returns_self_and_adds(self):
        a = KappaAccumulator(["lo", "mid", "hi"], weights="linear")
        b = KappaAccumulator(["lo", "mid", "hi"], weights="linear")
        a.update(["lo", "hi"], ["lo", "mid"])
        b.update(["mid", "mid", "hi"], ["mid", "hi", "hi"])
        assert a.merge(b) is a
        y1, y2 = ["lo", "hi", "mid", "mid", "hi"], ["lo", "mid", "mid", "hi", "hi"]
        assert close(
            a.score(), float(naive_kappa(y1, y2, labels=["lo", "mid", "hi"], weights="linear"))
        )
        assert a.n_items == 5
        assert b.n_items == 3  # other is unchanged

    def test_confusion_is_a_copy(self):
        acc = KappaAccumulator([0, 1])
        acc.update([0, 1], [0, 1])
        c = acc.confusion
        c[0, 1] = 100
        np.testing.assert_array_equal(acc.confusion, [[1, 0], [0, 1]])
        assert acc.confusion.dtype == np.int64

    def test_integer_scale_grows_without_labels(self):
        acc = KappaAccumulator()
        acc.update([1, 5], [2, 3])
        acc.update([-3, 2], [2, 2])
        other = KappaAccumulator()
        other.update([9], [7])
        acc.merge(other)
        y1, y2 = [1, 5, -3, 2, 9], [2, 3, 2, 2, 7]
        # −3, the one negative rating beside 1..9, looks like a missing-value code
        with pytest.warns(ScaleWarning, match="because of -3"):
            assert acc.score() == kappa_score(y1, y2)
        np.testing.assert_array_equal(acc.labels, np.arange(-3, 10))
        with pytest.warns(ScaleWarning, match="because of -3"):
            np.testing.assert_array_equal(acc.confusion, confusion_matrix(y1, y2))
        with pytest.raises(ValueError, match="text ratings"):
            KappaAccumulator().update(["a", "b"], ["a", "a"])
        with pytest.raises(ValueError, match="1025 integer categories"):
            KappaAccumulator().update([0, 1024], [0, 0])

    def test_labels_attribute(self):
        acc = KappaAccumulator([3, 1, 2])
        np.testing.assert_array_equal(acc.labels, [3, 1, 2])

    def test_undefined(self):
        acc = KappaAccumulator([0, 1, 2])
        acc.update([1, 1], [1, 1])
        with pytest.warns(UndefinedKappaWarning) as record:
            assert math.isnan(acc.score())
        assert record[0].filename == __file__
        with pytest.warns(UndefinedKappaWarning):
            assert acc.score(replace_undefined_by=0.0) == 0.0

    def test_empty_text_partitions(self):
        acc = KappaAccumulator(["lo", "mid", "hi"])
        acc.update(pd.Series([], dtype=str), pd.Series([], dtype=str))
        acc.update(pl.Series([], dtype=pl.Utf8), pl.Series([], dtype=pl.Utf8))
        acc.update([], [])
        assert acc.n_items == 0

    def test_merge_accepts_equivalent_weights(self):
        a = KappaAccumulator([0, 1, 2])
        a.update([0, 1, 2], [0, 2, 2])
        b = KappaAccumulator([0, 1, 2], weights=weight_matrix(3))
        b.update([2, 1], [2, 0])
        assert a.merge(b).score() == pytest.approx(kappa_score([0, 1, 2, 2, 1], [0, 2, 2, 2, 0]))
        with pytest.raises(ValueError, match="different `weights`"):
            KappaAccumulator([0, 1, 2]).merge(KappaAccumulator([0, 1, 2], weights="linear"))

    def test_accumulator_copies_are_independent(self):
        import copy

        acc = KappaAccumulator(labels=[0, 1, 2])
        acc.update([0, 1, 2], [0, 1, 2])
        snap = copy.copy(acc)
        snap.update([0], [2])
        other = copy.copy(acc)
        other.merge(snap)
        assert (acc.n_items, int(acc.confusion.sum()), acc.score()) == (3, 3, 1.0)

    def test_accumulator_huge_weights(self):
        # Sums of weights are exact: no float64 sum overflows, and kappa is that of all
        # the rows at once; a table whose sums pass float64 is refused, not scaled.
        acc = KappaAccumulator(labels=[0, 1, 2])
        acc.update([0, 1, 2, 0], [0, 1, 2, 1], sample_weight=[1e308] * 4)
        assert acc.score() == pytest.approx(0.8)
        np.testing.assert_array_equal(
            acc.confusion,
            confusion_matrix([0, 1, 2, 0], [0, 1, 2, 1], sample_weight=[1e308] * 4),
        )
        acc.update([0, 1, 2, 0], [0, 1, 2, 1], sample_weight=[1e308] * 4)
        y1, y2 = [0, 1, 2, 0] * 2, [0, 1, 2, 1] * 2
        assert acc.score() == kappa_score(y1, y2, sample_weight=[1e308] * 8)
        for table in (
            lambda: acc.confusion,
            lambda: confusion_matrix(y1, y2, sample_weight=[1e308] * 8),
        ):
            with pytest.raises(ValueError, match="beyond the largest float64"):
                table()
