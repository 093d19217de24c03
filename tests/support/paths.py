"""The checkout's folders, for the tests that read its files or start its scripts."""

from __future__ import annotations

import os
from pathlib import Path

#: The checkout (or the unpacked sdist): the folder that holds ``tests/``.
ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "scrapy_rep"
DOCS = ROOT / "docs"
EXAMPLE_PROJECT = ROOT / "example_project"
BENCHMARKS = ROOT / "benchmarks"
#: The helper modules; ``worker.py`` is started as a script from here, with ``ROOT`` on
#: its ``PYTHONPATH`` so that it imports ``tests.support.*`` as the suite does.
SUPPORT = ROOT / "tests" / "support"


def checkout_environment() -> dict[str, str]:
    """This process's environment with ``ROOT`` as ``PYTHONPATH``: a child process imports
    this checkout's ``scrapy_rep`` (not one the virtualenv may have installed) and the
    suite's helpers as ``tests.support.*``."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}
