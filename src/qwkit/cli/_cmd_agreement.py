"""``qwkit agreement``: agreement among any number of raters, with missing ratings.

The file holds one row per item and one column per rater (``--raters``; an empty cell is
a rating not given), or one row per rating (``--long --item --rater --rating``; a crowd:
read into ``qwkit.ratings_from_long``'s sparse table, ``--duplicates`` for a rater who
rated an item twice). Each coefficient (``--coefficient``: one, several separated by
commas, or all) is ``qwkit.agreement_test`` (docs/agreement.md): its value, Gwet's
standard error, an interval and the p-value of the t-test of no agreement beyond chance.
The coefficients are the registry's (``_base._registry.COEFFICIENTS``: names, display
names, ``all``, the help), and the intraclass correlations of numeric ratings are named
by the ICC forms' aliases there (``icc-A1``, ...; ``qwkit.icc``: the value, its F-based
interval and the F test; ``cli/_reliability.py``). ``--by-rater`` adds each rater's
agreement with the others (``qwkit.rater_agreement``), ``--by-category`` the agreement on
each category (``qwkit.category_agreement``).
``--report FILE.html`` writes an HTML report that stays small for any number of raters:
the coefficients, each rater's agreement (ranked, and its distribution), and the
agreement of the pairs of raters (a heatmap up to 40 raters, their distribution beyond).
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

import qwkit
from qwkit._base._registry import COEFFICIENTS, ICC_FORMS, WEIGHTS
from qwkit.cli import _columns, _display, _output, _plots, _reliability, _report
from qwkit.cli._errors import (
    guard,
    in_file_terms,
    stderr_console,
)
from qwkit.cli._options import (
    FileArg,
    ForceOpt,
    Interval,
    JsonOpt,
    LabelsOpt,
    Method,
    MissingOpt,
    NanPolicyOpt,
    Reading,
    TitleOpt,
    check_one_stdout,
    column_list,
    labels_option,
    missing_option,
    nan_policy_option,
    option_blocks,
    report_option,
)

__all__ = ["agreement", "coefficient_option"]


class Duplicates(str, Enum):
    raise_ = "raise"
    first = "first"
    last = "last"


class AgreementWeights(str, Enum):
    """The names of ``WEIGHTS`` (``_base._registry``), spelled for typer and type checkers
    (``tests/test_registry.py`` holds them to the records)."""

    quadratic = "quadratic"
    linear = "linear"
    identity = "identity"
    radical = "radical"
    circular = "circular"
    bipolar = "bipolar"
    ordinal = "ordinal"
    ratio = "ratio"


#: ``--coefficient all``: the chance-corrected coefficients of any number of raters (the
#: others, and the ICCs, are given by name).
ALL = COEFFICIENTS.where(lambda r: r.in_all)
#: Up to this many raters the report draws every pair in a heatmap and lists every
#: rater; beyond, distributions and the lowest and highest only.
MAX_NAMED_RATERS = 40
#: Raters (and pairs) listed at each end of a ranking beyond ``MAX_NAMED_RATERS``.
_LISTED = 15


def _gloss(record) -> str:
    """A coefficient's name with what sets it apart, for ``--help``."""
    notes = [
        note
        for note, applies in (
            ("two raters", record.two_raters),
            ("not corrected for chance", not record.chance_corrected),
        )
        if applies
    ]
    return record.name + (f" ({', '.join(notes)})" if notes else "")


_COEFFICIENT_HELP = (
    f"{', '.join(map(_gloss, COEFFICIENTS.values()))}; or the "
    "intraclass correlations of numeric ratings "
    f"{', '.join(r.aliases[0] for r in ICC_FORMS.values())} (text ratings on --labels: their "
    "positions 1 … K); several separated by commas (fleiss,icc-A1), or all "
    f"({', '.join(ALL)}; more may follow: all,icc-A1)."
)
_WEIGHTS_HELP = (
    "Disagreement weights: "
    + "; ".join(f"{r.name}: {r.help}" for r in WEIGHTS.values())
    + " (docs/agreement.md, section 2)."
)


