# ruff: noqa: E501  (a script that writes wide records)
"""Freeze RSMTool's numbers: what ``rsmeval`` (and RSMTool's functions) compute on a set of
data sets, written to ``tests/data/rsmtool_reference.json.gz`` so that qwkit's tests can hold
every statistic both compute equal to RSMTool's without RSMTool installed.

RSMTool runs in its own virtual environment (it needs numpy < 2 and pins scikit-learn through
``skll==5.0.1``)::

    python3.11 -m venv /work/rsmtool-venv
    /work/rsmtool-venv/bin/pip install rsmtool==12.0.0 numpy==1.26.4 pandas==2.2.3 \\
        scipy==1.13.1 statsmodels==0.14.4
    /work/rsmtool-venv/bin/python docs/_scripts/rsmtool_reference.py            # ~15 min
    /work/rsmtool-venv/bin/python docs/_scripts/rsmtool_reference.py --no-report  # ~2 min

(``RSMTOOL_PINS`` below; ``benchmarks/bench_rsmtool.py --build-venv`` makes the same venv.)
With the report (the default) each data set is run through the ``rsmeval`` command, exactly
as a user runs it, HTML report included — the fairness analyses of Loukina, Madnani & Zechner
(2019) exist only there: the report's ``fairness_analyses`` notebook fits them and writes
their tables. ``--no-report`` calls ``rsmtool.rsmeval.run_evaluation`` in-process with the
report switched off (same tables, minus the notebook's fairness files; the script's own call
of ``rsmtool.fairness_utils.get_fairness_analyses`` — the notebook's call, on the notebook's
frame — stands in, and with the report on it is checked equal to the notebook's files).

Every data set is rebuilt deterministically from files in this repository (HANNA:
``src/qwkit/data/hanna_wide.csv``; RSMTool's PRMSE data: ``tests/data/prmse_data*.csv``) or
from a seeded simulation (numpy ``default_rng(20261121)``). The exact file rsmeval read is
stored in the JSON (``input_csv``, except the PRMSE data set: path, SHA-256 and recipe), so a
test needs no generator.

JSON layout (``null`` stands for NaN; every float is the value rsmeval wrote, read back
exactly)::

    {"provenance": {...versions, pins, date, command...},
     "datasets": {NAME: {
        "description", "recipe", "config" (the rsmeval configuration as run),
        "input_csv" | "input_file" (+ "input_sha256", "recipe"),
        "scale_with_csv" (when predictions are scaled),
        "excluded" (ids rsmeval left out, with the reason),
        "rsmeval": {TABLE: {"index", "columns", "data"}}   # every CSV rsmeval wrote
        "predictions": {"rows": "all" | "sample", "columns", "data"}  # trimmed/rounded
        "direct": {...RSMTool functions called on the same frames...},
        "log_warnings": [...]}},
     "errors": {NAME: {"config", "input_csv", "exception", "message"}}}

``direct`` holds what rsmeval computes but does not write, or what it would compute under
another setting, each from RSMTool's own functions (``rsmtool.utils.metrics``,
``rsmtool.analyzer.Analyzer``, ``rsmtool.fairness_utils``, ``rsmtool.utils.prmse``):

* ``smd``: the SMD of every score type by all four of ``standardized_mean_difference``'s
  methods (unpooled, pooled, johnson, williamson), human–machine over all responses and
  human–human over the double-scored ones;
* ``by_group``: per subgroup variable and level, the *full* evaluation table (17 metrics ×
  every score type, DSM — what rsmeval's ``compute_metrics_by_group`` computes before it keeps
  the short columns), the SMD by the four methods with the population SDs rsmeval uses, and
  human–human agreement per group with the pooled SMD as well as the DSM;
* ``degradation_same_items`` / ``disattenuated_same_items``:
  ``Analyzer.compute_degradation_and_disattenuated_correlations(use_all_responses=False)`` —
  human–machine on the double-scored responses only (rsmeval's default uses all responses
  for human–machine and the double-scored ones for human–human);
* ``fairness``: per subgroup variable, the three OLS fits (every coefficient, standard error,
  t, p, interval, R², adjusted R², F and its p-value, degrees of freedom) and the CSD's
  ``anova_lm`` table; also ``fairness_by_score`` on the untrimmed and rounded scores;
* ``prmse_all_humans``: ``get_true_score_evaluations`` with every human column of the data
  (rsmeval uses sc1 and sc2 only);
* ``self_check``: rsmeval's ``eval`` table recomputed from the frames read back from its own
  output (max |difference|; 0 expected).
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import io
import json
import math
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "rsmtool_reference.json.gz"
SEED = 20261121
RSMTOOL_PINS = [
    "rsmtool==12.0.0",
    "numpy==1.26.4",
    "pandas==2.2.3",
    "scipy==1.13.1",
    "statsmodels==0.14.4",
]
# the frames rsmeval writes that are data, not statistics (kept apart or left out)
DATA_FRAMES = {
    "pred_processed",
    "test_metadata",
    "test_other_columns",
    "test_human_scores",
    "test_excluded_responses",
    "test_responses_with_excluded_flags",
}
SCORE_TYPES = ["raw", "raw_trim", "raw_trim_round", "scale", "scale_trim", "scale_trim_round"]
SMD_METHODS = ["unpooled", "pooled", "johnson", "williamson"]


# ----------------------------------------------------------------------------- helpers
def clean(x):
    """JSON-ready: numpy scalars to Python, NaN/inf to None."""
    import numpy as np

    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return [clean(v) for v in x.tolist()]
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return None if not math.isfinite(x) else x
    if x is None or isinstance(x, (int, str)):
        return x
    try:
        import pandas as pd

        if pd.isna(x):
            return None
    except (TypeError, ValueError):
        pass
    return str(x)


def frame(df):
    return {
        "index": clean(list(df.index)),
        "columns": clean(list(df.columns)),
        "data": clean(df.to_numpy(dtype=object).tolist()),
    }


def series(s):
    return clean(s.to_dict())


def read_exact(path, **kw):
    import pandas as pd

    return pd.read_csv(path, float_precision="round_trip", **kw)


def csv_text(df):
    return df.to_csv(index=False, lineterminator="\n")


# ----------------------------------------------------------------------------- data sets
def hanna(criterion, judge, design, rng_seed=SEED):
    """HANNA (Chhun et al. 2022, 2024), one criterion: h1 as sc1, h2 as sc2 on every story
    ("full") or on a random 20% of them ("20pct": numpy default_rng(20261121).choice(1056,
    211, replace=False)); h3 kept on the same stories (column h3, for PRMSE with every human);
    the judge's score (the mean of three answers, real-valued) as the system score; subgroups
    the generating ``system`` (11 levels, 96 stories each) and ``source`` (Human / Machine)."""
    import numpy as np
    import pandas as pd

    wide = pd.read_csv(ROOT / "src" / "qwkit" / "data" / "hanna_wide.csv")
    df = pd.DataFrame(
        {
            "story_id": wide["story_id"].astype(str),
            "h1": wide[f"{criterion}_h1"],
            "h2": wide[f"{criterion}_h2"].astype(float),
            "h3": wide[f"{criterion}_h3"].astype(float),
            "judge": wide[f"{criterion}_{judge}"],
            "system": wide["system"],
            "source": np.where(wide["system"] == "Human", "Human", "Machine"),
        }
    )
    if design == "20pct":
        keep = np.zeros(len(df), bool)
        keep[np.random.default_rng(rng_seed).choice(len(df), 211, replace=False)] = True
        df.loc[~keep, ["h2", "h3"]] = np.nan
    recipe = (
        f"src/qwkit/data/hanna_wide.csv: story_id (as text), h1={criterion}_h1, "
        f"h2={criterion}_h2, h3={criterion}_h3, judge={criterion}_{judge}, system, "
        "source = 'Human' if system == 'Human' else 'Machine'"
        + (
            "; h2 and h3 blanked except on rows numpy.random.default_rng(20261121)"
            ".choice(1056, 211, replace=False)"
            if design == "20pct"
            else ""
        )
    )
    return df, recipe


def sim_bias():
    """1,000 responses on a 1–6 scale: latent T ~ N(3.5, 1.1²); humans rint(T + N(0, 0.7²))
    clipped to 1–6; the machine 3.5 + 1.25(T − 3.5) + N(0, 0.6²) + 0.35 in group B (a known
    bias), unclipped, so that some scores fall outside [0.5002, 6.4998]; groups A (650), B
    (346) and C (4: a tiny group, one response double-scored); 15% double-scored; the first
    nine machine scores overwritten with 2.5, 3.5, 4.5, 0.5002, 6.4998, 0.5, 6.5, −1, 9 (ties
    at .5 and the trimming bounds)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(SEED)
    n = 1000
    group = np.array(["A"] * 650 + ["B"] * 346 + ["C"] * 4)
    rng.shuffle(group)
    t = rng.normal(3.5, 1.1, n)
    h = np.clip(np.rint(t[:, None] + rng.normal(0, 0.7, (n, 2))), 1, 6)
    m = 3.5 + 1.25 * (t - 3.5) + rng.normal(0, 0.6, n) + 0.35 * (group == "B")
    m[:9] = [2.5, 3.5, 4.5, 0.5002, 6.4998, 0.5, 6.5, -1.0, 9.0]
    double = np.zeros(n, bool)
    not_c = np.flatnonzero(group != "C")
    double[rng.choice(not_c, 149, replace=False)] = True
    double[np.flatnonzero(group == "C")[0]] = True
    h2 = np.where(double, h[:, 1], np.nan)
    df = pd.DataFrame(
        {
            "id": [f"s{i:04d}" for i in range(n)],
            "h1": h[:, 0].astype(int),
            "h2": h2,
            "machine": np.round(m, 6),
            "group": group,
        }
    )
    # a training sample for scale_with (sc1, prediction), same model
    nt = 500
    tt = rng.normal(3.5, 1.1, nt)
    train = pd.DataFrame(
        {
            "sc1": np.clip(np.rint(tt + rng.normal(0, 0.7, nt)), 1, 6).astype(int),
            "prediction": np.round(0.2 + 0.8 * tt + rng.normal(0, 0.6, nt), 6),
        }
    )
    return df, train


