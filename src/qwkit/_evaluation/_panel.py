"""Kappa of a candidate rater against a panel of reference ratings, as per-item sums.

Item g has one candidate score x_g (a machine, or one human) and one or more reference
ratings y_gr (the other humans); kappa pools the pairs (y_gr, x_g) of every item — with
one reference per item it is plain weighted kappa of two raters. As sums of per-item
rows (``_sums.ItemSums``) it gets its influence, jackknife and bootstrap for free:

- quadratic weights, the moment form (eq. 1 of ``docs/evaluation.md``, Vaughn &
  Justice's alternate form): rows (k, Σy, k·x, Σy², k·x², x·Σy) with k the number of
  reference ratings; κ = 2(N·Sxy − Sy·Sx) / (N·(Syy + Sxx) − 2·Sy·Sx). Real-valued
  candidates enter as they are (the continuous form, ``soft_kappa_score``);
- any other weights, the table form (eq. 2): rows (k, d, reference histogram, k at the
  candidate's category) with d = Σ_r W[y_gr, x_g]; κ = 1 − N·D / (Pᵀ W Q).

Missing references are NaN; an item without any reference adds nothing (a zero row).
"""

from __future__ import annotations

import numpy as np

from qwkit._evaluation._sums import ItemSums

__all__ = ["kappa_sums"]


def _quadratic(s: np.ndarray) -> np.ndarray:
    n, sy, sx, syy, sxx, sxy = (s[..., j] for j in range(6))
    return 2.0 * (n * sxy - sy * sx) / (n * (syy + sxx) - 2.0 * sy * sx)  # (eq. 1)


def _moment_rows(candidate: np.ndarray, reference: np.ndarray) -> np.ndarray:
    z = np.empty((6, candidate.shape[0]))
    if reference.shape[1] == 1 and not np.isnan(reference).any():  # two raters, complete
        shift = float(np.mean(reference))  # kappa does not move with a common shift
        z[0] = 1.0
        y = np.subtract(reference[:, 0], shift, out=z[1])
        x = np.subtract(candidate, shift, out=z[2])
        np.multiply(y, y, out=z[3])
        np.multiply(x, x, out=z[4])
        np.multiply(x, y, out=z[5])
        return z
    present = ~np.isnan(reference)
    shift = float(np.mean(reference[present]))
    k = present.sum(axis=1, out=z[0], dtype=np.float64)
    x = np.where(k > 0, candidate - shift, 0.0)  # an item without references adds nothing
    y = np.where(present, reference - shift, 0.0)
    sy = y.sum(axis=1, out=z[1])
    np.multiply(k, x, out=z[2])
    np.einsum("ij,ij->i", y, y, out=z[3])
    np.multiply(z[2], x, out=z[4])
    np.multiply(x, sy, out=z[5])
    return z


class _Table:
    """κ = 1 − N·D / (Pᵀ W Q) of the rows (N, D, P (K), Q (K)) (eq. 2)."""

    __slots__ = ("k", "wmat")

    def __init__(self, wmat: np.ndarray):
        self.wmat = wmat
        self.k = wmat.shape[0]

    def __call__(self, s: np.ndarray) -> np.ndarray:
        k = self.k
        p, q = s[..., 2 : 2 + k], s[..., 2 + k : 2 + 2 * k]
        expected = np.einsum("...i,ij,...j->...", p, self.wmat, q)
        return 1.0 - s[..., 0] * s[..., 1] / expected  # (eq. 2)


#: Table rows are dense (2 + 2K) × G arrays up to this many numbers, sparse beyond.
_DENSE = 1 << 22


def _table_rows(candidate: np.ndarray, reference: np.ndarray, wmat: np.ndarray):
    from scipy import sparse

    k = wmat.shape[0]
    g, r = reference.shape
    present = reference >= 0
    counts = present.sum(axis=1)
    x = np.where(counts > 0, candidate, 0).astype(np.intp)
    y = np.where(present, reference, 0).astype(np.intp)
    d = np.where(present, wmat[y, x[:, None]], 0.0).sum(axis=1)
    if (2 + 2 * k) * g <= _DENSE:  # small: one dense row per sum
        z = np.zeros((2 + 2 * k, g))
        z[0], z[1] = counts, d
        items = np.repeat(np.arange(g), r).reshape(g, r)[present]
        np.add.at(z, (2 + y[present], items), 1.0)
        z[2 + k + x, np.arange(g)] = counts
        return z
    if r == 1:  # one reference: four entries per row, in column order — CSR directly
        indices = np.empty((g, 4), dtype=np.intp)
        indices[:, 0], indices[:, 1] = 0, 1
        indices[:, 2], indices[:, 3] = 2 + y[:, 0], 2 + k + x
        data = np.empty((g, 4))
        data[:, 0], data[:, 1], data[:, 2], data[:, 3] = counts, d, counts, counts
        return sparse.csr_array(
            (data.ravel(), indices.ravel(), np.arange(0, 4 * g + 1, 4)), shape=(g, 2 + 2 * k)
        )
    items = np.repeat(np.arange(g), r).reshape(g, r)[present]
    hist = sparse.csr_array(
        (np.ones(items.size), (items, y[present])), shape=(g, k), dtype=np.float64
    )
    cand = sparse.csr_array(
        (counts.astype(np.float64), (np.arange(g), x)), shape=(g, k), dtype=np.float64
    )
    head = sparse.csr_array(np.column_stack((counts.astype(np.float64), d)))
    return sparse.hstack((head, hist, cand), format="csr")


def kappa_sums(candidate: np.ndarray, reference: np.ndarray, wmat: np.ndarray | None) -> ItemSums:
    """Kappa of ``candidate`` (G,) against ``reference`` (G,) or (G, R) as item sums.

    ``wmat`` None: quadratic weights on float positions or scores (NaN = no reference).
    Otherwise the (K, K) disagreement matrix indexed [reference, candidate] and float
    category codes (NaN = no reference).
    """
    reference = reference.reshape(reference.shape[0], -1)
    if wmat is None:
        return ItemSums(_moment_rows(candidate, reference), _quadratic)
    codes = np.where(np.isnan(reference), -1, reference).astype(np.intp)
    return ItemSums(_table_rows(candidate, codes, wmat), _Table(wmat))
