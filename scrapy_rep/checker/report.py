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
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Final

from scrapy_rep.checker.download import (
    OriginTdm,
    fetch_robotstxt,
    held_reason,
    origin_tdm,
    read_robots_file,
    robots_url_for,
    robots_verdict,
)
from scrapy_rep.checker.licenses import NO_LICENSES, OriginLicenses, origin_licenses
from scrapy_rep.fetch.cache import CacheEntry
from scrapy_rep.fetch.rules import Policy
from scrapy_rep.robotstxt import RobotsTxt, parse_robotstxt
from scrapy_rep.robotstxt.useragent import crawler_name, held_names
from scrapy_rep.urls.origins import Origin, origin_of
from scrapy_rep.usage.purpose import UsageSignal
from scrapy_rep.usage.tdmrep import NO_FILE
from scrapy_rep.verdict import (
    LICENSE,
    ROBOTS,
    TDM,
    Allowed,
    Obey,
    Override,
    Reason,
    Refused,
    RequestFacts,
    RequestRules,
    Verdict,
    decide,
)

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


def user_agent_line(agent: str, profile: str, names: Sequence[str] = ()) -> str:
    """The first line both tools print: the crawler's identity (``names``: every name its
    requests are held to, when not only ``agent``'s crawler name) and the profile."""
    label = "crawler names" if len(names) > 1 else "crawler name"
    named = ", ".join(names) if names else crawler_name(agent) or "-"
    return f"user agent: {agent} ({label} {named}), profile {profile}"


def origin_head(
    title: str,
    notes: Sequence[str],
    rules: RobotsTxt,
    agent: str,
    tdm: OriginTdm | None = None,
    licenses: OriginLicenses = NO_LICENSES,
) -> list[str]:
    """The head of one robots.txt's block, as both tools print it: a blank line, then
    ``robots.txt`` with where it came from (``URL: outcome``, ``FILE (local file)``) and,
    indented below, the notes, the origin's tdmrep.json and RSL licenses, the crawl-delay
    and the sitemaps. Its URLs' lines follow, indented as much."""
    head = ["", f"robots.txt {title}", *(f"  {note}" for note in notes)]
    if tdm is not None:
        head.append(f"  {tdm.line}")
    head += [f"  {line}" for line in licenses.lines]
    delay = rules.crawl_delay(agent)
    head.append(f"  crawl-delay: {'none' if delay is None else f'{delay:g} s'}")
    head += [f"  sitemap: {sitemap}" for sitemap in rules.sitemaps]
    return head


def report(
    rules: RobotsTxt,
    urls: Sequence[str],
    user_agent: str,
    request_rules: RequestRules | None = None,
    tdm: OriginTdm | None = None,
    licenses: OriginLicenses = NO_LICENSES,
    profile: str = "",
    obey: Obey = Obey.ALL,
    held: str = "",
    now: float | None = None,
    sent: str = "",
) -> tuple[list[str], bool]:
    """One line per URL (with a note for a URL read as a path); and whether every URL is
    allowed. Each URL is decided as the crawl decides it, by
    :func:`scrapy_rep.verdict.decide`: robots.txt (``rules``; ``held``: it is unreachable
    now, and why its URLs are disallowed for now: :func:`held_reason`, temporary), then
    with ``request_rules`` the purposes, their extra agents, tdmrep.json and the RSL
    ``licenses`` of its ``License:`` lines. A robots.txt refusal shows its deciding line;
    any other refusal the crawl's own sentence; an override (``REP_OVERRIDES``) that lets
    a URL through, or has expired at ``now`` (POSIX seconds; ``None``: no override
    applies), is named. ``profile``: the robots.txt profile, for :func:`google_note`.
    ``sent``: the User-Agent the crawl would send when it names another crawler than
    ``user_agent`` (a project's ``ROBOTSTXT_USER_AGENT`` beside its ``USER_AGENT``): every
    name is held to, as in the crawl (:func:`~scrapy_rep.robotstxt.useragent.held_names`)."""
    lines = []
    all_allowed = True
    width = max(len(url) for url in urls)
    names = held_names(user_agent, sent)
    agent = names[0]
    documents = _documents(rules, tdm, licenses, held)
    decide_with = request_rules if request_rules is not None else RequestRules(explain=True)
    decide_with = replace(decide_with, explain=True)

    def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        return documents.get((kind, key if kind == LICENSE else None))

    for url in urls:
        facts = RequestFacts(url, origin_of(url) or _LOCAL, agent, obey, names)
        verdict = decide(facts, decide_with, known, now)
        allowed, why = _line(verdict, agent, profile, held)
        all_allowed = all_allowed and allowed
        verdict_word = "allowed   " if allowed else "DISALLOWED"
        lines.append(f"{verdict_word}  {url:<{width}}  {why}")
        if origin_of(url) is None and not url.startswith("/"):
            lines.append(f"            note: {url!r} has no scheme; it was read as a path")
    return lines, all_allowed


#: The origin a URL given as a path is checked under (a local robots.txt file).
_LOCAL: Final = Origin("file", "", None)


