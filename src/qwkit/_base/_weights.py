"""Disagreement weights: the one resolver of ``weights``, and ``weight_matrix``.

``weights`` means the same everywhere in qwkit: ``"quadratic"`` (the default),
``"linear"``, ``"identity"`` or None (unweighted), or a (K, K) matrix of non-negative
disagreement weights indexed by positions on the rating scale, ``[rater 1, rater 2]``
(``[true class, predicted class]``). :func:`check_weights` validates the argument once;
:func:`resolve` turns it into the matrix for a scale of K categories, with one wording
for a matrix that does not fit. Named weights are returned *unnormalized* — integer
valued, (i − j)², |i − j| or 1 − δᵢⱼ — so that sums of counts times weights are exact;
any positive scaling of W leaves kappa unchanged (eq. 1 of ``docs/kappa.md``).
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._registry import WEIGHTS, WeightsName
from qwkit._base._scale import MAX_DENSE_CLASSES
from qwkit._base._validation import as_real_array, check_integer

__all__ = [
    "BOTH_CONSTANT",
    "EXACT_WEIGHTS",
    "GWET_WEIGHTS",
    "NAMED_WEIGHTS",
    "RATER_WEIGHTS",
    "WeightsLike",
    "check_weights",
    "gwet_disagreement",
    "is_exact_name",
    "named_weights",
    "resolve",
    "same_weights",
    "weight_matrix",
    "weights_at",
    "weights_name",
    "zero_disagreement_reason",
]

# The names are the records of the registry (``_base._registry.WEIGHTS``).
#: The names with integer-valued matrices — (i − j)², |i − j|, 1 − δᵢⱼ — whose kappa the
#: two-rater functions compute from moments, margins or table-free sums, exactly.
EXACT_WEIGHTS = WEIGHTS.where(lambda r: r.exact)
#: Gwet's (2014) further weights, R irrCAC's ``radical.weights``, ``circular.weights`` and
#: ``bipolar.weights`` as disagreements (eq. 2d of ``docs/agreement.md``): functions of
#: the values on the scale and of its ends, computed on a table.
GWET_WEIGHTS = WEIGHTS.where(lambda r: r.gwet)
#: The names every function that takes ``weights`` accepts.
NAMED_WEIGHTS = WEIGHTS.where(lambda r: not r.many_raters)
#: The names agreement among any number of raters accepts: every record, Krippendorff's
#: ordinal and ratio metrics too, which depend on the values and frequencies of the
#: categories, not only on their positions.
RATER_WEIGHTS = WEIGHTS.names
#: Why kappa is 0/0 whatever the weights.
BOTH_CONSTANT = "both raters use a single, identical rating"
#: What ``weights`` accepts, for signatures.
WeightsLike = WeightsName | ArrayLike | None


def check_weights(weights, *, many_raters: bool = False) -> str | np.ndarray:
    """``weights`` → one of the names, or a validated float64 (K, K) matrix.

    ``many_raters``: for agreement among any number of raters, where the raters of a pair
    are interchangeable: the names of :data:`RATER_WEIGHTS` are allowed too, and a matrix
    must be symmetric with a zero diagonal and not all zeros (it is returned symmetrized,
    (W + Wᵀ)/2, exactly symmetric).
    """
    names = RATER_WEIGHTS if many_raters else NAMED_WEIGHTS
    allowed = ", ".join(repr(name) for name in names) + ", None or a (K, K) array"
    if weights is None:
        return "identity"
    if isinstance(weights, str):
        if weights in names:
            return weights
        raise QwkitError(f"`weights` must be {allowed}; got {weights!r}.", parameter="weights")
    if isinstance(weights, (numbers.Number, bool)):
        raise QwkitTypeError(f"`weights` must be {allowed}; got {weights!r}.", parameter="weights")
    mat = as_real_array(weights, "weights")  # frames, nullable dtypes; not text/sparse
    if mat.ndim != 2 or mat.shape[0] != mat.shape[1] or mat.shape[0] == 0:
        raise QwkitError(
            f"`weights` must be a square (K, K) matrix; got shape {mat.shape}.",
            parameter="weights",
        )
    if not np.all(np.isfinite(mat)):
        raise QwkitError(
            "`weights` must be finite; got a matrix containing NaN or inf.", parameter="weights"
        )
    if np.any(mat < 0):
        raise QwkitError(
            "`weights` are disagreement weights and must be non-negative; got "
            f"{mat.min()} in the matrix.",
            parameter="weights",
        )
    return _symmetric(mat) if many_raters else mat


def _symmetric(mat: np.ndarray) -> np.ndarray:
    """Disagreement weights among interchangeable raters: symmetric, zero on the diagonal,
    not all zeros; returned as (W + Wᵀ)/2."""
    if not np.allclose(mat, mat.T, rtol=1e-12, atol=0.0):
        i, j = (int(x) for x in np.argwhere(~np.isclose(mat, mat.T, rtol=1e-12, atol=0.0))[0])
        raise QwkitError(
            "`weights` must be symmetric for agreement among raters (the raters of a pair "
            f"are interchangeable); got {mat[i, j]} at [{i}, {j}] and {mat[j, i]} at [{j}, {i}].",
            parameter="weights",
        )
    diag = np.diag(mat)
    if np.any(diag != 0):
        i = int(np.flatnonzero(diag)[0])
        raise QwkitError(
            "`weights` are disagreement weights and must be zero on the diagonal (a rating "
            f"agrees with itself); got {diag[i]} at [{i}, {i}].",
            parameter="weights",
        )
    if not np.any(mat > 0):
        raise QwkitError(
            "`weights` is all zeros: no two ratings would ever disagree.", parameter="weights"
        )
    return (mat + mat.T) / 2.0


def same_weights(a, b, k: int | None = None) -> bool:
    """Whether two checked ``weights`` give the same kappa for every table: the same
    name, or matrices equal up to a positive factor — on a scale of ``k`` categories (when
    it is known) a name and its matrix too, e.g. 'quadratic' and ``weight_matrix(K)``."""
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        if k is None:
            return False
        a, b = resolve(a, k), resolve(b, k)
    if a.shape != b.shape:
        return False
    top_a, top_b = a.max(), b.max()
    if top_a == 0 or top_b == 0:
        return bool(top_a == top_b)
    return bool(np.allclose(a / top_a, b / top_b, rtol=1e-12, atol=0.0))


def weights_name(weights) -> str:
    """The name of checked weights: their name, or ``"custom"`` for a matrix."""
    return weights if isinstance(weights, str) else "custom"


def is_exact_name(weights) -> bool:
    """Whether checked ``weights`` are one of :data:`EXACT_WEIGHTS` (a name whose matrix
    is integer-valued, with the fast paths of the two-rater functions)."""
    return isinstance(weights, str) and weights in EXACT_WEIGHTS


def gwet_disagreement(weights: str, y: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Gwet's radical, circular or bipolar disagreement between the values ``y`` of a
    scale whose ends are ``lo`` and ``hi`` (eq. 2d of ``docs/agreement.md``):
    √|yₖ − yₗ|, sin²(π(yₖ − yₗ)/U) with U = hi − lo + 1, and
    (yₖ − yₗ)² / ((yₖ + yₗ − 2·lo)(2·hi − yₖ − yₗ)) (0 on the diagonal) — R irrCAC's
    agreement weights are 1 − d / max d."""
    y = np.asarray(y, dtype=np.float64)
    diff = y[:, None] - y[None, :]
    if weights == "radical":
        return np.sqrt(np.abs(diff))
    if weights == "circular":
        return np.sin(np.pi * diff / (hi - lo + 1.0)) ** 2
    total = y[:, None] + y[None, :]
    den = (total - 2.0 * lo) * (2.0 * hi - total)
    out = np.zeros_like(diff)
    np.divide(diff * diff, den, out=out, where=diff != 0)
    return out


