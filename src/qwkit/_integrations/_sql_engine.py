"""What ``qwkit.duckdb`` and ``qwkit.spark`` share: which state to ask an engine for, and
what to do with it.

An :class:`Engine` is a dialect, the name of the data inside a query, a way to run a
query (rows back as tuples) and the types of the columns. Each function below checks
its arguments as its in-memory namesake does, runs one query (two or three in the rare
cases said below) and finalizes the returned state with ``_sql_read``:

* ``kappa_score``: the pair table (one GROUP BY); for unweighted quadratic kappa of
  integer columns, whose in-memory form is the five sums, the table is asked for at most
  ``PAIR_CAP`` pairs and, if the ratings hold more distinct pairs (a wide integer
  scale), the five sums are computed instead — exactly, in 64-bit products and the
  engine's wide sums, or in 32-bit limbs when those would overflow — with the sketch of
  the extreme ratings when the missing-value-code rule may fire;
* ``kappa_test``, ``confusion_matrix``: the pair table;
* ``optimize_thresholds``: the distinct (true rating, score) pairs, at most
  ``max_pairs``;
* ``agreement_score``, ``agreement_test``: the distinct profiles of the items.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import qwkit
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._missing import RAISE_OR_OMIT, check_nan_policy
from qwkit._base._scale import prepare_labels
from qwkit._base._scale_check import SKETCH
from qwkit._base._validation import (
    check_alternative,
    check_integer,
    check_replace_undefined_by,
)
from qwkit._base._weights import check_weights
from qwkit._integrations import _sql_read as _r
from qwkit._integrations import _sql_text as _t

__all__ = [
    "MAX_PAIRS",
    "NAN_POLICIES",
    "PAIR_CAP",
    "Engine",
    "agreement_score",
    "agreement_test",
    "confusion_matrix",
    "kappa_score",
    "kappa_test",
    "optimize_thresholds",
]

#: ``nan_policy``: a NULL (or NaN) rating is an error, or its row is left out.
NAN_POLICIES = RAISE_OR_OMIT  # the engines count in SQL: no NaN result to propagate
#: Unweighted quadratic kappa asks for at most this many distinct pairs before it
#: switches to the five sums.
PAIR_CAP = 65_536
#: Default bound on the distinct (true rating, score) pairs of optimize_thresholds.
MAX_PAIRS = 10_000_000

#: Column types: integers within 64 bits (the five sums take them), other numbers, text.
INTEGER, WIDE_INTEGER, FLOAT, DECIMAL, TEXT, BOOLEAN, OTHER = (
    "integer",
    "wide integer",
    "float",
    "decimal",
    "text",
    "boolean",
    "other",
)
_RATINGS = (INTEGER, WIDE_INTEGER, FLOAT, DECIMAL, TEXT, BOOLEAN)


@dataclass(frozen=True, slots=True)
class Engine:
    """One engine's view of one data set."""

    dialect: _t.Dialect
    #: The data as a query names it (after FROM).
    source: str
    #: Runs a query: its rows, each a sequence in the order of the SELECT.
    run: Callable[[str], list]
    #: Column name → (kind, the engine's name of its type); every column of the data.
    columns: dict[str, tuple[str, str]]
    #: The engine's exceptions that mean an integer overflow.
    overflow: tuple[type[BaseException], ...]
    #: Whether 64-bit arithmetic wraps silently (Spark without ANSI mode): the sums are
    #: then tried (``_sql_text.sums_sql``).
    wraps: bool = False

    def kind(self, parameter: str, column, allowed=_RATINGS) -> str:
        """The kind of the column given as ``parameter``; an error if there is no such
        column or its type is not ``allowed``."""
        if not isinstance(column, str):
            raise QwkitTypeError(
                f"`{parameter}` must be a column name of `data`; got {type(column).__name__}.",
                parameter=parameter,
            )
        if column not in self.columns:
            shown = list(self.columns)[:20]
            raise QwkitError(
                f"`data` has no column {column!r}; its columns are {shown}.",
                parameter=parameter,
                also=("data",),
            )
        kind, type_name = self.columns[column]
        if kind not in allowed:
            what = "an integer" if allowed == (INTEGER,) else "a number or text"
            raise QwkitTypeError(
                f"`{parameter}` must be {what} column; {column!r} is {type_name}.",
                parameter=parameter,
            )
        return kind


