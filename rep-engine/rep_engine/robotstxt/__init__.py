"""robots.txt: bytes -> :class:`RobotsTxt` (groups, sitemaps, crawl-delay) and ``allowed()``.

Pure: no Scrapy or Twisted imports. The behaviour is SPEC §1 (profile "google") and the
switch table of SPEC §2 ("rfc9309", "legacy"); each switch is a field of
:class:`~rep_engine.robotstxt.profiles.ParseOptions` and can be overridden on its own::

    rules = parse_robotstxt(body)                              # google
    rules = parse_robotstxt(body, "rfc9309")
    rules = parse_robotstxt(body, "google", merge_groups=False)  # one switch changed

Parsing never raises on content: lines that are not ``key: value`` are skipped and
logged at DEBUG. Only a wrong argument type raises :class:`TypeError`.

What the engine answers (SPEC §5): a :class:`Decision` for a URL, the
:class:`ContentSignals` of a group. The group set of a crawler (a :class:`Selection`:
its merged settings) has its rules compiled for matching (SPEC §1 "Rule matching", §2)
and for Content-Usage (draft-ietf-aipref-attach-05 §3) on first use, never while
parsing: :func:`compile_matcher` turns the flat rule tables of its groups into a matcher
of :mod:`rep_engine.urls.matching`, :func:`compile_usage` does the same for the
Content-Usage lines.
"""

from __future__ import annotations

import marshal
import re
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from rep_engine.robotstxt._parser import (
    ALLOW_AI_TRAINING,
    CONTENT_USAGE_NO_COLON,
    FILE_WIDE,
    NO_TABLES,
    USE_LEVELS,
    ParsedTables,
    Parser,
    SignalLine,
    UsageLine,
    add_content_signal,
    file_text,
)
from rep_engine.robotstxt.profiles import PROFILES, ParseOptions, body_bytes, profile_options
from rep_engine.robotstxt.useragent import select_groups
from rep_engine.urls.encoding import (
    ESCAPES_SPECIALS,
    HTTP_PATH,
    dangling_variants,
    has_lower_escape,
    matched_as_given,
    normalise_pattern,
    normalise_url_path,
    path_of,
)
from rep_engine.urls.matching import SCANNED, FirstMatcher, LongestMatcher, ScanningMatcher

if TYPE_CHECKING:
    from rep_engine.robotstxt.aipref import ContentUsageRule, ContentUsageRules


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
    #: Cloudflare's ``use=`` level (``immediate``, ``reference``, ``full``), the most
    #: restrictive one when several apply; ``None`` when absent.
    use: str | None = None
    #: The 1-based number of the robots.txt line that says it; 0 when several lines (or
    #: a response header) said it.
    line: int = 0
    #: That line as the site wrote it (``content-signal: search=yes,ai-train=no``: its
    #: key and value, its comment gone), which a decision quotes; ``""`` when several
    #: lines (or a response header) said it.
    written: str = ""


_http_path: Final = HTTP_PATH.match
#: What ``RobotsTxt._origin`` holds before a URL was read: an http URL's start with an
#: empty host, which :data:`HTTP_PATH` reads as the URL's scheme and host as well.
_NO_ORIGIN: Final = "http:///"
#: The longest scheme and host remembered (a host name has at most 253 characters, RFC
#: 1035 §2.3.4, with a port and user information beside it): the memory a parsed file
#: keeps for it stays bounded whatever URL it is asked about.
_ORIGIN_LIMIT: Final = 512
#: At most this many distinct user-agent strings are remembered per file (bounded memory).
_AGENT_CACHE_SIZE: Final = 64


_NO_SIGNALS: Final = ContentSignals()
_NO_GROUP: Final = "no group for this agent and no '*' group"
_ALWAYS_ALLOWED: Final = "/robots.txt is always allowed (RFC 9309 §2.2.2)"
#: The step of :meth:`RobotsTxt.first_disallowed`'s number per line: ``position + 1 +
#: code * FIRST_DISALLOWED_STEP`` (a recheck that matches inline builds the same number).
FIRST_DISALLOWED_STEP: Final = 65536


