"""robots.txt: bytes -> :class:`RobotsTxt` (groups, sitemaps, crawl-delay) and ``allowed()``.

Pure: no Scrapy or Twisted imports. The behaviour is SPEC §1 (profile "google") and the
switch table of SPEC §2 ("rfc9309", "legacy"); each switch is a field of
:class:`ParseOptions` and can be overridden on its own::

    rules = parse_robotstxt(body)                              # google
    rules = parse_robotstxt(body, "rfc9309")
    rules = parse_robotstxt(body, "google", merge_groups=False)  # one switch changed

Parsing never raises on content: lines that are not ``key: value`` are skipped and
logged at DEBUG. Only a wrong argument type raises :class:`TypeError`.
"""

from __future__ import annotations

import logging
import math
import re
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from typing import Any, Final, Literal

from scrapy_rep._matching import (
    FirstMatcher,
    LongestMatcher,
    Rule,
    normalise_pattern,
    normalise_url_path,
    path_of,
)
from scrapy_rep.useragent import product_token

logger = logging.getLogger(__name__)

#: SPEC §1 / Google: only the first 500 KiB of a body count (RFC 9309 §2.5 asks for >= 500 KiB).
MAX_BODY_BYTES: Final = 512_000
#: Google's line limit: 2083 × 8 bytes (SPEC §1); longer lines are cut.
GOOGLE_MAX_LINE_BYTES: Final = 2083 * 8
#: At most this many distinct user-agent strings are remembered per file (bounded memory).
_AGENT_CACHE_SIZE: Final = 64

Profile = Literal["google", "rfc9309", "legacy"]


@dataclass(frozen=True)
class ParseOptions:
    """The switches of SPEC §2; a profile is a bundle of them."""

    #: ``"longest"``: longest pattern wins, allow wins ties; ``"first"``: first matching line.
    precedence: Literal["longest", "first"] = "longest"
    #: ``*`` and a final ``$`` are wildcards (otherwise plain prefix matching).
    wildcards: bool = True
    #: ``"token"``: exact product token; ``"substring"``: record name is a substring of ours.
    agent_match: Literal["token", "substring"] = "token"
    #: All groups naming the agent are merged (otherwise the first matching record only).
    merge_groups: bool = True
    #: A blank line ends a record (1994 standard).
    blank_line_ends_group: bool = False
    #: Accept Google's misspelled keys and a missing colon.
    lenient_syntax: bool = True
    #: Lines are cut after this many bytes (``None``: no limit).
    max_line_length: int | None = GOOGLE_MAX_LINE_BYTES
    #: ``allow: /d/index.html`` also allows ``/d/`` (Google).
    index_html_is_directory: bool = True
    #: ``/robots.txt`` is always allowed (RFC 9309 §2.2.2).
    robots_txt_always_allowed: bool = False
    #: ``"google"``, ``"rfc9309"`` or ``"none"``: see :func:`normalise_pattern`.
    percent_encoding: Literal["google", "rfc9309", "none"] = "google"
    #: Whether a crawler should honour crawl-delay by default (the middleware reads this).
    obey_crawl_delay: bool = False

    def __post_init__(self) -> None:
        _check_choice("precedence", self.precedence, ("longest", "first"))
        _check_choice("agent_match", self.agent_match, ("token", "substring"))
        _check_choice("percent_encoding", self.percent_encoding, ("google", "rfc9309", "none"))
        for name in (
            "wildcards",
            "merge_groups",
            "blank_line_ends_group",
            "lenient_syntax",
            "index_html_is_directory",
            "robots_txt_always_allowed",
            "obey_crawl_delay",
        ):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool, not {type(getattr(self, name)).__name__}")
        limit = self.max_line_length
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise TypeError(f"max_line_length must be an int or None, not {type(limit).__name__}")
        if limit is not None and limit < 1:
            raise ValueError(f"max_line_length must be at least 1, got {limit}")


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


#: SPEC §2: each profile as a bundle of switches.
PROFILES: Final[dict[str, ParseOptions]] = {
    "google": ParseOptions(),
    "rfc9309": ParseOptions(
        lenient_syntax=False,
        max_line_length=None,
        index_html_is_directory=False,
        robots_txt_always_allowed=True,
        percent_encoding="rfc9309",
    ),
    "legacy": ParseOptions(
        precedence="first",
        wildcards=False,
        agent_match="substring",
        merge_groups=False,
        blank_line_ends_group=True,
        lenient_syntax=False,
        max_line_length=None,
        index_html_is_directory=False,
        percent_encoding="none",
        obey_crawl_delay=True,
    ),
}

