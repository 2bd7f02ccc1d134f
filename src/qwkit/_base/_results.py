"""Helpers shared by the frozen result dataclasses of every module."""

from __future__ import annotations

import math
from dataclasses import fields

import numpy as np

__all__ = [
    "MAX_LISTED_LABELS",
    "freeze_arrays",
    "labels_dict",
    "plain",
    "public_module",
    "reduce_dataclass",
    "result_dict",
]

#: A scale wider than this is described by its size only in ``to_dict()``.
MAX_LISTED_LABELS = 10_000


def freeze_arrays(obj) -> None:
    """Give every ndarray field of a frozen dataclass a read-only copy of its own.

    Called from ``__post_init__``: a result never shares memory with the caller's
    arrays and cannot be changed in place, also after ``pickle`` or ``copy.deepcopy``,
    which rebuild it through ``__init__`` (:func:`reduce_dataclass`).
    """
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, np.ndarray):
            arr = np.array(value)  # a copy
            arr.flags.writeable = False
            object.__setattr__(obj, f.name, arr)


def reduce_dataclass(obj):
    """``__reduce__`` of a frozen result dataclass: rebuilt through ``__init__``."""
    return (type(obj), tuple(getattr(obj, f.name) for f in fields(obj)))


def plain(value, *, json: bool = False):
    """numpy scalars and arrays → Python scalars and lists (recursively); nan stays nan,
    or (``json``: JSON has neither) nan and ±inf become None."""
    if isinstance(value, dict):
        return {str(k): plain(v, json=json) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, json=json) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist(), json=json)
    if isinstance(value, np.generic):
        value = value.item()
    if json and isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def labels_dict(labels) -> dict:
    """``labels`` and ``n_labels`` for ``to_dict()``: the scale as a list (None when it
    is wider than ``MAX_LISTED_LABELS``)."""
    n = len(labels)
    listed = plain(np.asarray(labels)) if n <= MAX_LISTED_LABELS else None
    return {"labels": listed, "n_labels": n}


def result_dict(obj, names, **extra) -> dict:
    """``{name: getattr(obj, name)}`` for ``names``, then ``extra``, as plain values."""
    out = {name: getattr(obj, name) for name in names}
    out.update(extra)
    return plain(out)


def public_module(*classes):
    """Report ``qwkit`` as the module of public classes (as ``qwkit.KappaTestResult``)."""
    for cls in classes:
        cls.__module__ = "qwkit"
