"""Optimism-corrected kappa of fitted cut points (docs/optimism.md).

Cut points fitted to a sample maximize the kappa of *that* sample; on new data they do
worse. With κ_S(c) the kappa of cut points c on the items S and ĉ(S) the optimal cut
points of S (``optimize_thresholds``), the apparent kappa is κ_S(ĉ(S)) and the target
is the kappa of ĉ(S) on the population. Two estimators (eq. numbers of the docs):

    cross-fitting:           κ̂ = mean_r κ(pooled out-of-fold classes of repeat r)  (O4)
    bootstrap (Efron–Gong):  ô = mean_b [κ_{S*b}(ĉ(S*b)) − κ_S(ĉ(S*b))],
                             κ̂ = κ_S(ĉ(S)) − ô                                 (O2, O3)

and the interval κ̂ ± z·(SE of the apparent kappa + paired SE of the optimism) (O5).

The estimators — the sample as (score, true class) pairs sorted once, the bootstrap, the
cross-fitting and their variances — are in ``_optimism_estimators``; here: the public
function, its checks and its result.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._missing import NanPolicy
from qwkit._base._numerics import to_unit_max
from qwkit._base._results import public_module, reduce_dataclass
from qwkit._base._validation import (
    check_confidence_level,
    check_integer,
    check_interval_method,
    check_method,
    check_progress,
    check_rng,
)
from qwkit._base._warnings import (
    UndefinedKappaWarning,
    renamed_attribute,
    warn,
)
from qwkit._base._weights import WeightsLike
from qwkit._table._resampling import (
    ConfidenceInterval,
    corrected_kappa_interval,
    limit_lines,
    wald_interval,
)
from qwkit._thresholds._fit import ThresholdResult, fit, prepare
from qwkit._thresholds._optimism_estimators import (
    bootstrap,
    cross_fit,
    kappa_variance,
    pairs_of,
    ticker,
)

__all__ = ["OptimismResult", "optimism_corrected_kappa"]

_METHODS = ("bootstrap", "cv")
#: Every resample refits the cut points (one exact solve, O(n·K)); more than this many
#: is a mistake, not a request.
_MAX_RESAMPLES = 100_000
_DEFAULT_SPLITS = 10


# ---------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True, eq=False)
class OptimismResult:
    """Result of :func:`optimism_corrected_kappa`.

    Attributes
    ----------
    statistic : float
        The corrected kappa, ``apparent − optimism``: the estimated kappa of the fitted
        cut points on new data from the same population.
    apparent : float
        The in-sample kappa of the fitted cut points,
        ``optimize_thresholds(...).statistic``.
    optimism : float
        The estimated optimism of ``apparent`` (eq. O3 or O4 of ``docs/optimism.md``).
    standard_error_apparent : float
        Standard error of the apparent kappa with the fitted classes held fixed: the
        Fleiss–Cohen–Everitt formula of :func:`kappa_test` (with ``sample_weight``
        its sandwich form).
    standard_error_optimism : float
        Standard error of the estimated optimism: the paired standard error of
        :func:`compare_kappa_test` between the fitted and the out-of-fold classes,
        averaged over the repetitions of cross-fitting (for ``"bootstrap"``: of one
        extra repetition of 10-fold cross-fitting).
    n_items : int
        Number of items (``sum(counts)`` with ``counts``; rows of positive weight
        otherwise).
    n_resamples : int
        Refits that entered the estimate (bootstrap resamples, or folds over all
        repetitions); fewer than requested only when some could not be refitted (a
        resample or training fold with a single true class).
    method : str
        ``"cv"`` or ``"bootstrap"``.
    n_splits : int or None
        Folds per repetition (``"cv"`` only).
    threshold_result : ThresholdResult
        The cut points fitted to all the data (``thresholds``, ``statistic`` =
        ``apparent``, ``labels``, ``predict``).
    """

    statistic: float
    apparent: float
    optimism: float
    standard_error_apparent: float
    standard_error_optimism: float
    n_items: int
    #: Deprecated: the old name of ``n_items``.
    n_samples = renamed_attribute("n_samples", "n_items")
    n_resamples: int
    method: str
    n_splits: int | None
    threshold_result: ThresholdResult = field(repr=False)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def standard_error(self) -> float:
        """Standard error used by :meth:`confidence_interval`:
        ``standard_error_apparent + standard_error_optimism`` (eq. O5)."""
        return self.standard_error_apparent + self.standard_error_optimism

    @property
    def thresholds(self) -> np.ndarray:
        """The fitted cut points (read-only): ``threshold_result.thresholds``."""
        return self.threshold_result.thresholds

    @property
    def labels(self) -> np.ndarray:
        """The ordered rating scale (read-only): ``threshold_result.labels``."""
        return self.threshold_result.labels

    def confidence_interval(
        self, confidence_level: float = 0.95, *, method: Literal["asymptotic"] = "asymptotic"
    ) -> ConfidenceInterval:
        """Confidence interval for the kappa of the fitted cut points on new data.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Confidence level, strictly between 0 and 1.
        method : {"asymptotic"}, default="asymptotic"
            The one interval of this result (eq. O5): its resampling is the refitting
            that made it (``method`` of :func:`optimism_corrected_kappa`).

        Returns
        -------
        ConfidenceInterval
            ``statistic ± z·standard_error`` (eq. O5 of ``docs/optimism.md``), the
            upper limit truncated at 1; nan when a standard error is undefined.

        Notes
        -----
        The error of the corrected kappa is (apparent − truth) − (estimated optimism).
        The first term has, to first order, the standard error of the kappa of fixed
        classes; the second the paired standard error of the apparent minus the
        out-of-fold kappa on the same items. The two are correlated (in the
        simulation of ``docs/optimism.md``, −0.22 to −0.64: samples that flatter the
        cut points most get the smallest estimated optimism). Rather than estimate
        the correlation, the interval uses the bound sd(X − Y) ≤ sd(X) + sd(Y),
        valid whatever it is. In that simulation it covered 95.3–99.0 % for a nominal
        95 % from 50 items on, but 91.7 % at 30 items with kappa near 0.95, where the
        first standard error falls short; it tends to the Wald interval of
        :func:`kappa_test` as n grows (the second term shrinks faster).
        """
        level = check_confidence_level(confidence_level)
        check_interval_method(method, "asymptotic", "optimism_corrected_kappa")
        return corrected_kappa_interval(
            self.statistic, self.standard_error, self.n_items, level
        )  # (eq. O5)

    def _limits(self, confidence_level) -> ConfidenceInterval:
        """statistic ± z·standard_error (eq. O5), at most 1 (no kappa exceeds it)."""
        return wald_interval(
            self.statistic,
            self.standard_error,
            check_confidence_level(confidence_level),
            "two-sided",
            upper_bound=1.0,
        )  # (eq. O5)

    def summary(self, confidence_level: float = 0.95) -> str:
        """Text block: apparent kappa, optimism, corrected kappa and its limits at
        ``confidence_level``."""
        limits = self._limits(confidence_level)
        if self.method == "bootstrap":
            what = f"bootstrap, {self.n_resamples} resamples"
        else:
            reps = self.n_resamples // self.n_splits
            what = f"{self.n_splits}-fold CV x {reps}"
        title = "Optimism-Corrected Kappa of Fitted Cut Points"
        lines = [
            title,
            "-" * len(title),
            f"{'Apparent kappa':<26}{self.apparent:>10.4f}",
            f"{'Optimism':<26}{self.optimism:>10.4f}",
            f"{'Corrected kappa':<26}{self.statistic:>10.4f}",
            f"{'ASE':<26}{self.standard_error:>10.4f}",
            *limit_lines(confidence_level, limits, 26),
            "",
            f"{'Method':<16}{what:>20}",
            f"{'Number of items':<26}{self.n_items:>10d}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as plain Python types (JSON-ready), with the 95% interval."""
        low, high = self.confidence_interval(0.95)
        return {
            "statistic": self.statistic,
            "apparent": self.apparent,
            "optimism": self.optimism,
            "standard_error": self.standard_error,
            "standard_error_apparent": self.standard_error_apparent,
            "standard_error_optimism": self.standard_error_optimism,
            "confidence_interval_95": [low, high],
            "n_items": self.n_items,
            "n_resamples": self.n_resamples,
            "method": self.method,
            "n_splits": self.n_splits,
            "thresholds": [float(t) for t in self.thresholds],
            "labels": self.labels.tolist(),
        }


