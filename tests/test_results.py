"""What every result has in common: its summary prints the interval that
``confidence_interval`` gives, at any ``confidence_level`` and for the ``alternative`` the
test was run with; every ``confidence_interval`` takes ``confidence_level`` first; results
are built by keyword."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import qwkit

PACKAGE = Path(qwkit.__file__).parent
Y1 = [0, 1, 2, 2, 1, 0, 1, 2, 0, 1, 2, 1, 2, 2, 0, 1, 1, 2, 0, 0]
Y2 = [0, 1, 2, 1, 1, 0, 2, 2, 0, 1, 2, 0, 2, 1, 0, 1, 2, 2, 0, 1]
RATINGS = np.array([Y1, Y2, Y1[::-1]]).T


def _limits(text: str, level: str) -> tuple[float, float]:
    found = [
        float(m.group(2))
        for m in re.finditer(
            rf"{re.escape(level)} (Lower|Upper|lower|upper)[ A-Za-z]+?(\S+)\n", text
        )
    ]
    assert len(found) == 2, text
    return found[0], found[1]


def _asymptotic_results(alternative):
    return {
        "kappa_test": qwkit.kappa_test(Y1, Y2, alternative=alternative),
        "compare_kappa_test": qwkit.compare_kappa_test(Y1, Y2, Y1[::-1], alternative=alternative),
        "agreement_test": qwkit.agreement_test(
            RATINGS, coefficient="fleiss", alternative=alternative
        ),
    }


class TestSummaries:
    @pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
    @pytest.mark.parametrize("level", [0.95, 0.8])
    def test_the_summary_prints_the_interval(self, alternative, level):
        for name, res in _asymptotic_results(alternative).items():
            text = res.summary(confidence_level=level)
            low, high = res.confidence_interval(level)
            shown = _limits(text, f"{100 * level:g}%")
            assert shown == pytest.approx((round(low, 4), round(high, 4)), abs=1e-4), name
            if alternative == "greater":
                assert high == res._upper_bound
            if alternative == "less":
                assert low == -np.inf

    def test_the_summary_says_the_alternative(self):
        greater = qwkit.kappa_test(Y1, Y2, alternative="greater")
        assert f"{'One-sided Pr >  Z':<26}{greater.pvalue:>10.4f}" in greater.summary()
        less = qwkit.agreement_test(RATINGS, coefficient="fleiss", alternative="less")
        assert "p (less)" in less.summary() and f"{less.pvalue:.4g}" in less.summary()

    def test_optimism_and_pairwise(self):
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 3, size=60)
        opt = qwkit.optimism_corrected_kappa(y, y + rng.normal(size=60), n_resamples=20, rng=0)
        low, high = opt.confidence_interval(0.8)
        assert _limits(opt.summary(0.8), "80%") == pytest.approx(
            (round(low, 4), round(high, 4)), abs=1e-4
        )
        pairwise = qwkit.pairwise_compare_kappa_test(Y1, {"a": Y2, "b": Y1[::-1], "c": Y1})
        text = pairwise.summary(confidence_level=0.9)
        assert "90% limits" in text
        low, high = pairwise.comparisons[0].confidence_interval(0.9)
        assert f"{low:>10.4f}{high:>10.4f}" in text

    def test_evaluation_results_print_any_level(self):
        rng = np.random.default_rng(20261121)
        human = rng.integers(1, 5, size=(80, 2)).astype(float)
        machine = np.clip(human[:, 0] + rng.integers(-1, 2, size=80), 1, 4)
        res = qwkit.standardized_mean_difference(human, machine)
        assert "95% confidence interval" in res.summary()
        low, high = res.confidence_interval(0.8)
        assert "80% confidence interval" in res.summary(confidence_level=0.8)
        assert f"{low:>10.4f}{high:>10.4f}" in res.summary(confidence_level=0.8)


def _result_classes():
    for name in qwkit.__all__:
        obj = getattr(qwkit, name)
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            yield obj


class TestSameArguments:
    @pytest.mark.parametrize("cls", list(_result_classes()), ids=lambda c: c.__name__)
    def test_confidence_interval_and_summary(self, cls):
        if not hasattr(cls, "confidence_interval"):
            return
        params = list(inspect.signature(cls.confidence_interval).parameters)
        assert params[:3] == ["self", "confidence_level", "method"], cls.__name__
        if hasattr(cls, "summary") and cls.__name__ != "EvaluationResult":
            assert "confidence_level" in inspect.signature(cls.summary).parameters, cls.__name__


def test_a_method_a_result_cannot_use_is_refused():
    rng = np.random.default_rng(20261121)
    y = rng.integers(0, 3, size=40)
    opt = qwkit.optimism_corrected_kappa(y, y + rng.normal(size=40), n_resamples=10, rng=0)
    assert opt.confidence_interval(method="asymptotic") == opt.confidence_interval()
    with pytest.raises(ValueError, match="`method` must be 'asymptotic' for this result"):
        opt.confidence_interval(method="bootstrap")
    human = rng.integers(1, 5, size=(60, 2)).astype(float)
    smd = qwkit.standardized_mean_difference(human, human[:, 0], method="jackknife")
    assert smd.confidence_interval(0.9, method="jackknife") == smd.confidence_interval(0.9)
    with pytest.raises(ValueError, match="`method` must be 'jackknife'"):
        smd.confidence_interval(method="bootstrap")


def test_results_are_built_by_keyword():
    """No positional argument in a call of a public result class inside the package."""
    names = {cls.__name__ for cls in _result_classes()}
    positional = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name in names:
                    positional.append(f"{path.name}:{node.lineno} {name}")
    assert not positional, positional
    assert {"KappaTestResult", "AgreementTestResult", "Criterion"} <= names
