"""The scorer evaluation: degradation test, PRMSE, SMD, the alt-test, evaluate_scorer,
sample sizes — against brute-force oracles (``tests/oracles/naive_evaluation.py``), published
values, the library's own paired kappa test, and simulations with a known truth."""

from __future__ import annotations

import csv
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import special

import qwkit
from oracles.naive_evaluation import (
    naive_degradation,
    naive_influence_se,
    naive_jackknife_se,
    naive_prmse,
    naive_pseudo_values,
    panel_kappa,
    reference_alt_test,
)
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._planning import normal_variance

DATA = Path(__file__).resolve().parents[1] / "data"


def panel(n, n_raters, rng, *, noise=0.7, machine_noise=0.7, real=False, missing=0.0, k=5):
    """Ordinal ratings 1..k of n items by n_raters humans and one machine, all noisy
    readings of one latent score."""
    truth = rng.normal(size=n)
    mid = (k + 1) / 2
    human = np.clip(np.rint(mid + truth[:, None] + rng.normal(0, noise, (n, n_raters))), 1, k)
    machine = mid + truth + rng.normal(0, machine_noise, n)
    if not real:
        machine = np.clip(np.rint(machine), 1, k)
    if missing:
        human[:, 1:][rng.random((n, n_raters - 1)) < missing] = np.nan
    return human, machine


# ---------------------------------------------------------------------------- engine


class TestItemSums:
    def test_kappa_and_its_ase_are_those_of_kappa_test(self):
        rng = np.random.default_rng(20261121)
        h, m = panel(150, 1, rng)
        for weights in ("quadratic", "linear", "identity"):
            wmat = None if weights == "quadratic" else qwkit.weight_matrix(5, weights)
            stat = kappa_sums(m - 1, h[:, 0] - 1, wmat)
            ref = qwkit.kappa_test(h[:, 0], m, weights=weights, labels=[1, 2, 3, 4, 5])
            se = math.sqrt(float(np.sum(stat.influence() ** 2))) / 150
            assert stat.value() == pytest.approx(ref.statistic, rel=1e-12)
            assert se == pytest.approx(ref.standard_error, rel=1e-10)

    def test_jackknife_is_leaving_each_item_out(self):
        rng = np.random.default_rng(1)
        h, m = panel(40, 3, rng, real=True, missing=0.3)
        stat = kappa_sums(m, h, None)
        for i, value in enumerate(stat.leave_one_out()):
            keep = np.arange(40) != i
            assert value == pytest.approx(panel_kappa(m[keep], h[keep]), rel=1e-10)

    def test_panel_kappa_pools_pairs(self):
        rng = np.random.default_rng(2)
        h, m = panel(50, 3, rng, missing=0.4)
        for weights in ("quadratic", "linear", "identity"):
            wmat = None if weights == "quadratic" else qwkit.weight_matrix(5, weights)
            stat = kappa_sums(m - 1, h - 1, wmat)
            assert stat.value() == pytest.approx(panel_kappa(m, h, weights), rel=1e-10)

    @pytest.mark.parametrize("weights", ["quadratic", "linear"])
    def test_numeric_arrays_are_read_as_any_input(self, weights):
        # numeric ndarrays take a vectorized shortcut; object arrays the general path
        from qwkit._evaluation._input import prepare

        rng = np.random.default_rng(33)
        h, m = panel(40, 3, rng, missing=0.3, real=weights == "quadratic")
        h = h + 10
        m = np.column_stack((m + 10, np.clip(np.rint(m), 1, 5) + 9))
        m[4, 1] = np.nan
        fast = prepare(h, m, weights=weights, nan_policy="omit")
        slow = prepare(h.astype(object), m.astype(object), weights=weights, nan_policy="omit")
        for name in ("human", "machine", "wmat", "scale"):
            np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))
        for name in ("human_names", "machine_names", "real", "weights", "n_omitted"):
            assert getattr(fast, name) == getattr(slow, name)

    def test_influence_is_the_numerical_derivative(self):
        rng = np.random.default_rng(3)
        h, m = panel(30, 2, rng, real=True, missing=0.3)
        stat = kappa_sums(m, h, None)
        se = math.sqrt(float(np.sum(stat.influence() ** 2))) / 30
        naive = naive_influence_se(lambda w: panel_kappa(m, h, "quadratic", w), 30)
        assert se == pytest.approx(naive, rel=1e-6)


# ---------------------------------------------------------------------------- degradation


