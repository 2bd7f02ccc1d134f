"""Benchmark ``qwkit.torch``: one forward and backward pass of each kappa loss, per batch size.

Run from the repository root::

    .venv/bin/python benchmarks/bench_torch.py                    # prints a Markdown report
    .venv/bin/python benchmarks/bench_torch.py --quick            # fewer repeats, a check
    .venv/bin/python benchmarks/bench_torch.py --baseline c2fbc57^ --baseline 6c57f3c \
        > benchmarks/README_torch.md                               # as committed

(``c2fbc57^`` is qwkit.torch before the float32 sums and the checks without host reads of
issue 18, ``6c57f3c`` the code of version 0.2.0 that had them.)

What is timed: ``loss(input, target).backward()`` on CPU, one intra-op thread
(``torch.set_num_threads(1)``), float32, for batch sizes 1 to 4,096:

* ``SoftKappaLoss()`` on real-valued scores of shape (B,) and ``WeightedKappaLoss(5)`` on
  class logits of shape (B, 5), in training mode (each call also folds the batch into
  the running statistics), after one call that gives them a state; with the default
  ``validate_args=True`` (one read of the checks per call) and with ``False`` (none);
* the functions ``soft_kappa_loss`` and ``weighted_kappa_loss`` (the batch ratio);
* for scale, PyTorch's ``mse_loss`` on the scores and ``cross_entropy`` on the logits.

The input is a leaf tensor that requires a gradient (its ``.grad`` is cleared between
calls), as a model's output would be, without a model. At these sizes a loss costs what
its tensor operations cost to dispatch (a microsecond or so each, forward and backward),
not what they compute, so the tables report microseconds per call and the ratio to MSE.

Timing: every contender is run in turn, ``--repeats`` times, each time for a block of
calls long enough to be measured (about 20 ms); the best block gives its time per call.
Time is the CPU time of the thread (``time.thread_time``; with one intra-op thread all
the work runs there), which time spent waiting for a core on a shared machine does not
inflate. Interleaving the contenders and taking the best block keeps the comparison
fair: what load remains (a busy sibling core, a cold cache) slows every contender alike
and no block below its best.

``--baseline REV`` (repeatable) adds qwkit.torch as it was at git revision REV: its three
modules are read with ``git show`` into a temporary directory (never into the
repository), their imports pointed at the present package's helpers (``_extras``,
``_validation``), and imported as a separate package. Before the timing, the script
checks that every contender of a baseline gives the same loss and gradient as the
present code on the same data, after the same state (to 1e-5, relative), and says so.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine

import qwkit.torch as current

HERE = Path(__file__).resolve().parent
SEED = 20261121
K = 5
SIZES = (1, 16, 64, 256, 4096)
BLOCK_SECONDS = 0.02


# ---------------------------------------------------------------------------- baseline


def load_baseline(revision: str, index: int = 0):
    """qwkit.torch at ``revision``, imported from a temporary copy as its own package."""
    repo = HERE.parent
    folder = Path(tempfile.mkdtemp(prefix="qwkit-torch-baseline-"))
    name = f"qwkit_torch_baseline{index}"  # the package's name
    package = folder / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module in ("torch.py", "_torch_shared.py", "_torch_metrics.py"):
        for path in (f"src/qwkit/{module}", f"src/qwkit/_integrations/{module}"):
            shown = subprocess.run(
                ["git", "-C", str(repo), "show", f"{revision}:{path}"],
                capture_output=True,
                text=True,
            )
            if shown.returncode == 0:
                break
        else:
            raise SystemExit(f"git show {revision}: no {module} in src/qwkit or _integrations")
        text = shown.stdout
        for old, new in (
            ("from qwkit._extras import", "from qwkit._base._extras import"),
            ("from qwkit._validation import", "from qwkit._base._validation import"),
            ("from qwkit import _torch_shared", f"from {name} import _torch_shared"),
            ("from qwkit._integrations import _torch_shared", f"from {name} import _torch_shared"),
            ("from qwkit._torch_metrics import", f"from {name}._torch_metrics import"),
            (
                "from qwkit._integrations._torch_metrics import",
                f"from {name}._torch_metrics import",
            ),
        ):
            text = text.replace(old, new)
        (package / module).write_text(text)
    sys.path.insert(0, str(folder))
    module = importlib.import_module(f"{name}.torch")
    commit = subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%h, %cd", "--date=short", revision],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return module, commit


# ---------------------------------------------------------------------------- contenders


def data(n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    target = torch.randint(0, K, (n,), generator=g)
    score = target + torch.randn(n, generator=g)
    logits = torch.randn(n, K, generator=g) + 2.0 * F.one_hot(target, K)
    return score, target, logits


def contenders(lib, n: int):
    """name → (make, kind): ``make()`` returns a loss taking (input, target)."""
    out = {
        "SoftKappaLoss": (lambda: lib.SoftKappaLoss(), "score"),
        "WeightedKappaLoss": (lambda: lib.WeightedKappaLoss(K), "logits"),
        "soft_kappa_loss": (lambda: lib.soft_kappa_loss, "score"),
        "weighted_kappa_loss": (lambda: lib.weighted_kappa_loss, "logits"),
    }
    if lib is current:
        out["SoftKappaLoss, validate_args=False"] = (
            lambda: lib.SoftKappaLoss(validate_args=False),
            "score",
        )
        out["WeightedKappaLoss, validate_args=False"] = (
            lambda: lib.WeightedKappaLoss(K, validate_args=False),
            "logits",
        )
    return out


def prepared(make, kind: str, n: int):
    """A callable running one forward and backward pass, on a module with a state."""
    score, target, logits = data(n, SEED)
    fn = make()
    x = (score if kind == "score" else logits).clone().requires_grad_(True)
    t = target.float() if kind == "score" else target
    if isinstance(fn, torch.nn.Module):
        warm_score, warm_target, warm_logits = data(max(n, 64), SEED + 1)
        warm = warm_score if kind == "score" else warm_logits
        fn(warm, warm_target.float() if kind == "score" else warm_target)

    def step():
        x.grad = None
        fn(x, t).backward()

    return step


def references(n: int):
    score, target, logits = data(n, SEED)
    x = score.clone().requires_grad_(True)
    z = logits.clone().requires_grad_(True)
    y = target.float()

    def mse():
        x.grad = None
        F.mse_loss(x, y).backward()

    def cross_entropy():
        z.grad = None
        F.cross_entropy(z, target).backward()

    return {"mse_loss": mse, "cross_entropy": cross_entropy}


# ---------------------------------------------------------------------------- checks


def value_and_grad(lib, name, n):
    make, kind = contenders(lib, n)[name]
    score, target, logits = data(n, SEED)
    fn = make()
    if isinstance(fn, torch.nn.Module):
        fn = fn.double()
        warm_score, warm_target, warm_logits = data(max(n, 64), SEED + 1)
        warm = warm_score if kind == "score" else warm_logits
        fn(warm.double(), warm_target.double() if kind == "score" else warm_target)
    x = (score if kind == "score" else logits).double().requires_grad_(True)
    loss = fn(x, target.double() if kind == "score" else target)
    loss.backward()
    return loss.detach(), x.grad


def check_baseline(baseline) -> list[str]:
    """Relative differences of the baseline's losses and gradients from the present ones."""
    lines = []
    for n in (16, 256):
        for name in contenders(baseline, n):
            v0, g0 = value_and_grad(current, name, n)
            v1, g1 = value_and_grad(baseline, name, n)
            dv = float((v0 - v1).abs() / v1.abs())
            dg = float((g0 - g1).abs().max() / g1.abs().max())
            if not (dv < 1e-5 and dg < 1e-5):
                raise SystemExit(f"{name} at B = {n}: loss differs by {dv:.1e}, gradient {dg:.1e}")
            lines.append(f"{name}, B = {n}: loss {dv:.0e}, gradient {dg:.0e}")
    return lines


