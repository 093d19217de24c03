"""All ``REP_*`` settings, read once and validated (SPEC §5).

:data:`SETTINGS` is the one table of (setting, default, reader): every default is
written there and nowhere else. A crawl reads it once per crawler
(:func:`scrapy_rep.crawl.config.config_of`, which every component calls); the add-on and
the commands read it from their settings (so a wrong value stops the crawl at start); a
wrong value raises :class:`RepSettingError`, naming the setting and the
accepted values. Pure: reads anything with a ``get(name, default)`` method.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any, Final, Literal

from scrapy_rep.fetch.rules import MAX_REDIRECTS, Policy
from scrapy_rep.robotstxt import profiles
from scrapy_rep.settings.readers import PURPOSES as PURPOSES
from scrapy_rep.settings.readers import (
    Reader,
    _choice,
    _number,
    _optional,
    _whole,
    override_expiry,
    read_bool,
    read_overrides,
    read_purpose_agents,
    read_purposes,
    read_store,
    read_str,
    read_url_list,
)
from scrapy_rep.settings.readers import RepSettingError as RepSettingError
from scrapy_rep.settings.readers import SettingsLike as SettingsLike
from scrapy_rep.settings.readers import read_str_list as read_str_list
from scrapy_rep.settings.readers import robots_agent as robots_agent
from scrapy_rep.usage.purpose import DirectiveReadings
from scrapy_rep.verdict import Override, RequestRules
from scrapy_rep.verdict.page import PageRules
from scrapy_rep.verdict.policy import UsagePolicy

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


#: What a number counts, for the settings table (``30 s``, ``512 MiB``).
Unit = Literal["", "seconds", "bytes"]


@dataclass(frozen=True)
class Setting:
    """One ``REP_*`` setting: its :class:`RepConfig` field, default and reader, and how
    docs/settings.md's table shows it (written from these, ``docs/_ext/rep_tables.py``):
    ``help``, one line of what it does; ``unit``, what a number counts; ``shown``, the
    default in words where the value cannot say it (``None``: derived; ``""``: off)."""

    name: str
    field: str
    default: Any
    read: Reader
    help: str
    unit: Unit = ""
    shown: str = ""


#: Every ``REP_*`` setting, in the order of docs/settings.md (the docs build writes its
#: table from this one, and each setting needs its section there).
#: ``REP_CACHE_MAX_TTL`` must come after ``REP_CACHE_MIN_TTL`` (it may not be smaller).
SETTINGS: Final = (
    Setting(
        "REP_UNKNOWN_SETTINGS",
        "unknown_settings",
        "error",
        _choice(UNKNOWN_SETTING_ACTIONS),
        help="What a misspelled `REP_*` name does: stop the crawl, or a WARNING",
    ),
    Setting(
        "REP_PROFILE",
        "profile",
        "google",
        _choice(PROFILES),
        help="How robots.txt is read: as Google does, as RFC 9309 says, or the 1990s drafts",
    ),
    Setting(
        "REP_OBEY_CRAWL_DELAY",
        "obey_crawl_delay",
        True,
        read_bool,
        help="Obey robots.txt's `Crawl-delay` between an origin's requests",
    ),
    Setting(
        "REP_CRAWL_DELAY_MAX",
        "crawl_delay_max",
        60.0,
        _number(),
        help="The longest `Crawl-delay` obeyed; a longer one is cut to it",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_RETRY_DELAY",
        "unreachable_retry_delay",
        30.0,
        _number(0.001),
        help="The wait before a robots.txt that failed is tried again (then doubled)",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_MAX_WAIT",
        "unreachable_max_wait",
        600.0,
        _number(),
        help="How long requests wait for an unreachable robots.txt, then give up",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_CONNECT_MAX_WAIT",
        "unreachable_connect_max_wait",
        10.0,
        _number(),
        help="The same wait for a host that cannot be connected to at all",
        unit="seconds",
    ),
    Setting(
        "REP_UNREACHABLE_ACTION",
        "unreachable_action",
        "drop",
        _choice(UNREACHABLE_ACTIONS),
        help="Once given up on: drop the waiting requests, or let them through",
    ),
    Setting(
        "REP_ROBOTSTXT_TIMEOUT",
        "robotstxt_timeout",
        30.0,
        _number(0.001),
        help="The download timeout of a robots.txt request",
        unit="seconds",
    ),
    Setting(
        "REP_MAX_HELD_REQUESTS",
        "max_held_requests",
        100_000,
        _whole(1),
        help="Requests waiting for a robots.txt kept in memory; more are spilled to disk",
    ),
    Setting(
        "REP_CACHE_TTL",
        "cache_ttl",
        DAY,
        _number(),
        help="How long a robots.txt stays fresh when its response has no `Cache-Control`",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_MIN_TTL",
        "cache_min_ttl",
        60.0,
        _number(),
        help="The shortest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_MAX_TTL",  # at least REP_CACHE_MIN_TTL: checked by RepConfig
        "cache_max_ttl",
        7 * DAY,
        _number(),
        help="The longest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_STALE_MAX",
        "cache_stale_max",
        30 * DAY,
        _number(),
        help="How long an expired robots.txt is still used while its refresh fails",
        unit="seconds",
    ),
    Setting(
        "REP_CACHE_MAX_ORIGINS",
        "cache_max_origins",
        1_000_000,
        _whole(1),
        help="Origins whose robots.txt is kept parsed; the others are kept compressed",
    ),
    Setting(
        "REP_CACHE_MAX_BYTES",
        "cache_max_bytes",
        512 * MIB,
        _whole(1),
        help="The memory every cached robots.txt may take together",
        unit="bytes",
    ),
    Setting(
        "REP_ROBOTSTXT_CONCURRENCY",
        "robotstxt_concurrency",
        None,
        _optional(_whole(1)),
        help="robots.txt downloads at a time",
        shown="half of `CONCURRENT_REQUESTS`",
    ),
    Setting(
        "REP_ROBOTSTXT_CACHE",
        "robotstxt_cache",
        "memory",
        read_store,
        help="Where robots.txt copies are kept: in memory, or in a Redis shared by processes",
    ),
    Setting(
        "REP_LEASE_TIMEOUT",
        "lease_timeout",
        None,
        _optional(_number(0.1)),
        help="How long one process may hold an origin's download (shared cache)",
        unit="seconds",
        shown="six robots.txt timeouts plus 5 s",
    ),
    Setting(
        "REP_REPORT",
        "report",
        False,
        read_bool,
        help="At the end, a report of what happened to each origin and URL, and why",
    ),
    Setting(
        "REP_REPORT_FILE",
        "report_file",
        "",
        read_str,
        help="The file the report is written to (setting it turns the report on)",
        shown="standard error",
    ),
    Setting(
        "REP_REPORT_MAX_URLS",
        "report_max_urls",
        200,
        _whole(1),
        help="URLs the report lists one by one",
    ),
    Setting(
        "REP_LEDGER",
        "keep_ledger",
        False,
        read_bool,
        help="Keep the ledger of each request's fate for a program that reads it",
    ),
    Setting(
        "REP_NOINDEX_ACTION",
        "noindex_action",
        "drop",
        _choice(ACTIONS),
        help="Items of a `noindex` page: dropped, or kept",
    ),
    Setting(
        "REP_NOFOLLOW_ACTION",
        "nofollow_action",
        "drop",
        _choice(ACTIONS),
        help="Requests from a `nofollow` page: dropped, or kept",
    ),
    Setting(
        "REP_REL_NOFOLLOW",
        "rel_nofollow",
        True,
        read_bool,
        help='Links marked `rel="nofollow"` are not followed',
    ),
    Setting(
        "REP_DIRECTIVE_TOKENS",
        "directive_tokens",
        (),
        read_str_list,
        help="More names whose robots meta tags and `X-Robots-Tag` apply to the crawl",
    ),
    Setting(
        "REP_META_IN_NOSCRIPT",
        "meta_in_noscript",
        True,
        read_bool,
        help="Robots meta tags inside `<noscript>` count",
    ),
    Setting(
        "REP_PURPOSE",
        "purpose",
        ("search",),
        read_purposes,
        help="What the crawl is for: `search`, `ai-train`, `ai-input`",
    ),
    Setting(
        "REP_PURPOSE_ACTION",
        "purpose_action",
        "drop",
        _choice(PURPOSE_ACTIONS),
        help="Items of a page denied for a purpose of the crawl: dropped, or marked",
    ),
    Setting(
        "REP_PURPOSE_UNKNOWN",
        "purpose_unknown",
        "allow",
        _choice(UNKNOWN_ANSWERS),
        help="What a purpose no signal speaks about means: allowed, or denied",
    ),
    Setting(
        "REP_PURPOSE_AGENTS",
        "purpose_agents",
        (),
        read_purpose_agents,
        help="More crawlers whose robots.txt groups the crawl obeys (`GPTBot`…, `preset:…`)",
    ),
    Setting(
        "REP_ITEM_PREFERENCES_FIELD",
        "item_preferences_field",
        "",
        read_str,
        help="An item field that gets its page's AI-usage preferences",
        shown="off",
    ),
    Setting(
        "REP_NOARCHIVE_MEANS_NO_AI_TRAIN",
        "noarchive_means_no_ai_train",
        True,
        read_bool,
        help="`noarchive` is a no for `ai-train`",
    ),
    Setting(
        "REP_NOARCHIVE_MEANS_NO_AI_INPUT",
        "noarchive_means_no_ai_input",
        True,
        read_bool,
        help="`noarchive` is a no for `ai-input` too",
    ),
    Setting(
        "REP_NOCACHE_MEANS_NO_AI_TRAIN",
        "nocache_means_no_ai_train",
        True,
        read_bool,
        help="`nocache` is a no for `ai-train`, as `noarchive` is",
    ),
    Setting(
        "REP_NOSNIPPET_MEANS_NO_AI_INPUT",
        "nosnippet_means_no_ai_input",
        True,
        read_bool,
        help="`nosnippet` and `max-snippet:0` are a no for `ai-input`",
    ),
    Setting(
        "REP_MEDIA_USAGE",
        "media_usage",
        True,
        read_bool,
        help="Read the opt-outs inside downloaded files (AI purposes)",
    ),
    Setting(
        "REP_MEDIA_CONSTRAINTS_MET",
        "media_constraints_met",
        False,
        read_bool,
        help="The crawl meets the constraints a file's statements may set",
    ),
    Setting(
        "REP_MEDIA_NOINDEX_MEANS_NO_AI",
        "media_noindex_means_no_ai",
        True,
        read_bool,
        help="A file's `noindex` or `noimageindex` is a no for the AI purposes",
    ),
    Setting(
        "REP_MEDIA_C2PA",
        "media_c2pa",
        True,
        read_bool,
        help="Read C2PA manifests (when `c2pa-python` is installed)",
    ),
    Setting(
        "REP_MEDIA_MAX_SCAN_BYTES",
        "media_max_scan_bytes",
        32 * MIB,
        _whole(1024),
        help="Bytes of a downloaded file searched for its statements",
        unit="bytes",
    ),
    Setting(
        "REP_MEDIA_MAX_PACKET_BYTES",
        "media_max_packet_bytes",
        MIB,
        _whole(1024),
        help="The longest XMP packet read",
        unit="bytes",
    ),
    Setting(
        "REP_MEDIA_MAX_PACKETS",
        "media_max_packets",
        16,
        _whole(1),
        help="XMP packets parsed per file (64 times as many more are searched)",
    ),
    Setting(
        "REP_RSL_LICENSES",
        "rsl_licenses",
        (),
        read_url_list,
        help="The RSL licenses the crawl holds (their URLs)",
    ),
    Setting(
        "REP_RSL_MAX_LICENSES",
        "rsl_max_licenses",
        8,
        _whole(1),
        help="RSL licenses read per robots.txt or page; with more, none: every purpose refused",
    ),
    Setting(
        "REP_OVERRIDES",
        "overrides",
        (),
        read_overrides,
        help="Hosts whose owner allowed going past their robots.txt: who, until when",
    ),
    Setting(
        "REP_AUDIT_FILE",
        "audit_file",
        "",
        read_str,
        help="The audit trail: a record of each request's fate and what decided it",
        shown="no trail",
    ),
    Setting(
        "REP_AUDIT_REQUIRED",
        "audit_required",
        True,
        read_bool,
        help="A trail that cannot be written stops the crawl",
    ),
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
    #: Keep the ledger of each request's fate without a trail or report: a program that
    #: reads it (:func:`scrapy_rep.crawl.auditing.read_urls`: the command-line tools).
    keep_ledger: bool
    noindex_action: str
    nofollow_action: str
    rel_nofollow: bool
    directive_tokens: tuple[str, ...]
    meta_in_noscript: bool
    #: What the crawl is for: ``("search",)`` unless set.
    purpose: tuple[str, ...]
    purpose_action: str
    purpose_unknown: str
    #: More product tokens whose robots.txt groups the crawl obeys (``GPTBot``…), each
    #: ``preset:NAME`` entry expanded into its names (:mod:`scrapy_rep.usage.agentpresets`).
    purpose_agents: tuple[str, ...]
    #: ``""``: off; else the item field each kept item gets its page's preferences in
    #: (the form of an ``audit export`` line's, docs/audit-trail.md).
    item_preferences_field: str
    #: A page's (or a file's) ``noarchive`` is a no for ai-train, as Bing and Amazon read
    #: it (docs/decisions.md, 'noarchive is a no for AI training').
    noarchive_means_no_ai_train: bool
    #: A page's (or a file's) ``noarchive`` is a no for ai-input too, as Bing's rewritten
    #: guidelines read it for Copilot and grounding (docs/decisions.md, 'noarchive is a no
    #: for AI input too').
    noarchive_means_no_ai_input: bool
    #: A page's (or a file's) ``nocache`` is read like ``noarchive``, a no for ai-train, as
    #: Bing reads it (docs/decisions.md, 'nocache is read like noarchive').
    nocache_means_no_ai_train: bool
    #: A page's (or a file's) ``nosnippet`` and ``max-snippet:0`` are a no for ai-input, as
    #: Google reads them for AI Overviews and AI Mode (docs/decisions.md, 'nosnippet is a
    #: no for AI input').
    nosnippet_means_no_ai_input: bool
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
    #: The most RSL licenses read per robots.txt for the crawler, and per page; a robots.txt
    #: or page naming more has none read and refuses every purpose (docs/decisions.md).
    rsl_max_licenses: int
    #: ``REP_OVERRIDES``: ``(host, reason, expires)`` of each authorized override.
    overrides: tuple[tuple[str, str, str], ...]
    audit_file: str
    #: ``False``: a crawl whose trail cannot be written goes on without it (a WARNING).
    audit_required: bool

    @property
    def ledger(self) -> bool:
        """Whether the crawl keeps a ledger of each requested URL's fate: its audit trail,
        its end-of-crawl report or a program reads it (``REP_AUDIT_FILE``, ``REP_REPORT``,
        ``REP_REPORT_FILE``, ``REP_LEDGER``); a crawl with none keeps none, and pays
        nothing."""
        return bool(self.audit_file or self.report or self.report_file or self.keep_ledger)

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

#: Scrapy's boolean settings that our components read, each with the one boolean reader
#: (:func:`~scrapy_rep.settings.readers.read_bool`): Scrapy's ``getbool`` stops a crawl
#: with a traceback on ``"ture"`` and reads ``2`` as true; a reader of its own would
#: read ``"ture"`` or ``"off"`` as false, robots.txt turned off by a typo.
SCRAPY_BOOLEANS: Final = ("ROBOTSTXT_OBEY",)


def read_config(settings: SettingsLike) -> RepConfig:
    """The settings as a crawl reads them at start: every ``REP_*`` setting validated
    (:meth:`RepConfig.from_settings`) and each of :data:`SCRAPY_BOOLEANS` checked by the
    one boolean reader. The one reader of the crawl (:func:`scrapy_rep.crawl.startup.
    validate`), ``recheck`` and its datatrove step, so that none of them reads a value
    another refuses. Raises :class:`RepSettingError` naming the setting."""
    config = RepConfig.from_settings(settings)
    for name in SCRAPY_BOOLEANS:
        read_bool(settings, name, False)
    return config


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
    values = {s.name: getattr(config, s.field) for s in SETTINGS}
    values = {k: _json_list(v) for k, v in values.items()}
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


def lifecycle_policy(
    config: RepConfig,
    settings: SettingsLike,
    timeout: float,
    store: str | None,
    store_exclusive: bool = False,
) -> Policy:
    """The numbers of SPEC §4 for :class:`scrapy_rep.fetch.lifecycle.Lifecycle`;
    ``store_exclusive``: the store is this process's alone (``JOBDIR``)."""
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
        store_exclusive=store_exclusive,
    )


