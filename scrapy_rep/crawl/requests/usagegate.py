"""The crawl's purpose, checked before a request is sent (the Scrapy side of
:mod:`scrapy_rep.usage.policy`).

After robots.txt allowed a request for the crawler's own name, :class:`UsageGate`:

- obeys the robots.txt groups of the extra product tokens of ``REP_PURPOSE_AGENTS``
  (``GPTBot``, ``Google-Extended``…): a request one of them may not fetch is forbidden,
  and their groups' ``Content-Usage`` and ``Content-Signal`` lines count as ours;
- drops the request when the origin's tdmrep.json stayed unreachable and was given up on
  (``REP_UNREACHABLE_ACTION = "drop"``), as for robots.txt;
- drops it when robots.txt (``Content-Usage``, ``Content-Signal``) or tdmrep.json says
  "no" for a purpose of the crawl; otherwise puts what they said on
  ``request.meta["_rep_usage_before"]`` for the page-level check after the fetch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any, Final, NoReturn

from scrapy.exceptions import IgnoreRequest

from scrapy_rep.crawl import meta
from scrapy_rep.crawl.stats import inc
from scrapy_rep.crawl.trails import trail_of
from scrapy_rep.fetch.kinds import TDMREP
from scrapy_rep.fetch.rsl_kind import RSL
from scrapy_rep.usage.policy import NOTHING_BEFORE, RESERVED_ALL, Before
from scrapy_rep.usage.verdicts import RequestRules

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from scrapy_rep.fetch.cache import CacheEntry
    from scrapy_rep.fetch.origins import Origin
    from scrapy_rep.robotstxt import RobotsTxt
    from scrapy_rep.settings import RepConfig
    from scrapy_rep.usage.rsl import RslDocument

#: Named as before ``crawl/`` had subpackages: log settings name it.
logger = logging.getLogger("scrapy_rep.crawl.usagegate")

#: ``request.meta`` key: what the origin's documents said (:data:`meta.USAGE_BEFORE`).
BEFORE_KEY: Final = meta.USAGE_BEFORE

Refuse = Callable[["Request", str, str], NoReturn]
#: The documents the purpose check reads among those that decided a request (the early
#: pass passes robots.txt's entry among them too).
_USAGE_DOCUMENTS: Final = frozenset((TDMREP.name, RSL.name))


def before_of(request: Request | None) -> Before:
    """What the origin's documents said about ``request`` (nothing, if it was not checked
    or carries another request's signals in a copied meta)."""
    if request is None:
        return NOTHING_BEFORE
    known = request.meta.get(BEFORE_KEY)
    if known is None or known[0] != request.url:
        return NOTHING_BEFORE
    return known[1]  # type: ignore[no-any-return]


