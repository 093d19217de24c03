"""Headless Chromium (Debian's ``chromium``, which ``.ci/run`` installs) for the tests of the
HTML report: without it they skip, saying so, unless ``REP_REQUIRE_CHROMIUM=1`` (CI sets it
when the package is installed) makes that a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str:
    """Debian's chromium, or a skip saying why (a failure under ``REP_REQUIRE_CHROMIUM=1``,
    which CI sets once it has installed the package)."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        message = "chromium is not installed (Debian: apt-get install chromium)"
        if os.environ.get("REP_REQUIRE_CHROMIUM") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return binary


def browse(tmp_path: Path, url: str, *options: str) -> str:
    """Run headless Chromium on ``url`` with ``options``; its stdout."""
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    command = [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}", *options, url,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout
