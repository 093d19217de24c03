"""The parts of a ``url`` record the URL ledger (:mod:`scrapy_rep.crawl.audit.audit`) writes
from what decided a request and what its page said (docs/audit-trail.md, "url records"),
besides the ``robots`` part of a verdict (the engine's one builder,
:func:`~rep_engine.trail.lines.robots_part_of`): why a request's Allow/Disallow lines are
not obeyed, the documents it names besides robots.txt, a fetched page's ``usage`` and
``page`` parts, and a failed record's ``why``. Functions of the entry and the values they
read; the ledger writes the snapshots they name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rep_engine.fetch.kinds import TDMREP
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.records import RobotsPart, UrlEntry
from rep_engine.robotstxt.useragent import held_names
from rep_engine.trail import lines
from rep_engine.verdict.policy import NOTHING_BEFORE
from scrapy_rep.crawl import meta
from scrapy_rep.crawl.requeststate import before_of

if TYPE_CHECKING:
    from scrapy import Request

    from scrapy_rep.crawl.pages import Page

#: Writes a snapshot of a document's body and answers its name: ``(kind, url, body)``.
SnapshotBody = Callable[[str, str, bytes], str]


def robots_sha(entry: UrlEntry) -> str:
    """The snapshot of the robots.txt that decided the record (``""``: none)."""
    robots = entry.robots
    return robots.sha256 if robots else ""


def not_obeyed(request: Request, obey_robots: bool) -> str:
    """Why the request's robots.txt Allow/Disallow is not obeyed, as a cause of
    :data:`~rep_engine.records.NOT_OBEYED` (``dont_obey_robotstxt``, ``ROBOTSTXT_OBEY =
    False``); ``""``: it is obeyed (the robots.txt middleware then names the snapshot
    whose opt-outs it obeyed, if it read one: :func:`~rep_engine.trail.lines.robots_part_of`)."""
    if request.meta.get(meta.DONT_OBEY_ROBOTSTXT):
        return "dont_obey_robotstxt"
    return "" if obey_robots else "ROBOTSTXT_OBEY"


def documents_named(entry: UrlEntry, named: Mapping[str, Any]) -> None:
    """The snapshots of the tdmrep.json and RSL licenses a request was decided with, on its
    entry (``named``: by record field, :attr:`~rep_engine.trail.lines.Named.fields`)."""
    if TDMREP.record in named:
        entry.tdm = named[TDMREP.record]
    if RSL.record in named:
        entry.licenses = {**(entry.licenses or {}), **named[RSL.record]}


def held_as_sent(entry: UrlEntry, request: Request, declared: str) -> None:
    """A request nothing decided (its robots part not obeyed, naming no other name) is held,
    after the fetch, to the names it was sent as (its ``User-Agent`` as sent): its robots
    part lists them (``agents``) for ``audit verify``."""
    robots = entry.robots
    if robots is None or robots.obeyed or robots.agents:
        return
    header = request.headers.get(b"User-Agent") if request.headers else None
    names = held_names(declared, header.decode("latin-1") if header else "")
    if len(names) > 1:
        entry.robots = RobotsPart(*robots[:6], agents=tuple(names))


def page_said(
    entry: UrlEntry,
    request: Request,
    page: Page | None,
    declared: str,
    snapshot_body: SnapshotBody,
) -> None:
    """A fetched page's ``usage`` (its own decision, never ``response.meta``'s; without one,
    what the origin's documents said before the fetch) and ``page`` parts (with the pages its
    callback fetched itself that said no, each with its ``url``), on its entry."""
    verdict = None if page is None else page.verdict
    decision = None if verdict is None else verdict.usage
    if decision is None:
        before = before_of(request)
        decision = before.decision() if before is not NOTHING_BEFORE else None
    if decision is not None and decision.signals:
        licenses = entry.licenses or {}
        entry.usage = lines.usage_part(decision, robots_sha(entry), entry.tdm or "", licenses)
    if entry.robots is not None and not entry.robots.obeyed:  # no call for the usual one
        held_as_sent(entry, request, declared)
    if page is not None and page.facts is not None:
        part = part_of(request.url, page, snapshot_body)
        if page.fetched:
            part["fetched"] = [
                {"url": url, **part_of(url, one, snapshot_body)} for url, one, _ in page.fetched
            ]
        entry.page = part


def part_of(url: str, page: Page, snapshot_body: SnapshotBody) -> dict[str, Any]:
    """What ``page`` (at ``url``) said, as a record's ``page`` part; statements too long
    for the line are a snapshot of their own (kind ``page``), which the part names."""
    said, facts = page.statements, page.facts
    part = lines.page_part(
        facts.tokens if facts is not None else (),
        said.headers,
        said.meta,
        image=facts is not None and facts.image,
        embedded_by=facts.embedded_by if facts is not None else "",
        decided=page.decided,
        cached=page.cached,
    )
    body = lines.page_snapshot(part) if said.headers or said.meta else None
    if body is None:  # (a page that said nothing is not measured: the usual page)
        return part
    return lines.snapshotted(part, snapshot_body("page", url, body))
