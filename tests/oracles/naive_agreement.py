"""Slow, obviously correct oracles for agreement among many raters.

Two independent kinds:

* ``irrcac_raw``: a line-by-line transcription of R irrCAC's ``fleiss.kappa.raw``,
  ``gwet.ac1.raw``, ``krippen.alpha.raw``, ``conger.kappa.raw`` and ``bp.coeff.raw``
  (kgwet/irrCAC, R/agree.coeff3.raw.r, commit 7fb7509), dense q×q agreement weights and
  all — Gwet's variance formulas exactly as the R package computes them.
* ``naive_*``: the coefficients from their definitions, by enumerating pairs of ratings
  in Python loops with a disagreement function on the rating values (Fleiss 1971;
  Conger 1980; Light 1971; Krippendorff 2011's coincidence matrix; Gwet 2014;
  Brennan & Prediger 1981).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

__all__ = [
    "NAIVE_COEFFICIENTS",
    "agreement_weights",
    "irrcac_raw",
    "krippendorff_ordinal_delta",
    "naive_coefficient",
    "naive_jackknife",
]


#: The coefficients ``naive_coefficient`` defines (names of the registry,
#: ``qwkit._base._registry.COEFFICIENTS``, of any number of raters): the tests that
#: compare qwkit with it loop over these.
NAIVE_COEFFICIENTS = ("fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", "light")


# ---------------------------------------------------------------------------- weights


def agreement_weights(kind: str, categ) -> np.ndarray:
    """irrCAC's agreement weights (R/weights.gen.r) for numeric categories."""
    c = np.sort(np.asarray(categ, dtype=float))
    q = c.size
    lo, hi = c.min(), c.max()
    w = np.eye(q)
    for k in range(q):
        for m in range(q):
            if kind == "quadratic":
                w[k, m] = 1 - (c[k] - c[m]) ** 2 / (hi - lo) ** 2
            elif kind == "linear":
                w[k, m] = 1 - abs(c[k] - c[m]) / abs(hi - lo)
            elif kind == "ratio":
                w[k, m] = 1 - ((c[k] - c[m]) / (c[k] + c[m])) ** 2 / ((hi - lo) / (hi + lo)) ** 2
    return w


def krippendorff_ordinal_delta(values_in_order, freq):
    """Krippendorff's (2011) ordinal metric: (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)²."""
    idx = {v: i for i, v in enumerate(values_in_order)}

    def delta(a, b):
        i, j = sorted((idx[a], idx[b]))
        return (sum(freq[i : j + 1]) - (freq[i] + freq[j]) / 2) ** 2

    return delta


# ---------------------------------------------------------------------------- irrCAC


def _agree_mat(ratings, categ):
    n = ratings.shape[0]
    out = np.zeros((n, len(categ)))
    for k, c in enumerate(categ):
        out[:, k] = np.sum(ratings == c, axis=1)
    return out


