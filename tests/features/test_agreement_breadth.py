"""Tests of percent agreement and Scott's π in agreement_test, category_agreement,
marginal_homogeneity_test, kendall_w, the benchmark scales and Gwet's named weights.

R's values (irrCAC, irr) for hundreds of data sets are in ``test_breadth_reference.py``;
here: the definitions by hand, the relations between the statistics (docs/agreement.md),
properties and bad input.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from scipy import stats

import qwkit

SEED = 20261121
NAN = np.nan


def _panel(seed, n=30, raters=4, k=4, missing=0.0):
    rng = np.random.default_rng(seed)
    level = rng.integers(1, k + 1, n)
    x = np.clip(level[:, None] + rng.integers(-1, 2, (n, raters)), 1, k).astype(float)
    if missing:
        x[rng.random(x.shape) < missing] = NAN
    return x


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qwkit.ScaleWarning)
        return fn(*args, **kwargs)


# ============================================================================ percent, Scott


class TestPercent:
    @pytest.mark.parametrize("weights", [None, "linear", "quadratic", "radical"])
    def test_is_the_observed_agreement(self, weights):
        x = _panel(1, missing=0.2)
        res = qwkit.agreement_test(x, coefficient="percent", weights=weights, labels=[1, 2, 3, 4])
        w = 1 - qwkit.weight_matrix(4, weights)  # agreement weights (eq. 2)
        per_item = []
        for row in x:
            r = row[~np.isnan(row)].astype(int) - 1
            if r.size >= 2:
                pairs = [w[a, b] for i, a in enumerate(r) for j, b in enumerate(r) if i != j]
                per_item.append(np.mean(pairs))
        assert res.statistic == pytest.approx(np.mean(per_item), rel=1e-13)  # (eq. 5)
        # irrCAC's pa.coeff.raw: (1 − f)/(n(n − 1)) Σ ((n/n₂) p_a,i − p_a)²
        n, n2 = x.shape[0], len(per_item)
        pa_i = np.zeros(n)
        rated = [row for row in x if (~np.isnan(row)).sum() >= 2]
        assert len(rated) == n2
        i = 0
        for j, row in enumerate(x):
            if (~np.isnan(row)).sum() >= 2:
                pa_i[j] = n / n2 * per_item[i]
                i += 1
        se = math.sqrt(np.sum((pa_i - res.statistic) ** 2) / (n * (n - 1)))
        assert res.standard_error == pytest.approx(se, rel=1e-12)

    def test_from_counts(self):
        x = _panel(2)
        table = np.stack([(x == c).sum(axis=1) for c in range(1, 5)], axis=1)
        a = qwkit.agreement_test(x, coefficient="percent", labels=[1, 2, 3, 4])
        b = qwkit.agreement_test_from_counts(table, coefficient="percent", labels=[1, 2, 3, 4])
        assert (b.statistic, b.standard_error) == pytest.approx((a.statistic, a.standard_error))


class TestScott:
    def test_is_fleiss_of_the_complete_pairs_with_irrcac_variance(self):
        x = _panel(3, raters=2, missing=0.15)
        both = x[~np.isnan(x).any(axis=1)]
        scott = qwkit.agreement_test(x, coefficient="scott", labels=[1, 2, 3, 4])
        fleiss = qwkit.agreement_test(both, coefficient="fleiss", labels=[1, 2, 3, 4])
        n = both.shape[0]
        assert scott.n_items == n
        assert scott.statistic == pytest.approx(fleiss.statistic, rel=1e-13)
        # scott2.table divides by n² where fleiss.kappa.raw divides by n(n − 1) (eq. 12')
        want = fleiss.standard_error * math.sqrt((n - 1) / n)
        assert scott.standard_error == pytest.approx(want, rel=1e-12)

    def test_unweighted_by_hand(self):
        # Scott (1955): π = (p_o − p_e)/(1 − p_e), p_e from the pooled margins
        a = np.array([1, 1, 2, 2, 3, 3, 1, 2])
        b = np.array([1, 2, 2, 2, 3, 1, 1, 3])
        pooled = np.bincount(np.r_[a, b])[1:] / 16
        po, pe = np.mean(a == b), np.sum(pooled**2)
        res = qwkit.agreement_test(np.column_stack([a, b]), coefficient="scott", weights=None)
        assert res.statistic == pytest.approx((po - pe) / (1 - pe), rel=1e-14)

    def test_from_the_sparse_table(self):
        x = _panel(4, raters=2, missing=0.2)
        items, raters = np.nonzero(~np.isnan(x))
        table = qwkit.ratings_from_long(items[::-1], raters[::-1], x[items, raters][::-1])
        for coefficient in ("scott", "percent"):
            a = qwkit.agreement_test(table, coefficient=coefficient, labels=[1, 2, 3, 4])
            b = qwkit.agreement_test(x, coefficient=coefficient, labels=[1, 2, 3, 4])
            assert (a.statistic, a.standard_error) == pytest.approx(
                (b.statistic, b.standard_error), rel=1e-12
            )

    def test_two_raters_only(self):
        with pytest.raises(ValueError, match="`coefficient`='scott' is Scott's pi of two raters"):
            qwkit.agreement_test(_panel(4), coefficient="scott")


# ============================================================================ per category


class TestCategoryAgreement:
    def test_overall_fleiss_is_the_weighted_mean(self):
        # Fleiss (1971): κ = Σ pₖqₖκₖ / Σ pₖqₖ with complete data   (eq. K3)
        x = _panel(5, raters=5)
        res = qwkit.category_agreement(x)
        pq = res.proportion * (1 - res.proportion)
        overall = qwkit.agreement_score(x, coefficient="fleiss", weights=None)
        assert np.sum(pq * res.statistic) / np.sum(pq) == pytest.approx(overall, rel=1e-12)

    def test_each_is_fleiss_of_the_recoded_ratings(self):
        x = _panel(6, missing=0.2)
        res = qwkit.category_agreement(x)
        for label, kappa, se in zip(res.labels, res.statistic, res.standard_error, strict=True):
            binary = np.where(np.isnan(x), NAN, (x == label).astype(float))
            ref = qwkit.agreement_test(binary, coefficient="fleiss", weights=None)
            assert (kappa, se) == pytest.approx((ref.statistic, ref.standard_error), rel=1e-12)
        # unequal numbers of ratings: no null standard error, t-tests instead
        assert np.all(np.isnan(res.standard_error_null))
        assert np.all((res.pvalue >= 0) & (res.pvalue <= 1))

    def test_text_labels_and_result(self):
        x = [["a", "a", "b"], ["b", "b", "b"], ["c", "a", "c"], ["a", "a", "a"], ["c", "c", "b"]]
        res = qwkit.category_agreement(x, labels=["c", "b", "a"])
        assert res.labels.tolist() == ["c", "b", "a"]
        assert list(res.kappas) == ["c", "b", "a"]
        assert res.to_dict()["labels"] == ["c", "b", "a"]
        assert "Agreement on each category" in res.summary()
        low, high = res.confidence_interval(0.9)
        assert np.all(low <= res.statistic) and np.all(res.statistic <= high)
        assert pickle.loads(pickle.dumps(res)).kappas == res.kappas
        assert qwkit.category_kappas is qwkit.category_agreement  # R irr's word


# ============================================================================ marginal


class TestMarginalHomogeneity:
    def test_two_categories_is_mcnemar(self):
        a = np.array([1] * 10 + [1] * 7 + [2] * 3 + [2] * 12)
        b = np.array([1] * 10 + [2] * 7 + [1] * 3 + [2] * 12)
        res = qwkit.marginal_homogeneity_test(a, b)
        assert res.statistic == pytest.approx((7 - 3) ** 2 / (7 + 3))
        assert res.df == 1 and res.pvalue == pytest.approx(stats.chi2.sf(1.6, 1))

    def test_any_category_may_be_left_out(self):
        rng = np.random.default_rng(SEED)
        a = rng.integers(0, 4, 200)
        b = np.where(rng.random(200) < 0.6, a, rng.integers(0, 4, 200))
        res = qwkit.marginal_homogeneity_test(a, b)
        table = np.zeros((4, 4))
        np.add.at(table, (a, b), 1)
        d = table.sum(axis=1) - table.sum(axis=0)
        s = -(table + table.T)
        np.fill_diagonal(s, table.sum(axis=1) + table.sum(axis=0) - 2 * np.diag(table))
        for drop in range(4):
            keep = [c for c in range(4) if c != drop]
            want = d[keep] @ np.linalg.solve(s[np.ix_(keep, keep)], d[keep])  # Stuart-Maxwell
            assert res.statistic == pytest.approx(want, rel=1e-12)
        bh = qwkit.marginal_homogeneity_test(a, b, method="bhapkar")
        assert bh.statistic == pytest.approx(res.statistic / (1 - res.statistic / 200))

    def test_singular_table_uses_the_generalized_inverse(self):
        # category 3 only on the diagonal: it carries no information and no df
        a = np.array([1, 1, 2, 2, 1, 2, 3, 3, 1, 2, 1])
        b = np.array([1, 2, 1, 2, 2, 2, 3, 3, 2, 1, 2])
        res = qwkit.marginal_homogeneity_test(a, b)
        two = qwkit.marginal_homogeneity_test(a[a < 3], b[b < 3])
        assert res.df == 1 and res.statistic == pytest.approx(two.statistic, rel=1e-12)

    def test_missing_pairs_text_and_result(self):
        a = ["x", "y", None, "y", "x", "z", "z", "y"]
        b = ["y", "y", "x", "x", "x", "z", "y", NAN]
        res = qwkit.marginal_homogeneity_test(a, b, labels=["x", "y", "z"], nan_policy="omit")
        assert res.n_items == 6 and res.labels.tolist() == ["x", "y", "z"]
        assert res.differences.tolist() == [0, -1, 1]
        assert res.to_dict()["df"] == res.df and "Stuart-Maxwell" in res.summary()

    def test_no_disagreement_is_refused(self):
        with pytest.raises(ValueError, match="no pair disagrees"):
            qwkit.marginal_homogeneity_test([1, 2, 3, 1], [1, 2, 3, 1])

    def test_bad_input(self):
        with pytest.raises(ValueError, match="`a` and `b` must be 1-D and of the same length"):
            qwkit.marginal_homogeneity_test([1, 2, 3], [1, 2])
        with pytest.raises(ValueError, match="`method` must be"):
            qwkit.marginal_homogeneity_test([1, 2, 3], [1, 2, 2], method="mcnemar")


# ============================================================================ Kendall's W


class TestKendallW:
    def test_is_friedman_over_m_n_minus_1(self):
        # Friedman's statistic (scipy, corrected for ties) is m(n − 1)W   (eq. W2)
        x = _panel(7, n=12, raters=5, k=6)
        res = qwkit.kendall_w(x)
        n, m = x.shape
        friedman = stats.friedmanchisquare(*x).statistic
        assert res.chi_square == pytest.approx(friedman, rel=1e-12)
        assert res.statistic == pytest.approx(friedman / (m * (n - 1)), rel=1e-12)
        assert res.pvalue == pytest.approx(stats.chi2.sf(friedman, n - 1), rel=1e-12)

    def test_perfect_concordance(self):
        x = np.repeat(np.array([[1, 2, 2, 3, 5]]).T, 4, axis=1).astype(float)
        assert qwkit.kendall_w(x).statistic == pytest.approx(1.0)
        assert qwkit.kendall_w(x, correct_ties=False).statistic < 1.0

    def test_missing_items_are_left_out_and_result(self):
        x = _panel(8, n=15, raters=3)
        y = x.copy()
        y[0, 1] = NAN
        res = qwkit.kendall_w(y)
        assert res.n_items == 14
        assert res.statistic == pytest.approx(qwkit.kendall_w(x[1:]).statistic)
        assert res.to_dict()["df"] == 13 and "Kendall's W" in res.summary()

    def test_bad_input(self):
        with pytest.raises(ValueError, match="at least three items"):
            qwkit.kendall_w([[1, 2], [2, 1]])
        with pytest.raises(ValueError, match="no ranking"):
            qwkit.kendall_w(np.ones((4, 3)))
        with pytest.raises(TypeError, match="`correct_ties` must be True or False"):
            qwkit.kendall_w(_panel(1), correct_ties="yes")
        with pytest.raises(TypeError, match="`ratings` must hold numbers"):
            qwkit.kendall_w([["a", "b"], ["b", "a"], ["a", "a"]])


# ============================================================================ benchmarks


class TestBenchmark:
    def _result(self, statistic, se):
        res = qwkit.agreement_test(_panel(9), coefficient="fleiss")
        return res.__class__(
            **{
                **{f: getattr(res, f) for f in res.__dataclass_fields__},
                "statistic": statistic,
                "standard_error": se,
            }
        )

    @pytest.mark.parametrize(
        ("value", "scale", "label"),
        [
            (-0.1, "landis-koch", "Poor"),
            (0.0, "landis-koch", "Slight"),
            (0.2, "landis-koch", "Fair"),
            (0.81, "landis-koch", "Almost Perfect"),
            (0.39, "fleiss", "Poor"),
            (0.75, "fleiss", "Excellent"),
            (0.65, "altman", "Good"),
            (1.0, "altman", "Very Good"),
        ],
    )
    def test_interval(self, value, scale, label):
        got = self._result(value, 0.05).benchmark(scale, method="interval")
        assert got.label == label and str(got) == label
        assert got.low <= value <= got.high

    def test_probabilistic_by_hand(self):
        # Gwet (2014): membership of a normal truncated to [−1, 1], cumulated from the top
        res = self._result(0.62, 0.08).benchmark("landis-koch")
        z = lambda x: stats.norm.cdf((0.62 - x) / 0.08)  # noqa: E731
        prob_top = (z(0.8) - z(1.0)) / (z(-1.0) - z(1.0))
        prob_next = (z(0.6) - z(0.8)) / (z(-1.0) - z(1.0))
        assert res.probability[:2] == pytest.approx([prob_top, prob_next], rel=1e-12)
        assert res.cumulative[-1] == pytest.approx(1.0)
        assert res.label == "Moderate"  # 0.8 ≥ 0.95 is first reached at [0.4, 0.6)
        assert res.cumulative[1] < 0.95 <= res.cumulative[2]
        assert "Moderate" in res.summary() and res.to_dict()["label"] == "Moderate"

    def test_certainty_narrows_to_the_interval(self):
        res = self._result(0.62, 1e-9).benchmark("landis-koch")
        assert res.label == "Substantial"

    def test_bad_input(self):
        with pytest.raises(ValueError, match="`scale` must be"):
            self._result(0.5, 0.1).benchmark("cicchetti")
        with pytest.raises(ValueError, match="undefined"):
            self._result(NAN, NAN).benchmark()


# ============================================================================ weights


class TestGwetWeights:
    @pytest.mark.parametrize("name", ["radical", "circular", "bipolar"])
    def test_matrix(self, name):
        for k in (2, 3, 6):
            w = qwkit.weight_matrix(k, name)
            assert np.allclose(w, w.T) and np.all(np.diag(w) == 0) and w.max() == 1.0
        i, j = np.meshgrid(np.arange(5.0), np.arange(5.0), indexing="ij")
        raw = {  # Gwet (2014), ch. 3, on the positions 0..K − 1 (K = 5)
            "radical": np.sqrt(np.abs(i - j)),
            "circular": np.sin(np.pi * (i - j) / 5) ** 2,
            "bipolar": np.divide(
                (i - j) ** 2, (i + j) * (8 - i - j), out=np.zeros((5, 5)), where=i != j
            ),
        }[name]
        assert qwkit.weight_matrix(5, name) == pytest.approx(raw / raw.max(), rel=1e-14)

    @pytest.mark.parametrize("name", ["radical", "circular", "bipolar"])
    def test_everywhere_weights_are_accepted(self, name):
        rng = np.random.default_rng(SEED)
        a = rng.integers(0, 5, 80)
        b = np.clip(a + rng.integers(-1, 2, 80), 0, 4)
        w = qwkit.weight_matrix(5, name)
        table = qwkit.confusion_matrix(a, b, labels=range(5))
        want = qwkit.kappa_from_confusion(table, weights=w)
        assert qwkit.kappa_score(a, b, weights=name, labels=range(5)) == pytest.approx(want)
        assert qwkit.kappa_test(a, b, weights=name, labels=range(5)).statistic == pytest.approx(
            want
        )
        assert qwkit.kappa_from_confusion(table, weights=name) == pytest.approx(want)
        acc = qwkit.KappaAccumulator(range(5), weights=name)
        acc.update(a, b)
        assert acc.score() == pytest.approx(want)
        # Cohen's kappa is Conger's with two raters, whatever the weights
        pair = np.column_stack([a, b])
        conger = qwkit.agreement_score(pair, coefficient="conger", weights=name, labels=range(5))
        assert conger == pytest.approx(want, rel=1e-12)
        # survey weights take the table path, never an integer-weights shortcut
        sw = rng.random(80) + 0.5
        got = qwkit.kappa_score(a, b, weights=name, labels=range(5), sample_weight=sw)
        table_w = qwkit.confusion_matrix(a, b, labels=range(5), sample_weight=sw)
        assert got == pytest.approx(qwkit.kappa_from_confusion(table_w, weights=w), rel=1e-12)

    def test_too_wide_a_scale(self):
        with pytest.raises(ValueError, match="`weights`='radical'"):
            _quiet(
                qwkit.agreement_score,
                np.array([[0, 5000], [3, 4000], [10, 9]]),
                coefficient="gwet",
                weights="radical",
            )


class TestIndependentTrial:
    """Findings of an independent trial of issue 22, each a regression test."""

    def test_benchmark_on_a_bound_within_rounding(self):
        # Scott's π of 1/2 vs 3/8 is 0.2, computed as 0.19999999999999996: it was "Slight"
        from qwkit._agreement._benchmark import benchmark

        for value, want in ((0.19999999999999996, "Fair"), (0.3999999999999999, "Moderate")):
            got = benchmark(
                value, 0.0, scale="landis-koch", method="interval", confidence_level=0.95
            )
            assert got.label == want
        assert benchmark(0.1999, 0.0, scale="landis-koch", method="interval",
                         confidence_level=0.95).label == "Slight"  # fmt: skip

    def test_bhapkar_when_every_pair_disagrees_one_way(self):
        res = qwkit.marginal_homogeneity_test([1, 1, 1], [2, 2, 2], method="bhapkar")
        assert res.statistic == np.inf and res.pvalue == 0.0

    def test_marginal_errors_name_a_or_b(self):
        with pytest.raises(ValueError) as info:
            qwkit.marginal_homogeneity_test([1, 2, 3, 4], [1, 2, 3, 3], labels=[1, 2, 3])
        assert info.value.parameter == "a" and "`(a, b)`" in str(info.value)
        with pytest.raises(ValueError) as info:
            qwkit.marginal_homogeneity_test([1, 2, 3], ["x", 2, 3])
        assert info.value.parameter == "b"

    def test_masked_arrays_are_read_with_their_masks(self):
        # numpy drops a mask silently: the ICC of the masked data was that of the data
        y = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 1.0], [4.0, 4.0], [2.0, 3.0], [3.0, 3.0]])
        mask = np.zeros(y.shape, dtype=bool)
        mask[2, 0] = True
        masked, nan = np.ma.masked_array(y, mask), np.where(mask, np.nan, y)
        for coefficient in ("fleiss", "krippendorff"):
            assert qwkit.agreement_score(masked, coefficient=coefficient) == (
                qwkit.agreement_score(nan, coefficient=coefficient)
            )
        assert qwkit.icc(masked, form="C,1").statistic == qwkit.icc(nan, form="C,1").statistic
        text = np.ma.masked_array(
            np.array([["a", "b"], ["b", "b"], ["a", "a"]]), [[0, 1], [0, 0], [0, 0]]
        )
        assert qwkit.agreement_score(text, coefficient="fleiss", weights="identity") == (
            qwkit.agreement_score([["a", None], ["b", "b"], ["a", "a"]], coefficient="fleiss",
                                  weights="identity")
        )  # fmt: skip
        with pytest.raises(ValueError, match="masked array with 1 masked entries") as info:
            qwkit.kappa_score(masked[:, 0], y[:, 1])
        assert info.value.parameter == "y1"
        assert qwkit.kappa_score(np.ma.masked_array(y[:, 0]), y[:, 1]) == qwkit.kappa_score(
            y[:, 0], y[:, 1]
        )