_SWITCHES: Final = frozenset(f.name for f in fields(ParseOptions))


def profile_options(profile: str = "google", **switches: Any) -> ParseOptions:
    """The options of ``profile`` with ``switches`` overriding single fields."""
    if not isinstance(profile, str):
        raise TypeError(f"profile must be str, not {type(profile).__name__}")
    try:
        options = PROFILES[profile]
    except KeyError:
        raise ValueError(
            f"unknown profile {profile!r}; expected one of {', '.join(map(repr, PROFILES))}"
        ) from None
    unknown = set(switches) - _SWITCHES
    if unknown:
        raise TypeError(f"unknown switch(es): {', '.join(sorted(unknown))}")
    return replace(options, **switches) if switches else options


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Decision:
    """The verdict for one URL and the robots.txt line that gave it."""

    allowed: bool
    #: 1-based line number of the deciding rule, ``None`` when no rule applied.
    line: int | None = None
    #: ``"allow"`` or ``"disallow"``, ``None`` when no rule applied.
    rule: Literal["allow", "disallow"] | None = None
    #: The pattern as written in the file.
    pattern: str | None = None
    #: The rule's line as written, without its comment (``Disallow: /private``).
    line_text: str | None = None
    #: Why there is no rule, e.g. "no group for this agent"; "" when a rule decided.
    reason: str = ""

    @property
    def explanation(self) -> str:
        """``line 9: Disallow: /x`` when a rule decided, else the reason."""
        return f"line {self.line}: {self.line_text}" if self.line is not None else self.reason

    def __str__(self) -> str:
        verdict = "allowed" if self.allowed else "disallowed"
        if self.line is None:
            return f"{verdict} ({self.reason})" if self.reason else verdict
        return f"{verdict} by line {self.line}: {self.line_text}"


@dataclass(frozen=True)
class ContentSignals:
    """The Content Signals of a group (``Content-Signal: search=yes, ai-train=no``)."""

    search: bool | None = None
    ai_input: bool | None = None
    ai_train: bool | None = None


_NO_SIGNALS: Final = ContentSignals()


class _Group:
    """One group as written: its rules in file order, crawl-delay and content signals.

    Rules are stored flat (no object per rule) because broad crawls keep many parsed
    files in memory; :meth:`rules` builds :class:`Rule` tuples when a group is compiled.
    """

    __slots__ = ("crawl_delay", "keys", "lines", "signals", "values")

    def __init__(self) -> None:
        #: Line number of each rule, positive for allow, negative for disallow.
        self.lines = array("l")
        self.keys: list[str] = []
        self.values: list[str] = []
        self.crawl_delay: float | None = None
        self.signals: dict[str, bool] | None = None

    def add_rule(self, allow: bool, line: int, key: str, value: str) -> None:
        self.lines.append(line if allow else -line)
        self.keys.append(key)
        self.values.append(value)

    def rules(self) -> Iterator[Rule]:
        for line, key, value in zip(self.lines, self.keys, self.values, strict=True):
            yield Rule(line > 0, abs(line), key, value)


class _Selection:
    """The groups that apply to one crawler, compiled lazily for matching."""

    __slots__ = ("crawl_delay", "groups", "matcher", "reason", "signals")

    def __init__(self, groups: list[_Group], reason: str) -> None:
        self.groups = groups
        self.reason = reason
        self.matcher: LongestMatcher | FirstMatcher | None = None
        delays = [g.crawl_delay for g in groups if g.crawl_delay is not None]
        # Merged groups: the largest delay (the most polite reading).
        self.crawl_delay = max(delays) if delays else None
        self.signals = _merge_signals(groups)


def _merge_signals(groups: list[_Group]) -> ContentSignals:
    merged: dict[str, bool] = {}
    for group in groups:
        for name, value in (group.signals or {}).items():
            # The more restrictive wins: one "no" beats any "yes".
            merged[name] = merged.get(name, True) and value
    if not merged:
        return _NO_SIGNALS
    return ContentSignals(merged.get("search"), merged.get("ai_input"), merged.get("ai_train"))


