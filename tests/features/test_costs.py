"""Tests of expected_cost, cost_matrix, insurance_loss_matrix and risk_class_model.

Published values: J. L. Steele, "Economic efficiency and the weighted kappa loss
function" (2016) — cited as "Steele" with the section and the table or sentence quoted.
Oracles: tests/oracles/naive_costs.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

import qwkit
from oracles.naive_costs import naive_expected_cost, naive_insurance_profit, naive_risk_cost

# Steele, §3.1, "Prediction 1" (O_1, kappa 0.9464) and "Prediction 2" (O_2, kappa 0.9400);
# rows are the true ratings, columns the predictions (as §3.1 says).
STEELE_31_O1 = np.array([[100, 0, 0, 0], [30, 70, 0, 0], [0, 0, 70, 30], [0, 0, 0, 100]])
STEELE_31_O2 = np.array([[90, 10, 0, 0], [10, 80, 10, 0], [0, 10, 80, 10], [0, 0, 10, 90]])
# Steele, §3.2, "Prediction 1" (kappa 0.960) and "Prediction 2" (kappa 0.948), printed as
# is: in the second table row 3 sums to 98 and row 4 (0, 2, 5, 95) to 102.
STEELE_32_O1 = np.array([[95, 5, 0, 0], [5, 85, 10, 0], [0, 10, 85, 5], [0, 0, 5, 95]])
STEELE_32_O2 = np.array([[95, 3, 2, 0], [3, 92, 3, 2], [2, 3, 90, 3], [0, 2, 5, 95]])


def _named_cost(k, kind):
    out = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            d = abs(i - j)
            out[i, j] = {
                "quadratic": d * d / max(k - 1, 1) ** 2,
                "linear": d / max(k - 1, 1),
                "absolute": d,
                "0-1": float(d != 0),
            }[kind]
    return out


tables = st.integers(1, 6).flatmap(
    lambda k: hnp.arrays(np.int64, (k, k), elements=st.integers(0, 50)).filter(
        lambda t: t.sum() > 0
    )
)


class TestExpectedCost:
    def test_steele_31_equal_error_rates_different_kappas(self):
        # Steele, §3.1: kappa_1 = 0.9464, kappa_2 = 0.9400
        assert round(qwkit.kappa_from_confusion(STEELE_31_O1), 4) == 0.9464
        assert round(qwkit.kappa_from_confusion(STEELE_31_O2), 4) == 0.9400
        assert qwkit.kappa_from_confusion(STEELE_31_O1) == pytest.approx(53 / 56, abs=1e-15)
        assert qwkit.kappa_from_confusion(STEELE_31_O2) == pytest.approx(0.94, abs=1e-15)
        # Steele, §3.1: "Each prediction is accurate 85% of the time, and off by one
        # rank 15% of the time" -- the same cost under every cost of the distance |i - j|.
        for kind in ("0-1", "absolute", "linear", "quadratic"):
            cost = qwkit.cost_matrix(4, kind)
            assert qwkit.expected_cost(STEELE_31_O1, cost) == pytest.approx(
                qwkit.expected_cost(STEELE_31_O2, cost), abs=1e-15
            )
        assert qwkit.expected_cost(STEELE_31_O1, qwkit.cost_matrix(4, "0-1")) == pytest.approx(0.15)

    def test_steele_31_kappa_is_ratio_of_expected_costs(self):
        # kappa = 1 - C(O) / C(E), E the chance table: the difference lies only in E.
        w = qwkit.cost_matrix(4, "quadratic")
        for table in (STEELE_31_O1, STEELE_31_O2):
            chance = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
            ratio = qwkit.expected_cost(table, w) / qwkit.expected_cost(chance, w)
            assert 1 - ratio == pytest.approx(qwkit.kappa_from_confusion(table), abs=1e-14)

    def test_steele_32_near_misses_beat_accuracy(self):
        # Steele, §3.2: kappa_1 = 0.960, kappa_2 = 0.948
        k1 = qwkit.kappa_from_confusion(STEELE_32_O1)
        k2 = qwkit.kappa_from_confusion(STEELE_32_O2)
        assert round(k1, 3) == 0.960
        assert round(k2, 3) == 0.948
        assert k1 == pytest.approx(0.96, abs=1e-15)
        assert k2 == pytest.approx(0.9482071713147411, abs=1e-13)
        # Steele, §3.2: accuracy 90% and average error 0.1; 93% and .09
        zero_one = qwkit.cost_matrix(4, "0-1")
        absolute = qwkit.cost_matrix(4, "absolute")
        assert 1 - qwkit.expected_cost(STEELE_32_O1, zero_one) == pytest.approx(0.90, abs=1e-15)
        assert qwkit.expected_cost(STEELE_32_O1, absolute) == pytest.approx(0.10, abs=1e-15)
        assert 1 - qwkit.expected_cost(STEELE_32_O2, zero_one) == pytest.approx(0.93, abs=1e-15)
        assert qwkit.expected_cost(STEELE_32_O2, absolute) == pytest.approx(0.09, abs=1e-15)

    def test_steele_32_row_summing_to_102(self):
        # Steele, §3.2: rows 3 and 4 of the second table sum to 98 and 102; the
        # total stays 400, every column sums to 100.
        np.testing.assert_array_equal(STEELE_32_O2.sum(axis=1), [100, 100, 98, 102])
        np.testing.assert_array_equal(STEELE_32_O2.sum(axis=0), [100, 100, 100, 100])
        zero_one = qwkit.cost_matrix(4, "0-1")
        absolute = qwkit.cost_matrix(4, "absolute")
        # The quoted 93% and 0.09 are exact for the table as printed: 372 and 36 over 400.
        assert np.trace(STEELE_32_O2) == 372 and STEELE_32_O2.sum() == 400
        # Read transposed (100 items per true class, as in the rest of the note), every
        # number is unchanged: accuracy, mean error and QWK are symmetric in the raters.
        t = STEELE_32_O2.T
        np.testing.assert_array_equal(t.sum(axis=1), [100, 100, 100, 100])
        assert qwkit.kappa_from_confusion(t) == pytest.approx(
            qwkit.kappa_from_confusion(STEELE_32_O2), abs=1e-15
        )
        assert qwkit.expected_cost(t, zero_one) == pytest.approx(0.07, abs=1e-15)
        assert qwkit.expected_cost(t, absolute) == pytest.approx(0.09, abs=1e-15)
        # Mended to the symmetric pattern of rows 1-2 instead (row 4 = 0, 2, 3, 95): 398
        # items, accuracy 372/398 = 93.47%, mean error 34/398 = 0.0854, QWK 0.9499 -- still
        # below 0.960, so the note's point stands under either reading.
        mended = STEELE_32_O2.copy()
        mended[3] = [0, 2, 3, 95]
        assert mended.sum() == 398
        assert 1 - qwkit.expected_cost(mended, zero_one) == pytest.approx(372 / 398, abs=1e-15)
        assert qwkit.expected_cost(mended, absolute) == pytest.approx(34 / 398, abs=1e-15)
        assert qwkit.kappa_from_confusion(mended) == pytest.approx(0.9499496981891348, abs=1e-13)
        assert qwkit.kappa_from_confusion(mended) < qwkit.kappa_from_confusion(STEELE_32_O1)

    @given(tables, st.data())
    def test_matches_loop(self, table, data):
        k = table.shape[0]
        cost = data.draw(
            hnp.arrays(np.float64, (k, k), elements=st.floats(-100, 100, allow_nan=False))
        )
        got = qwkit.expected_cost(table, cost)
        assert got == pytest.approx(naive_expected_cost(table.tolist(), cost.tolist()), abs=1e-9)

    @given(tables, st.floats(0.01, 100))
    def test_scale_invariant_in_counts(self, table, factor):
        cost = qwkit.cost_matrix(table.shape[0], "absolute")
        assert qwkit.expected_cost(table * factor, cost) == pytest.approx(
            qwkit.expected_cost(table, cost), rel=1e-12, abs=1e-12
        )

    def test_counts_are_repeated_items(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 5, size=300)
        pred = rng.integers(0, 5, size=300)
        cost = rng.normal(size=(5, 5))
        table = qwkit.confusion_matrix(y, pred, labels=range(5))
        assert qwkit.expected_cost(table, cost) == pytest.approx(cost[y, pred].mean(), abs=1e-12)

    def test_accepts_lists_and_returns_float(self):
        got = qwkit.expected_cost([[1, 1], [0, 2]], [[0, 1], [2, 0]])
        assert type(got) is float and got == 0.25

    def test_extreme_magnitudes(self):
        # Was a RuntimeWarning (overflow) for a confusion matrix near the float64 maximum.
        assert qwkit.expected_cost([[1e308, 1e308], [0, 0]], [[1, 1], [1, 1]]) == 1.0
        assert qwkit.expected_cost([[1e308, 1e308], [0, 0]], [[0, 1], [1, 0]]) == 0.5
        assert qwkit.expected_cost([[1e-320, 0], [0, 1e-320]], [[1, 3], [3, 5]]) == 3.0
        big = qwkit.expected_cost([[1, 1], [1, 1]], [[1e308, 1e308], [1e308, -1e308]])
        assert big == pytest.approx(5e307, rel=1e-15)
        table = np.array([[3, 1], [2, 4]])
        cost = np.array([[0.5, 2.0], [1.5, 0.25]])
        ref = qwkit.expected_cost(table, cost)
        assert qwkit.expected_cost(table * 2.0**1000, cost * 2.0**-1070) == ref * 2.0**-1070

    @pytest.mark.parametrize(
        ("confusion", "cost", "exc", "match"),
        [
            (
                [[1, 0], [0, 1]],
                [[0, 1, 2], [1, 0, 1], [2, 1, 0]],
                ValueError,
                "`cost` must have shape",
            ),
            ([[1, 0], [0, 1]], [[0, np.nan], [1, 0]], ValueError, "`cost` must be finite"),
            ([[1, 0], [0, 1]], [0, 1], ValueError, "`cost` must be a square"),
            ([[1, 0], [0, 1]], "quadratic", TypeError, "`cost` must be a"),
            ([[1, 0], [0, 1]], [["a", "b"], ["c", "d"]], TypeError, "`cost` must be numeric"),
            ([[1, 0], [0, 1]], None, TypeError, "`cost`"),
            ([[0, 0], [0, 0]], [[0, 1], [1, 0]], ValueError, "`confusion` is all zeros"),
            ([[-1, 0], [0, 1]], [[0, 1], [1, 0]], ValueError, "`confusion` must be non-neg"),
            ([1, 2], [[0, 1], [1, 0]], ValueError, "`confusion` must be a square"),
        ],
    )
    def test_errors(self, confusion, cost, exc, match):
        with pytest.raises(exc, match=match):
            qwkit.expected_cost(confusion, cost)


class TestCostMatrix:
    @pytest.mark.parametrize("kind", ["quadratic", "linear", "absolute", "0-1"])
    @pytest.mark.parametrize("k", [1, 2, 3, 8])
    def test_matches_definition(self, kind, k):
        np.testing.assert_allclose(qwkit.cost_matrix(k, kind), _named_cost(k, kind), atol=1e-15)

    def test_steele_weight_table(self):
        # Steele, §3.2: the quadratic weights of 4 categories, .11/.44/1
        expected = [
            [0, 0.11, 0.44, 1],
            [0.11, 0, 0.11, 0.44],
            [0.44, 0.11, 0, 0.11],
            [1, 0.44, 0.11, 0],
        ]
        np.testing.assert_array_equal(np.round(qwkit.cost_matrix(4, "quadratic"), 2), expected)

    def test_linear_is_absolute_normalized(self):
        for k in (2, 5, 9):
            np.testing.assert_allclose(
                qwkit.cost_matrix(k, "linear") * (k - 1), qwkit.cost_matrix(k, "absolute")
            )

    def test_normalized_kinds_are_kappa_weights(self):
        for kind in ("quadratic", "linear"):
            np.testing.assert_array_equal(qwkit.cost_matrix(6, kind), qwkit.weight_matrix(6, kind))

    def test_default_is_quadratic(self):
        np.testing.assert_array_equal(qwkit.cost_matrix(5), qwkit.cost_matrix(5, "quadratic"))

    @pytest.mark.parametrize(
        ("args", "exc", "match"),
        [
            ((4, "cubic"), ValueError, "`kind` must be 'quadratic'"),
            ((4, None), ValueError, "`kind`"),
            ((0, "linear"), ValueError, "`n_classes` must be at least 1; got 0"),
            ((2.5, "linear"), TypeError, "`n_classes` must be an integer"),
            ((True, "linear"), TypeError, "`n_classes`"),
        ],
    )
    def test_errors(self, args, exc, match):
        with pytest.raises(exc, match=match):
            qwkit.cost_matrix(*args)


class TestInsuranceLossMatrix:
    def test_steele_worked_example(self):
        # Steele, §4.2: true class 4, price 10 x class, cost 9 x class, buys at
        # any price below $45. Rated right: gain 40 - 36 = $4. Rated above: no sale, the
        # insurer "loses $4" (the gain it would have made). Rated 3, 2, 1: "loses $10, $20,
        # $30" -- relative to the right rating.
        loss = qwkit.insurance_loss_matrix(8, price_per_class=10, cost_per_class=9, tolerance=5)
        row = loss[3]
        assert -row[3] == 4.0
        np.testing.assert_array_equal(row - row[3], [30, 20, 10, 0, 4, 4, 4, 4])
        # the ledger itself: premium 10, 20, 30 against claims of 36; no sale above
        np.testing.assert_array_equal(-row, [-26, -16, -6, 4, 0, 0, 0, 0])

    def test_defaults_are_the_seed(self):
        np.testing.assert_array_equal(
            qwkit.insurance_loss_matrix(6),
            qwkit.insurance_loss_matrix(6, price_per_class=10, cost_per_class=9, tolerance=5),
        )

    @given(
        st.integers(1, 9),
        st.floats(0.5, 50),
        st.floats(0, 50),
        st.floats(0, 60),
    )
    def test_matches_rule(self, k, price, unit_cost, tolerance):
        loss = qwkit.insurance_loss_matrix(
            k, price_per_class=price, cost_per_class=unit_cost, tolerance=tolerance
        )
        for i in range(k):
            for j in range(k):
                profit = naive_insurance_profit(i + 1, j + 1, price, unit_cost, tolerance)
                assert loss[i, j] == pytest.approx(-profit, abs=1e-9)

    def test_tolerance_is_strict(self):
        # 'below $45': a premium equal to the willingness to pay is refused.
        loss = qwkit.insurance_loss_matrix(8, tolerance=10)  # class 4 pays below $50
        assert loss[3, 4] == 0.0
        loss = qwkit.insurance_loss_matrix(8, tolerance=10.5)
        assert loss[3, 4] == -(50 - 36)
        assert loss[3, 5] == 0.0
        # tolerance 0: nobody buys, not even at the fair premium
        assert np.all(np.triu(qwkit.insurance_loss_matrix(5, tolerance=0)) == 0)

    def test_asymmetric(self):
        loss = qwkit.insurance_loss_matrix(8)
        regret = loss - np.diag(loss)[:, None]
        assert np.all(regret >= 0)
        # under-rating by one costs the price step; over-rating the forgone margin
        assert not np.allclose(regret, regret.T)

    def test_bayes_decision_with_certainty_rates_right(self):
        loss = qwkit.insurance_loss_matrix(8)
        np.testing.assert_array_equal(qwkit.bayes_decision(np.eye(8), loss), np.arange(8))

    def test_bayes_decision_is_invariant_to_steeles_regret_form(self):
        rng = np.random.default_rng(20261121)
        proba = rng.dirichlet(np.ones(8), size=500)
        loss = qwkit.insurance_loss_matrix(8)
        regret = loss - np.diag(loss)[:, None]  # Steele's way of counting (§4.2)
        np.testing.assert_array_equal(
            qwkit.bayes_decision(proba, loss), qwkit.bayes_decision(proba, regret)
        )

    def test_expected_cost_is_minus_profit(self):
        table = np.array([[5, 1, 0], [2, 3, 1], [0, 1, 4]])
        loss = qwkit.insurance_loss_matrix(3)
        profit = (
            sum(
                table[i, j] * naive_insurance_profit(i + 1, j + 1, 10, 9, 5)
                for i in range(3)
                for j in range(3)
            )
            / table.sum()
        )
        assert -qwkit.expected_cost(table, loss) == pytest.approx(profit, abs=1e-12)

    def test_no_negative_zero(self):
        loss = qwkit.insurance_loss_matrix(4)
        assert not np.any(np.signbit(loss) & (loss == 0))

    @pytest.mark.parametrize(
        ("kwargs", "exc", "match"),
        [
            (dict(n_classes=0), ValueError, "`n_classes` must be at least 1"),
            (dict(n_classes="8"), TypeError, "`n_classes` must be an integer"),
            (
                dict(n_classes=4, price_per_class=0),
                ValueError,
                "`price_per_class` must be finite and positive",
            ),
            (
                dict(n_classes=4, cost_per_class=-1),
                ValueError,
                "`cost_per_class` must be finite and non-negative",
            ),
            (dict(n_classes=4, tolerance=np.inf), ValueError, "`tolerance` must be finite"),
            (
                dict(n_classes=4, tolerance="5"),
                TypeError,
                "`tolerance` must be a non-negative real number",
            ),
            (dict(n_classes=4, price_per_class=True), TypeError, "`price_per_class`"),
        ],
    )
    def test_errors(self, kwargs, exc, match):
        n = kwargs.pop("n_classes")
        with pytest.raises(exc, match=match):
            qwkit.insurance_loss_matrix(n, **kwargs)

    def test_extreme_parameters(self):
        # Was a RuntimeWarning (overflow): the premiums themselves exceed float64.
        with pytest.raises(ValueError, match=r"`price_per_class` times the number of classes"):
            qwkit.insurance_loss_matrix(3, price_per_class=1e308, cost_per_class=1.0)
        with pytest.raises(ValueError, match=r"`cost_per_class` times the number of classes"):
            qwkit.insurance_loss_matrix(3, price_per_class=1.0, cost_per_class=1e308)
        # a willingness to pay beyond float64 is still "buys"
        loss = qwkit.insurance_loss_matrix(
            3, price_per_class=1e307, cost_per_class=1e307, tolerance=1.7e308
        )
        np.testing.assert_allclose(
            loss, 1e307 * (np.arange(3)[:, None] - np.arange(3)), rtol=1e-15, atol=0
        )


class TestRiskClassModel:
    def test_equal_mass_classes(self):
        model = qwkit.risk_class_model(8)
        np.testing.assert_allclose(stats.norm.cdf(model.edges), np.arange(1, 8) / 8, atol=1e-14)
        # Steele, §4.3: classes 1 and 8 hold the tails, 4 and 5 are the narrowest
        widths = np.diff(model.edges)  # classes 2..7; classes 4 and 5 are widths[2:4]
        assert widths[2] == pytest.approx(widths[3], abs=1e-14)
        assert widths[2] < widths[[0, 1, 4, 5]].min()

    @pytest.mark.parametrize("loss", ["absolute", "squared"])
    @pytest.mark.parametrize(("mean", "sd"), [(0.0, 1.0), (3.0, 2.5)])
    def test_matches_integration(self, loss, mean, sd):
        k = 5
        model = qwkit.risk_class_model(k, mean=mean, sd=sd, loss=loss)
        for i in range(k):
            for j in range(k):
                cost, m_j = naive_risk_cost(k, i, j, mean=mean, sd=sd, loss=loss)
                assert model.cost[i, j] == pytest.approx(cost, rel=1e-7, abs=1e-9)
                assert model.class_means[j] == pytest.approx(m_j, rel=1e-7, abs=1e-9)
        assert model.loss == loss

    def test_steele_tail_versus_centre(self):
        # Steele, §4.3: a true 8 labelled 7 versus a true 5 labelled 4. Kappa
        # charges both the same; the mispricing differs by a factor above 2.
        model = qwkit.risk_class_model(8)
        tail, centre = model.cost[7, 6], model.cost[4, 3]
        assert tail == pytest.approx(naive_risk_cost(8, 7, 6)[0], rel=1e-7)
        assert centre == pytest.approx(naive_risk_cost(8, 4, 3)[0], rel=1e-7)
        assert tail > 2 * centre
        w = qwkit.weight_matrix(8)
        assert w[7, 6] == w[4, 3]

    def test_symmetric_distribution(self):
        model = qwkit.risk_class_model(7, loss="squared")
        np.testing.assert_allclose(model.cost, model.cost[::-1, ::-1], rtol=1e-12)
        np.testing.assert_allclose(model.class_means, -model.class_means[::-1], atol=1e-14)

    def test_bayes_with_certainty_rates_right(self):
        model = qwkit.risk_class_model(6)
        np.testing.assert_array_equal(qwkit.bayes_decision(np.eye(6), model.cost), np.arange(6))

    def test_many_classes_match_the_scalar_formula(self):
        # The absolute loss is evaluated for all (i, j) at once (it was a K² Python loop:
        # 14 s for 2000 classes); spot-check it against numerical integration.
        model = qwkit.risk_class_model(400, mean=1.0, sd=3.0)
        assert model.cost.shape == (400, 400)
        for i, j in [(0, 0), (0, 399), (199, 200), (399, 3), (250, 250)]:
            want, mean_j = naive_risk_cost(400, i, j, mean=1.0, sd=3.0)
            assert model.cost[i, j] == pytest.approx(want, rel=1e-7)
            assert model.class_means[j] == pytest.approx(mean_j, rel=1e-9)

    def test_extreme_parameters(self):
        # Were an OverflowError (σ² with sd=1e300) and RuntimeWarnings (overflow).
        with pytest.raises(ValueError, match=r"`sd` \(1e\+300\) is too large: the squared"):
            qwkit.risk_class_model(3, sd=1e300, loss="squared")
        with pytest.raises(ValueError, match=r"`mean` \(1e\+308\) and `sd` \(1e\+308\)"):
            qwkit.risk_class_model(3, mean=1e308, sd=1e308)
        with pytest.raises(ValueError, match=r"`sd` \(1e\+308\) is too large: the absolute"):
            qwkit.risk_class_model(3, sd=1e308)
        # large but representable: the costs scale with sd (absolute) or sd² (squared)
        unit = qwkit.risk_class_model(3)
        np.testing.assert_allclose(qwkit.risk_class_model(3, sd=1e300).cost, 1e300 * unit.cost)
        squared = qwkit.risk_class_model(3, sd=1e150, loss="squared").cost
        np.testing.assert_allclose(squared, 1e300 * qwkit.risk_class_model(3, loss="squared").cost)

    def test_arrays_stay_read_only_after_pickle(self):
        import copy
        import pickle

        model = qwkit.risk_class_model(4)
        for other in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
            for name in ("edges", "class_means", "cost"):
                assert not getattr(other, name).flags.writeable
                np.testing.assert_array_equal(getattr(other, name), getattr(model, name))

    def test_classes_via_apply_thresholds(self):
        model = qwkit.risk_class_model(4, mean=10, sd=2)
        got = qwkit.apply_thresholds([5.0, 9.0, 11.0, 20.0], model.edges)
        np.testing.assert_array_equal(got, [0, 1, 2, 3])

    @pytest.mark.parametrize(
        ("kwargs", "exc", "match"),
        [
            (dict(n_classes=1), ValueError, "`n_classes` must be at least 2"),
            (dict(n_classes=4, sd=0), ValueError, "`sd` must be finite and positive"),
            (dict(n_classes=4, mean=np.nan), ValueError, "`mean` must be finite"),
            (dict(n_classes=4, mean="0"), TypeError, "`mean` must be a real number"),
            (dict(n_classes=4, loss="huber"), ValueError, "`loss` must be 'absolute' or"),
        ],
    )
    def test_errors(self, kwargs, exc, match):
        n = kwargs.pop("n_classes")
        with pytest.raises(exc, match=match):
            qwkit.risk_class_model(n, **kwargs)
