"""Setting names in a real Scrapy project (the readings: tests/settings/test_names.py):
the add-on's defaults in a real project, a misspelled setting stops the crawl at start
with the closest real one, and ``REP_UNKNOWN_SETTINGS = "warn"`` lets it go on. The
project is made by ``scrapy startproject`` and its settings read as ``scrapy crawl``
reads them, in this process (:mod:`tests.support.scrapyproject`); one test runs both
as processes of their own, as a user runs them: the line alone on standard error, exit
status 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted

from tests.support.robotsite import command_crawler, refused_at_start
from tests.support.scrapyproject import make_project, project_settings, scrapy_crawl

#: The closing words of the error line: how to let the crawl go on.
GO_ON = '(REP_UNKNOWN_SETTINGS = "warn" ignores unknown names with a WARNING)'


def test_defaults_in_a_real_project(tmp_path: Path) -> None:
    """A crawler's settings in the project (what ``scrapy shell -c`` shows) have the
    default."""
    with project_settings(make_project(tmp_path, "")) as settings:
        crawler = command_crawler({}, settings)
        crawler._apply_settings()
    assert crawler.settings.get("REP_PROFILE") == "google"


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            'REP_PURPOSES = "ai-train"',
            "REP_PURPOSES: unknown setting, did you mean REP_PURPOSE?",
        ),
        ('rep_purpose = "ai-train"', "rep_purpose: unknown setting, did you mean REP_PURPOSE?"),
        (
            'REP_AUDIT_FLIE = "trail.jsonl"',
            "REP_AUDIT_FLIE: unknown setting, did you mean REP_AUDIT_FILE?",
        ),
    ],
)
@pytest_twisted.ensureDeferred
async def test_a_misspelled_setting_stops_the_crawl(tmp_path: Path, line: str, error: str) -> None:
    """The line in the project's settings.py: the "did you mean" line, and no crawl (it
    used to run, for search, or without a trail)."""
    with project_settings(make_project(tmp_path, line)) as settings:
        said = await refused_at_start({}, settings, urls=())
    assert said == f"scrapy_rep: error: {error} {GO_ON}"
    assert not list(tmp_path.rglob("trail.jsonl"))


def test_a_misspelled_setting_stops_scrapy_crawl(tmp_path: Path) -> None:
    """``scrapy startproject`` and ``scrapy crawl`` as processes of their own, as a user
    runs them (the one startproject process): exit status 2 and the "did you mean" line
    alone on standard error, no traceback, no crawl. A name in lower case, which only the
    project's settings module has (Scrapy leaves it out of the settings)."""
    project = make_project(tmp_path, 'rep_purpose = "ai-train"', process=True)
    crawl = scrapy_crawl(project)
    assert crawl.status == 2, crawl.stderr
    assert "Traceback" not in crawl.stderr
    error = "rep_purpose: unknown setting, did you mean REP_PURPOSE?"
    assert crawl.error_lines() == [f"scrapy_rep: error: {error} {GO_ON}"]
    assert "Spider opened" not in crawl.stderr
    assert not list(tmp_path.rglob("trail.jsonl"))


@pytest_twisted.ensureDeferred
async def test_warn_lets_scrapy_crawl_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lines = 'REP_UNKNOWN_SETTINGS = "warn"\nREP_PURPOSES = "ai-train"'
    with project_settings(make_project(tmp_path, lines)) as settings:
        crawler = command_crawler({}, settings)
        await crawler.crawl(urls=[])
    assert crawler.stats is not None
    assert crawler.stats.get_value("log_count/ERROR") is None
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "Unknown setting REP_PURPOSES is ignored: did you mean REP_PURPOSE?" in warnings
    assert crawler.stats.get_value("finish_reason") == "finished"
