"""Tests of kappa_gradient_hessian and the boosting step shared by the integrations.

Oracles: central finite differences of ``qwkit.soft_kappa_score`` (gradient), finite
differences of our gradient (exact Hessian), the dense Hessian assembled entry by entry
in ``tests/oracles/naive_gradients.py``, and the definition of the loss over all pairs of items.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import qwkit
from oracles.naive_gradients import (
    dense_hessian,
    fd_gradient,
    fd_jacobian,
    gauss_newton_matrix,
    loss_definition,
    loss_parts,
)
from qwkit import kappa_gradient_hessian
from qwkit._integrations._boosting import boosting_gradient_hessian


def _data(n, seed=20261121, weighted=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 6, n).astype(float)
    y[:2] = [0.0, 5.0]  # never constant
    f = 0.6 * y + rng.normal(1.0, 1.2, n)
    w = rng.exponential(size=n) if weighted else None
    return y, f, w


def _soft_loss(y, w):
    return lambda f: 1.0 - qwkit.soft_kappa_score(y, f, sample_weight=w)


def _gradient(y, w, **kw):
    return lambda f: kappa_gradient_hessian(y, f, sample_weight=w, **kw)[0]


# ============================================================================ gradient (T4)


class TestGradient:
    @pytest.mark.parametrize("weighted", [False, True])
    @pytest.mark.parametrize("n", [2, 3, 17, 60])
    def test_matches_finite_differences_of_soft_kappa(self, n, weighted):
        y, f, w = _data(n, seed=n, weighted=weighted)
        grad, _ = kappa_gradient_hessian(y, f, sample_weight=w)
        expected = fd_gradient(_soft_loss(y, w), f)
        np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-9)

    def test_matches_the_definition_over_pairs(self):
        # the pairwise definition, differentiated numerically, as a second oracle
        y, f, w = _data(12, weighted=True)
        grad, _ = kappa_gradient_hessian(y, f, sample_weight=w)
        expected = fd_gradient(lambda g: loss_definition(y, g, w), f)
        np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-10)

    def test_docstring_example_from_finite_differences(self):
        # provenance of the docstring's numbers: central differences of soft_kappa_score
        y, f = [1, 2, 3, 4], np.array([1.2, 1.9, 3.4, 3.6])
        grad, hess = kappa_gradient_hessian(y, f)
        np.testing.assert_allclose(grad, fd_gradient(_soft_loss(y, None), f), rtol=1e-7)
        np.testing.assert_allclose(np.round(grad, 6), [0.055795, -0.016654, 0.080107, -0.098098])
        _, den, _ = loss_parts(y, f)
        np.testing.assert_allclose(hess, 2.0 / den, rtol=1e-14)

    def test_closed_form(self):
        # (T4) written out with the uncentered sums of the textbook form
        y, f, w = _data(25, weighted=True)
        num, den, ybar = loss_parts(y, f, w)
        kappa = 1.0 - num / den
        expected = 2.0 * w * (kappa * (f - ybar) - (y - ybar)) / den
        grad, _ = kappa_gradient_hessian(y, f, sample_weight=w)
        np.testing.assert_allclose(grad, expected, rtol=1e-10, atol=1e-14)

    def test_counts_are_repeated_rows(self):
        y, f, _ = _data(15)
        counts = np.random.default_rng(3).integers(0, 4, 15)
        counts[:2] = 1
        grad, hess = kappa_gradient_hessian(y, f, counts=counts)
        g_rep, h_rep = kappa_gradient_hessian(np.repeat(y, counts), np.repeat(f, counts))
        # each row's derivative is the sum over its copies
        owner = np.repeat(np.arange(15), counts)
        np.testing.assert_allclose(grad, np.bincount(owner, g_rep, minlength=15), atol=1e-15)
        np.testing.assert_allclose(hess, np.bincount(owner, h_rep, minlength=15), rtol=1e-13)

    def test_counts_equal_integer_weights(self):
        y, f, _ = _data(15)
        counts = np.arange(15) % 4
        a = kappa_gradient_hessian(y, f, counts=counts, hessian="diagonal")
        b = kappa_gradient_hessian(y, f, sample_weight=counts.astype(float), hessian="diagonal")
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        # integral floats are counts too
        c = kappa_gradient_hessian(y, f, counts=counts.astype(float), hessian="diagonal")
        np.testing.assert_array_equal(a[0], c[0])

    def test_zero_weight_rows_are_dropped(self):
        y, f, w = _data(20, weighted=True)
        w[5:9] = 0.0
        keep = w > 0
        for kind in ("gauss-newton", "dinkelbach", "diagonal"):
            grad, hess = kappa_gradient_hessian(y, f, sample_weight=w, hessian=kind)
            g_kept, h_kept = kappa_gradient_hessian(
                y[keep], f[keep], sample_weight=w[keep], hessian=kind
            )
            np.testing.assert_array_equal(grad[~keep], 0.0)
            np.testing.assert_array_equal(hess[~keep], 0.0)
            np.testing.assert_allclose(grad[keep], g_kept, rtol=1e-12, atol=1e-16)
            np.testing.assert_allclose(hess[keep], h_kept, rtol=1e-12, atol=1e-16)

    def test_unit_weights_are_no_weights(self):
        y, f, _ = _data(10)
        a = kappa_gradient_hessian(y, f)
        b = kappa_gradient_hessian(y, f, sample_weight=np.ones(10))
        np.testing.assert_array_equal(a[0], b[0])

    def test_far_from_zero_no_cancellation(self):
        # 10⁹ + small ratings: the same derivatives as the small ratings themselves
        y, f, _ = _data(30)
        small = kappa_gradient_hessian(y, f, hessian="diagonal")
        big = kappa_gradient_hessian(y + 1e9, f + 1e9, hessian="diagonal")
        np.testing.assert_allclose(big[0], small[0], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(big[1], small[1], rtol=1e-5, atol=1e-8)

    @pytest.mark.parametrize("scale", [1e-150, 1e-30, 1e30, 1e150])
    def test_extreme_magnitudes(self, scale):
        y, f, _ = _data(10)
        grad, hess = kappa_gradient_hessian(y * scale, f * scale)
        base_g, base_h = kappa_gradient_hessian(y, f)
        np.testing.assert_allclose(grad * scale, base_g, rtol=1e-12)
        np.testing.assert_allclose(hess * scale * scale, base_h, rtol=1e-12)

    def test_integer_inputs(self):
        grad, _ = kappa_gradient_hessian(np.array([0, 1, 2, 3]), np.array([1, 1, 2, 2]))
        expected, _ = kappa_gradient_hessian([0.0, 1, 2, 3], [1.0, 1, 2, 2])
        np.testing.assert_array_equal(grad, expected)


# ============================================================================ Hessians (T5–T9)


class TestHessian:
    @pytest.mark.parametrize("weighted", [False, True])
    def test_dense_oracle_matches_finite_differences_of_gradient(self, weighted):
        y, f, w = _data(9, seed=7, weighted=weighted)
        exact = dense_hessian(y, f, w)
        numeric = fd_jacobian(_gradient(y, w), f)
        np.testing.assert_allclose(numeric, exact, rtol=1e-5, atol=1e-8 * np.abs(exact).max())
        np.testing.assert_allclose(exact, exact.T, atol=1e-15)

    @pytest.mark.parametrize("weighted", [False, True])
    def test_structure_diag_minus_rank_two(self, weighted):
        # (T5): H = (2κ/D) diag(w) − (g dᵀ + d gᵀ)/D
        y, f, w = _data(11, seed=11, weighted=weighted)
        w = np.ones(11) if w is None else w
        num, den, ybar = loss_parts(y, f, w)
        kappa = 1.0 - num / den
        grad, _ = kappa_gradient_hessian(y, f, sample_weight=w)
        d = 2.0 * w * (f - ybar)
        rest = dense_hessian(y, f, w) - 2.0 * kappa / den * np.diag(w)
        np.testing.assert_allclose(rest, -(np.outer(grad, d) + np.outer(d, grad)) / den, atol=1e-14)
        assert np.linalg.matrix_rank(rest, tol=1e-10 * np.abs(rest).max()) == 2

    def test_spectrum_relative_to_weights(self):
        # eigenvalues of diag(w)^-½ H diag(w)^-½: 2κ/D (n − 2 times) and
        # [2κ − ĝᵀd̂ ∓ ‖ĝ‖‖d̂‖]/D with ĝ = g/√w, d̂ = d/√w
        y, f, w = _data(8, seed=5, weighted=True)
        num, den, ybar = loss_parts(y, f, w)
        kappa = 1.0 - num / den
        grad, _ = kappa_gradient_hessian(y, f, sample_weight=w)
        gh, dh = grad / np.sqrt(w), 2.0 * np.sqrt(w) * (f - ybar)
        s = np.diag(1 / np.sqrt(w))
        eig = np.sort(np.linalg.eigvalsh(s @ dense_hessian(y, f, w) @ s))
        cross, norms = gh @ dh, np.linalg.norm(gh) * np.linalg.norm(dh)
        expected = np.sort(
            [2 * kappa / den] * 6
            + [(2 * kappa - cross - norms) / den, (2 * kappa - cross + norms) / den]
        )
        np.testing.assert_allclose(eig, expected, rtol=1e-9, atol=1e-14)

    @pytest.mark.parametrize("weighted", [False, True])
    def test_diagonal_option_is_the_exact_diagonal(self, weighted):
        y, f, w = _data(14, seed=2, weighted=weighted)
        _, diag = kappa_gradient_hessian(y, f, sample_weight=w, hessian="diagonal")
        np.testing.assert_allclose(diag, np.diag(dense_hessian(y, f, w)), rtol=1e-10, atol=1e-15)

    def test_dinkelbach_is_the_exact_hessian_without_rank_two(self):
        y, f, w = _data(14, seed=4, weighted=True)
        num, den, _ = loss_parts(y, f, w)
        _, dink = kappa_gradient_hessian(y, f, sample_weight=w, hessian="dinkelbach")
        np.testing.assert_allclose(dink, 2.0 * (1.0 - num / den) * w / den, rtol=1e-10)

    def test_gauss_newton(self):
        # (T9a) 2w/D, and (T9c): the full Gauss–Newton matrix 2JᵀJ of rᵢ = √wᵢ(fᵢ − yᵢ)/√D
        # is (2/D) diag(w) − (n dᵀ + d nᵀ)/(2D²) + L d dᵀ/(2D²)
        y, f, w = _data(10, seed=9, weighted=True)
        num, den, ybar = loss_parts(y, f, w)
        _, gn = kappa_gradient_hessian(y, f, sample_weight=w)
        np.testing.assert_allclose(gn, 2.0 * w / den, rtol=1e-12)
        n_ = 2.0 * w * (f - y)
        d = 2.0 * w * (f - ybar)
        full = (
            2.0 * np.diag(w) / den
            - (np.outer(n_, d) + np.outer(d, n_)) / (2 * den**2)
            + num / den * np.outer(d, d) / (2 * den**2)
        )
        np.testing.assert_allclose(gauss_newton_matrix(y, f, w), full, rtol=1e-6, atol=1e-9)

    def test_at_the_optimum_hessian_is_diagonal(self):
        # (T8): g = 0 only at f = y, where H = (2κ/D) diag(w) with κ = 1
        y, _, w = _data(9, weighted=True)
        grad, gn = kappa_gradient_hessian(y, y, sample_weight=w)
        np.testing.assert_array_equal(grad, 0.0)
        _, den, _ = loss_parts(y, y, w)
        np.testing.assert_allclose(dense_hessian(y, y, w), np.diag(2.0 * w / den), atol=1e-15)
        np.testing.assert_allclose(fd_jacobian(_gradient(y, w), y), np.diag(gn), atol=1e-8)
        _, dink = kappa_gradient_hessian(y, y, sample_weight=w, hessian="dinkelbach")
        np.testing.assert_allclose(dink, gn, rtol=1e-12)

    def test_at_a_model_optimum_the_model_hessian_is_diagonal_part(self):
        # (T8) for models: at the kappa-optimal linear model f = Aθ, A = [1, X], Aᵀg = 0
        # and the Hessian in θ is (2κ/D)·Aᵀdiag(w)A, with κ < 1
        rng = np.random.default_rng(20261121)
        X = rng.normal(size=(40, 3))
        y = np.rint(X @ [1.0, -0.5, 0.3] + rng.normal(size=40)) + 3.0
        w = rng.exponential(size=40)
        fit = qwkit.kappa_regression(X, y, sample_weight=w)
        A = np.column_stack([np.ones(40), X])
        theta = np.r_[fit.intercept, fit.coef]
        f = A @ theta
        grad, _ = kappa_gradient_hessian(y, f, sample_weight=w)
        assert np.abs(A.T @ grad).max() < 1e-9
        num, den, _ = loss_parts(y, f, w)
        expected = 2.0 * (1.0 - num / den) / den * (A.T * w) @ A
        numeric = fd_jacobian(
            lambda t: A.T @ kappa_gradient_hessian(y, A @ t, sample_weight=w)[0], theta
        )
        np.testing.assert_allclose(numeric, expected, rtol=1e-5, atol=1e-7)
        assert 0 < 1.0 - num / den < 1

    def test_gauss_newton_strictly_positive(self):
        y, f, w = _data(30, weighted=True)
        w[3] = 0.0
        _, hess = kappa_gradient_hessian(y, f, sample_weight=w)
        assert np.all(hess[w > 0] > 0)
        assert hess[3] == 0.0


class TestConstantStart:
    """(T7): at a constant c, κ = 0 and Hᵢᵢ = 8wᵢ²(yᵢ − ȳ)(c − ȳ)/D²."""

    def test_diagonal_vanishes_at_the_weighted_label_mean(self):
        y = np.array([1.0, 2.0, 3.0, 6.0, 0.0])
        w = np.array([1.0, 2.0, 1.0, 1.0, 3.0])  # weighted mean 14/8 = 1.75, exact
        f = np.full(5, 1.75)
        _, diag = kappa_gradient_hessian(y, f, sample_weight=w, hessian="diagonal")
        np.testing.assert_array_equal(diag, 0.0)
        # ... and so does the whole dense Hessian: both terms of (T5) vanish
        np.testing.assert_array_equal(dense_hessian(y, f, w), 0.0)
        np.testing.assert_allclose(fd_jacobian(_gradient(y, w), f), 0.0, atol=1e-7)

    @pytest.mark.parametrize("c", [0.0, 0.5, 4.0])
    def test_diagonal_elsewhere_has_both_signs(self, c):
        y = np.array([1.0, 2.0, 3.0, 6.0, 0.0])
        w = np.array([1.0, 2.0, 1.0, 1.0, 3.0])
        f = np.full(5, c)
        _, diag = kappa_gradient_hessian(y, f, sample_weight=w, hessian="diagonal")
        _, den, ybar = loss_parts(y, f, w)
        expected = 8.0 * w**2 * (y - ybar) * (c - ybar) / den**2
        np.testing.assert_allclose(diag, expected, rtol=1e-12)
        np.testing.assert_allclose(diag, np.diag(dense_hessian(y, f, w)), rtol=1e-10)
        assert (diag > 0).any() and (diag < 0).any()

    def test_gradient_at_a_constant_ignores_the_constant(self):
        # κ = 0 at every constant: g = 2w(ȳ − y)/D, the constant enters only through D
        y, _, w = _data(12, weighted=True)
        for c in (-3.0, 0.0, 2.5, 40.0):
            grad, _ = kappa_gradient_hessian(y, np.full(12, c), sample_weight=w)
            _, den, ybar = loss_parts(y, np.full(12, c), w)
            np.testing.assert_allclose(grad, 2.0 * w * (ybar - y) / den, rtol=1e-10, atol=1e-15)
            assert abs(grad.sum()) < 1e-12 * np.abs(grad).sum()

    def test_dinkelbach_vanishes_at_every_constant(self):
        y, _, _ = _data(12)
        _, dink = kappa_gradient_hessian(y, np.full(12, 3.0), hessian="dinkelbach")
        np.testing.assert_array_equal(dink, 0.0)

    def test_stretch_along_the_first_direction(self):
        # (T12): κ(c + t(y − ȳ)) peaks at t* = √(1 + (c − ȳ)²/s²) with value 1/t*
        y, _, _ = _data(40)
        c, u = 0.0, y - y.mean()
        t_star = np.sqrt(1 + (c - y.mean()) ** 2 / y.var())
        ts = t_star * np.array([0.9, 1.0, 1.1])
        values = [qwkit.soft_kappa_score(y, c + t * u) for t in ts]
        assert values[1] == pytest.approx(1 / t_star, rel=1e-12)
        assert values[1] > values[0] and values[1] > values[2]


# ============================================================================ properties

finite = st.floats(-50, 50, allow_nan=False, width=64)


@st.composite
def problems(draw):
    n = draw(st.integers(2, 12))
    y = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), float)
    f = np.array(draw(st.lists(finite, min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.floats(0.1, 10), min_size=n, max_size=n)))
    if y.min() == y.max():
        y[0] = y[0] + 1.0
    return y, f, w


class TestProperties:
    @given(problems(), st.floats(-100, 100), st.sampled_from([0.125, 3.0, 1024.0]))
    def test_shift_and_scale(self, prob, shift, scale):
        y, f, w = prob
        grad, hess = kappa_gradient_hessian(y, f, sample_weight=w, hessian="diagonal")
        g2, h2 = kappa_gradient_hessian(
            scale * (y + shift), scale * (f + shift), sample_weight=w, hessian="diagonal"
        )
        tol = 1e-7 * np.abs(grad).max()
        np.testing.assert_allclose(g2 * scale, grad, rtol=1e-6, atol=tol)
        np.testing.assert_allclose(
            h2 * scale**2, hess, rtol=1e-5, atol=1e-6 * np.abs(hess).max() + 1e-300
        )

    @given(problems(), st.sampled_from([1e-3, 7.0, 1e6]))
    def test_weights_scale_free(self, prob, c):
        y, f, w = prob
        a = kappa_gradient_hessian(y, f, sample_weight=w)
        b = kappa_gradient_hessian(y, f, sample_weight=w * c)
        np.testing.assert_allclose(a[0], b[0], rtol=1e-10, atol=1e-14 * np.abs(a[0]).max())
        np.testing.assert_allclose(a[1], b[1], rtol=1e-10)

    @given(problems())
    def test_sum_of_gradient_moves_the_mean_only_with_kappa(self, prob):
        # (T11): Σg = 2Wκ(f̄ − ȳ)/D
        y, f, w = prob
        grad, gn = kappa_gradient_hessian(y, f, sample_weight=w)
        num, den, ybar = loss_parts(y, f, w)
        fbar = (w @ f) / w.sum()
        expected = 2.0 * w.sum() * (1.0 - num / den) * (fbar - ybar) / den
        assert grad.sum() == pytest.approx(expected, rel=1e-6, abs=1e-9 * np.abs(grad).sum())
        assert np.all(gn > 0)

    @given(problems(), st.integers(0, 2**32 - 1))
    def test_directional_derivative(self, prob, seed):
        y, f, w = prob
        v = np.random.default_rng(seed).standard_normal(len(y))
        grad, _ = kappa_gradient_hessian(y, f, sample_weight=w)
        h = 1e-6 * max(1.0, np.abs(f).max())
        slope = (loss_definition(y, f + h * v, w) - loss_definition(y, f - h * v, w)) / (2 * h)
        assert grad @ v == pytest.approx(slope, rel=1e-4, abs=1e-7)


# ============================================================================ errors


class TestErrors:
    def test_constant_y_true(self):
        with pytest.raises(ValueError, match=r"`y_true` is constant .*no gradient"):
            kappa_gradient_hessian([2, 2, 2], [1.0, 2.0, 3.0])
        # constant among the items that count
        with pytest.raises(ValueError, match="`y_true` is constant"):
            kappa_gradient_hessian([2, 2, 5], [1.0, 2.0, 3.0], sample_weight=[1, 1, 0])

    def test_lengths(self):
        with pytest.raises(ValueError, match="same length"):
            kappa_gradient_hessian([1, 2, 3], [1.0, 2.0])

    def test_empty(self):
        with pytest.raises(ValueError, match="empty"):
            kappa_gradient_hessian([], [])

    @pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
    def test_non_finite(self, bad):
        with pytest.raises(ValueError, match=r"`raw_prediction` contains .* at index 1"):
            kappa_gradient_hessian([1, 2, 3], [1.0, bad, 2.0])
        with pytest.raises(ValueError, match=r"`y_true` contains .* at index 2"):
            kappa_gradient_hessian([1, 2, bad], [1.0, 2.0, 2.0])

    def test_strings(self):
        with pytest.raises(TypeError, match="`y_true` must be numeric; got strings"):
            kappa_gradient_hessian(["a", "b"], [1.0, 2.0])
        with pytest.raises(TypeError, match="`raw_prediction`"):
            kappa_gradient_hessian([1, 2], "12")

    def test_not_1d(self):
        with pytest.raises(ValueError, match="`raw_prediction` must be 1-D"):
            kappa_gradient_hessian([1, 2], [[1.0, 2.0]])

    def test_hessian_option(self):
        with pytest.raises(ValueError, match=r"`hessian` must be .*; got 'exact'"):
            kappa_gradient_hessian([1, 2], [1.0, 2.0], hessian="exact")

    def test_weights_and_counts_together(self):
        with pytest.raises(ValueError, match="`sample_weight` and `counts` are exclusive"):
            kappa_gradient_hessian([1, 2], [1.0, 2.0], sample_weight=[1, 1], counts=[1, 1])

    @pytest.mark.parametrize(
        ("counts", "error", "match"),
        [
            ([1, -1, 2], ValueError, r"non-negative whole numbers .*; got -1 at index 1"),
            ([1, 1.5, 2], ValueError, r"whole numbers .*; got 1.5 at index 1"),
            ([1.0, np.nan, 2.0], ValueError, r"whole numbers .*; got nan"),
            ([0, 0, 0], ValueError, "must not sum to zero"),
            ([1, 2], ValueError, r"one count per row \(3\); got 2"),
            (["1", "2", "3"], TypeError, "`counts` must hold non-negative integers"),
        ],
    )
    def test_bad_counts(self, counts, error, match):
        with pytest.raises(error, match=match):
            kappa_gradient_hessian([1, 2, 3], [1.0, 2.0, 2.0], counts=counts)

    @pytest.mark.parametrize(
        ("weights", "match"),
        [([1, -1, 2], "non-negative"), ([0, 0, 0], "sum to zero"), ([1, 2], "one weight")],
    )
    def test_bad_sample_weight(self, weights, match):
        with pytest.raises(ValueError, match=match):
            kappa_gradient_hessian([1, 2, 3], [1.0, 2.0, 2.0], sample_weight=weights)

    def test_overflowing_hessian_is_an_error_not_inf(self):
        with pytest.raises(ValueError, match="overflow float64"):
            kappa_gradient_hessian([0.0, 1e-200, 2e-200], [1e-200, 0.0, 3e-200])


# ================================================================ boosting step (T10, T13)


class TestBoostingStep:
    @pytest.mark.parametrize("weighted", [False, True])
    def test_gradient_mode_is_the_scaled_gradient(self, weighted):
        y, f, w = _data(20, weighted=weighted)
        grad, hess = boosting_gradient_hessian(y, f, w, intercept="gradient")
        g, h = kappa_gradient_hessian(y, f, sample_weight=w)
        _, den, _ = loss_parts(y, f, w)
        np.testing.assert_allclose(grad, den / 2 * g, rtol=1e-10, atol=1e-13)  # (T10)
        np.testing.assert_allclose(hess, den / 2 * h, rtol=1e-12)
        np.testing.assert_array_equal(hess, np.ones(20) if w is None else w)

    @pytest.mark.parametrize("weighted", [False, True])
    def test_exact_intercept(self, weighted):
        # (T13): (D_c/2)·g(f − f̄ + ȳ) + w(f̄ − ȳ), with D_c = D at the corrected point
        y, f, w = _data(20, weighted=weighted)
        wv = np.ones(20) if w is None else w
        fbar, ybar = (wv @ f) / wv.sum(), (wv @ y) / wv.sum()
        shifted = f - fbar + ybar
        g, h = kappa_gradient_hessian(y, shifted, sample_weight=w)
        _, den_c, _ = loss_parts(y, shifted, w)
        grad, hess = boosting_gradient_hessian(y, f, w, intercept="exact")
        np.testing.assert_allclose(grad, den_c / 2 * g + wv * (fbar - ybar), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hess, den_c / 2 * h, rtol=1e-12)
        assert grad.sum() == pytest.approx(wv.sum() * (fbar - ybar), rel=1e-9)

    def test_modes_agree_when_the_mean_matches(self):
        y, f, w = _data(20, weighted=True)
        f = f - (w @ f) / w.sum() + (w @ y) / w.sum()
        a, _ = boosting_gradient_hessian(y, f, w, intercept="exact")
        b, _ = boosting_gradient_hessian(y, f, w, intercept="gradient")
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)

    def test_first_step_from_a_constant_is_squared_error(self):
        y, _, w = _data(20, weighted=True)
        grad, hess = boosting_gradient_hessian(y, np.full(20, 0.5), w, intercept="exact")
        np.testing.assert_allclose(grad, w * (0.5 - y), rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(hess, w)

    def test_perfect_fit_is_a_stationary_point(self):
        y, _, w = _data(20, weighted=True)
        for mode in ("exact", "gradient"):
            grad, _ = boosting_gradient_hessian(y, y.copy(), w, intercept=mode)
            np.testing.assert_allclose(grad, 0.0, atol=1e-14)

    def test_rejects_two_dimensional_predictions(self):
        with pytest.raises(ValueError, match="one raw score per item"):
            boosting_gradient_hessian(
                np.array([1.0, 2.0]), np.ones((2, 3)), None, intercept="exact"
            )

    @pytest.mark.parametrize("module", ["qwkit.lightgbm", "qwkit.xgboost"])
    @pytest.mark.parametrize(
        ("labels", "preds", "kind", "message"),
        [
            ([], [], qwkit.QwkitError, "`y_true` is empty: the kappa objective needs the "),
            (["a", "b", "c"], [0.0, 1.0, 2.0], qwkit.QwkitTypeError, "`y_true` must be numeric"),
            (
                np.array(["1", "2", "3"]),
                [0.0, 1.0, 2.0],
                qwkit.QwkitTypeError,
                "`y_true` must be numeric",
            ),
            (None, [0.0, 1.0], qwkit.QwkitTypeError, "`y_true` must be array-like; got None"),
            (
                [1, 2, 3],
                [0.0, 1.0],
                qwkit.QwkitError,
                "`y_true` and `y_pred` must have the same length",
            ),
        ],
        ids=["empty", "text", "numeric-text", "none", "lengths"],
    )
    def test_bad_labels_are_named_not_numpys(self, module, labels, preds, kind, message):
        # issue 18: numpy's "zero-size array to reduction operation" for empty labels,
        # text silently read as numbers, "Got 1 labels and 2 predictions"
        objective = importlib.import_module(module).kappa_objective
        with pytest.raises(kind, match=f"^{message}") as info:
            objective(labels, preds, None)
        assert "y_true" in info.value.parameters
