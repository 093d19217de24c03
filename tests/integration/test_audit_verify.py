"""``audit verify`` on the trails of a real JOBDIR crawl paused and resumed into a new trail,
and on a real crawl's trail edited by a forger who recomputes the hash chain
(docs/audit-trail.md, '`verify`'; trails the tests write: tests/audit/test_verify.py)."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from tests.support.audittrail import by_url, edited_copy
from tests.support.robotsite import Sites, crawl, robots
from tests.support.tools import audit_tool


@pytest.mark.trail_not_verified("the resumed run's trail is verified with the paused one's")
@pytest_twisted.ensureDeferred
async def test_a_crawl_resumed_into_a_new_trail_is_verified_with_the_paused_ones(
    tmp_path: Path,
) -> None:
    """A real JOBDIR crawl paused with requests in flight and resumed with another
    REP_AUDIT_FILE: the resumed run's header names the paused run, its trail and the
    hash of its end line; the new trail alone is a problem naming the paused run, the
    two together are clean."""
    from tests.support.audittrail import paused_and_resumed, written_lines
    from tests.support.robotsite import BASE_SETTINGS, ListSpider, Reply, Sites

    sites = Sites()
    origin = sites.add("a")
    urls = [sites.url("a", f"/p{n}") for n in range(12)]
    for n in (2, 3):  # in flight at the pause; the rest wait in the JOBDIR queue
        origin.script(f"/p{n}", Reply(200, b"<html>slow</html>", {"Content-Type": "text/html"},
                                      delay=0.5))  # fmt: skip
    first, second = tmp_path / "paused.jsonl", tmp_path / "resumed.jsonl"
    settings = {**BASE_SETTINGS, "REP_AUDIT_FILE": str(first), "JOBDIR": str(tmp_path / "job"),
                "CONCURRENT_REQUESTS": 2}  # fmt: skip
    try:
        await paused_and_resumed(
            ListSpider, settings, urls, pause_after=2, wait=20,
            resumed={"REP_AUDIT_FILE": str(second)},
        )  # fmt: skip
    finally:
        await sites.close()
    paused, resumed = written_lines(first), written_lines(second)
    [header] = [line for line in resumed if line["type"] == "run"]
    assert paused[-1]["type"] == "end" and paused[-1]["reason"] == "shutdown"
    assert paused[-1]["counts"]["open"] > 0
    assert header["resumes"] == paused[0]["run"] and header["resumes_trail"] == str(first)
    ends = [line for line in first.read_bytes().splitlines(True) if b'"type":"end"' in line]
    assert header["resumes_head"] == hashlib.sha256(ends[-1]).hexdigest()
    assert {r["url"] for r in paused + resumed if r["type"] == "url"} == set(urls)
    status, out = audit_tool("verify", str(second))
    assert status == 1, out
    assert out.splitlines()[0] == (
        f"line 1: run {header['run'][:8]} resumes run {paused[0]['run']} (paused with JOBDIR; "
        f"its trail: {first}), which is not in this trail: the crawl's records before the "
        "pause are missing; verify the trails together (audit verify EARLIER THIS)"
    )
    status, out = audit_tool("verify", str(first), str(second))
    assert status == 0, out


def _sent_late(record: dict[str, Any]) -> None:
    """Sent 30 s after its override ended (``REP_OVERRIDES`` expires 2099-01-01: through
    that day, UTC), its ``expires`` dropped."""
    record["sent_at"] = "2099-01-02T00:00:30.000Z"
    record.pop("expires", None)


def _sent_late_ends_dropped(record: dict[str, Any]) -> None:
    _sent_late(record)
    del record["robots"]["override_ends"]


def _sent_late_ends_moved(record: dict[str, Any]) -> None:
    _sent_late(record)
    record["robots"]["override_ends"] = "2099-01-03T00:00:00.000Z"


#: (what the forger did, the edit, what verify must say).
LATE_SENDS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("sent 30 s after the override ended, expires dropped", _sent_late,
     "after the override it went past had expired (2099-01-02T00:00:00.000Z)"),
    ("the same, override_ends dropped too", _sent_late_ends_dropped,
     "after the override it went past had expired (2099-01-01, as the run's REP_OVERRIDES "
     "says)"),
    ("the same, override_ends moved a day later", _sent_late_ends_moved,
     "an override ending at 2099-01-03T00:00:00.000Z, but the run's REP_OVERRIDES ends it "
     "at 2099-01-02T00:00:00.000Z"),
]  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_a_request_sent_after_its_override_expired_fails_verify_whatever_its_words(
    tmp_path: Path,
) -> None:
    """docs/audit-trail.md, ``override_ends``: a request an override let past robots.txt
    records when that override ends as a value (its words, ``…, through 2099-01-01,
    UTC``, are for people). A record edited to have been sent 30 s after it, its
    ``expires`` dropped and the chain recomputed, fails verify: by its ``override_ends``,
    else by the run's ``REP_OVERRIDES``; an ``override_ends`` moved later is caught by
    the run's ``REP_OVERRIDES``."""
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    trail = tmp_path / "trail.jsonl"
    settings = {
        "REP_AUDIT_FILE": str(trail),
        "REP_OVERRIDES": [{"host": "127.0.0.1", "reason": "ok", "expires": "2099-01-01"}],
    }
    url = sites.url("a", "/private/1")
    try:
        await crawl([url], settings)
    finally:
        await sites.close()
    robots_part = by_url(trail)[url]["robots"]
    assert robots_part["overridden"] == "ok, through 2099-01-01, UTC"
    assert robots_part["override_ends"] == "2099-01-02T00:00:00.000Z"
    for number, (what, edit, finding) in enumerate(LATE_SENDS):
        forged = edited_copy(trail, tmp_path / f"forged{number}.jsonl", url, edit)
        status, out = audit_tool("verify", str(forged))
        assert status == 1 and finding in out, f"{what}:\n{out}"


