"""The command-line checker's side that needs no Scrapy (``python -m scrapy_rep check``,
and ``scrapy rep-robots`` for what they share), below both tools (:mod:`scrapy_rep.check`,
:mod:`scrapy_rep.crawl.commands`), so neither imports the other; standard library only.

What the two tools read from their command line, read one way for both (docs/cli.md,
"What the tools accept"): a URL to check, a path where a local robots.txt is given, a
robots.txt file, and ``--timeout``. Pure and without I/O: it says what an argument is and,
for a bad one, the one message of its kind, which both tools print as ``scrapy_rep: error:
<message>`` before they exit with status 2 (:data:`EXIT_USAGE`). Reading the file,
fetching and deciding are elsewhere. What it accepts:

- a URL: ``http://`` or ``https://`` with a host (RFC 3986 §3: scheme and authority).
  The tools check http(s) URLs only; an ``ftp:`` origin has a robots.txt of its own in
  a crawl (SPEC §3), but not in the tools. ``example.com/a``
  is refused, saying to add ``http://`` or ``https://``: the scheme is part of the
  origin (RFC 9309 §2.3: one robots.txt per protocol, host and port), so guessing it
  could check the URL against a robots.txt the crawl would never read.
- a path (``/a?b``): only where a local robots.txt is given (``check FILE``,
  ``check --example``, ``scrapy rep-robots --robots-file`` without ``--page`` or a
  purpose), which has no origin: the path is what robots.txt rules match (RFC 9309
  §2.2.2). Elsewhere: :class:`Paths`.
- ``check``'s first argument (:func:`first_is_url`) and ``--timeout``
  (:func:`parse_timeout`).

Both tools' one row (:data:`TOOL`: the arguments of each door, the runner, the exit
table; :mod:`rep_engine.commandline` makes the doors from it), and its runner, their one
front end once argparse has read their options (:func:`run`: the options' settings read
and checked as the crawl reads them, the URLs, the timeout and a local robots.txt read,
each URL once, then checked against that file or by the tools' crawl; a bad input said
by :func:`usage_error`).

What both tools print, and what they hand their crawl: :class:`ToolRequest`, the URLs a
tool asks about, the crawl's settings and whether each page is fetched, which
:mod:`scrapy_rep.crawl.commands.toolcrawl` runs as a crawl; :class:`Report`, what they
print of each URL's entry (:class:`Asked`: the crawl's, or :func:`local_entries`'
against a local robots.txt without a page fetched: no network), a block per robots.txt
(:func:`origin_head`) after the first line (:func:`user_agent_line`), a line per URL
(:func:`url_line`); a page fetched is the crawl's to print.
"""

from __future__ import annotations

import argparse
import enum
import math
import os
import re
import sys
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, TextIO
from urllib.parse import urlsplit

from rep_engine.commandline import (
    EACH_SETTING,
    PYTHON,
    SCRAPY,
    Door,
    Tool,
    UsageError,
    option_of,
    settings_of,
)
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import ROBOTS_TXT, TDMREP
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.records import (
    NOT_HAD,
    NOT_OBEYED,
    OVERRIDDEN_BY,
    Fate,
    Reason,
    UrlEntry,
    describe,
)
from rep_engine.robotstxt import ALLOW_ALL, RobotsTxt, parse_robotstxt
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES, PROFILES
from rep_engine.robotstxt.useragent import crawler_name, held_names
from rep_engine.settings import RepConfig, read_config
from rep_engine.settings.names import check_names, known_names
from rep_engine.settings.readers import RepSettingError, SettingsLike, read_bool, robots_agent
from rep_engine.settings.rules import request_rules, usage_policy
from rep_engine.trail.terminal import write_lines
from rep_engine.urls.origins import Origin, origin_of
from rep_engine.usage.purpose import UsageSignal
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import (
    ROBOTS,
    TDM,
    UNCHECKED,
    Allowed,
    Obey,
    Refused,
    RequestFacts,
    RequestRules,
    Verdict,
    decide,
    obey_of,
)
from rep_engine.verdict.policy import UsagePolicy

