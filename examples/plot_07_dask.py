"""
Scale out: kappa over Dask chunks, to the last bit
==================================================

``qwkit.dask`` reduces each chunk to a small exact state and merges the states: the result
is the in-memory result, bit for bit, whatever the chunks.
"""

import dask
import dask.array as da
import numpy as np

import qwkit
import qwkit.dask

wine = qwkit.load_wine_quality("white")
rng = np.random.default_rng(20261121)
rated = np.clip(wine.y + rng.integers(-1, 2, len(wine.y)), 3, 9)

with dask.config.set(scheduler="threads"):
    for chunks in (500, 1000, 4898):
        y1 = da.from_array(wine.y, chunks=chunks)
        y2 = da.from_array(rated, chunks=chunks)
        k = qwkit.dask.kappa_score(y1, y2)
        print(f"chunks of {chunks:>4}: {k!r}  equal: {k == qwkit.kappa_score(wine.y, rated)}")

    res = qwkit.dask.kappa_test(da.from_array(wine.y, chunks=700), da.from_array(rated, chunks=700))
    print(
        f"standard error {res.standard_error:.6f} "
        f"(in memory {qwkit.kappa_test(wine.y, rated).standard_error:.6f})"
    )