def _by(engine: Engine, by) -> tuple[str, ...]:
    if by is None:
        return ()
    names = (by,) if isinstance(by, str) else tuple(by)
    if not names:
        raise QwkitError("`by` must name at least one column; got an empty list.", parameter="by")
    for name in names:
        engine.kind("by", name, allowed=(*_RATINGS, OTHER))
    return names


def _policy(nan_policy) -> bool:
    return check_nan_policy(nan_policy, NAN_POLICIES) == "omit"


def _pair_spec(engine, y1, y2, labels, counts, by, nan_policy, names=("y1", "y2")):
    """(spec, the kinds of the two columns) of a two-rater call."""
    kinds = (engine.kind(names[0], y1), engine.kind(names[1], y2))
    if counts is not None:
        engine.kind("counts", counts, allowed=(INTEGER,))
    lab = None if labels is None else prepare_labels(labels)
    spec = _r.Spec(names, lab, _policy(nan_policy), _by(engine, by), counts is not None)
    return spec, kinds


def _table(engine: Engine, spec: _r.Spec, y1, y2, counts, limit=None):
    text = _t.table_sql(
        engine.dialect, engine.source, y1, y2, counts=counts, by=spec.by, limit=limit
    )
    return engine.run(text)


def _pairs(engine, spec, rows, compute: Callable):
    """``compute(pairs)`` per group; without ``by`` and without rows, what the in-memory
    function says of no items."""
    groups = _r.pair_groups(rows, spec)
    if not spec.by and not groups:
        groups = {None: _r.Pairs(np.empty(0), np.empty(0), np.empty(0, dtype=np.int64))}
    return _r.finish(groups, spec, compute)


# ---------------------------------------------------------------------------- two raters


def kappa_score(engine: Engine, y1, y2, *, weights, labels, counts, by, nan_policy, replace):
    replace = check_replace_undefined_by(replace)
    checked = check_weights(weights)
    spec, kinds = _pair_spec(engine, y1, y2, labels, counts, by, nan_policy)
    lab = spec.labels
    sums_apply = (
        isinstance(checked, str)
        and checked == "quadratic"
        and counts is None
        and all(k == INTEGER for k in kinds)
        and (lab is None or lab.offset is not None)
    )
    rows = _table(engine, spec, y1, y2, counts, limit=PAIR_CAP + 1 if sums_apply else None)
    if sums_apply and len(rows) > PAIR_CAP:
        return _sums_kappa(engine, spec, y1, y2, replace)

    def compute(p: _r.Pairs):
        return qwkit.kappa_score(
            p.a, p.b, weights=weights, labels=labels, counts=p.counts, replace_undefined_by=replace
        )

    return _pairs(engine, spec, rows, compute)


def sums_rows(engine: Engine, spec: _r.Spec, y1, y2, *, labels=None) -> tuple[list, bool]:
    """The rows of the five-sum query (plain, or the limbs form when the plain one
    overflows or may have) and whether they are limbs."""
    d = engine.dialect

    def query(limbs):
        return _t.sums_sql(
            d,
            engine.source,
            y1,
            y2,
            labels=labels,
            by=spec.by,
            omit=spec.omit,
            limbs=limbs,
            tried=engine.wraps,
        )

    try:
        rows = engine.run(query(False))
        for row in rows:  # did a tried sum overflow? (Spark)
            _r.sums_of(row[len(spec.by) :], spec, limbs=False)
        return rows, False
    except (_r.Unsafe, *engine.overflow):
        return engine.run(query(True)), True
    except QwkitError:
        return rows, False  # the reader says what is wrong, group by group


def _sums_kappa(engine: Engine, spec: _r.Spec, y1, y2, replace: float):
    """Unweighted quadratic kappa from the five exact sums per group (eq. Q), with the
    missing-value-code rule read from a sketch of the extreme ratings where it may
    fire."""
    rows, limbs = sums_rows(engine, spec, y1, y2)
    n_by = len(spec.by)
    groups = {}
    for key, (row,) in _r.by_group(rows, n_by).items():
        try:
            groups[key] = _r.sums_of(row, spec, limbs=limbs)
        except QwkitError as exc:
            raise _r.in_group(exc, spec, key) from None
    sketch = {}
    if any(_r.needs_sketch(s, spec) for s in groups.values()):
        text = _t.sketch_sql(engine.dialect, engine.source, y1, y2, by=spec.by, k=SKETCH)
        sketch = _r.sketches(engine.run(text), n_by)
    keyed = {
        key: (s, sketch.get(key) if _r.needs_sketch(s, spec) else None) for key, s in groups.items()
    }
    return _r.finish(keyed, spec, lambda state: _r.sums_kappa(state[0], replace, state[1]))


