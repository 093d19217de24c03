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
from rep_engine.usage.rsl.document import ABSENT
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import LICENSE, ROBOTS, TDM

#: How each kind's document URL is made from its key.
_PATHS: Final = {ROBOTS: ROBOTS_TXT.path, TDM: TDMREP.path}
#: The kinds of document a recheck may consult (``--consult``), as the engine names them;
#: robots.txt always.
KINDS: Final = (ROBOTS, TDM, LICENSE)


def read_as_none(outcome: str) -> dict[str, CacheEntry[Any]]:
    """The absent stand-in of each kind but robots.txt (no reservation, no license), said
    ``outcome``, never stale, never written to the trail: what a document of a kind not
    consulted reads as, or one not had when what was had may refuse all the same."""
    never = float("inf")
    documents = ((TDM, NO_FILE), (LICENSE, ABSENT))
    return {kind: CacheEntry(document, outcome, 0.0, never, never) for kind, document in documents}


#: What a document of a kind not consulted reads as (:attr:`OriginDocuments.not_consulted`).
NOT_CONSULTED: Final = read_as_none("not consulted")


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
    #: The kinds its items are decided without (``--consult``): read as none.
    not_consulted: tuple[str, ...] = ()

    def known(self, kind: str, key: Hashable) -> CacheEntry[Any] | None:
        """The entry :func:`~rep_engine.verdict.decide.decide` asks for (``None``: not had;
        a kind not consulted: none, :data:`NOT_CONSULTED`)."""
        if kind in self.not_consulted:
            return NOT_CONSULTED[kind]
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
