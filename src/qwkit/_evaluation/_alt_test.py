"""The Alternative Annotator Test (Calderon, Reichart & Dror 2025): may an LLM judge
replace one of the human annotators?"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from qwkit._base._errors import QwkitError
from qwkit._base._ratings import RatingsLike
from qwkit._base._results import result_dict
from qwkit._base._validation import check_choice, check_integer, check_real
from qwkit._base._warnings import DesignWarning, warn
from qwkit._base._weights import WeightsLike
from qwkit._evaluation._input import prepare
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._sums import ItemSums

__all__ = [
    "ALIGNMENTS",
    "AltTestResult",
    "Annotator",
    "PerAnnotator",
    "alt_test",
    "annotator_tests",
    "check_options",
]

ALIGNMENTS = ("accuracy", "rmse", "kappa")
AlignmentName = Literal["accuracy", "rmse", "kappa"]


@dataclass(frozen=True, slots=True, eq=False)
class AltTestResult:
    """Result of :func:`alt_test`.

    Attributes
    ----------
    winning_rate : float
        ω: the share of annotators against whom the judge wins — whose null hypothesis
        "the annotator is better than the judge by at least ε" is rejected by the
        Benjamini–Yekutieli procedure at level ``q``.
    advantage_probability : float
        ρ: the mean over annotators of the share of items where the judge aligns with
        the remaining annotators at least as well as the left-out annotator does.
    passed : bool
        ``winning_rate >= 0.5``: the judge may replace an annotator.
    epsilon, q : float
        The cost-benefit margin and the false discovery rate.
    alignment : str
        How alignment with the remaining annotators is scored per item.
    raters : tuple of str
        The annotators tested (with at least ``min_items_per_rater`` items).
    pvalues : tuple of float
        One-sided p-value of each annotator's paired t-test.
    rejected : tuple of bool
        Whether the judge wins against each annotator.
    advantage : tuple of float
        Each annotator's share of items where the judge is at least as good.
    n_items : tuple of int
        Items of each annotator in the test.
    skipped : tuple of str
        Annotators with too few items, left out.
    n_items_used : int
        Items with the judge's score and at least ``min_raters_per_item`` human ratings.
    ties : tuple of float
        Each annotator's share of items where the judge and the annotator align equally
        well (a part of ``advantage``; with ``advantage``, the rates
        :func:`alt_test_sample_size` plans from).
    """

    winning_rate: float
    advantage_probability: float
    passed: bool
    epsilon: float
    q: float
    alignment: str
    raters: tuple
    pvalues: tuple
    rejected: tuple
    advantage: tuple
    n_items: tuple
    skipped: tuple
    n_items_used: int
    ties: tuple = ()

    def summary(self) -> str:
        """A text table: each annotator's p-value and verdict, then ω and ρ."""
        title = (
            f"Alternative annotator test ({self.alignment}, epsilon={self.epsilon:g}, q={self.q:g})"
        )
        width = max([9] + [len(str(r)) for r in self.raters])
        lines = [
            title,
            "-" * len(title),
            f"{'annotator':<{width}}  {'items':>6}  {'judge >=':>8}  {'p-value':>8}  judge wins",
        ]
        for r, n, a, p, won in zip(
            self.raters, self.n_items, self.advantage, self.pvalues, self.rejected, strict=True
        ):
            lines.append(f"{r!s:<{width}}  {n:>6d}  {a:>8.3f}  {p:>8.4f}  {'yes' if won else 'no'}")
        if self.skipped:
            lines.append(f"skipped (too few items): {', '.join(map(str, self.skipped))}")
        lines += [
            "",
            f"{'Winning rate':<24}{self.winning_rate:>8.3f}",
            f"{'Advantage probability':<24}{self.advantage_probability:>8.3f}",
            f"{'Passed (rate >= 0.5)':<24}{'yes' if self.passed else 'no':>8}",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """The result as plain Python values."""
        return result_dict(
            self,
            (
                "winning_rate",
                "advantage_probability",
                "passed",
                "epsilon",
                "q",
                "alignment",
                "raters",
                "pvalues",
                "rejected",
                "advantage",
                "n_items",
                "skipped",
                "n_items_used",
                "ties",
            ),
        )


def _t_pvalue(diff: np.ndarray, epsilon: float) -> float:
    """One-sample t-test of H0: mean ≥ ε against mean < ε (scipy's ``ttest_1samp`` with
    ``alternative="less"``, also for constant data: t = ±inf, or nan at the mean ε)."""
    n = diff.size
    mean = float(np.mean(diff))
    sd = float(np.std(diff, ddof=1))
    if sd == 0.0:
        return math.nan if mean == epsilon else float(mean > epsilon)
    t = (mean - epsilon) / (sd / math.sqrt(n))
    return float(special.stdtr(n - 1, t))


def _benjamini_yekutieli(pvalues: np.ndarray, q: float) -> np.ndarray:
    """Rejections of the Benjamini–Yekutieli (2001) step-up procedure at FDR ``q``."""
    m = pvalues.size
    order = np.argsort(pvalues, kind="stable")
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    thresholds = np.arange(1, m + 1) / m * (q / harmonic)
    below = np.flatnonzero(pvalues[order] <= thresholds)  # nan never passes
    rejected = np.zeros(m, dtype=bool)
    if below.size:
        rejected[order[: below[-1] + 1]] = True
    return rejected


def _scores(alignment: str, pred: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Per-item alignment of ``pred`` with the remaining annotators (NaN = not rated)."""
    present = ~np.isnan(others)
    count = present.sum(axis=1)
    if alignment == "accuracy":
        return ((others == pred[:, None]) & present).sum(axis=1) / count
    sq = np.where(present, (pred[:, None] - others) ** 2, 0.0).sum(axis=1)
    return -np.sqrt(sq / count)


def _pseudo_values(candidate, others, wmat) -> np.ndarray:
    """Jackknife pseudo-values G·κ − (G − 1)·κ₍ᵢ₎ of the pooled kappa of ``candidate``
    against the remaining annotators (eq. 17)."""
    stat = kappa_sums(candidate, others, wmat)
    g = stat.n_items
    with np.errstate(all="ignore"):
        return g * stat.value() - (g - 1.0) * stat.leave_one_out()


def _differences(judge_score, human_score, tie) -> np.ndarray:
    """d = W_annotator − W_judge of per-item scores (eq. 16), 0 where ``tie``."""
    judge_score = np.where(tie, 0.0, judge_score)
    human_score = np.where(tie, 0.0, human_score)
    return (human_score >= judge_score).astype(np.float64) - (judge_score >= human_score)


#: Numbers held at once by a chunk of the kappa alignment's jackknife (16 MiB).
_CHUNK = 1 << 21


def _without(stat: ItemSums, rows: np.ndarray, total: np.ndarray, gone: np.ndarray):
    """(b, G) pseudo-values of every item in the samples without item ``gone[t]`` (one
    row per t): (G − 1)·κ(S − Z_g) − (G − 2)·κ(S − Z_g − Z_i) (eq. 17a)."""
    n = stat.n_items - 1.0
    rest = total - rows[gone]  # (b, p)
    whole = stat.at(rest).real
    loo = stat.at(rest[:, None, :] - rows[None, :, :]).real
    return n * whole[:, None] - (n - 1.0) * loo


def _kappa_pvalue(judge, human, others, wmat, epsilon: float):
    """(p-value, d, design effect) of one annotator under the kappa alignment: d of the
    pseudo-values
    (eq. 16), and the one-sided t-test of H0: mean(d) ≥ ε on the delete-one-item
    jackknife standard error of mean(d) (eq. 17b), every item's pseudo-values recomputed
    without the deleted item, because they all share the sample's κ̂ and moments."""
    stats = [kappa_sums(x, others, wmat) for x in (judge, human)]
    tie = judge == human
    g = stats[0].n_items
    with np.errstate(all="ignore"):
        pseudo = [s.n_items * s.value() - (s.n_items - 1.0) * s.leave_one_out() for s in stats]
        d = _differences(pseudo[0], pseudo[1], tie)
        rows = [s.rows(0, g) for s in stats]
        totals = [s.total() for s in stats]
        step = max(1, _CHUNK // max(1, g * rows[0].shape[1]))
        means = np.empty(g)
        for lo in range(0, g, step):
            gone = np.arange(lo, min(g, lo + step))
            left = [_without(s, r, t, gone) for s, r, t in zip(stats, rows, totals, strict=True)]
            dg = _differences(left[0], left[1], tie[None, :])
            dg[np.arange(gone.size), gone] = 0.0
            means[gone] = dg.sum(axis=1) / (g - 1.0)
    mean = float(np.mean(d))
    if not np.all(np.isfinite(means)) or g < 3:
        return math.nan, d, math.nan  # a kappa undefined without some item: no test
    se = math.sqrt((g - 1.0) / g * float(np.sum((means - means.mean()) ** 2)))  # (eq. 17b)
    naive = float(np.var(d, ddof=1)) / g
    effect = se * se / naive if naive > 0 else math.nan
    if se == 0.0:
        return (math.nan if mean == epsilon else float(mean > epsilon)), d, effect
    return float(special.stdtr(g - 1, (mean - epsilon) / se)), d, effect


def alt_test(
    human: RatingsLike,
    judge: ArrayLike,
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    alignment: Literal["accuracy", "rmse", "kappa"] = "accuracy",
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    min_raters_per_item: int = 2,
    min_items_per_rater: int = 30,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> AltTestResult:
    """The Alternative Annotator Test: may an LLM judge replace a human annotator?

    Calderon, Reichart & Dror (2025): leave one annotator out at a time; on each item,
    score how well the judge and the left-out annotator each align with the
    *remaining* annotators; test, per annotator, whether the annotator's advantage over
    the judge is below ``epsilon`` (a one-sided paired t-test of the item indicators),
    control the false discovery rate over annotators with Benjamini–Yekutieli; the judge
    passes when it wins against at least half of them.

    Parameters
    ----------
    human : array-like of shape (n_items, n_annotators)
        Annotations, one column per annotator; NaN or None where an annotator did not
        annotate an item.
    judge : array-like of shape (n_items,)
        The judge's annotation of every item (ratings, or real-valued scores for
        ``alignment="rmse"`` and ``"kappa"`` with quadratic weights).
    epsilon : float, default=0.2
        The cost-benefit margin ε: how much better than the judge an annotator may be
        and still lose (the authors suggest 0.2 for experts, 0.15 for skilled
        annotators, 0.1 for crowd workers); in [0, 1), as the advantage is a difference
        of two win rates.
    q : float, default=0.05
        False discovery rate of the Benjamini–Yekutieli procedure.
    alignment : {"accuracy", "rmse", "kappa"}, default="accuracy"
        Per-item alignment with the remaining annotators: the share of them with the
        same annotation (``"accuracy"``), minus the root mean squared difference
        (``"rmse"``) — the reference implementation's two scores — or the jackknife
        pseudo-value of weighted kappa (``"kappa"``, eq. 17 of ``docs/evaluation.md``):
        chance-corrected, so that a judge who shrinks toward the middle of an ordinal
        scale gains nothing by it. Under ``"kappa"`` an item where the judge and the
        annotator give the same annotation is a tie, as under the other two, and the
        per-annotator test uses the jackknife standard error of eq. 17b (the
        pseudo-values share the sample's estimates, so their wins are not independent).
        ``"accuracy"`` compares annotations for equality: a real-valued judge (an
        average of several answers) needs ``"rmse"`` or ``"kappa"``.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights of ``alignment="kappa"``.
    labels : array-like of shape (K,), default=None
        The ordered scale (needed for text annotations under ordered weights).
    min_raters_per_item : int, default=2
        Items with fewer human annotations are dropped.
    min_items_per_rater : int, default=30
        Annotators with fewer items are skipped (listed in ``skipped``).
    nan_policy : {"raise", "omit"}, default="raise"
        A missing judge annotation is an error, or its item is dropped.

    Returns
    -------
    AltTestResult
        ``winning_rate``, ``advantage_probability``, ``passed``, and per annotator
        ``pvalues``, ``rejected``, ``advantage`` and ``n_items``.

    Warns
    -----
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the human ratings
        (and integer machine ratings) holds values that look like missing-value codes
        (99 among ratings 1..5, a lone −1): drop those items, or pass ``labels``
        (docs/kappa.md, "Missing-value codes").
    DesignWarning
        When the panel holds two annotators: each is judged against the other alone, so
        the test compares the judge with one human.

    Raises
    ------
    QwkitError
        No annotator with enough items, and the input errors of
        :func:`degradation_test`.

    See Also
    --------
    alt_test_sample_size : How many annotators and items the test needs.

    Notes
    -----
    With ``alignment="accuracy"`` or ``"rmse"`` the result equals that of the authors'
    reference code (the ``alt_test`` function of their repository's example notebook),
    which the tests check on random data.

    Under ``alignment="kappa"`` each item's pseudo-value (eq. 17) is κ̂ plus its
    influence at the sample's estimates, which every item shares: the win indicators
    move together, and a t-test on them, which assumes independent items, rejected a
    true null in up to 15% of annotators at a nominal 5% (``docs/evaluation.md``, §7).
    The test is therefore the one-sided t-test of H0: mean(d) ≥ ε on the delete-one-item
    jackknife standard error of mean(d), every item's pseudo-value recomputed without
    the deleted item (eqs. 17a–17b; O(G²) per annotator).

    References
    ----------
    .. [1] N. Calderon, R. Reichart and R. Dror, "The Alternative Annotator Test for
       LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with
       LLMs", Proceedings of ACL 2025.
    .. [2] Y. Benjamini and D. Yekutieli, "The control of the false discovery rate in
       multiple testing under dependency", Annals of Statistics 29(4):1165-1188, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> import qwkit
    >>> rng = np.random.default_rng(20261121)
    >>> truth = rng.integers(1, 6, size=60)
    >>> noise = rng.integers(-1, 2, size=(60, 3)) * (rng.random((60, 3)) < 0.4)
    >>> human = np.clip(truth[:, None] + noise, 1, 5)
    >>> judge = np.clip(truth + rng.integers(-1, 2, size=60) * (rng.random(60) < 0.3), 1, 5)
    >>> res = qwkit.alt_test(human, judge, alignment="accuracy", epsilon=0.15)
    >>> res.passed, round(res.winning_rate, 3), round(res.advantage_probability, 3)
    (True, 0.667, 0.833)
    >>> [round(p, 4) for p in res.pvalues], res.rejected
    ([0.0172, 0.0116, 0.1516], (True, True, False))
    """
    epsilon, q, alignment = check_options(epsilon, q, alignment)
    tested = annotator_tests(
        human,
        judge,
        epsilon=epsilon,
        alignment=alignment,
        weights=weights,
        labels=labels,
        min_raters_per_item=min_raters_per_item,
        min_items_per_rater=min_items_per_rater,
        nan_policy=nan_policy,
    )
    pvals = [a.pvalue for a in tested.annotators]
    rejected = _benjamini_yekutieli(np.asarray(pvals), q)
    rate = float(np.count_nonzero(rejected)) / len(pvals)
    advantage = [float(np.mean(a.d <= 0.0)) for a in tested.annotators]  # judge ≥ annotator
    return AltTestResult(
        winning_rate=rate,
        advantage_probability=float(np.mean(advantage)),
        passed=rate >= 0.5,
        epsilon=epsilon,
        q=q,
        alignment=alignment,
        raters=tuple(a.name for a in tested.annotators),
        pvalues=tuple(pvals),
        rejected=tuple(bool(r) for r in rejected),
        advantage=tuple(advantage),
        n_items=tuple(a.d.size for a in tested.annotators),
        skipped=tested.skipped,
        n_items_used=tested.n_items_used,
        ties=tuple(float(np.mean(a.d == 0.0)) for a in tested.annotators),
    )


def check_options(epsilon, q, alignment: AlignmentName) -> tuple[float, float, AlignmentName]:
    """The alt-test's margin ε in [0, 1), false discovery rate q in (0, 1), and
    alignment, validated."""
    epsilon = check_real(epsilon, "epsilon")
    if not epsilon < 1.0:  # the advantage is a difference of two win rates
        raise QwkitError(
            f"`epsilon` must be in [0, 1) (a difference of win rates; from 1 on every judge "
            f"passes); got {epsilon!r}.",
            parameter="epsilon",
        )
    q = check_real(q, "q")
    if not 0.0 < q < 1.0:
        raise QwkitError(f"`q` must be strictly between 0 and 1; got {q!r}.", parameter="q")
    return epsilon, q, check_choice(alignment, "alignment", ALIGNMENTS)


@dataclass(frozen=True, slots=True)
class Annotator:
    """One annotator's test: its name, the differences d of its items (eq. 16), the
    one-sided p-value, and the design effect — the variance of mean(d) the test uses
    over var(d)/n (1 for the t-test; the jackknife's ratio under the kappa alignment)."""

    name: str
    d: np.ndarray
    pvalue: float
    design_effect: float
    items: np.ndarray  # the positions of its items in ``human``


@dataclass(frozen=True, slots=True)
class PerAnnotator:
    """Every annotator's test, the annotators skipped, and the items used."""

    annotators: tuple[Annotator, ...]
    skipped: tuple
    n_items_used: int
    ties: tuple = ()


def annotator_tests(
    human,
    judge,
    *,
    epsilon: float,
    alignment: str,
    weights,
    labels,
    min_raters_per_item,
    min_items_per_rater,
    nan_policy,
) -> PerAnnotator:
    """The per-annotator tests of :func:`alt_test` (validated ``epsilon`` and
    ``alignment``), with the warning about a panel of two annotators."""
    min_raters = check_integer(min_raters_per_item, "min_raters_per_item", 2)
    min_items = check_integer(min_items_per_rater, "min_items_per_rater", 2)
    scores = prepare(
        human,
        judge,
        weights=weights if alignment == "kappa" else "quadratic",
        labels=labels,
        nan_policy=nan_policy,
        names=("human", "judge"),
    )
    if scores.machine.shape[1] != 1:
        raise QwkitError(
            f"`judge` must hold one annotation per item; got {scores.machine.shape[1]} columns.",
            parameter="judge",
        )
    h, f = scores.human, scores.machine[:, 0]
    hv, fv = scores.human_values, scores.machine_values[:, 0]  # RMSE reads values
    rated = ~np.isnan(h)
    kept = (rated.sum(axis=1) >= min_raters) & ~np.isnan(f)
    tested, skipped = [], []
    for j, name in enumerate(scores.human_names):
        items = kept & rated[:, j]
        n = int(np.count_nonzero(items))
        if n < min_items:
            skipped.append(name)
            continue
        others = np.delete(h[items], j, axis=1)
        mine, theirs = f[items], h[items, j]
        if alignment == "kappa":
            p, diff, effect = _kappa_pvalue(mine, theirs, others, scores.wmat, epsilon)
        else:
            if alignment == "rmse":
                others, mine, theirs = np.delete(hv[items], j, axis=1), fv[items], hv[items, j]
            judge_score = _scores(alignment, mine, others)
            human_score = _scores(alignment, theirs, others)
            diff = _differences(judge_score, human_score, np.zeros(n, dtype=bool))  # (eq. 16)
            p, effect = _t_pvalue(diff, epsilon), 1.0
        tested.append(
            Annotator(
                name=name, d=diff, pvalue=p, design_effect=effect, items=np.flatnonzero(items)
            )
        )
    if not tested:
        raise QwkitError(
            f"No annotator of `human` has {min_items} or more items with the judge's "
            f"annotation and at least {min_raters} human annotations ({int(kept.sum())} such "
            "items in all); lower `min_items_per_rater` or annotate more items.",
            parameter="human",
        )
    panel = int(np.count_nonzero(rated[kept].any(axis=0)))
    if panel == 2:
        warn(
            "`human` holds two annotators: each is judged against the other alone, so the "
            "test compares the judge with one human (the same pair twice), not with a "
            "panel's consensus; the winning rate is 0, 0.5 or 1 and says whether the judge "
            "agrees with one annotator about as well as the other does. With three or more "
            "annotators each is judged against the others.",
            DesignWarning,
        )
    return PerAnnotator(
        annotators=tuple(tested), skipped=tuple(skipped), n_items_used=int(np.count_nonzero(kept))
    )
