"""The cases of ``test_memory_flat.py``: every public function that builds a table from
ratings, called with ratings whose values are far apart or far from zero.

Run as a script (``python memory_cases.py``) it calls every case once on small ratings
(0, 1, 2: numba compiles or loads its kernels, every module is imported), then limits
the process's address space to what it uses plus ``HEADROOM`` bytes
(``resource.RLIMIT_AS``), calls every case on each family of ``FAMILIES`` and prints one
JSON line per case: ``{"case", "family", "outcome", "type", "parameter", "message"}``,
``outcome`` being ``"ok"``, ``"refused"`` (an exception) or ``"memory"`` (a
``MemoryError``: the case needed more than the headroom). A table as large as the span
of the ratings (0 … 10**12) needs terabytes; everything else here needs kilobytes.
"""

from __future__ import annotations

import json
import re
import resource
import sys
import warnings

import numpy as np

#: What the process may allocate beyond what it holds after the warm-up.
HEADROOM = 1 << 30

A = np.array([0, 1, 2, 1, 0, 2, 1, 1, 0, 2, 2, 0])
B = np.array([0, 1, 1, 1, 0, 2, 2, 1, 0, 2, 1, 1])
C = np.array([1, 1, 2, 0, 0, 2, 1, 1, 0, 2, 2, 0])
SCORE = np.array([0.1, 0.9, 1.7, 1.2, 0.3, 2.2, 1.4, 0.8, 0.2, 1.9, 1.6, 0.6])
COEFFICIENTS = ("fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", "light", "percent")
POOLED = ("fleiss", "krippendorff", "gwet", "brennan-prediger", "percent")
WEIGHTS = ("quadratic", "linear", "identity", "ordinal", "ratio")

#: Ratings 0, 1, 2 as each family writes them; the warm-up families come first.
FAMILIES = {
    "small": lambda v: np.asarray(v).astype(np.int64),
    "small unsigned": lambda v: np.asarray(v).astype(np.uint64),
    "small float": lambda v: np.asarray(v).astype(np.float64),
    "times 10**12": lambda v: np.asarray(v).astype(np.int64) * 10**12,
    "plus 2**62": lambda v: np.asarray(v).astype(np.int64) + 2**62,
    "uint64 about 2**63": lambda v: np.asarray(v).astype(np.uint64) + np.uint64(2**63 - 1),
    "float times 1e12": lambda v: np.asarray(v).astype(np.float64) * 1e12,
}
WARM_UP = ("small", "small unsigned", "small float")
EXTREME = tuple(name for name in FAMILIES if name not in WARM_UP)


def _panel(f):
    return np.column_stack([f(A), f(B), f(C)])


def _table(f):
    import qwkit

    panel = _panel(f)
    n, r = panel.shape
    items, raters = np.repeat(np.arange(n), r), np.tile(np.arange(r), n)
    return qwkit.ratings_from_long(items, raters, panel.ravel())


def _counts(f):
    """The items × categories counts of the panel, with its categories as labels."""
    panel = np.column_stack([A, B, C])
    return (panel[:, :, None] == np.arange(3)).sum(axis=1), f([0, 1, 2])


def _every(function, **kwargs):
    return [function(**kwargs, coefficient=c, weights=w) for c in COEFFICIENTS for w in WEIGHTS]


