"""The results of :func:`qwkit.judge_reliability`: each judge's self-consistency, the
humans' own reliability, the panel; laid out as tables once (``_layout``), which
``summary()``, the console and the HTML report all render."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._results import freeze_arrays, plain, reduce_dataclass
from qwkit._base._tables import Table, render_text
from qwkit._judge._records import ReliabilityEstimate, RunsNeeded, koo_li

__all__ = ["HumanReliability", "JudgeConsistency", "JudgePanel", "JudgeReliabilityResult"]


@dataclass(frozen=True, slots=True, eq=False)
class JudgeConsistency:
    """One judge's self-consistency over its runs, the runs a target reliability
    needs, and what asking more often buys in agreement with the humans.

    Attributes
    ----------
    judge : str
        The judge's name.
    n_items, n_repeated, n_runs, n_scores, n_missing : int
        Items it scored; of them, scored twice or more; its runs (repetitions or
        prompt variants); its scores; its rows without a score (failed answers).
    constant : bool
        Every score is the same: no variance, the coefficients are undefined (nan).
    icc : ReliabilityEstimate
        ICC(1), the one-way random-effects ICC of a single run (eqs. J1–J2): the share
        of the variance of one run's score that is the item's.
    alpha : ReliabilityEstimate
        Krippendorff's α with the interval metric (the quadratic weights) among the
        runs (eq. J3).
    icc_agreement : ReliabilityEstimate or None
        ICC(A,1), two-way absolute agreement over items scored under every run
        (eq. J5), when the runs are fixed prompt variants (``runs="prompts"``).
    runs_needed : RunsNeeded
        Runs whose mean reaches the target reliability (eqs. J4, J6).
    kappa_by_runs : tuple of KappaWithHumans
        Kappa with the humans of one run, and of the mean (or majority) of 2, 3, 5, …
        runs, each averaged over the cyclic subsets of that many runs; empty without
        human ratings.
    prompt_kappas : tuple of KappaWithHumans
        Kappa with the humans under each prompt variant (``runs="prompts"``).
    prompt_comparisons : tuple of PromptComparison
        Each pair of variants: the paired difference of their kappas, Holm-adjusted.
    """

    judge: str
    n_items: int
    n_repeated: int
    n_runs: int
    n_scores: int
    n_missing: int
    constant: bool
    icc: ReliabilityEstimate
    alpha: ReliabilityEstimate
    icc_agreement: ReliabilityEstimate | None
    runs_needed: RunsNeeded
    kappa_by_runs: tuple = ()
    prompt_kappas: tuple = ()
    prompt_comparisons: tuple = ()

    @property
    def rating(self) -> str:
        """Koo & Li's (2016) reading of the single-run reliability (ICC(A,1) for
        prompt variants, else ICC(1)) from its interval: "poor", "moderate", "good",
        "excellent", or two of them ("moderate to good") when the interval spans
        both."""
        return koo_li(self.icc_agreement if self.icc_agreement is not None else self.icc)

    @property
    def prompt_verdicts(self) -> tuple:
        """The verdict of kappa with the humans under each prompt variant."""
        return tuple(k.verdict for k in self.prompt_kappas)

    def to_dict(self) -> dict:
        """As plain Python values."""
        out = {
            "judge": self.judge,
            "n_items": self.n_items,
            "n_repeated": self.n_repeated,
            "n_runs": self.n_runs,
            "n_scores": self.n_scores,
            "n_missing": self.n_missing,
            "constant": self.constant,
            "rating": self.rating,
            "icc": self.icc.to_dict(),
            "alpha": self.alpha.to_dict(),
            "icc_agreement": None if self.icc_agreement is None else self.icc_agreement.to_dict(),
            "runs_needed": self.runs_needed.to_dict(),
            "kappa_by_runs": [k.to_dict() for k in self.kappa_by_runs],
            "prompt_kappas": [k.to_dict() for k in self.prompt_kappas],
            "prompt_comparisons": [c.to_dict() for c in self.prompt_comparisons],
        }
        return plain(out)


@dataclass(frozen=True, slots=True, eq=False)
class HumanReliability:
    """The human raters' own reliability on the judged items: ICC(1) and α among the
    ratings of an item (rating slots or persons, exchangeable), and the kappa of every
    pair of ratings of the same item, pooled — the ceiling beside the judges' kappa."""

    n_items: int
    n_double_rated: int
    n_raters: int
    icc: ReliabilityEstimate
    alpha: ReliabilityEstimate
    kappa: ReliabilityEstimate

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain(
            {
                "n_items": self.n_items,
                "n_double_rated": self.n_double_rated,
                "n_raters": self.n_raters,
                "icc": self.icc.to_dict(),
                "alpha": self.alpha.to_dict(),
                "kappa": self.kappa.to_dict(),
            }
        )


