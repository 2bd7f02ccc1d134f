"""The kappa-optimal linear model and the kappa-optimal affine map of any scores.

Every formula here is re-derived in ``docs/regression.md``; the equation labels in the
comments are the ones used there. Numbers (2)–(14) are those of Vaughn &
Justice (2015, *On the direct maximization of quadratic weighted kappa*, a preprint withdrawn
by its author); labels (R1)–(R10) are ours, where the preprint is wrong or silent.

Notation: item weights w (all ones by default), weighted means ȳ and x̄, centered
weighted inner products ⟨u, v⟩ = Σ wᵢ uᵢ vᵢ. For real-valued predictions f the soft
(continuous) quadratic weighted kappa is

    κ(y, f) = 2·S_yf / (S_yy + S_ff + Σw·(ȳ − f̄)²)                          (R1)

with S the centered weighted sums: `qwkit.soft_kappa_score`.

Numerical method: ``_linalg`` (R5–R10).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base import _linalg
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._item_weights import item_weights
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._numerics import to_unit_max
from qwkit._base._results import freeze_arrays, public_module, reduce_dataclass, result_dict
from qwkit._base._validation import check_real, check_same_length, feature_matrix, real_vector

__all__ = [
    "KappaRegressionResult",
    "KappaRescaleResult",
    "kappa_regression",
    "kappa_rescale",
]

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
        X : array-like of shape (n_items, n_features)
            Features, with the columns used in the fit.

        Returns
        -------
        ndarray of shape (n_items,)
        """
        names = _column_names(X)
        if self.feature_names is not None and names is not None and names != self.feature_names:
            raise QwkitError(
                f"`X` has columns {list(names)}, but the model was fitted on columns "
                f"{list(self.feature_names)} (same names, same order).",
                parameter="X",
            )
        x = feature_matrix(X, "X")
        if x.shape[1] != self.coef.shape[0]:
            raise QwkitError(
                f"`X` must have {self.coef.shape[0]} columns, like the data the model was "
                f"fitted on; got {x.shape[1]}.",
                parameter="X",
            )
        return _centered_predict(x, self.coef, self._x_mean, self._y_mean)

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values (``coef`` as a list)."""
        return result_dict(
            self,
            ("coef", "intercept", "statistic", "least_squares_statistic", "rank", "feature_names"),
        )


public_module(KappaRegressionResult)


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
        y_score : array-like of shape (n_items,)

        Returns
        -------
        ndarray of shape (n_items,)
        """
        f = real_vector(y_score, "y_score")
        return self.intercept + self.slope * f

    def to_dict(self) -> dict:
        """The result as a dict of plain Python values."""
        return result_dict(self, ("intercept", "slope", "statistic"))


public_module(KappaRescaleResult)


# ---------------------------------------------------------------------------- helpers


def _centered_predict(x: np.ndarray, coef: np.ndarray, xbar: np.ndarray, ybar: float):
    """ȳ + (x − x̄)·coef (R2: f̄ = ȳ), x̄ = xbar[0] + xbar[1] as in the fit's centering."""
    return ybar + ((x - xbar[0]) - xbar[1]) @ coef


def _check_target(y: np.ndarray, w: np.ndarray, name: str) -> None:
    kept = y[w > 0]
    if kept.size == 0 or kept.min() == kept.max():
        what = "no item" if kept.size == 0 else f"the single value {kept[0].item()!r}"
        raise QwkitError(
            f"`{name}` must take at least two distinct values (among items with positive "
            f"weight); got {what}. Kappa of a constant rating is undefined.",
            parameter=name,
        )


def _normalized_weights(sample_weight, counts, n: int) -> tuple[np.ndarray, int]:
    """(w·2^shift, shift): weights (all ones when None) times the power of two (exact)
    that puts the largest in [1, 2), so that sums of huge weights cannot overflow nor
    products of subnormal ones vanish (R10). Kappa and the least-squares direction are
    unchanged by the common factor; a ridge penalty α becomes α·2^shift."""
    w = item_weights(sample_weight, counts, n).as_float()
    return (np.ones(n), 0) if w is None else to_unit_max(w)


# ---------------------------------------------------------------------------- the fits


