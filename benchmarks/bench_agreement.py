"""Benchmark agreement among many raters: qwkit against the krippendorff package and
statsmodels' fleiss_kappa, 10³ … 10⁶ items × 5 raters, nominal and interval data.

Run from the repository root (the lead runs the real sizes on a quiet machine)::

    .venv/bin/python benchmarks/bench_agreement.py                       # 1e3 … 1e6
    .venv/bin/python benchmarks/bench_agreement.py --sizes 200 500       # a quick check
    .venv/bin/python benchmarks/bench_agreement.py --append benchmarks/README_agreement.md

Everything runs in one process on the same simulated data: n items, 5 raters, 10% of
the ratings missing. *Nominal*: 5 categories (identity weights). *Interval*: real-valued
ratings (every value distinct; quadratic weights = Krippendorff's interval metric).

Anchors, as their users call them:

* ``krippendorff.alpha(reliability_data=ratings.T, level_of_measurement=...)`` (nominal
  and interval). The package forms its coincidences in N × V × V arrays (N items, V
  distinct values), so on continuous data it is run only where they fit
  (``--anchor-memory``, 4 GiB by default); larger sizes are marked "not run" with the
  memory it would ask for.
* statsmodels: ``aggregate_raters`` (items × raters → counts) then ``fleiss_kappa`` —
  nominal data without missing ratings (it needs as many ratings of every item).

The Python port of Gwet's irrCAC (PyPI ``irrCAC`` 0.4.4) is not an anchor: it pins
``scipy==1.12.0`` and ``coverage<7``, which breaks ``import numba``, so it cannot live in
qwkit's environment.

Before timing, every anchor's value is checked against qwkit's (1e-9). Rows report the
best of ``--repeat`` runs and the ratio anchor / qwkit; the header records the machine,
numpy and the load average at the start and end.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import pathlib
import sys
from datetime import date

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

import qwkit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine
import _timing

RATERS = 5
CATEGORIES = 5


def simulate(n, kind, missing=0.1, seed=20261121):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n, 1))
    noisy = latent + 0.7 * rng.normal(size=(n, RATERS))
    if kind == "nominal":
        cuts = np.linspace(-1.5, 1.5, CATEGORIES - 1)
        x = np.searchsorted(cuts, noisy).astype(np.float64)
    else:
        x = noisy
    if missing:
        x[rng.random(x.shape) < missing] = np.nan
        x[:, :2] = np.where(np.isnan(x[:, :2]), 0.0, x[:, :2])  # two ratings per item
    return x


def _distinct(x):
    return np.unique(x[~np.isnan(x)]).size


def run(n, kind, repeat, anchor_memory):
    """Rows (what, seconds, ratio to qwkit, note) for one size and kind."""
    x = simulate(n, kind)
    level = "nominal" if kind == "nominal" else "interval"
    weights = "identity" if kind == "nominal" else "quadratic"
    t_score, alpha = _timing.best(
        lambda: qwkit.agreement_score(x, coefficient="krippendorff", weights=weights), repeat
    )
    t_test, res = _timing.best(
        lambda: qwkit.agreement_test(x, coefficient="krippendorff", weights=weights), repeat
    )
    t_fleiss, fk = _timing.best(
        lambda: qwkit.agreement_score(x, coefficient="fleiss", weights=weights), repeat
    )
    rows = [
        ("qwkit `agreement_score` (Krippendorff)", t_score, None, f"α = {alpha:.6f}"),
        (
            "qwkit `agreement_test` (Krippendorff, Gwet SE)",
            t_test,
            None,
            f"SE = {res.standard_error:.6f}",
        ),
        ("qwkit `agreement_score` (Fleiss)", t_fleiss, None, f"κ = {fk:.6f}"),
    ]
    v = _distinct(x)
    need = 8.0 * n * v * v * 3  # the package's N × V × V float arrays (three at once)
    if need <= anchor_memory:
        t_k, ref = _timing.best(
            lambda: krippendorff.alpha(reliability_data=x.T, level_of_measurement=level), repeat
        )
        if abs(ref - alpha) > 1e-9:
            raise SystemExit(f"krippendorff disagrees at n={n} {kind}: {ref} vs {alpha}")
        rows.append(("krippendorff `alpha`", t_k, t_k / t_score, "same α"))
    else:
        rows.append(
            ("krippendorff `alpha`", None, None, f"not run: {v:,} values, ~{need / 2**30:,.0f} GiB")
        )
    if kind == "nominal":
        complete = simulate(n, kind, missing=0.0)

        def statsmodels_fleiss():
            table, _ = aggregate_raters(complete.astype(int))
            return fleiss_kappa(table)

        t_sm, ref = _timing.best(statsmodels_fleiss, repeat)
        t_q, ours = _timing.best(
            lambda: qwkit.agreement_score(complete, coefficient="fleiss", weights=None), repeat
        )
        if abs(ref - ours) > 1e-9:
            raise SystemExit(f"statsmodels disagrees at n={n}: {ref} vs {ours}")
        rows.append(("qwkit Fleiss, no missing ratings", t_q, None, f"κ = {ours:.6f}"))
        rows.append(("statsmodels `aggregate_raters` + `fleiss_kappa`", t_sm, t_sm / t_q, "same κ"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--anchor-memory", type=float, default=4 * 2**30, help="bytes")
    parser.add_argument("--append", help="append the markdown section to this file")
    args = parser.parse_args(argv)

    qwkit.agreement_test(simulate(50, "interval"), coefficient="krippendorff")  # warm up
    sections = []
    for kind in ("nominal", "interval"):
        for n in args.sizes:
            rows = run(n, kind, args.repeat, args.anchor_memory)
            lines = [f"### {kind}, n = {n:,} items × {RATERS} raters", ""]
            lines += ["| what | seconds | anchor / qwkit | note |", "|---|---:|---:|---|"]
            for what, sec, ratio, note in rows:
                shown = "—" if sec is None else f"{sec:.4f}"
                r = "" if ratio is None else f"{ratio:,.1f}×"
                lines.append(f"| {what} | {shown} | {r} | {note} |")
            sections.append("\n".join(lines) + "\n")
    header = [
        f"## Agreement among {RATERS} raters ({date.today()})",
        "",
        *_machine.describe(
            f"best of {args.repeat}", {"krippendorff": importlib.metadata.version("krippendorff")}
        ),
        "",
    ]
    _machine.emit("\n".join(header) + "\n" + "\n".join(sections), args.append)


if __name__ == "__main__":
    main()
