"""Agreement among many raters is exact for integer ratings of any size (issue 18).

The metrics read positions on the scale (or, for the ratio metric, differences of
positions), never float64 copies of the ratings, where 2**53 + 1 == 2**53. The oracle is
``naive_coefficient`` (tests/naive_agreement.py) on the ratings as Python integers with
a disagreement in exact integer arithmetic, and the invariance of the
translation-invariant metrics: shifted ratings give the value of the ratings themselves,
through every entry point (``agreement_score``, ``agreement_test``,
``agreement_from_counts``, ``ratings_from_long``, the scorer evaluation, the command
line on CSV and Parquet, wide and long).
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import qwkit
from cli_helpers import fails, ok
from oracles.naive_agreement import NAIVE_COEFFICIENTS, naive_coefficient
from qwkit._base._registry import COEFFICIENTS as REGISTRY

COEFFICIENTS = NAIVE_COEFFICIENTS  # the oracle's
POOLED = [c for c in COEFFICIENTS if REGISTRY[c].pooled]
#: (shift, dtype): int64 beyond the float64 integers, and uint64 up to its top.
SHIFTS = [
    (2**53, np.int64),
    (10**17, np.int64),
    (2**62, np.int64),
    (-(2**63), np.int64),
    (2**63 - 10, np.uint64),
    (2**64 - 8, np.uint64),
]
SHIFT_IDS = ["2**53", "10**17", "2**62", "-2**63", "u2**63-10", "u2**64-8"]


def _ratings(seed=20261801, n=24, r=3, k=4):
    """Correlated integer ratings 0..k−1, every category used."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    x = np.clip(truth[:, None] + rng.integers(-1, 2, (n, r)), 0, k - 1)
    x[0, :2] = [0, k - 1]
    return x.astype(np.int64)


def _shifted(x, shift, dtype):
    return (x.astype(dtype) + dtype(shift)) if shift >= 0 else x + np.int64(shift)


def _with_missing(x, shift):
    """As an object array: Python integers, None for the ratings not given."""
    out = (x.astype(object) + shift).astype(object)
    out[1::4, 2] = None
    out[2::5, 0] = None
    return out


def _missing_float(x):
    out = x.astype(float)
    out[1::4, 2] = np.nan
    out[2::5, 0] = np.nan
    return out


def _exact_delta(kind, lo, hi):
    """d/dmax on Python integers, in exact rational arithmetic (then one rounding)."""
    if kind == "identity":
        return lambda a, b: float(a != b)
    if kind == "quadratic":
        return lambda a, b: float(Fraction((a - b) ** 2, (hi - lo) ** 2))
    if kind == "linear":
        return lambda a, b: float(Fraction(abs(a - b), hi - lo))
    top = Fraction((hi - lo) ** 2, (hi + lo) ** 2)
    return lambda a, b: float(Fraction((a - b) ** 2, (a + b) ** 2) / top)


