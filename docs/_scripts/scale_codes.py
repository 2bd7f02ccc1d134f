# ruff: noqa: E501  (a script that prints wide tables)
"""False-positive and detection rates of the ScaleWarning rule, quoted in docs/kappa.md
and docs/agreement.md ("Missing-value codes"). Run: python docs/_scripts/scale_codes.py

Every rate is measured end to end through the public API — ``qwkit.kappa_score`` (two
raters) and ``qwkit.agreement_score(..., coefficient="gwet")`` (three raters, the
coefficient whose chance term counts categories) — on seeded random ratings:

* legitimate data: ordinal ratings on 1..K and 0..K−1 (K = 2..11) from five families
  of distributions (uniform, unimodal, skewed up, skewed down, U-shaped), n = 5 to
  10,000, the second and third raters agreeing with the first with probability 0.6 and
  otherwise drawing from the same distribution; and wider or symmetric scales (0..20,
  0..100 in steps of 5 or 10, −2..2, −3..3, −5..5) where the rule can fire;
* the same data with a missing-value code in one rating (or 5% of them) of one rater:
  how often the warning names it.
"""

from __future__ import annotations

import warnings

import numpy as np

import qwkit

REPS = 200
NS = (5, 10, 20, 50, 100, 1000, 10_000)
FAMILIES = ("uniform", "unimodal", "skewed up", "skewed down", "U-shaped")


def probabilities(family: str, k: int) -> np.ndarray:
    x = np.arange(k, dtype=float)
    mid = (k - 1) / 2
    if family == "uniform":
        p = np.ones(k)
    elif family == "unimodal":
        p = np.exp(-0.5 * ((x - mid) / max(k / 5, 0.5)) ** 2)
    elif family == "skewed up":
        p = 0.6 ** (k - 1 - x)
    elif family == "skewed down":
        p = 0.6**x
    else:
        p = 0.3 + np.abs(x - mid) ** 2
    return p / p.sum()


def ratings(rng, values: np.ndarray, p: np.ndarray, n: int, raters: int) -> np.ndarray:
    first = rng.choice(values, size=n, p=p)
    out = [first]
    for _ in range(raters - 1):
        other = rng.choice(values, size=n, p=p)
        out.append(np.where(rng.random(n) < 0.6, first, other))
    return np.stack(out, axis=1)


def warned(fn, *args, **kwargs) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", qwkit.UndefinedKappaWarning)
        try:
            fn(*args, **kwargs)
        except qwkit.QwkitError:  # e.g. a single category at n = 5: no warning either
            pass
    return any(issubclass(c.category, qwkit.ScaleWarning) for c in caught)


def rates(rng, values, p, n, reps=REPS, code=None, share=None):
    """(share of kappa_score calls that warn, share of gwet calls that warn)."""
    k2 = k3 = 0
    for _ in range(reps):
        x = ratings(rng, values, p, n, 3)
        if code is not None:
            m = max(1, round(share * n)) if share else 1
            rows = rng.choice(n, size=m, replace=False)
            x[rows, 1] = rng.choice(np.atleast_1d(code), size=m)
        k2 += warned(qwkit.kappa_score, x[:, 0], x[:, 1])
        k3 += warned(qwkit.agreement_score, x, coefficient="gwet")
    return k2 / reps, k3 / reps


def legitimate():
    rng = np.random.default_rng(20261810)
    print("Legitimate ordinal data, 1..K and 0..K-1, K = 2..11: share of calls that warn")
    print(f"{'scale':>8} {'n':>6} " + " ".join(f"{f:>22}" for f in FAMILIES))
    worst = (0.0, 0.0)
    total = 0
    for start in (1, 0):
        for k in range(2, 12):
            values = np.arange(start, start + k)
            for n in NS:
                cells = []
                for family in FAMILIES:
                    reps = REPS if n <= 1000 else REPS // 10
                    r2, r3 = rates(rng, values, probabilities(family, k), n, reps)
                    worst = (max(worst[0], r2), max(worst[1], r3))
                    total += 2 * reps
                    cells.append(f"{r2:>10.3f} / {r3:>9.3f}")
                if n in (5, 10_000) and k in (2, 5, 11):
                    print(f"{start}..{start + k - 1:<4} {n:>6} " + " ".join(cells))
    print(
        f"largest share over all {total:,} calls (kappa_score / gwet): {worst[0]:.3f} / {worst[1]:.3f}"
    )


def wider():
    rng = np.random.default_rng(20261811)
    print("\nWider and symmetric scales (where the rule can fire): share of calls that warn")
    scales = {
        "0..20": np.arange(0, 21),
        "0..100 by 10": np.arange(0, 101, 10),
        "0..100 by 5": np.arange(0, 101, 5),
        "-2..2": np.arange(-2, 3),
        "-3..3": np.arange(-3, 4),
        "-5..5": np.arange(-5, 6),
    }
    print(f"{'scale':>13} {'n':>6} " + " ".join(f"{f:>22}" for f in FAMILIES))
    for name, values in scales.items():
        for n in (5, 20, 100, 1000):
            cells = []
            for family in FAMILIES:
                r2, r3 = rates(rng, values, probabilities(family, values.size), n)
                cells.append(f"{r2:>10.3f} / {r3:>9.3f}")
            print(f"{name:>13} {n:>6} " + " ".join(cells))


def detection():
    rng = np.random.default_rng(20261812)
    print("\nDetection: a code in one rating of rater 2 (kappa_score / gwet warn), unimodal data")
    codes = {
        "99": 99,
        "999": 999,
        "9": 9,
        "-1": -1,
        "-9": -9,
        "-99": -99,
        "98 & 99": [98, 99],
        "-1 & -2": [-1, -2],
    }
    scales = {
        "1..5": np.arange(1, 6),
        "0..4": np.arange(0, 5),
        "1..7": np.arange(1, 8),
        "0..10": np.arange(0, 11),
    }
    for share, label in ((None, "one rating"), (0.05, "5% of ratings")):
        print(f"-- {label}")
        print(f"{'scale':>6} {'n':>6} " + " ".join(f"{c:>12}" for c in codes))
        for sname, values in scales.items():
            p = probabilities("unimodal", values.size)
            for n in (5, 20, 100, 1000):
                if share and n < 20:
                    continue
                cells = []
                for code in codes.values():
                    r2, r3 = rates(rng, values, p, n, 100, code=code, share=share)
                    cells.append(f"{r2:>5.2f}/{r3:<5.2f}")
                print(f"{sname:>6} {n:>6} " + " ".join(f"{c:>12}" for c in cells))


if __name__ == "__main__":
    legitimate()
    wider()
    detection()
