# ruff: noqa: E501  (a script that prints wide tables)
"""Benchmark ``rsmeval`` (RSMTool 12) against ``qwkit evaluate`` on the same files: time,
peak memory, and equality of every statistic both compute.

Run from the repository root, at low priority (the lead runs it on a quiet machine)::

    nice .venv/bin/python benchmarks/bench_rsmtool.py --append benchmarks/README_rsmtool.md
    nice .venv/bin/python benchmarks/bench_rsmtool.py --sizes 1e4 --no-report   # a check

RSMTool lives in its own virtual environment (it needs numpy < 2; ``skll==5.0.1`` pins
scikit-learn 1.4.2). ``--venv`` (default ``$RSMTOOL_VENV``, else ``.rsmtool-venv`` in the
repository root) is built when it does not exist, with::

    python3.11 -m venv VENV && VENV/bin/pip install rsmtool==12.0.0 numpy==1.26.4 \\
        pandas==2.2.3 scipy==1.13.1 statsmodels==0.14.4

Data: n responses (10⁴, 10⁵, 10⁶; ``--sizes``) on a 1–5 scale: latent T ~ N(3, 1), humans
rint(T + N(0, 0.7²)) clipped to 1–5, the second human on a random 10%; the machine
0.1 + T + N(0, 0.6²) + 0.2 in group g2, unclipped (real-valued, a few outside the
scale); four subgroups g1–g4 (40/30/20/10%); seed 20261121. And HANNA (Chhun et al. 2022,
2024; relevance, ChatGPT, every story double-scored, subgroups the 11 story sources: the
``hanna_RE_chatgpt_full`` data set of ``docs/_scripts/rsmtool_reference.py``).

Timed, each as a separate process under ``/usr/bin/time -v`` (wall time and the peak
resident set size of the largest process of the run):

* ``rsmeval`` — the command as a user runs it: its tables and its HTML report (Jupyter
  notebooks executed by a kernel; the fairness analyses are computed there);
* ``rsmeval, no report`` — ``rsmtool.rsmeval.run_evaluation`` with the report switched off
  (every table but the fairness ones): RSMTool's computations alone;
* ``qwkit evaluate --json`` — the same file, humans h1,h2, the machine, the subgroup
  column, with RSMTool's definitions (``--smd unpooled``; its trimming, qwkit's default)
  and every criterion: the criteria with jackknife intervals (the default), the
  human–human ceiling, unweighted kappa, RMSE, R², the disattenuated correlation, the
  degradation of six statistics, PRMSE, per subgroup kappa, the humans' kappa, the
  degradation, SMD and DSM, the three fairness regressions (best of ``--repeat``); and
  ``qwkit evaluate --report`` with its HTML report.

Equality: after rsmeval has run, its own trimmed and rounded scores (``raw_trim``,
``raw_trim_round`` from its ``pred_processed`` table) are joined to the file, and ``qwkit
evaluate --json --no-trim`` evaluates raw, raw_trim and raw_trim_round as three machines as
rsmeval scored them; a second ``qwkit evaluate --json`` evaluates raw alone with qwkit's own
trimming (RSMTool's: to [min − 0.4998, max + 0.4998]), to be compared with rsmeval's
raw_trim row. Every statistic of ``MAPPING`` (an RSMTool table, row and column → a path in
qwkit's JSON, with the unit conversion) is compared and the largest |difference|
reported. Some rows need RSMTool's functions rather than its tables (``direct``: run in
the RSMTool venv on rsmeval's own frames): the degradation on the same items and the
within-group SMD in the human SD of all responses. The fairness tables come from rsmeval's
report (not compared with ``--no-report``). Statistics that the two tools define
differently (RSMTool's exact and adjacent agreement of unrounded real-valued scores) are
compared all the same and marked so; a statistic qwkit does not compute has ``None`` as its
qwkit path: it is listed, not compared.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import date
from typing import NamedTuple

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine

ROOT = pathlib.Path(__file__).resolve().parents[1]
SEED = 20261121
PINS = [
    "rsmtool==12.0.0",
    "numpy==1.26.4",
    "pandas==2.2.3",
    "scipy==1.13.1",
    "statsmodels==0.14.4",
]
SCORES = ("raw", "raw_trim", "raw_trim_round")
CRITERIA = ("kappa", "pearson_r", "degradation", "smd", "group_smd", "dsm")

# ------------------------------------------------------------------------------ mapping
# (source, table, row, column) -> Q(qwkit JSON path or None, factor, note, same definition).
# source "rsmeval": a CSV that rsmeval writes ({exp}_{table}.csv; row "" for one-row tables);
# source "direct": RSMTool's functions on rsmeval's frames (see DIRECT below).
# Paths: dots between keys; ``[key=value]`` picks the element of a list whose key is value;
# ``[#i]`` the i-th element; ``key@other=value`` the element of list ``key`` at the position
# where the parallel list ``other`` holds value; ``A - B`` and ``A / B`` combine two paths.
# A path starting ``trim:`` reads the second JSON, where qwkit trims rsmeval's raw score
# itself (its default trimming, RSMTool's tolerance); the others read the JSON of raw,
# raw_trim and raw_trim_round as rsmeval scored them (``--no-trim``).
# {S} runs over the score types raw, raw_trim, raw_trim_round (qwkit's three machines);
# {G} over the subgroup column's levels; {K} over the scale's labels. qwkit's value × factor
# is compared. ``same=False``: the two definitions differ (the note says how) — the
# difference is shown, and expected.


class Q(NamedTuple):
    path: str | None
    factor: float = 1
    note: str = ""
    same: bool = True


M = "models[name={S}]"
T = "trim:models[name=raw]"
RTR = "models[name=raw_trim_round]"
HH = "human_human"
G_ = "groups[group={G}]"
#: qwkit's ``degradations`` in its JSON, in this order (their names are lost in to_dict:
#: the estimate's own ``statistic`` key overwrites the statistic's name)
DEGRADED = {"corr": 0, "kappa": 1, "exact_agr": 2, "adj_agr": 3, "SMD": 4}
UNROUNDED = (
    "RSMTool's agreement of the unrounded score (a real value equals a rating almost never); "
    "qwkit rounds real-valued scores first"
)
ZSCORE = "qwkit computes per group kappa, the humans' kappa, the degradation, SMD and DSM"
FAIRNESS = (
    ("osa", "overall_score_accuracy"),
    ("osd", "overall_score_difference"),
    ("csd", "conditional_score_difference"),
)
MAPPING = [
    # human–machine, all responses (rsmeval's eval table, one row per score type)
    (("rsmeval", "eval", "{S}", "N"), Q(f"{M}.n_items")),
    (("rsmeval", "eval", "{S}", "h_mean"), Q(f"{M}.human.mean")),
    (("rsmeval", "eval", "{S}", "h_sd"), Q(f"{M}.human.sd")),
    (("rsmeval", "eval", "{S}", "h_min"), Q(f"{M}.human.min")),
    (("rsmeval", "eval", "{S}", "h_max"), Q(f"{M}.human.max")),
    (("rsmeval", "eval", "{S}", "sys_mean"), Q(f"{M}.machine.mean")),
    (("rsmeval", "eval", "{S}", "sys_sd"), Q(f"{M}.machine.sd")),
    (("rsmeval", "eval", "{S}", "sys_min"), Q(f"{M}.machine.min")),
    (("rsmeval", "eval", "{S}", "sys_max"), Q(f"{M}.machine.max")),
    (
        ("rsmeval", "eval", "{S}", "wtkappa"),
        Q(f"{M}.kappa.statistic", note="Haberman's moment form; the table form on integers"),
    ),
    (("rsmeval", "eval", "{S}", "corr"), Q(f"{M}.pearson_r.statistic")),
    (("rsmeval", "eval", "{S}", "SMD"), Q(f"{M}.smd.statistic", note="--smd unpooled: sd(sc1)")),
    (
        ("rsmeval", "eval", "{S}", "R2"),
        Q(f"{M}.r2.statistic", note="sklearn r2_score(sc1, system)"),
    ),
    (("rsmeval", "eval", "{S}", "RMSE"), Q(f"{M}.rmse.statistic")),
    (
        ("rsmeval", "eval", "{S}", "kappa"),
        Q(f"{M}.unweighted_kappa.statistic", note="skll: np.round of the scores, halves to even"),
    ),
    (
        ("rsmeval", "eval", "raw_trim_round", "exact_agr"),
        Q(f"{RTR}.exact_agreement.statistic", 100),
    ),
    (
        ("rsmeval", "eval", "raw_trim_round", "adj_agr"),
        Q(f"{RTR}.adjacent_agreement.statistic", 100),
    ),
    (
        ("rsmeval", "eval", "raw", "exact_agr"),
        Q("models[name=raw].exact_agreement.statistic", 100, UNROUNDED, False),
    ),
    (
        ("rsmeval", "eval", "raw", "adj_agr"),
        Q("models[name=raw].adjacent_agreement.statistic", 100, UNROUNDED, False),
    ),
    (
        ("rsmeval", "eval", "raw_trim", "exact_agr"),
        Q("models[name=raw_trim].exact_agreement.statistic", 100, UNROUNDED, False),
    ),
    (
        ("rsmeval", "eval", "raw_trim", "adj_agr"),
        Q("models[name=raw_trim].adjacent_agreement.statistic", 100, UNROUNDED, False),
    ),
    # rsmeval's raw_trim row from the raw score, trimmed by qwkit (its default, --trim)
    *(
        (("rsmeval", "eval", "raw_trim", col), Q(f"{T}.{path}", note="qwkit trims raw itself"))
        for col, path in (
            ("N", "n_items"),
            ("sys_mean", "machine.mean"),
            ("sys_sd", "machine.sd"),
            ("sys_min", "machine.min"),
            ("sys_max", "machine.max"),
            ("wtkappa", "kappa.statistic"),
            ("corr", "pearson_r.statistic"),
            ("SMD", "smd.statistic"),
            ("R2", "r2.statistic"),
            ("RMSE", "rmse.statistic"),
            ("kappa", "unweighted_kappa.statistic"),
        )
    ),
    (
        ("rsmeval", "eval", "raw_trim_round", "exact_agr"),
        Q(f"{T}.exact_agreement.statistic", 100, "qwkit trims and rounds raw itself"),
    ),
    (
        ("rsmeval", "eval", "raw_trim_round", "adj_agr"),
        Q(f"{T}.adjacent_agreement.statistic", 100, "as exact_agr"),
    ),
    # human–human, double-scored responses
    (("rsmeval", "consistency", "", "N"), Q(f"{HH}.n_items")),
    *(
        (("rsmeval", "consistency", "", f"h{k}_{stat}"), Q(f"{HH}.{which}.{stat}"))
        for k, which in ((1, "first"), (2, "second"))
        for stat in ("mean", "sd", "min", "max")
    ),
    (("rsmeval", "consistency", "", "wtkappa"), Q(f"{HH}.kappa.statistic")),
    (("rsmeval", "consistency", "", "corr"), Q(f"{HH}.pearson_r.statistic")),
    (
        ("rsmeval", "consistency", "", "SMD"),
        Q(f"{HH}.smd.statistic", note="pooled: √((sd₁² + sd₂²)/2)"),
    ),
    (("rsmeval", "consistency", "", "exact_agr"), Q(f"{HH}.exact_agreement.statistic", 100)),
    (("rsmeval", "consistency", "", "adj_agr"), Q(f"{HH}.adjacent_agreement.statistic", 100)),
    (("rsmeval", "consistency", "", "kappa"), Q(f"{HH}.unweighted_kappa.statistic")),
    # confusion tables (compared cell by cell on the union of labels) and score distributions
    (
        ("rsmeval", "confMatrix", "*", "*"),
        Q(f"{RTR}.confusion", note="rows sc1, columns raw_trim_round"),
    ),
    (("rsmeval", "confMatrix_h1h2", "*", "*"), Q(f"{HH}.confusion")),
    (
        ("rsmeval", "score_dist", "{K}", "human"),
        Q(f"{RTR}.distribution.human@labels={{K}} / {RTR}.n_items", 100, "percent of responses"),
    ),
    (
        ("rsmeval", "score_dist", "{K}", "sys_raw"),
        Q(f"{RTR}.distribution.machine@labels={{K}} / {RTR}.n_items", 100, "of raw_trim_round"),
    ),
    # true scores (PRMSE: sc1 and sc2)
    (("rsmeval", "true_score_eval", "{S}", "PRMSE true"), Q(f"{M}.prmse.statistic")),
    (("rsmeval", "true_score_eval", "{S}", "MSE true"), Q(f"{M}.prmse.mse_true")),
    (
        ("rsmeval", "true_score_eval", "{S}", "Variance of errors"),
        Q(f"{M}.prmse.variance_of_errors"),
    ),
    (("rsmeval", "true_score_eval", "{S}", "True score var"), Q(f"{M}.prmse.true_score_variance")),
    (("rsmeval", "true_score_eval", "{S}", "N"), Q(f"{M}.prmse.n_items")),
    (("rsmeval", "true_score_eval", "{S}", "N multiple"), Q(f"{M}.prmse.n_double_scored")),
    # rsmeval's degradation table: H–M on all responses minus H–H on the double-scored
    # (two samples); qwkit's degradation test is on the same items (the direct rows below),
    # and its result holds both terms of RSMTool's
    (
        ("rsmeval", "degradation", "{S}", "wtkappa"),
        Q(f"{M}.kappa.statistic - {HH}.kappa.statistic", note="difference of two qwkit numbers"),
    ),
    (
        ("rsmeval", "degradation", "{S}", "corr"),
        Q(f"{M}.pearson_r.statistic - {HH}.pearson_r.statistic"),
    ),
    (
        ("rsmeval", "degradation", "{S}", "kappa"),
        Q(f"{M}.unweighted_kappa.statistic - {HH}.unweighted_kappa.statistic"),
    ),
    (("rsmeval", "degradation", "{S}", "SMD"), Q(f"{M}.smd.statistic - {HH}.smd.statistic")),
    (
        ("rsmeval", "degradation", "raw_trim_round", "exact_agr"),
        Q(f"{RTR}.exact_agreement.statistic - {HH}.exact_agreement.statistic", 100),
    ),
    (
        ("rsmeval", "degradation", "raw_trim_round", "adj_agr"),
        Q(f"{RTR}.adjacent_agreement.statistic - {HH}.adjacent_agreement.statistic", 100),
    ),
    (
        ("direct", "degradation_same_items", "{S}", "wtkappa"),
        Q(f"{M}.degradation.statistic", note="use_all_responses=False: the same items"),
    ),
    *(
        (("direct", "degradation_same_items", "{S}", col), Q(f"{M}.degradations[#{i}].statistic"))
        for col, i in DEGRADED.items()
        if not col.endswith("_agr")
    ),
    *(
        (
            ("direct", "degradation_same_items", "raw_trim_round", col),
            Q(f"{RTR}.degradations[#{i}].statistic", 100),
        )
        for col, i in DEGRADED.items()
        if col.endswith("_agr")
    ),
    *(
        (
            ("direct", "degradation_same_items", s, col),
            Q(f"models[name={s}].degradations[#{i}].statistic", 100, UNROUNDED, False),
        )
        for s in ("raw", "raw_trim")
        for col, i in DEGRADED.items()
        if col.endswith("_agr")
    ),
    (
        ("rsmeval", "disattenuated_correlations", "{S}", "corr_disattenuated"),
        Q(
            f"{M}.disattenuated_r.statistic",
            note="corr(sc1, system), all responses / √corr(sc1, sc2), double-scored",
        ),
    ),
    # subgroups
    (("rsmeval", "eval_by_{g}", "{G}", "N"), Q(f"{RTR}.{G_}.n_items")),
    (
        ("rsmeval", "eval_by_{g}", "{G}", "wtkappa.raw_trim"),
        Q(f"models[name=raw_trim].{G_}.kappa.statistic"),
    ),
    (
        ("rsmeval", "eval_by_{g}", "{G}", "DSM.raw_trim"),
        Q(
            f"models[name=raw_trim].{G_}.dsm.statistic",
            note="z of each score by its own mean and SD over all responses",
        ),
    ),
    (("rsmeval", "eval_by_{g}", "{G}", "DSM.raw_trim_round"), Q(f"{RTR}.{G_}.dsm.statistic")),
    *(
        (("rsmeval", "eval_by_{g}", "{G}", col), Q(None, note=ZSCORE))
        for col in (
            "h_mean",
            "h_sd",
            "sys_mean.raw_trim",
            "sys_sd.raw_trim",
            "corr.raw_trim",
            "RMSE.raw_trim",
            "R2.raw_trim",
            "kappa.raw_trim_round",
            "exact_agr.raw_trim_round",
            "adj_agr.raw_trim_round",
        )
    ),
    (
        ("direct", "smd_by_group_johnson", "{G}", "{S}"),
        Q(
            f"{M}.{G_}.group_smd.statistic",
            note="(mean_g(m) − mean_g(h)) / sd(h, all responses): method='johnson'",
        ),
    ),
    (("rsmeval", "consistency_by_{g}", "{G}", "N"), Q(f"{RTR}.{G_}.n_double_scored")),
    (("rsmeval", "consistency_by_{g}", "{G}", "wtkappa"), Q(f"{RTR}.{G_}.human_human.statistic")),
    *(
        (("rsmeval", "consistency_by_{g}", "{G}", col), Q(None, note=ZSCORE))
        for col in ("corr", "kappa", "exact_agr", "adj_agr", "DSM")
    ),
    (
        ("rsmeval", "disattenuated_correlations_by_{g}", "{G}", "corr_disattenuated"),
        Q(None, note=ZSCORE),
    ),
    # fairness (Loukina, Madnani & Zechner 2019), fitted by RSMTool's report on raw_trim
    *(
        (
            ("rsmeval", "fairness_metrics_by_{g}", row, col),
            Q(f"models[name=raw_trim].fairness.{key}.{attr}"),
        )
        for col, key in (
            ("Overall score accuracy", "overall_score_accuracy"),
            ("Overall score difference", "overall_score_difference"),
            ("Conditional score difference", "conditional_score_difference"),
        )
        for row, attr in (("R2", "r2"), ("sig", "pvalue"))
    ),
    *(
        (
            ("rsmeval", f"estimates_{short}_by_{{g}}", "{G}", col),
            Q(
                f"models[name=raw_trim].fairness.{key}.{attr}@groups={{G}}",
                note="every group but the base",
            ),
        )
        for short, key in FAIRNESS
        for col, attr in (
            ("estimate", "estimate"),
            ("P>[t]", "pvalues"),
            ("[0.025", "low"),
            ("0.975]", "high"),
        )
    ),
]

# ------------------------------------------------------------------------------ children
DIRECT = r"""
import json, sys, warnings
import pandas as pd
sys.path.insert(0, sys.argv[1])
import rsmtool_reference as ref
from rsmtool.analyzer import Analyzer
from rsmtool.utils.metrics import standardized_mean_difference
outdir, name, group = sys.argv[2], sys.argv[3], sys.argv[4]
import pathlib
data = {p.stem[len(name) + 1:]: p for p in pathlib.Path(outdir).glob(name + "_*.csv")}
pred, df = ref.frames_for_analysis(data, [group])
warnings.simplefilter("ignore")
cols = ["sc1", "raw", "raw_trim", "raw_trim_round", "sc2"]
deg, _ = Analyzer().compute_degradation_and_disattenuated_correlations(df[cols], use_all_responses=False)
sd = df["sc1"].std(ddof=1)
smd = {str(lv): {s: standardized_mean_difference(d["sc1"], d[s], sd, None, method="johnson")
                 for s in ("raw", "raw_trim", "raw_trim_round")}
       for lv, d in df.groupby(group)}
