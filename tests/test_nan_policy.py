"""One missing-value policy over the whole public API (issue 29, item 2).

Every public function of ``qwkit`` that takes per-item ratings takes scipy's
``nan_policy`` and applies it through ``_base/_missing.nan_rows``; the others are listed
in ``EXEMPT`` with the reason (a test fails on a public function in neither). For each
case, the same inputs with one missing rating (item ``ROW``):

* ``"raise"`` is a :class:`QwkitError` that names the input, the item and ``nan_policy``;
* ``"omit"`` gives the numbers of the same call on the items without the missing rating
  (for a multi-rater table, where a missing entry means "not rated", the numbers of the
  table as it is: nothing is dropped);
* ``"propagate"`` gives NaN where the function returns a number, and is refused with a
  QwkitError naming ``nan_policy`` where it returns a result object, a fit or a table;
* the default is the documented one of the function's kind: ``"raise"`` for per-item
  ratings (two raters, a reference and a prediction, the scores of a machine), ``"omit"``
  for multi-rater tables (docs/getting-started.md, "Missing values").
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import qwkit

N = 40
ROW = 7
SEED = 20261208


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    latent = rng.normal(size=N)
    y1 = np.clip(np.rint(latent * 1.2 + 3), 1, 5)
    y2 = np.clip(y1 + rng.integers(-1, 2, N), 1, 5)
    y3 = np.clip(y1 + rng.integers(-2, 3, N), 1, 5)
    human = np.clip(np.rint(latent[:, None] * 1.2 + 3 + rng.normal(0, 0.6, (N, 3))), 1, 5)
    human[rng.random(N) < 0.3, 2] = np.nan  # not rated (a multi-rater table)
    human[ROW] = [3.0, 4.0, 3.0]  # item ROW is rated by every rater
    return {
        "y1": y1,
        "y2": y2,
        "y3": y3,
        "score": latent * 1.2 + 3 + rng.normal(0, 0.6, N),
        "w": rng.uniform(0.5, 2.0, N),
        "X": np.column_stack([latent + rng.normal(0, 0.5, N), rng.normal(size=N)]),
        "human": human,
        "machine": np.clip(np.rint(latent * 1.2 + 3 + rng.normal(0, 0.7, N)), 1, 5),
    }


DATA = _data()


@dataclass(frozen=True)
class Case:
    """A public function called on named inputs of ``DATA``; ``missing`` is the input
    that gets a missing rating at item ``ROW`` (with ``column`` for a 2-D one)."""

    name: str
    call: Callable[..., object]
    missing: str
    column: int | None = None
    kind: str = "items"  # "items" (default raise) or "table" (default omit)
    number: bool = False  # returns one number: "propagate" gives NaN
    part: Callable[[dict], object] | None = None  # omit: compare this part of to_dict()
    rtol: float = 1e-12


def _two(fn, a="y1", b="y2", **kw):
    return lambda d, **p: fn(d[a], d[b], **kw, **p)


CASES = [
    Case("kappa_score", _two(qwkit.kappa_score, sample_weight=None), "y2", number=True),
    Case("confusion_matrix", _two(qwkit.confusion_matrix), "y1"),
    Case("kappa_test", lambda d, **p: qwkit.kappa_test(d["y1"], d["y2"], **p), "y2"),
    Case("soft_kappa_score", _two(qwkit.soft_kappa_score, "y1", "score"), "score", number=True),
    Case(
        "compare_kappa_test",
        lambda d, **p: qwkit.compare_kappa_test(d["y1"], d["y2"], d["y3"], **p),
        "y3",
    ),
    Case(
        "pairwise_compare_kappa_test",
        lambda d, **p: qwkit.pairwise_compare_kappa_test(
            d["y1"], {"a": d["y2"], "b": d["y3"], "c": d["machine"]}, **p
        ),
        "y2",
    ),
    Case("concordance_correlation", _two(qwkit.concordance_correlation, "y1", "score"), "y1"),
    Case("marginal_homogeneity_test", _two(qwkit.marginal_homogeneity_test), "y2"),
    Case("optimize_thresholds", _two(qwkit.optimize_thresholds, "y1", "score"), "score"),
    Case(
        "optimism_corrected_kappa",
        lambda d, **p: qwkit.optimism_corrected_kappa(
            d["y1"], d["score"], n_resamples=20, n_splits=5, rng=3, **p
        ),
        "y1",
    ),
    Case("kappa_rescale", _two(qwkit.kappa_rescale, "y1", "score"), "score"),
    Case(
        "kappa_regression",
        lambda d, **p: qwkit.kappa_regression(d["X"], d["y1"], sample_weight=d["w"], **p),
        "X",
        column=1,
    ),
    # multi-rater tables: a missing entry is "not rated"
    Case(
        "agreement_score",
        lambda d, **p: qwkit.agreement_score(d["human"], coefficient="krippendorff", **p),
        "human",
        column=0,
        kind="table",
        number=True,
    ),
    Case(
        "agreement_test",
        lambda d, **p: qwkit.agreement_test(d["human"], coefficient="fleiss", **p),
        "human",
        column=0,
        kind="table",
    ),
    Case(
        "category_agreement",
        lambda d, **p: qwkit.category_agreement(d["human"], **p),
        "human",
        column=1,
        kind="table",
    ),
    Case(
        "category_kappas",
        lambda d, **p: qwkit.category_kappas(d["human"], **p),
        "human",
        column=1,
        kind="table",
    ),
    Case("icc", lambda d, **p: qwkit.icc(d["human"], form="A,1", **p), "human", 0, "table"),
    Case("kendall_w", lambda d, **p: qwkit.kendall_w(d["human"], **p), "human", 0, "table"),
    Case(
        "rater_agreement",
        lambda d, **p: qwkit.rater_agreement(d["human"], **p),
        "human",
        column=1,
        kind="table",
    ),
    # a machine's scores beside a table of human ratings: per-item ratings
    Case(
        "alt_test",
        lambda d, **p: qwkit.alt_test(d["human"], d["machine"], min_items_per_rater=5, **p),
        "machine",
    ),
    Case(
        "degradation_test",
        lambda d, **p: qwkit.degradation_test(d["human"], d["machine"], **p),
        "machine",
    ),
    Case("prmse", lambda d, **p: qwkit.prmse(d["human"], d["machine"], **p), "machine"),
    Case(
        "standardized_mean_difference",
        lambda d, **p: qwkit.standardized_mean_difference(d["human"], d["machine"], **p),
        "machine",
    ),
    Case(  # the humans' agreement is that of every item; each model on those it scored
        "evaluate_scorer",
        lambda d, **p: qwkit.evaluate_scorer(d["human"], d["machine"], **p),
        "machine",
        part=lambda d: d["models"],
    ),
    Case(  # both traits' copies of item ROW miss their score
        "evaluate_traits",
        lambda d, **p: qwkit.evaluate_traits(
            np.vstack([d["human"], d["human"]]),
            np.concatenate([d["machine"], d["machine"]]),
            np.repeat(["t1", "t2"], len(d["machine"])),
            **p,
        ),
        "machine",
        part=lambda d: [r["models"] for r in d["results"].values()],
    ),
    Case(
        "alt_test_sample_size",
        lambda d, **p: qwkit.alt_test_sample_size(
            d["human"], d["machine"], n_annotators=3, n_simulations=200, rng=0, **p
        ),
        "machine",
    ),
    Case(
        "degradation_sample_size",
        lambda d, **p: qwkit.degradation_sample_size(human=d["human"], machine=d["machine"], **p),
        "machine",
    ),
]

#: public functions without ``nan_policy``, and why
EXEMPT = {
    "agreement_from_counts": "a table of counts, not ratings",
    "agreement_test_from_counts": "a table of counts, not ratings",
    "kappa_from_confusion": "a table of counts, not ratings",
    "kappa_test_from_confusion": "a table of counts, not ratings",
    "expected_cost": "a table of counts and a cost matrix",
    "bayes_decision": "class probabilities: a decision per item, NaN is bad input",
    "kappa_decision": "class probabilities: a decision per item, NaN is bad input",
    "apply_thresholds": "a transform: one class per score, NaN is bad input",
    "kappa_gradient_hessian": "a training objective: one gradient per prediction",
    "mean_kappa": "kappas of pairs, not ratings",
    "ratings_from_long": "builds the table: a missing value keeps its item, unrated",
    "cost_matrix": "no data",
    "insurance_loss_matrix": "no data",
    "risk_class_model": "no data",
    "weight_matrix": "no data",
    "load_hanna": "a data set",
    "load_hanna_judges": "a data set",
    "load_wine_quality": "a data set",
    # human ratings items x raters, NaN "not rated" by definition (omit, a table's rule);
    # a missing judge score is an error naming its item. nan_policy itself: to be wired
    "judge_reliability": "a long table of judgements: a row without a score (a failed "
    "answer) is left out and counted in the notes; it is one judgement, not an item",
    "position_bias_test": "a long table of verdicts: a row without one is left out and "
    "counted, as by judge_reliability",
    "position_bias_sample_size": "no data",
    "calibrate_judge": "items x raters (NaN: not rated) and a judge score that must exist",
    "human_scale_estimate": "items x raters (NaN: not rated) and a judge score that must exist",
}

IDS = [c.name for c in CASES]


def _with_missing(case: Case, value=np.nan) -> dict:
    data = {k: v.copy() for k, v in DATA.items()}
    arr = data[case.missing].astype(object if value is None else np.float64)
    if case.column is None:
        arr[ROW] = value
    else:
        arr[ROW, case.column] = value
    data[case.missing] = arr
    return data


def _without_row(data: dict, rows: int = N) -> dict:
    keep = np.arange(rows) != ROW
    return {k: v[keep] if len(v) == rows else v for k, v in data.items()}


def _numbers(res, part: Callable[[dict], object] | None = None) -> np.ndarray:
    """Every number a result reports (its ``to_dict()``, or ``part`` of it), in a fixed
    order."""
    if isinstance(res, (float, np.ndarray)):
        return np.atleast_1d(np.asarray(res, dtype=np.float64)).ravel()
    found: list[float] = []

    def walk(value, key=""):
        if "omitted" in key:
            return  # how many items were left out: what differs by design
        if isinstance(value, dict):
            for k in sorted(value, key=str):
                walk(value[k], str(k))
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v, key)
        elif isinstance(value, (bool, str)) or value is None:
            return
        elif isinstance(value, (int, float, np.number)):
            found.append(float(value))

    walk(res.to_dict() if part is None else part(res.to_dict()))
    return np.asarray(found)


def _call(case: Case, data: dict, **policy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ScaleWarning, small-sample notes: not the point
        return case.call(data, **policy)


def test_every_public_function_is_listed():
    functions = {
        name
        for name in qwkit.__all__
        if callable(getattr(qwkit, name)) and not isinstance(getattr(qwkit, name), type)
    }
    assert functions == set(IDS) | set(EXEMPT)
    for name in IDS:
        assert "nan_policy" in inspect.signature(getattr(qwkit, name)).parameters, name


@pytest.mark.parametrize("case", CASES, ids=IDS)
class TestNanPolicy:
    def test_default_is_the_kind_s(self, case):
        default = inspect.signature(getattr(qwkit, case.name)).parameters["nan_policy"].default
        assert default == ("omit" if case.kind == "table" else "raise")

    def test_raise(self, case):
        data = _with_missing(case)
        with pytest.raises(qwkit.QwkitError, match="nan_policy") as info:
            _call(case, data, nan_policy="raise")
        # a table: its first item not rated by every rater
        first = int(np.flatnonzero(np.isnan(data["human"]).any(axis=1))[0])
        assert info.value.row == (first if case.kind == "table" else ROW)
        named = inspect.signature(getattr(qwkit, case.name)).parameters
        assert info.value.parameter in named or info.value.parameter.startswith("y_preds[")
        assert "nan_policy" in info.value.parameters

    def test_default(self, case):
        data = _with_missing(case)
        if case.kind == "table":
            np.testing.assert_allclose(
                _numbers(_call(case, data)), _numbers(_call(case, data, nan_policy="omit"))
            )
        else:
            with pytest.raises(qwkit.QwkitError, match="nan_policy='raise'"):
                _call(case, data)

    @pytest.mark.parametrize("value", [np.nan, None], ids=["nan", "None"])
    def test_omit(self, case, value):
        data = _with_missing(case, value)
        got = _numbers(_call(case, data, nan_policy="omit"), case.part)
        if case.kind == "table" and case.name != "kendall_w":
            want = _numbers(_call(case, data))  # "not rated": the table as it is
        else:  # kendall_w leaves out items with a missing rating, as omit does elsewhere
            clean = {k: np.asarray(v, dtype=np.float64) for k, v in DATA.items()}
            want = _numbers(_call(case, _without_row(clean)), case.part)
        np.testing.assert_allclose(got, want, rtol=case.rtol, atol=1e-15)

    def test_propagate(self, case):
        data = _with_missing(case)
        if case.number:
            assert math.isnan(_call(case, data, nan_policy="propagate"))
            clean = DATA
            if case.kind == "table":  # the complete items: a table with nothing missing
                clean = {**DATA, "human": DATA["human"][~np.isnan(DATA["human"]).any(axis=1)]}
            got = _call(case, clean, nan_policy="propagate")
            assert got == _call(case, clean, nan_policy="omit")
            assert not math.isnan(got)
        else:
            with pytest.raises(qwkit.QwkitError, match="`nan_policy` must be") as info:
                _call(case, data, nan_policy="propagate")
            assert info.value.parameter == "nan_policy"

    def test_unknown_policy(self, case):
        with pytest.raises(qwkit.QwkitError, match="`nan_policy` must be") as info:
            _call(case, DATA, nan_policy="drop")
        assert info.value.parameter == "nan_policy"


class TestContainers:
    """What is missing: NaN, None, pandas' NA, polars' null — in any container."""

    def test_pandas_na_and_labels(self):
        y1 = pd.Series([1, 2, pd.NA, 4, 2, 3], dtype="Int64", index=list("abcdef"))
        y2 = pd.Series([1, 2, 3, 4, 2, 2], index=list("fedcba"))  # paired by label
        got = qwkit.kappa_score(y1, y2, nan_policy="omit")
        want = qwkit.kappa_score([1, 2, 4, 2, 3], [2, 2, 3, 2, 1])
        assert got == want
        with pytest.raises(qwkit.QwkitError, match=r"\(<NA>\) at index 2") as info:
            qwkit.kappa_score(y1, y2)
        assert (info.value.parameter, info.value.row) == ("y1", 2)

    def test_polars_null(self):
        import polars as pl

        y1, y2 = pl.Series([1, None, 3, 2, 1]), pl.Series([1, 2, 3, 3, 1])
        assert qwkit.kappa_score(y1, y2, nan_policy="omit") == qwkit.kappa_score(
            [1, 3, 2, 1], [1, 3, 3, 1]
        )

    def test_text_none(self):
        got = qwkit.kappa_score(
            ["a", None, "b", "c"], ["a", "b", "b", "c"], labels=["a", "b", "c"], nan_policy="omit"
        )
        assert got == 1.0

    def test_inf_is_not_missing(self):
        with pytest.raises(qwkit.QwkitError, match="finite"):
            qwkit.soft_kappa_score([1, 2, 3], [1.0, np.inf, 2.0], nan_policy="omit")

    def test_item_weights_follow(self):
        y1, y2, w = [1, 2, np.nan, 3, 2], [1, 2, 3, 3, 1], [1.0, 2.0, 3.0, 4.0, 5.0]
        got = qwkit.kappa_score(y1, y2, sample_weight=w, nan_policy="omit")
        want = qwkit.kappa_score([1, 2, 3, 2], [1, 2, 3, 1], sample_weight=[1.0, 2.0, 4.0, 5.0])
        assert got == want

    def test_ratings_table_raise(self):
        table = qwkit.ratings_from_long([1, 1, 2, 3, 3], ["a", "b", "a", "a", "b"], [1, 2, 2, 3, 3])
        with pytest.raises(qwkit.QwkitError, match=r"item 2 .*complete table"):
            qwkit.agreement_score(table, coefficient="fleiss", nan_policy="raise")
        assert math.isnan(
            qwkit.agreement_score(table, coefficient="fleiss", nan_policy="propagate")
        )


@pytest.mark.parametrize(
    ("make", "a", "b"),
    [
        (lambda: qwkit.KappaAccumulator(labels=[1, 2, 3, 4, 5]), "y1", "y2"),
        (qwkit.SoftKappaAccumulator, "y1", "score"),
        (qwkit.ThresholdAccumulator, "y1", "score"),
    ],
    ids=["KappaAccumulator", "SoftKappaAccumulator", "ThresholdAccumulator"],
)
def test_accumulators(make, a, b):
    """The streaming twins take the same policy batch by batch (a fit, a table: raise or
    omit)."""
    x, y = DATA[a].astype(np.float64), DATA[b].astype(np.float64).copy()
    y[ROW] = np.nan
    acc = make()
    with pytest.raises(qwkit.QwkitError, match="nan_policy") as info:
        acc.update(x, y)
    assert info.value.row == ROW
    acc.update(x[:20], y[:20], nan_policy="omit")
    acc.update(x[20:], y[20:], nan_policy="omit")
    keep = np.arange(N) != ROW
    whole = make()
    whole.update(x[keep], y[keep])
    result = getattr(acc, "score", None) or acc.optimize  # the cut points' fit
    want = getattr(whole, "score", None) or whole.optimize
    assert _numbers(result()).tolist() == _numbers(want()).tolist()
    with pytest.raises(qwkit.QwkitError, match="`nan_policy` must be"):
        acc.update(x, y, nan_policy="propagate")
