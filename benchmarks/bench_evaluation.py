# ruff: noqa: E501  (a script that prints wide tables)
"""Benchmark the scorer evaluation against a plain numpy implementation of the same sums.

Run from the repository root, at low priority (the lead runs it on a quiet machine)::

    nice .venv/bin/python benchmarks/bench_evaluation.py --append benchmarks/README_evaluation.md
    nice .venv/bin/python benchmarks/bench_evaluation.py --quick    # 10⁴ and 10⁵ only, 3 rounds

The target (issue 30): ``evaluate_scorer`` with clusters and every criterion on 10⁶
responses, 10% double-scored, under 2 s without the bootstrap.

Data (``simulate``): n responses rated 1–5 by two humans (the second on a random 10%), a
real-valued machine score (unclipped, so a few scores leave the scale and are trimmed),
all noisy readings of one latent score; 500 clusters (the prompts the responses answer, at
random) and 4 subgroups (40/30/20/10%, the machine 0.1 higher in the second); seed
20261121.

qwkit: ``evaluate_scorer(human, machine, cluster=..., groups=..., criteria=(every
criterion), method=...)`` — its whole result: the six criteria with intervals, p-values
and verdicts, and beside them unweighted kappa, agreement, RMSE, R², the disattenuated
correlation, the degradation of five more statistics, PRMSE, kappa with each human, per
group the humans' kappa and the degradation, the three fairness regressions, the score
distributions and confusion tables, and the diagnostics of the human reference.

Anchor (``numpy_sums``, written here the way a careful user would): the sums the criteria
rest on and nothing more — per-cluster sums of 1, h, m, h², m², hm by ``np.bincount``
over all responses, over the double-scored ones (and with h₂ for m), and the same within
each group; the machine trimmed as RSMTool and qwkit do; from them quadratic kappa in its moment form, Pearson's r, the pooled SMD, the degradation
κ(h₁, m) − κ(h₁, h₂) on the double-scored responses, per group kappa, the humans' kappa,
the degradation, the within-group SMD and RSMTool's DSM; and for each the delete-one-cluster
jackknife standard error (totals minus each cluster's sums; the population's moments in
the within-group SMD and the DSM held fixed, as qwkit does). Without clusters, each
response is a unit: its row of products, no bincount. Before timing, every anchor value is
checked against qwkit's (1e-9, the standard errors too under ``method="jackknife"``).

Timing: ``_timing.measure`` runs qwkit and its anchor in turn, round after round, in one
process; the ratio read is the median over rounds of qwkit's time / the anchor's (a busy
machine slows both alike). A second table times ``degradation_test`` on a few hundred
items against the closed-form delta method in numpy and against re-scoring without each
item (the O(n²) jackknife).
"""

from __future__ import annotations

import os

# one thread, as the results say: a BLAS thread pool on a shared machine makes the numpy
# products of both qwkit and the anchors wait for busy cores
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import functools  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
from datetime import date  # noqa: E402

import numpy as np  # noqa: E402

import qwkit  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine  # noqa: E402
import _timing  # noqa: E402

CRITERIA = ("kappa", "pearson_r", "degradation", "smd", "group_smd", "dsm")
N_CLUSTERS = 500
N_GROUPS = 4
SCALE = (1, 5)
TRIM = 0.4998  # RSMTool's tolerance, qwkit's default trim


