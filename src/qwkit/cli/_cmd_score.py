"""``qwkit score`` and ``qwkit compare``: kappa of two rating columns, and the paired
comparison of models' kappas (two, or every pair of several with a multiplicity
correction). They write no file; they print a rich table or, with ``--json``, one JSON
object on standard output."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer
from rich.table import Table

import qwkit
from qwkit.cli import _columns, _display, _engine, _io, _plots
from qwkit.cli._errors import guard, in_file_terms, stderr_console
from qwkit.cli._options import (
    FILE_HELP,
    MAX_JSON_LABELS,
    MAX_PRINTED_LABELS,
    PRED_HELP,
    DropOpt,
    FileArg,
    Interval,
    ItemWeightColumns,
    JsonOpt,
    LabelsOpt,
    NanPolicyOpt,
    Reading,
    TruthOpt,
    Weights,
    WeightsOpt,
    labels_option,
    nan_policy_option,
    option_blocks,
)

__all__ = ["compare", "score"]


def rows_json(data: _columns.Loaded, n_rows: int) -> dict:
    """What ``--json`` says about the rows read: how many, how many dropped, and the
    item-weight column."""
    return {
        "n_rows": n_rows,
        "rows_dropped": data.dropped,
        "sample_weight": data.weight_column,
        "counts": data.counts_column,
    }


class Engine(str, Enum):
    local = "local"
    dask = "dask"
    duckdb = "duckdb"


ScoreFileArg = Annotated[
    str,
    typer.Argument(
        help=FILE_HELP + " With --engine dask or duckdb: a file, a glob (quoted, e.g. "
        "'ratings/*.parquet') or a folder of Parquet or CSV files, read in partitions or "
        "counted by DuckDB (the data may be larger than memory).",
        show_default=False,
        metavar="PATH",
    ),
]


@option_blocks
def score(
    file: ScoreFileArg,
    truth: TruthOpt,
    pred: Annotated[
        str,
        typer.Option("--pred", "-p", help=PRED_HELP, show_default=False, metavar="COLUMN"),
    ],
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    interval: Interval = Interval(),
    item_weights: ItemWeightColumns = ItemWeightColumns(),
    reading: Reading = Reading(),
    nan_policy: NanPolicyOpt = None,
    drop_missing: DropOpt = False,  # (deprecated alias)
    engine: Annotated[
        Engine,
        typer.Option(
            help="local: read the file into memory. dask: read PATH in partitions with "
            "dask and merge each partition's table exactly (the same result to the last "
            "bit; needs the dask extra; no confusion matrix is printed). duckdb: DuckDB "
            "counts the table of PATH without loading its rows (the same result to the "
            "last bit; needs the duckdb extra; no --sample-weight).",
            metavar="ENGINE",
        ),
    ] = Engine.local,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="With --engine dask: the address of a running dask scheduler, e.g. "
            "tcp://10.0.0.1:8786, whose workers compute (they must be able to read PATH). "
            "Default: dask's threaded scheduler in this process, on every core.",
            show_default=False,
            metavar="ADDRESS",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Kappa of two rating columns, with its interval.

    Kappa, its standard error and confidence interval, the p-value of the test of no
    agreement, and the confusion matrix. With --engine dask, PATH may be larger than
    memory."""
    drop_missing = nan_policy_option(nan_policy, drop_missing) == "omit"
    if pred == truth:  # kappa of a column with itself is 1 and says nothing
        raise typer.BadParameter(
            f"column '{pred}' is given to both --truth and --pred; name two columns.",
            param_hint="--pred",
        )
    item_weights = item_weights.checked()
    sample_weight, counts = item_weights.sample_weight, item_weights.counts
    scale_given = labels_option(labels)
    reading = reading.checked()
    if engine is Engine.dask:
        _dask_options(file, reading, drop_missing)
        with guard():
            test, context = _engine.dask_kappa_test(
                file,
                truth=truth,
                pred=pred,
                weights=weights.value,
                labels=scale_given,
                sample_weight=sample_weight,
                counts=counts,
                scheduler=scheduler,
            )
            _engine_result(
                file, truth, pred, test, interval, as_json,
                engine=f"dask, {context['partitions']} partitions",
                terms={"sample_weight": sample_weight, "counts": counts},
                json={"sample_weight": sample_weight, "counts": counts, **context},
                note="(confusion matrix not computed with --engine dask)",
            )  # fmt: skip
        return
    if scheduler is not None:
        raise typer.BadParameter("applies only with --engine dask.", param_hint="--scheduler")
    if engine is Engine.duckdb:
        _duckdb_score(file, truth, pred, weights, scale_given, interval, item_weights, reading,
                      drop_missing, as_json)  # fmt: skip
        return
    with guard(), reading.open(file) as source:
        data = _columns.load(
            source,
            ratings=[truth, pred],
            labels=scale_given,
            weight=sample_weight,
            counts=counts,
            drop_missing=drop_missing,
            text_allowed=weights is Weights.identity,
            console=stderr_console(),
        )
        y1, y2 = data.columns[truth], data.columns[pred]
        with data.terms({"y1": truth, "y2": pred}, labels=data.labels):
            test = qwkit.kappa_test(
                y1, y2, weights=weights.value, labels=data.labels, **data.item_weights
            )
            low, high = interval.of(test)
            k = len(test.labels)
            confusion = None
            if k <= (MAX_JSON_LABELS if as_json else MAX_PRINTED_LABELS):
                confusion = qwkit.confusion_matrix(y1, y2, labels=test.labels, **data.item_weights)
        if as_json:
            _print_score_json(
                file, truth, pred, test, interval, (low, high), **rows_json(data, len(y1)),
                confusion=confusion,  # None (null) beyond MAX_JSON_LABELS labels
            )  # fmt: skip
            return
        print_score(
            test,
            (low, high),
            interval,
            title=f"{source.label}: '{truth}' vs '{pred}'",
            dropped=data.dropped,
            confusion=confusion,
            names=(truth, pred),
        )


