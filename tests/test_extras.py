"""`_extras.require`: the one ImportError of every optional feature."""

from __future__ import annotations

import sys
import types

import pytest

from qwkit._extras import require


def _fake(monkeypatch, name: str, version: str | None) -> None:
    module = types.ModuleType(name)
    if version is not None:
        module.__version__ = version
    monkeypatch.setitem(sys.modules, name, module)


@pytest.mark.parametrize(
    ("found", "minimum", "ok"),
    [
        ("4.6.0", "4.0", True),
        ("2.13.0+cpu", "2.1", True),  # a local version label
        ("4.0.0rc1", "4.0", True),  # a pre-release of the minimum
        ("2024.12.1", "2024.1", True),  # calendar versions
        ("3.9.9", "4.0", False),
        ("2.0.5", "2.1", False),
    ],
)
def test_minimum_version(monkeypatch, found, minimum, ok):
    _fake(monkeypatch, "qwkit_fake_extra", found)
    call = lambda: require(  # noqa: E731
        "qwkit_fake_extra", feature="qwkit.fake", package="Fake", extra="fake", minimum=minimum
    )
    if ok:
        assert call().__version__ == found
    else:
        message = (
            f"qwkit.fake needs Fake >= {minimum}; found {found}. "
            "Install it with: pip install 'qwkit[fake]'"
        )
        with pytest.raises(ImportError) as info:
            call()
        assert str(info.value) == message


def test_missing_module_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "qwkit_fake_extra", None)  # import fails
    with pytest.raises(ImportError, match=r"^qwkit.fake needs Fake >= 1. Install it with: "):
        require("qwkit_fake_extra", feature="qwkit.fake", package="Fake", extra="fake", minimum="1")


def test_a_module_without_a_version_is_accepted(monkeypatch):
    _fake(monkeypatch, "qwkit_fake_extra", None)
    assert require("qwkit_fake_extra", feature="f", package="P", extra="e", minimum="9.0")
