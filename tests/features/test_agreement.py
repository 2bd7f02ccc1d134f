"""Tests of agreement among many raters: agreement_score, agreement_test, the count-table
forms, ratings_from_long and AgreementTestResult.

Reference values carry their provenance in comments. Oracles are in
``tests/oracles/naive_agreement.py``: a line-by-line transcription of R irrCAC's functions (for
Gwet's standard errors) and the coefficients from their definitions by enumerating pairs
of ratings. Parity: the ``krippendorff`` package (every level of measurement) and
statsmodels' ``fleiss_kappa``.
"""

from __future__ import annotations

import copy
import math
import pickle
import tracemalloc
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special
from statsmodels.stats.inter_rater import fleiss_kappa

import qwkit
from oracles.naive_agreement import (
    NAIVE_COEFFICIENTS,
    agreement_weights,
    irrcac_raw,
    krippendorff_ordinal_delta,
    naive_coefficient,
    naive_jackknife,
)
from qwkit import UndefinedKappaWarning
from qwkit._base._registry import COEFFICIENTS as REGISTRY

DATA = Path(__file__).parents[1] / "data"
NAN = np.nan
COEFFICIENTS = NAIVE_COEFFICIENTS  # the oracle's
POOLED = [c for c in COEFFICIENTS if REGISTRY[c].pooled]

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the example of four
# coders and twelve units with missing values (pp. 3-4); the same data are R irr's
# `nmm` (kripp.alpha) and R irrCAC's `cac.raw4raters`.
KRIPPENDORFF_2011 = [
    [1, 1, NAN, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [NAN, 5, 5, 5],
    [NAN, NAN, 1, 1],
    [NAN, NAN, 3, NAN],
]

# R irrCAC's `distrib.6raters` (Gwet 2014), printed in the README of kgwet/irrCAC.
DISTRIB_6RATERS = [
    [0, 0, 0, 6, 0],
    [0, 3, 0, 0, 3],
    [0, 1, 4, 0, 1],
    [0, 0, 0, 0, 6],
    [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0],
    [0, 0, 4, 0, 2],
    [2, 0, 3, 1, 0],
    [2, 0, 0, 4, 0],
    [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0],
    [1, 1, 0, 4, 0],
    [0, 3, 3, 0, 0],
    [1, 0, 0, 5, 0],
    [0, 2, 0, 3, 1],
]


def _csv(name: str) -> np.ndarray:
    """A tests/data CSV: provenance comment line, header line, rows (NA → nan)."""
    return np.genfromtxt(
        DATA / name, delimiter=",", comments="#", skip_header=2, missing_values="NA"
    )


def _random_ratings(rng, n, r, k, missing=0.25, all_categories=True):
    x = rng.integers(1, k + 1, (n, r)).astype(float)
    x[rng.random((n, r)) < missing] = NAN
    if all_categories:  # every category used (R irrCAC's scale is the categories used)
        x[: k // 2 + 1, :2] = np.column_stack(
            [np.arange(1, k // 2 + 2), np.arange(k, k - k // 2 - 1, -1)]
        )
    return x


def _delta(kind, scale):
    """Normalized disagreement d/dmax on the scale's values (the naive oracles' input)."""
    lo, hi = min(scale), max(scale)
    if kind == "identity":
        return lambda a, b: float(a != b)
    if kind == "quadratic":
        return lambda a, b: (a - b) ** 2 / (hi - lo) ** 2
    if kind == "linear":
        return lambda a, b: abs(a - b) / (hi - lo)
    if kind == "ratio":
        top = ((hi - lo) / (hi + lo)) ** 2
        return lambda a, b: ((a - b) / (a + b)) ** 2 / top
    raise ValueError(kind)


# ============================================================================ published


class TestPublishedValues:
    # Krippendorff (2011), same example: alpha = 0.743 (nominal), 0.815 (ordinal),
    # 0.849 (interval), 0.797 (ratio); R irr's kripp.alpha(nmm, ...) prints the same.
    @pytest.mark.parametrize(
        ("weights", "alpha"),
        [("identity", 0.743), ("ordinal", 0.815), ("quadratic", 0.849), ("ratio", 0.797)],
    )
    def test_krippendorff_2011(self, weights, alpha):
        value = qwkit.agreement_score(
            KRIPPENDORFF_2011, coefficient="krippendorff", weights=weights
        )
        assert round(value, 3) == alpha

    # R irrCAC README (kgwet/irrCAC, commit 7fb7509), cac.raw4raters, unweighted:
    #   gwet.ac1.raw        AC1 0.77544  se 0.14295  p 0.0001043605  CI (0.461,1)
    #   fleiss.kappa.raw    0.76117      se 0.15302  p 0.0002095865  CI (0.424,1)
    #   krippen.alpha.raw   0.74342      se 0.14548  p 0.0001693123  CI (0.423,1)
    #   conger.kappa.raw    0.76282      se 0.14917  p 0.0001683533  CI (0.435,1)
    #   bp.coeff.raw        0.77273      se 0.14472  p 0.0001187804  CI (0.454,1)
    # (p-values are one-sided: irrCAC computes 1 - pt(coeff/se, n - 1)).
    @pytest.mark.parametrize(
        ("coefficient", "value", "se", "pvalue", "low"),
        [
            ("gwet", 0.77544, 0.14295, 0.0001043605, 0.461),
            ("fleiss", 0.76117, 0.15302, 0.0002095865, 0.424),
            ("krippendorff", 0.74342, 0.14548, 0.0001693123, 0.423),
            ("conger", 0.76282, 0.14917, 0.0001683533, 0.435),
            ("brennan-prediger", 0.77273, 0.14472, 0.0001187804, 0.454),
        ],
    )
    def test_irrcac_raw4raters(self, coefficient, value, se, pvalue, low):
        res = qwkit.agreement_test(
            KRIPPENDORFF_2011, coefficient=coefficient, weights="identity", alternative="greater"
        )
        assert round(res.statistic, 5) == value
        assert round(res.standard_error, 5) == se
        assert float(f"{res.pvalue:.7g}") == pvalue
        two = qwkit.agreement_test(KRIPPENDORFF_2011, coefficient=coefficient, weights=None)
        lo, hi = two.confidence_interval()
        assert (round(lo, 3), hi) == (low, 1.0)
        assert two.pvalue == pytest.approx(2 * res.pvalue, rel=1e-12)
        assert (res.n_items, res.n_raters, res.degrees_of_freedom) == (12, 4, 11)

    # R irrCAC README, distrib.6raters (the *.dist functions):
    #   gwet.ac1.dist    0.4448007  stderr 0.08418757  p 5.779637e-05
    #   fleiss.kappa.dist 0.4139265 stderr 0.08119291  p 8.113618e-05
    #   bp.coeff.dist    0.4388889  stderr 0.08312142  p 5.814998e-05
    #   krippen.alpha.dist 0.4204384 (stderr 0.08243228: see test_krippendorff_dist)
    @pytest.mark.parametrize(
        ("coefficient", "value", "se", "pvalue"),
        [
            ("gwet", 0.4448007, 0.08418757, 5.779637e-05),
            ("fleiss", 0.4139265, 0.08119291, 8.113618e-05),
            ("brennan-prediger", 0.4388889, 0.08312142, 5.814998e-05),
        ],
    )
    def test_irrcac_distrib_6raters(self, coefficient, value, se, pvalue):
        res = qwkit.agreement_test_from_counts(
            DISTRIB_6RATERS, coefficient=coefficient, weights=None, alternative="greater"
        )
        assert round(res.statistic, 7) == value
        assert round(res.standard_error, 8) == se
        assert float(f"{res.pvalue:.7g}") == pvalue
        assert (res.n_items, res.n_raters) == (15, 6)

    def test_krippendorff_dist(self):
        # irrCAC's krippen.alpha.dist prints alpha 0.4204384 with stderr 0.08243228 from a
        # variant of the formula (its own factor 1 − α where krippen.alpha.raw has
        # 2(1 − α′)); qwkit uses krippen.alpha.raw's formula for both input forms, so
        # the count table and the equivalent raw ratings agree (with six ratings of
        # every item alpha′ is Fleiss' kappa, and so is the standard error).
        res = qwkit.agreement_test_from_counts(
            DISTRIB_6RATERS, coefficient="krippendorff", weights=None
        )
        assert round(res.statistic, 7) == 0.4204384
        raw = [np.repeat(np.arange(1, 6), row).tolist() for row in DISTRIB_6RATERS]
        res_raw = qwkit.agreement_test(raw, coefficient="krippendorff", weights=None)
        assert res_raw.standard_error == pytest.approx(res.standard_error, rel=1e-12)
        _, se, _ = irrcac_raw(np.array(raw, float), "krippendorff", np.eye(5), [1, 2, 3, 4, 5])
        assert res.standard_error == pytest.approx(se, rel=1e-12)
        assert round(res.standard_error, 8) == 0.08119291

    def test_fleiss_1971_diagnoses(self):
        # Fleiss (1971): kappa = 0.430 for six psychiatrists and 30 patients; R irr
        # 0.84.1 kappam.fleiss(diagnoses) prints Kappa = 0.43, z = 17.7, p-value = 0;
        # kappam.fleiss(diagnoses, exact = TRUE) (Conger's kappa) 0.442 and
        # kappam.light(diagnoses) 0.459 (as quoted by the Python port pyirr,
        # sophiedkk/pyirr tests/test_kappam_fleiss.py and test_kappam_light.py).
        d = _csv("irr_diagnoses_codes.csv")
        res = qwkit.agreement_test(d, coefficient="fleiss", weights=None)
        assert round(res.statistic, 7) == 0.4302445
        assert round(res.statistic / res.standard_error_null, 1) == 17.7
        assert round(qwkit.agreement_score(d, coefficient="conger", weights=None), 3) == 0.442
        assert round(qwkit.agreement_score(d, coefficient="light", weights=None), 3) == 0.459
        counts = np.stack([(d == k).sum(axis=1) for k in range(1, 6)], axis=1)
        from_counts = qwkit.agreement_from_counts(counts, coefficient="fleiss", weights=None)
        assert from_counts == pytest.approx(res.statistic, rel=1e-14)
        assert fleiss_kappa(counts) == pytest.approx(res.statistic, rel=1e-12)

    def test_irr_anxiety_light_is_mean_of_pairwise_kappas(self):
        # R irr's anxiety data: Light's kappa with squared weights is the mean of the
        # three kappa2(anxiety[, c(i, j)], "squared") values (the first is 0.297 in
        # irr's printout, tested in test_inference.py).
        d = _csv("irr_anxiety.csv").astype(int)
        pairs = [(0, 1), (0, 2), (1, 2)]
        scale = np.arange(d.min(), d.max() + 1)
        kappas = [qwkit.kappa_score(d[:, i], d[:, j], labels=scale) for i, j in pairs]
        light = qwkit.agreement_score(d, coefficient="light")
        assert light == pytest.approx(np.mean(kappas), rel=1e-13)
        assert round(kappas[0], 3) == 0.297


# ============================================================================ definitions


class TestAgreementScore:
    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    @pytest.mark.parametrize("weights", ["identity", "quadratic", "linear", "ratio"])
    def test_matches_definition(self, coefficient, weights):
        rng = np.random.default_rng(20261121)
        scale = [1, 2, 3, 4, 5]
        for _ in range(3):
            x = _random_ratings(rng, int(rng.integers(8, 25)), int(rng.integers(2, 6)), 5)
            value = qwkit.agreement_score(x, coefficient=coefficient, weights=weights)
            ref = naive_coefficient(x.tolist(), coefficient, _delta(weights, scale), scale)
            assert value == pytest.approx(ref, rel=1e-11, abs=1e-13)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    def test_ordinal_metric(self, coefficient):
        # Krippendorff's ordinal metric from the frequencies of pairable values, on an
        # integer scale with a category (4) that never occurs
        rng = np.random.default_rng(20261122)
        z = rng.integers(1, 8, (25, 3)).astype(float)
        z[z == 4] = 5
        z[rng.random(z.shape) < 0.2] = NAN
        z[0] = [1, 7, NAN]
        scale = list(range(1, 8))
        pairable = z[(~np.isnan(z)).sum(axis=1) >= 2]
        freq = [float(np.sum(pairable == v)) for v in scale]
        delta = krippendorff_ordinal_delta(scale, freq)
        top = max(delta(a, b) for a in scale for b in scale)
        ref = naive_coefficient(z.tolist(), coefficient, lambda a, b: delta(a, b) / top, scale)
        value = qwkit.agreement_score(z, coefficient=coefficient, weights="ordinal")
        assert value == pytest.approx(ref, rel=1e-11)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    @pytest.mark.parametrize("weights", ["quadratic", "linear", "ratio"])
    def test_real_valued_ratings(self, coefficient, weights):
        # real values: the scale is the distinct values (squared differences of the
        # values = Krippendorff's interval metric, from moments)
        rng = np.random.default_rng(20261123)
        x = np.round(rng.normal(size=(15, 4)), 3) + 3.0
        x[rng.random(x.shape) < 0.2] = NAN
        scale = sorted(set(x[~np.isnan(x)].tolist()))
        value = qwkit.agreement_score(x, coefficient=coefficient, weights=weights)
        ref = naive_coefficient(x.tolist(), coefficient, _delta(weights, scale), scale)
        assert value == pytest.approx(ref, rel=1e-10)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    def test_many_distinct_values_use_the_table_free_paths(self, coefficient):
        # more distinct values than the explicit-matrix limit: prefix sums (linear),
        # the ratio kernel and moments (quadratic) against the V×V matrix forms
        rng = np.random.default_rng(20261124)
        x = rng.gamma(2.0, size=(200, 4))
        x[rng.random(x.shape) < 0.1] = NAN
        vals = np.unique(x[~np.isnan(x)])
        assert vals.size > 512
        for weights in ["linear", "ratio", "quadratic"]:
            delta = _delta(weights, [vals.min(), vals.max()])
            dmat = delta(vals[:, None], vals[None, :])
            explicit = qwkit.agreement_score(x, coefficient=coefficient, weights=dmat, labels=vals)
            value = qwkit.agreement_score(x, coefficient=coefficient, weights=weights)
            assert value == pytest.approx(explicit, rel=1e-9)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    def test_custom_matrix_and_its_scaling(self, coefficient):
        rng = np.random.default_rng(20261125)
        x = _random_ratings(rng, 20, 4, 6)
        w = rng.random((6, 6))
        w = w + w.T
        np.fill_diagonal(w, 0.0)
        scale = [1, 2, 3, 4, 5, 6]
        ref = naive_coefficient(
            x.tolist(), coefficient, lambda a, b: w[int(a) - 1, int(b) - 1] / w.max(), scale
        )
        value = qwkit.agreement_score(x, coefficient=coefficient, weights=w)
        assert value == pytest.approx(ref, rel=1e-11)
        for factor in (1e-3, 7.0):
            scaled = qwkit.agreement_score(x, coefficient=coefficient, weights=factor * w)
            assert scaled == pytest.approx(value, rel=1e-12)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity"])
    def test_named_weights_are_weight_matrix(self, coefficient, weights):
        rng = np.random.default_rng(20261126)
        x = _random_ratings(rng, 20, 3, 5, all_categories=False)
        labels = [1, 2, 3, 4, 5]
        named = qwkit.agreement_score(x, coefficient=coefficient, weights=weights, labels=labels)
        mat = qwkit.weight_matrix(5, weights)
        explicit = qwkit.agreement_score(x, coefficient=coefficient, weights=mat, labels=labels)
        assert named == pytest.approx(explicit, rel=1e-12)

    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity"])
    def test_two_raters_conger_and_light_are_cohen(self, weights):
        rng = np.random.default_rng(20261127)
        a = rng.integers(0, 6, 60)
        b = np.clip(a + rng.integers(-2, 3, 60), 0, 5)
        x = np.column_stack([a, b])
        cohen = qwkit.kappa_score(a, b, weights=weights)
        for coefficient in ("conger", "light"):
            value = qwkit.agreement_score(x, coefficient=coefficient, weights=weights)
            assert value == pytest.approx(cohen, rel=1e-12)

    def test_two_raters_fleiss_is_scotts_pi(self):
        rng = np.random.default_rng(20261128)
        a = rng.integers(0, 4, 80)
        b = np.where(rng.random(80) < 0.6, a, rng.integers(0, 4, 80))
        p = (np.bincount(a, minlength=4) + np.bincount(b, minlength=4)) / 160.0
        po = np.mean(a == b)
        scott = (po - p @ p) / (1 - p @ p)  # Scott (1955)
        value = qwkit.agreement_score(np.column_stack([a, b]), coefficient="fleiss", weights=None)
        assert value == pytest.approx(scott, rel=1e-12)

    def test_light_pairwise_deletion_matches_kappa_score(self):
        # psy's expsy data (three clinicians, NA present): Light's kappa is the mean of
        # the pairwise kappas, each over the items both raters rated (psy::lkappa)
        d = _csv("psy_expsy_r1_r2_r3.csv")
        kappas = []
        for i, j in [(0, 1), (0, 2), (1, 2)]:
            both = ~np.isnan(d[:, i]) & ~np.isnan(d[:, j])
            kappas.append(
                qwkit.kappa_score(d[both, i], d[both, j], weights=None, labels=[1, 2, 3, 4])
            )
        value = qwkit.agreement_score(d, coefficient="light", weights=None, labels=[1, 2, 3, 4])
        assert value == pytest.approx(np.mean(kappas), rel=1e-13)

    @pytest.mark.parametrize("coefficient", POOLED)
    def test_counts_equal_ratings(self, coefficient):
        rng = np.random.default_rng(20261129)
        x = _random_ratings(rng, 30, 5, 4, missing=0.3)
        counts = np.stack([(x == k).sum(axis=1) for k in range(1, 5)], axis=1)
        for weights in ["identity", "quadratic", "linear", "ordinal", "ratio"]:
            raw = qwkit.agreement_test(x, coefficient=coefficient, weights=weights)
            tab = qwkit.agreement_test_from_counts(
                counts, coefficient=coefficient, weights=weights, labels=[1, 2, 3, 4]
            )
            assert tab.statistic == pytest.approx(raw.statistic, rel=1e-12)
            assert tab.standard_error == pytest.approx(raw.standard_error, rel=1e-12)
            assert qwkit.agreement_from_counts(
                counts, coefficient=coefficient, weights=weights, labels=[1, 2, 3, 4]
            ) == pytest.approx(raw.statistic, rel=1e-12)

    def test_counts_without_labels_are_categories_one_to_k(self):
        counts = np.array(DISTRIB_6RATERS)
        a = qwkit.agreement_from_counts(counts, coefficient="gwet", weights="ratio")
        b = qwkit.agreement_from_counts(
            counts, coefficient="gwet", weights="ratio", labels=[1, 2, 3, 4, 5]
        )
        assert a == b

    def test_text_ratings(self):
        letters = np.array(["a", "b", "c", "d", "e"], dtype=object)
        x = np.array(KRIPPENDORFF_2011)
        text = np.where(np.isnan(x), None, letters[np.nan_to_num(x).astype(int) - 1])
        numeric = qwkit.agreement_score(x, coefficient="fleiss", weights="quadratic")
        assert qwkit.agreement_score(
            text, coefficient="fleiss", labels=list("abcde")
        ) == pytest.approx(numeric, rel=1e-14)
        nominal = qwkit.agreement_score(x, coefficient="fleiss", weights=None)
        assert qwkit.agreement_score(text, coefficient="fleiss", weights=None) == pytest.approx(
            nominal, rel=1e-14
        )
        # the scale order comes from `labels`, not from sorting the text
        rev = qwkit.agreement_score(text, coefficient="fleiss", labels=list("edcba"))
        assert rev == pytest.approx(numeric, rel=1e-14)  # reversal keeps squared distances

    def test_frames(self):
        x = np.array(KRIPPENDORFF_2011)
        ref = qwkit.agreement_score(x, coefficient="conger")
        frame = pd.DataFrame(x, columns=["A", "B", "C", "D"])
        assert qwkit.agreement_score(frame, coefficient="conger") == ref
        assert qwkit.agreement_score(frame.astype("Int64"), coefficient="conger") == ref
        assert qwkit.agreement_score(pl.from_pandas(frame), coefficient="conger") == ref
        letters = frame.map(lambda v: None if pd.isna(v) else "abcde"[int(v) - 1])
        ordered = letters.apply(lambda s: pd.Categorical(s, categories=list("abcde"), ordered=True))
        assert qwkit.agreement_score(ordered, coefficient="conger") == pytest.approx(ref, rel=1e-14)
        plf = pl.DataFrame(
            {c: [None if pd.isna(v) else v for v in letters[c]] for c in letters.columns}
        )
        enum = plf.with_columns(pl.all().cast(pl.Enum(list("abcde"))))
        assert qwkit.agreement_score(enum, coefficient="conger") == pytest.approx(ref, rel=1e-14)

    def test_all_missing_rows_and_raters_are_dropped(self):
        x = np.array(KRIPPENDORFF_2011)
        padded = np.full((14, 6), NAN)
        padded[1:13, 1:5] = x
        for coefficient in COEFFICIENTS:
            a = qwkit.agreement_score(x, coefficient=coefficient)
            b = qwkit.agreement_score(padded, coefficient=coefficient)
            assert a == pytest.approx(b, rel=1e-14)
        res = qwkit.agreement_test(padded, coefficient="fleiss")
        assert (res.n_items, res.n_raters) == (12, 4)

    def test_huge_integer_range_without_a_table(self):
        # ratings 0 and 10**12: q = 10**12 + 1 categories, none tabulated; Gwet's AC2
        # with quadratic weights: pa = 2/3, 1 − ΣΠ² = 1/2, T_w/(q(q − 1)) → 5/6, so
        # AC2 = (2/3 − 5/12)/(7/12) = 3/7
        x = [[0, 10**12], [10**12, 10**12], [0, 0]]
        assert qwkit.agreement_score(x, coefficient="gwet") == pytest.approx(3 / 7, rel=1e-9)
        assert qwkit.agreement_score(x, coefficient="fleiss") == pytest.approx(
            qwkit.agreement_score([[0, 1], [1, 1], [0, 0]], coefficient="fleiss"), rel=1e-14
        )

    def test_undefined_returns_replacement_with_warning(self):
        same = [[2, 2], [2, 2], [2, NAN]]
        with pytest.warns(UndefinedKappaWarning):
            assert math.isnan(qwkit.agreement_score(same, coefficient="fleiss", labels=[1, 2, 3]))
        with pytest.warns(UndefinedKappaWarning):
            value = qwkit.agreement_score(
                same, coefficient="krippendorff", labels=[1, 2, 3], replace_undefined_by=0.0
            )
        assert value == 0.0
        # Gwet's AC1 and Brennan–Prediger stay defined: perfect agreement is 1
        assert qwkit.agreement_score(same, coefficient="gwet", labels=[1, 2, 3]) == 1.0
        assert qwkit.agreement_score(same, coefficient="brennan-prediger", labels=[1, 2, 3]) == 1.0

    def test_gwet_counts_the_whole_integer_scale(self):
        # without labels every integer between the extremes is a category (q = 5 here,
        # though 3 never occurs); R irrCAC counts only the values used unless
        # categ.labels is given
        x = np.array([[1, 2], [2, 2], [4, 5], [5, 5], [1, 1]], dtype=float)
        full = qwkit.agreement_score(x, coefficient="gwet", weights=None)
        coef, _, _ = irrcac_raw(x, "gwet", np.eye(5), [1, 2, 3, 4, 5])
        assert full == pytest.approx(coef, rel=1e-12)
        used = qwkit.agreement_score(x, coefficient="gwet", weights=None, labels=[1, 2, 4, 5])
        coef4, _, _ = irrcac_raw(x, "gwet", np.eye(4), [1, 2, 4, 5])
        assert used == pytest.approx(coef4, rel=1e-12)
        assert full != pytest.approx(used)


# ============================================================================ inference


class TestAgreementTest:
    @pytest.mark.parametrize(
        "coefficient", ["fleiss", "gwet", "krippendorff", "conger", "brennan-prediger"]
    )
    @pytest.mark.parametrize("weights", ["identity", "quadratic", "linear", "ratio"])
    def test_gwet_standard_errors_match_irrcac(self, coefficient, weights):
        rng = np.random.default_rng(20261130)
        scale = [1, 2, 3, 4, 5]
        for _ in range(3):
            x = _random_ratings(rng, int(rng.integers(8, 30)), int(rng.integers(2, 6)), 5)
            res = qwkit.agreement_test(
                x, coefficient=coefficient, weights=weights, alternative="greater"
            )
            coef, se, pvalue = irrcac_raw(x, coefficient, agreement_weights(weights, scale), scale)
            assert res.statistic == pytest.approx(coef, rel=1e-11)
            assert res.standard_error == pytest.approx(se, rel=1e-10)
            assert res.pvalue == pytest.approx(pvalue, rel=1e-8, abs=1e-14)

    def test_custom_matrix_standard_error_matches_irrcac(self):
        rng = np.random.default_rng(20261131)
        x = _random_ratings(rng, 25, 4, 4)
        d = np.array([[0, 1, 4, 9], [1, 0, 2, 3], [4, 2, 0, 1], [9, 3, 1, 0]], dtype=float)
        for coefficient in ["fleiss", "gwet", "krippendorff", "conger", "brennan-prediger"]:
            res = qwkit.agreement_test(x, coefficient=coefficient, weights=d)
            coef, se, _ = irrcac_raw(x, coefficient, 1 - d / d.max(), [1, 2, 3, 4])
            assert res.statistic == pytest.approx(coef, rel=1e-11)
            assert res.standard_error == pytest.approx(se, rel=1e-10)

    def test_finite_population_correction(self):
        x = np.array(KRIPPENDORFF_2011)
        for coefficient in COEFFICIENTS:
            inf = qwkit.agreement_test(x, coefficient=coefficient)
            fpc = qwkit.agreement_test(x, coefficient=coefficient, n_population=48)
            assert fpc.standard_error == pytest.approx(
                inf.standard_error * math.sqrt(1 - 12 / 48), rel=1e-12
            )
            if coefficient != "light":
                _, se, _ = irrcac_raw(
                    x,
                    coefficient,
                    agreement_weights("quadratic", [1, 2, 3, 4, 5]),
                    [1, 2, 3, 4, 5],
                    n_population=48,
                )
                assert fpc.standard_error == pytest.approx(se, rel=1e-10)
        with pytest.warns(RuntimeWarning, match="standard error is zero"):
            whole = qwkit.agreement_test(x, coefficient="fleiss", n_population=12)
        assert whole.standard_error == 0.0  # the whole population was rated

    def test_light_standard_error_with_two_raters_is_congers(self):
        rng = np.random.default_rng(20261132)
        x = rng.integers(1, 6, (40, 2)).astype(float)
        for weights in ["identity", "quadratic", "ratio"]:
            light = qwkit.agreement_test(x, coefficient="light", weights=weights)
            conger = qwkit.agreement_test(x, coefficient="conger", weights=weights)
            assert light.statistic == pytest.approx(conger.statistic, rel=1e-12)
            assert light.standard_error == pytest.approx(conger.standard_error, rel=1e-12)

    def test_light_standard_error_is_a_delta_method(self):
        # Light's kappa is a smooth function of item means: its linearization variance
        # must agree with the exact jackknife's to first order (large n)
        rng = np.random.default_rng(20261133)
        latent = rng.normal(size=(3000, 1))
        x = np.clip(np.round(latent + rng.normal(scale=0.8, size=(3000, 4)) + 3), 1, 5)
        x[rng.random(x.shape) < 0.2] = NAN
        res = qwkit.agreement_test(x, coefficient="light")
        low, high = res.confidence_interval(method="jackknife")
        crit = float(special.stdtrit(res.degrees_of_freedom, 0.975))
        se_jack = (high - low) / (2 * crit)
        assert res.standard_error == pytest.approx(se_jack, rel=0.02)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    @pytest.mark.parametrize("weights", ["identity", "quadratic", "ratio"])
    def test_jackknife_is_leave_one_item_out(self, coefficient, weights):
        rng = np.random.default_rng(20261134)
        x = _random_ratings(rng, 18, 4, 5, missing=0.15)
        x[3] = x[4]  # identical rows share one resampling cell: still one item each
        labels = [1, 2, 3, 4, 5]
        res = qwkit.agreement_test(x, coefficient=coefficient, weights=weights, labels=labels)
        loo = naive_jackknife(
            lambda y: qwkit.agreement_score(
                y, coefficient=coefficient, weights=weights, labels=labels
            ),
            x,
        )
        n = loo.size
        se = math.sqrt((n - 1) / n * np.sum((loo - loo.mean()) ** 2))
        crit = float(special.stdtrit(n - 1, 0.975))
        low, high = res.confidence_interval(method="jackknife")
        assert low == pytest.approx(res.statistic - crit * se, rel=1e-9)
        assert high == pytest.approx(min(1.0, res.statistic + crit * se), rel=1e-9)

    def test_bootstrap_resamples_items(self):
        # the multinomial draw of distinct rows is the item bootstrap: its distribution
        # matches rescoring resampled items with agreement_score
        rng = np.random.default_rng(20261135)
        x = _random_ratings(rng, 40, 4, 5, missing=0.1)
        labels = [1, 2, 3, 4, 5]
        res = qwkit.agreement_test(x, coefficient="conger", labels=labels)
        draws = res.bootstrap_distribution(3000, rng=20261121)
        gen = np.random.default_rng(20261122)
        manual = np.array(
            [
                qwkit.agreement_score(
                    x[gen.integers(0, 40, 40)], coefficient="conger", labels=labels
                )
                for _ in range(1500)
            ]
        )
        assert np.mean(draws) == pytest.approx(np.mean(manual), abs=0.01)
        assert np.std(draws) == pytest.approx(np.std(manual), rel=0.08)
        assert np.array_equal(draws, res.bootstrap_distribution(3000, rng=20261121))
        again = res.confidence_interval(method="bootstrap", n_resamples=500, rng=7)
        assert again == res.confidence_interval(method="bootstrap", n_resamples=500, rng=7)
        low, high = res.confidence_interval(method="percentile", n_resamples=500, rng=7)
        assert low < res.statistic < high <= 1.0

    def test_bootstrap_covers_on_a_simulation(self):
        # 60 simulated studies of 80 items × 4 raters, true Fleiss kappa by a large
        # sample: the BCa and asymptotic 90% intervals cover it in most studies
        rng = np.random.default_rng(20261136)

        def study(n):
            latent = rng.integers(1, 5, (n, 1))
            noise = rng.random((n, 4)) < 0.35
            return np.where(noise, rng.integers(1, 5, (n, 4)), latent).astype(float)

        truth = qwkit.agreement_score(study(200_000), coefficient="fleiss", weights=None)
        cover = {"asymptotic": 0, "bootstrap": 0}
        for _ in range(60):
            res = qwkit.agreement_test(study(80), coefficient="fleiss", weights=None)
            for method in cover:
                lo, hi = res.confidence_interval(0.9, method=method, n_resamples=400, rng=rng)
                cover[method] += lo <= truth <= hi
        assert cover["asymptotic"] >= 46 and cover["bootstrap"] >= 46

    def test_alternatives(self):
        x = np.array(KRIPPENDORFF_2011)
        two = qwkit.agreement_test(x, coefficient="gwet")
        greater = qwkit.agreement_test(x, coefficient="gwet", alternative="greater")
        less = qwkit.agreement_test(x, coefficient="gwet", alternative="less")
        assert greater.pvalue + less.pvalue == pytest.approx(1.0, rel=1e-12)
        assert two.pvalue == pytest.approx(2 * greater.pvalue, rel=1e-12)
        lo, hi = greater.confidence_interval()
        assert hi == 1.0 and lo > two.confidence_interval()[0]
        lo, hi = less.confidence_interval()
        assert lo == -math.inf

    def test_result_object(self):
        x = np.array(KRIPPENDORFF_2011)
        res = qwkit.agreement_test(x, coefficient="fleiss", weights=None)
        assert type(res).__module__ == "qwkit"
        assert isinstance(res.statistic, float) and isinstance(res.n_items, int)
        text = res.summary()
        assert "Fleiss' kappa (identity weights)" in text and "0.7612" in text
        d = res.to_dict()
        assert d["statistic"] == res.statistic and d["coefficient"] == "fleiss"
        assert d["degrees_of_freedom"] == 11 and d["n_population"] is None
        for other in (pickle.loads(pickle.dumps(res)), copy.deepcopy(res)):
            assert other.statistic == res.statistic
            assert other.confidence_interval(method="jackknife") == res.confidence_interval(
                method="jackknife"
            )
        with pytest.raises(AttributeError):
            res.statistic = 0.0
        assert math.isnan(qwkit.agreement_test(x, coefficient="gwet").standard_error_null)

    def test_undefined_and_degenerate(self):
        with pytest.warns(UndefinedKappaWarning):
            res = qwkit.agreement_test([[2, 2], [2, 2]], coefficient="fleiss", labels=[1, 2])
        assert math.isnan(res.statistic) and math.isnan(res.pvalue)
        with pytest.warns(RuntimeWarning, match="standard error is zero"):
            res = qwkit.agreement_test([[1, 1], [2, 2], [1, 1]], coefficient="conger")
        assert res.statistic == 1.0 and res.standard_error == 0.0 and math.isnan(res.pvalue)


# ============================================================================ parity


class TestKrippendorffPackage:
    @pytest.mark.parametrize(
        ("level", "weights"),
        [
            ("nominal", "identity"),
            ("ordinal", "ordinal"),
            ("interval", "quadratic"),
            ("ratio", "ratio"),
        ],
    )
    def test_random_data_with_missing_values(self, level, weights):
        rng = np.random.default_rng(20261137)
        for _ in range(8):
            n, r = int(rng.integers(5, 40)), int(rng.integers(2, 7))
            x = rng.integers(1, 7, (n, r)).astype(float)
            x[rng.random((n, r)) < 0.3] = NAN
            if (~np.isnan(x)).sum(axis=1).max() < 2:
                x[0, :2] = [1, 2]
            ref = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
            value = qwkit.agreement_score(x, coefficient="krippendorff", weights=weights)
            assert value == pytest.approx(ref, rel=1e-9, abs=1e-12)

    @pytest.mark.parametrize(
        ("level", "weights"),
        [("interval", "quadratic"), ("ratio", "ratio"), ("ordinal", "ordinal")],
    )
    def test_real_values(self, level, weights):
        rng = np.random.default_rng(20261138)
        x = np.abs(rng.normal(size=(60, 4))) + 0.1
        x[rng.random(x.shape) < 0.2] = NAN
        ref = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
        value = qwkit.agreement_score(x, coefficient="krippendorff", weights=weights)
        assert value == pytest.approx(ref, rel=1e-9)

    def test_anxiety_interval(self):
        d = _csv("irr_anxiety.csv")
        ref = krippendorff.alpha(reliability_data=d.T, level_of_measurement="interval")
        assert qwkit.agreement_score(d, coefficient="krippendorff") == pytest.approx(ref, rel=1e-12)


class TestStatsmodels:
    def test_fleiss_kappa_and_randolph(self):
        rng = np.random.default_rng(20261139)
        for _ in range(5):
            n, r, k = int(rng.integers(10, 60)), int(rng.integers(2, 9)), int(rng.integers(2, 6))
            codes = rng.integers(0, k, (n, r))
            counts = np.stack([(codes == j).sum(axis=1) for j in range(k)], axis=1)
            counts[0] = 0
            counts[0, 0], counts[0, -1] = r - 1, 1  # every category in use
            fk = qwkit.agreement_from_counts(counts, coefficient="fleiss", weights=None)
            assert fk == pytest.approx(fleiss_kappa(counts), rel=1e-10)
            bp = qwkit.agreement_from_counts(counts, coefficient="brennan-prediger", weights=None)
            assert bp == pytest.approx(fleiss_kappa(counts, method="randolph"), rel=1e-10)


# ============================================================================ long format


class TestRatingsFromLong:
    def test_round_trip(self):
        x = np.array(KRIPPENDORFF_2011)
        items, raters = np.nonzero(~np.isnan(x))
        order = np.random.default_rng(20261140).permutation(items.size)
        table = qwkit.ratings_from_long(
            [f"u{i:02d}" for i in items[order]], raters[order], x[items, raters][order]
        )
        np.testing.assert_array_equal(table.to_wide(), x)
        assert table.items.tolist() == [f"u{i:02d}" for i in range(12)]
        assert table.raters.tolist() == [0, 1, 2, 3]

    def test_frame_columns_and_text(self):
        frame = pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 3],
                "rater": ["x", "y", "x", "y", "y"],
                "score": ["lo", "hi", "hi", "hi", None],
            }
        )
        table = qwkit.ratings_from_long(frame["item"], frame["rater"], frame["score"])
        assert table.to_wide().tolist() == [["lo", "hi"], ["hi", "hi"], [None, None]]
        value = qwkit.agreement_score(table, coefficient="fleiss", labels=["lo", "hi"])
        wide = qwkit.agreement_score(table.to_wide(), coefficient="fleiss", labels=["lo", "hi"])
        assert math.isfinite(value) and value == wide

    def test_duplicate_rating(self):
        with pytest.raises(ValueError, match=r"Rater 'a' rated item 1 twice \(rows 0 and 2"):
            qwkit.ratings_from_long([1, 2, 1], ["a", "a", "a"], [1, 2, 3])
        with pytest.raises(ValueError, match="`items` and `raters` must have the same length"):
            qwkit.ratings_from_long([1, 2], ["a"], [1, 2])
        with pytest.raises(ValueError, match="`items` contains NaN"):
            qwkit.ratings_from_long([1.0, NAN], ["a", "b"], [1, 2])


