"""``qwkit judge``: is an LLM judge reliable?

The file is long: one row per judgement, with the item judged (``--item``), the judge
(``--judge``), the run (``--run``: a repetition or a prompt variant) and the score
(``--score``; an empty cell is a failed answer). Human ratings of the items may sit on
the same rows (``--human``: columns whose values repeat on every row of an item). It is
``qwkit.judge_reliability`` (docs/judge.md): each judge's self-consistency over runs, the
runs a target reliability needs, kappa with the humans as runs are added, prompt
sensitivity (``--run-kind prompts``) and the panel of judges.

With ``--order`` the file holds pairwise verdicts instead (``--score``: which response
won, A, B or tie; ``--order``: which was shown first, AB or BA), and the command is
``qwkit.position_bias_test``: is there a position bias?
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import numpy as np
import typer

import qwkit
from qwkit.cli import _columns, _display, _io, _judge_display, _output
from qwkit.cli._errors import (
    CliError,
    captured_warnings,
    file_row,
    guard,
    in_file_terms,
    stderr_console,
    warning_texts,
)
from qwkit.cli._options import (
    DecimalOpt,
    EncodingOpt,
    FileArg,
    ForceOpt,
    JsonOpt,
    SepOpt,
    SheetOpt,
    check_one_stdout,
    column_list,
    decimal_option,
    encoding_option,
    sep_option,
)

__all__ = ["judge"]


class Runs(str, Enum):
    repeats = "repeats"
    prompts = "prompts"


class Aggregate(str, Enum):
    mean = "mean"
    majority = "majority"


def _column(help_text: str):
    return typer.Option(help=help_text, show_default=False, metavar="COLUMN")


def _unit(value: float) -> float:
    if not 0.0 < value < 1.0:
        raise typer.BadParameter(f"must be strictly between 0 and 1; got {value:g}.")
    return value


def _below_one(value: float) -> float:
    if not 0.0 <= value < 1.0:
        raise typer.BadParameter(f"must be in [0, 1) (0 included, 1 not); got {value:g}.")
    return value


def _names(text: str, option: str, size: int, example: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(","))
    if len(names) != size or not all(names) or len(set(names)) != size:
        raise typer.BadParameter(
            f"give {size} distinct values separated by commas (e.g. {example}); got {text!r}.",
            param_hint=option,
        )
    return names


# ---------------------------------------------------------------------------- reading


def _ids(array, column: str) -> np.ndarray:
    """An id column: integers when every id is one (so that 2 sorts before 10), else
    text; a missing id is an error with its row."""
    try:
        values = _columns.numeric_values(array, column)
    except CliError:
        return _columns._ids(array, column)
    if values.dtype.kind == "f" and not np.all(values == np.floor(values)):
        return _columns._ids(array, column)
    return values.astype(np.int64) if values.dtype.kind == "f" else values


def _scores(array, column: str, decimal: str) -> np.ndarray:
    """Scores with gaps (an empty cell: a failed answer) as float64 with NaN."""
    values = _columns._with_gaps(array, column, None, decimal, text=False)
    return np.asarray(values, dtype=np.float64)


def _verdicts(array, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Verdicts as text, and which rows have one (an empty cell: no verdict)."""
    import pyarrow.compute as pc

    present = ~pc.is_null(array).to_numpy(zero_copy_only=False)
    out = np.full(len(array), "", dtype=object)
    if present.any():
        kept = array.filter(present) if not present.all() else array
        out[present] = _columns.text_values(kept, column)
    return out, present


