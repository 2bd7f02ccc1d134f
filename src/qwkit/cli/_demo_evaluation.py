"""The second part of ``qwkit demo``: may ChatGPT stand in for a crowd rater?

On HANNA (bundled: ``qwkit.load_hanna``), 1,056 stories rated 1–5 by three crowd workers
and by ChatGPT on six criteria: per criterion, ``qwkit.evaluate_scorer`` (Williamson et
al.'s criteria as tests; the degradation over every pair of the three rating slots,
which are not fixed persons; the story sources as subgroups) and ``qwkit.alt_test``
(the Alternative Annotator Test with the kappa alignment, ε = 0.1 as its authors
suggest for crowd workers) — the same calls as ``docs/evaluation.md``, section 9. Every
sentence of the reading is made from the numbers: it says what they say.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from importlib import resources

from rich.console import Console
from rich.table import Table

import qwkit

__all__ = [
    "EPSILON",
    "HannaResult",
    "add_to_report",
    "rater_rows",
    "reading",
    "render",
    "run",
    "scorer_rows",
]

#: The alt-test's margin: Calderon et al.'s value for crowd workers.
EPSILON = 0.1
#: How the output names the human rating slots and the judge.
_CROWD = ("crowd 1", "crowd 2", "crowd 3")
_JUDGE = "ChatGPT"


@dataclass(frozen=True, slots=True, eq=False)
class CriterionResult:
    """ChatGPT against the crowd on one criterion."""

    code: str
    name: str
    evaluation: qwkit.EvaluationResult
    alt: qwkit.AltTestResult

    def verdict(self, criterion: str) -> str:
        """The verdict of a criterion by its registry name ("kappa", "group_smd", ...)."""
        return next(c.verdict for c in self.evaluation.criteria if c.criterion == criterion)


@dataclass(frozen=True, slots=True, eq=False)
class HannaResult:
    criteria: tuple[CriterionResult, ...]
    n_stories: int
    n_sources: int
    citation: str


def run() -> HannaResult:
    """Evaluate ChatGPT against the crowd on each of HANNA's six criteria."""
    hanna = qwkit.load_hanna()
    rows = []
    for code, name in hanna.criteria.items():
        human = {slot: hanna.human[code][:, j] for j, slot in enumerate(_CROWD)}
        judge = {_JUDGE: hanna.chatgpt[code]}
        with warnings.catch_warnings():
            # PRMSE is undefined on some criteria: the reading says so, from the numbers
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            res = qwkit.evaluate_scorer(human, judge, pairs="all", groups=hanna.system)
        alt = qwkit.alt_test(
            hanna.human[code], hanna.chatgpt[code], alignment="kappa", epsilon=EPSILON
        )
        rows.append(CriterionResult(code, name, res, alt))
    return HannaResult(
        criteria=tuple(rows),
        n_stories=len(hanna.story_id),
        n_sources=len(set(hanna.system.tolist())),
        citation=hanna.citation,
    )


def data_path() -> str:
    """The bundled HANNA file, for the ``qwkit evaluate`` line the demo suggests."""
    return str(resources.files("qwkit") / "data" / "hanna_wide.csv")


# ---------------------------------------------------------------------------- words


def _names(rows) -> str:
    names = [r.name for r in rows]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _of(rows, total: int) -> str:
    return f"{len(rows)} of {total}" + (f" ({_names(rows)})" if 0 < len(rows) < total else "")


def _span(values, digits: int = 2) -> str:
    low, high = (f"{v:.{digits}f}" for v in (min(values), max(values)))
    return low if low == high else f"{low} to {high}"


def reading(result: HannaResult) -> list[str]:
    """What the numbers say, as sentences made from them."""
    rows = result.criteria
    n = len(rows)
    deg = [r.evaluation.degradation for r in rows]
    intervals = [d.confidence_interval() for d in deg]
    passed = [r for r in rows if r.verdict("degradation") == "pass"]
    better = [r for r, (lo, _) in zip(rows, intervals, strict=True) if lo > 0]
    worse = [r for r, (_, hi) in zip(rows, intervals, strict=True) if hi < 0]
    alt = [r for r in rows if r.alt.passed]
    rater = (
        f"As one more rater: the degradation test (margin {deg[0].margin:g}) passes on "
        f"{_of(passed, n)} criteria"
    )
    if better:
        rater += (
            f"; on {_of(better, n)} ChatGPT agrees with a crowd worker better than crowd "
            "workers agree with each other (the whole interval above 0)"
        )
    if worse:
        rater += f"; on {_of(worse, n)} it agrees worse (the whole interval below 0)"
    rater += f". The alt-test (kappa alignment, ε = {EPSILON:g}) passes on {_of(alt, n)}."
    crowd = [d.human_human for d in deg]
    kappa_ok = [r for r in rows if r.verdict("kappa") == "pass"]
    smd_ok = [r for r in rows if r.verdict("smd") == "pass"]
    group_ok = [r for r in rows if r.verdict("group_smd") == "pass"]
    smd = [r.evaluation.smd.statistic for r in rows]
    direction = "lower" if max(smd) < 0 else "higher" if min(smd) > 0 else "different"
    scorer = (
        f"As a scorer: QWK >= 0.70 passes on {_of(kappa_ok, n)} criteria (two crowd workers "
        f"agree at kappa {_span(crowd)}), |SMD| <= 0.15 on {_of(smd_ok, n)}"
    )
    if direction != "different":
        scorer += (
            f": ChatGPT's mean is {_span([abs(x) for x in smd])} crowd standard deviations "
            f"{direction}"
        )
    scorer += f"; |SMD| <= 0.10 in every one of the {result.n_sources} story sources on "
    scorer += f"{_of(group_ok, n)}."
    prm = [r.evaluation.prmse for r in rows]
    undefined = [r for r, p in zip(rows, prm, strict=True) if p.statistic != p.statistic]
    negative = [r for r, p in zip(rows, prm, strict=True) if p.statistic < 0]
    below = [r for r, p in zip(rows, prm, strict=True) if p.confidence_interval()[1] < 0]
    true_score = (
        f"PRMSE: the crowd's rater-error variance is {_span([p.variance_of_errors for p in prm])}"
        f", its true-score variance {_span([p.true_score_variance for p in prm], 3)}"
    )
    if undefined:
        true_score += (
            f"; PRMSE is undefined on {_of(undefined, n)}, where the true-score variance is "
            "not positive"
        )
    if negative:
        true_score += (
            f"; it is below 0 on {_of(negative, n)}, the whole interval on {len(below)}: "
            "there ChatGPT's scores predict the crowd's true score worse than the crowd's "
            "mean would"
        )
    true_score += "."
    return [rater, scorer, true_score]