print(json.dumps({"degradation_same_items": ref.frame(deg), "smd_by_group_johnson": smd}))
"""

NO_REPORT = r"""
import sys
from rsmtool import rsmeval
from rsmtool.reporter import Reporter
Reporter.create_report = lambda *a, **k: None
rsmeval.run_evaluation(sys.argv[1], sys.argv[2])
"""


def ensure_venv(venv: pathlib.Path) -> pathlib.Path:
    py = venv / "bin" / "python"
    if not py.exists():
        print(f"building {venv} ({' '.join(PINS)}) ...", flush=True)
        subprocess.run(["python3.11", "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", *PINS], check=True)
    return py


def timed(cmd: list[str], env=None, timeout=None) -> dict:
    """Wall seconds and peak RSS (MiB) of a command under /usr/bin/time -v."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            ["/usr/bin/time", "-v", *cmd],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"wall": time.perf_counter() - start, "timeout": True}
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr[-3000:]}")
    out = {"stdout": done.stdout}
    for line in done.stderr.splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock)"):
            clock = line.rsplit(" ", 1)[1].split(":")
            out["wall"] = sum(float(x) * 60**k for k, x in enumerate(reversed(clock)))
        if line.startswith("Maximum resident set size"):
            out["rss"] = int(line.rsplit(" ", 1)[1]) / 1024
    return out


