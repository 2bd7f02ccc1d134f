"""Tests of qwkit.sklearn: KappaRegressor, OptimalRounder, kappa_scorer, soft_kappa_scorer."""

from __future__ import annotations

import functools
import os
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.ensemble import ExtraTreesRegressor
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import qwkit
from qwkit._base._extras import install_command
from qwkit.sklearn import KappaRegressor, OptimalRounder, kappa_scorer, soft_kappa_scorer

SEED = 20261121


def _ordinal_data(n=200, rng=None):
    """Features and integer ratings 0..4 of a noisy linear latent score."""
    rng = np.random.default_rng(SEED) if rng is None else rng
    X = rng.normal(size=(n, 3))
    latent = 1.5 + X @ np.array([1.0, 0.5, -0.3]) + 0.8 * rng.normal(size=n)
    y = np.clip(np.rint(latent), 0, 4).astype(np.int64)
    return X, y


# ---------------------------------------------------------------------------- check_estimator


def _expected_failed_checks(estimator):
    if isinstance(estimator, OptimalRounder):
        return {
            "check_classifiers_classes": (
                "qwkit's rating scale: integer ratings span every integer from the smallest "
                "to the largest, so y in {-1, 1} gives classes_ [-1, 0, 1], not np.unique(y) "
                "(docs/kappa.md §2, 'The rating scale'; pass `labels` to choose)."
            )
        }
    return {}


def _check_name(check) -> str:
    return check.func.__name__ if isinstance(check, functools.partial) else check.__name__


_ESTIMATORS = [
    KappaRegressor(),
    KappaRegressor(alpha=1.0, fit_intercept=False),
    OptimalRounder(),
    OptimalRounder(LinearRegression(), cv=None),
]


@pytest.fixture(scope="module")
def array_api_checks() -> dict[str, str]:
    """``check_array_api_input`` of every estimator, run for real in one fresh interpreter
    (the check needs SCIPY_ARRAY_API=1 set before scipy is imported; it raises SkipTest
    otherwise): estimator's repr → "" when it passed, else the error (-W error)."""
    code = (
        "import traceback\n"
        "from sklearn.linear_model import LinearRegression\n"
        "from sklearn.utils.estimator_checks import check_array_api_input\n"
        "from qwkit.sklearn import KappaRegressor, OptimalRounder\n"
        f"for est in [{', '.join(map(repr, _ESTIMATORS))}]:\n"
        "    try:\n"
        "        check_array_api_input(type(est).__name__, est, array_namespace='numpy', "
        "expect_only_array_outputs=False)\n"
        "        said = ''\n"
        "    except Exception:\n"
        "        said = traceback.format_exc().replace('\\n', ' | ')\n"
        "    print(repr(est).replace('\\n', ' ') + '\\t' + said)\n"
    )
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(line.split("\t", 1) for line in done.stdout.splitlines())


class TestCheckEstimator:
    @parametrize_with_checks(_ESTIMATORS, expected_failed_checks=_expected_failed_checks)
    def test_sklearn_compatible(self, estimator, check, request):
        if _check_name(check) == "check_array_api_input" and not os.environ.get("SCIPY_ARRAY_API"):
            results = request.getfixturevalue("array_api_checks")
            assert results[repr(estimator).replace("\n", " ")] == ""
            return
        check(estimator)


# ---------------------------------------------------------------------------- KappaRegressor


