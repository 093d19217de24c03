"""A trail's snapshots (``<trail>.d/<sha256>``) are written under a temporary name and
renamed into place whole; that name is made new, so that nothing already at it is
followed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from rep_engine.trail.file import TrailFile


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


@pytest.mark.parametrize("chunk", [1, 3, 8, 65_536])
def test_the_one_backward_scan_finds_the_last_line_and_the_end_of_whole_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """``plain_end`` (shared by the writer's last line and ``audit repair``) against a plain
    reading, for every short trail of ``a``, ``b`` and newlines, the chunk any size: where
    the whole lines end, the last of them, and the writer's last line (a cut one as it
    is, ``None`` for an empty file)."""
    import itertools

    from rep_engine.trail import file as trailfile

    monkeypatch.setattr(trailfile, "_TAIL_CHUNK", chunk)
    path = tmp_path / "t.jsonl"
    for size in range(8):
        for letters in itertools.product(b"a\n", repeat=size):
            data = bytes(letters)
            path.write_bytes(data)
            end = data.rfind(b"\n") + 1
            whole = data[:end].splitlines(keepends=True)
            with path.open("rb") as opened:
                assert trailfile.plain_end(opened, len(data)) == (end, whole[-1] if whole else b"")
            last = data[end:] if end < len(data) else (whole[-1] if whole else None)
            assert trailfile._last_plain_line(path) == last, data
