"""``qwkit score`` and ``qwkit compare``: kappa of two rating columns, and the paired
comparison of two models' kappas. They write no file; they print a rich table or, with
``--json``, one JSON object on standard output."""

from __future__ import annotations

from typing import Annotated

import typer

import qwkit
from qwkit.cli import _columns, _display, _io, _plots
from qwkit.cli._errors import columns_named, guard, stderr_console
from qwkit.cli._options import (
    MAX_JSON_LABELS,
    MAX_PRINTED_LABELS,
    CiOpt,
    DecimalOpt,
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
    decimal_option,
    labels_option,
    sep_option,
)

__all__ = ["compare", "score"]


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


def score(
    file: FileArg,
    truth: TruthOpt,
    pred: Annotated[
        str,
        typer.Option(
            "--pred",
            "-p",
            help="Column of the other ratings (a model's, or a second rater's).",
            show_default=False,
            metavar="COLUMN",
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
    decimal: DecimalOpt = ".",
    drop_missing: DropOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Kappa of two rating columns, with its interval.

    Kappa, its standard error and confidence interval, the p-value of the test of no
    agreement, and the confusion matrix."""
    scale_given = labels_option(labels)
    sep = sep_option(sep)
    decimal = decimal_option(decimal, sep)
    with guard(), _io.open_source(file, sep=sep, decimal=decimal) as source:
        data = _columns.load(
            source,
            ratings=[truth, pred],
            labels=scale_given,
            weight=sample_weight,
            drop_missing=drop_missing,
            console=stderr_console(),
        )
        y1, y2 = data.columns[truth], data.columns[pred]
        sw = data.sample_weight
        names = {"y1": truth, "y2": pred, "sample_weight": sample_weight or ""}
        with columns_named(names, data.rows):
            test = qwkit.kappa_test(
                y1, y2, weights=weights.value, labels=data.labels, sample_weight=sw
            )
        low, high = _interval(test, ci, method, n_resamples, seed)
        k = _columns.n_labels(data.labels, y1, y2)
        shown = MAX_JSON_LABELS if as_json else MAX_PRINTED_LABELS
        scale = confusion = None
        if k <= shown:
            scale = _columns.scale(data.labels, y1, y2)
            confusion = qwkit.confusion_matrix(y1, y2, labels=data.labels, sample_weight=sw)
        if as_json:
            _display.print_json(
                {
                    "file": file,
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
        console = _display.stdout_console()
        console.print(
            _display.stats_table(
                f"{source.label}: '{truth}' vs '{pred}'",
                [
                    (f"kappa ({weights.value} weights)", _display.number(test.statistic)),
                    ("standard error", _display.number(test.standard_error)),
                    (
                        f"{_plots.percent(ci)} CI ({method.value})",
                        f"[{_display.number(low)}, {_display.number(high)}]",
                    ),
                    ("p-value (H0: kappa = 0)", _display.pvalue(test.pvalue)),
                    ("items", _display.items(test.n_samples, data.dropped)),
                ],
            )
        )
        if confusion is not None:
            console.print(_display.confusion_table(confusion, scale, truth, pred))
        elif k <= MAX_JSON_LABELS:
            console.print(f"({k}×{k} confusion matrix not shown; see --json)")
        else:
            console.print(
                f"(confusion matrix not shown: the scale has {k:,} labels; pass --labels "
                "with the ratings that occur to see it)"
            )


def compare(
    file: FileArg,
    truth: TruthOpt,
    pred: Annotated[
        list[str],
        typer.Option(
            "--pred",
            "-p",
            help="Column of a model's ratings; give it twice (model a, then model b).",
            show_default=False,
            metavar="COLUMN",
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
    decimal: DecimalOpt = ".",
    drop_missing: DropOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Paired comparison of two models' kappas.

    The difference of the two models' kappas against the same reference ratings, on the
    same items, with its standard error, confidence interval and p-value."""
    if len(pred) != 2:
        raise typer.BadParameter(
            f"give --pred exactly twice; got {len(pred)}.", param_hint="--pred"
        )
    if pred[0] == pred[1]:
        raise typer.BadParameter("the two --pred columns must differ.", param_hint="--pred")
    scale_given = labels_option(labels)
    sep = sep_option(sep)
    decimal = decimal_option(decimal, sep)
    with guard(), _io.open_source(file, sep=sep, decimal=decimal) as source:
        data = _columns.load(
            source,
            ratings=[truth, *pred],
            labels=scale_given,
            weight=sample_weight,
            drop_missing=drop_missing,
            console=stderr_console(),
        )
        y, a, b = (data.columns[c] for c in (truth, *pred))
        names = {
            "y_true": truth,
            "y_pred_a": pred[0],
            "y_pred_b": pred[1],
            "sample_weight": sample_weight or "",
        }
        with columns_named(names, data.rows):
            res = qwkit.compare_kappa_test(
                y, a, b, weights=weights.value, labels=data.labels, sample_weight=data.sample_weight
            )
        low, high = _interval(res, ci, method, n_resamples, seed)
        if as_json:
            k = _columns.n_labels(data.labels, y, a, b)
            _display.print_json(
                {
                    "file": file,
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
                    "labels": _columns.scale(data.labels, y, a, b)
                    if k <= MAX_JSON_LABELS
                    else None,
                }
            )
            return
        number = _display.number
        _display.stdout_console().print(
            _display.stats_table(
                f"{source.label}: '{pred[0]}' (a) vs '{pred[1]}' (b) against '{truth}'",
                [
                    (f"kappa a ({weights.value} weights)", number(res.kappa_a)),
                    (f"kappa b ({weights.value} weights)", number(res.kappa_b)),
                    ("difference a − b", number(res.statistic)),
                    ("standard error (paired)", number(res.standard_error)),
                    (
                        f"{_plots.percent(ci)} CI ({method.value})",
                        f"[{number(low)}, {number(high)}]",
                    ),
                    ("p-value (H0: equal kappas)", _display.pvalue(res.pvalue)),
                    ("items", _display.items(res.n_samples, data.dropped)),
                ],
            )
        )