class TestShiftedRatings:
    """Translation-invariant metrics: r + c rates as r, to the last digits."""

    @pytest.mark.parametrize(("shift", "dtype"), SHIFTS, ids=SHIFT_IDS)
    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity", "ordinal"])
    def test_complete_integer_arrays(self, shift, dtype, weights):
        x = _ratings()
        y = _shifted(x, shift, dtype)
        for coefficient in COEFFICIENTS:
            want = qwkit.agreement_score(x, coefficient=coefficient, weights=weights)
            got = qwkit.agreement_score(y, coefficient=coefficient, weights=weights)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-14), coefficient

    @pytest.mark.parametrize(("shift", "dtype"), SHIFTS, ids=SHIFT_IDS)
    def test_missing_ratings_and_the_test(self, shift, dtype):
        x = _ratings(20261802, n=30, r=3, k=5)
        base, big = _missing_float(x), _with_missing(x, shift)
        for coefficient in COEFFICIENTS:
            want = qwkit.agreement_test(base, coefficient=coefficient)
            got = qwkit.agreement_test(big, coefficient=coefficient)
            assert got.statistic == pytest.approx(want.statistic, rel=1e-12, abs=1e-14)
            assert got.standard_error == pytest.approx(want.standard_error, rel=1e-10)
        assert list(got.labels) == [shift + k for k in range(5)]

    @pytest.mark.parametrize(("shift", "dtype"), SHIFTS, ids=SHIFT_IDS)
    def test_labels_shifted_with_the_ratings(self, shift, dtype):
        x = _ratings(20261803)
        y = _shifted(x, shift, dtype)
        labels = [shift + k for k in range(4)]
        for coefficient in COEFFICIENTS:
            for weights in ("quadratic", "identity"):
                want = qwkit.agreement_score(
                    x, coefficient=coefficient, weights=weights, labels=[0, 1, 2, 3]
                )
                got = qwkit.agreement_score(
                    y, coefficient=coefficient, weights=weights, labels=labels
                )
                assert got == pytest.approx(want, rel=1e-12, abs=1e-14)

    def test_labels_that_float64_merges(self):
        # issue 18: {0, 2**62, 2**62 + 1} with labels gave 0.3077 for 0.2500 — float64
        # merged the two upper labels. On the labels' positions the value is that of
        # the positions 0, 1, 2.
        labels = [0, 2**62, 2**62 + 1]
        pos = np.array([[0, 1, 1], [2, 2, 1], [1, 2, 2], [0, 0, 2], [2, 1, 0], [1, 1, 1]])
        big = np.asarray(labels, dtype=np.int64)[pos]
        for coefficient in COEFFICIENTS:
            for weights in ("identity", "quadratic", "linear"):
                want = qwkit.agreement_score(pos, coefficient=coefficient, weights=weights)
                got = qwkit.agreement_score(
                    big, coefficient=coefficient, weights=weights, labels=labels
                )
                assert got == pytest.approx(want, rel=1e-12, abs=1e-14)
        ident = qwkit.agreement_score(big, coefficient="fleiss", weights=None, labels=labels)
        assert ident == pytest.approx(
            naive_coefficient(pos.tolist(), "fleiss", lambda a, b: float(a != b), [0, 1, 2])
        )

    def test_float_ratings_meet_integer_labels_exactly(self):
        # whole-numbered floats (a matrix with NaN) against integer labels compare as
        # integers: 2**62 is the label 2**62, not 2**62 + 1
        labels = [0, 2**62, 2**62 + 1]
        x = np.array([[0.0, 2.0**62], [2.0**62, 2.0**62], [0.0, 0.0], [np.nan, 0.0]])
        want = qwkit.agreement_score(
            [[0, 1], [1, 1], [0, 0], [np.nan, 0]], coefficient="fleiss", labels=[0, 1, 2]
        )
        assert qwkit.agreement_score(x, coefficient="fleiss", labels=labels) == want


class TestAgainstTheDefinition:
    """``naive_coefficient`` on Python integers with an exact disagreement."""

    @pytest.mark.parametrize("shift", [2**53, 10**17, 2**63 - 10], ids=["2**53", "10**17", "u"])
    @pytest.mark.parametrize("weights", ["quadratic", "linear", "ratio"])
    def test_every_coefficient(self, shift, weights):
        x = _ratings(20261804, n=16, r=3, k=4)
        rows = _with_missing(x, shift)
        present = [v for v in rows.ravel() if v is not None]
        lo, hi = min(present), max(present)
        scale = list(range(lo, hi + 1))
        delta = _exact_delta(weights, lo, hi)
        for coefficient in COEFFICIENTS:
            got = qwkit.agreement_score(rows, coefficient=coefficient, weights=weights)
            want = naive_coefficient(rows.tolist(), coefficient, delta, scale)
            assert got == pytest.approx(want, rel=1e-10, abs=1e-13), coefficient

    def test_ratio_metric_on_huge_values_is_not_zero_over_zero(self):
        # on float64 copies 2**53 + 1 − (2**53 + 2) is 0 or 2: the ratio metric then
        # was noise; on positions it is exact (and nearly the interval metric)
        x = _ratings(20261805, n=20, r=4, k=4)
        y = x + np.int64(2**53)
        lo, hi = int(y.min()), int(y.max())
        delta = _exact_delta("ratio", lo, hi)
        scale = list(range(lo, hi + 1))
        for coefficient in COEFFICIENTS:
            got = qwkit.agreement_score(y, coefficient=coefficient, weights="ratio")
            want = naive_coefficient(y.tolist(), coefficient, delta, scale)
            assert got == pytest.approx(want, rel=1e-10), coefficient

    @pytest.mark.parametrize("coefficient", POOLED)
    def test_counts_with_huge_ratio_labels(self, coefficient):
        x = _ratings(20261806, n=18, r=4, k=3)
        counts = np.stack([np.bincount(row, minlength=3) for row in x])
        labels = [2**53, 2**53 + 1, 2**53 + 2]
        delta = _exact_delta("ratio", labels[0], labels[-1])
        got = qwkit.agreement_from_counts(
            counts, coefficient=coefficient, weights="ratio", labels=labels
        )
        want = naive_coefficient((x + 2**53).tolist(), coefficient, delta, labels)
        assert got == pytest.approx(want, rel=1e-10)
        res = qwkit.agreement_test_from_counts(
            counts, coefficient=coefficient, weights="ratio", labels=labels
        )
        assert res.statistic == pytest.approx(want, rel=1e-10)


