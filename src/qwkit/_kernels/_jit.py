"""The numba options of every kernel, and when a kernel uses threads.

Compiled lazily on first call (``import qwkit`` and the command line start fast),
cached on disk, and released from the GIL. Never ``fastmath``: every kernel is exact.

The cache: numba writes each compiled kernel beside its source, in ``_kernels/__pycache__``
of the installed package, so that only the first process after an install compiles; where
that folder is read-only, in the user's cache folder (``~/.cache/numba`` on Linux), or in
``NUMBA_CACHE_DIR`` when it is set. Where none of them can be written, numba refuses
``cache=True`` when a kernel is defined — which would make ``import qwkit`` fail — so the
kernels are then compiled in every process instead (:data:`CACHE` is False).

Large inputs are split into chunks that numba's thread pool (``parallel=True``,
``prange``) processes on several cores; how many is numba's setting
(``numba.set_num_threads`` or the ``NUMBA_NUM_THREADS`` environment variable). Every
threaded kernel adds integers (exact sums), so its result does not depend on the
number of threads or on where the chunks begin: the same bits for any setting.
"""

from __future__ import annotations

from typing import TypedDict

import numba


class JitOptions(TypedDict, total=False):
    """Keyword options of ``numba.njit``, typed so that ``njit(**JIT)`` type-checks."""

    cache: bool
    nogil: bool
    parallel: bool


def _probe() -> int:  # pragma: no cover - never called, only defined with cache=True
    return 0


def _cache_possible() -> bool:
    """Whether numba finds a folder it can write its cache of this folder's kernels to."""
    try:
        numba.njit(cache=True)(_probe)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return False
    return True


#: Whether compiled kernels are cached on disk (see the module's docstring).
CACHE = _cache_possible()
JIT: JitOptions = {"cache": CACHE, "nogil": True}
#: Options of the threaded twins of the kernels.
PARALLEL: JitOptions = {"cache": CACHE, "nogil": True, "parallel": True}
#: Items per chunk of a threaded kernel (a multiple of 64).
CHUNK = 1 << 16
#: Below this many items a kernel runs on the calling thread: waking the pool costs
#: more than the work it would share. Measured (benchmarks/README.md, "Threads"): two
#: threads lose below 2**16 items and win by 1.4-1.6x at 2**18.
THREAD_MIN_ITEMS = 1 << 18


def n_threads() -> int:
    """How many threads numba's pool runs (``numba.set_num_threads``)."""
    return numba.get_num_threads()


def threaded(n_items: int) -> bool:
    """Whether a pass over ``n_items`` items should use the thread pool."""
    return n_items >= THREAD_MIN_ITEMS and numba.get_num_threads() > 1


def is_kernel(value) -> bool:
    """Whether ``value`` is a compiled kernel (a numba dispatcher)."""
    return isinstance(value, numba.core.dispatcher.Dispatcher)


def interruptible(kernel):
    """``kernel`` as Python callers call it, with an interrupt raised as an interrupt.

    A signal that arrives while compiled code runs (Ctrl-C, or the command line's SIGTERM
    handler) is handled when Python code next runs, and numba runs some while it builds
    the arrays a kernel returns (it rebuilds their type from a pickle). The
    ``KeyboardInterrupt`` is then raised there; numba (0.68) does not check the items of a
    returned tuple, so it hands back the tuple with the exception set, and Python reports
    ``SystemError: ... returned a result with an exception set``, caused by the interrupt
    (through a second such ``SystemError`` when numba went on to build another array).
    This wrapper raises that cause instead: an interrupt reads as an interrupt, whatever
    the kernel was doing.
    """

    def call(*args):
        try:
            return kernel(*args)
        except SystemError as exc:
            cause = exc.__cause__
            while isinstance(cause, SystemError) and cause.__cause__ is not None:
                cause = cause.__cause__
            if cause is None:
                raise
            raise cause from None

    call.__name__ = call.__qualname__ = kernel.__name__
    call.__module__ = "qwkit._kernels"  # pickled by reference, as the package exports it
    call.__doc__ = kernel.__doc__
    call.__wrapped__ = kernel
    return call
