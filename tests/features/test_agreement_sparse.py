"""Crowd-scale agreement: the sparse ratings table, Light's and Conger's kappas from per-pair
sums, per-rater agreement, and memory in proportion to the ratings (issue 21).

Oracles: ``tests/oracles/naive_agreement.py`` (the coefficients from their definitions by
enumerating pairs of ratings), ``kappa_score`` on each pair of raters (Light's pairs) and
on the stacked pairs of a rater with the others (``rater_agreement``), finite differences
of the item weights (its standard error), literal deletion of items (the jackknife).
"""

from __future__ import annotations

import math
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
from scipy import special

import qwkit
from oracles.naive_agreement import NAIVE_COEFFICIENTS, naive_coefficient, naive_jackknife

NAN = np.nan
COEFFICIENTS = NAIVE_COEFFICIENTS  # the oracle's


def crowd(seed, n_items=60, n_raters=25, per_item=(2, 6), k=5, spammers=0):
    """A sparse panel: each item rated by a few raters drawn at random, ratings from a
    shared latent level plus each rater's noise; ``spammers`` raters rate at random."""
    rng = np.random.default_rng(seed)
    x = np.full((n_items, n_raters), NAN)
    latent = rng.normal(size=n_items)
    noise = rng.uniform(0.3, 0.8, n_raters)
    for i in range(n_items):
        who = rng.choice(n_raters, size=int(rng.integers(*per_item)), replace=False)
        x[i, who] = np.clip(np.rint(latent[i] * 1.2 + 3 + rng.normal(0, noise[who])), 1, k)
        for g in who[who < spammers]:
            x[i, g] = rng.integers(1, k + 1)
    return x


def as_long(x):
    items, raters = np.nonzero(~np.isnan(x))
    order = np.random.default_rng(7).permutation(items.size)  # rows in any order
    items, raters = items[order], raters[order]
    return items, raters, x[items, raters]


def table_of(x):
    items, raters, values = as_long(x)
    return qwkit.ratings_from_long(items, raters, values)


def delta(kind, lo=1, hi=5):
    if kind == "identity":
        return lambda a, b: float(a != b)
    if kind == "quadratic":
        return lambda a, b: (a - b) ** 2 / (hi - lo) ** 2
    return lambda a, b: abs(a - b) / (hi - lo)


# ============================================================================ the table


class TestRatingsFromLong:
    def test_duplicates_policies(self):
        items = ["a", "a", "b", "a", "b"]
        raters = ["x", "y", "x", "x", "y"]
        values = [1, 2, 3, 4, 5]
        with pytest.raises(ValueError, match=r"Rater 'x' rated item 'a' twice \(rows 0 and 3") as e:
            qwkit.ratings_from_long(items, raters, values)
        assert e.value.row == 3 and "duplicates='first' or 'last'" in str(e.value)
        first = qwkit.ratings_from_long(items, raters, values, duplicates="first")
        last = qwkit.ratings_from_long(items, raters, values, duplicates="last")
        assert first.n_duplicates == last.n_duplicates == 1
        assert first.to_wide().tolist() == [[1.0, 2.0], [3.0, 5.0]]
        assert last.to_wide().tolist() == [[4.0, 2.0], [3.0, 5.0]]
        # "last" is the last row, wherever it is
        rows = qwkit.ratings_from_long([1, 1, 1], ["r", "r", "r"], [5, 6, 7], duplicates="last")
        assert rows.to_long()[2].tolist() == [7] and rows.n_duplicates == 2
        with pytest.raises(
            ValueError, match="`duplicates` must be 'raise', 'first' or 'last'; got 'mean'"
        ):
            qwkit.ratings_from_long(items, raters, values, duplicates="mean")

    def test_a_missing_rating_is_no_rating(self):
        # a missing value is not a repeated rating, and its item and rater stay known
        table = qwkit.ratings_from_long(
            ["a", "a", "a", "b", "c"], ["x", "x", "y", "x", "z"], [NAN, 1, 2, 3, NAN]
        )
        assert table.items.tolist() == ["a", "b", "c"] and table.raters.tolist() == ["x", "y", "z"]
        assert table.n_ratings == 3 and table.n_duplicates == 0
        res = qwkit.agreement_test(table, coefficient="fleiss", labels=[1, 2, 3])
        assert (res.n_items, res.n_raters, res.n_items_dropped, res.n_raters_dropped) == (
            2,
            2,
            1,
            1,
        )
        assert res.n_items_rated_once == 1
        text = res.summary()
        assert "Items rated once" in text and "Items with no rating (dropped)" in text
        assert res.to_dict()["n_items_dropped"] == 1

    def test_long_and_wide_views(self):
        x = crowd(20261201, n_items=12, n_raters=5)
        table = table_of(x)
        np.testing.assert_array_equal(table.to_wide(), x[~np.isnan(x).all(axis=1)])
        items, raters, values = table.to_long()
        assert np.all(np.diff(items) >= 0)  # sorted by item
        assert np.array_equal(x[items, raters], values)
        assert repr(table).startswith("RatingsTable(n_items=")
        again = pickle.loads(pickle.dumps(table))
        assert qwkit.agreement_score(again, coefficient="fleiss") == qwkit.agreement_score(
            table, coefficient="fleiss"
        )
        with pytest.warns(FutureWarning, match="`RatingsTable.ratings` is deprecated"):
            np.testing.assert_array_equal(table.ratings, table.to_wide())
        with pytest.raises(ValueError, match="read-only"):
            table.items[0] = 99

    def test_text_ids_and_values_keep_reading_order(self):
        table = qwkit.ratings_from_long(
            ["u2", "u1", "u2", "u1"], ["b", "a", "a", "b"], list("PGRG")
        )
        items, raters, values = table.to_long()
        assert items.tolist() == ["u1", "u1", "u2", "u2"]
        assert raters.tolist() == ["a", "b", "b", "a"]  # the order of the rows, per item
        assert values.tolist() == ["G", "G", "P", "R"]

    def test_wide_of_a_huge_panel_is_refused_with_its_size(self):
        table = qwkit.ratings_from_long(
            np.arange(100_000), np.arange(100_000) % 50_000, np.ones(100_000)
        )
        with pytest.raises(ValueError, match=r"would take .* GiB; every qwkit function takes"):
            table.to_wide()


