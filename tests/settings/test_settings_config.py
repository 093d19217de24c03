"""Every ``REP_*`` setting, now that :class:`RepConfig`'s fields are the settings table,
is read under the name, into the field and with the default it had as a row of the
table before (its name derived from the field's: ``REP_`` and the field in capitals,
``REP_LEDGER`` the one exception), and a misspelt value (``"ture"``) of each setting
that refused one still stops the crawl at start, naming the setting."""

from __future__ import annotations

import re
from typing import Any

import pytest

from rep_engine.settings import SETTINGS, RepConfig, read_config
from rep_engine.settings.readers import RepSettingError

#: (name, field, default) of every setting, in order, as the table held them before.
BEFORE: tuple[tuple[str, str, Any], ...] = (
    ("REP_UNKNOWN_SETTINGS", "unknown_settings", "error"),
    ("REP_PROFILE", "profile", "google"),
    ("REP_OBEY_CRAWL_DELAY", "obey_crawl_delay", True),
    ("REP_CRAWL_DELAY_MAX", "crawl_delay_max", 60.0),
    ("REP_UNREACHABLE_RETRY_DELAY", "unreachable_retry_delay", 30.0),
    ("REP_UNREACHABLE_MAX_WAIT", "unreachable_max_wait", 600.0),
    ("REP_UNREACHABLE_CONNECT_MAX_WAIT", "unreachable_connect_max_wait", 10.0),
    ("REP_UNREACHABLE_ACTION", "unreachable_action", "drop"),
    ("REP_ROBOTSTXT_TIMEOUT", "robotstxt_timeout", 30.0),
    ("REP_MAX_HELD_REQUESTS", "max_held_requests", 100000),
    ("REP_CACHE_TTL", "cache_ttl", 86400.0),
    ("REP_CACHE_MIN_TTL", "cache_min_ttl", 60.0),
    ("REP_CACHE_MAX_TTL", "cache_max_ttl", 604800.0),
    ("REP_CACHE_STALE_MAX", "cache_stale_max", 2592000.0),
    ("REP_CACHE_MAX_ORIGINS", "cache_max_origins", 1000000),
    ("REP_CACHE_MAX_BYTES", "cache_max_bytes", 536870912),
    ("REP_ROBOTSTXT_CONCURRENCY", "robotstxt_concurrency", None),
    ("REP_ROBOTSTXT_CACHE", "robotstxt_cache", "memory"),
    ("REP_LEASE_TIMEOUT", "lease_timeout", None),
    ("REP_REPORT", "report", False),
    ("REP_REPORT_FILE", "report_file", ""),
    ("REP_REPORT_MAX_URLS", "report_max_urls", 200),
    ("REP_LEDGER", "keep_ledger", False),
    ("REP_NOINDEX_ACTION", "noindex_action", "drop"),
    ("REP_NOFOLLOW_ACTION", "nofollow_action", "drop"),
    ("REP_REL_NOFOLLOW", "rel_nofollow", True),
    ("REP_DIRECTIVE_TOKENS", "directive_tokens", ()),
    ("REP_META_IN_NOSCRIPT", "meta_in_noscript", True),
    ("REP_PURPOSE", "purpose", ("search",)),
    ("REP_PURPOSE_ACTION", "purpose_action", "drop"),
    ("REP_PURPOSE_UNKNOWN", "purpose_unknown", "allow"),
    ("REP_PURPOSE_AGENTS", "purpose_agents", ()),
    ("REP_ITEM_PREFERENCES_FIELD", "item_preferences_field", ""),
    ("REP_NOARCHIVE_MEANS_NO_AI_TRAIN", "noarchive_means_no_ai_train", True),
    ("REP_NOARCHIVE_MEANS_NO_AI_INPUT", "noarchive_means_no_ai_input", True),
    ("REP_NOCACHE_MEANS_NO_AI_TRAIN", "nocache_means_no_ai_train", True),
    ("REP_NOSNIPPET_MEANS_NO_AI_INPUT", "nosnippet_means_no_ai_input", True),
    ("REP_MEDIA_USAGE", "media_usage", True),
    ("REP_MEDIA_CONSTRAINTS_MET", "media_constraints_met", False),
    ("REP_MEDIA_NOINDEX_MEANS_NO_AI", "media_noindex_means_no_ai", True),
    ("REP_MEDIA_C2PA", "media_c2pa", True),
    ("REP_MEDIA_MAX_SCAN_BYTES", "media_max_scan_bytes", 33554432),
    ("REP_MEDIA_MAX_PACKET_BYTES", "media_max_packet_bytes", 1048576),
    ("REP_MEDIA_MAX_PACKETS", "media_max_packets", 16),
    ("REP_RSL_LICENSES", "rsl_licenses", ()),
    ("REP_RSL_MAX_LICENSES", "rsl_max_licenses", 8),
    ("REP_OVERRIDES", "overrides", ()),
    ("REP_AUDIT_FILE", "audit_file", ""),
    ("REP_AUDIT_REQUIRED", "audit_required", True),
    ("REP_RECHECK_PARSED_ORIGINS", "recheck_parsed_origins", 20000),
    # added since: Web Bot Auth's (docs/keys.md)
    ("REP_WEB_BOT_AUTH_KEY", "web_bot_auth_key", ""),
    ("REP_WEB_BOT_AUTH_AGENT", "web_bot_auth_agent", ""),
    ("REP_WEB_BOT_AUTH_LIFETIME", "web_bot_auth_lifetime", 300),
    ("REP_WEB_BOT_AUTH_HTTP", "web_bot_auth_http", False),
    ("REP_ALLOW_TEST_KEY", "allow_test_key", ""),
    # added since: the trail's tree heads (docs/audit-trail.md)
    ("REP_AUDIT_SIGNING_KEY", "audit_signing_key", ""),
    ("REP_AUDIT_LOG_ORIGIN", "audit_log_origin", ""),
    ("REP_AUDIT_HEAD_FILE", "audit_head_file", ""),
)
#: The settings whose reader refused "ture" before, naming the setting.
REFUSE_TURE: tuple[str, ...] = (
    "REP_UNKNOWN_SETTINGS",
    "REP_PROFILE",
    "REP_OBEY_CRAWL_DELAY",
    "REP_CRAWL_DELAY_MAX",
    "REP_UNREACHABLE_RETRY_DELAY",
    "REP_UNREACHABLE_MAX_WAIT",
    "REP_UNREACHABLE_CONNECT_MAX_WAIT",
    "REP_UNREACHABLE_ACTION",
    "REP_ROBOTSTXT_TIMEOUT",
    "REP_MAX_HELD_REQUESTS",
    "REP_CACHE_TTL",
    "REP_CACHE_MIN_TTL",
    "REP_CACHE_MAX_TTL",
    "REP_CACHE_STALE_MAX",
    "REP_CACHE_MAX_ORIGINS",
    "REP_CACHE_MAX_BYTES",
    "REP_ROBOTSTXT_CONCURRENCY",
    "REP_ROBOTSTXT_CACHE",
    "REP_LEASE_TIMEOUT",
    "REP_REPORT",
    "REP_REPORT_MAX_URLS",
    "REP_LEDGER",
    "REP_NOINDEX_ACTION",
    "REP_NOFOLLOW_ACTION",
    "REP_REL_NOFOLLOW",
    "REP_META_IN_NOSCRIPT",
    "REP_PURPOSE",
    "REP_PURPOSE_ACTION",
    "REP_PURPOSE_UNKNOWN",
    "REP_NOARCHIVE_MEANS_NO_AI_TRAIN",
    "REP_NOARCHIVE_MEANS_NO_AI_INPUT",
    "REP_NOCACHE_MEANS_NO_AI_TRAIN",
    "REP_NOSNIPPET_MEANS_NO_AI_INPUT",
    "REP_MEDIA_USAGE",
    "REP_MEDIA_CONSTRAINTS_MET",
    "REP_MEDIA_NOINDEX_MEANS_NO_AI",
    "REP_MEDIA_C2PA",
    "REP_MEDIA_MAX_SCAN_BYTES",
    "REP_MEDIA_MAX_PACKET_BYTES",
    "REP_MEDIA_MAX_PACKETS",
    "REP_RSL_LICENSES",
    "REP_RSL_MAX_LICENSES",
    "REP_OVERRIDES",
    "REP_AUDIT_REQUIRED",
    "REP_RECHECK_PARSED_ORIGINS",
)


