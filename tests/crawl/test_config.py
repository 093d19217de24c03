"""The crawl's configuration is read from Scrapy's own ``Settings``
(scrapy_rep/crawl/config.py: :meth:`RepConfig.from_settings` of ``crawler.settings``):
read as the engine reads a dict (its readers: tests/settings/), the booleans in the
spellings Scrapy's ``getbool`` reads the same way (docs/settings.md, "Booleans"), a wrong
``REP_PURPOSE`` named in the same line."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.settings import Settings

from rep_engine.settings import SETTINGS, RepConfig
from rep_engine.settings.readers import RepSettingError

#: Every boolean setting of the table (its default is a bool).
BOOLEANS = [s for s in SETTINGS if isinstance(s.default, bool)]


@pytest.mark.parametrize(
    ("value", "meaning"),
    [(True, True), (False, False), (1, True), (0, False), ("True", True), ("true", True),
     ("1", True), ("False", False), ("false", False), ("0", False)],
    ids=repr,
)  # fmt: skip
def test_each_boolean_spelling_is_read_from_scrapys_settings_as_getbool_reads_it(
    value: Any, meaning: bool
) -> None:
    for setting in BOOLEANS:
        config = RepConfig.from_settings(Settings({setting.name: value}))
        assert getattr(config, setting.field) is meaning
        # Scrapy's own reader reads the spelling the same way: one vocabulary.
        assert Settings({setting.name: value}).getbool(setting.name) is meaning


def test_the_crawls_settings_give_the_same_line() -> None:
    with pytest.raises(RepSettingError, match=r"^REP_PURPOSE: 'serch' is not a purpose \(did"):
        RepConfig.from_settings(Settings({"REP_PURPOSE": "ai-train,serch"}))


@pytest.mark.parametrize("value", ["", None, [], " , "])
def test_a_purpose_set_empty_in_scrapys_settings_is_refused_not_read_as_search(
    value: Any,
) -> None:
    with pytest.raises(RepSettingError) as raised:
        RepConfig.from_settings(Settings({"REP_PURPOSE": value}))
    assert str(raised.value) == (
        "REP_PURPOSE: expected one of 'search', 'ai-train', 'ai-input' or a list of them, "
        f"got {value!r} (leave it out for a search crawl)"
    )


def test_a_purpose_left_out_of_scrapys_settings_is_search() -> None:
    assert RepConfig.from_settings(Settings()).purpose == ("search",)
