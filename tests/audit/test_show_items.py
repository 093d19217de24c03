"""``audit show TRAIL URL`` of a stored item a recheck decided (its ``item`` record): the
item's story, and beside it the crawl's, in one trail or two."""

from __future__ import annotations

import json
from pathlib import Path

from rep_audit.cliargs import EXIT_CLEAN
from rep_engine.trail.read import Trail
from tests.support.recheck import (
    RECHECKED,
    recheck_tool,
    recheck_trail,
    robots_capture,
    write_warc,
)
from tests.support.tools import audit_tool
from tests.support.trailfactory import ROBOTS, TDMREP, sha, write_trail


def _warc_records(trail: Path) -> dict[str, str]:
    """The WARC record each snapshot line of the trail names, by its document's URL."""
    return {
        str(line.record["url"]): str(line.record["warc_record"])
        for line in Trail(trail).lines()
        if line.type == "snapshot" and line.record and "warc_record" in line.record
    }


def test_show_tells_a_refused_item_its_signal_its_line_its_snapshot_and_its_warc_record(
    tmp_path: Path,
) -> None:
    trail = recheck_trail(tmp_path)
    code, out = audit_tool("show", str(trail), RECHECKED["robots"])
    assert code == EXIT_CLEAN, out
    assert "no record" not in out
    lines = out.splitlines()
    assert lines[0].endswith(
        f"{RECHECKED['robots']}: item re-checked (line 2 of the dataset): refused"
    )
    assert "spider recheck" in lines[1] and "purposes ai-train" in lines[1]
    assert "re-checking" in lines[1] and "documents.warc" in lines[1]
    assert "  decided: refused by robots.txt line 2 (Disallow: /private)" in lines
    robots = _warc_records(trail)["http://site.test/robots.txt"]
    assert (
        f"    snapshot {sha(ROBOTS)}: http://site.test/robots.txt fetched "
        f"2025-04-01T12:00:00.000Z, HTTP 200, parsed, {len(ROBOTS)} bytes, from WARC record "
        f"{robots}"
    ) in lines
    assert lines[-1] == "  today's engine, from the snapshots: the same decision"


def test_show_tells_a_kept_item_a_purpose_refusal_and_an_unknown_item(tmp_path: Path) -> None:
    trail = recheck_trail(tmp_path)
    warc = _warc_records(trail)
    _, kept = audit_tool("show", str(trail), RECHECKED["kept"])
    assert kept.splitlines()[0].endswith("(line 1 of the dataset): kept")
    assert "  decided: allowed: no rule matches" in kept
    assert (
        f"  tdmrep.json: snapshot {sha(TDMREP)}: http://site.test/.well-known/tdmrep.json "
        f"fetched 2025-04-01T12:00:00.000Z"
    ) in kept
    assert warc["http://site.test/.well-known/tdmrep.json"] in kept
    _, purpose = audit_tool("show", str(trail), RECHECKED["purpose"])
    signal = "robots.txt line 4: Content-Usage: /nottrain train-ai=n"
    assert f"  decided: refused by purpose ({signal})" in purpose
    assert f"  ai-train: denied by {signal}" in purpose
    code, unknown = audit_tool("show", str(trail), RECHECKED["unknown"])
    assert code == EXIT_CLEAN
    assert unknown.splitlines()[0].endswith("(line 4 of the dataset): unknown")
    assert "  decided: not had: robots.txt" in unknown
    assert "  why: no robots.txt of http://other.test was had" in unknown
    assert "  robots.txt: not had" in unknown


def test_show_tells_the_crawl_and_the_recheck_of_a_url_in_one_trail_or_two(
    tmp_path: Path,
) -> None:
    """A crawl refused the URL (robots.txt, line 2); a recheck of its item, appended to
    the same trail or written to its own, refused it too: both are told."""
    crawl = write_trail(tmp_path / "crawl.jsonl")
    recheck_trail(tmp_path, crawl)
    code, out = audit_tool("show", str(crawl), RECHECKED["robots"])
    assert code == EXIT_CLEAN, out
    heads = [line for line in out.splitlines() if line.startswith("line ")]
    assert len(heads) == 2, out
    assert heads[0].endswith(f"{RECHECKED['robots']} was refused by robots.txt "
                             "(1 attempt): Forbidden by robots.txt")  # fmt: skip
    assert heads[1].endswith("item re-checked (line 2 of the dataset): refused")
    assert "spider test" in out and "spider recheck" in out
    alone = tmp_path / "alone"
    alone.mkdir()
    own = recheck_trail(alone)
    code, out = audit_tool("show", str(tmp_path / "crawl.jsonl"), str(own), RECHECKED["robots"])
    assert code == EXIT_CLEAN
    assert f"{own}:" in out.splitlines()
    assert out.count("item re-checked (line 2 of the dataset): refused") == 2
    assert out.count("was refused by robots.txt") == 1


def test_show_finds_a_rechecked_item_however_its_url_is_written(tmp_path: Path) -> None:
    """An item record was found only as the dataset spelt its URL (``HTTPS://A.EXAMPLE``,
    its query's order, a fragment, ``%7E``): asked as a site owner writes it, the story
    said "no record". Items are found as a crawl's records are."""
    warc = tmp_path / "r.warc"
    write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")])
    rows = [
        {"url": "HTTPS://A.EXAMPLE/no/x?b=2&a=1#frag"},
        {"url": "https://a.example/yes/%7Euser"},
    ]
    dataset = tmp_path / "items.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    trail = tmp_path / "trail.jsonl"
    recheck_tool(str(dataset), "--purpose", "search", "--documents", str(warc), "--trail",
                 str(trail))  # fmt: skip
    for asked, said in [("https://a.example/no/x?a=1&b=2", "refused"),
                        ("/no/x?a=1&b=2", "refused"), ("a.example/no/x?b=2&a=1", "refused"),
                        ("https://a.example/yes/~user", "kept")]:  # fmt: skip
        code, out = audit_tool("show", str(trail), asked)
        assert code == EXIT_CLEAN, (asked, out)
        assert "item re-checked (line" in out and f"): {said}" in out, (asked, out)


def test_show_names_the_warcs_a_recheck_of_several_read(tmp_path: Path) -> None:
    """A recheck of two ``--documents`` WARCs (or a folder of them, whose header names the
    files read) was told as "re-checking … (fetched)": its header's list of WARCs was
    read as no WARC."""
    warcs = [tmp_path / "warcs" / f"CC-MAIN-2025-{week}.warc" for week in ("05", "26")]
    warcs[0].parent.mkdir()
    for date, warc in zip(("2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"), warcs, strict=True):
        write_warc(warc, [robots_capture("https://a.example", "User-agent: *\nDisallow: /no\n")],
                   date=date)  # fmt: skip
    dataset = tmp_path / "items.jsonl"
    dataset.write_text(json.dumps({"url": "https://a.example/no/1"}) + "\n", encoding="utf-8")
    for given in (["--documents", str(warcs[0]), "--documents", str(warcs[1])],
                  ["--documents", str(warcs[0].parent)]):  # fmt: skip
        trail = tmp_path / "trail.jsonl"
        trail.unlink(missing_ok=True)
        recheck_tool(str(dataset), "--purpose", "search", *given, f"--trail={trail}")
        code, out = audit_tool("show", str(trail), "https://a.example/no/1")
        assert code == EXIT_CLEAN, out
        assert out.splitlines()[1].endswith(
            f", re-checking {dataset} (documents from {warcs[0]}, {warcs[1]})"
        ), out
