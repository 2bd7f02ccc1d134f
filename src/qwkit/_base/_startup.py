"""Ctrl-C while the ``qwkit`` command line loads the package.

``qwkit`` and ``python -m qwkit`` import the package before the command line's own code
can catch an interrupt, and Python reports one that lands there with a traceback. The
package itself loads at once (``qwkit/__init__`` imports its public names lazily); what
is slow to load — typer, the command's module, and numpy, scipy and numba when the
command first calls qwkit — loads after :func:`loaded`, where the command line says an
interrupt itself (``cli.main``, ``cli._errors``). While the package loads *as the command
line*, and only then, Ctrl-C says ``qwkit: interrupted`` and exits with 130 at once
(nothing has been read or written yet); :func:`loaded` hands the interrupt back to
Python when the command line starts, which then handles it itself. ``import qwkit``
from any other program changes nothing.
"""

from __future__ import annotations

import os
import signal
import sys

#: The exit code of an interrupted command (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130


def _started_as_the_command_line() -> bool:
    """``python -m qwkit`` (while runpy locates it, ``sys.argv[0]`` is ``'-m'``), or the
    ``qwkit`` script that pip installs (``qwkit``, ``qwkit.exe``, ``qwkit-script.py``)."""
    argv = sys.argv if isinstance(getattr(sys, "argv", None), list) else []
    if argv[:1] == ["-m"]:
        orig = list(getattr(sys, "orig_argv", []))
        for i, arg in enumerate(orig[1:], 1):
            if arg.startswith("-m"):
                name = arg[2:] or (orig[i + 1] if i + 1 < len(orig) else "")
                return name == "qwkit"
        return False
    if not argv or not argv[0]:
        return False
    stem = argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower()  # POSIX or Windows
    for ending in (".exe", "-script.py", "-script.pyw"):
        stem = stem.removesuffix(ending)
    return stem == "qwkit"


def _interrupted(signum, frame) -> None:  # pragma: no cover - exits the process
    os.write(2, b"qwkit: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


def loading() -> None:
    """Called first thing by ``qwkit/__init__``: when the process is the command line and
    Ctrl-C would raise ``KeyboardInterrupt`` (it is not ignored, as in a background job),
    Ctrl-C exits with 130 until :func:`loaded`."""
    if not _started_as_the_command_line():
        return
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupted)
    except (ValueError, OSError):  # not the main thread
        pass


def loaded() -> None:
    """Called first thing by the command line's ``main``: Ctrl-C raises
    ``KeyboardInterrupt`` again, which the command line reports."""
    try:
        if signal.getsignal(signal.SIGINT) is _interrupted:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except (ValueError, OSError):  # not the main thread
        pass
