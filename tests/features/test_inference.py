"""Tests of kappa inference: kappa_test, kappa_test_from_confusion, compare_kappa_test,
mean_kappa and the confidence intervals of their results.

Reference values carry their provenance in comments. Oracles are in
``tests/oracles/naive_inference.py`` (numerical-gradient delta method, cell-by-cell FCE null
variance, literal leave-one-out jackknife, a transcription of ml_metrics).
"""

from __future__ import annotations

import math
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special, stats
from statsmodels.stats.inter_rater import cohens_kappa

import qwkit
from oracles.naive_inference import (
    kappa_of_proportions,
    naive_delta_variance,
    naive_delta_variance_difference,
    naive_fce_null_variance,
    naive_jackknife_se,
    naive_mean_quadratic_weighted_kappa,
)
from qwkit import UndefinedKappaWarning

DATA = Path(__file__).parents[1] / "data"
Z975 = float(special.ndtri(0.975))

# SAS PROC FREQ printout reproduced in statsmodels' tests:
# statsmodels/stats/tests/test_inter_rater.py, `table10` (line 36) and the classes
# TestUnweightedCohens / TestWeightedCohens (lines 176-234), statsmodels 0.15.
SAS_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]

# Cohen (1968), Psychol. Bull. 70(4):213-220, Table 1 (N = 200), as proportions; the
# same matrix (rows as printed) is in the examples of R psych's cohen.kappa
# (man/kappa.Rd: "#data matrix taken from Cohen").
COHEN_1968 = np.array([[0.44, 0.07, 0.09], [0.05, 0.20, 0.05], [0.01, 0.03, 0.06]]) * 200
COHEN_WEIGHTS = np.array([[0, 1, 3], [1, 0, 6], [3, 6, 0]])
COHEN_ASYMMETRIC = np.array([[0, 1, 4], [1, 0, 6], [2, 2, 0]])


def _csv(name: str) -> np.ndarray:
    """A tests/data CSV: provenance comment line, header line, integer rows."""
    return np.genfromtxt(DATA / name, delimiter=",", comments="#", skip_header=2, dtype=int)


def _rand_table(rng, k, high=15):
    t = rng.integers(0, high, (k, k))
    t[np.arange(k), np.arange(k)] += rng.integers(0, 10, k)
    t[0, 0] += 1
    t[-1, -1] += 1
    return t


def _pairs(rng, n, k):
    a = rng.integers(0, k, n)
    b = np.clip(a + rng.integers(-1, 2, n), 0, k - 1)
    return a, b


def _table3(t, a, b, k):
    out = np.zeros((k, k, k))
    np.add.at(out, (t, a, b), 1.0)
    return out


# ---------------------------------------------------------------------------- from confusion


