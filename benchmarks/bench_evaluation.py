# ruff: noqa: E501  (a script that prints wide tables)
"""Benchmark the scorer evaluation against a straightforward numpy implementation of the
same statistics.

Run from the repository root (the lead runs the real sizes on a quiet machine)::

    .venv/bin/python benchmarks/bench_evaluation.py            # everything
    .venv/bin/python benchmarks/bench_evaluation.py --quick    # fewer repeats, smaller sizes

Data: n items rated 1–5 by two humans (the second human on 10% of the items) and a
real-valued machine score, all noisy readings of one latent score (seed 20261121).

Anchors (written here, in numpy, the way a careful user would):

* ``numpy_degradation``: both quadratic kappas in their moment form and the paired
  delta-method standard error from the closed-form influence of Lin's concordance
  coefficient (which quadratic kappa of two score vectors is), on the double-scored
  items;
* ``numpy_evaluation``: the same for κ(h₁, m), Pearson's r (its influence), the SMD
  (its influence), exact and adjacent agreement, and PRMSE by RSMTool's formulas (point
  estimate: no published standard error to write down) — the statistics
  ``evaluate_scorer`` reports, without its subgroups, per-rater kappas and text;
* ``loop_jackknife``: the delete-one-item jackknife of the degradation by recomputing it
  without each item (O(n²)), against ``method="jackknife"`` (O(n)).

RSMTool itself is not an anchor: it does not install in the benchmark environment. Asked
to add it (``pip install --dry-run rsmtool``, 2026-11-27), pip resolves rsmtool 12.0.0 only
by downgrading numpy to 1.26.4 and scikit-learn to 1.4.2 (with ``skll==5.0.1``), below
what qwkit and its other extras need.

Linearity: the last table times ``degradation_test`` (asymptotic and exact jackknife) and
``evaluate_scorer`` from 10³ to 10⁶ items and reports the time per item: linear paths
keep it flat (until fixed costs are small), where re-scoring without each item grows it in
proportion to n.

Before timing, the anchors' values are checked against qwkit's (1e-9). Rows report the
best of ``--repeat`` runs and the ratio anchor / qwkit (above 1: qwkit is faster).
"""

from __future__ import annotations

import functools
import os

# one thread, as the results say: a BLAS thread pool on a shared machine makes the numpy
# products of both qwkit and the anchors wait for busy cores
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
from datetime import date  # noqa: E402

import numpy as np  # noqa: E402

import qwkit  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine  # noqa: E402
import _timing  # noqa: E402


def simulate(n, double=0.1, seed=20261121):
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.7, (n, 2))), 1, 5)
    human[rng.random(n) >= double, 1] = np.nan
    machine = 3 + truth + rng.normal(0, 0.6, n)
    return human, machine


def _best(repeat, fn, *args, **kwargs):
    return _timing.best(functools.partial(fn, *args, **kwargs), repeat)


# ---------------------------------------------------------------------------- anchors


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
    rows = ~np.isnan(human[:, 1])
    h1, h2, m = human[rows, 0], human[rows, 1], machine[rows]
    k_hm, i_hm = ccc_influence(h1, m)
    k_hh, i_hh = ccc_influence(h1, h2)
    d = i_hm - i_hh
    return k_hm - k_hh, np.sqrt(np.sum(d * d)) / len(d)


def numpy_evaluation(human, machine):
    h, m = human[:, 0], machine
    n = len(h)
    out = {}
    k, ik = ccc_influence(h, m)
    out["kappa"] = (k, np.sqrt(np.sum(ik * ik)) / n)
    u, v = (h - h.mean()) / h.std(), (m - m.mean()) / m.std()
    r = np.mean(u * v)
    ir = u * v - r / 2 * (u * u + v * v)
    out["r"] = (r, np.sqrt(np.sum(ir * ir)) / n)
    sd = h.std(ddof=1)
    smd = (m.mean() - h.mean()) / sd
    s0 = h.var()  # the influence of the sample variance, whatever its divisor
    ismd = ((m - m.mean()) - (h - h.mean())) / sd - smd * ((h - h.mean()) ** 2 - s0) / (2 * s0)
    out["smd"] = (smd, np.sqrt(np.sum(ismd * ismd)) / n)
    rounded = np.clip(np.floor(m + 0.5), 1, 5)
    out["exact"] = np.mean(h == rounded)
    out["adjacent"] = np.mean(np.abs(h - rounded) <= 1)
    out["degradation"] = numpy_degradation(human, machine)
    # PRMSE, RSMTool's formulas
    k_i = (~np.isnan(human)).sum(axis=1)
    multiple = k_i > 1
    ve = np.average(np.nanvar(human[multiple], ddof=1, axis=1), weights=k_i[multiple] - 1)
    means = np.nanmean(human, axis=1)
    big_m = k_i.sum()
    vt = (np.sum(k_i * (means - np.nanmean(human)) ** 2) - (n - 1) * ve) / (
        big_m - np.sum(k_i**2) / big_m
    )
    mse = (np.sum(k_i * (means - m) ** 2) - n * ve) / big_m
    out["prmse"] = 1 - mse / vt
    return out


