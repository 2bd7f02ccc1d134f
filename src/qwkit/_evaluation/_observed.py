"""The standardized mean difference of a machine and a human, with an interval and an
equivalence test (Williamson, Xi & Breyer 2012's |SMD| ≤ 0.15)."""

from __future__ import annotations

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
    check_real,
    check_rng,
)
from qwkit._evaluation._criteria import test_pvalue, verdict
from qwkit._evaluation._design import prepare_inputs
from qwkit._evaluation._estimates import (
    METHODS,
    MIN_UNITS,
    Inference,
    IntervalResult,
    moments_row,
    text_block,
)
from qwkit._evaluation._input import Scores
from qwkit._evaluation._statistics import (
    SMD_DEFINITIONS,
    Context,
    pooled_smd_sums,
    smd_sums,
)

__all__ = ["SMDResult", "smd_result", "standardized_mean_difference"]


@dataclass(frozen=True, slots=True, eq=False)
class SMDResult(IntervalResult):
    """Result of :func:`standardized_mean_difference`.

    Attributes
    ----------
    statistic : float
        SMD = (mean machine − mean human) / SD under ``definition`` (eqs. 13–14):
        ``"pooled"`` divides by √((sd_h² + sd_m²)/2) (Williamson, Xi & Breyer 2012,
        whose bound 0.15 was set on it), ``"unpooled"`` by sd_h (RSMTool's default); SDs
        with n − 1.
    standard_error : float
        Its standard error over items (or clusters).
    pooled, unpooled : float
        The SMD under each definition (one of them is ``statistic``).
    definition : {"pooled", "unpooled"}
        Which one the interval, the test and the verdict are about.
    mean_machine, mean_human, sd_human, sd_machine : float
        The parts, computed on the values of the ratings whatever order or spacing
        ``labels`` declares; text ratings have no values, and their positions 1 … K on
        ``labels`` stand in (``moments_on`` says which).
    threshold : float
        The equivalence bound: the criterion is |SMD| ≤ threshold.
    pvalue : float
        p-value of the equivalence test (two one-sided tests, TOST): H0: |SMD| ≥
        threshold. Small: the mean scores are equivalent within the bound.
    n_items : int
        Items with both a human and a machine score.
    n_clusters : int or None
        The clusters that hold them (``cluster=``), None when the items are the units.
    confidence_level, method : float, str
        Default level of :meth:`confidence_interval` and ``verdict``; the interval's
        method.
    moments_on : {"values", "positions"}
        What the means and the SDs are computed on: the ratings' values, or (text
        ratings) their positions 1 … K on ``labels``.
    """

    statistic: float
    standard_error: float
    pooled: float
    unpooled: float
    definition: str
    mean_machine: float
    mean_human: float
    sd_human: float
    sd_machine: float
    threshold: float
    pvalue: float
    n_items: int
    n_clusters: int | None
    confidence_level: float
    method: str
    moments_on: str
    _inference: Inference = field(repr=False)

    _fields: ClassVar[tuple] = (
        "statistic",
        "standard_error",
        "pooled",
        "unpooled",
        "definition",
        "mean_machine",
        "mean_human",
        "sd_human",
        "sd_machine",
        "threshold",
        "pvalue",
        "n_items",
        "n_clusters",
        "confidence_level",
        "method",
        "moments_on",
        "verdict",
        "reason",
    )

    @property
    def reason(self) -> str:
        """Why the verdict is inconclusive whatever the interval ("" when it is not)."""
        units = self.n_items if self.n_clusters is None else self.n_clusters
        if units >= MIN_UNITS:
            return ""
        what = "clusters" if self.n_clusters is not None else "items"
        return f"{units} {what}: the test holds its level from {MIN_UNITS}"

    @property
    def verdict(self) -> str:
        """'pass' (the interval lies within ±threshold), 'fail' (wholly outside) or
        'inconclusive' (also with fewer than 20 items or clusters: ``reason``)."""
        if self.reason:
            return "inconclusive"
        low, high = self.confidence_interval()
        return verdict(low, high, self.threshold, "within")

    def summary(self, confidence_level: float | None = None) -> str:
        """A text block with the SMD, its interval and the equivalence test. The interval at
        ``confidence_level`` (None: the level of the call); the verdict is the call's."""
        return text_block(
            f"Standardized mean difference, machine - human ({self.definition}, {self.method})",
            [
                ("SMD", self.statistic),
                ("Standard error", self.standard_error),
                (
                    self._level(confidence_level),
                    tuple(self.confidence_interval(confidence_level)),
                ),
                ("SMD pooled, unpooled", (self.pooled, self.unpooled)),
                ("Mean machine, mean human", (self.mean_machine, self.mean_human)),
                ("SD machine, SD human", (self.sd_machine, self.sd_human)),
                *moments_row(self.moments_on),
                (f"p (H0: |SMD| >= {self.threshold:g})", self.pvalue),
                ("Verdict", self.verdict),
                *([("  because", self.reason)] if self.reason else []),
                None,
                ("Items", self.n_items),
                *([("Clusters", self.n_clusters)] if self.n_clusters is not None else []),
            ],
        )


