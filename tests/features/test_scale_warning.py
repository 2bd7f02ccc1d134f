"""ScaleWarning: an inferred integer scale that holds missing-value codes (issue 18).

Without ``labels`` the scale is every integer from the lowest to the highest rating, so
a "99 = not rated" code in 2 of 12 rows takes quadratic kappa from 0.89 to 0.03, and a
−1 failure code does the same, silently. The rule (``qwkit._base._scale_check``, documented
in docs/kappa.md "Missing-value codes", rates measured by docs/_scripts/scale_codes.py)
must fire on such codes through every entry point that infers an integer scale, once per
call, and never on the bundled data sets, the test data, or ordinal data on 1..5 or
0..10 at small n.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import qwkit
from cli_helpers import ok
from qwkit import ScaleWarning, _kernels
from qwkit._base._scale_check import (
    SKETCH,
    check_sparse,
    merge_sketches,
    sketch_columns,
    sketch_values,
    warn_codes,
)

DATA = Path(__file__).parents[1] / "data"
Y1 = [1, 2, 3, 4, 5, 3, 2, 4, 5, 1, 3, 4]
Y2 = [1, 2, 3, 4, 4, 3, 2, 5, 5, 2, 3, 3]
Y3 = [1, 3, 3, 4, 5, 2, 2, 4, 4, 1, 3, 5]
#: The issue's codes among 1..5 ratings, in two of the twelve ratings of rater 2.
CODES = [99, -1, 999, -9]


def _coded(code) -> list[int]:
    out = list(Y2)
    out[3] = out[8] = code
    return out


def _scale_warnings(fn, *args, _expected=(), **kwargs):
    """(result, the ScaleWarnings fn issued); any other warning is let through, except
    the ``_expected`` kinds (a PRMSE of ratings with a 99 in them is undefined, say)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    mine = [c for c in caught if issubclass(c.category, ScaleWarning)]
    for c in caught:
        if not issubclass(c.category, (ScaleWarning, *_expected)):
            warnings.warn_explicit(c.message, c.category, c.filename, c.lineno)
    return result, mine


def _quiet(fn, *args, **kwargs):
    _, caught = _scale_warnings(fn, *args, **kwargs)
    assert not caught, [str(c.message) for c in caught]


# ---------------------------------------------------------------------------- the rule