class TestKappaRegressor:
    def test_matches_kappa_regression(self):
        X, y = _ordinal_data()
        sw = np.random.default_rng(SEED).integers(1, 4, size=y.shape[0])
        for alpha, fit_intercept in [(0.0, True), (2.5, True), (0.0, False), (2.5, False)]:
            model = KappaRegressor(alpha=alpha, fit_intercept=fit_intercept)
            model.fit(X, y, sample_weight=sw)
            res = qwkit.kappa_regression(
                X, y, alpha=alpha, fit_intercept=fit_intercept, sample_weight=sw
            )
            np.testing.assert_array_equal(model.coef_, res.coef)
            assert model.intercept_ == res.intercept
            assert model.statistic_ == res.statistic
            assert model.rank_ == res.rank
            np.testing.assert_allclose(model.predict(X), res.predict(X), rtol=1e-14)
            assert isinstance(model.intercept_, float)
            assert model.n_features_in_ == 3

    def test_score_is_soft_kappa_not_r2(self):
        X, y = _ordinal_data()
        model = KappaRegressor().fit(X, y)
        pred = model.predict(X)
        assert model.score(X, y) == qwkit.soft_kappa_score(y, pred)
        # In-sample, the kappa-optimal model is least squares scaled by 1/r, so its R² is
        # 2r − 1 with r = corr(y, ŷ) = its soft kappa (docs/sklearn.md).
        r = model.score(X, y)
        np.testing.assert_allclose(r2_score(y, pred), 2 * r - 1, rtol=1e-10)
        assert r2_score(y, pred) < r2_score(y, LinearRegression().fit(X, y).predict(X))

    def test_score_sample_weight(self):
        X, y = _ordinal_data()
        sw = np.random.default_rng(SEED).uniform(0.5, 2.0, size=y.shape[0])
        model = KappaRegressor().fit(X, y)
        expected = qwkit.soft_kappa_score(y, model.predict(X), sample_weight=sw)
        assert model.score(X, y, sample_weight=sw) == expected

    def test_integer_weights_are_repeated_rows(self):
        X, y = _ordinal_data(60)
        sw = np.random.default_rng(SEED).integers(0, 4, size=y.shape[0])
        weighted = KappaRegressor(alpha=0.3).fit(X, y, sample_weight=sw)
        repeated = KappaRegressor(alpha=0.3).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
        np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-10)
        np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-10)

    def test_predict_is_exact_for_features_far_from_zero(self):
        # predict used X @ coef_ + intercept_, which cancels catastrophically here.
        rng = np.random.default_rng(SEED)
        noise = rng.normal(size=(200, 3))
        y = np.clip(np.round(2 + noise @ [1.0, 0.5, -0.5] + rng.normal(size=200)), 0, 4)
        X = 1e8 + 1e-4 * noise
        model = KappaRegressor().fit(X, y)
        assert model.score(X, y) == pytest.approx(model.statistic_, rel=1e-12)
        ref = KappaRegressor().fit(X - 1e8, y)
        np.testing.assert_allclose(model.predict(X), ref.predict(X - 1e8), rtol=1e-10)

    def test_pipeline_with_scaler(self):
        # Standardizing the features is an invertible affine map of X, so the unpenalized
        # kappa-optimal model and its predictions do not change.
        X, y = _ordinal_data()
        X = X * np.array([1e3, 1.0, 1e-2]) + 50.0
        pipe = make_pipeline(StandardScaler(), KappaRegressor()).fit(X, y)
        plain = KappaRegressor().fit(X, y)
        np.testing.assert_allclose(pipe.predict(X), plain.predict(X), rtol=1e-9)
        assert pipe.score(X, y) == pytest.approx(plain.score(X, y), rel=1e-12)

    def test_feature_names(self):
        X, y = _ordinal_data()
        df = pd.DataFrame(X, columns=["a", "b", "c"])
        model = KappaRegressor().fit(df, y)
        np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
        np.testing.assert_allclose(model.predict(df), X @ model.coef_ + model.intercept_)
        with pytest.raises(ValueError, match="feature names"):
            model.predict(df[["c", "b", "a"]])
        assert not hasattr(KappaRegressor().fit(X, y), "feature_names_in_")

    def test_clone_get_params_round_trip(self):
        model = KappaRegressor(alpha=0.7, fit_intercept=False)
        assert model.get_params() == {"alpha": 0.7, "fit_intercept": False}
        twin = clone(model)
        assert twin is not model
        assert twin.get_params() == model.get_params()
        assert KappaRegressor(**model.get_params()).get_params() == model.get_params()
        assert model.set_params(alpha=2.0) is model
        assert model.alpha == 2.0

    def test_pickle(self):
        X, y = _ordinal_data()
        model = KappaRegressor(alpha=0.5).fit(X, y)
        back = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(back.predict(X), model.predict(X))
        assert back.statistic_ == model.statistic_

    def test_grid_search_over_alpha(self):
        X, y = _ordinal_data(150)
        alphas = [0.0, 1.0, 100.0]
        cv = KFold(4, shuffle=True, random_state=SEED)
        search = GridSearchCV(
            KappaRegressor(), {"alpha": alphas}, scoring=soft_kappa_scorer, cv=cv
        ).fit(X, y)
        # Oracle: the same folds by hand.
        means = []
        for alpha in alphas:
            scores = []
            for train, test in cv.split(X):
                m = KappaRegressor(alpha=alpha).fit(X[train], y[train])
                scores.append(qwkit.soft_kappa_score(y[test], m.predict(X[test])))
            means.append(np.mean(scores))
        np.testing.assert_allclose(search.cv_results_["mean_test_score"], means, rtol=1e-12)
        assert search.best_params_ == {"alpha": alphas[int(np.argmax(means))]}
        # The estimator's own score is the same soft kappa: GridSearchCV without scoring.
        default = GridSearchCV(KappaRegressor(), {"alpha": alphas}, cv=cv).fit(X, y)
        np.testing.assert_allclose(default.cv_results_["mean_test_score"], means, rtol=1e-12)

    def test_bad_inputs(self):
        X, y = _ordinal_data(30)
        with pytest.raises(ValueError, match=r"`alpha`.*-1"):
            KappaRegressor(alpha=-1.0).fit(X, y)
        with pytest.raises(TypeError, match="`alpha`"):
            KappaRegressor(alpha="big").fit(X, y)
        with pytest.raises(TypeError, match=r"`fit_intercept`.*'yes'"):
            KappaRegressor(fit_intercept="yes").fit(X, y)
        with pytest.raises(ValueError, match="`y` must take at least two distinct values"):
            KappaRegressor().fit(X, np.full(30, 3))
        bad = X.copy()
        bad[4, 1] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            KappaRegressor().fit(bad, y)
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            KappaRegressor().fit(X, y[:-1])
        with pytest.raises(ValueError, match="1 sample"):
            KappaRegressor().fit(X[:1], y[:1])
        with pytest.raises(ValueError, match=r"`sample_weight`.*-1"):
            KappaRegressor().fit(X, y, sample_weight=np.r_[-1.0, np.ones(29)])
        with pytest.raises(NotFittedError):
            KappaRegressor().predict(X)
        model = KappaRegressor().fit(X, y)
        with pytest.raises(ValueError, match="expecting 3 features"):
            model.predict(X[:, :2])


