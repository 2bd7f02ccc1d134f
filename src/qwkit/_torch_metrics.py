"""Streaming, mergeable kappa metrics on tensors (public in :mod:`qwkit.torch`).

Imported only by :mod:`qwkit.torch` (it imports PyTorch).
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import torch
from torch import nn

import qwkit
from qwkit import _torch_shared as _s

__all__ = ["KappaMetric", "SoftKappaMetric"]


def _distributed():
    """The torch.distributed module when a process group is initialized, else None."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist
    return None


def _predicted_classes(preds, k: int) -> torch.Tensor:
    x = _s.check_tensor(preds, "preds")
    if x.is_floating_point():
        if x.ndim == 2 and x.shape[1] == k:
            return x.argmax(dim=1)
        raise ValueError(
            f"`preds` must be class indices (an integer tensor of shape (B,)) or class "
            f"scores of shape (B, {k}); got a {x.dtype} tensor of shape {tuple(x.shape)}. "
            "Turn real-valued scores into classes first (e.g. with "
            "qwkit.optimize_thresholds), or use SoftKappaMetric."
        )
    return x


class KappaMetric(nn.Module):
    """Weighted kappa of class predictions, accumulated over batches and processes.

    The K×K confusion table is a sufficient statistic for kappa and adds across
    batches and processes, so :meth:`compute` after any sequence of :meth:`update`,
    :meth:`merge` and :meth:`sync` equals :func:`qwkit.kappa_score` on all the data at
    once — exactly, for unweighted counts (int64 table, then
    :func:`qwkit.kappa_from_confusion`).

    Parameters
    ----------
    num_classes : int
        Number of classes K (≥ 2); ratings are class indices 0..K − 1.
    weights : {"quadratic", "linear", "identity"}, None or array-like of shape (K, K), \
default="quadratic"
        Disagreement weights, as in :func:`qwkit.weight_matrix`.

    Attributes
    ----------
    counts : Tensor of shape (K, K)
        Buffer, int64: items counted by unweighted updates (rows: target).
    weighted_counts : Tensor of shape (K, K)
        Buffer, float64: summed `sample_weight` of weighted updates.

    Examples
    --------
    >>> import torch
    >>> from qwkit.torch import KappaMetric
    >>> metric = KappaMetric(5)
    >>> metric.update(torch.tensor([0, 4, 1, 0, 4]), torch.tensor([4, 4, 3, 4, 4]))
    >>> metric.update(torch.tensor([0, 1, 1, 2, 1]), torch.tensor([0, 1, 1, 2, 1]))
    >>> round(metric.compute(), 6)   # the Kaggle page's example, 0.318182, in two batches
    0.318182
    """

    def __init__(self, num_classes: int, *, weights="quadratic"):
        super().__init__()
        k = _s.check_num_classes(num_classes)
        if isinstance(weights, torch.Tensor):
            weights = weights.detach().cpu().numpy()
        self._matrix = qwkit.weight_matrix(k, weights)  # validates
        self.num_classes = k
        self.weights = weights if weights is None or isinstance(weights, str) else self._matrix
        self.register_buffer("counts", torch.zeros(k, k, dtype=torch.int64))
        self.register_buffer("weighted_counts", torch.zeros(k, k, dtype=torch.float64))

    def update(self, preds, target, sample_weight=None) -> None:
        """Add a batch.

        Parameters
        ----------
        preds : Tensor of shape (B,) or (B, K)
            Predicted class indices (integer), or class scores, logits or
            probabilities (floating; their argmax is the predicted class).
        target : Tensor of shape (B,)
            True class indices.
        sample_weight : Tensor of shape (B,), default=None
            Non-negative item weights.
        """
        k = self.num_classes
        dev = self.counts.device
        p = _predicted_classes(preds, k)
        p = _s.class_indices(p, p.shape[0] if p.ndim else 0, k, dev, "preds")
        t = _s.class_indices(target, p.shape[0], k, dev, "target")
        cell = (t * k + p).detach()
        with torch.no_grad():
            if sample_weight is None:
                self.counts += torch.bincount(cell, minlength=k * k).view(k, k)
            else:
                w = _s.sample_weight_tensor(sample_weight, p.shape[0], p, dtype=torch.float64)
                self.weighted_counts += torch.bincount(cell, weights=w, minlength=k * k).view(k, k)

    @property
    def confusion(self) -> torch.Tensor:
        """The table so far: int64, or float64 once weighted updates added weight."""
        if bool(self.weighted_counts.any()):
            return self.counts.double() + self.weighted_counts
        return self.counts.clone()

    def compute(self, *, replace_undefined_by: float = math.nan) -> float:
        """Weighted kappa of everything seen so far (a Python float).

        Raises ValueError before any item of positive weight.
        """
        table = self.confusion.detach().cpu().numpy()
        if not np.any(table > 0):
            raise ValueError("No items with positive weight yet: call `update` first.")
        return qwkit.kappa_from_confusion(
            table, weights=self.weights, replace_undefined_by=replace_undefined_by
        )

    def reset(self) -> None:
        """Forget every item."""
        self.counts.zero_()
        self.weighted_counts.zero_()

    def merge(self, other: KappaMetric) -> KappaMetric:
        """Add ``other``'s counts into this metric (in place) and return ``self``."""
        if not isinstance(other, KappaMetric):
            raise TypeError(f"`other` must be a KappaMetric; got {type(other).__name__}.")
        if other.num_classes != self.num_classes:
            raise ValueError(
                f"`other` has {other.num_classes} classes but this metric has {self.num_classes}."
            )
        if not np.array_equal(other._matrix, self._matrix):
            raise ValueError("`other` uses different `weights`; merged kappa would be ambiguous.")
        with torch.no_grad():
            self.counts += other.counts.to(self.counts.device)
            self.weighted_counts += other.weighted_counts.to(self.weighted_counts.device)
        return self

    def sync(self, group=None) -> KappaMetric:
        """A copy holding the sum of this metric over every process of ``group``.

        With an initialized :mod:`torch.distributed` process group the two tables are
        all-reduced (summed); otherwise this process is the whole world and the copy
        equals ``self``. ``self`` is never changed, so calling ``sync`` twice does
        not count anything twice. Every process must call it (a collective). With
        the NCCL backend the metric must be on the process's GPU.
        """
        out = copy.deepcopy(self)
        dist = _distributed()
        if dist is not None:
            dist.all_reduce(out.counts, op=dist.ReduceOp.SUM, group=group)
            dist.all_reduce(out.weighted_counts, op=dist.ReduceOp.SUM, group=group)
        return out

    def extra_repr(self) -> str:
        shown = self.weights if self.weights is None or isinstance(self.weights, str) else "…"
        return f"num_classes={self.num_classes}, weights={shown!r}"


