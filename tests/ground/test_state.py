"""Mergeable states and exact sums: any chunking, any merge order, the same bits.

The oracle for sums of doubles is ``fractions.Fraction`` (exact rational arithmetic)
and ``math.fsum`` (correctly rounded); for kappa, the in-memory functions on all the
data at once.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qwkit
from qwkit._base._dyadic import exact_cell_sums

SEED = 20261121

finite_weights = st.floats(min_value=0.0, max_value=1e300, allow_nan=False, allow_infinity=False)
weight_lists = st.lists(
    st.one_of(finite_weights, st.sampled_from([0.0, 5e-324, 2.2250738585072014e-308, 1.0])),
    min_size=1,
    max_size=40,
)


def _exact_sums(index, w, n_bins, squares=False):
    return exact_cell_sums(
        np.asarray(index), np.asarray(w, dtype=np.float64), n_bins, squares=squares
    )


class TestExactSums:
    @settings(max_examples=200, deadline=None)
    @given(w=weight_lists, data=st.data())
    def test_correctly_rounded_sums_and_squares(self, w, data):
        index = data.draw(st.lists(st.integers(0, 2), min_size=len(w), max_size=len(w)))
        sums, squares, positive = _exact_sums(index, w, 3, squares=True)
        got, got_sq = sums.to_float(), squares.to_float()
        for c in range(3):
            mine = [x for x, i in zip(w, index, strict=True) if i == c]
            exact = sum((Fraction(x) for x in mine), Fraction(0))
            assert got[c] == _rounded(exact)
            assert got[c] == math.fsum(mine) or math.isinf(math.fsum(mine))
            assert got_sq[c] == _rounded(sum((Fraction(x) ** 2 for x in mine), Fraction(0)))
            assert positive[c] == sum(1 for x in mine if x > 0)

    @settings(max_examples=100, deadline=None)
    @given(w=weight_lists, cuts=st.lists(st.integers(0, 40), max_size=5), seed=st.integers(0, 9))
    def test_merge_in_any_order(self, w, cuts, seed):
        w = np.asarray(w)
        index = np.arange(w.shape[0]) % 2
        whole = _exact_sums(index, w, 2)[0].to_float()
        bounds = sorted({0, w.shape[0], *(c % (w.shape[0] + 1) for c in cuts)})
        parts = [_exact_sums(index[lo:hi], w[lo:hi], 2)[0] for lo, hi in pairwise(bounds)]
        np.random.default_rng(seed).shuffle(parts)
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        np.testing.assert_array_equal(total.to_float(), whole)

    @pytest.mark.parametrize("spread", [0.5, 8.0, 40.0], ids=["narrow", "medium", "wide"])
    def test_table_kernels_agree_with_fsum(self, spread):
        rng = np.random.default_rng(SEED)
        n = 5_000
        a, b = rng.integers(0, 4, n), rng.integers(0, 4, n)
        w = np.exp(rng.normal(0, spread, n))
        w[::13] = 0.0
        table = qwkit.confusion_matrix(a, b, sample_weight=w)
        for i in range(4):
            for j in range(4):
                assert table[i, j] == math.fsum(w[(a == i) & (b == j)])


def _rounded(x: Fraction) -> float:
    """Correctly rounded conversion (Python's int / int rounds correctly)."""
    try:
        return x.numerator / x.denominator
    except OverflowError:
        return math.inf


class TestOrderIndependence:
    def test_weighted_results_do_not_depend_on_row_order(self):
        rng = np.random.default_rng(SEED)
        n = 4_000
        a = rng.integers(0, 6, n)
        b = np.clip(a + rng.integers(-2, 3, n), 0, 5)
        s = a + rng.normal(0, 1, n)
        w = rng.random(n) * 10.0 ** rng.integers(-3, 4, n)
        perm = rng.permutation(n)
        for f, args in (
            (qwkit.kappa_score, (a, b)),
            (qwkit.soft_kappa_score, (a, s)),
            (lambda *x, **k: qwkit.kappa_test(*x, **k).standard_error, (a, b)),
            (lambda *x, **k: qwkit.optimize_thresholds(*x, **k).statistic, (a, s)),
        ):
            ref = f(*args, sample_weight=w)
            assert f(*(x[perm] for x in args), sample_weight=w[perm]) == ref


class TestAccumulators:
    # random ratings in −2..3 (a lone −2 beside 0..3, say) may look like missing-value
    # codes; the ScaleWarning has its own tests (test_scale_warning.py)
    @pytest.mark.filterwarnings("ignore::qwkit.ScaleWarning")
    @settings(max_examples=60, deadline=None)
    @given(
        seed=st.integers(0, 2**32 - 1),
        n_pieces=st.integers(1, 6),
        items=st.sampled_from(["unit", "survey", "counts"]),
        weights=st.sampled_from(["quadratic", "linear", "identity"]),
    )
    def test_pieces_equal_the_whole(self, seed, n_pieces, items, weights):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 60))
        a = rng.integers(-2, 4, n)
        b = rng.integers(-2, 4, n)
        s = a + rng.normal(0, 1, n)
        kw = {}
        if items == "survey":
            kw["sample_weight"] = rng.random(n) * 10.0 ** rng.integers(-5, 5, n)
        elif items == "counts":
            kw["counts"] = rng.integers(1, 5, n)
        pieces = np.array_split(rng.permutation(n), n_pieces)
        kappa, soft, thr = (
            qwkit.KappaAccumulator(weights=weights),
            qwkit.SoftKappaAccumulator(),
            qwkit.ThresholdAccumulator(weights=weights),
        )
        for idx in pieces:
            part = {k: v[idx] for k, v in kw.items()}
            for acc, (x, y) in ((kappa, (a, b)), (soft, (a, s)), (thr, (a, s))):
                other = type(acc)() if acc is soft else type(acc)(weights=weights)
                other.update(x[idx], y[idx], **part)
                acc.merge(other)
        with np.errstate(all="ignore"):
            ref = _quiet(qwkit.kappa_score, a, b, weights=weights, **kw)
            assert _same(_quiet(kappa.score), ref)
            assert _same(_quiet(soft.score), _quiet(qwkit.soft_kappa_score, a, s, **kw))
        if len(np.unique(a)) > 1:
            got, want = thr.optimize(), qwkit.optimize_thresholds(a, s, weights=weights, **kw)
            np.testing.assert_array_equal(got.thresholds, want.thresholds)
            assert got.statistic == want.statistic

    def test_soft_kappa_is_the_correctly_rounded_exact_value(self):
        rng = np.random.default_rng(SEED)
        y = rng.integers(0, 5, 200).astype(float) + 1e9  # far from zero: float sums cancel
        f = y + rng.normal(0, 0.5, 200)
        w = rng.random(200)
        fy, ff, fw = ([Fraction(v) for v in x] for x in (y, f, w))
        n = sum(fw)
        sy = sum(a * b for a, b in zip(fw, fy, strict=True))
        sf = sum(a * b for a, b in zip(fw, ff, strict=True))
        syy = sum(a * b * b for a, b in zip(fw, fy, strict=True))
        sff = sum(a * b * b for a, b in zip(fw, ff, strict=True))
        syf = sum(a * b * c for a, b, c in zip(fw, fy, ff, strict=True))
        exact = 2 * (n * syf - sy * sf) / (n * (syy + sff) - 2 * sy * sf)
        assert qwkit.soft_kappa_score(y, f, sample_weight=w) == _rounded(exact)

    def test_ordered_categorical_declares_the_scale(self):
        import pandas as pd

        cat = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
        a = pd.Series(["low", "high", "mid", "mid", "low"], dtype=cat)
        b = pd.Series(["low", "mid", "mid", "high", "mid"], dtype=cat)
        first, second, empty = (qwkit.KappaAccumulator(weights="linear") for _ in range(3))
        first.update(a[:2], b[:2])
        second.update(a[2:], b[2:])
        merged = empty.merge(first.merge(second))
        assert merged.score() == qwkit.kappa_score(a, b, weights="linear")
        np.testing.assert_array_equal(merged.labels, ["low", "mid", "high"])

    def test_declared_orders_merge_into_the_quadratic_sums(self):
        # the five sums of unweighted quadratic kappa take the declared order (issue 18:
        # they merged two different orders into a number)
        import pandas as pd

        from qwkit._table._state import QuadraticSums

        order = ["low", "mid", "high"]
        a = pd.Series(["low", "high", "mid", "mid", "low"], dtype=pd.CategoricalDtype(order, True))
        b = pd.Series(["low", "mid", "mid", "high", "mid"], dtype=a.dtype)
        first, second, empty = (QuadraticSums(None) for _ in range(3))
        first.update(a[:2], b[:2])
        second.update(a[2:], b[2:])
        merged = empty.merge(first.merge(second))
        assert merged.kappa(math.nan) == qwkit.kappa_score(a, b)
        reverse = pd.CategoricalDtype(order[::-1], True)
        other = QuadraticSums(None)
        other.update(a.astype(reverse), b.astype(reverse))
        with pytest.raises(ValueError, match="`other` has a different scale"):
            merged.merge(other)
        with pytest.raises(ValueError, match="but earlier batches declared"):
            merged.update(a.astype(reverse), b.astype(reverse))
        numbers = QuadraticSums(None)
        numbers.update([1, 2], [2, 2])
        with pytest.raises(ValueError, match="but earlier batches were integers"):
            numbers.update(a, b)

    def test_unordered_text_where_the_order_does_not_matter(self):
        # identity weights and the table need no order: the scale is the sorted distinct
        # ratings seen, growing as updates and merges bring new ones
        rng = np.random.default_rng(SEED)
        words = np.array(["ant", "bee", "cat", "dog", "eel"])
        first = np.sort(rng.integers(0, 5, 200))  # pieces in order see different words
        y1, y2 = words[first], words[np.clip(first + rng.integers(-1, 2, 200), 0, 4)]
        w = rng.random(200)
        for kw in ({}, {"sample_weight": w}):
            pieces = []
            for lo, hi in ((0, 40), (40, 41), (41, 120), (120, 200)):
                acc = qwkit.KappaAccumulator(weights="identity")
                acc.update(y1[lo:hi], y2[lo:hi], **{k: v[lo:hi] for k, v in kw.items()})
                pieces.append(acc)
            merged = pieces[3].merge(pieces[0]).merge(pieces[2].merge(pieces[1]))
            assert merged.score() == qwkit.kappa_score(y1, y2, weights="identity", **kw)
            np.testing.assert_array_equal(merged.confusion, qwkit.confusion_matrix(y1, y2, **kw))
            np.testing.assert_array_equal(merged.labels, words)
        acc = qwkit.KappaAccumulator(weights="identity")
        acc.update(y1[:3], y2[:3])
        with pytest.raises(TypeError, match=r"mix batches of numbers and of text.*text first"):
            acc.update([1, 2], [1, 2])
        with pytest.raises(ValueError, match="with no declared order"):
            qwkit.KappaAccumulator(weights="linear").update(y1, y2)

    @pytest.mark.parametrize("name", ["counts", "sample_weight"])
    def test_zero_weights_say_what_the_in_memory_function_says(self, name):
        # not the accumulator's "call `update` first": the rows came, their weights drop them
        for acc, memory in (
            (qwkit.KappaAccumulator(), qwkit.kappa_score),
            (qwkit.SoftKappaAccumulator(), qwkit.soft_kappa_score),
            (qwkit.ThresholdAccumulator(), qwkit.optimize_thresholds),
        ):
            with pytest.raises(ValueError, match="No items yet: call `update` first"):
                acc.optimize() if hasattr(acc, "optimize") else acc.score()
            acc.update([1, 2, 3], [1, 2, 2], **{name: [0, 0, 0]})
            acc.merge(type(acc)())
            with pytest.raises(ValueError) as expected:
                memory([1, 2, 3], [1, 2, 2], **{name: [0, 0, 0]})
            with pytest.raises(ValueError) as caught:
                acc.optimize() if hasattr(acc, "optimize") else acc.score()
            assert str(caught.value) == str(expected.value)
            assert caught.value.parameter == name

    def test_threshold_accumulator_grows_its_integer_scale(self):
        acc = qwkit.ThresholdAccumulator()
        acc.update([3, 4, 4], [3.1, 3.9, 4.2])
        other = qwkit.ThresholdAccumulator()
        other.update([0, 1], [0.2, 1.4])
        acc.merge(other)
        ref = qwkit.optimize_thresholds([3, 4, 4, 0, 1], [3.1, 3.9, 4.2, 0.2, 1.4])
        got = acc.optimize()
        np.testing.assert_array_equal(got.thresholds, ref.thresholds)
        np.testing.assert_array_equal(got.labels, ref.labels)
        assert acc.n_pairs == 5

    def test_survey_resampling_is_refused_after_merging(self):
        y1, y2 = [0, 1, 2, 2, 1, 0] * 2, [0, 1, 1, 2, 0, 0] * 2
        w = [1, 2, 3, 1, 2, 0.5] * 2
        acc = qwkit.KappaAccumulator(labels=[0, 1, 2])
        acc.update(y1, y2, sample_weight=w)
        res = acc.test()
        ref = qwkit.kappa_test(y1, y2, sample_weight=w)
        assert res.standard_error == ref.standard_error
        assert res.confidence_interval() == ref.confidence_interval()
        for method in ("bootstrap", "jackknife"):
            with pytest.raises(ValueError, match="resample the rows"):
                res.confidence_interval(method=method)


def _quiet(f, *args, **kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qwkit.UndefinedKappaWarning)
        return f(*args, **kwargs)


def _same(x: float, y: float) -> bool:
    return x == y or (math.isnan(x) and math.isnan(y))