# ============================================================================ same numbers


class TestSparseEqualsDense:
    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    @pytest.mark.parametrize("weights", ["identity", "quadratic", "linear", "ordinal", "ratio"])
    def test_value_error_and_intervals(self, coefficient, weights):
        x = crowd(20261202, n_items=40, n_raters=8, per_item=(2, 6))
        table = table_of(x)
        a = qwkit.agreement_test(x, coefficient=coefficient, weights=weights)
        b = qwkit.agreement_test(table, coefficient=coefficient, weights=weights)
        assert b.statistic == pytest.approx(a.statistic, rel=1e-12, abs=1e-14)
        assert b.standard_error == pytest.approx(a.standard_error, rel=1e-10)
        ja, jb = (
            a.confidence_interval(method="jackknife"),
            b.confidence_interval(method="jackknife"),
        )
        np.testing.assert_allclose(jb, ja, rtol=1e-10)
        da = a.bootstrap_distribution(200, rng=3)
        db = b.bootstrap_distribution(200, rng=3)
        np.testing.assert_allclose(db, da, rtol=1e-10)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    @pytest.mark.parametrize("weights", ["identity", "quadratic", "linear"])
    def test_a_crowd_against_the_definitions(self, coefficient, weights):
        x = crowd(20261203, n_items=50, n_raters=30, per_item=(1, 5))
        table = table_of(x)
        got = qwkit.agreement_score(
            table, coefficient=coefficient, weights=weights, labels=[1, 2, 3, 4, 5]
        )
        kept = x[:, ~np.isnan(x).all(axis=0)]
        want = naive_coefficient(kept.tolist(), coefficient, delta(weights), [1, 2, 3, 4, 5])
        assert got == pytest.approx(want, rel=1e-10)


# ============================================================================ Light and Conger


