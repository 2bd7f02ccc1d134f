"""Tensor validation, the dtype policy and the moment algebra shared by qwkit.torch.

Imported only by :mod:`qwkit.torch` (it imports PyTorch).

*Arguments* (types, shapes, devices, options) are checked at once: that needs no value
from the data. *Values in the data* (a class index out of range, a negative weight, a
NaN target) can be checked only by reading the data on the host — a device sync on a
GPU, a graph break under ``torch.compile``. Those checks are gathered on the device in
a :class:`DataChecks` and read with one host transfer per call, when ``validate_args``
is true and the code is not being compiled; whether or not they are read, invalid data
make a loss NaN (:meth:`DataChecks.guard`), never a silently wrong number.

*Dtypes*: everything is accumulated in :func:`accumulation_dtype` of the input —
float32 for float16 and bfloat16, else the input's own — with autocast switched off
(:func:`full_precision`), so that neither the 65,504 ceiling of float16 nor autocast's
lowering of matrix products reaches a sum.

*Speed*: a loss on a small batch costs what its tensor operations cost to dispatch (about
a microsecond each on a CPU, in the forward and again in the backward), not what they
compute. So the scalar algebra is done on small stacked tensors (a few operations for
many numbers), constants are made once per device and dtype (:func:`constant`), and no
operation is spent on a check that the arithmetic already makes visible (a non-finite
value propagates into the sums).

The seven moments of (target y, prediction f) under item weights w are, in this order:
Σw, ȳ, f̄, Σw(y−ȳ)², Σw(f−f̄)², Σw(y−ȳ)(f−f̄), Σw(y−f)². All but the two means add
across batches; sets merge with the pairwise update of Chan, Golub & LeVeque (1979).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from typing import Any

import numpy as np
import torch
from torch import nn

import qwkit
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._scale import MAX_DENSE_CLASSES
from qwkit._base._warnings import UndefinedKappaWarning, warn

# ---------------------------------------------------------------------------- dtypes


def accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype sums are taken in: float32 at least (float64 stays float64)."""
    return torch.promote_types(dtype, torch.float32)


def cast(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``x`` in ``dtype`` (``x`` itself when it is already: no operation)."""
    return x if x.dtype == dtype else x.to(dtype)


def no_autograd():
    """A context for arithmetic that never needs a gradient: inference mode, which skips
    autograd's dispatch and so costs less per operation than ``no_grad`` (or ``no_grad``
    while ``torch.compile`` traces). What leaves it goes through :func:`normal`."""
    return torch.no_grad() if compiling() else torch.inference_mode()


def normal(x: torch.Tensor) -> torch.Tensor:
    """``x`` made in :func:`no_autograd` as a normal tensor (an inference tensor cannot be
    saved for backward, nor be written in place by ``load_state_dict``)."""
    return x if compiling() or not x.is_inference() else x.clone()


def full_precision(device: torch.device):
    """A context in which autocast does not lower matrix products on ``device``."""
    try:
        on = torch.is_autocast_enabled(device.type)
    except TypeError:  # PyTorch < 2.4 takes no device type
        cpu = device.type == "cpu"
        on = torch.is_autocast_cpu_enabled() if cpu else torch.is_autocast_enabled()
    except RuntimeError:  # a device autocast does not know (e.g. meta)
        on = False
    return torch.autocast(device.type, enabled=False) if on else contextlib.nullcontext()


def on_device(values, like: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A host constant (array or CPU tensor) on ``like``'s device, without waiting for
    the device (a non-blocking copy from host memory is staged at once)."""
    return torch.as_tensor(values, dtype=dtype).to(like.device, non_blocking=True)


_CACHE: dict[tuple, Any] = {}  # tensors and Constants, by what made them

N_MOMENTS = 7  # Σw, ȳ, f̄, Σw(y−ȳ)², Σw(f−f̄)², Σw(y−ȳ)(f−f̄), Σw(y−f)²
_MEANS = (False, True, True, False, False, False, False)  # the moments that do not add
_CROSS = (0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0)  # where a merge adds a product of means
_LEFT = (0, 0, 0, 1, 2, 1, 0)  # the products dy·dy, df·df, dy·df of a merge, there
_RIGHT = (0, 0, 0, 1, 2, 2, 0)