@dataclass(frozen=True, slots=True, eq=False)
class JudgePanel:
    """Several judges against the human reference.

    Attributes
    ----------
    judges : tuple of str
        The judges, in the order of the result's ``judges`` (the rows and
        columns of ``error_correlation``).
    n_items : int
        Items scored by every judge and rated by a human.
    error_correlation : ndarray of shape (n_judges, n_judges)
        Correlation of the judges' errors: what remains of each judge's mean over its
        runs beyond its linear relation to the human true score (eq. J11).
    error_sd : ndarray of shape (n_judges,)
        Each judge's error SD (in its own units).
    human_noise_removed : bool
        Whether the human mean's noise variance was subtracted from its variance to
        get the true score's (items with two or more human ratings; else the human
        mean stands for the true score).
    effective_judges : ReliabilityEstimate
        How many independent judges the panel amounts to: m² / Σ of the error
        correlations (eq. J12), m when the errors are independent, 1 when they are
        the same; nan without human ratings, or when an error variance cannot be told
        from the human raters' noise (a judge's true-score correlation reaching 1).
    true_score_correlation : tuple of ReliabilityEstimate
        Each judge's correlation with the human true score (the expected human
        rating; the human mean's noise removed, eq. J11): how much of what humans rate
        the judge captures.
    curve : tuple of KappaWithHumans
        Kappa with the humans of the panel's mean (or majority) as judges join it, the
        judge with the highest kappa first.
    kendall_w : ReliabilityEstimate or None
        Kendall's W of the judges' rankings of the systems (their mean scores per
        system; eq. J13) with a parametric-bootstrap interval (eq. J14); None without
        ``system``.
    kendall_pvalue : float
        Friedman's test of no concordance.
    separation : float
        How far apart the systems' means are for ranking them: the median over judges
        of the median, over neighbouring systems, of their difference over its
        standard error (eq. J14). Below 3 the systems are too close to rank reliably:
        W is biased down by the noise and its interval misses more often than it
        says (``docs/judge.md``, "Validation"); ``notes`` says so.
    systems : tuple of str
        The systems ranked (rows of ``system_means``).
    system_means : ndarray of shape (n_systems, n_judges) or None
        Each judge's mean score of each system.
    """

    judges: tuple
    n_items: int
    error_correlation: np.ndarray = field(repr=False)
    error_sd: np.ndarray = field(repr=False)
    human_noise_removed: bool
    effective_judges: ReliabilityEstimate
    true_score_correlation: tuple = ()
    curve: tuple = ()
    kendall_w: ReliabilityEstimate | None = None
    kendall_pvalue: float = float("nan")
    separation: float = float("nan")
    systems: tuple = ()
    system_means: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain(
            {
                "judges": list(self.judges),
                "n_items": self.n_items,
                "error_correlation": self.error_correlation,
                "error_sd": self.error_sd,
                "human_noise_removed": self.human_noise_removed,
                "effective_judges": self.effective_judges.to_dict(),
                "true_score_correlation": [e.to_dict() for e in self.true_score_correlation],
                "curve": [k.to_dict() for k in self.curve],
                "kendall_w": None if self.kendall_w is None else self.kendall_w.to_dict(),
                "kendall_pvalue": self.kendall_pvalue,
                "separation": self.separation,
                "systems": list(self.systems),
                "system_means": self.system_means,
            }
        )