class TestLight:
    def test_pairs_sharing_one_item_or_an_undefined_kappa_are_left_out(self):
        x = np.array(
            [
                [1, 1, 2, NAN],
                [2, 2, 2, NAN],
                [3, 2, 2, NAN],
                [1, NAN, 2, 3],  # raters 1 and 4 share this item only
                [NAN, 1, NAN, NAN],
            ]
        )
        res = qwkit.agreement_test(x, coefficient="light", weights="identity", labels=[1, 2, 3])
        pairs = {}
        for g in range(4):
            for h in range(g + 1, 4):
                both = ~np.isnan(x[:, g]) & ~np.isnan(x[:, h])
                if both.sum() >= 2:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", qwkit.UndefinedKappaWarning)
                        k = qwkit.kappa_score(
                            x[both, g], x[both, h], weights=None, labels=[1, 2, 3]
                        )
                    pairs[g, h] = k
        defined = [k for k in pairs.values() if not math.isnan(k)]
        assert res.statistic == pytest.approx(np.mean(defined), rel=1e-12)
        # 5 pairs share an item: (1,4) and (3,4) one item each; (2,3) all in one category? no
        assert res.n_pairs == len(defined) and res.n_pairs + res.n_pairs_left_out == 5

    def test_no_pair_with_a_kappa_is_undefined(self):
        x = np.array([[1, 2, NAN], [NAN, 1, 2], [3, NAN, 3]])  # every pair shares one item
        with pytest.warns(qwkit.UndefinedKappaWarning):
            assert math.isnan(qwkit.agreement_score(x, coefficient="light"))

    def test_jackknife_is_literal_deletion_on_a_crowd(self):
        x = crowd(20261204, n_items=30, n_raters=12, per_item=(2, 5))
        res = qwkit.agreement_test(table_of(x), coefficient="light")
        loo = naive_jackknife(lambda y: qwkit.agreement_score(y, coefficient="light"), x)
        n = loo.size
        se = math.sqrt((n - 1) / n * np.sum((loo - loo.mean()) ** 2))
        low, _ = res.confidence_interval(method="jackknife")
        assert low == pytest.approx(res.statistic - special.stdtrit(n - 1, 0.975) * se, rel=1e-9)

    def test_bootstrap_is_the_rule_on_each_resample(self):
        # a resample's pairs: those of the data whose kappa exists in the resample, with
        # two or more distinct items drawn (an item drawn twice is one item)
        # (raters sparse enough that no two items are merged: a resample draws items)
        x = crowd(20261205, n_items=25, n_raters=6, per_item=(2, 5))
        spread = crowd(20261215, n_items=25, n_raters=600, per_item=(4, 5))  # many raters
        x = np.hstack([x, spread])
        res = qwkit.agreement_test(x, coefficient="light", weights="quadratic")
        assert res._estimator.sample.counts.size == 25
        draws = res.bootstrap_distribution(40, rng=11)
        rng = np.random.default_rng(11)
        n = x.shape[0]
        present = ~np.isnan(x)
        shared = present.T.astype(int) @ present
        pairs = [(g, h) for g, h in zip(*np.nonzero(np.triu(shared, 1) >= 2), strict=True)]
        for b in range(40):
            counts = rng.multinomial(n, np.full(n, 1.0 / n))
            kappas = []
            for g, h in pairs:
                both = present[:, g] & present[:, h]
                if np.count_nonzero(counts[both]) < 2:
                    continue
                a, c, w = x[both, g], x[both, h], counts[both].astype(float)
                keep = w > 0
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    k = qwkit.kappa_score(
                        a[keep], c[keep], sample_weight=w[keep], labels=[1, 2, 3, 4, 5]
                    )
                if not math.isnan(k):
                    kappas.append(k)
            assert draws[b] == pytest.approx(np.mean(kappas), rel=1e-9)

    @pytest.mark.parametrize("weights", ["identity", "linear", "ratio", "custom"])
    def test_streamed_sums_equal_held_incidences(self, weights, monkeypatch):
        # the per-pair sums streamed over the items (memory O(P·V)) against the held
        # incidences (memory O(Σ rᵢ²)): value, standard error, bootstrap, jackknife
        from qwkit._agreement import _light

        x = crowd(20261216, n_items=40, n_raters=9, per_item=(2, 7))
        x = np.vstack([x, x[:5]])  # identical items: rows that stand for several
        if weights == "custom":
            weights = np.abs(np.subtract.outer(np.arange(5), np.arange(5))) ** 0.5
        results = []
        for per_incidence in (_light._BYTES_PER_INCIDENCE, 0):  # 0: always held
            monkeypatch.setattr(_light, "_BYTES_PER_INCIDENCE", per_incidence)
            res = qwkit.agreement_test(x, coefficient="light", weights=weights)
            results.append(
                (
                    res.statistic,
                    res.standard_error,
                    *res.confidence_interval(method="jackknife"),
                    *res.bootstrap_distribution(30, rng=4),
                )
            )
        np.testing.assert_allclose(results[0], results[1], rtol=1e-12)

    def test_refused_up_front_when_it_would_not_fit(self, monkeypatch):
        from qwkit._base import _memory

        x = crowd(20261219, n_items=30, n_raters=8, per_item=(2, 6))
        monkeypatch.setattr(_memory, "available", lambda: 1000)
        with pytest.raises(qwkit.QwkitError) as caught:
            qwkit.agreement_score(x, coefficient="light")
        assert caught.value.parameter == "coefficient"
        assert str(caught.value).startswith("Light's kappa of these ratings (")
        assert "coefficient='conger'" in str(caught.value)

    def test_many_categories_hold_the_incidences(self):
        # real values, linear weights: more categories than a pair's table may have, so
        # the incidences are held; against the definition
        rng = np.random.default_rng(20261217)
        x = np.round(rng.normal(size=(200, 4)), 3)
        x[rng.random(x.shape) < 0.25] = NAN
        x = x[(~np.isnan(x)).sum(axis=1) >= 1]
        values = x[~np.isnan(x)]
        lo, hi = values.min(), values.max()
        got = qwkit.agreement_score(x, coefficient="light", weights="linear")
        scale = sorted(set(values.tolist()))
        want = naive_coefficient(x.tolist(), "light", lambda a, b: abs(a - b) / (hi - lo), scale)
        assert got == pytest.approx(want, rel=1e-10)


