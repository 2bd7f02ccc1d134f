"""``_base._memory``: what the process may still allocate, and the up-front refusal of a
request that would need more (``RatingsTable.to_wide``, Light's kappa)."""

from __future__ import annotations

import numpy as np
import pytest

import qwkit
from qwkit._base import _memory


class TestAvailable:
    def test_a_number_of_bytes_on_linux(self):
        left = _memory.available()
        assert left is None or left > 0

    def test_the_address_space_limit_counts(self, monkeypatch):
        monkeypatch.setattr(_memory, "_meminfo", lambda: 10 * 2**30)
        monkeypatch.setattr(_memory, "_address_space_left", lambda: 2**20)
        monkeypatch.setattr(_memory, "_cgroup_left", lambda: None)
        assert _memory.available() == 2**20

    def test_unknown_refuses_nothing(self, monkeypatch):
        for name in ("_meminfo", "_free_pages", "_address_space_left", "_cgroup_left"):
            monkeypatch.setattr(_memory, name, lambda: None)
        assert _memory.available() is None
        _memory.check(1e30, "It", "x", "never.")


class TestCheck:
    def test_a_share_of_what_is_available(self, monkeypatch):
        monkeypatch.setattr(_memory, "available", lambda: 1000)
        _memory.check(750, "It", "x", "fine.")
        with pytest.raises(qwkit.QwkitError) as caught:
            _memory.check(751, "The thing", "x", "do less.")
        assert caught.value.parameter == "x"
        assert str(caught.value) == (
            "The thing would need 751 bytes of memory; 1,000 bytes are available; do less."
        )

    def test_to_wide_says_its_size(self, monkeypatch):
        table = qwkit.ratings_from_long(np.arange(300), np.arange(300) % 100, np.ones(300))
        assert table.to_wide().shape == (300, 100)
        monkeypatch.setattr(_memory, "available", lambda: 200_000)
        with pytest.raises(qwkit.QwkitError) as caught:
            table.to_wide()
        assert caught.value.parameter == "ratings"
        assert str(caught.value).startswith(
            "The items × raters matrix of 300 items and 100 raters would need 268.4 KiB of "
            "memory; 195.3 KiB are available; every qwkit function takes the table itself"
        )