class RobotsTxt:
    """A parsed robots.txt. Immutable from the outside; safe to share between requests.

    The rules are held flat, in file order (one tuple of values, one byte per rule naming
    its key among the file's spellings, an ``array`` of signed line numbers, 2 bytes each
    where they fit, an ``array`` of group starts), so that a broad crawl keeping thousands
    of parsed files holds little memory and few objects for the garbage collector to walk.
    """

    __slots__ = (
        "_agents",
        "_codes",
        "_delay_tokens",
        "_delays",
        "_encodes_specials",
        "_key_of",
        "_keys",
        "_origin",
        "_signals",
        "_starts",
        "_tokens",
        "_usage",
        "_usage_tokens",
        "_values",
        "any_crawl_delay",
        "licenses",
        "options",
        "sitemaps",
        "states_no_usage",
        "verdict",
    )

    def __init__(
        self,
        options: ParseOptions,
        rules: ParsedTables,
        sitemaps: tuple[str, ...],
        verdict: bool | None = None,
        licenses: tuple[str, ...] = (),
    ) -> None:
        #: The switches this file was parsed with.
        self.options = options
        #: ``Sitemap:`` URLs in file order, without duplicates.
        self.sitemaps = sitemaps
        #: Every RSL 1.0 ``License:`` URL in file order, no duplicates: every crawler's,
        #: wherever it stands (RSL's guide: "global (not tied to any specific user
        #: agent)"; docs/decisions.md, "A group's License lines add to the file-wide ones").
        self.licenses = licenses
        #: ``True``/``False`` for the allow-all / disallow-all stand-ins, else ``None``.
        self.verdict = verdict
        #: Per rule: the value and the key as written (an index into the distinct keys),
        #: and its code (the line number, negative for disallow); per group: the index
        #: of its first rule.
        self._values = rules.values
        self._keys = rules.keys
        self._key_of = rules.key_of
        self._codes = rules.codes
        self._starts = rules.starts
        #: Product token (or ``*``) -> the group(s) naming it, in file order.
        self._tokens = rules.tokens
        #: Group (or ``FILE_WIDE``) -> its Crawl-delay; the groups are those of
        #: ``_delay_tokens`` when it is set (a delay belongs to the user-agent lines
        #: just above it, docs/behaviour.md), else those of allow/disallow.
        self._delays = rules.delays
        self._delay_tokens = rules.delay_tokens
        #: Whether any group has a ``Crawl-delay`` (else :meth:`crawl_delay` is ``None``
        #: for every crawler: the usual file, the crawl's fast path).
        self.any_crawl_delay = rules.delays is not None
        #: No ``Content-Usage``, ``Content-Signal`` or ``License:`` line anywhere in the
        #: file: it says nothing of usage to any crawler (the usual file; the purpose
        #: check's fast path).
        self.states_no_usage = rules.signals is None and rules.usage is None and not licenses
        #: The profile's percent-encoding reads a URL's ``*`` and ``$`` as ``%2A`` and
        #: ``%24`` (RFC 9309 §2.2.3, the 1996 draft's octets): such a URL is normalised.
        self._encodes_specials = options.percent_encoding in ESCAPES_SPECIALS
        self._signals = rules.signals
        #: Group (or ``FILE_WIDE``) -> its Content-Usage lines: (line number, value).
        self._usage = rules.usage
        #: The groups of Content-Usage / Content-Signal when attach-05 §3 groups them
        #: differently from allow/disallow (``None``: the same groups; docs/behaviour.md).
        self._usage_tokens = rules.usage_tokens
        #: Crawler name -> its selection (shared by names selecting the same groups); bounded.
        self._agents: dict[str, Selection] = {}
        #: The scheme and host of the last http(s) URL whose path was read here, up to the
        #: path's ``/`` (``https://example.com/``): a URL starting with it has its path
        #: after it (:data:`HTTP_PATH` would find the same), with no regex (see
        #: :meth:`_path`). One string, replaced whole (safe between threads).
        self._origin = _NO_ORIGIN

    def __repr__(self) -> str:
        if self.verdict is not None:
            return f"<RobotsTxt {'allow' if self.verdict else 'disallow'}-all>"
        return f"<RobotsTxt groups={len(self._starts)} sitemaps={len(self.sitemaps)}>"

    # ---------------------------------------------------------------- queries

    def allowed(self, url: str, user_agent: str) -> bool:
        """May ``user_agent`` (a product token or a full User-Agent) fetch ``url``?
        (:meth:`code` ``>= 0``.)"""
        return self.code(url, user_agent) >= 0

    def code(self, url: str, user_agent: str) -> int:
        """The rule that decides ``url`` for ``user_agent``, as one number: its line,
        negative for a disallow line (``0``: no rule applies, or ``url`` is the
        robots.txt that is always allowed). :meth:`allowed` is ``code() >= 0``; the
        same non-zero number is the same :meth:`decide` answer, which :meth:`explain`
        gives from it (one match, no ``Decision`` made for an allowed URL).

        :meth:`_path`'s usual case written out: the crawl's hot path (the verdict on
        every request not explained), where each call would cost a check about a tenth."""
        try:
            selection = self._agents[user_agent]
        except KeyError:
            selection = self._select(user_agent)
        matcher = selection.matcher
        if matcher is None:
            matcher = self._matcher(selection)
        # (the rest differs from the URL: the origin was there)
        if (
            type(url) is str
            and (rest := url.removeprefix(self._origin)) != url
            and not (
                "#" in rest
                or "%" in rest
                or not rest.isascii()
                or (self._encodes_specials and ("*" in rest or "$" in rest))
            )
        ):
            path = "/" + rest
        else:
            path = self._read_path(url)
        code = matcher.match(path)
        if code >= 0:
            return code
        # RFC 9309 §2.2.2 (SPEC §2): checked only when a rule would forbid.
        return 0 if self.options.robots_txt_always_allowed and path == "/robots.txt" else code

    def explain(self, code: int, user_agent: str) -> Decision:
        """The :meth:`decide` answer that :meth:`code`'s ``code`` for ``user_agent`` stands
        for (the line it names, or why no line did), without matching the URL again: a
        refusal names its line from the one match that refused. (``0`` is said as no rule
        matching: the robots.txt that is always allowed is :meth:`decide`'s to say.)"""
        if self.verdict is not None:
            return _ALLOW_ALL_DECISION if self.verdict else _DISALLOW_ALL_DECISION
        if code:
            index = bisect_left(self._codes, abs(code), key=abs)
            value = file_text(self._values[index])
            kind: Literal["allow", "disallow"] = "allow" if code > 0 else "disallow"
            key = self._keys[self._key_of[index]]
            return Decision(code > 0, abs(code), kind, value, f"{key}: {value}")
        groups = self._selection(user_agent).groups
        return Decision(True, reason=_NO_GROUP if not groups else "no rule matches")

    def matchers(self, user_agents: Sequence[str]) -> tuple[Matcher, ...]:
        """The compiled rules of each group set ``user_agents`` select, once each, in the
        order of the first name that selects it: what :meth:`first_disallowed` matches a
        URL against for many names at once (a crawl held to ``REP_PURPOSE_AGENTS``:
        usually most of them fall back to ``*``). A tuple of matchers alone: one object
        more per file for the collector to walk, not one per group set. A name whose
        group set an earlier one selected gets no selection of its own (its groups are
        all this needs of it; :meth:`_select` finds the group set's compiled rules)."""
        substring, merge = self.options.agent_match == "substring", self.options.merge_groups
        found: dict[tuple[int, ...], Matcher] = {}
        for user_agent in user_agents:
            selection = self._agents.get(user_agent) if isinstance(user_agent, str) else None
            groups = (
                selection.groups
                if selection is not None
                else select_groups(self._tokens, user_agent, substring=substring, merge=merge)
            )
            if groups not in found:
                found[groups] = self._matcher(selection or self._select(user_agent, groups))
        return tuple(found.values())

    def first_disallowed(self, url: str, matchers: tuple[Matcher, ...]) -> int:
        """The first of :meth:`matchers`' group sets that disallows ``url``, as one
        number: ``position + 1 + code * FIRST_DISALLOWED_STEP``, ``position`` its place
        in ``matchers`` and ``code`` :meth:`code`'s (its line, negative): the first
        refusing name is the first that selects it; ``0``: allowed for every name. One
        path made for them all, one match per group set."""
        if not isinstance(url, str):
            raise TypeError(f"url must be str, not {type(url).__name__}")
        found = _http_path(url)
        return self.first_disallowed_path(
            found.group(1) if found is not None else path_of(url), matchers
        )

    def first_disallowed_path(self, path: str, matchers: tuple[Matcher, ...]) -> int:
        """:meth:`first_disallowed` of a URL whose path, parameters and query are ``path``
        (as :func:`~rep_engine.urls.encoding.path_of` gives them, not normalised): for a
        caller that has split the URL already (a recheck reads its origin from the same
        match)."""
        # matched_as_given, inline: the recheck's hot path (a call: about 10% of this method)
        if (
            "%" in path
            or not path.isascii()
            or (self._encodes_specials and ("*" in path or "$" in path))
        ):
            path = normalise_url_path(path, self.options.percent_encoding)
        position = 1
        for matcher in matchers:
            code = matcher.match(path)
            if code < 0:
                # RFC 9309 §2.2.2 (SPEC §2): checked only when a rule would forbid.
                if self.options.robots_txt_always_allowed and path == "/robots.txt":
                    return 0
                return position + code * FIRST_DISALLOWED_STEP
            position += 1
        return 0

    def _path(self, url: str) -> str:
        """``url``'s path as the rules are matched against it (SPEC §1 "Rule matching"):
        :func:`path_of`'s, normalised unless
        :func:`~rep_engine.urls.encoding.matched_as_given`.

        The usual URL, of the origin of the last one read (``_origin``), with no fragment
        and a path matched as it is, is cut after that origin: ``str.removeprefix`` (which
        takes its argument without parsing it, where ``startswith`` parses a tuple; a
        rest that differs from the URL: the origin was there) and a few scans in C, where the
        regex costs a check about a quarter (the hot paths, :meth:`allowed` and
        :meth:`decide`, write this inline); any other URL goes to :meth:`_read_path`."""
        if (
            type(url) is str
            and (rest := url.removeprefix(self._origin)) != url
            and "#" not in rest
            and matched_as_given(rest, self._encodes_specials)
        ):
            return "/" + rest
        return self._read_path(url)

    def _read_path(self, url: str) -> str:
        """:meth:`_path` by :func:`path_of`'s usual case (an http(s) URL with a path: one
        regex, whose scheme and host are remembered as ``_origin``) or :func:`path_of`."""
        if not isinstance(url, str):
            raise TypeError(f"url must be str, not {type(url).__name__}")
        found = _http_path(url)
        if found is not None:
            path = found[1]
            if found.start(1) < _ORIGIN_LIMIT:  # (a longer one is no host name: not kept)
                self._origin = url[: found.start(1) + 1]
        else:
            path = path_of(url)
        if not matched_as_given(path, self._encodes_specials):
            path = normalise_url_path(path, self.options.percent_encoding)
        return path

    def decide(self, url: str, user_agent: str) -> Decision:
        """The verdict for ``url`` and the line that gave it (SPEC §1 "Rule matching")."""
        # _selection inline (the hot path with an audit trail)
        selection = self._agents.get(user_agent) if isinstance(user_agent, str) else None
        if selection is None:
            selection = self._select(user_agent)
        if not isinstance(url, str):
            raise TypeError(f"url must be str, not {type(url).__name__}")
        if self.verdict is not None:
            return _ALLOW_ALL_DECISION if self.verdict else _DISALLOW_ALL_DECISION
        # _path inline (the hot path with an audit trail; a call costs it about 4%)
        # (the rest differs from the URL: the origin was there)
        if (
            type(url) is str
            and (rest := url.removeprefix(self._origin)) != url
            and not (
                "#" in rest
                or "%" in rest
                or not rest.isascii()
                or (self._encodes_specials and ("*" in rest or "$" in rest))
            )
        ):
            path = "/" + rest
        else:
            path = self._read_path(url)
        if self.options.robots_txt_always_allowed and path == "/robots.txt":
            return Decision(True, reason=_ALWAYS_ALLOWED)
        matcher = selection.matcher
        if matcher is None:
            matcher = self._matcher(selection)
        code = matcher.match(path)
        if code:  # explain()'s, inline (the hot path with an audit trail)
            index = bisect_left(self._codes, abs(code), key=abs)
            value = file_text(self._values[index])
            kind: Literal["allow", "disallow"] = "allow" if code > 0 else "disallow"
            key = self._keys[self._key_of[index]]
            return Decision(code > 0, abs(code), kind, value, f"{key}: {value}")
        return Decision(True, reason=_NO_GROUP if not selection.groups else "no rule matches")

    def crawl_delay(self, user_agent: str) -> float | None:
        """The ``Crawl-delay`` (seconds) that applies to ``user_agent``: its group's (a
        delay belongs to the user-agent lines just above it), at least the one written
        before the first group; the largest of merged groups."""
        selection = self._agents.get(user_agent) if isinstance(user_agent, str) else None
        if selection is None:  # _selection inline: asked for every request allowed
            selection = self._select(user_agent)
        return selection.crawl_delay

    def content_signals(self, user_agent: str) -> ContentSignals:
        """The ``Content-Signal`` values of the group that applies to ``user_agent``,
        combined with the file-wide ones written before the first user-agent line (per
        signal, one "no" beats any "yes"); its ``line`` is 0."""
        merged: dict[str, bool] = {}
        for _number, items, _written in self._lines_of(self._selection(user_agent).usage_groups):
            for name, value in items.items():
                merged[name] = merged.get(name, True) and value
        return _signals_of(merged)

    def content_signal_lines(self, user_agent: str) -> tuple[ContentSignals, ...]:
        """The ``Content-Signal`` lines that apply to ``user_agent`` (those
        :meth:`content_signals` combines), each read alone, with its line number."""
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
            usage = selection.usage = compile_usage(
                self.options, self._usage, selection.usage_groups
            )
        return usage

    @property
    def user_agents(self) -> tuple[str, ...]:
        """The product tokens named by the file's groups (``*`` for the global group)."""
        return tuple(self._tokens)

    def plain(self) -> bytes:
        """This file's rules as one ``bytes`` value (its tables and maps marshalled, its
        arrays as their bytes), which CPython's garbage collector does not track: how a
        broad crawl's cache keeps thousands of files parsed (docs/decisions.md, 'Parsed
        once per origin'). :func:`unplain` gives back an equal file without parsing,
        its crawlers' selections compiled again on use. One value, not nested tuples:
        a collection stops tracking one level of nested tuples at a time."""
        return marshal.dumps(
            (
                _options_number(self.options), self.verdict, self._values, self._keys,
                _plain_array(self._key_of), _plain_array(self._codes),
                _plain_array(self._starts), self._tokens, self._delays, self._delay_tokens,
                self._signals, self._usage, self._usage_tokens, self.sitemaps, self.licenses,
            )
        )  # fmt: skip

    # ---------------------------------------------------------------- internals

    def _matcher(self, selection: Selection) -> Matcher:
        """The compiled rules of a group set, compiled on first use (once per file)."""
        matcher = selection.matcher
        if matcher is None:
            matcher = selection.matcher = compile_matcher(
                self.options, self.verdict, self._values, self._codes, self._starts,
                selection.groups,
            )  # fmt: skip
        return matcher

    def _selection(self, user_agent: str) -> Selection:
        selection = self._agents.get(user_agent) if isinstance(user_agent, str) else None
        return selection if selection is not None else self._select(user_agent)

    def _select(self, user_agent: str, groups: tuple[int, ...] | None = None) -> Selection:
        """SPEC §1 "User-agent matching" / §2 "user-agent match", "group merging".
        ``groups``: the allow/disallow groups of ``user_agent``, when the caller selected
        them already (:meth:`matchers`)."""
        substring, merge = self.options.agent_match == "substring", self.options.merge_groups
        if groups is None:  # raises TypeError on a non-str
            groups = select_groups(self._tokens, user_agent, substring=substring, merge=merge)
        usage_groups = delay_groups = groups
        if self._usage_tokens is not None:
            usage_groups = select_groups(
                self._usage_tokens, user_agent, substring=substring, merge=merge
            )
        if self._delay_tokens is not None:
            delay_groups = select_groups(
                self._delay_tokens, user_agent, substring=substring, merge=merge
            )
        agents = self._agents
        same_rules: Selection | None = None
        for selection in agents.values():
            if selection.groups == groups:
                if (
                    selection.usage_groups == usage_groups
                    and selection.delay_groups == delay_groups
                ):
                    break
                same_rules = selection
        else:
            # (most files: no delay and no Content-Signal line, nothing to merge)
            selection = Selection(
                groups,
                self._merged_delay(delay_groups) if self._delays else None,
                ()
                if not self._signals
                else tuple(
                    _signals_of(items, number, written)
                    for number, items, written in self._lines_of(usage_groups)
                ),
                usage_groups,
                delay_groups,
            )
            if same_rules is not None:
                # The same allow/disallow groups, other AI-usage or delay groups: one
                # compiled matcher for both.
                selection.matcher = same_rules.matcher
        if len(agents) >= _AGENT_CACHE_SIZE:
            agents.clear()
        agents[user_agent] = selection
        return selection

    def _merged_delay(self, groups: tuple[int, ...]) -> float | None:
        """Merged groups and the file-wide delay: the largest (the most polite reading)."""
        delays = self._delays or {}
        return max((delays[g] for g in (FILE_WIDE, *groups) if g in delays), default=None)

    def _lines_of(self, groups: tuple[int, ...]) -> list[SignalLine]:
        """The Content-Signal lines of ``groups`` and the file-wide ones, in file order."""
        if self._signals is None:
            return []
        lines = (line for group in (FILE_WIDE, *groups) for line in self._signals.get(group, ()))
        return sorted(lines, key=itemgetter(0))


