"""Tests of bayes_decision and kappa_decision (oracles: tests/oracles/naive_thresholds.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import qwkit
from oracles.naive_thresholds import brute_force_decision, naive_expected_kappa, weight_matrix_of


def _expected_kappa(proba, decision, weights="quadratic"):
    """Kappa of the expected confusion matrix Pᵀ·X (what kappa_decision maximizes)."""
    proba = np.asarray(proba, dtype=float)
    onehot = np.eye(proba.shape[1])[decision]
    return qwkit.kappa_from_confusion(proba.T @ onehot, weights=weights)


def _dirichlet(rng, n, k, concentration):
    while True:
        p = rng.dirichlet(np.full(k, concentration), size=n)
        if np.count_nonzero(p.sum(axis=0) > 1e-9) >= 2:
            return p


class TestBayesDecision:
    def test_matches_loop(self):
        rng = np.random.default_rng(20261121)
        for _ in range(50):
            k = int(rng.integers(2, 6))
            p = _dirichlet(rng, 20, k, 1.0)
            cost = rng.normal(size=(k, k))
            got = qwkit.bayes_decision(p, cost)
            for i in range(20):
                risks = [sum(p[i, t] * cost[t, j] for t in range(k)) for j in range(k)]
                assert risks[got[i]] == pytest.approx(min(risks), abs=1e-12)

    def test_zero_one_cost_is_argmax(self):
        rng = np.random.default_rng(20261121)
        p = _dirichlet(rng, 200, 4, 1.0)
        np.testing.assert_array_equal(qwkit.bayes_decision(p, 1 - np.eye(4)), np.argmax(p, axis=1))

    def test_absolute_cost_is_a_median(self):
        p = np.array([[0.3, 0.1, 0.6], [0.6, 0.0, 0.4], [0.2, 0.2, 0.6]])
        np.testing.assert_array_equal(
            qwkit.bayes_decision(p, weight_matrix_of(3, "linear")), [2, 0, 2]
        )

    def test_dataframe_input(self):
        p = pd.DataFrame({"a": [0.9, 0.2], "b": [0.1, 0.8]})
        np.testing.assert_array_equal(qwkit.bayes_decision(p, 1 - np.eye(2)), [0, 1])

    def test_bad_cost(self):
        p = [[0.5, 0.5]]
        with pytest.raises(ValueError, match=r"`cost` must have shape \(2, 2\)"):
            qwkit.bayes_decision(p, np.eye(3))
        with pytest.raises(ValueError, match="`cost` must be finite"):
            qwkit.bayes_decision(p, [[0, np.nan], [1, 0]])
        with pytest.raises(TypeError, match="`cost`"):
            qwkit.bayes_decision(p, None)

    @pytest.mark.parametrize("func", ["bayes", "kappa"])
    def test_bad_proba(self, func):
        def call(p):
            if func == "bayes":
                return qwkit.bayes_decision(p, 1 - np.eye(2))
            return qwkit.kappa_decision(p)

        with pytest.raises(ValueError, match="`proba` must be 2-D"):
            call([0.5, 0.5])
        with pytest.raises(ValueError, match=r"row 1 sums to 0\.9"):
            call([[0.5, 0.5], [0.5, 0.4]])
        with pytest.raises(ValueError, match=r"non-negative.*-0\.1 at row 0, column 0"):
            call([[-0.1, 1.1]])
        with pytest.raises(ValueError, match="`proba` must hold finite"):
            call([[np.nan, 1.0]])
        with pytest.raises(ValueError, match="must not be empty"):
            call(np.empty((0, 2)))
        with pytest.raises(TypeError, match="`proba` must be numeric"):
            call([["a", "b"]])

    @pytest.mark.parametrize("func", ["bayes", "kappa"])
    def test_ragged_sparse_and_nullable_input(self, func):
        import scipy.sparse

        def call(p):
            if func == "bayes":
                return qwkit.bayes_decision(p, 1 - np.eye(2))
            return qwkit.kappa_decision(p)

        # was numpy's raw "inhomogeneous shape" error
        with pytest.raises(ValueError, match="`proba` must be a rectangular array"):
            call([[0.2, 0.8], [1.0]])
        # was "dtype object"
        with pytest.raises(TypeError, match=r"`proba` must be a dense array.*\.toarray\(\)"):
            call(scipy.sparse.csr_matrix(np.array([[0.2, 0.8], [0.6, 0.4]])))
        # a data frame of nullable floats was a TypeError (dtype object)
        frame = pd.DataFrame(
            {"a": pd.array([0.2, 0.6], dtype="Float64"), "b": pd.array([0.8, 0.4], dtype="Float64")}
        )
        ref = call(frame.to_numpy(dtype=float))
        np.testing.assert_array_equal(call(frame), ref)
        frame.loc[1, "b"] = pd.NA
        with pytest.raises(ValueError, match=r"`proba` has a missing value .* row 1, column 1"):
            call(frame)

    def test_ragged_cost(self):
        with pytest.raises(ValueError, match="`cost` must be a rectangular array"):
            qwkit.bayes_decision([[0.5, 0.5]], [[0, 1], [1]])

    def test_rows_within_tolerance_are_accepted(self):
        p = [[0.5, 0.5 + 5e-7], [0.3, 0.7 - 5e-7]]
        np.testing.assert_array_equal(qwkit.bayes_decision(p, 1 - np.eye(2)), [1, 1])


class TestKappaDecision:
    @pytest.mark.parametrize("kind", ["quadratic", "linear", "identity", "asymmetric"])
    def test_equals_brute_force_over_all_decisions(self, kind):
        rng = np.random.default_rng(20261121)
        for _ in range(60):
            k = int(rng.integers(2, 5))
            n = int(rng.integers(2, 7 if k < 4 else 6))
            p = _dirichlet(rng, n, k, float(rng.choice([0.3, 1.0, 3.0])))
            wmat = weight_matrix_of(k, kind)
            best, _ = brute_force_decision(p.tolist(), wmat.tolist())
            weights = kind if kind != "asymmetric" else wmat
            got = qwkit.kappa_decision(p, weights=weights)
            value = naive_expected_kappa(p.tolist(), got.tolist(), wmat.tolist())
            assert value == pytest.approx(best, abs=1e-12)

    def test_maximizes_the_kappa_of_the_expected_confusion_matrix(self):
        rng = np.random.default_rng(20261121)
        p = _dirichlet(rng, 500, 5, 0.8)
        got = qwkit.kappa_decision(p)
        best = _expected_kappa(p, got)
        rivals = [
            np.argmax(p, axis=1),
            np.rint(p @ np.arange(5)).astype(int),
            qwkit.bayes_decision(p, weight_matrix_of(5, "quadratic")),
        ]
        for other in rivals:
            assert _expected_kappa(p, other) <= best + 1e-12
        # no single-item change improves it (a local check on top of the global proof)
        for i in rng.choice(500, size=40, replace=False):
            for j in range(5):
                alt = got.copy()
                alt[i] = j
                assert _expected_kappa(p, alt) <= best + 1e-12

    def test_quadratic_closed_form_stretched_posterior_mean(self):
        # docs/thresholds.md eq. D5: j = clip(round(μ̄ + (μ − μ̄)/κ*)), κ* the optimum.
        rng = np.random.default_rng(20261121)
        checked = 0
        for _ in range(40):
            k = int(rng.integers(3, 8))
            p = _dirichlet(rng, 300, k, float(rng.choice([0.2, 0.5, 1.0])))
            got = qwkit.kappa_decision(p)
            kappa = _expected_kappa(p, got)
            assert kappa > 0
            mu = p @ np.arange(k)
            stretched = mu.mean() + (mu - mu.mean()) / kappa
            clear = np.abs(stretched - np.floor(stretched) - 0.5) > 1e-9  # not a rounding tie
            expect = np.clip(np.rint(stretched), 0, k - 1)
            np.testing.assert_array_equal(got[clear], expect[clear])
            checked += clear.sum()
        assert checked > 10_000

    def test_closed_form_is_not_round_of_the_mean(self):
        # κ* < 1 stretches: extreme posterior means move outward versus round(E[y]).
        rng = np.random.default_rng(20261121)
        p = _dirichlet(rng, 400, 5, 0.7)
        got = qwkit.kappa_decision(p)
        rounded = np.rint(p @ np.arange(5)).astype(int)
        assert np.any(got != rounded)
        assert _expected_kappa(p, got) > _expected_kappa(p, rounded)

    @given(st.integers(0, 2**31), st.integers(2, 6), st.sampled_from(["quadratic", "linear"]))
    def test_never_below_argmax_or_rounding(self, seed, k, kind):
        rng = np.random.default_rng(seed)
        p = _dirichlet(rng, 30, k, 0.5)
        got = qwkit.kappa_decision(p, weights=kind)
        best = _expected_kappa(p, got, kind)
        for other in (np.argmax(p, axis=1), np.rint(p @ np.arange(k)).astype(int)):
            table = p.T @ np.eye(k)[other]
            if table.sum(axis=1) @ weight_matrix_of(k, kind) @ table.sum(axis=0) == 0:
                continue  # kappa of that rival is 0/0
            assert _expected_kappa(p, other, kind) <= best + 1e-12

    def test_result_is_class_indices(self):
        got = qwkit.kappa_decision([[0.9, 0.1], [0.2, 0.8]])
        assert got.dtype.kind == "i"
        np.testing.assert_array_equal(got, [0, 1])

    def test_degenerate_and_bad_weights(self):
        with pytest.raises(ValueError, match="all probability on one class"):
            qwkit.kappa_decision([[0.0, 1.0], [0.0, 1.0]])
        with pytest.raises(ValueError, match="all probability on one class"):
            qwkit.kappa_decision([[1.0], [1.0]])
        with pytest.raises(ValueError, match=r"`weights` has shape \(3, 3\)"):
            qwkit.kappa_decision([[0.5, 0.5]], weights=np.ones((3, 3)))
        with pytest.raises(ValueError, match="`weights` give zero"):
            qwkit.kappa_decision([[0.5, 0.5]], weights=np.zeros((2, 2)))
        with pytest.raises(ValueError, match="`weights` must be"):
            qwkit.kappa_decision([[0.5, 0.5]], weights="cubic")


class TestLabels:
    """Issue 18: ``labels=`` returns the classes the columns stand for, as
    ``apply_thresholds`` and ``ThresholdResult.predict`` do."""

    @pytest.mark.parametrize(
        "labels",
        [[3, 4, 5, 6], ["poor", "fair", "good", "great"], np.array([0.5, 1.0, 4.0, 10.0])],
        ids=["int", "text", "uneven-float"],
    )
    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity"])
    def test_labels_of_the_decided_columns(self, labels, weights):
        rng = np.random.default_rng(20261121)
        p = _dirichlet(rng, 40, 4, 0.6)
        cost = weight_matrix_of(4, weights)
        for decide, kwargs in (
            (qwkit.kappa_decision, {"weights": weights}),
            (lambda q, **kw: qwkit.bayes_decision(q, cost, **kw), {}),
        ):
            columns = decide(p, **kwargs)
            got = decide(p, labels=labels, **kwargs)
            np.testing.assert_array_equal(got, np.asarray(labels)[columns])
            # positions, not values, carry the weights: unevenly spaced labels change nothing
            assert np.asarray(got).dtype.kind == np.asarray(labels).dtype.kind

    def test_a_classifiers_classes(self):
        from sklearn.linear_model import LogisticRegression

        rng = np.random.default_rng(20261121)
        X = rng.normal(size=(200, 2))
        y = np.digitize(X[:, 0] + rng.normal(0, 0.5, 200), [-1, 0, 1]) * 10 + 10  # 10..40
        model = LogisticRegression().fit(X, y)
        got = qwkit.kappa_decision(model.predict_proba(X), labels=model.classes_)
        assert set(got) <= {10, 20, 30, 40}
        assert qwkit.kappa_score(y, got) > 0.5

    @pytest.mark.parametrize(
        ("labels", "message"),
        [
            ([1, 2], r"`labels` must name the 3 columns of `proba`, in their order; got 2"),
            ([1, 2, 2], r"`labels` must not repeat a label"),
            ([], r"`labels` must contain at least one label"),
        ],
    )
    def test_bad_labels(self, labels, message):
        p = [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]
        for call in (
            lambda: qwkit.kappa_decision(p, labels=labels),
            lambda: qwkit.bayes_decision(p, np.ones((3, 3)) - np.eye(3), labels=labels),
        ):
            with pytest.raises(qwkit.QwkitError, match=message) as info:
                call()
            assert info.value.parameter == "labels"
