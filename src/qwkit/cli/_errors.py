"""How the command line fails: one clear line on stderr, no traceback.

- Usage errors (a missing option, a value out of range, a malformed ``--labels``) exit
  with 2: :class:`QwkitGroup` prints click's message as one ``qwkit: usage error:`` line
  instead of typer's framed box.
- Everything a user's data or files can cause — a missing file or column, a bad value,
  an API ``ValueError``/``TypeError`` — is caught by :func:`guard` and exits with 1 as one
  ``qwkit: error:`` line. qwkit's own errors are said in the file's words by
  :func:`in_file_terms`, from their attributes (the parameter, the item's position):
  ``column 'grade'``, ``data row 12``, ``--labels``; their text is never parsed. An
  unexpected exception is reported the same way (with its type); set ``QWKIT_DEBUG=1``
  to see its traceback.
- A command that cannot write its result to standard output fails like any other: one
  ``qwkit: error: cannot write standard output: ...`` line and a non-zero exit code —
  1 for a standard output that is closed (``>&-``) or full (``> /dev/full``, a full
  disk), 141 (128 + SIGPIPE, what a shell reports for a writer stopped by a broken pipe)
  when its reader has stopped (``qwkit score ... | head -1``). A script never takes a
  lost result for a success. (Files a command writes, such as ``demo``'s report, are
  written before anything is printed, and stay.) A closed descriptor is never given to
  a file the command opens: :func:`standard_streams` puts the null device in its place
  first, and a write to the closed standard output fails.
- Ctrl-C exits with 130, SIGTERM with 143 and SIGHUP (the terminal closed) with 129,
  after the temporary files of the outputs being written (and the copy of standard
  input) are removed: :func:`guard` turns SIGTERM and SIGHUP into an exception for the
  duration of a command, so every clean-up (``finally``) runs. A signal that lands in
  compiled code stays what it is, not numba's ``SystemError`` (``_signals_unmasked``).

Warnings of the API (an undefined kappa, a degenerate interval) become one
``qwkit: warning:`` line each on stderr. User text (column names, labels, paths) is never
read as rich markup: every console here has markup off.
"""

from __future__ import annotations

import errno
import io
import os
import re
import signal
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

import qwkit

try:  # typer >= 0.22 ships its own copy of click
    from typer._click import exceptions as _click_errors
except ImportError:  # pragma: no cover - older typer depends on click
    from click import exceptions as _click_errors

__all__ = [
    "CliError",
    "QwkitCommand",
    "QwkitGroup",
    "StdoutConsole",
    "Terminated",
    "captured_warnings",
    "file_row",
    "guard",
    "in_file_terms",
    "one_line",
    "renamed_options",
    "standard_streams",
    "stderr_console",
    "warning_texts",
]

#: Set to any non-empty value to see the traceback of a caught error (for developers).
DEBUG_VARIABLE = "QWKIT_DEBUG"
#: Exit codes of an interrupted command: 128 + the signal number, as a shell reports it.
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
EXIT_HANGUP = 129
#: Exit code when stdout's reader stops early (``qwkit score ... | head -1``): the result
#: was not written, so not a success; 128 + SIGPIPE, as a shell reports ``yes | head``'s
#: writer under ``set -o pipefail``.
EXIT_BROKEN_PIPE = 141
#: The line said then (after ``qwkit: error: ``).
BROKEN_PIPE = "cannot write standard output: its reader has stopped reading (broken pipe)."


class CliError(Exception):
    """A problem with the user's input, reported as one line on stderr with exit code 1."""


class Terminated(BaseException):
    """Raised by the SIGTERM and SIGHUP handler that :func:`guard` installs (a
    ``BaseException``, so that no ``except Exception`` swallows it and every ``finally``
    runs)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


class StdoutConsole(Console):
    """A console on stdout whose broken pipe is left to :func:`guard` (rich's own
    handling exits with 1), and whose other failures to write name standard output."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError

    def print(self, *args, **kwargs) -> None:
        with writing_stdout():
            super().print(*args, **kwargs)


class _ClosedOutput(io.RawIOBase):
    """What standard output is when the command started with it closed (``>&-``):
    every write fails, as it would on a closed descriptor, and names it."""

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        raise OSError(errno.EBADF, "it is closed")


