"""qwkit.torch: differentiable kappa losses and streaming metrics on tensors."""

from __future__ import annotations

import copy
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch_helpers import one_thread  # noqa: F401 - autouse fixture

import qwkit
from oracles.naive import naive_kappa_from_confusion, naive_soft_kappa
from oracles.naive_torch import (
    naive_expected_table,
    naive_soft_running_loss,
    naive_weighted_running_loss,
)
from qwkit._base._extras import install_command
from qwkit._integrations import _torch_shared
from qwkit.torch import (
    KappaMetric,
    SoftKappaLoss,
    SoftKappaMetric,
    WeightedKappaLoss,
    soft_kappa_loss,
    weighted_kappa_loss,
)

WEIGHTS = ["quadratic", "linear", "identity"]


def custom_weights(k: int) -> np.ndarray:
    """An asymmetric disagreement matrix (under-rating costs twice over-rating)."""
    i, j = np.indices((k, k))
    return np.where(i > j, 2.0 * (i - j), 1.0 * (j - i))


def ordinal_problem(n: int, rng: np.random.Generator):
    """Features X and ratings 0..4 cut from a noisy linear latent variable."""
    X = rng.normal(size=(n, 5))
    z = X @ np.array([1.0, -0.5, 0.25, 0.0, 0.8]) + rng.normal(size=n)
    return X, np.digitize(z, np.quantile(z, [0.15, 0.4, 0.7, 0.9]))


def close(a, b, rel=1e-12, abs_=1e-14) -> bool:
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_)


# ============================================================================ soft kappa


class TestSoftKappaLoss:
    def test_equals_one_minus_soft_kappa_score(self):
        rng = np.random.default_rng(20261121)
        for _ in range(20):
            n = int(rng.integers(2, 40))
            y = rng.integers(0, 5, n)
            f = rng.normal(2.0, 1.5, n)
            w = rng.uniform(0, 3, n)
            got = soft_kappa_loss(torch.tensor(f), torch.tensor(y), sample_weight=torch.tensor(w))
            assert got.dtype == torch.float64
            assert close(got.item(), 1 - float(naive_soft_kappa(y, f, w)))
            unweighted = soft_kappa_loss(torch.tensor(f)[:, None], torch.tensor(y))
            assert close(unweighted.item(), 1 - qwkit.soft_kappa_score(y, f))

    def test_float32(self):
        rng = np.random.default_rng(20261121)
        y, f = rng.integers(0, 5, 50), rng.normal(2.0, 1.5, 50)
        got = soft_kappa_loss(torch.tensor(f, dtype=torch.float32), torch.tensor(y))
        assert got.dtype == torch.float32
        assert got.item() == pytest.approx(1 - qwkit.soft_kappa_score(y, f), rel=1e-5)

    @pytest.mark.parametrize("prediction", ["logits", "probabilities"])
    def test_expected_score_of_classes(self, prediction):
        rng = np.random.default_rng(20261121)
        logits = rng.normal(size=(30, 4))
        proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        values = np.array([1.0, 2.0, 4.0, 8.0])  # a scale with uneven steps
        y = rng.choice(values, 30)
        x = torch.tensor(logits if prediction == "logits" else proba)
        got = soft_kappa_loss(x, torch.tensor(y), prediction=prediction, labels=values)
        assert close(got.item(), 1 - qwkit.soft_kappa_score(y, proba @ values), rel=1e-10)
        default = soft_kappa_loss(x, torch.tensor(y), prediction=prediction)  # values 0..K−1
        expected = 1 - qwkit.soft_kappa_score(y, proba @ np.arange(4))
        assert close(default.item(), expected, rel=1e-10)

    def test_gradcheck_with_weights(self):
        rng = np.random.default_rng(20261121)
        y = torch.tensor(rng.integers(0, 5, 12), dtype=torch.float64)
        w = torch.tensor(rng.uniform(0.2, 2.0, 12))
        f = torch.tensor(rng.normal(2.0, 1.0, 12), requires_grad=True)
        assert torch.autograd.gradcheck(lambda s: soft_kappa_loss(s, y, sample_weight=w), (f,))
        logits = torch.tensor(rng.normal(size=(12, 5)), requires_grad=True)
        assert torch.autograd.gradcheck(
            lambda x: soft_kappa_loss(x, y, sample_weight=w, prediction="logits"), (logits,)
        )

    def test_batch_ratio_is_flat_at_batch_size_one(self):
        # Why the module exists: alone, one item is its own chance term, so 1 − κ ≡ 1.
        f = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
        loss = soft_kappa_loss(f, torch.tensor([4.0], dtype=torch.float64))
        loss.backward()
        assert loss.item() == 1.0
        assert abs(f.grad.item()) < 1e-12

    def test_constant_perfect_predictions_are_undefined_not_zero(self):
        # κ is 0/0 here (the limit along f → 2 is 1 − κ = 1, not 0): qwkit's policy is
        # NaN with an UndefinedKappaWarning; the gradient is zero, never NaN.
        f = torch.full((4,), 2.0, dtype=torch.float64, requires_grad=True)
        with pytest.warns(qwkit.UndefinedKappaWarning, match="loss is NaN"):
            loss = soft_kappa_loss(f, torch.full((4,), 2.0, dtype=torch.float64))
        loss.backward()
        assert math.isnan(loss.item())
        assert torch.equal(f.grad, torch.zeros(4, dtype=torch.float64))
        quiet = soft_kappa_loss(f, torch.full((4,), 2.0), validate_args=False)  # no warning
        assert math.isnan(quiet.item())

    def test_nan_target_is_an_error_nan_score_a_nan_loss(self):
        with pytest.raises(ValueError, match="`target` must be finite; got nan at index 1"):
            soft_kappa_loss(torch.tensor([1.0, 2.0]), torch.tensor([1.0, math.nan]))
        loss = soft_kappa_loss(torch.tensor([1.0, math.nan]), torch.tensor([1.0, 2.0]))
        assert math.isnan(loss.item())


