"""
Evaluate: may ChatGPT stand in for a crowd rater?
=================================================

Williamson, Xi & Breyer's criteria as tests with intervals, for ChatGPT's ratings of the
HANNA stories' coherence against the three crowd ratings of each story.
"""

import matplotlib.pyplot as plt

import qwkit

hanna = qwkit.load_hanna()
res = qwkit.evaluate_scorer(hanna.human["CH"], hanna.chatgpt["CH"])
print(res.summary())

# %%
# The crowd workers hardly agree with each other on coherence (human–human kappa near 0):
# their ratings vary no more between stories than rater error explains, so PRMSE is
# undefined here, and qwkit says so with a warning rather than printing a number. ChatGPT
# agrees with each crowd rater better than the raters agree with each other (the
# degradation passes), yet far below the 0.70 that the field asks of a scorer.

# %%
# Each criterion's estimate and interval against its threshold.
fig, ax = plt.subplots(figsize=(6.4, 2.8))
for i, c in enumerate(res.criteria):
    ax.errorbar(c.estimate, i, xerr=[[c.estimate - c.low], [c.high - c.estimate]], fmt="o")
    ax.plot([c.threshold] * 2, [i - 0.3, i + 0.3], color="#c44e52")
ax.set_yticks(range(len(res.criteria)), [f"{c.name} ({c.verdict})" for c in res.criteria])
ax.set_xlabel("estimate, 95% interval; red: the threshold")
fig.tight_layout()