# ------------------------------------------- a crawler's group set, compiled on first use


class _FixedMatcher:
    """The matcher of the allow-all / disallow-all stand-ins, and of a group set with no rule."""

    __slots__ = ("code",)

    def __init__(self, allowed: bool) -> None:
        self.code = 0 if allowed else -1

    def match(self, path: str) -> int:
        return self.code


class _OneRule:
    """The matcher of a group set of one rule that is a plain prefix (``Disallow: /``, a
    seventh of the group sets of the corpus): the answer either matcher would give, with
    nothing to build."""

    __slots__ = ("code", "prefix")

    def __init__(self, prefix: str, code: int) -> None:
        self.prefix, self.code = prefix, code

    def match(self, path: str) -> int:
        return self.code if path.startswith(self.prefix) else 0


#: What a group set compiles to.
Matcher: TypeAlias = LongestMatcher | ScanningMatcher | FirstMatcher | _FixedMatcher | _OneRule
#: The matcher of a group set with no rule: no rule matches any path.
_NO_RULES: Final = _FixedMatcher(True)


class Selection:
    """The groups that apply to a crawler: merged settings, rules compiled on first use.

    Shared by every crawler name that selects the same groups (Googlebot, Bingbot and
    mybot usually all fall back to ``*``), so a group set is compiled once per file.
    """

    __slots__ = (
        "crawl_delay", "delay_groups", "groups", "matcher", "signals", "usage", "usage_groups",
    )  # fmt: skip

    def __init__(
        self,
        groups: tuple[int, ...],
        crawl_delay: float | None,
        signals: tuple[ContentSignals, ...],
        usage_groups: tuple[int, ...] | None = None,
        delay_groups: tuple[int, ...] | None = None,
    ) -> None:
        self.groups = groups
        #: The groups of the Content-Usage / Content-Signal lines (attach-05 §3 grouping);
        #: the same as ``groups`` unless the file's two groupings differ.
        self.usage_groups = groups if usage_groups is None else usage_groups
        #: The groups of the Crawl-delay lines (a delay belongs to the user-agent lines
        #: just above it); the same as ``groups`` unless those groupings differ.
        self.delay_groups = groups if delay_groups is None else delay_groups
        self.crawl_delay = crawl_delay
        self.signals = signals
        self.matcher: Matcher | None = None
        #: The Content-Usage rules, compiled on the first ``content_usage()`` call.
        self.usage: ContentUsageRules | None = None


