"""The files a crawl writes are checked at start (docs/settings.md, ``REP_REPORT_FILE``
and ``REP_AUDIT_FILE``), in a real project, its settings read as ``scrapy crawl`` reads
them, in this process (:mod:`tests.support.scrapyproject`): a report in a folder that
does not exist is written there, its folders made as the audit trail's are; one under a
file stops the crawl with one line naming the setting (it used to fail at the end, exit
0; the line alone on standard error and the exit status of ``scrapy crawl``:
tests/integration/test_setting_names.py)."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from tests.support.robotsite import command_crawler, refused_at_start
from tests.support.scrapyproject import make_project, project_settings


async def crawl_in(project: Path) -> None:
    """``scrapy crawl`` in ``project`` (its settings read in this process), to the end."""
    with project_settings(project) as settings:
        crawler = command_crawler({}, settings)
        await crawler.crawl(urls=[])
    assert crawler.stats is not None
    assert crawler.stats.get_value("finish_reason") == "finished"


@pytest_twisted.ensureDeferred
async def test_report_in_a_missing_folder_is_written_there(tmp_path: Path) -> None:
    """As the audit trail does, the report makes its missing folders (one rule)."""
    await crawl_in(make_project(tmp_path, 'REP_REPORT_FILE = "out/deeper/report.txt"'))
    assert "In short: nothing happened" in (tmp_path / "proj/out/deeper/report.txt").read_text()


@pytest_twisted.ensureDeferred
async def test_report_under_a_file_stops_scrapy_crawl(tmp_path: Path) -> None:
    project = make_project(tmp_path, 'REP_REPORT_FILE = "scrapy.cfg/report.txt"')
    with project_settings(project) as settings:
        said = await refused_at_start({}, settings, urls=())
    assert said == (
        "scrapy_rep: error: REP_REPORT_FILE: scrapy.cfg/report.txt is under scrapy.cfg, "
        "which is not a folder"
    )


@pytest_twisted.ensureDeferred
async def test_report_in_an_existing_folder_is_written(tmp_path: Path) -> None:
    await crawl_in(make_project(tmp_path, 'REP_REPORT_FILE = "report.txt"'))
    assert "In short: nothing happened" in (tmp_path / "proj" / "report.txt").read_text()
