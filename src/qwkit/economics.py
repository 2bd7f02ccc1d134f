"""Kappa versus profit: the simulation that Steele (2016) announces (§5) and never delivers.

``qwkit.economics`` is its own module (``import qwkit`` does not load it):
``from qwkit.economics import simulate_economics``. The cost functions it uses
(``expected_cost``, ``insurance_loss_matrix``, ``risk_class_model``, ...) are in the core.

A ridge regression is fitted to noisy data; its held-out scores become ratings by four
rules, and every rule is judged twice — by quadratic weighted kappa and by the profit
per item of Steele's insurance pricing model (``insurance_loss_matrix``). The design
and the findings are in ``docs/economics.md``.

Data. *synthetic*: features X ~ N(0, I) (``n_features`` columns), latent risk
r = X·β with ‖β‖ = 1 (so r ~ N(0, 1)), true class = the equal-mass class of r
(``risk_class_model(n_classes).edges``, Steele 2016, §4.3). *wine*: the red wine quality data
(``load_wine_quality``), quality 3..8 as classes 1..6, features standardized. Noise: the
model sees X + noise·N(0, I) (every standardized feature measured with Gaussian error of
sd ``noise``); for the synthetic data the best possible R² is then 1 / (1 + noise²).

Model. Ridge regression of the class position (0..K−1) on the noisy features, fitted
on a stratified half of the items, with penalty α‖β‖² (intercept unpenalized):

    β = (X_cᵀX_c + α·I)⁻¹ X_cᵀ y_c,   s = ȳ + (x − x̄)·β                        (eq. E1)

Class probabilities (needed by the Bayes rule): an ordered probit of the class on the
score, fitted by maximum likelihood on the training half — a Gaussian predictive
distribution of a latent variable centred on the standardized score z, cut at K − 1
fitted thresholds:

    Pr(y ≤ j | z) = Φ(θⱼ − b·z),   θ₀ < θ₁ < … < θ_{K−2},  b > 0                  (eq. E2)

Rules, all applied to the held-out half: ``kappa_thresholds`` (cut points of
``optimize_thresholds`` fitted on the training half), ``bayes_profit``
(``bayes_decision`` of the eq. E2 probabilities under the insurance loss matrix),
``kappa_decision`` (the decisions of the same probabilities that maximize the kappa
of the expected confusion table), ``rounding`` (round s to the nearest class),
``top_class`` (everyone rated in the highest class: the no-information baseline) and
``perfect`` (the true classes: the ceiling).
"""

from __future__ import annotations

import csv
import math
import numbers
from dataclasses import dataclass, fields
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy import special

from qwkit import (
    bayes_decision,
    confusion_matrix,
    cost_matrix,
    expected_cost,
    insurance_loss_matrix,
    kappa_decision,
    kappa_from_confusion,
    load_wine_quality,
    optimize_thresholds,
    risk_class_model,
)
from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._extras import require
from qwkit._base._files import atomic_write
from qwkit._base._linalg import ridge
from qwkit._base._results import freeze_arrays, reduce_dataclass
from qwkit._base._validation import check_integer, check_real, check_rng
from qwkit._base._warnings import renamed_attribute, renamed_parameter

__all__ = ["EconomicsResult", "EconomicsRow", "simulate_economics"]

