"""The kappa-optimal linear model and the kappa-optimal affine map of any scores.

Every formula here is re-derived in ``docs/regression.md``; the equation labels in the
comments are the ones used there. Numbers (2)–(14) are those of seed 000 (Vaughn &
Justice, *On the direct maximization of quadratic weighted kappa*, a preprint withdrawn
by its author); labels (R1)–(R10) are ours, where the preprint is wrong or silent.

Notation: item weights w (all ones by default), weighted means ȳ and x̄, centered
weighted inner products ⟨u, v⟩ = Σ wᵢ uᵢ vᵢ. For real-valued predictions f the soft
(continuous) quadratic weighted kappa is

    κ(y, f) = 2·S_yf / (S_yy + S_ff + Σw·(ȳ − f̄)²)                          (R1)

with S the centered weighted sums: `qwkit.soft_kappa_score`.

Numerical method. The data enter once, as the weighted (and, with an intercept,
centered) matrix Z = √w·[X, y − ȳ] (plus a column √w without an intercept), the
weights multiplied by a power of two (exact) that makes the largest about 1 (R10); if
the Gram matrix of Z would leave the safe float64 range, every column of the data is
first scaled by a power of two too. Its triangular factor R (ZᵀZ = RᵀR) preserves
every inner product the problem needs, so the rest works on a (d+1)×(d+1) system,
with the columns of R scaled by powers of two to norms about 1: an SVD of its X-block
gives the numerical rank and the minimum-norm least-squares solution, an augmented
least-squares problem the ridge one, with no explicit inverse. R comes from a Cholesky
factorization of the Gram matrix when the design is well-conditioned (one BLAS-3 pass
over the data), and from a Householder QR of Z otherwise (backward stable whatever the
conditioning or rank).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from qwkit import _validation as _v
from qwkit._kappa import _real_vector
from qwkit._results import freeze_arrays, reduce_dataclass

__all__ = [
    "KappaRegressionResult",
    "KappaRescaleResult",
    "kappa_regression",
    "kappa_rescale",
]

_EPS = float(np.finfo(np.float64).eps)
#: A Cholesky factor of the equilibrated Gram matrix is trusted only when the design
#: block is this well-conditioned: the normal equations then lose at most ~cond²·eps
#: ≈ 1e-10 relative accuracy. Anything worse is refactored by Householder QR.
_CHOLESKY_MAX_COND = 1e3


# ---------------------------------------------------------------------------- shared helpers
# Used by the result classes and validators of _thresholds, _costs, _decision and
# _economics too (one piece of code per piece of logic).


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True, eq=False)
class KappaRegressionResult:
    """The kappa-optimal linear model returned by :func:`kappa_regression`.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        Coefficients (read-only).
    intercept : float
        Intercept (0.0 when fitted with ``fit_intercept=False``).
    statistic : float
        In-sample soft quadratic weighted kappa of the fitted predictions, equal to
        ``soft_kappa_score(y, result.predict(X), sample_weight=sample_weight)``; in
        [−1, 1] (clipped there against rounding).
    least_squares_statistic : float
        In-sample soft kappa of the plain least-squares (``alpha=0``) or ridge
        (``alpha>0``) fit that the kappa-optimal model rescales; never larger than
        `statistic` (clipped to it against rounding).
    rank : int
        Numerical rank of the design: of the weighted, centered X with an intercept, of
        the weighted X without. Computed with every column scaled to a norm of about 1,
        so it does not depend on the units of the features.
    feature_names : tuple of str or None
        Column names of a data frame ``X`` at fit time; :meth:`predict` checks that a
        data frame it is given has the same columns in the same order.
    """

    coef: np.ndarray
    intercept: float
    statistic: float
    least_squares_statistic: float
    rank: int
    _x_mean: np.ndarray = field(repr=False)  # (2, d): x̄ as an unevaluated sum
    _y_mean: float = field(repr=False)
    feature_names: tuple[str, ...] | None = field(default=None, repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def predict(self, X) -> np.ndarray:
        """Real-valued predictions ``intercept + X @ coef``.

        Computed as ``ȳ + (X − x̄) @ coef`` with the weighted means of the fit (x̄ to
        better than double precision), which is the same model without the
        cancellation that ``intercept`` suffers for features far from zero.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features, with the columns used in the fit.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        names = _column_names(X)
        if self.feature_names is not None and names is not None and names != self.feature_names:
            raise ValueError(
                f"`X` has columns {list(names)}, but the model was fitted on columns "
                f"{list(self.feature_names)} (same names, same order)."
            )
        x = _as_2d_real(X, "X")
        if x.shape[1] != self.coef.shape[0]:
            raise ValueError(
                f"`X` must have {self.coef.shape[0]} columns, like the data the model was "
                f"fitted on; got {x.shape[1]}."
            )
        return _centered_predict(x, self.coef, self._x_mean, self._y_mean)