def sim_integer():
    """600 responses on a 0–4 scale, an integer system score (an ordinal classifier's
    output): latent T ~ N(2, 1); humans rint(T + N(0, 0.6²)) clipped to 0–4; the machine
    rint(T + N(0, 0.7²)) clipped to 0–4; subgroups L1 (X 300, Y 200, Z 100); 25%
    double-scored."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(SEED + 1)
    n = 600
    group = np.array(["X"] * 300 + ["Y"] * 200 + ["Z"] * 100)
    rng.shuffle(group)
    t = rng.normal(2, 1, n) + 0.25 * (group == "Z")
    h = np.clip(np.rint(t[:, None] + rng.normal(0, 0.6, (n, 2))), 0, 4)
    m = np.clip(np.rint(t + rng.normal(0, 0.7, n)), 0, 4).astype(int)
    double = np.zeros(n, bool)
    double[rng.choice(n, 150, replace=False)] = True
    return pd.DataFrame(
        {
            "id": [f"i{i:03d}" for i in range(n)],
            "h1": h[:, 0].astype(int),
            "h2": np.where(double, h[:, 1], np.nan),
            "machine": m,
            "L1": group,
        }
    )


def edge():
    """60 responses on a 1–4 scale with what rsmeval leaves out: a text human score ('NS'),
    an empty human score, human scores of 0 (left out under the default
    exclude_zero_scores: true), an empty and a text machine score, a text and a zero second
    score, and empty subgroup cells."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(SEED + 2)
    n = 60
    t = rng.normal(2.5, 0.9, n)
    h1 = np.clip(np.rint(t + rng.normal(0, 0.5, n)), 1, 4).astype(int).astype(object)
    h2 = np.clip(np.rint(t + rng.normal(0, 0.5, n)), 1, 4).astype(object)
    h2[30:] = ""
    m = np.round(t + rng.normal(0, 0.5, n), 4).astype(object)
    grp = np.array(["P", "Q"] * 30, dtype=object)
    h1[0], h1[1], h1[2], h1[3] = "NS", "", 0, 0
    m[4], m[5] = "", "err"
    h2[6], h2[7] = "NS", 0
    grp[8], grp[9] = "", ""
    return pd.DataFrame(
        {"id": [f"e{i:02d}" for i in range(n)], "h1": h1, "h2": h2, "machine": m, "grp": grp}
    )


