"""robots.txt parsing: a body as lines, each line's key, and one pass over the lines into
flat rule tables (SPEC §1, §2). Pure: no Scrapy imports.

A body is read as lines (:func:`counted_body`, :func:`_text`, :func:`_lines`): the first
500 KiB, decoded byte for byte, cut into lines at LF, CR or CRLF; each line's key is one
of RFC 9309 and the extensions, with Google's misspellings and prefixes (:func:`_kind_of`);
a group name gives its product token (:func:`_agent_token`). Of a cut robots.txt, the
lines that are read: :func:`without_open_group` gives the lines allow/disallow are read
from, :func:`with_open_usage_group` those the AI-usage statements are read from, when
more. The usual rule lines (``Disallow: /p``, ``Allow: /p``, spelled so) are read in bulk,
a run of them at once (:meth:`_Pass.bulk`), the others one by one (:meth:`_Pass.read`):
each gives the same key, value and line number either way.

:class:`Parser` turns a body into the :class:`ParsedTables` that
:class:`rep_engine.robotstxt.RobotsTxt` holds, and the sitemaps. It never raises on
content: lines that are not ``key: value`` are skipped and logged at DEBUG on the
``rep_engine.robotstxt`` logger (the public module's name).
"""

from __future__ import annotations

import logging
import math
import re
import sys
from array import array
from collections.abc import Iterable
from itertools import compress, repeat
from operator import contains, or_
from sys import intern
from typing import Final, NamedTuple

from rep_engine.directives import product_token
from rep_engine.robotstxt.profiles import MAX_BODY_BYTES, ParseOptions
from rep_engine.robotstxt.useragent import is_global_agent

logger = logging.getLogger("rep_engine.robotstxt")  # the public module's name


def file_text(latin1: str) -> str:
    """File content (decoded as Latin-1) as real text: UTF-8, invalid bytes replaced."""
    if latin1.isascii():
        return latin1
    return latin1.encode("latin-1").decode("utf-8", "replace")


_WHITESPACE = " \t\v\f"
#: Google's separator of a line without a colon: a space or a tab, not \v or \f.
_GOOGLE_SEPARATOR = re.compile(r"[ \t]")

(
    _USER_AGENT,
    _ALLOW,
    _DISALLOW,
    _SITEMAP,
    _CRAWL_DELAY,
    _CONTENT_SIGNAL,
    _CONTENT_USAGE,
    _DISALLOW_AI,
    _ALLOW_AI,
    _LICENSE,
) = range(10)
#: The sign of a rule's code (its signed line number) by the kind of its key.
_RULE_SIGNS: Final = {_ALLOW: 1, _DISALLOW: -1}
#: The keys of a group's AI-usage statements (attach-05's ``Content-Usage``, the
#: ``Content-Signal`` record, draft-canel-robots-ai-control-00's AI-training rules).
_USAGE_KINDS: Final = (_CONTENT_USAGE, _CONTENT_SIGNAL, _DISALLOW_AI, _ALLOW_AI)
#: Keys of RFC 9309 and the common extensions (SPEC §1), compared lowercased; the
#: Content-Usage rule is draft-ietf-aipref-attach-05 §3; the AI-training rules are
#: draft-canel-robots-ai-control-00; ``License`` (file-wide, like ``Sitemap``) is RSL 1.0's
#: robots.txt directive.
_KEYS: Final = {
    "user-agent": _USER_AGENT,
    "allow": _ALLOW,
    "disallow": _DISALLOW,
    "sitemap": _SITEMAP,
    "crawl-delay": _CRAWL_DELAY,
    "content-signal": _CONTENT_SIGNAL,
    "content-usage": _CONTENT_USAGE,
    "disallowaitraining": _DISALLOW_AI,
    "allowaitraining": _ALLOW_AI,
    "license": _LICENSE,
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


def _uncommented(line: str) -> str:
    """A line of the legacy text up to its ``#`` (``""``: a comment line, nothing before
    it but whitespace)."""
    line = line[: line.index("#")]
    return line if line.strip(_WHITESPACE) else ""


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


def _skip_bom(body: bytes) -> bytes:
    """SPEC §1: a leading UTF-8 byte order mark, or the start of one, is skipped (Google)."""
    if not body.startswith(b"\xef"):
        return body
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:]
    if body.startswith(b"\xef\xbb"):
        return body[2:]
    return body[1:] if body.startswith(b"\xef") else body


#: The keys whose line a cut may leave in part and still be read (:func:`counted_body`).
_CUT_KEEPS: Final = (_DISALLOW, _DISALLOW_AI)


def counted_body(body: bytes, cut: bool = False) -> bytes:
    """The part of a robots.txt body that is read (SPEC §1): its first 500 KiB, and of a
    cut document (``cut``: its download or capture says so; or longer than 500 KiB, cut
    here) no unended last line that could allow more than the site's whole line: that
    line is dropped, unless it is a Disallow line with a path (``Disallow: /pu`` of
    ``Disallow: /public`` forbids more, never less) or the cut fell in its comment (what
    is read of it is whole). A cut ``Allow: /pu`` would allow ``/purchase``, a cut ``User-agent:
    testbot-news`` would give testbot an empty group (docs/decisions.md, 'A cut
    robots.txt reads no part of a line that could allow'). The key is read as the
    google profile reads it, in every profile: each key another profile reads as
    Disallow, the google profile does too."""
    if len(body) > MAX_BODY_BYTES:
        body, cut = body[:MAX_BODY_BYTES], True
    if not cut:
        return body
    end = max(body.rfind(b"\n"), body.rfind(b"\r")) + 1
    if end == len(body) or _only_restricts(body[end:] if end else _skip_bom(body)):
        return body
    return body[:end]


