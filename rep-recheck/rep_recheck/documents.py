"""One origin's documents as a recheck knows them, with the evidence of each (pure).

The documents are the crawl's own cache entries (:class:`~rep_engine.fetch.cache.CacheEntry`:
the parsed document, its body, SHA-256, status, outcome, when it was fetched), keyed as
:func:`rep_engine.verdict.decide.decide` asks for them: ``(kind, origin)`` for robots.txt and
tdmrep.json, ``(kind, license URL)`` for an RSL license. They come from a crawl
(fetched now: :mod:`scrapy_rep.crawl.commands.recheck_crawl`) or from a WARC file
(:mod:`rep_recheck.warc`), whose record ID is the evidence of a capture.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Final

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP
from rep_engine.urls.origins import Origin
from rep_engine.verdict.decide import LICENSE, ROBOTS, TDM

#: How each kind's document URL is made from its key.
_PATHS: Final = {ROBOTS: ROBOTS_TXT.path, TDM: TDMREP.path}


def document_url(kind: str, key: Hashable) -> str:
    """The URL a document of ``kind`` is fetched from (an RSL license's key is its URL)."""
    return f"{key}{_PATHS[kind]}" if kind in _PATHS else str(key)


@dataclass(eq=False)
class OriginDocuments:
    """The documents of one origin, and of the RSL licenses its robots.txt names."""

    origin: Origin
    #: ``(kind, key)`` -> its entry.
    entries: dict[tuple[str, Hashable], CacheEntry[Any]] = field(default_factory=dict)
    #: ``(kind, key)`` -> the WARC-Record-ID of the capture it was read from.
    records: dict[tuple[str, Hashable], str] = field(default_factory=dict)
    #: When its items are decided (POSIX seconds): an override of ``REP_OVERRIDES`` holds
    #: until then; a WARC's origin is decided as of its robots.txt's capture.
    now: float = 0.0
    #: Why a kind of document is not had, where more can be said than that (a WARC that
    #: holds no tdmrep.json: TDMRep not checked).
    missing: dict[str, str] = field(default_factory=dict)

    def known(self, kind: str, key: Hashable) -> CacheEntry[Any] | None:
        """The entry :func:`~rep_engine.verdict.decide.decide` asks for (``None``: not had)."""
        return self.entries.get((kind, key))

    def add(self, kind: str, key: Hashable, entry: CacheEntry[Any], record: str = "") -> None:
        self.entries[kind, key] = entry
        if record:
            self.records[kind, key] = record

    @property
    def robots(self) -> CacheEntry[Any] | None:
        return self.entries.get((ROBOTS, self.origin))

    def licenses(self) -> list[tuple[str, CacheEntry[Any]]]:
        """The RSL licenses known, by URL."""
        return [(str(key), entry) for (kind, key), entry in self.entries.items() if kind == LICENSE]
