"""All ``REP_*`` settings, read once and validated (SPEC §5).

:data:`SETTINGS` is the one table of (setting, default, reader): every default is
written there and nowhere else. Its rows (:class:`Setting`) are the fields of
:class:`RepConfig`, each a :func:`setting` with its default, reader and docs, in two
parts: those of :class:`FetchSettings` (docs/settings.md, up to 'Report'), then
:class:`RepConfig`'s own (from 'Page-level directives'). A crawl reads it once per
crawler (:func:`scrapy_rep.crawl.config.config_of`, which every component calls;
:func:`read_config` reads it as a crawl does at start); the add-on and the commands read
it from their settings (so a wrong value stops the crawl at start); a wrong value raises
:class:`~rep_engine.settings.readers.RepSettingError`, naming the setting and the
accepted values. Pure: reads anything with a ``get(name, default)`` method.

Also the settings that decide a crawl resumed from ``JOBDIR`` (:data:`DECIDING`) and the
settings in force (:func:`settings_in_force`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Final, Literal

from rep_engine.robotstxt import profiles
from rep_engine.settings.readers import (
    Reader,
    RepSettingError,
    SettingsLike,
    _choice,
    _number,
    _optional,
    _whole,
    read_bool,
    read_https_url,
    read_overrides,
    read_purpose_agents,
    read_purposes,
    read_store,
    read_str,
    read_str_list,
    read_url_list,
)

#: The ``REP_PROFILE`` names: those of :data:`rep_engine.robotstxt.profiles.PROFILES`.
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
    """One ``REP_*`` setting: its :class:`RepConfig` field,
    default and reader, and how docs/settings.md's table shows it (written from these,
    ``docs/_ext/rep_tables.py``): ``help``, one line of what it does; ``unit``, what a
    number counts; ``shown``, the default in words where the value cannot say it
    (``None``: derived; ``""``: off)."""

    name: str
    field: str
    default: Any
    read: Reader
    help: str
    unit: Unit = ""
    shown: str = ""


def setting(
    default: Any, read: Reader, *, help: str, unit: Unit = "", shown: str = "", name: str = ""
) -> Any:
    """A field of the table: its default, reader and docs (:class:`Setting`). The setting's
    name is the field's, in capitals after ``REP_``, unless ``name`` says another."""
    return field(default=default, metadata={"setting": (name, read, help, unit, shown)})


def settings_of(table: type) -> tuple[Setting, ...]:
    """The rows of a table of :func:`setting` fields, in their order."""
    return tuple(
        Setting(name or "REP_" + f.name.upper(), f.name, f.default, read, help, unit, shown)
        for f in fields(table)
        for name, read, help, unit, shown in (f.metadata["setting"],)
    )


