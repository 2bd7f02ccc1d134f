"""How the command line's writing ends when it does not end well: an interrupt that
lands in compiled code, a full disk, a run killed with SIGKILL; and how a rerun of
``thresholds apply`` replaces the delimited text table it wrote, and nothing else."""

from __future__ import annotations

import ctypes
import errno
import gzip
import os
import signal
import subprocess
import sys
import tempfile
import textwrap

import numba
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import qwkit
import qwkit._table._cut_points
import qwkit.cli
from cli_helpers import ANXIETY, SPEC_1_2_3, fails, ok, run, spec_file, write_file
from qwkit._base import _startup
from qwkit._base._files import TEMPORARY_SUFFIX
from qwkit.cli import _app, _cmd_thresholds, _output
from qwkit.cli._errors import CliError

_LIBC = ctypes.CDLL(None)
_RAISE = _LIBC["raise"]
_RAISE.argtypes = [ctypes.c_int]
_RAISE.restype = ctypes.c_int


@numba.njit
def _signalled(out, signum):
    """Raise signal ``signum`` (none for 0) while compiled code runs, and return a tuple
    holding an array: what a kernel does when Ctrl-C lands inside it (numba then reports
    the interrupt as the cause of a SystemError)."""
    if signum:
        _RAISE(signum)
    return out.copy(), 0.0


def _no_temporaries(folder) -> bool:
    return not [p for p in folder.rglob("*") if p.name.endswith(TEMPORARY_SUFFIX)]


@pytest.mark.usefixtures("default_sigint")
class TestInterrupts:
    @pytest.mark.parametrize(
        ("signum", "code", "said"),
        [(signal.SIGINT, 130, "qwkit: interrupted"), (signal.SIGTERM, 143, "qwkit: terminated")],
    )
    def test_signal_in_compiled_code_reads_as_the_signal(
        self, tmp_path, monkeypatch, signum, code, said
    ):
        kernel = qwkit._table._cut_points.monotone_dp
        _signalled(np.zeros(1), 0)  # compiled before the test

        def interrupted(*args):  # the kernel, then a signal inside compiled code
            result = kernel(*args)
            _signalled(result[0], int(signum))
            return result

        monkeypatch.setattr(qwkit._table._cut_points, "monotone_dp", interrupted)
        out = tmp_path / "t.json"
        result = run("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater2", "-o", out)
        assert (result.exit_code, result.stderr.strip()) == (code, said)
        assert not out.exists() and _no_temporaries(tmp_path)

    def test_interrupt_around_the_command(self, monkeypatch):
        """typer exits with 130 and says nothing when Ctrl-C lands before the command's
        body (while it reads the options); qwkit says it, once."""

        def interrupt(*args):
            raise KeyboardInterrupt

        monkeypatch.setattr(_cmd_thresholds, "labels_option", interrupt)
        result = run("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater2")
        assert (result.exit_code, result.stderr) == (130, "qwkit: interrupted\n")

    def test_interrupt_while_the_command_line_loads(self, monkeypatch, capsys):
        def interrupt(*args):
            raise KeyboardInterrupt

        monkeypatch.setattr(_app, "app", interrupt)
        with pytest.raises(SystemExit) as caught:
            qwkit.cli.main()
        assert caught.value.code == 130 and capsys.readouterr().err == "qwkit: interrupted\n"


#: Installed by a ``sitecustomize`` in the child: Ctrl-C (through a string ``exec``, as
#: when it lands while dataclasses or typer build code) when module $QWKIT_TEST_SIGINT_AT
#: is first imported.
_SIGINT_AT_IMPORT = """
import os, sys

class _Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["QWKIT_TEST_SIGINT_AT"]:
            sys.meta_path.remove(self)
            exec("import signal; signal.raise_signal(signal.SIGINT)")
        return None

sys.meta_path.insert(0, _Interrupt())
"""

#: The ``qwkit`` script as pip writes it.
_SCRIPT = """import sys
from qwkit.cli import main
if __name__ == '__main__':
    sys.argv[0] = sys.argv[0].removesuffix('.exe')
    sys.exit(main())
"""


