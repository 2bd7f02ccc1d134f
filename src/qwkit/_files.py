"""Writing files so that a failure never leaves a partial one: the one atomic writer.

A regular file is written to a temporary file beside it (one file system, so the rename
is atomic), created with ``open(..., "x")`` so that it honours the umask, and renamed
over the target only when complete; on any failure or interrupt the temporary file is
removed and the target is untouched.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["atomic_write"]


def atomic_write(target: Path | str, write: Callable[[IO], object], *, binary: bool) -> None:
    """Write through ``write(fh)`` to a new file beside ``target``, then ``os.replace`` it."""
    target = Path(target)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        if binary:
            with open(tmp, "xb") as fh:
                write(fh)
        else:
            with open(tmp, "x", newline="", encoding="utf-8") as fh:
                write(fh)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
