"""``counts=``: integer multiplicities are not survey weights.

A table in long format (one row per cell with its frequency — R's ``vision`` data, every
``*_counts.csv`` of the shared data) must give exactly what the repeated rows give,
inference included, without repeating them. ``sample_weight`` keeps its meaning: the rows
are the sampled units.
"""

from __future__ import annotations

import pathlib
import tracemalloc

import numpy as np
import pytest

import qwkit

DATA = pathlib.Path(__file__).parents[1] / "data"
SEED = 20261121


def _vision():
    # R irr 0.84.1 `vision` (Stuart 1953, Biometrika 40:105): right- vs left-eye unaided
    # vision grade of 7,477 women, in long format (one row per cell, with its frequency).
    rows = (DATA / "irr_vision_counts.csv").read_text().splitlines()[2:]  # provenance, header
    table = np.array([[int(x.strip('"')) for x in row.split(",")] for row in rows])
    return table[:, 0], table[:, 1], table[:, 2]


def _numbers(res):
    return (res.statistic, res.standard_error, res.standard_error_null, res.pvalue, res.n_items)


class TestVisionData:
    def test_counts_equal_the_expanded_rows(self):
        right, left, freq = _vision()
        assert freq.sum() == 7477
        res = qwkit.kappa_test(right, left, counts=freq)
        expanded = qwkit.kappa_test(np.repeat(right, freq), np.repeat(left, freq))
        assert _numbers(res) == _numbers(expanded)
        assert res.n_items == 7477
        # the standard error of 7,477 items, not of 16 sampled rows
        assert res.standard_error == pytest.approx(0.0084, abs=5e-5)
        for method in ("asymptotic", "jackknife", "percentile", "bootstrap"):
            assert res.confidence_interval(
                method=method, n_resamples=500, rng=SEED
            ) == expanded.confidence_interval(method=method, n_resamples=500, rng=SEED)

    def test_survey_weights_are_not_counts(self):
        # the trial's finding: as sample weights the 16 rows are the sampled units
        right, left, freq = _vision()
        res = qwkit.kappa_test(right, left, sample_weight=freq)
        assert res.n_items == 16 and res.standard_error > 0.1
        assert res.statistic == pytest.approx(qwkit.kappa_test(right, left, counts=freq).statistic)

    def test_counts_need_no_memory_per_item(self):
        right, left, freq = _vision()
        tracemalloc.start()
        qwkit.kappa_test(right, left, counts=freq * 10**9).confidence_interval(
            method="percentile", n_resamples=200, rng=SEED
        )
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 10 * 2**20  # 7.5e12 items: nothing in proportion to them


