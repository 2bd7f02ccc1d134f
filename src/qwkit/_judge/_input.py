"""A long table of judgements in: validated columns, grouped by judge, item and run.

A judgement is one row: the ``item`` judged, the ``judge`` (an LLM, a prompt-model pair),
the ``run`` (a repetition, or a prompt variant) and the ``score`` (NaN or None: the judge
gave no usable answer). Each column is an array-like, or the name of a column of
``judgements`` (a pandas or Polars data frame, or a mapping of columns). Columns that
carry row labels (pandas) are paired by them (``qwkit._base._items.paired``).

Repeated judgements are the data: they are kept, never deduplicated. Two rows with the
same item, judge *and* run are refused (which of the two scores is that run's?), and so
is a table with no item judged twice by one judge (nothing to measure: the error names
``run``). Human ratings are per item — a pandas object indexed by item id, a
:class:`~qwkit.RatingsTable`, a data frame with the item column, or an array whose rows
follow the sorted distinct item ids — and are reduced at once to the per-item sums every
statistic reads (count, sum, sum of squares).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._items import item_labels, paired
from qwkit._base._ratings import RatingsTable, _factorize, as_sparse
from qwkit._base._validation import as_1d, scalar, show

__all__ = [
    "Humans",
    "Judgements",
    "column",
    "factorize",
    "human_sums",
    "numeric_scores",
    "prepare",
    "row_columns",
]


def _is_frame(value) -> bool:
    return isinstance(value, Mapping) or (
        hasattr(value, "columns") and hasattr(value, "__getitem__")
    )


def column(judgements, value, name: str, *, owner: str = "judgements"):
    """``value`` itself (an array-like), or the column of ``judgements`` it names."""
    if not isinstance(value, str):
        return value
    if judgements is None:
        raise QwkitTypeError(
            f"`{name}`={value!r} names a column, but `{owner}` is None; pass a data frame "
            f"as `{owner}`, or the values themselves as `{name}` (one per row).",
            parameter=name,
            also=(owner,),
        )
    if not _is_frame(judgements):
        raise QwkitTypeError(
            f"`{name}`={value!r} names a column, but `{owner}` is a "
            f"{type(judgements).__name__}, not a data frame or a mapping of columns.",
            parameter=name,
            also=(owner,),
        )
    names = list(judgements) if isinstance(judgements, Mapping) else list(judgements.columns)
    if value not in names:
        shown = show(np.asarray([str(c) for c in names], dtype=object), 8)
        raise QwkitError(
            f"`{name}`={value!r}: `{owner}` has no column {value!r}; its columns are {shown}.",
            parameter=name,
            also=(owner,),
        )
    return judgements[value]


def row_columns(judgements, columns: dict[str, object]) -> dict[str, object]:
    """The columns of one long table (None for an option not given), paired by their row
    labels when they carry them."""
    names = list(columns)
    got = [None if v is None else column(judgements, v, k) for k, v in columns.items()]
    return dict(zip(names, paired(got, names), strict=True))


def factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct values, the code of each value): O(n) for numbers."""
    return _factorize(values)


def ids(values, name: str) -> np.ndarray:
    """An id column (numbers or text) as a 1-D array, without missing ids."""
    arr = as_1d(values, name)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        k = int(np.flatnonzero(np.isnan(arr))[0])
        raise QwkitError(
            f"`{name}` contains NaN at index {k}; every row needs its {name}.",
            parameter=name,
            row=k,
        )
    return arr


def _is_missing(x) -> bool:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and x is pd.NA


