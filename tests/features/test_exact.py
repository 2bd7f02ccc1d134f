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
    with np.errstate(all="ignore"):  # its standard errors are floating-point quantities
        # (they overflow when the weights span more than 2**1000); its statistic is exact
        test = qwkit.kappa_test(y1, y2, weights=weights, labels=range(5), sample_weight=w)
    got = {
        "labels": qwkit.kappa_score(y1, y2, weights=weights, labels=range(5), sample_weight=w),
        "accumulator": acc.merge(other).score(),
        "kappa_test": test.statistic,
    }
    if min(y1.min(), y2.min()) == 0 and max(y1.max(), y2.max()) == 4:  # the scale 0..4
        got["inferred scale"] = qwkit.kappa_score(y1, y2, weights=weights, sample_weight=w)
    assert set(got.values()) == {expected}, (got, expected)


@settings(max_examples=100, deadline=None)
@given(sample=_samples)
def test_survey_tables_are_correctly_rounded(sample):
    """Every cell of ``confusion_matrix`` is the exact sum of its weights rounded once
    (``math.fsum``; scaled by one power of two when a sum overflows)."""
    y1, shift, w = (np.array(x) for x in sample)
    y2 = np.clip(y1 + shift, 0, 4)
    w = w.astype(np.float64)
    if not np.any(w > 0):
        return
    table = qwkit.confusion_matrix(y1, y2, labels=range(5), sample_weight=w)
    sums = [[Fraction(0)] * 5 for _ in range(5)]
    for a, b, x in zip(y1.tolist(), y2.tolist(), w.tolist(), strict=True):
        sums[a][b] += Fraction(x)
    largest = max(max(row) for row in sums)
    scale = Fraction(1)
    if largest >= Fraction(2) ** 1024:  # the sums overflow: all scaled by one power of 2
        scale = Fraction(2) ** -(
            largest.numerator.bit_length() - largest.denominator.bit_length() + 1
        )
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
