"""What every benchmark records about the machine it ran on.

A shared machine changes absolute times from run to run; ratios measured side by side
in one process change much less. Each script prints these lines with its results: the
processor (and the target numba compiles for), the number of cores and threads used,
the library versions, the scheduling priority (``nice``) and the load average at the
start and at the end of the run.
"""

from __future__ import annotations

import os
import platform

_LOAD_AT_IMPORT = os.getloadavg()


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def llvm_target() -> str:
    try:
        import llvmlite.binding as llvm

        return llvm.get_host_cpu_name()
    except Exception:  # pragma: no cover - informational only
        return "?"


def emit(text: str, append=None) -> None:
    """Print a benchmark's markdown, and append it to the file ``append`` (if given)."""
    print(text)
    if append:
        with open(append, "a", encoding="utf-8") as fh:
            fh.write("\n" + text)


def describe(threads: str = "one thread", extra: dict[str, str] | None = None) -> list[str]:
    """Markdown bullet lines: machine, versions, priority and load (start of the run =
    when this module was imported)."""
    import numba
    import numpy as np

    import qwkit

    versions = {
        "Python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "qwkit": qwkit.__version__,
    }
    versions.update(extra or {})
    load = ", ".join(f"{x:.2f}" for x in _LOAD_AT_IMPORT)
    now = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        f"- machine: {cpu_name()}, {os.cpu_count()} cores (LLVM target `{llvm_target()}`), "
        f"{platform.system()} {platform.machine()}; {threads}",
        "- " + ", ".join(f"{k} {v}" for k, v in versions.items()),
        f"- priority: nice {os.nice(0)}; load average (1, 5, 15 min) at the start {load}, "
        f"at the end {now} (other work on the machine slows everything; ratios are "
        "measured side by side)",
    ]
