"""``human_scale_estimate``: the mean human rating and the share of each category of
items no human rated, per group, from a labelled slice and the judge on everything —
prediction-powered, power-tuned (PPI++), beside the humans-only estimate, with the
groups compared (``docs/calibration.md``, eqs. P1–P10). Its records are in
``_scale_results``.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._items import paired
from qwkit._base._results import plain
from qwkit._base._validation import check_choice, check_confidence_level, check_rng, show
from qwkit._base._warnings import DegenerateIntervalWarning, warn
from qwkit._base._weights import WeightsLike, check_weights
from qwkit._calibration._calibrate import _weight_matrix, check_split_options, human_of
from qwkit._calibration._input import Human, Judge, check_groups, prepare_judge
from qwkit._calibration._mapping import METHODS, Sample, fold_of_items
from qwkit._calibration._ppi import REASONS, Compressed, moments, ppi
from qwkit._calibration._scale_results import HumanScaleEstimate, ScaleComparison, ScaleEstimate
from qwkit._table._resampling import adjust_pvalues, pvalue, wald_interval

__all__ = ["HumanScaleEstimate", "ScaleComparison", "ScaleEstimate", "human_scale_estimate"]

STATISTICS = ("mean", "proportions")


# ---------------------------------------------------------------------------- inputs


def _same_form(jl: Judge, ju: Judge) -> None:
    if (jl.proba is None or ju.proba is None or jl.proba.shape[1] != ju.proba.shape[1]) and (
        jl.proba is not None or ju.proba is not None
    ):
        raise QwkitError(
            "`judge_labelled` and `judge_unlabelled` must be of one form: both one score "
            "per item, or both probabilities over the same score points.",
            parameter="judge_unlabelled",
            also=("judge_labelled",),
        )


def _one_hot(cls: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros((cls.shape[0], k))
    out[np.arange(cls.shape[0]), cls] = 1.0
    return out


def _classes_of_sorted(distinct: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """``searchsorted(thresholds, distinct)`` for increasing ``distinct``, in O(m + K)."""
    step = np.zeros(distinct.shape[0] + 1, dtype=np.intp)
    np.add.at(step, np.searchsorted(distinct, thresholds, side="right"), 1)
    return np.cumsum(step)[:-1]


def _direct(h: Human, jl: Judge, ju: Judge, statistic: str, name: str):
    """The judge's predictions as they are: its score (mean), or its probabilities or
    its ratings on the human scale (proportions)."""
    if statistic == "mean":
        return jl.scores[:, None], ju.scores[:, None]
    k = h.k
    if jl.proba is not None:
        if jl.proba.shape[1] != k:
            raise QwkitError(
                f"`{name}` gives probabilities over {jl.proba.shape[1]} score points but the "
                f"human scale has {k} categories; for category shares pass "
                "calibration='thresholds'.",
                parameter=name,
            )
        return jl.proba, ju.proba
    out = []
    for j, nm in ((jl, "judge_labelled"), (ju, "judge_unlabelled")):
        pos = np.searchsorted(h.values, j.scores)
        inside = (pos < k) & (h.values[np.minimum(pos, k - 1)] == j.scores)
        if not h.on_values or not inside.all():
            i = int(np.flatnonzero(~inside)[0]) if h.on_values else 0
            raise QwkitError(
                f"`{nm}` holds {j.scores[i]:.6g} (index {i}), which is not a category of the "
                f"human scale {show(h.scale)}; category shares need the judge on that scale: "
                "pass calibration='thresholds' (cut points cross-fitted on the labelled "
                "items), or its probabilities over the categories.",
                parameter=nm,
                row=i,
            )
        out.append(_one_hot(pos, k))
    return out[0], out[1]


def _cross_fitted(h, jl, ju, statistic, method, wmat, n_splits, gen):
    """Predictions of a mapping cross-fitted on the labelled items (eq. P8): each
    labelled item's from the mapping fitted without its fold, each unlabelled item's the
    mean over the folds' mappings."""
    sample = Sample.of(h, jl.scores, wmat)
    fold = fold_of_items(h.n_items, n_splits, gen)
    distinct, where = np.unique(ju.scores, return_inverse=True)
    d = 1 if statistic == "mean" else h.k
    f = np.empty((h.n_items, d))
    acc = np.zeros((distinct.shape[0], d))
    for k in range(n_splits):
        held = fold == k
        mapping = sample.fit(method, ~held)
        if mapping is None:
            raise QwkitError(
                f"the labelled items of a training fold hold one human category only; pass "
                f"fewer `n_splits` (got {n_splits}).",
                parameter="n_splits",
            )
        if statistic == "mean":
            f[held, 0] = mapping.expected(jl.scores[held], h.values)
            if mapping.curve_x.shape[0]:
                acc[:, 0] += np.interp(distinct, mapping.curve_x, mapping.curve_y)
            else:
                acc[:, 0] += h.values[_classes_of_sorted(distinct, mapping.thresholds)]
        else:
            f[held] = _one_hot(mapping.classes(jl.scores[held]), h.k)
            cls = _classes_of_sorted(distinct, mapping.thresholds)
            acc[np.arange(distinct.shape[0]), cls] += 1.0
    return f, Compressed(table=acc / n_splits, where=where)  # (P8)


