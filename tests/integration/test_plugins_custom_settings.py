"""The add-on per spider (docs/plugins.md, "Per spider: custom_settings"): real crawls of
spiders whose ``custom_settings`` turn the add-on on, off, or configure it differently
from the project's ``settings.py`` (here: the settings a test crawl starts from).

Scrapy applies a spider's ``custom_settings`` before it loads the add-ons, at a higher
priority than the project's, and a dict setting given there (``ADDONS``) replaces the
project's whole dict.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest_twisted

from tests.support.robotsite import BASE_SETTINGS, ListSpider, Sites, crawl, robots

RULES = "User-agent: *\nContent-Signal: ai-train=no\nDisallow: /private\n"
NO_ADDON = {"ADDONS": {}}


class AddonSpider(ListSpider):
    """A spider that enables the add-on itself."""

    name = "addon"
    custom_settings: ClassVar[dict[str, Any]] = {"ADDONS": {"scrapy_rep.Addon": 0}}


class NoAddonSpider(ListSpider):
    """A spider that takes the project's add-on out (the whole ``ADDONS`` dict is the
    spider's: other add-ons of the project would have to be listed again)."""

    name = "no_addon"
    custom_settings: ClassVar[dict[str, Any]] = {"ADDONS": {}}


class NotObeyingSpider(ListSpider):
    """A spider that keeps the add-on but does not obey robots.txt."""

    name = "not_obeying"
    custom_settings: ClassVar[dict[str, Any]] = {"ROBOTSTXT_OBEY": False}


class TrainingSpider(ListSpider):
    """A spider with a purpose of its own."""

    name = "training"
    custom_settings: ClassVar[dict[str, Any]] = {"REP_PURPOSE": "ai-train"}


async def crawl_open_and_private(
    spider: type[ListSpider], settings: dict[str, Any] | None = None
) -> tuple[Sites, Any, Any]:
    sites = Sites()
    site = sites.add("site")
    site.script("/robots.txt", robots(RULES))
    try:
        crawler, crawled = await crawl(
            [sites.url("site", "/open"), sites.url("site", "/private")], settings, spider
        )
    finally:
        await sites.close()
    return sites, crawler, crawled


def paths(sites: Sites, urls: Any) -> set[str]:
    return {url[len(sites.bases["site"]) :] for url in urls}


@pytest_twisted.ensureDeferred
async def test_custom_settings_the_addon_in_one_spider_of_a_project_without_it() -> None:
    sites, crawler, spider = await crawl_open_and_private(AddonSpider, NO_ADDON)
    assert paths(sites, spider.downloaded) == {"/open"}
    assert paths(sites, spider.dropped) == {"/private"}
    assert sites.requested("site").count("/robots.txt") == 1
    assert crawler.stats.get_value("rep/requests/dropped/forbidden") == 1


@pytest_twisted.ensureDeferred
async def test_custom_settings_a_spider_takes_the_project_addon_out() -> None:
    assert BASE_SETTINGS["ADDONS"] == {"scrapy_rep.Addon": 0}  # the project has it
    sites, crawler, spider = await crawl_open_and_private(NoAddonSpider)
    assert paths(sites, spider.downloaded) == {"/open", "/private"}
    assert "/robots.txt" not in sites.requested("site")  # ROBOTSTXT_OBEY: Scrapy's False
    assert not [key for key in crawler.stats.get_stats() if key.startswith("rep/")]


@pytest_twisted.ensureDeferred
async def test_custom_settings_without_the_addon_scrapys_own_middleware_obeys() -> None:
    """A project that sets ``ROBOTSTXT_OBEY = True`` itself: a spider that takes the
    add-on out gets Scrapy's own robots.txt middleware (and its parser) back."""
    sites, crawler, spider = await crawl_open_and_private(NoAddonSpider, {"ROBOTSTXT_OBEY": True})
    assert paths(sites, spider.downloaded) == {"/open"}
    assert "Forbidden by robots.txt" in spider.dropped[sites.url("site", "/private")]
    assert crawler.stats.get_value("robotstxt/forbidden") == 1
    assert not [key for key in crawler.stats.get_stats() if key.startswith("rep/")]


@pytest_twisted.ensureDeferred
async def test_custom_settings_robotstxt_obey_false_in_one_spider() -> None:
    sites, _, spider = await crawl_open_and_private(NotObeyingSpider)
    assert paths(sites, spider.downloaded) == {"/open", "/private"}
    assert "/robots.txt" not in sites.requested("site")  # no purpose: nothing to ask it


@pytest_twisted.ensureDeferred
async def test_custom_settings_a_spiders_own_purpose() -> None:
    """Two spiders of one project: the one whose purpose robots.txt refuses
    (``Content-Signal: ai-train=no``) fetches nothing; the other one what is allowed."""
    sites, _, training = await crawl_open_and_private(TrainingSpider)
    assert training.downloaded == []
    assert paths(sites, training.dropped) == {"/open", "/private"}
    assert "ai-train" in training.dropped[sites.url("site", "/open")]
    sites, _, plain = await crawl_open_and_private(ListSpider)
    assert paths(sites, plain.downloaded) == {"/open"}