def _column_names(X) -> tuple[str, ...] | None:
    """Column names of a data frame (pandas, polars), as strings; None for arrays."""
    columns = getattr(X, "columns", None)
    return None if columns is None else tuple(str(c) for c in columns)


@dataclass(frozen=True, slots=True, eq=False)
class KappaRescaleResult:
    """The kappa-optimal affine map ``intercept + slope * y_score`` of :func:`kappa_rescale`.

    Attributes
    ----------
    intercept : float
    slope : float
        Its sign is the sign of the correlation between the scores and the ratings.
    statistic : float
        In-sample soft quadratic weighted kappa of the mapped scores, equal to the
        absolute weighted correlation \\|corr(y_true, y_score)\\| (at most 1).
    """

    intercept: float
    slope: float
    statistic: float

    def predict(self, y_score) -> np.ndarray:
        """Mapped scores ``intercept + slope * y_score``.

        Parameters
        ----------
        y_score : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        f = _real_vector(y_score, "y_score")
        return self.intercept + self.slope * f


# ---------------------------------------------------------------------------- validation


def _as_2d_real(X, name: str) -> np.ndarray:
    """A 2-D, finite, real feature matrix as float64 (scikit-learn's rule: 2-D only)."""
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"`{name}` must be a 2-D array-like of numbers; got {X!r}.")
    arr = _v.as_real_array(X, name)
    if arr.ndim != 2:
        what = "a scalar" if arr.ndim == 0 else f"an array of shape {arr.shape}"
        hint = (
            f" For a single feature pass `{name}.reshape(-1, 1)`; for the scores of one "
            "model use `kappa_rescale`."
            if arr.ndim == 1
            else ""
        )
        raise ValueError(f"`{name}` must be 2-D (n_samples, n_features); got {what}.{hint}")
    if arr.shape[1] == 0:
        raise ValueError(f"`{name}` must have at least one feature; got shape {arr.shape}.")
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise ValueError(
            f"`{name}` contains {arr[i, j]} at row {i}, column {j}; features must be finite."
        )
    return arr


def _centered_predict(x: np.ndarray, coef: np.ndarray, xbar: np.ndarray, ybar: float):
    """ȳ + (x − x̄)·coef (R2: f̄ = ȳ), x̄ = xbar[0] + xbar[1] as in the fit's centering."""
    return ybar + ((x - xbar[0]) - xbar[1]) @ coef


def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"`alpha` must be a non-negative real number; got {alpha!r}.")
    alpha = float(alpha)
    if not (np.isfinite(alpha) and alpha >= 0.0):
        raise ValueError(f"`alpha` must be finite and non-negative; got {alpha!r}.")
    return alpha


def _check_target(y: np.ndarray, w: np.ndarray, name: str) -> None:
    kept = y[w > 0]
    if kept.size == 0 or kept.min() == kept.max():
        what = "no item" if kept.size == 0 else f"the single value {kept[0].item()!r}"
        raise ValueError(
            f"`{name}` must take at least two distinct values (among items with positive "
            f"weight); got {what}. Kappa of a constant rating is undefined."
        )


def _normalized_weights(sample_weight, n: int) -> tuple[np.ndarray, int]:
    """(w·2^shift, shift): weights (all ones when None) times the power of two (exact)
    that puts the largest in [1, 2), so that sums of huge weights cannot overflow nor
    products of subnormal ones vanish (R10). Kappa and the least-squares direction are
    unchanged by the common factor; a ridge penalty α becomes α·2^shift."""
    w = _v.check_sample_weight(sample_weight, n)
    if w is None:
        return np.ones(n), 0
    shift = 1 - int(np.frexp(w.max())[1])
    return np.ldexp(w, shift), shift


