"""qwkit.torch reads nothing from the device in a forward pass or an update.

A host read (``.item()``, ``.tolist()``, ``bool(tensor)``, ...) is a device sync on a
GPU and a graph break under ``torch.compile``. Three independent witnesses, each run
on CPU (the machine has no GPU):

* a counter on every Python-level host read of ``torch.Tensor`` during the call;
* the ``meta`` device, which holds no data: any read of a value there raises, C++
  reads included (``nonzero``, ``bincount`` sizing, range checks of ``one_hot``);
* ``torch.compile(fullgraph=True)``, which refuses any graph break.

With ``validate_args=True`` (the default) the checks of the data are read in exactly
one transfer per call, and not at all while the call is compiled.
"""

from __future__ import annotations

import math

import pytest
import torch
from torch_helpers import one_thread  # noqa: F401 - autouse fixture

from qwkit.torch import (
    KappaMetric,
    SoftKappaLoss,
    SoftKappaMetric,
    WeightedKappaLoss,
    soft_kappa_loss,
    weighted_kappa_loss,
)

K = 4
#: Every way Python code reads a tensor's value on the host.
HOST_READS = ("item", "tolist", "numpy", "cpu", "__bool__", "__int__", "__float__", "__index__")


def batch(device="cpu", n=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, K, generator=g)
    target = torch.randint(0, K, (n,), generator=g)
    score = target + torch.randn(n, generator=g)
    weight = torch.rand(n, generator=g) + 0.5
    return [t.to(device) for t in (logits, target, score, weight)]


def loss_cases(validate_args: bool):
    """(name, make, kind): losses of every kind, functions and modules."""
    v = {"validate_args": validate_args}
    return [
        (
            "soft_kappa_loss",
            lambda: lambda x, t, w: soft_kappa_loss(x, t, sample_weight=w, **v),
            "score",
        ),
        (
            "soft_kappa_loss/logits",
            lambda: (
                lambda x, t, w: soft_kappa_loss(x, t, sample_weight=w, prediction="logits", **v)
            ),
            "logits",
        ),
        (
            "weighted_kappa_loss",
            lambda: lambda x, t, w: weighted_kappa_loss(x, t, sample_weight=w, **v),
            "logits",
        ),
        (
            "weighted_kappa_loss/log",
            lambda: lambda x, t, w: weighted_kappa_loss(x, t, sample_weight=w, log=True, **v),
            "logits",
        ),
        ("SoftKappaLoss", lambda: SoftKappaLoss(**v), "score"),
        (
            "SoftKappaLoss/logits",
            lambda: SoftKappaLoss(prediction="logits", labels=[1, 2, 4, 8], **v),
            "logits",
        ),
        ("WeightedKappaLoss", lambda: WeightedKappaLoss(K, **v), "logits"),
        (
            "WeightedKappaLoss/log",
            lambda: WeightedKappaLoss(K, weights="linear", log=True, **v),
            "logits",
        ),
    ]


IDS = [name for name, _, _ in loss_cases(False)]


def call(fn, kind, logits, target, score, weight):
    x = (score if kind == "score" else logits).clone().requires_grad_(True)
    t = target.to(score.dtype) if kind == "score" else target
    if isinstance(fn, torch.nn.Module):
        return fn(x, t, weight), x
    return fn(x, t, weight), x


class HostReads:
    """Counts the host reads of torch.Tensor made by Python code while active."""

    def __init__(self, monkeypatch):
        self.calls: list[str] = []
        self.active = False
        for name in HOST_READS:
            original = getattr(torch.Tensor, name)
            monkeypatch.setattr(torch.Tensor, name, self._counting(name, original))

    def _counting(self, name, original):
        def counted(tensor, *args, **kwargs):
            if self.active:
                self.calls.append(name)
            return original(tensor, *args, **kwargs)

        return counted

    def __enter__(self):
        self.active = True
        return self

    def __exit__(self, *exc):
        self.active = False


def warm(fn, kind):
    """A module with a state (its second batch is no first batch)."""
    if isinstance(fn, torch.nn.Module):
        call(fn, kind, *batch(seed=1))
    return fn