class TestDegradationTest:
    def test_is_the_paired_comparison_of_two_kappas(self):
        # κ(h1, m) − κ(h1, h2) is compare_kappa_test(h1, m, h2): same value, same SE
        rng = np.random.default_rng(20261121)
        h, m = panel(300, 2, rng)
        res = qwkit.degradation_test(h, m, method="asymptotic")
        ref = qwkit.compare_kappa_test(h[:, 0], m, h[:, 1])  # Fleiss–Cohen–Everitt, normal
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.human_machine == pytest.approx(ref.kappa_a, rel=1e-12)
        assert res.human_human == pytest.approx(ref.kappa_b, rel=1e-12)
        assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-10)
        z = (res.statistic + 0.10) / res.standard_error
        assert res.pvalue == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-10)

    @pytest.mark.parametrize("weights", ["linear", "identity"])
    def test_other_weights(self, weights):
        rng = np.random.default_rng(4)
        h, m = panel(200, 2, rng)
        res = qwkit.degradation_test(h, m, weights=weights, method="asymptotic")
        ref = qwkit.compare_kappa_test(h[:, 0], m, h[:, 1], weights=weights)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-10)
        assert res.weights == weights

    def test_real_valued_machine_is_the_continuous_form(self):
        rng = np.random.default_rng(5)
        h, m = panel(120, 2, rng, real=True)
        res = qwkit.degradation_test(h, m, trim=False)
        assert res.human_machine == pytest.approx(qwkit.soft_kappa_score(h[:, 0], m), rel=1e-12)
        assert res.human_human == pytest.approx(qwkit.kappa_score(h[:, 0], h[:, 1]), rel=1e-12)
        # trimmed (the default, RSMTool's): within 0.4998 of the scale's ends
        assert (m < 0.5002).any() or (m > 5.4998).any()
        trimmed = qwkit.degradation_test(h, m)
        clipped = np.clip(m, 1 - 0.4998, 5 + 0.4998)
        assert trimmed.human_machine == pytest.approx(
            qwkit.soft_kappa_score(h[:, 0], clipped), rel=1e-12
        )

    def test_same_items_only(self):
        # the first two columns and the machine: items missing either human are left out
        rng = np.random.default_rng(6)
        h, m = panel(200, 3, rng, missing=0.5)
        res = qwkit.degradation_test(h, m)
        rows = ~np.isnan(h[:, 1])
        assert res.n_items == rows.sum()
        assert res.human_machine == pytest.approx(qwkit.kappa_score(h[rows, 0], m[rows]))

    def test_standard_errors_agree_with_jackknife_and_bootstrap(self):
        rng = np.random.default_rng(7)
        h, m = panel(60, 2, rng, real=True)
        m = np.clip(m, 1, 5)  # within the scale: trimming moves nothing
        asym = qwkit.degradation_test(h, m, method="asymptotic")
        jack = qwkit.degradation_test(h, m, method="jackknife")
        naive = naive_jackknife_se(lambda keep: naive_degradation(h[keep], m[keep]), 60)
        assert jack.standard_error == pytest.approx(naive, rel=1e-8)
        tilted = naive_influence_se(lambda w: naive_degradation(h, m, item_weights=w), 60)
        assert asym.standard_error == pytest.approx(tilted, rel=1e-6)
        boot = qwkit.degradation_test(h, m, method="bootstrap", n_resamples=4000, rng=8)
        assert boot.standard_error == pytest.approx(jack.standard_error, rel=0.1)
        low, high = boot.confidence_interval()
        assert low < boot.statistic < high

    def test_all_pairs(self):
        rng = np.random.default_rng(9)
        h, m = panel(80, 3, rng, missing=0.35, real=True)
        m = np.clip(m, 1, 5)  # within the scale: trimming moves nothing
        res = qwkit.degradation_test(h, m, pairs="all", method="asymptotic")
        assert res.n_pairs == 3
        assert res.statistic == pytest.approx(naive_degradation(h, m, "all"), rel=1e-10)
        assert res.statistic == pytest.approx(res.human_machine - res.human_human, abs=1e-14)
        # the jackknife deletes each item that enters some pair (two or more ratings)
        used = (~np.isnan(h)).sum(axis=1) >= 2
        hu, mu, n = h[used], m[used], int(used.sum())
        assert res.n_items == n
        jack = qwkit.degradation_test(h, m, pairs="all", method="jackknife")
        naive = naive_jackknife_se(lambda keep: naive_degradation(hu[keep], mu[keep], "all"), n)
        assert jack.standard_error == pytest.approx(naive, rel=1e-8)
        tilted = naive_influence_se(lambda w: naive_degradation(hu, mu, "all", item_weights=w), n)
        assert res.standard_error == pytest.approx(tilted, rel=1e-6)

    def test_interval_verdict_and_pvalue_agree(self):
        rng = np.random.default_rng(10)
        h, m = panel(150, 2, rng)
        res = qwkit.degradation_test(h, m, confidence_level=0.9)
        low, high = res.confidence_interval()
        assert (low, high) == res.confidence_interval(0.9)
        # the lower limit of the 90% interval is above -margin iff p < 0.05
        assert (low > -res.margin) == (res.pvalue < 0.05)
        assert res.verdict == ("pass" if low > -0.1 else "fail" if high < -0.1 else "inconclusive")

    def test_summary_and_dict(self):
        rng = np.random.default_rng(11)
        h, m = panel(50, 2, rng)
        res = qwkit.degradation_test(h, m)
        text = res.summary()
        assert "Degradation" in text and "Verdict" in text
        d = res.to_dict()
        json.dumps(d)
        assert d["statistic"] == res.statistic and d["verdict"] == res.verdict
        assert type(res).__module__ == "qwkit"

    def test_frames_and_text_labels(self):
        rng = np.random.default_rng(12)
        h, m = panel(60, 2, rng)
        base = qwkit.degradation_test(h, m)
        frame = pd.DataFrame(h, columns=["a", "b"])
        assert qwkit.degradation_test(frame, pd.Series(m)).statistic == base.statistic
        assert qwkit.degradation_test(pl.from_pandas(frame), pl.Series(m)).statistic == (
            base.statistic
        )
        words = np.array(["e", "d", "c", "b", "a"])  # 1 → "e", ..., 5 → "a"
        text = words[(h - 1).astype(int)]
        res = qwkit.degradation_test(text, words[(m - 1).astype(int)], labels=words[::-1])
        assert res.statistic == pytest.approx(base.statistic, rel=1e-12)

    def test_missing_machine_policy(self):
        rng = np.random.default_rng(13)
        h, m = panel(60, 2, rng, real=True)
        m[[3, 7]] = np.nan
        with pytest.raises(qwkit.QwkitError, match="nan_policy='omit'") as exc:
            qwkit.degradation_test(h, m)
        assert exc.value.parameter == "machine" and exc.value.row == 3
        res = qwkit.degradation_test(h, m, nan_policy="omit")
        keep = ~np.isnan(m)
        assert res.statistic == qwkit.degradation_test(h[keep], m[keep]).statistic


#: Every public function that takes ``human`` and ``machine`` (alt_test: ``judge``).
_TAKE_BOTH = {
    "degradation_test": qwkit.degradation_test,
    "evaluate_scorer": qwkit.evaluate_scorer,
    "prmse": qwkit.prmse,
    "standardized_mean_difference": qwkit.standardized_mean_difference,
    "alt_test": qwkit.alt_test,
}


