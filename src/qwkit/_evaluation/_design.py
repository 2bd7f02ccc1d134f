"""The design of an evaluation: which rows are which items, which clusters hold them, which
subgroups they belong to — validated once, before any statistic.

``item=`` (the items' ids), ``cluster=`` (responses nested in prompts, tasks, test
takers: the sampling units of every standard error) and ``groups=`` (subgroups of the
fairness analyses) are each one value per row, or the name of a column of ``human`` (a
data frame or a mapping of columns), which is then not a rating column. Named ids also
pair ``machine`` when it has the column; otherwise the rows pair as
:func:`qwkit._base._items.paired` says (labels, else positions).

An item is one row: an id on two rows is refused, naming the rows (a long file of several
traits per response is :func:`qwkit.evaluate_traits`'s).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._items import (
    has_column,
    item_labels,
    order_by_ids,
    paired,
    take_column,
    unique_ids,
)
from qwkit._base._results import plain
from qwkit._base._validation import as_1d, check_same_length
from qwkit._evaluation._estimates import MIN_UNITS
from qwkit._evaluation._input import TRIM_TOLERANCE, Scores, check_trim, prepare, trim_scores

__all__ = [
    "Categories",
    "Design",
    "Inputs",
    "categories",
    "design_columns",
    "item_ids",
    "prepare_inputs",
]

_REPEAT_HINT = (
    " A response rated on several traits is one row per trait: pass the trait column as "
    "`trait` to `evaluate_traits`; responses nested in prompts or test takers are one row "
    "each, with `cluster`."
)


@dataclass(frozen=True, slots=True, eq=False)
class Categories:
    """A label per item: ``codes`` (0 … n − 1, intp) into ``labels`` (sorted, plain
    Python values)."""

    codes: np.ndarray
    labels: tuple

    @property
    def n(self) -> int:
        return len(self.labels)

    def take(self, rows: np.ndarray) -> Categories:
        """The categories of ``rows`` (a mask or indices), renumbered to those that
        occur there."""
        codes = self.codes[rows]
        present = np.bincount(codes, minlength=self.n) > 0
        if present.all():
            return Categories(codes, self.labels)
        renumber = (np.cumsum(present) - 1).astype(np.intp)
        return Categories(renumber[codes], tuple(np.asarray(self.labels, dtype=object)[present]))


@dataclass(frozen=True, slots=True, eq=False)
class Design:
    """The items' ids (None: unnamed), their clusters and their subgroups."""

    ids: np.ndarray | None
    clusters: Categories | None
    groups: Categories | None


def categories(values, name: str, n: int) -> Categories:
    """One label per item (no missing label) as :class:`Categories`."""
    arr = as_1d(values, name)
    check_same_length(np.empty(n), arr, ("human", name))
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        i = int(np.flatnonzero(np.isnan(arr))[0])
        raise QwkitError(
            f"`{name}` has no label for the item in row {i} (NaN).", parameter=name, row=i
        )
    labels, codes = np.unique(arr, return_inverse=True)
    return Categories(codes.astype(np.intp).ravel(), tuple(plain(labels)))


def item_ids(values, n: int, name: str = "item") -> np.ndarray:
    """One id per row, none twice."""
    ids = as_1d(values, name)
    check_same_length(np.empty(n), ids, ("human", name))
    if ids.dtype.kind == "f" and np.isnan(ids).any():
        i = int(np.flatnonzero(np.isnan(ids))[0])
        raise QwkitError(f"`{name}` has no id in row {i} (NaN).", parameter=name, row=i)
    unique_ids(ids, name, hint=_REPEAT_HINT)
    return ids


def design_columns(human, machine, *, item=None, cluster=None, groups=None):
    """``(human, machine, item, cluster, groups)`` with every option that names a column
    replaced by its values (taken out of ``human``), ``machine`` ordered by the named ids
    when it has them too, and inputs that carry labels paired by them."""
    if isinstance(item, str):
        ids, human = take_column(human, item, owner="human", parameter="item")
        if has_column(machine, item):
            other, machine = take_column(machine, item, owner="machine", parameter="item")
            order = order_by_ids(as_1d(ids, "item"), as_1d(other, "item"), ("human", "machine"))
            machine = _rows(machine, order)
        item = ids
    if isinstance(cluster, str):
        cluster, human = take_column(human, cluster, owner="human", parameter="cluster")
    if isinstance(groups, str):
        groups, human = take_column(human, groups, owner="human", parameter="groups")
    human, machine, item, cluster, groups = paired(
        (human, machine, item, cluster, groups),
        ("human", "machine", "item", "cluster", "groups"),
    )
    if item is None:  # a pandas index or a table's items: they name the items
        labels = item_labels(human)
        if labels is not None:
            item = np.asarray(labels)
    return human, machine, item, cluster, groups


def _rows(value, order: np.ndarray):
    """The rows ``order`` of a data frame or mapping of columns."""
    if hasattr(value, "iloc"):
        return value.iloc[order]
    if hasattr(value, "columns") and hasattr(value, "to_numpy"):  # polars
        return value[order]
    return {k: np.asarray(v)[order] for k, v in value.items()}


@dataclass(frozen=True, slots=True, eq=False)
class Inputs:
    """Everything an evaluation function reads: the scores on one scale (trimmed as
    asked), the design, and what trimming did to each machine column."""

    scores: Scores
    design: Design
    n_trimmed: tuple[int, ...]
    n_outside: tuple[int, ...]
    tolerance: float  # of the trimming (RSMTool's 0.4998 unless asked otherwise)

    def one_machine(self, hint: str = "") -> Scores:
        """The scores of a function that evaluates one machine (a QwkitError for several;
        ``hint`` ends the message)."""
        scores = self.scores
        if scores.machine.shape[1] != 1:
            raise QwkitError(
                f"`machine` must hold one score per item; got {scores.machine.shape[1]} "
                f"columns.{hint}",
                parameter="machine",
            )
        return scores


def prepare_inputs(
    human,
    machine,
    *,
    item=None,
    cluster=None,
    groups=None,
    weights="quadratic",
    labels=None,
    nan_policy: str = "raise",
    trim: bool | float = True,
    names: tuple[str, str] = ("human", "machine"),
) -> Inputs:
    """The validation step of every evaluation function: columns named by the options,
    pairing, the scale, trimming, and the design (ids, clusters, groups)."""
    tolerance = check_trim(trim)
    human, machine, item, cluster, groups = design_columns(
        human, machine, item=item, cluster=cluster, groups=groups
    )
    scores = prepare(
        human, machine, weights=weights, labels=labels, nan_policy=nan_policy, names=names
    )
    n = scores.n_items
    ids = None if item is None else item_ids(item, n)
    clusters = None if cluster is None else categories(cluster, "cluster", n)
    if clusters is not None and clusters.n < 2:
        raise QwkitError(
            f"`cluster` puts every item in one cluster ({clusters.labels[0]!r}); "
            "cluster-robust standard errors need two or more clusters (and conclusive "
            f"verdicts {MIN_UNITS} or more).",
            parameter="cluster",
        )
    found = None if groups is None else categories(groups, "groups", n)
    trimmed = trim_scores(
        scores, tolerance is not None, TRIM_TOLERANCE if tolerance is None else tolerance
    )
    return Inputs(
        scores=trimmed.scores,
        design=Design(ids=ids, clusters=clusters, groups=found),
        n_trimmed=trimmed.n_trimmed,
        n_outside=trimmed.n_outside,
        tolerance=TRIM_TOLERANCE if tolerance is None else tolerance,
    )
