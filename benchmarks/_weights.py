"""The survey weights every benchmark times: the weights users have, not the fast ones.

Real survey weights — inverse-probability, post-stratification, normalized weights —
have full 53-bit mantissas and span many binades. A benchmark that times only integer
or half-integer weights never meets the work that such weights take, so every
benchmark with ``sample_weight`` times all of these and reports the worst:

* ``integer 1–4``: whole numbers (frequency-like weights);
* ``uniform(0, 1)``: ``rng.random(n)``, full mantissas over 20–30 binades (weights
  below 2**-20 occur at n = 10**7);
* ``log-normal(0, 1)``: ``exp(N(0, 1))``, about ±8 binades at n = 10**8;
* ``1/p, p ~ Beta(2, 5)``: inverse inclusion probabilities, a heavy upper tail.
"""

from __future__ import annotations

import numpy as np

#: name -> weights of n items from a numpy Generator.
DISTRIBUTIONS = {
    "integer 1–4": lambda rng, n: rng.integers(1, 5, n).astype(np.float64),
    "uniform(0, 1)": lambda rng, n: rng.random(n),
    "log-normal(0, 1)": lambda rng, n: rng.lognormal(0.0, 1.0, n),
    "1/p, p ~ Beta(2, 5)": lambda rng, n: 1.0 / rng.beta(2.0, 5.0, n),
}
#: The distribution of the tables that show one only (peers, kernel anatomy).
TYPICAL = "uniform(0, 1)"


def weights(name: str, n: int, seed: int = 20261124) -> np.ndarray:
    """``n`` weights of the named distribution, the same for every run."""
    index = list(DISTRIBUTIONS).index(name)
    return DISTRIBUTIONS[name](np.random.default_rng([seed, index]), n)
