"""Tensor validation and the moment algebra shared by qwkit.torch's losses and metrics.

Imported only by :mod:`qwkit.torch` (it imports PyTorch). The seven moments of
(target y, prediction f) under item weights w are, in this order: Σw, ȳ, f̄,
Σw(y−ȳ)², Σw(f−f̄)², Σw(y−ȳ)(f−f̄), Σw(y−f)². All but the two means add across
batches; sets merge with the pairwise update of Chan, Golub & LeVeque (1979).
"""

from __future__ import annotations

import numbers

import numpy as np
import torch

import qwkit

N_MOMENTS = 7
#: The moments that scale with the weights (the two means do not).
_EXTENSIVE = (0, 3, 4, 5, 6)


# ---------------------------------------------------------------------------- validation


def check_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"`{name}` must be a torch.Tensor; got {type(x).__name__}.")
    return x


def check_num_classes(num_classes) -> int:
    if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral):
        raise TypeError(f"`num_classes` must be an integer; got {num_classes!r}.")
    if num_classes < 2:
        raise ValueError(f"`num_classes` must be at least 2; got {num_classes}.")
    return int(num_classes)


def check_momentum(momentum) -> float | None:
    if momentum is None:
        return None
    if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
        raise TypeError(f"`momentum` must be a float in (0, 1] or None; got {momentum!r}.")
    if not 0.0 < float(momentum) <= 1.0:
        raise ValueError(f"`momentum` must be in (0, 1] or None; got {momentum!r}.")
    return float(momentum)


def check_bool(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"`{name}` must be True or False; got {value!r}.")
    return value


def check_device(x: torch.Tensor, name: str, device: torch.device) -> None:
    if x.device != device:
        raise ValueError(f"`{name}` is on {x.device} but `input` is on {device}.")


def column(x: torch.Tensor, name: str) -> torch.Tensor:
    """(B,) or (B, 1) → (B,)."""
    if x.ndim == 2 and x.shape[1] == 1:
        return x[:, 0]
    if x.ndim != 1:
        raise ValueError(f"`{name}` must have shape (B,) or (B, 1); got {tuple(x.shape)}.")
    return x


def check_length(x: torch.Tensor, name: str, n: int) -> None:
    if x.shape[0] != n:
        raise ValueError(f"`{name}` has {x.shape[0]} rows but `input` has {n}.")


def check_finite(x: torch.Tensor, name: str) -> None:
    bad = ~torch.isfinite(x)
    if bool(bad.any()):
        i = int(bad.nonzero()[0, 0])
        raise ValueError(f"`{name}` must be finite; got {x[i].item()} at index {i}.")


def sample_weight_tensor(sample_weight, n: int, like: torch.Tensor, *, dtype=None) -> torch.Tensor:
    """Validated weights as a (B,) tensor of ``like``'s dtype (ones when None)."""
    dtype = like.dtype if dtype is None else dtype
    if sample_weight is None:
        return torch.ones(n, dtype=dtype, device=like.device)
    w = column(check_tensor(sample_weight, "sample_weight"), "sample_weight")
    check_device(w, "sample_weight", like.device)
    check_length(w, "sample_weight", n)
    if w.dtype == torch.bool or w.is_complex():
        raise TypeError(f"`sample_weight` must be real numbers; got {w.dtype}.")
    w = w.detach().to(dtype)
    bad = ~torch.isfinite(w) | (w < 0)
    if bool(bad.any()):
        i = int(bad.nonzero()[0, 0])
        raise ValueError(
            f"`sample_weight` must be finite and non-negative; got {w[i].item()} at index {i}."
        )
    return w


def class_indices(target, n: int, k: int, device: torch.device, name: str) -> torch.Tensor:
    t = column(check_tensor(target, name), name)
    check_device(t, name, device)
    check_length(t, name, n)
    if t.dtype == torch.bool or t.is_floating_point() or t.is_complex():
        raise TypeError(
            f"`{name}` must hold class indices 0..{k - 1} in an integer tensor; got {t.dtype}."
        )
    if n:
        bad = (t < 0) | (t >= k)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise ValueError(
                f"`{name}` must hold class indices 0..{k - 1}; got {t[i].item()} at index {i}."
            )
    return t.long()


