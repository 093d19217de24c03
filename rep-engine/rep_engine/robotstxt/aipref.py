"""IETF AI Preferences: ``Content-Usage`` statements -> :class:`UsagePrefs` (pure).

Follows draft-ietf-aipref-vocab-08 ("vocab", 13 Sep 2026) and
draft-ietf-aipref-attach-05 ("attach"), the latest revisions in
``ietf-wg-aipref/drafts``. See ``docs/purpose-notes.md`` for the grammar and every choice
made where the drafts are silent, and ``docs/deviations.md`` for the "no"s kept that
vocab reads as unknown.

A statement of preference (:func:`parse_prefs`) arrives in the ``Content-Usage`` HTTP
response header (attach §2, :func:`parse_prefs_header`) and in ``Content-Usage: [path]
prefs`` robots.txt rules (attach §3, :func:`parse_content_usage_value`,
:class:`ContentUsageRules`).

The vocabulary: a statement is an RFC 9651 Structured Fields Dictionary whose keys are
the category labels ``train-ai``, ``ai-use`` and ``search`` (vocab-08 §6.1 Table 1:
three categories, no hierarchy; -07 had the first and the last) and whose values are the
Tokens ``y`` or ``n`` (§6.2); several statements combine per category (§5.1,
:func:`combine`). Deliberate deviations keep a site's "no" where §6.5 and §6.5.1 make it
unknown (:func:`_token_answer`, :func:`_kept_noes`).

Nothing here raises on content: a statement that does not parse makes every category
unknown (vocab §6.5) and is logged at DEBUG. Only a wrong argument type raises.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Final, Literal, NamedTuple

from http_sfv.dictionary import Dictionary
from http_sfv.item import Item
from http_sfv.types import Token

from rep_engine.robotstxt.profiles import body_bytes
from rep_engine.urls.encoding import (
    ESCAPES_SPECIALS,
    dangling_variants,
    normalise_pattern,
    normalise_url_path,
    path_of,
)
from rep_engine.urls.matching import LongestMatcher, wildcard_match

logger = logging.getLogger(__name__)

#: vocab-08 §6.1 Table 1: the category labels (case-sensitive; unknown labels are
#: ignored, §6.4). Kept in this order (the -07 labels first) for compatibility.
CATEGORIES: Final = ("train-ai", "search", "ai-use")
#: A statement longer than this is not parsed (all categories unknown). http-sfv slices
#: its input once per member, so its time grows with the square of the length (a 500 KB
#: inner list took 5 s); 8 KiB is the usual per-field-line limit of HTTP servers and
#: far above any real statement (the vocabulary has two keys). RFC 9651 §6 lets a
#: parser limit sizes.
MAX_PREFS_BYTES: Final = 8192
#: Longest excerpt of a bad value quoted in a DEBUG message.
_QUOTE_CHARS: Final = 80


def _quote(value: str | bytes) -> str:
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    return repr(text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS] + "…")


@dataclass(frozen=True, slots=True)
class UsagePrefs:
    """One statement of preference: per category ``True`` (``y``, allowed), ``False``
    (``n``, disallowed) or ``None`` (unknown) (vocab §3, §6.5)."""

    #: ``train-ai``: "Using an asset to modify the learned parameters of a generative AI
    #: model" (vocab-08 §4.1; non-generative training is not included).
    train_ai: bool | None = None
    #: ``search``: use in an application whose primary purpose is to select assets and
    #: direct users to their location (vocab-08 §4.3; it "overrides any usage that falls
    #: into other categories").
    search: bool | None = None
    #: Why the statement was not understood ("" when it parsed); for messages only.
    error: str = ""
    #: ``ai-use``: "Using an asset as input to a generative AI model, where the asset is
    #: not directly provided by the user" (vocab-08 §4.2).
    ai_use: bool | None = None

    def get(self, label: str) -> bool | None:
        """The preference for a category label (``"train-ai"``, ``"search"``, ``"ai-use"``)."""
        return getattr(self, label.replace("-", "_")) if label in CATEGORIES else None

    def __bool__(self) -> bool:
        """True when the statement states at least one preference."""
        return self.train_ai is not None or self.search is not None or self.ai_use is not None

    def __str__(self) -> str:
        """The known preferences in the exemplary format (``train-ai=n, search=y``)."""
        answers = ((label, self.get(label)) for label in CATEGORIES)
        return ", ".join(
            f"{label}={'y' if value else 'n'}" for label, value in answers if value is not None
        )


#: No statement, or one that said nothing we understand (vocab §3: all unknown).
UNKNOWN: Final = UsagePrefs()


def _unknown(why: str, value: str | bytes) -> UsagePrefs:
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("Content-Usage statement %s ignored: %s", _quote(value), why)
    return UsagePrefs(error=why)


def _token_answer(member: object) -> bool | None:
    """vocab §6.5: the Token ``y`` allows, the Token ``n`` disallows; anything else
    (an inner list, a boolean, another token) is unknown. Parameters are disregarded.
    Deviation (docs/deviations.md): ``"n"`` as a String and the Token ``N`` disallow
    too, the reading that keeps a site's "no"; ``"y"`` and ``Y`` stay unknown."""
    if isinstance(member, Item):
        value = member.value
        if isinstance(value, Token):
            if value == "y":
                return True
            if value in ("n", "N"):
                return False
        elif isinstance(value, str) and value in ("n", "N"):
            return False
    return None


