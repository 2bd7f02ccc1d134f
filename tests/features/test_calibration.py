"""Tests of calibrate_judge and human_scale_estimate (oracles:
tests/oracles/naive_calibration.py; docs/calibration.md)."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

import qwkit
from oracles.naive_calibration import naive_ppi, ppi_lambda, ppi_mean

SEED = 20261208


def _population(gen, n, bias=2.0, scale=2.0, noise=1.0):
    """A latent quality, human ratings 1–5 of it, and a biased judge on 1–10."""
    q = gen.normal(size=n)
    human = np.clip(np.rint(3 + q + gen.normal(0, 0.6, n)), 1, 5)
    judge = 4 + bias + scale * q + gen.normal(0, noise, n)
    return human, judge


# ------------------------------------------------------------------- PPI formulas

# A small fixed example; the numbers are those of the authors' package, ppi_py 0.2.3
# (pip install ppi-python==0.2.3), ppi_mean_pointestimate / ppi_mean_ci(alpha=0.05):
#   lam=1    -> 3.1666666666666665, (2.2565976387603848, 4.076735694572948)
#   lam=0.3  -> 3.2249999999999996, (2.753269313498273, 3.696730686501726)
#   lam=None -> 3.220390052446945,  (2.7572935178644387, 3.6834865870294515)
Y = np.array([3, 4, 2, 5, 3, 3, 4, 1, 2, 4, 5, 3], dtype=float)
F = np.array([6.5, 7.0, 4.0, 9.0, 6.0, 5.5, 8.0, 3.0, 5.0, 6.0, 8.5, 7.5])
FU = np.array("5 7.5 6 9.5 4.5 6.5 7 8 3.5 6 5.5 7 8.5 4 6.5 7.5 5 9 6 2.5".split(), dtype=float)
PPI_PY = {
    1.0: (3.1666666666666665, 2.2565976387603848, 4.076735694572948),
    0.3: (3.2249999999999996, 2.753269313498273, 3.696730686501726),
    None: (3.220390052446945, 2.7572935178644387, 3.6834865870294515),
}


class TestPublishedFormulas:
    @pytest.mark.parametrize("lam", [1.0, 0.3])
    def test_the_transcribed_formulas_reproduce_ppi_py(self, lam):
        np.testing.assert_allclose(ppi_mean(Y, F, FU, lam), PPI_PY[lam], rtol=1e-14)

    def test_ppi_py_power_tuned_lambda(self):
        lam = ppi_lambda(Y, F, FU)
        np.testing.assert_allclose(ppi_mean(Y, F, FU, lam), PPI_PY[None], rtol=1e-13)

    def test_our_estimate_is_the_rectified_mean_at_our_lambda(self):
        res = qwkit.human_scale_estimate(Y, F, FU).estimate()
        assert res.lam != 0.0
        assert res.estimate == pytest.approx(ppi_mean(Y, F, FU, res.lam)[0], rel=1e-14)  # (P1)

    def test_our_lambda_minimizes_the_variance_of_the_rectified_mean(self):
        # eq. P2 with the (n − 1)-divisor variances; P3 is its minimizer
        n, big_n = Y.size, FU.size

        def var(lam):
            return np.var(Y - lam * F, ddof=1) / n + lam**2 * np.var(FU, ddof=1) / big_n

        best = optimize.minimize_scalar(
            var, bounds=(-5, 5), method="bounded", options={"xatol": 1e-12}
        )
        res = qwkit.human_scale_estimate(Y, F, FU).estimate()
        assert res.lam == pytest.approx(best.x, abs=1e-7)

    def test_close_to_ppi_py_at_moderate_n(self):
        # the t interval of eq. P4 and ppi_py's normal one converge as n grows
        gen = np.random.default_rng(SEED)
        human, judge = _population(gen, 5400)
        y, f, fu = human[:400], judge[:400], judge[400:]
        ours = qwkit.human_scale_estimate(y, f, fu).estimate()
        est, lo, hi = ppi_mean(y, f, fu, ppi_lambda(y, f, fu))
        assert ours.estimate == pytest.approx(est, abs=0.01)
        assert (ours.high - ours.low) == pytest.approx(hi - lo, rel=0.03)


# --------------------------------------------------------------- human_scale_estimate


class TestHumanScaleEstimate:
    def _grouped(self, seed=SEED, n=90, big_n=900):
        gen = np.random.default_rng(seed)
        human, judge = _population(gen, n + big_n)
        groups = np.array(["a", "b", "c"])[gen.integers(0, 3, n + big_n)]
        return human[:n], judge[:n], judge[n:], groups[:n], groups[n:]

    @pytest.mark.parametrize("statistic", ["mean", "proportions"])
    def test_matches_the_naive_reference(self, statistic):
        y, f, fu, gl, gu = self._grouped()
        if statistic == "proportions":  # the judge's ratings on the human scale
            f, fu = (np.clip(np.rint(v / 2), 1, 5) for v in (f, fu))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", qwkit.DegenerateIntervalWarning)
            res = qwkit.human_scale_estimate(
                y, f, fu, groups=gl, groups_unlabelled=gu, statistic=statistic
            )
        if statistic == "mean":
            ym, fm, fum = y[:, None], f[:, None], fu[:, None]
        else:
            ym, fm, fum = ((v[:, None] == np.arange(1, 6)).astype(float) for v in (y, f, fu))
        want = naive_ppi(ym, fm, fum, gl, gu, shared=True)
        overall = naive_ppi(ym, fm, fum, np.zeros(y.size), np.zeros(fu.size))
        want.update({(None, c): v for (_, c), v in overall.items()})
        for r in res.estimates:
            c = 0 if statistic == "mean" else int(r.quantity) - 1
            est, var, df, lam, classical, var0 = want[(r.group, c)]
            assert r.estimate == pytest.approx(est, rel=1e-12, abs=1e-14)
            assert r.standard_error == pytest.approx(math.sqrt(var), rel=1e-10, abs=1e-14)
            assert r.df == df and r.lam == pytest.approx(lam, rel=1e-10, abs=1e-14)
            assert r.human_only == pytest.approx(classical, rel=1e-14)
            assert r.human_only_standard_error == pytest.approx(math.sqrt(var0), rel=1e-12)
            t = stats.t.ppf(0.975, df)
            assert r.low == pytest.approx(est - t * math.sqrt(var), rel=1e-10, abs=1e-12)

    def test_narrower_with_an_informative_judge_and_barely_wider_with_a_useless_one(self):
        # n = 90 labelled, about 30 per group. An informative judge narrows every interval;
        # a useless one costs at most the price of estimating lambda: the t quantile on
        # n - 2 df, the residual divisor n - 2 and lambda's noise (about 1.02 at n = 30)
        y, f, fu, gl, gu = self._grouped()
        res = qwkit.human_scale_estimate(y, f, fu, groups=gl, groups_unlabelled=gu)
        for r in res.estimates:
            assert r.high - r.low < r.human_only_high - r.human_only_low
        useless = np.random.default_rng(1).normal(size=f.size + fu.size)
        res = qwkit.human_scale_estimate(
            y, useless[: f.size], useless[f.size :], groups=gl, groups_unlabelled=gu
        )
        ratios = [(r.high - r.low) / (r.human_only_high - r.human_only_low) for r in res.estimates]
        assert max(ratios) < 1.1 and np.mean(ratios) < 1.05

    def test_coverage_of_a_known_truth_at_small_n(self):
        # infinite population with a known mean; n = 20 labelled, a strongly biased judge.
        # 300 replicates: the Monte-Carlo SE of a 0.95 coverage is 0.0126; ±3.5 SE.
        reps, n, big_n = 300, 20, 400
        gen = np.random.default_rng(SEED)
        big = _population(np.random.default_rng(7), 400_000)[0]
        truth = big.mean()  # the population's mean, to ±0.002 (ratings' SD ~1.1)
        hits = hits0 = 0
        for _ in range(reps):
            human, judge = _population(gen, n + big_n, bias=3.0)
            r = qwkit.human_scale_estimate(human[:n], judge[:n], judge[n:]).estimate()
            hits += r.low <= truth <= r.high
            hits0 += r.human_only_low <= truth <= r.human_only_high
        tol = 3.5 * math.sqrt(0.95 * 0.05 / reps) + 0.005
        assert abs(hits / reps - 0.95) < tol
        assert abs(hits0 / reps - 0.95) < tol

    def test_a_good_judge_is_worth_many_labels(self):
        gen = np.random.default_rng(SEED)
        human, judge = _population(gen, 5000, noise=0.3)
        r = qwkit.human_scale_estimate(human[:200], judge[:200], judge[200:]).estimate()
        assert r.effective_labels > 2 * 200
        assert r.effective_labels == pytest.approx(
            200 * (r.human_only_standard_error / r.standard_error) ** 2, rel=1e-12
        )

    def test_groups_ranked_with_holm(self):
        gen = np.random.default_rng(SEED)
        n, big_n = 150, 3000
        g = np.repeat(["low", "mid", "high"], (n + big_n) // 3)
        shift = {"low": -1.0, "mid": 0.0, "high": 1.0}
        q = gen.normal(size=n + big_n) + np.array([shift[x] for x in g])
        human = np.clip(np.rint(3 + q + gen.normal(0, 0.5, q.size)), 1, 5)
        judge = 6 + 2 * q + gen.normal(0, 1, q.size)
        idx = gen.permutation(q.size)
        lab, unl = idx[:n], idx[n:]
        res = qwkit.human_scale_estimate(
            human[lab], judge[lab], judge[unl], groups=g[lab], groups_unlabelled=g[unl]
        )
        ranking = res.ranking()
        assert [r[0] for r in ranking] == ["high", "mid", "low"]
        assert all(r[3] == r[4] == r[2] for r in ranking)  # every pair shown
        p = [c.pvalue for c in res.comparisons]
        np.testing.assert_allclose(
            [c.pvalue_adjusted for c in res.comparisons],
            qwkit_holm(p),
        )
        d = res.to_dict()
        assert json.loads(json.dumps(d))["groups"] == ["high", "low", "mid"]
        assert "ranked" in res.summary()

    def test_cross_fitted_calibration_for_proportions(self):
        gen = np.random.default_rng(SEED)
        human, judge = _population(gen, 3000)
        res = qwkit.human_scale_estimate(
            human[:300],
            judge[:300],
            judge[300:],
            statistic="proportions",
            calibration="thresholds",
            rng=0,
        )
        shares = np.array([r.estimate for r in res.estimates])
        truth = np.array([(human == k).mean() for k in range(1, 6)])
        se = np.array([r.standard_error for r in res.estimates])
        assert np.all(np.abs(shares - truth) < 4 * se + 1e-9)
        iso = qwkit.human_scale_estimate(
            human[:300], judge[:300], judge[300:], calibration="isotonic", rng=0
        ).estimate()
        assert abs(iso.estimate - human.mean()) < 4 * iso.standard_error

    def test_probabilities_are_expected_scores(self):
        gen = np.random.default_rng(SEED)
        p = gen.dirichlet(np.ones(5), size=400)
        human = np.clip(np.rint(p @ np.arange(1, 6) + gen.normal(0, 0.5, 400)), 1, 5)
        a = qwkit.human_scale_estimate(human[:100], p[:100], p[100:]).estimate()
        b = qwkit.human_scale_estimate(
            human[:100], p[:100] @ np.arange(1, 6), p[100:] @ np.arange(1, 6)
        ).estimate()
        assert a.estimate == pytest.approx(b.estimate, rel=1e-12)

    def test_a_constant_judge_gives_the_humans_only_estimate(self):
        y = np.array([1, 2, 3, 4, 5, 3, 2, 4.0])
        r = qwkit.human_scale_estimate(y, np.full(8, 7.0), np.full(50, 7.0)).estimate()
        assert r.estimate == r.human_only and r.lam == 0.0
        assert "constant" in r.note

    def test_bad_input(self):
        y, f, fu, gl, gu = self._grouped()
        with pytest.raises(qwkit.QwkitError, match="at least two") as info:
            qwkit.human_scale_estimate(
                y, f, fu, groups=gl, groups_unlabelled=np.where(gu == "a", "z", gu)
            )
        assert info.value.parameter == "groups_unlabelled"
        with pytest.raises(qwkit.QwkitError, match="only the rating"):
            qwkit.human_scale_estimate(np.full(10, 3), f[:10], fu)
        with pytest.raises(qwkit.QwkitError, match="sum to") as info:
            qwkit.human_scale_estimate([1, 2, 3], [[0.5, 0.4], [0.5, 0.5], [0.2, 0.8]], [[1, 0]])
        assert info.value.parameter == "judge_labelled"
        with pytest.raises(qwkit.QwkitError, match="go together"):
            qwkit.human_scale_estimate(y, f, fu, groups=gl)
        with pytest.raises(qwkit.QwkitError, match="not a category"):
            qwkit.human_scale_estimate(y, f, fu, statistic="proportions")
        with pytest.raises(qwkit.QwkitError, match="same items"):
            qwkit.human_scale_estimate(y, f[:-1], fu)
        with pytest.raises(qwkit.QwkitError, match="`statistic`"):
            qwkit.human_scale_estimate(y, f, fu, statistic="median")


def qwkit_holm(p):
    """Holm's step-down adjustment, from its definition."""
    p = np.asarray(p)
    order = np.argsort(p)
    m = p.size
    adj = np.maximum.accumulate([(m - i) * p[j] for i, j in enumerate(order)])
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


