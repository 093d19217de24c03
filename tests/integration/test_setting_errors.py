"""Every setting error is one line naming the setting, and the crawl stops before any
request, also for the settings that used to give a traceback: a Redis URL without the
redis package, and a wrong ``REP_PROFILE`` with ``ROBOTSTXT_PARSER =
"scrapy_rep.RobotParser"`` (no add-on). The crawls run in this process
(:func:`~tests.support.robotsite.refused_at_start`: the line ``scrapy`` prints, from the
:class:`~rep_engine.settings.readers.RepSettingError` the crawl raises before its spider opens),
with the values as ``-s`` gives them (strings); that ``scrapy crawl`` prints the line
alone on standard error and exits 2: tests/integration/test_setting_names.py, the one
process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted

from tests.support.paths import checkout_environment
from tests.support.robotsite import BASE_SETTINGS, crawl, refused_at_start

#: ``-s JOBDIR=job``: the crawl's folder, relative to where it runs (the test's tmp_path).
JOBDIR = {"JOBDIR": "job"}


@pytest.fixture
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's tmp_path as the crawl's working folder (its relative paths)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest_twisted.ensureDeferred
async def test_redis_url_without_redis_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)  # the redis package made unimportable
    line = await refused_at_start({"REP_ROBOTSTXT_CACHE": "redis://127.0.0.1:1/0"})
    assert line == (
        "scrapy_rep: error: REP_ROBOTSTXT_CACHE: 'redis://127.0.0.1:1/0' needs the redis "
        "package, which is not installed: pip install 'redis>=5' (scrapy_rep's redis extra)"
    )


@pytest_twisted.ensureDeferred
async def test_wrong_profile_with_only_the_parser() -> None:
    without_addon = {k: v for k, v in BASE_SETTINGS.items() if k != "ADDONS"}
    parser = {"ROBOTSTXT_OBEY": "True", "ROBOTSTXT_PARSER": "scrapy_rep.RobotParser"}
    line = await refused_at_start({**parser, "REP_PROFILE": "gogle"}, without_addon)
    assert line == (
        "scrapy_rep: error: REP_PROFILE: expected one of 'google', 'rfc9309', 'legacy', got 'gogle'"
    )


@pytest_twisted.ensureDeferred
async def test_an_empty_purpose_on_the_command_line_stops_the_crawl() -> None:
    """``-s REP_PURPOSE=$PURPOSE`` with the shell variable empty: not a search crawl."""
    line = await refused_at_start({"REP_PURPOSE": ""})
    assert line == (
        "scrapy_rep: error: REP_PURPOSE: expected one of 'search', 'ai-train', 'ai-input' or "
        "a list of them, got '' (leave it out for a search crawl)"
    )


@pytest_twisted.ensureDeferred
async def test_a_jobdir_crawl_resumed_with_another_purpose_stops(
    in_tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A ``JOBDIR`` crawl run as ai-train and resumed with ``-s REP_PURPOSE=search`` (or
    with the ``-s`` forgotten) stops at start, naming the setting and both values; resumed
    as it ran, it goes on; the file named in the line, deleted, accepts the change."""
    await crawl([], {**JOBDIR, "REP_PURPOSE": "ai-train"})
    kept = in_tmp_path / "job" / "scrapy_rep.settings.json"
    resumes = [
        ({"REP_PURPOSE": "search"}, "['search']"),
        ({}, "['search']"),  # the -s forgotten
        ({"REP_PURPOSE": "ai-train,search"}, "['ai-train', 'search']"),
    ]
    for changed, shown in resumes:
        line = await refused_at_start({**JOBDIR, **changed})
        assert line == (
            f"scrapy_rep: error: REP_PURPOSE: the crawl in JOBDIR job ran with ['ai-train'], "
            f"this run has {shown}: resume it with the same settings, or delete "
            "job/scrapy_rep.settings.json to "
            "go on under the new ones"
        )
    await crawl([], {**JOBDIR, "REP_PURPOSE": "ai-train"})
    line = await refused_at_start(
        {**JOBDIR, "REP_PURPOSE": "ai-train", "REP_PROFILE": "rfc9309", "ROBOTSTXT_OBEY": "False"}
    )
    assert line.startswith(
        "scrapy_rep: error: ROBOTSTXT_OBEY: the crawl in JOBDIR job ran with True, this run "
        "has False; REP_PROFILE changed too: "
    )
    kept.unlink()
    caplog.clear()
    await crawl([], {**JOBDIR, "REP_PURPOSE": "search"})
    assert not [r for r in caplog.records if "REP_PURPOSE" in r.getMessage()]


