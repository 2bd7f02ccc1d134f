"""The evaluation's second round (issue 30): items and ids, clusters, traits, the small-sample
intervals (effective df, MOVER, Fieller) against their formulas written out, the minimum of
20 units, the definitions (pooled and unpooled SMD, the SMD within a group, DSM, trimming,
rounding), the fairness analyses against statsmodels' OLS, the notes on the human reference,
the comparisons of machines, and the registry of criteria behind the docs' table."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats

import qwkit
from qwkit._base._registry import CRITERIA, DEFAULT_CRITERIA

SEED = 20261207
DOCS = Path(__file__).resolve().parents[2] / "docs" / "evaluation.md"


def panel(n=300, n_double=None, *, k=5, noise=0.6, machine_noise=0.5, real=True, seed=SEED):
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    mid = (k + 1) / 2
    human = np.clip(np.rint(mid + truth[:, None] + rng.normal(0, noise, (n, 2))), 1, k)
    if n_double is not None:
        human[n_double:, 1] = np.nan
    machine = mid + truth + rng.normal(0, machine_noise, n)
    if not real:
        machine = np.clip(np.rint(machine), 1, k)
    return human, machine


# ---------------------------------------------------------------------------- intervals


def _jackknife_values(fn, n):
    return np.array([fn(np.arange(n) != i) for i in range(n)])


class TestSmallSampleIntervals:
    def test_effective_df_is_satterthwaite_of_the_jackknife(self):
        # eq. S1: ν = 2G/(b₂ − 1), b₂ the kurtosis of the delete-one values, ≤ G − 1
        from qwkit._evaluation._estimates import jackknife

        rng = np.random.default_rng(SEED)
        loo = rng.standard_t(3, size=40)
        se, df = jackknife(loo)
        dev = loo - loo.mean()
        assert se == pytest.approx(math.sqrt(39 / 40 * np.sum(dev**2)), rel=1e-13)
        kurt = np.mean(dev**4) / np.mean(dev**2) ** 2
        assert df == pytest.approx(min(39.0, 80.0 / (kurt - 1.0)), rel=1e-12)
        assert jackknife(np.ones(7))[1] == 6.0  # no spread: G − 1

    def test_kappa_interval_is_the_jackknife_on_fisher_z(self):
        h, m = panel(60, real=False)
        res = qwkit.evaluate_scorer(h, m)
        e = res.kappa
        kappa = lambda keep: qwkit.kappa_score(h[keep, 0], m[keep])  # noqa: E731
        z = np.arctanh(_jackknife_values(kappa, 60))
        se = math.sqrt(59 / 60 * np.sum((z - z.mean()) ** 2))
        kurt = np.mean((z - z.mean()) ** 4) / np.mean((z - z.mean()) ** 2) ** 2
        df = min(59.0, 120.0 / (kurt - 1.0))
        c = stats.t.ppf(0.975, df)
        centre = np.arctanh(e.statistic)
        assert (e.low, e.high) == pytest.approx(
            (math.tanh(centre - c * se), math.tanh(centre + c * se)), rel=1e-9
        )
        assert e.df == pytest.approx(df, rel=1e-9)

    def test_degradation_interval_is_mover(self):
        # eq. S2 (Zou 2007) from each kappa's Fisher-z jackknife interval and the jackknife
        # correlation of the two kappas
        h, m = panel(40, real=False)
        res = qwkit.degradation_test(h, m)

        def side(fn):
            loo = _jackknife_values(fn, 40)
            z = np.arctanh(loo)
            dev = z - z.mean()
            se = math.sqrt(39 / 40 * np.sum(dev**2))
            df = min(39.0, 80.0 / (np.mean(dev**4) / np.mean(dev**2) ** 2 - 1.0))
            est = fn(np.ones(40, dtype=bool))
            c = stats.t.ppf(0.975, df)
            return (
                est,
                loo,
                (math.tanh(np.arctanh(est) - c * se), math.tanh(np.arctanh(est) + c * se)),
            )

        a, loo_a, (la, ua) = side(lambda k: qwkit.kappa_score(h[k, 0], m[k]))
        b, loo_b, (lb, ub) = side(lambda k: qwkit.kappa_score(h[k, 0], h[k, 1]))
        r = np.corrcoef(loo_a, loo_b)[0, 1]
        low = a - b - math.sqrt((a - la) ** 2 + (ub - b) ** 2 - 2 * r * (a - la) * (ub - b))
        high = a - b + math.sqrt((ua - a) ** 2 + (b - lb) ** 2 - 2 * r * (ua - a) * (b - lb))
        assert tuple(res.confidence_interval()) == pytest.approx((low, high), rel=1e-9)
        # the p-value is the one-sided level at which the lower limit reaches −margin
        level = 1 - 2 * res.pvalue
        assert res.confidence_interval(level)[0] == pytest.approx(-0.1, abs=1e-9)

    def test_prmse_interval_is_fieller(self):
        # eq. S3: the set of ρ₀ where U(ρ₀) = A − (1 − ρ₀)B is within t·SE of 0
        h, m = panel(120, 60)
        res = qwkit.prmse(h, m)
        from qwkit._evaluation._prmse import _parts, prmse_sums

        sums = prmse_sums(h, np.clip(m, 1 - 0.4998, 5.4998))
        s = sums.z.sum(axis=1)
        loo = _parts(s[None, :] - sums.z.T)
        a_l, b_l = loo[2] - loo[1], loo[1]  # A − B and B, each item left out
        _, vt, mse = _parts(s)
        for rho in res.confidence_interval():
            u = (mse - vt) + rho * vt
            u_l = a_l + rho * b_l
            se = math.sqrt(119 / 120 * np.sum((u_l - u_l.mean()) ** 2))
            t = u / se
            assert abs(t) == pytest.approx(stats.t.ppf(0.975, res._inference.df), rel=1e-6)

    def test_prmse_without_true_score_variance_is_unbounded_below(self):
        rng = np.random.default_rng(SEED)
        h = rng.integers(1, 6, (30, 2)).astype(float)  # raters agree by chance only
        h[:, 1] = np.where(rng.random(30) < 0.9, h[:, 1], np.nan)
        m = rng.normal(3, 1, 30)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            res = qwkit.prmse(h, m)
        low, _ = res.confidence_interval()
        assert math.isnan(low) or low == -math.inf

    def test_one_sided_pvalues_invert_the_intervals(self):
        h, m = panel(80, 50)
        res = qwkit.evaluate_scorer(h, m, confidence_level=0.9)
        for c in res.criteria:
            if c.relation == ">=":
                assert (c.low > c.threshold) == (c.pvalue < 0.05), c.name


class TestFewestUnits:
    def test_below_20_double_scored_items_the_verdict_is_inconclusive(self):
        h, m = panel(200, 12)
        res = qwkit.evaluate_scorer(h, m)
        deg = next(c for c in res.criteria if c.criterion == "degradation")
        assert deg.verdict == "inconclusive"
        assert deg.reason.startswith("12 double-scored items")
        assert "few_units" in {d.code for d in res.diagnostics}
        assert res.degradation.verdict == "inconclusive"
        # from 20 on the interval decides
        h, m = panel(400, 200, machine_noise=0.3)
        assert qwkit.degradation_test(h, m).verdict == "pass"

    def test_clusters_count_not_items(self):
        h, m = panel(300, 150)
        few = np.arange(300) % 10  # ten clusters
        res = qwkit.evaluate_scorer(h, m, cluster=few)
        assert all(c.verdict == "inconclusive" for c in res.criteria)
        assert all("clusters" in c.reason for c in res.criteria)


# ---------------------------------------------------------------------------- design


class TestItems:
    def test_duplicate_ids_are_refused_with_their_rows(self):
        h, m = panel(50, 25)
        ids = np.arange(50).astype(str)
        ids[31] = "7"
        with pytest.raises(qwkit.QwkitError) as info:
            qwkit.evaluate_scorer(h, m, item=ids)
        assert info.value.parameter == "item" and info.value.row == 31
        assert "'7' twice (rows 7 and 31)" in str(info.value)
        assert "evaluate_traits" in str(info.value)

    def test_an_id_column_pairs_frames_in_another_order(self):
        h, m = panel(80, 40)
        frame = pd.DataFrame({"id": [f"e{i}" for i in range(80)], "h1": h[:, 0], "h2": h[:, 1]})
        scores = pd.DataFrame({"id": frame["id"], "model": m}).iloc[::-1]
        got = qwkit.evaluate_scorer(frame, scores, item="id")
        want = qwkit.evaluate_scorer(h, {"model": m})
        assert [c.estimate for c in got.criteria] == pytest.approx(
            [c.estimate for c in want.criteria], rel=1e-12
        )
        # the same with Polars frames, which have no index: the column pairs them
        got_pl = qwkit.evaluate_scorer(pl.from_pandas(frame), pl.from_pandas(scores), item="id")
        assert got_pl.kappa.statistic == pytest.approx(want.kappa.statistic, rel=1e-12)
        with pytest.raises(qwkit.QwkitError, match="has no column 'key'"):
            qwkit.evaluate_scorer(frame, scores, item="key")

    def test_pandas_index_names_the_items(self):
        h, m = panel(40, 20)
        frame = pd.DataFrame(h, index=[f"x{i % 39}" for i in range(40)])  # x0 twice
        with pytest.raises(qwkit.QwkitError, match="'x0' twice"):
            qwkit.evaluate_scorer(frame, m)


class TestClusters:
    def test_cluster_robust_is_the_delete_one_cluster_jackknife(self):
        h, m = panel(200, 100)
        m = np.clip(m, 1, 5)
        prompts = np.repeat(np.arange(40), 5)
        res = qwkit.smd = qwkit.standardized_mean_difference(h, m, cluster=prompts)
        assert res.n_clusters == 40

        def smd(keep):
            hh, mm = h[keep, 0], m[keep]
            return (mm.mean() - hh.mean()) / math.sqrt((hh.var(ddof=1) + mm.var(ddof=1)) / 2)

        loo = np.array([smd(prompts != c) for c in range(40)])
        se = math.sqrt(39 / 40 * np.sum((loo - loo.mean()) ** 2))
        assert res.standard_error == pytest.approx(se, rel=1e-10)
        # nested responses that move together: clusters widen the interval
        rng = np.random.default_rng(SEED)
        shift = np.repeat(rng.normal(0, 0.6, 40), 5)
        m2 = m + shift
        plain = qwkit.standardized_mean_difference(h, m2)
        nested = qwkit.standardized_mean_difference(h, m2, cluster=prompts)
        assert nested.standard_error > 1.5 * plain.standard_error

    def test_one_cluster_is_refused(self):
        h, m = panel(30, 20)
        with pytest.raises(qwkit.QwkitError, match="one cluster") as info:
            qwkit.evaluate_scorer(h, m, cluster=np.zeros(30))
        assert info.value.parameter == "cluster"

    def test_permuting_the_items_changes_nothing(self):
        h, m = panel(150, 60)
        prompts = np.repeat(np.arange(30), 5)
        order = np.random.default_rng(SEED).permutation(150)
        a = qwkit.evaluate_scorer(h, m, cluster=prompts)
        b = qwkit.evaluate_scorer(h[order], m[order], cluster=prompts[order])
        for x, y in zip(a.criteria, b.criteria, strict=True):
            assert (y.estimate, y.low, y.high) == pytest.approx(
                (x.estimate, x.low, x.high), rel=1e-9
            )


class TestTraits:
    def _long(self):
        rng = np.random.default_rng(SEED)
        rows = []
        for trait, bias in (("content", 0.0), ("style", 0.8)):
            truth = rng.normal(3, 1, 120)
            for i, t in enumerate(truth):
                h1 = int(np.clip(np.rint(t + rng.normal(0, 0.5)), 1, 5))
                h2 = int(np.clip(np.rint(t + rng.normal(0, 0.5)), 1, 5)) if i % 2 else None
                rows.append((f"essay{i}", trait, h1, h2, t + bias + rng.normal(0, 0.4)))
        return pd.DataFrame(rows, columns=["id", "trait", "h1", "h2", "model"])

    def test_each_trait_on_its_own_rows(self):
        data = self._long()
        res = qwkit.evaluate_traits(
            data[["id", "trait", "h1", "h2"]], data["model"], "trait", item="id"
        )
        assert res.traits == ("content", "style")
        for t in res.traits:
            rows = data["trait"] == t
            alone = qwkit.evaluate_scorer(
                data.loc[rows, ["h1", "h2"]].to_numpy(dtype=float),
                data.loc[rows, "model"].to_numpy(),
            )
            assert [c.estimate for c in res[t].criteria] == pytest.approx(
                [c.estimate for c in alone.criteria], rel=1e-12
            )
        by = {(t, c.criterion): c for t, c in res.criteria}
        assert by[("style", "smd")].verdict == "fail"  # the biased trait
        assert by[("content", "smd")].verdict != "fail"
        # Holm over the two traits of each criterion
        p = {k: c.pvalue for k, c in by.items()}
        adjusted = dict(
            zip([(t, c.criterion) for t, c in res.criteria], res.pvalues_adjusted, strict=True)
        )
        lo, hi = sorted((p[("content", "kappa")], p[("style", "kappa")]))
        assert sorted(
            (adjusted[("content", "kappa")], adjusted[("style", "kappa")])
        ) == pytest.approx([min(1, 2 * lo), max(min(1, 2 * lo), hi)])
        assert "tests, each at its own level" in res.summary()
        assert res.to_dict()["criteria"][0]["trait"] == "content"

    def test_an_id_repeated_within_a_trait_is_refused(self):
        data = self._long()
        data.loc[5, "id"] = data.loc[3, "id"]
        with pytest.raises(
            qwkit.QwkitError,
            match=r"Trait 'content': `item` holds the id 'essay3' twice \(rows 3 and 5\)",
        ) as info:
            qwkit.evaluate_traits(
                data[["id", "trait", "h1", "h2"]], data["model"], "trait", item="id"
            )
        assert info.value.row == 5

    def test_a_trait_without_double_scoring_is_named(self):
        data = self._long()
        data.loc[data["trait"] == "style", "h2"] = None
        with pytest.raises(
            qwkit.QwkitError, match="Trait 'style': `human` column 'h2' rates no item"
        ):
            qwkit.evaluate_traits(data[["trait", "h1", "h2"]], data["model"], "trait")


# ---------------------------------------------------------------------------- definitions


class TestDefinitions:
    def test_trimming_and_rounding_as_rsmtool(self):
        h = np.array([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]] * 6, dtype=float)
        m = np.array([0.2, 2.5, 3.5, 4.2, 6.1] * 6)
        res = qwkit.evaluate_scorer(h, m)
        model = res.models[0]
        assert model.n_trimmed == 12  # 0.2 and 6.1, six times each
        assert model.machine.min == pytest.approx(1 - 0.4998)
        assert model.machine.max == pytest.approx(5 + 0.4998)
        # np.rint of the values: 2.5 → 2, 3.5 → 4 (halves to even), the trimmed ends → 1, 5
        assert model.distribution.machine.tolist() == [6, 6, 0, 12, 6]
        kept = qwkit.evaluate_scorer(h, m, trim=False).models[0]
        assert kept.n_trimmed == 0 and kept.n_outside == 12
        assert "outside_scale" in {
            d.code for d in qwkit.evaluate_scorer(h, m, trim=False).diagnostics
        }
        # a tolerance (RSMTool's trim_tolerance), and what is not one
        zero = qwkit.evaluate_scorer(h, m, trim=0).models[0]
        assert (zero.machine.min, zero.machine.max) == (1.0, 5.0) and zero.n_trimmed == 12
        # untrimmed, a rounded score beyond the scale is a category of its own (RSMTool's
        # unweighted kappa): 0.2 → 0 and 6.1 → 6 agree with no human
        agree = np.array([1, 2, 3, 4, 5] * 6) == np.rint(m)
        assert kept.exact_agreement.statistic == pytest.approx(agree.mean())
        with pytest.raises(qwkit.QwkitError, match="`trim` as a tolerance must be"):
            qwkit.evaluate_scorer(h, m, trim=-0.1)
        with pytest.raises(qwkit.QwkitTypeError, match="`trim` must be True, False or a"):
            qwkit.evaluate_scorer(h, m, trim="yes")

    def test_group_smd_and_dsm_are_the_field_s(self):
        rng = np.random.default_rng(SEED)
        h, m = panel(400, 200)
        m = np.clip(m, 1, 5)
        g = np.where(rng.random(400) < 0.3, "b", "a")
        m[g == "b"] += 0.3  # a group the machine favours
        res = qwkit.evaluate_scorer(h, m, groups=g, criteria=("kappa", "group_smd", "dsm"))
        h1 = h[:, 0]
        pooled = math.sqrt((h1.var(ddof=1) + m.var(ddof=1)) / 2)
        z = (m - m.mean()) / m.std(ddof=1) - (h1 - h1.mean()) / h1.std(ddof=1)
        for grp in res.groups:
            rows = g == grp.group
            assert grp.group_smd.statistic == pytest.approx(
                (m[rows].mean() - h1[rows].mean()) / pooled, rel=1e-12
            )
            assert grp.dsm.statistic == pytest.approx(z[rows].mean(), rel=1e-12)
        b = res.groups[1]
        assert b.dsm.statistic > 0.15 and res.groups[0].dsm.statistic < 0
        assert [c.criterion for c in res.criteria] == ["kappa", "group_smd", "dsm"]
        # the names of 0.2 still answer, with a FutureWarning
        for old_name, new_name in (("smd", "group_smd"), ("verdict", "verdict_group_smd"),
                                   ("pvalue", "pvalue_group_smd")):  # fmt: skip
            with pytest.warns(FutureWarning, match=new_name):
                assert getattr(b, old_name) == getattr(b, new_name)

    def test_fairness_fits_are_statsmodels_ols(self):
        import statsmodels.formula.api as smf
        from statsmodels.stats.anova import anova_lm

        rng = np.random.default_rng(SEED)
        h, m = panel(300, 100)
        m = np.clip(m, 1, 5)
        g = np.array(["x", "y", "z"])[rng.integers(0, 3, 300)]
        m[g == "z"] += 0.4
        res = qwkit.evaluate_scorer(h, m, groups=g)
        fair = res.fairness
        df = pd.DataFrame({"sc1": h[:, 0], "m": m, "group": g})
        df["error"] = df["m"] - df["sc1"]
        df["SE"] = df["error"] ** 2
        order = df["group"].value_counts().reset_index()
        order.columns = ["group", "n"]
        order = order.sort_values(["n", "group"], ascending=[False, True])["group"].tolist()
        df["group"] = pd.Categorical(df["group"], categories=order)
        hcount = df["sc1"].value_counts().reset_index()
        hcount.columns = ["v", "n"]
        hcats = hcount.sort_values(["n", "v"], ascending=[False, True])["v"].tolist()
        df["sc1_cat"] = pd.Categorical(df["sc1"], categories=hcats)
        osa = smf.ols("SE ~ group", data=df).fit()
        osd = smf.ols("error ~ group", data=df).fit()
        null = smf.ols("error ~ sc1_cat", data=df).fit()
        csd = smf.ols("error ~ group + sc1_cat", data=df).fit()
        assert fair.overall_score_accuracy.r2 == pytest.approx(osa.rsquared_adj, rel=1e-10)
        assert fair.overall_score_accuracy.pvalue == pytest.approx(osa.f_pvalue, rel=1e-8)
        assert fair.overall_score_difference.r2 == pytest.approx(osd.rsquared_adj, rel=1e-10)
        assert fair.conditional_score_difference.r2 == pytest.approx(
            csd.rsquared_adj - null.rsquared_adj, rel=1e-9
        )
        assert fair.conditional_score_difference.pvalue == pytest.approx(
            anova_lm(null, csd).values[1][-1], rel=1e-8
        )
        assert fair.overall_score_difference.base_group == order[0]
        names = [f"group[T.{x}]" for x in order[1:]]
        assert fair.overall_score_difference.estimate == pytest.approx(
            tuple(osd.params[names]), rel=1e-10
        )
        low = tuple(osd.conf_int().loc[names, 0])
        assert fair.overall_score_difference.low == pytest.approx(low, rel=1e-9)


class TestNotes:
    def test_an_unreliable_reference_is_said(self):
        rng = np.random.default_rng(SEED)
        h = rng.integers(1, 6, (200, 2)).astype(float)  # humans who barely agree
        m = h[:, 0] + rng.normal(0, 0.3, 200)
        res = qwkit.evaluate_scorer(h, np.clip(m, 1, 5))
        (note,) = [d for d in res.diagnostics if d.code == "low_human_agreement"]
        assert "below the kappa criterion 0.7" in note.message
        assert "low_human_agreement" in str(res.to_dict()["diagnostics"])
        assert "means little" in res.summary()

    def test_adjudicated_ratings_are_said(self):
        h, m = panel(300, 100)
        h[:, 1] = np.where(np.isnan(h[:, 1]), np.nan, h[:, 0])  # second ratings copied
        h[:3, 1] = np.clip(h[:3, 0] + 1, 1, 5)
        res = qwkit.evaluate_scorer(h, m)
        assert "implausible_human_agreement" in {d.code for d in res.diagnostics}


class TestComparisons:
    def test_each_pair_of_machines_holm_adjusted(self):
        h, m = panel(300, 150)
        machines = {"a": m, "b": m + np.random.default_rng(1).normal(0, 0.8, 300), "c": 3 + 0 * m}
        machines["c"] = np.clip(m + 0.2, 1, 5)
        res = qwkit.evaluate_scorer(h, machines)
        assert [(c.a, c.b) for c in res.comparisons] == [("a", "b"), ("a", "c"), ("b", "c")]
        ab = res.comparisons[0]
        assert ab.estimate.statistic == pytest.approx(ab.kappa_a - ab.kappa_b, rel=1e-12)
        assert ab.kappa_a == pytest.approx(res["a"].kappa.statistic, rel=1e-12)
        ps = np.array([c.pvalue for c in res.comparisons])
        order = np.argsort(ps)
        holm = np.maximum.accumulate(np.minimum(1, (3 - np.arange(3)) * ps[order]))
        assert [c.pvalue_adjusted for c in res.comparisons] == pytest.approx(
            list(holm[np.argsort(order)])
        )


class TestRegistry:
    def test_the_docs_table_is_the_registry(self):
        text = DOCS.read_text(encoding="utf-8")
        rows = []
        for name, r in CRITERIA.items():
            minus = "−" if name == "degradation" else ""
            test = (
                f"estimate ≥ {minus}`{r.parameter}`"
                if r.relation == ">="
                else f"\\|estimate\\| ≤ `{r.parameter}`"
            )
            rows.append(
                f"| `{name}` | {r.display} | {test} | {r.default:g} | {r.source} | "
                f"{r.needs or '—'} |"
            )
        for row in rows:
            assert row in text
        table = re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.MULTILINE)
        assert table == list(CRITERIA)

    def test_defaults_and_criteria_option(self):
        import inspect

        sig = inspect.signature(qwkit.evaluate_scorer).parameters
        for r in CRITERIA.values():
            assert sig[r.parameter].default == r.default
        assert set(DEFAULT_CRITERIA) <= set(CRITERIA)
        h, m = panel(100, 50)
        with pytest.raises(qwkit.QwkitError, match="`criteria` must be 'kappa'"):
            qwkit.evaluate_scorer(h, m, criteria=("kappa", "qwk"))


def test_evaluate_traits_of_no_rows_is_refused():
    # before: a result with no trait, whose summary raised IndexError
    with pytest.raises(qwkit.QwkitError, match="`trait` is empty") as info:
        qwkit.evaluate_traits(np.empty((0, 2)), np.empty(0), np.empty(0))
    assert info.value.parameter == "trait"
