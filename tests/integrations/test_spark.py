"""qwkit.spark on a local Spark (one core, one session for the module): every result
equals the in-memory one, to the last bit; the ``pyspark.ml`` stages in a pipeline and a
``CrossValidator``."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pyarrow as pa
import pytest
from engine_cases import (
    ITEM_ORDER_RTOL,
    SEED,
    cases,
    expected_by_group,
    in_memory_agreement,
    long_ratings,
    results_equal,
    same,
)

import qwkit
from qwkit._integrations import _sql_engine

CASES = {c.name: c for c in cases(n=200)}


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.fail(
            "Spark needs a Java runtime (17 or 21), and none is on PATH or in JAVA_HOME: "
            "`make test` installs openjdk-17-jre-headless; or set JAVA_HOME."
        )
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .appName("qwkit-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        # tiny data: compiling costs more than it saves (C1 only, no whole-stage codegen)
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.codegen.wholeStage", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("FATAL")
    return session  # left running: the doctests of qwkit.spark and docs/ reuse it


@pytest.fixture(scope="module")
def qs(spark):
    import qwkit.spark

    return qwkit.spark


def frame(spark, table: pa.Table):
    return spark.createDataFrame(table)


@pytest.mark.parametrize("name", list(CASES))
def test_kappa_score_by_group(spark, qs, name):
    case = CASES[name]
    got = qs.kappa_score(
        frame(spark, case.table()), "a", "b", weights=case.weights, labels=case.labels, by="g"
    )
    assert same(got, expected_by_group(case, qwkit.kappa_score))


@pytest.mark.parametrize("name", ["short", "text", "matrix"])
def test_kappa_test_and_confusion_matrix(spark, qs, name):
    case = CASES[name]
    df = frame(spark, case.table())
    got = qs.kappa_test(df, "a", "b", weights=case.weights, labels=case.labels, by="g")
    want = expected_by_group(case, qwkit.kappa_test)
    assert got.keys() == want.keys() and all(results_equal(got[k], want[k]) for k in want)
    table = qs.confusion_matrix(df, "a", "b", labels=case.labels)
    assert same(table, qwkit.confusion_matrix(case.a, case.b, labels=case.labels))


@pytest.mark.parametrize("ansi", ["true", "false"])
@pytest.mark.parametrize("name", ["wide", "beyond-2**53", "short"])
def test_five_sums(spark, qs, monkeypatch, name, ansi):
    """Beyond the cap, the five sums: 64-bit sums (with ANSI mode an overflow stops the
    query; without, each sum is tried), or the DECIMAL(38) limbs when one overflows
    (ratings up to 2**63)."""
    monkeypatch.setattr(_sql_engine, "PAIR_CAP", 4)
    case = CASES[name]
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        got = qs.kappa_score(frame(spark, case.table()), "a", "b", by="g")
    finally:
        spark.conf.set("spark.sql.ansi.enabled", before)
    assert same(got, expected_by_group(case, qwkit.kappa_score))


def test_codes_warn_as_in_memory(spark, qs, monkeypatch):
    monkeypatch.setattr(_sql_engine, "PAIR_CAP", 4)
    a = np.array([1, 2, 3, 4, 5, 99, 2, 3] * 5)
    b = np.array([1, 2, 3, 4, 5, 2, 99, 3] * 5)
    with pytest.warns(qwkit.ScaleWarning) as memory:
        want = qwkit.kappa_score(a, b)
    with pytest.warns(qwkit.ScaleWarning) as engine:  # the sums, then their sketch
        got = qs.kappa_score(frame(spark, pa.table({"a": a, "b": b})), "a", "b")
    assert same(got, want)
    assert [str(w.message) for w in engine] == [str(w.message) for w in memory]


def test_counts_and_missing(spark, qs):
    table = pa.table({"a": [1, 2, None, 3, 2], "b": [1, 2, 2, 3, 1], "c": [2, 1, 1, 3, 5]})
    df = frame(spark, table)
    with pytest.raises(qwkit.QwkitError, match="`y1` has 1 missing value") as info:
        qs.kappa_score(df, "a", "b")
    assert info.value.parameter == "y1"
    got = qs.kappa_score(df, "a", "b", counts="c", nan_policy="omit")
    assert same(got, qwkit.kappa_score([1, 2, 3, 2], [1, 2, 3, 1], counts=[2, 1, 3, 5]))


def test_optimize_thresholds(spark, qs):
    rng = np.random.default_rng(SEED)
    y = rng.integers(0, 5, 400)
    score = np.round(y + rng.normal(0, 0.8, 400), 2)
    df = frame(spark, pa.table({"y": y, "s": score}))
    got = qs.optimize_thresholds(df, "y", "s")
    want = qwkit.optimize_thresholds(y, score)
    assert same(got.thresholds, want.thresholds) and same(got.statistic, want.statistic)


@pytest.mark.parametrize("coefficient", ["fleiss", "conger", "gwet"])
def test_agreement(spark, qs, coefficient):
    items, raters, values, group = long_ratings(n_items=120)
    df = frame(spark, pa.table({"item": items, "rater": raters, "y": values, "g": group}))
    got = qs.agreement_test(df, "item", "rater", "y", coefficient=coefficient, by="g")
    for k, res in got.items():
        rows = group == k
        want = in_memory_agreement(
            items[rows], raters[rows], values[rows], qwkit.agreement_test, coefficient=coefficient
        )
        assert same(res, want, ITEM_ORDER_RTOL)


def test_bad_input(spark, qs):
    df = frame(spark, pa.table({"a": ["x", "y"], "b": ["x", "x"], "d": [1.5, 2.0]}))
    with pytest.raises(qwkit.QwkitError, match="pass `labels`"):
        qs.kappa_score(df, "a", "b")
    with pytest.raises(qwkit.QwkitError, match=r"`y1` must hold integer ratings; it holds 1\.5"):
        qs.kappa_score(df, "d", "d")
    with pytest.raises(qwkit.QwkitTypeError, match="`data` must be a Spark DataFrame"):
        qs.kappa_score(pa.table({"a": [1]}), "a", "a")
    assert spark.catalog.listTables() == []  # the temporary views are dropped


class TestML:
    def _data(self, spark, n=300):
        """Ordinal ratings 1..8 (eight risk classes, as the Prudential competition's)
        driven by two features: simulated."""
        rng = np.random.default_rng(SEED)
        x = rng.normal(size=(n, 2))
        latent = 1.2 * x[:, 0] - 0.8 * x[:, 1] + rng.normal(0, 0.7, n)
        y = np.clip(np.round(latent * 1.5 + 4.5), 1, 8).astype(np.int64)
        return frame(spark, pa.table({"x1": x[:, 0], "x2": x[:, 1], "label": y})), x, y

    # pyspark's CrossValidator leaves its thread pool to the garbage collector
    @pytest.mark.filterwarnings("ignore:unclosed running multiprocessing pool:ResourceWarning")
    def test_rounder_and_evaluator_in_a_cross_validator(self, spark, qs):
        from pyspark.ml import Pipeline
        from pyspark.ml.feature import VectorAssembler
        from pyspark.ml.regression import LinearRegression
        from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

        df, _, _ = self._data(spark)
        regression = LinearRegression(featuresCol="features", labelCol="label")
        rounder = qs.OptimalRounder(labelCol="label", inputCol="prediction", outputCol="risk")
        pipeline = Pipeline(
            stages=[
                VectorAssembler(inputCols=["x1", "x2"], outputCol="features"),
                regression,
                rounder,
            ]
        )
        evaluator = qs.KappaEvaluator(
            labelCol="label", predictionCol="risk", labels=list(range(1, 9))
        )
        grid = ParamGridBuilder().addGrid(regression.regParam, [0.0, 10.0]).build()
        cv = CrossValidator(
            estimator=pipeline, estimatorParamMaps=grid, evaluator=evaluator, numFolds=2, seed=7
        )
        model = cv.fit(df)
        assert model.avgMetrics[0] > model.avgMetrics[1]  # heavy ridge shrinks the scores
        fitted = model.bestModel.stages[-1]
        scored = fitted.transform(
            model.bestModel.stages[1].transform(model.bestModel.stages[0].transform(df))
        )
        rows = scored.select("label", "prediction", "risk").collect()
        scores = np.array([r.prediction for r in rows])
        truth = np.array([r.label for r in rows])
        want = qwkit.optimize_thresholds(truth, scores)
        assert same(np.array(fitted.getThresholds()), want.thresholds)
        risk = np.array([r.risk for r in rows])
        assert np.array_equal(
            risk, qwkit.apply_thresholds(scores, want.thresholds, labels=want.labels)
        )
        assert same(
            evaluator.evaluate(scored), qwkit.kappa_score(truth, risk, labels=list(range(1, 9)))
        )

    def test_save_and_load(self, spark, qs, tmp_path):
        evaluator = qs.KappaEvaluator(predictionCol="risk", weights="linear", labels=[1, 2, 3])
        evaluator.save(str(tmp_path / "evaluator"))
        loaded = qs.KappaEvaluator.load(str(tmp_path / "evaluator"))
        assert loaded.getWeights() == "linear" and loaded.getLabels() == [1, 2, 3]
        model = qs.OptimalRounderModel(thresholds=[0.5, 1.5], classes=[0, 1, 2], outputCol="r")
        model.save(str(tmp_path / "rounder"))
        again = qs.OptimalRounderModel.load(str(tmp_path / "rounder"))
        assert again.getThresholds() == [0.5, 1.5] and again.getClasses() == [0, 1, 2]
        df = frame(spark, pa.table({"prediction": [0.2, 0.5, 0.7, None, float("nan"), 9.0]}))
        assert [r.r for r in again.transform(df).collect()] == [0, 0, 1, None, None, 2]