def _cases():
    """Case name → the call, of a family ``f``. Results are read as users read them
    (``summary()``, ``to_dict()``), where a scale could still be built whole."""
    import dask.array as da
    import polars as pl

    import qwkit
    import qwkit.dask as qd
    import qwkit.polars

    def dask(values):
        return da.from_array(values, chunks=5)

    def read(result):
        result.to_dict()
        result.summary()
        return result

    def accumulate(cls, *columns, **kwargs):
        acc = cls(**kwargs)
        acc.update(*columns)
        return acc.optimize() if hasattr(acc, "optimize") else acc.score()

    def polars(f):
        df = pl.DataFrame({"a": f(A), "b": f(B), "c": f(C)})
        col = pl.col("a").qwk
        return df.select(
            col.kappa("b").alias("k"),
            col.kappa_test("b").alias("t"),
            col.soft_kappa("b").alias("s"),
            col.agreement("b", "c", coefficient="fleiss").alias("f"),
            col.agreement_test("b", "c", coefficient="light").alias("l"),
        )

    return {
        # two raters
        "kappa_score": lambda f: [
            qwkit.kappa_score(f(A), f(B), weights=w) for w in ("quadratic", "linear", "identity")
        ],
        "kappa_score labels": lambda f: qwkit.kappa_score(f(A), f(B), labels=f([0, 1, 2])),
        "kappa_score sample_weight": lambda f: qwkit.kappa_score(
            f(A), f(B), sample_weight=np.linspace(0.5, 2, 12)
        ),
        "kappa_test": lambda f: read(qwkit.kappa_test(f(A), f(B), counts=np.arange(1, 13))),
        "kappa_test bootstrap": lambda f: qwkit.kappa_test(f(A), f(B)).confidence_interval(
            method="bootstrap", n_resamples=50, rng=1
        ),
        "confusion_matrix": lambda f: qwkit.confusion_matrix(f(A), f(B)),
        "confusion_matrix labels": lambda f: qwkit.confusion_matrix(
            f(A), f(B), labels=f([0, 1, 2])
        ),
        "compare_kappa_test": lambda f: read(qwkit.compare_kappa_test(f(A), f(B), f(C))),
        "pairwise_compare_kappa_test": lambda f: read(
            qwkit.pairwise_compare_kappa_test(f(A), {"b": f(B), "c": f(C)})
        ),
        "soft_kappa_score": lambda f: qwkit.soft_kappa_score(f(A), f(B)),
        "KappaAccumulator": lambda f: accumulate(qwkit.KappaAccumulator, f(A), f(B)),
        "KappaAccumulator labels": lambda f: accumulate(
            qwkit.KappaAccumulator, f(A), f(B), labels=f([0, 1, 2])
        ),
        "SoftKappaAccumulator": lambda f: accumulate(qwkit.SoftKappaAccumulator, f(A), f(B)),
        # cut points, models, gradients
        "optimize_thresholds": lambda f: read(qwkit.optimize_thresholds(f(A), SCORE)),
        "optimize_thresholds labels": lambda f: qwkit.optimize_thresholds(
            f(A), SCORE, labels=f([0, 1, 2]), weights="linear"
        ),
        "ThresholdAccumulator": lambda f: accumulate(qwkit.ThresholdAccumulator, f(A), SCORE),
        "optimism_corrected_kappa": lambda f: qwkit.optimism_corrected_kappa(
            f(A), SCORE, method="bootstrap", n_resamples=5, rng=1
        ),
        "apply_thresholds": lambda f: qwkit.apply_thresholds(
            SCORE, [0.5, 1.5], labels=f([0, 1, 2])
        ),
        "kappa_rescale": lambda f: qwkit.kappa_rescale(f(A), SCORE),
        "kappa_regression": lambda f: qwkit.kappa_regression(SCORE[:, None], f(A)),
        "kappa_gradient_hessian": lambda f: qwkit.kappa_gradient_hessian(f(A), SCORE),
        "kappa_decision": lambda f: qwkit.kappa_decision(
            np.full((4, 3), 1 / 3), labels=f([0, 1, 2])
        ),
        # many raters
        "agreement_score": lambda f: _every(qwkit.agreement_score, ratings=_panel(f)),
        "agreement_score RatingsTable": lambda f: _every(qwkit.agreement_score, ratings=_table(f)),
        "agreement_test": lambda f: [
            read(qwkit.agreement_test(_panel(f), coefficient=c)) for c in COEFFICIENTS
        ],
        "agreement_test scott": lambda f: read(
            qwkit.agreement_test(_panel(f)[:, :2], coefficient="scott")
        ),
        "agreement_from_counts": lambda f: [
            qwkit.agreement_from_counts(
                _counts(f)[0], labels=_counts(f)[1], coefficient=c, weights=w
            )
            for c in POOLED
            for w in WEIGHTS
        ],
        "agreement_test_from_counts": lambda f: [
            read(
                qwkit.agreement_test_from_counts(_counts(f)[0], labels=_counts(f)[1], coefficient=c)
            )
            for c in POOLED
        ],
        "rater_agreement": lambda f: read(qwkit.rater_agreement(_panel(f))).pairwise().to_dict(),
        "category_agreement": lambda f: read(qwkit.category_agreement(_panel(f))),
        "category_kappas": lambda f: qwkit.category_kappas(_table(f)).kappas,
        "marginal_homogeneity_test": lambda f: [
            read(qwkit.marginal_homogeneity_test(f(A), f(B), method=m))
            for m in ("stuart-maxwell", "bhapkar")
        ],
        "icc": lambda f: [read(qwkit.icc(_panel(f), form=form)) for form in ("1,1", "A,1", "C,k")],
        "icc RatingsTable": lambda f: read(qwkit.icc(_table(f), form="A,1")),
        "concordance_correlation": lambda f: read(qwkit.concordance_correlation(f(A), f(B))),
        "kendall_w": lambda f: read(qwkit.kendall_w(_panel(f))),
        "ratings_from_long": lambda f: _table(f).to_long(),
        "RatingsTable.to_wide": lambda f: _table(f).to_wide(),
        # may a machine stand in for a human rater
        "evaluate_scorer": lambda f: read(qwkit.evaluate_scorer(_panel(f)[:, :2], f(C))),
        "calibrate_judge": lambda f: read(qwkit.calibrate_judge(_panel(f)[:, :2], f(C))),
        "human_scale_estimate": lambda f: read(
            qwkit.human_scale_estimate(_panel(f)[:6, :2], f(C)[:6], f(C)[6:])
        ),
        "evaluate_traits": lambda f: read(
            qwkit.evaluate_traits(
                np.tile(_panel(f)[:, :2], (2, 1)),
                np.tile(f(C), 2),
                np.repeat(["a", "b"], len(f(C))),
                criteria="kappa",
            )
        ),
        "degradation_test": lambda f: read(qwkit.degradation_test(_panel(f)[:, :2], f(C))),
        "prmse": lambda f: read(qwkit.prmse(_panel(f)[:, :2], f(C))),
        "standardized_mean_difference": lambda f: read(
            qwkit.standardized_mean_difference(_panel(f)[:, :2], f(C))
        ),
        "alt_test": lambda f: [
            read(qwkit.alt_test(_panel(f), f(C), min_items_per_rater=5, alignment=a))
            for a in ("accuracy", "rmse", "kappa")
        ],
        "alt_test_sample_size": lambda f: qwkit.alt_test_sample_size(
            _panel(f), f(C), n_annotators=3, n_simulations=200, max_items_per_rater=200, rng=0
        ),
        "degradation_sample_size": lambda f: qwkit.degradation_sample_size(
            human=_panel(f)[:, :2], machine=f(C), expected_degradation=0.0
        ),
        # the LLM judge: three runs of each item (the panel's columns), humans f(C)
        "judge_reliability": lambda f: read(
            qwkit.judge_reliability(
                item=np.repeat(np.arange(12), 3),
                run=np.tile(np.arange(3), 12),
                score=_panel(f).ravel(),
                human=f(C),
            )
        ),
        # integrations
        "qwkit.dask": lambda f: [
            qd.kappa_score(dask(f(A)), dask(f(B))),
            qd.kappa_test(dask(f(A)), dask(f(B))),
            qd.confusion_matrix(dask(f(A)), dask(f(B))),
            qd.soft_kappa_score(dask(f(A)), dask(f(B))),
        ],
        "qwkit.dask optimize_thresholds": lambda f: qd.optimize_thresholds(dask(f(A)), dask(SCORE)),
        "qwkit.polars": polars,
    }


