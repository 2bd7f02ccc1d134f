"""Progress bars for long work: a bar, the count done and the time remaining.

Every bar goes to stderr, and only on a terminal (a pipe, a file or ``--json`` on stdout
never sees one); it disappears when the work is done. The library reports progress
through callbacks — ``progress(done, total)`` of ``confidence_interval``,
``bootstrap_distribution``, ``optimism_corrected_kappa`` and the functions of
``qwkit.dask`` — so a bar shows what is really done, not a spinner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from qwkit.cli._errors import stderr_console

__all__ = ["Callback", "bar", "confidence_interval", "progress_bar"]

#: ``progress(done, total)``, as the library calls it.
Callback = Callable[[int, int], object]


def bar(console: Console | None, *, unit: str = "") -> Progress:
    """A rich progress display on ``console`` (disabled unless it is a terminal):
    description, bar, ``done/total`` (bytes for ``unit="bytes"``), unit, time left."""
    count = (
        DownloadColumn()
        if unit == "bytes"
        else MofNCompleteColumn()
        if unit != "rows"
        else TextColumn("{task.completed:,.0f} rows")
    )
    return Progress(
        TextColumn("{task.description}", style="progress.description", markup=False),
        BarColumn(),
        count,
        TextColumn(unit, markup=False) if unit not in ("", "bytes", "rows") else TextColumn(""),
        TimeRemainingColumn(compact=True),
        console=console,
        transient=True,
        disable=console is None or not console.is_terminal,
    )


@contextmanager
def progress_bar(description: str, *, unit: str = "", console=None) -> Iterator[Callback | None]:
    """A ``progress(done, total)`` callback that drives a bar on stderr while the block
    runs; None (no callback at all) when stderr is not a terminal."""
    console = console if console is not None else stderr_console()
    if not console.is_terminal:
        yield None
        return
    with bar(console, unit=unit) as display:
        task = display.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            display.update(task, completed=done, total=total)

        yield update


def confidence_interval(result, level: float, method, n_resamples: int, seed: int):
    """``result.confidence_interval``; a bootstrap (``method`` "bootstrap" or
    "percentile", a name or an Enum of one) drives a progress bar on a terminal."""
    method = getattr(method, "value", method)
    if method not in ("bootstrap", "percentile"):
        return result.confidence_interval(level, method=method)
    with progress_bar(f"{method} interval", unit="resamples") as progress:
        return result.confidence_interval(
            level, method=method, n_resamples=n_resamples, rng=seed, progress=progress
        )
