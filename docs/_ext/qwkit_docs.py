"""qwkit's Sphinx extension: the API reference from the public names, equation links.

* **The API reference** (``api/index.rst``, written when the build starts) has a page for
  every name in ``qwkit.__all__`` and in the ``__all__`` of every integration module, found
  by importing them — public names only, never the private modules that hold them, so a
  reorganization of the package's internals changes nothing here. ``SECTIONS`` groups
  ``qwkit``'s names by task; the build stops if a public name is in no section or a section
  names something that is not public.
* **Equation links.** The user guide's pages number their equations at the end of a line of
  a formula block (``κ = 1 − O / E   (1)``, ``(eq. 2')``, ``(R3)``) or in a bold lead-in
  (``**The intercept (R2).**``); each number becomes a link target. Docstrings cite them
  ("eq. 10", "eqs. 4–5", "(R3)", "eq. 2 of ``docs/inference.md``"): each citation becomes a
  link to the page that derives the object's formulas (``SECTIONS`` and ``INTEGRATIONS``
  say which), or to the page the citation names. A citation of another work's numbering
  ("Steele 2016, eq. 2", "their eq. 13", "eq. 1 of Vaughn & Justice") is left as text. A
  citation whose number the page does not define fails the build (an undefined label).
* **User-guide links.** Every API page opens with a link to the section of the user guide
  that uses the name: the first section (in the order of the site's contents, the page of
  the name's section first) whose code — inline or in a block — names it. A result class
  that no guide shows links where the name before it in ``SECTIONS`` does (its function);
  an integration's name, to its page. A name that no page links to fails the build.
"""

from __future__ import annotations

import functools
import importlib
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

import qwkit

LOGGER = logging.getLogger(__name__)

#: (title, the user-guide page that derives them or None, the public names of ``qwkit``)
SECTIONS: list[tuple[str, str | None, list[str]]] = [
    (
        "Measure: weighted kappa",
        "kappa",
        [
            "kappa_score",
            "kappa_from_confusion",
            "confusion_matrix",
            "weight_matrix",
            "soft_kappa_score",
            "KappaAccumulator",
            "SoftKappaAccumulator",
        ],
    ),
    (
        "Infer: tests, standard errors and intervals",
        "inference",
        [
            "kappa_test",
            "kappa_test_from_confusion",
            "KappaTestResult",
            "ConfidenceInterval",
            "compare_kappa_test",
            "KappaComparisonResult",
            "pairwise_compare_kappa_test",
            "PairwiseComparisonResult",
            "mean_kappa",
        ],
    ),
    (
        "Agree: more than two raters",
        "agreement",
        [
            "agreement_score",
            "agreement_test",
            "agreement_from_counts",
            "agreement_test_from_counts",
            "AgreementTestResult",
            "BenchmarkResult",
            "ratings_from_long",
            "RatingsTable",
            "category_agreement",
            "category_kappas",
            "CategoryAgreementResult",
            "marginal_homogeneity_test",
            "MarginalHomogeneityResult",
            "kendall_w",
            "KendallWResult",
            "icc",
            "ICCResult",
            "concordance_correlation",
            "ConcordanceResult",
            "rater_agreement",
            "RaterAgreementResult",
            "PairwiseKappas",
        ],
    ),
    (
        "Maximize: the kappa-optimal linear model",
        "regression",
        ["kappa_regression", "KappaRegressionResult", "kappa_rescale", "KappaRescaleResult"],
    ),
    (
        "Maximize: cut points and decisions",
        "thresholds",
        [
            "optimize_thresholds",
            "ThresholdResult",
            "apply_thresholds",
            "ThresholdAccumulator",
            "DinkelbachCertificate",
            "kappa_decision",
            "bayes_decision",
        ],
    ),
    (
        "Maximize: the kappa of fitted cut points on new data",
        "optimism",
        ["optimism_corrected_kappa", "OptimismResult"],
    ),
    ("Train: gradients of kappa", "training", ["kappa_gradient_hessian"]),
    (
        "Evaluate: may a scorer replace a human rater",
        "evaluation",
        [
            "evaluate_scorer",
            "EvaluationResult",
            "ModelEvaluation",
            "GroupEvaluation",
            "HumanAgreement",
            "Criterion",
            "Estimate",
            "Descriptives",
            "DegradationEstimate",
            "Comparison",
            "Diagnostic",
            "ScoreDistribution",
            "FairnessResult",
            "RegressionFit",
            "evaluate_traits",
            "TraitEvaluationResult",
            "degradation_test",
            "DegradationTestResult",
            "prmse",
            "PRMSEResult",
            "standardized_mean_difference",
            "SMDResult",
            "alt_test",
            "AltTestResult",
            "degradation_sample_size",
            "SampleSizeResult",
            "alt_test_sample_size",
            "AltTestSampleSizeResult",
        ],
    ),
    (
        "Calibrate: the LLM judge on the human scale",
        "calibration",
        [
            "calibrate_judge",
            "JudgeCalibration",
            "human_scale_estimate",
            "HumanScaleEstimate",
            "ScaleEstimate",
            "ScaleComparison",
        ],
    ),
    (
        "Evaluate: is an LLM judge reliable",
        "judge",
        [
            "judge_reliability",
            "JudgeReliabilityResult",
            "JudgeConsistency",
            "HumanReliability",
            "JudgePanel",
            "ReliabilityEstimate",
            "RunsNeeded",
            "KappaWithHumans",
            "PromptComparison",
            "position_bias_test",
            "PositionBiasResult",
            "PositionBias",
            "position_bias_sample_size",
        ],
    ),
    (
        "Weigh against cost",
        "economics",
        [
            "expected_cost",
            "cost_matrix",
            "insurance_loss_matrix",
            "risk_class_model",
            "RiskClassModel",
        ],
    ),
    (
        "Data",
        None,
        [
            "load_wine_quality",
            "WineQuality",
            "load_hanna",
            "Hanna",
            "load_hanna_judges",
            "HannaJudges",
        ],
    ),
    (
        "Errors and warnings",
        None,
        [
            "QwkitError",
            "QwkitTypeError",
            "UndefinedKappaWarning",
            "DegenerateIntervalWarning",
            "ScaleWarning",
            "DesignWarning",
            "ConvergenceWarning",
        ],
    ),
]

