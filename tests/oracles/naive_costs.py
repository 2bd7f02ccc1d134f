"""Slow, obviously correct oracles for the cost models of Steele (2016)
(tests/features/test_costs.py).

Plain Python loops over cells, the insurance rule written out as the note states it,
and numerical integration (scipy.integrate.quad) of the normal density for §4.3.
"""

from __future__ import annotations

import itertools

from scipy import integrate, stats

__all__ = [
    "naive_expected_cost",
    "naive_insurance_profit",
    "naive_risk_cost",
]


def naive_expected_cost(table, cost):
    """Σ table·cost / Σ table, cell by cell."""
    k = len(table)
    total = 0.0
    count = 0.0
    for i in range(k):
        for j in range(k):
            total += table[i][j] * cost[i][j]
            count += table[i][j]
    return total / count


def naive_insurance_profit(true_class, rated_class, price, unit_cost, tolerance):
    """Profit of the insurer (classes numbered from 1), Steele's §4.2 in words.

    The customer is quoted price·rated_class. They buy if it is below what they are
    willing to pay, price·true_class + tolerance; then the insurer earns the premium and
    pays the expected claims unit_cost·true_class. Otherwise nothing happens.
    """
    premium = price * rated_class
    willing_to_pay = price * true_class + tolerance
    if premium < willing_to_pay:
        return premium - unit_cost * true_class
    return 0.0


def naive_risk_cost(n_classes, i, j, mean=0.0, sd=1.0, loss="absolute"):
    """(E[loss(R, m_j) | R in class i], m_j) for R ~ N(mean, sd²) in K equal-mass classes."""
    dist = stats.norm(mean, sd)
    lo = dist.ppf(i / n_classes)
    hi = dist.ppf((i + 1) / n_classes)
    lo_j = dist.ppf(j / n_classes)
    hi_j = dist.ppf((j + 1) / n_classes)
    mass_j = 1.0 / n_classes
    m_j = integrate.quad(lambda r: r * dist.pdf(r), lo_j, hi_j)[0] / mass_j
    if loss == "absolute":

        def f(r):
            return abs(r - m_j) * dist.pdf(r)
    else:

        def f(r):
            return (r - m_j) ** 2 * dist.pdf(r)

    pieces = [lo, hi] if not (lo < m_j < hi) else [lo, m_j, hi]
    total = sum(integrate.quad(f, a, b)[0] for a, b in itertools.pairwise(pieces))
    return total / (1.0 / n_classes), m_j
