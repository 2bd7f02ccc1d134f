"""Validate ``human`` (items × raters, NaN = not rated) and ``machine`` (one score per
item, or items × models) onto one scale: the common step of every evaluation function.

A sparse panel (a :class:`~qwkit.RatingsTable`, e.g. a crowd of thousands of raters) is
read as its rating *slots*: column k holds the k-th rating of each item in the table's
order (the order of the rows of the long table), as HANNA's columns are slots, not
persons; the machine scores the table's ``items``, in their order.

Human ratings are ratings on a scale (integers, or any values with ``labels``); a
machine gives ratings on the same scale or real-valued scores (quadratic weights only:
the continuous form). Everything is returned as float64 *positions* — the rating minus
the lowest rating of the scale, or the index of a label — with NaN for "not rated", so
that every statistic is a vectorized pass over numbers; kappa's weights read them.

Beside the positions, the *values* the moments read (means, SDs, the SMD, correlations,
PRMSE): the ratings themselves, whatever order ``labels`` declares and however unevenly
its numbers are spaced, relative to ``origin`` (the rating ``origin + v``), so that
integers of any size keep their differences exactly. Text ratings have no values: their
positions 1 … K stand in (``on_values`` is False), the documented convention.

Inputs that carry item labels (a pandas index, a RatingsTable's items) are paired by
them first (``qwkit._base._items``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, check_nan_policy, nan_rows
from qwkit._base._ratings import RatingsTable, slot_columns
from qwkit._base._scale import (
    MAX_DENSE_CLASSES,
    RatingMatrix,
    label_coordinates,
    measure_scale,
    offsets_from,
    prepare_ratings,
    rating_matrix,
    scale_values,
)
from qwkit._base._scale_check import may_fire, merge_sketches, sketch_values, warn_codes
from qwkit._base._validation import show
from qwkit._base._weights import check_weights, resolve, weights_name

__all__ = [
    "TRIM_TOLERANCE",
    "Scores",
    "Trimmed",
    "check_margin",
    "check_trim",
    "prepare",
    "trim_scores",
]


@dataclass(frozen=True, slots=True, eq=False)
class Scores:
    """Validated scores on one scale (positions; NaN = not rated / not scored)."""

    human: np.ndarray  # (n, R)
    machine: np.ndarray  # (n, M)
    human_names: tuple[str, ...]
    machine_names: tuple[str, ...]
    real: tuple[bool, ...]  # machine column j holds real-valued scores
    wmat: np.ndarray | None  # None: quadratic weights (moments); else [reference, candidate]
    weights: str  # the name of the weights ("custom" for a matrix)
    scale: np.ndarray | range  # the category at each position (ndarray, or a range for wide scales)
    n_omitted: tuple[int, ...]  # items each machine column did not score
    #: the values of the moments, relative to ``origin`` (the same arrays as ``human`` and
    #: ``machine`` where positions and values differ by ``origin`` only)
    human_values: np.ndarray
    machine_values: np.ndarray
    origin: float
    on_values: bool  # False: text ratings, whose positions 1 … K stand in for values

    @property
    def n_items(self) -> int:
        return int(self.human.shape[0])

    @property
    def moments_on(self) -> str:
        """What means, SDs and correlations are computed on, as results report it."""
        return "values" if self.on_values else "positions"


def _values_of(pos: np.ndarray, coords: np.ndarray | None) -> np.ndarray:
    """Values (relative to the origin) of positions: the positions themselves when the
    scale is consecutive integers (or text), else each label's coordinate."""
    if coords is None:
        return pos
    out = np.full(pos.shape, np.nan)
    rated = ~np.isnan(pos)
    out[rated] = coords[pos[rated].astype(np.intp)]
    return out