def _group_codes(gl, gu):
    """Codes 0 … G − 1 of the groups of both sets, and the groups (sorted)."""
    both = np.concatenate([gl, gu]) if gu.shape[0] else gl
    if gl.dtype.kind != gu.dtype.kind and gu.shape[0] and "U" in (gl.dtype.kind, gu.dtype.kind):
        raise QwkitError(
            "`groups` and `groups_unlabelled` must both be text or both numbers.",
            parameter="groups_unlabelled",
            also=("groups",),
        )
    names, codes = np.unique(both, return_inverse=True)
    return codes[: gl.shape[0]], codes[gl.shape[0] :], names


# ---------------------------------------------------------------------------- public


def human_scale_estimate(
    human_labelled: ArrayLike,
    judge_labelled: ArrayLike,
    judge_unlabelled: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    groups_unlabelled: ArrayLike | None = None,
    statistic: Literal["mean", "proportions"] = "mean",
    calibration: Literal["thresholds", "isotonic"] | None = None,
    judge_labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    n_splits: int = 10,
    rng: int | np.random.Generator | None = None,
) -> HumanScaleEstimate:
    """Mean human rating and category shares of unlabelled items, from a labelled slice
    and the judge on everything: PPI++ with its intervals, per group.

    Prediction-powered inference (Angelopoulos et al. 2023) corrects the judge's
    predictions on the unlabelled items by its errors on the labelled ones; the
    power-tuned form (PPI++, Angelopoulos, Duchi & Zrnic 2023) weighs the judge by how
    much it helps, so that the interval is valid however poor or biased the judge, and
    narrower than the humans-only one whenever the judge carries information (at worst,
    with a useless judge, a few per cent wider at very small n: the price of estimating
    λ).

    Parameters
    ----------
    human_labelled : array-like of shape (n,) or (n, n_raters)
        Human ratings of the labelled items: one per item, or items × raters with NaN
        for "not rated" (each item's ratings are averaged: its mean, or its share of
        each category).
    judge_labelled : array-like of shape (n,) or (n, M)
        The judge's score of each labelled item, or its probabilities over its M score
        points (rows summing to 1).
    judge_unlabelled : array-like of shape (N,) or (N, M)
        The same for the unlabelled items (no human rating).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"} or \
array-like of shape (K, K), default="quadratic"
        The weights of the kappa that ``calibration="thresholds"`` maximizes.
    labels : array-like of shape (K,), default=None
        The human scale; None: the integer range of the ratings (or a declared order).
    groups, groups_unlabelled : array-like of shape (n,) and (N,), default=None
        The group (a system, a subgroup) of each labelled and each unlabelled item:
        both or neither. Every group needs at least two labelled items.
    statistic : {"mean", "proportions"}, default="mean"
        The mean human rating (values of the scale; text labels: positions 1 … K), or
        the share of each category.
    calibration : {None, "thresholds", "isotonic"}, default=None
        How the judge is put on the human scale. None: as it is — its scores for the
        mean (λ absorbs any linear rescaling), its probabilities over the K categories
        or its ratings on the human scale for the shares. ``"thresholds"`` /
        ``"isotonic"``: the mapping of :func:`calibrate_judge`, *cross-fitted* on the
        labelled items (each labelled item predicted by the mapping fitted without its
        fold; each unlabelled one by the mean of the folds' mappings), so that the
        correction stays unbiased.
    judge_labels : array-like of shape (M,), default=None
        The values of the judge's score points, for probabilities; None: 1 … M.
    confidence_level : float, default=0.95
        Level of every interval.
    n_splits : int, default=10
        Folds of cross-fitting (with ``calibration``).
    rng : None, int or numpy.random.Generator, default=None
        Randomness of the folds (with ``calibration``).

    Returns
    -------
    HumanScaleEstimate
        ``estimates`` (all items, then each group; PPI++ and humans-only side by side,
        λ, effective labels), ``comparisons`` (every pair of groups, Holm-adjusted),
        ``ranking()``, ``summary()``, ``to_dict()``, ``plot()``.

    Raises
    ------
    QwkitError
        Lengths that differ; labelled items with a single human category; a group
        with no labelled item or only one; a judge score missing; probabilities that are
        negative or do not sum to 1; category shares from a judge not on the human scale
        without ``calibration``.

    Warns
    -----
    DegenerateIntervalWarning
        When the labelled items of some group (or category) all have the same value:
        a standard error of 0 and an interval that cannot be trusted.

    Notes
    -----
    For each group and quantity, with Y the items' human values and f the judge's
    predictions, the estimate is Ȳ + λ̂·(mean f̃ − f̄) (eq. P1 of
    ``docs/calibration.md``), λ̂ minimizing its estimated variance (eq. P3). Its standard
    error is the regression estimator's (eq. P4: the residual variance on n − 2 degrees
    of freedom, with the leverage of f̄ − mean f̃), and the interval uses Student's t —
    which at small n holds its level where the normal interval of the PPI++ paper does
    not (the simulation of the docs page). The humans-only estimate (eq. P5) is beside
    it, and replaces it only where the judge cannot be used (eq. P6: a judge constant on
    the labelled items, no unlabelled item, fewer than 3 labelled items) — never because
    its interval came out narrower, which would break the coverage. The effective number
    of human labels is n·(S²_Y/n) / V̂ (eq. P7).
    λ̂ is not clipped to [0, 1] as ``ppi_py`` clips it: the judge's scale need not be the
    humans'. With groups, one λ serves every group (eq. P3g: pooled within-group
    moments; each group's variance the plug-in P4g on n_g − 1 degrees of freedom): a λ
    tuned on a group's few items is noise. The target is the mean of the population the
    labelled and unlabelled items
    are drawn from, at random; groups are compared by the difference of their
    estimates (eq. P9), with Holm's adjustment over the pairs, and ranked with the ranks
    those tests allow (eq. P10).

    References
    ----------
    .. [1] A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
       "Prediction-powered inference", Science 382(6671):669-674, 2023.
    .. [2] A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient
       prediction-powered inference", arXiv:2311.01453, 2023.
    .. [3] T. Zrnic and E. J. Candès, "Cross-prediction-powered inference", PNAS
       121(15):e2322083121, 2024.
    .. [4] W. G. Cochran, *Sampling Techniques*, 3rd ed., Wiley, 1977, ch. 7 (the
       regression estimator).
    .. [5] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2):65-70, 1979.

    Examples
    --------
    A judge scores 2,000 items; people rated 200 of them (1–5):

    >>> import numpy as np
    >>> import qwkit
    >>> rng = np.random.default_rng(20261121)
    >>> quality = rng.normal(size=2000)
    >>> judge = 6 + 2 * quality + rng.normal(0, 1.0, 2000)    # a 1-10 judge, biased
    >>> human = np.clip(np.rint(3 + quality[:200] + rng.normal(0, 0.5, 200)), 1, 5)
    >>> res = qwkit.human_scale_estimate(human, judge[:200], judge[200:])
    >>> r = res.estimate()
    >>> round(r.estimate, 3), [round(x, 3) for x in (r.low, r.high)]
    (3.015, [2.905, 3.125])
    >>> round(r.human_only, 3), [round(x, 3) for x in (r.human_only_low, r.human_only_high)]
    (2.91, [2.747, 3.073])
    >>> round(r.effective_labels)
    440
    """
    statistic = check_choice(statistic, "statistic", STATISTICS)
    if calibration is not None:
        calibration = check_choice(calibration, "calibration", METHODS)
    level = check_confidence_level(confidence_level)
    weights = check_weights(weights)
    gen = check_rng(rng)
    if (groups is None) != (groups_unlabelled is None):
        missing = "groups_unlabelled" if groups_unlabelled is None else "groups"
        raise QwkitError(
            "`groups` and `groups_unlabelled` go together (the group of each labelled and "
            f"of each unlabelled item); got `{missing}` None.",
            parameter=missing,
        )
    human_labelled, judge_labelled, groups = paired(
        (human_labelled, judge_labelled, groups), ("human_labelled", "judge_labelled", "groups")
    )
    judge_unlabelled, groups_unlabelled = paired(
        (judge_unlabelled, groups_unlabelled), ("judge_unlabelled", "groups_unlabelled")
    )
    h = human_of(human_labelled, labels, "human_labelled")
    jl = prepare_judge(judge_labelled, judge_labels, "judge_labelled")
    ju = prepare_judge(judge_unlabelled, judge_labels, "judge_unlabelled")
    n, big_n = h.n_items, ju.scores.shape[0]
    if jl.scores.shape[0] != n:
        raise QwkitError(
            f"`human_labelled` and `judge_labelled` must be of the same items; got {n} and "
            f"{jl.scores.shape[0]}.",
            parameter="judge_labelled",
            also=("human_labelled",),
        )
    _same_form(jl, ju)
    gl = check_groups(groups, n, "groups", "labelled item")
    gu = check_groups(groups_unlabelled, big_n, "groups_unlabelled", "unlabelled item")

    if calibration is None:
        f, fu = _direct(h, jl, ju, statistic, "judge_labelled")
    else:
        n_splits = check_split_options(None, n_splits, n)[1]
        wmat = _weight_matrix(weights, h.k)
        f, fu = _cross_fitted(h, jl, ju, statistic, calibration, wmat, n_splits, gen)
    y = h.item_means()[:, None] if statistic == "mean" else h.item_fractions()
    quantities = ("mean",) if statistic == "mean" else tuple(h.scale.tolist())

    rows = list(
        _rows(y, f, fu, np.zeros(n, np.intp), np.zeros(big_n, np.intp), [None], quantities, level)
    )
    names: tuple = ()
    comparisons: tuple = ()
    if gl is not None:
        assert gu is not None  # groups and groups_unlabelled go together (checked)
        cl, cu, group_names = _group_codes(gl, gu)
        count = np.bincount(cl, minlength=group_names.shape[0])
        few = np.flatnonzero(count < 2)
        if few.size:
            g = group_names[few[0]]
            raise QwkitError(
                f"group {plain(g)!r} has {int(count[few[0]])} labelled item(s); every group "
                "needs at least two (its humans' variance is estimated from them).",
                parameter="groups" if count[few[0]] else "groups_unlabelled",
            )
        names = tuple(plain(group_names))
        group_rows = list(_rows(y, f, fu, cl, cu, list(names), quantities, level, shared=True))
        rows += group_rows
        comparisons = _comparisons(group_rows, names, quantities, level)
    degenerate = [r for r in rows if r.human_only_standard_error == 0.0]
    if degenerate:
        warn(
            f"{len(degenerate)} of {len(rows)} estimates rest on labelled items whose human "
            "values are all equal (a standard error of 0, e.g. a category no labelled item "
            "of a group holds): their intervals cannot be trusted.",
            DegenerateIntervalWarning,
        )
    return HumanScaleEstimate(
        statistic=statistic,
        labels=h.scale,
        calibration=calibration,
        confidence_level=level,
        estimates=tuple(rows),
        comparisons=comparisons,
        groups=names,
        n_labelled=n,
        n_unlabelled=big_n,
        n_ratings=h.n_ratings,
    )


