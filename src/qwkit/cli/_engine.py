"""``qwkit score PATH --engine dask`` and ``--engine duckdb``: kappa of data that do not
fit in memory, or that are not to be read into it.

PATH is a file, a glob (``'ratings/*.parquet'``) or a folder of Parquet or CSV files,
which names its files as ``data=`` of ``qwkit.dask`` does (``qwkit.dask.data_files``: one
rule); ``qwkit.dask.kappa_test`` reads them piece by piece (Parquet by row groups, CSV a
file at a time), reduces each piece to its table and merges the tables exactly
(docs/dask.md), so the result is the in-memory one, to the last bit. Every interval
method works on the merged table (with unequal survey weights, the asymptotic one only).
qwkit.dask's errors name the file and its data row.

Where it runs: without ``--scheduler``, on dask's threaded scheduler in this process —
no cluster to start, and all cores are used, since qwkit's kernels and the Parquet
reader release the GIL. ``--scheduler tcp://HOST:8786`` connects to a running
``dask scheduler`` and computes on its workers (which must be able to read PATH).
A progress bar counts the partitions done. CSV files: the header on the first line, the
separator from the extension (.csv, .tsv); their values are read as the local engine
reads them (``2.0`` is the rating 2).

``--engine duckdb``: ``qwkit.duckdb.kappa_test`` and ``confusion_matrix`` of the same
PATH (Parquet, or CSV read by DuckDB's own reader): DuckDB counts the table, in this
process, on every core, without loading the rows into Python; the result is the
in-memory one, to the last bit. ``--nan-policy omit`` leaves out rows with a missing
rating (``nan_policy="omit"``); survey weights are not taken (``--counts`` are).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from qwkit._base._extras import install_command
from qwkit.cli._errors import CliError, in_file_terms
from qwkit.cli._progress import progress_bar

__all__ = ["dask_kappa_test", "dask_missing", "duckdb_kappa_test", "duckdb_missing"]


def dask_missing() -> str:
    """The error of --engine dask without dask."""
    return f"--engine dask needs dask: {install_command('dask')}"


#: How long to try to reach a scheduler given with --scheduler.
CONNECT_TIMEOUT = "20s"


@contextmanager
def _scheduler(address: str | None) -> Iterator[str]:
    """Compute on the cluster at ``address`` (a ``distributed.Client``), or on dask's
    threaded scheduler in this process."""
    import dask

    if address is None:
        with dask.config.set(scheduler="threads"):
            yield "threads"
        return
    try:
        from distributed import Client
    except ImportError:
        raise CliError(dask_missing()) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=True)
    except (OSError, TimeoutError, ValueError) as exc:
        raise CliError(f"cannot connect to the dask scheduler at {address}: {exc}") from None
    with client:
        yield address


def dask_kappa_test(path, *, truth, pred, weights, labels, sample_weight, counts, scheduler):
    """``qwkit.dask.kappa_test`` of two columns of the files PATH names, with a progress
    bar over the partitions: ``(result, context)``, the context being what ``--json``
    says about the run."""
    try:
        import qwkit.dask
    except ImportError:
        raise CliError(dask_missing()) from None
    with in_file_terms({}, said={"data": "PATH"}):
        files = qwkit.dask.data_files(path)  # the files qwkit.dask reads: its own rule
    columns = {"y1": truth, "y2": pred, "sample_weight": sample_weight, "counts": counts}
    # qwkit.dask names the file and its data row itself; `data` is PATH
    terms = in_file_terms(columns, labels="--labels", said={"data": f"'{path}'"})
    partitions = [0]
    with _scheduler(scheduler) as where, terms, warnings.catch_warnings():
        # dask's own deprecation notices (e.g. of its pandas calls) are not the user's
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        with progress_bar("partitions", unit="partitions") as bar:

            def progress(done: int, total: int) -> None:
                partitions[0] = total
                if bar is not None:
                    bar(done, total)

            result = qwkit.dask.kappa_test(
                truth,
                pred,
                weights=weights,
                labels=labels,
                sample_weight=sample_weight,
                counts=counts,
                data=files,
                progress=progress,
            )
    context = {
        "engine": "dask",
        "scheduler": where,
        "files": len(files),
        "partitions": partitions[0],
    }
    return result, context


def duckdb_missing() -> str:
    """The error of --engine duckdb without duckdb."""
    return f"--engine duckdb needs duckdb: {install_command('duckdb')}"


def duckdb_kappa_test(path, *, truth, pred, weights, labels, counts, drop_missing, max_labels):
    """``qwkit.duckdb.kappa_test`` of two columns of the files PATH names, and their
    confusion matrix up to ``max_labels`` categories: ``(result, confusion or None,
    context)``, the context being what ``--json`` says about the run."""
    try:
        import qwkit.duckdb
    except ImportError:
        raise CliError(duckdb_missing()) from None
    columns = {"y1": truth, "y2": pred, "counts": counts}
    policy = "omit" if drop_missing else "raise"

    def explain(exc) -> str | None:  # a missing rating: the option that leaves it out
        if "nan_policy" not in exc.parameters:
            return None
        return (
            f"column '{columns[exc.parameter]}' has missing values; every item needs both "
            "ratings: pass --nan-policy omit to leave those rows out."
        )

    with in_file_terms(columns, labels="--labels", said={"data": f"'{path}'"}, explain=explain):
        common = {"labels": labels, "counts": counts, "nan_policy": policy}
        result = qwkit.duckdb.kappa_test(path, truth, pred, weights=weights, **common)
        confusion = None
        if len(result.labels) <= max_labels:
            common["labels"] = result.labels
            confusion = qwkit.duckdb.confusion_matrix(path, truth, pred, **common)
    return result, confusion, {"engine": "duckdb"}
