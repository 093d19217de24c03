"""The page pass's item gate (SPEC §6 "Effects in the crawl", ``REP_PURPOSE``:
docs/purpose-notes.md §4a, §6).

An item of a page that is not plain goes through the page's verdict
(:meth:`ItemGate.by_verdict`) and its noimageai images (:meth:`ItemGate.by_images`), then
through the verdict of each page its callback fetched itself that said no; a drop is
performed as every refusal is (:func:`scrapy_rep.crawl.refusals.refuse_item`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from rep_audit.export import preferences_of
from rep_engine.trail.lines import usage_part
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.page.pagestate import PageState
from scrapy_rep.crawl.refusals import refuse_item
from scrapy_rep.crawl.stats import inc

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from rep_engine.records import PageOutput
    from rep_engine.verdict.page import PageVerdict
    from scrapy_rep.crawl.page.images import ImageGate
    from scrapy_rep.crawl.pages import Page


class ItemGate:
    """Drops or marks the items of a page by its directives and its usage decision."""

    def __init__(self, crawler: Crawler, page: PageState, images: ImageGate) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.page = page
        self.images = images
        self._keep_noindex = page.config.noindex_action == "keep"
        #: ``REP_ITEM_PREFERENCES_FIELD`` (``""``: off).
        self._preferences_field = page.config.item_preferences_field

    def gate(self, item: Any, response: Response, page: Page) -> Any:
        """The item through the page's checks, with what the page pass read of its page
        (``page``, its verdict decided): the item, or ``None`` when it is dropped."""
        verdict = page.verdict
        assert verdict is not None  # the page pass reads a page before its output
        output = page.output
        item = self.by_verdict(item, response, verdict, output)
        item = item if item is None else self.by_images(item, response, verdict, page)
        for url, _fetched, said_no in page.fetched:  # pages its callback fetched itself
            if item is None:
                break
            item = self.by_verdict(item, response, said_no, output, url)
        return item

    def by_verdict(
        self,
        item: Any,
        response: Response,
        verdict: PageVerdict,
        output: PageOutput | None = None,
        said_by: str = "",
    ) -> Any:
        """SPEC §6: noindex, or an ``unavailable_after`` that has passed (the verdict's
        :attr:`~rep_engine.verdict.page.PageVerdict.index`), then ``REP_PURPOSE``: drop or
        mark the items of a page denied for the crawl (its ``purpose``); a kept item gets
        its page's preferences under ``REP_ITEM_PREFERENCES_FIELD``. ``said_by``: the page
        whose verdict it is, when a page the callback fetched itself (its usage counts only
        when it refused a purpose)."""
        refused = verdict.index
        if refused is not None:
            if not self._keep_noindex:
                refuse_item(self.crawler, item, response, refused, output, said_by)
                return None
            inc(self.stats, f"rep/directives/items_kept/{refused.reason}")
        if said_by and verdict.purpose is None:
            return item
        decision, refused = verdict.usage, verdict.purpose
        if self.page.mark:
            try:
                ItemAdapter(item)[meta.USAGE] = decision.to_dict()
            except (KeyError, TypeError):  # an item class without that field
                inc(self.stats, "rep/purpose/items_not_marked")
            if refused is not None:
                inc(self.stats, f"rep/purpose/items_marked/{refused.purpose}")
            return self._with_preferences(item, decision)
        if refused is None:
            return self._with_preferences(item, decision)
        refuse_item(self.crawler, item, response, refused, output, said_by)
        return None

    def _with_preferences(self, item: Any, decision: Any) -> Any:
        """The item with its page's preferences, as an ``audit export`` line gives them
        (without the snapshot hashes: the trail's record is written after the item)."""
        name = self._preferences_field
        if not name:
            return item
        value = preferences_of(usage_part(decision, "", "") if decision.signals else None)
        try:
            ItemAdapter(item)[name] = value
        except (KeyError, TypeError):  # an item class without that field
            inc(self.stats, "rep/purpose/items_without_preferences")
        return item

    def by_images(self, item: Any, response: Response, verdict: PageVerdict, page: Page) -> Any:
        """The image URLs of an item of a noimageai page, refused or marked (a bug of ours
        is logged and counted, and never costs the item)."""
        try:
            shown = self.images.page(response, verdict, page)
            return item if shown is None else self.images.item(item, response, shown)
        except Exception as error:
            self.page.failed(response, "noimageai images", error)
            return item
