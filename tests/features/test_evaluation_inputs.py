"""The scorer evaluation functions on inputs a hostile user tries (issue 18's audit of
the surfaces added last round): every bad option is refused under its name, and the
parts a result reports are in the units of the ratings, never shifted positions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import qwkit

SEED = 20261121


def _panel(n: int = 60):
    """Two humans (every third item rated once) and an integer machine on 1..5."""
    rng = np.random.default_rng(SEED)
    truth = rng.integers(1, 6, n)
    human = np.column_stack(
        [np.clip(truth + rng.integers(-1, 2, n), 1, 5) for _ in range(2)]
    ).astype(float)
    human[::3, 1] = np.nan
    machine = np.clip(truth + rng.integers(-1, 2, n), 1, 5)
    return human, machine


class TestReportedUnits:
    """Before: with ``labels=[10, 20, 30, 40, 50]`` the SMD reported mean_human 12.25
    (the mean position plus the first label; the ratings' mean is 32.5) and sd_human
    1.36 (13.6); PRMSE's variances were in squared positions."""

    def test_evenly_spaced_labels_report_the_ratings_units(self):
        human, machine = _panel()
        labels = [10, 20, 30, 40, 50]
        res = qwkit.standardized_mean_difference(human * 10, machine * 10, labels=labels)
        assert res.mean_human == pytest.approx(np.mean(human[:, 0] * 10), rel=1e-14)
        assert res.mean_machine == pytest.approx(np.mean(machine * 10), rel=1e-14)
        assert res.sd_human == pytest.approx(np.std(human[:, 0] * 10, ddof=1), rel=1e-14)
        plain = qwkit.standardized_mean_difference(human, machine)
        assert res.statistic == pytest.approx(plain.statistic, rel=1e-13)  # affine-free
        tens = qwkit.prmse(human * 10, machine * 10, labels=labels)
        ones = qwkit.prmse(human, machine)
        for part in ("variance_of_errors", "true_score_variance", "mse_true"):
            assert getattr(tens, part) == pytest.approx(100 * getattr(ones, part), rel=1e-13)
        assert tens.statistic == pytest.approx(ones.statistic, rel=1e-13)
        # the same without labels: the integers 10..50 (positions 0..40, step 1)
        wide = qwkit.standardized_mean_difference(human * 10, machine * 10)
        assert (wide.mean_human, wide.sd_human) == pytest.approx((res.mean_human, res.sd_human))
        assert qwkit.prmse(human * 10, machine * 10).variance_of_errors == pytest.approx(
            tens.variance_of_errors
        )

    def test_uneven_labels_use_the_values(self):
        # issue 28: labels=[1, 2, 3, 5, 8] reported mean_human 1.97 (positions 0..4) where
        # the ratings' mean is 3.52; moments are on the values, kappa on the positions
        human, machine = _panel()
        values = np.array([1, 2, 3, 5, 8])
        h = np.where(np.isnan(human), np.nan, values[np.nan_to_num(human, nan=1).astype(int) - 1])
        m = values[machine - 1]
        res = qwkit.standardized_mean_difference(h, m, labels=values)
        assert res.mean_human == pytest.approx(np.mean(h[:, 0]), rel=1e-14)
        assert res.mean_machine == pytest.approx(np.mean(m), rel=1e-14)
        assert res.sd_human == pytest.approx(np.std(h[:, 0], ddof=1), rel=1e-14)
        sd = np.sqrt((np.var(h[:, 0], ddof=1) + np.var(m, ddof=1)) / 2)  # pooled, the default
        on_values = (np.mean(m) - np.mean(h[:, 0])) / sd
        assert res.statistic == pytest.approx(on_values, rel=1e-13)
        assert res.moments_on == "values"
        # PRMSE and r (in evaluate_scorer) on the values too: the same as with no labels,
        # where the integers 1..8 are the scale and the values are the ratings
        assert qwkit.prmse(h, m, labels=values).statistic == pytest.approx(
            qwkit.prmse(h, m).statistic, rel=1e-13
        )
        ev = qwkit.evaluate_scorer(h, m, labels=values)
        plain = qwkit.evaluate_scorer(h, m)
        assert ev.pearson_r.statistic == pytest.approx(plain.pearson_r.statistic, rel=1e-13)
        assert ev.smd.statistic == pytest.approx(plain.smd.statistic, rel=1e-13)
        # kappa keeps its convention: positions on the declared scale
        assert ev.kappa.statistic == pytest.approx(
            qwkit.evaluate_scorer(human, machine).kappa.statistic, rel=1e-13
        )

    def test_text_labels_report_positions(self):
        human, machine = _panel()
        words = np.array(["a", "b", "c", "d", "e"], dtype=object)
        h = np.where(np.isnan(human), None, words[np.nan_to_num(human, nan=1).astype(int) - 1])
        res = qwkit.standardized_mean_difference(h, words[machine - 1], labels=list(words))
        assert res.mean_human == pytest.approx(np.mean(human[:, 0]), rel=1e-14)  # 1 … K
        assert res.moments_on == "positions"
        assert "positions 1..K" in res.summary()
        assert qwkit.prmse(h, words[machine - 1], labels=list(words)).moments_on == "positions"

    @pytest.mark.parametrize("categorical", [False, True])
    def test_declared_order_does_not_change_a_value(self, categorical):
        # issue 28: labels=[5, 4, 3, 2, 1] flipped the sign of the SMD and reported a
        # negative sd_human (and so did a column whose ordered categories run high to low)
        human, machine = _panel()
        up = qwkit.standardized_mean_difference(human, machine, labels=[1, 2, 3, 4, 5])
        if categorical:  # ordered categories from high to low
            order = pd.CategoricalDtype([5, 4, 3, 2, 1], ordered=True)
            frame = pd.DataFrame(
                {"h1": human[:, 0], "h2": human[:, 1], "m": machine.astype(float)}
            ).astype(order)
            down = qwkit.standardized_mean_difference(frame[["h1", "h2"]], frame["m"])
        else:
            down = qwkit.standardized_mean_difference(human, machine, labels=[5, 4, 3, 2, 1])
        assert down.statistic == pytest.approx(up.statistic, rel=1e-13)
        assert (down.mean_human, down.mean_machine) == pytest.approx(
            (up.mean_human, up.mean_machine), rel=1e-14
        )
        assert down.sd_human == pytest.approx(up.sd_human, rel=1e-14) and down.sd_human > 0
        args = (frame[["h1", "h2"]], frame["m"]) if categorical else (human, machine)
        kw = {} if categorical else {"labels": [5, 4, 3, 2, 1]}
        ev_down = qwkit.evaluate_scorer(*args, **kw)
        ev_up = qwkit.evaluate_scorer(human, machine)
        for part in ("kappa", "pearson_r", "smd", "prmse"):
            assert getattr(ev_down, part).statistic == pytest.approx(
                getattr(ev_up, part).statistic, rel=1e-12
            ), part


class TestOptions:
    @pytest.mark.parametrize(
        ("call", "parameter", "says"),
        [
            (
                lambda h, m: qwkit.evaluate_scorer(h, m, min_kappa=1.5),
                "min_kappa",
                "`min_kappa` must be in [0, 1)",
            ),
            (
                lambda h, m: qwkit.evaluate_scorer(h, m, min_correlation=1.0),
                "min_correlation",
                "`min_correlation` must be in [0, 1)",
            ),
            (
                lambda h, m: qwkit.evaluate_scorer(h, m, min_kappa="0.7"),
                "min_kappa",
                "`min_kappa` must be a real number in [0, 1); got '0.7'.",
            ),
            (
                lambda h, m: qwkit.alt_test(h, m, epsilon=1.0, min_items_per_rater=10),
                "epsilon",
                "`epsilon` must be in [0, 1) (a difference of win rates",
            ),
            (
                lambda h, m: qwkit.alt_test(h, m, q=0, min_items_per_rater=10),
                "q",
                "`q` must be strictly between 0 and 1; got 0.0.",
            ),
            (
                lambda h, m: qwkit.degradation_sample_size(0.8, 0.78, alpha=0.6),
                "alpha",
                "`alpha` is the level of a one-sided test: strictly between 0 and 0.5",
            ),
            (
                lambda h, m: qwkit.degradation_test(h, 3),
                "machine",
                "`machine` must hold one score per item, array-like of shape (n_items,); got 3.",
            ),
            (
                lambda h, m: qwkit.alt_test(h, 3),
                "judge",
                "`judge` must hold one score per item",
            ),
        ],
        ids=[
            "min_kappa",
            "min_correlation",
            "min_kappa-text",
            "epsilon",
            "q",
            "alpha",
            "scalar-machine",
            "scalar-judge",
        ],
    )
    def test_refused_under_its_name(self, call, parameter, says):
        human, machine = _panel()
        with pytest.raises(qwkit.QwkitError) as info:
            call(human, machine)
        assert info.value.parameter == parameter
        assert says in str(info.value)

    def test_bounds_that_are_meaningful_are_taken(self):
        human, machine = _panel()
        assert qwkit.evaluate_scorer(human, machine, min_kappa=0.0, min_correlation=0.99)
        with pytest.warns(qwkit.DesignWarning, match="two annotators"):
            assert qwkit.alt_test(human, machine, epsilon=0.0, min_items_per_rater=10)
        assert qwkit.degradation_sample_size(0.8, 0.78, alpha=0.49).n_items >= 2


class TestDeclaredOrders:
    def test_human_and_machine_declaring_other_orders_are_refused(self):
        # before: the humans' order was taken and the machine's reversed one ignored
        human, machine = _panel()
        up = pd.CategoricalDtype([1.0, 2.0, 3.0, 4.0, 5.0], ordered=True)
        down = pd.CategoricalDtype([5.0, 4.0, 3.0, 2.0, 1.0], ordered=True)
        frame = pd.DataFrame(human, columns=["r1", "r2"]).astype(up)
        with pytest.raises(qwkit.QwkitError) as info:
            qwkit.degradation_test(frame, pd.Series(machine.astype(float)).astype(down))
        assert str(info.value) == (
            "`human` and `machine` declare different category orders [1.0, 2.0, 3.0, 4.0, "
            "5.0] and [5.0, 4.0, 3.0, 2.0, 1.0]; pass `labels`."
        )
        assert info.value.parameters == ("machine", "human", "labels")
        same = qwkit.degradation_test(frame, pd.Series(machine.astype(float)).astype(up))
        assert same.statistic == qwkit.degradation_test(human, machine).statistic


class TestDegenerateData:
    """Before: a perfect correlation divided by zero on Fisher's scale, and a bootstrap
    whose jackknife was undefined (two items in a subgroup) asked for draws it did not
    have — a ZeroDivisionError and a TypeError from ``evaluate_scorer``."""

    def test_a_machine_on_one_line_with_the_humans(self):
        human = np.column_stack([np.arange(20) % 4, np.arange(20) % 4]).astype(float)
        res = qwkit.evaluate_scorer(human, np.arange(20) % 4)
        r = next(c for c in res.criteria if c.name == "Pearson r")
        assert (r.estimate, r.low, r.high, r.pvalue) == (1.0, 1.0, 1.0, 0.0)

    @pytest.mark.filterwarnings("ignore::qwkit.UndefinedKappaWarning")
    @pytest.mark.filterwarnings("ignore::qwkit.DegenerateIntervalWarning")
    def test_a_bootstrap_without_draws_has_no_interval(self):
        human = np.array([[1, 1, 1], [3, 3, 3], [3, 3, 3], [1, 2, 1]], dtype=float)
        res = qwkit.evaluate_scorer(
            human, [1, 3, 3, 1], groups=[0, 1, 0, 1], method="bootstrap", n_resamples=200, rng=1
        )
        kappas = [g.kappa for g in res.models[0].groups]
        assert all(np.isnan(k.low) and np.isnan(k.high) for k in kappas)
        assert all(k.statistic == 1.0 for k in kappas)


class TestSparsePanel:
    """A crowd as a ``RatingsTable``: its rating slots — the k-th rating of each item in
    the order of the long table's rows — are the human columns (docs/evaluation.md §1)."""

    @staticmethod
    def _crowd(n=150, n_raters=40):
        rng = np.random.default_rng(SEED)
        truth = rng.normal(3, 1, n)
        rows = []
        for i in range(n):
            for g in rng.choice(n_raters, int(rng.integers(1, 5)), replace=False):
                rows.append(
                    (i, f"w{g}", int(np.clip(np.rint(truth[i] + rng.normal(0, 0.6)), 1, 5)))
                )
        order = rng.permutation(len(rows))
        rows = [rows[k] for k in order]  # rows in any order; slots follow it per item
        machine = np.clip(truth + rng.normal(0, 0.5, n), 1, 5)
        return rows, machine

    @staticmethod
    def _slots(rows, n):
        per = [[] for _ in range(n)]
        for item, _, value in rows:
            per[item].append(value)
        width = max(len(p) for p in per)
        out = np.full((n, width), np.nan)
        for i, p in enumerate(per):
            out[i, : len(p)] = p
        return {f"rating {k + 1}": out[:, k] for k in range(width)}

    def test_every_function_reads_the_slots(self):
        rows, machine = self._crowd()
        items, raters, values = zip(*rows, strict=True)
        table = qwkit.ratings_from_long(items, raters, values)
        slots = self._slots(rows, len(machine))
        a = qwkit.evaluate_scorer(table, machine, pairs="all")
        b = qwkit.evaluate_scorer(slots, machine, pairs="all")
        assert a.to_dict() == b.to_dict()
        assert a.human_names[:2] == ("rating 1", "rating 2")
        for fn, kw in (
            (qwkit.degradation_test, {"pairs": "all"}),
            (qwkit.prmse, {}),
            (qwkit.standardized_mean_difference, {}),
            (qwkit.alt_test, {"alignment": "kappa", "min_items_per_rater": 5}),
        ):
            got, want = fn(table, np.rint(machine), **kw), fn(slots, np.rint(machine), **kw)
            assert got.to_dict() == want.to_dict(), fn.__name__

    def test_complete_panels_read_as_their_raters(self):
        human, machine = _panel()
        full = np.column_stack([human[:, 0], np.nan_to_num(human[:, 1], nan=3.0), machine])
        items = np.repeat(np.arange(full.shape[0]), 3)
        raters = np.tile(["a", "b", "c"], full.shape[0])
        table = qwkit.ratings_from_long(items, raters, full.ravel())
        got = qwkit.degradation_test(table, machine)
        want = qwkit.degradation_test(full, machine)
        assert got.statistic == want.statistic and got.standard_error == want.standard_error

    def test_a_few_items_rated_very_often_are_refused_with_the_memory(self):
        n = 2_000_000
        items = np.r_[np.repeat(np.arange(n // 2), 1), np.zeros(5000, dtype=np.int64)]
        raters = np.r_[np.zeros(n // 2, dtype=np.int64), np.arange(1, 5001)]
        table = qwkit.ratings_from_long(items, raters, np.ones(items.size))
        with pytest.raises(ValueError, match=r"item 0 has 5,001 ratings.*GiB") as e:
            qwkit.prmse(table, np.ones(n // 2))
        assert e.value.parameter == "human"
