"""``audit verify`` decides a record again for the name its crawl decided it for, its run's
crawler (the header's first ``agents``), with the run's ``REP_PURPOSE_AGENTS`` tokens, and
holds what the record says decided it (``robots.agent``, ``line``, and from schema 2 its
``rule`` and a refusal's ``why``) against that verdict: a record that names another
agent, another line or another sentence is found (docs/audit-trail.md, '`verify`')."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rep_audit.verify import verify
from tests.support.trailfactory import (
    ORIGIN,
    RUN,
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
)
from tests.support.trailfactory import write_trail as write_one_trail

#: The crawler's own group and two AI crawlers' groups (lines 2, 5 and 8), and the rest.
AGENTS_ROBOTS = (
    b"User-agent: testbot\nDisallow: /mine\n\n"
    b"User-agent: GPTBot\nDisallow: /gpt\n\n"
    b"User-agent: ClaudeBot\nDisallow: /gpt\n\n"
    b"User-agent: *\nAllow: /\n"
)
#: A crawl run for ai-train with two REP_PURPOSE_AGENTS tokens, as its header names them.
TOKENS = {"agents": ["testbot", "GPTBot", "ClaudeBot"], "schema": 3}
GPT_WHY = "Forbidden by http://site.test/robots.txt for GPTBot (line 5: Disallow: /gpt)"


def gpt_refusal(**changes: Any) -> dict[str, Any]:
    """/gpt/1 refused by GPTBot's group, as the crawl records it (its agent the token's
    product token), with ``changes`` to its ``robots`` part (or to the record: ``why``)."""
    why = changes.pop("why", GPT_WHY)
    robots = {**robots_part(5, "Disallow: /gpt", AGENTS_ROBOTS, agent="gptbot"), **changes}
    return url_line("/gpt/1", fate="refused", status=None, attempts=0, refused_by="robots.txt",
                    why=why, robots=robots)  # fmt: skip


def agents_trail(tmp_path: Path, record: dict[str, Any], **run: Any) -> Path:
    """A run of ``record`` alone (schema 3: with its site's chain and its tree head)."""
    body = [snapshot_line(AGENTS_ROBOTS), record]
    records = [run_line(**{**TOKENS, **run}), *body, end_line(body)]
    if records[0]["schema"] == 3:
        record["site_prev"] = 0
        time = records[-1]["time"]
        site = {"type": "site", "run": RUN, "time": time, "site": ORIGIN, "records": 1, "last": 3}
        records += [site, {"type": "head", "run": RUN, "time": time, "key": None}]
    return write_one_trail(tmp_path / "trail.jsonl", records, bodies=(AGENTS_ROBOTS,))


def record_problems(path: Path) -> list[str]:
    return [finding.what for finding in verify(path).findings if not finding.event]


#: (id, the record, its run's header changes, the finding expected: "" for clean)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    ("a-tokens-refusal-as-the-crawl-writes-it", gpt_refusal(), {}, ""),
    ("its-token-spelled-otherwise", gpt_refusal(agent="GPTBot"), {}, ""),
    ("a-run-of-an-earlier-schema-words-it-otherwise",
     gpt_refusal(why="Forbidden by robots.txt"), {"schema": 1}, ""),
    ("another-token-of-the-run-named", gpt_refusal(agent="claudebot"), {},
     "recorded as decided for claudebot, its snapshot decides it for GPTBot "
     "(line 5: Disallow: /gpt)"),
    ("the-crawlers-own-name-named", gpt_refusal(agent="testbot"), {},
     "recorded as decided for testbot, its snapshot decides it for GPTBot"),
    ("a-name-the-run-never-checked", gpt_refusal(agent="otherbot"), {},
     "recorded as decided for otherbot, its snapshot decides it for GPTBot"),
    ("its-line-moved", gpt_refusal(line=8), {},
     "recorded as decided by line 8, the snapshot gives line 5"),
    ("its-lines-text-changed", gpt_refusal(rule="Disallow: /"), {},
     "recorded as decided by line 5 ('Disallow: /'), the snapshot's line 5 is "
     "'Disallow: /gpt'"),
    ("its-why-names-another-token",
     gpt_refusal(why=GPT_WHY.replace("GPTBot", "ClaudeBot")), {},
     f"recorded refused with why {GPT_WHY.replace('GPTBot', 'ClaudeBot')!r}, but its "
     f"snapshots say {GPT_WHY!r}"),
    ("its-why-names-another-line", gpt_refusal(why=GPT_WHY.replace("line 5", "line 8")), {},
     "but its snapshots say"),
    ("its-why-without-the-token", gpt_refusal(why=GPT_WHY.replace(" for GPTBot", "")), {},
     "but its snapshots say"),
    ("a-page-fetched-for-another-name",
     url_line("/mine/1", robots=robots_part(11, "Allow: /", AGENTS_ROBOTS, agent="otherbot")),
     {}, "recorded fetched, but robots.txt disallows it for testbot (line 2: Disallow: /mine)"),
    ("held-to-names-the-run-does-not-have",
     url_line("/mine/1", robots={**robots_part(11, "Allow: /", AGENTS_ROBOTS, agent="otherbot"),
                                 "agents": ["otherbot", "mozilla"]}),
     {}, "held to otherbot, mozilla, but its run's crawler is testbot"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("record", "run", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_verify_holds_the_agent_line_and_why_to_the_runs_names(
    tmp_path: Path, record: dict[str, Any], run: dict[str, Any], expected: str
) -> None:
    found = record_problems(agents_trail(tmp_path, record, **run))
    if not expected:
        assert found == []
    else:
        assert any(expected in one for one in found), found


def test_a_crawler_without_a_name_is_held_to_the_name_each_request_was_sent_as(
    tmp_path: Path,
) -> None:
    """A crawl whose ``USER_AGENT`` names no crawler (its header's first agent ``""``)
    holds each request to the name it was sent as: the record's, decided again so."""
    allowed = url_line("/gpt/1", robots=robots_part(11, "Allow: /", AGENTS_ROBOTS, agent="mybot"))
    assert record_problems(agents_trail(tmp_path, allowed, agents=[""], user_agent="")) == []
    refused = url_line("/gpt/1", robots=robots_part(11, "Allow: /", AGENTS_ROBOTS, agent="gptbot"))
    (tmp_path / "trail.jsonl").unlink()
    assert record_problems(agents_trail(tmp_path, refused, agents=[""], user_agent="")) == [
        "recorded fetched, but robots.txt disallows it for gptbot (line 5: Disallow: /gpt)",
        "recorded as decided by line 11, the snapshot gives line 5 (line 5: Disallow: /gpt)",
    ]


def test_a_recheck_whose_user_agent_names_no_crawler_verifies_as_it_decided(
    tmp_path: Path,
) -> None:
    """A recheck run ``-A "(https://commoncrawl.org/faq/)"`` (no product token: its name
    ``""``, the ``*`` group) with ``REP_PURPOSE_AGENTS=GPTBot`` refuses b.example's items
    "for GPTBot", as its sentence says of a token not its own. ``verify`` took each
    item's deciding agent for the run's name (a nameless crawl's rule for a request sent
    as a name: a recheck's item is sent as none), and found each refusal's ``why``
    wrong; an item forged kept is still found."""
    from tests.support.recheck import forged_item, recheck_tool, robots_capture, write_jsonl
    from tests.support.recheck import write_warc as write_captures

    warc, dataset, trail = tmp_path / "r.warc", tmp_path / "items.jsonl", tmp_path / "t.jsonl"
    write_captures(warc, [
        robots_capture("https://a.example", "User-agent: *\nDisallow: /x\n"),
        robots_capture("https://b.example", "User-agent: GPTBot\nDisallow: /\n"),
    ])  # fmt: skip
    write_jsonl(dataset, ["https://a.example/x", "https://a.example/y", "https://b.example/y"])
    recheck_tool(str(dataset), "--purpose", "ai-train", "--documents", str(warc), "--consult",
                 "robots.txt", "-A", "(https://commoncrawl.org/faq/)",
                 "-s", "REP_PURPOSE_AGENTS=GPTBot", f"--trail={trail}")  # fmt: skip
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    assert records[0]["agents"] == ["", "GPTBot"]
    assert [(r["status"], r.get("why")) for r in records if r["type"] == "item"] == [
        ("refused", "Forbidden by https://a.example/robots.txt (line 2: Disallow: /x)"),
        ("kept", None),
        ("refused", "Forbidden by https://b.example/robots.txt for GPTBot (line 2: Disallow: /)"),
    ]
    assert verify(trail).clean, [finding.what for finding in verify(trail).findings]
    forged = forged_item(trail, "https://b.example/y", status="kept", refused_by=None, why=None)
    assert not verify(forged).clean


#: A run header's agents against its own settings: (id, header changes, the problem).
HEADERS: list[tuple[str, dict[str, Any], str]] = [
    ("as-the-crawl-writes-them", {"settings": {"REP_PURPOSE_AGENTS": ["GPTBot", "ClaudeBot"],
                                               "ROBOTSTXT_USER_AGENT": None}}, ""),
    ("its-crawler-renamed", {"agents": ["otherbot", "GPTBot", "ClaudeBot"]},
     "its crawler's name is 'testbot' (its User-Agent settings), not its first agent "
     "'otherbot'"),
    ("a-token-left-out", {"agents": ["testbot", "ClaudeBot"],
                          "settings": {"REP_PURPOSE_AGENTS": ["GPTBot", "ClaudeBot"]}},
     "its REP_PURPOSE_AGENTS are GPTBot, ClaudeBot, not its agents after the first "
     "(ClaudeBot)"),
    ("a-presets-name-left-out",
     {"agent_presets": [{"name": "apertus-0943bfd", "names": ["GPTBot", "PanguBot"]}]},
     "its preset 'apertus-0943bfd' names PanguBot, which its agents do not"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("header", "expected"), [case[1:] for case in HEADERS], ids=[case[0] for case in HEADERS]
)
def test_a_run_headers_agents_are_those_its_settings_give(
    tmp_path: Path, header: dict[str, Any], expected: str
) -> None:
    """The names a run's records are decided for are its header's ``agents``: one copy
    of them changed alone (a name dropped, the crawler renamed) is found on its run line,
    as the crawl writes all three from the same settings."""
    found = [f.what for f in verify(agents_trail(tmp_path, gpt_refusal(), **header)).findings]
    if not expected:
        assert found == []
    else:
        assert any(expected in one and one.startswith("run 01234567: ") for one in found), found