class TestKappaTestFromConfusion:
    def test_sas_unweighted(self):
        # SAS: Kappa 0.4842, ASE 0.1380, 95% CI 0.2137-0.7547, ASE under H0 0.1484,
        # Z 3.2626, one-sided Pr > Z 0.0006, two-sided 0.0011 (statsmodels test file,
        # TestUnweightedCohens.setup_class).
        res = qwkit.kappa_test_from_confusion(SAS_TABLE, weights="identity")
        low, high = res.confidence_interval()
        assert round(res.statistic, 4) == 0.4842
        assert round(res.standard_error, 4) == 0.1380
        assert (round(low, 4), round(high, 4)) == (0.2137, 0.7547)
        assert round(res.standard_error_null, 4) == 0.1484
        assert round(res.statistic / res.standard_error_null, 4) == 3.2626
        assert round(res.pvalue, 4) == 0.0011
        assert res.n_items == 19
        greater = qwkit.kappa_test_from_confusion(SAS_TABLE, weights=None, alternative="greater")
        assert round(greater.pvalue, 4) == 0.0006

    def test_sas_linear(self):
        # SAS linear (Cicchetti-Allison agreement weights 1 - |i-j|/(K-1), our linear
        # disagreement weights): Kappa 0.4701, ASE 0.1457, CI 0.1845-0.7558, ASE under H0
        # 0.1426, Z 3.2971, Pr 0.0005 / 0.0010 (TestWeightedCohens.setup_class).
        res = qwkit.kappa_test_from_confusion(SAS_TABLE, weights="linear")
        low, high = res.confidence_interval()
        assert round(res.statistic, 4) == 0.4701
        assert round(res.standard_error, 4) == 0.1457
        assert (round(low, 4), round(high, 4)) == (0.1845, 0.7558)
        assert round(res.standard_error_null, 4) == 0.1426
        assert round(res.statistic / res.standard_error_null, 4) == 3.2971
        assert round(res.pvalue, 4) == 0.0010
        one = qwkit.kappa_test_from_confusion(SAS_TABLE, weights="linear", alternative="greater")
        assert round(one.pvalue, 4) == 0.0005

    def test_sas_summary_block(self):
        # The same SAS printout, line by line (numbers as SAS formats them).
        text = qwkit.kappa_test_from_confusion(SAS_TABLE, weights="linear").summary()
        for needle in (
            "Weighted Kappa Coefficient",
            "0.4701",
            "0.1457",
            "0.1845",
            "0.7558",
            "0.1426",
            "3.2971",
            "One-sided Pr >  Z",
            "0.0005",
            "0.0010",
        ):
            assert needle in text
        simple = qwkit.kappa_test_from_confusion(SAS_TABLE, weights=None).summary()
        assert simple.startswith("Simple Kappa Coefficient")
        assert "3.2626" in simple and "0.0011" in simple

    @pytest.mark.parametrize("kind", ["identity", "linear", "quadratic", "custom", "asym"])
    def test_matches_statsmodels_on_random_tables(self, kind):
        # statsmodels.stats.inter_rater.cohens_kappa implements the same FCE (1969)
        # formulas (SAS manual form); agreement to 1e-10 on random tables.
        rng = np.random.default_rng(20261121)
        for _ in range(40):
            k = int(rng.integers(2, 8))
            t = _rand_table(rng, k)
            if kind == "identity":
                ours = qwkit.kappa_test_from_confusion(t, weights=None)
                ref = cohens_kappa(t)
            elif kind in ("linear", "quadratic"):
                ours = qwkit.kappa_test_from_confusion(t, weights=kind)
                ref = cohens_kappa(t, wt=kind)
            else:
                w = rng.random((k, k))
                np.fill_diagonal(w, 0.0)
                if kind == "custom":
                    w = (w + w.T) / 2
                ours = qwkit.kappa_test_from_confusion(t, weights=w)
                ref = cohens_kappa(t, weights=w)  # a 2-D matrix: disagreement weights
            assert ours.statistic == pytest.approx(ref.kappa, abs=1e-10)
            assert ours.standard_error == pytest.approx(ref.std_kappa, abs=1e-10)
            assert ours.standard_error_null == pytest.approx(ref.std_kappa0, abs=1e-10)
            assert ours.pvalue == pytest.approx(ref.pvalue_two_sided, abs=1e-10)

    def test_delta_method_oracle(self):
        rng = np.random.default_rng(20261121)
        for kind in ("identity", "linear", "quadratic"):
            k = 4
            t = _rand_table(rng, k)
            w = qwkit.weight_matrix(k, kind)
            res = qwkit.kappa_test_from_confusion(t, weights=kind)
            assert res.standard_error**2 == pytest.approx(naive_delta_variance(t, w), rel=1e-6)
            assert res.standard_error_null**2 == pytest.approx(
                naive_fce_null_variance(t, w), rel=1e-10
            )

    def test_cohen_1968_values(self):
        # Cohen (1968): unweighted .492 and weighted .348 with the symmetric weights
        # (psych's cohen.kappa examples: "#cohen reports .492 and .348").
        res = qwkit.kappa_test_from_confusion(COHEN_1968.round(), weights=None)
        assert round(res.statistic, 3) == 0.492
        res = qwkit.kappa_test_from_confusion(COHEN_1968.round(), weights=COHEN_WEIGHTS)
        assert round(res.statistic, 3) == 0.348

    def test_cohen_1968_asymmetric_weights(self):
        # Cohen (1968)'s asymmetric weights: "Cohen reports kw = .353" (psych,
        # man/kappa.Rd, cohen.kappa examples). Orientation: weights[i, j] for rater-1
        # (row) rating i and rater-2 (column) rating j. vcd's Kappa forms the chance
        # table as colFreqs %o% rowFreqs (R/Kappa.R), i.e. transposed, which for an
        # asymmetric matrix gives a different number; so does transposing the weights.
        res = qwkit.kappa_test_from_confusion(COHEN_1968.round(), weights=COHEN_ASYMMETRIC)
        assert round(res.statistic, 3) == 0.353
        wrong = qwkit.kappa_test_from_confusion(COHEN_1968.round(), weights=COHEN_ASYMMETRIC.T)
        assert round(wrong.statistic, 3) != 0.353
        # Transposing table and weights together is the same analysis.
        same = qwkit.kappa_test_from_confusion(COHEN_1968.round().T, weights=COHEN_ASYMMETRIC.T)
        assert same.statistic == pytest.approx(res.statistic, rel=1e-12)
        assert same.standard_error == pytest.approx(res.standard_error, rel=1e-12)
        assert same.standard_error_null == pytest.approx(res.standard_error_null, rel=1e-12)
        # and the asymmetric SE is the delta method of the asymmetric kappa
        assert res.standard_error**2 == pytest.approx(
            naive_delta_variance(COHEN_1968.round(), COHEN_ASYMMETRIC), rel=1e-6
        )

    def test_weight_scaling_and_agreement_form_invariance(self):
        rng = np.random.default_rng(20261121)
        t = _rand_table(rng, 5)
        base = qwkit.kappa_test_from_confusion(t, weights="quadratic")
        scaled = qwkit.kappa_test_from_confusion(t, weights=7.5 * qwkit.weight_matrix(5))
        for a, b in [
            (base.statistic, scaled.statistic),
            (base.standard_error, scaled.standard_error),
            (base.standard_error_null, scaled.standard_error_null),
        ]:
            assert a == pytest.approx(b, rel=1e-12)

    def test_matches_naive_kappa(self):
        rng = np.random.default_rng(20261121)
        t = _rand_table(rng, 6)
        res = qwkit.kappa_test_from_confusion(t, weights="linear")
        w = qwkit.weight_matrix(6, "linear")
        assert res.statistic == pytest.approx(kappa_of_proportions(t.tolist(), w), rel=1e-12)
        assert res.statistic == pytest.approx(
            qwkit.kappa_from_confusion(t, weights="linear"), rel=1e-13
        )

    def test_alternatives(self):
        res = {
            alt: qwkit.kappa_test_from_confusion(SAS_TABLE, alternative=alt)
            for alt in ("two-sided", "greater", "less")
        }
        z = res["greater"].statistic / res["greater"].standard_error_null
        assert res["greater"].pvalue == pytest.approx(stats.norm.sf(z), rel=1e-12)
        assert res["less"].pvalue == pytest.approx(stats.norm.cdf(z), rel=1e-12)
        assert res["two-sided"].pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)

    def test_float_table_of_whole_numbers(self):
        a = qwkit.kappa_test_from_confusion(np.asarray(SAS_TABLE, dtype=float))
        b = qwkit.kappa_test_from_confusion(SAS_TABLE)
        assert (a.statistic, a.standard_error, a.n_items) == (
            b.statistic,
            b.standard_error,
            b.n_items,
        )

    def test_non_integral_table_rejected(self):
        with pytest.raises(ValueError, match=r"`confusion` must hold whole-number counts.*2\.5"):
            qwkit.kappa_test_from_confusion([[2.5, 1], [1, 3]])

    @pytest.mark.parametrize(
        ("table", "kwargs", "exc", "match"),
        [
            ([[1, 2], [3, 4]], {"alternative": "bigger"}, ValueError, "`alternative`"),
            ([[1, 2], [3, 4]], {"alternative": None}, ValueError, "`alternative`"),
            ([[1, 2], [3, 4]], {"weights": "cubic"}, ValueError, "`weights`"),
            ([[1, 2], [3, 4]], {"weights": np.ones((3, 3))}, ValueError, "shape"),
            ([[1, 2, 3], [3, 4, 5]], {}, ValueError, "square"),
            ([[0, 0], [0, 0]], {}, ValueError, "all zeros"),
            ([[1, -1], [0, 2]], {}, ValueError, "non-negative"),
            ("table", {}, TypeError, "`confusion`"),
        ],
    )
    def test_bad_input(self, table, kwargs, exc, match):
        with pytest.raises(exc, match=match):
            qwkit.kappa_test_from_confusion(table, **kwargs)

    def test_single_category_is_undefined(self):
        # Fewer than two categories used (and n = 1): 0/0, documented nan + warning.
        for table in ([[5, 0], [0, 0]], [[1]]):
            with pytest.warns(UndefinedKappaWarning):
                res = qwkit.kappa_test_from_confusion(table)
            assert math.isnan(res.statistic) and math.isnan(res.standard_error)
            assert math.isnan(res.standard_error_null) and math.isnan(res.pvalue)
            with pytest.warns(UndefinedKappaWarning, match="undefined"):
                ci = res.confidence_interval()
            assert math.isnan(ci.low) and math.isnan(ci.high)

    def test_constant_rater_has_zero_null_se(self):
        # Rater 1 always says 0: kappa is exactly 0 and so is the null SE; the z-test is
        # 0/0, reported as nan with a warning (never a division error).
        with pytest.warns(RuntimeWarning, match="z-test is undefined"):
            res = qwkit.kappa_test_from_confusion([[3, 4, 5], [0, 0, 0], [0, 0, 0]])
        assert res.statistic == pytest.approx(0.0, abs=1e-15)
        assert res.standard_error_null == pytest.approx(0.0, abs=1e-15)
        assert math.isnan(res.pvalue)
        assert res.standard_error >= 0.0

    def test_two_items(self):
        res = qwkit.kappa_test_from_confusion([[0, 1], [1, 0]], weights=None)
        assert res.statistic == pytest.approx(-1.0)
        assert res.standard_error >= 0.0 and res.n_items == 2

    @given(
        st.integers(2, 6).flatmap(
            lambda k: st.lists(st.integers(0, 30), min_size=k * k, max_size=k * k)
        ),
        st.sampled_from(["identity", "linear", "quadratic"]),
    )
    def test_variances_never_negative_and_symmetric(self, cells, kind):
        k = round(math.sqrt(len(cells)))
        t = np.array(cells).reshape(k, k)
        t[0, 1] += 1
        t[1, 0] += 1  # at least two categories used by both raters
        res = qwkit.kappa_test_from_confusion(t, weights=kind)
        assert res.standard_error >= 0.0 and math.isfinite(res.standard_error)
        assert res.standard_error_null > 0.0
        assert 0.0 <= res.pvalue <= 1.0
        flipped = qwkit.kappa_test_from_confusion(t.T, weights=kind)
        assert flipped.statistic == pytest.approx(res.statistic, rel=1e-9, abs=1e-12)
        assert flipped.standard_error == pytest.approx(res.standard_error, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------------- from ratings


class TestKappaTest:
    def test_irr_anxiety_squared(self):
        # R irr 0.84.1, kappa2(anxiety[, 1:2], "squared") prints
        #   Kappa = 0.297, z = 1.34, p-value = 0.18
        # (quoted in the tests of the Python port pyirr, sophiedkk/pyirr
        # tests/test_kappa2.py, commit 7fbc76c, and its kappa2.py comments).
        d = _csv("irr_anxiety.csv")
        res = qwkit.kappa_test(d[:, 0], d[:, 1], weights="quadratic")
        assert round(res.statistic, 3) == 0.297
        assert round(res.statistic / res.standard_error_null, 2) == 1.34
        assert round(res.pvalue, 2) == 0.18
        assert res.n_items == 20

    def test_irr_diagnoses_unweighted(self):
        # R irr: kappa2(diagnoses[, 2:3]) prints Kappa = 0.631, z = 7.56,
        # p-value = 4.04e-14 (same sources as above).
        d = _csv("irr_diagnoses_codes.csv")
        res = qwkit.kappa_test(d[:, 1], d[:, 2], weights=None)
        assert round(res.statistic, 3) == 0.631
        assert round(res.statistic / res.standard_error_null, 2) == 7.56
        assert float(f"{res.pvalue:.3g}") == 4.04e-14

    @pytest.mark.parametrize("kind", ["identity", "linear", "quadratic"])
    def test_equals_from_confusion(self, kind):
        rng = np.random.default_rng(20261121)
        a, b = _pairs(rng, 300, 6)
        a[0], b[1] = 0, 5
        res = qwkit.kappa_test(a, b, weights=kind)
        ref = qwkit.kappa_test_from_confusion(qwkit.confusion_matrix(a, b), weights=kind)
        assert res.statistic == pytest.approx(qwkit.kappa_score(a, b, weights=kind), rel=1e-13)
        assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
        assert res.standard_error_null == pytest.approx(ref.standard_error_null, rel=1e-12)
        assert res.n_items == 300

    def test_labels_and_strings(self):
        y1 = ["lo", "mid", "hi", "mid", "lo", "hi", "mid", "lo"]
        y2 = ["lo", "hi", "hi", "mid", "mid", "hi", "lo", "lo"]
        scale = ["lo", "mid", "hi"]
        res = qwkit.kappa_test(y1, y2, labels=scale)
        ref = qwkit.kappa_test_from_confusion(qwkit.confusion_matrix(y1, y2, labels=scale))
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-13)
        assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-12)

    def test_wide_integer_scale(self):
        # Only used categories are tabulated: ratings 0 and 10**12 cost nothing.
        y1 = [0, 10**12, 0, 10**12, 5 * 10**11, 0]
        y2 = [0, 10**12, 5 * 10**11, 10**12, 5 * 10**11, 10**12]
        res = qwkit.kappa_test(y1, y2, weights="linear")
        ref = qwkit.kappa_test(
            np.array(y1) // (5 * 10**11), np.array(y2) // (5 * 10**11), weights="linear"
        )
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
        assert res.standard_error_null == pytest.approx(ref.standard_error_null, rel=1e-12)

    def test_custom_weights_shape_must_match_scale(self):
        with pytest.raises(ValueError, match=r"`weights` has shape \(2, 2\).*3 categories"):
            qwkit.kappa_test([1, 2, 3], [1, 3, 2], weights=np.ones((2, 2)))

    def test_rating_outside_labels(self):
        with pytest.raises(ValueError, match="`y2` contains 9"):
            qwkit.kappa_test([1, 2, 3], [1, 9, 2], labels=[1, 2, 3])

    def test_unit_and_equal_weights_equal_none(self):
        rng = np.random.default_rng(20261121)
        a, b = _pairs(rng, 80, 4)
        base = qwkit.kappa_test(a, b)
        for w in (np.ones(80), np.full(80, 3.7)):
            res = qwkit.kappa_test(a, b, sample_weight=w)
            assert (res.statistic, res.standard_error, res.standard_error_null) == pytest.approx(
                (base.statistic, base.standard_error, base.standard_error_null), rel=1e-13
            )
            assert res.confidence_interval(method="percentile", rng=5, n_resamples=200) == (
                base.confidence_interval(method="percentile", rng=5, n_resamples=200)
            )

    def test_zero_weights_are_dropped_rows(self):
        rng = np.random.default_rng(20261121)
        a, b = _pairs(rng, 60, 4)
        w = rng.random(60) + 0.1
        w[::7] = 0.0
        keep = w > 0
        res = qwkit.kappa_test(a, b, sample_weight=w)
        ref = qwkit.kappa_test(a[keep], b[keep], sample_weight=w[keep])
        assert res.n_items == int(keep.sum())
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-13)
        assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-13)
        for method in ("jackknife", "percentile"):
            assert res.confidence_interval(method=method, rng=3, n_resamples=300) == pytest.approx(
                ref.confidence_interval(method=method, rng=3, n_resamples=300), rel=1e-12
            )

    def test_sample_weight_sandwich_variance(self):
        # Items are the sampling units: Var = Σ_k w_k² (g(cell_k) − ḡ)² / (Σw)², with g
        # the numerical gradient of kappa at the weighted proportions (eq. 5).
        rng = np.random.default_rng(20261121)
        k = 4
        a, b = _pairs(rng, 120, k)
        w = rng.random(120) * 3
        t = np.zeros((k, k))
        np.add.at(t, (a, b), w)
        p = t / t.sum()
        wm = qwkit.weight_matrix(k, "quadratic")
        from oracles.naive_inference import _gradient

        g = _gradient(lambda q: kappa_of_proportions(q, wm), p)
        gk = g[a, b]
        gbar = np.dot(w, gk) / w.sum()
        var = np.dot(w * w, (gk - gbar) ** 2) / w.sum() ** 2
        res = qwkit.kappa_test(a, b, sample_weight=w)
        assert res.standard_error**2 == pytest.approx(var, rel=1e-6)
        # and the statistic is the weighted kappa
        assert res.statistic == pytest.approx(qwkit.kappa_score(a, b, sample_weight=w), rel=1e-12)
        # scale-free in the weights (not so for frequency weights)
        res2 = qwkit.kappa_test(a, b, sample_weight=10 * w)
        assert res2.standard_error == pytest.approx(res.standard_error, rel=1e-12)

    def test_frequency_weights_via_confusion(self):
        # Integer weights as counts of identical items: pass the weighted table.
        rng = np.random.default_rng(20261121)
        a, b = _pairs(rng, 40, 3)
        w = rng.integers(1, 4, 40)
        rep = qwkit.kappa_test(np.repeat(a, w), np.repeat(b, w))
        freq = qwkit.kappa_test_from_confusion(qwkit.confusion_matrix(a, b, sample_weight=w))
        assert freq.standard_error == pytest.approx(rep.standard_error, rel=1e-12)
        assert freq.n_items == rep.n_items == int(w.sum())

    def test_bad_input(self):
        with pytest.raises(ValueError, match="same length"):
            qwkit.kappa_test([1, 2], [1, 2, 3])
        with pytest.raises(ValueError, match="`alternative`"):
            qwkit.kappa_test([1, 2], [1, 2], alternative="two_sided")
        with pytest.raises(ValueError, match="`sample_weight`"):
            qwkit.kappa_test([1, 2], [1, 2], sample_weight=[1, -1])
        with pytest.raises(ValueError, match="empty"):
            qwkit.kappa_test([], [])

    def test_n_equals_one(self):
        with pytest.warns(UndefinedKappaWarning):
            res = qwkit.kappa_test([3], [3])
        assert math.isnan(res.statistic) and res.n_items == 1