class RobotsTxt:
    """A parsed robots.txt. Immutable from the outside; safe to share between requests."""

    __slots__ = ("_by_token", "_cache", "_global", "_records", "options", "sitemaps", "verdict")

    def __init__(
        self,
        options: ParseOptions,
        records: list[tuple[tuple[str, ...], _Group]],
        sitemaps: tuple[str, ...],
        verdict: bool | None = None,
    ) -> None:
        #: The switches this file was parsed with.
        self.options = options
        #: ``Sitemap:`` URLs in file order, without duplicates.
        self.sitemaps = sitemaps
        #: ``True``/``False`` for the allow-all / disallow-all stand-ins, else ``None``.
        self.verdict = verdict
        self._records = records
        self._by_token: dict[str, list[_Group]] = {}
        self._global: list[_Group] = []
        for agents, group in records:
            for agent in agents:
                if agent == "*":
                    self._global.append(group)
                elif agent:
                    self._by_token.setdefault(agent, []).append(group)
        self._cache: dict[str, _Selection] = {}

    def __repr__(self) -> str:
        if self.verdict is not None:
            return f"<RobotsTxt {'allow' if self.verdict else 'disallow'}-all>"
        return f"<RobotsTxt groups={len(self._records)} sitemaps={len(self.sitemaps)}>"

    # ---------------------------------------------------------------- queries

    def allowed(self, url: str, user_agent: str) -> bool:
        """May ``user_agent`` (a product token or a full User-Agent) fetch ``url``?"""
        rule = self._rule(url, user_agent)
        if self.verdict is not None:
            return self.verdict
        return rule is None or rule.allow

    def decide(self, url: str, user_agent: str) -> Decision:
        """The verdict for ``url`` and the line that gave it (SPEC §1 "Rule matching")."""
        rule = self._rule(url, user_agent)
        if self.verdict is not None:
            return _ALLOW_ALL_DECISION if self.verdict else _DISALLOW_ALL_DECISION
        if rule is not None:
            value = _text(rule.value)
            kind: Literal["allow", "disallow"] = "allow" if rule.allow else "disallow"
            return Decision(rule.allow, rule.line, kind, value, f"{rule.key}: {value}")
        if self.options.robots_txt_always_allowed and path_of(url) == "/robots.txt":
            return Decision(True, reason="/robots.txt is always allowed (RFC 9309 §2.2.2)")
        return Decision(True, reason=self._selection(user_agent).reason or "no rule matches")

    def crawl_delay(self, user_agent: str) -> float | None:
        """The ``Crawl-delay`` (seconds) of the group that applies to ``user_agent``."""
        return self._selection(user_agent).crawl_delay

    def content_signals(self, user_agent: str) -> ContentSignals:
        """The ``Content-Signal`` values of the group that applies to ``user_agent``."""
        return self._selection(user_agent).signals

    @property
    def user_agents(self) -> tuple[str, ...]:
        """The product tokens named by the file's groups (``*`` for the global group)."""
        seen = dict.fromkeys(agent for agents, _ in self._records for agent in agents if agent)
        return tuple(seen)

    # ---------------------------------------------------------------- internals

    def _rule(self, url: str, user_agent: str) -> Rule | None:
        """The deciding rule for ``url``, ``None`` when none applies (the hot path)."""
        if not isinstance(url, str):
            raise TypeError(f"url must be str, not {type(url).__name__}")
        selection = self._cache.get(user_agent) if isinstance(user_agent, str) else None
        if selection is None:
            selection = self._select(user_agent)
        if self.verdict is not None:
            return None
        matcher = selection.matcher
        if matcher is None:
            matcher = selection.matcher = self._compile(selection.groups)
        path = path_of(url)
        options = self.options
        if options.robots_txt_always_allowed and path == "/robots.txt":
            return None
        if not path.isascii() or options.percent_encoding == "rfc9309":
            path = normalise_url_path(path, options.percent_encoding)
        return matcher.match(path)

    def _selection(self, user_agent: str) -> _Selection:
        selection = self._cache.get(user_agent) if isinstance(user_agent, str) else None
        return selection if selection is not None else self._select(user_agent)

    def _select(self, user_agent: str) -> _Selection:
        """SPEC §1 "User-agent matching" / §2 "user-agent match", "group merging"."""
        token = product_token(user_agent)  # raises TypeError on a non-str
        options = self.options
        if options.agent_match == "token":
            groups = list(self._by_token.get(token, ())) if token else []
        else:
            groups = [
                group
                for agents, group in self._records
                if token and any(a != "*" and a and a in token for a in agents)
            ]
        reason = ""
        if not groups:
            groups = list(self._global)
            reason = "no group for this agent and no '*' group" if not groups else ""
        if not options.merge_groups:
            groups = groups[:1]
        selection = _Selection(groups, reason)
        if len(self._cache) >= _AGENT_CACHE_SIZE:
            self._cache.clear()
        self._cache[user_agent] = selection
        return selection

    def _compile(self, groups: list[_Group]) -> LongestMatcher | FirstMatcher:
        options = self.options
        encoding = options.percent_encoding
        compiled: list[tuple[str, Rule, bool]] = []
        for group in groups:
            for rule in group.rules():
                pattern = normalise_pattern(rule.value, encoding)
                compiled.append((pattern, rule, options.wildcards))
                if options.index_html_is_directory and rule.allow:
                    directory = _index_html_directory(pattern)
                    # The directory rule is always an exact match ("/d/$").
                    if directory is not None and (options.wildcards or "*" not in directory):
                        compiled.append((directory, rule, True))
        if options.precedence == "first":
            return FirstMatcher(compiled)
        return LongestMatcher(compiled)


