"""qwkit.lightgbm: objective and metric in LightGBM's native and scikit-learn APIs."""

from __future__ import annotations

import inspect
import pickle
import subprocess
import sys

import lightgbm as lgb
import numpy as np
import pytest
from sklearn.base import clone

import qwkit
from qwkit import kappa_gradient_hessian
from qwkit._base._extras import install_command
from qwkit.lightgbm import KappaObjective, kappa_metric, kappa_objective

# one thread: LightGBM's OpenMP threads crawl on a loaded machine
QUIET = {"verbose": -1, "num_threads": 1}


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


def _eval_kwargs(X, y, **extra):
    """Validation data for LGBMRegressor.fit: eval_X/eval_y (LightGBM >= 4.7), else eval_set."""
    if "eval_X" in inspect.signature(lgb.LGBMRegressor.fit).parameters:
        return {"eval_X": (X,), "eval_y": (y,), **extra}
    return {"eval_set": [(X, y)], **extra}


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
        grad, hess = KappaObjective(intercept="gradient")(y, f, w)
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
        grad, hess = kappa_objective(y, f, w)
        np.testing.assert_allclose(grad, den_c / 2 * g + wv * (fbar - ybar), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hess, den_c / 2 * h, rtol=1e-12)  # (T13)

    @pytest.mark.parametrize("intercept", ["exact", "gradient"])
    def test_native_call_reads_labels_and_weights_from_the_dataset(self, intercept):
        y, f, w = _small(seed=5)
        X = np.random.default_rng(1).normal(size=(len(y), 2))
        data = lgb.Dataset(X, y, weight=w, params=QUIET).construct()
        objective = KappaObjective(intercept=intercept)
        native = objective(f, data)
        sklearn_style = objective(y, f, w)
        np.testing.assert_allclose(native[0], sklearn_style[0], rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(native[1], sklearn_style[1])
        unweighted = lgb.Dataset(X, y, params=QUIET).construct()
        np.testing.assert_array_equal(objective(f, unweighted)[1], np.ones(len(y)))

    def test_integer_weights_are_repeated_rows(self):
        y, f, w = _small(seed=8)
        c = w.astype(int)
        grad, hess = kappa_objective(y, f, w)
        g_rep, h_rep = kappa_objective(np.repeat(y, c), np.repeat(f, c), None)
        owner = np.repeat(np.arange(len(y)), c)
        np.testing.assert_allclose(grad, np.bincount(owner, g_rep), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(hess, np.bincount(owner, h_rep), rtol=1e-12)

    def test_signature_serves_the_sklearn_wrapper(self):
        # LGBMRegressor passes (y_true, y_pred, weight) when the callable takes 3 arguments
        assert len(inspect.signature(kappa_objective).parameters) == 3
        assert len(inspect.signature(kappa_metric).parameters) == 3

    def test_repr_equality_pickle(self):
        assert repr(kappa_objective) == "KappaObjective(intercept='exact')"
        other = KappaObjective(intercept="gradient")
        assert other != kappa_objective and KappaObjective() == kappa_objective
        assert hash(KappaObjective()) == hash(kappa_objective)
        again = pickle.loads(pickle.dumps(other))
        assert again == other and again.intercept == "gradient"
        assert KappaObjective.__module__ == "qwkit.lightgbm"

    def test_bad_intercept(self):
        with pytest.raises(ValueError, match=r"`intercept` must be 'exact' or 'gradient'; got 'x'"):
            KappaObjective(intercept="x")

    def test_constant_labels_stop_training_with_a_clear_error(self):
        X = np.random.default_rng(0).normal(size=(100, 2))
        with pytest.raises(ValueError, match=r"^The Dataset's `label` is constant"):
            lgb.train({"objective": kappa_objective, **QUIET}, lgb.Dataset(X, np.full(100, 3.0)), 2)
        with pytest.raises(ValueError, match=r"^`y_true` is constant"):
            lgb.LGBMRegressor(objective=kappa_objective, n_estimators=2, **QUIET).fit(
                X, np.full(100, 3.0)
            )

    def test_native_errors_name_the_dataset(self):
        X = np.random.default_rng(2).normal(size=(3, 1))
        data = lgb.Dataset(X, [1.0, 2.0, 3.0], params=QUIET).construct()
        with pytest.raises(qwkit.QwkitError, match=r"^The Dataset's `label` and `preds` must"):
            kappa_objective(np.zeros(2), data)
        with pytest.raises(
            qwkit.QwkitError, match=r"^`preds` has a missing value \(nan\) at index 1"
        ):
            kappa_metric(np.array([0.0, np.nan, 1.0]), data)
        weighted = lgb.Dataset(X, [1.0, 2.0, 3.0], weight=[0.0, 0.0, 0.0], params=QUIET)
        with pytest.raises(qwkit.QwkitError, match=r"^The Dataset's `weight` must not sum to"):
            kappa_objective(np.zeros(3), weighted.construct())

    def test_multiclass_shape_is_refused(self):
        with pytest.raises(ValueError, match="one raw score per item"):
            kappa_objective(np.array([1.0, 2.0]), np.zeros((2, 3)), None)


# ============================================================================ metric


class TestMetric:
    def test_value_is_one_minus_soft_kappa(self):
        y, f, w = _small()
        assert kappa_metric(y, f, None) == (
            "soft_kappa_loss",
            pytest.approx(1 - qwkit.soft_kappa_score(y, f), rel=1e-15),
            False,
        )
        name, value, higher_is_better = kappa_metric(y, f, w)
        assert value == pytest.approx(1 - qwkit.soft_kappa_score(y, f, sample_weight=w))
        assert (name, higher_is_better) == ("soft_kappa_loss", False)

    def test_native_call_uses_the_dataset_weights(self):
        y, f, w = _small(seed=2)
        X = np.random.default_rng(1).normal(size=(len(y), 2))
        data = lgb.Dataset(X, y, weight=w, params=QUIET).construct()
        assert kappa_metric(f, data) == kappa_metric(y, f, w)
        assert kappa_metric(f, data)[1] != kappa_metric(y, f, None)[1]


# ============================================================================ training


class TestTraining:
    def test_sklearn_default_settings_train_well(self, wine):
        X, y, Xt, _ = wine
        kappa = lgb.LGBMRegressor(objective=kappa_objective, **QUIET).fit(X, y)
        l2 = lgb.LGBMRegressor(**QUIET).fit(X, y)
        got = _held_out_qwk(wine, kappa.predict(X), kappa.predict(Xt))
        ref = _held_out_qwk(wine, l2.predict(X), l2.predict(Xt))
        for k, r in zip(got, ref, strict=True):  # rounded, and after cut points
            assert k > 0.4  # a constant scores 0
            assert k > r - 0.1
        # the mean prediction is where the kappa optimum puts it: the label mean
        assert abs(kappa.predict(X).mean() - y.mean()) < 0.05

    def test_native_api_trains_well(self, wine):
        X, y, Xt, _ = wine
        booster = lgb.train({"objective": kappa_objective, **QUIET}, lgb.Dataset(X, y), 50)
        got = _held_out_qwk(wine, booster.predict(X), booster.predict(Xt))
        assert min(got) > 0.4

    def test_the_start_is_what_it_takes(self, wine):
        # the plain gradient from LightGBM's start at 0 stretches instead of shifting
        # (docs/training.md, T11–T12); with an init_score at the label mean it is fine
        X, y, Xt, _ = wine
        plain = KappaObjective(intercept="gradient")
        far = lgb.LGBMRegressor(objective=plain, n_estimators=50, **QUIET).fit(X, y)
        rounded_far, _ = _held_out_qwk(wine, far.predict(X), far.predict(Xt))
        assert rounded_far < 0.3
        assert abs(far.predict(X).mean() - y.mean()) > 0.5
        init = np.full(len(y), y.mean())
        near = lgb.LGBMRegressor(objective=plain, n_estimators=50, **QUIET).fit(
            X, y, init_score=init
        )
        got = _held_out_qwk(wine, near.predict(X) + y.mean(), near.predict(Xt) + y.mean())
        assert min(got) > 0.4

    def test_sample_weights_are_repeated_rows(self):
        # identical boosters (small trees: LightGBM's own row-count rules and float32
        # gradient sums can split near-ties differently in large ones, even for "l2")
        rng = np.random.default_rng(20261121)
        X = rng.normal(size=(150, 3)).round(1)
        y = np.clip(np.rint(X @ [1.0, 0.5, -0.5] + 3 + rng.normal(size=150)), 0, 6)
        c = rng.integers(1, 4, 150)
        params = {
            "objective": kappa_objective,
            "num_leaves": 4,
            "min_data_in_leaf": 1,
            "min_data_in_bin": 1,
            "min_sum_hessian_in_leaf": 1e-3,
            **QUIET,
        }
        weighted = lgb.train(params, lgb.Dataset(X, y, weight=c.astype(float)), 20)
        repeated = lgb.train(params, lgb.Dataset(np.repeat(X, c, 0), np.repeat(y, c)), 20)
        np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), atol=1e-6)
        sk_params = {k: v for k, v in params.items() if k != "objective"}
        sk = lgb.LGBMRegressor(objective=kappa_objective, n_estimators=20, **sk_params)
        sk.fit(X, y, sample_weight=c.astype(float))
        np.testing.assert_allclose(sk.predict(X), repeated.predict(X), atol=1e-6)
        unweighted = lgb.train(params, lgb.Dataset(X, y), 20)
        assert np.abs(unweighted.predict(X) - weighted.predict(X)).max() > 1e-3

    def test_metric_in_training_equals_soft_kappa(self, wine):
        X, y, Xt, yt = wine
        record = {}
        booster = lgb.train(
            {"objective": kappa_objective, **QUIET},
            lgb.Dataset(X, y),
            10,
            valid_sets=[lgb.Dataset(Xt, yt.astype(float))],
            feval=kappa_metric,
            callbacks=[lgb.record_evaluation(record)],
        )
        assert list(record["valid_0"]) == ["soft_kappa_loss"]
        last = record["valid_0"]["soft_kappa_loss"][-1]
        assert last == pytest.approx(1 - qwkit.soft_kappa_score(yt, booster.predict(Xt)))


