"""The agreement kernels and the sparse layouts built on them, against plain Python loops.

``group_order`` and ``distinct_in_groups`` (each group's distinct categories and their
weights), ``row_pairs`` and ``within`` under every metric, ``cross_batch``, ``_light._shared_pairs``
and ``pair_incidences``, ``duplicate_raters``, ``group_keys`` and ``collapse`` (identical
items merged, in np.unique's order), and the sort-free path of ``agreement_score`` for
real-valued ratings under squared differences.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import qwkit
from oracles.naive_agreement import naive_coefficient
from qwkit import _kernels
from qwkit._agreement import _light
from qwkit._agreement import _metrics as _m
from qwkit._agreement._light import _shared_pairs

codes_strategy = hnp.arrays(
    np.intp,
    st.tuples(st.integers(1, 12), st.integers(1, 6)),
    elements=st.integers(-1, 6),
)


def naive_distinct(codes):
    """Each row's sorted distinct codes and their counts, as lists."""
    out = []
    for row in codes.tolist():
        counter = collections.Counter(c for c in row if c >= 0)
        out.append(sorted(counter.items()))
    return out


def rows_of(codes):
    """Rows of an items × raters matrix of codes (−1 = missing), via the sparse path."""
    item, _ = np.nonzero(codes >= 0)
    rows, inverse = _m.group_rows(item, codes.shape[0], codes[codes >= 0], np.ones(item.size))
    return rows, inverse


def as_lists(rows):
    return [
        [(int(c), float(k)) for c, k in zip(rows.codes[lo:hi], rows.mult[lo:hi], strict=True)]
        for lo, hi in zip(rows.ptr[:-1], rows.ptr[1:], strict=True)
    ]


def check_layout(codes, rows, inverse):
    expected = naive_distinct(codes)
    assert as_lists(rows) == [[(c, float(k)) for c, k in row] for row in expected]
    assert rows.codes.dtype == np.intp and rows.mult.dtype == np.float64
    assert np.array_equal(rows.codes[inverse], codes[codes >= 0])
    assert np.array_equal(rows.r, (codes >= 0).sum(axis=1))


def test_distinct_in_groups_missing_single_and_empty_rows():
    codes = np.array(
        [
            [2, 0, 2, -1],  # missing rating, a repeat
            [-1, -1, -1, -1],  # an item with no rating
            [3, -1, -1, -1],  # a single rating
            [1, 1, 1, 1],  # all alike
            [3, 2, 1, 0],  # all distinct, descending
        ],
        dtype=np.intp,
    )
    rows, inverse = rows_of(codes)
    check_layout(codes, rows, inverse)
    assert rows.ptr[1] == rows.ptr[2]  # the empty item: an empty row


def test_distinct_in_groups_many_raters_use_the_sort():
    rng = np.random.default_rng(20261123)
    codes = rng.integers(-1, 40, size=(30, 100)).astype(np.intp)  # > 32 ratings a row
    check_layout(codes, *rows_of(codes))


@settings(max_examples=60, deadline=None)
@given(codes_strategy)
def test_distinct_in_groups_property(codes):
    check_layout(codes, *rows_of(codes))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.intp, st.integers(0, 80), elements=st.integers(0, 6)))
def test_group_order_is_a_stable_counting_sort(keys):
    ptr, order = _kernels.group_order(keys, 7)
    assert np.array_equal(order, np.argsort(keys, kind="stable"))
    assert np.array_equal(np.diff(ptr), np.bincount(keys, minlength=7))


def naive_pair_sums(rows, d):
    """Each row's Σ over ordered pairs of its ratings of d, and its moments."""
    out = []
    for row in as_lists(rows):
        vals = [c for c, k in row for _ in range(int(k))]
        out.append(sum(d(a, b) for i, a in enumerate(vals) for j, b in enumerate(vals) if i != j))
    return np.array(out, dtype=np.float64)


METRICS = {
    "identity": (lambda y: _m.Identity(y.size), lambda y: lambda a, b: float(a != b)),
    "linear": (
        lambda y: _m.Linear(np.sort(y)),
        lambda y: lambda a, b: abs(np.sort(y)[a] - np.sort(y)[b]),
    ),
    "squared": (lambda y: _m.Moments(y), lambda y: lambda a, b: (y[a] - y[b]) ** 2),
    "ratio": (
        lambda y: _m.Ratio(np.abs(y)),
        lambda y: lambda a, b: _m.Ratio._d(abs(y[a]), abs(y[b])),
    ),
    "matrix": (
        lambda y: _m.Matrix(np.abs(np.subtract.outer(y, y)) ** 1.5),
        lambda y: lambda a, b: abs(y[a] - y[b]) ** 1.5,
    ),
}