class TestBadInputEverywhere:
    """The Bad input section of the feature, function by function: one clear error each,
    naming the parameter."""

    @staticmethod
    def _data(n=12, raters=3):
        rng = np.random.default_rng(31)
        h, m = panel(n, raters, rng)
        return h, m

    @pytest.mark.parametrize("name", sorted(_TAKE_BOTH))
    def test_mismatched_lengths(self, name):
        h, m = self._data()
        with pytest.raises(qwkit.QwkitError, match="got 12 and 11 rows") as exc:
            _TAKE_BOTH[name](h, m[:-1])
        assert exc.value.parameter in ("machine", "judge")

    @pytest.mark.parametrize("name", sorted(_TAKE_BOTH))
    def test_constant_machine(self, name):
        h, _ = self._data()
        with pytest.raises(qwkit.QwkitError, match="gives every item the same score"):
            _TAKE_BOTH[name](h, np.full(12, 3.0))

    @pytest.mark.parametrize("name", sorted(_TAKE_BOTH))
    def test_constant_human_column(self, name):
        h, m = self._data()
        h[:, 1] = 2.0
        with pytest.raises(qwkit.QwkitError, match=r"column 'human\[1\]' gives every item") as e:
            _TAKE_BOTH[name](h, m)
        assert e.value.parameter == "human"

    @pytest.mark.parametrize("name", sorted(_TAKE_BOTH))
    def test_missing_machine_score_needs_a_policy(self, name):
        h, m = self._data()
        m[4] = np.nan
        with pytest.raises(qwkit.QwkitError, match="nan_policy='omit'") as exc:
            _TAKE_BOTH[name](h, m)
        assert exc.value.row == 4
        few = {"min_items_per_rater": 5} if name == "alt_test" else {}
        _TAKE_BOTH[name](h, m, nan_policy="omit", **few)  # the documented policy

    @pytest.mark.parametrize("name", ["degradation_test", "evaluate_scorer", "prmse"])
    def test_no_double_scored_item(self, name):
        h = np.full((12, 2), np.nan)
        h[:6, 0] = [1, 2, 3, 4, 5, 3]
        h[6:, 1] = [2, 3, 4, 5, 1, 2]
        with pytest.raises(qwkit.QwkitError, match=r"0 of 12 items|0 double-scored") as e:
            _TAKE_BOTH[name](h, np.arange(12) % 5)
        assert e.value.parameter == "human"

    @pytest.mark.parametrize("name", ["degradation_test", "evaluate_scorer"])
    @pytest.mark.parametrize("margin", [0.0, 1.0, -0.05, 2, float("nan")])
    def test_margin_outside_zero_one(self, name, margin):
        h, m = self._data()
        with pytest.raises(qwkit.QwkitError, match="strictly between 0 and 1") as exc:
            _TAKE_BOTH[name](h, m, margin=margin)
        assert exc.value.parameter == "margin"


class TestBadInput:
    def test_no_double_scored_item(self):
        h = np.full((20, 2), np.nan)
        h[:10, 0] = np.arange(10) % 5
        h[10:, 1] = np.arange(10) % 5
        with pytest.raises(qwkit.QwkitError, match=r"0 of 20 items") as exc:
            qwkit.degradation_test(h, np.arange(20) % 5)
        assert exc.value.parameter == "human"
        with pytest.raises(qwkit.QwkitError, match=r"\(0 of 20 items are double-scored\)"):
            qwkit.evaluate_scorer(h, np.arange(20) % 5)
        with pytest.raises(qwkit.QwkitError, match="0 double-scored"):
            qwkit.prmse(h, np.arange(20) % 5)

    def test_other_pairs_are_suggested(self):
        rng = np.random.default_rng(14)
        h, m = panel(30, 3, rng)
        h[:15, 0] = np.nan
        h[15:, 1] = np.nan  # the first two columns share no item
        with pytest.raises(qwkit.QwkitError, match="pairs='all'"):
            qwkit.degradation_test(h, m)
        assert qwkit.degradation_test(h, m, pairs="all").n_pairs == 2

    def test_one_human_column(self):
        with pytest.raises(qwkit.QwkitError, match="one column") as exc:
            qwkit.degradation_test(np.array([[1], [2], [3]]), [1, 2, 3])
        assert exc.value.parameter == "human"

    def test_lengths(self):
        with pytest.raises(qwkit.QwkitError, match="got 3 and 2 rows") as exc:
            qwkit.degradation_test([[1, 2], [2, 2], [3, 3]], [1, 2])
        assert exc.value.parameters == ("machine", "human")

    def test_constant_columns(self):
        h = np.array([[1, 2], [2, 2], [3, 3], [1, 1]])
        with pytest.raises(qwkit.QwkitError, match="`machine` gives every item the same"):
            qwkit.degradation_test(h, [2, 2, 2, 2])
        with pytest.raises(qwkit.QwkitError, match="column 'human\\[1\\]' gives every item"):
            qwkit.degradation_test(np.array([[1, 2], [2, 2], [3, 2]]), [1, 2, 3])

    @pytest.mark.parametrize("margin", [0, 1, -0.1, 1.5])
    def test_margin(self, margin):
        with pytest.raises(qwkit.QwkitError, match="strictly between 0 and 1") as exc:
            qwkit.degradation_test([[1, 2], [2, 2], [3, 3]], [1, 2, 3], margin=margin)
        assert exc.value.parameter == "margin"

    def test_real_scores_need_quadratic_weights(self):
        with pytest.raises(qwkit.QwkitError, match="weights='linear' need ratings"):
            qwkit.degradation_test([[1, 2], [2, 2], [3, 3]], [1.5, 2, 3], weights="linear")

    def test_machine_off_the_scale(self):
        with pytest.raises(qwkit.QwkitError, match=r"not in `labels`.*\(row 2\)") as exc:
            qwkit.degradation_test([[1, 2], [2, 2], [3, 3]], [1, 2, 7], labels=[1, 2, 3])
        assert exc.value.row == 2

    def test_human_must_be_ratings(self):
        with pytest.raises(qwkit.QwkitError, match="row 1, column 0") as exc:
            qwkit.degradation_test([[1, 2], [2.5, 2], [3, 3]], [1, 2, 3])
        assert exc.value.row == 1

    def test_several_machines(self):
        with pytest.raises(qwkit.QwkitError, match="evaluate_scorer"):
            qwkit.degradation_test([[1, 2], [2, 2], [3, 3]], [[1, 2], [2, 2], [3, 1]])

    def test_options(self):
        h, m = [[1, 2], [2, 2], [3, 3]], [1, 2, 3]
        with pytest.raises(qwkit.QwkitError, match="`pairs`"):
            qwkit.degradation_test(h, m, pairs="some")
        with pytest.raises(qwkit.QwkitError, match="`method`"):
            qwkit.degradation_test(h, m, method="percentile")
        with pytest.raises(qwkit.QwkitError, match="`nan_policy`"):
            qwkit.degradation_test(h, m, nan_policy="drop")