def class_probabilities(input, prediction: str, name: str = "input") -> torch.Tensor:
    """(B, K) logits or probabilities → probabilities."""
    x = check_tensor(input, name)
    if not x.is_floating_point():
        raise TypeError(f"`{name}` must be a floating-point tensor; got {x.dtype}.")
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(
            f"`{name}` must have shape (B, K) with K ≥ 2 classes when "
            f"prediction={prediction!r}; got {tuple(x.shape)}."
        )
    if prediction == "logits":
        return torch.softmax(x, dim=1)
    if x.shape[0]:
        p = x.detach()
        tol = 1e-3 if p.dtype in (torch.float16, torch.bfloat16) else 1e-5 * x.shape[1]
        bad = (p < 0).any(dim=1) | ((p.sum(dim=1) - 1).abs() > tol) | ~torch.isfinite(p).all(1)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise ValueError(
                f"`{name}` must hold probabilities (non-negative rows summing to 1) when "
                f"prediction='probabilities'; row {i} is {p[i].tolist()}. Pass "
                "prediction='logits' for raw scores."
            )
    return x


def label_values(labels, k: int | None = None) -> torch.Tensor | None:
    """The values of the K classes (strictly increasing, finite) as a float64 tensor."""
    if labels is None:
        return None
    if isinstance(labels, torch.Tensor):
        labels = labels.detach().cpu().numpy()
    values = np.asarray(labels)
    if values.dtype.kind not in "biuf" or values.dtype.kind == "b":
        raise TypeError(f"`labels` must be real numbers; got dtype {values.dtype}.")
    values = values.astype(np.float64)
    if values.ndim != 1 or values.shape[0] < 2:
        raise ValueError(f"`labels` must be 1-D with at least 2 values; got {values.shape}.")
    if not np.all(np.isfinite(values)) or np.any(np.diff(values) <= 0):
        raise ValueError(f"`labels` must be finite and strictly increasing; got {values.tolist()}.")
    if k is not None and values.shape[0] != k:
        raise ValueError(f"`labels` has {values.shape[0]} values but `input` has {k} classes.")
    return torch.as_tensor(values)


def weight_matrix_tensor(weights, k: int) -> torch.Tensor:
    """qwkit's disagreement weights (see :func:`qwkit.weight_matrix`) as float64."""
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().numpy()
    wm = qwkit.weight_matrix(k, weights)
    if not np.any(wm > 0):
        raise ValueError("`weights` is all zeros: every disagreement would cost nothing.")
    return torch.as_tensor(wm)


# ---------------------------------------------------------------------------- moments


def moments(y: torch.Tensor, f: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """The seven weighted moments of one batch (centered sums: two-pass, accurate)."""
    total = w.sum()
    ym = (w * y).sum() / total
    fm = (w * f).sum() / total
    dy, df = y - ym, f - fm
    e = y - f
    return torch.stack(
        [
            total,
            ym,
            fm,
            (w * dy * dy).sum(),
            (w * df * df).sum(),
            (w * dy * df).sum(),
            (w * e * e).sum(),
        ]
    )


def merge_moments(a: list[float], b: list[float]) -> list[float]:
    """Moments of the union of two weighted sets, in Python floats (float64): the
    pairwise update of Chan, Golub & LeVeque (1979), accurate far from zero. ``b``
    must have positive weight; an empty ``a`` gives ``b``."""
    if not a[0] > 0:
        return list(b)
    total = a[0] + b[0]
    share = b[0] / total
    cross = a[0] * share  # Wa·Wb / W
    dy, df = b[1] - a[1], b[2] - a[2]
    return [
        total,
        a[1] + dy * share,
        a[2] + df * share,
        a[3] + b[3] + dy * dy * cross,
        a[4] + b[4] + df * df * cross,
        a[5] + b[5] + dy * df * cross,
        a[6] + b[6],
    ]


def decayed(m: list[float], keep: float) -> list[float]:
    """Every weight multiplied by ``keep`` (the means unchanged)."""
    return [x * keep if i in _EXTENSIVE else x for i, x in enumerate(m)]


def soft_ratio(m):
    """(n, d) of eq. (T2) from the seven moments (tensor or floats): 1 − κ = n/d."""
    n = m[6] / m[0]
    d = (m[3] + m[4]) / m[0] + (m[1] - m[2]) ** 2
    return n, d


def reduce_moments(parts: list[list[float]]) -> list[float]:
    """The moments of the union of several sets (in order; empty sets skipped)."""
    merged = [0.0] * N_MOMENTS
    for part in parts:
        if part[0] > 0:
            merged = merge_moments(merged, part)
    return merged
