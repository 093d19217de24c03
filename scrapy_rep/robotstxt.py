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
from array import array
from bisect import bisect_left
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from scrapy_rep._matching import (
    FirstMatcher,
    LongestMatcher,
    has_lower_escape,
    normalise_pattern,
    normalise_url_path,
    path_of,
)
from scrapy_rep.useragent import is_global_agent, product_token

if TYPE_CHECKING:
    from scrapy_rep.aipref import ContentUsageRules

logger = logging.getLogger(__name__)

#: SPEC §1 / Google: only the first 500 KiB of a body count (RFC 9309 §2.5 asks for >= 500 KiB).
MAX_BODY_BYTES: Final = 512_000
#: SPEC §1: a longer line keeps its first 16663 bytes, as Google's parser does
#: (``kMaxLineLen - 1``, with ``kMaxLineLen = 2083 * 8``).
GOOGLE_MAX_LINE_BYTES: Final = 2083 * 8 - 1
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
        """``"line 9: Disallow: /x"`` when a rule decided, else the reason (SPEC §5 messages)."""
        if self.line is None:
            return self.reason
        return f"line {self.line}: {self.line_text}"

    def __str__(self) -> str:
        verdict = "allowed" if self.allowed else "disallowed"
        if self.line is None:
            return f"{verdict} ({self.reason})" if self.reason else verdict
        return f"{verdict} by {self.explanation}"


@dataclass(frozen=True)
class ContentSignals:
    """The Content Signals of a group (``Content-Signal: search=yes, ai-train=no``)."""

    search: bool | None = None
    ai_input: bool | None = None
    ai_train: bool | None = None


_NO_SIGNALS: Final = ContentSignals()
_NO_GROUP: Final = "no group for this agent and no '*' group"
_ALWAYS_ALLOWED: Final = "/robots.txt is always allowed (RFC 9309 §2.2.2)"


class _Selection:
    """The groups that apply to a crawler: merged settings, rules compiled on first use.

    Shared by every crawler name that selects the same groups (Googlebot, Bingbot and
    mybot usually all fall back to ``*``), so a group set is compiled once per file.
    """

    __slots__ = ("crawl_delay", "groups", "matcher", "signals", "usage")

    def __init__(
        self, groups: tuple[int, ...], crawl_delay: float | None, signals: ContentSignals
    ) -> None:
        self.groups = groups
        self.crawl_delay = crawl_delay
        self.signals = signals
        self.matcher: LongestMatcher | FirstMatcher | _Verdict | None = None
        #: The Content-Usage rules, compiled on the first ``content_usage()`` call.
        self.usage: ContentUsageRules | None = None


class _Verdict:
    """The matcher of the allow-all / disallow-all stand-ins."""

    __slots__ = ("code",)

    def __init__(self, allowed: bool) -> None:
        self.code = 0 if allowed else -1

    def match(self, path: str) -> int:
        return self.code


class _Rules(NamedTuple):
    """What the parser hands to :class:`RobotsTxt` (see its attributes)."""

    values: tuple[str, ...]
    keys: tuple[str, ...]
    codes: array[int]
    starts: array[int]
    tokens: dict[str, int | tuple[int, ...]]
    delays: dict[int, float] | None
    signals: dict[int, dict[str, bool]] | None
    usage: dict[int, tuple[tuple[int, str], ...]] | None


_NO_RULES: Final = _Rules((), (), array("i"), array("i"), {}, None, None, None)
#: The group key of the file-wide statements: Content-Signal and Content-Usage lines
#: written before the first user-agent line, which apply to every crawler.
_FILE_WIDE: Final = -1