def _sparse_panel(n_items: int, n_raters: int):
    """A table of ``max(n_items, n_raters)`` ratings whose items × raters matrix is huge."""
    import qwkit

    n = max(n_items, n_raters)
    return qwkit.ratings_from_long(np.arange(n) % n_items, np.arange(n) % n_raters, np.ones(n))


def _crowded_panel() -> np.ndarray:
    """1,000 items, each rated by all of 150 raters: 150,000 ratings, 11,175 pairs of
    raters, 11 million pairs of ratings of one item (held, they took 1.9 GB)."""
    rng = np.random.default_rng(20261218)
    latent = rng.integers(1, 6, size=(1000, 1))
    return np.clip(latent + rng.integers(-1, 2, size=(1000, 150)), 1, 5).astype(float)


def _light_of_a_crowded_panel():
    import qwkit

    panel = _crowded_panel()
    res = qwkit.agreement_test(panel, coefficient="light")
    assert res.statistic == qwkit.agreement_score(panel, coefficient="light")
    res.confidence_interval(method="jackknife")
    qwkit.rater_agreement(panel).pairwise()


def _command_line_on_a_crowded_panel():
    import tempfile

    from typer.testing import CliRunner

    from qwkit.cli._app import app

    panel = _crowded_panel().astype(int)
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/panel.csv"
        header = ",".join(f"r{j}" for j in range(panel.shape[1]))
        np.savetxt(path, panel, fmt="%d", delimiter=",", header=header, comments="")
        raters = header  # --coefficient all, the default, includes Light's kappa
        done = CliRunner().invoke(app, ["agreement", path, "--raters", raters, "--json"])
    if done.exit_code != 0:
        raise RuntimeError(done.stderr)


