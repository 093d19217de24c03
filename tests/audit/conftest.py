"""The fixtures of tests/audit/test_witness*.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.witnesses import Log, signed_log


@pytest.fixture
def log(tmp_path: Path) -> Log:
    """A signed re-check trail, its operator's key and a witness's (tests/support/
    witnesses.py)."""
    return signed_log(tmp_path)
