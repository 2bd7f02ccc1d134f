"""Weighted kappa, its inference, agreement and exact cut points on Spark DataFrames.

Every function here mirrors the in-memory function of the same name and returns the same
result **to the last bit**: Spark aggregates the rows into qwkit's sufficient state — the
distinct pairs of ratings with their counts (the K×K table, sparse), or for unweighted
quadratic kappa of a wide integer scale the five exact integer sums, or the distinct rating
profiles of many raters — the state is collected to the driver, and qwkit
finalizes it with the code the in-memory functions run (``qwkit.sql`` writes the
queries; ``docs/engines.md`` says when to use which engine). ``by`` names columns whose
groups each get their own result (a dict keyed by the group's value).

For ``pyspark.ml``: :class:`KappaEvaluator` (weighted kappa as the metric of
``CrossValidator`` and ``TrainValidationSplit``) and :class:`OptimalRounder`, a pipeline
stage that fits the exact kappa-optimal cut points (:func:`qwkit.optimize_thresholds`)
to a regressor's scores and rounds them — the ordinal regression of insurance risk
classes (the Prudential competition), essay scores or wine quality, trained on Spark.

This module imports pyspark; ``import qwkit`` never does.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

_SPARK = {"feature": "qwkit.spark", "package": "pyspark", "extra": "spark"}
pyspark = require("pyspark", minimum="3.5", **_SPARK)
require("pyspark.sql", **_SPARK)
require("pyspark.ml", **_SPARK)

from pyspark import keyword_only
from pyspark.errors import ArithmeticException
from pyspark.ml import Estimator, Model
from pyspark.ml.evaluation import Evaluator
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasInputCol, HasLabelCol, HasOutputCol, HasPredictionCol
from pyspark.ml.util import DefaultParamsReadable, DefaultParamsWritable
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from qwkit import AgreementTestResult, KappaTestResult, ThresholdResult
from qwkit._base._errors import QwkitTypeError
from qwkit._base._registry import Coefficient
from qwkit._base._weights import WeightsLike
from qwkit._integrations import _sql_engine as _e
from qwkit._integrations._sql_text import dialect_of

__all__ = [
    "KappaEvaluator",
    "OptimalRounder",
    "OptimalRounderModel",
    "agreement_score",
    "agreement_test",
    "confusion_matrix",
    "kappa_score",
    "kappa_test",
    "optimize_thresholds",
]

Alternative = Literal["two-sided", "greater", "less"]
NanPolicy = Literal["raise", "omit"]
By = str | Sequence[str] | None

_KINDS = {
    **dict.fromkeys(("byte", "short", "integer", "long"), _e.INTEGER),
    **dict.fromkeys(("float", "double"), _e.FLOAT),
    "decimal": _e.DECIMAL,
    **dict.fromkeys(("string", "varchar", "char"), _e.TEXT),
    "boolean": _e.BOOLEAN,
}


class _Engine:
    """The engine of one call: ``data`` as a temporary view of its session, dropped at
    the end."""

    def __init__(self, data):
        if not isinstance(data, DataFrame):
            raise QwkitTypeError(
                f"`data` must be a Spark DataFrame; got {type(data).__name__}. For data in "
                "memory, use the function of the same name in `qwkit`.",
                parameter="data",
            )
        self.data = data
        self.session = data.sparkSession
        self.view = f"qwkit_input_{uuid.uuid4().hex[:12]}"

    def __enter__(self) -> _e.Engine:
        self.data.createOrReplaceTempView(self.view)
        columns = {
            f.name: (_KINDS.get(f.dataType.typeName(), _e.OTHER), f.dataType.simpleString())
            for f in self.data.schema.fields
        }
        return _e.Engine(
            dialect=dialect_of("spark"),
            source=f"`{self.view}`",
            run=self._run,
            columns=columns,
            overflow=(ArithmeticException,),
            wraps=self.session.conf.get("spark.sql.ansi.enabled", "false").lower() != "true",
        )

    def _run(self, text: str) -> list:
        return [tuple(row) for row in self.session.sql(text).collect()]

    def __exit__(self, *exc) -> None:
        self.session.catalog.dropTempView(self.view)


_COMMON = """
    by : str or list of str, default=None
        Columns whose groups each get their own result: a dict keyed by the group's
        value (a tuple of values for several columns), in ascending order of the keys.
    nan_policy : {"raise", "omit"}, default="raise"
        A NULL (or NaN) rating, or count, is an error naming its column, as a missing
        rating is in memory; ``"omit"`` leaves such rows out (a group left with no item
        is an error, as no items are in memory).
