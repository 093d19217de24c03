"""The user documentation links only to itself: every link from the README (and from
docs/behaviour.md) into docs/behaviour.md names a heading that exists, and the README
cites no document that is not part of the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BEHAVIOUR = ROOT / "docs" / "behaviour.md"


def github_anchor(heading: str) -> str:
    """The fragment GitHub gives a Markdown heading: lowercase, punctuation other than
    ``-`` and ``_`` removed, spaces to ``-``."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", markdown, re.MULTILINE)
    return {github_anchor(heading) for heading in headings}


def test_anchor_rule() -> None:
    assert github_anchor("Where a robots.txt applies") == "where-a-robotstxt-applies"
    assert github_anchor("The 500 KiB cap") == "the-500-kib-cap"


def links(markdown: str, target: str) -> list[str]:
    """The fragments of the links to ``target`` (``""`` for a link without one)."""
    return re.findall(rf"\]\({re.escape(target)}(?:#([^)]*))?\)", markdown)


@pytest.mark.parametrize(
    ("source", "target"),
    [(README, "docs/behaviour.md"), (BEHAVIOUR, "")],
    ids=["README", "behaviour.md"],
)
def test_links_into_the_behaviour_reference_resolve(source: Path, target: str) -> None:
    known = anchors(BEHAVIOUR.read_text(encoding="utf-8"))
    text = source.read_text(encoding="utf-8")
    found = links(text, target) if target else re.findall(r"\]\(#([^)]*)\)", text)
    assert found, f"no links from {source.name} into the behaviour reference"
    assert [fragment for fragment in found if fragment and fragment not in known] == []


def test_readme_cites_no_outside_documents() -> None:
    text = README.read_text(encoding="utf-8")
    assert re.findall(r"SPEC(?:\.md| §)|\bissue \d+", text) == []


def test_behaviour_reference_covers_the_documented_topics() -> None:
    known = anchors(BEHAVIOUR.read_text(encoding="utf-8"))
    for anchor in (
        "profiles",
        "switches",
        "parsing-robotstxt",
        "matching",
        "where-a-robotstxt-applies",
        "fetch-outcomes",
        "the-500-kib-cap",
        "caching",
        "stale-copies",
        "giving-up",
        "page-level-directives",
        "bad-input",
    ):
        assert anchor in known
