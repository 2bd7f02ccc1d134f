"""``qwkit demo`` and ``qwkit economics``: the bundled data's walk-through (the wine
data, ``_demo``; HANNA, ``_demo_evaluation``), and the simulation of kappa versus
profit. Each writes into a folder (``--output``; ``--out`` is its deprecated name)."""

from __future__ import annotations

import importlib.util
import io
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

import qwkit
import qwkit.economics
from qwkit._base._extras import install_command
from qwkit.cli import _demo, _demo_calibration, _demo_evaluation, _display, _output
from qwkit.cli._errors import (
    captured_warnings,
    guard,
    renamed_options,
    stderr_console,
    warning_texts,
)
from qwkit.cli._options import ForceOpt, folder_option

__all__ = ["demo", "economics"]

#: The data sets of ``qwkit.economics.simulate_economics`` (one figure each), known before it runs
#: so that their files are checked first.
_ECONOMICS_DATASETS = ("synthetic", "wine")


def _has_matplotlib() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


@renamed_options({"--out": "--output"})
def demo(
    seed: Annotated[
        int, typer.Option(help="Seed of the train/test split.", min=0, metavar="SEED")
    ] = 20261121,
    test_size: Annotated[
        float,
        typer.Option(
            help="Fraction of the wines held out for scoring.",
            min=0.05,
            max=0.95,
            metavar="FRACTION",
        ),
    ] = 0.3,
    out: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            help="Folder of the report, report.html (created if missing). An existing "
            "report.html is replaced only if it is a qwkit report, or with --force.",
            metavar="FOLDER",
        ),
    ] = "qwkit-demo",
    force: ForceOpt = False,
) -> None:
    """The main jobs on bundled data, with a report.

    On the red wine quality data bundled with qwkit: models, kappa-optimal rescaling,
    exact thresholds, confidence intervals and the cost view; and why exact cut points
    can lose to rounding on new data. On the HANNA stories: may ChatGPT stand in for a
    crowd rater, and what is it worth on the human scale?"""
    out = folder_option(out, "--output")
    with guard():
        console = _display.stdout_console()
        folder = _output.plan_folder(out, option="--output")
        plots = _has_matplotlib()
        target = folder.file(_demo.REPORT_NAME, kind=_output.REPORT, force=force)
        with captured_warnings() as caught:
            result = _demo.run(seed=seed, test_size=test_size)
            hanna = _demo_evaluation.run()
            judged = _demo_calibration.run(seed=seed)
            page = None
            if plots:
                page = _demo.build_report(result, seed=seed, console=stderr_console())
                _demo_evaluation.add_to_report(page, hanna)
                _demo_calibration.add_to_report(page, judged)
        # the report is written before anything is printed (stdout may be closed early)
        note = Console(record=True, file=io.StringIO(), markup=False, width=console.width)
        if page is None:
            note.print(
                f"Report skipped: plots need matplotlib: {install_command('plot')}",
                style="yellow",
            )
        else:
            page.add_warnings(warning_texts(caught))
            _output.write_into(folder, target, page.render())
            note.print(f"Report: {target.shown}")
        _demo.render(result, console)
        _demo_evaluation.render(hanna, console)
        _demo_calibration.render(judged, console)
        console.print(note.export_text(styles=console.is_terminal), end="", markup=False)


def _economics_table(result, dataset: str) -> Table:
    table = Table(title=f"{dataset} data: held-out means over {result.n_repeats} split(s)")
    for name in ("noise", "rule", "QWK", "accuracy", "MAE", "profit $/item", "vs thresholds"):
        table.add_column(name, justify="left" if name == "rule" else "right")
    for r in result.rows:
        if r.dataset != dataset:
            continue
        diff = _display.number(r.profit_vs_thresholds, 3)
        if r.rule != "kappa_thresholds" and r.profit_vs_thresholds_se == r.profit_vs_thresholds_se:
            diff += f" ± {_display.number(r.profit_vs_thresholds_se, 3)}"
        table.add_row(
            f"{r.noise:.2f}",
            r.rule,
            _display.number(r.qwk, 3),
            _display.number(r.accuracy, 3),
            _display.number(r.mean_abs_error, 3),
            f"{r.profit:+.3f}" if r.profit == r.profit else "nan",
            diff,
        )
    return table


@renamed_options({"--out": "--output"})
def economics(
    out: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            help="Folder of the table and the plots (created if missing). Existing files "
            "are replaced only if qwkit wrote them, or with --force.",
            metavar="FOLDER",
        ),
    ] = "qwkit-economics",
    seed: Annotated[
        int, typer.Option(help="Seed of the simulation.", min=0, metavar="SEED")
    ] = 20261121,
    n_repeats: Annotated[
        int, typer.Option(help="Train/test splits per noise level.", min=1, metavar="N")
    ] = 10,
    force: ForceOpt = False,
) -> None:
    """Kappa versus profit: Steele's (2016) simulation.

    The simulation that Steele's "Economic efficiency and the weighted kappa loss
    function" (2016) announces: decision rules judged by kappa and by an insurer's profit.
    Writes economics.csv and one PNG per data set, and prints the table. The files are
    written together: a failure leaves none of them."""
    out = folder_option(out, "--output")
    with guard():
        folder = _output.plan_folder(out, option="--output")
        plots = _has_matplotlib()
        kinds = {"economics.csv": _output.ECONOMICS_TABLE}
        if plots:
            kinds.update(
                {f"economics_{d}.png": _output.ECONOMICS_FIGURE for d in _ECONOMICS_DATASETS}
            )
        targets = {name: folder.file(name, kind=kind, force=force) for name, kind in kinds.items()}
        console = stderr_console()
        if not plots:
            console.print(
                "qwkit: warning: plots skipped: they need matplotlib: " + install_command("plot")
            )
        simulate = qwkit.economics.simulate_economics
        if console.is_terminal:
            with console.status("simulating..."):
                result = simulate(rng=seed, n_repeats=n_repeats)
        else:
            result = simulate(rng=seed, n_repeats=n_repeats)
        with _output.staged_outputs(folder, targets) as stage:
            result.to_csv(stage / "economics.csv")
            if plots:
                for path in result.plot(stage):
                    if path.name not in targets:  # a data set this command did not foresee
                        targets[path.name] = folder.file(
                            path.name, kind=_output.ECONOMICS_FIGURE, force=force
                        )
                    _output.mark_png(path, "economics figure")
        stdout = _display.stdout_console()
        stdout.print(
            'Kappa versus profit, the simulation announced by Steele (2016), "Economic '
            'efficiency and the weighted kappa loss function": ridge regression, held-out '
            f"half, {result.n_repeats} repeat(s), seed {result.seed}. Profit in dollars per "
            f"item (price {result.price_per_class:g}/class, cost {result.cost_per_class:g}/"
            f"class, tolerance {result.tolerance:g}); 'vs thresholds': profit beyond the "
            "kappa-optimal cut points on the same splits (for bayes_profit: the cost of "
            "maximizing kappa)."
        )
        for dataset in dict.fromkeys(r.dataset for r in result.rows):
            stdout.print(_economics_table(result, dataset))
        stdout.print("wrote " + ", ".join(str(folder.path / name) for name in sorted(targets)))
