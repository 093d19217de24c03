"""The files a crawl writes are checked at start (docs/settings.md, ``REP_REPORT_FILE``
and ``REP_AUDIT_FILE``): a report in a folder that does not exist stops the crawl with
one line naming the setting and the folder (it used to fail at the end, exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy.settings import Settings

from scrapy_rep.crawl.startup import validate
from scrapy_rep.settings import RepSettingError


@pytest.mark.parametrize("missing", ["nope", "nope/deeper"])
def test_report_file_in_a_missing_folder_is_refused(tmp_path: Path, missing: str) -> None:
    report = tmp_path / missing / "report.txt"
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({"REP_REPORT_FILE": str(report)}))
    assert str(raised.value) == (
        f"REP_REPORT_FILE: {report} cannot be written: the folder {report.parent} does not exist"
    )
    assert not (tmp_path / "nope").exists()  # the check creates nothing


def test_report_file_unusable_for_other_reasons(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    with pytest.raises(RepSettingError, match=r"^REP_REPORT_FILE: .* is a directory$"):
        validate(Settings({"REP_REPORT_FILE": str(tmp_path)}))
    under_a_file = tmp_path / "a-file" / "report.txt"
    with pytest.raises(RepSettingError, match=r"^REP_REPORT_FILE: .*which is not a folder$"):
        validate(Settings({"REP_REPORT_FILE": str(under_a_file)}))


def test_report_file_in_an_existing_folder_passes(tmp_path: Path) -> None:
    assert validate(Settings({"REP_REPORT_FILE": str(tmp_path / "r.txt")})).report_file
    assert not (tmp_path / "r.txt").exists()


def test_audit_file_in_a_missing_folder_passes(tmp_path: Path) -> None:
    """The trail makes its missing folders when it opens (docs/settings.md example
    ``audit/crawl.jsonl.gz``): no error there."""
    trail = tmp_path / "audit" / "crawl.jsonl"
    assert validate(Settings({"REP_AUDIT_FILE": str(trail)})).audit_file == str(trail)
