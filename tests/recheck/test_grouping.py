"""A recheck whose items visit more origins than ``REP_RECHECK_PARSED_ORIGINS`` in no
particular order (:mod:`rep_recheck.grouping`): the rest of its items are grouped by
origin on disk, each origin's documents made once, and every output (report, kept and
removed items, summary, trail) is the same bytes, in the dataset's order, as a recheck
that holds every origin parsed and decides in the dataset's order; sorted or shuffled,
each item is decided the same. The chunks and groups are made tiny so that a few dozen
items take the path a million do."""

from __future__ import annotations

import errno
import gc
import hashlib
import io
import itertools
import json
import os
import random
import sqlite3
import tempfile
import weakref
import zlib
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_engine.fetch.cache import CacheEntry
from rep_engine.fetch.kinds import TDMREP
from rep_engine.fetch.rsl_kind import RSL
from rep_engine.robotstxt import parse_robotstxt
from rep_engine.urls.origins import origin_of
from rep_engine.usage.tdmrep import NO_FILE
from rep_engine.verdict.decide import LICENSE, ROBOTS, TDM
from rep_engine.verdict.page import PageStatements
from rep_recheck import grouping
from rep_recheck import names as recheck_names
from rep_recheck.command import (
    EXIT_INTERRUPTED,
    EXIT_REMOVED,
    EXIT_USAGE,
    FetchRequest,
    FetchResult,
    PageRead,
    main,
)
from rep_recheck.documents import OriginDocuments
from rep_recheck.grouping import Grouped, groups_for
from rep_recheck.store import DocumentStore
from rep_recheck.warc import WarcDocuments
from tests.support.recheck import fail_reading, needs, robots_capture, write_warc

NOW = 1_700_000_000.0
FAR = 1e20
RSL_URL = "https://licenses.example/rsl.xml"
RSL_BODY = (
    b'<rsl xmlns="https://rslstandard.org/rsl"><content url="/">'
    b'<license><prohibits type="usage">ai-train</prohibits></license></content></rsl>'
)
TDM_BODY = b'[{"location": "/tdm/*", "tdm-reservation": 1}]'
ORIGINS = 24
PATHS = ("/private/1", "/tdm/2", "/open/3", "/")


def _downloaded(kind: Any, body: bytes) -> CacheEntry[Any]:
    return CacheEntry(kind.read(body, False), "200", NOW, FAR, FAR, 200, zlib.compress(body),
                      False, 100, hashlib.sha256(body).hexdigest())  # fmt: skip


def _site_documents(name: str) -> OriginDocuments | None:
    """Origin ``o<N>``'s documents: a Disallow for /private, for some a tdmrep.json that
    reserves /tdm/ (else none), for some a license that refuses ai-train (one URL for
    all: its snapshot is named by items of several groups); every seventh had none."""
    number = int(name.split("//o")[1].split(".")[0])
    if number % 7 == 6:
        return None
    origin = origin_of(f"{name}/")
    assert origin is not None
    found = OriginDocuments(origin, now=NOW)
    body = b"User-agent: *\nDisallow: /private\n"
    if number % 5 == 0:
        body += f"License: {RSL_URL}\n".encode()
    robots = CacheEntry(parse_robotstxt(body), "200", NOW, FAR, FAR, 200, zlib.compress(body),
                        sha256=hashlib.sha256(body).hexdigest())  # fmt: skip
    found.add(ROBOTS, origin, robots, record=f"<urn:uuid:{number}>")
    if number % 3 == 0:
        found.add(TDM, origin, _downloaded(TDMREP, TDM_BODY))
    else:
        found.add(TDM, origin, CacheEntry(NO_FILE, "404", NOW, FAR, FAR, 404))
    if number % 5 == 0:
        found.add(LICENSE, RSL_URL, _downloaded(RSL, RSL_BODY))
    return found


