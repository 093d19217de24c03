"""Reading one ``REP_*`` setting: the readers of the settings table
(:data:`rep_engine.settings.SETTINGS`), each of which raises :class:`RepSettingError`
naming the setting when its value cannot be used (SPEC §5). Pure.

Among them the reader of ``REP_OVERRIDES`` (:func:`read_overrides`): the authorized
exceptions to hosts' robots.txt Allow/Disallow, each with its host as the crawl's URLs
name it (:func:`override_host`) and its expiry (:func:`override_expiry`).
"""

from __future__ import annotations

import difflib
import json
import re
import time as _time
from collections.abc import Callable, Container, Iterable
from datetime import date, datetime, time, timedelta, timezone
from os import PathLike
from typing import Any, Final, Protocol

import idna

from rep_engine.fetch.rsl_kind import is_http_url
from rep_engine.usage import agentpresets
from rep_engine.usage.purpose import PURPOSES
from rep_engine.verdict.decide import expiry_words


class RepSettingError(ValueError):
    """A ``REP_*`` (or related Scrapy) setting has a value we cannot use."""


def closest(word: str, known: Iterable[str], at_most: int = 1, cutoff: float = 0.6) -> list[str]:
    """The words of ``known`` closest to ``word``, closest first (at most ``at_most``, each
    at least ``cutoff`` alike, as :mod:`difflib` measures it): what a "did you mean" names,
    for a setting, a purpose, a command's option or a site."""
    return difflib.get_close_matches(word, list(known), n=at_most, cutoff=cutoff)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)``, naming the word of ``known`` closest to ``word``; ``""``
    when none is close."""
    near = closest(word, known)
    return f" (did you mean {near[0]!r}?)" if near else ""


class SettingsLike(Protocol):
    """The part of :class:`scrapy.settings.BaseSettings` we read (keeps this module testable)."""

    def get(self, name: str, default: Any = None) -> Any: ...


def robots_agent(settings: SettingsLike) -> str:
    """The crawler's identity for robots.txt and page directives: ``ROBOTSTXT_USER_AGENT``,
    else ``USER_AGENT`` (SPEC §1 "User-agent matching")."""
    return str(settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT") or "")


# --------------------------------------------------------------------------- readers


def read_choice(settings: SettingsLike, name: str, default: str, choices: Iterable[str]) -> str:
    """A string setting that must be one of ``choices`` (compared case-insensitively)."""
    accepted = tuple(choices)
    value = settings.get(name, default)
    if value is None:
        return default
    if isinstance(value, str) and value.strip().lower() in accepted:
        return value.strip().lower()
    raise RepSettingError(
        f"{name}: expected one of {', '.join(map(repr, accepted))}, got {value!r}"
    )


#: The spellings of a boolean setting: those Scrapy's ``Settings.getbool`` reads, so
#: that one ``settings.py`` has one vocabulary (docs/decisions.md, 'One reader for every
#: boolean setting'). Nothing else is a boolean: ``"yes"``, ``"no"``, ``"on"``, ``2`` and
#: ``"TRUE"`` are refused.
BOOLEAN_SPELLINGS: Final[dict[bool | int | str, bool]] = {
    True: True,  # also 1 (equal to True)
    False: False,  # also 0
    "True": True,
    "true": True,
    "1": True,
    "False": False,
    "false": False,
    "0": False,
}


def read_bool(settings: SettingsLike, name: str, default: bool) -> bool:
    """A boolean setting, in one of the :data:`BOOLEAN_SPELLINGS`; any other value raises
    :class:`RepSettingError` naming the setting, as a malformed input must never yield a
    "yes" or a "no" that was not written."""
    value = settings.get(name, default)
    if value is None:
        return default
    if type(value) in (bool, int, str):  # not 1.0, which equals 1
        known = BOOLEAN_SPELLINGS.get(value)
        if known is not None:
            return known
    raise RepSettingError(
        f"{name}: expected a boolean (True, False, 1, 0, 'true', 'false', '1' or '0'), "
        f"got {value!r}"
    )


def read_number(
    settings: SettingsLike,
    name: str,
    default: float,
    *,
    minimum: float = 0.0,
    maximum: float | None = None,
) -> float:
    """A number setting (int, float or numeric string) within ``[minimum, maximum]``."""
    value = settings.get(name, default)
    if value is None:
        return default
    try:
        if isinstance(value, bool):
            raise TypeError
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise RepSettingError(f"{name}: expected a number, got {value!r}") from None
    if number != number or number < minimum or (maximum is not None and number > maximum):
        upper = "" if maximum is None else f" and at most {maximum:g}"
        raise RepSettingError(
            f"{name}: expected a number of at least {minimum:g}{upper}, got {value!r}"
        )
    return number


def read_int(
    settings: SettingsLike, name: str, default: int, *, minimum: int = 0, maximum: int | None = None
) -> int:
    """A whole-number setting within ``[minimum, maximum]``."""
    number = read_number(settings, name, default, minimum=minimum, maximum=maximum)
    if number != int(number) or number in (float("inf"), float("-inf")):
        raise RepSettingError(f"{name}: expected a whole number, got {settings.get(name)!r}")
    return int(number)


def read_str(settings: SettingsLike, name: str, default: str = "") -> str:
    """A string setting (a path or a name)."""
    value = settings.get(name, default)
    if value is None:
        return default
    if isinstance(value, (str, PathLike)):
        return str(value)
    raise RepSettingError(f"{name}: expected a string, got {value!r}")


def read_store(settings: SettingsLike, name: str, default: str = "memory") -> str:
    """``"memory"`` or a Redis URL (``redis://``, ``rediss://``, ``unix://``)."""
    value = settings.get(name, default)
    if value is None or value == "memory":
        return "memory"
    if isinstance(value, str) and value.split("://", 1)[0] in ("redis", "rediss", "unix"):
        return value
    raise RepSettingError(
        f"{name}: expected 'memory' or a Redis URL (redis://host:port/db), got {value!r}"
    )


def read_str_list(
    settings: SettingsLike, name: str, default: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """A list of strings: a list/tuple of str, or one comma-separated string."""
    value = settings.get(name)
    if value is None or value == "":
        return default
    items = value.split(",") if isinstance(value, str) else value
    if isinstance(items, (list, tuple)) and all(isinstance(item, str) for item in items):
        return tuple(item.strip() for item in items if item.strip())
    raise RepSettingError(
        f"{name}: expected a list of strings or a comma-separated string, got {value!r}"
    )


def read_purpose_agents(
    settings: SettingsLike, name: str, default: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """A list of product tokens (:func:`read_str_list`), where an entry ``preset:NAME``
    stands for the names of that preset (:data:`rep_engine.usage.agentpresets.PRESETS`),
    expanded in place, each name once. An unknown preset is named, with the known ones."""
    entries = read_str_list(settings, name, default)
    try:
        return agentpresets.expand(entries)
    except KeyError as error:
        known = ", ".join(repr(agentpresets.PREFIX + p) for p in agentpresets.PRESETS)
        raise RepSettingError(
            f"{name}: unknown preset {error.args[0]!r}; the presets are {known}"
        ) from None


def used_presets(settings: SettingsLike, name: str) -> list[agentpresets.AgentPreset]:
    """The presets the entries of ``name`` (``REP_PURPOSE_AGENTS``) name, as the run header
    records them (the setting is read at start: a wrong value never gets here)."""
    try:
        return agentpresets.presets_used(read_str_list(settings, name, ()))
    except RepSettingError:
        return []


def read_purposes(settings: SettingsLike, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """One purpose or a list of them (each of :data:`PURPOSES`), without repeats. A
    wrong element is named, with the purpose it is closest to (``'serch'``: ``'search'``).
    Only a setting left out takes ``default``: one set empty (``""``, ``None``, ``[]``, an
    empty shell variable after ``-s REP_PURPOSE=``) is refused, as a purpose that was
    meant and lost must not turn the crawl into a search crawl."""
    raw = settings.get(name)
    given = isinstance(settings, Container) and name in settings
    if raw is None and not given:
        return default
    values = read_str_list(settings, name, ()) if raw is not None else ()
    chosen = tuple(dict.fromkeys(value.lower() for value in values))
    expected = f"expected one of {', '.join(map(repr, PURPOSES))} or a list of them"
    wrong = [value for value in values if value.lower() not in PURPOSES]
    if wrong:
        hint = did_you_mean(wrong[0].lower(), PURPOSES)
        got = f", got {raw!r}" if len(values) > 1 else ""
        raise RepSettingError(f"{name}: {wrong[0]!r} is not a purpose{hint}; {expected}{got}")
    if not chosen:
        raise RepSettingError(f"{name}: {expected}, got {raw!r} (leave it out for a search crawl)")
    return chosen


def read_url_list(
    settings: SettingsLike, name: str, default: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """A list of absolute http(s) URLs (as :func:`read_str_list`), each once."""
    values = read_str_list(settings, name, default)
    wrong = [value for value in values if not is_http_url(value)]
    if wrong:
        raise RepSettingError(
            f"{name}: expected absolute http(s) URLs (license or license-server URLs), "
            f"got {wrong[0]!r}"
        )
    return tuple(dict.fromkeys(values))


#: An absolute https URL as a Structured Field String carries it (RFC 9651 §3.3.3:
#: printable ASCII; no space, quote or backslash, which a URL never needs unescaped), with
#: a host and no fragment (a request never sends one).
_HTTPS_URL: Final = re.compile(
    r"(?i:https)://[!$-.0-9:;=A-Z\[\]_a-z~%]+(?:[/?][!$-\[\]-~]*)?", re.ASCII
)


def read_https_url(settings: SettingsLike, name: str, default: str = "") -> str:
    """An absolute https URL (``""``: unset), as ``Signature-Agent`` sends it
    (draft-ietf-webbotauth-httpsig-protocol-01, "Signature-Agent": "an absolute URI,
    whose scheme MUST be https", in a String Item)."""
    value = read_str(settings, name, default)
    if value and not _HTTPS_URL.fullmatch(value):
        raise RepSettingError(
            f"{name}: expected an absolute https URL in ASCII, without a fragment (your key "
            f"directory's: https://…/.well-known/http-message-signatures-directory), "
            f"got {value!r}"
        )
    return value


Reader = Callable[[SettingsLike, str, Any], Any]


def _choice(choices: tuple[str, ...]) -> Reader:
    return lambda settings, name, default: read_choice(settings, name, default, choices)


def _number(minimum: float = 0.0) -> Reader:
    return lambda settings, name, default: read_number(settings, name, default, minimum=minimum)


def _whole(minimum: int = 0, maximum: int | None = None) -> Reader:
    return lambda settings, name, default: read_int(
        settings, name, default, minimum=minimum, maximum=maximum
    )


def _optional(reader: Reader) -> Reader:
    """``None`` (unset) stays ``None``: the default is derived from other settings."""
    return lambda settings, name, default: (
        None if settings.get(name) is None else reader(settings, name, default)
    )


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
    applying then (:func:`rep_engine.verdict.decide.decide`)."""
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
