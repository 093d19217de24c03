"""Reading one ``REP_*`` setting: the readers of the settings table
(:data:`rep_engine.settings.SETTINGS`), each of which raises :class:`RepSettingError`
naming the setting when its value cannot be used (SPEC §5). Pure.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Container, Iterable
from os import PathLike
from typing import Any, Final, Protocol

from rep_engine.fetch.rsl_kind import is_http_url
from rep_engine.usage import agentpresets

# Re-exported (``X as X``): what a crawl can be for (``REP_PURPOSE``).
from rep_engine.usage.purpose import PURPOSES as PURPOSES


class RepSettingError(ValueError):
    """A ``REP_*`` (or related Scrapy) setting has a value we cannot use."""


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
        close = difflib.get_close_matches(wrong[0].lower(), PURPOSES, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
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


Reader = Callable[[SettingsLike, str, Any], Any]


def _choice(choices: tuple[str, ...]) -> Reader:
    return lambda settings, name, default: read_choice(settings, name, default, choices)


def _number(minimum: float = 0.0) -> Reader:
    return lambda settings, name, default: read_number(settings, name, default, minimum=minimum)


def _whole(minimum: int = 0) -> Reader:
    return lambda settings, name, default: read_int(settings, name, default, minimum=minimum)


def _optional(reader: Reader) -> Reader:
    """``None`` (unset) stays ``None``: the default is derived from other settings."""
    return lambda settings, name, default: (
        None if settings.get(name) is None else reader(settings, name, default)
    )
