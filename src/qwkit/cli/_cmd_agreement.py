"""``qwkit agreement``: agreement among any number of raters, with missing ratings.

The file holds one row per item and one column per rater (``--raters``; an empty cell is
a rating not given), or one row per rating (``--long --item --rater --rating``). Each
coefficient is ``qwkit.agreement_test`` (docs/agreement.md): its value, Gwet's standard
error, an interval and the p-value of the t-test of no agreement beyond chance.
``--report FILE.html`` writes an HTML report with the agreement of every pair of raters
as a heatmap: each pair's weighted kappa on the items both rated (``qwkit.kappa_score``;
Light's kappa is their mean).
"""

from __future__ import annotations

import math
from enum import Enum
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

import qwkit
from qwkit.cli import _columns, _display, _io, _output, _plots, _report
from qwkit.cli._errors import (
    captured_warnings,
    guard,
    in_file_terms,
    stderr_console,
    warning_texts,
)
from qwkit.cli._options import (
    CiOpt,
    DecimalOpt,
    EncodingOpt,
    FileArg,
    ForceOpt,
    JsonOpt,
    LabelsOpt,
    Method,
    MethodOpt,
    ResamplesOpt,
    SeedOpt,
    SepOpt,
    SheetOpt,
    check_one_stdout,
    column_list,
    decimal_option,
    encoding_option,
    labels_option,
    sep_option,
)
from qwkit.cli._progress import confidence_interval

__all__ = ["agreement", "pairwise_kappas"]


class Coefficient(str, Enum):
    fleiss = "fleiss"
    conger = "conger"
    krippendorff = "krippendorff"
    gwet = "gwet"
    brennan_prediger = "brennan-prediger"
    light = "light"
    all = "all"


class AgreementWeights(str, Enum):
    quadratic = "quadratic"
    linear = "linear"
    identity = "identity"
    ordinal = "ordinal"
    ratio = "ratio"
    radical = "radical"
    circular = "circular"
    bipolar = "bipolar"


#: How the command line names each coefficient.
NAMES = {
    "fleiss": "Fleiss' kappa",
    "conger": "Conger's kappa",
    "krippendorff": "Krippendorff's alpha",
    "gwet": "Gwet's AC",
    "brennan-prediger": "Brennan-Prediger",
    "light": "Light's kappa",
}
#: Weights of ``qwkit.kappa_score`` (the pairwise kappas); the others are
#: Krippendorff's metrics.
_KAPPA_WEIGHTS = ("quadratic", "linear", "identity")


def _column_option(help_text: str):
    return typer.Option(help=help_text, show_default=False, metavar="COLUMN")


def _layout(raters, long, item, rater, rating) -> list[str] | None:
    """The rater columns (wide format), or None for the long format; usage errors for a
    mix of the two."""
    options = {"--item": item, "--rater": rater, "--rating": rating}
    if long:
        missing = [name for name, value in options.items() if value is None]
        if missing:
            raise typer.BadParameter(
                "the long format needs --item, --rater and --rating; missing "
                + ", ".join(missing)
                + ".",
                param_hint="--long",
            )
        if raters:
            raise typer.BadParameter(
                "the long format takes --item, --rater and --rating, not --raters.",
                param_hint="--raters",
            )
        return None
    if any(value is not None for value in options.values()):
        raise typer.BadParameter(
            "--item, --rater and --rating describe the long format: add --long.",
            param_hint="--long",
        )
    if not raters:
        raise typer.BadParameter(
            "name the rater columns (e.g. --raters r1,r2,r3), or use --long.",
            param_hint="--raters",
        )
    return column_list(raters, "--raters", at_least=2, example="r1,r2,r3")


def _pair_kappa(a: np.ndarray, b: np.ndarray, weights: str, labels) -> float:
    """Weighted kappa of two raters on their common items: ``qwkit.kappa_score``; for
    Krippendorff's metrics (ordinal, ratio) and real-valued ratings, Conger's kappa of
    the two (Cohen's kappa with these weights)."""
    if weights in _KAPPA_WEIGHTS:
        try:
            return qwkit.kappa_score(a, b, weights=weights, labels=labels)
        except qwkit.QwkitError as exc:  # real-valued ratings: not on a kappa scale
            if exc.parameter not in ("y1", "y2"):
                raise
    pair = np.empty((len(a), 2), dtype=a.dtype if isinstance(a, np.ndarray) else object)
    pair[:, 0], pair[:, 1] = a, b
    return qwkit.agreement_score(pair, coefficient="conger", weights=weights, labels=labels)


