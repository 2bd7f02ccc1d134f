# ruff: noqa: E501  (a script that prints wide tables)
"""Simulations of the scorer evaluation's intervals and tests at the sample sizes users
have, quoted in docs/evaluation.md §3 ("Small samples").

Run from the repository root (about an hour on an idle 2-core machine; ``--reps 200`` for a
quick look)::

    .venv/bin/python benchmarks/coverage_evaluation.py --processes 2

The model: every item has a true score T ~ N(0, 1). Each human reads T + e, e ~ N(0, σ_e²)
independent per rating, through the cut points of a K-point scale (K = 4, 5, 7, 10), so two
humans' latent readings correlate ρ_hh = 1/(1 + σ_e²); the machine reads b·T + u. Its
rating is either the same cut of its standardized reading (an ordinal machine) or that
reading rescaled to the human mean and SD (a real-valued machine; untrimmed, so that its
population values stay exact). Every population value is exact — kappas from bivariate
normal cell probabilities, the real-valued machine's kappa from normal moments, PRMSE by
Gauss–Hermite quadrature over T — and the machine is set so that its **degradation is
exactly −0.10** (the non-inferiority margin): every "pass" of the degradation test is then a
false pass, whose rate must stay at or below the one-sided level 2.5 %.

Designs: 20, 30 and 50 double-scored items, with 10 %, 20 % or 100 % of the items
double-scored (so 200–500, 100–250 or 20–50 items in all), and human–human latent
correlation 0.6 or 0.8. For each design and each default interval of the evaluation
(``method="jackknife"``): the coverage of the 95 % interval of the degradation, QWK and
Pearson's r with the reference human, the SMD (pooled and human SD; the machine carries a
bias of 0.1 SD) and PRMSE, and the rate at which the degradation test passes the machine at
−margin. Monte Carlo SE: about 0.007 for a coverage near 0.95 and 0.005 for a rate near
0.025 at 1,000 replications.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy import optimize, special, stats

import qwkit
from qwkit._evaluation._design import prepare_inputs
from qwkit._evaluation._panel import kappa_sums
from qwkit._evaluation._statistics import Context, pearson_sums

SCALES = (4, 5, 7, 10)
SHARES = (0.10, 0.20, 1.00)
DOUBLES = (20, 30, 50)
RHO_HH = (0.6, 0.8)
BIAS = 0.1  # the machine's shift, in SDs of its reading: a non-zero SMD to cover


def cuts_for(k: int) -> np.ndarray:
    """Cut points of a k-point scale on the standard normal: category shares rising
    linearly from 1 to 2 (skewed, as real ratings are)."""
    p = np.linspace(1.0, 2.0, k)
    return stats.norm.ppf(np.cumsum(p / p.sum())[:-1])


def cells(rho: float, cuts: np.ndarray) -> np.ndarray:
    edges = np.clip(np.r_[-np.inf, cuts, np.inf], -10, 10)
    mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]])
    cdf = np.array([[mvn.cdf([x, y]) for y in edges] for x in edges])
    p = np.clip(np.diff(np.diff(cdf, axis=0), axis=1), 0, None)
    return p / p.sum()


def moments(cuts: np.ndarray):
    """(mean, SD, E[h·Z]) of a rating h = cut(Z) + 1 of a standard normal Z."""
    p = np.diff(special.ndtr(np.r_[-np.inf, cuts, np.inf]))
    k = np.arange(1, cuts.size + 2)
    mean = float(p @ k)
    sd = math.sqrt(float(p @ (k - mean) ** 2))
    dens = stats.norm.pdf(np.r_[-np.inf, cuts, np.inf])
    return mean, sd, float(np.sum(k * (dens[:-1] - dens[1:])))


class Design:
    """One simulated design with its exact population values."""

    def __init__(self, k: int, rho_hh: float, real: bool):
        self.k, self.rho_hh, self.real = k, rho_hh, real
        self.cuts = cuts_for(k)
        self.sigma_e = math.sqrt(1.0 / rho_hh - 1.0)
        tab = cells(rho_hh, self.cuts)
        self.kappa_hh = qwkit.kappa_from_confusion(tab)
        target = self.kappa_hh - 0.10
        self.mean_h, self.sd_h, c = moments(self.cuts)
        if real:  # κ(h, m) = ρ_m·E[h·Z]/σ_h for m = μ_h + σ_h·Z_m (normal moments)
            self.rho_m = target * self.sd_h / c
        else:
            self.rho_m = optimize.brentq(
                lambda r: qwkit.kappa_from_confusion(cells(r, self.cuts)) - target,
                0.02, 0.999, xtol=1e-12,
            )  # fmt: skip
        # the machine's reading b·T + u with Var = 1 + σ_e² (a human reading's) and
        # corr(T + e, b·T + u) = b / (1 + σ_e²) = ρ_m
        sd_l = math.sqrt(1.0 + self.sigma_e**2)
        self.b = self.rho_m * sd_l**2
        self.sigma_u = math.sqrt(max(sd_l**2 - self.b**2, 1e-12))
        self.truth = self._population()

    def _population(self) -> dict:
        """Population kappa, r, SMDs and PRMSE of the reference human and the machine."""
        k, cuts = self.k, self.cuts
        sd_l = math.sqrt(1.0 + self.sigma_e**2)
        t, w = np.polynomial.hermite_e.hermegauss(161)
        w = w / w.sum()
        edges = np.r_[-np.inf, cuts, np.inf] * sd_l
        ph = np.diff(special.ndtr((edges[None, :] - t[:, None]) / self.sigma_e), axis=1)
        scores = np.arange(1, k + 1)
        tau = ph @ scores  # E[h | T]
        var_tau = float(w @ (tau - w @ tau) ** 2)
        mean_h, sd_h = self.mean_h, self.sd_h
        if self.real:
            # m = μ_h + σ_h·(Z_m + BIAS), Z_m the standardized reading
            mean_m, sd_m = mean_h + sd_h * BIAS, sd_h
            cond_mean = mean_m + sd_h * (self.b * t) / sd_l  # E[m | T]
            cond_var = (sd_h * self.sigma_u / sd_l) ** 2
            mse = float(w @ ((tau - cond_mean) ** 2 + cond_var))
            cov = self.rho_m * moments(cuts)[2] * sd_h  # Cov(h, m)
            kappa = 2 * cov / (sd_h**2 + sd_m**2 + (mean_m - mean_h) ** 2)
            r = cov / (sd_h * sd_m)
        else:
            pm = np.diff(special.ndtr((edges[None, :] - self.b * t[:, None]
                                       - BIAS * sd_l) / self.sigma_u), axis=1)  # fmt: skip
            mean_m = float(w @ (pm @ scores))
            ex2 = float(w @ (pm @ scores**2))
            sd_m = math.sqrt(ex2 - mean_m**2)
            joint = np.einsum("t,ti,tj->ij", w, ph, pm)  # P(h = i, m = j)
            cov = float(scores @ joint @ scores) - mean_h * mean_m
            kappa = qwkit.kappa_from_confusion(joint)
            r = cov / (sd_h * sd_m)
            mse = float(w @ (pm @ scores**2 - 2 * tau * (pm @ scores) + tau**2))
        return {
            "kappa": kappa,
            "r": r,
            "smd_pooled": (mean_m - mean_h) / math.sqrt((sd_h**2 + sd_m**2) / 2),
            "smd_unpooled": (mean_m - mean_h) / sd_h,
            "prmse": 1.0 - mse / var_tau,
        }

    def draw(self, n: int, n_double: int, rng, *, bias: bool):
        sd_l = math.sqrt(1.0 + self.sigma_e**2)
        t = rng.normal(size=n)
        latent = t[:, None] + rng.normal(0, self.sigma_e, (n, 2))
        h = np.searchsorted(self.cuts * sd_l, latent) + 1.0
        h[n_double:, 1] = np.nan
        reading = self.b * t + rng.normal(0, self.sigma_u, n) + (BIAS * sd_l if bias else 0.0)
        if self.real:
            m = self.mean_h + self.sd_h * reading / sd_l
        else:
            m = np.searchsorted(self.cuts * sd_l, reading) + 1.0
        return h, m


def _kappa_and_r(h, m):
    """QWK and Pearson's r with the reference human, as evaluate_scorer infers them."""
    inputs = prepare_inputs(h, m, trim=False)
    s = inputs.scores
    ctx = Context(0.95, "jackknife", 0, np.random.default_rng(0))
    rows = np.flatnonzero(~np.isnan(s.human[:, 0]))
    kappa = ctx.estimate(kappa_sums(s.machine[rows, 0], s.human[rows, 0], s.wmat), rows,
                         "kappa", fisher=True, upper_bound=1.0)[0]  # fmt: skip
    r = ctx.estimate(pearson_sums(s.human_values[rows, 0], s.machine_values[rows, 0]), rows,
                     "r", fisher=True, lower_bound=-1.0, upper_bound=1.0)[0]  # fmt: skip
    return kappa, r