def prmse_sparse():
    import pandas as pd

    path = ROOT / "tests" / "data" / "prmse_data_sparse_matrix.csv"
    raw = path.read_bytes()
    df = pd.read_csv(io.BytesIO(raw))
    df.insert(0, "id", [f"r{i:05d}" for i in range(len(df))])
    df["form"] = ["ABC"[i % 3] for i in range(len(df))]
    recipe = (
        "tests/data/prmse_data_sparse_matrix.csv (RSMTool's tests/data/files, Apache-2.0; "
        "columns system, h1..h4, h2 on 5,000, h3 on 2,500, h4 on 1,000 of 10,000 responses) "
        "with id = 'r%05d' % row and form = 'ABC'[row % 3] added before the file's columns "
        "and after them respectively; sc1 = h1, sc2 = h2, system score = system"
    )
    return df, recipe, hashlib.sha256(raw).hexdigest()


def datasets():
    """(name, description, frame, config, extras) for every run."""
    runs = []
    base = {"trim_min": 1, "trim_max": 5}
    for crit, judge, design, what in [
        ("RE", "chatgpt", "full", "relevance, ChatGPT, every story double-scored"),
        ("CH", "chatgpt", "20pct", "coherence, ChatGPT, 20% double-scored"),
        (
            "EM",
            "chatgpt",
            "20pct",
            "empathy, ChatGPT (scores down to 0.33: trimmed), 20% double-scored",
        ),
        (
            "CH",
            "mistral",
            "full",
            "coherence, Mistral-7B (failed answers empty: left out; scores at .5: rounding ties)",
        ),
    ]:
        df, recipe = hanna(crit, judge, design)
        name = f"hanna_{crit}_{judge}_{design}"
        runs.append(
            (
                name,
                f"HANNA {what}",
                df,
                dict(
                    base,
                    id_column="story_id",
                    human_score_column="h1",
                    second_human_score_column="h2",
                    system_score_column="judge",
                    subgroups=["system", "source"],
                ),
                {"recipe": recipe, "humans": ["sc1", "sc2", "h3"]},
            )
        )
    df, train = sim_bias()
    cfg = dict(
        id_column="id",
        human_score_column="h1",
        second_human_score_column="h2",
        system_score_column="machine",
        trim_min=1,
        trim_max=6,
        subgroups=["group"],
    )
    runs.append(("sim_bias", "simulated, known bias in group B, " + sim_bias.__doc__, df, cfg, {}))
    runs.append(
        (
            "sim_bias_scaled",
            "sim_bias with scale_with: the predictions rescaled to the human mean and SD of a "
            "training sample (scale_with_csv)",
            df,
            dict(cfg, scale_with="train_scale.csv"),
            {"scale_with": train},
        )
    )
    runs.append(
        (
            "sim_bias_tolerance0",
            "sim_bias with trim_tolerance: 0 (trimming to [trim_min, trim_max] exactly)",
            df,
            dict(cfg, trim_tolerance=0),
            {},
        )
    )
    df = sim_integer()
    cfg = dict(
        id_column="id",
        human_score_column="h1",
        second_human_score_column="h2",
        system_score_column="machine",
        trim_min=0,
        trim_max=4,
        subgroups=["L1"],
        exclude_zero_scores=False,
    )
    runs.append(
        (
            "sim_integer",
            "simulated integer system scores, "
            + sim_integer.__doc__
            + " exclude_zero_scores: false",
            df,
            cfg,
            {},
        )
    )
    cfg = {k: v for k, v in cfg.items() if k != "exclude_zero_scores"}
    runs.append(
        (
            "sim_integer_default_zeros",
            "sim_integer under rsmeval's default exclude_zero_scores: true (responses with a "
            "human score of 0 are left out; second scores of 0 become missing)",
            df,
            cfg,
            {},
        )
    )
    runs.append(
        (
            "edge",
            edge.__doc__,
            edge(),
            dict(
                id_column="id",
                human_score_column="h1",
                second_human_score_column="h2",
                system_score_column="machine",
                trim_min=1,
                trim_max=4,
                subgroups=["grp"],
            ),
            {},
        )
    )
    df, recipe, sha = prmse_sparse()
    cfg = dict(
        id_column="id",
        human_score_column="h1",
        second_human_score_column="h2",
        system_score_column="system",
        trim_min=0,
        trim_max=4,
        subgroups=["form"],
        exclude_zero_scores=False,
    )
    extras = {
        "recipe": recipe,
        "input_file": "tests/data/prmse_data_sparse_matrix.csv",
        "input_sha256": sha,
        "humans": ["sc1", "sc2", "h3", "h4"],
    }
    runs.append(
        (
            "prmse_sparse",
            "RSMTool's PRMSE test data (sparse: 1 to 4 ratings per response), exclude_zero_scores: false",
            df,
            cfg,
            extras,
        )
    )
    cfg = {k: v for k, v in cfg.items() if k != "exclude_zero_scores"}
    runs.append(
        (
            "prmse_sparse_default_zeros",
            "the same under the default exclude_zero_scores: true (964 responses with h1 = 0 left out)",
            df,
            cfg,
            extras,
        )
    )
    return runs


