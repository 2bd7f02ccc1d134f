"""Tests of simulate_economics and its result (Steele 2016, §5, the simulation "still to come").

J. L. Steele, "Economic efficiency and the weighted kappa loss function" (2016), announces
in §5 a simulation of a regularized linear model under different loss functions and stops
at "still to come".
Its tables (§3) and the §4.2 worked example are reproduced in tests/features/test_costs.py; here
the simulation runs on tiny configurations (the full one is `qwkit economics`).
"""

from __future__ import annotations

import csv
import math
import re
import sys
from dataclasses import fields

import numpy as np
import pytest
from scipy import special

import qwkit
from qwkit import economics
from qwkit._base._extras import install_command
from qwkit.economics import RULES, _fit_ordered_probit, _probit_proba

TINY = dict(noise_levels=(0.0, 1.0), n_items=240, n_repeats=2, include_wine=False)


@pytest.fixture(scope="module")
def tiny():
    return economics.simulate_economics(**TINY)


@pytest.fixture(scope="module")
def with_wine():
    return economics.simulate_economics(
        noise_levels=(0.5,), n_items=160, n_repeats=1, n_classes=4, include_wine=True
    )


class TestSimulateEconomics:
    def test_rows_layout(self, tiny, with_wine):
        assert len(tiny.rows) == 2 * len(RULES)
        assert [r.rule for r in tiny.rows[: len(RULES)]] == list(RULES)
        assert [r.noise for r in tiny.rows] == [0.0] * len(RULES) + [1.0] * len(RULES)
        assert {r.dataset for r in tiny.rows} == {"synthetic"}
        assert [r.dataset for r in with_wine.rows] == ["synthetic"] * len(RULES) + ["wine"] * len(
            RULES
        )
        for row in tiny.rows + with_wine.rows:
            for f in fields(row):
                value = getattr(row, f.name)
                assert type(value) is (str if f.name in ("dataset", "rule") else float)
        assert (tiny.n_classes, tiny.n_items, tiny.n_repeats, tiny.seed) == (
            8,
            240,
            2,
            20261121,
        )

    def test_reproducible_with_a_seed(self, tiny):
        again = economics.simulate_economics(**TINY)
        other = economics.simulate_economics(**TINY, rng=7)
        names = [f.name for f in fields(economics.EconomicsRow)]
        same = [[getattr(r, n) for n in names] for r in tiny.rows]
        assert same == [[getattr(r, n) for n in names] for r in again.rows]
        assert same != [[getattr(r, n) for n in names] for r in other.rows]

    def test_reference_rules(self, tiny, with_wine):
        for res in (tiny, with_wine):
            for row in res.rows:
                if row.rule == "perfect":
                    assert row.qwk == 1.0 and row.accuracy == 1.0 and row.mean_abs_error == 0.0
                if row.rule == "top_class":  # a constant rating has kappa 0
                    assert row.qwk == pytest.approx(0.0, abs=1e-12)
                if row.rule == "kappa_thresholds":
                    assert row.profit_vs_thresholds == 0.0
                if row.rule == "perfect":  # nobody under- or over-rated, nothing lost
                    assert (row.under_rated, row.over_rated) == (0.0, 0.0)
                    assert (row.regret_under, row.regret_over) == (0.0, 0.0)
                    assert math.isnan(row.under_depth)
                if row.rule == "top_class":  # everyone rated in the highest class
                    assert row.under_rated == 0.0 and math.isnan(row.under_depth)
                    assert row.over_rated == pytest.approx(1.0 - row.accuracy, abs=1e-15)
                    assert row.regret_under == 0.0

    def test_perfect_earns_the_most(self, tiny, with_wine):
        # The true class maximizes the profit of every single item (price·j − cost·i is
        # largest at the highest rating that still sells, j = i), so no rule beats it.
        for res in (tiny, with_wine):
            for row in res.rows:
                best = next(
                    r
                    for r in res.rows
                    if (r.dataset, r.noise, r.rule) == (row.dataset, row.noise, "perfect")
                )
                assert row.profit <= best.profit + 1e-12

    def test_paired_difference_and_standard_errors(self, tiny, with_wine):
        for row in tiny.rows:
            thr = next(
                r for r in tiny.rows if r.noise == row.noise and r.rule == "kappa_thresholds"
            )
            assert row.profit_vs_thresholds == pytest.approx(row.profit - thr.profit, abs=1e-12)
            assert row.qwk_se >= 0 and row.profit_se >= 0
        # one repeat: no standard error
        assert all(math.isnan(r.profit_se) for r in with_wine.rows)

    def test_where_the_profit_goes_matches_a_direct_computation(self, monkeypatch):
        # Record the truth and the decisions of every rule on every split, then compute
        # the under/over-rating columns directly from those arrays.
        calls = []
        metrics = economics._metrics

        def spy(y, pred, k, loss, absolute):
            calls.append((np.array(y), np.array(pred), np.array(loss)))
            return metrics(y, pred, k, loss, absolute)

        monkeypatch.setattr(economics, "_metrics", spy)
        res = economics.simulate_economics(
            noise_levels=(0.0, 1.5), n_items=240, n_repeats=3, include_wine=True
        )
        n_rep = 3
        assert len(calls) == len(res.rows) * n_rep
        for block, start in enumerate(range(0, len(res.rows), len(RULES))):
            rows = res.rows[start : start + len(RULES)]
            for r, (rule, row) in enumerate(zip(RULES, rows, strict=True)):
                assert row.rule == rule
                splits = [calls[(block * n_rep + rep) * len(RULES) + r] for rep in range(n_rep)]
                under, over, lost_under, lost_over, depth, count = [], [], [], [], 0, 0
                for y, pred, loss in splits:
                    if rule == "perfect":
                        np.testing.assert_array_equal(pred, y)  # the calls are in RULES order
                    lost = loss[y, pred] - loss[y, y]  # profit lost against the true class
                    below, above = pred < y, pred > y
                    under.append(np.mean(below))
                    over.append(np.mean(above))
                    lost_under.append(np.sum(lost[below]) / y.size)
                    lost_over.append(np.sum(lost[above]) / y.size)
                    depth += int(np.sum(y[below] - pred[below]))
                    count += int(np.sum(below))
                assert row.under_rated == pytest.approx(np.mean(under), abs=1e-14)
                assert row.over_rated == pytest.approx(np.mean(over), abs=1e-14)
                assert row.regret_under == pytest.approx(np.mean(lost_under), abs=1e-12)
                assert row.regret_over == pytest.approx(np.mean(lost_over), abs=1e-12)
                if count:
                    assert row.under_depth == pytest.approx(depth / count, abs=1e-14)
                else:
                    assert math.isnan(row.under_depth)

    def test_regrets_add_up_to_the_gap_to_perfect(self, tiny, with_wine):
        for res in (tiny, with_wine):
            for row in res.rows:
                best = next(
                    r
                    for r in res.rows
                    if (r.dataset, r.noise, r.rule) == (row.dataset, row.noise, "perfect")
                )
                assert best.profit - row.profit == pytest.approx(
                    row.regret_under + row.regret_over, abs=1e-12
                )
                assert row.regret_under >= 0 and row.regret_over >= 0  # default market
                assert row.under_rated + row.over_rated == pytest.approx(
                    1.0 - row.accuracy, abs=1e-14
                )
                if row.under_rated > 0:
                    assert row.under_depth >= 1.0

    def test_noise_free_model_rates_almost_perfectly(self, tiny):
        row = tiny.rows[0]
        assert row.rule == "kappa_thresholds" and row.noise == 0.0
        assert row.qwk > 0.95

    def test_maximizing_kappa_costs_money_under_noise(self, tiny):
        # Steele, §5: with lots of noise the loss function matters.
        noisy = {r.rule: r for r in tiny.rows if r.noise == 1.0}
        assert noisy["bayes_profit"].profit > noisy["kappa_thresholds"].profit + 1.0
        assert noisy["bayes_profit"].qwk < noisy["kappa_thresholds"].qwk

    def test_insurance_parameters_pass_through(self):
        res = economics.simulate_economics(
            noise_levels=(0.0,),
            n_items=64,
            n_classes=4,
            n_repeats=1,
            include_wine=False,
            price_per_class=20,
            cost_per_class=15,
            tolerance=1,
        )
        np.testing.assert_array_equal(
            res.loss,
            qwkit.insurance_loss_matrix(4, price_per_class=20, cost_per_class=15, tolerance=1),
        )
        assert (res.price_per_class, res.cost_per_class, res.tolerance) == (20.0, 15.0, 1.0)
        assert "(price 20/class, cost 15/class, tolerance 1)" in res.summary()

    def test_unregularized_with_more_features_than_items(self):
        res = economics.simulate_economics(
            noise_levels=(0.5,),
            n_items=32,
            n_classes=4,
            n_features=40,
            alpha=0.0,
            n_repeats=1,
            include_wine=False,
        )
        assert all(math.isfinite(r.profit) and math.isfinite(r.qwk) for r in res.rows)

    def test_ordered_probit_recovers_parameters(self):
        # eq. E2 with θ = (−1, 0, 1.5) and b = 2: maximum likelihood on 20 000 draws.
        rng = np.random.default_rng(20261121)
        z = rng.standard_normal(20_000)
        latent = 2.0 * z + rng.standard_normal(z.shape)
        y = np.searchsorted([-1.0, 0.0, 1.5], latent).astype(np.int64)
        params = _fit_ordered_probit(z, y, 4)
        theta = params[0] + np.concatenate(([0.0], np.cumsum(np.exp(params[1:3]))))
        np.testing.assert_allclose(theta, [-1.0, 0.0, 1.5], atol=0.06)
        assert np.exp(params[3]) == pytest.approx(2.0, abs=0.08)
        proba = _probit_proba(params, np.array([0.0]), 4)
        expected = np.diff(special.ndtr(np.concatenate(([-np.inf], theta, [np.inf]))))
        np.testing.assert_allclose(proba[0], expected, atol=1e-12)

    def test_loss_matrix_is_read_only_also_after_pickle(self, tiny):
        import copy
        import pickle

        for res in (tiny, pickle.loads(pickle.dumps(tiny)), copy.deepcopy(tiny)):
            assert not res.loss.flags.writeable
            np.testing.assert_array_equal(res.loss, tiny.loss)
            assert [r.profit for r in res.rows] == [r.profit for r in tiny.rows]

    def test_to_csv(self, tiny, tmp_path):
        target = tmp_path / "economics.csv"
        assert tiny.to_csv(target) == target
        with target.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            names = [f.name for f in fields(economics.EconomicsRow)]
            assert reader.fieldnames == names
            lines = list(reader)
        assert len(lines) == len(tiny.rows)
        for line, row in zip(lines, tiny.rows, strict=True):
            for name in names:
                value = getattr(row, name)
                if isinstance(value, float) and math.isnan(value):
                    assert math.isnan(float(line[name]))  # e.g. under_depth of `perfect`
                elif isinstance(value, float):
                    assert float(line[name]) == value  # repr round-trips exactly
                else:
                    assert line[name] == value
        assert sorted(p.name for p in tmp_path.iterdir()) == ["economics.csv"]  # no temp left
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
        assert target.stat().st_mode == plain.stat().st_mode  # the umask, not 0o600

    def test_to_csv_overwrites(self, tiny, with_wine, tmp_path):
        target = tmp_path / "economics.csv"
        with_wine.to_csv(target)
        tiny.to_csv(target)
        with target.open(encoding="utf-8") as fh:
            assert sum(1 for _ in fh) == len(tiny.rows) + 1

    def test_plot(self, with_wine, tmp_path):
        paths = with_wine.plot(tmp_path)
        assert [p.name for p in paths] == ["economics_synthetic.png", "economics_wine.png"]
        from matplotlib import image

        for path in paths:
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            pixels = image.imread(path)
            assert pixels.shape[0] == 400 and pixels.shape[1] == 1150
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)

    def test_plot_without_matplotlib(self, tiny, tmp_path, monkeypatch):
        monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
        monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
        with pytest.raises(ImportError, match=re.escape(install_command("plot"))):
            tiny.plot(tmp_path)

    def test_summary(self, tiny, with_wine):
        text = with_wine.summary()
        for word in (*RULES, "synthetic", "wine", "Cost of maximizing kappa", "$ under"):
            assert word in text
        assert "-0.000" not in tiny.summary() + text  # tiny negatives shown as 0.000
        lines = tiny.summary().splitlines()
        table = [line for line in lines if line.startswith("synthetic")]
        assert len(table) == 2 * len(tiny.rows)  # the main table, then where the profit goes
        first = table[0].split()
        assert first[2] == "kappa_thresholds" and float(first[3]) == round(tiny.rows[0].qwk, 3)
        second = table[len(tiny.rows)].split()
        row = tiny.rows[0]
        assert second[2] == "kappa_thresholds"
        shown = [float(v) for v in second[3:]]
        assert shown == [
            round(v, 3)
            for v in (
                row.under_rated,
                row.under_depth,
                row.over_rated,
                row.regret_under,
                row.regret_over,
            )
        ]

    @pytest.mark.parametrize(
        ("kwargs", "exc", "match"),
        [
            (dict(noise_levels=()), ValueError, "`noise_levels` must be a non-empty"),
            (dict(noise_levels=(0.0, -1.0)), ValueError, "`noise_levels` must be finite and"),
            (dict(noise_levels=(1.0, 1.0)), ValueError, "must not repeat"),
            (dict(noise_levels="0.5"), TypeError, "`noise_levels` must be a sequence"),
            (dict(n_items=10), ValueError, "`n_items` must be at least 64"),
            (dict(n_classes=1), ValueError, "`n_classes` must be at least 2"),
            (dict(n_repeats=0), ValueError, "`n_repeats` must be at least 1"),
            (dict(n_features=2.0), TypeError, "`n_features` must be an integer"),
            (dict(rng=-1), ValueError, "`rng` must be at least 0"),
            (dict(rng="7"), TypeError, "`rng` must be None, an integer seed or a numpy"),
            (dict(alpha=-1.0), ValueError, "`alpha` must be finite and non-negative"),
            (dict(alpha="1"), TypeError, "`alpha` must be a non-negative real number"),
            (dict(include_wine=1), TypeError, "`include_wine` must be True or False"),
            (dict(tolerance=-1), ValueError, "`tolerance` must be finite and non-negative"),
        ],
    )
    def test_errors(self, kwargs, exc, match):
        with pytest.raises(exc, match=match):
            economics.simulate_economics(**kwargs)
