"""The files a crawl writes are checked at start, by one rule (docs/settings.md,
``REP_REPORT_FILE`` and ``REP_AUDIT_FILE``): a missing folder is made when the file is
written; a path that cannot be written stops the crawl with one line naming the setting
(the report used to fail at the end, exit 0); an existing file that is not a trail is
not chained on."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from scrapy.settings import Settings

from scrapy_rep.audit.file import TrailFile, TrailFileError
from scrapy_rep.crawl.startup import validate
from scrapy_rep.settings import RepSettingError
from tests.support.trailfactory import write_trail

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


#: Files a trail is not (name, bytes): an items feed, a CSV, a feed gzip-compressed, a
#: JSON line of no trail type, plain text named as a gzip trail.
NOT_TRAILS = {
    "items.jsonl": b'{"url": "https://x.example/1", "title": "t"}\n',
    "items.csv": b"url,title\nhttps://x.example/1,t\n",
    "items.jsonl.gz": gzip.compress(b'{"url": "https://x.example/1"}\n'),
    "other.jsonl": b'{"type": "url", "url": "https://x.example/1"}\n',
    "text.jsonl.gz": b'{"type": "run", "prev": ""}\n',
}


@pytest.mark.parametrize("name", NOT_TRAILS)
def test_an_existing_file_that_is_no_trail_stops_the_crawl_naming_it(
    tmp_path: Path, name: str
) -> None:
    """A trail is appended to: chained onto an items feed, its lines were mixed into the
    collection without a word (and the trail never verified clean)."""
    path = tmp_path / name
    path.write_bytes(NOT_TRAILS[name])
    with pytest.raises(RepSettingError) as raised:
        validate(Settings({"REP_AUDIT_FILE": str(path)}))
    assert str(raised.value) == (
        f"REP_AUDIT_FILE: {path} is not an audit trail (its first line is not the run line "
        "a trail starts with): the trail would be appended to it; name another file"
    )
    assert path.read_bytes() == NOT_TRAILS[name]


@pytest.mark.parametrize("name", ["trail.jsonl", "trail.jsonl.gz"])
def test_a_trail_an_empty_file_and_a_new_one_can_be_chained_on(tmp_path: Path, name: str) -> None:
    for path in (write_trail(tmp_path / name), tmp_path / f"empty-{name}", tmp_path / "new" / name):
        if path.name.startswith("empty"):
            path.write_bytes(b"")
        assert validate(Settings({"REP_AUDIT_FILE": str(path)})).audit_file == str(path)


def test_a_file_that_is_no_trail_is_left_to_the_trail_when_not_required(tmp_path: Path) -> None:
    """``REP_AUDIT_REQUIRED = False``: the trail warns, and writes nothing to it (the
    crawl: tests/integration/test_audit.py)."""
    path = tmp_path / "items.jsonl"
    path.write_bytes(NOT_TRAILS["items.jsonl"])
    validate(Settings({"REP_AUDIT_FILE": str(path), "REP_AUDIT_REQUIRED": False}))
    with pytest.raises(TrailFileError, match="is not an audit trail"):
        TrailFile(path)
    assert path.read_bytes() == NOT_TRAILS["items.jsonl"]
