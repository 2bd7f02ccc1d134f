"""qwkit starts at once: ``import qwkit`` loads nothing but itself, ``qwkit --help`` and
``qwkit --version`` load no command and none of the numerics, and every public name
still resolves — lazily (PEP 562), as it did eagerly.

No timing here: how fast is measured by ``benchmarks/bench_startup.py``. These tests
read which modules a new process loaded (``python -X importtime`` lists every module
it imports) and hold the registries of the lazy imports to what they serve.
"""

from __future__ import annotations

import ast
import inspect
import os
import pickle
import pydoc
import subprocess
import sys
import typing
from importlib import import_module
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import qwkit
from qwkit import _kernels
from qwkit.cli import _app

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "qwkit"
#: Never loaded by ``import qwkit``, ``qwkit --help`` or ``qwkit --version``.
HEAVY = (
    "numpy",
    "scipy",
    "numba",
    "llvmlite",
    "pandas",
    "polars",
    "pyarrow",
    "matplotlib",
    "sklearn",
    "lightgbm",
    "xgboost",
    "torch",
    "dask",
)
#: The only modules of qwkit that ``import qwkit`` loads.
PACKAGE_ITSELF = {"qwkit", "qwkit._base", "qwkit._base._startup"}


#: Installed as ``sitecustomize`` in the child: at exit, the names of every module it
#: loaded (``sys.modules``; ``-X importtime`` misses those that ``importlib`` imports).
_REPORT = """
import atexit, os, sys

def _report():
    with open(os.environ["QWKIT_TEST_MODULES"], "w") as fh:
        fh.write("\\n".join(sorted(sys.modules)))

atexit.register(_report)
"""


def _env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(PACKAGE.parent), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "80", **extra}


