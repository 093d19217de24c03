"""What a per-origin document is: one :class:`DocumentKind` value says everything the
fetch machinery needs to know about robots.txt, tdmrep.json or any other document
fetched, cached, shared and waited for the same way (SPEC §4). Pure.

No code outside a kind's own definition asks which kind it has: the procedure, the
lifecycle, the cache, the stores and the held requests read these fields.

A kind's *key* names one copy of the document: the :class:`~rep_engine.urls.origins.Origin`
for robots.txt and tdmrep.json (the document is at ``path`` of it); for a document found
by its URL (an RSL license), the URL itself, with an empty ``path``.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Generic, NamedTuple, TypeVar

from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.records import SharedRecord, StoreCorrupt
from rep_engine.robotstxt import ALLOW_ALL, DISALLOW_ALL, RobotsTxt, parse_robotstxt
from rep_engine.robotstxt import unplain as unplain_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.usage.tdmrep import NO_FILE, RESERVED_ALL, WELL_KNOWN_PATH, TdmRepFile, parse_tdmrep

D = TypeVar("D")


class HoldKey(NamedTuple):
    """Requests held until one document (``kind``, a kind's name) of ``key`` is known."""

    kind: str
    key: Hashable

    def __str__(self) -> str:
        return str(self.key) if self.kind == ROBOTS_TXT.name else f"{self.key} ({self.kind})"


@dataclass(frozen=True, eq=False)
class DocumentKind(Generic[D]):
    """One kind of per-origin document. Compare kinds by identity or by ``name``."""

    #: For people and for the names of things: ``robots.txt``.
    name: str
    #: Where it lives under its key (``/robots.txt``); ``""``: the key is its URL.
    path: str
    #: What its absence means, for people: ``everything allowed``.
    when_absent: str
    #: What an unreachable one means until it is back.
    when_unreachable: str
    #: Where its stats go: ``rep/robotstxt`` (``…/store_corrupt``, ``…/gave_up``…).
    stat_prefix: str
    #: The document that stands in when there is none (a 4xx: SPEC §4 "unavailable").
    absent: D
    #: The document that stands in once it stayed unreachable (SPEC §4).
    unreachable: D
    #: A body (its first 500 KiB) as the document.
    parse: Callable[[bytes], D]
    #: Bytes a parsed document keeps in memory, for ``REP_CACHE_MAX_BYTES``.
    size_of: Callable[[D, bytes], int]
    #: Appended to the key to name its records in a shared store. robots.txt has none:
    #: its records kept their names from before there were other kinds.
    store_suffix: str = ""
    #: The field of a ``url`` or ``item`` record that names the snapshot a request was
    #: decided with (docs/audit-trail.md: one a site, or each by its URL for a kind whose
    #: key is its URL); ``""``: robots.txt's, named in its ``robots`` part.
    record: str = ""
    #: What it means when another component refuses our request for it (not the site's
    #: answer). ``""``: absent, as Scrapy reads robots.txt. Otherwise these words, and the
    #: document is read as an empty body: a document the publisher pointed at (an RSL
    #: license) whose terms could not be read is never "no terms". Such a kind reads a
    #: redirect chain that cannot be followed (a loop, too many hops, a target that is
    #: not http(s), no usable ``Location``) the same way, not as absent.
    when_ignored: str = ""
    #: ``True``: a request for it that another component refused is given up on at once,
    #: as an unreachable one would be after ``REP_UNREACHABLE_MAX_WAIT`` (its unreachable
    #: stand-in, unless ``REP_UNREACHABLE_ACTION = "allow"``): what it says is not known,
    #: and a tdmrep.json not read may reserve TDM rights (no "no" lost).
    ignored_gives_up: bool = False
    #: A body the download cut short (``Fetched.truncated``: stopped at 500 KiB, or by
    #: another component) as the document; ``None``: as :attr:`parse` reads any body.
    #: The fetch says so, not the body's length (SPEC §4, RFC 9309 §2.5).
    parse_cut: Callable[[bytes], D] | None = None
    #: The document as ``bytes``, which the collector does not track, and back without
    #: parsing (``None``: none): the cache keeps its parsed entries so.
    plain: Callable[[D], bytes] | None = None
    unplain: Callable[[bytes], D] | None = None

    def read(self, body: bytes, truncated: bool) -> D:
        """``body`` as the document, told whether the download cut it short."""
        if truncated and self.parse_cut is not None:
            return self.parse_cut(body)
        return self.parse(body)

    def url(self, key: Hashable) -> str:
        """The URL the document of ``key`` is downloaded from."""
        return f"{key}{self.path}"

    def store_name(self, key: Hashable) -> str:
        """The name of ``key``'s record in a shared store (JOBDIR, Redis)."""
        return f"{key}{self.store_suffix}"

    def hold_key(self, key: Hashable) -> HoldKey:
        """What requests waiting for ``key``'s document are held under."""
        return HoldKey(self.name, key)

    def stand_in(self, allow: bool) -> D:
        """:attr:`absent` (``allow``) or :attr:`unreachable`."""
        return self.absent if allow else self.unreachable

    def verdict_of(self, document: D) -> bool | None:
        """``True``/``False``: ``document`` is the absent/unreachable stand-in (what a record
        without a body stands for); ``None``: a parsed document, its body says it all."""
        if document is self.absent:
            return True
        if document is self.unreachable:
            return False
        return None

    def parsed_with(
        self, parse: Callable[[bytes], D], parse_cut: Callable[[bytes], D] | None = None
    ) -> DocumentKind[D]:
        """The same kind with another parser (the crawl's profile, a counting wrapper),
        and another one for a cut body (``None``: the kind's own)."""
        return replace(self, parse=parse, parse_cut=parse_cut or self.parse_cut)

    # ------------------------------------------------------------------ shared records

    def record_of(
        self,
        key: Hashable,
        entry: CacheEntry[D] | None,
        failures: int,
        failing_since: float | None,
        retry_at: float,
        last_outcome: str,
        now: float,
    ) -> SharedRecord:
        """The shared record of ``key``: its usable entry and failure schedule, or the
        schedule alone while it is failing with nothing usable."""
        origin = self.store_name(key)
        if entry is None:
            return SharedRecord(
                origin, b"", False, None, last_outcome, now, 0.0, 0.0, False,
                failures, failing_since, retry_at,
            )  # fmt: skip
        return SharedRecord(
            origin,
            entry.body_zlib,
            self.verdict_of(entry.rules) if not entry.body_zlib else None,
            entry.status,
            entry.outcome,
            entry.fetched_at,
            entry.fresh_until,
            entry.stale_until,
            entry.unreachable,
            failures,
            failing_since,
            retry_at if failures else 0.0,
            entry.truncated,
        )

    def entry_of(self, record: SharedRecord) -> CacheEntry[D]:
        """A cache entry from a shared record: its body inflated to 500 KiB at most whatever
        the record says and read (as cut if the download cut it), or the allow/disallow-all
        stand-in (raises ``StoreCorrupt`` if it is wrong)."""
        body = b""
        if record.body_zlib:
            try:
                body = zlib.decompressobj().decompress(record.body_zlib, MAX_BODY_BYTES)
            except zlib.error as error:
                raise StoreCorrupt(f"body does not inflate: {error}") from None
            rules = self.read(body, record.truncated is True)
        else:
            rules = self.stand_in(record.verdict is True)
        return CacheEntry(
            rules,
            record.outcome,
            record.fetched_at,
            record.fresh_until,
            record.stale_until,
            record.status,
            record.body_zlib,
            record.unreachable,
            self.size_of(rules, body) + len(record.body_zlib),
            hashlib.sha256(body).hexdigest() if record.body_zlib else "",
            truncated=record.truncated is True and bool(record.body_zlib),
        )


def robots_size(rules: Any, body: bytes) -> int:
    """Bytes a parsed robots.txt keeps in memory: 2 KiB plus 6 per body byte. Measured
    with tracemalloc on the corpus (parse plus one check): the median file (347 bytes)
    keeps 4.0 KB, the largest (500 KiB of rules) 2.0 MB; the estimate's median error is
    2 %, and it is low by at most 2.6× (rule-heavy files)."""
    return 2048 + 6 * len(body)


def tdmrep_size(tdm: TdmRepFile, body: bytes) -> int:
    """Bytes a parsed tdmrep.json keeps in memory: 1 KiB, and per entry 384 bytes plus
    twice its location (its text and its pattern) and its policy, 64 more for a wildcard,
    and 160 plus a location per further variant of a pattern (dangling escapes).
    Measured with tracemalloc (parse plus one lookup): 500 KiB of short entries (11,371)
    keeps 3.7 MB, 7.2 bytes per body byte (the body's size counted 0.5 MB), and 500 KiB
    of escaped wildcard locations 9.6 MB; on 500 KiB files of short, long, wildcard and
    escaped locations, with and without policies, the estimate is never low and high by
    at most 22 %."""
    entries = tdm.entries
    locations = sum(len(entry.location) for entry in entries)
    size = 1024 + 384 * len(entries) + 2 * locations
    size += sum(len(entry.policy or "") + 64 * ("*" in entry.location) for entry in entries)
    variants = tdm.rules - len(entries)
    if variants:
        size += variants * (160 + locations // len(entries))
    return size


#: robots.txt (RFC 9309): absent means everything allowed (§2.3.1.3), unreachable
#: everything disallowed (§2.3.1.4). Parsed with the default profile: a crawl gives it
#: its own with :meth:`DocumentKind.parsed_with`.
ROBOTS_TXT: DocumentKind[RobotsTxt] = DocumentKind(
    name="robots.txt",
    path="/robots.txt",
    when_absent="everything allowed",
    when_unreachable="temporarily everything disallowed",
    stat_prefix="rep/robotstxt",
    absent=ALLOW_ALL,
    unreachable=DISALLOW_ALL,
    parse=parse_robotstxt,
    size_of=robots_size,
    # A cut file reads no part of a line that could allow (docs/decisions.md, 'A cut
    # robots.txt reads no part of a line that could allow').
    parse_cut=partial(parse_robotstxt, truncated=True),
    plain=RobotsTxt.plain,
    unplain=unplain_robotstxt,
)

#: W3C TDMRep's file (report §3.1), fetched for AI purposes (``REP_PURPOSE``): "Failure
#: to provide access to such a representation implies that the origin server does not
#: implement this protocol", so a 4xx means no reservation; an unreachable file given up
#: on is taken as "everything reserved" (the reading that loses no "no"), and so is a
#: file another component kept the crawl from reading (``ignored_gives_up``).
TDMREP: DocumentKind[TdmRepFile] = DocumentKind(
    name="tdmrep.json",
    path=WELL_KNOWN_PATH,
    when_absent="no TDM reservation",
    when_unreachable="TDM rights taken as reserved for now",
    stat_prefix="rep/tdmrep",
    absent=NO_FILE,
    unreachable=RESERVED_ALL,
    parse=parse_tdmrep,
    size_of=tdmrep_size,
    store_suffix=WELL_KNOWN_PATH,
    record="tdmrep",
    ignored_gives_up=True,
    # A cut file keeps the entries wholly inside the cut (purpose notes, choice 8).
    parse_cut=partial(parse_tdmrep, truncated=True),
)
