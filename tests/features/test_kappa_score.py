"""kappa_score: published values, oracles, scales, weights and invariances."""

from __future__ import annotations

import itertools
import math
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
from helpers import (
    as_float,
    asymmetric_weights,
    close,
    integer_ratings,
    labelled_ratings,
    readonly,
)
from oracles.naive import (
    exact_quadratic_kappa,
    integer_scale,
    naive_kappa,
    naive_kappa_from_confusion,
    naive_kappa_on_values,
)
from qwkit import (
    KappaAccumulator,
    UndefinedKappaWarning,
    confusion_matrix,
    kappa_from_confusion,
    kappa_score,
    soft_kappa_score,
)

#: Hypothesis draws arbitrary integers (a lone −1 beside 0..5, say), which may look like
#: missing-value codes; the ScaleWarning has its own tests (test_scale_warning.py).
ANY_INTEGERS = pytest.mark.filterwarnings("ignore::qwkit.ScaleWarning")
SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


class TestKappaScore:
    # ------------------------------------------------------------------ published values

    def test_kaggle_page_step_by_step(self):
        # The Kaggle reference page on QWK, "Example", In [23]-[27]: Out[27] prints
        # 0.31818181818181823; the exact value is 7/22 = 0.3181818181818182 (sklearn
        # and the page's numba loop print the latter digits).
        actuals = np.array([4, 4, 3, 4, 4, 0, 1, 1, 2, 1])
        preds = np.array([0, 4, 1, 0, 4, 0, 1, 1, 2, 1])
        result = kappa_score(actuals, preds)
        assert result == pytest.approx(0.3181818181818182, rel=1e-14)
        assert result == float(Fraction(7, 22))
        assert type(result) is float

    def test_kaggle_page_random_example(self):
        # Kaggle reference page, In [67]-[68]: np.random.seed(2020); actuals, preds =
        # randint(0, 4, 10000) twice; "qwk = 0.010146537647530596" (scikit-learn).
        # RandomState(2020) reproduces the legacy global draws without global seeding.
        rs = np.random.RandomState(2020)
        actuals = rs.randint(0, 4, 10000)
        preds = rs.randint(0, 4, 10000)
        result = kappa_score(actuals, preds)
        assert result == pytest.approx(0.010146537647530596, rel=1e-12)
        # ... and qwkit is exact: the correctly rounded value of the rational kappa.
        assert result == as_float(exact_quadratic_kappa(actuals, preds))

    def test_qwk_notebook(self):
        # A public notebook, "Quadratic Weighted Kappa" (the QWK notebook), In [3]-[6]: labels
        # [1, 2, 3, 4, 5], "-0.09756097560975618" from both the double loop and
        # cohen_kappa_score(y_pred, y_true, ...). Exact: -4/41.
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
        # docs/kappa.md §2 (the README's "Semantics"): 0.758621 on the integer range 1..10
        # (2 never occurs)
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

    @ANY_INTEGERS
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
            pytest.param(lambda v: readonly(np.asarray(v)), id="read-only"),
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
                    with pytest.warns(qwkit.ScaleWarning, match="because of 0,"):  # 0 apart
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
            if weights is None:  # unweighted kappa needs no order: any order is the same
                got_sorted = kappa_score(y1, y2, weights=weights)
                expected = naive_kappa(y1, y2, labels=sorted(scale), weights=weights)
                assert close(got_sorted, as_float(expected))
            else:  # weighted kappa of text with no declared order has no meaning: refused
                with pytest.raises(qwkit.QwkitError, match="no declared order") as err:
                    kappa_score(y1, y2, weights=weights)
                assert err.value.parameter == "labels"
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
            with pytest.warns(qwkit.ScaleWarning, match="because of 40,"):  # 40 stands apart
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

    @ANY_INTEGERS
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

    @ANY_INTEGERS
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

    @ANY_INTEGERS
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

    @ANY_INTEGERS
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

    @ANY_INTEGERS
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

    @ANY_INTEGERS
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

    @ANY_INTEGERS
    @settings(max_examples=100)
    @given(data=integer_ratings(), seed=st.integers(0, 2**32 - 1))
    def test_shift_invariance_custom_weights(self, data, seed):
        y1, y2 = data
        k = len(integer_scale(y1, y2))
        w = asymmetric_weights(k, np.random.default_rng(seed))
        assume(naive_kappa(y1, y2, weights=w) is not None)
        got = kappa_score(np.add(y1, 37), np.add(y2, 37), weights=w)
        assert close(got, kappa_score(y1, y2, weights=w))

    @ANY_INTEGERS
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
        with pytest.warns(qwkit.ScaleWarning, match="because of 1000000000000"):  # apart
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


class TestConstantRater:
    """One rater constant: kappa is exactly 0, on any scale."""

    def test_kappa_is_exactly_zero(self):
        y1 = [0] * 14
        y2 = [2, 4, 2, 0, 2, 4, 0, 0, 3, 2, 2, 4, 4, 4]
        sw = [1, 1, 1, 0.1, 1, 2.7, 0.1, 1, 0.1, 2.7, 0.1, 0.1, 1, 0.3]
        for weights in ("linear", None, "quadratic"):
            assert kappa_score(y1, y2, weights=weights, sample_weight=sw) == 0.0
            assert kappa_score(y2, y1, weights=weights, sample_weight=sw) == 0.0

    @pytest.mark.parametrize("weights", ["linear", None, "quadratic"])
    def test_constant_rater_on_a_wide_scale(self, weights):
        y2 = [0, 1500, 3, 77, 2999, 1234, 5]
        assert kappa_score([1234] * 7, y2, weights=weights, sample_weight=[1] * 7) == 0.0
        assert kappa_score([1234] * 7, y2, weights=weights, labels=range(3000)) == 0.0


class TestLargeExplicitScales:
    """Scales of 10,000+ categories: named weights need no table."""

    def test_named_weights_need_no_table(self):
        # 8000 labels, 3 items: no 8000×8000 table (that would be 512 MB)
        tracemalloc.start()
        got = kappa_score([0, 1, 7999], [0, 2, 7998], labels=np.arange(8000), weights="linear")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        with pytest.warns(qwkit.ScaleWarning, match="because of 7998 and 7999"):
            inferred = kappa_score([0, 1, 7999], [0, 2, 7998], weights="linear")
        assert got == pytest.approx(inferred)
        assert peak < 8 * 2**20

    def test_ratings_outside_large_labels(self):
        with pytest.raises(ValueError, match="`y1` contains 8000, which is not in `labels`"):
            kappa_score([0, 1, 8000], [0, 2, 7998], labels=np.arange(8000), weights=None)


class TestWeightScaleInvariance:
    """Sample weights and tables of any magnitude give the same kappa."""

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
        with pytest.warns(qwkit.ScaleWarning, match="because of 5000"):
            expected = kappa_score(y1, y2, weights="linear", sample_weight=w)
        with pytest.warns(qwkit.ScaleWarning, match="because of 5000"):
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

    def test_unordered_categorical_declares_no_order(self):
        a = pd.Categorical(self.y1, categories=self.cats, ordered=False)
        with pytest.raises(ValueError, match="no declared order"):
            kappa_score(a, self.y2)
        assert kappa_score(a, self.y2, weights="identity") == kappa_score(
            self.y1, self.y2, weights="identity"
        )
