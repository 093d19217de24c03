"""``python -m scrapy_rep recheck`` on documents from a WARC (no crawl): each item's
status now with its evidence, the collection filtered in its own format, the summary,
the exit status, and the recheck's own trail that ``audit verify`` checks."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from rep_engine.usage.standards import NOT_READ
from rep_recheck.command import (
    EXIT_KEPT,
    EXIT_REMOVED,
    EXIT_USAGE,
    FetchRequest,
    FetchResult,
    Progress,
    fetch_progress,
    main,
)
from tests.support.recheck import (
    forged_item,
    recheck_tool,
    report_lines,
    robots_capture,
    write_csv,
    write_jsonl,
    write_warc,
)
from tests.support.trailfactory import encode

#: The SHA-256 of the empty body (d.example's robots.txt and tdmrep.json: 404).
EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
ROBOTS_A = "User-agent: *\nDisallow: /private\nContent-Usage: /train train-ai=n\n"
URLS = [
    "http://a.example/ok",  # kept: no rule
    "http://a.example/private/x",  # refused: line 2
    "http://a.example/train/1",  # refused for ai-train: line 3
    "http://b.example/x",  # refused: robots.txt answered 503 (RFC 9309 §2.3.1.4)
    "http://c.example/x",  # unknown: not captured
    "http://d.example/y",  # kept: no robots.txt, no tdmrep.json
    "http://a.example/tdm/1",  # refused by tdmrep.json entry 1
]


def _warc(path: Path) -> list[str]:
    return write_warc(path, [
        robots_capture("http://a.example", ROBOTS_A),
        ("http://a.example/.well-known/tdmrep.json", 200,
         b'[{"location": "/tdm/*", "tdm-reservation": 1}]', {}),
        ("http://b.example/robots.txt", 503, b"", {}),
        ("http://d.example/robots.txt", 404, b"", {}),
        ("http://d.example/.well-known/tdmrep.json", 404, b"", {}),
    ])  # fmt: skip


def _recheck(tmp_path: Path, dataset: Path, *extra: str) -> tuple[int, str, dict[str, Path]]:
    paths = {name: tmp_path / f"{name}{dataset.suffix}" for name in ("out", "removed")}
    paths |= {"report": tmp_path / "report.jsonl", "trail": tmp_path / "trail.jsonl"}
    warc = tmp_path / "robots.warc"
    _warc(warc)
    options = [f"--{name}={path}" for name, path in paths.items()]
    code, summary = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents",
                                 str(warc), *options, *extra)  # fmt: skip
    return code, summary, paths


def test_each_item_is_decided_with_its_signal_line_and_document(tmp_path: Path) -> None:
    dataset = tmp_path / "items.jsonl"
    lines = write_jsonl(dataset, URLS)
    code, summary, paths = _recheck(tmp_path, dataset)
    assert code == EXIT_REMOVED
    report = {line["url"]: line for line in report_lines(paths["report"])}
    said = {url: (r["status"], r.get("signal"), r.get("document_line"), r.get("text"))
            for url, r in report.items()}  # fmt: skip
    assert said == {
        URLS[0]: ("kept", None, None, "no rule matches"),
        URLS[1]: ("refused", "robots.txt", 2, "Disallow: /private"),
        URLS[2]: ("refused", "aipref", 3, "Content-Usage: /train train-ai=n"),
        URLS[3]: ("refused", "robotstxt_unreachable", None, report[URLS[3]]["text"]),
        URLS[4]: ("unknown", "unknown", None, "no robots.txt of http://c.example was had"),
        URLS[5]: ("kept", None, None, "everything is allowed"),
        URLS[6]: ("refused", "tdmrep", 1, '(location "/tdm/*")'),
    }
    assert "captured as 503 in record <urn:uuid:" in report[URLS[3]]["text"]
    assert report[URLS[3]]["reason"] == "robotstxt_unreachable"
    refused = report[URLS[1]]
    assert refused["document"] == "http://a.example/robots.txt"
    assert refused["sha256"] == __import__("hashlib").sha256(ROBOTS_A.encode()).hexdigest()
    assert refused["time"] == "2025-04-01T12:00:00.000Z" and refused["record"].startswith("<urn:")
    assert report[URLS[6]]["document"] == "http://a.example/.well-known/tdmrep.json"
    assert paths["out"].read_bytes() == lines[0] + lines[5]
    removed = paths["removed"].read_bytes().splitlines(keepends=True)
    assert len(removed) == 5
    for n, line in zip((1, 2, 3, 4, 6), removed, strict=True):  # as it was, then its reason
        assert line.startswith(lines[n][:-2]) and line.endswith(b"}\n")
        said = json.loads(line)
        assert said.pop("rep_status") == report[URLS[n]]["status"]
        assert said.pop("rep_why") and said == json.loads(lines[n])
    whys = [json.loads(line)["rep_why"] for line in removed]
    assert whys[0] == "Forbidden by http://a.example/robots.txt (line 2: Disallow: /private)"
    assert whys[2].startswith("Dropped: robots.txt of http://b.example captured as 503 in")
    assert whys[3] == "no robots.txt of http://c.example was had"
    assert "| kept | 2 | 28.6 % | 2 |" in summary
    assert "| refused | 4 | 57.1 % | 2 |" in summary
    assert "| ai-train | 4 | 57.1 % | 2 | 50.0 % | 1 | 25.0 % |" in summary
    assert "| http://a.example | 4 | 3 | 3 | 0 |" in summary
    result = verify(paths["trail"])
    assert result.clean, result.findings
    assert (result.records, result.runs) == (7, 1)


def test_unknown_items_are_kept_when_asked_and_counted_either_way(tmp_path: Path) -> None:
    dataset = tmp_path / "items.jsonl"
    lines = write_jsonl(dataset, [URLS[0], URLS[4]])
    code, summary, paths = _recheck(tmp_path, dataset, "--keep-unknown")
    assert code == EXIT_KEPT
    assert paths["out"].read_bytes() == b"".join(lines)
    assert "| unknown | 1 | 50.0 % | 1 |" in summary


def test_an_unreachable_robotstxt_is_never_kept_as_unknown(tmp_path: Path) -> None:
    """A robots.txt captured as 503 is a complete disallow (RFC 9309 §2.3.1.4): its
    origin's items are refused, never unknown, so --keep-unknown does not keep them."""
    dataset = tmp_path / "items.jsonl"
    lines = write_jsonl(dataset, [URLS[0], URLS[3]])
    code, _, paths = _recheck(tmp_path, dataset, "--keep-unknown")
    assert code == EXIT_REMOVED
    assert paths["out"].read_bytes() == lines[0]
    assert [line["status"] for line in report_lines(paths["report"])] == ["kept", "refused"]


