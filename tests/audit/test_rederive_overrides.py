"""A decision re-derived from the trail names the override that let it through
(rep-audit/rep_audit/rederive.py; ``REP_OVERRIDES``, docs/settings.md; its reading:
tests/settings/test_readers_overrides.py): ``audit verify`` reports a record that claims
an override its run's ``REP_OVERRIDES`` lacks, and a request an override let through that
does not say so."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from rep_audit.rederive import Rederiver
from rep_audit.runcontext import RunContext
from rep_engine.records import FateRecord

#: Who authorized the override, as its entry says.
PERMISSION = "written permission of the site owner, 2026-11-01"


def test_verify_reports_an_override_the_run_does_not_cover_and_one_left_unsaid(
    tmp_path: Path,
) -> None:
    """A record that claims an override its run's REP_OVERRIDES lacks is a forgery; a
    request the run's override let through must say so."""
    from rep_engine.trail.read import SnapshotStore

    body = b"User-agent: *\nDisallow: /private\n"
    digest = hashlib.sha256(body).hexdigest()
    (tmp_path / digest).write_bytes(body)
    rederiver = Rederiver(SnapshotStore(tmp_path))
    url = "https://e.com/private"
    robots = {"snapshot": digest, "agent": "testbot", "line": 2}  # as the writer puts it
    forged = {**robots, "overridden": "a forged reason (until 2099-01-01)"}
    differences = rederiver.differences(
        FateRecord.of({"url": url, "fate": "fetched", "robots": forged}),
        RunContext(agents=("testbot",)),
    )
    assert any("no override of the run's REP_OVERRIDES covers it" in d for d in differences)
    covered = RunContext(
        agents=("testbot",),
        overrides=_overrides([["e.com", PERMISSION, "2099-01-01T00:00:00+00:00"]]),
    )
    unsaid = rederiver.differences(
        FateRecord.of({"url": url, "fate": "fetched", "robots": robots}), covered
    )
    assert any("does not say it was overridden" in d for d in unsaid)


def _overrides(value: Any) -> Any:
    from rep_audit.runcontext import run_overrides as read_them

    return read_them(value)
