"""The SQL that reduces rows to qwkit's sufficient state, in three dialects.

An engine only counts; qwkit infers. Each query below turns the rows of ``source`` into
the state that the in-memory functions compute from, per group of ``by``:

* the **pair table** (:func:`table_sql`): every distinct pair of ratings (a, b) with how
  many rows hold it (``COUNT(*)``, or ``SUM(counts)``) — the K×K table, sparse. Kappa of
  any weights, ``kappa_test`` and the confusion matrix follow from it by the public
  functions with ``counts=`` (each distinct pair stands for that many identical items:
  the same numbers, to the last bit, as the rows themselves).
* the **five sums** (:func:`sums_sql`) of quadratic kappa on an integer scale: n, Σa,
  Σb, Σ(a² + b²), Σab (eq. Q of ``docs/kappa.md``) with the extremes of each rater. In
  the *plain* form each product is a 64-bit integer and each sum the engine's exact wide
  integer (DuckDB's HUGEINT, PostgreSQL's NUMERIC; Spark sums BIGINT, checked afterwards
  by the extremes); in the *limbs* form every rating is split into 32-bit halves
  (a = 2³²·h + l) whose products always fit, summed in HUGEINT / DECIMAL(38, 0) /
  NUMERIC: exact for any 64-bit ratings.
* the **sketch** (:func:`sketch_sql`): the four smallest and four largest distinct
  ratings per group, which the missing-value-code rule reads (``_base._scale_check``).
* the **profiles** (:func:`profiles_sql`) of many raters: each item's ratings as a list
  of (rater, value), and how many items share each list.
* the **scores** (:func:`table_sql` on a reference and a score): the distinct (score,
  true rating) pairs that the exact threshold search reads.

Identifiers are quoted for the dialect; literals are written for it. ``source`` is put
after FROM as it is (a table name, a table function such as ``read_parquet('x/*.parquet')``,
or a parenthesized subquery with an alias).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._validation import check_choice

__all__ = [
    "DIALECTS",
    "LIMB_BITS",
    "Dialect",
    "dialect_of",
    "profiles_sql",
    "sketch_sql",
    "sums_sql",
    "table_sql",
]

#: The dialects qwkit writes.
DIALECTS = ("duckdb", "spark", "postgres")
#: The limbs form splits each rating into two halves of this many bits.
LIMB_BITS = 32


@dataclass(frozen=True, slots=True)
class Dialect:
    """How a dialect quotes names, writes literals and sums integers exactly."""

    name: str
    #: The exact wide integer type (128 bits, or arbitrary precision).
    wide: str
    #: Whether SUM of a BIGINT column is exact (its result is a wider type).
    wide_sums: bool

    def ident(self, name: str) -> str:
        if not isinstance(name, str) or not name:
            raise QwkitTypeError(f"A column name must be a non-empty string; got {name!r}.")
        if self.name == "spark":
            return "`" + name.replace("`", "``") + "`"
        return '"' + name.replace('"', '""') + '"'

    def literal(self, value) -> str:
        """A label as a SQL literal (integers exactly, text quoted, floats by repr)."""
        if isinstance(value, bool):
            return "TRUE" if value else "FALSE"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise QwkitError(f"`labels` must be finite; got {value!r}.", parameter="labels")
            return f"CAST({value!r} AS DOUBLE)" if self.name != "postgres" else repr(value)
        if isinstance(value, str):
            if self.name == "spark":  # Spark reads backslash escapes in string literals
                return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
            return "'" + value.replace("'", "''") + "'"
        raise QwkitTypeError(
            f"`labels` must hold numbers or text; got {type(value).__name__}.",
            parameter="labels",
        )

    def high(self, x: str) -> str:
        """The signed upper 32 bits of a BIGINT (arithmetic shift)."""
        if self.name == "spark":
            return f"shiftright({x}, {LIMB_BITS})"
        return f"({x} >> {LIMB_BITS})"

    def low(self, x: str) -> str:
        """The unsigned lower 32 bits of a BIGINT."""
        return f"({x} & {(1 << LIMB_BITS) - 1})"

    def is_nan(self, x: str) -> str:
        if self.name == "postgres":
            return f"({x} = 'NaN'::double precision)"
        return f"isnan({x})"


_DIALECTS = {
    "duckdb": Dialect("duckdb", "HUGEINT", wide_sums=True),
    "spark": Dialect("spark", "DECIMAL(38, 0)", wide_sums=False),
    "postgres": Dialect("postgres", "NUMERIC", wide_sums=True),
}


def dialect_of(name) -> Dialect:
    return _DIALECTS[check_choice(name, "dialect", DIALECTS)]


def _select(parts: Sequence[str]) -> str:
    return ",\n  ".join(parts)


def _groups(d: Dialect, by: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the select items ``g0, g1, ...`` of the ``by`` columns, their GROUP BY names)."""
    names = [d.ident(f"g{i}") for i in range(len(by))]
    return [f"{d.ident(c)} AS {g}" for c, g in zip(by, names, strict=True)], names