class TestSoftKappaLossModule:
    def test_first_batch_is_the_batch_ratio(self):
        rng = np.random.default_rng(20261121)
        y = torch.tensor(rng.integers(0, 5, 20), dtype=torch.float64)
        w = torch.tensor(rng.uniform(0, 2, 20))
        f1 = torch.tensor(rng.normal(2, 1, 20), requires_grad=True)
        f2 = f1.detach().clone().requires_grad_(True)
        module = SoftKappaLoss()(f1, y, sample_weight=w)
        plain = soft_kappa_loss(f2, y, sample_weight=w)
        module.backward()
        plain.backward()
        assert close(module.item(), plain.item())
        torch.testing.assert_close(f1.grad, f2.grad, rtol=1e-12, atol=1e-15)

    @pytest.mark.parametrize("weighted", [False, True])
    def test_later_batches_follow_eqs_t6_t7(self, weighted):
        rng = np.random.default_rng(20261121)
        loss_fn = SoftKappaLoss(momentum=None).double()  # state: every earlier item
        ys, fs, ws = [], [], []
        for size in (7, 1, 3, 1, 5):
            y = rng.integers(0, 5, size).astype(float)
            f = rng.normal(2, 1.2, size)
            w = rng.uniform(0.1, 2, size) if weighted else None
            f_t = torch.tensor(f, requires_grad=True)
            sw = None if w is None else torch.tensor(w)
            loss = loss_fn(f_t, torch.tensor(y), sample_weight=sw)
            loss.backward()
            if ys:
                past_w = np.concatenate(ws) if weighted else None
                value, grad = naive_soft_running_loss(
                    np.concatenate(ys), np.concatenate(fs), past_w, y, f, w
                )
                assert close(loss.item(), float(value), rel=1e-10, abs_=1e-12)
                np.testing.assert_allclose(
                    f_t.grad.numpy(), [float(g) for g in grad], rtol=1e-9, atol=1e-12
                )
            ys.append(y)
            fs.append(f)
            ws.append(w if weighted else np.ones(size))

    def test_gradcheck_with_state(self):
        rng = np.random.default_rng(20261121)
        loss_fn = SoftKappaLoss().double()
        for _ in range(3):
            loss_fn(torch.tensor(rng.normal(2, 1, 6)), torch.tensor(rng.integers(0, 5, 6) * 1.0))
        loss_fn.eval()  # a fixed state: the loss is a plain function of the batch
        y = torch.tensor(rng.integers(0, 5, 4) * 1.0)
        w = torch.tensor(rng.uniform(0.2, 2, 4))
        f = torch.tensor(rng.normal(2, 1, 4), requires_grad=True)
        assert torch.autograd.gradcheck(lambda s: loss_fn(s, y, sample_weight=w), (f,))
        logit_fn = SoftKappaLoss(prediction="logits").double()
        logit_fn(torch.tensor(rng.normal(size=(6, 5))), torch.tensor(rng.integers(0, 5, 6)))
        logit_fn.eval()
        x = torch.tensor(rng.normal(size=(1, 5)), requires_grad=True)
        assert torch.autograd.gradcheck(lambda s: logit_fn(s, y[:1]), (x,))

    def test_stationary_point_is_the_kappa_optimal_linear_model(self):
        # The mean gradient of batch-size-1 losses, with the state of the whole data,
        # vanishes at qwkit.kappa_regression's closed form (the soft-kappa maximizer),
        # and not at least squares: the gradient is kappa's, not squared error's.
        rng = np.random.default_rng(20261121)
        X, y = ordinal_problem(120, rng)
        Xt, yt = torch.tensor(X), torch.tensor(y, dtype=torch.float64)
        kappa_opt = qwkit.kappa_regression(X, y)
        ols = np.linalg.lstsq(np.c_[X, np.ones(len(y))], y, rcond=None)[0]
        mean_grads = {}
        for name, params in (
            ("kappa", np.r_[kappa_opt.coef, kappa_opt.intercept]),
            ("ols", ols),
        ):
            beta = torch.tensor(params, requires_grad=True)
            loss_fn = SoftKappaLoss(momentum=None).double()
            loss_fn((Xt @ beta[:-1] + beta[-1]).detach(), yt)  # state: all the data
            loss_fn.eval()
            total = torch.zeros_like(beta)
            for i in range(len(y)):
                item = loss_fn(Xt[i : i + 1] @ beta[:-1] + beta[-1], yt[i : i + 1])
                total += torch.autograd.grad(item, beta)[0]
            mean_grads[name] = total / len(y)
        assert mean_grads["kappa"].abs().max() < 1e-12
        assert mean_grads["ols"].abs().max() > 1e-2
        # At least squares the kappa gradient stretches the fit (scale factor 1/κ > 1).
        fit = X @ ols[:-1]
        stretch = float(mean_grads["ols"][:-1] @ torch.tensor(ols[:-1]))
        assert stretch < 0 and np.std(fit) < np.std(y)

    def test_trains_at_batch_size_one_with_defaults(self):
        rng = np.random.default_rng(20261121)
        X, y = ordinal_problem(500, rng)
        model = train_linear(X[:300], y[:300], SoftKappaLoss(), out=1)
        with torch.no_grad():
            score = model(torch.tensor(X[300:], dtype=torch.float32))[:, 0].numpy()
        classes = np.clip(np.rint(score), 0, 4).astype(int)
        held_out = qwkit.kappa_score(y[300:], classes, labels=np.arange(5))
        assert held_out > 0.5  # a constant prediction scores 0

    def test_trains_on_wine_at_batch_size_one(self):
        wine = qwkit.load_wine_quality()
        perm = np.random.default_rng(20261121).permutation(len(wine.y))
        train, test = perm[:400], perm[400:800]
        mu, sd = wine.X[train].mean(0), wine.X[train].std(0)
        X = (wine.X - mu) / sd
        model = train_linear(X[train], wine.y[train] - 3, SoftKappaLoss(), out=1, epochs=2)
        with torch.no_grad():
            score = model(torch.tensor(X[test], dtype=torch.float32))[:, 0].numpy() + 3
        classes = np.clip(np.rint(score), 3, 8).astype(int)
        assert qwkit.kappa_score(wine.y[test], classes, labels=np.arange(3, 9)) > 0.3

    def test_momentum_state(self):
        rng = np.random.default_rng(20261121)
        batches = [(rng.normal(2, 1, 3), rng.integers(0, 5, 3) * 1.0) for _ in range(4)]
        for momentum in (None, 1.0, 0.25):
            loss_fn = SoftKappaLoss(momentum=momentum).double()
            for f, y in batches:
                loss_fn(torch.tensor(f), torch.tensor(y))
            state = loss_fn.running_moments
            if momentum is None:  # cumulative: the moments of all 12 items
                f_all = np.concatenate([b[0] for b in batches])
                y_all = np.concatenate([b[1] for b in batches])
                assert state[0].item() == 12.0
                assert close(state[1].item(), y_all.mean())
                assert close(state[6].item(), np.sum((y_all - f_all) ** 2))
            elif momentum == 1.0:  # only the last batch
                f, y = batches[-1]
                assert state[0].item() == 3.0
                assert close(state[4].item(), np.sum((f - f.mean()) ** 2))
            else:  # weights decay: W = 3·(1 + 0.75 + 0.75² + 0.75³)
                assert close(state[0].item(), 3 * (1 + 0.75 + 0.75**2 + 0.75**3))

    def test_eval_reset_and_state_dict(self):
        rng = np.random.default_rng(20261121)
        loss_fn = SoftKappaLoss()
        for _ in range(3):
            loss_fn(torch.randn(4), torch.tensor(rng.integers(0, 5, 4)))
        before = loss_fn.running_moments.clone()
        loss_fn.eval()
        loss_fn(torch.randn(4), torch.tensor(rng.integers(0, 5, 4)))
        assert torch.equal(loss_fn.running_moments, before)  # eval: read, never written
        loss_fn.train()
        clone = SoftKappaLoss()
        clone.load_state_dict(loss_fn.state_dict())
        assert set(loss_fn.state_dict()) == {"running_moments"}
        f, y = torch.tensor([1.5, 2.5]), torch.tensor([1, 3])
        assert loss_fn(f, y).item() == clone(f, y).item()
        loss_fn.reset()
        assert not loss_fn.running_moments.any()
        assert close(loss_fn(f, y).item(), soft_kappa_loss(f, y).item(), rel=1e-6)

    def test_dtypes_and_devices(self):
        loss_fn = SoftKappaLoss(prediction="logits", labels=[1, 2, 3]).double()
        assert set(loss_fn.state_dict()) == {"running_moments"}  # labels: configuration
        assert loss_fn.running_moments.dtype == torch.float64
        assert loss_fn.labels.dtype == torch.float64
        x64 = torch.randn(5, 3, dtype=torch.float64)
        assert loss_fn(x64, torch.tensor([1, 2, 3, 3, 1])).dtype == torch.float64
        x32 = torch.randn(5, 3)
        assert loss_fn(x32, torch.tensor([1, 2, 3, 3, 1])).dtype == torch.float32
        with pytest.raises(ValueError, match=r"on meta but the running statistics .* on cpu"):
            loss_fn(torch.randn(5, 3, device="meta"), torch.zeros(5, device="meta"))
        moved = loss_fn.to("meta")
        assert moved.running_moments.device.type == "meta"

    def test_non_finite_scores_give_nan_and_leave_the_state(self):
        # A diverged step, or an overflow that a mixed-precision GradScaler will skip.
        for loss_fn, good, bad, target in (
            (SoftKappaLoss(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, math.inf]), [1, 3]),
            (
                WeightedKappaLoss(3),
                torch.randn(2, 3),
                torch.tensor([[0.0, math.nan, 1.0], [1.0, 0.0, 0.0]]),
                [0, 2],
            ),
        ):
            loss_fn(good, torch.tensor(target))
            before = loss_fn.state_dict()
            assert math.isnan(loss_fn(bad, torch.tensor(target)).item())
            after = loss_fn.state_dict()
            assert all(torch.equal(before[key], after[key]) for key in before)

    def test_zero_weight_batch_adds_nothing(self):
        loss_fn = SoftKappaLoss()
        f = torch.tensor([1.0, 2.0], requires_grad=True)
        loss = loss_fn(f, torch.tensor([1, 3]), sample_weight=torch.zeros(2))
        loss.backward()
        assert loss.item() == 0.0 and not f.grad.any()
        assert not loss_fn.running_moments.any()

    def test_bad_input(self):
        with pytest.raises(ValueError, match="prediction='logits'"):
            SoftKappaLoss()(torch.randn(4, 3), torch.zeros(4))
        with pytest.raises(TypeError, match=r"`input` must be a torch\.Tensor; got list"):
            soft_kappa_loss([1.0, 2.0], torch.zeros(2))
        with pytest.raises(TypeError, match=r"floating-point tensor; got torch\.int64"):
            soft_kappa_loss(torch.tensor([1, 2]), torch.zeros(2))
        with pytest.raises(ValueError, match="`target` has 3 rows but `input` has 2"):
            soft_kappa_loss(torch.zeros(2), torch.zeros(3))
        with pytest.raises(ValueError, match=r"`labels` .* is used only with"):
            SoftKappaLoss(labels=[0, 1, 2])
        with pytest.raises(ValueError, match="strictly increasing"):
            soft_kappa_loss(
                torch.randn(2, 3), torch.zeros(2), prediction="logits", labels=[2, 1, 3]
            )
        with pytest.raises(ValueError, match="`labels` has 2 values but `input` has 3"):
            soft_kappa_loss(torch.randn(2, 3), torch.zeros(2), prediction="logits", labels=[0, 1])
        with pytest.raises(ValueError, match="`prediction` must be 'score', 'logits' or"):
            SoftKappaLoss(prediction="proba")
        with pytest.raises(ValueError, match="`momentum` must be in"):
            SoftKappaLoss(momentum=0.0)
        with pytest.raises(ValueError, match=r"non-negative; got -1\.0 at index 1"):
            soft_kappa_loss(torch.zeros(2), torch.zeros(2), sample_weight=torch.tensor([1, -1]))
        with pytest.raises(ValueError, match=r"probabilities .* row 0"):
            soft_kappa_loss(torch.randn(2, 3), torch.zeros(2), prediction="probabilities")
        with pytest.raises(ValueError, match="empty"):
            soft_kappa_loss(torch.zeros(0), torch.zeros(0))


