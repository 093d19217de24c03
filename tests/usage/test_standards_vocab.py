"""aipref vocab-08 (read in full: ietf-wg-aipref/drafts, gh-pages,
draft-ietf-aipref-vocab-08/) beside -07, Content-Signal ``use=``, and the one table of
revisions."""

from __future__ import annotations

import pytest

from rep_engine.robotstxt import parse_robotstxt
from rep_engine.robotstxt.aipref import CATEGORIES, combine, parse_prefs, parse_prefs_header
from rep_engine.usage.purpose import PURPOSES, ROWS, prefs_signal
from rep_engine.usage.standards import STANDARDS
from rep_engine.verdict.policy import UsagePolicy
from tests.support.paths import DOCS

Y, N, U = True, False, None
PURPOSE_NOTES = DOCS / "purpose-notes.md"


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
def test_ai_use_answers_ai_input(statement: str, expected: tuple[bool | None, ...]) -> None:
    signal = prefs_signal(parse_prefs(statement), "header Content-Usage: " + statement)
    assert signal.answers == expected


def test_ai_use_in_the_vocabulary_and_its_combination() -> None:
    assert CATEGORIES == ("train-ai", "search", "ai-use")
    prefs = parse_prefs("ai-use=n")
    assert prefs.get("ai-use") is False and str(prefs) == "ai-use=n" and prefs
    both = combine([parse_prefs("ai-use=y"), parse_prefs_header(["search=y", "ai-use=n"])])
    assert (both.ai_use, both.search, both.train_ai) == (N, Y, U)


def test_a_robotstxt_ai_use_rule_refuses_ai_input_before_the_fetch() -> None:
    rules = parse_robotstxt("User-agent: *\nContent-Usage: /rag ai-use=n\n")
    url = "https://example.com/rag/1"
    before = UsagePolicy.of(["ai-input"]).before_fetch(rules, url, "TestBot")
    refusal = UsagePolicy.of(["ai-input"]).refuse_before(before)
    assert refusal is not None
    assert refusal.message == "ai-input denied by robots.txt line 2: Content-Usage: /rag ai-use=n"
    assert UsagePolicy.of(["ai-train", "search"]).refuse_before(before) is None


def test_search_yes_never_lifts_another_categorys_no() -> None:
    """vocab-08 §4.3: search "overrides any usage that falls into other categories": a use
    inside a search application. Our ai-train / ai-input are not one: it lifts no n."""
    signal = prefs_signal(parse_prefs("search=y, ai-use=n, train-ai=n"), "h")
    assert signal.answers == (Y, N, N)


# --------------------------------------------------------------------------- vocab-08 text


def test_vocab08_three_labels_each_answering_its_own_purpose_no_hierarchy() -> None:
    """§6.1 Table 1: train-ai, ai-use, search; a "no" for one says nothing of the others
    (no hierarchy, unlike vocab-05's)."""
    assert set(CATEGORIES) == {"train-ai", "ai-use", "search"}
    cases = {
        "train-ai=n": (U, N, U),
        "ai-use=n": (U, U, N),
        "search=n": (N, U, U),
        "search=n, train-ai=y, ai-use=y": (N, Y, Y),
        "train-ai=n, ai-use=n": (U, N, N),
    }
    for statement, expected in cases.items():
        assert prefs_signal(parse_prefs(statement), "h").answers == expected, statement


def test_vocab08_train_ai_is_generative_training_and_still_answers_our_ai_train() -> None:
    """§4.1: train-ai is training a generative model only; our ai-train covers any
    model: its n denies ai-train whatever the model, its y allows it."""
    policy = UsagePolicy.of(["ai-train"])
    rules = parse_robotstxt("User-agent: *\nContent-Usage: train-ai=n\n")
    refusal = policy.refuse_before(policy.before_fetch(rules, "https://e.com/a", "bot"))
    assert refusal is not None and refusal.purpose == "ai-train"
    row = next(r for r in ROWS if r.signal == "train-ai=n")
    assert "generative AI model" in row.source and "non-generative" in row.source


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("Train-AI=n", (U, N, U)),  # uppercase key: vocab-08 unknown, a "no" kept
        ("AI-USE=n, search=y", (U, U, N)),  # the y of a failed parse is never read
        ("Search=y", (U, U, U)),  # no "yes" from a failed parse
        ('ai-use="n"', (U, U, N)),  # "n" as a String: vocab-08 unknown, a "no" kept
        ('train-ai="y"', (U, U, U)),
        ("ai-train=n, train-genai=n, ai-input=n", (U, U, U)),  # unknown labels ignored
        ("train-ai=n;ai-use=y", (U, N, U)),  # parameters ignored (§6.4)
    ],
)
def test_vocab08_case_sensitive_labels_unknown_labels_and_the_kept_noes(
    statement: str, expected: tuple[bool | None, ...]
) -> None:
    assert prefs_signal(parse_prefs(statement), "h").answers == expected


def test_vocab08_the_deviations_are_documented() -> None:
    text = (DOCS / "deviations.md").read_text(encoding="utf-8")
    assert "Train-AI=n" in text and 'train-ai="n"' in text and "vocab-08" in text


def test_the_revision_followed_is_vocab08_read_in_full() -> None:
    revision = STANDARDS["aipref-vocab"]
    assert revision.startswith("draft-ietf-aipref-vocab-08") and "primary text" in revision
    assert "summar" not in revision


def test_every_mapping_row_names_a_revision_of_the_one_table_and_the_docs_show_it() -> None:
    text = PURPOSE_NOTES.read_text(encoding="utf-8")
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
    from rep_engine.usage.purpose import content_signal_signal

    signals = parse_robotstxt(f"User-agent: *\nContent-Signal: {line}\n").content_signals("x")
    assert signals.use == use
    signal = content_signal_signal(signals)
    assert signal.answers == expected
    assert signal.conditions == (() if use is None else (f"use={use}",))
    if use is not None:
        assert signal.source.endswith(f"use={use}")


def test_content_signal_use_merges_to_the_most_restrictive_level() -> None:
    body = "Content-Signal: use=full\nUser-agent: *\nContent-Signal: use=reference\n"
    assert parse_robotstxt(body).content_signals("x").use == "reference"
    body = "Content-Signal: use=immediate\nUser-agent: *\nContent-Signal: use=full\n"
    assert parse_robotstxt(body).content_signals("x").use == "immediate"


def _generated_purpose_table() -> str:
    """The mapping table as the documentation build writes it (docs/_ext/rep_tables.py)."""
    import importlib.util

    path = DOCS / "_ext" / "rep_tables.py"
    spec = importlib.util.spec_from_file_location("rep_tables", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.purpose_table(""))
