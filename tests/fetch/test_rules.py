"""SPEC §4 fetch policy, table-driven."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from rep_engine.fetch.rules import (
    Effect,
    FailureClass,
    Policy,
    cache_lifetime,
    effect_of_status,
    may_follow,
    retry_after_seconds,
    retry_delay,
)
from rep_engine.settings import read_config
from rep_engine.settings.rules import lifecycle_policy

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


SHORT_TTL_CASES = [
    (None, 4),  # REP_CACHE_TTL as set: the minimum bounds Cache-Control only
    ("public", 4),
    ("max-age=abc", 4),
    ("max-age=10", 60),  # Cache-Control's age: within the bounds
    ("no-cache", 60),
]


@pytest.mark.parametrize(
    ("header", "lifetime"), SHORT_TTL_CASES, ids=[str(h) for h, _ in SHORT_TTL_CASES]
)
def test_spec4_a_cache_ttl_below_the_minimum_is_kept_without_cache_control(
    header: str | None, lifetime: float
) -> None:
    """docs/settings.md: ``REP_CACHE_MIN_TTL`` bounds what ``Cache-Control`` gives; a
    ``REP_CACHE_TTL`` set shorter is the lifetime of a response without one (a shorter
    lifetime sees a robots.txt's change sooner), never silently lengthened to it."""
    assert cache_lifetime(header, default=4, minimum=60, maximum=604800) == lifetime


def test_spec4_rep_cache_ttl_is_the_lifetime_the_crawl_keeps() -> None:
    """The setting read as a crawl reads it, through its lifecycle's numbers; the
    maximum still caps it (the longest a copy stays fresh, what ``audit verify`` bounds
    ``expires`` by)."""
    short = lifecycle_policy(read_config({"REP_CACHE_TTL": 4}), {}, 180.0, None)
    assert short.lifetime(None) == 4
    settings = {"REP_CACHE_TTL": 30 * 86400, "REP_CACHE_MAX_TTL": 86400}
    assert lifecycle_policy(read_config(settings), {}, 180.0, None).lifetime(None) == 86400


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


WAIT_LIMITS = [
    (FailureClass.SERVER, 600.0),
    (FailureClass.TIMEOUT, 600.0),
    (FailureClass.CONNECTION_LOST, 600.0),
    (FailureClass.DNS_FAILED, 600.0),
    (FailureClass.PROXY, 600.0),
    (FailureClass.OTHER, 600.0),
    (FailureClass.REFUSED, 10.0),
    (FailureClass.NO_SUCH_HOST, 10.0),
    (FailureClass.TLS, 10.0),
]


@pytest.mark.parametrize(("failure", "limit"), WAIT_LIMITS, ids=[f.value for f, _ in WAIT_LIMITS])
def test_spec4_how_long_each_failure_holds_the_requests(
    failure: FailureClass, limit: float
) -> None:
    """docs/decisions.md, "A host that cannot be connected to is given up on quickly"."""
    assert Policy().wait_limit(failure) == limit
    assert failure.cannot_connect is (limit == 10.0)
    # Never longer than max_wait: 0 gives up on every failure at once.
    assert Policy(max_wait=0.0).wait_limit(failure) == 0.0
    assert Policy(max_wait=5.0, connect_max_wait=60.0).wait_limit(failure) == 5.0


def test_spec4_a_give_up_lasts_the_wait_it_ended_at_least_the_retry_delay_doubling() -> None:
    policy = Policy(retry_delay=30.0, max_wait=600.0, connect_max_wait=10.0, cache_ttl=3600.0)
    assert [policy.gave_up_lifetime(n) for n in (1, 2, 3, 4)] == [600, 1200, 2400, 3600]
    assert [policy.gave_up_lifetime(n, 10.0) for n in (1, 2, 3)] == [30, 60, 120]
    assert Policy(retry_delay=1.0).gave_up_lifetime(1, 10.0) == 10.0