def compile_matcher(
    options: ParseOptions,
    verdict: bool | None,
    values: Sequence[str],
    codes: array[int],
    starts: array[int],
    groups: tuple[int, ...],
) -> Matcher:
    """The matcher of a group set: the rules of ``groups`` from the flat tables (see
    ``RobotsTxt``); a stand-in's fixed answer when ``verdict`` is set, and one shared
    "no rule matches" (code 0) when the groups hold no rule (no group for the crawler,
    or only empty ``Disallow:`` lines: a seventh of the group sets of the corpus)."""
    if verdict is not None:
        return _FixedMatcher(verdict)
    patterns: Sequence[str]
    if len(groups) == 1:  # (most group sets: one slice of each table)
        start = starts[groups[0]]
        end = starts[groups[0] + 1] if groups[0] + 1 < len(starts) else len(values)
        patterns, numbers = values[start:end], codes[start:end]
    else:
        patterns, numbers = [], array(codes.typecode)
        for group in groups:
            end = starts[group + 1] if group + 1 < len(starts) else len(values)
            patterns.extend(values[starts[group] : end])
            numbers.extend(codes[starts[group] : end])
    if not patterns:
        return _NO_RULES
    joined = "\n".join(patterns)
    #: The patterns as the matcher gets them, joined (``None``: they changed).
    text: str | None = joined
    if joined and (normalised := _normalised(patterns, joined, options)) is not patterns:
        patterns, text = normalised, None
    if "%" in joined and _DANGLING.search(joined) is not None:
        patterns, numbers = _with_dangling_variants(patterns, numbers, options.wildcards)
        text = None
    exact_at: frozenset[int] = frozenset()
    if options.index_html_is_directory and "/index.htm" in joined:
        patterns, text = list(patterns), None
        exact_at = _add_index_directories(patterns, numbers, options.wildcards)
    if len(patterns) == 1 and not exact_at:
        pattern = patterns[0]
        if not (options.wildcards and ("*" in pattern or pattern[-1:] == "$")):
            return _OneRule(pattern, numbers[0])
    if options.precedence == "first":
        return FirstMatcher(patterns, numbers, options.wildcards, exact_at)
    if not exact_at and len(patterns) <= SCANNED:  # built once asked enough to pay
        return ScanningMatcher(patterns, numbers, options.wildcards, text)
    return LongestMatcher(patterns, numbers, options.wildcards, exact_at, text)