# ---------------------------------------------------------------------------- intervals


class TestConfidenceInterval:
    def setup_method(self):
        rng = np.random.default_rng(20261121)
        self.a, self.b = _pairs(rng, 40, 5)
        self.res = qwkit.kappa_test(self.a, self.b)

    def test_asymptotic_is_wald(self):
        low, high = self.res.confidence_interval(0.9)
        z = special.ndtri(0.95)
        assert low == pytest.approx(self.res.statistic - z * self.res.standard_error, rel=1e-14)
        assert high == pytest.approx(self.res.statistic + z * self.res.standard_error, rel=1e-14)
        assert isinstance(low, float) and type(self.res.statistic) is float

    def test_jackknife_matches_literal_deletion(self):
        se = naive_jackknife_se(self.a, self.b)
        low, high = self.res.confidence_interval(method="jackknife")
        assert (high - low) / (2 * Z975) == pytest.approx(se, rel=1e-10)
        assert (low + high) / 2 == pytest.approx(self.res.statistic, rel=1e-12)

    def test_weighted_jackknife_matches_literal_deletion(self):
        w = np.random.default_rng(20261121).random(40) + 0.2
        res = qwkit.kappa_test(self.a, self.b, sample_weight=w, weights="linear")
        se = naive_jackknife_se(self.a, self.b, sample_weight=w.tolist(), weights="linear")
        low, high = res.confidence_interval(method="jackknife")
        assert (high - low) / (2 * Z975) == pytest.approx(se, rel=1e-10)

    @pytest.mark.parametrize("method", ["percentile", "BCa"])
    def test_weighted_bootstrap_equals_scipy(self, method):
        # With unequal weights the items are resampled exactly as scipy.stats.bootstrap
        # does (rng.integers(0, n, (B, n))), so the same seed gives the same interval.
        w = np.random.default_rng(1).random(40) + 0.2
        res = qwkit.kappa_test(self.a, self.b, sample_weight=w)

        def stat(i):
            return qwkit.kappa_score(self.a[i], self.b[i], sample_weight=w[i], labels=range(5))

        ref = stats.bootstrap(
            (np.arange(40),),
            stat,
            vectorized=False,
            n_resamples=500,
            method=method,
            rng=np.random.default_rng(7),
        )
        ours = res.confidence_interval(
            method="percentile" if method == "percentile" else "bootstrap",
            n_resamples=500,
            rng=np.random.default_rng(7),
        )
        assert ours == pytest.approx(tuple(ref.confidence_interval), rel=1e-10)

    def test_multinomial_bootstrap_matches_item_bootstrap_in_law(self):
        # Resampling items with unit weights is a multinomial draw of the table: the
        # two bootstrap distributions agree (within Monte Carlo error).
        rng = np.random.default_rng(20261121)
        a, b = _pairs(rng, 300, 4)
        res = qwkit.kappa_test(a, b)
        ours = res._estimator.bootstrap(4000, np.random.default_rng(1))
        idx = np.random.default_rng(2).integers(0, 300, (4000, 300))
        items = np.array([qwkit.kappa_score(a[i], b[i], labels=range(4)) for i in idx])
        assert ours.mean() == pytest.approx(items.mean(), abs=3e-3)
        assert ours.std() == pytest.approx(items.std(), rel=0.06)
        assert stats.ks_2samp(ours, items).pvalue > 1e-3

    def test_bca_assembly(self):
        # BCa (Efron 1987) from the same bootstrap draws and the literal jackknife.
        gen_seed = 11
        theta = self.res._estimator.bootstrap(2000, np.random.default_rng(gen_seed))
        n = 40
        loo = np.array(
            [
                qwkit.kappa_score(np.delete(self.a, i), np.delete(self.b, i), labels=range(5))
                for i in range(n)
            ]
        )
        u = loo.mean() - loo
        acc = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
        est = self.res.statistic
        z0 = special.ndtri(((theta < est).sum() + (theta <= est).sum()) / (2 * theta.size))
        za = special.ndtri([0.025, 0.975])
        p = special.ndtr(z0 + (z0 + za) / (1 - acc * (z0 + za)))
        expected = np.quantile(theta, p)
        got = self.res.confidence_interval(
            method="bootstrap", n_resamples=2000, rng=np.random.default_rng(gen_seed)
        )
        assert got == pytest.approx(tuple(expected), rel=1e-10)

    def test_reproducible_with_seed(self):
        one = self.res.confidence_interval(method="bootstrap", n_resamples=300, rng=42)
        two = self.res.confidence_interval(method="bootstrap", n_resamples=300, rng=42)
        assert one == two
        assert one.low < self.res.statistic < one.high

    def test_wider_with_higher_level(self):
        for method in ("asymptotic", "jackknife", "percentile", "bootstrap"):
            narrow = self.res.confidence_interval(0.8, method=method, n_resamples=500, rng=1)
            wide = self.res.confidence_interval(0.99, method=method, n_resamples=500, rng=1)
            assert wide.low <= narrow.low and wide.high >= narrow.high

    def test_one_sided(self):
        g = qwkit.kappa_test(self.a, self.b, alternative="greater")
        low, high = g.confidence_interval(0.95)
        assert high == 1.0
        assert low == pytest.approx(g.statistic - special.ndtri(0.95) * g.standard_error)
        lo2, hi2 = qwkit.kappa_test(self.a, self.b, alternative="less").confidence_interval(
            method="percentile", n_resamples=200, rng=0
        )
        assert lo2 == -math.inf and hi2 > g.statistic

    def test_perfect_agreement(self):
        # a zero-width interval is returned, with a warning that it is not certainty
        res = qwkit.kappa_test([1, 2, 3] * 4, [1, 2, 3] * 4)
        assert res.statistic == 1.0 and res.standard_error == 0.0
        with pytest.warns(qwkit.DegenerateIntervalWarning, match="zero width"):
            assert res.confidence_interval() == (1.0, 1.0)
        for method in ("percentile", "bootstrap"):
            with pytest.warns(qwkit.DegenerateIntervalWarning, match="zero width"):
                ci = res.confidence_interval(method=method, n_resamples=100, rng=0)
            assert ci == (1.0, 1.0)

    def test_wald_upper_limit_truncated_at_one(self):
        res = qwkit.kappa_test(
            list("abcab") * 2,
            list("acbab") * 2,
            labels=list("abc"),
            sample_weight=[1, 2, 1, 3, 1] * 2,
        )
        for method in ("asymptotic", "jackknife"):
            low, high = res.confidence_interval(0.999, method=method)
            assert high == 1.0 and low < res.statistic

    def test_undefined_resamples_are_dropped_with_warning(self):
        res = qwkit.kappa_test([1, 2, 1], [1, 2, 2], weights=None)
        with (
            pytest.warns(UndefinedKappaWarning, match="bootstrap resamples"),
            pytest.warns(qwkit.DegenerateIntervalWarning, match="Only 3 items"),
        ):
            low, high = res.confidence_interval(method="percentile", n_resamples=200, rng=0)
        assert -1.0 <= low <= high <= 1.0

    def test_tiny_sample_jackknife_is_nan_with_warning(self):
        # Two items in agreement: leaving either out leaves one category, kappa 0/0.
        res = qwkit.kappa_test([1, 2], [1, 2], weights=None)
        with (
            pytest.warns(qwkit.DegenerateIntervalWarning, match="leave-one-out"),
            pytest.warns(qwkit.DegenerateIntervalWarning, match="Only 2 items"),
        ):
            ci = res.confidence_interval(method="jackknife")
        assert math.isnan(ci.low) and math.isnan(ci.high)

    @pytest.mark.parametrize(
        ("kwargs", "exc", "match"),
        [
            ({"confidence_level": 0.0}, ValueError, "`confidence_level`"),
            ({"confidence_level": 1.0}, ValueError, "`confidence_level`"),
            ({"confidence_level": 95}, ValueError, "got 95"),
            ({"confidence_level": "0.95"}, TypeError, "`confidence_level`"),
            ({"confidence_level": True}, TypeError, "`confidence_level`"),
            ({"method": "bca"}, ValueError, "`method`.*'bca'"),
            ({"method": "wald"}, ValueError, "`method`"),
            ({"n_resamples": 0}, ValueError, "`n_resamples` must be at least 1; got 0"),
            ({"n_resamples": 10.5}, TypeError, "`n_resamples`"),
            ({"n_resamples": True}, TypeError, "`n_resamples`"),
            ({"method": "bootstrap", "rng": "seed"}, TypeError, "`rng`"),
            ({"rng": True}, TypeError, "`rng`"),
        ],
    )
    def test_bad_options(self, kwargs, exc, match):
        with pytest.raises(exc, match=match):
            self.res.confidence_interval(**kwargs)

    def test_result_is_frozen(self):
        with pytest.raises(AttributeError):
            self.res.statistic = 0.5  # type: ignore[misc]


