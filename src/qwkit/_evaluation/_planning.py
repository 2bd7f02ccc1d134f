"""How many double-scored items does the degradation test need?"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._missing import NanPolicy
from qwkit._base._ratings import RatingsLike
from qwkit._base._results import result_dict
from qwkit._base._validation import check_choice
from qwkit._base._weights import WeightsLike
from qwkit._evaluation._degradation import PAIRS, degradation_sums
from qwkit._evaluation._design import prepare_inputs
from qwkit._evaluation._estimates import text_block
from qwkit._evaluation._input import check_margin
from qwkit._evaluation._sums import combine

__all__ = ["SampleSizeResult", "degradation_sample_size", "normal_variance", "probability"]


@dataclass(frozen=True, slots=True, eq=False)
class SampleSizeResult:
    """Result of :func:`degradation_sample_size`.

    Attributes
    ----------
    n_items : int or None
        Items scored by both humans and the machine that the degradation test needs to
        show non-inferiority with probability ``power``; None when no number of items
        can (the expected degradation is at or below −margin: ``reason`` says so).
    expected_degradation : float
        The degradation assumed true (κ_hm − κ_hh, or the pilot's estimate).
    standard_deviation : float
        σ: the standard deviation of one item's influence on the degradation, so that
        its standard error on n items is σ/√n.
    margin, power, alpha : float
        The non-inferiority margin, the power, and the one-sided level of the test.
    source : str
        ``"normal model"`` (from pilot kappas) or ``"pilot data"``.
    reason : str or None
        Why no number of items reaches the power, when none does (else None).
    """

    n_items: int | None
    expected_degradation: float
    standard_deviation: float
    margin: float
    power: float
    alpha: float
    source: str
    reason: str | None = None

    def power_at(self, n_items: int) -> float:
        """The power of the test on ``n_items`` double-scored items (eq. 19): at most
        ``alpha`` when the expected degradation is at or below −margin."""
        if isinstance(n_items, bool) or not isinstance(n_items, numbers.Integral) or n_items < 2:
            raise QwkitError(
                f"`n_items` must be an integer of at least 2; got {n_items!r}.", parameter="n_items"
            )
        shift = (self.expected_degradation + self.margin) * math.sqrt(n_items)
        return float(special.ndtr(shift / self.standard_deviation - special.ndtri(1 - self.alpha)))

    def summary(self) -> str:
        """A text block with the sample size and what it assumes (and, when no number
        of items reaches the power, why)."""
        needed = self.n_items if self.n_items is not None else "none"
        text = text_block(
            "Sample size of the degradation test",
            [
                ("Double-scored items needed", needed),
                ("Expected degradation", self.expected_degradation),
                ("Margin", -self.margin),
                ("Per-item SD of the influence", self.standard_deviation),
                ("Power", self.power),
                ("One-sided level", self.alpha),
                ("From", self.source),
            ],
        )
        return text if self.reason is None else f"{text}\n{self.reason}\n"

    def to_dict(self) -> dict:
        """The result as plain Python values."""
        return result_dict(
            self,
            (
                "n_items",
                "expected_degradation",
                "standard_deviation",
                "margin",
                "power",
                "alpha",
                "source",
                "reason",
            ),
        )


def normal_variance(hh: float, hm: float, mh2: float) -> float:
    """Var of one item's influence on κ(h₁, m) − κ(h₁, h₂) for standard normal scores with
    corr(h₁, h₂) = hh, corr(h₁, m) = hm, corr(h₂, m) = mh2 (eq. 18): Isserlis' theorem
    applied to the influences xy − ρ(x² + y²)/2 of the two kappas."""
    a, b, c = hh, hm, mh2
    return (
        a**4
        - a**3 * b
        + 2 * a**2 * c
        - 2 * a**2
        - a * b**3
        - a * b * c**2
        + a * b
        + b**4
        + 2 * b**2 * c
        - 2 * b**2
        - 2 * c
        + 2
    )  # (eq. 18)


def probability(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(
            f"`{name}` must be a real number in (0, 1); got {value!r}.", parameter=name
        )
    if not 0.0 < float(value) < 1.0:
        raise QwkitError(
            f"`{name}` must be strictly between 0 and 1; got {value!r}.", parameter=name
        )
    return float(value)


def _kappa(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(f"`{name}` must be a kappa in [0, 1); got {value!r}.", parameter=name)
    if not 0.0 <= float(value) < 1.0:
        raise QwkitError(f"`{name}` must be a kappa in [0, 1); got {value!r}.", parameter=name)
    return float(value)


def degradation_sample_size(
    human_human: float | None = None,
    human_machine: float | None = None,
    *,
    human: RatingsLike | None = None,
    machine: ArrayLike | None = None,
    expected_degradation: float | None = None,
    margin: float = 0.10,
    power: float = 0.80,
    alpha: float = 0.025,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    pairs: Literal["first", "all"] = "first",
    trim: bool | float = True,
    nan_policy: NanPolicy = "raise",
) -> SampleSizeResult:
    """Double-scored items needed for the degradation test to show non-inferiority.

    The test of :func:`degradation_test` rejects H0: degradation ≤ −margin when
    (D̂ + margin)/SE > z₁₋α. With SE = σ/√n and a true degradation Δ > −margin its power
    is Φ((Δ + margin)·√n/σ − z₁₋α), so n = ((z₁₋α + z_power)·σ / (Δ + margin))² (eq. 19).
    σ comes from one of two sources:

    - **pilot kappas** (``human_human``, ``human_machine``): Δ = κ_hm − κ_hh and σ from a
      normal model of the scores, in which quadratic kappa equals the correlation and the
      machine agrees equally with both humans (eq. 18);
    - **pilot data** (``human``, ``machine``): σ = SE·√n of the degradation on the pilot
      items, model-free; Δ is ``expected_degradation``, or the pilot's estimate.

    Parameters
    ----------
    human_human, human_machine : float, default=None
        Expected kappas between two humans and between a human and the machine, in
        [0, 1).
    human, machine : array-like, default=None
        Pilot data, as for :func:`degradation_test` (instead of the kappas).
    expected_degradation : float, default=None
        With pilot data: the degradation to plan for (default: the pilot's estimate).
    margin : float, default=0.10
        Non-inferiority margin, strictly between 0 and 1.
    power : float, default=0.80
        Probability of showing non-inferiority when the degradation is as expected.
    alpha : float, default=0.025
        One-sided level of the test, below 0.5; 0.025 is the level at which
        ``evaluate_scorer``'s 95% intervals decide.
    weights, labels, pairs, trim, nan_policy
        As for :func:`degradation_test` (pilot data only): the pilot's scores are read as
        the test will read the study's, so that its estimate is the test's statistic.

    Returns
    -------
    SampleSizeResult
        ``n_items``, ``standard_deviation``, ``.power_at(n)``, ``.summary()``. When the
        expected degradation is at or below −margin no number of items can show
        non-inferiority (at any n the test passes with probability at most ``alpha``):
        ``n_items`` is then None and ``reason`` says why — for a failing pilot, state the
        degradation the machine is to reach with ``expected_degradation``, and the pilot
        still gives σ.

    Raises
    ------
    QwkitError
        Neither kappas nor pilot data (or both), kappas outside [0, 1), and
        ``expected_degradation`` with pilot kappas (the kappas state it).

    Notes
    -----
    Under the normal model the variance of an item's influence is
    a⁴ − a³b + 2a²c − 2a² − ab³ − abc² + ab + b⁴ + 2b²c − 2b² − 2c + 2 with a = κ_hh,
    b = κ(h₁, m) and c = corr(h₂, m) = b (eq. 18). Ordinal ratings on a few points carry
    less information than normal scores; the docs compare both sources with simulated
    power on a 5-point scale. When pilot data are at hand, prefer them.

    Examples
    --------
    >>> import qwkit
    >>> plan = qwkit.degradation_sample_size(0.75, 0.72, margin=0.10, power=0.8)
    >>> plan.n_items, round(plan.standard_deviation, 4)
    (347, 0.465)
    >>> round(plan.power_at(500), 3)
    0.92

    A machine that loses more than the margin cannot be shown non-inferior:

    >>> failing = qwkit.degradation_sample_size(0.80, 0.65, margin=0.10)
    >>> failing.n_items, round(failing.power_at(1000), 4)
    (None, 0.0)
    """
    margin = check_margin(margin)
    power = probability(power, "power")
    alpha = probability(alpha, "alpha")
    if not alpha < 0.5:
        raise QwkitError(
            f"`alpha` is the level of a one-sided test: strictly between 0 and 0.5; got {alpha!r}.",
            parameter="alpha",
        )
    target = None
    kappas = human_human is not None or human_machine is not None
    data = human is not None or machine is not None
    if kappas == data:
        raise QwkitError(
            "Pass either the pilot kappas (`human_human` and `human_machine`) or pilot data "
            "(`human` and `machine`), not both and not neither.",
            parameter="human_human",
            also=("human",),
        )
    if kappas:
        if human_human is None or human_machine is None:
            missing = "human_machine" if human_machine is None else "human_human"
            raise QwkitError(f"`{missing}` is missing: pass both pilot kappas.", parameter=missing)
        if expected_degradation is not None:
            raise QwkitError(
                "`expected_degradation` goes with pilot data; with pilot kappas the expected "
                "degradation is human_machine − human_human.",
                parameter="expected_degradation",
            )
        a, b = _kappa(human_human, "human_human"), _kappa(human_machine, "human_machine")
        delta, sigma, source = b - a, math.sqrt(normal_variance(a, b, b)), "normal model"
    else:
        if human is None or machine is None:
            missing = "machine" if machine is None else "human"
            raise QwkitError(
                f"`{missing}` is missing: pass both pilot human ratings and machine scores.",
                parameter=missing,
            )
        target = _degradation(expected_degradation)
        scores = prepare_inputs(
            human, machine, weights=weights, labels=labels, trim=trim, nan_policy=nan_policy
        ).scores
        parts = degradation_sums(scores, 0, check_choice(pairs, "pairs", PAIRS))
        deg = combine([parts.human_machine, parts.human_human], np.subtract)
        infl = deg.influence()
        sigma = math.sqrt(float(np.dot(infl, infl)) / deg.n_items)
        delta = deg.value() if target is None else target
        source = "pilot data"
    result = functools.partial(
        SampleSizeResult,
        expected_degradation=delta,
        standard_deviation=sigma,
        margin=margin,
        power=power,
        alpha=alpha,
        source=source,
    )
    if not delta + margin > 0:
        return result(n_items=None, reason=_unreachable(delta, margin, alpha, kappas, target))
    z = float(special.ndtri(1 - alpha) + special.ndtri(power))
    return result(n_items=max(2, math.ceil((z * sigma / (delta + margin)) ** 2)))  # (eq. 19)


def _degradation(value) -> float | None:
    """``expected_degradation``: None, or a degradation of kappa in (−1, 1)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(
            f"`expected_degradation` must be a real number in (-1, 1); got {value!r}.",
            parameter="expected_degradation",
        )
    if not -1.0 < float(value) < 1.0:
        raise QwkitError(
            "`expected_degradation` must be a difference of two kappas, in (-1, 1); got "
            f"{value!r}.",
            parameter="expected_degradation",
        )
    return float(value)


def _unreachable(delta: float, margin: float, alpha: float, kappas: bool, target) -> str:
    """Why no number of items reaches the power: the degradation planned for is at or
    below −margin, where the test passes with probability at most alpha at any n."""
    said = (
        "the degradation of the pilot kappas (human–machine minus human–human kappa)"
        if kappas
        else "the expected degradation"
        if target is not None
        else "the pilot's degradation"
    )
    advice = (
        " State the degradation the machine is to reach with `expected_degradation`: the "
        "pilot still gives the spread σ."
        if not kappas and target is None
        else ""
    )
    return (
        f"No number of items: {said} {delta:.4f} is at or below −margin ({-margin:.4f}), "
        f"where the test shows non-inferiority with probability at most alpha ({alpha:g}) "
        f"however many items are double-scored.{advice}"
    )
