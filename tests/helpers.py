"""Helpers shared by the tests of the core API: oracle conversions and Hypothesis
strategies of ratings."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

#: How closely two REML fits of the ICC with missing ratings agree when their sums differ
#: only by rounding — the items or raters in another order, a sparse table's rows
#: shuffled, the ratings in other units (3.5·x − 100). The sums then differ by about
#: N·ε ≈ 1e-14 relative (N ≈ 100 ratings, ε = 2.2e-16; the offset of the units is
#: removed by centring, to rounding). The fit ends at the zero of the analytic gradient
#: of the REML criterion, to its rounding: Newton steps until one moves θ by less than
#: ``_icc_missing.THETA_RTOL`` = 1e-13 relative, or no step lowers the gradient. The
#: gradient's rounding — ε times its terms, of the order of N — over the criterion's
#: curvature — at least the number of raters (for θᵣ) or of items (for θₛ) — moves θ by
#: about 1e-13 relative, and each ICC, a ratio of the θ whose relative sensitivity to
#: each is at most 1, as much. Measured: at most 9e-13 over 900 designs (10–40 items,
#: 3–6 raters, 10–35 % missing). Held at 1e-10, a hundred times the bound, on any BLAS.
#: (Before the Newton steps the fit stopped where L-BFGS-B's criterion was flat to
#: rounding, √ε wide: permuted ratings gave ICCs 2e-7 apart.)
REML_ORDER_RTOL = 1e-10


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