def standard_streams() -> None:
    """Standard input, output and error that were closed when the command started
    (``qwkit ... >&-``): their descriptors get the null device, so that no file the
    command opens takes descriptor 1 (and receives what is meant for standard output);
    a closed standard output then fails at its first write (:func:`stdout_failure`), a
    closed standard error swallows its lines (the exit code still says). Python has set
    such a stream to None; a stream that tests replace is left alone."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:  # closed: the null device in its place
            try:
                null = os.open(os.devnull, os.O_RDWR)
            except OSError:  # pragma: no cover - no null device
                continue
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if name == "stdout":
            sys.stdout = io.TextIOWrapper(_ClosedOutput(), encoding="utf-8", write_through=True)
        elif name == "stderr":
            sys.stderr = open(fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        else:  # nothing to read: `-` is empty
            sys.stdin = open(fd, encoding="utf-8", closefd=False)


def _flush_stdout() -> None:
    """What is still buffered for standard output, written: a failure to write it is the
    command's (it has not written its result)."""
    stream = sys.stdout
    if stream is not None:
        with writing_stdout():
            stream.flush()


def stdout_failure(exc: OSError) -> CliError:
    """A failure to write standard output (``> out.txt`` on a full disk, ``/dev/full``)
    in words that name it; what is left in stdout's buffer is dropped."""
    _silence_stdout()
    return CliError(f"cannot write standard output: {exc.strerror or one_line(exc)}.")


@contextmanager
def writing_stdout() -> Iterator[None]:
    """Writes to standard output: a failure names it (a broken pipe is left to
    :func:`guard`, which says it and exits with 141)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise stdout_failure(exc) from None


def stderr_console() -> Console:
    """A console on stderr (progress bars and messages never mix with ``--json``)."""
    return Console(stderr=True, highlight=False, soft_wrap=True, markup=False)


def one_line(exc: BaseException | str) -> str:
    """The text of an exception (or a message) with all whitespace runs made one space."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


#: The API's wording in its warnings → the command line's (options, not arguments).
_CLI_WORDS = (
    (re.compile(r"[Uu]se method='(\w+)'"), r"Use --method \1"),
    (
        re.compile(r"Returning `replace_undefined_by`=\S+?\.?$"),
        "It is reported as nan (null in --json).",
    ),
    (re.compile(r"`sample_weight`"), "--sample-weight"),
    (re.compile(r"`labels`"), "--labels"),
    (
        re.compile(r"A code is not a rating: drop the items that carry it\."),
        "A code is not a rating: drop the items that carry it (qwkit agreement and qwkit "
        "evaluate read such codes as missing with --missing, e.g. --missing 99,-1).",
    ),
)


def cli_wording(text: str) -> str:
    """A warning of the API in the command line's terms (``--method percentile``, not
    ``method='percentile'``)."""
    for pattern, replacement in _CLI_WORDS:
        text = pattern.sub(replacement, text)
    return text


def warning_texts(caught: list[warnings.WarningMessage]) -> list[str]:
    """The distinct warnings, one line each, in the command line's words."""
    texts = (cli_wording(one_line(item.message)) for item in caught)
    return list(dict.fromkeys(texts))


def _show_warnings(caught: list[warnings.WarningMessage], console: Console) -> None:
    for text in warning_texts(caught):
        console.print(f"qwkit: warning: {text}", markup=False)


@contextmanager
def captured_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning raised in the block (whatever its class) into the list it
    yields — e.g. to show them in a report — and pass them on when the block ends, so
    that :func:`guard` still prints them on stderr."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always")
            try:
                yield caught
            finally:
                caught.extend(recorded)
    finally:
        for item in caught:
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)


def _on_sigterm(signum, frame) -> None:
    raise Terminated(signum)


#: Signals that end a command cleanly (their outputs' temporary files removed).
_ENDING_SIGNALS = ("SIGTERM", "SIGHUP")


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise :class:`Terminated` (main thread
    only; a signal that is ignored, e.g. SIGHUP under ``nohup``, stays ignored)."""
    previous = {}
    for name in _ENDING_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        try:
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue
            previous[signum] = signal.signal(signum, _on_sigterm)
        except (ValueError, OSError):  # not the main thread
            pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _silence_stdout() -> None:
    """After a broken pipe (``qwkit ... | head -1``): send what is left of stdout to
    the null device, so that flushing it at exit raises nothing either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests)
        pass


