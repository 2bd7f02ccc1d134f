"""``python -m qwkit``: the command line."""

from qwkit.cli import main

if __name__ == "__main__":
    main()