def _fit_with_intercept(x, y, w, alpha, shift):
    """Intercept model: least squares/ridge on centered data, rescaled along its ray.

    Works in the scaled coordinates of _factor (y in units of 2^e_y): every quantity
    below is a ratio or is unscaled at the end. Returns (coef, intercept, statistic,
    least-squares statistic, rank, x̄ (2 × d, see _center_weight), ȳ).
    """
    n, d = x.shape
    r, means, e = _linalg.factor((x, y), w, 0, d)
    xbar, ybar = means[:, :d], float(means[0, d] + means[1, d])
    r_x, r_y = r[:, :d], r[:, d]
    gamma, rank = _linalg.solve(r_x, e[:d], r_y, alpha, shift, n)  # (eq. 4–5 / 10) direction
    h = r_x @ gamma  # the centered fitted values, in the coordinates of R
    syy = float(r_y @ r_y)  # S_yy
    syh = float(r_y @ h)  # S_yŷ (= S_ŷŷ when alpha = 0: eq. 7)
    shh = float(h @ h)  # S_ŷŷ
    ls_stat = 2.0 * syh / (syy + shh)  # (R1) at f̄ = ȳ, scale 1
    corr = syh / (np.sqrt(syy) * np.sqrt(shh)) if shh > 0 else 0.0
    if not corr > _linalg.degenerate_tol(n, d):
        return np.zeros(d), ybar, 0.0, ls_stat, rank, xbar, ybar  # (R7) κ ≤ 0 for all
    c = np.sqrt(syy / shh)  # (R3) optimal scale = sd(y)/sd(ŷ); 1/κ̂ of eq. 8 when alpha = 0
    coef = _linalg.unscale(c * gamma, e[d] - e[:d])  # (eq. 9 / R4), back to the units of X, y
    stat = 2.0 * c * syh / (syy + c * c * shh)  # (R1) = corr(y, ŷ) (eq. 14, R3)
    intercept = _linalg.intercept(ybar, xbar[0] + xbar[1], coef)  # (R2) f̄ = ȳ
    return coef, intercept, float(stat), float(ls_stat), rank, xbar, ybar


def _fit_without_intercept(x, y, w, alpha, shift):
    """No intercept: maximize κ over the plane spanned by the fits of the constant and
    of the centered target (the whole column space when alpha = 0).

    The design is [X, 1, y − ȳ] weighted and scaled (_factor); in those units the
    constant column is r_e and ȳ·(constant) is yb·r_e.
    """
    n, d = x.shape
    r, means, e = _linalg.factor((x, np.ones(n), y), w, d + 1, d)
    ybar = float(means[0, d + 1] + means[1, d + 1])
    yb = float(np.ldexp(ybar, e[d] - e[d + 1]))  # ȳ in the scaled units of e and y
    r_x, r_rhs = r[:, :d], r[:, d:]
    r_e, r_y = r_rhs[:, 0], r_rhs[:, 1]
    a, rank = _linalg.solve(r_x, e[:d], r_rhs, alpha, shift, n)  # fits of e and of y − ȳ
    z2 = r_x @ a  # the plane V (two columns, in R coordinates)
    theta = np.linalg.lstsq(z2, r_rhs, rcond=max(z2.shape[0], 2) * _linalg.EPS)[0]
    pe, py = z2 @ theta[:, 0], z2 @ theta[:, 1]  # projections of e and y − ȳ onto V
    syy = float(r_y @ r_y)

    def kappa_of(coef):  # (R1) with f = X·coef, via f − ȳ·e in R coordinates (R8)
        f = r_x @ coef
        g = f - yb * r_e
        return float(2.0 * (r_y @ f) / (syy + g @ g))

    ls_stat = kappa_of(a @ np.array([yb, 1.0]))  # plain least squares/ridge of y on X
    big_c = float(py @ py)  # C = ‖P(y − ȳ)‖²
    zeros = np.zeros((2, d))
    if not np.sqrt(big_c / syy) > _linalg.degenerate_tol(n, d):
        return zeros[0], 0.0, 0.0, ls_stat, rank, zeros, 0.0  # (R7)
    resid_e = r_e - pe
    big_a = syy + yb * yb * float(resid_e @ resid_e)  # A = S_yy + ȳ²‖(I − P)e‖²
    big_b = yb * float(r_y @ pe)  # B = ȳ⟨y − ȳ, Pe⟩
    root = np.sqrt(big_b * big_b + big_a * big_c)
    # (R9) κ = (B + √(B² + AC)) / A, written without cancellation for either sign of B
    kappa = (big_b + root) / big_a if big_b >= 0 else big_c / (root - big_b)
    coef = a @ (yb * theta[:, 0] + theta[:, 1] / kappa)  # f = ȳ·Pe + P(y − ȳ)/κ (R8)
    stat = kappa_of(coef)
    return _linalg.unscale(coef, e[d + 1] - e[:d]), 0.0, stat, ls_stat, rank, zeros, 0.0


def _clipped(stat: float, ls_stat: float) -> tuple[float, float]:
    """Kappa in [−1, 1] and the least-squares kappa never above it, against rounding."""
    stat = min(1.0, max(-1.0, float(stat)))
    return stat, min(stat, max(-1.0, float(ls_stat)))