# ---------------------------------------------------------------------------- output


def _ci(low: float, high: float) -> str:
    return f"[{low:.2f}, {high:.2f}]"


#: The two tables: ChatGPT as one more rater, and as a scorer (with their captions).
RATER_HEADER = ("criterion", "crowd", "ChatGPT", "D", "95% CI", "verdict", "alt-test")
RATER_CAPTION = (
    "kappa of a crowd worker with another (crowd) and of ChatGPT with a crowd worker "
    "(ChatGPT), on the same stories; D: their difference, the degradation (verdict: "
    "D >= -0.10)"
)
SCORER_HEADER = ("criterion", "QWK", "verdict", "SMD", "95% CI", "verdict", "by source")
SCORER_CAPTION = (
    "QWK >= 0.70 with the first crowd slot; |SMD| <= 0.15; by source: |SMD| <= 0.10 in "
    "each story source"
)


def rater_rows(result: HannaResult) -> list[list[str]]:
    """Per criterion: the degradation test (same stories, every pair of crowd slots)
    and the alt-test."""
    out = []
    for r in result.criteria:
        d = r.evaluation.degradation
        out.append(
            [
                r.name,
                f"{d.human_human:.3f}",
                f"{d.human_machine:.3f}",
                f"{d.statistic:+.3f}",
                _ci(*d.confidence_interval()),
                r.verdict("degradation"),
                "pass" if r.alt.passed else "fail",
            ]
        )
    return out


def scorer_rows(result: HannaResult) -> list[list[str]]:
    """Per criterion: kappa with the first crowd slot, the standardized mean difference,
    and the SMD within each story source."""
    out = []
    for r in result.criteria:
        res = r.evaluation
        out.append(
            [
                r.name,
                f"{res.kappa.statistic:.3f}",
                r.verdict("kappa"),
                f"{res.smd.statistic:+.3f}",
                _ci(res.smd.low, res.smd.high),
                r.verdict("smd"),
                r.verdict("group_smd"),
            ]
        )
    return out


def _intro(result: HannaResult) -> str:
    return (
        f"May ChatGPT stand in for a crowd rater? HANNA: {result.n_stories:,} stories, each "
        "rated 1-5 by three crowd workers and by ChatGPT (the mean of three answers), on six "
        "criteria. Kappas on the same stories, over every pair of the three rating slots "
        "(qwkit.evaluate_scorer, pairs='all'), and the Alternative Annotator Test "
        f"(qwkit.alt_test, kappa alignment, ε = {EPSILON:g})."
    )


def _tables(result: HannaResult):
    return (
        ("ChatGPT as one more rater", RATER_HEADER, rater_rows(result), RATER_CAPTION),
        ("ChatGPT as a scorer", SCORER_HEADER, scorer_rows(result), SCORER_CAPTION),
    )


def render(result: HannaResult, console: Console) -> None:
    """Print the HANNA part of the demo."""
    console.print()
    console.print(_intro(result))
    for title, header, rows, caption in _tables(result):
        table = Table(title=title, caption=caption, show_edge=False)
        for name in header:
            table.add_column(name, justify="left" if name == "criterion" else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    for sentence in reading(result):
        console.print(sentence)
    console.print(f"Try it: {_try_it()}")
    console.print(f"Data: {result.citation}", style="dim", markup=False)


def _try_it() -> str:
    return (
        f"qwkit evaluate {data_path()} --human CH_h1,CH_h2,CH_h3 --machine "
        "CH_chatgpt,CH_mistral --group system --pairs all --nan-policy omit --report "
        "coherence.html"
    )


def add_to_report(report, result: HannaResult) -> None:
    """The HANNA section of the demo's HTML report."""
    report.section("May ChatGPT stand in for a crowd rater? (HANNA)")
    report.paragraph(_intro(result))
    for title, header, rows, caption in _tables(result):
        report.section(title, level=3)
        report.table(list(header), rows, caption=caption)
    for sentence in reading(result):
        report.paragraph(sentence)
    report.paragraph(
        f"The whole evaluation of one criterion, with its figures: {_try_it()}", css_class="note"
    )
    report.paragraph(result.citation, css_class="note")
