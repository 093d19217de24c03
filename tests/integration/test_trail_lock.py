"""One writer per trail: a crawl holds an exclusive lock on its REP_AUDIT_FILE, and a
second crawl on the same file is refused at its start with one line and exit status 2
(two crawls appending to one file wrote two interleaved chains, read as tampering). The
other crawl, or writer, is an open file of this process: ``flock`` locks an open file,
whichever process holds it; the line alone on standard error and exit status 2 of
``scrapy runspider``: one process."""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from scrapy.utils.test import get_crawler

from rep_audit.verify import verify
from rep_engine.settings.readers import RepSettingError
from rep_engine.trail.file import TrailFile, TrailFileError
from tests.support.robotsite import BASE_SETTINGS, ListSpider, crawl, refused_at_start
from tests.support.trailfactory import write_trail


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
@pytest_twisted.ensureDeferred
async def test_a_second_crawl_on_a_trail_being_written_is_refused_at_start(
    tmp_path: Path, name: str
) -> None:
    """Another crawl's writer holds the trail's lock (on an open file of its own, as
    another process's writer would: ``flock`` locks an open file, not a process); the
    crawl, run in this process, stops at its start with the line ``scrapy`` prints (the
    exit status: the process of the next test)."""
    trail = tmp_path / name
    with trail.open("ab") as writer:  # the lock a crawl's TrailFile holds
        fcntl.flock(writer.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        line = await refused_at_start({"REP_AUDIT_FILE": str(trail)}, urls=())
    assert line == (
        f"scrapy_rep: error: REP_AUDIT_FILE: {trail} is being written by another crawl "
        "(it is locked): a trail has one writer at a time"
    )
    assert trail.read_bytes() == b""  # the refused crawl wrote nothing
    await crawl([], {"REP_AUDIT_FILE": str(trail)})  # the lock went with the first crawl
    assert verify(trail).clean


#: A crawl whose trail another crawl locks after this one's settings were checked and
#: before its trail opens (two crawls started 0.3 s apart): the lock is taken by an
#: extension built before the audit trail's, at that known point.
LOCKED_AFTER_THE_CHECK = """
import fcntl
import scrapy

class TakeTheLock:
    def __init__(self, path):
        self.file = open(path, "ab")
        fcntl.flock(self.file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings["REP_AUDIT_FILE"])

class S(scrapy.Spider):
    name = "s"
    custom_settings = {"ADDONS": {"scrapy_rep.Addon": 0}, "EXTENSIONS": {TakeTheLock: 0}}
    start_urls: list[str] = []
"""


def test_a_trail_locked_after_the_check_stops_the_crawl_with_the_same_line(
    tmp_path: Path,
) -> None:
    """Not an asyncio "Task exception was never retrieved" traceback and exit status 1:
    the line and the exit status of a trail found locked at the check."""
    trail = tmp_path / "trail.jsonl"
    (tmp_path / "spider.py").write_text(LOCKED_AFTER_THE_CHECK)
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "runspider", "spider.py", "-s", f"REP_AUDIT_FILE={trail}"],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert errors == [
        f"scrapy_rep: error: REP_AUDIT_FILE: {trail} is being written by another crawl "
        "(it is locked): a trail has one writer at a time"
    ]
    assert trail.read_bytes() == b""


def test_a_held_lock_refuses_a_crawl_and_a_second_writer(tmp_path: Path) -> None:
    trail = write_trail(tmp_path / "trail.jsonl")
    before = trail.read_bytes()
    with trail.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        with pytest.raises(RepSettingError, match="is being written by another crawl"):
            get_crawler(ListSpider, {**BASE_SETTINGS, "REP_AUDIT_FILE": str(trail)})
        with pytest.raises(TrailFileError, match="is being written by another crawl"):
            TrailFile(trail)
    writer = TrailFile(trail)  # the lock released: the file opens, and is locked now
    try:
        with pytest.raises(TrailFileError, match="is being written by another crawl"):
            TrailFile(trail)
    finally:
        writer.close()
    TrailFile(trail).close()
    assert trail.read_bytes() == before


def test_a_lock_held_for_a_moment_by_a_check_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another crawl's start-up check holds the lock for one ``flock`` call: a crawl
    that opens its trail at that moment waits for it instead of being refused (the
    check is released here at the first pause, deterministically)."""
    import rep_engine.trail.file as trail_file

    trail = write_trail(tmp_path / "trail.jsonl")
    checker = trail.open("rb")
    fcntl.flock(checker.fileno(), fcntl.LOCK_EX)
    pauses: list[float] = []

    def check_done(seconds: float) -> None:
        pauses.append(seconds)
        checker.close()

    monkeypatch.setattr(trail_file, "_pause", check_done)
    TrailFile(trail).close()
    assert pauses == [trail_file.LOCK_PAUSE]


def test_a_lock_held_by_a_writer_is_refused_after_the_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rep_engine.trail.file as trail_file

    trail = write_trail(tmp_path / "trail.jsonl")
    pauses: list[float] = []
    monkeypatch.setattr(trail_file, "_pause", pauses.append)
    with trail.open("rb") as writer:
        fcntl.flock(writer.fileno(), fcntl.LOCK_EX)
        with pytest.raises(TrailFileError, match="is being written by another crawl"):
            TrailFile(trail)
    assert len(pauses) == trail_file.LOCK_TRIES - 1


def test_verify_of_a_trail_a_crawl_is_writing_says_so_not_killed(tmp_path: Path) -> None:
    """The last run has no end line yet because a crawl (another process, holding the
    trail's lock) is writing it: said so; once the lock is gone, the same trail is a run
    that was killed."""
    from tests.support.tools import audit_tool
    from tests.support.trailfactory import robots_part, run_line, snapshot_line, url_line

    killed = run_line(run="e" * 32)
    body = [snapshot_line(run="e" * 32), url_line("/", run="e" * 32, robots=robots_part(None))]
    trail = write_trail(tmp_path / "trail.jsonl", [killed, *body, run_line(), url_line("/a")])
    with trail.open("ab") as writer:  # a crawl writing it: the lock its TrailFile holds
        fcntl.flock(writer.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        status, written = audit_tool("verify", str(trail))
    status_after, after = audit_tool("verify", str(trail))
    assert status == status_after == 1
    being = ("line 4: run 01234567 has no end line yet: a crawl is writing the trail now (it "
             "holds its lock); verify it again once that crawl has closed")  # fmt: skip
    gone = "line 4: run 01234567 has no end line: the crawl was killed, or the trail was cut"
    assert being in written and gone not in written, written
    assert gone in after and being not in after, after
    for out in (written, after):  # an earlier run without its end line was killed
        assert "line 1: run eeeeeeee has no end line: the crawl was killed" in out