# ---------------------------------------------------------------------------- PRMSE


class TestPRMSE:
    # Published values: RSMTool's tests/test_utils_prmse.py (github.com/
    # EducationalTestingService/rsmtool, commit 1178cd0), class TestPrmseJohnsonData —
    # "the benchmarks provided by Matt Johnson who did the original derivation and
    # implemented the function in R" — on tests/data/prmse_data*.csv (rsmtool
    # tests/data/files/, commit a844f71), checked there to 7 decimals.
    @pytest.mark.parametrize(
        ("name", "ve", "vt", "mse", "value"),
        [
            ("prmse_data.csv", 0.509375, 0.7765515, 0.3564625, 0.5409673),
            ("prmse_data_sparse_matrix.csv", 0.5150882, 0.769816, 0.3550792, 0.538748),
        ],
    )
    def test_published_values(self, name, ve, vt, mse, value):
        data = pd.read_csv(DATA / name)
        # the published values are of the system's scores as given (no trimming)
        res = qwkit.prmse(data[["h1", "h2", "h3", "h4"]], data["system"], trim=False)
        assert res.variance_of_errors == pytest.approx(ve, abs=5e-8)
        assert res.true_score_variance == pytest.approx(vt, abs=5e-8)
        assert res.mse_true == pytest.approx(mse, abs=5e-8)
        assert res.statistic == pytest.approx(value, abs=5e-8)
        assert res.n_items == 10_000

    def test_against_the_formulas_and_the_jackknife(self):
        rng = np.random.default_rng(15)
        h, m = panel(50, 3, rng, real=True, missing=0.5)
        m = np.clip(m, 1, 5)  # within the scale: trimming moves nothing
        res = qwkit.prmse(h, m, method="asymptotic")
        ve, vt, mse, value = naive_prmse(h, m)
        assert (res.variance_of_errors, res.true_score_variance, res.mse_true) == pytest.approx(
            (ve, vt, mse), rel=1e-10
        )
        assert res.statistic == pytest.approx(value, rel=1e-10)
        jack = qwkit.prmse(h, m, method="jackknife")
        naive = naive_jackknife_se(lambda keep: naive_prmse(h[keep], m[keep])[3], 50)
        assert jack.standard_error == pytest.approx(naive, rel=1e-8)
        assert res.standard_error == pytest.approx(jack.standard_error, rel=0.2)

    def test_no_true_score_variance(self):
        # raters who agree less than chance: the true-score variance estimate is negative
        h = np.array([[1, 5], [5, 1], [2, 4], [4, 2], [3, 3], [1, 4], [5, 2], [2, 5]])
        with pytest.warns(qwkit.DegenerateIntervalWarning, match="not positive"):
            res = qwkit.prmse(h, [1, 2, 3, 4, 5, 1, 2, 3])
        assert math.isnan(res.statistic) and res.true_score_variance < 0

    def test_summary_dict_interval(self):
        rng = np.random.default_rng(16)
        h, m = panel(80, 2, rng, real=True, missing=0.5)
        res = qwkit.prmse(h, m, confidence_level=0.9)
        low, high = res.confidence_interval()
        assert low < res.statistic < high
        # Fieller's interval is the set of values its test does not reject: at each limit
        # the one-sided p-value is 5% (the 90% interval)
        assert res._inference.pvalue(low, "greater") == pytest.approx(0.05, rel=1e-8)
        assert res._inference.pvalue(high, "less") == pytest.approx(0.05, rel=1e-8)
        assert res.n_double_scored == (~np.isnan(h[:, 1])).sum()
        json.dumps(res.to_dict())
        assert "PRMSE" in res.summary()


# ---------------------------------------------------------------------------- SMD


class TestStandardizedMeanDifference:
    def test_rsmtool_convention(self):
        # (mean(m) − mean(h)) / sd(h) with ddof = 1: RSMTool's method="unpooled"
        rng = np.random.default_rng(17)
        h, m = panel(100, 1, rng, real=True)
        res = qwkit.standardized_mean_difference(h[:, 0], m + 0.1, smd="unpooled", trim=False)
        expected = (np.mean(m + 0.1) - np.mean(h)) / np.std(h, ddof=1)
        assert res.statistic == pytest.approx(expected, rel=1e-12)
        assert res.unpooled == res.statistic and res.definition == "unpooled"
        # Williamson, Xi & Breyer's pooled SD, the default
        pooled = qwkit.standardized_mean_difference(h[:, 0], m + 0.1, trim=False)
        sd = math.sqrt((np.var(h, ddof=1) + np.var(m + 0.1, ddof=1)) / 2)
        assert pooled.statistic == pytest.approx((np.mean(m + 0.1) - np.mean(h)) / sd, rel=1e-12)
        assert pooled.pooled == pooled.statistic and pooled.unpooled == res.statistic
        assert res.sd_human == pytest.approx(np.std(h, ddof=1))
        assert res.mean_machine == pytest.approx(np.mean(m + 0.1))

    def test_standard_error_and_equivalence(self):
        rng = np.random.default_rng(18)
        h, m = panel(60, 2, rng, real=True)

        def smd(w):
            hh, mm = h[:, 0], m
            mean_h, mean_m = np.average(hh, weights=w), np.average(mm, weights=w)
            sd = math.sqrt(np.average((hh - mean_h) ** 2, weights=w) * 60 / 59)
            return (mean_m - mean_h) / sd

        res = qwkit.standardized_mean_difference(
            h, m, threshold=0.2, smd="unpooled", trim=False, method="asymptotic"
        )
        assert res.standard_error == pytest.approx(naive_influence_se(smd, 60), rel=1e-5)
        low, high = res.confidence_interval(0.9)
        assert (res.pvalue < 0.05) == (-0.2 < low and high < 0.2)