def coefficient_option(text: str) -> list[str]:
    """``--coefficient``: one name, several separated by commas, or ``all``."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if not names:
        raise typer.BadParameter("name a coefficient, or all.", param_hint="--coefficient")
    if "all" in names:  # the chance-corrected coefficients, then any others named
        i = names.index("all")
        names = [*names[:i], *ALL, *names[i + 1 :]]
    known = COEFFICIENTS.names
    unknown = [n for n in names if n not in known and _reliability.icc_form(n) is None]
    if unknown:
        raise typer.BadParameter(
            f"unknown coefficient '{unknown[0]}'; choose from {', '.join(known)}, "
            f"the ICCs {', '.join(map(_reliability.cli_name, ICC_FORMS))}, or all (several "
            "separated by commas).",
            param_hint="--coefficient",
        )
    return list(dict.fromkeys(names))


def _name(res) -> str:
    """How the command line names a result's coefficient."""
    if isinstance(res, qwkit.ICCResult):
        return _reliability.display_name(res.form)
    return COEFFICIENTS[res.coefficient].display


def _first_kappa(results):
    """The first kappa-type result (who rated what, items rated once), or None."""
    return next((r for r, _, _ in results if isinstance(r, qwkit.AgreementTestResult)), None)


def _row(res) -> dict:
    """A result's numbers for the tables (an ICC has no standard error, and its p-value is
    its F test's)."""
    se = None if isinstance(res, qwkit.ICCResult) else res.standard_error
    return {"name": _name(res), "value": res.statistic, "se": se, "p": res.pvalue}


def _named(per_rater, data):
    """``rater_agreement`` of the wide format's items × raters array names the raters by
    their columns' positions: give them the columns' names (the long format's table has
    them already)."""
    if isinstance(data.ratings, qwkit.RatingsTable):
        return per_rater
    names = np.asarray(data.raters, dtype=object)
    return dataclasses.replace(per_rater, raters=names[per_rater.raters.astype(np.intp)])


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


def _silent_raters(data) -> list[str]:
    """The wide format's rater columns without a single rating (left out of every
    statistic; the long format has no such rater)."""
    if isinstance(data.ratings, qwkit.RatingsTable):
        return []
    empty = _columns.empty_cells(np.asarray(data.ratings)).all(axis=0)
    return [name for name, none in zip(data.raters, empty.tolist(), strict=True) if none]


def _names_text(names: list[str]) -> str:
    if len(names) <= MAX_NAMED_RATERS:
        return ", ".join(names)
    return f"{len(names):,} (the ranking below lists the lowest and highest)"


def _rater_rows(by_rater, idx) -> list[list]:
    return [
        [
            str(by_rater.raters[j]),
            int(by_rater.n_items[j]),
            by_rater.statistic[j],
            by_rater.standard_error[j],
            by_rater.low[j],
            by_rater.high[j],
        ]
        for j in idx
    ]


def _raters_section(report, by_rater, ci) -> None:
    report.section("Agreement of each rater with the others")
    report.paragraph(
        "Each rater's weighted kappa against the other raters of the items it rated: "
        "Cohen's kappa of the table of pairs (its rating of an item, another rater's "
        "rating of the same item), with an interval over its items "
        "(qwkit.rater_agreement; docs/agreement.md, eqs. 23–24). A rater rating at random "
        "scores near 0."
    )
    report.figure(
        _plots.drawn(by_rater.plot),
        alt="Distribution of the raters' kappas against the others, and each rater",
    )
    order = by_rater.ranked()
    order = order[np.isfinite(by_rater.statistic[order])]
    header = ["rater", "shared items", "kappa", "standard error", "CI low", "CI high"]
    caption = f"{_plots.percent(ci)} intervals (t on the rater's items − 1 df)."
    if order.size <= 2 * _LISTED or len(by_rater.raters) <= MAX_NAMED_RATERS:
        report.table(header, _rater_rows(by_rater, order), caption="Lowest first; " + caption)
        return
    report.table(
        header, _rater_rows(by_rater, order[:_LISTED]), caption=f"The {_LISTED} lowest; " + caption
    )
    report.table(
        header,
        _rater_rows(by_rater, order[::-1][:_LISTED]),
        caption=f"The {_LISTED} highest; " + caption,
    )
    undefined = len(by_rater.raters) - order.size
    if undefined:
        report.paragraph(
            f"{undefined:,} raters have no kappa (fewer than two items shared with other "
            "raters, or every shared rating in one category)."
        )


