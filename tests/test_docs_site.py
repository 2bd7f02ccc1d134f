"""The documentation site, built as `make docs` builds it and read as a reader would.

The build itself is the first check: Sphinx with warnings as errors and every reference
checked (``-W -n``), so a docstring that links to a missing name, an equation number that
its page does not define, a Markdown link to nowhere or a gallery example that raises fails
here. Then the built HTML: every public name has its page, every link inside the site
leads to a file and an anchor that exist, the equation numbers of docstrings link to their
derivations, every API page links its section of the user guide, the landing page answers
"which statistic for my question?", every gallery example ran and drew its figures, no page
holds a path of the machine that built it, and a few pages rendered in headless Chromium
show their heading, text, styles and figures (not a blank page).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from browser_helpers import browser, page_check

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import qwkit_docs  # noqa: E402  (the extension that lists the public names)

HREF = re.compile(r'(?:href|src)="([^"]+)"')


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html"]
    command += ["-d", str(out / "doctrees"), str(DOCS), str(out / "html")]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"the site does not build:\n{result.stderr[-6000:]}"
    return out / "html"


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


class TestContents:
    def test_every_public_name_has_a_page(self, site):
        index = (site / "api" / "index.html").read_text(encoding="utf-8")
        names = qwkit_docs.public_names()
        assert len(names["qwkit"]) > 60 and "qwkit.polars" in names
        for module, public in names.items():
            for name in public:
                page = site / "api" / "generated" / f"{module}.{name}.html"
                assert page.exists(), f"{module}.{name} has no page"
                assert f'id="{module}.{name}"' in page.read_text(encoding="utf-8")
                assert f'href="generated/{module}.{name}.html"' in index

    def test_user_guide_getting_started_and_changelog(self, site):
        for md in sorted(DOCS.glob("*.md")):
            assert (site / f"{md.stem}.html").exists(), md.name
        changelog = (site / "changelog.html").read_text(encoding="utf-8")
        assert "0.2.0" in changelog and "0.1.0" in changelog

    def test_every_link_inside_the_site_resolves(self, site):
        checked, broken = 0, []
        anchors: dict[Path, set[str]] = {}
        for page in _pages(site):
            text = page.read_text(encoding="utf-8")
            for link in HREF.findall(text):
                parts = urlsplit(link)
                if parts.scheme or link.startswith(("//", "javascript:", "data:")):
                    continue
                target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
                if not target.exists():
                    broken.append(f"{page.relative_to(site)} -> {link}")
                    continue
                if parts.fragment and target.suffix == ".html":
                    if target not in anchors:
                        ids = re.findall(r'id="([^"]+)"', target.read_text(encoding="utf-8"))
                        anchors[target] = set(ids)
                    if unquote(parts.fragment) not in anchors[target]:
                        broken.append(f"{page.relative_to(site)} -> {link} (no such anchor)")
                checked += 1
        assert checked > 1000
        assert not broken, "\n".join(broken[:40])

    def test_cited_equations_link_to_their_derivations(self, site):
        page = (site / "api" / "generated" / "qwkit.kappa_test.html").read_text(encoding="utf-8")
        # "the sandwich form of eq. 5": docs/inference.md, section 4, formula (5)
        assert 'href="../../inference.html#eq-inference-5"' in page
        inference = (site / "inference.html").read_text(encoding="utf-8")
        assert 'id="eq-inference-5"' in inference
        soft = (site / "api" / "generated" / "qwkit.soft_kappa_score.html").read_text("utf-8")
        assert "kappa.html#eq-kappa-2prime" in soft
        # another work's numbering stays text: "(Vaughn & Justice 2015, eqs. 5, 8, 9)"
        regression = site / "api" / "generated" / "qwkit.kappa_regression.html"
        assert "regression.html#eq-regression-5" not in regression.read_text(encoding="utf-8")
        links = sum(
            len(re.findall(r'href="[^"]*#eq-', p.read_text(encoding="utf-8")))
            for p in (site / "api" / "generated").glob("*.html")
        )
        assert links > 100

    def test_every_api_page_links_its_user_guide_section(self, site):
        guide = {md.stem for md in DOCS.glob("*.md")}
        link = re.compile(
            r'<p class="qwkit-guide">User guide: <a [^>]*href="\.\./\.\./([^"#]+)\.html(#[^"]*)?"'
        )
        for module, public in qwkit_docs.public_names().items():
            for name in public:
                page = site / "api" / "generated" / f"{module}.{name}.html"
                found = link.search(page.read_text(encoding="utf-8"))
                assert found and found.group(1) in guide, f"{module}.{name}: no user-guide link"

        def target(name):
            text = (site / "api" / "generated" / f"{name}.html").read_text(encoding="utf-8")
            return link.search(text).group(1) + (link.search(text).group(2) or "")

        assert target("qwkit.kappa_score") == "kappa"  # the page's own subject: the page
        assert (
            target("qwkit.alt_test") == "evaluation#the-alternative-annotator-test-for-llm-judges"
        )
        assert target("qwkit.QwkitError") == "kappa#errors-a-program-can-act-on"
        assert target("qwkit.ICCResult") == target("qwkit.icc")  # a result: its function's
        assert target("qwkit.dask.kappa_score").startswith("dask")

    def test_the_landing_page_answers_which_statistic(self, site):
        index = (site / "index.html").read_text(encoding="utf-8")
        assert "Which statistic for my question?" in index
        for question in (
            "two raters",
            "many raters",
            "machine scorer",
            "LLM judge",
            "train a model",
            "data do not fit in memory",
        ):
            assert question in index, question
        for page in ("kappa", "inference", "agreement", "evaluation", "thresholds", "dask"):
            assert f'href="{page}.html"' in index, page
        assert 'href="evaluation.html#the-alternative-annotator-test-for-llm-judges"' in index
        assert index.count('class="highlight-python') >= 6  # an example for each question

    def test_no_page_holds_the_build_machines_paths(self, site):
        """Warnings, tracebacks, ``__file__`` and data paths that examples print would show
        where the site was built; no file of the site may."""
        paths = {ROOT, site.parent, Path(sys.prefix), Path(sys.base_prefix), Path.home()}
        needles = {os.fsencode(str(p.resolve())) + os.sep.encode() for p in paths}
        found = []
        for path in sorted(p for p in site.rglob("*") if p.is_file()):
            data = path.read_bytes()
            found += [f"{path.relative_to(site)}: {n.decode()}" for n in needles if n in data]
        assert not found, "\n".join(found[:20])

    def test_every_example_ran_and_drew_its_figures(self, site):
        examples = sorted((ROOT / "examples").glob("plot_*.py"))
        assert len(examples) >= 8
        for example in examples:
            page = (site / "auto_examples" / f"{example.stem}.html").read_text(encoding="utf-8")
            assert "sphx-glr-script-out" in page, f"{example.name} printed nothing"
            if "plt." in example.read_text(encoding="utf-8"):
                figure = f"_images/sphx_glr_{example.stem}_001.png"
                assert figure in page and (site / figure).stat().st_size > 5000, example.name


@pytest.mark.parametrize(
    ("page", "heading", "words", "n_images"),
    [
        (
            "index.html",
            "qwkit",
            [
                "Quadratic weighted kappa",
                "Which statistic for my question?",
                "0.882353",
                "Getting started",
            ],
            0,
        ),
        ("getting-started.html", "Getting started", ["0.318182", "pip install"], 0),
        (
            "api/generated/qwkit.kappa_score.html",
            "qwkit.kappa_score",
            ["Parameters", "Examples", "labels"],
            0,
        ),
        ("auto_examples/plot_08_polars.html", "Per group with Polars", ["GPT", "ci_low"], 1),
        ("auto_examples/index.html", "Gallery", ["Infer", "Dask"], 8),
    ],
)
def test_pages_in_chromium(site, tmp_path, page, heading, words, n_images):
    seen = page_check(tmp_path, site / page)
    assert seen["h1"].strip().rstrip("#¶ ").strip() == heading
    assert seen["stylesheets"] >= 2, "the theme's styles did not load"
    for word in words:
        assert word in seen["text"], word
    decoded = [i for i in seen["images"] if i["complete"] and i["width"] > 0]
    assert len(decoded) == len(seen["images"]) >= n_images, seen["images"]


def test_a_page_is_drawn(site, tmp_path):
    shot = tmp_path / "kappa_test.png"
    page = site / "api" / "generated" / "qwkit.kappa_test.html"
    result = browser(tmp_path, "--window-size=1100,1400", f"--screenshot={shot}", page.as_uri())
    assert shot.exists(), result.stderr[-2000:]
    from PIL import Image

    picture = Image.open(shot).convert("RGB")
    colours = picture.resize((275, 350)).getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 50  # text, links and code, not a blank page