def imported(tmp_path: Path, *args: str) -> tuple[set[str], str]:
    """The modules a new ``python *args`` loads beyond the interpreter's own start-up
    (``python -c pass``), and what it printed."""
    (tmp_path / "sitecustomize.py").write_text(_REPORT, encoding="utf-8")
    report = tmp_path / "modules.txt"
    env = _env(QWKIT_TEST_MODULES=str(report))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])

    def run(*argv: str) -> tuple[set[str], str]:
        done = subprocess.run(
            [sys.executable, *argv], capture_output=True, text=True, env=env, cwd=ROOT
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return set(report.read_text(encoding="utf-8").split()), done.stdout

    bare, _ = run("-c", "pass")
    names, out = run(*args)
    return names - bare, out


def _heavy(names: set[str]) -> list[str]:
    return sorted(n for n in names if n.split(".")[0] in HEAVY)


# ---------------------------------------------------------------------------- what loads


class TestImportLoadsNothing:
    def test_import_qwkit(self, tmp_path):
        names, _ = imported(tmp_path, "-c", "import qwkit")
        assert _heavy(names) == []
        assert {n for n in names if n.split(".")[0] == "qwkit"} == PACKAGE_ITSELF
        third_party = {n.split(".")[0] for n in names} - set(sys.stdlib_module_names)
        assert third_party == {"qwkit"}, third_party

    def test_a_public_name_loads_no_numerics_until_called(self, tmp_path):
        code = "import qwkit; qwkit.kappa_score; qwkit.KappaTestResult; qwkit.ConfidenceInterval"
        names, _ = imported(tmp_path, "-c", code)
        assert not {"numba", "scipy"} & {n.split(".")[0] for n in names}

    def test_a_kappa_loads_numba_but_no_statistics(self, tmp_path):
        code = "import qwkit; print(qwkit.kappa_score([1, 2, 3, 4], [1, 2, 2, 4]))"
        names, out = imported(tmp_path, "-c", code)
        assert out == "0.9\n" and "numba" in names
        # scipy's statistics load where they are used (an interval, a p-value)
        assert not {"scipy.special", "scipy.stats", "scipy.sparse"} & names

    def test_the_kernels_package_loads_numba_when_a_kernel_is_used(self, tmp_path):
        names, _ = imported(tmp_path, "-c", "from qwkit import _kernels")
        assert "numba" not in names
        names, _ = imported(tmp_path, "-c", "from qwkit import _kernels; _kernels.five_sums")
        assert "numba" in names and "qwkit._kernels._sums" in names


class TestCommandLineStartsAtOnce:
    SCRIPT = "import sys\nfrom qwkit.cli import main\nsys.argv[0] = 'qwkit'\nsys.exit(main())\n"

    @pytest.mark.parametrize(
        "argv",
        [
            ["-m", "qwkit", "--version"],
            ["-m", "qwkit", "--help"],
            ["-m", "qwkit", "thresholds", "--help"],
            ["script", "--version"],
            ["script", "--help"],
        ],
        ids=" ".join,
    )
    def test_help_and_version_load_no_command(self, tmp_path, argv):
        if argv[0] == "script":  # the `qwkit` script as pip writes it
            script = tmp_path / "qwkit"
            script.write_text(self.SCRIPT, encoding="utf-8")
            argv = [str(script), *argv[1:]]
        names, out = imported(tmp_path, *argv)
        assert out.startswith("qwkit " if "--version" in argv else "Usage: ")
        assert _heavy(names) == []
        mine = {n for n in names if n.split(".")[0] == "qwkit"}
        assert not [n for n in mine if n.startswith("qwkit.cli._cmd_")]
        assert {n for n in mine if not n.startswith("qwkit.cli")} <= PACKAGE_ITSELF | {
            "qwkit.__main__"
        }

    def test_help_lists_every_command_with_its_help(self, tmp_path):
        _, out = imported(tmp_path, "-m", "qwkit", "--help")
        for name, entry in _app.COMMANDS.items():
            assert f"  {name:<10}  {entry.summary}" in out
        assert "  thresholds  Kappa-optimal cut points: fit them, apply them." in out


# ---------------------------------------------------------------------------- the API


def _registry(path: Path) -> tuple[dict[str, list[str]], list[str], list]:
    """A lazy package's ``TYPE_CHECKING`` imports (module → names), its ``__all__``, and
    its other top-level imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typed: dict[str, list[str]] = {}
    others, names = [], []
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for imp in node.body:
                typed.setdefault(imp.module, []).extend(a.name for a in imp.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            others.append(node)
        elif isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            names = ast.literal_eval(node.value)
    return typed, names, others


class TestPublicNames:
    @pytest.mark.parametrize(
        ("module", "path"),
        [(qwkit, PACKAGE / "__init__.py"), (_kernels, PACKAGE / "_kernels" / "__init__.py")],
        ids=["qwkit", "qwkit._kernels"],
    )
    def test_the_three_lists_agree(self, module, path):
        """A name is registered in ``_HOMES``, the ``TYPE_CHECKING`` imports and
        ``__all__`` (CONTRIBUTING.md, "Start-up")."""
        typed, names, others = _registry(path)
        homes = {home: listed.split() for home, listed in module._HOMES.items()}
        assert typed == homes, "_HOMES and the TYPE_CHECKING imports differ"
        registered = sorted(n for listed in homes.values() for n in listed)
        assert len(registered) == len(set(registered)), "a name has two homes"
        public = sorted(set(names) - {"__version__"})
        assert registered == public, (
            f"in __all__ only: {sorted(set(public) - set(registered))}; "
            f"in _HOMES only: {sorted(set(registered) - set(public))}"
        )
        imports = [ast.unparse(node) for node in others]
        assert all("_startup" in i or "import_module" in i for i in imports), imports

    def test_every_name_resolves(self):
        for name in qwkit.__all__:
            assert getattr(qwkit, name) is not None, name
            assert hasattr(qwkit, name)
        assert set(qwkit.__all__) <= set(dir(qwkit))
        assert qwkit.__version__ == "0.2.0"

    def test_an_unknown_name(self):
        assert not hasattr(qwkit, "kappa_scores")
        with pytest.raises(AttributeError, match="module 'qwkit' has no attribute 'nope'"):
            qwkit.nope  # noqa: B018
        assert not hasattr(qwkit, "sklearn") or "qwkit.sklearn" in sys.modules

    def test_star_import_in_a_new_process(self, tmp_path):
        code = "from qwkit import *\nimport qwkit\nprint(set(qwkit.__all__) <= set(globals()))"
        _, out = imported(tmp_path, "-c", code)
        assert out == "True\n"

    def test_public_classes_name_qwkit_wherever_they_are_imported_from(self):
        """Set where each class is defined (``public_module``), not by the lazy import:
        a result reached without ``qwkit.<name>`` still says ``qwkit``."""
        for home, names in qwkit._HOMES.items():
            for name in names.split():
                value = getattr(import_module(home), name)
                if inspect.isclass(value):
                    assert value.__module__ == "qwkit", name

    def test_help(self):
        text = pydoc.render_doc(qwkit, renderer=pydoc.plaintext)
        for name in ("kappa_score", "KappaTestResult", "icc", "RatingsTable"):
            assert name in text

    def test_a_result_unpickles_in_a_new_process(self):
        result = qwkit.kappa_test([1, 2, 3, 4, 2, 3], [1, 2, 2, 4, 2, 3])
        code = (
            "import pickle, sys\n"
            "r = pickle.load(sys.stdin.buffer)\n"
            "print(type(r).__module__, type(r).__name__, round(r.statistic, 6))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            input=pickle.dumps(result),
            capture_output=True,
            env=_env(),
            check=True,
        )
        assert done.stdout.decode() == f"qwkit KappaTestResult {round(result.statistic, 6)}\n"

    def test_doctests_of_public_classes_are_collected(self):
        """pytest collects the examples of the classes that name ``qwkit`` as their
        module from ``qwkit/__init__.py``, which now defines none of them."""
        expected = sorted(
            f"src/qwkit/__init__.py::qwkit.{name}"
            for name in qwkit.__all__
            if inspect.isclass(cls := getattr(qwkit, name))
            and ">>>" in (cls.__doc__ or "")
            and cls.__module__ == "qwkit"
        )
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "src/qwkit/__init__.py"],
            capture_output=True,
            text=True,
            env=_env(),
            cwd=ROOT,
        )
        collected = sorted(line for line in done.stdout.splitlines() if "::" in line)
        assert expected and collected == expected, done.stdout[-2000:]


# ---------------------------------------------------------------------------- the CLI


def _is_command(function) -> bool:
    """Whether typer reads options from the function's signature (a command)."""
    hints = typing.get_type_hints(function, include_extras=True)
    return any(
        isinstance(extra, typer.models.ParameterInfo)
        for hint in hints.values()
        for extra in getattr(hint, "__metadata__", ())
    )


class TestLazyCommands:
    LIMITS = (12, 20, 30, 45, 60, 100, 1000)

    @pytest.mark.parametrize(
        ("group", "name"),
        [("COMMANDS", n) for n in _app.COMMANDS]
        + [("THRESHOLDS", n) for n in _app.THRESHOLDS]
        + [("CALIBRATE", n) for n in _app.CALIBRATE]
        + [("PLAN", n) for n in _app.PLAN],
    )
    def test_summary_is_the_commands_own(self, group, name):
        """What ``--help`` lists without importing a command is what the command says
        of itself, cut the same at any width."""
        entry = getattr(_app, group)[name]
        real, listed = entry.load(name), entry.listed(name)
        for limit in self.LIMITS:
            assert listed.get_short_help_str(limit) == real.get_short_help_str(limit)

    def test_every_command_module_is_registered(self):
        registered = {
            (e.module, e.function)
            for g in (_app.COMMANDS, _app.THRESHOLDS, _app.CALIBRATE, _app.PLAN)
            for e in g.values()
        }
        defined = set()
        for path in sorted((PACKAGE / "cli").glob("_cmd_*.py")):
            module = import_module(f"qwkit.cli.{path.stem}")
            defined |= {
                (module.__name__, name)
                for name, value in vars(module).items()
                if inspect.isfunction(value) and _is_command(value)
            }
        assert defined == registered

    def test_a_misspelt_command_is_suggested(self):
        result = CliRunner().invoke(_app.app, ["scroe"])
        assert result.exit_code == 2
        assert "No such command 'scroe'. Did you mean 'score'?" in result.stderr
        result = CliRunner().invoke(_app.app, ["thresholds", "fti"])
        assert "Did you mean 'fit'?" in result.stderr