def _documents(
    rules: RobotsTxt,
    tdm: OriginTdm | None,
    licenses: OriginLicenses,
    held: str,
) -> dict[tuple[str, Hashable], CacheEntry[Any]]:
    """The documents a check read, as the entries the crawl would hold (one origin's:
    keyed by kind, and by URL for the licenses)."""
    found: dict[tuple[str, Hashable], CacheEntry[Any]] = {
        (ROBOTS, None): _entry(rules, held or None)
    }
    # tdmrep.json not read (a local robots.txt file: the check says so): nothing reserved
    found[TDM, None] = _entry(NO_FILE) if tdm is None else _entry(tdm.file, tdm.given_up)
    for url, document in licenses.documents:
        found[LICENSE, url] = _entry(document, None)
    return found


def _entry(rules: Any, given_up: str | None = None) -> CacheEntry[Any]:
    """A document as an entry: ``given_up``, the outcome of one given up on as
    unreachable (its requests are dropped)."""
    never = float("inf")
    outcome = given_up or "read by the checker"
    return CacheEntry(rules, outcome, 0.0, never, never, unreachable=given_up is not None)


def robots_allows(
    rules: RobotsTxt,
    url: str,
    user_agent: str,
    obey: Obey = Obey.ALL,
    request_rules: RequestRules | None = None,
    now: float | None = None,
    sent: str = "",
) -> bool:
    """Whether robots.txt alone lets ``url`` be fetched, as the crawl reads it (the tools
    fetch a page only then): for every name held to (``sent``: as :func:`report`), with
    ``request_rules``, its overrides that have not expired at ``now``."""
    entry = _entry(rules, None)
    names = held_names(user_agent, sent)
    facts = RequestFacts(url, origin_of(url) or _LOCAL, names[0], obey, names)
    robots_only = RequestRules(overrides=request_rules.overrides if request_rules else {})
    return not isinstance(decide(facts, robots_only, lambda kind, key: entry, now), Refused)


def _line(verdict: Verdict, agent: str, profile: str, held: str) -> tuple[bool, str]:
    """Whether the URL is allowed, and why, in the crawl's words (``held``: robots.txt is
    unreachable now: the crawl would hold the request, not drop it yet)."""
    if isinstance(verdict, Refused):
        if verdict.reason is Reason.ROBOTSTXT_UNREACHABLE and held:
            return False, held
        if verdict.reason is Reason.FORBIDDEN and verdict.agent == agent and verdict.robots:
            if verdict.expired is not None:
                return False, f"{verdict.robots.explanation}; {_expired(verdict.expired)}"
            return False, verdict.robots.explanation
        return False, verdict.message + google_note(verdict.signal, profile)
    if isinstance(verdict, Allowed):
        if not verdict.checked:
            return True, "not checked: ROBOTSTXT_OBEY is False and REP_PURPOSE is not set"
        if verdict.robots is None:
            return True, "Allow/Disallow not obeyed (ROBOTSTXT_OBEY = False)"
        if verdict.overridden is not None:
            return True, f"{verdict.robots.explanation}; {_overridden(verdict.overridden)}"
        return True, verdict.robots.explanation
    return True, f"not decided: the {verdict.document} of {verdict.key} was not read"


def _overridden(override: Override) -> str:
    """An override that lets a URL through, as the tools name it."""
    return f"overridden by REP_OVERRIDES: {override.described}"


def _expired(override: Override) -> str:
    """An override that no longer lets a URL through, as the tools name it."""
    return f"its override in REP_OVERRIDES expired: {override.described}"


def further_documents(
    robots_url: str,
    rules: RobotsTxt,
    request_rules: RequestRules,
    agent: str,
    timeout: float,
    give_up: Policy,
) -> tuple[OriginTdm | None, OriginLicenses]:
    """The documents after robots.txt that a crawl fetches for an origin, fetched as the
    crawl would for both tools: its tdmrep.json for AI purposes, and the RSL licenses its
    robots.txt names when a purpose is set (``give_up``: the crawl's ``REP_UNREACHABLE_*``
    settings, for :meth:`~scrapy_rep.fetch.rules.Policy.allows_when_given_up`)."""
    tdm = None
    if request_rules.policy.needs_tdmrep:
        origin_url = robots_url.removesuffix("/robots.txt")
        tdm = origin_tdm(origin_url, agent, timeout, give_up)
    return tdm, origin_licenses(rules, request_rules, agent, timeout)


#: Where ``check --example``'s robots.txt comes from, in its block's head.
EXAMPLE_TITLE: Final = "(the example bundled with scrapy_rep)"


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
        return [Source(EXAMPLE_TITLE, parse_robotstxt(body, profile), urls, [])]
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
        return [Source(f"{options.robots} (local file)", rules, options.urls, notes)]
    # The crawl's default waits: ``check`` has the --unreachable-action of a crawl alone.
    give_up = Policy(unreachable_action=options.unreachable_action)
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
        rules, notes = robots_verdict(fetched, give_up)
        if robots_url != first:
            notes.append(f"note: these URLs are on another origin than {options.robots}: "
                         "their own origin's robots.txt was fetched")  # fmt: skip
        title = f"{robots_url}: {fetched.outcome}"
        tdm, licenses = further_documents(
            robots_url, rules, options.request_rules, options.user_agent, options.timeout, give_up,
        )  # fmt: skip
        held = held_reason(fetched)
        sources.append(Source(title, rules, urls, notes, fetched.unreachable, tdm, licenses, held))
    return sources