def simulate(n: int, path: pathlib.Path) -> None:
    import numpy as np

    rng = np.random.default_rng(SEED)
    t = rng.normal(3, 1, n)
    g = rng.choice(np.array(["g1", "g2", "g3", "g4"]), n, p=[0.4, 0.3, 0.2, 0.1])
    h1 = np.clip(np.rint(t + rng.normal(0, 0.7, n)), 1, 5).astype(np.int64)
    h2 = np.clip(np.rint(t + rng.normal(0, 0.7, n)), 1, 5)
    h2[rng.random(n) >= 0.1] = np.nan
    m = np.round(0.1 + t + rng.normal(0, 0.6, n) + 0.2 * (g == "g2"), 6)
    with open(path, "w") as fh:
        fh.write("id,h1,h2,machine,group\n")
        h2s = np.where(np.isnan(h2), "", np.char.mod("%d", np.nan_to_num(h2).astype(np.int64)))
        for row in zip(  # noqa: B905 - equal lengths by construction
            np.char.mod("r%07d", np.arange(n)), h1.astype(str), h2s, np.char.mod("%.6f", m), g
        ):
            fh.write(",".join(row) + "\n")


def hanna_file(path: pathlib.Path, rsm_python: pathlib.Path) -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, sys.argv[1])
        import rsmtool_reference as ref
        df, _ = ref.hanna("RE", "chatgpt", "full")
        df = df.rename(columns={"story_id": "id", "judge": "machine", "system": "group"})
        df[["id", "h1", "h2", "machine", "group"]].to_csv(sys.argv[2], index=False)
        """
    )
    subprocess.run(
        [str(rsm_python), "-c", code, str(ROOT / "docs" / "_scripts"), str(path)], check=True
    )


# ------------------------------------------------------------------------------ equality
def _walk(obj, path: str):
    for part in re.findall(r"[^.\[\]]+|\[[^\]]*\]", path):
        if obj is None:
            return None
        if part.startswith("[#"):
            i = int(part[2:-1])
            obj = obj[i] if isinstance(obj, list) and i < len(obj) else None
        elif part.startswith("["):
            key, value = part[1:-1].split("=", 1)
            obj = next((x for x in obj if str(x.get(key)) == value), None)
        else:
            obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def pick(q: dict, path: str):
    """Follow a MAPPING path through qwkit's JSON (``q``: {"": the untrimmed evaluation,
    "trim": qwkit's own trimming}); None when absent or NaN."""
    for op, fn in ((" - ", lambda x, y: x - y), (" / ", lambda x, y: x / y)):
        if op in path:
            a, b = (pick(q, p) for p in path.split(op, 1))
            return None if a is None or b is None else fn(a, b)
    source, path = ("trim", path[5:]) if path.startswith("trim:") else ("", path)
    obj = q.get(source)
    if "@" in path:  # key@other=value: list key at the position of value in list other
        head, select = path.rsplit("@", 1)
        parent, _, key = head.rpartition(".")
        other, value = select.split("=", 1)
        obj = _walk(obj, parent)
        if not isinstance(obj, dict):
            return None
        where = [str(x) for x in obj.get(other) or []]
        obj = obj.get(key)[where.index(value)] if value in where else None
    else:
        obj = _walk(obj, path)
    if isinstance(obj, float) and obj != obj:
        return None
    return obj