# ---------------------------------------------------------------------------- the pair table


def table_sql(
    d: Dialect,
    source: str,
    y1: str,
    y2: str,
    *,
    counts: str | None,
    by: Sequence[str],
    limit: int | None = None,
) -> str:
    """The distinct pairs (a, b) per group with their number of rows ``n`` (and, with
    ``counts``, ``c`` = SUM(counts) in the wide type, ``c_rows`` = its non-NULL rows,
    ``c_min`` = its smallest value). NULL ratings form pairs of their own (the reader
    applies ``nan_policy``). ``limit``: at most that many rows (the caller asks for one
    more than it will take, to learn that there are more)."""
    groups, _ = _groups(d, by)
    parts = [*groups, f"{d.ident(y1)} AS a", f"{d.ident(y2)} AS b", "COUNT(*) AS n"]
    if counts is not None:
        c = d.ident(counts)
        parts += [f"SUM(CAST({c} AS {d.wide})) AS c", f"COUNT({c}) AS c_rows", f"MIN({c}) AS c_min"]
    # grouped by the columns themselves: an alias (a, b) may also be a column's name
    keys = [*(d.ident(c) for c in by), d.ident(y1), d.ident(y2)]
    text = f"SELECT\n  {_select(parts)}\nFROM {source}\nGROUP BY {', '.join(keys)}"
    if limit is not None:
        text += f"\nLIMIT {int(limit)}"
    return text


TABLE_COLUMNS = ("a", "b", "n")
TABLE_COUNTS_COLUMNS = ("a", "b", "n", "c", "c_rows", "c_min")


# ---------------------------------------------------------------------------- five sums


def positions(d: Dialect, column: str, labels: Sequence | None) -> str:
    """The position of a rating on ``labels`` (a CASE over the labels; NULL off the
    scale), or the rating itself as a BIGINT (an integer scale)."""
    x = d.ident(column)
    if labels is None:
        return f"CAST({x} AS BIGINT)"
    whens = " ".join(f"WHEN {d.literal(v)} THEN {i}" for i, v in enumerate(labels))
    return f"CAST(CASE {x} {whens} END AS BIGINT)"


