"""The release artifacts: the sdist and the wheel, built as `make dist` builds them, and the
wheel installed alone into a fresh virtual environment.

The fresh environment gets the wheel with ``--no-deps``; its dependencies (numpy, numba,
the extras) are this environment's packages, reached through a ``.pth`` file placed after
the environment's own site-packages — so every ``qwkit`` module, data file and the
``qwkit`` command come from the wheel (each test checks where they were imported from),
and nothing is downloaded. The compiled kernels' disk cache is checked there too: numba's
``NUMBA_DEBUG_CACHE`` reports every cache file it writes and reads.
"""

from __future__ import annotations

import email.parser
import os
import re
import site
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import qwkit

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "qwkit"
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
REQUIRES_PYTHON = re.search(r'^requires-python = "(.+)"$', PYPROJECT, re.M).group(1)
EXTRAS = re.findall(
    r"^([\w-]+) = ", PYPROJECT.split("[project.optional-dependencies]")[1].split("\n[")[0], re.M
)
#: Not package files: bytecode and numba's cache, written beside the sources when run.
BUILT = re.compile(r"(^|/)__pycache__/|\.py[co]$|\.nb[ic]$")
#: The variables that would make a process use anything but the wheel and its defaults.
CLEARED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NUMBA_CACHE_DIR", "NUMBA_DEBUG_CACHE")
CLEARED += ("NUMBA_CACHE_LOCATOR_CLASSES", "XDG_CACHE_HOME")


