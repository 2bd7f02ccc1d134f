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
  column: every criterion with its interval (asymptotic), the human–human ceiling, PRMSE,
  the subgroups; and ``qwkit evaluate --report`` with its HTML report.

Equality: after rsmeval has run, its own trimmed and rounded scores (``raw_trim``,
``raw_trim_round`` from its ``pred_processed`` table) are joined to the file, and ``qwkit
evaluate --json`` evaluates raw, raw_trim and raw_trim_round as three machines. Every
statistic of ``MAPPING`` (an RSMTool table, row and column → a path in qwkit's JSON, with the
unit conversion) is compared and the largest |difference| reported. Two rows need RSMTool's
functions rather than its tables (``direct``: run in the RSMTool venv on rsmeval's own
frames): the degradation on the same items and the within-group SMD in the human SD of all
responses. A statistic qwkit does not compute today has ``None`` as its qwkit path: it is
listed, not compared — the place to add it when qwkit does.
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

# ------------------------------------------------------------------------------ mapping
# (source, table, row, column) -> (qwkit JSON path or None, factor, note).
# source "rsmeval": a CSV that rsmeval writes ({exp}_{table}.csv; row "" for one-row tables);
# source "direct": RSMTool's functions on rsmeval's frames (see DIRECT below).
# Paths: dots between keys; ``[key=value]`` picks the element of a list whose key is value.
# {S} runs over the score types raw, raw_trim, raw_trim_round (qwkit's three machines);
# {G} over the subgroup column's levels. qwkit's value × factor is compared.
M = "models[name={S}]"
MAPPING = [
    # human–machine, all responses (rsmeval's eval table, one row per score type)
    (("rsmeval", "eval", "{S}", "N"), (f"{M}.n_items", 1, "")),
    (
        ("rsmeval", "eval", "{S}", "wtkappa"),
        (f"{M}.kappa.statistic", 1, "Haberman's moment form; the table form on integers"),
    ),
    (("rsmeval", "eval", "{S}", "corr"), (f"{M}.pearson_r.statistic", 1, "")),
    (("rsmeval", "eval", "{S}", "SMD"), (f"{M}.smd.statistic", 1, "unpooled: sd(sc1), ddof 1")),
    (
        ("rsmeval", "eval", "raw_trim_round", "exact_agr"),
        (
            f"{M}.exact_agreement.statistic",
            100,
            "qwkit rounds each machine itself (halves up, within the scale); RSMTool's raw_trim_round is np.rint (halves to even) of the trimmed score",
        ),
    ),
    (
        ("rsmeval", "eval", "raw_trim_round", "adj_agr"),
        (f"{M}.adjacent_agreement.statistic", 100, "as exact_agr"),
    ),
    (
        ("rsmeval", "eval", "{S}", "kappa"),
        (None, 1, "unweighted kappa (skll: np.round of the scores, halves to even)"),
    ),
    (("rsmeval", "eval", "{S}", "RMSE"), (None, 1, "")),
    (("rsmeval", "eval", "{S}", "R2"), (None, 1, "sklearn r2_score(sc1, system)")),
    (("rsmeval", "eval", "{S}", "h_mean"), (None, 1, "")),
    (("rsmeval", "eval", "{S}", "h_sd"), (None, 1, "")),
    (("rsmeval", "eval", "{S}", "sys_mean"), (None, 1, "")),
    (("rsmeval", "eval", "{S}", "sys_sd"), (None, 1, "")),
    # human–human, double-scored responses
    (("rsmeval", "consistency", "", "N"), ("human_human.n_items", 1, "")),
    (("rsmeval", "consistency", "", "wtkappa"), ("human_human.kappa.statistic", 1, "")),
    (("rsmeval", "consistency", "", "corr"), ("human_human.pearson_r.statistic", 1, "")),
    (
        ("rsmeval", "consistency", "", "SMD"),
        ("human_human.smd.statistic", 1, "pooled: √((sd₁² + sd₂²)/2), ddof 1"),
    ),
    (
        ("rsmeval", "consistency", "", "exact_agr"),
        ("human_human.exact_agreement.statistic", 100, ""),
    ),
    (
        ("rsmeval", "consistency", "", "adj_agr"),
        ("human_human.adjacent_agreement.statistic", 100, ""),
    ),
    (("rsmeval", "consistency", "", "kappa"), (None, 1, "unweighted kappa")),
    # confusion tables (compared cell by cell on the union of labels)
    (
        ("rsmeval", "confMatrix", "*", "*"),
        ("models[name=raw_trim_round].confusion", 1, "rows sc1, columns raw_trim_round"),
    ),
    (("rsmeval", "confMatrix_h1h2", "*", "*"), ("human_human.confusion", 1, "")),
    (
        ("rsmeval", "score_dist", "*", "*"),
        (None, 1, "percent of responses at each rounded score, human and system"),
    ),
    # true scores (PRMSE: sc1 and sc2)
    (("rsmeval", "true_score_eval", "{S}", "PRMSE true"), (f"{M}.prmse.statistic", 1, "")),
    (("rsmeval", "true_score_eval", "{S}", "MSE true"), (f"{M}.prmse.mse_true", 1, "")),
    (
        ("rsmeval", "true_score_eval", "{S}", "Variance of errors"),
        (f"{M}.prmse.variance_of_errors", 1, ""),
    ),
    (
        ("rsmeval", "true_score_eval", "{S}", "True score var"),
        (f"{M}.prmse.true_score_variance", 1, ""),
    ),
    (("rsmeval", "true_score_eval", "{S}", "N"), (f"{M}.prmse.n_items", 1, "")),
    (("rsmeval", "true_score_eval", "{S}", "N multiple"), (f"{M}.prmse.n_double_scored", 1, "")),
    # degradation: rsmeval's table subtracts H–H on the double-scored responses from H–M on
    # all responses; qwkit's test uses the same (double-scored) items for both
    (
        ("rsmeval", "degradation", "{S}", "wtkappa"),
        (
            None,
            1,
            "H–M on all responses minus H–H on the double-scored: qwkit's degradation is on the same items (the direct row)",
        ),
    ),
    (
        ("direct", "degradation_same_items", "{S}", "wtkappa"),
        (f"{M}.degradation.statistic", 1, "use_all_responses=False"),
    ),
    (("rsmeval", "degradation", "{S}", "corr"), (None, 1, "")),
    (("rsmeval", "degradation", "{S}", "exact_agr"), (None, 1, "")),
    (("rsmeval", "degradation", "{S}", "adj_agr"), (None, 1, "")),
    (("rsmeval", "degradation", "{S}", "SMD"), (None, 1, "")),
    (
        ("rsmeval", "disattenuated_correlations", "{S}", "corr_disattenuated"),
        (None, 1, "corr(sc1, system) on all responses / √corr(sc1, sc2) on the double-scored"),
    ),
    # subgroups
    (
        ("rsmeval", "eval_by_{g}", "{G}", "N"),
        ("models[name=raw_trim].groups[group={G}].n_items", 1, ""),
    ),
    (
        ("rsmeval", "eval_by_{g}", "{G}", "wtkappa.raw_trim"),
        ("models[name=raw_trim].groups[group={G}].kappa.statistic", 1, ""),
    ),
    (
        ("direct", "smd_by_group_johnson", "{G}", "{S}"),
        (
            f"{M}.groups[group={{G}}].smd.statistic",
            1,
            "(mean_g(m) − mean_g(h)) / sd(h over all responses): RSMTool's method='johnson'",
        ),
    ),
    (
        ("rsmeval", "eval_by_{g}", "{G}", "DSM.raw_trim"),
        (
            None,
            1,
            "difference of standardized means: z of each score by its own mean and SD over all responses",
        ),
    ),
    (("rsmeval", "eval_by_{g}", "{G}", "corr.raw_trim"), (None, 1, "")),
    (("rsmeval", "eval_by_{g}", "{G}", "RMSE.raw_trim"), (None, 1, "")),
    (
        ("rsmeval", "consistency_by_{g}", "{G}", "wtkappa"),
        (None, 1, "human–human agreement per group"),
    ),
    (("rsmeval", "consistency_by_{g}", "{G}", "DSM"), (None, 1, "")),
    (("rsmeval", "disattenuated_correlations_by_{g}", "{G}", "corr_disattenuated"), (None, 1, "")),
    (
        ("rsmeval", "fairness_metrics_by_{g}", "R2", "*"),
        (None, 1, "adjusted R² of the OSA, OSD and CSD models (Loukina, Madnani & Zechner 2019)"),
    ),
    (("rsmeval", "estimates_osa_by_{g}", "{G}", "estimate"), (None, 1, "")),
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
def pick(obj, path: str):
    """Follow ``a.b[key=value].c`` through qwkit's JSON; None when absent."""
    for part in re.findall(r"[^.\[\]]+|\[[^\]]*\]", path):
        if obj is None:
            return None
        if part.startswith("["):
            key, value = part[1:-1].split("=", 1)
            obj = next((x for x in obj if str(x.get(key)) == value), None)
        else:
            obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def rsm_value(tables, direct, source, table, row, col):
    import math

    if source == "direct":
        t = direct.get(table)
        if t is None:
            return None
        if "index" in t:
            return (
                t["data"][t["index"].index(row)][t["columns"].index(col)]
                if row in t["index"]
                else None
            )
        return t.get(row, {}).get(col)
    t = tables.get(table)
    if t is None:
        return None
    r = row if row in t.index else None
    if r is None:
        return None
    v = t.loc[r, col]
    v = None if v is None else float(v)
    return None if v is None or math.isnan(v) else v


def compare(tables, direct, q, group_col, levels):
    """(statistic, qwkit path, RSMTool, qwkit, |difference|, note) for every mapped statistic;
    the statistic and path keep ``{G}`` (a row per subgroup level is summarized by its worst)."""
    import numpy as np

    rows = []
    for (source, table, row, col), (qpath, factor, note) in MAPPING:
        table = table.replace("{g}", group_col)
        spec = row + col + (qpath or "")
        # a statistic qwkit lacks is listed once, {S} and {G} kept
        for s in SCORES if "{S}" in spec and qpath else (None,):
            for lv in levels if "{G}" in spec else (None,):

                def fill(x, s=s, lv=lv, keep_group=False):
                    if x is None:
                        return None
                    if s is not None:
                        x = x.replace("{S}", s)
                    if lv is not None and not keep_group:
                        x = x.replace("{G}", lv)
                    return x

                key = f"{source}:{table}[{fill(row, keep_group=True)}].{fill(col, keep_group=True)}"
                shown_path = fill(qpath, keep_group=True)
                if qpath is None:
                    rows.append((key, None, None, None, None, note))
                    continue
                if row == "*":
                    a = tables.get(table)
                    b = pick(q, fill(qpath))
                    diff = None
                    if a is not None and b is not None:
                        labels = q["labels"]
                        big = np.zeros((len(labels), len(labels)))
                        for i, ri in enumerate(a.index):
                            for j, cj in enumerate(a.columns):
                                big[labels.index(int(float(ri))), labels.index(int(float(cj)))] = (
                                    a.iloc[i, j]
                                )
                        diff = float(np.abs(big - np.array(b)).max())
                    rows.append((key, shown_path, "table", "table", diff, note))
                    continue
                a = rsm_value(tables, direct, source, table, fill(row), fill(col))
                b = pick(q, fill(qpath))
                b = None if b is None else float(b) * factor
                diff = None if a is None or b is None else abs(a - b)
                rows.append((key, shown_path, a, b, diff, note))
    return rows


def read_tables(outdir: pathlib.Path, name: str) -> dict:
    import pandas as pd

    out = {}
    for p in outdir.glob(f"{name}_*.csv"):
        df = pd.read_csv(p, index_col=0, float_precision="round_trip")
        df.index = ["" if (isinstance(i, float) and i != i) else str(i) for i in df.index]
        out[p.stem[len(name) + 1 :]] = df
    return out


# ------------------------------------------------------------------------------ runs
def qwkit_cmd(path, machines, group, extra=(), labels="1,2,3,4,5"):
    return [
        sys.executable, "-m", "qwkit", "evaluate", str(path), "--human", "h1,h2",
        "--machine", machines, "--group", group, "--labels", labels, *extra,
    ]  # fmt: skip


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
        qj = json.loads(
            timed(
                qwkit_cmd(eq_file, ",".join(SCORES), "group", ["--json"], labels=labels), env=env
            )["stdout"]
        )
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
        import pandas as pd

        outdir = out_nr / "output"
        pred = pd.read_csv(
            outdir / f"{name}_pred_processed.csv",
            converters={"spkitemid": str},
            float_precision="round_trip",
        )
        src = pd.read_csv(path, converters={"id": str}, float_precision="round_trip")
        both = src.merge(pred[["spkitemid", *SCORES]].rename(columns={"spkitemid": "id"}), on="id")
        eq_file = work / f"{label}_equality.csv"
        both.to_csv(eq_file, index=False)
        qj = json.loads(
            timed(qwkit_cmd(eq_file, ",".join(SCORES), "group", ["--json"]), env=env)["stdout"]
        )
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
        "(qwkit's value scaled to RSMTool's unit; `—`: qwkit does not compute it today):",
        "",
        "| RSMTool | qwkit | max |difference| | compared | note |",
        "|---|---|---:|---:|---|",
    ]
    worst: dict[tuple, list] = {}
    for r in results:
        for key, qpath, a, b, diff, note in r.get("equality", []):
            w = worst.setdefault((key, qpath), [None, 0, 0, note])
            if diff is not None:
                w[0] = diff if w[0] is None else max(w[0], diff)
                w[1] += 1
            elif qpath is not None and (a is None) != (b is None):
                w[2] += 1
    for (key, qpath), (diff, count, one_sided, note) in worst.items():
        shown = "—" if qpath is None else ("n/a" if diff is None else f"{diff:.1e}")
        if one_sided:
            note = f"NaN on one side only in {one_sided} case(s). {note}"
        lines.append(
            f"| `{key}` | {'`' + qpath + '`' if qpath else '—'} | {shown} | {count} | {note} |"
        )
    if frozen:
        lines += [
            "",
            "The same comparison on the frozen data sets of `tests/data/rsmtool_reference.json.gz` "
            "(`docs/_scripts/rsmtool_reference.py`; rsmeval's kept responses and its trimmed and "
            "rounded scores as qwkit's three machines): the number of statistics compared, the "
            "largest |difference|, and every statistic that differs by more than 1e-9:",
            "",
            "| data set | compared | max |difference| | differing by > 1e-9 (RSMTool vs qwkit) | NaN on one side only (RSMTool vs qwkit) |",
            "|---|---:|---:|---|---|",
        ]
        for name, rows in frozen:
            diffs = [r for r in rows if r[4] is not None]
            bad = [r for r in diffs if r[4] > 1e-9]
            onesided = [r for r in rows if r[1] is not None and (r[2] is None) != (r[3] is None)]
            worst = max((r[4] for r in diffs), default=float("nan"))

            def show(r):
                k, path, a, b, d, _ = r
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
                f"| {name} | {len(diffs)} | {worst:.1e} | {said or '—'}{more} | {said1 or '—'}{more1} |"
            )
    _machine.emit("\n".join(lines) + "\n", args.append)


if __name__ == "__main__":
    main()
