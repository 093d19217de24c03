"""An authorized override of a host's robots.txt (``REP_OVERRIDES``, as Nutch's robots.txt
allow-list; docs/settings.md): hosts, who authorized it and until when; an expired entry
refuses the crawl at start (the check at start: tests/crawl/test_startup.py); a decision
re-derived from the trail names the override (tests/audit/test_rederive_overrides.py).
What the crawl does with it: tests/integration/test_overrides.py."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from rep_engine import RepSettingError
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import read_overrides
from rep_engine.settings.rules import overrides_of

#: The time the tests read the setting at: 2026-11-24T12:00:00Z.
NOW = datetime(2026, 11, 24, 12, tzinfo=timezone.utc).timestamp()
PERMISSION = "written permission of the site owner, 2026-11-01"


def override_entry(**changes: Any) -> dict[str, Any]:
    return {"host": "Example.COM", "reason": PERMISSION, "expires": "2027-06-30", **changes}


def read(value: Any) -> Any:
    return read_overrides({"REP_OVERRIDES": value}, "REP_OVERRIDES", (), now=NOW)


def test_an_override_is_read_with_its_host_as_an_origin_holds_it() -> None:
    """A date alone holds through that day, UTC: the entry keeps the day as written."""
    assert read([override_entry()]) == (("example.com", PERMISSION, "2027-06-30"),)
    assert read('[{"host": "b.example", "reason": "ok by mail", "expires": "2027-01-01"}]') == (
        ("b.example", "ok by mail", "2027-01-01"),
    )
    assert read([override_entry(host="exämple.com")])[0][0] == "xn--exmple-cua.com"


@pytest.mark.parametrize(
    ("expires", "written"),
    [
        ("2026-11-24", "2026-11-24"),  # today, UTC: until its end
        ("2026-11-24T12:00:01Z", "2026-11-24T12:00:01+00:00"),
        ("2026-11-24 15:30+02:00", "2026-11-24T15:30:00+02:00"),  # 13:30 UTC
        ("2027-01-01T00:00:00+14:00", "2027-01-01T00:00:00+14:00"),  # Line Islands
        ("2027-01-01T00:00:00-12:00", "2027-01-01T00:00:00-12:00"),  # Baker Island
        ("2027-01-01T00:00:00+05:45", "2027-01-01T00:00:00+05:45"),  # Nepal
    ],
    ids=["today", "a-second-ahead", "its-own-zone", "plus-14", "minus-12", "plus-5-45"],
)
def test_an_expiry_keeps_its_time_and_zone_as_given(expires: str, written: str) -> None:
    assert read([override_entry(expires=expires)])[0][2] == written


@pytest.mark.parametrize(
    ("expires", "says"),
    [
        ("2026-11-25T01:00:00+14:00", "has expired (authorized until 2026-11-25T01:00:00+14:00)"),
        ("2026-11-24T12:00:00Z", "has expired (authorized until 2026-11-24T12:00:00+00:00)"),
        ("2026-11-23", "has expired (authorized through 2026-11-23, UTC)"),
        ("2026-11-25 or never", "needs 'expires' as a date (YYYY-MM-DD)"),
        ("2026-11-25T10:00:00", "or a date and time with its zone"),  # no zone
        ("2026-02-30", "needs 'expires' as a date"),
        ("2027-11-25T10:00:00+15:00", "needs 'expires' as a date"),  # no place keeps +15
        ("2027-11-25T10:00:00-12:30", "needs 'expires' as a date"),
        ("2027-11-25T10:00:00+23:59", "needs 'expires' as a date"),
    ],
    ids=[
        *("past-in-its-zone", "now", "yesterday", "text-after", "no-zone", "no-such-day"),
        *("offset-15", "offset-minus-12-30", "offset-23-59"),
    ],
)
def test_an_expiry_past_in_any_zone_or_not_a_date_stops_the_crawl(expires: str, says: str) -> None:
    with pytest.raises(RepSettingError, match="REP_OVERRIDES") as raised:
        read([override_entry(expires=expires)])
    assert says in str(raised.value)


def test_an_override_in_force_is_read_into_the_config() -> None:
    """(Its expired form stops the crawl at start: tests/crawl/test_startup.py.)"""
    assert RepConfig.from_settings({"REP_OVERRIDES": [override_entry()]}).overrides


def test_a_unicode_host_is_its_idna_2008_form_never_another_host() -> None:
    """UTS #46 non-transitional, as URL parsers and browsers map it: ``faß.test`` is
    ``xn--fa-hia.test``; IDNA 2003 (``encodings.idna``) would make it ``fass.test``, a host
    whose owner authorized nothing."""
    assert read([override_entry(host="Faß.test")])[0][0] == "xn--fa-hia.test"
    assert read([override_entry(host="FASS.test")])[0][0] == "fass.test"
    assert read([override_entry(host="xn--fa-hia.test.")])[0][0] == "xn--fa-hia.test"
    with pytest.raises(RepSettingError, match="not a host name IDNA 2008 allows"):
        read([override_entry(host="☃.test")])


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (
            [override_entry(expires="2026-11-23")],
            "the override of example.com has expired (authorized through 2026-11-23, UTC)",
        ),
        ([override_entry(reason=" ")], "needs a 'reason'"),
        ([override_entry(expires="next year")], "needs 'expires' as a date (YYYY-MM-DD)"),
        ([override_entry(host="https://example.com")], "'host' must be a host name"),
        ([{"host": "example.com"}], "needs exactly 'host', 'reason' and 'expires'"),
        ("{not json", "expected a list of"),
        (42, "expected a list of"),
    ],
    ids=["expired", "no-reason", "bad-date", "scheme", "missing-keys", "bad-json", "not-a-list"],
)
def test_a_wrong_or_expired_override_stops_the_crawl_naming_it(value: Any, says: str) -> None:
    with pytest.raises(RepSettingError, match="REP_OVERRIDES") as raised:
        read(value)
    assert says in str(raised.value)


def test_an_expiry_is_shown_as_written_and_read_in_both_forms() -> None:
    """A date shows as the day written (``through 2027-06-30, UTC``), never the midnight
    after it; the form earlier versions recorded in a run header (that midnight) is read
    as the same instant, so ``audit verify`` reads old and new trails alike."""
    day, midnight = overrides_of(
        [["e.com", PERMISSION, "2027-06-30"], ["f.com", PERMISSION, "2027-07-01T00:00:00+00:00"]]
    )
    assert day.ends == midnight.ends == datetime(2027, 7, 1, tzinfo=timezone.utc).timestamp()
    assert day.described == f"{PERMISSION}, through 2027-06-30, UTC"
    assert midnight.described == f"{PERMISSION}, until 2027-07-01T00:00:00+00:00"
