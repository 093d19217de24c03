"""Page-level RSL licenses (docs/purpose-notes.md §9, 'Page-level licenses'), for the spider
middleware's page pass.

A page names licenses in a ``Link: <…>; rel="license"; type="application/rsl+xml"``
header or an HTML ``<link rel="license" type="application/rsl+xml">``, or holds one
inline (``<script type="application/rsl+xml">``). A named license is the crawl's RSL
document of that URL (:class:`~scrapy_rep.crawl.documents.documents.OriginDocument`, the one the
downloader middleware keeps for robots.txt's ``License:`` lines): taken from its cache
when known, else awaited (fetched once per URL, as a held request would be). Their
signals join the page's own, so its items are dropped or marked as for page-level
``Content-Usage``. Read only in crawls that read RSL licenses (``REP_PURPOSE`` set).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Final

from scrapy.exceptions import IgnoreRequest
from scrapy.http import TextResponse

from scrapy_rep.crawl.auditing import trail_of
from scrapy_rep.crawl.requests.owners import owner_of
from scrapy_rep.crawl.stats import inc
from scrapy_rep.fetch.rsl_kind import RSL, license_key
from scrapy_rep.usage.rsl.discovery import (
    NO_LICENSES,
    PageLicenses,
    link_header_licenses,
    page_licenses,
)
from scrapy_rep.usage.rsl.terms import held_licenses, licenses_signals

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from scrapy_rep.crawl.documents.documents import OriginDocument
    from scrapy_rep.fetch.cache import CacheEntry
    from scrapy_rep.settings import RepConfig
    from scrapy_rep.usage.purpose import UsageSignal
    from scrapy_rep.usage.rsl.document import RslDocument

logger = logging.getLogger(__name__)
#: A page that does not contain it names no RSL license in its HTML (no copy of the body).
_RSL_XML: Final = re.compile(rb"rsl\+xml", re.IGNORECASE)


class PageLicenseReader:
    """The signals of the RSL licenses a page names or holds."""

    def __init__(self, crawler: Crawler, config: RepConfig) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self._held = held_licenses(config.rsl_licenses)
        self._document: OriginDocument[RslDocument] | None = None
        self._looked_up = False

    def document(self) -> OriginDocument[RslDocument] | None:
        """The crawl's RSL document (``None``: the crawl reads no RSL licenses)."""
        if not self._looked_up:
            self._document, self._looked_up = _rsl_document(self.crawler), True
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
        found = self.found(response)
        if found is NO_LICENSES:
            return ()
        document = self.document()
        assert document is not None
        pairs = []
        for url in found.urls:
            entry = document.usable_entry(url)
            if entry is None:
                inc(self.stats, "rep/rsl/page_license_not_known")
            pairs.append(
                (url, RSL.unreachable if entry is None else self._used(url, entry, response))
            )
        return self._signals(response, found, pairs)

    async def signals(self, response: Response) -> tuple[UsageSignal, ...]:
        """The signals, each named license awaited through the crawl's RSL document."""
        found = self.found(response)
        if found is NO_LICENSES:
            return ()
        document = self.document()
        assert document is not None
        pairs = []
        for url in found.urls:
            entry = document.usable_entry(url)
            if entry is None and response.request is not None:
                try:
                    entry = await document.wait(url, response.request)
                except IgnoreRequest:  # the spider closed first
                    entry = None
            pairs.append(
                (url, RSL.unreachable if entry is None else self._used(url, entry, response))
            )
        return self._signals(response, found, pairs)

    def _signals(
        self, response: Response, found: PageLicenses, pairs: list[tuple[str, RslDocument]]
    ) -> tuple[UsageSignal, ...]:
        inc(self.stats, "rep/rsl/pages_with_licenses")
        inline = [(f"{response.url} (inline)", document) for document in found.inline]
        return licenses_signals([*pairs, *inline], response.url, self._held)

    def _used(self, url: str, entry: CacheEntry[RslDocument], response: Response) -> RslDocument:
        trail = trail_of(self.crawler)
        if trail is not None:
            trail.license_used(url, entry, response.request)
        return entry.rules


def _rsl_document(crawler: Crawler) -> OriginDocument[RslDocument] | None:
    """The downloader middleware's RSL document, if the crawl reads RSL licenses."""
    owner = owner_of(crawler)
    if owner is None:
        return None
    found: OriginDocument[RslDocument] | None = owner.documents.get(RSL.name)
    return found
