"""Benchmark crowd-scale agreement (issue 21): sparse panels of thousands of raters at the
cost of reading the ratings.

Run from the repository root, at low priority (the lead runs it on a quiet machine)::

    nice .venv/bin/python benchmarks/bench_crowd.py --adult2 ../shared/data/adult2_labels.tsv.gz
    nice .venv/bin/python benchmarks/bench_crowd.py --adult2 ... --append benchmarks/README_crowd.md
    nice .venv/bin/python benchmarks/bench_crowd.py --sizes 1e5 1e6   # a quick check

Each measurement runs in a fresh Python process, so that its peak memory is its own: the
process reads (or simulates) the long-format arrays, warms the compiled kernels up on a
small panel, then records its resident memory (VmRSS: imports, kernels and the input)
and times the work. "Peak above input" is the process's peak resident set size
(``ru_maxrss``) minus that baseline; "input" is the size of the long-format arrays.

* **The real panel**: AdultContent2 (Ipeirotis, Provost & Wang 2010; 825 workers, 11,040
  web sites, 92,721 labels G < P < R < X with 2,922 repeated worker–site pairs:
  ``--duplicates last``): all six coefficients with Gwet's standard errors, and
  ``rater_agreement``; then the command line as a user runs it (``/usr/bin/time -v``).
* **Synthetic crowds**: N ratings, N/5 items rated by 5 raters each, N/200 raters (each
  rates ~200 items; 5,000 raters at N = 10⁶), ratings 1..5 from a latent level plus each
  rater's noise. Linear growth is read from the seconds per million ratings.
* **The krippendorff package** (0.9.0), side by side in one process on the same data:
  where it can hold the dense raters × items matrix (10⁵ ratings over 10⁷ cells: 20,000
  items, 500 raters) qwkit from long format against ``krippendorff.alpha`` on the matrix
  (the pivot from long format timed apart); where it cannot (10⁶ ratings, 200,000 items
  × 5,000 raters = 10⁹ cells) the memory it would need, and what happens when it tries
  under an address-space limit (``--krippendorff-limit``, 4 GiB by default).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import date

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _machine

COEFFICIENTS = ["fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", "light"]
ROOT = pathlib.Path(__file__).resolve().parents[1]

# ---------------------------------------------------------------------------- children

_COMMON = r"""
import json, resource, sys, time, warnings
import numpy as np
import qwkit

COEFFICIENTS = ["fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", "light"]

