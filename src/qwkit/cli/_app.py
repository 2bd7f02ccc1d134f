"""The typer application: the command groups, ``--version``, and the commands, each in
the module of its own (``_cmd_score``: score, compare, and their ``--engine dask``;
``_cmd_agreement``: agreement; ``_cmd_evaluate``: evaluate; ``_cmd_judge``: judge;
``_cmd_thresholds``: thresholds fit, apply; ``_cmd_calibrate``: calibrate fit, apply,
estimate; ``_cmd_plan``: plan degradation, alt-test; ``_cmd_report``: report;
``_cmd_demo``: demo, economics).

Every command parses its options, reads its columns (``_io``), calls qwkit, prints
(``_display``) and writes its files (``_output``, which never destroys data: see its
docstring). Errors are handled by ``_errors.guard`` (one line on stderr, exit code 1) and
usage errors by ``_errors.QwkitGroup`` (one line, exit code 2). Help is plain text that
rewraps to the terminal without breaking words; ``-h`` is ``--help`` everywhere.

Commands load when they are called for. This module imports none of them: each is a
:class:`Lazy` entry of :data:`COMMANDS` (or of :data:`THRESHOLDS`, :data:`PLAN`), whose module is
imported when the command runs or shows its own help, and whose one-line help is what
``qwkit --help`` lists. So ``qwkit --help`` and ``qwkit --version`` load typer and
nothing of qwkit's computations (no numpy, scipy or numba). A new command is a function
in a ``_cmd_*`` module and one entry here (CONTRIBUTING.md, "Start-up").
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import import_module
from typing import Annotated, ClassVar

import typer
from typer.core import TyperCommand

import qwkit
from qwkit.cli._errors import QwkitCommand, QwkitGroup

__all__ = ["CALIBRATE", "COMMANDS", "PLAN", "THRESHOLDS", "Lazy", "LazyGroup", "app"]

_CONTEXT = {"help_option_names": ["-h", "--help"]}


def _unwrapped(command):
    """The command's docstring with each paragraph on one line: help text rewraps it
    to the terminal instead of breaking lines where the source does."""
    paragraphs = inspect.cleandoc(command.__doc__ or "").split("\n\n")
    command.__doc__ = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    return command


@dataclass(frozen=True)
class Lazy:
    """A command that is imported when it runs or shows its own help.

    ``module`` and ``function`` say where the typer command function lives;
    ``summary`` is the first sentence of its docstring, which a group's help lists
    (a test holds the two to the same words).
    """

    module: str
    function: str
    summary: str

    def load(self, name: str):
        """The click command, built by typer from the function's signature."""
        function = getattr(import_module(self.module), self.function)
        single = typer.Typer(add_completion=False, rich_markup_mode=None)
        single.command(name, cls=QwkitCommand)(_unwrapped(function))
        return typer.main.get_command(single)

    def listed(self, name: str) -> TyperCommand:
        """What a group's help shows of the command: its name and summary."""
        return TyperCommand(name, help=self.summary, rich_markup_mode=None)


class LazyGroup(QwkitGroup):
    """A group whose commands (:attr:`lazy`) are imported when one is called for: its
    help lists their summaries without importing any."""

    lazy: ClassVar[dict[str, Lazy]] = {}
    _listing = False

    def list_commands(self, ctx) -> list[str]:
        loaded = super().list_commands(ctx)
        return [*self.lazy, *(name for name in loaded if name not in self.lazy)]

    def get_command(self, ctx, cmd_name: str):
        entry = self.lazy.get(cmd_name)
        if entry is not None and cmd_name not in self.commands:
            if self._listing:
                return entry.listed(cmd_name)
            self.commands[cmd_name] = entry.load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx, formatter) -> None:
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False

    def resolve_command(self, ctx, args):
        if args and args[0] not in self.lazy and args[0] not in self.commands:
            # An unknown name: typer suggests the close ones among self.commands, which
            # must then hold every name (the listing only: the command line stops here).
            for name, entry in self.lazy.items():
                self.commands.setdefault(name, entry.listed(name))
        return super().resolve_command(ctx, args)


#: The commands of ``qwkit``, in the order its help lists them.
COMMANDS = {
    "score": Lazy(
        "qwkit.cli._cmd_score", "score", "Kappa of two rating columns, with its interval."
    ),
    "compare": Lazy("qwkit.cli._cmd_score", "compare", "Paired comparison of models' kappas."),
    "agreement": Lazy(
        "qwkit.cli._cmd_agreement",
        "agreement",
        "Agreement among many raters, with missing ratings.",
    ),
    "evaluate": Lazy(
        "qwkit.cli._cmd_evaluate", "evaluate", "May a machine stand in for a human rater?"
    ),
    "judge": Lazy("qwkit.cli._cmd_judge", "judge", "Is an LLM judge reliable?"),
    "report": Lazy(
        "qwkit.cli._cmd_report", "report", "HTML report of the agreement of two columns."
    ),
    "demo": Lazy("qwkit.cli._cmd_demo", "demo", "The main jobs on bundled data, with a report."),
    "economics": Lazy(
        "qwkit.cli._cmd_demo", "economics", "Kappa versus profit: Steele's (2016) simulation."
    ),
}
#: The commands of ``qwkit plan``.
PLAN = {
    "degradation": Lazy(
        "qwkit.cli._cmd_plan",
        "plan_degradation",
        "Double-scored items for the degradation test.",
    ),
    "alt-test": Lazy(
        "qwkit.cli._cmd_plan",
        "plan_alt_test",
        "Annotators and items each for the alt-test.",
    ),
}
#: The commands of ``qwkit thresholds``.
THRESHOLDS = {
    "fit": Lazy(
        "qwkit.cli._cmd_thresholds", "thresholds_fit", "Cut points of scores that maximize kappa."
    ),
    "apply": Lazy(
        "qwkit.cli._cmd_thresholds",
        "thresholds_apply",
        "Round scores to classes with fitted cut points.",
    ),
}

#: The commands of ``qwkit calibrate``.
CALIBRATE = {
    "fit": Lazy(
        "qwkit.cli._cmd_calibrate",
        "calibrate_fit",
        "Map a judge's scores onto the human scale.",
    ),
    "apply": Lazy(
        "qwkit.cli._cmd_calibrate",
        "calibrate_apply",
        "Put a judge's scores on the human scale.",
    ),
    "estimate": Lazy(
        "qwkit.cli._cmd_calibrate",
        "calibrate_estimate",
        "Human-scale means and shares, by PPI++.",
    ),
}


class _Root(LazyGroup):
    lazy = COMMANDS


class _Thresholds(LazyGroup):
    lazy = THRESHOLDS


class _Calibrate(LazyGroup):
    lazy = CALIBRATE


class _Plan(LazyGroup):
    lazy = PLAN


app = typer.Typer(
    name="qwkit",
    cls=_Root,
    help="Quadratic weighted kappa: exact, fast, with inference and optimization.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=_CONTEXT,
)
thresholds_app = typer.Typer(
    cls=_Thresholds,
    help="Kappa-optimal cut points: fit them, apply them.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=_CONTEXT,
)
app.add_typer(thresholds_app, name="thresholds")
calibrate_app = typer.Typer(
    cls=_Calibrate,
    help="An LLM judge on the human scale: fit, apply, estimate.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=_CONTEXT,
)
app.add_typer(calibrate_app, name="calibrate")
plan_app = typer.Typer(
    cls=_Plan,
    help="Sample sizes: items and annotators. Double-scored items for the degradation "
    "test, annotators and items per annotator for the alternative annotator test.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=_CONTEXT,
)
app.add_typer(plan_app, name="plan")


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