# ============================================================================ weighted kappa


class TestWeightedKappaLoss:
    @pytest.mark.parametrize("weights", [*WEIGHTS, "custom"])
    def test_equals_kappa_of_the_expected_table(self, weights):
        rng = np.random.default_rng(20261121)
        k = 4
        wm = custom_weights(k) if weights == "custom" else weights
        for _ in range(5):
            n = int(rng.integers(2, 25))
            logits = rng.normal(size=(n, k))
            proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
            y, w = rng.integers(0, k, n), rng.uniform(0, 2, n)
            got = weighted_kappa_loss(
                torch.tensor(logits), torch.tensor(y), weights=wm, sample_weight=torch.tensor(w)
            )
            table = naive_expected_table(y, proba, k, w)
            assert close(got.item(), 1 - float(naive_kappa_from_confusion(table, wm)), rel=1e-10)

    def test_one_hot_probabilities_give_kappa_score(self):
        rng = np.random.default_rng(20261121)
        y, pred = rng.integers(0, 5, 40), rng.integers(0, 5, 40)
        onehot = torch.nn.functional.one_hot(torch.tensor(pred), 5).double()
        for weights in WEIGHTS:
            got = weighted_kappa_loss(
                onehot, torch.tensor(y), weights=weights, prediction="probabilities"
            )
            expected = qwkit.kappa_score(y, pred, weights=weights, labels=np.arange(5))
            assert close(got.item(), 1 - expected)

    def test_tensorflow_addons_example(self):
        # tensorflow-addons' WeightedKappaLoss docstring: loss -1.1611923 (float32), which
        # is log(1 − κ + 1e-6) of the expected table (de la Torre et al.'s log form).
        proba = torch.tensor(
            [
                [0.1, 0.2, 0.6, 0.1],
                [0.1, 0.5, 0.3, 0.1],
                [0.8, 0.05, 0.05, 0.1],
                [0.01, 0.09, 0.1, 0.8],
            ]
        )
        target = torch.tensor([2, 1, 0, 3])
        loss = weighted_kappa_loss(proba, target, prediction="probabilities", log=True)
        assert math.log(math.exp(loss.item()) + 1e-6) == pytest.approx(-1.1611923, abs=2e-6)
        plain = weighted_kappa_loss(proba, target, prediction="probabilities")
        assert loss.item() == pytest.approx(math.log(plain.item()), rel=1e-6)

    @pytest.mark.parametrize("log", [False, True])
    def test_gradcheck(self, log):
        rng = np.random.default_rng(20261121)
        y = torch.tensor(rng.integers(0, 4, 10))
        w = torch.tensor(rng.uniform(0.2, 2, 10))
        x = torch.tensor(rng.normal(size=(10, 4)), requires_grad=True)
        for weights in ("quadratic", custom_weights(4)):
            assert torch.autograd.gradcheck(
                lambda s, wts=weights: weighted_kappa_loss(
                    s, y, weights=wts, sample_weight=w, log=log
                ),
                (x,),
            )
        loss_fn = WeightedKappaLoss(4, weights="linear", log=log).double()
        for _ in range(3):
            loss_fn(torch.tensor(rng.normal(size=(5, 4))), torch.tensor(rng.integers(0, 4, 5)))
        loss_fn.eval()
        assert torch.autograd.gradcheck(lambda s: loss_fn(s[:2], y[:2], sample_weight=w[:2]), (x,))

    @pytest.mark.parametrize("log", [False, True])
    def test_gradcheck_of_probabilities_in_every_direction(self, log):
        # The ratio (T4) of a table of probabilities depends on its margins too; the
        # gradient is the ratio's own even off the simplex (where gradcheck perturbs).
        rng = np.random.default_rng(20261121)
        y = torch.tensor(rng.integers(0, 5, 8))
        w = torch.tensor(rng.uniform(0.2, 2, 8))
        proba = torch.softmax(torch.tensor(rng.normal(size=(8, 5))), 1).requires_grad_(True)
        for weights in ("quadratic", custom_weights(5)):
            assert torch.autograd.gradcheck(
                lambda p, wts=weights: weighted_kappa_loss(
                    p, y, weights=wts, sample_weight=w, prediction="probabilities", log=log
                ),
                (proba,),
            )
        # The first batch of the module is the function, gradient included (K = 5: the
        # quadratic weights are exact in the module's float32 buffer too).
        p1 = proba.detach().clone().requires_grad_(True)
        p2 = proba.detach().clone().requires_grad_(True)
        module = WeightedKappaLoss(5, prediction="probabilities", log=log).double()
        module(p1, y, sample_weight=w).backward()
        weighted_kappa_loss(p2, y, sample_weight=w, prediction="probabilities", log=log).backward()
        torch.testing.assert_close(p1.grad, p2.grad, rtol=1e-10, atol=1e-13)

    def test_later_batches_follow_eq_t6(self):
        rng = np.random.default_rng(20261121)
        k = 3
        loss_fn = WeightedKappaLoss(k, prediction="probabilities", momentum=None).double()
        ys, ps, ws = [], [], []
        for size in (6, 1, 2, 1):
            logits = rng.normal(size=(size, k))
            p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
            y, w = rng.integers(0, k, size), rng.uniform(0.1, 2, size)
            p_t = torch.tensor(p, requires_grad=True)
            loss = loss_fn(p_t, torch.tensor(y), sample_weight=torch.tensor(w))
            loss.backward()
            if ys:
                value, grad = naive_weighted_running_loss(
                    np.concatenate(ys), np.concatenate(ps), np.concatenate(ws), y, p, w, k
                )
                assert close(loss.item(), float(value), rel=1e-10)
                expected = np.array([[float(g) for g in row] for row in grad])
                np.testing.assert_allclose(p_t.grad.numpy(), expected, rtol=1e-9, atol=1e-12)
            ys.append(y)
            ps.append(p)
            ws.append(w)

    def test_first_batch_is_the_batch_ratio(self):
        rng = np.random.default_rng(20261121)
        x = torch.tensor(rng.normal(size=(8, 5)))
        y = torch.tensor(rng.integers(0, 5, 8))
        for log in (False, True):
            got = WeightedKappaLoss(5, weights="linear", log=log).double()(x, y)
            assert close(got.item(), weighted_kappa_loss(x, y, weights="linear", log=log).item())

    def test_batch_ratio_is_flat_at_batch_size_one(self):
        x = torch.tensor([[0.3, -1.0, 2.0]], dtype=torch.float64, requires_grad=True)
        loss = weighted_kappa_loss(x, torch.tensor([0]))
        loss.backward()
        assert loss.item() == pytest.approx(1.0, abs=1e-15)
        assert x.grad.abs().max() < 1e-15

    def test_trains_at_batch_size_one_with_defaults(self):
        rng = np.random.default_rng(20261121)
        X, y = ordinal_problem(500, rng)
        model = train_linear(X[:300], y[:300], WeightedKappaLoss(5), out=5)
        with torch.no_grad():
            classes = model(torch.tensor(X[300:], dtype=torch.float32)).argmax(1).numpy()
        assert qwkit.kappa_score(y[300:], classes, labels=np.arange(5)) > 0.4

    def test_state_dict_holds_the_table_only(self):
        loss_fn = WeightedKappaLoss(3, weights=custom_weights(3))
        loss_fn(torch.randn(4, 3), torch.tensor([0, 1, 2, 2]))
        assert set(loss_fn.state_dict()) == {"running_confusion"}
        clone = WeightedKappaLoss(3, weights=custom_weights(3))
        clone.load_state_dict(loss_fn.state_dict())
        x, y = torch.randn(2, 3), torch.tensor([2, 0])
        assert clone(x, y).item() == loss_fn(x, y).item()

    def test_bad_input(self):
        with pytest.raises(ValueError, match=r"class indices 0\.\.3; got 4 at index 1"):
            weighted_kappa_loss(torch.randn(2, 4), torch.tensor([0, 4]))
        with pytest.raises(TypeError, match=r"integer tensor; got torch\.float32"):
            weighted_kappa_loss(torch.randn(2, 4), torch.tensor([0.0, 1.0]))
        with pytest.raises(ValueError, match=r"shape \(B, K\) with K ≥ 2"):
            weighted_kappa_loss(torch.randn(2), torch.tensor([0, 1]))
        with pytest.raises(ValueError, match="`input` has 4 classes but `num_classes` is 3"):
            WeightedKappaLoss(3)(torch.randn(2, 4), torch.tensor([0, 1]))
        with pytest.raises(ValueError, match="`weights` must be"):
            WeightedKappaLoss(3, weights="cubic")
        with pytest.raises(ValueError, match="`num_classes` must be at least 2"):
            WeightedKappaLoss(1)
        with pytest.raises(TypeError, match="`log` must be True or False"):
            WeightedKappaLoss(3, log="yes")