#: The schemes of a URL the tools check: robots.txt is fetched over http(s) only.
URL_SCHEMES: Final = ("http", "https")
#: The longest ``--timeout``, in seconds: a day. Nothing needs more per download, and the
#: reactor's timers overflow for far larger values.
MAX_TIMEOUT: Final = 86_400.0
#: ``scheme://`` at the start of an argument (RFC 3986 §3.1: a letter, then letters,
#: digits, ``+``, ``-`` or ``.``). Only with ``//``: ``localhost:8080/a`` or
#: ``example.com:81/a`` would otherwise read as the scheme ``localhost`` or
#: ``example.com`` (Python's ``urlsplit`` reads them so).
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
#: Characters no host name holds (RFC 3986 §3.2.2 reg-name; §2.2 delimiters outside it,
#: whitespace and controls).
_NOT_IN_HOST: Final = re.compile(r"[\x00-\x20\x7f<>\"{}|\\^`]")
#: The hint every URL message ends with.
ADD_SCHEME: Final = "give a URL with http:// or https://"


class InputError(ValueError):
    """An argument the tools cannot use; ``str()`` is the one message of its kind."""


class Paths(enum.Enum):
    """Whether a path (``/a``) is accepted where a URL is expected, and if not, why."""

    #: A local robots.txt is given and nothing is fetched per URL: a path is checked.
    ACCEPTED = "accepted"
    #: Each URL's own origin's robots.txt is fetched: a path has no origin.
    NEED_A_FILE = "a path is checked only against a local robots.txt file"
    #: ``scrapy rep-robots --page`` or a purpose fetches each page: a path cannot be.
    PAGES_FETCHED = "--page and --purpose (or REP_PURPOSE) fetch each page"


def parse_url(text: str, paths: Paths = Paths.NEED_A_FILE) -> str:
    """``text`` as a URL to check (or, where ``paths`` accepts one, a path), as given;
    :class:`InputError` with the message of its kind when the tools cannot check it."""
    if text.startswith("/") and not text.startswith("//"):
        if paths is Paths.ACCEPTED:
            return text
        raise InputError(f"{text!r} is a path: {paths.value}; {ADD_SCHEME}")
    match = _SCHEME.match(text)
    if match is None:
        if text.lower().startswith(("http:", "https:")):  # http:/a, https:example.com
            raise InputError(f"{text!r} is not a valid URL: no // after the scheme")
        raise InputError(f"{text!r} has no scheme: add http:// or https://")
    scheme = match.group(1).lower()
    if scheme not in URL_SCHEMES:
        hint = " (name a local robots.txt by its path)" if scheme == "file" else ""
        raise InputError(f"{text!r}: only http:// and https:// URLs are checked{hint}")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises ValueError for a port that is no number or too big)
    except ValueError as error:  # "Invalid IPv6 URL", "Port out of range 0-65535"
        raise InputError(f"{text!r} is not a valid URL: {error}") from None
    host = parts.hostname or ""
    if not host.strip("."):
        raise InputError(f"{text!r} is not a valid URL: it has no host")
    if _NOT_IN_HOST.search(host):
        why = f"its host {host!r} has a character a host name cannot have"
        raise InputError(f"{text!r} is not a valid URL: {why}")
    return text


def first_is_url(text: str, *, alone: bool, is_file: bool) -> bool:
    """Whether ``check``'s first argument (``ROBOTS_FILE_OR_URL``) is a URL: it has a
    scheme (``scheme://``: meant as a URL, never as a file); or it comes alone (``check
    URL``: a file alone has nothing to check) and names no file (``is_file``: the caller
    looked). Otherwise it is a robots.txt file."""
    return _SCHEME.match(text) is not None or (alone and not is_file)


def unreadable_file(path: str, reason: str) -> InputError:
    """A robots.txt file that cannot be read (``reason``: the system's words, such as
    ``No such file or directory``)."""
    return InputError(f"cannot read {path}: {reason}")


