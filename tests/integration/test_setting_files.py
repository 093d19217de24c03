"""The files a crawl writes are checked at start (docs/settings.md, ``REP_REPORT_FILE``
and ``REP_AUDIT_FILE``), in real ``scrapy crawl`` processes: a report in a folder that
does not exist is written there, its folders made as the audit trail's are; one under a
file stops the crawl with one line naming the setting (it used to fail at the end,
exit 0)."""

from __future__ import annotations

from pathlib import Path

from tests.support.scrapyproject import crawl_with


def test_report_in_a_missing_folder_is_written_there(tmp_path: Path) -> None:
    """As the audit trail does, the report makes its missing folders (one rule)."""
    crawl = crawl_with(tmp_path, 'REP_REPORT_FILE = "out/deeper/report.txt"')
    assert crawl.status == 0, crawl.stderr
    assert "In short: nothing happened" in (tmp_path / "proj/out/deeper/report.txt").read_text()


def test_report_under_a_file_stops_scrapy_crawl(tmp_path: Path) -> None:
    crawl = crawl_with(tmp_path, 'REP_REPORT_FILE = "scrapy.cfg/report.txt"')
    assert crawl.status == 2, crawl.stderr
    assert "Traceback" not in crawl.stderr
    assert crawl.error_lines() == [
        "scrapy_rep: error: REP_REPORT_FILE: scrapy.cfg/report.txt is under scrapy.cfg, "
        "which is not a folder"
    ]
    assert "Spider opened" not in crawl.stderr


def test_report_in_an_existing_folder_is_written(tmp_path: Path) -> None:
    crawl = crawl_with(tmp_path, 'REP_REPORT_FILE = "report.txt"')
    assert crawl.status == 0, crawl.stderr
    assert "In short: nothing happened" in (tmp_path / "proj" / "report.txt").read_text()