@contextmanager
def _signals_unmasked() -> Iterator[None]:
    """An interrupt (or SIGTERM, SIGHUP) that compiled code reports as the cause of a
    ``SystemError`` is raised as itself. numba does so when the signal's handler runs
    while it builds a returned tuple; qwkit's kernels undo it (``_kernels._jit``), and this
    does the same for compiled code called otherwise."""
    try:
        yield
    except SystemError as exc:
        cause = exc.__cause__
        while isinstance(cause, SystemError):
            cause = cause.__cause__
        if isinstance(cause, (KeyboardInterrupt, Terminated)):
            raise cause from None
        raise


@contextmanager
def guard() -> Iterator[None]:
    """Run a command body: user-facing errors become one stderr line and exit code 1."""
    console = stderr_console()
    with warnings.catch_warnings(record=True) as caught, _sigterm_raises():
        warnings.simplefilter("always")
        try:
            with _signals_unmasked():
                yield
            _flush_stdout()
        except (typer.Exit, typer.Abort, typer.BadParameter):
            _show_warnings(caught, console)
            raise
        except KeyboardInterrupt:  # said by QwkitGroup.main, wherever it lands
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:  # the reader of stdout has stopped: the result is lost
            _silence_stdout()
            _show_warnings(caught, console)
            console.print(f"qwkit: error: {BROKEN_PIPE}")
            raise typer.Exit(EXIT_BROKEN_PIPE) from None
        except Terminated as exc:
            hangup = exc.signum == getattr(signal, "SIGHUP", None)
            console.print("qwkit: hung up" if hangup else "qwkit: terminated")
            raise typer.Exit(EXIT_HANGUP if hangup else EXIT_TERMINATED) from None
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


#: The API's parameters that are options of the command line, as a user reads them.
OPTION_WORDS = {
    "labels": "--labels",
    "sample_weight": "--sample-weight",
    "counts": "--counts",
    "weights": "--weights",
    "confidence_level": "--ci",
    "n_resamples": "--n-resamples",
    "method": "--method",
    "rng": "--seed",
    "coefficient": "--coefficient",
    "margin": "--margin",
    "pairs": "--pairs",
    "nan_policy": "--nan-policy",
    "min_kappa": "--min-kappa",
    "min_correlation": "--min-correlation",
    "max_smd": "--max-smd",
    "max_group_smd": "--max-group-smd",
}


def file_row(i: int, rows=None) -> int:
    """The 1-based data row of position ``i`` of the columns read (``rows``: the 0-based
    file row of each kept position, when rows were dropped)."""
    return int(rows[i] if rows is not None else i) + 1


@contextmanager
def in_file_terms(
    columns: dict[str, str | None],
    rows=None,
    *,
    labels: str = "--labels",
    said: dict[str, str] | None = None,
    explain=None,
    row_text=None,
) -> Iterator[None]:
    """An API error (:class:`qwkit.QwkitError`) said in the command line's words, from
    its structured attributes (never by parsing its text):

    - a parameter read from a column (``columns``: parameter → column name, e.g.
      ``{"y1": "grade"}``) as ``column 'grade'``, one given otherwise (``said``:
      parameter → text) as that text, and the API's options as the command line's
      (``--labels``, or where the scale came from: ``labels``);
    - the position of the offending item (``exc.row``) as its data row in the file.

    ``explain(exc)`` may return the command line's own message for an error it can say
    better (e.g. a rating column of fractional numbers), or None; ``row_text(i)`` says
    position ``i`` otherwise than as a data row of the file."""
    try:
        yield
    except qwkit.QwkitError as exc:
        if explain is not None and (text := explain(exc)) is not None:
            raise CliError(text) from None
        names = {**OPTION_WORDS, "labels": labels}
        names.update({p: f"column '{c}'" for p, c in columns.items() if c is not None})
        names.update(said or {})
        text = exc.reworded(names, row_text or (lambda i: f"data row {file_row(i, rows)}"))
        # a parameter named only in a hint ("for survey weights use `sample_weight`")
        for parameter, word in names.items():
            text = text.replace(f"`{parameter}`", word)
        raise CliError(text) from None


def _usage_line(exc: _click_errors.UsageError) -> str:
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return f"qwkit: usage error: {one_line(exc.format_message())}{hint}"


class _FlagsTakeNoValue:
    """Help lists a flag (``--json``, ``--drop-missing``, ``--help``) without a value
    type: typer would show ``<bool>`` as if it took one."""

    def get_params(self, ctx):
        params = super().get_params(ctx)
        for param in params:
            if getattr(param, "is_flag", False):
                param.metavar = ""
        return params


