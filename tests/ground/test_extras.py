"""`_extras.require`: the one ImportError of every optional feature."""

from __future__ import annotations

import importlib.metadata
import json
import sys
import types
import typing
from pathlib import Path

import pytest

from qwkit._base._extras import install_command, require


def _fake(monkeypatch, name: str, version: str | None) -> None:
    module = types.ModuleType(name)
    if version is not None:
        module.__version__ = version
    monkeypatch.setitem(sys.modules, name, module)


@pytest.mark.parametrize(
    ("found", "minimum", "ok"),
    [
        ("4.6.0", "4.0", True),
        ("2.13.0+cpu", "2.1", True),  # a local version label
        ("4.0.0rc1", "4.0", True),  # a pre-release of the minimum
        ("2024.12.1", "2024.1", True),  # calendar versions
        ("3.9.9", "4.0", False),
        ("2.0.5", "2.1", False),
    ],
)
def test_minimum_version(monkeypatch, found, minimum, ok):
    _fake(monkeypatch, "qwkit_fake_extra", found)
    call = lambda: require(  # noqa: E731
        "qwkit_fake_extra", feature="qwkit.fake", package="Fake", extra="fake", minimum=minimum
    )
    if ok:
        assert call().__version__ == found
    else:
        message = (
            f"qwkit.fake needs Fake >= {minimum}; found {found}. "
            f"Install it with: {install_command('fake')}"
        )
        with pytest.raises(ImportError) as info:
            call()
        assert str(info.value) == message


def test_missing_module_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "qwkit_fake_extra", None)  # import fails
    with pytest.raises(ImportError, match=r"^qwkit.fake needs Fake >= 1. Install it with: "):
        require("qwkit_fake_extra", feature="qwkit.fake", package="Fake", extra="fake", minimum="1")


def test_a_module_without_a_version_is_accepted(monkeypatch):
    _fake(monkeypatch, "qwkit_fake_extra", None)
    assert require("qwkit_fake_extra", feature="f", package="P", extra="e", minimum="9.0")


# ---------------------------------------------------------------------------- install hints


