"""The robots.txt verdict on one request (SPEC §1, §5), the Scrapy side.

:class:`RobotsGate` answers for a request whose origin's robots.txt is known: allowed
requests go on (through the origin's crawl-delay slot, :mod:`scrapy_rep.crawl.documents.slots`);
forbidden ones raise ``IgnoreRequest`` naming the robots.txt line; with an unreachable
robots.txt given up on, the request is dropped saying so. Counted in Scrapy's
``robotstxt/forbidden`` and ``rep/requests/…`` stats; with ``REP_AUDIT_FILE`` the
deciding line goes on the request for the audit trail.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from scrapy_rep.crawl.stats import inc
from scrapy_rep.crawl.trails import trail_of
from scrapy_rep.settings import crawl_delay_obeyed, robots_agent

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_rep.crawl.documents.slots import CrawlDelaySlots
    from scrapy_rep.fetch.cache import CacheEntry
    from scrapy_rep.fetch.origins import Origin
    from scrapy_rep.robotstxt import Decision, RobotsTxt
    from scrapy_rep.settings import RepConfig

Refuse = Callable[["Request", str, str], NoReturn]


class RobotsGate:
    """Obeys a known robots.txt for one request at a time."""

    def __init__(
        self, crawler: Crawler, config: RepConfig, slots: CrawlDelaySlots, refuse: Refuse
    ) -> None:
        settings = crawler.settings
        #: Whether ``Crawl-delay`` sets download delays (``REP_OBEY_CRAWL_DELAY``: yes in
        #: every profile unless set to False).
        self.obey_crawl_delay = crawl_delay_obeyed(config)
        self.slots = slots
        self.stats = crawler.stats
        self._audit = bool(config.audit_file)
        self.crawler = crawler
        self._agent_setting = str(settings.get("ROBOTSTXT_USER_AGENT") or "")
        self._default_agent = robots_agent(settings)
        self._refuse = refuse

    def agent(self, request: Request) -> str:
        """The crawler's name for ``request``: ``ROBOTSTXT_USER_AGENT``, else its own
        ``User-Agent`` header, else the project's ``USER_AGENT``."""
        if self._agent_setting:
            return self._agent_setting
        if not request.headers:  # usual: Scrapy's UserAgentMiddleware runs after us
            return self._default_agent
        header = request.headers.get(b"User-Agent")
        return header.decode("latin-1") if header else self._default_agent

    def refuses(self, url: str, entry: CacheEntry[RobotsTxt], agent: str, obey_rules: bool) -> bool:
        """Whether :meth:`check` refuses a request for ``url``; no stats, no record."""
        return self.verdict(url, entry, agent, obey_rules)[0]

    def verdict(
        self, url: str, entry: CacheEntry[RobotsTxt], agent: str, obey_rules: bool
    ) -> tuple[bool, Decision | None]:
        """Whether :meth:`check` refuses a request for ``url``, and, with the audit trail
        on, the :class:`Decision` it records (for :meth:`check`'s ``decision``, so that an
        allowed request is matched once); no stats, no record."""
        if not obey_rules:
            return entry.unreachable and entry.rules.verdict is False, None
        if self._audit:
            decision = entry.rules.decide(url, agent)
            return not decision.allowed, decision
        return not entry.rules.allowed(url, agent), None

    def check(
        self,
        request: Request,
        origin: Origin,
        entry: CacheEntry[RobotsTxt],
        agent: str,
        obey_rules: bool = True,
        allowed_early: bool = False,
        decision: Decision | None = None,
    ) -> None:
        """Let ``request`` go on, or raise ``IgnoreRequest`` (through ``refuse``).
        ``obey_rules=False`` (``ROBOTSTXT_OBEY = False`` or ``dont_obey_robotstxt`` with a
        purpose set): Allow/Disallow and Crawl-delay are not obeyed, but a robots.txt given
        up on still drops the request: its opt-outs are not known (no "no" lost).
        ``allowed_early``: :meth:`verdict` allowed this request with this ``entry`` and
        ``agent`` (:mod:`scrapy_rep.crawl.requests.decidedearly`), with ``decision`` if it kept
        one: it is not matched again (with the trail on and no ``decision``, it is)."""
        if not obey_rules:
            trail = trail_of(self.crawler) if self._audit else None
            if trail is not None:  # the trail names the robots.txt whose opt-outs decide
                trail.robots_not_obeyed(request, str(origin), entry)
            if entry.unreachable and entry.rules.verdict is False:
                inc(self.stats, "rep/requests/dropped/robotstxt_unreachable")
                message = f"Dropped: robots.txt of {origin} {entry.outcome}"
                self._refuse(request, "robotstxt_unreachable", message)
            return
        rules = entry.rules
        trail = trail_of(self.crawler) if self._audit else None
        if trail is not None:  # the trail names the robots.txt and the line that decided
            if decision is None or not allowed_early:
                decision = rules.decide(request.url, agent)
            trail.robots_decided(request, str(origin), entry, agent, decision)
            allowed = decision.allowed
        else:
            allowed = allowed_early or rules.allowed(request.url, agent)
        if allowed:
            if entry.unreachable:
                inc(self.stats, "rep/requests/allowed_unreachable")
            if self.obey_crawl_delay:
                self.slots.apply(request, origin, rules.crawl_delay(agent))
            return
        if entry.unreachable:
            reason, message = (
                "robotstxt_unreachable",
                f"Dropped: robots.txt of {origin} {entry.outcome}",
            )
        else:
            reason = "forbidden"
            inc(self.stats, "robotstxt/forbidden")
            explanation = rules.decide(request.url, agent).explanation
            message = f"Forbidden by {origin.robots_url} ({explanation})"
        inc(self.stats, f"rep/requests/dropped/{reason}")
        self._refuse(request, reason, message)
