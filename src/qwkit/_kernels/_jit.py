"""The one set of numba options of every kernel.

Compiled lazily on first call (``import qwkit`` and the command line start fast),
cached on disk, and released from the GIL. Never ``fastmath``: every kernel is exact.
"""

JIT = {"cache": True, "nogil": True}