def kappa_test(engine: Engine, y1, y2, *, weights, labels, counts, by, nan_policy, alternative):
    check_alternative(alternative)
    check_weights(weights)
    spec, _ = _pair_spec(engine, y1, y2, labels, counts, by, nan_policy)
    rows = _table(engine, spec, y1, y2, counts)

    def compute(p: _r.Pairs):
        return qwkit.kappa_test(
            p.a, p.b, weights=weights, labels=labels, counts=p.counts, alternative=alternative
        )

    return _pairs(engine, spec, rows, compute)


def confusion_matrix(engine: Engine, y1, y2, *, labels, counts, by, nan_policy):
    spec, _ = _pair_spec(engine, y1, y2, labels, counts, by, nan_policy)
    rows = _table(engine, spec, y1, y2, counts)

    def compute(p: _r.Pairs):
        return qwkit.confusion_matrix(p.a, p.b, labels=labels, counts=p.counts)

    return _pairs(engine, spec, rows, compute)


def optimize_thresholds(
    engine: Engine, y_true, y_score, *, weights, labels, counts, by, nan_policy, max_pairs
):
    check_weights(weights)
    max_pairs = check_integer(max_pairs, "max_pairs", 1)
    names = ("y_true", "y_score")
    spec, kinds = _pair_spec(engine, y_true, y_score, labels, counts, by, nan_policy, names)
    if kinds[1] not in (INTEGER, FLOAT, DECIMAL, BOOLEAN):
        raise QwkitTypeError(
            f"`y_score` must be a numeric column; {y_score!r} is {engine.columns[y_score][1]}.",
            parameter="y_score",
        )
    spec = _r.Spec(names, spec.labels, spec.omit, spec.by, spec.counts, scored=True)
    rows = _table(engine, spec, y_true, y_score, counts, limit=max_pairs + 1)
    if len(rows) > max_pairs:
        raise QwkitError(
            f"The data hold more than `max_pairs`={max_pairs} distinct (true rating, score) "
            "pairs. Round the scores (e.g. to 4 decimals: kappa-optimal cut points then fall "
            "between the rounded values), or raise `max_pairs` if the memory allows.",
            parameter="max_pairs",
        )

    def compute(p: _r.Pairs):
        return qwkit.optimize_thresholds(p.a, p.b, weights=weights, labels=labels, counts=p.counts)

    return _pairs(engine, spec, rows, compute)


# ---------------------------------------------------------------------------- many raters


_MANY = ("items", "raters", "values")


def _profiles(engine: Engine, items, raters, values, by):
    """The ratings of many raters per group, as :class:`qwkit.RatingsTable`."""
    engine.kind("items", items, allowed=(*_RATINGS, OTHER))
    engine.kind("raters", raters, allowed=(*_RATINGS, OTHER))
    kind = engine.kind("values", values)
    spec = _r.Spec(("values", "values"), None, False, _by(engine, by))
    text = _t.profiles_sql(
        engine.dialect,
        engine.source,
        items,
        raters,
        values,
        by=spec.by,
        nan_is_missing=kind == FLOAT,
    )
    groups = _r.by_group(engine.run(text), len(spec.by))
    if not spec.by and not groups:
        groups = {None: []}
    out = {}
    for key, rows in groups.items():
        try:
            out[key] = _r.profiles_table(rows, _MANY)
        except QwkitError as exc:
            raise _r.in_group(exc, spec, key) from None
    return spec, out


def agreement_score(engine, items, raters, values, *, coefficient, weights, labels, by, replace):
    replace = check_replace_undefined_by(replace)
    spec, tables = _profiles(engine, items, raters, values, by)
    return _r.finish(
        tables,
        spec,
        lambda t: qwkit.agreement_score(
            t, coefficient=coefficient, weights=weights, labels=labels, replace_undefined_by=replace
        ),
    )


def agreement_test(
    engine, items, raters, values, *, coefficient, weights, labels, by, alternative, n_population
):
    check_alternative(alternative)
    if n_population is not None and not (
        isinstance(n_population, int | float) and not math.isnan(n_population)
    ):
        raise QwkitTypeError(
            f"`n_population` must be a number or None; got {n_population!r}.",
            parameter="n_population",
        )
    spec, tables = _profiles(engine, items, raters, values, by)
    return _r.finish(
        tables,
        spec,
        lambda t: qwkit.agreement_test(
            t,
            coefficient=coefficient,
            weights=weights,
            labels=labels,
            alternative=alternative,
            n_population=n_population,
        ),
    )
