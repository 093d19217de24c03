"""``recheck`` on a real crawl's collection after the site changed its mind.

A local site is crawled for ai-train with the trail on; then it changes its robots.txt
(a new ``Disallow``, a new ``Content-Usage`` line), its tdmrep.json and one page's
``X-Robots-Tag``. ``python -m scrapy_rep recheck`` on the trail (with ``--pages``), and on
the same items as JSON Lines, CSV and Parquet, and on a WARC of the new robots.txt and
tdmrep.json, finds exactly the changed items, each with its signal and line; the filtered
collection holds the rest; the recheck's trail verifies clean, and an edited one does not.

The commands run in this process (``python -m scrapy_rep``'s ``main``, Scrapy's
``scrapy.cmdline.execute`` in a project's folder), their crawls under the test's reactor;
in a process of their own only without a reactor, and for a trail that names the dataset
(an old behaviour's endless read ends in the process's timeout).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar
from unittest import mock

import pytest
import pytest_twisted
from twisted.internet.threads import deferToThread

from rep_audit.verify import verify
from rep_recheck.command import (
    EXIT_REMOVED,
    EXIT_USAGE,
    FetchRequest,
    Recheck,
    parser,
    run,
    settings_of,
)
from rep_recheck.files import MANIFEST
from scrapy_rep.crawl.commands.recheck_crawl import fetch_here
from tests.support.localhttp import QuietHandler, base_url_fixture, serving
from tests.support.loopcrawl import run_without_reactor
from tests.support.paths import checkout_environment
from tests.support.recheck import (
    needs,
    recheck_shards,
    recheck_tool,
    report_lines,
    robots_capture,
    visible_files,
    write_csv,
    write_jsonl,
    write_parquet,
    write_warc,
)
from tests.support.robotsite import (
    BASE_SETTINGS,
    ItemSpider,
    Reply,
    Sites,
    collecting_items,
    crawl,
    robots,
)
from tests.support.scrapyproject import make_project, project_settings
from tests.support.scrapyversions import needs_no_reactor, needs_scrapy
from tests.support.tools import NO_REACTOR, main_streams, scrapy_streams

PAGES = ("/ok/1", "/ok/2", "/gone/1", "/train/1", "/tdm/1", "/page/noai")
BEFORE = {
    "/robots.txt": "User-agent: *\nDisallow: /private\n",
    "/.well-known/tdmrep.json": "[]",
}
AFTER = {
    "/robots.txt": (
        "User-agent: *\nDisallow: /private\nDisallow: /gone\nContent-Usage: /train train-ai=n\n"
    ),
    "/.well-known/tdmrep.json": '[{"location": "/tdm/*", "tdm-reservation": 1}]',
}
#: What changed, as the recheck must say it: (signal, line or entry, text).
CHANGED = {
    "/gone/1": ("robots.txt", 3, "Disallow: /gone"),
    "/train/1": ("aipref", 4, "Content-Usage: /train train-ai=n"),
    "/tdm/1": ("tdmrep", 1, '(location "/tdm/*")'),
    "/page/noai": ("robots-meta", None, "X-Robots-Tag: noai"),
}


class Site(QuietHandler):
    """The site, as it says now (``state``: path -> body; ``noai``: the page's header)."""

    state: ClassVar[dict[str, str]] = dict(BEFORE)
    noai: ClassVar[list[bool]] = [False]

    def do_GET(self) -> None:
        if self.path in self.state:
            self.send(200, self.state[self.path].encode(), {"Content-Type": "text/plain"})
            return
        headers = {"Content-Type": "text/html"}
        if self.path == "/page/noai" and self.noai[0]:
            headers["X-Robots-Tag"] = "noai"
        self.send(200, f"<html><body>{self.path}</body></html>".encode(), headers)


site = base_url_fixture(Site, name="site")


_SITE_CRAWLED: list[tuple[Path, Path, list[str]]] = []


async def _crawled_site(
    site: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, list[str]]:
    """The crawl of the site as it was (once for the module), then the site changed: the
    trail, the items as ``-O items.jsonl`` writes them, their URLs."""
    if not _SITE_CRAWLED:
        tmp_path = tmp_path_factory.mktemp("recheck")
        trail = tmp_path / "crawl.jsonl"
        items: list[Any] = []
        Site.state.update(BEFORE)
        Site.noai[0] = False
        settings = {"REP_PURPOSE": "ai-train", "REP_AUDIT_FILE": str(trail), "ITEM_PIPELINES": {}}
        urls = [site + path for path in PAGES]
        await crawl(urls, settings, ItemSpider, collecting_items(items))
        assert sorted(item["url"] for item in items) == sorted(urls)  # all kept then
        Site.state.update(AFTER)
        Site.noai[0] = True
        dataset = tmp_path / "items.jsonl"
        write_jsonl(dataset, urls)
        _SITE_CRAWLED.append((trail, dataset, urls))
    return _SITE_CRAWLED[0]


#: What :func:`_recheck_command` adds to the command line.
RECHECK_OPTIONS = ("--purpose", "ai-train", "-A", str(BASE_SETTINGS["USER_AGENT"]),
                   "--no-progress", "-s", "REP_UNREACHABLE_MAX_WAIT=3")  # fmt: skip


async def _recheck_command(*argv: str) -> tuple[int, str]:
    """``python -m scrapy_rep recheck ARGV`` in this process: (exit status, stdout and then
    stderr). Its crawl under the test's reactor, as :func:`_rep_recheck_here` runs it;
    without a reactor (``-s TWISTED_REACTOR_ENABLED=False``), the whole run on an asyncio
    loop in a thread that runs none (tests/support/loopcrawl.py)."""
    argv = (*argv, *RECHECK_OPTIONS)
    options = parser().parse_args(list(argv))
    settings = settings_of(options)
    if NO_REACTOR in argv:
        code, out, err = await run_without_reactor(
            lambda: asyncio.run(_run_here(options, settings))
        )
    else:
        code, out, err = await _run_here(options, settings)
    return code, out + err


async def _run_here(options: Any, settings: dict[str, Any]) -> tuple[int, str, str]:
    """The recheck's :func:`run`, its documents fetched first by its crawl under the
    test's reactor, or on the running asyncio loop of a thread without one
    (:func:`fetch_here`), and handed to it as its crawl's result."""
    try:
        request = Recheck(options, settings, io.StringIO()).request
    except Exception:  # run says what, as the command does
        request = None
    fetched = await fetch_here(request) if request is not None else None

    def fetcher(asked: Any) -> Any:
        assert fetched is not None, "the recheck fetches what it did not ask for first"
        return fetched

    out, err = io.StringIO(), io.StringIO()
    code = run(options, settings, fetcher, out, err)
    return code, out.getvalue(), err.getvalue()


async def _rep_recheck_here(project: Path, *argv: str) -> tuple[int, str, str]:
    """``scrapy rep-recheck ARGV`` in ``project``'s folder, in this process: its command
    line and the project's settings read by Scrapy's own ``scrapy.cmdline.execute``; the
    documents it fetches, if any, fetched by its crawl under the test's reactor
    (:func:`fetch_here`) and handed to the recheck as its crawl's result. (exit status,
    stdout, stderr)."""
    handed: list[tuple[Any, dict[str, Any]]] = []

    def hand(options: Any, settings: dict[str, Any], fetcher: Any, out: Any = None) -> int:
        handed.append((options, settings))
        return 0

    with project_settings(project):
        with mock.patch("rep_recheck.command.run", hand):
            code, out, err = scrapy_streams("rep-recheck", *argv)
        if not handed:
            return code, out, err
        ((options, settings),) = handed
        code, more_out, more_err = await _run_here(options, settings)
    return code, out + more_out, err + more_err


@contextmanager
def _stdin_from(path: Path) -> Iterator[None]:
    """Standard input redirected from ``path``, as a shell's ``< path`` does: descriptor 0
    and ``sys.stdin``, as they were after."""
    with path.open("rb") as file:
        saved, stdin = os.dup(0), sys.stdin
        os.dup2(file.fileno(), 0)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, closefd=False))
        try:
            yield
        finally:
            sys.stdin = stdin
            os.dup2(saved, 0)
            os.close(saved)


