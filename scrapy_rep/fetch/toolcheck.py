"""What ``python -m scrapy_rep check`` reads per origin, and the line per URL both tools
print (SPEC §4 for the fetch; the verdict as the crawl decides it).

:func:`sources`: the robots.txt files a check reads (the bundled example, a local file,
or each URL's origin's fetched over urllib, with its tdmrep.json and RSL licenses when
the purposes need them). :func:`report`: one line per URL with its verdict and the line
that decided it, and :func:`further_documents`: an origin's tdmrep.json and RSL
licenses; both shared with ``scrapy rep-robots``. Standard library only.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from scrapy_rep.fetch.origins import origin_of
from scrapy_rep.fetch.rslfetch import NO_LICENSES, OriginLicenses, origin_licenses
from scrapy_rep.fetch.urlfetch import (
    OriginTdm,
    fetch_robotstxt,
    held_reason,
    origin_tdm,
    read_robots_file,
    robots_url_for,
    robots_verdict,
)
from scrapy_rep.robotstxt import RobotsTxt, parse_robotstxt
from scrapy_rep.usage.purpose import UsageSignal
from scrapy_rep.usage.verdicts import RequestRules

#: What both tools add, in the google profile, to a robots.txt ``Content-Signal`` or
#: ``Content-Usage`` line they show: Google's parser lists both among its
#: ``kUnsupportedTags`` (google/robotstxt reporting_robots.cc, commit 4af32e5,
#: 2026-02-19): reported, never obeyed.
GOOGLE_IGNORES: Final = "read by scrapy_rep, ignored by Google's parser"


def google_note(signal: UsageSignal | None, profile: str) -> str:
    """`` (read by scrapy_rep, ignored by Google's parser)`` for a signal from a robots.txt
    ``Content-Signal`` or ``Content-Usage`` line in the google profile; else ``""``.
    (``DisallowAITraining`` is not one: Google reads it as ``Disallow``.)"""
    if (
        profile == "google"
        and signal is not None
        and signal.vocabulary in ("content-signal", "aipref")
        and signal.source.startswith("robots.txt")
    ):
        return f" ({GOOGLE_IGNORES})"
    return ""


def report(
    rules: RobotsTxt,
    urls: Sequence[str],
    user_agent: str,
    request_rules: RequestRules | None = None,
    tdm: OriginTdm | None = None,
    licenses: OriginLicenses = NO_LICENSES,
    profile: str = "",
    held: str = "",
) -> tuple[list[str], bool]:
    """One line per URL (with a note for a URL read as a path); and whether every URL is
    allowed. With ``request_rules``, a URL robots.txt allows is decided further as the
    crawl decides it (:meth:`RequestRules.refusal`: the purposes, their extra agents,
    tdmrep.json, the RSL ``licenses`` of its ``License:`` lines). ``profile``: the
    robots.txt profile, for :func:`google_note`. ``held``: why robots.txt disallows a URL
    while it is unreachable (:func:`held_reason`): temporary."""
    lines = []
    all_allowed = True
    width = max(len(url) for url in urls)
    for url in urls:
        if request_rules is None:
            decision = rules.decide(url, user_agent)
            allowed, why = decision.allowed, decision.explanation
        else:
            allowed, why = request_rules.robots_decision(rules, url, user_agent)
        if not allowed and held:
            why = held
        if allowed and request_rules is not None and request_rules.checks_anything:
            robots_url = robots_url_for(url) or "robots.txt"
            tdm_file, given_up = (None, None) if tdm is None else (tdm.file, tdm.given_up)
            refused, _ = request_rules.refusal(
                rules, url, user_agent, robots_url, tdm_file, given_up, licenses.documents
            )
            if refused is not None:
                allowed, why = False, refused.message + google_note(refused.signal, profile)
        all_allowed = all_allowed and allowed
        verdict = "allowed   " if allowed else "DISALLOWED"
        lines.append(f"{verdict}  {url:<{width}}  {why}")
        if origin_of(url) is None and not url.startswith("/"):
            lines.append(f"            note: {url!r} has no scheme; it was read as a path")
    return lines, all_allowed


def further_documents(
    robots_url: str,
    rules: RobotsTxt,
    request_rules: RequestRules,
    agent: str,
    timeout: float,
    unreachable_action: str,
    connect_drops: bool = True,
) -> tuple[OriginTdm | None, OriginLicenses]:
    """The documents after robots.txt that a crawl fetches for an origin, fetched as the
    crawl would for both tools: its tdmrep.json for AI purposes, and the RSL licenses its
    robots.txt names when a purpose is set (``connect_drops``: see
    :func:`~scrapy_rep.fetch.urlfetch.given_up`)."""
    tdm = None
    if request_rules.policy.needs_tdmrep:
        origin_url = robots_url.removesuffix("/robots.txt")
        tdm = origin_tdm(origin_url, agent, timeout, unreachable_action, connect_drops)
    return tdm, origin_licenses(rules, request_rules, agent, timeout)


@dataclass
class Source:
    """One robots.txt and the URLs checked against it."""

    title: str
    rules: RobotsTxt
    urls: list[str]
    notes: list[str]
    unreachable: bool = False
    tdm: OriginTdm | None = None
    licenses: OriginLicenses = NO_LICENSES
    #: Why its URLs are disallowed while robots.txt is unreachable (``""``: it is not).
    held: str = ""


def sources(options: argparse.Namespace) -> list[Source]:
    """The robots.txt files to read and the URLs for each (raises ``OSError`` for an
    unreadable file)."""
    profile = options.profile
    if options.example:
        body = resources.files("scrapy_rep").joinpath("examples/robots.txt").read_bytes()
        urls = ([options.robots] if options.robots else []) + options.urls
        return [Source("bundled example robots.txt", parse_robotstxt(body, profile), urls, [])]
    first = robots_url_for(options.robots) if "://" in options.robots else None
    if first is None:
        rules, notes = read_robots_file(Path(options.robots), profile)
        if options.request_rules.policy.needs_tdmrep:
            notes.append("note: tdmrep.json is not checked against a local robots.txt file")
        origins = {robots_url_for(url) for url in options.urls} - {None}
        if len(origins) > 1:
            notes.append(
                f"note: the URLs are on {len(origins)} origins; in a crawl each origin has "
                "its own robots.txt, here this file is checked for all of them"
            )
        return [Source(options.robots, rules, options.urls, notes)]
    by_origin: dict[str, list[str]] = {first: []}
    for url in options.urls:
        by_origin.setdefault(robots_url_for(url) or first, []).append(url)
    sources = []
    for robots_url, urls in by_origin.items():
        if not urls:
            continue
        fetched = fetch_robotstxt(
            robots_url, user_agent=options.user_agent, profile=profile, timeout=options.timeout
        )
        rules, notes = robots_verdict(fetched, options.unreachable_action)
        if robots_url != first:
            notes.append(f"note: these URLs are on another origin than {options.robots}: "
                         "their own origin's robots.txt was fetched")  # fmt: skip
        title = f"{robots_url}: {fetched.outcome}"
        tdm, licenses = further_documents(
            robots_url, rules, options.request_rules, options.user_agent, options.timeout,
            options.unreachable_action,
        )  # fmt: skip
        held = held_reason(fetched)
        sources.append(Source(title, rules, urls, notes, fetched.unreachable, tdm, licenses, held))
    return sources
