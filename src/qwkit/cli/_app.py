"""The typer application: the command groups, ``--version``, and the commands, each in
the module of its own (``_cmd_score``: score, compare, and their ``--engine dask``;
``_cmd_agreement``: agreement; ``_cmd_evaluate``: evaluate; ``_cmd_thresholds``:
thresholds fit, apply; ``_cmd_plan``: plan degradation, alt-test; ``_cmd_report``: report;
``_cmd_demo``: demo, economics).

Every command parses its options, reads its columns (``_io``), calls qwkit, prints
(``_display``) and writes its files (``_output``, which never destroys data: see its
docstring). Errors are handled by ``_errors.guard`` (one line on stderr, exit code 1) and
usage errors by ``_errors.QwkitGroup`` (one line, exit code 2). Help is plain text that
rewraps to the terminal without breaking words; ``-h`` is ``--help`` everywhere.
"""

from __future__ import annotations

import inspect
from typing import Annotated

import typer

import qwkit
from qwkit.cli import (
    _cmd_agreement,
    _cmd_demo,
    _cmd_evaluate,
    _cmd_plan,
    _cmd_report,
    _cmd_score,
    _cmd_thresholds,
)
from qwkit.cli._errors import QwkitCommand, QwkitGroup

__all__ = ["app"]

_CONTEXT = {"help_option_names": ["-h", "--help"]}

app = typer.Typer(
    name="qwkit",
    cls=QwkitGroup,
    help="Quadratic weighted kappa: exact, fast, with inference and optimization.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=_CONTEXT,
)
thresholds_app = typer.Typer(
    cls=QwkitGroup,
    help="Kappa-optimal cut points: fit them, apply them.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=_CONTEXT,
)
app.add_typer(thresholds_app, name="thresholds")
plan_app = typer.Typer(
    cls=QwkitGroup,
    help="Sample sizes: items and annotators. Double-scored items for the degradation "
    "test, annotators and items per annotator for the alternative annotator test.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=_CONTEXT,
)
app.add_typer(plan_app, name="plan")


def _unwrapped(command):
    """The command's docstring with each paragraph on one line: help text rewraps it
    to the terminal instead of breaking lines where the source does."""
    paragraphs = inspect.cleandoc(command.__doc__ or "").split("\n\n")
    command.__doc__ = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    return command


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"qwkit {qwkit.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print qwkit's version and exit.",
            callback=_show_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Quadratic weighted kappa: exact, fast, with inference and optimization."""


for _name, _function in (
    ("score", _cmd_score.score),
    ("compare", _cmd_score.compare),
    ("agreement", _cmd_agreement.agreement),
    ("evaluate", _cmd_evaluate.evaluate),
    ("report", _cmd_report.report),
    ("demo", _cmd_demo.demo),
    ("economics", _cmd_demo.economics),
):
    app.command(_name, cls=QwkitCommand)(_unwrapped(_function))
thresholds_app.command("fit", cls=QwkitCommand)(_unwrapped(_cmd_thresholds.thresholds_fit))
thresholds_app.command("apply", cls=QwkitCommand)(_unwrapped(_cmd_thresholds.thresholds_apply))
plan_app.command("degradation", cls=QwkitCommand)(_unwrapped(_cmd_plan.plan_degradation))
plan_app.command("alt-test", cls=QwkitCommand)(_unwrapped(_cmd_plan.plan_alt_test))
