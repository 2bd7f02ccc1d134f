"""Streaming, mergeable kappa metrics on tensors (public in :mod:`qwkit.torch`).

Imported only by :mod:`qwkit.torch` (it imports PyTorch).
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch

import qwkit
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._validation import check_replace_undefined_by
from qwkit._base._warnings import warn_undefined
from qwkit._base._weights import BOTH_CONSTANT
from qwkit._integrations import _torch_shared as _s

__all__ = ["KappaMetric", "SoftKappaMetric"]


def _distributed():
    """The torch.distributed module when a process group is initialized, else None."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist
    return None


_WHERE = "this metric"  # the device a metric's inputs must be on


def _void(table: torch.Tensor) -> None:
    """Refuse a state that an unvalidated update voided (see ``validate_args``)."""
    if not bool(torch.isfinite(table).all()):
        raise QwkitError(
            "This metric saw invalid data in an update with validate_args=False (a class "
            "index out of range, a non-finite value or a negative weight), so its total is "
            "void; call `reset` and update with validate_args=True to find the item.",
        )


def _poison(state: torch.Tensor, checks: _s.DataChecks) -> None:
    """Make ``state`` NaN if a check of this update failed (no host read). Read checks
    have already raised: only unread ones (``validate_args=False``, compiled) remain."""
    bad = checks.invalid()
    if bad is not None and not checks.validate:
        c = _s.constants(state.dtype, state.device)
        state.view(-1)[:1] += torch.where(bad, c.nan, c.zero)


def _predicted_classes(preds, k: int) -> torch.Tensor:
    x = _s.check_tensor(preds, "preds")
    if x.is_floating_point():
        if x.ndim == 2 and x.shape[1] == k:
            return x.argmax(dim=1)
        raise QwkitError(
            f"`preds` must be class indices (an integer tensor of shape (B,)) or class "
            f"scores of shape (B, {k}); got a {x.dtype} tensor of shape {tuple(x.shape)}. "
            "Turn real-valued scores into classes first (e.g. with "
            "qwkit.optimize_thresholds), or use SoftKappaMetric.",
            parameter="preds",
        )
    return x


class KappaMetric(_s.FloatState):
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
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, as in :func:`qwkit.weight_matrix`.
    validate_args : bool, default=True
        Check the values of each update (class indices in range, finite non-negative
        weights) and raise a :class:`~qwkit.QwkitError` naming the first bad item: one
        read of a few flags from the device per update (a sync on a GPU). With False
        :meth:`update` reads nothing from the device; invalid data then void the
        metric (:meth:`compute` raises).

    Attributes
    ----------
    counts : Tensor of shape (K, K)
        Buffer, int64: items counted by unweighted updates (rows: target).
    weighted_counts : Tensor of shape (K, K)
        Buffer, float64: summed `sample_weight` of weighted updates. Both keep their
        dtype through ``.half()``, ``.double()`` and ``.to(dtype)``.

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

    # The registered buffers (nn.Module types them as Tensor | Module).
    counts: torch.Tensor
    weighted_counts: torch.Tensor

    _fixed_dtype = ("weighted_counts",)

    def __init__(self, num_classes: int, *, weights="quadratic", validate_args: bool = True):
        super().__init__()
        k = _s.check_num_classes(num_classes)
        self.validate_args = _s.check_bool(validate_args, "validate_args")
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
        checks = _s.DataChecks(self.validate_args)
        p = _s.class_indices(
            _predicted_classes(preds, k), "preds", k, checks, device=dev, where=_WHERE
        )
        n = p.shape[0]
        t = _s.class_indices(
            target, "target", k, checks, device=dev, where=_WHERE, n=n, reference="preds"
        )
        w = _s.sample_weight_tensor(
            sample_weight, n, p, checks, dtype=torch.float64, reference="preds", where=_WHERE
        )  # None for None
        checks.run()
        cell = (t * k + p).detach()
        with torch.no_grad():  # scatter_add_ on one dimension: deterministic, no sync
            if w is not None:
                self.weighted_counts.view(-1).scatter_add_(0, cell, w)
            else:
                self.counts.view(-1).scatter_add_(0, cell, torch.ones_like(cell))
            _poison(self.weighted_counts, checks)

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
        on_cpu = self.confusion.detach().cpu()
        _void(on_cpu)
        table = on_cpu.numpy()
        if not np.any(table > 0):
            raise QwkitError("No items with positive weight yet: call `update` first.")
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
            raise QwkitTypeError(
                f"`other` must be a KappaMetric; got {type(other).__name__}.", parameter="other"
            )
        if other.num_classes != self.num_classes:
            raise QwkitError(
                f"`other` has {other.num_classes} classes but this metric has "
                f"{self.num_classes}; they must match.",
                parameter="other",
            )
        if not np.array_equal(other._matrix, self._matrix):
            raise QwkitError(
                "`other` must use the `weights` of this metric; got different `weights` "
                "(merged kappa would be ambiguous).",
                parameter="other",
            )
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


