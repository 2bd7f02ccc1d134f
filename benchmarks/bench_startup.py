"""How fast qwkit starts: ``import qwkit``, ``qwkit --help``, ``qwkit --version`` and a
first ``kappa_score`` call, each a new process, against ``python -c "import numpy"``.

Run from the repository root (``make bench`` runs it this way)::

    nice .venv/bin/python benchmarks/bench_startup.py                 # this tree
    nice .venv/bin/python benchmarks/bench_startup.py --rounds 5      # a check
    nice .venv/bin/python benchmarks/bench_startup.py --baseline /tmp/old/src

``--baseline`` times a second source tree (a ``src`` folder, e.g. from ``git archive
<commit> src``) in the same rounds, so that the two trees are compared side by side.

Every command runs in a new process with this interpreter (the ``qwkit`` script beside
it, as pip installs it, or one written the same way) and the tree first on
``PYTHONPATH``; its time is the wall clock from start to exit. Each command runs once
first (numba compiles the kernels the kappa call needs, or finds them in its cache:
the kappa row is a process after an install's first, as users run it), then ``--rounds``
rounds run every command once each, interleaved, so that other work on the machine
slows them alike. The figure is the **median over rounds of the ratio within a round**
to ``python -c "import numpy"`` (``_timing.paired``); the goals (issue 29): ``import
qwkit`` ≤ 1.5×, ``qwkit --help`` and ``--version`` ≤ 2×, and the first kappa call no
slower than before. The machine, versions and load are recorded (``_machine``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine
import _timing

ROOT = Path(__file__).resolve().parents[1]
#: What pip writes as the ``qwkit`` script (the entry point ``qwkit.cli:main``).
SCRIPT = """import sys
from qwkit.cli import main
if __name__ == '__main__':
    sys.argv[0] = sys.argv[0].removesuffix('.exe')
    sys.exit(main())
"""
KAPPA = (
    "import numpy as np, qwkit\n"
    "rng = np.random.default_rng(20261121)\n"
    "y1 = rng.integers(0, 5, 1000); y2 = np.clip(y1 + rng.integers(-1, 2, 1000), 0, 4)\n"
    "qwkit.kappa_score(y1, y2)\n"
)
REFERENCE = "`python -c 'import numpy'`"
#: name -> (arguments after the interpreter, or None for the script; goal as × numpy)
COMMANDS = {
    REFERENCE: (["-c", "import numpy"], None),
    "`python -c 'import qwkit'`": (["-c", "import qwkit"], 1.5),
    "`qwkit --help`": (None, 2.0),
    "`qwkit --version`": (None, 2.0),
    "`python -m qwkit --version`": (["-m", "qwkit", "--version"], 2.0),
    "first `kappa_score` call (1,000 ratings)": (["-c", KAPPA], None),
}


def script(folder: Path) -> Path:
    """The ``qwkit`` script beside this interpreter, or one written as pip writes it."""
    installed = Path(sys.executable).parent / "qwkit"
    if installed.is_file():
        return installed
    path = folder / "qwkit"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def runner(args: list[str], src: Path):
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("NUMBA_CACHE_DIR", None)

    def run() -> None:
        subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="a second tree's src folder")
    parser.add_argument("--output", help="also append the results to this file")
    args = parser.parse_args()
    trees = {"this tree": ROOT / "src"}
    if args.baseline:
        trees["baseline"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory(prefix="qwkit-startup-") as tmp:
        qwkit_script = script(Path(tmp))
        fns = {}
        for tree, src in trees.items():
            for name, (argv, _) in COMMANDS.items():
                if argv is None:
                    argv = [str(qwkit_script), name.strip("`").split()[1]]
                fns[(tree, name)] = runner([sys.executable, *argv], src)
        times = _timing.measure(fns, args.rounds)
    # the reference of a tree is its own round's numpy (they are the same command)
    lines = ["# Start-up: new processes against `python -c 'import numpy'`", ""]
    head = "| command | goal |"
    rule = "|---|---:|"
    for tree in trees:
        head += f" {tree}: median (s) | {tree}: × numpy |"
        rule += "---:|---:|"
    lines += [head, rule]
    verdicts = []
    for name, (_, goal) in COMMANDS.items():
        row = f"| {name} | {f'≤ {goal}×' if goal else ''} |"
        for tree in trees:
            seconds = statistics.median(times[(tree, name)])
            ratio, _ = _timing.paired(times, (tree, name), (tree, REFERENCE))
            row += f" {seconds:.3f} | {ratio:.2f} |"
            if tree == "this tree" and goal:
                verdicts.append(
                    f"{name}: {ratio:.2f}× numpy, goal ≤ {goal}×: "
                    + ("met" if ratio <= goal else "**not met**")
                )
        lines.append(row)
    if "baseline" in trees:
        kappa = "first `kappa_score` call (1,000 ratings)"
        ratio, _ = _timing.paired(times, ("this tree", kappa), ("baseline", kappa))
        verdicts.append(f"{kappa}: this tree / baseline {ratio:.2f} (goal: no slower)")
    lines += ["", *[f"- {v}" for v in verdicts], ""]
    installed = qwkit_script.parent == Path(sys.executable).parent
    how = "the one installed beside it" if installed else "written as pip writes it"
    lines += [
        f"Medians over {args.rounds} interleaved rounds (wall clock of each process; the "
        "ratio is the median of the ratios within a round). Interpreter: "
        f"`{Path(sys.executable).name}`, the `qwkit` script: {how}.",
        "",
        *_machine.describe(threads="numba's default threads"),
    ]
    _machine.emit("\n".join(lines), args.output)


if __name__ == "__main__":
    main()