def _normalised(patterns: Sequence[str], joined: str, options: ParseOptions) -> Sequence[str]:
    """``patterns`` (``joined``: them, one a line) as they are matched: a few scans of
    them all in C tell whether any needs normalising (rarely); then only those that do
    get a call of :func:`normalise_pattern` (the others, most of them, pass the same
    tests inline)."""
    encoding = options.percent_encoding
    specials = encoding in ESCAPES_SPECIALS
    if not (
        joined[0] not in "/*"
        or not joined.isascii()
        or _NOT_ROOTED.search(joined) is not None
        or ("%" in joined and (specials or has_lower_escape(joined)))
        or (specials and "$" in joined)
        or (specials and not options.wildcards and "*" in joined)
    ):
        return patterns
    wildcards = options.wildcards
    return [
        normalise_pattern(value, encoding, wildcards)
        if value[:1] not in ("/", "*")
        or not value.isascii()
        or "%" in value
        or (specials and ("*" in value or "$" in value))
        else value
        for value in patterns
    ]


#: encoding's ``_DANGLING_WILD``, over the patterns joined one a line.
_DANGLING = re.compile(r"%[a-f](?=\*|$)", re.MULTILINE)


def _with_dangling_variants(
    patterns: Sequence[str], numbers: array[int], wildcards: bool
) -> tuple[list[str], array[int]]:
    """Each pattern next to its dangling-escape variants (:func:`dangling_variants`),
    for the same line."""
    out: list[str] = []
    out_numbers: array[int] = array(numbers.typecode)
    for pattern, number in zip(patterns, numbers, strict=True):
        variants = dangling_variants(pattern, wildcards)
        out.extend(variants)
        out_numbers.extend([number] * len(variants))
    return out, out_numbers


