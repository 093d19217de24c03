"""The trail's robots.txt snapshots read as the crawl read them
(:meth:`rep_audit.documents.Documents.robots`): a cut one as cut (docs/decisions.md,
'A cut robots.txt reads no part of a line that could allow'), each with its run's profile,
even when two runs of one trail share one snapshot (the parsed copy is kept per way of
reading it). Hand-written trails: an honest one verifies clean, a record that says what
the snapshot read another way would say is found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rep_audit.verify import verify
from tests.support.trailfactory import (
    RUN,
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

#: Its last line unended: read whole, ``Allow: /pu`` allows /purchase (longer than
#: ``Disallow: /p``); read as cut, that line could allow, so it is not read.
CUT_BODY = b"User-agent: *\nDisallow: /p\nAllow: /pu"
CUT = "200 (524288 bytes, cut at 500 KiB)"
#: First match (legacy) allows /private/x by line 2; longest match (google) refuses it
#: by line 3.
ORDER_BODY = b"User-agent: *\nAllow: /p\nDisallow: /private\n"
OTHER_RUN = "fedcba9876543210fedcba9876543210"


def _refused_by(path: str, line: int, rule: str, body: bytes, run: str = RUN) -> dict[str, Any]:
    return url_line(path, fate="refused", status=None, refused_by="robots.txt",
                    why="Forbidden by robots.txt", robots=robots_part(line, rule, body),
                    run=run)  # fmt: skip


def _allowed_by(path: str, line: int, rule: str, body: bytes, run: str = RUN) -> dict[str, Any]:
    return url_line(path, robots=robots_part(line, rule, body), run=run)


def _cut_trail(path: Path, purchase: dict[str, Any]) -> Path:
    body = [snapshot_line(CUT_BODY, detail=CUT, bytes=524288), purchase]
    return write_trail(path, [run_line(), *body, end_line(body)], bodies=(CUT_BODY,))


def test_a_cut_snapshot_is_read_as_cut_an_honest_refusal_verifies(tmp_path: Path) -> None:
    honest = _refused_by("/purchase", 2, "Disallow: /p", CUT_BODY)
    result = verify(_cut_trail(tmp_path / "trail.jsonl", honest))
    assert result.clean, [str(f) for f in result.findings]


def test_a_page_said_allowed_by_the_unended_line_of_a_cut_snapshot_is_found(
    tmp_path: Path,
) -> None:
    """The forger's record says what the snapshot read whole would say: found."""
    forged = _allowed_by("/purchase", 3, "Allow: /pu", CUT_BODY)
    found = [str(f) for f in verify(_cut_trail(tmp_path / "trail.jsonl", forged)).findings]
    assert any("/purchase" in f for f in found), found


def _two_profiles(path: Path, legacy: dict[str, Any], google: dict[str, Any]) -> Path:
    """Two runs of one trail, one snapshot: the first read with the legacy profile, the
    second with google's."""
    first = [snapshot_line(ORDER_BODY), legacy]
    second = [snapshot_line(ORDER_BODY, run=OTHER_RUN), google]
    records = [
        run_line(profile="legacy", settings={"REP_PROFILE": "legacy"}), *first,
        end_line(first),
        run_line(run=OTHER_RUN, time="2026-11-23T15:00:00.000Z"), *second,
        end_line(second, run=OTHER_RUN, time="2026-11-23T15:00:09.000Z"),
    ]  # fmt: skip
    return write_trail(path, records, bodies=(ORDER_BODY,))


def test_two_runs_sharing_a_snapshot_are_each_read_with_their_own_profile(
    tmp_path: Path,
) -> None:
    legacy = _allowed_by("/private/x", 2, "Allow: /p", ORDER_BODY)
    google = _refused_by("/private/x", 3, "Disallow: /private", ORDER_BODY, run=OTHER_RUN)
    google["id"] = "b" * 40
    result = verify(_two_profiles(tmp_path / "trail.jsonl", legacy, google))
    assert result.clean, [str(f) for f in result.findings]


def test_a_verdict_of_the_other_runs_profile_is_found(tmp_path: Path) -> None:
    """Each run's record written as the other run's profile reads the snapshot: both found
    (the parsed copy of the first run's profile does not answer for the second)."""
    legacy = _refused_by("/private/x", 3, "Disallow: /private", ORDER_BODY)
    google = _allowed_by("/private/x", 2, "Allow: /p", ORDER_BODY, run=OTHER_RUN)
    google["id"] = "b" * 40
    found = [
        str(f) for f in verify(_two_profiles(tmp_path / "trail.jsonl", legacy, google)).findings
    ]
    assert sum("/private/x" in f for f in found) >= 2, found