class RobotsTxt:
    """A parsed robots.txt. Immutable from the outside; safe to share between requests.

    The rules are held flat, in file order (one tuple of values, one of keys, an
    ``array`` of signed line numbers, an ``array`` of group starts), so that a broad crawl
    keeping thousands of parsed files holds few objects for the garbage collector to walk.
    """

    __slots__ = (
        "_agents",
        "_codes",
        "_delays",
        "_keys",
        "_signals",
        "_starts",
        "_tokens",
        "_usage",
        "_values",
        "options",
        "sitemaps",
        "verdict",
    )

    def __init__(
        self,
        options: ParseOptions,
        rules: _Rules,
        sitemaps: tuple[str, ...],
        verdict: bool | None = None,
    ) -> None:
        #: The switches this file was parsed with.
        self.options = options
        #: ``Sitemap:`` URLs in file order, without duplicates.
        self.sitemaps = sitemaps
        #: ``True``/``False`` for the allow-all / disallow-all stand-ins, else ``None``.
        self.verdict = verdict
        #: Per rule: the value and the key as written, and its code (the line number,
        #: negative for disallow); per group: the index of its first rule.
        self._values = rules.values
        self._keys = rules.keys
        self._codes = rules.codes
        self._starts = rules.starts
        #: Product token (or ``*``) -> the group(s) naming it, in file order.
        self._tokens = rules.tokens
        self._delays = rules.delays
        self._signals = rules.signals
        #: Group (or ``_FILE_WIDE``) -> its Content-Usage lines: (line number, value).
        self._usage = rules.usage
        #: Crawler name -> its selection (shared by names selecting the same groups); bounded.
        self._agents: dict[str, _Selection] = {}

    def __repr__(self) -> str:
        if self.verdict is not None:
            return f"<RobotsTxt {'allow' if self.verdict else 'disallow'}-all>"
        return f"<RobotsTxt groups={len(self._starts)} sitemaps={len(self.sitemaps)}>"

    # ---------------------------------------------------------------- queries

    def allowed(self, url: str, user_agent: str) -> bool:
        """May ``user_agent`` (a product token or a full User-Agent) fetch ``url``?"""
        selection = self._agents.get(user_agent)
        if selection is None:
            selection = self._select(user_agent)
        matcher = selection.matcher
        if matcher is None:
            matcher = selection.matcher = self._compile(selection.groups)
        if not isinstance(url, str):
            raise TypeError(f"url must be str, not {type(url).__name__}")
        path = path_of(url)
        if "%" in path or not path.isascii():
            path = normalise_url_path(path, self.options.percent_encoding)
        if matcher.match(path) >= 0:
            return True
        # RFC 9309 §2.2.2 (SPEC §2): checked only when a rule would forbid.
        return self.options.robots_txt_always_allowed and path == "/robots.txt"

    def decide(self, url: str, user_agent: str) -> Decision:
        """The verdict for ``url`` and the line that gave it (SPEC §1 "Rule matching")."""
        selection = self._selection(user_agent)
        if not isinstance(url, str):
            raise TypeError(f"url must be str, not {type(url).__name__}")
        if self.verdict is not None:
            return _ALLOW_ALL_DECISION if self.verdict else _DISALLOW_ALL_DECISION
        path = normalise_url_path(path_of(url), self.options.percent_encoding)
        if self.options.robots_txt_always_allowed and path == "/robots.txt":
            return Decision(True, reason=_ALWAYS_ALLOWED)
        matcher = selection.matcher
        if matcher is None:
            matcher = selection.matcher = self._compile(selection.groups)
        code = matcher.match(path)
        if code:
            index = bisect_left(self._codes, abs(code), key=abs)
            value = _text(self._values[index])
            kind: Literal["allow", "disallow"] = "allow" if code > 0 else "disallow"
            return Decision(code > 0, abs(code), kind, value, f"{self._keys[index]}: {value}")
        return Decision(True, reason=_NO_GROUP if not selection.groups else "no rule matches")

    def crawl_delay(self, user_agent: str) -> float | None:
        """The ``Crawl-delay`` (seconds) of the group that applies to ``user_agent``."""
        return self._selection(user_agent).crawl_delay

    def content_signals(self, user_agent: str) -> ContentSignals:
        """The ``Content-Signal`` values of the group that applies to ``user_agent``,
        combined with the file-wide ones written before the first user-agent line (per
        signal, one "no" beats any "yes")."""
        return self._selection(user_agent).signals

    def content_usage(self, user_agent: str) -> ContentUsageRules:
        """The ``Content-Usage`` rules (draft-ietf-aipref-attach-05 §3) of the group(s)
        that apply to ``user_agent``, selected as allow/disallow are, plus the file-wide
        ones written before the first user-agent line. Compiled on first use and shared
        by every crawler name that selects the same groups; empty when there are none.

        Ask it only for URLs robots.txt allows: "no preferences are implied for
        resources that are disallowed" (attach §3.1).
        """
        selection = self._selection(user_agent)
        usage = selection.usage
        if usage is None:
            usage = selection.usage = self._compile_usage(selection.groups)
        return usage

    @property
    def user_agents(self) -> tuple[str, ...]:
        """The product tokens named by the file's groups (``*`` for the global group)."""
        return tuple(self._tokens)

    # ---------------------------------------------------------------- internals

    def _selection(self, user_agent: str) -> _Selection:
        selection = self._agents.get(user_agent) if isinstance(user_agent, str) else None
        return selection if selection is not None else self._select(user_agent)

    def _select(self, user_agent: str) -> _Selection:
        """SPEC §1 "User-agent matching" / §2 "user-agent match", "group merging"."""
        token = product_token(user_agent)  # raises TypeError on a non-str
        options = self.options
        tokens = self._tokens
        groups: tuple[int, ...] = ()
        if not token:
            pass
        elif options.agent_match == "token":
            groups = _as_groups(tokens.get(token))
        else:
            found = {
                group
                for name, named in tokens.items()
                if name != "*" and name in token
                for group in _as_groups(named)
            }
            groups = tuple(sorted(found))
        if not groups:
            groups = _as_groups(tokens.get("*"))
        if not options.merge_groups:
            groups = groups[:1]
        agents = self._agents
        for selection in agents.values():
            if selection.groups == groups:
                break
        else:
            selection = _Selection(groups, self._merged_delay(groups), self._merged_signals(groups))
        if len(agents) >= _AGENT_CACHE_SIZE:
            agents.clear()
        agents[user_agent] = selection
        return selection

    def _merged_delay(self, groups: tuple[int, ...]) -> float | None:
        """Merged groups: the largest delay (the most polite reading)."""
        if self._delays is None:
            return None
        delays = [self._delays[g] for g in groups if g in self._delays]
        return max(delays) if delays else None

    def _merged_signals(self, groups: tuple[int, ...]) -> ContentSignals:
        """Merged groups and the file-wide signals: per signal, the more restrictive wins
        (one "no" beats any "yes")."""
        if self._signals is None:
            return _NO_SIGNALS
        merged: dict[str, bool] = {}
        for group in (_FILE_WIDE, *groups):
            for name, value in self._signals.get(group, {}).items():
                merged[name] = merged.get(name, True) and value
        if not merged:
            return _NO_SIGNALS
        return ContentSignals(merged.get("search"), merged.get("ai_input"), merged.get("ai_train"))

    def _compile_usage(self, groups: tuple[int, ...]) -> ContentUsageRules:
        """The Content-Usage rules of a group set and the file-wide ones, in file order."""
        # Imported here: http-sfv (through aipref) would add about a quarter to the
        # import time of this module, which only a purpose-aware crawl needs.
        from scrapy_rep import aipref

        usage = self._usage
        if usage is None:
            return aipref.NO_CONTENT_USAGE
        lines = [line for group in (_FILE_WIDE, *groups) for line in usage.get(group, ())]
        if not lines:
            return aipref.NO_CONTENT_USAGE
        options = self.options
        return aipref.ContentUsageRules(
            # Latin-1 gives the file's bytes back (see _Parser.parse).
            [aipref.ContentUsageRule.parse(value.encode("latin-1"), line) for line, value in lines],
            encoding=options.percent_encoding,
            wildcards=options.wildcards,
        )

    def _compile(self, groups: tuple[int, ...]) -> LongestMatcher | FirstMatcher | _Verdict:
        """The matcher of a group set: patterns normalised once, here, for every crawler."""
        if self.verdict is not None:
            return _Verdict(self.verdict)
        options = self.options
        starts, values, codes = self._starts, self._values, self._codes
        patterns: list[str] = []
        numbers: array[int] = array("i")
        for group in groups:
            end = starts[group + 1] if group + 1 < len(starts) else len(values)
            patterns.extend(values[starts[group] : end])
            numbers.extend(codes[starts[group] : end])
        joined = "\n".join(patterns)
        encoding = options.percent_encoding
        # A few scans of all values in C tell whether any needs normalising (rarely).
        if joined and (
            joined[0] not in "/*"
            or not joined.isascii()
            or _NOT_ROOTED.search(joined) is not None
            or ("%" in joined and (encoding == "rfc9309" or has_lower_escape(joined)))
        ):
            patterns = [normalise_pattern(value, encoding) for value in patterns]
        exact_at: frozenset[int] = frozenset()
        if options.index_html_is_directory and "/index.htm" in joined:
            exact_at = _add_index_directories(patterns, numbers, options.wildcards)
        if options.precedence == "first":
            return FirstMatcher(patterns, numbers, options.wildcards, exact_at)
        return LongestMatcher(patterns, numbers, options.wildcards, exact_at)


