"""qwkit.xgboost: objective and metric in XGBoost's native and scikit-learn APIs."""

from __future__ import annotations

import inspect
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
import xgboost as xgb
from sklearn.base import clone

import qwkit
from qwkit import kappa_gradient_hessian
from qwkit._base._extras import install_command
from qwkit.xgboost import KappaObjective, kappa_metric, kappa_objective

# one thread each, for the native and the scikit-learn API (the machine may be loaded)
NATIVE = {"nthread": 1}
ONE = {"n_jobs": 1}


@pytest.fixture(scope="module")
def wine():
    """800 training and 500 held-out red wines (a seeded random split)."""
    data = qwkit.load_wine_quality("red")
    order = np.random.default_rng(20261121).permutation(len(data.y))
    tr, te = order[:800], order[800:1300]
    return data.X[tr], data.y[tr].astype(float), data.X[te], data.y[te]


def _held_out_qwk(wine, pred_train, pred_test):
    """(QWK of predictions rounded to the 3..8 scale, QWK after cut points fitted on the
    training predictions)."""
    _, y, _, y_test = wine
    scale = list(range(3, 9))
    rounded = np.clip(np.rint(pred_test), 3, 8).astype(int)
    cuts = qwkit.optimize_thresholds(y, pred_train, labels=scale)
    return (
        qwkit.kappa_score(y_test, rounded, labels=scale),
        qwkit.kappa_score(y_test, cuts.predict(pred_test), labels=scale),
    )


def _small(seed=20261121, n=40):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 6, n).astype(float)
    f = 0.5 * y + rng.normal(1.0, 1.0, n)
    w = rng.integers(1, 5, n).astype(float)
    return y, f, w


def _early_stop(curve, patience, lower_is_better=True):
    """The round early stopping keeps (0-based): the best so far, once `patience` rounds
    have passed without a strict improvement (first of ties), as both libraries do."""
    sign = 1.0 if lower_is_better else -1.0
    best = 0
    for i in range(1, len(curve)):
        if sign * curve[i] < sign * curve[best]:
            best = i
        elif i - best >= patience:
            break
    return best


# ============================================================================ objective