# ----------------------------------------------------------------------------- running
def run_rsmeval(workdir, name, df, config, extras, report):
    """Write the input and configuration, run rsmeval, return (output dir, log text)."""
    work = Path(workdir) / name
    work.mkdir(parents=True)
    df.to_csv(work / "input.csv", index=False)
    if "scale_with" in extras:
        extras["scale_with"].to_csv(work / "train_scale.csv", index=False)
    cfg = dict(experiment_id=name, predictions_file="input.csv", **config)
    (work / "config.json").write_text(json.dumps(cfg, indent=1))
    out = work / "out"
    if report:
        rsmeval = Path(sys.executable).parent / "rsmeval"
        proc = subprocess.run(
            [str(rsmeval), str(work / "config.json"), str(out)],
            capture_output=True,
            text=True,
        )
        log = proc.stdout + proc.stderr
        if proc.returncode:
            raise RuntimeError(f"rsmeval failed on {name}:\n{log[-3000:]}")
    else:
        log = run_in_process(work / "config.json", out)
    return out / "output", cfg, log


def run_in_process(config_path, out):
    """rsmeval's run_evaluation with the report generation switched off."""
    import logging

    from rsmtool import rsmeval
    from rsmtool.reporter import Reporter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.root.addHandler(handler)
    logging.root.setLevel(logging.INFO)
    saved = Reporter.create_report
    Reporter.create_report = lambda *a, **k: None
    try:
        rsmeval.run_evaluation(str(config_path), str(out))
    finally:
        Reporter.create_report = saved
        logging.root.removeHandler(handler)
    return stream.getvalue()


