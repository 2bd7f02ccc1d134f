"""Polars expressions: weighted kappa, its test and agreement among raters, per group.

``import qwkit`` never imports this module; ``import qwkit.polars`` imports Polars
(``pip install 'qwkit[polars]'``) and registers the expression namespace ``qwk``::

    import polars as pl
    import qwkit.polars  # noqa: F401  (registers .qwk)

    df.group_by("prompt").agg(
        pl.col("y").qwk.kappa(pl.col("pred"), weights="quadratic"),
        pl.col("y").qwk.kappa_test(pl.col("pred")).alias("test"),  # a struct
    )

- ``.qwk.kappa(other, ...)`` — weighted kappa, equal to :func:`qwkit.kappa_score` on each
  group's rows (bit for bit);
- ``.qwk.kappa_test(other, ...)`` — a struct of ``statistic``, ``standard_error``,
  ``standard_error_null``, ``ci_low``, ``ci_high``, ``pvalue`` and ``n_items``
  (:func:`qwkit.kappa_test` and its ``confidence_interval``);
- ``.qwk.soft_kappa(other, ...)`` — the continuous QWK of real-valued scores
  (:func:`qwkit.soft_kappa_score`);
- ``.qwk.agreement(*others, coefficient=...)`` and ``.qwk.agreement_test(...)`` — agreement
  among the column and ``others`` as raters (:func:`qwkit.agreement_score`,
  :func:`qwkit.agreement_test`), nulls being missing ratings.

The column before ``.qwk`` is the first rater (``y1`` / ``y_true`` in qwkit's messages),
``other`` the second (``y2`` / ``y_score``). Strings name columns, as in Polars.

**No rows, no value.** On a frame with no rows (after a filter, an empty lazy scan) every
expression behaves as Polars' own aggregations: ``group_by(...).agg(...)`` gives an empty
frame, and ``select`` one row holding null — as ``pl.col("y").mean()`` does — a null
Float64, or a null struct for the tests. (qwkit's functions refuse empty ratings; a
group of a ``group_by`` always has rows.)

How the work is done: each group's columns reach qwkit's compiled kernels as numpy arrays
(without a copy where Polars allows), one Python call per group and never a loop over
rows, so every value is the core function's on the group's rows, bit for bit. (Building
each group's K×K table in Polars first, with ``value_counts``, and finishing it in qwkit
with ``counts=`` gives the same values but measured up to 3.4× slower: qwkit reads the
ratings in one pass faster than Polars hashes the pairs; ``benchmarks/bench_polars.py``.) Lazy
frames and the streaming engine take these expressions like any other; Polars runs the
aggregation of a Python function on its in-memory engine when its streaming engine
cannot.
"""

from __future__ import annotations

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

require("polars", feature="qwkit.polars", package="Polars", extra="polars", minimum="1.0")

import math
from collections.abc import Callable
from typing import Literal

import polars as pl
from numpy.typing import ArrayLike

from qwkit import (
    QwkitError,
    agreement_score,
    agreement_test,
    kappa_score,
    kappa_test,
    soft_kappa_score,
)
from qwkit._base._registry import Coefficient

__all__ = ["KappaNamespace"]

IntoExpr = pl.Expr | str

#: The struct of ``.qwk.kappa_test``.
KAPPA_TEST = pl.Struct(
    {
        "statistic": pl.Float64,
        "standard_error": pl.Float64,
        "standard_error_null": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "pvalue": pl.Float64,
        "n_items": pl.Int64,
    }
)
#: The struct of ``.qwk.agreement_test``.
AGREEMENT_TEST = pl.Struct(
    {
        "statistic": pl.Float64,
        "standard_error": pl.Float64,
        "standard_error_null": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "pvalue": pl.Float64,
        "n_items": pl.Int64,
        "n_raters": pl.Int64,
    }
)


def _expr(value: IntoExpr) -> pl.Expr:
    return pl.col(value) if isinstance(value, str) else value


def _per_group(expr: pl.Expr, finish: Callable[[pl.Series], object], dtype) -> pl.Expr:
    """``finish`` called once per group (once in a select) on ``expr``'s values there;
    no rows (an empty frame, or the empty batch Polars passes when a ``group_by`` has no
    group) give null, as Polars' own aggregations do."""

    def call(values: pl.Series) -> pl.Series:
        if values.len() == 0:
            return pl.Series([None], dtype=dtype)
        return pl.Series([finish(values)], dtype=dtype)

    return expr.map_batches(call, return_dtype=dtype, returns_scalar=True)