class TestCachedConstants:
    def test_a_first_call_in_inference_mode_does_not_break_autograd(self, monkeypatch):
        # The losses make their small constants once per dtype and device; made inside a
        # caller's inference_mode they would be inference tensors, which autograd refuses
        # to save ("Inference tensors cannot be saved for backward") in every later call.
        monkeypatch.setattr(_torch_shared, "_CACHE", {})
        rng = np.random.default_rng(20261121)
        logits = torch.tensor(rng.normal(size=(6, 4)))
        target = torch.tensor(rng.integers(0, 4, 6))
        score = torch.tensor(rng.normal(2, 1, 6))
        calls = [
            lambda x: soft_kappa_loss(x, target.double(), prediction="logits"),
            lambda x: weighted_kappa_loss(x, target),
            lambda x: soft_kappa_loss(x[:, 0], target.double()),
        ]
        with torch.inference_mode():
            for call in calls:
                call(logits)
        for call in calls:
            x = logits.clone().requires_grad_(True)
            call(x).backward()
            assert torch.isfinite(x.grad).all()
        loss_fn = SoftKappaLoss().double()
        with torch.inference_mode():
            loss_fn(score, target.double())
        f = score.clone().requires_grad_(True)
        loss_fn(f, target.double()).backward()
        assert torch.isfinite(f.grad).all()


