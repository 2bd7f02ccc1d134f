"""Benchmark qwkit.dask on Parquet data: per-core throughput, memory per worker, growth in n.

Run from the repository root (the data go OUTSIDE the repository; never commit them)::

    .venv/bin/python benchmarks/bench_dask.py --n 1e9            # the real run: 10⁹ ratings
    .venv/bin/python benchmarks/bench_dask.py --n 1e7 --quick    # a correctness run
    .venv/bin/python benchmarks/bench_dask.py --n 1e9 --output benchmarks/results_dask.md

Data (generated once into ``--dir``, default /tmp/qwkit-bench-dask, reused when present):
``--rows-per-file`` rows per Parquet file (default 10⁷), columns ``a``, ``b`` (int8 ratings
on 5 classes; ``b`` copies ``a`` on half of the items), ``w`` (float64 survey weights in
[0.5, 1.5)) and ``s`` (float32 scores ``a`` + noise, rounded to 0.01, so that the
threshold search has a bounded number of distinct scores).

Method (see benchmarks/README_dask.md):

* Baseline: one process, one thread, the in-memory function on one file's columns as
  numpy arrays (best of 3) → rows per second per core.
* Dask: a LocalCluster of ``--workers`` processes with one thread each; the same
  function of ``qwkit.dask`` on the first n rows (``data=`` the file list). The scheduler's
  task stream gives the time each worker spent in qwkit's partition tasks (reading the
  Parquet files is a separate task) → rows per second per core *once the data are read*;
  the wall time includes reading. Every dask result is checked against the in-memory
  result on the same rows when they fit (n ≤ ``--check-max``).
* Peak memory per worker: the high-water mark of resident memory (VmHWM, reset before
  each run through /proc/self/clear_refs) of every worker process.
* Growth: the same runs at n = 10⁷, 10⁸, 10⁹ (those ≤ ``--n``).
"""

from __future__ import annotations

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import qwkit  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine  # noqa: E402

import qwkit.dask  # noqa: E402

SEED = 20261121
K = 5

# name -> (in-memory call on numpy columns, qwkit.dask call on files, columns read)
CASES = {
    "kappa_score (quadratic)": (
        lambda c: qwkit.kappa_score(c["a"], c["b"]),
        lambda files, **kw: qwkit.dask.kappa_score("a", "b", data=files, **kw),
        ["a", "b"],
    ),
    "kappa_score (linear, sample_weight)": (
        lambda c: qwkit.kappa_score(c["a"], c["b"], weights="linear", sample_weight=c["w"]),
        lambda files, **kw: qwkit.dask.kappa_score(
            "a", "b", weights="linear", sample_weight="w", data=files, **kw
        ),
        ["a", "b", "w"],
    ),
    "kappa_test (quadratic)": (
        lambda c: qwkit.kappa_test(c["a"], c["b"]).standard_error,
        lambda files, **kw: _se(qwkit.dask.kappa_test("a", "b", data=files, **kw)),
        ["a", "b"],
    ),
    "optimize_thresholds": (
        lambda c: qwkit.optimize_thresholds(c["a"], c["s"]).statistic,
        lambda files, **kw: _stat(qwkit.dask.optimize_thresholds("a", "s", data=files, **kw)),
        ["a", "s"],
    ),
}


def _se(res):
    return res if not hasattr(res, "standard_error") else res.standard_error


def _stat(res):
    return res if not hasattr(res, "statistic") else res.statistic


# ---------------------------------------------------------------------------- data


def generate(folder: Path, n: int, rows_per_file: int) -> list[Path]:
    """Parquet files holding n rows (reused if already there)."""
    folder.mkdir(parents=True, exist_ok=True)
    n_files = -(-n // rows_per_file)
    files = []
    for i in range(n_files):
        path = folder / f"part-{i:05d}.parquet"
        rows = min(rows_per_file, n - i * rows_per_file)
        if not (path.exists() and pq.ParquetFile(path).metadata.num_rows == rows):
            rng = np.random.default_rng([SEED, i])
            a = rng.integers(0, K, rows, dtype=np.int8)
            copy = rng.random(rows) < 0.5
            b = np.where(copy, a, rng.integers(0, K, rows, dtype=np.int8)).astype(np.int8)
            w = rng.random(rows) + 0.5
            s = np.round(a + rng.normal(0, 0.7, rows), 2).astype(np.float32)
            table = pa.table({"a": a, "b": b, "w": w, "s": s})
            tmp = path.with_suffix(".tmp")
            pq.write_table(table, tmp, row_group_size=rows)
            tmp.replace(path)
        files.append(path)
    return files


def read_columns(files: list[Path], columns: list[str]) -> dict:
    tables = [pq.read_table(f, columns=columns) for f in files]
    return {c: np.concatenate([t[c].to_numpy() for t in tables]) for c in columns}


# ---------------------------------------------------------------------------- timing


def best_of(f, repeat: int = 3) -> tuple[float, object]:
    f()  # warm up (numba compiles here)
    best, value = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = f()
        best = min(best, time.perf_counter() - t0)
    return best, value


def warm_up(files: list[Path]) -> None:
    """Run every case on one file in this process: numba compiles (or loads its cache)
    for the very dtypes of the data, so that no timed task pays for it."""
    columns = read_columns(files[:1], ["a", "b", "w", "s"])
    small = {k: v[:100_000] for k, v in columns.items()}
    for mem, _, _ in CASES.values():
        mem(small)
        for acc in (qwkit.KappaAccumulator(weights="linear"), qwkit.KappaAccumulator()):
            acc.update(small["a"], small["b"], small["w"])
            acc.update(small["a"], small["b"])
            acc.test()
        thr = qwkit.ThresholdAccumulator()
        thr.update(small["a"], small["s"])
        thr.optimize()


def one_thread_arrow():
    """Parquet decoding on the worker's own thread: with one worker per core, Arrow's
    thread pools would otherwise take the core of the other worker."""
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)


