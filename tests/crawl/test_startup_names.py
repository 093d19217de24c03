"""Setting names at start (scrapy_rep/crawl/startup.py): a misspelled ``REP_*`` /
``ROBOTSTXT_*`` setting stops the crawl with the closest real one
(``REP_UNKNOWN_SETTINGS = "warn"``: a WARNING), the names of the settings module read too
(the names' reading: tests/settings/test_names.py; in a real Scrapy project:
tests/integration/test_setting_names.py)."""

from __future__ import annotations

import sys
import types

import pytest
from scrapy.settings import Settings

from rep_engine.settings.readers import RepSettingError
from scrapy_rep.crawl.startup import name_warnings, validate

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
    settings = Settings({"ROBOTSTXT_MYLIB_MAX_AGE_SECONDS": 5})
    config = validate(settings)
    assert name_warnings(settings, config) == [
        "Unknown setting ROBOTSTXT_MYLIB_MAX_AGE_SECONDS is ignored: it is not a scrapy_rep setting"
    ]


def test_warn_makes_every_error_a_warning() -> None:
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