def _kept_noes(data: bytes, why: str) -> UsagePrefs:
    """A statement whose Dictionary does not parse is unknown (vocab §6.5.1), "This
    includes where keys include uppercase characters". Deviation (docs/deviations.md):
    when it parses with its ASCII letters lowercased, its "no"s are kept (``Train-AI=n``
    disallows train-ai) and nothing else: no "yes" is read from it."""
    dictionary = Dictionary()
    try:
        dictionary.parse(data.lower())
    except Exception:  # http-sfv raises ValueError, IndexError, …: none may escape
        return _unknown(why, data)
    noes = [_token_answer(dictionary.get(label)) is False for label in CATEGORIES]
    if not any(noes):
        return _unknown(why, data)
    kept = "uppercase keys (vocab §6.5.1: unknown); its 'n' values kept (docs/deviations.md)"
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("Content-Usage statement %s: %s", _quote(data), kept)
    train_ai, search, ai_use = (False if no else None for no in noes)
    return UsagePrefs(train_ai, search, error=kept, ai_use=ai_use)


def parse_prefs(value: bytes | str) -> UsagePrefs:
    """One statement (a header value or the prefs of a robots.txt rule) (vocab §6.5).

    ``value`` is bytes, or text that is encoded as UTF-8 first (vocab §6.3). The bytes
    are parsed as an RFC 9651 Dictionary; a repeated key keeps its last value (RFC 9651
    §4.2.2); unknown keys and all parameters are ignored (vocab §6.4); keys are
    case-sensitive, so ``Train-AI=n`` fails the whole parse (vocab §6.5.1). A value
    that fails to parse, or is longer than :data:`MAX_PREFS_BYTES`, leaves every
    category unknown.
    """
    data = body_bytes(value, "value")  # text encoded as UTF-8 (vocab §6.3)
    if not data.strip(b" \t"):
        return UNKNOWN
    if len(data) > MAX_PREFS_BYTES:
        return _unknown(f"longer than {MAX_PREFS_BYTES} bytes", data)
    dictionary = Dictionary()
    try:
        dictionary.parse(data)
    except Exception as error:  # http-sfv raises ValueError, IndexError, …: none may escape
        cause = error.__cause__ or error
        return _kept_noes(data, f"not a Structured Fields Dictionary ({cause})")
    train_ai, search, ai_use = (_token_answer(dictionary.get(label)) for label in CATEGORIES)
    return UsagePrefs(train_ai, search, ai_use=ai_use) or UNKNOWN  # none known: UNKNOWN