def _changed(report: Path, site: str) -> dict[str, tuple[str, int | None, str]]:
    lines = report_lines(report)
    return {
        line["url"].removeprefix(site): (line.get("signal"), line.get("document_line"),
                                         line.get("text"))
        for line in lines if line["status"] != "kept"
    }  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_the_trail_rechecked_finds_exactly_what_the_site_changed(
    site: str,
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
    tool_mode: tuple[str, ...],
) -> None:
    trail, _, _ = await _crawled_site(site, tmp_path_factory)
    out, removed, report = tmp_path / "kept.jsonl", tmp_path / "removed.jsonl", tmp_path / "r.jsonl"
    own = tmp_path / "recheck.jsonl"
    code, said = await _recheck_command(*tool_mode, str(trail), "--pages", f"--out={out}",
                                  f"--removed={removed}", f"--report={report}",
                                  f"--trail={own}")  # fmt: skip
    assert code == EXIT_REMOVED, said
    assert _changed(report, site) == CHANGED
    lines = report_lines(report)
    assert all(line["then"] == "kept" for line in lines)
    assert {line["url"] for line in lines if line["changed"]} == {site + p for p in CHANGED}
    gone = next(line for line in lines if line["url"].endswith("/gone/1"))
    assert gone["document"] == f"{site}/robots.txt" and len(gone["sha256"]) == 64
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    # the assets still allowed, one a line: no export header, which would say of a part
    # that it is the whole trail's export
    assert all("export" not in asset for asset in kept)
    assert sorted(asset["url"] for asset in kept) == [site + "/ok/1", site + "/ok/2"]
    assert len(removed.read_text().splitlines()) == len(CHANGED)
    assert "| kept -> refused | robots.txt Disallow | 1 |" in said
    assert verify(own).clean
    forged = own.read_bytes().replace(b'"status":"refused"', b'"status":"kept"', 1)
    own.write_bytes(forged)
    assert not verify(own).clean


