"""Tests of the LLM-judge analyses: judge_reliability and position_bias_test.

Oracles: qwkit's own icc, agreement_score (Krippendorff), kappa_score and kendall_w on
the same numbers; the textbook ANOVA, a leave-each-item-out jackknife and pooled kappa
by loops (``tests/oracles/naive_judge.py``); statsmodels' Bowker test and Holm
adjustment; scipy's exact binomial test (McNemar). Published values: Shrout & Fleiss
(1979) Table 2. Coverage, size and power are simulated in ``benchmarks/coverage_judge.py``
(docs/judge.md, "Validation"), not here.
"""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import SquareTable
from statsmodels.stats.multitest import multipletests

import qwkit
from oracles import naive_judge as naive

SEED = 20261121
DATA = Path(__file__).resolve().parents[1] / "data"

# Shrout & Fleiss (1979), Psychological Bulletin 86:420-428, Table 2: 6 targets x 4 judges;
# their Table 4 prints ICC(1,1) = .17 and ICC(2,1) = .29.
SHROUT_FLEISS = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    dtype=float,
)


def _long(matrix: np.ndarray, judge=None):
    n, r = matrix.shape
    out = {
        "item": np.repeat(np.arange(n), r),
        "run": np.tile(np.arange(r), n),
        "score": matrix.ravel(),
    }
    if judge is not None:
        out["judge"] = np.full(n * r, judge)
    return out