def parse_prefs_header(values: Iterable[bytes | str]) -> UsagePrefs:
    """The ``Content-Usage`` response header (attach §2), given all its field lines.

    Several lines are one field: they are joined with ``", "`` before parsing (RFC 9110
    §5.3, RFC 9651 §4.2), so a broken line makes the whole field unknown.
    """
    if isinstance(values, (str, bytes)):
        values = [values]
    parts = [v.encode("utf-8", "surrogatepass") if isinstance(v, str) else bytes(v) for v in values]
    if not parts:
        return UNKNOWN
    return parse_prefs(b", ".join(parts))


def noes_of(prefs: UsagePrefs, why: str) -> UsagePrefs:
    """Only the "no"s of a statement read from a malformed line (``why``): its "yes"
    values are unknown (docs/deviations.md: a malformed line never gives a "yes")."""
    train_ai, search, ai_use = (
        False if value is False else None for value in (prefs.train_ai, prefs.search, prefs.ai_use)
    )
    return UsagePrefs(train_ai, search, error=why, ai_use=ai_use)


def combine(statements: Iterable[UsagePrefs]) -> UsagePrefs:
    """vocab §5.1 "Combining Preferences", per category: if any statement disallows,
    disallowed; otherwise if any allows, allowed; otherwise unknown."""
    train_ai: bool | None = None
    search: bool | None = None
    ai_use: bool | None = None
    for prefs in statements:
        if prefs.train_ai is not None and train_ai is not False:
            train_ai = prefs.train_ai
        if prefs.search is not None and search is not False:
            search = prefs.search
        if prefs.ai_use is not None and ai_use is not False:
            ai_use = prefs.ai_use
    return UsagePrefs(train_ai, search, ai_use=ai_use) or UNKNOWN  # none known: UNKNOWN


#: attach §3.2: the rule value ends at the first CR, LF or "#".
_VALUE_ENDS: Final = ("\r", "\n", "#")
#: attach §3.2: SP and HTAB separate the path from the statement.
_WS: Final = " \t"


def parse_content_usage_value(value: bytes | str) -> tuple[bytes | None, UsagePrefs]:
    """The value of one robots.txt ``Content-Usage`` rule -> (path or None, prefs).

    attach §3.2: the value ends at the first CR, LF or ``#``; it starts with ``/`` only
    when a path is given ("a rule value that starts with any other character indicates
    that the path is absent"); the path ends before the first SP or HTAB and the rest
    is the statement. The path is returned as the file's bytes (``None`` when absent);
    ``value`` is the file's bytes, or text that is encoded as UTF-8 first.
    """
    data = body_bytes(value, "value")
    for end in (b"\r", b"\n", b"#"):  # _VALUE_ENDS
        data = data.split(end, 1)[0]
    data = data.strip(b" \t")
    if not data.startswith(b"/"):
        return None, parse_prefs(data)
    cut = min((i for i in (data.find(b" "), data.find(b"\t")) if i >= 0), default=len(data))
    return data[:cut], parse_prefs(data[cut:].lstrip(b" \t"))


