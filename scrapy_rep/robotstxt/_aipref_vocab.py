"""IETF AI Preferences vocabulary: one statement of preference -> :class:`UsagePrefs`
(draft-ietf-aipref-vocab-07, "vocab", and the ``ai-use`` category of -08; pure).

A statement is an RFC 9651 Structured Fields Dictionary whose keys are the category
labels ``train-ai`` and ``search`` (and ``ai-use``, added by vocab-08: see
docs/purpose-notes.md, read from summaries) and whose values are the Tokens ``y`` or
``n`` (vocab §6.1, §6.2): :func:`parse_prefs`, :func:`parse_prefs_header`; several statements
combine per category (vocab §5.1, :func:`combine`). Re-exported by
:mod:`scrapy_rep.robotstxt.aipref`, the public import path; logs on its logger.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from http_sfv.dictionary import Dictionary
from http_sfv.item import Item
from http_sfv.types import Token

logger = logging.getLogger("scrapy_rep.robotstxt.aipref")

#: vocab §6.1 Table 1: the category labels of -07, and ``ai-use`` of -08.
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

    #: ``train-ai``: "Using an asset to modify the learned parameters of an AI model
    #: that is used to generate synthetic content" (vocab §4.1).
    train_ai: bool | None = None
    #: ``search``: use in an application whose primary purpose is to select assets and
    #: direct users to their location (vocab §4.2).
    search: bool | None = None
    #: Why the statement was not understood ("" when it parsed); for messages only.
    error: str = ""
    #: ``ai-use`` (vocab-08, as summarised): use of an asset as input to a generative
    #: AI model where the user did not supply the asset.
    ai_use: bool | None = None

    def get(self, label: str) -> bool | None:
        """The preference for a category label (``"train-ai"``, ``"search"``, ``"ai-use"``)."""
        if label == "train-ai":
            return self.train_ai
        if label == "search":
            return self.search
        if label == "ai-use":
            return self.ai_use
        return None

    def __bool__(self) -> bool:
        """True when the statement states at least one preference."""
        return self.train_ai is not None or self.search is not None or self.ai_use is not None

    def __str__(self) -> str:
        """The known preferences in the exemplary format (``train-ai=n, search=y``)."""
        parts = [
            f"{label}={'y' if value else 'n'}"
            for label, value in (
                ("train-ai", self.train_ai),
                ("search", self.search),
                ("ai-use", self.ai_use),
            )
            if value is not None
        ]
        return ", ".join(parts)


#: No statement, or one that said nothing we understand (vocab §3: all unknown).
UNKNOWN: Final = UsagePrefs()


def _unknown(why: str, value: str | bytes) -> UsagePrefs:
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("Content-Usage statement %s ignored: %s", _quote(value), why)
    return UsagePrefs(error=why)


def _token_answer(member: object) -> bool | None:
    """vocab §6.5: the Token ``y`` allows, the Token ``n`` disallows; anything else
    (an inner list, a string, a boolean, another token) is unknown. Parameters are
    disregarded."""
    if isinstance(member, Item):
        value = member.value
        if isinstance(value, Token):
            if value == "y":
                return True
            if value == "n":
                return False
    return None


def parse_prefs(value: bytes | str) -> UsagePrefs:
    """One statement (a header value or the prefs of a robots.txt rule) (vocab §6.5).

    ``value`` is bytes, or text that is encoded as UTF-8 first (vocab §6.3). The bytes
    are parsed as an RFC 9651 Dictionary; a repeated key keeps its last value (RFC 9651
    §4.2.2); unknown keys and all parameters are ignored (vocab §6.4); keys are
    case-sensitive, so ``Train-AI=n`` fails the whole parse (vocab §6.5.1). A value
    that fails to parse, or is longer than :data:`MAX_PREFS_BYTES`, leaves every
    category unknown.
    """
    data = as_bytes(value)
    if not data.strip(b" \t"):
        return UNKNOWN
    if len(data) > MAX_PREFS_BYTES:
        return _unknown(f"longer than {MAX_PREFS_BYTES} bytes", data)
    dictionary = Dictionary()
    try:
        dictionary.parse(data)
    except Exception as error:  # http-sfv raises ValueError, IndexError, …: none may escape
        cause = error.__cause__ or error
        return _unknown(f"not a Structured Fields Dictionary ({cause})", data)
    train_ai = _token_answer(dictionary.get("train-ai"))
    search = _token_answer(dictionary.get("search"))
    ai_use = _token_answer(dictionary.get("ai-use"))
    if train_ai is None and search is None and ai_use is None:
        return UNKNOWN
    return UsagePrefs(train_ai, search, ai_use=ai_use)


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
    if train_ai is None and search is None and ai_use is None:
        return UNKNOWN
    return UsagePrefs(train_ai, search, ai_use=ai_use)


def as_bytes(value: bytes | str) -> bytes:
    """The bytes of a value: text is encoded as UTF-8 (vocab §6.3)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"value must be bytes or str, not {type(value).__name__}")