def _data(seed, n=60, k=5):
    rng = np.random.default_rng(seed)
    y1 = rng.integers(0, k, n)
    y2 = np.clip(y1 + rng.integers(-1, 2, n), 0, k - 1)
    y3 = rng.integers(0, k, n)
    counts = rng.integers(0, 4, n)
    counts[0] = max(counts[0], 1)
    score = y1 + rng.normal(0, 0.8, n)
    return y1, y2, y3, counts, score


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("weights", ["quadratic", "linear", "identity"])
class TestEveryFunctionEqualsRepeatedRows:
    def test_kappa_score_and_tables(self, seed, weights):
        y1, y2, _, c, _ = _data(seed)
        r1, r2 = np.repeat(y1, c), np.repeat(y2, c)
        assert qwkit.kappa_score(y1, y2, weights=weights, counts=c) == qwkit.kappa_score(
            r1, r2, weights=weights
        )
        got = qwkit.confusion_matrix(y1, y2, counts=c)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, qwkit.confusion_matrix(r1, r2, labels=range(5)))

    def test_kappa_test(self, seed, weights):
        y1, y2, _, c, _ = _data(seed)
        got = qwkit.kappa_test(y1, y2, weights=weights, counts=c)
        ref = qwkit.kappa_test(np.repeat(y1, c), np.repeat(y2, c), weights=weights)
        assert _numbers(got) == _numbers(ref)
        assert got.confidence_interval(method="bootstrap", n_resamples=300, rng=seed) == (
            ref.confidence_interval(method="bootstrap", n_resamples=300, rng=seed)
        )

    def test_compare_kappa_test(self, seed, weights):
        y1, y2, y3, c, _ = _data(seed)
        got = qwkit.compare_kappa_test(y1, y2, y3, weights=weights, counts=c)
        ref = qwkit.compare_kappa_test(*(np.repeat(v, c) for v in (y1, y2, y3)), weights=weights)
        assert (got.statistic, got.kappa_a, got.kappa_b, got.n_items) == (
            ref.statistic,
            ref.kappa_a,
            ref.kappa_b,
            ref.n_items,
        )
        assert got.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
        assert got.confidence_interval(method="jackknife") == pytest.approx(
            tuple(ref.confidence_interval(method="jackknife")), rel=1e-12
        )

    def test_thresholds_and_accumulator(self, seed, weights):
        y1, y2, _, c, score = _data(seed)
        got = qwkit.optimize_thresholds(y1, score, weights=weights, counts=c)
        ref = qwkit.optimize_thresholds(np.repeat(y1, c), np.repeat(score, c), weights=weights)
        assert got.statistic == ref.statistic
        np.testing.assert_array_equal(got.thresholds, ref.thresholds)
        acc = qwkit.KappaAccumulator(range(5), weights=weights)
        acc.update(y1[:30], y2[:30], counts=c[:30])
        acc.update(y1[30:], y2[30:], counts=c[30:])
        assert acc.n_items == c.sum()
        assert acc.score() == qwkit.kappa_score(y1, y2, weights=weights, counts=c)


class TestRealValuedFunctions:
    def test_soft_kappa_regression_rescale(self):
        y1, _, _, c, score = _data(7)
        X = np.column_stack([score, score**2])
        ry, rs, rx = np.repeat(y1, c), np.repeat(score, c), np.repeat(X, c, axis=0)
        assert qwkit.soft_kappa_score(y1, score, counts=c) == pytest.approx(
            qwkit.soft_kappa_score(ry, rs), rel=1e-13
        )
        got, ref = qwkit.kappa_regression(X, y1, counts=c), qwkit.kappa_regression(rx, ry)
        assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
        np.testing.assert_allclose(got.coef, ref.coef, rtol=1e-10)
        got, ref = qwkit.kappa_rescale(y1, score, counts=c), qwkit.kappa_rescale(ry, rs)
        assert (got.slope, got.intercept) == pytest.approx((ref.slope, ref.intercept), rel=1e-12)


class TestBadCounts:
    @pytest.mark.parametrize(
        ("counts", "match", "row"),
        [
            ([1, 2, -1], "non-negative whole numbers", 2),
            ([1, 2.5, 1], "non-negative whole numbers", 1),
            ([1, np.nan, 1], "non-negative whole numbers", 1),
            ([0, 0, 0], "must not sum to zero", None),
            ([1, 2], "one count per row", None),
            ([2**53, 1, 1], "at most 2\\*\\*53", None),
        ],
    )
    def test_errors_name_counts(self, counts, match, row):
        with pytest.raises(qwkit.QwkitError, match=match) as err:
            qwkit.kappa_score([1, 2, 3], [1, 2, 2], counts=counts)
        assert err.value.parameter == "counts" and err.value.row == row

    def test_exclusive_with_sample_weight(self):
        with pytest.raises(ValueError, match="exclusive") as err:
            qwkit.kappa_test([1, 2, 3], [1, 2, 2], counts=[1, 1, 1], sample_weight=[1, 1, 1])
        assert set(err.value.parameters) == {"counts", "sample_weight"}

    def test_text_counts_refused(self):
        with pytest.raises(TypeError, match="`counts` must hold non-negative integers"):
            qwkit.kappa_score([1, 2, 3], [1, 2, 2], counts=["1", "2", "3"])