class TestRule:
    @pytest.mark.parametrize(
        ("values", "named"),
        [
            ([1, 2, 3, 4, 5, 99], [99]),
            ([-1, 1, 2, 3, 4, 5], [-1]),
            ([1, 2, 3, 4, 5, 999], [999]),
            ([-9, 1, 2, 3, 4, 5], [-9]),
            ([-99, 1, 2, 3, 4, 5], [-99]),
            ([1, 2, 3, 4, 5, 98, 99], [98, 99]),
            ([-99, 1, 2, 3, 4, 5, 99], [-99, 99]),
            ([-1, 1, 2, 3, 4, 5, 99], [-1, 99]),
            ([-1, *range(0, 11)], [-1]),
            ([-1, 0, 1, 2, 3, 4], [-1]),
            ([-9, *range(0, 11)], [-9]),
            ([-2, -1, 1, 2, 3, 4, 5], [-2, -1]),
            ([-2, 1, 2, 3, 4, 5], [-2]),
            ([*range(0, 101, 10), 999], [999]),
        ],
    )
    def test_codes_are_named(self, values, named):
        with pytest.warns(ScaleWarning) as caught:
            assert warn_codes(sketch_values(values))
        (message,) = [str(c.message) for c in caught]
        listed = message.split("because of ")[1].split(", which")[0]
        assert listed.replace(" and ", ", ").split(", ") == [str(v) for v in named]
        assert f"{min(values)}..{max(values)}" in message and "pass `labels`" in message

    @pytest.mark.parametrize(
        "values",
        [
            [1, 2, 3, 4, 5],
            [1, 5],  # two values: nothing to set apart
            [1, 99],
            [0, 1, 2, 10],  # 0..10 at small n
            [0, 9, 10],  # an NPS-like sample
            [0, 1, 20],  # 0..20 at small n
            [1, 2, 3, 4, 5, 9],  # 9 could be a rating of 1..9: not far enough
            [-2, -1, 0, 1, 2],  # a symmetric scale
            [-1, 0, 1, 2],  # −2..2 without −2
            [-2, -1, 0, 1, 2, 3],  # −3..3 without −3
            [-1, 0, 1, 2, 3],  # −3..3 with one negative rating (also −1 among 0..3)
            [0, 25, 100],  # a scale by 25: gaps count in steps of the grid
            [0, 50, 60, 70, 100],
            [10, 20, 30, 40, 50, 99],  # 99 off a grid of 10: 4.9 steps away
            [-5, -4, -3, -2, -1, 3],  # a positive value among negatives is no code
            list(range(0, 22)),
        ],
    )
    def test_legitimate_scales_are_not_named(self, values):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert not warn_codes(sketch_values(values))

    def test_ratings_in_0_to_15_need_no_look(self, monkeypatch):
        # no rule can fire within 22 non-negative integers, and the bound the sums' pass
        # keeps (their bitwise OR for int64) shows it for 0..15: nothing more is read
        def refuse(*args):
            raise AssertionError("an extra pass over the ratings")

        monkeypatch.setattr(_kernels, "distinct_extremes", refuse)
        rng = np.random.default_rng(20261820)
        a, b = rng.integers(0, 16, 500), rng.integers(0, 16, 500)
        for weights in ("quadratic", "linear", "identity"):
            qwkit.kappa_score(a, b, weights=weights)
            qwkit.kappa_score(a.astype(np.int8), b.astype(np.int8), weights=weights)
            qwkit.kappa_score(a, b, weights=weights, sample_weight=np.ones(500))

    @given(
        hnp.arrays(np.int64, st.integers(1, 60), elements=st.integers(-50, 50)),
        st.integers(1, 3),
    )
    def test_sketch_of_pieces_is_the_sketch_of_the_whole(self, x, pieces):
        parts = np.array_split(x, pieces)
        distinct = np.unique(x)
        want = sketch_values(distinct)
        assert sketch_columns(parts) == want
        assert merge_sketches([sketch_columns([p]) for p in parts if p.size]) == want
        assert want.low == tuple(distinct[:SKETCH]) and want.high == tuple(distinct[-SKETCH:])
        assert want.complete == (distinct.size < 2 * SKETCH)

    def test_incomplete_sketches_decide_as_the_whole(self):
        # many distinct ratings: the sketch keeps the extremes, which are what decides
        body = list(range(1, 40))
        assert not sketch_values(body).complete
        with pytest.warns(ScaleWarning, match="because of 999,"):
            warn_codes(sketch_values([*body, 999]))
        with pytest.warns(ScaleWarning, match="because of -1,"):
            warn_codes(sketch_values([-1, *body]))

    def test_sparse_wide_scale_for_coefficients_that_count_categories(self):
        with pytest.warns(ScaleWarning, match="counts all 101 categories .* only 11 occur"):
            check_sparse(11, 300, 0, 101, "Gwet's AC")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_sparse(6, 300, 0, 11, "Gwet's AC")  # 0..10 with 6 used: a rating scale
            check_sparse(9, 300, 0, 16, "Gwet's AC")  # more than half used
            check_sparse(8, 15, 0, 21, "Gwet's AC")  # 15 ratings cannot fill 0..20


# ---------------------------------------------------------------------------- entry points