public_module(OptimismResult)


# ---------------------------------------------------------------------------- validation


def _check_n_resamples(n_resamples) -> int:
    n_resamples = check_integer(n_resamples, "n_resamples", 1)
    if n_resamples > _MAX_RESAMPLES:
        raise QwkitError(
            f"`n_resamples` must be at most {_MAX_RESAMPLES:,} (every resample refits the cut "
            f"points); got {n_resamples:,}. A few hundred suffice for the optimism.",
            parameter="n_resamples",
        )
    return n_resamples


def _check_n_splits(n_splits, method: str, n_resamples: int) -> int | None:
    if method != "cv":
        if n_splits is not None:
            raise QwkitError(
                f"`n_splits` applies only to method='cv'; got n_splits={n_splits!r} with "
                f"method={method!r}.",
                parameter="n_splits",
            )
        return None
    if n_splits is None:
        n_splits = _DEFAULT_SPLITS
    n_splits = check_integer(n_splits, "n_splits", 2)
    if n_resamples % n_splits:
        raise QwkitError(
            "`n_resamples` counts refits: n_splits of them per repetition of cross-fitting, "
            f"so it must be a multiple of `n_splits` ({n_splits}); got {n_resamples}.",
            parameter="n_resamples",
        )
    return n_splits


# ---------------------------------------------------------------------------- public


