"""Tests of optimize_thresholds and apply_thresholds (oracles:
tests/oracles/naive_thresholds.py)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import minimize

import qwkit
from oracles.naive_thresholds import brute_force_thresholds, weight_matrix_of

K_MAX = 4


def _random_case(rng, weighted):
    """n ≤ 8 items, K ≤ 4 classes, scores with ties, ≥ 2 true labels of positive weight."""
    while True:
        k = int(rng.integers(2, K_MAX + 1))
        n = int(rng.integers(2, 9))
        codes = rng.integers(0, k, size=n)
        scores = rng.integers(0, int(rng.integers(1, 7)), size=n) * 0.5 + rng.choice(
            [0.0, 0.25], size=n
        )
        sw = rng.choice([0.0, 0.5, 1.0, 2.0, 3.25], size=n) if weighted else None
        present = codes if sw is None else codes[sw > 0]
        if np.unique(present).size >= 2:
            return k, codes, scores, sw


class TestOptimizeThresholds:
    def test_zero_weight_rows_are_dropped_rows(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 4, 200)
        s = y + rng.normal(0, 0.8, 200)
        w = rng.integers(0, 3, 200).astype(float)
        weighted = qwkit.optimize_thresholds(y, s, sample_weight=w, labels=[0, 1, 2, 3])
        kept = w > 0
        dropped = qwkit.optimize_thresholds(
            y[kept], s[kept], sample_weight=w[kept], labels=[0, 1, 2, 3]
        )
        np.testing.assert_array_equal(weighted.thresholds, dropped.thresholds)
        assert weighted.statistic == dropped.statistic

    @pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "sample_weight"])
    @pytest.mark.parametrize(
        "kind", ["quadratic", "linear", "identity", "asymmetric", "under_only"]
    )
    def test_equals_brute_force_over_all_monotone_assignments(self, kind, weighted):
        rng = np.random.default_rng(20261121)
        for _ in range(220):  # 5 matrices × 2 × 220 = 2200 random cases
            k, codes, scores, sw = _random_case(rng, weighted)
            wmat = weight_matrix_of(k, kind)
            best, _ = brute_force_thresholds(codes, scores, k, wmat.tolist(), sw)
            weights = kind if kind in ("quadratic", "linear", "identity") else wmat
            res = qwkit.optimize_thresholds(
                codes, scores, labels=np.arange(k), weights=weights, sample_weight=sw
            )
            assert res.statistic == pytest.approx(best, abs=1e-12)
            # the cut points reproduce the optimum: kappa of predict == statistic
            pred = res.predict(scores)
            again = qwkit.kappa_score(
                codes, pred, labels=np.arange(k), weights=weights, sample_weight=sw
            )
            assert again == pytest.approx(res.statistic, abs=1e-12)
            assert np.all(res.thresholds[1:] >= res.thresholds[:-1])
            assert res.certificate.gap <= 1e-12
            assert res.certificate.ratio == pytest.approx(1 - res.statistic, abs=1e-12)

    def test_result_types(self):
        res = qwkit.optimize_thresholds([1, 2, 3, 3], [0.1, 0.2, 0.3, 0.5])
        assert type(res.statistic) is float
        assert type(res.certificate.ratio) is float
        assert type(res.certificate.gap) is float
        assert type(res.certificate.n_iterations) is int
        assert res.certificate.n_iterations >= 1
        assert res.thresholds.shape == (2,)
        np.testing.assert_array_equal(res.labels, [1, 2, 3])
        with pytest.raises(AttributeError):
            res.statistic = 0.0

    def test_mid_size_heavy_ties_equal_brute_force(self):
        # 3000 items on 6 distinct scores: the aggregation into pairs is exercised.
        rng = np.random.default_rng(20261121)
        latent = rng.integers(0, 6, size=3000)
        codes = np.clip(latent // 2 + rng.integers(-1, 2, size=3000), 0, 3)
        scores = latent * 1.5 - 2.0
        sw = rng.uniform(0.0, 2.0, size=3000)
        for kind in ("quadratic", "asymmetric"):
            wmat = weight_matrix_of(4, kind)
            best, _ = brute_force_thresholds(codes, scores, 4, wmat.tolist(), sw)
            res = qwkit.optimize_thresholds(codes, scores, weights=wmat, sample_weight=sw)
            assert res.statistic == pytest.approx(best, abs=1e-12)

    def test_beats_nelder_mead_and_rounding(self):
        # The global optimum is never below a local search from the Kaggle start.
        rng = np.random.default_rng(20261121)
        latent = rng.normal(size=600)
        y = np.digitize(latent, [-1.0, -0.2, 0.5, 1.3])
        score = 2 + 0.8 * latent + rng.normal(scale=0.6, size=600)
        res = qwkit.optimize_thresholds(y, score)

        def loss(c):
            return -qwkit.kappa_score(y, qwkit.apply_thresholds(score, np.sort(c)), labels=range(5))

        nm = minimize(loss, [0.5, 1.5, 2.5, 3.5], method="nelder-mead")
        assert res.statistic >= -nm.fun - 1e-12
        rounded = np.clip(np.rint(score), 0, 4).astype(int)
        assert res.statistic >= qwkit.kappa_score(y, rounded, labels=range(5))

    @given(
        st.lists(st.integers(0, 4), min_size=5, max_size=40),
        st.lists(st.floats(-5, 5), min_size=4, max_size=4),
        st.integers(0, 2**31),
    )
    def test_no_cut_points_do_better(self, y, cuts, seed):
        y = np.array(y)
        if np.unique(y).size < 2:
            y[0] = (y[0] + 1) % 5
        rng = np.random.default_rng(seed)
        score = np.round(y + rng.normal(size=y.size), 1)
        res = qwkit.optimize_thresholds(y, score, labels=range(5))
        other = qwkit.apply_thresholds(score, np.sort(cuts))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.UndefinedKappaWarning)  # constant rounding
            value = qwkit.kappa_score(y, other, labels=range(5), replace_undefined_by=-1.0)
        assert value <= res.statistic + 1e-12

    def test_invariances(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 5, size=300)
        score = np.round(y + rng.normal(size=300), 1)
        base = qwkit.optimize_thresholds(y, score)
        # a strictly increasing transform of the scores changes nothing but the cuts
        moved = qwkit.optimize_thresholds(y, np.exp(score))
        assert moved.statistic == pytest.approx(base.statistic, abs=1e-12)
        np.testing.assert_array_equal(moved.predict(np.exp(score)), base.predict(score))
        # order of the items
        perm = rng.permutation(300)
        assert qwkit.optimize_thresholds(y[perm], score[perm]).statistic == pytest.approx(
            base.statistic, abs=1e-12
        )
        # integer sample weights = repeated rows
        reps = rng.integers(0, 4, size=300)
        weighted = qwkit.optimize_thresholds(y, score, sample_weight=reps)
        repeated = qwkit.optimize_thresholds(np.repeat(y, reps), np.repeat(score, reps))
        assert weighted.statistic == pytest.approx(repeated.statistic, abs=1e-12)
        # unit weights = none
        unit = qwkit.optimize_thresholds(y, score, sample_weight=np.ones(300))
        assert unit.statistic == pytest.approx(base.statistic, abs=1e-12)

    def test_ties_share_a_class(self):
        y = [0, 1, 0, 1, 2, 2, 1, 0]
        score = [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
        res = qwkit.optimize_thresholds(y, score)
        pred = res.predict(score)
        for s in np.unique(score):
            assert np.unique(pred[np.asarray(score) == s]).size == 1

    def test_empty_classes_at_the_ends_get_infinite_cuts(self):
        res = qwkit.optimize_thresholds([1, 1, 2, 2], [0.0, 1.0, 2.0, 3.0], labels=[0, 1, 2, 3])
        assert res.statistic == 1.0
        np.testing.assert_array_equal(res.thresholds, [-np.inf, 1.5, np.inf])
        np.testing.assert_array_equal(res.predict([-1e300, 1.5, 1e300]), [1, 1, 2])

    def test_empty_middle_class_gets_equal_cuts(self):
        res = qwkit.optimize_thresholds([0, 0, 2, 2], [0.0, 1.0, 2.0, 3.0])
        assert res.statistic == 1.0
        np.testing.assert_array_equal(res.thresholds, [1.5, 1.5])
        np.testing.assert_array_equal(res.predict([1.5, 1.6]), [0, 2])

    def test_cut_between_adjacent_floats_and_huge_scores(self):
        a = 1.0
        b = np.nextafter(1.0, 2.0)
        res = qwkit.optimize_thresholds([0, 1], [a, b])
        np.testing.assert_array_equal(res.predict([a, b]), [0, 1])
        res = qwkit.optimize_thresholds([0, 1], [-1e308, 1e308])
        assert np.isfinite(res.thresholds).all()
        np.testing.assert_array_equal(res.predict([-1e308, 1e308]), [0, 1])

    def test_text_and_explicit_labels(self):
        scale = ["low", "mid", "high"]
        y = ["low", "mid", "high", "mid", "low", "high"]
        score = [0.1, 0.5, 0.9, 0.4, 0.3, 0.8]
        res = qwkit.optimize_thresholds(y, score, labels=scale)
        assert res.statistic == 1.0
        np.testing.assert_array_equal(res.predict(score), y)
        # non-consecutive numeric labels: predictions are label values
        res = qwkit.optimize_thresholds([1, 2, 5, 5], [0.0, 1.0, 2.0, 3.0], labels=[1, 2, 5])
        np.testing.assert_array_equal(res.predict([0.0, 1.0, 2.0]), [1, 2, 5])

    def test_default_scale_is_the_integer_range_of_y_true(self):
        y = [3, 5, 5, 8]
        res = qwkit.optimize_thresholds(y, [1.0, 2.0, 3.0, 4.0])
        np.testing.assert_array_equal(res.labels, np.arange(3, 9))
        assert res.thresholds.shape == (5,)
        assert qwkit.kappa_score(y, res.predict([1.0, 2.0, 3.0, 4.0])) == pytest.approx(
            res.statistic, abs=1e-12
        )

    def test_pandas_input(self):
        y = pd.Series([0, 1, 1, 2])
        score = pd.Series([0.1, 0.4, 0.6, 0.9])
        assert qwkit.optimize_thresholds(y, score).statistic == 1.0

    @pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
    def test_non_finite_scores(self, bad):
        with pytest.raises(ValueError, match="`y_score`"):
            qwkit.optimize_thresholds([0, 1, 2], [0.1, bad, 0.3])

    def test_fewer_than_two_true_labels(self):
        with pytest.raises(ValueError, match="`y_true` must contain at least two"):
            qwkit.optimize_thresholds([2, 2, 2], [0.1, 0.2, 0.3])
        with pytest.raises(ValueError, match="at least two"):
            qwkit.optimize_thresholds([1, 2, 2], [0.1, 0.2, 0.3], sample_weight=[0, 1, 1])

    def test_mismatched_shapes(self):
        with pytest.raises(ValueError, match="same length; got 3 and 2"):
            qwkit.optimize_thresholds([0, 1, 2], [0.1, 0.2])
        with pytest.raises(ValueError, match="`sample_weight`"):
            qwkit.optimize_thresholds([0, 1, 2], [0.1, 0.2, 0.3], sample_weight=[1, 1])
        with pytest.raises(ValueError, match="`y_score` must be 1-D"):
            qwkit.optimize_thresholds([0, 1], [[0.1, 0.2]])

    def test_bad_weights(self):
        with pytest.raises(ValueError, match=r"`weights` has shape \(2, 2\)"):
            qwkit.optimize_thresholds([0, 1, 2], [0.1, 0.2, 0.3], weights=np.ones((2, 2)))
        with pytest.raises(ValueError, match="`weights` give zero"):
            qwkit.optimize_thresholds([0, 1, 2], [0.1, 0.2, 0.3], weights=np.zeros((3, 3)))
        with pytest.raises(ValueError, match="`weights` must be"):
            qwkit.optimize_thresholds([0, 1, 2], [0.1, 0.2, 0.3], weights="cubic")

    def test_bad_ratings(self):
        with pytest.raises(ValueError, match="`y_true` contains 7"):
            qwkit.optimize_thresholds([0, 1, 7], [0.1, 0.2, 0.3], labels=[0, 1, 2])
        with pytest.raises(ValueError, match="`y_true` must hold integer ratings"):
            qwkit.optimize_thresholds([0.5, 1, 2], [0.1, 0.2, 0.3])
        with pytest.raises(TypeError, match="`y_score`"):
            qwkit.optimize_thresholds([0, 1, 2], ["a", "b", "c"])

    @pytest.mark.parametrize("exponent", [-1072, -1030, 1000, 1022])
    def test_extreme_sample_weights_are_a_common_factor(self, exponent):
        # Kappa is a ratio: weights times a power of two (exact, down to subnormal and up
        # to the float64 maximum) give exactly the same thresholds and kappa.
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 4, 60)
        s = y + rng.normal(0, 0.8, 60)
        w = rng.integers(1, 4, 60).astype(float)
        ref = qwkit.optimize_thresholds(y, s, sample_weight=w)
        got = qwkit.optimize_thresholds(y, s, sample_weight=np.ldexp(w, exponent))
        np.testing.assert_array_equal(got.thresholds, ref.thresholds)
        assert got.statistic == ref.statistic
        assert got.certificate.ratio == ref.certificate.ratio

    def test_subnormal_and_huge_weights(self):
        # [1e-310] * 4 gave nan; [1e308] * 5 a wrong "zero chance-expected disagreement".
        y, s = [0, 1, 2, 3, 1], [0.1, 0.5, 0.4, 0.9, 0.3]
        ref = qwkit.optimize_thresholds(y, s)
        for w in ([1e-310] * 5, [1e308] * 5):
            got = qwkit.optimize_thresholds(y, s, sample_weight=w)
            assert got.statistic == ref.statistic
            np.testing.assert_array_equal(got.thresholds, ref.thresholds)

    @pytest.mark.parametrize(
        "labels",
        [
            np.arange(12_000),  # said "Pass `labels`" although labels were passed
            np.arange(12_000) + 0.5,
            np.array([f"c{i:05d}" for i in range(12_000)]),
        ],
        ids=["int", "float", "str"],
    )
    def test_at_most_10000_classes(self, labels):
        # The dynamic program stores int16 class pointers (K ≤ 10,000 assumed).
        with pytest.raises(ValueError, match=r"`labels` has 12000 categories; at most 10000"):
            qwkit.optimize_thresholds(labels[:3], [0.1, 0.2, 0.3], labels=labels)
        if labels.dtype.kind == "U":  # text has no order of its own: cut points need one
            with pytest.raises(ValueError, match="no declared order"):
                qwkit.optimize_thresholds(labels, np.arange(12_000.0))

    def test_result_does_not_share_memory(self):
        import copy
        import pickle

        y = [0, 1, 2, 3, 1, 2]
        s = [0.1, 0.5, 0.4, 0.9, 0.3, 0.6]
        labels = np.array([0, 1, 2, 3])
        res = qwkit.optimize_thresholds(y, s, labels=labels)
        before = res.predict(s)
        labels[:] = [9, 9, 9, 9]  # the caller's array changes afterwards
        np.testing.assert_array_equal(res.labels, [0, 1, 2, 3])
        np.testing.assert_array_equal(res.predict(s), before)
        for other in (res, pickle.loads(pickle.dumps(res)), copy.deepcopy(res)):
            assert not other.thresholds.flags.writeable
            assert not other.labels.flags.writeable
            np.testing.assert_array_equal(other.thresholds, res.thresholds)
            with pytest.raises(ValueError, match="read-only"):
                other.thresholds[0] = 0.0


class TestEmptyClasses:
    """Issue 18: optimal cut points may assign no score to a class that the truth uses
    (all four HANNA criteria, human mean vs ChatGPT, leave class 1 empty); the result
    says which (``empty_classes``, in ``to_dict()`` and ``summary()``)."""

    def test_a_used_class_left_empty(self):
        # the two items rated 2 score among the 1s and the 3s: kappa is highest without 2
        y = [1, 1, 1, 2, 2, 3, 3, 3]
        score = [0.0, 0.2, 0.3, 0.1, 0.6, 0.4, 0.5, 1.0]
        res = qwkit.optimize_thresholds(y, score)
        np.testing.assert_array_equal(res.thresholds, [0.35, 0.35])
        np.testing.assert_array_equal(res.empty_classes, [2])
        assert 2 not in res.predict(np.linspace(-10, 10, 2001))
        assert res.to_dict()["empty_classes"] == [2]
        assert "2           none (empty)" in res.summary()
        assert "Empty classes         2 (no score is rounded to it)" in res.summary()

    def test_end_classes_and_text_labels(self):
        res = qwkit.optimize_thresholds(
            ["b", "b", "c", "c"], [0.0, 1.0, 2.0, 3.0], labels=["a", "b", "c", "d"]
        )
        np.testing.assert_array_equal(res.thresholds, [-np.inf, 1.5, np.inf])
        assert res.empty_classes.tolist() == ["a", "d"]
        assert res.to_dict()["empty_classes"] == ["a", "d"]
        assert "Empty classes         a, d (no score is rounded to them)" in res.summary()

    def test_none_empty(self):
        res = qwkit.optimize_thresholds([0, 0, 1, 1, 2, 2], [0.1, 0.2, 1.1, 1.2, 2.1, 2.2])
        assert res.empty_classes.size == 0 and res.to_dict()["empty_classes"] == []
        assert "Empty classes" not in res.summary()

    @pytest.mark.parametrize("seed", range(3))
    def test_empty_is_what_no_fitted_score_gets(self, seed):
        # many small noisy cases, in many of which the optimum drops a class
        rng = np.random.default_rng(20261121 + seed)
        dropped = 0
        for _ in range(200):
            k = int(rng.integers(3, 6))
            y = rng.integers(0, k, 30)
            score = y + rng.normal(0, 1.5, 30)
            res = qwkit.optimize_thresholds(y, score, labels=range(k))
            assigned = set(res.predict(score).tolist())
            assert res.empty_classes.tolist() == [c for c in range(k) if c not in assigned]
            dropped += res.empty_classes.size > 0
        assert dropped > 10

    def test_summary_example(self):
        import doctest

        # methods of public classes are not collected by --doctest-modules: run it here
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in finder.find(qwkit.ThresholdResult.summary, "summary", globs={}):
            runner.run(test)
        assert runner.tries > 0 and runner.failures == 0


class TestApplyThresholds:
    def test_right_closed_convention(self):
        cuts = [0.5, 1.5]
        np.testing.assert_array_equal(
            qwkit.apply_thresholds([0.5, 0.50001, 1.5, 1.6, -3.0], cuts), [0, 1, 1, 2, 0]
        )

    @given(
        st.lists(st.floats(-10, 10), min_size=1, max_size=50),
        st.lists(st.floats(-10, 10), min_size=1, max_size=6),
    )
    def test_same_as_pandas_cut_and_digitize(self, scores, cuts):
        cuts = np.sort(cuts)
        ours = qwkit.apply_thresholds(scores, cuts)
        np.testing.assert_array_equal(ours, np.digitize(scores, cuts, right=True))
        if np.all(np.diff(cuts) > 0):  # pandas.cut needs strictly increasing bins
            bins = [-np.inf, *cuts, np.inf]
            cut = pd.cut(scores, bins, labels=range(len(cuts) + 1))
            np.testing.assert_array_equal(ours, np.asarray(cut, dtype=int))

    def test_labels_and_infinite_cuts(self):
        out = qwkit.apply_thresholds([0.0, 1.0], [-np.inf, 0.5, np.inf], labels=[1, 2, 3, 4])
        np.testing.assert_array_equal(out, [2, 3])

    def test_equal_scores_equal_classes(self):
        out = qwkit.apply_thresholds([0.3, 0.3, 0.3], [0.3, 0.3])
        np.testing.assert_array_equal(out, [0, 0, 0])

    def test_decreasing_thresholds(self):
        with pytest.raises(ValueError, match=r"`thresholds` must be non-decreasing; got 2\.0 then"):
            qwkit.apply_thresholds([0.1], [0.5, 2.0, 1.0])

    def test_nan_thresholds(self):
        with pytest.raises(ValueError, match="`thresholds` contains nan"):
            qwkit.apply_thresholds([0.1], [0.5, np.nan])

    def test_bad_scores_and_labels(self):
        with pytest.raises(ValueError, match="`y_score`"):
            qwkit.apply_thresholds([np.nan], [0.5])
        with pytest.raises(ValueError, match="`labels` must have one more entry"):
            qwkit.apply_thresholds([0.1], [0.5], labels=[0, 1, 2])
        with pytest.raises(TypeError, match="`thresholds` must be numeric"):
            qwkit.apply_thresholds([0.1], ["a"])


class TestThresholdAccumulatorMerge:
    """Merging asks whether the weights give the same kappa for every table: the one
    answer of the kappa accumulator (a name and its matrix on a known scale agree)."""

    Y, S = [0, 1, 2, 2, 1, 0], [0.1, 0.9, 2.2, 1.7, 1.1, 0.3]

    def test_equivalent_weights_merge(self):
        a = qwkit.ThresholdAccumulator([0, 1, 2])
        a.update(self.Y[:3], self.S[:3])
        b = qwkit.ThresholdAccumulator([0, 1, 2], weights=4 * qwkit.weight_matrix(3))
        b.update(self.Y[3:], self.S[3:])
        whole = qwkit.optimize_thresholds(self.Y, self.S, labels=[0, 1, 2])
        merged = a.merge(b).optimize()
        assert merged.statistic == whole.statistic
        np.testing.assert_array_equal(merged.thresholds, whole.thresholds)

    def test_different_weights_refused(self):
        with pytest.raises(ValueError, match="different `weights`"):
            qwkit.ThresholdAccumulator([0, 1, 2]).merge(
                qwkit.ThresholdAccumulator([0, 1, 2], weights="linear")
            )
        with pytest.raises(ValueError, match="different `weights`"):  # no scale to compare on
            qwkit.ThresholdAccumulator().merge(
                qwkit.ThresholdAccumulator(weights=qwkit.weight_matrix(3))
            )


class TestScoreGrouping:
    """Items are grouped by distinct score by hashing (few distinct scores) or by sorting;
    both must give the same pairs, bit for bit, and so the same cut points."""

    @staticmethod
    def _groups(y, s, monkeypatch, *, hashing: bool, **weights):
        from qwkit._thresholds import _groups as pair_groups

        monkeypatch.setattr(pair_groups, "HASH_MIN_ITEMS", 0 if hashing else 1 << 62)
        acc = qwkit.ThresholdAccumulator()
        acc.update(y, s, **weights)
        g = acc._groups
        monkeypatch.undo()
        return g, acc.optimize()

    @staticmethod
    def _weights(g):
        """The exact weight of every pair (survey weights: rows times 2**exponent)."""
        w = g.pair_weight
        if not g.survey:
            return w.tolist()
        return [Fraction(w.row_integer(i)) * Fraction(2) ** w.exponent for i in range(w.n_rows)]

    @pytest.mark.parametrize("distinct", [3, 40, 1400, 5000])  # table, table, sort by id, sort
    @pytest.mark.parametrize("weighting", ["none", "counts", "survey"])
    def test_hashing_and_sorting_agree(self, monkeypatch, distinct, weighting):
        rng = np.random.default_rng(20261121)
        n = 6000
        y = rng.integers(0, 5, n)
        s = rng.integers(-distinct // 2, distinct - distinct // 2, n) / 7.0
        s[rng.random(n) < 0.05] = -0.0  # −0.0 and 0.0 are one score
        s[rng.random(n) < 0.05] = 0.0
        weights = {
            "none": {},
            "counts": {"counts": rng.integers(0, 4, n)},
            "survey": {"sample_weight": rng.uniform(0.0, 2.0, n)},
        }[weighting]
        a, ra = self._groups(y, s, monkeypatch, hashing=True, **weights)
        b, rb = self._groups(y, s, monkeypatch, hashing=False, **weights)
        assert a.pair_score.tolist() == b.pair_score.tolist()
        zeros = a.pair_score[a.pair_score == 0]
        assert zeros.size and not np.signbit(zeros).any()  # one zero, +0.0
        assert a.pair_code.tolist() == b.pair_code.tolist()
        assert self._weights(a) == self._weights(b)
        assert ra.statistic == rb.statistic
        assert ra.thresholds.tolist() == rb.thresholds.tolist()

    def test_many_distinct_scores_fall_back_to_sorting(self, monkeypatch):
        # more distinct scores than n / HASH_RATIO: the hash pass gives up part-way
        rng = np.random.default_rng(20261121)
        y, s = rng.integers(0, 4, 5000), rng.normal(size=5000)
        a, ra = self._groups(y, s, monkeypatch, hashing=True)
        b, rb = self._groups(y, s, monkeypatch, hashing=False)
        assert a.pair_score.tolist() == b.pair_score.tolist() == np.sort(s).tolist()
        assert ra.statistic == rb.statistic

    def test_kernels_against_a_dictionary(self):
        from qwkit import _kernels

        rng = np.random.default_rng(20261121)
        x = rng.integers(0, 1500, 6000) / 3.0
        bits = x.view(np.uint64)
        ids, distinct, ok = _kernels.distinct_ids(bits, 2000)  # the table grows to 4096 slots
        assert ok
        first_seen = list(dict.fromkeys(x.tolist()))
        assert distinct.view(np.float64).tolist() == first_seen
        assert [first_seen[i] for i in ids] == x.tolist()
        _, _, ok = _kernels.distinct_ids(bits, 10)  # more than 10 distinct
        assert not ok
        rank_of_id = np.argsort(np.argsort(distinct.view(np.float64)))
        order, group_first = _kernels.counting_order(ids, rank_of_id)
        assert order.tolist() == np.argsort(x, kind="stable").tolist()
        assert np.diff(group_first).tolist() == np.unique(x, return_counts=True)[1].tolist()
