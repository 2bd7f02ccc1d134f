"""The degradation test: does the machine agree with a human as well as humans agree
with each other, within a margin — on the same items, with a paired standard error?"""

from __future__ import annotations

from collections.abc import Callable
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
from qwkit._base._weights import WeightsLike
from qwkit._evaluation._criteria import verdict
from qwkit._evaluation._design import prepare_inputs
from qwkit._evaluation._estimates import (
    METHODS,
    MIN_UNITS,
    Inference,
    IntervalResult,
    text_block,
)
from qwkit._evaluation._input import Scores, check_margin
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._statistics import Context
from qwkit._evaluation._sums import ItemSums, combine, on_rows

__all__ = [
    "PAIRS",
    "Degradation",
    "DegradationTestResult",
    "degradation_result",
    "degradation_sums",
    "degradation_test",
    "kappa_pair",
]

PAIRS = ("first", "all")


@dataclass(frozen=True, slots=True, eq=False)
class DegradationTestResult(IntervalResult):
    """Result of :func:`degradation_test`.

    Attributes
    ----------
    statistic : float
        The degradation κ(h₁, m) − κ(h₁, h₂) on the items both humans and the machine
        scored (with ``pairs="all"``, its average over pairs of humans).
    human_machine, human_human : float
        The two kappas (their difference is ``statistic``).
    standard_error : float
        Paired standard error of the statistic (influence functions, the jackknife, or
        the bootstrap's standard deviation, by ``method``).
    pvalue : float
        One-sided p-value of H0: statistic ≤ −margin. A small p-value shows
        non-inferiority: the machine loses less than ``margin`` of kappa.
    margin : float
        The non-inferiority margin.
    n_items : int
        Items that enter the statistic.
    confidence_level : float
        Level of :meth:`confidence_interval` by default, and of ``verdict``.
    method, pairs, weights : str
        How the interval was made (by default the jackknife with Student's t on its
        effective df, on Fisher's z of both kappas), which humans were paired, the
        weights.
    n_pairs : int
        Pairs of human columns averaged (1 with ``pairs="first"``).
    n_clusters : int or None
        The clusters that hold the items (``cluster=``: the sampling units); None when
        the items are the units.
    df : float
        Degrees of freedom of the interval's Student t (inf: normal).
    """

    statistic: float
    human_machine: float
    human_human: float
    standard_error: float
    pvalue: float
    margin: float
    n_items: int
    confidence_level: float
    method: str
    pairs: str
    weights: str
    n_pairs: int
    n_clusters: int | None
    df: float
    _inference: Inference = field(repr=False)

    _fields: ClassVar[tuple] = (
        "statistic",
        "human_machine",
        "human_human",
        "standard_error",
        "pvalue",
        "margin",
        "n_items",
        "confidence_level",
        "method",
        "pairs",
        "weights",
        "n_pairs",
        "n_clusters",
        "df",
        "verdict",
        "reason",
    )

    @property
    def reason(self) -> str:
        """Why the verdict is inconclusive whatever the interval ("" when it is not):
        fewer units than the test needs to hold its level."""
        units = self.n_items if self.n_clusters is None else self.n_clusters
        if units >= MIN_UNITS:
            return ""
        what = "clusters" if self.n_clusters is not None else "double-scored items"
        return (
            f"{units} {what}: the test holds its level from {MIN_UNITS} "
            "(docs/evaluation.md, small samples)"
        )

    @property
    def verdict(self) -> str:
        """'pass' (the interval lies above −margin), 'fail' (below) or 'inconclusive'
        (also, whatever the interval, with fewer than 20 double-scored items or
        clusters: ``reason``). Non-inferiority at one-sided level α is the lower limit of
        the 1 − 2α interval above −margin."""
        if self.reason:
            return "inconclusive"
        low, high = self.confidence_interval()
        return verdict(low, high, -self.margin, ">=")

    def summary(self, confidence_level: float | None = None) -> str:
        """A text block: both kappas, the degradation, its interval and the test. The interval at
        ``confidence_level`` (None: the level of the call); the verdict is the call's."""
        return text_block(
            f"Degradation test ({self.weights} weights, {self.method})",
            [
                ("Human-machine kappa", self.human_machine),
                ("Human-human kappa", self.human_human),
                ("Degradation", self.statistic),
                ("Standard error", self.standard_error),
                (
                    self._level(confidence_level),
                    tuple(self.confidence_interval(confidence_level)),
                ),
                ("Margin", -self.margin),
                ("p (H0: degradation <= -margin)", self.pvalue),
                ("Verdict", self.verdict),
                *([("  because", self.reason)] if self.reason else []),
                None,
                ("Items", self.n_items),
                *([("Clusters", self.n_clusters)] if self.n_clusters is not None else []),
                ("Human pairs", f"{self.n_pairs} ({self.pairs})"),
            ],
        )