def _as_groups(named: int | tuple[int, ...] | None) -> tuple[int, ...]:
    if named is None:
        return ()
    return (named,) if isinstance(named, int) else named


#: A value (after the first) that does not start with "/" or "*" (values hold no "\n").
_NOT_ROOTED = re.compile(r"\n[^/*]")


def _add_index_directories(
    patterns: list[str], codes: array[int], wildcards: bool
) -> frozenset[int]:
    """Google: ``allow: /d/index.htm[l]`` also allows ``/d/`` exactly (SPEC §1).

    The directory rule is always an exact match: ``/d/$`` with wildcards, else listed in
    the returned positions. It is inserted right after its rule, so first-match precedence
    sees it in the same place.
    """
    exact: list[int] = []
    index = 0
    while index < len(patterns):
        pattern, code = patterns[index], codes[index]
        index += 1
        if code < 0:
            continue
        slash = pattern.rfind("/")
        if pattern[slash:] not in ("/index.html", "/index.htm"):
            continue
        directory = pattern[: slash + 1]
        if wildcards:
            patterns.insert(index, directory + "$")
        elif "*" not in directory:
            exact.append(index)
            patterns.insert(index, directory)
        else:
            continue
        codes.insert(index, code)
        index += 1
    return frozenset(exact)


def _text(latin1: str) -> str:
    """File content (decoded as Latin-1) as real text: UTF-8, invalid bytes replaced."""
    if latin1.isascii():
        return latin1
    return latin1.encode("latin-1").decode("utf-8", "replace")


