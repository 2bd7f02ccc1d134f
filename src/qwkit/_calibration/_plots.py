"""The figures of the judge's calibration (``JudgeCalibration.plot``: the reliability
diagram) and of the human-scale estimates (``HumanScaleEstimate.plot``: each group's
PPI++ interval beside the human-only one)."""

from __future__ import annotations

import numpy as np

from qwkit._base import _plots as _p

__all__ = ["estimate_figure", "reliability_figure"]


def reliability_figure(cal, *, title: str | None = None):
    """Left: mean human value per bin of the raw judge score, the mapping over it (its
    classes as steps, the isotonic curve when there is one); right: mean human value of
    each class out of fold against the class value, with the diagonal."""
    fig = _p.figure(9.0, 4.0, feature="JudgeCalibration.plot")
    left, right = fig.subplots(1, 2)
    values = (
        cal.reliability[:, 0] if cal.reliability.shape[0] else np.arange(1.0, 1 + len(cal.labels))
    )
    raw = cal.raw_reliability
    if raw.shape[0]:
        sizes = 20 + 180 * raw[:, 2] / raw[:, 2].max()
        left.scatter(raw[:, 0], raw[:, 1], s=sizes, color=_p.BLUE, alpha=0.7, label="items (bins)")
        lo, hi = float(raw[:, 0].min()), float(raw[:, 0].max())
    else:
        lo, hi = 0.0, 1.0
    finite = cal.thresholds[np.isfinite(cal.thresholds)]
    if finite.size:
        lo, hi = min(lo, float(finite.min())), max(hi, float(finite.max()))
    pad = 0.05 * (hi - lo or 1.0)
    xs = np.concatenate(([lo - pad], np.clip(cal.thresholds, lo - pad, hi + pad), [hi + pad]))
    left.step(xs[1:], values, where="pre", color=_p.ORANGE, label="mapping (classes)")
    left.hlines(values[0], xs[0], xs[1], color=_p.ORANGE)
    if cal.curve_x.shape[0]:
        left.plot(cal.curve_x, cal.curve_y, color=_p.GREY, lw=1, label="isotonic curve")
    left.set_xlabel("judge score")
    left.set_ylabel("mean human rating")
    left.legend(frameon=False, fontsize=8, loc="upper left")
    _p.tidy(left)

    rel = cal.reliability
    shown = rel[:, 2] > 0 if rel.shape[0] else np.zeros(0, dtype=bool)
    if shown.any():
        sizes = 20 + 180 * rel[shown, 2] / rel[shown, 2].max()
        right.scatter(rel[shown, 0], rel[shown, 1], s=sizes, color=_p.BLUE, zorder=3)
    span = [float(values.min()), float(values.max())]
    right.plot(span, span, ls="--", color=_p.GREY, lw=1, label="calibrated")
    right.set_xlabel("class of the calibrated judge")
    right.set_ylabel("mean human rating (out of fold)")
    right.set_xticks(values, [_p.text(_p.label_text(v)) for v in cal.labels.tolist()])
    right.legend(frameon=False, fontsize=8, loc="upper left")
    _p.tidy(right)
    fig.suptitle(_p.text(title) if title else "Reliability diagram of the calibrated judge")
    return fig


def estimate_figure(res, quantity, *, title: str | None = None):
    """Each group's PPI++ estimate and interval (filled) beside its human-only one
    (open), for one quantity (the mean, or a category's share)."""
    rows = [r for r in res.estimates if r.quantity == quantity]
    fig = _p.figure(7.5, 0.9 + 0.42 * len(rows), feature="HumanScaleEstimate.plot")
    ax = fig.subplots()
    ys = np.arange(len(rows))[::-1].astype(float)
    for y, r in zip(ys, rows, strict=True):
        ax.plot([r.human_only_low, r.human_only_high], [y - 0.15] * 2, color=_p.GREY, lw=2)
        ax.plot(r.human_only, y - 0.15, "o", mfc="white", color=_p.GREY, ms=5)
        ax.plot([r.low, r.high], [y + 0.15] * 2, color=_p.BLUE, lw=2.5)
        ax.plot(r.estimate, y + 0.15, "o", color=_p.BLUE, ms=6)
    names = ["all items" if r.group is None else _p.text(r.group) for r in rows]
    ax.set_yticks(ys, names)
    what = "mean human rating" if quantity == "mean" else f"share of {_p.label_text(quantity)}"
    ax.set_xlabel(f"{what} ({_p.percent(res.confidence_level)} intervals)")
    ax.plot([], [], color=_p.BLUE, lw=2.5, marker="o", label="PPI++ (judge and humans)")
    ax.plot([], [], color=_p.GREY, lw=2, marker="o", mfc="white", label="humans only")
    ax.legend(frameon=False, fontsize=8, loc="best")
    _p.tidy(ax)
    ax.set_title(_p.text(title) if title else f"Human-scale estimates: {what}")
    return fig
