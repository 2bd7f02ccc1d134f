"""One exact value: every entry point returns the same correctly rounded kappa.

For integer ratings and integer tables with any named weights, kappa is a ratio of two
integers; ``kappa_score``, ``kappa_from_confusion``, ``kappa_test``,
``kappa_test_from_confusion``, ``compare_kappa_test``, ``KappaAccumulator`` and
``optimize_thresholds`` must all return that ratio rounded once — bit for bit the same
float (a trial found 11,886 of 19,980 random 5-level cases differing in the last bits).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qwkit
from oracles.naive import naive_kappa

WEIGHTS = ("quadratic", "linear", "identity")


def _cases(n_cases=300, seed=20261121):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(2, 60))
        y1 = rng.integers(0, 5, n)
        y2 = (
            np.clip(y1 + rng.integers(-2, 3, n), 0, 4)
            if rng.random() < 0.7
            else rng.integers(0, 5, n)
        )
        if len(set(y1) | set(y2)) > 1:
            yield y1, y2


@pytest.mark.filterwarnings("ignore::qwkit.DegenerateIntervalWarning")  # constant raters
@pytest.mark.parametrize("weights", WEIGHTS)
def test_every_entry_point_returns_the_exact_value(weights):
    labels = range(5)
    for y1, y2 in _cases():
        exact = naive_kappa(y1, y2, weights=weights, labels=list(labels))
        if exact is None:  # 0/0
            continue
        expected = float(exact)  # the correctly rounded ratio of the oracle's fractions
        table = qwkit.confusion_matrix(y1, y2, labels=labels)
        acc = qwkit.KappaAccumulator(labels, weights=weights)
        acc.update(y1, y2)
        got = {
            "kappa_score": qwkit.kappa_score(y1, y2, weights=weights, labels=labels),
            "kappa_from_confusion": qwkit.kappa_from_confusion(table, weights=weights),
            "float table": qwkit.kappa_from_confusion(table.astype(float), weights=weights),
            "kappa_test": qwkit.kappa_test(y1, y2, weights=weights, labels=labels).statistic,
            "kappa_test_from_confusion": qwkit.kappa_test_from_confusion(
                table, weights=weights
            ).statistic,
            "compare a": qwkit.compare_kappa_test(
                y1, y2, y2, weights=weights, labels=labels
            ).kappa_a,
            "accumulator": acc.score(),
        }
        assert set(got.values()) == {expected}, (y1, y2, got, expected)


@pytest.mark.filterwarnings("ignore::qwkit.DegenerateIntervalWarning")
def test_integer_range_scale():
    rng = np.random.default_rng(7)
    for _ in range(100):
        y1 = rng.integers(-3, 4, 40)
        y2 = rng.integers(-3, 4, 40)
        for weights in WEIGHTS:
            a = qwkit.kappa_score(y1, y2, weights=weights)
            assert a == float(naive_kappa(y1, y2, weights=weights))
            assert a == qwkit.kappa_test(y1, y2, weights=weights).statistic


def test_counts_and_thresholds_give_the_same_value():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, 200)
    score = y + rng.normal(0, 1.0, 200)
    res = qwkit.optimize_thresholds(y, score)
    assert res.statistic == qwkit.kappa_score(y, res.predict(score), labels=range(5))
    counts = rng.integers(1, 5, 200)
    res = qwkit.optimize_thresholds(y, score, counts=counts)
    assert res.statistic == qwkit.kappa_score(y, res.predict(score), labels=range(5), counts=counts)


def test_large_counts_stay_exact():
    # products of counts and weights beyond int64 are summed as Python integers
    table = np.array([[2**52, 3], [5, 2**52 - 1]], dtype=np.int64)
    got = qwkit.kappa_from_confusion(table)
    n = int(table.sum())
    r, c = table.sum(axis=1).tolist(), table.sum(axis=0).tolist()
    s = r[0] * c[1] + r[1] * c[0]
    o = 3 + 5
    assert got == (s - o * n) / s


@pytest.mark.filterwarnings("ignore::qwkit.UndefinedKappaWarning")
@pytest.mark.parametrize("big", [5_000, 10**12, 2**62])
def test_wide_scales_are_exact_too(big):
    # scales wider than a table: sums over the distinct values, in exact integers
    from oracles.naive import naive_kappa_on_values

    rng = np.random.default_rng(big % 1000)
    for _ in range(40):
        n = int(rng.integers(2, 30))
        a = rng.integers(0, 5, n) * (big // 4)
        b = a.copy() if rng.random() < 0.2 else rng.integers(0, 5, n) * (big // 4)
        c = rng.integers(1, 4, n)
        ra, rb = np.repeat(a, c), np.repeat(b, c)
        for weights in WEIGHTS:
            exact = naive_kappa_on_values(ra, rb, weights=weights)
            if exact is None:
                continue
            assert qwkit.kappa_score(a, b, weights=weights, counts=c) == float(exact)
            assert qwkit.kappa_score(ra, rb, weights=weights) == float(exact)


# ---------------------------------------------------------------------------- survey weights

#: Adversarial survey weights: every part of the range of doubles, subnormal to 2**1023,
#: mixed in one sample; one weight dominating; zeros (±0.0).
_binade = st.integers(-1074, 1023)
_weight = st.one_of(
    st.builds(math.ldexp, st.floats(0.5, 1.0, exclude_max=True), _binade),
    st.builds(math.ldexp, st.floats(0.5, 1.0, exclude_max=True), st.integers(-30, 30)),
    st.sampled_from([0.0, -0.0, 5e-324, 2.2250738585072014e-308, 2.0**1023, 1.0]),
    st.floats(0.0, 1.0),
)
_samples = st.integers(2, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.integers(-1, 1), min_size=n, max_size=n),
        st.lists(_weight, min_size=n, max_size=n),
    )
)


@pytest.mark.filterwarnings("ignore::qwkit.DegenerateIntervalWarning")  # constant raters
@pytest.mark.filterwarnings("ignore::qwkit.UndefinedKappaWarning")
@pytest.mark.parametrize("weights", WEIGHTS)
@settings(max_examples=120, deadline=None)
@given(sample=_samples)
def test_survey_weights_give_the_exact_value_on_every_path(weights, sample):
    """Any finite weights — huge and tiny mixed, subnormal, near 2**1023, one of them
    dominating — give the correctly rounded kappa of the exact rational table on every
    path: the moments (quadratic, no labels), the exact table (labels; linear and
    identity), the mergeable state in pieces, the inference and the threshold search."""
    y1, shift, w = (np.array(x) for x in sample)
    y2 = np.clip(y1 + shift, 0, 4)
    w = w.astype(np.float64)
    if not np.any(w > 0):
        return
    exact = naive_kappa(y1, y2, weights=weights, labels=list(range(5)), sample_weight=w)
    if exact is None or len(set(y1) | set(y2)) < 2:
        return
    expected = float(exact)
    half = len(w) // 2
    acc = qwkit.KappaAccumulator(range(5), weights=weights)
    acc.update(y1[:half], y2[:half], sample_weight=w[:half])
    other = qwkit.KappaAccumulator(range(5), weights=weights)
    other.update(y1[half:], y2[half:], sample_weight=w[half:])
    got = {
        "labels": qwkit.kappa_score(y1, y2, weights=weights, labels=range(5), sample_weight=w),
        "accumulator": acc.merge(other).score(),
    }
    # a cell whose Σw², scaled with the largest weight to [½, 1), underflows: no float64
    # standard errors (refused); otherwise the statistic is the exact one
    e = math.frexp(float(w.max()))[1]
    squares: dict = {}
    for a, b, x in zip(y1.tolist(), y2.tolist(), w.tolist(), strict=True):
        if x > 0:
            squares[a, b] = squares.get((a, b), Fraction(0)) + Fraction(x) ** 2
    tiny = np.finfo(np.float64).tiny
    underflow = any(float(q * Fraction(2) ** (-2 * e)) < tiny for q in squares.values())
    try:
        test = qwkit.kappa_test(y1, y2, weights=weights, labels=range(5), sample_weight=w)
    except ValueError as exc:  # only where a cell's squares underflow
        assert underflow and "more than 2**511 below" in str(exc)
    else:
        got["kappa_test"] = test.statistic
    if min(y1.min(), y2.min()) == 0 and max(y1.max(), y2.max()) == 4:  # the scale 0..4
        got["inferred scale"] = qwkit.kappa_score(y1, y2, weights=weights, sample_weight=w)
    assert set(got.values()) == {expected}, (got, expected)


@settings(max_examples=100, deadline=None)
@given(sample=_samples)
def test_survey_tables_are_correctly_rounded(sample):
    """Every cell of ``confusion_matrix`` is the exact sum of its weights rounded once
    (``math.fsum``); a sum beyond float64 is an error naming ``sample_weight`` (the table
    used to come back scaled by a power of two)."""
    y1, shift, w = (np.array(x) for x in sample)
    y2 = np.clip(y1 + shift, 0, 4)
    w = w.astype(np.float64)
    if not np.any(w > 0):
        return
    sums = [[Fraction(0)] * 5 for _ in range(5)]
    for a, b, x in zip(y1.tolist(), y2.tolist(), w.tolist(), strict=True):
        sums[a][b] += Fraction(x)
    largest = max(max(row) for row in sums)
    top = Fraction(2) ** 1024 - Fraction(2) ** 970  # from here a sum rounds to inf
    if largest >= top:
        with pytest.raises(ValueError, match="beyond the largest float64") as info:
            qwkit.confusion_matrix(y1, y2, labels=range(5), sample_weight=w)
        assert info.value.parameter == "sample_weight"
        return
    table = qwkit.confusion_matrix(y1, y2, labels=range(5), sample_weight=w)
    scale = Fraction(1)
    for i in range(5):
        for j in range(5):
            x = sums[i][j] * scale
            assert table[i, j] == x.numerator / x.denominator


def test_survey_weights_thresholds_are_exact():
    """The threshold search with adversarial survey weights: its kappa is the exact
    kappa of its own cut points, whatever the magnitudes."""
    rng = np.random.default_rng(20261124)
    for _ in range(30):
        n = int(rng.integers(20, 200))
        y = rng.integers(0, 5, n)
        score = y + rng.normal(0, 0.8, n)
        w = np.ldexp(rng.random(n), rng.integers(-1000, 1000, n))
        w[rng.integers(0, n)] = 2.0**1023
        res = qwkit.optimize_thresholds(y, score, sample_weight=w)
        pred = res.predict(score)
        exact = naive_kappa(y, pred, labels=list(range(5)), sample_weight=w)
        assert res.statistic == float(exact)


class TestExtremeSurveyWeights:
    """Weights far apart (an independent trial of issue 24): never a wrong number — a
    value that holds, or an error naming ``sample_weight``."""

    @staticmethod
    def _test(heavy, n=300, seed=12):
        """kappa_test of n items, item 5 of weight ``heavy``, the others of weight 1."""
        rng = np.random.default_rng(seed)
        a = rng.integers(0, 5, n)
        b = np.clip(a + rng.integers(-2, 3, n), 0, 4)
        b[5] = a[5]
        return qwkit.kappa_test(a, b, sample_weight=np.where(np.arange(n) == 5, heavy, 1.0))

    def test_a_table_beyond_float64_is_refused_not_scaled(self):
        # the table of exact sums used to come back divided by a power of two, silently
        w = [1e308, 1e308, 1.0, 1.0]
        with pytest.raises(ValueError, match="beyond the largest float64") as info:
            qwkit.confusion_matrix([0, 0, 1, 1], [0, 0, 1, 0], sample_weight=w)
        assert info.value.parameter == "sample_weight"
        acc = qwkit.KappaAccumulator()
        acc.update([0, 0, 1, 1], [0, 0, 1, 0], sample_weight=w)
        with pytest.raises(ValueError, match="beyond the largest float64"):
            acc.confusion  # noqa: B018
        # kappa itself is exact: Fraction of the same weights
        assert acc.score() == qwkit.kappa_score([0, 0, 1, 1], [0, 0, 1, 0], sample_weight=w)
        assert acc.score() == 2 / 3

    def test_standard_errors_hold_up_to_2_to_the_500_and_are_refused_beyond(self):
        ref = self._test(1e100)
        for heavy in (1e120, 1e150):
            res = self._test(heavy)
            assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
            assert res.standard_error_null == pytest.approx(ref.standard_error_null, rel=1e-12)
        # 1e165 gave a standard error of exactly 0 (the small weights' squares underflowed)
        with pytest.raises(ValueError, match="more than 2\\*\\*511 below") as info:
            self._test(1e165)
        assert info.value.parameter == "sample_weight"
        with pytest.raises(ValueError, match="more than 2\\*\\*511 below"):
            qwkit.kappa_test([0, 0, 1, 0], [0, 0, 1, 1], sample_weight=[1e308, 1e308, 1, 1])
        acc = qwkit.KappaAccumulator()
        acc.update([0, 0, 1, 0], [0, 0, 1, 1], sample_weight=[1e165, 1e165, 1, 1])
        with pytest.raises(ValueError, match="more than 2\\*\\*511 below"):
            acc.test()

    def test_resamples_without_the_heavy_item_have_a_kappa(self):
        # a resample without one item of 10¹⁴ × the others' weight was called undefined
        # (its S against the full sample's), and 7% of the resamples were dropped
        intervals = [
            self._test(heavy).confidence_interval(method="percentile", n_resamples=300, rng=0)
            for heavy in (1e12, 1e14, 1e16)
        ]
        for low, high in intervals[1:]:
            assert (low, high) == pytest.approx(intervals[0], abs=1e-9)

    def test_leave_one_out_says_why_it_is_undefined(self):
        res = self._test(1e16)
        with pytest.warns(qwkit.DegenerateIntervalWarning, match="nearly all of the weight"):
            low, high = res.confidence_interval(method="jackknife")
        assert math.isnan(low) and math.isnan(high)

    def test_sums_beyond_float64_give_no_runtime_warning(self):
        # warnings are errors here: numpy's overflow warnings escaped these paths
        rng = np.random.default_rng(1)
        a = rng.integers(0, 4, 50)
        b = np.clip(a + rng.integers(-1, 2, 50), 0, 3)
        w = np.ldexp(rng.random(50) + 0.5, 1020)  # Σw beyond 1.8e308
        matrix = np.abs(np.subtract.outer(np.arange(4), np.arange(4))) ** 1.5
        scaled = qwkit.kappa_score(a, b, sample_weight=w / 2.0**1000, weights=matrix)
        assert qwkit.kappa_score(a, b, sample_weight=w, weights=matrix) == scaled
        assert math.isfinite(qwkit.kappa_score(a, b, sample_weight=w, weights="radical"))
        equal = qwkit.kappa_test(a, b, sample_weight=np.full(50, 1e308))
        plain = qwkit.kappa_test(a, b)
        assert (equal.statistic, equal.standard_error) == (plain.statistic, plain.standard_error)
