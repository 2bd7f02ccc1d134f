"""Optimism-corrected kappa of fitted cut points (docs/optimism.md).

Cut points fitted to a sample maximize the kappa of *that* sample; on new data they do
worse. With κ_S(c) the kappa of cut points c on the items S and ĉ(S) the optimal cut
points of S (``optimize_thresholds``), the apparent kappa is κ_S(ĉ(S)) and the target
is the kappa of ĉ(S) on the population. Two estimators (eq. numbers of the docs):

    cross-fitting:           κ̂ = mean_r κ(pooled out-of-fold classes of repeat r)  (O4)
    bootstrap (Efron–Gong):  ô = mean_b [κ_{S*b}(ĉ(S*b)) − κ_S(ĉ(S*b))],
                             κ̂ = κ_S(ĉ(S)) − ô                                 (O2, O3)

and the interval κ̂ ± z·(SE of the apparent kappa + paired SE of the optimism) (O5).

The sample is sorted once: items are aggregated into (distinct score, true class)
*pairs* in lexicographic order, and every resample or training fold is a vector of
pair weights over that fixed order. A bootstrap resample of unit-weight items is one
multinomial draw of the pair counts (O1), a fold split a chain of multivariate
hypergeometric draws; with survey weights the rows themselves are drawn. A refit is
then the exact solver of ``optimize_thresholds`` on the pairs of positive weight,
without sorting again; the memory is O(pairs), whatever the number of resamples.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
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
    DegenerateIntervalWarning,
    UndefinedKappaWarning,
    renamed_attribute,
    warn,
)
from qwkit._base._weights import WeightsLike
from qwkit._table._cells import CellKappa, influence_variance
from qwkit._table._resampling import (
    MIN_ITEMS,
    ConfidenceInterval,
    limit_lines,
    wald_interval,
)
from qwkit._table._sufficient import kappa_from_table
from qwkit._thresholds._fit import ThresholdResult, fit, fit_sorted, prepare

__all__ = ["OptimismResult", "optimism_corrected_kappa"]

_METHODS = ("bootstrap", "cv")
#: Every resample refits the cut points (one exact solve, O(n·K)); more than this many
#: is a mistake, not a request.
_MAX_RESAMPLES = 100_000
_DEFAULT_SPLITS = 10
#: numpy's multivariate_hypergeometric needs fewer items than this.
_HYPERGEOMETRIC_LIMIT = 10**9


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
        se = self.standard_error
        if not (math.isfinite(self.statistic) and math.isfinite(se)):
            warn(
                "The corrected kappa or its standard error is undefined (too few items "
                "or refits); so is its confidence interval.",
                DegenerateIntervalWarning,
            )
            return ConfidenceInterval(math.nan, math.nan)
        if self.n_items < MIN_ITEMS or se == 0.0:
            warn(
                f"The interval rests on {self.n_items} items and a standard error of "
                f"{se:.3g}: too little information for it to be trusted.",
                DegenerateIntervalWarning,
            )
        return self._limits(level)

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


# ---------------------------------------------------------------------------- the sample


def _table_kappa(table: np.ndarray, wmat: np.ndarray) -> float:
    """Eq. 1 on a K×K table; nan (no warning: refits count them) when undefined."""
    return kappa_from_table(table, wmat, math.nan, quiet=True)


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The items sorted once by (score, true class) and aggregated into pairs.

    ``weight`` is the summed weight of each pair (whole numbers for unit weights and
    counts); with survey weights, ``row_pair`` and ``row_weight`` keep every row (the
    sampling unit) with the pair it belongs to.
    """

    values: np.ndarray  # float64 (m,): distinct scores, increasing
    code: np.ndarray  # int64 (P,): true class of each pair
    group: np.ndarray  # intp (P,): distinct score of each pair
    weight: np.ndarray  # float64 (P,)
    weight_sq: np.ndarray  # float64 (P,): Σw² per pair (= weight for unit items)
    wmat: np.ndarray
    scale: np.ndarray
    n_items: int
    row_pair: np.ndarray | None = None
    row_weight: np.ndarray | None = None

    @property
    def k(self) -> int:
        return int(self.wmat.shape[0])

    def refit(self, weight: np.ndarray):
        """Optimal cut points and in-sample kappa for pair weights ``weight`` (zeros
        allowed); None when the subsample has fewer than two true classes."""
        keep = weight > 0
        code = self.code[keep]
        w = weight[keep]
        group = self.group[keep]
        h = np.bincount(code, weights=w, minlength=self.k)
        if np.count_nonzero(h) < 2:
            return None
        chance = h @ self.wmat / float(h.sum())  # δ of eq. T1
        if not np.any(chance > 0):
            return None
        first = np.empty(group.shape[0], dtype=bool)
        first[0] = True
        np.not_equal(group[1:], group[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        group_start = np.append(starts, group.shape[0]).astype(np.int64)
        cuts, table, _, _ = fit_sorted(
            self.values[group[starts]],
            code,
            w,
            group_start,
            h,
            chance,
            self.wmat,
            self.scale,
        )
        return cuts, _table_kappa(table, self.wmat)

    def table(self, cuts: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """K×K table (true × class under ``cuts``) of the pairs with weights ``weight``."""
        k = self.k
        cls = np.searchsorted(cuts, self.values, side="left")  # apply_thresholds
        cell = self.code * k + cls[self.group]
        return np.bincount(cell, weights=weight, minlength=k * k).reshape(k, k)

    def kappa(self, cuts: np.ndarray) -> float:
        """κ of ``cuts`` on the whole sample."""
        return _table_kappa(self.table(cuts, self.weight), self.wmat)


def _pairs(codes, scores, weight, wmat, scale, n_items, survey: bool) -> _Pairs:
    """Sort by (score, true class) — once — and aggregate equal (score, class) rows."""
    order = np.lexsort((codes, scores))
    s = scores[order]
    c = codes[order]
    n = s.shape[0]
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    np.not_equal(s[1:], s[:-1], out=new_group[1:])  # -0.0 and 0.0 are one score
    new_pair = new_group.copy()
    new_pair[1:] |= c[1:] != c[:-1]
    first = np.flatnonzero(new_pair)
    group = (np.cumsum(new_group) - 1)[first].astype(np.intp)
    pair_weight = np.add.reduceat(weight[order], first)
    pair_weight_sq = pair_weight
    row_pair = row_weight = None
    if survey:
        pair_weight_sq = np.add.reduceat(weight[order] ** 2, first)
        row_pair = np.empty(n, dtype=np.intp)
        row_pair[order] = np.cumsum(new_pair) - 1
        row_weight = weight
    return _Pairs(
        values=s[new_group],
        code=np.ascontiguousarray(c[first], dtype=np.int64),
        group=group,
        weight=pair_weight,
        weight_sq=pair_weight_sq,
        wmat=wmat,
        scale=scale,
        n_items=n_items,
        row_pair=row_pair,
        row_weight=row_weight,
    )


# ---------------------------------------------------------------------------- estimators


def _bootstrap(pairs: _Pairs, n_resamples: int, rng: np.random.Generator, tick=None):
    """Efron–Gong optimism (eq. O2): (mean optimism, refits used). ``tick()`` after each
    resample."""
    survey = pairs.row_pair is not None
    if not survey:
        n = pairs.n_items
        pvals = pairs.weight / n
    total = 0.0
    used = 0
    for _ in range(n_resamples):
        if survey:  # rows are the sampling units: draw rows, keep their weights
            idx = rng.integers(0, pairs.row_pair.shape[0], size=pairs.row_pair.shape[0])
            w = np.bincount(
                pairs.row_pair[idx], weights=pairs.row_weight[idx], minlength=pairs.weight.shape[0]
            )
        else:  # a bootstrap resample of the items is a multinomial draw of the pairs (O1)
            w = rng.multinomial(n, pvals).astype(np.float64)
        fit = pairs.refit(w)
        if tick is not None:
            tick()
        if fit is None:
            continue
        cuts, apparent_b = fit
        test_b = pairs.kappa(cuts)
        if math.isnan(apparent_b) or math.isnan(test_b):
            continue
        total += apparent_b - test_b  # optimism of resample b   (eq. O2)
        used += 1
    return (total / used if used else math.nan), used


def _fold_sizes(n: int, n_splits: int) -> np.ndarray:
    """Sizes of n_splits folds as equal as possible (the first n % n_splits one larger)."""
    sizes = np.full(n_splits, n // n_splits, dtype=np.int64)
    sizes[: n % n_splits] += 1
    return sizes


class _Cells:
    """Weights of the (true, fitted class, out-of-fold class) cells of one repetition,
    merged whenever the buffer outgrows ``limit`` entries (memory O(cells + pairs))."""

    def __init__(self, k: int, limit: int):
        self.k = k
        self.limit = limit
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.size = 0

    def add(self, t, a, b, w, w_sq) -> None:
        k = self.k
        self.parts.append(((t * k + a) * k + b, w, w_sq))
        self.size += t.shape[0]
        if self.size > self.limit:
            self.parts = [self.merged()]
            self.size = self.parts[0][0].shape[0]

    def merged(self):
        code, w, w_sq = (np.concatenate(x) for x in zip(*self.parts, strict=True))
        cells, where = np.unique(code, return_inverse=True)
        m = cells.shape[0]
        return cells, np.bincount(where, w, minlength=m), np.bincount(where, w_sq, minlength=m)


def _influence_variance(t, a, b, w, w_sq, wmat) -> float:
    """Delta-method variance over cells of weight w (Σw² per cell: w_sq) of κ(t, a) —
    eq. 5 of docs/inference.md — or, with ``b``, of κ(t, a) − κ(t, b) (its eq. 10);
    both from the influence function of its eq. 3. nan if a kappa is undefined."""
    model_a = CellKappa(rows=t, cols=a, wmat=wmat)
    ka = model_a.value(w)
    if math.isnan(ka):
        return math.nan
    g = model_a.influence(w, ka)
    if b is not None:
        model_b = CellKappa(rows=t, cols=b, wmat=wmat)
        kb = model_b.value(w)
        if math.isnan(kb):
            return math.nan
        g = g - model_b.influence(w, kb)  # (eq. 10)
    return influence_variance(g, w, w_sq)  # (eq. 5, eq. 10)


def _cross_fit(
    pairs: _Pairs, fitted_cls: np.ndarray, n_splits: int, n_repeats: int, rng, tick=None
) -> tuple[float, int, float]:
    """Repeated K-fold cross-fitting (eq. O4); ``tick()`` after each fold.

    Returns the mean pooled out-of-fold kappa, the number of refits used and the mean
    over repetitions of the paired variance (eq. O5) of apparent − out-of-fold kappa.
    """
    k = pairs.k
    survey = pairs.row_pair is not None
    n_pairs = pairs.weight.shape[0]
    n_units = pairs.row_pair.shape[0] if survey else pairs.n_items
    sizes = _fold_sizes(n_units, n_splits)
    # numpy's hypergeometric sampler takes fewer than 10**9 items; beyond, fold sizes
    # vary by about sqrt(n / n_splits), a relative 10**-4 or less
    exact_sizes = survey or n_units < _HYPERGEOMETRIC_LIMIT
    pair_a = fitted_cls[pairs.group]
    total = 0.0
    total_var = 0.0
    used = 0
    for _ in range(n_repeats):
        if survey:  # a random partition of the rows
            fold_of_row = np.empty(n_units, dtype=np.intp)
            fold_of_row[rng.permutation(n_units)] = np.repeat(np.arange(n_splits), sizes)
        else:  # a random partition of the items: a chain of hypergeometric draws
            remaining = pairs.weight.astype(np.int64)
        cells = _Cells(k, limit=4 * n_pairs + 64)
        complete = True
        for f in range(n_splits):
            if survey:
                held = fold_of_row == f
                rows, rw = pairs.row_pair[held], pairs.row_weight[held]
                fold = np.bincount(rows, weights=rw, minlength=n_pairs)
                fold_sq = np.bincount(rows, weights=rw * rw, minlength=n_pairs)
                # summed afresh, not weight − fold: a pair held out entirely must get
                # exactly 0, not a rounding residue that would still place a cut point
                train = np.bincount(
                    pairs.row_pair[~held], weights=pairs.row_weight[~held], minlength=n_pairs
                )
            else:
                if f == n_splits - 1:
                    draw = remaining
                elif exact_sizes:
                    draw = rng.multivariate_hypergeometric(remaining, int(sizes[f]))
                else:  # each item in a fold uniformly at random: a multinomial per pair
                    draw = rng.binomial(remaining, 1.0 / (n_splits - f))
                remaining = remaining - draw
                fold = fold_sq = draw.astype(np.float64)
                train = pairs.weight - fold  # whole numbers: exact
            if tick is not None:
                tick()
            if not complete:
                continue  # keep drawing: the random stream does not depend on the data
            fit = pairs.refit(train)
            if fit is None:
                complete = False
                continue
            cls = np.searchsorted(fit[0], pairs.values, side="left")  # apply_thresholds
            held = np.flatnonzero(fold > 0)
            cells.add(
                pairs.code[held], pair_a[held], cls[pairs.group[held]], fold[held], fold_sq[held]
            )
        if not complete:
            continue
        code, w, w_sq = cells.merged()
        t, a, b = code // (k * k), (code // k) % k, code % k
        pooled = np.bincount(t * k + b, weights=w, minlength=k * k).reshape(k, k)
        value = _table_kappa(pooled, pairs.wmat)  # pooled out-of-fold kappa   (eq. O4)
        if math.isnan(value):
            continue
        total += value
        total_var += _influence_variance(t, a, b, w, w_sq, pairs.wmat)
        used += 1
    if not used:
        return math.nan, 0, math.nan
    return total / used, used * n_splits, total_var / used


def _ticker(progress, total: int):
    """A ``tick()`` that calls ``progress(done, total)`` (None without ``progress``)."""
    if progress is None:
        return None
    done = [0]
    progress(0, total)

    def tick() -> None:
        done[0] += 1
        progress(done[0], total)

    return tick


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
    pairs = _pairs(codes[keep], scores[keep], w, wmat, scale, n_items, survey)
    fitted_cls = np.searchsorted(fitted.thresholds, pairs.values, side="left")
    var_apparent = _influence_variance(  # (eq. 5 of docs/inference.md)
        pairs.code, fitted_cls[pairs.group], None, pairs.weight, pairs.weight_sq, wmat
    )

    apparent = fitted.statistic
    extra_splits = min(_DEFAULT_SPLITS, n_items)
    tick = _ticker(progress, n_resamples + (extra_splits if method == "bootstrap" else 0))
    if method == "bootstrap":
        optimism, used = _bootstrap(pairs, n_resamples, gen, tick)
        statistic = apparent - optimism  # (eq. O3)
        # the optimism's standard error from one repetition of cross-fitting   (eq. O5)
        _, _, var_optimism = _cross_fit(pairs, fitted_cls, extra_splits, 1, gen, tick)
    else:
        statistic, used, var_optimism = _cross_fit(
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