# ---------------------------------------------------------------------------- compare


class TestCompareKappaTest:
    def setup_method(self):
        rng = np.random.default_rng(20261121)
        self.k = 4
        self.t = rng.integers(0, self.k, 60)
        self.a = np.clip(self.t + rng.integers(-1, 2, 60), 0, self.k - 1)
        self.b = np.clip(self.t + rng.integers(-2, 3, 60), 0, self.k - 1)

    def test_kappas_and_delta_se(self):
        for kind in ("identity", "linear", "quadratic"):
            res = qwkit.compare_kappa_test(self.t, self.a, self.b, weights=kind)
            ka = qwkit.kappa_score(self.t, self.a, weights=kind, labels=range(self.k))
            kb = qwkit.kappa_score(self.t, self.b, weights=kind, labels=range(self.k))
            assert (res.kappa_a, res.kappa_b) == pytest.approx((ka, kb), rel=1e-12)
            assert res.statistic == pytest.approx(ka - kb, rel=1e-12)
            var = naive_delta_variance_difference(
                _table3(self.t, self.a, self.b, self.k), qwkit.weight_matrix(self.k, kind)
            )
            assert res.standard_error**2 == pytest.approx(var, rel=1e-6)
            z = res.statistic / res.standard_error
            assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)

    def test_paired_se_is_smaller_than_unpaired_for_correlated_models(self):
        # Two nearly identical models: their kappas are strongly correlated, so the SE
        # of the difference is far below sqrt(SE_a² + SE_b²).
        b = self.a.copy()
        b[:3] = self.t[:3]
        res = qwkit.compare_kappa_test(self.t, self.a, b)
        sa = qwkit.kappa_test(self.t, self.a).standard_error
        sb = qwkit.kappa_test(self.t, b).standard_error
        assert res.standard_error < 0.5 * math.hypot(sa, sb)

    def test_swap_models(self):
        ab = qwkit.compare_kappa_test(self.t, self.a, self.b, alternative="greater")
        ba = qwkit.compare_kappa_test(self.t, self.b, self.a, alternative="less")
        assert ba.statistic == pytest.approx(-ab.statistic, rel=1e-12)
        assert ba.standard_error == pytest.approx(ab.standard_error, rel=1e-12)
        assert ba.pvalue == pytest.approx(ab.pvalue, rel=1e-10)

    def test_identical_predictions(self):
        with pytest.warns(RuntimeWarning, match="z-test is undefined"):
            res = qwkit.compare_kappa_test(self.t, self.a, self.a)
        assert res.statistic == 0.0 and res.standard_error == 0.0 and math.isnan(res.pvalue)
        with pytest.warns(qwkit.DegenerateIntervalWarning, match="zero width"):
            ci = res.confidence_interval(method="percentile", n_resamples=50, rng=0)
        assert ci == (0.0, 0.0)

    def test_jackknife_matches_literal_deletion(self):
        res = qwkit.compare_kappa_test(self.t, self.a, self.b, weights="linear")
        vals = []
        for i in range(60):
            t, a, b = (np.delete(x, i) for x in (self.t, self.a, self.b))
            lab = range(self.k)
            vals.append(
                qwkit.kappa_score(t, a, weights="linear", labels=lab)
                - qwkit.kappa_score(t, b, weights="linear", labels=lab)
            )
        vals = np.array(vals)
        se = math.sqrt(59 / 60 * ((vals - vals.mean()) ** 2).sum())
        low, high = res.confidence_interval(method="jackknife")
        assert (high - low) / (2 * Z975) == pytest.approx(se, rel=1e-10)

    def test_weighted_paired_bootstrap_equals_scipy(self):
        w = np.random.default_rng(3).random(60) + 0.5
        res = qwkit.compare_kappa_test(self.t, self.a, self.b, sample_weight=w)

        def stat(i):
            lab = range(self.k)
            return qwkit.kappa_score(
                self.t[i], self.a[i], sample_weight=w[i], labels=lab
            ) - qwkit.kappa_score(self.t[i], self.b[i], sample_weight=w[i], labels=lab)

        ref = stats.bootstrap(
            (np.arange(60),),
            stat,
            vectorized=False,
            n_resamples=300,
            method="BCa",
            rng=np.random.default_rng(9),
        )
        ours = res.confidence_interval(
            method="bootstrap", n_resamples=300, rng=np.random.default_rng(9)
        )
        assert ours == pytest.approx(tuple(ref.confidence_interval), rel=1e-10)

    def test_unit_bootstrap_covers_estimate(self):
        res = qwkit.compare_kappa_test(self.t, self.a, self.b)
        low, high = res.confidence_interval(method="bootstrap", n_resamples=1000, rng=0)
        assert low < res.statistic < high
        assert "Paired Comparison of Kappas" in res.summary()

    def test_common_scale_and_strings(self):
        # The scale is shared by all three vectors (here 1..5 although y_pred_a uses 1..3).
        t = [1, 2, 3, 4, 5, 3]
        a = [1, 2, 3, 3, 3, 2]
        b = [1, 2, 4, 5, 5, 3]
        res = qwkit.compare_kappa_test(t, a, b)
        assert res.kappa_a == pytest.approx(qwkit.kappa_score(t, a, labels=range(1, 6)))
        words = {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}
        ws = [[words[x] for x in v] for v in (t, a, b)]
        res_s = qwkit.compare_kappa_test(*ws, labels=list("abcde"))
        assert res_s.statistic == pytest.approx(res.statistic, rel=1e-12)
        assert res_s.standard_error == pytest.approx(res.standard_error, rel=1e-12)
        # text with no declared order has no weighted kappa; unweighted needs no order
        with pytest.raises(qwkit.QwkitError, match="no declared order") as err:
            qwkit.compare_kappa_test(*ws)
        assert err.value.parameter == "labels"
        unweighted = qwkit.compare_kappa_test(*ws, weights="identity")
        assert unweighted.statistic == pytest.approx(
            qwkit.compare_kappa_test(t, a, b, weights="identity").statistic, rel=1e-12
        )

    def test_bad_input(self):
        with pytest.raises(ValueError, match="`y_true` and `y_pred_b` must have the same length"):
            qwkit.compare_kappa_test([1, 2, 3], [1, 2, 3], [1, 2])
        with pytest.raises(ValueError, match="`alternative`"):
            qwkit.compare_kappa_test([1, 2], [1, 2], [2, 1], alternative="neq")
        with pytest.raises(ValueError, match="`y_pred_a` contains 7"):
            qwkit.compare_kappa_test([1, 2], [1, 7], [2, 1], labels=[1, 2])

    def test_undefined(self):
        with pytest.warns(UndefinedKappaWarning):
            res = qwkit.compare_kappa_test([1, 1], [1, 1], [1, 2])
        assert math.isnan(res.statistic) and math.isnan(res.kappa_a)


