"""The test suite: one package per floor of the four parts (tests/robotstxt/ tests
rep-engine/rep_engine/robotstxt/), tests/integration/ for real crawls and subprocesses,
tests/project/ for the docs, packaging and layering, and tests/support/ for the helpers
they share.

Packages (an ``__init__.py`` in every folder) let two folders hold test modules of the same
name (tests/robotstxt/test_robotstxt_robustness.py beside
tests/integration/test_robotstxt_robustness.py) under pytest's default import mode: each
module is imported under its dotted name from the checkout (``tests.robotstxt.…``), which
pytest puts first on ``sys.path``, as are the helpers (``tests.support.robotsite``)."""
