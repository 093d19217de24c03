"""The verdict on one request before it is sent, once for the crawl and both tools (pure).

After robots.txt allowed a URL for the crawler's own name, the crawl (``UsageGate``),
``scrapy rep-robots`` and ``python -m scrapy_rep check`` all ask :meth:`RequestRules.refusal`,
so a URL reads the same everywhere (docs/decisions.md, 'The tools decide through the crawl's
own code'). It applies, in the crawl's order:

- the robots.txt groups of ``REP_PURPOSE_AGENTS`` (SPEC §1 group selection, per token);
- a tdmrep.json given up on (``REP_UNREACHABLE_ACTION = "drop"``): everything reserved;
- an explicit "no" for a purpose of ``REP_PURPOSE`` (``search`` by default) from
  robots.txt ``Content-Usage`` / ``Content-Signal``, tdmrep.json or the RSL licenses
  robots.txt's ``License:`` lines name (docs/purpose-notes.md §5, §9; unknown never
  refuses before the fetch).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_rep.usage.policy import NOTHING_BEFORE, Before, UsagePolicy
from scrapy_rep.usage.rsl_terms import held_licenses, licenses_signals

if TYPE_CHECKING:
    from scrapy_rep.robotstxt import RobotsTxt
    from scrapy_rep.usage.purpose import UsageSignal
    from scrapy_rep.usage.rsl import RslDocument
    from scrapy_rep.usage.tdmrep import TdmRepFile


@dataclass(frozen=True, slots=True)
class Refused:
    """Why a request is not sent."""

    #: ``forbidden`` (a ``REP_PURPOSE_AGENTS`` group), ``tdmrep_unreachable``, ``purpose``.
    reason: str
    #: One sentence, as the crawl's log and audit trail write it.
    message: str
    #: The purpose denied (``reason == "purpose"``).
    purpose: str | None = None
    #: The signal that said no (``reason == "purpose"``; ``None`` otherwise).
    signal: UsageSignal | None = None


@dataclass(frozen=True)
class RequestRules:
    """The settings that decide a request before it is sent, besides robots.txt's own
    allow/disallow: ``REP_PURPOSE``, ``REP_PURPOSE_UNKNOWN``, ``REP_PURPOSE_AGENTS``."""

    policy: UsagePolicy
    agents: tuple[str, ...] = ()
    #: ``ROBOTSTXT_OBEY``: robots.txt's Allow/Disallow decide.
    obey_robots: bool = True
    #: ``REP_PURPOSE`` was set: its opt-outs hold even with ``ROBOTSTXT_OBEY = False``,
    #: and the RSL licenses of robots.txt's ``License:`` lines are read.
    purpose_set: bool = False
    #: ``REP_RSL_LICENSES``, normalised (:func:`scrapy_rep.usage.rsl_terms.held_licenses`).
    rsl_held: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        purposes: Iterable[str],
        unknown: str = "allow",
        agents: Iterable[str] = (),
        obey_robots: bool = True,
        purpose_set: bool = False,
        rsl_licenses: Iterable[str] = (),
    ) -> RequestRules:
        policy = UsagePolicy.of(purposes, unknown)
        held = held_licenses(rsl_licenses)
        return cls(policy, tuple(agents), obey_robots, purpose_set, held)

    @property
    def checks_anything(self) -> bool:
        """``False``: ``ROBOTSTXT_OBEY = False`` without a purpose set: nothing is checked
        (Scrapy's meaning; ``scrapy_rep.crawl.requests.obey``)."""
        return self.obey_robots or self.purpose_set

    def robots_decision(self, rules: RobotsTxt, url: str, agent: str) -> tuple[bool, str]:
        """robots.txt's own verdict, as the crawl's ``RobotsGate`` gives it: without
        ``ROBOTSTXT_OBEY`` only a robots.txt given up on (everything disallowed) refuses."""
        if not self.checks_anything:
            return True, "not checked: ROBOTSTXT_OBEY is False and REP_PURPOSE is not set"
        if self.obey_robots or rules.verdict is False:
            decision = rules.decide(url, agent)
            return decision.allowed, decision.explanation
        return True, "Allow/Disallow not obeyed (ROBOTSTXT_OBEY = False)"

    def refusal(
        self,
        rules: RobotsTxt,
        url: str,
        agent: str,
        robots_url: str,
        tdm: TdmRepFile | None = None,
        tdm_given_up: str | None = None,
        licenses: Sequence[tuple[str, RslDocument]] = (),
    ) -> tuple[Refused | None, Before]:
        """Whether a URL robots.txt allows for ``agent`` is refused, and what the origin's
        documents said about it (for the page-level check after the fetch).
        ``tdm_given_up``: the outcome of a tdmrep.json given up on (requests dropped).
        ``licenses``: ``(license URL, document)`` of robots.txt's ``License:`` lines."""
        for token in self.agents:
            if not rules.allowed(url, token):
                explanation = rules.decide(url, token).explanation
                message = f"Forbidden by {robots_url} for {token} ({explanation})"
                return Refused("forbidden", message), NOTHING_BEFORE
        if tdm_given_up is not None:
            origin = robots_url.removesuffix("/robots.txt")
            message = f"Dropped: tdmrep.json of {origin} {tdm_given_up}"
            return Refused("tdmrep_unreachable", message), NOTHING_BEFORE
        if tdm is None and not licenses and rules.states_no_usage:
            return None, NOTHING_BEFORE  # no signal anywhere: nothing to refuse or carry
        rsl = licenses_signals(licenses, url, self.rsl_held) if licenses else ()
        before = self.policy.before_fetch(rules, url, agent, tdm, self.agents, rsl)
        if before is NOTHING_BEFORE:
            return None, before
        refusal = self.policy.refuse_before(before)
        if refusal is None:
            return None, before
        message = f"Not fetched: {refusal.message}"
        return Refused("purpose", message, refusal.purpose, refusal.signal), before