def _item_lines(shuffled: bool, seed: int = 3) -> list[bytes]:
    """Each origin's items (twice each path), origin by origin or shuffled, with a few
    lines that cannot be read."""
    urls = [f"https://o{n}.example{path}" for n in range(ORIGINS) for path in PATHS * 2]
    lines = [(json.dumps({"url": url, "n": place}) + "\n").encode()
             for place, url in enumerate(urls)]  # fmt: skip
    if shuffled:
        random.Random(seed).shuffle(lines)
    for place in (5, 40, 41):
        lines.insert(place, b'{"url": "ftp://x.example/"}\n' if place == 40 else b"not json\n")
    return lines


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 8 items and groups of 16: the grouped path on a few dozen items."""
    monkeypatch.setattr("rep_recheck.datasets.CHUNK_ITEMS", 8)
    monkeypatch.setattr(grouping, "GROUP_ITEMS", 16)


def _grouping_run(
    folder: Path,
    datasets: list[str],
    held: int,
    *extra: str,
    pages: dict[str, PageRead | str] | None = None,
    interrupted: str = "",
    verified: bool = True,
) -> tuple[int, dict[str, Any], DocumentStore]:
    """A recheck of ``datasets`` (in ``folder``) with ``held`` origins parsed at most and
    every output; its exit status, its outputs (the trail without run ids, times and
    chain, the summary without its trail line; ``verified``: ``audit verify`` passes
    it) and its document store."""
    store = DocumentStore(held)

    def fetcher(request: FetchRequest) -> FetchResult:
        fetched = list(request.origins)
        if interrupted:
            fetched = fetched[: len(fetched) // 2]
        for name in fetched:
            found = _site_documents(name)
            if found is not None:
                store[name] = found
        return FetchResult(store, dict(pages or {}), interrupted=interrupted)

    several = len(datasets) > 1
    names = {"report": "report.jsonl", "out": "kept" if several else "kept.jsonl",
             "removed": "removed" if several else "removed.jsonl", "summary": "summary.md",
             "trail": "trail.jsonl"}  # fmt: skip
    argv = [*datasets, "--purpose", "ai-train", "--no-progress", "-s",
            f"REP_RECHECK_PARSED_ORIGINS={held}", *extra,
            *(f"--{option}={folder / name}" for option, name in names.items())]  # fmt: skip
    code = main(argv, io.StringIO(), fetcher)
    outputs: dict[str, Any] = {}
    for option, name in names.items():
        path = folder / name
        if path.is_dir():
            outputs[option] = {p.name: p.read_bytes() for p in sorted(path.iterdir())
                               if not p.name.startswith(".")}  # fmt: skip
        elif path.exists():
            outputs[option] = path.read_bytes()
    if "summary" in outputs:
        outputs["summary"] = [line for line in outputs["summary"].decode().splitlines()
                              if not line.startswith("Trail:")]  # fmt: skip
    if "trail" in outputs:
        if verified:
            verification = verify(folder / "trail.jsonl")
            assert verification.clean, verification.findings
        outputs["trail"] = [_comparable(line) for line in outputs["trail"].splitlines()]
    return code, outputs, store


def _comparable(raw: bytes) -> dict[str, Any]:
    """A trail line as two runs can share it: no run id, time or chain, not the bound;
    a tree head without its hashes (of lines that hold those)."""
    line = json.loads(raw)
    for key in ("run", "time", "prev"):
        line.pop(key, None)
    if line.get("type") == "head":
        for key in ("root", "frontier", "signature"):
            line.pop(key, None)
    line.get("settings", {}).pop("REP_RECHECK_PARSED_ORIGINS", None)
    if "page" in line:
        line["page"].pop("decided", None)
    return dict(line)


def _grouped_at(err: str) -> int:
    """The items decided in the dataset's order before the rest was grouped (none: the
    first pass told that the items visit their origins in no order)."""
    said = [line for line in err.splitlines() if "grouped by origin on disk" in line]
    assert len(said) == 1, err
    if "(its first pass)" in said[0]:
        return 0
    return int(said[0].split("the first ", 1)[1].split(" items", 1)[0].replace(",", ""))


def _with_documents() -> int:
    return sum(1 for n in range(ORIGINS) if n % 7 != 6)


def test_items_in_no_order_are_grouped_by_origin_and_written_as_in_order(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shuffled over 24 origins with 3 parsed at most: the first pass tells, the items
    are grouped from the start, each origin's documents made once (a recheck that decides
    in order made them again for nearly every item), and every output is the bytes of a
    recheck that holds all 24."""
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True)))
    (tmp_path / "grouped").mkdir()
    (tmp_path / "whole").mkdir()
    code, grouped, store = _grouping_run(tmp_path / "grouped", [str(dataset)], 3)
    before = _grouped_at(capsys.readouterr().err)
    whole_code, whole, whole_store = _grouping_run(tmp_path / "whole", [str(dataset)], 1000)
    assert "grouped by origin" not in capsys.readouterr().err
    assert code == whole_code == EXIT_REMOVED
    assert grouped == whole
    assert set(grouped) == {"report", "out", "removed", "summary", "trail"}
    statuses = {json.loads(line)["status"] for line in grouped["report"].splitlines()}
    assert statuses == {"kept", "refused", "unknown", "unreadable"}
    assert any(line["type"] == "snapshot" and line["kind"] == "rsl" for line in grouped["trail"])
    # parses per origin: one
    assert before == 0
    assert store.parses == whole_store.parses == _with_documents()
    assert set(store.parsed_times()) == {1}


@pytest.mark.parametrize("documents", ["fetched", "older captures"])
def test_the_write_back_holds_no_origin_s_documents_parsed(
    tmp_path: Path, tiny: None, monkeypatch: pytest.MonkeyPatch, documents: str
) -> None:
    """Once every grouped item is decided, writing them back in the dataset's order asks
    for no origin's documents: none is held parsed while the counts and the trail grow by
    each origin (the store's, the decider's and the evidence memo's let go; with older
    captures, those of the deciders of each refused item's ``then`` too)."""
    held_parsed: list[int] = []
    replay = Grouped.replay

    def watched(self: Grouped) -> Any:
        gc.collect()
        held_parsed.append(sum(type(o) is OriginDocuments for o in gc.get_objects()))
        return replay(self)

    monkeypatch.setattr(Grouped, "replay", watched)
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True)))
    extra: list[str] = []
    if documents == "older captures":  # /private refused now, allowed then
        extra = _warc_of_sites(tmp_path / "now.warc")
        older = [robots_capture(f"https://o{n}.example", "User-agent: *\nAllow: /\n")
                 for n in range(ORIGINS)]  # fmt: skip
        write_warc(tmp_path / "older.warc", older, date="2025-01-01T00:00:00Z")
        extra += ["--documents", str(tmp_path / "older.warc")]
    code, outputs, store = _grouping_run(tmp_path, [str(dataset)], 3, *extra)
    assert code == EXIT_REMOVED and outputs["out"]
    assert held_parsed == [0]
    if documents == "fetched":
        assert store.parses == _with_documents()  # each origin still made once
    else:
        assert b'"then":"kept"' in outputs["report"]


