"""
Per group with Polars
=====================

One weighted kappa per story source of HANNA (ChatGPT's coherence ratings, rounded, against
the first crowd rating), with its test and interval, as Polars expressions.
"""

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

import qwkit
import qwkit.polars

hanna = qwkit.load_hanna()
df = pl.DataFrame(
    {
        "system": hanna.system,
        "human": hanna.human["CH"][:, 0].astype(int),
        "chatgpt": np.clip(np.rint(hanna.chatgpt["CH"]), 1, 5).astype(int),
    }
)
per_system = (
    df.group_by("system")
    .agg(pl.col("human").qwk.kappa_test("chatgpt", labels=[1, 2, 3, 4, 5]).alias("test"))
    .unnest("test")
    .sort("statistic")
)
print(per_system.select("system", "statistic", "ci_low", "ci_high", "n_items"))

# %%
fig, ax = plt.subplots(figsize=(6.4, 3.6))
y = np.arange(per_system.height)
stat = per_system["statistic"].to_numpy()
ax.errorbar(
    stat,
    y,
    xerr=[stat - per_system["ci_low"].to_numpy(), per_system["ci_high"].to_numpy() - stat],
    fmt="o",
)
ax.set_yticks(y, per_system["system"].to_list())
ax.axvline(0, color="grey", lw=0.8)
ax.set_xlabel("QWK of ChatGPT vs a crowd rater (95% interval)")
fig.tight_layout()
