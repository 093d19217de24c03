"""The report's lines made from their outcome's part, encoded once per evidence: the same
bytes as each line encoded whole, whatever the item, its status then, its shard and its
characters (a lone surrogate escapes the whole line, as before)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rep_recheck.datasets import UNREADABLE, Item
from rep_recheck.outputs import Evidence, ReportLines, encode, item_line

TEXTS = st.text(st.sampled_from(["a", "/", '"', "\\", "\n", "\u00e9", "\U0001f600", "\ud800"]))
EVIDENCES = st.builds(
    Evidence,
    signal=st.sampled_from(["", "robots.txt", "unknown", "aipref"]),
    reason=st.sampled_from(["", "forbidden", "purpose"]),
    purpose=st.sampled_from(["", "search"]),
    document=TEXTS,
    document_line=st.none() | st.integers(0, 10_000),
    text=TEXTS,
    sha256=st.sampled_from(["", "ab" * 32]),
    time=st.sampled_from(["", "2026-11-29T10:00:00.000Z"]),
    record=st.sampled_from(["", "<urn:uuid:1>"]),
    agent=st.sampled_from(["", "mybot"]),
)
ITEMS = st.builds(
    Item,
    number=st.integers(0, 10**9),
    url=TEXTS,
    then=st.none() | st.sampled_from(["kept", "refused", "unknown", "no capture before 2020"]),
)


@settings(max_examples=400, deadline=None)
@given(
    items=st.lists(ITEMS, min_size=1, max_size=6),
    said=EVIDENCES,
    status=st.sampled_from(["kept", "refused", "unknown", UNREADABLE]),
    why=TEXTS,
    shard=st.sampled_from(["", "part-1.jsonl", "p\u00e9\ud800.jsonl"]),
    scope=st.sampled_from([(), ("tdmrep.json",), ("tdmrep.json", "rsl")]),
)
def test_a_report_line_made_from_its_outcomes_part_is_the_line_encoded_whole(
    items: list[Item],
    said: Evidence,
    status: str,
    why: str,
    shard: str,
    scope: tuple[str, ...],
) -> None:
    lines = ReportLines(scope)
    for item in items:  # the items of one outcome: its part encoded once, then reused
        expected = encode(item_line(item, status, said, why, shard, scope))
        assert lines.line(item, status, said, why, shard) == expected


def test_an_outcomes_part_is_encoded_once_and_told_from_another_evidence() -> None:
    lines = ReportLines()
    said = Evidence("robots.txt", "forbidden", document="https://a.example/robots.txt")
    first = lines.line(Item(1, "https://a.example/x"), "refused", said)
    second = lines.line(Item(2, "https://a.example/y"), "refused", said)
    assert first.endswith(second[second.index(b',"signal"') :])
    assert len(lines._ends) == 1
    other = Evidence("robots.txt", "forbidden", document="https://b.example/robots.txt")
    third = lines.line(Item(3, "https://b.example/y"), "refused", other)
    assert b"b.example/robots.txt" in third and len(lines._ends) == 2
