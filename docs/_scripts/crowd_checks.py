# ruff: noqa: E501  (a script that prints wide tables)
"""Checks of per-rater agreement quoted in docs/agreement.md (§8, "Crowds").

Run: ``python docs/_scripts/crowd_checks.py ../shared/data`` (the folder holding
``adult2_labels.tsv.gz`` and ``adult2_gold.tsv``: AdultContent2 of Ipeirotis, Provost &
Wang 2010, github.com/ipeirotis/Get-Another-Label, Apache-2.0).

1. **The panel and Light's kappa.** Repeated worker–site labels; the pairs of workers
   that share a site, one site only, or agree on every common site in one category;
   Light's kappa (quadratic weights) with its delta-method and jackknife standard errors
   and its bootstrap distribution.
2. **Against the experts.** Each worker's ``rater_agreement`` (quadratic weights, against
   the other workers, no gold label used) beside the same worker's quadratic kappa against
   the experts' labels on the sites the experts labelled: their rank correlation, and how
   many of the ten workers that ``rater_agreement`` ranks lowest are among the lowest
   against the experts.
3. **Planted spammers.** A simulated crowd (seeded) of 2,000 raters, 20,000 items rated 5
   times, 40 of the raters answering at random: where they fall in the ranking, and the
   coverage of the per-rater intervals of the honest raters (their kappa against the
   population of their co-raters is known by simulating the same raters on 200,000 items).
"""

from __future__ import annotations

import gzip
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

import qwkit

SCALE = ["G", "P", "R", "X"]


def panel(folder: Path):
    rows = [
        line.rstrip("\n").split("\t") for line in gzip.open(folder / "adult2_labels.tsv.gz", "rt")
    ]
    workers, sites, labels = (np.array(c) for c in zip(*rows, strict=True))
    return workers, sites, labels


def light(folder: Path) -> None:
    workers, sites, labels = panel(folder)
    pairs = {}
    for w, s, lab in zip(workers, sites, labels, strict=True):
        pairs.setdefault((w, s), []).append(lab)
    repeated = [v for v in pairs.values() if len(v) > 1]
    same = sum(len(set(v)) == 1 for v in repeated)
    print(
        f"AdultContent2: {len(workers):,} labels, {sum(len(v) - 1 for v in repeated):,} repeated worker-site labels ({sum(len(v) - 1 for v in repeated if len(set(v)) == 1):,} of them the same label; {same} pairs)"
    )
    table = qwkit.ratings_from_long(sites, workers, labels, duplicates="last")
    res = qwkit.agreement_test(table, coefficient="light", labels=SCALE)
    pairs = qwkit.rater_agreement(table, labels=SCALE).pairwise()
    single = pairs.n_pairs_sharing - len(pairs.statistic)
    undefined = int(np.isnan(pairs.statistic).sum())
    print(
        f"  pairs of workers sharing a site: {pairs.n_pairs_sharing:,}; one site only: {single:,}; every common label in one category: {undefined:,}"
    )
    jack = res.confidence_interval(method="jackknife")
    from scipy import special

    se_jack = (jack.high - res.statistic) / special.stdtrit(res.n_items - 1, 0.975)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        draws = res.bootstrap_distribution(1000, rng=20261121)
    print(
        f"  Light's kappa {res.statistic:.3f} (pairs averaged {res.n_pairs:,}), delta-method SE {res.standard_error:.4f}, jackknife SE {se_jack:.4f}"
    )
    print(f"  bootstrap (1000 resamples): mean {np.nanmean(draws):.3f}, sd {np.nanstd(draws):.4f}")


def experts(folder: Path) -> None:
    workers, sites, labels = panel(folder)
    table = qwkit.ratings_from_long(sites, workers, labels, duplicates="last")
    res = qwkit.rater_agreement(table, labels=SCALE)
    gold = dict(line.rstrip("\n").split("\t") for line in open(folder / "adult2_gold.tsv"))
    items, raters, values = table.to_long()
    against = {}
    for w in np.unique(raters):
        mine = raters == w
        on_gold = [
            (v, gold[s]) for s, v in zip(items[mine], values[mine], strict=True) if s in gold
        ]
        if len(on_gold) >= 10:
            a, b = zip(*on_gold, strict=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                against[w] = qwkit.kappa_score(a, b, labels=SCALE)
    names = [str(r) for r in res.raters]
    idx = [names.index(w) for w in against]
    crowd_kappa = res.statistic[idx]
    gold_kappa = np.array(list(against.values()))
    ok = np.isfinite(crowd_kappa) & np.isfinite(gold_kappa)
    rho = stats.spearmanr(crowd_kappa[ok], gold_kappa[ok]).statistic
    workers_ok = np.array(list(against))[ok]
    low_crowd = set(workers_ok[np.argsort(crowd_kappa[ok])[:10]])
    low_gold = set(workers_ok[np.argsort(gold_kappa[ok])[:20]])
    print("AdultContent2: workers with 10 or more expert-labelled sites:", int(ok.sum()))
    print(f"  Spearman rank correlation, kappa against the crowd vs against the experts: {rho:.3f}")
    print(
        f"  of the 10 lowest against the crowd, among the 20 lowest against the experts: {len(low_crowd & low_gold)}"
    )
    q = np.percentile(res.statistic[np.isfinite(res.statistic)], [10, 50, 90])
    print(
        f"  all {len(names)} workers: kappa against the others, deciles 10/50/90%: {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f}"
    )


def simulate(rng, n_items, raters, spam, per_item=5):
    noise = raters["noise"]
    n_raters = noise.size
    items = np.repeat(np.arange(n_items), per_item)
    who = np.concatenate([rng.choice(n_raters, per_item, replace=False) for _ in range(n_items)])
    latent = rng.normal(size=n_items)
    values = np.clip(np.rint(3 + 1.2 * latent[items] + rng.normal(0, noise[who])), 1, 5)
    random = np.isin(who, spam)
    values[random] = rng.integers(1, 6, int(random.sum()))
    return qwkit.ratings_from_long(items, who, values)


def spammers() -> None:
    rng = np.random.default_rng(20261121)
    raters = {"noise": rng.uniform(0.4, 1.2, 2000)}
    spam = np.arange(40)
    res = qwkit.rater_agreement(simulate(rng, 20_000, raters, spam), labels=[1, 2, 3, 4, 5])
    ranked = res.ranked()
    found = np.isin(ranked[:40], spam).sum()
    print("Simulated crowd: 2,000 raters, 20,000 items x 5 ratings, 40 raters at random")
    print(f"  planted spammers among the 40 lowest: {found} of 40")
    print(
        f"  highest kappa of a spammer: {np.nanmax(res.statistic[spam]):.3f}; lowest of an honest rater: {np.nanmin(res.statistic[40:]):.3f}"
    )
    # coverage: the 'true' kappa of each rater against its co-raters, from 10x the items
    big = qwkit.rater_agreement(
        simulate(np.random.default_rng(7), 200_000, raters, spam), labels=[1, 2, 3, 4, 5]
    )
    honest = np.arange(40, 2000)
    inside = (res.low[honest] <= big.statistic[honest]) & (
        big.statistic[honest] <= res.high[honest]
    )
    print(
        f"  95% intervals of the honest raters covering the kappa on 10x the items: {inside.mean():.3f}"
    )


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
    light(folder)
    experts(folder)
    spammers()
