"""Weighted kappa from ratings and from a confusion matrix, and the confusion matrix.

The public functions of kappa itself; each reads validate → compute → wrap. The
computations — five exact sums, one-pass tables, the table-free path, and kappa from
them (eq. 1 and eq. Q) — live in ``_sufficient``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from qwkit._base._errors import QwkitError
from qwkit._base._item_weights import item_weights
from qwkit._base._items import paired
from qwkit._base._missing import RAISE_OR_OMIT, NanPolicy, check_nan_policy, nan_rows
from qwkit._base._scale import MAX_DENSE_CLASSES, check_codes, measure_scale, prepare_ratings
from qwkit._base._validation import check_confusion, check_replace_undefined_by
from qwkit._base._weights import WeightsLike, check_weights, resolve
from qwkit._table import _sufficient

__all__ = ["confusion_matrix", "kappa_from_confusion", "kappa_score"]


def kappa_score(
    y1: ArrayLike,
    y2: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    replace_undefined_by: float = np.nan,
    nan_policy: NanPolicy = "raise",
) -> float:
    """Weighted kappa of two raters: quadratic (default), linear, unweighted or custom.

    Parameters
    ----------
    y1, y2 : array-like of shape (n_items,)
        Ratings of the same items by two raters (or truth and prediction). Integers,
        integral floats or bools; strings or any other values with ``labels``.
        Lists, numpy arrays and pandas or polars Series are accepted.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights; see :func:`weight_matrix`. A matrix is indexed
        ``[rating of y1, rating of y2]`` by position on the scale.
    labels : array-like of shape (K,), default=None
        The ordered rating scale; weights use positions in it. When None: the order
        an ordered pandas Categorical or polars Enum declares; else, for integer
        ratings, every integer from the smallest to the largest rating of both
        raters. Text ratings have no order of their own: they need ``labels`` unless
        ``weights="identity"`` (unweighted kappa, where the order does not matter).
    sample_weight : array-like of shape (n_items,), default=None
        Non-negative weight of each item (a survey weight: the rows are the items).
    counts : array-like of shape (n_items,), default=None
        Non-negative whole numbers: each row stands for that many identical items (a
        table in long format, one row per cell with its frequency). Exclusive with
        ``sample_weight``; the result equals that of the repeated rows, exactly.
    replace_undefined_by : float, default=nan
        Returned, with an :class:`UndefinedKappaWarning`, when kappa is 0/0.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        A missing rating (NaN, None, ``pd.NA``) is an error; or (``"omit"``) its item is
        left out (with its ``sample_weight`` or ``counts``); or (``"propagate"``) kappa is
        NaN (``docs/getting-started.md``, "Missing values").

    Returns
    -------
    float
        Kappa, between −1 and 1 for the named weights (1 is perfect agreement, 0 chance).

    Warns
    -----
    UndefinedKappaWarning
        When the chance-expected disagreement is zero (both raters constant and equal,
        or weights that give no disagreement to any pair chance could produce).
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1):
        drop those items, or pass ``labels`` (docs/kappa.md, "Missing-value codes").

    Raises
    ------
    QwkitError
        (a ``ValueError``) Mismatched lengths, empty input, NaN/inf, non-integral
        floats without ``labels``, a rating outside ``labels``, duplicate ``labels``,
        text ratings without ``labels`` under ordered weights, a bad weight matrix, bad
        ``sample_weight`` or ``counts``, or both of them.
    QwkitTypeError
        (a ``TypeError``) Mixed strings and numbers, unsupported types.

    See Also
    --------
    kappa_from_confusion : The same from a K×K table.
    soft_kappa_score : Quadratic kappa of real-valued predictions.
    KappaAccumulator : Streaming and mergeable kappa.

    Notes
    -----
    Kappa is eq. 1 of Vaughn & Justice (2015): κ = 1 − ⟨U, W⟩/⟨V, W⟩. For
    unweighted quadratic kappa on integer ratings it is computed, without any table,
    from five integer sums (eq. Q of ``docs/kappa.md``) in one pass; other weights,
    sample weights and counts count a K×K table in one pass. With integer ratings (or
    counts) and named weights the result is exact: integer sums and one correctly
    rounded division, the same value :func:`kappa_from_confusion` and
    :func:`kappa_test` return. No memory is allocated in proportion to the width of
    the scale: ratings 0 and 10¹² are fine.

    When ``labels`` is None the scale is the full integer range, which differs from
    scikit-learn's ``cohen_kappa_score`` (it uses only the observed values) when a
    middle rating never occurs; pass ``labels`` to choose.

    References
    ----------
    .. [1] J. Cohen, "Weighted kappa", Psychological Bulletin 70(4):213-220, 1968.
    .. [2] D. Vaughn and D. Justice, "On the direct maximization of quadratic weighted
       kappa", preprint (withdrawn), 2015.

    Examples
    --------
    The step-by-step example of the Kaggle reference page on quadratic weighted kappa:

    >>> import qwkit
    >>> actuals = [4, 4, 3, 4, 4, 0, 1, 1, 2, 1]
    >>> preds = [0, 4, 1, 0, 4, 0, 1, 1, 2, 1]
    >>> round(qwkit.kappa_score(actuals, preds), 6)
    0.318182

    The integer-range scale versus scikit-learn's observed-values scale:

    >>> y1, y2 = [9, 7, 8, 7, 6, 8, 3, 5, 10], [8, 8, 6, 6, 7, 6, 1, 4, 8]
    >>> round(qwkit.kappa_score(y1, y2), 6)
    0.758621
    >>> round(qwkit.kappa_score(y1, y2, labels=sorted(set(y1) | set(y2))), 4)
    0.7632
    """
    replace = check_replace_undefined_by(replace_undefined_by)
    if check_nan_policy(nan_policy) == "propagate":
        names = ("y1", "y2", "sample_weight", "counts")
        inputs = paired((y1, y2, sample_weight, counts), names)
        if nan_rows(nan_policy, inputs, names, rated=2).propagate:
            return float("nan")
        nan_policy = "raise"  # none is missing
    pair = _sufficient.prepare_pair(
        y1,
        y2,
        weights=weights,
        labels=labels,
        sample_weight=sample_weight,
        counts=counts,
        scan=False,  # the weights are checked inside the pass that reads them
        nan_policy=nan_policy,
    )
    return _sufficient.kappa(pair, replace)


def kappa_from_confusion(
    confusion: ArrayLike,
    *,
    weights: WeightsLike = "quadratic",
    replace_undefined_by: float = np.nan,
) -> float:
    """Weighted kappa from a K×K confusion matrix (rows: rater 1, columns: rater 2).

    Parameters
    ----------
    confusion : array-like of shape (K, K)
        Counts (or summed sample weights) of items rated i by rater 1 and j by rater 2.
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights; see :func:`weight_matrix`.
    replace_undefined_by : float, default=nan
        Returned, with an :class:`UndefinedKappaWarning`, when kappa is 0/0.

    Returns
    -------
    float
        Kappa (eq. 1).

    Examples
    --------
    Steele's (2016) two tables with equal error rates and different kappas:

    >>> import qwkit
    >>> o1 = [[100, 0, 0, 0], [30, 70, 0, 0], [0, 0, 70, 30], [0, 0, 0, 100]]
    >>> o2 = [[90, 10, 0, 0], [10, 80, 10, 0], [0, 10, 80, 10], [0, 0, 10, 90]]
    >>> round(qwkit.kappa_from_confusion(o1), 4), round(qwkit.kappa_from_confusion(o2), 4)
    (0.9464, 0.94)
    """
    replace = check_replace_undefined_by(replace_undefined_by)
    table = check_confusion(confusion)
    k = table.shape[0]
    wmat = resolve(check_weights(weights), k, scale=f"`confusion` of shape {table.shape}")
    return _sufficient.kappa_from_table(table, wmat, replace)


def confusion_matrix(
    y1: ArrayLike,
    y2: ArrayLike,
    *,
    labels: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    nan_policy: NanPolicy = "raise",
) -> np.ndarray:
    """K×K table of how often rater 1 gave rating i and rater 2 rating j.

    Parameters
    ----------
    y1, y2 : array-like of shape (n_items,)
        Ratings, as in :func:`kappa_score`.
    labels : array-like of shape (K,), default=None
        The ordered scale (rows and columns follow it). When None: every integer from
        the smallest to the largest rating (text: in sorted order).
    sample_weight : array-like of shape (n_items,), default=None
        Weight of each item.
    counts : array-like of shape (n_items,), default=None
        Whole numbers: how many identical items each row stands for. Exclusive with
        ``sample_weight``.
    nan_policy : {"raise", "omit"}, default="raise"
        A missing rating is an error, or (``"omit"``) its item is not counted. A table of
        counts cannot be NaN: ``"propagate"`` is refused.

    Returns
    -------
    ndarray of shape (K, K)
        int64 counts (also with ``counts``), or float64 sums of weights when
        ``sample_weight`` is given.

    Warns
    -----
    ScaleWarning
        When ``labels`` is None and the integer scale inferred from the ratings holds
        values that look like missing-value codes (99 among ratings 1..5, a lone −1):
        drop those items, or pass ``labels`` (docs/kappa.md, "Missing-value codes").

    Raises
    ------
    ValueError
        As :func:`kappa_score`; also when the integer range is wider than
        10,000 categories (pass ``labels``).

    Examples
    --------
    >>> import qwkit
    >>> qwkit.confusion_matrix([1, 2, 3, 3], [1, 3, 3, 3])
    array([[1, 0, 0],
           [0, 0, 1],
           [0, 0, 2]])
    """
    names = ("y1", "y2", "sample_weight", "counts")
    y1, y2, sample_weight, counts = paired((y1, y2, sample_weight, counts), names)
    y1, y2, sample_weight, counts = nan_rows(
        nan_policy, (y1, y2, sample_weight, counts), names, rated=2, allowed=RAISE_OR_OMIT
    ).values
    r = prepare_ratings((y1, y2), labels, ordered=False)
    iw = item_weights(sample_weight, counts, r.n_items)
    if r.n_classes is not None and r.n_classes > MAX_DENSE_CLASSES:
        raise QwkitError(
            f"`labels` has {r.n_classes} categories; a dense confusion matrix is built only "
            f"up to {MAX_DENSE_CLASSES}.",
            parameter="labels",
        )
    counted = _sufficient.scaled_table(
        r, iw.as_float(), MAX_DENSE_CLASSES, counts=iw.counts, shown=True
    )
    if counted is None:
        offset, k = measure_scale(r)
        raise QwkitError(
            f"The ratings span {k} integer categories ({offset}..{offset + k - 1}); a dense "
            f"table is built only up to {MAX_DENSE_CLASSES}. Pass `labels` with the "
            "ratings that occur.",
            parameter="labels",
        )
    check_codes(r, table=counted[0], offset=counted[1])
    return counted[0]