def compile_usage(
    options: ParseOptions,
    usage: Mapping[int, tuple[UsageLine, ...]] | None,
    groups: tuple[int, ...],
) -> ContentUsageRules:
    """The Content-Usage rules of a group set, in file order, with the file-wide ones
    beside them: those may only add restrictions, never lift a group's ``n``."""
    # Imported here: http-sfv (through aipref) would add about a quarter to the import
    # time of rep_engine.robotstxt, which only a purpose-aware crawl needs.
    from rep_engine.robotstxt import aipref

    if usage is None:
        return aipref.NO_CONTENT_USAGE
    own = [line for group in groups for line in usage.get(group, ())]
    file_wide = usage.get(FILE_WIDE, ())
    if not own and not file_wide:
        return aipref.NO_CONTENT_USAGE
    encoding, wildcards = options.percent_encoding, options.wildcards
    extra = None
    if file_wide:
        extra = aipref.ContentUsageRules(
            map(_usage_rule, file_wide), encoding=encoding, wildcards=wildcards
        )
    return aipref.ContentUsageRules(
        map(_usage_rule, own), encoding=encoding, wildcards=wildcards, file_wide=extra
    )


def _usage_rule(line: UsageLine) -> ContentUsageRule:
    """One Content-Usage line, or a draft-canel-robots-ai-control-00 rule read as the
    train-ai path rule it states (``DisallowAITraining: /p`` -> ``/p train-ai=n``)."""
    from rep_engine.robotstxt import aipref

    number, value, key, written = line
    # Latin-1 gives the file's bytes back (see rep_engine.robotstxt._parser).
    if key == "Content-Usage":
        rule = aipref.ContentUsageRule.parse(value.encode("latin-1"), number)
        return rule._replace(written_key=written)
    if key == CONTENT_USAGE_NO_COLON:
        # attach-05 §3 requires the colon: only the line's "no"s (docs/deviations.md).
        rule = aipref.ContentUsageRule.parse(value.encode("latin-1"), number)
        why = "no colon (attach-05 §3): only its 'n' values are read (docs/deviations.md)"
        return rule._replace(prefs=aipref.noes_of(rule.prefs, why), key=key, written_key=written)
    prefs = aipref.TRAIN_AI_ALLOWED if key == ALLOW_AI_TRAINING else aipref.TRAIN_AI_DENIED
    text = value.encode("latin-1").decode("utf-8", "replace")
    return aipref.ContentUsageRule(value.encode("latin-1"), prefs, number, text, key, written)


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


