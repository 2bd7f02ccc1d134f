"""Present cells: the contingency table of the inference, and kappa as a function of it.

Inference works on the *present cells* of a contingency table — the m cells that hold
at least one item, with Σw (the table entry) and Σw² per cell — never on a dense table
over the scale, so a wide integer scale costs nothing. Notation as in
``docs/inference.md``, whose equation numbers the code cites:

    N = Σ Tᵢⱼ,  rᵢ = Σⱼ Tᵢⱼ,  cⱼ = Σᵢ Tᵢⱼ,  O = Σ dᵢⱼ Tᵢⱼ,  S = rᵀ D c,
    κ = 1 − O·N / S                                                      (eq. 1)

:func:`tabulate` builds the cells of any number of rating columns (one cell per
distinct tuple of ratings: (y1, y2) for a kappa, (truth, a, b) for a paired
comparison); :class:`CellKappa` evaluates eq. 1 and its derivatives on them;
:class:`Sample` knows how to resample the items behind them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qwkit import _kernels
from qwkit._base._dyadic import ExactRows, exact_cell_sums
from qwkit._base._errors import QwkitError
from qwkit._base._item_weights import ItemWeights
from qwkit._base._numerics import unit_scale
from qwkit._base._scale import Ratings, measure_scale, positions
from qwkit._base._weights import resolve, weights_at
from qwkit._table._state import TableStats

__all__ = [
    "CellKappa",
    "Cells",
    "Sample",
    "influence_variance",
    "stats_cells",
    "survey_sums",
    "tabulate",
]

#: Bootstrap work is done in chunks of about this many float64 entries (16 MiB).
CHUNK_ENTRIES = 1 << 21
#: Resampled items drawn per chunk of a bootstrap of unequally weighted items.
DRAWS_PER_CHUNK = 1 << 22
_U64 = (1 << 64) - 1


def resample_draws(rng: np.random.Generator, items: np.ndarray, m: int, n_rows: int):
    """(n_rows, m) weighted tables of bootstrap resamples of the items (``items``: (n, 2)
    weight and cell): the draws of ``rng.integers(0, n, (n_rows, n))``, each item's
    weight added to its cell in the order drawn — ``np.bincount`` of those draws, bit
    for bit, with no (n_rows, n) array of indices. numpy's default bit generator (PCG64)
    is run inside the kernel, its state read from and written back to ``rng``."""
    n = items.shape[0]
    bitgen = rng.bit_generator
    if type(bitgen) is not np.random.PCG64:
        return _kernels.gather_tables(rng.integers(0, n, size=(n_rows, n)), items, m)
    state = bitgen.state
    s, inc = state["state"]["state"], state["state"]["inc"]
    words = [s >> 64, s & _U64, inc >> 64, inc & _U64, state["has_uint32"], state["uinteger"]]
    st = np.array(words, dtype=np.uint64)
    if n_rows > 1 and n < 2**31 and _kernels.threaded(n_rows * n):
        out = _kernels.resample_tables_par(st, items, m, n_rows)  # draws in order, sums shared
    else:
        out = _kernels.resample_tables(st, items, m, n_rows)
    state["state"]["state"] = int(st[0]) << 64 | int(st[1])
    state["has_uint32"], state["uinteger"] = int(st[4]), int(st[5])
    bitgen.state = state
    return out


#: A resampled chance-expected disagreement this small relative to the full sample's
#: is zero up to rounding: kappa is undefined there.
_REL_ZERO = 1e-12


# ---------------------------------------------------------------------------- resampling


@dataclass(frozen=True, slots=True)
class Sample:
    """What the bootstrap and jackknife need to know about the items.

    With unit weights (or none, or counts) the items are fully described by the integer
    count of every present cell: a bootstrap resample is one multinomial draw of the
    table (eq. 6). With unequal sample weights each item keeps its own cell and weight
    and the items themselves are resampled.
    """

    counts: np.ndarray  # float64 (m,): Σw per present cell
    counts_sq: np.ndarray  # float64 (m,): Σw² per present cell
    n_items: int
    item_cell: np.ndarray | None = None  # intp (n,): cell of each item (weighted only)
    item_weight: np.ndarray | None = None  # float64 (n,)
    #: Unequal survey weights whose items are not at hand (a merged state): why the
    #: rows cannot be resampled. The asymptotic variance needs only the cell sums.
    no_items: str | None = None

    @property
    def unit(self) -> bool:
        return self.item_cell is None and self.no_items is None

    def _check_items(self) -> None:
        if self.no_items is not None:
            raise QwkitError(self.no_items, parameter="method")

    @property
    def n_eff(self) -> float:
        """Kish's effective sample size (Σw)² / Σw² (= n for unit weights)."""
        return float(self.counts.sum() ** 2 / self.counts_sq.sum())

    def draws(self, n_resamples: int, rng: np.random.Generator):
        """Yield (b, m) float arrays of resampled cell weights, b rows at a time."""
        self._check_items()
        m = self.counts.shape[0]
        if self.unit:
            n = self.n_items
            pvals = self.counts / n
            step = max(1, CHUNK_ENTRIES // m)
            for start in range(0, n_resamples, step):
                b = min(step, n_resamples - start)
                yield rng.multinomial(n, pvals, size=b).astype(np.float64)  # (eq. 6)
            return
        # The draws of scipy.stats.bootstrap, rng.integers(0, n, (B, n)), made and summed
        # per cell by one kernel (resample_draws), in chunks of about 2**22 draws.
        n = self.item_cell.shape[0]
        items = np.empty((n, 2))
        items[:, 0] = self.item_weight
        items[:, 1] = self.item_cell
        step = max(1, min(CHUNK_ENTRIES // m, DRAWS_PER_CHUNK // n))
        for start in range(0, n_resamples, step):
            yield resample_draws(rng, items, m, min(step, n_resamples - start))

    def removals(self):
        """(cell, weight removed, multiplicity) of every distinct leave-one-out sample."""
        self._check_items()
        if self.unit:
            cell = np.arange(self.counts.shape[0])
            return cell, np.ones(cell.shape[0]), self.counts
        n = self.item_cell.shape[0]
        return self.item_cell, self.item_weight, np.ones(n)


def _sample_of(counts, counts_sq, item_cell, iw: ItemWeights, item_weight, n_items) -> Sample:
    if iw.values is None or iw.counts:
        return Sample(counts=counts, counts_sq=counts, n_items=n_items)
    if np.all(item_weight == item_weight[0]):
        # Equal weights: kappa and every SE are scale-free, so this is the unit case.
        unit = np.bincount(item_cell, minlength=counts.shape[0]).astype(np.float64)
        return Sample(counts=unit, counts_sq=unit, n_items=n_items)
    return Sample(counts, counts_sq, n_items, item_cell, item_weight)


# ---------------------------------------------------------------------------- cells


def _compress(cols: list[np.ndarray], k: int):
    """Codes 0..Ku−1 over the categories any rater used, and those categories' positions."""
    if k <= 4 * sum(p.shape[0] for p in cols) + 1024:
        present = np.zeros(k, dtype=bool)
        for p in cols:
            present[p.astype(np.intp, copy=False)] = True
        used = np.flatnonzero(present)
        lookup = np.cumsum(present) - 1
        return [lookup[p.astype(np.intp, copy=False)] for p in cols], used
    used = np.unique(np.concatenate(cols))
    return [np.searchsorted(used, p) for p in cols], used


def _cell_sums(cell_code: np.ndarray, n_codes: int, item_weight: np.ndarray | None, survey: bool):
    """Present cells of integer cell codes: (codes, Σw, Σw², item → cell or None, Σw
    as given).

    Survey weights are summed exactly (``_dyadic``) and rounded once per cell by
    :func:`survey_sums` (scaled), and as given (``finite_float``: scaled by one power
    of two only if a sum overflows): the sums do not depend on the order of the items.
    """
    small = n_codes <= max(1 << 20, 2 * cell_code.shape[0])
    if item_weight is None:
        if small:
            counts = np.bincount(cell_code, minlength=n_codes)
            present = np.flatnonzero(counts)
            c = counts[present].astype(np.float64)
        else:
            present, counts = np.unique(cell_code, return_counts=True)
            c = counts.astype(np.float64)
        return present, c, c, None, c
    if small:
        hit = np.bincount(cell_code, minlength=n_codes)
        present = np.flatnonzero(hit)
        lookup = np.full(n_codes, -1, dtype=np.intp)
        lookup[present] = np.arange(present.shape[0])
        item_cell = lookup[cell_code]
    else:
        present, item_cell = np.unique(cell_code, return_inverse=True)
    m = present.shape[0]
    if survey:
        sums, squares, _ = exact_cell_sums(item_cell, item_weight, m, squares=True)
        w, w2 = survey_sums(sums, squares, float(item_weight.max()))
        return present, w, w2, item_cell, sums.finite_float()
    w = np.bincount(item_cell, weights=item_weight, minlength=m)  # whole numbers: exact
    w2 = np.bincount(item_cell, weights=item_weight * item_weight, minlength=m)
    return present, w, w2, item_cell, w


#: The smallest normal float64: a cell's scaled Σw² below it has lost digits (subnormal)
#: or all of them (zero).
_TINY = float(np.finfo(np.float64).tiny)


def survey_sums(sums: ExactRows, squares: ExactRows, wmax: float):
    """(Σw, Σw²) per cell as float64: the exact sums times 2**−e and 2**−2e, e the
    exponent that brings the largest weight to [½, 1) (no sum of squares can overflow;
    kappa and its standard errors do not change), each rounded once.

    A cell whose weights are all more than about 2**511 below the largest weight has a
    Σw² that underflows there (subnormal or zero): its term of the sandwich variance
    would be lost, and a standard error computed anyway is wrong (zero, for one item of
    weight 10¹⁶⁵ among items of weight 1). That is refused, naming ``sample_weight``.
    """
    e = int(np.frexp(wmax)[1])
    w, w2 = sums.to_float(-e), squares.to_float(-2 * e)
    if np.any((w > 0) & (w2 < _TINY)):
        raise QwkitError(
            f"`sample_weight`: the weights of some cells are all more than 2**511 below the "
            f"largest ({wmax:.3g}), too far for standard errors in float64 (their squares "
            "underflow once the largest is scaled to 1). `kappa_score` gives kappa itself "
            "exactly; for inference, set the weights that are negligible to 0.",
            parameter="sample_weight",
        )
    return w, w2


@dataclass(frozen=True, slots=True)
class Cells:
    """The present cells of several rating columns.

    ``digits[c][i]`` is the category (0 … Ku − 1, over the Ku categories that occur) of
    column c in present cell i; ``wmat`` the (Ku, Ku) disagreement weights among those
    categories; ``sample`` the cell weights and how to resample them; ``used`` the
    positions on the scale of the Ku categories, and ``sums`` the Σw of each present cell
    in the item weights' own units (the table the user would count).
    """

    digits: tuple[np.ndarray, ...]
    wmat: np.ndarray
    sample: Sample
    used: np.ndarray
    sums: np.ndarray

    def table(self) -> tuple[np.ndarray, ...]:
        """The table as (scale position of each column's category, ..., Σw) per cell."""
        return (*(self.used[d] for d in self.digits), self.sums)


def tabulate(r: Ratings, iw: ItemWeights, weights, *, hint: str) -> Cells:
    """The present cells of the columns of ``r`` with item weights ``iw``.

    Items of zero weight are dropped (identical to never passing them); survey weights
    are scaled by a power of two (kappa and its standard errors do not change) so that
    sums of their squares can neither underflow nor overflow. ``hint`` completes the
    error of a weight matrix that does not fit the scale.
    """
    offset, k = measure_scale(r)
    cols = positions(r, offset)
    item_weight = iw.as_float()
    survey = item_weight is not None and not iw.counts
    if item_weight is not None:
        keep = item_weight > 0
        if not keep.all():
            cols, item_weight = [c[keep] for c in cols], item_weight[keep]
    n_rows = cols[0].shape[0]
    codes, used = _compress(cols, k)
    if isinstance(weights, str):
        wmat = weights_at(weights, used, k)
    else:
        idx = used.astype(np.intp)
        wmat = np.ascontiguousarray(resolve(weights, k, hint=hint)[np.ix_(idx, idx)])
    ku = used.shape[0]
    cell_code = codes[0].astype(np.int64)
    for c in codes[1:]:
        cell_code = cell_code * ku + c
    present, w, w2, item_cell, sums = _cell_sums(cell_code, ku ** len(codes), item_weight, survey)
    if survey:  # the items' own weights, for resampling: scaled as the sums
        item_weight = unit_scale(item_weight.copy())
    digits = []
    rest = present
    for _ in codes:
        digits.append((rest % ku).astype(np.intp))
        rest = rest // ku
    n_items = round(float(w.sum())) if iw.counts else n_rows
    sample = _sample_of(w, w2, item_cell, iw, item_weight, n_items)
    return Cells(tuple(reversed(digits)), wmat, sample, used, sums)


#: Why a merged state with unequal survey weights has no bootstrap or jackknife.
NO_ITEMS = (
    "The bootstrap and the jackknife with unequal `sample_weight` resample the rows "
    "themselves (in memory, exactly as scipy.stats.bootstrap does), which a merged "
    "table does not keep. Use method='asymptotic' (the sandwich standard error of eq. 5, "
    "exact from the merged cell sums), or `counts` if the weights are frequencies."
)


def stats_cells(stats: TableStats, weights, *, hint: str) -> Cells:
    """The present cells of a merged table state: the cells :func:`tabulate` builds
    from the same items, to the last bit (same categories, order, sums, weights)."""
    k = stats.k
    if stats.survey is None:
        flat = stats.counts.ravel()
        present = np.flatnonzero(flat)
        w = flat[present].astype(np.float64)
        n_items = stats.n_rows
        sample = Sample(counts=w, counts_sq=w, n_items=n_items)
        sums = w
    else:
        stats_sums, squares, positive = stats.survey, stats.squares, stats.positive
        wmax = stats.wpos_max
        if np.any(stats.counts):  # unweighted items count with weight 1
            ints = stats.counts.ravel()
            stats_sums = stats_sums + ExactRows.from_integers(ints)
            squares = squares + ExactRows.from_integers(ints)
            positive = positive + ints
            wmax = max(wmax, 1.0)
        present = np.flatnonzero(positive)
        sums = stats_sums.take(present).finite_float()
        if stats.wpos_min == wmax and not np.any(stats.counts):
            unit = positive[present].astype(np.float64)  # equal weights: unit items
            sample = Sample(counts=unit, counts_sq=unit, n_items=stats.n_rows)
        else:
            w, w2 = survey_sums(stats_sums.take(present), squares.take(present), wmax)
            sample = Sample(w, w2, stats.n_rows, no_items=NO_ITEMS)
    rows, cols = present // k, present % k
    used = np.unique(np.concatenate([rows, cols]))
    if isinstance(weights, str):
        wmat = weights_at(weights, used, k)
    else:
        idx = used.astype(np.intp)
        wmat = np.ascontiguousarray(resolve(weights, k, hint=hint)[np.ix_(idx, idx)])
    digits = tuple(np.searchsorted(used, x).astype(np.intp) for x in (rows, cols))
    return Cells(digits, wmat, sample, used, sums)


def table_cells(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, Sample]:
    """(rows, cols, sample) of the present cells of a K×K table of whole-number counts."""
    k = table.shape[0]
    flat = table.ravel()
    present = np.flatnonzero(flat)
    counts = flat[present].astype(np.float64)
    sample = Sample(counts=counts, counts_sq=counts, n_items=round(float(counts.sum())))
    return (present // k).astype(np.intp), (present % k).astype(np.intp), sample


# ---------------------------------------------------------------------------- kappa of cells


@dataclass(frozen=True, slots=True)
class CellKappa:
    """Weighted kappa as a function of the weights of m present cells.

    ``rows[c]``, ``cols[c]`` are the categories of cell c on a K-category scale and
    ``wmat`` the (K, K) disagreement weights. Every method takes cell weights (one
    vector, or a batch of them) and evaluates eq. 1 and its derivatives.
    """

    rows: np.ndarray
    cols: np.ndarray
    wmat: np.ndarray

    @property
    def k(self) -> int:
        return int(self.wmat.shape[0])

    def parts(self, w: np.ndarray):
        """N, O, r, c, Dc, rᵀD, S for one vector of cell weights."""
        k = self.k
        r = np.bincount(self.rows, weights=w, minlength=k)
        c = np.bincount(self.cols, weights=w, minlength=k)
        total = float(w.sum())
        observed = float(np.dot(w, self.wmat[self.rows, self.cols]))  # O = Σ dᵢⱼ Tᵢⱼ
        dc = self.wmat @ c
        rd = r @ self.wmat
        s = float(np.dot(r, dc))  # S = rᵀ D c
        return total, observed, r, c, dc, rd, s

    def degenerate(self, w: np.ndarray) -> bool:
        """True when one rater is constant: every cell of positive weight shares a row,
        or every one shares a column. Then κ = 0 exactly for every table of that support
        (⟨U, W⟩ = ⟨V, W⟩), and so do its resamples: its standard errors are exactly 0."""
        used = w > 0
        rows, cols = self.rows[used], self.cols[used]
        return bool(np.all(rows == rows[0]) or np.all(cols == cols[0]))

    def value(self, w: np.ndarray) -> float:
        total, observed, *_, s = self.parts(w)
        if s <= 0.0:
            return math.nan
        if self.degenerate(w):
            return 0.0  # exactly, not 1 − O·N/S with rounding noise
        return 1.0 - observed * total / s  # (eq. 1)

    def influence(self, w: np.ndarray, kappa: float) -> np.ndarray:
        """gᵢⱼ of eq. 3 at every present cell (the derivative of κ by pᵢⱼ)."""
        if self.degenerate(w):
            return np.zeros(self.rows.shape[0])
        total, _, _, _, dc, rd, s = self.parts(w)
        e_p = s / (total * total)  # Eₚ: expected disagreement in proportions
        d = self.wmat[self.rows, self.cols]
        h = d - (1.0 - kappa) * (dc[self.rows] + rd[self.cols]) / total
        return -h / e_p  # (eq. 3)

    def null_variance(self, w: np.ndarray, n_eff: float) -> float:
        """Var κ̂ under independence with the observed margins (eq. 4)."""
        if self.degenerate(w):
            return 0.0
        total, _, r, c, dc, rd, s = self.parts(w)
        rp, cp = r / total, c / total
        e_p = s / (total * total)
        g0 = self.wmat - dc[:, None] / total - rd[None, :] / total + e_p  # (eq. 4)
        # divided one factor at a time: with one weight 2**500 times the others, Eₚ² alone
        # underflows to zero while the ratio is an ordinary number
        return float(rp @ (g0 * g0) @ cp) / e_p / e_p / n_eff  # (eq. 4)

    def batch(self, x: np.ndarray) -> np.ndarray:
        """Eq. 1 for each row of x (B, m): B resampled tables at once, O(B·m·K)."""
        from scipy import sparse  # here, where it is used: kappa_score needs no scipy

        k = self.k
        m = self.rows.shape[0]
        ones, cells = np.ones(m), np.arange(m)
        # Margins of every resampled table: sparse (m × K) indicator products, O(B·m).
        hot_r = sparse.csr_array((ones, (cells, self.rows)), shape=(m, k))
        hot_c = sparse.csr_array((ones, (cells, self.cols)), shape=(m, k))
        total = x.sum(axis=1)
        observed = x @ self.wmat[self.rows, self.cols]
        r = (hot_r.T @ x.T).T
        c = (hot_c.T @ x.T).T
        s = np.einsum("bi,bi->b", r @ self.wmat, c)
        # S of a resample is a sum of products, not a difference: it is zero up to rounding
        # only against the sum of their absolute values (with weights ≥ 0: S itself, so
        # only S = 0 is undefined). Against the full sample's S, a resample without the one
        # heavy item of 10¹⁴ × the others' weight, which has a kappa, looked undefined.
        wabs = np.abs(self.wmat)
        s_abs = s if np.array_equal(wabs, self.wmat) else np.einsum("bi,bi->b", r @ wabs, c)
        out = _finish(total, observed, s, s_abs)
        # A resample in which one rater is constant has kappa 0 exactly (see degenerate).
        constant = (np.count_nonzero(r, axis=1) == 1) | (np.count_nonzero(c, axis=1) == 1)
        out[constant & np.isfinite(out)] = 0.0
        return out

    def leave_one_out(self, w: np.ndarray, cell: np.ndarray, u: np.ndarray) -> np.ndarray:
        """κ after removing weight u[t] from cell[t], for every t, in O(1) each (eq. 8)."""
        total, observed, _, _, dc, rd, s = self.parts(w)
        i = self.rows[cell]
        j = self.cols[cell]
        d = self.wmat[i, j]
        total_ = total - u
        observed_ = observed - u * d
        s_ = s - u * dc[i] - u * rd[j] + u * u * d  # (eq. 8)
        out = _finish(total_, observed_, s_, s)
        if self.degenerate(w):  # one rater constant: so in every leave-one-out table
            out[np.isfinite(out)] = 0.0
        return out


def influence_variance(g: np.ndarray, w: np.ndarray, w_sq: np.ndarray) -> float:
    """Var = Σ (Σw²)ᵢⱼ (gᵢⱼ − ḡ)² / N² (eq. 5 of ``docs/inference.md``): the delta-method
    (sandwich) variance of a statistic with influence ``g`` over cells of weight ``w``
    (their Σw²: ``w_sq``; ḡ the w-weighted mean of g, N = Σw) — of one kappa with g of
    eq. 3, of a difference of two with g the difference of theirs (eq. 10)."""
    total = float(w.sum())
    gbar = float(np.dot(w, g)) / total
    dev = g - gbar
    top = float(np.max(np.abs(dev))) if dev.size else 0.0
    if top == 0.0 or not math.isfinite(top):
        return float(np.dot(w_sq, dev * dev)) / (total * total)  # (eq. 5)
    # in units of the largest deviation: with one weight 2**500 times the others, g of
    # the small cells is huge and its square alone would overflow
    dev /= top
    return float(np.dot(w_sq, dev * dev)) / total * top / total * top  # (eq. 5)


def _finish(total, observed, s, scale) -> np.ndarray:
    """1 − O·N/S elementwise, nan where S is zero up to rounding — at most
    :data:`_REL_ZERO` times ``scale`` (undefined kappa)."""
    ok = s > _REL_ZERO * scale
    out = np.full(np.shape(s), np.nan)
    np.divide(observed * total, s, out=out, where=ok)
    np.subtract(1.0, out, out=out, where=ok)
    return out