@settings(max_examples=40, deadline=None)
@given(codes_strategy, st.integers(0, 2**32 - 1), st.sampled_from(sorted(METRICS)))
def test_row_pairs_and_within_against_pairs(codes, seed, kind):
    y = np.random.default_rng(seed).normal(size=7)
    make, naive = METRICS[kind]
    metric, d = make(y), naive(y)
    rows, _ = rows_of(codes)
    want = naive_pair_sums(rows, d)
    np.testing.assert_allclose(_m.row_pairs(metric, rows), want, rtol=1e-12, atol=1e-12)
    at = _m.within(metric, rows)
    for e, (g, c) in enumerate(zip(rows.row, rows.codes, strict=True)):
        lo, hi = rows.ptr[g], rows.ptr[g + 1]
        ref = sum(rows.mult[f] * d(c, rows.codes[f]) for f in range(lo, hi))
        assert at[e] == pytest.approx(ref, rel=1e-12, abs=1e-12)


def test_row_moments_centred_at_a_large_offset():
    # Σ over pairs (z_k − z_l)² from centred deviations: no cancellation at offset 1e8
    rows = _m.Rows(
        np.array([0, 3, 4]), np.array([0, 1, 2, 0], dtype=np.intp), np.array([1.0, 2, 1, 3])
    )
    z = 1e8 + np.array([0.0, 1.0, 3.0])
    got = _m.Moments(z).row_moments(rows)[:, 3]
    # ratings 0, 1, 1, 3: ordered pairs 2·(1 + 1 + 9 + 0 + 4 + 4) = 38; one value: 0
    assert got.tolist() == [38.0, 0.0]