def read_tables(outdir, name):
    import pandas as pd

    tables, data = {}, {}
    for path in sorted(outdir.glob(f"{name}_*.csv")):
        table = path.stem[len(name) + 1 :]
        if table in DATA_FRAMES:
            data[table] = path
            continue
        df = read_exact(path, index_col=0)
        # the fairness tables' first column is the (unnamed) row label; keep it as index
        df.index = [("" if pd.isna(i) else i) for i in df.index]
        tables[table] = frame(df)
    return tables, data


def frames_for_analysis(data, subgroups):
    """The frames rsmeval's Analyzer used, read back from its output (exact floats)."""
    str_cols = {c: str for c in ["spkitemid", *subgroups]}
    pred = read_exact(data["pred_processed"], converters={"spkitemid": str})
    meta = read_exact(data["test_metadata"], converters=str_cols)
    df = pred.merge(meta, on="spkitemid")
    if "test_human_scores" in data:
        hs = read_exact(data["test_human_scores"], converters={"spkitemid": str})
        df = df.merge(hs[["spkitemid", "sc2"]], on="spkitemid")
    return pred, df


def fit_record(fit):
    ci = fit.conf_int()
    return {
        "params": series(fit.params),
        "bse": series(fit.bse),
        "tvalues": series(fit.tvalues),
        "pvalues": series(fit.pvalues),
        "conf_int_low": series(ci[0]),
        "conf_int_high": series(ci[1]),
        "rsquared": clean(fit.rsquared),
        "rsquared_adj": clean(fit.rsquared_adj),
        "fvalue": clean(fit.fvalue),
        "f_pvalue": clean(fit.f_pvalue),
        "df_model": clean(fit.df_model),
        "df_resid": clean(fit.df_resid),
        "nobs": clean(fit.nobs),
        "ssr": clean(fit.ssr),
        "centered_tss": clean(fit.centered_tss),
    }


