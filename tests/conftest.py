"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

#: ``../shared`` beside the checkout (SPEC corpus); absent for release installs.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS} (it lives in ../shared beside the checkout)")
    return CORPUS