# ---------------------------------------------------------------------------- timing


def calls_per_block(step) -> int:
    for _ in range(5):
        step()
    start = time.thread_time()
    step()
    once = time.thread_time() - start
    return max(1, int(BLOCK_SECONDS / max(once, 1e-7)))


def time_all(steps: dict, repeats: int) -> dict[str, float]:
    """Best time per call (µs) of each step, the steps run in turn ``repeats`` times."""
    blocks = {name: calls_per_block(step) for name, step in steps.items()}
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(repeats):
        for name, step in steps.items():
            calls = blocks[name]
            start = time.thread_time()
            for _ in range(calls):
                step()
            best[name] = min(best[name], (time.thread_time() - start) / calls * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline", action="append", default=[], help="a git revision to time beside"
    )
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 repeats, sizes 1, 64, 4096")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    sizes = (1, 64, 4096) if args.quick else SIZES
    repeats = 3 if args.quick else args.repeats

    baselines, checks = [], []
    for index, revision in enumerate(args.baseline):
        module, commit = load_baseline(revision, index)
        baselines.append((module, commit))
        checks.append((revision, commit, check_baseline(module)))

    started = time.perf_counter()
    results = {}
    for n in sizes:
        steps = dict(references(n))
        for name, (make, kind) in contenders(current, n).items():
            steps[name] = prepared(make, kind, n)
        for module, commit in baselines:
            for name, (make, kind) in contenders(module, n).items():
                steps[f"{name} @ {commit.split(',')[0]}"] = prepared(make, kind, n)
        results[n] = time_all(steps, repeats)
    minutes = (time.perf_counter() - started) / 60

    print("# qwkit.torch: time of one forward and backward pass\n")
    print(
        "Generated by `python benchmarks/bench_torch.py"
        + "".join(f" --baseline {revision}" for revision in args.baseline)
        + f"` ({minutes:.1f} minutes). Best of {repeats} interleaved blocks of ~20 ms per "
        "contender, in CPU time of the thread; CPU, float32, one intra-op thread. "
        "Microseconds per call (forward and backward), and in parentheses the ratio to "
        "`mse_loss` at the same batch size.\n"
    )
    extra = {"torch": torch.__version__}
    for line in _machine.describe("one thread (torch.set_num_threads(1))", extra):
        print(line)
    for revision, commit, lines in checks:
        print(
            f"- rows `@ {commit.split(',')[0]}`: qwkit.torch at `{revision}` ({commit}); the same "
            "losses and gradients as the present code on the same data and state (relative "
            "differences: " + "; ".join(lines) + ")"
        )
    print()
    names = list(results[sizes[0]])
    print("| loss | " + " | ".join(f"B = {n:,}" for n in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for name in names:
        cells = []
        for n in sizes:
            t = results[n][name]
            cells.append(f"{t:,.0f} ({t / results[n]['mse_loss']:.1f}×)")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
