"""Least squares and ridge for data of any magnitude (``docs/regression.md``, R5–R10).

The data enter once, as the weighted (and partly centered) matrix Z = √w·[X, y − ȳ],
the weights multiplied by a power of two (exact) that makes the largest about 1 (R10);
if the Gram matrix of Z would leave the safe float64 range, every column of the data is
first scaled by a power of two too. Its triangular factor R (ZᵀZ = RᵀR) preserves every
inner product the problems need, so the rest works on a (d+1)×(d+1) system, with the
columns of R scaled by powers of two to norms about 1: an SVD of its X-block gives the
numerical rank and the minimum-norm least-squares solution, an augmented least-squares
problem the ridge one, with no explicit inverse. R comes from a Cholesky factorization
of the Gram matrix when the design is well-conditioned (one BLAS-3 pass over the data),
and from a Householder QR of Z otherwise (backward stable whatever the conditioning or
rank).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from qwkit._base._errors import QwkitError

__all__ = [
    "EPS",
    "degenerate_tol",
    "exponents",
    "factor",
    "intercept",
    "ridge",
    "solve",
    "unscale",
]

EPS = float(np.finfo(np.float64).eps)
#: A Cholesky factor of the equilibrated Gram matrix is trusted only when the design
#: block is this well-conditioned: the normal equations then lose at most ~cond²·eps
#: ≈ 1e-10 relative accuracy. Anything worse is refactored by Householder QR.
_CHOLESKY_MAX_COND = 1e3


def exponents(m: np.ndarray) -> np.ndarray:
    """e with m·2⁻ᵉ in [0.5, 1) (0 where m is 0): scaling by 2⁻ᵉ is exact."""
    return np.frexp(m)[1].astype(np.int64)


def _column_exponents(z: np.ndarray) -> np.ndarray:
    return exponents(np.maximum(z.max(axis=0), -z.min(axis=0)))


#: The Gram matrix of the data as given is trusted when every column's sum of squares
#: lies in [2^-960, 2^960] (or the column is 0): no square or sum overflows, and entries
#: whose squares underflow are below 2^-480·‖column‖, contributing nothing (R10).
_GRAM_SAFE = (2.0**-960, 2.0**960)


def _center_weight(z: np.ndarray, w: np.ndarray, center_from: int):
    """In place: center columns ``center_from:`` by their weighted mean (two-pass
    corrected: exact to rounding for data far from zero) and multiply the rows by √w.

    Returns (Z, means) with `means` (2 × p) the weighted means as unevaluated sums of
    the first pass and its correction: column j became (z − means[0, j]) − means[1, j]
    (zeros for the columns not centered).
    """
    means = np.zeros((2, z.shape[1]))
    if center_from < z.shape[1]:
        total = float(w.sum())
        part = z[:, center_from:]
        means[0, center_from:] = (w @ part) / total
        part -= means[0, center_from:]
        means[1, center_from:] = (w @ part) / total  # second pass
        part -= means[1, center_from:]
    if not np.all(w == 1.0):
        z *= np.sqrt(w)[:, None]
    return z, means


def _scaled_design(z: np.ndarray, w: np.ndarray, center_from: int):
    """_center_weight for data of any magnitude: every column scaled by powers of two
    (exact) before centering (no overflow in the mean) and after weighting (largest
    entry in [0.5, 1): no overflow or underflow in the Gram matrix) (R10). Returns
    (Z̃, means, e) with Z = Z̃·diag(2ᵉ) the design of _center_weight."""
    e_raw = _column_exponents(z)
    np.ldexp(z, -e_raw, out=z)
    z, means = _center_weight(z, w, center_from)
    means = np.ldexp(means, e_raw)
    e_weighted = _column_exponents(z)
    np.ldexp(z, -e_weighted, out=z)
    return z, means, e_raw + e_weighted


def factor(columns, w: np.ndarray, center_from: int, n_design: int):
    """The equilibrated R factor of the weighted, partly centered design of `columns`.

    `columns` are the blocks of the design (2-D or 1-D arrays, n rows), the first
    `n_design` columns the features, the rest right-hand sides. Returns (R̃, means, e)
    with R = R̃·diag(2ᵉ) the triangular factor of Z = √w·[columns − means] and R̃'s
    columns of norm in [0.5, 1) (or 0), so that the rank and the solution do not depend
    on the units of the columns (R10). The data as given are used when their Gram
    matrix is safely inside the float64 range (one pass, as fast as plain least
    squares); otherwise the design is rebuilt with every column scaled first.
    """
    n = w.shape[0]
    p = sum(b.shape[1] if b.ndim == 2 else 1 for b in columns)
    if n >= p:
        with np.errstate(over="ignore", invalid="ignore"):  # checked right below
            z, means = _center_weight(_stack(columns, n, p), w, center_from)
            gram = z.T @ z
        diag = np.diag(gram)
        safe = (diag >= _GRAM_SAFE[0]) & (diag <= _GRAM_SAFE[1])
        zero = np.flatnonzero(diag == 0)  # exact zeros only, not squares that underflowed
        safe[zero] = ~np.any(z[:, zero], axis=0)
        if np.all(np.isfinite(means)) and np.all(safe):
            return _equilibrate(_r_factor(z, n_design, gram), np.zeros(p, dtype=np.int64), means)
    z, means, e = _scaled_design(_stack(columns, n, p), w, center_from)
    return _equilibrate(_r_factor(z, n_design), e, means)


def _stack(columns, n: int, p: int) -> np.ndarray:
    z = np.empty((n, p))
    col = 0
    for b in columns:
        k = b.shape[1] if b.ndim == 2 else 1
        z[:, col : col + k] = b if b.ndim == 2 else b[:, None]
        col += k
    return z


def _equilibrate(r: np.ndarray, e: np.ndarray, means: np.ndarray):
    """R = R̃·diag(2^e_r) with R̃'s column norms in [0.5, 1): (R̃, means, e + e_r)."""
    e_r = exponents(np.sqrt(np.einsum("ij,ij->j", r, r)))
    return np.ldexp(r, -e_r), means, e + e_r