#: (module, what it connects to, the user-guide page that derives it)
INTEGRATIONS: list[tuple[str, str, str]] = [
    ("qwkit.sklearn", "scikit-learn estimators and scorers", "sklearn"),
    ("qwkit.lightgbm", "LightGBM objective and metric", "training"),
    ("qwkit.xgboost", "XGBoost objective and metric", "training"),
    ("qwkit.torch", "PyTorch losses and metrics", "torch"),
    ("qwkit.dask", "Dask: data larger than memory", "dask"),
    ("qwkit.polars", "Polars expressions", "polars"),
    ("qwkit.duckdb", "DuckDB: kappa where the data live", "engines"),
    ("qwkit.spark", "Spark: DataFrames and pyspark.ml", "engines"),
    ("qwkit.sql", "SQL of the sufficient state", "engines"),
    ("qwkit.economics", "the economics simulation", "economics"),
]

NOT_DOCUMENTED = {"__version__"}
#: The user-guide pages whose equation numbers are link targets.
GUIDE_PAGES = {page for _, page, _ in SECTIONS if page} | {p for _, _, p in INTEGRATIONS}


@functools.cache
def public_names() -> dict[str, list[str]]:
    """Module → its public names (``__all__``), for ``qwkit`` and every integration."""
    found = {"qwkit": sorted(set(qwkit.__all__) - NOT_DOCUMENTED)}
    for module, _, _ in INTEGRATIONS:
        found[module] = sorted(importlib.import_module(module).__all__)
    return found


