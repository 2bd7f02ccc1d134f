"""The one way a feature loads an optional dependency (an extra of ``pyproject.toml``).

``import qwkit`` loads none of them; each integration module (``qwkit.lightgbm``,
``qwkit.xgboost``, ``qwkit.torch``, ``qwkit.sklearn``, ``qwkit.dask``) and each optional
feature (plots) calls :func:`require` when it is imported or used, so that a missing or
too old package gives one ``ImportError`` that names the extra to install.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlparse

__all__ = ["install_command", "require"]

#: The folder of the imported qwkit package (``src/qwkit`` in a clone).
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def _version(text: str) -> tuple[int, int]:
    """(major, minor) of a version string such as '2.13.0+cpu' or '4.0.0rc1'."""
    found = re.match(r"(\d+)(?:\.(\d+))?", text)
    if found is None:
        return (0, 0)
    return int(found.group(1)), int(found.group(2) or 0)


def require(
    module: str, *, feature: str, package: str, extra: str, minimum: str | None = None
) -> ModuleType:
    """Import ``module`` for ``feature``, or raise ImportError naming ``extra``.

    Parameters
    ----------
    module : str
        The module to import, e.g. ``"lightgbm"`` or ``"dask.dataframe"``.
    feature : str
        What needs it, as the user sees it (``"qwkit.lightgbm"``).
    package : str
        The distribution's name in the message (``"LightGBM"``).
    extra : str
        The extra of qwkit that installs it (``"lightgbm"``).
    minimum : str, optional
        The lowest supported ``major.minor`` version of the top-level package.

    Returns
    -------
    module
        The imported module.

    Examples
    --------
    >>> require("numpy", feature="qwkit", package="numpy", extra="all").__name__
    'numpy'
    >>> require("no_such_module_here", feature="qwkit.x", package="X", extra="x")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ImportError: qwkit.x needs X. Install it with: pip install ...[x]...
    """
    needs = f"{feature} needs {package}" + (f" >= {minimum}" if minimum else "")
    hint = f"Install it with: {install_command(extra)}"
    try:
        loaded = importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{needs}. {hint}") from exc
    if minimum is not None:
        found = getattr(importlib.import_module(module.partition(".")[0]), "__version__", "")
        if found and _version(found) < _version(minimum):
            raise ImportError(f"{needs}; found {found}. {hint}")
    return loaded


def install_command(extra: str) -> str:
    """The pip command that installs ``extra`` for the qwkit being run.

    ``pip install 'qwkit[x]'`` works only for a qwkit installed from a package index.
    The command follows where the running qwkit came from:

    - a clone (the package imported from ``<clone>/src/qwkit``, installed editable or
      put on the path): ``pip install -e '<clone>[x]'``;
    - an installation that records its origin (``direct_url.json`` of PEP 610): from a
      local folder ``pip install '<folder>[x]'`` (``-e`` if it was editable), from a
      URL or a Git repository ``pip install 'qwkit[x] @ <url>'`` (at the installed
      commit);
    - otherwise (from an index, or unknown): ``pip install 'qwkit[x]'``.

    On Windows the argument is in double quotes, the only ones cmd.exe and PowerShell
    both take (``pip install "qwkit[x]"``), and a folder is a Windows path.

    >>> install_command("lightgbm")  # doctest: +ELLIPSIS
    "pip install ...[lightgbm]..."
    """
    clone = _clone(_PACKAGE_DIR)
    if clone is not None:
        return f"pip install -e {_quote(f'{clone}[{extra}]')}"
    try:
        origin = importlib.metadata.distribution("qwkit").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        origin = None
    try:
        info = json.loads(origin) if origin else {}
    except ValueError:  # pragma: no cover - a damaged record: say what works from an index
        info = {}
    url = info.get("url", "")
    if "dir_info" in info and url.startswith("file:"):
        folder = _local_path(url)
        editable = "-e " if info["dir_info"].get("editable") else ""
        return f"pip install {editable}{_quote(f'{folder}[{extra}]')}"
    if "vcs_info" in info:
        vcs = info["vcs_info"]
        commit = vcs.get("commit_id")
        url = f"{vcs.get('vcs', 'git')}+{url}" + (f"@{commit}" if commit else "")
    if url and ("vcs_info" in info or "archive_info" in info):
        if info.get("subdirectory"):
            url += f"#subdirectory={info['subdirectory']}"
        return f"pip install {_quote(f'qwkit[{extra}] @ {url}')}"
    return f"pip install {_quote(f'qwkit[{extra}]')}"


def _quote(text: str) -> str:
    """``text`` as one argument of the shell the command is typed in: double quotes on
    Windows (cmd.exe and PowerShell, where single quotes are not quotes), POSIX quoting
    elsewhere."""
    if sys.platform == "win32":
        return f'"{text}"'
    return shlex.quote(text)


def _local_path(url: str) -> str:
    """The local path of a ``file:`` URL (``C:\\x`` for ``file:///C:/x`` on Windows)."""
    path = urlparse(url).path
    if sys.platform == "win32":
        import nturl2path

        return nturl2path.url2pathname(path)
    return unquote(path)


def _clone(package_dir: Path) -> Path | None:
    """The root of the clone the package was imported from (``<root>/src/qwkit`` with
    qwkit's ``pyproject.toml`` at the root), or None."""
    root = package_dir.parent.parent
    if package_dir.parent.name != "src":
        return None
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if re.search(r'(?m)^name\s*=\s*"qwkit"\s*$', text) else None