def rss_mib():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def crowd(n_ratings, seed=20261121):
    n_items, n_raters = n_ratings // 5, max(50, n_ratings // 200)
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), 5)
    start = rng.integers(0, n_raters, n_items)
    step = rng.integers(1, n_raters // 5, n_items)
    raters = ((start[:, None] + step[:, None] * np.arange(5)) % n_raters).ravel()
    latent = rng.normal(size=n_items)
    noise = rng.uniform(0.3, 1.5, n_raters)
    x = latent[items] + rng.normal(size=items.size) * noise[raters]
    return items, raters, np.clip(np.rint(x + 3), 1, 5).astype(np.int64)

def warm_up(labels=None):
    warnings.simplefilter("ignore")
    i, r, v = crowd(2000)
    if labels is not None:
        v = np.asarray(labels, dtype=object)[np.minimum(v - 1, len(labels) - 1)]
    t = qwkit.ratings_from_long(i, r, v, duplicates="last")
    for c in COEFFICIENTS:
        qwkit.agreement_test(t, coefficient=c, labels=labels)
    qwkit.rater_agreement(t, labels=labels)

def run(items, raters, values, labels=None, duplicates="raise"):
    out = {"input_mib": sum(a.nbytes for a in (items, raters, values)) / 2**20}
    base = rss_mib()
    t0 = time.perf_counter()
    table = qwkit.ratings_from_long(items, raters, values, duplicates=duplicates)
    out["table"] = time.perf_counter() - t0
    for c in COEFFICIENTS:
        t = time.perf_counter()
        res = qwkit.agreement_test(table, coefficient=c, labels=labels)
        out[c] = time.perf_counter() - t
        out[c + "_value"] = [res.statistic, res.standard_error]
    out["six"] = time.perf_counter() - t0
    t = time.perf_counter()
    by = qwkit.rater_agreement(table, labels=labels)
    out["rater_agreement"] = time.perf_counter() - t
    out["n_ratings"], out["n_items"], out["n_raters"] = (
        table.n_ratings, table.n_items, table.n_raters)
    out["n_duplicates"] = table.n_duplicates
    out["peak_above_mib"] = peak_mib() - base
    out["base_mib"] = base
    return out, by
"""

_ADULT2 = r"""
import gzip
warm_up(["G", "P", "R", "X"])
rows = [line.rstrip("\n").split("\t") for line in gzip.open(sys.argv[1], "rt")]
raters, items, values = (np.array(col) for col in zip(*rows))
out, by = run(items, raters, values, labels=["G", "P", "R", "X"], duplicates="last")
order = by.ranked()
out["raters_low"] = [str(by.raters[j]) for j in order[:3]]
print(json.dumps(out))
"""

_SYNTH = r"""
warm_up()
items, raters, values = crowd(int(float(sys.argv[1])))
out, _ = run(items, raters, values)
print(json.dumps(out))
"""

_KRIPP = r"""
import krippendorff
warm_up()
n_items, n_raters = 20_000, 500
rng = np.random.default_rng(20261122)
items = np.repeat(np.arange(n_items), 5)
raters = np.concatenate([rng.choice(n_raters, 5, replace=False) for _ in range(n_items)])
latent = rng.normal(size=n_items)
values = np.clip(np.rint(3 + latent[items] + rng.normal(0, 0.7, items.size)), 1, 5)
out = {}
for level, weights in (("nominal", "identity"), ("interval", "quadratic")):
    times = {"qwkit": [], "pivot": [], "krippendorff": []}
    for _ in range(3):
        t = time.perf_counter()
        table = qwkit.ratings_from_long(items, raters, values)
        ours = qwkit.agreement_score(table, coefficient="krippendorff", weights=weights)
        times["qwkit"].append(time.perf_counter() - t)
        t = time.perf_counter()
        dense = np.full((n_raters, n_items), np.nan)
        dense[raters, items] = values
        times["pivot"].append(time.perf_counter() - t)
        t = time.perf_counter()
        ref = krippendorff.alpha(reliability_data=dense, level_of_measurement=level)
        times["krippendorff"].append(time.perf_counter() - t)
        assert abs(ref - ours) < 1e-9, (ref, ours)
    out[level] = {k: min(v) for k, v in times.items()}
    out[level]["alpha"] = ours
print(json.dumps(out))
"""

_KRIPP_FAIL = r"""
import krippendorff
limit = int(float(sys.argv[2]))
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
items, raters, values = crowd(int(float(sys.argv[1])))
n_items, n_raters = items.max() + 1, raters.max() + 1
try:
    dense = np.full((n_raters, n_items), np.nan)
    dense[raters, items] = values
    krippendorff.alpha(reliability_data=dense, level_of_measurement="nominal")
    print(json.dumps({"ok": True}))
except MemoryError as exc:
    print(json.dumps({"ok": False, "error": type(exc).__name__ + ": " + str(exc)[:160]}))
"""


def _child(body: str, *args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-c", _COMMON + textwrap.dedent(body), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cli(adult2: str, *extra: str) -> dict:
    """The command line on the real panel: wall time and peak memory of the process."""
    with tempfile.TemporaryDirectory() as tmp:
        data = pathlib.Path(tmp) / "adult2.tsv"
        import gzip

        with gzip.open(adult2, "rt") as src, open(data, "w") as dst:
            dst.write("worker\tsite\tlabel\n")
            dst.write(src.read())
        report = pathlib.Path(tmp) / "adult2.html"
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        cmd = [
            "/usr/bin/time", "-v", sys.executable, "-m", "qwkit", "agreement", str(data),
            "--sep", "tab", "--long", "--item", "site", "--rater", "worker", "--rating",
            "label", "--labels", "G,P,R,X", "--duplicates", "last",
            *[str(report) if x == "REPORT" else x for x in extra],
        ]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise SystemExit(done.stderr[-3000:])
        out = {"report_kib": report.stat().st_size / 1024 if report.exists() else 0.0}
        for line in done.stderr.splitlines():
            line = line.strip()
            if line.startswith("Elapsed (wall clock)"):
                clock = line.rsplit(" ", 1)[1].split(":")
                out["wall"] = sum(float(x) * 60**k for k, x in enumerate(reversed(clock)))
            if line.startswith("Maximum resident set size"):
                out["max_rss_mib"] = int(line.rsplit(" ", 1)[1]) / 1024
        return out


# ---------------------------------------------------------------------------- tables


def _coefficient_rows(out: dict) -> list[str]:
    lines = ["| step | seconds | value (SE) |", "|---|---:|---|"]
    lines.append(f"| `ratings_from_long` | {out['table']:.3f} | |")
    for c in COEFFICIENTS:
        v, se = out[c + "_value"]
        lines.append(f"| `agreement_test`, {c} | {out[c]:.3f} | {v:.4f} ({se:.4f}) |")
    lines.append(f"| **all six with SEs, from long format** | **{out['six']:.2f}** | |")
    lines.append(f"| `rater_agreement` | {out['rater_agreement']:.3f} | |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adult2", help="path of adult2_labels.tsv.gz (skipped without it)")
    parser.add_argument("--sizes", nargs="+", default=["1e5", "1e6", "1e7"])
    parser.add_argument("--krippendorff-limit", type=float, default=4 * 2**30, help="bytes")
    parser.add_argument("--append", help="append the markdown section to this file")
    args = parser.parse_args(argv)
    started = time.time()
    sections = []
    if args.adult2:
        out = _child(_ADULT2, args.adult2)
        plain = _cli(args.adult2)
        cli = _cli(args.adult2, "--by-rater", "--report", "REPORT")
        lines = [
            "### The real panel: AdultContent2, 825 workers",
            "",
            f"{out['n_ratings']:,} ratings of {out['n_items']:,} sites by {out['n_raters']:,} "
            f"workers ({out['n_duplicates']:,} repeated worker–site labels left out, "
            '`duplicates="last"`), labels G < P < R < X, quadratic weights.',
            "",
            *_coefficient_rows(out),
            "",
            f"- peak memory above the input (input {out['input_mib']:.1f} MiB, process "
            f"baseline {out['base_mib']:.0f} MiB): **{out['peak_above_mib']:.0f} MiB**",
            f"- the command line, `qwkit agreement FILE --long … --duplicates last` (every "
            f"coefficient): **{plain['wall']:.2f} s** wall clock, "
            f"**{plain['max_rss_mib']:.0f} MiB** peak resident memory (the whole process: "
            "Python, numpy, numba, typer, pyarrow); with `--by-rater --report` (and "
            f"matplotlib): **{cli['wall']:.2f} s**, **{cli['max_rss_mib']:.0f} MiB**, a "
            f"report of {cli['report_kib']:.0f} KiB. Before (issue 21): 199 s, 17.9 GB and a "
            "34.6 MB report.",
            f"- lowest-ranked workers (`rater_agreement`): {', '.join(out['raters_low'])}",
            "",
        ]
        sections.append("\n".join(lines))
    scaling = []
    for size in args.sizes:
        out = _child(_SYNTH, size)
        scaling.append(out)
        if float(size) == 1e6:
            lines = [
                "### A synthetic crowd of 10⁶ ratings: 5,000 raters, 200,000 items, 5 each",
                "",
                *_coefficient_rows(out),
                "",
                f"- peak memory above the input: **{out['peak_above_mib']:.0f} MiB** "
                f"({out['peak_above_mib'] / out['input_mib']:.1f}× the {out['input_mib']:.1f} "
                "MiB of the long-format arrays)",
                "",
            ]
            sections.append("\n".join(lines))
    lines = [
        "### Growth with the number of ratings",
        "",
        "| ratings | items | raters | table + six coefficients with SEs (s) | s per 10⁶ "
        "ratings | `rater_agreement` (s) | peak above input (MiB) | × input |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for out in scaling:
        per = out["six"] / (out["n_ratings"] / 1e6)
        lines.append(
            f"| {out['n_ratings']:,} | {out['n_items']:,} | {out['n_raters']:,} | "
            f"{out['six']:.2f} | {per:.2f} | {out['rater_agreement']:.2f} | "
            f"{out['peak_above_mib']:.0f} | {out['peak_above_mib'] / out['input_mib']:.1f} |"
        )
    sections.append("\n".join(lines) + "\n")
    kr = _child(_KRIPP)
    fail = _child(_KRIPP_FAIL, "1e6", str(args.krippendorff_limit))
    cells, values = 5_000 * 200_000, 5
    need = cells * 8 + cells * values  # the float64 matrix and its value-count booleans
    lines = [
        "### Against the krippendorff package",
        "",
        "10⁵ ratings over 10⁷ cells (20,000 items × 500 raters, 5 ratings an item); best "
        "of 3, the same α to 1e-9:",
        "",
        "| level | qwkit from long format (s) | pivot to raters × items (s) | "
        "`krippendorff.alpha` (s) | krippendorff / qwkit | with the pivot |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for level in ("nominal", "interval"):
        r = kr[level]
        lines.append(
            f"| {level} | {r['qwkit']:.4f} | {r['pivot']:.4f} | {r['krippendorff']:.4f} | "
            f"{r['krippendorff'] / r['qwkit']:.0f}× | "
            f"{(r['krippendorff'] + r['pivot']) / r['qwkit']:.0f}× |"
        )
    said = "ran" if fail["ok"] else f"failed: `{fail['error']}`"
    lines += [
        "",
        f"10⁶ ratings (the crowd above): the dense matrix has 10⁹ cells, "
        f"{cells * 8 / 2**30:.1f} GiB of float64, and `krippendorff.alpha` compares it "
        f"with each of the {values} values (a boolean array of {cells * values / 2**30:.1f} "
        f"GiB): about {need / 2**30:.0f} GiB, {need / (3 * 8 * 1e6):.0f}× the long-format "
        "input.",
        f"Under a {args.krippendorff_limit / 2**30:.0f} GiB address-space limit "
        f"it {said}. qwkit computes all six coefficients of that panel, with standard "
        "errors, in the seconds of the table above.",
        "",
    ]
    sections.append("\n".join(lines))
    header = [
        f"## Crowd-scale agreement ({date.today()})",
        "",
        *_machine.describe(
            "one process per measurement",
            {"krippendorff": importlib.metadata.version("krippendorff")},
        ),
        f"- total run {time.time() - started:.0f} s; peak memory of this driver "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB",
        "",
    ]
    _machine.emit("\n".join(header) + "\n" + "\n".join(sections), args.append)


if __name__ == "__main__":
    main()
