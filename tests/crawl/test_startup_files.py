"""The files a crawl writes are checked at start, by one rule (docs/settings.md,
``REP_REPORT_FILE`` and ``REP_AUDIT_FILE``): a missing folder is made when the file is
written; a path that cannot be written stops the crawl with one line naming the setting
(the report used to fail at the end, exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy.settings import Settings

from scrapy_rep.crawl.startup import validate
from scrapy_rep.settings import RepSettingError

SETTINGS = ["REP_AUDIT_FILE", "REP_REPORT_FILE"]


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("missing", ["nope", "nope/deeper"])
def test_a_file_in_a_missing_folder_passes_and_nothing_is_made_yet(
    tmp_path: Path, setting: str, missing: str
) -> None:
    """One rule for both files (docs/settings.md): missing folders are made when the
    file is written, so the check at start lets them through, and creates nothing."""
    path = tmp_path / missing / "file.txt"
    validate(Settings({setting: str(path)}))
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("setting", SETTINGS)
def test_a_folder_that_cannot_be_made_is_refused_alike(tmp_path: Path, setting: str) -> None:
    (tmp_path / "a-file").write_text("")
    under_a_file = tmp_path / "a-file" / "deeper" / "file.txt"
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({setting: str(under_a_file)}))
    assert str(raised.value) == (
        f"{setting}: {under_a_file} is under {tmp_path / 'a-file'}, which is not a folder"
    )


def test_the_rule_is_written_once_for_both_settings() -> None:
    """docs/settings.md gives both sections the same sentence."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text("utf-8")
    rules = []
    for setting in SETTINGS:
        section = page.split(f"### `{setting}`\n", 1)[1].split("\n### ", 1)[0]
        rule = section.split("- One rule for both files", 1)[1].split("(exit 2).", 1)[0]
        rules.append(" ".join(rule.split()))
    assert rules[0] == rules[1]
    assert "missing folders are made" in rules[0]


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
