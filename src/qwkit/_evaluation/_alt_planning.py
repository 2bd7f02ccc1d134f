"""How many annotators, and how many items each, does the Alternative Annotator Test need?

The test of :func:`alt_test` (eq. 16 of ``docs/evaluation.md``) reads, for each annotator,
only the differences d ∈ {−1, 0, +1} of its items — the annotator aligns strictly better
than the judge (+1), equally well (0), or the judge strictly better (−1) — through the
one-sided t-test of H0: mean(d) ≥ ε, then Benjamini–Yekutieli over the annotators; the
judge passes when at least half are rejected. With items independent, an annotator's d
are draws from three probabilities (p₊, p₀, p₋), and the counts of the three values are a
multinomial draw that is all the t-test reads (mean (n₊ − n₋)/n, Σd² = n₊ + n₋). The power
of a design of m annotators × n items each is therefore simulated exactly, test by test, in
O(simulations · m) (eq. 20); the smallest n with the stated power is found by bisection
on common random numbers (from the least number of items, doubling, then halving).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._results import result_dict
from qwkit._base._validation import as_1d, check_integer, check_rng
from qwkit._base._weights import WeightsLike
from qwkit._evaluation._alt_test import annotator_tests, check_options
from qwkit._evaluation._planning import probability

__all__ = [
    "AltTestSampleSizeResult",
    "alt_test_sample_size",
    "count_moments",
    "pass_probability",
    "passes",
]

#: The numbers of annotators planned for by default.
ANNOTATORS = (3, 4, 5, 6, 8, 10)


def pass_probability(
    rates: np.ndarray,
    effects: np.ndarray,
    n_items: int,
    epsilon: float,
    q: float,
    n_simulations: int,
    rng: np.random.Generator,
    correlation: float = 0.0,
) -> float:
    """P(the judge passes) for m annotators (``rates`` (m, 3): p₊, p₀, p₋ of each) with
    ``n_items`` items each, by ``n_simulations`` simulated studies (eq. 20): every
    annotator's counts of d = +1, 0, −1 drawn at once, its mean given the correlation
    ``correlation`` with the others' through a shared normal shock (eq. 21), its
    one-sided t-test on the standard error √(effect · s²/n), and the
    Benjamini–Yekutieli step-up over the row."""
    m = rates.shape[0]
    # the multinomial counts as two binomials: n₊ ~ B(n, p₊), n₋ | n₊ ~ B(n − n₊, p₋/(1 − p₊))
    plus = rng.binomial(n_items, rates[:, 0], size=(n_simulations, m))
    rest = np.where(rates[:, 0] < 1.0, 1.0 - rates[:, 0], 1.0)
    minus = rng.binomial(n_items - plus, np.minimum(rates[:, 2] / rest, 1.0))
    mean, var = count_moments(plus, minus, n_items)
    if correlation > 0.0:  # (eq. 21): the same marginal mean and variance, correlated
        mu = rates[:, 0] - rates[:, 2]
        sd = np.sqrt(np.maximum(rates[:, 0] + rates[:, 2] - mu * mu, 0.0) / n_items)
        shared = rng.standard_normal((n_simulations, 1))
        mean = (
            mu + math.sqrt(1.0 - correlation) * (mean - mu) + math.sqrt(correlation) * sd * shared
        )
    return float(np.mean(passes(mean, var, n_items, effects, epsilon, q)))


def count_moments(plus, minus, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """The mean and the sample variance (ddof 1) of d of ``plus`` items at +1 and
    ``minus`` at −1 among ``n_items``."""
    plus, minus = np.asarray(plus, dtype=np.float64), np.asarray(minus, dtype=np.float64)
    mean = (plus - minus) / n_items
    return mean, np.maximum(plus + minus - n_items * mean * mean, 0.0) / (n_items - 1)


def passes(mean, var, n_items: int, effects, epsilon: float, q: float) -> np.ndarray:
    """Whether the judge passes each simulated study (one row of annotators' means and
    sample variances of d over ``n_items`` items): each annotator's one-sided t-test of
    H0: mean(d) ≥ ε on the standard error √(effect · s²/n), then Benjamini–Yekutieli
    at ``q``, and a winning rate of at least one half — :func:`alt_test`'s decision."""
    m = mean.shape[1]
    se = np.sqrt(effects * var / n_items)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / se
    # a constant d: certain below ε, never above (and undecided at ε), as the t-test says
    t = np.where(se > 0, t, np.where(mean < epsilon, -np.inf, np.inf))
    # p ≤ the k-th Benjamini–Yekutieli threshold ⟺ t ≤ its quantile of Student's t: the
    # step-up on the sorted t statistics, with m quantiles instead of a p-value each
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    critical = special.stdtrit(n_items - 1, np.arange(1, m + 1) / m * (q / harmonic))
    below = np.sort(t, axis=1) <= critical
    rejected = np.where(below.any(axis=1), m - np.argmax(below[:, ::-1], axis=1), 0)
    return 2 * rejected >= m  # the winning rate ω ≥ 0.5


