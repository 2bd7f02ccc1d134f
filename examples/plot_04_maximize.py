"""
Maximize: the kappa-optimal model and exact cut points
======================================================

The closed-form kappa-optimal linear model of the wines' quality, then the globally optimal
cut points that turn its scores into ratings — fitted on 1,100 wines, scored on the rest.
"""

import matplotlib.pyplot as plt
import numpy as np

import qwkit

wine = qwkit.load_wine_quality()
order = np.random.default_rng(20261121).permutation(len(wine.y))
train, test = order[:1100], order[1100:]

model = qwkit.kappa_regression(wine.X[train], wine.y[train])
scores = model.predict(wine.X[train])
cuts = qwkit.optimize_thresholds(wine.y[train], scores)
held_out = qwkit.kappa_score(
    wine.y[test], cuts.predict(model.predict(wine.X[test])), labels=cuts.labels
)
rounded = np.clip(np.rint(model.predict(wine.X[test])), 3, 8)
print(f"soft QWK in sample: {model.statistic:.4f}")
print(f"(least squares: {model.least_squares_statistic:.4f})")
print(f"QWK of the cut points in sample: {cuts.statistic:.4f}, held out: {held_out:.4f}")
print(f"held out with plain rounding: {qwkit.kappa_score(wine.y[test], rounded):.4f}")

# %%
# The scores of each quality, and the cut points between the ratings.
fig, ax = plt.subplots(figsize=(6.4, 3.4))
jitter = np.random.default_rng(1).uniform(-0.2, 0.2, len(train))
ax.scatter(scores, wine.y[train] + jitter, s=4, alpha=0.4)
for t in cuts.thresholds:
    ax.axvline(t, color="#dd8452", lw=1)
ax.set_xlabel("score of the kappa-optimal model")
ax.set_ylabel("quality")
fig.tight_layout()

# %%
# Cut points fitted to the data they are scored on flatter the score; the optimism-corrected
# kappa estimates what they will score on new data.
res = qwkit.optimism_corrected_kappa(wine.y[train], scores, rng=1)
print(f"apparent {res.apparent:.4f}, corrected {res.statistic:.4f}")
