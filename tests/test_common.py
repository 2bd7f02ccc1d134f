"""The invariance suite, run over every metric (scikit-learn's ``test_common.py`` idea).

Each metric is a small adapter: data in, the numbers it returns out. Every invariance a
metric should have is checked on the same data sets: permutation of the items, sample
weights of ones equal none, integer ``counts`` equal repeated rows, zero weights equal
dropped rows, integer sample weights equal repeated rows (point estimates), containers
(list, ndarray, pandas, polars) give one answer, scaling a weight matrix changes nothing,
symmetric weights are symmetric in the raters, and streaming in chunks equals the whole.
A new metric joins by adding one adapter.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import polars as pl
import pytest

import qwkit
from helpers import REML_ORDER_RTOL
from qwkit._base._registry import COEFFICIENTS as REGISTRY

K = 5


@dataclass
class Data:
    y1: np.ndarray  # truth / rater 1, integers 0..K-1
    y2: np.ndarray  # prediction / rater 2
    y3: np.ndarray  # a second prediction
    score: np.ndarray  # real-valued scores
    X: np.ndarray  # features

    def take(self, idx) -> Data:
        return Data(*(np.asarray(v)[idx] for v in (self.y1, self.y2, self.y3, self.score, self.X)))

    def map(self, fn) -> Data:
        """The same data in another container (the feature matrix stays an array)."""
        return Data(fn(self.y1), fn(self.y2), fn(self.y3), fn(self.score), self.X)


def make_data(seed: int, n: int = 48) -> Data:
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=n)
    X = np.column_stack([latent + rng.normal(0, 0.7, n), rng.normal(size=n)])
    y1 = np.clip(np.round(latent * 1.3 + 2), 0, K - 1).astype(np.int64)
    y2 = np.clip(y1 + rng.integers(-1, 2, n), 0, K - 1)
    y3 = np.clip(y1 + rng.integers(-2, 3, n), 0, K - 1)
    score = latent * 1.3 + 2 + rng.normal(0, 0.6, n)
    return Data(y1, y2, y3, score, X)


@dataclass
class Metric:
    name: str
    fn: Callable  # fn(data, **kwargs) -> tuple of numbers / arrays
    weights: bool = False  # takes `weights` (disagreement weights)
    symmetric: bool = False  # symmetric in (y1, y2) for symmetric weights
    exact_counts: bool = True  # counts = repeated rows to the last bit
    inference: bool = False  # its uncertainty differs between counts and survey weights
    rtol: float = 1e-12


def _test(res):
    return (res.statistic, res.standard_error, res.standard_error_null, res.pvalue)


def _accumulate(d: Data, **kw):
    """Three unequal chunks, streamed: must equal the whole."""
    acc = qwkit.KappaAccumulator(range(K), weights=kw.pop("weights", "quadratic"))
    sw, counts = kw.pop("sample_weight", None), kw.pop("counts", None)
    for part in _chunks(len(d.y1)):
        acc.update(
            np.asarray(d.y1)[part],
            np.asarray(d.y2)[part],
            None if sw is None else np.asarray(sw)[part],
            counts=None if counts is None else np.asarray(counts)[part],
        )
    return (acc.score(),)


def _chunks(n: int):
    cuts = [0, n // 5, (2 * n) // 3, n]
    return [slice(lo, hi) for lo, hi in itertools.pairwise(cuts)]


def _stream(acc, y, score, sw, counts):
    for part in _chunks(len(y)):
        acc.update(
            np.asarray(y)[part],
            np.asarray(score)[part],
            None if sw is None else np.asarray(sw)[part],
            counts=None if counts is None else np.asarray(counts)[part],
        )
    return acc


def _soft_accumulate(d: Data, **kw):
    acc = _stream(qwkit.SoftKappaAccumulator(), d.y1, d.score, *_weights_of(kw))
    return (acc.score(),)


def _threshold_accumulate(d: Data, **kw):
    acc = qwkit.ThresholdAccumulator(range(K), weights=kw.pop("weights", "quadratic"))
    res = _stream(acc, d.y1, d.score, *_weights_of(kw)).optimize()
    return (res.statistic, *res.thresholds)


def _weights_of(kw):
    return kw.pop("sample_weight", None), kw.pop("counts", None)


def _thresholds(d, **kw):
    res = qwkit.optimize_thresholds(d.y1, d.score, labels=range(K), **kw)
    return (res.statistic, *res.thresholds)


METRICS = [
    Metric(
        "kappa_score",
        lambda d, **kw: (qwkit.kappa_score(d.y1, d.y2, labels=range(K), **kw),),
        weights=True,
        symmetric=True,
    ),
    Metric(
        "confusion_matrix",
        lambda d, **kw: tuple(qwkit.confusion_matrix(d.y1, d.y2, labels=range(K), **kw).ravel()),
    ),
    Metric(
        "kappa_test",
        lambda d, **kw: _test(qwkit.kappa_test(d.y1, d.y2, labels=range(K), **kw)),
        weights=True,
        symmetric=True,
        inference=True,
        rtol=1e-10,
    ),
    Metric(
        "compare_kappa_test",
        lambda d, **kw: _test_compare(qwkit.compare_kappa_test(d.y1, d.y2, d.y3, **kw)),
        weights=True,
        inference=True,
        rtol=1e-10,
    ),
    Metric(
        "compare_kappa_test, real-valued",
        lambda d, **kw: _test_compare(qwkit.compare_kappa_test(d.y1, d.score, d.y3, **kw)),
        inference=True,
        exact_counts=False,
        rtol=1e-10,
    ),
    Metric(
        "pairwise_compare_kappa_test",
        lambda d, **kw: _pairwise(
            qwkit.pairwise_compare_kappa_test(d.y1, {"a": d.y2, "b": d.y3}, **kw)
        ),
        weights=True,
        inference=True,
        rtol=1e-10,
    ),
    Metric("KappaAccumulator", _accumulate, weights=True),
    Metric(
        "soft_kappa_score",
        lambda d, **kw: (qwkit.soft_kappa_score(d.y1, d.score, **kw),),
        exact_counts=False,
    ),
    Metric("optimize_thresholds", _thresholds, weights=True),
    Metric("ThresholdAccumulator", _threshold_accumulate, weights=True),
    Metric("SoftKappaAccumulator", _soft_accumulate, exact_counts=False),
    Metric(
        "kappa_regression",
        lambda d, **kw: _regression(qwkit.kappa_regression(d.X, d.y1, **kw)),
        exact_counts=False,
        rtol=1e-9,
    ),
    Metric(
        "kappa_rescale",
        lambda d, **kw: _rescale(qwkit.kappa_rescale(d.y1, d.score, **kw)),
        exact_counts=False,
        rtol=1e-10,
    ),
]


def _test_compare(res):
    return (res.statistic, res.kappa_a, res.kappa_b, res.standard_error, res.pvalue)


def _pairwise(res):
    return (*res.kappas, *res.statistic, *res.pvalue_adjusted)


def _regression(res):
    return (res.statistic, res.intercept, *res.coef)


def _rescale(res):
    return (res.statistic, res.intercept, res.slope)


def _same(got, expected, rtol):
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-14)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
        return fn(*args, **kwargs)


SEEDS = [1, 2]
ids = [m.name for m in METRICS]


@pytest.fixture(params=SEEDS)
def data(request):
    return make_data(request.param)


@pytest.mark.parametrize("metric", METRICS, ids=ids)
class TestInvariances:
    def test_item_permutation(self, metric, data):
        perm = np.random.default_rng(0).permutation(len(data.y1))
        _same(metric.fn(data.take(perm)), metric.fn(data), metric.rtol)

    def test_sample_weight_of_ones_is_none(self, metric, data):
        ones = np.ones(len(data.y1))
        _same(metric.fn(data, sample_weight=ones), metric.fn(data), metric.rtol)

    def test_counts_are_repeated_rows(self, metric, data):
        counts = np.random.default_rng(5).integers(0, 4, len(data.y1))
        repeated = data.take(np.repeat(np.arange(len(data.y1)), counts))
        got, expected = metric.fn(data, counts=counts), metric.fn(repeated)
        if metric.exact_counts:
            assert tuple(got) == tuple(expected)
        else:
            _same(got, expected, metric.rtol)

    def test_zero_weights_are_dropped_rows(self, metric, data):
        keep = np.random.default_rng(6).random(len(data.y1)) < 0.7
        w = np.where(keep, np.random.default_rng(7).uniform(0.5, 2.0, len(keep)), 0.0)
        _same(
            metric.fn(data, sample_weight=w),
            metric.fn(data.take(keep), sample_weight=w[keep]),
            metric.rtol,
        )

    def test_integer_sample_weights_repeat_rows_for_estimates(self, metric, data):
        w = np.random.default_rng(8).integers(1, 4, len(data.y1))
        repeated = data.take(np.repeat(np.arange(len(data.y1)), w))
        got, expected = metric.fn(data, sample_weight=w), metric.fn(repeated)
        if metric.inference:  # survey weights: the rows are the units; only kappa agrees
            got, expected = got[:1], expected[:1]
        _same(got, expected, metric.rtol)

    @pytest.mark.parametrize("container", [list, pd.Series, pl.Series])
    def test_containers(self, metric, data, container):
        _same(metric.fn(data.map(lambda v: container(list(v)))), metric.fn(data), 0.0)

    def test_weight_matrix_scaling(self, metric, data):
        if not metric.weights:
            return
        w = qwkit.weight_matrix(K, "linear")
        _same(metric.fn(data, weights=w * 7.25), metric.fn(data, weights=w), metric.rtol)
        # named weights are their normalized matrix
        _same(metric.fn(data, weights=w), metric.fn(data, weights="linear"), metric.rtol)

    def test_symmetric_in_the_raters(self, metric, data):
        if not metric.symmetric:
            return
        swapped = Data(data.y2, data.y1, data.y3, data.score, data.X)
        _same(_quiet(metric.fn, swapped), _quiet(metric.fn, data), metric.rtol)


# ---------------------------------------------------------------------------- many raters

#: Every agreement coefficient of the registry (a new one joins the suite by its record).
COEFFICIENTS = REGISTRY.names


def make_panel(seed: int, n: int = 40, raters: int = 4) -> np.ndarray:
    """Items x raters on 1..5 with a shared latent level and some missing ratings."""
    rng = np.random.default_rng(seed)
    level = rng.integers(1, 6, n)
    x = np.clip(level[:, None] + rng.integers(-1, 2, (n, raters)), 1, 5).astype(float)
    x[rng.random((n, raters)) < 0.15] = np.nan
    return x


@pytest.fixture(params=SEEDS)
def panel(request):
    return make_panel(request.param)


def _table(x: np.ndarray):
    """The panel in long format, rows shuffled, as the sparse table."""
    items, raters = np.nonzero(~np.isnan(x))
    order = np.random.default_rng(1).permutation(items.size)
    return qwkit.ratings_from_long(items[order], raters[order], x[items, raters][order])


class TestRaterAgreementInvariances:
    """Each rater's kappa: unchanged by the order of items or raters, the container, the
    scale of a weight matrix, and items nobody rated."""

    def _by_rater(self, x, **kw):
        return qwkit.rater_agreement(x, labels=range(1, 6), **kw).statistic

    def test_orders_containers_and_empty_items(self, panel):
        ref = self._by_rater(panel)
        perm = np.random.default_rng(0).permutation(panel.shape[0])
        np.testing.assert_allclose(self._by_rater(panel[perm]), ref, rtol=1e-12)
        np.testing.assert_allclose(self._by_rater(panel[:, ::-1]), ref[::-1], rtol=1e-12)
        np.testing.assert_allclose(self._by_rater(_table(panel)), ref, rtol=1e-12)
        padded = np.vstack([panel, np.full((3, panel.shape[1]), np.nan)])
        np.testing.assert_allclose(self._by_rater(padded), ref, rtol=1e-12)

    def test_weight_matrix_scaling(self, panel):
        w = qwkit.weight_matrix(5, "linear")
        np.testing.assert_allclose(
            self._by_rater(panel, weights=w * 7.25),
            self._by_rater(panel, weights="linear"),
            rtol=1e-12,
        )


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
class TestAgreementInvariances:
    @pytest.fixture
    def panel(self, coefficient, panel):
        """The panel, its first two raters for a coefficient of two raters."""
        return panel[:, :2] if REGISTRY[coefficient].two_raters else panel

    def _score(self, x, coefficient, **kw):
        return qwkit.agreement_score(x, coefficient=coefficient, labels=range(1, 6), **kw)

    def test_item_permutation(self, coefficient, panel):
        perm = np.random.default_rng(0).permutation(panel.shape[0])
        a, b = self._score(panel[perm], coefficient), self._score(panel, coefficient)
        assert a == pytest.approx(b, rel=1e-12)

    def test_rater_permutation(self, coefficient, panel):
        a = self._score(panel[:, ::-1], coefficient)
        assert a == pytest.approx(self._score(panel, coefficient), rel=1e-12)

    def test_containers(self, coefficient, panel):
        ref = self._score(panel, coefficient)
        frame = pd.DataFrame(panel, columns=list("abcd")[: panel.shape[1]])
        listed = [[None if np.isnan(v) else int(v) for v in row] for row in panel]
        for x in (frame, pl.from_pandas(frame), listed, _table(panel)):
            assert self._score(x, coefficient) == pytest.approx(ref, rel=1e-14)

    def test_weight_matrix_scaling(self, coefficient, panel):
        w = qwkit.weight_matrix(5, "linear")
        a = self._score(panel, coefficient, weights=w * 7.25)
        assert a == pytest.approx(self._score(panel, coefficient, weights="linear"), rel=1e-12)

    def test_all_missing_items_are_dropped(self, coefficient, panel):
        padded = np.vstack([panel, np.full((3, panel.shape[1]), np.nan)])
        a = self._score(padded, coefficient)
        assert a == pytest.approx(self._score(panel, coefficient), rel=1e-14)


def test_two_raters_reduce_to_cohen(panel):
    # Conger's and Light's kappa of two raters are Cohen's weighted kappa (kappa_score)
    both = ~np.isnan(panel[:, :2]).any(axis=1)
    y1, y2 = panel[both, 0].astype(int), panel[both, 1].astype(int)
    ref = qwkit.kappa_score(y1, y2, labels=range(1, 6))
    for coefficient in ("conger", "light"):
        got = qwkit.agreement_score(
            np.column_stack([y1, y2]), coefficient=coefficient, labels=range(1, 6)
        )
        assert got == pytest.approx(ref, rel=1e-12)


# ---------------------------------------------------------------------------- numeric statistics

#: Statistics of many raters' numeric ratings: adapter → the numbers to compare.
NUMERIC = {
    "icc A,1": lambda x: (qwkit.icc(x, form="A,1").statistic,),
    "icc 1,k": lambda x: (qwkit.icc(x, form="1,k").statistic, qwkit.icc(x, form="1,k").pvalue),
    "icc C,1 interval": lambda x: tuple(qwkit.icc(x, form="C,1").confidence_interval()),
    "kendall_w": lambda x: (qwkit.kendall_w(x).statistic,),
    "category_agreement": lambda x: tuple(qwkit.category_agreement(x).statistic),
}


@pytest.mark.parametrize("name", list(NUMERIC))
class TestNumericInvariances:
    # the order of the items, of the raters or of a table's rows changes the sums by
    # rounding only: the closed forms agree to about N·ε, the REML ICC (ratings missing)
    # to the tolerance derived in helpers.REML_ORDER_RTOL, which both are held to
    def test_item_and_rater_permutation(self, name, panel):
        fn = NUMERIC[name]
        perm = np.random.default_rng(0).permutation(panel.shape[0])
        ref = fn(panel)
        for x in (panel[perm], panel[:, ::-1]):
            assert fn(x) == pytest.approx(ref, rel=REML_ORDER_RTOL)

    def test_containers_and_empty_items(self, name, panel):
        fn = NUMERIC[name]
        ref = fn(panel)
        frame = pd.DataFrame(panel, columns=list("abcd"))
        listed = [[None if np.isnan(v) else int(v) for v in row] for row in panel]
        padded = np.vstack([panel, np.full((3, panel.shape[1]), np.nan)])
        for x in (frame, pl.from_pandas(frame), listed, padded):
            assert fn(x) == pytest.approx(ref, rel=1e-12)
        # the sparse table, its rows shuffled: the same numbers (sums in another order)
        assert fn(_table(panel)) == pytest.approx(ref, rel=REML_ORDER_RTOL)