# ---------------------------------------------------------------------------- linear algebra


def _exponents(m: np.ndarray) -> np.ndarray:
    """e with m·2⁻ᵉ in [0.5, 1) (0 where m is 0): scaling by 2⁻ᵉ is exact."""
    return np.frexp(m)[1].astype(np.int64)


def _column_exponents(z: np.ndarray) -> np.ndarray:
    return _exponents(np.maximum(z.max(axis=0), -z.min(axis=0)))


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


def _factor(columns, w: np.ndarray, center_from: int, n_design: int):
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
    e_r = _exponents(np.sqrt(np.einsum("ij,ij->j", r, r)))
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


def _solve(r_x: np.ndarray, e_x: np.ndarray, b: np.ndarray, alpha: float, shift: int, n_rows):
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
    cutoff = max(n_rows, d) * _EPS * (s[0] if s.size else 0.0)
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


def _unscale(values: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """values·2^exponents, or a ValueError when the result leaves the float64 range."""
    with np.errstate(over="ignore"):
        out = np.ldexp(values, exponents)
    if not np.all(np.isfinite(out)):
        raise ValueError(
            "The kappa-optimal coefficients exceed the float64 range: the columns of `X` "
            "are too small (or `y` too large) relative to each other. Rescale `X`, e.g. "
            "standardize its columns."
        )
    return out


def _intercept(ybar: float, xbar: np.ndarray, coef: np.ndarray) -> float:
    """ȳ − x̄·coef (R2), the dot product scaled so that it cannot overflow on the way."""
    ex, ec = _exponents(np.max(np.abs(xbar))), _exponents(np.max(np.abs(coef)))
    dot = float(np.ldexp(xbar, -ex) @ np.ldexp(coef, -ec))
    with np.errstate(over="ignore"):
        value = ybar - float(np.ldexp(dot, ex + ec))
    if not np.isfinite(value):
        raise ValueError(
            "The intercept of the kappa-optimal model exceeds the float64 range (features "
            "very far from zero): center `X` first, or pass `fit_intercept=False`."
        )
    return value


def _degenerate_tol(n: int, d: int) -> float:
    """Correlations at or below this are rounding noise: X carries no signal about y."""
    return 64.0 * max(n, d) * _EPS


# ---------------------------------------------------------------------------- the fits


def _fit_with_intercept(x, y, w, alpha, shift):
    """Intercept model: least squares/ridge on centered data, rescaled along its ray.

    Works in the scaled coordinates of _factor (y in units of 2^e_y): every quantity
    below is a ratio or is unscaled at the end. Returns (coef, intercept, statistic,
    least-squares statistic, rank, x̄ (2 × d, see _center_weight), ȳ).
    """
    n, d = x.shape
    r, means, e = _factor((x, y), w, 0, d)
    xbar, ybar = means[:, :d], float(means[0, d] + means[1, d])
    r_x, r_y = r[:, :d], r[:, d]
    gamma, rank = _solve(r_x, e[:d], r_y, alpha, shift, n)  # (eq. 4–5 / 10) direction
    h = r_x @ gamma  # the centered fitted values, in the coordinates of R
    syy = float(r_y @ r_y)  # S_yy
    syh = float(r_y @ h)  # S_yŷ (= S_ŷŷ when alpha = 0: eq. 7)
    shh = float(h @ h)  # S_ŷŷ
    ls_stat = 2.0 * syh / (syy + shh)  # (R1) at f̄ = ȳ, scale 1
    corr = syh / (np.sqrt(syy) * np.sqrt(shh)) if shh > 0 else 0.0
    if not corr > _degenerate_tol(n, d):
        return np.zeros(d), ybar, 0.0, ls_stat, rank, xbar, ybar  # (R7) κ ≤ 0 for all
    c = np.sqrt(syy / shh)  # (R3) optimal scale = sd(y)/sd(ŷ); 1/κ̂ of eq. 8 when alpha = 0
    coef = _unscale(c * gamma, e[d] - e[:d])  # (eq. 9 / R4), back to the units of X, y
    stat = 2.0 * c * syh / (syy + c * c * shh)  # (R1) = corr(y, ŷ) (eq. 14, R3)
    intercept = _intercept(ybar, xbar[0] + xbar[1], coef)  # (R2) f̄ = ȳ
    return coef, intercept, float(stat), float(ls_stat), rank, xbar, ybar


def _fit_without_intercept(x, y, w, alpha, shift):
    """No intercept: maximize κ over the plane spanned by the fits of the constant and
    of the centered target (the whole column space when alpha = 0).

    The design is [X, 1, y − ȳ] weighted and scaled (_factor); in those units the
    constant column is r_e and ȳ·(constant) is yb·r_e.
    """
    n, d = x.shape
    r, means, e = _factor((x, np.ones(n), y), w, d + 1, d)
    ybar = float(means[0, d + 1] + means[1, d + 1])
    yb = float(np.ldexp(ybar, e[d] - e[d + 1]))  # ȳ in the scaled units of e and y
    r_x, r_rhs = r[:, :d], r[:, d:]
    r_e, r_y = r_rhs[:, 0], r_rhs[:, 1]
    a, rank = _solve(r_x, e[:d], r_rhs, alpha, shift, n)  # fits of e and of y − ȳ
    z2 = r_x @ a  # the plane V (two columns, in R coordinates)
    theta = np.linalg.lstsq(z2, r_rhs, rcond=max(z2.shape[0], 2) * _EPS)[0]
    pe, py = z2 @ theta[:, 0], z2 @ theta[:, 1]  # projections of e and y − ȳ onto V
    syy = float(r_y @ r_y)

    def kappa_of(coef):  # (R1) with f = X·coef, via f − ȳ·e in R coordinates (R8)
        f = r_x @ coef
        g = f - yb * r_e
        return float(2.0 * (r_y @ f) / (syy + g @ g))

    ls_stat = kappa_of(a @ np.array([yb, 1.0]))  # plain least squares/ridge of y on X
    big_c = float(py @ py)  # C = ‖P(y − ȳ)‖²
    zeros = np.zeros((2, d))
    if not np.sqrt(big_c / syy) > _degenerate_tol(n, d):
        return zeros[0], 0.0, 0.0, ls_stat, rank, zeros, 0.0  # (R7)
    resid_e = r_e - pe
    big_a = syy + yb * yb * float(resid_e @ resid_e)  # A = S_yy + ȳ²‖(I − P)e‖²
    big_b = yb * float(r_y @ pe)  # B = ȳ⟨y − ȳ, Pe⟩
    root = np.sqrt(big_b * big_b + big_a * big_c)
    # (R9) κ = (B + √(B² + AC)) / A, written without cancellation for either sign of B
    kappa = (big_b + root) / big_a if big_b >= 0 else big_c / (root - big_b)
    coef = a @ (yb * theta[:, 0] + theta[:, 1] / kappa)  # f = ȳ·Pe + P(y − ȳ)/κ (R8)
    stat = kappa_of(coef)
    return _unscale(coef, e[d + 1] - e[:d]), 0.0, stat, ls_stat, rank, zeros, 0.0


def _clipped(stat: float, ls_stat: float) -> tuple[float, float]:
    """Kappa in [−1, 1] and the least-squares kappa never above it, against rounding."""
    stat = min(1.0, max(-1.0, float(stat)))
    return stat, min(stat, max(-1.0, float(ls_stat)))


def kappa_regression(X, y, *, alpha=0.0, fit_intercept=True, sample_weight=None):
    """The linear model that maximizes the soft quadratic weighted kappa, in closed form.

    Among all predictors ``f(x) = b + x @ beta`` it returns the one with the largest
    in-sample :func:`soft_kappa_score`: least squares on centered data, with the
    centered fit stretched to the standard deviation of `y` (scaled by 1/κ̂).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features (2-D; for the scores of a single model use :func:`kappa_rescale`).
    y : array-like of shape (n_samples,)
        Target ratings (integers or reals) with at least two distinct values.
    alpha : float, default=0.0
        Ridge penalty α‖β‖² on the centered least-squares problem (the intercept is
        never penalized). It only chooses the *direction* of the model; the scale along
        it is then chosen to maximize kappa (see Notes).
    fit_intercept : bool, default=True
        Fit an intercept. Without one, kappa is maximized over ``f = X @ beta``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative item weights: weighted means, weighted least squares, weighted
        kappa. Integer weights give the same model as repeated rows.

    Returns
    -------
    KappaRegressionResult
        ``coef``, ``intercept``, ``statistic`` (in-sample soft kappa),
        ``least_squares_statistic``, ``rank`` and ``.predict(X)``.

    Raises
    ------
    ValueError
        Non-finite or missing values in `X` or `y`, 1-D or ragged `X`, mismatched
        lengths, negative or non-finite `alpha`, `y` with fewer than two distinct
        values, or coefficients beyond the float64 range.
    TypeError
        Non-numeric `X` (strings, even numeric-looking ones; datetimes), sparse `X`,
        non-real `alpha`, non-bool `fit_intercept`.

    See Also
    --------
    kappa_rescale : the kappa-optimal affine map of any model's scores.
    soft_kappa_score : the objective.

    Notes
    -----
    With weights w the soft kappa of f is (R1)

        κ = 2·S_yf / (S_yy + S_ff + Σw·(ȳ − f̄)²).

    Only the last term of the denominator depends on the intercept, so the optimal
    intercept gives f̄ = ȳ (R2). For the centered fit ŷ = X_c·β and a scale c > 0,
    κ(c) = 2c·S_yŷ / (S_yy + c²·S_ŷŷ) is largest at c = √(S_yy / S_ŷŷ), where it
    equals corr(y, ŷ) (R3): the kappa-optimal model along any direction matches the
    standard deviation of y. Least squares maximizes the correlation over directions,
    so the optimum is the least-squares fit scaled by 1/κ̂, κ̂ = ‖ŷ_ls‖/‖y − ȳ‖
    (seed 000, eqs. 5, 8, 9), and κ̂ equals the correlation of y with the model (eq. 14).

    With ``alpha > 0`` the direction is the ridge solution and the scale is again the
    kappa-optimal one, c = ‖y − ȳ‖/‖ŷ_rr‖; `statistic` is corr(y, ŷ_rr). This is *not*
    the scale of seed 000's eq. 13 (whose kappa is its eq. 12): that point is a
    stationary point of κ − μ‖β‖² for an implicit μ and always has a smaller kappa than
    the model returned here. See ``docs/regression.md``.

    Without an intercept the optimum is f = P(ȳ·e + (y − ȳ)/κ) with κ the positive
    root of A·κ² − 2B·κ − C = 0 (R8, R9); with ``alpha > 0`` kappa is maximized over the
    plane spanned by the ridge fits of the constant and of y − ȳ.

    Edge cases. Coefficients of a rank-deficient X (collinear columns, more features
    than items) with ``alpha=0`` are the minimum-norm ones; the predictions and kappa
    do not depend on that choice. The rank is decided with every column of X scaled
    to a norm of about 1, so features in very different units are not
    mistaken for collinear ones; with ``alpha=0`` the model does not depend on the
    units at all, while ``alpha > 0`` penalizes the coefficients of the columns as
    given. When the fit interpolates y (rank ≥ n − 1 with an
    intercept) the in-sample kappa is 1 and means nothing: use ``alpha > 0``, which
    makes X_cᵀWX_c + αI positive definite and the solution unique and stable. If X
    carries no linear information about y (X_cᵀW(y − ȳ) = 0 to rounding), every
    affine predictor has kappa ≤ 0 and the optimum 0 is attained by every predictor
    with zero covariance; qwkit then returns ``coef = 0``, ``intercept = ȳ`` (0 without
    an intercept) and ``statistic = 0.0`` (R7). Rounding can put a kappa a few ulps
    above 1 (an interpolating fit) or the least-squares kappa above the optimal one;
    both are clipped, so ``-1 <= least_squares_statistic <= statistic <= 1``. Every
    column of the data and the weights are scaled by powers of two before any sum of
    squares is formed (exact), so features, ratings or weights of any magnitude
    representable in float64 give the same model as moderate ones (R10).

    References
    ----------
    D. Vaughn and D. Justice, "On the direct maximization of quadratic weighted kappa",
    arXiv:1509.07107 (withdrawn), 2015.

    Examples
    --------
    >>> import numpy as np
    >>> import qwkit
    >>> X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 1.0], [4.0, 3.0], [5.0, 2.0]])
    >>> y = np.array([1, 1, 2, 3, 3])
    >>> res = qwkit.kappa_regression(X, y)
    >>> round(res.statistic, 6), round(res.least_squares_statistic, 6)
    (0.961769, 0.961039)
    >>> round(qwkit.soft_kappa_score(y, res.predict(X)), 6)
    0.961769
    """
    x = _as_2d_real(X, "X")
    yv = _real_vector(y, "y")
    _v.check_same_length(x, yv, ("X", "y"))
    a = _check_alpha(alpha)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise TypeError(f"`fit_intercept` must be True or False; got {fit_intercept!r}.")
    w, shift = _normalized_weights(sample_weight, yv.shape[0])
    _check_target(yv, w, "y")

    fit = _fit_with_intercept if fit_intercept else _fit_without_intercept
    coef, intercept, stat, ls_stat, rank, xbar, ybar = fit(x, yv, w, a, shift)
    stat, ls_stat = _clipped(stat, ls_stat)

    return KappaRegressionResult(
        coef=np.ascontiguousarray(coef, dtype=np.float64),
        intercept=float(intercept),
        statistic=stat,
        least_squares_statistic=ls_stat,
        rank=int(rank),
        _x_mean=np.asarray(xbar, dtype=np.float64),
        _y_mean=float(ybar),
        feature_names=_column_names(X),
    )


def kappa_rescale(y_true, y_score, *, sample_weight=None):
    """The affine map ``a + b * y_score`` that maximizes soft quadratic weighted kappa.

    Any model's real-valued scores become kappa-optimal (among affine maps) by matching
    the mean and standard deviation of the true ratings, with the sign of the
    correlation.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True ratings, with at least two distinct values.
    y_score : array-like of shape (n_samples,)
        Real-valued scores of any model.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative item weights.

    Returns
    -------
    KappaRescaleResult
        ``intercept``, ``slope``, ``statistic`` (the in-sample soft kappa of the mapped
        scores, \\|corr(y_true, y_score)\\|) and ``.predict(y_score)``.

    Raises
    ------
    ValueError
        Non-finite values, mismatched lengths, or `y_true` with fewer than two distinct
        values.

    See Also
    --------
    kappa_regression : the kappa-optimal linear model of features.

    Notes
    -----
    For f = a + b·s, the soft kappa (R1) depends on a only through (ȳ − f̄)², so
    a = ȳ − b·s̄ (R2). Then κ(b) = 2b·S_ys / (S_yy + b²·S_ss) is largest at
    b = sign(S_ys)·√(S_yy / S_ss) = sign(r)·sd(y)/sd(s), where κ* = \\|r\\|, r the
    weighted correlation (R3). This is `kappa_regression` with a single feature.

    If the scores are constant or uncorrelated with the ratings (r = 0 to rounding),
    every affine map has kappa ≤ 0 with maximum 0; the result is then ``slope = 0``,
    ``intercept = ȳ`` (the constant mean prediction) and ``statistic = 0.0`` (R7).

    Examples
    --------
    >>> import qwkit
    >>> y = [1, 2, 2, 3, 4, 4]
    >>> s = [0.10, 0.35, 0.30, 0.42, 0.80, 0.55]
    >>> res = qwkit.kappa_rescale(y, s)
    >>> round(res.intercept, 6), round(res.slope, 6), round(res.statistic, 6)
    (0.528671, 5.090465, 0.930167)
    >>> round(qwkit.soft_kappa_score(y, res.predict(s)), 6)
    0.930167
    """
    yv = _real_vector(y_true, "y_true")
    s = _real_vector(y_score, "y_score")
    _v.check_same_length(yv, s, ("y_true", "y_score"))
    w, _ = _normalized_weights(sample_weight, yv.shape[0])
    _check_target(yv, w, "y_true")

    coef, intercept, stat, _, _, _, _ = _fit_with_intercept(s[:, None], yv, w, 0.0, 0)

    return KappaRescaleResult(
        intercept=float(intercept), slope=float(coef[0]), statistic=_clipped(stat, stat)[0]
    )