class SoftKappaMetric(_s.FloatState):
    """Soft quadratic weighted kappa of real-valued predictions, over batches and processes.

    Keeps the seven weighted moments Σw, ȳ, f̄ and the centered sums S_yy, S_ff, S_yf,
    Σw(y − f)² in float64 (merged with Chan, Golub & LeVeque's pairwise update, which
    stays accurate far from zero), so that :meth:`compute` equals
    :func:`qwkit.soft_kappa_score` on all the data to rounding.

    Parameters
    ----------
    validate_args : bool, default=True
        As in :class:`KappaMetric`: check that predictions and targets are finite and
        weights finite and non-negative (one read from the device per update), or,
        with False, read nothing and let invalid data void the metric.

    Attributes
    ----------
    moments : Tensor of shape (7,)
        Buffer, float64 (kept through ``.half()``, ``.float()`` and ``.to(dtype)``).

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

    moments: torch.Tensor  # the registered buffer

    _fixed_dtype = ("moments",)

    def __init__(self, *, validate_args: bool = True):
        super().__init__()
        self.validate_args = _s.check_bool(validate_args, "validate_args")
        self.register_buffer("moments", torch.zeros(_s.N_MOMENTS, dtype=torch.float64))

    def update(self, preds, target, sample_weight=None) -> None:
        """Add a batch: ``preds`` and ``target`` real, of shape (B,) or (B, 1)."""
        checks = _s.DataChecks(self.validate_args)
        dev = self.moments.device
        f = _s.column(_s.check_tensor(preds, "preds"), "preds")
        _s.check_device(f, "preds", dev, _WHERE)
        _s.check_real(f, "preds")
        f = f.detach().to(torch.float64)
        y = _s.column(_s.check_tensor(target, "target"), "target")
        _s.check_device(y, "target", dev, _WHERE)
        _s.check_length(y, "target", f.shape[0], "preds")
        _s.check_real(y, "target")
        y = y.detach().to(torch.float64)
        w = _s.sample_weight_tensor(
            sample_weight, f.shape[0], f, checks, reference="preds", where=_WHERE
        )
        if f.shape[0] == 0:
            return
        with torch.no_grad():
            c = _s.constants(torch.float64, dev)
            batch = _s.moments(y, f, w, c)
            not_finite = torch.dot(batch, c.zeros) != c.zero
            _s.finite_check(not_finite, checks, (f, "preds"), (y, "target"))
            checks.run()
            self.moments.copy_(_s.merge_moments(self.moments, batch, c))
            _poison(self.moments, checks)

    def compute(self, *, replace_undefined_by: float = math.nan) -> float:
        """Soft quadratic weighted kappa of everything seen so far (a Python float)."""
        replace = check_replace_undefined_by(replace_undefined_by)
        m = self.moments.detach().cpu().double()
        _void(m)
        if not bool(m[0] > 0):
            raise QwkitError("No items with positive weight yet: call `update` first.")
        den = float(m[3] + m[4] + m[0] * (m[1] - m[2]) ** 2)  # (eq. 2' of soft_kappa_score)
        if den == 0.0:
            return warn_undefined(replace, BOTH_CONSTANT)
        return float(2.0 * m[5] / den)

    def reset(self) -> None:
        """Forget every item."""
        self.moments.zero_()

    def merge(self, other: SoftKappaMetric) -> SoftKappaMetric:
        """Fold ``other``'s moments into this metric (in place) and return ``self``."""
        if not isinstance(other, SoftKappaMetric):
            raise QwkitTypeError(
                f"`other` must be a SoftKappaMetric; got {type(other).__name__}.",
                parameter="other",
            )
        theirs = other.moments.to(self.moments.device)
        c = _s.constants(torch.float64, self.moments.device)
        with torch.no_grad():
            self.moments.copy_(_s.merge_moments(self.moments, theirs, c))
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
            with torch.no_grad():
                out.moments.copy_(_s.reduce_moments(parts))
        return out


KappaMetric.__module__ = "qwkit.torch"
SoftKappaMetric.__module__ = "qwkit.torch"