FAST = {"objective": kappa_objective, "learning_rate": 0.3, **QUIET}


@pytest.fixture(scope="module")
def history(wine):
    """The validation curve of 80 rounds: it falls, then rises."""
    X, y, Xt, yt = wine
    record = {}
    lgb.train(
        FAST,
        lgb.Dataset(X, y),
        80,
        valid_sets=[lgb.Dataset(Xt, yt.astype(float))],
        feval=kappa_metric,
        callbacks=[lgb.record_evaluation(record)],
    )
    curve = np.array(record["valid_0"]["soft_kappa_loss"])
    # the direction matters: stopping at a maximum would keep another round
    assert _early_stop(curve, 10) != _early_stop(curve, 10, lower_is_better=False)
    assert 0 < _early_stop(curve, 10) < len(curve) - 10
    return curve


class TestEarlyStopping:
    """The metric is a loss (is_higher_better=False): early stopping keeps its minimum."""

    def test_native(self, wine, history):
        X, y, Xt, yt = wine
        booster = lgb.train(
            FAST,
            lgb.Dataset(X, y),
            80,
            valid_sets=[lgb.Dataset(Xt, yt.astype(float))],
            feval=kappa_metric,
            callbacks=[lgb.early_stopping(10, verbose=False)],
        )
        assert booster.best_iteration == _early_stop(history, 10) + 1  # 1-based in LightGBM
        assert booster.num_trees() < 80

    def test_sklearn(self, wine, history):
        X, y, Xt, yt = wine
        model = lgb.LGBMRegressor(
            objective=kappa_objective, learning_rate=0.3, n_estimators=80, metric="None", **QUIET
        )
        model.fit(
            X,
            y,
            eval_metric=kappa_metric,
            callbacks=[lgb.early_stopping(10, verbose=False)],
            **_eval_kwargs(Xt, yt.astype(float)),
        )
        best = _early_stop(history, 10)
        assert model.best_iteration_ == best + 1
        assert model.best_score_["valid_0"]["soft_kappa_loss"] == pytest.approx(history[best])


# ============================================================================ persistence, imports


class TestPersistence:
    def test_pickled_sklearn_model_predicts_the_same(self, wine):
        X, y, Xt, _ = wine
        model = lgb.LGBMRegressor(
            objective=KappaObjective(intercept="gradient"), n_estimators=5, **QUIET
        ).fit(X, y)
        again = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(again.predict(Xt), model.predict(Xt))
        assert again.get_params()["objective"] == KappaObjective(intercept="gradient")
        refit = clone(model).fit(X, y)
        np.testing.assert_array_equal(refit.predict(Xt), model.predict(Xt))


def test_missing_lightgbm_names_the_extra():
    code = (
        "import sys\n"
        "sys.modules['lightgbm'] = None\n"
        "try:\n"
        "    import qwkit.lightgbm\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert f"Install it with: {install_command('lightgbm')}" in out.stdout