def _per_item(items: np.ndarray, columns: dict[str, np.ndarray]) -> np.ndarray:
    """Human ratings repeated on every row of an item → items × columns, in the order of
    the sorted distinct items (the API's order for an array of human ratings); two rows
    of an item that disagree are an error naming both."""
    uniq, code = np.unique(items, return_inverse=True)
    code = code.reshape(-1)
    first = np.full(uniq.size, -1, dtype=np.int64)
    first[code[::-1]] = np.arange(code.size)[::-1]
    out = np.empty((uniq.size, len(columns)))
    for j, (name, values) in enumerate(columns.items()):
        per = values[first]
        mine = per[code]
        clash = np.flatnonzero(~((mine == values) | (np.isnan(mine) & np.isnan(values))))
        if clash.size:
            r = int(clash[0])
            raise CliError(
                f"human column '{name}' gives item '{items[r]}' two ratings (data rows "
                f"{file_row(int(first[code[r]]))} and {file_row(r)}); a human rating belongs "
                "to the item and repeats on each of its rows."
            )
        out[:, j] = per
    return out


def _settings_rows(source_name, n_rows, columns: dict, extra: list) -> list:
    rows = [["data", source_name], ["rows", n_rows]]
    rows += [[f"{role} column", name] for role, name in columns.items() if name]
    return rows + extra


# ---------------------------------------------------------------------------- command


