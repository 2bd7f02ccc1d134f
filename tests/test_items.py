"""Items are items, over the whole public API (issue 28's sweep).

Every public function that takes more than one array-like of the same items is listed in
``CASES`` (and a test fails when a new one is not): its inputs as NumPy arrays, and the
numbers it returns. For each:

(a) permuting the items together leaves every number unchanged;
(c) the inputs as pandas objects indexed by item id, every input after the first in
    another order, give the numbers of the aligned arrays (pairing is by label); a label
    set that differs, or a repeated label where the order differs, is refused with an
    error naming the parameter;

and for the functions of numeric ratings with a ``labels`` scale, (b) reversing the
declared order leaves means, SDs, SMD, r and PRMSE unchanged and kappa the kappa of the
reversed scale (the same number for symmetric weights). Sweep (d), memory flat under
values scaled by 10¹² or shifted by 2⁶², is ``tests/test_bad_input.py``'s.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

import qwkit
import qwkit.dask
import qwkit.sklearn

N = 60
SEED = 20261207


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    latent = rng.normal(size=N)
    y1 = np.clip(np.rint(latent * 1.2 + 3), 1, 5).astype(np.int64)
    y2 = np.clip(y1 + rng.integers(-1, 2, N), 1, 5)
    y3 = np.clip(y1 + rng.integers(-2, 3, N), 1, 5)
    score = latent * 1.2 + 3 + rng.normal(0, 0.6, N)
    human = np.clip(np.rint(latent[:, None] * 1.2 + 3 + rng.normal(0, 0.6, (N, 3))), 1, 5)
    human[rng.random(N) < 0.5, 1] = np.nan
    human[rng.random(N) < 0.7, 2] = np.nan
    human[:8, 1:] = [3.0, 3.0]  # every rater rates enough items for the alt-test
    return {
        "y1": y1,
        "y2": y2,
        "y3": y3,
        "score": score,
        "w": rng.uniform(0.5, 2.0, N),
        "counts": rng.integers(1, 4, N),
        "X": np.column_stack([latent + rng.normal(0, 0.5, N), rng.normal(size=N)]),
        "human": human,
        "machine": np.clip(np.rint(latent * 1.2 + 3 + rng.normal(0, 0.7, N)), 1, 5),
        "groups": np.array(["a", "b", "c"])[rng.integers(0, 3, N)],
        "kappas": rng.uniform(0.3, 0.9, N),
        # a long table: each of N/2 items rated by two raters
        "item": np.repeat(np.arange(N // 2), 2),
        "rater": np.tile(["r1", "r2"], N // 2),
    }


DATA = _data()


@dataclass(frozen=True)
class Case:
    """A public function as a call on named per-item inputs (``inputs``, in the order of
    its parameters; the first one leads the pairing) returning numbers."""

    name: str
    inputs: tuple[str, ...]  # keys of DATA, in the call's order
    call: Callable[..., tuple]
    rtol: float = 1e-12
    permutable: bool = True  # (a): False where resampling depends on the order (say why)
    output_per_item: bool = False  # one value per item: compared in the lead's order
    covers: tuple[str, ...] = field(default=())  # public callables this case exercises


def _r(res, *names):
    return tuple(float(getattr(res, n)) for n in names)


def _kappa_acc(y1, y2, w):
    acc = qwkit.KappaAccumulator(range(1, 6))
    acc.update(y1, y2, w)
    return (acc.score(),)


def _soft_acc(y, s, w):
    acc = qwkit.SoftKappaAccumulator()
    acc.update(y, s, w)
    return (acc.score(),)


def _threshold_acc(y, s, w):
    acc = qwkit.ThresholdAccumulator(labels=range(1, 6))
    acc.update(y, s, w)
    res = acc.optimize()
    return (res.statistic, *res.thresholds)


def _quiet(fn):
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            return fn(*args)

    return call


def _evaluate(h, m, g):
    res = qwkit.evaluate_scorer(h, m, groups=g)
    return tuple(c.estimate for c in res.criteria) + tuple(
        x for c in res.criteria for x in (c.low, c.high)
    )


def _traits(h, m, t):
    res = qwkit.evaluate_traits(h, m, t)
    return tuple(r.criterion.estimate for r in res.criteria) + tuple(res.pvalues_adjusted)


#: The unlabelled items of human_scale_estimate: other items than DATA's, with their groups.
_UNLABELLED = np.random.default_rng(SEED + 2).normal(3, 1.2, 200)
_UNLABELLED_GROUPS = np.array(["a", "b", "c"])[np.arange(200) % 3]


def _calibrate(h, s):
    # the cross-fitted kappa depends on the folds, drawn by position: the cut points and
    # the in-sample kappa do not
    cal = qwkit.calibrate_judge(h, s, rng=0, n_resamples=5, n_splits=5)
    return (cal.apparent, *cal.thresholds)


def _scale_estimate(h, s, g):
    res = qwkit.human_scale_estimate(
        h, s, _UNLABELLED, groups=g, groups_unlabelled=_UNLABELLED_GROUPS
    )
    return tuple(x for r in res.estimates for x in (r.estimate, r.standard_error, r.lam))


def _optimal_rounder(X, y, w):
    est = qwkit.sklearn.OptimalRounder().fit(X, y, sample_weight=w)
    return (*est.thresholds_, est.score(X, y, sample_weight=w))


def _kappa_regressor(X, y, w):
    est = qwkit.sklearn.KappaRegressor().fit(X, y, sample_weight=w)
    return (*est.coef_, est.intercept_, est.score(X, y, sample_weight=w))


def _judge(score, item, run):
    # a long table: each of the N/2 items judged twice (two runs); rows paired by label
    j = qwkit.judge_reliability(item=item, run=run, score=score)[0]
    return (
        *(getattr(j, c).statistic for c in ("icc", "alpha")),
        *(getattr(j, c).standard_error for c in ("icc", "alpha")),
        j.icc.low,
        j.icc.high,
        j.runs_needed.runs,
    )


def _position(verdict, item, order):
    # each of the N/2 pairs judged in both orders ("r1", "r2"); verdicts "a", "b", "c"
    res = qwkit.position_bias_test(
        item=item, order=order, verdict=verdict, verdict_labels=("a", "b", "c"),
        order_labels=("r1", "r2"),
    )  # fmt: skip
    r, c = res.first_slot_rate, res.consistency
    return (res.statistic, res.pvalue, r.statistic, r.low, r.high, c.statistic, c.low, c.high)


CASES = [
    Case(
        "kappa_score",
        ("y1", "y2", "w"),
        lambda a, b, w: (qwkit.kappa_score(a, b, sample_weight=w),),
    ),
    Case(
        "kappa_test",
        ("y1", "y2", "counts"),
        lambda a, b, c: _r(qwkit.kappa_test(a, b, counts=c), "statistic", "standard_error"),
    ),
    Case(
        "confusion_matrix",
        ("y1", "y2", "w"),
        lambda a, b, w: tuple(qwkit.confusion_matrix(a, b, sample_weight=w).ravel()),
    ),
    Case(
        "soft_kappa_score",
        ("y1", "score", "w"),
        lambda y, s, w: (qwkit.soft_kappa_score(y, s, sample_weight=w),),
    ),
    Case(
        "compare_kappa_test",
        ("y1", "y2", "y3", "w"),
        lambda t, a, b, w: _r(
            qwkit.compare_kappa_test(t, a, b, sample_weight=w), "statistic", "standard_error"
        ),
    ),
    Case(
        "pairwise_compare_kappa_test",
        ("y1", "y2", "y3"),
        lambda t, a, b: tuple(
            qwkit.pairwise_compare_kappa_test(
                t,
                pd.concat({"a": a, "b": b}, axis=1)
                if isinstance(a, pd.Series)
                else {"a": a, "b": b},
            ).pvalue
        ),
    ),
    Case(
        "mean_kappa",
        ("kappas", "w"),
        lambda k, w: (qwkit.mean_kappa(k, sample_weight=w),),
    ),
    Case("KappaAccumulator", ("y1", "y2", "w"), _kappa_acc, covers=("KappaAccumulator.update",)),
    Case(
        "SoftKappaAccumulator",
        ("y1", "score", "w"),
        _soft_acc,
        covers=("SoftKappaAccumulator.update",),
    ),
    Case(
        "ThresholdAccumulator",
        ("y1", "score", "w"),
        _threshold_acc,
        covers=("ThresholdAccumulator.update",),
    ),
    Case(
        "optimize_thresholds",
        ("y1", "score", "counts"),
        lambda y, s, c: (lambda r: (r.statistic, *r.thresholds))(
            qwkit.optimize_thresholds(y, s, counts=c)
        ),
    ),
    Case(
        "optimism_corrected_kappa",
        ("y1", "score", "w"),
        lambda y, s, w: _r(
            qwkit.optimism_corrected_kappa(y, s, sample_weight=w, n_splits=5, rng=1),
            "statistic",
            "apparent",
        ),
        # cross-fitting assigns folds by position: a permutation draws other folds
        permutable=False,
    ),
    Case(
        "kappa_gradient_hessian",
        ("score", "y1", "w"),  # the gradient follows raw_prediction: it leads
        lambda s, y, w: tuple(np.concatenate(qwkit.kappa_gradient_hessian(y, s, sample_weight=w))),
        output_per_item=True,
    ),
    Case(
        "kappa_regression",
        ("X", "y1", "w"),
        lambda X, y, w: (lambda r: (r.statistic, r.intercept, *r.coef))(
            qwkit.kappa_regression(X, y, sample_weight=w)
        ),
        rtol=1e-9,
    ),
    Case(
        "kappa_rescale",
        ("y1", "score", "counts"),
        lambda y, s, c: _r(qwkit.kappa_rescale(y, s, counts=c), "statistic", "slope", "intercept"),
        rtol=1e-10,
    ),
    Case(
        "concordance_correlation",
        ("y1", "score"),
        lambda x, y: _r(qwkit.concordance_correlation(x, y), "statistic", "standard_error"),
    ),
    Case(
        "marginal_homogeneity_test",
        ("y1", "y3"),
        lambda a, b: _r(qwkit.marginal_homogeneity_test(a, b), "statistic", "pvalue"),
    ),
    Case("evaluate_scorer", ("human", "score", "groups"), _evaluate, rtol=1e-10),
    Case("evaluate_traits", ("human", "score", "groups"), _traits, rtol=1e-10),
    Case(
        "degradation_test",
        ("human", "machine"),
        lambda h, m: _r(qwkit.degradation_test(h, m), "statistic", "standard_error"),
        rtol=1e-10,
    ),
    Case(
        "prmse",
        ("human", "score"),
        lambda h, m: _r(qwkit.prmse(h, m), "statistic", "standard_error"),
        rtol=1e-10,
    ),
    Case(
        "standardized_mean_difference",
        ("human", "score"),
        lambda h, m: _r(
            qwkit.standardized_mean_difference(h, m), "statistic", "standard_error", "mean_human"
        ),
        rtol=1e-10,
    ),
    Case(
        "alt_test",
        ("human", "machine"),
        _quiet(
            lambda h, m: tuple(
                qwkit.alt_test(h, m, min_items_per_rater=5, alignment="rmse").pvalues
            )
        ),
        rtol=1e-10,
    ),
    Case(
        "degradation_sample_size",
        ("human", "machine"),
        lambda h, m: (qwkit.degradation_sample_size(human=h, machine=m).n_items,),
    ),
    Case(
        "alt_test_sample_size",
        ("human", "machine"),
        _quiet(
            lambda h, m: (
                *(
                    x
                    for r in qwkit.alt_test_sample_size(
                        h, m, alignment="rmse", n_annotators=[3], n_simulations=200, rng=0
                    ).rates
                    for x in r
                ),
            )
        ),
        rtol=1e-10,
    ),
    Case(
        "ratings_from_long",
        ("item", "rater", "y3"),  # three columns of a long table
        lambda i, r, v: (
            qwkit.agreement_score(qwkit.ratings_from_long(i, r, v), coefficient="fleiss"),
        ),
    ),
    Case("judge_reliability", ("y3", "item", "rater"), _judge, rtol=1e-10),
    Case("position_bias_test", ("groups", "item", "rater"), _position, rtol=1e-10),
    Case(
        "KappaRegressor",
        ("X", "y1", "w"),
        _kappa_regressor,
        rtol=1e-9,
        covers=("KappaRegressor.fit", "KappaRegressor.score"),
    ),
    Case("calibrate_judge", ("human", "score"), _calibrate, rtol=1e-9),
    Case("human_scale_estimate", ("human", "score", "groups"), _scale_estimate, rtol=1e-9),
    Case(
        "OptimalRounder",
        ("X", "y1", "w"),
        _optimal_rounder,
        rtol=1e-9,
        permutable=False,  # its cross-validation folds are drawn by position
        covers=("OptimalRounder.fit", "OptimalRounder.score"),
    ),
]

#: Parameters that hold one value per item (or per row of a long table).
PER_ITEM = {
    "y1", "y2", "y_true", "y_score", "y_pred_a", "y_pred_b", "y_preds", "raw_prediction",
    "X", "y", "sample_weight", "counts", "human", "machine", "judge", "groups", "a", "b",
    "x", "kappas", "items", "raters", "values", "ratings", "human_labelled", "judge_labelled",
    "judge_unlabelled", "groups_unlabelled",
}  # fmt: skip
#: Public callables with several per-item parameters that are not in ``CASES``, and why.
ELSEWHERE = {
    # tensors carry no labels; checked against pairs of tensors in tests/integrations
    "soft_kappa_loss": "torch",
    "weighted_kappa_loss": "torch",
    # boosting libraries hand NumPy arrays (no labels) to their objectives
    "kappa_objective": "boosting",
    "kappa_metric": "boosting",
    # scikit-learn's scorer protocol pairs X and y by position, as every scikit-learn
    # scorer and splitter does; qwkit's estimators pair them by label in fit and score
    "kappa_scorer": "sklearn",
    "soft_kappa_scorer": "sklearn",
}
#: qwkit.dask's functions share the names of qwkit's (covered above); their dask Series
#: are paired partition by partition (TestDask).


def _as_pandas(name: str, value: np.ndarray, index) -> pd.Series | pd.DataFrame:
    if value.ndim == 2:
        columns = [f"{name}{j}" for j in range(value.shape[1])]
        return pd.DataFrame(value, index=index, columns=columns)
    return pd.Series(value, index=index, name=name)


def _call(case: Case, values) -> np.ndarray:
    return np.asarray(case.call(*values), dtype=float)


def _same(got, want, rtol):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-13)


IDS = np.array([f"item{i}" for i in range(N)])  # string-sorted ≠ given order (item10 < item2)
ORDER = np.random.default_rng(SEED + 1).permutation(N)


@pytest.fixture(scope="module")
def expected() -> dict[str, np.ndarray]:
    return {case.name: _call(case, [DATA[k] for k in case.inputs]) for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
class TestItems:
    def test_permuted_items(self, case, expected):
        if not case.permutable:
            return  # documented in the case
        got = _call(case, [DATA[k][ORDER] for k in case.inputs])
        want = expected[case.name]
        if case.output_per_item:
            want = want.reshape(2, N)[:, ORDER].ravel()
        _same(got, want, case.rtol)

    def test_pandas_in_another_order_is_paired_by_label(self, case, expected):
        values = [
            _as_pandas(k, DATA[k], IDS) if j == 0 else _as_pandas(k, DATA[k][ORDER], IDS[ORDER])
            for j, k in enumerate(case.inputs)
        ]
        _same(_call(case, values), expected[case.name], case.rtol)

    def test_numpy_beside_pandas_pairs_by_position(self, case, expected):
        # a NumPy input carries no labels: paired by position with the others
        values = [
            _as_pandas(k, DATA[k], IDS[ORDER]) if j == 0 else DATA[k]
            for j, k in enumerate(case.inputs)
        ]
        _same(_call(case, values), expected[case.name], case.rtol)

    def test_different_labels_are_refused(self, case):
        other = IDS.copy()
        other[5] = "stranger"
        values = [
            _as_pandas(k, DATA[k], IDS if j == 0 else other[::-1])
            for j, k in enumerate(case.inputs)
        ]
        with pytest.raises(qwkit.QwkitError, match="label different items") as info:
            _call(case, values)
        assert info.value.parameter in case.inputs or info.value.parameter in PER_ITEM
        assert "stranger" in str(info.value) or "item5" in str(info.value)

    def test_repeated_labels_are_refused_when_the_order_differs(self, case):
        twice = IDS.copy()
        twice[7] = twice[3]
        values = [
            _as_pandas(k, DATA[k], twice if j == 0 else twice[::-1])
            for j, k in enumerate(case.inputs)
        ]
        with pytest.raises(qwkit.QwkitError, match="labels two items 'item3'"):
            _call(case, values)


def test_every_public_function_with_several_item_inputs_is_covered():
    covered = {c.name for c in CASES} | {n for c in CASES for n in c.covers}
    modules = (qwkit, qwkit.sklearn, qwkit.dask)
    missing = []
    for mod in modules:
        for name in mod.__all__:
            obj = getattr(mod, name)
            targets = [(name, obj)]
            if inspect.isclass(obj):
                targets = [
                    (f"{name}.{m}", getattr(obj, m))
                    for m in ("fit", "update", "score")
                    if hasattr(obj, m)
                ]
            for label, fn in targets:
                if not callable(fn):
                    continue
                try:
                    params = inspect.signature(fn).parameters
                except (TypeError, ValueError):
                    continue
                if len(PER_ITEM.intersection(params)) >= 2 and label not in covered:
                    if label.split(".")[0] not in ELSEWHERE:
                        missing.append(f"{mod.__name__}.{label}")
    assert not missing, f"add these to CASES: {missing}"


class TestTheIssuesCalls:
    """The calls of issue 28, as users made them."""

    def _panel(self):
        rng = np.random.default_rng(SEED)
        n = 300
        truth = rng.normal(size=n)
        ids = np.array([f"x{i}" for i in range(n)])
        human = np.clip(np.rint(3 + truth[:, None] + rng.normal(0, 0.5, (n, 2))), 1, 5)
        human[60:, 1] = np.nan
        machine = np.clip(np.rint(3 + truth + rng.normal(0, 0.5, n)), 1, 5)
        return ids, human, machine

    def test_ratings_table_and_a_machine_series(self):
        # was: the machine paired with the table's string-sorted items (kappa −0.08)
        ids, human, machine = self._panel()
        rated = ~np.isnan(human)
        table = qwkit.ratings_from_long(
            np.repeat(ids, 2)[rated.ravel()],
            np.tile(["a", "b"], ids.size)[rated.ravel()],
            human.ravel()[rated.ravel()],
        )
        series = pd.Series(machine, index=ids).sample(frac=1.0, random_state=3)
        got = qwkit.evaluate_scorer(table, series)
        want = qwkit.evaluate_scorer(human, machine)
        assert got.kappa.statistic == pytest.approx(want.kappa.statistic, rel=1e-12)
        assert got.kappa.statistic > 0.6

    def test_frame_and_series_with_the_same_labels_in_another_order(self):
        # was: paired by position (kappa 0.02 instead of 0.72)
        ids, human, machine = self._panel()
        frame = pd.DataFrame(human, index=ids, columns=["r1", "r2"])
        series = pd.Series(machine, index=ids).iloc[::-1]
        for fn in (qwkit.evaluate_scorer, qwkit.degradation_test, qwkit.prmse):
            got, want = fn(frame, series), fn(human, machine)
            stat = got.kappa.statistic if fn is qwkit.evaluate_scorer else got.statistic
            ref = want.kappa.statistic if fn is qwkit.evaluate_scorer else want.statistic
            assert stat == pytest.approx(ref, rel=1e-12)

    def test_a_table_and_a_series_of_other_items_is_refused(self):
        ids, human, machine = self._panel()
        table = qwkit.ratings_from_long(
            np.repeat(ids, 2), np.tile(["a", "b"], ids.size), human.ravel()
        )
        series = pd.Series(machine)  # a RangeIndex: 0 … n − 1, not the table's items
        with pytest.raises(qwkit.QwkitError, match="label different items") as info:
            qwkit.evaluate_scorer(table, series)
        assert info.value.parameter == "machine"
        # as an array it pairs by position, with the table's items in their order
        assert qwkit.evaluate_scorer(table, machine[np.argsort(ids, kind="stable")]).n_items == 300


class TestReversedLabels:
    """(b) The declared order of numeric labels decides kappa's weights, nothing else."""

    def test_moments_and_kappa(self):
        h, m = DATA["human"], DATA["machine"]
        up, down = [1, 2, 3, 4, 5], [5, 4, 3, 2, 1]
        for fn, parts in (
            (qwkit.standardized_mean_difference, ("statistic", "mean_human", "sd_human")),
            (qwkit.prmse, ("statistic", "variance_of_errors", "true_score_variance")),
            (qwkit.degradation_test, ("statistic", "standard_error")),
        ):
            a, b = fn(h, m, labels=up), fn(h, m, labels=down)
            assert _r(b, *parts) == pytest.approx(_r(a, *parts), rel=1e-12), fn.__name__
        a, b = qwkit.evaluate_scorer(h, m, labels=up), qwkit.evaluate_scorer(h, m, labels=down)
        for x, y in zip(a.criteria, b.criteria, strict=True):
            assert (y.estimate, y.low, y.high) == pytest.approx(
                (x.estimate, x.low, x.high), rel=1e-12
            )
        # kappa of the reversed scale: positions reversed; symmetric weights, the same
        y1, y2 = DATA["y1"], DATA["y2"]
        for weights in ("quadratic", "linear", "identity"):
            assert qwkit.kappa_score(y1, y2, labels=down, weights=weights) == pytest.approx(
                qwkit.kappa_score(y1, y2, labels=up, weights=weights), rel=1e-14
            )
        # an asymmetric matrix reads positions on the declared scale
        w = np.triu(np.ones((5, 5)), 1) + 2 * np.tril(np.ones((5, 5)), -1)
        assert qwkit.kappa_score(y1, y2, labels=down, weights=w) == pytest.approx(
            qwkit.kappa_score(6 - y1, 6 - y2, labels=up, weights=w), rel=1e-14
        )


class TestDask:
    def test_series_of_two_frames_in_another_order(self):
        import dask.dataframe as dd

        y1, y2 = DATA["y1"], DATA["y2"]
        a = dd.from_pandas(pd.Series(y1, index=IDS), npartitions=1)
        b = dd.from_pandas(pd.Series(y2[ORDER], index=IDS[ORDER]), npartitions=1)
        assert qwkit.dask.kappa_score(a, b) == qwkit.kappa_score(y1, y2)
        other = IDS.copy()
        other[0] = "stranger"
        c = dd.from_pandas(pd.Series(y2, index=other), npartitions=1)
        with pytest.raises(qwkit.QwkitError, match="label different items"):
            qwkit.dask.kappa_score(a, c)