# ---------------------------------------------------------------------------- alt-test


def _as_dicts(human, judge):
    humans = {
        f"a{j}": {i: human[i, j] for i in range(human.shape[0]) if not np.isnan(human[i, j])}
        for j in range(human.shape[1])
    }
    return {i: judge[i] for i in range(len(judge)) if not np.isnan(judge[i])}, humans


class TestAltTest:
    @pytest.mark.parametrize("seed", range(6))
    @pytest.mark.parametrize("alignment", ["accuracy", "rmse"])
    def test_equals_the_reference_code(self, seed, alignment):
        rng = np.random.default_rng(seed)
        n_raters = int(rng.integers(3, 7))
        h, m = panel(
            int(rng.integers(40, 120)),
            n_raters,
            rng,
            missing=0.3,
            real=alignment == "rmse" and seed % 2 == 1,
        )
        epsilon = float(rng.choice([0.1, 0.15, 0.2]))
        llm, humans = _as_dicts(h, m)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy warns on constant differences
            rate, adv, pvalues = reference_alt_test(
                llm, humans, "accuracy" if alignment == "accuracy" else "neg_rmse", epsilon
            )
        names = [f"a{j}" for j in range(n_raters)]
        res = qwkit.alt_test(
            pd.DataFrame(h, columns=names), m, epsilon=epsilon, alignment=alignment
        )
        assert res.winning_rate == rate
        assert res.advantage_probability == pytest.approx(adv, abs=1e-12)
        assert res.passed == (rate >= 0.5)
        for name, p in zip(res.raters, res.pvalues, strict=True):
            assert p == pytest.approx(pvalues[name], rel=1e-9, nan_ok=True)
        assert set(res.raters) | set(res.skipped) == set(names)

    def test_benjamini_yekutieli_is_statsmodels(self):
        from statsmodels.stats.multitest import multipletests

        from qwkit._evaluation._alt_test import _benjamini_yekutieli

        rng = np.random.default_rng(19)
        for _ in range(50):
            p = rng.uniform(0, 0.05, size=int(rng.integers(2, 12)))
            assert list(_benjamini_yekutieli(p, 0.05)) == list(
                multipletests(p, alpha=0.05, method="fdr_by")[0]
            )

    def test_kappa_alignment_uses_pseudo_values(self):
        rng = np.random.default_rng(20)
        h, m = panel(40, 3, rng, real=True)
        res = qwkit.alt_test(h, m, alignment="kappa", min_items_per_rater=10)
        # annotator 0: the judge wins an item when its pseudo-value is at least the human's
        others = h[:, 1:]
        judge, human = naive_pseudo_values(m, others), naive_pseudo_values(h[:, 0], others)
        assert res.advantage[0] == pytest.approx(np.mean(judge >= human))

    def test_kappa_penalizes_shrinking(self):
        # A judge that predicts each item's expected rating shrunk halfway to the middle
        # is closer in squared error than a human rater, but has lower kappa.
        rng = np.random.default_rng(21)
        truth = rng.normal(size=300)
        h = np.clip(np.rint(3 + 1.2 * truth[:, None] + rng.normal(0, 0.8, (300, 4))), 1, 5)
        judge = 3 + 0.5 * 1.2 * truth
        rmse = qwkit.alt_test(h, judge, alignment="rmse", epsilon=0.1)
        kappa = qwkit.alt_test(h, judge, alignment="kappa", epsilon=0.1)
        assert rmse.passed and not kappa.passed
        assert kappa.advantage_probability < rmse.advantage_probability

    def test_errors_and_dict(self):
        h = np.array([[1, 2], [2, 3], [3, 3]])
        with pytest.raises(qwkit.QwkitError, match="No annotator") as exc:
            qwkit.alt_test(h, [1, 2, 3])
        assert exc.value.parameter == "human"
        with pytest.raises(qwkit.QwkitError, match="`alignment`"):
            qwkit.alt_test(h, [1, 2, 3], alignment="f1")
        with pytest.raises(qwkit.QwkitError, match="`q`"):
            qwkit.alt_test(h, [1, 2, 3], q=1.5)
        with pytest.warns(qwkit.DesignWarning, match="two annotators"):
            res = qwkit.alt_test(h, [1, 2, 3], min_items_per_rater=2)
        assert json.loads(json.dumps(res.to_dict()))["raters"] == ["human[0]", "human[1]"]
        assert "Winning rate" in res.summary()


# ---------------------------------------------------------------------------- evaluate