# ---------------------------------------------------------------------------- compute


@dataclass(frozen=True, slots=True, eq=False)
class Degradation:
    """A statistic of the machine against humans and of humans against each other, on
    the same items: ``human_machine`` and ``human_human`` as item sums over ``rows``
    (indices of the evaluation's items), averaged over ``n_pairs`` pairs of humans."""

    human_machine: ItemSums
    human_human: ItemSums
    rows: np.ndarray
    n_pairs: int


#: A pair statistic: (candidate, reference, human_pair) → item sums; candidate and
#: reference are columns of the same items (``human_pair``: both are humans).
PairStatistic = Callable[[np.ndarray, np.ndarray, bool], ItemSums]


def _double_scored(scores: Scores) -> int:
    return int(np.count_nonzero((~np.isnan(scores.human)).sum(axis=1) >= 2))


def _too_few(scores: Scores, found: int, where: str, hint: str) -> QwkitError:
    double = _double_scored(scores)
    return QwkitError(
        f"`human` has {found} item{'s' if found != 1 else ''} {where}; the degradation "
        f"compares with human-human agreement on the same items and needs at least 2. "
        f"{double} of {scores.n_items} items are rated by two or more humans.{hint}",
        parameter="human",
    )


def kappa_pair(scores: Scores) -> PairStatistic:
    """Kappa with the scores' weights (positions)."""

    def make(candidate, reference, human_pair):
        return kappa_sums(candidate, reference, scores.wmat)

    return make


def degradation_sums(
    scores: Scores,
    column: int,
    pairs: str,
    statistic: PairStatistic | None = None,
    *,
    values: bool = False,
) -> Degradation:
    """The degradation of machine ``column`` in ``statistic`` (default: kappa) as item
    sums of the items the humans and the machine scored (eqs. 7–8); ``values``: the
    statistic reads the values (moments) rather than the positions."""
    statistic = statistic or kappa_pair(scores)
    h = scores.human_values if values else scores.human
    m = (scores.machine_values if values else scores.machine)[:, column]
    n_raters = h.shape[1]
    if n_raters < 2:
        raise QwkitError(
            f"`human` has one column; the degradation compares the machine with the "
            f"agreement of two humans and needs two or more columns ({_double_scored(scores)} "
            "items are double-scored).",
            parameter="human",
        )
    scored = ~np.isnan(m)
    if pairs == "first":
        rows = np.flatnonzero(scored & ~np.isnan(h[:, 0]) & ~np.isnan(h[:, 1]))
        if rows.size < 2:
            hint = " Pass pairs='all' to use every pair of human columns." if n_raters > 2 else ""
            raise _too_few(
                scores,
                int(rows.size),
                "scored by both of the first two human columns and the machine",
                hint,
            )
        h1, h2, mm = h[rows, 0], h[rows, 1], m[rows]
        return Degradation(statistic(mm, h1, False), statistic(h2, h1, True), rows, 1)

    present = ~np.isnan(h) & scored[:, None]
    members = []
    for r in range(n_raters):
        for s in range(r + 1, n_raters):
            both = present[:, r] & present[:, s]
            if np.count_nonzero(both) >= 2:
                members.append((r, s, both))
    if not members:
        raise _too_few(
            scores, 0, "scored by a pair of human columns (two or more) and the machine", ""
        )
    rows = np.flatnonzero(np.logical_or.reduce([b for _, _, b in members]))
    h, m, n = h[rows], m[rows], rows.size
    parts_hm, parts_hh = [], []
    for r, s, both in members:  # each pair on its own items, placed among all (sparse)
        both = both[rows]
        where = np.flatnonzero(both)
        count = on_rows(ItemSums(np.ones((1, where.size)), _first), where, n)
        pair = [
            statistic(m[both], h[both, r], False),
            statistic(m[both], h[both, s], False),
            statistic(h[both, s], h[both, r], True),
        ]
        hm_r, hm_s, hh = (on_rows(p, where, n) for p in pair)
        parts_hm += [count, hm_r, hm_s]
        parts_hh += [count, hh]
    hm = combine(parts_hm, _average_of_two)
    hh = combine(parts_hh, _average_of_one)
    return Degradation(hm, hh, rows, len(members))


