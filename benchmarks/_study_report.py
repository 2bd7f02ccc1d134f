"""Statistics, tables and the figure of benchmarks/study_training.py.

From the pooled held-out predictions of each repetition: QWK with qwkit's bootstrap
interval (``kappa_test(...).confidence_interval(method="bootstrap")``); the paired test
of each row against the baseline, a corrected repeated K-fold t-test of the per-fold QWK
differences over all folds and repetitions (``corrected_t_test``); Holm's adjustment over
all the comparisons; and the optimism of cut points (``optimism_corrected_kappa``)
against their held-out QWK.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import re
from importlib import metadata
from pathlib import Path

import numpy as np
from scipy import stats

import qwkit

BASELINE = ("lgb-se", "cut")

FAMILY_NAMES = {
    "lgb-se": "LightGBM, squared error",
    "xgb-se": "XGBoost, squared error",
    "lgb-kappa": "LightGBM, `kappa_objective`",
    "xgb-kappa": "XGBoost, `kappa_objective`",
    "lgb-multiclass": "LightGBM, multiclass",
    "ordered-logit": "ordered logit (statsmodels)",
    "kappa-regression": "`kappa_regression` (closed form)",
    "mlp-mse": "MLP, MSE",
    "mlp-soft": "MLP, `SoftKappaLoss`",
    "mlp-wk": "MLP, `WeightedKappaLoss` (logits)",
}
DECODER_NAMES = {
    "round": "rounding",
    "cut": "cut points",
    "rescale-round": "`kappa_rescale` → rounding",
    "rescale-cut": "`kappa_rescale` → cut points",
    "cut-in-sample": "cut points fitted in-sample",
    "argmax": "argmax",
    "kappa-decision": "`kappa_decision`",
}
#: Table rows, in order: (family, decoder). "cut" is always fitted out of fold.
ROWS = (
    ("lgb-se", "cut"),
    ("lgb-se", "round"),
    ("lgb-se", "rescale-round"),
    ("lgb-se", "rescale-cut"),
    ("lgb-se", "cut-in-sample"),
    ("xgb-se", "cut"),
    ("xgb-se", "round"),
    ("xgb-se", "rescale-round"),
    ("xgb-se", "rescale-cut"),
    ("lgb-kappa", "cut"),
    ("lgb-kappa", "round"),
    ("xgb-kappa", "cut"),
    ("xgb-kappa", "round"),
    ("lgb-multiclass", "kappa-decision"),
    ("lgb-multiclass", "argmax"),
    ("ordered-logit", "kappa-decision"),
    ("ordered-logit", "argmax"),
    ("kappa-regression", "cut"),
    ("kappa-regression", "round"),
    ("mlp-mse", "cut"),
    ("mlp-mse", "round"),
    ("mlp-soft", "cut"),
    ("mlp-soft", "round"),
    ("mlp-wk", "kappa-decision"),
    ("mlp-wk", "argmax"),
)
#: Within-model comparisons, the study's primary questions (one Holm family):
#: (question, what is compared, row a, row b); Δ = QWK(a) − QWK(b).
COMPARISONS = (
    (
        "objective",
        "LightGBM: `kappa_objective` − squared error (→ cut points)",
        ("lgb-kappa", "cut"),
        ("lgb-se", "cut"),
    ),
    (
        "objective",
        "XGBoost: `kappa_objective` − squared error (→ cut points)",
        ("xgb-kappa", "cut"),
        ("xgb-se", "cut"),
    ),
    (
        "objective",
        "MLP: `SoftKappaLoss` − MSE (→ cut points)",
        ("mlp-soft", "cut"),
        ("mlp-mse", "cut"),
    ),
    (
        "objective",
        "MLP: `WeightedKappaLoss` → `kappa_decision` − MSE → cut points",
        ("mlp-wk", "kappa-decision"),
        ("mlp-mse", "cut"),
    ),
    (
        "decoding",
        "LightGBM, squared error: cut points − rounding",
        ("lgb-se", "cut"),
        ("lgb-se", "round"),
    ),
    (
        "decoding",
        "LightGBM, squared error: cut points out of fold − in-sample",
        ("lgb-se", "cut"),
        ("lgb-se", "cut-in-sample"),
    ),
    (
        "decoding",
        "LightGBM, multiclass: `kappa_decision` − argmax",
        ("lgb-multiclass", "kappa-decision"),
        ("lgb-multiclass", "argmax"),
    ),
    (
        "decoding",
        "ordered logit: `kappa_decision` − argmax",
        ("ordered-logit", "kappa-decision"),
        ("ordered-logit", "argmax"),
    ),
)
GROUP_COLORS = {
    "lgb-se": "tab:blue",
    "xgb-se": "tab:blue",
    "lgb-kappa": "tab:orange",
    "xgb-kappa": "tab:orange",
    "lgb-multiclass": "tab:green",
    "ordered-logit": "tab:green",
    "kappa-regression": "tab:purple",
    "mlp-mse": "tab:red",
    "mlp-soft": "tab:red",
    "mlp-wk": "tab:red",
}
BEGIN, END = "<!-- study:begin -->", "<!-- study:end -->"
#: What the p-values of the JSON are (recorded with them).
TESTS = (
    "delta: mean over the repetitions of the QWK of the pooled held-out predictions minus the "
    "baseline's (or row b's); folds: per-fold QWK differences, all folds of all repetitions; "
    "se, df, pvalue: corrected repeated K-fold t-test of the folds' differences (Nadeau & "
    "Bengio 2003; Bouckaert & Frank 2004), Var = (1/J + 1/(K - 1)) s^2, J - 1 degrees of "
    "freedom, two-sided; pvalue_holm: Holm's adjustment within the family; conditional: "
    "compare_kappa_test per repetition, which treats the fitted models as fixed (for the "
    "record, not used in the tables)."
)


def row_name(row) -> str:
    return f"{FAMILY_NAMES[row[0]]} → {DECODER_NAMES[row[1]]}"


# ---------------------------------------------------------------------------- statistics


def holm(pvalues: dict) -> dict:
    """Holm's step-down adjustment of a family of p-values (keys kept)."""
    keys = sorted(pvalues, key=pvalues.get)
    m, running, out = len(keys), 0.0, {}
    for i, key in enumerate(keys):
        running = max(running, min(1.0, (m - i) * pvalues[key]))
        out[key] = running
    return out


