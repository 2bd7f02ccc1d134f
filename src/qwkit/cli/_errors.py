"""How the command line fails: one clear line on stderr, no traceback.

- Usage errors (a missing option, a value out of range, a malformed ``--labels``) exit
  with 2: :class:`QwkitGroup` prints click's message as one ``qwkit: usage error:`` line
  instead of typer's framed box.
- Everything a user's data or files can cause — a missing file or column, a bad value,
  an API ``ValueError``/``TypeError`` — is caught by :func:`guard` and exits with 1 as one
  ``qwkit: error:`` line. An unexpected exception is reported the same way (with its type);
  set ``QWKIT_DEBUG=1`` to see its traceback.
- Ctrl-C exits with 130 and SIGTERM with 143, after the outputs being written are
  removed: :func:`guard` turns SIGTERM into an exception for the duration of a command,
  so the clean-up of ``_io.atomic_path`` runs.

Warnings of the API (an undefined kappa, a degenerate interval) become one
``qwkit: warning:`` line each on stderr. User text (column names, labels, paths) is never
read as rich markup: every console here has markup off.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from typer.core import TyperGroup

try:  # typer >= 0.22 ships its own copy of click
    from typer._click import exceptions as _click_errors
except ImportError:  # pragma: no cover - older typer depends on click
    from click import exceptions as _click_errors

__all__ = ["CliError", "QwkitGroup", "Terminated", "guard", "one_line", "stderr_console"]

#: Set to any non-empty value to see the traceback of a caught error (for developers).
DEBUG_VARIABLE = "QWKIT_DEBUG"
#: Exit codes of an interrupted command: 128 + the signal number, as a shell reports it.
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class CliError(Exception):
    """A problem with the user's input, reported as one line on stderr with exit code 1."""


class Terminated(BaseException):
    """Raised by the SIGTERM handler that :func:`guard` installs (a ``BaseException``, so
    that no ``except Exception`` swallows it and every ``finally`` runs)."""


def stderr_console() -> Console:
    """A console on stderr (progress bars and messages never mix with ``--json``)."""
    return Console(stderr=True, highlight=False, soft_wrap=True, markup=False)


def one_line(exc: BaseException | str) -> str:
    """The text of an exception (or a message) with all whitespace runs made one space."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _show_warnings(caught: list[warnings.WarningMessage], console: Console) -> None:
    seen = set()
    for item in caught:
        text = one_line(item.message)  # type: ignore[arg-type]
        if text not in seen:
            seen.add(text)
            console.print(f"qwkit: warning: {text}", markup=False)


def _on_sigterm(signum, frame) -> None:
    raise Terminated


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (main thread only)."""
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError, AttributeError):  # not the main thread / no SIGTERM
        previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


@contextmanager
def guard() -> Iterator[None]:
    """Run a command body: user-facing errors become one stderr line and exit code 1."""
    console = stderr_console()
    with warnings.catch_warnings(record=True) as caught, _sigterm_raises():
        warnings.simplefilter("always")
        try:
            yield
        except (typer.Exit, typer.Abort, typer.BadParameter):
            _show_warnings(caught, console)
            raise
        except KeyboardInterrupt:
            console.print("qwkit: interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Terminated:
            console.print("qwkit: terminated")
            raise typer.Exit(EXIT_TERMINATED) from None
        except (CliError, ValueError, TypeError, OSError, ImportError, MemoryError) as exc:
            _show_warnings(caught, console)
            if os.environ.get(DEBUG_VARIABLE):
                raise
            console.print(f"qwkit: error: {one_line(exc)}")
            raise typer.Exit(1) from None
        except Exception as exc:  # a bug, or a library error we did not foresee
            _show_warnings(caught, console)
            if os.environ.get(DEBUG_VARIABLE):
                raise
            console.print(
                f"qwkit: error: unexpected {type(exc).__name__}: {one_line(exc)} "
                f"(set {DEBUG_VARIABLE}=1 to see the traceback)"
            )
            raise typer.Exit(1) from None
    _show_warnings(caught, console)


def _usage_line(exc: _click_errors.UsageError) -> str:
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return f"qwkit: usage error: {one_line(exc.format_message())}{hint}"


class QwkitGroup(TyperGroup):
    """typer's group, with click's errors printed as one line on stderr (not a box).

    Exit codes: 2 for a usage error, 1 for another click error, 130 for an abort, and
    the command's own code (``typer.Exit``) otherwise.
    """

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _click_errors.NoArgsIsHelpError as exc:  # `qwkit` alone: the help, exit 2
            message = exc.format_message()
            if message and message != "None":  # rich has printed the help already
                typer.echo(message, err=True)
            sys.exit(exc.exit_code)
        except _click_errors.UsageError as exc:
            typer.echo(_usage_line(exc), err=True)
            sys.exit(exc.exit_code)
        except _click_errors.ClickException as exc:
            typer.echo(f"qwkit: error: {one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("qwkit: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        sys.exit(code if isinstance(code, int) else 0)
