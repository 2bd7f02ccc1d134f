"""A command that cannot write its result to standard output fails: one line on stderr,
a non-zero exit code — never an exit code 0 with nothing printed (issue 28, item 4).

Three ways standard output fails: it is closed (``qwkit ... >&-``), full (``>
/dev/full``, a full disk), or its reader has stopped (``qwkit ... | head -1``, a broken
pipe). Every command is run in-process (typer's ``CliRunner``, its standard output
replaced by one that fails so), and the process itself, with its standard output really
closed, full or broken, for the command of the issue and for ``--help``/``--version``.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest
from typer.testing import CliRunner

from cli_helpers import ANXIETY, DATA, FAST_REPORT, spec_file, write_file
from qwkit.cli._app import app
from qwkit.cli._errors import BROKEN_PIPE, EXIT_BROKEN_PIPE

HANNA = ("evaluate", "--human", "RE_h1,RE_h2,RE_h3", "--machine", "RE_chatgpt", "--json")
CLOSED = "qwkit: error: cannot write standard output: it is closed."
FULL = "qwkit: error: cannot write standard output: No space left on device."
BROKEN = f"qwkit: error: {BROKEN_PIPE}"


class _Failing(io.RawIOBase):
    """A standard output whose every write fails with ``error``."""

    def __init__(self, error: OSError) -> None:
        self.error = error

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        raise self.error


#: How standard output fails → (the error of a write, the line said, the exit code).
FAILURES = {
    "closed": (OSError(errno.EBADF, "it is closed"), CLOSED, 1),
    "full": (OSError(errno.ENOSPC, "No space left on device"), FULL, 1),
    "broken": (BrokenPipeError(errno.EPIPE, "Broken pipe"), BROKEN, EXIT_BROKEN_PIPE),
}


class _FailingStdoutRunner(CliRunner):
    """typer's runner, with standard output failing as ``error`` says (stderr kept)."""

    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    @contextmanager
    def isolation(self, *args, **kwargs):
        with super().isolation(*args, **kwargs) as streams:
            kept = sys.stdout  # the runner's (its collection would close what it reads)
            sys.stdout = io.TextIOWrapper(_Failing(self.error), write_through=True)
            try:
                yield streams
            finally:
                sys.stdout = kept


def _hanna() -> str:
    import qwkit

    return str(os.path.join(os.path.dirname(qwkit.__file__), "data", "hanna_wide.csv"))


@pytest.fixture(scope="module")
def commands(tmp_path_factory):
    """Every command of the command line, with fast options: name → arguments."""
    tmp = tmp_path_factory.mktemp("commands")
    rows = "".join(f"{i % 3 + 1},{(i % 3) + 0.3 * (i % 5)}\n" for i in range(30))
    scores = write_file(tmp / "s.csv", "y,s\n" + rows)
    spec = spec_file(tmp, thresholds=[2.5, 4.5], labels=[1, 2, 3])
    return {
        "score": ("score", ANXIETY, "-t", "rater1", "-p", "rater2"),
        "score --json": ("score", ANXIETY, "-t", "rater1", "-p", "rater2", "--json"),
        "compare": ("compare", ANXIETY, "-t", "rater1", "-p", "rater2", "-p", "rater3"),
        "agreement": ("agreement", ANXIETY, "--raters", "rater1,rater2,rater3"),
        "agreement --json": ("agreement", ANXIETY, "--raters", "rater1,rater2,rater3", "--json"),
        "evaluate": (HANNA[0], _hanna(), *HANNA[1:]),
        "report": ("report", ANXIETY, "-t", "rater1", "-p", "rater2", "-o", "-", *FAST_REPORT),
        "thresholds fit": ("thresholds", "fit", scores, "-t", "y", "-s", "s"),
        "thresholds fit -o -": ("thresholds", "fit", scores, "-t", "y", "-s", "s", "-o", "-"),
        "thresholds apply": (
            *("thresholds", "apply", ANXIETY, "-s", "rater2", "--thresholds", spec),
            *("-o", "-"),
        ),
        "economics": ("economics", "--output", tmp / "econ", "--n-repeats", "1", "--seed", "5"),
        "--version": ("--version",),
        "--help": ("--help",),
        "score --help": ("score", "--help"),
    }


