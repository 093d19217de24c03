"""SPEC §4 fetch policy, table-driven."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from scrapy_rep.fetch.policy import (
    Effect,
    cache_lifetime,
    effect_of_status,
    may_follow,
    retry_after_seconds,
    retry_delay,
)

STATUS_CASES = [
    (200, Effect.PARSE),
    (204, Effect.PARSE),
    (301, Effect.FOLLOW),
    (308, Effect.FOLLOW),
    (400, Effect.ALLOW_ALL),
    (401, Effect.ALLOW_ALL),
    (403, Effect.ALLOW_ALL),
    (404, Effect.ALLOW_ALL),
    (410, Effect.ALLOW_ALL),
    (429, Effect.UNREACHABLE),
    (500, Effect.UNREACHABLE),
    (503, Effect.UNREACHABLE),
    (599, Effect.UNREACHABLE),
]


@pytest.mark.parametrize(("status", "effect"), STATUS_CASES, ids=[str(s) for s, _ in STATUS_CASES])
def test_spec4_status_effects(status: int, effect: Effect) -> None:
    assert effect_of_status(status) is effect


def test_spec4_redirect_without_location_is_like_404() -> None:
    assert effect_of_status(302, has_location=False) is Effect.ALLOW_ALL


NOW = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 0 ", 0.0),
        ("Sun, 22 Nov 2026 12:05:00 GMT", 300.0),
        ("Sun, 22 Nov 2026 11:00:00 GMT", 0.0),  # in the past: now
        ("soon", None),
        ("-5", None),
        (None, None),
    ],
)
def test_spec4_retry_after_seconds_or_http_date(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, NOW) == seconds


def test_spec4_retry_backoff_honours_retry_after_and_cap() -> None:
    assert [retry_delay(n, 10, 1000, None) for n in range(4)] == [10, 20, 40, 80]
    assert retry_delay(0, 10, 1000, 300) == 300
    assert retry_delay(20, 10, 1000, None) == 1000
    assert retry_delay(1000, 10, 1000, None) == 1000  # no overflow


CACHE_CASES = [
    (None, 86400),
    ("public", 86400),
    ("max-age=3600", 3600),
    ("public, max-age=172800", 172800),
    ("max-age=10", 60),  # below the minimum
    ("max-age=99999999", 604800),  # above the maximum
    ("s-maxage=7200, max-age=60", 7200),
    ('max-age="600"', 600),
    ("no-store", 60),
    ("no-cache", 60),
    ("max-age=abc", 86400),
]


@pytest.mark.parametrize(("header", "lifetime"), CACHE_CASES, ids=[str(h) for h, _ in CACHE_CASES])
def test_spec4_cache_control_max_age_within_bounds(header: str | None, lifetime: float) -> None:
    assert cache_lifetime(header, default=86400, minimum=60, maximum=604800) == lifetime


@pytest.mark.parametrize(
    ("url", "followed"),
    [
        ("https://other.example/robots.txt", True),
        ("HTTP://other.example:8080/r", True),
        ("file:///dev/zero", False),
        ("data:text/plain,Disallow:", False),
        ("ftp://other.example/robots.txt", False),
        ("http:///no-host", False),
        ("http://[oops/robots.txt", False),
        ("http://other.example:99999/", False),
    ],
)
def test_spec7_robotstxt_redirects_only_to_http_urls(url: str, followed: bool) -> None:
    assert may_follow(url) is followed


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("9" * 400, 365 * 86_400.0),
        ("9" * 5000, 365 * 86_400.0),
        ("31536001", 365 * 86_400.0),
        ("²", None),
        ("١٢", None),  # Arabic-Indic digits pass str.isdigit() too
        ("-5", None),
        ("1e3", None),
        (" 12 ", 12.0),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 365 * 86_400.0),
        ("Fri, 31 Dec 99999 23:59:59 GMT", None),
        ("Mon, 01 Jan 0001 00:00:00 +1400", 0.0),
    ],
)
def test_spec4_odd_retry_after_values_are_clamped_or_absent_never_an_error(
    value: str, seconds: float | None
) -> None:
    assert retry_after_seconds(value) == seconds
