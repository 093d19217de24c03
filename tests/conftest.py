"""Shared test helpers."""

from __future__ import annotations

from collections.abc import Iterator
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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "trail_not_verified(why): a trail this test writes is not verified when it is closed "
        "(it is not a whole crawl's trail on purpose)",
    )


@pytest.fixture(autouse=True)
def _every_trail_verified(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every audit trail a test's crawl writes in this process is verified
    (``python -m scrapy_rep audit verify``) each time its writer closes it, at the end of
    each run: a trail defect shows in any test that crawls with ``REP_AUDIT_FILE``. A trail
    left unclosed (a write error, the file given up on) is not whole on purpose."""
    if request.node.get_closest_marker("trail_not_verified") is not None:
        yield
        return
    from scrapy_rep.trail.check import verify
    from scrapy_rep.trail.file import TrailFile
    from scrapy_rep.trail.read import TrailError

    findings: list[str] = []
    close = TrailFile.close

    def close_and_verify(self: TrailFile) -> None:
        close(self)
        if not self.path.is_file():  # /dev/null, /dev/full
            return
        try:
            result = verify(self.path)
        except TrailError as error:
            findings.append(f"{self.path}: {error}")
            return
        findings.extend(f"{self.path}: {finding}" for finding in result.findings)

    monkeypatch.setattr(TrailFile, "close", close_and_verify)
    yield
    if findings:
        pytest.fail("audit trail not clean:\n" + "\n".join(findings[:20]), pytrace=False)