def _duckdb_score(
    file, truth, pred, weights, labels, interval, item_weights, reading, drop_missing, as_json
) -> None:
    """``qwkit score --engine duckdb``: the test and the table counted by DuckDB."""
    _dask_options(file, reading, False, engine="duckdb")
    counts = item_weights.counts
    if item_weights.sample_weight is not None:
        raise typer.BadParameter(
            "--engine duckdb takes --counts, not survey weights (an engine's float sums are "
            "not exact); use --engine dask or the local engine.",
            param_hint="--sample-weight",
        )
    with guard():
        limit = MAX_JSON_LABELS if as_json else MAX_PRINTED_LABELS
        test, confusion, context = _engine.duckdb_kappa_test(
            file, truth=truth, pred=pred, weights=weights.value, labels=labels, counts=counts,
            drop_missing=drop_missing, max_labels=limit,
        )  # fmt: skip
        _engine_result(
            file, truth, pred, test, interval, as_json, engine="duckdb", terms={"counts": counts},
            json={"counts": counts, "confusion": confusion, **context}, confusion=confusion,
        )  # fmt: skip


def _engine_result(
    file, truth, pred, test, interval, as_json, *, engine, terms, json, confusion=None,
    note=None,
) -> None:  # fmt: skip
    """The end of ``qwkit score --engine dask`` or ``duckdb``: the interval of the test
    the engine counted, then its JSON (``json``: what follows the interval) or its table."""
    with in_file_terms(terms):
        bounds = interval.of(test)
    if as_json:
        _print_score_json(file, truth, pred, test, interval, bounds, **json)
        return
    print_score(
        test,
        bounds,
        interval,
        title=f"{file}: '{truth}' vs '{pred}' ({engine})",
        dropped=0,
        confusion=confusion,
        names=(truth, pred),
        note=note,
    )


def _print_score_json(file, truth, pred, test, interval, bounds, **more) -> None:
    """``qwkit score --json``: the columns, the test, its interval, then ``more`` (the
    rows read, the confusion matrix, the engine's context)."""
    head = {"file": file, "truth": truth, "pred": pred, **test.to_dict()}
    _display.print_json({**head, **interval.json(*bounds), **more})


def _dask_options(path: str, reading: Reading, drop_missing: bool, *, engine: str = "dask") -> None:
    """What --engine dask (or duckdb) cannot do: standard input, the reading options of
    the local reader."""
    if path == _io.STDIN:
        raise typer.BadParameter(
            f"--engine {engine} reads files (a path, a glob or a folder), not standard input.",
            param_hint="PATH",
        )
    for given, option in (
        (reading.sep, "--sep"),
        (reading.decimal != ".", "--decimal"),
        (reading.encoding != "utf-8", "--encoding"),
        (reading.sheet, "--sheet"),
        (drop_missing, "--nan-policy"),  # omit (or its alias --drop-missing)
    ):
        if given:
            raise typer.BadParameter(
                f"applies to the local engine only ({engine} reads Parquet, and CSV or TSV "
                "by their extension).",
                param_hint=option,
            )