def constant(values: tuple, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A small constant tensor, made once per values, dtype and device and then reused
    (read only). While ``torch.compile`` traces, it is made in the graph instead."""
    if compiling():
        return torch.tensor(values, dtype=dtype, device=device)
    key = (values, dtype, device)
    made = _CACHE.get(key)
    if made is None:
        with torch.inference_mode(False):  # a normal tensor, whatever the caller's mode
            made = _CACHE[key] = torch.tensor(values, dtype=dtype, device=device)
    return made


def count(x: torch.Tensor) -> torch.Tensor:
    """The number of rows of ``x``, a tensor of shape (1,) in its dtype on its device."""
    if compiling():
        return x.new_full((1,), x.shape[0])
    return constant((float(x.shape[0]),), x.dtype, x.device)


class Constants:
    """The constant tensors of the algebra in one dtype on one device (:func:`constants`).
    A Python number in a tensor operation costs as much as the operation (it is made
    into a tensor each time), so the algebra uses these."""

    __slots__ = (
        "cross",
        "inf",
        "left",
        "means",
        "nan",
        "one",
        "right",
        "scaled",
        "void",
        "zero",
        "zeros",
    )

    def __init__(self, dtype: torch.dtype, device: torch.device):
        def make(values, kind=dtype):
            return torch.tensor(values, dtype=kind, device=device)

        self.zero, self.one = make(0.0), make(1.0)
        self.nan, self.inf = make(math.nan), make(math.inf)
        self.void = make((math.nan, 0.0, 0.0, 0.0))  # a NaN loss with a zero gradient
        self.scaled = make((False, True, True, False), torch.bool)  # divided by W_B
        self.zeros = make((0.0,) * N_MOMENTS)
        self.means = make(_MEANS, torch.bool)
        self.cross = make(_CROSS)
        self.left, self.right = make(_LEFT, torch.int64), make(_RIGHT, torch.int64)


def constants(dtype: torch.dtype, device: torch.device) -> Constants:
    """The :class:`Constants` of ``dtype`` on ``device``, made once and reused (made in
    the graph while ``torch.compile`` traces). Normal tensors, never inference tensors:
    one made inside a caller's ``torch.inference_mode`` could not enter autograd later."""
    if compiling():
        return Constants(dtype, device)
    key = ("constants", dtype, device)
    made = _CACHE.get(key)
    if made is None:
        with torch.inference_mode(False):
            made = _CACHE[key] = Constants(dtype, device)
    return made


def positive(x: torch.Tensor, c: Constants) -> torch.Tensor:
    """``x`` where it is positive, else 1: a divisor for sums of weights and squares,
    whose quotient is then 0 (those sums are 0 together) and never a NaN."""
    return torch.where(x > c.zero, x, c.one)


class FloatState(nn.Module):
    """A module whose floating buffers a parent's ``.half()`` / ``.to(dtype)`` must not
    narrow below float32; the buffers named in ``_fixed_dtype`` keep their dtype
    whatever the conversion (the metrics' exact tables). Device moves apply as usual."""

    _fixed_dtype: tuple[str, ...] = ()

    def _apply(self, fn, recurse=True):
        before = {
            name: buf
            for name, buf in self._buffers.items()
            if buf is not None and buf.is_floating_point()
        }
        super()._apply(fn, recurse)
        for name, old in before.items():
            new = self._buffers[name]
            if name in self._fixed_dtype:
                want = old.dtype
            elif new.is_floating_point() and new.dtype.itemsize < 4:
                want = torch.float32
            else:
                continue
            if new.dtype != want:  # convert the unrounded values, on the new device
                self._buffers[name] = old.to(device=new.device, dtype=want)
        return self


# ---------------------------------------------------------------------------- data checks


def compiling() -> bool:
    """True while ``torch.compile`` traces the code."""
    check = getattr(torch.compiler, "is_compiling", None)
    return bool(check()) if check is not None else torch._dynamo.is_compiling()


class DataChecks:
    """Value checks on the data of one call, read with at most one host transfer.

    Each :meth:`add` registers a boolean tensor (True where the data are invalid) and
    a function that raises the detailed error — the slow path, run only after the
    check failed; it may find nothing to raise about (a check that also catches a
    non-finite prediction, which is a NaN loss and no error). :meth:`invalid` says on
    the device whether any check failed (no host read), for a loss to be NaN there;
    :meth:`run` reads every flag in one transfer and raises the first error — only
    when ``validate_args`` is true and the code is not being compiled.
    """

    __slots__ = ("_flags", "_invalid", "_raisers", "validate")

    def __init__(self, validate_args: bool):
        self.validate = check_bool(validate_args, "validate_args") and not compiling()
        self._flags: list[torch.Tensor] = []
        self._raisers: list = []
        self._invalid: torch.Tensor | None = None

    def add(self, bad: torch.Tensor, raiser) -> None:
        """Register ``bad`` (a boolean tensor, reduced here with ``any``) and its raiser."""
        self._flags.append(bad.any() if bad.dim() else bad)
        self._raisers.append(raiser)
        self._invalid = None

    def invalid(self) -> torch.Tensor | None:
        """A boolean scalar tensor: did any check fail? (None without checks.)"""
        if self._invalid is None and self._flags:
            flags = self._flags
            self._invalid = flags[0] if len(flags) == 1 else torch.stack(flags).any()
        return self._invalid

    def run(self, undefined: torch.Tensor | None = None, reason: str = "") -> None:
        """Raise the first failed check; warn if ``undefined`` (a boolean scalar
        tensor: kappa is 0/0, the reason given). One host transfer, or none when
        validation is off."""
        if not self.validate:
            return
        flags = self._flags + ([undefined] if undefined is not None else [])
        if not flags:
            return
        values = torch.stack(flags).tolist()  # the one host read of this call
        for failed, raiser in zip(values, self._raisers, strict=False):
            if failed:
                raiser()
        if undefined is not None and values[-1]:
            warn(
                f"Kappa of the batch is undefined (0/0): the chance-expected disagreement "
                f"is zero ({reason}). The loss is NaN with a zero gradient.",
                UndefinedKappaWarning,
            )


def first_bad(bad: torch.Tensor) -> int:
    """Index of the first True of a 1-D mask (error path only: reads the data)."""
    return int(bad.nonzero()[0, 0])


# ---------------------------------------------------------------------------- arguments


def check_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise QwkitTypeError(
            f"`{name}` must be a torch.Tensor; got {type(x).__name__}.", parameter=name
        )
    return x


def check_num_classes(num_classes) -> int:
    if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral):
        raise QwkitTypeError(
            f"`num_classes` must be an integer; got {num_classes!r}.", parameter="num_classes"
        )
    if num_classes < 2:
        raise QwkitError(
            f"`num_classes` must be at least 2; got {num_classes}.", parameter="num_classes"
        )
    if num_classes > MAX_DENSE_CLASSES:
        raise QwkitError(
            f"`num_classes` must be at most {MAX_DENSE_CLASSES:,} (a dense table of classes); "
            f"got {num_classes:,}.",
            parameter="num_classes",
        )
    return int(num_classes)


