"""Tests of pairwise_compare_kappa_test (every pair of several models, issue 18) and of
the multiplicity corrections behind it (checked against statsmodels' multipletests)."""

from __future__ import annotations

import gc
import json
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

import qwkit
from qwkit._table._resampling import CORRECTIONS, adjust_pvalues


def _models(seed=20261121, n=80, k=5):
    rng = np.random.default_rng(seed)
    t = rng.integers(1, k + 1, n)
    preds = {
        "close": np.clip(t + rng.integers(-1, 2, n), 1, k),
        "noisy": np.clip(t + rng.integers(-2, 3, n), 1, k),
        "narrow": np.clip(t, 2, 4),  # uses 2..4 only: the scale is still 1..5
        "random": rng.integers(1, k + 1, n),
    }
    return t, preds


class TestAdjustPvalues:
    @pytest.mark.parametrize("method", CORRECTIONS)
    @pytest.mark.parametrize("m", [1, 2, 3, 10, 45])
    def test_equals_statsmodels_multipletests(self, method, m, monkeypatch):
        # statsmodels' Holm runs gc.collect() on every call (to free its arrays), seconds
        # in a process that holds the whole suite's objects: not called here, where it
        # frees nothing the result depends on
        monkeypatch.setattr(gc, "collect", lambda *args: 0)
        rng = np.random.default_rng(20261121 + m)
        for _ in range(5):
            p = rng.uniform(0, 1, m) ** 3
            if m > 1 and rng.random() < 0.5:
                p[1] = p[0]  # ties
            expected = multipletests(p, method=method)[1]
            np.testing.assert_allclose(adjust_pvalues(p, method), expected, rtol=1e-13, atol=0)

    def test_holm_by_hand(self):
        # Holm (1979): sorted 0.01, 0.03, 0.04 → 3·0.01, max(0.03, 2·0.03), max(0.06, 0.04)
        assert adjust_pvalues([0.01, 0.04, 0.03], "holm").tolist() == [0.03, 0.06, 0.06]
        assert adjust_pvalues([0.5, 0.9], "holm").tolist() == [1.0, 1.0]

    def test_undefined_tests_stay_undefined_and_do_not_count(self):
        got = adjust_pvalues([0.01, math.nan, 0.04], "holm")
        assert math.isnan(got[1])
        np.testing.assert_array_equal(got[[0, 2]], adjust_pvalues([0.01, 0.04], "holm"))
        assert np.isnan(adjust_pvalues([math.nan, math.nan], "bonferroni")).all()