def test_sorted_and_shuffled_items_are_decided_the_same(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same items sorted by origin (decided in order, nothing grouped) and shuffled
    (grouped): the same decision and evidence for each, the same kept and removed lines,
    the same summary."""
    results = {}
    for order in ("sorted", "shuffled"):
        folder = tmp_path / order
        folder.mkdir()
        (folder / "items.jsonl").write_bytes(b"".join(_item_lines(shuffled=order == "shuffled")))
        results[order] = _grouping_run(folder, [str(folder / "items.jsonl")], 3)
        assert ("grouped by origin" in capsys.readouterr().err) is (order == "shuffled")
    by_item = {}
    for order, (_, outputs, _) in results.items():
        data = (tmp_path / order / "items.jsonl").read_bytes().splitlines()
        said = {}
        for report in map(json.loads, outputs["report"].splitlines()):
            said[data[report.pop("line") - 1]] = report
        by_item[order] = said
    assert by_item["sorted"] == by_item["shuffled"]
    for output in ("out", "removed"):
        assert sorted(results["sorted"][1][output].splitlines()) == sorted(
            results["shuffled"][1][output].splitlines()
        )
    # the same summary, but its title (the dataset's path) and which signal removed most
    # of an origin's items where two removed as many (the first met in its items' order)
    summaries = [[line.rsplit("|", 2)[0] if line.startswith("| https://") else line
                  for line in results[order][1]["summary"][1:]] for order in results]  # fmt: skip
    assert summaries[0] == summaries[1]
    assert results["sorted"][2].parses == _with_documents()


def _grouping_shards(data: Path) -> None:
    """A collection of five files: two origins in order, then shuffled items (JSON Lines,
    CSV), an empty file, and more."""
    lines = _item_lines(shuffled=True)
    data.mkdir()
    (data / "a.jsonl").write_bytes(b"".join(_item_lines(shuffled=False)[:12]))
    (data / "b.jsonl").write_bytes(b"".join(lines[10:120]))
    rows = ["title,url"] + [f"t{n},{json.loads(line)['url']}" for n, line in
                            enumerate(lines[120:170]) if line.startswith(b"{")]  # fmt: skip
    (data / "c.csv").write_text("\r\n".join(rows) + "\r\n")
    (data / "d.jsonl").write_bytes(b"")
    (data / "e.jsonl").write_bytes(b"".join(lines[170:]))


@pytest.mark.parametrize("documents", ["fetched", "warc"])
def test_shards_grouped_are_written_each_to_its_own_file(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str], documents: str
) -> None:
    """A collection of five files, grouped from the start (its first pass told), or from
    the middle of its second (a WARC's recheck reads it once: told as it decides): each
    shard's kept and removed items in its own file and format (a CSV's header, an empty
    shard's empty files), the table per shard, the report's and trail's shards, as in
    order."""
    _grouping_shards(tmp_path / "data")
    extra: list[str] = []
    if documents == "warc":
        needs("warcio")
        warc = tmp_path / "robots.warc"
        sites = [f"https://o{n}.example" for n in range(ORIGINS) if n % 7 != 6]
        write_warc(warc, [robots_capture(s, "User-agent: *\nDisallow: /private\n")
                          for s in sites])  # fmt: skip
        extra = ["--purpose", "search", "--documents", str(warc)]
    (tmp_path / "grouped").mkdir()
    (tmp_path / "whole").mkdir()
    code, grouped, _ = _grouping_run(tmp_path / "grouped", [str(tmp_path / "data")], 3, *extra)
    before = _grouped_at(capsys.readouterr().err)
    assert before == 0 if documents == "fetched" else before > 16  # in b.jsonl
    whole_code, whole, _ = _grouping_run(tmp_path / "whole", [str(tmp_path / "data")], 1000,
                                         *extra)  # fmt: skip
    assert code == whole_code and grouped == whole
    assert sorted(grouped["out"]) == ["a.jsonl", "b.jsonl", "c.csv", "d.jsonl", "e.jsonl"]
    assert grouped["out"]["d.jsonl"] == b"" and grouped["out"]["c.csv"].startswith(b"title,url")
    assert any(line.startswith("| `") and "d.jsonl" in line for line in grouped["summary"])


def test_parquet_shards_are_grouped_and_written_back_with_their_schema(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    needs("pyarrow")
    import pyarrow
    import pyarrow.parquet as parquet

    urls = [json.loads(line)["url"] for line in _item_lines(shuffled=True) if line.startswith(b"{")]
    data = tmp_path / "data"
    data.mkdir()
    for part in range(2):
        chosen = urls[part::2]
        table = pyarrow.table({"url": chosen, "n": list(range(len(chosen)))})
        parquet.write_table(table, str(data / f"part-{part}.parquet"), row_group_size=8)
    (tmp_path / "grouped").mkdir()
    (tmp_path / "whole").mkdir()
    monkeypatch.setattr("rep_recheck.datasets.PARQUET_ROWS_BATCH", 8)
    code, grouped, _ = _grouping_run(tmp_path / "grouped", [str(data)], 3)
    _grouped_at(capsys.readouterr().err)
    whole_code, whole, _ = _grouping_run(tmp_path / "whole", [str(data)], 1000)
    assert code == whole_code and grouped == whole
    kept = parquet.read_table(pyarrow.BufferReader(grouped["out"]["part-0.parquet"]))
    assert kept.schema.names == ["url", "n"] and kept.num_rows > 0


@pytest.mark.parametrize(
    "options", [["--keep-unknown"], ["-A", "mybot"], ["--consult", "robots.txt"]]
)
def test_the_options_decide_the_grouped_items_as_in_order(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True, seed=11)))
    (tmp_path / "grouped").mkdir()
    (tmp_path / "whole").mkdir()
    code, grouped, _ = _grouping_run(tmp_path / "grouped", [str(dataset)], 2, *options)
    _grouped_at(capsys.readouterr().err)
    assert (code, grouped) == _grouping_run(tmp_path / "whole", [str(dataset)], 1000, *options)[:2]


def test_pages_fetched_again_decide_grouped_items_as_in_order(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--pages``: a page's noai refuses its item, one not fetched again is unknown."""
    lines = _item_lines(shuffled=True)
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(lines))
    urls = [json.loads(line)["url"] for line in lines if line.startswith(b"{")]
    pages: dict[str, PageRead | str] = {}
    for place, url in enumerate(dict.fromkeys(urls)):
        if place % 4 == 1:
            pages[url] = "404"
        else:
            said = (("x-robots-tag", "noai"),) if place % 4 == 2 else ()
            pages[url] = PageRead(PageStatements(said), time=NOW)
    (tmp_path / "grouped").mkdir()
    (tmp_path / "whole").mkdir()
    code, grouped, _ = _grouping_run(
        tmp_path / "grouped", [str(dataset)], 3, "--pages", pages=pages
    )
    _grouped_at(capsys.readouterr().err)
    whole = _grouping_run(tmp_path / "whole", [str(dataset)], 1000, "--pages", pages=pages)
    assert (code, grouped) == whole[:2]
    whys = [json.loads(line).get("why", "") for line in grouped["report"].splitlines()]
    assert any(why.startswith("page not fetched again") for why in whys)


def test_an_interrupted_fetch_writes_the_trail_grouped_and_exits_3(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C during the fetch (half the origins fetched): the run says it was
    interrupted, writes no --out, --removed or --report, ends its trail so, exit 3."""
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True)))
    (tmp_path / "grouped").mkdir()
    (tmp_path / "whole").mkdir()
    code, grouped, _ = _grouping_run(
        tmp_path / "grouped", [str(dataset)], 3, interrupted="shutdown"
    )
    err = capsys.readouterr().err
    _grouped_at(err)
    assert "Interrupted (shutdown)" in err
    whole = _grouping_run(tmp_path / "whole", [str(dataset)], 1000, interrupted="shutdown")
    assert code == EXIT_INTERRUPTED and (code, grouped) == whole[:2]
    assert set(grouped) == {"summary", "trail"}
    end = [line for line in grouped["trail"] if line["type"] not in ("site", "head")][-1]
    assert end["type"] == "end" and end["reason"] == "interrupted"


@pytest.mark.parametrize(("as_of", "refused"), [("", "/open/"), ("2025-07-01", "/private/")])
def test_older_captures_say_then_of_grouped_items_as_in_order(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str], as_of: str, refused: str
) -> None:
    """Documents from three WARCs (January: all allowed; June: /private disallowed;
    September: /open disallowed), each item dated: ``then`` and ``changed`` of each
    item, kept or refused now, read from the older capture, as a recheck decided in order says them
    (no first pass: told as it decides); with ``--as-of``, decided as of June."""
    needs("warcio")
    sites = [f"https://o{n}.example" for n in range(ORIGINS)]
    warcs = []
    for month, rules in (
        ("01", "Allow: /"),
        ("06", "Disallow: /private"),
        ("09", "Disallow: /open"),
    ):
        warc = tmp_path / f"{month}.warc"
        write_warc(warc, [robots_capture(s, f"User-agent: *\n{rules}\n") for s in sites],
                   date=f"2025-{month}-01T00:00:00Z")  # fmt: skip
        warcs += ["--documents", str(warc)]
    urls = [f"{site}{path}" for site in sites for path in PATHS * 2]
    random.Random(7).shuffle(urls)
    dataset = tmp_path / "items.jsonl"
    dataset.write_text("".join(json.dumps({"url": url, "date": "2025-03-01"}) + "\n"
                               for url in urls))  # fmt: skip
    options = ["--purpose", "search", *warcs, "--date-column", "date"]
    options += ["--as-of", as_of] if as_of else []
    outputs = {}
    for tag, held in (("grouped", 3), ("whole", 1000)):
        folder = tmp_path / tag
        folder.mkdir()
        code, said, _ = _grouping_run(folder, [str(dataset)], held, *options)
        err = capsys.readouterr().err
        assert ("grouped by origin" in err) is (tag == "grouped")
        outputs[tag] = (code, said)
    assert outputs["grouped"] == outputs["whole"]
    report = [json.loads(line) for line in outputs["grouped"][1]["report"].splitlines()]
    assert {(line["status"], line.get("then"), line.get("changed")) for line in report} == {
        ("kept", "kept", False),
        ("refused", "kept", True),
    }
    assert {line["url"].split(".example")[1][:len(refused)] for line in report
            if line["status"] == "refused"} == {refused}  # fmt: skip


@pytest.mark.parametrize("step", ["add", "decide", "replay"])
def test_a_stop_while_grouping_leaves_the_outputs_and_no_temporary_file(
    tmp_path: Path, tiny: None, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """Ctrl-C (or any error) while the items are grouped, while the groups are decided,
    or while they are written back in the dataset's order (some of the kept and removed
    items, the report's lines written): every output left as it was, the temporary
    folder of the groups removed; the trail's run ends as failed, its counts those of
    the items it holds (the items decided but not written back are not in it), so that
    `audit verify` passes it (checked as the trail is closed)."""
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True)))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    made: list[Path] = []
    add, decide, replay = Grouped.add, Grouped.decide, Grouped.replay

    def stopped_adding(self: Grouped, *args: Any, **kwargs: Any) -> None:
        made.append(self.folder)
        if len(made) > 3:
            raise KeyboardInterrupt
        add(self, *args, **kwargs)

    def stopped_deciding(self: Grouped, *args: Any, **kwargs: Any) -> Any:
        made.append(self.folder)
        yield from itertools.islice(decide(self, *args, **kwargs), 1)
        raise KeyboardInterrupt

    def stopped_writing(self: Grouped) -> Any:
        made.append(self.folder)
        yield from itertools.islice(replay(self), 3)
        raise KeyboardInterrupt

    stopped = {"add": stopped_adding, "decide": stopped_deciding, "replay": stopped_writing}
    monkeypatch.setattr(Grouped, step, stopped[step])
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "kept.jsonl").write_bytes(b"before\n")
    with pytest.raises(KeyboardInterrupt):
        _grouping_run(folder, [str(dataset)], 3)
    assert made and not made[0].exists()
    assert (folder / "kept.jsonl").read_bytes() == b"before\n"
    assert not any((folder / name).exists() for name in ("removed.jsonl", "report.jsonl",
                                                          "summary.md"))  # fmt: skip
    assert list(temporary.iterdir()) == []
    trail = [json.loads(line) for line in (folder / "trail.jsonl").read_text().splitlines()]
    end = [line for line in trail if line["type"] not in ("site", "head")][-1]  # they follow it
    assert end["type"] == "end" and end["reason"] == "failed"
    items = sum(1 for line in trail if line["type"] == "item")
    assert end["counts"].get("items", 0) == items
    assert verify(folder / "trail.jsonl").clean


def _warc_of_sites(path: Path) -> list[str]:
    """A WARC of the origins' robots.txt (a Disallow for /private; every seventh origin
    not captured) and the options that decide with it (no first pass: a WARC's recheck
    tells as it decides that its items are to be grouped)."""
    needs("warcio")
    sites = [f"https://o{n}.example" for n in range(ORIGINS) if n % 7 != 6]
    write_warc(path, [robots_capture(s, "User-agent: *\nDisallow: /private\n") for s in sites])
    return ["--purpose", "search", "--documents", str(path)]


@pytest.mark.parametrize("documents", ["fetched", "warc"])
def test_an_origin_spread_through_the_file_is_made_once_once_grouped(
    tmp_path: Path,
    tiny: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    documents: str,
) -> None:
    """One origin's items at the start, in the middle and at the end of a shuffled
    file: decided as in order, and each origin's documents made once after the items
    are grouped (grouped from the start: once in all; told as a WARC's recheck decides:
    once more at most than before)."""
    lines = _item_lines(shuffled=True)
    others = [line for line in lines if b"//o0." not in line]
    spread = [line for line in _item_lines(shuffled=False) if b"//o0." in line]
    half = len(others) // 2
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join([spread[0], *others[:half], *spread[1:4], *others[half:],
                                  *spread[4:]]))  # fmt: skip
    extra = _warc_of_sites(tmp_path / "robots.warc") if documents == "warc" else []
    asked: list[tuple[str, bool]] = []
    grouped_now = [False]
    made, decide = WarcDocuments.__call__, Grouped.decide

    def counted(self: WarcDocuments, origin: Any) -> Any:
        asked.append((str(origin), grouped_now[0]))
        return made(self, origin)

    def deciding(self: Grouped, *args: Any) -> Any:
        grouped_now[0] = True
        return decide(self, *args)

    monkeypatch.setattr(WarcDocuments, "__call__", counted)
    monkeypatch.setattr(Grouped, "decide", deciding)
    outputs = {}
    for tag, held in (("grouped", 3), ("whole", 1000)):
        folder = tmp_path / tag
        folder.mkdir()
        code, said, store = _grouping_run(folder, [str(dataset)], held, *extra)
        before = _grouped_at(capsys.readouterr().err) if tag == "grouped" else None
        outputs[tag] = (code, said)
        if tag == "grouped" and documents == "fetched":
            assert before == 0 and set(store.parsed_times()) == {1}
        if tag == "grouped" and documents == "warc":
            assert before is not None and before > 0
            after = [name for name, grouped in asked if grouped]
            assert sorted(after) == sorted(set(after)) and "https://o0.example" in after
    assert outputs["grouped"] == outputs["whole"]


def test_a_shard_that_fails_half_way_stops_the_grouped_run_as_it_stops_in_order(
    tmp_path: Path,
    tiny: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A collection whose second file reads at first and fails later (a file cut, a disk
    error), met while the rest of the dataset is grouped (a WARC's recheck, told as it
    decides the first file): the same error and exit status as in order, every output
    left as it was, the temporary folder removed; the trail (appended to in place) holds
    the items decided before the stop, the ordered run's first lines, and its end line
    says the run failed and counts those items (`audit verify` passes it)."""
    fail_reading(monkeypatch, "b.jsonl")
    data = tmp_path / "data"
    data.mkdir()
    lines = _item_lines(shuffled=True)
    (data / "a.jsonl").write_bytes(b"".join(lines[:185]))
    (data / "b.jsonl").write_bytes(b"".join(lines[185:]) + b"".join(lines[:20]))
    extra = _warc_of_sites(tmp_path / "robots.warc")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    said = {}
    for tag, held in (("grouped", 3), ("whole", 1000)):
        folder = tmp_path / tag
        folder.mkdir()
        (folder / "report.jsonl").write_bytes(b"before\n")
        code, outputs, _ = _grouping_run(folder, [str(data)], held, *extra)
        err = capsys.readouterr().err
        assert ("grouped by origin" in err) is (tag == "grouped")
        error = [line for line in err.splitlines() if "error:" in line]
        *items, end = [
            line for line in outputs.pop("trail") if line["type"] not in ("site", "head")
        ]
        assert end["type"] == "end" and end["reason"] == "failed"
        assert end["error"] == f"{data / 'b.jsonl'}: cannot read: Input/output error"
        assert end["counts"]["items"] == sum(1 for line in items if line["type"] == "item")
        said[tag] = (code, error, outputs, items)
        assert list(temporary.iterdir()) == []
    assert said["grouped"][:3] == said["whole"][:3]
    code, error, outputs, items = said["grouped"]
    assert code == EXIT_USAGE and len(error) == 1 and "b.jsonl" in error[0]
    assert outputs == {"report": b"before\n", "out": {}, "removed": {}}
    assert 0 < len(items) < len(said["whole"][3]) and said["whole"][3][: len(items)] == items


@pytest.mark.parametrize("as_of", ["", "2025-05-01"])
def test_captures_that_disagree_decide_grouped_items_as_in_order(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str], as_of: str
) -> None:
    """Each origin's robots.txt captured twice at one date, saying opposite things for
    half of them (neither is the newer: not had, their items unknown) and the same for
    the others, again months later for some, and with a date that cannot be read for
    others (an answer that disagrees: not had, its items unknown, but as of a date);
    items of one origin spelt several ways (case, a default port, userinfo), dated:
    each item decided, and its ``then``, as in order, with ``--as-of`` too."""
    needs("warcio")
    sites = [f"https://o{n}.example" for n in range(ORIGINS)]
    allow, private = "User-agent: *\nAllow: /\n", "User-agent: *\nDisallow: /private\n"
    warcs = {"april.warc": ("2025-04-01T00:00:00Z", []), "june.warc": ("2025-06-01T00:00:00Z", []),
             "undated.warc": ("the day after", [])}  # fmt: skip
    for number, site in enumerate(sites):
        twice = (allow, private) if number % 2 else (private, private)
        warcs["april.warc"][1].extend(robots_capture(site, text) for text in twice)
        if number % 3 == 0:
            warcs["june.warc"][1].append(robots_capture(site, "User-agent: *\nDisallow: /\n"))
        if number % 4 == 1:
            warcs["undated.warc"][1].append(robots_capture(site, "User-agent: *\nDisallow: /tdm\n"))
    options = ["--purpose", "search", "--date-column", "date"]
    for name, (date, captures) in warcs.items():
        write_warc(tmp_path / name, captures, date=date)
        options += ["--documents", str(tmp_path / name)]
    options += ["--as-of", as_of] if as_of else []
    spellings = ("https://o{}.example", "https://O{}.EXAMPLE:443", "https://user@o{}.example")
    urls = [spellings[turn % 3].format(n) + path
            for n in range(ORIGINS) for turn, path in enumerate(PATHS * 2)]  # fmt: skip
    random.Random(13).shuffle(urls)
    dataset = tmp_path / "items.jsonl"
    dataset.write_text("".join(json.dumps({"url": url, "date": f"2025-0{3 + n % 5}-15"}) + "\n"
                               for n, url in enumerate(urls)))  # fmt: skip
    outputs = {}
    for tag, held in (("grouped", 3), ("whole", 1000)):
        folder = tmp_path / tag
        folder.mkdir()
        code, said, _ = _grouping_run(folder, [str(dataset)], held, *options)
        assert ("grouped by origin" in capsys.readouterr().err) is (tag == "grouped")
        outputs[tag] = (code, said)
    assert outputs["grouped"] == outputs["whole"]
    report = [json.loads(line) for line in outputs["grouped"][1]["report"].splitlines()]
    # captures of one date that disagree are not had (refused), now and as of a date
    assert {line["status"] for line in report} == {"kept", "refused"}
    assert any("answer otherwise" in line.get("text", "") for line in report)
    assert len({line.get("then") for line in report}) > 2


