"""Boolean settings are read one way (docs/settings.md, "Booleans"): every boolean
``REP_*`` setting and ``ROBOTSTXT_OBEY`` take the spellings Scrapy's ``getbool``
documents, and anything else stops the crawl at start naming the setting (exit 2). Read
from Scrapy's own ``Settings``, and by ``getbool``: tests/crawl/test_config.py;
``ROBOTSTXT_OBEY`` at start: tests/crawl/test_startup.py."""

from __future__ import annotations

from typing import Any

import pytest

from rep_engine.settings import SETTINGS, RepConfig
from rep_engine.settings.readers import RepSettingError, read_bool

#: Every boolean setting of the table (its default is a bool).
BOOLEANS = [s for s in SETTINGS if isinstance(s.default, bool)]
#: What each accepted spelling means.
ACCEPTED: list[tuple[Any, bool]] = [
    (True, True),
    (False, False),
    (1, True),
    (0, False),
    ("True", True),
    ("true", True),
    ("1", True),
    ("False", False),
    ("false", False),
    ("0", False),
]
#: Neither true nor false, whatever another reader would make of them.
REFUSED: list[Any] = [
    "yes", "no", "on", "off", "Yes", "NO", "TRUE", "FALSE", " true", "true ", "",
    "maybe", 2, -1, 1.0, 0.0, "2", [], {},
]  # fmt: skip


def test_every_boolean_setting_has_the_one_reader() -> None:
    assert {"REP_OBEY_CRAWL_DELAY", "REP_REPORT", "REP_AUDIT_REQUIRED"} <= {
        s.name for s in BOOLEANS
    }
    assert len(BOOLEANS) == 15
    assert all(s.read is read_bool for s in BOOLEANS)
    assert [s for s in SETTINGS if s.read is read_bool] == BOOLEANS


@pytest.mark.parametrize("setting", BOOLEANS, ids=lambda s: s.name)
@pytest.mark.parametrize(("value", "meaning"), ACCEPTED, ids=repr)
def test_accepted_spellings(setting: Any, value: Any, meaning: bool) -> None:
    config = RepConfig.from_settings({setting.name: value})
    assert getattr(config, setting.field) is meaning


@pytest.mark.parametrize("setting", BOOLEANS, ids=lambda s: s.name)
@pytest.mark.parametrize("value", REFUSED, ids=repr)
def test_refused_spellings_name_the_setting(setting: Any, value: Any) -> None:
    with pytest.raises(RepSettingError) as raised:
        RepConfig.from_settings({setting.name: value})
    assert str(raised.value) == (
        f"{setting.name}: expected a boolean (True, False, 1, 0, 'true', 'false', '1' or "
        f"'0'), got {value!r}"
    )
