"""Helpers shared by the command-line tests: run ``qwkit`` in-process (typer's CliRunner)
or as a real process, and check the one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from qwkit.cli._app import app

DATA = Path(__file__).parent / "data"
# R package irr 0.84.1, dataset `anxiety`: 20 items, three raters (provenance in line 1).
ANXIETY = DATA / "irr_anxiety.csv"
#: Options that keep a report fast (the bootstrap histogram still has 200 resamples).
FAST_REPORT = ("--method", "asymptotic", "--n-resamples", "200")


def run(*args, env=None, input=None):
    """``qwkit *args`` in-process; ``input``: bytes or text on standard input."""
    runner = CliRunner()
    return runner.invoke(
        app, [str(a) for a in args], env={"COLUMNS": "160", **(env or {})}, input=input
    )


def ok(*args, **kwargs):
    result = run(*args, **kwargs)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def fails(*args, code=1, **kwargs):
    """Run a failing command: its exit code, one line on stderr, no traceback."""
    result = run(*args, **kwargs)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("qwkit: error: " if code == 1 else "qwkit: usage error: ")
    return lines[0]


def qwkit_process(*args, **kwargs) -> subprocess.Popen:
    """``python -m qwkit *args`` as a real process (for standard input, pipes, signals)."""
    env = {**os.environ, "COLUMNS": "160", **kwargs.pop("env", {})}
    return subprocess.Popen([sys.executable, "-m", "qwkit", *map(str, args)], env=env, **kwargs)


def folder_state(folder: Path) -> dict:
    """Every entry of a folder: its kind and, for a regular file, its bytes (a symbolic
    link as its target) — to check that a refused command changed nothing."""
    state = {}
    for entry in sorted(folder.iterdir()):
        if entry.is_symlink():
            state[entry.name] = ("link", os.readlink(entry))
        elif entry.is_file():
            state[entry.name] = ("file", entry.read_bytes(), entry.stat().st_ino)
        else:
            state[entry.name] = ("other", entry.stat().st_mode)
    return state
