"""The paired comparison of real-valued scores: ``compare_kappa_test`` and
``pairwise_compare_kappa_test`` by quadratic kappa's continuous form (eq. 12 of
``docs/inference.md``), against its oracles — the soft kappa of each model, a numerical
gradient of the difference over the items' weights, literal deletion for the jackknife,
the same random draws for the bootstrap — and equal to the table's paired test on integer
ratings."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy import special

import qwkit
from qwkit._base._item_weights import item_weights
from qwkit._kappa._compare_soft import continuous_pair

NAMES = ("y_true", "y_pred_a", "y_pred_b")
Z975 = float(special.ndtri(0.975))


def _data(n: int, seed: int):
    """Ratings 1..5 and two real-valued models of them."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=n)
    y = np.clip(np.rint(3 + 1.2 * latent + rng.normal(0, 0.6, n)), 1, 5).astype(np.int64)
    a = 3 + 1.1 * latent + rng.normal(0, 0.5, n)
    b = 3 + 0.8 * latent + rng.normal(0, 0.7, n)
    return y, a, b


def _difference(y, a, b, w=None) -> float:
    return qwkit.soft_kappa_score(y, a, sample_weight=w) - qwkit.soft_kappa_score(
        y, b, sample_weight=w
    )


def _numerical_se(y, a, b, w) -> float:
    """Sandwich SE from a central-difference gradient of the difference over the
    items' weights: IF_i = W·∂θ/∂w_i, Var = Σ w_i² (IF_i − mean)² / W²."""
    w = np.asarray(w, dtype=float)
    total = w.sum()
    grad = np.empty(w.size)
    for i in range(w.size):
        step = 1e-6 * total
        up, down = w.copy(), w.copy()
        up[i] += step
        down[i] -= step
        grad[i] = (_difference(y, a, b, up) - _difference(y, a, b, down)) / (2 * step)
    infl = total * grad
    infl -= np.dot(w, infl) / total
    return math.sqrt(float(np.dot(w * w, infl * infl)) / total**2)