# --------------------------------------------------------------------- calibrate_judge


class TestCalibrateJudge:
    def test_cut_points_are_the_exact_optimum(self):
        gen = np.random.default_rng(SEED)
        human, judge = _population(gen, 300)
        cal = qwkit.calibrate_judge(human, judge, rng=0, n_resamples=20, n_splits=10)
        best = qwkit.optimize_thresholds(human, judge, labels=np.arange(1, 6))
        assert cal.apparent == pytest.approx(best.statistic, rel=1e-12)
        mapped = cal.transform(judge)
        assert qwkit.kappa_score(human, mapped) == pytest.approx(best.statistic, rel=1e-12)

    def test_several_ratings_per_item_are_rows(self):
        gen = np.random.default_rng(SEED)
        q = gen.normal(size=200)
        human = np.clip(np.rint(3 + q[:, None] + gen.normal(0, 0.6, (200, 2))), 1, 5)
        human[::3, 1] = np.nan
        judge = 6 + 2 * q + gen.normal(0, 1, 200)
        cal = qwkit.calibrate_judge(human, judge, rng=0, n_resamples=10, n_splits=5)
        rated = ~np.isnan(human)
        rows_h = human[rated]
        rows_j = np.broadcast_to(judge[:, None], human.shape)[rated]
        best = qwkit.optimize_thresholds(rows_h, rows_j, labels=np.arange(1, 6))
        assert cal.apparent == pytest.approx(best.statistic, rel=1e-12)
        assert cal.n_ratings == rated.sum() and cal.n_items == 200

    def test_isotonic_is_pav_of_item_means(self):
        from sklearn.isotonic import IsotonicRegression

        gen = np.random.default_rng(SEED)
        human, judge = _population(gen, 300)
        judge = np.round(judge, 1)
        cal = qwkit.calibrate_judge(human, judge, method="isotonic", rng=0, n_resamples=10)
        iso = IsotonicRegression().fit(judge, human)
        np.testing.assert_allclose(cal.curve_y, iso.predict(cal.curve_x), rtol=1e-12)
        want = np.clip(np.rint(iso.predict(judge) - 1e-12 * 0), 1, 5)  # nearest label
        mid = np.abs(iso.predict(judge) % 1 - 0.5) < 1e-9
        assert np.all(cal.transform(judge)[~mid] == want[~mid])

    def test_corrected_kappa_predicts_held_out_kappa(self):
        gen = np.random.default_rng(SEED)
        human, judge = _population(gen, 200, noise=1.5)
        cal = qwkit.calibrate_judge(human, judge, rng=0)
        new_h, new_j = _population(np.random.default_rng(SEED + 1), 200_000, noise=1.5)
        held_out = qwkit.kappa_score(new_h, cal.transform(new_j))
        assert cal.apparent > cal.statistic
        assert abs(cal.statistic - held_out) < 3 * cal.standard_error
        assert cal.statistic > cal.raw_statistic  # the raw 1–10 judge rounded onto 1–5

    def test_json_round_trip_and_probabilities(self):
        gen = np.random.default_rng(SEED)
        p = gen.dirichlet(np.ones(4) * 0.5, size=200)
        human = np.clip(np.rint(p @ np.arange(1, 5) + gen.normal(0, 0.4, 200)), 1, 4)
        cal = qwkit.calibrate_judge(human, p, judge_labels=[1, 2, 3, 4], rng=0, n_resamples=10)
        again = qwkit.JudgeCalibration.from_json(cal.to_json())
        np.testing.assert_array_equal(again.transform(p), cal.transform(p))
        np.testing.assert_array_equal(
            cal.transform(p),
            qwkit.apply_thresholds(p @ np.arange(1, 5), cal.thresholds, labels=cal.labels),
        )
        with pytest.raises(qwkit.QwkitError, match="form the mapping"):
            cal.transform(p @ np.arange(1, 5))
        assert cal.to_dict()["kind"] == "judge_calibration"

    def test_plot(self):

        gen = np.random.default_rng(SEED)
        human, judge = _population(gen, 100)
        fig = qwkit.calibrate_judge(human, judge, rng=0, n_resamples=10).plot()
        assert len(fig.axes) == 2
        fig2 = qwkit.human_scale_estimate(human[:50], judge[:50], judge[50:]).plot()
        assert len(fig2.axes) == 1

    def test_bad_input(self):
        with pytest.raises(qwkit.QwkitError, match="only the rating") as info:
            qwkit.calibrate_judge([3, 3, 3, 3], [1.0, 2.0, 3.0, 4.0])
        assert info.value.parameter == "human"
        with pytest.raises(qwkit.QwkitError, match="same score") as info:
            qwkit.calibrate_judge([1, 2, 3, 4], [5.0, 5.0, 5.0, 5.0])
        assert info.value.parameter == "judge"
        with pytest.raises(qwkit.QwkitError, match="sum to"):
            qwkit.calibrate_judge([1, 2], [[0.2, 0.2], [0.5, 0.5]])
        with pytest.raises(qwkit.QwkitError, match="no finite score"):
            qwkit.calibrate_judge([1, 2, 3], [1.0, np.nan, 2.0])
        with pytest.raises(qwkit.QwkitError, match="multiple of `n_splits`"):
            qwkit.calibrate_judge(
                [1, 2, 3, 1, 2, 3], [1.0, 2, 3, 1, 2, 3], n_splits=2, n_resamples=3
            )
        with pytest.raises(qwkit.QwkitError, match="not a saved judge calibration"):
            qwkit.JudgeCalibration.from_json("{}")
