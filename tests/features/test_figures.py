"""The figures the results draw (``KappaTestResult.plot``, ``ThresholdResult.plot``), which
the command line's reports embed: their words, and that they stay readable."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

import qwkit
from qwkit._base._plots import MAX_TICK_LABELS


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _overlapping(fig, texts) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose boxes overlap."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    shown = [t for t in texts if t.get_visible() and t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in shown]
    return [
        (shown[i].get_text(), shown[j].get_text())
        for i, j in itertools.combinations(range(len(shown)), 2)
        if boxes[i].overlaps(boxes[j])
    ]


def _cut_points(cuts, labels) -> qwkit.ThresholdResult:
    """A ThresholdResult of given cut points (as the command line builds one from a
    thresholds file)."""
    return qwkit.ThresholdResult(
        thresholds=np.asarray(cuts, dtype=np.float64),
        statistic=math.nan,
        labels=np.asarray(labels),
        certificate=None,
    )


CONFUSION = np.array([[3, 1, 0], [1, 4, 1], [0, 2, 5]])


class TestKappaFigures:
    def test_the_table_is_the_tests_table(self):
        y1 = [1, 1, 2, 3, 3, 2, 1, 3, 2, 2]
        y2 = [1, 2, 2, 3, 2, 2, 1, 3, 3, 2]
        res = qwkit.kappa_test(y1, y2, sample_weight=[2.0] * 10)  # equal weights: Σw shown
        fig = res.plot("confusion", names=("A", "B"))
        ax = fig.axes[0]
        assert (ax.get_ylabel(), ax.get_xlabel()) == ("A", "B")
        cells = [t.get_text() for t in ax.texts]
        expected = qwkit.confusion_matrix(y1, y2, sample_weight=[2.0] * 10)
        assert cells == [f"{v:.0f}" for v in expected.ravel()]

    def test_words_are_the_roles(self):
        res = qwkit.kappa_test_from_confusion(CONFUSION)
        figures = [
            res.plot("confusion", names=("A", "B")),
            res.plot("classes", names=("A", "B")),
            _cut_points([1.0, 2.5], [1, 2, 3]).plot(
                [1, 1, 2, 2, 3], [0.1, 1.2, 1.9, 2.2, 2.8], name="A"
            ),
        ]
        for fig in figures:
            words = " ".join(_texts(fig))
            assert not re.search(r"\btrue\b|predict", words, re.IGNORECASE), words

    def test_bootstrap_draws_the_interval_of_its_resamples(self):
        res = qwkit.kappa_test_from_confusion(CONFUSION)
        fig = res.plot("bootstrap", confidence_level=0.9, n_resamples=500, rng=7)
        low, high = res.confidence_interval(0.9, method="bootstrap", n_resamples=500, rng=7)
        legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
        assert f"90% CI (bootstrap) [{low:.4f}, {high:.4f}]" in legend
        assert "500 resamples" in legend
        ticks = fig.axes[0].get_yticks()  # a count axis: whole numbers
        assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks)

    @pytest.mark.parametrize("k", [40, 100])
    def test_many_classes_stay_readable(self, k):
        rng = np.random.default_rng(20261121)
        confusion = rng.integers(0, 5, (k, k)) + np.diag(rng.integers(5, 30, k))
        res = qwkit.kappa_test_from_confusion(confusion)
        fig = res.plot("confusion", names=("A", "B"))
        ax = fig.axes[0]
        for ticks in (ax.get_xticklabels(), ax.get_yticklabels()):
            assert _overlapping(fig, ticks) == []
            assert 10 <= sum(bool(t.get_text()) for t in ticks) <= MAX_TICK_LABELS
        assert not ax.texts  # no counts in cells this small
        fig = res.plot("classes", names=("A", "B"))
        assert _overlapping(fig, fig.axes[1].get_xticklabels()) == []
        assert _overlapping(fig, fig.axes[0].texts) == []

    def test_a_scale_too_wide_to_draw(self):
        res = qwkit.kappa_test([0, 5000], [0, 5000])
        with pytest.raises(ValueError, match="a figure of the table draws at most 1,000"):
            res.plot("confusion")
        with pytest.raises(ValueError, match="`kind` must be 'confusion', 'classes' or"):
            res.plot("heatmap")


class TestThresholdFigure:
    def test_cut_point_labels_are_short_and_apart(self):
        rng = np.random.default_rng(20261121)
        labels = np.array([0.1 * i for i in range(8)]) + 0.2  # 0.30000000000000004 ...
        truth = rng.integers(0, 8, 400)
        scores = truth + rng.normal(0, 1, 400)
        cuts = np.array([0.5, 0.52, 0.55, 2.5, 3.5, 3.5000001, 5.5])  # some very close
        fig = _cut_points(cuts, labels).plot(labels[truth], scores, name="A")
        marks = [t for t in fig.axes[0].texts if "|" in t.get_text()]
        assert len(marks) == len(cuts)
        assert _overlapping(fig, marks) == []
        for text in _texts(fig):
            assert not re.search(r"\d{7,}", text), text

    def test_many_cut_points_are_left_unmarked(self):
        k = 60
        labels = np.arange(k)
        truth = np.repeat(labels, 5)
        fig = _cut_points(np.arange(k - 1) + 0.5, labels).plot(truth, truth + 0.3, name="A")
        assert not [t for t in fig.axes[0].texts if "|" in t.get_text()]

    def test_count_axis_and_fitted_cut_points(self):
        y, score = [1, 2, 2, 1, 2], [0.1, 1.2, 1.9, 0.3, 1.1]
        fig = qwkit.optimize_thresholds(y, score).plot(y, score, name="A")
        ticks = fig.axes[0].get_yticks()
        assert all(float(t).is_integer() for t in ticks)
        with pytest.raises(ValueError, match="`y_true` and `y_score` must have the same length"):
            qwkit.optimize_thresholds(y, score).plot(y, score[:3])