class _FullDisk:
    """A grouping file on a full disk: every write fails as the system's does."""

    def __init__(self, file: Any) -> None:
        self._file = file

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


def test_a_full_disk_while_grouping_says_where_and_what_to_do(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grouping's files (about the dataset's size, in TMPDIR) on a full disk: exit 2
    with one line that names the file and says to set TMPDIR (not "a file: No space
    left on device", which points at no file the user named), the outputs as they were,
    the temporary folder removed."""
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True)))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    opened = grouping.Blocks.__init__

    def on_full_disk(self: grouping.Blocks, *args: Any) -> None:
        opened(self, *args)
        self._file = _FullDisk(self._file)

    monkeypatch.setattr(grouping.Blocks, "__init__", on_full_disk)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "report.jsonl").write_bytes(b"before\n")
    code, outputs, _ = _grouping_run(folder, [str(dataset)], 3, verified=False)
    error = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert code == EXIT_USAGE and len(error) == 1, error
    assert error[0].startswith(f"scrapy_rep: error: {temporary}/rep-recheck-")
    assert "/items: No space left on device" in error[0] and "set TMPDIR" in error[0]
    assert outputs["report"] == b"before\n" and "out" not in outputs
    assert list(temporary.iterdir()) == []


class _Record(list):  # type: ignore[type-arg]
    """A group's record as read, which a weak reference tells gone."""


@pytest.mark.parametrize(("held", "group_items"), [(3, 16), (3, 1000), (1, 1000)])
def test_an_origin_that_holds_most_items_is_decided_without_holding_its_group(
    tmp_path: Path,
    tiny: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    held: int,
    group_items: int,
) -> None:
    """One origin with most of a shuffled dataset's items: its group is far more than a
    group's share (a hash partition cannot split one origin), so it is decided as it is
    read, never held whole (a million items of one site held 1.9 GiB), and every output
    is as in order, each origin's documents made once; a group of more origins than are
    held parsed (all in one group), a part of its origins at a time."""
    monkeypatch.setattr(grouping, "GROUP_HELD", 32)
    monkeypatch.setattr(grouping, "GROUP_ITEMS", group_items)
    parts = [0]
    more = grouping.Blocks.more

    def counted(self: grouping.Blocks) -> int:
        parts[0] += 1
        return more(self)

    monkeypatch.setattr(grouping.Blocks, "more", counted)
    crowd = [(json.dumps({"url": f"https://o0.example/page/{n}"}) + "\n").encode()
             for n in range(300)]  # fmt: skip
    mixed = _item_lines(shuffled=True) + crowd
    random.Random(17).shuffle(mixed)
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(mixed))
    live = [0, 0]  # records read and not let go, the most at once
    decide = Grouped.decide

    def gone() -> None:
        live[0] -= 1

    def watched(self: Grouped, *args: Any, **kwargs: Any) -> Any:
        read = self.records.read

        def reading(group: int) -> Any:
            for record in read(group):
                kept = _Record(record)
                weakref.finalize(kept, gone)
                live[0] += 1
                live[1] = max(live[1], live[0])
                yield kept
                del kept

        monkeypatch.setattr(self.records, "read", reading)
        return decide(self, *args, **kwargs)

    monkeypatch.setattr(Grouped, "decide", watched)
    outputs = {}
    for tag, bound in (("grouped", held), ("whole", 1000)):
        folder = tmp_path / tag
        folder.mkdir()
        code, said, store = _grouping_run(folder, [str(dataset)], bound)
        assert ("grouped by origin" in capsys.readouterr().err) is (tag == "grouped")
        outputs[tag] = (code, said)
        if tag == "grouped":
            assert set(store.parsed_times()) == {1}  # each origin's documents made once
            assert 0 < live[1] <= 33  # a group's share (and one read) at most, never o0's 300
            # o0's group decided as it is read; one group of 24 origins: in parts of as
            # many as are held parsed (o0's group may have others: Python's hash)
            assert parts[0] == -(-ORIGINS // held) if group_items == 1000 else parts[0] >= 1
    assert outputs["grouped"] == outputs["whole"]


@pytest.mark.parametrize(
    ("items", "groups"), [(0, 1), (1, 1), (16_384, 1), (16_385, 2), (10**12, 4096)]
)
def test_the_groups_hold_about_a_group_s_items_each(items: int, groups: int) -> None:
    assert groups_for(items) == groups


def test_a_dataset_from_standard_input_is_grouped_as_the_file_it_was_copied_to(
    tmp_path: Path, tiny: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dataset read from standard input is copied whole to a temporary file first;
    with a WARC (no first pass counts its items) its groups were told from the size of
    ``-``, which has none: one group, re-read once per part of its origins. The copy's
    size tells them as a named file's does: as many groups, the same outputs."""
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True)))
    warc = _warc_of_sites(tmp_path / "robots.warc")
    runs = {}
    for name in ("named", "piped"):
        folder = tmp_path / name
        folder.mkdir()
        with dataset.open("rb") as stdin:
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(stdin))
            given = "-" if name == "piped" else str(dataset)
            code, outputs, _ = _grouping_run(folder, [given], 3, *warc)
        said = [line for line in capsys.readouterr().err.splitlines() if "group(s))" in line]
        assert len(said) == 1, said
        groups = int(said[0].split("on disk (")[1].split(" group(s))")[0])
        outputs["summary"] = outputs["summary"][1:]  # "Re-check of `-`", of its path
        runs[name] = (code, groups, {k: v for k, v in outputs.items() if k != "trail"})
    assert runs["named"][1] == groups_for(len(dataset.read_bytes()) // grouping.ITEM_BYTES) > 1
    assert runs["piped"][1] == runs["named"][1]
    for output in runs["named"][2]:
        assert runs["piped"][2][output] == runs["named"][2][output], output


@pytest.mark.parametrize(
    ("spilled", "documents"),
    [("capture_index.CaptureFile", "warc"), ("names.Numbered", "fetched"),
     ("store.DocumentStore", "fetched")],
    ids=["captures-indexed", "names", "documents"],
)  # fmt: skip
def test_a_full_disk_under_a_temporary_sqlite_file_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    spilled: str,
    documents: str,
) -> None:
    """The SQLite files past REP_RECHECK_PARSED_ORIGINS (a WARC's captures indexed, the
    origins' names, their documents) on a full TMPDIR: SQLite's "database or disk is
    full" ended the run in a traceback, exit 1 (the status of "some items removed"). Now
    exit 2, one line naming the folder and what to do, its folder removed."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    module, name = spilled.split(".")
    owner = getattr(__import__(f"rep_recheck.{module}", fromlist=[name]), name)

    def full(self: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(owner, "_write", full)
    monkeypatch.setattr(recheck_names, "PER_PARSED", 1)  # its names and URLs held as its origins
    if owner is DocumentStore:  # its documents past 1 byte in memory, 2 at a time
        defaults = (grouping.PARSED_ORIGINS, 1, None)
        monkeypatch.setattr(DocumentStore.__init__, "__defaults__", defaults)
        monkeypatch.setattr("rep_recheck.store._BATCH", 2)
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=True)))
    extra = _warc_of_sites(tmp_path / "robots.warc") if documents == "warc" else []
    folder = tmp_path / "out"
    folder.mkdir()
    code, outputs, store = _grouping_run(folder, [str(dataset)], 1, *extra, verified=False)
    said = capsys.readouterr().err.splitlines()
    error = [line for line in said if "error:" in line]
    assert code == EXIT_USAGE and len(error) == 1, said
    assert error[0] == (f"scrapy_rep: error: {temporary}: the recheck's temporary files: "
                        "database or disk is full (set TMPDIR to a folder with room for "
                        "about the dataset's size)")  # fmt: skip
    assert "report" not in outputs and "out" not in outputs
    del store
    gc.collect()
    assert list(temporary.iterdir()) == []


def test_a_full_disk_under_standard_input_s_copy_names_the_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standard input copied to a full TMPDIR said "-: cannot read: No space left on
    device", as if the input were at fault: the line names the copy and what to do."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))

    def full(source: Any, copy: Any, length: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("shutil.copyfileobj", full)
    monkeypatch.setattr(
        "sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"url": "https://a.example/"}\n'))
    )
    warc = tmp_path / "robots.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nAllow: /\n")])
    args = ["-", "--purpose", "search", "--documents", str(warc), "--no-progress"]
    assert main(args, io.StringIO()) == EXIT_USAGE
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"scrapy_rep: error: {temporary}/scrapy_rep-recheck-"), line
    assert line.endswith(": No space left on device (the copy of -: set TMPDIR to a folder "
                         "with room for about the dataset's size)")  # fmt: skip
    assert list(temporary.iterdir()) == []


def test_a_tmpdir_that_cannot_be_written_in_is_said_with_where_the_files_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TMPDIR that is no folder the run can write in (here, none at all): Python puts
    the temporary files elsewhere without a word; the run says where, in one line, and
    goes on."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    monkeypatch.setattr("tempfile.tempdir", None)  # told again from TMPDIR
    warc = _warc_of_sites(tmp_path / "robots.warc")
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b"".join(_item_lines(shuffled=False)))
    assert main([str(dataset), *warc, "--no-progress"], io.StringIO()) == EXIT_REMOVED
    said = [line for line in capsys.readouterr().err.splitlines() if "TMPDIR" in line]
    assert said == [f"recheck: TMPDIR {tmp_path / 'missing'} is no folder this run can write "
                    "in: its temporary files (past REP_RECHECK_PARSED_ORIGINS, standard "
                    f"input's copy) go to {tempfile.gettempdir()}"]  # fmt: skip
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    assert main([str(dataset), *warc, "--no-progress"], io.StringIO()) == EXIT_REMOVED
    assert "TMPDIR" not in capsys.readouterr().err