@pytest_twisted.ensureDeferred
async def test_json_lines_csv_and_parquet_are_rechecked_alike(
    site: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """Each through the library's two steps, its crawl in this process's reactor."""
    _, jsonl, urls = await _crawled_site(site, tmp_path_factory)
    csv_path, parquet = tmp_path / "items.csv", tmp_path / "items.parquet"
    rows = write_csv(csv_path, urls)
    write_parquet(parquet, urls)
    before_fetch = {path: said for path, said in CHANGED.items() if path != "/page/noai"}
    for dataset in (jsonl, csv_path, parquet):
        report, out = tmp_path / "report.jsonl", tmp_path / f"kept{dataset.suffix}"
        options = parser().parse_args([str(dataset), "--purpose", "ai-train", "--no-progress",
                                       f"--report={report}", f"--out={out}"])  # fmt: skip
        recheck = Recheck(options, {"USER_AGENT": BASE_SETTINGS["USER_AGENT"]}, io.StringIO())
        assert recheck.request is not None
        fetched = await fetch_here(recheck.request)
        assert fetched.downloads == 2  # robots.txt and tdmrep.json, once for the origin
        assert recheck.finish(fetched, io.StringIO()) == EXIT_REMOVED
        assert _changed(report, site) == before_fetch, dataset
    kept = {site + path for path in PAGES} - {site + path for path in before_fetch}
    assert csv_path.read_bytes().startswith((tmp_path / "kept.csv").read_bytes()[:11])
    assert (tmp_path / "kept.csv").read_bytes() == b"title,url\r\n" + b"".join(
        row for row, url in zip(rows, urls, strict=True) if url in kept
    )
    table = needs("pyarrow.parquet").read_table(str(tmp_path / "kept.parquet"))
    assert sorted(table.column("url").to_pylist()) == sorted(kept)


@pytest_twisted.ensureDeferred
async def test_shards_of_three_formats_are_rechecked_with_one_fetch(
    site: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """The items split over a JSON Lines, a CSV and a Parquet shard in one folder: the
    origin's documents are downloaded once for the three, and each shard's items are
    decided as the whole file's are."""
    _, _, urls = await _crawled_site(site, tmp_path_factory)
    data = tmp_path / "data"
    data.mkdir()
    write_jsonl(data / "a.jsonl", urls[:2])
    write_csv(data / "b.csv", urls[2:4])
    write_parquet(data / "c.parquet", urls[4:])
    report, out = tmp_path / "report.jsonl", tmp_path / "kept"
    options = parser().parse_args([str(data), "--purpose", "ai-train", "--no-progress",
                                   f"--report={report}", f"--out={out}"])  # fmt: skip
    recheck = Recheck(options, {"USER_AGENT": BASE_SETTINGS["USER_AGENT"]}, io.StringIO())
    assert recheck.request is not None and recheck.request.origins == [site]
    fetched = await fetch_here(recheck.request)
    assert fetched.downloads == 2  # robots.txt and tdmrep.json, once for the three shards
    summary = io.StringIO()
    assert recheck.finish(fetched, summary) == EXIT_REMOVED
    assert _changed(report, site) == {p: s for p, s in CHANGED.items() if p != "/page/noai"}
    shards = {line["url"]: line["shard"] for line in report_lines(report)}
    assert shards == {url: str(data / name) for url, name in zip(
        urls, ["a.jsonl"] * 2 + ["b.csv"] * 2 + ["c.parquet"] * (len(urls) - 4), strict=True
    )}  # fmt: skip
    assert "### Per shard" in summary.getvalue()
    assert sorted(path.name for path in out.iterdir()) == [
        MANIFEST, "a.jsonl", "b.csv", "c.parquet"
    ]  # fmt: skip


#: The library's two steps in a process without a reactor: ``fetch_here`` on the running
#: asyncio loop (``TWISTED_REACTOR_ENABLED = False``), after two calls it refuses at once.
_WITHOUT_A_REACTOR = """
import asyncio, io, json, sys
from scrapy_rep.crawl.commands.recheck_crawl import fetch_here
from rep_recheck.command import Recheck, parser
from tests.support.loopcrawl import child_settings

dataset, report, agent = sys.argv[1:4]
said = {}

def request(settings):
    options = parser().parse_args([dataset, "--purpose", "ai-train", "--no-progress",
                                   "--report=" + report])
    recheck = Recheck(options, {"USER_AGENT": agent, **settings}, io.StringIO())
    return recheck

try:  # no reactor, none asked to do without
    fetch_here(request({}).request)
except RuntimeError as error:
    said["no reactor"] = str(error)
try:  # no running loop
    fetch_here(request(child_settings({})).request)
except RuntimeError as error:
    said["no loop"] = str(error)

async def main():
    recheck = request(child_settings({}))
    fetched = await fetch_here(recheck.request)
    said["downloads"] = fetched.downloads
    said["code"] = recheck.finish(fetched, io.StringIO())
    said["reactor"] = "twisted.internet.reactor" in sys.modules

asyncio.run(main())
print(json.dumps(said))
"""


@needs_no_reactor()
@pytest_twisted.ensureDeferred
async def test_the_library_call_fetches_without_a_reactor_on_the_running_loop(
    site: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """``fetch_here`` with ``TWISTED_REACTOR_ENABLED = False``, awaited in a program that
    runs an asyncio loop and no reactor, fetches as in the reactor (the test above); called
    where that cannot run, it raises at once, one line naming the setting."""
    _, jsonl, _ = await _crawled_site(site, tmp_path_factory)
    report = tmp_path / "report.jsonl"
    done = await deferToThread(
        subprocess.run,
        [sys.executable, "-c", _WITHOUT_A_REACTOR, str(jsonl), str(report),
         BASE_SETTINGS["USER_AGENT"]],
        capture_output=True, text=True, timeout=120, check=False, env=checkout_environment(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.splitlines()[-1])
    assert said["downloads"] == 2 and said["code"] == EXIT_REMOVED
    assert said["reactor"] is False
    assert _changed(report, site) == {p: s for p, s in CHANGED.items() if p != "/page/noai"}
    assert said["no reactor"] == (
        "the recheck's crawl (fetch_here): no Twisted reactor is installed in this process: "
        "call it under a reactor, or set TWISTED_REACTOR_ENABLED = False to crawl on the "
        "running asyncio loop"
    )
    assert said["no loop"] == (
        "the recheck's crawl (fetch_here): TWISTED_REACTOR_ENABLED = False crawls on the "
        "running asyncio loop, and none runs: call it from a coroutine (asyncio.run)"
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


@needs_scrapy((2, 15), "crawls without a reactor")
def test_the_library_call_without_a_reactor_refuses_the_reactor_at_once() -> None:
    """This process runs a reactor: ``fetch_here`` asked to crawl without one raises at
    once, naming the setting, and starts nothing."""
    request = FetchRequest(["http://127.0.0.1:9"], {"TWISTED_REACTOR_ENABLED": False})
    with pytest.raises(RuntimeError) as raised:
        fetch_here(request)
    assert str(raised.value) == (
        "the recheck's crawl (fetch_here): TWISTED_REACTOR_ENABLED = False, but this process "
        "has a Twisted reactor installed: leave the setting out to crawl in that reactor"
    )


@pytest_twisted.ensureDeferred
async def test_a_warc_of_the_new_documents_gives_the_same_items(
    site: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    _, jsonl, _ = await _crawled_site(site, tmp_path_factory)
    warc = tmp_path / "robots.warc.gz"
    write_warc(warc, [
        robots_capture(site, AFTER["/robots.txt"]),
        (f"{site}/.well-known/tdmrep.json", 200, AFTER["/.well-known/tdmrep.json"].encode(), {}),
    ], compress=True)  # fmt: skip
    report, own = tmp_path / "report.jsonl", tmp_path / "recheck.jsonl"
    code, _ = recheck_tool(str(jsonl), "--purpose", "ai-train", "--documents", str(warc),
                           "-A", BASE_SETTINGS["USER_AGENT"], f"--report={report}",
                           f"--trail={own}")  # fmt: skip
    assert code == EXIT_REMOVED
    assert _changed(report, site) == {p: s for p, s in CHANGED.items() if p != "/page/noai"}
    assert all(line["record"].startswith("<urn:uuid:") for line in report_lines(report))
    assert verify(own).clean


@pytest_twisted.ensureDeferred
async def test_scrapy_rep_recheck_decides_with_the_projects_settings(tmp_path: Path) -> None:
    """``scrapy rep-recheck`` reads the project's ``USER_AGENT`` and ``REP_PURPOSE``: a
    group for its crawler's name refuses what another crawler may keep."""
    project = make_project(tmp_path, 'USER_AGENT = "mybot/1.0"\nREP_PURPOSE = "search"\n')
    warc = tmp_path / "robots.warc"
    robots = "User-agent: mybot\nDisallow: /no\n\nUser-agent: *\n"
    write_warc(warc, [robots_capture("https://a.example", robots)])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/no/1", "https://a.example/yes/1"])
    report = tmp_path / "report.jsonl"
    code, stdout, stderr = await _rep_recheck_here(
        project, str(dataset), "--documents", str(warc), f"--report={report}", "--no-progress"
    )
    assert code == EXIT_REMOVED, stderr
    statuses = [(line["url"], line["status"]) for line in report_lines(report)]
    assert statuses == [("https://a.example/no/1", "refused"), ("https://a.example/yes/1", "kept")]
    assert "agent `mybot`" in stdout


@pytest_twisted.ensureDeferred
async def test_scrapy_rep_recheck_obeys_robotstxt_as_the_addon_does_where_the_project_is_silent(
    tmp_path: Path,
) -> None:
    """A project whose settings.py leaves ``ROBOTSTXT_OBEY`` out crawls obeying robots.txt
    (the add-on turns it on where it is Scrapy's default): ``scrapy rep-recheck`` decides
    as that crawl does, and refuses what robots.txt disallows (it read Scrapy's default
    ``False`` as the project's, and kept every item)."""
    project = make_project(tmp_path, 'REP_PURPOSE = "search"\n')
    settings_py = project / "proj" / "settings.py"
    assert "ROBOTSTXT_OBEY = True" in settings_py.read_text()
    settings_py.write_text(settings_py.read_text().replace("ROBOTSTXT_OBEY = True", ""))
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/no/1", "https://a.example/yes/1"])
    report = tmp_path / "report.jsonl"
    code, _, stderr = await _rep_recheck_here(
        project, str(dataset), "--documents", str(warc), f"--report={report}", "--no-progress"
    )
    assert code == EXIT_REMOVED, stderr
    statuses = [(line["url"], line["status"]) for line in report_lines(report)]
    assert statuses == [("https://a.example/no/1", "refused"), ("https://a.example/yes/1", "kept")]


@pytest_twisted.ensureDeferred
async def test_scrapy_rep_recheck_reads_several_shards(tmp_path: Path) -> None:
    """``scrapy rep-recheck`` takes several DATASET files (Scrapy's arguments), one
    summary for them."""
    project = make_project(tmp_path, 'USER_AGENT = "mybot/1.0"\nREP_PURPOSE = "search"\n')
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    write_jsonl(one, ["https://a.example/no/1"])
    write_jsonl(two, ["https://a.example/yes/1"])
    code, stdout, stderr = await _rep_recheck_here(
        project, str(one), str(two), "--documents", str(warc), "--no-progress"
    )
    assert code == EXIT_REMOVED, stderr
    assert f"| `{one}` | jsonl | 1 | 0 | 1 | 0 |" in stdout
    assert f"| `{two}` | jsonl | 1 | 1 | 0 | 0 |" in stdout


# The command hands its crawl the project's settings whole, Scrapy's defaults among them:
# Scrapy 2.19 warns of two it deprecated (a process prints the same two warnings).
@pytest.mark.filterwarnings(
    "ignore:The RANDOMIZE_DOWNLOAD_DELAY setting is deprecated"
    ":scrapy.exceptions.ScrapyDeprecationWarning"
)
@pytest.mark.filterwarnings(
    "ignore:The DNS_RESOLVER setting is deprecated:scrapy.exceptions.ScrapyDeprecationWarning"
)
@pytest_twisted.ensureDeferred
async def test_scrapy_rep_recheck_leaves_a_dataset_the_projects_feed_would_overwrite(
    tmp_path: Path,
) -> None:
    """The project's ``FEEDS`` overwrites ``items.jsonl``: the recheck's crawl runs without
    the project's feeds and item pipelines, so ``scrapy rep-recheck items.jsonl`` (its
    documents fetched now) leaves the collection it re-checks as it was. The origin that
    cannot be connected to refuses its items (RFC 9309 §2.3.1.4)."""
    feeds = 'FEEDS = {"items.jsonl": {"format": "jsonlines", "overwrite": True}}\n'
    project = make_project(tmp_path, f'USER_AGENT = "mybot/1.0"\n{feeds}')
    dataset = project / "items.jsonl"
    write_jsonl(dataset, ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"])  # nothing listens
    before = dataset.read_bytes()
    report = tmp_path / "report.jsonl"
    code, _, stderr = await _rep_recheck_here(
        project, "items.jsonl", "--purpose", "search", f"--report={report}", "--no-progress",
        "-s", "REP_UNREACHABLE_CONNECT_MAX_WAIT=0", "-s", "REP_UNREACHABLE_MAX_WAIT=0",
    )  # fmt: skip
    assert dataset.read_bytes() == before
    assert code == EXIT_REMOVED, stderr
    said = [(line["status"], line["reason"]) for line in report_lines(report)]
    assert said == [("refused", "robotstxt_unreachable")] * 2


@pytest_twisted.ensureDeferred
async def test_scrapy_rep_recheck_refuses_a_misspelt_robotstxt_obey(tmp_path: Path) -> None:
    """The project's ``ROBOTSTXT_OBEY = "off"`` is refused as the crawl refuses it (one
    line naming it, exit 2), never read as false: robots.txt is not turned off by a typo."""
    project = make_project(tmp_path, 'ROBOTSTXT_OBEY = "off"\nREP_PURPOSE = "search"\n')
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/no/1"])
    code, stdout, stderr = await _rep_recheck_here(
        project, str(dataset), "--documents", str(warc), "--no-progress"
    )
    assert code == EXIT_USAGE, stdout + stderr
    errors = [line for line in stderr.splitlines() if line.strip()]
    assert errors == [
        "scrapy_rep: error: ROBOTSTXT_OBEY: expected a boolean (True, False, 1, 0, 'true', "
        "'false', '1' or '0'), got 'off'"
    ]
    assert stdout == ""


def test_a_trail_naming_the_dataset_is_refused(tmp_path: Path) -> None:
    """Appended to while it is read, it would read its own item lines back without end
    (a process of its own, so that the old behaviour ends in a timeout, not a hang;
    the other outputs naming an input: tests/recheck/test_files.py)."""
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/no/1", "https://a.example/yes"])
    before = dataset.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "scrapy_rep", "recheck", str(dataset), "--purpose", "search",
         "--documents", str(warc), f"--trail={dataset}", "--no-progress"],
        capture_output=True, text=True, timeout=60, check=False, env=checkout_environment(),
    )  # fmt: skip
    assert result.returncode == EXIT_USAGE, result.stderr
    assert "--trail" in result.stderr and "is the dataset" in result.stderr
    assert dataset.read_bytes() == before


@pytest.mark.parametrize("option", ["out", "trail"])
@pytest.mark.parametrize("named", ["path", "/proc/self/fd/0", "/dev/stdin"])
def test_an_output_naming_the_dataset_read_from_standard_input_is_refused(
    tmp_path: Path, option: str, named: str
) -> None:
    """``recheck - < items.jsonl --out items.jsonl``: standard input redirected from the
    file is that file, an input like any other; it was replaced by the kept items once
    the run was whole (in this process, its standard input redirected from the file as a
    shell does: :func:`_stdin_from`)."""
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, ["https://a.example/no/1", "https://a.example/yes"])
    before = dataset.read_bytes()
    output = str(dataset) if named == "path" else named
    with _stdin_from(dataset):
        code, _, stderr = main_streams(
            "recheck", "-", "--purpose", "search", "--documents", str(warc),
            f"--{option}={output}", "--no-progress",
        )  # fmt: skip
    assert dataset.read_bytes() == before, "the dataset was replaced"
    assert code == EXIT_USAGE, stderr
    assert stderr == (
        f"scrapy_rep: error: --{option} {output} is the dataset (standard input): writing it "
        "would destroy what the recheck reads; name another file\n"
    )


class _DisallowNo(QuietHandler):
    """A robots.txt that refuses ``/no``; nothing else."""

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send(200, b"User-agent: *\nDisallow: /no\n", {"Content-Type": "text/plain"})
        else:
            self.send(404, b"", {})


def test_python_dash_m_recheck_fetches_with_its_own_crawl_on_a_reactor(tmp_path: Path) -> None:
    """``python -m scrapy_rep recheck`` as a user runs it, its documents fetched by its own
    crawl on a reactor (:func:`scrapy_rep.crawl.commands.recheck_crawl.fetch`: Scrapy's
    ``CrawlerProcess``, started and run to its end). The tests above run that crawl under
    the test's reactor (``fetch_here``) or, in a process, without a reactor: since suite2
    nothing ran ``fetch`` on a reactor, and a ``crawler_process`` that fails there for
    every fetching recheck (and ``scrapy rep-recheck``) passed the whole suite."""
    with serving(_DisallowNo) as port:
        base = f"http://127.0.0.1:{port}"
        dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
        write_jsonl(dataset, [f"{base}/no/1", f"{base}/yes/1"])
        result = subprocess.run(
            [sys.executable, "-m", "scrapy_rep", "recheck", str(dataset), "--purpose", "search",
             f"--report={report}", "--no-progress"],
            capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
            env=checkout_environment(),
        )  # fmt: skip
    assert result.returncode == EXIT_REMOVED, result.stderr
    assert "Traceback" not in result.stderr
    assert "- Documents: fetched now, 1 download(s) for 1 origin(s)" in result.stdout
    statuses = [(line["url"], line["status"]) for line in report_lines(report)]
    assert statuses == [(f"{base}/no/1", "refused"), (f"{base}/yes/1", "kept")]


_CRASHING_RUN = """
import os, sys
from pathlib import Path
from rep_recheck import files
from tests.support.recheck import recheck_shards
real, calls = os.replace, []
def crashing(source, target):
    calls.append(target)
    if len(calls) == int(sys.argv[2]):
        os._exit(9)  # killed: nothing put back, no manifest written after
    real(source, target)
files.os.replace = crashing
recheck_shards(Path(sys.argv[1]), ["a.jsonl", "b.jsonl", "c.jsonl"])
"""


def test_a_rerun_after_a_run_killed_between_two_renames_writes_its_outputs(
    tmp_path: Path,
) -> None:
    """A run killed between two renames left some outputs new and the manifest the
    previous run's: the next run took the new ones for files of yours and stopped."""
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl", "c.jsonl"]) == EXIT_REMOVED
    kept = tmp_path / "kept"
    before = json.loads((kept / MANIFEST).read_text())["files"]
    root = str(Path(__file__).resolve().parents[2])
    killed = subprocess.run(
        [sys.executable, "-c", _CRASHING_RUN, str(tmp_path), "5"],
        env={**os.environ, "PYTHONPATH": root}, cwd=root, check=False, timeout=120,
    )  # fmt: skip
    assert killed.returncode == 9
    assert (kept / "a.jsonl").stat().st_ino != before["a.jsonl"][2]  # renamed: the new one
    assert recheck_shards(tmp_path, ["a.jsonl", "b.jsonl"]) == EXIT_REMOVED
    assert visible_files(kept) == ["a.jsonl", "b.jsonl"]


# --------------------------------------------------------------------------- a "no" had
# A "no" of a document that was had refuses, whatever was not had: the recheck's fetch
# and the crawl, on local origins whose tdmrep.json answers 503. ``no`` says no for
# ai-train in its robots.txt (``Content-Usage: train-ai=n``, and ``Disallow: /private``);
# ``quiet`` says nothing; ``down``'s robots.txt answers 503 too, and its tdmrep.json
# (answering) reserves ``/tdm/``. The recheck fetching their documents reported ``no``'s
# item and ``down``'s items ``unknown`` (written to ``--out`` with ``--keep-unknown``,
# exit 0) and ``audit verify`` failed its honest trail; they are refused by the
# ``Content-Usage`` line and by ``down``'s robots.txt given up on (RFC 9309 §2.3.1.4:
# complete disallow), and only the items nothing had says no to are unknown. The crawl
# refuses the requests
# (tests/recheck/test_rechecker_had_no.py has the WARC's case).

SAYS_NO = "User-agent: *\nDisallow: /private\nContent-Usage: train-ai=n\n"


def _sites() -> Sites:
    sites = Sites()
    sites.add("no").script("/robots.txt", robots(SAYS_NO))
    sites.add("quiet").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    for origin in sites.origins.values():
        origin.script("/.well-known/tdmrep.json", Reply(503))
    down = sites.add("down")
    down.script("/robots.txt", Reply(503))
    reserved = b'[{"location": "/tdm/*", "tdm-reservation": 1}]'
    down.script(
        "/.well-known/tdmrep.json", Reply(200, reserved, {"Content-Type": "application/json"})
    )
    return sites


@pytest_twisted.ensureDeferred
async def test_the_recheck_refuses_what_a_fetched_robotstxt_says_no_to(tmp_path: Path) -> None:
    sites = _sites()
    urls = [sites.url("no", "/x"), sites.url("no", "/private/1"), sites.url("quiet", "/x"),
            sites.url("down", "/tdm/1"), sites.url("down", "/x")]  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    lines = write_jsonl(dataset, urls)
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("out", "report", "trail")}
    options = [f"--{name}={path}" for name, path in paths.items()]
    try:
        code, said = await _recheck_command(str(dataset), "--keep-unknown", *options)
    finally:
        await sites.close()
    assert sites.requested("no").count("/.well-known/tdmrep.json") >= 1  # asked, not had
    assert code == EXIT_REMOVED, said
    report = {line["url"]: line for line in report_lines(paths["report"])}
    statuses = [(report[url]["status"], report[url]["signal"]) for url in urls]
    down = ("refused", "robotstxt_unreachable")
    assert statuses == [("refused", "aipref"), ("refused", "robots.txt"), ("unknown", "unknown"),
                        down, down]  # fmt: skip
    assert report[urls[0]]["text"] == "Content-Usage: train-ai=n"
    assert "503" in report[urls[2]]["why"] and "503" in report[urls[4]]["text"]
    assert paths["out"].read_bytes() == lines[2]  # what nothing had refuses
    by_signal = said[said.index("### Refusals by signal") :]
    assert "| aipref | 1 |" in by_signal and "| robotstxt_unreachable | 2 |" in by_signal
    result = verify(paths["trail"])
    assert result.clean, result.findings


@pytest_twisted.ensureDeferred
async def test_a_scope_of_robotstxt_alone_fetches_no_tdmrep_json(tmp_path: Path) -> None:
    """``--consult robots.txt``: the crawl fetches each origin's robots.txt and never its
    tdmrep.json (not consulted: a tdmrep.json that does not answer held the run for
    nothing); the robots.txt that answers 503 refuses its items."""
    sites = _sites()
    urls = [sites.url("no", "/x"), sites.url("quiet", "/x"), sites.url("down", "/x")]
    dataset, report = tmp_path / "items.jsonl", tmp_path / "report.jsonl"
    write_jsonl(dataset, urls)
    try:
        code, said = await _recheck_command(str(dataset), "--consult", "robots.txt",
                                            f"--report={report}")  # fmt: skip
    finally:
        await sites.close()
    assert code == EXIT_REMOVED, said
    for name in ("no", "quiet", "down"):
        assert "/robots.txt" in sites.requested(name)
        assert "/.well-known/tdmrep.json" not in sites.requested(name)
    lines = {line["url"]: line for line in report_lines(report)}
    statuses = [(lines[url]["status"], lines[url].get("reason")) for url in urls]
    assert statuses == [("refused", "purpose"), ("kept", None),
                        ("refused", "robotstxt_unreachable")]  # fmt: skip
    assert all(line["not_consulted"] == ["tdmrep.json", "rsl"] for line in lines.values())


@pytest.mark.parametrize("action", ["drop", "allow"])
@pytest_twisted.ensureDeferred
async def test_the_crawl_refuses_what_robotstxt_says_no_to_whatever_tdmrep_json_says(
    tmp_path: Path, action: str
) -> None:
    """The crawl holds the request while tdmrep.json (or robots.txt) is retried, then
    refuses it: given up on (``drop``), or by robots.txt's ``Content-Usage`` line or the
    tdmrep.json that answers (``allow``). Never sent."""
    sites = _sites()
    trail = tmp_path / "crawl.jsonl"
    urls = [sites.url("no", "/x"), sites.url("quiet", "/x"), sites.url("down", "/tdm/1")]
    settings = {
        "REP_PURPOSE": "ai-train",
        "REP_UNREACHABLE_ACTION": action,
        "REP_UNREACHABLE_MAX_WAIT": 1.0,
        "REP_AUDIT_FILE": str(trail),
    }
    try:
        _, spider = await crawl(urls, settings, ItemSpider)
    finally:
        await sites.close()
    assert "/x" not in sites.requested("no") and "/tdm/1" not in sites.requested("down")
    assert all(url in spider.dropped for url in (urls[0], urls[2]))
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    fates = {r["url"]: (r["fate"], r.get("refused_by")) for r in records if r["type"] == "url"}
    by = "unreachable" if action == "drop" else "purpose"
    assert fates[urls[0]] == fates[urls[2]] == ("refused", by)
    assert fates[urls[1]] == (("refused", "unreachable") if action == "drop" else ("fetched", None))
    result = verify(trail)
    assert result.clean, result.findings


@pytest_twisted.ensureDeferred
async def test_a_full_tmpdir_under_the_crawls_store_stops_the_run_in_one_line(
    site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documents the crawl fetches go to a store that spills to a temporary SQLite
    file: on a full TMPDIR its error ended the crawl's start, logged, and the run went on
    with the origins it had (the others unknown, exit 1). Now the crawl stops and the
    run says it in one line, exit 2."""
    import sqlite3

    from rep_recheck import store

    def full(self: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(
        store.DocumentStore.__init__, "__defaults__", (store.PARSED_ORIGINS, 1, None)
    )
    monkeypatch.setattr(store, "_BATCH", 1)
    monkeypatch.setattr(store.DocumentStore, "_write", full)
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [f"{site}/ok/1"])
    code, said = await _recheck_command(str(dataset), f"--report={tmp_path / 'report.jsonl'}")
    assert code == EXIT_USAGE, said
    error = [line for line in said.splitlines() if line.startswith("scrapy_rep: error")]
    assert len(error) == 1 and error[0].endswith(
        "the recheck's temporary files: database or disk is full (set TMPDIR to a folder with "
        "room for about the dataset's size)"
    ), said  # fmt: skip
    assert not (tmp_path / "report.jsonl").exists()