def _pairs_section(report, by_rater, names, weights) -> None:
    pairs = by_rater.pairwise()
    report.section("Agreement of each pair of raters")
    report.paragraph(
        f"Each pair's weighted kappa ({weights} weights) on the items both rated; Light's "
        "kappa is the mean of those that exist (two or more common items, not every "
        f"common rating in one category). {pairs.n_pairs_sharing:,} pairs of raters share "
        f"an item; {int(np.isfinite(pairs.statistic).sum()):,} have a kappa."
    )
    if len(names) <= MAX_NAMED_RATERS:
        kappa = pairs.matrix(by_rater.raters)
        report.figure(
            _plots.pairwise_heatmap(
                kappa,
                names,
                title=f"Kappa of each pair of raters ({weights} weights)",
                label="kappa",
            ),
            alt="Heatmap of the weighted kappa of each pair of raters",
        )
        report.table(
            ["rater", "rater", "common items", "weighted kappa"],
            [
                [str(a), str(b), int(n), k]
                for a, b, n, k in zip(
                    pairs.rater1, pairs.rater2, pairs.n_items, pairs.statistic, strict=True
                )
            ],
        )
        return
    report.figure(
        _plots.drawn(pairs.plot),
        alt="Distribution of the kappas of the pairs of raters",
    )
    kappa = pairs.statistic
    ok = np.isfinite(kappa)
    if ok.any():
        q = np.percentile(kappa[ok], [10, 25, 50, 75, 90])
        items = np.percentile(pairs.n_items[ok], [50, 90])
        report.table(
            ["pairs with a kappa", "10%", "25%", "median", "75%", "90%",
             "median common items", "90% of pairs share at most"],
            [[int(ok.sum()), *q, float(items[0]), float(items[1])]],
            caption="The distribution of the pairs' kappas.",
        )  # fmt: skip


def _write_report(
    target,
    data,
    results,
    by_rater,
    *,
    file,
    source_name,
    weights,
    ci,
    method,
    title,
    by_category=None,
):
    """The ``--report`` page: the coefficients, each rater, and the pairs of raters."""
    names = [str(r) for r in by_rater.raters]
    first = _first_kappa(results)
    n_items = results[0][0].n_items
    report = _report.HtmlReport(
        title or f"Agreement among raters: {Path(file).name if file != '-' else source_name}",
        subtitle=f"{len(names):,} raters, {n_items:,} items, {weights} weights",
    )
    report.section("Overview")
    rows = [
        ["data", source_name],
        ["raters", _names_text(names)],
        ["items", n_items],
        ["ratings", int(by_rater.n_ratings.sum())],
    ]
    if first is not None:
        rows.append(["items rated once (no pair)", first.n_items_rated_once])
    if first is not None and (first.n_items_dropped or first.n_raters_dropped):
        rows.append(
            [
                "dropped (no rating)",
                f"{first.n_items_dropped} items, {first.n_raters_dropped} raters",
            ]
        )
    if data.duplicates:
        rows.append(["repeated ratings left out", data.duplicates])
    rows += [
        ["weights", weights],
        [
            "rating scale",
            "qwkit's default: every integer from the smallest to the largest rating "
            "(the values that occur, for real-valued ratings)"
            if data.labels is None
            else ", ".join(_display.label_text(v) for v in data.labels),
        ],
    ]
    report.table(None, rows)
    report.section("Agreement coefficients")
    table_rows = []
    for res, low, high in results:
        row = _row(res)
        se = "—" if row["se"] is None else row["se"]
        table_rows.append([row["name"], row["value"], se, low, high, row["p"]])
    iccs = any(isinstance(res, qwkit.ICCResult) for res, _, _ in results)
    report.table(
        ["coefficient", "value", "standard error", "CI low", "CI high", "p-value"],
        table_rows,
        caption=f"{_plots.percent(ci)} intervals ({method}); p-values of the t-test of no "
        "agreement beyond chance (qwkit.agreement_test)"
        + (
            "; ICCs: F-based intervals and the F test of no item variance (qwkit.icc)."
            if iccs
            else "."
        ),
    )
    if by_category is not None:
        _reliability.category_section(report, by_category, ci)
    _raters_section(report, by_rater, ci)
    _pairs_section(report, by_rater, names, weights)
    _output.write_text(target, report.render())


