"""Percent-encoding normalisation and the path of a URL (SPEC §1 "Rule matching", §2).

Pure: no Scrapy imports. Strings here are "byte strings in disguise": the parser decodes
robots.txt as Latin-1, so one character is one byte of the file and a non-ASCII byte is
a character from U+0080 to U+00FF. URLs are ordinary text; their non-ASCII characters are
percent-encoded as UTF-8 before matching. Patterns and URL paths are normalised the same
way, so that the matchers of :mod:`rep_engine.urls.matching` compare like with like.
"""

from __future__ import annotations

import re
from typing import Final

#: RFC 3986 §2.3 unreserved characters: their ``%xx`` escapes are decoded in "rfc9309" mode.
_UNRESERVED_ESCAPE = re.compile(r"%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])")
#: 1996 draft §3.2.2: "If a %xx encoded octet is encountered it is unencoded prior to
#: comparison, unless it is the "/" character": the escapes decoded in "legacy" mode, of
#: every printable ASCII character but ``/``, and but ``%``, ``*`` and ``$`` (kept as
#: escapes so that decoding makes no new escape, and matched as a URL's ``*`` and ``$``
#: are, see :data:`ESCAPES_SPECIALS`).
_ASCII_ESCAPE = re.compile(r"%(?:2[0-36-9B-Eb-e]|[3-6][0-9A-Fa-f]|7[0-9A-Ea-e])")
#: The modes that match ``*`` and ``$`` of a URL (and those a pattern holds as plain
#: characters) as ``%2A`` and ``%24``: RFC 9309 §2.2.3 ("If crawlers match special
#: characters verbatim in the URI, crawlers SHOULD use "%" encoding"), and the 1996
#: draft, whose octets are compared decoded (there, both forms are one octet).
ESCAPES_SPECIALS: Final = frozenset({"rfc9309", "legacy"})
_LOWER_ESCAPE = re.compile(r"%(?:[a-f][0-9A-Fa-f]|[0-9A-F][a-f])")
#: google/robotstxt GetPathParamsQuery: the path starts at the first of these.
_PATH_START = re.compile(r"[/?;]")
#: An http(s) URL with a path: group 1 is what :func:`path_of` returns for it.
HTTP_PATH: Final = re.compile(r"https?://[^/?;#]*(/[^#]*)")


#: A run of non-ASCII characters.
_NON_ASCII_RUN: Final = re.compile(r"[^\x00-\x7f]+")


def _encode_non_ascii(text: str, *, latin1: bool) -> str:
    """Percent-encode every non-ASCII character (as UTF-8, or as its Latin-1 byte): each
    run of them at once, in C (``bytes.hex``)."""
    return _NON_ASCII_RUN.sub(_latin1_escapes if latin1 else _utf8_escapes, text)


def _latin1_escapes(found: re.Match[str]) -> str:
    """The run's ``%XX`` escapes: each character's Latin-1 byte, UTF-8 above U+00FF."""
    run = found.group()
    try:
        data = run.encode("latin-1")
    except UnicodeEncodeError:
        data = b"".join(
            char.encode("latin-1" if char < "\u0100" else "utf-8", "surrogatepass") for char in run
        )
    return "%" + data.hex("%").upper()


def _utf8_escapes(found: re.Match[str]) -> str:
    """The run's ``%XX`` escapes, of its UTF-8 bytes (a lone surrogate's too)."""
    return "%" + found.group().encode("utf-8", "surrogatepass").hex("%").upper()


def has_lower_escape(text: str) -> bool:
    """Does ``text`` hold a ``%xx`` escape with a lowercase hex digit?"""
    if len(text) > 64 and not any(letter in text for letter in "abcdef"):
        return False  # six scans in C: quicker than the regex on long, escape-heavy text
    return _LOWER_ESCAPE.search(text) is not None


def upper_escapes(text: str) -> str:
    """RFC 3986 §2.1: ``%xx`` escapes with uppercase hex (``%c3`` and ``%C3`` are one octet)."""
    if not has_lower_escape(text):
        return text
    return _LOWER_ESCAPE.sub(lambda m: m.group(0).upper(), text)


def _decode(text: str, escapes: re.Pattern[str]) -> str:
    """Decode the ``escapes``; uppercase the hex of the others."""
    if escapes.search(text) is not None:
        text = escapes.sub(lambda m: chr(int(m.group(0)[1:], 16)), text)
    return upper_escapes(text)


#: The escapes each mode decodes (see :func:`normalise_pattern`); the others only get
#: uppercase hex.
_DECODED: Final = {"rfc9309": _UNRESERVED_ESCAPE, "legacy": _ASCII_ESCAPE}


def normalise_pattern(value: str, encoding: str, wildcards: bool = True) -> str:
    """A rule value as it is matched (SPEC §1 "Percent-encoding"; §2 for the modes).

    ``value`` is Latin-1-decoded file content. A value that does not start with ``/`` or
    ``*`` gets a leading ``/`` (SPEC §1: ``Disallow: fish/`` = ``Disallow: /fish/``).

    - ``google``: non-ASCII bytes become ``%XX``; existing escapes get uppercase hex.
    - ``rfc9309``: as ``google``, and escapes of unreserved characters are decoded
      (RFC 9309 §2.2.2); a ``*`` or ``$`` that is no wildcard (``$`` before the end, or
      either without ``wildcards``) is a plain character, matched as ``%2A`` / ``%24``
      like a URL's (RFC 9309 §2.2.3).
    - ``legacy``: as ``rfc9309``, but the escapes of every printable ASCII character
      except ``/`` are decoded (1996 draft §3.2.2).
    - ``none``: as written, but escapes get uppercase hex (the URL's escapes are
      uppercased too, so both sides stay comparable).
    """
    if value[:1] not in ("/", "*"):
        value = "/" + value
    if encoding != "none" and not value.isascii():
        value = _encode_non_ascii(value, latin1=True)
    if "%" in value:
        decoded = None if encoding == "google" else _DECODED.get(encoding)
        value = upper_escapes(value) if decoded is None else _decode(value, decoded)
    if encoding in ESCAPES_SPECIALS and ("*" in value or "$" in value):
        if not wildcards:
            value = value.replace("*", "%2A").replace("$", "%24")
        elif "$" in value[:-1]:
            value = value[:-1].replace("$", "%24") + value[-1]
    return value