def simulate(n, double=0.1, n_clusters=N_CLUSTERS, seed=20261121):
    """(human (n, 2) with NaN where the second human did not rate, machine, cluster, group)."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.7, (n, 2))), *SCALE)
    human[rng.random(n) >= double, 1] = np.nan
    group = rng.choice(N_GROUPS, n, p=[0.4, 0.3, 0.2, 0.1])
    machine = 3 + truth + rng.normal(0, 0.6, n) + 0.1 * (group == 1)
    cluster = rng.integers(0, n_clusters, n)
    return human, machine, cluster, group


# ---------------------------------------------------------------------------- anchor


def _moments(s):
    """(n, mean a, mean b, var a, var b, cov a b), divisor n, from sums [1, a, b, a², b², ab]."""
    n = s[..., 0]
    ma, mb = s[..., 1] / n, s[..., 2] / n
    return n, ma, mb, s[..., 3] / n - ma * ma, s[..., 4] / n - mb * mb, s[..., 5] / n - ma * mb


def kappa(s):
    """Quadratic kappa of two score vectors in its moment form (Lin's CCC, divisor n)."""
    _, ma, mb, va, vb, cab = _moments(s)
    return 2 * cab / (va + vb + (ma - mb) ** 2)


def pearson(s):
    _, _, _, va, vb, cab = _moments(s)
    return cab / np.sqrt(va * vb)


def smd_pooled(s):
    """(mean b − mean a) / √((sd_a² + sd_b²)/2), SDs with divisor n − 1 (Williamson's)."""
    n, ma, mb, va, vb, _ = _moments(s)
    return (mb - ma) / np.sqrt(n / (n - 1) * (va + vb) / 2)


def degradation(hm, hh):
    return kappa(hm) - kappa(hh)


def unit_sums(a, b, cluster=None, n_clusters=0):
    """Sums [1, a, b, a², b², ab] per unit: per cluster by np.bincount (n_clusters, 6), or
    per response when there are no clusters (len(a), 6)."""
    cols = (np.ones_like(a), a, b, a * a, b * b, a * b)
    if cluster is None:
        return np.stack(cols, axis=-1)
    return np.stack([np.bincount(cluster, weights=w, minlength=n_clusters) for w in cols], axis=-1)


def jackknife(loo):
    """Delete-one-unit jackknife standard error from the delete-one values (last axis)."""
    g = loo.shape[-1]
    dev = loo - loo.mean(axis=-1, keepdims=True)
    return np.sqrt((g - 1) / g * (dev * dev).sum(axis=-1))


def _with_se(f, units, *sums):
    """(f of the totals, its jackknife SE over the units that have responses here)."""
    present = units[:, 0] > 0
    totals = [s.sum(axis=0) for s in sums]
    loo = f(*(t - s[present] for t, s in zip(totals, sums, strict=True)))
    return float(f(*totals)), float(jackknife(loo))


def numpy_sums(human, machine, cluster=None, group=None):
    """The criteria's statistics and their delete-one-cluster jackknife standard errors,
    from per-cluster sums (see the module docstring)."""
    n = len(machine)
    m = np.clip(machine, SCALE[0] - TRIM, SCALE[1] + TRIM)  # RSMTool's trimming
    h1 = human[:, 0]
    n_cl = 0 if cluster is None else int(cluster.max()) + 1

    def units(rows, b):
        """Per-unit sums of (h₁, b) over the responses ``rows`` (a boolean mask or all)."""
        cl = None if cluster is None else cluster[rows]
        return unit_sums(h1[rows], b[rows], cl, n_cl)

    out = {}
    # all responses
    every = units(slice(None), m)
    out["kappa"] = _with_se(kappa, every, every)
    out["pearson_r"] = _with_se(pearson, every, every)
    out["smd"] = _with_se(smd_pooled, every, every)
    # double-scored responses: human–machine and human–human on the same responses
    h2 = human[:, 1]
    d = ~np.isnan(h2)
    hm, hh = units(d, m), units(d, h2)
    out["degradation"] = _with_se(degradation, hm, hm, hh)
    # subgroups; the population's moments from all responses
    _, mean_h, mean_m, var_h, var_m, _ = _moments(every.sum(axis=0))
    c = n / (n - 1)
    sd_h, sd_m, sd_pool = np.sqrt(c * var_h), np.sqrt(c * var_m), np.sqrt(c * (var_h + var_m) / 2)

    def group_smd(s):
        return (s[..., 2] - s[..., 1]) / s[..., 0] / sd_pool

    def dsm(s):
        return (s[..., 2] / s[..., 0] - mean_m) / sd_m - (s[..., 1] / s[..., 0] - mean_h) / sd_h

    out["groups"] = []
    for g in range(N_GROUPS):
        in_g = group == g
        g_all, g_hm, g_hh = units(in_g, m), units(in_g & d, m), units(in_g & d, h2)
        out["groups"].append(
            {
                "kappa": _with_se(kappa, g_all, g_all),
                "human_human": _with_se(kappa, g_hh, g_hh),
                "degradation": _with_se(degradation, g_hh, g_hm, g_hh),
                "group_smd": _with_se(group_smd, g_all, g_all),
                "dsm": _with_se(dsm, g_all, g_all),
            }
        )
    return out


# ------------------------------------------------------------ degradation_test anchors


def ccc_influence(a, b):
    """Quadratic kappa of two score vectors (Lin's CCC with divisor n) and each item's
    influence."""
    ma, mb = a.mean(), b.mean()
    da, db = a - ma, b - mb
    saa, sbb, sab = (da * da).mean(), (db * db).mean(), (da * db).mean()
    den = saa + sbb + (ma - mb) ** 2
    k = 2 * sab / den
    inf_num = 2 * (da * db - sab)
    inf_den = (da * da - saa) + (db * db - sbb) + 2 * (ma - mb) * (da - db)
    return k, (inf_num - k * inf_den) / den


def numpy_degradation(human, machine):
    """Both kappas on the double-scored items and the paired delta-method SE."""
    rows = ~np.isnan(human[:, 1])
    h1, h2, m = human[rows, 0], human[rows, 1], machine[rows]
    k_hm, i_hm = ccc_influence(h1, m)
    k_hh, i_hh = ccc_influence(h1, h2)
    d = i_hm - i_hh
    return k_hm - k_hh, np.sqrt(np.sum(d * d)) / len(d)


def loop_jackknife(human, machine):
    """The delete-one-item jackknife SE of the degradation by re-scoring (O(n²))."""
    rows = ~np.isnan(human[:, 1])
    h1, h2, m = human[rows, 0], human[rows, 1], machine[rows]
    n = len(m)
    vals = np.empty(n)
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        keep[i] = False
        vals[i] = ccc_influence(h1[keep], m[keep])[0] - ccc_influence(h1[keep], h2[keep])[0]
        keep[i] = True
    return np.sqrt((n - 1) / n * np.sum((vals - vals.mean()) ** 2))


# ---------------------------------------------------------------------------- checks


def _close(got, want, what):
    if not abs(got - want) <= 1e-9 * max(1.0, abs(want)):
        raise SystemExit(f"anchor and qwkit differ on {what}: {got!r} vs {want!r}")


def check(res, ref, se: bool) -> None:
    """qwkit's result against the anchor's values (and standard errors when ``se``)."""
    model = res.models[0]
    pairs = [(name, getattr(model, name), ref[name]) for name in ("kappa", "pearson_r", "smd")]
    deg = model.degradation
    pairs.append(("degradation", deg, ref["degradation"]))
    for g, row in zip(model.groups, ref["groups"], strict=True):
        pairs += [(f"group {g.group} {k}", getattr(g, k), row[k]) for k in row]
    for what, est, (value, std) in pairs:
        _close(est.statistic, value, what)
        if se:
            _close(est.standard_error, std, f"{what} (standard error)")


# ---------------------------------------------------------------------------- runs

CASES = (
    # (label, with clusters, method)
    ("500 clusters, jackknife", True, "jackknife"),
    ("no clusters, jackknife", False, "jackknife"),
    ("500 clusters, asymptotic", True, "asymptotic"),
)


def scorer_table(args) -> list[str]:
    lines = [
        "`evaluate_scorer(human, machine, cluster=, groups=, criteria=(all six), method=)` "
        "against `numpy_sums` (the same sums, statistics and jackknife standard errors of the "
        "criteria, nothing else); seconds are the best of the rounds, the ratio is the median "
        "over rounds of qwkit's time / the anchor's, measured side by side:",
        "",
        "| case | responses | double-scored | qwkit (s) | µs per response | anchor (s) | qwkit / anchor |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    sizes = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6]
    for n in sizes:
        human, machine, cluster, group = simulate(n)
        n_double = int((~np.isnan(human[:, 1])).sum())
        for label, clustered, method in CASES:
            cl = cluster if clustered else None
            fns = {
                "qwkit": functools.partial(
                    qwkit.evaluate_scorer,
                    human,
                    machine,
                    cluster=cl,
                    groups=group,
                    criteria=CRITERIA,
                    method=method,
                ),
                "anchor": functools.partial(numpy_sums, human, machine, cl, group),
            }
            check(fns["qwkit"](), fns["anchor"](), se=method == "jackknife")
            times = _timing.measure(fns, args.rounds)
            ratio, _ = _timing.paired(times, "qwkit", "anchor")
            t_q, t_a = min(times["qwkit"]), min(times["anchor"])
            lines.append(
                f"| {label} | {n:.0e} | {n_double} | {t_q:.3f} | {1e6 * t_q / n:.2f} | {t_a:.3f} | {ratio:.1f} |"
            )
            print(lines[-1], flush=True)
    return lines


def degradation_table(args) -> list[str]:
    lines = [
        "`degradation_test` on a few hundred items, every one double-scored (`trim=False`: "
        "the anchors do not trim); the ratio is anchor / qwkit (above 1: qwkit is faster):",
        "",
        "| case | items | qwkit (s) | anchor | anchor (s) | anchor / qwkit |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for n in [200, 500] if args.quick else [200, 500, 2000]:
        human, machine, _, _ = simulate(n, double=1.0)
        for method, anchor, name in (
            ("asymptotic", numpy_degradation, "numpy_degradation (delta method)"),
            ("jackknife", loop_jackknife, "loop_jackknife (re-scoring, O(n²))"),
        ):
            q = functools.partial(qwkit.degradation_test, human, machine, method=method, trim=False)
            a = functools.partial(anchor, human, machine)
            res, want = q(), a()
            if method == "asymptotic":
                _close(res.statistic, want[0], "degradation")
                _close(res.standard_error, want[1], "degradation (standard error)")
            else:
                _close(res.standard_error, want, "degradation (jackknife standard error)")
            times = _timing.measure({"qwkit": q, "anchor": a}, args.rounds)
            ratio, _ = _timing.paired(times, "anchor", "qwkit")
            lines.append(
                f'| degradation_test(method="{method}") | {n} | {min(times["qwkit"]):.5f} | {name} '
                f"| {min(times['anchor']):.5f} | {ratio:.2f} |"
            )
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per row")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--append", type=pathlib.Path, default=None)
    args = parser.parse_args()
    if args.quick:
        args.rounds = min(args.rounds, 3)
    human, machine, cluster, group = simulate(2000)  # warm up (numba caches, imports)
    qwkit.evaluate_scorer(human, machine, cluster=cluster, groups=group, criteria=CRITERIA)
    body = [*scorer_table(args), "", *degradation_table(args)]
    lines = [
        f"### evaluate_scorer against numpy ({date.today().isoformat()})",
        "",
        *_machine.describe(),
        "",
        *body,
        "",
    ]
    _machine.emit("\n".join(lines), args.append)


if __name__ == "__main__":
    main()