@option_blocks
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
        str,
        typer.Option(
            help=_COEFFICIENT_HELP,
            metavar="NAMES",
        ),
    ] = "all",
    by_rater: Annotated[
        bool,
        typer.Option(
            "--by-rater",
            help="Also each rater's agreement with the others (qwkit.rater_agreement): "
            "the lowest and highest raters (every rater with --json).",
            show_default=False,
        ),
    ] = False,
    by_category: Annotated[
        bool,
        typer.Option(
            "--by-category",
            help="Also the agreement on each category: Fleiss' kappa of it against the "
            "others, with its standard errors and test (qwkit.category_agreement).",
            show_default=False,
        ),
    ] = False,
    duplicates: Annotated[
        Duplicates,
        typer.Option(
            help="--long: a rater who rated an item twice is an error (raise), or keep the "
            "first or the last of the ratings, in the order of the rows.",
            metavar="POLICY",
        ),
    ] = Duplicates.raise_,
    weights: Annotated[
        AgreementWeights,
        typer.Option(
            help=_WEIGHTS_HELP,
            metavar="WEIGHTS",
        ),
    ] = AgreementWeights.quadratic,
    labels: LabelsOpt = None,
    missing: MissingOpt = None,
    nan_policy: NanPolicyOpt = None,
    interval: Interval = Interval(),
    report: Annotated[
        str | None,
        report_option(": the coefficients, each rater's agreement and the pairs of raters"),
    ] = None,
    title: TitleOpt = None,
    reading: Reading = Reading(),
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Agreement among many raters, with missing ratings.

    Each coefficient with its standard error (Gwet 2014), interval and the p-value of
    the test of no agreement beyond chance. Text ratings need --labels unless --weights
    identity."""
    policy = nan_policy_option(nan_policy, default="omit")  # an empty cell: not rated
    columns = _layout(raters, long, item, rater, rating)
    chosen = coefficient_option(coefficient)
    scale_given = labels_option(labels)
    codes = missing_option(missing)
    reading = reading.checked()
    check_one_stdout(report, as_json, "--report")
    ci, method = interval.ci, interval.method
    with guard():
        target = _output.plan_given(report, kind=_output.REPORT, file=file, force=force)
        text_allowed = weights is AgreementWeights.identity
        with reading.open(file) as source:
            if columns is not None:
                data = _columns.load_ratings(
                    source,
                    columns,
                    labels=scale_given,
                    text_allowed=text_allowed,
                    missing=codes,
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
                    duplicates=duplicates.value,
                    missing=codes,
                    console=stderr_console(),
                )
        results = []

        def terms():
            return in_file_terms(
                {}, data.rows, labels=data.labels_origin, said={"ratings": "the table of ratings"}
            )

        with terms():
            numbers = None  # the ICCs' ratings: text as positions on --labels
            for name in chosen:
                form = _reliability.icc_form(name)
                if form is not None:
                    if numbers is None:
                        numbers = _reliability.positions(data.ratings, data.labels)
                    results.append(_reliability.icc_result(numbers, form, ci, policy))
                    continue
                res = qwkit.agreement_test(
                    data.ratings,
                    coefficient=name,
                    weights=weights.value,
                    labels=data.labels,
                    nan_policy=policy,
                )
                low, high = interval.of(res)
                results.append((res, low, high))
            categories = None
            if by_category:
                categories = _reliability.by_category(data.ratings, data.labels, policy)
            per_rater = None
            if by_rater or target is not None:
                per_rater = _named(
                    qwkit.rater_agreement(
                        data.ratings,
                        weights=weights.value,
                        labels=data.labels,
                        confidence_level=ci,
                        nan_policy=policy,
                    ),
                    data,
                )
        if target is not None:
            with terms():
                _write_report(
                    target,
                    data,
                    results,
                    per_rater,
                    file=file,
                    source_name=source.name,
                    weights=weights.value,
                    ci=ci,
                    method=method.value,
                    title=title,
                    by_category=categories,
                )
        if as_json:
            _display.print_json(
                {
                    "file": file,
                    "format": "long" if columns is None else "wide",
                    "raters": list(data.raters),
                    "labels": data.labels,
                    "coefficients": [
                        {
                            **(
                                {"coefficient": _reliability.cli_name(res.form)}
                                if isinstance(res, qwkit.ICCResult)
                                else {}
                            ),
                            **res.to_dict(),
                            "ci_low": low,
                            "ci_high": high,
                        }
                        for res, low, high in results
                    ],
                    "confidence_level": ci,
                    "method": method.value,
                    "n_rows": data.n_rows,
                    "n_duplicates": data.duplicates,
                    **({"by_rater": per_rater.to_dict()} if by_rater else {}),
                    **(
                        {"by_category": _reliability.category_json(categories, ci)}
                        if by_category
                        else {}
                    ),
                }
            )
            return
        console = _display.stdout_console(to_stderr=target is not None and target.is_stdout)
        console.print(_results_table(results, source.label, ci, method, weights.value))
        first = _first_kappa(results)
        some = results[0][0]
        tests = []
        if first is not None:
            tests.append(
                f"p-values: t-test of no agreement beyond chance, {first.degrees_of_freedom} df"
            )
        if any(isinstance(res, qwkit.ICCResult) for res, _, _ in results):
            tests.append(
                "ICCs: F-based intervals"
                + (" (not the method above)" if first is not None else "")
                + " and the F test of no item variance (qwkit.icc)"
            )
        console.print(f"{some.n_items:,} items, {some.n_raters:,} raters; " + "; ".join(tests))
        said = []
        if first is not None and first.n_items_rated_once:
            said.append(f"{first.n_items_rated_once:,} items rated once (no pair)")
        silent = _silent_raters(data)
        if silent:
            said.append(
                f"{len(silent):,} rater{'s' if len(silent) > 1 else ''} with no rating left out "
                f"({_names_text(silent)})"
            )
        if data.duplicates:
            many = "s" if data.duplicates > 1 else ""
            said.append(f"{data.duplicates:,} repeated rating{many} left out ({duplicates.value})")
        if said:
            console.print("; ".join(said))
        if by_category:
            console.print(_reliability.category_table(categories, ci, source.label))
        if by_rater:
            console.print(_raters_table(per_rater, source.label, ci))
        if target is not None and not target.is_stdout:
            console.print(f"wrote {report}")


def _raters_table(by_rater, label: str, ci: float) -> Table:
    number = _display.number
    order = by_rater.ranked()
    order = order[np.isfinite(by_rater.statistic[order])]
    n = len(by_rater.raters)
    shown = order if order.size <= 20 else np.concatenate([order[:10], order[-10:]])
    title = f"{label}: each rater against the others ({by_rater.weights} weights)"
    if order.size > 20:
        title += f"; the 10 lowest and 10 highest of {n:,} raters (all with --json)"
    table = Table(title=title)
    for name in ("rater", "items", "kappa", "SE", f"{_plots.percent(ci)} CI"):
        table.add_column(name, justify="left" if name == "rater" else "right")
    for j in shown:
        table.add_row(
            str(by_rater.raters[j]),
            f"{int(by_rater.n_items[j]):,}",
            number(by_rater.statistic[j]),
            number(by_rater.standard_error[j]),
            f"[{number(by_rater.low[j])}, {number(by_rater.high[j])}]",
        )
    return table


def _results_table(results, label: str, ci: float, method: Method, weights: str) -> Table:
    number = _display.number
    table = Table(title=f"{label}: agreement among raters ({weights} weights)")
    for name in ("coefficient", "value", "SE", f"{_plots.percent(ci)} CI ({method.value})"):
        table.add_column(name, justify="left" if name == "coefficient" else "right")
    table.add_column("p-value", justify="right")
    for res, low, high in results:
        row = _row(res)
        table.add_row(
            row["name"],
            number(row["value"]),
            "—" if row["se"] is None else number(row["se"]),
            f"[{number(low)}, {number(high)}]",
            _display.pvalue(row["p"]),
        )
    return table
