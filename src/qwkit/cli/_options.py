"""Shared option and argument types of the ``qwkit`` commands (typer ``Annotated``)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from qwkit.cli import _io


class Weights(str, Enum):
    quadratic = "quadratic"
    linear = "linear"
    identity = "identity"


class Method(str, Enum):
    asymptotic = "asymptotic"
    bootstrap = "bootstrap"
    percentile = "percentile"
    jackknife = "jackknife"


#: Widest rating scale whose confusion matrix is printed as a table / put in the JSON.
MAX_PRINTED_LABELS = 30
MAX_JSON_LABELS = 10_000


def _labels_option(text: str | None):
    try:
        return _io.parse_labels(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--labels") from None


def _sep_option(text: str | None):
    if text is None:
        return None
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
    sep = named.get(text.lower(), text)
    if len(sep) != 1:
        raise typer.BadParameter(
            f"must be one character (or 'tab'); got {text!r}.", param_hint="--sep"
        )
    return sep


FileArg = Annotated[
    Path,
    typer.Argument(
        help="CSV, TSV or Parquet file (format from the extension, or --sep). Lines above "
        "the header that start with '#' are comments, unless '#' is followed by the separator.",
        show_default=False,
        metavar="FILE",
    ),
]
TruthOpt = Annotated[
    str, typer.Option("--truth", "-t", help="Column of the true ratings.", show_default=False)
]
WeightsOpt = Annotated[Weights, typer.Option(help="Disagreement weights.")]
LabelsOpt = Annotated[
    str | None,
    typer.Option(
        help="The ordered rating scale, comma-separated (e.g. 1,2,3,4 or low,mid,high). "
        "Default: every integer from the smallest to the largest rating.",
        show_default=False,
    ),
]
CiOpt = Annotated[
    float, typer.Option("--ci", help="Confidence level of the interval.", min=0.5, max=0.9999)
]
MethodOpt = Annotated[Method, typer.Option(help="How the confidence interval is computed.")]
ResamplesOpt = Annotated[int, typer.Option(help="Bootstrap resamples.", min=100)]
SeedOpt = Annotated[int, typer.Option(help="Seed of the bootstrap (0 or more).", min=0)]
SepOpt = Annotated[
    str | None,
    typer.Option(
        help="Column separator of a text file (one character, or 'tab'); overrides the extension.",
        show_default=False,
    ),
]
WeightColOpt = Annotated[
    str | None,
    typer.Option(
        "--sample-weight", help="Column of non-negative item weights.", show_default=False
    ),
]
DropOpt = Annotated[
    bool,
    typer.Option(
        help="Skip rows with a missing value in a used column (default: they are an error)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
