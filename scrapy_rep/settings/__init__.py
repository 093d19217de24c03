"""All ``REP_*`` settings, read once and validated (SPEC §5).

:data:`SETTINGS` is the one table of (setting, default, reader): every default is
written there and nowhere else. A crawl reads it once per crawler
(:func:`scrapy_rep.crawl.config.config_of`, which every component calls); the add-on and
the commands read it from their settings (so a wrong value stops the crawl at start); a
wrong value raises :class:`RepSettingError`, naming the setting and the
accepted values. Pure: reads anything with a ``get(name, default)`` method.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from scrapy_rep.fetch.rules import MAX_REDIRECTS, Policy
from scrapy_rep.robotstxt import profiles
from scrapy_rep.settings.readers import PURPOSES as PURPOSES
from scrapy_rep.settings.readers import (
    Reader,
    _choice,
    _number,
    _optional,
    _whole,
    read_bool,
    read_overrides,
    read_purposes,
    read_store,
    read_str,
    read_url_list,
)
from scrapy_rep.settings.readers import RepSettingError as RepSettingError
from scrapy_rep.settings.readers import SettingsLike as SettingsLike
from scrapy_rep.settings.readers import read_str_list as read_str_list
from scrapy_rep.settings.readers import robots_agent as robots_agent
from scrapy_rep.verdict import Override, RequestRules

#: The ``REP_PROFILE`` names: those of :data:`scrapy_rep.robotstxt.profiles.PROFILES`.
PROFILES: Final = tuple(profiles.PROFILES)
ACTIONS: Final = ("drop", "keep")
UNREACHABLE_ACTIONS: Final = ("drop", "allow")
PURPOSE_ACTIONS: Final = ("drop", "mark")
UNKNOWN_ANSWERS: Final = ("allow", "deny")
#: ``REP_UNKNOWN_SETTINGS``: what an unknown ``REP_*`` name does (settings/names.py).
UNKNOWN_SETTING_ACTIONS: Final = ("error", "warn")
DAY: Final = 86_400.0
MIB: Final = 1024 * 1024


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Setting:
    """One ``REP_*`` setting: its :class:`RepConfig` field, default and reader."""

    name: str
    field: str
    default: Any
    read: Reader


#: Every ``REP_*`` setting, in the order of docs/settings.md (the docs build writes its
#: table from this one, and each setting needs its section there).
#: ``REP_CACHE_MAX_TTL`` must come after ``REP_CACHE_MIN_TTL`` (it may not be smaller).
SETTINGS: Final = (
    Setting("REP_UNKNOWN_SETTINGS", "unknown_settings", "error", _choice(UNKNOWN_SETTING_ACTIONS)),
    Setting("REP_PROFILE", "profile", "google", _choice(PROFILES)),
    Setting("REP_OBEY_CRAWL_DELAY", "obey_crawl_delay", True, read_bool),
    Setting("REP_CRAWL_DELAY_MAX", "crawl_delay_max", 60.0, _number()),
    Setting("REP_UNREACHABLE_RETRY_DELAY", "unreachable_retry_delay", 30.0, _number(0.001)),
    Setting("REP_UNREACHABLE_MAX_WAIT", "unreachable_max_wait", 600.0, _number()),
    Setting("REP_UNREACHABLE_CONNECT_MAX_WAIT", "unreachable_connect_max_wait", 10.0, _number()),
    Setting("REP_UNREACHABLE_ACTION", "unreachable_action", "drop", _choice(UNREACHABLE_ACTIONS)),
    Setting("REP_ROBOTSTXT_TIMEOUT", "robotstxt_timeout", 30.0, _number(0.001)),
    Setting("REP_MAX_HELD_REQUESTS", "max_held_requests", 100_000, _whole(1)),
    Setting("REP_CACHE_TTL", "cache_ttl", DAY, _number()),
    Setting("REP_CACHE_MIN_TTL", "cache_min_ttl", 60.0, _number()),
    Setting("REP_CACHE_MAX_TTL", "cache_max_ttl", 7 * DAY, _number()),  # checked below
    Setting("REP_CACHE_STALE_MAX", "cache_stale_max", 30 * DAY, _number()),
    Setting("REP_CACHE_MAX_ORIGINS", "cache_max_origins", 100_000, _whole(1)),
    Setting("REP_CACHE_MAX_BYTES", "cache_max_bytes", 512 * MIB, _whole(1)),
    Setting("REP_ROBOTSTXT_CONCURRENCY", "robotstxt_concurrency", None, _optional(_whole(1))),
    Setting("REP_ROBOTSTXT_CACHE", "robotstxt_cache", "memory", read_store),
    Setting("REP_LEASE_TIMEOUT", "lease_timeout", None, _optional(_number(0.1))),
    Setting("REP_REPORT", "report", False, read_bool),
    Setting("REP_REPORT_FILE", "report_file", "", read_str),
    Setting("REP_REPORT_MAX_URLS", "report_max_urls", 200, _whole(1)),
    Setting("REP_NOINDEX_ACTION", "noindex_action", "drop", _choice(ACTIONS)),
    Setting("REP_NOFOLLOW_ACTION", "nofollow_action", "drop", _choice(ACTIONS)),
    Setting("REP_REL_NOFOLLOW", "rel_nofollow", True, read_bool),
    Setting("REP_DIRECTIVE_TOKENS", "directive_tokens", (), read_str_list),
    Setting("REP_META_IN_NOSCRIPT", "meta_in_noscript", True, read_bool),
    Setting("REP_PURPOSE", "purpose", ("search",), read_purposes),
    Setting("REP_PURPOSE_ACTION", "purpose_action", "drop", _choice(PURPOSE_ACTIONS)),
    Setting("REP_PURPOSE_UNKNOWN", "purpose_unknown", "allow", _choice(UNKNOWN_ANSWERS)),
    Setting("REP_PURPOSE_AGENTS", "purpose_agents", (), read_str_list),
    Setting("REP_ITEM_PREFERENCES_FIELD", "item_preferences_field", "", read_str),
    Setting("REP_NOARCHIVE_MEANS_NO_AI_TRAIN", "noarchive_means_no_ai_train", True, read_bool),
    Setting("REP_MEDIA_USAGE", "media_usage", True, read_bool),
    Setting("REP_MEDIA_CONSTRAINTS_MET", "media_constraints_met", False, read_bool),
    Setting("REP_MEDIA_NOINDEX_MEANS_NO_AI", "media_noindex_means_no_ai", True, read_bool),
    Setting("REP_MEDIA_C2PA", "media_c2pa", True, read_bool),
    Setting("REP_MEDIA_MAX_SCAN_BYTES", "media_max_scan_bytes", 32 * MIB, _whole(1024)),
    Setting("REP_MEDIA_MAX_PACKET_BYTES", "media_max_packet_bytes", MIB, _whole(1024)),
    Setting("REP_MEDIA_MAX_PACKETS", "media_max_packets", 16, _whole(1)),
    Setting("REP_RSL_LICENSES", "rsl_licenses", (), read_url_list),
    Setting("REP_OVERRIDES", "overrides", (), read_overrides),
    Setting("REP_AUDIT_FILE", "audit_file", "", read_str),
    Setting("REP_AUDIT_REQUIRED", "audit_required", True, read_bool),
)


@dataclass(frozen=True)
class RepConfig:
    """Every ``REP_*`` setting, validated (fields in :data:`SETTINGS` order; defaults
    there). ``None`` in an optional field means "derived from other settings"."""

    #: ``"error"``: an unknown ``REP_*`` name stops the crawl; ``"warn"``: a WARNING.
    unknown_settings: str
    profile: str
    #: ``Crawl-delay`` obeyed (capped by ``REP_CRAWL_DELAY_MAX``) in every profile unless
    #: ``False`` (Google's behaviour).
    obey_crawl_delay: bool
    crawl_delay_max: float
    unreachable_retry_delay: float
    unreachable_max_wait: float
    #: How long a host that cannot be connected to (refused, no such host, TLS) holds
    #: its requests; at most ``unreachable_max_wait``.
    unreachable_connect_max_wait: float
    unreachable_action: str
    robotstxt_timeout: float
    max_held_requests: int
    cache_ttl: float
    cache_min_ttl: float
    cache_max_ttl: float
    cache_stale_max: float
    cache_max_origins: int
    cache_max_bytes: int
    #: ``None``: half of ``CONCURRENT_REQUESTS``.
    robotstxt_concurrency: int | None
    robotstxt_cache: str
    #: ``None``: long enough for six robots.txt requests.
    lease_timeout: float | None
    report: bool
    report_file: str
    report_max_urls: int
    noindex_action: str
    nofollow_action: str
    rel_nofollow: bool
    directive_tokens: tuple[str, ...]
    meta_in_noscript: bool
    #: What the crawl is for: ``("search",)`` unless set.
    purpose: tuple[str, ...]
    purpose_action: str
    purpose_unknown: str
    #: More product tokens whose robots.txt groups the crawl obeys (``GPTBot``…).
    purpose_agents: tuple[str, ...]
    #: ``""``: off; else the item field each kept item gets its page's preferences in
    #: (the form of an ``audit export`` line's, docs/audit-trail.md).
    item_preferences_field: str
    #: A page's (or a file's) ``noarchive`` is a no for ai-train, as Bing and Amazon read
    #: it (docs/decisions.md, 'noarchive is a no for AI training').
    noarchive_means_no_ai_train: bool
    #: Read the statements inside files downloaded by ``FilesPipeline`` /
    #: ``ImagesPipeline`` (crawls with ai-train or ai-input; see docs/media.md).
    media_usage: bool
    #: The crawl meets the constraints of ``DMI-PROHIBITED-SEE*`` and CAWG ``constrained``.
    media_constraints_met: bool
    #: ``noindex`` / ``noimageindex`` in a downloaded file's ``X-Robots-Tag``, and a page's
    #: ``noimageindex`` for its images, are a no for ai-train and ai-input (img2dataset's
    #: default; docs/decisions.md, 'noindex on a downloaded file is a no for AI').
    media_noindex_means_no_ai: bool
    #: Read C2PA manifests (when ``c2pa-python`` is installed).
    media_c2pa: bool
    media_max_scan_bytes: int
    media_max_packet_bytes: int
    media_max_packets: int
    #: RSL licenses the crawl holds: license document or license-server URLs.
    rsl_licenses: tuple[str, ...]
    #: ``REP_OVERRIDES``: ``(host, reason, expires)`` of each authorized override.
    overrides: tuple[tuple[str, str, str], ...]
    audit_file: str
    #: ``False``: a crawl whose trail cannot be written goes on without it (a WARNING).
    audit_required: bool

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> RepConfig:
        """Read and validate every ``REP_*`` setting; raise :class:`RepSettingError` if wrong."""
        values = {s.field: s.read(settings, s.name, s.default) for s in SETTINGS}
        if values["cache_max_ttl"] < values["cache_min_ttl"]:
            raise RepSettingError(
                f"REP_CACHE_MAX_TTL: expected a number of at least "
                f"{values['cache_min_ttl']:g} (REP_CACHE_MIN_TTL), "
                f"got {settings.get('REP_CACHE_MAX_TTL')!r}"
            )
        return cls(**values)

    @classmethod
    def defaults(cls) -> RepConfig:
        return cls.from_settings({})


assert [f.name for f in fields(RepConfig)] == [s.field for s in SETTINGS]


def lifecycle_policy(
    config: RepConfig, settings: SettingsLike, timeout: float, store: str | None
) -> Policy:
    """The numbers of SPEC §4 for :class:`scrapy_rep.fetch.lifecycle.Lifecycle`."""
    concurrency = config.robotstxt_concurrency or max(
        1, int(settings.get("CONCURRENT_REQUESTS") or 16) // 2
    )
    return Policy(
        retry_delay=config.unreachable_retry_delay,
        max_wait=config.unreachable_max_wait,
        connect_max_wait=config.unreachable_connect_max_wait,
        unreachable_action=config.unreachable_action,
        cache_ttl=config.cache_ttl,
        min_ttl=config.cache_min_ttl,
        max_ttl=config.cache_max_ttl,
        stale_max=config.cache_stale_max,
        concurrency=concurrency,
        lease_seconds=config.lease_timeout or timeout * (MAX_REDIRECTS + 1) + 5,
        store=store,
    )


def crawl_delay_obeyed(config: RepConfig) -> bool:
    """Whether ``Crawl-delay`` sets download delays: ``REP_OBEY_CRAWL_DELAY`` (yes by
    default in every profile: docs/deviations.md). The crawl and its report ask the same."""
    return config.obey_crawl_delay


def request_rules(config: RepConfig, purpose_set: bool) -> RequestRules:
    """The settings that decide a request (:func:`scrapy_rep.verdict.decide`), for the crawl
    and both tools. ``purpose_set``: ``REP_PURPOSE`` was set (not only its default), so its
    opt-outs hold even when robots.txt is not obeyed, and RSL licenses are read. With the
    audit trail on, an allowed request keeps robots.txt's deciding line."""
    return RequestRules.of(
        config.purpose,
        config.purpose_unknown,
        config.purpose_agents,
        purpose_set=purpose_set,
        rsl_licenses=config.rsl_licenses,
        overrides=[Override(*entry) for entry in config.overrides],
        explain=bool(config.audit_file),
    )
