"""qwkit's evaluation against RSMTool 12.0.0's own numbers, frozen in
tests/data/rsmtool_reference.json.gz by docs/_scripts/rsmtool_reference.py (rsmeval run on
HANNA, simulated and edge-case data sets; RSMTool's definitions in
docs/_scripts/RSMTOOL_DEFINITIONS.md). RSMTool is not needed here.

qwkit evaluates the responses rsmeval kept, with rsmeval's own ``raw``, ``raw_trim`` and
``raw_trim_round`` scores as three machines, so every statistic both compute is compared on
the same numbers: kappa, r, SMD and N per score type (rsmeval's ``eval``), exact and adjacent
agreement of the rounded scores, human–human agreement (``consistency``), PRMSE and its parts
(``true_score_eval``), the degradation on the same items (RSMTool's
``use_all_responses=False``), and per subgroup kappa (``eval_by_<group>``) and the SMD in the
human SD of all responses (RSMTool's ``method="johnson"``).
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
def evaluated(name: str):
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate intervals of tiny groups, undefined PRMSE
        res = qwkit.evaluate_scorer(human, machine, groups=groups, labels=labels)
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
        for m in res.models:
            assert close(deg.loc[m.name, "wtkappa"], m.degradation.statistic)

    def test_groups(self, name):
        d, group, res = evaluated(name)
        by = table(d["rsmeval"][f"eval_by_{group}"])
        levels = d["direct"]["by_group"][group]["levels"]
        for m in res.models:
            for g in m.groups:
                level = str(g.group)
                assert g.n_items == by.loc[level, "N"]
                assert close(levels[level]["smd"][m.name]["johnson"], g.smd.statistic)
                if m.name == "raw_trim":
                    assert close(by.loc[level, "wtkappa.raw_trim"], g.kappa.statistic)


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