@settings(max_examples=40, deadline=None)
@given(codes_strategy, st.integers(0, 2**32 - 1), st.sampled_from(sorted(METRICS)))
def test_cross_batch_against_a_double_loop(codes, seed, kind):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=7)
    metric, d = METRICS[kind][0](y), METRICS[kind][1](y)
    a, _ = rows_of(codes)
    b, _ = rows_of(codes[:, ::-1])
    wa = rng.random((a.codes.size, 3))
    wb = rng.random((b.codes.size, 3))
    got = _kernels.cross_batch(a.ptr, a.codes, wa, b.ptr, b.codes, wb, *metric.kernel_args())
    for g in range(a.m):
        for j in range(3):
            ref = sum(
                wa[e, j] * wb[f, j] * d(a.codes[e], b.codes[f])
                for e in range(a.ptr[g], a.ptr[g + 1])
                for f in range(b.ptr[g], b.ptr[g + 1])
            )
            assert got[g, j] == pytest.approx(ref, rel=1e-12, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.bool_, st.tuples(st.integers(1, 8), st.integers(1, 6))),
    st.integers(0, 2**32 - 1),
)
def test_shared_pairs_and_incidences_are_every_two_raters_of_every_item(present, seed):
    item, rater = np.nonzero(present)
    ptr = np.zeros(present.shape[0] + 1, dtype=np.int64)
    np.cumsum(present.sum(axis=1), out=ptr[1:])
    r = present.shape[1]
    want = [
        (i, g, h)
        for i in range(present.shape[0])
        for g in range(r)
        for h in range(g + 1, r)
        if present[i, g] and present[i, h]
    ]
    # an item that stands for several (count > 1) counts twice for "two or more"
    count = np.where(np.random.default_rng(seed).random(present.shape[0]) < 0.3, 3.0, 1.0)
    entries = _m.Entries(ptr, rater.astype(np.intp), np.zeros(rater.size, np.intp), r)
    n_all, g, h = _shared_pairs(entries, count)
    with_product = _light._DENSE_RATERS  # many raters: the sparse product instead
    try:
        _light._DENSE_RATERS = 0
        assert [
            a.tolist() if hasattr(a, "tolist") else a for a in _shared_pairs(entries, count)
        ] == [
            n_all,
            g.tolist(),
            h.tolist(),
        ]
    finally:
        _light._DENSE_RATERS = with_product
    shares = {}
    for i, a, b in want:
        shares[a, b] = shares.get((a, b), 0) + (2 if count[i] > 1 else 1)
    assert n_all == len(shares)
    assert list(zip(g.tolist(), h.tolist(), strict=True)) == sorted(
        pair for pair, n in shares.items() if n >= 2
    )
    keys = np.array(sorted(a * r + b for a, b in shares), dtype=np.uint64)
    kept = keys[::2].copy()  # every other pair
    pair, first, second = _kernels.pair_incidences(ptr, rater.astype(np.intp), r, kept)
    got = [(int(item[e]), int(rater[e]), int(rater[f])) for e, f in zip(first, second, strict=True)]
    assert got == [t for t in want if t[1] * r + t[2] in set(kept.tolist())]
    assert [int(kept[p]) for p in pair] == [g * r + h for _, g, h in got]


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.intp, st.integers(0, 40), elements=st.integers(0, 3)),
    hnp.arrays(np.intp, 40, elements=st.integers(0, 4)),
)
def test_duplicate_raters_against_a_dictionary(items, raters):
    raters = raters[: items.size]
    ptr, order = _kernels.group_order(items, 4)
    for policy, name in enumerate(("raise", "first", "last")):
        keep, a, b = _kernels.duplicate_raters(ptr, raters[order], 5, policy)
        seen = {}
        for t, e in enumerate(order):
            seen.setdefault((int(items[e]), int(raters[e])), []).append(t)
        repeats = [ts for ts in seen.values() if len(ts) > 1]
        if name == "raise":
            if repeats:  # the earliest second rating, and the first one of its pair
                assert (b, a) == min((ts[1], ts[0]) for ts in repeats)
            else:
                assert (a, b) == (-1, -1)
            continue
        want = np.zeros(items.size, dtype=bool)
        for ts in seen.values():
            want[ts[0] if name == "first" else ts[-1]] = True
        assert np.array_equal(keep, want)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.int64, st.integers(0, 200), elements=st.integers(0, 30)),
    st.integers(1, 250),
)
def test_group_keys_against_unique(key, max_groups):
    weight = np.arange(1.0, key.size + 1.0)
    first, total = _m.group_keys(key, weight, max_groups)
    uniq = np.unique(key)
    if uniq.size > max_groups:
        assert first.size == 0 and total.size == 0
        return
    assert first.size == uniq.size
    # groups in order of first appearance, each starting at its first key
    firsts = [int(np.flatnonzero(key == k)[0]) for k in key[first]]
    assert first.tolist() == firsts == sorted(firsts)
    for f, t in zip(first, total, strict=True):
        assert t == weight[key == key[f]].sum()


def test_collapse_matches_unique_and_sums_counts():
    rng = np.random.default_rng(20261123)
    codes = rng.integers(-1, 3, size=(500, 3)).astype(np.intp)
    counts = rng.integers(1, 5, size=500).astype(np.float64)
    (got,), total = _m.collapse(codes, counts=counts)
    # the reference: expand every row by its count, then np.unique of mixed-radix keys
    expanded = np.repeat(codes, counts.astype(int), axis=0)
    lo = expanded.min(axis=0)
    span = expanded.max(axis=0) - lo + 1
    radix = np.concatenate([[1], np.cumprod(span[:-1])])
    key = (expanded - lo) @ radix
    _, first, ref_counts = np.unique(key, return_index=True, return_counts=True)
    assert np.array_equal(got, expanded[first])
    assert np.array_equal(total, ref_counts.astype(np.float64))


def test_collapse_of_distinct_rows():
    codes = np.arange(40, dtype=np.intp).reshape(20, 2)[::-1]  # every row distinct
    (same,), ones = _m.collapse(codes, cheap_only=True)
    assert same is codes and np.array_equal(ones, np.ones(20))
    (merged,), total = _m.collapse(codes)  # sorted, as np.unique
    assert np.array_equal(merged, codes[::-1]) and np.array_equal(total, np.ones(20))