# ---------------------------------------------------------------------------- scorers


class TestKappaScorer:
    def test_matches_kappa_score(self):
        X, y = _ordinal_data()
        model = OptimalRounder(cv=None).fit(X, y)
        assert kappa_scorer(model, X, y) == qwkit.kappa_score(y, model.predict(X))
        sw = np.random.default_rng(SEED).uniform(0.5, 2.0, size=y.shape[0])
        assert kappa_scorer(model, X, y, sample_weight=sw) == qwkit.kappa_score(
            y, model.predict(X), sample_weight=sw
        )

    def test_cross_val_score(self):
        X, y = _ordinal_data()
        cv = KFold(4, shuffle=True, random_state=SEED)
        got = cross_val_score(OptimalRounder(cv=3), X, y, scoring=kappa_scorer, cv=cv)
        expected = [
            qwkit.kappa_score(
                y[test], OptimalRounder(cv=3).fit(X[train], y[train]).predict(X[test])
            )
            for train, test in cv.split(X)
        ]
        np.testing.assert_allclose(got, expected, rtol=1e-14)

    def test_grid_search_alpha_of_rounded_model(self):
        X, y = _ordinal_data(150)
        cv = KFold(3, shuffle=True, random_state=SEED)
        grid = {"estimator__alpha": [0.0, 10.0, 1000.0]}
        rounder = OptimalRounder(KappaRegressor(), cv=3)
        search = GridSearchCV(rounder, grid, scoring=kappa_scorer, cv=cv)
        search.fit(X, y)
        means = [
            np.mean(
                [
                    qwkit.kappa_score(
                        y[te],
                        OptimalRounder(KappaRegressor(alpha=a), cv=3)
                        .fit(X[tr], y[tr])
                        .predict(X[te]),
                    )
                    for tr, te in cv.split(X)
                ]
            )
            for a in grid["estimator__alpha"]
        ]
        np.testing.assert_allclose(search.cv_results_["mean_test_score"], means, rtol=1e-14)
        assert isinstance(search.best_estimator_.estimator_, KappaRegressor)

    def test_continuous_predictions_are_refused(self):
        X, y = _ordinal_data()
        model = KappaRegressor().fit(X, y)
        with pytest.raises(ValueError, match="soft_kappa_score"):
            kappa_scorer(model, X, y)

    def test_soft_kappa_scorer(self):
        X, y = _ordinal_data()
        model = Ridge().fit(X, y)
        assert soft_kappa_scorer(model, X, y) == qwkit.soft_kappa_score(y, model.predict(X))


