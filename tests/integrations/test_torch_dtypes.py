"""qwkit.torch in float16, bfloat16 and under autocast, against float64 on the same values.

The regression of issue 18: in float16, ``weighted_kappa_loss`` returned the observed
disagreement instead of the ratio from 256 items on (total² passed 65,504; 0.24 for
≈1.00), ``soft_kappa_loss`` gave inf/NaN (or 0.0) once batch × mean squared error
passed 65,504, and ``SoftKappaLoss`` then dropped the batch from its state. Sums are
now taken in float32 at least, so a low-precision input is exact up to the rounding of
its own values: every loss here is compared with float64 *on the rounded values*.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_helpers import one_thread  # noqa: F401 - autouse fixture

import qwkit
from qwkit.torch import (
    KappaMetric,
    SoftKappaLoss,
    SoftKappaMetric,
    WeightedKappaLoss,
    soft_kappa_loss,
    weighted_kappa_loss,
)

LOW = [torch.float16, torch.bfloat16]
#: Around the old float16 cut (256² > 65,504) and well past it.
SIZES = [255, 256, 257, 1000]
K = 5


def data(n: int, seed: int = 20261121):
    """Logits (n, K), class targets, and real scores with a large squared error
    (batch × MSE ≈ 400·n, past 65,504 from n = 164 on)."""
    rng = np.random.default_rng(seed)
    target = rng.integers(0, K, n)
    logits = rng.normal(size=(n, K)) + 2.0 * np.eye(K)[target]
    score = target + rng.normal(0.0, 20.0, n)
    return torch.tensor(logits), torch.tensor(target), torch.tensor(score)


def losses():
    """(name, make): a fresh loss taking (input, target) — functions and modules."""
    return [
        ("soft_kappa_loss", lambda: soft_kappa_loss, "score"),
        (
            "soft_kappa_loss/logits",
            lambda: lambda x, t: soft_kappa_loss(x, t, prediction="logits"),
            "logits",
        ),
        ("weighted_kappa_loss", lambda: weighted_kappa_loss, "logits"),
        (
            "weighted_kappa_loss/log",
            lambda: lambda x, t: weighted_kappa_loss(x, t, weights="linear", log=True),
            "logits",
        ),
        ("SoftKappaLoss", lambda: SoftKappaLoss(momentum=0.1), "score"),
        ("SoftKappaLoss/logits", lambda: SoftKappaLoss(prediction="logits"), "logits"),
        ("WeightedKappaLoss", lambda: WeightedKappaLoss(K), "logits"),
        ("WeightedKappaLoss/log", lambda: WeightedKappaLoss(K, log=True), "logits"),
    ]


LOSSES = losses()
IDS = [name for name, _, _ in LOSSES]


def warmed(make, kind, dtype):
    """A loss; a module gets a state from two earlier batches (in ``dtype``)."""
    fn = make()
    if isinstance(fn, torch.nn.Module):
        for seed in (1, 2):
            logits, target, score = data(40, seed)
            x = score if kind == "score" else logits
            fn(x.to(dtype), target if kind == "logits" else target.double())
        fn.eval()  # the compared calls read the same state
    return fn


def double(fn):
    """A module in float64 (its state and configuration); a function as it is."""
    return fn.double() if isinstance(fn, torch.nn.Module) else fn


def value_and_grad(fn, x, target):
    x = x.detach().requires_grad_(True)
    loss = fn(x, target)
    loss.backward()
    return loss, x.grad


def assert_grad_close(got: torch.Tensor, expected: torch.Tensor, dtype: torch.dtype):
    """Within the rounding of ``dtype`` (an ulp of each value, and the spacing of the
    subnormals, which float16 reaches with the tiny per-item gradients of a mean over B),
    plus float32's rounding of the sums relative to the largest gradient."""
    finfo = torch.finfo(dtype)
    step = finfo.smallest_normal * finfo.eps  # spacing of the subnormals
    float32 = 1e-6 * expected.abs().max()
    bound = finfo.eps * expected.abs() + step + float32
    assert got.dtype == dtype
    excess = (got.double() - expected).abs() - bound
    assert excess.max().item() <= 0, excess.max().item()