class TestEntryPoints:
    """Every function that infers an integer scale warns, once, naming the code."""

    def test_the_issue_s_example(self):
        assert round(qwkit.kappa_score(Y1, Y2), 4) == 0.8943
        with pytest.warns(ScaleWarning, match="because of 99,") as caught:
            assert round(qwkit.kappa_score(Y1, _coded(99)), 4) == 0.0308
        assert len(caught) == 1
        assert caught[0].filename == __file__  # attributed to the caller's line
        assert issubclass(ScaleWarning, UserWarning) and ScaleWarning.__module__ == "qwkit"

    @pytest.mark.parametrize("code", CODES)
    @pytest.mark.parametrize(
        "call",
        [
            lambda a, b: qwkit.kappa_score(a, b),
            lambda a, b: qwkit.kappa_score(a, b, weights="linear"),
            lambda a, b: qwkit.kappa_score(a, b, weights=None),
            lambda a, b: qwkit.kappa_score(np.int16(a), np.int16(b)),
            lambda a, b: qwkit.kappa_score(a, b, sample_weight=np.linspace(0.5, 2, a.size)),
            lambda a, b: qwkit.kappa_score(a, b, counts=np.arange(1, a.size + 1)),
            lambda a, b: qwkit.kappa_score(np.float64(a), np.float64(b)),
            lambda a, b: qwkit.confusion_matrix(a, b),
            lambda a, b: qwkit.kappa_test(a, b),
            lambda a, b: qwkit.kappa_test(a, b, weights="linear", sample_weight=np.ones(a.size)),
            lambda a, b: qwkit.compare_kappa_test(a, b, np.array(Y3)[: a.size]),
            lambda a, b: qwkit.pairwise_compare_kappa_test(
                a, {"x": b, "y": np.array(Y3)[: a.size], "z": np.array(Y1)[: a.size]}
            ),
            lambda a, b: qwkit.agreement_score(np.c_[a, b, a], coefficient="fleiss"),
            lambda a, b: qwkit.agreement_test(np.c_[a, b, a], coefficient="gwet"),
            lambda a, b: qwkit.agreement_score(np.c_[a, b], coefficient="conger", weights=None),
        ],
        ids=[
            "quadratic",
            "linear",
            "identity",
            "int16",
            "sample_weight",
            "counts",
            "whole floats",
            "confusion_matrix",
            "kappa_test",
            "kappa_test-table",
            "compare",
            "pairwise",
            "agreement_score",
            "agreement_test",
            "conger",
        ],
    )
    def test_two_and_many_raters(self, call, code):
        a, b = np.array(Y1), np.array(_coded(code))
        _, caught = _scale_warnings(call, a, b, _expected=(qwkit.DegenerateIntervalWarning,))
        assert len(caught) == 1, [str(c.message) for c in caught]
        assert f"because of {code}," in str(caught[0].message)
        # the codes dropped: no warning
        keep = b != code
        _, caught = _scale_warnings(
            call, a[keep], b[keep], _expected=(qwkit.DegenerateIntervalWarning,)
        )
        assert not caught

    @pytest.mark.parametrize("code", CODES)
    def test_accumulators(self, code):
        acc = qwkit.KappaAccumulator()
        acc.update(Y1[:6], _coded(code)[:6])
        acc.update(Y1[6:], _coded(code)[6:])
        for method in (acc.score, acc.test):
            _, caught = _scale_warnings(method)
            assert len(caught) == 1 and f"because of {code}," in str(caught[0].message)
        labelled = qwkit.KappaAccumulator(labels=[code, 1, 2, 3, 4, 5])
        labelled.update(Y1, _coded(code))
        _quiet(labelled.score)

    @pytest.mark.parametrize("code", CODES)
    def test_thresholds_and_optimism(self, code):
        truth = np.array([*Y1, *Y1])
        truth[[4, 17]] = code
        score = np.linspace(0.0, 6.0, truth.size)
        for call in (
            lambda: qwkit.optimize_thresholds(truth, score),
            lambda: qwkit.optimism_corrected_kappa(truth, score, n_resamples=10, rng=1),
        ):
            _, caught = _scale_warnings(call)
            assert len(caught) == 1 and f"because of {code}," in str(caught[0].message)
        labels = sorted({code, 1, 2, 3, 4, 5})
        _quiet(qwkit.optimize_thresholds, truth, score, labels=labels)

    @pytest.mark.parametrize("code", CODES)
    def test_scorer_evaluation(self, code):
        rng = np.random.default_rng(20261821)
        truth = rng.integers(1, 6, 40)
        human = np.clip(truth[:, None] + rng.integers(-1, 2, (40, 3)), 1, 5).astype(float)
        human[::4, 1] = np.nan
        machine = np.clip(truth + rng.integers(-1, 2, 40), 1, 5).astype(float)
        human[5, 0] = code
        expected = (qwkit.DegenerateIntervalWarning,)  # what a code does to PRMSE
        for fn in (
            qwkit.evaluate_scorer,
            qwkit.degradation_test,
            qwkit.prmse,
            qwkit.standardized_mean_difference,
            lambda h, m: qwkit.alt_test(h, m, min_items_per_rater=10),
        ):
            _, caught = _scale_warnings(fn, human, machine, _expected=expected)
            assert len(caught) == 1 and f"because of {code}," in str(caught[0].message)
            # the general path (an object array) says the same
            _, caught = _scale_warnings(fn, human.astype(object), machine, _expected=expected)
            assert len(caught) == 1 and f"because of {code}," in str(caught[0].message)
        coded_machine = machine.copy()
        coded_machine[7] = code  # a code in the machine's ratings: the same scale
        clean = np.where(human == code, 3, human)
        _, caught = _scale_warnings(qwkit.prmse, clean, coded_machine, _expected=expected)
        assert len(caught) == 1 and f"because of {code}," in str(caught[0].message)

    def test_sparse_scale_only_where_categories_count(self):
        rng = np.random.default_rng(20261822)
        x = rng.integers(0, 11, (80, 3)) * 10  # 0..100 in steps of 10: 240 ratings
        for coefficient in ("gwet", "brennan-prediger"):
            with pytest.warns(ScaleWarning, match="counts all 101 categories"):
                qwkit.agreement_score(x, coefficient=coefficient)
            _quiet(qwkit.agreement_score, x, coefficient=coefficient, labels=range(0, 101, 10))
        for coefficient in ("fleiss", "conger", "krippendorff", "light"):
            _quiet(qwkit.agreement_score, x, coefficient=coefficient)
        _quiet(qwkit.kappa_score, x[:, 0], x[:, 1])

    def test_no_scale_is_inferred_elsewhere(self):
        # counts tables, real-valued ratings, text, declared orders: nothing to warn
        _quiet(qwkit.agreement_from_counts, [[0, 2], [1, 1], [2, 0]], coefficient="gwet")
        _quiet(qwkit.agreement_score, [[0.5, 99.5], [1.5, 1.5], [2.5, 2.5]], coefficient="fleiss")
        _quiet(qwkit.kappa_score, ["a", "b", "z"], ["a", "b", "b"], weights=None)
        _quiet(qwkit.soft_kappa_score, [1, 2, 99], [1.1, 2.2, 3.3])