def _not_kept(count: int) -> Callable[[dict[str, Any]], None]:
    def edit(record: dict[str, Any]) -> None:
        record["items_not_kept"] = count

    return edit


@pytest_twisted.ensureDeferred
async def test_a_page_record_claiming_more_items_not_kept_than_its_run_let_through_fails(
    tmp_path: Path,
) -> None:
    """docs/audit-trail.md, ``items_not_kept``: the items the page pass let through that a
    later component of the crawl dropped. A page record edited to say 10**12 of them (the
    chain recomputed) verified clean: nothing bounded it. The end line counts the items
    the run's page pass let through (``items_passed``): a record claiming more fails, at
    its line."""
    from tests.support.robotsite import ItemSpider

    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    trail = tmp_path / "trail.jsonl"
    pipeline = "tests.integration.test_report.DropInAPipeline"
    settings = {"REP_AUDIT_FILE": str(trail), "ITEM_PIPELINES": {pipeline: 300}}
    kept, piped = sites.url("a", "/kept"), sites.url("a", "/piped")
    try:
        await crawl([kept, piped], settings, ItemSpider)
    finally:
        await sites.close()
    records = by_url(trail)
    assert (records[piped]["items_kept"], records[piped]["items_not_kept"]) == (0, 1)
    assert records[kept]["items_kept"] == 1 and "items_not_kept" not in records[kept]
    for number, url in enumerate((piped, kept)):
        forged = edited_copy(trail, tmp_path / f"forged{number}.jsonl", url, _not_kept(10**12))
        status, out = audit_tool("verify", str(forged))
        [line] = [n for n, text in enumerate(forged.read_text().splitlines(), 1)
                  if json.loads(text).get("url") == url and '"type":"url"' in text]  # fmt: skip
        said = f"line {line}: {url}: items_not_kept 1000000000000 is more than"
        assert status == 1 and said in out, out
        assert "2 item(s) its page pass let through" in out, out