def parse_timeout(text: str) -> float:
    """``--timeout``: seconds for each fetch, greater than 0 and at most
    :data:`MAX_TIMEOUT` (not a number, ``nan``, ``inf``, 0 or less: :class:`InputError`)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_TIMEOUT:  # False for nan
        raise InputError(
            f"--timeout: expected a number of seconds greater than 0 and at most "
            f"{MAX_TIMEOUT:g}, got {text!r}"
        )
    return seconds


EXIT_ALLOWED: Final = 0
EXIT_DISALLOWED: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNREACHABLE: Final = 3


def usage_error(error: object) -> int:
    """Say ``error`` on standard error, as both tools say a bad input; the usage exit
    status."""
    print(f"scrapy_rep: error: {error}", file=sys.stderr)
    return EXIT_USAGE


#: What a default Scrapy project calls itself (``Scrapy/2.x (+https://scrapy.org)``).
DEFAULT_USER_AGENT: Final = "Scrapy"
#: What both tools add, in the google profile, to a robots.txt ``Content-Signal`` or
#: ``Content-Usage`` line they show: Google's parser lists both among its
#: ``kUnsupportedTags`` (google/robotstxt reporting_robots.cc, commit 4af32e5,
#: 2026-02-19): reported, never obeyed.
GOOGLE_IGNORES: Final = "read by scrapy_rep, ignored by Google's parser"
#: Why the crawl checks nothing of a request, nor fetches robots.txt.
NOTHING_OBEYED: Final = "ROBOTSTXT_OBEY is False and REP_PURPOSE is not set"
#: Where ``check --example``'s robots.txt comes from, in its block's head.
EXAMPLE_TITLE: Final = "(the example bundled with scrapy_rep)"


@dataclass(frozen=True)
class LocalRobots:
    """A robots.txt read from a file (or the bundled example), which decides every URL."""

    title: str
    body: bytes
    rules: RobotsTxt
    #: What a reader must know (a cut at 500 KiB, the URLs' origins).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolRequest:
    """What a tool asks its crawl: each URL once, with ``settings`` over the crawl's (the
    project's for ``scrapy rep-robots``, Scrapy's defaults for ``check``)."""

    urls: tuple[str, ...]
    settings: Mapping[str, Any]
    #: Each allowed page is fetched (``--page``; ``scrapy rep-robots`` with a purpose).
    pages: bool
    #: Seconds for each download.
    timeout: float
    #: Every usage signal about each page fetched is listed (a purpose was asked about).
    explain_usage: bool = False
    local: LocalRobots | None = None


#: What runs a tool's crawl and prints it: ``(request, out) -> exit status``.
Runner = Callable[[ToolRequest, TextIO], int]


def read_robots_file(path: Path, profile: str, title: str = "") -> LocalRobots:
    """A local robots.txt and what a reader must know about it (a cut at 500 KiB, with
    the line where it fell). Raises ``OSError`` when it cannot be read."""
    body = path.read_bytes()
    notes = []
    if len(body) > MAX_BODY_BYTES:
        line = body[:MAX_BODY_BYTES].count(b"\n") + 1
        notes.append(
            f"note: only the first 500 KiB ({MAX_BODY_BYTES:,} bytes) of {path} count, as "
            f"in a crawl; the cut falls in line {line}, whose part before the cut is read "
            "only if it can only restrict (a Disallow line), and everything after it is "
            "ignored"
        )
    rules = parse_robotstxt(body, profile)  # over 500 KiB: cut there, read as cut
    return LocalRobots(title or f"{path} (local file)", body, rules, tuple(notes))


def example_robots(profile: str) -> LocalRobots:
    """The robots.txt bundled with scrapy_rep (``check --example``)."""
    body = resources.files("scrapy_rep").joinpath("examples/robots.txt").read_bytes()
    return LocalRobots(EXAMPLE_TITLE, body, parse_robotstxt(body, profile))


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
    title: str, notes: Sequence[str], rules: RobotsTxt, agent: str, documents: Sequence[str] = ()
) -> list[str]:
    """The head of one robots.txt's block, as both tools print it: a blank line, then
    ``robots.txt`` with where it came from (``URL: outcome``, ``FILE (local file)``) and,
    indented below, the notes, the origin's further ``documents`` (a line for its
    tdmrep.json, and for each RSL license), the crawl-delay and the sitemaps. Its URLs'
    lines follow, indented as much."""
    head = ["", f"robots.txt {title}", *(f"  {note}" for note in notes)]
    head += [f"  {line}" for line in documents]
    delay = rules.crawl_delay(agent)
    head.append(f"  crawl-delay: {'none' if delay is None else f'{delay:g} s'}")
    head += [f"  sitemap: {sitemap}" for sitemap in rules.sitemaps]
    return head


def held_reason(status: int | None) -> str:
    """Why both tools call a URL disallowed while its robots.txt is unreachable (SPEC §4:
    a 429, 5xx or network error disallows everything for now): temporary, and not what a
    crawl does at once, which holds the request and retries."""
    said = f"answers {status}" if status is not None else "is unreachable"
    return f"disallowed while robots.txt {said} (temporary; a crawl holds the request and retries)"


def decided(url: str, verdict: Verdict, facts: RequestFacts | None) -> UrlEntry:
    """The entry of a request the crawl would decide so, not fetched (against a local
    robots.txt; :data:`~rep_engine.verdict.decide.UNCHECKED` when nothing is obeyed): refused,
    with its reason and sentence, or not yet sent."""
    entry = UrlEntry(url)
    if isinstance(verdict, Refused):
        entry.fate, entry.reason, entry.why = Fate.REFUSED, verdict.reason, verdict.message
    entry.decision = (verdict, facts)
    return entry


def url_line(entry: UrlEntry | None, profile: str, held: str) -> tuple[bool, str]:
    """Whether the request of ``entry`` (the tools' crawl's, or :func:`decided` against a
    local robots.txt; ``None``: the crawl did not decide it) is allowed, and why, in the crawl's
    words: a refusal as :func:`~rep_engine.records.describe` says it (its sentence), or
    robots.txt's deciding line by its own name (read from the version that decided it, when
    the crawl kept none) with the override that let it through or has expired (``held``:
    robots.txt is unreachable for now; ``profile``: for :func:`google_note`)."""
    verdict, facts = entry.decision if entry is not None and entry.decision else (None, None)
    url = entry.url if entry is not None else ""
    agent = facts.agent if facts is not None else ""
    said = describe(entry) if entry is not None else None
    if said is not None and said.refused:
        if not isinstance(verdict, Refused):  # dropped without a verdict (the spider closed)
            return False, said.why
        if verdict.reason is Reason.ROBOTSTXT_UNREACHABLE and held:
            return False, held
        if verdict.reason is Reason.FORBIDDEN and verdict.agent == agent and verdict.robots:
            if verdict.expired is not None:
                expired = f"its override in REP_OVERRIDES expired: {verdict.expired.described}"
                return False, f"{verdict.robots.explanation}; {expired}"
            return False, verdict.robots.explanation
        return False, said.why + google_note(verdict.signal, profile)
    if isinstance(verdict, Allowed):
        if not verdict.checked:
            return True, f"not checked: {NOTHING_OBEYED}"
        if not verdict.obeyed:
            return True, NOT_OBEYED["ROBOTSTXT_OBEY"]  # the tools set no dont_obey_robotstxt
        robots = verdict.robots
        if robots is None:  # the crawl keeps the line only for its trail
            document = verdict.robots_entry
            assert document is not None  # checked
            robots = document.rules.decide(url, agent)
        if verdict.overridden is not None:
            return True, f"{robots.explanation}; {OVERRIDDEN_BY}{verdict.overridden.described}"
        return True, robots.explanation
    if verdict is None:
        return True, "no verdict: the crawl did not decide it"
    return True, f"not decided: the {verdict.document} of {verdict.key} was not read"


#: The origin a URL given as a path is checked under (a local robots.txt file).
_LOCAL: Final = Origin("file", "", None)


def local_entries(
    rules: RobotsTxt,
    urls: Sequence[str],
    user_agent: str,
    request_rules: RequestRules | None = None,
    obey: Obey = Obey.ALL,
    now: float | None = None,
    sent: str = "",
) -> list[Asked]:
    """Each URL decided against a local robots.txt (``rules``), without fetching, as the
    crawl decides it, by :func:`rep_engine.verdict.decide.decide`, for every name its
    requests are held to (``sent``: the User-Agent the crawl sends, when it names another
    crawler than ``user_agent``); no tdmrep.json or RSL license is read (the URLs have no
    origin here). ``now``: POSIX seconds, against which an override's expiry is held."""
    names = held_names(user_agent, sent)
    never = float("inf")
    entries: dict[str, CacheEntry[Any]] = {  # tdmrep.json not read: nothing reserved
        ROBOTS: CacheEntry(rules, "read by the checker", 0.0, never, never),
        TDM: CacheEntry(NO_FILE, "not read", 0.0, never, never),
    }
    decide_with = replace(request_rules or RequestRules(), explain=True)

    def known(kind: str, key: Hashable) -> CacheEntry[Any] | None:
        return entries.get(kind)

    asked = []
    for url in urls:
        facts = RequestFacts(url, origin_of(url) or _LOCAL, names[0], obey, names)
        asked.append(Asked(url, decided(url, decide(facts, decide_with, known, now), facts)))
    return asked