_ALLOW_ALL_DECISION: Final = Decision(True, reason="everything is allowed")
_DISALLOW_ALL_DECISION: Final = Decision(False, reason="everything is disallowed")


# --------------------------------------------------------------------------- parsing

_WHITESPACE = " \t\v\f"
_SPLIT_WHITESPACE = re.compile(r"[ \t\v\f]+")

_USER_AGENT, _ALLOW, _DISALLOW, _SITEMAP, _CRAWL_DELAY, _CONTENT_SIGNAL, _CONTENT_USAGE = range(7)
#: Keys of RFC 9309 and the common extensions (SPEC §1), compared lowercased; the
#: Content-Usage rule is draft-ietf-aipref-attach-05 §3.
_KEYS: Final = {
    "user-agent": _USER_AGENT,
    "allow": _ALLOW,
    "disallow": _DISALLOW,
    "sitemap": _SITEMAP,
    "crawl-delay": _CRAWL_DELAY,
    "content-signal": _CONTENT_SIGNAL,
    "content-usage": _CONTENT_USAGE,
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


def _kind_of(key: str, keys: dict[str, int], lenient: bool) -> int:
    """The kind of a key as written (case-insensitive, SPEC §1); ``-1`` when unknown.

    Lenient (Google): also any key that *starts with* a known one (``disallowed:``), as
    google/robotstxt's ``ParsedRobotsKey`` reads it.
    """
    lowered = key.lower()
    kind = keys.get(lowered)
    if kind is not None:
        return kind
    if lenient:
        for name, kind in _PREFIX_KEYS:
            if lowered.startswith(name):
                return kind
    return -1


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


def _skip_bom(body: bytes) -> bytes:
    """SPEC §1: a leading UTF-8 byte order mark, or the start of one, is skipped (Google)."""
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:]
    if body.startswith(b"\xef\xbb"):
        return body[2:]
    return body[1:] if body.startswith(b"\xef") else body


