"""One word per concept on the command line: every option of every command is a word of
the glossary (CONTRIBUTING.md, "On the command line"), no option is one of its synonyms,
a short option means one thing, an option's default is the same in every command that
takes it (but where this file says why), and a deprecated name still works, with a
warning."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
import typer

import qwkit
from cli_helpers import fails, ok, run
from qwkit.cli import _app
from qwkit.cli._app import app

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY_HEADING = "### On the command line"
#: Two words that look alike but name different things.
DISTINCT = {
    frozenset({"--rater", "--raters"}): "a long file's rater column / a wide file's columns",
    frozenset({"--rater", "--raters-per-item"}): "a rater column / a planned study's design",
    frozenset({"--raters", "--raters-per-item"}): "rater columns / a planned study's design",
}
#: Options whose default differs between commands, and why.
OWN_DEFAULTS = {
    ("evaluate", "--n-resamples"): "evaluate_scorer's 2000: each resample recomputes every "
    "statistic of every machine, and its intervals are the jackknife's by default",
    ("calibrate estimate", "--calibration"): "fit's purpose is a mapping (thresholds); an "
    "estimate uses the judge as it is unless asked (none), PPI++ being valid either way",
    ("evaluate", "--method"): "evaluate_scorer's methods: the jackknife holds its level "
    "from 20 units",
    ("report", "--method"): "the report draws the bootstrap distribution beside the interval",
    ("demo", "--output"): "the folder's name says the command",
    ("economics", "--output"): "the folder's name says the command",
}


def _commands():
    """(path, click command) of every command, the lazily loaded ones imported."""
    group = typer.main.get_command(app)
    found = []

    def walk(command, ctx, path):
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                walk(
                    sub,
                    sub.make_context(name, [], parent=ctx, resilient_parsing=True),
                    [*path, name],
                )
        else:
            found.append((" ".join(path), command))

    walk(group, group.make_context("qwkit", [], resilient_parsing=True), [])
    return found, group


COMMANDS, ROOT_GROUP = _commands()


def _options(command):
    return [p for p in command.params if p.param_type_name == "option"]


def _names(option) -> list[str]:
    return [*option.opts, *option.secondary_opts]


def _glossary() -> tuple[dict[str, int], dict[str, int]]:
    """The words of each row (option → row) and the words never to use (word → row)."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split(GLOSSARY_HEADING, 1)[1].split("\n## ", 1)[0]
    words, never = {}, {}
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, "the glossary's table is missing"
    for i, row in enumerate(rows):
        cells = [c.strip() for c in row.strip().strip("|").split(" | ")]
        assert len(cells) == 3, row
        for word in re.findall(r"`(-[^`]+)`", cells[0]):
            assert word not in words, f"{word} has two rows"
            words[word] = i
        for word in re.findall(r"`(-[^`]+)`", cells[2]):
            never[word] = i
    return words, never


WORDS, NEVER = _glossary()


def _used(commands) -> dict[str, list[str]]:
    """Every option name → the commands that show it (the root's --version too)."""
    used = defaultdict(list)
    for path, command in commands:
        for option in _options(command):
            if not option.hidden:
                for name in _names(option):
                    used[name].append(path or "qwkit")
        used["--help"].append(path or "qwkit")
        used["-h"].append(path or "qwkit")
    return dict(used)


USED = _used([("", ROOT_GROUP), *COMMANDS])


def _not_words(used) -> dict[str, list[str]]:
    """The options that are no word of the glossary, and their commands."""
    return {word: where for word, where in used.items() if word not in WORDS}


def _synonyms(used) -> dict[str, list[str]]:
    """The options that are synonyms of a glossary word, and their commands."""
    return {word: where for word, where in used.items() if word in NEVER}


def _stem(word: str) -> str:
    word = word.lstrip("-")
    word = word.removeprefix("n-")
    return word.removesuffix("s")


def _twins(a: str, b: str) -> bool:
    """Near-twins: the same word but for a plural or ``n-``, or one word cut short
    (``--out``, ``--output``) — not a word and its hyphenated longer form."""
    sa, sb = sorted((_stem(a), _stem(b)), key=len)
    return sa == sb or (len(sa) >= 3 and sb.startswith(sa) and sb[len(sa)] != "-")


