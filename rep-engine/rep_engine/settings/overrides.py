"""Reading ``REP_OVERRIDES``: the authorized exceptions to hosts' robots.txt
Allow/Disallow, each with its host as the crawl's URLs name it (:func:`override_host`)
and its expiry (:func:`override_expiry`): the reader of one row of the settings table
(the others: :mod:`rep_engine.settings.readers`)."""

from __future__ import annotations

import json
import re
import time as _time
from datetime import date, datetime, time, timedelta, timezone
from typing import Any, Final

import idna

from rep_engine.settings.readers import RepSettingError, SettingsLike
from rep_engine.verdict.values import expiry_words

#: One authorized override of ``REP_OVERRIDES``: ``(host, reason, expires)``, the expiry
#: as :func:`override_expiry` writes it (a date as given, or a date, time and zone).
OverrideEntry = tuple[str, str, str]

#: An expiry as ``REP_OVERRIDES`` takes it: a date (``2027-06-30``), or a date and time
#: with its zone (``2027-06-30T18:00:00+02:00``, ``…Z``); nothing before or after it.
_EXPIRY: Final = re.compile(
    r"(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d)?)(Z|[+-]\d\d:\d\d))?", re.ASCII
)


#: The UTC offsets places keep, in minutes: from -12:00 (Baker Island) to +14:00 (Line
#: Islands). An offset outside them names no zone anyone's clock is in.
_REAL_OFFSETS: Final = (-12 * 60, 14 * 60)


def _minutes(zone: str) -> int:
    """``+05:45`` as minutes east of UTC."""
    sign = -1 if zone[0] == "-" else 1
    return sign * (int(zone[1:3]) * 60 + int(zone[4:6]))


def override_expiry(expires: Any) -> tuple[str, float] | None:
    """An override's expiry (``REP_OVERRIDES``) as the records write it, and the instant it
    stops applying (POSIX seconds); ``None`` when it is not one. A date and time keeps the
    zone it was given in (``2026-11-25T01:00:00+14:00``, already past at 2026-11-24T11:00
    UTC); a date alone holds through that day, UTC: it stops at the next midnight, UTC,
    and is written as given (``2027-06-30``, shown ``through 2027-06-30, UTC``; earlier
    versions wrote that midnight, ``2027-07-01T00:00:00+00:00``, read the same). A time
    without a zone, with an offset no place keeps (``+15:00``: past
    :data:`_REAL_OFFSETS`), or any text around the date (``2026-11-25 or never``), is not
    an expiry: which instant it names cannot be known."""
    matched = _EXPIRY.fullmatch(str(expires).strip())
    if matched is None:
        return None
    day, clock, zone = matched.groups()
    if zone and zone != "Z" and not _REAL_OFFSETS[0] <= _minutes(zone) <= _REAL_OFFSETS[1]:
        return None  # +15:00: no place keeps such a time, so no instant is named
    try:
        if clock is None:
            ends = datetime.combine(
                date.fromisoformat(day) + timedelta(days=1), time(0), timezone.utc
            )
        else:
            offset = "+00:00" if zone == "Z" else zone
            ends = datetime.fromisoformat(f"{day}T{clock}{offset}")
    except (ValueError, OverflowError):  # 2026-02-30, 25:00, +24:00, 9999-12-31 + 1 day
        return None
    return day if clock is None else ends.isoformat(), ends.timestamp()


def override_host(host: str) -> str:
    """An override's host as the crawl's URLs name it: lowercase, an internationalised
    name in its IDNA 2008 form, mapped as UTS #46 (non-transitional) maps it, the mapping
    of today's browsers and URL parsers (``faß.test`` is ``xn--fa-hia.test``, never
    ``fass.test``, another host: IDNA 2003's ``encodings.idna`` maps ß to ss). Raises
    ``idna.IDNAError`` (a ``UnicodeError``) for a name IDNA 2008 does not allow."""
    host = host.strip().rstrip(".")
    if host.isascii():
        return host.lower()
    mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)
    return ".".join(
        label.lower() if label.isascii() else idna.alabel(label).decode("ascii")
        for label in mapped.rstrip(".").split(".")
    )


def read_overrides(
    settings: SettingsLike,
    name: str,
    default: tuple[OverrideEntry, ...] = (),
    now: float | None = None,
) -> tuple[OverrideEntry, ...]:
    """Authorized exceptions to hosts' robots.txt Allow/Disallow (Nutch's robots.txt
    allow-list, with who authorized it and until when): a list of ``{"host": …,
    "reason": …, "expires": …}`` (or a JSON string of one), each host once. The host is
    compared as the crawl's URLs name it (:func:`override_host`); the reason must say
    something; the expiry is a date or a date and time with its zone
    (:func:`override_expiry`). An entry already expired at ``now`` (POSIX seconds; the
    clock when ``None``), in whatever zone it was written, stops the crawl, so an
    authorization is never used past its date; one that expires during the crawl stops
    applying then (:func:`rep_engine.verdict.decide`)."""
    value = settings.get(name, default)
    if value is None or value == default:
        return default
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except ValueError:
            raise RepSettingError(
                f"{name}: expected a list of {{'host', 'reason', 'expires'}} entries (or "
                f"JSON of one), got {value!r}"
            ) from None
    if not isinstance(value, (list, tuple)):
        raise RepSettingError(
            f"{name}: expected a list of {{'host', 'reason', 'expires'}} entries, got {value!r}"
        )
    now = _time.time() if now is None else now
    found: dict[str, OverrideEntry] = {}
    for entry in value:
        host, reason, expires = _override(name, entry)
        expiry = override_expiry(expires)
        if expiry is None:
            raise RepSettingError(
                f"{name}: the override of {host} needs 'expires' as a date (YYYY-MM-DD) or "
                f"a date and time with its zone (YYYY-MM-DDTHH:MM:SS+HH:MM or Z), and "
                f"nothing else, got {expires!r}"
            )
        written, ends = expiry
        if ends <= now:
            raise RepSettingError(
                f"{name}: the override of {host} has expired (authorized "
                f"{expiry_words(written)}); renew the authorization and its date, or remove it"
            )
        found[host] = (host, reason, written)
    return tuple(found.values())


def _override(name: str, entry: Any) -> tuple[str, str, str]:
    if not isinstance(entry, dict) or set(entry) != {"host", "reason", "expires"}:
        raise RepSettingError(
            f"{name}: each entry needs exactly 'host', 'reason' and 'expires', got {entry!r}"
        )
    host, reason, expires = entry["host"], entry["reason"], entry["expires"]
    if not isinstance(host, str) or not host.strip() or any(c in host for c in "/:@ "):
        raise RepSettingError(
            f"{name}: 'host' must be a host name (no scheme or port), got {host!r}"
        )
    if not isinstance(reason, str) or not reason.strip():
        raise RepSettingError(
            f"{name}: the override of {host} needs a 'reason' (who authorized it)"
        )
    try:
        key = override_host(host)
    except UnicodeError:
        raise RepSettingError(
            f"{name}: 'host' {host!r} is not a host name IDNA 2008 allows; give it as the "
            f"crawl's URLs name it (xn--…)"
        ) from None
    return key, reason.strip(), str(expires)