RULES = ("kappa_thresholds", "bayes_profit", "kappa_decision", "rounding", "top_class", "perfect")
_DEFAULT_NOISE = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0)


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True, eq=False)
class EconomicsRow:
    """One line of the economics table: a data set, a noise level and a decision rule.

    Every number is a mean over the ``n_repeats`` train/test splits of a held-out
    quantity; ``*_se`` are their standard errors (standard deviation over the repeats
    divided by √n_repeats; NaN with a single repeat).

    Attributes
    ----------
    dataset : str
        ``"synthetic"`` or ``"wine"``.
    noise : float
        Standard deviation of the Gaussian noise added to every standardized feature.
    rule : str
        ``"kappa_thresholds"``, ``"bayes_profit"``, ``"kappa_decision"``,
        ``"rounding"``, ``"top_class"`` or ``"perfect"``.
    qwk, qwk_se : float
        Held-out quadratic weighted kappa.
    profit, profit_se : float
        Held-out profit per item in dollars (−``expected_cost`` under the insurance loss
        matrix).
    profit_vs_thresholds, profit_vs_thresholds_se : float
        Paired difference of the profit per item with ``kappa_thresholds`` on the same
        split (0 for that rule): what the rule earns beyond maximizing kappa.
    accuracy : float
        Fraction of items rated in their true class.
    mean_abs_error : float
        Mean |decided − true| in classes.
    under_rated, over_rated : float
        Fraction of items rated below (above) their true class.
    under_depth : float
        Mean depth of the under-ratings, true − decided in classes, over the
        under-rated items of all repeats pooled (total depth / number of under-rated
        items); NaN when no item is under-rated.
    regret_under, regret_over : float
        Profit per item lost against rating every item in its true class, on the
        under-rated (over-rated) items: the mean over items of
        ``loss[true, decided] − loss[true, true]`` restricted to decided < true
        (decided > true), in dollars. ``profit`` of ``perfect`` minus ``profit`` equals
        ``regret_under + regret_over``.
    """

    dataset: str
    noise: float
    rule: str
    qwk: float
    qwk_se: float
    profit: float
    profit_se: float
    profit_vs_thresholds: float
    profit_vs_thresholds_se: float
    accuracy: float
    mean_abs_error: float
    under_rated: float
    under_depth: float
    over_rated: float
    regret_under: float
    regret_over: float


