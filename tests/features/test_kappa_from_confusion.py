"""kappa_from_confusion: published tables and the oracle."""

from __future__ import annotations

import math

import numpy as np
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
    naive_kappa_from_confusion,
)
from qwkit import (
    UndefinedKappaWarning,
    confusion_matrix,
    kappa_from_confusion,
    kappa_score,
)

SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


STEELE_TABLES = [
    # Steele (2016), §3.1 "Prediction 1": κ₁ = 0.9464.
    ([[100, 0, 0, 0], [30, 70, 0, 0], [0, 0, 70, 30], [0, 0, 0, 100]], 0.9464, 4),
    # Steele (2016), §3.1 "Prediction 2": κ₂ = 0.9400.
    ([[90, 10, 0, 0], [10, 80, 10, 0], [0, 10, 80, 10], [0, 0, 10, 90]], 0.9400, 4),
    # Steele (2016), §3.2 "Prediction 1": κ₁ = 0.960.
    ([[95, 5, 0, 0], [5, 85, 10, 0], [0, 10, 85, 5], [0, 0, 5, 95]], 0.960, 3),
    # Steele (2016), §3.2 "Prediction 2": κ₂ = 0.948. As printed: the last row sums to 102.
    ([[95, 3, 2, 0], [3, 92, 3, 2], [2, 3, 90, 3], [0, 2, 5, 95]], 0.948, 3),
]


class TestKappaFromConfusion:
    def test_tiny_float_table(self):
        # Products of tiny proportions must not underflow into a fake 0/0.
        assert kappa_from_confusion([[0, 0], [3.7e-200, 0]]) == 0.0
        table = np.array([[5.0, 2.0], [1.0, 6.0]])
        assert close(kappa_from_confusion(table * 1e-300), kappa_from_confusion(table))

    @pytest.mark.parametrize(("table", "published", "digits"), STEELE_TABLES)
    def test_steele_tables(self, table, published, digits):
        got = kappa_from_confusion(table)
        assert round(got, digits) == published
        assert got == pytest.approx(float(naive_kappa_from_confusion(table)), rel=1e-13)
        assert type(got) is float

    def test_kaggle_page_matrix_o(self):
        # Kaggle reference page, Step 1 "Matrix O" (rows actuals, columns preds) → 0.318182
        # (Out[27]).
        o = [[1, 0, 0, 0, 0], [0, 3, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [2, 0, 0, 0, 2]]
        assert kappa_from_confusion(o) == pytest.approx(0.31818181818181823, rel=1e-13)

    def test_sklearn_artstein_poesio_tables(self):
        # sklearn test_cohen_kappa, Artstein & Poesio (2008) Table 1: [[20, 20], [10, 50]].
        assert kappa_from_confusion([[20, 20], [10, 50]], weights=None) == pytest.approx(
            0.348, abs=5e-4
        )

    @settings(max_examples=150)
    @given(
        k=st.integers(1, 6),
        data=st.data(),
        weights=st.sampled_from(["quadratic", "linear", "identity", None, "custom"]),
        as_float_table=st.booleans(),
    )
    def test_matches_naive(self, k, data, weights, as_float_table):
        cells = (
            st.one_of(st.just(0.0), st.floats(1e-3, 50)) if as_float_table else st.integers(0, 30)
        )
        table = np.array(
            data.draw(st.lists(cells, min_size=k * k, max_size=k * k)), dtype=float
        ).reshape(k, k)
        if not as_float_table:
            table = table.astype(np.int64)
        assume(table.sum() > 0)
        if weights == "custom":
            weights = asymmetric_weights(k, np.random.default_rng(k))
        expected = naive_kappa_from_confusion(table, weights)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                assert math.isnan(kappa_from_confusion(table, weights=weights))
        else:
            got = kappa_from_confusion(table, weights=weights)
            assert close(got, float(expected)), (got, float(expected))

    @settings(max_examples=100)
    @given(data=labelled_ratings(sorted_labels=True), weights=st.sampled_from(NAMED))
    def test_equals_kappa_score_of_its_ratings(self, data, weights):
        labels, y1, y2, sw = data
        expected = naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        assume(expected is not None)
        table = confusion_matrix(y1, y2, labels=labels, sample_weight=sw)
        assert close(
            kappa_from_confusion(table, weights=weights),
            kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=sw),
        )

    @pytest.mark.parametrize("weights", NAMED)
    def test_transpose_symmetry_and_scaling(self, weights):
        rng = np.random.default_rng(SEED)
        table = rng.integers(0, 20, (5, 5))
        got = kappa_from_confusion(table, weights=weights)
        assert close(kappa_from_confusion(table.T, weights=weights), got)
        # Integer weights = repeated rows: a table times 3 is the same kappa.
        assert close(kappa_from_confusion(3 * table, weights=weights), got)
        assert close(kappa_from_confusion(0.25 * table, weights=weights), got)
        assert close(kappa_from_confusion(table / table.sum(), weights=weights), got)

    def test_asymmetric_transpose(self):
        rng = np.random.default_rng(SEED)
        table = rng.integers(0, 20, (4, 4))
        w = asymmetric_weights(4, rng)
        assert close(
            kappa_from_confusion(table.T, weights=w.T), kappa_from_confusion(table, weights=w)
        )

    def test_input_types(self):
        table = [[5, 2, 0], [1, 6, 2], [0, 1, 7]]
        expected = float(naive_kappa_from_confusion(table))
        for conv in (
            np.array,
            lambda t: np.array(t, dtype=np.int8),
            lambda t: np.array(t, dtype=np.uint32),
            lambda t: np.array(t, dtype=np.float32),
            lambda t: np.asfortranarray(t),
            lambda t: np.array(t).T.copy().T,
            lambda t: np.kron(np.array(t), np.ones((1, 1), int))[:, :],
            lambda t: np.pad(np.array(t), ((0, 0), (0, 3)))[:, :3],
            lambda t: np.repeat(np.repeat(np.array(t), 2, axis=0), 2, axis=1)[::2, ::2],
            lambda t: __import__("pandas").DataFrame(t),
        ):
            assert close(kappa_from_confusion(conv(table)), expected)

    def test_undefined(self):
        with pytest.warns(UndefinedKappaWarning) as record:
            assert math.isnan(kappa_from_confusion([[0, 0], [0, 9]]))
        assert record[0].filename == __file__
        with pytest.warns(UndefinedKappaWarning):
            assert kappa_from_confusion([[4]], replace_undefined_by=0.5) == 0.5
        with pytest.warns(UndefinedKappaWarning):
            assert (
                kappa_from_confusion(
                    [[1, 2], [3, 4]], weights=np.zeros((2, 2)), replace_undefined_by=1.0
                )
                == 1.0
            )

    def test_huge_counts(self):
        # Counts near 10**15 (e.g. n = 10**9 items in a few cells): float64 eq. 1 is still
        # accurate to ~1e-12.
        table = np.array([[10**15, 3 * 10**14], [2 * 10**14, 9 * 10**14]], dtype=np.int64)
        expected = float(naive_kappa_from_confusion(table, "identity"))
        assert close(kappa_from_confusion(table, weights="identity"), expected)