def rsm_value(tables, direct, source, table, row, col):
    import math

    rows = [row]
    try:
        rows.append(repr(float(row)))  # score_dist: "1.0"
    except ValueError:
        pass
    if source == "direct":
        t = direct.get(table)
        if t is None:
            return None
        if "index" in t:
            row = next((r for r in rows if r in t["index"]), None)
            if row is None or col not in t["columns"]:
                return None
            v = t["data"][t["index"].index(row)][t["columns"].index(col)]
        else:
            v = t.get(row, {}).get(col)
    else:
        t = tables.get(table)
        row = None if t is None else next((r for r in rows if r in t.index), None)
        if row is None or col not in t.columns:
            return None
        v = t.loc[row, col]
    try:
        v = None if v is None else float(v)
    except (TypeError, ValueError):
        return None
    return None if v is None or math.isnan(v) else v


def _confusion(table, q, path) -> float | None:
    """The largest |difference| of two confusion tables, on the union of labels."""
    import numpy as np

    b = pick(q, path)
    if table is None or b is None:
        return None
    labels = q[""]["labels"]
    big = np.zeros((len(labels), len(labels)))
    for i, ri in enumerate(table.index):
        for j, cj in enumerate(table.columns):
            big[labels.index(int(float(ri))), labels.index(int(float(cj)))] = table.iloc[i, j]
    return float(np.abs(big - np.array(b)).max())


