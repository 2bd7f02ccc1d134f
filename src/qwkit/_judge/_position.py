"""Position bias of a pairwise judge: each pair of responses (A, B) judged in both
orders, the verdict naming the response it prefers (A, B or a tie). Equation numbers
are those of ``docs/judge.md``.

The test (eq. J15): on item i, d_i = Σ g(verdicts with A first) − Σ g(verdicts with B
first), g(A) = 1, g(B) = −1, g(tie) = 0 — the first slot's wins minus the second's.
With no position effect (the verdict's distribution given the pair does not depend on
the order, runs independent given the pair), the verdicts of the two orders are
exchangeable within the item, so each d_i is as likely to be −d_i: the sign-flip test
of Σ d_i is exact, conditional on |d_i|, at any number of pairs (it is McNemar's test
when each order is asked once and there are no ties). Its distribution is a convolution
of binomials (eq. J16); beyond 20,000 in Σ|d_i| — or when an item has more verdicts in
one order than in the other — the normal approximation z = Σ d_i / √Σ d_i² is used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from qwkit._base._errors import QwkitError, QwkitTypeError
from qwkit._base._results import freeze_arrays, plain, reduce_dataclass
from qwkit._base._tables import Column, Table, render_text
from qwkit._base._validation import (
    check_choice,
    check_confidence_level,
    check_real,
    scalar,
)
from qwkit._judge._consistency import holm
from qwkit._judge._input import factorize, ids, names_of, row_columns
from qwkit._judge._records import ReliabilityEstimate
from qwkit._judge._stats import t_quantile

__all__ = ["PositionBias", "PositionBiasResult", "position_bias_sample_size", "position_bias_test"]

#: Σ|d_i| up to which the exact distribution is convolved.
EXACT_LIMIT = 20_000
METHODS = ("auto", "exact", "asymptotic")


@dataclass(frozen=True, slots=True, eq=False)
class PositionBias:
    """One judge's position bias.

    Attributes
    ----------
    judge : str
        The judge.
    n_items : int
        Pairs judged in both orders (the test's units).
    n_one_order : int
        Pairs judged in one order only: left out (nothing to compare).
    n_verdicts : int
        Verdicts on the ``n_items`` pairs.
    table : ndarray of shape (3, 3)
        Verdicts with A shown first (rows: A, B, tie) against verdicts with B shown
        first (columns), the k-th run of one order beside the k-th of the other. A
        position-consistent judge fills the diagonal; a judge that favours the first
        slot fills the (A, B) cell.
    statistic : float
        z = Σ d_i / √Σ d_i² of the sign-flip test (eq. J15): positive when the first
        slot wins more often.
    pvalue : float
        Two-sided p-value of the test of no position effect: exact (eq. J16) or
        normal, as ``method`` says.
    method : str
        "exact" or "asymptotic".
    pvalue_adjusted : float
        ``pvalue`` Holm-adjusted over the judges of the call.
    first_slot_rate : ReliabilityEstimate
        The share of decisive verdicts (not ties) that go to the response shown first
        (0.5: no position effect), with its interval (eq. J17).
    consistency : ReliabilityEstimate
        Position consistency: the share of (A first, B first) pairs of verdicts of a
        pair that agree, averaged over pairs, with its interval (eq. J17).
    tie_rate : float
        The share of verdicts that are ties.
    bowker_statistic, bowker_df, bowker_pvalue : float
        Bowker's test of symmetry of ``table`` (chi-square on 3 degrees of freedom;
        statsmodels' ``SquareTable.symmetry``): the omnibus test, asymptotic, valid
        when each order is asked once.
    n_needed : int
        Pairs for the test to detect a 60/40 first-slot preference with power 0.8 at
        this judge's tie rate (:func:`position_bias_sample_size`).
    verdict : str
        "first slot favoured", "second slot favoured" (the adjusted p-value below
        1 − ``confidence_level``) or "no evidence of position bias".
    """

    judge: str
    n_items: int
    n_one_order: int
    n_verdicts: int
    table: np.ndarray = field(repr=False)
    statistic: float
    pvalue: float
    method: str
    pvalue_adjusted: float
    first_slot_rate: ReliabilityEstimate
    consistency: ReliabilityEstimate
    tie_rate: float
    bowker_statistic: float
    bowker_df: int
    bowker_pvalue: float
    n_needed: int
    verdict: str

    def __post_init__(self):
        freeze_arrays(self)

    def __reduce__(self):
        return reduce_dataclass(self)

    def to_dict(self) -> dict:
        """As plain Python values."""
        out = {
            name: getattr(self, name)
            for name in (
                "judge",
                "n_items",
                "n_one_order",
                "n_verdicts",
                "table",
                "statistic",
                "pvalue",
                "method",
                "pvalue_adjusted",
                "tie_rate",
                "bowker_statistic",
                "bowker_df",
                "bowker_pvalue",
                "n_needed",
                "verdict",
            )
        }
        out["first_slot_rate"] = self.first_slot_rate.to_dict()
        out["consistency"] = self.consistency.to_dict()
        return plain(out)


@dataclass(frozen=True, slots=True, eq=False)
class PositionBiasResult:
    """Result of :func:`position_bias_test`.

    Attributes
    ----------
    judges : tuple of PositionBias
        One per judge.
    notes : tuple of str
        Pairs left out (judged in one order only), and how the test was made.
    settings : dict
        ``verdict_labels``, ``order_labels``, ``confidence_level``, ``method`` and the
        counts of the input.

    Notes
    -----
    With one judge its fields are reachable directly (``result.pvalue``,
    ``result.first_slot_rate``, ...); with several, pick one by name or position:
    ``result["gpt-4"]``, ``result[0]``.
    """

    judges: tuple
    notes: tuple = ()
    settings: dict = field(default_factory=dict, repr=False)

    def __getitem__(self, key) -> PositionBias:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            return self.judges[key]
        for j in self.judges:
            if j.judge == key:
                return j
        names = ", ".join(repr(j.judge) for j in self.judges)
        raise KeyError(f"no judge {key!r}; the judges are {names}")

    def _only(self) -> PositionBias:
        if len(self.judges) != 1:
            names = ", ".join(repr(j.judge) for j in self.judges)
            raise QwkitError(
                f"This result holds {len(self.judges)} judges ({names}); pick one, e.g. "
                f"result[{self.judges[0].judge!r}].",
                parameter="judge",
            )
        return self.judges[0]

    statistic = property(lambda self: self._only().statistic, doc="z of the one judge.")
    pvalue = property(lambda self: self._only().pvalue, doc="p-value of the one judge.")
    table = property(lambda self: self._only().table, doc="3×3 table of the one judge.")
    first_slot_rate = property(lambda self: self._only().first_slot_rate)
    consistency = property(lambda self: self._only().consistency)
    verdict = property(lambda self: self._only().verdict, doc="Verdict of the one judge.")

    def tables(self) -> tuple[Table, ...]:
        """The test laid out as tables: each judge's verdict with the test, the rates
        and their intervals; each judge's 3×3 table."""
        level = f"{100 * self.settings.get('confidence_level', 0.95):g}%"
        a, b, tie = (str(x) for x in self.settings.get("verdict_labels", ("A", "B", "tie")))
        out = [
            Table(
                "position",
                "Position bias: verdicts with the responses in both orders",
                (
                    Column("judge", "text"),
                    Column("pairs", "count"),
                    Column("first-slot rate"),
                    Column(level, "interval"),
                    Column("consistency"),
                    Column(level, "interval"),
                    Column("ties"),
                    Column("z", digits=2),
                    Column("p-value", "pvalue"),
                    Column("Holm", "pvalue"),
                    Column("verdict", "verdict"),
                ),
                tuple(
                    (
                        j.judge,
                        j.n_items,
                        j.first_slot_rate.statistic,
                        (j.first_slot_rate.low, j.first_slot_rate.high),
                        j.consistency.statistic,
                        (j.consistency.low, j.consistency.high),
                        j.tie_rate,
                        j.statistic,
                        j.pvalue,
                        j.pvalue_adjusted,
                        j.verdict,
                    )
                    for j in self.judges
                ),
                (
                    "First-slot rate: the share of decisive verdicts that go to the response "
                    "shown first (0.5: none). Test: the sign-flip test of the first slot's "
                    "wins minus the second's, "
                    + ", ".join(sorted({j.method for j in self.judges}))
                    + "; Holm over the judges.",
                ),
            ),
            Table(
                "power",
                "Bowker's test of symmetry and the pairs a 60/40 preference needs",
                (
                    Column("judge", "text"),
                    Column("Bowker", digits=2),
                    Column("df", "count"),
                    Column("p-value", "pvalue"),
                    Column("pairs for 60/40", "count"),
                    Column("left out (one order)", "count"),
                ),
                tuple(
                    (
                        j.judge,
                        j.bowker_statistic,
                        j.bowker_df,
                        j.bowker_pvalue,
                        j.n_needed,
                        j.n_one_order,
                    )
                    for j in self.judges
                ),
                (
                    "Pairs for 60/40: power 0.8 at the two-sided 5% level, at the judge's tie "
                    "rate (eq. J18).",
                ),
            ),
        ]
        for j in self.judges:
            out.append(
                Table(
                    "table",
                    f"{j.judge}: verdicts, {a} shown first (rows) vs {b} shown first (columns)",
                    (Column("", "text"), *tuple(Column(x, "count") for x in (a, b, tie))),
                    tuple(
                        (name, *(int(v) for v in j.table[r])) for r, name in enumerate((a, b, tie))
                    ),
                )
            )
        if self.notes:
            out.append(Table("notes", "Notes", (), (), tuple(self.notes)))
        return tuple(out)

    def summary(self) -> str:
        """The tables of :meth:`tables` as text."""
        title = "Position bias of a pairwise judge"
        blocks = [title + "\n" + "=" * len(title) + "\n"]
        return "\n".join(blocks + [render_text(t) for t in self.tables()])

    def to_dict(self) -> dict:
        """As plain Python values."""
        return plain(
            {
                "judges": [j.to_dict() for j in self.judges],
                "notes": list(self.notes),
                "settings": self.settings,
            }
        )

    def plot(self, *, judge: str | int | None = None):
        """Draw each judge's 3×3 table of verdicts in both orders, with its first-slot
        rate and p-value (matplotlib, the ``plot`` extra).

        Parameters
        ----------
        judge : str or int, default=None
            Draw one judge only.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from qwkit._judge._plots import plot_position

        return plot_position(self, None if judge is None else self[judge].judge)


# ---------------------------------------------------------------------------- statistics


def _sign_flip_exact(d: np.ndarray, total: int) -> float:
    """P(|Σ s_i d_i| ≥ |total|) for independent fair signs s_i (eq. J16): the
    convolution, over each distinct |d|, of v·(2·Binomial(c_v, ½) − c_v)."""
    v = np.abs(d[d != 0]).astype(np.int64)
    if not v.size:
        return 1.0
    pmf = np.ones(1)
    for value, count in zip(*np.unique(v, return_counts=True), strict=True):
        b = stats.binom.pmf(np.arange(count + 1), count, 0.5)
        kernel = np.zeros(2 * value * count + 1)
        kernel[:: 2 * value] = b
        pmf = np.convolve(pmf, kernel)
    span = int(v.sum())
    sums = np.arange(-span, span + 1)
    return float(min(1.0, pmf[np.abs(sums) >= abs(total)].sum()))


def _wilson(p: float, n_eff: float, n: int, level: float) -> tuple[float, float]:
    """Wilson's interval of a proportion with the effective sample size ``n_eff``
    (Korn & Graubard 1998; eq. J17), Student's t on n − 1 degrees of freedom."""
    if n < 2 or math.isnan(p):
        return math.nan, math.nan
    q = t_quantile(level, n - 1)
    q2 = q * q / n_eff
    centre = (p + q2 / 2.0) / (1.0 + q2)
    half = q / (1.0 + q2) * math.sqrt(p * (1.0 - p) / n_eff + q * q / (4.0 * n_eff * n_eff))
    return max(0.0, centre - half), min(1.0, centre + half)


def _ratio_estimate(name: str, num: np.ndarray, den: np.ndarray, level: float):
    """Σ num / Σ den over items, its delta-method SE (items the units) and the Wilson
    interval on the effective sample size (eq. J17)."""
    n = num.size
    total = float(den.sum())
    if n == 0 or total == 0:
        return ReliabilityEstimate(
            coefficient=name,
            statistic=math.nan,
            standard_error=math.nan,
            low=math.nan,
            high=math.nan,
            n_items=n,
        )
    p = float(num.sum()) / total
    resid = num - p * den
    var = n / (n - 1.0) * float(np.sum(resid * resid)) / (total * total) if n > 1 else math.nan
    se = math.sqrt(var) if var == var else math.nan
    n_eff = p * (1.0 - p) / var if var and var > 0 and 0 < p < 1 else total
    low, high = _wilson(p, n_eff, n, level)
    return ReliabilityEstimate(
        coefficient=name, statistic=p, standard_error=se, low=low, high=high, n_items=n
    )


def _bowker(table: np.ndarray) -> tuple[float, int, float]:
    """Bowker's test of symmetry (statsmodels' ``SquareTable.symmetry``)."""
    upper = np.triu_indices(3, 1)
    a, b = table[upper], table.T[upper]
    stat = float(np.sum((a - b) ** 2 / (a + b + 1e-20)))
    return stat, 3, float(special.chdtrc(3, stat))


def position_bias_sample_size(
    first_slot_rate: float = 0.6,
    *,
    tie_rate: float = 0.0,
    power: float = 0.8,
    alpha: float = 0.05,
) -> int:
    """Pairs (each judged in both orders) for the position test to detect a
    first-slot preference.

    The model: each verdict is a tie with probability ``tie_rate`` and otherwise goes
    to the response shown first with probability ``first_slot_rate``, independently of
    the pair's content (the content-free judge, eq. J18); the normal approximation of
    the two-sided sign-flip test at level ``alpha``.

    Parameters
    ----------
    first_slot_rate : float, default=0.6
        The share of decisive verdicts that go to the first slot (0.6: a 60/40
        preference); not 0.5.
    tie_rate : float, default=0.0
        The share of ties, in [0, 1).
    power : float, default=0.8
        The probability of detecting the preference.
    alpha : float, default=0.05
        The test's two-sided level.

    Returns
    -------
    int
        The number of pairs.

    Examples
    --------
    >>> import qwkit
    >>> qwkit.position_bias_sample_size(0.6), qwkit.position_bias_sample_size(0.6, tie_rate=0.3)
    (97, 139)
    """
    pi = check_real(first_slot_rate, "first_slot_rate")
    if not 0.0 < pi < 1.0 or pi == 0.5:
        raise QwkitError(
            f"`first_slot_rate` must be in (0, 1) and not 0.5; got {first_slot_rate!r}.",
            parameter="first_slot_rate",
        )
    t = check_real(tie_rate, "tie_rate")
    if not t < 1.0:
        raise QwkitError(f"`tie_rate` must be in [0, 1); got {tie_rate!r}.", parameter="tie_rate")
    for name, value in (("power", power), ("alpha", alpha)):
        x = check_real(value, name)
        if not 0.0 < x < 1.0:
            raise QwkitError(
                f"`{name}` must be strictly between 0 and 1; got {value!r}.", parameter=name
            )
    decisive = 1.0 - t
    shift = decisive * (2.0 * pi - 1.0)  # E[g] of one verdict with A first
    mu = 2.0 * shift  # E[d] (eq. J18)
    var0 = 2.0 * decisive
    var1 = 2.0 * (decisive - shift * shift)
    za = special.ndtri(1.0 - float(alpha) / 2.0)
    zb = special.ndtri(float(power))
    n = ((za * math.sqrt(var0) + zb * math.sqrt(var1)) / mu) ** 2
    return math.ceil(n - 1e-9)


def _codes(values: np.ndarray, labels, name: str, option: str) -> np.ndarray:
    """Each value's position in ``labels``; a value outside them is an error."""
    lookup = {}
    for k, label in enumerate(labels):
        lookup[scalar(label)] = k
    uniq, inverse = np.unique(values, return_inverse=True)
    codes = np.empty(uniq.size, dtype=np.int64)
    for u, value in enumerate(uniq):
        code = lookup.get(scalar(value))
        if code is None:
            row = int(np.flatnonzero(inverse.reshape(-1) == u)[0])
            shown = ", ".join(repr(scalar(x)) for x in labels)
            raise QwkitError(
                f"`{name}` holds {scalar(value)!r} at index {row}, which is not one of "
                f"{shown}; pass `{option}` to name the values your data use.",
                parameter=name,
                row=row,
            )
        codes[u] = code
    return codes[inverse.reshape(-1)]


def _labels(value, name: str, size: int) -> tuple:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != size:
        raise QwkitTypeError(
            f"`{name}` must be a sequence of {size} distinct values; got {value!r}.",
            parameter=name,
        )
    out = tuple(value)
    if len({scalar(v) for v in out}) != size:
        raise QwkitError(
            f"`{name}` must hold {size} distinct values; got {value!r}.", parameter=name
        )
    return out


def _paired_table(item, order, run, verdict) -> np.ndarray:
    """The 3×3 table: the k-th verdict (by run) with A first beside the k-th with B
    first, on each item."""
    key = (item * 2 + order) * (run.max() + 1) + run
    srt = np.argsort(key, kind="stable")
    grp = (item * 2 + order)[srt]
    start = np.ones(grp.size, dtype=bool)
    start[1:] = grp[1:] != grp[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(grp.size), 0))
    rank = np.arange(grp.size) - first
    it, od, vd = item[srt], order[srt], verdict[srt]
    width = int(rank.max()) + 1
    slot = it.astype(np.int64) * width + rank
    ab, ba = od == 0, od == 1
    _, ia, ib = np.intersect1d(slot[ab], slot[ba], assume_unique=True, return_indices=True)
    cells = vd[ab][ia] * 3 + vd[ba][ib]
    return np.bincount(cells, minlength=9).reshape(3, 3)


