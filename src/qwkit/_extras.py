"""The one way a feature loads an optional dependency (an extra of ``pyproject.toml``).

``import qwkit`` loads none of them; each integration module (``qwkit.lightgbm``,
``qwkit.xgboost``, ``qwkit.torch``, ``qwkit.sklearn``, ``qwkit.dask``) and each optional
feature (plots) calls :func:`require` when it is imported or used, so that a missing or
too old package gives one ``ImportError`` that names the extra to install.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType

__all__ = ["require"]


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
    Traceback (most recent call last):
    ...
    ImportError: qwkit.x needs X. Install it with: pip install 'qwkit[x]'
    """
    needs = f"{feature} needs {package}" + (f" >= {minimum}" if minimum else "")
    hint = f"Install it with: pip install 'qwkit[{extra}]'"
    try:
        loaded = importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{needs}. {hint}") from exc
    if minimum is not None:
        found = getattr(importlib.import_module(module.partition(".")[0]), "__version__", "")
        if found and _version(found) < _version(minimum):
            raise ImportError(f"{needs}; found {found}. {hint}")
    return loaded