def _rows(y, f, fu, gl, gu, names, quantities, level, *, shared=False):
    """The ScaleEstimate of every group (``names``) and quantity; ``shared``: one λ for
    all the groups (eqs. P3g, P4g)."""
    res = ppi(moments(y, f, gl, fu, gu, len(names)), level, shared=shared)
    m_n = np.bincount(gl, minlength=len(names))
    m_big = np.bincount(gu, minlength=len(names))
    for gi, name in enumerate(names):
        for c, quantity in enumerate(quantities):
            est, var, df = (float(x[gi, c]) for x in (res.estimate, res.variance, res.df))
            est0, var0, df0 = (
                float(x[gi, c]) for x in (res.classical, res.classical_variance, res.classical_df)
            )
            se, se0 = math.sqrt(max(var, 0.0)), math.sqrt(max(var0, 0.0))
            low, high = _interval(est, se, level, df)
            low0, high0 = _interval(est0, se0, level, df0)
            n_lab = int(m_n[gi])
            eff = var0 / var * n_lab if var > 0 else (float(n_lab) if var0 == 0 else math.inf)
            yield ScaleEstimate(
                group=name,
                quantity=quantity,
                estimate=est,
                standard_error=se,
                low=low,
                high=high,
                df=df,
                lam=float(res.lam[gi, c]),
                human_only=est0,
                human_only_standard_error=se0,
                human_only_low=low0,
                human_only_high=high0,
                human_only_df=df0,
                n_labelled=n_lab,
                n_unlabelled=int(m_big[gi]),
                effective_labels=float(eff),  # (P7)
                note=REASONS.get(int(res.reason[gi, c]), ""),
            )