@pytest_twisted.ensureDeferred
async def test_a_jobdir_crawl_whose_settings_file_is_damaged_does_not_resume(
    in_tmp_path: Path,
) -> None:
    """``JOBDIR/scrapy_rep.settings.json`` cut in half (a disk full, a copy stopped): what
    the crawl ran with is not known, so the resume stops at start naming the file, and the
    file is left as it is; it is not read as absent and written afresh with this run's
    values (a crawl paused as search resumed as ai-train without a word). Deleted, the
    crawl goes on under the new values, as the line says."""
    await crawl([], {**JOBDIR, "REP_PURPOSE": "search"})
    kept = in_tmp_path / "job" / "scrapy_rep.settings.json"
    whole = kept.read_bytes()
    cut = whole[: len(whole) // 2]
    kept.write_bytes(cut)
    line = await refused_at_start({**JOBDIR, "REP_PURPOSE": "ai-train"})  # the spider not opened
    assert line.startswith(
        "scrapy_rep: error: JOBDIR: job/scrapy_rep.settings.json is damaged (not JSON: "
    ), line
    assert line.endswith(
        "it holds the settings the crawl in JOBDIR job ran with, which this run must match; "
        "restore it, or delete it to go on under this run's settings"
    ), line
    assert kept.read_bytes() == cut
    kept.write_text('{"purpose": "search"}')  # JSON, but not the settings
    line = await refused_at_start({**JOBDIR, "REP_PURPOSE": "ai-train"})
    assert "job/scrapy_rep.settings.json is damaged (no settings object)" in line
    kept.unlink()
    await crawl([], {**JOBDIR, "REP_PURPOSE": "ai-train"})


@pytest_twisted.ensureDeferred
async def test_an_unknown_crawler_name_preset_stops_the_crawl_naming_it() -> None:
    line = await refused_at_start({"REP_PURPOSE_AGENTS": "preset:iptc-2026-03"})
    assert line == (
        "scrapy_rep: error: REP_PURPOSE_AGENTS: unknown preset 'preset:iptc-2026-03'; the "
        "presets are 'preset:apertus-0943bfd'"
    )


@pytest_twisted.ensureDeferred
async def test_an_audit_file_that_is_an_items_feed_stops_the_crawl(in_tmp_path: Path) -> None:
    """``REP_AUDIT_FILE`` naming a collection written earlier: the trail was appended to
    it; the file is left as it was."""
    items = in_tmp_path / "items.jsonl"
    items.write_bytes(b'{"url": "https://x.example/1"}\n')
    line = await refused_at_start({"REP_AUDIT_FILE": "items.jsonl"})
    assert line == (
        "scrapy_rep: error: REP_AUDIT_FILE: items.jsonl is not an audit trail (its first line "
        "is not the run line a trail starts with): the trail would be appended to it; name "
        "another file"
    )
    assert items.read_bytes() == b'{"url": "https://x.example/1"}\n'


@pytest_twisted.ensureDeferred
async def test_an_audit_file_that_is_the_output_of_o_stops_the_crawl(in_tmp_path: Path) -> None:
    """``scrapy runspider one.py -o items.jsonl -s REP_AUDIT_FILE=items.jsonl``: the items
    and the trail's lines were written into one file (``-o items.jsonl`` is this feed)."""
    feeds = {"FEEDS": {"items.jsonl": {"format": "jsonl"}}}
    line = await refused_at_start({**feeds, "REP_AUDIT_FILE": "items.jsonl"})
    assert line == (
        "scrapy_rep: error: REP_AUDIT_FILE: items.jsonl is also the feed 'items.jsonl' of FEEDS "
        "(-o/-O): the trail's lines and the feed's items would be written into one file; give "
        "each its own file"
    )
    assert not (in_tmp_path / "items.jsonl").exists()


#: A spider, for the processes of the test below (``%s``: its own custom_settings).
ONE_SPIDER = """
import scrapy


class One(scrapy.Spider):
    name = "one"
    custom_settings = {%s}
    start_urls = ["http://127.0.0.1:9/"]

    def parse(self, response):
        pass
"""
#: A reactor that is not asyncio's: Scrapy builds the engine in a Deferred under it.
SELECT_REACTOR = "TWISTED_REACTOR=twisted.internet.selectreactor.SelectReactor"
#: Setting errors found once the crawl is under way (the spider's own settings, the
#: engine's downloader middlewares): (the spider's custom_settings, the ``-s`` options,
#: the line).
BUILT_WITH_THE_ENGINE = {
    "the spider's custom_settings": (
        '"ADDONS": {"scrapy_rep.Addon": 0}, "REP_CACHE_TTL": "a day"',
        (),
        "REP_CACHE_TTL: expected a number, got 'a day'",
    ),
    "a Redis store": (
        "",
        ('ADDONS={"scrapy_rep.Addon": 0}', "REP_ROBOTSTXT_CACHE=redis://127.0.0.1:1/0"),
        "REP_ROBOTSTXT_CACHE: a Redis store needs Scrapy's asyncio reactor (TWISTED_REACTOR = "
        "'twisted.internet.asyncioreactor.AsyncioSelectorReactor') or no reactor "
        "(TWISTED_REACTOR_ENABLED = False)",
    ),
    "the parser alone": (
        "",
        ("ROBOTSTXT_OBEY=True", "ROBOTSTXT_PARSER=scrapy_rep.RobotParser", "REP_PROFILE=gogle"),
        "REP_PROFILE: expected one of 'google', 'rfc9309', 'legacy', got 'gogle'",
    ),
}


@pytest.mark.parametrize("case", list(BUILT_WITH_THE_ENGINE))
def test_a_setting_error_under_another_reactor_stops_scrapy_in_one_line(
    tmp_path: Path, case: str
) -> None:
    """Under a reactor that is not asyncio's, Scrapy starts the crawl (the add-on's
    check of the spider's own settings, the engine's downloader middlewares: the
    robots.txt parser's first instance, the store) in a Deferred, which catches the
    ``SystemExit`` of :func:`~scrapy_rep.crawl.startup.stop_at_start`: the line, then
    "Unhandled error in Deferred" with a traceback, and exit status 0 (the spider's
    custom_settings, the parser alone); the Redis store is a bare raise: a traceback and
    exit status 1. Every
    setting error is one line and exit status 2 under the ``scrapy`` command (SPEC §5).
    Processes: :func:`refused_at_start`, in this process, catches the error either way
    and cannot tell (test_wrong_profile_with_only_the_parser above, a process until
    suite2, under the asyncio reactor)."""
    custom, options, line = BUILT_WITH_THE_ENGINE[case]
    (tmp_path / "one.py").write_text(ONE_SPIDER % custom)
    given = [arg for option in (*options, SELECT_REACTOR) for arg in ("-s", option)]
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "runspider", "one.py", "-s", "TELNETCONSOLE_ENABLED=0",
         *given],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
        env=checkout_environment(),
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stderr
    errors = [text for text in result.stderr.splitlines() if "scrapy_rep: error:" in text]
    assert errors == [f"scrapy_rep: error: {line}"]
