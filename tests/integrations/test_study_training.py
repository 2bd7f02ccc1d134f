"""benchmarks/study_training.py on a tiny configuration: the protocol, end to end.

The study's out-of-fold cut points must be OptimalRounder's (same inner splits), every
row of the tables must be filled from held-out predictions of every item, and the
outputs (Markdown, figure, JSON, the block of docs/training.md) must be written.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pytest

import qwkit
from qwkit.sklearn import KappaRegressor, OptimalRounder

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def study():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield _load("study_training")
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def tiny(study):
    return replace(
        study.FULL,
        n_splits=2,
        n_repeats=2,
        inner_splits=2,
        subsample=240,
        mlp_steps=10,
        n_resamples=99,
        optimism_refits=10,
    )


def _first_fold(study, config):
    X, y, scale = study.load("red", config)
    _, test, fold = next(study.folds(X, y, scale, config))
    return y, test, fold


class TestStudyTraining:
    def test_strata_merge_rare_extremes(self, study):
        y = np.array([3] * 2 + [4] * 10 + [5] * 10 + [8] * 1 + [9] * 1)
        assert study.strata(y, 5).tolist() == [4] * 12 + [5] * 10 + [5] * 2

    @pytest.mark.parametrize("family", ["lgb-se", "kappa-regression"])
    def test_cut_points_are_optimal_rounders(self, study, tiny, family):
        # the study's "→ cut points" equals OptimalRounder with the same inner splits
        # enough items for LightGBM's default leaves (20 items) to split in every fit
        _, _, fold = _first_fold(study, replace(tiny, subsample=400))
        runner, fit = study.families(tiny)[family]
        decoded, _, extra = runner(fold, fit)
        estimator = (
            lgb.LGBMRegressor(n_jobs=1, verbose=-1) if family == "lgb-se" else KappaRegressor()
        )
        rounder = OptimalRounder(estimator, labels=fold.scale, cv=list(fold.inner))
        rounder.fit(fold.X_train, fold.y_train)
        np.testing.assert_array_equal(decoded["cut"], rounder.predict(fold.X_test))
        # cut points are invariant to kappa_rescale's increasing affine map
        assert qwkit.kappa_rescale(fold.y_train, extra["oof"]).slope > 0
        np.testing.assert_array_equal(decoded["rescale-cut"], decoded["cut"])

    def test_end_to_end(self, study, tiny, tmp_path):
        import _study_report as report

        results = {"red": study.study("red", tiny, progress=lambda _: None)}
        y = results["red"]["y"]
        for row in report.ROWS:
            pooled = results["red"]["preds"][row]
            assert pooled.shape == (tiny.n_repeats, len(y))
            assert np.isin(pooled, results["red"]["scale"]).all()  # every item predicted
        with warnings.catch_warnings():
            # models of a few steps on 120 wines may predict one class in a repetition,
            # where kappa_test's z-test (unused here) is undefined
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            summary = report.summarize(results, tiny)
        rows = summary["red"]["rows"]
        assert rows[report.BASELINE]["identical"] and rows[report.BASELINE]["delta"] == 0.0
        baseline = results["red"]["preds"][report.BASELINE][0]
        kappa = qwkit.kappa_score(y, baseline, labels=results["red"]["scale"])
        assert rows[report.BASELINE]["repetitions"][0]["qwk"] == kappa
        tested = [r for r in rows.values() if r["pvalue"] is not None]
        assert summary["n_tests"] == len(tested) > 0
        assert all(r["pvalue"] <= r["pvalue_holm"] <= 1 for r in tested)
        assert len(summary["red"]["optimism"]) == tiny.n_splits * tiny.n_repeats
        compared = summary["red"]["comparisons"]
        assert len(compared) == len(report.COMPARISONS)
        for (_, _, a, b), c in zip(report.COMPARISONS, compared, strict=True):
            delta = [
                rows[a]["repetitions"][r]["qwk"] - rows[b]["repetitions"][r]["qwk"]
                for r in range(tiny.n_repeats)
            ]
            assert c["delta"] == pytest.approx(np.mean(delta), abs=1e-12)
        # the test's per-fold differences: every outer test fold of every repetition, each
        # item in exactly one fold per repetition, scored on that fold's items alone
        folds = results["red"]["folds"]
        assert folds.shape == (tiny.n_repeats, len(y))
        assert all(np.bincount(f).min() > 0 and len(np.bincount(f)) == tiny.n_splits for f in folds)
        a, b = report.COMPARISONS[0][2:]
        pa, pb = results["red"]["preds"][a], results["red"]["preds"][b]
        scale = results["red"]["scale"]
        expected = [
            qwkit.kappa_score(y[f == k], pa[r, f == k], labels=scale)
            - qwkit.kappa_score(y[f == k], pb[r, f == k], labels=scale)
            for r, f in enumerate(folds)
            for k in range(tiny.n_splits)
        ]
        np.testing.assert_allclose(compared[0]["folds"], expected, rtol=0, atol=1e-15)
        assert compared[0]["df"] == tiny.n_splits * tiny.n_repeats - 1

        machine = report.machine_info() | {"wall_minutes": 0.1, "load_end": [], "warnings": []}
        text = report.markdown(summary, tiny, machine, "python benchmarks/study_training.py")
        assert all(report.row_name(row) in text for row in report.ROWS)
        assert all(text_ in text for _, text_, _, _ in report.COMPARISONS)
        doc = tmp_path / "doc.md"
        doc.write_text(f"before\n{report.BEGIN}\nold\n{report.END}\nafter\n", encoding="utf-8")
        report.update_block(doc, text)
        assert doc.read_text(encoding="utf-8") == (
            f"before\n{report.BEGIN}\n{text}\n{report.END}\nafter\n"
        )
        report.plot(summary, tmp_path / "figure.png")
        assert (tmp_path / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        report.write_json(summary, tiny, machine, tmp_path / "results.json")
        payload = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
        assert payload["config"]["n_splits"] == 2

    def test_corrected_t_test_is_a_t_test_with_the_inflated_variance(self, study):
        # Nadeau & Bengio's correction multiplies the variance of the mean by
        # (1/J + 1/(K - 1)) / (1/J): the plain one-sample t-test of the differences spread
        # about their mean by the square root of that factor (scipy's test as the oracle)
        import _study_report as report
        from scipy import stats

        d = np.random.default_rng(20261121).normal(0.01, 0.02, size=15)
        mean, se, p = report.corrected_t_test(d, n_splits=5)
        spread = np.sqrt((1 / 15 + 1 / 4) / (1 / 15))
        oracle = stats.ttest_1samp(d.mean() + (d - d.mean()) * spread, 0.0)
        assert mean == pytest.approx(d.mean(), abs=1e-15)
        assert se == pytest.approx(np.sqrt((1 / 15 + 1 / 4) * d.var(ddof=1)), rel=1e-12)
        assert p == pytest.approx(oracle.pvalue, rel=1e-10)
        assert report.corrected_t_test(np.zeros(6), n_splits=3) == (0.0, 0.0, 1.0)

    def test_committed_docs_match_committed_results(self, study):
        # docs/training.md's block and benchmarks/study_training.json come from one run
        import _study_report as report

        root = BENCHMARKS.parent
        payload = json.loads((BENCHMARKS / "study_training.json").read_text(encoding="utf-8"))
        doc = (root / "docs" / "training.md").read_text(encoding="utf-8")
        block = doc.split(report.BEGIN)[1].split(report.END)[0]
        tables = block.split("**Red wine**")[1].split("**White wine**")
        for color, table in zip(("red", "white"), tables, strict=True):
            rows = payload["summary"][color]["rows"]
            cells = {}
            for line in table.splitlines():
                if line.startswith("| ") and " | " in line:
                    name, qwk = line[2:].split(" | ")[:2]
                    for note in ("**", " (baseline)", " (identical to → cut points)"):
                        name = name.replace(note, "")
                    cells[name] = qwk
            for row in report.ROWS:
                name = report.row_name(row)
                assert cells[name] == f"{rows[' / '.join(row)]['qwk']:.3f}", (color, name)
        assert (root / "docs" / "study_training.png").is_file()
