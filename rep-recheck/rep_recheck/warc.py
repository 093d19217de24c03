"""The documents of a WARC file of robots.txt captures, as Common Crawl publishes them
per crawl (pure; its records read by :mod:`~rep_recheck.captures`, whose names
are importable from here too).

Each ``response`` record is an answer to one URL. An origin's robots.txt (and its
tdmrep.json, and the RSL licenses its robots.txt names, when the file holds them) is read
by the crawl's own fetch procedure (:class:`~rep_engine.fetch.procedure.FetchProcedure`,
SPEC §4) driven over the records instead of the network: a 2xx is parsed, a 4xx means
none, a redirect is followed to the record of its target, a 429 or 5xx (or a capture
that cannot be read) means it could not be had: a robots.txt so refuses its origin's
items (RFC 9309 §2.3.1.4), unless ``REP_UNREACHABLE_ACTION = "allow"``. A robots.txt not
captured, or redirected to a target not captured, is not had: its origin's items are
unknown. The entry is the crawl's
(:func:`~rep_engine.fetch.lifecycle.shared.downloaded_entry`), dated at the capture, with
the WARC-Record-ID of the capture as its evidence; an origin is decided as of its
robots.txt's capture time (an override of ``REP_OVERRIDES`` holds until then). The
latest capture of a URL is the one read.

A capture that cannot be read, or whose redirect's target was not captured, is a
document not had, as a download that failed is; what was had is said
(:func:`captured_as`), not a wait no one made.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP, DocumentKind
from rep_engine.fetch.lifecycle.shared import GAVE_UP_FATE, downloaded_entry, stand_in_entry
from rep_engine.fetch.procedure import Fetched, FetchProcedure, Follow
from rep_engine.fetch.rsl_kind import (
    RSL,
    licenses_not_read,
    licenses_to_wait_for,
)
from rep_engine.fetch.rules import Effect, Policy
from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from rep_engine.urls.origins import Origin
from rep_engine.verdict.decide import LICENSE, ROBOTS, TDM, RequestRules
from rep_recheck.asof import AsOf, captures
from rep_recheck.captures import (
    MAX_PAYLOAD,
    Capture,
    WarcError,
    capture_key,
    capture_time,
    present,
)
from rep_recheck.documents import OriginDocuments
from rep_recheck.names import PARSED_ORIGINS, Numbered, names_held

__all__ = [
    "MAX_PAYLOAD",
    "Capture",
    "WarcDocuments",
    "WarcError",
    "capture_key",
    "captured_as",
    "captures",
    "present",
]


class WarcDocuments:
    """The documents a recheck needs, read from the captures of a WARC."""

    def __init__(
        self,
        captured: Mapping[str, Capture],
        rules: RequestRules,
        names: Iterable[str],
        profile: str = "google",
        policy: Policy | None = None,
        held: int = PARSED_ORIGINS,
        not_consulted: tuple[str, ...] = (),
        digest: bool = True,
    ) -> None:
        """``held``: ``REP_RECHECK_PARSED_ORIGINS``, the names of the origins asked for
        kept in memory (the others in an SQLite file); ``not_consulted``: the kinds of
        document not read (``--consult``); ``digest``: each document's SHA-256 made (the
        evidence a report or a trail writes; a filter writes none)."""
        self.digest = digest
        self.captured = captured
        self.rules = rules
        #: Whether a decision reads the origin's tdmrep.json (an AI purpose, consulted),
        #: and the RSL licenses its robots.txt names (consulted).
        self.tdmrep = rules.needs_tdmrep and TDM not in not_consulted
        self.licenses = rules.purpose_set and LICENSE not in not_consulted
        self.names = tuple(names)
        self.policy = policy or Policy()
        self.robots: DocumentKind[RobotsTxt] = ROBOTS_TXT.parsed_with(
            lambda body: parse_robotstxt(body, profile),
            lambda body: parse_robotstxt(body, profile, truncated=True),
        )
        #: Documents read (one download each in a crawl: a counter).
        self.read = 0
        #: Origins asked for, and those of them whose tdmrep.json the WARC does not hold
        #: (a Common Crawl robots.txt WARC holds none: TDMRep not checked), each once
        #: however many times it is asked for (a recheck of more origins than
        #: ``held`` asks for an origin again when it comes back).
        self.origins = 0
        self.without_tdmrep = 0
        #: Origins asked for whose robots.txt was captured only after ``--as-of``, each
        #: once (their items unknown: :meth:`not_had_since`).
        self.captured_later = 0
        self._asked = Numbered(names_held(held))
        #: Whether the origin asked for last was asked for the first time.
        self.first_time = False
        #: The captures of the origin asked for last, by URL, as looked up (``None``:
        #: not captured): each looked up once (the newest of a URL is chosen once).
        self._looked: dict[str, Capture | None] = {}

    def lacks(self, origin: Origin) -> bool:
        """Whether the WARC lacks a document of ``origin`` a decision needs (its
        robots.txt, or its tdmrep.json for an AI purpose): one to fetch now."""
        if origin.robots_url not in self.captured:
            return True
        return self.tdmrep and TDMREP.url(origin) not in self.captured

    def __call__(self, origin: Origin) -> OriginDocuments | None:
        """``origin``'s documents (``None``: its robots.txt was not captured at all)."""
        robots_url = origin.robots_url
        captured = self.captured.get(robots_url)
        self._looked = {robots_url: captured}
        if captured is None:
            if self._later(robots_url):
                asked = len(self._asked)
                self.captured_later += self._asked.number(str(origin)) == asked
            return None
        documents = OriginDocuments(origin)
        robots = self._entry(self.robots, robots_url, documents, ROBOTS, origin)
        # decided as of its robots.txt's capture; a capture of unknown date, as of now
        captured_at = captured.date
        documents.now = captured_at if captured_at is not None else time.time()
        asked = len(self._asked)
        self.first_time = self._asked.number(str(origin)) == asked
        self.origins += self.first_time
        if self.tdmrep and self._entry(TDMREP, TDMREP.url(origin), documents, TDM, origin) is None:
            self.without_tdmrep += self.first_time
            documents.missing[TDM] = (f"TDMRep not checked: the WARC holds no "
                                      f"tdmrep.json of {origin}")  # fmt: skip
        if self.licenses and robots is not None and robots.rules.licenses:
            keys = licenses_to_wait_for(robots.rules.licenses)
            if licenses_not_read(keys, self.rules.max_licenses) is None:
                for key in keys:
                    self._entry(RSL, key, documents, LICENSE, key)
        return documents

    def not_had_since(self, origin: Origin) -> str:
        """What the why of an item of ``origin`` adds to "no robots.txt of ORIGIN was had"
        when :meth:`__call__` has no documents of it because its robots.txt was captured
        only after ``--as-of`` (``""``: not captured at all)."""
        return self._later(origin.robots_url)

    def _later(self, url: str) -> str:
        """What a document not had adds to its why when every capture of ``url`` is after
        ``--as-of``: "at or before DATE (--as-of): it was first captured on DATE2", after a
        space (``""``: captured by then, never, or no ``--as-of``)."""
        as_of = self.captured
        if not isinstance(as_of, AsOf) or (later := as_of.captured_later(url)) is None:
            return ""
        return (f" at or before {capture_time(as_of.when)} (--as-of): it was first captured "
                f"on {capture_time(later)}")  # fmt: skip

    def captured_later_line(self) -> str | None:
        """The line that counts the origins whose robots.txt was captured only after
        ``--as-of`` (``None``: none was)."""
        if not self.captured_later or not isinstance(self.captured, AsOf):
            return None
        return (f"{self.captured_later:,} origin(s) have robots.txt captures only after "
                f"--as-of {capture_time(self.captured.when)}: their items are unknown "
                "(each says when its origin was first captured; a later --as-of decides "
                "them)")  # fmt: skip

    def _entry(
        self,
        kind: DocumentKind[Any],
        url: str,
        documents: OriginDocuments,
        name: str,
        key: Any,
    ) -> Any:
        """The document at ``url`` as the crawl would have it, added to ``documents``
        (nothing: not captured, so not had)."""
        url = capture_key(url)
        first = self._capture(url)
        if first is None:
            return None
        self.read += 1
        procedure = FetchProcedure(kind, url)
        step: Follow | Fetched = procedure.start
        last: Capture | None = None
        body = b""
        if 200 <= first.status < 300 and not first.problem:  # the usual answer: no redirect
            body, last = zlib.decompress(first.body_zlib), first
            step = procedure.on_response(first.status, body, location=first.location,
                                         cache_control=first.cache_control,
                                         truncated=first.truncated)  # fmt: skip
        while isinstance(step, Follow):
            capture = self._capture(url if step.url == url else capture_key(step.url))
            if capture is None and last is not None and name == ROBOTS:
                # the archive's gap, not the site's failure: not had, as if not captured
                documents.missing[ROBOTS] = (f"the robots.txt of {key} was not had: "
                                             f"{captured_as(last)}, redirected to {step.url}, "
                                             "which the WARC does not hold"
                                             f"{self._later(capture_key(step.url))}")  # fmt: skip
                return None
            if capture is None:
                step = procedure.on_network_error(f"{step.url} not captured in the WARC")
                break
            if capture.gap:  # the archive's gap: not had, as if not captured
                if name == ROBOTS:
                    documents.missing[ROBOTS] = (
                        f"the robots.txt of {key} was not had: {capture.problem}"
                    )
                return None
            last = capture
            if capture.problem:  # read as a download that failed: not had
                step = procedure.on_network_error(capture.problem)
                break
            body = zlib.decompress(capture.body_zlib)
            step = procedure.on_response(
                capture.status, body, location=capture.location,
                cache_control=capture.cache_control, truncated=capture.truncated,
            )  # fmt: skip
        assert last is not None  # the first URL is captured
        date = last.date if last.date is not None else 0.0  # 0.0: no time said
        if step.effect is Effect.UNREACHABLE:  # not had: the crawl's give-up verdict
            policy = self.policy
            waited = policy.max_wait if step.failure is None else policy.wait_limit(step.failure)
            allow = policy.allows_after_giving_up(waited)
            said = f"{captured_as(last)} ({step.outcome}): {GAVE_UP_FATE[allow]}"
            entry = stand_in_entry(kind, allow, said, 0.0, date)
        else:
            # the capture's body as compressed when read, unless the crawl's cut shortened it
            compressed = last.body_zlib if len(step.body) == len(body) else b""
            entry = downloaded_entry(kind, self.policy, step, date, compressed, self.digest)
        documents.add(name, key, entry, last.record_id)
        return entry

    def _capture(self, url: str) -> Capture | None:
        """The capture of ``url`` read (``None``: not captured), looked up once for the
        origin asked for last."""
        if url not in self._looked:
            self._looked[url] = self.captured.get(url)
        return self._looked[url]


def captured_as(capture: Capture) -> str:
    """What was had of a document not had, where a crawl would say how long it waited
    (no one waited: the capture is the answer): ``captured as 503 in record <urn:…> at
    2025-04-01T12:00:00Z`` (no status: a status line without one)."""
    status = f" as {capture.status}" if capture.status else ""
    when = "an unreadable WARC-Date" if capture.date is None else capture_time(capture.date)
    return f"captured{status} in record {capture.record_id} at {when}"
