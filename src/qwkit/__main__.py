"""``python -m qwkit``: the command line."""

import os
import sys

from qwkit._base._startup import EXIT_INTERRUPTED
from qwkit.cli import main

if __name__ == "__main__":
    try:
        main()
    except SystemExit as exc:
        if exc.code != EXIT_INTERRUPTED:
            raise
        # An interrupt, said and cleaned up. Under `python -m`, CPython ends a process
        # whose interrupt ever passed through a string `exec` (dataclasses and typer run
        # some while the command loads) by SIGINT instead of the exit code: exit here.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more to say
                pass
        os._exit(EXIT_INTERRUPTED)