def pairwise_kappas(ratings: np.ndarray, weights: str, labels) -> tuple[np.ndarray, np.ndarray]:
    """``(kappa, common)``: r × r matrices of each pair's weighted kappa on the items
    both rated (nan on the diagonal and for pairs with fewer than two such items) and
    of the number of those items."""
    present = ~_columns.empty_cells(ratings)
    r = ratings.shape[1]
    kappa = np.full((r, r), math.nan)
    common = np.zeros((r, r), dtype=np.int64)
    for g in range(r):
        for h in range(g + 1, r):
            both = present[:, g] & present[:, h]
            common[g, h] = common[h, g] = int(both.sum())
            if common[g, h] >= 2:
                a, b = ratings[both, g], ratings[both, h]
                if a.dtype == object:  # text, or integers beyond ±2**53: read as such
                    a, b = a.tolist(), b.tolist()
                kappa[g, h] = kappa[h, g] = _pair_kappa(a, b, weights, labels)
    return kappa, common


def _write_report(target, data, results, *, file, source_name, weights, ci, method, title):
    """The ``--report`` page: the coefficients and the pairwise heatmap."""
    with captured_warnings() as caught:
        kappa, common = pairwise_kappas(data.ratings, weights, data.labels)
    names = list(data.raters)
    report = _report.HtmlReport(
        title or f"Agreement among raters: {Path(file).name if file != '-' else source_name}",
        subtitle=f"{len(names)} raters, {results[0][0].n_items:,} items, {weights} weights",
    )
    report.add_warnings(warning_texts(caught))
    report.section("Overview")
    missing = int(np.count_nonzero(_columns.empty_cells(data.ratings)))
    report.table(
        None,
        [
            ["data", source_name],
            ["raters", ", ".join(names)],
            ["items", results[0][0].n_items],
            ["ratings not given", missing],
            ["weights", weights],
            [
                "rating scale",
                "qwkit's default: every integer from the smallest to the largest rating "
                "(the values that occur, for real-valued ratings)"
                if data.labels is None
                else ", ".join(_display.label_text(v) for v in data.labels),
            ],
        ],
    )
    report.section("Agreement coefficients")
    report.table(
        ["coefficient", "value", "standard error", "CI low", "CI high", "p-value"],
        [
            [NAMES[res.coefficient], res.statistic, res.standard_error, low, high, res.pvalue]
            for res, low, high in results
        ],
        caption=f"{_plots.percent(ci)} intervals ({method}); p-values of the t-test of no "
        "agreement beyond chance (qwkit.agreement_test).",
    )
    report.section("Agreement of each pair of raters")
    kappa_kind = weights if weights in _KAPPA_WEIGHTS else "Conger's (Cohen's), " + weights
    report.paragraph(
        f"Each cell is the weighted kappa ({kappa_kind} weights) of two raters on the items "
        "both rated; Light's kappa is their mean. A dash: fewer than two common items."
    )
    report.figure(
        _plots.pairwise_heatmap(
            kappa, names, title=f"Kappa of each pair of raters ({weights} weights)", label="kappa"
        ),
        alt="Heatmap of the weighted kappa of each pair of raters",
    )
    pairs = [
        [names[g], names[h], int(common[g, h]), kappa[g, h]]
        for g in range(len(names))
        for h in range(g + 1, len(names))
    ]
    report.table(["rater", "rater", "common items", "weighted kappa"], pairs)
    _output.write_text(target, report.render())