def optimism_corrected_kappa(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    method: Literal["cv", "bootstrap"] = "cv",
    n_resamples: int = 200,
    n_splits: int | None = None,
    rng: int | np.random.Generator | None = None,
    progress: Callable[[int, int], object] | None = None,
    nan_policy: NanPolicy = "raise",
) -> OptimismResult:
    """The kappa that cut points fitted to these data will have on new data.

    Fits the kappa-optimal cut points of ``y_score`` (:func:`optimize_thresholds`),
    whose in-sample kappa is optimistic — the cut points were chosen to maximize it —
    and estimates their kappa on new data by refitting them on parts of the data.

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        True ratings, as in :func:`optimize_thresholds`.
    y_score : array-like of shape (n_items,)
        Real-valued scores, finite; larger means a higher class. The scores are fixed:
        only the cut points are refitted (when a model produced the scores, pass its
        out-of-fold predictions, so that its own fit is not in-sample either).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, indexed ``[true class, predicted class]``.
    labels : array-like of shape (K,), default=None
        The ordered rating scale (see :func:`optimize_thresholds`); every refit keeps it.
    sample_weight : array-like of shape (n_items,), default=None
        Survey weights: the rows are the sampling units, resampled (or split into
        folds) with their weights. Equal weights are no weights. Exclusive with
        ``counts``.
    counts : array-like of shape (n_items,), default=None
        Non-negative integer multiplicities: row i stands for ``counts[i]`` identical
        items. The items, not the rows, are resampled and split into folds
        (n = ``sum(counts)``), and the result — with the same ``rng`` — is exactly
        that of the repeated rows, in any order. Exclusive with ``sample_weight``.
    method : {"cv", "bootstrap"}, default="cv"
        ``"cv"``: repeated K-fold cross-fitting — the cut points fitted on all folds
        but one classify the held-out fold, and the kappa of the pooled out-of-fold
        classes is averaged over the repetitions (eq. O4). ``"bootstrap"``: the
        Efron–Gong optimism bootstrap (eq. O2–O3), which corrects only part of the
        optimism here (see Notes).
    n_resamples : int, default=200
        Number of refits, at most 100,000: for ``"cv"`` the folds over all
        repetitions (``n_resamples / n_splits`` repetitions, so it must be a multiple
        of ``n_splits``), for ``"bootstrap"`` the resamples.
    n_splits : int, default=None
        Folds per repetition for ``"cv"``, from 2 to the number of items (None: 10);
        an error with ``"bootstrap"``.
    rng : None, int or numpy.random.Generator, default=None
        Source of randomness; an integer seed makes the result reproducible.
    progress : callable, default=None
        ``progress(done, total)`` is called as refits are completed (e.g. to drive a
        progress bar); ``total`` counts every refit, for ``"bootstrap"`` with those of
        its one repetition of cross-fitting.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error, or (``"omit"``) its item is
        left out of the fit and of every refit, with its item weight. The result has no NaN
        form: ``"propagate"`` is refused (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    OptimismResult
        ``statistic`` (the corrected kappa), ``apparent``, ``optimism``, the standard
        errors, ``n_items``, ``n_resamples``, ``method``, ``threshold_result``,
        ``.confidence_interval()``, ``.summary()`` and ``.to_dict()``.

    Raises
    ------
    ValueError, TypeError
        As :func:`optimize_thresholds`; an unknown ``method``; ``n_resamples`` not a
        positive integer or above 100,000; ``n_splits`` below 2, above the number of
        items, not dividing ``n_resamples``, or given with ``"bootstrap"``; ``counts``
        not non-negative whole numbers, or given with ``sample_weight``.

    Warns
    -----
    UndefinedKappaWarning
        When some resamples or training folds cannot be refitted (a single true
        class: only in very small samples); they are left out (for ``"cv"``, their
        whole repetition) and ``n_resamples`` says how many refits were used.
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1):
        drop those items, or pass ``labels`` (docs/kappa.md, "Missing-value codes").

    See Also
    --------
    optimize_thresholds : The cut points and their in-sample kappa.
    kappa_test : Standard errors and intervals of the kappa of fixed classes.

    Notes
    -----
    With κ_S(c) the kappa of cut points c on the items S and ĉ(S) the cut points fitted
    to S, the target is κ_P(ĉ(S)): the kappa of *these* cut points on the population P.
    Cross-fitting splits the items into K folds at random, classifies each fold with
    the cut points fitted to the other K − 1 and computes the kappa of all n
    out-of-fold classes pooled in one table (kappa is a ratio, not a mean over items:
    averaging per-fold kappas would be biased low), averaged over repetitions (O4).
    It estimates the kappa of cut points fitted to (K − 1)/K of the data, so it is
    pessimistic: in the simulation of ``docs/optimism.md`` by 6–24 % of the optimism at
    30–200 items, 1–4 % at 1,000. The Efron–Gong bootstrap averages, over resamples
    S*ᵇ of the items, the optimism

        oᵇ = κ_{S*ᵇ}(ĉ(S*ᵇ)) − κ_S(ĉ(S*ᵇ))                                        (O2)

    — the kappa of the resample's own cut points on the resample minus on the
    original sample, which stands in for the population — and reports
    κ_S(ĉ(S)) − mean_b oᵇ (O3). Cut points are the argmax of a step function, an
    estimator with cube-root asymptotics, for which the n-out-of-n bootstrap is known
    to be inconsistent: in the simulation of ``docs/optimism.md`` it leaves 29–46 %
    of the optimism, where cross-fitting removes all of it and, at small n, a little
    more.

    The interval (eq. O5, :meth:`OptimismResult.confidence_interval`) is
    ``statistic ± z·(standard_error_apparent + standard_error_optimism)``; the
    simulation measures its coverage.

    A refit is the exact global optimum of :func:`optimize_thresholds`; the data are
    sorted once, and every resample or fold is a vector of weights over the same
    sorted (score, class) pairs: O(n·K) per refit, memory independent of
    ``n_resamples``.

    References
    ----------
    .. [1] B. Efron and G. Gong, "A leisurely look at the bootstrap, the jackknife, and
       cross-validation", The American Statistician 37(1):36-48, 1983.
    .. [2] F. E. Harrell, *Regression Modeling Strategies*, 2nd ed., Springer, 2015,
       §5.3 (model validation by the bootstrap).
    .. [3] J. Kim and D. Pollard, "Cube root asymptotics", The Annals of Statistics
       18(1):191-219, 1990.
    .. [4] J. Abrevaya and J. Huang, "On the bootstrap of the maximum score
       estimator", Econometrica 73(4):1175-1204, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> import qwkit
    >>> gen = np.random.default_rng(20261121)
    >>> latent = gen.normal(size=300)
    >>> y = np.digitize(latent, [-1.0, -0.3, 0.4, 1.1])
    >>> score = latent + gen.normal(scale=0.6, size=300)
    >>> res = qwkit.optimism_corrected_kappa(y, score, rng=0)
    >>> res.apparent == qwkit.optimize_thresholds(y, score).statistic
    True
    >>> round(res.apparent, 6), round(res.optimism, 6), round(res.statistic, 6)
    (0.847123, 0.029341, 0.817782)
    >>> [round(x, 6) for x in res.confidence_interval()]
    [0.766063, 0.869501]
    """
    method = check_method(method, _METHODS)
    n_resamples = _check_n_resamples(n_resamples)
    n_splits = _check_n_splits(n_splits, method, n_resamples)
    gen = check_rng(rng)
    progress = check_progress(progress)
    inputs = prepare(  # validated once, for the fit and for every refit
        y_true,
        y_score,
        labels=labels,  # prepared once: one ScaleWarning, if any, for fit and refits
        weights=weights,
        sample_weight=sample_weight,
        counts=counts,
        nan_policy=nan_policy,
    )
    fitted = fit(inputs)
    codes, scores, scale, wmat = inputs.codes, inputs.scores, inputs.scale, inputs.wmat
    iw = inputs.item_weights
    n_rows = codes.shape[0]
    cnt = iw.values if iw.counts else None

    survey = False
    if cnt is not None:
        keep = cnt > 0
        w = cnt[keep].astype(np.float64)
        n_items = int(cnt.sum())
    else:
        sw = iw.as_float()
        keep = np.ones(n_rows, dtype=bool) if sw is None else sw > 0
        n_items = int(np.count_nonzero(keep))
        if sw is None or np.all(sw[keep] == sw[keep][0]):
            w = np.ones(n_items)  # equal weights are no weights
        else:
            w = to_unit_max(sw[keep])[0]  # exact rescaling
            survey = True
    if method == "cv" and n_splits > n_items:
        raise QwkitError(
            f"`n_splits` must be at most the number of items ({n_items}); got {n_splits}.",
            parameter="n_splits",
        )
    pairs = pairs_of(codes[keep], scores[keep], w, wmat, scale, n_items, survey)
    fitted_cls = np.searchsorted(fitted.thresholds, pairs.values, side="left")
    var_apparent = kappa_variance(  # (eq. 5 of docs/inference.md)
        pairs.code, fitted_cls[pairs.group], None, pairs.weight, pairs.weight_sq, wmat
    )

    apparent = fitted.statistic
    extra_splits = min(_DEFAULT_SPLITS, n_items)
    tick = ticker(progress, n_resamples + (extra_splits if method == "bootstrap" else 0))
    if method == "bootstrap":
        optimism, used = bootstrap(pairs, n_resamples, gen, tick)
        statistic = apparent - optimism  # (eq. O3)
        # the optimism's standard error from one repetition of cross-fitting   (eq. O5)
        _, _, var_optimism = cross_fit(pairs, fitted_cls, extra_splits, 1, gen, tick)
    else:
        statistic, used, var_optimism = cross_fit(
            pairs, fitted_cls, n_splits, n_resamples // n_splits, gen, tick
        )
        optimism = apparent - statistic  # (eq. O4)
    if used < n_resamples:
        what = "resamples" if method == "bootstrap" else "refits (in whole repetitions)"
        warn(
            f"{n_resamples - used} of {n_resamples} {what} could not be refitted (a single "
            "true class, or an undefined kappa) and were left out.",
            UndefinedKappaWarning,
        )
    return OptimismResult(
        statistic=float(statistic),
        apparent=float(apparent),
        optimism=float(optimism),
        standard_error_apparent=math.sqrt(var_apparent),
        standard_error_optimism=math.sqrt(var_optimism),
        n_items=n_items,
        n_resamples=used,
        method=method,
        n_splits=n_splits,
        threshold_result=fitted,
    )