def corrected_t_test(differences: np.ndarray, n_splits: int) -> tuple[float, float, float]:
    """Corrected repeated K-fold t-test of per-fold differences (mean, SE, two-sided p).

    `differences` holds one difference per outer test fold, all folds of all repetitions
    (J = repetitions × K values). Their plain t-test treats them as independent, but the
    folds' training parts overlap (and the repetitions reuse the same items), which can
    make the values positively correlated and the plain variance of their mean too small
    (benchmarks/README_training.md, section 4, measures both tests' levels).
    Nadeau & Bengio's (2003) correction, for repeated K-fold as Bouckaert & Frank (2004)
    apply it: Var(mean) = (1/J + n_test/n_train)·s², n_test/n_train = 1/(K − 1), with
    J − 1 degrees of freedom. It asks whether the two *procedures* differ on training sets
    like these, which is the study's question, not whether two fitted models do.
    """
    d = np.asarray(differences, dtype=float)
    mean = float(d.mean())
    var = float(d.var(ddof=1)) if d.size > 1 else float("nan")
    se = math.sqrt((1 / d.size + 1 / (n_splits - 1)) * var)
    if se == 0:
        return mean, 0.0, (1.0 if mean == 0 else 0.0)
    t = mean / se
    return mean, se, float(2 * stats.t.sf(abs(t), d.size - 1))