class TestNoHostReadInForward:
    @pytest.mark.parametrize(("name", "make", "kind"), loss_cases(False), ids=IDS)
    @pytest.mark.parametrize("training", [True, False])
    def test_no_read_without_validation(self, monkeypatch, name, make, kind, training):
        fn = warm(make(), kind)
        if isinstance(fn, torch.nn.Module):
            fn.train(training)
        data = batch(seed=2)
        reads = HostReads(monkeypatch)
        with reads:
            loss, _ = call(fn, kind, *data)
            loss.backward()
        assert reads.calls == []
        assert torch.isfinite(loss)

    @pytest.mark.parametrize(("name", "make", "kind"), loss_cases(True), ids=IDS)
    def test_one_read_with_validation(self, monkeypatch, name, make, kind):
        fn = warm(make(), kind)
        data = batch(seed=2)
        reads = HostReads(monkeypatch)
        with reads:
            loss, _ = call(fn, kind, *data)
            loss.backward()
        assert reads.calls == ["tolist"]  # DataChecks.run: every flag in one transfer

    @pytest.mark.parametrize("weighted", [False, True])
    def test_metric_updates(self, monkeypatch, weighted):
        logits, target, score, weight = batch()
        w = weight if weighted else None
        metric, soft = KappaMetric(K, validate_args=False), SoftKappaMetric(validate_args=False)
        reads = HostReads(monkeypatch)
        with reads:
            metric.update(logits, target, w)
            metric.update(target.flip(0), target, w)
            soft.update(score, target, w)
            soft.merge(SoftKappaMetric())
        assert reads.calls == []
        checked = KappaMetric(K)
        with reads:
            checked.update(target.flip(0), target, w)
        assert reads.calls == ["tolist"]


class TestMetaDevice:
    """On ``meta`` there are no values: reading one raises, in Python or in C++."""

    @pytest.mark.parametrize(("name", "make", "kind"), loss_cases(False), ids=IDS)
    def test_losses_forward_and_backward(self, name, make, kind):
        fn = make()
        if isinstance(fn, torch.nn.Module):
            fn.to("meta")
        for seed in (1, 2):  # a first batch, then one with a state
            loss, x = call(fn, kind, *batch("meta", seed=seed))
            loss.backward()
            assert loss.device.type == "meta" and x.grad.shape == x.shape

    def test_metric_updates(self):
        logits, target, score, weight = batch("meta")
        metric = KappaMetric(K, validate_args=False).to("meta")
        metric.update(logits, target)
        metric.update(target, target, weight)
        soft = SoftKappaMetric(validate_args=False).to("meta")
        soft.update(score, target, weight)
        assert soft.moments.device.type == "meta"

    def test_validation_is_what_reads(self):
        with pytest.raises(NotImplementedError, match="meta"):
            WeightedKappaLoss(K).to("meta")(*batch("meta")[:2])


@pytest.fixture
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.usefixtures("fresh_dynamo")
class TestCompile:
    # backend="aot_eager": Dynamo's capture (fullgraph=True refuses any graph break) and
    # AOTAutograd's trace of the backward, without compiling C++ in the test suite.

    @pytest.mark.parametrize(("name", "make", "kind"), loss_cases(True), ids=IDS)
    def test_fullgraph_forward_and_backward(self, name, make, kind):
        eager, compiled_fn = make(), make()
        compiled = torch.compile(compiled_fn, fullgraph=True, backend="aot_eager")
        for seed in (1, 2, 3):  # the first batch, then batches with a state
            data = batch(seed=seed)
            want, x_want = call(eager, kind, *data)
            got, x_got = call(compiled, kind, *data)
            want.backward()
            got.backward()
            torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-7)
            torch.testing.assert_close(x_got.grad, x_want.grad, rtol=1e-5, atol=1e-7)
        if isinstance(eager, torch.nn.Module):
            for key, value in eager.state_dict().items():
                torch.testing.assert_close(compiled_fn.state_dict()[key], value)

    @pytest.mark.parametrize(("name", "make", "kind"), loss_cases(True), ids=IDS)
    def test_explain_counts_one_graph(self, name, make, kind):
        fn = warm(make(), kind)
        logits, target, score, weight = batch(seed=2)
        x = score if kind == "score" else logits
        t = target.to(score.dtype) if kind == "score" else target
        explained = torch._dynamo.explain(fn)(x, t, weight)
        assert explained.graph_break_count == 0 and explained.graph_count == 1

    def test_invalid_data_under_compile_give_nan(self):
        # The host check is skipped inside a compiled graph; the NaN guard is not.
        compiled = torch.compile(weighted_kappa_loss, fullgraph=True, backend="aot_eager")
        logits, target, _, _ = batch()
        bad = target.clone()
        bad[3] = K  # out of range
        assert math.isnan(compiled(logits, bad).item())
        with pytest.raises(ValueError, match="class indices"):
            weighted_kappa_loss(logits, bad)  # eager: validated
