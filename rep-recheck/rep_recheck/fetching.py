"""What a recheck asks its crawl to fetch and what it gets back (pure: the crawl is
handed in, :data:`Fetcher`): the dataset's first pass (its origins, and their URLs for
``--pages``), the request, the result, the progress lines of a long run, and a WARC's
documents completed by what was fetched now (``--fetch-missing``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final, TextIO

from rep_engine.urls.origins import Origin, origin_of
from rep_engine.verdict.decide import TDM
from rep_engine.verdict.page import PageStatements
from rep_recheck.datasets import Dataset
from rep_recheck.documents import OriginDocuments
from rep_recheck.names import PARSED_ORIGINS, Numbered, names_held
from rep_recheck.store import DocumentStore
from rep_recheck.warc import WarcDocuments

#: Seconds between two progress lines, and before the first.
PROGRESS_EVERY: Final = 2.0
#: How long a recheck's crawl waits for a document that does not answer (a 5xx, a 429, a
#: network error) before it gives up, unless ``REP_UNREACHABLE_MAX_WAIT`` is set: a crawl
#: waits 600 s for requests it means to send, but a recheck's items are removed either way:
#: refused by a robots.txt given up on (RFC 9309 §2.3.1.4), unknown for another document
#: (kept with --keep-unknown).
RECHECK_MAX_WAIT: Final = 60.0


@dataclass(frozen=True)
class PageRead:
    """A page fetched again (``--pages``): what it says, as the crawl's page pass reads it."""

    statements: PageStatements
    image: bool = False
    #: When it was fetched (POSIX seconds).
    time: float = 0.0


@dataclass(frozen=True)
class PaymentAsked:
    """A page fetched again (``--pages``) that answered 402 Payment Required: what it said
    of its price (``crawler-price``, ``crawler-error``: a record's ``payment`` part), and
    when."""

    payment: dict[str, str]
    time: float = 0.0


#: A page fetched again (``--pages``): what it says, the price it asked, or why it could
#: not be fetched.
PageAgain = PageRead | PaymentAsked | str


@dataclass(frozen=True)
class FetchRequest:
    """What a recheck asks a crawl to fetch."""

    #: The origins (``https://a.example``) whose documents are fetched, in the dataset's
    #: order (:class:`~rep_recheck.names.Numbered`: at most
    #: ``REP_RECHECK_PARSED_ORIGINS`` of them in memory, the others in an SQLite file).
    origins: Collection[str]
    #: The settings of the crawl (the ``REP_*`` ones, ``USER_AGENT``, ``ROBOTSTXT_*``…).
    settings: dict[str, Any]
    #: The URLs whose pages are fetched again (``--pages``).
    pages: list[str] = field(default_factory=list)
    #: The crawler names robots.txt's License lines are read for (its held names).
    names: tuple[str, ...] = ()
    #: The tokens a page's scoped statements are read for, and whether TDMRep's meta
    #: tags are read too (an AI purpose).
    tokens: tuple[str, ...] = ()
    ai: bool = False
    #: Where the crawl's progress lines go (``None``: nowhere, ``--no-progress``).
    progress: TextIO | None = None
    #: The kinds of document not fetched: not consulted (``--consult``).
    not_consulted: tuple[str, ...] = ()


@dataclass
class FetchResult:
    """What the crawl fetched."""

    #: Each origin's documents, by origin (``https://a.example``): kept compact, a
    #: bounded number of them parsed (:class:`~rep_recheck.store.DocumentStore`).
    documents: MutableMapping[str, OriginDocuments] = field(default_factory=DocumentStore)
    #: Each page fetched again, the price it asked, or why it could not be fetched.
    pages: dict[str, PageAgain] = field(default_factory=dict)
    #: Document downloads made (one per document: a counter).
    downloads: int = 0
    #: Why the crawl stopped before its end (Scrapy's close reason; ``""``: it
    #: finished): the documents of some origins were never asked for.
    interrupted: str = ""
    #: What stopped the crawl that the recheck cannot go on from (the store's temporary
    #: file on a full disk): raised when its documents are taken.
    error: BaseException | None = None

    def documents_of(self, origin: Any) -> OriginDocuments | None:
        """An origin's documents (``None``: none had)."""
        return self.documents.get(str(origin))


#: Fetches the documents (and pages) a recheck needs: a Scrapy crawl.
Fetcher = Callable[[FetchRequest], FetchResult]


def fetch_progress(
    done: int,
    total: int,
    waiting: Mapping[str, tuple[str, float]],
    max_wait: float,
    now: float,
    connect_max_wait: float | None = None,
) -> str:
    """The crawl's progress line: the origins done, and those waiting (for
    :data:`PROGRESS_EVERY` seconds or more) on a document that does not answer yet, by
    kind, until when at the latest (each is given up on ``max_wait`` seconds after it
    started), the shorter wait of a host that cannot be connected to
    (``connect_max_wait``, which comes first: :meth:`~rep_engine.fetch.rules.Policy.
    wait_limit`), and the setting that shortens it. ``waiting``: origin -> (the kind of
    document it waits for, when it started waiting, POSIX seconds)."""
    line = f"recheck: fetching: {done:,} of {total:,} origin(s) done"
    slow = [(kind, since) for kind, since in waiting.values() if now - since >= PROGRESS_EVERY]
    if not slow:
        return line
    kinds = Counter(kind for kind, _ in slow)
    on = ", ".join(f"{kind} ({count:,})" for kind, count in sorted(kinds.items()))
    until = datetime.fromtimestamp(max(since for _, since in slow) + max_wait, timezone.utc)
    sooner = ""
    if connect_max_wait is not None and connect_max_wait < max_wait:
        sooner = (f" ({connect_max_wait:,.0f} s when its host cannot be connected to: "
                  "REP_UNREACHABLE_CONNECT_MAX_WAIT)")  # fmt: skip
    return (f"{line}; {len(slow):,} waiting on a document that does not answer yet: {on}; "
            f"each given up on after {max_wait:,.0f} s{sooner}, by about {until:%H:%M:%S} "
            "UTC at the latest (a lower REP_UNREACHABLE_MAX_WAIT shortens it; a robots.txt "
            "given up on refuses its origin's items)")  # fmt: skip


