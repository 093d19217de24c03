"""A recheck's ``item`` lines read into typed records (:func:`item_of`), from a trail the
recheck itself wrote: each item's status, what decided it and the documents it names."""

from __future__ import annotations

from pathlib import Path

from scrapy_rep.audit.read import Trail
from scrapy_rep.audit.records import ItemRecord, item_of
from tests.support.recheck import RECHECKED, recheck_trail
from tests.support.trailfactory import ROBOTS, TDMREP, sha


def _read_items(trail: Path) -> dict[str, ItemRecord]:
    found = (item_of(line, ("ai-train",)) for line in Trail(trail).lines())
    return {item.url: item for item in found if item is not None}


def test_each_item_is_read_with_its_status_its_deciding_signal_and_its_documents(
    tmp_path: Path,
) -> None:
    items = _read_items(recheck_trail(tmp_path))
    assert list(items) == list(RECHECKED.values())
    kept, robots, purpose, unknown = (items[url] for url in RECHECKED.values())
    assert [item.line for item in items.values()] == [1, 2, 3, 4]
    assert [item.status for item in items.values()] == ["kept", "refused", "refused", "unknown"]
    assert (kept.refused_by, kept.reason, kept.signal) == ("", "", "")
    assert kept.decided == "allowed: no rule matches"
    assert kept.documents == (("robots.txt", sha(ROBOTS)), ("tdmrep.json", sha(TDMREP)))
    assert (robots.refused_by, robots.signal, robots.robots_line, robots.rule) == (
        "robots.txt", "robots.txt", 2, "Disallow: /private",
    )  # fmt: skip
    assert robots.decided == "refused by robots.txt line 2 (Disallow: /private)"
    assert robots.snapshots == (sha(ROBOTS),) and robots.agent == "scrapy"
    assert (purpose.refused_by, purpose.robots_line) == ("purpose", None)
    assert purpose.signal == "robots.txt line 4: Content-Usage: /nottrain train-ai=n"
    assert purpose.decided == f"refused by purpose ({purpose.signal})"
    assert (unknown.refused_by, unknown.reason) == ("unreachable", "unreachable")
    assert unknown.documents == (("robots.txt", ""),) and unknown.snapshots == ()
    assert unknown.decided == "not had: robots.txt"
    assert unknown.why == "no robots.txt of http://other.test was had"
    assert unknown.origin == "http://other.test" and kept.origin == "http://site.test"
    assert len({item.run for item in items.values()}) == 1
    assert all(item.time and item.then == "" and item.changed is None for item in items.values())


def test_a_line_that_is_no_item_line_is_no_item(tmp_path: Path) -> None:
    lines = list(Trail(recheck_trail(tmp_path)).lines())
    assert [line.type for line in lines if item_of(line) is None] == [
        "run", "snapshot", "snapshot", "end",
    ]  # fmt: skip
