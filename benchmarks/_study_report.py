"""Statistics, tables and the figure of benchmarks/study_training.py.

From the pooled held-out predictions of each repetition: QWK with qwkit's bootstrap
interval (``kappa_test(...).confidence_interval(method="bootstrap")``), the paired test
of each row against the baseline (``compare_kappa_test`` on the same items), summaries
over repetitions, Holm's adjustment over all the comparisons, and the optimism of cut
points (``optimism_corrected_kappa``) against their held-out QWK.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
from importlib import metadata
from pathlib import Path

import numpy as np

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


def paired(y, scale, a: np.ndarray, b: np.ndarray) -> dict:
    """compare_kappa_test of predictions a against b (same items), per repetition, and
    the summaries over repetitions: mean Δ, mean SE, median p-value."""
    reps = []
    for r in range(a.shape[0]):
        if np.array_equal(a[r], b[r]):
            reps.append({"identical": True, "delta": 0.0, "se": 0.0, "pvalue": None})
            continue
        cmp = qwkit.compare_kappa_test(y, a[r], b[r], labels=scale)
        reps.append(
            {
                "identical": False,
                "delta": cmp.statistic,
                "se": cmp.standard_error,
                "pvalue": cmp.pvalue,
            }
        )
    pvalues = [rep["pvalue"] for rep in reps if rep["pvalue"] is not None]
    return {
        "repetitions": reps,
        "delta": float(np.mean([rep["delta"] for rep in reps])),
        "se": float(np.mean([rep["se"] for rep in reps])),
        "pvalue": float(np.median(pvalues)) if pvalues else None,
        "significant_reps": sum(p < 0.05 for p in pvalues),
        "identical": all(rep["identical"] for rep in reps),
    }


def summarize_row(y, scale, pooled, base, config, color_index) -> dict:
    """QWK, bootstrap CI and the paired test against the baseline, per repetition."""
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
    versus = paired(y, scale, pooled, base)
    return {
        "qwk": float(np.mean(qwk)),
        "qwk_sd": float(np.std(qwk, ddof=1)) if len(qwk) > 1 else float("nan"),
        "ci_low": float(np.mean([rep["ci_low"] for rep in reps])),
        "ci_high": float(np.mean([rep["ci_high"] for rep in reps])),
        "repetitions": reps,
        **{key: versus[key] for key in ("delta", "se", "pvalue", "significant_reps")},
        "identical": versus["identical"],
        "repetitions_versus_baseline": versus["repetitions"],
    }


def summarize(results: dict, config) -> dict:
    summary = {}
    for index, (color, res) in enumerate(results.items()):
        y, scale, preds = res["y"], res["scale"], res["preds"]
        base = preds[BASELINE]
        rows = {row: summarize_row(y, scale, preds[row], base, config, index) for row in ROWS}
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
            paired(res["y"], res["scale"], res["preds"][a], res["preds"][b])
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
        "| model → decoding | QWK | 95% CI | sd (reps) | Δ vs baseline | p | p (Holm) | fit (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in ROWS:
        r = s["rows"][row]
        name = row_name(row)
        if row == BASELINE:
            name = f"**{name} (baseline)**"
        if r.get("same_as_cut"):
            name += " (identical to → cut points)"
        delta = "identical" if r["identical"] else f"{r['delta']:+.3f}"
        if row == BASELINE:
            delta = "—"
        sd = "—" if np.isnan(r["qwk_sd"]) else f"{r['qwk_sd']:.3f}"
        lines.append(
            f"| {name} | {r['qwk']:.3f} | {r['ci_low']:.3f}–{r['ci_high']:.3f} | {sd} "
            f"| {delta} | {_p(r['pvalue'])} | {_p(r.get('pvalue_holm'))} "
            f"| {s['seconds'][row[0]]:.3f} |"
        )
    return lines


def _comparisons_table(summary: dict, colors) -> list[str]:
    head = "| question | Δ QWK, compared on the same items |"
    rule = "|---|---|"
    for color in colors:
        head += f" {color}: Δ | p | p (Holm) |"
        rule += "---:|---:|---:|"
    lines = [head, rule]
    for i, (question, text, _, _) in enumerate(COMPARISONS):
        line = f"| {question} | {text} |"
        for color in colors:
            c = summary[color]["comparisons"][i]
            line += f" {c['delta']:+.3f} | {_p(c['pvalue'])} | {_p(c.get('pvalue_holm'))} |"
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
        "repetitions of QWK minus the baseline's on the same items; p: median over the "
        "repetitions of the two-sided p-value of `compare_kappa_test` (paired, same items); "
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
        "kappa or on squared error, the same model decoded two ways; Δ and p as above, "
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

    payload = {"config": vars(config), "machine": machine, "summary": clean(summary)}
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
            half = 1.959964 * r["se"]
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
        ax.set_xlabel("Δ held-out QWK (± 1.96 paired SE)")
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
