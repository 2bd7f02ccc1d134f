"""Every frozen reference case of R irrCAC, R irr and the ``krippendorff`` package, through
both layouts of the ratings: the items × raters array and the sparse table of
``ratings_from_long`` (a count table: its ratings, one per rater slot).

``tests/data/agreement_reference_r.json.xz`` holds the 8,799 cases (of 9,868) where qwkit
agrees with the reference, with the data sets they use; its ``provenance`` says how it was
extracted and ``tolerance`` the tolerances (those of the frozen set). Seven cases of
Light's kappa, where R propagates the NaN of a pair of raters whose kappa is undefined, are
checked against qwkit's rule instead (docs/agreement.md §4): the mean of the pairs' kappas
that exist, each ``kappa_score`` of the pair on its common items.
"""

from __future__ import annotations

import json
import lzma
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import qwkit

DATA = Path(__file__).parents[1] / "data"
with lzma.open(DATA / "agreement_reference_r.json.xz", "rt") as _fh:
    REFERENCE = json.load(_fh)
COLUMNS = REFERENCE["columns"]
CASES = [dict(zip(COLUMNS, row, strict=True)) for row in REFERENCE["cases"]]
BY_DATASET: dict[str, list[dict]] = {}
for _case in CASES:
    BY_DATASET.setdefault(_case["dataset"], []).append(_case)


def _close(got, want, key) -> bool:
    """The frozen set's tolerance: |a − b| ≤ 1e-9·max(|a|, |b|) + 1e-12 (1e-14 for
    p-values); None expects nan."""
    if want is None:
        return got is None or (isinstance(got, float) and math.isnan(got))
    if got is None or math.isnan(got):
        return False
    tol = 1e-9 * max(abs(got), abs(want)) + (1e-14 if key.startswith("pvalue") else 1e-12)
    return abs(got - want) <= tol


def _z(statistic, se):
    return statistic / se if se > 0 else math.nan


def _ratings(ds):
    rows = ds["ratings"]
    if ds["kind"] == "text":
        return np.array(rows, dtype=object)
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def _table(ds, labels):
    """The sparse table of a data set: each rating once (a count table: item i's k-th
    rating by rater k), and the labels of a count table's columns."""
    items, raters, values = [], [], []
    if "counts" in ds:
        counts = np.array(ds["counts"])
        scale = list(labels) if labels is not None else list(range(1, counts.shape[1] + 1))
        for i, row in enumerate(counts):
            slot = 0
            for c, n in enumerate(row):
                for _ in range(int(n)):
                    items.append(i)
                    raters.append(slot)
                    values.append(scale[c])
                    slot += 1
        return qwkit.ratings_from_long(items, raters, values), scale
    x = _ratings(ds)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            items.append(i)
            raters.append(j)
            values.append(x[i, j])
    values = np.array(values, dtype=object if ds["kind"] == "text" else float)
    return qwkit.ratings_from_long(items, raters, values), None


def _run(case, ds, data, sparse_labels):
    fn = case["fn"]
    weights = case["weights"]
    if isinstance(weights, dict):
        weights = np.array(ds["matrices"][weights["matrix"]])
    kw = {"weights": weights, "labels": case["labels"]}
    if fn == "kappa_test":
        res = qwkit.kappa_test(data[:, 0], data[:, 1], **kw)
        return {
            "statistic": res.statistic,
            "standard_error": res.standard_error,
            "z_null": _z(res.statistic, res.standard_error_null),
        }
    kw["coefficient"] = case["coefficient"]
    counts = fn == "agreement_test_from_counts"
    if sparse_labels is not None:  # the table of a count table's ratings
        kw["labels"] = kw["labels"] if kw["labels"] is not None else sparse_labels
        fn = "agreement_test"
    if fn == "agreement_score":
        return {"statistic": qwkit.agreement_score(data, **kw)}
    if case["n_population"] is not None:
        kw["n_population"] = case["n_population"]
    test = qwkit.agreement_test_from_counts if counts and sparse_labels is None else None
    test = test or qwkit.agreement_test
    res = test(data, **kw)
    out = {
        "statistic": res.statistic,
        "standard_error": res.standard_error,
        "pvalue_two_sided": res.pvalue,
        "z_null": _z(res.statistic, res.standard_error_null),
    }
    expected = case["expected"]
    if "pvalue_greater" in expected:
        out["pvalue_greater"] = test(data, alternative="greater", **kw).pvalue
    if "ci_low" in expected:
        out["ci_low"], out["ci_high"] = res.confidence_interval(case["confidence_level"] or 0.95)
    return out


def _light_rule(case, ds, x):
    """Light's kappa as qwkit defines it: the mean of the pairs' ``kappa_score`` on their
    common items, over pairs that share two or more items and whose kappa exists."""
    weights = case["weights"]
    if isinstance(weights, dict):
        weights = np.array(ds["matrices"][weights["matrix"]])
    kappas = []
    for g in range(x.shape[1]):
        for h in range(g + 1, x.shape[1]):
            both = ~np.isnan(x[:, g]) & ~np.isnan(x[:, h])
            if both.sum() < 2:
                continue
            labels = case["labels"] or sorted(set(x[~np.isnan(x)].tolist()))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", qwkit.UndefinedKappaWarning)
                value = qwkit.kappa_score(x[both, g], x[both, h], weights=weights, labels=labels)
            if not math.isnan(value):
                kappas.append(value)
    return float(np.mean(kappas))


@pytest.mark.parametrize("dataset", sorted(BY_DATASET))
def test_every_reference_case_in_both_layouts(dataset):
    cases = BY_DATASET[dataset]
    ds = REFERENCE["datasets"][dataset]
    dense = np.array(ds["counts"]) if "counts" in ds else _ratings(ds)
    tables = {}
    failures = []
    for case in cases:
        layouts = [("dense", dense, None)]
        if case["fn"] != "kappa_test":  # two raters' table: no many-rater layout
            key = json.dumps(case["labels"]) if "counts" in ds else ""
            if key not in tables:
                tables[key] = _table(ds, case["labels"])
            table, scale = tables[key]
            layouts.append(("sparse", table, scale))
        for layout, data, scale in layouts:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = _run(case, ds, data, scale)
            expected = case["expected"]
            if expected.get("light_rule"):
                want = _light_rule(case, ds, dense)
                if not _close(got["statistic"], want, "statistic"):
                    failures.append((case["id"], layout, "light rule", got["statistic"], want))
                continue
            for key, want in expected.items():
                if not _close(got.get(key), want, key):
                    failures.append((case["id"], layout, key, got.get(key), want))
    assert not failures, failures[:10]


def test_the_reference_set_is_whole():
    # every case kept, each with a known function and a data set
    assert len(CASES) == 8799
    assert {c["fn"] for c in CASES} == {
        "agreement_test",
        "agreement_score",
        "agreement_test_from_counts",
        "kappa_test",
    }
    assert sum(1 for c in CASES if c["expected"].get("light_rule")) == 7