#: The parse options of the files made plain, numbered (a plain file names its options by
#: number). A crawl uses one or two.
_OPTIONS: Final[list[ParseOptions]] = []
_OPTIONS_NUMBER: Final[dict[ParseOptions, int]] = {}


def _options_number(options: ParseOptions) -> int:
    number = _OPTIONS_NUMBER.get(options)
    if number is None:
        number = _OPTIONS_NUMBER[options] = len(_OPTIONS)
        _OPTIONS.append(options)
    return number


def _plain_array(table: bytes | array[int]) -> bytes | tuple[str, bytes]:
    """An ``array`` as its type code and bytes (a ``bytes`` table as it is)."""
    return table if type(table) is bytes else (table.typecode, table.tobytes())  # type: ignore[union-attr]


def _array_of(plain: bytes | tuple[str, bytes]) -> Any:
    return plain if type(plain) is bytes else array(*plain)


def unplain(plain: bytes) -> RobotsTxt:
    """The file :meth:`RobotsTxt.plain` made plain, without parsing it again."""
    (
        options, verdict, values, keys, key_of, codes, starts, tokens, delays, delay_tokens,
        signals, usage, usage_tokens, sitemaps, licenses,
    ) = marshal.loads(plain)  # fmt: skip
    rules = ParsedTables(
        values, keys, _array_of(key_of), _array_of(codes), _array_of(starts), tokens, delays,
        signals, usage, usage_tokens, delay_tokens,
    )  # fmt: skip
    return RobotsTxt(_OPTIONS[options], rules, sitemaps, verdict, licenses)