def two_words(text: str) -> tuple[str, str] | None:
    """``(key, value)`` of a line without a colon (stripped, its comment gone) as Google
    reads it: exactly two words, separated by spaces or tabs only (robots.cc:
    ``strpbrk(line, " \\t")``); ``None`` for any other such line, which is skipped."""
    parts = _GOOGLE_SEPARATOR.split(text, 1)
    if len(parts) != 2 or _GOOGLE_SEPARATOR.search(parts[1].lstrip(" \t")):
        return None
    return parts[0].strip(_WHITESPACE), parts[1].strip(_WHITESPACE)


def _only_restricts(line: bytes) -> bool:
    """Whether a partial last line, read, can only restrict (see :func:`counted_body`)."""
    text = line.decode("latin-1")
    if "#" in text:  # the cut fell in the comment: the key and value before it are whole
        return True
    key, colon, value = text.partition(":")
    if not colon:  # Google's "key value" without a colon: the first word, and the rest
        words = _GOOGLE_SEPARATOR.split(key.strip(_WHITESPACE), 1)
        key, value = words[0], words[1] if len(words) > 1 else ""
    # ``Disallow:`` cut before its path restricts nothing (an empty rule is ignored): it
    # is dropped as any other partial line, so it cannot end its group's run either.
    kind = _kind_of(key.strip(_WHITESPACE), _LENIENT_KEYS, True)
    return kind in _CUT_KEEPS and bool(value.strip(_WHITESPACE))


def _text(body: bytes, comments: bool = False) -> str:
    """The text of ``body`` as its lines are read (SPEC §1: its first 500 KiB; LF, CR or
    CRLF, each a LF here), without its comments unless ``comments``.

    Dropped here, a comment leaves what its line is read as unchanged: everything from
    ``#`` is cut off a line before anything else is read of it, and a line cut at the line
    limit or at a NUL (:func:`_lines`) keeps the same part before its ``#``. Only the
    legacy profile tells a comment line from a blank one (a blank line ends a record):
    ``comments`` keeps them for it. A value read in bulk (:meth:`_Pass.bulk`) has no
    comment to cut then; the comments are found by ``str.find`` (a regex: a fifth more).
    """
    # Latin-1 maps each byte to one character: nothing can fail to decode, and the
    # original bytes come back unchanged (SPEC §1: invalid UTF-8 must not lose the file).
    text = _skip_bom(body[:MAX_BODY_BYTES]).decode("latin-1")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if comments or "#" not in text:
        return text
    kept, start = [], 0
    while (comment := text.find("#", start)) >= 0:
        kept.append(text[start:comment])
        start = text.find("\n", comment)
        if start < 0:
            return "".join(kept)
    kept.append(text[start:])
    return "".join(kept)


def _lines(text: str, limit: int | None, nul_ends: bool = False) -> list[str]:
    """The lines of ``text`` (:func:`_text`), each cut at ``limit`` (SPEC §1; ``None``:
    no limit).

    ``nul_ends`` (google profile): a line ends at its first NUL byte, as in Google's
    parser, which reads each line as a C string (robots.cc ``GetKeyAndValueFrom``).
    """
    lines = text.split("\n")
    if limit is not None and len(text) > limit and max(map(len, lines)) > limit:
        lines = [line[:limit] for line in lines]
    if nul_ends and "\x00" in text:
        lines = [line.partition("\x00")[0] for line in lines]
    return lines


def _cut_anywhere(text: str, limit: int | None, nul_ends: bool) -> bool:
    """Whether :func:`_lines` may cut a line of ``text``: a NUL with ``nul_ends``, or a
    line longer than ``limit``. Told without splitting the text: such a line holds a
    whole stretch of ``(limit + 1) // 2`` characters from a multiple of that length, and
    that stretch has no line end (a line a little shorter may hold one too: ``True``, and
    the text is read line by line all the same)."""
    if nul_ends and "\x00" in text:
        return True
    if limit is None or len(text) <= limit:
        return False
    step = (limit + 1) // 2
    starts = range(0, len(text) - step + 1, step)
    return any(text.find("\n", start, start + step) < 0 for start in starts)


def _agent_token(value: str, google: bool = False) -> str:
    """The robots.txt side of SPEC §1 "User-agent matching": ``*`` alone (or before
    whitespace) is the global group; any other value gives its product token, compared
    as text (``FooBot/1.2`` -> ``foobot``, ``Jävla-Foobot`` -> ``jävla-foobot``).

    ``google``: a name that starts with a space other than ASCII whitespace (U+00A0,
    U+3000, U+001C-U+001F, U+0085…) names no crawler, as in Google's parser, which strips
    only ASCII whitespace and then takes the leading letters, ``-`` and ``_``; the other
    profiles skip such a space (docs/behaviour.md "Differences from Google's parser").
    """
    if is_global_agent(value):
        return "*"
    text = value if value.isascii() else file_text(value)
    if google and text[:1].isspace():
        return ""
    return intern(product_token(text))


def _name_token(value: str, google: bool) -> str:
    """A user-agent line's name as :func:`_agent_token` reads it; the usual plain name
    (``Googlebot``, ``AdsBot-Google``) without its product-token scan."""
    if value.isalnum():
        return intern(value.lower())
    if value == "*":
        return "*"
    if value.isascii() and value.replace("-", "").replace("_", "").isalnum():
        # RFC 9309 §2.2.1's product token (letters, "-", "_"; digits): all of it.
        return intern(value.lower())
    return _agent_token(value, google)


#: Each name read -> its token (:func:`_name_token`), for the google profile (``True``)
#: and the others: the files of a crawl name the same crawlers over and over. Bounded: a
#: name longer than ``_NAME_KEPT`` is not kept, and a full table is emptied (one dict
#: operation at a time: safe between threads). Nor is a token of one character: CPython
#: has one string for each character, which a token kept here would leave uninterned
#: where reading it again interns it (``RobotsTxt.plain()`` writes which).
_NAME_TOKENS: Final[tuple[dict[str, str], dict[str, str]]] = ({}, {})
_NAME_KEPT: Final = 100
_NAMES_KEPT: Final = 4096


