"""Kappa of the judge's classes against every human rating, and its standard errors
with the items as clusters (eq. C6 of ``docs/calibration.md``).

Each human rating is a row paired with its item's judge class; an item rated by three
people is three rows. Kappa is that of the pooled (human × judge class) table (eq. 1 of
``docs/inference.md``); its delta-method variance sums the influence (eq. 3 there) of the
rows of each item before squaring, since the ratings of one item share its judge class
and its story: the sandwich variance with items as clusters.
"""

from __future__ import annotations

import math

import numpy as np

from qwkit._table._cells import CellKappa

__all__ = ["cluster_variance", "rows_kappa"]


def rows_kappa(t: np.ndarray, a: np.ndarray, wmat: np.ndarray) -> float:
    """κ of the rows' (human position, judge class) table; nan when undefined."""
    return CellKappa(rows=t, cols=a, wmat=wmat).value(np.ones(t.shape[0]))


def cluster_variance(t, a, b, item, n_items: int, wmat) -> float:
    """Var κ(t, a) — or, with ``b``, Var[κ(t, a) − κ(t, b)] — with the rows' influence
    summed within items (eq. C6); nan when a kappa is undefined."""
    w = np.ones(t.shape[0])
    model_a = CellKappa(rows=t, cols=a, wmat=wmat)
    ka = model_a.value(w)
    if math.isnan(ka):
        return math.nan
    g = model_a.influence(w, ka)  # (eq. 3 of docs/inference.md)
    if b is not None:
        model_b = CellKappa(rows=t, cols=b, wmat=wmat)
        kb = model_b.value(w)
        if math.isnan(kb):
            return math.nan
        g = g - model_b.influence(w, kb)
    total = float(t.shape[0])
    per_item = np.bincount(item, weights=g - g.mean(), minlength=n_items)
    return float(np.dot(per_item, per_item)) / (total * total)  # (eq. C6)