class Progress:
    """A progress line on standard error every :data:`PROGRESS_EVERY` seconds of a long
    run: items read, origins resolved, rate, time left (when the total is known)."""

    def __init__(self, err: TextIO | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.err = err
        self.clock = clock
        self.start = self.last = clock()
        self.total = 0

    def begin(self) -> None:
        """The items start being decided: the rate counts the work from now, not the
        fetch before it (minutes waiting on origins that do not answer)."""
        self.start = self.last = self.clock()

    def reading(self, items: int, origins: int) -> None:
        """The dataset's first pass: items read so far, origins found."""
        if self.err is None or self.clock() - self.last < PROGRESS_EVERY:
            return
        self.last = self.clock()
        print(f"recheck: reading the dataset: {items:,} items read, {origins:,} origins "
              "found", file=self.err, flush=True)  # fmt: skip

    def step(self, text: str) -> None:
        """``recheck: TEXT`` (a step of a recheck grouped by origin: the items grouped,
        then written in the dataset's order)."""
        if self.err is None or self.clock() - self.last < PROGRESS_EVERY:
            return
        self.last = self.clock()
        print(f"recheck: {text}", file=self.err, flush=True)

    def tick(self, items: int, origins: int) -> None:
        if self.err is None:
            return
        now = self.clock()
        if now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        rate = items / max(now - self.start, 1e-9)
        left = ""
        if self.total and rate:
            left = f", about {max(0.0, (self.total - items) / rate):,.0f} s left"
        print(f"recheck: {items:,} items read, {origins:,} origins resolved, "
              f"{rate:,.0f} items/s{left}", file=self.err, flush=True)  # fmt: skip


class Completed:
    """A WARC's documents, completed by what was fetched now where it lacks them
    (``--fetch-missing``): an origin not captured is the crawl's; a tdmrep.json not
    captured is the crawl's, beside the captured robots.txt."""

    def __init__(self, warc: WarcDocuments, fetched: FetchResult) -> None:
        self.warc = warc
        self.fetched = fetched
        #: Origins whose tdmrep.json was filled in from the fetch (each once).
        self.filled = 0

    def __call__(self, origin: Origin) -> OriginDocuments | None:
        captured = self.warc(origin)
        now = self.fetched.documents_of(origin)
        if captured is None or now is None:
            return captured if captured is not None else now
        tdm = now.known(TDM, origin)
        if captured.known(TDM, origin) is None and tdm is not None:
            captured.add(TDM, origin, tdm)
            captured.missing.pop(TDM, None)
            self.filled += self.warc.first_time
        return captured


def origin_named(name: str) -> Origin:
    """The origin named ``name`` (``https://a.example``, as :func:`origins_of` names it)."""
    origin = origin_of(f"{name}/")
    assert origin is not None  # the names of origins _origins found
    return origin


@dataclass(frozen=True)
class FirstPass:
    """What the dataset's first pass found."""

    #: Its origins, in order, each once (:class:`~rep_recheck.names.Numbered`).
    origins: Numbered
    #: Its items' URLs, each once (``--pages``; else none).
    pages: list[str]
    #: Its items.
    total: int
    #: How many times its items, decided in the dataset's order, would make an origin's
    #: documents again (asked for anew after they were let go), the origins held as a
    #: :class:`~rep_recheck.rechecker.Rechecker` holds them: ``held`` at most, then
    #: none (a recheck groups them by origin first when these are many:
    #: :mod:`~rep_recheck.grouping`).
    again: int = 0


def origins_of(
    datasets: Sequence[Dataset],
    pages: bool,
    progress: Progress | None = None,
    held: int = PARSED_ORIGINS,
) -> FirstPass:
    """The first pass: the origins of every shard (and their URLs, for ``--pages``), in
    order, each once (at most ``held`` of them in memory, the others in an SQLite file),
    how many items they have (``progress``: a line while it reads), and how many times
    deciding them in order would make their origins again."""
    origins = Numbered(names_held(held))
    urls: dict[str, None] = {}
    total = asked = 0
    window: set[str] = set()  # the origins a Rechecker would hold
    chunks = (chunk for dataset in datasets for chunk in dataset.chunks(rows=False))
    for chunk in chunks:
        names = []
        for item in chunk.items:
            total += 1
            if item.problem:
                continue
            origin = origin_of(item.url)
            if origin is not None:
                name = str(origin)
                names.append(name)
                if name not in window:
                    asked += 1
                    if len(window) >= held:
                        window.clear()
                    window.add(name)
                if pages:
                    urls[item.url] = None
        origins.met(names)  # beyond `held` origins: looked up together, not one an item
        if progress is not None:
            progress.reading(total, len(origins))
    return FirstPass(origins, list(urls), total, asked - len(origins))
