"""The folders of ``src/qwkit`` are its floors; every import goes down.

The floor of a module is read from where it lies (CONTRIBUTING.md draws the same map):

1. ``_kernels/`` — numba only;
2. ``_base/`` — what every feature shares;
3. ``_table/`` — the two-rater table and inference on it;
4. features — every other private module or folder at the top (``_kappa/``,
   ``_costs.py``...): a new feature is one by being there;
5. ``__init__`` — the flat public API;
6. integrations — every public module at the top (``qwkit.sklearn``, ...) and
   ``_integrations/``, what they keep to themselves;
7. ``cli/`` and ``__main__``.

A module imports from its own floor or below. Within the ground floors (1–3) a module
imports its own folder or a lower one; a feature imports no other feature (what two
features need moves down a floor) and not the public API above it; integrations and the
command line import no feature's private names (the public API and the ground floors
only), and only integrations import ``_integrations/``. No two modules import each other,
even through others.

Lazy imports count as imports: the public API's homes are named by its
``TYPE_CHECKING`` imports, and a call whose first argument names a module
(``Lazy("qwkit.cli._cmd_score", ...)``, ``import_module("qwkit._kappa")``) imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "qwkit"
#: The ground floors, bottom up.
GROUND = ("_kernels", "_base", "_table")
FEATURES, API, INTEGRATIONS, CLI = 4, 5, 6, 7
INTEGRATION_HELPERS = "_integrations"


def _modules() -> dict[str, Path]:
    """Dotted name under ``qwkit`` (``"__init__"`` for the package itself) → file."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1] or ("__init__",)
        out[".".join(parts)] = path
    return out


MODULES = _modules()
#: The names at the top of the package: modules (``_costs``) and folders (``_kappa``).
TOPS = {name.split(".")[0] for name in MODULES}


def floor_of(dotted: str) -> int:
    top = dotted.split(".")[0]
    if top in GROUND:
        return GROUND.index(top) + 1
    if top == "__init__":
        return API
    if top in ("cli", "__main__"):
        return CLI
    if top == INTEGRATION_HELPERS or not top.startswith("_"):
        return INTEGRATIONS
    return FEATURES


def _imports(path: Path) -> list[str]:
    """The qwkit modules a file imports ("__init__" for a public name of ``qwkit``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: a relative import; qwkit imports absolutely"
            if node.module == "qwkit":
                for alias in node.names:
                    found.append(alias.name if alias.name in TOPS else "__init__")
            elif node.module and node.module.startswith("qwkit."):
                module = node.module.removeprefix("qwkit.")
                for alias in node.names:  # `from qwkit._base import _weights`
                    child = f"{module}.{alias.name}"
                    found.append(child if child in MODULES else module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "qwkit":
                    found.append("__init__")
                elif alias.name.startswith("qwkit."):
                    found.append(alias.name.removeprefix("qwkit."))
        elif isinstance(node, ast.Call) and node.args:  # a lazy import: Lazy("qwkit.cli._x", ...)
            first = node.args[0]
            named = first.value if isinstance(first, ast.Constant) else None
            if isinstance(named, str) and named.startswith("qwkit."):
                found.append(named.removeprefix("qwkit."))
    return found


IMPORTS = {module: _imports(path) for module, path in MODULES.items()}


def test_the_floors_were_read():
    assert floor_of("_kernels._sums") == 1 and floor_of("_base._weights") == 2
    assert floor_of("_table._cells") == 3 and floor_of("_kappa._score") == FEATURES
    assert floor_of("_costs") == FEATURES and floor_of("sklearn") == INTEGRATIONS
    assert floor_of("_integrations._boosting") == INTEGRATIONS and floor_of("cli._app") == CLI
    assert {"_kernels", "_base", "_table", "_kappa", "cli", "sklearn"} <= TOPS
    assert "_base._validation" in IMPORTS["_kappa._score"]
    assert "__init__" in IMPORTS["economics"]
    assert "cli._cmd_score" in IMPORTS["cli._app"]  # lazy: Lazy("qwkit.cli._cmd_score", ...)
    assert "_kappa" in IMPORTS["__init__"]  # lazy: the TYPE_CHECKING imports name the homes


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module):
    mine, top = floor_of(module), module.split(".")[0]
    for target in IMPORTS[module]:
        assert target.split(".")[0] in TOPS, f"{module} imports {target}, which does not exist"
        theirs, their_top = floor_of(target), target.split(".")[0]
        assert theirs <= mine, f"{module} (floor {mine}) imports {target} (floor {theirs})"
        if mine < FEATURES:
            assert theirs < mine or their_top == top, f"{module} imports {target}"
        if mine == FEATURES:
            assert theirs < FEATURES or their_top == top, (
                f"{module} imports another feature ({target}); move the shared piece down a floor"
            )


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if floor_of(m) > API and not m.startswith("_integrations"))
)
def test_integrations_and_cli_use_no_feature_privates(module):
    for target in IMPORTS[module]:
        floor = floor_of(target)
        assert floor != FEATURES, f"{module} imports a feature's private module {target}"
        if target.startswith(INTEGRATION_HELPERS):
            assert floor_of(module) == INTEGRATIONS, f"{module} imports {target}"


def test_no_circles():
    """Depth-first search for a cycle among the modules (imports inside functions too)."""
    graph = {m: {t for t in IMPORTS[m] if t in MODULES and t != m} for m in MODULES}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                loop = [*path[path.index(nxt) :], nxt]
                raise AssertionError("import circle: " + " -> ".join(loop))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
