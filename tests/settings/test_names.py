"""Setting names: a misspelled ``REP_*`` / ``ROBOTSTXT_*`` setting stops the crawl at
start with the closest real one (``REP_UNKNOWN_SETTINGS = "warn"``: a WARNING), and the
add-on's defaults are visible in the crawler's settings."""

from __future__ import annotations

import logging
import sys
import types

import pytest
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from rep_engine.settings import SETTINGS
from rep_engine.settings.names import known_names, unknown_names, warning
from rep_engine.settings.readers import RepSettingError
from scrapy_rep.crawl.startup import validate

ADDON = {"ADDONS": {"scrapy_rep.Addon": 0}}


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


#: The closing words of the error line: how to let the crawl go on.
GO_ON = '(REP_UNKNOWN_SETTINGS = "warn" ignores unknown names with a WARNING)'


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("REP_AUDIT_FLIE", "did you mean REP_AUDIT_FILE?"),
        ("REP_PURPOSES", "did you mean REP_PURPOSE?"),
        ("rep_purpose", "did you mean REP_PURPOSE?"),
        ("Rep_Purpose", "did you mean REP_PURPOSE?"),
        ("REP_TDM", "close to no scrapy_rep setting"),  # our prefix: an error all the same
        ("ROBOTSTXT_USERAGENT", "did you mean ROBOTSTXT_USER_AGENT?"),
        ("robotstxt_obey", "did you mean ROBOTSTXT_OBEY?"),
    ],
)
def test_an_unknown_name_stops_the_crawl(name: str, hint: str) -> None:
    """A typo must not change what the crawl is: the start-up check refuses the settings,
    naming the setting and the closest real one (one line)."""
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({name: "ai-train", "DOWNLOAD_DELAY": 1}))
    assert str(raised.value) == f"{name}: unknown setting, {hint} {GO_ON}"


def test_every_unknown_name_is_in_the_one_line() -> None:
    settings = Settings({"REP_AUDIT_FLIE": "a.jsonl", "rep_purpose": "ai-train"})
    with pytest.raises(RepSettingError) as raised:
        validate(settings)
    assert str(raised.value) == (
        "REP_AUDIT_FLIE: unknown setting, did you mean REP_AUDIT_FILE?; "
        f"rep_purpose: unknown setting, did you mean REP_PURPOSE? {GO_ON}"
    )


def test_a_robotstxt_name_close_to_none_is_a_warning() -> None:
    """``ROBOTSTXT_`` is Scrapy's prefix: a name close to none of its settings may be
    another package's, and only gets a WARNING."""
    from scrapy_rep.crawl.startup import name_warnings

    settings = Settings({"ROBOTSTXT_MYLIB_MAX_AGE_SECONDS": 5})
    config = validate(settings)
    assert name_warnings(settings, config) == [
        "Unknown setting ROBOTSTXT_MYLIB_MAX_AGE_SECONDS is ignored: it is not a scrapy_rep setting"
    ]


def test_warn_makes_every_error_a_warning() -> None:
    from scrapy_rep.crawl.startup import name_warnings

    settings = Settings({"REP_UNKNOWN_SETTINGS": "warn", "REP_PURPOSES": "ai-train", "REP_TDM": 1})
    config = validate(settings)
    assert config.purpose == ("search",)  # the misspelled name is ignored, as the line says
    assert name_warnings(settings, config) == [
        "Unknown setting REP_PURPOSES is ignored: did you mean REP_PURPOSE?",
        "Unknown setting REP_TDM is ignored: it is not a scrapy_rep setting",
    ]


def test_lower_case_names_of_the_settings_module_are_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scrapy reads only upper-case names from settings.py: ``rep_purpose = "ai-train"``
    there never reaches the settings, and is read from the module itself."""
    module = types.ModuleType("proj_settings")
    module.rep_purpose = "ai-train"  # type: ignore[attr-defined]
    module.helper = 1  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "proj_settings", module)
    monkeypatch.setenv("SCRAPY_SETTINGS_MODULE", "proj_settings")
    with pytest.raises(RepSettingError, match=r"^rep_purpose: unknown setting, did you mean "):
        validate(Settings({"BOT_NAME": "proj"}))
    monkeypatch.delenv("SCRAPY_SETTINGS_MODULE")
    validate(Settings({"BOT_NAME": "proj"}))


def test_unknown_settings_takes_error_or_warn() -> None:
    with pytest.raises(RepSettingError, match=r"^REP_UNKNOWN_SETTINGS: expected one of "):
        validate(Settings({"REP_UNKNOWN_SETTINGS": "ignore"}))
    assert validate(Settings({"REP_UNKNOWN_SETTINGS": "WARN"})).unknown_settings == "warn"
    assert validate(Settings()).unknown_settings == "error"


def test_addon_refuses_at_start() -> None:
    with pytest.raises(RepSettingError, match=r"^REP_PURPOSES: unknown setting, did you"):
        get_crawler(settings_dict={**ADDON, "REP_PURPOSES": "ai-train"})


def test_addon_warns_at_start_with_warn(caplog: pytest.LogCaptureFixture) -> None:
    settings = {
        **ADDON,
        "REP_UNKNOWN_SETTINGS": "warn",
        "REP_PURPOSES": "ai-train",
        "rep_purpose": "ai-train",
        "REP_AUDIT": "a",
    }
    with caplog.at_level(logging.WARNING, logger="scrapy_rep.crawl.addon"):
        get_crawler(settings_dict=settings)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        warning("REP_AUDIT", "REP_AUDIT_FILE"),
        warning("REP_PURPOSES", "REP_PURPOSE"),
        warning("rep_purpose", "REP_PURPOSE"),
    ]
    assert warnings[1] == "Unknown setting REP_PURPOSES is ignored: did you mean REP_PURPOSE?"


def test_robotparser_alone_refuses_too() -> None:
    """Without the add-on, ``ROBOTSTXT_PARSER = "scrapy_rep.RobotParser"`` checks the
    names as it checks the values."""
    from scrapy_rep import RobotParser

    crawler = get_crawler(settings_dict={"REP_PROFIL": "rfc9309"})
    with pytest.raises(RepSettingError, match=r"^REP_PROFIL: unknown setting, did you mean"):
        RobotParser.from_crawler(crawler, b"")


def test_addon_defaults_are_in_the_crawlers_settings() -> None:
    crawler = get_crawler(settings_dict={**ADDON, "REP_CACHE_TTL": 5})
    assert crawler.settings.get("REP_PROFILE") == "google"
    assert crawler.settings.getpriority("REP_PROFILE") == 15  # "addon"
    assert crawler.settings.get("REP_CACHE_TTL") == 5  # the project's value stays
    assert crawler.settings.get("REP_OBEY_CRAWL_DELAY") is True
    assert crawler.settings.get("REP_ROBOTSTXT_CONCURRENCY") is None  # derived: left unset