def agreement(
    file: FileArg,
    raters: Annotated[
        list[str] | None,
        typer.Option(
            "--raters",
            "-r",
            help="The rater columns, comma-separated (e.g. r1,r2,r3), one row per item; "
            "an empty cell is a rating not given.",
            show_default=False,
            metavar="COLUMNS",
        ),
    ] = None,
    long: Annotated[
        bool,
        typer.Option(
            "--long",
            help="The file holds one rating per row, with its item and rater (--item, "
            "--rater, --rating).",
            show_default=False,
        ),
    ] = False,
    item: Annotated[str | None, _column_option("Column of the items (--long).")] = None,
    rater: Annotated[str | None, _column_option("Column of the raters (--long).")] = None,
    rating: Annotated[str | None, _column_option("Column of the ratings (--long).")] = None,
    coefficient: Annotated[
        Coefficient,
        typer.Option(
            help="fleiss, conger, krippendorff (alpha), gwet (AC1, AC2 with weights), "
            "brennan-prediger, light (the mean of the pairwise kappas), or all.",
            metavar="NAME",
        ),
    ] = Coefficient.all,
    weights: Annotated[
        AgreementWeights,
        typer.Option(
            help="Disagreement weights: quadratic, linear, identity (unweighted), "
            "Krippendorff's ordinal and ratio metrics, or Gwet's radical, circular and "
            "bipolar weights. Quadratic weights on real-valued ratings are squared "
            "differences (Krippendorff's interval metric).",
            metavar="WEIGHTS",
        ),
    ] = AgreementWeights.quadratic,
    labels: LabelsOpt = None,
    ci: CiOpt = 0.95,
    method: MethodOpt = Method.asymptotic,
    n_resamples: ResamplesOpt = 9999,
    seed: SeedOpt = 20261121,
    report: Annotated[
        str | None,
        typer.Option(
            "--report",
            help="Also write an HTML report, with the agreement of each pair of raters "
            "as a heatmap ('-': standard output). An existing file is replaced only if "
            "it is a qwkit report, or with --force.",
            show_default=False,
            metavar="FILE",
        ),
    ] = None,
    title: Annotated[
        str | None,
        typer.Option(help="Title of the report.", show_default=False, metavar="TEXT"),
    ] = None,
    sep: SepOpt = None,
    decimal: DecimalOpt = ".",
    encoding: EncodingOpt = "utf-8",
    sheet: SheetOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Agreement among many raters, with missing ratings.

    Each coefficient with its standard error (Gwet 2014), interval and the p-value of
    the test of no agreement beyond chance. Text ratings need --labels unless --weights
    identity."""
    columns = _layout(raters, long, item, rater, rating)
    scale_given = labels_option(labels)
    sep = sep_option(sep)
    decimal = decimal_option(decimal, sep)
    encoding = encoding_option(encoding)
    check_one_stdout(report, as_json, "--report")
    with guard():
        target = None
        if report is not None:
            target = _output.plan(
                report, kind=_output.REPORT, inputs=[_output.Input.of(file)], force=force
            )
        text_allowed = weights is AgreementWeights.identity
        with _io.open_source(
            file, sep=sep, decimal=decimal, encoding=encoding, sheet=sheet
        ) as source:
            if columns is not None:
                data = _columns.load_ratings(
                    source,
                    columns,
                    labels=scale_given,
                    text_allowed=text_allowed,
                    console=stderr_console(),
                )
            else:
                data = _columns.load_long(
                    source,
                    item=item,
                    rater=rater,
                    rating=rating,
                    labels=scale_given,
                    text_allowed=text_allowed,
                    console=stderr_console(),
                )
        chosen = list(NAMES) if coefficient is Coefficient.all else [coefficient.value]
        results = []

        def terms():
            return in_file_terms(
                {}, data.rows, labels=data.labels_origin, said={"ratings": "the table of ratings"}
            )

        with terms():
            for name in chosen:
                res = qwkit.agreement_test(
                    data.ratings, coefficient=name, weights=weights.value, labels=data.labels
                )
                low, high = confidence_interval(res, ci, method, n_resamples, seed)
                results.append((res, low, high))
        if target is not None:
            with terms():
                _write_report(
                    target,
                    data,
                    results,
                    file=file,
                    source_name=source.name,
                    weights=weights.value,
                    ci=ci,
                    method=method.value,
                    title=title,
                )
        if as_json:
            _display.print_json(
                {
                    "file": file,
                    "format": "long" if columns is None else "wide",
                    "raters": list(data.raters),
                    "labels": data.labels,
                    "coefficients": [
                        {**res.to_dict(), "ci_low": low, "ci_high": high}
                        for res, low, high in results
                    ],
                    "confidence_level": ci,
                    "method": method.value,
                    "n_rows": data.n_rows,
                }
            )
            return
        console = _display.stdout_console(to_stderr=target is not None and target.is_stdout)
        console.print(_results_table(results, source.label, ci, method, weights.value))
        first = results[0][0]
        console.print(
            f"{first.n_items:,} items, {first.n_raters} raters; p-values: t-test of no "
            f"agreement beyond chance, {first.degrees_of_freedom} df"
        )
        if target is not None and not target.is_stdout:
            console.print(f"wrote {report}")


def _results_table(results, label: str, ci: float, method: Method, weights: str) -> Table:
    number = _display.number
    table = Table(title=f"{label}: agreement among raters ({weights} weights)")
    for name in ("coefficient", "value", "SE", f"{_plots.percent(ci)} CI ({method.value})"):
        table.add_column(name, justify="left" if name == "coefficient" else "right")
    table.add_column("p-value", justify="right")
    for res, low, high in results:
        table.add_row(
            NAMES[res.coefficient],
            number(res.statistic),
            number(res.standard_error),
            f"[{number(low)}, {number(high)}]",
            _display.pvalue(res.pvalue),
        )
    return table
