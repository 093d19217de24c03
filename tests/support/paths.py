"""The checkout's folders, for the tests that read its files or start its scripts."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest's own dependency on Python 3.10
    import tomli as tomllib

#: The checkout (or the unpacked sdist): the folder that holds ``tests/``.
ROOT = Path(__file__).resolve().parents[2]
#: The Scrapy add-on's package (the distribution at the root).
PACKAGE = ROOT / "scrapy_rep"
#: The four parts (ARCHITECTURE.md, "Four parts"), bottom up: each distribution's folder
#: by its import package.
PARTS = {
    "rep_engine": ROOT / "rep-engine",
    "rep_audit": ROOT / "rep-audit",
    "rep_recheck": ROOT / "rep-recheck",
    "scrapy_rep": ROOT,
}
#: Each part's import package folder, bottom up.
PACKAGES = tuple(folder / name for name, folder in PARTS.items())
ENGINE = PACKAGES[0]
DOCS = ROOT / "docs"
EXAMPLE_PROJECT = ROOT / "example_project"
BENCHMARKS = ROOT / "benchmarks"
#: The helper modules; ``worker.py`` is started as a script from here, with ``ROOT`` on
#: its ``PYTHONPATH`` so that it imports ``tests.support.*`` as the suite does.
SUPPORT = ROOT / "tests" / "support"


def checkout_environment() -> dict[str, str]:
    """This process's environment with ``ROOT`` and each part's folder as ``PYTHONPATH``:
    a child process imports this checkout's four parts (not those the virtualenv may have
    installed) and the suite's helpers as ``tests.support.*``."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(str(path) for path in PARTS.values())}


def project(package: str = "scrapy_rep") -> dict[str, Any]:
    """The ``[project]`` table of a part's ``pyproject.toml`` (by its import package)."""
    text = (PARTS[package] / "pyproject.toml").read_text(encoding="utf-8")
    table: dict[str, Any] = tomllib.loads(text)["project"]
    return table
