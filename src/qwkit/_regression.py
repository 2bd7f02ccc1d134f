"""The kappa-optimal linear model and the kappa-optimal affine map of any scores.

Every formula here is re-derived in ``docs/regression.md``; the equation labels in the
comments are the ones used there. Numbers (2)–(14) are those of seed 000 (Vaughn &
Justice, *On the direct maximization of quadratic weighted kappa*, a preprint withdrawn
by its author); labels (R1)–(R9) are ours, where the preprint is wrong or silent.

Notation: item weights w (all ones by default), weighted means ȳ and x̄, centered
weighted inner products ⟨u, v⟩ = Σ wᵢ uᵢ vᵢ. For real-valued predictions f the soft
(continuous) quadratic weighted kappa is

    κ(y, f) = 2·S_yf / (S_yy + S_ff + Σw·(ȳ − f̄)²)                          (R1)

with S the centered weighted sums: `qwkit.soft_kappa_score`.

Numerical method. The data enter once, as the weighted (and, with an intercept,
centered) matrix Z = √w·[X, y − ȳ] (plus a column √w without an intercept). Its
triangular factor R (ZᵀZ = RᵀR) preserves every inner product the problem needs, so
the rest works on a (d+1)×(d+1) system: an SVD of the X-block of R gives the minimum-
norm least-squares or ridge solution with no explicit inverse. R comes from a Cholesky
factorization of the column-equilibrated Gram matrix when the design is
well-conditioned (one BLAS-3 pass over the data), and from a Householder QR of Z
otherwise (backward stable whatever the conditioning or rank).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from qwkit import _validation as _v
from qwkit._kappa import _real_vector

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
        ``soft_kappa_score(y, result.predict(X), sample_weight=sample_weight)``.
    least_squares_statistic : float
        In-sample soft kappa of the plain least-squares (``alpha=0``) or ridge
        (``alpha>0``) fit that the kappa-optimal model rescales; never larger than
        `statistic`.
    rank : int
        Numerical rank of the design: of the weighted, centered X with an intercept, of
        the weighted X without.
    """

    coef: np.ndarray
    intercept: float
    statistic: float
    least_squares_statistic: float
    rank: int

    def predict(self, X) -> np.ndarray:
        """Real-valued predictions ``intercept + X @ coef``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features, with the columns used in the fit.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        x = _as_2d_real(X, "X")
        if x.shape[1] != self.coef.shape[0]:
            raise ValueError(
                f"`X` must have {self.coef.shape[0]} columns, like the data the model was "
                f"fitted on; got {x.shape[1]}."
            )
        return x @ self.coef + self.intercept


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
        absolute weighted correlation \\|corr(y_true, y_score)\\|.
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
    if hasattr(X, "tocsr") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"`{name}` must be a dense array; got a sparse {type(X).__name__}. Pass "
            f"`{name}.toarray()`."
        )
    if hasattr(X, "to_numpy") and not isinstance(X, np.ndarray):
        X = X.to_numpy()
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be a 2-D array-like of numbers; got {exc}.") from exc
    if arr.dtype.kind == "c":
        raise TypeError(f"`{name}` must be real; got complex dtype {arr.dtype}.")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"`{name}` must hold numbers; got dtype {arr.dtype} ({exc}).") from exc
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
    arr = np.asarray(arr, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise ValueError(
            f"`{name}` contains {arr[i, j]} at row {i}, column {j}; features must be finite."
        )
    return arr


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
        what = "no item" if kept.size == 0 else f"the single value {kept[0]!r}"
        raise ValueError(
            f"`{name}` must take at least two distinct values (among items with positive "
            f"weight); got {what}. Kappa of a constant rating is undefined."
        )


# ---------------------------------------------------------------------------- linear algebra


def _r_factor(z: np.ndarray, n_design: int) -> np.ndarray:
    """Triangular R with RᵀR = ZᵀZ (m × p, m = min(n, p)); Z is n × p.

    The first `n_design` columns of Z are the design, the rest right-hand sides.
    Cholesky of the equilibrated Gram matrix when it exists and the design block of
    the factor is well-conditioned (cond ≤ _CHOLESKY_MAX_COND); Householder QR
    otherwise.
    """
    n, p = z.shape
    if n >= p:
        gram = z.T @ z
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


def _design(blocks, w: np.ndarray, total: float, center: bool):
    """Z = √w·[blocks...] (n × p, C order), each column centered by its weighted mean when
    `center` (two-pass corrected: exact to rounding for data far from zero). Returns
    (Z, means) with the means of the uncentered columns (zeros when not centering)."""
    n = w.shape[0]
    widths = [b.shape[1] if b.ndim == 2 else 1 for b in blocks]
    z = np.empty((n, sum(widths)))
    means = np.zeros(z.shape[1])
    col = 0
    for b, k in zip(blocks, widths, strict=True):
        dest = z[:, col : col + k] if b.ndim == 2 else z[:, col]
        if center:
            m = (w @ b) / total
            np.subtract(b, m, out=dest)
            means[col : col + k] = m
        else:
            dest[...] = b
        col += k
    if center:
        err = (w @ z) / total  # second pass
        z -= err
        means += err
    if not np.all(w == 1.0):
        z *= np.sqrt(w)[:, None]
    return z, means


def _factor(z: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """R-factor of Z = [design (d columns), right-hand sides], split into the two blocks."""
    r = _r_factor(z, d)
    return r[:, :d], r[:, d:]


def _ridge_solve(r_x: np.ndarray, b: np.ndarray, alpha: float, n_rows: int):
    """argmin ‖R_x·β − b‖² + α‖β‖² per column of b (minimum norm when α = 0), and rank.

    Through the SVD R_x = U·diag(s)·Vᵀ: β = V·diag(s / (s² + α))·Uᵀ·b        (R5)
    With α = 0, singular values below max(n, d)·eps·s_max count as zero (numpy's lstsq
    rule), which gives the minimum-norm least-squares solution.
    """
    u, s, vt = np.linalg.svd(r_x, full_matrices=False)
    cutoff = max(n_rows, r_x.shape[1]) * _EPS * (s[0] if s.size else 0.0)
    keep = s > cutoff
    rank = int(keep.sum())
    filt = np.zeros_like(s)
    filt[keep] = s[keep] / (s[keep] ** 2 + alpha)
    return vt.T @ (filt * (u.T @ b).T).T, rank  # b may be (m,) or (m, k)


def _degenerate_tol(n: int, d: int) -> float:
    """Correlations at or below this are rounding noise: X carries no signal about y."""
    return 64.0 * max(n, d) * _EPS


# ---------------------------------------------------------------------------- the fits


def _fit_with_intercept(x, y, w, alpha):
    """Intercept model: least squares/ridge on centered data, rescaled along its ray."""
    d = x.shape[1]
    z, means = _design([x, y], w, float(w.sum()), center=True)
    xbar, ybar = means[:d], float(means[d])
    r_x, r_rhs = _factor(z, d)
    r_y = r_rhs[:, 0]
    beta, rank = _ridge_solve(r_x, r_y, alpha, x.shape[0])  # (eq. 4–5 / 10) direction
    h = r_x @ beta  # the centered fitted values, in the coordinates of R
    syy = float(r_y @ r_y)  # S_yy
    syh = float(r_y @ h)  # S_yŷ (= S_ŷŷ when alpha = 0: eq. 7)
    shh = float(h @ h)  # S_ŷŷ
    ls_stat = 2.0 * syh / (syy + shh)  # (R1) at f̄ = ȳ, scale 1
    corr = syh / np.sqrt(syy * shh) if shh > 0 else 0.0
    if not corr > _degenerate_tol(*x.shape):
        coef = np.zeros(x.shape[1])
        return coef, ybar, 0.0, ls_stat, rank  # (R7) every affine predictor has κ ≤ 0
    c = np.sqrt(syy / shh)  # (R3) optimal scale = sd(y)/sd(ŷ); 1/κ̂ of eq. 8 when alpha = 0
    coef = c * beta  # (eq. 9 / R4)
    stat = 2.0 * c * syh / (syy + c * c * shh)  # (R1) = corr(y, ŷ) (eq. 14, R3)
    intercept = ybar - float(xbar @ coef)  # (R2) f̄ = ȳ
    return coef, intercept, float(stat), float(ls_stat), rank


def _fit_without_intercept(x, y, w, alpha):
    """No intercept: maximize κ over the plane spanned by the fits of the constant and
    of the centered target (the whole column space when alpha = 0)."""
    total = float(w.sum())
    ybar = float(_design([y], w, total, center=True)[1][0])
    z, _ = _design([x, np.ones_like(y), y - ybar], w, total, center=False)
    r_x, r_rhs = _factor(z, x.shape[1])
    r_e, r_y = r_rhs[:, 0], r_rhs[:, 1]
    a, rank = _ridge_solve(r_x, r_rhs, alpha, x.shape[0])  # fits of e and of y − ȳ
    z2 = r_x @ a  # the plane V (two columns, in R coordinates)
    theta = np.linalg.lstsq(z2, r_rhs, rcond=max(z2.shape[0], 2) * _EPS)[0]
    pe, py = z2 @ theta[:, 0], z2 @ theta[:, 1]  # projections of e and y − ȳ onto V
    syy = float(r_y @ r_y)

    def kappa_of(coef):  # (R1) with f = X·coef, via f − ȳ·e in R coordinates (R8)
        f = r_x @ coef
        g = f - ybar * r_e
        return float(2.0 * (r_y @ f) / (syy + g @ g))

    ls_stat = kappa_of(a @ np.array([ybar, 1.0]))  # plain least squares/ridge of y on X
    big_c = float(py @ py)  # C = ‖P(y − ȳ)‖²
    if not np.sqrt(big_c / syy) > _degenerate_tol(*x.shape):
        return np.zeros(x.shape[1]), 0.0, 0.0, ls_stat, rank  # (R7)
    resid_e = r_e - pe
    big_a = syy + ybar * ybar * float(resid_e @ resid_e)  # A = S_yy + ȳ²‖(I − P)e‖²
    big_b = ybar * float(r_y @ pe)  # B = ȳ⟨y − ȳ, Pe⟩
    root = np.sqrt(big_b * big_b + big_a * big_c)
    # (R9) κ = (B + √(B² + AC)) / A, written without cancellation for either sign of B
    kappa = (big_b + root) / big_a if big_b >= 0 else big_c / (root - big_b)
    coef = a @ (ybar * theta[:, 0] + theta[:, 1] / kappa)  # f = ȳ·Pe + P(y − ȳ)/κ (R8)
    return coef, 0.0, kappa_of(coef), ls_stat, rank


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
        Non-finite `X` or `y`, 1-D `X`, mismatched lengths, negative or non-finite
        `alpha`, or `y` with fewer than two distinct values.
    TypeError
        Non-numeric or sparse `X`, non-real `alpha`, non-bool `fit_intercept`.

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
    do not depend on that choice. When the fit interpolates y (rank ≥ n − 1 with an
    intercept) the in-sample kappa is 1 and means nothing: use ``alpha > 0``, which
    makes X_cᵀWX_c + αI positive definite and the solution unique and stable. If X
    carries no linear information about y (X_cᵀW(y − ȳ) = 0 to rounding), every
    affine predictor has kappa ≤ 0 and the optimum 0 is attained by every predictor
    with zero covariance; qwkit then returns ``coef = 0``, ``intercept = ȳ`` (0 without
    an intercept) and ``statistic = 0.0`` (R7).

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
    if x.shape[0] != yv.shape[0]:
        raise ValueError(
            f"`X` and `y` must have the same number of samples; got {x.shape[0]} and {yv.shape[0]}."
        )
    a = _check_alpha(alpha)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise TypeError(f"`fit_intercept` must be True or False; got {fit_intercept!r}.")
    w = _v.check_sample_weight(sample_weight, yv.shape[0])
    if w is None:
        w = np.ones_like(yv)
    _check_target(yv, w, "y")

    fit = _fit_with_intercept if fit_intercept else _fit_without_intercept
    coef, intercept, stat, ls_stat, rank = fit(x, yv, w, a)

    coef = np.ascontiguousarray(coef, dtype=np.float64)
    coef.flags.writeable = False
    return KappaRegressionResult(
        coef=coef,
        intercept=float(intercept),
        statistic=float(stat),
        least_squares_statistic=float(ls_stat),
        rank=int(rank),
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
    if yv.shape[0] != s.shape[0]:
        raise ValueError(
            f"`y_true` and `y_score` must have the same length; got {yv.shape[0]} and {s.shape[0]}."
        )
    w = _v.check_sample_weight(sample_weight, yv.shape[0])
    if w is None:
        w = np.ones_like(yv)
    _check_target(yv, w, "y_true")

    coef, intercept, stat, _, _ = _fit_with_intercept(s[:, None], yv, w, 0.0)

    return KappaRescaleResult(
        intercept=float(intercept), slope=float(coef[0]), statistic=float(stat)
    )
