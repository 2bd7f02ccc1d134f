"""PyTorch losses and streaming metrics for quadratic weighted kappa (docs/torch.md).

``import qwkit`` never imports this module; ``import qwkit.torch`` imports PyTorch
(``pip install 'qwkit[torch]'``; PyTorch ≥ 2.1).

Losses — differentiable, on any device and floating dtype, with ``sample_weight``:

- :func:`soft_kappa_loss` / :class:`SoftKappaLoss`: 1 − the soft (continuous)
  quadratic weighted kappa of real-valued scores, or of the expected score of class
  logits (:func:`qwkit.soft_kappa_score`).
- :func:`weighted_kappa_loss` / :class:`WeightedKappaLoss`: 1 − the weighted kappa
  of the expected confusion table of class probabilities (de la Torre, Puig & Valls
  2018), with any of qwkit's weights; optionally their log(1 − κ).

The functions are the plain batch ratio. The modules keep a running estimate of the
chance (denominator) term across batches, so they train at any batch size, 1
included; the derivation is in docs/torch.md, eqs. (T1)–(T8), cited below.

Metrics — mergeable across batches and processes (:meth:`KappaMetric.sync`):

- :class:`KappaMetric`: weighted kappa of class predictions from the accumulated
  K×K table (:func:`qwkit.kappa_from_confusion`): exactly :func:`qwkit.kappa_score`.
- :class:`SoftKappaMetric`: soft quadratic weighted kappa of real-valued predictions
  from seven accumulated moments.
"""

from __future__ import annotations

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._extras import require

torch = require("torch", feature="qwkit.torch", package="PyTorch", extra="torch", minimum="2.1")

import math
from typing import Literal

import numpy as np
from torch import nn

from qwkit import _torch_shared as _s
from qwkit._torch_metrics import KappaMetric, SoftKappaMetric
from qwkit._validation import check_choice

__all__ = [
    "KappaMetric",
    "SoftKappaLoss",
    "SoftKappaMetric",
    "WeightedKappaLoss",
    "soft_kappa_loss",
    "weighted_kappa_loss",
]

_SCORE_KINDS = ("score", "logits", "probabilities")
_CLASS_KINDS = ("logits", "probabilities")


# ---------------------------------------------------------------------------- soft kappa


def _soft_inputs(input, target, sample_weight, prediction: str, labels):
    """(y, f, w): targets, scores and weights as (B,) tensors of the input's dtype."""
    prediction = check_choice(prediction, "prediction", _SCORE_KINDS)
    x = _s.check_tensor(input, "input")
    if not x.is_floating_point():
        raise TypeError(f"`input` must be a floating-point tensor; got {x.dtype}.")
    if prediction == "score":
        if labels is not None:
            raise ValueError(
                "`labels` (the values of the classes) is used only with "
                "prediction='logits' or 'probabilities'."
            )
        if x.ndim == 2 and x.shape[1] != 1:
            raise ValueError(
                f"`input` has shape {tuple(x.shape)}: a score needs shape (B,) or (B, 1). "
                "For class logits pass prediction='logits'."
            )
        f = _s.column(x, "input")
    else:
        p = _s.class_probabilities(x, prediction)
        k = p.shape[1]
        values = torch.arange(k, dtype=torch.float64) if labels is None else labels
        if values.shape[0] != k:
            raise ValueError(f"`labels` has {values.shape[0]} values but `input` has {k} classes.")
        f = p @ values.to(dtype=p.dtype, device=p.device)  # expected score Σₖ pₖ·vₖ
    n = f.shape[0]
    y = _s.column(_s.check_tensor(target, "target"), "target")
    _s.check_device(y, "target", f.device)
    _s.check_length(y, "target", n)
    if y.dtype == torch.bool or y.is_complex():
        raise TypeError(f"`target` must be real numbers; got {y.dtype}.")
    y = y.detach().to(f.dtype)
    w = _s.sample_weight_tensor(sample_weight, n, f)
    return y, f, w