@dataclass(frozen=True)
class FetchSettings:
    """The first part of the table, in the order of docs/settings.md: the settings that
    check the others, fetch and cache robots.txt, share its cache and write the report.
    ``REP_CACHE_MAX_TTL`` after ``REP_CACHE_MIN_TTL`` (it may not be smaller); ``None``:
    derived from others."""

    unknown_settings: str = setting(
        "error",
        _choice(UNKNOWN_SETTING_ACTIONS),
        help="What a misspelled `REP_*` name does: stop the crawl, or a WARNING",
    )
    profile: str = setting(
        "google",
        _choice(PROFILES),
        help="How robots.txt is read: as Google does, as RFC 9309 says, or the 1990s drafts",
    )
    #: ``Crawl-delay`` obeyed (capped by ``REP_CRAWL_DELAY_MAX``) in every profile unless
    #: ``False`` (Google's behaviour).
    obey_crawl_delay: bool = setting(
        True,
        read_bool,
        help="Obey robots.txt's `Crawl-delay` between an origin's requests",
    )
    crawl_delay_max: float = setting(
        60.0,
        _number(),
        help="The longest `Crawl-delay` obeyed; a longer one is cut to it",
        unit="seconds",
    )
    unreachable_retry_delay: float = setting(
        30.0,
        _number(0.001),
        help="The wait before a robots.txt that failed is tried again (then doubled)",
        unit="seconds",
    )
    unreachable_max_wait: float = setting(
        600.0,
        _number(),
        help="How long requests wait for an unreachable robots.txt, then give up",
        unit="seconds",
    )
    #: How long a host that cannot be connected to (refused, no such host, TLS) holds
    #: its requests; at most ``unreachable_max_wait``.
    unreachable_connect_max_wait: float = setting(
        10.0,
        _number(),
        help="The same wait for a host that cannot be connected to at all",
        unit="seconds",
    )
    unreachable_action: str = setting(
        "drop",
        _choice(UNREACHABLE_ACTIONS),
        help="Once given up on: drop the waiting requests, or let them through",
    )
    robotstxt_timeout: float = setting(
        30.0,
        _number(0.001),
        help="The download timeout of a robots.txt request",
        unit="seconds",
    )
    max_held_requests: int = setting(
        100_000,
        _whole(1),
        help="Requests waiting for a robots.txt kept in memory; more are spilled to disk",
    )
    cache_ttl: float = setting(
        DAY,
        _number(),
        help="How long a robots.txt stays fresh when its response has no `Cache-Control`",
        unit="seconds",
    )
    cache_min_ttl: float = setting(
        60.0,
        _number(),
        help="The shortest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    )
    #: At least ``REP_CACHE_MIN_TTL``: checked by :class:`RepConfig`.
    cache_max_ttl: float = setting(
        7 * DAY,
        _number(),
        help="The longest freshness `Cache-Control` can give a robots.txt",
        unit="seconds",
    )
    cache_stale_max: float = setting(
        30 * DAY,
        _number(),
        help="How long an expired robots.txt is still used while its refresh fails",
        unit="seconds",
    )
    cache_max_origins: int = setting(
        1_000_000,
        _whole(1),
        help="Origins whose robots.txt is kept parsed; the others are kept compressed",
    )
    cache_max_bytes: int = setting(
        512 * MIB,
        _whole(1),
        help="The memory every cached robots.txt may take together",
        unit="bytes",
    )
    robotstxt_concurrency: int | None = setting(
        None,
        _optional(_whole(1)),
        help="robots.txt downloads at a time",
        shown="half of `CONCURRENT_REQUESTS`",
    )
    robotstxt_cache: str = setting(
        "memory",
        read_store,
        help="Where robots.txt copies are kept: in memory, or in a Redis shared by processes",
    )
    lease_timeout: float | None = setting(
        None,
        _optional(_number(0.1)),
        help="How long one process may hold an origin's download (shared cache)",
        unit="seconds",
        shown="six robots.txt timeouts plus 5 s",
    )
    report: bool = setting(
        False,
        read_bool,
        help="At the end, a report of what happened to each origin and URL, and why",
    )
    report_file: str = setting(
        "",
        read_str,
        help="The file the report is written to (setting it turns the report on)",
        shown="standard error",
    )
    report_max_urls: int = setting(
        200,
        _whole(1),
        help="URLs the report lists one by one",
    )
    #: Keep the ledger of each request's fate without a trail or report: a program that
    #: reads it (:func:`scrapy_rep.crawl.auditing.read_urls`: the command-line tools).
    keep_ledger: bool = setting(
        False,
        read_bool,
        help="Keep the ledger of each request's fate for a program that reads it",
        name="REP_LEDGER",
    )


@dataclass(frozen=True)
class RepConfig(FetchSettings):
    """Every ``REP_*`` setting, validated, with its default, in the order of
    docs/settings.md (the two parts of the module docstring). Its own part: the settings
    that decide a page, its purposes, media, RSL licenses, overrides, the audit trail and
    a recheck's memory."""

    noindex_action: str = setting(
        "drop",
        _choice(ACTIONS),
        help="Items of a `noindex` page: dropped, or kept",
    )
    nofollow_action: str = setting(
        "drop",
        _choice(ACTIONS),
        help="Requests from a `nofollow` page: dropped, or kept",
    )
    rel_nofollow: bool = setting(
        True,
        read_bool,
        help='Links marked `rel="nofollow"` are not followed',
    )
    directive_tokens: tuple[str, ...] = setting(
        (),
        read_str_list,
        help="More names whose robots meta tags and `X-Robots-Tag` apply to the crawl",
    )
    meta_in_noscript: bool = setting(
        True,
        read_bool,
        help="Robots meta tags inside `<noscript>` count",
    )
    purpose: tuple[str, ...] = setting(
        ("search",),
        read_purposes,
        help="What the crawl is for: `search`, `ai-train`, `ai-input`",
    )
    purpose_action: str = setting(
        "drop",
        _choice(PURPOSE_ACTIONS),
        help="Items of a page denied for a purpose of the crawl: dropped, or marked",
    )
    purpose_unknown: str = setting(
        "allow",
        _choice(UNKNOWN_ANSWERS),
        help="What a purpose no signal speaks about means: allowed, or denied",
    )
    #: More product tokens whose robots.txt groups the crawl obeys (``GPTBot``…), each
    #: ``preset:NAME`` entry expanded into its names (:mod:`rep_engine.usage.agentpresets`).
    purpose_agents: tuple[str, ...] = setting(
        (),
        read_purpose_agents,
        help="More crawlers whose robots.txt groups the crawl obeys (`GPTBot`…, `preset:…`)",
    )
    #: ``""``: off; else the item field each kept item gets its page's preferences in
    #: (the form of an ``audit export`` line's, docs/audit-trail.md).
    item_preferences_field: str = setting(
        "",
        read_str,
        help="An item field that gets its page's AI-usage preferences",
        shown="off",
    )
    #: A page's (or a file's) ``noarchive`` is a no for ai-train, as Bing and Amazon read
    #: it (docs/decisions.md, 'noarchive is a no for AI training').
    noarchive_means_no_ai_train: bool = setting(
        True,
        read_bool,
        help="`noarchive` is a no for `ai-train`",
    )
    #: A page's (or a file's) ``noarchive`` is a no for ai-input too, as Bing's rewritten
    #: guidelines read it for Copilot and grounding (docs/decisions.md, 'noarchive is a no
    #: for AI input too').
    noarchive_means_no_ai_input: bool = setting(
        True,
        read_bool,
        help="`noarchive` is a no for `ai-input` too",
    )
    #: A page's (or a file's) ``nocache`` is read like ``noarchive``, a no for ai-train, as
    #: Bing reads it (docs/decisions.md, 'nocache is read like noarchive').
    nocache_means_no_ai_train: bool = setting(
        True,
        read_bool,
        help="`nocache` is a no for `ai-train`, as `noarchive` is",
    )
    #: A page's (or a file's) ``nosnippet`` and ``max-snippet:0`` are a no for ai-input, as
    #: Google reads them for AI Overviews and AI Mode (docs/decisions.md, 'nosnippet is a
    #: no for AI input').
    nosnippet_means_no_ai_input: bool = setting(
        True,
        read_bool,
        help="`nosnippet` and `max-snippet:0` are a no for `ai-input`",
    )
    #: Read the statements inside files downloaded by ``FilesPipeline`` /
    #: ``ImagesPipeline`` (crawls with ai-train or ai-input; see docs/media.md).
    media_usage: bool = setting(
        True,
        read_bool,
        help="Read the opt-outs inside downloaded files (AI purposes)",
    )
    #: The crawl meets the constraints of ``DMI-PROHIBITED-SEE*`` and CAWG ``constrained``.
    media_constraints_met: bool = setting(
        False,
        read_bool,
        help="The crawl meets the constraints a file's statements may set",
    )
    #: ``noindex`` / ``noimageindex`` in a downloaded file's ``X-Robots-Tag``, and a page's
    #: ``noimageindex`` for its images, are a no for ai-train and ai-input (img2dataset's
    #: default; docs/decisions.md, 'noindex on a downloaded file is a no for AI').
    media_noindex_means_no_ai: bool = setting(
        True,
        read_bool,
        help="A file's `noindex` or `noimageindex` is a no for the AI purposes",
    )
    media_c2pa: bool = setting(
        True,
        read_bool,
        help="Read C2PA manifests (when `c2pa-python` is installed)",
    )
    media_max_scan_bytes: int = setting(
        32 * MIB,
        _whole(1024),
        help="Bytes of a downloaded file searched for its statements",
        unit="bytes",
    )
    media_max_packet_bytes: int = setting(
        MIB,
        _whole(1024),
        help="The longest XMP packet read",
        unit="bytes",
    )
    media_max_packets: int = setting(
        16,
        _whole(1),
        help="XMP packets parsed per file (64 times as many more are searched)",
    )
    #: License document or license-server URLs.
    rsl_licenses: tuple[str, ...] = setting(
        (),
        read_url_list,
        help="The RSL licenses the crawl holds (their URLs)",
    )
    #: The most RSL licenses read per robots.txt for the crawler, and per page; a robots.txt
    #: or page naming more has none read and refuses every purpose (docs/decisions.md).
    rsl_max_licenses: int = setting(
        8,
        _whole(1),
        help="RSL licenses read per robots.txt or page; with more, none: every purpose refused",
    )
    #: ``REP_OVERRIDES``: ``(host, reason, expires)`` of each authorized override.
    overrides: tuple[tuple[str, str, str], ...] = setting(
        (),
        read_overrides,
        help="Hosts whose owner allowed going past their robots.txt: who, until when",
    )
    audit_file: str = setting(
        "",
        read_str,
        help="The audit trail: a record of each request's fate and what decided it",
        shown="no trail",
    )
    #: ``False``: a crawl whose trail cannot be written goes on without it (a WARNING).
    audit_required: bool = setting(
        True,
        read_bool,
        help="A trail that cannot be written stops the crawl",
    )
    #: The origins whose documents ``recheck`` keeps parsed (an LRU); the others are
    #: kept compact and made again when asked for (:mod:`rep_recheck.store`).
    recheck_parsed_origins: int = setting(
        20_000,
        _whole(1),
        help="Origins a recheck keeps parsed (50 times as many names and captures held)",
    )
    #: Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol-01): every request the crawl
    #: sends is signed with this key (:mod:`scrapy_rep.crawl.webbotauth`); ``""``: none
    #: is. The file is read at start (:mod:`rep_engine.keys`), not here: the table stays
    #: pure, and a trail's header is read back without it.
    web_bot_auth_key: str = setting(
        "",
        read_str,
        help="The Ed25519 private key file every request is signed with (Web Bot Auth)",
        shown="off",
    )
    #: The ``Signature-Agent``: where sites find the key directory. Required with the key.
    web_bot_auth_agent: str = setting(
        "",
        read_https_url,
        help="The https URL of your key directory, sent with each signed request",
        shown="none",
    )
    #: ``expires`` minus ``created``: the draft recommends no more than 24 hours.
    web_bot_auth_lifetime: int = setting(
        300,
        _whole(1, 86_400),
        help="How long a request's signature is valid after it is sent",
        unit="seconds",
    )
    #: ``http://`` requests signed too: the draft (§6.1, "Use of TLS") says a signature
    #: sent in clear can be replayed by whoever sees it; off, they go unsigned.
    web_bot_auth_http: bool = setting(
        False,
        read_bool,
        help="Sign http:// requests too (their signatures travel in clear)",
    )
    #: The key id of a published test key (RFC 9421 Appendix B.1.4's, RFC 8037
    #: Appendix A.1's) a crawl may sign with; any other use of one stops it at start
    #: (draft §6.8: "MUST NOT be used in production"; :data:`rep_engine.keys.TEST_KEYS`).
    allow_test_key: str = setting(
        "",
        read_str,
        help="The key id of a published test key a test crawl may sign with",
        shown="none",
    )
    #: The trail's tree heads (docs/audit-trail.md, "Tree heads"): each is signed with
    #: this Ed25519 key; ``""``: unsigned. Read at start, as the Web Bot Auth key is
    #: (the writers of the trail, with :mod:`rep_engine.keys`), not here.
    audit_signing_key: str = setting(
        "",
        read_str,
        help="The Ed25519 private key file the trail's tree head of each run is signed with",
        shown="unsigned",
    )
    #: The origin of the trail's checkpoints (c2sp.org/tlog-checkpoint), the name its
    #: witnesses know its log by; ``""``: named after the key and the trail
    #: (:func:`rep_engine.trail.file.origin_of_trail`).
    audit_log_origin: str = setting(
        "",
        read_str,
        help="The name of the trail's log in its signed checkpoints, as its witnesses know it",
        shown="after the key and the trail",
    )
    #: A file each tree head is also appended to, one JSON line per run: kept where the
    #: trail's keeper cannot rewrite it, it anchors ``audit verify --head``.
    audit_head_file: str = setting(
        "",
        read_str,
        help="A file outside the job's folder each run's tree head is also appended to",
        shown="none",
    )

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
        key, agent = values["web_bot_auth_key"], values["web_bot_auth_agent"]
        if bool(key) != bool(agent):
            missing, given = (
                ("REP_WEB_BOT_AUTH_AGENT", "REP_WEB_BOT_AUTH_KEY")
                if key
                else ("REP_WEB_BOT_AUTH_KEY", "REP_WEB_BOT_AUTH_AGENT")
            )
            raise RepSettingError(
                f"{missing}: required with {given} (Web Bot Auth signs requests with the "
                "key, and names the https URL of its key directory in Signature-Agent)"
            )
        return cls(**values)

    @classmethod
    def defaults(cls) -> RepConfig:
        return cls.from_settings({})


#: Every ``REP_*`` setting, in the order of docs/settings.md (the docs build writes its
#: table from this one, and each setting needs its section there).
SETTINGS: Final = settings_of(RepConfig)

#: Scrapy's boolean settings that our components read, each with the one boolean reader
#: (:func:`~rep_engine.settings.readers.read_bool`): Scrapy's ``getbool`` stops a crawl
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
    Scrapy's ``ROBOTSTXT_OBEY``, ``ROBOTSTXT_USER_AGENT``, ``REMOTE_CONTROL_ENABLED`` and
    ``TELNETCONSOLE_ENABLED`` (:data:`STEERING`, :func:`remote_control`): the run header's
    ``settings``, and what a ``JOBDIR`` crawl keeps to compare its resumed runs with."""
    values = {s.name: _json_list(getattr(config, s.field)) for s in SETTINGS}
    values["ROBOTSTXT_OBEY"] = read_bool(settings, "ROBOTSTXT_OBEY", False)
    values["ROBOTSTXT_USER_AGENT"] = settings.get("ROBOTSTXT_USER_AGENT")
    values.update((name, remote_control(settings, name)) for name in STEERING)
    return values


#: Scrapy 2.19's setting of its ``RemoteControl`` extension
#: (``scrapy/extensions/remote_control.py``: on by default, an HTTP server on localhost
#: that runs the Python code a local client sends inside the crawl).
REMOTE_CONTROL: Final = "REMOTE_CONTROL_ENABLED"
#: Scrapy's settings that let someone steer a crawl from outside as it runs, which the run
#: header records: its RemoteControl, and its telnet console
#: (``scrapy/extensions/telnet.py``: on by default where Twisted's conch is installed, a
#: Python shell on a local port, behind the password the crawl logs).
STEERING: Final = (REMOTE_CONTROL, "TELNETCONSOLE_ENABLED")
#: What the run header says of a setting of :data:`STEERING` the settings do not have.
NO_SUCH_SETTING: Final = "absent"


def remote_control(settings: SettingsLike, name: str = REMOTE_CONTROL) -> bool | str:
    """``REMOTE_CONTROL_ENABLED`` (or another of :data:`STEERING`) as the crawl had it,
    read as Scrapy's ``getbool`` reads it; :data:`NO_SUCH_SETTING` when the settings
    have no such name (a Scrapy before 2.19, whose defaults lack it, and nobody set it; a re-check
    without Scrapy). A value Scrapy could not read is kept as text."""
    value = settings.get(name)
    if value is None:
        return NO_SUCH_SETTING
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
