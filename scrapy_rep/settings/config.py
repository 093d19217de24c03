"""The ``REP_*`` settings read and validated: :class:`RepConfig` holds a value per row of
:data:`SETTINGS`, :func:`read_config` reads them as a crawl does at start (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

from scrapy_rep.settings.page_table import PAGE_SETTINGS
from scrapy_rep.settings.readers import RepSettingError, SettingsLike, read_bool
from scrapy_rep.settings.table import FETCH_SETTINGS

#: Every ``REP_*`` setting, in the order of docs/settings.md (the docs build writes its
#: table from this one, and each setting needs its section there).
#: ``REP_CACHE_MAX_TTL`` must come after ``REP_CACHE_MIN_TTL`` (it may not be smaller).
SETTINGS: Final = (*FETCH_SETTINGS, *PAGE_SETTINGS)


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
    #: The origins whose documents ``recheck`` keeps parsed (an LRU); the others are
    #: kept compact and made again when asked for (:mod:`scrapy_rep.recheck.store`).
    recheck_parsed_origins: int

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
