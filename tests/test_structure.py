"""The map of the package in CONTRIBUTING.md is the truth: every module has a floor, and
every import of a qwkit module goes down (or stays on its own floor), with the declared
feature-on-feature imports as the only exceptions."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "qwkit"
MAP = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
FEATURES = 4


def _floors() -> dict[str, int]:
    """Module name (or prefix ending in '*', or folder ending in '/') → floor."""
    floors: dict[str, int] = {}
    for line in MAP.splitlines():
        row = re.match(r"\| (\d) \| (.*?) \| (.*) \|$", line)
        if row is None:
            continue
        cell = row.group(2) if "`" in row.group(2) else row.group(3)
        for name in re.findall(r"`([^`]+)`", cell):
            if re.fullmatch(r"[A-Za-z_][\w]*[*/]?", name):
                floors.setdefault(name, int(row.group(1)))
    return floors


FLOORS = _floors()
#: The feature-on-feature imports CONTRIBUTING.md allows ("`_a` → `_b`").
ALLOWED = set(re.findall(r"`(_\w+)` → `(_\w+)`", MAP))


def floor_of(dotted: str) -> int | None:
    top = dotted.split(".")[0]
    if f"{top}/" in FLOORS:
        return FLOORS[f"{top}/"]
    if top in FLOORS:
        return FLOORS[top]
    for name, floor in FLOORS.items():
        if name.endswith("*") and top.startswith(name[:-1]):
            return floor
    return None


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1] or ("__init__",)
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(qwkit module imported, whether it is a public name of ``qwkit`` itself)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "qwkit":
                for alias in node.names:
                    module = alias.name in MODULES or f"{alias.name}/" in FLOORS
                    found.append((alias.name, not module))
            elif node.module.startswith("qwkit."):
                found.append((node.module.removeprefix("qwkit."), False))
        elif isinstance(node, ast.Import):
            found += [
                (a.name.removeprefix("qwkit."), False)
                for a in node.names
                if a.name.startswith("qwkit.")
            ]
    return found


def test_the_map_was_read():
    assert FLOORS["_kernels/"] == 1 and FLOORS["_base/"] == 2 and FLOORS["cli/"] == 6


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_has_a_floor(module):
    assert floor_of(module) is not None, f"{module} is not in CONTRIBUTING.md's map"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module):
    mine = floor_of(module)
    for target, public in _imports(MODULES[module]):
        if public:  # `from qwkit import kappa_score`: the public API, for features and up
            assert mine >= FEATURES, f"{module} (floor {mine}) uses the public API: {target}"
            continue
        theirs = floor_of(target)
        assert theirs is not None, f"{module} imports {target}, which has no floor"
        assert theirs <= mine, f"{module} (floor {mine}) imports {target} (floor {theirs})"
        top, their_top = module.split(".")[0], target.split(".")[0]
        if mine == theirs == FEATURES and top != their_top:
            same_family = top.startswith("_agreement") and their_top.startswith("_agreement")
            assert same_family or (top, their_top) in ALLOWED, (
                f"{module} imports another feature's internals ({target}); move the shared "
                "piece down a floor or declare the dependency in CONTRIBUTING.md"
            )