def loop_jackknife(human, machine):
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


def check(human, machine):
    res = qwkit.evaluate_scorer(human, machine)
    ref = numpy_evaluation(human, machine)
    pairs = [
        (res.kappa.statistic, ref["kappa"][0]),
        (res.kappa.standard_error, ref["kappa"][1]),
        (res.pearson_r.statistic, ref["r"][0]),
        (res.pearson_r.standard_error, ref["r"][1]),
        (res.smd.statistic, ref["smd"][0]),
        (res.smd.standard_error, ref["smd"][1]),
        (res.exact_agreement.statistic, ref["exact"]),
        (res.adjacent_agreement.statistic, ref["adjacent"]),
        (res.degradation.statistic, ref["degradation"][0]),
        (res.degradation.standard_error, ref["degradation"][1]),
        (res.prmse.statistic, ref["prmse"]),
    ]
    for got, want in pairs:
        assert abs(got - want) <= 1e-9 * max(1.0, abs(want)), (got, want)


def run(args):
    lines = [
        f"# Scorer evaluation benchmark ({date.today().isoformat()})",
        "",
        *_machine.describe(),
        "",
        "| case | items | qwkit (s) | anchor | anchor (s) | anchor / qwkit |",
        "|---|---:|---:|---|---:|---:|",
    ]
    small = [200, 500] if args.quick else [200, 500, 2000]
    for n in small:
        human, machine = simulate(n, double=1.0)
        check(human, machine)
        t_q, _ = _best(args.repeat * 20, qwkit.degradation_test, human, machine)
        t_a, _ = _best(args.repeat * 20, numpy_degradation, human, machine)
        lines.append(
            f"| degradation_test | {n} | {t_q:.5f} | numpy_degradation | {t_a:.5f} | {t_a / t_q:.2f} |"
        )
        t_q, res = _best(args.repeat, qwkit.degradation_test, human, machine, method="jackknife")
        t_a, se = _best(max(1, args.repeat // 2), loop_jackknife, human, machine)
        assert abs(res.standard_error - se) < 1e-9
        lines.append(
            f'| degradation_test(method="jackknife") | {n} | {t_q:.5f} | loop_jackknife | {t_a:.5f} | {t_a / t_q:.1f} |'
        )
    large = [10**5, 10**6] if args.quick else [10**5, 10**6, 4 * 10**6]
    for n in large:
        human, machine = simulate(n)
        check(human, machine)
        t_q, _ = _best(args.repeat, qwkit.evaluate_scorer, human, machine)
        t_a, _ = _best(args.repeat, numpy_evaluation, human, machine)
        lines.append(
            f"| evaluate_scorer | {n:.0e} | {t_q:.3f} | numpy_evaluation | {t_a:.3f} | {t_a / t_q:.2f} |"
        )
        t_q, _ = _best(args.repeat, qwkit.evaluate_scorer, human, machine, method="jackknife")
        lines.append(f'| evaluate_scorer(method="jackknife") | {n:.0e} | {t_q:.3f} | | | |')
        t_q, _ = _best(args.repeat, qwkit.prmse, human, machine)
        lines.append(f"| prmse | {n:.0e} | {t_q:.3f} | | | |")
    lines += [
        "",
        "Time per item (µs), fully double-scored items for the degradation test:",
        "",
        '| items | degradation_test | degradation_test(method="jackknife") | '
        'evaluate_scorer | evaluate_scorer(method="jackknife") |',
        "|---:|---:|---:|---:|---:|",
    ]
    sizes = [10**3, 10**4, 10**5] if args.quick else [10**3, 10**4, 10**5, 10**6]
    for n in sizes:
        human, machine = simulate(n, double=1.0)
        repeat = max(1, args.repeat * (10**5 // n) if n < 10**5 else args.repeat)
        times = [
            _best(repeat, qwkit.degradation_test, human, machine)[0],
            _best(repeat, qwkit.degradation_test, human, machine, method="jackknife")[0],
            _best(repeat, qwkit.evaluate_scorer, human, machine)[0],
            _best(repeat, qwkit.evaluate_scorer, human, machine, method="jackknife")[0],
        ]
        lines.append(f"| {n:.0e} | " + " | ".join(f"{1e6 * t / n:.3f}" for t in times) + " |")
    lines.append("")
    lines += _machine.describe()[-1:]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--append", type=pathlib.Path, default=None)
    args = parser.parse_args()
    if args.quick:
        args.repeat = min(args.repeat, 3)
    qwkit.evaluate_scorer(*simulate(300))  # warm up (numba caches, imports)
    text = run(args)
    print(text)
    if args.append is not None:
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write("\n" + text)


if __name__ == "__main__":
    main()