class TestConger:
    def test_a_rater_left_without_rating_is_dropped_in_the_jackknife(self):
        x = crowd(20261206, n_items=20, n_raters=8, per_item=(2, 4))
        x[:, 7] = NAN
        x[3, 7] = 2.0  # rater 8 rated one item
        x[3, 0] = 1.0
        labels = [1, 2, 3, 4, 5]
        res = qwkit.agreement_test(x, coefficient="conger", labels=labels)
        loo = naive_jackknife(
            lambda y: qwkit.agreement_score(y, coefficient="conger", labels=labels), x
        )
        got, mult = res._estimator.jackknife()  # per cell of identical items
        got = np.repeat(got, mult.astype(int))
        np.testing.assert_allclose(np.sort(got), np.sort(loo), rtol=1e-10)

    @pytest.mark.parametrize("weights", ["identity", "quadratic", "linear", "ratio"])
    def test_bootstrap_drops_raters_absent_from_a_resample(self, weights):
        x = crowd(20261207, n_items=18, n_raters=10, per_item=(2, 4))
        spread = crowd(20261217, n_items=18, n_raters=600, per_item=(5, 6))  # many raters
        x = np.hstack([x, spread])  # too sparse to merge identical items: cells are items
        res = qwkit.agreement_test(table_of(x), coefficient="conger", weights=weights)
        assert res._estimator.sample.counts.size == 18
        draws = res.bootstrap_distribution(25, rng=5)
        rng = np.random.default_rng(5)
        n = x.shape[0]
        for b in range(25):
            counts = rng.multinomial(n, np.full(n, 1.0 / n))
            y = np.repeat(x, counts, axis=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = qwkit.agreement_score(
                    y, coefficient="conger", weights=weights, labels=[1, 2, 3, 4, 5]
                )
            assert draws[b] == pytest.approx(want, rel=1e-9, nan_ok=True)


# ============================================================================ memory


def test_memory_follows_the_ratings_not_items_times_raters():
    # 20,000 items × 20,000 raters would be 3.2 GB of float64; 40,000 ratings are not
    rng = np.random.default_rng(20261208)
    n = 20_000
    items = np.repeat(np.arange(n), 2)
    raters = (np.repeat(rng.integers(0, n, n), 2) + np.tile([0, 1], n)) % n
    values = rng.integers(1, 6, 2 * n)
    table = qwkit.ratings_from_long(items, raters, values)
    tracemalloc.start()
    try:
        for coefficient in COEFFICIENTS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                qwkit.agreement_test(table, coefficient=coefficient)
        qwkit.rater_agreement(table)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20  # the dense matrix alone would be 3.2 GB


# ============================================================================ per rater


def naive_rater(x, g, weights, labels, w=None):
    """Cohen's kappa of rater g's ratings against each other rating of the same items
    (the stacked pairs), items weighted by ``w``."""
    a, b, sw = [], [], []
    w = np.ones(x.shape[0]) if w is None else w
    for i in range(x.shape[0]):
        if np.isnan(x[i, g]):
            continue
        for j in range(x.shape[1]):
            if j != g and not np.isnan(x[i, j]):
                a.append(x[i, g])
                b.append(x[i, j])
                sw.append(w[i])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return qwkit.kappa_score(a, b, weights=weights, labels=labels, sample_weight=sw)


class TestRaterAgreement:
    @pytest.mark.parametrize("weights", ["identity", "quadratic", "linear"])
    def test_kappa_of_the_stacked_pairs_and_its_standard_error(self, weights):
        x = crowd(20261209, n_items=30, n_raters=7, per_item=(2, 5))
        labels = [1, 2, 3, 4, 5]
        res = qwkit.rater_agreement(table_of(x), weights=weights, labels=labels)
        for g in range(7):
            rated = ~np.isnan(x[:, g]) & (np.sum(~np.isnan(x), axis=1) >= 2)
            assert res.n_items[g] == rated.sum()
            assert res.statistic[g] == pytest.approx(naive_rater(x, g, weights, labels), rel=1e-10)
            # linearization: the gradient in the item weights, by central differences
            psi = []
            for i in np.flatnonzero(rated):
                up, down = np.ones(x.shape[0]), np.ones(x.shape[0])
                up[i], down[i] = 1 + 1e-6, 1 - 1e-6
                psi.append(
                    (
                        naive_rater(x, g, weights, labels, up)
                        - naive_rater(x, g, weights, labels, down)
                    )
                    / 2e-6
                )
            n = len(psi)
            se = math.sqrt(n / (n - 1) * np.sum(np.square(psi)))
            assert res.standard_error[g] == pytest.approx(se, rel=1e-5)

    def test_planted_spammers_rank_lowest(self):
        x = crowd(20261210, n_items=400, n_raters=30, per_item=(3, 7), spammers=4)
        res = qwkit.rater_agreement(table_of(x))
        assert set(res.ranked()[:4].tolist()) == {0, 1, 2, 3}
        assert np.all(res.high[:4] < np.median(res.statistic))

    def test_text_scale_dense_input_and_undefined_raters(self):
        x = np.array(
            [["lo", "hi", None], ["hi", "hi", None], ["lo", "lo", "mid"], [None, "mid", None]],
            dtype=object,
        )
        res = qwkit.rater_agreement(x, weights="identity")
        assert res.n_items.tolist() == [3, 3, 1]
        assert math.isnan(res.statistic[2])  # one shared item: no kappa
        assert res.raters.tolist() == [0, 1, 2]
        with pytest.raises(ValueError, match="pass `labels`"):
            qwkit.rater_agreement(x)

    def test_views_and_pairs(self):
        x = crowd(20261211, n_items=40, n_raters=6, per_item=(2, 5))
        res = qwkit.rater_agreement(table_of(x), confidence_level=0.9)
        d = res.to_dict()
        assert d["confidence_level"] == 0.9 and len(d["raters"]) == 6
        assert set(d["raters"][0]) == {
            "rater",
            "n_items",
            "n_ratings",
            "statistic",
            "standard_error",
            "ci_low",
            "ci_high",
        }
        assert "lowest agreement first" in res.summary()
        pairs = res.pairwise()
        light = qwkit.agreement_score(table_of(x), coefficient="light")
        assert np.nanmean(pairs.statistic) == pytest.approx(light, rel=1e-12)
        m = pairs.matrix(res.raters)
        assert m.shape == (6, 6) and np.allclose(m, m.T, equal_nan=True)
        assert len(pairs.to_dict()["pairs"]) == len(pairs.statistic)


class TestEveryFunctionTakesTheTable:
    def test_from_counts_reads_the_tables_ratings(self):
        x = crowd(20261212, n_items=30, n_raters=9)
        table = table_of(x)
        for coefficient in ("fleiss", "krippendorff", "gwet", "brennan-prediger"):
            want = qwkit.agreement_test(x, coefficient=coefficient)
            got = qwkit.agreement_test_from_counts(table, coefficient=coefficient)
            assert got.statistic == want.statistic
            assert qwkit.agreement_from_counts(table, coefficient=coefficient) == pytest.approx(
                want.statistic, rel=1e-12
            )
        with pytest.raises(ValueError, match="needs to know which rater gave which rating"):
            qwkit.agreement_from_counts(table, coefficient="light")

    def test_a_huge_bootstrap_is_refused_up_front_with_its_memory(self):
        res = qwkit.agreement_test(table_of(crowd(20261213)), coefficient="conger")
        with pytest.raises(ValueError, match=r"would need 1\.5 GiB to hold the bootstrap"):
            res.confidence_interval(method="bootstrap", n_resamples=200_000_000)

    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    def test_integers_near_2_63_are_positions_never_floats(self, coefficient):
        x = crowd(20261214, n_items=25, n_raters=6)
        items, raters, values = as_long(x)
        shifted = values.astype(np.uint64) + np.uint64(2**63 - 3)  # float64 merges these
        big = qwkit.ratings_from_long(items, raters, shifted)
        want = qwkit.agreement_test(x, coefficient=coefficient)
        got = qwkit.agreement_test(big, coefficient=coefficient)
        assert got.statistic == pytest.approx(want.statistic, rel=1e-12, abs=1e-14)
        assert got.standard_error == pytest.approx(want.standard_error, rel=1e-10)
        by = qwkit.rater_agreement(big)
        np.testing.assert_allclose(by.statistic, qwkit.rater_agreement(x).statistic, rtol=1e-12)