def _r_factor(z: np.ndarray, n_design: int, gram: np.ndarray | None = None) -> np.ndarray:
    """Triangular R with RᵀR = ZᵀZ (m × p, m = min(n, p)); Z is n × p.

    The first `n_design` columns of Z are the design, the rest right-hand sides.
    Cholesky of the equilibrated Gram matrix (`gram` if already formed) when it exists
    and the design block of the factor is well-conditioned (cond ≤ _CHOLESKY_MAX_COND);
    Householder QR otherwise.
    """
    n, p = z.shape
    if n >= p:
        gram = z.T @ z if gram is None else gram
        scale = np.sqrt(np.diag(gram))
        if np.all(scale > 0):
            try:
                rs = scipy.linalg.cholesky(
                    gram / np.outer(scale, scale), lower=False, check_finite=False
                )
            except np.linalg.LinAlgError:
                rs = None
            if rs is not None:
                s = np.linalg.svd(rs[:, :n_design], compute_uv=False)
                if s[-1] > 0 and s[0] / s[-1] <= _CHOLESKY_MAX_COND:
                    return rs * scale  # undo the column equilibration: R = R̃·D
    return scipy.linalg.qr(np.asfortranarray(z), mode="r", check_finite=False)[0][: min(n, p)]


def solve(r_x: np.ndarray, e_x: np.ndarray, b: np.ndarray, alpha: float, shift: int, n_rows):
    """Least squares (minimum-norm β) or ridge, in the scaled coordinates, and the rank.

    R_x = R̃_x·diag(2^e_x) is the design block of the unscaled R; with β = 2^−e_x·γ the
    problem min ‖R_x·β − b‖² + α'‖β‖² reads min ‖R̃_x·γ − b‖² + α'‖2^−e_x·γ‖², where
    α' = α·2^shift is the penalty in the units of the normalized weights (R10). Returns
    γ per column of b (b may be (m,) or (m, k)) and the numerical rank of R̃_x.

    Rank: singular values of R̃_x (every column scaled to a norm of about 1, so the
    rank does not depend on the units of the features) at or below
    max(n, d)·eps·s_max count as zero (numpy's lstsq rule) and are dropped (R5).
    With α = 0, γ = V·diag(1/s)·Uᵀ·b on the kept singular values, then moved along the
    null space to the β of minimum norm (R6). With α > 0 the ridge problem on the
    truncated R̃_x is solved as least squares on [S·Vᵀ; √α·diag(2^−e_x)] (R5), its
    columns scaled by powers of two so that no penalty entry overflows.
    """
    d = r_x.shape[1]
    u, s, vt = np.linalg.svd(r_x, full_matrices=True)
    cutoff = max(n_rows, d) * EPS * (s[0] if s.size else 0.0)
    rank = int(np.count_nonzero(s > cutoff))
    u, s, v = u[:, :rank], s[:rank], vt[:rank].T
    ub = u.T @ b  # (rank,) or (rank, k)
    if alpha == 0.0:
        gamma = v @ (ub / (s[:, None] if ub.ndim == 2 else s))  # (R5)
        if rank < d and np.any(e_x != e_x[0]):  # (R6) minimum ‖β‖, not minimum ‖γ‖
            gamma = _min_beta_norm(gamma, vt[rank:].T, e_x)
        return gamma, rank
    # (R5) ridge: columns of [S·Vᵀ; diag(p)], p_j = √α'·2^−e_j, scaled by 2^−c_j ≤ 1
    if shift % 2:  # make the exponent even: √(α·2^shift) = √α''·2^(shift''/2)
        alpha, shift = (alpha / 2.0, shift + 1) if alpha > 1.0 else (alpha * 2.0, shift - 1)
    mant, expo = np.frexp(np.sqrt(alpha))
    p_exp = int(expo) + shift // 2 - e_x
    c = np.maximum(p_exp, 0)
    top = np.ldexp(s[:, None] * v.T, -c)
    mat = np.vstack((top, np.diag(np.ldexp(mant, p_exp - c))))
    rhs = np.concatenate((ub, np.zeros((d, *ub.shape[1:]))))
    delta = np.linalg.lstsq(mat, rhs, rcond=None)[0]
    return np.ldexp(delta, -c[:, None] if delta.ndim == 2 else -c), rank


