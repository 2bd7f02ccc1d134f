"""The typer application: one function per command, each thin over the public API.

Every command parses its options, reads its columns (``_io``), calls qwkit, and prints a
rich table or, with ``--json``, one JSON object on stdout. Errors are handled by
``_errors.guard`` (one line on stderr, exit code 1) and usage errors by
``_errors.QwkitGroup`` (one line, exit code 2). Consoles never read user text (column
names, labels, paths) as rich markup.
"""

from __future__ import annotations

import importlib.util
import inspect
import io
import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

import qwkit
from qwkit.cli import _demo, _io, _output, _plots, _report, _spec
from qwkit.cli._errors import (
    CliError,
    QwkitCommand,
    QwkitGroup,
    StdoutConsole,
    guard,
    stderr_console,
)
from qwkit.cli._options import (
    MAX_JSON_LABELS,
    MAX_PRINTED_LABELS,
    CiOpt,
    DropOpt,
    FileArg,
    JsonOpt,
    LabelsOpt,
    Method,
    MethodOpt,
    ResamplesOpt,
    SeedOpt,
    SepOpt,
    TruthOpt,
    WeightColOpt,
    Weights,
    WeightsOpt,
    _labels_option,
    _sep_option,
)

app = typer.Typer(
    name="qwkit",
    cls=QwkitGroup,
    help="Quadratic weighted kappa: exact, fast, with inference and optimization.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
thresholds_app = typer.Typer(
    cls=QwkitGroup,
    help="Kappa-optimal cut points: fit them on scores, apply them to new scores.",
    no_args_is_help=True,
)
app.add_typer(thresholds_app, name="thresholds")


def _unwrapped(command):
    """The command's docstring with each paragraph on one line: help text rewraps it
    to the terminal instead of breaking lines where the source does."""
    paragraphs = inspect.cleandoc(command.__doc__ or "").split("\n\n")
    command.__doc__ = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    return command


@app.callback()
def _root() -> None:
    """Quadratic weighted kappa: exact, fast, with inference and optimization."""


# ---------------------------------------------------------------------------- helpers


def _plain(value: Any) -> Any:
    """numpy scalars and arrays → Python; nan and ±inf → None (JSON has neither)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _print_json(obj: dict) -> None:
    typer.echo(json.dumps(_plain(obj)))


def _stdout() -> Console:
    """The console of tables and summaries: user text is printed as it is (no markup)."""
    return StdoutConsole(markup=False)


@dataclass(frozen=True, slots=True)
class Loaded:
    """Columns read and checked by :func:`_load`."""

    columns: dict[str, np.ndarray]
    sample_weight: np.ndarray | None
    dropped: int  # rows skipped by --drop-missing
    rows: np.ndarray | None  # 0-based file row of each kept position (None: all kept)


def _load(
    file: Path,
    *,
    sep: str | None,
    ratings: list[str],
    scores: list[str] = (),
    labels: np.ndarray | None = None,
    weight: str | None = None,
    drop_missing: bool = False,
    labels_origin: str = "--labels",
) -> Loaded:
    """Read and check the columns a command uses."""
    names = [*ratings, *scores] + ([weight] if weight else [])
    arrays = _io.read_columns(file, names, sep=sep, console=stderr_console())
    rows = None
    dropped = 0
    if drop_missing:
        missing = _io.missing_mask([arrays[c] for c in dict.fromkeys(names)])
        dropped = int(missing.sum())
        if dropped == len(missing):
            raise CliError(f"every row of '{file}' has a missing value in a used column.")
        if dropped:
            import pyarrow as pa

            keep = pa.array(~missing)
            arrays = {c: a.filter(keep) for c, a in arrays.items()}
            rows = np.flatnonzero(~missing)
    out = {
        c: _io.rating_values(arrays[c], c, labels, rows=rows, origin=labels_origin) for c in ratings
    }
    for c in scores:
        out[c] = _io.score_values(arrays[c], c, rows=rows)
    sw = _io.weight_values(arrays[weight], weight, rows=rows) if weight else None
    return Loaded(out, sw, dropped, rows)


@contextmanager
def _columns_named(names: dict[str, str], rows: np.ndarray | None) -> Iterator[None]:
    """An API error about a parameter (`y1`, `y_pred_b`, ...) is reported with the column
    it was read from, and an ``index i`` in it as the data row of the file."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        text = str(exc)
        mentioned = [p for p in names if f"`{p}`" in text]
        if not mentioned:
            raise
        for p in mentioned:
            text = text.replace(f"`{p}`", f"column '{names[p]}'")
        text = text.replace("`labels`", "--labels")
        text = re.sub(
            r"\bindex (\d+)",
            lambda m: f"data row {int(rows[int(m[1])] if rows is not None else int(m[1])) + 1}",
            text,
        )
        raise CliError(text) from None


def _n_labels(labels: np.ndarray | None, *columns: np.ndarray) -> int:
    """Size of the rating scale: ``labels``, or every integer from the smallest to the
    largest rating (the rule of ``qwkit.kappa_score``)."""
    if labels is not None:
        return len(labels)
    return max(int(np.max(c)) for c in columns) - min(int(np.min(c)) for c in columns) + 1


def _scale(labels: np.ndarray | None, *columns: np.ndarray) -> np.ndarray:
    """The rating scale used (build it only when :func:`_n_labels` is moderate)."""
    if labels is not None:
        return labels
    low = min(int(np.min(c)) for c in columns)
    high = max(int(np.max(c)) for c in columns)
    return np.arange(low, high + 1)


def _label_text(label) -> str:
    return str(label.item() if isinstance(label, np.generic) else label)


def _confusion_table(confusion: np.ndarray, scale: np.ndarray, truth: str, pred: str):
    table = Table(title=f"Confusion matrix (rows: {truth}, columns: {pred})")
    table.add_column("")
    for label in scale:
        table.add_column(_label_text(label), justify="right")
    whole = np.all(confusion == np.round(confusion))
    for label, row in zip(scale, confusion, strict=True):
        table.add_row(_label_text(label), *((f"{v:.0f}" if whole else f"{v:.4g}") for v in row))
    return table


def _number(x: float, digits: int = 4) -> str:
    return "nan" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _pvalue(p: float) -> str:
    if not math.isfinite(p):
        return "nan"
    return f"{p:.4g}" if p >= 1e-300 else "< 1e-300"


def _interval(result, confidence_level: float, method: Method, n_resamples: int, seed: int):
    """The API's interval, behind a spinner on a terminal (a bootstrap can take a while)."""
    console = stderr_console()
    kwargs = {"method": method.value}
    if method in (Method.bootstrap, Method.percentile):
        kwargs.update(n_resamples=n_resamples, rng=seed)
    if console.is_terminal and method is not Method.asymptotic:
        with console.status(f"{method.value} interval ({n_resamples:,} resamples)..."):
            return result.confidence_interval(confidence_level, **kwargs)
    return result.confidence_interval(confidence_level, **kwargs)


def _stats_table(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(name, value)
    return table


def _items(n: int, dropped: int) -> str:
    return f"{n:,}" + (f" ({dropped:,} dropped)" if dropped else "")


def _rows(n: int) -> str:
    return f"{n:,} row" + ("" if n == 1 else "s")


def _n_items(sample_weight: np.ndarray | None, n_rows: int) -> int:
    """Items that count: rows of positive weight (the API's ``n_samples``)."""
    return n_rows if sample_weight is None else int(np.count_nonzero(sample_weight > 0))


# ---------------------------------------------------------------------------- score


@app.command(cls=QwkitCommand)
@_unwrapped
def score(
    file: FileArg,
    truth: TruthOpt,
    pred: Annotated[
        str,
        typer.Option("--pred", "-p", help="Column of the predicted ratings.", show_default=False),
    ],
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    ci: CiOpt = 0.95,
    method: MethodOpt = Method.asymptotic,
    n_resamples: ResamplesOpt = 9999,
    seed: SeedOpt = 20261121,
    sample_weight: WeightColOpt = None,
    sep: SepOpt = None,
    drop_missing: DropOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Kappa of two rating columns: standard error, confidence interval, confusion matrix."""
    scale_given = _labels_option(labels)
    sep = _sep_option(sep)
    with guard():
        data = _load(
            file,
            sep=sep,
            ratings=[truth, pred],
            labels=scale_given,
            weight=sample_weight,
            drop_missing=drop_missing,
        )
        y1, y2 = data.columns[truth], data.columns[pred]
        sw = data.sample_weight
        names = {"y1": truth, "y2": pred, "sample_weight": sample_weight or ""}
        with _columns_named(names, data.rows):
            test = qwkit.kappa_test(
                y1, y2, weights=weights.value, labels=scale_given, sample_weight=sw
            )
        low, high = _interval(test, ci, method, n_resamples, seed)
        k = _n_labels(scale_given, y1, y2)
        shown = MAX_JSON_LABELS if as_json else MAX_PRINTED_LABELS
        scale = confusion = None
        if k <= shown:
            scale = _scale(scale_given, y1, y2)
            confusion = qwkit.confusion_matrix(y1, y2, labels=scale_given, sample_weight=sw)
        if as_json:
            _print_json(
                {
                    "file": str(file),
                    "truth": truth,
                    "pred": pred,
                    "weights": weights.value,
                    "kappa": test.statistic,
                    "standard_error": test.standard_error,
                    "standard_error_null": test.standard_error_null,
                    "pvalue": test.pvalue,
                    "ci_low": low,
                    "ci_high": high,
                    "confidence_level": ci,
                    "method": method.value,
                    "n": test.n_samples,
                    "n_rows": len(y1),
                    "rows_dropped": data.dropped,
                    "n_labels": k,
                    "labels": scale,  # None (null) when wider than MAX_JSON_LABELS
                    "confusion": confusion,
                }
            )
            return
        console = _stdout()
        console.print(
            _stats_table(
                f"{file.name}: '{truth}' vs '{pred}'",
                [
                    (f"kappa ({weights.value} weights)", _number(test.statistic)),
                    ("standard error", _number(test.standard_error)),
                    (
                        f"{_plots.percent(ci)} CI ({method.value})",
                        f"[{_number(low)}, {_number(high)}]",
                    ),
                    ("p-value (H0: kappa = 0)", _pvalue(test.pvalue)),
                    ("items", _items(test.n_samples, data.dropped)),
                ],
            )
        )
        if confusion is not None:
            console.print(_confusion_table(confusion, scale, truth, pred))
        elif k <= MAX_JSON_LABELS:
            console.print(f"({k}×{k} confusion matrix not shown; see --json)")
        else:
            console.print(
                f"(confusion matrix not shown: the scale has {k:,} labels; pass --labels "
                "with the ratings that occur to see it)"
            )


# ---------------------------------------------------------------------------- compare


@app.command(cls=QwkitCommand)
@_unwrapped
def compare(
    file: FileArg,
    truth: TruthOpt,
    pred: Annotated[
        list[str],
        typer.Option(
            "--pred",
            "-p",
            help="Column of a model's predictions; give it twice (model a, model b).",
            show_default=False,
        ),
    ],
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    ci: CiOpt = 0.95,
    method: MethodOpt = Method.asymptotic,
    n_resamples: ResamplesOpt = 9999,
    seed: SeedOpt = 20261121,
    sample_weight: WeightColOpt = None,
    sep: SepOpt = None,
    drop_missing: DropOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Paired comparison of two models' kappas against the same true ratings."""
    if len(pred) != 2:
        raise typer.BadParameter(
            f"give --pred exactly twice; got {len(pred)}.", param_hint="--pred"
        )
    if pred[0] == pred[1]:
        raise typer.BadParameter("the two --pred columns must differ.", param_hint="--pred")
    scale_given = _labels_option(labels)
    sep = _sep_option(sep)
    with guard():
        data = _load(
            file,
            sep=sep,
            ratings=[truth, *pred],
            labels=scale_given,
            weight=sample_weight,
            drop_missing=drop_missing,
        )
        y, a, b = (data.columns[c] for c in (truth, *pred))
        names = {
            "y_true": truth,
            "y_pred_a": pred[0],
            "y_pred_b": pred[1],
            "sample_weight": sample_weight or "",
        }
        with _columns_named(names, data.rows):
            res = qwkit.compare_kappa_test(
                y, a, b, weights=weights.value, labels=scale_given, sample_weight=data.sample_weight
            )
        low, high = _interval(res, ci, method, n_resamples, seed)
        if as_json:
            k = _n_labels(scale_given, y, a, b)
            _print_json(
                {
                    "file": str(file),
                    "truth": truth,
                    "pred_a": pred[0],
                    "pred_b": pred[1],
                    "weights": weights.value,
                    "kappa_a": res.kappa_a,
                    "kappa_b": res.kappa_b,
                    "difference": res.statistic,
                    "standard_error": res.standard_error,
                    "pvalue": res.pvalue,
                    "ci_low": low,
                    "ci_high": high,
                    "confidence_level": ci,
                    "method": method.value,
                    "n": res.n_samples,
                    "n_rows": len(y),
                    "rows_dropped": data.dropped,
                    "n_labels": k,
                    "labels": _scale(scale_given, y, a, b) if k <= MAX_JSON_LABELS else None,
                }
            )
            return
        _stdout().print(
            _stats_table(
                f"{file.name}: '{pred[0]}' (a) vs '{pred[1]}' (b) against '{truth}'",
                [
                    (f"kappa a ({weights.value} weights)", _number(res.kappa_a)),
                    (f"kappa b ({weights.value} weights)", _number(res.kappa_b)),
                    ("difference a − b", _number(res.statistic)),
                    ("standard error (paired)", _number(res.standard_error)),
                    (
                        f"{_plots.percent(ci)} CI ({method.value})",
                        f"[{_number(low)}, {_number(high)}]",
                    ),
                    ("p-value (H0: equal kappas)", _pvalue(res.pvalue)),
                    ("items", _items(res.n_samples, data.dropped)),
                ],
            )
        )


# ---------------------------------------------------------------------------- thresholds


@thresholds_app.command("fit", cls=QwkitCommand)
@_unwrapped
def thresholds_fit(
    file: FileArg,
    truth: TruthOpt,
    score_col: Annotated[
        str, typer.Option("--score", "-s", help="Column of real-valued scores.", show_default=False)
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write the cut points to this JSON file.", show_default=False
        ),
    ] = None,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    sample_weight: WeightColOpt = None,
    sep: SepOpt = None,
    drop_missing: DropOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Cut points of the scores that maximize kappa against the true ratings.

    The exact global optimum, not a local search."""
    scale_given = _labels_option(labels)
    sep = _sep_option(sep)
    with guard():
        if output is not None:
            _output.check_output(output)
        data = _load(
            file,
            sep=sep,
            ratings=[truth],
            scores=[score_col],
            labels=scale_given,
            weight=sample_weight,
            drop_missing=drop_missing,
        )
        names = {"y_true": truth, "y_score": score_col, "sample_weight": sample_weight or ""}
        with _columns_named(names, data.rows):
            res = qwkit.optimize_thresholds(
                data.columns[truth],
                data.columns[score_col],
                labels=scale_given,
                weights=weights.value,
                sample_weight=data.sample_weight,
            )
        spec = {
            "thresholds": _spec.thresholds_json(res.thresholds),
            "labels": _plain(res.labels),
            "statistic": res.statistic,
            "weights": weights.value,
            "truth": truth,
            "score": score_col,
            "n": _n_items(data.sample_weight, len(data.columns[truth])),
            "n_rows": len(data.columns[truth]),
            "qwkit": qwkit.__version__,
        }
        if output is not None:
            _output.write_text(output, json.dumps(_plain(spec), indent=2) + "\n")
        if as_json:
            _print_json(spec)
            return
        console = _stdout()
        table = Table(title=f"Kappa-optimal cut points of '{score_col}' for '{truth}'")
        table.add_column("class")
        table.add_column("scores", justify="right")
        edges = [-math.inf, *res.thresholds, math.inf]
        for j, label in enumerate(res.labels):
            table.add_row(_label_text(label), f"({edges[j]:.6g}, {edges[j + 1]:.6g}]")
        console.print(table)
        console.print(
            f"in-sample kappa ({weights.value} weights): {res.statistic:.4f}"
            + (f"; {_rows(data.dropped)} dropped" if data.dropped else "")
        )
        if output is not None:
            console.print(f"wrote {output}")


@thresholds_app.command("apply", cls=QwkitCommand)
@_unwrapped
def thresholds_apply(
    file: FileArg,
    score_col: Annotated[
        str, typer.Option("--score", "-s", help="Column of real-valued scores.", show_default=False)
    ],
    thresholds: Annotated[
        Path,
        typer.Option(
            "--thresholds", help="JSON file written by `qwkit thresholds fit`.", show_default=False
        ),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Output file: the input with a new column; .csv, .tsv or .parquet (.csv and "
            ".tsv may end in .gz, .bz2, .zst or .lz4). Another extension needs --sep.",
            show_default=False,
        ),
    ],
    column: Annotated[
        str | None,
        typer.Option(help="Name of the new column. Default: '<score>_class'.", show_default=False),
    ] = None,
    sep: SepOpt = None,
    drop_missing: Annotated[
        bool, typer.Option(help="Drop rows whose score is missing (default: they are an error).")
    ] = False,
) -> None:
    """Round scores to classes with cut points, writing the file back with a new column.

    A delimited text output is the input, byte for byte, with one more field on each
    line (comment lines above the header are kept); a Parquet output keeps the input's
    column types (a text input's are inferred)."""
    sep = _sep_option(sep)
    with guard():
        source, names = _io.column_names(file, sep=sep)
        target = _output.Output.of(output, sep=sep)
        cuts, scale = _spec.read_thresholds(thresholds)
        name = column or f"{score_col}_class"
        if name in names:
            raise CliError(
                f"column '{name}' already exists in '{file}'; choose another name with --column."
            )
        scores = _io.read_columns(file, [score_col], sep=sep, console=stderr_console())[score_col]
        n_rows = len(scores)
        keep = rows = None
        if drop_missing and scores.null_count:
            keep = ~_io.missing_mask([scores])
            if not keep.any():
                raise CliError(f"every row of '{file}' has a missing value in '{score_col}'.")
            rows = np.flatnonzero(keep)
            import pyarrow as pa

            scores = scores.filter(pa.array(keep))
        values = _io.score_values(scores, score_col, rows=rows)
        classes = qwkit.apply_thresholds(values, cuts, labels=scale)
        if source.kind == "csv" and target.kind == "csv":
            _output.append_column(source, target, name, classes, keep=keep, n_rows=n_rows)
        else:
            import pyarrow as pa

            table = _io.read_table(file, sep=sep)
            if keep is not None:
                table = table.filter(pa.array(keep))
            _output.write_table(table.append_column(name, pa.array(classes)), target)
        distinct, counts = np.unique(classes, return_counts=True)
        if scale is not None:  # in the order of the scale, not sorted
            order = {_label_text(k): i for i, k in enumerate(scale)}
            ranked = sorted(
                zip(distinct, counts, strict=True), key=lambda kv: order[_label_text(kv[0])]
            )
        else:
            ranked = list(zip(distinct, counts, strict=True))
        dropped = n_rows - len(classes)
        stderr_console().print(
            f"wrote {output}: {_rows(len(classes))}, column '{name}' ("
            + ", ".join(f"{_label_text(k)}: {v:,}" for k, v in ranked)
            + ")"
            + (f"; {_rows(dropped)} with a missing score dropped" if rows is not None else "")
        )


# ---------------------------------------------------------------------------- report


@app.command(cls=QwkitCommand)
@_unwrapped
def report(
    file: FileArg,
    truth: TruthOpt,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The HTML file to write.", show_default=False)
    ],
    pred: Annotated[
        str | None,
        typer.Option("--pred", "-p", help="Column of predicted ratings.", show_default=False),
    ] = None,
    score_col: Annotated[
        str | None,
        typer.Option(
            "--score",
            "-s",
            help="Column of real-valued "
            "scores instead of --pred: they are rounded "
            "with kappa-optimal cut points (fitted here, "
            "or from --thresholds).",
            show_default=False,
        ),
    ] = None,
    thresholds: Annotated[
        Path | None,
        typer.Option(
            "--thresholds",
            help="Cut points from `qwkit thresholds fit` (with --score); their labels are "
            "the scale unless --labels is given.",
            show_default=False,
        ),
    ] = None,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    ci: CiOpt = 0.95,
    method: MethodOpt = Method.bootstrap,
    n_resamples: ResamplesOpt = 9999,
    seed: SeedOpt = 20261121,
    sample_weight: WeightColOpt = None,
    sep: SepOpt = None,
    drop_missing: DropOpt = False,
    title: Annotated[
        str | None, typer.Option(help="Title of the report.", show_default=False)
    ] = None,
) -> None:
    """One self-contained HTML report of the agreement of two columns.

    Kappa with its CI and bootstrap distribution, confusion heatmap, per-class agreement,
    and for scores the cut points."""
    if (pred is None) == (score_col is None):
        raise typer.BadParameter(
            "give exactly one of --pred and --score.", param_hint="--pred/--score"
        )
    if thresholds is not None and score_col is None:
        raise typer.BadParameter("--thresholds needs --score.", param_hint="--thresholds")
    scale_given = _labels_option(labels)
    sep = _sep_option(sep)
    with guard():
        _output.check_output(output)
        cuts = scale_file = None
        if thresholds is not None:
            cuts, scale_file = _spec.read_thresholds(thresholds)
        # text labels of the cut points are the scale (numbers: the scale spans the data)
        scale = scale_given
        if scale is None and scale_file is not None and scale_file.dtype.kind == "U":
            scale = scale_file
        data = _load(
            file,
            sep=sep,
            ratings=[truth] + ([pred] if pred else []),
            scores=[score_col] if score_col else [],
            labels=scale,
            weight=sample_weight,
            drop_missing=drop_missing,
            labels_origin="--labels"
            if scale_given is not None
            else f"the labels of '{thresholds}'",
        )
        names = {
            "y1": truth,
            "y2": pred or f"class of {score_col}",
            "y_true": truth,
            "sample_weight": sample_weight or "",
        }
        names.update({"y_score": score_col} if score_col else {})
        with _columns_named(names, data.rows):
            html_text, summary = _report.file_report(
                file=file,
                truth=truth,
                pred=pred,
                score=score_col,
                data=data.columns,
                labels=scale,
                cuts=cuts,
                cut_labels=scale_file,
                thresholds_path=thresholds,
                weights=weights.value,
                confidence_level=ci,
                method=method.value,
                n_resamples=n_resamples,
                seed=seed,
                dropped=data.dropped,
                title=title,
                console=stderr_console(),
                sample_weight=data.sample_weight,
                weight_column=sample_weight,
            )
        _output.write_text(output, html_text)
        _stdout().print(f"{summary}\nwrote {output}")


# ---------------------------------------------------------------------------- demo


@app.command(cls=QwkitCommand)
@_unwrapped
def demo(
    seed: Annotated[
        int, typer.Option(help="Seed of the train/test split (0 or more).", min=0)
    ] = 20261121,
    test_size: Annotated[
        float, typer.Option(help="Fraction of the wines held out for scoring.", min=0.05, max=0.95)
    ] = 0.3,
    out: Annotated[
        Path, typer.Option("--out", help="Folder of the report (created if missing).")
    ] = Path("qwkit-demo"),
) -> None:
    """The main job on the bundled red wine quality data, with an HTML report.

    Models, kappa-optimal rescaling, exact thresholds, confidence intervals and the cost
    view."""
    with guard():
        console = _stdout()
        report_path = _demo.prepare_out(out)
        result = _demo.run(seed=seed, test_size=test_size)
        # the report is written before anything is printed (stdout may be closed early)
        note = Console(record=True, file=io.StringIO(), markup=False, width=console.width)
        _demo.write_report(result, report_path, note, seed=seed)
        _demo.render(result, console)
        console.print(note.export_text(styles=console.is_terminal), end="", markup=False)


# ---------------------------------------------------------------------------- economics


@app.command(cls=QwkitCommand)
@_unwrapped
def economics(
    out: Annotated[
        Path, typer.Option("--out", help="Folder of the table and the plots (created if missing).")
    ] = Path("qwkit-economics"),
    seed: Annotated[
        int, typer.Option(help="Seed of the simulation (0 or more).", min=0)
    ] = 20261121,
    n_repeats: Annotated[int, typer.Option(help="Train/test splits per noise level.", min=1)] = 10,
) -> None:
    """Kappa versus profit: seed 003's simulation of insurance ratings.

    Writes economics.csv and one PNG per data set, and prints the table. The files are
    written together: a failure leaves none of them."""
    with guard():
        if out.exists() and out.is_dir():  # fail before the simulation, not after it
            _output.check_output(out / "economics.csv")
            for old in sorted(out.glob("economics_*.png")):
                _output.check_output(old)
        folder = _output.make_folder(out, option="--out")
        console = stderr_console()
        from qwkit.economics import simulate_economics

        plots = importlib.util.find_spec("matplotlib") is not None
        if not plots:
            console.print(
                "qwkit: warning: plots skipped: they need matplotlib: pip install 'qwkit[plot]'"
            )
        if console.is_terminal:
            with console.status("simulating..."):
                result = simulate_economics(seed=seed, n_repeats=n_repeats)
        else:
            result = simulate_economics(seed=seed, n_repeats=n_repeats)
        with _output.staged_outputs(folder) as stage:
            names = [result.to_csv(stage / "economics.csv").name]
            if plots:
                names += [p.name for p in result.plot(stage)]
        typer.echo(result.summary())
        typer.echo("wrote " + ", ".join(str(folder / n) for n in names))