# ============================================================================ bad input


BAD = [
    ("1-D", ([1, 2, 3],), {}, ValueError, r"`ratings` must be 2-D.*got shape \(3,\)"),
    ("one rater", ([[1], [2]],), {}, ValueError, "at least two raters"),
    ("ragged", ([[1, 2], [3]],), {}, ValueError, "`ratings` must be rectangular"),
    ("none", (None,), {}, TypeError, "`ratings` must be a 2-D array-like"),
    ("all missing", ([[NAN, NAN]],), {}, ValueError, "`ratings` holds no rating"),
    ("no pair", ([[1, NAN], [NAN, 2]],), {}, ValueError, "no item with two or more ratings"),
    ("mixed", ([[1, "a"], [2, 3]],), {}, TypeError, "`ratings` mixes text and numbers"),
    ("inf", ([[1, 2], [np.inf, 1]],), {}, ValueError, "`ratings` contains inf at row 1"),
    ("complex", (np.ones((2, 2), complex),), {}, TypeError, "`ratings` must hold numbers"),
    (
        "coefficient",
        ([[1, 2]],),
        {"coefficient": "kappa"},
        ValueError,
        "`coefficient` must be one of",
    ),
    (
        "weights name",
        ([[1, 2]],),
        {"weights": "cubic"},
        ValueError,
        "`weights` must be 'quadratic'",
    ),
    (
        "weights shape",
        ([[1, 2], [3, 4]],),
        {"weights": np.ones((3, 3)) - np.eye(3)},
        ValueError,
        r"`weights` has shape \(3, 3\) but the rating scale has 4 categories \(the integers",
    ),
    (
        "weights asymmetric",
        ([[1, 2]],),
        {"weights": [[0, 1], [2, 0]]},
        ValueError,
        "`weights` must be symmetric",
    ),
    (
        "weights diagonal",
        ([[1, 2]],),
        {"weights": [[1, 1], [1, 0]]},
        ValueError,
        "zero on the diagonal",
    ),
    (
        "weights zero",
        ([[1, 2]],),
        {"weights": [[0, 0], [0, 0]]},
        ValueError,
        "`weights` is all zeros",
    ),
    ("single category", ([[1, 1], [1, 1]],), {}, ValueError, "single category"),
    (
        "text order",
        ([["a", "b"], ["b", "b"]],),
        {},
        ValueError,
        "`ratings` hold text, whose order `weights`='quadratic' needs: pass `labels`",
    ),
    (
        "not in labels",
        ([[1, 2], [3, 7]],),
        {"labels": [1, 2, 3]},
        ValueError,
        r"`ratings` contains 7 at row 1, column 1, which is not in `labels` \[1, 2, 3\]",
    ),
    (
        "labels type",
        ([["a", "b"]],),
        {"labels": [1, 2]},
        TypeError,
        "`ratings` hold text but `labels`",
    ),
    (
        "ratio negative",
        ([[-1, 2], [3, 4]],),
        {"weights": "ratio"},
        ValueError,
        "non-negative values",
    ),
    (
        "ratio text",
        ([["a", "b"]],),
        {"weights": "ratio", "labels": ["a", "b"]},
        TypeError,
        "needs numeric ratings",
    ),
]