def test_csv_items_are_written_back_with_the_header(tmp_path: Path) -> None:
    dataset = tmp_path / "items.csv"
    rows = write_csv(dataset, URLS)
    code, _, paths = _recheck(tmp_path, dataset)
    assert code == EXIT_REMOVED
    assert paths["out"].read_bytes() == b"title,url\r\n" + rows[0] + rows[5]


def test_bad_input_is_one_line_and_nothing_is_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b'{"url": "http://a.example/ok"}\n{oops\n{"url": "mailto:x@a.example"}\n')
    code, _, paths = _recheck(tmp_path, dataset)
    assert code == EXIT_REMOVED  # warned of, removed: the run produced its outputs
    err = capsys.readouterr().err
    assert "line 2: not JSON" in err and "line 3: not an http(s) URL" in err
    assert paths["removed"].read_bytes() == b'{oops\n{"url": "mailto:x@a.example"}\n'
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert _recheck(tmp_path, empty)[0] == EXIT_USAGE
    assert "no item" in capsys.readouterr().err
    not_warc = tmp_path / "x.warc"
    not_warc.write_bytes(b"hello\n")
    code, _ = recheck_tool(str(dataset), "--purpose", "search", "--documents", str(not_warc))
    assert code == EXIT_USAGE and "not a WARC" in capsys.readouterr().err
    assert recheck_tool(str(dataset), "--documents", str(not_warc))[0] == EXIT_USAGE
    assert "--purpose" in capsys.readouterr().err
    bad = ["--purpose", "ai-train", "-s", "REP_PROFILE=nope", "--documents", str(not_warc)]
    assert recheck_tool(str(dataset), *bad)[0] == EXIT_USAGE
    assert "REP_PROFILE" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("url", "changes", "found"),
    [
        (URLS[1], {"status": "kept", "refused_by": None, "why": None}, "disallows it"),
        (URLS[2], {"status": "kept", "refused_by": None, "why": None}, "ai-train denied"),
        (URLS[6], {"status": "kept", "refused_by": None, "why": None}, "tdmrep.json"),
        (URLS[0], {"status": "refused", "refused_by": "robots.txt"}, "it allows it"),
        (URLS[1], {"robots": {"agent": "scrapy", "line": 3, "rule": "x",
                              "snapshot": "%s"}}, "the snapshot gives line 2"),
        # a tdmrep.json not had keeps nothing (REP_UNREACHABLE_ACTION drop)
        (URLS[6], {"status": "kept", "refused_by": None, "why": None, "tdmrep": "", "usage": None},
         "tdmrep.json"),
        # another origin's snapshots (d.example's 404s: nothing refuses there)
        (URLS[6], {"status": "kept", "refused_by": None, "why": None, "tdmrep": EMPTY,
                   "usage": None},
         "did not announce for http://a.example/.well-known/tdmrep.json"),
        (URLS[1], {"status": "kept", "refused_by": None, "why": None,
                   "robots": {"agent": "scrapy", "snapshot": EMPTY, "why": "no rule matches"}},
         "did not announce for http://a.example/robots.txt"),
        (URLS[1], {"status": "kept", "refused_by": None, "why": None,
                   "robots": {"agent": "scrapy", "snapshot": EMPTY, "why": "no rule matches",
                              "origin": "http://d.example"}}, "not of its own origin"),
        # kept or refused made unknown
        (URLS[0], {"status": "unknown", "refused_by": "unreachable", "why": "x"}, "allows it"),
        (URLS[1], {"status": "unknown", "refused_by": "unreachable", "why": "x"},
         "its snapshots refuse it"),
        (URLS[6], {"status": "unknown", "refused_by": "unreachable", "why": "x"},
         "its snapshots refuse it"),
    ],
)  # fmt: skip
def test_an_edited_item_fails_verify(
    tmp_path: Path, url: str, changes: dict[str, Any], found: str
) -> None:
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, URLS)
    _, _, paths = _recheck(tmp_path, dataset)
    trail = paths["trail"]
    robots = changes.get("robots")
    if robots is not None and robots["snapshot"] == "%s":
        robots["snapshot"] = __import__("hashlib").sha256(ROBOTS_A.encode()).hexdigest()
    result = verify(forged_item(trail, url, **changes))
    assert not result.clean
    assert any(f.url == url and found in f.what for f in result.findings), result.findings
    raw = trail.read_bytes().replace(b'"status":"refused"', b'"status":"kept"', 1)
    trail.write_bytes(raw)
    assert not verify(trail).clean  # an edit without the chain made again: broken


def test_progress_says_items_origins_rate_and_time_left() -> None:
    err = io.StringIO()
    now = [0.0]
    progress = Progress(err, lambda: now[0])
    progress.total = 1000
    progress.tick(10, 1)
    assert err.getvalue() == ""  # not before 2 s
    now[0] = 4.0
    progress.tick(400, 12)
    assert err.getvalue() == (
        "recheck: 400 items read, 12 origins resolved, 100 items/s, about 6 s left\n"
    )


def test_the_summary_lists_the_signals_the_recheck_does_not_read(tmp_path: Path) -> None:
    """A kept item is one no signal that was read refused: the summary says which signals
    sites give that were not read (/ai.txt, llms.txt, LLM-Policy, the well-known ai.txt,
    terms of service, a content-signal meta tag), as docs/purpose-notes.md does."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URLS[0]])
    _, summary, _ = _recheck(tmp_path, dataset)
    section = summary[summary.index("### Signals not read") :]
    for signal in ("/ai.txt", "/llms.txt", "LLM-Policy:", "/.well-known/ai.txt",
                   "terms of service", '<meta name="content-signal">'):  # fmt: skip
        assert f"| `{signal}` |" in section, signal
    notes = (Path(__file__).parents[2] / "docs" / "purpose-notes.md").read_text("utf-8")
    for signal, _ in NOT_READ:
        assert f"`{signal}`" in notes, signal


#: An older capture of a.example: everything allowed but /train for AI training, and no
#: tdmrep.json captured (its items are unknown, but what /train says).
ROBOTS_OLD = "User-agent: *\nAllow: /\nContent-Usage: /train train-ai=n\n"


def _two_runs(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A trail of two rechecks of URLS[:3]: on the older capture, then on today's."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, URLS[:3])
    trail = tmp_path / "trail.jsonl"
    old = tmp_path / "old.warc"
    write_warc(old, [robots_capture("http://a.example", ROBOTS_OLD)])
    for warc in (old, tmp_path / "robots.warc"):
        if not warc.exists():
            _warc(warc)
        recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                     f"--trail={trail}")  # fmt: skip
    return trail, [json.loads(line) for line in trail.read_text().splitlines()]


def _forge(trail: Path, records: list[dict[str, Any]], run: int, url: str, **changes: Any) -> Path:
    """``records`` with the item of ``url`` in the ``run``-th run changed, chained again."""
    runs = [record["run"] for record in records if record["type"] == "run"]
    forged = [dict(record) for record in records]
    for record in forged:
        record.pop("prev")
        if record.get("url") == url and record["type"] == "item" and record["run"] == runs[run]:
            record.update(changes)
            for name in [name for name, value in changes.items() if value is None]:
                del record[name]
    path = trail.with_name(f"forged-{run}.jsonl")
    path.write_bytes(b"".join(encode(forged)))
    path.with_name(path.name + ".d").symlink_to(trail.with_name(trail.name + ".d"))
    return path


def test_an_item_is_held_to_its_own_runs_snapshots_and_to_what_was_had(tmp_path: Path) -> None:
    """An honest trail of two runs (unknown items that name what was not
    had) is clean; an item of today's run pointing at the older run's snapshot, and an
    item refused by what was had made unknown, are found."""
    trail, records = _two_runs(tmp_path)
    result = verify(trail)
    assert result.clean, result.findings
    items = [(r["url"], r["status"]) for r in records if r["type"] == "item"]
    assert items == [(URLS[0], "unknown"), (URLS[1], "unknown"), (URLS[2], "refused"),
                     (URLS[0], "kept"), (URLS[1], "refused"), (URLS[2], "refused")]  # fmt: skip
    older = __import__("hashlib").sha256(ROBOTS_OLD.encode()).hexdigest()
    robots = {"agent": "scrapy", "snapshot": older, "line": 2, "rule": "Allow: /"}
    kept = _forge(trail, records, 1, URLS[1], status="kept", refused_by=None, why=None,
                  robots=robots)  # fmt: skip
    found = [f.what for f in verify(kept).findings if f.url == URLS[1]]
    assert any("did not announce for http://a.example/robots.txt" in f for f in found), found
    unknown = _forge(trail, records, 0, URLS[2], status="unknown", refused_by="unreachable",
                     why="the tdmrep.json of http://a.example was not had")  # fmt: skip
    found = [f.what for f in verify(unknown).findings if f.url == URLS[2]]
    assert any("its snapshots refuse it" in f for f in found), found


def test_the_rate_counts_the_items_decided_not_the_fetch_before() -> None:
    """The rate counted the minutes spent waiting on origins."""
    err = io.StringIO()
    now = [0.0]
    progress = Progress(err, lambda: now[0])
    now[0] = 600.0  # the fetch: ten minutes on three origins answering 503
    progress.begin()
    now[0] = 604.0
    progress.tick(400, 12)
    assert err.getvalue() == "recheck: 400 items read, 12 origins resolved, 100 items/s\n"


def test_the_fetch_progress_says_how_many_wait_on_what_until_when_and_what_shortens_it() -> None:
    waiting = {
        "https://a.example": ("robots.txt", 1000.0),
        "https://b.example": ("robots.txt", 1001.0),
        "https://c.example": ("tdmrep.json", 1000.5),
        "https://d.example": ("robots.txt", 1009.5),  # just asked: not waiting yet
    }
    assert fetch_progress(230, 240, waiting, 60.0, 1010.0) == (
        "recheck: fetching: 230 of 240 origin(s) done; 3 waiting on a document that does "
        "not answer yet: robots.txt (2), tdmrep.json (1); each given up on after 60 s, by "
        "about 00:17:41 UTC at the latest (a lower REP_UNREACHABLE_MAX_WAIT shortens it; "
        "a robots.txt given up on refuses its origin's items)"
    )
    assert fetch_progress(5, 240, {}, 60.0, 1010.0) == "recheck: fetching: 5 of 240 origin(s) done"
    # a host that cannot be connected to is given up on sooner: said, as it comes first
    assert fetch_progress(230, 240, waiting, 60.0, 1010.0, 10.0) == (
        "recheck: fetching: 230 of 240 origin(s) done; 3 waiting on a document that does "
        "not answer yet: robots.txt (2), tdmrep.json (1); each given up on after 60 s (10 s "
        "when its host cannot be connected to: REP_UNREACHABLE_CONNECT_MAX_WAIT), by about "
        "00:17:41 UTC at the latest (a lower REP_UNREACHABLE_MAX_WAIT shortens it; a "
        "robots.txt given up on refuses its origin's items)"
    )


@pytest.mark.parametrize(
    ("given", "waits"), [((), 60.0), (("-s", "REP_UNREACHABLE_MAX_WAIT=5"), "5")]
)
def test_a_recheck_waits_a_short_time_for_a_document_that_does_not_answer_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: tuple[str, ...], waits: Any
) -> None:
    """A crawl's 600 s wait made a recheck's unknown items cost minutes each: a recheck
    waits 60 s unless told, says so and why, and hands its crawl a place for progress."""
    dataset = tmp_path / "items.jsonl"
    write_jsonl(dataset, [URLS[0]])
    asked: list[FetchRequest] = []

    def fetcher(request: FetchRequest) -> FetchResult:
        asked.append(request)
        return FetchResult()

    main([str(dataset), "--purpose", "search", *given], io.StringIO(), fetcher)
    assert asked[0].settings["REP_UNREACHABLE_MAX_WAIT"] == waits
    assert asked[0].progress is not None
    err = capsys.readouterr().err
    assert f"is waited for at most {float(waits):.0f} s from its first failure " in err
    assert "(REP_UNREACHABLE_MAX_WAIT" in err
    assert ("removed anyway" in err) is (not given)
    # the shorter wait of a host that cannot be connected to comes first: said
    sooner = "10 s when its host cannot be connected to (REP_UNREACHABLE_CONNECT_MAX_WAIT)"
    assert (sooner in err) is (not given)


def test_exit_2_only_when_no_item_could_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A few unreadable records are warnings (reported, removed: exit 1, as any removed
    item); a dataset none of whose items can be read produced nothing: exit 2."""
    dataset = tmp_path / "items.jsonl"
    dataset.write_bytes(b'{"url": "http://a.example/ok"}\n{oops\n')
    code, summary, paths = _recheck(tmp_path, dataset)
    assert code == EXIT_REMOVED and "| unreadable | 1 |" in summary
    assert paths["out"].read_bytes() == b'{"url": "http://a.example/ok"}\n'
    err = capsys.readouterr().err.splitlines()
    assert any(
        line.startswith(f"scrapy_rep: warning: {dataset}: line 2: not JSON")
        and line.endswith("(removed)")
        for line in err
    ), err
    dataset.write_bytes(b'{oops\n{"url": "mailto:x@a.example"}\n')
    code, _, paths = _recheck(tmp_path, dataset)
    assert code == EXIT_USAGE
    assert f"scrapy_rep: error: {dataset}: no item could be read" in capsys.readouterr().err
