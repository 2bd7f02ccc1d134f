"""The third part of ``qwkit demo``: ChatGPT on the human scale.

ChatGPT does not pass as a crowd rater of HANNA (the second part). Used anyway to score
the stories no human read, its 1–5 scores are not the crowd's: on a random tenth of the
stories rated by the crowd, ``qwkit.calibrate_judge`` maps its relevance scores onto the
crowd's scale (the kappa on new stories, against its raw scores), and
``qwkit.human_scale_estimate`` estimates each story generator's mean crowd rating of
relevance from that tenth plus ChatGPT on all (PPI++), beside what all the crowd's
ratings say — the calls of ``docs/calibration.md``, section 3. Every sentence is made
from the numbers.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table

import qwkit

__all__ = ["CalibrationDemo", "add_to_report", "render", "rows", "run"]

#: The share of stories whose crowd ratings are kept, and the criterion.
FRACTION = 0.10
CRITERION = "RE"
HEADER = ("story generator", "PPI++", "95% CI", "humans only", "95% CI ", "all humans")
CAPTION = (
    "PPI++: a tenth of the stories rated by the crowd plus ChatGPT on all; humans only: that "
    "tenth alone; all humans: every crowd rating (what the estimates aim at)."
)


@dataclass(frozen=True, slots=True, eq=False)
class CalibrationDemo:
    estimate: qwkit.HumanScaleEstimate
    calibration: qwkit.JudgeCalibration
    truth: dict
    n_labelled: int
    overall_truth: float


def run(seed: int) -> CalibrationDemo:
    """Calibrate ChatGPT and estimate the generators' mean relevance from a tenth."""
    hanna = qwkit.load_hanna()
    human = hanna.human[CRITERION]
    judge = hanna.chatgpt[CRITERION]
    n = human.shape[0]
    rated = np.zeros(n, dtype=bool)
    rated[np.random.default_rng(seed).choice(n, round(FRACTION * n), replace=False)] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
        est = qwkit.human_scale_estimate(
            human[rated],
            judge[rated],
            judge[~rated],
            groups=hanna.system[rated],
            groups_unlabelled=hanna.system[~rated],
        )
        cal = qwkit.calibrate_judge(human[rated], judge[rated], rng=seed)
    truth = {g: float(human[hanna.system == g].mean()) for g in est.groups}
    return CalibrationDemo(est, cal, truth, int(rated.sum()), float(human.mean()))


def _ci(low: float, high: float) -> str:
    return f"[{low:.2f}, {high:.2f}]"


def rows(result: CalibrationDemo) -> list[list[str]]:
    """Per generator (ranked by the PPI++ estimate), then all stories."""
    by = {r.group: r for r in result.estimate.estimates}
    out = []
    for group, *_ in result.estimate.ranking():
        r = by[group]
        out.append(
            [
                str(group),
                f"{r.estimate:.2f}",
                _ci(r.low, r.high),
                f"{r.human_only:.2f}",
                _ci(r.human_only_low, r.human_only_high),
                f"{result.truth[group]:.2f}",
            ]
        )
    r = by[None]
    out.append(
        [
            "all stories",
            f"{r.estimate:.2f}",
            _ci(r.low, r.high),
            f"{r.human_only:.2f}",
            _ci(r.human_only_low, r.human_only_high),
            f"{result.overall_truth:.2f}",
        ]
    )
    return out


def reading(result: CalibrationDemo) -> list[str]:
    """What the numbers say."""
    est, cal = result.estimate, result.calibration
    groups = [r for r in est.estimates if r.group is not None]
    held = sum(r.low <= result.truth[r.group] <= r.high for r in groups)
    held0 = sum(r.human_only_low <= result.truth[r.group] <= r.human_only_high for r in groups)
    ratio = np.mean([(r.high - r.low) / (r.human_only_high - r.human_only_low) for r in groups])
    overall = est.estimate()
    shown = sum(c.decision != "not shown" for c in est.comparisons)
    return [
        f"Calibrated on the {result.n_labelled} rated stories, ChatGPT's relevance classes "
        f"agree with a crowd rater at kappa {cal.statistic:.2f} on new stories "
        f"(95% CI {cal.confidence_interval()[0]:.2f} to {cal.confidence_interval()[1]:.2f}; "
        f"{cal.apparent:.2f} in sample), against {cal.raw_statistic:.2f} for its raw scores.",
        f"The PPI++ intervals hold the all-crowd mean of {held} of {len(groups)} generators "
        f"(the humans-only intervals: {held0}), {100 * (1 - ratio):.0f}% narrower on average; "
        f"over all stories ChatGPT is worth {overall.effective_labels:.0f} crowd-rated "
        f"stories instead of {overall.n_labelled}. {shown} of {len(est.comparisons)} pairs "
        "of generators differ after Holm's adjustment: with a tenth of the ratings, most "
        "ranks stay open.",
    ]


def render(result: CalibrationDemo, console: Console) -> None:
    """Print the calibration part of the demo."""
    console.print()
    console.print(
        "ChatGPT on the human scale: a tenth of HANNA's stories rated by the crowd, ChatGPT "
        "on all (qwkit.calibrate_judge, qwkit.human_scale_estimate)."
    )
    table = Table(title="Mean crowd rating of relevance", caption=CAPTION, show_edge=False)
    for name in HEADER:
        table.add_column(name, justify="left" if name == "story generator" else "right")
    for row in rows(result):
        table.add_row(*row)
    console.print(table)
    for sentence in reading(result):
        console.print(sentence)


def add_to_report(report, result: CalibrationDemo) -> None:
    """The calibration section of the demo's HTML report."""
    report.section("ChatGPT on the human scale (HANNA)")
    report.table(list(HEADER), rows(result), caption=CAPTION)
    for sentence in reading(result):
        report.paragraph(sentence)