#: The keys of the rules that make a group not empty, per profile (lenient: Google's
#: reading, which keeps the AI-training rules as Allow / Disallow rules of its group).
_GROUP_RULES: Final = {
    False: (_ALLOW, _DISALLOW),
    True: (_ALLOW, _DISALLOW, _ALLOW_AI, _DISALLOW_AI),
}


def without_open_group(lines: list[str], lenient: bool) -> list[str]:
    """The lines of a cut document without its last group when no rule of it was read:
    from the first user-agent line after the last rule on (a run of user-agent lines
    the cut may have parted from its rules). Read, it would be an empty group, which
    allows its crawlers everything and sets the ``*`` group aside; dropped, they fall
    back to the groups read whole (docs/decisions.md, 'A cut robots.txt reads no part
    of a line that could allow'). A rule is a line the profile reads as an allow or
    disallow rule of its group (an empty one is ignored, and counts for nothing); the
    lines are those the parser reads (comments, NUL ends and the line limit applied).
    Only from the first user-agent line there that names a crawler (not ``*``) are they
    dropped: a ``*`` group with no rule read adds no rule to the ``*`` group, so its
    lines (``Content-Usage``, ``Content-Signal``, ``Crawl-delay``) are read as written,
    and dropped they would lose its "no" for every crawler without a group of its own.
    The ``Sitemap`` and ``License`` lines among those dropped are kept: they belong to no
    group (RSL's guide: a ``License`` line is "global (not tied to any specific user
    agent)"), and a whole one dropped would lose an RSL license and its "no"."""
    keys = _LENIENT_KEYS if lenient else _KEYS
    return _up_to(lines, _rules_end(lines, keys, lenient), keys, lenient)


def with_open_usage_group(
    lines: list[str], lenient: bool, blank_ends: bool = False
) -> list[str] | None:
    """The lines of a cut document that its AI-usage statements are read from, when they
    are more than :func:`without_open_group` keeps: a named crawler's last group, dropped
    for allow/disallow (no rule of that kind read), is kept up to its last
    ``Content-Usage``, ``Content-Signal`` or AI-training line, whole lines the site wrote
    in that group (attach-05 §3 groups them by the user-agent lines above them). Dropped
    with the group, their "no"s were lost for its crawlers, who fell back to the ``*``
    group's statements. A last run of user-agent lines with no such line read after it
    is dropped here too (an empty usage group would set the ``*`` group's statements
    aside), unless it goes on the group of those lines (:func:`_usage_group_end`).
    ``None``: the same lines as :func:`without_open_group`."""
    keys = _LENIENT_KEYS if lenient else _KEYS
    usage_end = _open_usage_group(lines, keys, lenient)
    usage_end = _usage_group_end(lines, usage_end, keys, lenient, blank_ends)
    if usage_end <= _rules_end(lines, keys, lenient):
        return None
    return _up_to(lines, usage_end, keys, lenient)


#: The keys whose line ends a run of user-agent lines for the usage grouping (any value).
_USAGE_ENDS: Final = (_ALLOW, _DISALLOW, _CONTENT_USAGE, _ALLOW_AI, _DISALLOW_AI)


def _usage_group_end(
    lines: list[str], end: int, keys: dict[str, int], lenient: bool, blank_ends: bool
) -> int:
    """From the user-agent line at ``end``, the first that starts a usage group of its
    own: as the parser groups them, a user-agent line after a ``Content-Signal`` line
    (which ends no run, RFC 9309 §2.2.4) goes on its group, and its statements are that
    crawler's too; a Content-Usage, AI-training, allow or disallow line (or with
    ``blank_ends`` a blank line) ends the run, and the next user-agent line starts one."""
    before = (_run_state(lines[i], keys, lenient, blank_ends) for i in range(end - 1, -1, -1))
    going_on = next((state for state in before if state is not None), False)
    for index in range(end, len(lines)):
        state = _run_state(lines[index], keys, lenient, blank_ends)
        if state and not going_on:
            return index
        going_on = going_on if state is None else state
    return len(lines)


def _run_state(line: str, keys: dict[str, int], lenient: bool, blank_ends: bool) -> bool | None:
    """``True``: a user-agent line (a run is open after it); ``False``: a line that ends
    the usage grouping's run; ``None``: neither."""
    if blank_ends and "#" not in line and not line.strip(_WHITESPACE):
        return False
    read = _key_and_value(line, keys, lenient)
    if read is None:
        return None
    return True if read[0] == _USER_AGENT else (False if read[0] in _USAGE_ENDS else None)


def _rules_end(lines: list[str], keys: dict[str, int], lenient: bool) -> int:
    """Where :func:`without_open_group` drops ``lines`` from: the first user-agent line
    naming a crawler (not ``*``) at or after the first one past the last rule read."""
    for index in range(_open_group(lines, keys, lenient, _GROUP_RULES[lenient]), len(lines)):
        read = _key_and_value(lines[index], keys, lenient)
        if read is not None and read[0] == _USER_AGENT and not is_global_agent(read[1]):
            return index
    return len(lines)


def _open_group(
    lines: list[str], keys: dict[str, int], lenient: bool, kinds: tuple[int, ...]
) -> int:
    """The index of the first user-agent line after the last line of a kind in ``kinds``
    with a value (``len(lines)``: none follows it)."""
    end = len(lines)
    for index in range(len(lines) - 1, -1, -1):
        read = _key_and_value(lines[index], keys, lenient)
        if read is None:
            continue
        kind, value = read
        if kind in kinds and value:
            break
        if kind == _USER_AGENT:
            end = index
    return end


