"""The crawler's name in a User-Agent, and the names a request is held to (SPEC §1,
"User-agent matching"; docs/decisions.md, 'Every name a request can be held to')."""

from __future__ import annotations

import pytest

from rep_engine import parse_robotstxt
from rep_engine.robotstxt.useragent import crawler_name, held_names

IE_MASK_THEN_CRAWLER = (
    "Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0; compatible; mybot/1.0)"
)
CHROME = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0 Safari/537.36"
)
MYBOT_DISALLOWED = b"User-agent: mybot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"


@pytest.mark.parametrize(
    ("user_agent", "name"),
    [
        (IE_MASK_THEN_CRAWLER, "mybot"),
        ("Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)", "mozilla"),
        ("Mozilla/5.0 (compatible; Konqueror/4.0; Linux) KHTML/4.0 (like Gecko)", "mozilla"),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "googlebot"),
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; "
            "+http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
            "bingbot",
        ),
        (CHROME, "mozilla"),
        ("Scrapy/2.13 (+https://scrapy.org)", "scrapy"),
    ],
)
def test_the_crawler_name_is_the_crawlers_token_not_a_browsers(user_agent: str, name: str) -> None:
    assert crawler_name(user_agent) == name


def test_a_crawler_behind_a_browser_compatibility_token_keeps_its_groups_no() -> None:
    rules = parse_robotstxt(MYBOT_DISALLOWED)
    assert not rules.allowed("https://example.com/page", IE_MASK_THEN_CRAWLER)


@pytest.mark.parametrize(
    "user_agent",
    [
        "Mozilla/5.0 (compatible; mybot/1.0; +http://example.com/bot)",
        "mybot/1.0 (+http://example.com/bot)",
        "mybot",
    ],
)
def test_the_engine_reads_a_user_agent_as_the_crawl_does(user_agent: str) -> None:
    """The public API answers for mybot's group whatever form its User-Agent takes, as
    every peer parser does."""
    rules = parse_robotstxt(MYBOT_DISALLOWED)
    assert not rules.allowed("https://example.com/page", user_agent)
    assert not rules.decide("https://example.com/page", user_agent).allowed
    assert rules.allowed("https://example.com/page", CHROME)


@pytest.mark.parametrize(
    ("declared", "sent", "names"),
    [
        ("mybot/1.0", "", ("mybot",)),
        ("mybot/1.0", "mybot/2.0 (+https://example.com)", ("mybot",)),
        ("mybot/1.0", "Googlebot/2.1", ("mybot", "googlebot")),
        ("mybot/1.0", CHROME, ("mybot", "mozilla")),
        ("Mozilla/5.0 (compatible; mybot/1.0)", IE_MASK_THEN_CRAWLER, ("mybot",)),
        ("", "Googlebot", ("googlebot",)),
        ("", "", ("",)),
        # sent with no crawler's name: read by a site under '*' (the name "" selects it)
        ("mybot/1.0", "*", ("mybot", "")),
        ("mybot/1.0", "/1.0", ("mybot", "")),
        ("mybot/1.0", None, ("mybot", "")),  # no User-Agent at all, or an empty one
        ("", None, ("",)),
        ("", "*", ("",)),
    ],
)
def test_the_names_a_request_is_held_to_declared_first(
    declared: str, sent: str, names: tuple[str, ...]
) -> None:
    assert held_names(declared, sent) == names