class TestInstallCommand:
    """Issue 18: ``pip install 'qwkit[x]'`` works only once qwkit is on a package index;
    the hint follows where the running qwkit came from (a clone, or the origin its
    installation recorded in ``direct_url.json``, PEP 610)."""

    @staticmethod
    def _installed(monkeypatch, tmp_path, direct_url: dict | None):
        """A qwkit distribution found by importlib.metadata (first on sys.path), with
        ``direct_url`` as its recorded origin; the package is not imported from a clone."""
        from qwkit._base import _extras

        site = tmp_path / "site"
        info = site / "qwkit-0.1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: qwkit\nVersion: 0.1.0\n")
        if direct_url is not None:
            (info / "direct_url.json").write_text(json.dumps(direct_url))
        monkeypatch.syspath_prepend(str(site))
        monkeypatch.setattr(_extras, "_PACKAGE_DIR", site / "qwkit")
        return _extras.install_command

    def test_from_an_index(self, monkeypatch, tmp_path):
        command = self._installed(monkeypatch, tmp_path, None)
        assert command("lightgbm") == "pip install 'qwkit[lightgbm]'"
        monkeypatch.setitem(sys.modules, "qwkit_fake_extra", None)
        with pytest.raises(ImportError) as info:
            require("qwkit_fake_extra", feature="qwkit.fake", package="Fake", extra="fake")
        assert (
            str(info.value) == "qwkit.fake needs Fake. Install it with: pip install 'qwkit[fake]'"
        )

    def test_from_a_local_folder(self, monkeypatch, tmp_path):
        clone = tmp_path / "my clone"
        url = clone.as_uri()
        editable = {"url": url, "dir_info": {"editable": True}}
        command = self._installed(monkeypatch, tmp_path, editable)
        assert command("xgboost") == f"pip install -e '{clone}[xgboost]'"
        (tmp_path / "site" / "qwkit-0.1.0.dist-info" / "direct_url.json").write_text(
            f'{{"url": "{url}", "dir_info": {{}}}}'
        )
        assert importlib.metadata.distribution("qwkit").read_text("direct_url.json")
        assert command("xgboost") == f"pip install '{clone}[xgboost]'"

    def test_from_git_and_from_an_archive(self, monkeypatch, tmp_path):
        git = {
            "url": "https://example.org/qwkit.git",
            "vcs_info": {"vcs": "git", "commit_id": "0123abcd", "requested_revision": "main"},
        }
        command = self._installed(monkeypatch, tmp_path, git)
        assert command("dask") == (
            "pip install 'qwkit[dask] @ git+https://example.org/qwkit.git@0123abcd'"
        )
        wheel = {"url": "file:///tmp/qwkit-0.1.0-py3-none-any.whl", "archive_info": {}}
        (tmp_path / "site" / "qwkit-0.1.0.dist-info" / "direct_url.json").write_text(
            json.dumps(wheel)
        )
        assert command("dask") == (
            "pip install 'qwkit[dask] @ file:///tmp/qwkit-0.1.0-py3-none-any.whl'"
        )

    def test_on_windows(self, monkeypatch, tmp_path):
        # cmd.exe and PowerShell do not take single quotes; file URLs hold drive letters
        folder = {"url": "file:///C:/Users/me/qwkit%20clone", "dir_info": {"editable": True}}
        command = self._installed(monkeypatch, tmp_path, folder)
        monkeypatch.setattr(sys, "platform", "win32")
        assert command("xgboost") == 'pip install -e "C:\\Users\\me\\qwkit clone[xgboost]"'
        (tmp_path / "site" / "qwkit-0.1.0.dist-info" / "direct_url.json").unlink()
        assert command("lightgbm") == 'pip install "qwkit[lightgbm]"'

    def test_not_installed_at_all(self, monkeypatch, tmp_path):
        from qwkit._base import _extras

        def missing(name):
            raise importlib.metadata.PackageNotFoundError(name)

        monkeypatch.setattr(importlib.metadata, "distribution", missing)
        monkeypatch.setattr(_extras, "_PACKAGE_DIR", tmp_path / "qwkit")
        assert _extras.install_command("torch") == "pip install 'qwkit[torch]'"

    def test_from_a_clone(self, monkeypatch, tmp_path):
        from qwkit._base import _extras

        clone = tmp_path / "qwkit clone"
        (clone / "src" / "qwkit").mkdir(parents=True)
        (clone / "pyproject.toml").write_text('[project]\nname = "qwkit"\nversion = "0.1.0"\n')
        monkeypatch.setattr(_extras, "_PACKAGE_DIR", clone / "src" / "qwkit")
        assert _extras.install_command("cli") == f"pip install -e '{clone}[cli]'"
        # another project's src/qwkit folder is not a clone of qwkit
        (clone / "pyproject.toml").write_text('[project]\nname = "other"\n')
        assert _extras.install_command("cli") != f"pip install -e '{clone}[cli]'"

    def test_this_checkout(self):
        # the tests run from a clone (`make test`: an editable install; or src on the path)
        root = Path(__file__).resolve().parents[2]
        assert install_command("plot") == f"pip install -e '{root}[plot]'"


def test_every_missing_extra_message_of_the_command_line_uses_it(monkeypatch):
    import subprocess

    from qwkit.cli import _engine, _io, _plots
    from qwkit.cli._errors import CliError

    code = "import sys\nsys.modules['typer'] = None\nfrom qwkit.cli import main\nmain()\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.strip() == (
        f"The qwkit command line needs typer and rich: {install_command('cli')}"
    )
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    for call, expected in (
        (_io._arrow, f"Reading files needs pyarrow: {install_command('cli')}"),
        (lambda: _plots._figure(1, 1), f"Plots need matplotlib: {install_command('plot')}"),
    ):
        with pytest.raises(CliError) as info:
            call()
        assert str(info.value) == expected
    assert _engine.dask_missing() == f"--engine dask needs dask: {install_command('dask')}"
    assert _engine.duckdb_missing() == (
        f"--engine duckdb needs duckdb: {install_command('duckdb')}"
    )


# ---------------------------------------------------------------------------- pyproject.toml