def _broken_pipe() -> None:
    """End the command whose standard output's reader has stopped (outside a command's
    :func:`guard`: ``--help``, ``--version``)."""
    _silence_stdout()
    typer.echo(f"qwkit: error: {BROKEN_PIPE}", err=True)
    sys.exit(EXIT_BROKEN_PIPE)


def renamed_options(renamed: dict[str, str]):
    """Decorator of a command function: each old option name (a key, e.g. ``"--out"``)
    still works as the new one (its value, ``"--output"``), absent from the help, with a
    ``qwkit: warning:`` line on stderr that says what to use and when the old name goes
    (CONTRIBUTING.md, "Deprecations"). :class:`QwkitCommand` reads the table."""

    def wrap(function):
        function.renamed_options = dict(renamed)
        return function

    return wrap


class QwkitCommand(_FlagsTakeNoValue, TyperCommand):
    """typer's command, with flags shown without a value type in the help, and the
    deprecated names of its options (:func:`renamed_options`) read as their new ones."""

    @property
    def renamed(self) -> dict[str, str]:
        """Old option name → new, from the command function's :func:`renamed_options`."""
        return getattr(self.callback, "renamed_options", {})

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        if self.renamed:
            args = self._renamed_args(ctx, args)
        return super().parse_args(ctx, args)

    def _renamed_args(self, ctx, args: list[str]) -> list[str]:
        """``args`` with each deprecated option name replaced by its new name (a warning
        each); the value of an option that takes one is never read as a name."""
        from qwkit._base._warnings import REMOVED_IN

        options = [p for p in self.get_params(ctx) if p.param_type_name == "option"]
        takes_value = {o for p in options if not p.is_flag for o in p.opts}
        names = {o: p for p in options for o in (*p.opts, *p.secondary_opts)}
        out: list[str] = []
        given: dict[str, dict[str, bool]] = {}  # option -> the names given (True: old)
        value_next = False
        for i, arg in enumerate(args):
            if value_next:
                out.append(arg)
                value_next = False
                continue
            if arg == "--":
                out.extend(args[i:])
                break
            said, eq, value = arg.partition("=")
            name = self.renamed.get(said, said)
            if name != said:
                arg = name + eq + value
            if name in names:
                given.setdefault(names[name].name, {})[said] = name != said
            value_next = not eq and name in takes_value
            out.append(arg)
        for names_given in given.values():
            old_names = [n for n, is_old in names_given.items() if is_old]
            new_names = [n for n, is_old in names_given.items() if not is_old]
            if old_names and new_names:
                raise typer.BadParameter(
                    f"give {new_names[0]} only; {old_names[0]} is its deprecated name.",
                    param_hint=new_names[0],
                )
            for name in old_names:
                typer.echo(
                    f"qwkit: warning: {name} is deprecated and will be removed in qwkit "
                    f"{REMOVED_IN}; use {self.renamed[name]} (the same thing).",
                    err=True,
                )
        return out


class QwkitGroup(_FlagsTakeNoValue, TyperGroup):
    """typer's group, with click's errors printed as one line on stderr (not a box).

    Exit codes: 2 for a usage error, 1 for another click error, 130 for an abort, 1 or
    141 when ``--help`` or ``--version`` cannot be written (as a command's result, see
    the module's docstring), and the command's own code (``typer.Exit``) otherwise. An
    interrupt is said here, as ``qwkit: interrupted``, wherever it landed: in a command
    (:func:`guard`) or in typer around it (which exits with 130 and says nothing).
    """

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        standard_streams()
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            if code in (None, 0):
                _flush_stdout()  # --help, --version: what is buffered is their result
        except BrokenPipeError:  # e.g. `qwkit --version | head -1`
            _broken_pipe()
        except SystemExit as exc:  # typer's own ending of a broken pipe: exit 1, silent
            cause = exc.__context__
            if isinstance(cause, OSError) and cause.errno == errno.EPIPE:
                _broken_pipe()  # e.g. `qwkit --help | head -1`
            raise
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
            code = EXIT_INTERRUPTED
        except CliError as exc:  # flushing --help or --version
            typer.echo(f"qwkit: error: {exc}", err=True)
            sys.exit(1)
        except OSError as exc:  # writing --help or --version (a command's are said in guard)
            typer.echo(f"qwkit: error: {stdout_failure(exc)}", err=True)
            sys.exit(1)
        if code == EXIT_INTERRUPTED:
            typer.echo("qwkit: interrupted", err=True)
        sys.exit(code if isinstance(code, int) else 0)