def local_check(
    request: ToolRequest, settings: SettingsLike, obey_setting: bool, out: TextIO
) -> int:
    """What both tools print for ``request``'s URLs against its local robots.txt, nothing
    fetched (the verdict a crawl with the same file and ``settings`` would reach;
    ``obey_setting``: ``ROBOTSTXT_OBEY`` as the crawl has it; a purpose asked about:
    ``REP_PURPOSE`` was set); the exit status."""
    assert request.local is not None
    agent, sent = robots_agent(settings), str(settings.get("USER_AGENT") or "")
    config = RepConfig.from_settings(settings)
    rules = request_rules(config, request.explain_usage)
    notes = list(request.local.notes)
    if rules.policy.needs_tdmrep:
        notes.append("note: tdmrep.json is not checked against a local robots.txt file")
    origins = {origin_of(url) for url in request.urls} - {None}
    if len(origins) > 1:
        notes.append(
            f"note: the URLs are on {len(origins)} origins; in a crawl each origin has its "
            "own robots.txt, here this file is checked for all of them"
        )
    obey = obey_of(obey_setting, request.explain_usage)
    asked = local_entries(request.local.rules, request.urls, agent, rules, obey, time.time(), sent)
    local = replace(request, local=replace(request.local, notes=tuple(notes)))
    return Report(local, settings, config, out).run(asked)