def judge(
    file: FileArg,
    item: Annotated[str | None, _column("Column of the item judged (required).")] = None,
    score: Annotated[
        str | None,
        _column(
            "Column of the judge's score (required): numbers, ordinal or real-valued; an "
            "empty cell is a failed answer. With --order: the verdict (A, B or tie)."
        ),
    ] = None,
    judge_column: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Column of the judge (an LLM, a model-prompt pair). Default: one judge.",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    run: Annotated[
        str | None,
        _column(
            "Column of the run: a repetition of the same question, or a prompt variant "
            "(--run-kind prompts). Default: each judge's rows of an item are its runs, in "
            "their order."
        ),
    ] = None,
    human: Annotated[
        list[str] | None,
        typer.Option(
            help="Human rating columns, comma-separated (e.g. h1,h2,h3): ratings of the "
            "item, repeated on each of its rows; an empty cell is a rating not given.",
            show_default=False,
            metavar="COLUMNS",
        ),
    ] = None,
    order: Annotated[
        str | None,
        _column(
            "Column of the order of a pairwise verdict: which response was shown first "
            "(AB or BA; --order-labels). Makes the command the position-bias test."
        ),
    ] = None,
    system: Annotated[
        str | None,
        _column(
            "Column of the system that produced the item (one per item): the stability "
            "of the systems' ranking across judges (Kendall's W)."
        ),
    ] = None,
    runs: Annotated[
        Runs,
        typer.Option(
            "--run-kind",
            help="What the runs are: repeats (exchangeable repetitions) or prompts (fixed "
            "prompt variants: adds ICC(A,1), the kappa under each variant and their "
            "paired comparison).",
            metavar="KIND",
        ),
    ] = Runs.repeats,
    target: Annotated[
        float,
        typer.Option(
            help="Reliability the mean of the runs should reach (runs needed).",
            callback=_unit,
            metavar="X",
        ),
    ] = 0.8,
    min_kappa: Annotated[
        float,
        typer.Option(
            help="Kappa with the humans a judge must show (Williamson, Xi & Breyer 2012); "
            "pass when the whole interval is at or above it.",
            callback=_below_one,
            metavar="X",
        ),
    ] = 0.70,
    aggregate: Annotated[
        Aggregate,
        typer.Option(
            help="How several runs or judges combine per item: mean, or majority (the "
            "most frequent score; ties: their median).",
            metavar="HOW",
        ),
    ] = Aggregate.mean,
    verdicts: Annotated[
        str,
        typer.Option(
            help="With --order: how the verdict column names response A, response B and a "
            "tie, comma-separated.",
            metavar="A,B,TIE",
        ),
    ] = "A,B,tie",
    orders: Annotated[
        str,
        typer.Option(
            "--order-labels",
            help="With --order: how the order column names A shown first and B shown "
            "first, comma-separated.",
            metavar="AB,BA",
        ),
    ] = "AB,BA",
    ci: Annotated[
        float,
        typer.Option(
            "--ci",
            help="Confidence level of every interval.",
            min=0.5,
            max=0.9999,
            metavar="LEVEL",
        ),
    ] = 0.95,
    n_resamples: Annotated[
        int, typer.Option(help="Bootstrap draws of Kendall's W.", min=100, metavar="N")
    ] = 9999,
    seed: Annotated[
        int, typer.Option(help="Seed of the bootstrap.", min=0, metavar="SEED")
    ] = 20261121,
    report: Annotated[
        str | None,
        typer.Option(
            "--report",
            help="Also write an HTML report with the figures ('-': standard output). An "
            "existing file is replaced only if it is a qwkit report, or with --force.",
            show_default=False,
            metavar="FILE",
        ),
    ] = None,
    title: Annotated[
        str | None,
        typer.Option(help="Title of the report.", show_default=False, metavar="TEXT"),
    ] = None,
    sep: SepOpt = None,
    decimal: DecimalOpt = ".",
    encoding: EncodingOpt = "utf-8",
    sheet: SheetOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Is an LLM judge reliable?

    From a long file of judgements: each judge's self-consistency over repeated runs
    (ICC, alpha) with intervals, the runs its mean needs to reach a target reliability,
    kappa with the humans as runs are added, prompt sensitivity, and how many independent
    judges a panel amounts to. With --order, pairwise verdicts asked in both orders: is
    there a position bias? The report leads with the answers."""
    if item is None:
        raise typer.BadParameter("name the column of the item judged.", param_hint="--item")
    if score is None:
        raise typer.BadParameter("name the column of the scores.", param_hint="--score")
    humans = column_list(human, "--human", at_least=1, example="h1,h2") if human else []
    roles = {"--item": item, "--score": score, "--judge": judge_column, "--run": run,
             "--order": order, "--system": system}  # fmt: skip
    seen: dict[str, str] = {}
    for option, name in [*roles.items(), *(("--human", h) for h in humans)]:
        if name is None:
            continue
        if name in seen:
            raise typer.BadParameter(
                f"column '{name}' is given to both {seen[name]} and {option}.",
                param_hint=option,
            )
        seen[name] = option
    if order is not None and (humans or system):
        raise typer.BadParameter(
            "the position-bias test (--order) reads verdicts only; --human and --system "
            "are for scores.",
            param_hint="--order",
        )
    verdict_labels = _names(verdicts, "--verdicts", 3, "A,B,tie")
    order_labels = _names(orders, "--order-labels", 2, "AB,BA")
    sep = sep_option(sep)
    decimal = decimal_option(decimal, sep)
    encoding = encoding_option(encoding)
    check_one_stdout(report, as_json, "--report")
    with guard():
        target_file = None
        if report is not None:
            target_file = _output.plan(
                report, kind=_output.REPORT, inputs=[_output.Input.of(file)], force=force
            )
        names = [c for c in (item, score, judge_column, run, order, system, *humans) if c]
        with _io.open_source(
            file, sep=sep, decimal=decimal, encoding=encoding, sheet=sheet
        ) as source:
            read = _io.read_columns(source, names, console=stderr_console())
        arrays = read.arrays
        n_rows = len(arrays[item])
        ids = {"item": _ids(arrays[item], item)}
        for key, column in (("judge", judge_column), ("run", run), ("system", system)):
            if column is not None:
                ids[key] = _ids(arrays[column], column)
        columns = {"item": item, "judge": judge_column, "run": run, "system": system}
        with captured_warnings() as caught:
            if order is not None:
                res, page_settings, payload = _position(
                    arrays, ids, score, order, source.name, n_rows, columns,
                    verdict_labels, order_labels, ci,
                )  # fmt: skip
            else:
                res, page_settings, payload = _reliability(
                    arrays, ids, score, humans, source, n_rows, columns,
                    runs, target, min_kappa, aggregate, ci, n_resamples, seed,
                )  # fmt: skip
            page = None
            if target_file is not None:
                make = (
                    _judge_display.position_report
                    if order is not None
                    else _judge_display.reliability_report
                )
                page = make(
                    res, file=file, source_name=source.name, settings=page_settings, title=title
                )
        if page is not None and target_file is not None:
            page.add_warnings(warning_texts(caught))
            _output.write_text(target_file, page.render())
        if as_json:
            _display.print_json({"file": file, **payload, **res.to_dict()})
            return
        console = _display.stdout_console(
            to_stderr=target_file is not None and target_file.is_stdout
        )
        heading = (
            f"{source.label}: is there a position bias?"
            if order is not None
            else f"{source.label}: is the LLM judge reliable?"
        )
        _judge_display.print_tables(res, console, heading=heading)
        if target_file is not None and not target_file.is_stdout:
            console.print(f"wrote {report}")


def _reliability(arrays, ids, score, humans, source, n_rows, columns, runs, target,
                 min_kappa, aggregate, ci, n_resamples, seed):  # fmt: skip
    scores = _scores(arrays[score], score, source.decimal)
    human_matrix = None
    if humans:
        per_row = {h: _scores(arrays[h], h, source.decimal) for h in humans}
        human_matrix = _per_item(ids["item"], per_row)
    terms = in_file_terms({**columns, "score": score}, said={"human": "--human"})
    with terms:
        res = qwkit.judge_reliability(
            item=ids["item"],
            run=ids.get("run"),
            score=scores,
            judge=ids.get("judge"),
            human=human_matrix,
            system=ids.get("system"),
            runs=runs.value,
            target=target,
            min_kappa=min_kappa,
            aggregate=aggregate.value,
            confidence_level=ci,
            n_resamples=n_resamples,
            rng=seed,
        )
    roles = {**columns, "score": score, "human": ", ".join(humans) or None}
    settings = _settings_rows(
        source.name,
        n_rows,
        roles,
        [
            ["runs", runs.value],
            ["target reliability", target],
            ["kappa criterion", min_kappa],
            ["aggregate of runs and judges", aggregate.value],
            ["intervals", f"{ci:g}, jackknife over items (Kendall's W: bootstrap, seed {seed})"],
            ["missing scores (left out)", int(np.count_nonzero(np.isnan(scores)))],
        ],
    )
    payload = {"columns": roles, "n_rows": n_rows}
    return res, settings, payload


def _position(arrays, ids, score, order, source_name, n_rows, columns, verdict_labels,
              order_labels, ci):  # fmt: skip
    verdict, present = _verdicts(arrays[score], score)
    order_values, order_present = _verdicts(arrays[order], order)
    if not order_present.all():
        r = int(np.flatnonzero(~order_present)[0])
        raise CliError(f"column '{order}' has an empty cell (data row {file_row(r)}).")
    keep = np.flatnonzero(present)
    if not keep.size:
        raise CliError(f"column '{score}' has no verdict.")
    rows = keep if keep.size < n_rows else None

    def kept(values):
        return None if values is None else values[keep]

    terms = in_file_terms(
        {**columns, "verdict": score, "order": order},
        rows,
        said={"verdict_labels": "--verdicts", "order_labels": "--order-labels"},
    )
    with terms:
        res = qwkit.position_bias_test(
            item=kept(ids["item"]),
            order=kept(order_values).astype(str),
            verdict=kept(verdict).astype(str),
            judge=kept(ids.get("judge")),
            run=kept(ids.get("run")),
            verdict_labels=verdict_labels,
            order_labels=order_labels,
            confidence_level=ci,
        )
    roles = {**columns, "verdict": score, "order": order}
    settings = _settings_rows(
        source_name,
        n_rows,
        roles,
        [
            ["verdicts (A, B, tie)", ", ".join(verdict_labels)],
            ["orders (A first, B first)", ", ".join(order_labels)],
            ["rows without a verdict (left out)", n_rows - int(keep.size)],
            ["intervals", f"{ci:g}"],
        ],
    )
    payload = {"columns": roles, "n_rows": n_rows, "n_without_verdict": n_rows - int(keep.size)}
    return res, settings, payload