def compare(tables, direct, q, group_col, levels):
    """(statistic, qwkit path, RSMTool, qwkit, |difference|, note, same) for every mapped
    statistic; the statistic and path keep ``{G}`` and ``{K}`` (a row per subgroup level or
    score is summarized by its worst)."""
    labels = [str(k) for k in q[""]["labels"]]
    rows = []
    for (source, table, row, col), (qpath, factor, note, same) in MAPPING:
        table = table.replace("{g}", group_col)
        spec = row + col + (qpath or "")
        if qpath is not None and qpath.startswith("trim:") and q.get("trim") is None:
            continue  # no evaluation trimmed by qwkit (a tolerance the command line lacks)
        if qpath is None:  # a statistic qwkit lacks is listed once, {S} and {G} kept
            rows.append((f"{source}:{table}[{row}].{col}", None, None, None, None, note, same))
            continue
        for s in SCORES if "{S}" in spec else (None,):
            for lv in levels if "{G}" in spec else (None,):
                for k in labels if "{K}" in spec else (None,):

                    def fill(x, s=s, lv=lv, k=k, keep=False):
                        if s is not None:
                            x = x.replace("{S}", s)
                        if not keep:
                            x = x.replace("{G}", str(lv)).replace("{K}", str(k))
                        return x

                    key = f"{source}:{table}[{fill(row, keep=True)}].{fill(col, keep=True)}"
                    shown = fill(qpath, keep=True)
                    if row == "*":
                        diff = _confusion(tables.get(table), q, fill(qpath))
                        rows.append((key, shown, "table", "table", diff, note, same))
                        continue
                    a = rsm_value(tables, direct, source, table, fill(row), fill(col))
                    b = pick(q, fill(qpath))
                    b = None if b is None else float(b) * factor
                    diff = None if a is None or b is None else abs(a - b)
                    rows.append((key, shown, a, b, diff, note, same))
    return rows


