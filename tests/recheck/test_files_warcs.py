"""The WARCs of ``--documents`` (and of the datatrove step's ``documents``): each a file,
or a folder of them (its files named as WARCs, by name), each once; a recheck of a
folder decides as the same WARCs named one by one, says what it did not read, and its
trail's run header names the WARCs it read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rep_recheck.files import warc_files
from rep_recheck.warc import WarcError
from tests.support.recheck import (
    needs,
    recheck_tool,
    report_lines,
    robots_capture,
    write_jsonl,
    write_warc,
)

JAN, JUN = "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"
URLS = ["https://a.example/x", "https://a.example/private/1", "https://b.example/y"]


def _january_and_june(folder: Path) -> list[Path]:
    """Two crawls' robots.txt WARCs in ``folder``, as Common Crawl publishes them (January:
    a.example allows all; June: it refuses /private, b.example everything), beside a
    README, a hidden file and a subfolder; the WARCs, in the order read."""
    folder.mkdir()
    january, june = folder / "CC-MAIN-2025-05.warc.gz", folder / "CC-MAIN-2025-26.warc"
    write_warc(january, [robots_capture("https://a.example", "User-agent: *\nAllow: /\n")],
               date=JAN, compress=True)  # fmt: skip
    write_warc(june, [robots_capture("https://a.example", "User-agent: *\nDisallow: /private\n"),
                      robots_capture("https://b.example", "User-agent: *\nDisallow: /\n")],
               date=JUN)  # fmt: skip
    (folder / "README.md").write_text("the crawls' robots.txt\n")
    (folder / ".hidden.warc").write_text("")
    (folder / "old").mkdir()
    (folder / "old" / "CC-MAIN-2024-51.warc").write_text("")
    return [january, june]


def test_a_folder_is_its_warc_files_by_name_each_once(tmp_path: Path) -> None:
    january, june = _january_and_june(tmp_path / "warcs")
    other = tmp_path / "other.warc"
    other.write_text("")
    found = warc_files([str(tmp_path / "warcs"), other])
    assert found.paths == [str(january), str(june), str(other)]
    assert found.skipped == [str(tmp_path / "warcs" / "README.md")]
    assert found.subfolders == [str(tmp_path / "warcs" / "old")]
    assert found.not_read() == [
        f"1 file(s) of a folder of WARCs not read, not named as WARCs (.warc, .warc.gz): "
        f"{tmp_path / 'warcs' / 'README.md'}",
        f"1 subfolder(s) not read (only a folder's own WARCs are: name each subfolder too): "
        f"{tmp_path / 'warcs' / 'old'}",
    ]
    assert warc_files(str(june)).paths == [str(june)]  # one path, as a program names it
    with pytest.raises(WarcError, match=r"is named twice \(as .*\): each WARC is read once"):
        warc_files([str(tmp_path / "warcs"), str(june)])
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("")
    with pytest.raises(WarcError) as raised:
        warc_files([str(tmp_path / "empty")])
    assert str(raised.value) == (
        f"{tmp_path / 'empty'} holds no WARC file (.warc, .warc.gz): name its files"
    )


def test_documents_of_a_folder_decide_as_its_warcs_named_one_by_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--documents DIR`` was refused (not a WARC file): it reads the folder's WARCs,
    says on standard error what it did not read, decides every item as the same WARCs
    given as several ``--documents``, and its trail's run header names the WARCs read."""
    january, june = _january_and_june(tmp_path / "warcs")
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, URLS)
    by_folder, by_files = tmp_path / "folder.jsonl", tmp_path / "files.jsonl"
    trail = tmp_path / "trail.jsonl"
    code, summary = recheck_tool(str(dataset), "--purpose", "search", "--documents",
                                 str(tmp_path / "warcs"), f"--report={by_folder}",
                                 f"--trail={trail}")  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert (f"recheck: 1 file(s) of a folder of WARCs not read, not named as WARCs "
            f"(.warc, .warc.gz): {tmp_path / 'warcs' / 'README.md'}") in err  # fmt: skip
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(january),
                 "--documents", str(june), f"--report={by_files}")  # fmt: skip
    assert report_lines(by_folder) == report_lines(by_files)
    assert [line["status"] for line in report_lines(by_folder)] == ["kept", "refused", "refused"]
    assert [line["then"] for line in report_lines(by_folder)[1:]] == ["kept", "refused"]
    run = json.loads(trail.read_text().splitlines()[0])
    assert run["recheck"]["documents"] == [str(january), str(june)]
    assert f"WARCs `{january}`, `{june}`" in summary


def test_a_newer_crawl_in_a_subfolder_is_said_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A folder of WARCs whose newer crawl is in a subfolder (Common Crawl's layout,
    ``CC-MAIN-2025-26/…/robotstxt/``) decides on the older crawl's captures alone: June's
    ``Disallow: /private`` is not read, and January's ``Allow: /`` keeps the item. The
    run said nothing of it; it names the subfolder on standard error, and the datatrove
    step logs it."""
    june = _january_and_june(tmp_path / "warcs")[1]
    (tmp_path / "warcs" / "CC-MAIN-2025-26").mkdir()
    june.rename(tmp_path / "warcs" / "CC-MAIN-2025-26" / june.name)
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    write_jsonl(dataset, URLS[1:2])
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(tmp_path / "warcs"),
                 f"--report={report}")  # fmt: skip
    assert [line["status"] for line in report_lines(report)] == ["kept"]  # June's "no" unread
    said = (f"recheck: 2 subfolder(s) not read (only a folder's own WARCs are: name each "
            f"subfolder too): {tmp_path / 'warcs' / 'CC-MAIN-2025-26'}, "
            f"{tmp_path / 'warcs' / 'old'}")  # fmt: skip
    assert said in capsys.readouterr().err.splitlines()
    needs("datatrove")
    from scrapy_rep import RepRecheckFilter

    RepRecheckFilter(str(tmp_path / "warcs"), "search").rechecker()
    assert said.removeprefix("recheck: ") in caplog.messages