class _Parser:
    """One pass over the lines, building the flat rule tables (SPEC §1 "Groups", §2)."""

    def __init__(self, options: ParseOptions) -> None:
        self.options = options
        self.skipped = 0

    def parse(self, body: bytes) -> RobotsTxt:
        options = self.options
        # Latin-1 maps each byte to one character: nothing can fail to decode, and the
        # original bytes come back unchanged (SPEC §1: invalid UTF-8 must not lose the file).
        text = _skip_bom(body[:MAX_BODY_BYTES]).decode("latin-1")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        limit = options.max_line_length
        if limit is not None and len(text) > limit and max(map(len, lines)) > limit:
            lines = [line[:limit] for line in lines]
        keys = _LENIENT_KEYS if options.lenient_syntax else _KEYS
        blank_ends = options.blank_line_ends_group
        lenient = options.lenient_syntax
        # The tables of RobotsTxt: per rule, value, key and code; per group, its first rule.
        values: list[str] = []
        rule_keys: list[str] = []
        codes = array("i")
        starts = array("i")
        tokens: dict[str, int | tuple[int, ...]] = {}
        more: dict[str, list[int]] = {}  # tokens named by several groups
        delays: dict[int, float] = {}
        signals: dict[int, dict[str, bool]] = {}
        usage: dict[int, list[tuple[int, str]]] = {}
        sitemaps: dict[str, None] = {}
        # Each distinct key as written -> (kind, the one string kept for it): most files
        # spell a handful of keys, so a line costs one lookup instead of lower() and intern().
        spellings: dict[str, tuple[int, str]] = {}
        values_append, keys_append, codes_append = values.append, rule_keys.append, codes.append
        group = -1
        in_agent_run = False
        for number, line in enumerate(lines, 1):
            # Everything from "#" is a comment; then "key: value" (SPEC §1).
            comment = "#" in line
            if comment:
                line = line[: line.index("#")]
            raw_key, colon, raw_value = line.partition(":")
            if colon:
                key = raw_key.strip(_WHITESPACE)
                value = raw_value.strip(_WHITESPACE)
            else:
                line = raw_key.strip(_WHITESPACE)
                if not line:
                    if blank_ends and not comment:
                        group, in_agent_run = -1, False
                    continue
                if not lenient:
                    self._skip(number, "no colon")
                    continue
                # Google accepts "key value" when there are exactly two words.
                parts = _SPLIT_WHITESPACE.split(line)
                if len(parts) != 2:
                    self._skip(number, "no colon")
                    continue
                key, value = parts
            spelling = spellings.get(key)
            if spelling is None:
                spelling = spellings[key] = (_kind_of(key, keys, lenient), key)
            kind, key = spelling
            if kind in (_ALLOW, _DISALLOW):
                in_agent_run = False
                if group < 0:
                    self._skip(number, "rule before any user-agent line")
                elif value:  # SPEC §1: an empty rule is ignored
                    values_append(value)
                    keys_append(key)
                    codes_append(number if kind == _ALLOW else -number)
            elif kind == _USER_AGENT:
                if not in_agent_run or group < 0:
                    group = len(starts)
                    starts.append(len(values))
                    in_agent_run = True
                # The usual plain name ("Googlebot") needs no product-token scan.
                token = value.lower() if value.isalnum() else _agent_token(value)
                if token:
                    first = tokens.setdefault(token, group)
                    if first != group:
                        named = more.setdefault(token, [first])  # type: ignore[list-item]
                        if named[-1] != group:
                            named.append(group)
            elif kind == _SITEMAP:
                if value:
                    sitemaps[_text(value)] = None
            elif kind < 0:
                self._skip(number, f"unknown key {_text(key)!r}")
            elif group < 0 and (starts or kind == _CRAWL_DELAY):
                # A crawl-delay before any user-agent line, or any setting after a blank
                # line ended a record (legacy), belongs to no group.
                self._skip(number, "group setting outside any group")
            # Content-Signal and Content-Usage before the first user-agent line (group
            # -1, _FILE_WIDE) apply to every crawler: the reading that never loses a
            # site's opt-out (README "Deviations").
            elif kind == _CONTENT_USAGE:
                if value:
                    usage.setdefault(group, []).append((number, value))
            elif kind == _CONTENT_SIGNAL:
                self._content_signal(signals, group, value, number)
            else:
                self._crawl_delay(delays, group, value, number)
        for token, named in more.items():
            tokens[token] = tuple(named)
        if self.skipped and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt: skipped %d line(s) in total", self.skipped)
        rules = _Rules(
            tuple(values),
            tuple(rule_keys),
            codes,
            starts,
            tokens,
            delays or None,
            signals or None,
            {group: tuple(lines) for group, lines in usage.items()} if usage else None,
        )
        return RobotsTxt(options, rules, tuple(sitemaps))

    def _skip(self, number: int, why: str) -> None:
        """SPEC §7: what was skipped is visible at DEBUG level."""
        self.skipped += 1
        if self.skipped <= 20 and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt line %d skipped: %s", number, why)

    def _crawl_delay(self, delays: dict[int, float], group: int, value: str, number: int) -> None:
        try:
            delay = float(value)
        except ValueError:
            delay = math.nan
        if not math.isfinite(delay) or delay < 0:
            self._skip(number, f"crawl-delay is not a number of seconds: {_text(value)!r}")
            return
        delays[group] = max(delays.get(group, delay), delay)

    def _content_signal(
        self, signals: dict[int, dict[str, bool]], group: int, value: str, number: int
    ) -> None:
        for item in value.split(","):
            name, _, setting = item.partition("=")
            field = _SIGNAL_NAMES.get(name.strip(_WHITESPACE).lower())
            answer = setting.strip(_WHITESPACE).lower()
            if field is None or answer not in ("yes", "no"):
                self._skip(number, f"content-signal item not understood: {_text(item)!r}")
                continue
            own = signals.setdefault(group, {})
            own[field] = own.get(field, True) and answer == "yes"


def _agent_token(value: str) -> str:
    """The robots.txt side of SPEC §1 "User-agent matching": ``*`` alone (or before
    whitespace) is the global group; any other value gives its product token, compared
    as text (``FooBot/1.2`` -> ``foobot``, ``Jävla-Foobot`` -> ``jävla-foobot``).
    """
    if is_global_agent(value):
        return "*"
    return product_token(value if value.isascii() else _text(value))


def _stand_in(verdict: bool) -> RobotsTxt:
    return RobotsTxt(PROFILES["google"], _NO_RULES, (), verdict=verdict)


#: Everything allowed (no robots.txt: 4xx, SPEC §4).
ALLOW_ALL: Final = _stand_in(True)
#: Everything disallowed (unreachable robots.txt: 5xx, 429, network error, SPEC §4).
DISALLOW_ALL: Final = _stand_in(False)