class TestLowPrecisionInput:
    @pytest.mark.parametrize("dtype", LOW)
    @pytest.mark.parametrize("n", SIZES)
    @pytest.mark.parametrize(("name", "make", "kind"), LOSSES, ids=IDS)
    def test_equals_float64_on_the_same_values(self, name, make, kind, n, dtype):
        logits, target, score = data(n)
        x = (score if kind == "score" else logits).to(dtype)
        t = target if kind == "logits" else target.double()
        got, grad = value_and_grad(warmed(make, kind, dtype), x, t)
        expected, grad64 = value_and_grad(double(warmed(make, kind, dtype)), x.double(), t)
        assert got.dtype == torch.float32  # the accumulation dtype, documented
        assert torch.isfinite(got)
        assert got.item() == pytest.approx(expected.item(), rel=2e-5, abs=1e-6)
        assert_grad_close(grad, grad64, dtype)

    @pytest.mark.parametrize("dtype", LOW)
    @pytest.mark.parametrize(("name", "make", "kind"), LOSSES, ids=IDS)
    def test_equals_float32_of_the_same_values(self, name, make, kind, dtype):
        # Low-precision input is upcast before any sum: the same numbers as float32.
        logits, target, score = data(300)
        x = (score if kind == "score" else logits).to(dtype)
        t = target if kind == "logits" else target.double()
        got, grad = value_and_grad(warmed(make, kind, dtype), x, t)
        f32, grad32 = value_and_grad(warmed(make, kind, dtype), x.float(), t)
        assert got.item() == f32.item()
        assert torch.equal(grad, grad32.to(dtype))

    def test_the_reported_float16_cases(self):
        # Issue 18: 0.24 instead of ≈1.00 at 256 items; inf/NaN past batch × MSE 65,504.
        logits, target, score = data(256)
        exact = weighted_kappa_loss(logits, target).item()
        assert weighted_kappa_loss(logits.half(), target).item() == pytest.approx(exact, rel=1e-3)
        exact = soft_kappa_loss(score, target.double()).item()
        assert soft_kappa_loss(score.half(), target).item() == pytest.approx(exact, rel=1e-3)


AUTOCAST = [torch.bfloat16, torch.float16]  # CPU autocast runs both here (PyTorch 2.13)


class TestAutocast:
    @pytest.mark.parametrize("dtype", AUTOCAST)
    @pytest.mark.parametrize("n", SIZES)
    @pytest.mark.parametrize(("name", "make", "kind"), LOSSES, ids=IDS)
    def test_model_output_under_autocast(self, name, make, kind, n, dtype):
        # A model under autocast hands the loss a low-precision output; the loss (also
        # called under autocast) equals float64 on those values, gradients included.
        logits, target, _ = data(n)
        torch.manual_seed(0)
        model = torch.nn.Linear(K, 1 if kind == "score" else K)  # autocast lowers float32
        model.weight.data.mul_(8.0)  # scores on a wide scale: a large squared error
        fn = warmed(make, kind, dtype)
        t = target if kind == "logits" else target.double()
        with torch.autocast("cpu", dtype=dtype):
            out = model(logits.float())
            out.retain_grad()
            loss = fn(out, t)
        loss.backward()
        assert out.dtype == dtype and loss.dtype == torch.float32
        expected, grad64 = value_and_grad(double(warmed(make, kind, dtype)), out.double(), t)
        assert loss.item() == pytest.approx(expected.item(), rel=2e-5, abs=1e-6)
        assert_grad_close(out.grad, grad64, dtype)

    @pytest.mark.parametrize(("name", "make", "kind"), LOSSES, ids=IDS)
    def test_float32_input_is_not_lowered_by_autocast(self, name, make, kind):
        # Autocast would run the loss's own matrix products in bfloat16.
        logits, target, score = data(512)
        x = score.float() if kind == "score" else logits.float()
        t = target if kind == "logits" else target.double()
        plain = warmed(make, kind, torch.float32)(x, t)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            cast = warmed(make, kind, torch.float32)(x, t)
        assert cast.dtype == torch.float32
        assert cast.item() == pytest.approx(plain.item(), rel=1e-6)