def check_sections() -> None:
    """Every public name of ``qwkit`` in exactly one section, and nothing else."""
    listed = [name for _, _, names in SECTIONS for name in names]
    public = set(public_names()["qwkit"])
    problems = []
    if missing := sorted(public - set(listed)):
        problems.append(f"public names in no section of the API reference: {missing}")
    if extra := sorted(set(listed) - public):
        problems.append(f"names in the API reference that are not public: {extra}")
    if twice := sorted({n for n in listed if listed.count(n) > 1}):
        problems.append(f"names in two sections: {twice}")
    if problems:
        raise ExtensionError("docs/_ext/qwkit_docs.py SECTIONS: " + "; ".join(problems))


def _autosummary(names: list[str]) -> list[str]:
    return [".. autosummary::", "   :toctree: generated", ""] + [f"   {n}" for n in names] + [""]


def api_index() -> str:
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name: ``import qwkit`` gives the core (numpy, scipy and numba only);",
        "each integration is a module of its own that loads its extra when imported",
        "(``pip install 'qwkit[polars]'``, ...). Each section names the page of the user",
        "guide that derives its formulas; the equation numbers in the docstrings link there.",
        "",
        ".. currentmodule:: qwkit",
        "",
    ]
    for title, page, names in SECTIONS:
        lines += [title, "-" * len(title), ""]
        if page:
            lines += [f"Derivations: :doc:`/{page}`.", ""]
        lines += _autosummary(names)
    lines += ["Integrations", "=" * len("Integrations"), ""]
    names = public_names()
    for module, what, page in INTEGRATIONS:
        title = f"``{module}``: {what}"
        lines += [title, "-" * len(title), "", f".. currentmodule:: {module}", ""]
        lines += [f"User guide: :doc:`/{page}`.", ""]
        lines += _autosummary(names[module])
    return "\n".join(lines)


def write_api_index(app: Sphinx, config) -> None:
    """Before autosummary looks for its directives (it generates the pages of the names)."""
    check_sections()
    path = Path(app.srcdir) / "api" / "index.rst"
    path.parent.mkdir(exist_ok=True)
    text = api_index()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


# --- equations -------------------------------------------------------------------------

#: One equation label: 1, 7a, 2', R3, T9b, M, Q.
LABEL = r"(?:[A-Z]?\d+[a-z]?['’]?|[A-Z](?![A-Za-z(]))"
#: A label at the end of a line of a formula block: (1), (eq. 1'), (eqs. 8, 5, 9).
DEFINED_IN_FORMULA = re.compile(rf"\((?:eqs?\.\s*)?({LABEL}(?:,\s*{LABEL})*)\)\s*$")
#: A letter label in a bold lead-in: **The intercept (R2).**
DEFINED_IN_TEXT = re.compile(r"\(([A-Z]\d+[a-z]?)\)")
#: A label named in running text, where no formula line numbers it: (eq. E1).
NAMED_IN_TEXT = re.compile(rf"\(eqs?\.\s*({LABEL})[);]")
#: A citation in a docstring: "eq. 10", "eqs. 4–5", "eqs. 3, M", or a bare "(R3)".
CITED = re.compile(
    rf"\b(?P<word>eqs?\.)\s+(?P<labels>{LABEL}(?:\s*(?:,|–|-|and)\s*{LABEL})*)"
    r"|\((?P<bare>[A-Z]\d+[a-z]?)\)"
)
#: Before a citation: another work's numbering ("Steele 2016, eq. 2", "their eq. 13").
OTHER_WORK_BEFORE = re.compile(r"(\d{4}[a-z]?\)?,?\s*|\b(their|his|her|FCE's)\s+)$")
#: After a citation: "of Vaughn & Justice" (another work), or "of ``docs/x.md``" (a page).
OF = re.compile(r"^\s+of\s*$")
OF_OTHER = re.compile(r"^\s+of\s+\S")


def target(page: str, label: str) -> str:
    return f"eq-{page}-{label.lower().replace(chr(39), 'prime').replace('’', 'prime')}"


def _register(app: Sphinx, docname: str, node: nodes.Element, labels: list[str]) -> None:
    std = app.env.get_domain("std")
    page = docname.rsplit("/", 1)[-1]
    for label in labels:
        name = target(page, label)
        if name in std.anonlabels:
            continue  # the first place a page numbers an equation defines it
        node["ids"].append(name)
        std.anonlabels[name] = (docname, name)
        std.labels[name] = (docname, name, f"({label})")


