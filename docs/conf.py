"""Sphinx configuration: the scrapy_rep documentation site (``docs/``).

Build: ``.venv/bin/pip install -e ".[docs]"`` then
``.venv/bin/sphinx-build -W -b html docs docs/_build/html``.
The pages are Markdown (MyST); ``_ext/rep_tables.py`` writes the settings table and the
purpose mapping table from the code into the pages and checks them at build time, so
they cannot drift from it.
"""

from __future__ import annotations

import sys
from importlib.metadata import version as _version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "scrapy_rep"
author = "the scrapy_rep authors"
copyright = "the scrapy_rep authors, BSD-3-Clause"
release = _version("scrapy_rep")
version = release

extensions = ["myst_parser", "rep_tables"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
# GitHub-style anchors for headings, so "page.md#a-heading" links work here and on GitHub;
# a link to a missing page or anchor is a warning (an error under -W).
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
# The Read the Docs theme, as Scrapy's own documentation uses (the docs extra installs it).
html_theme = "sphinx_rtd_theme"
html_title = f"scrapy_rep {release}"
html_theme_options = {"navigation_depth": 3}
nitpicky = True
