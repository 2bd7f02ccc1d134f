"""``judge_reliability``: is an LLM judge self-consistent, how many runs does it need,
does the prompt matter, and how many independent judges is a panel worth?

validate (``_input.prepare``, ``_input.human_sums``) → compute (``_consistency`` per
judge, the humans, ``_panel``) → wrap (:class:`JudgeReliabilityResult`).
"""

from __future__ import annotations

from typing import Literal

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
from qwkit._judge import _consistency, _panel
from qwkit._judge._input import human_sums, prepare
from qwkit._judge._result import (
    HumanReliability,
    JudgeConsistency,
    JudgePanel,
    JudgeReliabilityResult,
)

__all__ = ["judge_reliability"]

RUNS = ("repeats", "prompts")
#: Below this separation of the systems' means, Kendall's W's interval is flagged.
SEPARATION = 3.0
AGGREGATES = ("mean", "majority")
#: Below this many items, the interval of the effective number of judges covered less
#: than its level in the simulation of ``docs/judge.md`` ("Validation").
PANEL_ITEMS = 1000


def _unit(value, name: str) -> float:
    x = check_real(value, name)
    if not 0.0 < x < 1.0:
        raise QwkitError(
            f"`{name}` must be strictly between 0 and 1; got {value!r}.", parameter=name
        )
    return x


