"""TDMRep values: the ``tdm-reservation`` / ``tdm-policy`` headers and HTML meta, and the
processing priority of the three techniques (TDMRep report §2, §3.2, §3.3, §4; pure).

Re-exported by :mod:`rep_engine.usage.tdmrep`, the public import path; logs on its logger.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol

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