def weights_at(weights: str, positions: np.ndarray, k: int) -> np.ndarray:
    """Unnormalized named weights between categories at the given positions of a scale
    of ``k`` positions (0 … k − 1)."""
    return _AT[weights](positions.astype(np.float64), k)


def _difference(pos: np.ndarray) -> np.ndarray:
    return pos[:, None] - pos[None, :]


def _squared(pos: np.ndarray, k: int) -> np.ndarray:
    diff = _difference(pos)
    return diff * diff


#: The names every function takes (the registry's records without ``many_raters``),
#: each bound to its unnormalized weights at positions of a scale of k (eqs. 1, 2d of
#: ``docs/agreement.md``).
_AT = WEIGHTS.bind(
    {
        "quadratic": _squared,
        "linear": lambda pos, k: np.abs(_difference(pos)),
        "identity": lambda pos, k: (_difference(pos) != 0).astype(np.float64),
        "radical": lambda pos, k: gwet_disagreement("radical", pos, 0.0, float(k - 1)),
        "circular": lambda pos, k: gwet_disagreement("circular", pos, 0.0, float(k - 1)),
        "bipolar": lambda pos, k: gwet_disagreement("bipolar", pos, 0.0, float(k - 1)),
    },
    where=lambda r: not r.many_raters,
)


