"""W3C TDM Reservation Protocol (TDMRep): tdmrep.json, headers, HTML meta (pure).

Follows the Final Community Group Report (``w3c/tdm-reservation-protocol``,
``spec/index.html``, 2024). See ``docs/purpose-notes.md`` for the grammar and every
choice made where the report is silent.

- ``/.well-known/tdmrep.json``: a JSON array of ``{"location", "tdm-reservation",
  "tdm-policy"}`` rules; locations are robots.txt-style patterns, matched
  case-sensitively; "The most specific match is the first in sequence"
  (:func:`parse_tdmrep`, :meth:`TdmRepFile.lookup`).
- ``tdm-reservation`` / ``tdm-policy`` response headers (:func:`header_values`) and
  ``<meta name="tdm-reservation">`` / ``<meta name="tdm-policy">`` (:func:`meta_values`).
- Processing priority: the file, then the header, then the HTML meta, each superseding
  the one before; "the absence of tdm-reservation and tdm-policy MUST not reset current
  values" (:func:`resolve`).

Nothing here raises on content: what cannot be read is unset, skipped, and logged at
DEBUG. Only a wrong argument type raises.

The file is read element by element of its JSON array, so that a body cut at 500 KiB
keeps the elements wholly inside the cut (docs/purpose-notes.md, choice 8). The header
and meta values and the processing priority of the three techniques follow the report's
§2, §3.2, §3.3 and §4.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol

from rep_engine.robotstxt.profiles import MAX_BODY_BYTES, body_bytes
from rep_engine.urls.encoding import (
    dangling_variants,
    normalise_pattern,
    normalise_url_path,
    path_of,
)
from rep_engine.urls.matching import FirstMatcher

logger = logging.getLogger(__name__)

#: A ``tdm-policy`` longer than this is ignored (it is only reported, never fetched here).
MAX_POLICY_CHARS: Final = 2048
_QUOTE_CHARS: Final = 80


def quote(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS] + "…")


# --------------------------------------------------------------------------- values


def _reservation_from_text(value: str) -> bool | None:
    """report §2.1: ``1`` reserved, ``0`` not reserved; "Other values are considered
    protocol errors. In such a case the TDM Agents MUST consider that tdm-reservation
    is unset." Surrounding whitespace is ignored."""
    return _TEXT_VALUES.get(value.strip())


_TEXT_VALUES: Final = {"1": True, "0": False}


def reservation_from_json(value: object) -> bool | None:
    """The JSON number ``1`` or ``0`` (report §3.1 examples); any other value is unset.
    Deliberate leniency toward restriction (docs/purpose-notes.md): the string ``"1"``
    and ``true`` also reserve; ``"0"`` and ``false`` do not un-reserve (they are unset),
    so a malformed value is never read as a permission."""
    if value is True or (isinstance(value, str) and value.strip() == "1"):
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {1.0: True, 0.0: False}.get(value)
    return None


