"""The tools' line per URL against a local robots.txt, decided as the crawl decides it
(scrapy_rep/checker.py):
for every crawler name the crawl's requests are held to (docs/decisions.md, 'Every name a
request can be held to')."""

from __future__ import annotations

from typing import Any

from rep_engine.records import NOT_OBEYED
from rep_engine.robotstxt import RobotsTxt
from rep_engine.verdict.decide import Obey
from scrapy_rep import parse_robotstxt
from scrapy_rep.checker import local_entries, url_line

RULES = parse_robotstxt(
    b"User-agent: mybot\nAllow: /\n\nUser-agent: scrapy\nDisallow: /s\n\n"
    b"User-agent: *\nDisallow: /\n"
)
URL = "https://example.com/s/page"


def verdict_lines(
    rules: RobotsTxt, urls: list[str], agent: str, **kwargs: Any
) -> list[tuple[bool, str]]:
    """Whether each URL is allowed against a local robots.txt, and why, as both tools say
    it (:func:`local_entries`' keywords)."""
    return [
        url_line(one.entry, "google", "") for one in local_entries(rules, urls, agent, **kwargs)
    ]


def test_a_url_is_checked_for_the_declared_name_and_the_name_sent_as() -> None:
    """``ROBOTSTXT_USER_AGENT = "mybot"`` with Scrapy's own ``USER_AGENT``: the crawl's
    requests go out as Scrapy, whose group refuses /s."""
    sent = "Scrapy/2.13 (+https://scrapy.org)"
    [(allowed, why)] = verdict_lines(RULES, [URL], "mybot", sent=sent)
    assert not allowed and "for scrapy" in why, why
    assert verdict_lines(RULES, [URL], "mybot")[0][0]


def test_a_browser_user_agent_sent_as_is_held_to_the_global_group() -> None:
    chrome = "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36"
    assert not verdict_lines(RULES, ["https://example.com/x"], "mybot", sent=chrome)[0][0]


def test_allow_disallow_not_obeyed_is_said_in_the_words_the_crawl_writes() -> None:
    """``ROBOTSTXT_OBEY = False`` with a purpose: a URL robots.txt disallows is allowed, said
    as the crawl's record says why (:data:`~rep_engine.records.NOT_OBEYED`), one phrasing."""
    disallow_all = parse_robotstxt(b"User-agent: *\nDisallow: /\n")
    assert verdict_lines(disallow_all, [URL], "mybot", obey=Obey.USAGE) == [
        (True, NOT_OBEYED["ROBOTSTXT_OBEY"])
    ]