def _interval(est: float, se: float, level: float, df: float) -> tuple[float, float]:
    """est ± t·se on df degrees of freedom (nan limits without any)."""
    if not df > 0:
        return math.nan, math.nan
    low, high = wald_interval(est, se, level, "two-sided", df=df)
    return float(low), float(high)


def _comparisons(rows, names, quantities, level) -> tuple:
    """Every pair of groups per quantity (eq. P9), Holm-adjusted per quantity."""
    alpha = 1 - level
    by = {(r.group, r.quantity): r for r in rows}
    out = []
    for quantity in quantities:
        pairs = []
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                ra, rb = by[(a, quantity)], by[(b, quantity)]
                va, vb = ra.standard_error**2, rb.standard_error**2
                var = va + vb
                diff = ra.estimate - rb.estimate
                if var > 0:
                    df = var * var / (va * va / ra.df + vb * vb / rb.df)  # Welch–Satterthwaite
                    se = math.sqrt(var)
                    p = pvalue(diff / se, "two-sided", df)
                else:
                    df, se, p = math.nan, 0.0, math.nan
                pairs.append((a, b, diff, se, df, *_interval(diff, se, level, df), p))
        adjusted = adjust_pvalues([p[-1] for p in pairs], "holm")
        for (a, b, diff, se, df, lo, hi, p), padj in zip(pairs, adjusted, strict=True):
            shown = padj < alpha
            decision = ("a > b" if diff > 0 else "a < b") if shown else "not shown"
            out.append(
                ScaleComparison(
                    quantity=quantity,
                    group_a=a,
                    group_b=b,
                    difference=float(diff),
                    standard_error=float(se),
                    df=float(df),
                    low=float(lo),
                    high=float(hi),
                    pvalue=float(p),
                    pvalue_adjusted=float(padj),
                    decision=decision,
                )
            )  # (P9)
    return tuple(out)