def _struct(first: pl.Expr, *rest: pl.Expr) -> pl.Expr:
    """The expressions as one struct, named as ``first`` (so that the result keeps its
    column's name, as Polars' own aggregations do); the others keep their names where
    they differ, and their fields are read by position."""
    names = [first.meta.output_name(raise_if_undetermined=False)]
    fields = [first]
    for position, expr in enumerate(rest, 1):
        name = expr.meta.output_name(raise_if_undetermined=False)
        if name is None or name in names:
            name = f"_qwk_{position}"
        names.append(name)
        fields.append(expr.alias(name))
    return pl.struct(fields)


def _fields(values: pl.Series) -> list[pl.Series]:
    frame = values.struct.unnest()
    return [frame.to_series(i) for i in range(frame.width)]


def _array(column: pl.Series) -> ArrayLike:
    """Numbers as a numpy array (qwkit reads it fastest); other columns as they are (an
    Enum or Categorical carries its order)."""
    return column.to_numpy() if column.dtype.is_numeric() else column


def _ratings(*columns: pl.Series) -> None:
    """Refuse a null rating: kappa needs both raters' ratings of every row (a null would
    otherwise reach qwkit as nan, reported at a position in the group, not in the frame)."""
    for column in columns:
        if column.null_count():
            raise QwkitError(
                f"`{column.name}` has {column.null_count()} null rating(s) in a group; kappa "
                "needs both ratings of every row: drop or fill those rows first "
                "(DataFrame.drop_nulls).",
                parameter=column.name,
            )


def _rows(
    y1: pl.Expr, y2: pl.Expr, sample_weight: IntoExpr | None, counts: IntoExpr | None
) -> tuple[pl.Expr, Callable[[pl.Series], tuple[pl.Series, pl.Series, dict]]]:
    """The struct of a group's columns (the ratings, then the item weights given), and
    the function that reads it back as (y1, y2, keyword arguments of the item weights)."""
    given = {"sample_weight": sample_weight, "counts": counts}
    names = [name for name, column in given.items() if column is not None]

    def read(values: pl.Series) -> tuple[pl.Series, pl.Series, dict]:
        a, b, *weights = _fields(values)
        _ratings(a, b)
        item_weights = {name: w.to_numpy() for name, w in zip(names, weights, strict=True)}
        return _array(a), _array(b), item_weights

    return _struct(y1, y2, *(_expr(given[name]) for name in names)), read


def _test_row(result, confidence_level, method, n_resamples, rng) -> dict:
    """A test result and its interval as one row of a struct column."""
    low, high = result.confidence_interval(
        confidence_level, method=method, n_resamples=n_resamples, rng=rng
    )
    return {
        "statistic": result.statistic,
        "standard_error": result.standard_error,
        "standard_error_null": result.standard_error_null,
        "ci_low": low,
        "ci_high": high,
        "pvalue": result.pvalue,
        "n_items": result.n_items,
    }


@pl.api.register_expr_namespace("qwk")
class KappaNamespace:
    """The ``qwk`` namespace of Polars expressions: ``pl.col("y").qwk.kappa(...)``.

    Registered by ``import qwkit.polars``. Every method returns an expression that gives
    one value per group in ``group_by(...).agg(...)`` (one value in ``select``).

    Examples
    --------
    >>> import polars as pl
    >>> import qwkit.polars
    >>> df = pl.DataFrame({
    ...     "prompt": [1, 1, 1, 1, 1, 2, 2, 2, 2, 2],
    ...     "y": [4, 4, 3, 4, 4, 0, 1, 1, 2, 1],
    ...     "pred": [0, 4, 1, 0, 4, 0, 1, 1, 2, 1],
    ... })
    >>> out = df.group_by("prompt", maintain_order=True).agg(
    ...     pl.col("y").qwk.kappa(pl.col("pred")).alias("qwk")
    ... )
    >>> [(p, round(k, 6)) for p, k in out.rows()]
    [(1, 0.0), (2, 1.0)]
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def kappa(
        self,
        other: IntoExpr,
        *,
        weights="quadratic",
        labels: ArrayLike | None = None,
        sample_weight: IntoExpr | None = None,
        counts: IntoExpr | None = None,
        replace_undefined_by: float = math.nan,
    ) -> pl.Expr:
        """Weighted kappa of this column against ``other``: :func:`qwkit.kappa_score`.

        Parameters
        ----------
        other : polars.Expr or str
            The second rater's ratings (a column name or an expression).
        weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
