"""A trail's snapshots (``<trail>.d/<sha256>``) are written under a temporary name and
renamed into place whole; that name is made new, so that nothing already at it is
followed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from scrapy_rep.audit.file import TrailFile


@pytest.mark.trail_not_verified("a snapshot stored without a run")
def test_a_symlink_planted_at_a_snapshots_temporary_name_is_never_followed(
    tmp_path: Path,
) -> None:
    """The snapshot was written to ``.<sha256>.tmp`` as any file is opened: a symlink
    already there had the body written into its target, a file outside the trail's."""
    body = b"User-agent: *\nDisallow: /private\n"
    sha256 = hashlib.sha256(body).hexdigest()
    trail = TrailFile(tmp_path / "trail.jsonl")
    try:
        trail.snapshots.mkdir(parents=True)
        outside = tmp_path / "outside.txt"
        outside.write_bytes(b"not the trail's\n")
        planted = trail.snapshots / f".{sha256}.tmp"
        planted.symlink_to(outside)
        trail.write_snapshot(sha256, body)
    finally:
        trail.close()
    assert outside.read_bytes() == b"not the trail's\n"
    assert (trail.snapshots / sha256).read_bytes() == body
    assert planted.is_symlink()
