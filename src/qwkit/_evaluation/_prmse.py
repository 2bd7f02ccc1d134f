"""PRMSE: how well machine scores predict the *true* score, with a standard error."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._ratings import RatingsLike
from qwkit._base._validation import (
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_rng,
)
from qwkit._base._warnings import DegenerateIntervalWarning, warn
from qwkit._evaluation._design import prepare_inputs
from qwkit._evaluation._estimates import (
    METHODS,
    Inference,
    IntervalResult,
    moments_row,
    text_block,
)
from qwkit._evaluation._input import Scores
from qwkit._evaluation._statistics import Context
from qwkit._evaluation._sums import ItemSums

__all__ = ["PRMSEResult", "PRMSESums", "prmse", "prmse_result", "prmse_sums"]


@dataclass(frozen=True, slots=True, eq=False)
class PRMSEResult(IntervalResult):
    """Result of :func:`prmse`.

    Attributes
    ----------
    statistic : float
        PRMSE = 1 − mse_true / true_score_variance: the proportional reduction in mean
        squared error when the machine predicts the true score (eq. 12); nan, with a
        warning, when the estimated true-score variance is not positive.
    standard_error : float
        Its standard error over items (delta method, jackknife or bootstrap).
    variance_of_errors : float
        Estimated variance of human rater error (eq. 9), from the items rated twice or
        more.
    true_score_variance : float
        Estimated variance of the true scores (eq. 10).
    mse_true : float
        Estimated mean squared error of the machine as a predictor of the true score
        (eq. 11). The three are in the squared units of the ratings' values, whatever
        order or spacing ``labels`` declares; text ratings have no values, and their
        positions 1 … K on ``labels`` stand in (``moments_on`` says which).
    n_items, n_double_scored, n_ratings : int
        Items used (a machine score and at least one human rating), those of them
        rated two or more times, and human ratings used.
    n_clusters : int or None
        The clusters that hold the items (``cluster=``), None when the items are the
        sampling units.
    confidence_level, method : float, str
        Default level of :meth:`confidence_interval`, and how the SE was computed.
    moments_on : {"values", "positions"}
        What the variances are computed on: the ratings' values, or (text ratings)
        their positions 1 … K on ``labels``.
    """

    statistic: float
    standard_error: float
    variance_of_errors: float
    true_score_variance: float
    mse_true: float
    n_items: int
    n_double_scored: int
    n_ratings: int
    n_clusters: int | None
    confidence_level: float
    method: str
    moments_on: str
    _inference: Inference = field(repr=False)

    _fields: ClassVar[tuple] = (
        "statistic",
        "standard_error",
        "variance_of_errors",
        "true_score_variance",
        "mse_true",
        "n_items",
        "n_double_scored",
        "n_ratings",
        "n_clusters",
        "confidence_level",
        "method",
        "moments_on",
    )

    def summary(self, confidence_level: float | None = None) -> str:
        """A text block with PRMSE, its interval and its parts. The interval at
        ``confidence_level`` (None: the level of the call); the verdict is the call's."""
        return text_block(
            f"PRMSE: machine scores against true scores ({self.method})",
            [
                ("PRMSE", self.statistic),
                ("Standard error", self.standard_error),
                (
                    self._level(confidence_level),
                    tuple(self.confidence_interval(confidence_level)),
                ),
                ("Variance of rater errors", self.variance_of_errors),
                ("True-score variance", self.true_score_variance),
                ("MSE (true score)", self.mse_true),
                None,
                ("Items", self.n_items),
                ("Items rated twice or more", self.n_double_scored),
                ("Human ratings", self.n_ratings),
                *moments_row(self.moments_on),
            ],
        )


# ---------------------------------------------------------------------------- compute


def _parts(s: np.ndarray):
    """(V_e, σ²_T, MSE_true) of the sums (N, A, B, C, T, M, Q, D) (eqs. 9–11)."""
    n, a, b, c, t, m, q, d = (s[..., j] for j in range(8))
    ve = a / b  # (eq. 9)
    vt = (c - t * t / m - (n - 1.0) * ve) / (m - q / m)  # (eq. 10)
    mse = (d - n * ve) / m  # (eq. 11)
    return ve, vt, mse


def _mse(s):
    return _parts(s)[2]


def _true_variance(s):
    return _parts(s)[1]