def read_csv(path, **kw):
    """pandas.read_csv reading every float exactly: pandas < 3 needs
    ``float_precision="round_trip"``, which pandas 3 (exact by default) deprecates."""
    import pandas as pd

    if int(pd.__version__.split(".")[0]) < 3:
        kw["float_precision"] = "round_trip"
    return pd.read_csv(path, **kw)


def read_tables(outdir: pathlib.Path, name: str) -> dict:
    out = {}
    for p in outdir.glob(f"{name}_*.csv"):
        df = read_csv(p, index_col=0)
        df.index = ["" if (isinstance(i, float) and i != i) else str(i) for i in df.index]
        out[p.stem[len(name) + 1 :]] = df
    return out


# ------------------------------------------------------------------------------ runs
#: RSMTool's definitions: the SMD on the human SD; every criterion (DSM included)
RSMTOOL_OPTIONS = ["--smd", "unpooled", "--id", "id", "--criteria", ",".join(CRITERIA)]


def qwkit_cmd(path, machines, group, extra=(), labels="1,2,3,4,5"):
    return [
        sys.executable, "-m", "qwkit", "evaluate", str(path), "--human", "h1,h2",
        "--machine", machines, "--group", group, "--labels", labels, *RSMTOOL_OPTIONS, *extra,
    ]  # fmt: skip


def qwkit_json(path, group, labels, env) -> dict:
    """qwkit's two evaluations of an equality file: rsmeval's raw, raw_trim and
    raw_trim_round as three machines, untrimmed (``""``); and raw alone, trimmed by qwkit
    as rsmeval trims (``"trim"``)."""
    return {
        "": json.loads(
            timed(
                qwkit_cmd(path, ",".join(SCORES), group, ["--json", "--no-trim"], labels), env=env
            )["stdout"]
        ),
        "trim": json.loads(
            timed(qwkit_cmd(path, "raw", group, ["--json"], labels), env=env)["stdout"]
        ),
    }


def reference_equality(path: pathlib.Path, work: pathlib.Path) -> list[tuple[str, list]]:
    """The same comparison on the frozen data sets of tests/data/rsmtool_reference.json.gz
    (no RSMTool needed): qwkit evaluates rsmeval's kept responses, with its raw, raw_trim
    and raw_trim_round scores as three machines and the first subgroup variable."""
    import gzip
    import io

    import numpy as np
    import pandas as pd

    ref = json.loads(gzip.open(path).read())
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out = []
    for name, d in ref["datasets"].items():
        cfg = d["config"]
        if d["predictions"]["rows"] != "all" or cfg.get("scale_with") or "input_csv" not in d:
            continue
        p = d["predictions"]
        pred = pd.DataFrame(p["data"], index=[str(i) for i in p["index"]], columns=p["columns"])
        inp = pd.read_csv(io.StringIO(d["input_csv"]), dtype=str, keep_default_na=False)
        inp = inp.set_index(cfg["id_column"])
        sc2 = pd.to_numeric(inp[cfg["second_human_score_column"]], errors="coerce")
        if cfg.get("exclude_zero_scores", True):
            sc2[sc2 == 0] = np.nan
        group = cfg["subgroups"][0]
        frame = pd.DataFrame(
            {
                "h1": pred["sc1"],
                "h2": sc2.reindex(pred.index),
                **{s: pred[s] for s in SCORES},
                "group": inp[group].replace("", "No info").reindex(pred.index),
            }
        )
        eq_file = work / f"ref_{name}.csv"
        frame.to_csv(eq_file, index_label="id")
        labels = ",".join(str(k) for k in range(int(cfg["trim_min"]), int(cfg["trim_max"]) + 1))
        qj = qwkit_json(eq_file, "group", labels, env)
        if cfg.get("trim_tolerance", 0.4998) != 0.4998:
            qj["trim"] = None  # the command line trims with RSMTool's default tolerance only
        tables = {}
        for t, rec in d["rsmeval"].items():
            df = pd.DataFrame(rec["data"], index=rec["index"], columns=rec["columns"])
            df.index = ["" if i is None else str(i) for i in df.index]
            tables[t.replace(f"_by_{group}", "_by_group")] = df
        levels = sorted(frame["group"].unique())
        by = d["direct"]["by_group"][group]["levels"]
        direct = {
            "degradation_same_items": d["direct"]["degradation_same_items"],
            "smd_by_group_johnson": {
                lv: {s: by[lv]["smd"][s]["johnson"] for s in SCORES} for lv in levels
            },
        }
        out.append((name, compare(tables, direct, qj, "group", levels)))
    return out