async def _books_reserved_crawl(
    tmp_path: Path,
) -> tuple[Sites, Path, dict[str, dict[str, Any]], str, str]:
    """A crawl for ai-train with a trail of site a's /first and /books/x, which its
    tdmrep.json reserves (refused): its sites (closed), trail, records by URL and the two
    URLs."""
    from tests.support.robotsite import HTML, ItemSpider, Reply

    sites = Sites()
    a = sites.add("a")
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    reserved = json.dumps([{"location": "/books/*", "tdm-reservation": 1}]).encode()
    a.script("/.well-known/tdmrep.json", Reply(200, reserved, {"Content-Type": "application/json"}))
    for path in ("/first", "/books/x"):
        a.script(path, Reply(200, b"<html>page</html>", HTML))
    trail = tmp_path / "trail.jsonl"
    first, books = sites.url("a", "/first"), sites.url("a", "/books/x")
    settings = {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": ["ai-train"]}
    try:
        await crawl([first, books], settings, ItemSpider)
    finally:
        await sites.close()
    records = by_url(trail)
    assert (records[books]["fate"], records[books]["refused_by"]) == ("refused", "purpose")
    return sites, trail, records, first, books


@pytest_twisted.ensureDeferred
async def test_a_tdmrep_refusal_rewritten_as_kept_with_its_tdmrep_json_given_up_fails(
    tmp_path: Path,
) -> None:
    """docs/audit-trail.md, ``tdmrep``: ``""`` names a tdmrep.json given up on as
    unreachable, which the crawl reads as everything reserved (``REP_UNREACHABLE_ACTION``
    ``drop``, the default). A request its tdmrep.json refused for ai-train, rewritten as
    its page fetched with its item kept and its tdmrep.json given up on (the end line's
    counts moved to match, the chain recomputed), verified clean: a crawl's ``""`` was
    read as no file, nothing reserved. It fails now, at its line."""
    sites, trail, records, first, books = await _books_reserved_crawl(tmp_path)
    forged = _sent_instead(trail, tmp_path / "forged.jsonl", books, records[first], tdmrep="")
    status, out = audit_tool("verify", str(forged))
    origin = sites.bases["a"]
    said = f"{books}: recorded fetched, but Dropped: tdmrep.json of {origin} given up on"
    assert status == 1 and said in out, out
    assert "the end line counts" not in out, out  # the one finding: the counts match


def _sent_instead(
    trail: Path, to: Path, url: str, template: dict[str, Any], *drop: str, **kept: Any
) -> Path:
    """``trail`` with the record of ``url`` (refused) rewritten as ``template``'s
    request (a page fetched, or a redirect) and its own fields, sent when its record was
    written, ``kept`` kept and the fields ``drop`` left out, the end line's counts moved
    to match and the chain recomputed, at ``to``, its snapshots copied."""
    from tests.support.trailfactory import encode

    lines = [json.loads(line) for line in trail.read_bytes().splitlines()]
    for line in lines:
        line.pop("prev", None)
        if line.get("url") == url:
            own = {key: line[key] for key in ("run", "time", "id", "url", "site_prev")}
            line.clear()
            line.update({**template, **own, "sent_at": own["time"], **kept})
            for name in ("prev", *drop):
                line.pop(name, None)
        elif line["type"] == "end":
            counts, fate = line["counts"], template["fate"]
            counts.update({fate: counts[fate] + 1, "refused": counts["refused"] - 1})
            counts["items_passed"] += template.get("items_kept", 0)
    to.write_bytes(b"".join(encode(lines)))
    shutil.copytree(trail.with_name(trail.name + ".d"), to.with_name(to.name + ".d"))
    return to


@pytest.mark.parametrize(
    ("url", "sent_as", "drop", "left_out"),
    [
        ("a/books/x", "/first", "tdmrep", "tdmrep.json of {a}"),
        ("a/books/x", "/old", "tdmrep", "tdmrep.json of {a}"),
        ("r/x", "/first", "rsl", "RSL license {lic}/no-train.xml"),
    ],
    ids=["tdmrep.json, as fetched", "tdmrep.json, as redirected", "RSL license, as fetched"],
)
@pytest_twisted.ensureDeferred
async def test_a_refusal_rewritten_as_sent_naming_no_document_that_refused_it_fails(
    tmp_path: Path, url: str, sent_as: str, drop: str, left_out: str
) -> None:
    """docs/audit-trail.md, ``tdmrep`` and ``rsl``: from schema 2 a record names every
    document version it was decided against. A request its tdmrep.json (or an RSL
    license its robots.txt names) refused for ai-train, rewritten as a page fetched (or a
    redirect) with that document left out of its record (the end line's counts moved to
    match, the chain recomputed), verified clean under the default settings: a
    tdmrep.json not named was read as none read, a license not named as no license. It
    fails now, at its line: a request sent was decided with them, and names them."""
    from tests.support.robotsite import HTML, ItemSpider, Reply, rsl_reply

    sites = Sites()
    a, r, lic = sites.add("a"), sites.add("r"), sites.add("lic")
    lic.script("/no-train.xml", rsl_reply('<prohibits type="usage">ai-train</prohibits>'))
    a.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    reserved = json.dumps([{"location": "/books/*", "tdm-reservation": 1}]).encode()
    a.script("/.well-known/tdmrep.json", Reply(200, reserved, {"Content-Type": "application/json"}))
    a.script("/old", Reply(302, b"", {"Location": "/second"}))
    license_line = f"License: {sites.url('lic', '/no-train.xml')}\n"
    r.script("/robots.txt", robots("User-agent: *\nAllow: /\n" + license_line))
    for site, path in (("a", "/first"), ("a", "/books/x"), ("a", "/second"), ("r", "/x")):
        sites.origins[site].script(path, Reply(200, b"<html>page</html>", HTML))
    trail = tmp_path / "trail.jsonl"
    name, path = url.split("/", 1)
    refused, template = sites.url(name, f"/{path}"), sites.url("a", sent_as)
    urls = [sites.url("a", "/first"), sites.url("a", "/old"), refused]
    try:
        await crawl(urls, {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": ["ai-train"]}, ItemSpider)
    finally:
        await sites.close()
    records = by_url(trail)
    assert (records[refused]["fate"], records[refused]["refused_by"]) == ("refused", "purpose")
    own = {key: records[refused][key] for key in ("robots", "tdmrep")}
    forged = _sent_instead(trail, tmp_path / "forged.jsonl", refused, records[template], drop,
                           **own)  # fmt: skip
    status, out = audit_tool("verify", str(forged))
    [line] = [n for n, text in enumerate(forged.read_text().splitlines(), 1)
              if json.loads(text).get("url") == refused and '"type":"url"' in text]  # fmt: skip
    said = f"line {line}: {refused}: recorded {records[template]['fate']}, but names no "
    assert status == 1 and said + left_out.format(**sites.bases) in out, out
    assert "the end line counts" not in out, out  # the one finding: the counts match


@pytest_twisted.ensureDeferred
async def test_a_tdmrep_refusal_rewritten_as_kept_naming_another_sites_tdmrep_json_fails(
    tmp_path: Path,
) -> None:
    """docs/audit-trail.md, ``tdmrep``: the snapshot of the origin's tdmrep.json the
    request was decided with. A request its tdmrep.json refused for ai-train, rewritten
    as its page fetched with its item kept, naming the tdmrep.json another site of the
    crawl served (a 404: no reservation; the end line's counts moved to match, the chain
    recomputed), verified clean: the snapshot a record named was read whatever site it
    was announced for. It fails now, at its line: a schema 2 record names one its own
    crawl announced for its origin's tdmrep.json."""
    from tests.support.robotsite import HTML, ItemSpider, Reply

    sites = Sites()
    a, b = sites.add("a"), sites.add("b")
    for site in (a, b):
        site.script("/robots.txt", robots("User-agent: *\nAllow: /\n"))
    reserved = json.dumps([{"location": "/books/*", "tdm-reservation": 1}]).encode()
    a.script("/.well-known/tdmrep.json", Reply(200, reserved, {"Content-Type": "application/json"}))
    b.script("/.well-known/tdmrep.json", Reply(404))
    for site in (a, b):
        site.script("/first", Reply(200, b"<html>page</html>", HTML))
    a.script("/books/x", Reply(200, b"<html>page</html>", HTML))
    trail = tmp_path / "trail.jsonl"
    first, books, other = (
        sites.url("a", "/first"),
        sites.url("a", "/books/x"),
        sites.url("b", "/first"),
    )
    settings = {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": ["ai-train"]}
    try:
        await crawl([first, books, other], settings, ItemSpider)
    finally:
        await sites.close()
    records = by_url(trail)
    assert (records[books]["fate"], records[books]["refused_by"]) == ("refused", "purpose")
    forged = _sent_instead(trail, tmp_path / "forged.jsonl", books, records[first],
                           tdmrep=records[other]["tdmrep"])  # fmt: skip
    status, out = audit_tool("verify", str(forged))
    named, run = records[other]["tdmrep"][:12], records[books]["run"][:8]
    said = (f"{books}: names the tdmrep.json snapshot {named}…, which its crawl {run} did not "
            f"announce for {sites.bases['a']}/.well-known/tdmrep.json")  # fmt: skip
    assert status == 1 and said in out, out
    assert "the end line counts" not in out, out  # the one finding: the counts match


@pytest_twisted.ensureDeferred
async def test_a_tdmrep_refusal_relabelled_answered_naming_no_tdmrep_json_fails(
    tmp_path: Path,
) -> None:
    """docs/audit-trail.md, ``answered``: a response a downloader middleware before
    scrapy_rep's made itself, whose page's items are decided with the documents its crawl
    had, and whose record names them (``tdmrep``). A request its tdmrep.json refused for
    ai-train, relabelled a page answered without a download with its item kept and no
    ``tdmrep`` (the end line's counts moved to match, the chain recomputed), verified
    clean, its "no" out of sight: a tdmrep.json not named was read as none had. It fails
    now, as a robots.txt left out does: its crawl had one before it."""
    sites, trail, records, first, books = await _books_reserved_crawl(tmp_path)
    forged = _sent_instead(trail, tmp_path / "forged.jsonl", books, records[first], "tdmrep",
                           "sent_at", "expires", "held", answered=True, attempts=0)  # fmt: skip
    status, out = audit_tool("verify", str(forged))
    said = (f"{books}: answered without a download, but names no tdmrep.json of "
            f"{sites.bases['a']}, though its crawl had one before it")  # fmt: skip
    assert status == 1 and said in out, out
    assert "the end line counts" not in out, out  # the one finding: the counts match
