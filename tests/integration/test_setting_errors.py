"""Every setting error is one line and exit status 2 under the ``scrapy`` command, also
for the settings that used to give a traceback: a Redis URL without the redis package,
and a wrong ``REP_PROFILE`` with ``ROBOTSTXT_PARSER = "scrapy_rep.RobotParser"`` (no
add-on). Real ``scrapy runspider`` processes; the crawl stops before any request."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SPIDER = """
import scrapy


class One(scrapy.Spider):
    name = "one"
    start_urls = ["http://127.0.0.1:9/"]

    def parse(self, response):
        pass
"""
#: ``scrapy`` with the redis package made unimportable.
WITHOUT_REDIS = (
    "import sys; sys.modules['redis'] = None; "
    "from scrapy.cmdline import execute; sys.argv[0] = 'scrapy'; execute()"
)


def scrapy(tmp_path: Path, *args: str, without_redis: bool = False) -> tuple[int, str]:
    spider = tmp_path / "one.py"
    spider.write_text(SPIDER)
    start = ["-c", WITHOUT_REDIS] if without_redis else ["-m", "scrapy"]
    result = subprocess.run(
        [sys.executable, *start, "runspider", str(spider), "-s", "TELNETCONSOLE_ENABLED=0", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    return result.returncode, result.stderr


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    (line,) = [line for line in stderr.splitlines() if "scrapy_rep: error:" in line]
    return line


def test_redis_url_without_redis_package(tmp_path: Path) -> None:
    status, stderr = scrapy(
        tmp_path,
        *(
            "-s",
            'ADDONS={"scrapy_rep.Addon": 0}',
            "-s",
            "REP_ROBOTSTXT_CACHE=redis://127.0.0.1:1/0",
        ),
        without_redis=True,
    )
    assert status == 2, stderr
    assert one_error_line(stderr) == (
        "scrapy_rep: error: REP_ROBOTSTXT_CACHE: 'redis://127.0.0.1:1/0' needs the redis "
        "package, which is not installed: pip install 'redis>=5' (scrapy_rep's redis extra)"
    )


def test_wrong_profile_with_only_the_parser(tmp_path: Path) -> None:
    parser = ("-s", "ROBOTSTXT_OBEY=True", "-s", "ROBOTSTXT_PARSER=scrapy_rep.RobotParser")
    status, stderr = scrapy(tmp_path, *parser, "-s", "REP_PROFILE=gogle")
    assert status == 2, stderr
    assert one_error_line(stderr) == (
        "scrapy_rep: error: REP_PROFILE: expected one of 'google', 'rfc9309', 'legacy', got 'gogle'"
    )


def test_an_empty_purpose_on_the_command_line_stops_the_crawl(tmp_path: Path) -> None:
    """``-s REP_PURPOSE=$PURPOSE`` with the shell variable empty: not a search crawl."""
    status, stderr = scrapy(tmp_path, "-s", 'ADDONS={"scrapy_rep.Addon": 0}', "-s", "REP_PURPOSE=")
    assert status == 2, stderr
    assert one_error_line(stderr) == (
        "scrapy_rep: error: REP_PURPOSE: expected one of 'search', 'ai-train', 'ai-input' or "
        "a list of them, got '' (leave it out for a search crawl)"
    )


def test_a_jobdir_crawl_resumed_with_another_purpose_stops(tmp_path: Path) -> None:
    """A ``JOBDIR`` crawl run as ai-train and resumed with ``-s REP_PURPOSE=search`` (or
    with the ``-s`` forgotten) stops at start, naming the setting and both values; resumed
    as it ran, it goes on; the file named in the line, deleted, accepts the change."""
    addon = ("-s", 'ADDONS={"scrapy_rep.Addon": 0}', "-s", "JOBDIR=job")
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=ai-train")
    assert status == 0, stderr
    kept = tmp_path / "job" / "scrapy_rep.settings.json"
    resumes = [
        (("-s", "REP_PURPOSE=search"), "['search']"),
        ((), "['search']"),  # the -s forgotten
        (("-s", "REP_PURPOSE=ai-train,search"), "['ai-train', 'search']"),
    ]
    for changed, shown in resumes:
        status, stderr = scrapy(tmp_path, *addon, *changed)
        assert status == 2, stderr
        assert one_error_line(stderr) == (
            f"scrapy_rep: error: REP_PURPOSE: the crawl in JOBDIR job ran with ['ai-train'], "
            f"this run has {shown}: resume it with the same settings, or delete "
            "job/scrapy_rep.settings.json to "
            "go on under the new ones"
        )
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=ai-train")
    assert status == 0, stderr
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=ai-train", "-s",
                            "REP_PROFILE=rfc9309", "-s", "ROBOTSTXT_OBEY=False")  # fmt: skip
    assert status == 2, stderr
    assert one_error_line(stderr).startswith(
        "scrapy_rep: error: ROBOTSTXT_OBEY: the crawl in JOBDIR job ran with True, this run "
        "has False; REP_PROFILE changed too: "
    )
    kept.unlink()
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=search")
    assert status == 0, stderr
    assert "REP_PURPOSE" not in stderr


def test_a_jobdir_crawl_whose_settings_file_is_damaged_does_not_resume(tmp_path: Path) -> None:
    """``JOBDIR/scrapy_rep.settings.json`` cut in half (a disk full, a copy stopped): what
    the crawl ran with is not known, so the resume stops at start naming the file, and the
    file is left as it is; it is not read as absent and written afresh with this run's
    values (a crawl paused as search resumed as ai-train without a word). Deleted, the
    crawl goes on under the new values, as the line says."""
    addon = ("-s", 'ADDONS={"scrapy_rep.Addon": 0}', "-s", "JOBDIR=job")
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=search")
    assert status == 0, stderr
    kept = tmp_path / "job" / "scrapy_rep.settings.json"
    whole = kept.read_bytes()
    cut = whole[: len(whole) // 2]
    kept.write_bytes(cut)
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=ai-train")
    assert status == 2, stderr
    line = one_error_line(stderr)
    assert line.startswith(
        "scrapy_rep: error: JOBDIR: job/scrapy_rep.settings.json is damaged (not JSON: "
    ), line
    assert line.endswith(
        "it holds the settings the crawl in JOBDIR job ran with, which this run must match; "
        "restore it, or delete it to go on under this run's settings"
    ), line
    assert "Spider opened" not in stderr  # the crawl did not start
    assert kept.read_bytes() == cut
    kept.write_text('{"purpose": "search"}')  # JSON, but not the settings
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=ai-train")
    assert status == 2, stderr
    assert "job/scrapy_rep.settings.json is damaged (no settings object)" in one_error_line(stderr)
    kept.unlink()
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_PURPOSE=ai-train")
    assert status == 0, stderr


def test_an_unknown_crawler_name_preset_stops_the_crawl_naming_it(tmp_path: Path) -> None:
    status, stderr = scrapy(
        tmp_path,
        *("-s", 'ADDONS={"scrapy_rep.Addon": 0}', "-s", "REP_PURPOSE_AGENTS=preset:iptc-2026-03"),
    )
    assert status == 2, stderr
    assert one_error_line(stderr) == (
        "scrapy_rep: error: REP_PURPOSE_AGENTS: unknown preset 'preset:iptc-2026-03'; the "
        "presets are 'preset:apertus-0943bfd'"
    )


def test_an_audit_file_that_is_an_items_feed_stops_the_crawl(tmp_path: Path) -> None:
    """``REP_AUDIT_FILE`` naming a collection written earlier: the trail was appended to
    it; the file is left as it was."""
    items = tmp_path / "items.jsonl"
    items.write_bytes(b'{"url": "https://x.example/1"}\n')
    addon = ("-s", 'ADDONS={"scrapy_rep.Addon": 0}')
    status, stderr = scrapy(tmp_path, *addon, "-s", "REP_AUDIT_FILE=items.jsonl")
    assert status == 2, stderr
    assert one_error_line(stderr) == (
        "scrapy_rep: error: REP_AUDIT_FILE: items.jsonl is not an audit trail (its first line "
        "is not the run line a trail starts with): the trail would be appended to it; name "
        "another file"
    )
    assert items.read_bytes() == b'{"url": "https://x.example/1"}\n'


def test_an_audit_file_that_is_the_output_of_o_stops_the_crawl(tmp_path: Path) -> None:
    """``scrapy runspider one.py -o items.jsonl -s REP_AUDIT_FILE=items.jsonl``: the items
    and the trail's lines were written into one file."""
    addon = ("-s", 'ADDONS={"scrapy_rep.Addon": 0}')
    status, stderr = scrapy(
        tmp_path, *addon, "-o", "items.jsonl", "-s", "REP_AUDIT_FILE=items.jsonl"
    )
    assert status == 2, stderr
    assert one_error_line(stderr) == (
        "scrapy_rep: error: REP_AUDIT_FILE: items.jsonl is also the feed 'items.jsonl' of FEEDS "
        "(-o/-O): the trail's lines and the feed's items would be written into one file; give "
        "each its own file"
    )
    assert not (tmp_path / "items.jsonl").exists()
