"""``qwkit plan``: how large must a study be? ``plan degradation`` (double-scored items
for the degradation test, ``qwkit.degradation_sample_size``) and ``plan alt-test``
(annotators × items per annotator for the Alternative Annotator Test,
``qwkit.alt_test_sample_size``), each from assumed values or from a pilot file. They write
no file; they print the plan or, with ``--json``, one JSON object on standard output."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Annotated, Any

import typer
from rich.table import Table

import qwkit
from qwkit.cli import _columns, _display, _io
from qwkit.cli._errors import guard, in_file_terms, stderr_console
from qwkit.cli._options import (
    FILE_HELP,
    Alignment,
    DecimalOpt,
    EncodingOpt,
    JsonOpt,
    LabelsOpt,
    MissingOpt,
    SepOpt,
    SheetOpt,
    Weights,
    WeightsOpt,
    column_list,
    decimal_option,
    encoding_option,
    labels_option,
    missing_option,
    sep_option,
)

__all__ = ["plan_alt_test", "plan_degradation"]


class Pairs(str, Enum):
    first = "first"
    all = "all"


PilotArg = Annotated[
    str | None,
    typer.Argument(
        help="A pilot data file (optional): " + FILE_HELP,
        show_default=False,
        metavar="FILE",
    ),
]


def _unit(value: float | None) -> float | None:
    """Strictly between 0 and 1 (a power, a level, a margin, a kappa difference)."""
    if value is not None and not 0.0 < value < 1.0:
        raise typer.BadParameter(f"must be strictly between 0 and 1; got {value:g}.")
    return value


def _probability(help_text: str):
    return typer.Option(help=help_text, callback=_unit, metavar="P")


PowerOpt = Annotated[
    float, _probability("The probability of a passing verdict to plan for (the power).")
]


def _no_file(file: str | None, options: Mapping[str, object]) -> None:
    """Assumed values and a pilot file are two sources: not both."""
    given = [name for name, value in options.items() if value is not None]
    if file is not None and given:
        raise typer.BadParameter(
            "is an assumption and FILE a pilot: give one of them, not both.",
            param_hint=given[0],
        )


def _pilot(file, human, others, option, *, labels, missing, sep, decimal, encoding, sheet, text):
    """The pilot's human columns and its one other column (``--machine`` or ``--judge``)."""
    humans = column_list(human, "--human", at_least=2, example="h1,h2,h3")
    if others is None:
        raise typer.BadParameter(f"give {option} COLUMN with a pilot file.", param_hint=option)
    if others in humans:
        raise typer.BadParameter(
            f"column '{others}' is given to both --human and {option}.", param_hint=option
        )
    scale_given = labels_option(labels)
    sep = sep_option(sep)
    decimal = decimal_option(decimal, sep)
    encoding = encoding_option(encoding)
    with _io.open_source(file, sep=sep, decimal=decimal, encoding=encoding, sheet=sheet) as source:
        return _columns.load_scored(
            source,
            human=humans,
            machine=[others],
            group=None,
            labels=scale_given,
            omit_unscored=False,
            text_allowed=text,
            missing=missing_option(missing),
            console=stderr_console(),
        )


