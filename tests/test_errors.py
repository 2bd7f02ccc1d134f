"""Errors and warnings a program can act on.

Every error of the library is a :class:`qwkit.QwkitError` (a ``ValueError``) or
:class:`qwkit.QwkitTypeError` (also a ``TypeError``) that says which parameter is wrong
and, where there is one, which item — as attributes, so that a caller (the command line,
a service) never parses the message. Degenerate intervals and undefined kappas warn
with documented classes and say what is actually wrong.
"""

from __future__ import annotations

import importlib
import math
import pickle
import time
import warnings

import numpy as np
import pytest

import qwkit


class TestStructuredErrors:
    @pytest.mark.parametrize(
        ("call", "parameter", "row", "kind"),
        [
            (
                lambda: qwkit.kappa_score([1, 2, 3], [1, 2, 9], labels=[1, 2, 3]),
                "y2",
                2,
                ValueError,
            ),
            (lambda: qwkit.kappa_score([1, 2.5, 3], [1, 2, 3]), "y1", 1, ValueError),
            (lambda: qwkit.kappa_score([1, np.nan], [1, 2]), "y1", 1, ValueError),
            (lambda: qwkit.kappa_score([1, 2, 3], [1, 2]), "y2", None, ValueError),
            (lambda: qwkit.kappa_score([1, "a"], [1, 2]), "y1", 1, TypeError),
            (lambda: qwkit.kappa_score(["a", "b"], [1, 2]), "y2", None, TypeError),
            (
                lambda: qwkit.kappa_score([1, 2], [1, 2], sample_weight=[1, -1]),
                "sample_weight",
                1,
                ValueError,
            ),
            (
                lambda: qwkit.kappa_score([1, 2], [1, 2], weights="cubic"),
                "weights",
                None,
                ValueError,
            ),
            (
                lambda: qwkit.kappa_score([1, 2], [2, 1], weights=np.ones((3, 3))),
                "weights",
                None,
                ValueError,
            ),
            (lambda: qwkit.kappa_score(["lo", "hi"], ["hi", "hi"]), "labels", None, ValueError),
            (
                lambda: qwkit.kappa_test([1, 2], [1, 2], alternative="up"),
                "alternative",
                None,
                ValueError,
            ),
            (lambda: qwkit.soft_kappa_score([1, 2], [1.0, np.inf]), "y_score", 1, ValueError),
            (lambda: qwkit.apply_thresholds([0.5], [1.0, 0.0]), "thresholds", 1, ValueError),
            (lambda: qwkit.optimize_thresholds([1, 1], [0.1, 0.2]), "y_true", None, ValueError),
            (lambda: qwkit.kappa_regression([[1.0], [np.nan]], [1, 2]), "X", 1, ValueError),
            (lambda: qwkit.bayes_decision([[0.5, 0.6]], np.eye(2)), "proba", 0, ValueError),
            (lambda: qwkit.mean_kappa([0.5, 2.0]), "kappas", 1, ValueError),
            (lambda: qwkit.KappaAccumulator([1, 2]).update([1], [3]), "y2", 0, ValueError),
        ],
    )
    def test_parameter_and_row(self, call, parameter, row, kind):
        with pytest.raises(qwkit.QwkitError) as err:
            call()
        assert isinstance(err.value, kind)
        assert err.value.parameter == parameter
        assert err.value.row == row
        assert f"`{parameter}`" in str(err.value)

    def test_reworded_for_a_caller(self):
        with pytest.raises(qwkit.QwkitError) as err:
            qwkit.kappa_score([1, 2, 3], [1, 2, 9], labels=[1, 2, 3])
        text = err.value.reworded(
            {"y2": "column 'pred'", "labels": "--labels"}, lambda i: f"data row {i + 1}"
        )
        assert text == "column 'pred' contains 9, which is not in --labels [1, 2, 3] (data row 3)."

    def test_pickles_with_its_attributes(self):
        with pytest.raises(qwkit.QwkitTypeError) as err:
            qwkit.kappa_score([1, "a"], [1, 2])
        back = pickle.loads(pickle.dumps(err.value))
        assert type(back) is qwkit.QwkitTypeError and str(back) == str(err.value)
        assert (back.parameter, back.row) == ("y1", 1)


