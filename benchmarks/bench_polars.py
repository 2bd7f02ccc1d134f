"""Benchmark ``qwkit.polars``: per-group weighted kappa in ``group_by(...).agg(...)``.

Run from the repository root::

    .venv/bin/python benchmarks/bench_polars.py                 # prints a Markdown table
    .venv/bin/python benchmarks/bench_polars.py --quick         # smaller frames, a check

Four ways to get one quadratic weighted kappa per group of a Polars data frame, timed side
by side in one process on the same frame (best of ``--repeats`` after one untimed call,
which compiles or loads numba's cache):

* ``qwkit.polars``: ``df.group_by("g").agg(pl.col("y").qwk.kappa("pred"))`` — each
  group's columns handed to qwkit's kernels as arrays;
* ``map_groups + sklearn`` (the obvious alternative): ``df.group_by("g").map_groups(f)``
  with ``f`` calling scikit-learn's ``cohen_kappa_score(weights="quadratic")`` on the
  group's columns;
* ``map_groups + qwkit``: the same, calling ``qwkit.kappa_score`` on the group's columns;
* ``value_counts table``: the sufficient statistic built by Polars — each group's distinct
  (y, pred) pairs and their counts, ``pl.struct("y", "pred").value_counts()`` — and
  finished by ``qwkit.kappa_score(..., counts=)`` (the design ``qwkit.polars`` measured
  and did not take).

Ratings are integers 0..K−1 (K = 5, ``pred`` = ``y`` ± 1 clipped) and every call is given
the scale (``labels``), so the four compute the same statistic; the script checks that
they agree (qwkit's values are exact, scikit-learn's to ~1e-15) and stops otherwise.
Polars uses its own thread pool (all cores; POLARS_MAX_THREADS changes it); numba runs on
one thread.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import sklearn
from sklearn.metrics import cohen_kappa_score

import qwkit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine

import qwkit.polars

SEED = 20261121
K = 5
LABELS = list(range(K))


def frame(n_groups: int, rows_per_group: int, rng: np.random.Generator) -> pl.DataFrame:
    n = n_groups * rows_per_group
    y = rng.integers(0, K, n)
    return pl.DataFrame(
        {
            "g": np.repeat(np.arange(n_groups), rows_per_group),
            "y": y,
            "pred": np.clip(y + rng.integers(-1, 2, n), 0, K - 1),
        }
    )


def with_qwkit_polars(df: pl.DataFrame) -> pl.DataFrame:
    return df.group_by("g").agg(pl.col("y").qwk.kappa("pred", labels=LABELS).alias("k"))


def _map_groups(df: pl.DataFrame, score) -> pl.DataFrame:
    def one(part: pl.DataFrame) -> pl.DataFrame:
        k = score(part["y"].to_numpy(), part["pred"].to_numpy())
        return pl.DataFrame({"g": part["g"][:1], "k": [float(k)]})

    return df.group_by("g").map_groups(one)


def with_sklearn(df: pl.DataFrame) -> pl.DataFrame:
    return _map_groups(df, lambda a, b: cohen_kappa_score(a, b, weights="quadratic", labels=LABELS))


def with_qwkit_per_group(df: pl.DataFrame) -> pl.DataFrame:
    return _map_groups(df, lambda a, b: qwkit.kappa_score(a, b, labels=LABELS))


def with_polars_table(df: pl.DataFrame) -> pl.DataFrame:
    """The K×K table built by Polars (``value_counts`` of the pairs), finished by qwkit."""

    def finish(cells: pl.Series) -> pl.Series:
        pairs, n = cells.struct.unnest().get_columns()
        a, b = pairs.struct.unnest().get_columns()
        k = qwkit.kappa_score(a.to_numpy(), b.to_numpy(), counts=n.to_numpy(), labels=LABELS)
        return pl.Series([k])

    table = pl.struct("y", "pred").value_counts(name="n")
    return df.group_by("g").agg(
        table.map_batches(finish, return_dtype=pl.Float64, returns_scalar=True).alias("k")
    )


WAYS = {
    "qwkit.polars (.qwk.kappa)": with_qwkit_polars,
    "map_groups + sklearn cohen_kappa_score": with_sklearn,
    "map_groups + qwkit.kappa_score": with_qwkit_per_group,
    "agg: Polars value_counts table + qwkit counts=": with_polars_table,
}


def best_of(function, df: pl.DataFrame, repeats: int) -> tuple[float, pl.DataFrame]:
    out = function(df)  # untimed: numba's compilation or cache load, Polars' first plan
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = function(df)
        times.append(time.perf_counter() - start)
    return min(times), out.sort("g")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller frames (a check)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    shapes = (
        [(100, 100), (10, 10_000)]
        if args.quick
        else [(10_000, 100), (1_000, 1_000), (100, 100_000), (10, 1_000_000)]
    )
    rng = np.random.default_rng(SEED)
    rows = []
    for n_groups, per_group in shapes:
        df = frame(n_groups, per_group, rng)
        results = {name: best_of(way, df, args.repeats) for name, way in WAYS.items()}
        reference = results["qwkit.polars (.qwk.kappa)"][1]["k"].to_numpy()
        for name, (_, out) in results.items():
            if not np.allclose(out["k"].to_numpy(), reference, rtol=0, atol=1e-12):
                raise SystemExit(f"{name} disagrees with qwkit.polars at {n_groups} groups")
        base = results["qwkit.polars (.qwk.kappa)"][0]
        for name, (seconds, _) in results.items():
            rows.append(
                f"| {n_groups:,} × {per_group:,} | {name} | {seconds * 1e3:,.1f} | "
                f"{seconds / base:,.1f}× |"
            )
    print("# qwkit.polars: one quadratic weighted kappa per group\n")
    print(f"| groups × rows | way | time (ms, best of {args.repeats}) | time / qwkit.polars |")
    print("|---|---|---:|---:|")
    print("\n".join(rows))
    print()
    threads = f"Polars threads: {pl.thread_pool_size()}; numba: one thread"
    extra = {"polars": pl.__version__, "scikit-learn": sklearn.__version__}
    print("\n".join(_machine.describe(threads=threads, extra=extra)))


if __name__ == "__main__":
    main()
