"""The ``REP_*`` settings read and validated (SPEC §5): :class:`RepConfig` holds a value
per setting, its fields the table's two parts, those of
:class:`~rep_engine.settings.table.FetchSettings`, then its own (docs/settings.md, from
'Page-level directives'); :data:`SETTINGS` is its rows, and :func:`read_config` reads
them as a crawl does at start."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rep_engine.settings.overrides import read_overrides
from rep_engine.settings.readers import (
    RepSettingError,
    SettingsLike,
    _choice,
    _whole,
    read_bool,
    read_purpose_agents,
    read_purposes,
    read_str,
    read_str_list,
    read_url_list,
)
from rep_engine.settings.table import (
    ACTIONS,
    MIB,
    PURPOSE_ACTIONS,
    UNKNOWN_ANSWERS,
    FetchSettings,
    setting,
    settings_of,
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
        help="Origins a recheck keeps parsed, and whose names and captures it holds in memory",
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
