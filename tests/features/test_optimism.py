"""Tests of optimism_corrected_kappa (oracles: tests/oracles/naive_optimism.py;
docs/optimism.md)."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special

import qwkit
from oracles.naive_optimism import naive_bootstrap, naive_cross_fit

LABELS = np.arange(5)
CUTS = np.array([-1.0, -0.3, 0.4, 1.1])


def _sample(seed, n=60, sigma=0.6, decimals=1):
    """Latent normal → 5 classes; score = latent + noise, rounded (so scores tie)."""
    gen = np.random.default_rng(seed)
    latent = gen.normal(size=n)
    score = latent + gen.normal(scale=sigma, size=n)
    return np.searchsorted(CUTS, latent), np.round(score, decimals)


def _same(a, b):
    """Every number of two results equal (exactly)."""
    for name in (
        "statistic",
        "apparent",
        "optimism",
        "standard_error_apparent",
        "standard_error_optimism",
        "n_items",
        "n_resamples",
    ):
        assert getattr(a, name) == getattr(b, name), name
    np.testing.assert_array_equal(a.thresholds, b.thresholds)


class TestOptimismCorrectedKappa:
    # ------------------------------------------------------------ against the oracles

    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_bootstrap_is_efron_gong(self, seed):
        y, s = _sample(seed)
        res = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, method="bootstrap", n_resamples=25, rng=seed
        )
        apparent, optimism = naive_bootstrap(y, s, labels=LABELS, n_resamples=25, rng=seed)
        assert res.apparent == apparent
        assert res.optimism == pytest.approx(optimism, rel=1e-12, abs=1e-15)
        assert res.statistic == pytest.approx(apparent - optimism, rel=1e-12)
        assert res.n_resamples == 25 and res.n_items == 60 and res.n_splits is None

    @pytest.mark.parametrize(
        ("seed", "n_splits", "n_resamples"), [(0, 2, 8), (1, 5, 15), (2, 10, 20)]
    )
    def test_cv_is_pooled_out_of_fold_kappa(self, seed, n_splits, n_resamples):
        y, s = _sample(seed)
        res = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, n_splits=n_splits, n_resamples=n_resamples, rng=seed
        )
        expected = naive_cross_fit(
            y, s, labels=LABELS, n_splits=n_splits, n_repeats=n_resamples // n_splits, rng=seed
        )
        assert res.method == "cv" and res.n_splits == n_splits
        assert res.statistic == pytest.approx(expected, rel=1e-12)
        assert res.optimism == pytest.approx(res.apparent - expected, rel=1e-12, abs=1e-15)

    def test_leave_one_out(self):
        y, s = _sample(3, n=25)
        res = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, n_splits=25, n_resamples=25, rng=4
        )
        expected = naive_cross_fit(y, s, labels=LABELS, n_splits=25, n_repeats=1, rng=4)
        assert res.statistic == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("method", ["bootstrap", "cv"])
    def test_other_weights_and_text_labels(self, method):
        y, s = _sample(5, n=50)
        scale = ["a", "b", "c", "d", "e"]
        text = np.array(scale)[y]
        wmat = np.abs(np.subtract.outer(np.arange(5), np.arange(5))) ** 1.5
        wmat[0, 4] = 40.0  # asymmetric
        for weights in ("linear", "identity", wmat):
            res = qwkit.optimism_corrected_kappa(
                text, s, labels=scale, weights=weights, method=method, n_resamples=10, rng=8
            )
            if method == "bootstrap":
                expected = naive_bootstrap(
                    text, s, labels=scale, weights=weights, n_resamples=10, rng=8
                )[1]
                got = res.optimism
            else:
                expected = naive_cross_fit(
                    text, s, labels=scale, weights=weights, n_splits=10, n_repeats=1, rng=8
                )
                got = res.statistic
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)
            assert list(res.labels) == scale

    @pytest.mark.parametrize("decimals", [3, 0])
    @pytest.mark.parametrize("method", ["bootstrap", "cv"])
    def test_survey_weights_resample_rows(self, method, decimals):
        # decimals=0: many rows share a (score, class) pair, so a fold that holds out
        # all of them must leave exactly zero weight behind, not a rounding residue
        y, s = _sample(6, n=50, decimals=decimals)
        w = np.random.default_rng(7).uniform(0.2, 3.0, size=50)
        w[:4] = 0.0  # dropped rows
        res = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, sample_weight=w, method=method, n_resamples=20, rng=9
        )
        assert res.n_items == 46
        if method == "bootstrap":
            assert res.optimism == pytest.approx(
                naive_bootstrap(y, s, labels=LABELS, sample_weight=w, n_resamples=20, rng=9)[1],
                rel=1e-9,
            )
        else:
            expected = naive_cross_fit(
                y, s, labels=LABELS, sample_weight=w, n_splits=10, n_repeats=2, rng=9
            )
            assert res.statistic == pytest.approx(expected, rel=1e-9)

    def test_survey_folds_leave_exactly_zero_weight(self):
        """Pairs of three rows (weights 0.1, 0.2, 0.3: their float sum depends on the
        order) held out together must leave no rounding residue in the training fold:
        a residue would still be a fitted score and move a cut point."""
        for seed in range(12):
            gen = np.random.default_rng(seed)
            latent = gen.normal(size=30)
            y = np.repeat(np.searchsorted([-0.5, 0.5], latent), 3)
            s = np.repeat(latent + gen.normal(scale=0.5, size=30), 3)
            w = np.tile([0.1, 0.2, 0.3], 30)
            order = gen.permutation(90)
            y, s, w = y[order], s[order], w[order]
            opts = dict(labels=[0, 1, 2], sample_weight=w, n_splits=2)
            res = qwkit.optimism_corrected_kappa(y, s, **opts, n_resamples=10, rng=seed)
            expected = naive_cross_fit(y, s, **opts, n_repeats=5, rng=seed)
            assert res.statistic == pytest.approx(expected, rel=1e-12), seed

    @pytest.mark.parametrize("method", ["bootstrap", "cv"])
    def test_counts_match_the_oracle(self, method):
        y, s = _sample(10, n=40)
        counts = np.random.default_rng(11).integers(0, 4, size=40)
        res = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, counts=counts, method=method, n_resamples=20, rng=12
        )
        assert res.n_items == counts.sum()
        if method == "bootstrap":
            expected = naive_bootstrap(y, s, labels=LABELS, counts=counts, n_resamples=20, rng=12)[
                1
            ]
            assert res.optimism == pytest.approx(expected, rel=1e-12)
        else:
            expected = naive_cross_fit(
                y, s, labels=LABELS, counts=counts, n_splits=10, n_repeats=2, rng=12
            )
            assert res.statistic == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("method", ["bootstrap", "cv"])
    def test_billions_of_items(self, method):
        """Σ counts = 5·10¹⁰: no memory in proportion to the items (folds beyond 10⁹
        items are binomial draws per pair), and with this many items the cut points
        hardly move: the optimism is nil."""
        y, s = _sample(37, n=50)
        res = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, counts=np.full(50, 10**9), method=method, n_resamples=20, rng=0
        )
        assert res.n_items == 5 * 10**10 and res.n_resamples == 20
        assert abs(res.optimism) < 1e-5 and 0 < res.standard_error < 1e-4

    # ------------------------------------------------------------ invariances

    @pytest.mark.parametrize("method", ["bootstrap", "cv"])
    def test_counts_are_repeated_rows_exactly(self, method):
        y, s = _sample(13, n=40)
        counts = np.random.default_rng(14).integers(0, 5, size=40)
        rows_y, rows_s = np.repeat(y, counts), np.repeat(s, counts)
        order = np.random.default_rng(15).permutation(rows_y.shape[0])
        opts = dict(labels=LABELS, method=method, n_resamples=20, rng=16)
        with_counts = qwkit.optimism_corrected_kappa(y, s, counts=counts, **opts)
        _same(with_counts, qwkit.optimism_corrected_kappa(rows_y, rows_s, **opts))
        shuffled = qwkit.optimism_corrected_kappa(rows_y[order], rows_s[order], **opts)
        _same(with_counts, shuffled)  # the row order never matters

    @given(
        data=st.lists(
            st.tuples(st.integers(0, 3), st.integers(0, 6), st.integers(0, 3)),
            min_size=3,
            max_size=12,
        ),
        method=st.sampled_from(["bootstrap", "cv"]),
        seed=st.integers(0, 2**32 - 1),
    )
    def test_counts_are_repeated_rows_property(self, data, method, seed):
        y = np.array([d[0] for d in data])
        s = np.array([d[1] for d in data], dtype=float) / 2
        counts = np.array([d[2] for d in data])
        if np.unique(y[counts > 0]).size < 2:
            return  # optimize_thresholds refuses a single class: not this property
        opts = dict(labels=np.arange(4), method=method, n_resamples=4, rng=seed)
        if method == "cv":
            opts["n_splits"] = 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.UndefinedKappaWarning)  # tiny resamples
            a = qwkit.optimism_corrected_kappa(y, s, counts=counts, **opts)
            b = qwkit.optimism_corrected_kappa(np.repeat(y, counts), np.repeat(s, counts), **opts)
        for name in ("statistic", "apparent", "optimism", "n_resamples", "n_items"):
            x, z = getattr(a, name), getattr(b, name)
            assert x == z or (math.isnan(x) and math.isnan(z)), name

    @pytest.mark.parametrize("method", ["bootstrap", "cv"])
    @pytest.mark.parametrize("value", [1.0, 2.5])
    def test_equal_sample_weights_are_no_weights(self, method, value):
        y, s = _sample(17, n=45)
        opts = dict(labels=LABELS, method=method, n_resamples=20, rng=18)
        plain = qwkit.optimism_corrected_kappa(y, s, **opts)
        _same(plain, qwkit.optimism_corrected_kappa(y, s, sample_weight=np.full(45, value), **opts))

    @pytest.mark.parametrize("method", ["bootstrap", "cv"])
    def test_zero_weights_and_zero_counts_drop_rows(self, method):
        y, s = _sample(19, n=45, decimals=3)
        opts = dict(labels=LABELS, method=method, n_resamples=20, rng=20)
        keep = np.ones(45, dtype=bool)
        keep[[0, 7, 30]] = False
        w = np.random.default_rng(21).uniform(0.5, 2.0, size=45)
        dropped = qwkit.optimism_corrected_kappa(y[keep], s[keep], sample_weight=w[keep], **opts)
        _same(dropped, qwkit.optimism_corrected_kappa(y, s, sample_weight=w * keep, **opts))
        counts = np.where(keep, 2, 0)
        _same(
            qwkit.optimism_corrected_kappa(y[keep], s[keep], counts=counts[keep], **opts),
            qwkit.optimism_corrected_kappa(y, s, counts=counts, **opts),
        )

    def test_apparent_and_thresholds_are_optimize_thresholds(self):
        y, s = _sample(22, n=80)
        w = np.random.default_rng(23).uniform(0.5, 2.0, size=80)
        for kwargs in ({}, {"sample_weight": w}):
            fit = qwkit.optimize_thresholds(y, s, labels=LABELS, **kwargs)
            res = qwkit.optimism_corrected_kappa(y, s, labels=LABELS, n_resamples=10, **kwargs)
            assert res.apparent == fit.statistic
            np.testing.assert_array_equal(res.thresholds, fit.thresholds)
            np.testing.assert_array_equal(res.threshold_result.predict(s), fit.predict(s))

    def test_seeded_results_are_reproducible(self):
        y, s = _sample(24, n=70)
        for method in ("bootstrap", "cv"):
            opts = dict(method=method, n_resamples=20)
            a = qwkit.optimism_corrected_kappa(y, s, rng=25, **opts)
            _same(a, qwkit.optimism_corrected_kappa(y, s, rng=np.random.default_rng(25), **opts))
            assert qwkit.optimism_corrected_kappa(y, s, rng=26, **opts).optimism != a.optimism

    @pytest.mark.parametrize(("method", "total"), [("cv", 20), ("bootstrap", 30)])
    def test_progress_counts_every_refit_and_changes_nothing(self, method, total):
        # the bootstrap adds one repetition of 10-fold cross-fitting (its optimism's SE)
        y, s = _sample(27, n=70)
        calls = []
        opts = dict(method=method, n_resamples=20, rng=28)
        res = qwkit.optimism_corrected_kappa(y, s, progress=lambda *a: calls.append(a), **opts)
        assert calls == [(i, total) for i in range(total + 1)]
        _same(res, qwkit.optimism_corrected_kappa(y, s, **opts))

    # ------------------------------------------------------------ standard errors

    def test_standard_error_apparent_is_kappa_test(self):
        y, s = _sample(27, n=80)
        res = qwkit.optimism_corrected_kappa(y, s, labels=LABELS, n_resamples=10, rng=0)
        pred = res.threshold_result.predict(s)
        se = qwkit.kappa_test(y, pred, labels=LABELS).standard_error
        assert res.standard_error_apparent == pytest.approx(se, rel=1e-10)

        w = np.random.default_rng(28).uniform(0.5, 2.0, size=80)
        res = qwkit.optimism_corrected_kappa(y, s, sample_weight=w, n_resamples=10, rng=0)
        pred = res.threshold_result.predict(s)
        se = qwkit.kappa_test(y, pred, labels=res.labels, sample_weight=w).standard_error
        assert res.standard_error_apparent == pytest.approx(se, rel=1e-10)

        counts = np.random.default_rng(29).integers(1, 4, size=80)
        res = qwkit.optimism_corrected_kappa(y, s, counts=counts, n_resamples=10, rng=0)
        pred = res.threshold_result.predict(s)
        table = qwkit.confusion_matrix(y, pred, labels=res.labels, sample_weight=counts)
        se = qwkit.kappa_test_from_confusion(table).standard_error
        assert res.standard_error_apparent == pytest.approx(se, rel=1e-10)

    def test_standard_error_optimism_is_the_paired_se(self):
        """Eq. O5: the paired SE of compare_kappa_test(fitted, out-of-fold classes),
        root mean square over the repetitions."""
        y, s = _sample(30, n=70)
        res = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, n_splits=5, n_resamples=15, rng=31
        )
        classes = []
        naive_cross_fit(y, s, labels=LABELS, n_splits=5, n_repeats=3, rng=31, classes=classes)
        variances = [
            qwkit.compare_kappa_test(t, a, b, labels=LABELS).standard_error ** 2
            for t, a, b in classes
        ]
        assert res.standard_error_optimism == pytest.approx(math.sqrt(np.mean(variances)), 1e-10)
        assert res.standard_error == pytest.approx(
            res.standard_error_apparent + res.standard_error_optimism
        )

    def test_confidence_interval(self):
        y, s = _sample(32, n=90)
        res = qwkit.optimism_corrected_kappa(y, s, n_resamples=20, rng=33)
        for level in (0.95, 0.8):
            half = special.ndtri((1 + level) / 2) * res.standard_error
            low, high = res.confidence_interval(level)
            assert low == pytest.approx(res.statistic - half)
            assert high == pytest.approx(res.statistic + half)
            assert isinstance(low, float) and isinstance(high, float)
        # perfectly separated scores: kappa 1 everywhere, the interval stops at 1
        y = np.repeat(np.arange(4), 10)
        perfect = qwkit.optimism_corrected_kappa(y, y + 0.1 * np.arange(40) / 40, rng=0)
        assert perfect.statistic == 1.0 and perfect.optimism == 0.0
        with pytest.warns(qwkit.DegenerateIntervalWarning, match="standard error of 0"):
            assert perfect.confidence_interval() == (1.0, 1.0)
        for bad, error in ((1.0, ValueError), (0, ValueError), ("0.9", TypeError)):
            with pytest.raises(error, match="`confidence_level`"):
                res.confidence_interval(bad)

    # ------------------------------------------------------------ the result

    def test_result_object(self):
        y, s = _sample(34, n=60)
        res = qwkit.optimism_corrected_kappa(y, s, n_resamples=20, rng=35)
        assert type(res).__module__ == "qwkit" and type(res) is qwkit.OptimismResult
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.statistic = 0.0
        with pytest.raises(ValueError, match="read-only"):
            res.thresholds[0] = 0.0
        _same(res, pickle.loads(pickle.dumps(res)))
        d = res.to_dict()
        assert json.loads(json.dumps(d)) == d
        assert d["statistic"] == res.statistic and d["method"] == "cv" and d["n_splits"] == 10
        assert d["confidence_interval_95"] == list(res.confidence_interval())
        assert d["labels"] == [0, 1, 2, 3, 4]
        text = res.summary()
        assert "Corrected kappa" in text and f"{res.statistic:.4f}" in text
        assert "10-fold CV x 2" in text and "Number of items" in text
        boot = qwkit.optimism_corrected_kappa(y, s, method="bootstrap", n_resamples=20, rng=35)
        assert "bootstrap, 20 resamples" in boot.summary()
        assert "OptimismResult(statistic=" in repr(res)
        for name in ("statistic", "apparent", "optimism", "standard_error"):
            assert type(getattr(res, name)) is float

    def test_unrefittable_resamples_are_left_out_with_a_warning(self):
        y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 2])  # few items of the upper classes
        s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.9, 0.8, 1.5])
        with pytest.warns(qwkit.UndefinedKappaWarning, match="could not be refitted"):
            res = qwkit.optimism_corrected_kappa(y, s, method="bootstrap", n_resamples=50, rng=1)
        assert 0 < res.n_resamples < 50 and math.isfinite(res.statistic)
        with pytest.warns(qwkit.UndefinedKappaWarning, match="whole repetitions"):
            res = qwkit.optimism_corrected_kappa(y, s, n_splits=3, n_resamples=30, rng=1)
        assert res.n_resamples % 3 == 0 and res.n_resamples < 30

    # ------------------------------------------------------------ errors

    @pytest.mark.parametrize(
        ("kwargs", "error", "match"),
        [
            ({"method": "632"}, ValueError, "`method` must be 'bootstrap' or 'cv'; got '632'"),
            ({"n_resamples": 0}, ValueError, "`n_resamples` must be at least 1"),
            ({"n_resamples": 2.5}, TypeError, "`n_resamples` must be an integer"),
            ({"n_resamples": True}, TypeError, "`n_resamples` must be an integer"),
            ({"n_resamples": 10**9}, ValueError, "at most 100,000 .* got 1,000,000,000"),
            ({"n_splits": 1}, ValueError, "`n_splits` must be at least 2; got 1"),
            ({"n_splits": 3.0}, TypeError, "`n_splits` must be an integer"),
            ({"n_splits": 7}, ValueError, "multiple of `n_splits` \\(7\\); got 200"),
            ({"n_splits": 50, "n_resamples": 50}, ValueError, "at most the number of items"),
            ({"method": "bootstrap", "n_splits": 5}, ValueError, "only to method='cv'"),
            ({"rng": "seed"}, TypeError, "`rng` must be None, an integer seed"),
            ({"counts": [1] * 20, "sample_weight": [1] * 20}, ValueError, "are exclusive"),
            ({"counts": [1] * 19}, ValueError, "one count per row \\(20\\); got 19"),
            ({"counts": [1.5] + [1] * 19}, ValueError, "whole numbers .*; got 1.5 at index 0"),
            ({"counts": [-1] + [1] * 19}, ValueError, "whole numbers .*; got -1 at index 0"),
            ({"counts": [np.nan] + [1] * 19}, ValueError, "whole numbers .*; got nan"),
            ({"counts": [True] * 20}, TypeError, "`counts` must hold non-negative integers"),
            ({"counts": ["1"] * 20}, TypeError, "`counts` must hold non-negative integers"),
            ({"counts": [0] * 20}, ValueError, "`counts` must not sum to zero"),
            ({"counts": [2**53] + [1] * 19}, ValueError, "at most 2\\*\\*53"),
            ({"counts": [2**52] * 2 + [1] * 18}, ValueError, "at most 2\\*\\*53"),
            ({"sample_weight": [-1.0] + [1.0] * 19}, ValueError, "`sample_weight` must be"),
            ({"weights": "cubic"}, ValueError, "`weights` must be"),
        ],
    )
    def test_errors(self, kwargs, error, match):
        y, s = _sample(36, n=20)
        with pytest.raises(error, match=match):
            qwkit.optimism_corrected_kappa(y, s, **kwargs)

    def test_data_errors_name_the_parameter(self):
        with pytest.raises(ValueError, match="`y_true` and `y_score` must have the same length"):
            qwkit.optimism_corrected_kappa([0, 1, 2], [0.1, 0.2])
        with pytest.raises(ValueError, match="`y_score`"):
            qwkit.optimism_corrected_kappa([0, 1, 2], [0.1, np.nan, 0.3])
        with pytest.raises(ValueError, match="at least two distinct ratings"):
            qwkit.optimism_corrected_kappa([1, 1, 1], [0.1, 0.2, 0.3])

    # ------------------------------------------------------------ against the truth


def _population_kappa(thresholds, sigma=0.6):
    """Exact QWK on the population (latent N(0,1) → CUTS; score = latent + sigma·noise)
    of cut points on the scores: Gauss–Legendre over each class's latent interval."""
    nodes, weights = np.polynomial.legendre.leggauss(96)
    edges = np.concatenate(([-10.0], CUTS, [10.0]))
    lo, hi = edges[:-1, None], edges[1:, None]
    z = (hi - lo) / 2 * nodes + (hi + lo) / 2
    wz = (hi - lo) / 2 * weights * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    c = np.concatenate(([-np.inf], thresholds, [np.inf]))
    cdf = special.ndtr((c[None, None, :] - z[..., None]) / sigma)
    return qwkit.kappa_from_confusion(np.einsum("tq,tqj->tj", wz, np.diff(cdf, axis=2)))


