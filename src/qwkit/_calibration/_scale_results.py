"""The records of :func:`human_scale_estimate`: one estimate, one comparison of two groups,
and the whole result with its tables, summary, plain values and figure."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qwkit._base._errors import QwkitError
from qwkit._base._results import freeze_arrays, plain, public_module, reduce_dataclass
from qwkit._base._tables import Column, Table, render_text
from qwkit._base._validation import show
from qwkit._calibration import _plots

__all__ = ["HumanScaleEstimate", "ScaleComparison", "ScaleEstimate"]


# ---------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True, eq=False)
class ScaleEstimate:
    """One quantity (the mean human rating, or one category's share) in one group.

    Attributes
    ----------
    group : object
        The group (None: all items).
    quantity : object
        ``"mean"``, or the label whose share this is.
    estimate, standard_error, low, high, df : float
        The PPI++ estimate (eqs. P1, P3), its standard error (eq. P4), its interval
        (Student's t on ``df`` degrees of freedom) at the result's confidence level.
    lam : float
        The power-tuning λ (eq. P3); 0 where the estimate is the humans-only one.
    human_only, human_only_standard_error, human_only_low, human_only_high, \
human_only_df : float
        The classical estimate from the labelled items alone (eq. P5).
    n_labelled, n_unlabelled : int
        Items of the group with and without human ratings.
    effective_labels : float
        How many human labels the humans-only estimate would need for the PPI++
        precision: n_labelled × (humans-only variance / PPI++ variance) (eq. P7).
    note : str
        Why the estimate is the humans-only one, if it is (eq. P6); else "".
    """

    group: object
    quantity: object
    estimate: float
    standard_error: float
    low: float
    high: float
    df: float
    lam: float
    human_only: float
    human_only_standard_error: float
    human_only_low: float
    human_only_high: float
    human_only_df: float
    n_labelled: int
    n_unlabelled: int
    effective_labels: float
    note: str = ""

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain({f: getattr(self, f) for f in self.__dataclass_fields__})


@dataclass(frozen=True, slots=True, eq=False)
class ScaleComparison:
    """Two groups compared on one quantity (eq. P9).

    Attributes
    ----------
    quantity : object
        ``"mean"``, or a label.
    group_a, group_b : object
        The groups; ``difference`` is a − b.
    difference, standard_error, df, low, high : float
        The difference of the PPI++ estimates, its standard error (the groups' items are
        disjoint: the variances add), Welch–Satterthwaite degrees of freedom and its
        interval (not adjusted for multiplicity).
    pvalue, pvalue_adjusted : float
        Two-sided p-value of no difference, and Holm's adjustment over every pair of
        groups for this quantity.
    decision : str
        ``"a > b"``, ``"a < b"`` (the adjusted p-value below 1 − confidence level) or
        ``"not shown"``.
    """

    quantity: object
    group_a: object
    group_b: object
    difference: float
    standard_error: float
    df: float
    low: float
    high: float
    pvalue: float
    pvalue_adjusted: float
    decision: str

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain({f: getattr(self, f) for f in self.__dataclass_fields__})


@dataclass(frozen=True, slots=True, eq=False)
class HumanScaleEstimate:
    """Result of :func:`human_scale_estimate`.

    Attributes
    ----------
    statistic : str
        ``"mean"`` or ``"proportions"``.
    labels : ndarray
        The human scale.
    calibration : str or None
        How the judge was put on the human scale: None (its scores as they are),
        ``"thresholds"`` or ``"isotonic"`` (cross-fitted on the labelled items).
    confidence_level : float
        The level of every interval.
    estimates : tuple of ScaleEstimate
        All items first (group None), then each group; per group, the mean or each
        category's share.
    comparisons : tuple of ScaleComparison
        Every pair of groups, per quantity (empty without groups).
    groups : tuple
        The groups, in order (empty without groups).
    n_labelled, n_unlabelled, n_ratings : int
        Labelled and unlabelled items; human ratings of the labelled ones.
    """

    statistic: str
    labels: np.ndarray
    calibration: str | None
    confidence_level: float
    estimates: tuple
    comparisons: tuple
    groups: tuple
    n_labelled: int
    n_unlabelled: int
    n_ratings: int

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def quantities(self) -> tuple:
        """``("mean",)``, or the labels (proportions)."""
        return ("mean",) if self.statistic == "mean" else tuple(self.labels.tolist())

    def estimate(self, group=None, quantity=None) -> ScaleEstimate:
        """The estimate of one group (None: all items) and quantity (None: the mean, or
        the first label).

        Examples
        --------
        >>> import numpy as np, qwkit
        >>> rng = np.random.default_rng(0)
        >>> q = rng.normal(size=2000)
        >>> judge = q + rng.normal(0, 0.5, 2000)
        >>> human = np.clip(np.rint(3 + q[:200]), 1, 5)
        >>> res = qwkit.human_scale_estimate(human, judge[:200], judge[200:])
        >>> round(res.estimate().estimate, 3), round(res.estimate().effective_labels)
        (3.002, 500)
        """
        want = self.quantities[0] if quantity is None else quantity
        for r in self.estimates:
            if r.group == group and r.quantity == want:
                return r
        raise QwkitError(
            f"no estimate for group {group!r} and quantity {want!r}; groups "
            f"{show(np.asarray(self.groups, dtype=object))}, quantities "
            f"{show(np.asarray(self.quantities, dtype=object))}.",
            parameter="group",
        )

    def ranking(self, quantity=None) -> tuple[tuple, ...]:
        """The groups ranked by one quantity (highest first), each with its rank and the
        ranks its comparisons allow (eq. P10): ``(group, estimate, rank, lowest rank,
        highest rank)``; a group is above another only when Holm's test says so."""
        want = self.quantities[0] if quantity is None else quantity
        rows = [r for r in self.estimates if r.group is not None and r.quantity == want]
        above = {r.group: 0 for r in rows}
        below = {r.group: 0 for r in rows}
        for c in self.comparisons:
            if c.quantity != want:
                continue
            if c.decision == "a > b":
                below[c.group_a] += 1
                above[c.group_b] += 1
            elif c.decision == "a < b":
                above[c.group_a] += 1
                below[c.group_b] += 1
        ordered = sorted(rows, key=lambda r: -r.estimate)
        g = len(rows)
        return tuple(
            (r.group, r.estimate, i + 1, 1 + above[r.group], g - below[r.group])
            for i, r in enumerate(ordered)
        )  # (P10)

    def tables(self) -> tuple[Table, ...]:
        """The result as table records (the summary's, the command line's and the
        report's): the estimates, then for groups their ranking and comparisons."""
        level = f"{100 * self.confidence_level:g}% CI"
        many = self.statistic == "proportions"
        cols = [Column("group", "text")]
        if many:
            cols.append(Column("category", "text"))
        cols += [
            Column("PPI++", "number", 3),
            Column(level, "interval", 3),
            Column("humans only", "number", 3),
            Column(f"{level} (humans)", "interval", 3),
            Column("width ratio", "number", 2),
            Column("lambda", "number", 2),
            Column("labelled", "count"),
            Column("unlabelled", "count"),
            Column("effective labels", "number", 0),
        ]
        rows = []
        notes = []
        for r in self.estimates:
            width = r.high - r.low
            width0 = r.human_only_high - r.human_only_low
            ratio = width / width0 if width0 > 0 else math.nan
            name = "all items" if r.group is None else str(r.group)
            row: list[object] = [name]
            if many:
                row.append(str(r.quantity))
            row += [
                r.estimate,
                (r.low, r.high),
                r.human_only,
                (r.human_only_low, r.human_only_high),
                ratio,
                r.lam,
                r.n_labelled,
                r.n_unlabelled,
                r.effective_labels,
            ]
            rows.append(tuple(row))
            if r.note and r.note not in notes:
                notes.append(r.note)
        what = "mean human rating" if not many else "share of each category"
        on = {
            None: "the judge's scores as they are",
            "thresholds": "the judge's classes (cut points cross-fitted on the labelled items)",
            "isotonic": "the judge's isotonic curve (cross-fitted on the labelled items)",
        }[self.calibration]
        out = [
            Table(
                key="estimates",
                title=f"Human-scale estimates: {what}",
                columns=tuple(cols),
                rows=tuple(rows),
                notes=(
                    f"PPI++ on {on}; width ratio: PPI++ / humans only; effective labels: "
                    "the human labels the humans-only estimate would need.",
                    *(f"lambda 0: {n}" for n in notes),
                ),
            )
        ]
        if self.groups and len(self.groups) > 1:
            for q in self.quantities if not many else ():
                rank_rows = tuple(
                    (str(g), est, rank, f"{lo}-{hi}" if lo != hi else str(lo))
                    for g, est, rank, lo, hi in self.ranking(q)
                )
                out.append(
                    Table(
                        key="ranking",
                        title="Groups ranked by the PPI++ estimate",
                        columns=(
                            Column("group", "text"),
                            Column("PPI++", "number", 3),
                            Column("rank", "count"),
                            Column("ranks allowed", "text"),
                        ),
                        rows=rank_rows,
                        notes=(
                            "ranks allowed: a group is ranked above another only where "
                            "Holm's test of their difference says so.",
                        ),
                    )
                )
            shown = [c for c in self.comparisons if c.decision != "not shown"]
            out.append(
                Table(
                    key="comparisons",
                    title="Differences between groups shown by Holm's test",
                    columns=(
                        *((Column("category", "text"),) if many else ()),
                        Column("group a", "text"),
                        Column("group b", "text"),
                        Column("a - b", "number", 3),
                        Column(f"{level} (unadjusted)", "interval", 3),
                        Column("p (Holm)", "pvalue"),
                    ),
                    rows=tuple(
                        (
                            *((str(c.quantity),) if many else ()),
                            str(c.group_a),
                            str(c.group_b),
                            c.difference,
                            (c.low, c.high),
                            c.pvalue_adjusted,
                        )
                        for c in shown
                    ),
                    notes=(
                        f"{len(shown)} of {len(self.comparisons)} pairs differ at level "
                        f"{1 - self.confidence_level:g} after Holm's adjustment "
                        "(per quantity).",
                    ),
                )
            )
        return tuple(out)

    def summary(self) -> str:
        """The tables as text."""
        return "\n".join(render_text(t) for t in self.tables())

    def to_dict(self) -> dict:
        """The result as plain Python values."""
        return plain(
            {
                "statistic": self.statistic,
                "labels": self.labels,
                "calibration": self.calibration,
                "confidence_level": self.confidence_level,
                "n_labelled": self.n_labelled,
                "n_unlabelled": self.n_unlabelled,
                "n_ratings": self.n_ratings,
                "groups": list(self.groups),
                "estimates": [r.to_dict() for r in self.estimates],
                "comparisons": [c.to_dict() for c in self.comparisons],
            }
        )

    def plot(self, quantity=None, *, title: str | None = None):
        """Each group's PPI++ interval (filled) beside its humans-only one (open), for
        one quantity (None: the mean, or the first label), with matplotlib.

        Returns
        -------
        matplotlib.figure.Figure
        """
        want = self.quantities[0] if quantity is None else quantity
        if want not in self.quantities:
            raise QwkitError(
                f"`quantity` must be one of {show(np.asarray(self.quantities, dtype=object))};"
                f" got {quantity!r}.",
                parameter="quantity",
            )
        return _plots.estimate_figure(self, want, title=title)


public_module(ScaleEstimate, ScaleComparison, HumanScaleEstimate)