def named_weights(k: int, weights: str) -> np.ndarray:
    """Unnormalized weights of a K-category scale: integer-valued (i − j)², |i − j| or
    1 − δ (Gwet's radical, circular and bipolar weights: real-valued), as float64."""
    return weights_at(weights, np.arange(k), k)


def _named_scale(k: int, weights: str) -> float:
    """The normalizer of :func:`weight_matrix`: (K − 1)², K − 1, 1, or the largest
    weight."""
    if weights == "identity" or k == 1:
        return 1.0
    if weights in GWET_WEIGHTS:
        return float(named_weights(k, weights).max())
    return float((k - 1) ** 2 if weights == "quadratic" else k - 1)


def resolve(weights, k: int, *, scale: str = "the rating scale", hint: str = "") -> np.ndarray:
    """The (K, K) disagreement matrix of checked ``weights`` for a K-category scale.

    Names give their unnormalized integer-valued matrix; a matrix must be K × K.
    ``scale`` names what fixes K in the error (e.g. "`confusion` (K, K)"), ``hint`` says
    how to fix it.
    """
    if isinstance(weights, str):
        return named_weights(k, weights)
    if weights.shape[0] != k:
        raise QwkitError(
            f"`weights` has shape {weights.shape} but {scale} has {k} categories{hint}.",
            parameter="weights",
        )
    return weights


def zero_disagreement_reason(wmat: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> str:
    """Why the chance-expected disagreement Σ rᵢ·W[i, j]·cⱼ is zero, in words.

    ``rows`` / ``cols`` are the positions that occur in each rater's margin.
    """
    if rows.shape[0] == 1 and cols.shape[0] == 1 and rows[0] == cols[0]:
        return BOTH_CONSTANT
    if not np.any(wmat):
        return "every entry of `weights` is 0, so no disagreement costs anything"
    return (
        "`weights` give zero disagreement to every pair of ratings that chance could "
        "produce from these margins"
    )


def weight_matrix(n_classes: int, weights: WeightsLike = "quadratic") -> np.ndarray:
    """Disagreement weight matrix of a K-category scale.

    Parameters
    ----------
    n_classes : int
        Number of categories K of the scale (K ≥ 1).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        ``"quadratic"`` gives (i − j)² / (K − 1)², ``"linear"`` |i − j| / (K − 1),
        ``"identity"`` or None 1 − δᵢⱼ (unweighted kappa); Gwet's (2014)
        ``"radical"`` √|i − j|, ``"circular"`` sin²(π(i − j)/K) and ``"bipolar"``
        (i − j)²/((i + j)(2K − 2 − i − j)), each divided by its largest value (R
        irrCAC's agreement weights are 1 minus these). A (K, K) array is validated and
        returned as float64.

    Returns
    -------
    ndarray of shape (K, K)
        Non-negative disagreement weights, zero on the diagonal for the named weights.

    Examples
    --------
    >>> import qwkit
    >>> qwkit.weight_matrix(3)
    array([[0.  , 0.25, 1.  ],
           [0.25, 0.  , 0.25],
           [1.  , 0.25, 0.  ]])
    >>> 1 - qwkit.weight_matrix(3, "radical")   # irrCAC's radical.weights(1:3)
    array([[1.        , 0.29289322, 0.        ],
           [0.29289322, 1.        , 0.29289322],
           [0.        , 0.29289322, 1.        ]])
    """
    k = check_integer(n_classes, "n_classes", 1)
    if k > MAX_DENSE_CLASSES:
        raise QwkitError(
            f"`n_classes` must be at most {MAX_DENSE_CLASSES} for a dense matrix; got {k}.",
            parameter="n_classes",
        )
    checked = check_weights(weights)
    if not isinstance(checked, str):
        return resolve(checked, k, scale="`n_classes`").copy()
    return named_weights(k, checked) / _named_scale(k, checked)