class TestRatingsFromLong:
    def test_integers_beyond_float64_stay_exact(self):
        x = _ratings(20261807, n=20, r=3, k=4)
        n, r = x.shape
        items = np.repeat(np.arange(n), r)
        raters = np.tile(np.array(["a", "b", "c"]), n)
        shift = 2**53
        table = qwkit.ratings_from_long(items, raters, (x + shift).ravel())
        wide = table.to_wide()
        assert wide.dtype == object
        assert wide[0].tolist() == [int(v) + shift for v in x[0]]
        for coefficient in COEFFICIENTS:
            want = qwkit.agreement_score(x, coefficient=coefficient)
            got = qwkit.agreement_score(wide, coefficient=coefficient)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-14)
            # the table itself: positions on the scale, never float64 copies
            got = qwkit.agreement_score(table, coefficient=coefficient)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-14)

    def test_missing_ratings_stay_missing(self):
        values = np.array([1, 2, 2, 3, 1], dtype=np.uint64) + np.uint64(2**63 + 7)
        table = qwkit.ratings_from_long([0, 0, 1, 1, 2], ["a", "b", "a", "b", "a"], values)
        assert table.to_wide().tolist() == [
            [2**63 + 8, 2**63 + 9],
            [2**63 + 9, 2**63 + 10],
            [2**63 + 8, None],
        ]
        small = qwkit.ratings_from_long([0, 0, 1], ["a", "b", "a"], [1, 2, 3])
        wide = small.to_wide()
        assert wide.dtype == np.float64 and np.isnan(wide[1, 1])


class TestNumbersAreNotRounded:
    def test_python_integers_beyond_int64(self):
        # numpy makes [2**63 + 1, 5] float64; qwkit keeps the integers (uint64)
        x = [[2**63 + 1, 2**63 + 1], [2**63 + 2, 2**63 + 1], [5 + 2**63, 2**63 + 5]]
        y = [[1, 1], [2, 1], [5, 5]]
        assert qwkit.agreement_score(x, coefficient="fleiss") == qwkit.agreement_score(
            y, coefficient="fleiss"
        )

    def test_mappings_of_columns(self):
        # int64 beside uint64 columns stack to float64 in numpy: kept as integers here
        x, y = np.array([1, 2, 3, 2, 1, 3]), np.array([1, 2, 3, 3, 1, 3])
        want = qwkit.agreement_score(np.c_[x, y], coefficient="fleiss")
        mixed = {"a": x + np.int64(2**53), "b": y.astype(np.uint64) + np.uint64(2**53)}
        lists = {"a": [2**63 + int(v) for v in x], "b": [2**63 + int(v) for v in y]}
        for columns in (mixed, lists):
            assert qwkit.agreement_score(columns, coefficient="fleiss") == pytest.approx(
                want, rel=1e-12
            )
        gaps = {"a": [None, *(x[1:] + 2**53).tolist()], "b": (y + 2**53).tolist()}
        assert qwkit.agreement_score(gaps, coefficient="fleiss") == pytest.approx(
            qwkit.agreement_score([[np.nan, 1], *np.c_[x, y][1:].tolist()], coefficient="fleiss"),
            rel=1e-12,
        )

    def test_labels_list_beyond_int64(self):
        labels = [2**63 - 1, 2**63, 2**63 + 1]
        y1 = np.array(labels, dtype=np.uint64)[[0, 1, 2, 2, 1]]
        y2 = np.array(labels, dtype=np.uint64)[[0, 2, 2, 1, 1]]
        got = qwkit.kappa_score(y1, y2, labels=labels)
        assert got == qwkit.kappa_score([0, 1, 2, 2, 1], [0, 2, 2, 1, 1])

    def test_whole_floats_beside_huge_integers_become_integers(self):
        x = [[2**60 + 1, 2**60 + 2], [float(2**60), 2**60 + 1], [2**60 + 2, 2**60 + 2]]
        y = [[1, 2], [0, 1], [2, 2]]
        got = qwkit.agreement_score(x, coefficient="krippendorff")
        assert got == qwkit.agreement_score(y, coefficient="krippendorff")

    def test_fractions_beside_huge_integers_are_refused(self):
        with pytest.raises(qwkit.QwkitError, match=r"`ratings` mixes integers beyond"):
            qwkit.agreement_score([[2**60 + 1, 0.5], [1, 2]], coefficient="fleiss")

    def test_integers_of_no_64_bit_type_are_refused(self):
        with pytest.raises(qwkit.QwkitError, match=r"`ratings` holds integers beyond"):
            qwkit.agreement_score([[-1, 2**63 + 1], [1, 2]], coefficient="fleiss")


