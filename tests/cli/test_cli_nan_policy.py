"""``--nan-policy`` says the library's ``nan_policy`` the same way in every command that
reads ratings; ``--drop-missing`` is its deprecated alias for ``omit``; ``--missing``
(codes that mean "not rated") is another thing (issue 29, item 2)."""

from __future__ import annotations

import typer.main

import qwkit
from cli_helpers import EXPSY, as_json, expsy_columns, fails, write_file
from qwkit.cli._app import app

#: the commands that read ratings, and the default of their kind
READERS = {
    "score": "raise",
    "compare": "raise",
    "report": "raise",
    "agreement": "omit",
    "evaluate": "raise",
    "thresholds fit": "raise",
    "thresholds apply": "raise",
}


def _commands():
    """Every command (and subcommand) by name, through click (as test_cli_words does)."""
    root = typer.main.get_command(app)
    ctx = root.make_context("qwkit", [], resilient_parsing=True)
    found = {}
    for name in root.list_commands(ctx):
        cmd = root.get_command(ctx, name)
        if hasattr(cmd, "list_commands"):
            sub = cmd.make_context(name, [], parent=ctx, resilient_parsing=True)
            found.update({f"{name} {n}": cmd.get_command(sub, n) for n in cmd.list_commands(sub)})
        else:
            found[name] = cmd
    return found


def test_every_reader_has_the_same_option():
    commands = _commands()
    for name in READERS:
        params = commands[name].params
        options = {o.opts[0]: o for o in params if o.param_type_name == "option"}
        option = options["--nan-policy"]
        choices = [m.value for m in option.type_descriptor.annotation]
        assert choices == ["propagate", "raise", "omit"], name
        assert option.default is None, name  # the command's kind decides
        assert option.help == options_help(commands), name
        if "--drop-missing" in options:
            assert options["--drop-missing"].help.startswith("Deprecated: the same as")


def options_help(commands) -> str:
    option = next(o for o in commands["score"].params if o.opts[0] == "--nan-policy")
    return option.help


class TestScore:
    def test_drop_missing_is_omit(self):
        a = as_json("score", EXPSY, "-t", "r1", "-p", "r2", "--drop-missing")
        b = as_json("score", EXPSY, "-t", "r1", "-p", "r2", "--nan-policy", "omit")
        assert a == b
        data = expsy_columns()
        keep = [
            x is not None and y is not None for x, y in zip(data["r1"], data["r2"], strict=True)
        ]
        y1, y2 = data["r1"][keep].astype(int), data["r2"][keep].astype(int)
        assert b["statistic"] == qwkit.kappa_test(y1, y2).statistic

    def test_raise_is_the_default(self):
        line = fails("score", EXPSY, "-t", "r1", "-p", "r2", "--nan-policy", "raise")
        assert line == fails("score", EXPSY, "-t", "r1", "-p", "r2")
        assert "--nan-policy omit" in line

    def test_propagate_and_contradictions_are_usage_errors(self):
        line = fails("score", EXPSY, "-t", "r1", "-p", "r2", "--nan-policy", "propagate", code=2)
        assert "--nan-policy" in line
        line = fails(
            "score", EXPSY, "-t", "r1", "-p", "r2", "--nan-policy", "raise", "--drop-missing",
            code=2,
        )  # fmt: skip
        assert "--drop-missing" in line


class TestAgreement:
    def test_omit_is_not_rated(self, tmp_path):
        path = write_file(tmp_path / "t.csv", "a,b,c\n1,1,2\n2,2,\n3,3,3\n1,2,1\n2,2,2\n")
        default = as_json("agreement", path, "-r", "a,b,c", "--coefficient", "fleiss")
        omit = as_json(
            "agreement", path, "-r", "a,b,c", "--coefficient", "fleiss", "--nan-policy", "omit"
        )
        assert default == omit
        line = fails(
            "agreement", path, "-r", "a,b,c", "--coefficient", "fleiss", "--nan-policy", "raise"
        )
        assert "complete table" in line

    def test_missing_codes_are_another_option(self, tmp_path):
        path = write_file(tmp_path / "t.csv", "a,b,c\n1,1,2\n2,2,99\n3,3,3\n1,2,1\n2,2,2\n")
        out = as_json(
            "agreement", path, "-r", "a,b,c", "--coefficient", "fleiss", "--missing", "99"
        )
        blank = write_file(tmp_path / "u.csv", "a,b,c\n1,1,2\n2,2,\n3,3,3\n1,2,1\n2,2,2\n")
        want = as_json("agreement", blank, "-r", "a,b,c", "--coefficient", "fleiss")
        assert out["coefficients"] == want["coefficients"]
