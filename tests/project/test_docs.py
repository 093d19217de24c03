"""The user documentation links only to itself: every link from the README (and from
docs/behaviour.md) into docs/behaviour.md names a heading that exists, and the README
cites no document that is not part of the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


# --------------------------------------------------------------------------- every page

DOCS = ROOT / "docs"
PAGES = sorted([README, ROOT / "CHANGELOG.md", *DOCS.glob("*.md")])
LINK = re.compile(r"\]\(([^)\s]*)\)")


def relative_links(page: Path) -> list[tuple[str, str]]:
    """(target file, fragment) of each link from ``page`` that stays in the repository."""
    found = []
    for link in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", link):
            continue
        target, _, fragment = link.partition("#")
        found.append((target, fragment))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    """Files and headings named by the README's, the changelog's and the docs' links
    exist (the offline stand-in for a link checker; Sphinx checks the docs' too)."""
    broken = []
    for target, fragment in relative_links(page):
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(target)
        elif fragment and fragment not in anchors(path.read_text(encoding="utf-8")):
            broken.append(f"{target}#{fragment}")
    assert broken == []


def test_readme_links_into_the_docs() -> None:
    targets = {target for target, _ in relative_links(README)}
    for page in ("settings", "deployment", "behaviour", "purpose-notes", "benchmarks"):
        assert f"docs/{page}.md" in targets


def documented_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def code_strings() -> set[str]:
    """Every string constant in the package, f-strings' literal parts included."""
    import ast

    strings = set()
    for path in (ROOT / "scrapy_rep").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.add(node.value)
    return strings


def test_settings_the_docs_name_exist() -> None:
    from scrapy_rep.settings import SETTINGS

    known = {setting.name for setting in SETTINGS}
    named = set(re.findall(r"\bREP_[A-Z0-9_]*[A-Z0-9]\b(?![*…])", documented_text()))
    # The test suite's switches: CI's, and the README's for the corpus and soak runs.
    named -= {"REP_REQUIRE_REDIS", "REP_REQUIRE_CHROMIUM", "REP_REQUIRE_EXIFTOOL", "REP_CORPUS",
              "REP_SOAK"}  # fmt: skip
    named -= {"REP_PURPOSES"}  # the settings page's example of a misspelled name
    assert sorted(named - known) == []
    assert sorted(known - named) == []  # and every setting is documented


#: ``crawl/`` paths the changelog names that still hold: the rest of its older entries name
#: the modules of ``crawl/`` where they stood before its subpackages.
CHANGELOG_KEPT: set[str] = set()
#: Logger names the docs give that name no module: the loggers of ``crawl/`` kept their
#: names when it got subpackages.
LOGGERS = {"scrapy_rep.crawl.spidermiddlewares"}


def test_modules_the_docs_name_exist() -> None:
    import importlib

    missing = []
    pattern = re.compile(r"(?<![\w/.-])scrapy_rep(?:\.[A-Za-z_]\w*)+")
    found = set()
    for page in PAGES:
        names = set(pattern.findall(page.read_text(encoding="utf-8")))
        if page.name == "CHANGELOG.md":
            names = {n for n in names if not n.startswith("scrapy_rep.crawl.")} | CHANGELOG_KEPT
        found |= names
    for dotted in found - LOGGERS:
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                value = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attribute in parts[cut:]:
                    value = getattr(value, attribute)
            except AttributeError:
                missing.append(dotted)
            break
        else:
            missing.append(dotted)
    assert sorted(missing) == []


def test_stats_the_docs_name_exist_and_the_codes_stats_are_documented() -> None:
    strings = code_strings()
    words = {word for text in strings for word in re.findall(r"[a-z_]+", text)}
    text = documented_text()
    named = set(re.findall(r"(?<![\w/.-])rep/[a-z_]+(?:/[a-z_]+)*", text))
    wrong = []
    for stat in named:
        area, *rest = stat.split("/")[1:]
        known_area = any(s.startswith(f"rep/{area}") for s in strings)
        if not known_area or any(part not in words for part in rest):
            wrong.append(stat)
    assert sorted(wrong) == []
    literal = {s for s in strings if re.fullmatch(r"rep/[a-z_]+(?:/[a-z_]+)+", s)}
    assert sorted(literal - named) == []


# --------------------------------------------------------------------------- generated tables


def rep_tables():  # type: ignore[no-untyped-def]
    """The docs' Sphinx extension (it needs no Sphinx to make its tables)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rep_tables", DOCS / "_ext" / "rep_tables.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_settings_table_is_written_from_the_code() -> None:
    from scrapy_rep.settings import SETTINGS

    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert "<!-- rep: settings-table -->" in page
    table = rep_tables().settings_table(page)
    for setting in SETTINGS:
        row = next(line for line in table.splitlines() if f"`{setting.name}`" in line)
        assert re.search(rf"\(#[a-z_-]*{setting.name.lower()}[a-z_-]*\)", row)  # its section
        stated = rep_tables().documented_defaults(page)[setting.name]
        assert f"`{stated}`" in row  # as its section states it (`60`, not `60.0`)


def test_settings_page_has_a_section_for_every_setting_and_no_other() -> None:
    tables = rep_tables()
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert tables.settings_page_problems(page) == []
    cut = page.replace("### `REP_AUDIT_FILE`", "### Audit").replace(
        "`REP_PROFILE`\n", "`REP_PROFIL`\n"
    )
    assert tables.settings_page_problems(cut) == [
        "setting REP_AUDIT_FILE has no section on the settings page",
        "setting REP_PROFILE has no section on the settings page",
        "the settings page documents REP_PROFIL, not a setting",
    ]


def test_purpose_table_is_written_from_the_code() -> None:
    from scrapy_rep.usage._purpose_table import ROWS

    assert "<!-- rep: purpose-table -->" in (DOCS / "purpose-notes.md").read_text(encoding="utf-8")
    table = rep_tables().purpose_table("")
    assert len([line for line in table.splitlines() if line.startswith("| ")]) == len(ROWS) + 1
    assert "| tdmrep | `tdm-reservation: 1` | – | denied | denied |" in table


def test_every_signal_and_meta_key_is_documented() -> None:
    import scrapy_rep.signals

    reference = (DOCS / "reference.md").read_text(encoding="utf-8")
    signals = [
        name
        for name, value in vars(scrapy_rep.signals).items()
        if type(value) is object and not name.startswith("_")
    ]
    assert len(signals) >= 6
    for name in signals:
        assert f"`scrapy_rep.signals.{name}`" in reference
    keys = {s for s in code_strings() if re.fullmatch(r"rep_[a-z_]+", s)}
    assert keys
    for key in sorted(keys):
        assert f'meta["{key}"]' in reference or f"`{key}`" in documented_text(), key


def test_each_settings_section_states_the_codes_default() -> None:
    tables = rep_tables()
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    from scrapy_rep.settings import SETTINGS

    assert set(tables.documented_defaults(page)) == {s.name for s in SETTINGS}
    assert tables.default_problems(page) == []
    wrong = page.replace("Default: `60`.", "Default: `61`.", 1)
    assert tables.default_problems(wrong) == [
        "REP_CRAWL_DELAY_MAX: the settings page says the default is 61, the code 60.0"
    ]
    assert not tables.same_default("1", True) and tables.same_default('"search"', ("search",))


def test_pages_with_generated_tables_are_read_at_every_build() -> None:
    from types import SimpleNamespace

    pages = rep_tables().generated_pages(SimpleNamespace(srcdir=str(DOCS)))
    assert sorted(pages) == ["purpose-notes", "settings"]


def test_generated_tables_are_written_into_the_pages_and_fresh() -> None:
    """The settings and purpose tables stand in the Markdown files (a page read on GitHub
    has them), and match the code: a stale table fails here and in the site's build."""
    tables = rep_tables()
    for page in ("settings.md", "purpose-notes.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        fresh, stale = tables.refreshed(text)
        assert stale == [] and fresh == text, page
    settings = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert "| [`REP_CRAWL_DELAY_MAX`](#rep_crawl_delay_max) | `60` |" in settings
    assert '| [`REP_PURPOSE`](#rep_purpose) | `"search"` |' in settings
    stale_page = settings.replace("| `60` |", "| `61` |", 1)
    assert tables.refreshed(stale_page)[1] == [
        "the settings-table written in the page is stale: run python docs/_ext/rep_tables.py"
    ]


def test_the_site_has_an_installation_page_and_titles_without_internal_numbers() -> None:
    """Navigation shows page titles: none carries an issue number, and the landing page
    leads to an Installation page."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert "\ninstallation\n" in index and "(installation.md)" in index
    for page in DOCS.glob("*.md"):
        title = page.read_text(encoding="utf-8").splitlines()[0]
        assert not re.search(r"\bissues? \d", title, re.IGNORECASE), (page.name, title)


def test_no_file_of_the_package_docs_or_tests_cites_an_internal_issue_number() -> None:
    """A rule cites the spec or the docs section that states it, and a design choice its
    entry in docs/decisions.md: a future maintainer cannot read this project's issues.
    Other projects' issues (Scrapy's, the aipref working group's) may be cited by name."""
    root = DOCS.parent
    files = [
        *root.glob("scrapy_rep/**/*.py"),
        *(page for page in DOCS.glob("*.md") if page.name != "changelog.md"),
        *root.glob("tests/**/*.py"),
        *root.glob("benchmarks/*.py"),
        root / "README.md",
        root / "ARCHITECTURE.md",
    ]
    cited = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in re.finditer(r"\b(\w+ )?issues? #?\d+", line, re.IGNORECASE):
                if (match.group(1) or "").strip().lower() not in {"scrapy", "its", "aipref"}:
                    cited.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert cited == []
    assert not [p for p in root.glob("tests/**/*.py") if re.search(r"issue\d", p.name)]