def _index_html_directory(pattern: str) -> str | None:
    """Google: ``allow: /d/index.htm[l]`` also allows ``/d/`` exactly (SPEC §1)."""
    slash = pattern.rfind("/")
    if pattern.startswith("/index.htm", slash) and pattern[slash:] in ("/index.html", "/index.htm"):
        return pattern[: slash + 1] + "$"
    return None


def _text(latin1: str) -> str:
    """File content (decoded as Latin-1) as real text: UTF-8, invalid bytes replaced."""
    if latin1.isascii():
        return latin1
    return latin1.encode("latin-1").decode("utf-8", "replace")


_ALLOW_ALL_DECISION: Final = Decision(True, reason="everything is allowed")
_DISALLOW_ALL_DECISION: Final = Decision(False, reason="everything is disallowed")


# --------------------------------------------------------------------------- parsing

#: One line: key, colon, value, comment. The classes are disjoint, so the match never
#: backtracks; ``findall`` returns one tuple per line in C.
_LINE = re.compile(r"([^:#\n]*)(:?)([^#\n]*)(#?)[^\n]*\n")
_WHITESPACE = " \t\v\f"
_SPLIT_WHITESPACE = re.compile(r"[ \t\v\f]+")

_USER_AGENT, _ALLOW, _DISALLOW, _SITEMAP, _CRAWL_DELAY, _CONTENT_SIGNAL = range(6)
#: Keys of RFC 9309 and the common extensions (SPEC §1), compared lowercased.
_KEYS: Final = {
    "user-agent": _USER_AGENT,
    "allow": _ALLOW,
    "disallow": _DISALLOW,
    "sitemap": _SITEMAP,
    "crawl-delay": _CRAWL_DELAY,
    "content-signal": _CONTENT_SIGNAL,
}
#: Google's accepted misspellings (SPEC §1; google/robotstxt robots.cc).
_LENIENT_KEYS: Final = {
    **_KEYS,
    "useragent": _USER_AGENT,
    "user agent": _USER_AGENT,
    "dissallow": _DISALLOW,
    "dissalow": _DISALLOW,
    "disalow": _DISALLOW,
    "diasllow": _DISALLOW,
    "disallaw": _DISALLOW,
    "site-map": _SITEMAP,
}
#: Google's parser also takes any key that *starts with* one of these (``disallowed:``).
_PREFIX_KEYS: Final = tuple(
    (name, kind)
    for name, kind in _LENIENT_KEYS.items()
    if kind in (_USER_AGENT, _ALLOW, _DISALLOW, _SITEMAP)
)


def _key_by_prefix(key: str) -> int | None:
    """google/robotstxt ``ParsedRobotsKey``: a key matches when it starts with a known key."""
    for name, kind in _PREFIX_KEYS:
        if key.startswith(name):
            return kind
    return None


#: Content Signals policy keys -> ContentSignals fields.
_SIGNAL_NAMES: Final = {"search": "search", "ai-input": "ai_input", "ai-train": "ai_train"}


def parse_robotstxt(body: bytes | str, profile: str = "google", **switches: Any) -> RobotsTxt:
    """Parse a robots.txt body (SPEC §1, §2). Never raises on content.

    ``body`` is the raw response body (or text); only its first 500 KiB count.
    ``profile`` is ``"google"`` (default), ``"rfc9309"`` or ``"legacy"``; keyword
    arguments override single switches of :class:`ParseOptions`.
    """
    options = profile_options(profile, **switches)
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    elif isinstance(body, (bytearray, memoryview)):
        body = bytes(body)
    elif not isinstance(body, bytes):
        raise TypeError(f"body must be bytes or str, not {type(body).__name__}")
    return _Parser(options).parse(body)