def check_criterion(value, name: str) -> float:
    """The threshold of a criterion on kappa or a correlation (``estimate ≥ value``): in
    [0, 1), since no estimate can be shown to reach 1 or more."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise QwkitTypeError(
            f"`{name}` must be a real number in [0, 1); got {value!r}.", parameter=name
        )
    if not 0.0 <= float(value) < 1.0:
        raise QwkitError(
            f"`{name}` must be in [0, 1) (a kappa or a correlation the estimate must reach); "
            f"got {value!r}.",
            parameter=name,
        )
    return float(value)


def check_margin(margin) -> float:
    """A non-inferiority margin strictly between 0 and 1 (kappa's scale)."""
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise QwkitTypeError(
            f"`margin` must be a real number strictly between 0 and 1; got {margin!r}.",
            parameter="margin",
        )
    value = float(margin)
    if not 0.0 < value < 1.0:
        raise QwkitError(
            f"`margin` must be strictly between 0 and 1 (a loss of kappa the machine may "
            f"show); got {margin!r}.",
            parameter="margin",
        )
    return value


def _column_names(m: RatingMatrix, default: str) -> tuple[str, ...]:
    if m.columns is not None:
        return tuple(str(c) for c in m.columns)
    if m.shape[1] == 1:
        return (default,)
    return tuple(f"{default}[{j}]" for j in range(m.shape[1]))


def _score_matrix(machine, name: str) -> RatingMatrix:
    """One score per item (1-D: one rater or model) or items × raters or models (2-D, a
    data frame, a mapping of name → scores) as a matrix."""
    if isinstance(machine, Mapping):
        return rating_matrix(machine, name)
    if hasattr(machine, "to_frame") and not hasattr(machine, "columns"):
        machine = machine.to_frame()  # a Series keeps its name and declared order
    if not hasattr(machine, "columns") and not isinstance(machine, (str, bytes)):
        if hasattr(machine, "to_numpy") and not isinstance(machine, np.ndarray):
            machine = machine.to_numpy()
        try:
            arr = np.asarray(machine)
        except ValueError:  # ragged: rating_matrix says so
            arr = None
        if arr is not None and arr.ndim == 0:
            raise QwkitTypeError(
                f"`{name}` must hold one score per item, array-like of shape (n_items,); "
                f"got {machine!r}.",
                parameter=name,
            )
        if arr is not None and arr.ndim == 1:
            if arr.dtype.kind in "US" and not isinstance(machine, np.ndarray):
                arr = np.asarray(machine, dtype=object)
            machine = arr.reshape(-1, 1)
    return rating_matrix(machine, name)


def _relocated(exc: QwkitError, m: RatingMatrix, name: str, column: int | None) -> QwkitError:
    """An error about the k-th value of a flattened vector, said as row and column."""
    if exc.row is None:
        return exc
    if column is None:
        where, row = m.where(exc.row), m.row(exc.row)
    else:
        row = int(np.flatnonzero(m.present[:, column])[exc.row])
        label = m.columns[column] if m.columns is not None else column
        where = f"row {row}, column {label!r}" if m.columns is not None else f"row {row}"
    text = exc.reworded({}, lambda _: where)
    return type(exc)(text, parameter=name, row=row, also=exc.parameters[1:])


def _which(m: RatingMatrix, j: int) -> str:
    """How a message names machine column j ("" for a single unnamed column)."""
    if m.columns is not None:
        return f" column {m.columns[j]!r}"
    return "" if m.shape[1] == 1 else f" column {j}"


def _integral(values: np.ndarray) -> bool:
    return values.dtype.kind in "biu" or bool(np.all(values == np.floor(values)))


def _ratings(values, labels, name, ordered, m, column):
    try:
        return prepare_ratings((values,), labels, names=(name,), ordered=ordered)
    except QwkitError as exc:
        raise _relocated(exc, m, name, column) from None


def prepare(
    human,
    machine,
    *,
    weights="quadratic",
    labels=None,
    nan_policy: str = "raise",
    names: tuple[str, str] = ("human", "machine"),
) -> Scores:
    """Validate human ratings and machine scores of the same items onto one scale."""
    hname, mname = names
    policy = check_nan_policy(nan_policy, RAISE_OR_OMIT)
    weights = check_weights(weights)
    human, machine = paired((human, machine), names)
    slots = isinstance(human, RatingsTable)
    if slots:  # a sparse panel: its rating slots are the columns
        human = slot_columns(human, hname)
    if labels is None:
        fast = _numeric_arrays(human, machine, weights, policy, names)
        if fast is not None:
            return fast
    ordered = not (isinstance(weights, str) and weights == "identity")
    h = _score_matrix(human, hname)
    n, n_raters = h.shape
    if n_raters == 0 or h.values.size == 0:
        raise QwkitError(f"`{hname}` holds no rating; got shape {h.shape}.", parameter=hname)
    m = _score_matrix(machine, mname)
    if m.shape[0] != n:
        raise QwkitError(
            f"`{hname}` and `{mname}` must have one row per item, the same items; got {n} "
            f"and {m.shape[0]} rows.",
            parameter=mname,
            also=(hname,),
        )
    if m.shape[1] == 0:
        raise QwkitError(f"`{mname}` holds no scores; got shape {m.shape}.", parameter=mname)
    nan_rows(policy, (machine,), (mname,), kind="models", allowed=RAISE_OR_OMIT)
    if labels is None:
        orders = [x.declared for x in (h, m)]
        if all(o is not None for o in orders) and not (
            orders[0].shape == orders[1].shape and bool(np.all(orders[0] == orders[1]))
        ):
            raise QwkitError(
                f"`{hname}` and `{mname}` declare different category orders "
                f"{show(orders[0])} and {show(orders[1])}; pass `labels`.",
                parameter=mname,
                also=(hname, "labels"),
            )
        labels = h.declared if h.declared is not None else m.declared
    if not h.is_text and labels is None and not _integral(h.values):
        k = int(np.flatnonzero(h.values != np.floor(h.values))[0])
        raise QwkitError(
            f"`{hname}` must hold ratings on a scale (integers, or any values with "
            f"`labels`); got {h.values[k]} at {h.where(k)}.",
            parameter=hname,
            row=h.row(k),
        )
    rh = _ratings(h.values, labels, hname, ordered, h, None)

    # the machine columns: ratings on the scale, or real-valued scores
    col_of = np.nonzero(m.present)[1]
    columns, real = [], []
    for j in range(m.shape[1]):
        vals = m.values[col_of == j]
        if m.is_text != h.is_text:
            text, num = (mname, hname) if m.is_text else (hname, mname)
            raise QwkitTypeError(
                f"`{text}` holds text ratings but `{num}` holds numbers; both must rate on "
                "one scale.",
                parameter=mname,
                also=(hname,),
            )
        is_real = not m.is_text and not _integral(vals)
        if is_real and rh.checked:
            raise QwkitError(
                f"`{mname}`{_which(m, j)} holds real-valued scores (e.g. "
                f"{vals[vals != np.floor(vals)][0]}) "
                "but the human scale is a list of `labels` that are not consecutive "
                "integers; real scores need a numeric scale.",
                parameter=mname,
                also=("labels",),
            )
        real.append(is_real)
        columns.append(vals if is_real else _ratings(vals, labels, mname, ordered, m, j))

    # one scale: explicit labels, or the integer range of humans and integer machines
    try:
        offset, k = measure_scale(rh)  # checks explicit integer labels on the way
    except QwkitError as exc:
        raise _relocated(exc, h, hname, None) from None
    for j, c in enumerate(columns):
        if real[j] or c.checked:
            continue
        try:
            lo, kk = measure_scale(c)
        except QwkitError as exc:
            raise _relocated(exc, m, mname, j) from None
        if rh.n_classes is None:
            k = max(offset + k, lo + kk) - min(offset, lo)
            offset = min(offset, lo)
    if rh.n_classes is None:  # the scale inferred from human and integer machine ratings
        inferred = [rh] + [c for j, c in enumerate(columns) if not (real[j] or c.checked)]
        warn_codes(merge_sketches([c.memo["sketch"] for c in inferred]))
    if not (isinstance(weights, str) and weights == "quadratic"):
        if any(real):
            j = real.index(True)
            raise QwkitError(
                f"`{mname}`{_which(m, j)} holds real-valued scores; "
                f"weights={weights_name(weights)!r} need ratings on the scale. Round them first "
                "(`apply_thresholds`), or use "
                "weights='quadratic', whose continuous form scores real values as they are.",
                parameter=mname,
                also=("weights",),
            )
        if k > MAX_DENSE_CLASSES:
            raise QwkitError(
                f"The scale has {k} categories; weights other than 'quadratic' need a table "
                f"of at most {MAX_DENSE_CLASSES}. Pass `labels` with the ratings that occur.",
                parameter="labels",
            )
        wmat = resolve(weights, k, scale="the rating scale", hint="; pass `labels` to fix it")
    else:
        wmat = None

    def positions(r) -> np.ndarray:
        if r.checked:
            return np.asarray(r.a, dtype=np.float64)
        return offsets_from(r.a, offset).astype(np.float64)  # exact, then relative floats

    hpos = np.full((n, n_raters), np.nan)
    hpos[h.present] = positions(rh)
    mpos = np.full(m.shape, np.nan)
    for j, c in enumerate(columns):
        mpos[m.present[:, j], j] = c - offset if real[j] else positions(c)

    hnames, mnames = _column_names(h, hname), _column_names(m, mname)
    _check_columns(hpos, hnames, hname, human=True, slots=slots)
    _check_columns(mpos, mnames, mname, human=False, named=m.columns is not None)
    # the values: consecutive integers are their positions from ``offset``; other numeric
    # labels their coordinates; text its positions 1 … K
    coords, origin = None, float(offset)
    if rh.checked and not h.is_text:
        origin, coords = label_coordinates(rh.labels)
    elif h.is_text:
        origin = 1.0
    return Scores(
        human=hpos,
        machine=mpos,
        human_names=hnames,
        machine_names=mnames,
        real=tuple(real),
        wmat=wmat,
        weights=weights_name(weights),
        scale=scale_values(rh, offset, k) if not rh.checked else rh.labels.values,
        n_omitted=tuple(int(x) for x in (~m.present).sum(axis=0)),
        human_values=_values_of(hpos, coords),
        machine_values=_values_of(mpos, coords),
        origin=float(origin),
        on_values=not h.is_text,
    )


def _numeric_array(x, ndims: tuple[int, ...]) -> np.ndarray | None:
    if type(x) is not np.ndarray or x.ndim not in ndims or x.dtype.kind not in "fiu":
        return None
    if x.dtype.kind == "u" and x.dtype.itemsize == 8:
        return None
    return x.astype(np.float64, copy=False)


def _numeric_arrays(human, machine, weights, policy: str, names) -> Scores | None:
    """The common case in vectorized numpy: numeric ndarrays, integer human ratings, no
    ``labels``. None for anything else (and for anything wrong: the general path then
    says what), so that every error comes from one place."""
    h = _numeric_array(human, (1, 2))
    m = _numeric_array(machine, (1, 2))
    if h is None or m is None or h.shape[0] != m.shape[0] or h.size == 0 or m.size == 0:
        return None
    h, m = h.reshape(h.shape[0], -1), m.reshape(m.shape[0], -1)
    if np.isinf(h).any() or np.isinf(m).any():
        return None
    h_missing = np.isnan(h)
    m_missing = np.isnan(m)
    if h_missing.all() or m_missing.all(axis=0).any():
        return None
    if (policy == "raise" and m_missing.any()) or not np.all(h_missing | (h == np.floor(h))):
        return None
    real = tuple(
        not bool(np.all(m_missing[:, j] | (m[:, j] == np.floor(m[:, j]))))
        for j in range(m.shape[1])
    )
    named_quadratic = isinstance(weights, str) and weights == "quadratic"
    if any(real) and not named_quadratic:
        return None
    integer = [h] + [m[:, j] for j in range(m.shape[1]) if not real[j]]
    lo = min(float(np.nanmin(x)) for x in integer)
    hi = max(float(np.nanmax(x)) for x in integer)
    if not (abs(lo) < 2**52 and abs(hi) < 2**52):
        return None
    k = int(hi - lo) + 1
    if named_quadratic:
        wmat = None
    elif k <= MAX_DENSE_CLASSES:
        wmat = resolve(weights, k, scale="the rating scale", hint="; pass `labels` to fix it")
    else:
        return None
    hname, mname = names
    hnames = (hname,) if h.shape[1] == 1 else tuple(f"{hname}[{j}]" for j in range(h.shape[1]))
    mnames = (mname,) if m.shape[1] == 1 else tuple(f"{mname}[{j}]" for j in range(m.shape[1]))
    hpos, mpos = h - lo, m - lo
    _check_columns(hpos, hnames, hname, human=True)
    _check_columns(mpos, mnames, mname, human=False)
    if may_fire(int(lo), int(hi)):  # negative or wide: are there missing-value codes?
        ratings = np.concatenate([x[~np.isnan(x)] for x in integer])
        warn_codes(sketch_values(np.unique(ratings)))
    offset = int(lo)
    return Scores(
        human=hpos,
        machine=mpos,
        human_names=hnames,
        machine_names=mnames,
        real=real,
        wmat=wmat,
        weights=weights_name(weights),
        scale=np.arange(offset, offset + k)
        if k <= MAX_DENSE_CLASSES
        else range(offset, offset + k),
        n_omitted=tuple(int(x) for x in m_missing.sum(axis=0)),
        human_values=hpos,
        machine_values=mpos,
        origin=float(offset),
        on_values=True,
    )


def _check_columns(
    pos: np.ndarray, names, param: str, *, human: bool, named: bool = False, slots: bool = False
) -> None:
    """Every column rates something, and not one single value throughout (a message names
    the column of humans, of several machines, or of machines given by name). Of rating
    slots only the first — the reference human — must vary: a late slot holds few items."""
    for j, name in enumerate(names):
        if slots and j > 0:
            break
        col = pos[:, j]
        col = col[~np.isnan(col)]
        where = f" column {name!r}" if len(names) > 1 or human or named else ""
        if col.size == 0:
            raise QwkitError(f"`{param}`{where} rates no item; drop the column.", parameter=param)
        if col.size >= 2 and np.all(col == col[0]):
            raise QwkitError(
                f"`{param}`{where} gives every item the same "
                f"{'rating' if human else 'score'}; kappa, correlation and the standardized "
                "mean difference compare spreads, which a constant rater does not have.",
                parameter=param,
            )


# ---------------------------------------------------------------------------- trimming

#: RSMTool's default trimming tolerance: real-valued scores are kept within
#: [lowest score point − 0.4998, highest + 0.4998], so that rounding them gives a point
#: of the scale.
TRIM_TOLERANCE = 0.4998


def check_trim(trim) -> float | None:
    """``trim`` as the trimming tolerance: True → RSMTool's 0.4998, a number ≥ 0 → itself
    (RSMTool's ``trim_tolerance``), False → None (no trimming)."""
    if isinstance(trim, (bool, np.bool_)):
        return TRIM_TOLERANCE if trim else None
    if not isinstance(trim, numbers.Real):
        raise QwkitTypeError(
            "`trim` must be True, False or a tolerance (a number ≥ 0; True is RSMTool's "
            f"0.4998); got {trim!r}.",
            parameter="trim",
        )
    if not (math.isfinite(trim) and float(trim) >= 0):
        raise QwkitError(
            f"`trim` as a tolerance must be a finite number ≥ 0; got {trim!r}.",
            parameter="trim",
        )
    return float(trim)


@dataclass(frozen=True, slots=True)
class Trimmed:
    """Real-valued machine scores after trimming: how many of each column moved (or,
    untrimmed, lie outside the trimming bounds)."""

    scores: Scores
    n_trimmed: tuple[int, ...]
    n_outside: tuple[int, ...]


def trim_scores(scores: Scores, trim: bool, tolerance: float = TRIM_TOLERANCE) -> Trimmed:
    """Real-valued machine columns clipped to [0 − tolerance, K − 1 + tolerance] in
    positions — [lowest − tolerance, highest + tolerance] in values, RSMTool's trimming —
    when ``trim``; untrimmed, the scores outside those bounds are counted."""
    k = len(scores.scale)
    lo, hi = -tolerance, k - 1.0 + tolerance
    machine = scores.machine
    outside = []
    for j, real in enumerate(scores.real):
        col = machine[:, j]
        outside.append(int(np.count_nonzero((col < lo) | (col > hi))) if real else 0)
    if not trim or not any(outside):
        return Trimmed(scores, (0,) * len(outside), tuple(outside))
    machine = machine.copy()
    real_cols = np.asarray(scores.real)
    machine[:, real_cols] = np.clip(machine[:, real_cols], lo, hi)
    # real-valued scores need a scale of consecutive integers, whose values are its
    # positions (from the origin): one array is both
    trimmed = dataclasses.replace(scores, machine=machine, machine_values=machine)
    return Trimmed(trimmed, tuple(outside), (0,) * len(outside))
