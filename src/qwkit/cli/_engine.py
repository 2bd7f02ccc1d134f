"""``qwkit score PATH --engine dask``: kappa of data that do not fit in memory.

PATH is a file, a glob (``'ratings/*.parquet'``) or a directory of Parquet or CSV files,
read by ``dask.dataframe`` partition by partition; ``qwkit.dask.kappa_test`` reduces
each partition to its table and merges the tables exactly (docs/dask.md), so the result
is the in-memory one, to the last bit. Every interval method works on the merged table
(with unequal survey weights, the asymptotic one only).

Where it runs: without ``--scheduler``, on dask's threaded scheduler in this process —
no cluster to start, and all cores are used, since qwkit's kernels and the Parquet
reader release the GIL. ``--scheduler tcp://HOST:8786`` connects to a running
``dask scheduler`` and computes on its workers (which must be able to read PATH).
A progress bar counts the partitions done. CSV files are read by ``dask.dataframe``:
the header on the first line, the separator from the extension (.csv, .tsv).
"""

from __future__ import annotations

import glob
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from qwkit._extras import install_command
from qwkit.cli._errors import CliError, in_file_terms
from qwkit.cli._progress import progress_bar

__all__ = ["dask_kappa_test", "dask_missing", "data_files"]


def dask_missing() -> str:
    """The error of --engine dask without dask."""
    return f"--engine dask needs dask: {install_command('dask')}"


#: How long to try to reach a scheduler given with --scheduler.
CONNECT_TIMEOUT = "20s"
_PARQUET = (".parquet", ".pq")
_CSV = {".csv": ",", ".tsv": "\t"}


def _kind(path: str) -> str | None:
    name = path.lower()
    if name.endswith(_PARQUET):
        return "parquet"
    if any(name.endswith(ext) or name.endswith(ext + ".gz") for ext in _CSV):
        return "csv"
    return None


def data_files(text: str) -> tuple[list[str], str]:
    """The files PATH names (a file, a glob or a directory, searched one level deep)
    and their format, "parquet" or "csv" (all alike)."""
    if os.path.isdir(text):
        files = sorted(
            str(p) for p in Path(text).iterdir() if p.is_file() and _kind(str(p)) is not None
        )
        where = f"folder '{text}'"
    elif glob.has_magic(text):
        files = sorted(p for p in glob.glob(text) if os.path.isfile(p))
        where = f"pattern '{text}'"
    elif os.path.isfile(text):
        files = [text]
        where = f"'{text}'"
    else:
        raise CliError(f"'{text}' is neither a file, a folder nor a pattern that matches files.")
    if not files:
        raise CliError(f"the {where} holds no .parquet, .pq, .csv or .tsv file.")
    kinds = {_kind(f) for f in files}
    if None in kinds:
        bad = next(f for f in files if _kind(f) is None)
        raise CliError(
            f"cannot tell the format of '{bad}' from its extension; use .parquet or .csv."
        )
    if len(kinds) > 1:
        raise CliError(f"the {where} mixes Parquet and CSV files; give one kind.")
    return files, kinds.pop()


def _frame(files: list[str], kind: str, columns: list[str]):
    """A dask DataFrame of the used columns (each named once, and present)."""
    try:
        import dask.dataframe as dd
    except ImportError:
        raise CliError(dask_missing()) from None
    try:
        if kind == "parquet":
            frame = dd.read_parquet(files if len(files) > 1 else files[0])
        else:
            sep = _CSV[Path(files[0]).suffixes[0].lower()] if Path(files[0]).suffixes else ","
            frame = dd.read_csv(files, sep=sep)
    except Exception as exc:  # a file that is not what its name says
        what = " ".join(str(exc).split())
        raise CliError(f"could not read {files[0]!r} with dask: {what}") from None
    names = [str(c) for c in frame.columns]
    absent = [c for c in dict.fromkeys(columns) if c not in names]
    if absent:
        raise CliError(
            "column"
            + ("s " if len(absent) > 1 else " ")
            + ", ".join(f"'{c}'" for c in absent)
            + f" not found in {files[0]!r}; its columns are: "
            + ", ".join(f"'{c}'" for c in names)
            + "."
        )
    return frame[list(dict.fromkeys(columns))]


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
    files, kind = data_files(path)
    used = [truth, pred, *(c for c in (sample_weight, counts) if c)]
    frame = _frame(files, kind, used)
    try:
        import qwkit.dask
    except ImportError:
        raise CliError(dask_missing()) from None
    columns = {"y1": truth, "y2": pred, "sample_weight": sample_weight, "counts": counts}
    terms = in_file_terms(
        columns,
        labels="--labels",
        row_text=lambda i: f"row {i + 1} of one of the partitions",
    )
    with _scheduler(scheduler) as where, terms, warnings.catch_warnings():
        # dask's own deprecation notices (e.g. of its pandas calls) are not the user's
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        with progress_bar("partitions", unit="partitions") as progress:
            result = qwkit.dask.kappa_test(
                truth,
                pred,
                weights=weights,
                labels=labels,
                sample_weight=sample_weight,
                counts=counts,
                data=frame,
                progress=progress,
            )
    context = {
        "engine": "dask",
        "scheduler": where,
        "files": len(files),
        "partitions": frame.npartitions,
    }
    return result, context