def _first(s):
    return s[..., 0]


def _average_of_two(*values):
    """Σ_p n_p·(a_p + b_p)/2 / Σ_p n_p over (n_p, a_p, b_p) triples (eq. 8)."""
    num = sum(n * (a + b) / 2.0 for n, a, b in zip(*(iter(values),) * 3, strict=True))
    return num / sum(values[0::3])


def _average_of_one(*values):
    """Σ_p n_p·c_p / Σ_p n_p over (n_p, c_p) pairs (eq. 8)."""
    num = sum(n * c for n, c in zip(*(iter(values),) * 2, strict=True))
    return num / sum(values[0::2])


def degradation_test(
    human: RatingsLike,
    machine: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    margin: float = 0.10,
    confidence_level: float = 0.95,
    pairs: Literal["first", "all"] = "first",
    item: ArrayLike | str | None = None,
    cluster: ArrayLike | str | None = None,
    trim: bool | float = True,
    method: Literal["jackknife", "asymptotic", "bootstrap"] = "jackknife",
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> DegradationTestResult:
    """Non-inferiority test of human-machine agreement against human-human agreement.

    The degradation is κ(h₁, m) − κ(h₁, h₂), both kappas on the **same** items — those
    scored by the first two human columns and by the machine (RSMTool's ``sc1``
    convention, on one sample) — with a **paired** standard error: the two kappas share
    the rater h₁ and the items. The test asks whether the machine loses less than
    ``margin`` of kappa (Williamson, Xi & Breyer 2012: a degradation of at most 0.10).

    Parameters
    ----------
    human : array-like of shape (n_items, n_raters)
        Human ratings, one column per rater (or rating slot); NaN or None where an item
        was not rated. Numpy arrays, nested lists, pandas and polars data frames, or a
        dict of column name → ratings.
    machine : array-like of shape (n_items,)
        One machine score per item: ratings on the human scale, or real-valued scores
        (quadratic weights score them as they are: the continuous form of
        :func:`soft_kappa_score`).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights of both kappas, indexed ``[human, machine]`` (``[h₁, h₂]``).
    labels : array-like of shape (K,), default=None
        The ordered rating scale; None: the integers from the lowest to the highest
        rating (or the order an ordered categorical declares).
    margin : float, default=0.10
        Non-inferiority margin, strictly between 0 and 1.
    confidence_level : float, default=0.95
        Level of the interval that :meth:`~DegradationTestResult.confidence_interval`
        returns by default and ``verdict`` reads.
    pairs : {"first", "all"}, default="first"
        ``"first"``: h₁, h₂ are the first two human columns. ``"all"``: every pair
        (r, s) of human columns that shares two or more items with the machine
        contributes ½[κ(h_r, m) + κ(h_s, m)] − κ(h_r, h_s) on its shared items, and the
        pairs are averaged with weights proportional to their numbers of items (eq. 8);
        the standard error accounts for items that enter several pairs.
    item : array-like of shape (n_items,) or str, default=None
        The items' ids (or the name of a column of ``human`` that holds them, which also
        pairs a ``machine`` data frame that has it): an id on two rows is refused.
    cluster : array-like of shape (n_items,) or str, default=None
        The cluster of each item (a prompt, a task, a test taker; or the name of a
        column of ``human``): items in one cluster are not independent, and the
        clusters become the sampling units of the interval (cluster-robust).
    trim : bool or float, default=True
        Clip real-valued machine scores to [lowest − 0.4998, highest + 0.4998] of the
        scale, as RSMTool does; a number ≥ 0 is the tolerance instead of 0.4998 (RSMTool's
        ``trim_tolerance``); False keeps them as they are.
    method : {"jackknife", "asymptotic", "bootstrap"}, default="jackknife"
        The interval: the exact delete-one-item (or cluster) jackknife on Fisher's z of
        both kappas, inverted at each margin, with Student's t on its effective degrees
        of freedom (holds its level from 20 double-scored items: docs/evaluation.md);
        the delta method with normal quantiles (large samples); or the BCa bootstrap.
    n_resamples : int, default=2000
        Bootstrap resamples (``method="bootstrap"`` only).
    rng : None, int or numpy.random.Generator, default=None
        Randomness of the bootstrap.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing machine score is an error, or (``"omit"``) its item is left out. Leaving
        out items the machine could not score flatters it: report how many.

    Returns
    -------
    DegradationTestResult
        ``statistic``, ``human_machine``, ``human_human``, ``standard_error``,
        ``pvalue``, ``verdict``, ``.confidence_interval()``, ``.summary()``,
        ``.to_dict()``.

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
        Fewer than two items scored by two humans and the machine (the message says how
        many items are double-scored), a single human column, mismatched numbers of
        items, a constant column, a missing machine score, a margin outside (0, 1).

    See Also
    --------
    evaluate_scorer : Every criterion of Williamson et al. (2012) at once.
    degradation_sample_size : How many double-scored items the test needs.

    Notes
    -----
    Both kappas are functions of per-item sums (eqs. 1–2 of ``docs/evaluation.md``),
    so their difference is too; its delta-method variance is the variance over items of
    the difference of the two influence functions (eqs. 3–4), the same paired argument
    as :func:`compare_kappa_test`. Simulations in the docs show the interval's coverage
    and the test's size.

    References
    ----------
    .. [1] D. M. Williamson, X. Xi and F. J. Breyer, "A framework for evaluation and use
       of automated scoring", Educational Measurement: Issues and Practice 31(1):2-13,
       2012.

    Examples
    --------
    >>> import numpy as np
    >>> import qwkit
    >>> human = np.array([[1, 1], [2, 2], [3, 2], [4, 4], [5, 5], [2, 3],
    ...                   [3, 3], [4, 5], [1, 2], [5, 4], [3, 3], [2, 2]])
    >>> machine = [1, 2, 3, 4, 4, 2, 3, 4, 1, 5, 3, 3]
    >>> res = qwkit.degradation_test(human, machine)
    >>> round(res.human_machine, 4), round(res.human_human, 4), round(res.statistic, 4)
    (0.9471, 0.8718, 0.0753)
    >>> round(res.standard_error, 4), round(res.pvalue, 4)
    (0.0846, 0.0871)
    >>> res.verdict, res.reason[:48]
    ('inconclusive', '12 double-scored items: the test holds its level')
    """
    margin = check_margin(margin)
    level = check_confidence_level(confidence_level)
    pairs = check_choice(pairs, "pairs", PAIRS)
    method = check_choice(method, "method", METHODS)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    inputs = prepare_inputs(
        human,
        machine,
        item=item,
        cluster=cluster,
        weights=weights,
        labels=labels,
        nan_policy=nan_policy,
        trim=trim,
    )
    scores = inputs.scores
    if scores.machine.shape[1] != 1:
        raise QwkitError(
            f"`machine` must hold one score per item; got {scores.machine.shape[1]} columns. "
            "`evaluate_scorer` evaluates several models at once.",
            parameter="machine",
        )
    ctx = Context(level, method, n_resamples, gen, inputs.design.clusters)
    return degradation_result(scores, 0, pairs, margin, ctx)


def degradation_result(
    scores: Scores, column: int, pairs: str, margin: float, ctx: Context
) -> DegradationTestResult:
    """The test of machine ``column`` of validated scores (eq. S2)."""
    deg = degradation_sums(scores, column, pairs)
    est, inf = ctx.difference(
        deg.human_machine, deg.human_human, deg.rows, "degradation", fisher=True
    )
    return DegradationTestResult(
        statistic=inf.estimate,
        human_machine=deg.human_machine.value(),
        human_human=deg.human_human.value(),
        standard_error=inf.standard_error,
        pvalue=inf.pvalue(-margin, "greater"),
        margin=margin,
        n_items=est.n_items,
        confidence_level=ctx.level,
        method=ctx.method,
        pairs=pairs,
        weights=scores.weights,
        n_pairs=deg.n_pairs,
        n_clusters=est.n_clusters,
        df=est.df,
        _inference=inf,
    )
