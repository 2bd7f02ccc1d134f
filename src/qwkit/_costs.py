"""Costs of ordinal decisions: expected cost of a confusion matrix and three cost models.

Steele (2016, *Economic efficiency and the weighted kappa loss function*) argues that
a business should judge a rating model by what its mistakes cost, not by kappa. The
derivations are in ``docs/economics.md``; the labels in the comments are used there.

Convention, everywhere in qwkit: ``cost[i, j]`` is the cost of *deciding* class j for an
item whose *true* class is i (rows = truth, columns = decision, like a confusion matrix
and like ``bayes_decision``). Negative costs are profits. For a confusion matrix O with
n = Σ O the mean cost per rated item is

    C(O) = Σᵢⱼ O[i, j]·cost[i, j] / n                                          (eq. C1)

Kappa is a ratio of two such costs: κ = 1 − C(O) / C(E) with E the chance table and
cost = the disagreement weights (Steele 2016, eq. 1).

Insurance pricing (Steele 2016, §4.2). Classes are numbered 1..K. An item whose true risk
class is i has an expected claim cost ``cost_per_class·i``; a rating j sets the premium
``price_per_class·j``. The customer buys if and only if the premium is *strictly below*
``price_per_class·i + tolerance`` (the fair premium of the true class plus what the
customer tolerates above it). The insurer's profit is

    profit[i, j] = price_per_class·j − cost_per_class·i   if the customer buys,
                   0                                       otherwise             (eq. C2)

and the loss matrix is cost = −profit (eq. C3), so that ``expected_cost`` gives minus
the mean profit per item and ``bayes_decision`` maximizes expected profit.

Risk across the distribution (Steele 2016, §4.3). Latent risk R ~ N(μ, σ²) is cut into K
classes of equal mass at the quantiles μ + σ·Φ⁻¹(k/K); every class is priced at its
mean mⱼ = E[R | class j] (the fair premium), and an item whose risk is R, rated j,
is mispriced by |R − mⱼ| (or (R − mⱼ)²). The class-level loss is the expectation over
the items of the true class,

    cost[i, j] = E[ |R − mⱼ| | R in class i ]                                   (eq. C4)

which, unlike kappa's weights, depends on where class i lies: the tail classes are
wide and far apart, the central ones narrow and close together.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._results import freeze_arrays, public_module, reduce_dataclass
from qwkit._base._validation import (
    check_choice,
    check_confusion,
    check_cost,
    check_integer,
    check_real,
)
from qwkit._base._weights import named_weights, weight_matrix

__all__ = [
    "RiskClassModel",
    "cost_matrix",
    "expected_cost",
    "insurance_loss_matrix",
    "risk_class_model",
]

_COST_KINDS = ("quadratic", "linear", "absolute", "0-1")
_RISK_LOSSES = ("absolute", "squared")


# ---------------------------------------------------------------------------- API


def expected_cost(confusion: ArrayLike, cost: ArrayLike) -> float:
    """Mean cost per rated item of a confusion matrix under a cost matrix.

    Parameters
    ----------
    confusion : array-like of shape (K, K)
        Counts (or weights) of items, rows the true class, columns the decided class,
        as returned by :func:`confusion_matrix`. Non-negative, not all zero.
    cost : array-like of shape (K, K)
        ``cost[i, j]`` is the cost of deciding class j for an item whose true class is
        i. Any finite values; negative costs are profits.

    Returns
    -------
    float
        Σᵢⱼ confusion[i, j]·cost[i, j] / Σᵢⱼ confusion[i, j] (eq. C1).

    Raises
    ------
    ValueError
        A confusion matrix that is not square, negative, non-finite or all zero; a cost
        matrix that is not square, not finite or of another size.
    TypeError
        Non-numeric input.

    See Also
    --------
    cost_matrix : Named cost matrices (quadratic, linear, absolute, 0-1).
    insurance_loss_matrix : Steele's (2016) insurance pricing model.
    bayes_decision : The decisions that minimize the expected cost.

    Notes
    -----
    With ``cost_matrix(K, "0-1")`` it is the error rate (1 − accuracy), with
    ``cost_matrix(K, "absolute")`` the mean absolute error in classes, and with an
    insurance loss matrix minus the mean profit per item. Kappa itself is
    1 − C(O)/C(E) with C this function, E the chance table and the cost the
    disagreement weights.

    Examples
    --------
    Steele (2016), §3.2, second table: 93% accuracy, average error 0.09.

    >>> import qwkit
    >>> table = [[95, 3, 2, 0], [3, 92, 3, 2], [2, 3, 90, 3], [0, 2, 5, 95]]
    >>> round(qwkit.expected_cost(table, qwkit.cost_matrix(4, "0-1")), 6)
    0.07
    >>> round(qwkit.expected_cost(table, qwkit.cost_matrix(4, "absolute")), 6)
    0.09
    """
    table = check_confusion(confusion)
    mat = check_cost(cost, table.shape[0])
    # Both scaled by powers of two (exact) to a largest entry below 1, so that no sum
    # or product overflows or underflows; the mean cost is then at most 1 in size.
    table = table.astype(np.float64)
    table = np.ldexp(table, -int(np.frexp(table.max())[1]))
    unit = int(np.frexp(np.max(np.abs(mat)))[1])
    mean = np.sum(table * np.ldexp(mat, -unit)) / table.sum()  # (eq. C1)
    return float(np.ldexp(mean, unit))


def cost_matrix(
    n_classes: int, kind: Literal["quadratic", "linear", "absolute", "0-1"] = "quadratic"
) -> np.ndarray:
    """A named symmetric cost matrix of a K-class ordinal scale.

    Parameters
    ----------
    n_classes : int
        Number of classes K (K ≥ 1).
    kind : {"quadratic", "linear", "absolute", "0-1"}, default="quadratic"
        ``"quadratic"``: (i − j)² / (K − 1)², kappa's weights normalized to a maximum
        of 1 (Steele 2016, eq. 2). ``"linear"``: |i − j| / (K − 1), also normalized to a
        maximum of 1. ``"absolute"``: |i − j|, the *raw* number of classes between the
        decision and the truth, so that :func:`expected_cost` is the mean absolute
        error in classes (Steele's "average error"). ``"0-1"``: 1 off the diagonal,
        0 on it, so that :func:`expected_cost` is the error rate.

    Returns
    -------
    ndarray of shape (K, K)
        ``cost[i, j]`` for true class i and decided class j; zero on the diagonal.

    Raises
    ------
    ValueError
        ``n_classes`` below 1 or an unknown ``kind``.
    TypeError
        ``n_classes`` not an integer.

    See Also
    --------
    weight_matrix : The same shapes as kappa's disagreement weights.
    expected_cost : Mean cost of a confusion matrix.

    Notes
    -----
    "linear" and "absolute" differ only by the factor K − 1: the same decisions
    minimize both, and only "absolute" reads in classes. The normalized kinds equal
    ``weight_matrix(K, "quadratic")`` and ``weight_matrix(K, "linear")``.

    Examples
    --------
    >>> import qwkit
    >>> qwkit.cost_matrix(3, "absolute")
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    >>> qwkit.cost_matrix(3, "linear")
    array([[0. , 0.5, 1. ],
           [0.5, 0. , 0.5],
           [1. , 0.5, 0. ]])
    """
    check_choice(kind, "kind", _COST_KINDS)
    k = check_integer(n_classes, "n_classes", 1)
    if kind == "absolute":
        return named_weights(k, "linear")  # raw |i − j|
    return weight_matrix(k, "identity" if kind == "0-1" else kind)


def insurance_loss_matrix(
    n_classes: int,
    *,
    price_per_class: float = 10,
    cost_per_class: float = 9,
    tolerance: float = 5,
) -> np.ndarray:
    """Steele's (2016) insurance pricing model (§4.2) as a loss (= −profit) matrix.

    Parameters
    ----------
    n_classes : int
        Number of risk classes K, numbered 1..K (row/column index 0 is class 1).
    price_per_class : float, default=10
        Premium per class: rating an item in class j charges ``price_per_class·j``.
        Positive.
    cost_per_class : float, default=9
        Expected claim cost per class: an item of true class i costs
        ``cost_per_class·i`` whatever its premium. Non-negative.
    tolerance : float, default=5
        How far above the fair premium of its true class a customer still buys: the
        customer of true class i buys if and only if the premium is strictly below
        ``price_per_class·i + tolerance``. Non-negative (0: nobody buys, even at the
        fair premium).

    Returns
    -------
    ndarray of shape (K, K)
        ``loss[i, j]`` = minus the insurer's profit from rating an item of true class
        i + 1 in class j + 1 (eqs. C2, C3): ``cost_per_class·(i+1) − price_per_class·(j+1)``
        if the customer buys, 0 if the customer walks away. Negative entries are
        profits. Pass it to :func:`expected_cost` (giving minus the mean profit per
        item) or :func:`bayes_decision` (which then maximizes expected profit).

    Raises
    ------
    ValueError
        ``n_classes`` below 1; a negative or non-finite price, cost or tolerance, or
        a zero price.
    TypeError
        Non-integer ``n_classes`` or non-real parameters.

    See Also
    --------
    expected_cost, bayes_decision, risk_class_model

    Notes
    -----
    Steele's worked example (true class 4, price 10 × class, cost 9 × class, buys
    below $45): rated 4, the insurer gains 40 − 36 = $4 (``-loss[3, 3]``); rated 5 or
    more, the customer walks away and the insurer makes $0 — $4 less than when rated
    right, which is Steele's "loses $4"; rated 3, 2, 1 the premium falls to 30, 20,
    10 against a cost of 36, i.e. $10, $20, $30 less than when rated right. Steele's
    losses are thus *regrets*, ``loss[i, j] − loss[i, i]``; the matrix returned here is
    the ledger itself. The two differ by a constant per true class, so they give the
    same Bayes decisions and the same differences in expected cost between any two
    decision rules; only the ledger gives the profit in dollars.

    Examples
    --------
    >>> import qwkit
    >>> loss = qwkit.insurance_loss_matrix(8)
    >>> loss[3]  # true class 4, rated 1..8
    array([26., 16.,  6., -4.,  0.,  0.,  0.,  0.])
    >>> loss[3] - loss[3, 3]  # Steele's losses relative to the right rating
    array([30., 20., 10.,  0.,  4.,  4.,  4.,  4.])
    """
    k = check_integer(n_classes, "n_classes", 1)
    price = check_real(price_per_class, "price_per_class", positive=True)
    unit_cost = check_real(cost_per_class, "cost_per_class")
    tol = check_real(tolerance, "tolerance")
    cls = np.arange(1, k + 1, dtype=np.float64)
    for value, name in ((price, "price_per_class"), (unit_cost, "cost_per_class")):
        if not np.isfinite(value * k):
            raise QwkitError(
                f"`{name}` times the number of classes ({k}) exceeds the float64 range; "
                f"got {value!r}. Express the money in larger units.",
                parameter=name,
            )
    premium = price * cls[None, :]  # price of rating j
    claims = unit_cost * cls[:, None]  # expected cost of true class i
    with np.errstate(over="ignore"):  # an infinite willingness to pay is right here
        buys = premium < price * cls[:, None] + tol  # willingness to pay   (eq. C2)
    profit = np.where(buys, premium - claims, 0.0)  # (eq. C2); both ≥ 0: no overflow
    return 0.0 - profit  # loss = −profit, never −0.0   (eq. C3)


@dataclass(frozen=True, slots=True, eq=False)
class RiskClassModel:
    """Normal latent risk cut into equal-mass classes, from :func:`risk_class_model`.

    Attributes
    ----------
    edges : ndarray of shape (K − 1,)
        Cut points on the risk scale: μ + σ·Φ⁻¹(k/K), k = 1..K − 1. Class j (0-based)
        holds the risks in (edges[j − 1], edges[j]]; see :func:`apply_thresholds`.
        All three arrays are read-only.
    class_means : ndarray of shape (K,)
        Mean risk of each class, E[R | class j]: the fair premium of the class.
    cost : ndarray of shape (K, K)
        ``cost[i, j]`` = E[loss(R, mⱼ) | R in class i] (eq. C4): the mean mispricing of
        the items of true class i when they are priced as class j.
    loss : str
        ``"absolute"`` (|R − mⱼ|) or ``"squared"`` ((R − mⱼ)²).
    """

    edges: np.ndarray
    class_means: np.ndarray
    cost: np.ndarray
    loss: str

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)


public_module(RiskClassModel)


def _truncated_moments(a: np.ndarray, b: np.ndarray):
    """Mass, mean and variance of a standard normal restricted to (a, b] (a, b may be ±inf)."""
    mass = special.ndtr(b) - special.ndtr(a)
    pa, pb = _phi(a), _phi(b)
    mean = (pa - pb) / mass
    a_pa = np.where(np.isfinite(a), a, 0.0) * pa  # a·φ(a) → 0 at ±∞
    b_pb = np.where(np.isfinite(b), b, 0.0) * pb
    var = 1.0 + (a_pa - b_pb) / mass - mean * mean
    return mass, mean, var


def _phi(x):
    return np.exp(-0.5 * np.square(x)) / np.sqrt(2.0 * np.pi)


def _absolute_deviation(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """∫ₐᵇ |u − c| φ(u) du for a standard normal density φ (∫ u φ du = −φ), element-wise
    over the broadcast of a, b (interval ends, ±inf allowed) and c."""
    m = np.minimum(np.maximum(c, a), b)  # split point inside [a, b]
    below = c * (special.ndtr(m) - special.ndtr(a)) + (_phi(m) - _phi(a))
    above = (_phi(m) - _phi(b)) - c * (special.ndtr(b) - special.ndtr(m))
    return below + above


def risk_class_model(
    n_classes: int,
    *,
    mean: float = 0.0,
    sd: float = 1.0,
    loss: Literal["absolute", "squared"] = "absolute",
) -> RiskClassModel:
    """Steele's (2016) §4.3 model: normal risk in equal-mass classes, losses that depend on where.

    Parameters
    ----------
    n_classes : int
        Number of classes K (K ≥ 2).
    mean : float, default=0.0
        Mean μ of the latent risk R.
    sd : float, default=1.0
        Standard deviation σ > 0 of the latent risk (the unit of the costs for
        ``loss="absolute"``).
    loss : {"absolute", "squared"}, default="absolute"
        How an item with risk R priced at the class mean mⱼ is penalized: |R − mⱼ|
        (mispricing in risk units) or (R − mⱼ)².

    Returns
    -------
    RiskClassModel
        ``edges``, ``class_means`` and ``cost`` (eq. C4), in that order of the classes.

    Raises
    ------
    ValueError
        ``n_classes`` below 2, ``sd`` not positive, a non-finite ``mean``, an unknown
        ``loss``.
    TypeError
        Non-integer ``n_classes`` or non-real ``mean``/``sd``.

    See Also
    --------
    insurance_loss_matrix : Asymmetric losses of mispricing (Steele 2016, §4.2).
    apply_thresholds : Put latent risks in their classes with ``edges``.

    Notes
    -----
    With u = (R − μ)/σ standard normal, class i holds u in (aᵢ, bᵢ] with
    aᵢ = Φ⁻¹(i/K), bᵢ = Φ⁻¹((i + 1)/K) (0-based i), each of mass 1/K. Its mean is
    mᵢ = μ + σ·(φ(aᵢ) − φ(bᵢ))·K. The absolute loss of eq. C4 is
    σ·K·∫ |u − c| φ(u) du over (aᵢ, bᵢ] with c = (mⱼ − μ)/σ, in closed form from
    ∫ u φ(u) du = −φ(u); the squared loss is Var(R | i) + (mᵢ − mⱼ)² with the
    variance of the truncated normal. The diagonal is the mispricing that no rating
    can avoid (the spread of risk within a class); it is largest in the wide tail
    classes. With 8 classes, rating a class-8 item (the upper tail) as class 7 costs
    0.75σ per item, 0.42σ more than rating it right; rating a class-5 item as class 4
    costs 0.32σ, 0.24σ more than rating it right (see the example). Kappa charges
    both mistakes the same.

    Examples
    --------
    >>> import qwkit
    >>> model = qwkit.risk_class_model(8)
    >>> round(float(model.edges[3]), 6), round(float(model.class_means[7]), 6)
    (0.0, 1.646828)
    >>> cost = model.cost
    >>> round(float(cost[7, 6]), 6), round(float(cost[7, 6] - cost[7, 7]), 6)  # 8 rated 7
    (0.751444, 0.418733)
    >>> round(float(cost[4, 3]), 6), round(float(cost[4, 3] - cost[4, 4]), 6)  # 5 rated 4
    (0.315953, 0.236468)
    """
    k = check_integer(n_classes, "n_classes", 2)
    if isinstance(mean, bool) or not isinstance(mean, numbers.Real):
        raise QwkitTypeError(f"`mean` must be a real number; got {mean!r}.", parameter="mean")
    mu = float(mean)
    if not np.isfinite(mu):
        raise QwkitError(f"`mean` must be finite; got {mean!r}.", parameter="mean")
    sigma = check_real(sd, "sd", positive=True)
    check_choice(loss, "loss", _RISK_LOSSES)

    cuts = special.ndtri(np.arange(1, k) / k)  # standard-normal quantiles
    lo = np.concatenate(([-np.inf], cuts))
    hi = np.concatenate((cuts, [np.inf]))
    mass, u_mean, u_var = _truncated_moments(lo, hi)
    if loss == "squared":  # Var(R | i) + (mᵢ − mⱼ)²   (eq. C4)
        gap = u_mean[:, None] - u_mean[None, :]
        unit_cost = u_var[:, None] + gap * gap
    else:  # E[|R − mⱼ| | i] / σ   (eq. C4), all (i, j) at once
        unit_cost = _absolute_deviation(lo[:, None], hi[:, None], u_mean[None, :])
        unit_cost /= mass[:, None]
    with np.errstate(over="ignore"):  # out-of-range results are reported below
        edges, class_means = mu + sigma * cuts, mu + sigma * u_mean
        cost = sigma * (sigma * unit_cost) if loss == "squared" else sigma * unit_cost
    if not (np.all(np.isfinite(edges)) and np.all(np.isfinite(class_means))):
        raise QwkitError(
            f"`mean` ({mean!r}) and `sd` ({sd!r}) put class edges or means beyond the "
            "float64 range; model the risk in smaller units.",
            parameter="sd",
            also=("mean",),
        )
    if not np.all(np.isfinite(cost)):
        raise QwkitError(
            f"`sd` ({sd!r}) is too large: the {loss} costs exceed the float64 range; "
            "model the risk in smaller units.",
            parameter="sd",
        )
    return RiskClassModel(edges=edges, class_means=class_means, cost=cost, loss=loss)
