"""``qwkit calibrate fit``, ``apply`` and ``estimate``: an LLM judge's scores on the human
scale (docs/calibration.md).

The file holds one row per item: human rating columns (``--human``; an empty cell is an
item that rater did not rate, and a row with no human rating at all is an *unlabelled*
item) and the judge's score (``--judge``, a real number on any scale; probabilities of
score tokens are summed into the expected score before). ``fit`` is
``qwkit.calibrate_judge`` on the labelled rows and writes the mapping as JSON (which
``qwkit thresholds apply --thresholds`` reads too); ``apply`` adds the judge's class on the
human scale to a file; ``estimate`` is ``qwkit.human_scale_estimate``: the mean human
rating (or each category's share) of the unlabelled rows, per ``--group``, by PPI++.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated

import numpy as np
import typer

import qwkit
from qwkit.cli import _cmd_thresholds, _columns, _display, _io, _output, _spec
from qwkit.cli._errors import CliError, guard, in_file_terms, stderr_console
from qwkit.cli._options import (
    CiOpt,
    FileArg,
    ForceOpt,
    JsonOpt,
    LabelsOpt,
    Reading,
    Weights,
    WeightsOpt,
    check_one_stdout,
    column_list,
    labels_option,
    option_blocks,
)

__all__ = ["calibrate_apply", "calibrate_estimate", "calibrate_fit"]


class Method(str, Enum):
    thresholds = "thresholds"
    isotonic = "isotonic"


class Calibration(str, Enum):
    none = "none"
    thresholds = "thresholds"
    isotonic = "isotonic"


class Statistic(str, Enum):
    mean = "mean"
    proportions = "proportions"


HumanOpt = Annotated[
    list[str],
    typer.Option(
        help="The human rating columns, comma-separated (e.g. h1,h2,h3). An empty cell is an "
        "item that rater did not rate; a row with no human rating is an unlabelled item.",
        show_default=False,
        metavar="COLUMNS",
    ),
]
JudgeOpt = Annotated[
    str,
    typer.Option(
        help="Column of the judge's scores (real numbers on any scale; larger is better).",
        show_default=False,
        metavar="COLUMN",
    ),
]
SplitsOpt = Annotated[
    int, typer.Option("--splits", help="Folds of cross-fitting.", min=2, metavar="K")
]
SeedOpt = Annotated[
    int, typer.Option(help="Seed of the cross-fitting folds.", min=0, metavar="SEED")
]


def _load(file, humans, judge, group, scale_given, reading: Reading):
    """The human ratings (items × raters, NaN where not rated), the judge's scores, the
    groups and the scale; ``rated``: the rows with at least one human rating."""
    if judge in humans or (group is not None and group in (*humans, judge)):
        raise typer.BadParameter("a column is given twice (--human, --judge, --group).")
    with reading.open(file) as source:
        data = _columns.load_scored(
            source,
            human=humans,
            machine=[judge],
            group=group,
            labels=scale_given,
            omit_unscored=False,
            text_allowed=False,
            console=stderr_console(),
        )
    matrix = np.column_stack([data.human[h] for h in humans])
    rated = ~_columns.empty_cells(matrix).all(axis=1)
    return data, matrix, data.machine[judge].astype(np.float64), rated, source.label


def _print_tables(tables, console) -> None:
    for table in tables:
        console.print(_display.rich_table(table))
        for note in table.notes:
            console.print(note, style="dim")
        console.print()


@option_blocks
def calibrate_fit(
    file: FileArg,
    human: HumanOpt,
    judge: JudgeOpt,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the mapping to this JSON file ('-': standard output); `qwkit "
            "calibrate apply` and `qwkit thresholds apply` read it. An existing file is "
            "replaced only if qwkit wrote it, or with --force.",
            show_default=False,
            metavar="FILE",
        ),
    ] = None,
    method: Annotated[
        Method,
        typer.Option(
            "--calibration", help="Exact kappa-optimal cut points, or isotonic regression."
        ),
    ] = Method.thresholds,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    resamples: Annotated[
        int,
        typer.Option(
            "--optimism-resamples",
            help="Refits of cross-fitting (a multiple of --splits): the kappa of the "
            "mapping on new items.",
            min=1,
            metavar="N",
        ),
    ] = 200,
    splits: SplitsOpt = 10,
    ci: CiOpt = 0.95,
    seed: SeedOpt = 20261121,
    reading: Reading = Reading(),
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Map a judge's scores onto the human scale.

    The exact kappa-optimal cut points of the judge's score against every human rating of
    the rows that have one (or isotonic regression), its in-sample kappa, the
    cross-fitted optimism-corrected kappa it will have on new items with its interval, and
    the raw judge rounded to the nearest label beside them."""
    humans = column_list(human, "--human", at_least=1, example="h1,h2,h3")
    scale_given = labels_option(labels)
    reading = reading.checked()
    check_one_stdout(output, as_json, "-o")
    with guard():
        target = _output.plan_given(output, kind=_output.THRESHOLDS, file=file, force=force)
        data, matrix, scores, rated, _ = _load(file, humans, judge, None, scale_given, reading)
        if not rated.any():
            raise CliError(f"no row has a human rating in {', '.join(humans)}.")
        rows = np.flatnonzero(rated)
        with in_file_terms(
            {"judge": judge}, rows, labels=data.labels_origin, said={"human": "--human"}
        ):
            cal = qwkit.calibrate_judge(
                matrix[rated],
                scores[rated],
                weights=weights.value,
                labels=data.labels,
                method=method.value,
                n_resamples=resamples,
                n_splits=splits,
                rng=seed,
            )
        spec = {
            **json.loads(cal.to_json()),
            "human": humans,
            "judge": judge,
            "rows_unlabelled": int((~rated).sum()),
            "seed": seed,
            "qwkit": qwkit.__version__,
        }
        if target is not None:
            _output.write_text(target, json.dumps(spec, indent=2) + "\n")
        if as_json:
            _display.print_json(spec)
            return
        console = _display.stdout_console(to_stderr=target is not None and target.is_stdout)
        _print_tables(cal.tables(ci), console)
        if (~rated).any():
            console.print(f"{int((~rated).sum()):,} rows without a human rating left out.")
        if target is not None and not target.is_stdout:
            console.print(f"wrote {output}")


