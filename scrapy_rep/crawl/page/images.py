"""``noimageai`` on a page covers its images (the Scrapy side of
:mod:`rep_engine.usage.imageusage`; docs/decisions.md, 'A page's noimageai covers the images
it shows').

For a page whose directives say ``noimageai`` (for this crawler), from the callback's
output: a request for an image of the page (an ``<img>`` / ``<picture>`` source of it, a
URL an item of the page carries, or a URL with an image extension) is refused when the
crawl has an AI purpose and ``REP_PURPOSE_ACTION = "drop"``, else it carries the record in
``request.meta["rep_image_usage"]`` for the image's own decision; an item's
``IMAGES_URLS_FIELD`` (every URL) and ``FILES_URLS_FIELD`` (the image URLs) lose those
URLs under ``"drop"``, so Scrapy's ImagesPipeline and FilesPipeline never download or
store them, each a refusal the performer counts, signals and the trail records (the
request the pipeline never sends), and the item gets ``rep_image_usage`` (the record and
the URLs). A crawl
without an AI purpose under ``"drop"`` changes nothing (noimageai says nothing about
search); under ``"mark"`` every crawl marks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.http import TextResponse
from w3lib.url import canonicalize_url

from rep_engine.records import Reason
from rep_engine.usage.imageusage import (
    IMAGE_PURPOSES,
    IMAGE_USAGE_KEY,
    INDEX_IMAGE_PURPOSES,
    for_item,
    for_request,
    is_image_url,
    page_record,
)
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.page import PAGE
from scrapy_rep.crawl.config import config_of
from scrapy_rep.crawl.pages import NOT_READ
from scrapy_rep.crawl.refusals import refuse_file_url
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from rep_engine.verdict.page import PageVerdict
    from scrapy_rep.crawl.page.pagestate import PageState
    from scrapy_rep.crawl.pages import Page

#: The attributes of a page that name one image, and those that list candidates.
_SRC_XPATH = "//img/@src | //img/@data-src | //input[@type='image']/@src"
_SRCSET_XPATH = "//img/@srcset | //picture/source/@srcset"

#: How a refused image request is performed: the request, the page, its verdict, what said
#: it; the request to pass on (one the engine drops as it drops any), or ``None``.
Refuse = Callable[["Request", "Response", "Refused", str], "Request | None"]


@dataclass(slots=True, eq=False)
class _Page:
    """A noimageai page: its record, its images' canonical URLs, the crawl's purposes its
    directive refuses them for (none: marked) and the crawler name whose directives said it."""

    record: dict[str, Any]
    images: set[str]
    refused: tuple[str, ...]
    agent: str


class ImageGate:
    """Refuses or marks the images of ``noimageai`` pages (see the module docstring)."""

    def __init__(
        self,
        crawler: Crawler,
        purposes: tuple[str, ...],
        mark: bool,
        refuse: Refuse,
        pages: PageState,
    ) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        settings = crawler.settings
        self.fields = (
            settings.get("IMAGES_URLS_FIELD") or "image_urls",
            settings.get("FILES_URLS_FIELD") or "file_urls",
        )
        #: A page's noimageindex covers its images too (``REP_MEDIA_NOINDEX_MEANS_NO_AI``).
        self.noimageindex = config_of(crawler).media_noindex_means_no_ai
        said = set(IMAGE_PURPOSES) | (set(INDEX_IMAGE_PURPOSES) if self.noimageindex else set())
        #: The crawl's purposes a page's noimageai (noimageindex) may refuse (none: mark).
        self.refused = () if mark else tuple(p for p in purposes if p in said)
        #: Whether anything is done (a search crawl under "drop" does nothing).
        self.active = mark or bool(self.refused)
        self._refuse = refuse
        #: What the page pass knows of each response (its images are kept there).
        self._pages = pages

    def page(
        self, response: Response, verdict: PageVerdict, known: Page | None = None
    ) -> _Page | None:
        """The noimageai page ``response`` is (``None``: not one), read once (``known``:
        what the page pass knows of it, when the caller has it)."""
        if not self.active:
            return None
        directives = verdict.directives
        if directives.noimageai:
            word, purposes = "noimageai", IMAGE_PURPOSES
        elif directives.noimageindex and self.noimageindex:
            word, purposes = "noimageindex", INDEX_IMAGE_PURPOSES
        else:
            return None
        if known is None:
            known = self._pages.page_of(response)
        if known.images is not NOT_READ:
            return known.images  # type: ignore[return-value]
        source = next(
            (s for s in directives.sources if word in s.lower()), f"robots directive {word}"
        )
        record = page_record(response.url, source, purposes)
        refused = tuple(p for p in self.refused if p in purposes)
        page = _Page(record, _page_images(response), refused, verdict.agent)
        known.images = page
        return page

    def request(self, request: Request, response: Response, page: _Page) -> Request | None:
        """A request yielded by a noimageai page: refused, marked, or as it was."""
        url = request.url
        if not self._is_image(url, page):
            return request
        if page.refused:
            return self._refuse(request, response, _refusal(page), page.record["source"])
        inc(self.stats, "rep/purpose/images_marked")
        request.meta[IMAGE_USAGE_KEY] = for_request(page.record, url)
        return request

    def item(self, item: Any, response: Response, page: _Page) -> Any:
        """An item of the noimageai page ``response``: its image URLs refused (taken out of
        it, each a refusal the performer counts, says and records) or marked."""
        adapter = ItemAdapter(item)
        covered: list[str] = []
        for index, name in enumerate(self.fields):
            urls = adapter.get(name) if name in adapter else None
            if not isinstance(urls, (list, tuple)) or not urls:
                continue
            images = [
                u for u in urls if isinstance(u, str) and (index == 0 or self._is_image(u, page))
            ]
            page.images.update(canonicalize_url(u) for u in images)
            covered.extend(images)
            if images and page.refused:
                adapter[name] = [u for u in urls if u not in images]
        if not covered:
            return item
        if page.refused:
            refused, source = _refusal(page), page.record["source"]
            for url in covered:
                refuse_file_url(self.crawler, url, refused, response, source)
        try:
            adapter[IMAGE_USAGE_KEY] = for_item(page.record, covered)
        except (KeyError, TypeError):  # an item class without that field
            inc(self.stats, "rep/purpose/items_not_marked")
        return item

    @staticmethod
    def _is_image(url: str, page: _Page) -> bool:
        return is_image_url(url) or canonicalize_url(url) in page.images


def _refusal(page: _Page) -> Refused:
    """The refusal of an image of a noimageai ``page``, for the first purpose of the crawl
    its directive refuses."""
    purpose = page.refused[0]
    message = f"Not fetched: {purpose} denied by {page.record['source']} (an image of it)"
    return Refused(Reason.PURPOSE, message, PAGE, page.agent, purpose=purpose)


def _page_images(response: Response) -> set[str]:
    """The canonical URLs of the images an HTML page shows (``src``, each ``srcset``
    candidate); none for a response that is not text."""
    if not isinstance(response, TextResponse):
        return set()
    urls = [value.strip() for value in response.xpath(_SRC_XPATH).getall()]
    for value in response.xpath(_SRCSET_XPATH).getall():
        urls.extend(_srcset_urls(value))
    found: set[str] = set()
    for url in urls:
        try:
            found.add(canonicalize_url(response.urljoin(url)))
        except ValueError:
            continue
    return found


def _srcset_urls(value: str) -> list[str]:
    """The URLs of a ``srcset`` (HTML "parse a srcset attribute": a URL may hold commas;
    one that ends with commas has no descriptors)."""
    urls: list[str] = []
    index, end = 0, len(value)
    while index < end:
        while index < end and (value[index].isspace() or value[index] == ","):
            index += 1
        start = index
        while index < end and not value[index].isspace():
            index += 1
        url = value[start:index]
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            while index < end and value[index] != ",":  # the descriptors
                index += 1
        if url:
            urls.append(url)
    return urls
