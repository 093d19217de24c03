"""A page answered 402 Payment Required (docs/behaviour.md, 'A page answered 402'): the
site asks a price for the crawl (Cloudflare's pay per crawl answers AI crawlers so, with a
``crawler-price`` or ``crawler-error`` header). scrapy_rep never pays: it never sends the
headers that offer a price (``crawler-exact-price``, ``crawler-max-price``), and its Web
Bot Auth signature covers none of them. The answer is the page's fate
(:attr:`~rep_engine.records.Fate.PAYMENT_REQUIRED`, with what it said of its price:
:func:`payment_of`), never retried, never followed elsewhere.

Never retried: Scrapy's ``RetryMiddleware`` retries a response whose status is in
``RETRY_HTTP_CODES`` (402 is not by default; a project may add it), unless the request's
``dont_retry`` meta key is true, read when the response reaches it. So
:class:`PaymentRequiredMiddleware`, whose ``process_response`` comes right after the HTTP
cache's (:data:`PRIORITY`: one a cache replays too), before every middleware of Scrapy's
that may send the request again or elsewhere (retries 550, meta refresh 580, redirects
600), sets ``dont_retry`` and ``dont_redirect`` on a 402's request: the smallest way that
needs no other component and that Scrapy's middlewares (and those of projects that
follow its keys) already honour. A key it set is taken back once those have run
(:func:`settled`, by the page-verdict middleware at 20), so that a spider that copies the
page's meta into the requests it yields does not pass them on.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final
from weakref import WeakKeyDictionary

from rep_engine.records import PAYMENT_REQUIRED_STATUS, payment_said
from rep_engine.trail.lines import PAYMENT_FIELDS, payment_part
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Right after Scrapy's HTTP cache (900, whose replay passes every ``process_response``),
#: before the middlewares that send a request again or elsewhere (550 to 600) and the
#: project's that sit among them.
PRIORITY: Final = 895
#: The stat of the responses answered 402 (pages and media files; our own documents'
#: are robots.txt's 4xx, RFC 9309 §2.3.1.3).
STAT: Final = "rep/responses/payment_required"
#: Scrapy's keys a 402's request is given, that its middlewares read.
_KEYS: Final = (meta.DONT_RETRY, meta.DONT_REDIRECT)
#: The requests answered 402 and the keys set on them, until :func:`settled`.
answered: WeakKeyDictionary[Request, tuple[str, ...]] = WeakKeyDictionary()


def payment_of(response: Response) -> dict[str, str]:
    """What ``response`` (a 402) said of its price, as its record keeps it
    (:func:`rep_engine.trail.lines.payment_part`)."""
    headers = response.headers
    return payment_part({name: headers.getlist(name) for name in PAYMENT_FIELDS})


def settled(request: Request) -> None:
    """The keys :class:`PaymentRequiredMiddleware` set on ``request`` taken back, once the
    middlewares that read them are through."""
    keys = answered.pop(request, ())
    for key in keys:
        request.meta.pop(key, None)


class PaymentRequiredMiddleware:
    """Keeps a 402 answer from being retried or followed, and counts it (see the module
    docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response:
        if response.status != PAYMENT_REQUIRED_STATUS or meta.ROBOTS_REQUEST in request.meta:
            return response  # every other answer; robots.txt's 402 is its 4xx (no file)
        try:
            kept = request.meta
            keys = tuple(key for key in _KEYS if key not in kept)
            for key in keys:
                kept[key] = True
            if keys:
                answered[request] = keys
            inc(self.stats, STAT)
            if logger.isEnabledFor(logging.DEBUG):
                price = payment_said(payment_of(response))
                logger.debug(
                    "scrapy_rep: %s answered 402 Payment Required%s: never paid, not retried",
                    request.url, f" ({price})" if price else "", extra={"spider": spider},
                )  # fmt: skip
        except Exception:  # never lose a response over a bug of ours
            logger.exception("scrapy_rep internal error; please report it")
        return response