def run_cell(args):
    k, rho_hh, real, share, n_double, reps, seed = args
    design = Design(k, rho_hh, real)
    n = round(n_double / share)
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(("degradation", "kappa", "r", "smd_pooled", "smd_unpooled", "prmse"), 0)
    passes = 0
    defined = dict.fromkeys(hits, 0)
    truth = design.truth
    for _ in range(reps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an undefined statistic of a tiny sample: a miss
            h, m = design.draw(n, n_double, rng, bias=False)
            deg = qwkit.degradation_test(h, m, trim=False)
            low, high = deg.confidence_interval()
            if math.isfinite(low):
                defined["degradation"] += 1
                hits["degradation"] += low <= -0.10 <= high
                passes += low > -0.10  # the verdict's test, whatever the fewest-units rule
            h, m = design.draw(n, n_double, rng, bias=True)
            kappa, r = _kappa_and_r(h, m)
            for name, e in (("kappa", kappa), ("r", r)):
                if math.isfinite(e.low):
                    defined[name] += 1
                    hits[name] += e.low <= truth[name] <= e.high
            for name in ("smd_pooled", "smd_unpooled"):
                res = qwkit.standardized_mean_difference(h, m, smd=name.split("_")[1], trim=False)
                lo, hi = res.confidence_interval()
                if math.isfinite(lo):
                    defined[name] += 1
                    hits[name] += lo <= truth[name] <= hi
            p = qwkit.prmse(h, m, trim=False)
            lo, hi = p.confidence_interval()
            if not math.isnan(lo):
                defined["prmse"] += 1
                hits["prmse"] += lo <= truth["prmse"] <= hi
    cover = {k_: hits[k_] / max(defined[k_], 1) for k_ in hits}
    return args, design, cover, passes / max(defined["degradation"], 1)


def _design(text: str):
    """``K,RHO,MACHINE,SHARE,DOUBLE`` (e.g. ``5,0.8,ordinal,0.2,20``) as a cell's key."""
    k, rho, machine, share, nd = text.split(",")
    return int(k), float(rho), machine == "real", float(share), int(nd)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument(
        "--design",
        type=_design,
        action="append",
        help="only this design, K,RHO,MACHINE,SHARE,DOUBLE (e.g. 5,0.8,ordinal,0.2,20); "
        "repeatable: a confirmation run of the rows the full table flags",
    )
    parser.add_argument("--seed", type=int, default=20261207, help="fresh seeds: another value")
    args = parser.parse_args()
    start = time.perf_counter()
    keys = list(itertools.product(SCALES, RHO_HH, (False, True), SHARES, DOUBLES))
    if args.design:
        keys = args.design
    cells_ = [
        (k, rho, real, share, nd, args.reps, [args.seed, k, int(100 * rho), real, int(100 * share), nd])
        for k, rho, real, share, nd in keys
    ]  # fmt: skip
    with ProcessPoolExecutor(args.processes) as pool:
        results = list(pool.map(run_cell, cells_))
    print(
        f"## Coverage of the 95% intervals and the false-pass rate of the degradation test "
        f"(method='jackknife'; {args.reps} replications per row)\n"
    )
    print(
        "| scale | ρ_hh | κ_hh | machine | double-scored | of all | items | degradation | QWK | r | SMD pooled | SMD human SD | PRMSE | pass at −margin |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    covers, rates = [], []
    for (k, rho, real, share, nd, _, _), design, cover, rate in results:
        n = round(nd / share)
        covers.append(cover)
        rates.append(rate)
        print(
            f"| 1–{k} | {rho} | {design.kappa_hh:.3f} | {'real' if real else 'ordinal'} | {nd} | "
            f"{100 * share:.0f}% | {n} | {cover['degradation']:.3f} | {cover['kappa']:.3f} | "
            f"{cover['r']:.3f} | {cover['smd_pooled']:.3f} | {cover['smd_unpooled']:.3f} | "
            f"{cover['prmse']:.3f} | {rate:.3f} |"
        )
    # Pooled over the rows: each statistic's coverage, the false-pass rate with its Monte
    # Carlo SE, and whether the rows' rates differ beyond Monte Carlo noise (χ² test of
    # homogeneity: a row far above the rest would show here, not only as the table's max)
    pooled = {name: float(np.mean([c[name] for c in covers])) for name in covers[0]}
    rate = float(np.mean(rates))
    se = math.sqrt(rate * (1 - rate) / (args.reps * len(rates)))
    chi2 = sum((r - rate) ** 2 for r in rates) * args.reps / (rate * (1 - rate))
    homogeneity = float(stats.chi2.sf(chi2, len(rates) - 1)) if len(rates) > 1 else math.nan
    print(
        "\nPooled coverage: "
        + ", ".join(f"{name} {value:.4f}" for name, value in pooled.items())
        + f".\nLowest coverage of a row: {min(min(c.values()) for c in covers):.3f}; "
        f"highest false-pass rate of a row: {max(rates):.3f}."
        f"\nPooled false-pass rate: {rate:.4f} (Monte Carlo SE {se:.4f}); rows alike "
        f"(χ² = {chi2:.1f} on {len(rates) - 1} df, p = {homogeneity:.2f})."
    )
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