def _run(command: list, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """`make dist`'s artifacts: the sdist, then the wheel built from the sdist."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)])
    (sdist,), (wheel,) = out.glob("*.tar.gz"), out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


class Environment:
    """A fresh virtual environment with the wheel installed alone."""

    def __init__(self, root: Path, wheel: Path) -> None:
        _run([sys.executable, "-m", "venv", "--without-pip", str(root)])
        self.root = root
        self.bin = root / ("Scripts" if os.name == "nt" else "bin")
        self.python = self.bin / "python"
        self.site = Path(self.run("-c", "import sysconfig; print(sysconfig.get_path('purelib'))"))
        # the dependencies: this environment's packages, after the fresh one's own
        (self.site / "zz_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
        pip = [sys.executable, "-m", "pip", "--python", str(self.python), "install"]
        _run([*pip, "--no-deps", "--no-index", "--quiet", str(wheel)])
        self.work = root / "work"
        self.work.mkdir()

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        return {**env, **extra}

    def run(self, *args: str, program: Path | None = None, **env: str) -> str:
        command = [str(program or self.python), *args]
        cwd = getattr(self, "work", self.root)
        return _run(command, cwd=cwd, env=self.env(**env)).stdout.strip()


#: A first call of a kernel, in a process of its own.
CALL = "import qwkit; print(qwkit.kappa_score([1, 2, 3, 4], [1, 2, 2, 4]))"


def _cache_lines(env: Environment, **variables: str) -> tuple[list[str], list[str]]:
    """(lines of numba saving a compiled kernel, lines of it loading one) of ``CALL``."""
    out = env.run("-c", CALL, NUMBA_DEBUG_CACHE="1", **variables)
    lines = out.splitlines()
    assert lines[-1] == "0.9"
    saved = [line for line in lines if line.startswith("[cache] data saved to")]
    loaded = [line for line in lines if line.startswith("[cache] data loaded from")]
    return saved, loaded


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> Environment:
    """One environment with the wheel for every test that runs it. Its first two
    processes, before any other, are ``CALL`` (``first_runs``: what the first saved and
    loaded, then the second): ``TestCompiledKernelsCache`` reads them."""
    env = Environment(tmp_path_factory.mktemp("installed") / "venv", dist["wheel"])
    env.first_runs = (_cache_lines(env), _cache_lines(env))
    return env


def _metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(archive.read(name).decode())


def _package_files() -> set[str]:
    return {
        p.relative_to(PACKAGE.parent).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and not BUILT.search(p.relative_to(PACKAGE).as_posix())
    }


def _integrations() -> list[str]:
    """The public modules beside ``qwkit/__init__.py``, and the command line."""
    names = [p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")]
    return sorted([f"qwkit.{name}" for name in names] + ["qwkit.cli"])


class TestArtifacts:
    def test_twine_check(self, dist):
        out = _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.values())])
        assert out.stdout.count("PASSED") == 2

    def test_names_and_one_version(self, dist):
        # the version has one home, __version__, read by the build backend
        assert 'dynamic = ["version"]' in PYPROJECT
        assert dist["wheel"].name == f"qwkit-{qwkit.__version__}-py3-none-any.whl"
        assert dist["sdist"].name == f"qwkit-{qwkit.__version__}.tar.gz"

    def test_metadata(self, dist):
        meta = _metadata(dist["wheel"])
        assert meta["Name"] == "qwkit" and meta["Version"] == qwkit.__version__
        assert meta["Requires-Python"] == REQUIRES_PYTHON
        assert meta["License-Expression"] == "BSD-3-Clause"
        assert set(meta.get_all("License-File")) == {
            "LICENSE",
            "src/qwkit/data/LICENSE-HANNA.txt",
            "src/qwkit/data/LICENSE-winequality.txt",
        }
        assert set(meta.get_all("Provides-Extra")) == set(EXTRAS)
        assert {"polars", "dask", "all"} <= set(EXTRAS)
        urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
        assert {"Homepage", "Documentation", "Source", "Changelog", "Issues"} <= set(urls)
        classifiers = meta.get_all("Classifier")
        low = REQUIRES_PYTHON.removeprefix(">=")
        assert f"Programming Language :: Python :: {low}" in classifiers
        assert "Typing :: Typed" in classifiers
        requires = " ".join(meta.get_all("Requires-Dist"))
        for name in ("numpy", "scipy", "numba", "polars", "dask", "xgboost-cpu"):
            assert name in requires
        assert meta.get_payload().startswith("# qwkit")  # the README is the description

    def test_changelog_and_citation_name_this_version(self):
        changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
        assert re.search(
            rf"^## {re.escape(qwkit.__version__)} — \d{{4}}-\d\d-\d\d$", changelog, re.M
        )
        citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
        assert re.search(rf"^version: {re.escape(qwkit.__version__)}$", citation, re.M)

    def test_wheel_holds_every_package_file(self, dist):
        with zipfile.ZipFile(dist["wheel"]) as archive:
            names = set(archive.namelist())
        assert {n for n in names if n.startswith("qwkit/")} == _package_files()
        info = f"qwkit-{qwkit.__version__}.dist-info"
        assert f"{info}/entry_points.txt" in names
        assert f"{info}/licenses/src/qwkit/data/LICENSE-HANNA.txt" in names
        assert "qwkit/py.typed" in names and "qwkit/data/winequality-red.csv" in names

    def test_sdist_builds_everything_back(self, dist):
        with tarfile.open(dist["sdist"]) as archive:
            names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
        assert {f"src/{n}" for n in _package_files()} <= names
        for name in ("README.md", "CHANGELOG.md", "CITATION.cff", "LICENSE", "pyproject.toml"):
            assert name in names
        for folder in ("tests/", "docs/", "examples/", "benchmarks/"):
            assert any(n.startswith(folder) for n in names), folder
        assert not any(BUILT.search(n) or n.startswith("docs/_build") for n in names)


class TestInstalledWheel:
    def test_version_from_the_command(self, installed):
        out = installed.run("--version", program=installed.bin / "qwkit")
        assert out == f"qwkit {qwkit.__version__}"
        assert installed.run("-m", "qwkit", "--version") == out

    def test_demo_runs_on_the_bundled_data(self, installed):
        installed.run("demo", "--output", "demo", program=installed.bin / "qwkit")
        report = (installed.work / "demo" / "report.html").read_text(encoding="utf-8")
        assert "wine" in report.lower() and "<img" in report

    def test_every_integration_imports_from_the_wheel(self, installed):
        modules = _integrations()
        assert {"qwkit.polars", "qwkit.dask", "qwkit.sklearn", "qwkit.torch"} <= set(modules)
        code = (
            "import importlib, qwkit\n"
            f"for name in {modules!r}:\n"
            "    print(importlib.import_module(name).__file__)\n"
            "print(qwkit.load_hanna().__class__.__name__)\n"
            "print(qwkit.load_hanna_judges().score.size)\n"
        )
        *files, hanna, judgements = installed.run("-c", code).splitlines()
        assert len(files) == len(modules)
        assert all(Path(f).is_relative_to(installed.site) for f in files), files
        assert hanna == "Hanna" and judgements == "126720"


class TestCompiledKernelsCache:
    """Only the first process after an install compiles (docs: README, "First run")."""

    def test_cached_beside_the_installed_package(self, installed):
        (saved, loaded), (saved_again, loaded_again) = installed.first_runs
        kernels = installed.site / "qwkit" / "_kernels" / "__pycache__"
        assert saved and not loaded
        assert all(str(kernels) in line for line in saved)
        assert loaded_again and not saved_again  # a second process compiles nothing

    def test_read_only_package_caches_in_the_user_folder(self, installed, tmp_path):
        # numba's own fallback where the package's folder cannot be written: its
        # user-wide locator (the next in numba's list), in the user's cache folder (the
        # only one looked in: what the package's folder holds is not read)
        user = {"NUMBA_CACHE_LOCATOR_CLASSES": "UserWideCacheLocator"}
        user["XDG_CACHE_HOME"] = str(tmp_path / "cache")
        saved, loaded = _cache_lines(installed, **user)
        assert saved and not loaded
        assert all(str(tmp_path / "cache" / "numba") in line for line in saved)
        saved, loaded = _cache_lines(installed, **user)
        assert loaded and not saved

    def test_nowhere_to_cache_still_imports(self, tmp_path):
        # no folder numba may write to: qwkit compiles in every process instead of failing
        (tmp_path / "a-file").write_text("")
        code = f"import qwkit._kernels._jit as j; print(j.CACHE); {CALL}"
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        env["PYTHONPATH"] = str(PACKAGE.parent)
        env["NUMBA_CACHE_LOCATOR_CLASSES"] = "UserProvidedCacheLocator"
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "a-file" / "numba")  # cannot be created
        out = _run([sys.executable, "-c", code], env=env, cwd=tmp_path).stdout.split()
        assert out == ["False", "0.9"]
