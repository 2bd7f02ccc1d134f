"""``qwkit evaluate``: may a machine (an automated scorer, an LLM judge) stand in for a
human rater?

The file holds one row per item: human rating columns (``--human``, the first one the
reference; an empty cell is an item that rater did not rate — usually most items are
rated once and some twice), one or more machine columns (``--machine``: ratings on the
human scale or real-valued scores) and optionally a group column (``--group``). It is
``qwkit.evaluate_scorer`` (docs/evaluation.md): Williamson, Xi & Breyer's (2012)
criteria as tests — each with its estimate, interval, threshold, p-value and verdict —
the human-human ceiling beside each machine, every rater's kappa, PRMSE and the
subgroups. ``--report FILE.html`` adds the figures of ``EvaluationResult.plot``.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import numpy as np
import typer

import qwkit
from qwkit._base._registry import CRITERIA
from qwkit.cli import _columns, _display, _evaluation_display, _output
from qwkit.cli._errors import (
    captured_warnings,
    guard,
    in_file_terms,
    renamed_options,
    stderr_console,
    warning_texts,
)
from qwkit.cli._options import (
    Alignment,
    FileArg,
    ForceOpt,
    JsonOpt,
    LabelsOpt,
    MissingOpt,
    NanPolicyOpt,
    Reading,
    SeedOpt,
    TitleOpt,
    Weights,
    WeightsOpt,
    check_one_stdout,
    column_list,
    labels_option,
    missing_option,
    nan_policy_option,
    option_blocks,
    report_option,
)
from qwkit.cli._progress import progress_bar

__all__ = ["evaluate"]


class EvaluationMethod(str, Enum):
    jackknife = "jackknife"
    asymptotic = "asymptotic"
    bootstrap = "bootstrap"


class SmdDefinition(str, Enum):
    pooled = "pooled"
    unpooled = "unpooled"


class Pairs(str, Enum):
    first = "first"
    all = "all"


def _open_unit(value: float) -> float:
    """``--margin``: strictly between 0 and 1 (a loss of kappa)."""
    if not 0.0 < value < 1.0:
        raise typer.BadParameter(f"must be strictly between 0 and 1; got {value:g}.")
    return value


def _positive(value: float) -> float:
    if not value > 0.0:
        raise typer.BadParameter(f"must be positive; got {value:g}.")
    return value


def _below_one(value: float) -> float:
    """A criterion on kappa or a correlation: in [0, 1) (no estimate can be shown to
    reach 1)."""
    if not 0.0 <= value < 1.0:
        raise typer.BadParameter(f"must be in [0, 1) (0 included, 1 not); got {value:g}.")
    return value


def _threshold(name: str):
    """The option of a criterion's threshold, from its record in the registry."""
    record = CRITERIA[name]
    positive = record.relation == "within"
    relation = "|x| <= X" if positive else ">= X"
    return typer.Option(
        help=f"Criterion: {record.help}, {relation} ({record.source})."
        + ("" if positive else " X in [0, 1)."),
        metavar="X",
        callback=_positive if positive else _below_one,
    )


def _criteria_list(values: list[str] | None) -> tuple[str, ...] | None:
    """``--criteria``: registry names separated by commas (None: the default set)."""
    if values is None:
        return None
    names = column_list(values, "--criteria", at_least=1, example="kappa,degradation")
    found = []
    for name in names:
        key = name.strip().lower().replace("-", "_")
        if key not in CRITERIA:
            raise typer.BadParameter(
                f"unknown criterion '{name}'; choose from {', '.join(CRITERIA.names)}.",
                param_hint="--criteria",
            )
        found.append(key)
    return tuple(dict.fromkeys(found))


def _columns_option(help_text: str):
    return typer.Option(help=help_text, show_default=False, metavar="COLUMNS")