def test_population_kappa_is_exact():
    gen = np.random.default_rng(20261121)
    latent = gen.normal(size=400_000)
    y = np.searchsorted(CUTS, latent)
    s = latent + gen.normal(scale=0.6, size=400_000)
    cuts = np.array([-1.2, -0.2, 0.5, 1.0])
    res = qwkit.kappa_test(y, qwkit.apply_thresholds(s, cuts), labels=LABELS)
    assert abs(_population_kappa(cuts) - res.statistic) < 4 * res.standard_error


def test_correction_removes_the_optimism_against_the_exact_truth():
    """Replications of n = 150 items with a known truth: the kappa of the fitted cut
    points on the population. Cross-fitting must remove most of the optimism, the
    bootstrap at least a third of it (docs/optimism.md: it leaves 28–43 %), and the
    95% interval must cover the truth in most replications."""
    gen = np.random.default_rng(20261121)
    rows = []
    for _ in range(60):
        latent = gen.normal(size=150)
        y = np.searchsorted(CUTS, latent)
        s = latent + gen.normal(scale=0.6, size=150)
        cv = qwkit.optimism_corrected_kappa(y, s, labels=LABELS, n_resamples=50, rng=gen)
        boot = qwkit.optimism_corrected_kappa(
            y, s, labels=LABELS, method="bootstrap", n_resamples=50, rng=gen
        )
        truth = _population_kappa(cv.thresholds)
        low, high = cv.confidence_interval()
        rows.append((cv.apparent, truth, cv.statistic, boot.statistic, low <= truth <= high))
    apparent, truth, corrected, boot, covered = np.array(rows).T
    optimism = apparent.mean() - truth.mean()
    assert optimism > 0.02  # the inflation is real at this size
    assert abs(corrected.mean() - truth.mean()) < 0.35 * optimism
    assert boot.mean() - truth.mean() < 0.67 * optimism
    assert covered.mean() >= 0.85