def _min_beta_norm(gamma: np.ndarray, null: np.ndarray, e_x: np.ndarray) -> np.ndarray:
    """γ + N·t with t minimizing ‖2^−e_x·(γ + N·t)‖ (= ‖β‖ up to a constant) (R6).

    A least-squares problem with row weights ω ∝ 2^−e_x that may differ by many orders
    of magnitude: Householder QR with the rows sorted by decreasing weight and column
    pivoting is row-wise backward stable for such problems (Powell & Reid; Cox & Higham,
    1998), where an SVD-based solver loses the rows of small weight.
    """
    omega = np.ldexp(1.0, np.maximum(e_x.min() - e_x, -1000))  # largest 1, none 0
    order = np.argsort(-omega, kind="stable")
    a = (omega[:, None] * null)[order]
    rhs = (omega[:, None] * gamma if gamma.ndim == 2 else omega * gamma)[order]
    q, r, piv = scipy.linalg.qr(a, mode="economic", pivoting=True, check_finite=False)
    t = np.empty((null.shape[1], *gamma.shape[1:]))
    t[piv] = scipy.linalg.solve_triangular(r, q.T @ rhs, check_finite=False)
    return gamma - null @ t


def unscale(values: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """values·2^exponents, or a ValueError when the result leaves the float64 range."""
    with np.errstate(over="ignore"):
        out = np.ldexp(values, exponents)
    if not np.all(np.isfinite(out)):
        raise QwkitError(
            "The kappa-optimal coefficients exceed the float64 range: the columns of `X` "
            "are too small (or `y` too large) relative to each other. Rescale `X`, e.g. "
            "standardize its columns.",
            parameter="X",
        )
    return out


def intercept(ybar: float, xbar: np.ndarray, coef: np.ndarray) -> float:
    """ȳ − x̄·coef (R2), the dot product scaled so that it cannot overflow on the way."""
    ex, ec = exponents(np.max(np.abs(xbar))), exponents(np.max(np.abs(coef)))
    dot = float(np.ldexp(xbar, -ex) @ np.ldexp(coef, -ec))
    with np.errstate(over="ignore"):
        value = ybar - float(np.ldexp(dot, ex + ec))
    if not np.isfinite(value):
        raise QwkitError(
            "The intercept of the kappa-optimal model exceeds the float64 range (features "
            "very far from zero): center `X` first, or pass `fit_intercept=False`.",
            parameter="X",
        )
    return value


def degenerate_tol(n: int, d: int) -> float:
    """Correlations at or below this are rounding noise: X carries no signal about y."""
    return 64.0 * max(n, d) * EPS


def ridge(x: np.ndarray, y: np.ndarray, alpha: float = 0.0) -> tuple[np.ndarray, float]:
    """Least squares (``alpha = 0``: the minimum-norm solution) or ridge regression of
    ``y`` on ``x`` with an unpenalized intercept: (coef, intercept).

    β = argmin ‖y_c − X_c·β‖² + α‖β‖² on centered data, b = ȳ − x̄·β (the fit of
    ``kappa_regression`` before its kappa-optimal rescaling), computed through the
    equilibrated factor R of the design (R5, R10) — accurate for columns of any units.
    """
    n, d = x.shape
    w = np.ones(n)
    r, means, e = factor((x, y), w, 0, d)
    xbar, ybar = means[:, :d], float(means[0, d] + means[1, d])
    gamma, _ = solve(r[:, :d], e[:d], r[:, d], alpha, 0, n)
    coef = unscale(gamma, e[d] - e[:d])
    return coef, intercept(ybar, xbar[0] + xbar[1], coef)