def kappa_regression(
    X: ArrayLike,
    y: ArrayLike,
    *,
    alpha: float = 0.0,
    fit_intercept: bool = True,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    nan_policy: NanPolicy = "raise",
) -> KappaRegressionResult:
    """The linear model that maximizes the soft quadratic weighted kappa, in closed form.

    Among all predictors ``f(x) = b + x @ beta`` it returns the one with the largest
    in-sample :func:`soft_kappa_score`: least squares on centered data, with the
    centered fit stretched to the standard deviation of `y` (scaled by 1/κ̂).

    Parameters
    ----------
    X : array-like of shape (n_items, n_features)
        Features (2-D; for the scores of a single model use :func:`kappa_rescale`).
    y : array-like of shape (n_items,)
        Target ratings (integers or reals) with at least two distinct values.
    alpha : float, default=0.0
        Ridge penalty α‖β‖² on the centered least-squares problem (the intercept is
        never penalized). It only chooses the *direction* of the model; the scale along
        it is then chosen to maximize kappa (see Notes).
    fit_intercept : bool, default=True
        Fit an intercept. Without one, kappa is maximized over ``f = X @ beta``.
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative item weights: weighted means, weighted least squares, weighted
        kappa. Integer weights give the same model as repeated rows.
    counts : array-like of shape (n_items,), default=None
        Whole numbers: how many identical items each row stands for (exclusive with
        ``sample_weight``; the same model as the repeated rows).
    nan_policy : {"raise", "omit"}, default="raise"
        A missing feature or rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its
        item is left out of the fit, with its item weight. A fit has no NaN form:
        ``"propagate"`` is refused (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    KappaRegressionResult
        ``coef``, ``intercept``, ``statistic`` (in-sample soft kappa),
        ``least_squares_statistic``, ``rank`` and ``.predict(X)``.

    Raises
    ------
    QwkitError
        Non-finite or missing values in `X` or `y`, 1-D or ragged `X`, mismatched
        lengths, negative or non-finite `alpha`, `y` with fewer than two distinct
        values, or coefficients beyond the float64 range.
    QwkitTypeError
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
    (Vaughn & Justice 2015, eqs. 5, 8, 9), and κ̂ equals the correlation of y with
    the model (their eq. 14).

    With ``alpha > 0`` the direction is the ridge solution and the scale is again the
    kappa-optimal one, c = ‖y − ȳ‖/‖ŷ_rr‖; `statistic` is corr(y, ŷ_rr). This is *not*
    the scale of their eq. 13 (whose kappa is their eq. 12): that point is a
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
    names = ("X", "y", "sample_weight", "counts")
    inputs = paired((X, y, sample_weight, counts), names)
    rows = nan_rows(nan_policy, inputs, names, rated=2, allowed=RAISE_OR_OMIT)
    X, y, sample_weight, counts = rows.values
    x = feature_matrix(X, "X")
    yv = real_vector(y, "y")
    check_same_length(x, yv, ("X", "y"))
    a = check_real(alpha, "alpha")
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise QwkitTypeError(
            f"`fit_intercept` must be True or False; got {fit_intercept!r}.",
            parameter="fit_intercept",
        )
    w, shift = _normalized_weights(sample_weight, counts, yv.shape[0])
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


def kappa_rescale(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    nan_policy: NanPolicy = "raise",
) -> KappaRescaleResult:
    """The affine map ``a + b * y_score`` that maximizes soft quadratic weighted kappa.

    Any model's real-valued scores become kappa-optimal (among affine maps) by matching
    the mean and standard deviation of the true ratings, with the sign of the
    correlation.

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        True ratings, with at least two distinct values.
    y_score : array-like of shape (n_items,)
        Real-valued scores of any model.
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative item weights.
    counts : array-like of shape (n_items,), default=None
        Whole numbers: how many identical items each row stands for (exclusive with
        ``sample_weight``).
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its item is
        left out of the fit, with its item weight. A fit has no NaN form: ``"propagate"`` is
        refused (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    KappaRescaleResult
        ``intercept``, ``slope``, ``statistic`` (the in-sample soft kappa of the mapped
        scores, \\|corr(y_true, y_score)\\|) and ``.predict(y_score)``.

    Raises
    ------
    QwkitError
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
    names = ("y_true", "y_score", "sample_weight", "counts")
    inputs = paired((y_true, y_score, sample_weight, counts), names)
    rows = nan_rows(nan_policy, inputs, names, rated=2, allowed=RAISE_OR_OMIT)
    y_true, y_score, sample_weight, counts = rows.values
    yv = real_vector(y_true, "y_true")
    s = real_vector(y_score, "y_score")
    check_same_length(yv, s, ("y_true", "y_score"))
    w, _ = _normalized_weights(sample_weight, counts, yv.shape[0])
    _check_target(yv, w, "y_true")

    coef, intercept, stat, _, _, _, _ = _fit_with_intercept(s[:, None], yv, w, 0.0, 0)

    return KappaRescaleResult(
        intercept=float(intercept), slope=float(coef[0]), statistic=_clipped(stat, stat)[0]
    )
