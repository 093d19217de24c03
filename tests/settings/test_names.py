"""Setting names (rep-engine/rep_engine/settings/names.py): a misspelled ``REP_*`` /
``ROBOTSTXT_*`` setting gets the closest real one, read from the one settings table (the
check at start that stops the crawl on it: tests/crawl/test_startup_names.py; the add-on's:
tests/crawl/test_addon.py)."""

from __future__ import annotations

import pytest

from rep_engine.settings import SETTINGS
from rep_engine.settings.names import known_names, unknown_names


@pytest.mark.parametrize(
    ("name", "closest"),
    [
        ("REP_PURPOSES", "REP_PURPOSE"),
        ("REP_PURPOSE_", "REP_PURPOSE"),
        ("rep_purpose", "REP_PURPOSE"),
        ("REP_AUDIT", "REP_AUDIT_FILE"),
        ("REP_CRAWLDELAY_MAX", "REP_CRAWL_DELAY_MAX"),
        ("ROBOTSTXT_OBAY", "ROBOTSTXT_OBEY"),
        ("REP_ZZZZZZZZ", None),
    ],
)
def test_misspelled_name_gets_the_closest_real_one(name: str, closest: str | None) -> None:
    assert unknown_names([name, "DOWNLOAD_DELAY", "REP_PROFILE"], known_names()) == [
        (name, closest)
    ]


def test_every_setting_of_the_table_is_known() -> None:
    """The check reads the one settings table: a setting added there is never reported."""
    names = [setting.name for setting in SETTINGS]
    assert unknown_names(names, known_names()) == []
    assert unknown_names(["REP_NEW_ONE"], known_names(["REP_NEW_ONE"])) == []
