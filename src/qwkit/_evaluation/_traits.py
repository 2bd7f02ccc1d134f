"""``evaluate_traits``: a long table of several traits per response (several rubric criteria,
aspects or dimensions: HANNA's relevance, coherence, …), each trait evaluated on its own
rows by :func:`evaluate_scorer`, and every verdict in one table with p-values adjusted for
the number of tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._items import item_labels, paired, take_column
from qwkit._base._ratings import RatingsLike, RatingsTable
from qwkit._base._results import plain
from qwkit._base._tables import Column, Table, render_text
from qwkit._base._validation import Columns
from qwkit._base._weights import WeightsLike
from qwkit._evaluation._design import categories
from qwkit._evaluation._evaluate import evaluate_scorer
from qwkit._evaluation._fairness import holm
from qwkit._evaluation._records import Criterion
from qwkit._evaluation._result import EvaluationResult, overall

__all__ = ["TraitEvaluationResult", "evaluate_traits"]


class TraitCriterion(NamedTuple):
    """One criterion of one machine on one trait (an entry of
    :attr:`TraitEvaluationResult.criteria`)."""

    trait: object
    criterion: Criterion


@dataclass(frozen=True, slots=True, eq=False)
class TraitEvaluationResult:
    """Result of :func:`evaluate_traits`: one :class:`EvaluationResult` per trait.

    Attributes
    ----------
    traits : tuple
        The traits, sorted.
    results : tuple of EvaluationResult
        One evaluation per trait, in the order of ``traits``.
    pvalues_adjusted : tuple of float
        Each criterion's p-values adjusted over every trait × machine by Holm's method, in
        the order of :attr:`criteria`.

    Notes
    -----
    ``result[trait]`` is a trait's evaluation; ``criteria`` lists every criterion of every
    machine of every trait. Each verdict is a test at its own level; over T traits × M
    machines the chance of at least one wrong verdict grows with T·M, which the Holm-adjusted
    p-values control (family-wise, per criterion).
    """

    traits: tuple
    results: tuple

    def __getitem__(self, trait) -> EvaluationResult:
        for t, res in zip(self.traits, self.results, strict=True):
            if t == trait:
                return res
        raise KeyError(f"no trait {trait!r}; the traits are {list(self.traits)}")

    @property
    def criteria(self) -> tuple[TraitCriterion, ...]:
        """Every criterion of every machine of every trait, with its trait."""
        return tuple(TraitCriterion(t, c) for t, res in zip(self.traits, self.results, strict=True)
                     for c in res.criteria)  # fmt: skip

    @property
    def pvalues_adjusted(self) -> tuple[float, ...]:
        """Holm-adjusted p-values of each criterion over traits × machines, in the order
        of :attr:`criteria` (nan where the p-value is)."""
        rows = self.criteria
        out = [float("nan")] * len(rows)
        for name in dict.fromkeys(c.criterion for _, c in rows):
            where = [i for i, (_, c) in enumerate(rows) if c.criterion == name]
            for i, p in zip(where, holm([rows[i][1].pvalue for i in where]), strict=True):
                out[i] = p
        return tuple(out)

    @property
    def verdict(self) -> str:
        """'fail' when a criterion of a trait fails, 'inconclusive' when one is, else
        'pass'."""
        return overall([c for _, c in self.criteria])

    def tables(self) -> tuple[Table, ...]:
        """The decision table of every trait and machine, then each trait's own tables."""
        adjusted = self.pvalues_adjusted
        level = self.results[0].settings["confidence_level"]
        rows = tuple(
            (str(t), str(c.model), c.name, c.estimate, (c.low, c.high),
             f"{'|x| <=' if c.relation == 'within' else c.relation} {c.threshold:g}",
             c.pvalue, p, c.verdict)
            for (t, c), p in zip(self.criteria, adjusted, strict=True)
        )  # fmt: skip
        n_tests = len(rows)
        summary = Table(
            key="traits",
            title="May the machine stand in for a human rater, trait by trait?",
            columns=(
                Column("trait", "text"),
                Column("model", "text"),
                Column("criterion", "text"),
                Column("estimate", "number", 4),
                Column(f"{100 * level:g}% CI", "interval", 3),
                Column("threshold", "text"),
                Column("p-value", "pvalue"),
                Column("p (Holm)", "pvalue"),
                Column("verdict", "verdict"),
            ),
            rows=rows,
            notes=(
                f"{len(self.traits)} traits × {len(self.results[0].models)} machine(s): "
                f"{n_tests} tests, each at its own level. p (Holm): adjusted over the traits "
                "and machines of each criterion, which controls the chance of any wrong "
                "verdict of that criterion.",
                f"Overall verdict: {self.verdict}.",
            ),
        )
        out = [summary]
        for t, res in zip(self.traits, self.results, strict=True):
            for table in res.tables():
                out.append(
                    Table(
                        key=table.key,
                        title=f"[{t}] {table.title}",
                        columns=table.columns,
                        rows=table.rows,
                        notes=table.notes,
                    )
                )
        return tuple(out)

    def summary(self) -> str:
        """The tables of :meth:`tables` as text."""
        title = "Scorer evaluation by trait"
        return "\n".join(
            [title + "\n" + "=" * len(title) + "\n"] + [render_text(t) for t in self.tables()]
        )

    def to_dict(self) -> dict:
        """The evaluation as plain Python values (for JSON)."""
        adjusted = self.pvalues_adjusted
        return plain(
            {
                "verdict": self.verdict,
                "traits": list(self.traits),
                "criteria": [
                    {"trait": t, **c.to_dict(), "pvalue_adjusted": p}
                    for (t, c), p in zip(self.criteria, adjusted, strict=True)
                ],
                "results": {
                    str(t): res.to_dict() for t, res in zip(self.traits, self.results, strict=True)
                },
            }
        )


