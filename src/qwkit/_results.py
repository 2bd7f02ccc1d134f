"""Helpers shared by the frozen result dataclasses of every module."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

__all__ = ["freeze_arrays", "reduce_dataclass"]


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
