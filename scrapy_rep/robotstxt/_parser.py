"""robots.txt parsing: one pass over the lines into flat rule tables (SPEC §1, §2).

Pure: no Scrapy imports. :class:`Parser` turns a body into the :class:`ParsedTables` that
:class:`scrapy_rep.robotstxt.RobotsTxt` holds, and the sitemaps. It never raises on
content: lines that are not ``key: value`` are skipped and logged at DEBUG on the
``scrapy_rep.robotstxt`` logger (the public module's name, as before the split).
"""

from __future__ import annotations

import logging
import math
from array import array
from sys import intern
from typing import Final, NamedTuple

from scrapy_rep.robotstxt._lines import (
    _ALLOW,
    _ALLOW_AI,
    _CONTENT_SIGNAL,
    _CONTENT_USAGE,
    _CRAWL_DELAY,
    _DISALLOW,
    _DISALLOW_AI,
    _GOOGLE_SEPARATOR,
    _KEYS,
    _LENIENT_KEYS,
    _LICENSE,
    _SITEMAP,
    _USER_AGENT,
    _WHITESPACE,
    _agent_token,
    _kind_of,
    _lines,
    file_text,
)
from scrapy_rep.robotstxt.profiles import ParseOptions

logger = logging.getLogger(__name__)


class ParsedTables(NamedTuple):
    """What the parser hands to ``RobotsTxt`` (see its attributes)."""

    values: tuple[str, ...]
    #: The distinct keys as written (``Disallow``, ``disallow``…, with the file's other
    #: keys), and per rule the index of its key there: 1 byte a rule where a tuple of
    #: strings costs 8.
    keys: tuple[str, ...]
    key_of: bytes | array[int]
    codes: array[int]
    starts: array[int]
    tokens: dict[str, int | tuple[int, ...]]
    delays: dict[int, float] | None
    #: Group (or ``FILE_WIDE``) -> its Content-Signal lines: (line number, items read).
    signals: dict[int, tuple[SignalLine, ...]] | None
    usage: dict[int, tuple[UsageLine, ...]] | None
    #: The groups of ``signals`` and ``usage`` when they differ from those of the
    #: allow/disallow rules (``tokens``); ``None``: the same groups.
    usage_tokens: dict[str, int | tuple[int, ...]] | None = None
    #: The groups of ``delays`` when they differ from those of the allow/disallow rules
    #: (a Crawl-delay line ends a run of user-agent lines); ``None``: the same groups.
    delay_tokens: dict[str, int | tuple[int, ...]] | None = None


#: One Content-Signal line of a group: (line number, its items as
#: :func:`add_content_signal` reads them).
SignalLine = tuple[int, dict[str, bool]]
#: One Content-Usage line of a group (or a Microsoft AI-training rule read as one):
#: (line number, value as written, the key as it is named in messages).
UsageLine = tuple[int, str, str]

NO_TABLES: Final = ParsedTables((), (), b"", array("i"), array("i"), {}, None, None, None)
#: The group key of the file-wide statements: Content-Signal, Content-Usage and
#: Crawl-delay lines written before the first user-agent line, which apply to every
#: crawler (docs/decisions.md, "Lines before the first group only add restrictions").
FILE_WIDE: Final = -1
#: Keys of the draft-canel-robots-ai-control-00 rules, as named in messages.
DISALLOW_AI_TRAINING: Final = "DisallowAITraining"
ALLOW_AI_TRAINING: Final = "AllowAITraining"
#: How a ``Content-Usage`` line without a colon (google profile) is named in messages:
#: attach-05 §3's grammar requires the colon, so only its "no"s are read
#: (docs/deviations.md).
CONTENT_USAGE_NO_COLON: Final = "Content-Usage (no colon)"


#: Content Signals policy keys -> ContentSignals fields.
_SIGNAL_NAMES: Final = {"search": "search", "ai-input": "ai_input", "ai-train": "ai_train"}
#: Cloudflare's ``use=`` levels, most restrictive first (docs/purpose-notes.md, 2).
USE_LEVELS: Final = ("immediate", "reference", "full")