class TestValidation:
    @pytest.mark.parametrize(
        ("args", "kwargs", "exc", "pattern"), [c[1:] for c in BAD], ids=[c[0] for c in BAD]
    )
    def test_agreement_score(self, args, kwargs, exc, pattern):
        kwargs = {"coefficient": "fleiss", **kwargs}
        with pytest.raises(exc, match=pattern):
            qwkit.agreement_score(*args, **kwargs)

    def test_counts(self):
        with pytest.raises(ValueError, match="`coefficient`='conger' needs to know which rater"):
            qwkit.agreement_from_counts([[1, 2]], coefficient="conger")
        with pytest.raises(ValueError, match="`table` must hold non-negative whole numbers"):
            qwkit.agreement_from_counts([[1, 2.5]], coefficient="fleiss")
        with pytest.raises(ValueError, match="`table` has no item with two or more"):
            qwkit.agreement_from_counts([[1, 0], [0, 1]], coefficient="fleiss")
        with pytest.raises(ValueError, match=r"`labels` must name the 2 columns"):
            qwkit.agreement_from_counts([[1, 2]], coefficient="fleiss", labels=[1, 2, 3])
        with pytest.raises(ValueError, match="single category"):
            qwkit.agreement_from_counts([[3], [2]], coefficient="fleiss")

    def test_test_options(self):
        x = KRIPPENDORFF_2011
        with pytest.raises(ValueError, match=r"`n_population` .* at least the 12 rated items"):
            qwkit.agreement_test(x, coefficient="fleiss", n_population=5)
        with pytest.raises(TypeError, match="`n_population` must be None or a number"):
            qwkit.agreement_test(x, coefficient="fleiss", n_population="big")
        with pytest.raises(ValueError, match="`alternative` must be"):
            qwkit.agreement_test(x, coefficient="fleiss", alternative="bigger")
        res = qwkit.agreement_test(x, coefficient="fleiss")
        with pytest.raises(ValueError, match="`method` must be"):
            res.confidence_interval(method="exact")
        with pytest.raises(TypeError, match="`replace_undefined_by` must be a real number"):
            qwkit.agreement_score(x, coefficient="fleiss", replace_undefined_by="x")

    def test_gwet_ratio_on_a_huge_scale_is_refused(self):
        with (
            pytest.raises(ValueError, match=r"`weights`='ratio' .* pass `labels`"),
            pytest.warns(qwkit.ScaleWarning, match="because of 1000000000"),
        ):
            qwkit.agreement_score([[0, 10**9], [1, 1]], coefficient="gwet", weights="ratio")


