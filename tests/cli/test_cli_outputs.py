"""The command line never destroys data: outputs against inputs, special files, existing
files, standard streams and interruptions (the rules of ``qwkit.cli._output``).

Most tests run in-process (typer's CliRunner); real processes only where a real file
descriptor or signal is needed. Data: tests/data/irr_anxiety.csv (R package irr).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import qwkit
import qwkit.economics
from cli_helpers import ANXIETY, FAST_REPORT, fails, folder_state, ok, qwkit_process


@pytest.fixture
def data(tmp_path) -> Path:
    path = tmp_path / "a.csv"
    shutil.copyfile(ANXIETY, path)
    return path


@pytest.fixture
def spec(tmp_path, data) -> Path:
    """A thresholds file written by qwkit."""
    path = tmp_path / "t.json"
    ok("thresholds", "fit", data, "-t", "rater1", "-s", "rater2", "-o", path)
    return path


def _report(data, out, *extra):
    return ("report", data, "-t", "rater1", "-p", "rater2", "-o", out, *FAST_REPORT, *extra)


def _fit(data, out, *extra):
    return ("thresholds", "fit", data, "-t", "rater1", "-s", "rater2", "-o", out, *extra)


def _apply(data, spec, out, *extra):
    return ("thresholds", "apply", data, "-s", "rater2", "--thresholds", spec, "-o", out, *extra)


# ---------------------------------------------------------------------------- inputs


class TestOutputIsNeverAnInput:
    @pytest.mark.parametrize("command", ["report", "fit", "apply", "apply-spec", "report-spec"])
    @pytest.mark.parametrize("link", ["same", "symlink", "hardlink", "linked-input"])
    def test_refused_and_input_untouched(self, tmp_path, data, spec, command, link):
        victim = spec if command.endswith("spec") else data
        given_input = victim
        if link == "same":
            out = victim
        elif link == "symlink":
            out = tmp_path / "link"
            out.symlink_to(victim.name)
        elif link == "hardlink":
            out = tmp_path / "hard"
            os.link(victim, out)
        else:  # the command reads the input through a link; the output is the file
            given_input = tmp_path / "alias"
            given_input.symlink_to(victim.name)
            out = victim
        data_arg = given_input if victim == data else data
        spec_arg = given_input if victim == spec else spec
        args = {
            "report": _report(data_arg, out),
            "fit": _fit(data_arg, out),
            "apply": _apply(data_arg, spec_arg, out),
            "apply-spec": _apply(data_arg, spec_arg, out),
            "report-spec": (
                "report",
                data_arg,
                "-t",
                "rater1",
                "-s",
                "rater2",
                "--thresholds",
                spec_arg,
                "-o",
                out,
                *FAST_REPORT,
            ),
        }[command]
        before = folder_state(tmp_path)
        line = fails(*args)
        assert "an input of this command" in line
        assert ("thresholds file" if victim == spec else "data file") in line
        assert folder_state(tmp_path) == before

    def test_stdin_redirected_from_the_output(self, tmp_path, data):
        before = data.read_bytes()
        with open(data, "rb") as stdin:
            proc = qwkit_process(
                *_report("-", data), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            _, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, err
        assert err.decode().startswith("qwkit: error: the output")
        assert "standard input" in err.decode()
        assert data.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


# ---------------------------------------------------------------------------- special files


def _null_device(tmp_path: Path, name: str = "null", minor: int = 3) -> Path:
    """A character device to write into: a private copy of /dev/null (or /dev/full,
    minor 7) when we may make one (root), else the device itself (which an unprivileged
    process cannot replace)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        path = tmp_path / name
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        return path
    return Path("/dev") / name