def _open_usage_group(lines: list[str], keys: dict[str, int], lenient: bool) -> int:
    """:func:`_open_group` of the AI-usage statements. A text that names none of their
    keys has none (:func:`_kind_of` compares a key lowercased, and no prefix reads one):
    its first user-agent line is found reading from its start, not each line from its
    end (most cut files have no such line, and 500 KiB were read line by line)."""
    names = [name for name, kind in keys.items() if kind in _USAGE_KINDS]
    # A name that holds another (disallowaitraining) is found with it.
    names = [name for name in names if not any(other in name for other in names if other != name)]
    # Only ASCII letters lowercase to one (the text is Latin-1): bytes lower them.
    lowered = "\n".join(lines).encode("latin-1").lower()
    if any(name.encode() in lowered for name in names):
        return _open_group(lines, keys, lenient, _USAGE_KINDS)
    for index, line in enumerate(lines):
        read = _key_and_value(line, keys, lenient)
        if read is not None and read[0] == _USER_AGENT:
            return index
    return len(lines)


def _up_to(lines: list[str], end: int, keys: dict[str, int], lenient: bool) -> list[str]:
    """``lines`` up to ``end``, then the lines after it that belong to no group
    (``lines`` itself when ``end`` is its end)."""
    if end == len(lines):
        return lines
    global_lines = [line for line in lines[end:] if _is_global(line, keys, lenient)]
    return lines[:end] + global_lines


def _key_and_value(line: str, keys: dict[str, int], lenient: bool) -> tuple[int, str] | None:
    """The kind of a line's key and its value (stripped) as the parser reads them;
    ``None`` for a line it skips (no colon, and not Google's two words)."""
    line = line.partition("#")[0]
    key, colon, value = line.partition(":")
    if not colon:
        pair = two_words(key.strip(_WHITESPACE)) if lenient else None
        if pair is None:  # skipped, as the parser does
            return None
        key, value = pair
    return _kind_of(key.strip(_WHITESPACE), keys, lenient), value.strip(_WHITESPACE)


def _is_global(line: str, keys: dict[str, int], lenient: bool) -> bool:
    """Whether the parser reads ``line`` as a record of no group (``Sitemap``, ``License``)."""
    read = _key_and_value(line, keys, lenient)
    return read is not None and read[0] in (_SITEMAP, _LICENSE)


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
    usage_tokens: dict[str, int | tuple[int, ...]] | None = None
    delay_tokens: dict[str, int | tuple[int, ...]] | None = None


#: One Content-Signal line of a group: (line number, its items as
#: :func:`add_content_signal` reads them, the line as written: :func:`written_line`).
SignalLine = tuple[int, dict[str, bool], str]
#: One Content-Usage line of a group (or a Microsoft AI-training rule read as one):
#: (line number, value as written, the key as it is read, the key as written:
#: :func:`written_key`).
UsageLine = tuple[int, str, str, str]

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


def written_key(key: str, colon: str) -> str:
    """A line's key as the site wrote it, for a quote of the line (the audit trail's
    ``source``): its spelling, marked ``(no colon)`` where the line has none (read so in
    the ``google`` profile only, for its "no"s: docs/deviations.md)."""
    return file_text(key) if colon else f"{file_text(key)} (no colon)"


def written_line(key: str, value: str, colon: str) -> str:
    """A ``Content-Signal`` (or ``Content-Usage``) line as the site wrote it, its key
    (:func:`written_key`) and its value, spaces around them and its comment gone: what a
    decision quotes of it, as a ``Disallow`` line is quoted."""
    return f"{written_key(key, colon)}: {file_text(value)}"


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


#: The runs of user-agent lines a line may end, one bit per grouping: Google's (of
#: allow/disallow), attach-05's (of Content-Usage / Content-Signal) and Crawl-delay's.
_AGENT_RUN, _USAGE_RUN, _DELAY_RUN = 1, 2, 4
_EVERY_RUN: Final = _AGENT_RUN | _USAGE_RUN | _DELAY_RUN


class Parser:
    """One pass over the lines, building the flat rule tables (SPEC §1 "Groups", §2)."""

    def __init__(self, options: ParseOptions) -> None:
        self.options = options
        self.skipped = 0

    def parse(
        self, body: bytes, cut: bool = False
    ) -> tuple[ParsedTables, tuple[str, ...], tuple[str, ...]]:
        """The rule tables, the sitemaps and the RSL licenses of ``body`` (``cut``: the
        download cut it, :func:`counted_body`, and
        :func:`without_open_group`)."""
        options = self.options
        text = _text(counted_body(body, cut), options.blank_line_ends_group)
        usage_lines = None
        if cut or len(body) > MAX_BODY_BYTES:
            lines = _lines(text, options.max_line_length, options.lenient_syntax)
            usage_lines = with_open_usage_group(
                lines, options.lenient_syntax, options.blank_line_ends_group
            )
            text = "\n".join(without_open_group(lines, options.lenient_syntax))
        read = _Pass(options)
        read.text(text)
        self.skipped += read.skipped
        if read.skipped and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt: skipped %d line(s) in total", read.skipped)
        tables = read.tables()
        if usage_lines is not None:
            tables = _with_usage_of(tables, options, usage_lines)
        return tables, tuple(read.sitemaps), tuple(read.licenses)


def _with_usage_of(tables: ParsedTables, options: ParseOptions, lines: list[str]) -> ParsedTables:
    """``tables`` (a cut document's, its last group dropped) with the AI-usage statements
    and their grouping read from ``lines`` (that group kept for them:
    :func:`with_open_usage_group`), the same lines up to
    the dropped group, so the line numbers are the file's."""
    usage = _Pass(options)
    usage.text("\n".join(lines))
    found = usage.tables()
    return tables._replace(
        signals=found.signals,
        usage=found.usage,
        usage_tokens=found.usage_tokens if found.usage_tokens is not None else found.tokens,
    )