def directive_readings(config: RepConfig) -> DirectiveReadings:
    """The search directives the crawl reads as AI opt-outs, from their four settings
    (the crawl's page pass, its media gate and ``scrapy rep-robots`` ask the same)."""
    return DirectiveReadings(
        noarchive_no_train=config.noarchive_means_no_ai_train,
        noarchive_no_input=config.noarchive_means_no_ai_input,
        nocache_no_train=config.nocache_means_no_ai_train,
        nosnippet_no_input=config.nosnippet_means_no_ai_input,
    )


def crawl_delay_obeyed(config: RepConfig) -> bool:
    """Whether ``Crawl-delay`` sets download delays: ``REP_OBEY_CRAWL_DELAY`` (yes by
    default in every profile: docs/deviations.md). The crawl and its report ask the same."""
    return config.obey_crawl_delay


def overrides_of(entries: Iterable[Any]) -> list[Override]:
    """The :class:`Override` of each ``(host, reason, expires)`` of ``REP_OVERRIDES`` (as
    :func:`read_overrides` reads it, or a run header holds it), its expiry read by
    :func:`override_expiry`; an entry that is not one is left out (it covers nothing)."""
    found = []
    for entry in entries:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            continue
        host, reason, expires = entry
        expiry = override_expiry(expires)
        if isinstance(host, str) and isinstance(reason, str) and expiry is not None:
            found.append(Override(host, reason, *expiry))
    return found