def one(label, path, rsm_python, work, args, equality=True):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    name = "bench"
    cfg = dict(
        experiment_id=name,
        predictions_file=str(path),
        id_column="id",
        human_score_column="h1",
        second_human_score_column="h2",
        system_score_column="machine",
        trim_min=1,
        trim_max=5,
        subgroups=["group"],
    )
    cfgfile = work / f"{label}.json"
    cfgfile.write_text(json.dumps(cfg))
    res = {"label": label}
    rsmeval = rsm_python.parent / "rsmeval"
    out_nr = work / f"{label}_noreport"
    res["rsmeval_noreport"] = timed(
        [str(rsm_python), "-c", NO_REPORT, str(cfgfile), str(out_nr)], timeout=args.timeout
    )
    if not args.no_report:
        res["rsmeval"] = timed(
            [str(rsmeval), str(cfgfile), str(work / f"{label}_full")], timeout=args.timeout
        )
    q = [
        timed(qwkit_cmd(path, "machine", "group", ["--json"]), env=env) for _ in range(args.repeat)
    ]
    res["qwkit"] = min(q, key=lambda r: r["wall"])
    html = work / f"{label}.html"
    res["qwkit_report"] = timed(
        qwkit_cmd(path, "machine", "group", ["--report", str(html), "--force"]), env=env
    )
    if equality:
        outdir = out_nr / "output"
        pred = read_csv(outdir / f"{name}_pred_processed.csv", converters={"spkitemid": str})
        src = read_csv(path, converters={"id": str})
        both = src.merge(pred[["spkitemid", *SCORES]].rename(columns={"spkitemid": "id"}), on="id")
        eq_file = work / f"{label}_equality.csv"
        both.to_csv(eq_file, index=False)
        qj = qwkit_json(eq_file, "group", "1,2,3,4,5", env)
        direct = json.loads(
            subprocess.run(
                [str(rsm_python), "-c", DIRECT, str(ROOT / "docs" / "_scripts"), str(outdir), name, "group"],
                capture_output=True, text=True, check=True,
            ).stdout.strip().splitlines()[-1]
        )  # fmt: skip
        tables = read_tables(outdir, name)
        if not args.no_report:
            tables.update(
                {
                    k: v
                    for k, v in read_tables(work / f"{label}_full" / "output", name).items()
                    if k not in tables
                }
            )
        levels = sorted(src["group"].astype(str).unique())
        res["equality"] = compare(tables, direct, qj, "group", levels)
        res["n"] = len(src)
    return res


def fmt_time(r):
    if r is None:
        return "—"
    if r.get("timeout"):
        return f"> {r['wall']:.0f}"
    return f"{r['wall']:.2f}"