#: The rule lines read in bulk (:meth:`_Pass.bulk`), each as a LF and the start of the
#: line as sites write it nearly always, and its key: of the rule lines of the corpus,
#: 80 % are ``Disallow: /p`` and 14 % ``Allow: /p``.
_BULK_RULES: Final = (("\nDisallow: ", "Disallow"), ("\nAllow: ", "Allow"))
#: A shorter text is read line by line: its few runs of rules save less than splitting it
#: costs (600 and 400: the fewest instructions for the corpus).
_SMALL: Final = 600
#: Rule lines are read in bulk where their runs are at least this long on average (3 and
#: 2: the fewest instructions for the corpus); shorter, as in a file of one rule a group
#: (``User-agent: x``, ``Disallow: /``, ...), the text is read line by line.
_RUN: Final = 3
#: A longer text is read in pieces of at most this many characters, each ending at a line
#: end: CPython looks a separator up in less than 30,000 characters with a plain search,
#: in more with a two-way search that it sets up anew for each one found.
_CHUNK: Final = 29_000


def _counting() -> tuple[array[int], array[int]]:
    """0, 1, 2… 0x7fff and 0, -1, -2… -0x7fff, arrays of 2 bytes a number: the codes of a
    run of rule lines read in bulk are a slice of one (no int made for each). Made of the
    bytes of every 16-bit number: an array made of ints converts each (milliseconds at
    each import)."""
    every = bytearray(0x20000)  # every 16-bit number, in the machine's byte order
    low = 0 if sys.byteorder == "little" else 1
    every[low::2] = bytes(range(256)) * 256
    every[1 - low :: 2] = b"".join(bytes([high]) * 256 for high in range(256))
    numbers = array("h", bytes(every))  # 0… 0x7fff, then -0x8000… -1
    return numbers[:0x8000], array("h", [0]) + numbers[:0x8000:-1]


#: Line ``n`` of an allow rule has the code ``_ASCENDING[n]``, of a disallow rule
#: ``_DESCENDING[n]`` (in a text of fewer than 0x8000 lines).
_ASCENDING, _DESCENDING = _counting()
#: What :meth:`_Pass.read` reads: a run of rule lines read in bulk (their key and values),
#: or lines to read one by one.
_Item = tuple[str, list[str]] | list[str]