class TestUnorderedText:
    # the trial: alphabetical order (high < low < medium) gave -0.29 instead of 0.57
    y1 = ("low", "medium", "high", "medium", "low", "high", "medium", "high")
    y2 = ("low", "medium", "high", "high", "low", "medium", "medium", "high")

    @pytest.mark.parametrize("weights", ["quadratic", "linear", np.ones((3, 3)) - np.eye(3)])
    def test_weighted_kappa_of_unordered_text_is_refused(self, weights):
        for fn in (qwkit.kappa_score, qwkit.kappa_test):
            with pytest.raises(qwkit.QwkitError, match="pass `labels`") as err:
                fn(self.y1, self.y2, weights=weights)
            assert err.value.parameter == "labels"
        with pytest.raises(qwkit.QwkitError, match="no declared order"):
            qwkit.compare_kappa_test(self.y1, self.y2, self.y2, weights=weights)
        with pytest.raises(qwkit.QwkitError, match="no declared order"):
            qwkit.optimize_thresholds(self.y1, np.arange(8.0))

    def test_with_the_order_it_is_right(self):
        order = ["low", "medium", "high"]
        got = qwkit.kappa_score(self.y1, self.y2, labels=order)
        codes = {v: i for i, v in enumerate(order)}
        expected = qwkit.kappa_score([codes[v] for v in self.y1], [codes[v] for v in self.y2])
        assert got == expected and got > 0.5

    def test_unweighted_needs_no_order(self):
        assert qwkit.kappa_score(self.y1, self.y2, weights="identity") == qwkit.kappa_score(
            self.y1, self.y2, weights="identity", labels=["high", "medium", "low"]
        )


class TestUndefinedKappaSaysWhy:
    def test_all_zero_weight_matrix(self):
        with pytest.warns(qwkit.UndefinedKappaWarning, match="every entry of `weights` is 0"):
            value = qwkit.kappa_score([0, 1, 2], [0, 2, 1], weights=np.zeros((3, 3)))
        assert math.isnan(value)

    def test_zero_weights_on_every_chance_pair(self):
        w = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
        with pytest.warns(qwkit.UndefinedKappaWarning, match="every pair of ratings that chance"):
            qwkit.kappa_score([0, 1, 0], [1, 0, 0], weights=w, labels=[0, 1, 2])

    def test_both_raters_constant(self):
        with pytest.warns(qwkit.UndefinedKappaWarning, match="single, identical rating"):
            qwkit.kappa_score([2, 2], [2, 2])