def train_linear(X, y, loss_fn, *, out: int, epochs: int = 1, lr: float = 0.02):
    """A linear model trained one item at a time (batch size 1) with Adam."""
    torch.manual_seed(0)
    model = torch.nn.Linear(X.shape[1], out)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    Xt, yt = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
    order = torch.Generator().manual_seed(1)
    for _ in range(epochs):
        for i in torch.randperm(len(yt), generator=order):
            loss = loss_fn(model(Xt[i : i + 1]), yt[i : i + 1])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


# ============================================================================ metrics


class TestKappaMetric:
    @pytest.mark.parametrize("weights", [*WEIGHTS, "custom"])
    def test_equals_kappa_score_exactly(self, weights):
        rng = np.random.default_rng(20261121)
        for _ in range(10):
            k = int(rng.integers(2, 7))
            wm = custom_weights(k) if weights == "custom" else weights
            y, pred = rng.integers(0, k, 60), rng.integers(0, k, 60)
            metric = KappaMetric(k, weights=wm)
            for idx in np.array_split(np.arange(60), 4):
                metric.update(torch.tensor(pred[idx]), torch.tensor(y[idx]))
            assert metric.compute() == qwkit.kappa_score(y, pred, weights=wm, labels=range(k))
            assert metric.confusion.dtype == torch.int64

    def test_sample_weight_and_class_scores(self):
        rng = np.random.default_rng(20261121)
        y, scores = rng.integers(0, 4, 50), rng.normal(size=(50, 4))
        pred, w = scores.argmax(1), rng.uniform(0, 2, 50)
        metric = KappaMetric(4, weights="linear")
        metric.update(torch.tensor(scores[:20]), torch.tensor(y[:20]), torch.tensor(w[:20]))
        metric.update(torch.tensor(scores[20:]), torch.tensor(y[20:]), torch.tensor(w[20:]))
        expected = qwkit.kappa_score(y, pred, weights="linear", labels=range(4), sample_weight=w)
        assert close(metric.compute(), expected)
        assert metric.confusion.dtype == torch.float64

    def test_merge_state_dict_and_sync_without_a_group(self):
        rng = np.random.default_rng(20261121)
        y, pred = rng.integers(0, 5, 40), rng.integers(0, 5, 40)
        a, b = KappaMetric(5), KappaMetric(5)
        a.update(torch.tensor(pred[:25]), torch.tensor(y[:25]))
        b.update(torch.tensor(pred[25:]), torch.tensor(y[25:]))
        restored = KappaMetric(5)
        restored.load_state_dict(a.state_dict())
        assert restored.merge(b) is restored
        assert restored.compute() == qwkit.kappa_score(y, pred, labels=range(5))
        synced = restored.sync()  # no process group: this process is the world
        assert synced is not restored and torch.equal(synced.counts, restored.counts)
        restored.reset()
        with pytest.raises(ValueError, match="No items"):
            restored.compute()
        with pytest.raises(ValueError, match="different `weights`"):
            a.merge(KappaMetric(5, weights="linear"))
        with pytest.raises(ValueError, match="4 classes"):
            a.merge(KappaMetric(4))

    def test_the_kaggle_example(self):
        # The Kaggle reference page's step-by-step example: 0.318182 (rows: actuals).
        metric = KappaMetric(5)
        metric.update(torch.tensor([0, 4, 1, 0, 4]), torch.tensor([4, 4, 3, 4, 4]))
        metric.update(torch.tensor([0, 1, 1, 2, 1]), torch.tensor([0, 1, 1, 2, 1]))
        assert metric.compute() == pytest.approx(0.3181818181818182, rel=1e-15)

    def test_bad_input(self):
        metric = KappaMetric(3)
        with pytest.raises(ValueError, match="use SoftKappaMetric"):
            metric.update(torch.tensor([0.5, 1.5]), torch.tensor([0, 1]))
        with pytest.raises(ValueError, match=r"`preds` must hold class indices 0\.\.2; got 3"):
            metric.update(torch.tensor([0, 3]), torch.tensor([0, 1]))
        with pytest.raises(ValueError, match="`target` has 3 rows"):
            metric.update(torch.tensor([0, 1]), torch.tensor([0, 1, 2]))


