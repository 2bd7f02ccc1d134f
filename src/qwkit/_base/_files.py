"""Writing files so that a failure never leaves a partial one: the one atomic writer, and
the temporary files it writes into.

A regular file is written to a temporary file beside it (one file system, so the rename
is atomic), and renamed over the target only when complete; on any failure or interrupt
the temporary file is removed and the target is untouched.

The temporary file of ``out.csv`` is ``.out.csv.<16 hex digits>.qwkit-tmp``. Its writer
holds a lock on it (``flock``) from its creation until it has its final name. A process
that dies without removing it (SIGKILL, a crash, a power cut) leaves it behind, unlocked
— the lock dies with its process, however it ends: the next qwkit that writes into the
same folder under the same name removes it. A file is removed only when its name is one
of those qwkit gives its temporary files for that target and no process holds its lock:
a file of another program, or the temporary file of a qwkit that is still writing (on
another host of a network file system too), is left alone. Where there are no locks
(Windows), a file that its writer has open cannot be removed, which is the same test.
(A file created with ``O_TMPFILE`` would have no name to leave behind, but only on
Linux and some of its file systems, and replacing an existing file still needs a named
temporary file: the lock serves everywhere.)
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # the module or None, as on Windows

__all__ = [
    "TEMPORARY_SUFFIX",
    "atomic_write",
    "commit",
    "new_temporary",
    "new_temporary_folder",
    "remove_stale",
]

#: The end of the name of every temporary file qwkit writes.
TEMPORARY_SUFFIX = ".qwkit-tmp"
#: The random part of a temporary file's name (letters, digits and '_': the names that
#: ``tempfile.mkstemp`` gave them before the lock, too).
_TOKEN = re.compile(r"[A-Za-z0-9_]{8,32}")
#: Characters of the target's name kept in its temporary file's name (a long name must
#: not make the temporary one too long for the file system).
_NAME_CHARS = 80


def _prefix(target: Path) -> str:
    return f".{target.name[:_NAME_CHARS]}."


def _lock(fd: int) -> bool:
    """Take the lock of an open file without waiting: False if another holds it. A file
    system without locks counts as taken by nobody."""
    if fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # no locks here (ENOLCK, EOPNOTSUPP, ...)
        return True
    return True


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.lstat(path))
    except FileNotFoundError:
        return False


def _remove_if_stale(path: Path) -> None:
    """Remove a temporary file or folder whose writer is gone (nobody holds its lock)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    folder = stat.S_ISDIR(info.st_mode)
    if fcntl is None:  # pragma: no cover - Windows: an open file cannot be removed
        if not folder:
            with suppress(OSError):
                os.unlink(path)
        return
    if folder:
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    elif stat.S_ISREG(info.st_mode):
        flags = os.O_WRONLY | os.O_NONBLOCK  # write mode: NFS locks only such files
    else:
        return
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))
    except OSError:  # gone already, another user's, ...
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its writer is alive (or no locks here: leave it)
            return
        if _same_file(fd, path):
            if folder:
                shutil.rmtree(path, ignore_errors=True)
            else:
                with suppress(OSError):
                    os.unlink(path)
    finally:
        os.close(fd)


def remove_stale(target: Path | str) -> None:
    """Remove the temporary files of ``target`` that qwkit processes now gone left
    behind (see the module's docstring)."""
    target = Path(target)
    prefix = _prefix(target)
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith(TEMPORARY_SUFFIX):
            if _TOKEN.fullmatch(name[len(prefix) : -len(TEMPORARY_SUFFIX)]):
                _remove_if_stale(target.parent / name)


def new_temporary(target: Path | str, *, mode: int = 0o600) -> tuple[int, Path]:
    """A new empty temporary file beside ``target``, open for writing and locked by this
    process: ``(file descriptor, path)``. The stale temporary files of ``target`` are
    removed first. ``mode``: its permission bits, before the umask."""
    target = Path(target)
    remove_stale(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        path = target.with_name(f"{_prefix(target)}{secrets.token_hex(8)}{TEMPORARY_SUFFIX}")
        try:
            fd = os.open(path, flags, mode)
        except FileExistsError:  # pragma: no cover - 64 random bits met
            continue
        # Another qwkit may have taken it for stale between its creation and this lock:
        # then it is gone (or going), and a new name is tried.
        if _lock(fd) and _same_file(fd, path):
            return fd, path
        os.close(fd)  # pragma: no cover - the race above


def new_temporary_folder(parent: Path | str) -> tuple[int | None, Path]:
    """A new empty temporary folder in ``parent`` (to write files into, then move them
    out), locked by this process as :func:`new_temporary` locks a file: ``(descriptor of
    the folder, path)``; close the descriptor after removing the folder. (Windows: no
    descriptor, and stale folders are left.)"""
    target = Path(parent) / "qwkit-stage"
    remove_stale(target)
    while True:
        path = target.with_name(f"{_prefix(target)}{secrets.token_hex(8)}{TEMPORARY_SUFFIX}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:  # pragma: no cover - 64 random bits met
            continue
        if fcntl is None:  # pragma: no cover - Windows
            return None, path
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:  # pragma: no cover - taken for stale meanwhile
            continue
        if _lock(fd) and _same_file(fd, path):
            return fd, path
        os.close(fd)  # pragma: no cover - the race of new_temporary


def commit(fd: int, move: Callable[[], object]) -> None:
    """Move a complete temporary file into place (``move()``) and close its descriptor:
    the lock is held until the file has its final name (on Windows, where an open file
    cannot be renamed, it is closed first)."""
    if os.name == "nt":  # pragma: no cover - Windows
        os.close(fd)
        move()
        return
    try:
        move()
    finally:
        os.close(fd)


def _naming(exc: OSError, target: Path) -> OSError:
    """The error said of the target, not of its temporary file (a full disk while
    writing has no file name at all)."""
    name = exc.filename
    if exc.errno is None or (name is not None and not str(name).endswith(TEMPORARY_SUFFIX)):
        return exc
    return OSError(exc.errno, exc.strerror, str(target))


def atomic_write(target: Path | str, write: Callable[[IO], object], *, binary: bool) -> None:
    """Write through ``write(fh)`` to a new file beside ``target``, then ``os.replace`` it.

    Raises ``OSError`` naming ``target`` (e.g. ``[Errno 28] No space left on device:
    'out.csv'``); the target is then untouched and no temporary file is left."""
    target = Path(target)
    try:
        fd, tmp = new_temporary(target, mode=0o666)  # the umask applies, as to any file
    except OSError as exc:
        raise _naming(exc, target) from None
    try:
        try:
            fh: IO[Any]
            if binary:
                fh = open(fd, "wb", closefd=False)
            else:
                fh = open(fd, "w", newline="", encoding="utf-8", closefd=False)
            try:
                write(fh)
                fh.flush()
            finally:
                with suppress(OSError):  # after a failure, what it holds is not wanted
                    fh.close()
        except BaseException:
            os.close(fd)
            raise
        commit(fd, lambda: os.replace(tmp, target))
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _naming(exc, target) from None
        raise
