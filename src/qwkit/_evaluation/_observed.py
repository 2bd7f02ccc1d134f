"""Observed-score agreement of a machine with one human: the standardized mean
difference (public), Pearson's r and exact / adjacent agreement, as per-item sums."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._validation import (
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_real,
    check_rng,
)
from qwkit._evaluation._degradation import verdict
from qwkit._evaluation._input import Scores, prepare
from qwkit._evaluation._sums import (
    METHODS,
    Inference,
    IntervalResult,
    ItemSums,
    infer,
    moments_row,
    text_block,
)

__all__ = [
    "SMDResult",
    "agreement_sums",
    "pearson_sums",
    "pooled_smd_sums",
    "rounded",
    "smd_result",
    "smd_sums",
    "standardized_mean_difference",
]


def _rows(h: np.ndarray, m: np.ndarray, products: tuple[str, ...]) -> np.ndarray:
    """The sums' rows (1, h, m, then the named products) of h and m minus one common
    constant (none of the statistics here moves with it)."""
    z = np.empty((3 + len(products), h.shape[0]))
    shift = float(np.mean(h))
    z[0] = 1.0
    a, b = np.subtract(h, shift, out=z[1]), np.subtract(m, shift, out=z[2])
    pick = {"hh": (a, a), "mm": (b, b), "hm": (a, b)}
    for row, name in enumerate(products, start=3):
        np.multiply(*pick[name], out=z[row])
    return z


def _smd(s):
    n, sh, sm, shh = (s[..., j] for j in range(4))
    sd = np.sqrt((shh - sh * sh / n) / (n - 1.0))  # ddof = 1, as RSMTool
    return (sm - sh) / n / sd  # (eq. 13)


def smd_sums(h: np.ndarray, m: np.ndarray) -> ItemSums:
    """(mean(m) − mean(h)) / sd(h): RSMTool's default ("unpooled") SMD (eq. 13)."""
    return ItemSums(_rows(h, m, ("hh",)), _smd)


def _pooled_smd(s):
    n, s1, s2, s11, s22 = (s[..., j] for j in range(5))
    var1 = (s11 - s1 * s1 / n) / (n - 1.0)
    var2 = (s22 - s2 * s2 / n) / (n - 1.0)
    return (s2 - s1) / n / np.sqrt((var1 + var2) / 2.0)  # (eq. 14)


def pooled_smd_sums(h1: np.ndarray, h2: np.ndarray) -> ItemSums:
    """(mean(h₂) − mean(h₁)) / √((sd₁² + sd₂²)/2): RSMTool's human-human SMD (eq. 14)."""
    return ItemSums(_rows(h1, h2, ("hh", "mm")), _pooled_smd)


def _pearson(s):
    n, sx, sy, sxx, syy, sxy = (s[..., j] for j in range(6))
    return (n * sxy - sx * sy) / np.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy))


def pearson_sums(h: np.ndarray, m: np.ndarray) -> ItemSums:
    """Pearson's correlation of h and m."""
    return ItemSums(_rows(h, m, ("hh", "mm", "hm")), _pearson)


def _proportion(s):
    return s[..., 1] / s[..., 0]


def agreement_sums(h: np.ndarray, m: np.ndarray, tolerance: int) -> ItemSums:
    """The proportion of items whose ratings differ by at most ``tolerance`` points."""
    z = np.empty((2, h.shape[0]))
    z[0] = 1.0
    z[1] = np.abs(h - m) <= tolerance
    return ItemSums(z, _proportion)


def rounded(m: np.ndarray, n_classes: int) -> np.ndarray:
    """Real-valued positions to the nearest category (halves up), clipped to the scale."""
    return np.clip(np.floor(m + 0.5), 0.0, n_classes - 1.0)


@dataclass(frozen=True, slots=True, eq=False)
class SMDResult(IntervalResult):
    """Result of :func:`standardized_mean_difference`.

    Attributes
    ----------
    statistic : float
        SMD = (mean machine − mean human) / sd(human), sd with n − 1 (eq. 13).
    standard_error : float
        Its standard error over items.
    mean_machine, mean_human, sd_human : float
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
    confidence_level, method : float, str
        Default level of :meth:`confidence_interval` and ``verdict``; the SE's method.
    moments_on : {"values", "positions"}
        What the means and the SD are computed on: the ratings' values, or (text
        ratings) their positions 1 … K on ``labels``.
    """

    statistic: float
    standard_error: float
    mean_machine: float
    mean_human: float
    sd_human: float
    threshold: float
    pvalue: float
    n_items: int
    confidence_level: float
    method: str
    moments_on: str
    _inference: Inference = field(repr=False)

    _fields: ClassVar[tuple] = (
        "statistic",
        "standard_error",
        "mean_machine",
        "mean_human",
        "sd_human",
        "threshold",
        "pvalue",
        "n_items",
        "confidence_level",
        "method",
        "moments_on",
        "verdict",
    )

    @property
    def verdict(self) -> str:
        """'pass' (the interval lies within ±threshold), 'fail' (wholly outside) or
        'inconclusive'."""
        low, high = self.confidence_interval()
        return verdict(low, high, self.threshold, "within")

    def summary(self, confidence_level: float | None = None) -> str:
        """A text block with the SMD, its interval and the equivalence test. The interval at
        ``confidence_level`` (None: the level of the call); the verdict is the call's."""
        return text_block(
            f"Standardized mean difference, machine - human ({self.method})",
            [
                ("SMD", self.statistic),
                ("Standard error", self.standard_error),
                (
                    self._level(confidence_level),
                    tuple(self.confidence_interval(confidence_level)),
                ),
                ("Mean machine, mean human", (self.mean_machine, self.mean_human)),
                ("SD human", self.sd_human),
                *moments_row(self.moments_on),
                (f"p (H0: |SMD| >= {self.threshold:g})", self.pvalue),
                ("Verdict", self.verdict),
                None,
                ("Items", self.n_items),
            ],
        )


