"""IETF AI Preferences vocabulary: one statement of preference -> :class:`UsagePrefs`
(draft-ietf-aipref-vocab-08, "vocab", 13 Sep 2026; pure).

A statement is an RFC 9651 Structured Fields Dictionary whose keys are the category
labels ``train-ai``, ``ai-use`` and ``search`` (vocab-08 §6.1 Table 1: three categories,
no hierarchy; -07 had the first and the last) and whose values are the Tokens ``y`` or
``n`` (§6.2): :func:`parse_prefs`, :func:`parse_prefs_header`; several statements
combine per category (§5.1, :func:`combine`). Deliberate deviations keep a site's "no"
where §6.5 and §6.5.1 make it unknown (:func:`_token_answer`, :func:`_kept_noes`).
Re-exported by :mod:`rep_engine.robotstxt.aipref`, the public import path; logs on its
logger.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from http_sfv.dictionary import Dictionary
from http_sfv.item import Item
from http_sfv.types import Token

from rep_engine.robotstxt.profiles import body_bytes

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
