# ruff: noqa: E501  (a script that prints wide tables)
"""Simulations of the scorer evaluation quoted in docs/evaluation.md.

Run from the repository root (a few minutes on an idle machine)::

    .venv/bin/python benchmarks/coverage_evaluation.py
    .venv/bin/python benchmarks/coverage_evaluation.py --reps 500 --boot-reps 100   # quicker

Ratings: each rater reads a latent standard normal score through the same cut points
(-1.4, -0.5, 0.4, 1.3) onto a 5-point scale. The latent scores of two humans correlate
rho_hh; a machine's latent score correlates rho_m with each human's. Population kappas
are computed exactly from bivariate normal cell probabilities (no Monte Carlo in the
targets), so the true degradation of every design is known:

1. Coverage: an *exchangeable* machine (rho_m = rho_hh, the same cut points) is one more
   rater like the humans: degradation 0. How often does the 95% interval cover 0?
2. Size: a machine whose population degradation is exactly -0.10 (rho_m solved for it),
   with ordinal ratings and with real-valued scores (the latent score rescaled to the
   human mean and variance). How often does the test reject H0: degradation <= -0.10
   at one-sided 5% and 2.5%? (Should be 0.05 and 0.025.)
3. PRMSE: true score = expected rating given the latent score; two ratings on a share of
   the items; machine = a linear function of the latent score plus noise. The true
   PRMSE is computed by numerical integration. Coverage of the 95% interval.
4. Sample size: the n of degradation_sample_size (from population kappas with the
   normal model, and from one pilot sample of 200 items) against the simulated power.

Seeded, each table on its own stream (a table run alone prints what the full run prints);
the Monte Carlo standard error of a coverage near 0.95 is about
sqrt(0.95 * 0.05 / reps).
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
from scipy import optimize, special, stats

import qwkit

CUTS = np.array([-1.4, -0.5, 0.4, 1.3])
K = len(CUTS) + 1


def cells(rho: float) -> np.ndarray:
    """P(rating i, rating j) of two readings of latent scores correlated rho."""
    edges = np.clip(np.r_[-np.inf, CUTS, np.inf], -10, 10)
    mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]])
    cdf = np.array([[mvn.cdf([x, y]) for y in edges] for x in edges])
    p = np.clip(np.diff(np.diff(cdf, axis=0), axis=1), 0, None)
    return p / p.sum()


def kappa_of(rho: float) -> float:
    return qwkit.kappa_from_confusion(cells(rho))


def margin_probs() -> np.ndarray:
    return np.diff(special.ndtr(np.r_[-np.inf, CUTS, np.inf]))


def rating_moments():
    p = margin_probs()
    k = np.arange(1, K + 1)
    mean = float(p @ k)
    var = float(p @ (k - mean) ** 2)
    # E[g(Z) Z] = Σ k (φ(t_{k-1}) − φ(t_k))
    dens = stats.norm.pdf(np.r_[-np.inf, CUTS, np.inf])
    c = float(np.sum(k * (dens[:-1] - dens[1:])))
    return mean, var, c


def draw(n, rho_hh, rho_m, rng, real=False):
    cov = np.array([[1, rho_hh, rho_m], [rho_hh, 1, rho_m], [rho_m, rho_m, 1]])
    z = rng.multivariate_normal(np.zeros(3), cov, size=n)
    h = np.searchsorted(CUTS, z[:, :2]) + 1.0
    if real:
        mean, var, _ = rating_moments()
        m = mean + math.sqrt(var) * z[:, 2]
    else:
        m = np.searchsorted(CUTS, z[:, 2]) + 1.0
    return h, m


def degradation_runs(n, reps, rho_hh, rho_m, rng, method, real=False, boot=999):
    out = []
    for _ in range(reps):
        h, m = draw(n, rho_hh, rho_m, rng, real)
        res = qwkit.degradation_test(h, m, method=method, n_resamples=boot, rng=rng)
        out.append((res.confidence_interval(), res.pvalue))
    return out


def coverage_table(args, rng):
    rho = 0.7
    print(
        f"## Table 1. Exchangeable machine (latent correlation {rho} among all three), "
        f"true degradation 0 (kappa {kappa_of(rho):.4f}): coverage of the 95% interval\n"
    )
    print(
        "| items | asymptotic | jackknife | bootstrap (BCa) | mean SE (asymptotic) | SD of the estimate |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        row = []
        for method, reps in (
            ("asymptotic", args.reps),
            ("jackknife", args.reps),
            ("bootstrap", args.boot_reps),
        ):
            runs = degradation_runs(n, reps, rho, rho, rng, method)
            row.append(np.mean([lo <= 0 <= hi for (lo, hi), _ in runs]))
        ests, ses = [], []
        for _ in range(args.reps):
            h, m = draw(n, rho, rho, rng)
            r = qwkit.degradation_test(h, m)
            ests.append(r.statistic)
            ses.append(r.standard_error)
        print(
            f"| {n} | {row[0]:.3f} | {row[1]:.3f} | {row[2]:.3f} | {np.mean(ses):.4f} | {np.std(ests):.4f} |"
        )
    print(
        f"\nReplications: {args.reps} (asymptotic, jackknife), {args.boot_reps} (bootstrap, "
        f"B = {args.resamples}).\n"
    )


def size_table(args, rng):
    rho_hh = 0.7
    k_hh = kappa_of(rho_hh)
    target = k_hh - 0.10
    rho_ord = optimize.brentq(lambda r: kappa_of(r) - target, 0.05, 0.99, xtol=1e-12)
    _, var, c = rating_moments()
    rho_real = target * math.sqrt(var) / c  # κ(h, m) = ρ·c/sd for the rescaled latent score
    print(
        f"## Table 2. Machine at the margin: population degradation exactly -0.10 "
        f"(human-human kappa {k_hh:.4f}; latent correlation of the machine: ordinal "
        f"{rho_ord:.4f}, real-valued {rho_real:.4f}). Rejection rate of H0: degradation <= -0.10\n"
    )
    print(
        "| items | machine | asymptotic 5% | asymptotic 2.5% | jackknife 5% | jackknife 2.5% | bootstrap 5% | bootstrap 2.5% |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        for real, rho_m in ((False, rho_ord), (True, rho_real)):
            cols = []
            for method, reps in (
                ("asymptotic", args.reps),
                ("jackknife", args.reps),
                ("bootstrap", args.boot_reps),
            ):
                p = np.array(
                    [
                        pv
                        for _, pv in degradation_runs(
                            n, reps, rho_hh, rho_m, rng, method, real, args.resamples
                        )
                    ]
                )
                cols += [np.mean(p < 0.05), np.mean(p < 0.025)]
            kind = "real-valued" if real else "ordinal"
            print(f"| {n} | {kind} | " + " | ".join(f"{x:.3f}" for x in cols) + " |")
    print()


def true_prmse(noise, slope, machine_noise):
    """Population PRMSE for ratings g(T + e), e ~ N(0, noise²), T ~ N(0, 1), and machine
    slope·T + N(0, machine_noise²) (any intercept): quadrature over T."""
    t, w = np.polynomial.hermite_e.hermegauss(201)
    w = w / w.sum()
    k = np.arange(1, K + 1)
    edges = np.r_[-np.inf, CUTS, np.inf]
    probs = np.diff(special.ndtr((edges[None, :] - t[:, None]) / noise), axis=1)
    tau = probs @ k
    var_tau = float(w @ (tau - w @ tau) ** 2)
    # best intercept is irrelevant only if the machine is centred: use the same mean
    m = slope * t
    m = m - (w @ m) + (w @ tau)
    mse = float(w @ (tau - m) ** 2) + machine_noise**2
    return 1.0 - mse / var_tau, float(w @ tau)


def _robust_sd(x) -> float:
    """1.4826 × the median absolute deviation: the SD of a normal sample, unmoved by the
    wild estimates of tiny designs."""
    x = np.asarray(x)
    return float(1.4826 * np.median(np.abs(x - np.median(x))))


def prmse_table(args, rng):
    noise, slope, mnoise = 0.8, 1.2, 0.5
    value, mean_tau = true_prmse(noise, slope, mnoise)
    print(
        f"## Table 3. PRMSE (true value {value:.4f}): coverage of the 95% interval where PRMSE "
        f"is defined, and the share of samples where it is not (ratings noise {noise}, "
        f"machine {slope}·T + N(0, {mnoise}²))\n"
    )
    print(
        "| items | double-scored | asymptotic | jackknife | undefined | median SE "
        "| robust SD of the estimate |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        for share in (0.2, 1.0):
            cov = {"asymptotic": 0, "jackknife": 0}
            ests, ses = [], []
            for _ in range(args.reps):
                t = rng.normal(size=n)
                h = np.searchsorted(CUTS, t[:, None] + rng.normal(0, noise, (n, 2))) + 1.0
                h[int(share * n) :, 1] = np.nan
                m = slope * t + mean_tau + rng.normal(0, mnoise, n)
                for method in cov:
                    r = qwkit.prmse(h, m, method=method)
                    lo, hi = r.confidence_interval()
                    cov[method] += lo <= value <= hi
                    if method == "asymptotic":
                        ests.append(r.statistic)
                        ses.append(r.standard_error)
            ests, ses = np.array(ests), np.array(ses)
            defined = np.isfinite(ests)
            k = int(defined.sum())
            print(
                f"| {n} | {int(share * n)} | {cov['asymptotic'] / k:.3f} | "
                f"{cov['jackknife'] / k:.3f} | {1 - k / args.reps:.3f} | "
                f"{np.median(ses[defined]):.4f} | {_robust_sd(ests[defined]):.4f} |"
            )
    print()


def _power(n, sample, reps):
    """Share of ``reps`` simulated studies of n items where the test rejects at 2.5%."""
    return np.mean([qwkit.degradation_test(*sample(n)).pvalue < 0.025 for _ in range(reps)])


def sample_size_table(args, rng):
    print(
        "## Table 4. Sample size for power 0.80 (one-sided 2.5%, margin 0.10) and the simulated "
        "power at that n. Pilot: the median n of 20 pilot studies of 200 items each "
        "(their range in brackets)\n"
    )
    print(
        "| scores | kappa h-h | kappa h-m | n (normal model) | power at n | n (pilots of 200) | power at the median n |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    designs = ((0.7, 0.7), (0.8, 0.75), (0.6, 0.6))
    for scores in ("normal", "5-point"):
        for rho_hh, rho_m in designs:
            if scores == "normal":  # kappa = correlation (scores on a grid of 1/50)
                cov = np.array([[1, rho_hh, rho_m], [rho_hh, 1, rho_m], [rho_m, rho_m, 1]])

                def sample(n, cov=cov):
                    z = np.rint(50 * rng.multivariate_normal(np.zeros(3), cov, size=n))
                    return z[:, :2], z[:, 2]

                k_hh, k_hm = rho_hh, rho_m
            else:

                def sample(n, rho_hh=rho_hh, rho_m=rho_m):
                    return draw(n, rho_hh, rho_m, rng)

                k_hh, k_hm = kappa_of(rho_hh), kappa_of(rho_m)
            plan = qwkit.degradation_sample_size(k_hh, k_hm)
            pilots = [
                qwkit.degradation_sample_size(
                    human=h, machine=m, expected_degradation=k_hm - k_hh
                ).n_items
                for h, m in (sample(200) for _ in range(20))
            ]
            median = int(np.median(pilots))
            print(
                f"| {scores} | {k_hh:.3f} | {k_hm:.3f} | {plan.n_items} | "
                f"{_power(plan.n_items, sample, args.reps):.3f} | {median} [{min(pilots)}, "
                f"{max(pilots)}] | {_power(median, sample, args.reps):.3f} |"
            )
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--boot-reps", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 500])
    parser.add_argument("--tables", default="1,2,3,4")
    args = parser.parse_args()
    start = time.perf_counter()
    tables = {"1": coverage_table, "2": size_table, "3": prmse_table, "4": sample_size_table}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined kappas of tiny resamples are counted as misses
        for t in args.tables.split(","):
            # each table its own stream: a table run alone prints what the full run prints
            tables[t](args, np.random.default_rng([20261121, int(t)]))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