#: Cases called only under the limit (their warm-up would fill the memory): the dense
#: matrix of a sparse panel just under ``to_wide``'s cell limit (2**31 cells, 18 GiB),
#: and just over it; Light's kappa of a panel whose pairs of ratings of one item are
#: many (11 million), and the command line's default coefficients on it. Their outcome
#: is reported for the family ``"any"``.
LIMITED = {
    "RatingsTable.to_wide under the cell limit": lambda: _sparse_panel(2**16, 2**15 - 1).to_wide(),
    "RatingsTable.to_wide over the cell limit": lambda: _sparse_panel(2**16, 2**15 + 1).to_wide(),
    "Light's kappa of 1,000 items x 150 raters": _light_of_a_crowded_panel,
    "qwkit agreement of 1,000 items x 150 raters": _command_line_on_a_crowded_panel,
}


def _outcome(call, f=None) -> dict:
    try:
        call() if f is None else call(f)
    except MemoryError:
        return {"outcome": "memory", "type": "MemoryError", "parameter": None, "message": ""}
    except Exception as exc:  # every refusal is reported, and judged by the test
        return {
            "outcome": "refused",
            "type": type(exc).__name__,
            "parameter": getattr(exc, "parameter", None),
            "message": str(exc).split("\n")[0][:300],
        }
    return {"outcome": "ok", "type": None, "parameter": None, "message": ""}


def _address_space() -> int:
    with open("/proc/self/status") as status:
        return int(re.search(r"VmSize:\s+(\d+)", status.read()).group(1)) * 1024


def main() -> None:
    warnings.simplefilter("ignore")
    import qwkit.cli._app  # noqa: F401 - loaded before the limit, as the library is

    cases = _cases()
    for name, call in cases.items():
        for family in WARM_UP:
            result = _outcome(call, FAMILIES[family])
            if result["outcome"] != "ok":
                raise SystemExit(f"warm-up of {name!r} on {family} ratings: {result}")
    limit = _address_space() + HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    for name, call in cases.items():
        for family in EXTREME:
            line = {"case": name, "family": family, **_outcome(call, FAMILIES[family])}
            print(json.dumps(line), flush=True)
    for name, call in LIMITED.items():
        print(json.dumps({"case": name, "family": "any", **_outcome(call)}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
