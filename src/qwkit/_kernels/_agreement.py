"""Kernel for agreement among many raters: Krippendorff's ratio metric applied to a
vector of category masses, Σₗ Sₗ((yₖ − yₗ)/(yₖ + yₗ))² for every k.

The ratio metric has no moment form, so this is O(V²) in the V categories; the kernel
makes it a tight loop over the upper triangle (each pair once) with no V×V temporary.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qwkit._kernels._jit import JIT as _JIT


@njit(**_JIT)
def ratio_apply(y, s):
    """out[k] = Σₗ s[l]·((y[k] − y[l])/(y[k] + y[l]))², 0/0 read as 0 (y ≥ 0)."""
    v = y.shape[0]
    out = np.zeros(v)
    for k in range(v):
        yk = y[k]
        sk = s[k]
        acc = 0.0
        for m in range(k + 1, v):
            t = yk + y[m]
            if t > 0.0:
                d = (yk - y[m]) / t
                d *= d
                acc += s[m] * d
                out[m] += sk * d
        out[k] += acc
    return out
