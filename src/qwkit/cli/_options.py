"""Shared option and argument types of the ``qwkit`` commands (typer ``Annotated``), and
the blocks of options that several commands take together (:class:`Reading`,
:class:`ItemWeightColumns`, :class:`Interval`): each block is declared once, as a frozen
dataclass of options, and a command takes it as one parameter (:func:`option_blocks`).

Help texts are plain (no rich boxes) and every option has a short metavar, so that help
reads well in an 80-column terminal: words are never broken. The words themselves are
the glossary's (CONTRIBUTING.md, "One word per concept", the command line's table).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from enum import Enum
from typing import Annotated, Literal

import typer

from qwkit.cli import _columns, _io, _output, _progress, _text


class Alignment(str, Enum):
    """How the alternative annotator test scores an item's alignment with the remaining
    annotators (``qwkit.alt_test``'s ``alignment``)."""

    accuracy = "accuracy"
    rmse = "rmse"
    kappa = "kappa"


class Weights(str, Enum):
    """The names of ``WEIGHTS`` that every function takes (``_base._registry``), spelled
    for typer and type checkers (``tests/test_registry.py`` holds them to the records)."""

    quadratic = "quadratic"
    linear = "linear"
    identity = "identity"
    radical = "radical"
    circular = "circular"
    bipolar = "bipolar"


class NanPolicy(str, Enum):
    """``--nan-policy``: the library's ``nan_policy`` words (scipy's)."""

    propagate = "propagate"
    raise_ = "raise"
    omit = "omit"


class Method(str, Enum):
    asymptotic = "asymptotic"
    bootstrap = "bootstrap"
    percentile = "percentile"
    jackknife = "jackknife"


#: Widest rating scale whose confusion matrix is printed as a table / put in the JSON.
MAX_PRINTED_LABELS = 30
MAX_JSON_LABELS = 10_000


def labels_option(text: str | None):
    try:
        return _columns.parse_labels(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--labels") from None


def sep_option(text: str | None):
    if text is None:
        return None
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
    sep = named.get(text.lower(), text)
    if len(sep) != 1:
        raise typer.BadParameter(
            f"must be one character (or 'tab'); got {text!r}.", param_hint="--sep"
        )
    return sep


def decimal_option(text: str, sep: str | None) -> str:
    """``--decimal``: '.' or ','; never the column separator given with ``--sep``."""
    named = {"comma": ",", "point": ".", "dot": "."}
    mark = named.get(text.lower(), text)
    if mark not in (".", ","):
        raise typer.BadParameter(f"must be '.' or ','; got {text!r}.", param_hint="--decimal")
    if sep is not None and mark == sep:
        raise typer.BadParameter(
            f"'{mark}' is also the column separator (--sep); use another separator, "
            "e.g. --sep ';'.",
            param_hint="--decimal",
        )
    return mark


def encoding_option(text: str) -> str:
    """``--encoding``: a codec that keeps ASCII as it is (UTF-8, latin-1, cp1252, ...)."""
    try:
        return _text.check_encoding(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--encoding") from None


def folder_option(text: str, option: str) -> str:
    """An output folder: '-' (standard output) does not apply to it."""
    if text == _io.STDIN:
        raise typer.BadParameter(
            "is a folder; '-' (standard output) does not apply (a folder named '-' is ./-).",
            param_hint=option,
        )
    return text


FILE_HELP = (
    "Data file: CSV, TSV, Parquet or an Excel .xlsx workbook (the format from the "
    "extension, or --sep), text optionally compressed (.gz, .bz2, .zst, .lz4). A .csv "
    "file whose header is separated by ';' is read so, with decimal commas if its "
    "numbers have them. '-' is standard input: comma-separated text unless --sep says "
    "otherwise (Parquet, .xlsx and compressed text are recognized); a file named '-' "
    "is ./-. Lines above the header that start with '#' are comments, unless '#' is "
    "followed by the separator. A missing value is an empty cell, NA, NaN or null in "
    "text, a null or a NaN in Parquet."
)
FileArg = Annotated[
    str,
    typer.Argument(help=FILE_HELP, show_default=False, metavar="FILE"),
]
TruthOpt = Annotated[
    str,
    typer.Option(
        "--truth",
        "-t",
        help="Column of the reference ratings (the true ratings, or a first rater's).",
        show_default=False,
        metavar="COLUMN",
    ),
]
WeightsOpt = Annotated[
    Weights,
    typer.Option(
        help="Disagreement weights: quadratic, linear, identity (unweighted kappa), or "
        "Gwet's radical, circular and bipolar weights.",
        metavar="WEIGHTS",
    ),
]
LabelsOpt = Annotated[
    str | None,
    typer.Option(
        help="The ordered rating scale, comma-separated (e.g. 1,2,3,4 or low,mid,high). "
        "Default: the order of ordered categories (a Parquet categorical), else every "
        "integer from the smallest to the largest rating.",
        show_default=False,
        metavar="LABELS",
    ),
]
MissingOpt = Annotated[
    str | None,
    typer.Option(
        "--missing",
        help="Values that mean 'no rating', comma-separated (e.g. 99,-1,NA): read as missing "
        "(text as written, numbers by value), as an empty cell is.",
        show_default=False,
        metavar="CODES",
    ),
]


def missing_option(text: str | None) -> tuple[str, ...]:
    """``--missing``: the codes, blanks around each trimmed; an empty code is refused."""
    if text is None:
        return ()
    codes = tuple(code.strip() for code in text.split(","))
    if not all(codes):
        raise typer.BadParameter(
            f"give comma-separated codes (e.g. 99,-1); got {text!r}.", param_hint="--missing"
        )
    return codes


CiOpt = Annotated[
    float,
    typer.Option(
        "--ci",
        help="Confidence level of the interval.",
        min=0.5,
        max=0.9999,
        metavar="LEVEL",
    ),
]
MethodOpt = Annotated[
    Method,
    typer.Option(
        help="How the confidence interval is computed: asymptotic, bootstrap (BCa), "
        "percentile (bootstrap) or jackknife.",
        metavar="METHOD",
    ),
]
ResamplesOpt = Annotated[int, typer.Option(help="Bootstrap resamples.", min=100, metavar="N")]
SeedOpt = Annotated[int, typer.Option(help="Seed of the bootstrap.", min=0, metavar="SEED")]
SepOpt = Annotated[
    str | None,
    typer.Option(
        help="Column separator of a text file (one character, or 'tab'); overrides the extension.",
        show_default=False,
        metavar="CHAR",
    ),
]
DecimalOpt = Annotated[
    str,
    typer.Option(
        help="Decimal mark of the numbers in a text file: '.' or ',' (European files, "
        "which then need another separator, e.g. --sep ';').",
        metavar="CHAR",
    ),
]
EncodingOpt = Annotated[
    str,
    typer.Option(
        help="Encoding of a text file: utf-8 (a byte-order mark is allowed), or e.g. "
        "cp1252 (files exported on Windows) or latin-1.",
        metavar="NAME",
    ),
]
SheetOpt = Annotated[
    str | None,
    typer.Option(
        help="Worksheet of an .xlsx workbook, by name. Default: the first one.",
        show_default=False,
        metavar="NAME",
    ),
]
WeightColOpt = Annotated[
    str | None,
    typer.Option(
        "--sample-weight",
        help="Column of survey weights: each row is one sampled item with its weight "
        "(non-negative), and standard errors treat the rows as the sample. For a table "
        "of counts use --counts instead.",
        show_default=False,
        metavar="COLUMN",
    ),
]
CountsOpt = Annotated[
    str | None,
    typer.Option(
        "--counts",
        help="Column of counts: each row stands for that many identical items, as in a "
        "table in long format (one row per pair of ratings with its frequency, e.g. R's "
        "vision data). Standard errors are those of the items, n = the sum of the counts: "
        "exactly as if each row were repeated. Not with --sample-weight.",
        show_default=False,
        metavar="COLUMN",
    ),
]


def column_list(values: list[str] | None, option: str, *, at_least: int, example: str) -> list[str]:
    """``--raters a,b --raters c`` → ``[a, b, c]``: comma-separated column names, each
    once, at least ``at_least`` of them (usage errors otherwise)."""
    names = [name.strip() for value in values or () for name in value.split(",")]
    if any(not name for name in names):
        raise typer.BadParameter(
            f"expected comma-separated column names such as {example}.", param_hint=option
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise typer.BadParameter(f"'{repeated[0]}' is given twice.", param_hint=option)
    if len(names) < at_least:
        what = option.removeprefix("--").rstrip("s")
        number = {1: "one", 2: "two"}.get(at_least, str(at_least))
        raise typer.BadParameter(
            f"give at least {number} {what} column{'s' if at_least > 1 else ''}; got {len(names)}.",
            param_hint=option,
        )
    return names


def check_one_stdout(output: str | None, as_json: bool, option: str) -> None:
    """Refuse an output on standard output together with --json (both would print there)."""
    if as_json and _output.is_standard_output(output):
        raise typer.BadParameter(
            f"{option} - and --json both print to standard output; give one of them.",
            param_hint="--json",
        )


def item_weight_options(sample_weight: str | None, counts: str | None) -> None:
    """``--sample-weight`` and ``--counts`` exclude each other (a usage error)."""
    if sample_weight is not None and counts is not None:
        raise typer.BadParameter(
            "give one of --sample-weight (survey weights) and --counts (each row stands "
            "for that many items), not both.",
            param_hint="--counts",
        )


NanPolicyOpt = Annotated[
    NanPolicy | None,
    typer.Option(
        "--nan-policy",
        help="A missing rating in a used column: raise (an error; the default for columns "
        "of ratings and scores), omit (leave its row out; for the raters of a wide table "
        "the default, where an empty cell is 'not rated'), propagate (the statistic is "
        "nan: refused where the result is a test or an interval, which has no nan form). "
        "Values that are codes for 'not rated' are --missing.",
        show_default=False,
        metavar="POLICY",
    ),
]
DropOpt = Annotated[
    bool,
    typer.Option(
        "--drop-missing",
        help="Deprecated: the same as --nan-policy omit (skip rows with a missing value "
        "in a used column).",
        show_default=False,
    ),
]


def nan_policy_option(
    nan_policy: NanPolicy | None, drop_missing: bool = False, *, default: str = "raise"
) -> Literal["raise", "omit"]:
    """The ``nan_policy`` of ``--nan-policy`` and of its deprecated alias
    ``--drop-missing`` (``default`` when neither is given). Every command's result is a
    test, an interval or a table today, which the library gives no NaN form: propagate
    is refused here, as the library refuses it (docs/getting-started.md, "Missing
    values")."""
    policy = default if nan_policy is None else nan_policy.value
    if drop_missing:
        if policy != "omit" and nan_policy is not None:
            raise typer.BadParameter(
                f"is --nan-policy omit; it contradicts --nan-policy {policy}.",
                param_hint="--drop-missing",
            )
        policy = "omit"
    if policy == "propagate":
        raise typer.BadParameter(
            "propagate makes a single number nan; this command reports tests, intervals "
            "and tables, which have no nan form: use raise or omit.",
            param_hint="--nan-policy",
        )
    return "omit" if policy == "omit" else "raise"


JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace an existing output file that qwkit did not write (never an input, "
        "never a folder).",
        show_default=False,
    ),
]


def report_option(contents: str):
    """``--report FILE`` of a command that prints its result: an HTML report too, whose
    ``contents`` its help says."""
    return typer.Option(
        "--report",
        help=f"Also write an HTML report{contents} ('-': standard output). An existing "
        "file is replaced only if it is a qwkit report, or with --force.",
        show_default=False,
        metavar="FILE",
    )


TitleOpt = Annotated[
    str | None,
    typer.Option(help="Title of the report.", show_default=False, metavar="TEXT"),
]
PRED_HELP = "Column of the other ratings (a model's, or a second rater's)."


# ---------------------------------------------------------------------------- blocks


@dataclasses.dataclass(frozen=True)
class Reading:
    """``--sep``, ``--decimal``, ``--encoding``, ``--sheet``: how every command that reads
    a data file reads it. :meth:`checked` turns them into the reader's values (usage
    errors otherwise); :meth:`open` opens the file with them."""

    sep: SepOpt = None
    decimal: DecimalOpt = "."
    encoding: EncodingOpt = "utf-8"
    sheet: SheetOpt = None

    def checked(self) -> Reading:
        sep = sep_option(self.sep)
        return Reading(
            sep, decimal_option(self.decimal, sep), encoding_option(self.encoding), self.sheet
        )

    def open(self, file: str):
        """``_io.open_source`` of ``file`` with these options (a context manager)."""
        return _io.open_source(
            file, sep=self.sep, decimal=self.decimal, encoding=self.encoding, sheet=self.sheet
        )


@dataclasses.dataclass(frozen=True)
class ItemWeightColumns:
    """``--sample-weight`` and ``--counts``: the item weights of the commands of two
    raters' columns (one of them at most: :meth:`checked`)."""

    sample_weight: WeightColOpt = None
    counts: CountsOpt = None

    def checked(self) -> ItemWeightColumns:
        item_weight_options(self.sample_weight, self.counts)
        return self


@dataclasses.dataclass(frozen=True)
class Interval:
    """``--ci``, ``--method``, ``--n-resamples``, ``--seed``: the confidence interval of
    every command that gives one through ``result.confidence_interval`` (``evaluate``'s
    own, of ``qwkit.evaluate_scorer``, has its own methods and default resamples)."""

    ci: CiOpt = 0.95
    method: MethodOpt = Method.asymptotic
    n_resamples: ResamplesOpt = 9999
    seed: SeedOpt = 20261121

    def of(self, result) -> tuple[float, float]:
        """The interval of ``result`` (a bootstrap drives a progress bar)."""
        return _progress.confidence_interval(
            result, self.ci, self.method, self.n_resamples, self.seed
        )

    def json(self, low: float, high: float) -> dict:
        """The interval's part of ``--json``."""
        return {
            "confidence_level": self.ci,
            "method": self.method.value,
            "ci_low": low,
            "ci_high": high,
        }


#: The blocks a command may take as one parameter.
BLOCKS = (Reading, ItemWeightColumns, Interval)


def option_blocks(function):
    """Decorator of a command function: each parameter annotated with a block of
    :data:`BLOCKS` is, in the signature typer reads, the block's options in their order
    (their defaults the parameter's default block's, e.g. ``Interval(method=...)``), and
    the function receives the block built from them. The other parameters stay as they
    are: the command's help is the same as if it listed every option itself."""
    hints = typing.get_type_hints(function, include_extras=True)
    parameters, blocks = [], {}
    for p in inspect.signature(function).parameters.values():
        kind = hints.get(p.name, p.annotation)
        if kind not in BLOCKS:
            parameters.append(p.replace(annotation=kind, kind=p.KEYWORD_ONLY))
            continue
        given = kind() if p.default is p.empty else p.default
        fields = typing.get_type_hints(kind, include_extras=True)
        blocks[p.name] = kind
        parameters += [
            inspect.Parameter(
                f.name, p.KEYWORD_ONLY, default=getattr(given, f.name), annotation=fields[f.name]
            )
            for f in dataclasses.fields(kind)
        ]

    @functools.wraps(function)
    def command(**values):
        for name, kind in blocks.items():
            values[name] = kind(**{f.name: values.pop(f.name) for f in dataclasses.fields(kind)})
        return function(**values)

    command.__signature__ = inspect.Signature(parameters)
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    return command