# ---------------------------------------------------------------------------- command line


class TestCommandLine:
    def test_score_prints_one_line_and_succeeds(self, tmp_path):
        path = tmp_path / "coded.csv"
        rows = "\n".join(f"{a},{b}" for a, b in zip(Y1, _coded(99), strict=True))
        path.write_text("truth,pred\n" + rows + "\n")
        result = ok("score", path, "-t", "truth", "-p", "pred")
        lines = [x for x in result.stderr.splitlines() if "rating scale" in x]
        assert len(lines) == 1
        assert lines[0].startswith("qwkit: warning: The rating scale was inferred as the")
        assert "because of 99," in lines[0] and "pass --labels" in lines[0]
        assert "0.0308" in result.stdout
        quiet = ok("score", path, "-t", "truth", "-p", "pred", "--labels", "1,2,3,4,5,99")
        assert "rating scale" not in quiet.stderr

    def test_agreement_says_it_once(self, tmp_path):
        path = tmp_path / "coded.csv"
        rows = "\n".join(f"{a},{b},{a}" for a, b in zip(Y1, _coded(-1), strict=True))
        path.write_text("a,b,c\n" + rows + "\n")
        result = ok("agreement", path, "-r", "a,b,c")
        lines = [x for x in result.stderr.splitlines() if "rating scale" in x]
        assert len(lines) == 1 and "because of -1," in lines[0]


# ---------------------------------------------------------------------------- legitimate data


class TestLegitimateData:
    def test_bundled_wine_quality(self):
        wine = qwkit.load_wine_quality()
        rng = np.random.default_rng(20261823)
        pred = np.clip(wine.y + rng.integers(-1, 2, wine.y.size), 3, 9)
        _quiet(qwkit.kappa_score, wine.y, pred)
        _quiet(qwkit.kappa_test, wine.y, pred, weights="linear")
        _quiet(qwkit.optimize_thresholds, wine.y, wine.X[:, 10])

    def test_bundled_hanna(self):
        hanna = qwkit.load_hanna()
        for key, human in hanna.human.items():
            for coefficient in ("fleiss", "gwet", "brennan-prediger", "light"):
                _quiet(qwkit.agreement_score, human, coefficient=coefficient)
            _, caught = _scale_warnings(
                qwkit.evaluate_scorer,
                human,
                hanna.chatgpt[key],
                _expected=(qwkit.DegenerateIntervalWarning,),  # HANNA's own, not ours
            )
            assert not caught

    @pytest.mark.parametrize(
        "name", ["irr_anxiety.csv", "irr_diagnoses_codes.csv", "psy_expsy_r1_r2_r3.csv"]
    )
    def test_test_data(self, name):
        x = np.genfromtxt(DATA / name, delimiter=",", comments="#", skip_header=2)
        for coefficient in ("fleiss", "gwet", "brennan-prediger", "conger"):
            _quiet(qwkit.agreement_score, x, coefficient=coefficient)
        both = ~np.isnan(x[:, 0]) & ~np.isnan(x[:, 1])
        _quiet(qwkit.kappa_score, x[both, 0], x[both, 1])

    def test_prmse_data(self):
        for name in ("prmse_data.csv", "prmse_data_sparse_matrix.csv"):
            x = np.genfromtxt(DATA / name, delimiter=",", skip_header=1)
            _quiet(qwkit.prmse, x[:, 1:], x[:, 0])

    @pytest.mark.parametrize(("start", "k"), [(1, 5), (0, 11), (1, 10), (0, 5), (1, 7)])
    def test_small_samples_of_ordinal_scales(self, start, k):
        # a middle or an end category may not occur at small n: never a warning
        rng = np.random.default_rng(20261824 + k)
        values = np.arange(start, start + k)
        for n in (3, 5, 8, 12, 20):
            for _ in range(40):
                p = rng.dirichlet(np.full(k, 0.5))
                a = rng.choice(values, n, p=p)
                b = np.where(rng.random(n) < 0.6, a, rng.choice(values, n, p=p))
                if np.unique(np.r_[a, b]).size < 2:
                    continue
                _quiet(qwkit.kappa_score, a, b)
                _quiet(qwkit.agreement_score, np.c_[a, b, a], coefficient="gwet")
