"""``evaluate_scorer``: every criterion of Williamson, Xi & Breyer (2012) as a test, the
human-human ceiling beside the machine, the statistics an RSMTool user expects, PRMSE,
subgroups and fairness — in one result.

validate (``_design.prepare_inputs``) → compute (one :class:`ModelEvaluation` per machine
column, the ceiling, the comparisons, the notes) → wrap (:class:`EvaluationResult`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._ratings import RatingsLike
from qwkit._base._registry import CRITERIA, DEFAULT_CRITERIA
from qwkit._base._validation import (
    Columns,
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_progress,
    check_real,
    check_rng,
)
from qwkit._base._weights import WeightsLike, resolve
from qwkit._evaluation._criteria import criterion_test
from qwkit._evaluation._degradation import PAIRS, degradation_result, degradation_sums
from qwkit._evaluation._design import Inputs, prepare_inputs
from qwkit._evaluation._estimates import METHODS, MIN_UNITS
from qwkit._evaluation._fairness import GroupEvaluation, fairness, group_statistics, holm
from qwkit._evaluation._input import Scores, check_criterion, check_margin, check_trim
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._prmse import prmse_result
from qwkit._evaluation._records import (
    NAN,
    Comparison,
    DegradationEstimate,
    Diagnostic,
    Estimate,
    ScoreDistribution,
)
from qwkit._evaluation._result import EvaluationResult, HumanAgreement, ModelEvaluation
from qwkit._evaluation._statistics import (
    SMD_DEFINITIONS,
    Context,
    agreement_sums,
    categories_of,
    descriptives,
    kappa_of,
    pearson_sums,
    pooled_smd_sums,
    r2_sums,
    rmse_sums,
    rounded,
    smd_sums,
)
from qwkit._evaluation._sums import combine, on_rows

__all__ = ["evaluate_scorer"]

#: The largest scale whose confusion tables a result keeps (for heat maps).
_MAX_TABLE = 50
#: Human-human agreement this close means ratings that were not independent.
_IMPLAUSIBLE_EXACT, _IMPLAUSIBLE_KAPPA = 0.90, 0.95


# ---------------------------------------------------------------------------- one pair


class _Pair:
    """A reference and a candidate on the items ``rows``: positions (kappa's weights),
    values (moments) and the candidate's positions rounded to the scale (agreement)."""

    def __init__(self, scores: Scores, rows, ref_pos, cand_pos, ref_val, cand_val, real: bool):
        k = len(scores.scale)
        self.rows = rows
        self.hp, self.mp, self.hv, self.mv = ref_pos, cand_pos, ref_val, cand_val
        self.mr = rounded(cand_pos, scores.origin) if real else cand_pos
        self.k = k
        self.codes, n_codes = categories_of(self.mr, k)
        self.unweighted = resolve("identity", n_codes) if k <= _MAX_TABLE * 200 else None


def _pair_estimates(pair: _Pair, scores: Scores, ctx: Context, *, human_pair: bool):
    """Every statistic of a pair: {name: (Estimate, Inference)}."""
    rows, hp, mp, hv, mv, mr = pair.rows, pair.hp, pair.mp, pair.hv, pair.mv, pair.mr
    out = {}
    out["kappa"] = kappa_of(ctx, mp, hp, scores.wmat, rows)
    if pair.unweighted is not None:
        out["unweighted_kappa"] = kappa_of(
            ctx, pair.codes, hp, pair.unweighted, rows, "unweighted kappa"
        )
    else:
        out["unweighted_kappa"] = (NAN, None)
    out["pearson_r"] = ctx.estimate(
        pearson_sums(hv, mv), rows, "correlation", fisher=True, lower_bound=-1.0, upper_bound=1.0
    )
    out["smd_pooled"] = ctx.estimate(pooled_smd_sums(hv, mv), rows, "SMD")
    if not human_pair:
        out["smd_unpooled"] = ctx.estimate(smd_sums(hv, mv), rows, "SMD")
    for name, tolerance in (("exact_agreement", 0), ("adjacent_agreement", 1)):
        out[name] = ctx.estimate(
            agreement_sums(hp, mr, tolerance),
            rows,
            "agreement",
            proportion=True,
            lower_bound=0.0,
            upper_bound=1.0,
        )
    if not human_pair:
        out["rmse"] = ctx.estimate(rmse_sums(hv, mv), rows, "RMSE", lower_bound=0.0)
        out["r2"] = ctx.estimate(r2_sums(hv, mv), rows, "R²", upper_bound=1.0)
    return out


def _confusion(pair: _Pair):
    if pair.k > _MAX_TABLE:
        return None
    k = pair.k
    mr = np.clip(pair.mr, 0, k - 1).astype(np.intp)  # untrimmed: at the scale's ends
    table = np.bincount(pair.hp.astype(np.intp) * k + mr, minlength=k * k)
    return table.reshape(k, k)


def _distribution(scores: Scores, pair: _Pair) -> ScoreDistribution | None:
    k = pair.k
    if k > _MAX_TABLE:
        return None
    return ScoreDistribution(
        labels=np.asarray(scores.scale),
        human=np.bincount(pair.hp.astype(np.intp), minlength=k),
        machine=np.bincount(np.clip(pair.mr, 0, k - 1).astype(np.intp), minlength=k),
    )


# ---------------------------------------------------------------------------- degradations


def _degradations(scores: Scores, j: int, pairs: str, smd: str, ctx: Context):
    """The degradation of r, unweighted kappa, exact and adjacent agreement and the SMD,
    human-machine minus human-human on the same items (as RSMTool's degradation table,
    but paired: the same items on both sides)."""
    k = len(scores.scale)
    real = scores.real[j]

    def rnd(x, human_pair):
        return x if (human_pair or not real) else rounded(x, scores.origin)

    def unweighted(c, r, human_pair):
        codes, n_codes = categories_of(rnd(c, human_pair), k)
        return kappa_sums(codes, r, resolve("identity", n_codes))

    def agree(tol):
        def make(c, r, human_pair):
            return agreement_sums(r, rnd(c, human_pair), tol)

        return make

    def smd_of(c, r, human_pair):
        if human_pair or smd == "pooled":
            return pooled_smd_sums(r, c)
        return smd_sums(r, c)

    specs = [
        ("pearson_r", lambda c, r, _: pearson_sums(r, c), True, True),
        ("unweighted_kappa", unweighted, False, True),
        ("exact_agreement", agree(0), False, False),
        ("adjacent_agreement", agree(1), False, False),
        ("smd", smd_of, True, False),
    ]
    out = []
    for name, make, values, fisher in specs:
        if name == "unweighted_kappa" and k > _MAX_TABLE * 200:
            continue
        deg = degradation_sums(scores, j, pairs, make, values=values)
        est, _ = ctx.difference(deg.human_machine, deg.human_human, deg.rows, name, fisher=fisher)
        out.append(
            DegradationEstimate(
                statistic=name,
                human_machine=deg.human_machine.value(),
                human_human=deg.human_human.value(),
                estimate=est,
            )
        )
    return tuple(out)


def _disattenuated(scores: Scores, j: int, rows: np.ndarray, ctx: Context) -> Estimate:
    """r(h₁, m) / √r(h₁, h₂): the correlation with the true score the humans measure,
    RSMTool's disattenuated correlation (human-human r on the items both humans and the
    machine scored; eq. R3)."""
    h = scores.human_values
    if h.shape[1] < 2:
        return NAN
    hm = pearson_sums(h[rows, 0], scores.machine_values[rows, j])
    both = np.flatnonzero(~np.isnan(h[rows, 1]))
    if both.size < 3:
        return NAN
    hh = on_rows(pearson_sums(h[rows[both], 0], h[rows[both], 1]), both, rows.size)
    stat = combine([hm, hh], lambda a, b: a / np.sqrt(b))
    with warnings.catch_warnings():  # a negative human-human r: undefined (nan), as RSMTool
        warnings.simplefilter("ignore")
        return ctx.estimate(stat, rows, "disattenuated correlation")[0]


def _side_kappa(ctx: Context, candidate, reference, wmat, rows) -> Estimate:
    """The kappa of one more pair of raters (every human with the machine, every pair of
    humans): descriptive, tested by no criterion — a pair with few common items shows an
    undefined interval as nan, without a warning each."""
    if rows.size < 2:
        return NAN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kappa_of(ctx, candidate, reference, wmat, rows)[0]


# ---------------------------------------------------------------------------- one model


def _model(j: int, inputs: Inputs, ctx: Context, s: dict, tick) -> ModelEvaluation:
    scores = inputs.scores
    name = scores.machine_names[j]
    h, m = scores.human, scores.machine[:, j]
    rows = np.flatnonzero(~np.isnan(h[:, 0]) & ~np.isnan(m))
    if rows.size < 2:
        raise QwkitError(
            f"The first human column {scores.human_names[0]!r} and `machine` {name!r} share "
            f"{rows.size} item(s); the first column is the reference human and needs "
            "two or more items in common with every machine.",
            parameter="human",
        )
    pair = _Pair(
        scores,
        rows,
        h[rows, 0],
        m[rows],
        scores.human_values[rows, 0],
        scores.machine_values[rows, j],
        scores.real[j],
    )
    est = _pair_estimates(pair, scores, ctx, human_pair=False)
    tick()
    smd_name = "smd_pooled" if s["smd"] == "pooled" else "smd_unpooled"
    per_rater = [(scores.human_names[0], est["kappa"][0])]
    for c, hname in enumerate(scores.human_names[1:], start=1):
        both = np.flatnonzero(~np.isnan(h[:, c]) & ~np.isnan(m))
        per_rater.append((hname, _side_kappa(ctx, m[both], h[both, c], scores.wmat, both)))
    tick()
    deg = degradation_result(scores, j, s["pairs"], s["margin"], ctx)
    tick()
    degradations = _degradations(scores, j, s["pairs"], s["smd"], ctx)
    tick()
    prm = prmse_result(scores, j, ctx)
    tick()
    groups: tuple[GroupEvaluation, ...] = ()
    fair = None
    design = inputs.design
    if design.groups is not None:
        groups = group_statistics(
            scores,
            j,
            rows,
            design.groups,
            ctx,
            smd=s["smd"],
            max_group_smd=s["max_group_smd"],
            max_dsm=s["max_dsm"],
        )
        fair = fairness(scores, j, rows, design.groups, ctx.level)
    tick()
    inferences = {
        "kappa": est["kappa"],
        "pearson_r": est["pearson_r"],
        "smd": est[smd_name],
        "degradation": (_as_estimate(deg), deg._inference),
    }
    criteria = _criteria(name, inferences, groups, s)
    return ModelEvaluation(
        name=name,
        n_items=int(rows.size),
        n_omitted=scores.n_omitted[j],
        real_valued=scores.real[j],
        n_trimmed=inputs.n_trimmed[j],
        n_outside=inputs.n_outside[j],
        kappa=est["kappa"][0],
        unweighted_kappa=est["unweighted_kappa"][0],
        pearson_r=est["pearson_r"][0],
        smd=est[smd_name][0],
        smd_pooled=est["smd_pooled"][0],
        smd_unpooled=est["smd_unpooled"][0],
        exact_agreement=est["exact_agreement"][0],
        adjacent_agreement=est["adjacent_agreement"][0],
        rmse=est["rmse"][0],
        r2=est["r2"][0],
        disattenuated_r=_disattenuated(scores, j, rows, ctx),
        human=descriptives(pair.hv, scores.origin),
        machine=descriptives(pair.mv, scores.origin),
        per_rater=tuple(per_rater),
        degradation=deg,
        degradations=degradations,
        prmse=prm,
        groups=groups,
        fairness=fair,
        criteria=criteria,
        distribution=_distribution(scores, pair),
        confusion=_confusion(pair),
    )


def _as_estimate(deg) -> Estimate:
    low, high = deg.confidence_interval()
    return Estimate(
        statistic=deg.statistic,
        standard_error=deg.standard_error,
        low=low,
        high=high,
        n_items=deg.n_items,
        df=deg.df,
        n_clusters=deg.n_clusters,
    )


def _criteria(name: str, inferences: dict, groups: tuple, s: dict) -> tuple:
    """The chosen criteria as tests: one row each; a group criterion is one row for
    all the groups (its worst group's estimate, its largest Holm-adjusted p-value;
    'pass' only if every group passes)."""
    rows = []
    for key in s["criteria"]:
        record = CRITERIA[key]
        threshold = s[record.parameter]
        if key == "degradation":
            threshold = -threshold
        if not record.per_group:
            est, inf = inferences[record.statistic]
            rows.append(criterion_test(record, name, est, inf, threshold))
            continue
        if not groups:
            continue
        rows.append(_group_criterion(record, name, groups, threshold))
    return tuple(rows)


def _group_criterion(record, name: str, groups: tuple, threshold: float):
    from qwkit._evaluation._records import Criterion

    field = record.statistic
    verdicts = [getattr(g, f"verdict_{field}") for g in groups]
    ests = [getattr(g, field) for g in groups]
    known = [e for e in ests if not math.isnan(e.statistic)]
    worst = max(known, key=lambda e: abs(e.statistic)) if known else ests[0]
    found = set(verdicts)
    verdict = "fail" if "fail" in found else "pass" if found == {"pass"} else "inconclusive"
    ps = [getattr(g, f"pvalue_{field}") for g in groups]
    p = math.nan if any(math.isnan(x) for x in ps) else max(ps)
    reasons = [f"group {g.group!r}: {g.reason}" for g in groups if g.reason]
    return Criterion(
        model=name,
        criterion=record.name,
        name=record.display,
        estimate=worst.statistic,
        low=worst.low,
        high=worst.high,
        threshold=threshold,
        relation=record.relation,
        pvalue=p,
        verdict=verdict,
        reason="; ".join(reasons),
    )


# ---------------------------------------------------------------------------- the ceiling


def _human_agreement(scores: Scores, ctx: Context) -> HumanAgreement:
    h = scores.human
    names = scores.human_names
    pairs = []
    for a in range(h.shape[1]):
        for b in range(a + 1, h.shape[1]):
            both = np.flatnonzero(~np.isnan(h[:, a]) & ~np.isnan(h[:, b]))
            found = _side_kappa(ctx, h[both, b], h[both, a], scores.wmat, both)
            pairs.append((names[a], names[b], found))
    rows = np.flatnonzero(~np.isnan(h[:, 0]) & ~np.isnan(h[:, 1]))
    nan = dict.fromkeys(
        (
            "kappa",
            "unweighted_kappa",
            "pearson_r",
            "smd_pooled",
            "exact_agreement",
            "adjacent_agreement",
        ),
        (NAN, None),
    )
    est, table, first, second = nan, None, None, None
    if rows.size >= 2:
        hv = scores.human_values
        pair = _Pair(scores, rows, h[rows, 0], h[rows, 1], hv[rows, 0], hv[rows, 1], False)
        est = _pair_estimates(pair, scores, ctx, human_pair=True)
        table = _confusion(pair)
        first, second = descriptives(pair.hv, scores.origin), descriptives(pair.mv, scores.origin)
    return HumanAgreement(
        raters=names[:2],
        n_items=int(rows.size),
        kappa=est["kappa"][0],
        unweighted_kappa=est["unweighted_kappa"][0],
        pearson_r=est["pearson_r"][0],
        smd=est["smd_pooled"][0],
        exact_agreement=est["exact_agreement"][0],
        adjacent_agreement=est["adjacent_agreement"][0],
        first=first,
        second=second,
        pairs=tuple(pairs),
        confusion=table,
    )


# ---------------------------------------------------------------------------- machines


def _comparisons(scores: Scores, ctx: Context) -> tuple:
    """Each pair of machines: κ(h₁, a) − κ(h₁, b) on the items both and the reference
    scored, paired, Holm-adjusted over the pairs."""
    n_models = scores.machine.shape[1]
    if n_models < 2:
        return ()
    h = scores.human[:, 0]
    found = []
    for a in range(n_models):
        for b in range(a + 1, n_models):
            ma, mb = scores.machine[:, a], scores.machine[:, b]
            rows = np.flatnonzero(~np.isnan(h) & ~np.isnan(ma) & ~np.isnan(mb))
            if rows.size < 2:
                continue
            ka = kappa_sums(ma[rows], h[rows], scores.wmat)
            kb = kappa_sums(mb[rows], h[rows], scores.wmat)
            est, inf = ctx.difference(ka, kb, rows, "difference of kappas", fisher=True)
            p = min(1.0, 2.0 * min(inf.pvalue(0.0, "greater"), inf.pvalue(0.0, "less")))
            found.append((a, b, ka.value(), kb.value(), est, p))
    adjusted = holm([f[5] for f in found])
    names = scores.machine_names
    return tuple(
        Comparison(
            a=names[a],
            b=names[b],
            kappa_a=ka,
            kappa_b=kb,
            estimate=est,
            pvalue=p,
            pvalue_adjusted=q,
        )
        for (a, b, ka, kb, est, p), q in zip(found, adjusted, strict=True)
    )


# ---------------------------------------------------------------------------- notes


def _diagnostics(res_models, human: HumanAgreement, inputs: Inputs, s: dict) -> tuple:
    """What a reader of the verdict must know (issue: "diagnose the human reference")."""
    notes = []
    kappa = human.kappa.statistic
    if not math.isnan(kappa) and kappa < s["min_kappa"]:
        notes.append(
            Diagnostic(
                code="low_human_agreement",
                message=f"The humans agree with each other at kappa {kappa:.3f}, below the kappa "
                f"criterion {s['min_kappa']:g}: a machine that matches them is matching an "
                "unreliable reference, and passing the degradation test against it means "
                "little. Improve the human ratings (rubric, training, adjudication) first.",
            )
        )
    exact = human.exact_agreement.statistic
    if (
        not math.isnan(kappa)
        and (exact >= _IMPLAUSIBLE_EXACT or kappa >= _IMPLAUSIBLE_KAPPA)
        and human.n_items >= MIN_UNITS
    ):
        notes.append(
            Diagnostic(
                code="implausible_human_agreement",
                message=f"The humans agree implausibly well for independent raters "
                f"({100 * exact:.0f}% identical ratings, kappa {kappa:.3f}): were the second "
                "ratings adjudicated, discussed or copied? The degradation test then holds the "
                "machine to a ceiling no independent rater reaches.",
            )
        )
    if 0 < human.n_items < MIN_UNITS:
        notes.append(
            Diagnostic(
                code="few_units",
                message=f"Only {human.n_items} items are rated by two humans: the degradation test "
                f"holds its level from {MIN_UNITS}, and its verdict is inconclusive below.",
            )
        )
    for m in res_models:
        if m.n_trimmed:
            notes.append(
                Diagnostic(
                    code="trimmed",
                    message=f"{m.n_trimmed} scores of {m.name!r} lay outside the scale and were "
                    f"trimmed to within {inputs.tolerance:g} of its ends (RSMTool's trimming; "
                    "trim=False keeps them).",
                )
            )
        if m.n_outside:
            notes.append(
                Diagnostic(
                    code="outside_scale",
                    message=f"{m.n_outside} scores of {m.name!r} lie more than "
                    f"{inputs.tolerance:g} outside the scale and were used as they are "
                    "(trim=False).",
                )
            )
    return tuple(notes)


# ---------------------------------------------------------------------------- steps


#: The stages of one machine's evaluation that ``progress`` counts: its statistics with
#: the reference human, with every human, the degradation test, the degradation of the
#: other statistics, PRMSE, the subgroups and fairness (one tick even without groups).
_STAGES = 6


def _ticker(progress, total: int) -> Callable[[], None]:
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    return tick


# ---------------------------------------------------------------------------- public


def evaluate_scorer(
    human: RatingsLike,
    machine: Columns,
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
) -> EvaluationResult:
    """May this scorer stand in for a human rater? Williamson et al.'s criteria as tests.

    For each machine column: quadratic weighted kappa with the first human (≥ 0.70),
    Pearson's r (≥ 0.70), the degradation from human-human kappa on the same items
    (≥ −0.10, :func:`degradation_test`), the standardized mean difference (|SMD| ≤ 0.15,
    an equivalence test on the pooled SD) and, with ``groups``, the SMD within every
    group (|SMD| ≤ 0.10) — each reported with its estimate, confidence interval,
    threshold, p-value and a verdict: "pass" when the whole interval lies on the passing
    side, "fail" when it lies wholly on the other, "inconclusive" otherwise, and
    "inconclusive" whatever the interval when fewer than 20 units (double-scored items
    for the degradation, items or clusters otherwise) leave a test unable to hold its
    level. Beside them: the human-human ceiling; unweighted kappa, RMSE, R², the
    disattenuated correlation, exact and adjacent agreement, the score distributions;
    the degradation of r, unweighted kappa, agreement and the SMD; kappa with every
    human; PRMSE; per subgroup, kappa, the humans' own kappa, the degradation, the SMD
    within the group and RSMTool's DSM, and Loukina, Madnani & Zechner's (2019) fairness
    analyses; with several machines, each pair compared; and notes on the human
    reference.

    Parameters
    ----------
    human : array-like of shape (n_items, n_raters)
        Human ratings, one column per rater or rating slot (NaN or None = not rated);
        the first column is the reference human of the human-machine statistics
        (RSMTool's ``sc1``). At least some items must be rated by two humans. A data
        frame, a mapping of columns or a :class:`RatingsTable` (its rating slots).
    machine : array-like of shape (n_items,) or (n_items, n_models)
        Machine scores (ratings on the human scale, or real-valued scores), one column
        per model to evaluate several at once; a data frame or a dict of name → scores
        names them (as a data frame or a dict of columns names the human raters).
    item : array-like of shape (n_items,) or str, default=None
        The items' ids (or the name of a column of ``human``, which also pairs a
        ``machine`` data frame that has it). An id on two rows is refused, naming the
        rows: one row per item (several traits per response are
        :func:`evaluate_traits`'s). Without it, a pandas index or a RatingsTable's
        items name the items.
    cluster : array-like of shape (n_items,) or str, default=None
        The cluster of each item — the prompt, task or test taker its response is
        nested in (or a column of ``human``): every standard error is then
        cluster-robust, the clusters its sampling units.
    groups : array-like of shape (n_items,) or str, default=None
        A subgroup per item (e.g. a demographic group or a prompt; or a column of
        ``human``): the per-group statistics and the fairness analyses.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Weights of every kappa but the unweighted one. Real-valued machine scores need
        quadratic weights.
    labels : array-like of shape (K,), default=None
        The ordered scale.
    criteria : str or tuple of str, default=None
        The criteria of the verdict, among "kappa", "pearson_r", "degradation", "smd",
        "group_smd" and "dsm"; None: all but "dsm" (the group criteria only with
        ``groups``).
    margin : float, default=0.10
        Non-inferiority margin of the degradation test, strictly between 0 and 1.
    min_kappa, min_correlation, max_smd, max_group_smd, max_dsm : float
        The thresholds (0.70, 0.70, 0.15, 0.10: Williamson, Xi & Breyer 2012; DSM 0.10:
        RSMTool's); ``min_kappa`` and ``min_correlation`` in [0, 1), the others
        positive.
    smd : {"pooled", "unpooled"}, default="pooled"
        The SD of the SMD criteria: pooled over human and machine (Williamson et al.'s,
        on which their bounds were set; within a group, the population's pooled SD) or
        the human's alone (RSMTool's default; within a group, RSMTool's "johnson").
        Both SMDs are reported.
    trim : bool or float, default=True
        Clip real-valued machine scores to [lowest − 0.4998, highest + 0.4998] of the
        scale, as RSMTool does (how many moved is reported); a number ≥ 0 is the
        tolerance instead of 0.4998 (RSMTool's ``trim_tolerance``); False keeps them
        (how many lie outside is reported).
    confidence_level : float, default=0.95
        Level of every interval; a verdict's one-sided test has level
        (1 − confidence_level)/2.
    pairs : {"first", "all"}, default="first"
        Human pairs of the degradation test (see :func:`degradation_test`).
    method : {"jackknife", "asymptotic", "bootstrap"}, default="jackknife"
        Intervals of every statistic: the exact delete-one-unit jackknife with Student's
        t on its effective df, on Fisher's z for kappas and correlations (the default:
        it holds its level from 20 units, docs/evaluation.md); the delta method with
        normal quantiles; or the BCa bootstrap. Proportions (exact and adjacent
        agreement) get Wilson's interval on the method's effective number of units.
    n_resamples : int, default=2000
        Bootstrap resamples (``method="bootstrap"``).
    rng : None, int or numpy.random.Generator, default=None
        Randomness of the bootstrap.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing machine score is an error, or (``"omit"``) each model is evaluated on
        the items it scored (``ModelEvaluation.n_omitted`` says how many it left out).
    progress : callable, default=None
        ``progress(done, total)`` is called as each stage is done (e.g. to drive a
        progress bar): six per machine (its statistics with the reference human, with
        every human, the degradation test, the other degradations, PRMSE, subgroups
        and fairness), the human-human ceiling and the comparisons of machines.

    Returns
    -------
    EvaluationResult
        ``criteria`` (the decision table), ``verdict``, ``models``, ``human_human``,
        ``comparisons``, ``diagnostics``, ``.tables()``, ``.summary()``,
        ``.to_dict()``, ``.plot()``; with one machine also ``degradation``, ``prmse``,
        ``kappa``, ``smd``, ``groups`` ... directly.

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
        No item rated by two humans (the message says how many are double-scored), an
        item id on two rows, a cluster column with one cluster, and every input error
        of :func:`degradation_test`.

    References
    ----------
    .. [1] D. M. Williamson, X. Xi and F. J. Breyer, "A framework for evaluation and use
       of automated scoring", Educational Measurement: Issues and Practice 31(1):2-13,
       2012.
    .. [2] A. Loukina, N. Madnani and K. Zechner, "The many dimensions of algorithmic
       fairness in educational applications", Proceedings of the Fourteenth Workshop on
       Innovative Use of NLP for Building Educational Applications, 2019.

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
    QWK            0.749 [ 0.704,  0.788] pass
    Pearson r      0.750 [ 0.706,  0.789] pass
    degradation   -0.009 [-0.091,  0.060] pass
    SMD           -0.052 [-0.121,  0.018] pass
    >>> res.verdict, res.degradation.n_items, res["machine"].n_trimmed
    ('pass', 100, 15)
    """
    settings: dict[str, Any] = {
        "margin": check_margin(margin),
        "min_kappa": check_criterion(min_kappa, "min_kappa"),
        "min_correlation": check_criterion(min_correlation, "min_correlation"),
        "max_smd": check_real(max_smd, "max_smd", positive=True),
        "max_group_smd": check_real(max_group_smd, "max_group_smd", positive=True),
        "max_dsm": check_real(max_dsm, "max_dsm", positive=True),
        "smd": check_choice(smd, "smd", SMD_DEFINITIONS),
        "pairs": check_choice(pairs, "pairs", PAIRS),
    }
    chosen = DEFAULT_CRITERIA if criteria is None else CRITERIA.check_many(criteria)
    level = check_confidence_level(confidence_level)
    method = check_choice(method, "method", METHODS)
    n_resamples = check_n_resamples(n_resamples)
    gen = check_rng(rng)
    progress = check_progress(progress)
    inputs = prepare_inputs(
        human,
        machine,
        item=item,
        cluster=cluster,
        groups=groups,
        weights=weights,
        labels=labels,
        nan_policy=nan_policy,
        trim=trim,
    )
    scores, design = inputs.scores, inputs.design
    double = int(np.count_nonzero((~np.isnan(scores.human)).sum(axis=1) >= 2))
    if double == 0:
        raise QwkitError(
            f"`human` has no item rated by two or more humans (0 of {scores.n_items} items are "
            "double-scored); the machine is judged against human-human agreement, which needs "
            "double-scored items.",
            parameter="human",
        )
    total = _STAGES * scores.machine.shape[1] + 2  # the models, the ceiling, the comparisons
    tick = _ticker(progress, total)
    ctx = Context(level, method, n_resamples, gen, design.clusters)
    settings.update(
        criteria=tuple(c for c in chosen if design.groups is not None or not CRITERIA[c].per_group),
        confidence_level=level,
        method=method,
        weights=scores.weights,
        trim=False if check_trim(trim) is None else inputs.tolerance,
        clusters=None if design.clusters is None else design.clusters.n,
        moments_on=scores.moments_on,
        groups_correction="bonferroni intervals, holm p-values",
        min_units=MIN_UNITS,
    )
    models = tuple(_model(j, inputs, ctx, settings, tick) for j in range(scores.machine.shape[1]))
    human_human = _human_agreement(scores, ctx)
    tick()
    comparisons = _comparisons(scores, ctx)
    tick()
    return EvaluationResult(
        models=models,
        human_human=human_human,
        human_names=scores.human_names,
        labels=scores.scale,
        weights=scores.weights,
        settings=settings,
        n_items=int(np.count_nonzero((~np.isnan(scores.human)).any(axis=1))),
        n_double_scored=double,
        comparisons=comparisons,
        diagnostics=_diagnostics(models, human_human, inputs, settings),
    )