@dataclass(frozen=True, slots=True, eq=False)
class EconomicsResult:
    """The table of :func:`simulate_economics`, with its settings.

    Attributes
    ----------
    rows : tuple of EconomicsRow
        One row per data set, noise level and rule, in that order.
    n_classes : int
        Classes of the synthetic data (the wine data has its own 6).
    n_items : int
        Items of each synthetic data set (half train, half test).
    n_features : int
        Features of the synthetic data.
    n_repeats : int
        Independent train/test splits (fresh synthetic data) per noise level.
    alpha : float
        Ridge penalty.
    seed : int or None
        The integer ``rng`` was (the whole table is a function of it), or None when
        ``rng`` was a Generator or None.
    price_per_class, cost_per_class, tolerance : float
        The insurance model (:func:`~qwkit.insurance_loss_matrix`).
    loss : ndarray of shape (K, K)
        The insurance loss matrix of the synthetic data (read-only).
    """

    rows: tuple[EconomicsRow, ...]
    n_classes: int
    n_items: int
    #: Deprecated: the old name of ``n_items``.
    n_samples = renamed_attribute("n_samples", "n_items")
    n_features: int
    n_repeats: int
    alpha: float
    seed: int | None
    price_per_class: float
    cost_per_class: float
    tolerance: float
    loss: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def to_csv(self, path) -> Path:
        """Write the table as CSV (one header line, then one line per row), atomically.

        Parameters
        ----------
        path : str or os.PathLike
            File to write; its directory must exist. Written to a temporary file in
            the same directory, then moved into place with ``os.replace``.

        Returns
        -------
        pathlib.Path
            ``path``.
        """
        target = Path(path)
        names = [f.name for f in fields(EconomicsRow)]

        def write(fh):
            writer = csv.writer(fh)
            writer.writerow(names)
            for row in self.rows:
                values = (getattr(row, n) for n in names)
                writer.writerow([repr(v) if isinstance(v, float) else v for v in values])

        atomic_write(target, write, binary=False)
        return target

    def plot(self, directory) -> tuple[Path, ...]:
        """Draw QWK and profit per item against noise, one PNG per data set.

        Parameters
        ----------
        directory : str or os.PathLike
            Existing directory; writes ``economics_<dataset>.png`` there (atomically).

        Returns
        -------
        tuple of pathlib.Path
            The files written.

        Raises
        ------
        ImportError
            If matplotlib is not installed (``pip install 'qwkit[plot]'``).
        """
        plot = {"feature": "EconomicsResult.plot", "package": "matplotlib", "extra": "plot"}
        FigureCanvasAgg = require("matplotlib.backends.backend_agg", **plot).FigureCanvasAgg
        Figure = require("matplotlib.figure", **plot).Figure

        out_dir = Path(directory)
        styles = {
            "kappa_thresholds": ("tab:blue", "o", "-"),
            "bayes_profit": ("tab:red", "s", "-"),
            "kappa_decision": ("tab:purple", "^", "--"),
            "rounding": ("tab:gray", "v", ":"),
            "top_class": ("tab:green", "x", ":"),
            "perfect": ("black", "", "-."),
        }
        written = []
        for dataset in self._datasets():
            fig = Figure(figsize=(11.5, 4), layout="constrained")
            FigureCanvasAgg(fig)  # the Agg backend, without touching pyplot's global state
            ax_qwk, ax_profit = fig.subplots(1, 2)
            for rule in RULES:
                rows = [r for r in self.rows if r.dataset == dataset and r.rule == rule]
                noise = [r.noise for r in rows]
                color, marker, line = styles[rule]
                kw = dict(color=color, marker=marker, linestyle=line, label=rule)
                ax_qwk.errorbar(noise, [r.qwk for r in rows], yerr=_bars(rows, "qwk_se"), **kw)
                ax_profit.errorbar(
                    noise, [r.profit for r in rows], yerr=_bars(rows, "profit_se"), **kw
                )
            ax_qwk.set(xlabel="feature noise (sd)", ylabel="held-out QWK", title=dataset)
            ax_profit.set(xlabel="feature noise (sd)", ylabel="profit per item ($)", title=dataset)
            ax_profit.axhline(0.0, color="0.8", linewidth=0.8)
            handles, labels = ax_profit.get_legend_handles_labels()
            fig.legend(handles, labels, loc="outside right center", fontsize="small")
            target = out_dir / f"economics_{dataset}.png"
            atomic_write(
                target, lambda fh, fig=fig: fig.savefig(fh, format="png", dpi=100), binary=True
            )
            written.append(target)
        return tuple(written)

    def summary(self) -> str:
        """A printable table (rounded for display) and the cost of maximizing kappa."""
        lines = [
            "Kappa versus profit (Steele 2016, §5): ridge regression, held-out half, "
            f"{self.n_repeats} repeat(s), "
            + (f"seed {self.seed}" if self.seed is not None else "a given rng"),
            "profit = dollars per item under insurance_loss_matrix (price "
            f"{self.price_per_class:g}/class, cost {self.cost_per_class:g}/class, tolerance "
            f"{self.tolerance:g})",
        ]
        head = (
            f"{'dataset':<10}{'noise':>6}  {'rule':<17}{'QWK':>7}{'acc':>7}{'MAE':>7}"
            f"{'profit':>9}{'vs thr':>9}{'± se':>7}"
        )
        for dataset in self._datasets():
            lines += ["", head, "-" * len(head)]
            for r in (r for r in self.rows if r.dataset == dataset):
                qwk, acc, mae, profit, diff, se = (
                    _show(v)
                    for v in (
                        r.qwk,
                        r.accuracy,
                        r.mean_abs_error,
                        r.profit,
                        r.profit_vs_thresholds,
                        r.profit_vs_thresholds_se,
                    )
                )
                lines.append(
                    f"{r.dataset:<10}{r.noise:>6.2f}  {r.rule:<17}{qwk:>7.3f}"
                    f"{acc:>7.3f}{mae:>7.3f}{profit:>9.3f}{diff:>+9.3f}{se:>7.3f}"
                )
        lines += [
            "",
            "Where the profit goes: share of items rated below (under) and above (over) their",
            "class, mean depth of the under-ratings in classes, and profit per item lost to each",
            "against rating every item in its class ($ under + $ over = perfect's profit − profit)",
        ]
        head = (
            f"{'dataset':<10}{'noise':>6}  {'rule':<17}{'under':>7}{'depth':>7}{'over':>7}"
            f"{'$ under':>9}{'$ over':>9}"
        )
        for dataset in self._datasets():
            lines += ["", head, "-" * len(head)]
            for r in (r for r in self.rows if r.dataset == dataset):
                under, depth, over, lost_under, lost_over = (
                    _show(v)
                    for v in (
                        r.under_rated,
                        r.under_depth,
                        r.over_rated,
                        r.regret_under,
                        r.regret_over,
                    )
                )
                lines.append(
                    f"{r.dataset:<10}{r.noise:>6.2f}  {r.rule:<17}{under:>7.3f}{depth:>7.3f}"
                    f"{over:>7.3f}{lost_under:>9.3f}{lost_over:>9.3f}"
                )
        lines += ["", "Cost of maximizing kappa (profit of bayes_profit − kappa_thresholds):"]
        for dataset in self._datasets():
            for r in self.rows:
                if r.dataset == dataset and r.rule == "bayes_profit":
                    thr = self._row(dataset, r.noise, "kappa_thresholds")
                    lines.append(
                        f"  {dataset:<10} noise {r.noise:4.2f}: QWK {_show(thr.qwk):.3f} → "
                        f"{_show(r.qwk):.3f}, profit {_show(thr.profit):+.3f} → "
                        f"{_show(r.profit):+.3f} $/item (difference "
                        f"{_show(r.profit_vs_thresholds):+.3f} ± "
                        f"{_show(r.profit_vs_thresholds_se):.3f})"
                    )
        return "\n".join(lines)

    def _datasets(self) -> list[str]:
        return list(dict.fromkeys(r.dataset for r in self.rows))

    def _row(self, dataset: str, noise: float, rule: str) -> EconomicsRow:
        for r in self.rows:
            if r.dataset == dataset and r.noise == noise and r.rule == rule:
                return r
        raise KeyError((dataset, noise, rule))  # pragma: no cover - rows are complete