def check_momentum(momentum) -> float | None:
    if momentum is None:
        return None
    if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
        raise QwkitTypeError(
            f"`momentum` must be a float in (0, 1] or None; got {momentum!r}.",
            parameter="momentum",
        )
    if not 0.0 < float(momentum) <= 1.0:
        raise QwkitError(
            f"`momentum` must be in (0, 1] or None; got {momentum!r}.", parameter="momentum"
        )
    return float(momentum)


def check_bool(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise QwkitTypeError(f"`{name}` must be True or False; got {value!r}.", parameter=name)
    return value


def check_device(x: torch.Tensor, name: str, device: torch.device, where: str) -> None:
    """``x`` on ``device``, where ``where`` is (e.g. "`input`", "this metric")."""
    if x.device != device:
        raise QwkitError(
            f"`{name}` is on {x.device} but {where} is on {device}; put both on one device.",
            parameter=name,
        )


def column(x: torch.Tensor, name: str) -> torch.Tensor:
    """(B,) or (B, 1) → (B,)."""
    if x.ndim == 2 and x.shape[1] == 1:
        return x[:, 0]
    if x.ndim != 1:
        raise QwkitError(
            f"`{name}` must have shape (B,) or (B, 1); got {tuple(x.shape)}.", parameter=name
        )
    return x


def check_length(x: torch.Tensor, name: str, n: int, reference: str) -> None:
    """``x`` has the ``n`` rows of the parameter ``reference``."""
    if x.shape[0] != n:
        raise QwkitError(
            f"`{name}` has {x.shape[0]} rows but `{reference}` has {n}; they must match.",
            parameter=name,
            also=(reference,),
        )


def check_real(x: torch.Tensor, name: str) -> None:
    if x.dtype == torch.bool or x.is_complex():
        raise QwkitTypeError(f"`{name}` must be real numbers; got {x.dtype}.", parameter=name)


def check_floating(x: torch.Tensor, name: str) -> None:
    if not x.is_floating_point():
        raise QwkitTypeError(
            f"`{name}` must be a floating-point tensor; got {x.dtype}.", parameter=name
        )


# ---------------------------------------------------------------------------- data


def finite_check(not_finite: torch.Tensor, checks: DataChecks, *named) -> None:
    """Register ``not_finite`` — a boolean scalar that is True when a sum over the data
    is not finite, which any NaN or infinity in it makes so — as a check. Its raiser
    names the first non-finite value of the first ``(tensor, name)`` of ``named`` that
    has one; when none has (a non-finite prediction of a loss, an overflow) it raises
    nothing, and the flag still makes the loss NaN. One flag, no operation per tensor."""

    def raiser():
        for x, name in named:
            bad = ~torch.isfinite(x)
            if bool(bad.any()):
                i = first_bad(bad)
                raise QwkitError(
                    f"`{name}` must be finite; got {x[i].item()} at index {i}.",
                    parameter=name,
                    row=i,
                )

    checks.add(not_finite, raiser)


def sample_weight_tensor(
    sample_weight,
    n: int,
    like: torch.Tensor,
    checks: DataChecks,
    *,
    dtype=None,
    reference: str = "input",
    where: str = "`input`",
) -> torch.Tensor | None:
    """Weights as a (B,) tensor of ``dtype`` (``like``'s by default), one per row of
    ``reference``, or None for None (unit weights: the sums skip them); invalid weights
    are checked and count as 0."""
    dtype = like.dtype if dtype is None else dtype
    if sample_weight is None:
        return None
    given = column(check_tensor(sample_weight, "sample_weight"), "sample_weight")
    check_device(given, "sample_weight", like.device, where)
    check_length(given, "sample_weight", n, reference)
    check_real(given, "sample_weight")
    w = given.detach().to(dtype)
    bad = ~torch.isfinite(w) | (w < 0)

    def raiser():
        i = first_bad(bad)
        raise QwkitError(
            f"`sample_weight` must be finite and non-negative; got {w[i].item()} at index {i}.",
            parameter="sample_weight",
            row=i,
        )

    checks.add(bad, raiser)
    return w.masked_fill(bad, 0)


def positive_total(total: torch.Tensor, checks: DataChecks) -> None:
    """A check that ``total``, the weight of a batch, is not zero."""

    def raiser():
        raise QwkitError(
            "`sample_weight` must have a positive sum (kappa of a batch of zero weight is "
            "undefined); got all zeros.",
            parameter="sample_weight",
        )

    checks.add(~(total > 0), raiser)


def class_indices(
    target,
    name: str,
    k: int,
    checks: DataChecks,
    *,
    device: torch.device,
    where: str,
    n: int | None = None,
    reference: str = "input",
) -> torch.Tensor:
    """Class indices 0..k − 1 as int64 (``n`` rows, those of ``reference``, when given);
    indices out of range are checked (and moved into the range: the check makes the
    result NaN or void)."""
    t = column(check_tensor(target, name), name)
    check_device(t, name, device, where)
    if n is not None:
        check_length(t, name, n, reference)
    if t.dtype == torch.bool or t.is_floating_point() or t.is_complex():
        raise QwkitTypeError(
            f"`{name}` must hold class indices 0..{k - 1} in an integer tensor; got {t.dtype}.",
            parameter=name,
        )
    index = t.long()
    inside = index.clamp(0, k - 1)  # an index out of range counts as its nearest class
    bad = inside != index

    def raiser():
        i = first_bad(bad)
        raise QwkitError(
            f"`{name}` must hold class indices 0..{k - 1}; got {t[i].item()} at index {i}.",
            parameter=name,
            row=i,
        )

    checks.add(bad, raiser)
    return inside


def class_probabilities(input, prediction: str, checks: DataChecks) -> torch.Tensor:
    """(B, K) logits or probabilities → probabilities in the accumulation dtype."""
    x = check_tensor(input, "input")
    check_floating(x, "input")
    if x.ndim != 2 or x.shape[1] < 2:
        raise QwkitError(
            f"`input` must have shape (B, K) with K ≥ 2 classes when "
            f"prediction={prediction!r}; got {tuple(x.shape)}.",
            parameter="input",
        )
    acc = accumulation_dtype(x.dtype)
    if prediction == "logits":
        return torch.softmax(x, dim=1, dtype=acc)
    p = x.to(acc)
    k = x.shape[1]
    tol = k * max(1e-5, torch.finfo(x.dtype).eps)  # the rounding of K values of x's dtype
    d = p.detach()
    bad = (d < 0).any(dim=1) | ((d.sum(dim=1) - 1).abs() > tol) | ~torch.isfinite(d).all(1)

    def raiser():
        i = first_bad(bad)
        raise QwkitError(
            f"`input` must hold probabilities (non-negative rows summing to 1) when "
            f"prediction='probabilities'; got row {i} = {x[i].tolist()} (index {i}). Pass "
            "prediction='logits' for raw scores.",
            parameter="input",
            row=i,
        )

    checks.add(bad, raiser)
    return p


# ---------------------------------------------------------------------------- configuration


def label_values(labels, k: int | None = None) -> torch.Tensor | None:
    """The values of the K classes (strictly increasing, finite) as a float64 CPU tensor."""
    if labels is None:
        return None
    if isinstance(labels, torch.Tensor):
        labels = labels.detach().cpu().numpy()
    values = np.asarray(labels)
    if values.dtype.kind not in "iuf":
        raise QwkitTypeError(
            f"`labels` must be real numbers; got dtype {values.dtype}.", parameter="labels"
        )
    values = values.astype(np.float64)
    if values.ndim != 1 or values.shape[0] < 2:
        raise QwkitError(
            f"`labels` must be 1-D with at least 2 values; got shape {values.shape}.",
            parameter="labels",
        )
    if not np.all(np.isfinite(values)) or np.any(np.diff(values) <= 0):
        raise QwkitError(
            f"`labels` must be finite and strictly increasing; got {values.tolist()}.",
            parameter="labels",
        )
    if k is not None:
        check_label_count(values.shape[0], k)
    return torch.as_tensor(values)


def check_label_count(n_labels: int, k: int) -> None:
    if n_labels != k:
        raise QwkitError(
            f"`labels` has {n_labels} values but `input` has {k} classes; give one value "
            "per class.",
            parameter="labels",
            also=("input",),
        )


def weight_matrix_tensor(weights, k: int) -> torch.Tensor:
    """qwkit's disagreement weights (see :func:`qwkit.weight_matrix`) as a float64 CPU
    tensor."""
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().numpy()
    wm = qwkit.weight_matrix(k, weights)
    named = weights is None or isinstance(weights, str)  # never all zeros for K ≥ 2
    if not named and not np.any(wm > 0):
        raise QwkitError(
            "`weights` must give some disagreement a positive weight; got all zeros "
            "(every disagreement would cost nothing).",
            parameter="weights",
        )
    return torch.as_tensor(wm)


def weight_matrix_on(weights, k: int, like: torch.Tensor) -> torch.Tensor:
    """:func:`weight_matrix_tensor` in ``like``'s dtype on its device; named weights are
    made once per dtype and device (a matrix given as data is checked at each call)."""
    named = weights is None or isinstance(weights, str)
    key = ("weights", weights, k, like.dtype, like.device)
    made = _CACHE.get(key) if named and not compiling() else None
    if made is None:
        with torch.inference_mode(False):
            made = on_device(weight_matrix_tensor(weights, k), like, like.dtype)
        if named and not compiling():
            _CACHE[key] = made
    return made


# ---------------------------------------------------------------------------- moments


def moments(y: torch.Tensor, f: torch.Tensor, w: torch.Tensor | None, c: Constants):
    """The seven weighted moments of one batch (centered sums: two-pass, accurate); ``w``
    None means unit weights. Without gradient: call it on detached tensors."""
    e = y - f
    yf = torch.stack([y, f])
    if w is None:
        total = count(y)
        means = yf.sum(1) / total
    else:
        total = w.sum(0, keepdim=True)
        means = (yf * w).sum(1) / positive(total, c)
    dy, df = (yf - means[:, None]).unbind()
    # Σw·dy², Σw·df², Σw·dy·df, Σw·e² in one product and one sum
    products = torch.stack([dy, df, dy, e]) * torch.stack([dy, df, df, e])
    sums = (products if w is None else products * w).sum(1)
    return torch.cat([total, means, sums])


def merge_moments(
    a: torch.Tensor, b: torch.Tensor, c: Constants, keep: float = 1.0, *, safe: bool = True
):
    """Moments of the union of two weighted sets, the weights of ``a`` multiplied by
    ``keep`` (eq. T5): the pairwise update of Chan, Golub & LeVeque (1979), accurate far
    from zero. A set of zero weight adds nothing (exactly, with ``keep`` 1); NaN in
    either stays NaN. With ``safe`` False, two empty sets give NaN (for a caller that
    discards that case)."""
    sums = a + b if keep == 1.0 else torch.add(b, a, alpha=keep)
    total, wb = sums[0], b[0]
    share = wb / (positive(total, c) if safe else total)  # 0 or 1 if a set is empty
    delta = b - a  # ȳ_b − ȳ_a and f̄_b − f̄_a at positions 1 and 2
    cross = (total - wb) * share * c.cross  # keep·Wa·Wb/W at positions 3 to 5
    products = delta.index_select(0, c.left) * delta.index_select(0, c.right)  # δy², δf², δyδf
    return torch.where(c.means, torch.lerp(a, b, share), torch.addcmul(sums, products, cross))


def soft_terms(m: torch.Tensor, c: Constants) -> torch.Tensor:
    """Eq. (T2) per row of moments ``m`` (..., 7): the rows (..., 5) of R·(1 − v_y/d) (the
    constant of the loss of eq. T6, which does not depend on the batch), 1/d, R/d, ȳ and
    W·d, with R = n/d. Where d = 0 the first three are meaningless: check W·d."""
    w, y_mean, f_mean, s_yy, s_ff, _, s_ee = m.unbind(-1)
    delta = y_mean - f_mean
    den = torch.addcmul(s_yy + s_ff, w, delta * delta)  # W·d
    r, inverse_d, share = (torch.stack([s_ee, w, s_yy]) / positive(den, c)).unbind()
    start = torch.addcmul(r, r, share, value=-1)  # R − R·v_y/d
    return torch.stack([start, inverse_d, r * inverse_d, y_mean, den], -1)


def reduce_moments(parts) -> torch.Tensor:
    """The moments of the union of several sets (in order; empty sets add nothing)."""
    tensors = [torch.as_tensor(part, dtype=torch.float64) for part in parts]
    merged = torch.zeros_like(tensors[0])
    c = constants(merged.dtype, merged.device)
    for part in tensors:
        merged = merge_moments(merged, part.to(merged.device), c)
    return merged
