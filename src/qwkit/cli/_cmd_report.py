"""``qwkit report``: one self-contained HTML report of the agreement of two columns."""

from __future__ import annotations

from typing import Annotated

import typer

from qwkit.cli import _columns, _display, _io, _output, _report, _spec
from qwkit.cli._errors import captured_warnings, guard, stderr_console, warning_texts
from qwkit.cli._optimism import Optimism, OptimismOpt, OptimismResamplesOpt
from qwkit.cli._options import (
    PRED_HELP,
    DropOpt,
    FileArg,
    ForceOpt,
    Interval,
    ItemWeightColumns,
    LabelsOpt,
    Method,
    NanPolicyOpt,
    Reading,
    TitleOpt,
    TruthOpt,
    Weights,
    WeightsOpt,
    labels_option,
    nan_policy_option,
    option_blocks,
)

__all__ = ["report"]


@option_blocks
def report(
    file: FileArg,
    truth: TruthOpt,
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            help="The HTML file to write ('-': standard output). An existing file is "
            "replaced only if it is a qwkit report, or with --force.",
            show_default=False,
            metavar="FILE",
        ),
    ],
    pred: Annotated[
        str | None,
        typer.Option("--pred", "-p", help=PRED_HELP, show_default=False, metavar="COLUMN"),
    ] = None,
    score_col: Annotated[
        str | None,
        typer.Option(
            "--score",
            "-s",
            help="Column of real-valued scores instead of --pred: they are rounded with "
            "kappa-optimal cut points (fitted here, or from --thresholds).",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    thresholds: Annotated[
        str | None,
        typer.Option(
            "--thresholds",
            help="Cut points from `qwkit thresholds fit` (with --score); their labels are "
            "the scale unless --labels is given.",
            show_default=False,
            metavar="FILE",
        ),
    ] = None,
    truth_role: Annotated[
        str | None,
        typer.Option(
            help="What the report calls the --truth ratings, e.g. 'expert', 'rater A' or "
            "'true grade'. Default: the column's name.",
            show_default=False,
            metavar="TEXT",
        ),
    ] = None,
    pred_role: Annotated[
        str | None,
        typer.Option(
            help="What the report calls the --pred ratings (or the classes of --score), "
            "e.g. 'model' or 'rater B'. Default: the column's name.",
            show_default=False,
            metavar="TEXT",
        ),
    ] = None,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    interval: Interval = Interval(method=Method.bootstrap),
    item_weights: ItemWeightColumns = ItemWeightColumns(),
    optimism_method: OptimismOpt = Optimism.cv,
    optimism_resamples: OptimismResamplesOpt = 200,
    reading: Reading = Reading(),
    nan_policy: NanPolicyOpt = None,
    drop_missing: DropOpt = False,  # (deprecated alias)
    title: TitleOpt = None,
    force: ForceOpt = False,
) -> None:
    """HTML report of the agreement of two columns.

    One self-contained HTML file: kappa with its CI and bootstrap distribution, confusion
    heatmap, agreement class by class, and for scores the cut points (fitted here: with
    the kappa they will have on new data, --optimism). Warnings (e.g. an undefined
    kappa) are shown in the report as well as on stderr."""
    drop_missing = nan_policy_option(nan_policy, drop_missing) == "omit"
    if (pred is None) == (score_col is None):
        raise typer.BadParameter(
            "give exactly one of --pred and --score.", param_hint="--pred/--score"
        )
    if thresholds is not None and score_col is None:
        raise typer.BadParameter("--thresholds needs --score.", param_hint="--thresholds")
    if file == _io.STDIN and thresholds == _io.STDIN:
        raise typer.BadParameter(
            "FILE and --thresholds cannot both be standard input ('-').",
            param_hint="--thresholds",
        )
    item_weights = item_weights.checked()
    scale_given = labels_option(labels)
    reading = reading.checked()
    with guard():
        inputs = [_output.Input.of(file)]
        if thresholds is not None:
            inputs.append(_output.Input.of(thresholds, "thresholds file"))
        target = _output.plan(output, kind=_output.REPORT, inputs=inputs, force=force)
        cuts = scale_file = None
        if thresholds is not None:
            cuts, scale_file = _spec.read_thresholds(thresholds)
        # text labels of the cut points are the scale (numbers: the scale spans the data)
        scale = scale_given
        if scale is None and scale_file is not None and scale_file.dtype.kind == "U":
            scale = scale_file
        with reading.open(file) as source:
            data = _columns.load(
                source,
                ratings=[truth] + ([pred] if pred else []),
                scores=[score_col] if score_col else [],
                labels=scale,
                weight=item_weights.sample_weight,
                counts=item_weights.counts,
                drop_missing=drop_missing,
                labels_origin="--labels"
                if scale_given is not None
                else f"the labels of '{thresholds}'",
                text_allowed=(weights is Weights.identity) if score_col is None else None,
                console=stderr_console(),
            )
        columns = {"y1": truth, "y2": pred, "y_true": truth, "y_score": score_col}
        said = {"y2": f"the classes of '{score_col}'"} if score_col else {}
        with captured_warnings() as caught, data.terms(columns, labels=data.labels, said=said):
            page, summary = _report.file_report(
                file=file,
                source_name=source.name,
                truth=truth,
                pred=pred,
                score=score_col,
                data=data,
                cuts=cuts,
                cut_labels=scale_file,
                thresholds_path=thresholds,
                weights=weights.value,
                confidence_level=interval.ci,
                method=interval.method.value,
                n_resamples=interval.n_resamples,
                seed=interval.seed,
                title=title,
                truth_role=truth_role,
                pred_role=pred_role,
                optimism=None
                if score_col is None or thresholds is not None
                else (optimism_method, optimism_resamples),
            )
        page.add_warnings(warning_texts(caught))
        _output.write_text(target, page.render())
        console = _display.stdout_console(to_stderr=target.is_stdout)
        where = "standard output" if target.is_stdout else output
        console.print(f"{summary}\nwrote {where}")