class TestCompareRealValued:
    def test_kappas_are_soft_kappa_and_se_the_numerical_gradient(self):
        y, a, b = _data(80, 1)
        res = qwkit.compare_kappa_test(y, a, b)
        assert res.real_valued and res.weights == "quadratic"
        assert res.kappa_a == qwkit.soft_kappa_score(y, a)
        assert res.kappa_b == qwkit.soft_kappa_score(y, b)
        assert res.statistic == res.kappa_a - res.kappa_b
        assert res.standard_error == pytest.approx(_numerical_se(y, a, b, np.ones(80)), rel=1e-6)
        z = res.statistic / res.standard_error
        assert res.pvalue == pytest.approx(2 * special.ndtr(-abs(z)), rel=1e-12)
        assert res.n_items == 80 and list(res.labels) == [1, 2, 3, 4, 5]

    def test_survey_weights(self):
        y, a, b = _data(60, 2)
        w = np.random.default_rng(3).uniform(0.2, 3.0, 60)
        res = qwkit.compare_kappa_test(y, a, b, sample_weight=w)
        assert res.kappa_a == qwkit.soft_kappa_score(y, a, sample_weight=w)
        assert res.standard_error == pytest.approx(_numerical_se(y, a, b, w), rel=1e-6)

    def test_counts_are_repeated_rows_and_zero_weight_is_no_row(self):
        y, a, b = _data(40, 4)
        counts = np.random.default_rng(5).integers(0, 4, 40)
        counts[0] = 2
        res = qwkit.compare_kappa_test(y, a, b, counts=counts)
        rows = np.repeat(np.arange(40), counts)
        ref = qwkit.compare_kappa_test(y[rows], a[rows], b[rows])
        assert res.n_items == ref.n_items == counts.sum()
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
        assert res.confidence_interval(method="jackknife") == pytest.approx(
            ref.confidence_interval(method="jackknife"), rel=1e-10
        )
        w = np.ones(40)
        w[:5] = 0.0
        dropped = qwkit.compare_kappa_test(y[5:], a[5:], b[5:])
        kept = qwkit.compare_kappa_test(y, a, b, sample_weight=w)
        assert kept.n_items == 35
        assert kept.standard_error == pytest.approx(dropped.standard_error, rel=1e-12)

    def test_jackknife_matches_literal_deletion(self):
        y, a, b = _data(50, 6)
        res = qwkit.compare_kappa_test(y, a, b)
        vals = np.array([_difference(*(np.delete(x, i) for x in (y, a, b))) for i in range(50)])
        se = math.sqrt(49 / 50 * ((vals - vals.mean()) ** 2).sum())
        low, high = res.confidence_interval(method="jackknife")
        assert (high - low) / (2 * Z975) == pytest.approx(se, rel=1e-9)

    def test_bootstrap_draws_the_items(self):
        y, a, b = _data(30, 7)
        res = qwkit.compare_kappa_test(y, a, b)
        draws = res.bootstrap_distribution(40, rng=np.random.default_rng(8))
        rng = np.random.default_rng(8)
        mult = rng.multinomial(30, np.full(30, 1 / 30), size=40)
        ref = [_difference(y, a, b, m.astype(float)) for m in mult]
        assert draws == pytest.approx(ref, rel=1e-9)
        # with survey weights, the draws of scipy.stats.bootstrap (rng.integers(0, n, (B, n)))
        w = np.random.default_rng(9).uniform(0.5, 2.0, 30)
        weighted = qwkit.compare_kappa_test(y, a, b, sample_weight=w)
        draws = weighted.bootstrap_distribution(25, rng=np.random.default_rng(10))
        idx = np.random.default_rng(10).integers(0, 30, (25, 30))
        ref = [_difference(y[i], a[i], b[i], w[i]) for i in idx]
        assert draws == pytest.approx(ref, rel=1e-9)
        low, high = res.confidence_interval(method="bootstrap", n_resamples=999, rng=1)
        assert low < res.statistic < high

    def test_equals_the_table_on_integer_ratings(self):
        # both forms are one function of one distribution: kappas to the last bit, the
        # standard error and the jackknife to rounding
        rng = np.random.default_rng(11)
        for trial in range(30):
            n = int(rng.integers(5, 200))
            y = rng.integers(0, 5, n)
            a = np.clip(y + rng.integers(-2, 3, n), 0, 6)
            b = np.clip(y + rng.integers(-1, 2, n), 0, 5)
            sw = rng.uniform(0.1, 3.0, n) if trial % 3 == 1 else None
            counts = rng.integers(1, 4, n) if trial % 3 == 2 else None
            table = qwkit.compare_kappa_test(y, a, b, sample_weight=sw, counts=counts)
            cont = continuous_pair([y, a, b], NAMES, item_weights(sw, counts, n))
            assert (cont.kappa_a, cont.kappa_b) == (table.kappa_a, table.kappa_b)
            assert cont.n_items == table.n_items
            assert cont.standard_error == pytest.approx(table.standard_error, rel=1e-12)

    def test_one_real_model_beside_ratings(self):
        y, a, b = _data(70, 12)
        rated = np.clip(np.rint(a), 1, 5).astype(np.int64)
        res = qwkit.compare_kappa_test(y, rated, b)
        assert res.real_valued
        assert res.kappa_a == qwkit.kappa_score(y, rated)  # its table kappa, exactly
        assert res.kappa_b == qwkit.soft_kappa_score(y, b)
        swapped = qwkit.compare_kappa_test(y, b, rated)
        assert swapped.statistic == -res.statistic
        assert swapped.standard_error == pytest.approx(res.standard_error, rel=1e-12)

    def test_invariant_to_a_common_linear_change(self):
        y, a, b = _data(50, 13)
        res = qwkit.compare_kappa_test(y, a, b)
        moved = qwkit.compare_kappa_test(2 * y + 7, 2 * a + 7, 2 * b + 7)
        assert moved.statistic == pytest.approx(res.statistic, abs=1e-13)
        assert moved.standard_error == pytest.approx(res.standard_error, rel=1e-10)

    def test_labels(self):
        y, a, b = _data(30, 14)
        res = qwkit.compare_kappa_test(y, a, b, labels=[0, 1, 2, 3, 4, 5, 6])
        assert list(res.labels) == list(range(7))
        assert res.statistic == qwkit.compare_kappa_test(y, a, b).statistic
        with pytest.raises(qwkit.QwkitError, match="`y_true` contains 5") as err:
            qwkit.compare_kappa_test(y, a, b, labels=[1, 2, 3, 4])
        assert err.value.parameter == "y_true"
        # every vector real-valued: no scale of ratings
        assert len(qwkit.compare_kappa_test(y + 0.5, a, b).labels) == 0
        # on a scale of non-integers (labels), fractional numbers are ratings
        half = qwkit.compare_kappa_test(
            y / 2, np.clip(np.rint(a), 1, 5) / 2, y / 2, labels=np.arange(0, 7) / 2
        )
        assert not half.real_valued

    def test_summary_dict_and_pickle(self):
        y, a, b = _data(30, 15)
        res = qwkit.compare_kappa_test(y, a, b, alternative="greater")
        assert "continuous form" in res.summary()
        out = res.to_dict()
        assert out["real_valued"] is True and out["alternative"] == "greater"
        back = pickle.loads(pickle.dumps(res))
        assert back.confidence_interval(method="jackknife") == res.confidence_interval(
            method="jackknife"
        )

    def test_refused_under_other_weights(self):
        y, a, b = _data(20, 16)
        for weights in ("linear", "identity", np.ones((5, 5)) - np.eye(5)):
            with pytest.raises(qwkit.QwkitError, match="holds real-valued scores") as err:
                qwkit.compare_kappa_test(y, np.rint(a), b, weights=weights)
            assert err.value.parameter == "y_pred_b" and err.value.row == 0
            assert err.value.parameters == ("y_pred_b", "weights")
            assert "`weights` other than 'quadratic'" in str(err.value)

    def test_bad_input(self):
        y, a, b = _data(20, 17)
        a_nan = a.copy()
        a_nan[3] = np.nan
        with pytest.raises(
            qwkit.QwkitError, match=r"`y_pred_a` has a missing value \(nan\) at index 3"
        ) as err:
            qwkit.compare_kappa_test(y, a_nan, b)
        assert err.value.row == 3
        with pytest.raises(qwkit.QwkitTypeError, match="`y_true` holds strings") as err:
            qwkit.compare_kappa_test(np.array(list("abcde") * 4), a, b)
        assert err.value.parameter == "y_pred_a"
        with pytest.raises(qwkit.QwkitError, match="must have the same length"):
            qwkit.compare_kappa_test(y, a[:-1], b)
        with pytest.raises(qwkit.QwkitError, match="`y_true` contains inf at index 2"):
            qwkit.compare_kappa_test([1.0, 2.0, np.inf], [1.5, 2, 3], [1, 2, 3])

    def test_identical_and_undefined(self):
        y, a, _ = _data(20, 18)
        with pytest.warns(qwkit.DegenerateIntervalWarning, match="z-test is undefined"):
            same = qwkit.compare_kappa_test(y, a, a)
        assert same.statistic == 0.0 and same.standard_error == 0.0
        assert math.isnan(same.pvalue)
        with pytest.warns(qwkit.UndefinedKappaWarning):
            res = qwkit.compare_kappa_test([2.5, 2.5], [2.5, 2.5], [1.5, 2.5])
        assert math.isnan(res.statistic) and math.isnan(res.standard_error)