# ---------------------------------------------------------------------------- mean_kappa


class TestMeanKappa:
    @given(
        st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=8),
        st.data(),
    )
    def test_matches_ml_metrics(self, kappas, data):
        # Kaggle ml_metrics' mean_quadratic_weighted_kappa (benhamner/Metrics,
        # Python/ml_metrics/quadratic_weighted_kappa.py), transcribed in naive_inference.
        weights = data.draw(
            st.none() | st.lists(st.floats(0.01, 10.0), min_size=len(kappas), max_size=len(kappas))
        )
        ours = qwkit.mean_kappa(kappas, sample_weight=weights)
        ref = naive_mean_quadratic_weighted_kappa(kappas, weights)
        assert ours == pytest.approx(ref, rel=1e-12, abs=1e-12)

    def test_known_values(self):
        assert qwkit.mean_kappa([0.5]) == pytest.approx(0.5, rel=1e-15)
        assert qwkit.mean_kappa([0.3, 0.3, 0.3], sample_weight=[1, 5, 2]) == pytest.approx(0.3)
        assert qwkit.mean_kappa([1.0, 1.0]) == pytest.approx(0.999)
        z = (np.arctanh(0.9) + np.arctanh(0.1)) / 2
        assert qwkit.mean_kappa([0.9, 0.1]) == pytest.approx(np.tanh(z), rel=1e-15)
        assert isinstance(qwkit.mean_kappa([0.2, 0.4]), float)

    @pytest.mark.parametrize(
        ("kappas", "weights", "exc", "match"),
        [
            ([], None, ValueError, "empty"),
            ([0.5, 1.2], None, ValueError, "at most 1; got 1.2"),
            ([0.5, float("nan")], None, ValueError, "`kappas`"),
            (["a", "b"], None, TypeError, "`kappas`"),
            ([0.5, 0.6], [1.0], ValueError, "one weight per item"),
            ([0.5, 0.6], [1.0, -1.0], ValueError, "non-negative"),
            ([0.5, 0.6], [0.0, 0.0], ValueError, "sum to zero"),
            (0.5, None, ValueError, "1-D"),
        ],
    )
    def test_bad_input(self, kappas, weights, exc, match):
        with pytest.raises(exc, match=match):
            qwkit.mean_kappa(kappas, sample_weight=weights)