class TestEvaluateScorer:
    def test_criteria_are_the_component_tests(self):
        rng = np.random.default_rng(22)
        h, m = panel(400, 2, rng, real=True, missing=0.6)
        m = np.clip(m, 1, 5)  # within the scale: trimming moves nothing
        res = qwkit.evaluate_scorer(h, m)
        deg = qwkit.degradation_test(h, m)
        smd = qwkit.standardized_mean_difference(h, m)
        by = {c.name: c for c in res.criteria}
        assert by["degradation"].estimate == deg.statistic
        assert by["degradation"].pvalue == deg.pvalue
        assert by["degradation"].verdict == deg.verdict
        assert by["SMD"].estimate == smd.statistic
        assert by["SMD"].pvalue == pytest.approx(smd.pvalue)
        assert (by["SMD"].low, by["SMD"].high) == smd.confidence_interval()
        assert by["QWK"].estimate == pytest.approx(qwkit.soft_kappa_score(h[:, 0], m))
        assert by["Pearson r"].estimate == pytest.approx(np.corrcoef(h[:, 0], m)[0, 1])
        assert res.prmse.statistic == qwkit.prmse(h, m).statistic
        assert res.verdict in ("pass", "fail", "inconclusive")
        for c in res.criteria:
            assert c.verdict == qwkit._evaluation._criteria.verdict(
                c.low, c.high, c.threshold, c.relation
            )
        assert [c.criterion for c in res.criteria] == ["kappa", "pearson_r", "degradation", "smd"]

    def test_human_ceiling_and_agreement(self):
        rng = np.random.default_rng(23)
        h, m = panel(200, 3, rng, missing=0.3)
        res = qwkit.evaluate_scorer(h, m)
        hh = res.human_human
        both = ~np.isnan(h[:, 1])
        assert hh.kappa.statistic == pytest.approx(qwkit.kappa_score(h[both, 0], h[both, 1]))
        assert hh.exact_agreement.statistic == np.mean(h[both, 0] == h[both, 1])
        assert len(hh.pairs) == 3
        assert res.exact_agreement.statistic == np.mean(h[:, 0] == m)
        assert res.adjacent_agreement.statistic == np.mean(np.abs(h[:, 0] - m) <= 1)
        assert res.exact_agreement.low < res.exact_agreement.statistic < res.exact_agreement.high
        assert res["machine"].confusion.sum() == 200
        assert (
            res["machine"].confusion.tolist()
            == qwkit.confusion_matrix(h[:, 0], m, labels=[1, 2, 3, 4, 5]).tolist()
        )
        rater, est = res["machine"].per_rater[2]
        assert rater == "human[2]"
        keep = ~np.isnan(h[:, 2])
        assert est.statistic == pytest.approx(qwkit.kappa_score(h[keep, 2], m[keep]))

    def test_groups(self):
        rng = np.random.default_rng(24)
        h, m = panel(300, 2, rng, real=True, missing=0.5)
        groups = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, 300)]
        groups[:3] = "tiny"
        m = np.clip(m, 1, 5)  # within the scale: trimming moves nothing
        res = qwkit.evaluate_scorer(h, m, groups=groups)
        assert [g.group for g in res.groups] == ["a", "b", "c", "tiny"]
        sd_h, sd_m = np.std(h[:, 0], ddof=1), np.std(m, ddof=1)
        pooled = math.sqrt((sd_h**2 + sd_m**2) / 2)  # the population's pooled SD (Williamson)
        z = (m - m.mean()) / sd_m - (h[:, 0] - h[:, 0].mean()) / sd_h
        for g in res.groups:
            rows = groups == g.group
            assert g.n_items == rows.sum()
            diff = m[rows].mean() - h[rows, 0].mean()
            assert g.group_smd.statistic == pytest.approx(diff / pooled)
            assert g.dsm.statistic == pytest.approx(z[rows].mean())  # RSMTool's DSM
            assert g.kappa.statistic == pytest.approx(qwkit.soft_kappa_score(h[rows, 0], m[rows]))
        tiny = res.groups[3]
        assert tiny.verdict_group_smd == "inconclusive" and "3 items" in tiny.reason
        assert res.criteria[-1].name == "SMD within group"
        assert res.criteria[-1].verdict == "inconclusive"  # a group of three decides nothing
        # RSMTool's "johnson" subgroup SMD with smd="unpooled": the human SD
        unpooled = qwkit.evaluate_scorer(h, m, groups=groups, smd="unpooled")
        rows = groups == "a"
        assert unpooled.groups[0].group_smd.statistic == pytest.approx(
            (m[rows].mean() - h[rows, 0].mean()) / sd_h
        )
        # simultaneous (Bonferroni over 4 groups) Student-t intervals of a mean: the
        # jackknife of a mean is its standard error, s/√n
        g = res.groups[0]
        from scipy import stats

        u = (m[rows] - h[rows, 0]) / pooled
        se = np.std(u, ddof=1) / math.sqrt(u.size)
        assert g.group_smd.standard_error == pytest.approx(se, rel=1e-10)
        half = stats.t.ppf(1 - 0.025 / 4, g.group_smd.df) * se
        assert g.group_smd.high - g.group_smd.statistic == pytest.approx(half, rel=1e-10)

    def test_several_models(self):
        rng = np.random.default_rng(25)
        h, m = panel(150, 2, rng)
        frame = pd.DataFrame({"good": m, "shifted": np.clip(m + 1, 1, 5)})
        res = qwkit.evaluate_scorer(h, frame)
        assert [x.name for x in res.models] == ["good", "shifted"]
        assert res["shifted"].kappa.statistic < res["good"].kappa.statistic
        assert res[1] is res["shifted"]
        assert len(res.criteria) == 8
        with pytest.raises(qwkit.QwkitError, match="2 models"):
            _ = res.degradation
        with pytest.raises(KeyError):
            res["other"]

    def test_results_pickle_and_are_read_only(self):
        import copy
        import pickle

        rng = np.random.default_rng(34)
        h, m = panel(80, 2, rng)
        res = qwkit.evaluate_scorer(
            h, m, groups=rng.integers(0, 2, 80), method="bootstrap", n_resamples=50, rng=1
        )
        with pytest.warns(qwkit.DesignWarning, match="two annotators"):
            alt = qwkit.alt_test(h, m, min_items_per_rater=10)
        for obj in (
            res,
            res.degradation,
            res.prmse,
            alt,
            qwkit.degradation_sample_size(0.7, 0.7),
        ):
            again = pickle.loads(pickle.dumps(obj))
            assert again.to_dict() == obj.to_dict()
            assert copy.deepcopy(obj).to_dict() == obj.to_dict()
        assert (
            res.degradation.confidence_interval()
            == pickle.loads(pickle.dumps(res.degradation)).confidence_interval()
        )
        with pytest.raises(ValueError):
            res["machine"].confusion[0, 0] = 1

    def test_omit_and_dict(self):
        rng = np.random.default_rng(26)
        h, m = panel(100, 2, rng, real=True)
        m[5] = np.nan
        res = qwkit.evaluate_scorer(h, m, nan_policy="omit")
        assert res["machine"].n_omitted == 1 and res["machine"].n_items == 99
        out = json.loads(json.dumps(res.to_dict()))
        assert out["models"][0]["criteria"][0]["name"] == "QWK"
        assert out["labels"] == [1, 2, 3, 4, 5]
        text = res.summary()
        assert "the human-human ceiling" in text and "1 items not scored" in text

    @pytest.mark.parametrize("method", ["jackknife", "bootstrap"])
    def test_methods(self, method):
        rng = np.random.default_rng(27)
        h, m = panel(120, 2, rng, missing=0.4)
        res = qwkit.evaluate_scorer(h, m, method=method, n_resamples=300, rng=1)
        base = qwkit.evaluate_scorer(h, m)
        for a, b in zip(res.criteria, base.criteria, strict=True):
            assert a.estimate == b.estimate
            assert a.high - a.low == pytest.approx(b.high - b.low, rel=0.35)

    def test_plots(self):
        import io

        rng = np.random.default_rng(28)
        h, m = panel(120, 3, rng, missing=0.3)
        # user text with a '$' is printed, not read as a formula
        human = {f"h${j}": h[:, j] for j in range(3)}
        machine = {"a $model": m, "b": np.clip(m + 1, 1, 5)}
        res = qwkit.evaluate_scorer(human, machine, groups=rng.integers(0, 3, 120))
        for kind in ("criteria", "raters", "groups", "confusion", "distribution"):
            fig = res.plot(kind)
            assert fig.axes
            fig.savefig(io.BytesIO(), format="png")  # draws every text
        labels = [t.get_text() for t in res.plot("raters").axes[0].get_yticklabels()]
        assert labels[:3] == [r"h\$0 vs h\$1", r"h\$0 vs h\$2", r"h\$1 vs h\$2"]
        assert labels[3] == r"a \$model vs h\$0"
        assert len(labels) == 3 + 2 * 3
        assert "b (" not in res.plot("confusion", model="b").axes[1].get_xlabel()
        with pytest.raises(qwkit.QwkitError, match="no subgroups"):
            qwkit.evaluate_scorer(h, m).plot("groups")
        with pytest.raises(qwkit.QwkitError, match="`kind`"):
            res.plot("ceiling")

    def test_mapping_of_columns(self):
        rng = np.random.default_rng(29)
        h, m = panel(150, 3, rng, real=True, missing=0.4)
        human = {"ann": h[:, 0], "bob": list(h[:, 1]), "cy": pd.Series(h[:, 2])}
        res = qwkit.evaluate_scorer(human, {"model": m}, pairs="all")
        base = qwkit.evaluate_scorer(h, m, pairs="all")
        assert res.human_names == ("ann", "bob", "cy")
        assert [x.name for x in res.models] == ["model"]
        assert [c.estimate for c in res.criteria] == [c.estimate for c in base.criteria]
        assert [a for a, _, _ in res.human_human.pairs] == ["ann", "ann", "bob"]
        # a dict of columns is read as a data frame is
        frame = qwkit.evaluate_scorer(pd.DataFrame(human), pd.DataFrame({"model": m}), pairs="all")
        assert frame.to_dict() == res.to_dict()
        text = {"a": ["lo", "hi", "mid", None, "hi"], "b": ["lo", "mid", "mid", "hi", None]}
        deg = qwkit.degradation_test(
            text, ["lo", "hi", "mid", "hi", "hi"], labels=["lo", "mid", "hi"]
        )
        assert deg.n_items == 3

    def test_mapping_errors(self):
        with pytest.raises(
            qwkit.QwkitError, match=r"`human` columns must rate the same items.*'a': 3, 'b': 2"
        ):
            qwkit.evaluate_scorer({"a": [1, 2, 3], "b": [1, 2]}, [1, 2, 3])
        with pytest.raises(
            qwkit.QwkitError, match="`human` column 'a' must hold one rating per item"
        ):
            qwkit.evaluate_scorer({"a": [[1, 2]], "b": [1]}, [1])
        with pytest.raises(qwkit.QwkitError, match="`machine` holds no column"):
            qwkit.evaluate_scorer([[1, 2], [2, 2], [3, 3]], {})
        with pytest.raises(qwkit.QwkitTypeError, match="mixes text and numbers"):
            qwkit.evaluate_scorer({"a": [1, 2, 3], "b": ["1", "2", "3"]}, [1, 2, 3])

    def test_progress_counts_every_statistic(self):
        rng = np.random.default_rng(30)
        h, m = panel(120, 4, rng, missing=0.5)
        h[:, 3] = np.nan
        h[:2, 3] = 3.0  # a fourth column that shares fewer than two items with the others
        h[1, 3] = 4.0
        m = np.where(rng.random(120) < 0.1, np.nan, m)
        groups = rng.integers(0, 4, 120)
        groups[:1] = 9  # a group of one item: no interval
        calls = []
        res = qwkit.evaluate_scorer(
            h, {"x": m, "y": m[::-1]}, groups=groups, nan_policy="omit",
            progress=lambda done, total: calls.append((done, total)),
        )  # fmt: skip
        total = calls[-1][1]
        assert calls[-1] == (total, total) and {t for _, t in calls} == {total}
        # six stages per machine, then the ceiling and the comparisons, each once
        assert [d for d, _ in calls] == list(range(1, total + 1))
        assert total == 6 * len(res.models) + 2
        with pytest.raises(qwkit.QwkitTypeError, match="`progress`"):
            qwkit.evaluate_scorer(h[:, :2], m, nan_policy="omit", progress=3)