def fairness(df_merged, group, score_column):
    """get_fairness_analyses as the report's notebook calls it, plus every fit's details."""
    import warnings

    from rsmtool.fairness_utils import get_fairness_analyses
    from statsmodels.stats.anova import anova_lm

    df = df_merged.copy()
    fits, container = get_fairness_analyses(df, group, score_column)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import statsmodels.formula.api as smf

        null_fit = smf.ols("error ~ sc1_cat", data=df).fit()
        anova = anova_lm(null_fit, fits["csd"])
    tables = {n: frame(container[n]) for n in container.keys()}
    return {
        "score_column": score_column,
        "group_order": clean(list(df["group"].cat.categories)),
        "sc1_order": clean(list(df["sc1_cat"].cat.categories)),
        "tables": tables,
        "fits": {k: fit_record(v) for k, v in fits.items()},
        "csd_null_fit": fit_record(null_fit),
        "csd_anova": frame(anova),
    }


def direct(pred, df, subgroups, has_sc2, input_df, humans, config):
    """RSMTool's own functions on the frames rsmeval used."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _direct(pred, df, subgroups, has_sc2, input_df, humans, config)


def _direct(pred, df, subgroups, has_sc2, input_df, humans, config):
    import pandas as pd
    from rsmtool.analyzer import Analyzer
    from rsmtool.utils.metrics import standardized_mean_difference
    from rsmtool.utils.prmse import get_true_score_evaluations

    an = Analyzer()
    score_cols = [c for c in SCORE_TYPES if c in pred.columns]
    cols = ["sc1", *score_cols] + (["sc2"] if has_sc2 else [])
    out = {}

    # self-check: eval recomputed
    ev, _, hh = an.compute_metrics(df[cols], include_second_score=has_sc2)
    out["self_check_eval"] = frame(ev)

    # SMD, every method
    sd = {c: df[c].std(ddof=1) for c in cols}
    smd = {"human_machine": {}, "human_human": {}}
    for s in score_cols:
        smd["human_machine"][s] = {
            m: clean(standardized_mean_difference(df["sc1"], df[s], sd["sc1"], sd[s], method=m))
            for m in SMD_METHODS
        }
    if has_sc2:
        dd = df[df["sc2"].notnull()]
        smd["human_human"] = {
            m: clean(
                standardized_mean_difference(
                    dd["sc1"], dd["sc2"], dd["sc1"].std(ddof=1), dd["sc2"].std(ddof=1), method=m
                )
            )
            for m in SMD_METHODS
        }
    out["smd"] = smd

    # by group: the full tables rsmeval computes, SMD by every method, HH with pooled SMD
    by_group = {}
    for g in subgroups:
        pop_sd = {c: df[c].std(ddof=1) for c in cols}
        pop_mn = {c: df[c].mean() for c in cols}
        levels = {}
        combined = [*sorted(df[g].unique()), "All data"]
        for level in combined:
            dg = df if level == "All data" else df[df[g] == level]
            full, short, hh = an.compute_metrics(
                dg[cols],
                compute_shortened=True,
                include_second_score=has_sc2,
                population_sd_dict=pop_sd,
                population_mn_dict=pop_mn,
                use_diff_std_means=True,
            )
            rec = {"eval": frame(full), "eval_short": frame(short)}
            rec["smd"] = {
                s: {
                    m: clean(
                        standardized_mean_difference(
                            dg["sc1"], dg[s], pop_sd["sc1"], pop_sd[s], method=m
                        )
                    )
                    for m in SMD_METHODS
                }
                for s in score_cols
            }
            if has_sc2:
                rec["consistency_dsm"] = frame(hh)
                dd = dg[dg["sc2"].notnull()][["sc1", "sc2"]]
                if len(dd):
                    hhs = an.metrics_helper(dd["sc1"], dd["sc2"], smd_method="pooled")
                    rec["consistency_pooled_smd"] = series(hhs)
            levels[level] = rec
        by_group[g] = {
            "population_sd": clean(pop_sd),
            "population_mean": clean(pop_mn),
            "levels": levels,
        }
    out["by_group"] = by_group

    if has_sc2:
        deg, dis = an.compute_degradation_and_disattenuated_correlations(
            df[cols], use_all_responses=False
        )
        out["degradation_same_items"] = frame(deg)
        out["disattenuated_same_items"] = frame(dis)

    # fairness, as the report's notebook runs it (raw_trim or scale_trim), and on the others
    merged = pred.merge(df[["spkitemid", *subgroups]], on="spkitemid")
    main = "scale_trim" if config.get("scale_with") else "raw_trim"
    out["fairness"] = {g: fairness(merged, g, main) for g in subgroups}
    out["fairness_by_score"] = {
        g: {s: fairness(merged, g, s) for s in score_cols if s != main} for g in subgroups
    }

    # PRMSE with every human column of the data set
    if humans and len(humans) > 2:
        extra = [h for h in humans if h not in ("sc1", "sc2")]
        idcol = config["id_column"]
        add = input_df[[idcol, *extra]].copy()
        add[idcol] = add[idcol].astype(str)
        for h in extra:
            add[h] = pd.to_numeric(add[h], errors="coerce")
        d = df.merge(add.rename(columns={idcol: "spkitemid"}), on="spkitemid")
        out["prmse_all_humans"] = {
            "humans": humans,
            "table": frame(get_true_score_evaluations(d, score_cols, humans)),
        }
    out["trim_bounds"] = {
        "floor": clean(float(config["trim_min"]) - float(config.get("trim_tolerance", 0.4998))),
        "ceiling": clean(float(config["trim_max"]) + float(config.get("trim_tolerance", 0.4998))),
    }
    return out


def predictions_record(pred, max_rows=2500):
    import numpy as np

    if len(pred) <= max_rows:
        sel, how = pred, "all"
    else:
        trimmed = pred["raw"] != pred["raw_trim"]
        idx = np.union1d(np.arange(100), np.flatnonzero(trimmed.to_numpy()))
        sel, how = (
            pred.iloc[idx],
            "sample: the first 100 rows and every row where trimming changed the score",
        )
    return {"rows": how, **frame(sel.set_index("spkitemid"))}


def excluded_record(data):
    import pandas as pd

    if "test_excluded_responses" not in data:
        return []
    ex = read_exact(data["test_excluded_responses"], converters={"spkitemid": str})
    out = []
    for _, row in ex.iterrows():
        sc1 = pd.to_numeric(pd.Series([row.get("sc1")]), errors="coerce")[0]
        raw = pd.to_numeric(pd.Series([row.get("raw")]), errors="coerce")[0]
        if pd.isna(sc1):
            why = "non-numeric or missing human score"
        elif sc1 == 0:
            why = "human score 0 (exclude_zero_scores)"
        elif pd.isna(raw):
            why = "non-numeric or missing system score"
        else:
            why = "other"
        out.append({"id": row["spkitemid"], "reason": why})
    return out


def duplicate_error(workdir):
    """rsmeval refuses duplicate ids: record the exception."""
    import pandas as pd
    from rsmtool import rsmeval
    from rsmtool.reporter import Reporter

    df = pd.DataFrame(
        {"id": ["a", "b", "b", "c"], "h1": [1, 2, 3, 4], "machine": [1.2, 2.1, 2.9, 3.8]}
    )
    work = Path(workdir) / "duplicate_ids"
    work.mkdir()
    df.to_csv(work / "input.csv", index=False)
    cfg = dict(
        experiment_id="duplicate_ids",
        predictions_file="input.csv",
        id_column="id",
        human_score_column="h1",
        system_score_column="machine",
        trim_min=1,
        trim_max=4,
    )
    (work / "config.json").write_text(json.dumps(cfg))
    saved = Reporter.create_report
    Reporter.create_report = lambda *a, **k: None
    try:
        rsmeval.run_evaluation(str(work / "config.json"), str(work / "out"))
        exc = None
    except Exception as e:  # the point is to record it
        exc = e
    finally:
        Reporter.create_report = saved
    return {
        "config": cfg,
        "input_csv": csv_text(df),
        "exception": type(exc).__name__ if exc else None,
        "message": str(exc) if exc else None,
    }


def provenance(report):
    from importlib.metadata import version

    return {
        **{
            p: version(p)
            for p in ("rsmtool", "skll", "scikit-learn", "numpy", "pandas", "scipy", "statsmodels")
        },
        "python": platform.python_version(),
        "pins": RSMTOOL_PINS,
        "date": datetime.date.today().isoformat(),
        "command": "python docs/_scripts/rsmtool_reference.py" + ("" if report else " --no-report"),
        "mode": "rsmeval command with its HTML report"
        if report
        else "run_evaluation in-process, report off",
        "null_means": "NaN",
        "definitions": "docs/_scripts/RSMTOOL_DEFINITIONS.md",
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-report", action="store_true", help="skip rsmeval's HTML report")
    parser.add_argument("--only", nargs="*", help="run only these data sets")
    parser.add_argument("--keep", help="keep rsmeval's output under this folder")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    report = not args.no_report

    import pandas as pd

    work_root = args.keep or tempfile.mkdtemp(prefix="rsmtool_reference_")
    Path(work_root).mkdir(parents=True, exist_ok=True)
    result = {"provenance": provenance(report), "datasets": {}, "errors": {}}
    for name, description, df, config, extras in datasets():
        if args.only and name not in args.only:
            continue
        print(f"{name} ...", flush=True)
        outdir, cfg, log = run_rsmeval(work_root, name, df, config, extras, report)
        tables, data = read_tables(outdir, name)
        subgroups = config.get("subgroups", [])
        pred, merged = frames_for_analysis(data, subgroups)
        has_sc2 = "sc2" in merged.columns
        rec = {
            "description": " ".join(description.split()),
            "config": cfg,
            "rsmeval": tables,
            "predictions": predictions_record(pred),
            "excluded": excluded_record(data),
            "n_input_rows": len(df),
            "log_warnings": [
                ln for ln in log.splitlines() if "WARNING" in ln and "Kernel" not in ln
            ],
        }
        if "input_file" in extras:
            rec.update({k: extras[k] for k in ("input_file", "input_sha256", "recipe")})
        else:
            rec["input_csv"] = csv_text(df)
            if "recipe" in extras:
                rec["recipe"] = extras["recipe"]
        if "scale_with" in extras:
            rec["scale_with_csv"] = csv_text(extras["scale_with"])
        rec["direct"] = direct(pred, merged, subgroups, has_sc2, df, extras.get("humans"), config)
        # self-check against rsmeval's own eval table
        ev = pd.DataFrame(**{k: tables["eval"][k] for k in ("index", "columns", "data")})
        mine = pd.DataFrame(
            **{k: rec["direct"]["self_check_eval"][k] for k in ("index", "columns", "data")}
        )
        diff = (ev.astype(float) - mine.astype(float)).abs().max().max()
        rec["direct"]["self_check"] = {"eval_max_abs_difference": clean(diff)}
        if report:
            # the notebook's fairness files against the script's call
            checks = {}
            for fr in rec["direct"]["fairness"].values():
                for t, tab in fr["tables"].items():
                    if t in tables:
                        a = pd.DataFrame(**{k: tables[t][k] for k in ("index", "columns", "data")})
                        b = pd.DataFrame(**{k: tab[k] for k in ("index", "columns", "data")})
                        num = [c for c in a.columns if c != "base_category"]
                        checks[t] = clean(
                            (a[num].astype(float) - b[num].astype(float)).abs().max().max()
                        )
            rec["direct"]["self_check"]["fairness_notebook_vs_direct"] = checks
        result["datasets"][name] = rec
        print(f"  {len(tables)} tables, self-check {rec['direct']['self_check']}", flush=True)
    if not args.only or "duplicate_ids" in args.only:
        result["errors"]["duplicate_ids"] = duplicate_error(work_root)
    out = Path(args.out)
    text = json.dumps(result, separators=(",", ":"), allow_nan=False).encode()
    with (
        open(out, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as fh,
    ):
        fh.write(text)
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB); rsmeval outputs in {work_root}")


if __name__ == "__main__":
    main()