# ============================================================================ properties


ratings_strategy = st.integers(2, 6).flatmap(
    lambda r: st.lists(
        st.lists(st.one_of(st.none(), st.integers(1, 4)), min_size=r, max_size=r),
        min_size=3,
        max_size=25,
    )
)


def _ok(rows):
    x = np.array([[NAN if v is None else v for v in row] for row in rows], dtype=float)
    per_item = (~np.isnan(x)).sum(axis=1)
    if per_item.max() < 2 or np.all(np.isnan(x), axis=0).any():
        return None
    return x


class TestProperties:
    @given(ratings_strategy, st.sampled_from(COEFFICIENTS), st.randoms(use_true_random=False))
    def test_rater_and_item_permutations(self, rows, coefficient, rnd):
        x = _ok(rows)
        if x is None:
            return
        labels = [1, 2, 3, 4]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedKappaWarning)
            base = qwkit.agreement_score(x, coefficient=coefficient, labels=labels)
            cols = list(range(x.shape[1]))
            rnd.shuffle(cols)
            items = list(range(x.shape[0]))
            rnd.shuffle(items)
            perm = qwkit.agreement_score(x[items][:, cols], coefficient=coefficient, labels=labels)
        if math.isnan(base):
            assert math.isnan(perm)
        else:
            assert perm == pytest.approx(base, rel=1e-9, abs=1e-12)
            assert base <= 1.0 + 1e-12

    @given(ratings_strategy, st.sampled_from(COEFFICIENTS), st.floats(1e-3, 1e3))
    def test_weight_scaling_changes_nothing(self, rows, coefficient, factor):
        x = _ok(rows)
        if x is None:
            return
        w = qwkit.weight_matrix(4, "linear")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedKappaWarning)
            a = qwkit.agreement_score(x, coefficient=coefficient, weights=w, labels=[1, 2, 3, 4])
            b = qwkit.agreement_score(
                x, coefficient=coefficient, weights=factor * w, labels=[1, 2, 3, 4]
            )
        assert (math.isnan(a) and math.isnan(b)) or b == pytest.approx(a, rel=1e-9, abs=1e-12)

    @given(ratings_strategy, st.sampled_from(["fleiss", "gwet", "krippendorff", "conger"]))
    def test_standard_error_matches_irrcac(self, rows, coefficient):
        x = _ok(rows)
        if x is None or np.unique(x[~np.isnan(x)]).size < 2:
            return
        rated = (~np.isnan(x)).sum(axis=1)
        if np.sum(rated >= 1) < 2 or np.sum(rated >= 2) < 2:
            return  # a variance needs two items
        used = sorted(np.unique(x[~np.isnan(x)]).tolist())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = qwkit.agreement_test(x, coefficient=coefficient, weights=None, labels=used)
            coef, se, _ = irrcac_raw(x, coefficient, np.eye(len(used)), used)
        if math.isfinite(coef) and math.isfinite(se):
            assert res.statistic == pytest.approx(coef, rel=1e-9, abs=1e-12)
            assert res.standard_error == pytest.approx(se, rel=1e-8, abs=1e-12)


