"""Benchmark qwkit.duckdb and qwkit.spark on Parquet: the engine's own scan as the anchor.

Run from the repository root (the data go OUTSIDE the repository; never commit them)::

    .venv/bin/python benchmarks/bench_engines.py --n 1e7            # DuckDB and Spark
    .venv/bin/python benchmarks/bench_engines.py --n 1e8 --no-spark
    .venv/bin/python benchmarks/bench_engines.py --n 1e7 --output benchmarks/results/engines.md

Data (generated once into ``--dir``, default /tmp/qwkit-bench-engines, reused when
present): files of 10⁷ rows with ``a``, ``b`` (int64 ratings on 5 classes, as pandas
writes them; ``b`` within one class of ``a``) and ``g`` (int32, 100 groups).

Method (benchmarks/README_engines.md): every ratio is measured side by side in one
process, interleaved round after round (``_timing.measure``), the median of the ratios
within a round reported with the ratio of the best times. Every engine result is checked
against the in-memory function on the same rows (equality, not tolerance) when they fit
(n ≤ ``--check-max``).

* DuckDB (``--threads`` threads, default every core): the anchor is the bare scan
  ``SELECT SUM(a), SUM(b)`` of the same Parquet columns; against it,
  ``qwkit.duckdb.kappa_score`` (the pair table), the same forced into the five sums
  (what a wide integer scale takes), ``qwkit.duckdb.kappa_test``, kappa per group of
  ``g`` (anchor: ``SELECT g, SUM(a), SUM(b) ... GROUP BY g``), and loading the columns
  into NumPy with pyarrow then ``qwkit.kappa_score`` (``--threads`` numba threads).
* Spark ``local[2]`` (a session started once, untimed): the anchor is the bare
  ``groupBy().count()`` of the same rows (a DataFrame read from the Parquet files, and
  the same cached in memory); beside it ``groupBy().agg(sum(a), sum(b))``, which reads
  the columns that kappa reads, and ``qwkit.spark.kappa_score``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine
import _timing

SEED = 20261121
ROWS_PER_FILE = 10_000_000
K = 5


def make_data(folder: Path, n: int) -> list[str]:
    """The Parquet files of the first n rows (made once, reused)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(-(-n // ROWS_PER_FILE)):
        path = folder / f"part-{i:04d}.parquet"
        files.append(str(path))
        if path.exists():
            continue
        rng = np.random.default_rng(SEED + i)
        a = rng.integers(1, K + 1, ROWS_PER_FILE)
        b = np.clip(a + rng.integers(-1, 2, ROWS_PER_FILE), 1, K)
        g = rng.integers(0, 100, ROWS_PER_FILE).astype(np.int32)
        pq.write_table(pa.table({"a": a, "b": b, "g": g}), path)
    return files


def table(rows: list[tuple[str, str, str]]) -> str:
    out = ["| | seconds (best) | ratio to the anchor (median of rounds; of best times) |"]
    out.append("|---|---:|---:|")
    out += [f"| {name} | {sec} | {ratio} |" for name, sec, ratio in rows]
    return "\n".join(out)


def rows_of(times, anchor: str) -> list[tuple[str, str, str]]:
    out = []
    for name, t in times.items():
        med, best = _timing.paired(times, name, anchor)
        ratio = "anchor" if name == anchor else f"{med:.2f}× ({best:.2f}×)"
        out.append((name, f"{min(t):.3f}", ratio))
    return out


def bench_duckdb(files: list[str], n: int, threads: int, rounds: int, check: bool) -> str:
    import duckdb

    import qwkit.duckdb
    from qwkit._integrations import _sql_engine

    con = duckdb.connect()
    con.execute(f"SET threads={threads}")
    scan = f"read_parquet({files!r})"
    rel = con.read_parquet(files)

    def sums_form():
        cap = _sql_engine.PAIR_CAP
        _sql_engine.PAIR_CAP = 0  # the five sums, as a wide integer scale takes
        try:
            return qwkit.duckdb.kappa_score(rel, "a", "b")
        finally:
            _sql_engine.PAIR_CAP = cap

    def numpy_path():
        t = pq.read_table(files, columns=["a", "b"])
        return qwkit.kappa_score(t["a"].to_numpy(), t["b"].to_numpy())

    fns = {
        "bare scan: SELECT SUM(a), SUM(b)": lambda: con.sql(
            f"SELECT SUM(a), SUM(b) FROM {scan}"
        ).fetchall(),
        "qwkit.duckdb.kappa_score (pair table)": lambda: qwkit.duckdb.kappa_score(rel, "a", "b"),
        "qwkit.duckdb.kappa_score (five sums)": sums_form,
        "qwkit.duckdb.kappa_test": lambda: qwkit.duckdb.kappa_test(rel, "a", "b"),
        "pyarrow → NumPy, then qwkit.kappa_score": numpy_path,
    }
    grouped = {
        "bare scan per group: SELECT g, SUM(a), SUM(b) GROUP BY g": lambda: con.sql(
            f"SELECT g, SUM(a), SUM(b) FROM {scan} GROUP BY g"
        ).fetchall(),
        "qwkit.duckdb.kappa_score(by='g'), 100 groups": lambda: qwkit.duckdb.kappa_score(
            rel, "a", "b", by="g"
        ),
    }
    if check:
        t = pq.read_table(files, columns=["a", "b", "g"])
        a, b, g = (t[c].to_numpy() for c in ("a", "b", "g"))
        want = qwkit.kappa_score(a, b)
        assert qwkit.duckdb.kappa_score(rel, "a", "b") == want
        assert sums_form() == want
        assert qwkit.duckdb.kappa_test(rel, "a", "b").standard_error == (
            qwkit.kappa_test(a, b).standard_error
        )
        per = qwkit.duckdb.kappa_score(rel, "a", "b", by="g")
        assert all(per[k] == qwkit.kappa_score(a[g == k], b[g == k]) for k in range(0, 100, 9))
        del t, a, b, g
    times = _timing.measure(fns, rounds)
    gtimes = _timing.measure(grouped, rounds)
    lines = [
        f"### DuckDB {duckdb.__version__}, {threads} threads, n = {n:,} rows",
        "",
        table(rows_of(times, "bare scan: SELECT SUM(a), SUM(b)")),
        "",
        table(rows_of(gtimes, "bare scan per group: SELECT g, SUM(a), SUM(b) GROUP BY g")),
    ]
    return "\n".join(lines)


def bench_spark(files: list[str], n: int, rounds: int, check: bool) -> str:
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import qwkit.spark

    start = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter() - start
    df = spark.read.parquet(*files).select("a", "b")
    cached = df.cache()
    cached.count()
    fns = {}
    for label, frame in (("Parquet", df), ("cached", cached)):
        fns[f"{label}: groupBy().count()"] = lambda f=frame: f.groupBy().count().collect()
        fns[f"{label}: groupBy().agg(sum(a), sum(b))"] = lambda f=frame: (
            f.groupBy().agg(F.sum("a"), F.sum("b")).collect()
        )
        fns[f"{label}: qwkit.spark.kappa_score"] = lambda f=frame: qwkit.spark.kappa_score(
            f, "a", "b"
        )
    if check:
        t = pq.read_table(files, columns=["a", "b"])
        want = qwkit.kappa_score(t["a"].to_numpy(), t["b"].to_numpy())
        assert qwkit.spark.kappa_score(df, "a", "b") == want
        assert qwkit.spark.kappa_score(cached, "a", "b") == want
        del t
    times = _timing.measure(fns, rounds)
    lines = [f"### Spark {spark.version} local[2], n = {n:,} rows (session start {started:.1f} s)"]
    for label in ("Parquet", "cached"):
        part = {k: v for k, v in times.items() if k.startswith(label)}
        lines += ["", table(rows_of(part, f"{label}: groupBy().count()"))]
    cached.unpersist()
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--dir", default="/tmp/qwkit-bench-engines")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check-max", type=float, default=1e8)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    n = int(args.n)
    if n % ROWS_PER_FILE:
        parser.error(f"--n must be a multiple of {ROWS_PER_FILE:,}")
    root = Path(__file__).resolve().parents[1]
    folder = Path(args.dir).resolve()
    if root in folder.parents:
        parser.error("--dir must lie outside the repository (the data are never committed)")
    os.environ["NUMBA_NUM_THREADS"] = str(args.threads)
    files = make_data(folder, n)
    check = n <= args.check_max
    import duckdb

    extra = {"duckdb": duckdb.__version__}
    parts = [bench_duckdb(files, n, args.threads, args.rounds, check)]
    if not args.no_spark:
        import pyspark

        extra["pyspark"] = pyspark.__version__
        parts.append(bench_spark(files, n, args.rounds, check))
    text = "\n\n".join(
        [
            f"## Engines: n = {n:,} rows of Parquet ({len(files)} files)",
            "\n".join(_machine.describe(f"{args.threads} threads", extra)),
            *parts,
            "Every engine result above equals the in-memory one (checked)."
            if check
            else "(not checked against memory: n > --check-max)",
        ]
    )
    _machine.emit(text, args.output)


if __name__ == "__main__":
    main()
