"""Shared test helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

#: ``../shared`` beside the checkout (SPEC corpus); absent for release installs.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
#: The robots.txt corpus: ``REP_CORPUS`` when set, else ``../shared/corpus``.
CORPUS = Path(os.environ.get("REP_CORPUS") or SHARED / "corpus")

# Hypothesis keeps no example database: it would be a .hypothesis/ folder written into the
# checkout by every worker. A failure prints the example and a @reproduce_failure blob.
settings.register_profile("suite", database=None, print_blob=True)
settings.load_profile("suite")


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(
            f"needs the robots.txt corpus (2,210 real, junk and synthetic files, 37 MB; not "
            f"shipped): not found at {CORPUS}; to run these tests, set REP_CORPUS=/path/to/"
            f"corpus (or put it at ../shared/corpus beside the checkout)"
        )
    return CORPUS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``soak`` (the full-size runs) run only with ``REP_SOAK=1``."""
    if os.environ.get("REP_SOAK") == "1":
        return
    for item in items:
        marker = item.get_closest_marker("soak")
        if marker is not None:
            cost = marker.kwargs.get("cost", "minutes")
            item.add_marker(
                pytest.mark.skip(
                    reason=f"soak run ({cost}; its smaller run is in the suite): "
                    f"REP_SOAK=1 python -m pytest {item.nodeid} runs it"
                )
            )
