"""The settings check at start (scrapy_rep/crawl/startup.py): outside the ``scrapy`` command
a wrong setting raises ``RepSettingError`` naming it (under it: one line and exit status 2,
tests/integration/test_setting_errors.py), and a crawl's own trail lock does not fail its
settings checked again."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from scrapy.utils.test import get_crawler

from scrapy_rep import RepSettingError
from scrapy_rep.audit.file import TrailFile, TrailFileError
from scrapy_rep.crawl.startup import validate
from tests.support.robotsite import BASE_SETTINGS
from tests.support.trailfactory import write_trail


def test_outside_the_scrapy_command_the_error_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(RepSettingError, match=r"^REP_ROBOTSTXT_CACHE: .* needs the redis package"):
        validate({"REP_ROBOTSTXT_CACHE": "redis://127.0.0.1:1/0"})
    crawler = get_crawler(settings_dict={"REP_PROFILE": "gogle"})
    from scrapy_rep import RobotParser

    with pytest.raises(RepSettingError, match=r"^REP_PROFILE: "):
        RobotParser.from_crawler(crawler, b"")


def test_the_crawls_own_lock_does_not_fail_its_settings_checked_again(tmp_path: Path) -> None:
    """``RobotParser`` checks the settings again while the crawl runs, its trail open."""
    trail = write_trail(tmp_path / "trail.jsonl")
    writer = TrailFile(trail)
    try:
        validate({**BASE_SETTINGS, "REP_AUDIT_FILE": str(trail)})
        with pytest.raises(TrailFileError, match="is being written by another crawl"):
            TrailFile(trail)
    finally:
        writer.close()