def _ratio(n: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """n/d, and 0 where d = 0 (then n = 0 too: every prediction equals one constant
    label; the loss is 0 with zero gradient, never NaN)."""
    return n / torch.where(d > 0, d, torch.ones_like(d))


def soft_kappa_loss(
    input: torch.Tensor,
    target: torch.Tensor,
    *,
    sample_weight: torch.Tensor | None = None,
    prediction: Literal["score", "logits", "probabilities"] = "score",
    labels=None,
) -> torch.Tensor:
    """1 − soft quadratic weighted kappa of one batch (differentiable).

    Parameters
    ----------
    input : Tensor of shape (B,) or (B, 1), or (B, K)
        Real-valued scores on the rating scale (``prediction="score"``), or class
        logits or probabilities (then the score is the expected class value).
    target : Tensor of shape (B,)
        True ratings, on the same scale as the scores.
    sample_weight : Tensor of shape (B,), default=None
        Non-negative item weights (no gradient flows into them).
    prediction : {"score", "logits", "probabilities"}, default="score"
        What `input` holds. With ``"logits"`` the score of item i is
        Σₖ softmax(input)ᵢₖ·vₖ, with ``"probabilities"`` Σₖ inputᵢₖ·vₖ, where vₖ are
        the `labels`.
    labels : array-like or Tensor of shape (K,), default=None
        Values of the K classes (strictly increasing) for ``"logits"`` and
        ``"probabilities"``; None means 0, 1, ..., K − 1 (class indices).

    Returns
    -------
    Tensor
        Scalar 1 − κ in [0, 2] (eq. T1), equal to ``1 - qwkit.soft_kappa_score(target,
        score, sample_weight=sample_weight)``; 0 when every score equals one constant
        target (where κ is 0/0).

    See Also
    --------
    SoftKappaLoss : the same with a running estimate of the chance term, for small
        batches. This function is the batch ratio: constant 1 at batch size 1.

    Notes
    -----
    With weighted means ȳ and variance v_y of the targets (eq. T2),

        1 − κ = n / d,  n = Σw(y − f)² / Σw,  d = Σw(f − ȳ)² / Σw + v_y,

    the alternate form of Vaughn & Justice (2015), which equals
    Σw(y − f)² / (Σwy² + Σwf² − 2·Σwy·Σwf/Σw).

    Examples
    --------
    >>> import torch
    >>> from qwkit.torch import soft_kappa_loss
    >>> score = torch.tensor([1.2, 1.9, 3.4, 3.6], requires_grad=True)
    >>> loss = soft_kappa_loss(score, torch.tensor([1, 2, 3, 4]))
    >>> round(1 - loss.item(), 6)   # qwkit.soft_kappa_score gives the same
    0.959206
    >>> loss.backward()
    >>> [round(g, 4) for g in score.grad.tolist()]
    [0.0558, -0.0167, 0.0801, -0.0981]
    """
    values = _s.label_values(labels)
    y, f, w = _soft_inputs(input, target, sample_weight, prediction, values)
    if f.shape[0] == 0 or not bool(w.sum() > 0):
        raise ValueError("The batch is empty or `sample_weight` sums to zero.")
    loss = _ratio(*_s.soft_ratio(_s.moments(y, f, w)))  # (T2)
    if not bool(torch.isfinite(loss)):
        _s.check_finite(y, "target")  # NaN scores (a diverged model) give a NaN loss
    return loss


# ---------------------------------------------------------------------------- weighted kappa


def _confusion(p: torch.Tensor, t: torch.Tensor, w: torch.Tensor, k: int) -> torch.Tensor:
    """Expected confusion table O = Σᵢ wᵢ·e_{yᵢ}·pᵢᵀ (rows: truth), differentiable in p."""
    onehot = torch.nn.functional.one_hot(t, k).to(p.dtype)
    return onehot.T @ (w[:, None] * p)


def _table_ratio(o, wm):
    """(n, d) of eq. (T4) for a table (tensor or ndarray): the observed and the
    chance-expected disagreement per unit weight; 1 − κ = n/d."""
    total = o.sum()
    n = (wm * o).sum() / total
    d = o.sum(1) @ wm @ o.sum(0) / (total * total)
    return n, d


def _class_inputs(input, target, sample_weight, prediction: str):
    prediction = check_choice(prediction, "prediction", _CLASS_KINDS)
    p = _s.class_probabilities(input, prediction)
    n, k = p.shape
    t = _s.class_indices(target, n, k, p.device, "target")
    w = _s.sample_weight_tensor(sample_weight, n, p)
    return p, t, w


def _log_ratio(r: torch.Tensor) -> torch.Tensor:
    return torch.log(r.clamp_min(torch.finfo(r.dtype).tiny))


def weighted_kappa_loss(
    input: torch.Tensor,
    target: torch.Tensor,
    *,
    weights="quadratic",
    sample_weight: torch.Tensor | None = None,
    prediction: Literal["logits", "probabilities"] = "logits",
    log: bool = False,
) -> torch.Tensor:
    """1 − weighted kappa of the expected confusion table of one batch (differentiable).

    The loss of de la Torre, Puig & Valls (2018): kappa of the table whose row yᵢ
    receives the predicted class probabilities pᵢ of item i.

    Parameters
    ----------
    input : Tensor of shape (B, K)
        Class logits (default) or probabilities.
    target : Tensor of shape (B,)
        True classes, integer indices 0..K − 1.
    weights : {"quadratic", "linear", "identity"}, None, array-like or Tensor of shape \
(K, K), default="quadratic"
        Disagreement weights, as in :func:`qwkit.weight_matrix`.
    sample_weight : Tensor of shape (B,), default=None
        Non-negative item weights.
    prediction : {"logits", "probabilities"}, default="logits"
        What `input` holds (logits go through a softmax).
    log : bool, default=False
        Return log(1 − κ), the form of de la Torre et al. (2018) and of
        tensorflow-addons' ``WeightedKappaLoss``; its gradient is that of 1 − κ
        divided by 1 − κ.

    Returns
    -------
    Tensor
        Scalar 1 − κ in [0, 2] (eq. T4), equal to ``1 - qwkit.kappa_from_confusion(O,
        weights=weights)`` of the expected table O; or its log.

    See Also
    --------
    WeightedKappaLoss : the same with a running estimate of the chance term, for small
        batches. This function is the batch ratio: constant 1 at batch size 1.

    Examples
    --------
    The example of tensorflow-addons' ``WeightedKappaLoss`` (−1.1611923 there, which
    adds 1e-6 inside the log):

    >>> import torch
    >>> from qwkit.torch import weighted_kappa_loss
    >>> proba = torch.tensor([[0.1, 0.2, 0.6, 0.1], [0.1, 0.5, 0.3, 0.1],
    ...                       [0.8, 0.05, 0.05, 0.1], [0.01, 0.09, 0.1, 0.8]])
    >>> target = torch.tensor([2, 1, 0, 3])
    >>> loss = weighted_kappa_loss(proba, target, prediction="probabilities", log=True)
    >>> round(loss.item(), 6)
    -1.161196
    >>> round(torch.log(loss.exp() + 1e-6).item(), 6)
    -1.161193
    """
    _s.check_bool(log, "log")
    p, t, w = _class_inputs(input, target, sample_weight, prediction)
    if p.shape[0] == 0 or not bool(w.sum() > 0):
        raise ValueError("The batch is empty or `sample_weight` sums to zero.")
    wm = _s.weight_matrix_tensor(weights, p.shape[1]).to(dtype=p.dtype, device=p.device)
    r = _ratio(*_table_ratio(_confusion(p, t, w, p.shape[1]), wm))  # (T4)
    return _log_ratio(r) if log else r


# ---------------------------------------------------------------------------- modules


class _RunningKappaLoss(nn.Module):
    """Shared machinery of the two modules: state, momentum, the surrogate (T6)."""

    def __init__(self, momentum):
        super().__init__()
        self.momentum = _s.check_momentum(momentum)

    def reset(self) -> None:
        """Forget the running statistics (the next batch is a first batch again)."""
        self._state().zero_()

    def _state(self) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def _keep(self) -> float:
        return 1.0 if self.momentum is None else 1.0 - self.momentum

    def _current(self, like: torch.Tensor) -> torch.Tensor:
        state = self._state()
        if state.device != like.device:
            raise ValueError(
                f"`input` is on {like.device} but the running statistics of this "
                f"{type(self).__name__} are on {state.device}; move the loss with "
                f"`.to({str(like.device)!r})` as you do the model."
            )
        return state

    def _store(self, new_state) -> None:
        """Write the new state (a list or array of float64 values) in training mode."""
        if self.training:
            state = self._state()
            with torch.no_grad():
                state.copy_(torch.as_tensor(new_state, dtype=torch.float64).view_as(state))

    @staticmethod
    def _surrogate(r_hat, d_hat, n_batch, d_batch):
        """Eq. (T6): value R̂ + (n_B − R̂·d_B)/d̂; gradient (∇n_B − R̂·∇d_B)/d̂ (T7)."""
        return r_hat + (n_batch - r_hat * d_batch) / d_hat

    def extra_repr(self) -> str:
        return f"momentum={self.momentum}"


class SoftKappaLoss(_RunningKappaLoss):
    """1 − soft quadratic weighted kappa, with a running chance term: any batch size.

    For a batch alone the loss is :func:`soft_kappa_loss`, a ratio that is constant (1)
    at batch size 1. This module keeps running weighted moments of the targets and
    predictions of past batches (buffers) and returns a loss whose gradient is the
    plug-in estimate of the gradient of 1 − κ over all the data (docs/torch.md,
    eqs. T5–T8): the current batch enters both the numerator and the chance term with
    gradient, so it is not mean squared error in disguise.

    Parameters
    ----------
    prediction : {"score", "logits", "probabilities"}, default="score"
        What `input` holds: scores of shape (B,) or (B, 1), or class logits or
        probabilities of shape (B, K) whose expected class value is the score.
    labels : array-like or Tensor of shape (K,), default=None
        Values of the K classes for ``"logits"``/``"probabilities"``; None means
        0, 1, ..., K − 1.
    momentum : float in (0, 1] or None, default=0.01
        The share of the newest batch in the running moments, as in
        :class:`torch.nn.BatchNorm1d`: after each training batch the state becomes
        (1 − momentum)·state ⊕ batch (weights decay, eq. T5), so it reflects roughly the
        last 1/momentum batches. None gives the cumulative moments of every batch
        since construction or :meth:`reset`.

    Attributes
    ----------
    running_moments : Tensor of shape (7,)
        Buffer: Σw, ȳ, f̄, Σw(y−ȳ)², Σw(f−f̄)², Σw(y−ȳ)(f−f̄), Σw(y−f)² of the
        remembered items (decayed weights). In the state_dict.

    Notes
    -----
    *First batch.* With no state (fresh or after :meth:`reset`), the loss and its
    gradient are exactly :func:`soft_kappa_loss` of the batch.

    *Later batches.* With R̂ = n/d of the state (1 − κ of past predictions), d̂ its
    chance term, and ȳ, v_y the mean and variance of the targets in the state, the
    loss is (eq. T6)

        ℓ = R̂ + (n_B − R̂·d_B)/d̂,  n_B = mean_B w(y − f)²,  d_B = mean_B w(f − ȳ)² + v_y,

    whose gradient ∂ℓ/∂fᵢ = 2wᵢ/(W_B·d̂) · [(fᵢ − yᵢ) − R̂·(fᵢ − ȳ)] is eq. (T3), the
    gradient of 1 − κ over all the data, with the batch's own terms and running
    estimates of R and d. Its value is an estimate of 1 − κ (noisy, like any
    per-batch loss); ℓ is an ordinary differentiable function of the batch given
    the state, so ``torch.autograd.gradcheck`` holds for it.

    *Modes.* In training mode each call then folds the batch into the state; in
    ``eval()`` mode the state is read, never changed. A batch of zero total weight
    returns a zero loss and changes nothing; a batch with NaN or infinite predictions
    (a diverged step, an overflow under mixed precision) gets a NaN loss and is not
    folded into the state. Move the module with the model
    (``.to(device)``); the loss is computed in the dtype of `input`.

    Examples
    --------
    >>> import torch
    >>> from qwkit.torch import SoftKappaLoss
    >>> loss_fn = SoftKappaLoss()
    >>> score = torch.tensor([1.2, 1.9, 3.4, 3.6], requires_grad=True)
    >>> round(loss_fn(score, torch.tensor([1, 2, 3, 4])).item(), 6)  # first batch: 1 − κ
    0.040794
    >>> one = torch.tensor([2.5], requires_grad=True)
    >>> loss = loss_fn(one, torch.tensor([3.0]))       # batch size 1 still learns
    >>> loss.backward()
    >>> round(one.grad.item(), 4)                       # negative: push the score up
    -0.441
    """

    def __init__(
        self,
        *,
        prediction: Literal["score", "logits", "probabilities"] = "score",
        labels=None,
        momentum: float | None = 0.01,
    ):
        super().__init__(momentum)
        self.prediction = check_choice(prediction, "prediction", _SCORE_KINDS)
        values = _s.label_values(labels)
        if values is not None and prediction == "score":
            raise ValueError(
                "`labels` (the values of the classes) is used only with "
                "prediction='logits' or 'probabilities'."
            )
        self.register_buffer(  # configuration, not state: moves with .to(), not saved
            "labels",
            None if values is None else values.to(torch.get_default_dtype()),
            persistent=False,
        )
        self.register_buffer("running_moments", torch.zeros(_s.N_MOMENTS))

    def _state(self) -> torch.Tensor:
        return self.running_moments

    def forward(self, input, target, sample_weight=None) -> torch.Tensor:
        """The loss of one batch (arguments as in :func:`soft_kappa_loss`)."""
        y, f, w = _soft_inputs(input, target, sample_weight, self.prediction, self.labels)
        if f.shape[0] == 0:
            return (f * w).sum()  # adds nothing; zero loss, zero gradient
        state = self._current(f)
        dtype = torch.promote_types(f.dtype, state.dtype)
        with torch.no_grad():  # one transfer: the batch's moments and the state
            both = torch.cat([_s.moments(y, f, w).to(dtype), state.to(dtype)]).tolist()
        batch, past = both[: _s.N_MOMENTS], both[_s.N_MOMENTS :]
        if not batch[0] > 0:  # Σw: finite, validated
            return (f * w).sum()  # zero total weight: adds nothing
        finite = all(map(math.isfinite, batch))
        if not finite:  # a NaN target is an error; NaN or inf scores give a NaN loss
            _s.check_finite(y, "target")
        new_state = _s.merge_moments(_s.decayed(past, self._keep()), batch)  # (T5)
        n_s, d_s = _s.soft_ratio(past) if past[0] > 0 else (0.0, 0.0)
        if d_s > 0:
            r_hat = n_s / d_s
            y_mean, y_var = past[1], past[3] / past[0]
            err, dev = y - f, f - y_mean
            n_b = (w * err * err).sum() / batch[0]
            d_b = (w * dev * dev).sum() / batch[0] + y_var  # (T2), item by item
            loss = self._surrogate(r_hat, d_s, n_b, d_b)  # (T6)
        else:  # first batch (or a state with no chance term): the exact ratio (T2)
            loss = _ratio(*_s.soft_ratio(_s.moments(y, f, w)))
        if finite:  # a diverged or overflowed batch never poisons the state
            self._store(new_state)
        return loss

    def extra_repr(self) -> str:
        return f"prediction={self.prediction!r}, momentum={self.momentum}"


class WeightedKappaLoss(_RunningKappaLoss):
    """1 − weighted kappa of expected confusion tables, with a running chance term.

    The loss of de la Torre, Puig & Valls (2018) on class probabilities, with any of
    qwkit's weights, made to work at any batch size: running (decayed) sums of the
    expected K×K table of past batches are kept in a buffer, and the current batch
    enters the observed and the chance-expected disagreement with gradient
    (docs/torch.md, eqs. T4–T7).

    Parameters
    ----------
    num_classes : int
        Number of classes K (≥ 2); targets are indices 0..K − 1.
    weights : {"quadratic", "linear", "identity"}, None, array-like or Tensor of shape \
(K, K), default="quadratic"
        Disagreement weights, as in :func:`qwkit.weight_matrix`.
    prediction : {"logits", "probabilities"}, default="logits"
        What `input` holds.
    log : bool, default=False
        Use log(1 − κ) as de la Torre et al. (2018) and tensorflow-addons do. The
        default 1 − κ (as dlordinal's default, after Vargas et al. 2020) has the same
        minimizer and a bounded range, [0, 2].
    momentum : float in (0, 1] or None, default=0.01
        As in :class:`SoftKappaLoss`.

    Attributes
    ----------
    running_confusion : Tensor of shape (K, K)
        Buffer: decayed sums of the expected confusion tables (rows: truth).
    weight_matrix : Tensor of shape (K, K)
        The disagreement weights (a buffer that moves with ``.to()``; configuration,
        not in the state_dict).

    Notes
    -----
    First batch: exactly :func:`weighted_kappa_loss`. Later batches, with R̂ and d̂
    the ratio and chance term of the state and ĥ the share of each true class among
    the targets in the state, the loss is R̂ + (n_B − R̂·d_B)/d̂ (eq. T6) with
    n_B = Σᵢ wᵢ·(W pᵢ)_{yᵢ} / W_B and d_B = Σᵢ wᵢ·ĥᵀW pᵢ / W_B; with ``log=True``
    it is log R̂ + (n_B − R̂·d_B)/(R̂·d̂), the same linearization of log(1 − κ).
    Modes, reset, devices and dtypes as in :class:`SoftKappaLoss`.

    Examples
    --------
    >>> import torch
    >>> from qwkit.torch import WeightedKappaLoss
    >>> loss_fn = WeightedKappaLoss(4)
    >>> logits = torch.tensor([[2.0, 1.0, 0.0, -1.0], [0.0, 2.0, 1.0, 0.0]])
    >>> round(loss_fn(logits, torch.tensor([0, 2])).item(), 6)
    0.542572
    """

    def __init__(
        self,
        num_classes: int,
        *,
        weights="quadratic",
        prediction: Literal["logits", "probabilities"] = "logits",
        log: bool = False,
        momentum: float | None = 0.01,
    ):
        super().__init__(momentum)
        k = _s.check_num_classes(num_classes)
        self.num_classes = k
        self.prediction = check_choice(prediction, "prediction", _CLASS_KINDS)
        self.log = _s.check_bool(log, "log")
        wm = _s.weight_matrix_tensor(weights, k)
        self._weights64 = wm.numpy()  # configuration, like `num_classes`
        self.register_buffer("weight_matrix", wm.to(torch.get_default_dtype()), persistent=False)
        self.register_buffer("running_confusion", torch.zeros(k, k))

    def _state(self) -> torch.Tensor:
        return self.running_confusion

    def forward(self, input, target, sample_weight=None) -> torch.Tensor:
        """The loss of one batch (arguments as in :func:`weighted_kappa_loss`)."""
        p, t, w = _class_inputs(input, target, sample_weight, self.prediction)
        k = self.num_classes
        if p.shape[1] != k:
            raise ValueError(f"`input` has {p.shape[1]} classes but `num_classes` is {k}.")
        if p.shape[0] == 0:
            return (p * w[:, None]).sum()  # adds nothing; zero loss, zero gradient
        state = self._current(p)
        batch = _confusion(p, t, w, k)
        dtype = torch.promote_types(p.dtype, state.dtype)
        with torch.no_grad():  # one transfer: the batch's table and the state
            both = torch.stack([batch.to(dtype), state.to(dtype)]).cpu().double().numpy()
        table, past = both
        total_b = float(table.sum())
        finite = bool(np.isfinite(table).all())
        if finite and not total_b > 0:
            return (p * w[:, None]).sum()  # zero total weight: adds nothing
        new_state = self._keep() * past + table  # (T5)
        wm64 = self._weights64
        n_s, d_s = _table_ratio(past, wm64) if past.sum() > 0 else (0.0, 0.0)
        wm = self.weight_matrix.to(dtype=p.dtype)
        if d_s > 0:
            r_hat = float(n_s / d_s)
            h_hat = past.sum(axis=1) / past.sum()  # shares of the true classes
            chance = torch.as_tensor(h_hat @ wm64, dtype=p.dtype, device=p.device)
            n_b = (wm * batch).sum() / total_b
            d_b = batch.sum(dim=0) @ chance / total_b  # (T4), item by item
            loss = self._surrogate(r_hat, float(d_s), n_b, d_b)  # (T6)
            if self.log:  # log R̂ + (ℓ − R̂)/R̂: the same linearization of log(1 − κ)
                r_safe = max(r_hat, torch.finfo(p.dtype).tiny)
                loss = math.log(r_safe) + (loss - r_hat) / r_safe
        else:  # first batch (or a state with no chance term): the exact ratio (T4)
            r = _ratio(*_table_ratio(batch, wm))
            loss = _log_ratio(r) if self.log else r
        if finite:  # a diverged or overflowed batch never poisons the state
            self._store(new_state)
        return loss

    def extra_repr(self) -> str:
        return (
            f"num_classes={self.num_classes}, prediction={self.prediction!r}, "
            f"log={self.log}, momentum={self.momentum}"
        )
