"""Sphinx configuration of qwkit's documentation site (``make docs``).

The stack is scikit-learn's and pingouin's: Sphinx, pydata-sphinx-theme, numpydoc for the
docstrings, sphinx-gallery for examples executed at build time, and MyST for the Markdown
pages of the user guide (the same files that a clone shows and that pytest doctests).
``docs/_ext/qwkit_docs.py`` writes the API reference from the public names and links the
equation numbers that docstrings cite to the pages that derive them.

Build with warnings as errors, every reference checked::

    python -m sphinx -W --keep-going -n -b html docs docs/_build/html
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib

import qwkit

matplotlib.use("Agg")  # the gallery draws its figures without a display


def _warning_line(message, category, filename, lineno, line=None) -> str:
    """A warning as the gallery prints it: its class and message. Python's own form starts
    with the path of the example on the machine that built the site, which is no reader's
    business (tests/test_docs_site.py checks that no page holds the build's paths)."""
    return f"{category.__name__}: {message}\n"


warnings.formatwarning = _warning_line

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "qwkit"
author = "the qwkit developers"
copyright = "2026, the qwkit developers"
release = version = qwkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "qwkit_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_scripts", "_ext", "_templates", "**/*.ipynb", "Thumbs.db"]
templates_path = ["_templates"]

# --- references: every one must resolve (-n), and the build fails on a warning (-W) ---
nitpicky = True
# Other projects' objects that docstrings name: without the network there is no inventory
# of theirs to link to (intersphinx), so they stay text
nitpick_ignore = [
    ("py:class", "torch.nn.BatchNorm1d"),
    ("py:mod", "torch.distributed"),
]

# --- autodoc / autosummary / numpydoc ---
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters section says the types in words
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True

# --- MyST: the user guide's Markdown pages ---
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# --- the gallery: every example runs at build time, on the bundled data ---
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "plot_gallery": "True",
    "within_subsection_order": "FileNameSortKey",
    "show_signature": False,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "min_reported_time": 1,
    "write_computation_times": False,
    # every build runs every example again: an unchanged example must still run on the
    # current qwkit
    "run_stale_examples": True,
}

# --- HTML: pydata-sphinx-theme, no resources from the network ---
html_theme = "pydata_sphinx_theme"
html_title = f"qwkit {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "header_links_before_dropdown": 3,
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
    "secondary_sidebar_items": ["page-toc"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_context = {"default_mode": "light"}