@dataclass
class Asked:
    """What the crawl did with one URL a tool asked about (against a local robots.txt
    without a page fetched: its entry alone, :func:`local_entries`)."""

    url: str
    #: Its request's entry, as the URL ledger settled it (``None``: none was: nothing was
    #: obeyed, or the crawl did not get that far).
    entry: UrlEntry | None = None
    #: The entry of the last redirect followed from it (``None``: none).
    hop: UrlEntry | None = None
    #: Its page, as the spider got it (after redirects; a Scrapy ``Response``).
    response: Any = None
    #: Why its page could not be had.
    failure: str = ""
    #: A downloaded file held against the crawl's AI purposes by the media gate (its
    #: ``FileVerdict``).
    file: Any = None
    #: Its page's verdict refused a purpose of the crawl, whose items the page pass kept and
    #: marked (``REP_PURPOSE_ACTION = "mark"``): that refusal (``None``: none).
    marked: Refused | None = None

    @property
    def page(self) -> UrlEntry | None:
        """The entry of the request that got its page: the last redirect's, else its own."""
        return self.hop if self.hop is not None else self.entry


@dataclass(frozen=True)
class Announced:
    """A document's first outcome in the crawl (a later one may be its give-up)."""

    outcome: str
    status: int | None
    #: robots.txt's rules (the last announced).
    rules: RobotsTxt | None = None


