"""A recheck's ``item`` lines read into typed records (:func:`item_of`), from a trail the
recheck itself wrote: each item's status, what decided it and the documents it names."""

from __future__ import annotations

from pathlib import Path

from rep_engine.records import ItemRecord, item_of
from rep_engine.trail.read import Trail
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
    assert (robots.refused_by, robots.signal, robots.robots.line, robots.robots.rule) == (
        "robots.txt", "robots.txt", 2, "Disallow: /private",
    )  # fmt: skip
    assert robots.decided == "refused by robots.txt line 2 (Disallow: /private)"
    assert robots.snapshots == (sha(ROBOTS),) and robots.robots.agent == "scrapy"
    assert (purpose.refused_by, purpose.robots.line) == ("purpose", None)
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
        "run", "snapshot", "snapshot", "end", "site", "site", "head",
    ]  # fmt: skip


def _with_usage(trail: Path, usage: object) -> Path:
    """``trail`` with every ``item`` line's ``usage`` part replaced by ``usage`` (a
    hand-edited trail: verify says its chain is broken, the other commands still read it)."""
    import json

    forged = trail.with_name(f"forged-{trail.name}")
    lines = []
    for text in trail.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        if record.get("type") == "item":
            record["usage"] = usage
        lines.append(json.dumps(record))
    forged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return forged


def test_an_item_whose_usage_part_is_forged_is_read_and_every_command_tells_it(
    tmp_path: Path,
) -> None:
    """A hand-edited ``item`` line whose ``usage`` names its deciding signal with a list,
    or its signals with a number: read as a usage part that names no signal (as a ``url``
    line's is), never a traceback from show, summary, list, report --html or export."""
    from tests.support.tools import audit_tool

    trail = recheck_trail(tmp_path)
    denied = {"answers": {"ai-train": False}}
    for usage in (
        {**denied, "decided_by": [0], "signals": [{"source": "x"}]},
        {**denied, "decided_by": {"ai-train": 0}, "signals": 5},
        {**denied, "decided_by": "ai-train", "signals": "abc"},
    ):
        forged = _with_usage(trail, usage)
        items = _read_items(forged)
        assert items[RECHECKED["purpose"]].signal == ""
        for argv in (
            ["show", str(forged), RECHECKED["purpose"]],
            ["summary", str(forged)],
            ["list", str(forged)],
            ["report", "--html", str(tmp_path / "report.html"), str(forged)],
            ["export", "--out", str(tmp_path / "export.jsonl"), str(forged)],
        ):
            code, out = audit_tool(*argv)
            assert code in (0, 1), (argv, out)