"""


def kappa_score(
    data: DataFrame,
    y1: str,
    y2: str,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    counts: str | None = None,
    by: By = None,
    nan_policy: NanPolicy = "raise",
    replace_undefined_by: float = np.nan,
) -> float | dict:
    """Weighted kappa of two rating columns of a Spark DataFrame: :func:`qwkit.kappa_score`.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        The rows.
    y1, y2 : str
        The columns of the two raters' ratings (integers, whole-number floats, booleans,
        or text with ``labels``).
    weights, labels, replace_undefined_by
        As in :func:`qwkit.kappa_score`.
    counts : str, default=None
        An integer column: how many identical items each row stands for.
    {common}
    Returns
    -------
    float, or dict of float by group
        Exactly :func:`qwkit.kappa_score` of the same rows.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import qwkit.spark
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame(
    ...     [(4, 0), (4, 4), (3, 1), (4, 0), (4, 4), (0, 0), (1, 1), (1, 1), (2, 2), (1, 1)],
    ...     "actual long, pred long")
    >>> round(qwkit.spark.kappa_score(df, "actual", "pred"), 6)  # the Kaggle example
    0.318182
    """
    with _Engine(data) as engine:
        return _e.kappa_score(
            engine,
            y1,
            y2,
            weights=weights,
            labels=labels,
            counts=counts,
            by=by,
            nan_policy=nan_policy,
            replace=replace_undefined_by,
        )


def kappa_test(
    data: DataFrame,
    y1: str,
    y2: str,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    counts: str | None = None,
    alternative: Alternative = "two-sided",
    by: By = None,
    nan_policy: NanPolicy = "raise",
) -> KappaTestResult | dict:
    """Kappa with its standard errors, test and intervals, from the table Spark counts:
    :func:`qwkit.kappa_test` (every interval method works).

    Parameters
    ----------
    data, y1, y2, weights, labels, counts
        As in :func:`kappa_score`.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        As in :func:`qwkit.kappa_test`.
    {common}
    Returns
    -------
    KappaTestResult, or dict of them by group

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import qwkit.spark
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame([(1, 1), (2, 2), (3, 3), (3, 2), (2, 2), (1, 1), (2, 3),
    ...                             (3, 3)], "r1 long, r2 long")
    >>> res = qwkit.spark.kappa_test(df, "r1", "r2")
    >>> round(res.statistic, 6), res.n_items
    (0.794872, 8)
    """
    with _Engine(data) as engine:
        return _e.kappa_test(
            engine,
            y1,
            y2,
            weights=weights,
            labels=labels,
            counts=counts,
            by=by,
            nan_policy=nan_policy,
            alternative=alternative,
        )


def confusion_matrix(
    data: DataFrame,
    y1: str,
    y2: str,
    *,
    labels: ArrayLike | None = None,
    counts: str | None = None,
    by: By = None,
    nan_policy: NanPolicy = "raise",
) -> np.ndarray | dict:
    """The K×K table of two rating columns, counted by Spark: :func:`qwkit.confusion_matrix`.

    Parameters
    ----------
    data, y1, y2, labels, counts
        As in :func:`kappa_score`.
    {common}
    Returns
    -------
    ndarray of shape (K, K) of int64, or dict of them by group

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import qwkit.spark
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame([("low", "low"), ("high", "mid"), ("mid", "mid"),
    ...                             ("high", "high")], "a string, b string")
    >>> qwkit.spark.confusion_matrix(df, "a", "b", labels=["low", "mid", "high"])
    array([[1, 0, 0],
           [0, 1, 0],
           [0, 1, 1]])
    """
    with _Engine(data) as engine:
        return _e.confusion_matrix(
            engine, y1, y2, labels=labels, counts=counts, by=by, nan_policy=nan_policy
        )


def optimize_thresholds(
    data: DataFrame,
    y_true: str,
    y_score: str,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    counts: str | None = None,
    max_pairs: int = _e.MAX_PAIRS,
    by: By = None,
    nan_policy: NanPolicy = "raise",
) -> ThresholdResult | dict:
    """The exact kappa-optimal cut points of real-valued scores, from the distinct
    (true rating, score) pairs Spark counts: :func:`qwkit.optimize_thresholds`.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        The rows.
    y_true : str
        The column of the true ratings.
    y_score : str
        The column of the real-valued scores.
    weights, labels
        As in :func:`qwkit.optimize_thresholds`.
    counts : str, default=None
        An integer column: how many identical items each row stands for.
    max_pairs : int, default=10_000_000
        The distinct (true rating, score) pairs are collected to the driver (about 24
        bytes each); beyond this many the computation stops with an error: round the
        scores (the cut points then fall between the rounded values), or raise it.
    {common}
    Returns
    -------
    ThresholdResult, or dict of them by group

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import qwkit.spark
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame([(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8), (2, 0.9),
    ...                             (2, 1.7)], "y long, score double")
    >>> res = qwkit.spark.optimize_thresholds(df, "y", "score")
    >>> [round(float(t), 6) for t in res.thresholds]
    [0.6, 0.85]
    """
    with _Engine(data) as engine:
        return _e.optimize_thresholds(
            engine,
            y_true,
            y_score,
            weights=weights,
            labels=labels,
            counts=counts,
            by=by,
            nan_policy=nan_policy,
            max_pairs=max_pairs,
        )


_MANY = """
    data : pyspark.sql.DataFrame
        The ratings in long format, one row per rating.
    items, raters, values : str
        The columns of the item, the rater and the rating of each row (as
        :func:`qwkit.ratings_from_long`); a NULL (or NaN) rating is no rating.
    coefficient, weights, labels
        As in :func:`qwkit.agreement_score`.
    by : str or list of str, default=None
        Columns whose groups each get their own result (a dict keyed by the group).
