"""Slow, obviously correct references for qwkit.torch (exact rational arithmetic).

The running-estimate losses are checked against their defining formulas
(docs/torch.md, eqs. T3, T4, T6, T7) evaluated here item by item with Fractions, the
"past" state being every earlier item (momentum=None). Their *meaning* is checked
elsewhere against independent truths: finite differences (gradcheck) and the
closed-form kappa-optimal linear model.
"""

from __future__ import annotations

from fractions import Fraction

from oracles.naive import naive_weights

__all__ = [
    "naive_expected_table",
    "naive_soft_running_loss",
    "naive_weighted_running_loss",
]


def _fr(values) -> list[Fraction]:
    return [Fraction(float(v)) for v in values]


def _ones_or(w, n) -> list[Fraction]:
    return [Fraction(1)] * n if w is None else _fr(w)


def naive_expected_table(y, proba, k: int, sample_weight=None) -> list[list[Fraction]]:
    """O[i][j] = Σ over items of class i of wₙ·pₙⱼ (rows: truth)."""
    w = _ones_or(sample_weight, len(y))
    table = [[Fraction(0)] * k for _ in range(k)]
    for n, yi in enumerate(y):
        for j in range(k):
            table[int(yi)][j] += w[n] * Fraction(float(proba[n][j]))
    return table


def _soft_state(y, f, w):
    """(R, d, ȳ, v_y): 1 − κ, its chance term per unit weight, label mean and variance."""
    total = sum(w)
    y_mean = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / total
    y_var = sum(wi * (yi - y_mean) ** 2 for wi, yi in zip(w, y, strict=True)) / total
    err = sum(wi * (yi - fi) ** 2 for wi, yi, fi in zip(w, y, f, strict=True)) / total
    d = sum(wi * (fi - y_mean) ** 2 for wi, fi in zip(w, f, strict=True)) / total + y_var
    return err / d, d, y_mean, y_var


def naive_soft_running_loss(y_past, f_past, w_past, y, f, w):
    """Value and per-item gradient of SoftKappaLoss on (y, f, w) after (y_past, f_past).

    ℓ = R̂ + (n_B − R̂·d_B)/d̂ (T6);  ∂ℓ/∂fᵢ = 2wᵢ/(W_B·d̂)·[(fᵢ − yᵢ) − R̂·(fᵢ − ȳ)] (T7)
    """
    yp, fp = _fr(y_past), _fr(f_past)
    r, d_hat, y_mean, y_var = _soft_state(yp, fp, _ones_or(w_past, len(yp)))
    yb, fb, wb = _fr(y), _fr(f), _ones_or(w, len(y))
    total = sum(wb)
    n_b = sum(wi * (yi - fi) ** 2 for wi, yi, fi in zip(wb, yb, fb, strict=True)) / total
    d_b = sum(wi * (fi - y_mean) ** 2 for wi, fi in zip(wb, fb, strict=True)) / total + y_var
    value = r + (n_b - r * d_b) / d_hat
    grad = [
        2 * wi / (total * d_hat) * ((fi - yi) - r * (fi - y_mean))
        for wi, yi, fi in zip(wb, yb, fb, strict=True)
    ]
    return value, grad


def naive_weighted_running_loss(y_past, p_past, w_past, y, p, w, k, weights="quadratic"):
    """Value and gradient (w.r.t. the probabilities) of WeightedKappaLoss after a past.

    With ĥ the class shares of the past targets, R̂ and d̂ the past ratio and chance
    term: ∂ℓ/∂pᵢⱼ = wᵢ/(W_B·d̂)·[W[yᵢ][j] − R̂·(ĥᵀW)ⱼ].
    """
    wm = naive_weights(k, weights)
    past = naive_expected_table(y_past, p_past, k, w_past)
    total_p = sum(sum(row) for row in past)
    rows = [sum(row) for row in past]
    cols = [sum(past[i][j] for i in range(k)) for j in range(k)]
    n_s = sum(wm[i][j] * past[i][j] for i in range(k) for j in range(k)) / total_p
    d_s = sum(wm[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k)) / total_p**2
    r = n_s / d_s
    h = [rows[i] / total_p for i in range(k)]
    chance = [sum(h[i] * wm[i][j] for i in range(k)) for j in range(k)]
    wb = _ones_or(w, len(y))
    total = sum(wb)
    n_b = Fraction(0)
    d_b = Fraction(0)
    grad = []
    for n, yi in enumerate(y):
        pn = _fr(p[n])
        n_b += wb[n] * sum(wm[int(yi)][j] * pn[j] for j in range(k)) / total
        d_b += wb[n] * sum(chance[j] * pn[j] for j in range(k)) / total
        grad.append([wb[n] / (total * d_s) * (wm[int(yi)][j] - r * chance[j]) for j in range(k)])
    value = r + (n_b - r * d_b) / d_s
    return value, grad