# ============================================ degenerate data and extreme weights


class TestDegenerateAndScaled:
    y1 = (0,) * 14
    y2 = (2, 4, 2, 0, 2, 4, 0, 0, 3, 2, 2, 4, 4, 4)
    sw = (1, 1, 1, 0.1, 1, 2.7, 0.1, 1, 0.1, 2.7, 0.1, 0.1, 1, 0.3)

    @pytest.mark.parametrize("sample_weight", [None, sw], ids=["unweighted", "weighted"])
    def test_constant_rater_is_exact(self, sample_weight):
        # kappa is exactly 0 and so is its sampling variance: no "significant" noise
        with pytest.warns(RuntimeWarning, match="p-value is nan"):
            res = qwkit.kappa_test(self.y1, self.y2, weights="linear", sample_weight=sample_weight)
        assert (res.statistic, res.standard_error, res.standard_error_null) == (0.0, 0.0, 0.0)
        assert math.isnan(res.pvalue)
        for method in ("asymptotic", "jackknife", "percentile", "bootstrap"):
            with pytest.warns(qwkit.DegenerateIntervalWarning, match="zero width"):
                ci = res.confidence_interval(method=method, n_resamples=200, rng=1)
            assert tuple(ci) == (0.0, 0.0)

    def test_compare_two_constant_models(self):
        with pytest.warns(RuntimeWarning, match="p-value is nan"):
            res = qwkit.compare_kappa_test(
                [1, 1, 3, 1, 3, 1, 2, 3],
                [2] * 8,
                [3] * 8,
                weights="linear",
                sample_weight=[0.3, 0.3, 1, 2.7, 1, 2.7, 0.1, 0.3],
            )
        assert (res.statistic, res.kappa_a, res.kappa_b, res.standard_error) == (0, 0, 0, 0)

    @pytest.mark.parametrize("factor", [1e-300, 1e-200, 1e200])
    def test_sample_weight_scale_invariance(self, factor):
        y1, y2, w = [0, 1, 2, 1, 2], [0, 1, 1, 2, 2], np.array([1.0, 1, 1, 1, 2])
        ref = qwkit.kappa_test(y1, y2, sample_weight=w)
        got = qwkit.kappa_test(y1, y2, sample_weight=w * factor)
        assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert got.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
        assert got.standard_error_null == pytest.approx(ref.standard_error_null, rel=1e-12)
        cmp_ref = qwkit.compare_kappa_test(y1, y2, [2, 1, 2, 1, 0], sample_weight=w)
        cmp = qwkit.compare_kappa_test(y1, y2, [2, 1, 2, 1, 0], sample_weight=w * factor)
        assert cmp.statistic == pytest.approx(cmp_ref.statistic, rel=1e-12)

    def test_bootstrap_memory_is_not_cells_times_classes(self):
        # ~1000 categories, ~6e4 present cells: the bootstrap must not build a dense
        # (cells × K) indicator matrix (that would be ~500 MB here)
        rng = np.random.default_rng(20261121)
        t = rng.integers(0, 1000, 200_000)
        a = np.clip(t + rng.integers(-30, 30, t.size), 0, 999)
        res = qwkit.kappa_test(t, a)
        tracemalloc.start()
        low, high = res.confidence_interval(method="percentile", n_resamples=3, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert low <= high
        assert peak < 100 * 2**20

    def test_summary_upper_limit_never_exceeds_one(self):
        res = qwkit.kappa_test([0, 1, 2, 1, 2, 0, 1, 2, 2, 1], [0, 1, 1, 2, 2, 0, 2, 2, 1, 1])
        assert res.confidence_interval().high == 1.0
        assert "95% Upper Conf Limit          1.0000" in res.summary()

    @pytest.mark.parametrize("w", [[1e308, 1e308], [5e-324, 5e-324]])
    def test_mean_kappa_weight_scale(self, w):
        assert qwkit.mean_kappa([0.5, 0.6], sample_weight=w) == pytest.approx(
            qwkit.mean_kappa([0.5, 0.6])
        )

    def test_comparison_bootstrap_distribution_matches_interval(self):
        y, a, b = [0, 1, 2, 1, 2, 0, 1] * 2, [0, 1, 1, 2, 2, 0, 1] * 2, [2, 1, 2, 1, 0, 0, 2] * 2
        res = qwkit.compare_kappa_test(y, a, b)
        draws = res.bootstrap_distribution(500, rng=3)
        low, high = res.confidence_interval(method="percentile", n_resamples=500, rng=3)
        finite = draws[np.isfinite(draws)]
        assert (low, high) == pytest.approx(tuple(np.quantile(finite, [0.025, 0.975])), rel=1e-12)

    def test_compare_respects_declared_order(self):
        import pandas as pd

        def cat(x):
            return pd.Categorical(x, categories=[3, 1, 2], ordered=True)

        t, a, b = [1, 2, 3, 3], [1, 3, 3, 2], [1, 2, 3, 2]
        res = qwkit.compare_kappa_test(cat(t), cat(a), cat(b))
        assert res.kappa_a == pytest.approx(qwkit.kappa_score(t, a, labels=[3, 1, 2]))
        assert res.kappa_b == pytest.approx(qwkit.kappa_score(t, b, labels=[3, 1, 2]))

    def test_huge_integer_tables_are_refused(self):
        with pytest.raises(ValueError, match="2\\*\\*53 or more"):
            qwkit.kappa_test_from_confusion(np.array([[2**53, 1], [0, 2**53]]))
        with pytest.raises(ValueError, match="2\\*\\*53 or more"):
            qwkit.kappa_test_from_confusion([[1e308, 0], [0, 1e308]])