def _panel(n=120, r=3, m=3, seed=SEED, missing=0.0):
    """Judges that read a true score with their own noise, two to three humans."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    rows = []
    for j in range(m):
        shared = rng.normal(0, 0.5, n)
        x = np.clip(
            np.rint(3 + truth[:, None] + shared[:, None] + rng.normal(0, 0.7, (n, r))), 1, 5
        )
        if missing:
            x[rng.random((n, r)) < missing] = np.nan
        frame = pd.DataFrame(_long(x, judge=f"j{j}"))
        frame["system"] = frame["item"] % 4
        rows.append(frame)
    human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.6, (n, 3))), 1, 5)
    human[rng.random(n) < 0.4, 2] = np.nan
    return pd.concat(rows, ignore_index=True), human


@pytest.fixture(scope="module")
def panel():
    frame, human = _panel()
    res = qwkit.judge_reliability(
        frame, item="item", run="run", score="score", judge="judge", human=human,
        system="system", rng=1, n_resamples=500,
    )  # fmt: skip
    return frame, human, res


# ---------------------------------------------------------------------------- published


class TestPublished:
    def test_shrout_fleiss_table_4(self):
        res = qwkit.judge_reliability(**_long(SHROUT_FLEISS), runs="prompts")
        j = res[0]
        assert round(j.icc.statistic, 2) == 0.17
        assert round(j.icc_agreement.statistic, 2) == 0.29

    def test_the_same_numbers_as_qwkit_icc(self):
        res = qwkit.judge_reliability(**_long(SHROUT_FLEISS), runs="prompts")
        j = res[0]
        assert j.icc.statistic == pytest.approx(
            qwkit.icc(SHROUT_FLEISS, form="1,1").statistic, rel=1e-12
        )
        assert j.icc_agreement.statistic == pytest.approx(
            qwkit.icc(SHROUT_FLEISS, form="A,1").statistic, rel=1e-12
        )
        # Spearman-Brown of one run to the mean of the four: ICC(1,k) of McGraw & Wong
        k4 = j.runs_needed  # basis ICC(A,1) for prompts
        assert k4.basis == "ICC(A,1)"
        assert k4.reliability[3][1] == pytest.approx(
            qwkit.icc(SHROUT_FLEISS, form="A,k").statistic, rel=1e-12
        )


# ---------------------------------------------------------------------------- oracles


class TestSelfConsistency:
    def test_icc1_with_missing_runs_is_the_unbalanced_anova(self):
        frame, _ = _panel(n=40, m=1, missing=0.25)
        res = qwkit.judge_reliability(frame, item="item", run="run", score="score")
        kept = frame.dropna(subset=["score"])
        assert res[0].icc.statistic == pytest.approx(naive.icc1_anova(kept), rel=1e-12)
        assert res[0].n_missing == int(frame["score"].isna().sum())

    def test_the_jackknife_leaves_each_item_out(self):
        frame, _ = _panel(n=25, m=1, missing=0.2)
        kept = frame.dropna(subset=["score"])
        res = qwkit.judge_reliability(frame, item="item", run="run", score="score")
        assert res[0].icc.standard_error == pytest.approx(
            naive.jackknife_se(kept, naive.icc1_anova), rel=1e-10
        )

    def test_alpha_is_krippendorffs_with_quadratic_weights(self):
        rng = np.random.default_rng(SEED)
        x = rng.integers(1, 6, (50, 4)).astype(float)
        x[rng.random(x.shape) < 0.3] = np.nan
        res = qwkit.judge_reliability(**_long(x))
        assert res[0].alpha.statistic == pytest.approx(
            qwkit.agreement_score(x, coefficient="krippendorff", weights="quadratic"), rel=1e-12
        )

    def test_interval_is_on_the_z_scale(self):
        frame, _ = _panel(n=60, m=1)
        e = qwkit.judge_reliability(frame, item="item", run="run", score="score")[0].icc
        assert e.low < e.statistic < e.high
        k = 3.0
        z = lambda r: 0.5 * math.log((1 + (k - 1) * r) / (1 - r))  # noqa: E731
        assert z(e.high) - z(e.statistic) == pytest.approx(z(e.statistic) - z(e.low), rel=1e-9)

    def test_runs_needed_by_spearman_brown(self):
        frame, _ = _panel(n=80, m=1)
        j = qwkit.judge_reliability(frame, item="item", run="run", score="score", target=0.9)[0]
        rho = j.icc.statistic
        want = math.ceil(0.9 * (1 - rho) / (rho * 0.1))
        assert j.runs_needed.runs == want
        assert j.runs_needed.low <= want <= j.runs_needed.high
        _k, est, low, high = j.runs_needed.reliability[1]
        assert est == pytest.approx(2 * rho / (1 + rho))
        assert (low, high) == pytest.approx(
            (2 * j.icc.low / (1 + j.icc.low), 2 * j.icc.high / (1 + j.icc.high))
        )
        assert (
            j.runs_needed.reliability[want - 1][1] >= 0.9 > j.runs_needed.reliability[want - 2][1]
        )

    def test_run_none_numbers_the_repetitions(self):
        frame, _ = _panel(n=30, m=1)
        a = qwkit.judge_reliability(frame, item="item", run="run", score="score")
        shuffled = frame.sample(frac=1.0, random_state=3)
        b = qwkit.judge_reliability(shuffled, item="item", run=None, score="score")
        assert b[0].icc.statistic == pytest.approx(a[0].icc.statistic, rel=1e-12)


class TestKappaWithHumans:
    def test_one_run_and_the_cyclic_subsets(self, panel):
        frame, human, res = panel
        for _j, name in enumerate(("j0", "j1", "j2")):
            sub = frame[frame["judge"] == name]
            x = sub.pivot(index="item", columns="run", values="score").to_numpy()
            rows = res[name].kappa_by_runs
            assert [r.size for r in rows] == [1, 2, 3]
            for row in rows:
                want = naive.cyclic_kappa(x, human, row.size, "mean")
                assert row.kappa.statistic == pytest.approx(want, rel=1e-10)

    def test_majority(self):
        frame, human = _panel(n=40, m=1, r=4)
        res = qwkit.judge_reliability(
            frame, item="item", run="run", score="score", human=human, aggregate="majority"
        )
        x = frame.pivot(index="item", columns="run", values="score").to_numpy()
        for row in res[0].kappa_by_runs:
            assert row.kappa.statistic == pytest.approx(
                naive.cyclic_kappa(x, human, row.size, "majority" if row.size > 1 else "mean"),
                rel=1e-10,
            )

    def test_integer_scores_give_kappa_score(self, panel):
        frame, human, res = panel
        sub = frame[(frame["judge"] == "j0") & (frame["run"] == 0)]
        x = sub["score"].to_numpy()
        a = np.repeat(x, 3)
        h = human.ravel()
        keep = ~np.isnan(h)
        one = qwkit.kappa_score(a[keep], h[keep].astype(int), labels=[1, 2, 3, 4, 5])
        runs = [
            qwkit.kappa_score(
                np.repeat(frame[(frame["judge"] == "j0") & (frame["run"] == r)]["score"], 3)[keep],
                h[keep].astype(int),
                labels=[1, 2, 3, 4, 5],
            )
            for r in range(3)
        ]
        assert res["j0"].kappa_by_runs[0].kappa.statistic == pytest.approx(np.mean(runs), rel=1e-12)
        assert one == pytest.approx(runs[0])

    def test_the_human_ceiling(self, panel):
        _, human, res = panel
        pairs = [
            (a, b)
            for row in human
            for i, a in enumerate(row)
            for j, b in enumerate(row)
            if i != j and not (math.isnan(a) or math.isnan(b))
        ]
        assert res.human.kappa.statistic == pytest.approx(naive.pooled_kappa(pairs), rel=1e-12)
        assert res.human.alpha.statistic == pytest.approx(
            qwkit.agreement_score(human, coefficient="krippendorff"), rel=1e-12
        )

    def test_verdicts_read_the_interval(self, panel):
        _, _, res = panel
        for j in res.judges:
            for row in j.kappa_by_runs:
                if row.kappa.low >= 0.7:
                    assert row.verdict == "pass"
                elif row.kappa.high < 0.7:
                    assert row.verdict == "fail"
                else:
                    assert row.verdict == "inconclusive"
                assert (row.pvalue < 0.025) == (row.verdict == "pass")


class TestPrompts:
    def test_comparisons_are_paired_and_holm_adjusted(self):
        frame, human = _panel(n=80, m=1, r=4)
        res = qwkit.judge_reliability(
            frame, item="item", run="run", score="score", human=human, runs="prompts"
        )
        j = res[0]
        x = frame.pivot(index="item", columns="run", values="score").to_numpy()
        kappas = [naive.cyclic_kappa(x[:, [v]], human, 1, "mean") for v in range(4)]
        assert [k.kappa.statistic for k in j.prompt_kappas] == pytest.approx(kappas, rel=1e-10)
        for c in j.prompt_comparisons:
            a, b = int(c.first), int(c.second)
            assert c.difference == pytest.approx(kappas[a] - kappas[b], rel=1e-9)
        p = [c.pvalue for c in j.prompt_comparisons]
        assert [c.pvalue_adjusted for c in j.prompt_comparisons] == pytest.approx(
            multipletests(p, method="holm")[1]
        )

    def test_icc_agreement_drops_incomplete_items(self):
        rng = np.random.default_rng(SEED)
        x = rng.integers(1, 6, (30, 3)).astype(float)
        x[0, 1] = np.nan
        res = qwkit.judge_reliability(**_long(x), runs="prompts")
        assert res[0].icc_agreement.statistic == pytest.approx(
            qwkit.icc(x[1:], form="A,1").statistic, rel=1e-12
        )
        assert res[0].icc_agreement.n_items == 29


class TestPanel:
    def test_effective_judges_and_true_score_correlations(self, panel):
        frame, human, res = panel
        means = frame.groupby(["item", "judge"])["score"].mean().unstack().to_numpy()
        m_eff, rho = naive.m_eff(means, human)
        p = res.panel
        assert p.effective_judges.statistic == pytest.approx(m_eff, rel=1e-9)
        assert [e.statistic for e in p.true_score_correlation] == pytest.approx(rho, rel=1e-9)
        assert p.effective_judges.low < m_eff < p.effective_judges.high

    def test_the_curve_adds_the_best_judge_first(self, panel):
        _frame, _human, res = panel
        curve = res.panel.curve
        singles = {j.judge: j.kappa_by_runs[-1].kappa.statistic for j in res.judges}
        assert curve[0].members[0] == max(singles, key=singles.get)
        assert [c.size for c in curve] == [1, 2, 3]

    def test_kendall_w_is_qwkit_kendall_w_of_the_system_means(self, panel):
        frame, _, res = panel
        means = frame.groupby(["system", "judge"])["score"].mean().unstack().to_numpy()
        w = qwkit.kendall_w(means)
        assert res.panel.kendall_w.statistic == pytest.approx(w.statistic, rel=1e-12)
        assert res.panel.kendall_pvalue == pytest.approx(w.pvalue, rel=1e-10)
        assert res.panel.kendall_w.low <= res.panel.kendall_w.high


class TestInputs:
    def test_pandas_polars_mapping_and_arrays_agree(self, panel):
        frame, _human, res = panel
        want = [j.icc.statistic for j in res.judges]
        cols = ["item", "run", "score", "judge"]
        for data in (pl.from_pandas(frame[cols]), {c: frame[c].to_numpy() for c in cols}):
            got = qwkit.judge_reliability(
                data, item="item", run="run", score="score", judge="judge"
            )
            assert [j.icc.statistic for j in got.judges] == pytest.approx(want, rel=1e-12)
        arrays = qwkit.judge_reliability(
            item=frame["item"].to_numpy(), run=frame["run"].to_numpy(),
            score=frame["score"].to_numpy(), judge=frame["judge"].to_numpy(),
        )  # fmt: skip
        assert [j.icc.statistic for j in arrays.judges] == pytest.approx(want, rel=1e-12)

    def test_rows_in_any_order(self, panel):
        frame, human, res = panel
        shuffled = frame.sample(frac=1.0, random_state=5)
        got = qwkit.judge_reliability(
            shuffled, item="item", run="run", score="score", judge="judge", human=human,
            system="system", rng=1, n_resamples=500,
        )  # fmt: skip
        assert got.to_dict() == res.to_dict()

    def test_human_by_label(self, panel):
        frame, human, res = panel
        ids = [f"story-{i:03d}" for i in range(human.shape[0])]
        data = frame.assign(item=[ids[i] for i in frame["item"]])
        by_index = pd.DataFrame(human, index=ids).iloc[::-1]
        a = qwkit.judge_reliability(
            data, item="item", run="run", score="score", judge="judge", human=by_index
        )
        with_column = by_index.reset_index(names="item")
        b = qwkit.judge_reliability(
            data, item="item", run="run", score="score", judge="judge", human=with_column
        )
        table = qwkit.ratings_from_long(
            np.repeat(ids, 3)[~np.isnan(human.ravel())],
            np.tile(["a", "b", "c"], len(ids))[~np.isnan(human.ravel())],
            human.ravel()[~np.isnan(human.ravel())],
        )
        c = qwkit.judge_reliability(
            data, item="item", run="run", score="score", judge="judge", human=table
        )
        want = [k.kappa.statistic for j in res.judges for k in j.kappa_by_runs]
        for got in (a, b, c):
            assert [
                k.kappa.statistic for j in got.judges for k in j.kappa_by_runs
            ] == pytest.approx(want, rel=1e-12)

    def test_human_of_a_subset_of_items_and_unjudged_items(self):
        frame, human = _panel(n=50, m=1)
        h = pd.DataFrame(human, index=np.arange(50))
        h.index = h.index + 10  # items 10..59: 10 of them not judged, 10 judged unrated
        res = qwkit.judge_reliability(frame, item="item", run="run", score="score", human=h)
        assert any("not judged" in n for n in res.notes)
        assert any("no human rating" in n for n in res.notes)


class TestBadInput:
    def test_one_run_per_item_names_run(self):
        with pytest.raises(qwkit.QwkitError, match="no repetition") as info:
            qwkit.judge_reliability(item=[1, 2, 3], run=[1, 1, 1], score=[1, 2, 3])
        assert info.value.parameter == "run"

    def test_a_repeated_run_names_both_rows(self):
        with pytest.raises(qwkit.QwkitError, match="Rows 1 and 3") as info:
            qwkit.judge_reliability(item=[1, 1, 2, 1], run=[1, 2, 1, 2], score=[1, 2, 3, 4])
        assert (info.value.parameter, info.value.row) == ("run", 3)

    def test_a_constant_judge_is_undefined_and_said(self):
        x = np.full((20, 3), 3.0)
        res = qwkit.judge_reliability(**_long(x))
        assert res[0].constant and math.isnan(res[0].icc.statistic)
        assert math.isnan(res[0].runs_needed.runs)
        assert any("same score" in n for n in res.notes)
        assert "undefined" in res.summary()

    def test_text_scores_point_to_the_position_test(self):
        with pytest.raises(qwkit.QwkitTypeError, match="position_bias_test") as info:
            qwkit.judge_reliability(item=[1, 1], run=[1, 2], score=["A", "B"])
        assert info.value.parameter == "score"

    def test_a_column_name_without_a_frame(self):
        with pytest.raises(qwkit.QwkitTypeError, match="names a column") as info:
            qwkit.judge_reliability(score=[1, 2])
        assert info.value.parameter == "item"

    def test_a_missing_column(self):
        with pytest.raises(qwkit.QwkitError, match="no column 'rn'") as info:
            qwkit.judge_reliability({"item": [1], "run": [1], "score": [1]}, run="rn")
        assert info.value.parameter == "run"

    def test_human_of_other_items(self):
        with pytest.raises(qwkit.QwkitError, match="share no item") as info:
            qwkit.judge_reliability(
                item=[1, 1, 2, 2], run=[1, 2, 1, 2], score=[1, 2, 2, 3],
                human=pd.Series([1, 2], index=["1", "2"]),
            )  # fmt: skip
        assert info.value.parameter == "human"

    def test_human_array_of_the_wrong_length(self):
        with pytest.raises(qwkit.QwkitError, match="3 rows but the judgements hold 2"):
            qwkit.judge_reliability(
                item=[1, 1, 2, 2], run=[1, 2, 1, 2], score=[1, 2, 2, 3], human=[1, 2, 3]
            )

    def test_two_systems_for_one_item(self):
        with pytest.raises(qwkit.QwkitError, match="two systems") as info:
            qwkit.judge_reliability(
                item=[1, 1, 2, 2], run=[1, 2, 1, 2], score=[1, 2, 2, 3], system=["a", "b", "a", "a"]
            )
        assert info.value.parameter == "system"

    @pytest.mark.parametrize(
        ("option", "value"),
        [("runs", "samples"), ("target", 1.0), ("min_kappa", 1.0), ("aggregate", "median")],
    )
    def test_options(self, option, value):
        with pytest.raises(qwkit.QwkitError) as info:
            qwkit.judge_reliability(item=[1, 1], run=[1, 2], score=[1, 2], **{option: value})
        assert info.value.parameter == option


class TestResult:
    def test_records(self, panel):
        _, _, res = panel
        assert type(res).__module__ == "qwkit" and type(res.panel).__module__ == "qwkit"
        text = json.dumps(res.to_dict())  # plain values, nan as NaN
        assert "effective_judges" in text
        again = pickle.loads(pickle.dumps(res))
        assert again.to_dict() == res.to_dict()
        with pytest.raises(KeyError, match="no judge 'x'"):
            res["x"]

    def test_summary_leads_with_the_answers(self, panel):
        _, _, res = panel
        text = res.summary()
        assert text.index("The answers") < text.index("Self-consistency over runs")
        assert "How many independent judges are the 3?" in text
        assert next(q for q, _ in res.answers()) == "Is j0 self-consistent?"

    @pytest.mark.parametrize("kind", ["consistency", "runs", "panel", "errors", "ranking"])
    def test_plots(self, panel, kind):
        _, _, res = panel
        fig = res.plot(kind)
        assert fig.axes

    def test_plots_that_need_what_is_missing(self):
        res = qwkit.judge_reliability(**_long(SHROUT_FLEISS))
        with pytest.raises(qwkit.QwkitError, match="needs human ratings") as info:
            res.plot("runs")
        assert info.value.parameter == "kind"
        with pytest.raises(qwkit.QwkitError, match="needs a panel"):
            res.plot("errors")


# ---------------------------------------------------------------------------- position


def _pairs(ab, ba, **kw):
    n = len(ab)
    return qwkit.position_bias_test(
        item=np.tile(np.arange(n), 2), order=["AB"] * n + ["BA"] * n, verdict=list(ab) + list(ba),
        **kw,
    )  # fmt: skip


class TestPositionBias:
    def test_without_ties_it_is_mcnemars_exact_test(self):
        ab = ["A"] * 20 + ["B"] * 8 + ["A"] * 9 + ["B"] * 3
        ba = ["A"] * 20 + ["B"] * 8 + ["B"] * 9 + ["A"] * 3
        res = _pairs(ab, ba)
        assert res.pvalue == pytest.approx(stats.binomtest(9, 12).pvalue, rel=1e-12)
        assert res.judges[0].method == "exact"

    def test_exact_against_every_sign_vector(self):
        rng = np.random.default_rng(SEED)
        labels = np.array(["A", "B", "tie"])
        ab = labels[rng.choice(3, 14, p=[0.5, 0.3, 0.2])]
        ba = labels[rng.choice(3, 14, p=[0.3, 0.5, 0.2])]
        res = _pairs(ab, ba)
        first, decisive, agree, d = naive.position_counts(list(ab), list(ba))
        assert res.pvalue == pytest.approx(naive.sign_flip_pvalue(d), rel=1e-12)
        assert res.first_slot_rate.statistic == pytest.approx(first / decisive)
        assert res.consistency.statistic == pytest.approx(agree / 14)
        assert res.statistic == pytest.approx(sum(d) / math.sqrt(sum(x * x for x in d)))

    def test_bowker_is_statsmodels(self):
        rng = np.random.default_rng(SEED + 1)
        labels = np.array(["A", "B", "tie"])
        res = _pairs(labels[rng.integers(0, 3, 60)], labels[rng.integers(0, 3, 60)])
        want = SquareTable(res.table, shift_zeros=False).symmetry()
        assert res.judges[0].bowker_statistic == pytest.approx(want.statistic, rel=1e-12)
        assert res.judges[0].bowker_pvalue == pytest.approx(want.pvalue, rel=1e-12)

    def test_mtbench_gpt4(self):
        # GPT-4 judging phi-3 against phi-3-dpo on MT-Bench, both orders (provenance in the
        # file); one pair has a verdict in one order only (the other was an error)
        data = pd.read_csv(DATA / "mtbench_phi3_position.csv", comment="#")
        data = data[data["verdict"] != "error"]
        res = qwkit.position_bias_test(data, item="question_id", order="order", verdict="verdict")
        j = res.judges[0]
        assert (j.n_items, j.n_one_order) == (73, 1)
        assert j.table.tolist() == [[18, 16, 5], [2, 20, 1], [0, 3, 8]]
        assert j.verdict == "first slot favoured" and j.pvalue < 1e-4
        assert round(j.first_slot_rate.statistic, 3) == 0.645
        by_prompt = qwkit.position_bias_test(
            data, item="question_id", order="order", verdict="verdict", judge="judge_prompt"
        )
        p = [j.pvalue for j in by_prompt.judges]
        assert [j.pvalue_adjusted for j in by_prompt.judges] == pytest.approx(
            multipletests(p, method="holm")[1]
        )

    def test_repeated_runs_and_asymptotic(self):
        rng = np.random.default_rng(SEED)
        n, runs = 30, 2
        labels = np.array(["A", "B", "tie"])
        verdict = labels[rng.integers(0, 3, 2 * n * runs)]
        item = np.tile(np.repeat(np.arange(n), runs), 2)
        order = np.repeat(["AB", "BA"], n * runs)
        run = np.tile(np.arange(runs), 2 * n)
        exact = qwkit.position_bias_test(item=item, order=order, verdict=verdict, run=run)
        asym = qwkit.position_bias_test(
            item=item, order=order, verdict=verdict, run=run, method="asymptotic"
        )
        assert exact.judges[0].method == "exact" and asym.judges[0].method == "asymptotic"
        assert asym.pvalue == pytest.approx(2 * stats.norm.sf(abs(asym.statistic)))
        assert exact.table.sum() == n * runs

    def test_labels_of_the_data(self):
        res = _pairs(["m1", "m2", "m1"], ["m2", "m2", "tie"], verdict_labels=("m1", "m2", "tie"))
        assert res.table.tolist() == [[0, 1, 1], [0, 1, 0], [0, 0, 0]]

    def test_sample_size(self):
        n = qwkit.position_bias_sample_size(0.6, tie_rate=0.2)
        # the normal power of the sign-flip test under the content-free judge (eq. J18)
        mu, v0 = 2 * 0.8 * 0.2, 2 * 0.8
        v1 = 2 * (0.8 - 0.16**2)

        def power(m):
            return stats.norm.sf((1.959964 * math.sqrt(v0) - mu * math.sqrt(m)) / math.sqrt(v1))

        assert power(n) >= 0.8 > power(n - 1)


class TestPositionBadInput:
    def test_a_verdict_outside_the_labels(self):
        with pytest.raises(qwkit.QwkitError, match="'C' at index 3") as info:
            _pairs(["A", "B"], ["B", "C"])
        assert (info.value.parameter, info.value.row) == ("verdict", 3)

    def test_an_order_outside_the_labels(self):
        with pytest.raises(qwkit.QwkitError, match="order_labels") as info:
            qwkit.position_bias_test(item=[1, 1], order=["AB", "swapped"], verdict=["A", "A"])
        assert info.value.parameter == "order"

    def test_one_order_only_is_left_out_and_said(self):
        res = qwkit.position_bias_test(
            item=[1, 1, 2, 3, 3], order=["AB", "BA", "AB", "AB", "BA"],
            verdict=["A", "A", "B", "A", "B"],
        )  # fmt: skip
        assert res.judges[0].n_one_order == 1 and res.judges[0].n_items == 2
        assert "one order only" in res.notes[0]

    def test_no_pair_in_both_orders(self):
        with pytest.raises(qwkit.QwkitError, match="no pair in both orders") as info:
            qwkit.position_bias_test(item=[1, 2], order=["AB", "AB"], verdict=["A", "B"])
        assert info.value.parameter == "order"

    def test_exact_needs_balanced_orders(self):
        with pytest.raises(qwkit.QwkitError, match="as many verdicts in each order"):
            qwkit.position_bias_test(
                item=[1, 1, 1], order=["AB", "AB", "BA"], verdict=["A", "A", "B"],
                run=[1, 2, 1], method="exact",
            )  # fmt: skip

    @pytest.mark.parametrize(
        ("kw", "parameter"),
        [
            ({"verdict_labels": ("A", "B")}, "verdict_labels"),
            ({"verdict_labels": ("A", "A", "tie")}, "verdict_labels"),
            ({"method": "fisher"}, "method"),
            ({"confidence_level": 1.5}, "confidence_level"),
        ],
    )
    def test_options(self, kw, parameter):
        with pytest.raises(qwkit.QwkitError) as info:
            _pairs(["A"], ["B"], **kw)
        assert info.value.parameter == parameter

    def test_sample_size_options(self):
        for kw, name in (
            ({"first_slot_rate": 0.5}, "first_slot_rate"),
            ({"tie_rate": 1.0}, "tie_rate"),
            ({"power": 1.0}, "power"),
        ):
            with pytest.raises(qwkit.QwkitError) as info:
                qwkit.position_bias_sample_size(**kw)
            assert info.value.parameter == name

    def test_result(self):
        res = _pairs(["A", "B", "A"], ["B", "B", "A"])
        assert "Position bias" in res.summary()
        json.dumps(res.to_dict())
        assert pickle.loads(pickle.dumps(res)).to_dict() == res.to_dict()
        assert res.plot().axes
        two = qwkit.position_bias_test(
            item=[1, 1, 1, 1], order=["AB", "BA"] * 2, verdict=["A", "B", "A", "A"],
            judge=["x", "x", "y", "y"],
        )  # fmt: skip
        with pytest.raises(qwkit.QwkitError, match="pick one") as info:
            _ = two.pvalue
        assert info.value.parameter == "judge"