def reset_peak():
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def peak_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def dask_run(client: Client, call, files, check):
    """(wall seconds, seconds in qwkit partition tasks summed over workers, peak MiB per
    worker, result)."""
    client.run(reset_peak)
    t_start = time.time()
    t0 = time.perf_counter()
    value = call([str(f) for f in files])
    wall = time.perf_counter() - t0
    stream = client.get_task_stream(start=t_start)
    busy = 0.0
    for task in stream:
        if "qwkit-" in str(task["key"]):  # partition states, merges, the final step
            for phase in task["startstops"]:
                if phase["action"] == "compute":
                    busy += phase["stop"] - phase["start"]
    peaks = client.run(peak_mib)
    if check is not None and value != check:
        raise SystemExit(f"qwkit.dask disagrees with the in-memory result: {value} != {check}")
    return wall, busy, max(peaks.values()), value


# ---------------------------------------------------------------------------- main


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=float, default=1e9, help="largest number of ratings")
    p.add_argument("--dir", type=Path, default=Path("/tmp/qwkit-bench-dask"))
    p.add_argument("--rows-per-file", type=float, default=1e7)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--check-max", type=float, default=1e8, help="check results up to this n")
    p.add_argument("--quick", action="store_true", help="smaller files (10⁶ rows)")
    p.add_argument("--output", type=Path, default=None)
    args = p.parse_args()
    n_max = int(args.n)
    rows_per_file = int(1e6 if args.quick else args.rows_per_file)
    if Path(args.dir).resolve().is_relative_to(Path(__file__).resolve().parents[1]):
        raise SystemExit("--dir must be outside the repository: the data are never committed")
    files = generate(args.dir, n_max, rows_per_file)
    # whole files only: a size below one file would time a whole file as if it held n rows
    sizes = [n for n in (10**7, 10**8, 10**9) if rows_per_file <= n <= n_max] or [n_max]

    lines = ["# qwkit.dask benchmark", ""]  # the machine's lines go here at the end
    baseline = {}
    one_file = read_columns(files[:1], ["a", "b", "w", "s"])
    lines += [
        "## Single process, in memory (one file's columns as numpy arrays)",
        "",
        "| function | rows | seconds | rows/s/core |",
        "|---|---:|---:|---:|",
    ]
    for name, (mem, _, _) in CASES.items():
        seconds, _ = best_of(lambda mem=mem, data=one_file: mem(data))
        rows = one_file["a"].shape[0]
        baseline[name] = rows / seconds
        lines.append(f"| {name} | {rows:,} | {seconds:.3f} | {rows / seconds:,.0f} |")
    del one_file

    lines += [
        "",
        "## qwkit.dask on Parquet (LocalCluster)",
        "",
        "| function | n | wall s | wall rows/s | in-task rows/s/core | vs baseline "
        "| peak MiB/worker |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.get_task_stream()  # registers the task-stream plugin: later tasks are recorded
        client.run(one_thread_arrow)
        client.run(warm_up, files)
        for _, dist, _ in CASES.values():  # one untimed call of each through the cluster
            dist([str(f) for f in files[:2]])
        for name, (mem, dist, cols) in CASES.items():
            for n in sizes:
                subset = files[: -(-n // rows_per_file)]
                check = mem(read_columns(subset, cols)) if n <= args.check_max else None
                wall, busy, peak, _ = dask_run(client, dist, subset, check)
                per_core = n / busy if busy > 0 else float("nan")
                lines.append(
                    f"| {name} | {n:,} | {wall:.2f} | {n / wall:,.0f} | {per_core:,.0f} "
                    f"| {per_core / baseline[name]:.0%} | {peak:,.0f} |"
                )
                print(lines[-1], file=sys.stderr)
    lines[2:2] = [
        *_machine.describe(
            f"{args.workers} worker processes × 1 thread; {rows_per_file:,} rows per Parquet file"
        ),
        "",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text)


if __name__ == "__main__":
    main()
