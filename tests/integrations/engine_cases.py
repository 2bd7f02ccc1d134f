"""Random cases for the engines (qwkit.duckdb, qwkit.spark, qwkit.sql): two raters'
ratings, grouped, with the in-memory results they must equal to the last bit."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
import pyarrow as pa

import qwkit

SEED = 20261121
MATRIX = np.random.default_rng(SEED).random((6, 6)) * (1 - np.eye(6))


@dataclass
class Case:
    """Ratings ``a``, ``b`` of one kind, a group per row, and what to call with."""

    name: str
    a: np.ndarray
    b: np.ndarray
    group: np.ndarray
    weights: object = "quadratic"
    labels: object = None

    def table(self) -> pa.Table:
        return pa.table({"a": self.a, "b": self.b, "g": self.group})

    def groups(self):
        for key in np.unique(self.group):
            rows = self.group == key
            yield key.item(), self.a[rows], self.b[rows]


def cases(seed: int = SEED, n: int = 400) -> list[Case]:
    """One case of each kind: a short scale, a wide one (ratings up to 2**63), ratings
    beyond 2**53, negative ratings, text on labels, a custom weight matrix, 100 groups."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 7, n)
    short = rng.integers(1, 6, n)
    near = np.clip(short + rng.integers(-1, 2, n), 1, 5)
    wide = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    wide_b = wide.copy()
    wide_b[::3] = rng.integers(-(2**63), 2**63 - 1, (n + 2) // 3, dtype=np.int64)
    big = 2**62 + rng.integers(0, 40, n)  # beyond 2**53: float64 would merge them
    big_b = big + rng.integers(-2, 3, n)
    neg = rng.integers(-3, 12, n)
    neg_b = np.clip(neg + rng.integers(-2, 3, n), -3, 11)
    words = np.array(["low", "mid", "high", "top"])
    ia = rng.integers(0, 4, n)
    ib = np.clip(ia + rng.integers(-1, 2, n), 0, 3)
    six = rng.integers(0, 6, n)
    six_b = np.clip(six + rng.integers(-2, 3, n), 0, 5)
    hundred = rng.integers(0, 100, 20 * n)
    h_a = rng.integers(0, 5, 20 * n)
    h_b = np.clip(h_a + rng.integers(-1, 2, 20 * n), 0, 4)
    return [
        Case("short", short, near, g),
        Case("short-linear", short, near, g, weights="linear"),
        Case("short-identity", short, near, g, weights="identity"),
        Case("short-labels", short, near, g, labels=[0, 1, 2, 3, 4, 5, 6]),
        Case("wide", wide, wide_b, g),
        Case("beyond-2**53", big, big_b, g),
        Case("beyond-2**53-linear", big, big_b, g, weights="linear"),
        Case("negative", neg, neg_b, g, weights="linear"),
        Case("text", words[ia], words[ib], g, labels=["low", "mid", "high", "top"]),
        Case("matrix", six, six_b, g, weights=MATRIX, labels=list(range(6))),
        Case("100-groups", h_a, h_b, hundred),
    ]


def same(x, y, rtol: float = 0.0) -> bool:
    """Equal to the last bit: floats by their bits (NaN equals NaN), arrays elementwise,
    result dataclasses field by field, dicts key by key. With ``rtol``, floats may differ
    by that much relative to the larger: a statistic summed in floating point over items
    that an engine returns in its own order (kappa's sums are exact integers and need
    none)."""
    if isinstance(x, dict):
        return (
            isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k], rtol) for k in x)
        )
    if isinstance(x, float):
        if not isinstance(y, float):
            return False
        if x == y or (math.isnan(x) and math.isnan(y)):
            return True
        return abs(x - y) <= rtol * max(abs(x), abs(y))
    if isinstance(x, np.ndarray):
        nan = x.dtype.kind in "fc"
        return isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y, nan)
    if hasattr(x, "__dataclass_fields__"):
        return type(x) is type(y) and all(
            same(getattr(x, f.name), getattr(y, f.name), rtol)
            for f in fields(x)
            if not f.name.startswith("_") and f.name != "certificate"
        )
    return x == y


#: Agreement coefficients are floating-point sums over items; an engine returns the items'
#: distinct profiles in its own order, which may move the last bits (measured: a
#: coefficient 1 ulp, a p-value of 1e-14 by 5e-15 relative, the t tail amplifying it).
ITEM_ORDER_RTOL = 1e-12


def results_equal(x, y) -> bool:
    """Test results equal: the fields, and both intervals (asymptotic and bootstrap)."""
    if not same(x, y):
        return False
    ci = [tuple(r.confidence_interval()) for r in (x, y)]
    boot = [
        tuple(r.confidence_interval(method="bootstrap", n_resamples=200, rng=1)) for r in (x, y)
    ]
    return all(same(float(p), float(q)) for p, q in zip(*ci, strict=True)) and all(
        same(float(p), float(q)) for p, q in zip(*boot, strict=True)
    )


def expected_by_group(case: Case, function, **kwargs) -> dict:
    return {
        key: function(a, b, weights=case.weights, labels=case.labels, **kwargs)
        for key, a, b in case.groups()
    }


def long_ratings(seed: int = SEED, n_items: int = 300, n_raters: int = 4):
    """A long table of ratings (item, rater, value) with missing ratings, three groups."""
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), n_raters)
    raters = np.tile(np.array([f"r{i}" for i in range(n_raters)]), n_items)
    truth = rng.integers(1, 6, n_items)
    values = np.clip(truth[items] + rng.integers(-1, 2, items.size), 1, 5).astype(np.float64)
    values[rng.random(items.size) < 0.2] = np.nan
    group = items % 3
    return items, raters, values, group


def in_memory_agreement(items, raters, values, function, **kwargs):
    table = qwkit.ratings_from_long(items, raters, values)
    return function(table, **kwargs)
