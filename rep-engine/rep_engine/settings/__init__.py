"""All ``REP_*`` settings, read once and validated (SPEC §5).

:data:`SETTINGS` is the one table of (setting, default, reader): every default is
written there and nowhere else. A crawl reads it once per crawler
(:func:`scrapy_rep.crawl.config.config_of`, which every component calls); the add-on and
the commands read it from their settings (so a wrong value stops the crawl at start); a
wrong value raises :class:`RepSettingError`, naming the setting and the
accepted values. Pure: reads anything with a ``get(name, default)`` method.
"""

from __future__ import annotations

from typing import Any, Final

from rep_engine.settings.config import SETTINGS as SETTINGS
from rep_engine.settings.config import RepConfig as RepConfig
from rep_engine.settings.config import read_config as read_config
from rep_engine.settings.readers import PURPOSES as PURPOSES
from rep_engine.settings.readers import RepSettingError as RepSettingError
from rep_engine.settings.readers import SettingsLike as SettingsLike
from rep_engine.settings.readers import read_bool
from rep_engine.settings.readers import robots_agent as robots_agent
from rep_engine.settings.rules import crawl_delay_obeyed as crawl_delay_obeyed
from rep_engine.settings.rules import directive_readings as directive_readings
from rep_engine.settings.rules import lifecycle_policy as lifecycle_policy
from rep_engine.settings.rules import overrides_of as overrides_of
from rep_engine.settings.rules import page_rules as page_rules
from rep_engine.settings.rules import request_rules as request_rules
from rep_engine.settings.rules import usage_policy as usage_policy
from rep_engine.settings.table import PROFILES as PROFILES
from rep_engine.settings.table import Setting as Setting

#: The settings that decide what the crawl fetches and keeps: a request's verdict, a
#: page's, its items, links and files (:func:`request_rules`, :func:`page_rules` and the
#: page pass's actions). A crawl resumed from ``JOBDIR`` with another value of one of them
#: would become another crawl half-way, so it stops at start instead
#: (:func:`scrapy_rep.crawl.startup.check_resumed`).
DECIDING: Final = (
    "ROBOTSTXT_OBEY", "REP_PROFILE", "REP_UNREACHABLE_ACTION", "REP_NOINDEX_ACTION",
    "REP_NOFOLLOW_ACTION", "REP_REL_NOFOLLOW", "REP_DIRECTIVE_TOKENS", "REP_META_IN_NOSCRIPT",
    "REP_PURPOSE", "REP_PURPOSE_ACTION", "REP_PURPOSE_UNKNOWN", "REP_PURPOSE_AGENTS",
    "REP_NOARCHIVE_MEANS_NO_AI_TRAIN", "REP_NOARCHIVE_MEANS_NO_AI_INPUT",
    "REP_NOCACHE_MEANS_NO_AI_TRAIN", "REP_NOSNIPPET_MEANS_NO_AI_INPUT", "REP_MEDIA_USAGE",
    "REP_MEDIA_CONSTRAINTS_MET", "REP_MEDIA_NOINDEX_MEANS_NO_AI", "REP_MEDIA_C2PA",
    "REP_MEDIA_MAX_SCAN_BYTES", "REP_MEDIA_MAX_PACKET_BYTES", "REP_MEDIA_MAX_PACKETS",
    "REP_RSL_LICENSES", "REP_RSL_MAX_LICENSES", "REP_OVERRIDES",
)  # fmt: skip


assert set(DECIDING) <= {s.name for s in SETTINGS} | {"ROBOTSTXT_OBEY"}


def settings_in_force(config: RepConfig, settings: SettingsLike) -> dict[str, Any]:
    """Every ``REP_*`` setting's value in force, as JSON holds it (a list for a tuple), and
    Scrapy's ``ROBOTSTXT_OBEY``, ``ROBOTSTXT_USER_AGENT`` and ``REMOTE_CONTROL_ENABLED``
    (:func:`remote_control`): the run header's ``settings``, and what a ``JOBDIR`` crawl
    keeps to compare its resumed runs with."""
    values = {s.name: _json_list(getattr(config, s.field)) for s in SETTINGS}
    values["ROBOTSTXT_OBEY"] = read_bool(settings, "ROBOTSTXT_OBEY", False)
    values["ROBOTSTXT_USER_AGENT"] = settings.get("ROBOTSTXT_USER_AGENT")
    values[REMOTE_CONTROL] = remote_control(settings)
    return values


#: Scrapy 2.19's setting of its ``RemoteControl`` extension
#: (``scrapy/extensions/remote_control.py``: on by default, an HTTP server on localhost
#: that runs the Python code a local client sends inside the crawl).
REMOTE_CONTROL: Final = "REMOTE_CONTROL_ENABLED"


def remote_control(settings: SettingsLike) -> bool | str:
    """``REMOTE_CONTROL_ENABLED`` as the crawl had it, read as Scrapy's ``getbool`` reads
    it; ``"absent"`` when the settings have no such name (a Scrapy before 2.19, whose
    defaults lack it, and nobody set it). A value Scrapy could not read is kept as text."""
    value = settings.get(REMOTE_CONTROL)
    if value is None:
        return "absent"
    if isinstance(value, bool):
        return value
    if value in ("True", "true"):
        return True
    if value in ("False", "false"):
        return False
    try:
        return bool(int(value))
    except (TypeError, ValueError):
        return str(value)


def _json_list(value: Any) -> Any:
    return [_json_list(v) for v in value] if isinstance(value, (tuple, list)) else value


def changed_deciding(paused: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The :data:`DECIDING` settings whose value in ``now`` differs from ``paused`` (both
    as :func:`settings_in_force` gives them; one ``paused`` lacks, kept by an earlier
    version, is not compared)."""
    return [name for name in DECIDING if name in paused and paused[name] != now.get(name)]