def matched_as_given(path: str, encodes_specials: bool) -> bool:
    """Whether the URL path ``path`` is matched as it is, :func:`normalise_url_path` left
    out: it holds no escape, no non-ASCII character, and (``encodes_specials``: the
    encoding is one of :data:`ESCAPES_SPECIALS`) no ``*`` or ``$``; then normalising would
    change nothing (a path this says no to may still come out the same: ``%7E``).

    The one statement of that test: ``RobotsTxt._path`` calls it; the hot paths write it
    inline, where a call would cost each decision one call more: ``RobotsTxt.decide``
    and ``RobotsTxt.first_disallowed_path`` (the crawl's and the recheck's), and
    ``Rechecker.decide``'s inline match, its first two tests only, made by the regular
    expression that finds the path (it matches so only where the profile encodes no
    ``*`` or ``$``). Tests hold the four to this one's answer
    (``tests/robotstxt/test_robotstxt_many_names.py``, the recheck's in
    ``tests/recheck/test_rechecker_encoded_paths.py``)."""
    return (
        "%" not in path
        and path.isascii()
        and not (encodes_specials and ("*" in path or "$" in path))
    )


def normalise_url_path(path: str, encoding: str) -> str:
    """A URL path+query as matched (SPEC §1 "Percent-encoding", §2): its escapes as
    :func:`normalise_pattern` reads a rule's in ``encoding``, non-ASCII characters
    encoded as UTF-8 ``%XX`` in every mode, and with ``rfc9309`` and ``legacy`` its ``*``
    and ``$`` as ``%2A`` and ``%24``, the form a rule writes them in when they are not
    wildcards."""
    if not path.isascii():
        path = _encode_non_ascii(path, latin1=False)
    if "%" in path:
        # The google profile's usual case first: one call, as before the other modes.
        decoded = None if encoding == "google" else _DECODED.get(encoding)
        path = upper_escapes(path) if decoded is None else _decode(path, decoded)
    if encoding in ESCAPES_SPECIALS and ("*" in path or "$" in path):
        path = path.replace("*", "%2A").replace("$", "%24")
    return path


#: ``%`` and one lowercase hex digit where a URL's escape may continue it: at the end of
#: a pattern, or before ``*`` (with wildcards).
_DANGLING_WILD = re.compile(r"%[a-f](?=\*|$)")
_DANGLING_END = re.compile(r"%[a-f]$")
#: At most this many dangling escapes of one pattern get variants (2**n of them): more is
#: hostile (``/%a*%a*…`` would make millions), and the rest are matched as written.
MAX_DANGLING = 2


def dangling_variants(pattern: str, wildcards: bool = True) -> list[str]:
    """``pattern`` (normalised), and as it also matches a URL when it holds a dangling
    escape (``Disallow: /%a``): the URL's ``%ab`` is matched as ``%AB`` (SPEC §1
    "Percent-encoding"), which ``/%a`` would no longer prefix, so each variant with such
    a digit uppercased (``/%A``) is added. A "no" stated that way is kept for the URL as
    written. Only the first :data:`MAX_DANGLING` get variants. Escapes of unreserved
    characters that a ``%2``-``%7`` would start are not covered (``rfc9309`` decodes
    them)."""
    if "%" not in pattern:
        return [pattern]
    variants = [pattern]
    dangling = _DANGLING_WILD if wildcards else _DANGLING_END
    for found in reversed(list(dangling.finditer(pattern))[:MAX_DANGLING]):
        at = found.start() + 1
        variants += [v[:at] + v[at].upper() + v[at + 1 :] for v in variants]
    return variants


def path_of(url: str) -> str:
    """The path, parameters and query of ``url``, without the fragment; ``/`` when empty.

    SPEC §1 "Rule matching": read as google/robotstxt's ``GetPathParamsQuery`` reads it.
    ``https://h/p;x?q#f`` gives ``/p;x?q``; a URL without a scheme loses its first part
    as the host (``example.com/a?b`` gives ``/a?b``, ``a/b`` gives ``/b``, ``a`` gives
    ``/``, ``//host/p`` gives ``/p``); a URL starting with a single ``/`` is a path.
    """
    found = HTTP_PATH.match(url)
    if found is not None:  # the usual case, answered without the general scan below
        return found.group(1)
    search_start = 2 if url.startswith("//") else 0
    early = _PATH_START.search(url, search_start)
    protocol_end = url.find("://", search_start)
    if protocol_end < 0 or (early is not None and early.start() < protocol_end):
        protocol_end = search_start  # "://" after a path delimiter is not a scheme's
    else:
        protocol_end += 3
    path_start = _PATH_START.search(url, protocol_end)
    if path_start is None:
        return "/"
    start = path_start.start()
    end = url.find("#", search_start)
    if 0 <= end < start:
        return "/"
    path = url[start:end] if end >= 0 else url[start:]
    return path if path[0] == "/" else "/" + path
