"""aipref vocab-08 (its ``ai-use`` category, read from summaries) beside -07, and the one
table of revisions (issue 22 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_rep.robotstxt import parse_robotstxt
from scrapy_rep.robotstxt.aipref import CATEGORIES, combine, parse_prefs, parse_prefs_header
from scrapy_rep.usage.policy import UsagePolicy
from scrapy_rep.usage.purpose import PURPOSES, ROWS, prefs_signal
from scrapy_rep.usage.standards import STANDARDS

Y, N, U = True, False, None
DOCS = Path(__file__).resolve().parent.parent / "docs" / "purpose-notes.md"


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("ai-use=n", (U, U, N)),
        ("ai-use=y", (U, U, Y)),
        ("train-ai=n, ai-use=y, search=y", (Y, N, Y)),
        ("ai-use=?1", (U, U, U)),  # a boolean, not the token y
        ("train-ai=n", (U, N, U)),  # -07 statements keep their meaning
        ("search=y", (Y, U, U)),
    ],
)
def test_issue22_ai_use_answers_ai_input(statement: str, expected: tuple[bool | None, ...]) -> None:
    signal = prefs_signal(parse_prefs(statement), "header Content-Usage: " + statement)
    assert signal.answers == expected


def test_issue22_ai_use_in_the_vocabulary_and_its_combination() -> None:
    assert CATEGORIES == ("train-ai", "search", "ai-use")
    prefs = parse_prefs("ai-use=n")
    assert prefs.get("ai-use") is False and str(prefs) == "ai-use=n" and prefs
    both = combine([parse_prefs("ai-use=y"), parse_prefs_header(["search=y", "ai-use=n"])])
    assert (both.ai_use, both.search, both.train_ai) == (N, Y, U)


def test_issue22_a_robotstxt_ai_use_rule_refuses_ai_input_before_the_fetch() -> None:
    rules = parse_robotstxt("User-agent: *\nContent-Usage: /rag ai-use=n\n")
    url = "https://example.com/rag/1"
    before = UsagePolicy.of(["ai-input"]).before_fetch(rules, url, "TestBot")
    refusal = UsagePolicy.of(["ai-input"]).refuse_before(before)
    assert refusal is not None
    assert refusal.message == "ai-input denied by robots.txt line 2: Content-Usage: /rag ai-use=n"
    assert UsagePolicy.of(["ai-train", "search"]).refuse_before(before) is None


def test_issue22_search_yes_never_lifts_another_categorys_no() -> None:
    """vocab-08 lets search take precedence (summaries): it never lifts ai-use=n here."""
    signal = prefs_signal(parse_prefs("search=y, ai-use=n, train-ai=n"), "h")
    assert signal.answers == (Y, N, N)


def test_every_mapping_row_names_a_revision_of_the_one_table_and_the_docs_show_it() -> None:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("## 5. The mapping onto purposes")
    table = text[start : text.index("Why these rows:", start)]
    if "<!-- rep: purpose-table -->" in table:  # the docs build writes it from ROWS
        table = _generated_purpose_table()
    for row in ROWS:
        assert row.revision == STANDARDS[row.standard]
        assert row.revision in table, row.signal
    assert {row.signal for row in ROWS if row.answers[PURPOSES.index("ai-input")] is not None} >= {
        "ai-use=y",
        "ai-use=n",
    }


# --------------------------------------------------------------------------- Content-Signal use=


@pytest.mark.parametrize(
    ("line", "use", "expected"),
    [
        # Cloudflare's managed robots.txt: use= is a condition, each purpose's key decides.
        ("search=yes, ai-train=no, use=reference", "reference", (Y, N, U)),
        ("use=immediate", "immediate", (U, U, U)),
        ("search=yes, use=full", "full", (Y, U, U)),
        ("use=Reference", "reference", (U, U, U)),  # values are case-insensitive
        ("use=later, ai-input=yes", None, (U, U, Y)),  # an unknown level is skipped
        ("ai-input=no, use=full", "full", (U, U, N)),  # a "no" stays a "no"
    ],
)
def test_content_signal_use_is_a_condition_not_an_answer(
    line: str, use: str | None, expected: tuple[bool | None, ...]
) -> None:
    from scrapy_rep.usage.purpose import content_signal_signal

    signals = parse_robotstxt(f"User-agent: *\nContent-Signal: {line}\n").content_signals("x")
    assert signals.use == use
    signal = content_signal_signal(signals)
    assert signal.answers == expected
    assert signal.conditions == (() if use is None else (f"use={use}",))
    if use is not None:
        assert signal.source.endswith(f"use={use}")


def test_issue22_use_merges_to_the_most_restrictive_level() -> None:
    body = "Content-Signal: use=full\nUser-agent: *\nContent-Signal: use=reference\n"
    assert parse_robotstxt(body).content_signals("x").use == "reference"
    body = "Content-Signal: use=immediate\nUser-agent: *\nContent-Signal: use=full\n"
    assert parse_robotstxt(body).content_signals("x").use == "immediate"


def _generated_purpose_table() -> str:
    """The mapping table as the documentation build writes it (docs/_ext/rep_tables.py)."""
    import importlib.util

    path = DOCS.parent / "_ext" / "rep_tables.py"
    spec = importlib.util.spec_from_file_location("rep_tables", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.purpose_table(""))
