"""Per-rater agreement: how well each rater agrees with the others, with intervals.

The estimator (eq. 23 of ``docs/agreement.md``): rater g against the panel — Cohen's
weighted kappa of the table of pairs (g's rating of an item, another rater's rating of
the same item), over every item g rated and every other rating of it,

    κ_g = 1 − D_o,g / D_e,g,   D_o,g = O_g / N_g,   D_e,g = P_gᵀ D Q_g / N_g²          (23)

with N_g = Σᵢ (rᵢ − 1) such pairs, O_g = Σᵢ Σ_{j≠g} d(x_ig, x_ij), P_g the distribution of
g's ratings (each weighted by the rᵢ − 1 others of its item) and Q_g that of the others'
ratings of g's items. It is the kappa of a candidate rater against reference raters that
``qwkit.evaluate_scorer`` computes for each human (two raters: Cohen's kappa), it is
defined for any weights and any scale (text too), and it compares raters fairly across
items of different numbers of ratings, which the mean of the others would not (its
spread shrinks with their number).

Its standard error is the linearization over g's items (the items are the units: each
item's pairs move together),

    Var κ̂_g = n_g/(n_g − 1) Σᵢ ψᵢ²,   ψᵢ = −(oᵢN_g + O_g nᵢ)/C_g + O_g N_g cᵢ/C_g²      (24)

where nᵢ = rᵢ − 1, oᵢ = Σ_{j≠g} d(x_ig, x_ij) and cᵢ = nᵢ (D Q_g)(x_ig) + Σ_{j≠g}
(D P_g)(x_ij) is item i's share of C_g = P_gᵀ D Q_g (Σᵢ cᵢ = 2C_g). Everything is
O(Σᵢ rᵢ²) in time and O(N) in memory: never raters × raters, never items × raters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse, special

from qwkit import _kernels
from qwkit._agreement import _input as _in
from qwkit._agreement import _metrics as _m
from qwkit._agreement._model import metric_of, model_of
from qwkit._agreement._stats import _REL_ZERO
from qwkit._base._errors import QwkitError
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, nan_rows
from qwkit._base._ratings import RatingsLike
from qwkit._base._registry import RaterWeightsName
from qwkit._base._results import labels_dict, plain, public_module
from qwkit._base._validation import check_confidence_level

__all__ = [
    "PairwiseKappas",
    "RaterAgreementResult",
    "rater_agreement",
    "rater_result",
    "rater_sums",
]

Weights = RaterWeightsName


def rater_sums(panel: _in.Panel, metric):
    """Per rater g: (n_g items shared with another rater, N_g, O_g, C_g, Σᵢ ψᵢ²)
    (eqs. 23–24)."""
    n, k = panel.n_items, panel.n_raters
    item, rater, code = panel.item, panel.rater, panel.code
    rows, inv = _m.item_rows(panel.item_ptr, code)  # item histograms
    r = np.diff(panel.item_ptr).astype(np.float64)
    npair = r[item] - 1.0
    shared = npair > 0
    o_i = _m.within(metric, rows)[inv]  # Σ_{j at i} d(x_ig, x_ij): its own adds 0
    n_g = np.bincount(rater, weights=shared, minlength=k)
    big_n = np.bincount(rater, weights=npair, minlength=k)
    big_o = np.bincount(rater, weights=o_i, minlength=k)
    if isinstance(metric, _m.Moments):
        z = metric.z[code]
        p = [np.bincount(rater, weights=npair * z**j, minlength=k) for j in range(3)]
        item_m = [np.bincount(item, weights=z**j, minlength=n) for j in range(3)]
        q = [np.bincount(rater, weights=item_m[j][item] - z**j, minlength=k) for j in range(3)]
        big_c = p[0] * q[2] + p[2] * q[0] - 2.0 * p[1] * q[1]  # P_gᵀ D Q_g   (eq. M)
        g = rater
        dq_at = q[2][g] - 2.0 * z * q[1][g] + z * z * q[0][g]  # (D Q_g)(x_ig)
        # Σ_{j≠g} (D P_g)(x_ij) from the item's moments less g's own rating
        s1, s2 = item_m[1][item] - z, item_m[2][item] - z * z
        dp_others = npair * p[2][g] - 2.0 * p[1][g] * s1 + p[0][g] * s2
    else:
        v = metric.v
        a = sparse.csr_array((np.ones(item.shape[0]), (rater, item)), shape=(k, n))
        h = sparse.csr_array((rows.mult, (rows.row, rows.codes)), shape=(n, v))
        own = sparse.csr_array((np.ones(code.shape[0]), (rater, code)), shape=(k, v))
        q = _csr_rows(a @ h - own)
        pm = _csr_rows(sparse.csr_array((npair, (rater, code)), shape=(k, v)))
        kind, dmat, y, base = metric.kernel_args()
        at_p = _kernels.cross_at(pm.ptr, pm.codes, q.ptr, q.codes, q.mult, kind, dmat, y, base)
        big_c = np.bincount(pm.row, weights=pm.mult * at_p, minlength=k)
        at_q = _kernels.cross_at(q.ptr, q.codes, pm.ptr, pm.codes, pm.mult, kind, dmat, y, base)
        dq_at = np.zeros(code.shape[0])
        where = _entry_of(pm, rater[shared], code[shared], v)
        dq_at[shared] = at_p[where]
        dp_others = _kernels.applied_at_others(panel.item_ptr, rater, code, q.ptr, q.codes, at_q)
    c_i = npair * dq_at + dp_others  # item i's share of C_g
    g = rater
    with np.errstate(divide="ignore", invalid="ignore"):
        psi = -(o_i * big_n[g] + big_o[g] * npair) / big_c[g] + (
            big_o[g] * big_n[g] * c_i / (big_c[g] * big_c[g])
        )  # (eq. 24)
    psi = np.where(shared, psi, 0.0)
    ss = np.bincount(rater, weights=psi * psi, minlength=k)
    return n_g, big_n, big_o, big_c, ss


def _csr_rows(mat) -> _m.Rows:
    mat = sparse.csr_array(mat)
    mat.sum_duplicates()
    mat.eliminate_zeros()
    mat.sort_indices()
    return _m.Rows(
        mat.indptr.astype(np.int64), mat.indices.astype(np.intp), mat.data.astype(np.float64)
    )


def _entry_of(rows: _m.Rows, group, codes, v) -> np.ndarray:
    """The entry of each (group, code) in ``rows`` (present by construction)."""
    keys = rows.row.astype(np.int64) * v + rows.codes
    return np.searchsorted(keys, group.astype(np.int64) * v + codes)


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class PairwiseKappas:
    """The weighted kappa of each pair of raters on the items both rated: the pairs
    whose mean is Light's kappa (``RaterAgreementResult.pairwise``).

    Attributes
    ----------
    rater1, rater2 : ndarray of shape (n_pairs,)
        The two raters of each pair (``rater1`` before ``rater2`` in the table's order).
    n_items : ndarray of shape (n_pairs,)
        Items both rated (two or more: one common item has no kappa).
    statistic : ndarray of shape (n_pairs,)
        Cohen's weighted kappa of the pair on those items; nan where it is undefined
        (every common rating in one category). Light's kappa is the mean of the others.
    n_pairs_sharing : int
        Pairs of raters that share at least one item (those with a single common item
        are not listed).
    """

    rater1: np.ndarray
    rater2: np.ndarray
    n_items: np.ndarray
    statistic: np.ndarray
    n_pairs_sharing: int

    def matrix(self, raters) -> np.ndarray:
        """The (R, R) matrix of the kappas of the raters ``raters`` (nan on the diagonal
        and where a pair has no kappa); refused beyond 2,000 raters."""
        names = list(raters)
        if len(names) > 2000:
            raise QwkitError(
                f"`raters` has {len(names)} raters; a matrix of every pair is drawn for at "
                "most 2,000 (read the pairs themselves, or summarize them).",
                parameter="raters",
            )
        index = {name: j for j, name in enumerate(names)}
        out = np.full((len(names), len(names)), np.nan)
        for a, b, value in zip(self.rater1, self.rater2, self.statistic, strict=True):
            if a in index and b in index:
                out[index[a], index[b]] = out[index[b], index[a]] = value
        return out

    def plot(self):
        """Draw the pairs' kappas with matplotlib (the ``plot`` extra): their
        distribution, Light's kappa (their mean) marked, and each pair's kappa against
        the items it shares.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from qwkit._agreement._plots import pairs_figure

        return pairs_figure(self)

    def to_dict(self) -> dict:
        """The pairs as a list of records (``pandas.DataFrame(result.to_dict()["pairs"])``)."""
        return plain(
            {
                "n_pairs_sharing": self.n_pairs_sharing,
                "pairs": [
                    {"rater1": a, "rater2": b, "n_items": int(n), "statistic": float(s)}
                    for a, b, n, s in zip(
                        self.rater1.tolist(),
                        self.rater2.tolist(),
                        self.n_items.tolist(),
                        self.statistic.tolist(),
                        strict=True,
                    )
                ],
            }
        )


@dataclass(frozen=True, eq=False)
class RaterAgreementResult:
    """Result of :func:`rater_agreement`: each rater's agreement with the others.

    Attributes
    ----------
    raters : ndarray of shape (n_raters,)
        The raters (the table's ``raters``, a data frame's columns, or 0, 1, …).
    n_items : ndarray of shape (n_raters,)
        Items the rater rated that another rater rated too (the units of its interval).
    n_ratings : ndarray of shape (n_raters,)
        Items the rater rated.
    statistic : ndarray of shape (n_raters,)
        The rater's weighted kappa against the other raters of its items (eq. 23 of
        ``docs/agreement.md``); nan with fewer than two shared items or a zero chance
        disagreement.
    standard_error : ndarray of shape (n_raters,)
        Its linearization standard error over the rater's items (eq. 24).
    low, high : ndarray of shape (n_raters,)
        The interval at ``confidence_level``: statistic ± t(n_items − 1)·SE, the upper
        limit capped at 1.
    confidence_level : float
    weights : str
    labels : ndarray or range
        The rating scale.
    n_items_dropped, n_raters_dropped : int
        Items and raters with no rating, left out.
    """

    raters: np.ndarray
    n_items: np.ndarray
    n_ratings: np.ndarray
    statistic: np.ndarray
    standard_error: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    weights: str
    labels: np.ndarray | range = field(repr=False)
    n_items_dropped: int = field(default=0, repr=False)
    n_raters_dropped: int = field(default=0, repr=False)
    _pairs: object = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (
            f"RaterAgreementResult(n_raters={self.raters.shape[0]}, weights={self.weights!r}, "
            f"confidence_level={self.confidence_level})"
        )

    def ranked(self) -> np.ndarray:
        """Indices of the raters from the lowest agreement to the highest (nan last)."""
        key = np.where(np.isnan(self.statistic), np.inf, self.statistic)
        return np.lexsort((-self.n_items, key))

    def summary(self, n: int = 10) -> str:
        """A text table of the ``n`` raters of lowest and of highest agreement."""
        order = self.ranked()
        defined = order[~np.isnan(self.statistic[order])]
        level = f"{100 * self.confidence_level:g}%"
        title = f"Agreement of each rater with the others ({self.weights} weights)"
        head = f"{'rater':<24}{'items':>8}{'kappa':>10}{'SE':>9}   {level} interval"
        lines = [title, "-" * len(head)]
        described = np.nanpercentile(self.statistic, [10, 50, 90]) if defined.size else None
        lines.append(
            f"{self.raters.shape[0]} raters, {defined.size} with a defined kappa"
            + (
                f"; deciles 10/50/90%: {described[0]:.3f} / {described[1]:.3f} / {described[2]:.3f}"
                if described is not None
                else ""
            )
        )

        def rows(idx, heading):
            lines.extend(["", heading, head])
            for j in idx:
                name = str(self.raters[j])
                name = name if len(name) <= 23 else name[:20] + "..."
                lines.append(
                    f"{name:<24}{int(self.n_items[j]):>8d}{self.statistic[j]:>10.4f}"
                    f"{self.standard_error[j]:>9.4f}   [{self.low[j]:.4f}, {self.high[j]:.4f}]"
                )

        if defined.size <= 2 * n:
            rows(defined, "Raters, lowest agreement first")
        else:
            rows(defined[:n], f"The {n} lowest")
            rows(defined[::-1][:n], f"The {n} highest")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """Plain values; ``raters`` is a list of records, one per rater
        (``pandas.DataFrame(result.to_dict()["raters"])``)."""
        return plain(
            {
                "weights": self.weights,
                "confidence_level": self.confidence_level,
                **labels_dict(self.labels),
                "n_items_dropped": self.n_items_dropped,
                "n_raters_dropped": self.n_raters_dropped,
                "raters": [
                    {
                        "rater": name,
                        "n_items": int(n),
                        "n_ratings": int(m),
                        "statistic": float(s),
                        "standard_error": float(se),
                        "ci_low": float(lo),
                        "ci_high": float(hi),
                    }
                    for name, n, m, s, se, lo, hi in zip(
                        self.raters.tolist(),
                        self.n_items.tolist(),
                        self.n_ratings.tolist(),
                        self.statistic.tolist(),
                        self.standard_error.tolist(),
                        self.low.tolist(),
                        self.high.tolist(),
                        strict=True,
                    )
                ],
            }
        )

    def pairwise(self) -> PairwiseKappas:
        """The weighted kappa of every pair of raters that share two or more items (the
        pairs of Light's kappa), computed from the pairs' sums over their common items."""
        light = self._pairs()
        g, h, b, kappa = light.pairs()
        return PairwiseKappas(
            rater1=self.raters[g],
            rater2=self.raters[h],
            n_items=b.astype(np.int64),
            statistic=kappa,
            n_pairs_sharing=light.n_all,
        )

    def plot(self):
        """Draw the raters' agreement with matplotlib (the ``plot`` extra): the
        distribution of the raters' kappas, and each rater's kappa with its interval,
        ranked (for many raters, against the number of items they rated).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from qwkit._agreement._plots import raters_figure

        return raters_figure(self)


public_module(RaterAgreementResult, PairwiseKappas)


def rater_result(
    panel: _in.Panel, metric, dmax: float, weights: str, confidence_level, matrix=None
) -> RaterAgreementResult:
    """Each rater's kappa against the others (eqs. 23–24), with its interval."""
    level = check_confidence_level(confidence_level)
    n_g, big_n, big_o, big_c, ss = rater_sums(panel, metric)
    ok = (n_g >= 2) & (big_c > _REL_ZERO * big_n * big_n * dmax)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(ok, 1.0 - big_o * big_n / big_c, np.nan)  # (eq. 23)
        se = np.where(ok, np.sqrt(n_g / (n_g - 1.0) * ss), np.nan)  # (eq. 24)
    df = np.maximum(n_g - 1.0, 1.0)
    crit = special.stdtrit(df, 0.5 + level / 2.0)
    low = kappa - crit * se
    high = np.minimum(kappa + crit * se, 1.0)
    return RaterAgreementResult(
        raters=panel.raters,
        n_items=n_g.astype(np.int64),
        n_ratings=np.bincount(panel.rater, minlength=panel.n_raters).astype(np.int64),
        statistic=kappa,
        standard_error=se,
        low=low,
        high=high,
        confidence_level=level,
        weights=weights,
        labels=panel.scale.labels,
        n_items_dropped=panel.n_items_dropped,
        n_raters_dropped=panel.n_raters_dropped,
        _pairs=_light_of(panel, weights, matrix),
    )


def _light_of(panel: _in.Panel, weights: str, matrix):
    """Light's pairs of the panel (a closure: computed when asked), from the model whose
    value ``agreement_score(coefficient="light")`` is: the mean of these pairs' kappas
    is that value, bit for bit."""

    def make():
        return model_of(_in.prepared("light", weights, matrix, panel), collapse="cheap")

    return make


# ---------------------------------------------------------------------------- public


def rater_agreement(
    ratings: RatingsLike,
    *,
    weights: Weights | ArrayLike | None = "quadratic",
    labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    nan_policy: NanPolicy = "omit",
) -> RaterAgreementResult:
    """Each rater's agreement with the other raters, with an interval: how crowds are
    cleaned.

    Rater g's weighted kappa against the panel — Cohen's kappa of the table of pairs
    (g's rating of an item, another rater's rating of the same item) over every item g
    rated (eq. 23 of ``docs/agreement.md``) — with a linearization standard error over
    g's items (eq. 24). A rater who rates at random scores near 0, one who agrees as
    much as the others near the panel's pairwise agreement.

    Parameters
    ----------
    ratings : RatingsTable or array-like of shape (n_items, n_raters)
        A table from :func:`ratings_from_long`, or one row per item and one column per
        rater with NaN/None where a rater gave no rating.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar", \
"ordinal", "ratio"}, None or array-like of shape (K, K), default="quadratic"
        Disagreement weights, as in :func:`agreement_score`.
    labels : array-like of shape (K,), default=None
        The ordered rating scale, as in :func:`agreement_score`.
    confidence_level : float, default=0.95
        Level of each rater's interval (t on n_items − 1 degrees of freedom, upper
        limit capped at 1).
    nan_policy : {"omit", "raise"}, default="omit"
        A missing entry (NaN, None, ``pd.NA``; in a :class:`RatingsTable`, a rating not
        given) means "not rated": with ``"omit"`` the item counts with the ratings it has.
        ``"raise"`` asks for a complete table (every item rated by every rater). The result
        has no NaN form: ``"propagate"`` is refused (``docs/getting-started.md``, "Missing
        values").

    Returns
    -------
    RaterAgreementResult
        Per rater: ``raters``, ``n_items`` (items shared with another rater),
        ``n_ratings``, ``statistic``, ``standard_error``, ``low``, ``high``;
        ``ranked()``, ``summary()``, ``to_dict()`` (a list of records: a DataFrame away),
        ``pairwise()`` (the kappa of every pair of raters), ``plot()``.

    Notes
    -----
    Why this estimator: it is the kappa ``evaluate_scorer`` gives a candidate rater
    against reference raters, so a human and a machine are judged alike; it is defined
    for every weighting and scale (text too); and it compares raters fairly across items
    with different numbers of ratings — a rater against the *mean* of the others would
    be judged against a reference whose spread shrinks as the others get more numerous.
    A rater's kappa is nan when it shares fewer than two items with other raters or
    when its chance disagreement is zero. O(Σᵢ rᵢ²) time and O(N) memory in the N
    ratings (rᵢ of item i): never raters × raters, never items × raters.

    Examples
    --------
    Four coders and twelve units (Krippendorff 2011); the third coder agrees least with
    the others:

    >>> import numpy as np
    >>> import qwkit
    >>> nan = np.nan
    >>> ratings = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3],
    ...            [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1],
    ...            [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> res = qwkit.rater_agreement(ratings, weights="identity")
    >>> [round(float(k), 4) for k in res.statistic]
    [0.7368, 0.7615, 0.5549, 0.7752]
    >>> res.n_items.tolist()
    [9, 10, 10, 11]
    """
    nan_rows(nan_policy, (ratings,), ("ratings",), kind="table", allowed=RAISE_OR_OMIT)
    panel, name, matrix = _in.prepare_panel(ratings, weights, labels)
    _in.check_pairs(panel)
    metric, dmax = metric_of(_in.prepared("conger", name, matrix, panel))
    return rater_result(panel, metric, dmax, name, confidence_level, matrix)