def _interruptible() -> None:
    """In the child before it starts: Ctrl-C at its default, whatever this process
    inherited (a suite started as a background job ignores SIGINT, and so would every
    Python it starts: CPython keeps an ignored SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class TestInterruptWhileLoading:
    """Ctrl-C while the command line loads (typer and the app; the command's module,
    imported when it is called; the package's numpy, scipy and numba, imported when the
    command first calls qwkit) reads as an interrupt too, for ``python -m qwkit`` and
    the script."""

    @pytest.mark.parametrize(
        "module", ["qwkit.cli._app", "qwkit.cli._cmd_thresholds", "qwkit._thresholds._fit"]
    )
    @pytest.mark.parametrize("entry", ["-m", "script"])
    def test_interrupted_and_130(self, tmp_path, module, entry):
        write_file(tmp_path / "sitecustomize.py", _SIGINT_AT_IMPORT)
        path = os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])
        env = {**os.environ, "PYTHONPATH": path, "QWKIT_TEST_SIGINT_AT": module}
        out = tmp_path / "t.json"
        command = (
            ["-m", "qwkit"] if entry == "-m" else [str(write_file(tmp_path / "qwkit", _SCRIPT))]
        )
        args = ["thresholds", "fit", str(ANXIETY), "-t", "rater1", "-s", "rater2", "-o", str(out)]
        done = subprocess.run(
            [sys.executable, *command, *args],
            env=env,
            capture_output=True,
            text=True,
            preexec_fn=_interruptible,
        )
        # 130, not death by SIGINT (CPython's way under -m once an interrupt passed an exec)
        assert (done.returncode, done.stderr, done.stdout) == (130, "qwkit: interrupted\n", "")
        assert not out.exists() and _no_temporaries(tmp_path)

    def test_a_program_that_imports_qwkit_keeps_its_interrupt(self):
        code = "import signal, qwkit; print(signal.getsignal(2) is signal.default_int_handler)"
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=_interruptible
        )
        assert done.stdout == "True\n"

    @pytest.mark.parametrize(
        ("argv", "orig_argv", "expected"),
        [
            (["-m"], ["python", "-m", "qwkit", "score"], True),
            (["-m"], ["python", "-X", "importtime", "-mqwkit"], True),
            (["-m"], ["python", "-m", "mytool"], False),  # a tool that imports qwkit
            (["/venv/bin/qwkit", "score"], ["python", "/venv/bin/qwkit"], True),
            ([r"C:\venv\Scripts\qwkit.exe"], ["python"], True),
            (["qwkit-script.py"], ["python"], True),
            (["analysis.py"], ["python", "analysis.py"], False),
            ([""], ["python"], False),  # the interactive interpreter
            ([], [], False),  # an embedded interpreter
        ],
    )
    def test_when_the_process_is_the_command_line(self, monkeypatch, argv, orig_argv, expected):
        monkeypatch.setattr(sys, "argv", argv)
        monkeypatch.setattr(sys, "orig_argv", orig_argv, raising=False)
        assert _startup._started_as_the_command_line() is expected


class _FullDisk:
    """A file whose writes fail as on a full disk once ``room`` bytes are written."""

    def __init__(self, raw, room: int) -> None:
        self._raw = raw
        self._room = room

    def write(self, data) -> int:
        self._room -= len(data)
        if self._room < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._raw.write(data)

    def __getattr__(self, name):
        return getattr(self._raw, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._raw.close()


class TestFullDisk:
    @pytest.mark.parametrize("name", ["out.csv", "out.parquet", "out.csv.gz", "fit.json"])
    def test_error_names_the_output(self, tmp_path, monkeypatch, name):
        fdopen = os.fdopen

        def full(fd, mode="r", *args, **kwargs):
            raw = fdopen(fd, mode, *args, **kwargs)
            return _FullDisk(raw, 10) if "w" in mode else raw

        monkeypatch.setattr(_output.os, "fdopen", full)
        target = tmp_path / name
        fit = ("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater2")
        apply = ("thresholds", "apply", ANXIETY, "-s", "rater2", "--thresholds")
        spec = spec_file(tmp_path, thresholds=[2.5, 4.5], labels=[1, 2, 3])
        args = (*fit, "-o", target) if name == "fit.json" else (*apply, spec, "-o", target)
        line = fails(*args)
        assert line == f"qwkit: error: cannot write '{target}': No space left on device."
        assert not target.exists() and _no_temporaries(tmp_path)

    def test_staged_files_are_named(self, tmp_path):
        folder = _output.plan_folder(str(tmp_path / "out"), option="--output")
        targets = {"economics.csv": folder.file("economics.csv", kind=_output.REPORT, force=False)}
        with pytest.raises(CliError) as caught:
            with _output.staged_outputs(folder, targets) as stage:
                raise OSError(errno.ENOSPC, "No space left on device", str(stage / "economics.csv"))
        assert str(caught.value) == (
            f"cannot write '{tmp_path / 'out' / 'economics.csv'}': No space left on device."
        )
        assert not (tmp_path / "out").exists()

    def test_copy_of_standard_input_on_a_full_disk(self, tmp_path, monkeypatch):
        fdopen = os.fdopen

        def full(fd, mode="r", *args, **kwargs):
            raw = fdopen(fd, mode, *args, **kwargs)
            return _FullDisk(raw, 10) if "w" in mode else raw

        monkeypatch.setattr(os, "fdopen", full)
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        line = fails("score", "-", "-t", "a", "-p", "b", input="a,b\n1,2\n2,2\n3,3\n")
        assert line == (
            f"qwkit: error: could not copy standard input into the temporary folder "
            f"'{tmp_path}': No space left on device (TMPDIR chooses another)."
        )
        assert _no_temporaries(tmp_path)


_WRITER = textwrap.dedent(
    """
    import sys, time
    from qwkit.cli import _output

    target = _output.plan(sys.argv[1], kind=_output.TABLE, force=True)
    with _output.open_target(target) as out:
        out.write(b"id,raw,raw_class\\n007,1.5")
        out.flush()
        print("writing", flush=True)
        time.sleep(600)
    """
)


class TestKilledRun:
    def test_next_run_removes_what_it_left(self, tmp_path):
        """kill -9 while a table is written; the next run of the command cleans up, and
        leaves alone what a live qwkit writes and every file that is not qwkit's."""
        target = tmp_path / "out.csv"
        script = write_file(tmp_path / "writer.py", _WRITER)
        writers = []
        try:
            temporaries = []  # of each writer
            for _ in range(2):
                writer = subprocess.Popen(
                    [sys.executable, str(script), str(target)], stdout=subprocess.PIPE
                )
                writers.append(writer)
                assert writer.stdout.readline() == b"writing\n"
                now = {p.name for p in tmp_path.iterdir() if p.name.endswith(TEMPORARY_SUFFIX)}
                temporaries.append(now.difference(temporaries).pop())
            writers[0].kill()  # SIGKILL: no clean-up runs
            writers[0].wait()
            foreign = [
                ".out.csv.abc.qwkit-tmp",  # not a name qwkit gives
                ".out.csv.0123456789abcdef.tmp",
                "out.csv.0123456789abcdef.qwkit-tmp",
                ".other.csv.0123456789abcdef.qwkit-tmp",  # another output's
            ]
            for name in foreign:
                (tmp_path / name).write_text("not qwkit's to remove")
            os.symlink(ANXIETY, tmp_path / ".out.csv.fedcba9876543210.qwkit-tmp")
            data = write_file(tmp_path / "in.csv", "id,raw\n007,1.5\n008,2.5\n")
            spec = spec_file(tmp_path, **SPEC_1_2_3)
            ok("thresholds", "apply", data, "-s", "raw", "--thresholds", spec, "-o", target)
            assert target.read_text() == "id,raw,raw_class\n007,1.5,2\n008,2.5,3\n"
            now = {p.name for p in tmp_path.iterdir()}
            assert temporaries[0] not in now  # the killed writer's: removed
            assert temporaries[1] in now  # the live writer's: kept
            assert set(foreign) <= now and ".out.csv.fedcba9876543210.qwkit-tmp" in now
        finally:
            for writer in writers:
                writer.kill()
                writer.wait()
                writer.stdout.close()

    def test_copy_of_standard_input(self, tmp_path, monkeypatch):
        """The private copy of standard input, in the temporary folder, is cleaned up
        the same way."""
        monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
        stale = tmp_path / ".qwkit-input.0123456789abcdef.qwkit-tmp"
        stale.write_bytes(b"a,b\n1,1\n")  # nobody holds its lock: its qwkit is gone
        ok("score", "-", "-t", "rater1", "-p", "rater2", input=ANXIETY.read_bytes())
        assert list(tmp_path.iterdir()) == []