class Report:
    """What a tool prints, both tools alike (docs/cli.md): the first line, a block per
    robots.txt (a local one's alone), a line per URL; a page fetched is the tools' crawl's
    to print (:class:`scrapy_rep.crawl.commands.toolcrawl.Printer`)."""

    def __init__(
        self, request: ToolRequest, settings: SettingsLike, config: RepConfig, out: TextIO
    ) -> None:
        self.request = request
        self.config = config
        self.out = out
        self.agent = robots_agent(settings)
        self.names = held_names(self.agent, str(settings.get("USER_AGENT") or ""))
        #: The purposes whose usage signals are listed (a purpose was asked about).
        self.policy: UsagePolicy | None = usage_policy(config) if request.explain_usage else None
        self.profile = config.profile

    def say(self, *lines: str) -> None:
        """Print each line, every character a site could control made visible
        (:func:`~rep_engine.trail.terminal.printable`: a CR, LF or ESC in a header or a meta
        tag prints as an escape, never as a line of its own)."""
        write_lines(lines, self.out)

    def run(
        self,
        asked: list[Asked],
        documents: Mapping[tuple[str, str], Announced] = MappingProxyType({}),
        unchecked: bool = False,
    ) -> int:
        """Print the whole output of ``asked`` (each URL's entry; ``documents``, each
        document's first outcome in the crawl; ``unchecked``: nothing was obeyed); the exit
        status (the worst)."""
        self.say(user_agent_line(self.agent, self.profile, self.names))
        by_origin: dict[str, list[Asked]] = {}
        for one in asked:
            by_origin.setdefault(str(origin_of(one.url)), []).append(one)
        # a local file decides every origin's URLs, in the order given
        blocks = [("", asked)] if self.request.local is not None else list(by_origin.items())
        codes = (self.block(documents, unchecked, key, group) for key, group in blocks)
        return max([EXIT_ALLOWED, *codes])

    def block(
        self,
        documents: Mapping[tuple[str, str], Announced],
        unchecked: bool,
        origin: str,
        group: list[Asked],
    ) -> int:
        """One robots.txt's block (its head, then a line per URL); its exit code."""
        local = self.request.local
        robots = documents.get((ROBOTS_TXT.name, origin))
        code = EXIT_ALLOWED
        if local is not None:
            title, notes, rules = local.title, list(local.notes), local.rules
        else:
            outcome = robots.outcome if robots else f"not fetched ({NOTHING_OBEYED})"
            title = f"{origin}/robots.txt: {outcome}"
            notes, rules = [], (robots.rules if robots and robots.rules else ALLOW_ALL)
            notes += self._unreachable_notes(group)
        origins = dict.fromkeys(str(origin_of(asked.url)) for asked in group)
        others = [
            f"tdmrep.json {key}{TDMREP.path}: {tdm.outcome}"
            for key in origins
            if (tdm := documents.get((TDMREP.name, key))) is not None
        ]
        others += [
            f"RSL license {url}: {announced.outcome}"
            for url in rules.licenses
            if (announced := documents.get((RSL.name, url))) is not None
        ]
        self.say(*origin_head(title, notes, rules, self.agent, others))
        held = ""
        if robots is not None and _unreachable(group, ROBOTS_TXT.name):
            held = held_reason(robots.status)
        width = max(len(asked.url) for asked in group)
        for asked in group:
            entry = decided(asked.url, UNCHECKED, None) if unchecked else asked.entry
            allowed, why = url_line(entry, self.profile, held)
            word = "allowed   " if allowed else "DISALLOWED"
            self.say(f"  {word}  {asked.url:<{width}}  {why}")
            if not allowed:
                code = max(code, EXIT_DISALLOWED)
            elif self.request.pages:
                code = max(code, self.page(asked))
        if _unreachable(group, None):
            code = EXIT_UNREACHABLE
        return code

    def _unreachable_notes(self, group: list[Asked]) -> list[str]:
        """What the crawl does once it gives up on an unreachable robots.txt, under "allow"."""
        if self.config.unreachable_action != "allow" or not _unreachable(group, ROBOTS_TXT.name):
            return []
        if any(isinstance(_verdict(asked.entry), Allowed) for asked in group):
            return ["note: unreachable: the crawl holds its requests, then lets them through "
                    "(REP_UNREACHABLE_ACTION = allow)"]  # fmt: skip
        return ["note: unreachable, and the host cannot be connected to: the crawl gives up "
                "on it after REP_UNREACHABLE_CONNECT_MAX_WAIT and drops its requests, even "
                "with REP_UNREACHABLE_ACTION = allow"]  # fmt: skip

    def page(self, asked: Asked) -> int:
        """What the crawl got for an allowed URL (the tools' crawl's: no page is fetched
        without it); its exit code."""
        raise NotImplementedError


def _verdict(entry: UrlEntry | None) -> Allowed | Refused | None:
    """The verdict ``entry``'s request was decided with (``None``: none)."""
    return entry.decision[0] if entry is not None and entry.decision else None


def _unreachable(group: list[Asked], kind: str | None) -> bool:
    """Whether a document of ``kind`` (``None``: any) the group's requests were decided
    with could not be had (the crawl gave up on it)."""
    for asked in group:
        verdict = _verdict(asked.entry)
        used = verdict.used if verdict is not None else ()
        if any(entry.unreachable for name, _, entry in used if kind in (None, name)):
            return True
        if kind is None and isinstance(verdict, Refused) and verdict.reason in NOT_HAD:
            return True
    return False


