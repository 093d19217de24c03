"""A recheck's documents within a bound, however many origins it has (pure).

The documents of every origin a recheck decides stay known to the end of its run, but
only ``REP_RECHECK_PARSED_ORIGINS`` of them stay parsed (an LRU): each origin's
documents are kept *compact*, one ``bytes`` value per origin (its robots.txt as its
plain form, :meth:`~rep_engine.robotstxt.RobotsTxt.plain`, made objects again without a
parse; a tdmrep.json or RSL license as its zlib body, parsed again by its kind's own
reader; a stand-in, the absent or unreachable document, by its place in
:data:`STANDINS`), in memory up to :data:`MEMORY_BYTES`, beyond that in an SQLite file
of a temporary folder, removed at the end.

An origin evicted from the parsed ones and asked for again is made again from its
compact value: the same entries (rules, outcome, dates, status, body, SHA-256, final
URL, whether it was cut), the same WARC record IDs, the same ``now`` and ``missing``,
so the same decisions and the same evidence and trail lines (a snapshot is named by its
SHA-256 and URL, never by the object). :attr:`DocumentStore.parses` counts the origins
made again; with items that visit the origins round-robin and more origins than the
bound, every item's origin is one (docs/recheck.md, "Scale": a dataset grouped by
origin, or a bound above its origins, parses each origin once).
"""

from __future__ import annotations

import pickle
import sqlite3
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Iterator, MutableMapping
from dataclasses import fields
from pathlib import Path
from typing import Any, Final

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import TDMREP, DocumentKind
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, unplain
from rep_engine.urls.origins import Origin
from rep_engine.usage.rsl.document import ABSENT, UNREACHABLE
from rep_engine.usage.tdmrep import NO_FILE, RESERVED_ALL
from rep_engine.verdict.decide import LICENSE, TDM
from rep_recheck.documents import OriginDocuments
from rep_recheck.names import PARSED_ORIGINS, spill_file
from rep_recheck.outputs import Evidence, EvidenceMemo
from rep_recheck.rechecker import Outcome, Rechecker

__all__ = ["MEMORY_BYTES", "PARSED_ORIGINS", "STANDINS", "DocumentStore", "OriginsEvidence",
           "compact", "rebuilt"]  # fmt: skip

#: The compact values kept in memory (bytes, about); the others go to an SQLite file.
MEMORY_BYTES: Final = 128 * 1024 * 1024
#: The documents that stand in for one not had, kept by their place here (each is
#: compared by identity: ``rules is NO_FILE``).
STANDINS: Final[tuple[Any, ...]] = (ALLOW_ALL, DISALLOW_ALL, NO_FILE, RESERVED_ALL, ABSENT,
                                    UNREACHABLE)  # fmt: skip
#: The kinds whose parsed documents are parsed again from their body.
_READERS: Final[dict[str, DocumentKind[Any]]] = {TDM: TDMREP, LICENSE: RSL}
#: :class:`CacheEntry`'s fields after its rules, in order.
_FIELDS: Final = tuple(f.name for f in fields(CacheEntry) if f.name != "rules")
#: How a compact entry holds its rules.
_PLAIN, _STANDIN, _BODY, _WHOLE = range(4)
#: Compact values written to the SQLite file at once.
_BATCH: Final = 1_000


def compact(documents: OriginDocuments) -> bytes:
    """``documents`` as one ``bytes`` value, which :func:`rebuilt` makes them again from."""
    entries = []
    for (kind, key), entry in documents.entries.items():
        rules: Any = entry.rules
        if type(rules) is RobotsTxt and not any(rules is s for s in STANDINS):
            held: tuple[int, Any] = (_PLAIN, rules.plain())
        elif (index := next((i for i, s in enumerate(STANDINS) if rules is s), -1)) >= 0:
            held = (_STANDIN, index)
        elif entry.body_zlib and kind in _READERS:
            held = (_BODY, None)
        else:
            held = (_WHOLE, rules)  # not a kind read again here: kept as it is
        values = tuple(getattr(entry, name) for name in _FIELDS)
        entries.append((kind, key, documents.records.get((kind, key), ""), held, values))
    value = (tuple(documents.origin), documents.now, documents.missing, entries)
    return zlib.compress(pickle.dumps(value, pickle.HIGHEST_PROTOCOL), 1)


