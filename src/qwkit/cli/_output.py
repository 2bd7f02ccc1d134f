"""Writing outputs without ever destroying data.

The same rules hold for every command that writes (``report -o``, ``thresholds fit -o``,
``thresholds apply -o``, ``economics --out`` and ``demo --out``), and every check is made
before any work:

1. **An output is never an input.** Each output is compared with the command's inputs
   (the data file, a ``--thresholds`` file, a file behind standard input) by device and
   inode, after following symbolic links, so that a symbolic or hard link to an input is
   refused as well; the input is left untouched.
2. **``-`` is standard output**; ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` and
   ``/proc/self/fd/N`` are the descriptors they name, written as they are (the shell's
   ``>`` or ``>>`` decides what happens to what was there). A file named ``-`` is ``./-``.
   When the output is standard output, what the command prints besides goes to
   standard error. A stream is written as the output is made: what a failure cuts short
   cannot be taken back, so every check that can be made is made before it is opened.
3. **A regular file is written whole or not at all**: into a temporary file beside it,
   moved into place only when complete, so a failing or interrupted command (Ctrl-C,
   SIGTERM, SIGHUP) leaves neither a partial file nor a temporary one; one left by a
   killed qwkit (SIGKILL) is removed by the next that writes the same output
   (``qwkit._base._files``). An error of writing (a full disk) names the output. A symbolic link
   is written through (its target is replaced) and a replaced file keeps its permission
   bits. A new file is linked into place, never over a file that appeared meanwhile.
4. **qwkit replaces only what it wrote.** An existing regular file is replaced only when
   it is recognizably a qwkit output of the same kind — an HTML report carrying qwkit's
   ``generator`` tag (``report``, ``demo``); a thresholds file, JSON with its ``"qwkit"``
   key (``thresholds fit``); a Parquet table carrying qwkit's ``qwkit`` metadata key
   (``thresholds apply``); ``economics.csv`` with the economics header and PNG figures
   carrying qwkit's ``qwkit`` text chunk (``economics``) — or when it is empty (e.g.
   made by ``mktemp``), or with ``--force``. A delimited text table cannot carry a mark:
   ``thresholds apply`` recognizes its own by its content — the input it reads now, with
   one more column of that name (``_tables.written_from``), so a rerun replaces it and
   any other file is refused. A read-only file is replaced only with ``--force``.
   Otherwise the command stops with one line naming ``--force``. ``--force`` never lets
   an output be an input or a folder.
5. **A device or named pipe is written in place**: a character device (``/dev/null``)
   or a FIFO is opened for writing — never renamed, removed or replaced. A block device
   (a disk) is written in place only with ``--force``; a socket or another special file
   is refused.
6. **Folders.** ``--out`` of ``demo`` and ``economics`` is a folder, created if missing
   (its parent must exist) only once the work is done; rules 1–5 apply to each file
   written into it, and ``economics`` moves all its files into place together, after
   all of them are written.

The table of ``thresholds apply`` is written by ``_tables`` through :func:`open_target`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import struct
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, fields
from pathlib import Path
from typing import BinaryIO

import qwkit
from qwkit._base import _files
from qwkit.cli import _io
from qwkit.cli._errors import CliError, stdout_failure

__all__ = [
    "ECONOMICS_FIGURE",
    "ECONOMICS_TABLE",
    "REPORT",
    "TABLE",
    "THRESHOLDS",
    "Folder",
    "Input",
    "Kind",
    "Target",
    "commit_staged",
    "is_standard_output",
    "mark_png",
    "not_replaced",
    "open_target",
    "parquet_mark",
    "plan",
    "plan_folder",
    "staged_outputs",
    "write_into",
    "write_text",
]

#: The tag that marks an HTML report as qwkit's (the start of its ``<meta>`` element).
REPORT_MARK = '<meta name="generator" content="qwkit'
#: Files larger than this are never read to recognize them (no qwkit JSON is that big).
_MAX_SNIFF_BYTES = 64 * 2**20
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Key of the text chunk that marks qwkit's PNG figures, and of a Parquet table's metadata.
MARK_KEY = b"qwkit"
#: ``/dev/stdout``, ``/dev/fd/3``, ``/proc/self/fd/1``: a descriptor, not a file.
_DESCRIPTOR_PATH = re.compile(
    r"^/(?:dev/(?P<std>stdout|stderr)|dev/fd/(?P<fd>\d+)|proc/(?:self|thread-self)/fd/(?P<pfd>\d+))$"
)


# ---------------------------------------------------------------------------- kinds


def _head(path: Path, n: int) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(n)


def _is_report(path: Path) -> bool:
    return REPORT_MARK.encode("ascii") in _head(path, 4096)


def _is_thresholds(path: Path) -> bool:
    if path.stat().st_size > _MAX_SNIFF_BYTES:
        return False
    spec = json.loads(path.read_bytes())
    return isinstance(spec, dict) and "qwkit" in spec and "thresholds" in spec


def _is_marked_parquet(path: Path) -> bool:
    if _head(path, 4) != _io._PARQUET_MAGIC:
        return False
    import pyarrow.parquet as pq

    return MARK_KEY in (pq.read_schema(str(path)).metadata or {})


def _economics_header() -> bytes:
    from qwkit.economics import EconomicsRow

    return ",".join(f.name for f in fields(EconomicsRow)).encode("ascii")


def _is_economics_table(path: Path) -> bool:
    return _head(path, 4096).split(b"\n", 1)[0].rstrip(b"\r") == _economics_header()


def _png_chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """``(type, data)`` of the chunks of a PNG up to its image data."""
    at = len(_PNG_SIGNATURE)
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        if kind == b"IDAT":
            return
        yield kind, data[at + 8 : at + 8 + length]
        at += 12 + length


def _is_marked_png(path: Path) -> bool:
    data = _head(path, 1 << 16)
    if not data.startswith(_PNG_SIGNATURE):
        return False
    return any(
        kind == b"tEXt" and body.split(b"\0", 1)[0] == MARK_KEY for kind, body in _png_chunks(data)
    )


def mark_png(path: Path, what: str) -> None:
    """Add qwkit's text chunk (``qwkit: <what>``) to a PNG file, after its header."""
    data = path.read_bytes()
    if not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return
    end = 8 + 12 + struct.unpack(">I", data[8:12])[0]  # signature, then the IHDR chunk
    text = b"tEXt" + MARK_KEY + b"\0" + f"{what}, qwkit {qwkit.__version__}".encode("latin-1")
    chunk = struct.pack(">I", len(text) - 4) + text + struct.pack(">I", zlib.crc32(text))
    path.write_bytes(data[:end] + chunk + data[end:])


