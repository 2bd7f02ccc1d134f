"""``evaluate_scorer``: every criterion of Williamson, Xi & Breyer (2012) as a test, the
human-human ceiling beside the machine, PRMSE, and subgroups — in one result."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._items import paired
from qwkit._base._results import plain
from qwkit._base._validation import (
    as_1d,
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_progress,
    check_real,
    check_rng,
    check_same_length,
)
from qwkit._base._weights import WeightsLike
from qwkit._evaluation._degradation import PAIRS, degradation_result, verdict
from qwkit._evaluation._input import Scores, check_criterion, check_margin, prepare
from qwkit._evaluation._observed import (
    agreement_sums,
    equivalence_pvalue,
    pearson_sums,
    pooled_smd_sums,
    rounded,
    smd_sums,
)
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._prmse import prmse_result
from qwkit._evaluation._result import (
    NAN,
    Criterion,
    Estimate,
    EvaluationResult,
    GroupEvaluation,
    HumanAgreement,
    ModelEvaluation,
)
from qwkit._evaluation._sums import METHODS, Inference, ItemSums, infer

__all__ = ["evaluate_scorer"]

#: The largest scale whose confusion tables a result keeps (for heat maps).
_MAX_TABLE = 50

# ---------------------------------------------------------------------------- compute


@dataclass(frozen=True, slots=True)
class _Options:
    level: float
    method: str
    n_resamples: int
    gen: np.random.Generator
    tick: Callable[[], None]  # one statistic done (``progress``)


def _estimate(
    stat: ItemSums,
    opt: _Options,
    what: str,
    *,
    df: float = math.inf,
    level: float | None = None,
    **kinds,
) -> tuple[Estimate, Inference]:
    inf = infer(stat, opt.method, n_resamples=opt.n_resamples, rng=opt.gen, what=what, **kinds)
    opt.tick()
    low, high = inf.interval(opt.level if level is None else level, df=df)
    estimate = Estimate(
        statistic=inf.estimate,
        standard_error=inf.standard_error,
        low=low,
        high=high,
        n_items=stat.n_items,
    )
    return estimate, inf


def _pair_estimates(
    h: np.ndarray,
    m: np.ndarray,
    values: tuple[np.ndarray, np.ndarray],
    scores: Scores,
    opt: _Options,
    *,
    human_pair: bool,
):
    """Kappa, exact and adjacent agreement of the positions h (reference) and m; r and
    the SMD of their ``values``."""
    k = len(scores.scale)
    hv, mv = values
    kappa, kinf = _estimate(kappa_sums(m, h, scores.wmat), opt, "kappa", upper_bound=1.0)
    r, rinf = _estimate(
        pearson_sums(hv, mv), opt, "correlation", fisher=True, lower_bound=-1.0, upper_bound=1.0
    )
    smd_stat = pooled_smd_sums(hv, mv) if human_pair else smd_sums(hv, mv)
    smd, sinf = _estimate(smd_stat, opt, "SMD")
    mr = rounded(m, k)
    close = [
        _estimate(
            agreement_sums(h, mr, t),
            opt,
            "agreement",
            proportion=True,
            lower_bound=0.0,
            upper_bound=1.0,
        )[0]
        for t in (0, 1)
    ]
    table = None
    if k <= _MAX_TABLE:
        table = np.bincount(h.astype(np.intp) * k + mr.astype(np.intp), minlength=k * k)
        table = table.reshape(k, k)
    return kappa, kinf, r, rinf, smd, sinf, close[0], close[1], table


def _human_agreement(scores: Scores, opt: _Options) -> HumanAgreement:
    h = scores.human
    names = scores.human_names
    pairs = []
    for a in range(h.shape[1]):
        for b in range(a + 1, h.shape[1]):
            rows = ~np.isnan(h[:, a]) & ~np.isnan(h[:, b])
            est = NAN
            if np.count_nonzero(rows) >= 2:
                est = _estimate(
                    kappa_sums(h[rows, b], h[rows, a], scores.wmat), opt, "kappa", upper_bound=1.0
                )[0]
            pairs.append((names[a], names[b], est))
    rows = ~np.isnan(h[:, 0]) & ~np.isnan(h[:, 1])
    kappa = r = smd = exact = adjacent = NAN  # fewer than two items rated by both
    table = None
    if np.count_nonzero(rows) >= 2:
        hv = scores.human_values
        kappa, _, r, _, smd, _, exact, adjacent, table = _pair_estimates(
            h[rows, 0], h[rows, 1], (hv[rows, 0], hv[rows, 1]), scores, opt, human_pair=True
        )
    return HumanAgreement(
        raters=names[:2],
        n_items=int(rows.sum()),
        kappa=kappa,
        pearson_r=r,
        smd=smd,
        exact_agreement=exact,
        adjacent_agreement=adjacent,
        pairs=tuple(pairs),
        confusion=table,
    )


def _groups(ids, labels, h, m, values, scores: Scores, opt: _Options, bound: float):
    """Kappa (of the positions h, m) and SMD (of their ``values``) per subgroup:
    Bonferroni-adjusted intervals with Student's t on n_g − 1 degrees of freedom; the
    SMD's unit is the human sd over all items (eq. 15)."""
    n_groups = len(labels)
    level = 1.0 - (1.0 - opt.level) / n_groups
    hv, mv = values
    sd = float(np.std(hv, ddof=1))
    out = []
    for g, label in enumerate(labels):
        rows = ids == g
        n = int(np.count_nonzero(rows))
        if n < 2:
            out.append(
                GroupEvaluation(
                    group=label,
                    n_items=n,
                    kappa=NAN,
                    smd=NAN,
                    pvalue=math.nan,
                    verdict="inconclusive",
                )
            )
            continue
        hg, mg = h[rows], m[rows]
        df = n - 1.0
        with warnings.catch_warnings():  # an undefined kappa of a small group shows as nan
            warnings.simplefilter("ignore")
            kappa = _estimate(
                kappa_sums(mg, hg, scores.wmat), opt, "kappa", df=df, level=level, upper_bound=1.0
            )[0]
            stat = ItemSums(np.stack((np.ones(n), hv[rows], mv[rows])), _GroupSMD(sd))
            smd, inf = _estimate(stat, opt, "SMD", df=df, level=level)
        p = max(inf.pvalue(-bound, "greater", df=df), inf.pvalue(bound, "less", df=df))
        p = min(1.0, n_groups * p) if not math.isnan(p) else p
        out.append(
            GroupEvaluation(
                group=label,
                n_items=n,
                kappa=kappa,
                smd=smd,
                pvalue=p,
                verdict=verdict(smd.low, smd.high, bound, "within"),
            )
        )
    return tuple(out)