class TestXgboostExtra:
    """Issue 18: ``xgboost-cpu`` has no macOS wheel, so ``.[xgboost]`` and ``.[all]`` did
    not install there. https://pypi.org/project/xgboost-cpu/ says it is "only provided for
    x86_64 (amd64) Linux and Windows platforms" (its 3.2-3.4 releases also carry ARM64
    Linux and Windows wheels; none has a macOS one); https://pypi.org/project/xgboost/
    has wheels for Linux, Windows and macOS (x86-64 and Apple silicon). So: xgboost-cpu
    on x86-64 Linux and Windows, xgboost everywhere else."""

    #: (platform_system, platform_machine) as Python reports them on each platform.
    PLATFORMS = (
        ("Linux", "x86_64"),
        ("Linux", "aarch64"),
        ("Windows", "AMD64"),
        ("Windows", "ARM64"),
        ("Darwin", "x86_64"),
        ("Darwin", "arm64"),
    )
    CPU_WHEELS = frozenset({("Linux", "x86_64"), ("Windows", "AMD64")})

    @staticmethod
    def _extras() -> dict:
        import tomllib

        root = Path(__file__).resolve().parents[2]
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        return project["project"]["optional-dependencies"]

    def _xgboost(self, requirement) -> list:
        """The extra's XGBoost packages (it also brings scikit-learn, for XGBRegressor)."""
        reqs = [requirement(text) for text in self._extras()["xgboost"]]
        assert any(r.name == "qwkit" and r.extras == {"sklearn"} for r in reqs)
        return [r for r in reqs if r.name.startswith("xgboost")]

    @pytest.mark.parametrize(("system", "machine"), PLATFORMS)
    def test_one_xgboost_package_per_platform(self, system, machine):
        from packaging.requirements import Requirement

        env = {"platform_system": system, "platform_machine": machine, "sys_platform": "x"}
        chosen = [
            req.name
            for req in self._xgboost(Requirement)
            if req.marker is None or req.marker.evaluate(env)
        ]
        expected = "xgboost-cpu" if (system, machine) in self.CPU_WHEELS else "xgboost"
        assert chosen == [expected]

    def test_both_have_the_minimum_qwkit_xgboost_requires(self):
        from packaging.requirements import Requirement

        text = (Path(__file__).resolve().parents[2] / "src/qwkit/xgboost.py").read_text()
        minimum = text.split('extra="xgboost", minimum="')[1].split('"')[0]
        for req in self._xgboost(Requirement):
            assert str(req.specifier) == f">={minimum}"

    def test_all_includes_the_xgboost_extra(self):
        (everything,) = self._extras()["all"]
        assert "xgboost" in everything.split("[")[1].rstrip("]").split(",")


class TestEngineExtras:
    """Issue 33: the extras ``duckdb`` and ``spark`` (in ``all``), their minimum versions
    those the modules require, and the ImportError of each without its package."""

    MODULES: typing.ClassVar = {
        "duckdb": ("qwkit.duckdb", "duckdb"),
        "spark": ("qwkit.spark", "pyspark"),
    }

    @pytest.mark.parametrize("extra", ["duckdb", "spark"])
    def test_the_extra_has_the_minimum_the_module_requires(self, extra):
        from packaging.requirements import Requirement

        module, package = self.MODULES[extra]
        root = Path(__file__).resolve().parents[2]
        text = (root / "src" / (module.replace(".", "/") + ".py")).read_text()
        minimum = text.split('minimum="')[1].split('"')[0]
        (req,) = [Requirement(r) for r in TestXgboostExtra._extras()[extra]]
        assert req.name == package and str(req.specifier) == f">={minimum}"
        (everything,) = TestXgboostExtra._extras()["all"]
        assert extra in everything.split("[")[1].rstrip("]").split(",")

    @pytest.mark.parametrize("extra", ["duckdb", "spark"])
    def test_importing_without_the_package_names_the_extra(self, extra):
        import subprocess

        module, package = self.MODULES[extra]
        code = f"import sys\nsys.modules[{package!r}] = None\nimport {module}\n"
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert run.returncode == 1
        last = run.stderr.strip().splitlines()[-1]
        assert last.startswith(f"ImportError: {module} needs {package} >= ")
        assert last.endswith(f"Install it with: {install_command(extra)}")
