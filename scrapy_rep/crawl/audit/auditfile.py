"""The Scrapy side of the audit trail's file: opening it (or saying why not), writing
lines and snapshots, and what a write error means for the crawl (``REP_AUDIT_REQUIRED``);
the open records of a paused crawl, kept in ``JOBDIR`` for the resumed run."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
import zlib
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from rep_audit.treeheads import head_options
from rep_engine.records import STATE_VERSION, UrlEntry
from rep_engine.settings.readers import RepSettingError
from rep_engine.trail import lines
from rep_engine.trail.file import EMPTY_SHA256, TrailFile, TrailFileError, replacing
from scrapy_rep.crawl.internals import close_spider
from scrapy_rep.crawl.startup import stop_at_start
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.fetch.kinds import DocumentKind
    from rep_engine.settings import RepConfig
    from rep_engine.settings.readers import SettingsLike

logger = logging.getLogger(__name__)

#: The close reason when the trail cannot be written (``REP_AUDIT_REQUIRED``).
CLOSE_REASON: Final = "audit_trail_unwritable"
#: File in ``JOBDIR``: the open records of a paused run, for the resumed one.
JOBDIR_FILE: Final = "scrapy_rep.audit.json"
#: Snapshot names remembered as written (beyond: the file in ``<trail>.d/`` says so).
SNAPSHOT_MEMO: Final = 4096


class AuditWriter:
    """Writes the lines of one run; after a write error, nothing more (said once)."""

    def __init__(self, crawler: Crawler, config: RepConfig, run: str, written: bool = True) -> None:
        """``written=False``: no file (the crawl keeps no trail): the snapshot names only."""
        self.crawler = crawler
        self.path = Path(config.audit_file)
        self.required = config.audit_required
        self.run = run
        #: (sha256, document kind, key, fetch time) of the snapshot lines this run wrote.
        self._snapshots: OrderedDict[tuple[str, Any, Hashable, float], None] = OrderedDict()
        self.file: TrailFile | None = None
        if not written:
            return
        try:
            self.file = TrailFile(self.path, head_options(config, self.path))
        except RepSettingError as error:  # the key or head file, unusable since the check
            stop_at_start(error)
        except (TrailFileError, OSError) as error:
            message = f"REP_AUDIT_FILE: {error}"
            if self.required:  # locked by a crawl that started after our check
                stop_at_start(RepSettingError(message))
            logger.warning("scrapy_rep: %s; the crawl goes on without its audit trail", message)

    def emit(self, record: dict[str, Any]) -> None:
        file = self.file
        if file is None:
            return
        try:
            file.write(record)
        except OSError as error:
            self.failed(error)

    def snapshot(self, kind: DocumentKind[Any], key: Hashable, entry: CacheEntry[Any]) -> str:
        """The snapshot name of ``entry``'s body, the document of ``kind`` of ``key``
        (``""``: given up on as unreachable; the engine's
        :data:`~rep_engine.trail.lines.Snapshot`), stored in ``<trail>.d`` the first time,
        with a line (its fetch: time, status) the first time this run uses that fetch of
        that body from its URL: each run writes its own line for
        every fetch of a document version it uses (the same body fetched again once its
        copy expired too: ``audit show`` names the fetch in force when a request was sent,
        not the body's first); the body in ``<trail>.d`` is shared by every run of the
        file."""
        sha = entry.sha256 or EMPTY_SHA256
        if entry.unreachable:  # given up on: nothing was read, nothing to store
            return ""
        if self.file is None:  # no trail (or no longer): the name only
            return sha
        memo = (sha, kind, key, entry.fetched_at)
        if memo in self._snapshots:
            self._snapshots.move_to_end(memo)
            return sha
        body = zlib.decompress(entry.body_zlib) if entry.body_zlib else b""
        try:
            self.file.write_snapshot(sha, body)
        except OSError as error:
            self.failed(error)
            return sha
        line = lines.snapshot_line(
            self.run, entry.sha256, kind.name, kind.url(key), entry.final_url, entry.status,
            entry.outcome, entry.fetched_at, len(body),
        )  # fmt: skip
        self.emit(line)
        self._snapshots[memo] = None
        if len(self._snapshots) > SNAPSHOT_MEMO:
            self._snapshots.popitem(last=False)
        return sha

    def snapshot_body(self, kind: str, url: str, body: bytes, status: int | None) -> str:
        """The snapshot name of ``body``, a document the crawl made itself (a page part
        too long for its record's line: kind ``page``), stored with its line."""
        sha = hashlib.sha256(body).hexdigest()
        file = self.file
        if file is not None:
            try:
                file.write_snapshot(sha, body)
            except OSError as error:
                self.failed(error)
                return sha
            now = time.time()
            self.emit(lines.snapshot_line(self.run, sha, kind, url, "", status, "", now, len(body)))
        return sha

    def next_hash(self, record: dict[str, Any]) -> str:
        """The SHA-256 ``record``'s line will have when written next (``""``: no trail written)."""
        return self.file.next_hash(record) if self.file is not None else ""

    def failed(self, error: OSError) -> None:
        """Said once, counted; the spider closes (``REP_AUDIT_REQUIRED``) or the trail stops."""
        inc(self.crawler.stats, "rep/audit/write_errors")
        if self.file is None:
            return
        with contextlib.suppress(OSError):
            self.file.close()
        self.file = None
        logger.log(
            logging.ERROR if self.required else logging.WARNING,
            "scrapy_rep: the audit trail (REP_AUDIT_FILE = %s) cannot be written (%s); %s",
            self.path, error.strerror or error,
            "closing the spider" if self.required else "the crawl goes on without it",
        )  # fmt: skip
        if self.required:
            close_spider(self.crawler, CLOSE_REASON)

    def close(self) -> tuple[int, int]:
        """Close the file; the lines this run wrote, and the lines the file holds (an
        earlier run's too, when this one was appended to it)."""
        if self.file is None:
            return 0, 0
        written, total = self.file.lines, self.file.tree.size
        self.file.close()
        self.file = None
        return written, total


def load_state(jobdir: str | None) -> dict[str, Any] | None:
    """The state a paused run saved in ``jobdir`` (``None``: none, or unreadable)."""
    if not jobdir:
        return None
    path = Path(jobdir) / JOBDIR_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(saved, dict) or not isinstance(saved.get("open"), dict):
            raise ValueError("not a saved audit state")
        return saved
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        logger.warning("scrapy_rep: %s is unreadable (%s)", path, error)
        return None


@dataclass(frozen=True)
class Paused:
    """The paused run a resumed run carries on, as its header names it."""

    #: The paused run's id (the header's ``resumes``).
    run: str
    #: The trail it was written to (``None``: not kept, a state of an earlier version).
    trail: str | None = None
    #: The SHA-256 of its end line (``None``: not kept, or its trail was not written).
    head: str | None = None


def resume(
    jobdir: str | None,
    open_records: dict[str, UrlEntry],
    unfiltered: dict[str, str],
    left: set[str] | None = None,
    others: set[str] | None = None,
) -> tuple[Paused | None, int]:
    """A resumed run: the paused run (``None``: none, or one that wrote no trail, whose
    entries are resumed all the same) and the last request number it gave; its open records,
    its ``dont_filter`` requests and the ids of its open records it counted ``left_in_queue``
    (and of those it took from a shared queue another worker queued them in) are added to
    ``open_records``, ``unfiltered``, ``left`` and ``others`` (a state of a later version is
    not resumed: a WARNING says so)."""
    saved = load_state(jobdir)
    if saved is None:
        return None, 0
    version = saved.get("version", 0)
    if not isinstance(version, int) or version > STATE_VERSION:
        logger.warning(
            "scrapy_rep: the audit state in JOBDIR was saved by a later version of "
            "scrapy_rep (state version %r; this one reads %d and before): its open records "
            "are not resumed", version, STATE_VERSION,
        )  # fmt: skip
        return None, 0
    try:
        entries = {k: UrlEntry.from_state(e, version) for k, e in saved["open"].items()}
        counted = saved.get("left_in_queue", [])  # a state of an earlier version: none
        taken = saved.get("taken_from_others", [])
        for name, keys in (("left_in_queue", counted), ("taken_from_others", taken)):
            if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
                raise TypeError(f"{name} {keys!r} is not a list of record ids")
        saved_unfiltered = saved.get("unfiltered")
        if isinstance(saved_unfiltered, dict):
            unfiltered.update(saved_unfiltered)
        else:  # before schema 2: the final records' ids, each its URL key
            unfiltered.update((key, key) for key in saved["final_unfiltered"])
        trail, head = saved.get("trail"), saved.get("head")
        paused: Paused | None = Paused(
            str(saved["run"]),
            trail if isinstance(trail, str) and trail else None,
            head if isinstance(head, str) and head else None,
        )
        if trail == "":  # it wrote no trail (the report alone): no run for a header to name
            paused = None
        sequence = int(saved.get("sequence", 0))
    except (KeyError, TypeError, IndexError, ValueError, OverflowError) as error:
        logger.warning("scrapy_rep: the audit state in JOBDIR is unreadable (%s)", error)
        return None, 0
    open_records.update(entries)
    if left is not None and others is not None:
        left.update(key for key in counted if key in entries)
        others.update(key for key in taken if key in entries)
    return paused, sequence


def check_resumed_trail(
    settings: SettingsLike, config: RepConfig, first: dict[str, Any] | None = None
) -> None:
    """A crawl resumed from ``JOBDIR`` whose paused run wrote an audit trail (its saved state
    names it; without a state, killed or saved by an earlier version, the trail its first
    run had, ``first``: the settings kept in ``JOBDIR``), resumed without one (no
    ``REP_AUDIT_FILE``): the requests it carries on would be sent with no record ever
    naming them, and its trail would end at the pause. The crawl needs its trail
    (``REP_AUDIT_REQUIRED``, the default): it stops at start, naming the trail, as an
    unusable ``REP_AUDIT_FILE`` stops it. With ``REP_AUDIT_REQUIRED = False``: a WARNING
    says so, and the crawl goes on without it. Resumed with a trail while its paused run's
    is missing: a WARNING names it (this run's records, the requests it held among them,
    are in its own trail, without the earlier runs'; docs/deployment.md, "Pause and
    resume with JOBDIR")."""
    jobdir = settings.get("JOBDIR")
    if not jobdir:
        return
    trail, held = _paused_trail(Path(str(jobdir)), first)
    if not trail:
        return
    if config.audit_file:
        if held is not None and not Path(trail).exists():
            logger.warning(
                "scrapy_rep: the crawl in JOBDIR %s was paused with its audit trail %s, which "
                "is missing: this run's records (the %d request(s) it left open among them) "
                "are in %s alone, without its earlier runs' records", jobdir, trail, held,
                config.audit_file,
            )  # fmt: skip
        return
    opened = "its saved state is gone" if held is None else f"{held} request(s) of it open"
    said = (
        f"the crawl in JOBDIR {jobdir} was paused with its audit trail {trail} ({opened}), "
        "and this run has no REP_AUDIT_FILE: what it sends would have no record"
    )
    if config.audit_required:
        stop_at_start(
            RepSettingError(
                f"REP_AUDIT_FILE: {said}; resume it with REP_AUDIT_FILE = {trail!r} (or "
                "another file), or set REP_AUDIT_REQUIRED = False to resume it without one"
            )
        )
    logger.warning("scrapy_rep: %s (REP_AUDIT_REQUIRED = False)", said)


def _paused_trail(jobdir: Path, first: dict[str, Any] | None) -> tuple[str, int | None]:
    """The trail the paused run in ``jobdir`` wrote (``""``: none) and how many records it
    left open (``None``: no state says it: the trail its first run had, ``first``'s)."""
    try:
        saved = json.loads((jobdir / JOBDIR_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none, or unreadable: the ledger says so if it reads it
        saved = None
    trail = saved.get("trail") if isinstance(saved, dict) else None
    if isinstance(trail, str):  # "": it wrote none (the report alone)
        held = saved.get("open") if isinstance(saved, dict) else None
        return trail, len(held) if isinstance(held, dict) else 0
    named = (first or {}).get("REP_AUDIT_FILE")
    return (named, None) if isinstance(named, str) else ("", None)


def save_state(jobdir: str | None, state: dict[str, Any] | None) -> None:
    """Keep ``state`` in ``jobdir`` for the resumed run (``None``: nothing to keep)."""
    if not jobdir:
        return
    path = Path(jobdir) / JOBDIR_FILE
    if state is None:
        path.unlink(missing_ok=True)
        return
    with replacing(path, ".tmp") as file:  # made new: no planted symlink followed
        file.write(json.dumps(state).encode())