class TestSoftKappaMetric:
    def test_equals_soft_kappa_score(self):
        rng = np.random.default_rng(20261121)
        for offset in (0.0, 1e6):  # far from zero: the pairwise update keeps the digits
            y = rng.integers(0, 5, 80) + offset
            f = rng.normal(2, 1.2, 80) + offset
            w = rng.uniform(0, 2, 80)
            metric = SoftKappaMetric()
            for idx in np.array_split(np.arange(80), 5):
                metric.update(torch.tensor(f[idx]), torch.tensor(y[idx]), torch.tensor(w[idx]))
            expected = qwkit.soft_kappa_score(y, f, sample_weight=w)
            assert close(metric.compute(), expected, rel=1e-10)

    def test_merge_reduce_and_undefined(self):
        rng = np.random.default_rng(20261121)
        y, f = rng.integers(0, 5, 30) * 1.0, rng.normal(2, 1, 30)
        parts = [SoftKappaMetric() for _ in range(3)]
        for part, idx in zip(parts, np.array_split(np.arange(30), 3), strict=True):
            part.update(torch.tensor(f[idx]), torch.tensor(y[idx]))
        merged = copy.deepcopy(parts[0]).merge(parts[1]).merge(parts[2])
        reduced = _torch_shared.reduce_moments(
            [p.moments.tolist() for p in parts] + [[0.0] * 7]  # an empty rank is skipped
        )
        np.testing.assert_allclose(reduced, merged.moments.numpy(), rtol=1e-13)
        assert close(merged.compute(), qwkit.soft_kappa_score(y, f))
        constant = SoftKappaMetric()
        constant.update(torch.full((3,), 2.0), torch.full((3,), 2.0))
        with pytest.warns(qwkit.UndefinedKappaWarning):
            assert math.isnan(constant.compute())


def _sync_worker(rank: int, path: str, out: str) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=2)
    try:
        metric, soft = KappaMetric(4), SoftKappaMetric()
        pred = torch.tensor([rank, 1, 2, 3]) if rank == 0 else torch.tensor([3, 3])
        target = torch.tensor([0, 1, 2, 2]) if rank == 0 else torch.tensor([3, 0])
        metric.update(pred, target)
        soft.update(pred.double() + 0.25, target)
        torch.save(
            {"kappa": metric.sync().compute(), "soft": soft.sync().compute()}, f"{out}/{rank}.pt"
        )
    finally:
        dist.destroy_process_group()


def test_sync_over_two_gloo_processes(tmp_path):
    # A real 2-process group (forked: no re-import of torch, well under a second).
    with warnings.catch_warnings():  # Python ≥ 3.12 warns on fork() with threads alive
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        ctx = mp.start_processes(
            _sync_worker,
            args=(str(tmp_path / "store"), str(tmp_path)),
            nprocs=2,
            join=False,
            start_method="fork",
        )
    for _ in range(60):
        if ctx.join(timeout=1):
            break
    else:
        for process in ctx.processes:
            process.kill()
        pytest.fail("the two gloo processes did not finish within 60 s")
    pred, target = [0, 1, 2, 3, 3, 3], [0, 1, 2, 2, 3, 0]
    for rank in (0, 1):
        got = torch.load(tmp_path / f"{rank}.pt")
        assert got["kappa"] == qwkit.kappa_score(target, pred, labels=range(4))
        assert close(got["soft"], qwkit.soft_kappa_score(target, np.add(pred, 0.25)))


# ============================================================================ packaging


def test_missing_torch_names_the_extra():
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "import qwkit\n"
        "try:\n"
        "    import qwkit.torch\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert f"Install it with: {install_command('torch')}" in out.stdout


def test_public_classes_report_qwkit_torch():
    for cls in (SoftKappaLoss, WeightedKappaLoss, KappaMetric, SoftKappaMetric):
        assert cls.__module__ == "qwkit.torch"


# ============================================================================ errors


def _nan_at(values, i):
    out = torch.tensor(values, dtype=torch.float32)
    out[i] = math.nan
    return out


_X, _Y = torch.randn(3, 4), torch.tensor([0, 1, 3])
_S, _T = torch.tensor([0.5, 1.5, 2.5]), torch.tensor([0.0, 1.0, 3.0])
_META = torch.zeros(3, device="meta")
_PROBA = torch.tensor([[0.5, 0.5, 0.0, 0.0], [0.2, 0.2, 0.2, 0.2], [0.1, 0.1, 0.1, 0.7]])

