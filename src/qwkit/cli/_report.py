"""A self-contained HTML report: text, tables and PNG figures embedded as base64 data URIs.

The page loads nothing from anywhere (no scripts, fonts or stylesheets from outside), so
the single file can be mailed, archived or opened offline. Its ``<meta name="generator">``
tag marks it as qwkit's (``_output`` replaces an existing report only when it has one).

Warnings raised while a report is computed (an undefined kappa, a degenerate interval,
whatever their class) are shown in a box at the top of the page, as well as on stderr.

Wording: the two columns are named by their roles, which default to the columns' names,
so that two raters are never called "true" and "predicted"; ``qwkit report
--truth-role/--pred-role`` name them otherwise (e.g. "expert", "model").
"""

from __future__ import annotations

import base64
import html
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import qwkit
from qwkit._base._tables import Table as ResultTable
from qwkit._base._tables import cell_text
from qwkit.cli import _columns, _display, _optimism, _output, _plots, _progress
from qwkit.cli._errors import CliError

__all__ = [
    "Agreement",
    "HtmlReport",
    "add_agreement",
    "file_report",
]

_CSS = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif;
       margin: 0; color: #1d2733; background: #f4f6f8; }
main { max-width: 980px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
h1 { font-size: 1.6em; margin: 0.2em 0 0.1em; }
h3 { font-size: 1.08em; margin-top: 1.4em; }
h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #d5dbe1;
     padding-bottom: 0.2em; }