@dataclass(frozen=True, slots=True, eq=False)
class PRMSESums:
    """PRMSE's sums per item: the rows ``z`` (8, G) of the items ``rows`` (indices of
    the evaluation's items with a machine score and a human rating)."""

    z: np.ndarray
    rows: np.ndarray

    def mse(self) -> ItemSums:
        return ItemSums(self.z, _mse)

    def true_variance(self) -> ItemSums:
        return ItemSums(self.z, _true_variance)


def prmse_sums(human: np.ndarray, machine: np.ndarray) -> PRMSESums:
    """PRMSE's sums of values ``human`` (n, R; NaN = not rated) and ``machine`` (n,);
    items without a machine score or a human rating are left out."""
    scored = ~np.isnan(machine)
    shift = float(np.nanmean(human[:, 0]))  # PRMSE does not move with a common shift
    if np.isnan(shift):
        shift = float(np.nanmean(human))
    g = human.shape[0]
    z = np.zeros((8, g))
    k, t, sq = z[5], z[4], z[1]
    for j in range(human.shape[1]):  # a few columns: one pass each
        col = human[:, j] - shift
        rated = ~np.isnan(col)
        col[~rated] = 0.0
        k += rated
        t += col
        sq += col * col
    keep = (k > 0) & scored
    rows = np.flatnonzero(keep)
    if rows.size != g:
        z, machine = z[:, keep], machine[keep]
        k, t, sq = z[5], z[4], z[1]
    mean = t / k
    z[0] = 1.0
    sq -= t * mean  # Σⱼ (hᵢⱼ − h̄ᵢ)²
    np.subtract(k, 1.0, out=z[2])
    np.multiply(t, mean, out=z[3])
    np.multiply(k, k, out=z[6])
    dev = mean - (machine - shift)
    np.multiply(k, dev * dev, out=z[7])
    return PRMSESums(z, rows)


def prmse_result(scores: Scores, column: int, ctx: Context) -> PRMSEResult:
    """PRMSE of machine ``column`` of validated scores, by Fieller's method (eq. S3)."""
    sums = prmse_sums(scores.human_values, scores.machine_values[:, column])
    s = sums.z.sum(axis=1)
    n_double = int(np.count_nonzero(sums.z[2]))
    if n_double == 0:
        raise QwkitError(
            f"`human` has no item rated by two or more humans among the {sums.rows.size} "
            "items with a machine score (0 double-scored); PRMSE estimates the variance "
            "of rater error from such items.",
            parameter="human",
        )
    ve, vt, mse = (float(x) for x in _parts(s))  # in the ratings' squared units
    if not vt > 0:
        name = scores.machine_names[column]
        whose = f" (items scored by {name!r})" if scores.machine.shape[1] > 1 else ""
        warn(
            f"The estimated true-score variance{whose} is not positive ({vt:.4g}): the human "
            "ratings vary no more between items than rater error explains, so PRMSE is "
            "undefined (nan).",
            DegenerateIntervalWarning,
        )
        inf = Inference(math.nan, math.nan, ctx.method, sums.rows.size)
        n_clusters = None if ctx.clusters is None else ctx.clusters.take(sums.rows).n
    else:
        est, inf = ctx.ratio(sums.mse(), sums.true_variance(), sums.rows, "PRMSE")
        n_clusters = est.n_clusters
    return PRMSEResult(
        statistic=inf.estimate,
        standard_error=inf.standard_error,
        variance_of_errors=ve,
        true_score_variance=vt,
        mse_true=mse,
        n_items=int(sums.rows.size),
        n_double_scored=n_double,
        n_ratings=int(s[5]),
        n_clusters=n_clusters,
        confidence_level=ctx.level,
        method=ctx.method,
        moments_on=scores.moments_on,
        _inference=inf,
    )


