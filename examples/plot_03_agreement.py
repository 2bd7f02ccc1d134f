"""
Agree: many raters, missing ratings
===================================

Agreement among the three crowd ratings of each HANNA story, per criterion, by four
coefficients, with Gwet's standard error.
"""

import matplotlib.pyplot as plt
import numpy as np

import qwkit

hanna = qwkit.load_hanna()
coefficients = ["fleiss", "krippendorff", "gwet", "brennan-prediger"]
values = {
    code: [qwkit.agreement_score(hanna.human[code], coefficient=c) for c in coefficients]
    for code in hanna.criteria
}
for code, row in values.items():
    print(f"{hanna.criteria[code]:>11}: " + "  ".join(f"{v:.3f}" for v in row))

res = qwkit.agreement_test(hanna.human["CH"], coefficient="gwet")
low, high = res.confidence_interval()
print(f"coherence, Gwet's AC2: {res.statistic:.3f} (SE {res.standard_error:.3f})")
print(f"95% CI [{low:.3f}, {high:.3f}]")

# %%
fig, ax = plt.subplots(figsize=(6.4, 3.4))
width = 0.2
for k, name in enumerate(coefficients):
    ax.bar(
        np.arange(6) + (k - 1.5) * width, [values[c][k] for c in hanna.criteria], width, label=name
    )
ax.set_xticks(range(6), [hanna.criteria[c] for c in hanna.criteria], rotation=20)
ax.set_ylabel("agreement (quadratic weights)")
ax.legend(fontsize=8, ncol=2)
fig.tight_layout()