@pytest.mark.parametrize("coefficient", ["fleiss", "krippendorff"])
def test_real_values_without_sorting_them(coefficient):
    """agreement_score reads real-valued ratings under squared differences without
    ranking the values; the value is the definition's (and agreement_test's, which
    ranks them)."""
    rng = np.random.default_rng(20261123)
    x = rng.normal(size=(40, 4)) + rng.normal(size=(40, 1))
    x[rng.random(x.shape) < 0.2] = np.nan
    x[3] = np.nan  # an item with no rating
    x[5, 1:] = np.nan  # an item with a single rating
    x[7, :2] = 1.25  # a value twice in one item
    x[8, :2] = 1.25  # and in another one
    value = qwkit.agreement_score(x, coefficient=coefficient, weights="quadratic")
    test = qwkit.agreement_test(x, coefficient=coefficient, weights="quadratic")
    assert math.isclose(value, test.statistic, rel_tol=1e-12)
    present = x[~np.isnan(x)]
    top = (present.max() - present.min()) ** 2
    scale = sorted(set(present.tolist()))
    ref = naive_coefficient(
        [[None if np.isnan(v) else v for v in row] for row in x.tolist()],
        coefficient,
        lambda a, b: (a - b) ** 2 / top,
        scale,
    )
    assert math.isclose(value, ref, rel_tol=1e-10)


def test_real_values_all_equal_still_a_single_category():
    x = np.full((5, 3), 2.5)
    with pytest.raises(ValueError, match="single category"):
        qwkit.agreement_score(x, coefficient="krippendorff", weights="quadratic")


def test_collapse_wide_rows_in_lexicographic_order():
    """Rows too wide for one int64 key come back in np.unique's order (axis=0), whether
    the first column tells them apart or not."""
    rng = np.random.default_rng(20261123)
    big = rng.permutation(10**6)[:50].reshape(25, 2).astype(np.intp) * 10**5
    tied = big.copy()
    tied[::3, 0] = tied[0, 0]  # a first value shared by rows that differ after it
    for codes in (big, np.vstack([big, big[:5], big[3:4]]), np.vstack([tied, tied[:4]])):
        wide = np.column_stack([codes, codes[:, ::-1], codes])  # span > 2**62
        (got,), total = _m.collapse(wide)
        ref, ref_counts = np.unique(wide, axis=0, return_counts=True)
        assert np.array_equal(got, ref)
        assert np.array_equal(total, ref_counts.astype(np.float64))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int64, st.integers(1, 60), elements=st.integers(0, 40)))
def test_dense_codes_against_unique(positions):
    index, codes = _kernels.dense_codes(positions, int(positions.max()) + 1)
    ref_index, ref_codes = np.unique(positions, return_inverse=True)
    assert np.array_equal(index, ref_index) and np.array_equal(codes, ref_codes)
    assert codes.dtype == np.intp


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.int64,
        st.tuples(st.integers(1, 20), st.integers(1, 4)),
        elements=st.integers(-(2**62), 2**62),
    )
)
def test_column_extremes_against_numpy(a):
    lo, hi = _kernels.column_extremes(a)
    assert np.array_equal(lo, a.min(axis=0)) and np.array_equal(hi, a.max(axis=0))


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        st.integers(1, 30),
        elements=st.one_of(
            st.integers(-(2**62), 2**62).map(float), st.floats(-1e6, 1e6, allow_nan=False)
        ),
    )
)
def test_integral_extremes_and_offsets(values):
    integral, lo, hi = _kernels.integral_extremes(values)
    assert integral == bool(np.all(values == np.floor(values)))
    assert lo == values.min() and hi == values.max()
    if integral:
        ints = values.astype(np.int64)
        ref = ints - np.int64(lo)
        assert np.array_equal(_kernels.integer_offsets(values, np.int64(lo)), ref)


def test_whole_numbered_floats_far_from_zero():
    """Float ratings that are whole numbers near ±2**62 sit on the integer scale exactly
    (the scale is the integers between them), as integer ratings do."""
    base = float(2**62)
    x = np.array([[base, base + 1024.0], [base + 2048.0, np.nan], [base, base]])
    res = qwkit.agreement_test(x, coefficient="krippendorff", weights="identity")
    assert np.array_equal(res.labels, np.arange(2**62, 2**62 + 2049))
    ref = qwkit.agreement_score(
        np.array([[0.0, 1024.0], [2048.0, np.nan], [0.0, 0.0]]),
        coefficient="krippendorff",
        weights="identity",
        labels=np.arange(2049.0),
    )
    assert math.isclose(res.statistic, ref, rel_tol=1e-12)