def _one_judge(name, item, order, run, verdict, level, method, alpha) -> dict[str, Any]:
    n_items = int(item.max()) + 1 if item.size else 0
    counts = np.bincount((item * 2 + order) * 3 + verdict, minlength=n_items * 6)
    n = counts.reshape(n_items, 2, 3).astype(np.float64)  # item × order × verdict
    r = n.sum(axis=2)
    judged = r.sum(axis=1) > 0
    both = (r[:, 0] > 0) & (r[:, 1] > 0)
    n_one = int(np.count_nonzero(judged & ~both))
    n = n[both]
    r = r[both]
    g_ab = n[:, 0, 0] - n[:, 0, 1]  # A (first) minus B (second), A shown first
    g_ba = n[:, 1, 0] - n[:, 1, 1]  # A (second) minus B (first), B shown first
    equal = bool(np.all(r[:, 0] == r[:, 1]))
    d = g_ab - g_ba if equal else g_ab / r[:, 0] - g_ba / r[:, 1]  # (eq. J15)
    total = float(d.sum())
    scale = float(np.sqrt(np.sum(d * d)))
    z = total / scale if scale > 0 else 0.0
    exact_ok = equal and float(np.abs(d).sum()) <= EXACT_LIMIT
    if method == "exact" and not equal:
        raise QwkitError(
            "`method`='exact' needs as many verdicts in each order on every pair (the "
            "exact test swaps the two orders' verdicts); some pairs have more in one "
            "order. Use method='asymptotic' or 'auto'.",
            parameter="method",
        )
    use_exact = method == "exact" or (method == "auto" and exact_ok)
    if scale == 0:
        pvalue = 1.0
    elif use_exact:
        pvalue = _sign_flip_exact(d, round(total))
    else:
        pvalue = float(special.ndtr(-abs(z)) * 2.0)
    firsts = n[:, 0, 0] + n[:, 1, 1]  # the response shown first won
    decisive = n[:, :, :2].sum(axis=(1, 2))
    rate = _ratio_estimate("first-slot rate", firsts, decisive, level)
    agree = (n[:, 0, :] * n[:, 1, :]).sum(axis=1) / (r[:, 0] * r[:, 1])
    consistency = _ratio_estimate("position consistency", agree, np.ones(agree.size), level)
    verdicts = float(r.sum())
    ties = float(n[:, :, 2].sum())
    tie_rate = ties / verdicts if verdicts else math.nan
    return {
        "judge": name,
        "n_items": int(both.sum()),
        "n_one_order": n_one,
        "n_verdicts": int(verdicts),
        "statistic": float(z),
        "pvalue": float(pvalue),
        "method": "exact" if use_exact else "asymptotic",
        "first_slot_rate": rate,
        "consistency": consistency,
        "tie_rate": float(tie_rate),
        "n_needed": position_bias_sample_size(
            0.6, tie_rate=min(tie_rate, 0.99) if tie_rate == tie_rate else 0.0, alpha=alpha
        ),
    }


