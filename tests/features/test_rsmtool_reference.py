"""qwkit's evaluation against RSMTool 12.0.0's own numbers, frozen in
tests/data/rsmtool_reference.json.gz by docs/_scripts/rsmtool_reference.py (rsmeval run on
HANNA, simulated and edge-case data sets; RSMTool's definitions in
docs/_scripts/RSMTOOL_DEFINITIONS.md). RSMTool is not needed here.

qwkit evaluates the responses rsmeval kept, with rsmeval's own ``raw``, ``raw_trim`` and
``raw_trim_round`` scores as three machines, so every statistic both compute is compared on
the same numbers: kappa, r, SMD and N per score type (rsmeval's ``eval``), exact and adjacent
agreement of the rounded scores, human–human agreement (``consistency``), PRMSE and its parts
(``true_score_eval``), R², RMSE, unweighted kappa and the disattenuated correlation, the
degradation of every statistic on the same items (RSMTool's ``use_all_responses=False``),
per subgroup kappa (``eval_by_<group>``), the SMD in the human SD of all responses (RSMTool's
``method="johnson"``) and the difference of standardized means (DSM), and Loukina et al.'s
three fairness regressions (``estimates_os[ad]_by_group``, ``estimates_csd_by_group``,
``fairness_metrics_by_group``). The machines are given as rsmeval scored them, so qwkit
neither trims (``trim=False``) nor pools (``smd="unpooled"``: RSMTool's human SD).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import qwkit

DATA = Path(__file__).resolve().parents[1] / "data" / "rsmtool_reference.json.gz"
SCORES = ("raw", "raw_trim", "raw_trim_round")
TOL = 1e-12


@cache
def reference() -> dict:
    return json.loads(gzip.open(DATA).read())


def table(rec) -> pd.DataFrame:
    df = pd.DataFrame(rec["data"], index=rec["index"], columns=rec["columns"])
    df.index = ["" if i is None else str(i) for i in df.index]
    return df


def comparable() -> list[str]:
    return [
        name
        for name, d in reference()["datasets"].items()
        if d["predictions"]["rows"] == "all"
        and "input_csv" in d
        and not d["config"].get("scale_with")
    ]


@cache
def inputs(name: str):
    """The responses rsmeval kept: both humans, its three scores, the first subgroup."""
    d = reference()["datasets"][name]
    cfg = d["config"]
    p = d["predictions"]
    pred = pd.DataFrame(p["data"], index=[str(i) for i in p["index"]], columns=p["columns"])
    inp = pd.read_csv(io.StringIO(d["input_csv"]), dtype=str, keep_default_na=False)
    inp = inp.set_index(cfg["id_column"])
    # rsmeval's second score: numbers only, 0 missing under exclude_zero_scores (the default)
    sc2 = pd.to_numeric(inp[cfg["second_human_score_column"]], errors="coerce")
    if cfg.get("exclude_zero_scores", True):
        sc2[sc2 == 0] = np.nan
    group = cfg["subgroups"][0]
    groups = inp[group].replace("", "No info").reindex(pred.index).to_numpy()
    human = np.column_stack([pred["sc1"].to_numpy(float), sc2.reindex(pred.index).to_numpy()])
    machine = {s: pred[s].to_numpy(float) for s in SCORES}
    labels = list(range(int(cfg["trim_min"]), int(cfg["trim_max"]) + 1))
    return d, group, human, machine, groups, labels


@cache
def evaluated(name: str):
    d, group, human, machine, groups, labels = inputs(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate intervals of tiny groups, undefined PRMSE
        res = qwkit.evaluate_scorer(
            human, machine, groups=groups, labels=labels, trim=False, smd="unpooled"
        )
    return d, group, res


def close(a, b):
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or math.isnan(b)
    return abs(a - b) <= TOL


@pytest.mark.parametrize("name", comparable())
class TestEvaluateScorerAgainstRSMTool:
    def test_human_machine(self, name):
        d, _, res = evaluated(name)
        ev = table(d["rsmeval"]["eval"])
        for m in res.models:
            row = ev.loc[m.name]
            assert m.n_items == row["N"]
            assert close(row["wtkappa"], m.kappa.statistic)
            assert close(row["corr"], m.pearson_r.statistic)
            assert close(row["SMD"], m.smd.statistic)
            assert close(row["SMD"], m.smd_unpooled.statistic)
            assert close(row["R2"], m.r2.statistic)
            assert close(row["RMSE"], m.rmse.statistic)
            assert close(row["h_mean"], m.human.mean) and close(row["h_sd"], m.human.sd)
            assert close(row["sys_mean"], m.machine.mean) and close(row["sys_sd"], m.machine.sd)
            # skll's unweighted kappa of np.round(scores), halves to even
            assert close(row["kappa"], m.unweighted_kappa.statistic)

    def test_smd_pooled_is_williamson(self, name):
        d, _, res = evaluated(name)
        for m in res.models:
            smd = d["direct"]["smd"]["human_machine"][m.name]
            assert close(smd["williamson"], m.smd_pooled.statistic)
            assert close(smd["johnson"], m.smd_unpooled.statistic)

    def test_disattenuated_correlation(self, name):
        d, _, res = evaluated(name)
        dis = table(d["rsmeval"]["disattenuated_correlations"])
        for m in res.models:
            assert close(dis.loc[m.name, "corr_disattenuated"], m.disattenuated_r.statistic)

    def test_agreement_of_rounded_scores(self, name):
        # rsmeval's exact/adjacent agreement of raw and raw_trim is on unrounded values;
        # its raw_trim_round row is the usual one (np.rint, halves to even)
        d, _, res = evaluated(name)
        row = table(d["rsmeval"]["eval"]).loc["raw_trim_round"]
        m = res["raw_trim_round"]
        assert close(row["exact_agr"], 100 * m.exact_agreement.statistic)
        assert close(row["adj_agr"], 100 * m.adjacent_agreement.statistic)

    def test_human_human(self, name):
        d, _, res = evaluated(name)
        row = table(d["rsmeval"]["consistency"]).iloc[0]
        hh = res.human_human
        assert hh.n_items == row["N"]
        assert close(row["wtkappa"], hh.kappa.statistic)
        assert close(row["corr"], hh.pearson_r.statistic)
        assert close(row["SMD"], hh.smd.statistic)  # pooled SD
        assert close(row["exact_agr"], 100 * hh.exact_agreement.statistic)
        assert close(row["adj_agr"], 100 * hh.adjacent_agreement.statistic)

    def test_prmse(self, name):
        d, _, res = evaluated(name)
        tse = table(d["rsmeval"]["true_score_eval"])
        for m in res.models:
            row, p = tse.loc[m.name], m.prmse
            assert p.n_items == row["N"] and p.n_double_scored == row["N multiple"]
            assert close(row["Variance of errors"], p.variance_of_errors)
            assert close(row["True score var"], p.true_score_variance)
            assert close(row["MSE true"], p.mse_true)
            if row["True score var"] > 0:
                assert close(row["PRMSE true"], p.statistic)
            else:  # RSMTool reports the ratio anyway (42.1 on HANNA coherence, 20%)
                assert math.isnan(p.statistic)

    def test_degradation_on_the_same_items(self, name):
        d, _, res = evaluated(name)
        deg = table(d["direct"]["degradation_same_items"])
        columns = {"pearson_r": "corr", "unweighted_kappa": "kappa", "smd": "SMD",
                   "exact_agreement": "exact_agr", "adjacent_agreement": "adj_agr"}  # fmt: skip
        for m in res.models:
            assert close(deg.loc[m.name, "wtkappa"], m.degradation.statistic)
            for e in m.degradations:
                if e.statistic.endswith("_agreement") and m.name != "raw_trim_round":
                    continue  # RSMTool's agreement of unrounded scores (qwkit rounds them)
                want = deg.loc[m.name, columns[e.statistic]]
                scale = 100 if columns[e.statistic].endswith("_agr") else 1
                assert close(want, scale * e.estimate.statistic), e.statistic

    def test_groups(self, name):
        d, group, res = evaluated(name)
        by = table(d["rsmeval"][f"eval_by_{group}"])
        levels = d["direct"]["by_group"][group]["levels"]
        for m in res.models:
            for g in m.groups:
                level = str(g.group)
                assert g.n_items == by.loc[level, "N"]
                assert close(levels[level]["smd"][m.name]["johnson"], g.group_smd.statistic)
                ev = table(levels[level]["eval"])
                assert close(ev.loc[m.name, "DSM"], g.dsm.statistic)
                if m.name == "raw_trim":
                    assert close(by.loc[level, "wtkappa.raw_trim"], g.kappa.statistic)
                    assert close(by.loc[level, "DSM.raw_trim"], g.dsm.statistic)

    def test_fairness(self, name):
        d, group, res = evaluated(name)
        # RSMTool's report fits the trimmed score; the other scores refitted by its function
        fits = {
            **d["direct"]["fairness_by_score"][group],
            "raw_trim": d["direct"]["fairness"][group],
        }
        for m in res.models:
            ref = fits[m.name]["tables"]
            metrics = table(ref[f"fairness_metrics_by_{group}"])
            for fit, key, column in (
                (m.fairness.overall_score_accuracy, "osa", "Overall score accuracy"),
                (m.fairness.overall_score_difference, "osd", "Overall score difference"),
                (m.fairness.conditional_score_difference, "csd", "Conditional score difference"),
            ):
                assert str(fit.base_group) == metrics.loc["R2", "base_category"]
                assert close(float(metrics.loc["R2", column]), fit.r2), (key, "R2")
                assert close(float(metrics.loc["sig", column]), fit.pvalue), (key, "sig")
                est = table(ref[f"estimates_{key}_by_{group}"])
                for g, b, lo, hi, p in zip(fit.groups, fit.estimate, fit.low, fit.high,
                                           fit.pvalues, strict=True):  # fmt: skip
                    row = est.loc[str(g)]
                    assert close(row["estimate"], b) and close(row["P>[t]"], p), (key, g)
                    assert close(row["[0.025"], lo) and close(row["0.975]"], hi), (key, g)


@pytest.mark.parametrize("name", comparable())
def test_trimming_is_rsmtools(name):
    # qwkit's default trims the raw score to [min - 0.4998, max + 0.4998] itself: rsmeval's
    # raw_trim row from its raw score
    d, _, human, machine, _, labels = inputs(name)
    trim = d["config"].get("trim_tolerance", True)  # True: RSMTool's default, 0.4998
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = qwkit.evaluate_scorer(human, machine["raw"], labels=labels, smd="unpooled", trim=trim)
    row = table(d["rsmeval"]["eval"]).loc["raw_trim"]
    m = res.models[0]
    assert close(row["wtkappa"], m.kappa.statistic) and close(row["corr"], m.pearson_r.statistic)
    assert close(row["SMD"], m.smd.statistic) and close(row["RMSE"], m.rmse.statistic)
    assert close(row["sys_min"], m.machine.min) and close(row["sys_max"], m.machine.max)


class TestReferenceFile:
    def test_provenance(self):
        prov = reference()["provenance"]
        assert prov["rsmtool"] == "12.0.0" and prov["numpy"].startswith("1.26")

    def test_rsmeval_refuses_duplicate_ids(self):
        err = reference()["errors"]["duplicate_ids"]
        assert err["exception"] == "ValueError" and "duplicate response IDs" in err["message"]

    def test_rounding_is_half_to_even(self):
        p = reference()["datasets"]["sim_bias"]["predictions"]
        rows = dict(zip(p["index"], p["data"], strict=True))
        col = p["columns"].index("raw_trim_round")
        assert [rows[f"s000{i}"][col] for i in range(3)] == [2, 4, 4]  # 2.5, 3.5, 4.5
