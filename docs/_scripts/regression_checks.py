# ruff: noqa: E501  (a script that prints wide tables)
"""Numeric checks quoted in docs/regression.md (run: python docs/_scripts/regression_checks.py).

Every number in the tables of docs/regression.md is printed by this script. The data are
synthetic (seeded) so that the output is reproducible.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize as so

import qwkit


def soft_kappa(y, f):
    return qwkit.soft_kappa_score(y, f)


def make_data(n=300, d=5):
    rng = np.random.default_rng(20261121)
    X = rng.standard_normal((n, d)) + rng.normal(2.0, 1.0, d)
    y = np.clip(np.round(X @ rng.standard_normal(d) * 0.5 + 2 + rng.standard_normal(n)), 0, 6)
    return X, y


def numerical_max(X, y, fit_intercept=True, starts=5):
    """BFGS on −κ over (b, β) from several starts (finite-difference gradient)."""
    rng = np.random.default_rng(1)

    def neg(p):
        return -soft_kappa(y, (p[0] if fit_intercept else 0.0) + X @ p[1:])

    best = None
    for _ in range(starts):
        x0 = np.r_[y.mean(), rng.normal(0, 0.3, X.shape[1])]
        if neg(x0) > 0:
            x0[1:] *= -1
        r = so.minimize(neg, x0, method="BFGS", options={"gtol": 1e-10})
        if best is None or r.fun < best.fun:
            best = r
    return -best.fun


def main():
    X, y = make_data()
    n, d = X.shape
    xc, yc = X - X.mean(0), y - y.mean()
    print("## Table 1: the unregularized optimum (intercept model), n=300, d=5")
    res = qwkit.kappa_regression(X, y)
    beta = np.linalg.lstsq(xc, yc, rcond=None)[0]
    yhat = xc @ beta
    k8 = np.linalg.norm(yhat) / np.linalg.norm(yc)
    print(f"least squares, soft kappa                 {res.least_squares_statistic:.12f}")
    print(f"kappa_regression statistic               {res.statistic:.12f}")
    print(f"eq. 8  ||yhat_ls - ybar|| / ||y - ybar|| {k8:.12f}")
    print(f"scipy BFGS maximum (5 starts)            {numerical_max(X, y):.12f}")
    print(f"eq. 14 corr(y, yhat_kappa)               {np.corrcoef(y, res.predict(X))[0, 1]:.12f}")
    yk = res.predict(X) - y.mean()
    print(
        f"paper's last line of eq. 14, ||yhat_k||/||y|| (centered) = {np.linalg.norm(yk) / np.linalg.norm(yc):.12f}"
    )

    print("\n## Table 2: centering and the intercept (Vaughn & Justice §1.2)")
    f = res.predict(X)
    print(f"kappa(y, f)                    {soft_kappa(y, f):.6f}")
    print(f"kappa(y - ybar, f)             {soft_kappa(yc, f):.6f}   (y shifted alone)")
    print(f"kappa(y - ybar, f - ybar)      {soft_kappa(yc, f - y.mean()):.6f}   (both shifted)")
    # eq. 9 applied literally to uncentered data without an intercept column
    b_raw = np.linalg.lstsq(X, y, rcond=None)[0]
    k_raw = np.linalg.norm(X @ b_raw) / np.linalg.norm(y)
    f9 = X @ (b_raw / k_raw)
    no_int = qwkit.kappa_regression(X, y, fit_intercept=False)
    print(
        f"eq. 9 on raw X, y (no intercept): eq. 8 value {k_raw:.6f}, true soft kappa {soft_kappa(y, f9):.6f}"
    )
    print(
        f"exact no-intercept optimum (R8-R9)            {no_int.statistic:.6f}"
        f"   scipy: {numerical_max(X, y, fit_intercept=False):.6f}"
    )
    print(f"intercept model optimum                       {res.statistic:.6f}")

    print("\n## Table 3: the ridge form (eqs. 10-13); sigma is the ridge penalty")
    print(
        "sigma | eq. 12 | kappa of eq. 13 predictor | corr = kappa_regression | scipy max on the ray "
        "| mu = k*sigma/gamma | max of kappa - mu*||a||^2: paper point / numerical"
    )
    for sigma in (1.0, 30.0, 300.0, 3000.0):
        a_rr = np.linalg.solve(xc.T @ xc + sigma * np.eye(d), xc.T @ yc)
        g = xc @ a_rr
        eq12 = np.sqrt((2 * yc @ g - g @ g) / (yc @ yc))
        a13 = a_rr / eq12
        k13 = soft_kappa(y, y.mean() + xc @ a13)
        ours = qwkit.kappa_regression(X, y, alpha=sigma)
        ray = so.minimize_scalar(
            lambda c, g=g: -soft_kappa(y, y.mean() + c * g),
            bounds=(1e-3, 1e4),
            method="bounded",
            options={"xatol": 1e-10},
        )
        gamma = yc @ yc + np.sum((xc @ a13) ** 2)
        mu = eq12 * sigma / gamma

        def pen(a, mu=mu):
            return -(soft_kappa(yc, xc @ a) - mu * a @ a)

        rng = np.random.default_rng(2)
        best = min(
            (
                so.minimize(
                    pen,
                    rng.normal(0, 1, d) * np.abs(a13).max(),
                    method="BFGS",
                    options={"gtol": 1e-10},
                )
                for _ in range(8)
            ),
            key=lambda r: r.fun,
        )
        print(
            f"{sigma:6g} | {eq12:.6f} | {k13:.6f} | {ours.statistic:.6f} | {-ray.fun:.6f} | "
            f"{mu:.3e} | {-pen(a13):.8f} / {-best.fun:.8f} "
            f"(|a - a13|/|a13| = {np.linalg.norm(best.x - a13) / np.linalg.norm(a13):.2e})"
        )

    print("\n## Table 4: quasiconcavity needs kappa > 0 (appendix)")
    u = -3.0 * res.coef
    v = np.zeros(d)

    def kap(a):
        return soft_kappa(yc, xc @ a)

    print(
        f"kappa(u) = {kap(u):.6f}, kappa(v) = {kap(v):.6f}, kappa((u+v)/2) = {kap(0.5 * (u + v)):.6f}"
    )
    rng = np.random.default_rng(3)
    worst, trials = np.inf, 0
    while trials < 10000:
        a, b = rng.normal(0, 1, d), rng.normal(0, 1, d)
        if min(kap(a), kap(b)) <= 0:
            continue
        trials += 1
        t = rng.uniform()
        worst = min(worst, kap(t * a + (1 - t) * b) - min(kap(a), kap(b)))
    print(
        f"10000 random pairs with kappa > 0: min of kappa(mid) - min(kappa(u), kappa(v)) = {worst:.3e}"
    )

    print("\n## Table 5: kappa_rescale on least-squares scores (wine-like check of R3)")
    s = xc @ beta + 0.5 * np.random.default_rng(4).standard_normal(n)
    r = qwkit.kappa_rescale(y, s)
    print(
        f"corr(y, s) = {np.corrcoef(y, s)[0, 1]:.12f}, kappa_rescale statistic = {r.statistic:.12f}, "
        f"soft kappa of s itself = {soft_kappa(y, s):.6f}"
    )


if __name__ == "__main__":
    main()