def plan_degradation(
    file: PilotArg = None,
    human: Annotated[
        list[str] | None,
        typer.Option(
            help="With a pilot file: its human rating columns, separated by commas (the first "
            "two are the pair of the degradation test).",
            show_default=False,
            metavar="COLUMNS",
        ),
    ] = None,
    machine: Annotated[
        str | None,
        typer.Option(
            help="With a pilot file: its machine column (ratings or real-valued scores).",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    kappa_hh: Annotated[
        float | None,
        typer.Option(
            "--kappa-hh",
            help="Without a file: the kappa expected between two humans, in [0, 1).",
            show_default=False,
            metavar="KAPPA",
        ),
    ] = None,
    kappa_hm: Annotated[
        float | None,
        typer.Option(
            "--kappa-hm",
            help="Without a file: the kappa expected between a human and the machine, in [0, 1).",
            show_default=False,
            metavar="KAPPA",
        ),
    ] = None,
    expected_degradation: Annotated[
        float | None,
        typer.Option(
            help="With a pilot file: the degradation (machine-human minus human-human "
            "kappa) to plan for, instead of the pilot's own; the pilot gives its spread.",
            show_default=False,
            metavar="D",
        ),
    ] = None,
    margin: Annotated[
        float,
        _probability("Non-inferiority margin of the degradation test (a loss of kappa)."),
    ] = 0.10,
    power: PowerOpt = 0.80,
    alpha: Annotated[
        float,
        typer.Option(help="One-sided level of the test, below 0.5.", metavar="P"),
    ] = 0.025,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    pairs: Annotated[
        Pairs,
        typer.Option(
            help="With a pilot file: the human pairs of the degradation test, first (the "
            "first two --human columns) or all.",
            metavar="PAIRS",
        ),
    ] = Pairs.first,
    missing: MissingOpt = None,
    sep: SepOpt = None,
    decimal: DecimalOpt = ".",
    encoding: EncodingOpt = "utf-8",
    sheet: SheetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Double-scored items for the degradation test.

    How many items scored by two humans and the machine does the degradation test
    (evaluate's paired non-inferiority test of kappa) need to pass a machine as good as
    expected, with the stated power? From assumed kappas (--kappa-hh, --kappa-hm: a
    normal model of the scores) or from a pilot file (its spread, and its degradation or
    --expected-degradation). When the machine is expected to lose more than the margin,
    no number of items can pass it: the plan says so and why."""
    _no_file(file, {"--kappa-hh": kappa_hh, "--kappa-hm": kappa_hm})
    if file is None:
        for option, value in (("--human", human), ("--machine", machine)):
            if value is not None:
                raise typer.BadParameter("goes with a pilot FILE.", param_hint=option)
        if kappa_hh is None or kappa_hm is None:
            missing_one = "--kappa-hm" if kappa_hh is not None else "--kappa-hh"
            raise typer.BadParameter(
                "give --kappa-hh and --kappa-hm (assumed kappas), or a pilot FILE with "
                "--human and --machine.",
                param_hint=missing_one,
            )
    with guard():
        if file is None:
            with in_file_terms({}, said=_SAID):
                res = qwkit.degradation_sample_size(
                    kappa_hh,
                    kappa_hm,
                    expected_degradation=expected_degradation,
                    margin=margin,
                    power=power,
                    alpha=alpha,
                )
        else:
            data = _pilot(
                file, human, machine, "--machine", labels=labels, missing=missing, sep=sep,
                decimal=decimal, encoding=encoding, sheet=sheet,
                text=weights is Weights.identity,
            )  # fmt: skip
            with in_file_terms({}, labels=data.labels_origin, said=_SAID):
                res = qwkit.degradation_sample_size(
                    human=data.human,
                    machine=data.machine,
                    expected_degradation=expected_degradation,
                    margin=margin,
                    power=power,
                    alpha=alpha,
                    weights=weights.value,
                    labels=data.labels,
                    pairs=pairs.value,
                )
        if as_json:
            _display.print_json({"file": file, **res.to_dict()})
            return
        number = _display.number
        needed = str(res.n_items) if res.n_items is not None else "none"
        console = _display.stdout_console()
        console.print(
            _display.stats_table(
                "Double-scored items for the degradation test",
                [
                    ("double-scored items needed", needed),
                    ("expected degradation", number(res.expected_degradation)),
                    ("margin", number(-res.margin)),
                    ("per-item SD of the influence", number(res.standard_deviation)),
                    ("power", number(res.power)),
                    ("one-sided level", number(res.alpha)),
                    ("from", res.source if file is None else f"{res.source} ({file})"),
                ],
            )
        )
        if res.reason is not None:
            console.print(_said(res.reason))


#: The API's parameters as the command line names them.
_SAID = {
    "human_human": "--kappa-hh",
    "human_machine": "--kappa-hm",
    "human": "--human",
    "machine": "--machine",
    "judge": "--judge",
    "advantage": "--advantage",
    "ties": "--ties",
    "n_annotators": "--annotators",
    "epsilon": "--epsilon",
    "q": "--q",
    "power": "--power",
    "alpha": "--alpha",
    "expected_degradation": "--expected-degradation",
    "min_items_per_rater": "--min-items",
    "max_items_per_rater": "--max-items",
    "n_simulations": "--simulations",
    "correlation": "--correlation",
    "raters_per_item": "--raters-per-item",
}


def _said(text: str) -> str:
    """A result's explanation with the API's parameters said as the options."""
    for parameter, option in _SAID.items():
        text = text.replace(f"`{parameter}`", option)
    return text


def _numbers(text: str | None, option: str) -> list[float] | None:
    """``"0.6"`` or ``"0.6,0.7"`` → floats (a usage error otherwise)."""
    if text is None:
        return None
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise typer.BadParameter(
            f"expected a number or comma-separated numbers (one per annotator); got {text!r}.",
            param_hint=option,
        ) from None


def _counts(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise typer.BadParameter(
            f"expected comma-separated numbers of annotators such as 3,4,5; got {text!r}.",
            param_hint="--annotators",
        ) from None


def plan_alt_test(
    file: PilotArg = None,
    human: Annotated[
        list[str] | None,
        typer.Option(
            help="With a pilot file: its annotators' columns, separated by commas (an empty "
            "cell: not annotated).",
            show_default=False,
            metavar="COLUMNS",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="With a pilot file: the judge's column.", show_default=False, metavar="COLUMN"
        ),
    ] = None,
    advantage: Annotated[
        str | None,
        typer.Option(
            help="Without a file: the probability that the judge aligns at least as well as "
            "an annotator on an item: one value, or one per annotator separated by commas.",
            show_default=False,
            metavar="P",
        ),
    ] = None,
    ties: Annotated[
        str | None,
        typer.Option(
            help="Without a file: the probability that both align equally well (at most "
            "--advantage); 0 if not given.",
            show_default=False,
            metavar="P",
        ),
    ] = None,
    epsilon: Annotated[
        float,
        typer.Option(
            help="The test's margin: how much better than the judge an annotator may be "
            "(0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers).",
            metavar="X",
        ),
    ] = 0.2,
    q: Annotated[
        float, typer.Option("--q", help="False discovery rate over annotators.", metavar="Q")
    ] = 0.05,
    power: PowerOpt = 0.80,
    annotators: Annotated[
        str,
        typer.Option(
            help="The numbers of annotators to plan for, separated by commas.", metavar="M"
        ),
    ] = "3,4,5,6,8,10",
    correlation: Annotated[
        float | None,
        typer.Option(
            help="The correlation of two annotators' outcomes on an item both annotate "
            "(the judge's error on an item is every annotator's gain); from the pilot, or "
            "0.5 with assumed rates.",
            show_default=False,
            metavar="RHO",
        ),
    ] = None,
    raters_per_item: Annotated[
        float | None,
        typer.Option(
            help="Annotators per item in the planned study; every annotator annotates every "
            "item if not given (with a pilot file: as in the pilot).",
            show_default=False,
            metavar="R",
        ),
    ] = None,
    alignment: Annotated[
        Alignment,
        typer.Option(
            help="With a pilot file: how alignment with the remaining annotators is scored "
            "(accuracy, rmse, or kappa).",
            metavar="NAME",
        ),
    ] = Alignment.accuracy,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    min_items: Annotated[
        int,
        typer.Option(
            help="The least items per annotator considered (the test skips annotators with fewer).",
            min=2,
            metavar="N",
        ),
    ] = 30,
    max_items: Annotated[
        int, typer.Option(help="The most items per annotator considered.", min=2, metavar="N")
    ] = 10_000,
    simulations: Annotated[
        int, typer.Option(help="Simulated studies per power.", min=100, metavar="N")
    ] = 10_000,
    seed: Annotated[
        int, typer.Option(help="Seed of the simulations.", min=0, metavar="SEED")
    ] = 20261121,
    missing: MissingOpt = None,
    sep: SepOpt = None,
    decimal: DecimalOpt = ".",
    encoding: EncodingOpt = "utf-8",
    sheet: SheetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Annotators and items each for the alt-test.

    How many annotators, each annotating how many items, give the Alternative Annotator
    Test (may an LLM judge replace an annotator?) the stated power of passing a judge as
    good as assumed? From assumed per-item rates (--advantage, --ties) or from a pilot
    file (each annotator's rates as the test scores them), by simulating the test. The
    plan is the design with the fewest annotations that reaches the power."""
    rates = {"--advantage": advantage, "--ties": ties}
    _no_file(file, rates)
    if file is None:
        for option, value in (("--human", human), ("--judge", judge)):
            if value is not None:
                raise typer.BadParameter("goes with a pilot FILE.", param_hint=option)
        if advantage is None:
            raise typer.BadParameter(
                "give --advantage (assumed rates), or a pilot FILE with --human and --judge.",
                param_hint="--advantage",
            )
    shared: dict[str, Any] = {
        "epsilon": epsilon,
        "q": q,
        "power": power,
        "n_annotators": _counts(annotators),
        "correlation": correlation,
        "raters_per_item": raters_per_item,
        "min_items_per_rater": min_items,
        "max_items_per_rater": max_items,
        "n_simulations": simulations,
        "rng": seed,
    }
    with guard():
        if file is None:
            assumed: dict[str, Any] = {
                "advantage": _numbers(advantage, "--advantage"),
                "ties": _numbers(ties, "--ties") or 0.0,
            }
            with in_file_terms({}, said=_SAID, row_text=lambda i: f"value {i + 1}"):
                res = qwkit.alt_test_sample_size(**assumed, **shared)
        else:
            data = _pilot(
                file, human, judge, "--judge", labels=labels, missing=missing, sep=sep,
                decimal=decimal, encoding=encoding, sheet=sheet,
                text=alignment is not Alignment.kappa or weights is Weights.identity,
            )  # fmt: skip
            with in_file_terms({}, labels=data.labels_origin, said=_SAID):
                res = qwkit.alt_test_sample_size(
                    data.human,
                    data.machine[judge],
                    alignment=alignment.value,
                    weights=weights.value,
                    labels=data.labels,
                    **shared,
                )
        if as_json:
            _display.print_json({"file": file, **res.to_dict()})
            return
        _print_alt_plan(res, file)


def _print_alt_plan(res, file: str | None) -> None:
    console = _display.stdout_console()
    table = Table(title="Annotators and items for the alternative annotator test")
    for name in ("annotators", "items each", "annotations", "power"):
        table.add_column(name, justify="right")
    for m, n, p in zip(res.annotators, res.items_per_annotator, res.powers, strict=True):
        chosen = m == res.n_annotators
        mark = f"{m} (plan)" if chosen else str(m)
        shown = (str(n), str(m * n)) if n is not None else ("—", "—")
        table.add_row(mark, *shown, _display.number(p, 3))
    console.print(table)
    if res.n_annotators is None:
        console.print(f"No design reaches the power: {_said(res.reason)}.")
        return
    source = res.source if file is None else f"{res.source} ({file}, {res.alignment})"
    rates = "; ".join(
        f"{a:.3f} / {t:.3f} / {j:.3f}" + (f" (x{e:.2f})" if e != 1.0 else "")
        for (a, t, j), e in zip(res.rates, res.design_effects, strict=True)
    )
    console.print(
        f"Plan: {res.n_annotators} annotators x {res.n_items_per_annotator} items each "
        f"({res.n_annotators * res.n_items_per_annotator} annotations), simulated power "
        f"{res.simulated_power:.3f} (target {res.power:g}; epsilon {res.epsilon:g}, q "
        f"{res.q:g}; {res.n_simulations} simulated studies). From {source}; per-item rates "
        f"annotator better / tie / judge better: {rates}; correlation of two annotators on "
        f"an item {res.correlation:.3f}, annotators per item "
        f"{'all' if res.raters_per_item is None else f'{res.raters_per_item:g}'}."
    )