def parquet_mark(command: str) -> dict:
    """The schema metadata that marks a Parquet table as qwkit's."""
    return {MARK_KEY: json.dumps({"command": command, "version": qwkit.__version__}).encode()}


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of output, and how to tell that an existing file is one qwkit wrote."""

    what: str  # for messages: "a qwkit HTML report"
    recognizes: Callable[[Path], bool]
    #: Files that only the command can recognize, once it has opened its input (a text
    #: table of ``thresholds apply``: its input with one more column); ``plan`` leaves
    #: the decision to it (``Target.unrecognized``, :func:`not_replaced`).
    recognized_later: Callable[[Path], bool] | None = None

    def written_by_qwkit(self, path: Path) -> bool:
        try:
            return bool(self.recognizes(path))
        except Exception:  # unreadable, not JSON, not Parquet, ...: not recognizably ours
            return False


REPORT = Kind("a qwkit HTML report", _is_report)
THRESHOLDS = Kind("a qwkit thresholds file", _is_thresholds)
TABLE = Kind(
    "a table written by qwkit (a Parquet file with qwkit's mark)",
    _is_marked_parquet,
    recognized_later=lambda path: _io._suffixes(path)[0] not in _io._PARQUET,
)
ECONOMICS_TABLE = Kind("a qwkit economics table", _is_economics_table)
ECONOMICS_FIGURE = Kind("a qwkit economics figure", _is_marked_png)


# ---------------------------------------------------------------------------- targets


@dataclass(frozen=True, slots=True)
class Input:
    """An input of a command, to be compared with its outputs."""

    identity: tuple[int, int] | None  # (device, inode); None: nothing to protect
    what: str  # "the data file 'x.csv'"

    @classmethod
    def of(cls, text: str | None, role: str = "data file") -> Input:
        """An input named on the command line (``role``: "data file", "thresholds
        file"); only a regular file can be damaged by a write (standard input counts
        when it is one)."""
        if text == _io.STDIN:
            what = f"the {role} on standard input"
        else:
            what = f"the {role} '{text}'"
        if text is None:
            return cls(None, what)
        try:
            info = os.fstat(sys.stdin.fileno()) if text == _io.STDIN else os.stat(text)
        except (OSError, ValueError, AttributeError):
            return cls(None, what)
        if not stat.S_ISREG(info.st_mode):
            return cls(None, what)
        return cls((info.st_dev, info.st_ino), what)


@dataclass(frozen=True, slots=True)
class Target:
    """Where one output goes, decided (and checked) before any work."""

    shown: str  # as the user gave it
    how: str  # "new", "replace", "in place" or "descriptor"
    path: Path | None = None  # the file (links resolved); None for a descriptor
    fd: int | None = None
    identity: tuple[int, int] | None = None  # of what is there now
    mode: int = 0o644  # permission bits of the file written
    owner: tuple[int, int] | None = None  # of the file replaced
    #: Replaced only if the command recognizes it as its own (``Kind.recognized_later``).
    unrecognized: bool = False

    @property
    def is_stream(self) -> bool:
        """Written as it goes (standard output, a descriptor, a device or a pipe)."""
        return self.how in ("in place", "descriptor")

    @property
    def is_stdout(self) -> bool:
        return self.how == "descriptor" and self.fd == 1


def _fail(shown: str, why: str) -> CliError:
    return CliError(f"cannot write '{shown}': {why}")


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _check_folder(shown: str, folder: Path, *, later: bool = False) -> None:
    if later:
        return
    if not folder.is_dir():
        raise _fail(shown, f"the folder '{folder}' does not exist.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _fail(shown, f"the folder '{folder}' is not writable.")


def _not_an_input(shown: str, identity: tuple[int, int], inputs: Sequence[Input]) -> None:
    for item in inputs:
        if item.identity is not None and item.identity == identity:
            raise CliError(
                f"the output '{shown}' is {item.what}, an input of this command (the same "
                "file, or a link to it); it is left untouched: choose another output."
            )


def is_standard_output(text: str | None) -> bool:
    """Whether an output named on the command line is standard output (``-``,
    ``/dev/stdout``, ``/dev/fd/1``, ...)."""
    return text is not None and _descriptor(text) == 1


def _descriptor(text: str) -> int | None:
    if text == _io.STDIN:
        return 1
    match = _DESCRIPTOR_PATH.match(os.path.normpath(text)) if text.startswith("/") else None
    if match is None:
        return None
    if match["std"]:
        return 1 if match["std"] == "stdout" else 2
    return int(match["fd"] or match["pfd"])


def not_replaced(shown: str, what: str) -> CliError:
    """The refusal to replace a file that is not recognizably what qwkit wrote."""
    return CliError(
        f"'{shown}' exists and is not {what}; qwkit does not replace a file it did not "
        "write: pass --force to replace it, or choose another output."
    )


def plan_given(text: str | None, *, kind: Kind, file: str, force: bool) -> Target | None:
    """:func:`plan` of an output that a command may write beside what it prints
    (``--report``, ``thresholds fit --output``), the data file ``file`` its input; None
    when it is not given."""
    if text is None:
        return None
    return plan(text, kind=kind, inputs=[Input.of(file)], force=force)


def plan(
    text: str,
    *,
    kind: Kind,
    inputs: Sequence[Input] = (),
    force: bool = False,
    folder_made_later: bool = False,
) -> Target:
    """Decide how ``text`` (an output named on the command line) is written, or refuse
    it with one line (rules 1–5 of the module's docstring)."""
    fd = _descriptor(text)
    if fd is not None:
        shown = "standard output" if text == _io.STDIN else text
        try:
            info = os.fstat(fd)
        except OSError:
            raise _fail(shown, f"file descriptor {fd} is not open.") from None
        except (ValueError, AttributeError):  # pragma: no cover - no descriptors at all
            info = None
        if info is not None:
            _not_an_input(shown, (info.st_dev, info.st_ino), inputs)
        return Target(text, "descriptor", fd=fd)
    path = Path(text)
    try:
        info = os.stat(path)  # links followed
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _fail(text, f"{exc.strerror or exc}.") from None
    if info is None:
        if text.endswith(("/", os.sep)):
            raise _fail(text, "it names a folder that does not exist, not a file.")
        real = Path(os.path.realpath(path))  # a dangling link: its target is created
        _check_folder(text, real.parent, later=folder_made_later)
        return Target(text, "new", path=real, mode=_default_mode())
    identity = (info.st_dev, info.st_ino)
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise _fail(text, "it is a folder.")
    _not_an_input(text, identity, inputs)
    if stat.S_ISREG(mode):
        real = Path(os.path.realpath(path))
        unrecognized = False
        if not force:
            if not os.access(real, os.W_OK) or not mode & 0o222:  # root: the bits count
                raise _fail(text, "it is read-only; pass --force to replace it.")
            if info.st_size > 0 and not kind.written_by_qwkit(real):
                if kind.recognized_later is None or not kind.recognized_later(real):
                    raise not_replaced(text, kind.what)
                unrecognized = True
        _check_folder(text, real.parent)
        return Target(
            text,
            "replace",
            path=real,
            identity=identity,
            mode=stat.S_IMODE(mode),
            owner=(info.st_uid, info.st_gid),
            unrecognized=unrecognized,
        )
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or (stat.S_ISBLK(mode) and force):
        return Target(text, "in place", path=path, identity=identity)
    if stat.S_ISBLK(mode):
        raise _fail(text, "it is a block device (a disk); pass --force to write onto it.")
    what = "a socket" if stat.S_ISSOCK(mode) else "a special file"
    raise _fail(text, f"it is {what}; qwkit writes regular files, devices and named pipes.")


@dataclass(frozen=True, slots=True)
class Folder:
    """An output folder (``--out``): made, if missing, only when the outputs are."""

    path: Path
    exists: bool

    def file(self, name: str, *, kind: Kind, force: bool) -> Target:
        """The target of one file of the folder."""
        return plan(
            str(self.path / name), kind=kind, force=force, folder_made_later=not self.exists
        )

    def make(self) -> bool:
        """Create the folder if it is missing; whether it was created now."""
        if self.path.is_dir():
            return False
        try:
            self.path.mkdir()
        except FileExistsError:
            if not self.path.is_dir():
                raise CliError(
                    f"cannot create the folder '{self.path}': a file is there."
                ) from None
            return False
        return True


def plan_folder(text: str, *, option: str) -> Folder:
    """An output folder named by ``option``: an existing writable folder, or a missing
    one whose parent folder exists (it is created only when the outputs are written)."""
    path = Path(text)
    if path.exists():
        if not path.is_dir():
            raise CliError(f"{option} '{path}' exists and is not a folder.")
        if not os.access(path, os.W_OK | os.X_OK):
            raise CliError(f"cannot write into '{path}': the folder is not writable.")
        return Folder(path, True)
    parent = Path(os.path.realpath(path)).parent
    if not parent.is_dir():
        raise CliError(f"cannot create '{path}': the folder '{path.parent}' does not exist.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(f"cannot create '{path}': the folder '{path.parent}' is not writable.")
    return Folder(path, False)


# ---------------------------------------------------------------------------- writing


def _check_unchanged(target: Target) -> None:
    """Just before a file is moved into place: what is there is what was checked."""
    try:
        info = os.stat(target.path)
    except FileNotFoundError:
        info = None
    if target.how == "new" and info is not None:
        raise CliError(
            f"'{target.shown}' appeared while qwkit was working; it is left as it is "
            "(nothing was written)."
        )
    if target.how == "replace" and (info is None or (info.st_dev, info.st_ino) != target.identity):
        raise CliError(
            f"'{target.shown}' changed while qwkit was working; it is left as it is "
            "(nothing was written)."
        )


def _move_into_place(tmp: Path, target: Target) -> None:
    """Move a complete temporary file onto its target (rules 3 and 4)."""
    os.chmod(tmp, target.mode)
    if target.owner is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
        with suppress(OSError):
            os.chown(tmp, *target.owner)
    _check_unchanged(target)
    if target.how == "new":
        try:
            os.link(tmp, target.path)  # fails, rather than replaces, if a file appeared
        except FileExistsError:
            _check_unchanged(target)
            raise
        except OSError:  # a file system without hard links
            os.replace(tmp, target.path)
        else:
            os.unlink(tmp)
    else:
        os.replace(tmp, target.path)


def _stream_of(fd: int) -> BinaryIO | None:
    """Python's own binary stream for standard output or error (so that what it has
    buffered comes first), or None for another descriptor."""
    stream = {1: sys.stdout, 2: sys.stderr}.get(fd)
    if stream is None:
        return None
    stream.flush()
    return getattr(stream, "buffer", None)


@contextmanager
def _said_of(target: Target) -> Iterator[None]:
    """An ``OSError`` of writing ``target`` (a full disk, ``/dev/full``) said as one line
    that names it; a broken pipe is left to ``guard``, which says it (exit code 141)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        if target.is_stdout:
            raise stdout_failure(exc) from None
        raise _fail(target.shown, f"{exc.strerror or exc}.") from None


class _Written:
    """The stream :func:`open_target` yields: what it writes goes to ``raw``, and a
    failure to write names the output."""

    def __init__(self, raw: BinaryIO, target: Target) -> None:
        self._raw = raw
        self._target = target

    def write(self, data) -> int:
        with _said_of(self._target):
            return self._raw.write(data)

    def flush(self) -> None:
        with _said_of(self._target):
            self._raw.flush()


@contextmanager
def _writing(out: BinaryIO, target: Target, *, close: bool) -> Iterator[BinaryIO]:
    """``out`` as a :class:`_Written` stream, flushed when the block succeeds (a
    failure to flush names the output too) and closed (``close``) however it ends."""
    try:
        yield _Written(out, target)
        _Written(out, target).flush()
    finally:
        if close:
            with suppress(OSError):  # flushed already, or what it holds is not wanted
                out.close()


@contextmanager
def open_target(target: Target) -> Iterator[BinaryIO]:
    """A binary stream to ``target``: a temporary file moved into place when the block
    succeeds (and removed otherwise), or the descriptor, device or pipe itself. An error
    of writing it names it (``cannot write 'out.csv': No space left on device.``)."""
    if target.how == "descriptor":
        stream = _stream_of(target.fd)
        if stream is not None:
            with _writing(stream, target, close=False) as out:
                yield out
            return
        with _writing(os.fdopen(os.dup(target.fd), "wb"), target, close=True) as out:
            yield out
        return
    if target.how == "in place":
        try:
            fd = os.open(target.path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
        except OSError as exc:
            raise _fail(target.shown, f"{exc.strerror or exc}.") from None
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != target.identity or stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise CliError(
                f"'{target.shown}' changed while qwkit was working; nothing was written."
            )
        with _writing(os.fdopen(fd, "wb"), target, close=True) as out:
            yield out
        return
    with _said_of(target):
        fd, tmp = _files.new_temporary(target.path)  # stale ones of the target removed
    try:
        try:
            with _writing(os.fdopen(fd, "wb", closefd=False), target, close=True) as out:
                yield out
        except BaseException:
            os.close(fd)
            raise
        with _said_of(target):
            _files.commit(fd, lambda: _move_into_place(tmp, target))
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(target: Target, text: str) -> None:
    """Write a text file (UTF-8) whole."""
    with open_target(target) as out:
        out.write(text.encode("utf-8"))


@contextmanager
def staged_outputs(folder: Folder, targets: dict[str, Target]) -> Iterator[Path]:
    """A hidden temporary folder inside ``folder`` to write a set of files into (named
    as the keys of ``targets``). When the block succeeds every target is checked again,
    then all files are moved into place together; on a failure or an interrupt nothing
    is moved, the temporary folder is removed, and so is ``folder`` if it was made here
    and is empty."""
    made = folder.make()
    stage = lock = None
    try:
        lock, stage = _files.new_temporary_folder(folder.path)  # stale ones removed
        try:
            yield stage
        except OSError as exc:  # e.g. a full disk: name the output, not the stage
            written = Path(exc.filename).name if exc.filename else None
            shown = targets[written].shown if written in targets else str(folder.path)
            raise _fail(shown, f"{exc.strerror or exc}.") from None
        commit_staged(stage, targets)
    except BaseException:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
            stage = None
        if made:
            with suppress(OSError):
                folder.path.rmdir()
        raise
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        if lock is not None:
            os.close(lock)


def commit_staged(stage: Path, targets: dict[str, Target]) -> None:
    """Move the files of ``stage`` onto their targets, after checking all of them."""
    written = sorted(p.name for p in stage.iterdir())
    unknown = [name for name in written if name not in targets]
    if unknown:  # pragma: no cover - a bug: a file nobody planned
        raise CliError(f"unexpected output {unknown[0]!r}; nothing was written.")
    for name in written:
        _check_unchanged(targets[name])
    for name in written:
        _move_into_place(stage / name, targets[name])


def write_into(folder: Folder, target: Target, text: str) -> None:
    """Write a text file into ``folder`` (made now if missing, and removed again if the
    file cannot be written)."""
    made = folder.make()
    try:
        write_text(target, text)
    except BaseException:
        if made:
            with suppress(OSError):
                folder.path.rmdir()
        raise