def prmse(
    human: RatingsLike,
    machine: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    item: ArrayLike | str | None = None,
    cluster: ArrayLike | str | None = None,
    trim: bool | float = True,
    confidence_level: float = 0.95,
    method: Literal["jackknife", "asymptotic", "bootstrap"] = "jackknife",
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> PRMSEResult:
    """Proportional reduction in mean squared error for true scores (PRMSE).

    Test theory's answer to "how well does the machine predict what the humans are
    trying to measure?": the true score is the mean rating an item would get from
    infinitely many raters; rater error variance is estimated from the items rated two
    or more times, and PRMSE = 1 − MSE(true | machine) / Var(true) (Loukina et al.
    2020; the formulas of Matt Johnson's derivation as RSMTool computes them). Any
    number of ratings per item.

    Parameters
    ----------
    human : array-like of shape (n_items, n_raters)
        Human ratings (NaN or None = not rated); at least some items rated twice.
    machine : array-like of shape (n_items,)
        Machine scores: ratings on the human scale or real-valued scores.
    labels : array-like of shape (K,), default=None
        The ordered scale, for text ratings (PRMSE then uses positions on it).
    item, cluster, trim
        As in :func:`degradation_test`: the items' ids, their clusters (the sampling
        units of the interval), RSMTool's trimming of real-valued scores.
    confidence_level : float, default=0.95
        Default level of :meth:`~PRMSEResult.confidence_interval`.
    method : {"jackknife", "asymptotic", "bootstrap"}, default="jackknife"
        The interval: Fieller's, from the jackknife's variances of the two parts and
        Student's t on its effective df (the default: a true-score variance that is not
        clearly positive gives an unbounded interval, as it should); Fieller's from the
        delta method with normal quantiles; or the BCa bootstrap of the items.
    n_resamples : int, default=2000
        Bootstrap resamples.
    rng : None, int or numpy.random.Generator, default=None
        Randomness of the bootstrap.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing machine score is an error, or its item is left out.

    Returns
    -------
    PRMSEResult
        ``statistic``, ``standard_error``, ``variance_of_errors``,
        ``true_score_variance``, ``mse_true``, ``.confidence_interval()``.

    Warns
    -----
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the human ratings
        (and integer machine ratings) holds values that look like missing-value codes
        (99 among ratings 1..5, a lone −1): drop those items, or pass ``labels``
        (docs/kappa.md, "Missing-value codes").

    Raises
    ------
    QwkitError
        No item rated twice or more (the message says so), and the input errors of
        :func:`degradation_test`.

    Notes
    -----
    With nᵢ ratings of item i, h̄ᵢ their mean, N items, M = Σnᵢ ratings and h̄ the
    mean of all ratings (eqs. 9–12 of ``docs/evaluation.md``):

        V_e   = Σᵢ Σⱼ (hᵢⱼ − h̄ᵢ)² / Σᵢ (nᵢ − 1)
        σ²_T  = [Σᵢ nᵢ (h̄ᵢ − h̄)² − (N − 1)·V_e] / (M − Σᵢ nᵢ² / M)
        MSE_T = [Σᵢ nᵢ (h̄ᵢ − mᵢ)² − N·V_e] / M
        PRMSE = 1 − MSE_T / σ²_T.

    Every term is a sum over items, so PRMSE is a smooth function of per-item sums:
    its standard error is the delta method over items (eq. 4), checked against the
    jackknife and by simulation in the docs.

    References
    ----------
    .. [1] A. Loukina, N. Madnani, A. Cahill, L. Yao, M. S. Johnson, B. Riordan and
       D. F. McCaffrey, "Using PRMSE to evaluate automated scoring systems in the
       presence of label noise", Proceedings of the Fifteenth Workshop on Innovative
       Use of NLP for Building Educational Applications, 2020.

    Examples
    --------
    >>> import numpy as np
    >>> import qwkit
    >>> human = np.array([[3, 4], [2, np.nan], [4, 4], [1, 2], [5, 4], [2, 2],
    ...                   [3, np.nan], [4, 5], [2, 1], [5, 5], [3, 3], [1, np.nan]])
    >>> machine = [3.1, 2.9, 3.5, 2.2, 4.4, 2.6, 2.4, 3.9, 2.5, 4.1, 3.6, 1.9]
    >>> res = qwkit.prmse(human, machine)
    >>> round(res.statistic, 4), round(res.standard_error, 4)
    (0.8235, 0.0569)
    >>> [round(x, 4) for x in res.confidence_interval()]  # Fieller's, not ± 2 SE
    [0.6359, 0.9516]
    >>> round(res.variance_of_errors, 4), round(res.true_score_variance, 4)
    (0.2778, 1.6849)
    """
    level = check_confidence_level(confidence_level)
    method = check_choice(method, "method", METHODS)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    inputs = prepare_inputs(
        human, machine, item=item, cluster=cluster, labels=labels, nan_policy=nan_policy, trim=trim
    )
    scores = inputs.scores
    if scores.machine.shape[1] != 1:
        raise QwkitError(
            f"`machine` must hold one score per item; got {scores.machine.shape[1]} columns.",
            parameter="machine",
        )
    ctx = Context(level, method, n_resamples, gen, inputs.design.clusters)
    return prmse_result(scores, 0, ctx)