def position_bias_test(
    judgements: object = None,
    *,
    item: ArrayLike | str = "item",
    order: ArrayLike | str = "order",
    verdict: ArrayLike | str = "verdict",
    judge: ArrayLike | str | None = None,
    run: ArrayLike | str | None = None,
    verdict_labels: Sequence = ("A", "B", "tie"),
    order_labels: Sequence = ("AB", "BA"),
    confidence_level: float = 0.95,
    method: Literal["auto", "exact", "asymptotic"] = "auto",
) -> PositionBiasResult:
    """Does a pairwise judge prefer the response shown first (or second)?

    Each pair of responses A and B is judged with A shown first and again with B shown
    first (the swapped order); each verdict names the response the judge prefers — A,
    B or a tie — whatever its slot. With no position bias the two orders' verdicts are
    alike; with a bias toward the first slot the judge says A when A is first and B
    when B is. For each judge: the 3×3 table of verdicts in the two orders, an exact
    test of no position effect with a stated size (the sign-flip test of the first
    slot's wins minus the second's; eqs. J15–J16), Bowker's test of symmetry of the
    table, the first-slot rate and the position consistency with their intervals
    (eq. J17), and the pairs a 60/40 preference needs (eq. J18).

    Parameters
    ----------
    judgements : data frame or mapping of columns, default=None
        The long table, one row per verdict (pandas, Polars or a dict of arrays); None
        when the columns are given as arrays.
    item, order, verdict, judge, run : str or array-like of shape (n_rows,)
        A column name of ``judgements``, or the column itself. ``item``: the pair
        judged; ``order``: which response was shown first (``order_labels``);
        ``verdict``: the response preferred (``verdict_labels``); ``judge`` (default
        None: one judge); ``run`` (default None): repetitions of a pair in one order
        (the k-th run with A first is set beside the k-th with B first in ``table``).
    verdict_labels : sequence of 3 values, default=("A", "B", "tie")
        How ``verdict`` names response A, response B and a tie (e.g. ``("model_a",
        "model_b", "tie")``).
    order_labels : sequence of 2 values, default=("AB", "BA")
        How ``order`` names the original order (A first) and the swapped one.
    confidence_level : float, default=0.95
        Level of the intervals; a judge's verdict is "position bias" when its
        Holm-adjusted p-value is below 1 − ``confidence_level``.
    method : {"auto", "exact", "asymptotic"}, default="auto"
        The test's p-value: exact (eq. J16) or normal; ``"auto"`` is exact up to 20,000
        in Σ|d_i| with as many verdicts in each order of every pair.

    Returns
    -------
    PositionBiasResult
        ``judges`` (one :class:`PositionBias` each; with one judge its fields are the
        result's), ``summary()``, ``to_dict()``, ``plot()``.

    Raises
    ------
    QwkitError
        A verdict or an order outside its labels (naming the value and its row); a
        judge with no pair judged in both orders. Pairs judged in one order only are
        left out and counted (``n_one_order``), and ``notes`` says so.

    Notes
    -----
    The test is exact when, given the pair, the verdict's distribution does not
    depend on the order and runs are independent: then the two orders' verdicts of a
    pair are exchangeable, and swapping them flips the sign of d_i. Its size is at
    most the nominal level at any number of pairs; ``docs/judge.md`` ("Validation")
    shows its size and power by simulation.

    References
    ----------
    .. [1] L. Zheng et al., "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena",
       NeurIPS 2023 Datasets and Benchmarks (position consistency).
    .. [2] A. H. Bowker, "A test for symmetry in contingency tables", Journal of the
       American Statistical Association 43:572-574, 1948.

    Examples
    --------
    Forty pairs; the judge keeps its verdict in the swapped order on 28, and flips
    toward the first slot on 9 of the other 12:

    >>> import numpy as np
    >>> import qwkit
    >>> first = ["A"] * 20 + ["B"] * 8 + ["A"] * 9 + ["B"] * 3
    >>> swapped = ["A"] * 20 + ["B"] * 8 + ["B"] * 9 + ["A"] * 3
    >>> res = qwkit.position_bias_test(
    ...     item=np.tile(np.arange(40), 2), order=["AB"] * 40 + ["BA"] * 40,
    ...     verdict=first + swapped)
    >>> round(res.pvalue, 4), round(res.first_slot_rate.statistic, 3), res.verdict
    (0.146, 0.575, 'no evidence of position bias')
    >>> round(res.consistency.statistic, 2)
    0.7
    """
    level = check_confidence_level(confidence_level)
    method = check_choice(method, "method", METHODS)
    verdict_labels = _labels(verdict_labels, "verdict_labels", 3)
    order_labels = _labels(order_labels, "order_labels", 2)
    cols = row_columns(
        judgements, {"verdict": verdict, "item": item, "order": order, "judge": judge, "run": run}
    )
    v = ids(cols["verdict"], "verdict")
    nrows = v.size
    if nrows == 0:
        raise QwkitError("`verdict` is empty: no verdict to analyse.", parameter="verdict")
    arrays = {}
    for name in ("item", "order", "judge", "run"):
        if cols[name] is None:
            continue
        arrays[name] = ids(cols[name], name)
        if arrays[name].size != nrows:
            raise QwkitError(
                f"`{name}` and `verdict` must have one value per row; got "
                f"{arrays[name].size} and {nrows}.",
                parameter=name,
                also=("verdict",),
            )
    vcode = _codes(v, verdict_labels, "verdict", "verdict_labels")
    ocode = _codes(arrays["order"], order_labels, "order", "order_labels")
    _, icode = factorize(arrays["item"])
    if "judge" in arrays:
        uniq, jcode = factorize(arrays["judge"])
        jnames = names_of(uniq)
    else:
        jcode, jnames = np.zeros(nrows, dtype=np.int64), ("judge",)
    if "run" in arrays:
        _, rcode = factorize(arrays["run"])
    else:
        rcode = np.zeros(nrows, dtype=np.int64)
    # repetitions of a pair in one order without run ids: number them in row order
    key = ((jcode.astype(np.int64) * (icode.max() + 1) + icode) * 2 + ocode) * (rcode.max() + 1)
    key = key + rcode
    srt = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[srt][1:] == key[srt][:-1])
    if same.size:
        if "run" in arrays:
            a, b = sorted((int(srt[same[0]]), int(srt[same[0] + 1])))
            raise QwkitError(
                f"Rows {a} and {b} hold the same run of judge {jnames[jcode[a]]!r} on pair "
                f"{scalar(arrays['item'][a])!r} in order {scalar(arrays['order'][a])!r}; "
                "each run judges a pair once in each order.",
                parameter="run",
                row=b,
            )
        grp = key[srt]
        start = np.ones(grp.size, dtype=bool)
        start[1:] = grp[1:] != grp[:-1]
        first = np.maximum.accumulate(np.where(start, np.arange(grp.size), 0))
        rcode = np.empty(nrows, dtype=np.int64)
        rcode[srt] = np.arange(grp.size) - first
    alpha = 1.0 - level
    parts, tables, notes = [], [], []
    for j, name in enumerate(jnames):
        rows = jcode == j
        it = icode[rows]
        _, local = np.unique(it, return_inverse=True)
        local = local.reshape(-1)
        part = _one_judge(name, local, ocode[rows], rcode[rows], vcode[rows], level, method, alpha)
        if part["n_items"] == 0:
            raise QwkitError(
                f"`order`: judge {name!r} judged no pair in both orders, so there is no swap "
                "to compare; ask each pair with A first and with B first.",
                parameter="order",
            )
        if part["n_one_order"]:
            notes.append(
                f"Judge {name!r}: {part['n_one_order']:,} pair(s) judged in one order only "
                "were left out."
            )
        parts.append(part)
        tables.append(_paired_table(local, ocode[rows], rcode[rows], vcode[rows]))
    adjusted = holm([p["pvalue"] for p in parts])
    judges = []
    for part, table, q in zip(parts, tables, adjusted, strict=True):
        stat, df, bp = _bowker(table.astype(np.float64))
        if q < alpha:
            verdict_text = (
                "first slot favoured" if part["statistic"] > 0 else "second slot favoured"
            )
        else:
            verdict_text = "no evidence of position bias"
        judges.append(
            PositionBias(
                table=table,
                pvalue_adjusted=float(q),
                bowker_statistic=stat,
                bowker_df=df,
                bowker_pvalue=bp,
                verdict=verdict_text,
                **part,
            )
        )
    return PositionBiasResult(
        judges=tuple(judges),
        notes=tuple(notes),
        settings={
            "verdict_labels": [scalar(x) for x in verdict_labels],
            "order_labels": [scalar(x) for x in order_labels],
            "confidence_level": level,
            "method": method,
            "n_rows": int(nrows),
        },
    )
