"""
Measure: weighted kappa of two raters
=====================================

Quadratic weighted kappa of a model's ratings against the truth, with the other weights and
the confusion table behind it. The ratings are the bundled red wines' quality scores and a
simple model's rounded predictions.
"""

import matplotlib.pyplot as plt
import numpy as np

import qwkit

wine = qwkit.load_wine_quality()
design = np.column_stack([np.ones(len(wine.y)), wine.X])
coef, *_ = np.linalg.lstsq(design, wine.y, rcond=None)
rated = np.clip(np.rint(design @ coef), 3, 8).astype(int)  # least squares, rounded

for weights in ("quadratic", "linear", "identity"):
    print(f"{weights:>9}: {qwkit.kappa_score(wine.y, rated, weights=weights):.4f}")

# %%
# The table every kappa is computed from (rows: the truth, columns: the model). Quadratic
# weights forgive the many near misses beside the diagonal more than linear weights do, and
# unweighted kappa counts them as full disagreements.
labels = list(range(3, 9))
table = qwkit.confusion_matrix(wine.y, rated, labels=labels)
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.imshow(np.log1p(table), cmap="Blues")
for (i, j), count in np.ndenumerate(table):
    ax.text(j, i, count, ha="center", va="center", fontsize=8)
ax.set_xticks(range(len(labels)), labels)
ax.set_yticks(range(len(labels)), labels)
ax.set_xlabel("model")
ax.set_ylabel("truth")
ax.set_title(f"QWK = {qwkit.kappa_score(wine.y, rated):.3f}")
fig.tight_layout()

# %%
# Data that arrive in pieces are scored by merging tables: the accumulator gives the same
# value as the whole.
acc = qwkit.KappaAccumulator(labels=labels)
for start in range(0, len(rated), 500):
    acc.update(wine.y[start : start + 500], rated[start : start + 500])
print(acc.score() == qwkit.kappa_score(wine.y, rated, labels=labels))