def policy_of(value: object) -> str | None:
    """``tdm-policy``: a URL (report §2.2); empty, non-text or overlong values are unset."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value if value and len(value) <= MAX_POLICY_CHARS else None


@dataclass(frozen=True, slots=True)
class TdmValues:
    """What one technique (the file's entry, the header, the HTML meta) says, or the
    TDMRep answer for one resource after the processing priority (report §4,
    :func:`resolve`: its policy kept only when reserved, "TDM Agents SHOULD NOT process
    tdm-policy" when the reservation is 0, report §2.2)."""

    #: ``True`` reserved (1), ``False`` not reserved (0), ``None`` unset.
    reservation: bool | None = None
    #: The ``tdm-policy`` URL, ``None`` when unset.
    policy: str | None = None
    #: Where the values come from (``header tdm-reservation: 1``), for the audit trail
    #: (``""``: unset).
    source: str = ""


NO_VALUES: Final = TdmValues()


def _text(value: bytes | bytearray | memoryview | str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    raise TypeError(f"value must be bytes or str, not {type(value).__name__}")


#: A technique's values as the caller has them: all of them, one, or none.
Values = Iterable[bytes | str] | bytes | str | None


def _as_list(values: Values) -> list[str]:
    if values is None:
        return []
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        return [_text(values)]
    return [_text(value) for value in values]


def _read(reservations: Values, policies: Values, where: str) -> TdmValues:
    """Several values (repeated headers, comma-joined lines, several meta elements):
    any ``1`` wins, then any ``0`` (the report is silent; the more restrictive reading).
    The first usable policy is kept."""
    reservation: bool | None = None
    shown = ""
    for raw in _as_list(reservations):
        for piece in raw.split(","):
            answer = _reservation_from_text(piece)
            if answer is None:
                if piece.strip() and logger.isEnabledFor(logging.DEBUG):
                    logger.debug("%s tdm-reservation %s ignored: not 1 or 0", where, quote(piece))
                continue
            if reservation is None or answer:
                reservation, shown = answer, piece.strip()
    policy = None
    for raw in _as_list(policies):
        policy = policy_of(raw)
        if policy is not None:
            break
        if raw.strip() and logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s tdm-policy %s ignored", where, quote(raw))
    if reservation is None and policy is None:
        return NO_VALUES
    source = "" if reservation is None else _SOURCES[where].format(shown)
    return TdmValues(reservation, policy, source)


#: How the audit trail quotes a reservation, by where it was read.
_SOURCES: Final = {
    "header": "header tdm-reservation: {}",
    "meta": '<meta name="tdm-reservation" content="{}">',
}


def header_values(reservation: Values, policy: Values = None) -> TdmValues:
    """The ``tdm-reservation`` and ``tdm-policy`` response headers (report §3.2), each
    given as all of its values (``response.headers.getlist(...)``) or one value."""
    return _read(reservation, policy, "header")


def meta_values(reservation: Values, policy: Values = None) -> TdmValues:
    """The ``content`` of ``<meta name="tdm-reservation">`` and ``<meta name="tdm-policy">``
    elements of an HTML page (report §3.3), as found by the caller."""
    return _read(reservation, policy, "meta")


# --------------------------------------------------------------------------- priority


class _Layer(Protocol):
    @property
    def reservation(self) -> bool | None: ...
    @property
    def policy(self) -> str | None: ...
    @property
    def source(self) -> str: ...


def resolve(*layers: _Layer | None) -> TdmValues:
    """report §4 "Processing priority": pass the file's entry (or its values), then the
    header values, then the HTML meta values; each later value supersedes the earlier
    one, and "the absence of tdm-reservation and tdm-policy MUST not reset current
    values". ``None`` layers are skipped."""
    reservation: bool | None = None
    policy: str | None = None
    source = ""
    for layer in layers:
        if layer is None:
            continue
        if layer.reservation is not None:
            reservation, source = layer.reservation, layer.source
        if layer.policy is not None:
            policy = layer.policy
    if reservation is None:
        return NO_VALUES
    return TdmValues(reservation, policy if reservation else None, source)


#: Where the file lives (report §3.1: "MUST be hosted in the /.well-known repository").
WELL_KNOWN_PATH: Final = "/.well-known/tdmrep.json"
#: At most this many skipped entries are logged one by one (then only a count).
_LOG_LIMIT: Final = 20


_JSON_WHITESPACE: Final = " \t\n\r"


def array_items(text: str, truncated: bool) -> tuple[list[object] | None, str]:
    """The elements of a top-level JSON array, decoded one at a time, and the problem met
    (``None`` elements: the file says nothing). When the body was cut at 500 KiB, the
    elements before the first one that does not decode are kept."""
    decoder = json.JSONDecoder()
    position = _skip(text, 0)
    if not text.startswith("[", position):
        if truncated:
            return None, "cut at 500 KiB before any entry"
        try:
            json.loads(text)
        except (ValueError, RecursionError) as error:
            return None, f"not JSON ({error})"
        return None, "not a JSON array"
    items: list[object] = []
    position = _skip(text, position + 1)
    if text.startswith("]", position):
        return _end(items, text, position + 1)
    while True:
        try:
            item, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError) as error:
            if truncated:
                return items, f"cut at 500 KiB: {len(items)} entries kept"
            return None, f"not JSON ({error})"
        items.append(item)
        position = _skip(text, position)
        if text.startswith("]", position):
            return _end(items, text, position + 1)
        if not text.startswith(",", position):
            if truncated and position >= len(text):
                return items, f"cut at 500 KiB: {len(items)} entries kept"
            return None, f"not JSON (expected ',' or ']' at {position})"
        position = _skip(text, position + 1)


def _end(items: list[object], text: str, position: int) -> tuple[list[object] | None, str]:
    if _skip(text, position) != len(text):
        return None, f"not JSON (extra data after the array at {position})"
    return items, ""


def _skip(text: str, position: int) -> int:
    length = len(text)
    while position < length and text[position] in _JSON_WHITESPACE:
        position += 1
    return position


@dataclass(frozen=True, slots=True)
class TdmEntry:
    """One rule of tdmrep.json."""

    #: 1-based position in the array (counting skipped entries too).
    index: int
    #: The ``location`` as written.
    location: str
    reservation: bool | None
    policy: str | None

    @property
    def source(self) -> str:
        """``tdmrep.json entry 2 (location "/books/*")``, for the audit trail."""
        return f"tdmrep.json entry {self.index} (location {json.dumps(self.location)})"

    def values(self) -> TdmValues:
        """The entry as one technique's values (for :func:`resolve`)."""
        return TdmValues(self.reservation, self.policy, self.source)


def _pattern(location: str) -> str:
    """A location as matched: robots.txt-style (an absolute URL: its path);
    percent-encoding as RFC 9309 §2.2.2 (report §3.1: escapes of unreserved characters
    are decoded on both sides); a ``$`` before the end is a literal character, encoded
    ``%24`` like a URL's."""
    if location.startswith(("http://", "https://")):
        # Silent in the report; an absolute URL is read as its path (the more
        # restrictive reading: its reservation is not lost).
        location = path_of(location)
    latin1 = location.encode("utf-8", "surrogatepass").decode("latin-1")
    return normalise_pattern(latin1, "rfc9309")


class TdmRepFile:
    """A parsed ``/.well-known/tdmrep.json``. Immutable; safe to share between requests."""

    __slots__ = ("_matcher", "entries", "rules", "skipped")

    def __init__(self, entries: Iterable[TdmEntry] = (), skipped: int = 0) -> None:
        #: The usable entries in array order.
        self.entries = tuple(entries)
        #: How many array elements were invalid and skipped (counted in the crawl stats).
        self.skipped = skipped
        # Rule codes are the entries' positions + 1 (non-zero, as the matcher needs).
        # A pattern's dangling-escape variants (SPEC §1) share its code.
        variants = [dangling_variants(_pattern(entry.location)) for entry in self.entries]
        #: How many patterns the matcher holds (an entry's variants each count).
        self.rules = sum(len(own) for own in variants)
        self._matcher = FirstMatcher(
            [variant for own in variants for variant in own],
            [code for code, own in enumerate(variants, 1) for _ in own],
        )

    def __repr__(self) -> str:
        return f"<TdmRepFile entries={len(self.entries)} skipped={self.skipped}>"

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, url: str) -> TdmEntry | None:
        """The entry that applies to ``url`` (an absolute URL or a path): the first one
        in array order whose location matches; ``None`` (unset) when none does."""
        if not self.entries:
            return None
        # report §3.1 (and RFC 9309 §2.2.3): the URL's "$" and "*" are matched as %24 and
        # %2A, so the pattern "/path/foo-%24" matches the URL "/path/foo-$".
        code = self._matcher.match(normalise_url_path(path_of(url), "rfc9309"))
        return self.entries[code - 1] if code else None

    def values(self, url: str) -> TdmValues:
        """What the file says about ``url`` (:data:`NO_VALUES` when nothing)."""
        entry = self.lookup(url)
        return NO_VALUES if entry is None else entry.values()


#: No file (404, any failure, or a file that says nothing): nothing is reserved by it.
NO_FILE: Final = TdmRepFile()
#: Everything reserved: what an origin whose tdmrep.json stayed unreachable is taken to
#: say until it is back (the reading that loses no "no").
RESERVED_ALL: Final = TdmRepFile([TdmEntry(0, "/", True, None)])


def _entry(index: int, item: object) -> TdmEntry | str:
    """One array element -> an entry, or why it is skipped."""
    if not isinstance(item, dict):
        return f"not an object ({type(item).__name__})"
    location = item.get("location")
    if not isinstance(location, str):
        return "no text location" if location is None else "location is not text"
    location = location.strip()
    if not location:
        return "empty location"
    reservation = reservation_from_json(item.get("tdm-reservation"))
    if reservation is None:
        # report §2.1 makes such a value "unset"; an unset entry that still matched
        # first would hide every later entry, reservations included: the entry is invalid
        # and skipped, and matching goes on (docs/decisions.md, 'An invalid tdmrep.json entry
        # is skipped'; docs/purpose-notes.md).
        if "tdm-reservation" not in item:
            return "no tdm-reservation"
        return f"tdm-reservation {quote(item.get('tdm-reservation'))} is not 1 or 0"
    return TdmEntry(index, location, reservation, policy_of(item.get("tdm-policy")))


def parse_tdmrep(body: bytes | str, truncated: bool = False) -> TdmRepFile:
    """A tdmrep.json body -> :class:`TdmRepFile`. Never raises on content. Only the first
    500 KiB count (like robots.txt, SPEC §1): the entries wholly inside them are kept, and
    so are those of a body the download cut short (``truncated``: the fetch says so,
    whatever the body's length; SPEC §4). Invalid JSON or a value that is not an array
    says nothing (:data:`NO_FILE`); an invalid element (not an object, no text
    ``location``, a ``tdm-reservation`` other than 1 or 0: report §2.1) is skipped
    (:func:`_entry`), counted in :attr:`TdmRepFile.skipped` and logged."""
    data = body_bytes(body)
    # A body of exactly 500 KiB may be one cut there (the download stops at that many
    # bytes and hands over the first 500 KiB): read it as cut, so the entries before
    # the cut are kept. A complete array of that length parses the same either way.
    truncated = truncated or len(data) >= MAX_BODY_BYTES
    text = data[:MAX_BODY_BYTES].decode("utf-8", "replace").lstrip("\ufeff")
    items, problem = array_items(text, truncated)
    if problem and logger.isEnabledFor(logging.DEBUG):
        logger.debug("tdmrep.json: %s", problem)
    if items is None:
        return NO_FILE
    entries: list[TdmEntry] = []
    skipped = 0
    for index, item in enumerate(items, 1):
        entry = _entry(index, item)
        if isinstance(entry, str):
            skipped += 1
            if skipped <= _LOG_LIMIT and logger.isEnabledFor(logging.DEBUG):
                logger.debug("tdmrep.json entry %d skipped: %s", index, entry)
            continue
        entries.append(entry)
    if skipped:
        logger.info(
            "tdmrep.json: skipped %d invalid entr%s", skipped, "y" if skipped == 1 else "ies"
        )
    return TdmRepFile(entries, skipped) if entries or skipped else NO_FILE