class TestRunningState:
    @pytest.mark.parametrize("dtype", LOW)
    def test_a_large_error_batch_is_folded_in(self, dtype):
        # Batch × MSE far past 65,504: the batch must reach the state, as in float32.
        states = {}
        for kind in (dtype, torch.float32):
            loss_fn = SoftKappaLoss(momentum=0.5)
            for seed in (1, 2, 3):
                _, target, score = data(300, seed)
                loss = loss_fn(score.to(dtype).to(kind), target)
                assert torch.isfinite(loss)
            states[kind] = loss_fn.running_moments.clone()
        assert states[dtype][0].item() == pytest.approx(300 * (1 + 0.5 + 0.25))
        torch.testing.assert_close(states[dtype], states[torch.float32], rtol=1e-6, atol=0)

    @pytest.mark.parametrize("dtype", LOW)
    def test_weighted_state_matches_float32(self, dtype):
        tables = {}
        for kind in (dtype, torch.float32):
            loss_fn = WeightedKappaLoss(K, momentum=None)
            for seed in (1, 2, 3):
                logits, target, _ = data(300, seed)
                loss_fn(logits.to(dtype).to(kind), target)
            tables[kind] = loss_fn.running_confusion.clone()
        assert tables[dtype].sum().item() == pytest.approx(900, rel=1e-6)
        torch.testing.assert_close(tables[dtype], tables[torch.float32], rtol=1e-6, atol=1e-5)

    @pytest.mark.parametrize("convert", ["half", "bfloat16", "to"])
    def test_half_of_a_parent_model_never_narrows_the_state(self, convert):
        # `model.half()` converts every submodule, the loss included.
        model = torch.nn.ModuleDict({"soft": SoftKappaLoss(), "wk": WeightedKappaLoss(K)})
        model["soft"](torch.tensor([1.0, 7.0]), torch.tensor([1, 3]))
        before = model["soft"].running_moments.clone()
        if convert == "to":
            model.to(torch.float16)
        else:
            getattr(model, convert)()
        assert model["soft"].running_moments.dtype == torch.float32
        assert torch.equal(model["soft"].running_moments, before)  # from the unrounded values
        assert model["wk"].running_confusion.dtype == torch.float32
        assert model["wk"].weight_matrix.dtype == torch.float32
        model.double()  # widening is allowed, as documented
        assert model["soft"].running_moments.dtype == torch.float64

    def test_metrics_keep_their_dtypes(self):
        metric, soft = KappaMetric(3), SoftKappaMetric()
        for module in (metric, soft):
            module.half()
            module.float()
        assert metric.weighted_counts.dtype == torch.float64
        assert metric.counts.dtype == torch.int64
        assert soft.moments.dtype == torch.float64


class TestMetricsOfLowPrecision:
    @pytest.mark.parametrize("dtype", LOW)
    def test_soft_metric_of_low_precision_predictions(self, dtype):
        _, target, score = data(1000)
        rounded = score.to(dtype)
        metric = SoftKappaMetric()
        for idx in torch.arange(1000).chunk(4):
            metric.update(rounded[idx], target[idx])
        expected = qwkit.soft_kappa_score(target.numpy(), rounded.double().numpy())
        assert metric.compute() == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("dtype", LOW)
    def test_kappa_metric_of_low_precision_scores(self, dtype):
        logits, target, _ = data(1000)
        rounded = logits.to(dtype)
        metric = KappaMetric(K)
        metric.update(rounded, target)
        pred = rounded.float().argmax(1).numpy()
        assert metric.compute() == qwkit.kappa_score(target.numpy(), pred, labels=range(K))