# ---------------------------------------------------------------------------- planning


class TestSampleSize:
    def test_normal_variance_by_monte_carlo(self):
        # the Isserlis formula against the mean squared influence of 10^6 normal items
        rng = np.random.default_rng(29)
        a, b = 0.7, 0.6
        cov = np.array([[1, a, b], [a, 1, b], [b, b, 1]])
        x = rng.multivariate_normal(np.zeros(3), cov, size=1_000_000)
        h1, h2, m = x.T
        infl = (h1 * m - b / 2 * (h1**2 + m**2)) - (h1 * h2 - a / 2 * (h1**2 + h2**2))
        assert np.mean(infl**2) == pytest.approx(normal_variance(a, b, b), rel=0.01)

    def test_pilot_data(self):
        rng = np.random.default_rng(30)
        h, m = panel(300, 2, rng, real=True)
        plan = qwkit.degradation_sample_size(human=h, machine=m, power=0.9)
        deg = qwkit.degradation_test(h, m, method="asymptotic")  # both trim the same way
        assert plan.standard_deviation == pytest.approx(deg.standard_error * math.sqrt(300))
        assert plan.expected_degradation == pytest.approx(deg.statistic)
        assert plan.power_at(plan.n_items) >= 0.9 > plan.power_at(plan.n_items - 1)
        assert plan.reason is None

    def test_a_failing_pilot_gives_a_reason_or_the_n_of_a_stated_target(self):
        rng = np.random.default_rng(33)
        t = rng.normal(size=200)
        h = np.clip(np.rint(3 + 1.2 * t[:, None] + rng.normal(0, 0.6, (200, 2))), 1, 5)
        m = 3 + 0.5 * t + rng.normal(0, 1.2, 200)  # far worse than the humans
        deg = qwkit.degradation_test(h, m)
        assert deg.statistic < -0.1
        plan = qwkit.degradation_sample_size(human=h, machine=m)
        assert plan.n_items is None and plan.expected_degradation == deg.statistic
        assert "pilot's degradation" in plan.reason and "`expected_degradation`" in plan.reason
        target = qwkit.degradation_sample_size(human=h, machine=m, expected_degradation=-0.05)
        assert target.standard_deviation == plan.standard_deviation
        z = special.ndtri(0.975) + special.ndtri(0.8)
        assert target.n_items == math.ceil((z * plan.standard_deviation / 0.05) ** 2)
        at_margin = qwkit.degradation_sample_size(human=h, machine=m, expected_degradation=-0.1)
        assert at_margin.n_items is None and "expected degradation" in at_margin.reason
        with pytest.raises(qwkit.QwkitError, match="`expected_degradation` must be"):
            qwkit.degradation_sample_size(human=h, machine=m, expected_degradation=-1.5)
        with pytest.raises(qwkit.QwkitTypeError, match="`expected_degradation` must be"):
            qwkit.degradation_sample_size(human=h, machine=m, expected_degradation="-0.05")

    def test_errors(self):
        with pytest.raises(qwkit.QwkitError, match="either the pilot kappas"):
            qwkit.degradation_sample_size()
        failing = qwkit.degradation_sample_size(0.8, 0.6)
        assert failing.n_items is None and "at or below −margin" in failing.reason
        assert failing.power_at(10_000) < failing.alpha
        assert "Double-scored items needed          none" in failing.summary()
        assert json.loads(json.dumps(failing.to_dict()))["n_items"] is None
        with pytest.raises(qwkit.QwkitError, match="`expected_degradation` goes with pilot"):
            qwkit.degradation_sample_size(0.8, 0.75, expected_degradation=-0.02)
        with pytest.raises(qwkit.QwkitError, match="`human_machine` is missing"):
            qwkit.degradation_sample_size(0.8)
        with pytest.raises(qwkit.QwkitError, match="`power`"):
            qwkit.degradation_sample_size(0.8, 0.8, power=1.0)
        assert "Double-scored items needed" in qwkit.degradation_sample_size(0.8, 0.8).summary()