def fmt_mem(r):
    if r is None or r.get("timeout"):
        return "—"
    return f"{r['rss']:.0f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--venv", default=os.environ.get("RSMTOOL_VENV", str(ROOT / ".rsmtool-venv"))
    )
    parser.add_argument("--sizes", nargs="*", default=["1e4", "1e5", "1e6"])
    parser.add_argument("--no-hanna", action="store_true")
    parser.add_argument("--no-report", action="store_true", help="skip rsmeval's HTML report")
    parser.add_argument("--repeat", type=int, default=3, help="qwkit runs (best is kept)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per rsmeval run")
    parser.add_argument(
        "--reference",
        default=str(ROOT / "tests" / "data" / "rsmtool_reference.json.gz"),
        help="also compare on the frozen data sets of this file ('' to skip)",
    )
    parser.add_argument("--append", help="append the markdown section to this file")
    args = parser.parse_args(argv)
    started = time.time()
    rsm_python = ensure_venv(pathlib.Path(args.venv))
    versions = json.loads(
        subprocess.run(
            [str(rsm_python), "-c", "import json, importlib.metadata as m; print(json.dumps({p: m.version(p) for p in ('rsmtool', 'numpy', 'pandas', 'scikit-learn', 'scipy', 'statsmodels')}))"],
            capture_output=True, text=True, check=True,
        ).stdout
    )  # fmt: skip
    results, frozen = [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        if args.reference and pathlib.Path(args.reference).exists():
            print("frozen reference data sets ...", flush=True)
            frozen = reference_equality(pathlib.Path(args.reference), work)
        if not args.no_hanna:
            path = work / "hanna.csv"
            hanna_file(path, rsm_python)
            print("HANNA ...", flush=True)
            results.append(one("HANNA", path, rsm_python, work, args))
        for size in args.sizes:
            n = int(float(size))
            path = work / f"sim{n}.csv"
            simulate(n, path)
            print(f"n = {n} ...", flush=True)
            results.append(one(f"{n:.0e}".replace("+0", ""), path, rsm_python, work, args))
    lines = [
        f"## rsmeval against qwkit evaluate ({date.today()})",
        "",
        *_machine.describe(
            "one process per run",
            {f"RSMTool venv: {k}": v for k, v in versions.items()},
        ),
        f"- total run {time.time() - started:.0f} s",
        "",
        "Wall time (s) and peak memory (MiB, the largest process of the run):",
        "",
        "| data | responses | rsmeval (s) | rsmeval (MiB) | rsmeval, no report (s) | (MiB) "
        "| qwkit --json (s) | (MiB) | qwkit --report (s) | (MiB) | rsmeval / qwkit --report | no report / qwkit --json |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        full, nr, q, qr = r.get("rsmeval"), r["rsmeval_noreport"], r["qwkit"], r["qwkit_report"]
        ratio = f"{full['wall'] / qr['wall']:.0f}×" if full and not full.get("timeout") else "—"
        ratio2 = f"{nr['wall'] / q['wall']:.1f}×" if not nr.get("timeout") else "—"
        lines.append(
            f"| {r['label']} | {r.get('n', '')} | {fmt_time(full)} | {fmt_mem(full)} | {fmt_time(nr)} | {fmt_mem(nr)} "
            f"| {fmt_time(q)} | {fmt_mem(q)} | {fmt_time(qr)} | {fmt_mem(qr)} | {ratio} | {ratio2} |"
        )
    # equality: per statistic, the largest difference over data sets
    lines += [
        "",
        "Equality: the largest |RSMTool − qwkit| over the data sets above, per statistic "
        "(qwkit's value scaled to RSMTool's unit; `—`: qwkit does not compute it; "
        'definition "differs": the two tools define the statistic differently, the note says '
        "how, and the difference is expected):",
        "",
        "| RSMTool | qwkit | max |difference| | compared | definition | note |",
        "|---|---|---:|---:|---|---|",
    ]
    worst: dict[tuple, list] = {}
    for r in results:
        for key, qpath, a, b, diff, note, same in r.get("equality", []):
            w = worst.setdefault((key, qpath), [None, 0, 0, note, same])
            if diff is not None:
                w[0] = diff if w[0] is None else max(w[0], diff)
                w[1] += 1
            elif qpath is not None and (a is None) != (b is None):
                w[2] += 1
    for (key, qpath), (diff, count, one_sided, note, same) in worst.items():
        shown = "—" if qpath is None else ("n/a" if diff is None else f"{diff:.1e}")
        if one_sided:
            note = f"NaN or absent on one side only in {one_sided} case(s). {note}"
        lines.append(
            f"| `{key}` | {'`' + qpath + '`' if qpath else '—'} | {shown} | {count} "
            f"| {'—' if qpath is None else 'same' if same else 'differs'} | {note} |"
        )
    if frozen:
        lines += [
            "",
            "The same comparison on the frozen data sets of `tests/data/rsmtool_reference.json.gz` "
            "(`docs/_scripts/rsmtool_reference.py`; rsmeval's kept responses and its trimmed and "
            "rounded scores as qwkit's three machines, and its raw score trimmed by qwkit): the "
            "number of statistics compared, the largest |difference| among those both tools "
            "define alike, every one of them that differs by more than 1e-9, and the largest "
            "difference where the definitions differ:",
            "",
            "| data set | compared | max |difference|, same definition | differing by > 1e-9 (RSMTool vs qwkit) | NaN or absent on one side only (RSMTool vs qwkit) | max |difference|, definitions differ |",
            "|---|---:|---:|---|---|---:|",
        ]
        for name, rows in frozen:
            diffs = [r for r in rows if r[4] is not None and r[6]]
            other = [r for r in rows if r[4] is not None and not r[6]]
            bad = [r for r in diffs if r[4] > 1e-9]
            onesided = [
                r for r in rows if r[1] is not None and r[6] and (r[2] is None) != (r[3] is None)
            ]
            top = max((r[4] for r in diffs), default=float("nan"))
            top_other = max((r[4] for r in other), default=float("nan"))

            def show(r):
                k, path, a, b, d, _, _ = r
                k = f"`{k}` ~ `{path}`"
                if isinstance(a, float) and isinstance(b, float):
                    return f"{k}: {a:.6g} vs {b:.6g}"

                def num(x):
                    return "NaN" if x is None else f"{x:.6g}" if isinstance(x, float) else str(x)

                return f"{k}: {num(a)} vs {num(b)}" if d is None else f"{k}: {d:.3g}"

            said = "; ".join(show(r) for r in bad[:6])
            more = f" (+{len(bad) - 6} more)" if len(bad) > 6 else ""
            said1 = "; ".join(show(r) for r in onesided[:4])
            more1 = f" (+{len(onesided) - 4} more)" if len(onesided) > 4 else ""
            lines.append(
                f"| {name} | {len(diffs) + len(other)} | {top:.1e} | {said or '—'}{more} "
                f"| {said1 or '—'}{more1} | {top_other:.1e} |"
            )
    _machine.emit("\n".join(lines) + "\n", args.append)


if __name__ == "__main__":
    main()