@dataclass(frozen=True, slots=True, eq=False)
class AltTestSampleSizeResult:
    """Result of :func:`alt_test_sample_size`.

    Attributes
    ----------
    n_annotators, n_items_per_annotator : int or None
        The plan: of the designs that reach ``power``, the one with the fewest
        annotations (m × n; fewer annotators on a tie). None when none reaches it.
    simulated_power : float
        The simulated probability that the judge passes under that plan (nan without one).
    annotators : tuple of int
        The numbers of annotators planned for.
    items_per_annotator : tuple of (int or None)
        For each, the smallest number of items per annotator that reaches ``power``
        (None: none up to ``max_items_per_rater``, or none at all).
    powers : tuple of float
        For each, the simulated power at those items (at ``max_items_per_rater`` when
        none reaches ``power``; nan when no number of items can).
    rates : tuple of (float, float, float)
        The per-item probabilities the plan assumes for each annotator: the annotator
        aligns strictly better, equally well (a tie), the judge strictly better. A design
        with more annotators than rates cycles through them.
    design_effects : tuple of float
        For each annotator, the variance of mean(d) the test uses over that of
        independent items: 1 for the t-test of the accuracy and RMSE alignments, the
        pilot's jackknife ratio under the kappa alignment.
    epsilon, q, power : float
        The margin, the false discovery rate and the power to reach.
    alignment : str or None
        The pilot's alignment (None with assumed rates).
    source : str
        ``"assumed rates"`` or ``"pilot data"``.
    n_simulations : int
        Simulated studies per power.
    correlation : float
        The correlation of two annotators' d on a shared item the plan assumes.
    raters_per_item : float or None
        The annotators per item of the planned study (None: all of them).
    reason : str or None
        Why no design reaches the power, when none does.
    """

    n_annotators: int | None
    n_items_per_annotator: int | None
    simulated_power: float
    annotators: tuple
    items_per_annotator: tuple
    powers: tuple
    rates: tuple
    design_effects: tuple
    epsilon: float
    q: float
    power: float
    alignment: str | None
    source: str
    n_simulations: int
    correlation: float = 0.0
    raters_per_item: float | None = None
    reason: str | None = None
    _seed: int = field(default=0, repr=False)

    def power_at(
        self,
        n_annotators: int,
        n_items_per_annotator: int,
        *,
        n_simulations: int | None = None,
        rng: int | np.random.Generator | None = None,
    ) -> float:
        """The simulated probability that the judge passes with ``n_annotators`` ×
        ``n_items_per_annotator`` under the plan's rates (eq. 20).

        Parameters
        ----------
        n_annotators : int
            Annotators (at least 1; the rates are cycled through).
        n_items_per_annotator : int
            Items of each annotator (at least 2).
        n_simulations : int, default=None
            Simulated studies (None: the plan's own number).
        rng : None, int or numpy.random.Generator, default=None
            Source of randomness (None: the plan's own seed, so that the plan's powers
            are reproduced).

        Returns
        -------
        float
        """
        m = check_integer(n_annotators, "n_annotators", 1)
        n = check_integer(n_items_per_annotator, "n_items_per_annotator", 2)
        sims = self.n_simulations if n_simulations is None else _simulations(n_simulations)
        gen = np.random.default_rng(self._seed) if rng is None else check_rng(rng)
        rates, effects = _cycled(np.array(self.rates), np.array(self.design_effects), m)
        c = shared_correlation(self.correlation, self.raters_per_item, m)
        return pass_probability(rates, effects, n, self.epsilon, self.q, sims, gen, c)

    def summary(self) -> str:
        """A text table of the designs, the plan, and what the plan assumes."""
        title = "Sample size of the alternative annotator test"
        lines = [
            title,
            "-" * len(title),
            f"{'annotators':>10}  {'items each':>10}  {'annotations':>11}  {'power':>6}",
        ]
        for m, n, p in zip(self.annotators, self.items_per_annotator, self.powers, strict=True):
            shown = f"{n:>10d}  {m * n:>11d}" if n is not None else f"{'—':>10}  {'—':>11}"
            lines.append(f"{m:>10d}  {shown}  {p:>6.3f}")
        lines.append("")
        if self.n_annotators is None:
            lines.append(f"No design reaches the power: {self.reason}")
        else:
            lines.append(
                f"Plan: {self.n_annotators} annotators x {self.n_items_per_annotator} items "
                f"each ({self.n_annotators * (self.n_items_per_annotator or 0)} annotations), "
                f"simulated power {self.simulated_power:.3f}"
            )
        lines += [
            "",
            "Per-item rates (annotator better / tie / judge better, design effect):",
            *(
                f"  {a:.3f} / {t:.3f} / {j:.3f}, {e:.2f}"
                for (a, t, j), e in zip(self.rates, self.design_effects, strict=True)
            ),
            f"{'Epsilon':<24}{self.epsilon:>8.3f}",
            f"{'False discovery rate q':<24}{self.q:>8.3f}",
            f"{'Power':<24}{self.power:>8.3f}",
            f"{'Correlation on an item':<24}{self.correlation:>8.3f}",
            f"{'Annotators per item':<24}"
            + (f"{self.raters_per_item:>8.2f}" if self.raters_per_item else f"{'all':>8}"),
            f"{'From':<24}{self.source + (f' ({self.alignment})' if self.alignment else '')}",
            f"{'Simulated studies':<24}{self.n_simulations:>8d}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as plain Python values."""
        return result_dict(
            self,
            (
                "n_annotators",
                "n_items_per_annotator",
                "simulated_power",
                "annotators",
                "items_per_annotator",
                "powers",
                "rates",
                "design_effects",
                "epsilon",
                "q",
                "power",
                "alignment",
                "source",
                "n_simulations",
                "correlation",
                "raters_per_item",
                "reason",
            ),
        )


def _simulations(value) -> int:
    return check_integer(value, "n_simulations", 100)


def _cycled(rates: np.ndarray, effects: np.ndarray, m: int):
    """The rates and design effects of m annotators, cycling through those given."""
    idx = np.arange(m) % rates.shape[0]
    return rates[idx], effects[idx]


def _rates_vector(value, name: str) -> np.ndarray:
    """A probability or a vector of them, as float64 in [0, 1]."""
    if isinstance(value, bool) or (
        not isinstance(value, numbers.Real) and not hasattr(value, "__len__")
    ):
        raise QwkitTypeError(
            f"`{name}` must be a probability or a sequence of them (one per annotator); "
            f"got {value!r}.",
            parameter=name,
        )
    arr = np.atleast_1d(np.asarray(value, dtype=object))
    try:
        arr = as_1d(np.asarray(arr, dtype=np.float64), name)
    except (TypeError, ValueError):
        raise QwkitTypeError(
            f"`{name}` must hold probabilities; got {value!r}.", parameter=name
        ) from None
    if arr.size == 0:
        raise QwkitError(
            f"`{name}` is empty; give one probability or one per annotator.", parameter=name
        )
    bad = ~(np.isfinite(arr) & (arr >= 0.0) & (arr <= 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QwkitError(
            f"`{name}` must hold probabilities in [0, 1]; got {arr[i]} at index {i}.",
            parameter=name,
            row=i,
        )
    return arr


def _assumed_rates(advantage, ties) -> np.ndarray:
    """(p₊, p₀, p₋) per annotator from the advantage (P(judge at least as good)) and the
    ties: p₊ = 1 − advantage, p₀ = ties, p₋ = advantage − ties."""
    adv, tie = _rates_vector(advantage, "advantage"), _rates_vector(ties, "ties")
    if adv.size != tie.size and 1 not in (adv.size, tie.size):
        raise QwkitError(
            f"`advantage` and `ties` give {adv.size} and {tie.size} annotators; give one "
            "value, or one per annotator, each.",
            parameter="ties",
            also=("advantage",),
        )
    adv, tie = np.broadcast_arrays(adv, tie)
    over = np.flatnonzero(tie > adv)
    if over.size:
        i = int(over[0])
        raise QwkitError(
            f"`ties` ({tie[i]}) cannot exceed `advantage` ({adv[i]}): a tie is an item where "
            "the judge is at least as good.",
            parameter="ties",
            also=("advantage",),
        )
    return np.column_stack((1.0 - adv, tie, adv - tie))


def alt_test_sample_size(
    human: ArrayLike | None = None,
    judge: ArrayLike | None = None,
    *,
    advantage: float | ArrayLike | None = None,
    ties: float | ArrayLike = 0.0,
    epsilon: float = 0.2,
    q: float = 0.05,
    power: float = 0.80,
    n_annotators: int | Sequence[int] = ANNOTATORS,
    correlation: float | None = None,
    raters_per_item: float | None = None,
    alignment: Literal["accuracy", "rmse", "kappa"] = "accuracy",
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    min_raters_per_item: int = 2,
    min_items_per_rater: int = 30,
    max_items_per_rater: int = 10_000,
    n_simulations: int = 10_000,
    rng: int | np.random.Generator | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> AltTestSampleSizeResult:
    """Annotators and items per annotator for the Alternative Annotator Test to pass.

    How many annotators m, each annotating how many items n, give the test of
    :func:`alt_test` the probability ``power`` of passing a judge as good as assumed? The
    per-item rates come from one of two sources:

    - **assumed rates** (``advantage``, ``ties``): the probability that the judge aligns
      at least as well as an annotator on an item (ρ, :class:`AltTestResult`'s
      ``advantage``), and that both align equally well;
    - **pilot data** (``human``, ``judge``): each pilot annotator's shares of items it
      wins, ties and loses, as :func:`alt_test` scores them with ``alignment``.

    The power of each design is simulated (eqs. 20–21) and the smallest n found for
    each m.

    Parameters
    ----------
    human, judge : array-like, default=None
        Pilot data, as for :func:`alt_test` (instead of the rates).
    advantage : float or array-like of float, default=None
        Assumed rates: P(the judge aligns at least as well as the annotator) on an item,
        one value or one per annotator.
    ties : float or array-like of float, default=0.0
        Assumed rates: P(both align equally well), at most ``advantage`` (with the
        accuracy alignment, the items where both agree, or both disagree, with the
        remaining annotators alike).
    epsilon, q : float, default=0.2, 0.05
        The test's margin and false discovery rate, as in :func:`alt_test`.
    power : float, default=0.80
        The probability of passing to reach, strictly between 0 and 1.
    n_annotators : int or sequence of int, default=(3, 4, 5, 6, 8, 10)
        The numbers of annotators to plan for (each at least 2).
    correlation : float, default=None
        The correlation between two annotators' differences d on an item both annotate:
        the judge's error on an item is every annotator's gain, so their tests are
        positively correlated, and a pass (at least half of them rejected) is less
        likely than for independent annotators. None: estimated from the pilot, or 0.5
        with assumed rates (what simulated panels give, 0.47–0.55: ``docs/evaluation.md``);
        in [0, 1).
    raters_per_item : float, default=None
        The annotators of each item in the planned study (r): two annotators share a
        share (r − 1)/(m − 1) of their items, and their tests' correlation is that times
        ``correlation``. None: every annotator annotates every item (r = m), or, from a
        pilot, the pilot's mean.
    alignment, weights, labels, min_raters_per_item
        As for :func:`alt_test` (pilot data only).
    min_items_per_rater : int, default=30
        The least number of items per annotator considered: :func:`alt_test` skips
        annotators with fewer.
    max_items_per_rater : int, default=10_000
        The most items per annotator considered.
    n_simulations : int, default=10_000
        Simulated studies per power (Monte Carlo SE of a power of 0.8: 0.004).
    rng : None, int or numpy.random.Generator, default=None
        Source of randomness of the simulations.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing judge score in the pilot: an error, or the item left out (as for
        :func:`alt_test`; a missing annotation is an item that annotator did not annotate).

    Returns
    -------
    AltTestSampleSizeResult
        ``n_annotators``, ``n_items_per_annotator``, ``simulated_power``, the table of
        designs (``annotators``, ``items_per_annotator``, ``powers``),
        ``.power_at(m, n)``, ``.summary()``, ``.to_dict()``.

    Raises
    ------
    QwkitError
        Neither rates nor pilot data (or both), rates outside [0, 1] or ties above the
        advantage, and the input errors of :func:`alt_test`.

    Warns
    -----
    DesignWarning
        Pilot data of two annotators (as :func:`alt_test`).

    Notes
    -----
    An annotator's test reads only the counts n₊, n₀, n₋ of its items' d = +1, 0, −1: the
    mean (n₊ − n₋)/n and the variance (n₊ + n₋ − n·mean²)/(n − 1). With independent items
    the counts are multinomial (n; p₊, p₀, p₋), p₊ = 1 − ρ, p₀ = ties, p₋ = ρ − ties, so a
    simulated study is one multinomial draw per annotator and the test exactly as
    :func:`alt_test` runs it (eq. 20). Annotators of one study are not independent: they
    share items and the judge's scores on them. Two annotators' means of d correlate by
    c = ρ·(r − 1)/(m − 1) (ρ = ``correlation``, r = ``raters_per_item``), which the
    simulation gives them through a shared normal shock that keeps each mean's own
    distribution (eq. 21); the docs check the planned power against whole simulated
    studies run through :func:`alt_test`. The kappa alignment's jackknife standard error
    is larger than the t-test's (its pseudo-values are dependent): from a pilot, each
    annotator's ratio of the two variances (the design effect) scales the simulated
    standard error. The rates a pilot gives hold for designs like the pilot's (the same
    number of annotations per item); a pilot of a few dozen items gives rates, and so a
    plan, that vary from pilot to pilot.

    No number of items can pass a judge when fewer than half of the annotators have
    p₊ − p₋ < ε (the mean of d is then at or above the margin): the plan then has no
    design and says why in ``reason``.

    Examples
    --------
    A judge at least as good as an annotator on 70% of the items (30% ties), margin 0.15:

    >>> import qwkit
    >>> plan = qwkit.alt_test_sample_size(
    ...     advantage=0.7, ties=0.3, epsilon=0.15, n_annotators=[3, 5], rng=1
    ... )
    >>> plan.n_annotators, plan.n_items_per_annotator, plan.items_per_annotator
    (3, 88, (88, 95))
    >>> round(plan.simulated_power, 3), round(plan.power_at(3, 150), 2)
    (0.801, 0.97)
    """
    epsilon, q, alignment = check_options(epsilon, q, alignment)
    power = probability(power, "power")
    sims = _simulations(n_simulations)
    gen = check_rng(rng)
    counts = _annotator_counts(n_annotators)
    rho = None if correlation is None else _unit_interval(correlation, "correlation")
    per_item = None if raters_per_item is None else _raters(raters_per_item)
    min_items = check_integer(min_items_per_rater, "min_items_per_rater", 2)
    max_items = check_integer(max_items_per_rater, "max_items_per_rater", min_items)
    assumed = advantage is not None
    data = human is not None or judge is not None
    if assumed == data:
        raise QwkitError(
            "Pass either assumed rates (`advantage`, and `ties`) or pilot data (`human` and "
            "`judge`), not both and not neither.",
            parameter="advantage",
            also=("human",),
        )
    if assumed:
        rates = _assumed_rates(advantage, ties)
        effects = np.ones(rates.shape[0])
        source, used = "assumed rates", None
        rho = ASSUMED_CORRELATION if rho is None else rho
    else:
        if human is None or judge is None:
            missing = "judge" if judge is None else "human"
            raise QwkitError(
                f"`{missing}` is missing: pass both the pilot's human annotations and the judge's.",
                parameter=missing,
            )
        tested = annotator_tests(
            human,
            judge,
            epsilon=epsilon,
            alignment=alignment,
            weights=weights,
            labels=labels,
            min_raters_per_item=min_raters_per_item,
            min_items_per_rater=2,
            nan_policy=nan_policy,
        )
        rates = np.array([[np.mean(a.d == v) for v in (1.0, 0.0, -1.0)] for a in tested.annotators])
        effects = np.array(
            [a.design_effect if math.isfinite(a.design_effect) else 1.0 for a in tested.annotators]
        )
        source, used = "pilot data", alignment
        estimated, mean_raters = _pilot_correlation(tested.annotators)
        rho = estimated if rho is None else rho
        per_item = mean_raters if per_item is None else per_item
    seed = int(gen.integers(2**63))
    found, powers = [], []
    for m in counts:
        c = shared_correlation(rho, per_item, m)
        n, p = _smallest_n(
            rates, effects, m, epsilon, q, power, min_items, max_items, sims, seed, c
        )
        found.append(n)
        powers.append(p)
    reason = None
    best = [
        (m * n, m, n, p) for m, n, p in zip(counts, found, powers, strict=True) if n is not None
    ]
    plan_m: int | None
    plan_n: int | None
    if best:
        _, plan_m, plan_n, plan_p = min(best)
    else:
        plan_m = plan_n = None
        plan_p = math.nan
        reason = _why_not(rates, epsilon, counts, max_items)
    return AltTestSampleSizeResult(
        n_annotators=plan_m,
        n_items_per_annotator=plan_n,
        simulated_power=plan_p,
        annotators=tuple(counts),
        items_per_annotator=tuple(found),
        powers=tuple(powers),
        rates=tuple(tuple(float(x) for x in r) for r in rates),
        design_effects=tuple(float(e) for e in effects),
        epsilon=epsilon,
        q=q,
        power=power,
        alignment=used,
        source=source,
        n_simulations=sims,
        correlation=float(rho),
        raters_per_item=None if per_item is None else float(per_item),
        reason=reason,
        _seed=seed,
    )


#: The correlation of two annotators' d on a shared item assumed without a pilot: what
#: simulated panels of alike annotators give (0.47–0.55, ``benchmarks/alt_test_planning.py``).
ASSUMED_CORRELATION = 0.5


def shared_correlation(rho: float, raters_per_item: float | None, m: int) -> float:
    """The correlation of two of m annotators' means of d: ρ times the share of items
    they share, (r − 1)/(m − 1) (1 when every annotator annotates every item) (eq. 21)."""
    if raters_per_item is None or m < 2:
        return rho
    return rho * min(1.0, max(0.0, (raters_per_item - 1.0) / (m - 1.0)))


def _unit_interval(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(
            f"`{name}` must be a real number in [0, 1); got {value!r}.", parameter=name
        )
    if not 0.0 <= float(value) < 1.0:
        raise QwkitError(f"`{name}` must be in [0, 1); got {value!r}.", parameter=name)
    return float(value)


def _raters(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(
            f"`raters_per_item` must be a number of at least 2; got {value!r}.",
            parameter="raters_per_item",
        )
    if not (math.isfinite(float(value)) and float(value) >= 2.0):
        raise QwkitError(
            f"`raters_per_item` must be at least 2 (the annotator and one to align with); "
            f"got {value!r}.",
            parameter="raters_per_item",
        )
    return float(value)


def _pilot_correlation(annotators) -> tuple[float, float]:
    """(ρ, r) of a pilot: the pooled correlation of two annotators' d on the items both
    annotate (each annotator's d standardized over its own items; 0 when no item is
    shared or a d is constant, never below 0), and the mean number of tested annotators
    per item."""
    z = {}
    for a in annotators:
        sd = float(np.std(a.d))
        if sd > 0:
            z[a.name] = dict(zip(a.items.tolist(), ((a.d - a.d.mean()) / sd).tolist(), strict=True))
    products = []
    for first, second in itertools.combinations(z.values(), 2):
        products += [first[k] * second[k] for k in first.keys() & second.keys()]
    rho = float(np.mean(products)) if products else 0.0
    seen = np.concatenate([a.items for a in annotators])
    per_item = float(seen.size / np.unique(seen).size)
    return min(max(rho, 0.0), 0.99), per_item


def _annotator_counts(value) -> list[int]:
    values = [value] if isinstance(value, numbers.Integral) else value
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise QwkitTypeError(
            f"`n_annotators` must be an integer or a sequence of integers; got {value!r}.",
            parameter="n_annotators",
        )
    out = [check_integer(m, "n_annotators", 2) for m in values]
    if not out:
        raise QwkitError("`n_annotators` is empty; give at least one.", parameter="n_annotators")
    return sorted(set(out))


def _smallest_n(rates, effects, m, epsilon, q, power, lo, hi, sims, seed, correlation):
    """(smallest n in [lo, hi] whose simulated power reaches ``power``, its power); (None,
    power at ``hi``) when even ``hi`` falls short, (None, nan) when no n can pass."""
    if not _feasible(rates, m, epsilon):
        return None, math.nan
    r, e = _cycled(rates, effects, m)

    def at(n):  # common random numbers: the same seed for every n
        gen = np.random.default_rng(seed)
        return pass_probability(r, e, n, epsilon, q, sims, gen, correlation)

    low = at(lo)
    if low >= power:
        return lo, low
    top, best = lo, math.nan
    while top < hi:  # doubling: the bracket [lo, top] of the plan, from the least n up
        lo, top = top, min(2 * top, hi)
        best = at(top)
        if best >= power:
            break
    if best < power:
        return None, best
    hi = top
    while hi - lo > 1:  # at(lo) < power <= at(hi)
        mid = (lo + hi) // 2
        value = at(mid)
        if value >= power:
            hi, best = mid, value
        else:
            lo = mid
    return hi, best


def _feasible(rates, m: int, epsilon: float) -> bool:
    """Whether at least half of m annotators (cycling through the rates) have a mean of
    d below ε: else no number of items can pass the judge."""
    r = rates[np.arange(m) % rates.shape[0]]
    return 2 * int(np.count_nonzero(r[:, 0] - r[:, 2] < epsilon)) >= m


def _why_not(rates, epsilon, counts, max_items) -> str:
    means = ", ".join(f"{x:.3f}" for x in rates[:, 0] - rates[:, 2])
    if not any(_feasible(rates, m, epsilon) for m in counts):
        return (
            f"fewer than half of the annotators are within ε ({epsilon:g}) of the judge: "
            f"P(annotator better) − P(judge better) is {means}, and the test rejects only "
            "annotators whose mean of d is below ε — no number of items passes this judge"
        )
    return (
        f"no design of {', '.join(map(str, counts))} annotators reaches the power with "
        f"{max_items} items each or fewer; raise `max_items_per_rater`"
    )
