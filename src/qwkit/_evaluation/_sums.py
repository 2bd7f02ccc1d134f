"""Statistics of per-unit sums: value, influence, exact jackknife and bootstrap in one place.

Every statistic of the scorer evaluation is θ = f(S), a smooth function of the column
sums S = Σ_g Z_g of one row of numbers per unit — the moments or margins of a pair of
raters, PRMSE's sums of squares — because the units are the sampling units: the items,
or the clusters that hold them (``cluster=``: a unit's row is the sum of its items' rows,
:func:`by_cluster`, so every method below becomes cluster-robust — the delete-one-cluster
jackknife, the cluster bootstrap, the influence of a cluster). From the rows Z (G units ×
p sums) and f alone (eq. numbers of ``docs/evaluation.md``):

- the influence of item g, IF_g = ∇f(S)·(G·Z_g − S), the delta method (eq. 3), with the
  gradient by complex-step differentiation, exact to rounding (Squire & Trapp 1998);
- the asymptotic variance Σ_g IF_g² / G² (eq. 4);
- the exact delete-one-item jackknife θ_(g) = f(S − Z_g) (eq. 5), in O(G·p);
- the bootstrap θ* = f(Σ_g V_g·Z_g), V the multinomial counts of a resample (eq. 6).

Intervals and tests on these are ``qwkit._evaluation._estimates``'.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Blocks", "ItemSums", "by_cluster", "combine", "on_rows"]

#: Numbers held at once by a jackknife or bootstrap chunk (8 MiB of float64).
_CHUNK = 1 << 20
#: Cluster sums of a sparse z kept dense up to this many cells (clusters × sums).
_DENSE_CELLS = 1 << 24
#: Relative step of the complex-step derivative: far below rounding, never cancelling.
_STEP = 1e-20


def _sparse(z) -> bool:
    return not isinstance(z, (np.ndarray, Blocks))


class Blocks:
    """The rows of several statistics of the same items side by side, kept as they are
    (``combine``): each block a dense (p, G) array or a sparse (G, p) matrix. Nothing is
    copied — totals, influences, delete-one sums and resamples are taken block by
    block."""

    __slots__ = ("blocks", "n_items", "width")

    def __init__(self, blocks):
        flat = []
        for b in blocks:
            flat.extend(b.blocks if isinstance(b, Blocks) else [b])
        self.blocks = tuple(flat)
        self.n_items = int(_items(flat[0]))
        self.width = int(sum(_width(b) for b in flat))

    def total(self) -> np.ndarray:
        return np.concatenate([_total(b) for b in self.blocks])

    def rows(self, lo: int, hi: int) -> np.ndarray:
        return np.hstack([_rows(b, lo, hi) for b in self.blocks])

    def project(self, grad: np.ndarray) -> np.ndarray:
        """Σ_j z_gj·grad_j for every item g."""
        out = np.zeros(self.n_items)
        start = 0
        for b in self.blocks:
            w = _width(b)
            out += _project(b, grad[start : start + w])
            start += w
        return out

    def weighted(self, counts: np.ndarray) -> np.ndarray:
        """counts (B, G) @ rows: the sums of B resamples."""
        return np.hstack([_weighted(b, counts) for b in self.blocks])

    def clustered(self, codes: np.ndarray, n_clusters: int) -> Blocks:
        return Blocks([_clustered(b, codes, n_clusters) for b in self.blocks])


def _items(z) -> int:
    if isinstance(z, Blocks):
        return z.n_items
    return z.shape[0] if _sparse(z) else z.shape[1]


def _width(z) -> int:
    if isinstance(z, Blocks):
        return z.width
    return z.shape[1] if _sparse(z) else z.shape[0]


def _total(z) -> np.ndarray:
    if isinstance(z, Blocks):
        return z.total()
    if _sparse(z):
        return np.asarray(z.sum(axis=0), dtype=np.float64).ravel()
    return z.sum(axis=1)


def _rows(z, lo: int, hi: int) -> np.ndarray:
    if isinstance(z, Blocks):
        return z.rows(lo, hi)
    if _sparse(z):
        return z[lo:hi].toarray()
    return z[:, lo:hi].T


def _project(z, grad: np.ndarray) -> np.ndarray:
    if isinstance(z, Blocks):
        return z.project(grad)
    return np.asarray(z @ grad) if _sparse(z) else grad @ z


def _weighted(z, counts: np.ndarray) -> np.ndarray:
    if isinstance(z, Blocks):
        return z.weighted(counts)
    return np.asarray((z.T @ counts.T).T) if _sparse(z) else counts @ z.T


def _clustered(z, codes: np.ndarray, n_clusters: int):
    """The sums of ``z`` over each cluster's items (``codes``: each item's cluster), by
    counting (no sort, no one-hot product): dense (p, C), or CSR (C, p) for a wide
    sparse ``z`` with many clusters."""
    from scipy import sparse

    if isinstance(z, Blocks):
        return z.clustered(codes, n_clusters)
    if _sparse(z):
        coo = z.tocoo()
        p = coo.shape[1]
        cells = codes[coo.row]
        if n_clusters * p <= _DENSE_CELLS:
            flat = np.bincount(cells * p + coo.col, weights=coo.data, minlength=n_clusters * p)
            return np.ascontiguousarray(flat.reshape(n_clusters, p).T)
        return sparse.csr_array((coo.data, (cells, coo.col)), shape=(n_clusters, p))
    return np.stack([np.bincount(codes, weights=row, minlength=n_clusters) for row in z])


@dataclass(frozen=True, slots=True, eq=False)
class ItemSums:
    """θ = f(S), S the sums over items of ``z``: a float64 ndarray of shape (p, G) —
    one contiguous row per sum — a scipy sparse CSR matrix of shape (G, p) (one row
    per item, for tables), or :class:`Blocks` of both. ``f`` maps (..., p) arrays to
    (...) arrays, real or complex (no ``abs``, ``max`` or comparisons: the gradient is
    taken in complex arithmetic)."""

    z: Any  # (p, G): an ndarray, a scipy sparse array or Blocks
    f: Callable[[np.ndarray], np.ndarray]
    #: ∇f(S), when f is built from parts (``combine``: the chain rule); else complex steps
    grad: Callable[[np.ndarray], np.ndarray] | None = None

    @property
    def n_items(self) -> int:
        return int(_items(self.z))

    @property
    def width(self) -> int:
        return int(_width(self.z))

    def total(self) -> np.ndarray:
        return _total(self.z)

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Items lo..hi as a dense (hi − lo, p) block."""
        return _rows(self.z, lo, hi)

    def at(self, sums: np.ndarray) -> np.ndarray:
        """f of one or many sum vectors (0/0 gives nan, silently: callers warn)."""
        with np.errstate(all="ignore"):
            return np.asarray(self.f(sums))

    def value(self, total: np.ndarray | None = None) -> float:
        return float(self.at(self.total() if total is None else total).real)

    def gradient(self, total: np.ndarray) -> np.ndarray:
        """∇f(S) by complex steps, one vectorized call of f."""
        if self.grad is not None:
            return self.grad(total)
        return _complex_step(self.at, total)

    def influence(self, total: np.ndarray | None = None) -> np.ndarray:
        """IF_g = ∇f(S)·(G·Z_g − S) for every item (eq. 3)."""
        s = self.total() if total is None else total
        grad = self.gradient(s)
        return self.n_items * _project(self.z, grad) - float(s @ grad)

    def leave_one_out(self, total: np.ndarray | None = None) -> np.ndarray:
        """θ_(g) = f(S − Z_g) for every item g (eq. 5), in chunks of items."""
        s = self.total() if total is None else total
        g = self.n_items
        out = np.empty(g)
        step = max(1, _CHUNK // max(self.width, 1))
        for lo in range(0, g, step):
            out[lo : lo + step] = self.at(s - self.rows(lo, min(g, lo + step))).real
        return out

    def resample(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        """θ* of ``n_resamples`` bootstrap resamples of the items (eq. 6)."""
        g = self.n_items
        out = np.empty(n_resamples)
        step = max(1, _CHUNK // max(g, 1))
        for lo in range(0, n_resamples, step):
            b = min(step, n_resamples - lo)
            draws = rng.integers(0, g, size=(b, g)) + (g * np.arange(b))[:, None]
            counts = np.bincount(draws.ravel(), minlength=b * g).reshape(b, g)
            counts = counts.astype(np.float64)
            out[lo : lo + b] = self.at(_weighted(self.z, counts)).real
        return out


def _complex_step(fun, x: np.ndarray) -> np.ndarray:
    """∇fun(x) from one vectorized call on x + i·h·e_j for every j (Squire & Trapp 1998)."""
    h = _STEP * np.maximum(np.abs(x), 1.0)
    return fun(x + 1j * np.diag(h)).imag / h


#: A statistic of some items is placed among all in dense rows up to this many numbers
#: (as many as its own rows would take, or a few MB), in sparse rows beyond.
_PLACE_DENSE = 1 << 20


def on_rows(stat: ItemSums, rows: np.ndarray, n_items: int) -> ItemSums:
    """``stat`` of some of ``n_items`` items (``rows``, their positions), as a statistic
    of all of them: the other items add zero rows — dense when that costs no more than a
    few times the statistic's own rows, else sparse (memory in proportion to the rows
    that are there)."""
    from scipy import sparse

    if isinstance(stat.z, Blocks):
        blocks = [on_rows(ItemSums(b, stat.f), rows, n_items).z for b in stat.z.blocks]
        return ItemSums(Blocks(blocks), stat.f, stat.grad)
    p = stat.width
    if not _sparse(stat.z) and p * n_items <= max(4 * stat.z.size, _PLACE_DENSE):
        z = np.zeros((p, n_items))
        z[:, rows] = stat.z
        return ItemSums(z, stat.f, stat.grad)
    if _sparse(stat.z):
        coo = stat.z.tocoo()
        r, c, data = rows[coo.row], coo.col, coo.data
    else:
        p, g = stat.z.shape
        r, c, data = np.repeat(rows, p), np.tile(np.arange(p), g), stat.z.T.ravel()
    z = sparse.csr_array((data, (r, c)), shape=(n_items, stat.width), dtype=np.float64)
    return ItemSums(z, stat.f, stat.grad)


def combine(parts: Sequence[ItemSums], f: Callable[..., np.ndarray]) -> ItemSums:
    """One statistic f(θ₁(S₁), θ₂(S₂), …) of several on the same items: their sums side
    by side (:class:`Blocks`, nothing copied); its gradient by the chain rule, so that its
    cost grows with the number of parts, not with the square of all their sums."""
    widths = np.cumsum([0] + [p.width for p in parts])
    z = Blocks([p.z for p in parts])
    slices = [slice(int(a), int(b)) for a, b in itertools.pairwise(widths)]
    fs = [p.f for p in parts]

    def joint(s):
        return f(*(fi(s[..., sl]) for fi, sl in zip(fs, slices, strict=True)))

    def joint_gradient(s):
        values = np.array([complex(fi(s[sl])) for fi, sl in zip(fs, slices, strict=True)])
        outer = _complex_step(lambda v: f(*(v[..., k] for k in range(v.shape[-1]))), values.real)
        return np.concatenate(
            [w * p.gradient(s[sl]) for w, p, sl in zip(outer, parts, slices, strict=True)]
        )

    return ItemSums(z, joint, joint_gradient)


def by_cluster(stat: ItemSums, codes: np.ndarray, n_clusters: int) -> ItemSums:
    """``stat`` with one row per cluster, the sum of its items' rows (``codes``: each
    item's cluster, 0 … n_clusters − 1): the same estimate (the same total), with the
    cluster as the sampling unit. A cluster without items here adds a zero row, which
    changes nothing but the count of units: callers pass the clusters that occur."""
    return ItemSums(_clustered(stat.z, codes, n_clusters), stat.f, stat.grad)
