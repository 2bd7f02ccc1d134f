"""``coefficient="cohen"``: Cohen's (weighted) kappa of two raters on the items both rated
(eq. 17c of ``docs/agreement.md``) — the member added by CONTRIBUTING.md's recipe
"Adding a member to a family": its record, its line in ``_agreement/_model.MODELS``, and
these tests (the suites that loop over the registry test it too).
"""

from __future__ import annotations

import numpy as np
import pytest

import qwkit
from cli_helpers import DATA, as_json, write_file

# Cohen (1968), Psychol. Bull. 70(4):213-220, Table 1 (N = 200), as proportions, and his
# symmetric disagreement weights (also in R psych's cohen.kappa examples).
COHEN_1968 = np.array([[0.44, 0.07, 0.09], [0.05, 0.20, 0.05], [0.01, 0.03, 0.06]]) * 200
COHEN_WEIGHTS = np.array([[0, 1, 3], [1, 0, 6], [3, 6, 0]])


def _csv(name: str) -> np.ndarray:
    """A tests/data CSV: provenance comment line, header line, integer rows."""
    return np.genfromtxt(DATA / name, delimiter=",", comments="#", skip_header=2, dtype=int)


def _pairs_of(table: np.ndarray) -> np.ndarray:
    """The (rater 1, rater 2) ratings 1..K of a table of counts, one row per item."""
    rows, cols = np.indices(table.shape)
    counts = np.rint(table).astype(int).ravel()
    return np.column_stack([np.repeat(rows.ravel(), counts), np.repeat(cols.ravel(), counts)]) + 1


def _with_missing(x: np.ndarray, seed: int) -> np.ndarray:
    """``x`` as floats with about a fifth of the ratings missing (never both of an item)."""
    rng = np.random.default_rng(seed)
    out = x.astype(float)
    gone = rng.random(len(out)) < 0.2
    out[gone, rng.integers(0, 2, len(out))[gone]] = np.nan
    return out


class TestPublishedValues:
    def test_cohen_1968(self):
        # Cohen (1968): unweighted .492 and weighted .348 with the symmetric weights
        # (psych's cohen.kappa examples: "#cohen reports .492 and .348").
        x = _pairs_of(COHEN_1968)
        assert round(qwkit.agreement_score(x, coefficient="cohen", weights=None), 3) == 0.492
        got = qwkit.agreement_score(x, coefficient="cohen", weights=COHEN_WEIGHTS)
        assert round(got, 3) == 0.348

    def test_irr_kappa2(self):
        # R irr 0.84.1: kappa2(anxiety[, 1:2], "squared") prints Kappa = 0.297, and
        # kappa2(diagnoses[, 2:3]) Kappa = 0.631 (quoted in the tests of pyirr,
        # sophiedkk/pyirr tests/test_kappa2.py, commit 7fbc76c)
        anxiety = _csv("irr_anxiety.csv")[:, :2]
        assert round(qwkit.agreement_score(anxiety, coefficient="cohen"), 3) == 0.297
        diagnoses = _csv("irr_diagnoses_codes.csv")[:, 1:3]
        got = qwkit.agreement_score(diagnoses, coefficient="cohen", weights="identity")
        assert round(got, 3) == 0.631

    def test_artstein_poesio(self):
        # scikit-learn's test_cohen_kappa (Artstein & Poesio 2008): 0.348 (Table 1), and
        # the weighting example: 0.9315 unweighted, 0.9412 linear, 0.9541 quadratic
        x = np.column_stack([[0] * 40 + [1] * 60, [0] * 20 + [1] * 20 + [0] * 10 + [1] * 50])
        assert qwkit.agreement_score(x, coefficient="cohen", weights=None) == pytest.approx(
            0.348, abs=5e-4
        )
        x = np.column_stack([[0] * 46 + [1] * 44 + [2] * 10, [0] * 50 + [1] * 40 + [2] * 10])
        for weights, value in (("identity", 0.9315), ("linear", 0.9412), ("quadratic", 0.9541)):
            got = qwkit.agreement_score(x, coefficient="cohen", weights=weights)
            assert got == pytest.approx(value, abs=5e-5), weights


class TestDefinition:
    @pytest.mark.parametrize("weights", ["quadratic", "linear", "identity", "radical"])
    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_kappa_score_on_the_items_both_rated(self, weights, seed):
        # irr's kappa2 drops the items with a missing rating: so does "cohen"
        rng = np.random.default_rng(seed)
        level = rng.integers(1, 6, 80)
        x = np.clip(level[:, None] + rng.integers(-1, 2, (80, 2)), 1, 5)
        y = _with_missing(x, seed)
        both = ~np.isnan(y).any(axis=1)
        ref = qwkit.kappa_score(x[both, 0], x[both, 1], weights=weights, labels=range(1, 6))
        got = qwkit.agreement_score(y, coefficient="cohen", weights=weights, labels=range(1, 6))
        assert got == pytest.approx(ref, rel=1e-12)
        # Conger's kappa of the same two raters reads the lone ratings too
        conger = qwkit.agreement_score(y, coefficient="conger", weights=weights)
        assert conger != pytest.approx(got, rel=1e-6)

    def test_its_test_is_conger_s_on_the_complete_pairs(self):
        rng = np.random.default_rng(20261208)
        x = np.clip(rng.integers(1, 6, 60)[:, None] + rng.integers(-1, 2, (60, 2)), 1, 5)
        y = _with_missing(x, 7)
        both = ~np.isnan(y).any(axis=1)
        res = qwkit.agreement_test(y, coefficient="cohen", alternative="greater")
        ref = qwkit.agreement_test(x[both], coefficient="conger", alternative="greater")
        for field in ("statistic", "standard_error", "pvalue"):
            assert getattr(res, field) == pytest.approx(getattr(ref, field), rel=1e-12), field
        assert res.n_items == int(both.sum()) and res.n_raters == 2
        assert res.n_items_dropped == len(y) - int(both.sum())
        assert res.summary().startswith("Cohen's kappa (quadratic weights)")
        low, high = res.confidence_interval(method="jackknife")
        assert low < res.statistic < high

    def test_two_raters_only_and_not_from_counts(self):
        three = np.array([[1, 2, 3], [2, 2, 3], [3, 3, 1], [1, 1, 2]])
        with pytest.raises(qwkit.QwkitError, match="Conger's kappa \\('conger'\\)") as info:
            qwkit.agreement_score(three, coefficient="cohen")
        assert info.value.parameter == "coefficient"
        with pytest.raises(qwkit.QwkitError, match="needs to know which rater"):
            qwkit.agreement_from_counts([[1, 1], [2, 0]], coefficient="cohen")


def test_the_command_line(tmp_path):
    x = _with_missing(_csv("irr_anxiety.csv")[:, :2], 3)
    rows = "\n".join(",".join("" if np.isnan(v) else str(int(v)) for v in row) for row in x)
    path = write_file(tmp_path / "pair.csv", "a,b\n" + rows + "\n")
    out = as_json("agreement", path, "--raters", "a,b", "--coefficient", "cohen,conger")
    got = {c["coefficient"]: c["statistic"] for c in out["coefficients"]}
    assert got["cohen"] == qwkit.agreement_score(x, coefficient="cohen")
    assert got["conger"] == qwkit.agreement_score(x, coefficient="conger")
    everything = as_json("agreement", path, "--raters", "a,b")  # all: any number of raters
    assert "cohen" not in [c["coefficient"] for c in everything["coefficients"]]