def irrcac_raw(ratings, coefficient, weights, categ, n_population=math.inf):
    """(coefficient, standard error, one-sided p-value) as R irrCAC computes them.

    ``ratings``: float (n, r) with NaN for missing; ``weights``: (q, q) agreement
    weights over ``categ``.
    """
    x = np.asarray(ratings, dtype=float)
    x = x[~np.all(np.isnan(x), axis=1)]  # irrCAC: "Exclude all subjects that are not rated"
    w = np.asarray(weights, dtype=float)
    categ = list(categ)
    n, r = x.shape
    q = len(categ)
    f = n / n_population
    agree = _agree_mat(x, categ)
    agree_w = (w @ agree.T).T
    ri = agree.sum(axis=1)
    sum_q = (agree * (agree_w - 1)).sum(axis=1)
    n2more = np.sum(ri >= 2)
    big = ri >= 2
    pa = np.sum(sum_q[big] / (ri * (ri - 1))[big]) / n2more
    den = ri * (ri - 1)
    den = den - (den == 0)
    pa_ivec = sum_q / den
    if coefficient == "krippendorff":
        n0 = n
        f = n0 / n_population
        a = agree[big]
        aw = agree_w[big]
        rv = ri[big]
        rmean = rv.mean()
        n = a.shape[0]
        sum_q = (a * (aw - 1)).sum(axis=1)
        paprime = np.sum(sum_q / (rmean * (rv - 1))) / n
        epsi = 1 / rv.sum()
        pa = (1 - epsi) * paprime + epsi
        pi = (a / rmean).sum(axis=0) / n
        pe = np.sum(w * np.outer(pi, pi))
        coef = (pa - pe) / (1 - pe)
        alpha1 = (paprime - pe) / (1 - pe)
        pa_i = sum_q / (rmean * (rv - 1)) - paprime * (rv - rmean) / rmean
        k_i = (pa_i - pe) / (1 - pe)
        pi_w = (w @ pi + w.T @ pi) / 2
        pe_i = (a @ pi_w) / rmean - pe * (rv - rmean) / rmean
        x_i = k_i - 2 * (1 - alpha1) * (pe_i - pe) / (1 - pe)
        var = (1 - f) / (n * (n - 1)) * np.sum((x_i - alpha1) ** 2)
        se = math.sqrt(var)
        return coef, se, 1 - stats.t.cdf(coef / se, n0 - 1)
    pi = (agree / ri[:, None]).sum(axis=0) / n
    if coefficient == "fleiss":
        pe = np.sum(w * np.outer(pi, pi))
        coef = (pa - pe) / (1 - pe)
        pi_w = (w @ pi + w.T @ pi) / 2
        pe_i = (agree @ pi_w) / ri
    elif coefficient == "gwet":
        pe = w.sum() * np.sum(pi * (1 - pi)) / (q * (q - 1))
        coef = (pa - pe) / (1 - pe)
        pe_i = (w.sum() / (q * (q - 1))) * (agree @ (1 - pi)) / ri
    elif coefficient == "brennan-prediger":
        pe = w.sum() / q**2
        coef = (pa - pe) / (1 - pe)
        pe_i = None
    elif coefficient == "conger":
        classif = np.zeros((r, q))
        for k, c in enumerate(categ):
            classif[:, k] = np.sum(x == c, axis=0)
        ng = classif.sum(axis=1)
        pgk = classif / ng[:, None]
        pmean = pgk.sum(axis=0) / r
        s2 = (pgk.T @ pgk - r * np.outer(pmean, pmean)) / (r - 1)
        pe = np.sum(w * (np.outer(pmean, pmean) - s2 / r))
        coef = (pa - pe) / (1 - pe)
        eps = (~np.isnan(x)).astype(float)
        lam = np.zeros((n, r))
        for k in range(q):
            lam_k = np.zeros((n, r))
            for m in range(q):
                delta = (x == categ[m]).astype(float)
                lam_k += w[k, m] * (delta - (eps - ng[None, :] / n) * pgk[:, m][None, :])
            lam_k *= n / ng[None, :]
            lam += lam_k * (r * pgk[:, k].mean() - pgk[:, k][None, :])
        pe_i = lam.sum(axis=1) / (r * (r - 1))
    else:
        raise ValueError(coefficient)
    pe_r2 = pe * (ri >= 2)
    k_i = (n / n2more) * (pa_ivec - pe_r2) / (1 - pe)
    x_i = k_i if pe_i is None else k_i - 2 * (1 - coef) * (pe_i - pe) / (1 - pe)
    var = (1 - f) / (n * (n - 1)) * np.sum((x_i - coef) ** 2)
    se = math.sqrt(var)
    return coef, se, 1 - stats.t.cdf(coef / se, n - 1)


# ---------------------------------------------------------------------------- definitions


def _present(row):
    return [v for v in row if v is not None and not (isinstance(v, float) and math.isnan(v))]


