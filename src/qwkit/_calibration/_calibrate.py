"""``calibrate_judge``: map an LLM judge's scores onto the human scale, and say what
kappa the mapping will have on new items (``docs/calibration.md``, eqs. C0–C8).

The mapping is monotone in the judge's score: the exact kappa-optimal cut points
(``method="thresholds"``, eqs. T1–T6 of ``docs/thresholds.md`` against every human
rating), or isotonic regression of the items' mean human value on the judge's score,
rounded to the nearest label (``method="isotonic"``, eqs. C2–C3). Its in-sample kappa is
optimistic; repeated K-fold cross-fitting refits it on all folds but one, classifies the
held-out fold, and averages the kappa of the pooled out-of-fold classes (eq. C5), with
the interval of eq. C7. The result is a frozen record that applies the mapping
(``transform``), draws the reliability diagram (``plot``) and saves itself as JSON.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._items import paired
from qwkit._base._results import freeze_arrays, plain, public_module, reduce_dataclass
from qwkit._base._tables import Column, Table, render_text
from qwkit._base._validation import (
    check_choice,
    check_confidence_level,
    check_integer,
    check_interval_method,
    check_rng,
    show,
)
from qwkit._base._warnings import UndefinedKappaWarning, warn
from qwkit._base._weights import WeightsLike, check_weights, resolve, weights_name
from qwkit._calibration import _plots
from qwkit._calibration._input import Human, prepare_human, prepare_judge
from qwkit._calibration._kappa import cluster_variance, rows_kappa
from qwkit._calibration._mapping import METHODS, Sample, fold_of_items
from qwkit._table._resampling import (
    ConfidenceInterval,
    corrected_kappa_interval,
    limit_lines,
    wald_interval,
)

__all__ = ["JudgeCalibration", "calibrate_judge", "check_split_options", "human_of"]

#: The kind of the JSON of a saved calibration.
KIND = "judge_calibration"
#: Every refit is one exact solve; more than this many is a mistake, not a request.
_MAX_RESAMPLES = 100_000
#: A judge with at most this many distinct scores is binned by score in the diagram.
_MAX_DISTINCT_BINS = 25
_RAW_BINS = 10


# ---------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True, eq=False)
class JudgeCalibration:
    """A judge's scores mapped onto the human scale, as fitted by :func:`calibrate_judge`.

    Attributes
    ----------
    thresholds : ndarray of shape (K − 1,)
        Cut points on the judge's score (its expected score, for probabilities): a
        score s gets class j when ``thresholds[j − 1] < s <= thresholds[j]``, as in
        :func:`apply_thresholds`. ±inf marks a class no score gets.
    labels : ndarray of shape (K,)
        The human scale.
    method : str
        ``"thresholds"`` (kappa-optimal cut points) or ``"isotonic"``.
    weights : str
        The disagreement weights of kappa (``"custom"`` for a matrix).
    statistic : float
        The optimism-corrected kappa: the estimated kappa of the mapping against a
        human rating of new items (eq. C5 of ``docs/calibration.md``).
    apparent : float
        The in-sample kappa of the mapping against every human rating (eq. C4).
    optimism : float
        ``apparent − statistic``.
    standard_error_apparent, standard_error_optimism : float
        Standard errors of the apparent kappa (classes held fixed) and of the optimism
        (the paired difference of the fitted and the out-of-fold classes), with the
        items as clusters (eq. C6).
    raw_statistic, raw_standard_error : float
        Kappa of the raw judge, its scores rounded to the nearest label (eq. C8; no
        fitting, so no optimism), and its standard error; nan for a text scale.
    n_items, n_ratings : int
        Labelled items, and the human ratings they hold.
    n_resamples, n_splits : int
        Refits used by cross-fitting (folds over all repetitions), and folds per
        repetition.
    judge_labels : ndarray or None
        The values of the judge's score points when it gave probabilities (the expected
        score Σ p·value is what the cut points cut, eq. C0); None for scores.
    curve_x, curve_y : ndarray
        ``"isotonic"``: the fitted curve (distinct judge scores, mean human value);
        empty for ``"thresholds"``.
    reliability : ndarray of shape (K, 3)
        Per class of the mapping: its value, the mean human value of the items it
        gets *out of fold*, and those items (per repetition of cross-fitting): the
        reliability diagram.
    raw_reliability : ndarray of shape (B, 3)
        Per bin of the raw judge score: the mean score, the mean human value, the items.
    """

    thresholds: np.ndarray
    labels: np.ndarray
    method: str
    weights: str
    statistic: float
    apparent: float
    optimism: float
    standard_error_apparent: float
    standard_error_optimism: float
    raw_statistic: float
    raw_standard_error: float
    n_items: int
    n_ratings: int
    n_resamples: int
    n_splits: int
    judge_labels: np.ndarray | None = None
    curve_x: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    curve_y: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    reliability: np.ndarray = field(default_factory=lambda: np.empty((0, 3)), repr=False)
    raw_reliability: np.ndarray = field(default_factory=lambda: np.empty((0, 3)), repr=False)

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    @property
    def standard_error(self) -> float:
        """Standard error of the interval: ``standard_error_apparent +
        standard_error_optimism`` (eq. C7)."""
        return self.standard_error_apparent + self.standard_error_optimism

    def transform(self, judge: ArrayLike) -> np.ndarray:
        """The judge's scores on the human scale: the label of each score's class.

        Parameters
        ----------
        judge : array-like of shape (n_items,) or (n_items, M)
            Scores of new items, in the form the mapping was fitted on: one score per
            item, or (when ``judge_labels`` is set) probabilities over the M points.

        Returns
        -------
        ndarray of shape (n_items,)
            Values of ``labels``.

        Examples
        --------
        >>> import qwkit
        >>> human = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 3
        >>> judge = [2.0, 3.1, 3.0, 4.2, 4.8, 5.9, 6.0, 7.4, 8.2, 9.5] * 3
        >>> cal = qwkit.calibrate_judge(human, judge, rng=0)
        >>> cal.transform([2.5, 5.0, 9.9])
        array([1, 3, 5])
        """
        if (np.ndim(judge) == 2) != (self.judge_labels is not None):
            fitted = "probabilities" if self.judge_labels is not None else "one score per item"
            raise QwkitError(
                f"`judge` must be in the form the mapping was fitted on ({fitted}); got "
                f"{np.ndim(judge)} dimension(s).",
                parameter="judge",
            )
        j = prepare_judge(judge, self.judge_labels, "judge")
        return self.labels[np.searchsorted(self.thresholds, j.scores, side="left")]

    def confidence_interval(
        self, confidence_level: float = 0.95, *, method: Literal["asymptotic"] = "asymptotic"
    ) -> ConfidenceInterval:
        """Confidence interval for the mapping's kappa on new items.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Confidence level, strictly between 0 and 1.
        method : {"asymptotic"}, default="asymptotic"
            The one interval of this result: ``statistic ± z·standard_error`` (eq. C7 of
            ``docs/calibration.md``), its upper limit at most 1.

        Returns
        -------
        ConfidenceInterval
        """
        level = check_confidence_level(confidence_level)
        check_interval_method(method, "asymptotic", "calibrate_judge")
        return corrected_kappa_interval(
            self.statistic, self.standard_error, self.n_items, level
        )  # (eq. C7)

    def _limits(self, confidence_level: float) -> ConfidenceInterval:
        level = check_confidence_level(confidence_level)
        return wald_interval(
            self.statistic, self.standard_error, level, "two-sided", upper_bound=1.0
        )  # (eq. C7)

    def tables(self, confidence_level: float = 0.95) -> tuple[Table, ...]:
        """The result as table records (the summary's, the command line's and the
        report's): the classes and their judge scores, then the kappas."""
        edges = [-np.inf, *self.thresholds.tolist(), np.inf]
        rows = []
        for j, label in enumerate(self.labels.tolist()):
            lo, hi = edges[j], edges[j + 1]
            scores = "none (empty)" if not lo < hi else f"({lo:.6g}, {hi:.6g}]"
            n_oof = float(self.reliability[j, 2]) if self.reliability.shape[0] else None
            mean = float(self.reliability[j, 1]) if self.reliability.shape[0] else None
            rows.append((str(label), scores, n_oof, None if not n_oof else mean))
        judged = "expected judge score" if self.judge_labels is not None else "judge score"
        classes = Table(
            key="classes",
            title="Judge scores mapped onto the human scale",
            columns=(
                Column("class", "text"),
                Column(judged, "text"),
                Column("items (out of fold)", "number", 1),
                Column("mean human", "number", 3),
            ),
            rows=tuple(rows),
            notes=(
                "mean human: the mean human rating of the items each class gets out of "
                "fold (cross-fitting); near the class itself when the mapping is calibrated.",
            ),
        )
        limits = self._limits(confidence_level)
        what = f"{self.n_splits}-fold cross-fitting x {self.n_resamples // self.n_splits}"
        kappas = Table(
            key="kappa",
            title=f"Kappa against a human rating ({self.weights} weights)",
            columns=(
                Column("", "text"),
                Column("kappa", "number", 4),
                Column("SE", "number", 4),
                Column(f"{100 * confidence_level:g}% CI", "interval", 4),
            ),
            rows=(
                ("in-sample", self.apparent, self.standard_error_apparent, None),
                ("optimism", self.optimism, self.standard_error_optimism, None),
                ("corrected (new items)", self.statistic, self.standard_error, tuple(limits)),
                ("raw judge, rounded", self.raw_statistic, self.raw_standard_error, None),
            ),
            notes=(
                f"method: {_METHOD_WORDS[self.method]}; corrected by {what}; "
                f"{self.n_items:,} items, {self.n_ratings:,} human ratings.",
            ),
        )
        return classes, kappas

    def summary(self, confidence_level: float = 0.95) -> str:
        """Text block: the classes and their judge scores, the in-sample, corrected and
        raw kappas, and the interval at ``confidence_level``.

        Examples
        --------
        >>> import qwkit
        >>> human = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 3
        >>> judge = [2.0, 3.1, 3.0, 4.2, 4.8, 5.9, 6.0, 7.4, 8.2, 9.5] * 3
        >>> print(qwkit.calibrate_judge(human, judge, rng=0).summary())  # doctest: +ELLIPSIS
        Judge scores mapped onto the human scale
        ----------------------------------------
        class  judge score   items (out of fold)  mean human
        1      (-inf, 3.05]                  6.0       1.500
        ...
        """
        out = []
        for table in self.tables(confidence_level):
            out.append(render_text(table))
        lines = limit_lines(confidence_level, self._limits(confidence_level), 26)
        return "\n".join(out) + "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """Every field as plain Python values (±inf cut points stay floats), with the
        95% interval: what :meth:`from_dict` reads back."""
        low, high = self._limits(0.95)
        return plain(
            {
                "kind": KIND,
                "method": self.method,
                "weights": self.weights,
                "thresholds": self.thresholds,
                "labels": self.labels,
                "judge_labels": self.judge_labels,
                "statistic": self.statistic,
                "apparent": self.apparent,
                "optimism": self.optimism,
                "standard_error": self.standard_error,
                "standard_error_apparent": self.standard_error_apparent,
                "standard_error_optimism": self.standard_error_optimism,
                "confidence_interval_95": [low, high],
                "raw_statistic": self.raw_statistic,
                "raw_standard_error": self.raw_standard_error,
                "n_items": self.n_items,
                "n_ratings": self.n_ratings,
                "n_resamples": self.n_resamples,
                "n_splits": self.n_splits,
                "curve_x": self.curve_x,
                "curve_y": self.curve_y,
                "reliability": self.reliability,
                "raw_reliability": self.raw_reliability,
            }
        )

    def to_json(self) -> str:
        """The calibration as JSON text (±inf cut points as ``"inf"`` / ``"-inf"``, nan
        as null), to save it and apply it later (:meth:`from_json`)."""
        d = self.to_dict()
        d["thresholds"] = [_json_cut(c) for c in d["thresholds"]]
        return json.dumps(plain(d, json=True), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict) -> JudgeCalibration:
        """Rebuild a calibration from :meth:`to_dict` (or the parsed :meth:`to_json`).

        Examples
        --------
        >>> import json, qwkit
        >>> human = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 3
        >>> judge = [2.0, 3.1, 3.0, 4.2, 4.8, 5.9, 6.0, 7.4, 8.2, 9.5] * 3
        >>> cal = qwkit.calibrate_judge(human, judge, rng=0)
        >>> again = qwkit.JudgeCalibration.from_json(cal.to_json())
        >>> again.transform([2.5, 5.0, 9.9]).tolist(), again.statistic == cal.statistic
        ([1, 3, 5], True)
        """
        return _from_dict(cls, data)

    @classmethod
    def from_json(cls, text: str) -> JudgeCalibration:
        """Rebuild a calibration from the text of :meth:`to_json`."""
        if not isinstance(text, (str, bytes)):
            raise QwkitTypeError(
                f"`text` must be the JSON text of a calibration; got {type(text).__name__}.",
                parameter="text",
            )
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise QwkitError(f"`text` is not valid JSON: {exc}.", parameter="text") from None
        return _from_dict(cls, data)

    def plot(self, *, title: str | None = None):
        """The reliability diagram, with matplotlib (the ``plot`` extra): left, the mean
        human rating against the raw judge score, with the mapping drawn over it; right,
        the mean human rating of the items of each class (out of fold) against the
        class — on the diagonal when the mapping is calibrated.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import qwkit
        >>> human = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 3
        >>> judge = [2.0, 3.1, 3.0, 4.2, 4.8, 5.9, 6.0, 7.4, 8.2, 9.5] * 3
        >>> fig = qwkit.calibrate_judge(human, judge, rng=0).plot()
        >>> [ax.get_xlabel() for ax in fig.axes]
        ['judge score', 'class of the calibrated judge']
        """
        return _plots.reliability_figure(self, title=title)


public_module(JudgeCalibration)

_METHOD_WORDS = {
    "thresholds": "kappa-optimal cut points",
    "isotonic": "isotonic regression, rounded to the nearest label",
}


def _json_cut(c):
    return c if math.isfinite(c) else ("inf" if c > 0 else "-inf")


def _array(data: dict, key: str, *, shape_2d: bool = False, optional: bool = False):
    value = data.get(key)
    if value is None:
        if optional:
            return None
        return np.empty((0, 3)) if shape_2d else np.empty(0)
    try:
        arr = np.array(
            [[math.nan if v is None else float(v) for v in row] for row in value]
            if shape_2d
            else [float(v) if not isinstance(v, str) else float(v.replace("+", "")) for v in value],
            dtype=np.float64,
        )
    except (TypeError, ValueError):
        raise QwkitError(
            f'the calibration\'s "{key}" must be a list of numbers; got {value!r:.80}.',
            parameter="data",
        ) from None
    if shape_2d and arr.size and (arr.ndim != 2 or arr.shape[1] != 3):
        raise QwkitError(f'the calibration\'s "{key}" must be rows of 3.', parameter="data")
    return arr.reshape(-1, 3) if shape_2d else arr


def _number(data: dict, key: str) -> float:
    value = data.get(key)
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QwkitError(
            f'the calibration\'s "{key}" must be a number; got {value!r}.', parameter="data"
        )
    return float(value)


def _from_dict(cls, data) -> JudgeCalibration:
    from qwkit._base._scale import prepare_labels

    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise QwkitError(
            'not a saved judge calibration (its JSON has no "kind": '
            f'"{KIND}"); write one with JudgeCalibration.to_json().',
            parameter="data",
        )
    cuts = _array(data, "thresholds")
    labels = prepare_labels(data.get("labels"), "labels").values
    if labels.shape[0] != cuts.shape[0] + 1 or np.isnan(cuts).any():
        raise QwkitError(
            f"the calibration's cut points ({cuts.shape[0]}) must be one fewer than its "
            f"labels ({labels.shape[0]}), and numbers.",
            parameter="data",
        )
    if np.any(cuts[1:] < cuts[:-1]):
        raise QwkitError(
            f"the calibration's cut points must be non-decreasing; got {show(cuts)}.",
            parameter="data",
        )
    method = check_choice(data.get("method"), "method", METHODS)
    ints = {}
    for key in ("n_items", "n_ratings", "n_resamples", "n_splits"):
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise QwkitError(
                f'the calibration\'s "{key}" must be a whole number; got {value!r}.',
                parameter="data",
            )
        ints[key] = value
    return cls(
        thresholds=cuts,
        labels=labels,
        method=method,
        weights=str(data.get("weights", "quadratic")),
        statistic=_number(data, "statistic"),
        apparent=_number(data, "apparent"),
        optimism=_number(data, "optimism"),
        standard_error_apparent=_number(data, "standard_error_apparent"),
        standard_error_optimism=_number(data, "standard_error_optimism"),
        raw_statistic=_number(data, "raw_statistic"),
        raw_standard_error=_number(data, "raw_standard_error"),
        judge_labels=_array(data, "judge_labels", optional=True),
        curve_x=_array(data, "curve_x"),
        curve_y=_array(data, "curve_y"),
        reliability=_array(data, "reliability", shape_2d=True),
        raw_reliability=_array(data, "raw_reliability", shape_2d=True),
        **ints,
    )


# ---------------------------------------------------------------------------- checks


def check_split_options(n_resamples, n_splits, n_items: int) -> tuple[int, int]:
    """``n_splits`` folds (2 … n_items) and ``n_resamples`` refits, a multiple of it."""
    n_splits = check_integer(n_splits, "n_splits", 2)
    if n_splits > n_items:
        raise QwkitError(
            f"`n_splits` must be at most the number of labelled items ({n_items}); got {n_splits}.",
            parameter="n_splits",
        )
    if n_resamples is None:
        return n_splits, n_splits
    n_resamples = check_integer(n_resamples, "n_resamples", 1)
    if n_resamples > _MAX_RESAMPLES:
        raise QwkitError(
            f"`n_resamples` must be at most {_MAX_RESAMPLES:,} (each is a refit); got "
            f"{n_resamples:,}.",
            parameter="n_resamples",
        )
    if n_resamples % n_splits:
        raise QwkitError(
            "`n_resamples` counts refits: n_splits of them per repetition of cross-fitting, "
            f"so it must be a multiple of `n_splits` ({n_splits}); got {n_resamples}.",
            parameter="n_resamples",
        )
    return n_resamples, n_splits


def human_of(human, labels, name: str) -> Human:
    """Human ratings with at least two categories (kappa and the cut points need them)."""
    h = prepare_human(human, labels, name)
    used = np.unique(h.codes)
    if used.shape[0] < 2:
        raise QwkitError(
            f"`{name}` holds only the rating {plain(h.scale[used[0]])!r}; the labelled items "
            "need at least two human categories (kappa, cut points and the judge's relation to the "
            "humans are undefined otherwise).",
            parameter=name,
        )
    return h


def _weight_matrix(weights, k: int) -> np.ndarray:
    return np.ascontiguousarray(
        resolve(weights, k, scale="the human rating scale", hint="; pass `labels`"),
        dtype=np.float64,
    )


# ---------------------------------------------------------------------------- estimation


def _raw_classes(scores: np.ndarray, h: Human) -> np.ndarray | None:
    """Positions of the labels nearest the raw scores, halves up (eq. C8); None for a
    text scale, whose labels have no values."""
    if not h.on_values:
        return None
    mids = h.values[:-1] / 2 + h.values[1:] / 2
    return np.searchsorted(mids, scores, side="right")  # (eq. C8)


def _raw_bins(scores: np.ndarray, item_means: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(mean score, mean human value, items) per bin of the raw score: each distinct
    score when there are few, else deciles of the items."""
    distinct, where = np.unique(scores, return_inverse=True)
    n_items = scores.shape[0]
    if distinct.shape[0] > _MAX_DISTINCT_BINS:  # deciles; ties share their first's bin
        first = np.searchsorted(np.sort(scores), scores, side="left")
        where = first * _RAW_BINS // n_items
    m = int(where.max()) + 1
    n = np.bincount(where, minlength=m).astype(np.float64)
    x = np.bincount(where, weights=scores, minlength=m)
    y = np.bincount(where, weights=item_means * counts, minlength=m)
    c = np.bincount(where, weights=counts, minlength=m)
    used = n > 0
    return np.column_stack([x[used] / n[used], y[used] / c[used], n[used]])


def cross_fitted_kappa(sample: Sample, method, fitted_rows, n_splits, n_repeats, gen):
    """Repeated K-fold cross-fitting (eq. C5): the mean pooled out-of-fold kappa, the
    refits used, the mean paired variance of apparent − out-of-fold kappa (eq. C6) and
    the reliability diagram (per class: items per repetition and their mean human
    value, out of fold)."""
    h = sample.human
    k = h.k
    total = total_var = 0.0
    used = 0
    rel_n = np.zeros(k)
    rel_sum = np.zeros(k)
    item_means = h.item_means()
    for _ in range(n_repeats):
        fold = fold_of_items(h.n_items, n_splits, gen)
        oof = np.empty(h.n_items, dtype=np.intp)
        complete = True
        for f in range(n_splits):
            held = fold == f
            mapping = sample.fit(method, ~held)
            if mapping is None:
                complete = False
                break
            oof[held] = mapping.classes(sample.scores[held])
        if not complete:
            continue
        b = oof[h.item]
        value = rows_kappa(h.codes, b, sample.wmat)  # pooled out-of-fold kappa   (eq. C5)
        if math.isnan(value):
            continue
        total += value
        total_var += cluster_variance(h.codes, fitted_rows, b, h.item, h.n_items, sample.wmat)
        rel_n += np.bincount(oof, minlength=k)
        rel_sum += np.bincount(oof, weights=item_means, minlength=k)
        used += 1
    if not used:
        return math.nan, 0, math.nan, rel_n, np.full(k, math.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel_mean = np.where(rel_n > 0, rel_sum / rel_n, math.nan)
    return total / used, used * n_splits, total_var / used, rel_n / used, rel_mean


def calibrate_judge(
    human: ArrayLike,
    judge: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    method: Literal["thresholds", "isotonic"] = "thresholds",
    judge_labels: ArrayLike | None = None,
    n_resamples: int = 200,
    n_splits: int = 10,
    rng: int | np.random.Generator | None = None,
) -> JudgeCalibration:
    """Map a judge's scores onto the human scale, with the kappa the mapping will have.

    Fits a monotone mapping from the judge's scores (an LLM's 1–10 scores, the mean of
    its answers, or its expected score from the probabilities of the score tokens) to the
    human rating scale, and estimates by cross-fitting the kappa it will have against a
    human rating of new items, with an interval.

    Parameters
    ----------
    human : array-like of shape (n_items,) or (n_items, n_raters)
        Human ratings of the labelled items: one per item, or items × raters with NaN
        for "not rated" (every item rated at least once). Integers, or any values with
        ``labels``.
    judge : array-like of shape (n_items,) or (n_items, M)
        The judge's score of each item (real numbers, finite; any scale: larger means
        better), or the probabilities it gave to its M score points (each row summing to
        1; ``judge_labels`` are their values).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"} or \
array-like of shape (K, K), default="quadratic"
        Disagreement weights of kappa, indexed ``[human, judge]``.
    labels : array-like of shape (K,), default=None
        The human scale; None: the integer range of the ratings (or a declared order).
    method : {"thresholds", "isotonic"}, default="thresholds"
        ``"thresholds"``: the exact kappa-optimal cut points (the global optimum,
        :func:`optimize_thresholds` against every human rating); ``"isotonic"``:
        isotonic regression of the items' mean human value on the judge's score, each
        score given the label nearest its curve.
    judge_labels : array-like of shape (M,), default=None
        The values of the judge's score points, increasing, when ``judge`` holds
        probabilities; None: 1, 2, …, M.
    n_resamples : int, default=200
        Refits of cross-fitting: ``n_splits`` per repetition (so a multiple of it).
    n_splits : int, default=10
        Folds per repetition, from 2 to the number of items.
    rng : None, int or numpy.random.Generator, default=None
        Source of randomness of the folds.

    Returns
    -------
    JudgeCalibration
        ``thresholds``, ``labels``, ``transform``, ``statistic`` (the corrected
        kappa), ``apparent``, ``raw_statistic``, ``confidence_interval``,
        ``summary``, ``plot``, ``to_json``.

    Raises
    ------
    QwkitError
        Lengths that differ; a human rating off the scale; fewer than two human
        categories; a judge constant on the labelled items (no mapping can be learnt);
        a missing judge score; probabilities that are negative or do not sum to 1
        (within 10⁻⁶) in some row; ``n_splits`` or ``n_resamples`` out of range.

    Warns
    -----
    UndefinedKappaWarning
        When some repetitions of cross-fitting cannot be refitted (a training fold with
        one human category: only with very few items); they are left out.

    See Also
    --------
    human_scale_estimate : Means and category shares on the human scale from a small
        labelled slice and the judge on everything.
    optimism_corrected_kappa : The same correction for one rating per item.

    Notes
    -----
    Each human rating is a row paired with its item's judge class (an item rated three
    times is three rows), so kappa is the judge's agreement with a human rater. The
    cut points maximize it exactly (eqs. T1–T6 of ``docs/thresholds.md``); isotonic
    regression (eq. C2) fits the expected human value instead, by pool-adjacent-
    violators, and its classes are those of the nearest label (eq. C3). The in-sample
    kappa (eq. C4) is optimistic. Cross-fitting splits the *items* into ``n_splits``
    folds, refits the mapping on all but one and classifies the held-out fold; the
    kappa of the pooled out-of-fold classes, averaged over repetitions, estimates the
    kappa on new items (eq. C5). The interval (eq. C7) adds the standard errors of the
    apparent kappa and of the optimism, both with the items as clusters (eq. C6); see
    ``docs/calibration.md``, which also measures its coverage on the HANNA judges.

    Examples
    --------
    300 stories rated 1–5 by three people each and a judge that scores them 1–10
    (rounding its raw scores onto 1–5 does poorly; the cut points do well):

    >>> import numpy as np
    >>> import qwkit
    >>> rng = np.random.default_rng(20261121)
    >>> quality = rng.normal(size=300)
    >>> human = np.clip(np.rint(3 + quality[:, None] + rng.normal(0, 0.7, (300, 3))), 1, 5)
    >>> judge = np.clip(6 + 2 * quality + rng.normal(0, 1.2, 300), 1, 10)
    >>> cal = qwkit.calibrate_judge(human, judge, rng=0)
    >>> cal.thresholds.round(2)
    array([3.36, 4.58, 7.2 , 9.26])
    >>> round(cal.apparent, 4), round(cal.statistic, 4), round(cal.raw_statistic, 4)
    (0.6736, 0.6314, 0.2666)
    >>> cal.transform([2.0, 6.0, 9.5])
    array([1, 3, 5])
    """
    method = check_choice(method, "method", METHODS)
    weights = check_weights(weights)
    gen = check_rng(rng)
    human, judge = paired((human, judge), ("human", "judge"))
    h = human_of(human, labels, "human")
    j = prepare_judge(judge, judge_labels, "judge")
    if j.scores.shape[0] != h.n_items:
        raise QwkitError(
            f"`human` and `judge` must be of the same items; got {h.n_items} and "
            f"{j.scores.shape[0]}.",
            parameter="judge",
            also=("human",),
        )
    if np.all(j.scores == j.scores[0]):
        raise QwkitError(
            f"`judge` gives every labelled item the same score ({j.scores[0]:.6g}); no "
            "mapping onto the human scale can be learnt from it.",
            parameter="judge",
        )
    n_resamples, n_splits = check_split_options(n_resamples, n_splits, h.n_items)
    wmat = _weight_matrix(weights, h.k)

    sample = Sample.of(h, j.scores, wmat)
    mapping = sample.fit(method)
    assert mapping is not None  # human_of: two human categories at least
    item_class = mapping.classes(j.scores)
    a = item_class[h.item]
    apparent = rows_kappa(h.codes, a, wmat)  # (eq. C4)
    var_apparent = cluster_variance(h.codes, a, None, h.item, h.n_items, wmat)  # (eq. C6)
    statistic, used, var_optimism, rel_n, rel_mean = cross_fitted_kappa(
        sample, method, a, n_splits, n_resamples // n_splits, gen
    )
    if used < n_resamples:
        warn(
            f"{n_resamples - used} of {n_resamples} refits (in whole repetitions) could not "
            "be made (a training fold with a single human category) and were left out.",
            UndefinedKappaWarning,
        )
    raw = _raw_classes(j.scores, h)
    raw_kappa = raw_var = math.nan
    if raw is not None:
        raw_rows = raw[h.item]
        raw_kappa = rows_kappa(h.codes, raw_rows, wmat)  # (eq. C8)
        raw_var = cluster_variance(h.codes, raw_rows, None, h.item, h.n_items, wmat)
    counts = h.counts()
    item_means = h.item_means()
    return JudgeCalibration(
        thresholds=mapping.thresholds,
        labels=h.scale,
        method=method,
        weights=weights_name(weights),
        statistic=float(statistic),
        apparent=float(apparent),
        optimism=float(apparent - statistic),
        standard_error_apparent=math.sqrt(var_apparent),
        standard_error_optimism=math.sqrt(var_optimism),
        raw_statistic=float(raw_kappa),
        raw_standard_error=math.sqrt(raw_var),
        n_items=h.n_items,
        n_ratings=h.n_ratings,
        n_resamples=used,
        n_splits=n_splits,
        judge_labels=j.points,
        curve_x=mapping.curve_x,
        curve_y=mapping.curve_y,
        reliability=np.column_stack([h.values, rel_mean, rel_n]),
        raw_reliability=_raw_bins(j.scores, item_means, counts),
    )