class TestGlossary:
    def test_the_walk_finds_every_command(self):
        paths = {path for path, _ in COMMANDS}
        assert {"score", "agreement", "evaluate", "thresholds fit", "demo"} <= paths
        groups = (_app.THRESHOLDS, _app.PLAN, _app.CALIBRATE)
        assert len(paths) == len(_app.COMMANDS) + sum(len(g) for g in groups)

    def test_every_option_is_in_the_glossary(self):
        assert _not_words(USED) == {}, "add these options to CONTRIBUTING.md's glossary"

    def test_no_synonym_is_an_option(self):
        assert _synonyms(USED) == {}, "use the glossary's word (its row's first column)"

    def test_the_checks_can_fail(self):
        """A command with a new synonym and a new word is caught by both checks."""
        new = typer.Typer(add_completion=False)

        @new.command()
        def cmd(
            out: str = typer.Option("x", "--out"),
            boots: int = typer.Option(9, "--n-boot"),
            colour: str = typer.Option("red", "--colour"),
        ) -> None:
            """A new command."""

        used = _used([("new", typer.main.get_command(new))])
        assert _synonyms(used) == {"--out": ["new"], "--n-boot": ["new"]}
        assert _not_words(used) == {"--out": ["new"], "--n-boot": ["new"], "--colour": ["new"]}

    def test_every_glossary_word_is_used(self):
        assert [word for word in WORDS if word not in USED] == []

    def test_no_near_twins(self):
        words = sorted(USED)
        twins = {
            frozenset({a, b})
            for i, a in enumerate(words)
            for b in words[i + 1 :]
            if not {a[:5], b[:5]} & {"--no-"} and a[:2] == b[:2] == "--" and _twins(a, b)
        }
        assert twins - set(DISTINCT) == set()

    def test_the_near_twin_check_can_fail(self):
        assert _twins("--out", "--output") and _twins("--count", "--counts")
        assert _twins("--resamples", "--n-resamples")
        assert not _twins("--optimism", "--optimism-resamples")
        assert not _twins("--pred", "--pred-role")

    def test_a_short_option_means_one_thing(self):
        meaning = defaultdict(set)
        for _, command in COMMANDS:
            for option in _options(command):
                longs = tuple(n for n in option.opts if n.startswith("--"))
                for name in option.opts:
                    if not name.startswith("--"):
                        meaning[name].add(longs)
        assert {short: longs for short, longs in meaning.items() if len(longs) > 1} == {}

    def test_hidden_options_are_deprecated_names(self):
        hidden = [
            (path, name)
            for path, command in COMMANDS
            for option in _options(command)
            if option.hidden
            for name in _names(option)
            if name not in NEVER
        ]
        assert hidden == []


class TestDefaults:
    def test_an_option_has_one_default(self):
        """Resampling, seeds, levels, methods: the same default in every command."""
        defaults = defaultdict(dict)
        for path, command in COMMANDS:
            for option in _options(command):
                if option.default is not None and (path, option.opts[0]) not in OWN_DEFAULTS:
                    value = getattr(option.default, "value", option.default)
                    defaults[option.opts[0]][path] = value
        differing = {
            name: by_command
            for name, by_command in defaults.items()
            if len(set(map(repr, by_command.values()))) > 1
        }
        assert differing == {}

    def test_the_defaults_said(self):
        found = {
            (path, option.opts[0]): getattr(option.default, "value", option.default)
            for path, command in COMMANDS
            for option in _options(command)
        }
        resamples = {path: v for (path, name), v in found.items() if name == "--n-resamples"}
        assert resamples == {p: 9999 for p in resamples} | {"evaluate": 2000}
        assert set(resamples) == {"score", "compare", "agreement", "evaluate", "report", "judge"}
        assert {v for (_, name), v in found.items() if name == "--seed"} == {20261121}
        # evaluate's default is the API's
        from inspect import signature

        api = signature(qwkit.evaluate_scorer).parameters["n_resamples"].default
        assert found["evaluate", "--n-resamples"] == api

    def test_the_demo_resamples_as_the_commands(self):
        from qwkit.cli import _demo

        assert _demo.N_RESAMPLES == 9999


#: The deprecated option names of each command: old → new.
RENAMED = {
    "demo": {"--out": "--output"},
    "economics": {"--out": "--output"},
    "evaluate": {"--confidence-level": "--ci", "--id": "--item"},
}


class TestDeprecatedNames:
    def test_every_renaming_is_in_the_glossary(self):
        renamed = {
            path: command.renamed for path, command in COMMANDS if getattr(command, "renamed", {})
        }
        assert renamed == RENAMED
        for table in renamed.values():
            for old, new in table.items():
                assert NEVER.get(old) == WORDS[new], (old, new)

    def test_old_names_are_not_in_the_help(self):
        for path, words in (("demo", "--out "), ("evaluate", "--confidence-level")):
            assert words not in ok(*path.split(), "--help").stdout

    @pytest.mark.parametrize("form", ["separate", "equals"])
    def test_old_name_is_read_as_the_new_one_and_warns(self, form):
        """``--out -`` is refused as ``--output -`` is (a folder), after the warning."""
        args = ["--out", "-"] if form == "separate" else ["--out=-"]
        result = run("economics", *args)
        assert result.exit_code == 2
        assert result.stderr.splitlines() == [
            "qwkit: warning: --out is deprecated and will be removed in qwkit 0.4; "
            "use --output (the same thing).",
            result.stderr.splitlines()[1],
        ]
        assert "Invalid value for --output: is a folder" in result.stderr

    def test_old_and_new_name_together_are_a_usage_error(self, tmp_path):
        line = fails("economics", "--out", tmp_path / "a", "-o", tmp_path / "b", code=2)
        assert "give -o only; --out is its deprecated name" in line
        assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()

    def test_a_value_is_never_read_as_an_old_name(self):
        """``--title --out``: '--out' is the title (then a usage error of its own)."""
        result = run("evaluate", "x.csv", "--title", "--id", "--human")
        assert "deprecated" not in result.stderr

    def test_evaluate_old_names(self, tmp_path):
        path = tmp_path / "e.csv"
        rows = [(i, 1 + i % 4, 1 + (i + i // 3) % 4, 1 + (i + i // 5) % 4) for i in range(40)]
        path.write_text("id,h1,h2,m\n" + "".join(f"{i},{a},{b},{c}\n" for i, a, b, c in rows))
        common = ("evaluate", path, "--human", "h1,h2", "--machine", "m", "--json")
        new = ok(*common, "--item", "id", "--ci", "0.9")
        old = ok(*common, "--id", "id", "--confidence-level", "0.9")
        assert old.stdout == new.stdout
        assert old.stderr.count("is deprecated") == 2 and "is deprecated" not in new.stderr