# ============================================================================ scale


class TestScale:
    def test_continuous_ratings_take_no_table(self):
        # 20,000 items × 5 raters of real values: 100,000 distinct values (a V×V table
        # would be 80 GB); interval alpha and its test from moments in small memory
        rng = np.random.default_rng(20261141)
        latent = rng.normal(size=(20_000, 1))
        x = latent + 0.5 * rng.normal(size=(20_000, 5))
        x[rng.random(x.shape) < 0.1] = NAN
        tracemalloc.start()
        res = qwkit.agreement_test(x, coefficient="krippendorff")
        light = qwkit.agreement_score(x, coefficient="light")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 100e6
        # the package on a slice it can afford (its V×V work is minutes at 300 items)
        ref = krippendorff.alpha(reliability_data=x[:60].T, level_of_measurement="interval")
        sub = qwkit.agreement_score(x[:60], coefficient="krippendorff")
        assert sub == pytest.approx(ref, rel=1e-9)
        assert 0.7 < res.statistic < 0.85 and 0 < res.standard_error < 0.01
        assert 0.7 < light < 0.85

    def test_interval_alpha_against_all_pairs(self):
        # 2,000 items × 5 raters, every pair of values enumerated (10⁸ pairs, chunked)
        rng = np.random.default_rng(20261142)
        x = rng.normal(size=(2000, 1)) + rng.normal(size=(2000, 5))
        vals = x.ravel()
        total = 0.0
        for start in range(0, vals.size, 1000):
            diff = vals[start : start + 1000, None] - vals[None, :]
            total += float(np.sum(diff * diff))
        d_e = total / (vals.size * (vals.size - 1))
        within = x[:, :, None] - x[:, None, :]
        d_o = float(np.sum(within * within)) / (vals.size * 4)
        value = qwkit.agreement_score(x, coefficient="krippendorff")
        assert value == pytest.approx(1 - d_o / d_e, rel=1e-10)

    def test_ratio_metric_kernel_and_batches_agree(self):
        # the compiled O(V²) loop (one summary) and the chunked batch form (bootstrap)
        from qwkit._agreement import _metrics as metrics

        rng = np.random.default_rng(20261143)
        y = np.sort(rng.gamma(2.0, size=700))
        s = rng.random((3, 700))
        ratio = metrics.Ratio(y)
        single = np.stack([ratio.apply(row) for row in s])
        dense = ratio._d(y[:, None], y[None, :])
        np.testing.assert_allclose(single, s @ dense, rtol=1e-12)
        np.testing.assert_allclose(ratio.apply(s), s @ dense, rtol=1e-12)
