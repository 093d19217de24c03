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
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol

from scrapy_rep._matching import FirstMatcher, normalise_pattern, normalise_url_path, path_of
from scrapy_rep.robotstxt import MAX_BODY_BYTES

logger = logging.getLogger(__name__)

#: Where the file lives (report §3.1: "MUST be hosted in the /.well-known repository").
WELL_KNOWN_PATH: Final = "/.well-known/tdmrep.json"
#: A ``tdm-policy`` longer than this is ignored (it is only reported, never fetched here).
MAX_POLICY_CHARS: Final = 2048
#: At most this many skipped entries are logged one by one (then only a count).
_LOG_LIMIT: Final = 20
_JSON_WHITESPACE: Final = " \t\n\r"
_QUOTE_CHARS: Final = 80


def _quote(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS] + "…")


# --------------------------------------------------------------------------- values


def _reservation_from_text(value: str) -> bool | None:
    """report §2.1: ``1`` reserved, ``0`` not reserved; "Other values are considered
    protocol errors. In such a case the TDM Agents MUST consider that tdm-reservation
    is unset." Surrounding whitespace is ignored."""
    value = value.strip()
    if value == "1":
        return True
    if value == "0":
        return False
    return None


def _reservation_from_json(value: object) -> bool | None:
    """The JSON number ``1`` or ``0`` (report §3.1 examples); any other value is unset.

    Deliberate leniency toward restriction (docs/purpose-notes.md): the string ``"1"``
    and ``true`` also reserve; ``"0"`` and ``false`` do not un-reserve (they are unset),
    so a malformed value is never read as a permission.
    """
    if value is True:
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value == 1:
            return True
        if value == 0:
            return False
        return None
    if isinstance(value, str) and value.strip() == "1":
        return True
    return None


def _policy(value: object) -> str | None:
    """``tdm-policy``: a URL (report §2.2); empty, non-text or overlong values are unset."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not value or len(value) > MAX_POLICY_CHARS:
        return None
    return value


@dataclass(frozen=True, slots=True)
class TdmValues:
    """What one technique (the file's entry, the header, the HTML meta) says."""

    #: ``True`` reserved (1), ``False`` not reserved (0), ``None`` unset.
    reservation: bool | None = None
    #: The ``tdm-policy`` URL, ``None`` when unset.
    policy: str | None = None
    #: Where the values come from (``header tdm-reservation: 1``), for the audit trail.
    source: str = ""


NO_VALUES: Final = TdmValues()


def _text(value: bytes | bytearray | memoryview | str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    raise TypeError(f"value must be bytes or str, not {type(value).__name__}")


def _as_list(values: Iterable[bytes | str] | bytes | str | None) -> list[str]:
    if values is None:
        return []
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        return [_text(values)]
    return [_text(value) for value in values]


def _read(
    reservations: Iterable[bytes | str] | bytes | str | None,
    policies: Iterable[bytes | str] | bytes | str | None,
    where: str,
) -> TdmValues:
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
                    logger.debug("%s tdm-reservation %s ignored: not 1 or 0", where, _quote(piece))
                continue
            if reservation is None or answer:
                reservation, shown = answer, piece.strip()
    policy = None
    for raw in _as_list(policies):
        policy = _policy(raw)
        if policy is not None:
            break
        if raw.strip() and logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s tdm-policy %s ignored", where, _quote(raw))
    if reservation is None and policy is None:
        return NO_VALUES
    if where == "header":
        source = f"header tdm-reservation: {shown}" if reservation is not None else ""
    else:
        source = (
            f'<meta name="tdm-reservation" content="{shown}">' if reservation is not None else ""
        )
    return TdmValues(reservation, policy, source)


def header_values(
    reservation: Iterable[bytes | str] | bytes | str | None,
    policy: Iterable[bytes | str] | bytes | str | None = None,
) -> TdmValues:
    """The ``tdm-reservation`` and ``tdm-policy`` response headers (report §3.2), each
    given as all of its values (``response.headers.getlist(...)``) or one value."""
    return _read(reservation, policy, "header")


def meta_values(
    reservation: Iterable[bytes | str] | bytes | str | None,
    policy: Iterable[bytes | str] | bytes | str | None = None,
) -> TdmValues:
    """The ``content`` of ``<meta name="tdm-reservation">`` and ``<meta name="tdm-policy">``
    elements of an HTML page (report §3.3), as found by the caller."""
    return _read(reservation, policy, "meta")


# --------------------------------------------------------------------------- the file


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
    pattern = normalise_pattern(latin1, "rfc9309")
    if "$" in pattern[:-1]:
        pattern = pattern[:-1].replace("$", "%24") + pattern[-1]
    return pattern


def _url_path(url: str) -> str:
    """report §3.1 (and RFC 9309 §2.2.3): special characters matched verbatim are
    %-encoded, so the pattern ``/path/foo-%24`` matches the URL ``/path/foo-$``."""
    path = normalise_url_path(path_of(url), "rfc9309")
    if "$" in path or "*" in path:
        path = path.replace("$", "%24").replace("*", "%2A")
    return path


class TdmRepFile:
    """A parsed ``/.well-known/tdmrep.json``. Immutable; safe to share between requests."""

    __slots__ = ("_matcher", "entries")

    def __init__(self, entries: Iterable[TdmEntry] = ()) -> None:
        #: The usable entries in array order.
        self.entries = tuple(entries)
        # Rule codes are the entries' positions + 1 (non-zero, as the matcher needs).
        self._matcher = FirstMatcher(
            [_pattern(entry.location) for entry in self.entries],
            range(1, len(self.entries) + 1),
        )

    def __repr__(self) -> str:
        return f"<TdmRepFile entries={len(self.entries)}>"

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, url: str) -> TdmEntry | None:
        """The entry that applies to ``url`` (an absolute URL or a path): the first one
        in array order whose location matches; ``None`` (unset) when none does."""
        if not self.entries:
            return None
        code = self._matcher.match(_url_path(url))
        return self.entries[code - 1] if code else None

    def values(self, url: str) -> TdmValues:
        """What the file says about ``url`` (:data:`NO_VALUES` when nothing)."""
        entry = self.lookup(url)
        return NO_VALUES if entry is None else entry.values()


#: No file (404, any failure, or a file that says nothing): nothing is reserved by it.
NO_FILE: Final = TdmRepFile()


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
    reservation = _reservation_from_json(item.get("tdm-reservation"))
    if reservation is None and logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "tdmrep.json entry %d: tdm-reservation %s is not 1 or 0: unset",
            index,
            _quote(item.get("tdm-reservation")),
        )
    return TdmEntry(index, location, reservation, _policy(item.get("tdm-policy")))


