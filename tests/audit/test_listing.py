"""``audit list`` of a crawl's trail: each row says its record's state in the words every
command says it (``fetched, item dropped``), and ``--fate dropped`` lists the pages whose
items were dropped as such (a recheck's items: test_listing_items.py)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.support.tools import audit_tool
from tests.support.trailfactory import (
    ORIGIN,
    encode,
    end_line,
    robots_part,
    run_line,
    snapshot_line,
    url_line,
    write_trail,
)

NOINDEX = 'noindex by <meta name="robots" content="noindex">'


def test_a_page_whose_items_were_dropped_is_listed_as_dropped(tmp_path: Path) -> None:
    """``audit list --fate dropped`` showed its rows as ``fetched (noindex)``, the state the
    HTML report and ``summary`` call ``fetched, item dropped``."""
    allowed = robots_part(None)
    dropped = url_line("/hidden", robots=allowed, items_kept=0, items_dropped=2,
                       item_reason="noindex", item_why=NOINDEX)  # fmt: skip
    some = url_line("/some", robots=allowed, items_kept=1, items_dropped=1,
                    item_reason="noindex", item_why=NOINDEX)  # fmt: skip
    body = [snapshot_line(), url_line("/", robots=allowed), dropped, some]
    path = write_trail(tmp_path / "t.jsonl", lines=encode([run_line(), *body, end_line(body)]))
    status, out = audit_tool("list", str(path), "--fate", "dropped")
    assert status == 0, out
    assert out.splitlines() == [
        f"line 4: {ORIGIN}/hidden fetched, item dropped (noindex): {NOINDEX}",
        f"line 5: {ORIGIN}/some fetched, item dropped (noindex): {NOINDEX}",
        "2 record(s)",
    ]
    _, out = audit_tool("list", str(path), "--format", "jsonl")
    fates = {row["url"]: (row["fate"], row["state"]) for row in map(json.loads, out.splitlines())}
    assert fates == {
        f"{ORIGIN}/": ("fetched", "fetched"),
        f"{ORIGIN}/hidden": ("fetched", "fetched, item dropped"),
        f"{ORIGIN}/some": ("fetched", "fetched, item dropped"),
    }


def test_the_fate_column_is_the_trails_word_and_the_state_its_wording(tmp_path: Path) -> None:
    """``--format jsonl`` and ``csv`` wrote ``fetched, item dropped`` in ``fate`` where the
    trail says ``fetched``: a script filtering ``fate == "fetched"`` missed the page. The
    ``fate`` is the contract's word (:class:`~rep_engine.records.Fate`), the wording is in
    ``state``."""
    allowed = robots_part(None)
    dropped = url_line("/hidden", robots=allowed, items_kept=0, items_dropped=1,
                       item_reason="noindex", item_why=NOINDEX)  # fmt: skip
    body = [snapshot_line(), dropped]
    path = write_trail(tmp_path / "t.jsonl", lines=encode([run_line(), *body, end_line(body)]))
    _, out = audit_tool("list", str(path), "--format", "jsonl")
    (shown,) = map(json.loads, out.splitlines())
    assert (shown["fate"], shown["state"], shown["reason"]) == (
        "fetched", "fetched, item dropped", "noindex"
    )  # fmt: skip
    _, out = audit_tool("list", str(path), "--format", "csv")
    (listed,) = csv.DictReader(io.StringIO(out))
    assert (listed["fate"], listed["state"]) == ("fetched", "fetched, item dropped")


def test_reason_is_chosen_by_the_trails_word_and_a_typo_is_named_so() -> None:
    """``--reason`` takes the trail's words in any case, and a word it does not know is
    said with the closest one as the trail writes it, never as a program's name of it."""
    import pytest

    from rep_audit.listing import LIST_REASONS, ListError, chosen

    assert chosen(["ROBOTS.TXT, noindex"], LIST_REASONS, "--reason") == {"robots.txt", "noindex"}
    with pytest.raises(ListError) as raised:
        chosen(["robot.txt"], LIST_REASONS, "--reason")
    assert str(raised.value).startswith(
        "--reason: 'robot.txt' is not a reason (did you mean 'robots.txt'?); expected "
        "robots.txt, unreachable, purpose, closed, noindex, unavailable_after"
    )