p.subtitle { color: #5b6773; margin-top: 0; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border: 1px solid #d5dbe1; padding: 4px 10px; text-align: left; }
th { background: #eef2f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #e3e7eb; }
figcaption { color: #5b6773; font-size: 0.9em; margin-top: 0.3em; }
.note { color: #5b6773; font-size: 0.9em; }
.big { font-size: 1.15em; }
pre { background: #f4f6f8; padding: 10px; overflow-x: auto; }
.warnings { border: 2px solid #d9822b; background: #fff4e5; padding: 6px 16px;
            margin: 1em 0; border-radius: 4px; }
.warnings h2 { border: none; margin: 0.4em 0; font-size: 1.1em; color: #8a4b0f; }
.warnings li { margin: 0.3em 0; }
footer { margin-top: 3em; color: #8a949e; font-size: 0.85em; }
"""


def _cell(value) -> tuple[str, bool]:
    """Text of a table cell and whether it is a number (right-aligned)."""
    if isinstance(value, bool) or value is None:
        return ("" if value is None else str(value)), False
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}", True
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return ("nan" if math.isnan(value) else f"{value:.4f}"), True
    return str(value), False


class HtmlReport:
    """Accumulates sections, then renders one HTML document."""

    def __init__(self, title: str, subtitle: str = "") -> None:
        self.title = title
        self._parts: list[str] = [f"<h1>{html.escape(title)}</h1>"]
        if subtitle:
            self._parts.append(f'<p class="subtitle">{html.escape(subtitle)}</p>')
        self.n_figures = 0
        self._warnings: list[str] = []

    def add_warnings(self, texts: Sequence[str]) -> None:
        """Warnings to show in a box at the top of the page."""
        self._warnings += [t for t in texts if t not in self._warnings]

    def section(self, heading: str, *, level: int = 2) -> None:
        self._parts.append(f"<h{level}>{html.escape(heading)}</h{level}>")

    def paragraph(self, text: str, *, css_class: str | None = None) -> None:
        attr = f' class="{css_class}"' if css_class else ""
        self._parts.append(f"<p{attr}>{html.escape(text)}</p>")

    def preformatted(self, text: str) -> None:
        self._parts.append(f"<pre>{html.escape(text)}</pre>")

    def table(
        self, header: Sequence[str] | None, rows: Sequence[Sequence], *, caption: str = ""
    ) -> None:
        out = ["<table>"]
        if caption:
            out.append(f"<caption>{html.escape(caption)}</caption>")
        if header:
            out.append(
                "<tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in header) + "</tr>"
            )
        # p-values as the terminal prints them (4 significant digits, "< 1e-300"), not
        # rounded to 0.0000
        pcols = {i for i, h in enumerate(header or ()) if str(h).lower().startswith("p-value")}
        for row in rows:
            cells = []
            for i, value in enumerate(row):
                if i in pcols and isinstance(value, (float, np.floating)):
                    text, numeric = _display.pvalue(float(value)), True
                else:
                    text, numeric = _cell(value)
                cls = ' class="num"' if numeric else ""
                cells.append(f"<td{cls}>{html.escape(text)}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</table>")
        self._parts.append("".join(out))

    def result_table(self, table: ResultTable, *, level: int = 2) -> None:
        """A result's table (the table model of ``qwkit._base._tables``) as a section: its
        title, the table with the cells the console shows, its notes as paragraphs."""
        self.section(table.title, level=level)
        if table.columns:
            out = ["<table>", "<tr>"]
            out += [f"<th>{html.escape(c.name)}</th>" for c in table.columns]
            out.append("</tr>")
            for row in table.rows:
                out.append("<tr>")
                for value, column in zip(row, table.columns, strict=True):
                    cls = "" if column.kind in ("text", "verdict") else ' class="num"'
                    out.append(f"<td{cls}>{html.escape(cell_text(value, column))}</td>")
                out.append("</tr>")
            out.append("</table>")
            self._parts.append("".join(out))
        for note in table.notes:
            self.paragraph(note, css_class="note")

    def figure(self, png: bytes, *, alt: str, caption: str = "") -> None:
        data = base64.b64encode(png).decode("ascii")
        self.n_figures += 1
        cap = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        self._parts.append(
            f'<figure><img id="figure-{self.n_figures}" alt="{html.escape(alt, quote=True)}" '
            f'src="data:image/png;base64,{data}">{cap}</figure>'
        )

    def _warning_box(self) -> list[str]:
        if not self._warnings:
            return []
        items = "".join(f"<li>{html.escape(text)}</li>" for text in self._warnings)
        heading = "Warning" if len(self._warnings) == 1 else "Warnings"
        return [
            f'<div class="warnings" id="warnings" role="alert"><h2>{heading}</h2>'
            f"<ul>{items}</ul></div>"
        ]

    def render(self) -> str:
        version = html.escape(qwkit.__version__)
        footer = (
            f"<footer>Made with qwkit {version}. "
            "This file is self-contained: every figure is embedded.</footer>"
        )
        head = 2 if len(self._parts) > 1 and self._parts[1].startswith('<p class="subtitle"') else 1
        parts = self._parts[:head] + self._warning_box() + self._parts[head:]
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'{_output.REPORT_MARK} {version}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(self.title)}</title>\n<style>{_CSS}</style>\n</head>\n"
            "<body>\n<main>\n" + "\n".join(parts) + f"\n{footer}\n</main>\n</body>\n"
            "</html>\n"
        )


@dataclass(frozen=True, slots=True, eq=False)
class Agreement:
    """What the agreement sections of a report show about one pair of raters."""

    truth: np.ndarray
    pred: np.ndarray
    labels: np.ndarray
    weights: str
    test: qwkit.KappaTestResult
    interval: tuple[float, float]
    confidence_level: float
    method: str
    n_resamples: int  # of the bootstrap figure, drawn with the interval's seed
    seed: int
    truth_name: str = "rater A"  # how the text calls the rows' ratings
    pred_name: str = "rater B"  # and the columns'
    #: ``sample_weight=`` and ``counts=`` of the API calls.
    item_weights: dict = field(default_factory=dict)
    console: object = None  # where the bootstrap's progress bar goes (None: stderr)


def _amount(value: float) -> int | float:
    """A count, or a total weight (not always whole) of items."""
    value = float(value)
    return int(value) if value == round(value) else value


def _class_rows(confusion: np.ndarray, labels: np.ndarray) -> list[list]:
    rows = []
    k = confusion.shape[0]
    for i, label in enumerate(labels):
        n_true = confusion[i].sum()
        near = confusion[i, max(0, i - 1) : min(k, i + 2)].sum()
        exact = confusion[i, i] / n_true if n_true else math.nan
        within = near / n_true if n_true else math.nan
        rows.append(
            [
                _display.label_text(label),
                _amount(n_true),
                _amount(confusion[:, i].sum()),
                f"{exact:.1%}" if n_true else "–",
                f"{within:.1%}" if n_true else "–",
            ]
        )
    return rows


def add_agreement(report: HtmlReport, agreement: Agreement, *, level: int = 2) -> np.ndarray:
    """Confusion heatmap, per-class agreement, kappa with its CI and the bootstrap
    distribution. Returns the confusion matrix."""
    a = agreement
    confusion = qwkit.confusion_matrix(a.truth, a.pred, labels=a.labels, **a.item_weights)
    low, high = a.interval
    report.section("Kappa and its confidence interval", level=level)
    others = []
    for kind in ("linear", "identity"):
        if kind != a.weights:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", qwkit.UndefinedKappaWarning)
                others.append(
                    (
                        f"kappa, {kind} weights",
                        qwkit.kappa_score(
                            a.truth,
                            a.pred,
                            labels=a.labels,
                            weights=kind,
                            **a.item_weights,
                        ),
                    )
                )
    report.table(
        ["quantity", "value"],
        [
            [f"kappa ({a.weights} weights)", a.test.statistic],
            ["standard error (asymptotic)", a.test.standard_error],
            [f"{_plots.percent(a.confidence_level)} CI low ({a.method})", low],
            [f"{_plots.percent(a.confidence_level)} CI high ({a.method})", high],
            ["p-value, H0: kappa = 0", _display.pvalue(a.test.pvalue)],
            ["items", a.test.n_items],
            *others,
        ],
    )
    with _progress.progress_bar("bootstrap", unit="resamples", console=a.console) as progress:
        figure = _plots.drawn(
            lambda: a.test.plot(
                "bootstrap",
                confidence_level=a.confidence_level,
                method=a.method,
                n_resamples=a.n_resamples,
                rng=a.seed,
                progress=progress,
            )
        )
    report.figure(
        figure,
        alt="Histogram of bootstrap kappas with the estimate and its confidence interval",
        caption=(
            f"{a.n_resamples:,} bootstrap resamples of the items (multinomial draws of the "
            "confusion matrix). The shaded band is the reported interval."
        ),
    )
    k = len(a.labels)
    report.section("Confusion matrix", level=level)
    caption = [f"Rows: {a.truth_name}; columns: {a.pred_name}. Colour is the share of each row."]
    if k <= _plots.MAX_CELL_NUMBERS:
        caption.append("The cells hold the counts.")
    else:
        caption.append(
            f"With {k} classes the cells are too small to hold their counts: colour only "
            "(the counts of each class are in the table below)."
        )
    step = _plots.tick_step(k)
    if step > 1:
        caption.append(f"Every {_ordinal(step)} class is labelled on the axes.")
    names = (a.truth_name, a.pred_name)
    report.figure(
        _plots.drawn(lambda: a.test.plot("confusion", names=names)),
        alt="Confusion matrix heatmap",
        caption=" ".join(caption),
    )
    report.section("Agreement class by class", level=level)
    report.paragraph(
        f"For each class: how many items {a.truth_name} and {a.pred_name} put in it, and of "
        f"the items {a.truth_name} puts in it, the share that {a.pred_name} puts in the same "
        "class (exact) or at most one class away (within one)."
        + (
            " With this many classes the figure draws lines instead of bars."
            if k > _plots.MAX_BAR_CLASSES
            else ""
        )
    )
    report.figure(
        _plots.drawn(lambda: a.test.plot("classes", names=names)),
        alt="Agreement class by class",
    )
    report.table(
        ["class", f"items: {a.truth_name}", f"items: {a.pred_name}", "exact", "within one"],
        _class_rows(confusion, a.labels),
    )
    return confusion


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


#: Widest rating scale a report draws (its K×K heatmap and per-class bars).
MAX_REPORT_LABELS = 100


def _check_drawable(scale) -> None:
    """A report draws at most :data:`MAX_REPORT_LABELS` integer labels of qwkit's own
    scale (every integer between the extremes): more is a scale worth declaring."""
    k = len(scale)
    if k > MAX_REPORT_LABELS:
        raise CliError(
            f"the ratings span {k:,} integer labels ({scale[0]}..{scale[-1]}); a report "
            f"draws at most {MAX_REPORT_LABELS}; pass --labels with the ratings that occur."
        )


def cut_points_table(
    report: HtmlReport, cuts: np.ndarray, labels, header: str, *, optimal: bool
) -> None:
    """The table of the scores each class gets, and a warning (at the top of the page
    and under the table) for classes that no score is rounded to (``optimal``: cut
    points fitted to maximize kappa)."""
    rows = _display.class_ranges(cuts, labels)
    report.table([header, "scores"], [[label, scores] for label, scores, _ in rows])
    empty = [label for label, row in zip(labels, rows, strict=True) if row[2]]
    if empty:
        text = _capital(_display.empty_classes_text(empty, optimal=optimal))
        report.paragraph(text, css_class="note")
        report.add_warnings([text])


def role_names(
    truth: str, pred: str | None, score: str | None, truth_role: str | None, pred_role: str | None
) -> tuple[str, str]:
    """How the report calls the two ratings: the roles given, else the columns' names
    (``'rater1'``; for scores: ``the class of 'score'``) — never "true" and
    "predicted" unless the user says so."""
    a = truth_role or f"'{truth}'"
    b = pred_role or (f"'{pred}'" if pred is not None else f"the class of '{score}'")
    if a == b:  # two columns with one role: tell them apart
        a, b = f"{a} ('{truth}')", f"{b} ('{pred or score}')"
    return a, b


def _optimism_section(report: HtmlReport, opt, level: float) -> None:
    report.section("The kappa of these cut points on new data")
    report.paragraph(
        "The optimism-corrected kappa is "
        + _optimism.OPTIMISM_MEANING
        + "; the kappa of the other sections is in-sample (qwkit.optimism_corrected_kappa, "
        "which refits the cut points on parts of the data)."
    )
    low, high = opt.confidence_interval(level)
    how = (
        f"{opt.n_splits}-fold cross-fitting × {opt.n_resamples // opt.n_splits}"
        if opt.method == "cv"
        else f"bootstrap (Efron–Gong), {opt.n_resamples:,} resamples"
    )
    report.table(
        ["quantity", "value"],
        [
            ["in-sample kappa", opt.apparent],
            ["estimated optimism", opt.optimism],
            ["optimism-corrected kappa (new data)", opt.statistic],
            ["standard error", opt.standard_error],
            [f"{_plots.percent(level)} CI low", low],
            [f"{_plots.percent(level)} CI high", high],
            ["estimated by", how],
        ],
    )


def file_report(
    *,
    file: str,
    source_name: str,
    truth: str,
    pred: str | None,
    score: str | None,
    data: _columns.Loaded,
    cuts,
    cut_labels,
    thresholds_path,
    weights: str,
    confidence_level: float,
    method: str,
    n_resamples: int,
    seed: int,
    title: str | None,
    truth_role: str | None = None,
    pred_role: str | None = None,
    optimism=None,
) -> tuple[HtmlReport, str]:
    """The ``qwkit report`` page (to be rendered) and a one-line summary. ``optimism``:
    ``(method, n_resamples)`` of the optimism-corrected kappa of cut points fitted here."""
    a_name, b_name = role_names(truth, pred, score, truth_role, pred_role)
    y = data.columns[truth]
    labels = data.labels
    item_weights = data.item_weights
    overview = [["data", source_name], [_capital(a_name), f"column '{truth}'"]]
    opt = None
    if score is not None:
        s = data.columns[score]
        fit = None  # the fitted cut points' ThresholdResult
        if cuts is None:
            if optimism is not None:
                terms = data.terms(
                    {"y_true": truth, "y_score": score},
                    labels=labels,
                    said=_optimism.OPTIMISM_WORDS,
                )
                opt = _optimism.optimism(
                    y,
                    s,
                    data,
                    terms,
                    labels=labels,
                    weights=weights,
                    method=optimism[0],
                    n_resamples=optimism[1],
                    seed=seed,
                )
            fit = (
                opt.threshold_result
                if opt is not None
                else qwkit.optimize_thresholds(y, s, labels=labels, weights=weights, **item_weights)
            )
            cuts, cut_scale = fit.thresholds, fit.labels
            origin = (
                f"fitted on these rows to agree best with {a_name} (qwkit.optimize_thresholds, "
                "the exact optimum; the kappa below is in-sample, hence optimistic"
                + ("; see its optimism-corrected value)" if opt is not None else ")")
            )
        else:
            cut_scale = labels if labels is not None else cut_labels
            origin = f"read from {thresholds_path}"
        if cut_scale is not None and len(cut_scale) != len(cuts) + 1:
            raise CliError(
                f"the cut points have {len(cuts)} entries, so the scale needs {len(cuts) + 1} "
                f"labels; got {len(cut_scale)} ({', '.join(str(v) for v in cut_scale)})."
            )
        if cut_scale is None:
            cut_scale = np.arange(len(cuts) + 1)
        predicted = qwkit.apply_thresholds(s, cuts, labels=cut_scale)
        overview.append(
            [_capital(b_name), f"column '{score}' rounded with the cut points {origin}"]
        )
    else:
        predicted = data.columns[pred]
        overview.append([_capital(b_name), f"column '{pred}'"])
    if labels is None and score is not None and thresholds_path is None:
        labels = cut_scale  # the scale of the fitted cut points: the truth's
    test = qwkit.kappa_test(y, predicted, weights=weights, labels=labels, **item_weights)
    scale = test.labels
    if labels is None:
        _check_drawable(scale)
    interval = tuple(
        _progress.confidence_interval(test, confidence_level, method, n_resamples, seed)
    )
    dropped = data.dropped
    overview += [
        [
            "items",
            f"{test.n_items:,}"
            + (
                f" ({dropped:,} row{'' if dropped == 1 else 's'} with missing values dropped)"
                if dropped
                else ""
            ),
        ],
        ["rating scale", ", ".join(_display.label_text(v) for v in scale)],
        ["weights", weights],
    ]
    if data.weight_column is not None:
        overview.append(
            ["item weights", f"column '{data.weight_column}' (items: those of positive weight)"]
        )
    if data.counts_column is not None:
        overview.append(
            ["counts", f"column '{data.counts_column}' (each row stands for that many items)"]
        )
    subtitle = (
        f"{_capital(a_name)} against {b_name}: {weights} weighted kappa "
        f"{test.statistic:.4f}, {_plots.percent(confidence_level)} CI "
        f"[{interval[0]:.4f}, {interval[1]:.4f}] ({method})"
    )
    if opt is not None:
        subtitle += f"; on new data (optimism-corrected) {opt.statistic:.4f}"
    report = HtmlReport(
        title or f"Agreement report: {Path(file).name if file != '-' else source_name}",
        subtitle=subtitle,
    )
    report.section("Overview")
    report.table(None, overview)
    if score is not None:
        report.section("Cut points")
        report.paragraph(
            f"A score s gets class j when thresholds[j−1] < s ≤ thresholds[j]; cut points {origin}."
        )
        cut_points_table(
            report, np.asarray(cuts), cut_scale, "class", optimal=thresholds_path is None
        )
        if fit is None:  # cut points from a file: the result they would be
            fit = qwkit.ThresholdResult(
                thresholds=np.asarray(cuts, dtype=np.float64),
                statistic=math.nan,
                labels=np.asarray(cut_scale),
                certificate=None,
            )
        report.figure(
            _plots.drawn(
                lambda: fit.plot(
                    y,
                    s,
                    classes=scale,
                    title=f"Scores by class of {a_name}, with the cut points",
                    name=a_name,
                )
            ),
            alt="Histogram of the scores of each class with the cut points",
        )
        if opt is not None:
            _optimism_section(report, opt, confidence_level)
    add_agreement(
        report,
        Agreement(
            truth=y,
            pred=predicted,
            labels=scale,
            weights=weights,
            test=test,
            interval=interval,
            confidence_level=confidence_level,
            method=method,
            n_resamples=n_resamples,
            seed=seed,
            truth_name=a_name,
            pred_name=b_name,
            item_weights=item_weights,
        ),
    )
    summary = (
        f"kappa {test.statistic:.4f}, {_plots.percent(confidence_level)} CI [{interval[0]:.4f}, "
        f"{interval[1]:.4f}] ({method}), {test.n_items:,} items"
    )
    if opt is not None:
        summary += "; " + _optimism.optimism_text(opt, confidence_level)
    return report, summary


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].isalpha() else text
