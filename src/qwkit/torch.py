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

Every sum is taken in float32 at least (float16, bfloat16 and autocast input), and no
value is read from the device in a forward pass or an update but the optional check of
the data, ``validate_args`` (docs/torch.md, section 6).

Metrics — mergeable across batches and processes (:meth:`KappaMetric.sync`):

- :class:`KappaMetric`: weighted kappa of class predictions from the accumulated
  K×K table (:func:`qwkit.kappa_from_confusion`): exactly :func:`qwkit.kappa_score`.
- :class:`SoftKappaMetric`: soft quadratic weighted kappa of real-valued predictions
  from seven accumulated moments.
"""

from __future__ import annotations

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

require("torch", feature="qwkit.torch", package="PyTorch", extra="torch", minimum="2.1")

from typing import Literal

import torch
from torch.nn import functional

from qwkit._base._errors import QwkitError
from qwkit._base._validation import check_choice
from qwkit._integrations import _torch_shared as _s
from qwkit._integrations._torch_metrics import KappaMetric, SoftKappaMetric

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


def _soft_inputs(input, target, sample_weight, prediction: str, labels, checks):
    """(y, f, w): targets, scores and weights as (B,) tensors of the accumulation dtype
    (w None: unit weights; ``prediction`` checked by the caller)."""
    x = _s.check_tensor(input, "input")
    _s.check_floating(x, "input")
    acc = _s.accumulation_dtype(x.dtype)
    if prediction == "score":
        if labels is not None:
            raise QwkitError(
                "`labels` (the values of the classes) is used only with "
                "prediction='logits' or 'probabilities'; got prediction='score'.",
                parameter="labels",
            )
        if x.ndim == 2 and x.shape[1] != 1:
            raise QwkitError(
                f"`input` has shape {tuple(x.shape)}: a score needs shape (B,) or (B, 1). "
                "For class logits pass prediction='logits'.",
                parameter="input",
            )
        f = _s.cast(_s.column(x, "input"), acc)
    else:
        p = _s.class_probabilities(x, prediction, checks)
        k = p.shape[1]
        if labels is None:
            values = _s.constant(tuple(range(k)), acc, p.device)
        else:
            _s.check_label_count(labels.shape[0], k)
            values = labels.to(dtype=acc, device=p.device, non_blocking=True)
        f = (p * values).sum(1)  # expected score Σₖ pₖ·vₖ
    n = f.shape[0]
    y = _s.column(_s.check_tensor(target, "target"), "target")
    _s.check_device(y, "target", f.device, "`input`")
    _s.check_length(y, "target", n, "input")
    _s.check_real(y, "target")
    y = _s.cast(y.detach(), acc)
    w = _s.sample_weight_tensor(sample_weight, n, f, checks)
    return y, f, w


def _check_batch(n: int) -> None:
    if n == 0:
        raise QwkitError(
            "`input` must hold at least one item: kappa of an empty batch is undefined; "
            "got 0 rows.",
            parameter="input",
        )


_SOFT_UNDEFINED = "every score equals the one value of the targets"
_TABLE_UNDEFINED = "no disagreement that chance could produce has a positive weight"


# One form for every loss here (eq. T6): ℓ = R̂ + s·S(input), where S is the batch's
# numerator n_B − R̂·d_B summed item by item (the only part with a gradient) and R̂ and
# s = 1/(W_B·d̂) are constants of the call. With R̂ and d̂ of the running state it is the
# running loss (T6); with the batch's own, its value is the batch ratio n/d (S is then 0
# up to rounding) and its gradient (∇n − R·∇d)/d is the ratio's (the quotient rule), so
# the functions, the first batch of a module and its later batches are one computation.


def _flagged(values, nan, has, c):
    """``values`` (R̂, s, then other coefficients of S) of ℓ = R̂ + s·S: R̂ NaN and every
    coefficient 0 where ``nan`` (a NaN loss with a zero gradient), and all 0 where the
    batch has no weight (``has`` false; None: it has weight)."""
    if has is not None:
        values = torch.where(has, values, c.zero)
    return torch.where(nan, c.void[: values.shape[0]], values)


def _soft_constants(terms, total, nan, has, c):
    """(c₀, s, s·R̂, ȳ) of :func:`_soft_loss` in one tensor, flagged as in
    :func:`_flagged`, from the first four terms of :func:`~_torch_shared.soft_terms`
    (c₀ = R̂·(1 − v_y/d̂), 1/d̂, R̂/d̂, ȳ) and ``total`` W_B: s = 1/(W_B·d̂)."""
    return _flagged(terms[:4] / torch.where(c.scaled, total, c.one), nan, has, c)


_SUM = 2  # torch.nn.functional's reduction code of "sum" (torch.nn._reduction)
_MSE = getattr(torch._C._nn, "mse_loss", None)


def _squared_error(x, target):
    """Σ(x − target)² with one autograd node: ``mse_loss(reduction="sum")`` of equal
    shapes, called as ``torch.nn.functional.mse_loss`` calls it (its Python checks of
    shapes and reductions, half of its cost here, have nothing to check)."""
    if _MSE is None:  # pragma: no cover - a PyTorch without the binding
        return functional.mse_loss(x, target, reduction="sum")
    return _MSE(x, target, _SUM)


def _soft_loss(y, f, w, start, scale, r_scale, y_mean):
    """ℓ = R̂ + s·[Σw(y − f)² − R̂·(Σw(f − ȳ)² + W_B·v_y)] = R̂ + s·W_B·(n_B − R̂·d_B),
    eq. (T6) item by item, as c₀ + s·Σw(y − f)² − s·R̂·Σw(f − ȳ)² with c₀ = R̂·(1 − v_y/d̂)
    (constants from :func:`_soft_constants`): two squared errors (weights as √w), four
    autograd nodes."""
    if w is None:
        f_w, y_w, mean_w = f, y, y_mean.expand_as(f)
    else:
        root = w.sqrt()
        f_w, y_w, mean_w = f * root, y * root, y_mean * root
    error, spread = _squared_error(f_w, y_w), _squared_error(f_w, mean_w)
    return torch.addcmul(torch.addcmul(start, error, scale), spread, r_scale, value=-1)


def soft_kappa_loss(
    input: torch.Tensor,
    target: torch.Tensor,
    *,
    sample_weight: torch.Tensor | None = None,
    prediction: Literal["score", "logits", "probabilities"] = "score",
    labels=None,
    validate_args: bool = True,
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
    validate_args : bool, default=True
        Check the values in the data (finite targets, finite non-negative weights of
        positive sum, rows of probabilities) and raise a :class:`~qwkit.QwkitError`
        naming the first bad item: one read of a few flags from the device per call
        (a sync on a GPU). With False nothing is read and invalid data give a NaN
        loss. Skipped while ``torch.compile`` traces the call (docs/torch.md, section 6).

    Returns
    -------
    Tensor
        Scalar 1 − κ in [0, 2] (eq. T1), equal to ``1 - qwkit.soft_kappa_score(target,
        score, sample_weight=sample_weight)``, in float32 for float16 and bfloat16
        input (sums are taken in float32 at least), else in the input's dtype; NaN
        with a zero gradient when every score equals the one value of the targets
        (κ is 0/0).

    Warns
    -----
    UndefinedKappaWarning
        When κ is 0/0 (with ``validate_args``).

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
    checks = _s.DataChecks(validate_args)
    prediction = check_choice(prediction, "prediction", _SCORE_KINDS)
    values = _s.label_values(labels)
    with _s.full_precision(_s.check_tensor(input, "input").device):
        y, f, w = _soft_inputs(input, target, sample_weight, prediction, values, checks)
        _check_batch(f.shape[0])
        with _s.no_autograd():  # the constants of the loss
            c = _s.constants(f.dtype, f.device)
            m = _s.moments(y, f, w, c)
            if w is not None:
                _s.positive_total(m[0], checks)
            _s.finite_check(torch.dot(m, c.zeros) != c.zero, checks, (y, "target"))
            terms = _s.soft_terms(m, c)  # (T2)
            undefined = terms[4] == c.zero
            nan = undefined | checks.invalid()
            constants = _soft_constants(terms, m[0], nan, None, c)
        loss = _soft_loss(y, f, w, *_s.normal(constants).unbind())
    checks.run(undefined, _SOFT_UNDEFINED)
    return loss  # NaN scores (a diverged model) give a NaN loss


# ---------------------------------------------------------------------------- weighted kappa


def _expected_table(p: torch.Tensor, t: torch.Tensor, w: torch.Tensor | None) -> torch.Tensor:
    """Expected confusion table O = Σᵢ wᵢ·e_{yᵢ}·pᵢᵀ (rows: truth), differentiable in p
    (under ``full_precision``: autocast would take the product in 16 bits)."""
    truth = p.new_zeros(p.shape)  # wᵢ at (i, yᵢ)
    truth = (
        truth.scatter_(1, t[:, None], 1.0)
        if w is None
        else truth.scatter_(1, t[:, None], w[:, None])
    )
    return truth.T @ p


def _table_terms(o: torch.Tensor, wm: torch.Tensor, c):
    """Eq. (T4) per table of ``o`` (..., K, K): the rows (..., 3 + 2K) of R = n/d, d, the
    total, ĥᵀW (the chance cost of each predicted class) and the column shares (R and
    d are 0 where d is). The margins are shares before they multiply, so no product of
    totals can overflow; no matrix product (TF32 would round it)."""
    total = o.sum((-2, -1))
    share = _s.positive(total, c)[..., None]
    rows, cols = o.sum(-1) / share, o.sum(-2) / share
    chance = (rows[..., None] * wm).sum(-2)
    d = (chance * cols).sum(-1)
    n = (wm * o).sum((-2, -1)) / share[..., 0]
    head = torch.stack([n / _s.positive(d, c), d, total], -1)
    return torch.cat([head, chance, cols], -1)


def _margins(r_hat, d, wm, cols):
    """For the batch ratio of probabilities: the gradient that the table's margins add
    (per true class, times s), which (T6) holds constant. With logits (or any rows that
    sum to 1) it adds nothing; with probabilities it keeps the gradient the ratio's own
    in every direction, as ``gradcheck`` sees it."""
    return r_hat * (d - (wm * cols).sum(1))


def _table_constants(wm, r_hat, chance, d, total, nan, has, c, log: bool, margins, rows):
    """(G, (R̂, s)) of ℓ = R̂ + s·Σ(G∘O), G = W − R̂·𝟙(ĥᵀW)ᵀ and s = 1/(W_B·d̂) (eq. T6
    item by item), or with ``log`` of log R̂ + s/R̂·Σ(G∘O), the same linearization of
    log(1 − κ); (R̂, s) flagged as in :func:`_flagged`. ``rows``: the row sums of the
    batch's table, for ``margins``."""
    g = wm - r_hat * chance
    start, scale = r_hat, (total * d).reciprocal()
    if margins is not None:
        g = g + margins[:, None]
        start = start - scale * (margins * rows).sum()  # adds 0 to the value
    if log:  # where R̂ is below the smallest float, log(1 − κ) is floored: no gradient
        tiny = torch.finfo(r_hat.dtype).tiny
        inverse = torch.where(r_hat >= tiny, r_hat.reciprocal(), c.zero)
        start = torch.log(r_hat.clamp_min(tiny)) + (start - r_hat) * inverse
        scale = scale * inverse
    return g, _flagged(torch.stack([start, scale]), nan, has, c)