class _GroupSMD:
    """(mean m − mean h) / sd over a group's sums (n, Σh, Σm), sd fixed (eq. 15)."""

    __slots__ = ("sd",)

    def __init__(self, sd: float):
        self.sd = sd

    def __call__(self, s):
        return (s[..., 2] - s[..., 1]) / s[..., 0] / self.sd


def _test(
    model: str, name: str, est: Estimate, inf: Inference, threshold: float, relation: str
) -> Criterion:
    """One criterion from an estimate and what its interval was made of: the p-value of
    the one-sided test (">=") or of the two one-sided tests ("within") the interval
    inverts, and the verdict the interval reads."""
    if relation == "within":
        p = equivalence_pvalue(inf, threshold)
    else:
        p = inf.pvalue(threshold, "greater")
    return Criterion(
        model=model,
        name=name,
        estimate=est.statistic,
        low=est.low,
        high=est.high,
        threshold=threshold,
        relation=relation,
        pvalue=p,
        verdict=verdict(est.low, est.high, threshold, relation),
    )


def _criteria(name, kappa, kinf, r, rinf, smd, sinf, deg, groups, s) -> tuple:
    dlow, dhigh = deg.confidence_interval()
    rows = [
        _test(
            name,
            "QWK" if s["weights"] == "quadratic" else f"kappa ({s['weights']})",
            kappa,
            kinf,
            s["min_kappa"],
            ">=",
        ),
        _test(name, "Pearson r", r, rinf, s["min_correlation"], ">="),
        Criterion(
            model=name,
            name="degradation",
            estimate=deg.statistic,
            low=dlow,
            high=dhigh,
            threshold=-deg.margin,
            relation=">=",
            pvalue=deg.pvalue,
            verdict=deg.verdict,
        ),
        _test(name, "SMD", smd, sinf, s["max_smd"], "within"),
    ]
    if groups:
        known = [g for g in groups if not math.isnan(g.smd.statistic)]
        worst = max(known, key=lambda g: abs(g.smd.statistic)) if known else groups[0]
        found = {g.verdict for g in groups}
        overall = "fail" if "fail" in found else "pass" if found == {"pass"} else "inconclusive"
        ps = [g.pvalue for g in groups]
        p = math.nan if any(math.isnan(x) for x in ps) else max(ps)
        rows.append(
            Criterion(
                model=name,
                name="subgroup SMD",
                estimate=worst.smd.statistic,
                low=worst.smd.low,
                high=worst.smd.high,
                threshold=s["max_group_smd"],
                relation="within",
                pvalue=p,
                verdict=overall,
            )
        )
    return tuple(rows)


