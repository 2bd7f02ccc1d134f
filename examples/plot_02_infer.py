"""
Infer: how sure is a kappa?
===========================

The Fleiss–Cohen–Everitt standard error, a z-test of κ = 0, and four intervals for the kappa
of a model on 300 wines; the bootstrap distribution behind the BCa interval.
"""

import matplotlib.pyplot as plt
import numpy as np

import qwkit

wine = qwkit.load_wine_quality()
rng = np.random.default_rng(20261121)
sample = rng.choice(len(wine.y), 300, replace=False)
truth = wine.y[sample]
rated = np.clip(truth + rng.integers(-1, 2, 300) * rng.integers(0, 2, 300), 3, 8)

res = qwkit.kappa_test(truth, rated)
print(res.summary())

# %%
# Intervals by each method (the bootstrap resamples the 6 × 6 table, not the items).
for method in ("asymptotic", "bootstrap", "percentile", "jackknife"):
    low, high = res.confidence_interval(0.95, method=method, n_resamples=2000, rng=1)
    print(f"{method:>10}: [{low:.4f}, {high:.4f}]")

# %%
draws = res.bootstrap_distribution(2000, rng=1)
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.hist(draws, bins=40, color="#4c72b0")
ax.axvline(res.statistic, color="black", lw=1.5, label=f"kappa = {res.statistic:.3f}")
for x in res.confidence_interval(0.95, method="bootstrap", n_resamples=2000, rng=1):
    ax.axvline(x, color="#dd8452", ls="--")
ax.set_xlabel("bootstrap kappa")
ax.legend(loc="upper left")
fig.tight_layout()
