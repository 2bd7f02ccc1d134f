"""Simulation: is the power ``alt_test_sample_size`` plans for the power of whole studies?

Run from the repository root (about ten minutes on an idle machine)::

    .venv/bin/python benchmarks/alt_test_planning.py
    .venv/bin/python benchmarks/alt_test_planning.py --studies 2000

The planning simulates each annotator's test alone, from multinomial counts of d = +1, 0,
−1 (eq. 20 of ``docs/evaluation.md``); in a real study the annotators share items, the
judge's scores and one another as "remaining annotators". This script checks the plan
against whole simulated studies run through ``qwkit.alt_test``.

Panels: a latent score T ~ N(0, 1); annotators rate h = clip(round(3 + 1.2·T + e), 1, 5),
e ~ N(0, 0.8²); the judge scores 3 + 1.2·T + e_f, e_f ~ N(0, σ_f²), rounded and clipped
(accuracy alignment) or real-valued (RMSE alignment). A study of m annotators with n
items each has every item annotated by three of them (item i by annotators i, i + 1,
i + 2 modulo m; m·n/3 items), so that an annotator's per-item rates do not depend on m.
The true rates (p₊, p₀, p₋) and the correlation ρ of two annotators' d on an item are those
of 2,000,000 simulated items (Monte Carlo SE below 0.001). For each scenario the plan is made
from them, for three annotators per item; then ``--studies`` whole
studies are simulated at each planned design and the share in which ``alt_test`` passes
the judge is its power (Monte Carlo SE about 0.009 with 2,000 studies). A second part
plans from pilots — 20 pilot studies of 3 annotators × 60 items, whose rates and ρ the
planning estimates — and reports the median
planned n for 5 annotators, its range, and the power of whole studies at that median.
Seeded: reproducible.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import warnings

import numpy as np

import qwkit

POWER = 0.8


class Scenario:
    def __init__(self, name, alignment, judge_sd, real, epsilon):
        self.name, self.alignment, self.judge_sd = name, alignment, judge_sd
        self.real, self.epsilon = real, epsilon

    def items(self, n_items, rng):
        """(human ratings (n_items, 3), judge) of items each rated by three annotators."""
        t = rng.normal(size=n_items)
        human = np.clip(np.rint(3 + 1.2 * t[:, None] + rng.normal(0, 0.8, (n_items, 3))), 1, 5)
        judge = 3 + 1.2 * t + rng.normal(0, self.judge_sd, n_items)
        if not self.real:
            judge = np.clip(np.rint(judge), 1, 5)
        return human, judge

    def study(self, m, n, rng):
        """A study: m annotators, n items each, three annotators per item (NaN elsewhere)."""
        g = -(-m * n // 3)
        ratings, judge = self.items(g, rng)
        human = np.full((g, m), np.nan)
        rows = np.arange(g)
        for k in range(3):
            human[rows, (rows + k) % m] = ratings[:, k]
        return human, judge

    def truth(self, n_items=2_000_000, seed=1):
        """(p₊, p₀, p₋) of an annotator against the two others on its items, as alt_test
        scores them, and the correlation ρ of two annotators' d on an item."""
        human, judge = self.items(n_items, np.random.default_rng(seed))
        d = []
        for j in range(3):
            others = np.delete(human, j, axis=1)
            if self.alignment == "accuracy":
                s_judge = (others == judge[:, None]).mean(axis=1)
                s_human = (others == human[:, [j]]).mean(axis=1)
            else:
                s_judge = -np.sqrt(((others - judge[:, None]) ** 2).mean(axis=1))
                s_human = -np.sqrt(((others - human[:, [j]]) ** 2).mean(axis=1))
            d.append((s_human >= s_judge).astype(float) - (s_judge >= s_human))
        rates = tuple(float(np.mean(d[0] == v)) for v in (1.0, 0.0, -1.0))
        pairs = ((0, 1), (0, 2), (1, 2))
        return rates, float(np.mean([np.corrcoef(d[a], d[b])[0, 1] for a, b in pairs]))