class _Parser:
    """One pass over the lines, building records (SPEC §1 "Groups", §2)."""

    def __init__(self, options: ParseOptions) -> None:
        self.options = options
        self.records: list[tuple[list[str], _Group]] = []
        self.sitemaps: dict[str, None] = {}
        self.skipped = 0

    def parse(self, body: bytes) -> RobotsTxt:
        options = self.options
        body = body[:MAX_BODY_BYTES]
        if body.startswith(b"\xef\xbb\xbf"):
            body = body[3:]
        # Latin-1 maps each byte to one character: nothing can fail to decode, and the
        # original bytes come back unchanged (SPEC §1: invalid UTF-8 must not lose the file).
        text = body.decode("latin-1")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        limit = options.max_line_length
        if limit is not None and len(text) > limit:
            lines = text.split("\n")
            if max(map(len, lines)) > limit:
                text = "\n".join(line[:limit] for line in lines)
        keys = _LENIENT_KEYS if options.lenient_syntax else _KEYS
        blank_ends = options.blank_line_ends_group
        records = self.records
        group: _Group | None = None
        agents: list[str] = []
        in_agent_run = False
        for number, (raw_key, colon, raw_value, comment) in enumerate(
            _LINE.findall(text + "\n"), 1
        ):
            if colon:
                key = raw_key.strip(_WHITESPACE)
                value = raw_value.strip(_WHITESPACE)
            else:
                line = raw_key.strip(_WHITESPACE)
                if not line:
                    if blank_ends and not comment:
                        group, in_agent_run = None, False
                    continue
                if not options.lenient_syntax:
                    self._skip(number, "no colon")
                    continue
                # Google accepts "key value" when there are exactly two words.
                parts = _SPLIT_WHITESPACE.split(line)
                if len(parts) != 2:
                    self._skip(number, "no colon")
                    continue
                key, value = parts
            kind = keys.get(key.lower())
            if kind is None and options.lenient_syntax:
                kind = _key_by_prefix(key.lower())
            if kind is None:
                self._skip(number, f"unknown key {_text(key)!r}")
                continue
            if kind == _USER_AGENT:
                if not in_agent_run or group is None:
                    group = _Group()
                    agents = []
                    records.append((agents, group))
                    in_agent_run = True
                agents.append(_agent_token(value))
            elif kind in (_ALLOW, _DISALLOW):
                in_agent_run = False
                if group is None:
                    self._skip(number, "rule before any user-agent line")
                elif not value:
                    continue  # SPEC §1: an empty rule is ignored
                else:
                    group.add_rule(kind == _ALLOW, number, sys.intern(key), value)
            elif kind == _SITEMAP:
                if value:
                    self.sitemaps[_text(value)] = None
            elif group is None:
                self._skip(number, "group setting before any user-agent line")
            elif kind == _CRAWL_DELAY:
                self._crawl_delay(group, value, number)
            else:
                self._content_signal(group, value, number)
        if self.skipped and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt: skipped %d line(s) in total", self.skipped)
        frozen = [(tuple(agents), group) for agents, group in records]
        return RobotsTxt(options, frozen, tuple(self.sitemaps))

    def _skip(self, number: int, why: str) -> None:
        """SPEC §7: what was skipped is visible at DEBUG level."""
        self.skipped += 1
        if self.skipped <= 20 and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt line %d skipped: %s", number, why)

    def _crawl_delay(self, group: _Group, value: str, number: int) -> None:
        try:
            delay = float(value)
        except ValueError:
            delay = math.nan
        if not math.isfinite(delay) or delay < 0:
            self._skip(number, f"crawl-delay is not a number of seconds: {_text(value)!r}")
            return
        group.crawl_delay = delay if group.crawl_delay is None else max(group.crawl_delay, delay)

    def _content_signal(self, group: _Group, value: str, number: int) -> None:
        for item in value.split(","):
            name, _, setting = item.partition("=")
            field = _SIGNAL_NAMES.get(name.strip(_WHITESPACE).lower())
            answer = setting.strip(_WHITESPACE).lower()
            if field is None or answer not in ("yes", "no"):
                self._skip(number, f"content-signal item not understood: {_text(item)!r}")
                continue
            signals = group.signals if group.signals is not None else {}
            signals[field] = signals.get(field, True) and answer == "yes"
            group.signals = signals


def _agent_token(value: str) -> str:
    """The robots.txt side of SPEC §1: ``*`` alone (or before whitespace) is the global
    group; anything else is cut to its leading product token (``FooBot/1.2`` -> ``foobot``).
    """
    if value == "*" or (value.startswith("*") and value[1:2] in (" ", "\t")):
        return "*"
    return sys.intern(product_token(value))


def _stand_in(verdict: bool) -> RobotsTxt:
    return RobotsTxt(PROFILES["google"], [], (), verdict=verdict)


#: Everything allowed (no robots.txt: 4xx, SPEC §4).
ALLOW_ALL: Final = _stand_in(True)
#: Everything disallowed (unreachable robots.txt: 5xx, 429, network error, SPEC §4).
DISALLOW_ALL: Final = _stand_in(False)