def print_score(
    test, bounds, interval: Interval, *, title, dropped, confusion, names, note=None
) -> None:
    """The table of ``qwkit score``: kappa, its standard error, interval, p-value and
    items; the confusion matrix when it was computed."""
    console = _display.stdout_console()
    low, high = bounds
    ci, method = interval.ci, interval.method
    console.print(
        _display.stats_table(
            title,
            [
                (f"kappa ({test.weights} weights)", _display.number(test.statistic)),
                ("standard error", _display.number(test.standard_error)),
                (
                    f"{_plots.percent(ci)} CI ({method.value})",
                    f"[{_display.number(low)}, {_display.number(high)}]",
                ),
                ("p-value (H0: kappa = 0)", _display.pvalue(test.pvalue)),
                ("items", _display.items(test.n_items, dropped)),
            ],
        )
    )
    k = len(test.labels)
    if note is not None:
        console.print(note)
    elif confusion is not None:
        console.print(_display.confusion_table(confusion, test.labels, *names))
    elif k <= MAX_JSON_LABELS:
        console.print(f"({k}×{k} confusion matrix not shown; see --json)")
    else:
        console.print(
            f"(confusion matrix not shown: the scale has {k:,} labels; pass --labels "
            "with the ratings that occur to see it)"
        )


class Correction(str, Enum):
    holm = "holm"
    bonferroni = "bonferroni"
    fdr_by = "fdr_by"


#: How the tables name each correction's adjusted p-value.
_ADJUSTED = {"holm": "p (Holm)", "bonferroni": "p (Bonferroni)", "fdr_by": "p (B-Y)"}


@option_blocks
def compare(
    file: FileArg,
    truth: TruthOpt,
    pred: Annotated[
        list[str],
        typer.Option(
            "--pred",
            "-p",
            help="Column of a model's ratings, or of its real-valued scores (quadratic "
            "weights score them by kappa's continuous form); give it once per model, at "
            "least twice. With two models: their paired comparison; with more: every pair, "
            "with p-values adjusted for the number of pairs (--correction).",
            show_default=False,
            metavar="COLUMN",
        ),
    ],
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    correction: Annotated[
        Correction,
        typer.Option(
            help="With three or more models, how the p-values are adjusted for the number "
            "of pairs: holm (Holm's method, for the familywise error rate), bonferroni, "
            "or fdr_by (Benjamini and Yekutieli's, for the false discovery rate). Each "
            "holds whatever the dependence between the pairs.",
            metavar="METHOD",
        ),
    ] = Correction.holm,
    interval: Interval = Interval(),
    item_weights: ItemWeightColumns = ItemWeightColumns(),
    reading: Reading = Reading(),
    nan_policy: NanPolicyOpt = None,
    drop_missing: DropOpt = False,  # (deprecated alias)
    as_json: JsonOpt = False,
) -> None:
    """Paired comparison of models' kappas.

    The difference of two models' kappas against the same reference ratings, on the
    same items, with its standard error, confidence interval and p-value. With three or
    more models, every pair is compared so, and the p-values are adjusted for the
    number of pairs (the intervals are not). A model's column may hold real-valued
    scores: quadratic kappa scores them as they are (its continuous form, as soft
    kappa), with the same paired standard error."""
    drop_missing = nan_policy_option(nan_policy, drop_missing) == "omit"
    if len(pred) < 2:
        raise typer.BadParameter(
            f"give --pred at least twice (once per model); got {len(pred)}.",
            param_hint="--pred",
        )
    repeated = [c for i, c in enumerate(pred) if c in pred[:i]]
    if repeated:
        raise typer.BadParameter(
            f"each --pred column must differ; '{repeated[0]}' is given twice.",
            param_hint="--pred",
        )
    item_weights = item_weights.checked()
    scale_given = labels_option(labels)
    reading = reading.checked()
    with guard(), reading.open(file) as source:
        data = _columns.load(
            source,
            ratings=[truth, *pred],
            labels=scale_given,
            weight=item_weights.sample_weight,
            counts=item_weights.counts,
            drop_missing=drop_missing,
            text_allowed=weights is Weights.identity,
            console=stderr_console(),
        )
        if len(pred) > 2:
            _compare_many(file, source, data, truth, pred, weights, correction, interval, as_json)
            return
        y, a, b = (data.columns[c] for c in (truth, *pred))
        columns = {"y_true": truth, "y_pred_a": pred[0], "y_pred_b": pred[1]}
        with data.terms(columns, labels=data.labels):
            res = qwkit.compare_kappa_test(
                y, a, b, weights=weights.value, labels=data.labels, **data.item_weights
            )
            low, high = interval.of(res)
        if as_json:
            _display.print_json(
                {
                    "file": file,
                    "truth": truth,
                    "pred_a": pred[0],
                    "pred_b": pred[1],
                    **res.to_dict(),
                    **interval.json(low, high),
                    **rows_json(data, len(y)),
                }
            )
            return
        number, ci, method = _display.number, interval.ci, interval.method
        form = _form(res.weights, res.real_valued)
        _display.stdout_console().print(
            _display.stats_table(
                f"{source.label}: '{pred[0]}' (a) vs '{pred[1]}' (b) against '{truth}'",
                [
                    (f"kappa a ({form})", number(res.kappa_a)),
                    (f"kappa b ({form})", number(res.kappa_b)),
                    ("difference a − b", number(res.statistic)),
                    ("standard error (paired)", number(res.standard_error)),
                    (
                        f"{_plots.percent(ci)} CI ({method.value})",
                        f"[{number(low)}, {number(high)}]",
                    ),
                    ("p-value (H0: equal kappas)", _display.pvalue(res.pvalue)),
                    ("items", _display.items(res.n_items, data.dropped)),
                ],
            )
        )


