"""A robots.txt body as lines, and each line's key (SPEC §1). Pure.

The first half of parsing (:mod:`rep_engine.robotstxt._parser` does the rest): the first 500 KiB,
decoded byte for byte, cut into lines at LF, CR or CRLF; the keys of RFC 9309 and the
extensions, with Google's misspellings and prefixes; a group name's product token.
"""

from __future__ import annotations

import re
from sys import intern
from typing import Final

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES
from rep_engine.robotstxt.useragent import is_global_agent, product_token


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


def _lines(body: bytes, limit: int | None, nul_ends: bool = False) -> list[str]:
    """The lines of ``body`` (SPEC §1: its first 500 KiB; LF, CR or CRLF; cut at ``limit``).

    ``nul_ends`` (google profile): a line ends at its first NUL byte, as in Google's
    parser, which reads each line as a C string (robots.cc ``GetKeyAndValueFrom``).
    """
    # Latin-1 maps each byte to one character: nothing can fail to decode, and the
    # original bytes come back unchanged (SPEC §1: invalid UTF-8 must not lose the file).
    text = _skip_bom(body[:MAX_BODY_BYTES]).decode("latin-1")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if limit is not None and len(text) > limit and max(map(len, lines)) > limit:
        lines = [line[:limit] for line in lines]
    if nul_ends and "\x00" in text:
        lines = [line.partition("\x00")[0] for line in lines]
    return lines


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
