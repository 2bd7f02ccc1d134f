"""The optimism-corrected kappa of fitted cut points, for ``qwkit thresholds fit`` and
``qwkit report --score``: what the cut points will score on new data
(``qwkit.optimism_corrected_kappa``; docs/optimism.md), its options and how it is shown.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

import qwkit
from qwkit.cli import _display, _plots
from qwkit.cli._errors import stderr_console
from qwkit.cli._progress import progress_bar

__all__ = [
    "MIN_OPTIMISM_ITEMS",
    "OPTIMISM_MEANING",
    "OPTIMISM_WORDS",
    "Optimism",
    "OptimismOpt",
    "OptimismResamplesOpt",
    "OptimismSeedOpt",
    "optimism",
    "optimism_json",
    "optimism_text",
]


class Optimism(str, Enum):
    cv = "cv"
    bootstrap = "bootstrap"
    none = "none"


#: The one line that says what the optimism-corrected kappa is.
OPTIMISM_MEANING = (
    "what these cut points will score on new data (the in-sample kappa is optimistic: "
    "they were fitted to maximize it on these rows)"
)
#: The parameters of ``optimism_corrected_kappa`` as the command line says them.
OPTIMISM_WORDS = {"n_resamples": "--optimism-resamples", "n_splits": "the number of folds"}
#: Fewer items than this: no optimism-corrected kappa (10-fold cross-fitting needs 10).
MIN_OPTIMISM_ITEMS = 10

OptimismOpt = Annotated[
    Optimism,
    typer.Option(
        "--optimism",
        help="How the kappa of the cut points on new data is estimated: cv (cut points "
        "refitted on 9 of 10 folds score the tenth, repeated), bootstrap (the bootstrap "
        "of Efron and Gong; it corrects only part of the optimism), or none (the kappa "
        "on these rows only).",
        metavar="METHOD",
    ),
]
OptimismResamplesOpt = Annotated[
    int,
    typer.Option(
        "--optimism-resamples",
        help="Refits for --optimism: folds over all repetitions for cv (a multiple of 10), "
        "or resamples for bootstrap.",
        min=10,
        max=100_000,
        metavar="N",
    ),
]
OptimismSeedOpt = Annotated[
    int, typer.Option(help="Seed of the refits of --optimism.", min=0, metavar="SEED")
]


def optimism(y_true, y_score, data, terms, *, weights, labels, method, n_resamples, seed):
    """``qwkit.optimism_corrected_kappa`` behind a progress bar, or None (with
    ``--optimism none``, or fewer than :data:`MIN_OPTIMISM_ITEMS` items: a warning)."""
    if method is Optimism.none:
        return None
    n_items = data.n_items
    if n_items < MIN_OPTIMISM_ITEMS:
        stderr_console().print(
            f"qwkit: warning: no optimism-corrected kappa: {n_items} item(s) are too few "
            f"to refit the cut points (at least {MIN_OPTIMISM_ITEMS})."
        )
        return None
    with terms, progress_bar(f"optimism ({method.value})", unit="refits") as progress:
        return qwkit.optimism_corrected_kappa(
            y_true,
            y_score,
            labels=labels,
            weights=weights,
            method=method.value,
            n_resamples=n_resamples,
            rng=seed,
            progress=progress,
            **data.item_weights,
        )


def optimism_json(opt, level: float) -> dict | None:
    """The optimism-corrected kappa for ``--json`` and the thresholds file: its
    ``to_dict()`` (without the cut points, given beside it) and the interval at ``level``."""
    if opt is None:
        return None
    out = {k: v for k, v in opt.to_dict().items() if k not in ("thresholds", "labels")}
    low, high = opt.confidence_interval(level)
    return {**out, "confidence_level": level, "ci_low": low, "ci_high": high}


def optimism_text(opt, level: float) -> str:
    """One line: the optimism-corrected kappa with its interval and how it was estimated."""
    low, high = opt.confidence_interval(level)
    if opt.method == "cv":
        how = f"{opt.n_splits}-fold cross-fitting x {opt.n_resamples // opt.n_splits}"
    else:
        how = f"bootstrap, {opt.n_resamples:,} resamples"
    return (
        f"optimism-corrected kappa: {_display.number(opt.statistic)}, "
        f"{_plots.percent(level)} CI [{_display.number(low)}, {_display.number(high)}] "
        f"({how}; optimism {_display.number(opt.optimism)})"
    )