class TestScorerEvaluation:
    """Human ratings items × raters: the same positions, the same numbers."""

    @pytest.mark.parametrize("shift", [2**53, 10**17, 2**62, -(2**62)])
    def test_shifted_humans_and_machine(self, shift):
        rng = np.random.default_rng(20261808)
        n = 40
        truth = rng.integers(0, 5, n)
        human = np.clip(truth[:, None] + rng.integers(-1, 2, (n, 2)), 0, 4)
        machine = np.clip(truth + rng.integers(-1, 2, n), 0, 4)
        small = human.astype(float)
        small[::3, 1] = np.nan
        big = human.astype(object) + shift
        big[::3, 1] = None
        shifted = machine.astype(np.int64) + np.int64(shift)
        for fn in (qwkit.degradation_test, qwkit.prmse, qwkit.standardized_mean_difference):
            want, got = fn(small, machine), fn(big, shifted)
            assert got.statistic == pytest.approx(want.statistic, rel=1e-12, abs=1e-14)
            assert got.standard_error == pytest.approx(want.standard_error, rel=1e-10)
        want = qwkit.evaluate_scorer(small, machine).to_dict()["criteria"]
        got = qwkit.evaluate_scorer(big, shifted).to_dict()["criteria"]
        for a, b in zip(got, want, strict=True):
            assert a["estimate"] == pytest.approx(b["estimate"], rel=1e-12, abs=1e-14)

    def test_beyond_int64_is_refused_as_for_two_raters(self):
        human = np.array([[1, 2], [2, 2], [3, 1]], dtype=np.uint64) + np.uint64(2**63)
        with pytest.raises(qwkit.QwkitError, match=r"`human` holds values above 2\*\*63 - 1"):
            qwkit.prmse(human, human[:, 0])


class TestCommandLine:
    """``qwkit agreement`` on CSV and Parquet, wide and long: the numbers of r itself."""

    @staticmethod
    def _stats(*args):
        out = json.loads(ok("agreement", *args, "--json").stdout)
        return [c["statistic"] for c in out["coefficients"]]

    @pytest.mark.parametrize("shift", [2**53, 10**17, 2**63 - 10], ids=["2**53", "10**17", "u"])
    def test_wide_and_long_files(self, tmp_path, shift):
        x = _ratings(20261809, n=20, r=3, k=4)
        frame = pd.DataFrame(x.astype(object) + shift, columns=["a", "b", "c"])
        frame.iloc[3, 2] = None
        base = pd.DataFrame(x, columns=["a", "b", "c"]).astype(float)
        base.iloc[3, 2] = np.nan
        base.to_csv(tmp_path / "base.csv", index=False)
        want = self._stats(tmp_path / "base.csv", "--raters", "a,b,c")

        frame.to_csv(tmp_path / "wide.csv", index=False)
        got = self._stats(tmp_path / "wide.csv", "--raters", "a,b,c")
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

        long = frame.reset_index().melt(id_vars="index", var_name="rater", value_name="v")
        long.to_csv(tmp_path / "long.csv", index=False)
        got = self._stats(
            tmp_path / "long.csv", "--long", "--item", "index", "--rater", "rater", "--rating", "v"
        )
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

        columns = {
            c: pa.array(
                [None if v is None else int(v) for v in frame[c]],
                type=pa.uint64() if shift >= 2**63 - 10 else pa.int64(),
            )
            for c in "abc"
        }
        pq.write_table(pa.table(columns), tmp_path / "wide.parquet")
        report = tmp_path / "report.html"
        got = self._stats(tmp_path / "wide.parquet", "--raters", "a,b,c", "--report", report)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        assert report.exists()

    def test_labels_that_float64_merges(self, tmp_path):
        pos = np.array([[0, 1, 1], [2, 2, 1], [1, 2, 2], [0, 0, 2], [2, 1, 0], [1, 1, 1]])
        labels = [0, 2**62, 2**62 + 1]
        pd.DataFrame(np.asarray(labels)[pos], columns=list("abc")).to_csv(
            tmp_path / "x.csv", index=False
        )
        pd.DataFrame(pos, columns=list("abc")).to_csv(tmp_path / "p.csv", index=False)
        got = self._stats(tmp_path / "x.csv", "-r", "a,b,c", "--labels", ",".join(map(str, labels)))
        want = self._stats(tmp_path / "p.csv", "-r", "a,b,c", "--labels", "0,1,2")
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

    def test_integers_beyond_64_bits_are_refused(self, tmp_path):
        (tmp_path / "x.csv").write_text("a,b\n1,2\n-1,18446744073709551620\n")
        line = fails("agreement", tmp_path / "x.csv", "-r", "a,b")
        assert "column 'b' holds integers that no 64-bit integer type holds" in line
        assert "data row 2 has 18446744073709551620" in line
