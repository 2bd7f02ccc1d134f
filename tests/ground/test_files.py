"""The atomic writer (``qwkit._base._files``): a failure names the target and leaves nothing,
and the temporary files of a writer that died are removed by the next one — only
those, never a live writer's or another program's file."""

from __future__ import annotations

import errno
import os

import pytest

from qwkit._base import _files


class TestAtomicWrite:
    def test_full_disk_names_the_target(self, tmp_path):
        target = tmp_path / "economics.csv"
        target.write_text("before\n")

        def write(fh):
            fh.write("partial")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        with pytest.raises(OSError) as caught:
            _files.atomic_write(target, write, binary=False)
        assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(target)
        assert str(caught.value).endswith(f"No space left on device: '{target}'")
        assert target.read_text() == "before\n" and sorted(tmp_path.iterdir()) == [target]

    def test_interrupt_leaves_nothing(self, tmp_path):
        def write(fh):
            fh.write(b"partial")
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            _files.atomic_write(tmp_path / "x.png", write, binary=True)
        assert list(tmp_path.iterdir()) == []

    def test_mode_honours_the_umask(self, tmp_path):
        umask = os.umask(0o027)
        try:
            _files.atomic_write(tmp_path / "x.csv", lambda fh: fh.write("a\n"), binary=False)
        finally:
            os.umask(umask)
        assert (tmp_path / "x.csv").stat().st_mode & 0o777 == 0o640


class TestStaleTemporaries:
    def test_only_those_of_a_writer_that_is_gone(self, tmp_path):
        target = tmp_path / "out.csv"
        dead_fd, dead = _files.new_temporary(target)
        os.close(dead_fd)  # its lock is released, as when its process dies
        live_fd, live = _files.new_temporary(target)
        try:
            assert not dead.exists()  # removed by the second writer
            other_fd, other = _files.new_temporary(tmp_path / "other.csv")
            os.close(other_fd)
            _files.remove_stale(target)
            assert live.exists() and other.exists()  # alive; another target's
            assert dead.name.startswith(".out.csv.") and dead.name.endswith(".qwkit-tmp")
        finally:
            os.close(live_fd)

    def test_older_names_of_qwkit_are_removed_too(self, tmp_path):
        # before the lock, temporary files were named by tempfile.mkstemp
        old = tmp_path / ".out.csv.k3_9zq1x.qwkit-tmp"
        old.write_bytes(b"partial")
        _files.remove_stale(tmp_path / "out.csv")
        assert not old.exists()

    def test_staging_folder(self, tmp_path):
        fd, stage = _files.new_temporary_folder(tmp_path)
        (stage / "economics.csv").write_text("partial")
        os.close(fd)  # its writer is gone
        live_fd, live = _files.new_temporary_folder(tmp_path)
        try:
            assert not stage.exists()
            other_fd, other = _files.new_temporary_folder(tmp_path)  # a second writer
            os.close(other_fd)
            assert live.is_dir() and other.is_dir()
        finally:
            os.close(live_fd)