class ContentUsageRule(NamedTuple):
    """One ``Content-Usage`` line of a robots.txt group (attach §3)."""

    #: The path as written (the file's bytes), ``None`` when absent.
    path: bytes | None
    prefs: UsagePrefs
    #: 1-based line number in robots.txt (0 when unknown).
    line: int = 0
    #: The rule value as written, for messages (``/ai-ok/ train-ai=y``).
    value: str = ""
    #: The key as it is read: ``Content-Usage``, or ``DisallowAITraining`` /
    #: ``AllowAITraining`` (draft-canel-robots-ai-control-00, read as train-ai rules).
    key: str = "Content-Usage"
    #: The key as the site wrote it (``content-usage``, ``Content-Usage (no colon)``), which
    #: :attr:`source` quotes; ``""``: :attr:`key` (a rule made without a file).
    written_key: str = ""

    @classmethod
    def parse(cls, value: bytes | str, line: int = 0) -> ContentUsageRule:
        """A rule from its robots.txt value (see :func:`parse_content_usage_value`)."""
        path, prefs = parse_content_usage_value(value)
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        for end in _VALUE_ENDS:
            text = text.split(end, 1)[0]
        return cls(path, prefs, line, text.strip(_WS))

    @property
    def source(self) -> str:
        """Where the rule comes from, for the audit trail: its line, quoted as the site
        wrote it (its key's spelling, its value)."""
        where = f"robots.txt line {self.line}" if self.line else "robots.txt"
        return f"{where}: {self.written_key or self.key}: {self.value}"


class Attached(NamedTuple):
    """The preferences attached to one path: the combined statement and its rules."""

    prefs: UsagePrefs
    #: Every rule of the deciding (longest) path length that matches, in file order.
    rules: tuple[ContentUsageRule, ...]


_NOTHING_ATTACHED: Final = Attached(UNKNOWN, ())
_LINE: Final = attrgetter("line")
#: The statements of ``AllowAITraining`` / ``DisallowAITraining`` rules.
TRAIN_AI_ALLOWED: Final = UsagePrefs(train_ai=True)
TRAIN_AI_DENIED: Final = UsagePrefs(train_ai=False)


