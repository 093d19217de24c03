"""The documents a trail's records were decided with, read from its snapshots (pure):
the ``snapshot`` lines seen so far (:class:`Documents`, what :class:`rep_audit.
rederive.Rederiver` builds on), and each robots.txt, tdmrep.json and RSL license read as
the crawl read it.

A snapshot's ``outcome`` says how the crawl read it: ``absent`` (no file, everything
allowed), ``unreachable`` (everything disallowed), ``gave-up`` (as the run's
``REP_UNREACHABLE_ACTION`` says; the crawl's own give-up verdict, ``unreachable for 600 s
(…): requests dropped`` or ``…: treated as allowed``, by what it says:
:func:`rep_engine.fetch.lifecycle.shared.given_up_allowing`, the reader beside its
writer), anything else by its HTTP status (SPEC §4: 2xx parsed, 4xx no file, 429 and 5xx
unreachable; no status: the body as stored, empty for no file).

The RSL licenses a record was decided with are read from their snapshots too
(:func:`license_documents`; docs/purpose-notes.md §9): a record's ``rsl`` signals name
their license URL in their ``source`` (``RSL <url> …``) and the snapshot of its body; a
license given up on as unreachable has no snapshot (nothing was read) and stands for the
unreachable license: no AI use.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any

from rep_audit.runcontext import RunContext
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import TDMREP
from rep_engine.fetch.lifecycle.shared import given_up_allowing
from rep_engine.fetch.procedure import was_cut
from rep_engine.fetch.rsl_kind import licenses_to_wait_for
from rep_engine.fetch.rules import Effect, effect_of_status
from rep_engine.records import RefusedBy, SnapshotOutcome, UrlEntry, seconds_of, text
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt
from rep_engine.trail.read import SnapshotStore, json_object
from rep_engine.urls.origins import origin_of
from rep_engine.usage.rsl.document import ABSENT, UNREACHABLE, RslDocument, parse_rsl
from rep_engine.usage.rsl.terms import license_url_of
from rep_engine.usage.tdmrep import NO_FILE, RESERVED_ALL, WELL_KNOWN_PATH, TdmRepFile, parse_tdmrep
from rep_engine.verdict.decide import LICENSE, TDM
from rep_engine.verdict.policy import UsagePolicy


def robots_effect(meta: dict[str, Any] | None, unreachable_action: str) -> Effect:
    """How the crawl read a robots.txt snapshot (see the module docstring)."""
    meta = meta or {}
    # as written: unreachable, gave-up and cut are earlier trails' words, read as then
    outcome = SnapshotOutcome.of(said := str(meta.get("outcome") or SnapshotOutcome.PARSED))
    if outcome is SnapshotOutcome.ABSENT:
        return Effect.ALLOW_ALL
    if outcome is SnapshotOutcome.UNREACHABLE:
        return Effect.UNREACHABLE
    if outcome is SnapshotOutcome.GAVE_UP:
        return Effect.ALLOW_ALL if unreachable_action == "allow" else Effect.UNREACHABLE
    allowed = given_up_allowing(said)  # the lifecycle's give-up verdict, as written
    if allowed is not None:
        return Effect.ALLOW_ALL if allowed else Effect.UNREACHABLE
    status = meta.get("status")
    if outcome in (SnapshotOutcome.PARSED, SnapshotOutcome.CUT) or not isinstance(status, int):
        return Effect.PARSE
    effect = effect_of_status(status)
    return Effect.ALLOW_ALL if effect is Effect.FOLLOW else effect


class Documents:
    """The ``snapshot`` lines of a trail, fed in order, and the documents read from them."""

    def __init__(self, store: SnapshotStore) -> None:
        self.store = store
        #: sha256 -> its (latest) ``snapshot`` line.
        self.snapshots: dict[str, dict[str, Any]] = {}
        #: (sha256, document URL) -> its latest ``snapshot`` line: the outcome of a body
        #: is the outcome at that URL (the empty body is every absent or unreachable file).
        self.described: dict[tuple[str, str], dict[str, Any]] = {}
        #: (kind, document URL) -> the sha256 of its latest snapshot line.
        self.latest: dict[tuple[str, str], str] = {}
        #: The first 8 bytes of the SHA-256 of (run, sha256, document URL) of each
        #: ``snapshot`` line: a recheck's item names a snapshot its own run announced
        #: for its own origin (:meth:`announced`).
        self._announced: set[bytes] = set()
        #: sha256 -> the robots.txt URLs its ``snapshot`` lines were fetched from: a
        #: record's robots.txt is its URL's site's, or the site its Host addressed.
        self.robots_urls: dict[str, set[str]] = {}
        #: (crawl, sha256) -> the robots.txt URLs the runs of that crawl (a run and the
        #: ``JOBDIR`` runs that resume it, :attr:`crawls`) announced it for: a schema 2
        #: record names a snapshot its own crawl announced, not another run's.
        self.crawl_robots_urls: dict[tuple[str, str], set[str]] = {}
        #: run id -> the first run of the crawl it belongs to (itself unless it resumes
        #: a run read before it): a resumed run carries on its paused run's open
        #: records, decided with the paused run's snapshots.
        self.crawls: dict[str, str] = {}
        #: The first 8 bytes of the SHA-256 of (crawl, document URL) of each robots.txt and
        #: tdmrep.json a crawl announced a snapshot of -> when each of its lines was
        #: written and that version fetched (POSIX seconds; no time: ``-inf``, ``inf``)
        #: (:meth:`had`).
        self._crawl_had: dict[bytes, list[tuple[float, float]]] = {}
        #: (crawl, sha256, document URL) -> the ``snapshot`` lines of that body, one per
        #: fetch of it the crawl used (an earlier release: its first), in file order.
        self.fetches: dict[tuple[str, str, str], list[dict[str, Any]]] = {}

    def saw_snapshot(self, record: dict[str, Any]) -> None:
        sha, url, run = (text(record.get(name)) for name in ("sha256", "url", "run"))
        kind = text(record.get("kind"))  # a snapshot's kind is its document's name
        crawl = self.crawl_of(run)
        self.fetches.setdefault((crawl, sha, url), []).append(record)
        self._announced.add(_announce_key(run, sha, url))
        self.snapshots[sha] = record
        self.described[(sha, url)] = record
        self.latest[(kind, url)] = sha
        if kind == RefusedBy.ROBOTS_TXT:
            self.robots_urls.setdefault(sha, set()).add(url)
            self.crawl_robots_urls.setdefault((crawl, sha), set()).add(url)
        if kind in (RefusedBy.ROBOTS_TXT, RefusedBy.TDMREP_JSON):
            written, fetched = (seconds_of(record.get(name)) for name in ("time", "fetched"))
            uses = self._crawl_had.setdefault(_announce_key(crawl, "", url), [])
            uses.append((written or -math.inf, math.inf if fetched is None else fetched))

    def crawl_of(self, run: str) -> str:
        """The first run of the crawl run ``run`` belongs to (:attr:`crawls`)."""
        return self.crawls.get(run, run)

    def meta(self, sha: str, document: str) -> dict[str, Any] | None:
        """The snapshot line of body ``sha`` fetched from ``document``, else any line of
        that body: a snapshot line is written once per body, and in schema v1 the empty
        body is always "absent" (a document given up on as unreachable has no snapshot)."""
        meta = self.described.get((sha, document))
        return meta if meta is not None else self.snapshots.get(sha)

    def had(self, run: str, document: str, at: str = "", use: float = math.inf) -> bool:
        """Whether the crawl of run ``run`` announced a snapshot of the robots.txt or
        tdmrep.json at ``document`` (its URL) in the lines read so far; ``at``, an ISO
        time: by a line written before it, of a version fetched at most ``use`` seconds
        before it (the shortest a version stays usable: one fetched longer before may
        have been let go)."""
        uses = self._crawl_had.get(_announce_key(self.crawl_of(run), "", document))
        moment = seconds_of(at)
        if uses is None or moment is None:
            return uses is not None
        return any(written < moment <= fetched + use for written, fetched in uses)

    def in_force(self, sha: str, document: str, run: str, at: str) -> dict[str, Any] | None:
        """The ``snapshot`` line of the fetch of body ``sha`` from ``document`` that a
        request of run ``run`` (of its crawl) was sent under at ``at`` (its ``sent_at``,
        else its record's ``time``): of that crawl's lines of it, the latest fetched no
        later than ``at`` (a crawl writes one per fetch it uses: a body fetched again
        after its copy expired has a line of its own), else :meth:`meta`."""
        moment = seconds_of(at)
        chosen: tuple[float, dict[str, Any]] | None = None
        for line in self.fetches.get((self.crawl_of(run), sha, document), ()):
            fetched = seconds_of(line.get("fetched"))
            if fetched is None or (moment is not None and fetched > moment):
                continue
            if chosen is None or fetched >= chosen[0]:
                chosen = (fetched, line)
        return chosen[1] if chosen is not None else self.meta(sha, document)

    def announced(self, run: str, sha: str, document: str) -> bool:
        """Whether run ``run`` announced snapshot ``sha`` of ``document`` (its URL)."""
        return _announce_key(run, sha, document) in self._announced

    def cut(self, sha: str, document: str) -> bool:
        """Whether the snapshot ``sha`` of ``document`` says its download was cut: read
        as cut, as the crawl read it."""
        return was_cut(str((self.meta(sha, document) or {}).get("detail") or ""))

    def page_part(self, sha: str) -> dict[str, Any] | None:
        """A page part's statements, from their snapshot."""
        found = self.store.parsed(sha, "page", json_object)
        return found if isinstance(found, dict) else None

    def documents(
        self, entry: UrlEntry, run_id: str, signals: list[dict[str, Any]], rules: RobotsTxt,
        origin: str, run: RunContext,
    ) -> tuple[dict[tuple[str, Hashable], CacheEntry[Any]], str]:  # fmt: skip
        """The tdmrep.json (AI purposes) and RSL licenses the request's record (``entry``, of
        run ``run_id``) was decided with, as entries, and a problem when a snapshot cannot
        be read."""
        documents: dict[tuple[str, Hashable], CacheEntry[Any]] = {}
        if UsagePolicy.of(run.purposes, run.unknown).needs_tdmrep:
            tdm, problem = self.tdmrep(entry, run_id, signals, origin, run)
            if problem:
                return documents, problem
            documents[TDM, None] = snapshot_entry(
                NO_FILE if tdm is None else tdm, tdm is RESERVED_ALL, "given up on"
            )

        def absent(sha: str, document: str) -> bool:
            effect = robots_effect(self.meta(sha, document), run.unreachable_action)
            return effect is Effect.ALLOW_ALL

        licenses, problem = license_documents(
            signals, self.store, rules.licenses, entry.licenses or {}, absent, self.cut
        )
        for license_url, document in licenses.items():
            documents[LICENSE, license_url] = snapshot_entry(document)
        return documents, problem

    def robots(
        self, sha: str, document: str, run: RunContext
    ) -> tuple[RobotsTxt | None, Effect, str]:
        meta = self.meta(sha, document)
        effect = robots_effect(meta, run.unreachable_action)
        if effect is not Effect.PARSE:
            if not self.store.sound(sha):
                return None, effect, self.store.checked.get(sha, "unreadable")
            return (ALLOW_ALL if effect is Effect.ALLOW_ALL else DISALLOW_ALL), effect, ""
        # A cut one read as the crawl read it (docs/decisions.md, 'A cut robots.txt reads
        # no part of a line that could allow').
        cut = self.cut(sha, document)
        name = f"robots{' cut' if cut else ''}:{run.profile}"
        parse = partial(parse_robotstxt, profile=run.profile, truncated=cut)
        rules = self.store.parsed(sha, name, parse)
        if rules is None:
            return None, effect, self.store.checked.get(sha, "unreadable")
        return rules, effect, ""

    def tdmrep(
        self, entry: UrlEntry, run_id: str, signals: list[dict[str, Any]], origin: str,
        run: RunContext,
    ) -> tuple[TdmRepFile | None, str]:  # fmt: skip
        """The tdmrep.json the request's record (``entry``, of run ``run_id``) was decided
        with (AI purposes only): the one it names (``tdmrep``, schema 2: none named, none
        read, which a request sent may not say:
        :func:`~rep_audit.rederive.unnamed_documents`; ``""``: given up on as unreachable,
        read as the crawl reads a give-up, everything reserved, or nothing under
        ``REP_UNREACHABLE_ACTION`` ``allow``: a page kept with it is held to that), else the
        snapshot a signal names, else (schema 1) the latest one of the URL's origin
        (``None``: the run read none)."""
        sha = None
        for signal in signals:
            named = text(signal.get("snapshot"))
            if named and self.snapshots.get(named, {}).get("kind") == RefusedBy.TDMREP_JSON:
                sha = named
        document = f"{origin}{WELL_KNOWN_PATH}"
        if entry.tdm is not None:
            sha = entry.tdm or None
            if sha is None:  # given up on (an item's: not had), as the run's setting reads it
                return (NO_FILE if run.unreachable_action == "allow" else RESERVED_ALL), ""
            # schema 2: one its own crawl announced for its origin's (or, sent with a Host
            # naming another site, its URL's origin's) tdmrep.json, not another site's
            crawl = self.crawl_of(run_id)
            sites = (document, f"{origin_of(entry.url)}{WELL_KNOWN_PATH}")
            if run.schema >= 2 and not any((crawl, sha, d) in self.fetches for d in sites):
                return None, (f"names the tdmrep.json snapshot {sha[:12]}…, which its crawl "
                              f"{crawl[:8]} did not announce for {document}")  # fmt: skip
        elif sha is None and run.schema < 2:
            sha = self.latest.get((RefusedBy.TDMREP_JSON, document))
        if sha is None:
            return None, ""
        meta = self.meta(sha, document)
        if not self.store.sound(sha):
            return None, f"tdmrep.json snapshot {sha[:12]}… {self.store.checked.get(sha)}"
        effect = robots_effect(meta, run.unreachable_action)
        if effect is Effect.UNREACHABLE:
            return RESERVED_ALL, ""
        if effect is Effect.ALLOW_ALL:
            return NO_FILE, ""
        if self.cut(sha, document):  # read as the crawl read it
            return self.store.parsed(sha, "tdmrep cut", TDMREP.parse_cut), ""
        return self.store.parsed(sha, "tdmrep", parse_tdmrep), ""


def _announce_key(run: str, sha: str, document: str) -> bytes:
    return hashlib.sha256(f"{run}\n{sha}\n{document}".encode()).digest()[:8]


def snapshot_entry(rules: Any, unreachable: bool = False, outcome: str = "") -> CacheEntry[Any]:
    """A snapshot's document as the entry the crawl decided with."""
    never = float("inf")
    return CacheEntry(rules, outcome or "snapshot", 0.0, never, never, unreachable=unreachable)


def page_license(signal: dict[str, Any], named: Iterable[str]) -> bool:
    """Whether ``signal`` is an RSL signal of a license the page named (not one of
    robots.txt's ``named`` licenses)."""
    if signal.get("vocabulary") != "rsl":
        return False
    return license_url_of(text(signal.get("source"))) not in licenses_to_wait_for(named)


def license_documents(
    signals: Iterable[dict[str, Any]],
    store: SnapshotStore,
    named: Iterable[str],
    checked: Mapping[str, str] = MappingProxyType({}),
    absent: Callable[[str, str], bool] = lambda sha, url: False,
    cut: Callable[[str, str], bool] = lambda sha, url: False,
) -> tuple[dict[str, RslDocument], str]:
    """The licenses of robots.txt (``named``: its ``License:`` URLs) that the recorded
    ``signals`` name, and those the record names as checked (``checked``, schema 2: license
    URL -> snapshot, ``""`` for one given up on), read from their snapshots; and a problem
    (``""``: none) when a snapshot cannot be read. ``absent(sha, license URL)``: whether
    that snapshot is of no license file (a 404: no terms); ``cut(sha, license URL)``:
    whether its download was cut, so read as cut, as the crawl read it (no AI use)."""
    documents: dict[str, RslDocument] = {}
    keys = licenses_to_wait_for(named)
    named_by_signals = [
        (license_url_of(text(signal.get("source"))), text(signal.get("snapshot")))
        for signal in signals
        if signal.get("vocabulary") == "rsl"
    ]
    for license_url, sha in [*checked.items(), *named_by_signals]:
        if license_url not in keys or license_url in documents:
            continue
        if sha and absent(sha, license_url):
            documents[license_url] = ABSENT
            continue
        truncated = bool(sha) and cut(sha, license_url)
        name, read = f"rsl{' cut' if truncated else ''}", partial(parse_rsl, truncated=truncated)
        document = store.parsed(sha, name, read) if sha else UNREACHABLE
        if document is None:
            return {}, f"RSL snapshot {sha[:12]}… {store.checked.get(sha, 'unreadable')}"
        documents[license_url] = document
    return documents, ""