def scenarios():
    return [
        Scenario("accuracy, integer judge, ε = 0.2", "accuracy", 0.75, False, 0.2),
        Scenario("accuracy, integer judge, ε = 0.1", "accuracy", 0.6, False, 0.1),
        Scenario("RMSE, real-valued judge, ε = 0.2", "rmse", 0.6, True, 0.2),
    ]


def achieved(scenario, m, n, studies, rng) -> float:
    passed = 0
    for _ in range(studies):
        human, judge = scenario.study(m, n, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = qwkit.alt_test(
                human, judge, epsilon=scenario.epsilon, alignment=scenario.alignment,
                min_items_per_rater=2,
            )  # fmt: skip
        passed += res.passed
    return passed / studies


def run(studies, annotators, seed=20261121):
    rows, pilots = [], []
    for scenario in scenarios():
        rates, rho = scenario.truth()
        _, p_tie, p_minus = rates
        plan = qwkit.alt_test_sample_size(
            advantage=p_tie + p_minus,
            ties=p_tie,
            epsilon=scenario.epsilon,
            power=POWER,
            n_annotators=annotators,
            correlation=rho,
            raters_per_item=3,
            rng=seed,
        )
        alone = dataclasses.replace(plan, correlation=0.0)  # were the annotators independent
        for m, n, planned in zip(
            plan.annotators, plan.items_per_annotator, plan.powers, strict=True
        ):
            power = achieved(scenario, m, n, studies, np.random.default_rng(seed))
            rows.append((scenario.name, rates, rho, m, n, planned, alone.power_at(m, n), power))
            print(
                f"  {scenario.name}, m={m}: planned {planned:.3f}, achieved {power:.3f}", flush=True
            )
        planned_n = []
        rng = np.random.default_rng(seed + 1)
        for _ in range(20):
            human, judge = scenario.study(3, 60, rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pilot = qwkit.alt_test_sample_size(
                    human, judge, epsilon=scenario.epsilon, alignment=scenario.alignment,
                    n_annotators=5, raters_per_item=3, n_simulations=4000, rng=seed,
                )  # fmt: skip
            planned_n.append(pilot.n_items_per_annotator)
        found = [n for n in planned_n if n is not None]
        median = int(np.median(found)) if found else None
        power = (
            achieved(scenario, 5, median, studies, np.random.default_rng(seed)) if median else None
        )
        pilots.append((scenario.name, median, min(found, default=None), max(found, default=None),
                       len(planned_n) - len(found), power))  # fmt: skip
    return rows, pilots


def tables(rows, pilots, studies) -> str:
    out = [
        "| alignment and margin | rates (annotator / tie / judge) | ρ | annotators | items each "
        "| planned power | were they independent | power of whole studies |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    last = None
    for name, rates, rho, m, n, planned, alone, power in rows:
        first = name != last
        last = name
        shown = (name, " / ".join(f"{r:.3f}" for r in rates), f"{rho:.3f}") if first else ("",) * 3
        out.append(
            f"| {shown[0]} | {shown[1]} | {shown[2]} | {m} | {n} | {planned:.3f} | {alone:.3f} "
            f"| {power:.3f} |"
        )
    out += [
        "",
        "| alignment and margin | n for 5 annotators from a pilot of 3 × 60 (median [range]) "
        "| pilots with no plan | power at the median n |",
        "|---|---:|---:|---:|",
    ]
    for name, median, low, high, none, power in pilots:
        shown = f"{median} [{low}, {high}]" if median else "—"
        tail = f"{power:.3f}" if power is not None else "—"
        out.append(f"| {name} | {shown} | {none} | {tail} |")
    out.append(f"\n{studies} simulated studies per power; target power {POWER}.")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=2000)
    parser.add_argument("--annotators", default="3,5,8")
    args = parser.parse_args()
    start = time.perf_counter()
    rows, pilots = run(args.studies, [int(x) for x in args.annotators.split(",")])
    print()
    print(tables(rows, pilots, args.studies))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
