"""Every case of the frozen R reference of issue 22 through the public API, to its tolerance.

``tests/data/breadth_reference_r.json.gz`` holds 946 cases computed with R psych 2.2.9
(+ lme4), irr 0.84.1, irrCAC 1.4 and epiR 2.0.57 (its ``provenance`` says how it was
copied). Each case names the call (``qwkit``: the function and its arguments), the
expected numbers and a tolerance per number; the checks below are the tolerances of the
reference's own notes: closed forms to 1e-9 relative, distribution quantiles to 1e-8,
p-values to 1e-8, REML fits to 1e-6, the identity CCC = soft kappa to 1e-10.
"""

from __future__ import annotations

import gzip
import json
import math
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import qwkit

DATA = Path(__file__).parents[1] / "data" / "breadth_reference_r.json.gz"
REL_ABS = {
    "exact": (1e-9, 1e-12),
    "dist": (1e-8, 1e-12),
    "p": (1e-8, 1e-15),
    "reml": (1e-6, 1e-9),
    "identity": (1e-10, 1e-12),
}


@cache
def _reference() -> dict:
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        return json.load(f)


def _ratings(name: str) -> np.ndarray:
    ds = _reference()["datasets"][name]
    if "pair_counts" in ds:  # n × 2 data kept as their table of pairs
        table = np.asarray(ds["pair_counts"])
        k = table.shape[0]
        cells = np.repeat(np.arange(k * k), table.ravel())
        return np.column_stack(np.divmod(cells, k)).astype(float) + ds["first"]
    return np.array([[np.nan if v is None else v for v in row] for row in ds["ratings"]])


def _call(case: dict) -> dict:
    """The numbers the case checks, from the call it names."""
    q = case["qwkit"]
    fn = q["fn"]
    x = _ratings(case["dataset"]) if case["dataset"] else None
    if fn == "icc":
        res = qwkit.icc(x, form=q["form"], confidence_level=q["confidence_level"])
        low, high = res.confidence_interval()
        return {"statistic": res.statistic, "ci_low": low, "ci_high": high, "pvalue": res.pvalue}
    if fn == "concordance_correlation":
        res = qwkit.concordance_correlation(  # R drops the incomplete pairs: omit
            x[:, 0], x[:, 1], confidence_level=q["confidence_level"], nan_policy="omit"
        )
        low, high = res.confidence_interval()
        return {"statistic": res.statistic, "ci_low": low, "ci_high": high}
    if fn == "ccc_identity":  # CCC with divisor n is the soft (quadratic) kappa
        a, b = x[:, 0], x[:, 1]
        return {
            "pair": (
                qwkit.concordance_correlation(a, b).statistic,
                qwkit.soft_kappa_score(a, b),
            )
        }
    if fn in ("agreement_test", "benchmark"):
        res = qwkit.agreement_test(
            x, coefficient=q["coefficient"], weights=q["weights"], labels=q["labels"]
        )
        if fn == "benchmark":
            return {"label": str(res.benchmark(scale=q["scale"]))}
        return {"statistic": res.statistic, "standard_error": res.standard_error}
    if fn == "category_kappas":
        res = qwkit.category_kappas(x)
        return {"kappas": {"labels": res.labels.tolist(), "values": res.statistic.tolist()}}
    if fn == "marginal_homogeneity_test":
        res = qwkit.marginal_homogeneity_test(x[:, 0], x[:, 1], method=q["method"])
        return {"statistic": res.statistic, "df": res.df, "pvalue": res.pvalue}
    if fn == "kendall_w":
        res = qwkit.kendall_w(x, correct_ties=q["correct_ties"])
        return {"statistic": res.statistic, "pvalue": res.pvalue}
    if fn == "weight_matrix":
        return {"agreement_matrix": qwkit.weight_matrix(q["n_classes"], q["weights"])}
    raise AssertionError(f"unknown call {fn!r}")


def _close(got: float, want: float, tol: str) -> bool:
    rel, tiny = REL_ABS[tol]
    return abs(got - want) <= rel * max(abs(got), abs(want)) + tiny


def _label(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


def _check(case: dict, got: dict) -> None:
    want = case["expected"]
    for key, tol in case["tol"].items():
        if tol == "identity":
            a, b = got["pair"]
            assert _close(a, b, tol), (a, b)
        elif tol == "round2":
            assert round(got[key], 2) == want[key]
        elif tol == "label":
            assert _label(got[key]) == _label(want[key])
        elif tol == "int":
            assert int(got[key]) == want[key]
        elif tol == "matrix":
            w = np.asarray(got[key], dtype=float)
            assert np.all(w >= 0) and np.all(np.diag(w) == 0)
            assert np.max(np.abs((1 - w / w.max()) - np.asarray(want[key]))) <= 1e-12
        elif key == "kappas":
            assert got[key]["labels"] == want[key]["labels"]
            assert len(got[key]["values"]) == len(want[key]["values"])
            for a, b in zip(got[key]["values"], want[key]["values"], strict=True):
                assert _close(a, b, tol), (a, b)
        else:
            assert _close(got[key], want[key], tol), (key, got[key], want[key])


def _cases(group: str) -> list[dict]:
    return [c for c in _reference()["cases"] if c["group"] == group]


GROUPS = {
    "icc": 234,
    "icc-published": 6,
    "icc-missing": 108,
    "ccc": 32,
    "ccc-identity": 27,
    "ccc-missing": 4,
    "percent": 81,
    "scott": 60,
    "category": 18,
    "marginal": 33,
    "kendall": 28,
    "benchmark": 108,
    "weights-matrix": 27,
    "weights-agreement": 180,
}


def test_every_case_is_run():
    assert sum(GROUPS.values()) == len(_reference()["cases"]) == 946
    for group, count in GROUPS.items():
        assert len(_cases(group)) == count, group


@pytest.mark.parametrize("group", list(GROUPS))
def test_group(group):
    failures = []
    for case in _cases(group):
        with warnings.catch_warnings():
            # tiny random samples: a degenerate interval or a scale note is expected
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            warnings.simplefilter("ignore", qwkit.ScaleWarning)
            got = _call(case)
        try:
            _check(case, got)
        except AssertionError as exc:
            failures.append(f"{case['id']}: {exc}")
    assert not failures, "\n".join(failures[:20])


def test_the_published_shrout_fleiss_values():
    # Shrout & Fleiss (1979), Psychological Bulletin 86:420-428, Table 4 (two decimals)
    # for their Table 2 (6 targets x 4 judges): ICC(1,1) .17, ICC(2,1) .29, ICC(3,1) .71,
    # ICC(1,4) .44, ICC(2,4) .62, ICC(3,4) .91.
    sf = _ratings("psych_sf")
    published = {"1,1": 0.17, "A,1": 0.29, "C,1": 0.71, "1,k": 0.44, "A,k": 0.62, "C,k": 0.91}
    for form, value in published.items():
        assert round(qwkit.icc(sf, form=form).statistic, 2) == value
    assert not math.isnan(qwkit.icc(sf, form="A,1").pvalue)