def _distinct(human: list[str], machine: list[str], *others: tuple[str, str | None]) -> None:
    """A column is a human's, a machine's, the groups', the ids' or the clusters', not
    two of them."""
    roles = [("--human", human), ("--machine", machine)]
    roles += [(option, [name] if name else []) for option, name in others]
    seen: dict[str, str] = {}
    for option, names in roles:
        for name in names:
            if name in seen:
                raise typer.BadParameter(
                    f"column '{name}' is given to both {seen[name]} and {option}.",
                    param_hint=option,
                )
            seen[name] = option


def _real_scores(exc, machine: dict, weights: Weights) -> str | None:
    """The command line's words for real-valued scores under weights that need ratings
    (the API's error about ``machine`` and ``weights``): None for any other error."""
    if exc.parameters != ("machine", "weights"):
        return None
    real = [name for name, v in machine.items() if v.dtype.kind == "f" and _fractional(v)]
    if not real:
        return None
    return (
        f"column '{real[0]}' holds real-valued scores; --weights {weights.value} needs "
        "ratings on the scale: round the scores first (qwkit thresholds apply), or use "
        "--weights quadratic, whose continuous form scores real values as they are."
    )


def _fractional(values) -> bool:
    present = values[~np.isnan(values)]
    return bool(np.any(present != np.floor(present)))


