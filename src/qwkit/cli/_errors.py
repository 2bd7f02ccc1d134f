"""How the command line fails: one clear line on stderr, exit code 1, no traceback.

Usage errors (a missing option, a malformed ``--labels``) are typer's and exit with 2.
Everything a user's data or files can cause — a missing file or column, a bad value,
an API ``ValueError``/``TypeError`` — is caught by :func:`guard` and exits with 1.
Warnings of the API (an undefined kappa, a degenerate interval) become one
``qwkit: warning:`` line each on stderr.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

__all__ = ["CliError", "guard", "stderr_console"]

#: Set to any non-empty value to see the traceback of a caught error (for developers).
DEBUG_VARIABLE = "QWKIT_DEBUG"


class CliError(Exception):
    """A problem with the user's input, reported as one line on stderr with exit code 1."""


def stderr_console() -> Console:
    """A console on stderr (progress bars and messages never mix with ``--json``)."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _show_warnings(caught: list[warnings.WarningMessage], console: Console) -> None:
    seen = set()
    for item in caught:
        text = _one_line(item.message)  # type: ignore[arg-type]
        if text not in seen:
            seen.add(text)
            console.print(f"qwkit: warning: {text}", markup=False)


@contextmanager
def guard() -> Iterator[None]:
    """Run a command body: user-facing errors become one stderr line and exit code 1."""
    console = stderr_console()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        except (typer.Exit, typer.Abort, typer.BadParameter):
            _show_warnings(caught, console)
            raise
        except KeyboardInterrupt:
            console.print("qwkit: interrupted", markup=False)
            raise typer.Exit(130) from None
        except (CliError, ValueError, TypeError, OSError, ImportError, MemoryError) as exc:
            _show_warnings(caught, console)
            if os.environ.get(DEBUG_VARIABLE):
                raise
            console.print(f"qwkit: error: {_one_line(exc)}", markup=False)
            raise typer.Exit(1) from None
    _show_warnings(caught, console)