# ---------------------------------------------------------------------------- OptimalRounder


class _NaNRegressor(RegressorMixin, BaseEstimator):
    """A regressor whose predictions are NaN (to test the guard on its scores)."""

    def fit(self, X, y):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.full(np.asarray(X).shape[0], np.nan)


class _NoWeights(RegressorMixin, BaseEstimator):
    """LinearRegression without `sample_weight` in fit."""

    def fit(self, X, y):
        self.model_ = LinearRegression().fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


class _MustNotFit(RegressorMixin, BaseEstimator):
    """A regressor that fails the test if it is ever fitted."""

    def fit(self, X, y, sample_weight=None):
        raise AssertionError("fit must not be reached")

    def predict(self, X):  # pragma: no cover - never fitted
        raise AssertionError("predict must not be reached")


class TestOptimalRounder:
    def test_out_of_fold_thresholds_then_refit(self):
        X, y = _ordinal_data()
        model = OptimalRounder(LinearRegression(), cv=4).fit(X, y)
        # Oracle: out-of-fold scores on a StratifiedKFold of the ratings, exact thresholds,
        # then least squares on all the data.
        oof = cross_val_predict(
            LinearRegression(), X, y.astype(float), cv=StratifiedKFold(4).split(X, y)
        )
        res = qwkit.optimize_thresholds(y, oof)
        np.testing.assert_array_equal(model.thresholds_, res.thresholds)
        assert model.threshold_result_.statistic == res.statistic
        full = LinearRegression().fit(X, y)
        np.testing.assert_allclose(model.estimator_.coef_, full.coef_, rtol=1e-12)
        np.testing.assert_allclose(model.predict_score(X), full.predict(X), rtol=1e-12)
        expected = qwkit.apply_thresholds(full.predict(X), res.thresholds, labels=np.arange(5))
        np.testing.assert_array_equal(model.predict(X), expected)
        np.testing.assert_array_equal(model.classes_, np.arange(5))
        assert model.n_features_in_ == 3

    def test_default_estimator_is_kappa_regressor(self):
        X, y = _ordinal_data()
        model = OptimalRounder().fit(X, y)
        assert isinstance(model.estimator_, KappaRegressor)
        assert OptimalRounder().estimator is None  # not replaced in the parameters
        # In-sample, kappa-optimal scores are an increasing affine map of least squares',
        # so the cut points move with them and the classes are the same.
        kappa = OptimalRounder(cv=None).fit(X, y)
        least_squares = OptimalRounder(LinearRegression(), cv=None).fit(X, y)
        np.testing.assert_array_equal(kappa.predict(X), least_squares.predict(X))
        assert not np.allclose(kappa.thresholds_, least_squares.thresholds_)

    def test_cv_none_uses_in_sample_scores(self):
        X, y = _ordinal_data()
        model = OptimalRounder(cv=None).fit(X, y)
        res = qwkit.optimize_thresholds(y, KappaRegressor().fit(X, y).predict(X))
        np.testing.assert_array_equal(model.thresholds_, res.thresholds)
        # In-sample, the rounded kappa is the optimum over all cut points: no other
        # rounding of the same scores does better, plain rounding included.
        assert model.score(X, y) == pytest.approx(res.statistic, rel=1e-12)
        plain = np.clip(np.rint(model.predict_score(X)), 0, 4)
        assert model.score(X, y) >= qwkit.kappa_score(y, plain)

    def test_prefit_with_frozen_estimator(self):
        X, y = _ordinal_data()
        prefit = LinearRegression().fit(X[:100], y[:100])
        coef = prefit.coef_.copy()
        model = OptimalRounder(FrozenEstimator(prefit), cv=None).fit(X[100:], y[100:])
        np.testing.assert_array_equal(model.estimator_.estimator.coef_, coef)  # not refitted
        res = qwkit.optimize_thresholds(y[100:], prefit.predict(X[100:]))
        np.testing.assert_array_equal(model.thresholds_, res.thresholds)

    def test_prefit_string_is_refused(self):
        X, y = _ordinal_data(40)
        with pytest.raises(ValueError, match=r"`cv`.*'prefit'.*FrozenEstimator"):
            OptimalRounder(cv="prefit").fit(X, y)

    def test_string_labels_in_given_order(self):
        X, y = _ordinal_data()
        scale = np.array(["none", "mild", "moderate", "severe", "critical"])
        names = scale[y]
        model = OptimalRounder(LinearRegression(), labels=scale, cv=None).fit(X, names)
        np.testing.assert_array_equal(model.classes_, scale)
        # Strings are regressed on their positions 0..K−1 on the scale.
        full = LinearRegression().fit(X, y.astype(float))
        np.testing.assert_allclose(model.predict_score(X), full.predict(X), rtol=1e-12)
        pred = model.predict(X)
        assert set(pred) <= set(scale)
        numeric = OptimalRounder(LinearRegression(), cv=None).fit(X, y)
        np.testing.assert_array_equal(pred, scale[numeric.predict(X)])
        assert model.score(X, names) == pytest.approx(numeric.score(X, y), rel=1e-14)

    def test_integer_scale_keeps_missing_middle_class(self):
        X, y = _ordinal_data()
        y = np.where(y == 2, 3, y)  # rating 2 never occurs
        model = OptimalRounder(cv=None).fit(X, y)
        np.testing.assert_array_equal(model.classes_, [0, 1, 2, 3, 4])
        with_labels = OptimalRounder(cv=None, labels=[0, 1, 3, 4]).fit(X, y)
        np.testing.assert_array_equal(with_labels.classes_, [0, 1, 3, 4])
        # On an explicit numeric scale the regressor still learns the ratings themselves.
        np.testing.assert_allclose(with_labels.predict_score(X), model.predict_score(X), rtol=1e-12)

    def test_half_point_ratings_with_labels(self):
        X, y = _ordinal_data()
        half = y / 2  # ratings 0, 0.5, ..., 2: a real scale, accepted with `labels`
        model = OptimalRounder(LinearRegression(), labels=np.arange(5) / 2, cv=None)
        model.fit(X, half)
        np.testing.assert_array_equal(model.classes_, np.arange(5) / 2)
        integer = OptimalRounder(LinearRegression(), cv=None).fit(X, y)
        np.testing.assert_array_equal(model.predict(X), integer.predict(X) / 2)
        np.testing.assert_allclose(model.predict_score(X), integer.predict_score(X) / 2)

    def test_score_uses_weights_and_scale(self):
        X, y = _ordinal_data()
        for weights in ["linear", "identity", np.abs(np.subtract.outer(range(5), range(5)))]:
            model = OptimalRounder(weights=weights, cv=None).fit(X, y)
            expected = qwkit.kappa_score(
                y, model.predict(X), weights=weights, labels=model.classes_
            )
            assert model.score(X, y) == expected
            res = qwkit.optimize_thresholds(
                y, model.predict_score(X), weights=weights, labels=np.arange(5)
            )
            np.testing.assert_array_equal(model.thresholds_, res.thresholds)

    def test_integer_weights_are_repeated_rows(self):
        X, y = _ordinal_data(80)
        sw = np.random.default_rng(SEED).integers(1, 4, size=y.shape[0])
        weighted = OptimalRounder(cv=None).fit(X, y, sample_weight=sw)
        repeated = OptimalRounder(cv=None).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
        np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
        np.testing.assert_allclose(weighted.thresholds_, repeated.thresholds_, rtol=1e-9)
        # The weights reach the thresholds: they differ from an unweighted fit here.
        unweighted = OptimalRounder(cv=None).fit(X, y)
        assert not np.allclose(unweighted.thresholds_, weighted.thresholds_)

    def test_pandas_and_pickle(self):
        X, y = _ordinal_data()
        df = pd.DataFrame(X, columns=["a", "b", "c"])
        model = OptimalRounder().fit(df, pd.Series(y))
        np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
        np.testing.assert_array_equal(model.estimator_.feature_names_in_, ["a", "b", "c"])
        plain = OptimalRounder().fit(X, y)
        np.testing.assert_array_equal(model.predict(df), plain.predict(X))
        with pytest.raises(ValueError, match="feature names"):
            model.predict(df[["b", "a", "c"]])
        back = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(back.predict(df), model.predict(df))
        np.testing.assert_array_equal(back.thresholds_, model.thresholds_)
        assert back.threshold_result_.statistic == model.threshold_result_.statistic

    def test_clone_get_params_round_trip(self):
        model = OptimalRounder(Ridge(alpha=3.0), labels=[1, 2, 3], weights="linear", cv=3)
        params = model.get_params()
        assert params["estimator__alpha"] == 3.0
        assert {k: params[k] for k in ("labels", "weights", "cv")} == {
            "labels": [1, 2, 3],
            "weights": "linear",
            "cv": 3,
        }
        twin = clone(model)
        assert twin.estimator is not model.estimator
        assert twin.get_params()["estimator__alpha"] == 3.0
        model.set_params(estimator__alpha=0.5, cv=None)
        assert model.estimator.alpha == 0.5 and model.cv is None

    @staticmethod
    def _wine_split():
        wine = qwkit.load_wine_quality()
        perm = np.random.default_rng(SEED).permutation(wine.y.shape[0])
        train, test = perm[:1000], perm[1000:]
        assert np.bincount(wine.y[train])[3] >= 5  # every quality spans the 5 folds
        return wine.X[train], wine.y[train], wine.X[test], wine.y[test]

    def test_wine_beats_plain_rounding_out_of_sample(self):
        # Held-out QWK on the bundled red wine data (qwkit.load_wine_quality), 1000 wines
        # to train, 599 to test: least squares rounded to the nearest quality versus the
        # same least squares cut by exact thresholds fitted on its 5-fold out-of-fold
        # scores. Measured on this split: plain 0.4475, OptimalRounder 0.5572 (+0.110).
        X, y, X_test, y_test = self._wine_split()
        scale = np.arange(3, 9)
        lr = LinearRegression().fit(X, y)
        plain = np.clip(np.rint(lr.predict(X_test)), 3, 8).astype(np.int64)
        plain_kappa = qwkit.kappa_score(y_test, plain, labels=scale)
        model = OptimalRounder(LinearRegression()).fit(X, y)
        rounded_kappa = model.score(X_test, y_test)
        assert rounded_kappa == qwkit.kappa_score(y_test, model.predict(X_test), labels=scale)
        assert plain_kappa == pytest.approx(0.4475, abs=5e-4)
        assert rounded_kappa == pytest.approx(0.5572, abs=5e-4)
        assert rounded_kappa > plain_kappa + 0.1

    def test_wine_out_of_fold_beats_in_sample_for_a_flexible_model(self):
        # Extremely randomized trees fit the training ratings almost exactly, so
        # thresholds fitted on in-sample scores learn nothing about new wines; fitted on
        # out-of-fold scores they do. Measured: plain rounding 0.5800, in-sample
        # thresholds 0.5841, out-of-fold thresholds 0.6297.
        X, y, X_test, y_test = self._wine_split()
        trees = ExtraTreesRegressor(n_estimators=50, random_state=0)
        plain = np.clip(np.rint(clone(trees).fit(X, y).predict(X_test)), 3, 8).astype(int)
        plain_kappa = qwkit.kappa_score(y_test, plain, labels=np.arange(3, 9))
        in_sample = OptimalRounder(trees, cv=None).fit(X, y).score(X_test, y_test)
        out_of_fold = OptimalRounder(trees).fit(X, y).score(X_test, y_test)
        # Relative claims only: tree ensembles' exact numbers move across sklearn versions.
        assert out_of_fold > in_sample + 0.03
        assert out_of_fold > plain_kappa + 0.03

    def test_rare_class_warns_through_stratified_folds(self):
        X, y = _ordinal_data(60)
        y[:2] = 5  # a class with two members cannot be spread over five folds
        with pytest.warns(UserWarning, match="least populated class"):
            OptimalRounder(LinearRegression()).fit(X, y)

    def test_scale_problems_are_found_before_any_fit(self):
        # A `weights` matrix of the wrong size was reported after all the CV fits, naming
        # `y_true`; a scale of more than 10,000 classes too.
        X, y = _ordinal_data(60)
        with pytest.raises(ValueError, match=r"`weights` has shape \(3, 3\) .* `y` has 5"):
            OptimalRounder(_MustNotFit(), weights=np.ones((3, 3))).fit(X, y)
        with pytest.raises(ValueError, match="`labels` has 12000 categories"):
            OptimalRounder(_MustNotFit(), labels=np.arange(12_000)).fit(X, y)

    def test_classes_and_thresholds_are_copies(self):
        X, y = _ordinal_data(80)
        labels = np.arange(5)
        model = OptimalRounder(labels=labels, cv=None).fit(X, y)
        assert model.classes_ is not labels
        before = model.predict(X)
        labels[:] = [9, 9, 9, 9, 9]  # the caller's array changes afterwards
        np.testing.assert_array_equal(model.classes_, np.arange(5))
        np.testing.assert_array_equal(model.predict(X), before)
        assert not np.shares_memory(model.thresholds_, model.threshold_result_.thresholds)

    def test_zero_weights_are_dropped_rows_without_cv(self):
        # docs/sklearn.md: with cv=None a zero weight equals removing the row (for a
        # regressor that treats zero weights as absent, as KappaRegressor does).
        X, y = _ordinal_data(80)
        sw = np.random.default_rng(SEED).integers(0, 3, size=y.shape[0]).astype(float)
        weighted = OptimalRounder(cv=None).fit(X, y, sample_weight=sw)
        kept = sw > 0
        dropped = OptimalRounder(cv=None).fit(X[kept], y[kept], sample_weight=sw[kept])
        np.testing.assert_allclose(weighted.thresholds_, dropped.thresholds_, rtol=1e-12)
        assert weighted.threshold_result_.statistic == pytest.approx(
            dropped.threshold_result_.statistic, rel=1e-12
        )

    def test_bad_inputs(self):
        X, y = _ordinal_data(60)
        with pytest.raises(ValueError, match=r"two classes.*one class"):
            OptimalRounder().fit(X, np.full(60, 2))
        with pytest.raises(ValueError, match="two classes"):
            OptimalRounder().fit(X, y, sample_weight=(y == 1).astype(float))
        with pytest.raises(ValueError, match="Unknown label type: continuous"):
            OptimalRounder().fit(X, y + 0.5)
        with pytest.raises(ValueError, match="`y` contains 7"):
            OptimalRounder(labels=[0, 1, 2, 3, 4]).fit(X, np.r_[7, y[1:]])
        with pytest.raises(ValueError, match="`y` contains 'x'"):
            OptimalRounder(labels=["a", "b"]).fit(X, np.r_[["x"], ["a", "b"] * 29, ["a"]])
        with pytest.raises(ValueError, match="spans 1000000001 integer categories"):
            OptimalRounder().fit(X, np.r_[0, 10**9, y[2:]])
        with pytest.raises(ValueError, match="`weights` must be"):
            OptimalRounder(weights="cubic").fit(X, y)
        with pytest.raises(ValueError, match="`weights` has shape"):
            OptimalRounder(weights=np.ones((3, 3)), cv=None).fit(X, y)
        with pytest.raises(TypeError, match="`estimator` must be a scikit-learn regressor"):
            OptimalRounder(estimator=StandardScaler()).fit(X, y)
        with pytest.raises(TypeError, match="`sample_weight`"):
            OptimalRounder(_NoWeights()).fit(X, y, sample_weight=np.ones(60))
        with pytest.raises(ValueError, match="NaN or infinite out-of-fold"):
            OptimalRounder(_NaNRegressor()).fit(X, y)
        with pytest.raises(ValueError, match="NaN or infinite in-sample"):
            OptimalRounder(_NaNRegressor(), cv=None).fit(X, y)
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            OptimalRounder().fit(X, y[:-1])
        with pytest.raises(NotFittedError):
            OptimalRounder().predict(X)
        model = OptimalRounder().fit(X, y)
        with pytest.raises(ValueError, match="expecting 3 features"):
            model.predict(X[:, :2])
        # The wrong number of features is reported by the rounder, not its inner model.
        for method in (model.predict, model.predict_score):
            with pytest.raises(ValueError, match="but OptimalRounder is expecting 3 features"):
                method(X[:, :2])
        with pytest.raises(ValueError, match="but OptimalRounder is expecting 3 features"):
            OptimalRounder(LinearRegression()).fit(X, y).score(X[:, :2], y)

    @pytest.mark.parametrize("routing", [False, True])
    def test_sample_weight_whatever_metadata_routing(self, routing):
        import sklearn

        X, y = _ordinal_data(120)
        sw = np.random.default_rng(SEED).integers(1, 4, size=y.shape[0]).astype(float)
        with sklearn.config_context(enable_metadata_routing=False):
            reference = OptimalRounder(cv=3).fit(X, y, sample_weight=sw)
            unweighted = OptimalRounder(cv=3).fit(X, y)
        with sklearn.config_context(enable_metadata_routing=routing):
            model = OptimalRounder(cv=3).fit(X, y, sample_weight=sw)
            np.testing.assert_array_equal(model.thresholds_, reference.thresholds_)
            np.testing.assert_array_equal(model.estimator_.coef_, reference.estimator_.coef_)
            # A meta-estimator routes the weights to the rounder once it requests them.
            if routing:
                est = OptimalRounder(cv=3).set_fit_request(sample_weight=True)
                est = est.set_score_request(sample_weight=True)
                got = cross_val_score(est, X, y, cv=3, params={"sample_weight": sw})
                assert np.all(np.isfinite(got))
        # The weights matter: the weighted fit differs from the unweighted one.
        assert not np.array_equal(reference.estimator_.coef_, unweighted.estimator_.coef_)
        assert sklearn.get_config()["enable_metadata_routing"] is False

    def test_ordered_categorical_y_keeps_its_declared_order(self):
        X, y = _ordinal_data()
        order = ["none", "mild", "moderate", "severe", "critical"]  # not alphabetical
        cat = pd.Series(pd.Categorical(np.array(order)[y], categories=order, ordered=True))
        model = OptimalRounder(LinearRegression(), cv=None).fit(X, cat)
        np.testing.assert_array_equal(model.classes_, order)
        # Regressed on the positions on the declared scale, i.e. like the integers y.
        numeric = OptimalRounder(LinearRegression(), cv=None).fit(X, y)
        np.testing.assert_allclose(model.predict_score(X), numeric.predict_score(X), rtol=1e-12)
        np.testing.assert_array_equal(model.predict(X), np.array(order)[numeric.predict(X)])
        explicit = OptimalRounder(LinearRegression(), labels=order, cv=None).fit(X, cat)
        np.testing.assert_array_equal(explicit.thresholds_, model.thresholds_)
        # Numbers declared out of numeric order are regressed on their positions too.
        scale = [4, 3, 2, 1, 0]
        rev = pd.Series(pd.Categorical(4 - y, categories=scale, ordered=True))
        backwards = OptimalRounder(LinearRegression(), cv=None).fit(X, rev)
        np.testing.assert_array_equal(backwards.classes_, scale)
        np.testing.assert_allclose(backwards.predict_score(X), numeric.predict_score(X), rtol=1e-12)
        np.testing.assert_array_equal(backwards.predict(X), 4 - numeric.predict(X))
        # An unordered Categorical keeps qwkit's sorted rule.
        plain = pd.Series(pd.Categorical(np.array(order)[y], categories=order))
        np.testing.assert_array_equal(OptimalRounder(cv=None).fit(X, plain).classes_, sorted(order))


# ---------------------------------------------------------------------------- imports


class TestImports:
    def test_import_qwkit_does_not_import_sklearn(self):
        code = "import sys, qwkit; print('sklearn' in sys.modules)"
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == "False"

    def test_missing_sklearn_names_the_extra(self):
        code = (
            "import sys\n"
            "sys.modules['sklearn'] = None\n"
            "try:\n"
            "    import qwkit.sklearn\n"
            "except ImportError as exc:\n"
            "    print(exc)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert f"Install it with: {install_command('sklearn')}" in out.stdout


def test_optimal_rounder_keeps_its_out_of_fold_scores():
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    rng = np.random.default_rng(20261121)
    X = rng.normal(size=(120, 3))
    y = np.clip(np.round(1.5 + X @ [1.0, 0.5, 0.0] + rng.normal(size=120)), 0, 4)
    model = OptimalRounder(LinearRegression()).fit(X, y)
    expected = cross_val_predict(LinearRegression(), X, y, cv=StratifiedKFold(5))
    np.testing.assert_allclose(model.oof_score_, expected, rtol=1e-12)
    res = qwkit.optimize_thresholds(y, model.oof_score_, labels=model.classes_)
    np.testing.assert_array_equal(res.thresholds, model.thresholds_)