@renamed_options({"--confidence-level": "--ci", "--id": "--item"})
@option_blocks
def evaluate(
    file: FileArg,
    human: Annotated[
        list[str] | None,
        _columns_option(
            "The human rating columns, comma-separated (e.g. h1,h2,h3); the first is the "
            "reference human. An empty cell is an item that rater did not rate: some items "
            "must be rated by two humans."
        ),
    ] = None,
    machine: Annotated[
        list[str] | None,
        _columns_option(
            "The machine columns to evaluate, comma-separated (e.g. model,llm): ratings "
            "on the human scale or real-valued scores."
        ),
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(
            help="Column of subgroups (e.g. a demographic group): per group kappa, the "
            "humans' kappa, the degradation, the SMD within the group and RSMTool's DSM with "
            "simultaneous intervals, and the fairness analyses of Loukina et al. (2019).",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    id_column: Annotated[
        str | None,
        typer.Option(
            "--item",
            help="Column of item ids: an id on two rows is an error (one row per item).",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            help="Column of clusters (the prompt, task or test taker a response is nested "
            "in): the standard errors are all cluster-robust.",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    trait: Annotated[
        str | None,
        typer.Option(
            help="Column of traits (rubric criteria, aspects) of a long file, one row per "
            "response and trait: each trait is evaluated on its own rows, every verdict in "
            "one table with Holm-adjusted p-values.",
            show_default=False,
            metavar="COLUMN",
        ),
    ] = None,
    criteria: Annotated[
        list[str] | None,
        typer.Option(
            help="The criteria of the verdict, separated by commas, among "
            + ", ".join(CRITERIA.names)
            + " (default: all but dsm; the group ones with --group).",
            show_default=False,
            metavar="LIST",
        ),
    ] = None,
    margin: Annotated[
        float,
        typer.Option(
            help="Non-inferiority margin of the degradation test: the loss of kappa from "
            "the human-human agreement the machine may show (strictly between 0 and 1).",
            callback=_open_unit,
            metavar="X",
        ),
    ] = 0.10,
    min_kappa: Annotated[float, _threshold("kappa")] = CRITERIA["kappa"].default,
    min_correlation: Annotated[float, _threshold("pearson_r")] = CRITERIA["pearson_r"].default,
    max_smd: Annotated[float, _threshold("smd")] = CRITERIA["smd"].default,
    max_group_smd: Annotated[float, _threshold("group_smd")] = CRITERIA["group_smd"].default,
    max_dsm: Annotated[float, _threshold("dsm")] = CRITERIA["dsm"].default,
    smd: Annotated[
        SmdDefinition,
        typer.Option(
            help="The SD of the SMD criteria: pooled over human and machine (Williamson et "
            "al.'s) or the human's (RSMTool's default). Both are reported.",
            metavar="SD",
        ),
    ] = SmdDefinition.pooled,
    trim: Annotated[
        bool,
        typer.Option(
            "--trim/--no-trim",
            help="Clip real-valued scores to within 0.4998 of the scale's ends, as RSMTool "
            "does (how many moved is reported).",
        ),
    ] = True,
    weights: WeightsOpt = Weights.quadratic,
    labels: LabelsOpt = None,
    missing: MissingOpt = None,
    ci: Annotated[
        float,
        typer.Option(
            "--ci",
            help="Confidence level of every interval; a verdict's one-sided test has "
            "level (1 - LEVEL)/2.",
            min=0.5,
            max=0.9999,
            metavar="LEVEL",
        ),
    ] = 0.95,
    method: Annotated[
        EvaluationMethod,
        typer.Option(
            help="Intervals: jackknife (exact, delete one item or cluster, Student's t on "
            "its effective df: holds its level from 20 units), asymptotic (the delta method, "
            "large samples) or bootstrap (BCa; slow on large files).",
            metavar="METHOD",
        ),
    ] = EvaluationMethod.jackknife,
    n_resamples: Annotated[
        int,
        typer.Option(
            help="Bootstrap resamples (--method bootstrap). Fewer than the other commands' "
            "9999: each resample recomputes every statistic of every machine, and the "
            "default intervals are the jackknife's.",
            min=100,
            metavar="N",
        ),
    ] = 2000,
    seed: SeedOpt = 20261121,
    pairs: Annotated[
        Pairs,
        typer.Option(
            help="Human pairs of the degradation test: first (the first two --human "
            "columns) or all (every pair, weighted by its items: for rating slots, or "
            "raters who each rated a subset).",
            metavar="PAIRS",
        ),
    ] = Pairs.first,
    nan_policy: NanPolicyOpt = None,
    alt_test: Annotated[
        bool,
        typer.Option(
            "--alt-test",
            help="Also run the alternative annotator test (Calderon et al. 2025): may each "
            "machine replace one of the human annotators? Printed after the criteria, in "
            "--json ('alt_test') and in the report. Three or more --human columns.",
        ),
    ] = False,
    epsilon: Annotated[
        float,
        typer.Option(
            help="With --alt-test: its margin, how much better than the machine an annotator "
            "may be (0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers).",
            metavar="X",
        ),
    ] = 0.2,
    alignment: Annotated[
        Alignment,
        typer.Option(
            help="With --alt-test: how alignment with the remaining annotators is scored "
            "(accuracy, rmse, or kappa; kappa or rmse for real-valued scores).",
            metavar="NAME",
        ),
    ] = Alignment.accuracy,
    report: Annotated[str | None, report_option(" with the figures")] = None,
    title: TitleOpt = None,
    reading: Reading = Reading(),
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """May a machine stand in for a human rater?

    Williamson et al.'s (2012) criteria as tests. For each machine: kappa and Pearson's
    r with the reference human, the degradation from human-human kappa on the same items
    (a paired non-inferiority test), the standardized mean difference, each with its
    interval, threshold, p-value and a verdict (pass: the whole interval on the passing
    side; fail: wholly on the other; inconclusive otherwise); beside them the human-human
    ceiling, the kappa of every pair of raters, PRMSE and the subgroups."""
    policy = nan_policy_option(nan_policy)
    humans = column_list(human, "--human", at_least=2, example="h1,h2,h3")
    machines = column_list(machine, "--machine", at_least=1, example="model,llm")
    _distinct(
        humans,
        machines,
        ("--group", group),
        ("--item", id_column),
        ("--cluster", cluster),
        ("--trait", trait),
    )
    chosen = _criteria_list(criteria)
    if alt_test and trait is not None:
        raise typer.BadParameter(
            "--alt-test runs on one trait at a time: filter the file to one trait.",
            param_hint="'--alt-test'",
        )
    if not alt_test and (epsilon != 0.2 or alignment is not Alignment.accuracy):
        raise typer.BadParameter(
            "--epsilon and --alignment set the alternative annotator test: add --alt-test.",
            param_hint="'--alt-test'",
        )
    if not 0.0 <= epsilon < 1.0:
        raise typer.BadParameter(
            f"must be at least 0 and below 1; got {epsilon:g}.", param_hint="'--epsilon'"
        )
    scale_given = labels_option(labels)
    codes = missing_option(missing)
    reading = reading.checked()
    check_one_stdout(report, as_json, "--report")
    with guard():
        target = _output.plan_given(report, kind=_output.REPORT, file=file, force=force)
        with reading.open(file) as source:
            data = _columns.load_scored(
                source,
                human=humans,
                machine=machines,
                group=group,
                labels=scale_given,
                omit_unscored=policy == "omit",
                text_allowed=weights is Weights.identity,
                missing=codes,
                console=stderr_console(),
                id_column=id_column,
                cluster=cluster,
                trait=trait,
            )
        terms = in_file_terms(
            {"groups": group, "item": id_column, "cluster": cluster, "trait": trait},
            labels=data.labels_origin,
            said={"human": "--human", "machine": "--machine"},
            explain=lambda exc: _real_scores(exc, data.machine, weights),
        )
        with captured_warnings() as caught, terms:
            with progress_bar(f"{method.value} evaluation", unit="statistics") as progress:
                evaluate = qwkit.evaluate_scorer
                by_trait = {}
                if data.traits is not None:
                    evaluate, by_trait = qwkit.evaluate_traits, {"trait": data.traits}
                res = evaluate(
                    data.human,
                    data.machine,
                    **by_trait,
                    item=data.ids,
                    cluster=data.clusters,
                    groups=data.groups,
                    weights=weights.value,
                    labels=data.labels,
                    criteria=chosen,
                    margin=margin,
                    min_kappa=min_kappa,
                    min_correlation=min_correlation,
                    max_smd=max_smd,
                    max_group_smd=max_group_smd,
                    max_dsm=max_dsm,
                    smd=smd.value,
                    trim=trim,
                    confidence_level=ci,
                    pairs=pairs.value,
                    method=method.value,
                    n_resamples=n_resamples,
                    rng=seed,
                    nan_policy=policy,
                    progress=progress,
                )
            alternative = {}
            if alt_test:
                for name, scores in data.machine.items():
                    alternative[name] = qwkit.alt_test(
                        data.human,
                        scores,
                        epsilon=epsilon,
                        alignment=alignment.value,
                        weights=weights.value,
                        labels=data.labels,
                        nan_policy=policy,
                    )
            if target is not None:
                page = _evaluation_display.report(
                    res,
                    file=file,
                    source_name=source.name,
                    group=group,
                    n_rows=data.n_rows,
                    labels_given=data.labels is not None,
                    title=title,
                    seed=seed,
                    n_resamples=n_resamples,
                )
        if target is not None:
            if alternative:
                page.section("Alternative annotator test")
                for name, one in alternative.items():
                    page.section(f"'{name}'", level=3)
                    page.preformatted(one.summary())
            page.add_warnings(warning_texts(caught))
            _output.write_text(target, page.render())
        if as_json:
            _display.print_json(
                {
                    "file": file,
                    "human": humans,
                    "machine": machines,
                    "group": group,
                    "id": id_column,
                    "cluster": cluster,
                    "trait": trait,
                    "n_rows": data.n_rows,
                    "nan_policy": policy,
                    **res.to_dict(),
                    **(
                        {"alt_test": {name: one.to_dict() for name, one in alternative.items()}}
                        if alt_test
                        else {}
                    ),
                }
            )
            return
        console = _display.stdout_console(to_stderr=target is not None and target.is_stdout)
        _evaluation_display.print_evaluation(res, console, label=source.label)
        for name, one in alternative.items():
            console.print(f"\n'{name}' as an annotator:")
            console.print(one.summary(), markup=False, highlight=False)
        if target is not None and not target.is_stdout:
            console.print(f"wrote {report}")
