"""The audit trail learns a response from :class:`AuditMiddleware` when its
``process_response`` is the downloader's last (one signal receiver less per page), and
from ``response_received`` when a project's middleware comes after it: the records are
the same either way (docs/decisions.md, 'The audit trail takes responses from its own
middleware')."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest_twisted
from pydispatch import dispatcher
from scrapy import Request, signals
from scrapy.http import Response

from scrapy_rep.crawl.auditing import ledger_of
from tests.support.audittrail import by_url
from tests.support.robotsite import HTML, Reply, Sites, crawl, robots


class GoneMiddleware:
    """A project's middleware outside scrapy_rep's: it turns a 404 into a 410."""

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response:
        return response.replace(status=410) if response.status == 404 else response


def page_and_missing_site() -> tuple[Sites, list[str]]:
    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    a.script("/page", Reply(200, b"<html>ok</html>", HTML))
    a.script("/missing", Reply(404, b"<html>no</html>", HTML))
    return sites, [sites.url("a", path) for path in ("/page", "/missing", "/private/1")]


def receivers(crawler: Any) -> list[Any]:
    """The trail's own receivers of ``response_received``."""
    trail = ledger_of(crawler)
    every = dispatcher.getAllReceivers(crawler.signals.sender, signals.response_received)
    return [r for r in dispatcher.liveReceivers(every) if getattr(r, "__self__", None) is trail]


@pytest_twisted.ensureDeferred
async def test_the_outermost_audit_middleware_tells_the_response(tmp_path: Path) -> None:
    sites, urls = page_and_missing_site()
    audit = tmp_path / "trail.jsonl"
    try:
        crawler, _ = await crawl(urls, {"REP_AUDIT_FILE": str(audit)})
    finally:
        await sites.close()
    assert receivers(crawler) == []  # no signal receiver: the middleware told it
    records = by_url(audit)
    assert (records[urls[0]]["fate"], records[urls[0]]["status"]) == ("fetched", 200)
    # The spider never sees the 404 (HttpErrorMiddleware): its status came from the
    # middleware, and it was fetched (not unfinished).
    assert (records[urls[1]]["fate"], records[urls[1]]["status"]) == ("fetched", 404)
    assert records[urls[2]]["fate"] == "refused"


@pytest_twisted.ensureDeferred
async def test_a_middleware_after_ours_leaves_the_response_to_the_signal(
    tmp_path: Path,
) -> None:
    sites, urls = page_and_missing_site()
    audit = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(audit),
        "DOWNLOADER_MIDDLEWARES": {GoneMiddleware: 5},  # process_response after ours
    }
    try:
        crawler, _ = await crawl(urls, settings)
    finally:
        await sites.close()
    assert len(receivers(crawler)) == 1
    records = by_url(audit)
    assert (records[urls[0]]["fate"], records[urls[0]]["status"]) == ("fetched", 200)
    # The status the engine got (the project's middleware changed it), as before.
    assert (records[urls[1]]["fate"], records[urls[1]]["status"]) == ("fetched", 410)
    assert records[urls[2]]["fate"] == "refused"