class TestPairwiseCompareKappaTest:
    def test_every_pair_is_compare_kappa_test(self):
        t, preds = _models()
        res = qwkit.pairwise_compare_kappa_test(t, preds)
        names = list(preds)
        assert res.models == tuple(names)
        assert res.pairs == tuple((a, b) for i, a in enumerate(names) for b in names[i + 1 :])
        for (a, b), one, diff, p in zip(
            res.pairs, res.comparisons, res.statistic, res.pvalue, strict=True
        ):
            ref = qwkit.compare_kappa_test(t, preds[a], preds[b], labels=range(1, 6))
            assert one.to_dict() == ref.to_dict()
            assert (diff, p) == (ref.statistic, ref.pvalue)
        for name, kappa in zip(names, res.kappas, strict=True):
            assert kappa == qwkit.kappa_score(t, preds[name], labels=range(1, 6))
        np.testing.assert_array_equal(
            res.pvalue_adjusted, multipletests(res.pvalue, method="holm")[1]
        )
        assert list(res.labels) == [1, 2, 3, 4, 5] and res.n_items == 80

    @pytest.mark.parametrize("correction", ["bonferroni", "fdr_by"])
    def test_other_corrections(self, correction):
        t, preds = _models()
        res = qwkit.pairwise_compare_kappa_test(t, preds, correction=correction)
        np.testing.assert_allclose(
            res.pvalue_adjusted, multipletests(res.pvalue, method=correction)[1], rtol=1e-13
        )
        assert res.correction == correction

    def test_two_models_are_compare_kappa_test(self):
        t, preds = _models()
        two = {k: preds[k] for k in ("close", "noisy")}
        res = qwkit.pairwise_compare_kappa_test(t, two)
        ref = qwkit.compare_kappa_test(t, two["close"], two["noisy"])
        assert res.pvalue_adjusted.tolist() == [ref.pvalue]  # one test: nothing to adjust
        assert res.comparisons[0].to_dict() == ref.to_dict()

    def test_one_scale_for_every_pair(self):
        # Without labels each pair alone would infer its own range (here 2..4 for the
        # truth 2..4 and "narrow"); together the scale is that of every column, so a
        # weight matrix fits every pair.
        t, preds = _models()
        keep = (t >= 2) & (t <= 4)
        wmat = qwkit.weight_matrix(5, "linear")
        res = qwkit.pairwise_compare_kappa_test(
            t[keep], {k: v[keep] for k, v in preds.items()}, weights=wmat
        )
        ref = qwkit.pairwise_compare_kappa_test(
            t[keep], {k: v[keep] for k, v in preds.items()}, weights="linear"
        )
        np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12)
        assert list(res.labels) == [1, 2, 3, 4, 5]

    def test_containers_name_the_models(self):
        t, preds = _models()
        ref = qwkit.pairwise_compare_kappa_test(t, preds)
        frame = qwkit.pairwise_compare_kappa_test(t, pd.DataFrame(preds))
        polars = qwkit.pairwise_compare_kappa_test(t, pl.DataFrame(preds))
        matrix = qwkit.pairwise_compare_kappa_test(t, np.column_stack(list(preds.values())))
        assert frame.models == polars.models == ref.models
        assert matrix.models == ("0", "1", "2", "3")
        for other in (frame, polars, matrix):
            np.testing.assert_array_equal(other.pvalue_adjusted, ref.pvalue_adjusted)

    def test_text_ratings(self):
        words = np.array(["", "a", "b", "c", "d", "e"])
        t, preds = _models()
        ordered = qwkit.pairwise_compare_kappa_test(
            words[t], {k: words[v] for k, v in preds.items()}, labels=list("abcde")
        )
        np.testing.assert_allclose(
            ordered.statistic, qwkit.pairwise_compare_kappa_test(t, preds).statistic, rtol=1e-12
        )
        with pytest.raises(qwkit.QwkitError, match="no declared order"):
            qwkit.pairwise_compare_kappa_test(words[t], {k: words[v] for k, v in preds.items()})
        unweighted = qwkit.pairwise_compare_kappa_test(
            words[t], {k: words[v] for k, v in preds.items()}, weights="identity"
        )
        assert list(unweighted.labels) == list("abcde")

    def test_counts_are_repeated_rows(self):
        t, preds = _models(n=40)
        c = np.random.default_rng(5).integers(0, 4, 40)
        got = qwkit.pairwise_compare_kappa_test(t, preds, counts=c)
        rep = qwkit.pairwise_compare_kappa_test(
            np.repeat(t, c), {k: np.repeat(v, c) for k, v in preds.items()}
        )
        np.testing.assert_allclose(got.pvalue_adjusted, rep.pvalue_adjusted, rtol=1e-10)
        assert got.n_items == rep.n_items == c.sum()

    def test_identical_models_leave_their_test_out_of_the_family(self):
        t, preds = _models()
        preds["copy"] = preds["close"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            res = qwkit.pairwise_compare_kappa_test(t, preds)
        i = res.pairs.index(("close", "copy"))
        assert math.isnan(res.pvalue[i]) and math.isnan(res.pvalue_adjusted[i])
        defined = ~np.isnan(res.pvalue)
        np.testing.assert_array_equal(
            res.pvalue_adjusted[defined], multipletests(res.pvalue[defined], method="holm")[1]
        )

    def test_summary_to_dict_and_pickle(self):
        t, preds = _models()
        res = qwkit.pairwise_compare_kappa_test(t, preds)
        text = res.summary()
        assert "Pairwise Comparison of Kappas (quadratic weights)" in text
        assert "close - noisy" in text and "Holm" in text and "Number of items" in text
        out = res.to_dict()
        json.dumps(out)
        assert out["models"] == list(preds) and out["correction"] == "holm"
        assert len(out["comparisons"]) == 6
        first = out["comparisons"][0]
        assert (first["model_a"], first["model_b"]) == ("close", "noisy")
        assert first["pvalue_adjusted"] == res.pvalue_adjusted[0]
        again = pickle.loads(pickle.dumps(res))
        assert again.to_dict() == out
        with pytest.raises(ValueError, match="read-only"):
            res.pvalue_adjusted[0] = 0.0
        assert type(res).__module__ == "qwkit"

    @pytest.mark.parametrize(
        ("y_preds", "message", "parameter"),
        [
            ({"a": [1, 2, 3]}, r"must hold at least two models to compare; got 1", "y_preds"),
            (None, r"`y_preds` must be a mapping of model names", "y_preds"),
            ([1, 2, 3], r"got an array of shape \(3,\)", "y_preds"),
            (
                [[1, 2, 3], [1, 2, 2]],
                r"one row per item \(3\) and one column per model; got shape \(2, 3\)",
                "y_preds",
            ),
            (
                {"a": [1, 2, 3], "b": [1, 2]},
                r"`y_true` and `y_preds\['b'\]` must have the same length",
                "y_preds['b']",
            ),
            (
                {"a": [1, 2, 3], "b": [1, 2, 7]},
                r"`y_preds\['b'\]` contains 7, which is not in `labels`",
                "y_preds['b']",
            ),
        ],
        ids=["one", "none", "1-d", "rows-are-models", "lengths", "off-scale"],
    )
    def test_bad_input(self, y_preds, message, parameter):
        with pytest.raises(qwkit.QwkitError, match=message) as info:
            qwkit.pairwise_compare_kappa_test([1, 2, 3], y_preds, labels=[1, 2, 3])
        assert info.value.parameter == parameter

    def test_bad_correction_and_duplicate_names(self):
        with pytest.raises(qwkit.QwkitError, match=r"`correction` must be 'holm', 'bonferroni'"):
            qwkit.pairwise_compare_kappa_test([1, 2], {"a": [1, 2], "b": [2, 1]}, correction="bh")
        frame = pd.DataFrame([[1, 2], [2, 1]], columns=["m", "m"])
        with pytest.raises(qwkit.QwkitError, match=r"names a model twice \('m'\)"):
            qwkit.pairwise_compare_kappa_test([1, 2], frame)
