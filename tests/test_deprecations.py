"""Renamed public names keep working under their old names, with a FutureWarning that
points at the caller — one word per concept (CONTRIBUTING's glossary): ``n_items`` (was
``n_samples``), ``weights`` of a result (was ``weights_kind``), ``rng`` (was ``seed``),
``table`` of the count-table functions (was ``counts``, which is a row's multiplicity)."""

from __future__ import annotations

import numpy as np
import pytest

import qwkit
from qwkit.economics import simulate_economics

Y1 = [0, 1, 2, 2, 1, 0, 1, 2, 0, 1, 2, 1]
Y2 = [0, 1, 2, 1, 1, 0, 2, 2, 0, 1, 2, 0]
TABLE = [[0, 0, 3], [0, 2, 1], [1, 2, 0], [3, 0, 0], [0, 3, 0]]


def _old(obj, name):
    with pytest.warns(FutureWarning, match=f"`{name}` is deprecated") as record:
        value = getattr(obj, name)
    assert record[0].filename == __file__  # the warning points at the caller
    return value


class TestRenamedAttributes:
    def test_n_samples_is_n_items(self):
        results = [
            qwkit.kappa_test(Y1, Y2),
            qwkit.compare_kappa_test(Y1, Y2, Y1),
            qwkit.pairwise_compare_kappa_test(Y1, {"a": Y2, "b": Y1, "c": Y2[::-1]}),
        ]
        acc = qwkit.KappaAccumulator()
        acc.update(Y1, Y2)
        soft = qwkit.SoftKappaAccumulator()
        soft.update(Y1, Y2)
        for obj in (*results, acc, soft):
            assert _old(obj, "n_samples") == obj.n_items == len(Y1)
        assert "n_items" in results[0].to_dict() and "n_samples" not in results[0].to_dict()

    def test_optimism_and_economics(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 3, size=40)
        res = qwkit.optimism_corrected_kappa(y, y + rng.normal(size=40), n_resamples=10, rng=0)
        assert _old(res, "n_samples") == res.n_items == 40
        econ = simulate_economics(
            noise_levels=(0.5,), n_items=64, n_repeats=1, n_classes=4, include_wine=False
        )
        assert _old(econ, "n_samples") == econ.n_items == 64

    def test_weights_kind_is_weights(self):
        kappa = qwkit.kappa_test(Y1, Y2, weights="linear")
        agreement = qwkit.agreement_test_from_counts(TABLE, coefficient="fleiss", weights=None)
        comparison = qwkit.compare_kappa_test(Y1, Y2, Y1)
        assert _old(kappa, "weights_kind") == kappa.weights == "linear"
        assert _old(agreement, "weights_kind") == agreement.weights == "identity"
        assert _old(comparison, "weights_kind") == comparison.weights == "quadratic"


class TestRenamedParameters:
    def test_counts_of_a_count_table_is_table(self):
        for function in (qwkit.agreement_from_counts, qwkit.agreement_test_from_counts):
            new = function(table=TABLE, coefficient="gwet", weights=None)
            with pytest.warns(FutureWarning, match="`counts` is deprecated") as record:
                old = function(counts=TABLE, coefficient="gwet", weights=None)
            assert record[0].filename == __file__
            assert getattr(old, "statistic", old) == getattr(new, "statistic", new)
            with pytest.raises(TypeError, match="Give `table` only"):
                function(table=TABLE, counts=TABLE, coefficient="gwet")

    def test_economics_seed_is_rng(self):
        tiny = dict(noise_levels=(0.5,), n_repeats=1, n_classes=4, include_wine=False)
        new = simulate_economics(rng=7, n_items=64, **tiny)
        with pytest.warns(FutureWarning) as record:
            old = simulate_economics(seed=7, n_samples=64, **tiny)
        assert sorted(str(w.message).split("`")[1] for w in record) == ["n_samples", "seed"]
        assert repr(old.rows) == repr(new.rows) and old.seed == new.seed == 7  # nan: repr
        generator = simulate_economics(rng=np.random.default_rng(7), n_items=64, **tiny)
        assert generator.seed is None and repr(generator.rows) == repr(new.rows)
