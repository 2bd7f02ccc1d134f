"""The ``qwkit`` command line (typer + rich), installed with the ``cli`` extra
(``pip install 'qwkit[cli]'``, or ``pip install -e '.[cli]'`` in a clone).

Commands are thin: parse, call the public API, print. Errors go to stderr with a
non-zero exit code and no traceback.
"""

from __future__ import annotations

import sys

from qwkit._base import _startup

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``qwkit`` script and of ``python -m qwkit``. Ctrl-C exits with
    130 and ``qwkit: interrupted`` while the command line loads or ends, too."""
    _startup.loaded()  # from here on, Ctrl-C is said below
    try:
        try:
            from qwkit.cli._app import app
        except ImportError as exc:  # typer or rich missing
            if exc.name in ("typer", "rich", "click"):
                from qwkit._base._extras import install_command

                print(
                    f"The qwkit command line needs typer and rich: {install_command('cli')}",
                    file=sys.stderr,
                )
                raise SystemExit(1) from None
            raise
        app()
    except KeyboardInterrupt:
        print("qwkit: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
