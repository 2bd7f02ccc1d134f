"""The thresholds file of ``qwkit thresholds fit -o FILE``: JSON with the cut points
("thresholds", ±inf written as "inf" / "-inf") and the class "labels".

Reading one checks everything a user could have edited: numbers (not booleans, not
too large for a float), labels all text or all numbers, and what
``qwkit.apply_thresholds`` checks (non-decreasing cut points, one more label than cut
points). Every error names the file.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

import qwkit
from qwkit.cli._errors import CliError

__all__ = ["read_thresholds", "thresholds_json"]

#: The largest thresholds file read (one with 10,000 labels is well below).
_MAX_BYTES = 64 * 2**20


def thresholds_json(cuts: np.ndarray) -> list:
    """Cut points for JSON: ±inf (empty end classes) as the strings "-inf" / "inf"."""
    return [float(c) if math.isfinite(c) else ("inf" if c > 0 else "-inf") for c in cuts]


def _cut_value(value) -> float:
    """One cut point of a thresholds file: a number, or "inf" / "-inf" (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError
    if isinstance(value, str) and value.strip().lower() not in ("inf", "-inf", "+inf"):
        raise ValueError
    return float(value)


def _file_labels(name: str, labels) -> np.ndarray | None:
    """The "labels" of a thresholds file: all text, or all numbers (not booleans)."""
    if labels is None:
        return None
    problem = None
    if not isinstance(labels, list) or not labels:
        problem = "must be a non-empty list"
    elif all(isinstance(v, str) for v in labels):
        return np.asarray(labels, dtype=str)
    elif any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in labels):
        problem = "must be all numbers or all text (true/false are neither)"
    elif all(isinstance(v, int) for v in labels):
        if any(abs(v) > 2**63 - 1 for v in labels):
            problem = "holds an integer outside the int64 range"
        else:
            return np.asarray(labels, dtype=np.int64)
    elif not all(math.isfinite(v) for v in labels):
        problem = "must be finite"
    else:
        try:
            return np.asarray(labels, dtype=np.float64)
        except OverflowError:
            problem = "holds a number too large for a float"
    shown = json.dumps(labels)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    raise CliError(f'thresholds file {name}: "labels" {problem}; got {shown}.')


def _read(text: str) -> tuple[str, bytes]:
    """The bytes of a thresholds file named on the command line (``-``: standard input;
    a named pipe works too), and how messages name it."""
    if text == "-":
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
        return "standard input", stdin.read(_MAX_BYTES + 1)
    path = Path(text)
    if path.is_dir():
        raise CliError(f"thresholds file '{path}' is a folder, not a JSON file.")
    if not path.exists():
        raise CliError(f"thresholds file '{path}' does not exist.")
    try:
        with open(path, "rb") as fh:
            return f"'{path}'", fh.read(_MAX_BYTES + 1)
    except OSError as exc:
        raise CliError(f"cannot read thresholds file '{path}': {exc.strerror or exc}.") from None


def read_thresholds(text: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Cut points and labels from a file written by ``qwkit thresholds fit`` (``-``:
    standard input), checked with ``qwkit.apply_thresholds`` (an error names the file)."""
    name, data = _read(str(text))
    if len(data) > _MAX_BYTES:
        raise CliError(f"thresholds file {name} is larger than any qwkit writes.")
    try:
        spec = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise CliError(f"thresholds file {name} is not valid JSON: {exc}.") from None
    if not isinstance(spec, dict) or "thresholds" not in spec:
        raise CliError(
            f'thresholds file {name} has no "thresholds" list; write it with '
            "`qwkit thresholds fit -o FILE`."
        )
    try:
        if not isinstance(spec["thresholds"], list):
            raise TypeError
        cuts = np.array([_cut_value(c) for c in spec["thresholds"]], dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        shown = json.dumps(spec["thresholds"])
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise CliError(
            f'thresholds file {name}: "thresholds" must be a list of numbers (or "inf", '
            f'"-inf"); got {shown}.'
        ) from None
    labels = _file_labels(name, spec.get("labels"))
    try:
        qwkit.apply_thresholds(np.zeros(1), cuts, labels=labels)
    except (ValueError, TypeError) as exc:
        raise CliError(f"thresholds file {name}: {exc}") from None
    return cuts, labels