def add_content_signal(own: dict[str, bool], value: str, noes_only: bool = False) -> list[str]:
    """The items of one ``Content-Signal`` value (``search=yes, ai-train=no``) merged into
    ``own``: per signal one "no" beats any "yes"; Cloudflare's ``use=`` level kept as
    ``use_<level>`` (the most restrictive is read, :data:`USE_LEVELS`). Names and values
    are case-insensitive. Returns the items not understood (skipped).

    ``noes_only``: the value of a malformed line (no colon), of which only the "no"s
    are read; its other items are returned as skipped (docs/deviations.md)."""
    skipped = []
    for item in value.split(","):
        name, _, setting = item.partition("=")
        key = name.strip(_WHITESPACE).lower()
        answer = setting.strip(_WHITESPACE).lower()
        if key == "use" and answer in USE_LEVELS and not noes_only:
            own["use_" + answer] = True
            continue
        field = _SIGNAL_NAMES.get(key)
        if field is None or answer not in ("yes", "no") or (noes_only and answer == "yes"):
            skipped.append(item)
            continue
        own[field] = own.get(field, True) and answer == "yes"
    return skipped


class Parser:
    """One pass over the lines, building the flat rule tables (SPEC §1 "Groups", §2)."""

    def __init__(self, options: ParseOptions) -> None:
        self.options = options
        self.skipped = 0

    def parse(self, body: bytes) -> tuple[ParsedTables, tuple[str, ...], tuple[str, ...]]:
        """The rule tables, the sitemaps and the RSL licenses of ``body``.

        One function on purpose (STYLE: "a 76-line parse loop"): the per-line steps stay
        inline. Moving only the comment/colon split into a method cost 16 % of the parse
        time of the corpus (2,000 files, 340,000 lines: about 80 ns a line; measured
        interleaved in one process, best of 12).
        """
        options = self.options
        lines = _lines(body, options.max_line_length, options.lenient_syntax)
        keys = _LENIENT_KEYS if options.lenient_syntax else _KEYS
        blank_ends = options.blank_line_ends_group
        lenient = options.lenient_syntax
        # The tables of RobotsTxt: per rule, value, key and code; per group, its first rule.
        values: list[str] = []
        rule_keys: list[int] = []  # per rule, the index of its key in ``spellings``
        # Signed line numbers: 2 bytes each when every one fits.
        codes = array("h" if len(lines) < 0x8000 else "i")
        starts = array("i")
        tokens: dict[str, int | tuple[int, ...]] = {}
        more: dict[str, list[int]] = {}  # tokens named by several groups
        delays: dict[int, float] = {}
        signals: dict[int, list[SignalLine]] = {}
        usage: dict[int, list[UsageLine]] = {}
        sitemaps: dict[str, None] = {}
        licenses: dict[str, None] = {}
        # Each distinct key as written -> (kind, the one string kept for it): most files
        # spell a handful of keys, so a line costs one lookup instead of lower() and intern().
        spellings: dict[str, tuple[int, int]] = {}
        values_append, keys_append, codes_append = values.append, rule_keys.append, codes.append
        group = -1
        in_agent_run = False
        # The groups of Content-Usage / Content-Signal (attach-05 §3: a rule ends a run
        # of user-agent lines), which Google's grouping of allow/disallow (unknown lines
        # ignored) only refines: every allow/disallow group is one or more usage groups.
        usage_group = -1
        usage_groups = 0
        in_usage_run = False
        usage_tokens: dict[str, list[int]] | None = None
        # The groups of Crawl-delay, which refine Google's the same way: a delay belongs
        # to the user-agent lines just above it, as crawler-commons, texting_robots and
        # robots-parser read it (Google ignores the key), so a valid Crawl-delay line ends
        # a run of user-agent lines for it (docs/decisions.md).
        delay_group = -1
        delay_groups = 0
        in_delay_run = False
        delay_tokens: dict[str, list[int]] | None = None
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
                        usage_group, in_usage_run = -1, False
                        delay_group, in_delay_run = -1, False
                    continue
                if not lenient:
                    self._skip(number, "no colon")
                    continue
                # Google accepts "key value" when there are exactly two words, separated
                # by spaces or tabs only (robots.cc: strpbrk(line, " \t")).
                parts = _GOOGLE_SEPARATOR.split(line, 1)
                if len(parts) != 2 or _GOOGLE_SEPARATOR.search(parts[1].lstrip(" \t")):
                    self._skip(number, "no colon")
                    continue
                key, value = parts[0].strip(_WHITESPACE), parts[1].strip(_WHITESPACE)
            spelling = spellings.get(key)
            if spelling is None:
                spelling = spellings[key] = (_kind_of(key, keys, lenient), len(spellings))
            kind, key_index = spelling
            if kind in (_ALLOW, _DISALLOW):
                in_agent_run = in_usage_run = in_delay_run = False
                if group < 0:
                    self._skip(number, "rule before any user-agent line")
                elif value:  # SPEC §1: an empty rule is ignored
                    values_append(value)
                    keys_append(key_index)
                    codes_append(number if kind == _ALLOW else -number)
            elif kind == _USER_AGENT:
                if not in_agent_run or group < 0:
                    group = len(starts)
                    starts.append(len(values))
                    in_agent_run = in_usage_run = in_delay_run = True
                    usage_group = usage_groups
                    usage_groups += 1
                    delay_group = delay_groups
                    delay_groups += 1
                elif not (in_usage_run and in_delay_run):
                    # A Content-Usage line (or a Crawl-delay line) ended the run for its
                    # own grouping only: it parts from Google's from here on (until then
                    # they are the same, so no table of its own is kept: most files
                    # never get here).
                    if not in_usage_run:
                        if usage_tokens is None:
                            usage_tokens = _groups_so_far(tokens, more)
                        usage_group = usage_groups
                        usage_groups += 1
                        in_usage_run = True
                    if not in_delay_run:
                        if delay_tokens is None:
                            delay_tokens = _groups_so_far(tokens, more)
                        delay_group = delay_groups
                        delay_groups += 1
                        in_delay_run = True
                # The usual plain name ("Googlebot") needs no product-token scan.
                token = intern(value.lower()) if value.isalnum() else _agent_token(value, lenient)
                if token:
                    first = tokens.setdefault(token, group)
                    if first != group:
                        named = more.setdefault(token, [first])  # type: ignore[list-item]
                        if named[-1] != group:
                            named.append(group)
                    if usage_tokens is not None:
                        by_usage = usage_tokens.setdefault(token, [usage_group])
                        if by_usage[-1] != usage_group:
                            by_usage.append(usage_group)
                    if delay_tokens is not None:
                        by_delay = delay_tokens.setdefault(token, [delay_group])
                        if by_delay[-1] != delay_group:
                            by_delay.append(delay_group)
            elif kind == _SITEMAP:
                if value:
                    sitemaps[file_text(value)] = None
            elif kind == _LICENSE:
                # RSL's guide: "global (not tied to any specific user agent)", wherever
                # it stands, as Sitemap is; it ends no run of user-agent lines.
                if value:
                    licenses[file_text(value)] = None
            elif kind < 0:
                self._skip(number, f"unknown key {file_text(key)!r}")
            elif kind == _CRAWL_DELAY:
                if delay_group >= 0:
                    if self._crawl_delay(delays, delay_group, value, number):
                        in_delay_run = False  # a malformed one ends nothing
                elif delay_groups:
                    # After a blank line ended a record (legacy): no group.
                    self._skip(number, "group setting outside any group")
                else:
                    # Before the first user-agent line: every crawler is asked to slow
                    # down; a group's own delay can only lengthen it (docs/decisions.md).
                    self._crawl_delay(delays, FILE_WIDE, value, number)
            else:
                # Content-Usage and the AI-training rules are rules of their group
                # (attach-05 §3, draft-canel-robots-ai-control-00): they end a run of
                # user-agent lines for their own grouping. Content-Signal is another
                # record (RFC 9309 §2.2.4: it "MUST NOT terminate a group"), as Sitemap
                # and Crawl-delay are: it ends nothing. Allow/disallow keep Google's
                # grouping, which ignores them all, in every profile: no Disallow is lost
                # (docs/behaviour.md).
                if kind != _CONTENT_SIGNAL:
                    in_usage_run = False
                    if lenient and kind >= _DISALLOW_AI:  # Google reads a disallow / allow
                        in_agent_run = in_delay_run = False
                if usage_group < 0 and usage_groups:
                    # After a blank line ended a record (legacy): no group.
                    self._skip(number, "group setting outside any group")
                    continue
                # Before the first user-agent line (usage_group -1, FILE_WIDE): they
                # apply to every crawler, and may only add restrictions (docs).
                # Without a colon (google profile; the grammars require one) a line
                # gives its "no"s only, never a "yes" (docs/deviations.md).
                if kind == _CONTENT_USAGE:
                    if value:
                        key_name = "Content-Usage" if colon else CONTENT_USAGE_NO_COLON
                        usage.setdefault(usage_group, []).append((number, value, key_name))
                elif kind == _CONTENT_SIGNAL:
                    self._content_signal(signals, usage_group, value, number, not colon)
                elif value:
                    # draft-canel-robots-ai-control-00: a train-ai path rule; Google reads
                    # any key starting with "disallow" / "allow" as that rule (kept).
                    if kind == _DISALLOW_AI:
                        usage.setdefault(usage_group, []).append(
                            (number, value, DISALLOW_AI_TRAINING)
                        )
                    elif colon:
                        usage.setdefault(usage_group, []).append((number, value, ALLOW_AI_TRAINING))
                    else:
                        self._skip(number, "no colon: no train-ai 'yes' from it")
                    if lenient and group >= 0:
                        values_append(value)
                        keys_append(key_index)
                        codes_append(number if kind == _ALLOW_AI else -number)
        for token, named in more.items():
            tokens[token] = tuple(named)
        if self.skipped and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt: skipped %d line(s) in total", self.skipped)
        rules = ParsedTables(
            tuple(values),
            # The spellings as interned strings, shared by every file that uses them.
            tuple(map(intern, spellings)),
            bytes(rule_keys) if len(spellings) <= 0x100 else array("I", rule_keys),
            codes,
            starts,
            tokens,
            delays or None,
            {group: tuple(lines) for group, lines in signals.items()} if signals else None,
            {group: tuple(lines) for group, lines in usage.items()} if usage else None,
            # Most files: the groupings never part, and no table of their own is kept.
            None if usage_tokens is None else _packed(usage_tokens),
            None if delay_tokens is None else _packed(delay_tokens),
        )
        return rules, tuple(sitemaps), tuple(licenses)

    def _skip(self, number: int, why: str) -> None:
        """SPEC §7: what was skipped is visible at DEBUG level."""
        self.skipped += 1
        if self.skipped <= 20 and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt line %d skipped: %s", number, why)

    def _crawl_delay(self, delays: dict[int, float], group: int, value: str, number: int) -> bool:
        """A group's delay (several: the largest, the most polite); ``False`` when the
        value is not a number of seconds (the line is skipped)."""
        try:
            delay = float(value)
        except ValueError:
            delay = math.nan
        if not math.isfinite(delay) or delay < 0:
            self._skip(number, f"crawl-delay is not a number of seconds: {file_text(value)!r}")
            return False
        delays[group] = max(delays.get(group, delay), delay)
        return True

    def _content_signal(
        self,
        signals: dict[int, list[SignalLine]],
        group: int,
        value: str,
        number: int,
        noes_only: bool,
    ) -> None:
        own: dict[str, bool] = {}
        for item in add_content_signal(own, value, noes_only):
            why = "only its 'no's are read without a colon" if noes_only else "not understood"
            self._skip(number, f"content-signal item {file_text(item)!r}: {why}")
        if own:
            signals.setdefault(group, []).append((number, own))


def _groups_so_far(
    tokens: dict[str, int | tuple[int, ...]], more: dict[str, list[int]]
) -> dict[str, list[int]]:
    """Each token's groups so far, as a grouping that parts from Google's here starts
    its own table (its group numbers are Google's up to this line)."""
    return {token: list(more.get(token, (group,))) for token, group in tokens.items()}  # type: ignore[arg-type]


def _packed(groups: dict[str, list[int]]) -> dict[str, int | tuple[int, ...]]:
    """A grouping's table as ``RobotsTxt`` keeps it (one group: its number)."""
    return {token: named[0] if len(named) == 1 else tuple(named) for token, named in groups.items()}