def smd_result(
    scores: Scores, column: int, threshold: float, definition: str, ctx: Context
) -> SMDResult:
    """The SMD of machine ``column`` against the first human."""
    h, m = scores.human_values[:, 0], scores.machine_values[:, column]
    rows = np.flatnonzero(~np.isnan(h) & ~np.isnan(m))
    if rows.size < 2:
        raise QwkitError(
            f"`human` column {scores.human_names[0]!r} and `machine` share "
            f"{rows.size} item(s); the SMD needs at least 2.",
            parameter="human",
        )
    h, m = h[rows], m[rows]
    pooled, unpooled = pooled_smd_sums(h, m), smd_sums(h, m)
    chosen = pooled if definition == "pooled" else unpooled
    est, inf = ctx.estimate(chosen, rows, "SMD")
    return SMDResult(
        statistic=inf.estimate,
        standard_error=inf.standard_error,
        pooled=pooled.value(),
        unpooled=unpooled.value(),
        definition=definition,
        mean_machine=scores.origin + float(np.mean(m)),
        mean_human=scores.origin + float(np.mean(h)),
        sd_human=float(np.std(h, ddof=1)),
        sd_machine=float(np.std(m, ddof=1)),
        threshold=threshold,
        pvalue=test_pvalue(inf, threshold, "within"),
        n_items=int(rows.size),
        n_clusters=est.n_clusters,
        confidence_level=ctx.level,
        method=ctx.method,
        moments_on=scores.moments_on,
        _inference=inf,
    )


def standardized_mean_difference(
    human: RatingsLike,
    machine: ArrayLike,
    *,
    threshold: float = 0.15,
    smd: Literal["pooled", "unpooled"] = "pooled",
    labels: ArrayLike | None = None,
    item: ArrayLike | str | None = None,
    cluster: ArrayLike | str | None = None,
    trim: bool | float = True,
    confidence_level: float = 0.95,
    method: Literal["jackknife", "asymptotic", "bootstrap"] = "jackknife",
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> SMDResult:
    """Standardized mean difference of machine and human scores, with an interval.

    SMD = (mean(m) − mean(h)) / SD over the items scored by both. Williamson, Xi &
    Breyer (2012) flag a scorer whose |SMD| exceeds 0.15 with the SD *pooled* over human
    and machine, √((sd_h² + sd_m²)/2) — the default here; RSMTool divides by the human
    SD alone by default (``smd="unpooled"``). Both are reported; the test is an
    equivalence test with an interval, on the chosen one.

    Parameters
    ----------
    human : array-like of shape (n_items,) or (n_items, n_raters)
        Human ratings; with several columns the first is the reference (RSMTool's
        ``sc1``). NaN or None = not rated.
    machine : array-like of shape (n_items,)
        Machine scores: ratings on the human scale, or real-valued scores.
    threshold : float, default=0.15
        Equivalence bound of the test (|SMD| ≤ threshold).
    smd : {"pooled", "unpooled"}, default="pooled"
        The SD of the test: pooled over human and machine (Williamson et al.'s, on which
        their bound 0.15 was set) or the human's (RSMTool's default).
    labels : array-like of shape (K,), default=None
        The ordered scale (positions on it are averaged for text ratings).
    item, cluster, trim
        As in :func:`degradation_test`: the items' ids, their clusters (the sampling
        units of the interval), RSMTool's trimming of real-valued scores.
    confidence_level : float, default=0.95
        Default level of the interval and of ``verdict``.
    method : {"jackknife", "asymptotic", "bootstrap"}, default="jackknife"
        The exact jackknife with Student's t on its effective df, the delta method with
        normal quantiles, or the BCa bootstrap.
    n_resamples : int, default=2000
        Bootstrap resamples.
    rng : None, int or numpy.random.Generator, default=None
        Randomness of the bootstrap.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing machine score is an error, or its item is left out.

    Returns
    -------
    SMDResult
        ``statistic``, ``standard_error``, ``pvalue`` (equivalence), ``verdict``,
        ``.confidence_interval()``, ``.summary()``, ``.to_dict()``.

    Warns
    -----
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the human ratings
        (and integer machine ratings) holds values that look like missing-value codes
        (99 among ratings 1..5, a lone −1): drop those items, or pass ``labels``
        (docs/kappa.md, "Missing-value codes").

    Notes
    -----
    The SMD is a smooth function of the sums (n, Σh, Σm, Σh², Σm²) over items (eqs.
    13–14), so its jackknife and its delta-method influence are those of any such
    function; the equivalence p-value is the larger of the one-sided p-values against
    −threshold and +threshold (Schuirmann 1987).

    Examples
    --------
    >>> import qwkit
    >>> human = [1, 2, 3, 4, 5, 2, 3, 4, 3, 2, 4, 3]
    >>> machine = [1.2, 2.1, 3.3, 3.9, 4.6, 2.4, 3.1, 4.2, 2.8, 2.2, 4.1, 3.2]
    >>> res = qwkit.standardized_mean_difference(human, machine)
    >>> round(res.pooled, 4), round(res.unpooled, 4)
    (0.0857, 0.0813)
    >>> res.verdict, res.reason
    ('inconclusive', '12 items: the test holds its level from 20')
    """
    threshold = check_real(threshold, "threshold", positive=True)
    level = check_confidence_level(confidence_level)
    method = check_choice(method, "method", METHODS)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    definition = check_choice(smd, "smd", SMD_DEFINITIONS)
    if hasattr(human, "to_frame") and not hasattr(human, "columns"):
        human = human.to_frame()  # a Series keeps its index (its items' labels)
    elif isinstance(human, list) or (hasattr(human, "ndim") and human.ndim == 1):
        human = np.asarray(human, dtype=object if isinstance(human, list) else None)
        human = human.reshape(-1, 1)
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
    return smd_result(scores, 0, threshold, definition, ctx)
