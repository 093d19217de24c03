"""Defects the whole-crawl property run found (tests/support/wholecrawl.py), each as a small
deterministic crawl. Each failed on the code it was found on."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_twisted

from tests.support.robotsite import HTML
from tests.support.wholecrawl import AGENT, Doc, PropSites, WholeSpider


async def whole_crawl(sites: PropSites, urls: list[str], **settings: Any) -> Any:
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(
        WholeSpider,
        {
            "ADDONS": {"scrapy_rep.Addon": 0},
            "USER_AGENT": AGENT,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "INFO",
            "REP_UNREACHABLE_RETRY_DELAY": 0.2,
            "REP_UNREACHABLE_MAX_WAIT": 1.0,
            **settings,
        },
    )
    await crawler.crawl(urls=urls)
    return crawler


def slow_robots(rules_at_end: str, size: int = 400_000) -> Doc:
    """A robots.txt of ``size`` bytes (under 500 KiB) whose last line is a rule, sent
    in 20 pieces 0.1 s apart."""
    padding = b"# padding padding padding padding padding\n" * (size // 42)
    body = b"User-agent: *\nAllow: /\n" + padding + rules_at_end.encode() + b"\n"
    return Doc(200, body, {"Content-Type": "text/plain"}, "slow", pieces=20, pause=0.1)


async def rule_at_the_end(with_license: bool) -> tuple[PropSites, Any]:
    """a's robots.txt (400,000 bytes, slow) ends with ``Disallow: /private``; b's names
    an RSL license that answers slowly, so that it downloads while a's robots.txt does
    (``with_license``). Returns the sites (their log) and the crawler."""
    sites = PropSites()
    try:
        a, b, lic = sites.add("a"), sites.add("b"), sites.add("lic")
        a.routes["/robots.txt"] = slow_robots("Disallow: /private")
        a.routes["/private"] = Doc(200, b"<html>secret</html>", HTML)
        license_url = sites.bases["lic"] + "/l.xml"
        line = f"License: {license_url}\n" if with_license else ""
        b.routes["/robots.txt"] = Doc(200, f"User-agent: *\n{line}".encode())
        b.routes["/page"] = Doc(200, b"<html>b</html>", HTML)
        rsl = (
            b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
            b'<permits type="usage">all</permits></license></content></rsl>'
        )
        lic.routes["/l.xml"] = Doc(200, rsl, {}, "slow", pieces=10, pause=0.25)
        urls = [sites.bases["b"] + "/page", sites.bases["a"] + "/private"]
        crawler = await whole_crawl(sites, urls, REP_PURPOSE="search")
    finally:
        await sites.close()
    return sites, crawler


@pytest_twisted.ensureDeferred
async def test_a_rule_inside_the_first_500_kib_is_obeyed_alone() -> None:
    """The control: the same robots.txt with no other document downloading."""
    sites, crawler = await rule_at_the_end(with_license=False)
    assert ("a", "/private") not in sites.log
    assert crawler.stats.get_value("rep/robotstxt/outcome/truncated") is None


@pytest_twisted.ensureDeferred
async def test_a_rule_inside_the_first_500_kib_survives_a_concurrent_license_download() -> None:
    sites, crawler = await rule_at_the_end(with_license=True)
    assert ("a", "/private") not in sites.log
    assert crawler.stats.get_value("rep/robotstxt/outcome/truncated") is None


@pytest.mark.parametrize(
    "container",
    ["jpg", "png", "webp", "tif", "gif", "mp4", "pdf"],
)
def test_a_file_cut_after_its_whole_prohibited_value_keeps_its_no(container: str) -> None:
    """docs/media.md, "Hostile files": a packet that cannot be parsed is still searched
    for a ``DMI-PROHIBITED…`` value, so a broken packet that says prohibited keeps its
    "no". Found by the whole-crawl run (seed 65: an MP4 cut so, stored for ai-train).
    Every cut between the end of the value and the end of the file."""
    from rep_engine.usage.media.reading import read_media
    from rep_engine.usage.purpose import usage_decision
    from tests.support.wholecrawl import PLUS_VOCAB, media_body

    value = "DMI-PROHIBITED-AIMLTRAINING"  # odd length: the PNG packet is not compressed
    body = media_body(container, value)
    end = body.index((PLUS_VOCAB + value).encode()) + len(PLUS_VOCAB + value)
    lost = [
        cut
        for cut in range(end + 1, len(body))
        if usage_decision(read_media(body[:cut]).signals).allowed("ai-train") is not False
    ]
    assert lost == [], f"{len(lost)} of {len(body) - end - 1} cuts lose the no, first {lost[0]}"


@pytest.mark.parametrize("where", ["loop", "ftp"])
@pytest_twisted.ensureDeferred
async def test_an_unfollowable_license_is_not_read_as_no_terms(where: str) -> None:
    """Found by the whole-crawl run (seeds 3: ftp, 11: loop)."""
    from tests.support.wholecrawl import redirect_doc

    sites = PropSites()
    try:
        a = sites.add("a")
        base = sites.bases["a"]
        if where == "loop":
            a.routes["/lic"] = redirect_doc(base + "/lic2")
            a.routes["/lic2"] = redirect_doc(base + "/lic")
        else:
            a.routes["/lic"] = redirect_doc("ftp://127.0.0.1/license.xml")
        a.routes["/robots.txt"] = Doc(200, f"User-agent: *\nLicense: {base}/lic\n".encode())
        a.routes["/page"] = Doc(200, b"<html>a</html>", HTML)
        await whole_crawl(sites, [base + "/page"], REP_PURPOSE="ai-train")
    finally:
        await sites.close()
    assert ("a", "/page") not in sites.log


@pytest.mark.parametrize("where", ["ftp", "prohibits"])
@pytest_twisted.ensureDeferred
async def test_a_license_line_of_a_cut_robotstxts_ruleless_group_is_read(where: str) -> None:
    """Found by the whole-crawl run (seed 666): a robots.txt over 500 KiB whose ``*``
    group holds only a ``License`` line. The cut drops a last group with no rule read
    (docs/decisions.md, 'A cut robots.txt reads no part of a line that could allow'),
    and its License line went with it: the license, unreadable (behind a redirect to
    ``ftp:``) or prohibiting ai-train, was never asked for, and the page was fetched."""
    from tests.support.wholecrawl import redirect_doc

    sites = PropSites()
    try:
        a = sites.add("a")
        base = sites.bases["a"]
        if where == "ftp":
            a.routes["/lic"] = redirect_doc("ftp://127.0.0.1/license.xml")
        else:
            a.routes["/lic"] = Doc(
                200,
                b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
                b'<prohibits type="usage">ai-train</prohibits></license></content></rsl>',
                {"Content-Type": "application/rsl+xml"},
            )
        padding = b"# padding padding padding padding padding\n" * 13_000  # past 500 KiB
        robots = f"User-agent: *\nLicense: {base}/lic\n".encode() + padding
        a.routes["/robots.txt"] = Doc(200, robots, {"Content-Type": "text/plain"})
        a.routes["/page"] = Doc(200, b"<html>a</html>", HTML)
        await whole_crawl(sites, [base + "/page"], REP_PURPOSE="ai-train")
    finally:
        await sites.close()
    assert ("a", "/lic") in sites.log
    assert ("a", "/page") not in sites.log


@pytest_twisted.ensureDeferred
async def test_a_cut_robotstxts_ruleless_star_group_keeps_its_content_usage() -> None:
    """Found by the whole-crawl run (seeds 348, 999): a robots.txt over 500 KiB whose
    ``*`` group holds only ``Content-Usage: train-ai=n``. The cut dropped the group, its
    "no" with it, and ai-train fetched the page."""
    sites = PropSites()
    try:
        a = sites.add("a")
        base = sites.bases["a"]
        padding = b"# padding padding padding padding padding\n" * 13_000  # past 500 KiB
        robots = b"User-agent: *\nContent-Usage: train-ai=n\n" + padding
        a.routes["/robots.txt"] = Doc(200, robots, {"Content-Type": "text/plain"})
        a.routes["/page"] = Doc(200, b"<html>a</html>", HTML)
        await whole_crawl(sites, [base + "/page"], REP_PURPOSE="ai-train")
    finally:
        await sites.close()
    assert ("a", "/robots.txt") in sites.log
    assert ("a", "/page") not in sites.log