def _signals_of(merged: dict[str, bool], line: int = 0, written: str = "") -> ContentSignals:
    """Merged ``Content-Signal`` items as :class:`ContentSignals` (the most restrictive
    ``use=`` level), said by robots.txt ``line`` (0: several lines, or a header), written
    so (``written``)."""
    if not merged:
        return _NO_SIGNALS
    use = next((level for level in USE_LEVELS if merged.get("use_" + level)), None)
    search, ai_input, ai_train = (merged.get(name) for name in ("search", "ai_input", "ai_train"))
    return ContentSignals(search, ai_input, ai_train, use, line, written)


def parse_content_signal(values: Iterable[str]) -> ContentSignals:
    """``Content-Signal`` values outside robots.txt (the HTTP response header, every
    field line), read as the robots.txt line is (:func:`add_content_signal`)."""
    merged: dict[str, bool] = {}
    for value in values:
        add_content_signal(merged, value)
    return _signals_of(merged)


_ALLOW_ALL_DECISION: Final = Decision(True, reason="everything is allowed")
_DISALLOW_ALL_DECISION: Final = Decision(False, reason="everything is disallowed")


def parse_robotstxt(
    body: bytes | str, profile: str = "google", *, truncated: bool = False, **switches: Any
) -> RobotsTxt:
    """Parse a robots.txt body (SPEC §1, §2). Never raises on content.

    ``body`` is the raw response body (or text); only its first 500 KiB count.
    ``profile`` is ``"google"`` (default), ``"rfc9309"`` or ``"legacy"``; keyword
    arguments override single switches of :class:`ParseOptions`. ``truncated``: the
    download cut the body (a body over 500 KiB is cut here): its unended last line is
    read only if it can only restrict, a Disallow line with a path, and a last group
    with no rule read is dropped, its crawlers sent to the groups read whole
    (docs/decisions.md, 'A cut robots.txt reads no part of a line that could allow').
    """
    options = profile_options(profile, **switches)
    body = body_bytes(body)
    if not isinstance(truncated, bool):
        raise TypeError(f"truncated must be a bool, not {type(truncated).__name__}")
    rules, sitemaps, licenses = Parser(options).parse(body, truncated)
    return RobotsTxt(options, rules, sitemaps, licenses=licenses)


#: Everything allowed (no robots.txt: 4xx, SPEC §4).
ALLOW_ALL: Final = RobotsTxt(PROFILES["google"], NO_TABLES, (), verdict=True)
#: Everything disallowed (unreachable robots.txt: 5xx, 429, network error, SPEC §4).
DISALLOW_ALL: Final = RobotsTxt(PROFILES["google"], NO_TABLES, (), verdict=False)