def test_every_setting_keeps_its_name_field_and_default() -> None:
    assert [(s.name, s.field, s.default) for s in SETTINGS] == list(BEFORE)
    defaults = RepConfig.defaults()
    for name, field, default in BEFORE:
        assert getattr(defaults, field) == default, name


@pytest.mark.parametrize("name", REFUSE_TURE)
def test_a_misspelt_value_stops_the_crawl_at_start_naming_the_setting(name: str) -> None:
    settings: dict[str, Any] = {name: "ture"}
    with pytest.raises(RepSettingError, match=f"^{name}: "):
        read_config(settings)


#: The key directory's URL the Web Bot Auth tests name.
DIRECTORY = "https://crawler.example/.well-known/http-message-signatures-directory"


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"REP_WEB_BOT_AUTH_KEY": "key.pem"}, "REP_WEB_BOT_AUTH_AGENT: required with REP_WEB_B"),
        ({"REP_WEB_BOT_AUTH_AGENT": DIRECTORY}, "REP_WEB_BOT_AUTH_KEY: required with REP_WEB_B"),
        ({"REP_WEB_BOT_AUTH_AGENT": "http://crawler.example/"}, "REP_WEB_BOT_AUTH_AGENT: expec"),
        ({"REP_WEB_BOT_AUTH_AGENT": "https://crawler.example/#k"}, "REP_WEB_BOT_AUTH_AGENT: "),
        ({"REP_WEB_BOT_AUTH_AGENT": 'https://c.example/"k'}, "REP_WEB_BOT_AUTH_AGENT: "),
        ({"REP_WEB_BOT_AUTH_AGENT": "https://crawler.example/ä"}, "REP_WEB_BOT_AUTH_AGENT: "),
        ({"REP_WEB_BOT_AUTH_AGENT": "https:///keys"}, "REP_WEB_BOT_AUTH_AGENT: "),
        ({"REP_WEB_BOT_AUTH_LIFETIME": 0}, "REP_WEB_BOT_AUTH_LIFETIME: expected a number of at "),
        ({"REP_WEB_BOT_AUTH_LIFETIME": 86_401}, "REP_WEB_BOT_AUTH_LIFETIME: expected a number "),
        ({"REP_WEB_BOT_AUTH_LIFETIME": 1.5}, "REP_WEB_BOT_AUTH_LIFETIME: expected a whole "),
    ],
)
def test_web_bot_auth_needs_a_key_and_an_https_agent_together(
    settings: dict[str, Any], error: str
) -> None:
    """A key without the agent, or an agent without a key, would sign nothing or sign
    without saying where the key is: the crawl stops at start naming what is missing. The
    agent is an absolute https URL in ASCII, without a fragment (draft-ietf-webbotauth-
    httpsig-protocol-01, "Signature-Agent"); the lifetime at most the draft's 24 hours."""
    with pytest.raises(RepSettingError, match=f"^{re.escape(error)}"):
        read_config(settings)


def test_web_bot_auth_settings_read_as_given() -> None:
    config = read_config({"REP_WEB_BOT_AUTH_KEY": "key.pem", "REP_WEB_BOT_AUTH_AGENT": DIRECTORY,
                          "REP_WEB_BOT_AUTH_LIFETIME": "86400"})  # fmt: skip
    assert (config.web_bot_auth_key, config.web_bot_auth_agent) == ("key.pem", DIRECTORY)
    assert config.web_bot_auth_lifetime == 86_400