def paired(y, scale, a: np.ndarray, b: np.ndarray, fold_ids: np.ndarray, n_splits: int) -> dict:
    """Predictions a against b (same items): the mean over repetitions of the pooled QWK
    difference (Δ), and the corrected repeated K-fold t-test of the per-fold differences
    (p and its standard error). For the record, each repetition's conditional paired test
    (``compare_kappa_test``, which treats the fitted models as fixed) is kept too."""
    if np.array_equal(a, b):
        return {"identical": True, "delta": 0.0, "se": 0.0, "pvalue": None, "folds": []}
    delta_reps, conditional, folds = [], [], []
    for r in range(a.shape[0]):
        qwk_a = qwkit.kappa_score(y, a[r], labels=scale)
        qwk_b = qwkit.kappa_score(y, b[r], labels=scale)
        delta_reps.append(qwk_a - qwk_b)
        if not np.array_equal(a[r], b[r]):
            cmp = qwkit.compare_kappa_test(y, a[r], b[r], labels=scale)
            conditional.append({"se": cmp.standard_error, "pvalue": cmp.pvalue})
        for k in range(n_splits):
            part = fold_ids[r] == k
            folds.append(
                qwkit.kappa_score(y[part], a[r, part], labels=scale, replace_undefined_by=0.0)
                - qwkit.kappa_score(y[part], b[r, part], labels=scale, replace_undefined_by=0.0)
            )
    mean_folds, se, pvalue = corrected_t_test(np.array(folds), n_splits)
    return {
        "identical": False,
        "delta": float(np.mean(delta_reps)),
        "delta_repetitions": delta_reps,
        "delta_folds": mean_folds,
        "folds": folds,
        "se": se,
        "df": len(folds) - 1,
        "pvalue": pvalue,
        "conditional": conditional,
    }


def summarize_row(y, scale, pooled, base, fold_ids, config, color_index) -> dict:
    """QWK and its bootstrap CI per repetition, and the paired test against the baseline."""
    reps = []
    for r in range(pooled.shape[0]):
        test = qwkit.kappa_test(y, pooled[r], labels=scale)
        ci = test.confidence_interval(
            method="bootstrap",
            n_resamples=config.n_resamples,
            rng=np.random.default_rng([config.seed, color_index, r]),
        )
        reps.append({"qwk": test.statistic, "ci_low": ci.low, "ci_high": ci.high})
    qwk = [rep["qwk"] for rep in reps]
    versus = paired(y, scale, pooled, base, fold_ids, config.n_splits)
    return {
        "qwk": float(np.mean(qwk)),
        "qwk_sd": float(np.std(qwk, ddof=1)) if len(qwk) > 1 else float("nan"),
        "ci_low": float(np.mean([rep["ci_low"] for rep in reps])),
        "ci_high": float(np.mean([rep["ci_high"] for rep in reps])),
        "repetitions": reps,
        **{key: versus[key] for key in ("delta", "se", "pvalue", "identical")},
        "versus_baseline": versus,
    }


def summarize(results: dict, config) -> dict:
    summary = {}
    for index, (color, res) in enumerate(results.items()):
        y, scale, preds, fold_ids = res["y"], res["scale"], res["preds"], res["folds"]
        base = preds[BASELINE]
        rows = {
            row: summarize_row(y, scale, preds[row], base, fold_ids, config, index) for row in ROWS
        }
        for family, decoder in ROWS:
            if decoder == "rescale-cut":  # cut points are invariant to increasing maps
                same = np.array_equal(preds[(family, decoder)], preds[(family, "cut")])
                rows[(family, decoder)]["same_as_cut"] = same
        seconds = {name: float(np.median(s)) for name, s in res["seconds"].items()}
        summary[color] = {
            "n": len(y),
            "scale": [int(v) for v in scale],
            "rows": rows,
            "seconds": seconds,
            "optimism": res["optimism"],
        }
    for color, res in results.items():
        summary[color]["comparisons"] = [
            paired(
                res["y"],
                res["scale"],
                res["preds"][a],
                res["preds"][b],
                res["folds"],
                config.n_splits,
            )
            for _, _, a, b in COMPARISONS
        ]
    primary = {
        (color, i): summary[color]["comparisons"][i]["pvalue"]
        for color in results
        for i in range(len(COMPARISONS))
        if summary[color]["comparisons"][i]["pvalue"] is not None
    }
    for (color, i), p in holm(primary).items():
        summary[color]["comparisons"][i]["pvalue_holm"] = p
    summary["n_primary"] = len(primary)
    tests = {
        (color, row): s["rows"][row]["pvalue"]
        for color, s in summary.items()
        if color in results
        for row in ROWS
        if s["rows"][row]["pvalue"] is not None
    }
    for (color, row), p in holm(tests).items():
        summary[color]["rows"][row]["pvalue_holm"] = p
    summary["n_tests"] = len(tests)
    return summary


