"""``qwkit thresholds fit`` and ``qwkit thresholds apply``: kappa-optimal cut points of
real-valued scores, written to a JSON file, and applied to new scores."""

from __future__ import annotations

import json
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

import qwkit
from qwkit.cli import _columns, _display, _io, _output, _spec, _tables
from qwkit.cli._errors import CliError, guard, in_file_terms, stderr_console
from qwkit.cli._optimism import (
    OPTIMISM_MEANING,
    OPTIMISM_WORDS,
    Optimism,
    OptimismOpt,
    OptimismResamplesOpt,
    OptimismSeedOpt,
    optimism,
    optimism_json,
    optimism_text,
)
from qwkit.cli._options import (
    CiOpt,
    DropOpt,
    FileArg,
    ForceOpt,
    ItemWeightColumns,
    JsonOpt,
    LabelsOpt,
    NanPolicyOpt,
    Reading,
    TruthOpt,
    Weights,
    WeightsOpt,
    check_one_stdout,
    labels_option,
    nan_policy_option,
    option_blocks,
)

__all__ = ["thresholds_apply", "thresholds_fit"]

ScoreOpt = Annotated[
    str,
    typer.Option(
        "--score", "-s", help="Column of real-valued scores.", show_default=False, metavar="COLUMN"
    ),
]


@option_blocks
def thresholds_fit(
    file: FileArg,
    truth: TruthOpt,
    score_col: ScoreOpt,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the cut points to this JSON file ('-': standard output). An "
            "existing file is replaced only if it is a qwkit thresholds file, or with "
            "--force.",
            show_default=False,
            metavar="FILE",
        ),
    ] = None,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    optimism_method: OptimismOpt = Optimism.cv,
    optimism_resamples: OptimismResamplesOpt = 200,
    ci: CiOpt = 0.95,
    seed: OptimismSeedOpt = 20261121,
    item_weights: ItemWeightColumns = ItemWeightColumns(),
    reading: Reading = Reading(),
    nan_policy: NanPolicyOpt = None,
    drop_missing: DropOpt = False,  # (deprecated alias)
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Cut points of scores that maximize kappa.

    The cut points of the scores whose classes agree best (highest kappa) with the
    reference ratings: the exact global optimum, not a local search. Their kappa on
    these rows is optimistic; the optimism corrected kappa (--optimism) is what these
    cut points will score on new data, with its interval."""
    drop_missing = nan_policy_option(nan_policy, drop_missing) == "omit"
    item_weights = item_weights.checked()
    scale_given = labels_option(labels)
    reading = reading.checked()
    check_one_stdout(output, as_json, "-o")
    with guard():
        target = _output.plan_given(output, kind=_output.THRESHOLDS, file=file, force=force)
        with reading.open(file) as source:
            data = _columns.load(
                source,
                ratings=[truth],
                scores=[score_col],
                labels=scale_given,
                weight=item_weights.sample_weight,
                counts=item_weights.counts,
                drop_missing=drop_missing,
                console=stderr_console(),
            )
        y, s = data.columns[truth], data.columns[score_col]
        columns = {"y_true": truth, "y_score": score_col}
        with data.terms(columns, labels=data.labels):
            res = qwkit.optimize_thresholds(
                y, s, labels=data.labels, weights=weights.value, **data.item_weights
            )
        opt = optimism(
            y,
            s,
            data,
            data.terms(columns, labels=data.labels, said=OPTIMISM_WORDS),
            labels=data.labels,
            weights=weights.value,
            method=optimism_method,
            n_resamples=optimism_resamples,
            seed=seed,
        )
        spec = {
            **res.to_dict(),
            "thresholds": _spec.thresholds_json(res.thresholds),
            "labels": _display.plain(res.labels),  # always: the file needs its scale
            "weights": weights.value,
            "truth": truth,
            "score": score_col,
            "optimism_corrected": optimism_json(opt, ci),
            "n_items": data.n_items if opt is None else opt.n_items,
            "n_rows": len(y),
            "rows_dropped": data.dropped,
            "sample_weight": item_weights.sample_weight,
            "counts": item_weights.counts,
            "qwkit": qwkit.__version__,
        }
        if target is not None:
            _output.write_text(target, json.dumps(_display.plain(spec), indent=2) + "\n")
        if as_json:
            _display.print_json(spec)
            return
        console = _display.stdout_console(to_stderr=target is not None and target.is_stdout)
        table = Table(title=f"Kappa-optimal cut points of '{score_col}' for '{truth}'")
        table.add_column("class")
        table.add_column("scores", justify="right")
        for label, scores, _ in _display.class_ranges(res.thresholds, res.labels):
            table.add_row(label, scores)
        console.print(table)
        console.print(
            f"in-sample kappa ({weights.value} weights): {res.statistic:.4f}"
            + (f"; {_display.rows(data.dropped)} dropped" if data.dropped else "")
        )
        if len(res.empty_classes):
            console.print(
                _display.empty_classes_text(res.empty_classes, optimal=True), style="yellow"
            )
        if opt is not None:
            console.print(optimism_text(opt, ci))
            console.print(f"  = {OPTIMISM_MEANING}")
        if target is not None and not target.is_stdout:
            console.print(f"wrote {output}")


@option_blocks
def thresholds_apply(
    file: FileArg,
    score_col: ScoreOpt,
    thresholds: Annotated[
        str,
        typer.Option(
            "--thresholds",
            help="JSON file written by `qwkit thresholds fit` ('-': standard input).",
            show_default=False,
            metavar="FILE",
        ),
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            help="Output file: the input with a new column; .csv, .tsv or .parquet (.csv "
            "and .tsv may end in .gz, .bz2, .zst or .lz4); another extension needs --sep. "
            "'-' is standard output (text with the input's separator). An existing file is "
            "replaced only with --force (or a Parquet file qwkit wrote).",
            show_default=False,
            metavar="FILE",
        ),
    ],
    column: Annotated[
        str | None,
        typer.Option(
            help="Name of the new column. Default: '<score>_class'.",
            show_default=False,
            metavar="NAME",
        ),
    ] = None,
    reading: Reading = Reading(),
    nan_policy: NanPolicyOpt = None,
    drop_missing: Annotated[
        bool,
        typer.Option(
            "--drop-missing",
            help="Deprecated: the same as --nan-policy omit (drop rows whose score is missing).",
            show_default=False,
        ),
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Round scores to classes with fitted cut points.

    Writes the file back with a new column. A delimited text output is the input, byte
    for byte, with one more field on each line (comment lines above the header are
    kept); a Parquet output keeps the input's column types (a text input's are
    inferred)."""
    drop_missing = nan_policy_option(nan_policy, drop_missing) == "omit"
    reading = reading.checked()
    if file == _io.STDIN and thresholds == _io.STDIN:
        raise typer.BadParameter(
            "FILE and --thresholds cannot both be standard input ('-').",
            param_hint="--thresholds",
        )
    with guard():
        inputs = [_output.Input.of(file), _output.Input.of(thresholds, "thresholds file")]
        target = _output.plan(output, kind=_output.TABLE, inputs=inputs, force=force)
        cuts, scale = _spec.read_thresholds(thresholds)
        with reading.open(file) as source:
            _apply(source, target, cuts, scale, score_col, column, reading.sep, drop_missing)


