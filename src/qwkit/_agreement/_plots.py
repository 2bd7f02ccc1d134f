"""The figures of agreement among raters: each rater against the others
(``RaterAgreementResult.plot``) and the kappas of the pairs of raters
(``PairwiseKappas.plot``). Both stay readable for any number of raters: beyond a few
dozen, distributions and scatters, never a raters × raters grid."""

from __future__ import annotations

import numpy as np

from qwkit._base import _plots as _p

__all__ = ["pairs_figure", "raters_figure"]

#: Up to this many raters, each is drawn by name with its interval.
MAX_NAMED_RATERS = 40


def _histogram(ax, values, *, xlabel: str, mark: float | None, title: str):
    """Histogram on [−1, 1], ``mark`` (a median, a mean) as a vertical line, said in
    the title (a legend would sit on the bars)."""
    values = values[np.isfinite(values)]
    bins = max(10, min(60, int(np.sqrt(values.size)) + 1)) if values.size else 10
    ax.hist(values, bins=bins, range=(-1.0, 1.0), color=_p.BLUE, alpha=0.85)
    if mark is not None and np.isfinite(mark):
        ax.axvline(mark, color=_p.ORANGE, lw=2)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    _p.integer_counts(ax.yaxis)
    _p.tidy(ax)


def raters_figure(res):
    """Left: the distribution of the raters' kappas (median marked). Right: up to
    ``MAX_NAMED_RATERS`` raters, each by name with its interval, lowest first; beyond,
    each rater's kappa against the items it shares (log scale), the lowest ten named."""
    feature = "RaterAgreementResult.plot"
    kappa = np.asarray(res.statistic, dtype=np.float64)
    ok = np.isfinite(kappa)
    named = int(ok.sum()) <= MAX_NAMED_RATERS
    height = max(3.6, 0.24 * int(ok.sum()) + 1.2) if named else 4.2
    fig = _p.figure(11.0, min(height, 11.0), feature=feature)
    left, right = fig.subplots(1, 2, width_ratios=[1.0, 1.3])
    median = float(np.median(kappa[ok])) if ok.any() else None
    _histogram(
        left,
        kappa,
        xlabel=f"kappa of a rater against the others ({res.weights} weights)",
        mark=median,
        title=f"{int(ok.sum()):,} raters with a kappa"
        + (f"; median {median:.3f} (orange)" if median is not None else ""),
    )
    order = res.ranked()
    order = order[ok[order]]
    if named:
        y = np.arange(order.size)
        right.errorbar(
            kappa[order],
            y,
            xerr=[kappa[order] - res.low[order], res.high[order] - kappa[order]],
            fmt="o",
            color=_p.BLUE,
            ecolor=_p.GREY,
            capsize=2,
        )
        right.set_yticks(y, [_p.text(str(res.raters[j])) for j in order])
        right.set_xlabel(f"kappa with its {_p.percent(res.confidence_level)} interval")
        right.set_title("Raters, lowest agreement first")
    else:
        items = np.maximum(res.n_items[order], 1)
        right.scatter(items, kappa[order], s=10, color=_p.BLUE, alpha=0.5, lw=0)
        low = order[:10]
        right.scatter(np.maximum(res.n_items[low], 1), kappa[low], s=18, color=_p.RED, lw=0)
        right.set_xscale("log")
        right.set_xlabel("items shared with other raters (log scale)")
        right.set_ylabel("kappa against the others")
        right.set_title("Each rater; the ten lowest in red")
    if median is not None and named:
        right.axvline(median, color=_p.ORANGE, lw=1)
    elif median is not None:
        right.axhline(median, color=_p.ORANGE, lw=1)
    _p.tidy(right)
    return fig


def pairs_figure(pairs):
    """The distribution of the pairs' kappas (Light's kappa, their mean, marked), and
    each pair's kappa against the items it shares."""
    fig = _p.figure(11.0, 4.2, feature="PairwiseKappas.plot")
    left, right = fig.subplots(1, 2)
    kappa = np.asarray(pairs.statistic, dtype=np.float64)
    ok = np.isfinite(kappa)
    mean = float(np.mean(kappa[ok])) if ok.any() else None
    _histogram(
        left,
        kappa,
        xlabel="kappa of a pair of raters on the items both rated",
        mark=mean,
        title=f"{int(ok.sum()):,} pairs with a kappa"
        + (f"; mean (Light's kappa) {mean:.3f}" if mean is not None else ""),
    )
    right.scatter(np.maximum(pairs.n_items[ok], 1), kappa[ok], s=6, color=_p.BLUE, alpha=0.35, lw=0)
    right.set_xscale("log")
    right.set_xlabel("items both rated (log scale)")
    right.set_ylabel("kappa of the pair")
    right.set_title("Few common items, wide spread")
    _p.tidy(right)
    return fig