def _take(value, rows: np.ndarray, name: str):
    """The rows ``rows`` of an input of one value per row (any container)."""
    if value is None:
        return None
    if isinstance(value, RatingsTable):
        raise QwkitTypeError(
            f"`{name}` is a RatingsTable; `evaluate_traits` reads one row per response and "
            "trait — pass the long table's columns (a data frame) instead.",
            parameter=name,
        )
    if hasattr(value, "iloc"):
        return value.iloc[rows]
    if hasattr(value, "columns") and hasattr(value, "to_numpy"):  # polars
        return value[rows]
    if isinstance(value, Mapping):
        return {k: _take(v, rows, name) for k, v in value.items()}
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        value = value.to_numpy()
    arr = np.asarray(value, dtype=object if isinstance(value, list) else None)
    return arr[rows]


def evaluate_traits(
    human: RatingsLike,
    machine: Columns,
    trait: ArrayLike | str,
    *,
    item: ArrayLike | str | None = None,
    cluster: ArrayLike | str | None = None,
    groups: ArrayLike | str | None = None,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    criteria: str | tuple[str, ...] | None = None,
    margin: float = 0.10,
    min_kappa: float = 0.70,
    min_correlation: float = 0.70,
    max_smd: float = 0.15,
    max_group_smd: float = 0.10,
    max_dsm: float = 0.10,
    smd: Literal["pooled", "unpooled"] = "pooled",
    trim: bool | float = True,
    confidence_level: float = 0.95,
    pairs: Literal["first", "all"] = "first",
    method: Literal["jackknife", "asymptotic", "bootstrap"] = "jackknife",
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: Callable[[int, int], object] | None = None,
) -> TraitEvaluationResult:
    """Evaluate a scorer on several traits of each response, from one long table.

    A long file holds one row per response and trait (a rubric criterion, aspect or
    dimension — an essay's organization and conventions, a story's coherence and
    relevance): ``trait`` says which. Each trait is evaluated on its own rows by
    :func:`evaluate_scorer` — an item appears once per trait, and ``item=`` ids may repeat
    across traits but not within one — and every verdict comes back in one table, with
    each criterion's p-values adjusted over traits × machines by Holm's method.

    Parameters
    ----------
    human, machine
        As in :func:`evaluate_scorer`, one row per response and trait.
    trait : array-like of shape (n_rows,) or str
        The trait of each row, or the name of a column of ``human``.
    item, cluster, groups, weights, labels, criteria, margin, min_kappa, min_correlation, \
max_smd, max_group_smd, max_dsm, smd, trim, confidence_level, pairs, method, \
n_resamples, rng, nan_policy
        As in :func:`evaluate_scorer`, applied to every trait (``labels``: one scale for
        all; None: each trait's own).
    progress : callable, default=None
        ``progress(done, total)`` after each trait.

    Returns
    -------
    TraitEvaluationResult
        ``traits``, ``results`` (one :class:`EvaluationResult` per trait, also
        ``result[trait]``), ``criteria``, ``pvalues_adjusted``, ``verdict``, ``.tables()``,
        ``.summary()``, ``.to_dict()``.

    Raises
    ------
    QwkitError
        An id on two rows of one trait (the rows named), a trait with no item rated by
        two humans (the trait named), and every error of :func:`evaluate_scorer`.

    Examples
    --------
    >>> import numpy as np
    >>> import qwkit
    >>> rng = np.random.default_rng(20261121)
    >>> n = 600
    >>> truth = rng.normal(3, 1, size=(n, 1))
    >>> human = np.clip(np.rint(truth + rng.normal(0, 0.5, (n, 2))), 1, 5)
    >>> human[::2, 1] = np.nan                      # half the rows rated twice
    >>> machine = truth[:, 0] + rng.normal(0, 0.4, n)
    >>> trait = np.repeat(["content", "style"], n // 2)
    >>> ids = np.tile(np.arange(n // 2), 2)          # each essay once per trait
    >>> res = qwkit.evaluate_traits(human, machine, trait, item=ids)
    >>> res.traits, [r.n_items for r in res.results]
    (('content', 'style'), [300, 300])
    >>> [(t, c.name, c.verdict) for t, c in res.criteria][:2]
    [('content', 'QWK', 'pass'), ('content', 'Pearson r', 'pass')]
    >>> res.verdict
    'pass'
    """
    if isinstance(trait, str):
        trait, human = take_column(human, trait, owner="human", parameter="trait")
    if isinstance(item, str):
        item, human = take_column(human, item, owner="human", parameter="item")
    if isinstance(cluster, str):
        cluster, human = take_column(human, cluster, owner="human", parameter="cluster")
    if isinstance(groups, str):
        groups, human = take_column(human, groups, owner="human", parameter="groups")
    human, machine, trait, item, cluster, groups = paired(
        (human, machine, trait, item, cluster, groups),
        ("human", "machine", "trait", "item", "cluster", "groups"),
    )
    if item is None and item_labels(human) is not None:
        item = np.asarray(item_labels(human))
    n = len(trait) if hasattr(trait, "__len__") else None
    if n is None:
        raise QwkitTypeError(f"`trait` must be array-like; got {trait!r}.", parameter="trait")
    if n == 0:
        raise QwkitError(
            "`trait` is empty: no response to evaluate (one row per response and trait).",
            parameter="trait",
        )
    found = categories(trait, "trait", n)
    options: dict[str, Any] = {
        "weights": weights,
        "labels": labels,
        "criteria": criteria,
        "margin": margin,
        "min_kappa": min_kappa,
        "min_correlation": min_correlation,
        "max_smd": max_smd,
        "max_group_smd": max_group_smd,
        "max_dsm": max_dsm,
        "smd": smd,
        "trim": trim,
        "confidence_level": confidence_level,
        "pairs": pairs,
        "method": method,
        "n_resamples": n_resamples,
        "rng": rng,
        "nan_policy": nan_policy,
    }
    results = []
    for t, label in enumerate(found.labels):
        rows = np.flatnonzero(found.codes == t)
        try:
            results.append(
                evaluate_scorer(
                    _take(human, rows, "human"),
                    _take(machine, rows, "machine"),
                    item=_take(item, rows, "item"),
                    cluster=_take(cluster, rows, "cluster"),
                    groups=_take(groups, rows, "groups"),
                    **options,
                )
            )
        except QwkitError as exc:  # said of the trait, at the row of the whole table
            row = None if exc.row is None else int(rows[exc.row])
            raise type(exc)(
                f"Trait {label!r}: {exc}", parameter=exc.parameter, row=row, also=exc.parameters[1:]
            ) from None
        if progress is not None:
            progress(t + 1, found.n)
    return TraitEvaluationResult(traits=found.labels, results=tuple(results))