def _class_inputs(input, target, sample_weight, prediction: str, checks):
    p = _s.class_probabilities(input, prediction, checks)
    n, k = p.shape
    t = _s.class_indices(target, "target", k, checks, device=p.device, where="`input`", n=n)
    w = _s.sample_weight_tensor(sample_weight, n, p, checks)
    return p, t, w


def weighted_kappa_loss(
    input: torch.Tensor,
    target: torch.Tensor,
    *,
    weights="quadratic",
    sample_weight: torch.Tensor | None = None,
    prediction: Literal["logits", "probabilities"] = "logits",
    log: bool = False,
    validate_args: bool = True,
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
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None, array-like or Tensor of shape (K, K), default="quadratic"
        Disagreement weights, as in :func:`qwkit.weight_matrix`.
    sample_weight : Tensor of shape (B,), default=None
        Non-negative item weights.
    prediction : {"logits", "probabilities"}, default="logits"
        What `input` holds (logits go through a softmax).
    log : bool, default=False
        Return log(1 − κ), the form of de la Torre et al. (2018) and of
        tensorflow-addons' ``WeightedKappaLoss``; its gradient is that of 1 − κ
        divided by 1 − κ.
    validate_args : bool, default=True
        Check the values in the data (targets in 0..K − 1, finite non-negative
        weights of positive sum, rows of probabilities) and raise a
        :class:`~qwkit.QwkitError` naming the first bad item: one read of a few flags
        from the device per call. With False nothing is read and invalid data give a
        NaN loss. As in :func:`soft_kappa_loss`.

    Returns
    -------
    Tensor
        Scalar 1 − κ in [0, 2] (eq. T4), equal to ``1 - qwkit.kappa_from_confusion(O,
        weights=weights)`` of the expected table O, or its log; in float32 for float16
        and bfloat16 input, else in the input's dtype; NaN with a zero gradient when
        κ is 0/0.

    Warns
    -----
    UndefinedKappaWarning
        When κ is 0/0 (with ``validate_args``): no disagreement that chance could
        produce has a positive weight.

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
    checks = _s.DataChecks(validate_args)
    prediction = check_choice(prediction, "prediction", _CLASS_KINDS)
    with _s.full_precision(_s.check_tensor(input, "input").device):
        p, t, w = _class_inputs(input, target, sample_weight, prediction, checks)
        n, k = p.shape
        _check_batch(n)
        wm = _s.weight_matrix_on(weights, k, p)
        o = _expected_table(p, t, w)
        with _s.no_autograd():  # the constants of the loss
            c = _s.constants(p.dtype, p.device)
            if w is not None:
                _s.positive_total(w.sum(), checks)
            terms = _table_terms(o, wm, c)  # (T4)
            r_hat, d, total = terms[:3].unbind()
            margins = None
            if prediction == "probabilities":
                margins = _margins(r_hat, d, wm, terms[3 + k :])
            undefined = d == c.zero
            nan = undefined | checks.invalid()
            chance = terms[3 : 3 + k]
            g, constants = _table_constants(
                wm, r_hat, chance, d, total, nan, None, c, log, margins, o.sum(1)
            )
        start, scale = _s.normal(constants).unbind()
        loss = torch.addcmul(start, (_s.normal(g) * o).sum(), scale)
    checks.run(undefined, _TABLE_UNDEFINED)
    return loss


# ---------------------------------------------------------------------------- modules


class _RunningKappaLoss(_s.FloatState):
    """Shared machinery of the two modules: the running state, its momentum and its fold
    (T5)."""

    def __init__(self, momentum, validate_args):
        super().__init__()
        self.momentum = _s.check_momentum(momentum)
        self.validate_args = _s.check_bool(validate_args, "validate_args")

    _STATE: str  # the name of the buffer that holds the running statistics

    def reset(self) -> None:
        """Forget the running statistics (the next batch is a first batch again)."""
        setattr(self, self._STATE, torch.zeros_like(self._state()))

    def _state(self) -> torch.Tensor:
        return self._buffers[self._STATE]  # as getattr, without nn.Module's lookup

    def _keep(self) -> float:
        return 1.0 if self.momentum is None else 1.0 - self.momentum

    def _current(self, like: torch.Tensor) -> tuple[torch.Tensor, torch.dtype]:
        """The state (checked to be on ``like``'s device) and the dtype of the algebra of
        the state and the batch: the wider of the two (``like`` is in its accumulation
        dtype, float32 at least), so a first batch is computed as the function does."""
        state = self._state()
        if state.device != like.device:
            raise QwkitError(
                f"`input` is on {like.device} but the running statistics of this "
                f"{type(self).__name__} are on {state.device}; move the loss with "
                f"`.to({str(like.device)!r})` as you do the model.",
                parameter="input",
            )
        return state, torch.promote_types(state.dtype, like.dtype)

    def _store(self, new: torch.Tensor) -> None:
        """Keep ``new`` as the running statistics (eq. T5), in their dtype."""
        # A new tensor, not state.copy_(new): under torch.compile, AOTAutograd may
        # recompute a read of a buffer mutated in the forward in the backward, after
        # the mutation, which silently changes the gradient (PyTorch 2.13; see
        # pytorch/pytorch pull request 197039). The state is never read in place.
        new = _s.cast(new, self._state().dtype)
        if _s.compiling():
            setattr(self, self._STATE, new)
        else:  # the same, without nn.Module's checks of every kind of attribute
            self._buffers[self._STATE] = new

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
    validate_args : bool, default=True
        As in :func:`soft_kappa_loss`: check the values in each batch (one read of a
        few flags from the device per call), or, with False, read nothing and give
        invalid batches a NaN loss (they are not folded into the state).

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
    (a diverged step) gets a NaN loss and is not folded into the state. Move the
    module with the model (``.to(device)``). Sums are taken in float32 at least
    (float16 and bfloat16 input, autocast included) and the loss is returned in that
    dtype; the state keeps its own dtype (float32 by default, float64 after
    ``.double()``), never narrowed by ``.half()``. No value is read from the device
    in the forward pass but the checks of ``validate_args``.

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

    _STATE = "running_moments"

    def __init__(
        self,
        *,
        prediction: Literal["score", "logits", "probabilities"] = "score",
        labels=None,
        momentum: float | None = 0.01,
        validate_args: bool = True,
    ):
        super().__init__(momentum, validate_args)
        self.prediction = check_choice(prediction, "prediction", _SCORE_KINDS)
        values = _s.label_values(labels)
        if values is not None and prediction == "score":
            raise QwkitError(
                "`labels` (the values of the classes) is used only with "
                "prediction='logits' or 'probabilities'; got prediction='score'.",
                parameter="labels",
            )
        self.register_buffer(  # configuration, not state: moves with .to(), not saved
            "labels",
            None if values is None else values.to(torch.get_default_dtype()),
            persistent=False,
        )
        self.register_buffer("running_moments", torch.zeros(_s.N_MOMENTS))

    def forward(self, input, target, sample_weight=None) -> torch.Tensor:
        """The loss of one batch (arguments as in :func:`soft_kappa_loss`)."""
        checks = _s.DataChecks(self.validate_args)
        prediction, labels = self.prediction, self._buffers["labels"]
        with _s.full_precision(_s.check_tensor(input, "input").device):
            y, f, w = _soft_inputs(input, target, sample_weight, prediction, labels, checks)
            if f.shape[0] == 0:
                return f.sum()  # adds nothing; zero loss, zero gradient
            state, sdt = self._current(f)
            new = None
            with _s.no_autograd():  # the constants of this batch's loss, and the new state
                c = _s.constants(f.dtype, f.device)
                m = _s.moments(y, f, w, c)  # in the accumulation dtype
                _s.finite_check(torch.dot(m, c.zeros) != c.zero, checks, (y, "target"))
                cs = c if sdt == f.dtype else _s.constants(sdt, f.device)
                past, batch = _s.cast(state, sdt), _s.cast(m, sdt)
                terms = _s.soft_terms(torch.stack([past, batch]), cs)  # (T2) of each
                # Eq. (T6) with R̂, d̂, v_y, ȳ of the state (constants for this batch), or
                # of the batch itself while the state has no chance term (a first
                # batch): then the batch ratio (T2).
                past_terms, batch_terms = terms.unbind()
                use_state = past_terms[4] > cs.zero
                ref = _s.cast(torch.where(use_state, past_terms, batch_terms), f.dtype)
                bad = checks.invalid()
                total = m[0]
                has = None if w is None else total > c.zero  # no weight: adds nothing
                undefined = ref[4] == c.zero if has is None else (ref[4] == c.zero) & has
                nan = undefined | bad
                constants = _soft_constants(ref, total, nan, has, c)
                if self.training:  # fold the batch in, unless invalid, not finite or empty
                    keep = ~bad if has is None else has & ~bad
                    folded = _s.merge_moments(past, batch, cs, self._keep(), safe=False)
                    new = torch.where(keep, folded, past)  # (T5)
            if new is not None:
                self._store(_s.normal(new))
            loss = _soft_loss(y, f, w, *_s.normal(constants).unbind())
        checks.run(undefined, _SOFT_UNDEFINED)
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
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None, array-like or Tensor of shape (K, K), default="quadratic"
        Disagreement weights, as in :func:`qwkit.weight_matrix`.
    prediction : {"logits", "probabilities"}, default="logits"
        What `input` holds.
    log : bool, default=False
        Use log(1 − κ) as de la Torre et al. (2018) and tensorflow-addons do. The
        default 1 − κ (as dlordinal's default, after Vargas et al. 2020) has the same
        minimizer and a bounded range, [0, 2].
    momentum : float in (0, 1] or None, default=0.01
        As in :class:`SoftKappaLoss`.
    validate_args : bool, default=True
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

    _STATE = "running_confusion"

    def __init__(
        self,
        num_classes: int,
        *,
        weights="quadratic",
        prediction: Literal["logits", "probabilities"] = "logits",
        log: bool = False,
        momentum: float | None = 0.01,
        validate_args: bool = True,
    ):
        super().__init__(momentum, validate_args)
        k = _s.check_num_classes(num_classes)
        self.num_classes = k
        self.prediction = check_choice(prediction, "prediction", _CLASS_KINDS)
        self.log = _s.check_bool(log, "log")
        wm = _s.weight_matrix_tensor(weights, k)
        self.register_buffer("weight_matrix", wm.to(torch.get_default_dtype()), persistent=False)
        self.register_buffer("running_confusion", torch.zeros(k, k))

    def forward(self, input, target, sample_weight=None) -> torch.Tensor:
        """The loss of one batch (arguments as in :func:`weighted_kappa_loss`)."""
        checks = _s.DataChecks(self.validate_args)
        with _s.full_precision(_s.check_tensor(input, "input").device):
            p, t, w = _class_inputs(input, target, sample_weight, self.prediction, checks)
            k = self.num_classes
            if p.shape[1] != k:
                raise QwkitError(
                    f"`input` has {p.shape[1]} classes but `num_classes` is {k}; they must match.",
                    parameter="input",
                )
            if p.shape[0] == 0:
                return p.sum()  # adds nothing; zero loss, zero gradient
            state, sdt = self._current(p)
            o = _expected_table(p, t, w)  # with gradient, in the accumulation dtype
            new = None
            with _s.no_autograd():  # the constants of this batch's loss, and the new state
                c = _s.constants(p.dtype, p.device)
                cs = c if sdt == p.dtype else _s.constants(sdt, p.device)
                past, batch = _s.cast(state, sdt), _s.cast(o, sdt)
                wm = self._buffers["weight_matrix"]
                terms = _table_terms(torch.stack([past, batch]), _s.cast(wm, sdt), cs)  # (T4)
                # Eq. (T6) with R̂, d̂ and ĥ (the shares of the true classes) of the state,
                # or of the batch itself while the state has no chance term (a first
                # batch): then the batch ratio (T4).
                past_terms, batch_terms = terms.unbind()
                use_state = past_terms[1] > cs.zero
                ref = _s.cast(torch.where(use_state, past_terms, batch_terms), p.dtype)
                r_hat, d = ref[:2].unbind()
                total = _s.cast(batch_terms[2], p.dtype)
                has = total > c.zero  # a batch of zero weight adds nothing
                bad = checks.invalid()
                undefined = (d == c.zero) & has
                wm = _s.cast(wm, p.dtype)
                margins = None
                if self.prediction == "probabilities":  # the first batch's ratio, exactly
                    margins = _margins(r_hat, d, wm, ref[3 + k :])
                    margins = torch.where(use_state, c.zero, margins)
                nan, rows = undefined | bad, o.sum(1)
                chance = ref[3 : 3 + k]
                g, constants = _table_constants(
                    wm, r_hat, chance, d, total, nan, has, c, self.log, margins, rows
                )
                if self.training:  # fold the batch in, unless invalid, not finite or empty
                    keep = has & (total < c.inf) & ~bad
                    new = torch.where(keep, torch.add(batch, past, alpha=self._keep()), past)
            if new is not None:
                self._store(_s.normal(new))  # (T5)
            start, scale = _s.normal(constants).unbind()
            loss = torch.addcmul(start, (_s.normal(g) * o).sum(), scale)
        checks.run(undefined, _TABLE_UNDEFINED)
        return loss

    def extra_repr(self) -> str:
        return (
            f"num_classes={self.num_classes}, prediction={self.prediction!r}, "
            f"log={self.log}, momentum={self.momentum}"
        )