#: (id, call, TypeError?, parameter, row): every way the torch modules refuse input.
ERROR_CASES = [
    # losses: arguments
    ("input-not-tensor", lambda: soft_kappa_loss([1.0], _T[:1]), True, "input", None),
    ("input-integer", lambda: soft_kappa_loss(torch.tensor([1, 2]), _T[:2]), True, "input", None),
    ("input-2d-score", lambda: soft_kappa_loss(_X, _T), False, "input", None),
    ("input-3d", lambda: soft_kappa_loss(torch.zeros(3, 1, 1), _T), False, "input", None),
    ("input-empty", lambda: soft_kappa_loss(torch.zeros(0), torch.zeros(0)), False, "input", None),
    ("input-shape-classes", lambda: weighted_kappa_loss(_S, _Y), False, "input", None),
    ("input-one-class", lambda: weighted_kappa_loss(torch.zeros(3, 1), _Y), False, "input", None),
    ("prediction", lambda: soft_kappa_loss(_S, _T, prediction="proba"), False, "prediction", None),
    ("prediction-wk", lambda: WeightedKappaLoss(4, prediction="score"), False, "prediction", None),
    ("labels-with-score", lambda: soft_kappa_loss(_S, _T, labels=[0, 1]), False, "labels", None),
    ("labels-module-score", lambda: SoftKappaLoss(labels=[0, 1, 2]), False, "labels", None),
    (
        "labels-text",
        lambda: SoftKappaLoss(prediction="logits", labels=["a", "b"]),
        True,
        "labels",
        None,
    ),
    ("labels-one", lambda: SoftKappaLoss(prediction="logits", labels=[1]), False, "labels", None),
    (
        "labels-order",
        lambda: soft_kappa_loss(_X, _T, prediction="logits", labels=[3, 2, 1, 0]),
        False,
        "labels",
        None,
    ),
    (
        "labels-count",
        lambda: soft_kappa_loss(_X, _T, prediction="logits", labels=[0, 1]),
        False,
        "labels",
        None,
    ),
    ("target-not-tensor", lambda: soft_kappa_loss(_S, [0.0, 1.0, 2.0]), True, "target", None),
    (
        "target-bool",
        lambda: soft_kappa_loss(_S, torch.ones(3, dtype=torch.bool)),
        True,
        "target",
        None,
    ),
    ("target-rows", lambda: soft_kappa_loss(_S, _T[:2]), False, "target", None),
    ("target-shape", lambda: soft_kappa_loss(_S, torch.zeros(3, 2)), False, "target", None),
    ("target-device", lambda: soft_kappa_loss(_S, _META), False, "target", None),
    ("target-float-classes", lambda: weighted_kappa_loss(_X, _T), True, "target", None),
    (
        "sample_weight-type",
        lambda: soft_kappa_loss(_S, _T, sample_weight=[1, 1, 1]),
        True,
        "sample_weight",
        None,
    ),
    (
        "sample_weight-bool",
        lambda: soft_kappa_loss(_S, _T, sample_weight=torch.ones(3, dtype=torch.bool)),
        True,
        "sample_weight",
        None,
    ),
    (
        "sample_weight-rows",
        lambda: soft_kappa_loss(_S, _T, sample_weight=torch.ones(4)),
        False,
        "sample_weight",
        None,
    ),
    (
        "sample_weight-device",
        lambda: soft_kappa_loss(_S, _T, sample_weight=_META),
        False,
        "sample_weight",
        None,
    ),
    ("weights", lambda: weighted_kappa_loss(_X, _Y, weights="cubic"), False, "weights", None),
    (
        "weights-zero",
        lambda: WeightedKappaLoss(3, weights=np.zeros((3, 3))),
        False,
        "weights",
        None,
    ),
    ("log", lambda: weighted_kappa_loss(_X, _Y, log="yes"), True, "log", None),
    (
        "validate_args",
        lambda: soft_kappa_loss(_S, _T, validate_args=1),
        True,
        "validate_args",
        None,
    ),
    (
        "validate_args-module",
        lambda: SoftKappaLoss(validate_args=None),
        True,
        "validate_args",
        None,
    ),
    ("num_classes-type", lambda: WeightedKappaLoss(3.0), True, "num_classes", None),
    ("num_classes-value", lambda: WeightedKappaLoss(1), False, "num_classes", None),
    ("num_classes-huge", lambda: WeightedKappaLoss(10**6), False, "num_classes", None),
    ("num_classes-input", lambda: WeightedKappaLoss(3)(_X, _Y), False, "input", None),
    ("momentum-type", lambda: SoftKappaLoss(momentum="0.1"), True, "momentum", None),
    ("momentum-value", lambda: WeightedKappaLoss(3, momentum=1.5), False, "momentum", None),
    ("module-device", lambda: SoftKappaLoss()(_META, _META), False, "input", None),
    # losses: values in the data (validate_args=True)
    ("target-class", lambda: weighted_kappa_loss(_X, torch.tensor([0, 4, 1])), False, "target", 1),
    (
        "target-negative",
        lambda: WeightedKappaLoss(4)(_X, torch.tensor([0, 1, -1])),
        False,
        "target",
        2,
    ),
    ("target-nan", lambda: soft_kappa_loss(_S, _nan_at([0, 1, 2], 2)), False, "target", 2),
    ("target-nan-module", lambda: SoftKappaLoss()(_S, _nan_at([0, 1, 2], 0)), False, "target", 0),
    (
        "sample_weight-negative",
        lambda: weighted_kappa_loss(_X, _Y, sample_weight=torch.tensor([1.0, -1.0, 1.0])),
        False,
        "sample_weight",
        1,
    ),
    (
        "sample_weight-nan",
        lambda: SoftKappaLoss()(_S, _T, sample_weight=_nan_at([1, 1, 1], 2)),
        False,
        "sample_weight",
        2,
    ),
    (
        "sample_weight-zero",
        lambda: soft_kappa_loss(_S, _T, sample_weight=torch.zeros(3)),
        False,
        "sample_weight",
        None,
    ),
    (
        "probabilities",
        lambda: weighted_kappa_loss(_PROBA, _Y, prediction="probabilities"),
        False,
        "input",
        1,
    ),
    # metrics
    ("metric-preds-real", lambda: KappaMetric(3).update(_S, _Y), False, "preds", None),
    (
        "metric-preds-class",
        lambda: KappaMetric(3).update(torch.tensor([0, 3, 1]), _Y),
        False,
        "preds",
        1,
    ),
    (
        "metric-target-class",
        lambda: KappaMetric(4).update(_Y, torch.tensor([0, 1, 9])),
        False,
        "target",
        2,
    ),
    ("metric-target-rows", lambda: KappaMetric(4).update(_Y, _Y[:2]), False, "target", None),
    ("metric-device", lambda: KappaMetric(4).update(_Y.to("meta"), _Y), False, "preds", None),
    (
        "metric-sample_weight",
        lambda: KappaMetric(4).update(_Y, _Y, torch.tensor([1.0, 1.0, -2.0])),
        False,
        "sample_weight",
        2,
    ),
    ("metric-weights", lambda: KappaMetric(3, weights="cubic"), False, "weights", None),
    ("metric-merge-type", lambda: KappaMetric(3).merge(SoftKappaMetric()), True, "other", None),
    ("metric-merge-classes", lambda: KappaMetric(3).merge(KappaMetric(4)), False, "other", None),
    (
        "metric-merge-weights",
        lambda: KappaMetric(3).merge(KappaMetric(3, weights="linear")),
        False,
        "other",
        None,
    ),
    ("metric-empty", lambda: KappaMetric(3).compute(), False, None, None),
    (
        "soft-preds-complex",
        lambda: SoftKappaMetric().update(_S.to(torch.complex64), _T),
        True,
        "preds",
        None,
    ),
    (
        "soft-preds-nan",
        lambda: SoftKappaMetric().update(_nan_at([1, 2, 3], 1), _T),
        False,
        "preds",
        1,
    ),
    ("soft-target-rows", lambda: SoftKappaMetric().update(_S, _T[:1]), False, "target", None),
    (
        "soft-target-inf",
        lambda: SoftKappaMetric().update(_S, torch.tensor([0, math.inf, 1])),
        False,
        "target",
        1,
    ),
    ("soft-merge-type", lambda: SoftKappaMetric().merge(KappaMetric(3)), True, "other", None),
    ("soft-empty", lambda: SoftKappaMetric().compute(), False, None, None),
    (
        "soft-replace",
        lambda: SoftKappaMetric().compute(replace_undefined_by="x"),
        True,
        "replace_undefined_by",
        None,
    ),
]