class SoftKappaMetric(nn.Module):
    """Soft quadratic weighted kappa of real-valued predictions, over batches and processes.

    Keeps the seven weighted moments Σw, ȳ, f̄ and the centered sums S_yy, S_ff, S_yf,
    Σw(y − f)² in float64 (merged with Chan, Golub & LeVeque's pairwise update, which
    stays accurate far from zero), so that :meth:`compute` equals
    :func:`qwkit.soft_kappa_score` on all the data to rounding.

    Attributes
    ----------
    moments : Tensor of shape (7,)
        Buffer, float64.

    Examples
    --------
    >>> import torch
    >>> from qwkit.torch import SoftKappaMetric
    >>> metric = SoftKappaMetric()
    >>> metric.update(torch.tensor([1.2, 1.9]), torch.tensor([1, 2]))
    >>> metric.update(torch.tensor([3.4, 3.6]), torch.tensor([3, 4]))
    >>> round(metric.compute(), 6)   # qwkit.soft_kappa_score of the four items
    0.959206
    """

    def __init__(self):
        super().__init__()
        self.register_buffer("moments", torch.zeros(_s.N_MOMENTS, dtype=torch.float64))

    def update(self, preds, target, sample_weight=None) -> None:
        """Add a batch: ``preds`` and ``target`` real, of shape (B,) or (B, 1)."""
        f = _s.column(_s.check_tensor(preds, "preds"), "preds")
        dev = self.moments.device
        _s.check_device(f, "preds", dev)
        if f.dtype == torch.bool or f.is_complex():
            raise TypeError(f"`preds` must be real numbers; got {f.dtype}.")
        f = f.detach().to(torch.float64)
        _s.check_finite(f, "preds")
        y = _s.column(_s.check_tensor(target, "target"), "target")
        _s.check_device(y, "target", dev)
        _s.check_length(y, "target", f.shape[0])
        if y.dtype == torch.bool or y.is_complex():
            raise TypeError(f"`target` must be real numbers; got {y.dtype}.")
        y = y.detach().to(torch.float64)
        _s.check_finite(y, "target")
        w = _s.sample_weight_tensor(sample_weight, f.shape[0], f)
        if f.shape[0] == 0:
            return
        with torch.no_grad():
            batch = _s.moments(y, f, w).tolist()
            if batch[0] > 0:
                self._set(_s.merge_moments(self.moments.tolist(), batch))

    def _set(self, moments: list[float]) -> None:
        with torch.no_grad():
            self.moments.copy_(torch.as_tensor(moments, dtype=torch.float64))

    def compute(self, *, replace_undefined_by: float = math.nan) -> float:
        """Soft quadratic weighted kappa of everything seen so far (a Python float)."""
        m = self.moments.detach().cpu().double()
        if not bool(m[0] > 0):
            raise ValueError("No items with positive weight yet: call `update` first.")
        den = float(m[3] + m[4] + m[0] * (m[1] - m[2]) ** 2)  # (eq. 2' of soft_kappa_score)
        if den == 0.0:
            warnings.warn(
                "Kappa is undefined: the chance-expected disagreement is zero (both "
                "raters use a single, identical rating). Returning "
                f"`replace_undefined_by`={replace_undefined_by}.",
                qwkit.UndefinedKappaWarning,
                stacklevel=2,
            )
            return float(replace_undefined_by)
        return float(2.0 * m[5] / den)

    def reset(self) -> None:
        """Forget every item."""
        self.moments.zero_()

    def merge(self, other: SoftKappaMetric) -> SoftKappaMetric:
        """Fold ``other``'s moments into this metric (in place) and return ``self``."""
        if not isinstance(other, SoftKappaMetric):
            raise TypeError(f"`other` must be a SoftKappaMetric; got {type(other).__name__}.")
        theirs = other.moments.tolist()
        if theirs[0] > 0:
            self._set(_s.merge_moments(self.moments.tolist(), theirs))
        return self

    def sync(self, group=None) -> SoftKappaMetric:
        """A copy holding the moments of every process of ``group`` (all-gathered and
        merged in rank order); a plain copy without a process group. ``self`` is
        never changed. Every process must call it (a collective)."""
        out = copy.deepcopy(self)
        dist = _distributed()
        if dist is not None:
            parts = [torch.zeros_like(out.moments) for _ in range(dist.get_world_size(group))]
            dist.all_gather(parts, out.moments, group=group)
            out._set(_s.reduce_moments([part.tolist() for part in parts]))
        return out


KappaMetric.__module__ = "qwkit.torch"
SoftKappaMetric.__module__ = "qwkit.torch"
