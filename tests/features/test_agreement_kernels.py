"""The agreement kernels and the layouts built on them, against plain Python loops.

``distinct_rows`` (each item's distinct categories and their counts), ``moment_rows``
(each item's moments and sum of squared differences over pairs), ``group_keys`` and
``collapse`` (identical items merged, in np.unique's order), and the sort-free path of
``agreement_score`` for real-valued ratings under squared differences.
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
from qwkit._agreement import _metrics as _m

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


def as_lists(codes, mult):
    return [
        [(int(c), float(k)) for c, k in zip(crow, mrow, strict=True) if c >= 0]
        for crow, mrow in zip(codes, mult, strict=True)
    ]


def check_layout(codes, out, mult):
    expected = naive_distinct(codes)
    assert as_lists(out, mult) == [[(c, float(k)) for c, k in row] for row in expected]
    width = max(1, max(len(row) for row in expected))
    assert out.shape == mult.shape == (codes.shape[0], width)
    assert out.dtype == np.intp and mult.dtype == np.float64
    empty = out < 0
    assert np.all(mult[empty] == 0) and np.all(mult[~empty] > 0)
    # empty slots only at the end of a row
    assert np.all(np.diff(empty.astype(np.int8), axis=1) >= 0)


def test_distinct_rows_missing_single_and_empty_rows():
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
    out, mult = _m.compress_rows(codes)
    check_layout(codes, out, mult)
    assert out.tolist()[1] == [-1] * out.shape[1]


def test_distinct_rows_many_raters_use_the_sort():
    rng = np.random.default_rng(20261123)
    codes = rng.integers(-1, 40, size=(30, 100)).astype(np.intp)  # > 32 ratings a row
    out, mult = _m.compress_rows(codes)
    check_layout(codes, out, mult)


def test_distinct_rows_all_missing():
    codes = np.full((3, 2), -1, dtype=np.intp)
    out, mult = _m.compress_rows(codes)
    assert out.shape == (3, 1) and np.all(out == -1) and np.all(mult == 0)


@settings(max_examples=60, deadline=None)
@given(codes_strategy)
def test_distinct_rows_property(codes):
    out, mult = _m.compress_rows(codes)
    check_layout(codes, out, mult)
    assert np.array_equal(mult.sum(axis=1), (codes >= 0).sum(axis=1))


def naive_moments(codes, mult, z):
    rows = []
    for crow, mrow in zip(codes.tolist(), mult.tolist(), strict=True):
        vals = [z[c] for c, k in zip(crow, mrow, strict=True) if c >= 0 for _ in range(int(k))]
        pairs = sum((a - b) ** 2 for i, a in enumerate(vals) for j, b in enumerate(vals) if i != j)
        rows.append([len(vals), sum(vals), sum(v * v for v in vals), pairs])
    return np.array(rows, dtype=np.float64)


@settings(max_examples=60, deadline=None)
@given(codes_strategy, st.integers(0, 2**32 - 1))
def test_moment_rows_against_pairs(codes, seed):
    z = np.random.default_rng(seed).normal(size=7)
    out, mult = _m.compress_rows(codes)
    got = _kernels.moment_rows(np.ascontiguousarray(out), np.ascontiguousarray(mult), z)
    np.testing.assert_allclose(got, naive_moments(out, mult, z), rtol=1e-12, atol=1e-12)


def test_moment_rows_centred_at_a_large_offset():
    # Σ over pairs (z_k − z_l)² from centred deviations: no cancellation at offset 1e8
    codes = np.array([[0, 1, 2], [0, -1, -1]], dtype=np.intp)
    mult = np.array([[1.0, 2.0, 1.0], [3.0, 0.0, 0.0]])
    z = 1e8 + np.array([0.0, 1.0, 3.0])
    got = _kernels.moment_rows(codes, mult, z)[:, 3]
    # ratings 0, 1, 1, 3: ordered pairs 2·(1 + 1 + 9 + 0 + 4 + 4) = 38; one value: 0
    assert got.tolist() == [38.0, 0.0]


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
@given(hnp.arrays(np.bool_, st.tuples(st.integers(1, 10), st.integers(1, 5))))
def test_scatter_codes_against_a_mask(present):
    codes = np.arange(int(present.sum()), dtype=np.intp) * 7
    out, per_item, per_rater = _kernels.scatter_codes(present, codes)
    ref = np.full(present.shape, -1, dtype=np.intp)
    ref[present] = codes  # row-major, as the kernel reads them
    assert np.array_equal(out, ref)
    assert per_item.tolist() == present.sum(axis=1).tolist()
    assert per_rater.tolist() == present.sum(axis=0).tolist()


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