def parse_tdmrep(body: bytes | str) -> TdmRepFile:
    """A tdmrep.json body -> :class:`TdmRepFile`. Never raises on content.

    Only the first 500 KiB count (like robots.txt, SPEC §1): the entries wholly inside
    them are kept. Invalid JSON or a value that is not an array says nothing
    (:data:`NO_FILE`); an element that is not an object, or has no text ``location``,
    is skipped; a ``tdm-reservation`` other than 1 or 0 is unset (report §2.1).
    """
    if isinstance(body, (bytes, bytearray, memoryview)):
        data = bytes(body)
    elif isinstance(body, str):
        data = body.encode("utf-8", "surrogatepass")
    else:
        raise TypeError(f"body must be bytes or str, not {type(body).__name__}")
    truncated = len(data) > MAX_BODY_BYTES
    text = data[:MAX_BODY_BYTES].decode("utf-8", "replace").lstrip("\ufeff")
    items, problem = _array_items(text, truncated)
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
    if skipped > _LOG_LIMIT and logger.isEnabledFor(logging.DEBUG):
        logger.debug("tdmrep.json: skipped %d entries in total", skipped)
    return TdmRepFile(entries) if entries else NO_FILE


def _array_items(text: str, truncated: bool) -> tuple[list[object] | None, str]:
    """The elements of a top-level JSON array, decoded one at a time.

    Returns (elements, problem). ``None`` elements: the file says nothing. When the body
    was cut at 500 KiB, the elements before the first one that does not decode are kept.
    """
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


def tdmrep_for_response(status: int, body: bytes) -> TdmRepFile:
    """The file for a download outcome: a 2xx body is parsed; anything else (404, other
    errors) means no file: "Failure to provide access to such a representation implies
    that the origin server does not implement this protocol" (report §3.1)."""
    if 200 <= status < 300:
        return parse_tdmrep(body)
    return NO_FILE


# --------------------------------------------------------------------------- priority


class _Layer(Protocol):
    @property
    def reservation(self) -> bool | None: ...
    @property
    def policy(self) -> str | None: ...
    @property
    def source(self) -> str: ...


@dataclass(frozen=True, slots=True)
class TdmResolution:
    """The TDMRep answer for one resource, after the processing priority (report §4)."""

    #: ``True`` reserved, ``False`` not reserved, ``None`` unset.
    reservation: bool | None = None
    #: The policy URL; only kept when reserved ("TDM Agents SHOULD NOT process
    #: tdm-policy" when the reservation is 0, report §2.2).
    policy: str | None = None
    #: Where the reservation comes from ("" when unset).
    source: str = ""


UNSET: Final = TdmResolution()


def resolve(*layers: _Layer | None) -> TdmResolution:
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
        return UNSET
    return TdmResolution(reservation, policy if reservation else None, source)
