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
  function of ``qwkit.dask`` on the first n rows (``data=`` the file list). Each
  partition is read inside qwkit's own task; the scheduler's task stream gives the time
  each worker spent in qwkit's tasks, and a clock around qwkit's Parquet reader on every
  worker the part of it spent reading → rows per second per core *once the data are
  read* (task time − reading time); the wall time includes reading. Every dask result is
  checked against the in-memory result on the same rows when they fit (n ≤
  ``--check-max``).
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
    """The least CPU time of this thread over ``repeat`` calls (after a warm-up), and
    the value."""
    f()  # warm up (numba compiles here)
    best, value = float("inf"), None
    for _ in range(repeat):
        t0 = time.thread_time()
        value = f()
        best = min(best, time.thread_time() - t0)
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


def batch_rows_rows(files: list[Path]) -> list[str]:
    """The threshold search's ThresholdAccumulator.update on 5·10⁷ rows (or what the files
    hold) at once and in slices of qwkit.dask.BATCH_ROWS rows: CPU seconds per 10⁷ rows."""
    cols = read_columns(files[:5], ["a", "s"])
    a, s = cols["a"], cols["s"]
    n = a.shape[0]

    def feed(step):
        acc = qwkit.ThresholdAccumulator()
        for start in range(0, n, step):
            acc.update(a[start : start + step], s[start : start + step])
        return acc.optimize().statistic

    whole, value = best_of(lambda: feed(n))
    sliced, check = best_of(lambda: feed(qwkit.dask.BATCH_ROWS))
    if value != check:
        raise SystemExit("slices and the whole batch disagree")
    per = 1e7 / n
    return [f"| {n:,} | {whole * per:.3f} | {sliced * per:.3f} | {whole / sliced:.1f}× |"]


def one_thread_arrow():
    """Parquet decoding on the worker's own thread: with one worker per core, Arrow's
    thread pools would otherwise take the core of the other worker."""
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)


#: What the clocks on the workers time: qwkit's Parquet reader, and qwkit's three task
#: functions (partition state — its reading included —, merge, final step).
_CLOCKED = (
    ("qwkit._integrations._dask_files", "read_parquet", "read"),
    ("qwkit.dask", "_leaf", "task"),
    ("qwkit.dask", "_merge_parts", "task"),
    ("qwkit.dask", "_finish", "task"),
)


def install_clocks():
    """On a worker: clock qwkit's reader and task functions in CPU time of the thread
    that runs them (``time.thread_time``: what the task itself used, however much other
    work on the machine delays it), summed in ``qwkit.dask._bench_clock``."""
    import importlib

    import qwkit.dask

    if getattr(qwkit.dask, "_bench_clock", None) is not None:
        return
    clock = qwkit.dask._bench_clock = {"read": 0.0, "task": 0.0}
    for module_name, name, kind in _CLOCKED:
        module = importlib.import_module(module_name)
        original = getattr(module, name)
        if name == "read_parquet":  # a generator: its batches read, and let go, on the clock

            def wrapper(*args, _f=original, _k=kind):
                t0 = time.thread_time()
                batches = list(_f(*args))
                clock[_k] += time.thread_time() - t0
                while batches:
                    batch = batches.pop(0)
                    yield batch
                    t0 = time.thread_time()
                    del batch  # the task let it go: its memory is freed here
                    clock[_k] += time.thread_time() - t0
        else:

            def wrapper(*args, _f=original, _k=kind):
                t0 = time.thread_time()
                try:
                    return _f(*args)
                finally:
                    clock[_k] += time.thread_time() - t0

        setattr(module, name, wrapper)  # the tasks name these functions by module path


def read_clock(reset: bool = True) -> dict:
    """On a worker: {"read", "task"} CPU seconds since the last reset."""
    import qwkit.dask

    clock = qwkit.dask._bench_clock
    value = dict(clock)
    if reset:
        clock.update(read=0.0, task=0.0)
    return value


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
    """(wall seconds, CPU seconds of qwkit's tasks summed over workers, of them CPU
    seconds reading Parquet, peak MiB per worker, partitions, result)."""
    client.run(reset_peak)
    client.run(read_clock)  # reset the clocks
    t_start = time.time()
    t0 = time.perf_counter()
    value = call([str(f) for f in files])
    wall = time.perf_counter() - t0
    stream = client.get_task_stream(start=t_start)
    leaves = sum(
        "qwkit-" in str(t["key"]) and not any(x in str(t["key"]) for x in ("merge", "result"))
        for t in stream
    )
    clocks = client.run(read_clock).values()
    busy = sum(c["task"] for c in clocks)
    reading = sum(c["read"] for c in clocks)
    peaks = client.run(peak_mib)
    if check is not None and value != check:
        raise SystemExit(f"qwkit.dask disagrees with the in-memory result: {value} != {check}")
    return wall, busy, reading, max(peaks.values()), leaves, value


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
        "A state's `update` on a large batch at once, or in slices of `qwkit.dask.BATCH_ROWS` "
        "rows (the threshold search, on the first files' columns; CPU seconds per 10⁷ rows, "
        "least of three):",
        "",
        "| rows | at once | in slices | at once / in slices |",
        "|---:|---:|---:|---:|",
        *batch_rows_rows(files),
    ]
    lines += [
        "",
        "## qwkit.dask on Parquet (LocalCluster)",
        "",
        "| function | n | partitions | wall s | wall rows/s | task CPU s | of it reading "
        "| in-task rows/s/core (reading excluded) | vs baseline | peak MiB/worker |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.get_task_stream()  # registers the task-stream plugin: later tasks are recorded
        client.run(one_thread_arrow)
        client.run(install_clocks)
        client.run(warm_up, files)
        for _, dist, _ in CASES.values():  # untimed calls of each through the cluster
            dist([str(f) for f in files[:1]])  # one piece: no merge
            dist([str(f) for f in files[:2]])
        for name, (mem, dist, cols) in CASES.items():
            for n in sizes:
                subset = files[: -(-n // rows_per_file)]
                check = mem(read_columns(subset, cols)) if n <= args.check_max else None
                wall, busy, reading, peak, parts, _ = dask_run(client, dist, subset, check)
                computing = busy - reading
                per_core = n / computing if computing > 0 else float("nan")
                lines.append(
                    f"| {name} | {n:,} | {parts} | {wall:.2f} | {n / wall:,.0f} | {busy:.2f} "
                    f"| {reading:.2f} | {per_core:,.0f} | {per_core / baseline[name]:.0%} "
                    f"| {peak:,.0f} |"
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