def sums_sql(
    d: Dialect,
    source: str,
    y1: str,
    y2: str,
    *,
    labels: Sequence | None,
    by: Sequence[str],
    omit: bool,
    limbs: bool,
    tried: bool | None = None,
) -> str:
    """The five sums of eq. Q per group, after ``n`` (the items: rows, or with ``omit``
    rows with both ratings), ``n1`` and ``n2`` (rows where each rating is not NULL),
    ``off1``/``off2`` (ratings off ``labels``), and before each rater's extremes.
    ``omit``: a row with a NULL rating counts nowhere (its group stays, perhaps empty).
    ``limbs``: the 32-bit split (exact for any 64-bit ratings, in the wide type).
    ``tried`` (Spark; by default there): each product and sum tried, NULL on an overflow —
    for a Spark whose ANSI mode is off, where an overflow wraps silently; with ANSI on, an
    overflow stops the query, and the plain form is exact as it stands."""
    if tried is None:
        tried = not d.wide_sums
    groups, names = _groups(d, by)
    x1, x2 = d.ident(y1), d.ident(y2)
    both = f"{x1} IS NOT NULL AND {x2} IS NOT NULL"
    pa, pb = positions(d, y1, labels), positions(d, y2, labels)
    if omit:  # a row without both ratings has no positions and is no item
        pa, pb = (f"CASE WHEN {both} THEN {p} END" for p in (pa, pb))
    inner = [*groups, f"{x1} AS y1", f"{x2} AS y2", f"{pa} AS a", f"{pb} AS b"]
    inner.append(f"CASE WHEN {both} THEN 1 END AS qok" if omit else "1 AS qok")
    sub = f"(\n  SELECT {', '.join(inner)}\n  FROM {source}\n) AS qwkit_rows"
    rated = ("COUNT(qok)", "COUNT(qok)") if omit else ("COUNT(y1)", "COUNT(y2)")
    parts = [*names, "COUNT(qok) AS n", "COUNT(y1) AS n1", "COUNT(y2) AS n2"]
    if labels is not None:
        parts += [f"{rated[0]} - COUNT(a) AS off1", f"{rated[1]} - COUNT(b) AS off2"]
    else:
        parts += ["0 AS off1", "0 AS off2"]
    if not limbs and not tried:
        # 64-bit products and (Spark) sums, an overflow an error; DuckDB's and
        # PostgreSQL's SUM of a BIGINT is a wider type: exact
        parts += ["SUM(a) AS sa", "SUM(b) AS sb", "SUM(a * a + b * b) AS s2", "SUM(a * b) AS sab"]
        parts += ["COUNT(qok) AS ok2", "COUNT(qok) AS okab"]  # no product was tried
    elif not limbs:
        # Spark without ANSI sums BIGINTs as BIGINTs, wrapping: each product and sum is
        # tried (NULL on an overflow, which the counts of products and the NULL sums show)
        sq = "try_add(try_multiply(a, a), try_multiply(b, b))"
        parts += [
            "try_sum(a) AS sa",
            "try_sum(b) AS sb",
            f"try_sum({sq}) AS s2",
            "try_sum(try_multiply(a, b)) AS sab",
            f"COUNT({sq}) AS ok2",
            "COUNT(try_multiply(a, b)) AS okab",
        ]
    else:
        w = d.wide
        ah, al, bh, bl = (f"CAST({f(x)} AS {w})" for x in ("a", "b") for f in (d.high, d.low))
        parts += [
            f"SUM({ah}) AS sah",
            f"SUM({al}) AS sal",
            f"SUM({bh}) AS sbh",
            f"SUM({bl}) AS sbl",
            f"SUM({ah} * {ah} + {bh} * {bh}) AS qhh",  # Σ(a² + b²) = 2⁶⁴·qhh + 2³³·qhl + qll
            f"SUM({ah} * {al} + {bh} * {bl}) AS qhl",
            f"SUM({al} * {al} + {bl} * {bl}) AS qll",
            f"SUM({ah} * {bh}) AS xhh",  # Σab = 2⁶⁴·xhh + 2³²·xhl + xll
            f"SUM({ah} * {bl} + {al} * {bh}) AS xhl",
            f"SUM({al} * {bl}) AS xll",
        ]
    parts += ["MIN(a) AS lo1", "MAX(a) AS hi1", "MIN(b) AS lo2", "MAX(b) AS hi2"]
    text = f"SELECT\n  {_select(parts)}\nFROM {sub}"
    if names:
        text += f"\nGROUP BY {', '.join(names)}"
    return text


SUMS_HEAD = ("n", "n1", "n2", "off1", "off2")
SUMS_PLAIN = ("sa", "sb", "s2", "sab", "ok2", "okab")
SUMS_LIMBS = ("sah", "sal", "sbh", "sbl", "qhh", "qhl", "qll", "xhh", "xhl", "xll")
SUMS_TAIL = ("lo1", "hi1", "lo2", "hi2")


