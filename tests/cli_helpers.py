"""Helpers shared by the command-line tests: run ``qwkit`` in-process (typer's CliRunner)
or as a real process, and check the one-line errors."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from typer.testing import CliRunner

import qwkit
from qwkit.cli._app import app

DATA = Path(__file__).parent / "data"
# R package irr 0.84.1, dataset `anxiety`: 20 items, three raters (provenance in line 1).
ANXIETY = DATA / "irr_anxiety.csv"
# R package psy 1.2, dataset `expsy`: three clinicians, 30 patients, NA present.
EXPSY = DATA / "psy_expsy_r1_r2_r3.csv"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# R irr 0.84.1: kappa2(anxiety[, 1:2], "squared") prints Kappa = 0.297, z = 1.34,
# p-value = 0.18 (the same published value as the kappa_test docstring).
RATER1 = [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3]
RATER2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]
#: A thresholds file's content: cut points 1 and 2 of the scale 1, 2, 3.
SPEC_1_2_3 = {"thresholds": [1.0, 2.0], "labels": [1, 2, 3]}
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


def as_json(*args, **kwargs):
    """The JSON object a command prints with ``--json``."""
    return json.loads(ok(*args, "--json", **kwargs).stdout)


def expsy_columns():
    """The columns of EXPSY as object arrays (None where a rating is missing)."""
    table = pacsv.read_csv(EXPSY, read_options=pacsv.ReadOptions(skip_rows=1))
    return {c: np.array(table.column(c).to_pylist(), dtype=object) for c in table.column_names}


def write_wine_files(folder: Path):
    """Least-squares scores of the bundled red wines, in every supported format, written
    to ``folder``: ``(files by format, the columns)`` (each test module's ``wine_files``
    fixture)."""
    wine = qwkit.load_wine_quality("red")
    design = np.column_stack([np.ones(len(wine.y)), wine.X])
    coef, *_ = np.linalg.lstsq(design, wine.y, rcond=None)
    score = design @ coef
    rounded = np.clip(np.rint(score), 3, 8).astype(np.int64)
    rng = np.random.default_rng(20261121)
    other = np.clip(rounded + rng.integers(-1, 2, len(rounded)), 3, 8)
    table = pa.table(
        {
            "quality": wine.y,
            "ls_score": score,
            "ls_rounded": rounded,
            "noisy": other,
            "weight": rng.integers(1, 4, len(rounded)),
        }
    )
    files = {
        "csv": folder / "wine.csv",
        "tsv": folder / "wine.tsv",
        "parquet": folder / "wine.parquet",
        "gz": folder / "wine.csv.gz",
        "semicolon": folder / "wine.txt",
    }
    pacsv.write_csv(table, files["csv"])
    pacsv.write_csv(table, files["tsv"], write_options=pacsv.WriteOptions(delimiter="\t"))
    pacsv.write_csv(table, files["semicolon"], write_options=pacsv.WriteOptions(delimiter=";"))
    pq.write_table(table, files["parquet"])
    files["gz"].write_bytes(gzip.compress(files["csv"].read_bytes()))
    arrays = {name: table.column(name).to_numpy() for name in table.column_names}
    return files, arrays


def png_images(html_text: str) -> list[bytes]:
    found = re.findall(r'<img [^>]*src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html_text)
    return [base64.b64decode(x) for x in found]


def write_file(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def spec_file(tmp_path: Path, **content) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(content))
    return path
