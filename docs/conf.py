"""Sphinx configuration of treefarm's documentation.

Build it with ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (after
``pip install -e ".[docs]"``). The build is offline: no intersphinx inventory is fetched and
the theme (Furo) ships its fonts, styles and scripts in its wheel; no math renderer is loaded,
so no page asks a CDN for MathJax.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(DOCS / "_ext"))

import treefarm  # noqa: E402  (after the path to the checkout's sources is set)

project = "treefarm"
author = "the treefarm authors"
copyright = "the treefarm authors, MIT licence"
release = treefarm.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_gallery.gen_gallery",
    "sphinxarg.ext",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "gallery_src", "images", "gallery/*.ipynb", "gallery/*.py", "Thumbs.db"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# The optional frameworks an integration subclasses, mocked so that the reference builds without them.
autodoc_mock_imports = ["ray", "keras", "hydra", "omegaconf"]
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False

sphinx_gallery_conf = {
    "examples_dirs": "gallery_src",
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "image_scrapers": ("matplotlib", "gallery_figures.treefarm_figures"),
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "line_numbers": False,
    "min_reported_time": 10**9,
    "write_computation_times": False,
}

html_theme = "furo"
html_title = f"treefarm {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class _EmptyGlobs(logging.Filter):
    """Let a glob toctree match nothing: the user guide and the design notes include every
    page of their folder, including none yet, and Sphinx cannot suppress that warning by type."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "didn't match any documents" not in str(record.msg)


def setup(app: object) -> None:
    logging.getLogger("sphinx.sphinx.directives.other").addFilter(_EmptyGlobs())
    # The gallery's studies run inside the build: their line per trial would bury its output.
    logging.getLogger("treefarm").setLevel(logging.WARNING)
