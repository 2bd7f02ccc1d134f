"""One value from every entry point (issue 28, item 8): an agreement coefficient of the
same ratings is the same float — ``==``, not approximately — from ``agreement_score``,
``agreement_test(...).statistic``, their ``_from_counts`` forms, Light's pairs in
``rater_agreement(...).pairwise()`` and the command line, for every coefficient, every
weighting, a dense array or a ``RatingsTable``. Before: ``agreement_score(r,
coefficient="fleiss")`` gave −0.05499689141373465 and ``agreement_test`` −0.054996891413735094
(the test summed over merged identical items, the score over the items as they came).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qwkit
from cli_helpers import as_json, write_file
from qwkit._base._registry import COEFFICIENTS as REGISTRY

#: The registry's coefficients of any number of raters, those of two raters, and those a
#: count table determines.
COEFFICIENTS = REGISTRY.where(lambda r: not r.two_raters)
TWO_RATERS = REGISTRY.where(lambda r: r.two_raters)
POOLED = REGISTRY.where(lambda r: r.pooled)
WEIGHTS = ["quadratic", "linear", "identity", "ordinal", "ratio", "radical", "circular", "bipolar"]
SEED = 20261214


def _panels():
    """Random panels: integer and real-valued ratings, complete and with missing ones,
    few and many raters, identical items repeated (where merging them changes sums)."""
    rng = np.random.default_rng(SEED)
    panels = []
    for trial in range(8):
        n, k, q = int(rng.integers(8, 70)), int(rng.integers(2, 7)), int(rng.integers(2, 6))
        x = rng.integers(1, q + 1, size=(n, k)).astype(float)
        if trial % 2:
            x[rng.random((n, k)) < 0.3] = np.nan
        if trial % 4 == 3:
            x = np.vstack([x, np.tile(x[:3], (5, 1))])  # repeated items
        x = x[~np.isnan(x).all(axis=1)]
        panels.append(x)
    real = np.round(rng.normal(size=(40, 4)), 2)
    real[rng.random(real.shape) < 0.2] = np.nan
    panels.append(np.vstack([real, real[:6]]))
    return panels


PANELS = _panels()


def _table(x):
    items, raters = np.nonzero(~np.isnan(x))
    return qwkit.ratings_from_long(items, raters, x[items, raters])


def _counts(x):
    labels = np.unique(x[~np.isnan(x)])
    return (x[:, :, None] == labels).sum(axis=1), labels


def _same(*values) -> bool:
    first = values[0]
    return all(v == first or (math.isnan(v) and math.isnan(first)) for v in values)


class TestOneValue:
    @pytest.mark.parametrize("coefficient", COEFFICIENTS)
    @pytest.mark.filterwarnings("ignore")  # undefined coefficients, small samples
    def test_score_test_dense_sparse_counts(self, coefficient):
        compared = 0
        for p, x in enumerate(PANELS):
            real = not np.all(x[~np.isnan(x)] == np.round(x[~np.isnan(x)]))
            for weights in [*WEIGHTS, None]:
                kwargs = {"coefficient": coefficient, "weights": weights}
                try:
                    values = [
                        qwkit.agreement_score(x, **kwargs),
                        qwkit.agreement_test(x, **kwargs).statistic,
                        qwkit.agreement_score(_table(x), **kwargs),
                        qwkit.agreement_test(_table(x), **kwargs).statistic,
                    ]
                except qwkit.QwkitError:  # e.g. Gwet's weights on real values
                    continue
                if coefficient in POOLED and not real:
                    table, labels = _counts(x)
                    values += [
                        qwkit.agreement_from_counts(table, labels=labels, **kwargs),
                        qwkit.agreement_test_from_counts(table, labels=labels, **kwargs).statistic,
                    ]
                assert _same(*values), (p, weights, [repr(v) for v in values])
                compared += 1
        assert compared >= 40

    def test_custom_weights(self):
        x = PANELS[3]
        k = int(np.nanmax(x))
        matrix = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) ** 1.5
        for coefficient in COEFFICIENTS:
            kwargs = {"coefficient": coefficient, "weights": matrix}
            assert _same(
                qwkit.agreement_score(x, **kwargs),
                qwkit.agreement_test(x, **kwargs).statistic,
                qwkit.agreement_test(_table(x), **kwargs).statistic,
            ), coefficient

    @pytest.mark.parametrize("coefficient", TWO_RATERS)
    def test_two_raters(self, coefficient):
        for x in PANELS[:4]:
            two = x[:, :2]
            two = two[~np.isnan(two).all(axis=1)]
            for weights in ("quadratic", "identity", "linear"):
                kwargs = {"coefficient": coefficient, "weights": weights}
                assert _same(
                    qwkit.agreement_score(two, **kwargs),
                    qwkit.agreement_test(two, **kwargs).statistic,
                    qwkit.agreement_test(_table(two), **kwargs).statistic,
                )

    @pytest.mark.parametrize("weights", ["quadratic", "identity", "ordinal"])
    def test_light_is_the_mean_of_rater_agreement_s_pairs(self, weights):
        for x in PANELS:
            pairs = qwkit.rater_agreement(x, weights=weights).pairwise().statistic
            light = qwkit.agreement_score(x, coefficient="light", weights=weights)
            assert float(np.mean(pairs[np.isfinite(pairs)])) == light

    @pytest.mark.filterwarnings("ignore")  # the command's warnings, said on its stderr
    def test_the_command_line(self, tmp_path):
        x = PANELS[3][:, :3]
        x = x[~np.isnan(x).all(axis=1)]
        rows = "\n".join(",".join("" if np.isnan(v) else str(int(v)) for v in row) for row in x)
        path = write_file(tmp_path / "r.csv", "a,b,c\n" + rows + "\n")
        out = as_json("agreement", path, "--raters", "a,b,c", "--coefficient", "all")
        for row in out["coefficients"]:
            coefficient = row["coefficient"]
            assert row["statistic"] == qwkit.agreement_score(
                x, coefficient=coefficient, weights=row["weights"]
            ), coefficient
        assert len(out["coefficients"]) >= 6