def rebuilt(value: bytes) -> OriginDocuments:
    """The documents :func:`compact` made ``value`` of, parsed again."""
    origin, now, missing, entries = pickle.loads(zlib.decompress(value))
    documents = OriginDocuments(Origin(*origin), now=now, missing=missing)
    for kind, key, record, (how, held), values in entries:
        if how == _PLAIN:
            rules = unplain(held)
        elif how == _STANDIN:
            rules = STANDINS[held]
        elif how == _BODY:
            entry = dict(zip(_FIELDS, values, strict=True))
            body = zlib.decompress(entry["body_zlib"])
            rules = _READERS[kind].read(body, entry["truncated"])
        else:
            rules = held
        documents.add(kind, key, CacheEntry(rules, *values), record)
    return documents


class DocumentStore(MutableMapping[str, OriginDocuments]):
    """Each origin's documents by its name (``https://a.example``): compact, in memory up
    to ``memory_bytes`` then in an SQLite file, at most ``parsed_origins`` of them parsed
    (the least recently used made again when asked for). What a recheck's crawl fills
    (:class:`~rep_recheck.command.FetchResult`) and decides with."""

    def __init__(
        self,
        parsed_origins: int = PARSED_ORIGINS,
        memory_bytes: int = MEMORY_BYTES,
        directory: str | Path | None = None,
    ) -> None:
        if parsed_origins < 1:
            raise ValueError(f"parsed_origins must be at least 1, got {parsed_origins}")
        self.parsed_origins = parsed_origins
        self.memory_bytes = memory_bytes
        self._directory = directory
        #: name -> (its number, its compact value), in memory.
        self._compact: dict[str, tuple[int, bytes]] = {}
        #: Bytes of the compact values in memory.
        self.bytes = 0
        #: Compact values on their way to the SQLite file.
        self._pending: dict[str, tuple[int, bytes]] = {}
        self._file: sqlite3.Connection | None = None
        #: Closes the file and removes its folder (:func:`~rep_recheck.names.spill_file`).
        self._remove: weakref.finalize[..., Any] | None = None
        #: Origins in the SQLite file.
        self.spilled = 0
        #: Documents that cannot be made bytes (none the recheck's kinds make), kept
        #: whole.
        self._whole: dict[str, OriginDocuments] = {}
        #: The parsed ones, least recently used first.
        self._parsed: OrderedDict[str, OriginDocuments] = OrderedDict()
        #: How many times each origin was made from its compact value (by its number,
        #: at most 255).
        self._parses = bytearray()
        #: Origins made from their compact value, and those of them made again (evicted
        #: from the parsed ones, then asked for again).
        self.parses = 0
        self.reparses = 0

    # ------------------------------------------------------------------ the mapping

    def __setitem__(self, name: str, documents: OriginDocuments) -> None:
        try:
            value = compact(documents)
        except (pickle.PicklingError, TypeError, AttributeError):
            value = b""  # a document that cannot be made bytes: kept whole, parsed
        self._parsed.pop(name, None)
        self._whole.pop(name, None)
        if not value:
            self._forget(name)
            self._whole[name] = documents
            return
        held = self._held(name)
        number = held[0] if held is not None else len(self._parses)
        if held is None:
            self._parses.append(0)
        else:
            self._forget(name)
        if self.bytes + len(value) <= self.memory_bytes:
            self._compact[name] = (number, value)
            self.bytes += len(value)
            return
        self._pending[name] = (number, value)
        if len(self._pending) >= _BATCH:
            self._write()

    def __getitem__(self, name: str) -> OriginDocuments:
        parsed = self._parsed.get(name)
        if parsed is not None:
            self._parsed.move_to_end(name)
            return parsed
        whole = self._whole.get(name)
        if whole is not None:
            return whole
        held = self._held(name)
        if held is None:
            raise KeyError(name)
        number, value = held
        parsed = rebuilt(value)
        self.parses += 1
        times = self._parses[number]
        if times:
            self.reparses += 1
        self._parses[number] = min(times + 1, 255)
        self._parsed[name] = parsed
        while len(self._parsed) > self.parsed_origins:
            self._parsed.popitem(last=False)
        return parsed

    def __delitem__(self, name: str) -> None:
        if self._held(name) is None and self._whole.pop(name, None) is None:
            raise KeyError(name)
        self._parsed.pop(name, None)
        self._forget(name)

    def __iter__(self) -> Iterator[str]:
        yield from list(self._whole)
        yield from list(self._compact)
        yield from list(self._pending)
        if self._file is not None:
            yield from (name for (name,) in self._file.execute("SELECT name FROM documents"))

    def __len__(self) -> int:
        return len(self._whole) + len(self._compact) + len(self._pending) + self.spilled

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._whole or self._held(name) is not None)

    def drop_parsed(self) -> None:
        """The parsed documents let go (asked for again, each is made again from its
        compact value): what a recheck grouped by origin does once every item is
        decided, before it writes them back."""
        self._parsed.clear()

    def __call__(self, origin: Origin) -> OriginDocuments | None:
        """``origin``'s documents (``None``: none had): a :class:`Rechecker`'s source."""
        return self.get(str(origin))

    # ------------------------------------------------------------------ counts

    def parsed_times(self) -> dict[int, int]:
        """How many origins were made from their compact value how many times (255: at
        least that many): ``{1: 20000}`` is each once, never evicted then asked again."""
        counts: dict[int, int] = {}
        for times in self._parses:
            counts[times] = counts.get(times, 0) + 1
        return dict(sorted(counts.items()))

    def close(self) -> None:
        """The SQLite file and its folder removed (the store is empty then; else at the
        store's garbage collection, or the interpreter's exit)."""
        if self._remove is not None:
            self._remove()
            self._remove = None
        self._file = None
        self._whole.clear()
        self._compact.clear()
        self._pending.clear()
        self._parsed.clear()
        self.bytes = self.spilled = 0

    # ------------------------------------------------------------------ internals

    def _held(self, name: str) -> tuple[int, bytes] | None:
        held = self._compact.get(name) or self._pending.get(name)
        if held is not None or self._file is None:
            return held
        row = self._file.execute(
            "SELECT number, value FROM documents WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    def _forget(self, name: str) -> None:
        """``name``'s compact value no longer held (it is replaced, or deleted)."""
        held = self._compact.pop(name, None)
        if held is not None:
            self.bytes -= len(held[1])
            return
        if self._pending.pop(name, None) is not None or self._file is None:
            return
        if self._file.execute("DELETE FROM documents WHERE name = ?", (name,)).rowcount:
            self.spilled -= 1

    def _write(self) -> None:
        """The pending compact values written to the SQLite file (made on first use)."""
        if self._file is None:
            self._file, self._remove = spill_file(self, "documents.sqlite", self._directory)
            self._file.execute("CREATE TABLE documents (name TEXT PRIMARY KEY, number INTEGER, "
                               "value BLOB) WITHOUT ROWID")  # fmt: skip
        rows = [(name, number, value) for name, (number, value) in self._pending.items()]
        self._file.execute("BEGIN")
        self._file.executemany("INSERT INTO documents VALUES (?, ?, ?)", rows)
        self._file.execute("COMMIT")
        self.spilled += len(rows)
        self._pending.clear()


class OriginsEvidence(EvidenceMemo):
    """:class:`~rep_recheck.outputs.EvidenceMemo` that lets its outcomes go when
    ``rechecker`` forgets its origins (more than ``REP_RECHECK_PARSED_ORIGINS``): an
    outcome holds its origin's parsed documents, which would otherwise stay in memory
    for the memo's 65,536 outcomes, past the bound."""

    def __init__(self, rechecker: Rechecker) -> None:
        super().__init__()
        self.rechecker = rechecker
        self._forgotten = rechecker.forgotten

    def of(self, url: str, outcome: Outcome, fetched_now: float = 0.0) -> Evidence:
        if self.rechecker.forgotten != self._forgotten:
            self._forgotten = self.rechecker.forgotten
            self.clear()
        return super().of(url, outcome, fetched_now)
