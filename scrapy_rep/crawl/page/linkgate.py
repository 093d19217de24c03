"""The page pass's request gate: nofollow and ``rel="nofollow"`` (SPEC §6).

A request yielded by a page that says ``nofollow`` is dropped (``REP_NOFOLLOW_ACTION``),
and so is one for a link the page marks only with ``rel="nofollow"``
(``REP_REL_NOFOLLOW``). Each drop is performed as every refusal is
(:func:`scrapy_rep.crawl.refusals.refuse_request`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from w3lib.url import canonicalize_url

from rep_engine.records import Action, Reason
from rep_engine.verdict.decide import Refused
from rep_engine.verdict.page import PAGE
from scrapy_rep.crawl.page.pagereader import rel_nofollow_targets
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.crawl.refusals import refuse_request
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from rep_engine.records import PageOutput
    from rep_engine.verdict.page import PageVerdict


class LinkGate:
    """Whether a page's nofollow (or a rel="nofollow" link) drops a request."""

    def __init__(self, crawler: Crawler, page: PageState) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.page = page
        self._keep_nofollow = page.config.nofollow_action == "keep"
        self._rel_nofollow = page.config.rel_nofollow

    def by_follow(
        self,
        request: Request,
        response: Response,
        verdict: PageVerdict,
        output: PageOutput | None = None,
    ) -> bool:
        """Whether the page's nofollow (its ``verdict``'s ``follow``), or a rel="nofollow"
        link, drops ``request`` (written in the page's ``output`` when one is kept)."""
        refused = verdict.follow
        if refused is not None:
            if self._keep_nofollow:
                inc(self.stats, "rep/directives/requests_kept/nofollow")
                return False
            sources = "; ".join(verdict.directives.sources)
            refuse_request(self.crawler, Action.FOLLOW, request, refused, response, sources, output)
            return True
        if self._rel_nofollow and self._is_rel_nofollow(request, response):
            message = f'Not followed: {response.url} links to it only with rel="nofollow"'
            refused = Refused(Reason.REL_NOFOLLOW, message, PAGE, verdict.agent)
            refuse_request(self.crawler, Action.FOLLOW, request, refused, response, output=output)
            return True
        return False

    def _is_rel_nofollow(self, request: Request, response: Response) -> bool:
        """Whether the page links to ``request`` only with ``rel="nofollow"`` (read once)."""
        page = self.page.page_of(response)
        targets = page.rel_targets
        if targets is None:
            try:
                targets = rel_nofollow_targets(response)
            except Exception as error:  # never lose a page's links over one broken tag
                targets = frozenset()
                self.page.failed(response, 'rel="nofollow" links', error)
            page.rel_targets = targets
        return bool(targets) and canonicalize_url(request.url) in targets
