"""The summary's head says what refused the items: a usage signal (a "no" for the
purpose) or an access rule (a plain Disallow), and, for an AI purpose, the robots.txt
groups obeyed; the report names the agent whose group refused."""

from __future__ import annotations

from pathlib import Path

from tests.support.recheck import (
    recheck_tool,
    report_lines,
    robots_capture,
    write_jsonl,
    write_warc,
)

ROBOTS = {
    "http://a.example": "User-agent: *\nDisallow: /private\n",  # an access rule
    "http://g.example": "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
    "http://c.example": "User-agent: *\nContent-Usage: train-ai=n\n",  # a usage signal
}
URLS = ["http://a.example/private/1", "http://a.example/ok", "http://g.example/x",
        "http://c.example/x"]  # fmt: skip


def _summary_and_report(tmp_path: Path, *settings: str) -> tuple[str, dict[str, dict[str, object]]]:
    dataset, warc, report = tmp_path / "items.jsonl", tmp_path / "r.warc", tmp_path / "r.jsonl"
    write_jsonl(dataset, URLS)
    write_warc(warc, [
        *(robots_capture(origin, text) for origin, text in ROBOTS.items()),
        *((f"{origin}/.well-known/tdmrep.json", 404, b"", {}) for origin in ROBOTS),
    ])  # fmt: skip
    _, summary = recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc),
                              f"--report={report}", *settings)  # fmt: skip
    return summary, {line["url"]: line for line in report_lines(report)}


def test_the_head_tells_a_usage_signal_from_an_access_rule(tmp_path: Path) -> None:
    """A plain Disallow was counted as "restricting AI training" with the AI opt-outs, in a
    table labelled as Consent in Crisis's measure, which it is not."""
    summary, report = _summary_and_report(tmp_path)
    assert [report[url]["status"] for url in URLS] == ["refused", "kept", "kept", "refused"]
    assert "- Refused by a usage signal" in summary
    assert ": 1 item(s) of 1 origin(s)\n- Refused by an access rule" in summary
    access = next(line for line in summary.splitlines() if "by an access rule" in line)
    assert access.endswith(": 1 item(s) of 1 origin(s)")
    assert "Consent in Crisis" not in summary


def test_an_ai_purpose_names_the_groups_obeyed_and_the_report_the_agent(tmp_path: Path) -> None:
    """By default the summary says no AI crawler's group is obeyed (GPTBot's Disallow keeps
    nothing out); with REP_PURPOSE_AGENTS it names them, and the report the agent whose
    line refused (the line alone, "Disallow: /", read as the crawler's own)."""
    summary, report = _summary_and_report(tmp_path)
    assert "no AI crawler's: a site that blocks GPTBot or CCBot by name alone" in summary
    assert report[URLS[0]]["agent"] == "scrapy"
    summary, report = _summary_and_report(tmp_path, "-s", "REP_PURPOSE_AGENTS=GPTBot,CCBot")
    refused = report[URLS[2]]
    said = (refused["status"], refused["agent"], refused["document_line"], refused["text"])
    assert said == ("refused", "GPTBot", 2, "Disallow: /")
    assert "and those of `GPTBot`, `CCBot` (REP_PURPOSE_AGENTS)" in summary
    assert "; by the groups of REP_PURPOSE_AGENTS: GPTBot 1" in summary


def _row_cells(row: str) -> list[str]:
    """A Markdown table row's cells, an escaped ``\\|`` kept inside its cell."""
    import re

    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def test_a_table_cell_holding_a_bar_or_a_line_break_stays_one_cell() -> None:
    """An origin, a signal or a shard's name with ``|`` or a line break in it split its
    table row into more cells (or cut the table)."""
    from rep_recheck.datasets import Item
    from rep_recheck.outputs import Evidence, Tally, summary_markdown

    tally = Tally(("ai-train",))
    tally.shard("odd|name\n.jsonl", "jsonl")
    item = Item(1, "http://a.example/x")
    tally.add(item, "refused", Evidence(signal="sig|nal\nx", purpose="ai-train"), "http://a|b")
    lines = summary_markdown(tally, "odd", "WARC", "agent", False)
    tables: list[list[str]] = [[]]
    for line in lines:
        if line.startswith("|"):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    assert len(tables) > 3
    for table in (one for one in tables if one):
        heads = len(_row_cells(table[0]))
        assert all(len(_row_cells(row)) == heads for row in table), table
    text = "\n".join(lines)
    assert "sig\\|nal\\nx" in text and "http://a\\|b" in text
    assert "odd\\|name" in text


def test_an_origins_counts_are_its_own_and_a_kept_only_origin_holds_no_counter() -> None:
    """The counts per origin (a million origins are held at once) make their counters at
    an origin's first refused or unknown item: an origin of kept items holds none, and
    one origin's refusals never reach another's counts or the summary's origin tables."""
    from rep_recheck.datasets import Item
    from rep_recheck.outputs import Evidence, Tally, summary_markdown

    tally = Tally(("ai-train", "search"))
    kept, refused = Evidence(), Evidence(signal="robots.txt", reason="disallow")
    for number in range(3):
        tally.add(Item(number, "http://k.example/x"), "kept", kept, "http://k.example")
    tally.add(Item(4, "http://r.example/x"), "refused", refused, "http://r.example")
    tally.add(Item(5, "http://r.example/y"), "unknown", Evidence(), "http://r.example")
    tally.add(Item(6, "http://r.example/z"), "kept", kept, "http://r.example")
    k, r = tally.origins["http://k.example"], tally.origins["http://r.example"]
    assert (k.kept, k.refused, k.unknown, k.total) == (3, 0, 0, 3)
    assert not k.purposes and not k.signals
    assert r.statuses == {"kept": 1, "refused": 1, "unknown": 1}
    assert r.purposes == {"ai-train": 1, "search": 1}
    assert r.signals == {"robots.txt Disallow": 1, "unknown": 1}
    assert (r.by_access, r.by_usage) == (1, 0)
    other = Tally(("search",))
    other.add(Item(1, "http://n.example/x"), "kept", kept, "http://n.example")
    assert not other.origins["http://n.example"].purposes  # no counter shared and written
    text = "\n".join(summary_markdown(tally, "items.jsonl", "WARC", "agent", False))
    assert "| http://r.example | 3 | 2 | 1 | 1 | robots.txt Disallow |" in text, text
    assert "http://k.example |" not in text  # it lost no item