def equivalence_pvalue(inf: Inference, bound: float) -> float:
    """TOST: the larger of the two one-sided p-values against ±bound."""
    return max(inf.pvalue(-bound, "greater"), inf.pvalue(bound, "less"))


def smd_result(
    scores: Scores, column: int, threshold: float, level: float, method: str, n_resamples, gen
) -> SMDResult:
    """The SMD of machine ``column`` against the first human column."""
    h, m = scores.human_values[:, 0], scores.machine_values[:, column]
    rows = ~np.isnan(h) & ~np.isnan(m)
    if np.count_nonzero(rows) < 2:
        raise QwkitError(
            f"`human` column {scores.human_names[0]!r} and `machine` share "
            f"{np.count_nonzero(rows)} item(s); the SMD needs at least 2.",
            parameter="human",
        )
    h, m = h[rows], m[rows]
    inf = infer(smd_sums(h, m), method, n_resamples=n_resamples, rng=gen, what="SMD")
    return SMDResult(
        statistic=inf.estimate,
        standard_error=inf.standard_error,
        mean_machine=scores.origin + float(np.mean(m)),
        mean_human=scores.origin + float(np.mean(h)),
        sd_human=float(np.std(h, ddof=1)),
        threshold=threshold,
        pvalue=equivalence_pvalue(inf, threshold),
        n_items=int(h.size),
        confidence_level=level,
        method=method,
        moments_on=scores.moments_on,
        _inference=inf,
    )


def standardized_mean_difference(
    human: ArrayLike,
    machine: ArrayLike,
    *,
    threshold: float = 0.15,
    labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    method: Literal["asymptotic", "jackknife", "bootstrap"] = "asymptotic",
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> SMDResult:
    """Standardized mean difference of machine and human scores, with an interval.

    SMD = (mean(m) − mean(h)) / sd(h) over the items scored by both, with the sample
    standard deviation (n − 1) of the human scores: RSMTool's default convention
    ("unpooled", since its version 7). Williamson, Xi & Breyer (2012) flag a scorer
    whose |SMD| exceeds 0.15; here that is an equivalence test with an interval.

    Parameters
    ----------
    human : array-like of shape (n_items,) or (n_items, n_raters)
        Human ratings; with several columns the first is the reference (RSMTool's
        ``sc1``). NaN or None = not rated.
    machine : array-like of shape (n_items,)
        Machine scores: ratings on the human scale, or real-valued scores.
    threshold : float, default=0.15
        Equivalence bound of the test (|SMD| ≤ threshold).
    labels : array-like of shape (K,), default=None
        The ordered scale (positions on it are averaged for text ratings).
    confidence_level : float, default=0.95
        Default level of the interval and of ``verdict``.
    method : {"asymptotic", "jackknife", "bootstrap"}, default="asymptotic"
        Delta method over items, the exact jackknife, or the BCa bootstrap.
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
    The SMD is a smooth function of the sums (n, Σh, Σm, Σh²) over items, so its
    delta-method influence of item i is
    [(mᵢ − m̄) − (hᵢ − h̄)]/s_h − SMD·[(hᵢ − h̄)² − s_h²]/(2 s_h²) (eq. 13); the
    equivalence p-value is the larger of the one-sided p-values against −threshold
    and +threshold (Schuirmann 1987).

    Examples
    --------
    >>> import qwkit
    >>> human = [1, 2, 3, 4, 5, 2, 3, 4, 3, 2, 4, 3]
    >>> machine = [1.2, 2.1, 3.3, 3.9, 4.6, 2.4, 3.1, 4.2, 2.8, 2.2, 4.1, 3.2]
    >>> res = qwkit.standardized_mean_difference(human, machine)
    >>> round(res.statistic, 4), round(res.standard_error, 4)
    (0.0813, 0.0607)
    >>> res.verdict
    'inconclusive'
    """
    threshold = check_real(threshold, "threshold", positive=True)
    level = check_confidence_level(confidence_level)
    method = check_choice(method, "method", METHODS)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    if isinstance(human, list) or (hasattr(human, "ndim") and human.ndim == 1):
        human = np.asarray(human, dtype=object if isinstance(human, list) else None)
        human = human.reshape(-1, 1)
    elif hasattr(human, "to_frame") and not hasattr(human, "columns"):
        human = human.to_frame()
    scores = prepare(human, machine, labels=labels, nan_policy=nan_policy)
    if scores.machine.shape[1] != 1:
        raise QwkitError(
            f"`machine` must hold one score per item; got {scores.machine.shape[1]} columns.",
            parameter="machine",
        )
    return smd_result(scores, 0, threshold, level, method, n_resamples, gen)