class _Pass:
    """The tables of one body as its lines are read, and where its groups stand.

    Three groupings of one file: allow/disallow as Google groups them (unknown lines
    ignored); Content-Usage / Content-Signal as attach-05 §3 does (a rule ends a run of
    user-agent lines), which only refines Google's (every allow/disallow group is one or
    more usage groups); Crawl-delay as the parsers that read it do (a delay belongs to the
    user-agent lines just above it, as crawler-commons, texting_robots and robots-parser
    read it; Google ignores the key), which refines Google's the same way (a
    :class:`_Grouping`).
    """

    def __init__(self, options: ParseOptions) -> None:
        self.lenient = options.lenient_syntax
        self.blank_ends = options.blank_line_ends_group
        self.limit = options.max_line_length
        self.skipped = 0
        # The tables of RobotsTxt: per rule, value, key and code; per group, its first rule.
        self.values: list[str] = []
        self.rule_keys: list[int] = []  # per rule, the index of its key in ``spellings``
        # Signed line numbers, an array of 2 bytes each when every one fits (fewer than
        # 0x8000 lines: see text).
        self.codes = array("h")
        self.starts = array("i")
        self.tokens: dict[str, int | tuple[int, ...]] = {}
        self.more: dict[str, list[int]] = {}  # tokens named by several groups
        self.delays: dict[int, float] = {}
        self.signals: dict[int, list[SignalLine]] = {}
        self.usage: dict[int, list[UsageLine]] = {}
        self.sitemaps: dict[str, None] = {}
        self.licenses: dict[str, None] = {}
        # Each distinct key as written -> (kind, the one string kept for it, the sign of a
        # rule's code: 1 allow, -1 disallow, 0 another kind): most files spell a handful
        # of keys, so a line costs one lookup instead of lower() and intern().
        self.spellings: dict[str, tuple[int, int, int]] = {}
        self.usage_grouping = _Grouping()  # of Content-Usage / Content-Signal
        self.delay_grouping = _Grouping()  # of Crawl-delay

    def text(self, text: str) -> None:
        """Read every line of ``text`` (:func:`_text`): runs of the usual rule lines in
        bulk (:meth:`bulk`), the other lines one by one (:meth:`read`), in file order. A
        small text, or one with a line :func:`_lines` cuts (at a NUL, past the line
        limit), is read line by line."""
        items: list[_Item]
        if len(text) < _SMALL or _cut_anywhere(text, self.limit, self.lenient):
            items = [_lines(text, self.limit, self.lenient)]
            count = len(items[0])
        else:
            items = []
            text = "\n" + text
            start = count = 0
            while len(text) - start > _CHUNK:
                end = text.rfind("\n", start + 1, start + _CHUNK)
                if end < 0:  # a line longer than a piece: the rest at once
                    break
                count += self.bulk(text[start:end], 0, items)
                start = end
            count += self.bulk(text[start:] if start else text, 0, items)
        if count >= 0x8000:  # a code may not fit in 2 bytes
            self.codes = array("i")
        self.read(items)

    def bulk(self, lines: str, level: int, items: list[_Item]) -> int:
        """Add ``lines`` (each after a LF) to ``items`` as :meth:`read` reads them: each
        run of the rule lines of ``_BULK_RULES[level]`` as one item (the key, the values),
        the lines between runs as the next level splits them (after the last level: as
        lines to read one by one); the number of lines.

        One split of the text at the start of such a line (a LF, ``Disallow:`` and a
        space) gives the value of each, one string, where reading the line one by one
        makes five and looks its key up; the values are stripped at once (SPEC §1). A part
        holding a LF is the last value of a run and the lines up to the next run; in the
        legacy profile, which keeps the comments, a part holding ``#`` too. A text of
        short runs (one rule a group: ``User-agent: x``, ``Disallow: /``) is read line by
        line instead: a run read in bulk costs about what one and a half lines read one by
        one do, on top of the split."""
        separator = _BULK_RULES[level][0]
        parts = lines.split(separator)
        mixed = list(map(contains, parts, repeat("\n")))
        if self.blank_ends and "#" in lines:  # comments kept (legacy)
            mixed = list(map(or_, mixed, map(contains, parts, repeat("#"))))
        if len(parts) - 1 < _RUN * mixed.count(True):
            if level + 1 < len(_BULK_RULES):
                return self.bulk(lines, level + 1, items)
            general = lines[1:].split("\n")
            items.append(general)
            return len(general)
        # The next key read in bulk, split out only where the text between runs holds it.
        deeper = _BULK_RULES[level + 1][0] if level + 1 < len(_BULK_RULES) else None
        head = parts[0]
        count = len(parts) - 1
        if head:
            if deeper is not None and deeper in head:
                count += self.bulk(head, level + 1, items)
            else:
                general = head[1:].split("\n")
                items.append(general)
                count += len(general)
        if len(parts) == 1:
            return count
        return count + self.runs(parts, mixed, level, deeper, items)

    def runs(
        self,
        parts: list[str],
        mixed: list[bool],
        level: int,
        deeper: str | None,
        items: list[_Item],
    ) -> int:
        """The runs of ``parts`` (a text split at each rule line of ``_BULK_RULES[level]``;
        ``mixed``: the parts holding more than a value) added to ``items`` (:meth:`bulk`),
        each with the lines after it; how many lines those hold (``deeper``: the next
        level's separator, ``None``: none)."""
        separator, key = _BULK_RULES[level]
        values = list(map(str.strip, parts, repeat(_WHITESPACE)))
        count, start = 0, 1
        for index in compress(range(len(parts)), mixed):
            if not index:
                continue
            value, newline, rest = parts[index].partition("\n")
            if "#" in value:  # comments kept (legacy): the line is read one by one
                if index > start:
                    items.append((key, values[start:index]))
                items.append([separator[1:] + value])
            else:
                values[index] = value.strip(_WHITESPACE)
                items.append((key, values[start : index + 1]))
            if not newline:
                pass
            elif deeper is not None and deeper[1:] in rest:
                count += self.bulk("\n" + rest, level + 1, items)
            else:
                general = rest.split("\n")
                items.append(general)
                count += len(general)
            start = index + 1
        if start < len(parts):
            items.append((key, values[start:]))
        return count

    def read(self, items: list[_Item]) -> None:
        """Read ``items`` (:meth:`bulk`): a run of rule lines (:meth:`run`), or lines one by
        one (SPEC §1: ``key: value``, everything from ``#`` a comment).

        The hot path: a line's split, and allow/disallow rules, stay inline (moving only
        the comment/colon split into a method cost 16 % of the parse time of the corpus);
        ``group`` (Google's) and ``runs`` (the runs of user-agent lines still open, a bit
        per grouping) are locals, which the other kinds' methods hand back."""
        spellings, blank_ends = self.spellings, self.blank_ends
        values_append, keys_append = self.values.append, self.rule_keys.append
        codes_append, user_agent, other = self.codes.append, self.user_agent, self.other
        sitemaps = self.sitemaps
        group, runs, number = -1, 0, 0
        for item in items:
            if isinstance(item, tuple):  # a run of rule lines read in bulk
                runs = 0  # each of its lines ends a run of user-agent lines
                number = self.run(item, group, number)
                continue
            for line in item:  # the other lines, one by one
                number += 1
                if not line and not blank_ends:
                    continue  # a blank line (one ends a record in the legacy profile)
                # only the legacy text keeps its comments
                if blank_ends and "#" in line and not (line := _uncommented(line)):
                    continue  # a comment line: not a blank line
                raw_key, colon, raw_value = line.partition(":")
                if colon:
                    key = raw_key.strip(_WHITESPACE)
                    value = raw_value.strip(_WHITESPACE)
                else:
                    pair, group, runs = self.without_colon(number, raw_key, group, runs)
                    if pair is None:
                        continue
                    key, value = pair
                kind, key_index, sign = spellings.get(key) or self.spelling(key)
                if sign:  # an allow or a disallow line
                    runs = 0
                    if group < 0:
                        self.skip(number, "rule before any user-agent line")
                    elif value:  # SPEC §1: an empty rule is ignored
                        values_append(value)
                        keys_append(key_index)
                        codes_append(sign * number)
                elif kind == _USER_AGENT:
                    group, runs = user_agent(value, group, runs)
                elif kind == _SITEMAP:  # (the usual other line, inline too)
                    if value:
                        sitemaps[file_text(value)] = None
                else:
                    runs = other(kind, number, (key, value, colon), key_index, group, runs)

    def run(self, item: tuple[str, list[str]], group: int, number: int) -> int:
        """A run of rule lines read in bulk (:meth:`bulk`: its key as written, its values),
        after line ``number``, in ``group``: its values added at once, with the slice of
        :data:`_ASCENDING` or :data:`_DESCENDING` that are its lines' codes; the number of
        its last line."""
        key, found = item
        spellings = self.spellings
        spelling = spellings.get(key)
        if spelling is None:  # as :meth:`spelling` (inline: the call costs more, once a run)
            kind = _kind_of(key, _LENIENT_KEYS if self.lenient else _KEYS, self.lenient)
            spelling = spellings[key] = (kind, len(spellings), _RULE_SIGNS.get(kind, 0))
        if group < 0:
            for _ in found:
                number += 1
                self.skip(number, "rule before any user-agent line")
            return number
        first, number = number + 1, number + len(found)
        codes: Iterable[int]
        if self.codes.typecode == "h":
            codes = (_DESCENDING if spelling[2] < 0 else _ASCENDING)[first : number + 1]
        else:
            sign = spelling[2]
            codes = range(sign * first, sign * (number + 1), sign)
        if "" in found:  # SPEC §1: an empty rule is ignored
            codes = compress(codes, found)
            found = list(compress(found, found))
        self.values.extend(found)
        self.rule_keys.extend(repeat(spelling[1], len(found)))
        self.codes.extend(codes)
        return number

    def spelling(self, key: str) -> tuple[int, int, int]:
        """A key as written the first time it is met: its kind, the one number kept for
        it, and the sign of a rule's code (:attr:`spellings`)."""
        kind = _kind_of(key, _LENIENT_KEYS if self.lenient else _KEYS, self.lenient)
        spelling = self.spellings[key] = (kind, len(self.spellings), _RULE_SIGNS.get(kind, 0))
        return spelling

    def without_colon(
        self, number: int, raw: str, group: int, runs: int
    ) -> tuple[tuple[str, str] | None, int, int]:
        """A line without a colon: ``(key, value)`` where Google reads one (two words),
        ``None`` to skip it; a blank one (nothing to skip) ends a record in the legacy
        profile: no group or run of user-agent lines open. With the group and the runs now
        open."""
        text = raw.strip(_WHITESPACE)
        if not text:
            if self.blank_ends:
                self.usage_grouping.current = self.delay_grouping.current = -1
                return None, -1, 0
            return None, group, runs
        pair = two_words(text) if self.lenient else None  # Google's "key value"
        if pair is None:
            self.skip(number, "no colon")
        return pair, group, runs

    def user_agent(self, value: str, group: int, runs: int) -> tuple[int, int]:
        """A user-agent line: a new group unless it goes on a run of them (for each
        grouping), and its name recorded; the group and the runs now open."""
        usage, delay = self.usage_grouping, self.delay_grouping
        if not runs & _AGENT_RUN or group < 0:
            group = len(self.starts)
            self.starts.append(len(self.values))
            if usage.tokens is not None:
                usage.start()
            if delay.tokens is not None:
                delay.start()
            runs = _EVERY_RUN
        elif runs != _EVERY_RUN:
            # A Content-Usage line (or a Crawl-delay line) ended the run for its own
            # grouping only: it parts from Google's from here on.
            if not runs & _USAGE_RUN:
                usage.part(self.tokens, self.more, len(self.starts))
            if not runs & _DELAY_RUN:
                delay.part(self.tokens, self.more, len(self.starts))
            runs = _EVERY_RUN
        known = _NAME_TOKENS[self.lenient]
        token = known.get(value)
        if token is None:
            token = _name_token(value, self.lenient)
            if len(value) <= _NAME_KEPT and len(token) > 1:
                if len(known) >= _NAMES_KEPT:
                    known.clear()
                known[value] = token
        if token:
            first = self.tokens.setdefault(token, group)
            if first != group:
                named = self.more.setdefault(token, [first])  # type: ignore[list-item]
                if named[-1] != group:
                    named.append(group)
            if usage.tokens is not None:
                usage.name(token)
            if delay.tokens is not None:
                delay.name(token)
        return group, runs

    def other(
        self,
        kind: int,
        number: int,
        line: tuple[str, str, str],
        key_index: int,
        group: int,
        runs: int,
    ) -> int:
        """A line of any key but allow, disallow, user-agent and sitemap (:meth:`read`'s);
        the runs now open. Every kind read is named here; any other key is skipped, never
        read as another."""
        key, value, _ = line
        if kind == _LICENSE:
            # RSL's guide: "global (not tied to any specific user agent)", wherever it
            # stands, as Sitemap is; it ends no run of user-agent lines.
            if value:
                self.licenses[file_text(value)] = None
        elif kind == _CRAWL_DELAY:
            return self.crawl_delay_line(number, value, group, runs)
        elif kind in _USAGE_KINDS:
            return self.usage_line(kind, number, line, key_index, group, runs)
        elif kind < 0:
            self.skip(number, f"unknown key {file_text(key)!r}")
        else:
            self.skip(number, f"key {file_text(key)!r} is read by no rule")
        return runs

    def crawl_delay_line(self, number: int, value: str, group: int, runs: int) -> int:
        """A Crawl-delay line: its group's (a valid one ends the run of user-agent lines
        above it, for its own grouping); before the first group, every crawler's."""
        delay_group = self.delay_grouping.group(group)
        if delay_group >= 0:
            if self.crawl_delay(delay_group, value, number):
                runs &= ~_DELAY_RUN  # a malformed one ends nothing
        elif self.starts:
            # After a blank line ended a record (legacy): no group.
            self.skip(number, "group setting outside any group")
        else:
            # Before the first user-agent line: every crawler is asked to slow down; a
            # group's own delay can only lengthen it (docs/decisions.md).
            self.crawl_delay(FILE_WIDE, value, number)
        return runs

    def usage_line(
        self, kind: int, number: int, line: tuple[str, str, str], key_index: int, group: int,
        runs: int,
    ) -> int:  # fmt: skip
        """A Content-Usage, Content-Signal or AI-training line; the runs now open.

        Content-Usage and the AI-training rules are rules of their group (attach-05 §3,
        draft-canel-robots-ai-control-00): they end a run of user-agent lines for their
        own grouping. Content-Signal is another record (RFC 9309 §2.2.4: it "MUST NOT
        terminate a group"), as Sitemap and Crawl-delay are: it ends nothing. Allow and
        disallow keep Google's grouping, which ignores them all, in every profile: no
        Disallow is lost (docs/behaviour.md). Before the first group: :data:`FILE_WIDE`.
        ``line``: its key and value as written, and its colon (``""``: none)."""
        key, value, colon = line
        if kind != _CONTENT_SIGNAL:
            runs &= ~_USAGE_RUN
            if self.lenient and kind != _CONTENT_USAGE:  # Google reads a disallow / allow
                runs = 0
        usage_group = self.usage_grouping.group(group)
        if usage_group < 0 and self.starts:
            # After a blank line ended a record (legacy): no group.
            self.skip(number, "group setting outside any group")
        elif kind == _CONTENT_SIGNAL:
            # Without a colon (google profile; the grammars require one) a line gives
            # its "no"s only, never a "yes" (docs/deviations.md).
            self.content_signal(usage_group, value, number, not colon,
                                written_line(key, value, colon))  # fmt: skip
        elif kind == _CONTENT_USAGE:
            if value:
                key_name = "Content-Usage" if colon else CONTENT_USAGE_NO_COLON
                self.usage.setdefault(usage_group, []).append(
                    (number, value, key_name, written_key(key, colon))
                )
        elif value:
            self.ai_training_rule(kind, number, line, key_index, (group, usage_group))
        return runs

    def ai_training_rule(
        self,
        kind: int,
        number: int,
        line: tuple[str, str, str],
        key_index: int,
        groups: tuple[int, int],
    ) -> None:
        """draft-canel-robots-ai-control-00: a train-ai path rule of the usage group;
        Google reads any key starting with "disallow" / "allow" as that rule (kept in
        Google's group as well). ``groups``: Google's and the usage group."""
        key, value, colon = line
        group, usage_group = groups
        if kind == _DISALLOW_AI or colon:
            name = DISALLOW_AI_TRAINING if kind == _DISALLOW_AI else ALLOW_AI_TRAINING
            self.usage.setdefault(usage_group, []).append(
                (number, value, name, written_key(key, colon))
            )
        else:
            self.skip(number, "no colon: no train-ai 'yes' from it")
        if self.lenient and group >= 0:
            self.values.append(value)
            self.rule_keys.append(key_index)
            self.codes.append(number if kind == _ALLOW_AI else -number)

    def skip(self, number: int, why: str) -> None:
        """SPEC §7: what was skipped is visible at DEBUG level."""
        self.skipped += 1
        if self.skipped <= 20 and logger.isEnabledFor(logging.DEBUG):
            logger.debug("robots.txt line %d skipped: %s", number, why)

    def crawl_delay(self, group: int, value: str, number: int) -> bool:
        """A group's delay (several: the largest, the most polite); ``False`` when the
        value is not a number of seconds (the line is skipped)."""
        try:
            delay = float(value)
        except ValueError:
            delay = math.nan
        if not math.isfinite(delay) or delay < 0:
            self.skip(number, f"crawl-delay is not a number of seconds: {file_text(value)!r}")
            return False
        self.delays[group] = max(self.delays.get(group, delay), delay)
        return True

    def content_signal(
        self, group: int, value: str, number: int, noes_only: bool, written: str
    ) -> None:
        """A Content-Signal line's items, kept with its number and the line as written
        (``written``), if any is read."""
        own: dict[str, bool] = {}
        for item in add_content_signal(own, value, noes_only):
            why = "only its 'no's are read without a colon" if noes_only else "not understood"
            self.skip(number, f"content-signal item {file_text(item)!r}: {why}")
        if own:
            self.signals.setdefault(group, []).append((number, own, written))

    def tables(self) -> ParsedTables:
        """The tables as ``RobotsTxt`` holds them."""
        tokens = self.tokens
        for token, named in self.more.items():
            tokens[token] = tuple(named)
        spellings = self.spellings
        values: Iterable[str] = self.values
        if len(self.starts) > 1:
            # Equal values as one string: a file of several groups often repeats its rules
            # in each crawler's group (two of five rules of the corpus are such repeats,
            # 2.7 KiB of a file's 8.3 KiB of values; a file of one group almost never). Their
            # hashes, made here, serve the matchers' tables too.
            firsts: dict[str, str] = {}
            values = map(firsts.setdefault, self.values, self.values)
        return ParsedTables(
            tuple(values),
            # The spellings as interned strings, shared by every file that uses them.
            tuple(map(intern, spellings)),
            bytes(self.rule_keys) if len(spellings) <= 0x100 else array("I", self.rule_keys),
            self.codes,
            self.starts,
            tokens,
            self.delays or None,
            {g: tuple(lines) for g, lines in self.signals.items()} if self.signals else None,
            {g: tuple(lines) for g, lines in self.usage.items()} if self.usage else None,
            # Most files: the groupings never part, and no table of their own is kept.
            self.usage_grouping.packed(),
            self.delay_grouping.packed(),
        )