def _apply(source, target, cuts, scale, score_col, column, sep, drop_missing) -> None:
    import pyarrow as pa

    names = _io.column_names(source)
    out = _tables.Output.of(target, sep=sep, source_sep=source.sep)
    if source.decimal != "." and out.kind == "csv":
        out = _tables.Output(out.target, out.kind, out.sep, out.compression, source.decimal)
    name = column or f"{score_col}_class"
    if name in names:
        raise CliError(
            f"column '{name}' already exists in {source.name}; choose another name with --column."
        )
    if target.unrecognized and (out.kind != "csv" or not _tables.written_from(source, out, name)):
        what = f"a table that qwkit wrote from {source.name} (with one more column, '{name}')"
        raise _output.not_replaced(target.shown, what)
    scores = _io.read_columns(source, [score_col], console=stderr_console())[score_col]
    n_rows = len(scores)
    keep = rows = None
    if drop_missing and scores.null_count:
        keep = ~_columns.missing_mask([scores])
        if not keep.any():
            raise CliError(f"every row of {source.name} has a missing value in '{score_col}'.")
        rows = np.flatnonzero(keep)
        scores = scores.filter(pa.array(keep))
    values = _columns.score_values(scores, score_col, rows=rows, decimal=source.decimal)
    with in_file_terms({"y_score": score_col}, rows):
        classes = qwkit.apply_thresholds(values, cuts, labels=scale)
    if source.kind == "csv" and out.kind == "csv":
        _tables.append_column(source, out, name, classes, keep=keep, n_rows=n_rows)
    else:
        table = _io.read_table(source)
        if keep is not None:
            table = table.filter(pa.array(keep))
        _tables.write_table(table.append_column(name, pa.array(classes)), out)
    distinct, counts = np.unique(classes, return_counts=True)
    if scale is not None:  # in the order of the scale, not sorted
        order = {_display.label_text(k): i for i, k in enumerate(scale)}
        ranked = sorted(
            zip(distinct, counts, strict=True), key=lambda kv: order[_display.label_text(kv[0])]
        )
    else:
        ranked = list(zip(distinct, counts, strict=True))
    dropped = n_rows - len(classes)
    where = "standard output" if target.is_stdout else target.shown
    stderr_console().print(
        f"wrote {where}: {_display.rows(len(classes))}, column '{name}' ("
        + ", ".join(f"{_display.label_text(k)}: {v:,}" for k, v in ranked)
        + ")"
        + (f"; {_display.rows(dropped)} with a missing score dropped" if rows is not None else "")
    )