def judge_reliability(
    judgements: object = None,
    *,
    item: ArrayLike | str = "item",
    run: ArrayLike | str | None = "run",
    score: ArrayLike | str = "score",
    judge: ArrayLike | str | None = None,
    human: object = None,
    system: ArrayLike | str | None = None,
    runs: Literal["repeats", "prompts"] = "repeats",
    target: float = 0.8,
    min_kappa: float = 0.70,
    aggregate: Literal["mean", "majority"] = "mean",
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
) -> JudgeReliabilityResult:
    """Is an LLM judge reliable? Self-consistency over repeated runs, the runs a target
    reliability needs, prompt sensitivity and panels, each with an interval.

    The judge is a rater with repetitions: asked several times (sampling again, or
    with other prompt formulations), it gives several scores to an item, and those
    repetitions are the data — kept, never deduplicated. For each judge: its
    test–retest reliability over runs (ICC(1), Krippendorff's α; ICC(A,1) when the
    runs are fixed prompt variants), the number of runs whose mean reaches ``target``
    (Spearman–Brown), and — with human ratings — the kappa of one run and of the mean
    (or majority) of 2, 3, 5, … runs with the humans, each against ``min_kappa``: does
    asking three times make the judge pass? With prompt variants, the kappa under each
    variant and the paired, Holm-adjusted comparison of every pair. With several
    judges, the panel: the correlation of their errors against the human reference,
    how many independent judges they amount to, the panel's kappa as judges are added,
    and (with ``system``) how stable the systems' ranking is across judges.

    Every interval is a jackknife over items (the sampling units; runs, variants and
    human ratings are nested in them), Student's t on n − 1 degrees of freedom on a
    normalizing scale (eq. J10), checked by simulation with a known truth
    (``docs/judge.md``, "Validation").

    Parameters
    ----------
    judgements : data frame or mapping of columns, default=None
        The long table, one row per judgement (pandas, Polars, or a dict of arrays);
        None when the columns below are given as arrays.
    item, run, score, judge, system : str or array-like of shape (n_rows,)
        A column name of ``judgements``, or the column itself. ``item``: what was
        judged. ``run``: the repetition or prompt variant (None: each judge's rows of
        an item are its runs, numbered in their order). ``score``: the judge's score
        (numbers, ordinal or real-valued; NaN or None for a failed answer, left out).
        ``judge`` (default None: one judge): which judge. ``system`` (optional): what
        produced the item (a model whose outputs are judged), constant within an item,
        for the stability of the systems' ranking across judges.
    human : array-like, pandas object, RatingsTable or data frame, default=None
        Human ratings of the items: a pandas Series or DataFrame indexed by item id
        (columns: raters or rating slots, NaN = not rated), a
        :class:`~qwkit.RatingsTable`, a data frame holding the ``item`` column, or an
        array of shape (n_items,) or (n_items, n_raters) whose rows follow the sorted
        distinct item ids. Items are paired by id.
    runs : {"repeats", "prompts"}, default="repeats"
        What the runs are: exchangeable repetitions (sampling the same prompt again),
        or fixed prompt variants — which adds ICC(A,1) (prompt effects count as
        disagreement), the kappa under each variant and their comparison, and bases
        the runs needed on ICC(A,1).
    target : float, default=0.8
        The reliability the mean of the runs should reach (strictly between 0 and 1).
    min_kappa : float, default=0.70
        The kappa with the humans a judge must show (Williamson, Xi & Breyer 2012):
        each kappa's verdict is "pass" when its whole interval is at or above it.
    aggregate : {"mean", "majority"}, default="mean"
        How several runs (or judges) are combined per item: their mean, or the most
        frequent score (ties: the median of the tied scores; eq. J8).
    confidence_level : float, default=0.95
        Level of every interval.
    n_resamples : int, default=2000
        Bootstrap draws of the interval of Kendall's W.
    rng : None, int or numpy.random.Generator, default=None
        Randomness of that bootstrap.

    Returns
    -------
    JudgeReliabilityResult
        ``judges`` (one :class:`JudgeConsistency` each), ``human``, ``panel``,
        ``answers()``, ``summary()``, ``to_dict()``, ``plot()``.

    Raises
    ------
    QwkitError
        When no item was scored twice by a judge (no repetition to measure: the error
        names ``run``), when two rows hold the same item, judge and run, when ``score``
        holds text (pairwise verdicts go to :func:`position_bias_test`), or when
        ``human`` shares no item with the judgements.

    See Also
    --------
    position_bias_test : Position bias of a pairwise judge asked in both orders.
    evaluate_scorer : May one run of a judge stand in for a human rater?

    Notes
    -----
    A judge that gives every item the same score has no variance: its coefficients
    are nan, and ``notes`` says so. Rows whose score is missing (a failed answer) are
    left out and counted in ``n_missing``.

    References
    ----------
    .. [1] K. O. McGraw and S. P. Wong, "Forming inferences about some intraclass
       correlation coefficients", Psychological Methods 1(1):30-46, 1996.
    .. [2] T. K. Koo and M. Y. Li, "A guideline of selecting and reporting intraclass
       correlation coefficients for reliability research", Journal of Chiropractic
       Medicine 15(2):155-163, 2016.
    .. [3] C. Chhun, F. M. Suchanek and C. Clavel, "Do Language Models Enjoy Their Own
       Stories? Prompting Large Language Models for Automatic Story Evaluation",
       Transactions of the ACL 12:1122-1142, 2024.

    Examples
    --------
    A judge asked three times about 200 items, whose scores agree with the truth
    the humans rate:

    >>> import numpy as np
    >>> import qwkit
    >>> rng = np.random.default_rng(20261121)
    >>> truth = rng.normal(size=200)
    >>> item = np.repeat(np.arange(200), 3)
    >>> run = np.tile([1, 2, 3], 200)
    >>> score = np.clip(np.rint(3 + truth[item] + rng.normal(0, 0.8, 600)), 1, 5)
    >>> human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.6, (200, 2))), 1, 5)
    >>> res = qwkit.judge_reliability(item=item, run=run, score=score, human=human)
    >>> j = res[0]
    >>> round(j.icc.statistic, 3), round(j.icc.low, 3), round(j.icc.high, 3)
    (0.588, 0.512, 0.657)
    >>> j.rating, j.runs_needed.runs
    ('moderate', 3.0)
    >>> for k in j.kappa_by_runs:
    ...     print(k.label, round(k.kappa.statistic, 3), k.verdict)
    1 run 0.635 fail
    2 runs (mean) 0.713 inconclusive
    3 runs (mean) 0.744 inconclusive
    """
    runs = check_choice(runs, "runs", RUNS)
    aggregate = check_choice(aggregate, "aggregate", AGGREGATES)
    target = _unit(target, "target")
    min_kappa = check_real(min_kappa, "min_kappa")
    if not min_kappa < 1.0:
        raise QwkitError(
            f"`min_kappa` must be in [0, 1); got {min_kappa!r}.", parameter="min_kappa"
        )
    level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples)
    generator = check_rng(rng)
    data = prepare(judgements, item=item, run=run, score=score, judge=judge, system=system)
    humans = None
    if human is not None:
        humans = human_sums(human, data.item_ids, item)
    settings = _consistency.Settings(runs, target, min_kappa, aggregate, level)
    records, notes, singles = [], [], []
    means = np.full((data.item_ids.size, len(data.judges)), np.nan)
    for j, js in enumerate(data.judges):
        parts = _consistency.judge_parts(js, humans, data.run_names, settings)
        means[js.items, j] = parts.run_mean
        singles.append(parts.kappa_by_runs[0].kappa.statistic if parts.kappa_by_runs else np.nan)
        if parts.constant:
            value = js.values[~np.isnan(js.values)][0]
            notes.append(
                f"Judge {js.name!r} gives every item the same score ({value:g}): with no "
                "variance its self-consistency is undefined (nan), and it cannot rank items."
            )
        if js.n_missing:
            notes.append(
                f"Judge {js.name!r}: {js.n_missing:,} row(s) without a score (failed "
                "answers) were left out."
            )
        records.append(
            JudgeConsistency(
                judge=js.name,
                n_items=parts.n_items,
                n_repeated=parts.n_repeated,
                n_runs=int(js.values.shape[1]),
                n_scores=parts.n_scores,
                n_missing=js.n_missing,
                constant=parts.constant,
                icc=parts.icc,
                alpha=parts.alpha,
                icc_agreement=parts.icc_agreement,
                runs_needed=parts.runs_needed,
                kappa_by_runs=parts.kappa_by_runs,
                prompt_kappas=parts.prompt_kappas,
                prompt_comparisons=parts.prompt_comparisons,
            )
        )
    human_rec = None
    if humans is not None:
        if humans.n_unjudged:
            notes.append(
                f"{humans.n_unjudged:,} item(s) of `human` were not judged and are left out."
            )
        unrated = int(np.count_nonzero(humans.count == 0))
        if unrated:
            notes.append(f"{unrated:,} judged item(s) have no human rating.")
        parts = _consistency.human_reliability_parts(humans, level)
        if parts is not None:
            human_rec = HumanReliability(n_raters=humans.n_raters, **parts)
    panel = None
    if len(data.judges) >= 2:
        names = tuple(js.name for js in data.judges)
        p = _panel.panel_parts(
            means,
            humans,
            data.systems,
            data.system_names,
            names,
            singles,
            settings,
            n_resamples,
            generator,
        )
        panel = JudgePanel(
            judges=names,
            n_items=p.n_items,
            error_correlation=p.error_correlation,
            error_sd=p.error_sd,
            human_noise_removed=p.corrected,
            effective_judges=p.effective,
            true_score_correlation=p.true_score,
            curve=p.curve,
            kendall_w=p.kendall,
            kendall_pvalue=p.kendall_pvalue,
            separation=p.separation,
            systems=p.system_names,
            system_means=p.system_means,
        )
        if p.kendall is not None and not p.separation >= SEPARATION:
            notes.append(
                f"The systems are close for ranking: their neighbours' mean differences are "
                f"{p.separation:.1f} standard errors apart (median), below {SEPARATION:g}; "
                "Kendall's W is biased down by the noise and its interval may miss (judge "
                "more items per system)."
            )
        if (
            humans is not None
            and 3 <= p.n_items < PANEL_ITEMS
            and not np.isnan(p.effective.statistic)
        ):
            notes.append(
                f"The effective number of judges rests on {p.n_items:,} items: below "
                f"{PANEL_ITEMS:,}, its interval covered less than its level in simulations "
                "(the human true score is estimated from few ratings); read it as indicative."
            )
        if humans is not None and p.n_items >= 3 and np.isnan(p.effective.statistic):
            notes.append(
                "The effective number of judges is undefined: the judges' errors beyond the "
                "human true score cannot be told from the human raters' noise (a judge's "
                "correlation with the true score reaches 1, or the humans' own reliability is "
                "not above 0). More human ratings per item would separate them."
            )
    return JudgeReliabilityResult(
        judges=tuple(records),
        human=human_rec,
        panel=panel,
        notes=tuple(notes),
        settings={
            "runs": runs,
            "target": target,
            "min_kappa": min_kappa,
            "aggregate": aggregate,
            "confidence_level": level,
            "n_resamples": n_resamples,
            "n_rows": data.n_rows,
            "n_items": int(data.item_ids.size),
            "n_missing": data.n_missing,
            "run_names": list(data.run_names),
            "human_raters": None if humans is None else humans.n_raters,
        },
    )