def numeric_scores(values, name: str, *, hint: str = "") -> np.ndarray:
    """Scores as float64, NaN for a missing one (NaN, None, pandas' NA); text is refused
    with ``hint``."""
    if values is None or isinstance(values, (str, bytes)):
        raise QwkitTypeError(f"`{name}` must be array-like; got {values!r}.", parameter=name)
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        try:
            values = values.to_numpy(dtype=np.float64, na_value=np.nan)  # pandas
        except (TypeError, ValueError):
            values = values.to_numpy()
    arr = np.asarray(values) if not isinstance(values, list) else np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise QwkitError(f"`{name}` must be 1-D; got shape {arr.shape}.", parameter=name)
    if arr.dtype.kind in "biuf":
        out = arr.astype(np.float64)
    elif arr.dtype.kind in "OUS":
        out = np.empty(arr.size, dtype=np.float64)
        for i, x in enumerate(arr.tolist()):
            if _is_missing(x):
                out[i] = math.nan
            elif isinstance(x, (bool, str, bytes)) or not isinstance(x, (int, float, np.number)):
                raise QwkitTypeError(
                    f"`{name}` must hold numbers (NaN or None for no answer); got "
                    f"{x!r} at index {i}.{hint}",
                    parameter=name,
                    row=i,
                )
            else:
                out[i] = float(x)
    else:
        raise QwkitTypeError(f"`{name}` must hold numbers; got dtype {arr.dtype}.", parameter=name)
    bad = np.isinf(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QwkitError(
            f"`{name}` contains {out[i]} at index {i}; scores must be finite (NaN: no answer).",
            parameter=name,
            row=i,
        )
    return out


def names_of(values: np.ndarray) -> tuple[str, ...]:
    return tuple(str(scalar(v)) for v in values)


# ---------------------------------------------------------------------------- judgements


@dataclass(frozen=True, slots=True, eq=False)
class JudgeScores:
    """One judge's scores: ``items`` (codes into the table's items, sorted) and ``values``
    (n_items, n_runs) with NaN where a run gave no score; ``runs`` the run codes of the
    columns."""

    name: str
    items: np.ndarray
    runs: np.ndarray
    values: np.ndarray
    n_missing: int  # rows of this judge whose score is missing


@dataclass(frozen=True, slots=True, eq=False)
class Judgements:
    """The validated long table, one :class:`JudgeScores` per judge."""

    judges: tuple[JudgeScores, ...]
    item_ids: np.ndarray  # sorted distinct item ids
    run_names: tuple[str, ...]
    systems: np.ndarray | None  # per item: the system code (-1: none), or None
    system_names: tuple[str, ...]
    n_rows: int
    n_missing: int


def _repeated(key: np.ndarray, order: np.ndarray, item, judge, run) -> QwkitError | None:
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if not same.size:
        return None
    a, b = sorted((int(order[same[0]]), int(order[same[0] + 1])))
    return QwkitError(
        f"Rows {a} and {b} both hold run {scalar(run[a])!r} of judge {scalar(judge[a])!r} on "
        f"item {scalar(item[a])!r}: each run of a judge scores an item once. Give repeated "
        "judgements their own run ids (repetitions are kept, never merged), or pass "
        "`run=None` to number each judge's repetitions of an item in the order of the rows.",
        parameter="run",
        row=b,
    )


def _number_runs(item_code: np.ndarray, judge_code: np.ndarray, n_items: int) -> np.ndarray:
    """Each row's repetition number within its (judge, item), in the order of the rows."""
    key = judge_code.astype(np.int64) * n_items + item_code
    order = np.argsort(key, kind="stable")
    k = key[order]
    start = np.ones(k.size, dtype=bool)
    start[1:] = k[1:] != k[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(k.size), 0))
    out = np.empty(k.size, dtype=np.int64)
    out[order] = np.arange(k.size) - first
    return out


def prepare(
    judgements,
    *,
    item,
    run,
    score,
    judge,
    system=None,
    need_repeats: bool = True,
) -> Judgements:
    """Validate the long table and group it by judge, item and run (O(N log N))."""
    cols = row_columns(
        judgements, {"score": score, "item": item, "run": run, "judge": judge, "system": system}
    )
    values = numeric_scores(
        cols["score"],
        "score",
        hint=" Pairwise verdicts (A, B, tie) go to qwkit.position_bias_test.",
    )
    n = values.size
    item_arr = ids(cols["item"], "item")
    if item_arr.size != n:
        raise QwkitError(
            f"`item` and `score` must have one value per row; got {item_arr.size} and {n}.",
            parameter="item",
            also=("score",),
        )
    if n == 0:
        raise QwkitError("`score` is empty: no judgement to analyse.", parameter="score")
    item_ids, item_code = factorize(item_arr)
    n_items = item_ids.size
    if cols["judge"] is None:
        judge_arr = np.zeros(n, dtype=np.int64)
        judge_names: tuple[str, ...] = ("judge",)
        judge_code = judge_arr
    else:
        judge_arr = ids(cols["judge"], "judge")
        _same_length(judge_arr, n, "judge")
        uniq, judge_code = factorize(judge_arr)
        judge_names = names_of(uniq)
    if cols["run"] is None:
        run_code = _number_runs(item_code, judge_code, n_items)
        run_arr = run_code
        n_runs = int(run_code.max()) + 1
        run_names = tuple(str(r + 1) for r in range(n_runs))
    else:
        run_arr = ids(cols["run"], "run")
        _same_length(run_arr, n, "run")
        uniq, run_code = factorize(run_arr)
        run_names = names_of(uniq)
        n_runs = len(run_names)
    systems, system_names = None, ()
    if cols["system"] is not None:
        systems, system_names = _systems(cols["system"], n, item_code, n_items, item_arr)
    # one sort by (judge, item, run): repeated runs are neighbours
    key = (judge_code.astype(np.int64) * n_items + item_code) * n_runs + run_code
    order = np.argsort(key, kind="stable")
    err = _repeated(key, order, item_arr, judge_arr, run_arr)
    if err is not None:
        raise err
    missing = np.isnan(values)
    judges = []
    jsorted = judge_code[order]
    bounds = np.searchsorted(jsorted, np.arange(len(judge_names) + 1))
    for j, name in enumerate(judge_names):
        rows = order[bounds[j] : bounds[j + 1]]
        it, rc, val = item_code[rows], run_code[rows], values[rows]
        used_runs = np.unique(rc)
        col = np.searchsorted(used_runs, rc)
        items, local = np.unique(it, return_inverse=True)
        mat = np.full((items.size, used_runs.size), np.nan)
        mat[local.reshape(-1), col] = val
        judges.append(
            JudgeScores(
                name=name,
                items=items,
                runs=used_runs,
                values=mat,
                n_missing=int(np.count_nonzero(missing[rows])),
            )
        )
    if need_repeats:
        _check_repeats(judges, cols["run"] is None)
    return Judgements(
        judges=tuple(judges),
        item_ids=item_ids,
        run_names=run_names,
        systems=systems,
        system_names=system_names,
        n_rows=n,
        n_missing=int(np.count_nonzero(missing)),
    )


