"""A boolean setting that is no boolean stops the crawl at start naming the setting
(``scrapy crawl``: the line, exit 2), and one given on the command line is read as in
settings.py (docs/settings.md, "Booleans"); in a real project, its settings read as
``scrapy crawl`` reads them, in this process (:mod:`tests.support.scrapyproject`; the
readers: tests/settings/test_readers_booleans.py; the line alone on standard error and
the exit status of ``scrapy crawl``: tests/integration/test_setting_names.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted

from tests.support.robotsite import command_crawler, refused_at_start
from tests.support.scrapyproject import make_project, project_settings


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            'REP_OBEY_CRAWL_DELAY = "no"',
            "REP_OBEY_CRAWL_DELAY: expected a boolean (True, False, 1, 0, 'true', 'false', "
            "'1' or '0'), got 'no'",
        ),
        (
            'ROBOTSTXT_OBEY = "no"',  # it ended in a traceback from Scrapy's getbool
            "ROBOTSTXT_OBEY: expected a boolean (True, False, 1, 0, 'true', 'false', "
            "'1' or '0'), got 'no'",
        ),
    ],
)
@pytest_twisted.ensureDeferred
async def test_a_wrong_boolean_stops_scrapy_crawl(tmp_path: Path, line: str, error: str) -> None:
    with project_settings(make_project(tmp_path, line)) as settings:
        said = await refused_at_start({}, settings, urls=())
    assert said == f"scrapy_rep: error: {error}"


@pytest_twisted.ensureDeferred
async def test_a_boolean_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-s NAME=true`` is a string: accepted, and the crawl runs."""
    given = {"REP_OBEY_CRAWL_DELAY": "false", "REP_REPORT": "1"}  # as -s gives them
    with project_settings(make_project(tmp_path, "")) as settings:
        crawler = command_crawler(given, settings)
        await crawler.crawl(urls=[])
    assert crawler.stats is not None
    assert crawler.stats.get_value("finish_reason") == "finished"
    assert "In short: nothing happened" in capsys.readouterr().err  # the report, on by "1"
