"""The settings as the rules of the other layers: the fetch lifecycle's numbers
(:func:`lifecycle_policy`), a request's rules (:func:`request_rules`) and a page's
(:func:`page_rules`), read from one :class:`~rep_engine.settings.RepConfig`, so
that the crawl and the tools cannot drift."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from rep_engine.fetch.rules import MAX_REDIRECTS, Policy
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import SettingsLike, override_expiry
from rep_engine.usage.purpose import DirectiveReadings
from rep_engine.verdict.decide import Override, RequestRules
from rep_engine.verdict.page import PageRules
from rep_engine.verdict.policy import UsagePolicy


def lifecycle_policy(
    config: RepConfig,
    settings: SettingsLike,
    timeout: float,
    store: str | None,
    store_exclusive: bool = False,
) -> Policy:
    """The numbers of SPEC §4 for :class:`rep_engine.fetch.lifecycle.machine.Lifecycle`;
    ``store_exclusive``: the store is this process's alone (``JOBDIR``)."""
    concurrency = config.robotstxt_concurrency or max(
        1, int(settings.get("CONCURRENT_REQUESTS") or 16) // 2
    )
    return Policy(
        retry_delay=config.unreachable_retry_delay,
        max_wait=config.unreachable_max_wait,
        connect_max_wait=config.unreachable_connect_max_wait,
        unreachable_action=config.unreachable_action,
        cache_ttl=config.cache_ttl,
        min_ttl=config.cache_min_ttl,
        max_ttl=config.cache_max_ttl,
        stale_max=config.cache_stale_max,
        concurrency=concurrency,
        lease_seconds=config.lease_timeout or timeout * (MAX_REDIRECTS + 1) + 5,
        store=store,
        store_exclusive=store_exclusive,
    )


def directive_readings(config: RepConfig) -> DirectiveReadings:
    """The search directives the crawl reads as AI opt-outs, from their four settings
    (the crawl's page pass, its media gate and ``scrapy rep-robots`` ask the same)."""
    return DirectiveReadings(
        noarchive_no_train=config.noarchive_means_no_ai_train,
        noarchive_no_input=config.noarchive_means_no_ai_input,
        nocache_no_train=config.nocache_means_no_ai_train,
        nosnippet_no_input=config.nosnippet_means_no_ai_input,
    )


def crawl_delay_obeyed(config: RepConfig) -> bool:
    """Whether ``Crawl-delay`` sets download delays: ``REP_OBEY_CRAWL_DELAY`` (yes by
    default in every profile: docs/deviations.md). The crawl and its report ask the same."""
    return config.obey_crawl_delay


def overrides_of(entries: Iterable[Any]) -> list[Override]:
    """The :class:`Override` of each ``(host, reason, expires)`` of ``REP_OVERRIDES`` (as
    :func:`read_overrides` reads it, or a run header holds it), its expiry read by
    :func:`override_expiry`; an entry that is not one is left out (it covers nothing)."""
    found = []
    for entry in entries:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            continue
        host, reason, expires = entry
        expiry = override_expiry(expires)
        if isinstance(host, str) and isinstance(reason, str) and expiry is not None:
            found.append(Override(host, reason, *expiry))
    return found


def request_rules(config: RepConfig, purpose_set: bool) -> RequestRules:
    """The settings that decide a request (:func:`rep_engine.verdict.decide.decide`), for the crawl
    and ``scrapy rep-robots``, so that they cannot drift. ``purpose_set``: ``REP_PURPOSE``
    was set (not only its default), so its opt-outs hold even when robots.txt is not
    obeyed, and RSL licenses are read. With the audit trail on, an allowed request keeps
    robots.txt's deciding line."""
    rules = RequestRules.of(
        config.purpose,
        config.purpose_unknown,
        config.purpose_agents,
        purpose_set=purpose_set,
        rsl_licenses=config.rsl_licenses,
        overrides=overrides_of(config.overrides),
        explain=bool(config.audit_file),
        max_licenses=config.rsl_max_licenses,
    )
    return replace(rules, policy=usage_policy(config))


def usage_policy(config: RepConfig) -> UsagePolicy:
    """The crawl's purposes held against the sites' signals (``REP_PURPOSE``,
    ``REP_PURPOSE_UNKNOWN``, the directive readings): the one policy of a request's
    verdict and a page's."""
    return UsagePolicy.of(
        config.purpose, config.purpose_unknown, readings=directive_readings(config)
    )


def page_rules(config: RepConfig) -> PageRules:
    """The settings that decide a fetched page or file
    (:func:`rep_engine.verdict.page.decide_page`), for the crawl's page pass, its media gate
    and ``scrapy rep-robots``, so that they cannot drift."""
    return PageRules(usage_policy(config), config.media_noindex_means_no_ai)
