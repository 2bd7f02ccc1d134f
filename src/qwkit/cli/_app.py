"""The typer application: one function per command, each thin over the public API."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from qwkit.cli import _demo

app = typer.Typer(
    name="qwkit",
    help="Quadratic weighted kappa: exact, fast, with inference and optimization.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Quadratic weighted kappa: exact, fast, with inference and optimization."""


@app.command()
def demo(
    seed: Annotated[int, typer.Option(help="Seed of the train/test split.")] = 20261121,
    test_size: Annotated[
        float, typer.Option(help="Fraction of the wines held out for scoring.", min=0.05, max=0.95)
    ] = 0.3,
) -> None:
    """Score a model of the bundled red wine quality data with QWK."""
    console = Console()
    result = _demo.run(seed=seed, test_size=test_size)
    _demo.render(result, console)
