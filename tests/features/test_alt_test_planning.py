"""``alt_test_sample_size``: the simulated decision is :func:`alt_test`'s, test by test;
the plan is the smallest number of items that reaches the power; pilot data give the
rates ``alt_test`` reports; bad input names its parameter. (That the planned power is
the power of whole simulated studies is checked by ``benchmarks/alt_test_planning.py``,
with its table in ``docs/evaluation.md``.)"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import qwkit
from qwkit._evaluation._alt_planning import count_moments, pass_probability, passes
from qwkit._evaluation._alt_test import _benjamini_yekutieli, _t_pvalue


def _panel(n, raters, rng, judge_sd=0.9):
    t = rng.normal(size=n)
    human = np.clip(np.rint(3 + 1.2 * t[:, None] + rng.normal(0, 0.8, (n, raters))), 1, 5)
    judge = np.clip(np.rint(3 + 1.2 * t + rng.normal(0, judge_sd, n)), 1, 5)
    return human, judge


class TestDecision:
    def test_the_decision_is_alt_tests(self):
        # counts → d vectors → the t-test and Benjamini–Yekutieli alt_test runs
        rng = np.random.default_rng(1)
        for _ in range(300):
            m, n = int(rng.integers(2, 8)), int(rng.integers(2, 40))
            epsilon, q = float(rng.choice([0.0, 0.1, 0.2])), float(rng.choice([0.05, 0.2]))
            plus = rng.integers(0, n + 1, m)
            minus = np.array([int(rng.integers(0, n - p + 1)) for p in plus])
            pvalues = []
            for p_, m_ in zip(plus, minus, strict=True):
                d = np.concatenate([np.ones(p_), -np.ones(m_), np.zeros(n - p_ - m_)])
                pvalues.append(_t_pvalue(d, epsilon))
            rejected = _benjamini_yekutieli(np.array(pvalues), q)
            expected = 2 * int(rejected.sum()) >= m
            mean, var = count_moments(plus[None], minus[None], n)
            got = passes(mean, var, n, np.ones(m), epsilon, q)[0]
            assert bool(got) == expected, (plus, minus, n, epsilon, q, pvalues)

    def test_design_effect_scales_the_standard_error(self):
        mean, var = count_moments(np.array([[10, 12]]), np.array([[20, 19]]), 50)
        assert passes(mean, var, 50, np.ones(2), 0.2, 0.05)[0]
        assert not passes(mean, var, 50, np.full(2, 9.0), 0.2, 0.05)[0]

    def test_power_by_monte_carlo(self):
        rates = np.array([[0.35, 0.3, 0.35], [0.3, 0.4, 0.3], [0.4, 0.2, 0.4]])
        power = pass_probability(rates, np.ones(3), 60, 0.2, 0.05, 20_000, np.random.default_rng(2))
        rng = np.random.default_rng(3)
        wins = 0
        for _ in range(2000):
            pvalues = []
            for r in rates:
                d = rng.choice([1.0, 0.0, -1.0], size=60, p=r)
                pvalues.append(_t_pvalue(d, 0.2))
            wins += 2 * int(_benjamini_yekutieli(np.array(pvalues), 0.05).sum()) >= 3
        assert wins / 2000 == pytest.approx(power, abs=0.035)


class TestCorrelation:
    def test_shared_shock_keeps_the_marginals_and_correlates_the_means(self):
        # the means of two annotators correlate by c, each keeping its mean and variance
        from qwkit._evaluation import _alt_planning

        rates = np.array([[0.3, 0.3, 0.4], [0.3, 0.3, 0.4]])
        captured = {}

        def spy(mean, var, n, effects, epsilon, q):
            captured["mean"] = mean
            return np.zeros(mean.shape[0], dtype=bool)

        original = _alt_planning.passes
        _alt_planning.passes = spy
        try:
            pass_probability(
                rates, np.ones(2), 200, 0.2, 0.05, 50_000, np.random.default_rng(1), 0.4
            )
        finally:
            _alt_planning.passes = original
        mean = captured["mean"]
        assert np.corrcoef(mean.T)[0, 1] == pytest.approx(0.4, abs=0.02)
        assert mean.mean(axis=0) == pytest.approx([-0.1, -0.1], abs=0.002)
        assert mean.std(axis=0) == pytest.approx(
            [math.sqrt(0.7 - 0.01) / math.sqrt(200)] * 2, rel=0.02
        )

    def test_correlated_annotators_pass_less_often(self):
        kw = {"epsilon": 0.2, "n_annotators": [3], "ties": 0.6, "advantage": 0.8, "rng": 2}
        independent = qwkit.alt_test_sample_size(correlation=0.0, **kw)
        correlated = qwkit.alt_test_sample_size(correlation=0.6, **kw)
        assert correlated.n_items_per_annotator > independent.n_items_per_annotator
        assert correlated.correlation == 0.6 and independent.correlation == 0.0
        assert qwkit.alt_test_sample_size(**kw).correlation == 0.5  # the default assumption

    def test_shared_items(self):
        from qwkit._evaluation._alt_planning import shared_correlation

        assert shared_correlation(0.5, None, 8) == 0.5
        assert shared_correlation(0.5, 3, 8) == pytest.approx(0.5 * 2 / 7)
        assert shared_correlation(0.5, 3, 3) == 0.5 and shared_correlation(0.5, 9, 3) == 0.5
        plan = qwkit.alt_test_sample_size(
            advantage=0.8, ties=0.6, n_annotators=[8], raters_per_item=3, rng=3
        )
        everyone = qwkit.alt_test_sample_size(advantage=0.8, ties=0.6, n_annotators=[8], rng=3)
        assert plan.n_items_per_annotator < everyone.n_items_per_annotator
        assert plan.raters_per_item == 3.0 and everyone.raters_per_item is None

    def test_pilot_estimates(self):
        # three annotators on every item: d of two annotators correlate through the judge
        rng = np.random.default_rng(4)
        human, judge = _panel(3000, 3, rng)
        plan = qwkit.alt_test_sample_size(human, judge, n_annotators=[3], n_simulations=500, rng=5)
        d = []
        for j in range(3):
            others = np.delete(human, j, axis=1)
            sj = (others == judge[:, None]).mean(axis=1)
            sh = (others == human[:, [j]]).mean(axis=1)
            d.append((sh >= sj).astype(float) - (sj >= sh))
        expected = np.mean([np.corrcoef(d[a], d[b])[0, 1] for a, b in ((0, 1), (0, 2), (1, 2))])
        assert plan.correlation == pytest.approx(expected, abs=0.01)
        assert plan.raters_per_item == 3.0


class TestAltTestSampleSize:
    def test_the_plan_is_the_smallest_n(self):
        plan = qwkit.alt_test_sample_size(
            advantage=0.6, ties=0.3, epsilon=0.2, n_annotators=[3, 5], rng=4
        )
        for m, n, p in zip(plan.annotators, plan.items_per_annotator, plan.powers, strict=True):
            assert plan.power_at(m, n) == p >= 0.8 > plan.power_at(m, n - 1)
        best = min(
            (m * n, m) for m, n in zip(plan.annotators, plan.items_per_annotator, strict=True)
        )
        assert (plan.n_annotators * plan.n_items_per_annotator, plan.n_annotators) == best
        assert plan.simulated_power == plan.power_at(plan.n_annotators, plan.n_items_per_annotator)
        assert plan.rates == ((0.4, 0.3, 0.3),) and plan.design_effects == (1.0,)
        assert plan.source == "assumed rates" and plan.alignment is None
        again = qwkit.alt_test_sample_size(
            advantage=0.6, ties=0.3, epsilon=0.2, n_annotators=[3, 5], rng=4
        )
        assert again.items_per_annotator == plan.items_per_annotator

    def test_more_power_needs_more_items(self):
        low = qwkit.alt_test_sample_size(advantage=0.65, ties=0.2, n_annotators=4, power=0.7, rng=5)
        high = qwkit.alt_test_sample_size(
            advantage=0.65, ties=0.2, n_annotators=4, power=0.9, rng=5
        )
        assert low.n_items_per_annotator < high.n_items_per_annotator

    def test_rates_per_annotator_cycle(self):
        plan = qwkit.alt_test_sample_size(
            advantage=[0.7, 0.5], ties=[0.2, 0.1], n_annotators=[2, 4], rng=6
        )
        assert np.allclose(plan.rates, ((0.3, 0.2, 0.5), (0.5, 0.1, 0.4)), atol=1e-15)
        cycled = qwkit.alt_test_sample_size(
            advantage=[0.7, 0.5, 0.7, 0.5], ties=[0.2, 0.1, 0.2, 0.1], n_annotators=4, rng=6
        )
        assert cycled.power_at(4, 80, rng=7) == plan.power_at(4, 80, rng=7)

    def test_minimum_items(self):
        # a judge much better than the annotators passes at the least n alt_test accepts
        plan = qwkit.alt_test_sample_size(advantage=0.95, ties=0.1, n_annotators=3, rng=8)
        assert plan.n_items_per_annotator == 30 and plan.powers[0] > 0.99
        few = qwkit.alt_test_sample_size(
            advantage=0.95, ties=0.1, n_annotators=3, min_items_per_rater=5, rng=8
        )
        assert few.n_items_per_annotator < 30

    def test_no_design_can_pass(self):
        plan = qwkit.alt_test_sample_size(advantage=0.35, ties=0.1, epsilon=0.2, rng=9)
        assert plan.n_annotators is None and plan.n_items_per_annotator is None
        assert all(n is None for n in plan.items_per_annotator)
        assert all(math.isnan(p) for p in plan.powers) and math.isnan(plan.simulated_power)
        assert "no number of items passes this judge" in plan.reason
        assert "No design reaches the power" in plan.summary()
        capped = qwkit.alt_test_sample_size(
            advantage=0.6, ties=0.3, epsilon=0.2, n_annotators=3, max_items_per_rater=40, rng=9
        )
        assert capped.n_annotators is None and "max_items_per_rater" in capped.reason
        assert 0 < capped.powers[0] < 0.8

    def test_pilot_data(self):
        rng = np.random.default_rng(10)
        human, judge = _panel(120, 4, rng)
        res = qwkit.alt_test(human, judge, epsilon=0.2)
        plan = qwkit.alt_test_sample_size(human, judge, epsilon=0.2, n_annotators=[4], rng=11)
        assert plan.source == "pilot data" and plan.alignment == "accuracy"
        for (better, tie, worse), adv, ties in zip(
            plan.rates, res.advantage, res.ties, strict=True
        ):
            assert tie == pytest.approx(ties) and tie + worse == pytest.approx(adv)
            assert better + tie + worse == pytest.approx(1.0)
        kappa = qwkit.alt_test_sample_size(
            human,
            judge,
            alignment="kappa",
            epsilon=0.2,
            n_annotators=[4],
            n_simulations=1000,
            rng=11,
        )
        # the jackknife's dependence: the variance of mean(d) above independent items'
        assert max(kappa.design_effects) > 1.2 and all(e > 0 for e in kappa.design_effects)

    def test_summary_and_dict(self):
        plan = qwkit.alt_test_sample_size(advantage=0.6, ties=0.3, n_annotators=[3, 4], rng=12)
        text = plan.summary()
        assert "Plan: 3 annotators x" in text and "assumed rates" in text
        out = json.loads(json.dumps(plan.to_dict()))
        assert out["n_annotators"] == plan.n_annotators and out["reason"] is None
        assert out["items_per_annotator"] == list(plan.items_per_annotator)

    def test_bad_input(self):
        with pytest.raises(qwkit.QwkitError, match="either assumed rates") as err:
            qwkit.alt_test_sample_size()
        assert err.value.parameter == "advantage"
        human, judge = _panel(40, 3, np.random.default_rng(13))
        with pytest.raises(qwkit.QwkitError, match="either assumed rates"):
            qwkit.alt_test_sample_size(human, judge, advantage=0.6)
        with pytest.raises(qwkit.QwkitError, match="`judge` is missing"):
            qwkit.alt_test_sample_size(human)
        with pytest.raises(qwkit.QwkitError, match="`advantage` must hold probabilities") as err:
            qwkit.alt_test_sample_size(advantage=[0.6, 1.2])
        assert err.value.row == 1
        with pytest.raises(qwkit.QwkitTypeError, match="`advantage`"):
            qwkit.alt_test_sample_size(advantage="high")
        with pytest.raises(qwkit.QwkitError, match=r"`ties` \(0.7\) cannot exceed"):
            qwkit.alt_test_sample_size(advantage=0.6, ties=0.7)
        with pytest.raises(qwkit.QwkitError, match="give 2 and 3 annotators"):
            qwkit.alt_test_sample_size(advantage=[0.6, 0.7], ties=[0.1, 0.1, 0.1])
        with pytest.raises(qwkit.QwkitError, match="`n_annotators` must be at least 2"):
            qwkit.alt_test_sample_size(advantage=0.6, n_annotators=[1, 3])
        with pytest.raises(qwkit.QwkitTypeError, match="`n_annotators`"):
            qwkit.alt_test_sample_size(advantage=0.6, n_annotators="3")
        with pytest.raises(qwkit.QwkitError, match="`power`"):
            qwkit.alt_test_sample_size(advantage=0.6, power=1.0)
        with pytest.raises(qwkit.QwkitError, match="`epsilon`"):
            qwkit.alt_test_sample_size(advantage=0.6, epsilon=1.0)
        with pytest.raises(qwkit.QwkitError, match="`n_simulations` must be at least 100"):
            qwkit.alt_test_sample_size(advantage=0.6, n_simulations=10)
        with pytest.raises(qwkit.QwkitError, match="`correlation` must be in"):
            qwkit.alt_test_sample_size(advantage=0.6, correlation=1.0)
        with pytest.raises(qwkit.QwkitError, match="`raters_per_item` must be at least 2"):
            qwkit.alt_test_sample_size(advantage=0.6, raters_per_item=1)
        with pytest.raises(qwkit.QwkitError, match="`max_items_per_rater` must be at least 30"):
            qwkit.alt_test_sample_size(advantage=0.6, max_items_per_rater=20)
        plan = qwkit.alt_test_sample_size(advantage=0.9, n_annotators=3, rng=0)
        with pytest.raises(qwkit.QwkitError, match="`n_items_per_annotator` must be at least 2"):
            plan.power_at(3, 1)