def request_rules(
    config: RepConfig, purpose_set: bool, policy: UsagePolicy | None = None
) -> RequestRules:
    """The settings that decide a request (:func:`scrapy_rep.verdict.decide`), for the crawl
    and ``scrapy rep-robots``, so that they cannot drift. ``purpose_set``: ``REP_PURPOSE``
    was set (not only its default), so its opt-outs hold even when robots.txt is not
    obeyed, and RSL licenses are read. ``policy``: the purposes a tool was asked about
    (``--purpose``) instead of ``REP_PURPOSE``'s. With the audit trail on, an allowed
    request keeps robots.txt's deciding line."""
    rules = RequestRules.of(
        config.purpose,
        config.purpose_unknown,
        config.purpose_agents,
        purpose_set=purpose_set,
        rsl_licenses=config.rsl_licenses,
        overrides=overrides_of(config.overrides),
        explain=bool(config.audit_file),
        max_licenses=config.rsl_max_licenses,
    )
    return replace(rules, policy=usage_policy(config) if policy is None else policy)


def usage_policy(config: RepConfig) -> UsagePolicy:
    """The crawl's purposes held against the sites' signals (``REP_PURPOSE``,
    ``REP_PURPOSE_UNKNOWN``, the directive readings): the one policy of a request's
    verdict and a page's."""
    return UsagePolicy.of(
        config.purpose, config.purpose_unknown, readings=directive_readings(config)
    )


def page_rules(config: RepConfig, policy: UsagePolicy | None = None) -> PageRules:
    """The settings that decide a fetched page or file
    (:func:`scrapy_rep.verdict.page.decide_page`), for the crawl's page pass, its media gate
    and ``scrapy rep-robots``, so that they cannot drift. ``policy``: the purposes a tool
    was asked about (``--purpose``) instead of ``REP_PURPOSE``'s."""
    return PageRules(
        usage_policy(config) if policy is None else policy, config.media_noindex_means_no_ai
    )