def define_equations(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    if docname not in GUIDE_PAGES:
        return
    for node in doctree.findall(lambda n: isinstance(n, (nodes.literal_block, nodes.strong))):
        if isinstance(node, nodes.literal_block):
            for line in node.astext().splitlines():
                if found := DEFINED_IN_FORMULA.search(line):
                    labels = [x.strip() for x in found.group(1).split(",")]
                    _register(app, docname, node, labels)
        else:
            _register(app, docname, node, DEFINED_IN_TEXT.findall(node.astext()))
    # then the labels only named in running text: the paragraph that names one first
    for node in doctree.findall(nodes.paragraph):
        _register(app, docname, node, NAMED_IN_TEXT.findall(node.astext()))


def _page_of(signature: addnodes.desc_signature) -> str | None:
    module, fullname = signature.get("module"), signature.get("fullname", "")
    if module == "qwkit":
        top = fullname.split(".")[0]
        return next((page for _, page, names in SECTIONS if top in names), None)
    return next((page for name, _, page in INTEGRATIONS if name == module), None)


def _skipped(node: nodes.Node) -> bool:
    literal = (nodes.literal, nodes.literal_block, nodes.doctest_block, addnodes.desc_signature)
    while node is not None:
        if isinstance(node, literal) or isinstance(node, nodes.reference):
            return True
        node = node.parent
    return False


def _linked(text: str, page: str, docname: str) -> list[nodes.Node]:
    """``text`` with each label of ``page`` as a pending reference to its target."""
    out: list[nodes.Node] = []
    last = 0
    for part in re.finditer(LABEL, text):
        out.append(nodes.Text(text[last : part.start()]))
        label = part.group(0)
        ref = addnodes.pending_xref(
            "",
            nodes.inline(label, label),
            refdomain="std",
            reftype="ref",
            reftarget=target(page, label),
            refexplicit=True,
            refwarn=True,
            refdoc=docname,
        )
        out.append(ref)
        last = part.end()
    out.append(nodes.Text(text[last:]))
    return out


def link_citations(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    if not docname.startswith("api/generated/"):
        return
    for desc in doctree.findall(addnodes.desc):
        signature = next(iter(desc.findall(addnodes.desc_signature)), None)
        default = _page_of(signature) if signature is not None else None
        for content in desc.children:
            if not isinstance(content, addnodes.desc_content):
                continue
            for text in list(content.findall(nodes.Text)):
                if _skipped(text.parent) or not CITED.search(text.astext()):
                    continue
                _replace(text, default, docname)


def _replace(text: nodes.Text, default: str | None, docname: str) -> None:
    source = text.astext()
    following = text.parent.children[text.parent.index(text) + 1 :]
    named = None  # "eq. 2 of ``docs/inference.md``": the page is named after the text
    if following and isinstance(following[0], nodes.literal):
        if found := re.fullmatch(r"docs/(\w+)\.md", following[0].astext()):
            named = found.group(1)
    new: list[nodes.Node] = []
    last = 0
    for cite in CITED.finditer(source):
        before, after = source[: cite.start()], source[cite.end() :]
        page = named if named and OF.match(after) else default
        if OTHER_WORK_BEFORE.search(before) or (OF_OTHER.match(after) and not named):
            continue
        if page is None:
            LOGGER.warning(
                "%r cites %r, but its section names no page that derives it",
                docname,
                cite.group(0),
                location=text.parent,
            )
            continue
        new.append(nodes.Text(source[last : cite.start()]))
        if cite.group("bare"):
            new += [nodes.Text("("), *_linked(cite.group("bare"), page, docname), nodes.Text(")")]
        else:
            new.append(nodes.Text(cite.group("word") + " "))
            new += _linked(cite.group("labels"), page, docname)
        last = cite.end()
    if new:
        new.append(nodes.Text(source[last:]))
        text.parent.replace(text, new)


def escape_bars(app, what, name, obj, options, lines: list[str]) -> None:
    """Docstrings write absolute values as |x|, which reST would read as a substitution:
    every bar becomes a literal bar (outside doctests, whose text is shown as written)."""
    for i, line in enumerate(lines):
        if "|" in line and not line.lstrip().startswith((">>>", "...")):
            lines[i] = re.sub(r"(?<!\\)\|", r"\\|", line)


def skip_foreign_members(app, what, name, obj, skip, options):
    """A class's members are documented when qwkit defines them (its own or inherited
    from a qwkit base), never those of numpy, torch.nn.Module or scikit-learn's bases."""
    if what != "class" or skip:
        return None
    defined = getattr(obj, "fget", obj)
    module = getattr(defined, "__module__", None) or ""
    return None if module.split(".")[0] == "qwkit" else True


# --- user-guide links -------------------------------------------------------------------

#: The section of a name's page (``SECTIONS``) where the rules of :func:`guide_target`
#: would pick one that merely mentions it: name -> the section's id (the build fails when
#: the page has no such section).
# Names of a ``SECTIONS`` entry without a page of its own, linked to a section elsewhere
# (the errors are shown first in Getting started, but explained in the kappa guide).
GUIDE_ELSEWHERE = {
    "QwkitError": ("kappa", "errors-a-program-can-act-on"),
    "QwkitTypeError": ("kappa", "errors-a-program-can-act-on"),
}

GUIDE_SECTIONS = {
    "soft_kappa_score": "the-continuous-form",
    "KappaAccumulator": "streaming-and-merging",
    "agreement_test": "tests-and-intervals",
    "AgreementTestResult": "tests-and-intervals",
    "RatingsTable": "crowds-the-sparse-table-and-each-rater",
    "DinkelbachCertificate": "dinkelbach-s-method-t4",
    "EvaluationResult": "evaluate-scorer-the-criteria-as-tests",
    "ModelEvaluation": "evaluate-scorer-the-criteria-as-tests",
    "GroupEvaluation": "evaluate-scorer-the-criteria-as-tests",
    "HumanAgreement": "evaluate-scorer-the-criteria-as-tests",
    "Criterion": "evaluate-scorer-the-criteria-as-tests",
    "Estimate": "evaluate-scorer-the-criteria-as-tests",
}
#: Where each API page's "User guide" link leads: name -> (page, section id or None).
_GUIDE: dict[str, tuple[str, str | None]] = {}
CODE = (nodes.literal, nodes.literal_block, nodes.doctest_block)


def _guide_pages(app: Sphinx) -> list[str]:
    """The user-guide pages in the order of the site's contents."""
    pages = GUIDE_PAGES | {"getting-started"}
    return [doc for doc in app.env.toctree_includes.get("index", []) if doc in pages]


def _own(section: nodes.section) -> list[nodes.Node]:
    return [child for child in section.children if not isinstance(child, nodes.section)]


def _code_of(section: nodes.section) -> tuple[str, str]:
    """The code a section shows itself, not that of its subsections: (its blocks — the
    examples —, its inline code)."""
    blocks, inline = [], []
    for child in _own(section):
        for node in [child, *child.findall(lambda n: isinstance(n, CODE))]:
            if isinstance(node, nodes.literal):
                inline.append(node.astext())
            elif isinstance(node, CODE):
                blocks.append(node.astext())
    return "\n".join(blocks), "\n".join(inline)


def _sections(app: Sphinx, page: str) -> list[tuple[str | None, str, tuple[str, str]]]:
    """(id, or None for the page's opening; title; own code) of each section of a page."""
    out = []
    for depth, section in enumerate(app.env.get_doctree(page).findall(nodes.section)):
        title = section.next_node(nodes.title).astext()
        out.append((section["ids"][0] if depth else None, title, _code_of(section)))
    return out


def _named(name: str, flags: int = 0) -> re.Pattern:
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", flags)


def _titled(app: Sphinx, name: str, pages: list[str]) -> tuple[str, str | None] | None:
    """The first section whose title names ``name`` ("6. `evaluate_scorer`: ...", "4.
    PRMSE: ...")."""
    for page in pages:
        for anchor, title, _ in _sections(app, page):
            if anchor and _named(name, re.IGNORECASE * name.islower()).search(title):
                return page, anchor
    return None


def _most_used(app: Sphinx, name: str, pages: list[str]) -> tuple[str, str | None] | None:
    """In the first of ``pages`` whose code names ``name``: the section whose examples
    (code blocks) name it most often, else whose inline code does (the first of equals);
    the page's opening only when no other section names it."""
    for page in pages:
        ranked = []
        for order, (anchor, _, (blocks, inline)) in enumerate(_sections(app, page)):
            used = len(_named(name).findall(blocks)), len(_named(name).findall(inline))
            if any(used):
                ranked.append((anchor is None, -used[0], -used[1], order, anchor))
        if ranked:
            return page, min(ranked)[-1]
    return None


def guide_target(app: Sphinx, module: str, name: str) -> tuple[str, str | None]:
    """Where the API page of ``module.name`` links to in the user guide: the section that
    ``GUIDE_ELSEWHERE`` or ``GUIDE_SECTIONS`` names; else a section whose title names it
    (a function's name in any case: "4. PRMSE"); else, for the first name of a
    ``SECTIONS`` entry, its page; else the section of its page that names it most; else
    (a result class) where the name before it links; else the first other guide page
    that names it."""
    key = f"{module}.{name}"
    if key in _GUIDE:
        return _GUIDE[key]
    order = _guide_pages(app)
    if module == "qwkit":
        _, page, names = next(s for s in SECTIONS if name in s[2])
        own = [page] if page else []
        others = [p for p in order if p not in own]
        found = (page, GUIDE_SECTIONS[name]) if name in GUIDE_SECTIONS else None
        found = GUIDE_ELSEWHERE.get(name, found)
        if found and not any(found[1] == anchor for anchor, _, _ in _sections(app, found[0])):
            raise ExtensionError(f"GUIDE_SECTIONS: {found[0]} has no section {found[1]!r}")
        found = found or _titled(app, name, own + others)
        if found is None and page and names[0] == name:
            found = page, None
        found = found or _most_used(app, name, own)
        before = names[names.index(name) - 1] if names.index(name) else None
        if found is None and page and before:
            found = guide_target(app, module, before)
        found = found or _most_used(app, name, others)
        if found is None and before:
            found = guide_target(app, module, before)
        if found is None:
            raise ExtensionError(f"no user-guide page shows qwkit.{name}: show it in one")
    else:
        page = next(p for m, _, p in INTEGRATIONS if m == module)
        found = _titled(app, name, [page]) or _most_used(app, name, [page]) or (page, None)
    _GUIDE[key] = found
    return found


def link_guide(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Open an API page with a link to the user-guide section that uses its name."""
    if not docname.startswith("api/generated/"):
        return
    full = docname.rsplit("/", 1)[-1]
    module = max((m for m in public_names() if full.startswith(m + ".")), key=len)
    name = full[len(module) + 1 :]
    if name not in public_names()[module]:
        return  # a member's page, if any
    page, anchor = guide_target(app, module, name)
    uri = app.builder.get_relative_uri(docname, page) + (f"#{anchor}" if anchor else "")
    title = app.env.titles[page].astext()
    if anchor:
        section = next(
            s
            for s in app.env.get_doctree(page).findall(nodes.section)
            if s["ids"] and s["ids"][0] == anchor
        )
        title += " › " + section.next_node(nodes.title).astext()
    link = nodes.reference("", "", nodes.Text(title), internal=True, refuri=uri)
    paragraph = nodes.paragraph("", "", nodes.Text("User guide: "), link, classes=["qwkit-guide"])
    desc = next(iter(doctree.findall(addnodes.desc)), None)
    content = next(iter(desc.findall(addnodes.desc_content)), None) if desc else None
    if content is None:
        raise ExtensionError(f"{docname}: no object to link to the user guide")
    content.insert(min(1, len(content.children)), paragraph)  # after the summary line


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", link_guide)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("autodoc-process-docstring", escape_bars)
    app.connect("config-inited", write_api_index)
    app.connect("doctree-read", define_equations)
    app.connect("doctree-read", link_citations)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
