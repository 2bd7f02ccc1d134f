"""What the first run after an install costs: numba compiling qwkit's kernels.

Run from the repository root (builds the wheel; nothing is downloaded)::

    .venv/bin/python benchmarks/first_run.py               # 3 fresh installs, a Markdown table
    .venv/bin/python benchmarks/first_run.py --repeats 1   # a check

For each repeat, a fresh virtual environment gets the wheel built from this tree (``pip
install --no-deps``; the dependencies are this environment's, reached through a ``.pth``
file), and these commands run there, each in a new process, timed by the wall clock:

* ``python -c "import qwkit"`` — the interpreter and the import, no compilation;
* ``python -c "import qwkit; qwkit.kappa_score(y1, y2)"`` (1,000 integer ratings), run
  twice: the first compiles the kernels it needs and writes them to numba's disk cache
  (``qwkit/_kernels/__pycache__`` of the installed package), the second reads them back;
  the time of the call alone is measured inside the process too;
* ``qwkit demo`` in a second fresh environment, run twice the same way.

The medians over the repeats are printed with the machine, versions and load.
"""

from __future__ import annotations

import argparse
import os
import site
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine

ROOT = Path(__file__).resolve().parents[1]
PIP = [sys.executable, "-m", "pip"]
BUILD = [sys.executable, "-m", "build", "--no-isolation", "--wheel"]
CLEARED = {"PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES"}
KAPPA = (
    "import time, numpy as np, qwkit\n"
    "rng = np.random.default_rng(20261121)\n"
    "y1 = rng.integers(0, 5, 1000); y2 = np.clip(y1 + rng.integers(-1, 2, 1000), 0, 4)\n"
    "start = time.perf_counter(); qwkit.kappa_score(y1, y2)\n"
    "print(time.perf_counter() - start)\n"
)


def run(command: list[str], cwd: Path) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    start = time.perf_counter()
    out = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, out.stdout


def fresh(root: Path, wheel: Path) -> Path:
    """A new virtual environment with the wheel alone; returns its bin folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "zz_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        check=True,
    )
    return root / "bin"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {}

    def record(name: str, seconds: float) -> None:
        times.setdefault(name, []).append(seconds)

    with tempfile.TemporaryDirectory(prefix="qwkit-first-run-") as tmp:
        tmp = Path(tmp)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "build",
                "--no-isolation",
                "--wheel",
                "--outdir",
                str(tmp),
                str(ROOT),
            ],
            check=True,
            capture_output=True,
        )
        (wheel,) = tmp.glob("*.whl")
        for repeat in range(args.repeats):
            bin_ = fresh(tmp / f"kappa-{repeat}", wheel)
            record(
                "`python -c 'import qwkit'`",
                run([str(bin_ / "python"), "-c", "import qwkit"], tmp)[0],
            )
            for which in ("first", "second"):
                wall, out = run([str(bin_ / "python"), "-c", KAPPA], tmp)
                record(f"`kappa_score` process, {which} run", wall)
                record(f"`kappa_score` call alone, {which} run", float(out.strip()))
            bin_ = fresh(tmp / f"demo-{repeat}", wheel)
            for which in ("first", "second"):
                record(
                    f"`qwkit demo`, {which} run",
                    run([str(bin_ / "qwkit"), "demo", "--output", f"demo-{repeat}-{which}"], tmp)[
                        0
                    ],
                )
    print("# The first run after an install\n")
    print(f"| command (new process, fresh install) | median of {args.repeats} (s) | all (s) |")
    print("|---|---:|---|")
    for name, values in times.items():
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"| {name} | {statistics.median(values):.2f} | {shown} |")
    print()
    print("\n".join(_machine.describe(threads="numba's default threads")))


if __name__ == "__main__":
    main()