def _same_length(arr: np.ndarray, n: int, name: str) -> None:
    if arr.size != n:
        raise QwkitError(
            f"`{name}` and `score` must have one value per row; got {arr.size} and {n}.",
            parameter=name,
            also=("score",),
        )


def _systems(values, n: int, item_code, n_items: int, item_arr):
    """The system of each item (one per item: a row that says otherwise is refused)."""
    arr = ids(values, "system")
    _same_length(arr, n, "system")
    uniq, code = factorize(arr)
    per_item = np.full(n_items, -1, dtype=np.int64)
    per_item[item_code] = code
    clash = np.flatnonzero(per_item[item_code] != code)
    if clash.size:
        r = int(clash[0])
        first = int(np.flatnonzero(item_code == item_code[r])[0])
        raise QwkitError(
            f"`system` gives item {scalar(item_arr[r])!r} two systems ({scalar(arr[first])!r} "
            f"at row {first}, {scalar(arr[r])!r} at row {r}); a system is a property of the "
            "item (who wrote the response), one per item.",
            parameter="system",
            row=r,
        )
    return per_item, names_of(uniq)


def _check_repeats(judges, numbered: bool) -> None:
    """Self-consistency needs an item scored twice by one judge."""
    for js in judges:
        scored = np.count_nonzero(~np.isnan(js.values), axis=1)
        if not np.any(scored >= 2):
            how = (
                "each (item, judge) appears on one row"
                if numbered
                else f"every item has one scored run ({js.values.shape[1]} run id(s) in all)"
            )
            raise QwkitError(
                f"`run`: judge {js.name!r} scored no item twice ({how}), so there is no "
                "repetition to measure self-consistency on. Ask the judge again (another "
                "sample, another prompt variant) and give each answer its run id; a panel "
                "of judges asked once each is qwkit.agreement_test's ratings.",
                parameter="run",
            )


# ---------------------------------------------------------------------------- humans