"""


def agreement_score(
    data: DataFrame,
    items: str,
    raters: str,
    values: str,
    *,
    coefficient: Coefficient,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    by: By = None,
    replace_undefined_by: float = np.nan,
) -> float | dict:
    """Agreement among any number of raters, from a long table of ratings reduced by
    Spark: :func:`qwkit.agreement_score` of :func:`qwkit.ratings_from_long`.

    Spark checks the ratings (a NULL item or rater, two ratings of one item by one
    rater) and reduces the items to their distinct profiles — the list of (rater,
    rating) of an item — with how many items share each; the profiles are collected and
    the ratings they stand for rebuilt on the driver (memory in proportion to the
    ratings): the transfer is small when items repeat, not when they do not.

    Parameters
    ----------
    {many}
    replace_undefined_by : float, default=nan
        As in :func:`qwkit.agreement_score`.

    Returns
    -------
    float, or dict of float by group

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import qwkit.spark
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame([(1, "a", 1), (1, "b", 1), (2, "a", 2), (2, "b", 3),
    ...                             (3, "a", 3), (3, "b", 3)], "item long, rater string, y long")
    >>> round(qwkit.spark.agreement_score(df, "item", "rater", "y", coefficient="gwet",
    ...                                   weights="identity"), 6)
    0.52
    """
    with _Engine(data) as engine:
        return _e.agreement_score(
            engine,
            items,
            raters,
            values,
            coefficient=coefficient,
            weights=weights,
            labels=labels,
            by=by,
            replace=replace_undefined_by,
        )


def agreement_test(
    data: DataFrame,
    items: str,
    raters: str,
    values: str,
    *,
    coefficient: Coefficient,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    alternative: Alternative = "two-sided",
    n_population: float | None = None,
    by: By = None,
) -> AgreementTestResult | dict:
    """Agreement among any number of raters with its standard error, test and intervals,
    from a long table of ratings reduced by Spark: :func:`qwkit.agreement_test`.

    Parameters
    ----------
    {many}
    alternative, n_population
        As in :func:`qwkit.agreement_test`.

    Returns
    -------
    AgreementTestResult, or dict of them by group

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import qwkit.spark
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame([(1, "a", 1), (1, "b", 1), (2, "a", 2), (2, "b", 3),
    ...                             (3, "a", 3), (3, "b", 3)], "item long, rater string, y long")
    >>> res = qwkit.spark.agreement_test(df, "item", "rater", "y", coefficient="krippendorff")
    >>> round(res.statistic, 6), res.n_items
    (0.827586, 3)
    """
    with _Engine(data) as engine:
        return _e.agreement_test(
            engine,
            items,
            raters,
            values,
            coefficient=coefficient,
            weights=weights,
            labels=labels,
            by=by,
            alternative=alternative,
            n_population=n_population,
        )


for _f in (kappa_score, kappa_test, confusion_matrix, optimize_thresholds):
    _f.__doc__ = (_f.__doc__ or "").replace("    {common}\n", _COMMON.lstrip("\n"))
for _g in (agreement_score, agreement_test):
    _g.__doc__ = (_g.__doc__ or "").replace("    {many}\n", _MANY.lstrip("\n"))
del _f, _g


# ---------------------------------------------------------------------------- pyspark.ml


class _ScaleParams(Params):
    """The disagreement weights and the rating scale, as Spark ML parameters."""

    _input_kwargs: dict[str, Any]  # set by pyspark's @keyword_only
    weights: Param[Any] = Param(
        Params._dummy(),
        "weights",
        "disagreement weights: 'quadratic', 'linear', 'identity' (or a K × K list of lists)",
    )
    labels: Param[Any] = Param(
        Params._dummy(),
        "labels",
        "the ordered rating scale (None: every integer between the extreme ratings)",
    )

    def getWeights(self):
        return self.getOrDefault(self.weights)

    def getLabels(self):
        return self.getOrDefault(self.labels)


class KappaEvaluator(
    Evaluator,
    HasLabelCol,
    HasPredictionCol,
    _ScaleParams,
    DefaultParamsReadable,
    DefaultParamsWritable,
):
    """Weighted kappa of predicted classes as a ``pyspark.ml`` evaluator.

    ``evaluate(dataset)`` is :func:`kappa_score` of ``labelCol`` and ``predictionCol``
    (computed by Spark, the same bits as :func:`qwkit.kappa_score`); larger is better,
    so ``CrossValidator`` and ``TrainValidationSplit`` keep the model of the highest
    kappa. The predictions must be classes (integers, or whole-number doubles as Spark's
    classifiers give): for a regressor's real-valued scores put an
    :class:`OptimalRounder` after it in the pipeline.

    Parameters
    ----------
    labelCol : str, default="label"
        The true ratings.
    predictionCol : str, default="prediction"
        The predicted ratings.
    weights : {"quadratic", "linear", "identity"} or list of lists, default="quadratic"
        Disagreement weights (see :func:`qwkit.weight_matrix`).
    labels : list, default=None
        The ordered rating scale; None: every integer between the extreme ratings of
        the data evaluated (a fold may miss a class: pass ``labels`` to fix the scale).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from qwkit.spark import KappaEvaluator
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame([(1.0, 1.0), (2.0, 2.0), (3.0, 2.0), (3.0, 3.0)],
    ...                            "label double, prediction double")
    >>> round(KappaEvaluator().evaluate(df), 6)
    0.8
    """

    @keyword_only
    def __init__(
        self,
        *,
        labelCol: str = "label",
        predictionCol: str = "prediction",
        weights="quadratic",
        labels=None,
    ):
        super().__init__()
        self._setDefault(labelCol="label", predictionCol="prediction", weights="quadratic")
        self._setDefault(labels=None)
        self._set(**self._input_kwargs)

    @keyword_only
    def setParams(
        self,
        *,
        labelCol: str = "label",
        predictionCol: str = "prediction",
        weights="quadratic",
        labels=None,
    ) -> KappaEvaluator:
        return self._set(**self._input_kwargs)

    def _evaluate(self, dataset: DataFrame) -> float:
        score = kappa_score(
            dataset,
            self.getLabelCol(),
            self.getPredictionCol(),
            weights=self.getWeights(),
            labels=self.getLabels(),
        )
        return cast(float, score)  # no `by`: one kappa, not a dict of groups

    def isLargerBetter(self) -> bool:
        """True: a model of larger kappa is the better one."""
        return True


class _RounderParams(HasLabelCol, HasInputCol, HasOutputCol, _ScaleParams):
    maxPairs = Param(
        Params._dummy(),
        "maxPairs",
        "the most distinct (true rating, score) pairs collected to the driver",
        typeConverter=TypeConverters.toInt,
    )


class OptimalRounder(Estimator, _RounderParams, DefaultParamsReadable, DefaultParamsWritable):
    """A ``pyspark.ml`` stage that fits the exact kappa-optimal cut points to real-valued
    scores and rounds them to classes: :func:`qwkit.optimize_thresholds` as an estimator.

    Put it after a regressor in a ``Pipeline``: ``fit`` reads the true ratings
    (``labelCol``) and the regressor's scores (``inputCol``) of the training rows — the
    distinct (rating, score) pairs are counted by Spark and collected — and finds the
    cut points that maximize weighted kappa (the global optimum: the same thresholds, to
    the last bit, as in memory); the model's ``transform`` writes the class of each
    score to ``outputCol``. The cut points are fitted to the scores of the rows the
    regressor was trained on (in-sample); ``CrossValidator`` scores them on the rows
    held out.

    Parameters
    ----------
    labelCol : str, default="label"
        The true ratings.
    inputCol : str, default="prediction"
        The real-valued scores (a regressor's ``predictionCol``).
    outputCol : str, default="rounded"
        Where the model writes the classes.
    weights : {"quadratic", "linear", "identity"} or list of lists, default="quadratic"
        Disagreement weights.
    labels : list, default=None
        The ordered rating scale (None: every integer between the extreme ratings).
    maxPairs : int, default=10_000_000
        As ``max_pairs`` of :func:`optimize_thresholds`.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from qwkit.spark import OptimalRounder
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame([(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8), (2, 0.9),
    ...                             (2, 1.7)], "label long, prediction double")
    >>> model = OptimalRounder().fit(df)
    >>> [round(t, 6) for t in model.getThresholds()]
    [0.6, 0.85]
    >>> [r.rounded for r in model.transform(df).collect()]
    [0, 0, 0, 1, 2, 2]
    """

    @keyword_only
    def __init__(
        self,
        *,
        labelCol: str = "label",
        inputCol: str = "prediction",
        outputCol: str = "rounded",
        weights="quadratic",
        labels=None,
        maxPairs: int = _e.MAX_PAIRS,
    ):
        super().__init__()
        self._setDefault(labelCol="label", inputCol="prediction", outputCol="rounded")
        self._setDefault(weights="quadratic", labels=None, maxPairs=_e.MAX_PAIRS)
        self._set(**self._input_kwargs)

    @keyword_only
    def setParams(
        self,
        *,
        labelCol: str = "label",
        inputCol: str = "prediction",
        outputCol: str = "rounded",
        weights="quadratic",
        labels=None,
        maxPairs: int = _e.MAX_PAIRS,
    ) -> OptimalRounder:
        return self._set(**self._input_kwargs)

    def _fit(self, dataset: DataFrame) -> OptimalRounderModel:
        found = optimize_thresholds(
            dataset,
            self.getLabelCol(),
            self.getInputCol(),
            weights=self.getWeights(),
            labels=self.getLabels(),
            max_pairs=self.getOrDefault(self.maxPairs),
        )
        result = cast(ThresholdResult, found)  # no `by`: one fit, not a dict of groups
        model = OptimalRounderModel(
            inputCol=self.getInputCol(),
            outputCol=self.getOutputCol(),
            thresholds=[float(t) for t in result.thresholds],
            classes=[_python(v) for v in result.labels],
        )
        model.result = result
        return self._copyValues(model)


class OptimalRounderModel(
    Model, HasInputCol, HasOutputCol, DefaultParamsReadable, DefaultParamsWritable
):
    """The cut points an :class:`OptimalRounder` fitted: ``transform`` writes the class of
    each score of ``inputCol`` to ``outputCol`` — ``classes[j]`` where j is the number of
    cut points strictly below the score, as :func:`qwkit.apply_thresholds` (a NULL or NaN
    score gives NULL). ``result`` is the :class:`qwkit.ThresholdResult` of the fit
    (not saved with the model)."""

    _input_kwargs: dict[str, Any]  # set by pyspark's @keyword_only

    thresholds = Param(
        Params._dummy(),
        "thresholds",
        "the K − 1 cut points",
        typeConverter=TypeConverters.toListFloat,
    )
    classes: Param[Any] = Param(Params._dummy(), "classes", "the K classes, in order")

    @keyword_only
    def __init__(
        self,
        *,
        inputCol: str = "prediction",
        outputCol: str = "rounded",
        thresholds=None,
        classes=None,
    ):
        super().__init__()
        self._setDefault(inputCol="prediction", outputCol="rounded")
        self._set(**self._input_kwargs)
        self.result: ThresholdResult | None = None

    def getThresholds(self) -> list[float]:
        return self.getOrDefault(self.thresholds)

    def getClasses(self) -> list:
        return self.getOrDefault(self.classes)

    def _transform(self, dataset: DataFrame) -> DataFrame:
        score = F.col(self.getInputCol())
        classes = self.getClasses()
        expr = F.lit(classes[-1])
        for t, c in reversed(list(zip(self.getThresholds(), classes[:-1], strict=True))):
            expr = F.when(score <= F.lit(t), F.lit(c)).otherwise(expr)  # s ≤ t[j]: class j
        missing = score.isNull() | F.isnan(score.cast("double"))
        return dataset.withColumn(self.getOutputCol(), F.when(missing, F.lit(None)).otherwise(expr))


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


for _cls in (KappaEvaluator, OptimalRounder, OptimalRounderModel):
    _cls.__module__ = __name__
del _cls