@option_blocks
def calibrate_apply(
    file: FileArg,
    judge: JudgeOpt,
    mapping: Annotated[
        str,
        typer.Option(
            "--mapping",
            help="JSON file written by `qwkit calibrate fit` ('-': standard input).",
            show_default=False,
            metavar="FILE",
        ),
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            help="Output file: the input with a new column (.csv, .tsv or .parquet; '-' "
            "is standard output). An existing file is replaced only with --force.",
            show_default=False,
            metavar="FILE",
        ),
    ],
    column: Annotated[
        str | None,
        typer.Option(
            help="Name of the new column. Default: '<judge>_human'.",
            show_default=False,
            metavar="NAME",
        ),
    ] = None,
    reading: Reading = Reading(),
    force: ForceOpt = False,
) -> None:
    """Put a judge's scores on the human scale.

    With a mapping fitted by `qwkit calibrate fit`, writes the file back with a new
    column: the human-scale class of each row's judge score (a row without a score is an
    error)."""
    reading = reading.checked()
    if file == _io.STDIN and mapping == _io.STDIN:
        raise typer.BadParameter(
            "FILE and --mapping cannot both be standard input ('-').", param_hint="--mapping"
        )
    with guard():
        inputs = [_output.Input.of(file), _output.Input.of(mapping, "mapping file")]
        target = _output.plan(output, kind=_output.TABLE, inputs=inputs, force=force)
        cuts, scale = _spec.read_thresholds(mapping)
        with reading.open(file) as source:
            _cmd_thresholds._apply(
                source, target, cuts, scale, judge, column or f"{judge}_human", reading.sep, False
            )


@option_blocks
def calibrate_estimate(
    file: FileArg,
    human: HumanOpt,
    judge: JudgeOpt,
    group: Annotated[
        str | None,
        typer.Option(
            help="Column of groups (e.g. the system that wrote each output): an estimate "
            "per group, every pair compared (Holm) and the groups ranked.",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    statistic: Annotated[
        Statistic,
        typer.Option("--quantity", help="The mean human rating, or the share of each category."),
    ] = Statistic.mean,
    calibration: Annotated[
        Calibration,
        typer.Option(
            help="The judge as it is (none), or its cross-fitted calibrated classes "
            "(needed for category shares of a judge not on the human scale)."
        ),
    ] = Calibration.none,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    splits: SplitsOpt = 10,
    ci: CiOpt = 0.95,
    seed: SeedOpt = 20261121,
    reading: Reading = Reading(),
    as_json: JsonOpt = False,
) -> None:
    """Human-scale means and shares, by PPI++.

    The mean human rating (or each category's share) of the rows without a human rating.
    The rows with a human rating are the labelled slice; the others are estimated from the
    judge's scores, corrected by its errors on the labelled slice (prediction-powered
    inference, power-tuned): intervals valid however biased the judge, never wider than
    the humans-only ones printed beside them."""
    humans = column_list(human, "--human", at_least=1, example="h1,h2,h3")
    scale_given = labels_option(labels)
    reading = reading.checked()
    with guard():
        data, matrix, scores, rated, _ = _load(file, humans, judge, group, scale_given, reading)
        if not rated.any():
            raise CliError(f"no row has a human rating in {', '.join(humans)}.")
        if rated.all():
            raise CliError(
                f"every row has a human rating in {', '.join(humans)}: there is nothing to "
                "estimate (the unlabelled items are the rows without one)."
            )
        g = data.groups
        terms = {"judge_labelled": judge, "groups": group, "groups_unlabelled": group}
        with in_file_terms(
            terms,
            np.flatnonzero(rated),
            labels=data.labels_origin,
            said={"human_labelled": "--human"},
        ):
            res = qwkit.human_scale_estimate(
                matrix[rated],
                scores[rated],
                scores[~rated],
                weights=weights.value,
                labels=data.labels,
                groups=None if g is None else g[rated],
                groups_unlabelled=None if g is None else g[~rated],
                statistic=statistic.value,
                calibration=None if calibration is Calibration.none else calibration.value,
                confidence_level=ci,
                n_splits=splits,
                rng=seed,
            )
        if as_json:
            _display.print_json(
                {"file": file, "human": humans, "judge": judge, "group": group, **res.to_dict()}
            )
            return
        _print_tables(res.tables(), _display.stdout_console())
