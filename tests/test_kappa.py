"""Core API of qwkit: kappa_score, kappa_from_confusion, confusion_matrix, weight_matrix,
soft_kappa_score and KappaAccumulator.

Oracles live in ``tests/naive.py``; published values carry their provenance; every bad
input listed in issue 2 ("Bad input") is checked for its exception type and for a
message naming the parameter in backticks.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import subprocess
import sys
import tracemalloc
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import qwkit
from naive import (
    exact_quadratic_kappa,
    integer_scale,
    naive_confusion,
    naive_kappa,
    naive_kappa_from_confusion,
    naive_kappa_on_values,
    naive_soft_kappa,
    naive_weights,
)
from qwkit import (
    KappaAccumulator,
    UndefinedKappaWarning,
    confusion_matrix,
    kappa_from_confusion,
    kappa_score,
    soft_kappa_score,
    weight_matrix,
)

SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


def as_float(value: Fraction | None) -> float:
    """Correctly rounded float of an exact oracle value (nan when undefined)."""
    return math.nan if value is None else float(value)


def close(actual, expected, rtol=1e-10, atol=1e-12) -> bool:
    return math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol)


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = arr.copy()
    arr.flags.writeable = False
    return arr


def asymmetric_weights(k: int, rng) -> np.ndarray:
    """A custom (K, K) disagreement matrix: zero diagonal, asymmetric off-diagonal."""
    w = rng.uniform(0.1, 3.0, size=(k, k))
    np.fill_diagonal(w, 0.0)
    return w


# ---------------------------------------------------------------------------- strategies


@st.composite
def labelled_ratings(draw, *, min_k=2, max_k=6, max_n=40, weighted=None, sorted_labels=False):
    """(labels, y1, y2, sample_weight): distinct integer labels, ratings drawn from them."""
    k = draw(st.integers(min_k, max_k))
    labels = draw(st.lists(st.integers(-30, 30), min_size=k, max_size=k, unique=True))
    if sorted_labels:
        labels = sorted(labels)
    n = draw(st.integers(1, max_n))
    y1 = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    y2 = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    if weighted is None:
        weighted = draw(st.booleans())
    sw = None
    if weighted:
        sw = draw(
            st.lists(
                st.one_of(st.just(0.0), st.floats(1e-3, 10.0), st.integers(0, 5).map(float)),
                min_size=n,
                max_size=n,
            )
        )
        assume(sum(sw) > 0)
    return labels, y1, y2, sw


@st.composite
def integer_ratings(draw, *, lo=-6, hi=6, max_n=40):
    """(y1, y2) integer ratings, labels None (the integer-range scale applies)."""
    n = draw(st.integers(1, max_n))
    y1 = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    y2 = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    return y1, y2


# ============================================================================ kappa_score


class TestKappaScore:
    # ------------------------------------------------------------------ published values

    def test_seed004_step_by_step(self):
        # Seed 004 (Kaggle reference page), "Example", In [23]-[27]: Out[27] prints
        # 0.31818181818181823; the exact value is 7/22 = 0.3181818181818182 (sklearn
        # and the seed's numba loop print the latter digits).
        actuals = np.array([4, 4, 3, 4, 4, 0, 1, 1, 2, 1])
        preds = np.array([0, 4, 1, 0, 4, 0, 1, 1, 2, 1])
        result = kappa_score(actuals, preds)
        assert result == pytest.approx(0.3181818181818182, rel=1e-14)
        assert result == float(Fraction(7, 22))
        assert type(result) is float

    def test_seed004_random_example(self):
        # Seed 004, In [67]-[68]: np.random.seed(2020); actuals, preds =
        # randint(0, 4, 10000) twice; "qwk = 0.010146537647530596" (scikit-learn).
        # RandomState(2020) reproduces the legacy global draws without global seeding.
        rs = np.random.RandomState(2020)
        actuals = rs.randint(0, 4, 10000)
        preds = rs.randint(0, 4, 10000)
        result = kappa_score(actuals, preds)
        assert result == pytest.approx(0.010146537647530596, rel=1e-12)
        # ... and qwkit is exact: the correctly rounded value of the rational kappa.
        assert result == as_float(exact_quadratic_kappa(actuals, preds))

    def test_seed002_notebook(self):
        # Seed 002, In [3]-[6]: labels [1, 2, 3, 4, 5], "-0.09756097560975618" from both
        # the double loop and cohen_kappa_score(y_pred, y_true, ...). Exact: -4/41.
        y_true = [1, 1, 1, 1, 1, 2, 1, 2, 3, 5, 1, 2, 4]
        y_pred = [2, 1, 4, 3, 1, 1, 1, 2, 5, 1, 2, 2, 1]
        labels = [1, 2, 3, 4, 5]
        for a, b in ((y_true, y_pred), (y_pred, y_true)):
            result = kappa_score(a, b, weights="quadratic", labels=labels)
            assert result == pytest.approx(-0.09756097560975618, rel=1e-13)
            assert result == float(Fraction(-4, 41))
        # Every label occurs, so the integer-range default agrees.
        assert kappa_score(y_true, y_pred) == float(Fraction(-4, 41))

    def test_sklearn_artstein_poesio(self):
        # scikit-learn 1.9.1, sklearn/metrics/tests/test_classification.py::test_cohen_kappa
        # (Artstein & Poesio 2008). Binary Table 1: 0.348. Multiclass Table 4: 0.8013.
        # Weighting example: unweighted 0.9315, linear 0.9412, quadratic 0.9541.
        # (Note: 0.9315 is the *unweighted* value of the weighting example, and 0.8013 the
        # unweighted value of Table 4; linear is 0.9412.)
        y1 = np.array([0] * 40 + [1] * 60)
        y2 = np.array([0] * 20 + [1] * 20 + [0] * 10 + [1] * 50)
        assert kappa_score(y1, y2, weights=None) == pytest.approx(0.348, abs=5e-4)
        assert kappa_score(y1, y2, weights=None) == kappa_score(y2, y1, weights=None)

        y1 = np.array([0] * 46 + [1] * 44 + [2] * 10)
        y2 = np.array([0] * 52 + [1] * 32 + [2] * 16)
        assert kappa_score(y1, y2, weights=None) == pytest.approx(0.8013, abs=5e-5)

        y1 = np.array([0] * 46 + [1] * 44 + [2] * 10)
        y2 = np.array([0] * 50 + [1] * 40 + [2] * 10)
        assert kappa_score(y1, y2, weights=None) == pytest.approx(0.9315, abs=5e-5)
        assert kappa_score(y1, y2, weights="identity") == pytest.approx(0.9315, abs=5e-5)
        assert kappa_score(y1, y2, weights="linear") == pytest.approx(0.9412, abs=5e-5)
        assert kappa_score(y1, y2, weights="quadratic") == pytest.approx(0.9541, abs=5e-5)
        assert kappa_score(y1, y2) == pytest.approx(0.9541, abs=5e-5)

    def test_design_integer_range_vs_sklearn(self):
        # DESIGN.md "Semantics": 0.758621 on the integer range 1..10 (2 never occurs)
        # versus scikit-learn's 0.7632 on the observed values.
        from sklearn.metrics import cohen_kappa_score

        y1 = [9, 7, 8, 7, 6, 8, 3, 5, 10]
        y2 = [8, 8, 6, 6, 7, 6, 1, 4, 8]
        assert round(kappa_score(y1, y2), 6) == 0.758621
        assert kappa_score(y1, y2) == as_float(naive_kappa(y1, y2))
        observed = sorted(set(y1) | set(y2))
        sk = cohen_kappa_score(y1, y2, weights="quadratic")
        assert round(sk, 4) == 0.7632
        assert kappa_score(y1, y2, labels=observed) == pytest.approx(sk, rel=1e-12)
        assert kappa_score(y1, y2, labels=list(range(1, 11))) == kappa_score(y1, y2)

    # ------------------------------------------------------------------ sklearn parity

    @settings(max_examples=200)
    @given(data=labelled_ratings(), weights=st.sampled_from([None, "linear", "quadratic"]))
    def test_parity_with_sklearn(self, data, weights):
        from sklearn.metrics import cohen_kappa_score

        labels, y1, y2, sw = data
        expected_exact = naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        assume(expected_exact is not None)  # sklearn warns differently on 0/0
        sk = cohen_kappa_score(y1, y2, labels=labels, weights=weights, sample_weight=sw)
        ours = kappa_score(y1, y2, labels=labels, weights=weights, sample_weight=sw)
        assert type(ours) is float
        assert close(ours, sk), (ours, sk)
        assert close(ours, float(expected_exact)), (ours, float(expected_exact))

    # ------------------------------------------------------------------ naive oracle

    @settings(max_examples=150)
    @given(
        data=labelled_ratings(max_k=7),
        weights=st.sampled_from(["quadratic", "linear", "identity", None, "custom"]),
        seed=st.integers(0, 2**32 - 1),
    )
    def test_matches_naive_with_labels(self, data, weights, seed):
        labels, y1, y2, sw = data
        if weights == "custom":
            weights = asymmetric_weights(len(labels), np.random.default_rng(seed))
        expected = naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                got = kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=sw)
            assert math.isnan(got)
        else:
            got = kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=sw)
            assert close(got, float(expected)), (got, float(expected))

    @settings(max_examples=150)
    @given(data=integer_ratings(), weights=st.sampled_from(NAMED), weighted=st.booleans())
    def test_matches_naive_integer_range(self, data, weights, weighted):
        y1, y2 = data
        rng = np.random.default_rng(SEED)
        sw = rng.uniform(0.1, 2.0, len(y1)) if weighted else None
        expected = naive_kappa(y1, y2, weights=weights, sample_weight=sw)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                assert math.isnan(kappa_score(y1, y2, weights=weights, sample_weight=sw))
        else:
            got = kappa_score(y1, y2, weights=weights, sample_weight=sw)
            assert close(got, float(expected)), (got, float(expected))

    @pytest.mark.parametrize(
        "convert",
        [
            pytest.param(list, id="list"),
            pytest.param(tuple, id="tuple"),
            pytest.param(lambda v: np.asarray(v, dtype=np.int8), id="int8"),
            pytest.param(lambda v: np.asarray(v, dtype=np.int16), id="int16"),
            pytest.param(lambda v: np.asarray(v, dtype=np.int32), id="int32"),
            pytest.param(lambda v: np.asarray(v, dtype=np.int64), id="int64"),
            pytest.param(lambda v: np.asarray(v, dtype=np.uint8), id="uint8"),
            pytest.param(lambda v: np.asarray(v, dtype=np.uint16), id="uint16"),
            pytest.param(lambda v: np.asarray(v, dtype=np.uint64), id="uint64"),
            pytest.param(lambda v: np.asarray(v, dtype=np.float64), id="integral-float64"),
            pytest.param(lambda v: np.asarray(v, dtype=np.float32), id="integral-float32"),
            pytest.param(lambda v: [float(x) for x in v], id="integral-float-list"),
            pytest.param(lambda v: np.repeat(np.asarray(v), 2)[::2], id="strided-a[::2]"),
            pytest.param(
                lambda v: np.asfortranarray(np.stack([v, v], axis=1))[:, 0], id="column-view"
            ),
            pytest.param(lambda v: np.asarray(v)[::-1][::-1], id="reversed-twice"),
            pytest.param(lambda v: _readonly(np.asarray(v)), id="read-only"),
            pytest.param(lambda v: np.asarray(v, dtype=">f8"), id="big-endian-float64"),
            pytest.param(lambda v: __import__("pandas").Series(v), id="pandas"),
            pytest.param(
                lambda v: __import__("pandas").Series(v, index=np.arange(len(v)) * 3 + 7),
                id="pandas-odd-index",
            ),
            pytest.param(lambda v: __import__("polars").Series(v), id="polars"),
        ],
    )
    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity", "custom"])
    @pytest.mark.parametrize("weighted", [False, True])
    def test_input_containers(self, convert, weights, weighted):
        rng = np.random.default_rng(SEED)
        y1 = rng.integers(0, 6, 60).tolist()
        y2 = rng.integers(0, 6, 60).tolist()
        y1[0], y2[1] = 0, 5  # the scale 0..5 is fully spanned
        sw = rng.uniform(0.0, 3.0, 60) if weighted else None
        wmat = asymmetric_weights(6, rng) if weights == "custom" else weights
        expected = float(naive_kappa(y1, y2, weights=wmat, sample_weight=sw))
        got = kappa_score(convert(y1), convert(y2), weights=wmat, sample_weight=sw)
        assert type(got) is float
        assert close(got, expected)
        # sample_weight may come in the same containers.
        if weighted:
            got_sw = kappa_score(y1, y2, weights=wmat, sample_weight=list(sw))
            assert close(got_sw, expected)

    @pytest.mark.parametrize("dtype", [">i8", ">i4", ">u2"])
    def test_big_endian_integer_arrays(self, dtype):
        # Non-native byte order is still a numpy array of integers (issue 2: "Accept ...
        # numpy arrays"); it must not reach a numba kernel that cannot type it.
        y1, y2 = [0, 1, 2, 2, 1, 3], [0, 2, 2, 1, 1, 3]
        a, b = np.array(y1, dtype=dtype), np.array(y2, dtype=dtype)
        for weights in ("quadratic", "linear", None):
            expected = as_float(naive_kappa(y1, y2, weights=weights))
            assert close(kappa_score(a, b, weights=weights), expected)
            assert close(kappa_score(a, b, weights=weights, labels=[0, 1, 2, 3]), expected)
        np.testing.assert_array_equal(confusion_matrix(a, b), confusion_matrix(y1, y2))
        acc = KappaAccumulator([0, 1, 2, 3])
        acc.update(a, b)
        assert close(acc.score(), as_float(naive_kappa(y1, y2)))

    def test_integral_float16(self):
        # float16 ratings are integral floats; validation must not emit a RuntimeWarning
        # (pytest runs with warnings as errors) on its range check.
        y1, y2 = [0, 1, 2, 2, 1, 3], [0, 2, 2, 1, 1, 3]
        a, b = np.array(y1, np.float16), np.array(y2, np.float16)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert close(kappa_score(a, b), as_float(naive_kappa(y1, y2)))
            assert close(
                kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"),
                as_float(naive_kappa(y1, y2, weights="linear")),
            )

    def test_big_endian_sample_weight_and_table(self):
        y1, y2 = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
        sw = np.array([1.0, 2.0, 0.5, 1.0, 3.0], dtype=">f8")
        expected = as_float(naive_kappa(y1, y2, weights="linear", sample_weight=sw))
        assert close(kappa_score(y1, y2, weights="linear", sample_weight=sw), expected)
        table = np.array([[3, 1], [2, 5]], dtype=">i8")
        assert close(kappa_from_confusion(table), float(naive_kappa_from_confusion(table)))

    def test_inputs_not_modified(self):
        rng = np.random.default_rng(SEED)
        for a, b in (
            (rng.integers(0, 5, 50), rng.integers(0, 5, 50)),
            (rng.integers(0, 5, 50) * 10**9, rng.integers(0, 5, 50) * 10**9),  # table-free
            (rng.integers(-(2**62), 2**62, 50), rng.integers(-(2**62), 2**62, 50)),
        ):
            sw = rng.uniform(0.0, 2.0, 50)
            copies = a.copy(), b.copy(), sw.copy()
            for weights in ("quadratic", "linear", "identity"):
                kappa_score(a, b, weights=weights)
                kappa_score(a, b, weights=weights, sample_weight=sw)
            np.testing.assert_array_equal(a, copies[0])
            np.testing.assert_array_equal(b, copies[1])
            np.testing.assert_array_equal(sw, copies[2])
        y = rng.normal(0, 1, 20)
        f = y.copy()
        soft_kappa_score(y, f + 1, sample_weight=sw[:20])
        np.testing.assert_array_equal(y, f)

    def test_uint64_labels_with_int64_ratings(self):
        # Labels and ratings of different integer dtypes must not meet in float64
        # (2**62 + 1 and 2**62 + 2 are the same float64).
        labels = np.array([2**62 + 2, 2**62, 2**62 + 1], dtype=np.uint64)
        y1 = np.array([2**62, 2**62 + 1, 2**62 + 2, 2**62 + 2], dtype=np.int64)
        y2 = np.array([2**62 + 1, 2**62 + 1, 2**62, 2**62 + 2], dtype=np.int64)
        py_labels = [int(x) for x in labels]
        for weights in ("quadratic", "linear", None):
            expected = as_float(
                naive_kappa(y1.tolist(), y2.tolist(), labels=py_labels, weights=weights)
            )
            assert close(kappa_score(y1, y2, labels=labels, weights=weights), expected)
            assert close(kappa_score(y1, y2, labels=py_labels, weights=weights), expected)

    def test_uint64_above_int64_max(self):
        u = np.array([2**63, 2**63 + 1, 2**63 + 5, 2**63 + 1], dtype=np.uint64)
        v = np.array([2**63 + 5, 2**63 + 1, 2**63, 2**63], dtype=np.uint64)
        labels = [2**63, 2**63 + 1, 2**63 + 5]
        expected = as_float(naive_kappa(u.tolist(), v.tolist(), labels=labels))
        assert close(kappa_score(u, v, labels=labels), expected)
        # Without labels the integer range (2**63 .. 2**63 + 5) is well defined; the spec
        # allows computing it or refusing clearly — but never a silently wrong number.
        try:
            got = kappa_score(u, v)
        except ValueError as exc:
            assert "`y1`" in str(exc)
        else:
            assert got == as_float(exact_quadratic_kappa(u.tolist(), v.tolist()))

    def test_wide_explicit_labels(self):
        # 3000 labels in reverse order: positions, not values, and no 3000×3000 table
        # needed for named weights.
        labels = np.arange(3000)[::-1] * 7
        rng = np.random.default_rng(SEED)
        pos_a = rng.integers(0, 3000, 80)
        pos_b = np.where(rng.random(80) < 0.5, pos_a, rng.integers(0, 3000, 80))
        for weights in ("quadratic", "linear", "identity"):
            for sw in (None, rng.uniform(0.1, 2.0, 80)):
                expected = naive_kappa_on_values(pos_a, pos_b, weights=weights, sample_weight=sw)
                got = kappa_score(
                    labels[pos_a], labels[pos_b], labels=labels, weights=weights, sample_weight=sw
                )
                assert close(got, as_float(expected), rtol=1e-9), (weights, got)

    def test_near_equal_huge_values_stay_distinct(self):
        # 2**62 and 2**62 + 1 differ; a float64 detour would merge them.
        rng = np.random.default_rng(SEED)
        for _ in range(20):
            a = (2**62 + rng.integers(0, 4, 8)).tolist()
            b = (2**62 + rng.integers(0, 4, 8)).tolist()
            a[0] = 0  # scale far wider than any table
            sw = rng.uniform(0.5, 1.5, 8)
            for weights in ("identity", "linear", "quadratic"):
                for w in (None, sw):
                    expected = naive_kappa_on_values(a, b, weights=weights, sample_weight=w)
                    got = kappa_score(a, b, weights=weights, sample_weight=w)
                    assert close(got, as_float(expected), rtol=1e-9), (weights, a, b, got)

    def test_negative_small_ints(self):
        rng = np.random.default_rng(SEED)
        y1 = rng.integers(-120, -100, 300)
        y2 = np.clip(y1 + rng.integers(-10, 11, 300), -128, 127)
        for dtype in (np.int8, np.int16, np.int64):
            for weights in ("quadratic", "linear", "identity"):
                got = kappa_score(y1.astype(dtype), y2.astype(dtype), weights=weights)
                assert close(got, as_float(naive_kappa(y1, y2, weights=weights)))

    def test_string_labels(self):
        rng = np.random.default_rng(SEED)
        scale = ["low", "mid", "high", "top"]  # not alphabetical: positions follow labels
        y1 = rng.choice(scale, 50).tolist()
        y2 = rng.choice(scale, 50).tolist()
        for weights in ("quadratic", "linear", None):
            got = kappa_score(y1, y2, labels=scale, weights=weights)
            assert close(got, as_float(naive_kappa(y1, y2, labels=scale, weights=weights)))
            # labels None: sorted order is meant (DESIGN.md "Semantics").
            got_sorted = kappa_score(y1, y2, weights=weights)
            expected = naive_kappa(y1, y2, labels=sorted(scale), weights=weights)
            assert close(got_sorted, as_float(expected))
        # numpy str arrays, pandas and polars string Series.
        import pandas as pd
        import polars as pl

        expected = as_float(naive_kappa(y1, y2, labels=scale))
        for conv in (np.array, pd.Series, pl.Series):
            assert close(kappa_score(conv(y1), conv(y2), labels=np.array(scale)), expected)

    def test_unsorted_integer_labels_use_positions(self):
        rng = np.random.default_rng(SEED)
        labels = [3, 1, 2, 0]
        y1 = rng.choice(labels, 40).tolist()
        y2 = rng.choice(labels, 40).tolist()
        for weights in ("quadratic", "linear"):
            got = kappa_score(y1, y2, labels=labels, weights=weights)
            assert close(got, as_float(naive_kappa(y1, y2, labels=labels, weights=weights)))

    def test_non_consecutive_integer_labels(self):
        rng = np.random.default_rng(SEED)
        labels = [1, 5, 10, 40]
        y1 = rng.choice(labels, 40).tolist()
        y2 = rng.choice(labels, 40).tolist()
        for weights in ("quadratic", "linear", "identity"):
            # With labels: positions 0..3; without: the integer range 1..40.
            got = kappa_score(y1, y2, labels=labels, weights=weights)
            assert close(got, as_float(naive_kappa(y1, y2, labels=labels, weights=weights)))
            got_range = kappa_score(y1, y2, weights=weights)
            assert close(got_range, as_float(naive_kappa(y1, y2, weights=weights)))

    def test_float_labels(self):
        rng = np.random.default_rng(SEED)
        labels = [0.5, 1.25, 2.0, 7.75]
        y1 = rng.choice(labels, 40)
        y2 = rng.choice(labels, 40)
        for weights in ("quadratic", "linear", None):
            got = kappa_score(y1, y2, labels=labels, weights=weights)
            assert close(got, as_float(naive_kappa(y1, y2, labels=labels, weights=weights)))

    def test_integral_float_labels_with_int_ratings(self):
        y1 = [1, 2, 3, 3, 2]
        y2 = [1, 3, 3, 2, 2]
        expected = as_float(naive_kappa(y1, y2, labels=[1, 2, 3]))
        assert close(kappa_score(y1, y2, labels=[1.0, 2.0, 3.0]), expected)
        assert close(kappa_score(np.array(y1, float), y2, labels=[1, 2, 3]), expected)

    def test_bools(self):
        rng = np.random.default_rng(SEED)
        y1 = rng.random(50) < 0.5
        y2 = rng.random(50) < 0.4
        ints1, ints2 = y1.astype(int), y2.astype(int)
        for weights in ("quadratic", "linear", None):
            expected = as_float(naive_kappa(ints1, ints2, weights=weights))
            assert close(kappa_score(y1, y2, weights=weights), expected)
            assert close(kappa_score(y1.tolist(), y2.tolist(), weights=weights), expected)
            assert close(kappa_score(y1, y2, weights=weights, labels=[False, True]), expected)

    def test_labels_superset_of_observed(self):
        y1 = [2, 3, 3, 4]
        y2 = [2, 2, 3, 4]
        labels = [0, 1, 2, 3, 4, 5, 6]
        for weights in ("quadratic", "linear", None):
            got = kappa_score(y1, y2, labels=labels, weights=weights)
            assert close(got, as_float(naive_kappa(y1, y2, labels=labels, weights=weights)))

    # ------------------------------------------------------------------ invariances

    @settings(max_examples=100)
    @given(data=integer_ratings(), weights=st.sampled_from(NAMED))
    def test_symmetry(self, data, weights):
        y1, y2 = data
        assume(naive_kappa(y1, y2, weights=weights) is not None)
        assert close(kappa_score(y1, y2, weights=weights), kappa_score(y2, y1, weights=weights))

    @settings(max_examples=100)
    @given(data=labelled_ratings(sorted_labels=True), seed=st.integers(0, 2**32 - 1))
    def test_asymmetric_weights_swap_equals_transpose(self, data, seed):
        labels, y1, y2, sw = data
        w = asymmetric_weights(len(labels), np.random.default_rng(seed))
        assume(naive_kappa(y1, y2, weights=w, labels=labels, sample_weight=sw) is not None)
        got = kappa_score(y1, y2, weights=w, labels=labels, sample_weight=sw)
        swapped = kappa_score(y2, y1, weights=w.T, labels=labels, sample_weight=sw)
        assert close(got, swapped)

    def test_asymmetric_weights_orientation(self):
        # W is indexed [rating of y1, rating of y2]: penalize only y2 > y1.
        w = np.array([[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
        y1 = [0, 1, 2, 2, 1, 0]
        y2 = [0, 2, 1, 2, 0, 0]
        got = kappa_score(y1, y2, weights=w, labels=[0, 1, 2])
        assert got == pytest.approx(float(naive_kappa(y1, y2, weights=w, labels=[0, 1, 2])))
        assert got != pytest.approx(kappa_score(y2, y1, weights=w, labels=[0, 1, 2]))

    @settings(max_examples=100)
    @given(data=labelled_ratings(), weights=st.sampled_from(NAMED), seed=st.integers(0, 99))
    def test_order_invariance(self, data, weights, seed):
        labels, y1, y2, sw = data
        assume(naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw) is not None)
        perm = np.random.default_rng(seed).permutation(len(y1))
        a, b = np.asarray(y1)[perm], np.asarray(y2)[perm]
        sw_p = None if sw is None else np.asarray(sw)[perm]
        got = kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        assert close(kappa_score(a, b, weights=weights, labels=labels, sample_weight=sw_p), got)
        assert close(
            kappa_score(a, b, weights=weights, sample_weight=sw_p),
            kappa_score(y1, y2, weights=weights, sample_weight=sw),
        )

    @settings(max_examples=100)
    @given(data=integer_ratings(), weights=st.sampled_from(NAMED))
    def test_unit_weights_equal_no_weights(self, data, weights):
        y1, y2 = data
        assume(naive_kappa(y1, y2, weights=weights) is not None)
        ones = np.ones(len(y1))
        assert close(
            kappa_score(y1, y2, weights=weights, sample_weight=ones),
            kappa_score(y1, y2, weights=weights),
        )
        assert close(
            kappa_score(y1, y2, weights=weights, sample_weight=[1] * len(y1)),
            kappa_score(y1, y2, weights=weights),
        )

    @settings(max_examples=100)
    @given(
        data=integer_ratings(),
        weights=st.sampled_from(NAMED),
        reps=st.lists(st.integers(0, 4), min_size=40, max_size=40),
    )
    def test_integer_weights_equal_repeated_rows(self, data, weights, reps):
        y1, y2 = data
        reps = np.asarray(reps[: len(y1)])
        assume(reps.sum() > 0)
        a, b = np.repeat(y1, reps), np.repeat(y2, reps)
        assume(naive_kappa(a, b, weights=weights) is not None)
        # Same scale for both: pin it with the labels of the full data.
        labels = integer_scale(y1, y2)
        expected = kappa_score(a, b, weights=weights, labels=labels)
        assert close(
            kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=reps), expected
        )
        assert close(
            kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=reps.astype(float)),
            expected,
        )

    @settings(max_examples=100)
    @given(
        data=integer_ratings(),
        weights=st.sampled_from(NAMED),
        keep=st.lists(st.booleans(), min_size=40, max_size=40),
    )
    def test_zero_weights_equal_dropped_rows(self, data, weights, keep):
        y1, y2 = data
        keep = np.asarray(keep[: len(y1)])
        assume(keep.any())
        a, b = np.asarray(y1)[keep], np.asarray(y2)[keep]
        assume(naive_kappa(a, b, weights=weights) is not None)
        labels = integer_scale(y1, y2)
        got = kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=keep.astype(float))
        assert close(got, kappa_score(a, b, weights=weights, labels=labels))

    @settings(max_examples=100)
    @given(
        data=integer_ratings(),
        weights=st.sampled_from(NAMED),
        shift=st.one_of(st.integers(-1000, 1000), st.sampled_from([2**40, -(2**50), 10**15])),
    )
    def test_shift_invariance(self, data, weights, shift):
        y1, y2 = data
        assume(naive_kappa(y1, y2, weights=weights) is not None)
        a = np.asarray(y1, dtype=np.int64) + shift
        b = np.asarray(y2, dtype=np.int64) + shift
        assert close(kappa_score(a, b, weights=weights), kappa_score(y1, y2, weights=weights))

    @settings(max_examples=100)
    @given(data=integer_ratings(), seed=st.integers(0, 2**32 - 1))
    def test_shift_invariance_custom_weights(self, data, seed):
        y1, y2 = data
        k = len(integer_scale(y1, y2))
        w = asymmetric_weights(k, np.random.default_rng(seed))
        assume(naive_kappa(y1, y2, weights=w) is not None)
        got = kappa_score(np.add(y1, 37), np.add(y2, 37), weights=w)
        assert close(got, kappa_score(y1, y2, weights=w))

    @settings(max_examples=100)
    @given(data=integer_ratings(), weighted=st.booleans())
    def test_quadratic_equals_soft_kappa_on_integers(self, data, weighted):
        y1, y2 = data
        sw = np.random.default_rng(SEED).uniform(0.5, 2.0, len(y1)) if weighted else None
        assume(naive_kappa(y1, y2, sample_weight=sw) is not None)
        assert close(
            kappa_score(y1, y2, sample_weight=sw),
            soft_kappa_score(y1, y2, sample_weight=sw),
            rtol=1e-9,
        )

    @settings(max_examples=100)
    @given(
        data=labelled_ratings(max_n=60),
        weights=st.sampled_from(NAMED),
        cuts=st.lists(st.integers(0, 60), max_size=4),
    )
    def test_chunks_summed_equal_whole(self, data, weights, cuts):
        labels, y1, y2, sw = data
        expected = naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        assume(expected is not None)
        bounds = [0, *sorted(c for c in cuts if c <= len(y1)), len(y1)]
        acc = KappaAccumulator(labels, weights=weights)
        parts = []
        for lo, hi in itertools.pairwise(bounds):
            if hi <= lo:
                continue
            piece_sw = None if sw is None else sw[lo:hi]
            assume(piece_sw is None or sum(piece_sw) > 0)
            acc.update(y1[lo:hi], y2[lo:hi], sample_weight=piece_sw)
            part = KappaAccumulator(labels, weights=weights)
            part.update(y1[lo:hi], y2[lo:hi], sample_weight=piece_sw)
            parts.append(part)
        whole = kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        assert close(acc.score(), whole)
        merged = parts[0]
        for p in parts[1:]:
            merged = merged.merge(p)
        assert close(merged.score(), whole)
        table = sum(
            confusion_matrix(y1[lo:hi], y2[lo:hi], labels=labels)
            for lo, hi in itertools.pairwise(bounds)
            if hi > lo
        )
        if sw is None:
            assert close(kappa_from_confusion(table, weights=weights), whole)

    # ------------------------------------------------------------------ exactness

    @pytest.mark.parametrize(
        ("lo", "hi", "n"),
        [
            pytest.param(-(2**40), 2**40, 2000, id="pm2^40"),
            pytest.param(0, 2**62, 2000, id="0..2^62"),
            pytest.param(-(2**63), 2**63 - 1, 2000, id="full-int64"),
            pytest.param(2**62, 2**62 + 9, 3000, id="offset-2^62-small-span"),
            pytest.param(-(2**63), -(2**63) + 4, 3000, id="near-int64-min"),
            pytest.param(3 * 10**9, 3 * 10**9 + 10, 200_000, id="sums-overflow-shifted"),
            pytest.param(0, 2**31, 50_000, id="squares-overflow"),
        ],
    )
    def test_quadratic_exact_for_huge_values(self, lo, hi, n):
        rng = np.random.default_rng(SEED)
        a = rng.integers(lo, hi, n, dtype=np.int64, endpoint=True)
        b = rng.integers(lo, hi, n, dtype=np.int64, endpoint=True)
        # Correlate the raters a little so the value is not ~0.
        b[: n // 2] = a[: n // 2]
        a[0], b[1] = lo, hi  # extremes are present
        expected = exact_quadratic_kappa(a.tolist(), b.tolist())
        assert kappa_score(a, b) == float(expected)
        assert kappa_score(b, a) == float(expected)

    def test_quadratic_exact_extreme_pairs(self):
        lo, hi = -(2**63), 2**63 - 1
        cases = [
            ([lo, hi], [hi, lo]),
            ([lo, hi, 0], [lo, hi, 0]),
            ([lo, lo, hi, 0, 1], [lo, hi, hi, 1, 0]),
            ([hi] * 5 + [hi - 1], [hi - 1] * 3 + [hi] * 3),
        ]
        for y1, y2 in cases:
            expected = exact_quadratic_kappa(y1, y2)
            a, b = np.array(y1, dtype=np.int64), np.array(y2, dtype=np.int64)
            assert kappa_score(a, b) == float(expected), (y1, y2)
            assert kappa_score(y1, y2) == float(expected), (y1, y2)  # Python int lists

    def test_quadratic_exact_uint64_near_int64_max(self):
        a = np.array([2**63 - 1, 0, 2**62, 5], dtype=np.uint64)
        b = np.array([2**63 - 2, 1, 2**62 + 3, 5], dtype=np.uint64)
        assert kappa_score(a, b) == float(exact_quadratic_kappa(a.tolist(), b.tolist()))

    def test_quadratic_exact_large_n_is_rounded_once(self):
        # 10**6 items on 10 classes: the result must be the correctly rounded rational.
        rng = np.random.default_rng(SEED)
        a = rng.integers(0, 10, 1_000_000)
        b = np.clip(a + rng.integers(-2, 3, a.size), 0, 9)
        n = a.size
        ai, bi = a.astype(object), b.astype(object)
        sa, sb = int(ai.sum()), int(bi.sum())
        saa, sbb, sab = int((ai * ai).sum()), int((bi * bi).sum()), int((ai * bi).sum())
        expected = Fraction(2 * (n * sab - sa * sb), n * (saa + sbb) - 2 * sa * sb)
        assert kappa_score(a, b) == float(expected)

    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity"])
    @pytest.mark.parametrize("weighted", [False, True])
    def test_huge_scale_small_memory(self, weights, weighted):
        # Ratings 0 and 10**12 (and a few in between): nothing may be allocated in
        # proportion to the width of the scale.
        rng = np.random.default_rng(SEED)
        values = np.array([0, 1, 7, 10**6, 10**12], dtype=np.int64)
        a = rng.choice(values, 2000)
        b = np.where(rng.random(2000) < 0.6, a, rng.choice(values, 2000))
        sw = rng.uniform(0.0, 2.0, 2000) if weighted else None
        expected = as_float(naive_kappa_on_values(a, b, weights=weights, sample_weight=sw))
        kappa_score(a, b, weights=weights, sample_weight=sw)  # warm up (numba compile)
        tracemalloc.start()
        try:
            got = kappa_score(a, b, weights=weights, sample_weight=sw)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 8 * 2**20, f"peak {peak / 2**20:.1f} MiB"
        assert close(got, expected, rtol=1e-9), (got, expected)

    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity"])
    @pytest.mark.parametrize("weighted", [False, True])
    @pytest.mark.parametrize("span", [1500, 10**9, 2**62])
    def test_wide_integer_range_matches_value_oracle(self, weights, weighted, span):
        # Scales wider than any dense table, computed over the distinct values only.
        rng = np.random.default_rng(SEED)
        a = rng.integers(-span // 2, span // 2, 60)
        b = np.where(rng.random(60) < 0.5, a, rng.integers(-span // 2, span // 2, 60))
        a[0], b[0] = -span // 2, span // 2 - 1  # the full width is used
        sw = rng.uniform(0.0, 2.0, 60) if weighted else None
        expected = as_float(naive_kappa_on_values(a, b, weights=weights, sample_weight=sw))
        got = kappa_score(a, b, weights=weights, sample_weight=sw)
        assert close(got, expected, rtol=1e-9), (got, expected)

    # ------------------------------------------------------------------ undefined kappa

    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity", None, "custom"])
    @pytest.mark.parametrize("weighted", [False, True])
    @pytest.mark.parametrize("labels", [None, [1, 2, 3], [3, 1, 2]])
    def test_undefined_both_raters_constant(self, weights, weighted, labels):
        y = [3] * 10
        w = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0]], float) if weights == "custom" else weights
        if w is not None and not isinstance(w, str) and labels is None:
            w = np.zeros((1, 1))
        sw = np.linspace(0.5, 1.5, 10) if weighted else None
        with pytest.warns(UndefinedKappaWarning) as record:
            got = kappa_score(y, y, weights=w, labels=labels, sample_weight=sw)
        assert math.isnan(got)
        assert record[0].filename == __file__  # stacklevel points at the caller
        with pytest.warns(UndefinedKappaWarning):
            got = kappa_score(
                y, y, weights=w, labels=labels, sample_weight=sw, replace_undefined_by=0.0
            )
        assert got == 0.0
        assert type(got) is float
        with pytest.warns(UndefinedKappaWarning):
            got = kappa_score(
                y, y, weights=w, labels=labels, sample_weight=sw, replace_undefined_by=0
            )
        assert type(got) is float

    def test_undefined_huge_scale_and_single_item(self):
        with pytest.warns(UndefinedKappaWarning):
            assert math.isnan(kappa_score([10**12] * 3, [10**12] * 3, weights="linear"))
        with pytest.warns(UndefinedKappaWarning):
            assert kappa_score([4], [4], replace_undefined_by=-1.0) == -1.0

    def test_all_zero_custom_weights_undefined(self):
        with pytest.warns(UndefinedKappaWarning):
            got = kappa_score([0, 1, 2], [2, 1, 0], weights=np.zeros((3, 3)))
        assert math.isnan(got)

    def test_constant_but_different_raters_is_defined(self):
        # Rater 1 always 1, rater 2 always 3: expected disagreement > 0, kappa = 0.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert kappa_score([1] * 5, [3] * 5) == 0.0
            assert kappa_score([1] * 5, [3] * 5, weights="linear") == 0.0

    def test_perfect_agreement(self):
        rng = np.random.default_rng(SEED)
        y = rng.integers(0, 5, 100)
        for weights in NAMED:
            assert kappa_score(y, y, weights=weights) == 1.0
            assert kappa_score(y, y.copy(), weights=weights, sample_weight=np.ones(100)) == 1.0


# ============================================================================ from confusion

SEED003_TABLES = [
    # Seed 003 (Steele 2016), §3.1 "Prediction 1": κ₁ = 0.9464.
    ([[100, 0, 0, 0], [30, 70, 0, 0], [0, 0, 70, 30], [0, 0, 0, 100]], 0.9464, 4),
    # Seed 003, §3.1 "Prediction 2": κ₂ = 0.9400.
    ([[90, 10, 0, 0], [10, 80, 10, 0], [0, 10, 80, 10], [0, 0, 10, 90]], 0.9400, 4),
    # Seed 003, §3.2 "Prediction 1": κ₁ = 0.960.
    ([[95, 5, 0, 0], [5, 85, 10, 0], [0, 10, 85, 5], [0, 0, 5, 95]], 0.960, 3),
    # Seed 003, §3.2 "Prediction 2": κ₂ = 0.948. As printed: the last row sums to 102.
    ([[95, 3, 2, 0], [3, 92, 3, 2], [2, 3, 90, 3], [0, 2, 5, 95]], 0.948, 3),
]


class TestKappaFromConfusion:
    def test_tiny_float_table(self):
        # Products of tiny proportions must not underflow into a fake 0/0.
        assert kappa_from_confusion([[0, 0], [3.7e-200, 0]]) == 0.0
        table = np.array([[5.0, 2.0], [1.0, 6.0]])
        assert close(kappa_from_confusion(table * 1e-300), kappa_from_confusion(table))

    @pytest.mark.parametrize(("table", "published", "digits"), SEED003_TABLES)
    def test_seed003_tables(self, table, published, digits):
        got = kappa_from_confusion(table)
        assert round(got, digits) == published
        assert got == pytest.approx(float(naive_kappa_from_confusion(table)), rel=1e-13)
        assert type(got) is float

    def test_seed004_matrix_o(self):
        # Seed 004, Step 1 "Matrix O" (rows actuals, columns preds) → 0.318182 (Out[27]).
        o = [[1, 0, 0, 0, 0], [0, 3, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [2, 0, 0, 0, 2]]
        assert kappa_from_confusion(o) == pytest.approx(0.31818181818181823, rel=1e-13)

    def test_sklearn_artstein_poesio_tables(self):
        # sklearn test_cohen_kappa, Artstein & Poesio (2008) Table 1: [[20, 20], [10, 50]].
        assert kappa_from_confusion([[20, 20], [10, 50]], weights=None) == pytest.approx(
            0.348, abs=5e-4
        )

    @settings(max_examples=150)
    @given(
        k=st.integers(1, 6),
        data=st.data(),
        weights=st.sampled_from(["quadratic", "linear", "identity", None, "custom"]),
        as_float_table=st.booleans(),
    )
    def test_matches_naive(self, k, data, weights, as_float_table):
        cells = (
            st.one_of(st.just(0.0), st.floats(1e-3, 50)) if as_float_table else st.integers(0, 30)
        )
        table = np.array(
            data.draw(st.lists(cells, min_size=k * k, max_size=k * k)), dtype=float
        ).reshape(k, k)
        if not as_float_table:
            table = table.astype(np.int64)
        assume(table.sum() > 0)
        if weights == "custom":
            weights = asymmetric_weights(k, np.random.default_rng(k))
        expected = naive_kappa_from_confusion(table, weights)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                assert math.isnan(kappa_from_confusion(table, weights=weights))
        else:
            got = kappa_from_confusion(table, weights=weights)
            assert close(got, float(expected)), (got, float(expected))

    @settings(max_examples=100)
    @given(data=labelled_ratings(sorted_labels=True), weights=st.sampled_from(NAMED))
    def test_equals_kappa_score_of_its_ratings(self, data, weights):
        labels, y1, y2, sw = data
        expected = naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        assume(expected is not None)
        table = confusion_matrix(y1, y2, labels=labels, sample_weight=sw)
        assert close(
            kappa_from_confusion(table, weights=weights),
            kappa_score(y1, y2, weights=weights, labels=labels, sample_weight=sw),
        )

    @pytest.mark.parametrize("weights", NAMED)
    def test_transpose_symmetry_and_scaling(self, weights):
        rng = np.random.default_rng(SEED)
        table = rng.integers(0, 20, (5, 5))
        got = kappa_from_confusion(table, weights=weights)
        assert close(kappa_from_confusion(table.T, weights=weights), got)
        # Integer weights = repeated rows: a table times 3 is the same kappa.
        assert close(kappa_from_confusion(3 * table, weights=weights), got)
        assert close(kappa_from_confusion(0.25 * table, weights=weights), got)
        assert close(kappa_from_confusion(table / table.sum(), weights=weights), got)

    def test_asymmetric_transpose(self):
        rng = np.random.default_rng(SEED)
        table = rng.integers(0, 20, (4, 4))
        w = asymmetric_weights(4, rng)
        assert close(
            kappa_from_confusion(table.T, weights=w.T), kappa_from_confusion(table, weights=w)
        )

    def test_input_types(self):
        table = [[5, 2, 0], [1, 6, 2], [0, 1, 7]]
        expected = float(naive_kappa_from_confusion(table))
        for conv in (
            np.array,
            lambda t: np.array(t, dtype=np.int8),
            lambda t: np.array(t, dtype=np.uint32),
            lambda t: np.array(t, dtype=np.float32),
            lambda t: np.asfortranarray(t),
            lambda t: np.array(t).T.copy().T,
            lambda t: np.kron(np.array(t), np.ones((1, 1), int))[:, :],
            lambda t: np.pad(np.array(t), ((0, 0), (0, 3)))[:, :3],
            lambda t: np.repeat(np.repeat(np.array(t), 2, axis=0), 2, axis=1)[::2, ::2],
            lambda t: __import__("pandas").DataFrame(t),
        ):
            assert close(kappa_from_confusion(conv(table)), expected)

    def test_undefined(self):
        with pytest.warns(UndefinedKappaWarning) as record:
            assert math.isnan(kappa_from_confusion([[0, 0], [0, 9]]))
        assert record[0].filename == __file__
        with pytest.warns(UndefinedKappaWarning):
            assert kappa_from_confusion([[4]], replace_undefined_by=0.5) == 0.5
        with pytest.warns(UndefinedKappaWarning):
            assert (
                kappa_from_confusion(
                    [[1, 2], [3, 4]], weights=np.zeros((2, 2)), replace_undefined_by=1.0
                )
                == 1.0
            )

    def test_huge_counts(self):
        # Counts near 10**15 (e.g. n = 10**9 items in a few cells): float64 eq. 1 is still
        # accurate to ~1e-12.
        table = np.array([[10**15, 3 * 10**14], [2 * 10**14, 9 * 10**14]], dtype=np.int64)
        expected = float(naive_kappa_from_confusion(table, "identity"))
        assert close(kappa_from_confusion(table, weights="identity"), expected)


# ============================================================================ confusion_matrix


class TestConfusionMatrix:
    @settings(max_examples=100)
    @given(data=labelled_ratings())
    def test_matches_naive(self, data):
        labels, y1, y2, sw = data
        got = confusion_matrix(y1, y2, labels=labels, sample_weight=sw)
        expected = np.array(
            [[float(c) for c in row] for row in naive_confusion(y1, y2, labels, sw)]
        )
        assert got.shape == (len(labels), len(labels))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        assert got.dtype == (np.int64 if sw is None else np.float64)

    @settings(max_examples=100)
    @given(data=labelled_ratings())
    def test_matches_sklearn(self, data):
        from sklearn.metrics import confusion_matrix as sk_confusion

        labels, y1, y2, sw = data
        got = confusion_matrix(y1, y2, labels=labels, sample_weight=sw)
        np.testing.assert_allclose(
            got, sk_confusion(y1, y2, labels=labels, sample_weight=sw), rtol=1e-12
        )

    def test_integer_range_default(self):
        # DESIGN.md: labels None → every integer from min to max, absent ones included.
        got = confusion_matrix([1, 4, 4], [2, 4, 1])
        expected = np.zeros((4, 4), dtype=np.int64)
        expected[0, 1] = 1
        expected[3, 3] = 1
        expected[3, 0] = 1
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == np.int64

    def test_negative_and_shifted_range(self):
        rng = np.random.default_rng(SEED)
        y1, y2 = rng.integers(-7, 3, 50), rng.integers(-7, 3, 50)
        expected = naive_confusion(y1, y2, integer_scale(y1, y2))
        np.testing.assert_array_equal(confusion_matrix(y1, y2), np.array(expected, dtype=int))

    def test_strings_sorted_and_labelled(self):
        y1 = ["b", "a", "c", "c"]
        y2 = ["a", "a", "c", "b"]
        np.testing.assert_array_equal(
            confusion_matrix(y1, y2), np.array(naive_confusion(y1, y2, ["a", "b", "c"]), int)
        )
        np.testing.assert_array_equal(
            confusion_matrix(y1, y2, labels=["c", "b", "a"]),
            np.array(naive_confusion(y1, y2, ["c", "b", "a"]), int),
        )

    def test_bools_and_containers(self):
        import pandas as pd
        import polars as pl

        y1 = [True, False, True, True]
        y2 = [True, True, False, True]
        expected = np.array([[0, 1], [1, 2]])
        for conv in (list, np.array, pd.Series, pl.Series):
            np.testing.assert_array_equal(confusion_matrix(conv(y1), conv(y2)), expected)

    def test_rows_are_y1(self):
        got = confusion_matrix([0, 0, 0], [1, 1, 0])
        np.testing.assert_array_equal(got, [[1, 2], [0, 0]])

    def test_too_wide_range_needs_labels(self):
        with pytest.raises(ValueError, match="`labels`"):
            confusion_matrix([0, 10**12], [0, 1])
        got = confusion_matrix([0, 10**12], [0, 1], labels=[0, 1, 10**12])
        np.testing.assert_array_equal(got, [[1, 0, 0], [0, 0, 0], [0, 1, 0]])


# ============================================================================ weight_matrix


class TestWeightMatrix:
    @pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
    @pytest.mark.parametrize("weights", NAMED)
    def test_matches_naive(self, k, weights):
        got = weight_matrix(k, weights)
        expected = np.array([[float(x) for x in row] for row in naive_weights(k, weights)])
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
        assert got.shape == (k, k)
        assert got.dtype == np.float64

    def test_default_is_quadratic(self):
        np.testing.assert_array_equal(weight_matrix(4), weight_matrix(4, "quadratic"))

    def test_seed004_weights(self):
        # Seed 004, Step 2 "weights matrix": w[i][j] = (i − j)²/16 for N = 5.
        expected = np.array(
            [
                [0.0, 0.0625, 0.25, 0.5625, 1.0],
                [0.0625, 0.0, 0.0625, 0.25, 0.5625],
                [0.25, 0.0625, 0.0, 0.0625, 0.25],
                [0.5625, 0.25, 0.0625, 0.0, 0.0625],
                [1.0, 0.5625, 0.25, 0.0625, 0.0],
            ]
        )
        np.testing.assert_array_equal(weight_matrix(5), expected)

    def test_seed003_weights(self):
        # Seed 003, §3.2, the four-category weight matrix printed to two decimals.
        printed = [
            [0, 0.11, 0.44, 1],
            [0.11, 0, 0.11, 0.44],
            [0.44, 0.11, 0, 0.11],
            [1, 0.44, 0.11, 0],
        ]
        np.testing.assert_allclose(weight_matrix(4, "quadratic"), printed, atol=0.005)

    def test_custom_matrix_is_validated_copy(self):
        w = np.arange(9, dtype=np.int64).reshape(3, 3)
        got = weight_matrix(3, w)
        np.testing.assert_array_equal(got, w)
        assert got.dtype == np.float64
        got[0, 0] = 99.0
        assert w[0, 0] == 0
        wf = np.ones((3, 3))
        out = weight_matrix(3, wf)
        out[1, 1] = 5.0
        assert wf[1, 1] == 1.0

    def test_numpy_integer_n_classes(self):
        np.testing.assert_array_equal(weight_matrix(np.int64(3)), weight_matrix(3))


# ============================================================================ soft kappa


class TestSoftKappaScore:
    def test_huge_values_do_not_overflow(self):
        y, f = np.array([1.0, 2.0, 3.0]), np.array([1.1, 2.0, 2.9])
        assert close(soft_kappa_score(y * 1e160, f * 1e160), soft_kappa_score(y, f))

    def test_docstring_value(self):
        y, f = [1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6]
        got = soft_kappa_score(y, f)
        assert close(got, float(naive_soft_kappa(y, f)), rtol=1e-14)
        assert type(got) is float

    @settings(max_examples=150)
    @given(
        n=st.integers(2, 30),
        data=st.data(),
        weighted=st.booleans(),
    )
    def test_matches_naive(self, n, data, weighted):
        reals = st.floats(-100, 100, allow_subnormal=False)
        y = data.draw(st.lists(reals, min_size=n, max_size=n))
        f = data.draw(st.lists(reals, min_size=n, max_size=n))
        sw = data.draw(st.lists(st.floats(0.01, 5), min_size=n, max_size=n)) if weighted else None
        expected = naive_soft_kappa(y, f, sw)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                assert math.isnan(soft_kappa_score(y, f, sample_weight=sw))
            return
        # Near-degenerate denominators amplify rounding legitimately; keep well-posed data.
        assume(abs(float(expected)) < 1e6)
        got = soft_kappa_score(y, f, sample_weight=sw)
        assert close(got, float(expected), rtol=1e-9, atol=1e-9), (got, float(expected))

    @settings(max_examples=100)
    @given(
        n=st.integers(2, 25),
        data=st.data(),
        seed=st.integers(0, 2**32 - 1),
    )
    def test_invariances(self, n, data, seed):
        reals = st.floats(-50, 50, allow_subnormal=False)
        y = np.array(data.draw(st.lists(reals, min_size=n, max_size=n)))
        f = np.array(data.draw(st.lists(reals, min_size=n, max_size=n)))
        reps = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
        assume(reps.sum() > 0)
        ry, rf = np.repeat(y, reps), np.repeat(f, reps)
        expected = naive_soft_kappa(ry, rf)
        assume(expected is not None and abs(float(expected)) < 1e6)
        expected = float(expected)
        # Integer weights = repeated rows; zero weights = dropped rows.
        assert close(soft_kappa_score(y, f, sample_weight=reps), expected, rtol=1e-8, atol=1e-9)
        assert close(soft_kappa_score(ry, rf), expected, rtol=1e-8, atol=1e-9)
        # Unit weights = none; order invariance; symmetry.
        assert close(
            soft_kappa_score(ry, rf, sample_weight=np.ones(ry.size)), expected, rtol=1e-8, atol=1e-9
        )
        perm = np.random.default_rng(seed).permutation(ry.size)
        assert close(soft_kappa_score(ry[perm], rf[perm]), expected, rtol=1e-8, atol=1e-9)
        assert close(soft_kappa_score(rf, ry), expected, rtol=1e-8, atol=1e-9)

    @pytest.mark.parametrize("offset", [1e6, 1e9, -1e9, 1e12])
    def test_large_offset_accuracy(self, offset):
        rng = np.random.default_rng(SEED)
        base = rng.integers(0, 5, 500).astype(float)
        y = offset + base
        f = offset + base + rng.normal(0, 0.7, 500)
        expected = float(naive_soft_kappa(y, f))
        got = soft_kappa_score(y, f)
        assert close(got, expected, rtol=1e-10, atol=1e-12), (got, expected)
        sw = rng.uniform(0.1, 3.0, 500)
        expected_w = float(naive_soft_kappa(y, f, sw))
        assert close(soft_kappa_score(y, f, sample_weight=sw), expected_w, rtol=1e-10)

    def test_shift_invariance(self):
        rng = np.random.default_rng(SEED)
        y = rng.normal(0, 1, 200)
        f = y + rng.normal(0, 0.5, 200)
        assert close(soft_kappa_score(y + 1e9, f + 1e9), soft_kappa_score(y, f), rtol=1e-6)

    def test_integers_equal_kappa_score(self):
        rng = np.random.default_rng(SEED)
        y = rng.integers(1, 6, 300)
        f = np.clip(y + rng.integers(-1, 2, 300), 1, 5)
        assert close(soft_kappa_score(y, f), kappa_score(y, f), rtol=1e-12)

    def test_input_containers(self):
        import pandas as pd
        import polars as pl

        y = [1.0, 2.0, 3.0, 4.0, 2.0]
        f = [1.5, 2.5, 2.5, 3.5, 2.0]
        expected = float(naive_soft_kappa(y, f))
        for conv in (
            list,
            tuple,
            np.array,
            pd.Series,
            pl.Series,
            lambda v: np.asarray(v, np.float32),
            lambda v: np.repeat(v, 2)[::2],
        ):
            assert close(soft_kappa_score(conv(y), conv(f)), expected, rtol=1e-7)

    def test_undefined(self):
        with pytest.warns(UndefinedKappaWarning) as record:
            assert math.isnan(soft_kappa_score([2.5, 2.5], [2.5, 2.5]))
        assert record[0].filename == __file__

    def test_undefined_weighted_constant(self):
        # Both raters constant and equal is 0/0 whatever the weights; rounding noise in a
        # weighted mean must not turn it into a number (found by Hypothesis).
        y = [0.01] * 13
        sw = [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.01, 1.0, 1.0, 0.5, 0.01171875, 0.01171875]
        assert naive_soft_kappa(y, y, sw) is None
        with pytest.warns(UndefinedKappaWarning):
            assert math.isnan(soft_kappa_score(y, y, sample_weight=sw))

    def test_perfect(self):
        y = [0.1, 0.7, 3.3]
        assert soft_kappa_score(y, y) == pytest.approx(1.0, rel=1e-15)


# ============================================================================ accumulator


class TestKappaAccumulator:
    def test_empty_and_zero_weight_batches_add_nothing(self):
        acc = KappaAccumulator(labels=[1, 2, 3])
        acc.update([], [])
        acc.update([1, 2], [1, 3], sample_weight=[0, 0])
        with pytest.raises(ValueError, match="positive weight"):
            acc.score()
        acc.update([1, 2, 3], [1, 2, 2])
        assert acc.score() == pytest.approx(kappa_score([1, 2, 3], [1, 2, 2]), rel=1e-14)

    def test_seed004_in_pieces(self):
        # Seed 004's step-by-step example (0.318182), fed in three pieces.
        actuals = [4, 4, 3, 4, 4, 0, 1, 1, 2, 1]
        preds = [0, 4, 1, 0, 4, 0, 1, 1, 2, 1]
        acc = KappaAccumulator(labels=[0, 1, 2, 3, 4])
        for lo, hi in ((0, 3), (3, 4), (4, 10)):
            acc.update(actuals[lo:hi], preds[lo:hi])
        assert acc.score() == pytest.approx(0.3181818181818182, rel=1e-14)
        assert acc.n_samples == 10
        np.testing.assert_array_equal(acc.confusion, confusion_matrix(actuals, preds))
        assert type(acc.score()) is float

    @settings(max_examples=100)
    @given(
        data=labelled_ratings(max_n=50),
        weights=st.sampled_from(["quadratic", "linear", "identity", None, "custom"]),
        n_pieces=st.integers(1, 5),
    )
    def test_matches_naive(self, data, weights, n_pieces):
        labels, y1, y2, sw = data
        if weights == "custom":
            weights = asymmetric_weights(len(labels), np.random.default_rng(len(y1)))
        expected = naive_kappa(y1, y2, weights=weights, labels=labels, sample_weight=sw)
        acc = KappaAccumulator(labels, weights=weights)
        for idx in np.array_split(np.arange(len(y1)), n_pieces):
            if idx.size == 0:
                continue
            piece_sw = None if sw is None else np.asarray(sw)[idx]
            assume(piece_sw is None or piece_sw.sum() > 0)
            acc.update(np.asarray(y1)[idx], np.asarray(y2)[idx], sample_weight=piece_sw)
        if expected is None:
            with pytest.warns(UndefinedKappaWarning):
                assert math.isnan(acc.score())
        else:
            assert close(acc.score(), float(expected))
        assert acc.n_samples == len(y1)

    def test_mixed_weighted_and_unweighted_updates(self):
        labels = [0, 1, 2]
        acc = KappaAccumulator(labels)
        acc.update([0, 1, 2], [0, 2, 2])
        acc.update([2, 1], [1, 1], sample_weight=[0.5, 2.0])
        y1, y2 = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
        sw = [1, 1, 1, 0.5, 2.0]
        assert close(acc.score(), float(naive_kappa(y1, y2, labels=labels, sample_weight=sw)))
        assert acc.confusion.dtype == np.float64

    def test_merge_returns_self_and_adds(self):
        a = KappaAccumulator(["lo", "mid", "hi"], weights="linear")
        b = KappaAccumulator(["lo", "mid", "hi"], weights="linear")
        a.update(["lo", "hi"], ["lo", "mid"])
        b.update(["mid", "mid", "hi"], ["mid", "hi", "hi"])
        assert a.merge(b) is a
        y1, y2 = ["lo", "hi", "mid", "mid", "hi"], ["lo", "mid", "mid", "hi", "hi"]
        assert close(
            a.score(), float(naive_kappa(y1, y2, labels=["lo", "mid", "hi"], weights="linear"))
        )
        assert a.n_samples == 5
        assert b.n_samples == 3  # other is unchanged

    def test_confusion_is_a_copy(self):
        acc = KappaAccumulator([0, 1])
        acc.update([0, 1], [0, 1])
        c = acc.confusion
        c[0, 1] = 100
        np.testing.assert_array_equal(acc.confusion, [[1, 0], [0, 1]])
        assert acc.confusion.dtype == np.int64

    def test_labels_attribute(self):
        acc = KappaAccumulator([3, 1, 2])
        np.testing.assert_array_equal(acc.labels, [3, 1, 2])

    def test_undefined(self):
        acc = KappaAccumulator([0, 1, 2])
        acc.update([1, 1], [1, 1])
        with pytest.warns(UndefinedKappaWarning) as record:
            assert math.isnan(acc.score())
        assert record[0].filename == __file__
        with pytest.warns(UndefinedKappaWarning):
            assert acc.score(replace_undefined_by=0.0) == 0.0


# ============================================================================ bad input


def _bad(fn, *args, **kwargs):
    return (fn, args, kwargs)


nan, inf = float("nan"), float("inf")

BAD_INPUTS = [
    # ---------------------------------------------------------------- kappa_score
    (
        "ks-mismatched-lengths",
        _bad(kappa_score, [1, 2, 3], [1, 2]),
        ValueError,
        r"`y1`.*`y2`.*3.*2",
    ),
    ("ks-empty", _bad(kappa_score, [], []), ValueError, r"`y1`"),
    (
        "ks-empty-arrays",
        _bad(kappa_score, np.array([], int), np.array([], int)),
        ValueError,
        r"`y1`",
    ),
    ("ks-nan-y1", _bad(kappa_score, [1.0, nan, 2.0], [1, 2, 3]), ValueError, r"`y1`.*nan"),
    (
        "ks-nan-array-y2",
        _bad(kappa_score, [1, 2, 3], np.array([1.0, 2.0, nan])),
        ValueError,
        r"`y2`.*nan",
    ),
    ("ks-inf-y2", _bad(kappa_score, [1, 2, 3], [1.0, inf, 2.0]), ValueError, r"`y2`.*inf"),
    (
        "ks-nan-with-labels",
        _bad(kappa_score, [1.0, nan], [1, 2], labels=[1, 2]),
        ValueError,
        r"`y1`.*nan",
    ),
    (
        "ks-non-integral",
        _bad(kappa_score, [0.5, 1.0, 2.0], [1, 2, 3]),
        ValueError,
        r"`y1`.*soft_kappa_score",
    ),
    (
        "ks-non-integral-y2",
        _bad(kappa_score, [1, 2, 3], np.array([1.0, 2.25, 3.0])),
        ValueError,
        r"`y2`.*soft_kappa_score",
    ),
    (
        "ks-outside-labels-quadratic",
        _bad(kappa_score, [1, 2, 7], [1, 2, 3], labels=[1, 2, 3]),
        ValueError,
        r"`y1`.*7.*`labels`",
    ),
    (
        "ks-outside-labels-y2",
        _bad(kappa_score, [1, 2, 3], [0, 2, 3], labels=[1, 2, 3]),
        ValueError,
        r"`y2`.*0.*`labels`",
    ),
    (
        "ks-outside-labels-linear",
        _bad(kappa_score, [1, 2, 7], [1, 2, 3], labels=[1, 2, 3], weights="linear"),
        ValueError,
        r"`y1`.*7.*`labels`",
    ),
    (
        "ks-outside-labels-weighted",
        _bad(kappa_score, [1, 2, 3], [1, 9, 3], labels=[1, 2, 3], sample_weight=[1, 1, 1]),
        ValueError,
        r"`y2`.*9.*`labels`",
    ),
    (
        "ks-outside-labels-gapped",
        _bad(kappa_score, [1, 2, 5], [1, 3, 5], labels=[1, 3, 5]),
        ValueError,
        r"`y1`.*2.*`labels`",
    ),
    (
        "ks-outside-labels-str",
        _bad(kappa_score, ["a", "z"], ["a", "b"], labels=["a", "b"]),
        ValueError,
        r"`y1`.*'z'.*`labels`",
    ),
    (
        "ks-outside-labels-uint8",
        _bad(
            kappa_score, np.array([1, 255], np.uint8), np.array([1, 2], np.uint8), labels=[0, 1, 2]
        ),
        ValueError,
        r"`y1`.*255.*`labels`",
    ),
    (
        "ks-duplicate-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=[1, 2, 2, 3]),
        ValueError,
        r"`labels`.*2",
    ),
    (
        "ks-duplicate-str-labels",
        _bad(kappa_score, ["a"], ["a"], labels=["a", "b", "a"]),
        ValueError,
        r"`labels`.*'a'",
    ),
    ("ks-empty-labels", _bad(kappa_score, [1, 2], [1, 2], labels=[]), ValueError, r"`labels`"),
    (
        "ks-nan-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=[1.0, nan]),
        ValueError,
        r"`labels`",
    ),
    ("ks-2d-labels", _bad(kappa_score, [1, 2], [1, 2], labels=[[1, 2]]), ValueError, r"`labels`"),
    (
        "ks-unknown-weights",
        _bad(kappa_score, [1, 2], [1, 2], weights="cubic"),
        ValueError,
        r"`weights`.*cubic",
    ),
    (
        "ks-weights-case",
        _bad(kappa_score, [1, 2], [1, 2], weights="Quadratic"),
        ValueError,
        r"`weights`.*Quadratic",
    ),
    ("ks-weights-number", _bad(kappa_score, [1, 2], [1, 2], weights=2), TypeError, r"`weights`.*2"),
    (
        "ks-weights-wrong-k",
        _bad(kappa_score, [1, 2, 4], [1, 3, 4], weights=np.ones((3, 3))),
        ValueError,
        r"`weights`.*\(3, 3\)",
    ),
    (
        "ks-weights-wrong-k-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=[1, 2], weights=np.ones((3, 3))),
        ValueError,
        r"`weights`.*\(3, 3\)",
    ),
    (
        "ks-weights-non-square",
        _bad(kappa_score, [0, 1], [0, 1], weights=np.ones((2, 3))),
        ValueError,
        r"`weights`.*\(2, 3\)",
    ),
    (
        "ks-weights-1d",
        _bad(kappa_score, [0, 1], [0, 1], weights=[0.0, 1.0]),
        ValueError,
        r"`weights`",
    ),
    (
        "ks-weights-nan",
        _bad(kappa_score, [0, 1], [0, 1], weights=[[0, nan], [1, 0]]),
        ValueError,
        r"`weights`.*NaN",
    ),
    (
        "ks-weights-inf",
        _bad(kappa_score, [0, 1], [0, 1], weights=[[0, inf], [1, 0]]),
        ValueError,
        r"`weights`",
    ),
    (
        "ks-weights-negative",
        _bad(kappa_score, [0, 1], [0, 1], weights=[[0, -1], [1, 0]]),
        ValueError,
        r"`weights`.*-1",
    ),
    (
        "ks-weights-strings",
        _bad(kappa_score, [0, 1], [0, 1], weights=[["a", "b"], ["c", "d"]]),
        TypeError,
        r"`weights`",
    ),
    (
        "ks-sw-negative",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[1.0, -1.0]),
        ValueError,
        r"`sample_weight`.*-1",
    ),
    (
        "ks-sw-nan",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[1.0, nan]),
        ValueError,
        r"`sample_weight`.*nan",
    ),
    (
        "ks-sw-inf",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[inf, 1.0]),
        ValueError,
        r"`sample_weight`.*inf",
    ),
    (
        "ks-sw-missized",
        _bad(kappa_score, [0, 1, 2], [0, 1, 2], sample_weight=[1.0, 1.0]),
        ValueError,
        r"`sample_weight`.*3.*2",
    ),
    (
        "ks-sw-2d",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=np.ones((2, 1))),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "ks-sw-zero-sum",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[0.0, 0.0]),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "ks-sw-strings",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=["a", "b"]),
        TypeError,
        r"`sample_weight`",
    ),
    (
        "ks-sw-none-inside",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[1.0, None]),
        ValueError,
        r"`sample_weight`",
    ),
    ("ks-2d-y1", _bad(kappa_score, np.ones((3, 2)), np.ones(3)), ValueError, r"`y1`.*\(3, 2\)"),
    ("ks-2d-y2-list", _bad(kappa_score, [1, 2], [[1, 2], [3, 4]]), ValueError, r"`y2`"),
    ("ks-column-vector", _bad(kappa_score, np.ones((3, 1)), np.ones((3, 1))), ValueError, r"`y1`"),
    ("ks-scalar", _bad(kappa_score, 3, 3), (ValueError, TypeError), r"`y1`"),
    ("ks-none", _bad(kappa_score, None, [1]), TypeError, r"`y1`"),
    ("ks-string-not-array", _bad(kappa_score, "1234", "1234"), TypeError, r"`y1`"),
    ("ks-mixed-str-num", _bad(kappa_score, [1, "a", 2], [1, 2, 3]), TypeError, r"`y1`.*'a'"),
    (
        "ks-mixed-str-num-y2",
        _bad(kappa_score, ["a", "b"], ["a", 3], labels=["a", "b"]),
        TypeError,
        r"`y2`",
    ),
    ("ks-str-vs-num", _bad(kappa_score, ["a", "b"], [1, 2]), TypeError, r"`y1`.*`y2`"),
    (
        "ks-str-y-num-labels",
        _bad(kappa_score, ["a", "b"], ["a", "b"], labels=[1, 2]),
        TypeError,
        r"`labels`",
    ),
    (
        "ks-num-y-str-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=["a", "b"]),
        TypeError,
        r"`labels`",
    ),
    ("ks-none-inside", _bad(kappa_score, [1, None, 2], [1, 2, 3]), ValueError, r"`y1`.*None"),
    (
        "ks-none-inside-y2",
        _bad(kappa_score, [1, 2, 3], ["a", None, "b"]),
        (ValueError, TypeError),
        r"`y2`",
    ),
    ("ks-nan-in-list", _bad(kappa_score, [1, 2], [1, float("nan")]), ValueError, r"`y2`"),
    (
        "ks-pandas-na",
        _bad(kappa_score, pd.Series([1, None, 3], dtype="Int64"), [1, 2, 3]),
        ValueError,
        r"`y1`",
    ),
    ("ks-polars-null", _bad(kappa_score, [1, 2, 3], pl.Series([1, None, 3])), ValueError, r"`y2`"),
    (
        "ks-datetime",
        _bad(kappa_score, np.array(["2020-01-01"], dtype="datetime64[D]"), [1]),
        TypeError,
        r"`y1`",
    ),
    ("ks-bytes-scalar", _bad(kappa_score, b"12", b"12"), TypeError, r"`y1`"),
    ("ks-complex", _bad(kappa_score, np.array([1j, 2j]), [1, 2]), TypeError, r"`y1`"),
    ("ks-object-junk", _bad(kappa_score, [object(), object()], [1, 2]), TypeError, r"`y1`"),
    ("ks-huge-python-int", _bad(kappa_score, [2**70, 1], [1, 2]), ValueError, r"`y1`"),
    (
        "ks-replace-str",
        _bad(kappa_score, [1, 2], [1, 2], replace_undefined_by="zero"),
        TypeError,
        r"`replace_undefined_by`",
    ),
    # ---------------------------------------------------------------- kappa_from_confusion
    ("kc-negative", _bad(kappa_from_confusion, [[1, -1], [2, 3]]), ValueError, r"`confusion`.*-1"),
    (
        "kc-non-square",
        _bad(kappa_from_confusion, np.ones((2, 3))),
        ValueError,
        r"`confusion`.*\(2, 3\)",
    ),
    (
        "kc-nan",
        _bad(kappa_from_confusion, [[1.0, nan], [2.0, 3.0]]),
        ValueError,
        r"`confusion`.*NaN",
    ),
    ("kc-inf", _bad(kappa_from_confusion, [[1.0, inf], [2.0, 3.0]]), ValueError, r"`confusion`"),
    ("kc-1d", _bad(kappa_from_confusion, [1, 2, 3, 4]), ValueError, r"`confusion`"),
    ("kc-3d", _bad(kappa_from_confusion, np.ones((2, 2, 2))), ValueError, r"`confusion`"),
    ("kc-empty", _bad(kappa_from_confusion, np.zeros((0, 0))), ValueError, r"`confusion`"),
    ("kc-all-zero", _bad(kappa_from_confusion, np.zeros((3, 3))), ValueError, r"`confusion`"),
    ("kc-strings", _bad(kappa_from_confusion, [["a", "b"], ["c", "d"]]), TypeError, r"`confusion`"),
    ("kc-none", _bad(kappa_from_confusion, None), TypeError, r"`confusion`"),
    (
        "kc-ragged",
        _bad(kappa_from_confusion, [[1, 2], [3]]),
        (TypeError, ValueError),
        r"`confusion`",
    ),
    ("kc-complex", _bad(kappa_from_confusion, np.ones((2, 2)) * 1j), TypeError, r"`confusion`"),
    (
        "kc-weights-shape",
        _bad(kappa_from_confusion, np.ones((3, 3)), weights=np.ones((2, 2))),
        ValueError,
        r"`weights`.*\(2, 2\)",
    ),
    (
        "kc-weights-unknown",
        _bad(kappa_from_confusion, np.ones((3, 3)), weights="squared"),
        ValueError,
        r"`weights`.*squared",
    ),
    (
        "kc-weights-nan",
        _bad(kappa_from_confusion, np.ones((2, 2)), weights=[[0.0, nan], [1.0, 0.0]]),
        ValueError,
        r"`weights`",
    ),
    (
        "kc-replace-none",
        _bad(kappa_from_confusion, np.ones((2, 2)), replace_undefined_by=None),
        TypeError,
        r"`replace_undefined_by`",
    ),
    # ---------------------------------------------------------------- confusion_matrix
    ("cm-mismatched", _bad(confusion_matrix, [1, 2], [1]), ValueError, r"`y1`.*`y2`"),
    ("cm-empty", _bad(confusion_matrix, [], []), ValueError, r"`y1`"),
    ("cm-nan", _bad(confusion_matrix, [1.0, nan], [1, 2]), ValueError, r"`y1`"),
    ("cm-non-integral", _bad(confusion_matrix, [1.5, 2.0], [1, 2]), ValueError, r"`y1`"),
    (
        "cm-outside-labels",
        _bad(confusion_matrix, [1, 4], [1, 2], labels=[1, 2, 3]),
        ValueError,
        r"`y1`.*4.*`labels`",
    ),
    (
        "cm-outside-labels-weighted",
        _bad(confusion_matrix, [1, 2], [1, 4], labels=[1, 2, 3], sample_weight=[1.0, 2.0]),
        ValueError,
        r"`y2`.*4.*`labels`",
    ),
    (
        "cm-duplicate-labels",
        _bad(confusion_matrix, [1], [1], labels=[1, 1]),
        ValueError,
        r"`labels`",
    ),
    (
        "cm-sw-negative",
        _bad(confusion_matrix, [1, 2], [1, 2], sample_weight=[-1, 1]),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "cm-sw-missized",
        _bad(confusion_matrix, [1, 2], [1, 2], sample_weight=[1]),
        ValueError,
        r"`sample_weight`",
    ),
    ("cm-2d", _bad(confusion_matrix, np.ones((2, 2)), np.ones((2, 2))), ValueError, r"`y1`"),
    ("cm-mixed", _bad(confusion_matrix, [1, "a"], [1, 2]), TypeError, r"`y1`"),
    ("cm-none-inside", _bad(confusion_matrix, [1, 2], [None, 2]), ValueError, r"`y2`"),
    # ---------------------------------------------------------------- weight_matrix
    ("wm-zero", _bad(weight_matrix, 0), ValueError, r"`n_classes`.*0"),
    ("wm-negative", _bad(weight_matrix, -3), ValueError, r"`n_classes`.*-3"),
    ("wm-float", _bad(weight_matrix, 2.5), TypeError, r"`n_classes`.*2\.5"),
    ("wm-str", _bad(weight_matrix, "3"), TypeError, r"`n_classes`"),
    ("wm-bool", _bad(weight_matrix, True), TypeError, r"`n_classes`"),
    ("wm-unknown", _bad(weight_matrix, 3, "cubic"), ValueError, r"`weights`.*cubic"),
    ("wm-shape", _bad(weight_matrix, 3, np.ones((2, 2))), ValueError, r"`weights`"),
    ("wm-non-square", _bad(weight_matrix, 2, np.ones((2, 3))), ValueError, r"`weights`"),
    ("wm-nan", _bad(weight_matrix, 2, [[0, nan], [1, 0]]), ValueError, r"`weights`"),
    # ---------------------------------------------------------------- soft_kappa_score
    (
        "sk-mismatched",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0]),
        ValueError,
        r"`y_true`.*`y_score`.*2.*1",
    ),
    ("sk-empty", _bad(soft_kappa_score, [], []), ValueError, r"`y_true`"),
    ("sk-nan", _bad(soft_kappa_score, [1.0, 2.0], [1.0, nan]), ValueError, r"`y_score`.*nan"),
    ("sk-inf", _bad(soft_kappa_score, [1.0, -inf], [1.0, 2.0]), ValueError, r"`y_true`.*inf"),
    ("sk-strings", _bad(soft_kappa_score, ["a", "b"], [1.0, 2.0]), TypeError, r"`y_true`"),
    ("sk-2d", _bad(soft_kappa_score, np.ones((2, 2)), np.ones((2, 2))), ValueError, r"`y_true`"),
    ("sk-none-inside", _bad(soft_kappa_score, [1.0, None], [1.0, 2.0]), ValueError, r"`y_true`"),
    ("sk-mixed", _bad(soft_kappa_score, [1.0, 2.0], [1.0, "x"]), TypeError, r"`y_score`"),
    (
        "sk-sw-negative",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0, 2.0], sample_weight=[1, -2]),
        ValueError,
        r"`sample_weight`.*-2",
    ),
    (
        "sk-sw-nan",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0, 2.0], sample_weight=[nan, 1]),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "sk-sw-missized",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0, 2.0], sample_weight=[1.0]),
        ValueError,
        r"`sample_weight`",
    ),
    # ---------------------------------------------------------------- KappaAccumulator
    ("acc-labels-none", _bad(KappaAccumulator, None), TypeError, r"`labels`"),
    ("acc-duplicate-labels", _bad(KappaAccumulator, [1, 2, 1]), ValueError, r"`labels`"),
    ("acc-empty-labels", _bad(KappaAccumulator, []), ValueError, r"`labels`"),
    (
        "acc-unknown-weights",
        _bad(KappaAccumulator, [1, 2], weights="cubic"),
        ValueError,
        r"`weights`.*cubic",
    ),
    (
        "acc-weights-shape",
        _bad(KappaAccumulator, [1, 2], weights=np.ones((3, 3))),
        ValueError,
        r"`weights`",
    ),
    ("acc-too-many-labels", _bad(KappaAccumulator, np.arange(20_001)), ValueError, r"`labels`"),
    (
        "acc-weights-nan",
        _bad(KappaAccumulator, [1, 2], weights=[[0, nan], [1, 0]]),
        ValueError,
        r"`weights`",
    ),
]


def _accumulator_bad_calls():
    def update_outside():
        acc = KappaAccumulator([1, 2, 3])
        acc.update([1, 5], [1, 2])

    def update_mismatched():
        KappaAccumulator([1, 2, 3]).update([1, 2], [1])

    def update_nan():
        KappaAccumulator([1, 2, 3]).update([1.0, nan], [1, 2])

    def update_sw_negative():
        KappaAccumulator([1, 2, 3]).update([1, 2], [1, 2], sample_weight=[1, -1])

    def update_mixed():
        KappaAccumulator([1, 2, 3]).update([1, "a"], [1, 2])

    def merge_wrong_type():
        KappaAccumulator([1, 2]).merge([[1, 0], [0, 1]])

    def merge_other_labels():
        KappaAccumulator([1, 2]).merge(KappaAccumulator([1, 2, 3]))

    def merge_other_weights():
        KappaAccumulator([1, 2, 3]).merge(KappaAccumulator([1, 2, 3], weights="linear"))

    def score_empty():
        KappaAccumulator([1, 2]).score()

    return [
        ("acc-update-outside", _bad(update_outside), ValueError, r"`y1`.*5.*`labels`"),
        ("acc-update-mismatched", _bad(update_mismatched), ValueError, r"`y1`.*`y2`"),
        ("acc-update-nan", _bad(update_nan), ValueError, r"`y1`"),
        ("acc-update-sw", _bad(update_sw_negative), ValueError, r"`sample_weight`"),
        ("acc-update-mixed", _bad(update_mixed), TypeError, r"`y1`"),
        ("acc-merge-type", _bad(merge_wrong_type), TypeError, r"`other`"),
        ("acc-merge-labels", _bad(merge_other_labels), ValueError, r"`other`"),
        ("acc-merge-weights", _bad(merge_other_weights), ValueError, r"`other`.*`weights`"),
        ("acc-score-empty", _bad(score_empty), ValueError, r"`update`"),
    ]


ALL_BAD = BAD_INPUTS + _accumulator_bad_calls()


class TestBadInput:
    """Issue 2, "Bad input": a ValueError/TypeError naming the parameter, from our code."""

    @pytest.mark.parametrize(
        ("call", "exc", "pattern"), [case[1:] for case in ALL_BAD], ids=[c[0] for c in ALL_BAD]
    )
    def test_raises_named_error(self, call, exc, pattern):
        fn, args, kwargs = call
        with pytest.raises(exc, match=pattern) as info:
            fn(*args, **kwargs)
        error = info.value
        # Ours, not numba's or numpy's: a built-in ValueError/TypeError (or a qwkit
        # subclass), raised from a qwkit module outside the numba kernels.
        assert type(error).__module__ in ("builtins",) or type(error).__module__.startswith(
            "qwkit"
        ), type(error)
        frame = info.traceback[-1]
        where = str(frame.path)
        assert "qwkit" in where and "_kernels" not in where and "numba" not in where, where
        assert "`" in str(error)


# ============================================================================ import hygiene


def test_import_qwkit_loads_no_optional_dependency():
    heavy = [
        "sklearn",
        "lightgbm",
        "xgboost",
        "qwkit.lightgbm",
        "qwkit.xgboost",
        "torch",
        "dask",
        "typer",
        "matplotlib",
        "pandas",
        "polars",
        "rich",
    ]
    code = (
        "import sys, qwkit\n"
        f"heavy = {heavy!r}\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=pathlib.Path(__file__).parent,
    )
    assert out.stdout.strip() == "", f"import qwkit loaded: {out.stdout.strip()}"


def test_public_names():
    for name in (
        "kappa_score",
        "kappa_from_confusion",
        "confusion_matrix",
        "weight_matrix",
        "soft_kappa_score",
        "KappaAccumulator",
        "UndefinedKappaWarning",
    ):
        assert name in qwkit.__all__
        assert getattr(qwkit, name) is not None
    assert issubclass(UndefinedKappaWarning, Warning)


# ============================================================================ review findings
# Hostile inputs found by an adversarial review; each test pins the fixed behaviour.


class TestScaleInvariance:
    """Kappa does not change when every sample weight (or table entry) is scaled."""

    @pytest.mark.parametrize("factor", [1e-320, 1e-200, 1e-160, 1e160, 1e200])
    @pytest.mark.parametrize("weights", ["quadratic", "linear", None])
    def test_sample_weight_scale(self, factor, weights):
        y1, y2, w = [0, 1, 2, 1, 2, 0], [0, 1, 1, 2, 2, 2], np.array([1, 1, 1, 1, 2, 3.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # building 1e-320 itself is fine
            scaled = w * factor
        expected = kappa_score(y1, y2, weights=weights, sample_weight=w)
        got = kappa_score(y1, y2, weights=weights, sample_weight=scaled)
        assert got == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("factor", [1e-160, 1e160])
    def test_sample_weight_scale_wide_scale(self, factor):
        # ratings 0..5000: the table-free path
        y1, y2, w = [0, 5000, 2, 1], [0, 1, 5000, 2], np.array([1.0, 1, 1, 2])
        expected = kappa_score(y1, y2, weights="linear", sample_weight=w)
        got = kappa_score(y1, y2, weights="linear", sample_weight=w * factor)
        assert got == pytest.approx(expected, rel=1e-12)

    def test_subnormal_and_huge_tables(self):
        assert kappa_from_confusion([[1e-320, 1e-320], [0, 1e-320]]) == pytest.approx(0.4)
        table = np.array([[10.0, 10.0], [1.0, 10.0]])
        expected = kappa_from_confusion(table)
        assert kappa_from_confusion(table * 1e307) == pytest.approx(expected, rel=1e-14)

    def test_int64_table_sum_does_not_wrap(self):
        # the int64 sum of this table wraps to 0: it must not be called "all zeros"
        table = np.array([[2**62, 2**61], [2**61, 2**62]])
        assert kappa_from_confusion(table) == pytest.approx(1 / 3)


class TestConstantRater:
    def test_kappa_is_exactly_zero(self):
        y1 = [0] * 14
        y2 = [2, 4, 2, 0, 2, 4, 0, 0, 3, 2, 2, 4, 4, 4]
        sw = [1, 1, 1, 0.1, 1, 2.7, 0.1, 1, 0.1, 2.7, 0.1, 0.1, 1, 0.3]
        for weights in ("linear", None, "quadratic"):
            assert kappa_score(y1, y2, weights=weights, sample_weight=sw) == 0.0
            assert kappa_score(y2, y1, weights=weights, sample_weight=sw) == 0.0


class TestLargeExplicitScales:
    def test_named_weights_need_no_table(self):
        # 8000 labels, 3 items: no 8000×8000 table (that would be 512 MB)
        tracemalloc.start()
        got = kappa_score([0, 1, 7999], [0, 2, 7998], labels=np.arange(8000), weights="linear")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert got == pytest.approx(kappa_score([0, 1, 7999], [0, 2, 7998], weights="linear"))
        assert peak < 8 * 2**20

    def test_ratings_outside_large_labels(self):
        with pytest.raises(ValueError, match="`y1` contains 8000, which is not in `labels`"):
            kappa_score([0, 1, 8000], [0, 2, 7998], labels=np.arange(8000), weights=None)

    def test_confusion_matrix_refuses_huge_labels(self):
        with pytest.raises(ValueError, match="`labels` has 50000 categories"):
            confusion_matrix([0, 1, 49999], [0, 2, 49998], labels=np.arange(50000))

    def test_weight_matrix_refuses_huge_n_classes(self):
        with pytest.raises(ValueError, match="`n_classes` must be at most"):
            weight_matrix(10**6)


class TestDeclaredOrder:
    cats = ("low", "medium", "high")
    y1 = ("low", "low", "medium", "high", "high")
    y2 = ("low", "medium", "medium", "high", "medium")

    def test_pandas_ordered_categorical_gives_the_scale(self):
        a = pd.Categorical(self.y1, categories=self.cats, ordered=True)
        b = pd.Series(pd.Categorical(self.y2, categories=self.cats, ordered=True))
        expected = kappa_score(self.y1, self.y2, labels=self.cats)
        assert kappa_score(a, b) == expected
        assert kappa_score(a, self.y2) == expected  # one declared order is enough

    def test_polars_enum_gives_the_scale(self):
        a = pl.Series(self.y1, dtype=pl.Enum(self.cats))
        b = pl.Series(self.y2, dtype=pl.Enum(self.cats))
        assert kappa_score(a, b) == kappa_score(self.y1, self.y2, labels=self.cats)

    def test_conflicting_orders(self):
        a = pd.Categorical(self.y1, categories=self.cats, ordered=True)
        b = pd.Categorical(self.y2, categories=list(self.cats[::-1]), ordered=True)
        with pytest.raises(ValueError, match="declare different category orders"):
            kappa_score(a, b)

    def test_unordered_categorical_keeps_sorted_order(self):
        a = pd.Categorical(self.y1, categories=self.cats, ordered=False)
        assert kappa_score(a, self.y2) == kappa_score(self.y1, self.y2)


class TestReviewedInputs:
    def test_empty_text_partitions(self):
        acc = KappaAccumulator(["lo", "mid", "hi"])
        acc.update(pd.Series([], dtype=str), pd.Series([], dtype=str))
        acc.update(pl.Series([], dtype=pl.Utf8), pl.Series([], dtype=pl.Utf8))
        acc.update([], [])
        assert acc.n_samples == 0

    def test_soft_kappa_large_integers_are_exact(self):
        b = 2**55
        y, f = [b, b + 4, b + 8, b + 4], [b, b + 8, b + 4, b + 12]
        assert soft_kappa_score(y, f) == kappa_score(y, f)
        y, f = [10**17 + i for i in range(4)], [10**17 + i for i in (1, 2, 3, 3)]
        assert soft_kappa_score(y, f) == kappa_score(y, f)

    def test_soft_kappa_near_float_max(self):
        y, f = np.array([1.0, 2, 3, 15]), np.array([1.0, 3, 2, 15])
        assert soft_kappa_score(y * 1e307, f * 1e307) == pytest.approx(soft_kappa_score(y, f))

    @pytest.mark.parametrize(
        "weights", [np.array([[0, 1j], [1, 0]]), [["0", "1"], ["1", "0"]]], ids=["complex", "str"]
    )
    def test_non_real_weight_matrix(self, weights):
        with pytest.raises(TypeError, match="`weights`"):
            kappa_score([0, 1], [0, 1], weights=weights)

    @pytest.mark.parametrize("make", [lambda: {0, 1}, lambda: iter([0, 1]), lambda: {0: 1, 1: 2}])
    def test_unordered_or_one_shot_containers(self, make):
        with pytest.raises(TypeError, match="`y1` must be an ordered sequence"):
            kappa_score(make(), [0, 1])

    def test_integral_floats_beyond_int64(self):
        with pytest.raises(ValueError, match="outside the int64 range"):
            kappa_score([2.0**63, 1.0], [1.0, 1.0])

    def test_merge_accepts_equivalent_weights(self):
        a = KappaAccumulator([0, 1, 2])
        a.update([0, 1, 2], [0, 2, 2])
        b = KappaAccumulator([0, 1, 2], weights=weight_matrix(3))
        b.update([2, 1], [2, 0])
        assert a.merge(b).score() == pytest.approx(kappa_score([0, 1, 2, 2, 1], [0, 2, 2, 2, 0]))
        with pytest.raises(ValueError, match="different `weights`"):
            KappaAccumulator([0, 1, 2]).merge(KappaAccumulator([0, 1, 2], weights="linear"))


class TestReviewRoundTwo:
    def test_accumulator_copies_are_independent(self):
        import copy

        acc = KappaAccumulator(labels=[0, 1, 2])
        acc.update([0, 1, 2], [0, 1, 2])
        snap = copy.copy(acc)
        snap.update([0], [2])
        other = copy.copy(acc)
        other.merge(snap)
        assert (acc.n_samples, int(acc.confusion.sum()), acc.score()) == (3, 3, 1.0)

    def test_accumulator_huge_weights(self):
        acc = KappaAccumulator(labels=[0, 1, 2])
        acc.update([0, 1, 2, 0], [0, 1, 2, 1], sample_weight=[1e308] * 4)
        assert acc.score() == pytest.approx(0.8)
        with pytest.raises(ValueError, match="overflowed float64; rescale"):
            acc.update([0, 1, 2, 0], [0, 1, 2, 1], sample_weight=[1e308] * 4)
        assert acc.score() == pytest.approx(0.8)  # unchanged by the refused batch

    @pytest.mark.parametrize("weights", ["linear", None, "quadratic"])
    def test_constant_rater_on_a_wide_scale(self, weights):
        y2 = [0, 1500, 3, 77, 2999, 1234, 5]
        assert kappa_score([1234] * 7, y2, weights=weights, sample_weight=[1] * 7) == 0.0
        assert kappa_score([1234] * 7, y2, weights=weights, labels=range(3000)) == 0.0

    def test_dict_views_are_ordered(self):
        labels = {0: "a", 1: "b", 2: "c"}
        got = kappa_score([0, 1, 2], [0, 1, 1], labels=labels.keys())
        assert got == kappa_score([0, 1, 2], [0, 1, 1], labels=[0, 1, 2])

    def test_nullable_frames_for_tables_and_weights(self):
        table = pd.DataFrame([[3, 1], [1, 4]], dtype="Int64")
        assert kappa_from_confusion(table) == kappa_from_confusion([[3, 1], [1, 4]])
        wmat = pd.DataFrame([[0, 1], [2, 0]], dtype="Float64")
        assert kappa_score([0, 1, 1], [0, 1, 0], weights=wmat) == kappa_score(
            [0, 1, 1], [0, 1, 0], weights=[[0, 1], [2, 0]]
        )
        with pytest.raises(ValueError, match="`confusion` has a missing value"):
            kappa_from_confusion(pd.DataFrame([[3, None], [1, 4]], dtype="Int64"))
