"""kappa_regression and kappa_rescale: the kappa-optimal linear model and affine map.

Oracles live in ``tests/oracles/naive_regression.py``: the soft kappa written from its
definition and maximized with ``scipy.optimize`` (BFGS from several starts, then Newton
polish), and an exact rational-arithmetic least-squares solution. The claims that
``docs/regression.md`` makes about Vaughn & Justice (eqs. 12–14, the appendix) are tested here.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import qwkit
from oracles.naive_regression import (
    exact_kappa_regression,
    naive_kappa_and_gradient,
    naive_ridge_direction,
    scipy_best_scale,
    scipy_kappa_regression,
    soft_kappa_definition,
)
from qwkit import kappa_regression, kappa_rescale, soft_kappa_score

#: Against the oracle's optimum (BFGS, then Newton steps on the analytic gradient: the
#: zero of the gradient to its rounding, not the point where κ stops changing in float64,
#: which is √ε wide): both agree to about 1e-13 (measured at most 2.6e-14 over 48 fits);
#: 1e-8 leaves five orders of magnitude for other BLAS.
RTOL = 1e-8


def _data(n=120, d=4, seed_offset=0, weights=False, offset=0.0):
    rng = np.random.default_rng(20261121 + seed_offset)
    X = rng.standard_normal((n, d)) + offset
    y = np.clip(np.round(X @ rng.standard_normal(d) * 0.6 + 3 + rng.standard_normal(n)), 0, 6)
    w = rng.integers(0, 4, n).astype(float) if weights else None
    return X, y, w


def _wcorr(a, b, w=None):
    w = np.ones_like(a) if w is None else w
    da = a - np.average(a, weights=w)
    db = b - np.average(b, weights=w)
    return np.sum(w * da * db) / np.sqrt(np.sum(w * da * da) * np.sum(w * db * db))


def _close(a, b, rtol=RTOL):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.max(np.abs(b)))


class TestKappaRegression:
    @pytest.mark.parametrize("fit_intercept", [True, False])
    @pytest.mark.parametrize("weights", [False, True])
    @pytest.mark.parametrize("seed", [0, 1])
    def test_matches_scipy_optimum(self, fit_intercept, weights, seed):
        X, y, w = _data(seed_offset=seed, weights=weights, offset=1.5 * seed)
        res = kappa_regression(X, y, fit_intercept=fit_intercept, sample_weight=w)
        kappa, b, coef = scipy_kappa_regression(X, y, w, fit_intercept=fit_intercept)
        assert res.statistic == pytest.approx(kappa, rel=RTOL)
        _close(res.coef, coef)
        assert res.intercept == pytest.approx(b, rel=RTOL, abs=RTOL)
        assert res.statistic >= kappa - 1e-12  # never below the numerical optimum

    @pytest.mark.parametrize("fit_intercept", [True, False])
    def test_statistic_is_soft_kappa_of_predictions(self, fit_intercept):
        X, y, w = _data(weights=True)
        res = kappa_regression(X, y, fit_intercept=fit_intercept, sample_weight=w)
        pred = res.predict(X)
        assert res.statistic == pytest.approx(soft_kappa_score(y, pred, sample_weight=w), rel=1e-12)
        assert res.statistic == pytest.approx(soft_kappa_definition(y, pred, w), rel=1e-12)

    def test_exact_rational_solution(self):
        # Nearly collinear columns far from zero: the QR path and two-pass centering.
        rng = np.random.default_rng(20261121)
        t = rng.standard_normal(200)
        X = np.c_[t, t + 1e-5 * rng.standard_normal(200), rng.standard_normal(200)] + 1e3
        y = np.round(2 * t + rng.standard_normal(200))
        res = kappa_regression(X, y)
        kappa, coef = exact_kappa_regression(X, y)
        assert res.statistic == pytest.approx(kappa, rel=1e-12)
        _close(res.coef, coef, rtol=1e-8)

    def test_eq14_correlation_equals_kappa(self):
        # Vaughn & Justice eq. 14: at the optimum corr(y, ŷ_κ) = κ̂ = ‖ŷ_ls − ȳ‖ / ‖y − ȳ‖ (eq. 8).
        X, y, w = _data(weights=True)
        res = kappa_regression(X, y, sample_weight=w)
        assert _wcorr(y, res.predict(X), w) == pytest.approx(res.statistic, rel=1e-12)
        sw = np.sqrt(w)
        xc = X - np.average(X, axis=0, weights=w)
        yc = y - np.average(y, weights=w)
        beta = np.linalg.lstsq(sw[:, None] * xc, sw * yc, rcond=None)[0]
        kappa_hat = np.linalg.norm(sw * (xc @ beta)) / np.linalg.norm(sw * yc)
        assert res.statistic == pytest.approx(kappa_hat, rel=1e-12)
        _close(res.coef, beta / kappa_hat, rtol=1e-10)  # eq. 5 / 9
        ls_pred = np.average(y, weights=w) + xc @ beta
        assert res.least_squares_statistic == pytest.approx(
            soft_kappa_score(y, ls_pred, sample_weight=w), rel=1e-12
        )
        assert res.least_squares_statistic < res.statistic
        # the kappa-optimal prediction has the (weighted) mean and spread of y
        pred = res.predict(X)
        assert np.average(pred, weights=w) == pytest.approx(np.average(y, weights=w))
        assert np.average((pred - np.average(pred, weights=w)) ** 2, weights=w) == pytest.approx(
            np.average(yc**2, weights=w), rel=1e-12
        )

    @pytest.mark.parametrize("alpha", [0.5, 10.0, 300.0])
    def test_ridge_is_optimally_scaled_ridge_direction(self, alpha):
        X, y, w = _data(weights=True)
        res = kappa_regression(X, y, alpha=alpha, sample_weight=w)
        direction = naive_ridge_direction(X, y, w, alpha)
        kappa, b, c = scipy_best_scale(X, y, w, direction)
        assert c > 0
        assert res.statistic == pytest.approx(kappa, rel=RTOL)
        _close(res.coef, c * direction)
        assert res.intercept == pytest.approx(b, rel=RTOL)
        # the unscaled ridge fit is what least_squares_statistic measures
        ridge_pred = np.average(y, weights=w) + (X - np.average(X, axis=0, weights=w)) @ direction
        assert res.least_squares_statistic == pytest.approx(
            soft_kappa_score(y, ridge_pred, sample_weight=w), rel=1e-12
        )

    def test_ridge_matches_sklearn_direction(self):
        from sklearn.linear_model import Ridge

        X, y, w = _data(weights=True)
        res = kappa_regression(X, y, alpha=7.0, sample_weight=w)
        ref = Ridge(alpha=7.0).fit(X, y, sample_weight=w).coef_
        cos = res.coef @ ref / (np.linalg.norm(res.coef) * np.linalg.norm(ref))
        assert cos == pytest.approx(1.0, abs=1e-12)

    @pytest.mark.parametrize("alpha", [1.0, 40.0])
    def test_paper_eq12_is_kappa_of_eq13_and_below_ours(self, alpha):
        # docs/regression.md §5: eq. 12 is exactly the kappa of eq. 13's predictor, but
        # eq. 13's scale is not the best on the ridge ray; ours is, and beats it.
        X, y, _ = _data()
        xc = X - X.mean(axis=0)
        yc = y - y.mean()
        direction = naive_ridge_direction(X, y, None, alpha)
        g = xc @ direction
        eq12 = np.sqrt((2 * yc @ g - g @ g) / (yc @ yc))
        eq13_pred = y.mean() + g / eq12
        assert soft_kappa_score(y, eq13_pred) == pytest.approx(eq12, rel=1e-12)
        res = kappa_regression(X, y, alpha=alpha)
        assert res.statistic == pytest.approx(_wcorr(y, g), rel=1e-12)
        assert res.statistic > eq12 + 1e-6

    def test_no_intercept_ridge_maximizes_over_the_plane(self):
        X, y, w = _data(weights=True, offset=0.7)
        alpha = 5.0
        res = kappa_regression(X, y, alpha=alpha, fit_intercept=False, sample_weight=w)
        a = X.T @ (w[:, None] * X) + alpha * np.eye(X.shape[1])
        ybar = np.average(y, weights=w)
        basis = np.linalg.solve(a, X.T @ (w[:, None] * np.c_[np.ones_like(y), y - ybar]))
        kappa, _, theta = scipy_kappa_regression(X @ basis, y, w, fit_intercept=False)
        assert res.statistic == pytest.approx(kappa, rel=RTOL)
        _close(res.coef, basis @ theta)
        assert res.intercept == 0.0

    def test_no_intercept_centered_y_is_paper_eq8(self):
        # With y centered (ȳ = 0) and no intercept, the preprint's setting: κ̂ = ‖Hy‖/‖y‖.
        X, y, _ = _data(offset=0.5)
        yc = y - y.mean()
        res = kappa_regression(X, yc, fit_intercept=False)
        fitted = X @ np.linalg.lstsq(X, yc, rcond=None)[0]
        assert res.statistic == pytest.approx(np.linalg.norm(fitted) / np.linalg.norm(yc))

    def test_alpha_zero_limit(self):
        X, y, w = _data(weights=True)
        r0 = kappa_regression(X, y, sample_weight=w)
        r1 = kappa_regression(X, y, alpha=1e-9, sample_weight=w)
        _close(r1.coef, r0.coef, rtol=1e-7)

    def test_weights_equal_repeated_rows(self):
        X, y, w = _data(weights=True)
        counts = w.astype(int)
        for alpha, fit_intercept in [(0.0, True), (3.0, True), (0.0, False), (2.0, False)]:
            r1 = kappa_regression(X, y, alpha=alpha, fit_intercept=fit_intercept, sample_weight=w)
            r2 = kappa_regression(
                np.repeat(X, counts, axis=0),
                np.repeat(y, counts),
                alpha=alpha,
                fit_intercept=fit_intercept,
            )
            _close(r1.coef, r2.coef, rtol=1e-10)
            assert r1.intercept == pytest.approx(r2.intercept, rel=1e-10, abs=1e-12)
            assert r1.statistic == pytest.approx(r2.statistic, rel=1e-12)

    def test_unit_weights_equal_none(self):
        X, y, _ = _data()
        r1 = kappa_regression(X, y, sample_weight=np.ones(len(y)))
        r2 = kappa_regression(X, y)
        np.testing.assert_array_equal(r1.coef, r2.coef)

    def test_invariances(self):
        X, y, _ = _data()
        base = kappa_regression(X, y)
        shifted = kappa_regression(X, y + 10.0)  # shifting y shifts the intercept
        _close(shifted.coef, base.coef, rtol=1e-10)
        assert shifted.intercept == pytest.approx(base.intercept + 10.0, rel=1e-12)
        assert shifted.statistic == pytest.approx(base.statistic, rel=1e-12)
        scale = np.array([2.0, 0.5, 10.0, 1e-3])  # scaling X scales coef inversely
        scaled = kappa_regression(X * scale, y)
        _close(scaled.coef * scale, base.coef, rtol=1e-10)
        perm = np.random.default_rng(20261121).permutation(len(y))
        permuted = kappa_regression(X[perm], y[perm])
        _close(permuted.coef, base.coef, rtol=1e-10)
        shifted_x = kappa_regression(X + 100.0, y)  # shifting X moves only the intercept
        _close(shifted_x.coef, base.coef, rtol=1e-9)

    @settings(max_examples=30)
    @given(st.integers(0, 10_000), st.integers(1, 5), st.booleans())
    def test_beats_any_affine_predictor(self, seed, d, fit_intercept):
        rng = np.random.default_rng(seed)
        n = 30
        X = rng.standard_normal((n, d))
        y = rng.integers(0, 5, n).astype(float)
        y[:2] = [0.0, 4.0]
        res = kappa_regression(X, y, fit_intercept=fit_intercept)
        for _ in range(20):
            b = rng.normal(2, 2) if fit_intercept else 0.0
            f = b + X @ rng.normal(0, 2, d)
            assert soft_kappa_score(y, f) <= res.statistic + 1e-12
        assert res.least_squares_statistic <= res.statistic + 1e-12

    def test_rank_deficient_gives_minimum_norm(self):
        X, y, _ = _data()
        dup = np.c_[X, X[:, 0]]
        res = kappa_regression(dup, y)
        ref = kappa_regression(X, y)
        assert res.rank == X.shape[1]
        assert ref.rank == X.shape[1]
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        np.testing.assert_allclose(res.predict(dup), ref.predict(X), rtol=1e-10)
        # the minimum-norm solution splits the duplicated weight evenly
        assert res.coef[0] == pytest.approx(res.coef[-1], rel=1e-10)
        assert res.coef[0] == pytest.approx(ref.coef[0] / 2, rel=1e-10)

    def test_more_features_than_items(self):
        rng = np.random.default_rng(20261121)
        X = rng.standard_normal((12, 40))
        y = rng.integers(0, 5, 12)
        y[:2] = [0, 4]
        res = kappa_regression(X, y)
        assert res.rank == 11  # centered: n − 1
        assert res.statistic == pytest.approx(1.0)  # interpolation: meaningless in-sample
        np.testing.assert_allclose(res.predict(X), y, atol=1e-10)
        ridge = kappa_regression(X, y, alpha=5.0)
        assert 0 < ridge.statistic < 1
        kappa, _, _ = scipy_best_scale(X, y, None, naive_ridge_direction(X, y, None, 5.0))
        assert ridge.statistic == pytest.approx(kappa, rel=RTOL)

    def test_uncorrelated_features_give_the_mean(self):
        y = np.array([1.0, 1, 2, 2, 3, 3])
        X = np.array([[1.0, 5], [-1, 5], [1, 5], [-1, 5], [0, 5], [0, 5]])  # X_cᵀy_c = 0
        res = kappa_regression(X, y)
        np.testing.assert_array_equal(res.coef, [0.0, 0.0])
        assert res.intercept == 2.0
        assert res.statistic == 0.0
        assert soft_kappa_score(y, res.predict(X)) == 0.0
        res0 = kappa_regression(X, y, fit_intercept=False)
        assert res0.statistic >= 0.0  # the constant column now fits the mean

    def test_quasiconcavity_fails_where_kappa_is_negative(self):
        # docs/regression.md §6: the appendix's claim needs κ > 0.
        X, y, _ = _data()
        best = kappa_regression(X, y)
        u = np.r_[best.intercept, -3 * best.coef]
        v = np.r_[best.intercept, np.zeros_like(best.coef)]

        def kappa(p):
            return naive_kappa_and_gradient(p, X, y, np.ones_like(y), True)[0]

        mid = 0.5 * (u + v)
        assert kappa(mid) < min(kappa(u), kappa(v)) - 0.1
        # and holds on pairs with positive kappa
        rng = np.random.default_rng(20261121)
        for _ in range(200):
            a = np.r_[rng.normal(3, 1), rng.normal(0, 1, X.shape[1])]
            b = np.r_[rng.normal(3, 1), rng.normal(0, 1, X.shape[1])]
            if min(kappa(a), kappa(b)) > 0:
                t = rng.uniform(0.01, 0.99)
                assert kappa(t * a + (1 - t) * b) > min(kappa(a), kappa(b))

    def test_result_type(self):
        X, y, _ = _data()
        res = kappa_regression(X, y)
        assert isinstance(res, qwkit.KappaRegressionResult)
        for name in ("intercept", "statistic", "least_squares_statistic"):
            assert type(getattr(res, name)) is float
        assert type(res.rank) is int
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.intercept = 1.0
        with pytest.raises(ValueError, match="read-only"):
            res.coef[0] = 1.0

    def test_accepts_lists_and_dataframes(self):
        import pandas as pd

        X, y, _ = _data(n=20, d=2)
        ref = kappa_regression(X, y)
        a = kappa_regression(X.tolist(), y.tolist())
        b = kappa_regression(pd.DataFrame(X), pd.Series(y))
        np.testing.assert_array_equal(a.coef, ref.coef)
        np.testing.assert_allclose(b.coef, ref.coef, rtol=1e-13)  # column-major: BLAS order

    @pytest.mark.parametrize(
        ("kwargs", "exc", "match"),
        [
            ({"X": np.ones(5)}, ValueError, r"`X` must be 2-D.*reshape"),
            ({"X": np.ones((5, 2, 2))}, ValueError, r"`X` must be 2-D"),
            ({"X": np.ones((5, 0))}, ValueError, r"`X` must have at least one feature"),
            (
                {"X": np.ones((4, 2))},
                ValueError,
                r"`X` and `y` must have the same length; got 4 and 5",
            ),
            (
                {"X": [[0.0, 1.0]] * 4 + [[np.nan, 1.0]]},
                ValueError,
                r"`X` has a missing value \(nan\) at row 4",
            ),
            ({"X": [[0.0, np.inf]] * 5}, ValueError, r"`X` contains inf at row 0, column 1"),
            ({"X": [["a", "b"]] * 5}, TypeError, r"`X` must be numeric"),
            ({"X": scipy.sparse.csr_matrix(np.eye(5))}, TypeError, r"`X` must be a dense"),
            ({"X": None}, TypeError, r"`X` must be a 2-D array-like"),
            (
                {"y": [1, 2, np.nan, 1, 2]},
                ValueError,
                r"`y` has a missing value \(nan\) at index 2",
            ),
            ({"y": [3, 3, 3, 3, 3]}, ValueError, r"`y` must take at least two distinct"),
            (
                {"y": [1, 1, 1, 1, 2], "sample_weight": [1, 1, 1, 1, 0]},
                ValueError,
                r"`y` must take at least two distinct values \(among items with positive",
            ),
            ({"alpha": -1.0}, ValueError, r"`alpha` must be finite and non-negative; got -1"),
            ({"alpha": np.nan}, ValueError, r"`alpha` must be finite"),
            ({"alpha": True}, TypeError, r"`alpha` must be a non-negative real"),
            ({"alpha": "1"}, TypeError, r"`alpha`"),
            ({"fit_intercept": "yes"}, TypeError, r"`fit_intercept` must be True or False"),
            ({"sample_weight": [1, 1, 1]}, ValueError, r"`sample_weight`"),
            ({"sample_weight": [1, 1, -1, 1, 1]}, ValueError, r"`sample_weight`"),
        ],
    )
    def test_bad_input(self, kwargs, exc, match):
        args = {"X": np.arange(10.0).reshape(5, 2) ** 1.5, "y": [1, 2, 3, 1, 2]}
        args.update(kwargs)
        X, y = args.pop("X"), args.pop("y")
        with pytest.raises(exc, match=match):
            kappa_regression(X, y, **args)

    def test_predict_checks_columns(self):
        X, y, _ = _data(d=3)
        res = kappa_regression(X, y)
        with pytest.raises(ValueError, match=r"`X` must have 3 columns.*got 2"):
            res.predict(X[:, :2])
        with pytest.raises(ValueError, match=r"`X` must be 2-D"):
            res.predict(X[0])

    # -------------------------------------------------------------- numerical robustness

    @pytest.mark.parametrize("fit_intercept", [True, False])
    @pytest.mark.parametrize(
        ("sx", "sy", "sw"),
        [
            (1.0, 1e-170, 1.0),  # was ZeroDivisionError
            (1e-170, 1.0, 1.0),  # was statistic 0.0
            (1.0, 1e160, 1.0),  # was statistic 0.0
            (1e160, 1.0, 1.0),  # was overflow, then "SVD did not converge"
            (1.0, 1.0, 1e307),  # was intercept nan
            (1.0, 1.0, 1e-310),  # subnormal weights
            (1e-300, 1e-300, 1e300),
            (1e300, 1e300, 1e-300),
        ],
    )
    def test_extreme_magnitudes_give_the_unscaled_model(self, sx, sy, sw, fit_intercept):
        # Reviewer's data. Kappa is invariant under scaling X, y (together with the
        # intercept) and the weights; the model scales with them.
        rng = np.random.default_rng(0)
        X = rng.normal(size=(20, 3))
        y = rng.integers(0, 4, 20).astype(float)
        ref = kappa_regression(X, y, fit_intercept=fit_intercept)
        res = kappa_regression(
            X * sx, y * sy, sample_weight=np.full(20, sw), fit_intercept=fit_intercept
        )
        if fit_intercept:  # the reviewer's unscaled value
            assert ref.statistic == pytest.approx(0.5226383492672971, rel=1e-12)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.least_squares_statistic == pytest.approx(ref.least_squares_statistic, rel=1e-12)
        assert res.rank == ref.rank
        np.testing.assert_allclose(res.coef * (sx / sy), ref.coef, rtol=1e-12)
        assert res.intercept / sy == pytest.approx(ref.intercept, rel=1e-12, abs=1e-300)
        np.testing.assert_allclose(res.predict(X * sx) / sy, ref.predict(X), rtol=1e-12)

    @pytest.mark.parametrize("fit_intercept", [True, False])
    def test_weight_scale_is_a_ridge_penalty_scale(self, fit_intercept):
        # Σw(y − f)² + α‖β‖²: weights times c with α times c is the same ridge problem,
        # also when c·w is subnormal or near the float64 maximum.
        X, y, w = _data(n=40, d=3, weights=True)
        ref = kappa_regression(X, y, alpha=2.0, sample_weight=w, fit_intercept=fit_intercept)
        for c in (1e-310 / w.max(), 2.0**-1060, 1e307 / w.max()):
            res = kappa_regression(
                X, y, alpha=2.0 * c, sample_weight=w * c, fit_intercept=fit_intercept
            )
            _close(res.coef, ref.coef, rtol=1e-10)
            assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)

    def test_rescale_extreme_magnitudes(self):
        rng = np.random.default_rng(0)
        s = rng.normal(size=20)
        y = rng.integers(0, 4, 20).astype(float)
        ref = kappa_rescale(y, s)
        for sx, sy in [(1e200, 1.0), (1e-200, 1.0), (1.0, 1e-300), (1e300, 1e300)]:
            res = kappa_rescale(y * sy, s * sx)  # was overflow then LinAlgError at 1e200
            assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
            assert res.slope * sx / sy == pytest.approx(ref.slope, rel=1e-12)

    def test_coefficients_beyond_float64_are_an_error(self):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(20, 3))
        y = rng.integers(0, 4, 20).astype(float)
        with pytest.raises(ValueError, match="coefficients exceed the float64 range"):
            kappa_regression(X * 1e-200, y * 1e200)  # coefficients would be ~1e400

    @pytest.mark.parametrize("tiny", [1e-14, 1e-100])
    def test_column_units_do_not_change_rank_or_model(self, tiny):
        # Reviewer's data: a column 1e-14 times the others was called rank-deficient
        # (statistic 0.23 instead of 0.61, rank 2).
        rng = np.random.default_rng(3)
        X = rng.normal(size=(50, 3))
        y = rng.integers(0, 5, 50).astype(float) + X[:, 1]
        scale = np.array([1.0, tiny, 1e10])
        for fit_intercept in (True, False):
            ref = kappa_regression(X, y, fit_intercept=fit_intercept)
            res = kappa_regression(X * scale, y, fit_intercept=fit_intercept)
            assert res.rank == ref.rank == 3
            assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
            np.testing.assert_allclose(res.coef * scale, ref.coef, rtol=1e-10)
            np.testing.assert_allclose(res.predict(X * scale), ref.predict(X), rtol=1e-10)

    def test_ridge_penalizes_the_columns_as_given(self):
        # Equilibration must not change the ridge problem: with columns in different
        # units the result is the exact ridge solution of the data as given (rational
        # arithmetic), not that of the standardized data.
        rng = np.random.default_rng(3)
        X = rng.normal(size=(30, 3)) * [1.0, 1e-3, 1e4]
        y = rng.integers(0, 5, 30).astype(float) + X[:, 1] * 1e3
        for alpha in (1e-4, 0.5, 1e9):
            res = kappa_regression(X, y, alpha=alpha)
            direction = _exact_ridge_direction(X, y, alpha)
            c = res.coef @ direction / (direction @ direction)
            _close(res.coef, c * direction, rtol=1e-9)
            kappa, _, _ = scipy_best_scale(X, y, None, direction)
            assert res.statistic == pytest.approx(kappa, rel=1e-8)
        # the penalty does act on the small-unit column: its signal is shrunk away
        assert kappa_regression(X, y, alpha=0.5).statistic < kappa_regression(X, y).statistic - 0.1

    @pytest.mark.parametrize("s", [3.0, 1e-6, 1e6])
    def test_rank_deficient_minimum_norm_in_the_given_units(self, s):
        rng = np.random.default_rng(1)
        x1, x3 = rng.normal(size=(2, 40))
        y = np.round(x1 + x3 + rng.normal(size=40))
        X = np.c_[x1, x1 * s, x3, 2 * x3]  # two exact collinearities, columns unequal
        res = kappa_regression(X, y)
        xc = X - X.mean(axis=0)
        beta = np.linalg.pinv(xc) @ (y - y.mean())  # minimum-norm least squares
        assert res.rank == 2
        c = res.coef @ beta / (beta @ beta)
        _close(res.coef, c * beta, rtol=1e-9)

    def test_predict_is_exact_for_features_far_from_zero(self):
        # Reviewer: X = 1e8 + 1e-4·noise gave statistic 0.4395863 but the soft kappa of
        # predict(X) 0.4396152 (intercept + X @ coef cancels catastrophically).
        rng = np.random.default_rng(20261121)
        noise = rng.normal(size=(200, 3))
        y = np.clip(np.round(2 + noise @ [1.0, 0.5, -0.5] + rng.normal(size=200)), 0, 4)
        X = 1e8 + 1e-4 * noise
        res = kappa_regression(X, y)
        assert soft_kappa_score(y, res.predict(X)) == pytest.approx(res.statistic, rel=1e-12)
        ref = kappa_regression(X - 1e8, y)  # exact shift (Sterbenz): the same model
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        np.testing.assert_allclose(res.predict(X), ref.predict(X - 1e8), rtol=1e-10, atol=1e-10)
        # `intercept` is the same model's intercept: consistent to its own rounding
        assert res.intercept == pytest.approx(
            ref.intercept - 1e8 * float(np.sum(ref.coef)), rel=1e-12
        )

    @pytest.mark.parametrize("fit_intercept", [True, False])
    def test_statistics_clipped_against_rounding(self, fit_intercept):
        # Reviewer: 1.0 and 1.0000000000000002 (1.0000000000000004 without intercept).
        rng = np.random.default_rng(20261121)
        for _ in range(30):
            Xw = rng.normal(size=(5, 10))
            yw = np.array([0, 1, 2, 3, 1.0])
            res = kappa_regression(Xw, yw, fit_intercept=fit_intercept)
            assert res.statistic <= 1.0
            assert res.least_squares_statistic <= res.statistic
            assert res.statistic == pytest.approx(1.0)
        rng = np.random.default_rng(0)
        Xw = rng.normal(size=(5, 10))
        res = kappa_regression(Xw, [0, 1, 2, 3, 1.0], fit_intercept=fit_intercept)
        assert -1.0 <= res.least_squares_statistic <= res.statistic <= 1.0

    def test_result_arrays_are_read_only_copies(self):
        import copy
        import pickle

        X, y, _ = _data(n=30, d=3)
        res = kappa_regression(X, y)
        for other in (pickle.loads(pickle.dumps(res)), copy.deepcopy(res)):
            assert not other.coef.flags.writeable
            np.testing.assert_array_equal(other.coef, res.coef)
            np.testing.assert_array_equal(other.predict(X), res.predict(X))
            assert other.statistic == res.statistic

    def test_data_frames_of_nullable_dtypes(self):
        import pandas as pd

        X, y, _ = _data(n=20, d=2)
        frame = pd.DataFrame({"a": pd.array(X[:, 0], dtype="Float64"), "b": X[:, 1]})
        ref = kappa_regression(X, y)
        np.testing.assert_array_equal(kappa_regression(frame, y).coef, ref.coef)
        frame.loc[3, "a"] = pd.NA  # was a TypeError from float()
        with pytest.raises(
            ValueError, match=r"`X` has a missing value \(<NA>\) at row 3, column 'a'"
        ):
            kappa_regression(frame, y)

    @pytest.mark.parametrize(
        ("X", "exc", "match"),
        [
            (np.array([["1.5", "2"]] * 5), TypeError, r"`X` must be numeric; got dtype <U3"),
            (
                np.array(["2020-01-01", "2020-01-02"] * 5, dtype="datetime64[D]").reshape(5, 2),
                TypeError,
                r"`X` must be numeric; got dtype datetime64",
            ),
            (
                np.array([[1.0, "2"]] * 5, dtype=object),
                TypeError,
                r"`X` must be numeric; got str '2' at row 0, column 1",
            ),
            ([[1.0, 2.0], [3.0]] * 3, ValueError, r"`X` must be a rectangular array"),
        ],
    )
    def test_non_numeric_features_are_refused(self, X, exc, match):
        # Were silently converted: datetimes to nanoseconds, "1.5" to 1.5.
        with pytest.raises(exc, match=match):
            kappa_regression(X, [1, 2, 3, 1, 2])


def _exact_ridge_direction(X, y, alpha):
    """argmin ‖X_c·β − y_c‖² + α‖β‖² in rational arithmetic (Gauss elimination)."""
    from fractions import Fraction

    rows = [[Fraction(float(v)) for v in row] for row in X]
    ys = [Fraction(float(v)) for v in y]
    n, d = len(rows), len(rows[0])
    means = [sum(r[j] for r in rows) / n for j in range(d)]
    xc = [[r[j] - means[j] for j in range(d)] for r in rows]
    ym = sum(ys) / n
    yc = [v - ym for v in ys]
    a = [
        [sum(r[i] * r[j] for r in xc) + (Fraction(alpha) if i == j else 0) for j in range(d)]
        + [sum(r[i] * t for r, t in zip(xc, yc, strict=True))]
        for i in range(d)
    ]
    for i in range(d):
        for k in range(i + 1, d):
            f = a[k][i] / a[i][i]
            a[k] = [u - f * v for u, v in zip(a[k], a[i], strict=True)]
    beta = [Fraction(0)] * d
    for i in reversed(range(d)):
        beta[i] = (a[i][d] - sum(a[i][j] * beta[j] for j in range(i + 1, d))) / a[i][i]
    return np.array([float(b) for b in beta])


class TestKappaRescale:
    @pytest.mark.parametrize("weights", [False, True])
    def test_matches_scipy_optimum(self, weights):
        rng = np.random.default_rng(20261121)
        n = 200
        y = rng.integers(1, 6, n).astype(float)
        s = 0.3 * y + rng.normal(0, 0.8, n) - 4.0
        w = rng.integers(0, 4, n).astype(float) if weights else None
        res = kappa_rescale(y, s, sample_weight=w)
        kappa, b, c = scipy_kappa_regression(s[:, None], y, w)
        assert res.statistic == pytest.approx(kappa, rel=RTOL)
        assert res.slope == pytest.approx(c[0], rel=RTOL)
        assert res.intercept == pytest.approx(b, rel=RTOL)
        assert res.statistic == pytest.approx(
            soft_kappa_score(y, res.predict(s), sample_weight=w), rel=1e-12
        )

    def test_closed_form_mean_sd_sign(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 4, 80).astype(float)
        s = -2.0 * y + rng.normal(0, 1.5, 80)  # negatively correlated scores
        w = rng.uniform(0.1, 3, 80)
        res = kappa_rescale(y, s, sample_weight=w)
        r = _wcorr(y, s, w)
        ys = np.sqrt(np.average((y - np.average(y, weights=w)) ** 2, weights=w))
        ss = np.sqrt(np.average((s - np.average(s, weights=w)) ** 2, weights=w))
        assert res.slope == pytest.approx(np.sign(r) * ys / ss, rel=1e-12)
        assert res.slope < 0
        assert res.intercept == pytest.approx(
            np.average(y, weights=w) - res.slope * np.average(s, weights=w), rel=1e-12
        )
        assert res.statistic == pytest.approx(abs(r), rel=1e-12)

    def test_equals_single_feature_regression(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 4, 50)
        s = y + rng.normal(0, 1, 50)
        a = kappa_rescale(y, s)
        b = kappa_regression(s[:, None], y)
        assert (a.intercept, a.slope, a.statistic) == (b.intercept, b.coef[0], b.statistic)

    @settings(max_examples=40)
    @given(st.integers(0, 10_000))
    def test_beats_any_affine_map(self, seed):
        rng = np.random.default_rng(seed)
        y = rng.integers(0, 5, 25).astype(float)
        y[:2] = [0.0, 4.0]
        s = rng.normal(0, 1, 25) + rng.normal(0, 1) * y
        res = kappa_rescale(y, s)
        for _ in range(20):
            f = rng.normal(0, 3) + rng.normal(0, 3) * s
            assert soft_kappa_score(y, f) <= res.statistic + 1e-12

    def test_weights_equal_repeated_rows(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 5, 40)
        s = y + rng.normal(0, 2, 40)
        w = rng.integers(0, 4, 40)
        a = kappa_rescale(y, s, sample_weight=w)
        b = kappa_rescale(np.repeat(y, w), np.repeat(s, w))
        assert a.slope == pytest.approx(b.slope, rel=1e-12)
        assert a.intercept == pytest.approx(b.intercept, rel=1e-12)
        assert a.statistic == pytest.approx(b.statistic, rel=1e-12)

    @pytest.mark.parametrize("s", [[5.0] * 6, [1.0, -1, 1, -1, 0, 0]])
    def test_degenerate_scores_give_the_mean(self, s):
        y = [1, 1, 2, 2, 3, 3]
        res = kappa_rescale(y, s)
        assert (res.intercept, res.slope, res.statistic) == (2.0, 0.0, 0.0)
        np.testing.assert_array_equal(res.predict(s), [2.0] * 6)

    def test_result_type(self):
        res = kappa_rescale([1, 2, 3], [0.1, 0.5, 0.4])
        assert isinstance(res, qwkit.KappaRescaleResult)
        assert all(type(v) is float for v in (res.intercept, res.slope, res.statistic))
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.slope = 1.0

    @pytest.mark.parametrize(
        ("y", "s", "exc", "match"),
        [
            ([1, 2, 3], [0.1, 0.2], ValueError, r"same length; got 3 and 2"),
            ([1, 2, 3], [0.1, np.inf, 0.3], ValueError, r"`y_score` contains inf"),
            ([1, np.nan, 3], [0.1, 0.2, 0.3], ValueError, r"`y_true` has a missing value \(nan\)"),
            ([2, 2, 2], [0.1, 0.2, 0.3], ValueError, r"`y_true` must take at least two"),
            # the Python value, not np.float64(2.0)
            ([2.0, 2, 2], [0.1, 0.2, 0.3], ValueError, r"got the single value 2\.0\. Kappa"),
            ([1, 2, 3], [[0.1, 0.2, 0.3]], ValueError, r"`y_score` must be 1-D"),
            ([1, 2, 3], ["a", "b", "c"], TypeError, r"`y_score` must be numeric"),
        ],
    )
    def test_bad_input(self, y, s, exc, match):
        with pytest.raises(exc, match=match):
            kappa_rescale(y, s)


def test_predict_checks_data_frame_columns():
    import pandas as pd

    rng = np.random.default_rng(20261121)
    X = rng.normal(size=(30, 3))
    y = np.round(X @ [1, 2, 0.5] + 3)
    model = qwkit.kappa_regression(pd.DataFrame(X, columns=list("abc")), y)
    assert model.feature_names == ("a", "b", "c")
    by_name = model.predict(pd.DataFrame(X, columns=list("abc")))
    np.testing.assert_allclose(by_name, model.predict(X), rtol=1e-12)
    with pytest.raises(ValueError, match="fitted on columns"):
        model.predict(pd.DataFrame(X[:, ::-1], columns=list("cba")))
