"""The package type-checks: mypy on ``src/qwkit`` and on a user's calls (``tests/typing``).

The configuration is ``[tool.mypy]`` in pyproject.toml (what is strict, which third-party
packages have no types, and the known gaps of each module). mypy runs in a subprocess, as
a user runs it, with its cache in ``.mypy_cache`` of the tree: a fresh clone checks every
module once (about a minute of one core), later runs only what changed (seconds).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
