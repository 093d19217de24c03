"""The user pages read quickly: short paragraphs and tables, the details on the
reference pages (behaviour, settings, the audit trail, the API, the purpose notes); and
the testing page's count of the tests that need the robots.txt corpus is the number of
those `python -m pytest -rs` lists as skipped without it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DOCS = ROOT / "docs"
#: The pages a newcomer reads first; the reference pages may be dense.
USER_PAGES = [ROOT / "README.md"] + [
    DOCS / f"{name}.md"
    for name in ("overview", "installation", "usage", "demo", "switching", "deployment",
                 "cli", "faq", "plugins", "broad-crawls", "site-owners")
]  # fmt: skip
#: The longest paragraph or list item a user page has, in lines.
MOST_LINES = 12


def long_blocks(text: str) -> list[str]:
    """The first words of each paragraph or list item longer than :data:`MOST_LINES`
    (code blocks, tables and headings left out; a list item's indented lines are its)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            current = []
            continue
        stripped = line.strip()
        if fenced or not stripped or stripped.startswith(("|", "#")):
            current = []
            continue
        if re.match(r"(\d+\.|[-*]) ", line):  # a new top-level list item
            current = []
        if not current:
            blocks.append(current)
        current.append(line)
    return [" ".join(block[0].split()[:8]) for block in blocks if len(block) > MOST_LINES]


def test_the_rule_counts_paragraphs_and_list_items() -> None:
    paragraph = "\n".join(["word"] * 13)
    item = "5. step\n" + "\n".join(["   more"] * 12)
    assert long_blocks(f"{paragraph}\n\n- short\n  two\n\n{item}\n") == ["word", "5. step"]
    assert long_blocks("\n".join(["ok"] * 12) + "\n| a |\n" + "\n".join(["x"] * 12)) == []


@pytest.mark.parametrize("page", USER_PAGES, ids=[p.name for p in USER_PAGES])
def test_user_pages_have_short_paragraphs(page: Path) -> None:
    assert long_blocks(page.read_text(encoding="utf-8")) == []


def test_usage_step_5_is_a_table_with_a_link_to_every_case() -> None:
    text = (DOCS / "usage.md").read_text(encoding="utf-8")
    step = text.split("\n5. ", 1)[1].split("\n6. ", 1)[0]
    assert "| 429, 5xx, a timeout, a network error |" in step
    assert "(behaviour.md#fetch-outcomes)" in step


def corpus_tests() -> int:
    """The tests that take the ``corpus_dir`` fixture (each skipped without the corpus),
    counted as pytest collects them: every parametrized case is one skip of ``-rs``."""
    functions: dict[str, set[str]] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                argument.arg == "corpus_dir" for argument in node.args.args
            ):
                functions.setdefault(str(path.relative_to(ROOT)), set()).add(node.name)
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
         "-p", "no:cacheprovider", *functions],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=True,
    ).stdout  # fmt: skip
    count = 0
    for node_id in re.findall(r"^(tests/\S+::\S+)$", collected, re.MULTILINE):
        path, _, name = node_id.partition("::")
        if name.split("[", 1)[0] in functions.get(path, ()):
            count += 1
    return count


def test_the_testing_page_counts_the_corpus_tests() -> None:
    text = (DOCS / "contributing" / "testing.md").read_text(encoding="utf-8")
    [stated] = re.findall(r"`needs the robots.txt corpus`: (\d+) robustness tests", text)
    assert int(stated) == corpus_tests()
