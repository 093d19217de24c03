"""``audit show TRAIL URL`` finds a URL written otherwise than it is stored, as the
records' ids read it (canonicalised: scheme and host case, a ``#fragment``, the query's
order, percent-encoding), and suggests a stored URL that differs by a final ``/`` or
letter case in its path, which is another URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)


@pytest.fixture
def stored_trail(tmp_path: Path) -> Path:
    body = [snapshot_line(),
            url_line("/docs/page?b=2&a=1", robots=robots_part(None)),
            url_line("/dir/", robots=robots_part(None)),
            url_line("/caf%C3%A9", robots=robots_part(None))]  # fmt: skip
    return write_trail(tmp_path / "trail.jsonl", [run_line(), *body, end_line(body)])


@pytest.mark.parametrize(
    ("asked", "stored"),
    [
        ("HTTP://SITE.test/docs/page?b=2&a=1", "/docs/page?b=2&a=1"),
        ("http://site.test/docs/page?b=2&a=1#part-2", "/docs/page?b=2&a=1"),
        ("http://site.test/docs/page?a=1&b=2", "/docs/page?b=2&a=1"),
        ("http://site.test/café", "/caf%C3%A9"),
    ],
)
def test_a_url_written_otherwise_finds_its_record(
    stored_trail: Path, asked: str, stored: str
) -> None:
    status, out = audit_tool("show", str(stored_trail), asked)
    assert status == 0, out
    assert f"http://site.test{stored} was fetched" in out


def test_a_final_slash_is_another_url_and_is_suggested(stored_trail: Path) -> None:
    status, out = audit_tool("show", str(stored_trail), "http://site.test/dir")
    assert status == 1, out
    lines = out.splitlines()
    assert lines[0] == (
        f"no record of http://site.test/dir in {stored_trail}: the crawl neither sent nor "
        "refused a request for it"
    )
    assert lines[1] == (
        f"did you mean http://site.test/dir/? it has a record "
        f"(`audit show {stored_trail} http://site.test/dir/`)"
    )
    status, out = audit_tool("show", str(stored_trail), "http://site.test/DOCS/page?b=2&a=1")
    assert status == 1 and "did you mean http://site.test/docs/page?b=2&a=1? it has" in out
    status, out = audit_tool("show", str(stored_trail), "http://site.test/elsewhere")
    assert status == 1 and "did you mean" not in out
