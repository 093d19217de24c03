"""The datatrove step over a WARC of two crawls (rep_recheck/pipeline_step.py): its
``as_of`` and ``date_key`` decide as ``recheck --as-of`` and ``--date-column`` do, the
same documents kept and the same ``then`` (``rep_then``) for each one, kept or refused now
(docs/recheck.md, "Since when: older captures and --as-of")."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from rep_recheck.asof import DateError
from tests.support.recheck import (
    needs,
    recheck_tool,
    report_lines,
    robots_capture,
    step_tasks,
    write_warc,
)

JAN, JUN = "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"
#: Each origin's robots.txt in January's crawl and in June's (``None``: not captured).
CRAWLS = {
    "https://a.example": ("User-agent: *\nAllow: /\n", "User-agent: *\nDisallow: /\n"),
    "https://b.example": ("User-agent: *\nDisallow: /\n", "User-agent: *\nAllow: /\n"),
    "https://c.example": (None, "User-agent: *\nDisallow: /private\n"),
}
#: The items and their dates (``crawled``): between the crawls, before both, none, no
#: date, epoch milliseconds and seconds; an origin never captured.
DATED = [
    ("https://a.example/x", "2025-02-01"),
    ("https://a.example/y", "2024-06-01T00:00:00Z"),
    ("https://a.example/z", None),
    ("https://a.example/w", "not a date"),
    ("https://a.example/v", 1751328000000),  # 2025-07-01, in milliseconds
    ("https://b.example/x", "2025-02-01"),
    ("https://c.example/private/1", "2025-02-01"),
    ("https://c.example/private/2", 1751328000),  # 2025-07-01, in seconds
    ("https://c.example/open", "2025-07-01"),
    ("https://d.example/x", "2025-07-01"),
]


def _two_crawls_warc(tmp_path: Path) -> Path:
    """One WARC holding January's crawl and June's."""
    parts = []
    for number, date in enumerate((JAN, JUN)):
        part = tmp_path / f"{number}.warc"
        captures = [robots_capture(origin, texts[number])
                    for origin, texts in CRAWLS.items() if texts[number] is not None]  # fmt: skip
        write_warc(part, captures, date=date)
        parts.append(part.read_bytes())
    warc = tmp_path / "crawls.warc"
    warc.write_bytes(b"".join(parts))
    return warc


def _metadata() -> list[dict[str, Any]]:
    return [{"url": url} | ({"crawled": date} if date is not None else {}) for url, date in DATED]


def _by_command(tmp_path: Path, warc: Path, *argv: str) -> dict[str, tuple[str, str | None]]:
    """Each item's status and ``then`` as ``recheck --report`` says them."""
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    dataset.write_text("".join(json.dumps(said) + "\n" for said in _metadata()))
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                 "--date-column", "crawled", "--report", str(report), *argv)  # fmt: skip
    return {line["url"]: (line["status"], line.get("then")) for line in report_lines(report)}


def _by_step(warc: Path, tasks: int, **given: Any) -> dict[str, tuple[str, str | None]]:
    """Each document's status and ``then`` as the step says them (its exclusion writer's
    ``rep_status`` and ``rep_then``), in ``tasks`` tasks."""
    from scrapy_rep import RepRecheckFilter

    removed: list[Any] = []

    class Collected:  # an exclusion writer: what it is given
        def __enter__(self) -> Collected:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def write(self, document: Any, rank: int = 0) -> None:
            removed.append(document)

    step = RepRecheckFilter(str(warc), "search", {"USER_AGENT": "mybot/1.0"},
                            exclusion_writer=Collected(), date_key="crawled", **given)  # fmt: skip
    kept = step_tasks(step, _metadata(), tasks)
    said = {d.metadata["url"]: ("kept", d.metadata.get("rep_then")) for d in kept}
    said |= {d.metadata["url"]: (d.metadata["rep_status"], d.metadata.get("rep_then"))
             for d in removed}  # fmt: skip
    return said


@pytest.mark.parametrize("as_of", [None, "2025-03-01", "2026-01-01", "2024-01-01T12:00:00Z"])
def test_the_step_keeps_and_says_then_as_the_command_does(tmp_path: Path, as_of: str) -> None:
    needs("datatrove")
    warc = _two_crawls_warc(tmp_path)
    given = ("--as-of", as_of) if as_of else ()
    by_command = _by_command(tmp_path, warc, *given)
    assert len(by_command) == len(DATED)
    assert _by_step(warc, 3, as_of=as_of) == by_command
    if as_of is None:  # what the command says, for the record
        assert by_command["https://a.example/x"] == ("refused", "kept")
        assert by_command["https://a.example/y"] == (
            "refused", "no capture before 2024-06-01T00:00:00Z"
        )  # fmt: skip
        assert by_command["https://a.example/z"] == ("refused", "unknown")
        assert by_command["https://a.example/v"] == ("refused", "refused")
        assert by_command["https://b.example/x"] == ("kept", "refused")  # kept now, not then
        assert by_command["https://c.example/private/2"] == ("refused", "refused")
    if as_of == "2025-03-01":  # January's crawl now: c.example not captured yet
        assert by_command["https://b.example/x"] == ("refused", "refused")
        assert by_command["https://a.example/x"] == ("kept", "kept")
        assert by_command["https://c.example/open"] == (
            "unknown", "no capture before 2025-03-01T00:00:00Z (--as-of)"
        )  # fmt: skip


def test_the_step_warns_of_the_documents_whose_date_cannot_be_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    needs("datatrove")
    with caplog.at_level(logging.WARNING, logger="rep_recheck"):
        _by_step(_two_crawls_warc(tmp_path), 1)
    warned = [record.getMessage() for record in caplog.records]
    assert ("scrapy_rep recheck: 2 document(s) with no date to read in "
            "metadata['crawled']: their rep_then is unknown") in warned, warned  # fmt: skip


def test_an_as_of_that_is_no_date_stops_the_step_as_it_is_made(tmp_path: Path) -> None:
    needs("datatrove")
    from scrapy_rep import RepRecheckFilter

    wrong = r"^as_of takes an ISO date or date and time .*'2025-13-01'"
    with pytest.raises(DateError, match=wrong):
        RepRecheckFilter(str(_two_crawls_warc(tmp_path)), "search", as_of="2025-13-01")
