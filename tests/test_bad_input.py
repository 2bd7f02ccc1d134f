"""Bad input to the core API: every error names its parameter; import hygiene."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import polars as pl
import pytest

import qwkit
from qwkit import (
    KappaAccumulator,
    UndefinedKappaWarning,
    confusion_matrix,
    kappa_from_confusion,
    kappa_score,
    soft_kappa_score,
    weight_matrix,
)

SEED = 20261121
NAMED = ["quadratic", "linear", "identity", None]


def _bad(fn, *args, **kwargs):
    return (fn, args, kwargs)


nan, inf = float("nan"), float("inf")

BAD_INPUTS = [
    # ---------------------------------------------------------------- kappa_score
    (
        "ks-mismatched-lengths",
        _bad(kappa_score, [1, 2, 3], [1, 2]),
        ValueError,
        r"`y1`.*`y2`.*3.*2",
    ),
    ("ks-empty", _bad(kappa_score, [], []), ValueError, r"`y1`"),
    (
        "ks-empty-arrays",
        _bad(kappa_score, np.array([], int), np.array([], int)),
        ValueError,
        r"`y1`",
    ),
    ("ks-nan-y1", _bad(kappa_score, [1.0, nan, 2.0], [1, 2, 3]), ValueError, r"`y1`.*nan"),
    (
        "ks-nan-array-y2",
        _bad(kappa_score, [1, 2, 3], np.array([1.0, 2.0, nan])),
        ValueError,
        r"`y2`.*nan",
    ),
    ("ks-inf-y2", _bad(kappa_score, [1, 2, 3], [1.0, inf, 2.0]), ValueError, r"`y2`.*inf"),
    (
        "ks-nan-with-labels",
        _bad(kappa_score, [1.0, nan], [1, 2], labels=[1, 2]),
        ValueError,
        r"`y1`.*nan",
    ),
    (
        "ks-non-integral",
        _bad(kappa_score, [0.5, 1.0, 2.0], [1, 2, 3]),
        ValueError,
        r"`y1`.*soft_kappa_score",
    ),
    (
        "ks-non-integral-y2",
        _bad(kappa_score, [1, 2, 3], np.array([1.0, 2.25, 3.0])),
        ValueError,
        r"`y2`.*soft_kappa_score",
    ),
    (
        "ks-outside-labels-quadratic",
        _bad(kappa_score, [1, 2, 7], [1, 2, 3], labels=[1, 2, 3]),
        ValueError,
        r"`y1`.*7.*`labels`",
    ),
    (
        "ks-outside-labels-y2",
        _bad(kappa_score, [1, 2, 3], [0, 2, 3], labels=[1, 2, 3]),
        ValueError,
        r"`y2`.*0.*`labels`",
    ),
    (
        "ks-outside-labels-linear",
        _bad(kappa_score, [1, 2, 7], [1, 2, 3], labels=[1, 2, 3], weights="linear"),
        ValueError,
        r"`y1`.*7.*`labels`",
    ),
    (
        "ks-outside-labels-weighted",
        _bad(kappa_score, [1, 2, 3], [1, 9, 3], labels=[1, 2, 3], sample_weight=[1, 1, 1]),
        ValueError,
        r"`y2`.*9.*`labels`",
    ),
    (
        "ks-outside-labels-gapped",
        _bad(kappa_score, [1, 2, 5], [1, 3, 5], labels=[1, 3, 5]),
        ValueError,
        r"`y1`.*2.*`labels`",
    ),
    (
        "ks-outside-labels-str",
        _bad(kappa_score, ["a", "z"], ["a", "b"], labels=["a", "b"]),
        ValueError,
        r"`y1`.*'z'.*`labels`",
    ),
    (
        "ks-outside-labels-uint8",
        _bad(
            kappa_score, np.array([1, 255], np.uint8), np.array([1, 2], np.uint8), labels=[0, 1, 2]
        ),
        ValueError,
        r"`y1`.*255.*`labels`",
    ),
    (
        "ks-duplicate-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=[1, 2, 2, 3]),
        ValueError,
        r"`labels`.*2",
    ),
    (
        "ks-duplicate-str-labels",
        _bad(kappa_score, ["a"], ["a"], labels=["a", "b", "a"]),
        ValueError,
        r"`labels`.*'a'",
    ),
    ("ks-empty-labels", _bad(kappa_score, [1, 2], [1, 2], labels=[]), ValueError, r"`labels`"),
    (
        "ks-nan-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=[1.0, nan]),
        ValueError,
        r"`labels`",
    ),
    ("ks-2d-labels", _bad(kappa_score, [1, 2], [1, 2], labels=[[1, 2]]), ValueError, r"`labels`"),
    (
        "ks-unknown-weights",
        _bad(kappa_score, [1, 2], [1, 2], weights="cubic"),
        ValueError,
        r"`weights`.*cubic",
    ),
    (
        "ks-weights-case",
        _bad(kappa_score, [1, 2], [1, 2], weights="Quadratic"),
        ValueError,
        r"`weights`.*Quadratic",
    ),
    ("ks-weights-number", _bad(kappa_score, [1, 2], [1, 2], weights=2), TypeError, r"`weights`.*2"),
    (
        "ks-weights-wrong-k",
        _bad(kappa_score, [1, 2, 4], [1, 3, 4], weights=np.ones((3, 3))),
        ValueError,
        r"`weights`.*\(3, 3\)",
    ),
    (
        "ks-weights-wrong-k-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=[1, 2], weights=np.ones((3, 3))),
        ValueError,
        r"`weights`.*\(3, 3\)",
    ),
    (
        "ks-weights-non-square",
        _bad(kappa_score, [0, 1], [0, 1], weights=np.ones((2, 3))),
        ValueError,
        r"`weights`.*\(2, 3\)",
    ),
    (
        "ks-weights-1d",
        _bad(kappa_score, [0, 1], [0, 1], weights=[0.0, 1.0]),
        ValueError,
        r"`weights`",
    ),
    (
        "ks-weights-nan",
        _bad(kappa_score, [0, 1], [0, 1], weights=[[0, nan], [1, 0]]),
        ValueError,
        r"`weights`.*NaN",
    ),
    (
        "ks-weights-inf",
        _bad(kappa_score, [0, 1], [0, 1], weights=[[0, inf], [1, 0]]),
        ValueError,
        r"`weights`",
    ),
    (
        "ks-weights-negative",
        _bad(kappa_score, [0, 1], [0, 1], weights=[[0, -1], [1, 0]]),
        ValueError,
        r"`weights`.*-1",
    ),
    (
        "ks-weights-strings",
        _bad(kappa_score, [0, 1], [0, 1], weights=[["a", "b"], ["c", "d"]]),
        TypeError,
        r"`weights`",
    ),
    (
        "ks-sw-negative",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[1.0, -1.0]),
        ValueError,
        r"`sample_weight`.*-1",
    ),
    (
        "ks-sw-nan",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[1.0, nan]),
        ValueError,
        r"`sample_weight`.*nan",
    ),
    (
        "ks-sw-inf",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[inf, 1.0]),
        ValueError,
        r"`sample_weight`.*inf",
    ),
    (
        "ks-sw-missized",
        _bad(kappa_score, [0, 1, 2], [0, 1, 2], sample_weight=[1.0, 1.0]),
        ValueError,
        r"`sample_weight`.*3.*2",
    ),
    (
        "ks-sw-2d",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=np.ones((2, 1))),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "ks-sw-zero-sum",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[0.0, 0.0]),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "ks-sw-strings",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=["a", "b"]),
        TypeError,
        r"`sample_weight`",
    ),
    (
        "ks-sw-none-inside",
        _bad(kappa_score, [0, 1], [0, 1], sample_weight=[1.0, None]),
        ValueError,
        r"`sample_weight`",
    ),
    ("ks-2d-y1", _bad(kappa_score, np.ones((3, 2)), np.ones(3)), ValueError, r"`y1`.*\(3, 2\)"),
    ("ks-2d-y2-list", _bad(kappa_score, [1, 2], [[1, 2], [3, 4]]), ValueError, r"`y2`"),
    ("ks-column-vector", _bad(kappa_score, np.ones((3, 1)), np.ones((3, 1))), ValueError, r"`y1`"),
    ("ks-scalar", _bad(kappa_score, 3, 3), (ValueError, TypeError), r"`y1`"),
    ("ks-none", _bad(kappa_score, None, [1]), TypeError, r"`y1`"),
    ("ks-string-not-array", _bad(kappa_score, "1234", "1234"), TypeError, r"`y1`"),
    ("ks-mixed-str-num", _bad(kappa_score, [1, "a", 2], [1, 2, 3]), TypeError, r"`y1`.*'a'"),
    (
        "ks-mixed-str-num-y2",
        _bad(kappa_score, ["a", "b"], ["a", 3], labels=["a", "b"]),
        TypeError,
        r"`y2`",
    ),
    ("ks-str-vs-num", _bad(kappa_score, ["a", "b"], [1, 2]), TypeError, r"`y1`.*`y2`"),
    (
        "ks-str-y-num-labels",
        _bad(kappa_score, ["a", "b"], ["a", "b"], labels=[1, 2]),
        TypeError,
        r"`labels`",
    ),
    (
        "ks-num-y-str-labels",
        _bad(kappa_score, [1, 2], [1, 2], labels=["a", "b"]),
        TypeError,
        r"`labels`",
    ),
    ("ks-none-inside", _bad(kappa_score, [1, None, 2], [1, 2, 3]), ValueError, r"`y1`.*None"),
    (
        "ks-none-inside-y2",
        _bad(kappa_score, [1, 2, 3], ["a", None, "b"]),
        (ValueError, TypeError),
        r"`y2`",
    ),
    ("ks-nan-in-list", _bad(kappa_score, [1, 2], [1, float("nan")]), ValueError, r"`y2`"),
    (
        "ks-pandas-na",
        _bad(kappa_score, pd.Series([1, None, 3], dtype="Int64"), [1, 2, 3]),
        ValueError,
        r"`y1`",
    ),
    ("ks-polars-null", _bad(kappa_score, [1, 2, 3], pl.Series([1, None, 3])), ValueError, r"`y2`"),
    (
        "ks-datetime",
        _bad(kappa_score, np.array(["2020-01-01"], dtype="datetime64[D]"), [1]),
        TypeError,
        r"`y1`",
    ),
    ("ks-bytes-scalar", _bad(kappa_score, b"12", b"12"), TypeError, r"`y1`"),
    ("ks-complex", _bad(kappa_score, np.array([1j, 2j]), [1, 2]), TypeError, r"`y1`"),
    ("ks-object-junk", _bad(kappa_score, [object(), object()], [1, 2]), TypeError, r"`y1`"),
    ("ks-huge-python-int", _bad(kappa_score, [2**70, 1], [1, 2]), ValueError, r"`y1`"),
    (
        "ks-replace-str",
        _bad(kappa_score, [1, 2], [1, 2], replace_undefined_by="zero"),
        TypeError,
        r"`replace_undefined_by`",
    ),
    # ---------------------------------------------------------------- kappa_from_confusion
    ("kc-negative", _bad(kappa_from_confusion, [[1, -1], [2, 3]]), ValueError, r"`confusion`.*-1"),
    (
        "kc-non-square",
        _bad(kappa_from_confusion, np.ones((2, 3))),
        ValueError,
        r"`confusion`.*\(2, 3\)",
    ),
    (
        "kc-nan",
        _bad(kappa_from_confusion, [[1.0, nan], [2.0, 3.0]]),
        ValueError,
        r"`confusion`.*NaN",
    ),
    ("kc-inf", _bad(kappa_from_confusion, [[1.0, inf], [2.0, 3.0]]), ValueError, r"`confusion`"),
    ("kc-1d", _bad(kappa_from_confusion, [1, 2, 3, 4]), ValueError, r"`confusion`"),
    ("kc-3d", _bad(kappa_from_confusion, np.ones((2, 2, 2))), ValueError, r"`confusion`"),
    ("kc-empty", _bad(kappa_from_confusion, np.zeros((0, 0))), ValueError, r"`confusion`"),
    ("kc-all-zero", _bad(kappa_from_confusion, np.zeros((3, 3))), ValueError, r"`confusion`"),
    ("kc-strings", _bad(kappa_from_confusion, [["a", "b"], ["c", "d"]]), TypeError, r"`confusion`"),
    ("kc-none", _bad(kappa_from_confusion, None), TypeError, r"`confusion`"),
    (
        "kc-ragged",
        _bad(kappa_from_confusion, [[1, 2], [3]]),
        (TypeError, ValueError),
        r"`confusion`",
    ),
    ("kc-complex", _bad(kappa_from_confusion, np.ones((2, 2)) * 1j), TypeError, r"`confusion`"),
    (
        "kc-weights-shape",
        _bad(kappa_from_confusion, np.ones((3, 3)), weights=np.ones((2, 2))),
        ValueError,
        r"`weights`.*\(2, 2\)",
    ),
    (
        "kc-weights-unknown",
        _bad(kappa_from_confusion, np.ones((3, 3)), weights="squared"),
        ValueError,
        r"`weights`.*squared",
    ),
    (
        "kc-weights-nan",
        _bad(kappa_from_confusion, np.ones((2, 2)), weights=[[0.0, nan], [1.0, 0.0]]),
        ValueError,
        r"`weights`",
    ),
    (
        "kc-replace-none",
        _bad(kappa_from_confusion, np.ones((2, 2)), replace_undefined_by=None),
        TypeError,
        r"`replace_undefined_by`",
    ),
    # ---------------------------------------------------------------- confusion_matrix
    ("cm-mismatched", _bad(confusion_matrix, [1, 2], [1]), ValueError, r"`y1`.*`y2`"),
    ("cm-empty", _bad(confusion_matrix, [], []), ValueError, r"`y1`"),
    ("cm-nan", _bad(confusion_matrix, [1.0, nan], [1, 2]), ValueError, r"`y1`"),
    ("cm-non-integral", _bad(confusion_matrix, [1.5, 2.0], [1, 2]), ValueError, r"`y1`"),
    (
        "cm-outside-labels",
        _bad(confusion_matrix, [1, 4], [1, 2], labels=[1, 2, 3]),
        ValueError,
        r"`y1`.*4.*`labels`",
    ),
    (
        "cm-outside-labels-weighted",
        _bad(confusion_matrix, [1, 2], [1, 4], labels=[1, 2, 3], sample_weight=[1.0, 2.0]),
        ValueError,
        r"`y2`.*4.*`labels`",
    ),
    (
        "cm-duplicate-labels",
        _bad(confusion_matrix, [1], [1], labels=[1, 1]),
        ValueError,
        r"`labels`",
    ),
    (
        "cm-sw-negative",
        _bad(confusion_matrix, [1, 2], [1, 2], sample_weight=[-1, 1]),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "cm-sw-missized",
        _bad(confusion_matrix, [1, 2], [1, 2], sample_weight=[1]),
        ValueError,
        r"`sample_weight`",
    ),
    ("cm-2d", _bad(confusion_matrix, np.ones((2, 2)), np.ones((2, 2))), ValueError, r"`y1`"),
    ("cm-mixed", _bad(confusion_matrix, [1, "a"], [1, 2]), TypeError, r"`y1`"),
    ("cm-none-inside", _bad(confusion_matrix, [1, 2], [None, 2]), ValueError, r"`y2`"),
    # ---------------------------------------------------------------- weight_matrix
    ("wm-zero", _bad(weight_matrix, 0), ValueError, r"`n_classes`.*0"),
    ("wm-negative", _bad(weight_matrix, -3), ValueError, r"`n_classes`.*-3"),
    ("wm-float", _bad(weight_matrix, 2.5), TypeError, r"`n_classes`.*2\.5"),
    ("wm-str", _bad(weight_matrix, "3"), TypeError, r"`n_classes`"),
    ("wm-bool", _bad(weight_matrix, True), TypeError, r"`n_classes`"),
    ("wm-unknown", _bad(weight_matrix, 3, "cubic"), ValueError, r"`weights`.*cubic"),
    ("wm-shape", _bad(weight_matrix, 3, np.ones((2, 2))), ValueError, r"`weights`"),
    ("wm-non-square", _bad(weight_matrix, 2, np.ones((2, 3))), ValueError, r"`weights`"),
    ("wm-nan", _bad(weight_matrix, 2, [[0, nan], [1, 0]]), ValueError, r"`weights`"),
    # ---------------------------------------------------------------- soft_kappa_score
    (
        "sk-mismatched",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0]),
        ValueError,
        r"`y_true`.*`y_score`.*2.*1",
    ),
    ("sk-empty", _bad(soft_kappa_score, [], []), ValueError, r"`y_true`"),
    ("sk-nan", _bad(soft_kappa_score, [1.0, 2.0], [1.0, nan]), ValueError, r"`y_score`.*nan"),
    ("sk-inf", _bad(soft_kappa_score, [1.0, -inf], [1.0, 2.0]), ValueError, r"`y_true`.*inf"),
    ("sk-strings", _bad(soft_kappa_score, ["a", "b"], [1.0, 2.0]), TypeError, r"`y_true`"),
    ("sk-2d", _bad(soft_kappa_score, np.ones((2, 2)), np.ones((2, 2))), ValueError, r"`y_true`"),
    ("sk-none-inside", _bad(soft_kappa_score, [1.0, None], [1.0, 2.0]), ValueError, r"`y_true`"),
    ("sk-mixed", _bad(soft_kappa_score, [1.0, 2.0], [1.0, "x"]), TypeError, r"`y_score`"),
    (
        "sk-sw-negative",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0, 2.0], sample_weight=[1, -2]),
        ValueError,
        r"`sample_weight`.*-2",
    ),
    (
        "sk-sw-nan",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0, 2.0], sample_weight=[nan, 1]),
        ValueError,
        r"`sample_weight`",
    ),
    (
        "sk-sw-missized",
        _bad(soft_kappa_score, [1.0, 2.0], [1.0, 2.0], sample_weight=[1.0]),
        ValueError,
        r"`sample_weight`",
    ),
    # ---------------------------------------------------------------- KappaAccumulator
    ("acc-labels-2d", _bad(KappaAccumulator, [[1, 2], [3, 4]]), ValueError, r"`labels`"),
    ("acc-duplicate-labels", _bad(KappaAccumulator, [1, 2, 1]), ValueError, r"`labels`"),
    ("acc-empty-labels", _bad(KappaAccumulator, []), ValueError, r"`labels`"),
    (
        "acc-unknown-weights",
        _bad(KappaAccumulator, [1, 2], weights="cubic"),
        ValueError,
        r"`weights`.*cubic",
    ),
    (
        "acc-weights-shape",
        _bad(KappaAccumulator, [1, 2], weights=np.ones((3, 3))),
        ValueError,
        r"`weights`",
    ),
    ("acc-too-many-labels", _bad(KappaAccumulator, np.arange(20_001)), ValueError, r"`labels`"),
    (
        "acc-weights-nan",
        _bad(KappaAccumulator, [1, 2], weights=[[0, nan], [1, 0]]),
        ValueError,
        r"`weights`",
    ),
]


def _accumulator_bad_calls():
    def update_outside():
        acc = KappaAccumulator([1, 2, 3])
        acc.update([1, 5], [1, 2])

    def update_mismatched():
        KappaAccumulator([1, 2, 3]).update([1, 2], [1])

    def update_nan():
        KappaAccumulator([1, 2, 3]).update([1.0, nan], [1, 2])

    def update_sw_negative():
        KappaAccumulator([1, 2, 3]).update([1, 2], [1, 2], sample_weight=[1, -1])

    def update_mixed():
        KappaAccumulator([1, 2, 3]).update([1, "a"], [1, 2])

    def merge_wrong_type():
        KappaAccumulator([1, 2]).merge([[1, 0], [0, 1]])

    def merge_other_labels():
        KappaAccumulator([1, 2]).merge(KappaAccumulator([1, 2, 3]))

    def merge_other_weights():
        KappaAccumulator([1, 2, 3]).merge(KappaAccumulator([1, 2, 3], weights="linear"))

    def score_empty():
        KappaAccumulator([1, 2]).score()

    return [
        ("acc-update-outside", _bad(update_outside), ValueError, r"`y1`.*5.*`labels`"),
        ("acc-update-mismatched", _bad(update_mismatched), ValueError, r"`y1`.*`y2`"),
        ("acc-update-nan", _bad(update_nan), ValueError, r"`y1`"),
        ("acc-update-sw", _bad(update_sw_negative), ValueError, r"`sample_weight`"),
        ("acc-update-mixed", _bad(update_mixed), TypeError, r"`y1`"),
        ("acc-merge-type", _bad(merge_wrong_type), TypeError, r"`other`"),
        ("acc-merge-labels", _bad(merge_other_labels), ValueError, r"`other`"),
        ("acc-merge-weights", _bad(merge_other_weights), ValueError, r"`other`.*`weights`"),
        ("acc-score-empty", _bad(score_empty), ValueError, r"`update`"),
    ]


ALL_BAD = BAD_INPUTS + _accumulator_bad_calls()


class TestBadInput:
    """Issue 2, "Bad input": a ValueError/TypeError naming the parameter, from our code."""

    @pytest.mark.parametrize(
        ("call", "exc", "pattern"), [case[1:] for case in ALL_BAD], ids=[c[0] for c in ALL_BAD]
    )
    def test_raises_named_error(self, call, exc, pattern):
        fn, args, kwargs = call
        with pytest.raises(exc, match=pattern) as info:
            fn(*args, **kwargs)
        error = info.value
        # Ours, not numba's or numpy's: a built-in ValueError/TypeError (or a qwkit
        # subclass), raised from a qwkit module outside the numba kernels.
        assert type(error).__module__ in ("builtins",) or type(error).__module__.startswith(
            "qwkit"
        ), type(error)
        frame = info.traceback[-1]
        where = str(frame.path)
        assert "qwkit" in where and "_kernels" not in where and "numba" not in where, where
        assert "`" in str(error)


class TestInputContainers:
    """Array-likes of every kind: frames, views, containers that are not sequences."""

    @pytest.mark.parametrize(
        "weights", [np.array([[0, 1j], [1, 0]]), [["0", "1"], ["1", "0"]]], ids=["complex", "str"]
    )
    def test_non_real_weight_matrix(self, weights):
        with pytest.raises(TypeError, match="`weights`"):
            kappa_score([0, 1], [0, 1], weights=weights)

    @pytest.mark.parametrize("make", [lambda: {0, 1}, lambda: iter([0, 1]), lambda: {0: 1, 1: 2}])
    def test_unordered_or_one_shot_containers(self, make):
        with pytest.raises(TypeError, match="`y1` must be an ordered sequence"):
            kappa_score(make(), [0, 1])

    def test_integral_floats_beyond_int64(self):
        with pytest.raises(ValueError, match="outside the int64 range"):
            kappa_score([2.0**63, 1.0], [1.0, 1.0])

    def test_dict_views_are_ordered(self):
        labels = {0: "a", 1: "b", 2: "c"}
        got = kappa_score([0, 1, 2], [0, 1, 1], labels=labels.keys())
        assert got == kappa_score([0, 1, 2], [0, 1, 1], labels=[0, 1, 2])

    def test_nullable_frames_for_tables_and_weights(self):
        table = pd.DataFrame([[3, 1], [1, 4]], dtype="Int64")
        assert kappa_from_confusion(table) == kappa_from_confusion([[3, 1], [1, 4]])
        wmat = pd.DataFrame([[0, 1], [2, 0]], dtype="Float64")
        assert kappa_score([0, 1, 1], [0, 1, 0], weights=wmat) == kappa_score(
            [0, 1, 1], [0, 1, 0], weights=[[0, 1], [2, 0]]
        )
        with pytest.raises(ValueError, match="`confusion` has a missing value"):
            kappa_from_confusion(pd.DataFrame([[3, None], [1, 4]], dtype="Int64"))


def test_import_qwkit_loads_no_optional_dependency():
    heavy = [
        "sklearn",
        "lightgbm",
        "xgboost",
        "torch",
        "dask",
        "typer",
        "matplotlib",
        "pandas",
        "polars",
        "rich",
        "duckdb",
        "pyspark",
        "py4j",
        "sqlglot",
        "qwkit.economics",  # an integration of its own, with its own import
        "qwkit.torch",
        "qwkit.lightgbm",
        "qwkit.xgboost",
        "qwkit.polars",
        "qwkit.dask",
        "qwkit.sklearn",
        "qwkit.sql",
        "qwkit.duckdb",
        "qwkit.spark",
        "qwkit.cli",
    ]
    code = (
        "import sys, qwkit\n"
        f"heavy = {heavy!r}\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=pathlib.Path(__file__).parent,
    )
    assert out.stdout.strip() == "", f"import qwkit loaded: {out.stdout.strip()}"


def test_public_classes_report_qwkit_as_their_module():
    import inspect

    for name in qwkit.__all__:
        obj = getattr(qwkit, name)
        if inspect.isclass(obj):
            assert obj.__module__ == "qwkit", name


def test_public_signatures_are_annotated():
    import inspect

    for name in qwkit.__all__:
        obj = getattr(qwkit, name)
        if inspect.isfunction(obj):
            sig = inspect.signature(obj)
            missing = [
                p for p in sig.parameters.values() if p.annotation is inspect.Parameter.empty
            ]
            assert not missing, (name, [p.name for p in missing])
            assert sig.return_annotation is not inspect.Signature.empty, name


def test_public_names():
    for name in (
        "kappa_score",
        "kappa_from_confusion",
        "confusion_matrix",
        "weight_matrix",
        "soft_kappa_score",
        "KappaAccumulator",
        "UndefinedKappaWarning",
    ):
        assert name in qwkit.__all__
        assert getattr(qwkit, name) is not None
    assert issubclass(UndefinedKappaWarning, Warning)