@dataclass(frozen=True, slots=True, eq=False)
class Humans:
    """Human ratings of the judged items, as per-item sums: ``count`` (ratings), ``s1``
    (their sum), ``s2`` (sum of squares), in the order of the table's items (zero count:
    not rated); ``n_raters`` columns or raters; items of ``human`` that no judge scored
    (left out)."""

    count: np.ndarray
    s1: np.ndarray
    s2: np.ndarray
    n_raters: int
    n_unjudged: int

    @property
    def mean(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.s1 / self.count


def _frame_with_ids(human, item):
    """(values, ids) of a data frame that holds the item column (pandas or Polars)."""
    if not isinstance(item, str) or not _is_frame(human):
        return None
    cols = list(human) if isinstance(human, Mapping) else list(human.columns)
    if item not in cols:
        return None
    keep = [c for c in cols if c != item]
    if isinstance(human, Mapping):
        values = {c: human[c] for c in keep}
    elif type(human).__module__.startswith("polars"):
        values = human.select(keep)
    else:
        values = human[keep]
    return values, human[item]


def _matrix(values, name: str) -> np.ndarray:
    """Ratings, items × raters, float64 with NaN where not rated (numbers only)."""
    if isinstance(values, Mapping):
        cols = [numeric_scores(v, name) for v in values.values()]
        if not cols:
            raise QwkitError(f"`{name}` has no rating column.", parameter=name)
        lengths = {c.size for c in cols}
        if len(lengths) > 1:
            raise QwkitError(
                f"`{name}`'s columns have different lengths {sorted(lengths)}.", parameter=name
            )
        return np.column_stack(cols)
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        if getattr(values, "ndim", 2) == 1 or not hasattr(values, "columns"):
            return numeric_scores(values, name).reshape(-1, 1)
        return np.column_stack([numeric_scores(values[c], name) for c in values.columns])
    arr = np.asarray(values, dtype=object) if isinstance(values, list) else np.asarray(values)
    if arr.ndim == 1:
        return numeric_scores(arr, name).reshape(-1, 1)
    if arr.ndim != 2:
        raise QwkitError(
            f"`{name}` must be 1-D (one rating per item) or 2-D (items × raters); got shape "
            f"{arr.shape}.",
            parameter=name,
        )
    if arr.dtype.kind in "biuf":
        return arr.astype(np.float64)
    return np.column_stack([numeric_scores(arr[:, j], name) for j in range(arr.shape[1])])


def human_sums(human, item_ids: np.ndarray, item) -> Humans:
    """``human`` aligned to the judged items (see the module's docstring) as sums."""
    n_items = item_ids.size
    if isinstance(human, RatingsTable):
        sp = as_sparse(human, "human")
        if sp.is_text:
            raise QwkitTypeError("`human` must hold numeric ratings; got text.", parameter="human")
        per = np.repeat(np.arange(sp.n_items), np.diff(sp.item_ptr))
        vals = sp.values.astype(np.float64)
        count = np.bincount(per, minlength=sp.n_items).astype(np.float64)
        s1 = np.bincount(per, vals, minlength=sp.n_items)
        s2 = np.bincount(per, vals * vals, minlength=sp.n_items)
        return _aligned(np.asarray(human.items), count, s1, s2, sp.n_raters, item_ids)
    found = _frame_with_ids(human, item)
    labels = None
    if found is not None:
        human, labels = found
        labels = ids(labels, "human")
    elif item_labels(human) is not None:
        labels = np.asarray(item_labels(human))
    mat = _matrix(human, "human")
    present = ~np.isnan(mat)
    count = present.sum(axis=1).astype(np.float64)
    filled = np.where(present, mat, 0.0)
    s1, s2 = filled.sum(axis=1), (filled * filled).sum(axis=1)
    if labels is None:
        if mat.shape[0] != n_items:
            raise QwkitError(
                f"`human` has {mat.shape[0]} rows but the judgements hold {n_items} items; an "
                "array of human ratings has one row per item, in the order of the sorted item "
                "ids. Pass a pandas object indexed by item id (or a data frame with the item "
                "column) to pair by id.",
                parameter="human",
            )
        return Humans(count, s1, s2, mat.shape[1], 0)
    return _aligned(labels, count, s1, s2, mat.shape[1], item_ids)


def _aligned(labels, count, s1, s2, n_raters: int, item_ids: np.ndarray) -> Humans:
    """Sums of labelled human rows moved to the positions of the judged items."""
    labels = np.asarray(labels)
    uniq, _first, times = np.unique(labels, return_index=True, return_counts=True)
    if (times > 1).any():
        dup = uniq[times > 1][0]
        rows = np.flatnonzero(labels == dup)[:2].tolist()
        raise QwkitError(
            f"`human` labels two rows {scalar(dup)!r} (rows {rows[0]} and {rows[1]}); one row "
            "per item (several raters of an item are columns of that row).",
            parameter="human",
            row=rows[1],
        )
    try:
        pos = np.searchsorted(item_ids, labels)
        pos = np.minimum(pos, item_ids.size - 1)
        found = item_ids[pos] == labels
    except TypeError:  # ids of kinds that do not compare
        found = np.zeros(labels.size, dtype=bool)
    if not found.any():
        raise QwkitError(
            f"`human` and the judgements share no item: human items "
            f"{show(labels[:3], 3)}, judged items {show(item_ids[:3], 3)}. Items are paired "
            "by id; check that both use the same ids (and types: 1 is not '1').",
            parameter="human",
            also=("item",),
        )
    n = item_ids.size
    out = [np.zeros(n) for _ in range(3)]
    for target, source in zip(out, (count, s1, s2), strict=True):
        target[pos[found]] = source[found]
    return Humans(out[0], out[1], out[2], n_raters, int(np.count_nonzero(~found)))