@dataclass(frozen=True, slots=True, eq=False)
class JudgeReliabilityResult:
    """Result of :func:`judge_reliability`.

    Attributes
    ----------
    judges : tuple of JudgeConsistency
        One per judge: self-consistency, runs needed, kappa with the humans as runs
        are added, prompt sensitivity.
    human : HumanReliability or None
        The human raters' own reliability (with items rated twice or more).
    panel : JudgePanel or None
        With two or more judges: error correlation, effective number of judges, the
        panel's kappa as judges are added, the systems' ranking.
    notes : tuple of str
        What a reader must know: a judge that gives one score to everything, items or
        rows left out.
    settings : dict
        ``runs``, ``target``, ``min_kappa``, ``aggregate``, ``confidence_level`` and
        the counts of the input (rows, items, missing scores).

    Notes
    -----
    ``result["judge name"]`` (or ``result[0]``) is that judge's
    :class:`JudgeConsistency`.
    """

    judges: tuple
    human: HumanReliability | None
    panel: JudgePanel | None
    notes: tuple = ()
    settings: dict = field(default_factory=dict, repr=False)

    def __getitem__(self, key) -> JudgeConsistency:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            return self.judges[key]
        for j in self.judges:
            if j.judge == key:
                return j
        names = ", ".join(repr(j.judge) for j in self.judges)
        raise KeyError(f"no judge {key!r}; the judges are {names}")

    def answers(self) -> tuple[tuple[str, str], ...]:
        """The questions the analysis answers, each with its answer in one sentence:
        is each judge self-consistent, how many runs, does asking more often make it
        pass, does the prompt matter, how many independent judges."""
        from qwkit._judge._layout import answers

        return answers(self)

    def tables(self) -> tuple[Table, ...]:
        """The analysis laid out as tables, in the order a report reads: the answers,
        each judge's self-consistency and runs needed, kappa with the humans as runs
        are added, prompt variants, the panel. ``summary()``, the command line and its
        HTML report render these."""
        from qwkit._judge._layout import tables

        return tables(self)

    def summary(self) -> str:
        """The tables of :meth:`tables` as text."""
        title = "LLM judge: self-consistency, runs needed, prompts and panel"
        blocks = [title + "\n" + "=" * len(title) + "\n"]
        blocks += [render_text(t) for t in self.tables()]
        return "\n".join(blocks)

    def to_dict(self) -> dict:
        """The whole analysis as plain Python values (for JSON)."""
        return plain(
            {
                "answers": [{"question": q, "answer": a} for q, a in self.answers()],
                "judges": [j.to_dict() for j in self.judges],
                "human": None if self.human is None else self.human.to_dict(),
                "panel": None if self.panel is None else self.panel.to_dict(),
                "notes": list(self.notes),
                "settings": self.settings,
            }
        )

    def plot(
        self,
        kind: Literal["consistency", "runs", "prompts", "panel", "errors", "ranking"] = "runs",
        *,
        judge: str | int | None = None,
    ):
        """Draw the analysis with matplotlib (the ``plot`` extra).

        Parameters
        ----------
        kind : {"consistency", "runs", "prompts", "panel", "errors", "ranking"}, \
default="runs"
            ``"consistency"``: each judge's ICC and α with their intervals, beside the
            humans'. ``"runs"``: kappa with the humans as runs are added (one line per
            judge) under the human-human kappa, with the threshold. ``"prompts"``:
            kappa with the humans under each prompt variant, per judge. ``"panel"``:
            the panel's kappa as judges are added. ``"errors"``: the judges' error
            correlation matrix. ``"ranking"``: each judge's mean score of each system.
        judge : str or int, default=None
            Draw one judge only (``"runs"``, ``"prompts"``).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from qwkit._judge._plots import plot

        if isinstance(judge, str) or isinstance(judge, (int, np.integer)):
            judge = self[judge].judge
        elif judge is not None:
            raise QwkitError(
                f"`judge` must be a judge's name or position; got {judge!r}.", parameter="judge"
            )
        return plot(self, kind, judge)