def _args(data, spec, target, *extra):
    """``thresholds apply`` of column 'raw' of ``data`` to ``target``."""
    return ("thresholds", "apply", data, "-s", "raw", "--thresholds", spec, "-o", target, *extra)


def _apply(data, spec, target, *extra):
    return run(*_args(data, spec, target, *extra))


class TestRerunReplacesItsOwnText:
    TEXT = '# note\nid,raw,x\n007,1.5,a\n008,,b\n\n009,2.5,"c, d"\n'

    @pytest.mark.parametrize("name", ["out.csv", "out.tsv", "out.csv.gz"])
    @pytest.mark.parametrize("drop", [(), ("--drop-missing",)])
    def test_rerun_with_other_cut_points(self, tmp_path, name, drop):
        data = write_file(
            tmp_path / "in.csv", self.TEXT.replace(",,b", ",0.5,b") if not drop else self.TEXT
        )
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / name
        assert _apply(data, spec, target, *drop).exit_code == 0
        first = target.read_bytes()
        spec.write_text('{"thresholds": [2.0, 3.0], "labels": [1, 2, 3]}')
        result = _apply(data, spec, target, *drop)
        assert result.exit_code == 0, result.stderr
        assert target.read_bytes() != first

    def test_from_a_parquet_input(self, tmp_path):
        data = tmp_path / "in.parquet"
        pq.write_table(pa.table({"id": ["007", "008"], "raw": [1.5, 2.5]}), data)
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        for cuts in ([1.0, 2.0], [2.0, 3.0]):
            spec.write_text(f'{{"thresholds": {cuts}, "labels": [1, 2, 3]}}')
            assert _apply(data, spec, target).exit_code == 0
        assert target.read_text() == 'id,raw,raw_class\n"007",1.5,1\n"008",2.5,2\n'

    @pytest.mark.parametrize(
        "existing",
        [
            TEXT,  # the input itself, copied
            TEXT.replace("x\n", "x,raw_class\n").replace("a\n", "a,2\n"),  # not every row
            '# note\nid,raw,x,raw_class\n007,1.5,a,2\n008,,B,1\n\n009,2.5,"c, d",3\n',  # edited
            "id,raw,x,raw_class\n007,1.5,a,2\n",  # without the comment line
            "just notes\n",
        ],
    )
    def test_any_other_file_is_refused(self, tmp_path, existing):
        data = write_file(tmp_path / "in.csv", self.TEXT)
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = write_file(tmp_path / "out.csv", existing)
        line = fails(*_args(data, spec, target, "--drop-missing"))
        assert f"'{target}' exists and is not a table that qwkit wrote from '{data}'" in line
        assert "--force" in line and target.read_text() == existing
        assert _apply(data, spec, target, "--drop-missing", "--force").exit_code == 0

    def test_another_column_name_is_another_table(self, tmp_path):
        data = write_file(tmp_path / "in.csv", "id,raw\n007,1.5\n")
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        assert _apply(data, spec, target).exit_code == 0
        assert "'raw_grade'" in fails(*_args(data, spec, target, "--column", "raw_grade"))

    def test_compressed_output_is_read_as_such(self, tmp_path):
        data = write_file(tmp_path / "in.csv", "id,raw\n007,1.5\n")
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv.gz"
        target.write_bytes(b"id,raw,raw_class\n007,1.5,2\n")  # right text, not compressed
        assert "is not a table that qwkit wrote" in fails(
            "thresholds", "apply", data, "-s", "raw", "--thresholds", spec, "-o", target
        )
        target.write_bytes(gzip.compress(b"id,raw,raw_class\n007,1.5,1\n"))
        assert _apply(data, spec, target).exit_code == 0
        assert gzip.decompress(target.read_bytes()) == b"id,raw,raw_class\n007,1.5,2\n"
