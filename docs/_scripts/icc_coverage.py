"""Coverage of ``qwkit.icc``'s 95% intervals with missing ratings, quoted in
docs/agreement.md ("Missing ratings: REML, tests and intervals").
Run: python docs/_scripts/icc_coverage.py [replications] [n ...]  (every line has its own
seed, so the sizes can run in separate processes and give the same lines)

Data with a known truth, through the public API:

* one-way forms (``"1,1"``): yᵢⱼ = sᵢ + eᵢⱼ (each item rated by its own raters),
  σ²ₛ = 1, σ²ₑ = 1 or 3 — the true ICC(1,1) is σ²ₛ/(σ²ₛ + σ²ₑ);
* two-way forms (``"A,1"``, ``"C,1"``): yᵢⱼ = sᵢ + rⱼ + eᵢⱼ with random raters,
  σ²ₛ = 1, σ²ᵣ = 0.5, σ²ₑ = 1 — ICC(A,1) = σ²ₛ/(σ²ₛ + σ²ᵣ + σ²ₑ) = 0.4,
  ICC(C,1) = σ²ₛ/(σ²ₛ + σ²ₑ) = 0.5;

no rating missing (the baseline: the ANOVA intervals), each rating missing
completely at random with probability 10% or 30%, or (the "crowd" design) every item
rated by 2 of the k raters at random. The ",k" forms share
the single-rater forms' coverage (their limits are the same limits through
Spearman–Brown), and so are not listed. The table gives the share of intervals that
hold the truth, and the share that miss it below and above.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import qwkit

SEED = 20261121


def one_way(rng, n, k, var_e):
    return rng.normal(size=(n, 1)) + rng.normal(scale=np.sqrt(var_e), size=(n, k))


def two_way(rng, n, k, var_e):
    return (
        rng.normal(size=(n, 1))
        + rng.normal(scale=np.sqrt(0.5), size=(1, k))
        + rng.normal(scale=np.sqrt(var_e), size=(n, k))
    )


def hide(rng, x, design):
    x = x.copy()
    n, k = x.shape
    if design == "crowd":  # two raters of k per item
        keep = np.argsort(rng.random((n, k)), axis=1)[:, :2]
        mask = np.ones((n, k), dtype=bool)
        mask[np.arange(n)[:, None], keep] = False
        x[mask] = np.nan
    elif design:
        x[rng.random((n, k)) < design] = np.nan
        x[np.isnan(x).all(axis=1), 0] = 0.0  # every item keeps a rating
    return x


def run(reps=1000, sizes=(30, 100)):
    rows = []
    cells = [
        ("1,1", one_way, 1.0, 0.5),
        ("1,1", one_way, 3.0, 0.25),
        ("A,1", two_way, 1.0, 1 / 2.5),
        ("C,1", two_way, 1.0, 0.5),
    ]
    start = time.perf_counter()
    for n in sizes:
        for k in (3, 5):
            for d, design in enumerate((0.0, 0.1, 0.3, "crowd")):
                for c, (form, model, var_e, truth) in enumerate(cells):
                    rng = np.random.default_rng([SEED, n, k, d, c])
                    below = above = 0
                    for _ in range(reps):
                        x = hide(rng, model(rng, n, k, var_e), design)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            low, high = qwkit.icc(x, form=form).confidence_interval(0.95)
                        below += high < truth
                        above += low > truth
                    cover = 1 - (below + above) / reps
                    rows.append((form, truth, n, k, design, cover, below / reps, above / reps))
                    print(
                        f"{form:>4}  ICC={truth:.2f}  n={n:>3}  k={k}  missing={design!s:>5}  "
                        f"coverage={cover:.3f}  below={below / reps:.3f}  above={above / reps:.3f}",
                        flush=True,
                    )
    print(f"\n{reps} replications per line, {time.perf_counter() - start:.0f} s")
    return rows


def markdown(rows) -> str:
    """The lines as docs/agreement.md shows them: one row per form, truth, n and k."""
    designs = (0.0, 0.1, 0.3, "crowd")
    out = [
        "| form | ICC | n | k | complete | 10% missing | 30% missing | 2 of k raters |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    cells = {(r[0], r[1], r[2], r[3], r[4]): r[5] for r in rows}
    for form, truth, n, k in dict.fromkeys((r[0], r[1], r[2], r[3]) for r in rows):
        got = [cells.get((form, truth, n, k, d)) for d in designs]
        shown = " | ".join("" if c is None else f"{c:.3f}" for c in got)
        out.append(f"| {form} | {truth:.2f} | {n} | {k} | {shown} |")
    return "\n".join(out)


if __name__ == "__main__":
    lines = run(
        int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
        tuple(int(n) for n in sys.argv[2:]) or (30, 100),
    )
    print(markdown(lines))