def combine_limbs(v: dict) -> tuple[int, int, int, int]:
    """Σa, Σb, Σ(a² + b²), Σab from the sums of the 32-bit halves (exact integers)."""
    s = LIMB_BITS
    sa = (v["sah"] << s) + v["sal"]
    sb = (v["sbh"] << s) + v["sbl"]
    s2 = (v["qhh"] << (2 * s)) + (v["qhl"] << (s + 1)) + v["qll"]
    sab = (v["xhh"] << (2 * s)) + (v["xhl"] << s) + v["xll"]
    return sa, sb, s2, sab


# ---------------------------------------------------------------------------- sketch


def sketch_sql(d: Dialect, source: str, y1: str, y2: str, *, by: Sequence[str], k: int) -> str:
    """The ``k`` smallest and ``k`` largest distinct ratings of both raters per group
    (rows: the groups, then one value ``v``)."""
    groups, names = _groups(d, by)
    gsel = ", ".join(groups)
    distinct = " UNION ".join(
        f"SELECT DISTINCT {gsel + ', ' if gsel else ''}{d.ident(y)} AS v FROM {source} "
        f"WHERE {d.ident(y)} IS NOT NULL"
        for y in (y1, y2)
    )
    part = f"PARTITION BY {', '.join(names)} " if names else ""
    ranked = (
        f"SELECT {''.join(n + ', ' for n in names)}v, "
        f"ROW_NUMBER() OVER ({part}ORDER BY v) AS r_lo, "
        f"ROW_NUMBER() OVER ({part}ORDER BY v DESC) AS r_hi FROM ({distinct}) AS qwkit_values"
    )
    cols = "".join(n + ", " for n in names)
    return f"SELECT {cols}v FROM ({ranked}) AS qwkit_ranked WHERE r_lo <= {k} OR r_hi <= {k}"


# ---------------------------------------------------------------------------- profiles


def profiles_sql(
    d: Dialect,
    source: str,
    item: str,
    rater: str,
    value: str,
    *,
    by: Sequence[str],
    nan_is_missing: bool,
) -> str:
    """Each item's ratings as the list of its raters and the list of their values (in
    the order of the raters), then the distinct lists per group with ``n`` = how many
    items hold them. Flags per item: ``null_item``, ``null_rater`` (a NULL id), and
    ``dup`` (a rater with two ratings of the item)."""
    groups, names = _groups(d, by)
    i, r, v = d.ident(item), d.ident(rater), d.ident(value)
    if nan_is_missing:  # NaN is no rating, as NULL
        v = f"CASE WHEN {d.is_nan(v)} THEN NULL ELSE {v} END"
    if d.name == "duckdb":
        lists = ["list(qr ORDER BY qr) AS raters", "list(qv ORDER BY qr) AS vals"]
    elif d.name == "postgres":
        lists = ["array_agg(qr ORDER BY qr) AS raters", "array_agg(qv ORDER BY qr) AS vals"]
    else:  # Spark: sort the (rater, value) structs, then take their fields
        pairs = "sort_array(collect_list(struct(qr AS r, qv AS v)))"
        lists = [f"transform({pairs}, x -> x.r) AS raters", f"transform({pairs}, x -> x.v) AS vals"]
    inner = [
        *names,
        *lists,
        "CASE WHEN qi IS NULL THEN 1 ELSE 0 END AS null_item",
        "MAX(CASE WHEN qr IS NULL THEN 1 ELSE 0 END) AS null_rater",
        "CASE WHEN COUNT(qv) > COUNT(DISTINCT CASE WHEN qv IS NOT NULL THEN qr END) "
        "THEN 1 ELSE 0 END AS dup",
    ]
    rows = f"SELECT {', '.join([*groups, f'{i} AS qi', f'{r} AS qr', f'{v} AS qv'])} FROM {source}"
    per_item = (
        f"SELECT {', '.join(inner)} FROM ({rows}) AS qwkit_rows "
        f"GROUP BY {', '.join([*names, 'qi'])}"
    )
    keys = [*names, "raters", "vals", "null_item", "null_rater", "dup"]
    return (
        f"SELECT {', '.join(keys)}, COUNT(*) AS n\nFROM ({per_item}) AS qwkit_items\n"
        f"GROUP BY {', '.join(keys)}"
    )


PROFILE_COLUMNS = ("raters", "vals", "null_item", "null_rater", "dup", "n")