def _model(j: int, scores: Scores, ids, labels, opt: _Options, s: dict) -> ModelEvaluation:
    name = scores.machine_names[j]
    h, m = scores.human, scores.machine[:, j]
    rows = ~np.isnan(h[:, 0]) & ~np.isnan(m)
    if np.count_nonzero(rows) < 2:
        raise QwkitError(
            f"The first human column {scores.human_names[0]!r} and `machine` {name!r} share "
            f"{int(rows.sum())} item(s); the first column is the reference human and needs "
            "two or more items in common with every machine.",
            parameter="human",
        )
    values = (scores.human_values[rows, 0], scores.machine_values[rows, j])
    kappa, kinf, r, rinf, smd, sinf, exact, adjacent, table = _pair_estimates(
        h[rows, 0], m[rows], values, scores, opt, human_pair=False
    )
    per_rater = [(scores.human_names[0], kappa)]
    for c, hname in enumerate(scores.human_names[1:], start=1):
        both = ~np.isnan(h[:, c]) & ~np.isnan(m)
        est = NAN
        if np.count_nonzero(both) >= 2:
            est = _estimate(
                kappa_sums(m[both], h[both, c], scores.wmat), opt, "kappa", upper_bound=1.0
            )[0]
        per_rater.append((hname, est))
    deg = degradation_result(
        scores, j, s["pairs"], s["margin"], opt.level, opt.method, opt.n_resamples, opt.gen
    )
    opt.tick()
    prm = prmse_result(scores, j, opt.level, opt.method, opt.n_resamples, opt.gen)
    opt.tick()
    groups = ()
    if ids is not None:
        groups = _groups(
            ids[rows], labels, h[rows, 0], m[rows], values, scores, opt, s["max_group_smd"]
        )
    return ModelEvaluation(
        name=name,
        n_items=int(rows.sum()),
        n_omitted=scores.n_omitted[j],
        real_valued=scores.real[j],
        kappa=kappa,
        pearson_r=r,
        smd=smd,
        exact_agreement=exact,
        adjacent_agreement=adjacent,
        per_rater=tuple(per_rater),
        degradation=deg,
        prmse=prm,
        groups=groups,
        criteria=_criteria(name, kappa, kinf, r, rinf, smd, sinf, deg, groups, s),
        confusion=table,
    )


def _steps(scores: Scores, ids, n_groups: int) -> int:
    """How many statistics :func:`evaluate_scorer` infers (the ``total`` of ``progress``),
    by the conditions under which each one is computed."""
    present = ~np.isnan(scores.human)
    r = present.shape[1]

    def shared(a, b) -> bool:
        return np.count_nonzero(a & b) >= 2

    steps = sum(shared(present[:, a], present[:, b]) for a in range(r) for b in range(a + 1, r))
    steps += 5 * shared(present[:, 0], present[:, 1])  # the ceiling's five statistics
    for j in range(scores.machine.shape[1]):
        scored = ~np.isnan(scores.machine[:, j])
        steps += 5 + 2  # five with the reference human, the degradation and PRMSE
        steps += sum(shared(present[:, c], scored) for c in range(1, r))
        if ids is not None:
            sizes = np.bincount(ids[present[:, 0] & scored], minlength=n_groups)
            steps += 2 * int(np.count_nonzero(sizes >= 2))
    return int(steps)


