"""Page-level RSL licenses (docs/purpose-notes.md §9, 'Page-level licenses'), for the spider
middleware's page pass.

A page names licenses in a ``Link: <…>; rel="license"; type="application/rsl+xml"``
header or an HTML ``<link rel="license" …>``, or holds one inline (``<script
type="application/rsl+xml">``); a named license is the crawl's RSL document of that URL
(the downloader middleware's, which it keeps for robots.txt's ``License:`` lines), taken
from its cache when known, else awaited (fetched once per URL). Their signals join the
page's own, so its items are dropped or marked as for page-level ``Content-Usage``. Read
only in crawls that read RSL licenses (``REP_PURPOSE`` set).

As for robots.txt (docs/decisions.md, 'At most REP_RSL_MAX_LICENSES licenses are read
per robots.txt'): a page naming more than ``REP_RSL_MAX_LICENSES`` has none fetched and
their stand-in, "licenses not read", refuses every purpose; up to the bound, every
license not known is asked for at once (each host's fetches bounded by Scrapy's download
slots, all by ``REP_ROBOTSTXT_CONCURRENCY``), and the page is decided as soon as one known
refuses a purpose of the crawl, without waiting for the others.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Final

from scrapy.http import TextResponse
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from rep_engine.fetch.rsl_kind import RSL, license_key, licenses_not_read
from rep_engine.usage.purpose import usage_decision
from rep_engine.usage.rsl.discovery import (
    NO_LICENSES,
    PageLicenses,
    link_header_licenses,
    page_licenses,
)
from rep_engine.usage.rsl.document import PAGE_NAMES
from rep_engine.usage.rsl.terms import licenses_signals, owned_licenses
from scrapy_rep.crawl.auditing import ledger_of
from scrapy_rep.crawl.requests.downloadermiddlewares import OWNERS
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from rep_engine.fetch.cache import CacheEntry
    from rep_engine.settings import RepConfig
    from rep_engine.usage.purpose import UsageSignal
    from rep_engine.usage.rsl.document import RslDocument
    from rep_engine.verdict.policy import UsagePolicy
    from scrapy_rep.crawl.documents.documents import OriginDocument

logger = logging.getLogger(__name__)
#: A page that does not contain it names no RSL license in its HTML (no copy of the body).
_RSL_XML: Final = re.compile(rb"rsl\+xml", re.IGNORECASE)

#: Each license a page names, by URL: its entry (``None``: not known when the spider closed,
#: or there was no request to fetch it for: read as given up on).
Entries = dict[str, "CacheEntry[RslDocument] | None"]


class PageLicenseReader:
    """The signals of the RSL licenses a page names or holds."""

    def __init__(self, crawler: Crawler, config: RepConfig, policy: UsagePolicy) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self._owned = owned_licenses(config.rsl_licenses)
        #: ``REP_RSL_MAX_LICENSES``: the most licenses read per page.
        self._max_licenses = config.rsl_max_licenses
        #: The crawl's purposes: a license known that refuses one decides the page.
        self._policy = policy
        self._document: OriginDocument[RslDocument] | None = None
        self._looked_up = False

    def document(self) -> OriginDocument[RslDocument] | None:
        """The crawl's RSL document (``None``: the crawl reads no RSL licenses)."""
        if not self._looked_up:
            owner = OWNERS.get(self.crawler)  # the downloader middleware's, if RSL is read
            self._document = None if owner is None else owner.documents.get(RSL.name)
            self._looked_up = True
        return self._document

    def found(self, response: Response) -> PageLicenses:
        """What ``response`` names (``NO_LICENSES`` for most pages: a byte search first)."""
        if self.document() is None:
            return NO_LICENSES
        urls = link_header_licenses(response.headers.getlist(b"Link"), response.url)
        page = NO_LICENSES
        if isinstance(response, TextResponse) and _RSL_XML.search(response.body):
            page = page_licenses(response.text, response.url)
        if not urls and page is NO_LICENSES:
            return NO_LICENSES
        keys = (license_key(url) for url in (*urls, *page.urls))
        named = tuple(dict.fromkeys(key for key in keys if key is not None))
        return PageLicenses(named, page.inline)

    def known_now(self, response: Response) -> tuple[UsageSignal, ...]:
        """The signals with what is cached now; a license not known yet counts as one
        given up on (no AI use: the reading that loses no "no"). For Scrapy's sync path."""
        found, said = self._bounded(response)
        if said is not None:
            return said
        document = self.document()
        assert document is not None
        entries: Entries = {}
        for url in found.urls:
            entries[url] = entry = document.usable_entry(url)
            if entry is None:
                inc(self.stats, "rep/rsl/page_license_not_known")
        return self._of_entries(response, found, entries)

    async def signals(self, response: Response) -> tuple[UsageSignal, ...]:
        """The signals, the named licenses not known yet awaited together through the
        crawl's RSL document, until one known refuses a purpose of the crawl."""
        found, said = self._bounded(response)
        if said is not None:
            return said
        return self._of_entries(response, found, await self._entries(found, response))

    def _bounded(self, response: Response) -> tuple[PageLicenses, tuple[UsageSignal, ...] | None]:
        """What ``response`` names, and its signals when no entry is needed: none for no
        license, those of the stand-in that refuses every purpose for too many."""
        found = self.found(response)
        if found is NO_LICENSES:
            return found, ()
        beyond = licenses_not_read(found.urls, self._max_licenses, PAGE_NAMES)
        return found, None if beyond is None else self._signals(response, found, [beyond])

    def _of_entries(
        self, response: Response, found: PageLicenses, entries: Entries
    ) -> tuple[UsageSignal, ...]:
        """The signals of the licenses' ``entries`` (``None``: given up on)."""
        pairs = [
            (url, RSL.unreachable if entry is None else self._used(url, entry, response))
            for url, entry in entries.items()
        ]
        return self._signals(response, found, pairs)

    async def _entries(self, found: PageLicenses, response: Response) -> Entries:
        """The entries of the licenses ``found`` names, in its order: those known now, and
        the others asked for at once, awaited until every one is known or a known one (or
        an inline license) refuses a purpose of the crawl (the others then left out)."""
        document = self.document()
        assert document is not None
        entries: Entries = {}
        waiting: list[str] = []
        for url in found.urls:
            entry = document.usable_entry(url)
            if entry is None:
                waiting.append(url)
            else:
                entries[url] = entry
        request = response.request
        if request is None:  # nothing to fetch them for: those not known are given up on
            return {url: entries.get(url) for url in found.urls}
        page_url = response.url  # the callbacks below keep no response alive
        if not waiting or self._refuses(page_url, found, entries):
            return entries
        decided: Deferred[Entries] = Deferred()

        def known(result: CacheEntry[RslDocument] | Failure | None, url: str) -> None:
            if isinstance(result, Failure):  # a bug of ours: read as given up on
                logger.error(
                    "scrapy_rep internal error; please report it",
                    exc_info=result.value,
                    extra={"spider": self.crawler.spider},
                )
                result = None
            if decided.called:
                return
            entries[url] = result
            waiting.remove(url)
            try:
                done = not waiting or self._refuses(page_url, found, entries)
            except Exception as error:  # a bug of ours: the page pass says so (PageState.failed)
                decided.errback(error)
                return
            if done:
                decided.callback({url: entries[url] for url in found.urls if url in entries})

        for url in tuple(waiting):  # every fetch starts before any is awaited
            if decided.called:
                break
            deferred_from_coro(document.when_known(url, request)).addBoth(known, url)
        return await maybe_deferred_to_future(decided)

    def _refuses(self, page_url: str, found: PageLicenses, entries: Entries) -> bool:
        """Whether the licenses known (``entries``) or held inline say no to a purpose of
        the crawl (read without a trail record: :meth:`_used` records those used)."""
        pairs = [(url, RSL.unreachable if e is None else e.rules) for url, e in entries.items()]
        signals = self._licenses_signals(page_url, found, pairs)
        return self._policy.refusal(usage_decision(signals), final=False) is not None

    def _signals(
        self, response: Response, found: PageLicenses, pairs: list[tuple[str, RslDocument]]
    ) -> tuple[UsageSignal, ...]:
        inc(self.stats, "rep/rsl/pages_with_licenses")
        return self._licenses_signals(response.url, found, pairs)

    def _licenses_signals(
        self, page_url: str, found: PageLicenses, pairs: list[tuple[str, RslDocument]]
    ) -> tuple[UsageSignal, ...]:
        """The signals of the named licenses (``pairs``) and those the page holds inline."""
        inline = [(f"{page_url} (inline)", document) for document in found.inline]
        return licenses_signals([*pairs, *inline], page_url, self._owned)

    def _used(self, url: str, entry: CacheEntry[RslDocument], response: Response) -> RslDocument:
        ledger = ledger_of(self.crawler)
        if ledger is not None:
            ledger.license_used(url, entry, response.request)
        return entry.rules