class _FifoReader(threading.Thread):
    """Reads a named pipe to its end in the background."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.data = b""

    def run(self) -> None:
        with open(self.path, "rb") as fh:
            self.data = fh.read()


class TestSpecialFiles:
    @pytest.mark.parametrize("command", ["report", "fit", "apply"])
    def test_fifo_is_written_in_place(self, tmp_path, data, spec, command):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        reader = _FifoReader(fifo)
        reader.start()
        args = {
            "report": _report(data, fifo),
            "fit": _fit(data, fifo),
            "apply": _apply(data, spec, fifo),
        }[command]
        ok(*args)
        reader.join(timeout=60)
        assert not reader.is_alive()
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the pipe, not a file
        if command == "report":
            assert reader.data.startswith(b"<!DOCTYPE html>")
        elif command == "fit":
            assert json.loads(reader.data)["score"] == "rater2"
        else:
            text = reader.data.decode()
            assert text.splitlines()[1].endswith(",rater2_class")  # line 0: the comment
            assert len(text.splitlines()) == 22
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "pipe", "t.json"]

    @pytest.mark.parametrize("command", ["report", "fit", "apply"])
    def test_character_device_is_written_in_place(self, tmp_path, data, spec, command):
        device = _null_device(tmp_path)
        before = os.stat(device)
        args = {
            "report": _report(data, device),
            "fit": _fit(data, device),
            "apply": _apply(data, spec, device),
        }[command]
        ok(*args)
        after = os.stat(device)
        assert stat.S_ISCHR(after.st_mode)
        assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]

    def test_full_device_is_one_error_line(self, tmp_path, data):
        device = _null_device(tmp_path, "full", 7)
        line = fails(*_fit(data, device))
        assert line == f"qwkit: error: cannot write '{device}': No space left on device."
        assert stat.S_ISCHR(os.stat(device).st_mode)

    def test_socket_is_refused(self, tmp_path, data):
        path = tmp_path / "s"
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
            line = fails(*_report(data, path))
        assert "socket" in line
        assert stat.S_ISSOCK(os.lstat(path).st_mode)

    def test_descriptor_paths_are_standard_output(self, data, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        result = ok(*_fit(data, "/dev/stdout"))
        assert json.loads(result.stdout)["truth"] == "rater1"  # the table went to stderr
        assert "Kappa-optimal cut points" in result.stderr
        assert not Path("/dev/stdout").is_file() or Path("/dev/stdout").is_symlink()


# ---------------------------------------------------------------------------- existing files


class TestReplaceOnlyWhatQwkitWrote:
    def test_report(self, tmp_path, data):
        out = tmp_path / "r.html"
        out.write_text("my notes")
        line = fails(*_report(data, out))
        assert "--force" in line and "not a qwkit HTML report" in line
        assert out.read_text() == "my notes"
        ok(*_report(data, out, "--force"))
        first = out.read_text()
        assert first.startswith("<!DOCTYPE html>")
        ok(*_report(data, out, "--title", "again"))  # qwkit's own report: replaced
        assert "again" in out.read_text() and out.read_text() != first

    def test_empty_file_is_replaced(self, tmp_path, data):
        out = tmp_path / "made-by-mktemp"
        out.touch()
        ok(*_fit(data, out))
        assert json.loads(out.read_text())["qwkit"] == qwkit.__version__

    def test_thresholds_file(self, tmp_path, data):
        out = tmp_path / "t.json"
        out.write_text(json.dumps({"thresholds": [1.5]}))  # hand-written: no "qwkit" key
        assert "--force" in fails(*_fit(data, out))
        ok(*_fit(data, out, "--force"))
        ok(*_fit(data, out, "--weights", "linear"))
        assert json.loads(out.read_text())["weights"] == "linear"

    def test_apply_text_needs_force(self, tmp_path, data, spec):
        out = tmp_path / "o.csv"
        out.write_text("precious,data\n1,2\n")
        assert "--force" in fails(*_apply(data, spec, out))
        assert out.read_text() == "precious,data\n1,2\n"
        ok(*_apply(data, spec, out, "--force"))
        assert out.read_text().splitlines()[1].endswith("rater2_class")

    def test_apply_parquet_carries_qwkit_mark(self, tmp_path, data, spec):
        out = tmp_path / "o.parquet"
        ok(*_apply(data, spec, out))
        ok(*_apply(data, spec, out, "--column", "again"))
        assert pq.read_table(out).column_names[-1] == "again"
        foreign = tmp_path / "f.parquet"
        pq.write_table(pa.table({"x": [1, 2]}), foreign)
        assert "--force" in fails(*_apply(data, spec, foreign))
        assert pq.read_table(foreign).column_names == ["x"]

    def test_read_only_file_needs_force(self, tmp_path, data):
        out = tmp_path / "r.json"
        ok(*_fit(data, out))
        out.chmod(0o444)
        before = out.read_bytes()
        line = fails(*_fit(data, out, "--weights", "linear"))
        assert "read-only" in line and "--force" in line
        assert out.read_bytes() == before
        ok(*_fit(data, out, "--weights", "linear", "--force"))
        assert json.loads(out.read_text())["weights"] == "linear"
        assert stat.S_IMODE(out.stat().st_mode) == 0o444  # its permission bits are kept

    def test_demo_refuses_a_foreign_report_before_work(self, tmp_path):
        folder = tmp_path / "d"
        folder.mkdir()
        (folder / "report.html").write_text("<html>mine</html>")
        start = time.monotonic()
        line = fails("demo", "--output", folder)
        assert "--force" in line
        assert time.monotonic() - start < 20  # refused before the models were fitted
        assert (folder / "report.html").read_text() == "<html>mine</html>"

    def test_economics(self, tmp_path):
        folder = tmp_path / "e"
        folder.mkdir()
        (folder / "economics.csv").write_text("my,table\n")
        line = fails("economics", "--output", folder, "--n-repeats", "1")
        assert "economics.csv" in line and "--force" in line
        assert sorted(p.name for p in folder.iterdir()) == ["economics.csv"]
        ok("economics", "--output", folder, "--n-repeats", "1", "--force")
        names = sorted(p.name for p in folder.iterdir())
        assert names == ["economics.csv", "economics_synthetic.png", "economics_wine.png"]
        ok("economics", "--output", folder, "--n-repeats", "1", "--seed", "7")  # its own files

    def test_folder_is_made_only_with_its_outputs(self, tmp_path, monkeypatch):
        def broken(**kwargs):
            raise RuntimeError("the simulation failed")

        monkeypatch.setattr(qwkit.economics, "simulate_economics", broken)
        folder = tmp_path / "new"
        assert "the simulation failed" in fails("economics", "--output", folder)
        assert list(tmp_path.iterdir()) == []  # neither the folder nor a file in it

    def test_missing_path_ending_in_a_slash_is_not_a_file(self, tmp_path, data):
        line = fails(*_fit(data, f"{tmp_path / 'new'}/"))
        assert "folder" in line
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]

    def test_long_output_name(self, tmp_path, data):
        out = tmp_path / ("x" * 240 + ".json")
        ok(*_fit(data, out))
        assert json.loads(out.read_text())["truth"] == "rater1"

    def test_folder_option_is_not_standard_output(self):
        line = fails("demo", "--output", "-", code=2)
        assert "./-" in line


# ---------------------------------------------------------------------------- standard streams


def _csv_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pacsv.write_csv(table, sink)
    return sink.getvalue()


class TestStandardStreams:
    def test_fit_to_standard_output(self, tmp_path, data, monkeypatch):
        monkeypatch.chdir(tmp_path)
        result = ok(*_fit(data, "-"))
        spec = json.loads(result.stdout)  # nothing but the JSON on stdout
        assert spec["thresholds"] and spec["truth"] == "rater1"
        assert "in-sample kappa" in result.stderr
        assert not Path("-").exists()

    @pytest.mark.parametrize("out", ["-", "/dev/stdout", "/dev/fd/1"])
    def test_json_and_standard_output_conflict(self, data, out):
        assert "--json" in fails(*_fit(data, out, "--json"), code=2)

    def test_file_named_dash(self, tmp_path, data, monkeypatch):
        monkeypatch.chdir(tmp_path)
        ok(*_fit(data, "./-"))
        assert json.loads(Path("-").read_text())["truth"] == "rater1"
        shutil.copyfile(data, "-")
        # the data file named '-' (no extension: --sep) is read as a file, not stdin
        result = ok("score", "./-", "-t", "rater1", "-p", "rater2", "--sep", ",", "--json")
        assert json.loads(result.stdout)["n_items"] == 20

    def test_report_to_standard_output(self, data):
        result = ok(*_report(data, "-"))
        assert result.stdout.startswith("<!DOCTYPE html>")
        assert result.stdout.rstrip().endswith("</html>")
        assert "kappa 0.2968" in result.stderr

    def test_apply_to_standard_output(self, tmp_path, data, spec):
        result = ok(*_apply(data, spec, "-"))
        ok(*_apply(data, spec, tmp_path / "o.csv"))
        assert result.stdout == (tmp_path / "o.csv").read_text()
        assert "wrote standard output" in result.stderr

    @pytest.mark.parametrize("form", ["csv", "gzip", "parquet", "semicolon"])
    def test_standard_input(self, tmp_path, form):
        a, b = [3, 3, 3, 4, 5, 5, 2, 3], [3, 6, 4, 6, 2, 4, 2, 4]
        table = pa.table({"x": a, "y": b})
        raw = _csv_bytes(table)
        extra = []
        if form == "gzip":
            raw = gzip.compress(raw)
        elif form == "parquet":
            sink = io.BytesIO()
            pq.write_table(table, sink)
            raw = sink.getvalue()
        elif form == "semicolon":
            raw = raw.replace(b",", b";")
            extra = ["--sep", ";"]
        result = ok("score", "-", "-t", "x", "-p", "y", "--json", *extra, input=raw)
        out = json.loads(result.stdout)
        assert out["statistic"] == pytest.approx(qwkit.kappa_score(a, b), abs=1e-15)
        assert out["file"] == "-"
        assert list(tmp_path.iterdir()) == []

    def test_descriptor_paths_are_streams(self, data):
        with open(data, "rb") as stdin:
            proc = qwkit_process(
                "score",
                "/dev/stdin",
                "-t",
                "rater1",
                "-p",
                "rater2",
                "--json",
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert json.loads(out)["n_items"] == 20

    def test_empty_standard_input(self):
        assert "standard input is empty" in fails("score", "-", "-t", "x", "-p", "y", input=b"")

    def test_thresholds_from_standard_input(self, tmp_path, data, spec):
        out = tmp_path / "o.csv"
        ok(*_apply(data, "-", out), input=spec.read_bytes())
        assert out.read_text().splitlines()[1].endswith("rater2_class")
        line = fails(*_apply("-", "-", out), code=2)
        assert "standard input" in line

    def test_real_pipes(self, data):
        """`cat data | qwkit score - --json` and `qwkit report ... -o - | ...`: only the
        output on stdout, whatever goes to stderr."""
        with open(data, "rb") as stdin:
            proc = qwkit_process(
                "score",
                "-",
                "-t",
                "rater1",
                "-p",
                "rater2",
                "--json",
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert json.loads(out)["n_items"] == 20
        proc = qwkit_process(*_report(data, "-"), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.startswith(b"<!DOCTYPE html>") and out.rstrip().endswith(b"</html>")
        assert b"wrote standard output" in err


# ---------------------------------------------------------------------------- interruptions


def _wait_for(condition, timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


class TestInterrupted:
    def test_sigterm_while_reading_standard_input(self, tmp_path):
        """The private copy of standard input is removed on SIGTERM."""
        temp = tmp_path / "tmp"
        temp.mkdir()
        proc = qwkit_process(
            "score",
            "-",
            "-t",
            "x",
            "-p",
            "y",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={"TMPDIR": str(temp)},
        )
        proc.stdin.write(b"x,y\n1,2\n")
        proc.stdin.flush()
        assert _wait_for(lambda: any(temp.iterdir())), "no copy of standard input appeared"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 143
        assert err.decode().strip() == "qwkit: terminated"
        assert list(temp.iterdir()) == []

    def test_sighup_while_waiting_for_a_pipe_reader(self, tmp_path, data):
        """A hang-up while the report waits for its reader: exit 129, the pipe intact."""
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        proc = qwkit_process(*_report(data, fifo), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wchan = Path(f"/proc/{proc.pid}/wchan")
        _wait_for(lambda: wchan.exists() and "partner" in wchan.read_text())
        proc.send_signal(signal.SIGHUP)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 129, err
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "pipe"]


def test_numbers_of_the_data():
    """The fixtures' data: the irr package's `anxiety` (rater1, rater2: kappa 0.2968)."""
    table = pacsv.read_csv(ANXIETY, read_options=pacsv.ReadOptions(skip_rows=1))
    a, b = (np.asarray(table.column(c)) for c in ("rater1", "rater2"))
    assert round(qwkit.kappa_score(a, b), 4) == 0.2968
