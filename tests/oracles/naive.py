"""Slow, obviously correct oracles for weighted kappa (stumpy's ``tests/naive.py`` style).

Nothing here is clever or fast: plain Python loops over items and cells, exact
``fractions.Fraction`` arithmetic where it costs nothing to be exact. Every test of the
core API compares the library against these.

Sources: "the QWK notebook" is a public notebook, "Quadratic Weighted Kappa", that
computes QWK with a double loop over the cells of the table and checks it against
scikit-learn (-0.09756…); Vaughn & Justice, "On the direct maximization of quadratic
weighted kappa" (preprint, 2015, withdrawn by its author), §1.2 for the alternate form.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = [
    "exact_quadratic_kappa",
    "integer_scale",
    "naive_confusion",
    "naive_kappa",
    "naive_kappa_from_confusion",
    "naive_kappa_on_values",
    "naive_soft_kappa",
    "naive_weights",
]


def _py(value):
    """numpy scalar → Python scalar (bools become ints: False < True on one scale)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        value = int(value)
    return value


def _exact(value) -> Fraction:
    """Python int, Fraction or float (read exactly, every float is a rational)."""
    value = _py(value)
    return Fraction(value) if isinstance(value, (int, Fraction)) else Fraction(float(value))


def integer_scale(y1, y2) -> list[int]:
    """The scale rule (docs/kappa.md §2): every integer from the smallest to the largest rating."""
    values = [int(_py(v)) for v in list(y1) + list(y2)]
    return list(range(min(values), max(values) + 1))


def naive_weights(n_classes: int, weights="quadratic") -> list[list[Fraction]]:
    """K×K disagreement weights, cell by cell (the QWK notebook's wᵢⱼ = (i − j)² / (K − 1)²)."""
    k = n_classes
    if weights is not None and not isinstance(weights, str):
        return [[_exact(weights[i][j]) for j in range(k)] for i in range(k)]
    scale = 1 if k == 1 else k - 1
    out = []
    for i in range(k):
        row = []
        for j in range(k):
            if weights == "quadratic":
                row.append(Fraction((i - j) ** 2, scale**2))
            elif weights == "linear":
                row.append(Fraction(abs(i - j), scale))
            elif weights in ("identity", None):
                row.append(Fraction(int(i != j)))
            else:
                raise ValueError(weights)
        out.append(row)
    return out


def naive_confusion(y1, y2, labels, sample_weight=None) -> list[list[Fraction]]:
    """Count item by item: cell [position of y1ₖ in labels, position of y2ₖ in labels]."""
    labels = [_py(v) for v in labels]
    k = len(labels)
    table = [[Fraction(0) for _ in range(k)] for _ in range(k)]
    for idx, (a, b) in enumerate(zip(list(y1), list(y2), strict=True)):
        w = Fraction(1) if sample_weight is None else _exact(sample_weight[idx])
        table[labels.index(_py(a))][labels.index(_py(b))] += w
    return table


def naive_kappa_from_confusion(c_matrix, weights="quadratic"):
    """The QWK notebook's double loop, for any weights; returns a Fraction, or None when 0/0.

    numer += wᵢⱼ·oᵢⱼ;  denom += wᵢⱼ·(row i sum)·(column j sum)/total   (QWK notebook, In [2])
    """
    k = len(c_matrix)
    c = [[_exact(c_matrix[i][j]) for j in range(k)] for i in range(k)]
    w = naive_weights(k, weights)
    total = sum(sum(row) for row in c)
    row_sums = [sum(c[i]) for i in range(k)]
    col_sums = [sum(c[r][j] for r in range(k)) for j in range(k)]
    numer = Fraction(0)
    denom = Fraction(0)
    for i in range(k):
        for j in range(k):
            oij = c[i][j]
            eij = row_sums[i] * col_sums[j] / total
            numer += w[i][j] * oij
            denom += w[i][j] * eij
    if denom == 0:
        return None
    return 1 - numer / denom


def naive_kappa(y1, y2, *, weights="quadratic", labels=None, sample_weight=None):
    """Kappa of two rating vectors: the scale rule, the naive table, the double loop."""
    if labels is None:
        labels = integer_scale(y1, y2)
    table = naive_confusion(y1, y2, labels, sample_weight)
    return naive_kappa_from_confusion(table, weights)


def naive_kappa_on_values(y1, y2, *, weights="quadratic", sample_weight=None):
    """Kappa on the integer-range scale, computed over the distinct values only.

    On the scale lo..hi the named weights of two ratings x, y are proportional to
    (x − y)², |x − y| or [x ≠ y], and kappa does not change when W is scaled, so the
    table over the distinct values with those weights gives the same kappa without
    ever listing the (possibly 10¹²) categories in between.
    """
    values = sorted({int(_py(v)) for v in list(y1) + list(y2)})
    if weights == "quadratic":
        wmat = [[(x - y) ** 2 for y in values] for x in values]
    elif weights == "linear":
        wmat = [[abs(x - y) for y in values] for x in values]
    elif weights in ("identity", None):
        wmat = [[int(x != y) for y in values] for x in values]
    else:
        raise ValueError(weights)
    a = [int(_py(v)) for v in y1]
    b = [int(_py(v)) for v in y2]
    table = naive_confusion(a, b, values, sample_weight)
    return naive_kappa_from_confusion(table, wmat)


def exact_quadratic_kappa(y1, y2) -> Fraction | None:
    """Quadratic kappa from the five sums of Vaughn & Justice §1.2, in Python integers.

    κ = 2·(n·Σab − Σa·Σb) / (n·(Σa² + Σb²) − 2·Σa·Σb) — exact for any integer data.
    """
    a = [int(_py(v)) for v in y1]
    b = [int(_py(v)) for v in y2]
    n = len(a)
    sa, sb = sum(a), sum(b)
    saa = sum(x * x for x in a)
    sbb = sum(x * x for x in b)
    sab = sum(x * y for x, y in zip(a, b, strict=True))
    den = n * (saa + sbb) - 2 * sa * sb
    if den == 0:
        return None
    return Fraction(2 * (n * sab - sa * sb), den)


def naive_soft_kappa(y_true, y_score, sample_weight=None) -> Fraction | None:
    """Vaughn & Justice §1.2, alternate form, in exact rational arithmetic (floats read exactly).

    κ = 1 − Σw(y − f)² / (Σwy² + Σwf² − 2·Σwy·Σwf / Σw)
    """
    y = [Fraction(float(_py(v))) for v in y_true]
    f = [Fraction(float(_py(v))) for v in y_score]
    if sample_weight is None:
        w = [Fraction(1)] * len(y)
    else:
        w = [Fraction(float(_py(v))) for v in sample_weight]
    sw = sum(w)
    sy = sum(wi * yi for wi, yi in zip(w, y, strict=True))
    sf = sum(wi * fi for wi, fi in zip(w, f, strict=True))
    syy = sum(wi * yi * yi for wi, yi in zip(w, y, strict=True))
    sff = sum(wi * fi * fi for wi, fi in zip(w, f, strict=True))
    err = sum(wi * (yi - fi) ** 2 for wi, yi, fi in zip(w, y, f, strict=True))
    den = syy + sff - 2 * sy * sf / sw
    if den == 0:
        return None
    return 1 - err / den