def _form(weights: str, real_valued: bool) -> str:
    """How a table names the kappas: their weights, and the continuous form when a
    column held real-valued scores."""
    return f"{weights} weights" + (", continuous form" if real_valued else "")


def _compare_many(file, source, data, truth, pred, weights, correction, interval, as_json) -> None:
    """``qwkit compare`` with three or more models: every pair, p-values adjusted."""
    y = data.columns[truth]
    columns = {"y_true": truth, **{f"y_preds[{c!r}]": c for c in pred}}
    with data.terms(columns, labels=data.labels):
        res = qwkit.pairwise_compare_kappa_test(
            y,
            {c: data.columns[c] for c in pred},
            weights=weights.value,
            labels=data.labels,
            correction=correction.value,
            **data.item_weights,
        )
        bounds = [interval.of(one) for one in res.comparisons]
    ci, method = interval.ci, interval.method
    if as_json:
        out = res.to_dict()
        for entry, (low, high) in zip(out["comparisons"], bounds, strict=True):
            entry.update(ci_low=low, ci_high=high)
        _display.print_json(
            {
                "file": file,
                "truth": truth,
                "preds": list(pred),
                **out,
                "confidence_level": ci,
                "method": method.value,
                **rows_json(data, len(y)),
            }
        )
        return
    number = _display.number
    console = _display.stdout_console()
    kappas = Table(title=f"{source.label}: {len(pred)} models against '{truth}'")
    kappas.add_column("model")
    real = any(one.real_valued for one in res.comparisons)
    kappas.add_column(f"kappa ({_form(res.weights, real)})", justify="right")
    for model, kappa in zip(res.models, res.kappas, strict=True):
        kappas.add_row(f"'{model}'", number(kappa))
    console.print(kappas)
    pairs = Table(title=f"Paired differences of kappas ({len(res.pairs)} pairs, same items)")
    pairs.add_column("a − b")
    for name in ("Δ kappa", "SE", f"{_plots.percent(ci)} CI", "p", _ADJUSTED[correction.value]):
        pairs.add_column(name, justify="right", no_wrap=True)
    for (a, b), one, (low, high), adjusted in zip(
        res.pairs, res.comparisons, bounds, res.pvalue_adjusted, strict=True
    ):
        pairs.add_row(
            f"'{a}' − '{b}'",
            number(one.statistic),
            number(one.standard_error),
            f"[{number(low)}, {number(high)}]",
            _display.pvalue(one.pvalue),
            _display.pvalue(adjusted),
        )
    console.print(pairs)
    console.print(
        f"items: {_display.items(res.n_items, data.dropped)}; Δ kappa: kappa a − kappa b; "
        f"SE: its paired standard error; CI ({method.value}) and p: each pair alone; "
        f"{_ADJUSTED[correction.value]}: adjusted for the {len(res.pairs)} pairs."
    )