def naive_coefficient(ratings, coefficient, delta, scale):
    """The coefficient from its definition, by enumerating pairs of ratings.

    ``ratings``: rows of values (None/NaN missing); ``delta(a, b)``: disagreement,
    normalized so that its largest value over ``scale`` (the list of categories) is 1.
    """
    rows = [list(r) for r in ratings]
    rows = [r for r in rows if _present(r)]
    n = len(rows)
    values = [_present(r) for r in rows]
    q = len(scale)
    if coefficient == "krippendorff":
        # coincidence matrix (Krippendorff 2011): each pairable unit adds 1/(m_u − 1)
        o = {}
        for vals in values:
            m = len(vals)
            if m < 2:
                continue
            for i, j in itertools.permutations(range(m), 2):
                key = (vals[i], vals[j])
                o[key] = o.get(key, 0.0) + 1.0 / (m - 1)
        n_c = {}
        for (c, _), val in o.items():
            n_c[c] = n_c.get(c, 0.0) + val
        total = sum(n_c.values())
        d_o = sum(val * delta(c, k) for (c, k), val in o.items())
        d_e = sum(n_c[c] * n_c[k] * delta(c, k) for c in n_c for k in n_c)
        return 1 - (total - 1) * d_o / d_e
    if coefficient == "light":
        # pairs of raters sharing two or more items whose kappa exists (docs/agreement.md §4)
        kappas = []
        r = len(rows[0])
        for g, h in itertools.combinations(range(r), 2):
            pairs = [(row[g], row[h]) for row in rows if _present([row[g]]) and _present([row[h]])]
            if len(pairs) < 2:
                continue
            obs = sum(delta(a, b) for a, b in pairs) / len(pairs)
            exp = sum(delta(a, b) for a, _ in pairs for _, b in pairs) / len(pairs) ** 2
            if exp > 1e-12:
                kappas.append(1 - obs / exp)
        return sum(kappas) / len(kappas) if kappas else math.nan
    # Fleiss family: observed agreement over the ordered pairs within items (≥ 2 ratings)
    pa_terms = []
    for vals in values:
        m = len(vals)
        if m < 2:
            continue
        agree = sum(1 - delta(vals[i], vals[j]) for i, j in itertools.permutations(range(m), 2))
        pa_terms.append(agree / (m * (m - 1)))
    pa = sum(pa_terms) / len(pa_terms)
    cats = sorted({v for vals in values for v in vals}, key=lambda v: scale.index(v))
    if coefficient in ("fleiss", "gwet"):
        pi = {c: sum(vals.count(c) / len(vals) for vals in values) / n for c in cats}
        if coefficient == "fleiss":
            pe = sum(pi[a] * pi[b] * (1 - delta(a, b)) for a in cats for b in cats)
        else:
            t_w = sum(1 - delta(a, b) for a in scale for b in scale)
            pe = t_w / (q * (q - 1)) * sum(p * (1 - p) for p in pi.values())
    elif coefficient == "brennan-prediger":
        pe = sum(1 - delta(a, b) for a in scale for b in scale) / q**2
    elif coefficient == "conger":
        r = len(rows[0])
        dists = []
        for g in range(r):
            col = [row[g] for row in rows if _present([row[g]])]
            dists.append({c: col.count(c) / len(col) for c in cats})
        pe = 0.0
        for g, h in itertools.permutations(range(r), 2):
            pe += sum(dists[g][a] * dists[h][b] * (1 - delta(a, b)) for a in cats for b in cats)
        pe /= r * (r - 1)
    else:
        raise ValueError(coefficient)
    return (pa - pe) / (1 - pe)


def naive_jackknife(fn, ratings):
    """Leave-one-item-out values of ``fn`` by literally deleting each row."""
    x = np.asarray(ratings, dtype=float)
    return np.array([fn(np.delete(x, i, axis=0)) for i in range(x.shape[0])])