class UsageGate:
    """Refuses requests the site's AI-usage signals deny for the crawl's purpose."""

    def __init__(
        self, crawler: Crawler, config: RepConfig, refuse: Refuse, purpose_set: bool = False
    ) -> None:
        #: The one decision the crawl and both tools share (:mod:`scrapy_rep.usage.verdicts`).
        self.rules = RequestRules.of(
            config.purpose,
            config.purpose_unknown,
            config.purpose_agents,
            purpose_set=purpose_set,
            rsl_licenses=config.rsl_licenses,
        )
        self.policy = self.rules.policy
        self.stats = crawler.stats
        self.crawler = crawler
        self._audit = bool(config.audit_file)
        self._refuse = refuse

    def _nothing_to_check(
        self, entry: CacheEntry[RobotsTxt], documents: Mapping[tuple[str, Hashable], Any]
    ) -> bool:
        """No signal to read at all (the usual search crawl): no extra agents' groups, no
        tdmrep.json or license decided, and no usage line anywhere in robots.txt. Then
        :meth:`RequestRules.refusal` answers "nothing refused, nothing carried" too."""
        if self.rules.agents or not entry.rules.states_no_usage:
            return False
        return not any(name in _USAGE_DOCUMENTS for name, _ in documents)

    def check(
        self,
        request: Request,
        origin: Origin,
        entry: CacheEntry[RobotsTxt],
        documents: Mapping[tuple[str, Hashable], CacheEntry[Any]],
        agent: str,
    ) -> None:
        """Raise ``IgnoreRequest`` (through ``refuse``) when the request must not be sent.

        A bug of ours in reading the signals never costs the request: it is logged as a
        scrapy_rep error and counted, and the request goes on to be checked again, with the
        page's own signals, after the fetch."""
        if self._nothing_to_check(entry, documents):
            return
        try:
            tdm = documents.get((TDMREP.name, origin))
            licenses = _licenses(documents)
            self._check(request, origin, entry, tdm, licenses, agent)
        except IgnoreRequest:
            raise
        except Exception:
            inc(self.stats, "rep/purpose/internal_errors")
            logger.exception(
                "scrapy_rep internal error in the purpose check of %s; please report it. "
                "The request goes on.",
                request,
            )

    def _check(
        self,
        request: Request,
        origin: Origin,
        entry: CacheEntry[RobotsTxt],
        tdm: CacheEntry[Any] | None,
        licenses: tuple[tuple[str, CacheEntry[RslDocument]], ...],
        agent: str,
    ) -> None:
        trail = trail_of(self.crawler) if self._audit else None
        if trail is not None:  # the trail keeps each license that decides
            for license_url, found in licenses:
                trail.license_used(license_url, found, request)
        given_up = _given_up(tdm)
        if tdm is not None and trail is not None:  # the trail keeps the file that decides
            trail.document_used(request, str(origin), tdm)
        refused, before = self.rules.refusal(
            entry.rules,
            request.url,
            agent,
            origin.robots_url,
            None if tdm is None else tdm.rules,
            given_up,
            [(license_url, found.rules) for license_url, found in licenses],
        )
        if before is not NOTHING_BEFORE:
            request.meta[BEFORE_KEY] = (request.url, before)
        if refused is None:
            return
        if refused.reason == "forbidden":
            inc(self.stats, "robotstxt/forbidden")
            if trail is not None:  # the record names the REP_PURPOSE_AGENTS group that refused
                self._note_agent(trail, request, origin, entry)
        elif refused.purpose is not None:
            inc(self.stats, f"rep/purpose/requests_dropped/{refused.purpose}")
        inc(self.stats, f"rep/requests/dropped/{refused.reason}")
        self._refuse(request, refused.reason, refused.message)

    def refuses(
        self,
        url: str,
        origin: Origin,
        entry: CacheEntry[RobotsTxt],
        documents: Mapping[tuple[str, Hashable], CacheEntry[Any]],
        agent: str,
    ) -> bool:
        """Whether :meth:`check` refuses a request for ``url``; no stats, no record."""
        return self.verdict(url, origin, entry, documents, agent)[0]

    def verdict(
        self,
        url: str,
        origin: Origin,
        entry: CacheEntry[RobotsTxt],
        documents: Mapping[tuple[str, Hashable], CacheEntry[Any]],
        agent: str,
    ) -> tuple[bool, Before | None]:
        """Whether :meth:`check` refuses a request for ``url``, and what it puts on the
        request's meta (``None``: it has nothing to read), for :meth:`passed`; no stats,
        no record."""
        if self._nothing_to_check(entry, documents):
            return False, None
        tdm = documents.get((TDMREP.name, origin))
        tdm_rules = None if tdm is None else tdm.rules
        licenses = [(license_url, found.rules) for license_url, found in _licenses(documents)]
        refused, before = self.rules.refusal(
            entry.rules, url, agent, origin.robots_url, tdm_rules, _given_up(tdm), licenses
        )
        return refused is not None, before

    def passed(
        self,
        request: Request,
        origin: Origin,
        documents: Mapping[tuple[str, Hashable], CacheEntry[Any]],
        before: Before | None,
    ) -> None:
        """What :meth:`check` does for a request :meth:`verdict` allowed with these
        ``documents`` (:mod:`scrapy_rep.crawl.requests.decidedearly`), without deciding again: the
        trail's calls, and ``before`` put on its meta."""
        if before is None:  # nothing to read: check returned at once
            return
        try:
            trail = trail_of(self.crawler) if self._audit else None
            if trail is not None:
                for license_url, found in _licenses(documents):
                    trail.license_used(license_url, found)
                tdm = documents.get((TDMREP.name, origin))
                if tdm is not None:
                    trail.document_used(request, str(origin), tdm)
            if before is not NOTHING_BEFORE:
                request.meta[BEFORE_KEY] = (request.url, before)
        except Exception:
            inc(self.stats, "rep/purpose/internal_errors")
            logger.exception(
                "scrapy_rep internal error in the purpose check of %s; please report it. "
                "The request goes on.",
                request,
            )

    def _note_agent(
        self, trail: Any, request: Request, origin: Origin, entry: CacheEntry[RobotsTxt]
    ) -> None:
        rules = entry.rules
        for token in self.rules.agents:
            if not rules.allowed(request.url, token):
                decision = rules.decide(request.url, token)
                trail.robots_decided(request, str(origin), entry, token, decision)
                return


def _licenses(
    documents: Mapping[tuple[str, Hashable], CacheEntry[Any]],
) -> tuple[tuple[str, CacheEntry[RslDocument]], ...]:
    """The RSL licenses among the documents that decide a request: ``(URL, entry)``."""
    return tuple((str(key), found) for (name, key), found in documents.items() if name == RSL.name)


def _given_up(tdm: CacheEntry[Any] | None) -> str | None:
    """The outcome of a tdmrep.json given up on (it reserves everything), else ``None``."""
    if tdm is not None and tdm.unreachable and tdm.rules is RESERVED_ALL:
        return tdm.outcome
    return None
