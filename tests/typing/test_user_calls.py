"""A user's calls, as the README and docs/getting-started.md write them, type-checked.

mypy checks this file with the package (``tests/test_typing.py``; ``[tool.mypy]`` in
pyproject.toml): every call must be accepted as written, and ``assert_type`` pins the
types users read back. pytest runs the same calls, on the same small data, so the file
cannot drift from what the functions accept at run time.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from typing_extensions import assert_type

import qwkit
import qwkit.polars  # registers the `qwk` namespace

ACTUALS = [4, 4, 3, 4, 4, 0, 1, 1, 2, 1]
PREDS = [0, 4, 1, 0, 4, 0, 1, 1, 2, 1]


def test_kappa() -> None:
    """README, "Score"; docs/getting-started.md: lists in, a float and a table out."""
    assert_type(qwkit.kappa_score(ACTUALS, PREDS), float)
    assert_type(qwkit.kappa_score(ACTUALS, PREDS, weights="linear"), float)
    table = qwkit.confusion_matrix(ACTUALS, PREDS)
    assert_type(table, np.ndarray)
    assert_type(qwkit.kappa_from_confusion(table), float)
    assert_type(qwkit.soft_kappa_score([1, 2, 3, 4], [1.2, 1.9, 3.4, 3.6]), float)
    acc = qwkit.KappaAccumulator(labels=[0, 1, 2, 3, 4])
    for start in range(0, 10, 4):
        acc.update(ACTUALS[start : start + 4], PREDS[start : start + 4])
    assert_type(acc.score(), float)


def test_inference() -> None:
    """README, "Infer"; docs/getting-started.md: a test result and its intervals."""
    res = qwkit.kappa_test_from_confusion([[0, 4, 1], [0, 8, 0], [0, 1, 5]], weights=None)
    assert_type(res, qwkit.KappaTestResult)
    assert_type(res.statistic, float)
    assert_type(res.standard_error, float)
    low, high = res.confidence_interval(0.95)
    assert_type(low, float)
    assert_type(high, float)
    assert_type(res.confidence_interval(0.95, method="bootstrap", rng=20261121).high, float)
    wine = qwkit.load_wine_quality()
    rng = np.random.default_rng(20261121)
    rated = np.clip(wine.y + rng.integers(-1, 2, len(wine.y)), 3, 8)
    assert_type(qwkit.kappa_test(wine.y, rated), qwkit.KappaTestResult)


def test_thresholds() -> None:
    """README, "Train": a regression, its cut points, held-out kappa."""
    wine = qwkit.load_wine_quality()
    order = np.random.default_rng(20261121).permutation(len(wine.y))
    train, test = order[:1100], order[1100:]
    model = qwkit.kappa_regression(wine.X[train], wine.y[train])
    assert_type(model.statistic, float)
    cuts = qwkit.optimize_thresholds(wine.y[train], model.predict(wine.X[train]))
    assert_type(cuts.statistic, float)
    rated = cuts.predict(model.predict(wine.X[test]))
    assert_type(qwkit.kappa_score(wine.y[test], rated, labels=cuts.labels), float)


def test_agreement() -> None:
    """README, "Agree": many raters with missing ratings, a long table of a crowd, ICC."""
    nan = float("nan")
    ratings = np.array([[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [1, 2, 3, 4], [nan, 5, 5, 5]])
    for weights in ("identity", "ordinal", "quadratic", "ratio"):
        alpha = qwkit.agreement_score(ratings, coefficient="krippendorff", weights=weights)
        assert_type(alpha, float)
    res = qwkit.agreement_test(ratings, coefficient="gwet", weights="quadratic")
    assert_type(res.statistic, float)
    crowd = qwkit.ratings_from_long(
        items=["s1", "s1", "s1", "s2", "s2", "s2", "s3", "s3", "s3"],
        raters=["ann", "bob", "cy", "ann", "bob", "cy", "ann", "bob", "cy"],
        values=[1, 1, 3, 2, 2, 1, 3, 3, 1],
    )
    assert_type(crowd, qwkit.RatingsTable)
    assert_type(qwkit.agreement_score(crowd, coefficient="fleiss"), float)
    ranked = qwkit.rater_agreement(crowd)
    assert_type(ranked.ranked(), np.ndarray)
    sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    assert_type(qwkit.icc(sf, form="A,1").statistic, float)


def _scores() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The README's human and machine scores: 400 items, a second human on 100."""
    rng = np.random.default_rng(20261121)
    truth = rng.normal(3, 1, size=400)
    human = np.clip(np.rint(truth[:, None] + rng.normal(0, 0.6, (400, 2))), 1, 5)
    human[100:, 1] = np.nan
    return human, truth + rng.normal(0, 0.5, 400), truth + rng.normal(0, 0.7, 400)


def test_evaluate_scorer() -> None:
    """README, "Evaluate": one machine column, and several as a dict of name → scores."""
    human, a, b = _scores()
    res = qwkit.evaluate_scorer(human, a)
    assert_type(res, qwkit.EvaluationResult)
    for c in res.criteria:
        assert_type(c.estimate, float)
    assert_type(res.verdict, str)
    both = qwkit.evaluate_scorer(human, {"model A": a, "model B": b})
    assert [m.name for m in both.models] == ["model A", "model B"]
    # the human columns as a dict too, and the machine columns as lists
    humans = {"first": human[:, 0], "second": human[:, 1]}
    lists = {"model A": a.tolist(), "model B": b.tolist()}
    assert_type(qwkit.evaluate_scorer(humans, lists), qwkit.EvaluationResult)


def test_evaluate_hanna() -> None:
    """README, "Evaluate" on HANNA: the bundled data's columns."""
    hanna = qwkit.load_hanna()
    code = next(iter(hanna.criteria))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
        res = qwkit.evaluate_scorer(hanna.human[code], hanna.chatgpt[code], pairs="all")
    assert_type(res.degradation.human_human, float)
    assert_type(res.kappa.statistic, float)


def test_unknown_name() -> None:
    """A misspelt name is an error for the type checker too (the lazy module-level
    ``__getattr__`` is hidden from it): this ignore would be unused otherwise."""
    with pytest.raises(AttributeError):
        qwkit.kapa_score  # type: ignore[attr-defined]  # noqa: B018


def test_cost() -> None:
    """README, "Weigh against cost"."""
    cost = qwkit.insurance_loss_matrix(4)
    o2 = [[90, 10, 0, 0], [10, 80, 10, 0], [0, 10, 80, 10], [0, 0, 10, 90]]
    assert_type(qwkit.expected_cost(o2, cost), float)


def test_polars() -> None:
    """README and docs/getting-started.md: the `qwk` namespace of Polars expressions."""
    df = pl.DataFrame(
        {"colour": ["red"] * 10 + ["white"] * 10, "y": ACTUALS * 2, "pred": PREDS * 2}
    )
    # Polars registers `qwk` at run time (`pl.api.register_expr_namespace`), which no type
    # checker sees: the one place a user's call needs an ignore.
    kappa = pl.col("y").qwk.kappa("pred")  # type: ignore[attr-defined]
    out = df.group_by("colour", maintain_order=True).agg(kappa)
    assert out.height == 2
