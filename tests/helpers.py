"""Helpers shared by the tests of the core API: oracle conversions and Hypothesis
strategies of ratings."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st


def as_float(value: Fraction | None) -> float:
    """Correctly rounded float of an exact oracle value (nan when undefined)."""
    return math.nan if value is None else float(value)


def close(actual, expected, rtol=1e-10, atol=1e-12) -> bool:
    return math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol)


def readonly(arr: np.ndarray) -> np.ndarray:
    arr = arr.copy()
    arr.flags.writeable = False
    return arr


def asymmetric_weights(k: int, rng) -> np.ndarray:
    """A custom (K, K) disagreement matrix: zero diagonal, asymmetric off-diagonal."""
    w = rng.uniform(0.1, 3.0, size=(k, k))
    np.fill_diagonal(w, 0.0)
    return w


# ---------------------------------------------------------------------------- strategies


@st.composite
def labelled_ratings(draw, *, min_k=2, max_k=6, max_n=40, weighted=None, sorted_labels=False):
    """(labels, y1, y2, sample_weight): distinct integer labels, ratings drawn from them."""
    k = draw(st.integers(min_k, max_k))
    labels = draw(st.lists(st.integers(-30, 30), min_size=k, max_size=k, unique=True))
    if sorted_labels:
        labels = sorted(labels)
    n = draw(st.integers(1, max_n))
    y1 = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    y2 = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    if weighted is None:
        weighted = draw(st.booleans())
    sw = None
    if weighted:
        sw = draw(
            st.lists(
                st.one_of(st.just(0.0), st.floats(1e-3, 10.0), st.integers(0, 5).map(float)),
                min_size=n,
                max_size=n,
            )
        )
        assume(sum(sw) > 0)
    return labels, y1, y2, sw


@st.composite
def integer_ratings(draw, *, lo=-6, hi=6, max_n=40):
    """(y1, y2) integer ratings, labels None (the integer-range scale applies)."""
    n = draw(st.integers(1, max_n))
    y1 = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    y2 = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    return y1, y2
