"""``qwkit demo``: the main job on the bundled red wine quality data."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table

import qwkit


@dataclass(frozen=True, slots=True, eq=False)
class DemoResult:
    """What the demo computed: the held-out QWK of each model and its confusion matrix."""

    n_train: int
    n_test: int
    labels: np.ndarray
    rows: tuple[tuple[str, float], ...]
    confusion: np.ndarray
    citation: str


def _least_squares(x_train, y_train, x_test):
    design = np.column_stack([np.ones(len(x_train)), x_train])
    coef, *_ = np.linalg.lstsq(design, y_train, rcond=None)
    return np.column_stack([np.ones(len(x_test)), x_test]) @ coef


def run(*, seed: int = 20261121, test_size: float = 0.3) -> DemoResult:
    """Split the red wines, fit least squares on the train part, score the rest."""
    wine = qwkit.load_wine_quality("red")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(wine.y))
    n_test = round(test_size * len(order))
    test, train = order[:n_test], order[n_test:]
    labels = np.arange(wine.y[train].min(), wine.y[train].max() + 1)
    score = _least_squares(wine.X[train], wine.y[train], wine.X[test])
    rounded = np.clip(np.rint(score), labels[0], labels[-1]).astype(np.int64)
    y_test = wine.y[test]
    rows = (
        ("least squares, continuous (soft QWK)", qwkit.soft_kappa_score(y_test, score)),
        ("least squares, rounded", qwkit.kappa_score(y_test, rounded, labels=labels)),
        ("least squares, rounded (linear weights)",
         qwkit.kappa_score(y_test, rounded, labels=labels, weights="linear")),
        ("least squares, rounded (unweighted)",
         qwkit.kappa_score(y_test, rounded, labels=labels, weights=None)),
    )
    return DemoResult(
        n_train=len(train),
        n_test=len(test),
        labels=labels,
        rows=rows,
        confusion=qwkit.confusion_matrix(y_test, rounded, labels=labels),
        citation=wine.citation,
    )


def render(result: DemoResult, console: Console) -> None:
    """Print the demo's result as rich tables."""
    console.print(
        f"[bold]qwkit demo[/bold] — red wine quality, {result.n_train} wines to fit, "
        f"{result.n_test} held out"
    )
    scores = Table(title="Held-out agreement with the tasters")
    scores.add_column("model")
    scores.add_column("kappa", justify="right")
    for name, value in result.rows:
        scores.add_row(name, f"{value:.4f}")
    console.print(scores)
    table = Table(title="Confusion matrix (rows: tasters, columns: model)")
    table.add_column("")
    for label in result.labels:
        table.add_column(str(label), justify="right")
    for label, row in zip(result.labels, result.confusion):
        table.add_row(str(label), *(str(int(v)) for v in row))
    console.print(table)
    console.print(f"[dim]Data: {result.citation}[/dim]")