class ContentUsageRules:
    """The ``Content-Usage`` rules of one (merged) robots.txt group, compiled (attach §3.1).

    "Any Content-Usage rules determine the usage preferences for resources using the
    same path prefix matching rules as defined for Allow and Disallow. That is, the path
    prefix length is determined by counting the number of bytes in the encoded path."
    Paths are RFC 9309 patterns (``*``, a final ``$``), matched by the same linear-time
    matcher as ``allow``/``disallow``; the longest matching pattern wins. Rules with
    "identical paths and conflicting usage preferences ... apply separately" and are
    combined by vocab §5.1 (any ``n`` wins); so are different patterns of the same
    length that both match (the draft is silent; the more restrictive reading).
    A rule without a path applies to every path with length 0, so any rule with a path
    (even ``/``) is more specific.

    ``file_wide``: the rules written before the first group. They are matched on their
    own and combined with the group's answer by vocab §5.1 (any ``n`` wins): they may
    add a restriction, never lift a group's ``n`` (docs/behaviour.md).

    Only call this for URLs that robots.txt allows: "no preferences are implied for
    resources that are disallowed" (attach §3.1).
    """

    __slots__ = (
        "_combined",
        "_encoding",
        "_entries",
        "_file_wide",
        "_matcher",
        "_same_length",
        "_variants",
        "_wildcards",
        "rules",
    )

    def __init__(
        self,
        rules: Iterable[ContentUsageRule],
        *,
        encoding: Literal["google", "rfc9309", "legacy", "none"] = "google",
        wildcards: bool = True,
        file_wide: ContentUsageRules | None = None,
    ) -> None:
        """``encoding`` and ``wildcards``: as the robots.txt profile's (SPEC §2)."""
        self._file_wide = file_wide if file_wide is not None and len(file_wide) else None
        #: ids of (group's, file-wide) attached -> (both, combined): one object per pair,
        #: so the signals built from it are cached (bounded; the pair is kept, so the ids
        #: cannot be reused while cached).
        self._combined: dict[tuple[int, int], tuple[Attached, Attached, Attached]] = {}
        own = tuple(rules)
        self.rules = own
        if self._file_wide is not None:
            self.rules = tuple(sorted((*own, *self._file_wide.rules), key=_LINE))
        self._encoding = encoding
        by_pattern: dict[str, list[ContentUsageRule]] = {}
        for rule in own:
            if rule.path is None:
                pattern = ""
            else:
                pattern = normalise_pattern(rule.path.decode("latin-1"), encoding, wildcards)
            by_pattern.setdefault(pattern, []).append(rule)
        #: One entry per distinct pattern: (pattern, what it attaches).
        self._entries: tuple[tuple[str, Attached], ...] = tuple(
            (pattern, Attached(combine(r.prefs for r in group), tuple(group)))
            for pattern, group in by_pattern.items()
        )
        #: Each entry's pattern and its dangling-escape variants (SPEC §1).
        self._variants = tuple(dangling_variants(p, wildcards) for p, _ in self._entries)
        # Rule codes are the entries' positions + 1 (non-zero, as the matcher needs).
        self._matcher = LongestMatcher(
            [variant for variants in self._variants for variant in variants],
            [code for code, vs in enumerate(self._variants, 1) for _ in vs],
            wildcards,
        )
        lengths: dict[int, list[int]] = {}
        for index, (pattern, _) in enumerate(self._entries):
            lengths.setdefault(len(pattern), []).append(index)
        #: For each pattern length held by several patterns: their entry indices.
        self._same_length = {n: tuple(ix) for n, ix in lengths.items() if len(ix) > 1}
        self._wildcards = wildcards

    def __len__(self) -> int:
        return len(self.rules)

    def attach(self, url: str) -> Attached:
        """The preferences for ``url`` (an absolute URL or a path) and the deciding rules."""
        attached = self._attach(url)
        if self._file_wide is None:
            return attached
        extra = self._file_wide.attach(url)
        if not extra.rules:
            return attached
        if not attached.rules:
            return extra
        key = (id(attached), id(extra))
        known = self._combined.get(key)
        if known is not None and known[0] is attached and known[1] is extra:
            return known[2]
        if len(self._combined) >= 1024:
            self._combined.clear()
        rules = tuple(sorted((*attached.rules, *extra.rules), key=_LINE))
        combined = Attached(combine((attached.prefs, extra.prefs)), rules)
        self._combined[key] = (attached, extra, combined)
        return combined

    def _attach(self, url: str) -> Attached:
        if not self._entries:
            return _NOTHING_ATTACHED
        path = path_of(url)
        # As RobotsTxt.allowed: %c3 is %C3, and (rfc9309, legacy) a "*" is "%2A".
        if "%" in path or not path.isascii() or self._encoding in ESCAPES_SPECIALS:
            path = normalise_url_path(path, self._encoding)
        code = self._matcher.match(path)
        if not code:
            return _NOTHING_ATTACHED
        best = code - 1
        pattern, attached = self._entries[best]
        ties = self._same_length.get(len(pattern))
        if ties is None:
            return attached
        matched = [self._entries[i][1] for i in ties if i == best or self._matches(i, path)]
        if len(matched) == 1:
            return attached
        rules = tuple(sorted((r for a in matched for r in a.rules), key=_LINE))
        return Attached(combine(a.prefs for a in matched), rules)

    def prefs(self, url: str) -> UsagePrefs:
        """The combined preferences for ``url`` (unknown when no rule applies)."""
        return self.attach(url).prefs

    def _matches(self, index: int, path: str) -> bool:
        return any(self._pattern_matches(p, path) for p in self._variants[index])

    def _pattern_matches(self, pattern: str, path: str) -> bool:
        anchored = self._wildcards and pattern.endswith("$")
        body = pattern[:-1] if anchored else pattern
        segments = body.split("*") if self._wildcards else [body]
        if len(segments) == 1:
            return path == body if anchored else path.startswith(body)
        return wildcard_match(path, segments, anchored)


#: No ``Content-Usage`` rules (a robots.txt without any for the crawler): one shared,
#: empty set that attaches nothing.
NO_CONTENT_USAGE: Final = ContentUsageRules(())