class TestErrors:
    @pytest.mark.parametrize(
        ("call", "is_type", "parameter", "row"),
        [case[1:] for case in ERROR_CASES],
        ids=[case[0] for case in ERROR_CASES],
    )
    def test_parameter_and_row(self, call, is_type, parameter, row):
        with pytest.raises(qwkit.QwkitError) as info:
            call()
        assert isinstance(info.value, TypeError) == is_type
        assert isinstance(info.value, ValueError)  # QwkitTypeError is both
        assert info.value.parameter == parameter
        assert info.value.row == row
        if parameter is not None:
            assert f"`{parameter}`" in str(info.value)
        if row is not None:
            assert f"index {row}" in str(info.value)

    def test_every_raise_in_the_torch_modules_is_qwkit_s(self):
        # No plain ValueError/TypeError is left in the three modules.
        import inspect

        import qwkit._integrations._torch_metrics
        import qwkit._integrations._torch_shared
        import qwkit.torch

        for module in (
            qwkit.torch,
            qwkit._integrations._torch_shared,
            qwkit._integrations._torch_metrics,
        ):
            source = inspect.getsource(module)
            assert "raise ValueError" not in source and "raise TypeError" not in source

    @pytest.mark.parametrize(
        "call",
        [
            lambda v: weighted_kappa_loss(_X, torch.tensor([0, 4, 1]), validate_args=v),
            lambda v: weighted_kappa_loss(_PROBA, _Y, prediction="probabilities", validate_args=v),
            lambda v: soft_kappa_loss(_S, _nan_at([0, 1, 2], 2), validate_args=v),
            lambda v: soft_kappa_loss(_S, _T, sample_weight=torch.zeros(3), validate_args=v),
            lambda v: SoftKappaLoss(validate_args=v)(_S, _T, sample_weight=_nan_at([1, 1, 1], 2)),
            lambda v: WeightedKappaLoss(4, validate_args=v)(_X, torch.tensor([0, 1, -1])),
        ],
    )
    def test_unvalidated_bad_data_give_nan_never_a_number(self, call):
        with pytest.raises(qwkit.QwkitError):
            call(True)
        assert math.isnan(call(False).item())

    def test_unvalidated_weights_all_invalid_give_nan_not_zero(self):
        # Every weight invalid (so all count as 0) is invalid data, not an empty batch:
        # a NaN loss, as validate_args=False promises, and the state is left as it was.
        for loss_fn, x, t in (
            (SoftKappaLoss(validate_args=False), _S, _T),
            (WeightedKappaLoss(4, validate_args=False), _X, _Y),
        ):
            loss_fn(x, t)
            before = copy.deepcopy(loss_fn.state_dict())
            loss = loss_fn(x, t, sample_weight=torch.tensor([-1.0, math.nan, -2.0]))
            assert math.isnan(loss.item())
            assert all(torch.equal(before[k], v) for k, v in loss_fn.state_dict().items())

    def test_unvalidated_bad_data_leave_the_running_state(self):
        loss_fn = WeightedKappaLoss(4, validate_args=False)
        loss_fn(_X, _Y)
        before = loss_fn.running_confusion.clone()
        assert math.isnan(loss_fn(_X, torch.tensor([0, 7, 1])).item())
        assert torch.equal(loss_fn.running_confusion, before)

    def test_a_void_metric_stays_void_after_valid_updates(self):
        # The pairwise merge once returned the other set when one had a NaN weight, so
        # the next valid update silently dropped the void mark and every earlier item.
        metric, soft = KappaMetric(4, validate_args=False), SoftKappaMetric(validate_args=False)
        for module in (metric, soft):
            x = _Y if module is metric else _S
            module.update(x, _Y)
            module.update(x, _Y, torch.tensor([1.0, -1.0, 1.0]))
            module.update(x, _Y)
            with pytest.raises(qwkit.QwkitError, match="void"):
                module.compute()
        merged = SoftKappaMetric().merge(soft)
        with pytest.raises(qwkit.QwkitError, match="void"):
            merged.compute()

    def test_unvalidated_bad_data_void_a_metric(self):
        metric, soft = KappaMetric(4, validate_args=False), SoftKappaMetric(validate_args=False)
        metric.update(_Y, _Y)
        metric.update(_Y, torch.tensor([0, 1, 9]))
        soft.update(_S, _T, torch.tensor([1.0, -1.0, 1.0]))
        for module in (metric, soft, copy.deepcopy(metric).merge(KappaMetric(4))):
            with pytest.raises(qwkit.QwkitError, match="void") as info:
                module.compute()
            assert info.value.parameter is None
        metric.reset()
        metric.update(_Y, _Y)
        assert metric.compute() == 1.0
