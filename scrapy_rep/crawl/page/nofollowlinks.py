"""A page's ``rel="nofollow"`` links (SPEC §6): the URLs it links to only with ``rel``
containing ``nofollow``, read with Scrapy's selector (only on pages that mention
"nofollow" at all). The link gate drops the requests to them; the page's meta tags are
read by :mod:`scrapy_rep.crawl.page.pagereader`."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urljoin

from scrapy.http import HtmlResponse, Response
from scrapy.utils.response import get_base_url
from w3lib.url import canonicalize_url

from scrapy_rep.crawl.page.pagereader import attribute_of

#: The page reader's logger, as before the links were read apart from the meta tags.
logger = logging.getLogger("scrapy_rep.crawl.page.pagereader")

#: A cheap hint that a page may have a rel="nofollow" link.
_NOFOLLOW_HINT = re.compile(rb"nofollow", re.IGNORECASE)


def may_link_nofollow(response: Response) -> bool:
    """Whether the page may have a ``rel="nofollow"`` link (it mentions "nofollow")."""
    return isinstance(response, HtmlResponse) and _NOFOLLOW_HINT.search(response.body) is not None


def rel_nofollow_targets(response: Response) -> frozenset[str]:
    """The URLs (canonicalised) the page links to only with ``rel`` containing ``nofollow``
    (SPEC §6; ``ugc`` and ``sponsored`` alone are followed); parses only pages that mention it."""
    if not (isinstance(response, HtmlResponse) and may_link_nofollow(response)):
        return frozenset()
    base = _base_url(response)
    nofollow: set[str] = set()
    followed: set[str] = set()
    for link in _links(response):
        url = _absolute(base, attribute_of(link, "href"))
        if url is not None:
            rel = attribute_of(link, "rel").lower().split()
            (nofollow if "nofollow" in rel else followed).add(url)
    return frozenset(nofollow - followed)


def _links(response: HtmlResponse) -> list[Any]:
    """The page's ``<a href>`` and ``<area href>`` elements; none if Scrapy's selector
    rejects the page (it raises on a broken ``<base href>``)."""
    try:
        return list(response.xpath("//a[@href]|//area[@href]"))
    except ValueError:
        logger.debug("Cannot read the links of %s (invalid <base href>)", response)
        return []


def _base_url(response: HtmlResponse) -> str:
    """The page's ``<base href>`` or, if that is unusable, the response URL."""
    try:
        return get_base_url(response)
    except ValueError:
        return response.url


def _absolute(base: str, href: str) -> str | None:
    """``href`` resolved against ``base`` and canonicalised; ``None`` for a broken URL
    (``http://[oops/``, a port over 65535): a bad link must not cost the page's output."""
    try:
        return canonicalize_url(urljoin(base, href.strip()))
    except ValueError:
        logger.debug("Ignoring a link with an invalid URL: %r", href)
        return None
