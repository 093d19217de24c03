"""The group set of a crawler: its merged settings, and its rules compiled for matching
(SPEC §1 "Rule matching", §2) and for Content-Usage (draft-ietf-aipref-attach-05 §3).

Pure: no Scrapy imports. :func:`compile_matcher` turns the flat rule tables of the groups
that apply to a crawler (a :class:`Selection`) into a matcher of
:mod:`rep_engine.urls.matching`; :func:`compile_usage` does the same for the
Content-Usage lines. Called on first use, never while parsing.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from rep_engine.robotstxt._parser import (
    ALLOW_AI_TRAINING,
    CONTENT_USAGE_NO_COLON,
    FILE_WIDE,
    UsageLine,
)
from rep_engine.robotstxt.profiles import ParseOptions
from rep_engine.urls.encoding import (
    ESCAPES_SPECIALS,
    dangling_variants,
    has_lower_escape,
    normalise_pattern,
)
from rep_engine.urls.matching import FirstMatcher, LongestMatcher

if TYPE_CHECKING:
    from rep_engine.robotstxt._answers import ContentSignals
    from rep_engine.robotstxt.aipref import ContentUsageRule, ContentUsageRules


class _FixedMatcher:
    """The matcher of the allow-all / disallow-all stand-ins."""

    __slots__ = ("code",)

    def __init__(self, allowed: bool) -> None:
        self.code = 0 if allowed else -1

    def match(self, path: str) -> int:
        return self.code


#: What a group set compiles to.
Matcher: TypeAlias = LongestMatcher | FirstMatcher | _FixedMatcher


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
    ``RobotsTxt``); a stand-in's fixed answer when ``verdict`` is set."""
    if verdict is not None:
        return _FixedMatcher(verdict)
    patterns: list[str] = []
    numbers: array[int] = array(codes.typecode)
    for group in groups:
        end = starts[group + 1] if group + 1 < len(starts) else len(values)
        patterns.extend(values[starts[group] : end])
        numbers.extend(codes[starts[group] : end])
    joined = "\n".join(patterns)
    if joined:
        patterns = _normalised(patterns, joined, options)
    if "%" in joined and _DANGLING.search(joined) is not None:
        patterns, numbers = _with_dangling_variants(patterns, numbers, options.wildcards)
    exact_at: frozenset[int] = frozenset()
    if options.index_html_is_directory and "/index.htm" in joined:
        exact_at = _add_index_directories(patterns, numbers, options.wildcards)
    if options.precedence == "first":
        return FirstMatcher(patterns, numbers, options.wildcards, exact_at)
    return LongestMatcher(patterns, numbers, options.wildcards, exact_at)


def _normalised(patterns: list[str], joined: str, options: ParseOptions) -> list[str]:
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
    patterns: list[str], numbers: array[int], wildcards: bool
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

    number, value, key = line
    # Latin-1 gives the file's bytes back (see rep_engine.robotstxt._parser).
    if key == "Content-Usage":
        return aipref.ContentUsageRule.parse(value.encode("latin-1"), number)
    if key == CONTENT_USAGE_NO_COLON:
        # attach-05 §3 requires the colon: only the line's "no"s (docs/deviations.md).
        rule = aipref.ContentUsageRule.parse(value.encode("latin-1"), number)
        why = "no colon (attach-05 §3): only its 'n' values are read (docs/deviations.md)"
        return rule._replace(prefs=aipref.noes_of(rule.prefs, why), key=key)
    prefs = aipref.TRAIN_AI_ALLOWED if key == ALLOW_AI_TRAINING else aipref.TRAIN_AI_DENIED
    text = value.encode("latin-1").decode("utf-8", "replace")
    return aipref.ContentUsageRule(value.encode("latin-1"), prefs, number, text, key)


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
