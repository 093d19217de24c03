"""The table of every ``REP_*`` setting (SPEC §5), its second part: the names, defaults
and readers of the settings that decide a page, its purposes, media, RSL licenses,
overrides, the audit trail and a recheck's memory (docs/settings.md, from 'Page-level
directives'). Values only, no procedure."""

from __future__ import annotations

from typing import Final

from scrapy_rep.settings.readers import (
    _choice,
    _whole,
    read_bool,
    read_overrides,
    read_purpose_agents,
    read_purposes,
    read_str,
    read_str_list,
    read_url_list,
)
from scrapy_rep.settings.table import ACTIONS, MIB, PURPOSE_ACTIONS, UNKNOWN_ANSWERS, Setting

#: The settings that decide a page, its purposes, media, RSL licenses, overrides and the
#: audit trail, in the order of docs/settings.md.
PAGE_SETTINGS: Final = (
    Setting(
        "REP_NOINDEX_ACTION",
        "drop",
        _choice(ACTIONS),
        help="Items of a `noindex` page: dropped, or kept",
    ),
    Setting(
        "REP_NOFOLLOW_ACTION",
        "drop",
        _choice(ACTIONS),
        help="Requests from a `nofollow` page: dropped, or kept",
    ),
    Setting(
        "REP_REL_NOFOLLOW",
        True,
        read_bool,
        help='Links marked `rel="nofollow"` are not followed',
    ),
    Setting(
        "REP_DIRECTIVE_TOKENS",
        (),
        read_str_list,
        help="More names whose robots meta tags and `X-Robots-Tag` apply to the crawl",
    ),
    Setting(
        "REP_META_IN_NOSCRIPT",
        True,
        read_bool,
        help="Robots meta tags inside `<noscript>` count",
    ),
    Setting(
        "REP_PURPOSE",
        ("search",),
        read_purposes,
        help="What the crawl is for: `search`, `ai-train`, `ai-input`",
    ),
    Setting(
        "REP_PURPOSE_ACTION",
        "drop",
        _choice(PURPOSE_ACTIONS),
        help="Items of a page denied for a purpose of the crawl: dropped, or marked",
    ),
    Setting(
        "REP_PURPOSE_UNKNOWN",
        "allow",
        _choice(UNKNOWN_ANSWERS),
        help="What a purpose no signal speaks about means: allowed, or denied",
    ),
    Setting(
        "REP_PURPOSE_AGENTS",
        (),
        read_purpose_agents,
        help="More crawlers whose robots.txt groups the crawl obeys (`GPTBot`…, `preset:…`)",
    ),
    Setting(
        "REP_ITEM_PREFERENCES_FIELD",
        "",
        read_str,
        help="An item field that gets its page's AI-usage preferences",
        shown="off",
    ),
    Setting(
        "REP_NOARCHIVE_MEANS_NO_AI_TRAIN",
        True,
        read_bool,
        help="`noarchive` is a no for `ai-train`",
    ),
    Setting(
        "REP_NOARCHIVE_MEANS_NO_AI_INPUT",
        True,
        read_bool,
        help="`noarchive` is a no for `ai-input` too",
    ),
    Setting(
        "REP_NOCACHE_MEANS_NO_AI_TRAIN",
        True,
        read_bool,
        help="`nocache` is a no for `ai-train`, as `noarchive` is",
    ),
    Setting(
        "REP_NOSNIPPET_MEANS_NO_AI_INPUT",
        True,
        read_bool,
        help="`nosnippet` and `max-snippet:0` are a no for `ai-input`",
    ),
    Setting(
        "REP_MEDIA_USAGE",
        True,
        read_bool,
        help="Read the opt-outs inside downloaded files (AI purposes)",
    ),
    Setting(
        "REP_MEDIA_CONSTRAINTS_MET",
        False,
        read_bool,
        help="The crawl meets the constraints a file's statements may set",
    ),
    Setting(
        "REP_MEDIA_NOINDEX_MEANS_NO_AI",
        True,
        read_bool,
        help="A file's `noindex` or `noimageindex` is a no for the AI purposes",
    ),
    Setting(
        "REP_MEDIA_C2PA",
        True,
        read_bool,
        help="Read C2PA manifests (when `c2pa-python` is installed)",
    ),
    Setting(
        "REP_MEDIA_MAX_SCAN_BYTES",
        32 * MIB,
        _whole(1024),
        help="Bytes of a downloaded file searched for its statements",
        unit="bytes",
    ),
    Setting(
        "REP_MEDIA_MAX_PACKET_BYTES",
        MIB,
        _whole(1024),
        help="The longest XMP packet read",
        unit="bytes",
    ),
    Setting(
        "REP_MEDIA_MAX_PACKETS",
        16,
        _whole(1),
        help="XMP packets parsed per file (64 times as many more are searched)",
    ),
    Setting(
        "REP_RSL_LICENSES",
        (),
        read_url_list,
        help="The RSL licenses the crawl holds (their URLs)",
    ),
    Setting(
        "REP_RSL_MAX_LICENSES",
        8,
        _whole(1),
        help="RSL licenses read per robots.txt or page; with more, none: every purpose refused",
    ),
    Setting(
        "REP_OVERRIDES",
        (),
        read_overrides,
        help="Hosts whose owner allowed going past their robots.txt: who, until when",
    ),
    Setting(
        "REP_AUDIT_FILE",
        "",
        read_str,
        help="The audit trail: a record of each request's fate and what decided it",
        shown="no trail",
    ),
    Setting(
        "REP_AUDIT_REQUIRED",
        True,
        read_bool,
        help="A trail that cannot be written stops the crawl",
    ),
    Setting(
        "REP_RECHECK_PARSED_ORIGINS",
        20_000,
        _whole(1),
        help="Origins a recheck keeps parsed, and whose names and captures it holds in memory",
    ),
)