def _show(value: float) -> float:
    """Rounded for display to 3 decimals, without a '-0.000' for tiny negative values."""
    return round(value, 3) + 0.0


def _bars(rows, name):
    values = [getattr(r, name) for r in rows]
    return None if any(math.isnan(v) for v in values) else values


# ---------------------------------------------------------------------------- validation


def _check_noise(noise_levels) -> tuple[float, ...]:
    if isinstance(noise_levels, (str, bytes)) or noise_levels is None:
        raise QwkitTypeError(
            f"`noise_levels` must be a sequence of numbers; got {noise_levels!r}.",
            parameter="noise_levels",
        )
    try:
        arr = np.asarray(noise_levels, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise QwkitTypeError(
            f"`noise_levels` must be a sequence of numbers; got {noise_levels!r}.",
            parameter="noise_levels",
        ) from exc
    if arr.ndim != 1 or arr.size == 0:
        raise QwkitError(
            f"`noise_levels` must be a non-empty 1-D sequence; got {noise_levels!r}.",
            parameter="noise_levels",
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise QwkitError(
            f"`noise_levels` must be finite and non-negative; got {arr.tolist()!r}.",
            parameter="noise_levels",
        )
    if np.unique(arr).size != arr.size:
        raise QwkitError(
            f"`noise_levels` must not repeat a level; got {arr.tolist()!r}.",
            parameter="noise_levels",
        )
    return tuple(float(v) for v in arr)


# ---------------------------------------------------------------------------- pieces


def _stratified_split(y: np.ndarray, k: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Half of every class (rounded up) to train, the rest to test."""
    train, test = [], []
    for c in range(k):
        idx = rng.permutation(np.flatnonzero(y == c))
        cut = (idx.size + 1) // 2
        train.append(idx[:cut])
        test.append(idx[cut:])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


def _probit_parts(params: np.ndarray, k: int):
    """Thresholds θ (increasing by construction) and slope b of eq. E2."""
    steps = np.exp(np.clip(params[1 : k - 1], -30.0, 10.0))  # clipped: no overflow
    theta = params[0] + np.concatenate(([0.0], np.cumsum(steps)))
    return theta, float(np.exp(np.clip(params[k - 1], -20.0, 12.0)))


def _probit_cum(params: np.ndarray, z: np.ndarray, k: int) -> np.ndarray:
    """[0, Φ(θ₀ − b·z), …, Φ(θ_{K−2} − b·z), 1] per row (eq. E2)."""
    theta, b = _probit_parts(params, k)
    cdf = special.ndtr(theta[None, :] - b * z[:, None])  # (eq. E2)
    n = z.shape[0]
    return np.hstack((np.zeros((n, 1)), cdf, np.ones((n, 1))))


def _log_interval(upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """log(Φ(upper) − Φ(lower)) without underflow, for lower < upper (±inf allowed)."""
    flip = lower > 0  # both in the upper tail: use Φ(−lower) − Φ(−upper) instead
    hi = np.where(flip, -lower, upper)
    lo = np.where(flip, -upper, lower)
    log_hi = special.log_ndtr(hi)
    ratio = np.exp(special.log_ndtr(lo) - log_hi)  # in [0, 1)
    return log_hi + np.log1p(-np.minimum(ratio, 1.0 - 1e-16))


def _probit_nll(params: np.ndarray, z: np.ndarray, y: np.ndarray, k: int):
    """Negative log-likelihood of eq. E2 and its gradient in the unconstrained parameters."""
    theta, b = _probit_parts(params, k)
    padded = np.concatenate(([-np.inf], theta, [np.inf]))
    upper = padded[y + 1] - b * z  # η of the class's upper threshold
    lower = padded[y] - b * z
    log_p = _log_interval(upper, lower)
    # φ(η)/p in log space; φ(±∞) = 0
    d_upper = np.where(np.isfinite(upper), np.exp(_log_phi(upper) - log_p), 0.0)
    d_lower = np.where(np.isfinite(lower), np.exp(_log_phi(lower) - log_p), 0.0)
    # ∂ log p / ∂θⱼ: +φ(upper)/p for j = y, −φ(lower)/p for j = y − 1
    g_theta = np.bincount(y, weights=d_upper, minlength=k)[: k - 1]
    g_theta -= np.bincount(y, weights=d_lower, minlength=k)[1:]
    g_b = float(np.sum(z * (d_lower - d_upper)))  # ∂ log p / ∂b
    tail = np.cumsum(g_theta[::-1])[::-1]  # Σ_{j ≥ m} ∂/∂θⱼ
    steps = np.exp(np.clip(params[1 : k - 1], -30.0, 10.0))  # ∂θⱼ/∂ log step
    grad = np.concatenate(([tail[0]], steps * tail[1:], [b * g_b]))
    return -float(np.sum(log_p)), -grad


def _log_phi(x):
    with np.errstate(invalid="ignore", over="ignore"):
        return -0.5 * np.square(x) - 0.5 * math.log(2.0 * math.pi)


def _fit_ordered_probit(z: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """Maximum-likelihood parameters [θ₀, log(θⱼ − θⱼ₋₁)…, log b] of eq. E2."""
    from scipy import optimize  # ~0.1 s to import: only when the simulation runs

    props = np.cumsum(np.bincount(y, minlength=k))[:-1] / y.shape[0]
    start_theta = special.ndtri(np.clip(props, 0.01, 0.99))
    steps = np.maximum(np.diff(start_theta), 1e-2)
    start = np.concatenate(([start_theta[0]], np.log(steps), [0.0]))
    # BFGS on the unconstrained parameters (no bounds needed): scipy's L-BFGS-B is
    # ten times slower here when OpenBLAS runs threads on a busy machine.
    res = optimize.minimize(_probit_nll, start, args=(z, y, k), jac=True, method="BFGS")
    return res.x


def _probit_proba(params: np.ndarray, z: np.ndarray, k: int) -> np.ndarray:
    proba = np.diff(_probit_cum(params, z, k), axis=1)
    proba = np.maximum(proba, 0.0)
    return proba / proba.sum(axis=1, keepdims=True)


class _Scores(NamedTuple):
    """Held-out scores of one rule on one split."""

    qwk: float
    profit: float
    accuracy: float
    mean_abs_error: float
    under_rated: float  # fraction of items decided below their true class
    under_classes: float  # Σ (true − decided) over the under-rated items
    under_count: float  # number of under-rated items
    over_rated: float  # fraction of items decided above their true class
    regret_under: float  # Σ (loss[t, j] − loss[t, t]) over items with j < t, per item
    regret_over: float  # the same over items with j > t, per item


def _metrics(y, pred, k, loss, absolute) -> _Scores:
    """Every score of one rule on one split, from its confusion table (rows: truth)."""
    table = confusion_matrix(y, pred, labels=np.arange(k))
    n = float(table.sum())
    true_class, decided = np.indices((k, k))
    under, over = decided < true_class, decided > true_class
    regret = table * (loss - np.diag(loss)[:, None])  # profit lost against the true class
    return _Scores(
        qwk=kappa_from_confusion(table),
        profit=-expected_cost(table, loss),
        accuracy=float(np.trace(table)) / n,
        mean_abs_error=expected_cost(table, absolute),
        under_rated=float(table[under].sum()) / n,
        under_classes=float((table * (true_class - decided))[under].sum()),
        under_count=float(table[under].sum()),
        over_rated=float(table[over].sum()) / n,
        regret_under=float(regret[under].sum()) / n,
        regret_over=float(regret[over].sum()) / n,
    )


def _one_split(x, y, k, alpha, loss, rng):
    """Fit on a stratified half, rate the other half by every rule, score them."""
    train, test = _stratified_split(y, k, rng)
    beta, intercept = ridge(x[train], y[train].astype(np.float64), alpha)  # (eq. E1)
    s_train = x[train] @ beta + intercept
    s_test = x[test] @ beta + intercept
    center, scale = s_train.mean(), s_train.std()
    scale = scale if scale > 0 else 1.0
    params = _fit_ordered_probit((s_train - center) / scale, y[train], k)
    proba = _probit_proba(params, (s_test - center) / scale, k)
    thresholds = optimize_thresholds(y[train], s_train, labels=np.arange(k))
    decisions = {
        "kappa_thresholds": thresholds.predict(s_test),
        "bayes_profit": bayes_decision(proba, loss),
        "kappa_decision": kappa_decision(proba),
        "rounding": np.clip(np.rint(s_test), 0, k - 1).astype(np.int64),
        "top_class": np.full(test.shape[0], k - 1, dtype=np.int64),
        "perfect": y[test],
    }
    absolute = cost_matrix(k, "absolute")
    return {rule: _metrics(y[test], pred, k, loss, absolute) for rule, pred in decisions.items()}


def _synthetic(n_items, n_features, k, edges, beta, noise, rng):
    x = rng.standard_normal((n_items, n_features))
    risk = x @ beta  # r ~ N(0, 1)
    y = np.searchsorted(edges, risk, side="left").astype(np.int64)  # equal-mass classes
    return x + noise * rng.standard_normal(x.shape), y


def _summarize(dataset, noise, per_repeat) -> list[EconomicsRow]:
    """Means and standard errors over the repeats; paired differences with thresholds."""
    n_rep = len(per_repeat)

    def mean_se(values):
        v = np.asarray(values, dtype=np.float64)
        se = float(v.std(ddof=1) / math.sqrt(n_rep)) if n_rep > 1 else math.nan
        return float(v.mean()), se

    out = []
    for rule in RULES:
        scores = [rep[rule] for rep in per_repeat]
        qwk = mean_se([sc.qwk for sc in scores])
        profit = mean_se([sc.profit for sc in scores])
        diff = mean_se([rep[rule].profit - rep["kappa_thresholds"].profit for rep in per_repeat])
        under_count = sum(sc.under_count for sc in scores)

        def mean(name, scores=scores):
            return float(np.mean([getattr(sc, name) for sc in scores]))

        out.append(
            EconomicsRow(
                dataset=dataset,
                noise=float(noise),
                rule=rule,
                qwk=qwk[0],
                qwk_se=qwk[1],
                profit=profit[0],
                profit_se=profit[1],
                profit_vs_thresholds=diff[0],
                profit_vs_thresholds_se=diff[1] if rule != "kappa_thresholds" else 0.0,
                accuracy=mean("accuracy"),
                mean_abs_error=mean("mean_abs_error"),
                under_rated=mean("under_rated"),
                # pooled over the repeats: total depth / number of under-rated items
                under_depth=(
                    sum(sc.under_classes for sc in scores) / under_count
                    if under_count > 0
                    else math.nan
                ),
                over_rated=mean("over_rated"),
                regret_under=mean("regret_under"),
                regret_over=mean("regret_over"),
            )
        )
    return out


# ---------------------------------------------------------------------------- API


@renamed_parameter("seed", "rng")
@renamed_parameter("n_samples", "n_items")
def simulate_economics(
    *,
    noise_levels=_DEFAULT_NOISE,
    n_items=4000,
    n_features=10,
    n_classes=8,
    alpha=10.0,
    n_repeats=10,
    rng=20261121,
    include_wine=True,
    price_per_class=10,
    cost_per_class=9,
    tolerance=5,
) -> EconomicsResult:
    """Held-out kappa and profit of kappa-optimal and profit-optimal ratings, across noise.

    The missing §5 of Steele (2016): a regularized linear model on noisy data, its scores
    turned into ratings by maximizing kappa, by minimizing expected cost, or by rounding,
    each judged by quadratic weighted kappa and by the profit of Steele's insurance model.

    Parameters
    ----------
    noise_levels : sequence of float, default=(0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
        Standard deviations of the Gaussian noise added to every standardized feature.
        Distinct, finite, non-negative.
    n_items : int, default=4000
        Items per synthetic data set (at least 8 per class).
    n_features : int, default=10
        Features of the synthetic data.
    n_classes : int, default=8
        Equal-mass risk classes of the synthetic data (at least 2). The wine data
        keeps its 6 quality levels.
    alpha : float, default=10.0
        Ridge penalty (eq. E1), non-negative.
    n_repeats : int, default=10
        Train/test splits per noise level; every repeat draws fresh synthetic data and
        fresh noise. The wine data are fixed: their repeats differ only in the split and
        the noise. Standard errors need at least 2.
    rng : None, int or numpy.random.Generator, default=20261121
        Source of randomness; an integer seeds a new Generator, and the same seed gives
        the same table. (``seed``, its old name, still works and is deprecated, as is
        ``n_samples`` for ``n_items``.)
    include_wine : bool, default=True
        Also run the red wine quality data (``load_wine_quality``).
    price_per_class, cost_per_class, tolerance : float, default=10, 9, 5
        The insurance model (:func:`~qwkit.insurance_loss_matrix`).

    Returns
    -------
    EconomicsResult
        ``rows`` (one :class:`EconomicsRow` per data set, noise level and rule) and the
        settings; ``.to_csv(path)``, ``.plot(directory)``, ``.summary()``.

    Raises
    ------
    ValueError
        Bad noise levels, too few samples, classes or repeats, negative ``alpha``, bad
        insurance parameters.
    TypeError
        Non-integer counts, a bad ``rng``, non-bool ``include_wine``.

    See Also
    --------
    qwkit.insurance_loss_matrix, qwkit.bayes_decision, qwkit.kappa_decision,
    qwkit.optimize_thresholds

    Notes
    -----
    The model is ridge regression of the class position on the noisy features
    (eq. E1), fitted on a stratified half of the items. Its scores are rated by
    (a) ``kappa_thresholds``: the cut points of :func:`~qwkit.optimize_thresholds` fitted on
    the training half — the exact maximizer of the training kappa; (b)
    ``bayes_profit``: :func:`~qwkit.bayes_decision` under the insurance loss matrix, with
    class probabilities from an ordered probit of the class on the score fitted on the
    training half (eq. E2; a Gaussian predictive distribution around the score); (c)
    ``rounding`` of the score to the nearest class; also ``kappa_decision`` (the same
    probabilities, decided to maximize the kappa of the expected confusion table: it
    isolates the objective from the model), ``top_class`` (everyone quoted the highest
    premium, so only the riskiest class buys: what can be earned without any model) and
    ``perfect`` (the true classes: the most that can be earned). The synthetic classes
    are Steele's §4.3 classes: equal-mass slices of a normal risk. Every row also says
    where the profit goes: how many items each rule rates below and above their class,
    how deep the under-ratings are, and the profit lost to each (``under_rated``,
    ``under_depth``, ``over_rated``, ``regret_under``, ``regret_over``).

    Examples
    --------
    >>> from qwkit.economics import simulate_economics
    >>> res = simulate_economics(
    ...     noise_levels=(0.0, 1.0), n_items=400, n_repeats=2, include_wine=False
    ... )
    >>> len(res.rows)
    12
    >>> for row in res.rows[6:8]:  # noise 1.0: maximize kappa, then maximize profit
    ...     print(row.rule, round(row.qwk, 6), round(row.profit, 6))
    kappa_thresholds 0.747286 -2.256281
    bayes_profit 0.234287 1.276382
    """
    noise = _check_noise(noise_levels)
    k = check_integer(n_classes, "n_classes", 2)
    n = check_integer(n_items, "n_items", 8 * k)
    d = check_integer(n_features, "n_features", 1)
    reps = check_integer(n_repeats, "n_repeats", 1)
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, bool):
        seed_value = check_integer(rng, "rng", 0)  # recorded: the table is a function of it
    else:
        seed_value = None
    gen = check_rng(rng if seed_value is None else seed_value)
    alpha = check_real(alpha, "alpha")
    if not isinstance(include_wine, (bool, np.bool_)):
        raise QwkitTypeError(
            f"`include_wine` must be True or False; got {include_wine!r}.",
            parameter="include_wine",
        )
    insurance = dict(
        price_per_class=price_per_class, cost_per_class=cost_per_class, tolerance=tolerance
    )
    loss = insurance_loss_matrix(k, **insurance)

    rows: list[EconomicsRow] = []

    edges = risk_class_model(k).edges
    beta = gen.standard_normal(d)
    beta /= np.linalg.norm(beta)
    for level in noise:
        per_repeat = []
        for _ in range(reps):
            x, y = _synthetic(n, d, k, edges, beta, level, gen)
            per_repeat.append(_one_split(x, y, k, float(alpha), loss, gen))
        rows += _summarize("synthetic", level, per_repeat)

    if include_wine:
        wine = load_wine_quality("red")
        y_wine = (wine.y - wine.y.min()).astype(np.int64)
        k_wine = int(y_wine.max()) + 1
        loss_wine = insurance_loss_matrix(k_wine, **insurance)
        x_std = (wine.X - wine.X.mean(axis=0)) / wine.X.std(axis=0)
        for level in noise:
            per_repeat = []
            for _ in range(reps):
                x = x_std + level * gen.standard_normal(x_std.shape)
                per_repeat.append(_one_split(x, y_wine, k_wine, float(alpha), loss_wine, gen))
            rows += _summarize("wine", level, per_repeat)

    return EconomicsResult(
        rows=tuple(rows),
        n_classes=k,
        n_items=n,
        n_features=d,
        n_repeats=reps,
        alpha=float(alpha),
        seed=seed_value,
        price_per_class=float(price_per_class),
        cost_per_class=float(cost_per_class),
        tolerance=float(tolerance),
        loss=loss,
    )
