"""The documents users read: the works they cite, and the outputs they quote.

README.md, docs/*.md and benchmarks/README*.md cite works by author and year (Vaughn &
Justice 2015; Steele 2016; the Kaggle reference page on QWK), never the names of our
planning documents; and the output of ``qwkit economics`` quoted in docs/economics.md is
what the committed code prints with its default seed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qwkit.economics import simulate_economics

ROOT = Path(__file__).resolve().parents[1]
USER_DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "benchmarks").glob("README*.md")),
    # docstrings, --help and the messages of the package are read by users too
    *sorted((ROOT / "src" / "qwkit").rglob("*.py")),
]
PLANNING_NAMES = re.compile(r"seed[-_ ]?0\d\d|DESIGN\.md|shared/seeds", re.IGNORECASE)


class TestUserDocuments:
    def test_all_found(self):
        names = {p.relative_to(ROOT).as_posix() for p in USER_DOCUMENTS}
        assert {"README.md", "docs/economics.md", "benchmarks/README.md"} <= names

    @pytest.mark.parametrize("path", USER_DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
    def test_cite_works_not_planning_names(self, path):
        lines = path.read_text(encoding="utf-8").splitlines()
        hits = [
            f"{n}: {line.strip()}" for n, line in enumerate(lines, 1) if PLANNING_NAMES.search(line)
        ]
        assert not hits, f"{path.name} names planning documents:\n" + "\n".join(hits)

    def test_quoted_economics_output_is_current(self):
        # docs/economics.md quotes simulate_economics().summary() (seed 20261121, 10
        # repeats) in its only ```text block; after a change to the simulation, paste the
        # new summary there and check the findings against it.
        text = (ROOT / "docs" / "economics.md").read_text(encoding="utf-8")
        blocks = re.findall(r"```text\n(.*?)```", text, flags=re.DOTALL)
        assert len(blocks) == 1
        assert blocks[0].rstrip("\n") == simulate_economics().summary()
