"""qwkit.polars: the ``qwk`` expression namespace against the core on every group.

Every per-group value is compared with the core function on that group's rows, with ``==``
(the integration must give the core's bits, not an approximation).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qwkit
import qwkit.polars

SEED = 20261121


#: Random groups on random scales (pred −1 beside y in 0..4, say) may look like ratings
#: with missing-value codes; the ScaleWarning has its own tests (test_scale_warning.py).
ARBITRARY_SCALES = pytest.mark.filterwarnings("ignore::qwkit.ScaleWarning")


def _groups(rng: np.random.Generator, n_groups: int = 12) -> pl.DataFrame:
    """Random groups of different sizes and scales (negative, wide, narrow ones)."""
    frames = []
    for g in range(n_groups):
        n = int(rng.integers(2, 60))
        low, width = int(rng.integers(-5, 5)), int(rng.integers(2, 8))
        y = rng.integers(low, low + width, n)
        pred = np.clip(y + rng.integers(-2, 3, n), low - 1, low + width)
        frames.append(
            pl.DataFrame(
                {
                    "prompt": np.full(n, g),
                    "y": y,
                    "pred": pred,
                    "w": rng.uniform(0.5, 2.0, n),
                    "n": rng.integers(1, 4, n),
                    "score": y + rng.normal(0, 0.7, n),
                }
            )
        )
    return pl.concat(frames)


def _per_group(df: pl.DataFrame, function) -> dict[int, object]:
    return {key[0]: function(part) for key, part in df.group_by("prompt")}


def _agg(df: pl.DataFrame, expr: pl.Expr) -> dict[int, object]:
    out = df.group_by("prompt").agg(expr.alias("out"))
    return dict(zip(out["prompt"].to_list(), out["out"].to_list(), strict=True))


def _undefined_allowed():
    # a random group may have one rating only on both sides: kappa 0/0, nan (both sides)
    return warnings.catch_warnings(action="ignore", category=qwkit.UndefinedKappaWarning)


class TestKappa:
    @ARBITRARY_SCALES
    @pytest.mark.parametrize(
        "weights", ["quadratic", "linear", "identity", np.abs(np.subtract.outer(*[range(3)] * 2))]
    )
    def test_equals_kappa_score_on_every_group(self, weights):
        df = _groups(np.random.default_rng(SEED))
        if not isinstance(weights, str):  # a (3, 3) matrix: every group on the scale 0..2
            df = df.with_columns(pl.col("y", "pred").clip(0, 2))
            labels = [0, 1, 2]
        else:
            labels = None
        with _undefined_allowed():
            got = _agg(df, pl.col("y").qwk.kappa(pl.col("pred"), weights=weights, labels=labels))
            want = _per_group(
                df,
                lambda p: qwkit.kappa_score(p["y"], p["pred"], weights=weights, labels=labels),
            )
        assert got.keys() == want.keys()
        for key in want:
            assert got[key] == want[key] or (math.isnan(got[key]) and math.isnan(want[key]))

    @ARBITRARY_SCALES
    @settings(max_examples=25, deadline=None)
    @given(
        groups=st.lists(
            st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=2, max_size=30),
            min_size=1,
            max_size=5,
        )
    )
    def test_property_equal_bits(self, groups):
        rows = [(g, a, b) for g, pairs in enumerate(groups) for a, b in pairs]
        df = pl.DataFrame(rows, schema=["prompt", "y", "pred"], orient="row")
        with _undefined_allowed():
            got = _agg(df, pl.col("y").qwk.kappa("pred", replace_undefined_by=-9.0))
            want = _per_group(
                df, lambda p: qwkit.kappa_score(p["y"], p["pred"], replace_undefined_by=-9.0)
            )
        assert got == want

    @ARBITRARY_SCALES
    def test_sample_weight_and_counts(self):
        df = _groups(np.random.default_rng(SEED + 1))
        for option in ("sample_weight", "counts"):
            column = {"sample_weight": "w", "counts": "n"}[option]
            with _undefined_allowed():
                got = _agg(df, pl.col("y").qwk.kappa("pred", **{option: column}))
                want = _per_group(
                    df,
                    lambda p, o=option, c=column: qwkit.kappa_score(p["y"], p["pred"], **{o: p[c]}),
                )
            assert all(got[k] == want[k] or math.isnan(want[k]) for k in want), option

    def test_text_labels_and_enum(self):
        scale = ["low", "mid", "high"]
        rng = np.random.default_rng(SEED + 2)
        df = pl.DataFrame(
            {
                "prompt": np.repeat([0, 1, 2], 20),
                "y": rng.choice(scale, 60),
                "pred": rng.choice(scale, 60),
            }
        )
        got = _agg(df, pl.col("y").qwk.kappa("pred", labels=scale))
        want = _per_group(df, lambda p: qwkit.kappa_score(p["y"], p["pred"], labels=scale))
        assert got == want
        enum = df.with_columns(pl.col("y", "pred").cast(pl.Enum(scale)))
        assert _agg(enum, pl.col("y").qwk.kappa("pred")) == want

    @ARBITRARY_SCALES
    def test_select_without_group_by_and_the_name(self):
        df = _groups(np.random.default_rng(SEED + 3))
        out = df.select(pl.col("y").qwk.kappa("pred"))
        assert out.columns == ["y"]  # the column's name, as Polars aggregations keep it
        assert out.item() == qwkit.kappa_score(df["y"], df["pred"])

    @ARBITRARY_SCALES
    def test_window(self):
        df = _groups(np.random.default_rng(SEED + 4))
        with _undefined_allowed():
            out = df.with_columns(k=pl.col("y").qwk.kappa("pred").over("prompt"))
            want = _per_group(df, lambda p: qwkit.kappa_score(p["y"], p["pred"]))
        for key, part in out.group_by("prompt"):
            assert part["k"].n_unique() == 1
            k, w = part["k"][0], want[key[0]]
            assert k == w or (math.isnan(k) and math.isnan(w))

    @ARBITRARY_SCALES
    def test_lazy_and_streaming(self):
        df = _groups(np.random.default_rng(SEED + 5))
        exprs = [
            pl.col("y").qwk.kappa("pred").alias("k"),
            pl.col("y").qwk.kappa_test("pred").alias("t"),
        ]
        with (
            _undefined_allowed(),
            warnings.catch_warnings(action="ignore", category=qwkit.DegenerateIntervalWarning),
        ):
            eager = df.group_by("prompt").agg(exprs).sort("prompt")
            query = df.lazy().group_by("prompt").agg(exprs).sort("prompt")
            for engine in ("in-memory", "streaming"):
                assert query.collect(engine=engine).equals(eager, null_equal=True), engine

    def test_one_call_per_group_on_its_arrays(self, monkeypatch):
        # no loop over rows: qwkit is called once per group, on the group's columns as
        # numpy arrays
        calls = []

        def spy(y1, y2, **options):
            calls.append((type(y1), len(y1)))
            return qwkit.kappa_score(y1, y2, **options)

        monkeypatch.setattr(qwkit.polars, "kappa_score", spy)
        rng = np.random.default_rng(SEED + 6)
        df = pl.DataFrame(
            {"prompt": np.repeat(np.arange(4), 5000), "y": rng.integers(0, 5, 20000)}
        ).with_columns(pred=(pl.col("y") + pl.Series(rng.integers(-1, 2, 20000))).clip(0, 4))
        got = _agg(df, pl.col("y").qwk.kappa("pred"))
        assert calls == [(np.ndarray, 5000)] * 4
        assert got == _per_group(df, lambda p: qwkit.kappa_score(p["y"], p["pred"]))

    def test_undefined_kappa_warns(self):
        df = pl.DataFrame({"prompt": [0, 0, 1, 1], "y": [2, 2, 1, 2], "pred": [2, 2, 1, 2]})
        with pytest.warns(qwkit.UndefinedKappaWarning):
            got = _agg(df, pl.col("y").qwk.kappa("pred", replace_undefined_by=0.0))
        assert got == {0: 0.0, 1: 1.0}

    def test_null_rating_is_named(self):
        df = pl.DataFrame({"prompt": [0, 0, 0], "y": [1, None, 2], "pred": [1, 2, 2]})
        # Polars re-raises an error of a Python function as a new exception of the same
        # type with its expression appended (the attributes are not carried over)
        with pytest.raises(qwkit.QwkitError, match=r"^`y` has 1 null rating"):
            df.group_by("prompt").agg(pl.col("y").qwk.kappa("pred"))
        df = df.with_columns(y=pl.col("pred"), pred=pl.col("y"))
        with pytest.raises(qwkit.QwkitError, match=r"^`pred` has 1 null"):
            df.select(pl.col("y").qwk.kappa("pred", sample_weight=pl.lit(1.0)))

    def test_bad_option_is_qwkits_error(self):
        df = pl.DataFrame({"y": [1, 2, 3], "pred": [1, 2, 2]})
        with pytest.raises(qwkit.QwkitError, match=r"`weights` must be"):
            df.select(pl.col("y").qwk.kappa("pred", weights="cubic"))


class TestKappaTest:
    @ARBITRARY_SCALES
    @pytest.mark.parametrize(
        ("method", "extra"),
        [("asymptotic", {}), ("bootstrap", {"n_resamples": 300, "rng": SEED}), ("jackknife", {})],
    )
    def test_equals_kappa_test_on_every_group(self, method, extra):
        df = _groups(np.random.default_rng(SEED + 7), n_groups=6).filter(
            pl.len().over("prompt") >= 10
        )
        expr = pl.col("y").qwk.kappa_test(
            "pred", weights="linear", confidence_level=0.9, method=method, **extra
        )
        with warnings.catch_warnings(action="ignore", category=qwkit.DegenerateIntervalWarning):
            got = _agg(df, expr)

            def core(part):
                res = qwkit.kappa_test(part["y"], part["pred"], weights="linear")
                low, high = res.confidence_interval(0.9, method=method, **extra)
                return {
                    "statistic": res.statistic,
                    "standard_error": res.standard_error,
                    "standard_error_null": res.standard_error_null,
                    "ci_low": low,
                    "ci_high": high,
                    "pvalue": res.pvalue,
                    "n_items": res.n_items,
                }

            want = _per_group(df, core)
        assert len(want) >= 3
        assert got == want

    @ARBITRARY_SCALES
    def test_with_sample_weight(self):
        df = _groups(np.random.default_rng(SEED + 8), n_groups=3).filter(
            pl.len().over("prompt") >= 10
        )
        got = _agg(df, pl.col("y").qwk.kappa_test("pred", sample_weight="w"))
        for key, part in df.group_by("prompt"):
            res = qwkit.kappa_test(part["y"], part["pred"], sample_weight=part["w"])
            assert got[key[0]]["standard_error"] == res.standard_error
            assert got[key[0]]["ci_low"] == res.confidence_interval().low

    @ARBITRARY_SCALES
    def test_struct_unnests(self):
        df = _groups(np.random.default_rng(SEED + 9), n_groups=2)
        out = df.group_by("prompt").agg(pl.col("y").qwk.kappa_test("pred").alias("t"))
        assert out.unnest("t").columns == ["prompt", *qwkit.polars.KAPPA_TEST.to_schema()]


class TestSoftKappa:
    def test_equals_soft_kappa_score(self):
        df = _groups(np.random.default_rng(SEED + 10))
        got = _agg(df, pl.col("y").qwk.soft_kappa("score"))
        assert got == _per_group(df, lambda p: qwkit.soft_kappa_score(p["y"], p["score"]))
        got = _agg(df, pl.col("y").qwk.soft_kappa("score", counts="n"))
        want = _per_group(df, lambda p: qwkit.soft_kappa_score(p["y"], p["score"], counts=p["n"]))
        assert got == want


class TestAgreement:
    @staticmethod
    def _raters(seed: int) -> pl.DataFrame:
        rng = np.random.default_rng(seed)
        n = 120
        truth = rng.integers(1, 6, n)
        ratings = {
            f"r{i}": np.clip(truth + rng.integers(-1, 2, n), 1, 5).astype(float) for i in (1, 2, 3)
        }
        ratings["r3"][rng.random(n) < 0.3] = np.nan  # a third rater on some items only
        return pl.DataFrame({"prompt": rng.integers(0, 4, n), **ratings}).with_columns(
            pl.col("r3").fill_nan(None)
        )

    @pytest.mark.parametrize("coefficient", ["fleiss", "conger", "krippendorff", "gwet"])
    def test_equals_agreement_score(self, coefficient):
        df = self._raters(SEED + 11)
        got = _agg(df, pl.col("r1").qwk.agreement("r2", "r3", coefficient=coefficient))
        want = _per_group(
            df,
            lambda p: qwkit.agreement_score(
                p.select("r1", "r2", "r3").to_numpy(), coefficient=coefficient
            ),
        )
        assert got == want

    def test_agreement_test(self):
        df = self._raters(SEED + 12)
        got = _agg(
            df, pl.col("r1").qwk.agreement_test("r2", "r3", coefficient="gwet", weights="linear")
        )
        for key, part in df.group_by("prompt"):
            res = qwkit.agreement_test(
                part.select("r1", "r2", "r3").to_numpy(), coefficient="gwet", weights="linear"
            )
            low, high = res.confidence_interval()
            row = got[key[0]]
            assert (row["statistic"], row["standard_error"], row["pvalue"]) == (
                res.statistic,
                res.standard_error,
                res.pvalue,
            )
            assert (row["ci_low"], row["ci_high"], row["n_items"], row["n_raters"]) == (
                low,
                high,
                res.n_items,
                3,
            )


#: Every expression of the namespace, on columns g (groups), y, p, q, w (weights), n.
EXPRESSIONS = {
    "kappa": lambda: pl.col("y").qwk.kappa("p"),
    "kappa sample_weight": lambda: pl.col("y").qwk.kappa("p", sample_weight="w"),
    "kappa_test": lambda: pl.col("y").qwk.kappa_test("p", counts="n"),
    "soft_kappa": lambda: pl.col("y").qwk.soft_kappa("p"),
    "agreement": lambda: pl.col("y").qwk.agreement("p", "q", coefficient="fleiss"),
    "agreement_test": lambda: pl.col("y").qwk.agreement_test("p", "q", coefficient="light"),
}


class TestNoRows:
    """A frame with no rows (after a filter, an empty lazy scan): as Polars' own
    aggregations — ``group_by().agg()`` an empty frame, ``select`` one row of null
    (``pl.col("y").mean()``'s). Before: qwkit's error on empty ratings (issue 28)."""

    @staticmethod
    def _frame() -> pl.DataFrame:
        return pl.DataFrame(
            {"g": [1, 1, 2], "y": [1, 2, 3], "p": [1, 2, 2], "q": [2, 2, 3]}
        ).with_columns(w=pl.lit(1.5), n=pl.lit(2))

    @pytest.mark.parametrize("name", EXPRESSIONS)
    def test_group_by_of_no_rows_is_empty(self, name):
        empty = self._frame().filter(pl.col("y") > 10)
        expr = EXPRESSIONS[name]().alias("out")
        want = empty.group_by("g").agg(pl.col("y").mean().alias("mean"))
        out = empty.group_by("g").agg(expr)  # raised before
        assert out.shape == (0, 2) and out.columns == ["g", "out"]
        assert out.schema["g"] == want.schema["g"]
        for engine in ("in-memory", "streaming"):
            lazy = empty.lazy().group_by("g").agg(expr).collect(engine=engine)
            assert lazy.shape == (0, 2) and lazy.schema == out.schema

    @pytest.mark.parametrize("name", EXPRESSIONS)
    # the frame with rows, for the type: three items give a degenerate interval
    @pytest.mark.filterwarnings("ignore::qwkit.DegenerateIntervalWarning")
    def test_select_of_no_rows_is_null(self, name):
        empty = self._frame().clear()
        assert empty.select(pl.col("y").mean()).item() is None  # Polars' own
        out = empty.select(EXPRESSIONS[name]().alias("out"))
        assert out.shape == (1, 1) and out["out"].null_count() == 1
        full = self._frame().select(EXPRESSIONS[name]().alias("out"))
        assert out.schema == full.schema  # the type a frame with rows gives
        lazy = empty.lazy().select(EXPRESSIONS[name]().alias("out")).collect()
        assert lazy.equals(out, null_equal=True)