#: What ``check`` does, as its ``--help`` and ``python -m scrapy_rep --help`` say it.
SUMMARY: Final = "check URLs against a robots.txt"
#: What each exit status of both doors means (docs/cli.md).
EXITS: Final[dict[int | str, str]] = {
    EXIT_ALLOWED: "every URL is allowed",
    EXIT_DISALLOWED: "at least one URL is disallowed (or, with --purpose, denied for a "
    "purpose, or its fetched page's items are dropped)",
    EXIT_USAGE: "usage error: a wrong argument, option or setting, an unreadable file",
    EXIT_UNREACHABLE: "a robots.txt (or a tdmrep.json, or with --page, and for scrapy "
    "rep-robots with --purpose too, a page) could not be fetched: the verdicts shown for its "
    'URLs are temporary ("everything disallowed for now")',
}
#: The arguments of both doors (:class:`rep_engine.commandline.Tool` rows): ``python -m
#: scrapy_rep check``'s options are the crawl's settings; ``scrapy rep-robots`` has the
#: project's, and names the robots.txt file by an option.
ARGUMENTS: Final = (
    ("robots", {"metavar": "ROBOTS_FILE_OR_URL", "nargs": "?", "door": PYTHON,
                "help": "a robots.txt file; or the first URL to check (http or https)"}),
    ("urls", {"metavar": "URL", "nargs": "*",
              "help": "the URLs to check (http or https; against a file, a path)"}),
    ("--robots-file", {"metavar": "FILE", "door": SCRAPY, "help": "check against this robots.txt"}),
    ("--example", {"action": "store_true", "door": PYTHON, "help": "use the robots.txt "
                   "bundled with scrapy_rep; every argument is then a URL"}),
    ("--page", {"action": "store_true", "help": "also fetch each URL robots.txt allows, as the "
                "crawl would: its directives, with --purpose its usage signals, and what the "
                "crawl does with its items"}),
    ("--user-agent", "-A", {"default": DEFAULT_USER_AGENT, "setting": "USER_AGENT",
                            "door": PYTHON, "help": "USER_AGENT: a product token or a full "
                            f"User-Agent (default: {DEFAULT_USER_AGENT})"}),
    ("--user-agent", "-A", {"setting": ("USER_AGENT", "ROBOTSTXT_USER_AGENT"), "door": SCRAPY,
                            "help": "the crawler's User-Agent or product token"}),
    ("--profile", {"setting": "REP_PROFILE", "door": PYTHON,
                   "help": "REP_PROFILE: google (default), rfc9309, legacy"}),
    ("--rep-profile", {"choices": PROFILES, "setting": "REP_PROFILE", "door": SCRAPY,
                       "help": "the robots.txt profile (REP_PROFILE; Scrapy's own "
                       "--profile writes a cProfile file)"}),
    ("--timeout", {"default": "10",
                   "help": "seconds for each download (default: 10; at most 86400)"}),
    ("--purpose", {"setting": "REP_PURPOSE", "door": PYTHON,
                   "help": "REP_PURPOSE: search (default), ai-train, ai-input, comma-separated"}),
    ("--purpose", {"metavar": "PURPOSE", "setting": "REP_PURPOSE", "door": SCRAPY,
                   "help": "explain the AI-usage signals for these purposes (search, ai-train, "
                   "ai-input; comma-separated); fetches each allowed page"}),
    ("--no-robotstxt-obey", {"dest": "robotstxt_obey", "action": "store_const", "const": False,
                             "setting": "ROBOTSTXT_OBEY", "door": PYTHON, "help": "as "
                             "ROBOTSTXT_OBEY = False: only the opt-outs of a --purpose given "
                             "are checked"}),
    ("--purpose-agents", {"setting": "REP_PURPOSE_AGENTS", "door": PYTHON,
                          "help": "REP_PURPOSE_AGENTS, comma-separated"}),
    ("--rsl-licenses", {"setting": "REP_RSL_LICENSES", "door": PYTHON,
                        "help": "REP_RSL_LICENSES, comma-separated"}),
    ("--overrides", {"metavar": "JSON", "setting": "REP_OVERRIDES", "door": PYTHON,
                     "help": 'REP_OVERRIDES as JSON: [{"host": …, "reason": …, "expires": …}]'}),
    ("--unreachable-action", {"choices": ("drop", "allow"), "setting": "REP_UNREACHABLE_ACTION",
                              "door": PYTHON, "help": "REP_UNREACHABLE_ACTION"}),
    ("-s", "--set", {"metavar": "NAME=VALUE", "action": "append", "default": [],
                     "setting": EACH_SETTING, "door": PYTHON, "help": "any other setting of the "
                     "crawl (REP_DIRECTIVE_TOKENS=mybot, REP_META_IN_NOSCRIPT=False, "
                     "DOWNLOAD_MAXSIZE=…), as scrapy's -s"}),
)  # fmt: skip
#: Both doors of the checker: ``python -m scrapy_rep check`` and ``scrapy rep-robots``.
TOOL: Final = Tool(
    name="check",
    synopsis="ROBOTS_FILE_OR_URL URL...",
    summary=SUMMARY,
    about="Check URLs against a robots.txt: each URL's own origin's, fetched (and with --page "
    "the page too) by a crawl with the options' settings (under scrapy, over the project's: "
    "REP_PROFILE, ROBOTSTXT_USER_AGENT or USER_AGENT, REP_PURPOSE...), or a local file's.",
    exits=EXITS,
    arguments=ARGUMENTS,
    runner="scrapy_rep.checker:run",
    scrapy="rep-robots",
)