class _Grouping:
    """A grouping that refines Google's: the same groups until a line of its own ends a
    run of user-agent lines for it alone, then a table of its own from that line on."""

    __slots__ = ("count", "current", "tokens")

    def __init__(self) -> None:
        #: Each product token's groups, once it parted from Google's; ``None`` before.
        self.tokens: dict[str, list[int]] | None = None
        self.current = -1  # its current group, once parted
        self.count = 0  # its groups so far, once parted

    def group(self, google: int) -> int:
        """Its current group, when Google's is ``google``."""
        return google if self.tokens is None else self.current

    def part(
        self, tokens: dict[str, int | tuple[int, ...]], more: dict[str, list[int]], groups: int
    ) -> None:
        """A user-agent line starts a group of its own, not Google's (which has
        ``groups`` so far): its table begins as Google's up to here."""
        if self.tokens is None:
            self.tokens = _groups_so_far(tokens, more)
            self.count = groups
        self.start()

    def start(self) -> None:
        """A new group of its own (once parted)."""
        self.current = self.count
        self.count += 1

    def name(self, token: str) -> None:
        """``token`` names its current group (once parted)."""
        groups = self.tokens.setdefault(token, [self.current])  # type: ignore[union-attr]
        if groups[-1] != self.current:
            groups.append(self.current)

    def packed(self) -> dict[str, int | tuple[int, ...]] | None:
        """Its table as ``RobotsTxt`` keeps it; ``None`` if it never parted."""
        return None if self.tokens is None else _packed(self.tokens)


def _groups_so_far(
    tokens: dict[str, int | tuple[int, ...]], more: dict[str, list[int]]
) -> dict[str, list[int]]:
    """Each token's groups so far, as a grouping that parts from Google's here starts
    its own table (its group numbers are Google's up to this line)."""
    return {token: list(more.get(token, (group,))) for token, group in tokens.items()}  # type: ignore[arg-type]


def _packed(groups: dict[str, list[int]]) -> dict[str, int | tuple[int, ...]]:
    """A grouping's table as ``RobotsTxt`` keeps it (one group: its number)."""
    return {token: named[0] if len(named) == 1 else tuple(named) for token, named in groups.items()}