class TestObjective:
    @pytest.mark.parametrize("weighted", [False, True])
    def test_gradient_mode_is_kappa_gradient_hessian_times_half_d(self, weighted):
        y, f, w = _small()
        w = w if weighted else None
        grad, hess = KappaObjective(intercept="gradient")(y, f, sample_weight=w)
        g, h = kappa_gradient_hessian(y, f, sample_weight=w)
        wv = np.ones_like(y) if w is None else w
        ybar = wv @ y / wv.sum()
        den = wv @ (y - ybar) ** 2 + wv @ (f - ybar) ** 2  # D of (T1)
        np.testing.assert_allclose(grad, den / 2 * g, rtol=1e-10, atol=1e-13)  # (T10)
        np.testing.assert_allclose(hess, den / 2 * h, rtol=1e-12)
        np.testing.assert_array_equal(hess, wv)

    @pytest.mark.parametrize("weighted", [False, True])
    def test_exact_intercept_is_the_gradient_at_the_mean_corrected_prediction(self, weighted):
        y, f, w = _small(seed=3)
        w = w if weighted else None
        wv = np.ones_like(y) if w is None else w
        ybar, fbar = wv @ y / wv.sum(), wv @ f / wv.sum()
        shifted = f - fbar + ybar
        g, h = kappa_gradient_hessian(y, shifted, sample_weight=w)
        den_c = wv @ (y - ybar) ** 2 + wv @ (shifted - ybar) ** 2
        grad, hess = kappa_objective(y, f, sample_weight=w)
        np.testing.assert_allclose(grad, den_c / 2 * g + wv * (fbar - ybar), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hess, den_c / 2 * h, rtol=1e-12)  # (T13)

    @pytest.mark.parametrize("intercept", ["exact", "gradient"])
    def test_native_call_reads_labels_and_weights_from_the_dmatrix(self, intercept):
        y, f, w = _small(seed=5)
        X = np.random.default_rng(1).normal(size=(len(y), 2))
        objective = KappaObjective(intercept=intercept)
        native = objective(f, xgb.DMatrix(X, y, weight=w))
        sklearn_style = objective(y, f, sample_weight=w)
        np.testing.assert_allclose(native[0], sklearn_style[0], rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(native[1], sklearn_style[1])
        np.testing.assert_array_equal(objective(f, xgb.DMatrix(X, y))[1], np.ones(len(y)))

    def test_column_predictions_keep_their_shape(self):
        y, f, w = _small(seed=6)
        grad, hess = kappa_objective(y, f[:, None], sample_weight=w)
        assert grad.shape == hess.shape == (len(y), 1)
        np.testing.assert_array_equal(grad[:, 0], kappa_objective(y, f, sample_weight=w)[0])

    def test_integer_weights_are_repeated_rows(self):
        y, f, w = _small(seed=8)
        c = w.astype(int)
        grad, hess = kappa_objective(y, f, sample_weight=w)
        g_rep, h_rep = kappa_objective(np.repeat(y, c), np.repeat(f, c))
        owner = np.repeat(np.arange(len(y)), c)
        np.testing.assert_allclose(grad, np.bincount(owner, g_rep), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(hess, np.bincount(owner, h_rep), rtol=1e-12)

    def test_signature_serves_the_sklearn_wrapper(self):
        # XGBRegressor passes sample weights only to a callable with `sample_weight`
        assert "sample_weight" in inspect.signature(kappa_objective).parameters
        assert "sample_weight" in inspect.signature(kappa_metric).parameters

    def test_repr_equality_pickle(self):
        assert repr(kappa_objective) == "KappaObjective(intercept='exact')"
        other = KappaObjective(intercept="gradient")
        assert other != kappa_objective and KappaObjective() == kappa_objective
        again = pickle.loads(pickle.dumps(other))
        assert again == other and again.intercept == "gradient"
        assert KappaObjective.__module__ == "qwkit.xgboost"

    def test_bad_intercept(self):
        with pytest.raises(ValueError, match=r"`intercept` must be 'exact' or 'gradient'"):
            KappaObjective(intercept="mean")

    def test_constant_labels_stop_training_with_a_clear_error(self):
        X = np.random.default_rng(0).normal(size=(30, 2))
        with pytest.raises(ValueError, match=r"^The DMatrix's `label` is constant"):
            xgb.train(NATIVE, xgb.DMatrix(X, np.full(30, 3.0)), 2, obj=kappa_objective)
        with pytest.raises(ValueError, match=r"^`y_true` is constant"):
            xgb.XGBRegressor(objective=kappa_objective, n_estimators=2, **ONE).fit(
                X, np.full(30, 3.0)
            )

    def test_native_errors_name_the_dmatrix(self):
        X = np.zeros((3, 1))
        with pytest.raises(qwkit.QwkitError) as info:
            kappa_objective(np.zeros(3), xgb.DMatrix(X))  # no label
        assert str(info.value) == (
            "The DMatrix's `label` is empty (3 predictions, no label): the kappa objective "
            "needs the rating of every item."
        )
        with pytest.raises(qwkit.QwkitError, match=r"^The DMatrix's `label` and `predt` must"):
            kappa_objective(np.zeros(2), xgb.DMatrix(X, [1.0, 2.0, 3.0]))
        with pytest.raises(
            qwkit.QwkitError, match=r"^`predt` has a missing value \(nan\) at index 1"
        ):
            kappa_metric(np.array([0.0, np.nan, 1.0]), xgb.DMatrix(X, [1.0, 2.0, 3.0]))
        weighted = xgb.DMatrix(X, [1.0, 2.0, 3.0], weight=[0.0, 0.0, 0.0])
        with pytest.raises(qwkit.QwkitError, match=r"^The DMatrix's `weight` must not sum to"):
            kappa_objective(np.zeros(3), weighted)


# ============================================================================ metric


class TestMetric:
    def test_sklearn_call_returns_the_loss(self):
        y, f, w = _small()
        assert kappa_metric(y, f) == pytest.approx(1 - qwkit.soft_kappa_score(y, f), rel=1e-15)
        weighted = kappa_metric(y, f, sample_weight=w)
        assert weighted == pytest.approx(1 - qwkit.soft_kappa_score(y, f, sample_weight=w))
        assert isinstance(weighted, float)

    def test_native_call_returns_name_and_loss(self):
        y, f, w = _small(seed=2)
        X = np.random.default_rng(1).normal(size=(len(y), 2))
        name, value = kappa_metric(f, xgb.DMatrix(X, y, weight=w))
        assert name == "soft_kappa_loss"
        assert value == kappa_metric(y, f, sample_weight=w)
        assert value != kappa_metric(y, f)


# ============================================================================ training


class TestTraining:
    def test_sklearn_default_settings_train_well(self, wine):
        X, y, Xt, _ = wine
        kappa = xgb.XGBRegressor(objective=kappa_objective, **ONE).fit(X, y)
        l2 = xgb.XGBRegressor(**ONE).fit(X, y)
        got = _held_out_qwk(wine, kappa.predict(X), kappa.predict(Xt))
        ref = _held_out_qwk(wine, l2.predict(X), l2.predict(Xt))
        for k, r in zip(got, ref, strict=True):  # rounded, and after cut points
            assert k > 0.4  # a constant scores 0
            assert k > r - 0.12
        # XGBoost starts a custom objective at base_score 0.5; the mean still ends right
        base = json.loads(kappa.get_booster().save_config())["learner"]["learner_model_param"]
        assert float(base["base_score"].strip("[]")) == 0.5
        assert abs(kappa.predict(X).mean() - y.mean()) < 0.05

    def test_native_api_trains_well(self, wine):
        X, y, Xt, _ = wine
        booster = xgb.train(NATIVE, xgb.DMatrix(X, y), 50, obj=kappa_objective)
        got = _held_out_qwk(wine, booster.predict(xgb.DMatrix(X)), booster.predict(xgb.DMatrix(Xt)))
        assert min(got) > 0.4

    def test_sample_weights_are_repeated_rows(self):
        rng = np.random.default_rng(20261121)
        X = rng.normal(size=(150, 3)).round(1)
        y = np.clip(np.rint(X @ [1.0, 0.5, -0.5] + 3 + rng.normal(size=150)), 0, 6)
        c = rng.integers(1, 4, 150)
        params = {"tree_method": "exact", "max_depth": 4}
        native = {**params, **NATIVE}
        weighted = xgb.train(native, xgb.DMatrix(X, y, weight=c), 20, obj=kappa_objective)
        repeated = xgb.train(
            native, xgb.DMatrix(np.repeat(X, c, 0), np.repeat(y, c)), 20, obj=kappa_objective
        )
        grid = xgb.DMatrix(X)
        np.testing.assert_allclose(weighted.predict(grid), repeated.predict(grid), atol=1e-5)
        sk = xgb.XGBRegressor(objective=kappa_objective, n_estimators=20, **params, **ONE)
        sk.fit(X, y, sample_weight=c)
        np.testing.assert_allclose(sk.predict(X), repeated.predict(grid), atol=1e-5)
        unweighted = xgb.train(native, xgb.DMatrix(X, y), 20, obj=kappa_objective)
        assert np.abs(unweighted.predict(grid) - weighted.predict(grid)).max() > 1e-3

    def test_metric_in_training_equals_soft_kappa(self, wine):
        X, y, Xt, yt = wine
        record = {}
        valid = xgb.DMatrix(Xt, yt.astype(float))
        booster = xgb.train(
            NATIVE,
            xgb.DMatrix(X, y),
            10,
            obj=kappa_objective,
            custom_metric=kappa_metric,
            evals=[(valid, "valid")],
            evals_result=record,
            verbose_eval=False,
        )
        last = record["valid"]["soft_kappa_loss"][-1]
        expected = 1 - qwkit.soft_kappa_score(yt, booster.predict(valid))
        assert last == pytest.approx(expected, abs=1e-6)  # XGBoost logs float32-rounded


@pytest.fixture(scope="module")
def history(wine):
    """The validation curve of 60 rounds: it falls, then rises."""
    X, y, Xt, yt = wine
    record = {}
    xgb.train(
        NATIVE,
        xgb.DMatrix(X, y),
        60,
        obj=kappa_objective,
        custom_metric=kappa_metric,
        evals=[(xgb.DMatrix(Xt, yt.astype(float)), "valid")],
        evals_result=record,
        verbose_eval=False,
    )
    # XGBoost also logs its built-in rmse; the custom metric comes last, and early
    # stopping follows the last metric
    assert list(record["valid"]) == ["rmse", "soft_kappa_loss"]
    curve = np.array(record["valid"]["soft_kappa_loss"])
    # the direction matters: stopping at a maximum would keep another round
    assert _early_stop(curve, 8) != _early_stop(curve, 8, lower_is_better=False)
    assert 0 < _early_stop(curve, 8) < len(curve) - 8
    return curve


class TestEarlyStopping:
    """The metric is a loss, XGBoost's default direction: early stopping keeps its minimum."""

    def test_native(self, wine, history):
        X, y, Xt, yt = wine
        booster = xgb.train(
            NATIVE,
            xgb.DMatrix(X, y),
            60,
            obj=kappa_objective,
            custom_metric=kappa_metric,
            evals=[(xgb.DMatrix(Xt, yt.astype(float)), "valid")],
            early_stopping_rounds=8,
            verbose_eval=False,
        )
        best = _early_stop(history, 8)
        assert booster.best_iteration == best  # 0-based in XGBoost
        assert booster.best_score == pytest.approx(history[best])

    def test_sklearn(self, wine, history):
        X, y, Xt, yt = wine
        model = xgb.XGBRegressor(
            objective=kappa_objective,
            eval_metric=kappa_metric,
            n_estimators=60,
            early_stopping_rounds=8,
            **ONE,
        )
        model.fit(X, y, eval_set=[(Xt, yt.astype(float))], verbose=False)
        best = _early_stop(history, 8)
        assert model.best_iteration == best
        assert model.best_score == pytest.approx(history[best])


# ============================================================================ persistence, imports


class TestPersistence:
    def test_pickled_sklearn_model_predicts_the_same(self, wine):
        X, y, Xt, _ = wine
        objective = KappaObjective(intercept="gradient")
        model = xgb.XGBRegressor(
            objective=objective, eval_metric=kappa_metric, n_estimators=5, **ONE
        ).fit(X, y)
        again = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(again.predict(Xt), model.predict(Xt))
        assert again.get_params()["objective"] == KappaObjective(intercept="gradient")
        refit = clone(model).fit(X, y)
        np.testing.assert_array_equal(refit.predict(Xt), model.predict(Xt))


def test_missing_xgboost_names_the_extra():
    code = (
        "import sys\n"
        "sys.modules['xgboost'] = None\n"
        "try:\n"
        "    import qwkit.xgboost\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert f"Install it with: {install_command('xgboost')}" in out.stdout
