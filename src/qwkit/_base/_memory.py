"""How much memory this process may still take, and the refusal of a request that would
need more: said up front, with what it would need, instead of numpy's ``MemoryError``
half-way (or the system's out-of-memory killer).

:func:`available` is the least of what the system has available (Linux's
``MemAvailable``: free memory and what the page cache would give back; elsewhere the
free pages), of what this process's address-space limit leaves (``ulimit -v``,
``RLIMIT_AS``) and of what its control group's limit leaves (``memory.max``, a
container's). None when none of them can be read: then nothing is refused.

:func:`check` refuses a request that would need more than :data:`SHARE` of that: one
array that fills the memory leaves none for the work done with it (nor for the rest of
the machine), and the estimate of what a request needs is an estimate.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from qwkit._base._errors import QwkitError
from qwkit._base._validation import _bytes

__all__ = ["SHARE", "available", "check", "shown"]

#: The share of the available memory one request may take.
SHARE = 0.75


def _meminfo() -> int | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    found = re.search(r"^MemAvailable:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else None


def _free_pages() -> int | None:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _address_space_left() -> int | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not a Unix
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmSize:\s+(\d+) kB", status, re.MULTILINE)
    if found is None:
        return None
    used = int(found.group(1)) * 1024
    return max(soft - used, 0)


def _cgroup_left() -> int | None:
    root = Path("/sys/fs/cgroup")
    try:
        limit = (root / "memory.max").read_text().strip()
        if limit == "max":
            return None
        return max(int(limit) - int((root / "memory.current").read_text()), 0)
    except (OSError, ValueError):
        return None


def available() -> int | None:
    """Bytes this process may still allocate (None: unknown, nothing is refused)."""
    system = _meminfo()
    if system is None:
        system = _free_pages()
    known = [n for n in (system, _address_space_left(), _cgroup_left()) if n is not None]
    return min(known) if known else None


def shown(n: float) -> str:
    """A number of bytes as people read it (``17.3 GiB``)."""
    return _bytes(n)


def check(need: float, what: str, parameter: str, instead: str) -> None:
    """Refuse ``what`` (a sentence's subject: "The items × raters matrix of …") when it
    would need more than :data:`SHARE` of :func:`available`: a :class:`QwkitError`
    naming ``parameter``, with what it needs, what is available and what to do
    ``instead``."""
    left = available()
    if left is not None and need > SHARE * left:
        raise QwkitError(
            f"{what} would need {_bytes(need)} of memory; {_bytes(left)} are available; {instead}",
            parameter=parameter,
        )
