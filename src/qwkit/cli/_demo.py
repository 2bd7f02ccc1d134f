"""``qwkit demo``: the main job on the bundled red wine quality data.

The wines are split once into a training and a held-out part. On the training part:
least squares, the kappa-optimal linear model (``kappa_regression``), the exact
kappa-optimal cut points of the least-squares scores (``optimize_thresholds``), and a
simple probability model for decisions. On the held-out part every way of turning the
model into ratings is scored by QWK with a confidence interval (``kappa_test``), compared
in pairs (``compare_kappa_test``), and judged by the money it makes under the insurance
pricing model of Steele (2016), "Economic efficiency and the weighted kappa loss
function" (``insurance_loss_matrix``, ``expected_cost``, ``bayes_decision``). The report
goes to ``qwkit-demo/report.html``.

The demo also says why the exact cut points, the best on the training wines, can lose
to plain rounding on the held-out ones (:func:`cut_points_note`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text
from scipy import special

import qwkit
from qwkit.cli import _progress

REPORT_NAME = "report.html"
#: Bootstrap resamples of the demo's interval and histogram.
N_RESAMPLES = 9999


@dataclass(frozen=True, slots=True, eq=False)
class ModelRow:
    """One way of rating the held-out wines."""

    name: str
    predicted: np.ndarray
    test: qwkit.KappaTestResult
    interval: tuple[float, float]
    profit: float  # mean profit per wine ($) under the insurance loss matrix
    accuracy: float


@dataclass(frozen=True, slots=True, eq=False)
class DemoResult:
    """What the demo computed on the held-out wines."""

    n_train: int
    n_test: int
    labels: np.ndarray
    y_test: np.ndarray
    score_test: np.ndarray  # least-squares scores of the held-out wines
    soft: tuple[tuple[str, float], ...]  # soft QWK of continuous predictions
    models: tuple[ModelRow, ...]
    thresholds: qwkit.ThresholdResult  # fitted on the training wines
    comparison: qwkit.KappaComparisonResult  # thresholds vs plain rounding
    best: int  # index in ``models`` of the model with the highest kappa
    best_bootstrap: tuple[float, float]  # BCa interval of the best model
    loss: np.ndarray  # insurance loss matrix on the wine scale
    residual_sd: float
    citation: str
    train_counts: np.ndarray  # training wines of each grade


def _least_squares(x_train, y_train):
    design = np.column_stack([np.ones(len(x_train)), x_train])
    coef, *_ = np.linalg.lstsq(design, y_train, rcond=None)
    return coef


def _dollars(value: float) -> str:
    return "0" if value == 0 else f"{value:+.0f}"


def _round_to(scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(scores), labels[0], labels[-1]).astype(np.int64)


def _class_probabilities(score: np.ndarray, labels: np.ndarray, sd: float) -> np.ndarray:
    """Pr(quality = label | score) of a Gaussian predictive N(score, sd²) read off at the
    half-way points between the labels (the end classes take the tails)."""
    cuts = (labels[:-1] + labels[1:]) / 2.0
    cdf = special.ndtr((cuts[None, :] - score[:, None]) / sd)
    upper = np.column_stack([cdf, np.ones(len(score))])
    lower = np.column_stack([np.zeros(len(score)), cdf])
    proba = np.clip(upper - lower, 0.0, None)
    return proba / proba.sum(axis=1, keepdims=True)


def _row(name, y, predicted, labels, loss) -> ModelRow:
    test = qwkit.kappa_test(y, predicted, labels=labels)
    confusion = qwkit.confusion_matrix(y, predicted, labels=labels)
    return ModelRow(
        name=name,
        predicted=predicted,
        test=test,
        interval=tuple(test.confidence_interval(0.95)),
        profit=-qwkit.expected_cost(confusion, loss),
        accuracy=float(np.mean(y == predicted)),
    )


def run(*, seed: int = 20261121, test_size: float = 0.3) -> DemoResult:
    """Split the red wines, fit on the training part, rate and score the held-out part."""
    wine = qwkit.load_wine_quality("red")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(wine.y))
    n_test = round(test_size * len(order))
    test, train = order[:n_test], order[n_test:]
    x_train, y_train, x_test, y_test = wine.X[train], wine.y[train], wine.X[test], wine.y[test]
    labels = np.arange(min(wine.y.min(), 3), max(wine.y.max(), 8) + 1)
    loss = qwkit.insurance_loss_matrix(len(labels))  # classes 1..K = qualities 3..8

    coef = _least_squares(x_train, y_train)
    ls_train = coef[0] + x_train @ coef[1:]
    ls_test = coef[0] + x_test @ coef[1:]
    kappa_model = qwkit.kappa_regression(x_train, y_train)
    kappa_test_scores = kappa_model.predict(x_test)
    cut = qwkit.optimize_thresholds(y_train, ls_train, labels=labels)
    sd = float(np.std(y_train - ls_train, ddof=x_train.shape[1] + 1))
    proba = _class_probabilities(ls_test, labels, sd)

    rules = (
        ("least squares, rounded", _round_to(ls_test, labels)),
        ("kappa-optimal linear model, rounded", _round_to(kappa_test_scores, labels)),
        ("least squares + exact kappa cut points", cut.predict(ls_test)),
        ("kappa decision (expected table)", labels[qwkit.kappa_decision(proba)]),
        ("Bayes decision for insurance profit", labels[qwkit.bayes_decision(proba, loss)]),
    )
    models = tuple(_row(name, y_test, pred, labels, loss) for name, pred in rules)
    best = int(np.argmax([m.test.statistic for m in models]))
    comparison = qwkit.compare_kappa_test(
        y_test, models[2].predicted, models[0].predicted, labels=labels
    )
    bootstrap = tuple(
        _progress.confidence_interval(models[best].test, 0.95, "bootstrap", N_RESAMPLES, seed)
    )
    soft = (
        ("least squares", qwkit.soft_kappa_score(y_test, ls_test)),
        (
            "kappa-optimal linear model (kappa_regression)",
            qwkit.soft_kappa_score(y_test, kappa_test_scores),
        ),
    )
    return DemoResult(
        n_train=len(train),
        n_test=len(test),
        labels=labels,
        y_test=y_test,
        score_test=ls_test,
        soft=soft,
        models=models,
        thresholds=cut,
        comparison=comparison,
        best=best,
        best_bootstrap=bootstrap,
        loss=loss,
        residual_sd=sd,
        citation=wine.citation,
        train_counts=np.array([np.count_nonzero(y_train == v) for v in labels]),
    )


def _wines(n: int) -> str:
    return f"{n:,} wine" + ("" if n == 1 else "s")


def cut_points_note(result: DemoResult) -> str:
    """Why the exact cut points, the best for the training wines, can lose to plain
    rounding on the held-out wines: each cut point is set by the few wines near it, and
    the extreme grades are rare."""
    labels, counts = result.labels, result.train_counts
    cuts = result.thresholds.thresholds
    rated = result.models[2].predicted  # the held-out wines rated with the cut points
    held = []
    for i, where in ((0, "lowest"), (len(labels) - 1, "highest")):
        grade = labels[i]
        n_rated = int(np.count_nonzero(rated == grade))
        n_right = int(np.count_nonzero(rated[result.y_test == grade] == grade))
        n_true = int(np.count_nonzero(result.y_test == grade))
        are = f"{n_true:,} {'is' if n_true == 1 else 'are'} grade {grade}"
        if n_rated == 0:
            held.append(f"the {where} rates no wine as grade {grade} ({are})")
            continue
        right = "none" if n_right == 0 else ("all" if n_right == n_rated else f"{n_right:,}")
        held.append(
            f"the {where} rates {_wines(n_rated)} as grade {grade} ({right} rightly; {are})"
        )
    c = result.comparison
    chance = "within chance" if c.pvalue >= 0.05 else "more than chance"
    verdict = (
        f"Here the cut points lose to rounding by {-c.statistic:.4f} in QWK"
        if c.statistic < 0
        else f"Here the cut points beat rounding by {c.statistic:.4f} in QWK, but they can lose"
    )
    return (
        "Why the exact cut points can lose to plain rounding on new wines: they are the best "
        "cut points for the training wines, and each one is set by the few wines near it. "
        f"The extreme grades are rare: {counts[0]:,} of the {result.n_train:,} training wines "
        f"are grade {labels[0]} and {counts[-1]:,} are grade {labels[-1]}, so the lowest and "
        f"the highest cut points ({cuts[0]:.3f} and {cuts[-1]:.3f}) are fitted on a handful "
        "of wines and generalize badly, and a mistake in a small extreme class costs much "
        f"kappa. On the held-out wines, {held[0]}, and {held[1]}. Rounding's cut points sit "
        f"half-way between the grades and cannot overfit. {verdict} (p = {c.pvalue:.2g} in a "
        f"paired test on the same wines: {chance})."
    )


def render(result: DemoResult, console: Console) -> None:
    """Print the demo's result as rich tables (no markup: every text prints as it is)."""
    console.print(
        Text.assemble(
            ("qwkit demo", "bold"),
            f" — red wine quality (tasters' grades {result.labels[0]}–{result.labels[-1]}), "
            f"{result.n_train} wines to fit, {result.n_test} held out",
        )
    )
    soft = Table(title="Continuous predictions, held out (soft QWK)")
    soft.add_column("model")
    soft.add_column("soft kappa", justify="right")
    for name, value in result.soft:
        soft.add_row(name, f"{value:.4f}")
    console.print(soft)
    table = Table(title="Ratings of the held-out wines")
    table.add_column("rule")
    table.add_column("QWK", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("accuracy", justify="right")
    table.add_column("profit $/wine", justify="right")
    for i, m in enumerate(result.models):
        style = "bold" if i == result.best else None
        table.add_row(
            m.name,
            f"{m.test.statistic:.4f}",
            f"[{m.interval[0]:.3f}, {m.interval[1]:.3f}]",
            f"{m.accuracy:.1%}",
            f"{m.profit:+.2f}",
            style=style,
        )
    console.print(table)
    cuts = ", ".join(f"{c:.3f}" for c in result.thresholds.thresholds)
    console.print(
        f"Exact kappa cut points of the least-squares score (fitted on the training "
        f"wines, in-sample QWK {result.thresholds.statistic:.4f}): {cuts}"
    )
    c = result.comparison
    console.print(
        f"Cut points vs plain rounding, paired on the same wines: ΔQWK = {c.statistic:+.4f} "
        f"(SE {c.standard_error:.4f}, p = {c.pvalue:.3g})"
    )
    console.print(cut_points_note(result))
    best = result.models[result.best]
    low, high = result.best_bootstrap
    console.print(
        f"Best QWK: {best.name}, {best.test.statistic:.4f}; 95% BCa bootstrap interval "
        f"[{low:.4f}, {high:.4f}] ({N_RESAMPLES:,} resamples)"
    )
    richest = max(result.models, key=lambda m: m.profit)
    console.print(
        f"Cost view (the insurance pricing of Steele 2016): the most profitable rule is "
        f"'{richest.name}' "
        f"at {richest.profit:+.2f} $/wine, with QWK {richest.test.statistic:.4f}"
    )
    console.print(f"Data: {result.citation}", style="dim", markup=False)


def build_report(result: DemoResult, *, seed: int = 20261121, console=None):
    """The demo's HTML report (an ``HtmlReport``, to be rendered)."""
    from qwkit.cli import _plots, _report

    labels = result.labels
    report = _report.HtmlReport(
        "qwkit demo: red wine quality",
        subtitle=f"{result.n_train} wines to fit, {result.n_test} held out; every number "
        "below is on the held-out wines unless it says otherwise.",
    )
    report.section("Ways of rating the wines")
    report.paragraph(
        "One least-squares model of the 11 physico-chemical measurements, turned into "
        "ratings five ways: plain rounding; rounding the kappa-optimal linear model "
        "(kappa_regression: least squares stretched by 1/κ); the exact kappa-optimal cut "
        "points of the least-squares score, fitted on the training wines "
        "(optimize_thresholds); and two decisions from class probabilities "
        f"(a Gaussian predictive around the score, sd {result.residual_sd:.3f}): the "
        "decision whose expected confusion table has the highest kappa (kappa_decision) and "
        "the Bayes decision that maximizes expected profit (bayes_decision)."
    )
    m = result.models
    report.figure(
        _plots.model_intervals(
            [x.name for x in m],
            [x.test.statistic for x in m],
            [x.interval[0] for x in m],
            [x.interval[1] for x in m],
            title="Held-out QWK with 95% confidence intervals",
        ),
        alt="Held-out kappa of each rule with its confidence interval",
        caption="Asymptotic (Fleiss–Cohen–Everitt) 95% intervals from qwkit.kappa_test.",
    )
    report.table(
        ["rule", "QWK", "SE", "95% CI low", "95% CI high", "accuracy", "profit $/wine"],
        [
            [
                x.name,
                x.test.statistic,
                x.test.standard_error,
                x.interval[0],
                x.interval[1],
                f"{x.accuracy:.1%}",
                f"{x.profit:+.2f}",
            ]
            for x in m
        ],
    )
    c = result.comparison
    report.paragraph(
        f"Paired test (compare_kappa_test) of the cut points against plain rounding on the "
        f"same wines: ΔQWK = {c.statistic:+.4f}, SE {c.standard_error:.4f}, "
        f"p = {c.pvalue:.3g}. Continuous predictions, soft QWK: "
        + "; ".join(f"{name} {value:.4f}" for name, value in result.soft)
        + "."
    )
    report.section("Why the exact cut points can lose to rounding")
    report.paragraph(cut_points_note(result))
    report.section("The cost view")
    report.paragraph(
        "The insurance model of Steele (2016), \u201cEconomic efficiency and the weighted "
        "kappa loss function\u201d: grades 3–8 are risk classes 1–6; rating a wine in "
        "class j charges 10·j, a wine of true class i costs 9·i, and the customer buys only "
        "if the premium is below 10·i + 5. Kappa punishes over- and under-rating alike; "
        "the insurer does not. Profit is −expected_cost(confusion, insurance_loss_matrix(6))."
    )
    report.figure(
        _plots.cost_bars(
            [x.name for x in m],
            [x.profit for x in m],
            xlabel="mean profit per wine ($)",
            title="Expected profit of each rule (held-out wines)",
        ),
        alt="Expected profit per wine of each rule",
    )
    report.table(
        ["true \\ rated", *[str(v) for v in labels]],
        [
            [str(lab), *[_dollars(-v) for v in row]]
            for lab, row in zip(labels, result.loss, strict=True)
        ],
        caption="Profit ($) of rating a wine of each true grade (rows) at each grade.",
    )
    report.section("Exact kappa-optimal cut points")
    report.paragraph(
        "Fitted on the training wines' least-squares scores (the global optimum of the "
        f"in-sample QWK, {result.thresholds.statistic:.4f}), applied to the held-out wines."
    )
    _report.cut_points_table(report, result.thresholds.thresholds, labels, "grade", optimal=True)
    report.figure(
        _plots.drawn(
            lambda: result.thresholds.plot(
                result.y_test,
                result.score_test,
                classes=labels,
                title="Held-out least-squares scores by true grade, with the cut points",
                legend_title="tasters' grade",
            )
        ),
        alt="Held-out scores by true grade with the kappa-optimal cut points",
    )
    best = m[result.best]
    report.section(f"The best rule by QWK: {best.name}")
    _report.add_agreement(
        report,
        level=3,
        agreement=_report.Agreement(
            truth=result.y_test,
            pred=best.predicted,
            labels=labels,
            weights="quadratic",
            test=best.test,
            interval=result.best_bootstrap,
            confidence_level=0.95,
            method="bootstrap",
            n_resamples=N_RESAMPLES,
            seed=seed,
            console=console,
            truth_name="the tasters' grade",
            pred_name="the rule's grade",
        ),
    )
    report.section("Data")
    report.paragraph(result.citation, css_class="note")
    return report