# ---------------------------------------------------------------------------- machine


def load_average() -> list[float]:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return []


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        cpu = re.search(r"model name\s*:\s*(.*)", text).group(1).strip()
    except (OSError, AttributeError):
        pass
    packages = ("qwkit", "numpy", "scipy", "scikit-learn", "lightgbm", "xgboost-cpu")
    packages += ("torch", "statsmodels", "matplotlib")
    versions = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "versions": versions,
        "load_start": load_average(),
    }


# ---------------------------------------------------------------------------- outputs


def _p(p) -> str:
    if p is None:
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _table(s: dict) -> list[str]:
    lines = [
        "| model → decoding | QWK | 95% CI | sd (reps) | Δ vs baseline | SE | p | p (Holm) "
        "| fit (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in ROWS:
        r = s["rows"][row]
        name = row_name(row)
        if row == BASELINE:
            name = f"**{name} (baseline)**"
        if r.get("same_as_cut"):
            name += " (identical to → cut points)"
        delta = "identical" if r["identical"] else f"{r['delta']:+.3f}"
        se = "—" if r["identical"] else f"{r['se']:.3f}"
        if row == BASELINE:
            delta = "—"
        sd = "—" if np.isnan(r["qwk_sd"]) else f"{r['qwk_sd']:.3f}"
        lines.append(
            f"| {name} | {r['qwk']:.3f} | {r['ci_low']:.3f}–{r['ci_high']:.3f} | {sd} "
            f"| {delta} | {se} | {_p(r['pvalue'])} | {_p(r.get('pvalue_holm'))} "
            f"| {s['seconds'][row[0]]:.3f} |"
        )
    return lines


def _comparisons_table(summary: dict, colors) -> list[str]:
    head = "| question | Δ QWK, compared on the same items |"
    rule = "|---|---|"
    for color in colors:
        head += f" {color}: Δ | SE | p | p (Holm) |"
        rule += "---:|---:|---:|---:|"
    lines = [head, rule]
    for i, (question, text, _, _) in enumerate(COMPARISONS):
        line = f"| {question} | {text} |"
        for color in colors:
            c = summary[color]["comparisons"][i]
            line += (
                f" {c['delta']:+.3f} | {c['se']:.3f} | {_p(c['pvalue'])} "
                f"| {_p(c.get('pvalue_holm'))} |"
            )
        lines.append(line)
    return lines


def _best(s: dict) -> str:
    """One line: the row with the highest QWK, and the rows significantly above the
    baseline (Holm)."""
    best = max(ROWS, key=lambda row: s["rows"][row]["qwk"])
    r = s["rows"][best]
    above = [
        row_name(row)
        for row in ROWS
        if s["rows"][row].get("pvalue_holm", 1.0) < 0.05 and s["rows"][row]["delta"] > 0
    ]
    line = f"Highest QWK: {row_name(best)}, {r['qwk']:.3f}"
    if best != BASELINE:
        line += f" (Δ {r['delta']:+.3f}, p {_p(r['pvalue'])}, Holm {_p(r.get('pvalue_holm'))})"
    line += ". Significantly above the baseline after Holm's adjustment: "
    return line + ("; ".join(above) if above else "none") + "."


def _optimism_table(summary: dict, colors) -> list[str]:
    lines = [
        "| data | cut points fitted on | apparent QWK | corrected | held-out QWK, same "
        "scores | held-out QWK, refitted model |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for color in colors:
        records = summary[color]["optimism"]

        def mean(key, records=records):
            return f"{np.mean([rec[key] for rec in records]):.3f}"

        lines += [
            f"| {color} | training predictions (in-sample) | {mean('in_sample_apparent')} | — "
            f"| — | {mean('in_sample_held_out')} |",
            f"| {color} | inner out-of-fold scores | {mean('apparent')} | {mean('corrected')} "
            f"| {mean('held_out_inner')} | {mean('held_out')} |",
        ]
    return lines


def markdown(summary: dict, config, machine: dict, command: str) -> str:
    colors = [c for c in summary if isinstance(summary[c], dict)]
    v = machine["versions"]
    lines = [
        "<!-- generated by benchmarks/study_training.py; do not edit by hand -->",
        "",
        f"*This run:* `{command}` on {machine['date']}, {machine['wall_minutes']:.1f} minutes "
        f"of wall time. Machine: {machine['cpu']}, {machine['cores']} cores shared with other "
        f"work (load average {machine['load_start']} at the start, {machine['load_end']} at "
        f"the end), {machine['system']}; one thread per model. Python {machine['python']}, "
        + ", ".join(f"{name} {version}" for name, version in v.items())
        + ".",
        "",
        f"*Protocol:* stratified {config.n_splits}-fold cross-validation repeated "
        f"{config.n_repeats} times (scikit-learn's `RepeatedStratifiedKFold`, "
        f"`random_state={config.seed}`); cut points fitted out of fold by an inner stratified "
        f"{config.inner_splits}-fold on each training part; QWK of the {config.n_repeats} "
        "pooled sets of held-out predictions, averaged; 95% interval: "
        f'`kappa_test(...).confidence_interval(method="bootstrap", '
        f"n_resamples={config.n_resamples})` per repetition, bounds averaged; "
        "sd (reps): standard deviation of the QWK over the repetitions; Δ: mean over the "
        "repetitions of QWK minus the baseline's on the same items; SE and p: the corrected "
        "repeated K-fold t-test (Nadeau & Bengio 2003, as Bouckaert & Frank 2004 apply it "
        f"to repeated K-fold) of the {config.n_splits * config.n_repeats} per-fold QWK "
        f"differences, variance (1/{config.n_splits * config.n_repeats} + "
        f"1/{config.n_splits - 1})·s², {config.n_splits * config.n_repeats - 1} degrees of "
        "freedom, two-sided; "
        f"p (Holm): adjusted over all {summary['n_tests']} comparisons of both tables; "
        "fit (s): median wall time of one fit on a whole training part (the model family's, "
        "shared by its rows). MLP: "
        f"{config.mlp_steps} Adam steps (lr {config.mlp_lr}) of batches of "
        f"{config.mlp_batch}, hidden layers {config.mlp_hidden}–{config.mlp_hidden}.",
        "",
        "*Warnings during the run:* "
        + ("; ".join(machine["warnings"]) if machine["warnings"] else "none")
        + ".",
        "",
    ]
    if config.subsample is not None:
        lines += [f"*Subsample:* {config.subsample} wines per data set (quick check).", ""]
    for color in colors:
        s = summary[color]
        lines += [
            f"**{color.capitalize()} wine** (n = {s['n']}, ratings "
            f"{s['scale'][0]}–{s['scale'][-1]})",
            "",
            *_table(s),
            "",
            _best(s),
            "",
        ]
    lines += [
        "**Within-model comparisons** (the primary questions: the same model trained on "
        "kappa or on squared error, the same model decoded two ways; Δ, SE and p as above, "
        f"Holm's adjustment over these {summary['n_primary']} tests only)",
        "",
        *_comparisons_table(summary, colors),
        "",
    ]
    n_folds = len(summary[colors[0]]["optimism"])
    lines += [
        f"**Optimism of cut points** (LightGBM, squared error; means over the {n_folds} outer "
        "folds of each data set. Apparent: QWK of the cut points on the scores they were "
        "fitted to; corrected: `optimism_corrected_kappa` of the inner out-of-fold scores "
        f"(cross-fitting, {config.optimism_refits} refits); held-out, same scores: the cut "
        "points applied to the outer test fold as scored by the inner models (what the "
        "correction estimates), averaged over them; held-out, refitted model: as scored by "
        "the model refitted on the whole training part (what the tables above use).)",
        "",
        *_optimism_table(summary, colors),
    ]
    return "\n".join(lines)


def update_block(path: Path, block: str) -> None:
    text = path.read_text(encoding="utf-8")
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise SystemExit(f"{path} must contain the markers {BEGIN} and {END} once each.")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    path.write_text(f"{head}{BEGIN}\n{block}\n{END}{tail}", encoding="utf-8")


def write_json(summary: dict, config, machine: dict, path: Path) -> None:
    def clean(value):
        if isinstance(value, dict):
            return {
                (" / ".join(k) if isinstance(k, tuple) else k): clean(v) for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        if isinstance(value, np.generic):
            return value.item()
        return value

    payload = {
        "config": vars(config),
        "machine": machine,
        "tests": TESTS,
        "summary": clean(summary),
    }
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


def plot(summary: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = [c for c in summary if isinstance(summary[c], dict)]
    rows = [row for row in ROWS if row[1] not in ("rescale-cut",)]
    ypos = np.arange(len(rows))[::-1]
    fig, axes = plt.subplots(
        1,
        len(colors) + 1,
        figsize=(13, 8.5),
        sharey=True,
        gridspec_kw={"width_ratios": [3] * len(colors) + [1.4]},
    )
    for ax, color in zip(axes, colors, strict=False):
        s = summary[color]["rows"]
        for y, row in zip(ypos, rows, strict=True):
            r = s[row]
            df = r["versus_baseline"].get("df", 1)
            half = float(stats.t.ppf(0.975, df)) * r["se"] if r["se"] else 0.0
            filled = r.get("pvalue_holm") is not None and r["pvalue_holm"] < 0.05
            c = GROUP_COLORS[row[0]]
            ax.errorbar(
                r["delta"],
                y,
                xerr=half,
                fmt="o",
                color=c,
                mfc=c if filled else "white",
                capsize=2,
                lw=1,
            )
        ax.axvline(0, color="black", lw=0.8, ls="--")
        base = s[BASELINE]["qwk"]
        ax.set_title(f"{color} wine: QWK − baseline ({base:.3f})")
        ax.set_xlabel("Δ held-out QWK (95% corrected t interval)")
        ax.grid(axis="x", alpha=0.3)
    ax = axes[-1]
    for color, marker, shift in zip(colors, ("o", "s"), (0.15, -0.15), strict=False):
        secs = summary[color]["seconds"]
        ax.scatter(
            [secs[row[0]] for row in rows],
            ypos + shift,
            marker=marker,
            s=16,
            color=[GROUP_COLORS[row[0]] for row in rows],
        )
        ax.scatter([], [], marker=marker, s=16, color="gray", label=color)
    ax.set_xscale("log")
    ax.set_xlabel("seconds per fit (median)")
    ax.set_title("training time")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(ypos)
    axes[0].set_yticklabels([row_name(row).replace("`", "") for row in rows], fontsize=8)
    fig.suptitle(
        "Held-out QWK against LightGBM (squared error) + out-of-fold cut points; "
        "filled: Holm-adjusted p < 0.05",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