class TestPairwiseRealValued:
    def test_each_pair_is_compare_kappa_test(self):
        y, a, b = _data(60, 19)
        rated = np.clip(np.rint(a + 0.3), 1, 5).astype(np.int64)
        other = np.clip(np.rint(b), 0, 6).astype(np.int64)
        preds = {"a": a, "b": b, "rated": rated, "other": other}
        res = qwkit.pairwise_compare_kappa_test(y, preds)
        for (m1, m2), one in zip(res.pairs, res.comparisons, strict=True):
            ref = qwkit.compare_kappa_test(y, preds[m1], preds[m2], labels=range(0, 7))
            assert one.real_valued == ref.real_valued == (m1 in "ab" or m2 in "ab")
            assert one.statistic == ref.statistic
            assert one.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
        assert res.kappas[0] == qwkit.soft_kappa_score(y, a)
        assert res.kappas[3] == qwkit.kappa_score(y, other)
        assert "continuous form" in res.summary()
        flags = [c["real_valued"] for c in res.to_dict()["comparisons"]]
        assert flags == [c.real_valued for c in res.comparisons] and not all(flags)
        with pytest.raises(qwkit.QwkitError, match="`y_preds\\['a'\\]` holds real-valued"):
            qwkit.pairwise_compare_kappa_test(y, preds, weights="linear")