def run(options: argparse.Namespace, out: TextIO, door: Door) -> int:
    """Both doors of the checker once argparse has read them, one front end (the same
    words for the same input): the options' settings over the project's (``scrapy
    rep-robots``), read and checked as the crawl reads them (a bad one named by its option
    where it was given by one); the timeout and each URL read (a path only against a local
    robots.txt without a page fetched: :class:`Paths`), the local robots.txt (a file, or
    the bundled one: ``--example``) read before any output, each URL once; then each
    checked against that file (:func:`local_check`) or by the crawl the door hands
    (``None``: only a local robots.txt can be checked, without a page). ``scrapy
    rep-robots`` also fetches each page for a purpose set. The exit status; a bad input is
    one line on standard error (:func:`usage_error`)."""
    given: dict[str, Any] = {}
    try:
        given = settings_of(TOOL, options, door.kind)
        settings = {**(door.project or {}), **given}
        file, urls = _read_arguments(options, door.kind)
        check_names(settings, known_names(), read_config(settings).unknown_settings)
    except (InputError, UsageError) as error:
        return usage_error(error)
    except RepSettingError as error:
        return usage_error(_as_option(str(error), options, door.kind))
    purpose_set = "REP_PURPOSE" in settings
    pages = bool(options.page or (purpose_set and door.kind == SCRAPY))
    example = getattr(options, "example", False)
    paths = Paths.PAGES_FETCHED if pages else Paths.ACCEPTED
    paths = paths if file is not None or example else Paths.NEED_A_FILE
    try:
        seconds = parse_timeout(options.timeout)
        checked = tuple(dict.fromkeys(parse_url(url, paths) for url in urls))
        profile = str(settings.get("REP_PROFILE") or "google")
        robots = example_robots(profile) if example else None
        if file is not None:
            robots = read_robots_file(Path(file), profile)
    except InputError as error:
        return usage_error(error)
    except OSError as error:
        return usage_error(unreadable_file(str(file), error.strerror or str(error)))
    request = ToolRequest(checked, given, pages, seconds, purpose_set, robots)
    if robots is not None and not pages:
        return local_check(request, settings, read_bool(settings, "ROBOTSTXT_OBEY", True), out)
    return (door.crawl or _no_crawl)(request, out)


def _no_crawl(request: ToolRequest, out: TextIO) -> int:
    """The checker run without the tools' crawl (not as ``python -m scrapy_rep check``)."""
    return usage_error("run it as python -m scrapy_rep check")


def _as_option(message: str, options: argparse.Namespace, door: str) -> str:
    """A settings reader's message (``REP_PURPOSE_AGENTS: …``) as the option's
    (``--purpose-agents: …``), for a setting an option set: only the name before the
    first colon is rewritten, never the value quoted after."""
    name, colon, rest = message.partition(":")
    flag = option_of(TOOL, options, door, name)
    return f"{flag}{colon}{rest}" if flag else message


def _read_arguments(options: argparse.Namespace, door: str) -> tuple[str | None, list[str]]:
    """The local robots.txt file (``None``: each URL's own origin's is fetched, or the
    bundled one with ``--example``) and every URL to check, as given (:func:`run` reads
    them): ``check``'s first argument is the file unless it is a URL
    (:func:`first_is_url`). Raises :class:`InputError` when no URL is given."""
    urls, first = options.urls, getattr(options, "robots", None)
    file = getattr(options, "robots_file", None)
    if getattr(options, "example", False):
        urls = ([first] if first else []) + urls
    elif first and first_is_url(first, alone=not urls, is_file=os.path.exists(first)):
        urls = [first, *urls]
    elif first:
        file = first
    if not urls:
        hint = " (after a robots.txt file, or with --example, to check against a local file)"
        raise InputError(f"give at least one URL{hint if door == PYTHON else ''}")
    return file, urls