#: Every command, each in the three ways standard output fails — the slow ones (a
#: report's figures, a simulation) in one way: what they print goes through the same
#: ``guard`` as every other command's.
CASES = [
    (name, failure)
    for name in (
        "score",
        "score --json",
        "compare",
        "agreement",
        "agreement --json",
        "evaluate",
        "thresholds fit",
        "thresholds fit -o -",
        "thresholds apply",
        "--version",
        "--help",
        "score --help",
    )
    for failure in FAILURES
] + [("report", "closed"), ("economics", "broken")]


class TestEveryCommand:
    @pytest.mark.parametrize(("name", "failure"), CASES)
    def test_fails_when_its_result_cannot_be_written(self, commands, name, failure):
        error, line, code = FAILURES[failure]
        runner = _FailingStdoutRunner(error)
        result = runner.invoke(app, [str(a) for a in commands[name]], env={"COLUMNS": "160"})
        assert result.exit_code == code, (result.stdout, result.stderr)
        said = [s for s in result.stderr.splitlines() if not s.startswith("qwkit: warning:")]
        assert said == [line]
        assert "Traceback" not in result.stderr


def _process(args, how: str) -> subprocess.CompletedProcess:
    """``python -m qwkit *args`` with its standard output closed (the shell's ``>&-``),
    on ``/dev/full``, or a pipe whose reader has gone."""
    command = [sys.executable, "-m", "qwkit", *map(str, args)]
    if how == "closed":
        return subprocess.run(
            ["sh", "-c", 'exec "$@" >&-', "sh", *command], stderr=subprocess.PIPE, text=True
        )
    if how == "full":
        with open("/dev/full", "wb") as full:
            return subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True)
    read, write = os.pipe()
    os.close(read)  # the reader has gone before anything is written
    try:
        return subprocess.run(command, stdout=write, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write)


class TestTheProcess:
    @pytest.mark.parametrize("how", ["closed", "full"])
    def test_evaluate_json(self, how):
        # the issue's call: exited 0 and printed nothing with standard output closed;
        # on /dev/full (a full disk) it said "[Errno 28] No space left on device" before
        _, line, code = FAILURES[how]
        done = _process((HANNA[0], _hanna(), *HANNA[1:]), how)
        assert done.returncode == code
        assert [s for s in done.stderr.splitlines() if "warning" not in s] == [line]

    def test_help_broken_pipe(self):
        # typer ends a broken pipe of --help itself (exit 1, silently): said as any other
        done = _process(("--help",), "broken")
        assert (done.returncode, done.stderr.splitlines()) == (EXIT_BROKEN_PIPE, [BROKEN])

    def test_a_file_never_takes_the_closed_descriptor(self, tmp_path):
        # with descriptor 1 closed, the first file opened would be descriptor 1: what is
        # printed would land in the output file. The file is written whole, and the
        # summary that could not be printed fails the command.
        target = tmp_path / "fit.json"
        args = ("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater2", "-o", target)
        done = _process(args, "closed")
        assert (done.returncode, done.stderr.splitlines()) == (1, [CLOSED])
        text = target.read_text()
        assert text.startswith("{") and "wrote" not in text

    def test_standard_input_closed(self):
        done = subprocess.run(
            [
                "sh",
                "-c",
                'exec "$@" <&-',
                "sh",
                sys.executable,
                "-m",
                "qwkit",
                "score",
                "-",
                "-t",
                "a",
                "-p",
                "b",
            ],
            capture_output=True,
            text=True,
        )
        assert (done.returncode, done.stderr.splitlines()) == (
            1,
            ["qwkit: error: standard input is empty."],
        )


def test_data_of_the_issue_is_bundled():
    assert os.path.exists(_hanna()) and (DATA / "irr_anxiety.csv").exists()