class TestDegenerateIntervals:
    @pytest.mark.parametrize(
        ("y1", "y2"),
        [
            ([1], [2]),  # one item: kappa 0, SE 0: [0, 0]
            ([1, 2, 3], [1, 2, 3]),  # perfect agreement on three items: [1, 1] next to p = 0.083
            ([1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 1, 3], [2] * 12),  # one rater constant: [0, 0]
        ],
    )
    def test_warn_instead_of_looking_certain(self, y1, y2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = qwkit.kappa_test(y1, y2, labels=[1, 2, 3])
        for method in ("asymptotic", "percentile"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res.confidence_interval(method=method, n_resamples=200, rng=1)
            assert any(w.category is qwkit.DegenerateIntervalWarning for w in caught)

    def test_few_items_warn_whatever_the_width(self):
        res = qwkit.kappa_test([1, 2, 3, 1, 2], [1, 3, 3, 2, 2])
        with pytest.warns(qwkit.DegenerateIntervalWarning, match="Only 5 items"):
            low, high = res.confidence_interval()
        assert low < high
        assert "not trustworthy" in res.summary()

    def test_ten_items_with_spread_do_not_warn(self):
        res = qwkit.kappa_test([1, 2, 3, 1, 2, 3, 1, 2, 3, 3], [1, 3, 3, 2, 2, 3, 1, 1, 3, 2])
        low, high = res.confidence_interval()  # filterwarnings = error: any warning fails
        assert low < res.statistic < high


class TestImpossibleRequests:
    def test_huge_n_resamples_refused_at_once(self):
        res = qwkit.kappa_test([1, 2, 3, 1, 2, 3, 1, 2, 3, 3], [1, 3, 3, 2, 2, 3, 1, 1, 3, 2])
        start = time.perf_counter()
        for call in (
            lambda: res.confidence_interval(method="bootstrap", n_resamples=10**12),
            lambda: res.bootstrap_distribution(10**12),
        ):
            with pytest.raises(qwkit.QwkitError, match=r"TiB.*the limit is 1.0 GiB") as err:
                call()
            assert err.value.parameter == "n_resamples"
        assert time.perf_counter() - start < 5.0  # refused up front, nothing allocated

    def test_progress_is_reported(self):
        res = qwkit.kappa_test([1, 2, 3, 1, 2, 3, 1, 2, 3, 3], [1, 3, 3, 2, 2, 3, 1, 1, 3, 2])
        seen = []
        res.confidence_interval(
            method="percentile", n_resamples=500, rng=1, progress=lambda d, t: seen.append((d, t))
        )
        assert seen and seen[-1] == (500, 500)
        assert all(t == 500 for _, t in seen) and [d for d, _ in seen] == sorted(d for d, _ in seen)


class TestFractions:
    """Issue 18: a ``Fraction`` that equals an integer or a float64 is that number; any
    other is refused with its position, never rounded behind the caller's back (before:
    "neither int64 nor float64", or a silent rounding in tables)."""

    def test_exact_fractions_are_their_numbers(self):
        from fractions import Fraction as F

        y1, y2 = [1, 2, 3, 3, 2, 1], [1, 2, 2, 3, 3, 1]
        assert qwkit.kappa_score([F(v) for v in y1], y2) == qwkit.kappa_score(y1, y2)
        halves = [F(v, 2) for v in y1]
        assert qwkit.kappa_score(halves, [v / 2 for v in y2], labels=[0.5, 1, 1.5]) == (
            qwkit.kappa_score(y1, y2)
        )
        w = [F(1, 2), F(3, 4), 1, 2, F(1, 8), 1]
        assert qwkit.kappa_score(y1, y2, sample_weight=w) == qwkit.kappa_score(
            y1, y2, sample_weight=[float(v) for v in w]
        )
        assert qwkit.kappa_score(y1, y2, counts=[F(2), 1, 1, 3, 1, 1]) == qwkit.kappa_score(
            y1, y2, counts=[2, 1, 1, 3, 1, 1]
        )
        assert qwkit.soft_kappa_score(y1, [F(v, 4) for v in y2]) == qwkit.soft_kappa_score(
            y1, [v / 4 for v in y2]
        )
        table = [[F(1, 4), F(1, 2)], [0, 1]]
        assert qwkit.kappa_from_confusion(table) == qwkit.kappa_from_confusion(
            [[0.25, 0.5], [0, 1]]
        )
        ratings = [[F(1), 2], [2, 2], [F(3), F(3)], [2, 3]]
        assert qwkit.agreement_score(ratings, coefficient="fleiss") == qwkit.agreement_score(
            [[1, 2], [2, 2], [3, 3], [2, 3]], coefficient="fleiss"
        )

    @pytest.mark.parametrize(
        ("call", "parameter", "row", "where"),
        [
            (lambda x: qwkit.kappa_score([1, 2, x], [1, 2, 3]), "y1", 2, "at index 2"),
            (
                lambda x: qwkit.kappa_score([1, 2, 3], [1, 2, 3], sample_weight=[1, x, 1]),
                "sample_weight",
                1,
                "at index 1",
            ),
            (lambda x: qwkit.soft_kappa_score([1, 2, 3], [x, 2, 3]), "y_score", 0, "at index 0"),
            (
                lambda x: qwkit.kappa_from_confusion([[1, 0], [x, 1]]),
                "confusion",
                1,
                "at row 1, column 0",
            ),
            (
                lambda x: qwkit.agreement_score([[1, 2], [2, x]], coefficient="fleiss"),
                "ratings",
                1,
                "at row 1, column 1",
            ),
            (lambda x: qwkit.bayes_decision([[x, 1 - x]], np.eye(2)), "proba", 0, "at row 0"),
        ],
        ids=["ratings", "sample_weight", "scores", "confusion", "ratings-matrix", "proba"],
    )
    def test_inexact_fractions_are_refused_by_position(self, call, parameter, row, where):
        from fractions import Fraction

        with pytest.raises(qwkit.QwkitTypeError) as info:
            call(Fraction(1, 3))
        message = str(info.value)
        assert message.startswith(f"`{parameter}` holds a Fraction (1/3) {where}")
        assert "does not round Fractions" in message and "`float(x)`" in message
        assert (info.value.parameter, info.value.row) == (parameter, row)

    def test_a_fraction_too_long_to_print(self):
        from fractions import Fraction

        with pytest.raises(qwkit.QwkitTypeError, match=r"^`y1` holds a Fraction at index 0 "):
            qwkit.kappa_score([Fraction(1, 3**100_000), 1], [1, 1])


class TestNonAsciiBytes:
    """Issue 18: a numpy bytes array (dtype ``S``) with a byte beyond ASCII leaked
    numpy's ``UnicodeDecodeError``; ASCII bytes are text as before."""

    BAD = np.array([b"ok", b"caf\xc3\xa9", b"ok"])

    @pytest.mark.parametrize(
        ("call", "parameter", "row", "where"),
        [
            (lambda b: qwkit.kappa_score(b, b, weights="identity"), "y1", 1, "index 1"),
            (lambda b: qwkit.optimize_thresholds(b, [1.0, 2.0, 3.0]), "y_true", 1, "index 1"),
            (
                lambda b: qwkit.apply_thresholds([1.0, 2.0], [1.5], labels=b[:2]),
                "labels",
                1,
                "index 1",
            ),
            (
                lambda b: qwkit.agreement_score(
                    np.stack([b, b], axis=1), coefficient="fleiss", weights="identity"
                ),
                "ratings",
                1,
                "row 1, column 0",
            ),
            (
                lambda b: qwkit.degradation_test(np.stack([b, b], axis=1), b),
                "human",
                1,
                "row 1, column 0",
            ),
        ],
        ids=["kappa", "thresholds", "labels", "agreement", "degradation"],
    )
    def test_named_with_their_position(self, call, parameter, row, where):
        with pytest.raises(qwkit.QwkitTypeError) as info:
            call(self.BAD)
        assert str(info.value).startswith(
            f"`{parameter}` holds bytes that are not ASCII (b'caf\\xc3\\xa9' at {where}); "
            "decode them to text first"
        )
        assert (info.value.parameter, info.value.row) == (parameter, row)

    def test_ascii_bytes_are_text(self):
        y1, y2 = np.array([b"a", b"b", b"b"]), np.array([b"a", b"b", b"a"])
        assert qwkit.kappa_score(y1, y2, weights="identity") == qwkit.kappa_score(
            ["a", "b", "b"], ["a", "b", "a"], weights="identity"
        )


class TestRatioScaleFromCounts:
    """Issue 18: ``agreement_from_counts`` with ratio weights and labels −2..2 blamed
    `ratings` (which the call has none of) for a value that is in `labels`."""

    COUNTS = np.array([[1, 2, 0, 1, 0], [0, 3, 1, 0, 0], [2, 0, 0, 1, 1], [0, 0, 4, 0, 0]])

    @pytest.mark.parametrize(
        "call", [qwkit.agreement_from_counts, qwkit.agreement_test_from_counts]
    )
    def test_the_negative_label_is_named(self, call):
        with pytest.raises(qwkit.QwkitError) as info:
            call(self.COUNTS, coefficient="krippendorff", weights="ratio", labels=[-2, -1, 0, 1, 2])
        assert str(info.value) == (
            "`weights`='ratio' (Krippendorff's ratio metric) needs non-negative values (a ratio "
            "scale has a true zero); `labels` contain -2 (column 0 of `counts`)."
        )
        assert info.value.parameters == ("weights", "labels")

    def test_a_ratio_scale_from_zero_is_taken(self):
        shifted = qwkit.agreement_from_counts(
            self.COUNTS, coefficient="krippendorff", weights="ratio", labels=[0, 1, 2, 3, 4]
        )
        ratings = [  # the same table as items × raters (NaN: not rated)
            [0, 1, 1, 3, np.nan],
            [1, 1, 1, 2, np.nan],
            [0, 0, 3, 4, np.nan],
            [2, 2, 2, 2, np.nan],
        ]
        assert shifted == qwkit.agreement_score(
            ratings, coefficient="krippendorff", weights="ratio"
        )


class TestProgress:
    """Issue 18: ``progress=5`` was "'int' object is not callable" from deep inside."""

    Y1 = (1, 2, 3, 1, 2, 3, 1, 2, 3, 3)
    Y2 = (1, 3, 3, 2, 2, 3, 1, 1, 3, 2)

    @pytest.mark.parametrize("progress", [5, True, "bar"])
    def test_every_progress_parameter_names_itself(self, progress):
        res = qwkit.kappa_test(self.Y1, self.Y2)
        agreement = qwkit.agreement_test(
            np.column_stack([self.Y1, self.Y2, self.Y1]), coefficient="fleiss"
        )
        score = np.linspace(0, 3, 10)
        da = importlib.import_module("dask.array")
        qdask = importlib.import_module("qwkit.dask")
        calls = [
            lambda: qwkit.optimism_corrected_kappa(
                self.Y1, score, n_resamples=10, progress=progress
            ),
            lambda: res.confidence_interval(method="percentile", progress=progress),
            lambda: res.confidence_interval(progress=progress),  # even where it is not called
            lambda: res.bootstrap_distribution(10, progress=progress),
            lambda: agreement.confidence_interval(method="percentile", progress=progress),
            lambda: qdask.kappa_score(
                da.from_array(np.array(self.Y1)),
                da.from_array(np.array(self.Y2)),
                progress=progress,
            ),
        ]
        for call in calls:
            with pytest.raises(qwkit.QwkitTypeError) as info:
                call()
            assert info.value.parameter == "progress"
            assert str(info.value).startswith("`progress` must be None or a function called as ")
            assert str(info.value).endswith(f"got {progress!r}.")