array-like of shape (K, K) or None, default="quadratic"
            As in :func:`qwkit.kappa_score`.
        labels : array-like of shape (K,), default=None
            The ordered rating scale, as in :func:`qwkit.kappa_score` (applied to every
            group; without it each group's scale is found from its own ratings).
        sample_weight, counts : polars.Expr or str, default=None
            Columns of survey weights or of integer multiplicities of the rows.
        replace_undefined_by : float, default=nan
            The value of a group whose kappa is 0/0 (an ``UndefinedKappaWarning`` is issued).

        Returns
        -------
        polars.Expr
            A Float64 expression: one kappa per group.

        Examples
        --------
        >>> import polars as pl
        >>> import qwkit.polars
        >>> df = pl.DataFrame({"y": [4, 4, 3, 4, 4, 0, 1, 1, 2, 1],
        ...                    "pred": [0, 4, 1, 0, 4, 0, 1, 1, 2, 1]})
        >>> round(df.select(pl.col("y").qwk.kappa("pred")).item(), 6)
        0.318182
        """
        y1, y2 = self._expr, _expr(other)
        options = {
            "weights": weights,
            "labels": labels,
            "replace_undefined_by": replace_undefined_by,
        }
        struct, read = _rows(y1, y2, sample_weight, counts)

        def from_rows(values: pl.Series) -> float:
            a, b, item_weights = read(values)
            return kappa_score(a, b, **item_weights, **options)

        return _per_group(struct, from_rows, pl.Float64)

    def kappa_test(
        self,
        other: IntoExpr,
        *,
        weights="quadratic",
        labels: ArrayLike | None = None,
        sample_weight: IntoExpr | None = None,
        counts: IntoExpr | None = None,
        alternative: Literal["two-sided", "greater", "less"] = "two-sided",
        confidence_level: float = 0.95,
        method: Literal["asymptotic", "bootstrap", "percentile", "jackknife"] = "asymptotic",
        n_resamples: int = 9999,
        rng: int | None = None,
    ) -> pl.Expr:
        """The test of kappa and its interval, per group: :func:`qwkit.kappa_test`.

        Parameters
        ----------
        other, weights, labels, sample_weight, counts
            As in :meth:`kappa`.
        alternative : {"two-sided", "greater", "less"}, default="two-sided"
            The alternative of the z-test of κ = 0.
        confidence_level : float, default=0.95
            Of the interval ``[ci_low, ci_high]``.
        method : {"asymptotic", "bootstrap", "percentile", "jackknife"}, \
default="asymptotic"
            The interval, as in :meth:`qwkit.KappaTestResult.confidence_interval`.
        n_resamples : int, default=9999
            Bootstrap resamples.
        rng : int, default=None
            The seed of every group's bootstrap (the same seed in each group).

        Returns
        -------
        polars.Expr
            A struct expression with fields ``statistic``, ``standard_error``,
            ``standard_error_null``, ``ci_low``, ``ci_high``, ``pvalue`` (Float64) and
            ``n_items`` (Int64); ``.struct.unnest()`` makes them columns.

        Examples
        --------
        >>> import polars as pl
        >>> import qwkit.polars
        >>> df = pl.DataFrame({"y": [4, 4, 3, 4, 4, 0, 1, 1, 2, 1],
        ...                    "pred": [0, 4, 1, 0, 4, 0, 1, 1, 2, 1]})
        >>> row = df.select(pl.col("y").qwk.kappa_test("pred").struct.unnest()).row(0, named=True)
        >>> round(row["statistic"], 6), row["n_items"]
        (0.318182, 10)
        """
        y1, y2 = self._expr, _expr(other)
        options = {"weights": weights, "labels": labels, "alternative": alternative}
        interval = (confidence_level, method, n_resamples, rng)
        struct, read = _rows(y1, y2, sample_weight, counts)

        def from_rows(values: pl.Series) -> dict:
            a, b, item_weights = read(values)
            result = kappa_test(a, b, **item_weights, **options)
            return _test_row(result, *interval)

        return _per_group(struct, from_rows, KAPPA_TEST)

    def soft_kappa(
        self,
        other: IntoExpr,
        *,
        sample_weight: IntoExpr | None = None,
        counts: IntoExpr | None = None,
    ) -> pl.Expr:
        """The continuous QWK of real-valued scores ``other``: :func:`qwkit.soft_kappa_score`.

        Parameters
        ----------
        other : polars.Expr or str
            Real-valued scores (this column holds the true ratings).
        sample_weight, counts : polars.Expr or str, default=None
            As in :meth:`kappa`.

        Returns
        -------
        polars.Expr
            A Float64 expression: one soft kappa per group.

        Examples
        --------
        >>> import polars as pl
        >>> import qwkit.polars
        >>> df = pl.DataFrame({"y": [1, 2, 3, 4], "score": [1.2, 1.9, 3.4, 3.6]})
        >>> round(df.select(pl.col("y").qwk.soft_kappa("score")).item(), 6)
        0.959206
        """
        struct, read = _rows(self._expr, _expr(other), sample_weight, counts)

        def from_rows(values: pl.Series) -> float:
            a, b, item_weights = read(values)
            return soft_kappa_score(a, b, **item_weights)

        return _per_group(struct, from_rows, pl.Float64)

    def agreement(
        self,
        *others: IntoExpr,
        coefficient: Coefficient,
        weights="quadratic",
        labels: ArrayLike | None = None,
        replace_undefined_by: float = math.nan,
    ) -> pl.Expr:
        """Agreement among this column and ``others`` as raters: :func:`qwkit.agreement_score`.

        Each row is an item, each column a rater; a null is a missing rating.

        Parameters
        ----------
        *others : polars.Expr or str
            The other raters' columns.
        coefficient : {"fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", \
"light", "percent", "scott", "cohen"}
            As in :func:`qwkit.agreement_score`.
        weights, labels, replace_undefined_by
            As in :func:`qwkit.agreement_score`.

        Returns
        -------
        polars.Expr
            A Float64 expression: one coefficient per group.

        Examples
        --------
        >>> import polars as pl
        >>> import qwkit.polars

        Krippendorff's (2011) reliability data: 4 coders, 12 units, missing values; his
        published α for interval data (quadratic weights) is 0.849:

        >>> df = pl.DataFrame({
        ...     "c1": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        ...     "c2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, None],
        ...     "c3": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
        ...     "c4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
        ... })
        >>> alpha = df.select(
        ...     pl.col("c1").qwk.agreement("c2", "c3", "c4", coefficient="krippendorff")
        ... )
        >>> round(alpha.item(), 3)
        0.849
        """
        options = {
            "coefficient": coefficient,
            "weights": weights,
            "labels": labels,
            "replace_undefined_by": replace_undefined_by,
        }
        struct = self._raters(others)
        return _per_group(
            struct, lambda v: agreement_score(v.struct.unnest(), **options), pl.Float64
        )

    def agreement_test(
        self,
        *others: IntoExpr,
        coefficient: Coefficient,
        weights="quadratic",
        labels: ArrayLike | None = None,
        alternative: Literal["two-sided", "greater", "less"] = "two-sided",
        n_population: float | None = None,
        confidence_level: float = 0.95,
        method: Literal["asymptotic", "bootstrap", "percentile", "jackknife"] = "asymptotic",
        n_resamples: int = 9999,
        rng: int | None = None,
    ) -> pl.Expr:
        """The test of an agreement coefficient and its interval: :func:`qwkit.agreement_test`.

        Parameters
        ----------
        *others, coefficient, weights, labels
            As in :meth:`agreement`.
        alternative, n_population
            As in :func:`qwkit.agreement_test`.
        confidence_level, method, n_resamples, rng
            The interval, as in :meth:`qwkit.AgreementTestResult.confidence_interval`.

        Returns
        -------
        polars.Expr
            A struct expression with fields ``statistic``, ``standard_error``,
            ``standard_error_null``, ``ci_low``, ``ci_high``, ``pvalue`` (Float64),
            ``n_items`` and ``n_raters`` (Int64).

        Examples
        --------
        >>> import polars as pl
        >>> import qwkit.polars

        Per group, with Gwet's standard error (Krippendorff's data as in :meth:`agreement`,
        twice):

        >>> df = pl.DataFrame({
        ...     "c1": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        ...     "c2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, None],
        ...     "c3": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
        ...     "c4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
        ... })
        >>> both = pl.concat([df.with_columns(g=pl.lit(g)) for g in ("a", "b")])
        >>> out = both.group_by("g", maintain_order=True).agg(
        ...     pl.col("c1").qwk.agreement_test("c2", "c3", "c4", coefficient="gwet")
        ...     .alias("gwet")
        ... ).unnest("gwet")
        >>> out.select("g", pl.col("statistic", "standard_error").round(4)).rows()
        [('a', 0.914, 0.104), ('b', 0.914, 0.104)]
        """
        options = {
            "coefficient": coefficient,
            "weights": weights,
            "labels": labels,
            "alternative": alternative,
            "n_population": n_population,
        }

        def finish(values: pl.Series) -> dict:
            result = agreement_test(values.struct.unnest(), **options)
            row = _test_row(result, confidence_level, method, n_resamples, rng)
            return {**row, "n_raters": result.n_raters}

        return _per_group(self._raters(others), finish, AGREEMENT_TEST)

    def _raters(self, others: tuple[IntoExpr, ...]) -> pl.Expr:
        return _struct(self._expr, *map(_expr, others))