def _ticker(progress, total: int) -> Callable[[], None]:
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(min(done, total), total)

    return tick


def _group_ids(groups, n: int):
    arr = as_1d(groups, "groups")
    check_same_length(np.empty(n), arr, ("human", "groups"))
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        i = int(np.flatnonzero(np.isnan(arr))[0])
        raise QwkitError(
            f"`groups` has no group for the item in row {i} (NaN).", parameter="groups", row=i
        )
    labels, ids = np.unique(arr, return_inverse=True)
    return ids.ravel(), tuple(plain(labels))


def evaluate_scorer(
    human: ArrayLike,
    machine: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    margin: float = 0.10,
    min_kappa: float = 0.70,
    min_correlation: float = 0.70,
    max_smd: float = 0.15,
    max_group_smd: float = 0.10,
    confidence_level: float = 0.95,
    pairs: Literal["first", "all"] = "first",
    method: Literal["asymptotic", "jackknife", "bootstrap"] = "asymptotic",
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    nan_policy: Literal["raise", "omit"] = "raise",
    progress: Callable[[int, int], object] | None = None,
) -> EvaluationResult:
    """May this scorer stand in for a human rater? Williamson et al.'s criteria as tests.

    For each machine column: quadratic weighted kappa with the first human (≥ 0.70),
    Pearson's r (≥ 0.70), the degradation from human-human kappa on the same items
    (≥ −0.10, :func:`degradation_test`) and the standardized mean difference
    (|SMD| ≤ 0.15, an equivalence test), each reported with its estimate, confidence
    interval, threshold, p-value and a verdict — "pass" when the whole interval lies on
    the passing side, "fail" when it lies wholly on the other, "inconclusive" otherwise.
    Beside them: the human-human ceiling, exact and adjacent agreement, kappa with every
    human, PRMSE, and per-subgroup kappa and SMD with Bonferroni-adjusted intervals
    (subgroup criterion |SMD| ≤ 0.10).

    Parameters
    ----------
    human : array-like of shape (n_items, n_raters)
        Human ratings, one column per rater or rating slot (NaN or None = not rated);
        the first column is the reference human of the human-machine statistics
        (RSMTool's ``sc1``). At least some items must be rated by two humans.
    machine : array-like of shape (n_items,) or (n_items, n_models)
        Machine scores (ratings on the human scale, or real-valued scores), one column
        per model to evaluate several at once; a data frame or a dict of name → scores
        names them (as a data frame or a dict of columns names the human raters).
    groups : array-like of shape (n_items,), default=None
        A subgroup label per item (e.g. a demographic group or a prompt).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Weights of every kappa. Real-valued machine scores need quadratic weights.
    labels : array-like of shape (K,), default=None
        The ordered scale.
    margin : float, default=0.10
        Non-inferiority margin of the degradation test, strictly between 0 and 1.
    min_kappa, min_correlation, max_smd, max_group_smd : float
        The thresholds (0.70, 0.70, 0.15 and 0.10: Williamson, Xi & Breyer 2012);
        ``min_kappa`` and ``min_correlation`` in [0, 1), the others positive.
    confidence_level : float, default=0.95
        Level of every interval; a verdict's one-sided test has level
        (1 − confidence_level)/2.
    pairs : {"first", "all"}, default="first"
        Human pairs of the degradation test (see :func:`degradation_test`).
    method : {"asymptotic", "jackknife", "bootstrap"}, default="asymptotic"
        Standard errors and intervals of every statistic: the delta method on each
        item's influence, the exact jackknife, or the BCa bootstrap. Proportions
        (exact and adjacent agreement) get Wilson's interval under "asymptotic";
        correlations their Wald interval on Fisher's z scale.
    n_resamples : int, default=2000
        Bootstrap resamples (``method="bootstrap"``).
    rng : None, int or numpy.random.Generator, default=None
        Randomness of the bootstrap.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing machine score is an error, or (``"omit"``) each model is evaluated on
        the items it scored (``ModelEvaluation.n_omitted`` says how many it left out).
    progress : callable, default=None
        ``progress(done, total)`` is called as each statistic's inference is done (e.g.
        to drive a progress bar: the bootstrap of a large sample takes a while);
        ``total`` counts every statistic of the evaluation.

    Returns
    -------
    EvaluationResult
        ``criteria`` (the decision table), ``verdict``, ``models``, ``human_human``,
        ``.summary()``, ``.to_dict()``, ``.plot()``; with one machine also
        ``degradation``, ``prmse``, ``kappa``, ``smd``, ``groups`` ... directly.

    Warns
    -----
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the human ratings
        (and integer machine ratings) holds values that look like missing-value codes
        (99 among ratings 1..5, a lone −1): drop those items, or pass ``labels``
        (docs/kappa.md, "Missing-value codes").

    Raises
    ------
    QwkitError
        No item rated by two humans (the message says how many are double-scored), and
        every input error of :func:`degradation_test`.

    Notes
    -----
    Real-valued machine scores enter kappa, r, SMD and PRMSE as they are; exact and
    adjacent agreement and the confusion table round them to the nearest category
    (halves up) within the scale.

    References
    ----------
    .. [1] D. M. Williamson, X. Xi and F. J. Breyer, "A framework for evaluation and use
       of automated scoring", Educational Measurement: Issues and Practice 31(1):2-13,
       2012.

    Examples
    --------
    >>> import numpy as np
    >>> import qwkit
    >>> rng = np.random.default_rng(20261121)
    >>> truth = rng.normal(3, 1, size=400)
    >>> human = np.clip(np.rint(truth[:, None] + rng.normal(0, 0.6, (400, 2))), 1, 5)
    >>> human[100:, 1] = np.nan                     # a second rating on 100 items
    >>> machine = truth + rng.normal(0, 0.5, 400)   # real-valued scores
    >>> res = qwkit.evaluate_scorer(human, machine)
    >>> for c in res.criteria:
    ...     print(f"{c.name:<12} {c.estimate:7.3f} [{c.low:6.3f}, {c.high:6.3f}] {c.verdict}")
    QWK            0.747 [ 0.707,  0.787] pass
    Pearson r      0.748 [ 0.706,  0.785] pass
    degradation   -0.013 [-0.080,  0.053] pass
    SMD           -0.051 [-0.121,  0.019] pass
    >>> res.verdict, res.degradation.n_items
    ('pass', 100)
    """
    margin = check_margin(margin)
    thresholds = {
        "min_kappa": check_criterion(min_kappa, "min_kappa"),
        "min_correlation": check_criterion(min_correlation, "min_correlation"),
        "max_smd": check_real(max_smd, "max_smd", positive=True),
        "max_group_smd": check_real(max_group_smd, "max_group_smd", positive=True),
    }
    level = check_confidence_level(confidence_level)
    pairs = check_choice(pairs, "pairs", PAIRS)
    method = check_choice(method, "method", METHODS)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    progress = check_progress(progress)
    human, machine, groups = paired((human, machine, groups), ("human", "machine", "groups"))
    scores = prepare(human, machine, weights=weights, labels=labels, nan_policy=nan_policy)
    double = int(np.count_nonzero((~np.isnan(scores.human)).sum(axis=1) >= 2))
    if double == 0:
        raise QwkitError(
            f"`human` has no item rated by two or more humans (0 of {scores.n_items} items are "
            "double-scored); the machine is judged against human-human agreement, which needs "
            "double-scored items.",
            parameter="human",
        )
    ids, group_labels = (None, ()) if groups is None else _group_ids(groups, scores.n_items)
    total = 0 if progress is None else _steps(scores, ids, len(group_labels))
    opt = _Options(level, method, n_resamples, gen, _ticker(progress, total))
    settings = {
        "margin": margin,
        **thresholds,
        "confidence_level": level,
        "method": method,
        "pairs": pairs,
        "weights": scores.weights,
        "moments_on": scores.moments_on,
        "groups_correction": "bonferroni",
    }
    models = tuple(
        _model(j, scores, ids, group_labels, opt, settings) for j in range(scores.machine.shape[1])
    )
    human_human = _human_agreement(scores, opt)
    if progress is not None:
        progress(total, total)
    return EvaluationResult(
        models=models,
        human_human=human_human,
        human_names=scores.human_names,
        labels=scores.scale,
        weights=scores.weights,
        settings=settings,
        n_items=int(np.count_nonzero((~np.isnan(scores.human)).any(axis=1))),
        n_double_scored=double,
    )
