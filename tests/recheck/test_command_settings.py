"""The recheck reads its settings as the crawl reads them (one reader,
:func:`rep_engine.settings.read_config`): a misspelt boolean is refused with one line
naming it, before the dataset is read or a document fetched, by the command with a WARC
or with documents fetched now, and by the datatrove step; never read as false (which
turns robots.txt off). Not obeyed, its trail's items say so as a crawl's records do."""

from __future__ import annotations

from pathlib import Path

import pytest

from rep_audit.verify import verify
from rep_engine.records import NOT_OBEYED
from rep_engine.settings.readers import RepSettingError
from rep_recheck.command import EXIT_REMOVED, EXIT_USAGE, FetchRequest, FetchResult, main
from tests.support.recheck import (
    needs,
    recheck_tool,
    report_lines,
    robots_capture,
    write_jsonl,
    write_warc,
)

#: Values Scrapy's ``getbool`` or a lenient reader would read as a boolean, which the
#: crawl refuses.
MISSPELT = ["ture", "2", "off", "yes", "Flase"]


def _dataset_and_warc(tmp_path: Path) -> tuple[Path, Path]:
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/no/1", "https://a.example/yes"])
    return warc, dataset


@pytest.mark.parametrize("value", MISSPELT)
def test_a_misspelt_robotstxt_obey_stops_a_warc_recheck_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    warc, dataset = _dataset_and_warc(tmp_path)
    out = tmp_path / "kept.jsonl"
    code, summary = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc),
                                 "-s", f"ROBOTSTXT_OBEY={value}", f"--out={out}")  # fmt: skip
    assert code == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("scrapy_rep: error: ROBOTSTXT_OBEY:"), err
    assert repr(value) in err[0]
    assert summary == "" and not out.exists()


@pytest.mark.parametrize("value", ["ture", "2"])
def test_a_misspelt_robotstxt_obey_stops_a_recheck_before_its_crawl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    _, dataset = _dataset_and_warc(tmp_path)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    code = main([str(dataset), "--purpose", "search", "--no-progress", "-s",
                 f"ROBOTSTXT_OBEY={value}"], fetcher=fetcher)  # fmt: skip
    assert code == EXIT_USAGE and asked == []
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "ROBOTSTXT_OBEY" in err[0], err


def test_robotstxt_not_obeyed_is_said_in_the_items_in_the_crawls_words(tmp_path: Path) -> None:
    """``ROBOTSTXT_OBEY = False`` with a purpose: Disallow refuses nothing, the purpose's
    opt-outs still do; each item's ``robots`` part says its Allow/Disallow were not
    obeyed, in the words a crawl's ``url`` record says it (``NOT_OBEYED``), and the trail
    verifies."""
    warc, dataset = _dataset_and_warc(tmp_path)
    trail = tmp_path / "trail.jsonl"
    robots = "User-agent: *\nDisallow: /no\nContent-Usage: /yes train-ai=n\n"
    tdmrep = ("https://a.example/.well-known/tdmrep.json", 404, b"", {})
    write_warc(warc, [robots_capture("https://a.example", robots), tdmrep])
    code, _ = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                           "-s", "ROBOTSTXT_OBEY=False", f"--trail={trail}",
                           f"--out={tmp_path / 'kept.jsonl'}")  # fmt: skip
    assert code == EXIT_REMOVED
    items = [line for line in report_lines(trail) if line["type"] == "item"]
    assert [(item["url"], item["status"]) for item in items] == [
        ("https://a.example/no/1", "kept"), ("https://a.example/yes", "refused")
    ]  # fmt: skip
    for item in items:
        assert item["robots"]["obeyed"] is False
        assert item["robots"]["why"] == NOT_OBEYED["ROBOTSTXT_OBEY"]
    result = verify(trail)
    assert result.clean, result.findings


@pytest.mark.parametrize("value", ["True", "1", True, "false", False, 0])
def test_the_spellings_the_crawl_reads_are_read(value: object) -> None:
    from rep_recheck.command import read_settings

    obey = read_settings({"REP_PURPOSE": "search", "ROBOTSTXT_OBEY": value})[1].obey_robots
    assert obey is (value in ("True", "1", True))


def test_the_datatrove_step_refuses_a_misspelt_boolean_when_it_is_made(tmp_path: Path) -> None:
    needs("datatrove")
    from scrapy_rep import RepRecheckFilter

    warc, _ = _dataset_and_warc(tmp_path)
    with pytest.raises(RepSettingError, match="ROBOTSTXT_OBEY: expected a boolean"):
        RepRecheckFilter(str(warc), "ai-train", {"ROBOTSTXT_OBEY": "ture"})
    with pytest.raises(RepSettingError, match="REP_PURPOSE_AGENT"):
        RepRecheckFilter(str(warc), "ai-train", {"REP_PURPOSE_AGENT": "GPTBot"})  # a typo
    assert RepRecheckFilter(str(warc), "ai-train", {"ROBOTSTXT_OBEY": "true"}) is not None


def test_a_signing_key_that_cannot_be_read_stops_a_recheck_before_its_crawl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/settings.md, ``REP_AUDIT_SIGNING_KEY``: read at start, as the crawl reads it;
    never a trail written unsigned after an hour of fetching."""
    _, dataset = _dataset_and_warc(tmp_path)
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    key = tmp_path / "missing.pem"
    code = main([str(dataset), "--purpose", "search", "--no-progress", "--trail",
                 str(tmp_path / "t.jsonl"), "-s", f"REP_AUDIT_SIGNING_KEY={key}"],
                fetcher=fetcher)  # fmt: skip
    assert code == EXIT_USAGE and asked == [] and not (tmp_path / "t.jsonl").exists()
    err = capsys.readouterr().err.splitlines()
    assert err == [f"scrapy_rep: error: REP_AUDIT_SIGNING_KEY: {key}: cannot be read (No such "
                   "file or directory)"], err  # fmt: skip