# ---------------------------------------------------------------------------- simulations


class TestSimulations:
    def test_coverage_of_an_exchangeable_machine(self):
        # a machine that is one more rater like the humans: true degradation 0
        rng = np.random.default_rng(31)
        covered = 0
        for _ in range(300):
            h, m = panel(150, 2, rng, noise=0.8, machine_noise=0.8)
            low, high = qwkit.degradation_test(h, m).confidence_interval()
            covered += low <= 0 <= high
        assert 0.91 <= covered / 300 <= 0.98

    def test_prmse_coverage(self):
        # true scores T ~ N(0, 1), human = T + N(0, 0.6²), machine = T + N(0, 0.5²):
        # PRMSE = 1 − 0.25 / 1 = 0.75
        rng = np.random.default_rng(32)
        covered = 0
        for _ in range(300):
            t = rng.normal(size=200)
            h = t[:, None] + rng.normal(0, 0.6, (200, 2))
            h = np.rint(h * 4) / 4 * 4  # ratings on a fine integer grid
            h[100:, 1] = np.nan
            m = 4 * (t + rng.normal(0, 0.5, 200))
            low, high = qwkit.prmse(h, m).confidence_interval()
            covered += low <= 0.75 <= high
        assert 0.91 <= covered / 300 <= 0.98


# ---------------------------------------------------------------------------- data


class TestLoadHanna:
    def test_contents(self):
        hanna = qwkit.load_hanna()
        assert hanna.human["RE"].shape == (1056, 3) and hanna.human["RE"].dtype == np.int64
        assert set(hanna.criteria) == {"RE", "CH", "EM", "SU", "EG", "CX"}
        assert len(set(hanna.system.tolist())) == 11
        assert int(np.isnan(hanna.mistral["CH"]).sum()) > 0
        assert not np.isnan(hanna.chatgpt["CH"]).any()
        path = Path(qwkit.__file__).parent / "data" / "hanna_wide.csv"
        with path.open(encoding="utf-8") as fh:
            first = next(csv.DictReader(fh))
        assert hanna.human["RE"][0].tolist() == [int(first[f"RE_h{k}"]) for k in (1, 2, 3)]
        assert hanna.chatgpt["RE"][0] == float(first["RE_chatgpt"])
        assert "lashoun" in hanna.citation

    def test_judges(self):
        judges = qwkit.load_hanna_judges()
        hanna = qwkit.load_hanna()
        assert judges.score.shape == (126720,) and len(judges.judges) == 5
        # every judge × prompt × criterion rates every story once
        keys = np.rec.fromarrays([judges.judge, judges.prompt, judges.criterion, judges.story_id])
        assert np.unique(keys).size == judges.score.size == 5 * 4 * 6 * 1056
        # prompt 1 of ChatGPT's relevance and Mistral's coherence are load_hanna's judges
        for judge, code, scores in (("ChatGPT", "RE", hanna.chatgpt), ("Mistral-7B", "CH",
                                                                       hanna.mistral)):  # fmt: skip
            rows = (judges.judge == judge) & (judges.criterion == code) & (judges.prompt == 1)
            order = np.argsort(judges.story_id[rows])
            np.testing.assert_array_equal(judges.score[rows][order], scores[code])
        assert np.isnan(judges.score).any() and np.nanmin(judges.score) >= 1
        assert "lashoun" in judges.citation

    def test_licence_is_shipped(self):
        readme = (Path(qwkit.__file__).parent / "data" / "README.md").read_text(encoding="utf-8")
        assert "Copyright (c) 2022 lashoun" in readme
        assert "Permission is hereby granted, free of charge" in readme
