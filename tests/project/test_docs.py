"""The user documentation links only to itself: every link from the README (and from
docs/behaviour.md) into docs/behaviour.md names a heading that exists, and the README
cites no document that is not part of the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import PACKAGES

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


def test_links_into_the_behaviour_reference_resolve() -> None:
    known = anchors(BEHAVIOUR.read_text(encoding="utf-8"))
    found = re.findall(r"\]\(#([^)]*)\)", BEHAVIOUR.read_text(encoding="utf-8"))
    assert found, "no links inside the behaviour reference"
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
PAGES = sorted([README, ROOT / "CHANGELOG.md", *DOCS.glob("*.md"), *DOCS.glob("contributing/*.md")])
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


def test_readme_names_the_docs_pages() -> None:
    """The README names the docs' pages by their paths (it is also the PyPI description,
    where a relative link leads nowhere: tests/project/test_readme.py)."""
    named = set(re.findall(r"`(docs/[\w/-]+\.md)`", README.read_text(encoding="utf-8")))
    for page in ("settings", "deployment", "behaviour", "purpose-notes", "benchmarks", "faq"):
        assert f"docs/{page}.md" in named


def documented_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def code_strings() -> set[str]:
    """Every string constant in the package, f-strings' literal parts included."""
    import ast

    strings = set()
    for path in (path for package in PACKAGES for path in package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.add(node.value)
    return strings


def test_settings_the_docs_name_exist() -> None:
    from rep_engine.settings import SETTINGS

    known = {setting.name for setting in SETTINGS}
    named = set(re.findall(r"\bREP_[A-Z0-9_]*[A-Z0-9]\b(?![*…])", documented_text()))
    # The test suite's switches: CI's, the README's for the corpus and soak runs, and the
    # counter of the processes the tests start (docs/contributing/testing.md).
    named -= {"REP_REQUIRE_REDIS", "REP_REQUIRE_CHROMIUM", "REP_REQUIRE_EXIFTOOL", "REP_CORPUS",
              "REP_SOAK", "REP_REQUIRE_PLUGINS", "REP_CHILD_PROCESSES"}  # fmt: skip
    named -= {"REP_PURPOSES"}  # the settings page's example of a misspelled name
    named -= {"REP_USAGE_TOKENS"}  # designed, not built (docs/decisions.md, draft-kelley)
    assert sorted(named - known) == []
    assert sorted(known - named) == []  # and every setting is documented


#: The pages for contributors, which may name the package's private modules (the
#: architecture, the decisions and the benchmarks cite the code); every other page is
#: for users and names only the public API.
CONTRIBUTOR_PAGES = {
    ROOT / "ARCHITECTURE.md",
    DOCS / "decisions.md",
    DOCS / "release.md",
    *DOCS.glob("benchmarks*.md"),
    *DOCS.glob("contributing/*.md"),
}
USER_PAGES = [page for page in PAGES if page not in CONTRIBUTOR_PAGES]
#: A dotted name of one of the four parts' packages, or a path of one of their files (the
#: add-on's bundled example robots.txt is no module).
PACKAGE_NAME = re.compile(
    r"(?<![\w/.-])(?:scrapy_rep|rep_engine|rep_audit|rep_recheck)(?:\.[A-Za-z_]\w*)+"
)
PACKAGE_PATH = re.compile(
    r"(?<![\w/.-])(?:scrapy_rep|rep-engine/rep_engine|rep-audit/rep_audit|rep-recheck/rep_recheck)"
    r"/(?!examples/)[\w/.]+"
)


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module of the package or an attribute of one."""
    import importlib

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
            return False
        return True
    return False


def private_names(text: str) -> list[str]:
    """The names of ``text`` outside the public API: a dotted name whose first part after
    ``scrapy_rep.`` is not in ``scrapy_rep.__all__`` (``signals`` is: the module), after
    ``rep_engine.`` not in ``rep_engine.__all__`` (the audit tools and the re-check have
    commands, no names), or a path of a file of a package."""
    import rep_engine
    import scrapy_rep

    public = {"scrapy_rep": scrapy_rep.__all__, "rep_engine": rep_engine.__all__}
    named = []
    for dotted in PACKAGE_NAME.findall(text):
        root, name = dotted.split(".")[:2]
        if name not in public.get(root, ()) or not resolves(dotted):
            named.append(dotted)
    return named + PACKAGE_PATH.findall(text)


def test_private_names_are_told_from_public_ones() -> None:
    text = (
        "`scrapy_rep.RobotsTxtMiddleware`, `scrapy_rep.signals.request_refused`, "
        "`scrapy_rep.RobotParser.from_crawler`, `scrapy_rep.crawl.page.spidermiddlewares`, "
        "`rep_engine.robotstxt.ALLOW_ALL`, `scrapy_rep.Nothing`, `rep_engine.ALLOW_ALL`, "
        "`rep_audit.cli`, `rep-engine/rep_engine/fetch/cache.py`, "
        "`scrapy_rep/crawl/meta.py`, `scrapy_rep/examples/robots.txt`, "
        "`pip install /path/to/scrapy_rep/rep-engine`"
    )
    assert private_names(text) == [
        "scrapy_rep.crawl.page.spidermiddlewares",
        "rep_engine.robotstxt.ALLOW_ALL",
        "scrapy_rep.Nothing",
        "rep_audit.cli",
        "rep-engine/rep_engine/fetch/cache.py",
        "scrapy_rep/crawl/meta.py",
    ]


@pytest.mark.parametrize("page", USER_PAGES, ids=[p.name for p in USER_PAGES])
def test_user_pages_name_only_the_public_api(page: Path) -> None:
    """Everything outside ``scrapy_rep.__all__`` (and the ``scrapy_rep.signals`` module)
    is private: a user page names none of it, by module or by file. Loggers too: they are
    documented once, as the ``scrapy_rep`` and ``rep_engine`` trees."""
    assert private_names(page.read_text(encoding="utf-8")) == []


def test_the_logger_tree_is_documented() -> None:
    text = (DOCS / "behaviour.md").read_text(encoding="utf-8")
    section = text.split("## What the log says\n", 1)[1].split("\n## ", 1)[0]
    assert "logger under `scrapy_rep`" in section
    assert 'logging.getLogger("scrapy_rep")' in section
    assert 'logging.getLogger("rep_engine")' in section


def test_every_name_the_contributor_pages_give_exists() -> None:
    named = set()
    for page in sorted(CONTRIBUTOR_PAGES):
        named |= set(PACKAGE_NAME.findall(page.read_text(encoding="utf-8")))
    assert sorted(dotted for dotted in named if not resolves(dotted)) == []


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
    """Each row: the setting, linked to its section; its default in words a reader
    counts in; what it does, in one line (the setting's own ``help``)."""
    from rep_engine.settings import SETTINGS

    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert "<!-- rep: settings-table -->" in page
    tables = rep_tables()
    table = tables.settings_table(page)
    assert table.splitlines()[0] == "| setting | default | what it does |"
    for setting in SETTINGS:
        row = next(line for line in table.splitlines() if f"`{setting.name}`" in line)
        assert re.search(rf"\(#[a-z_-]*{setting.name.lower()}[a-z_-]*\)", row)  # its section
        assert f"| {tables.default_text(setting)} | {setting.help} |" in row
    for raw in ("536870912", "86400", "604800", "2592000", "33554432", "1048576", "None"):
        assert raw not in table  # a number of bytes or seconds a reader must work out


def test_every_setting_says_what_it_does_in_one_line_and_counts_in_its_unit() -> None:
    from rep_engine.settings import SETTINGS

    for setting in SETTINGS:
        assert setting.help and "\n" not in setting.help and len(setting.help) <= 80, setting
        assert not setting.help.endswith("."), setting.name
        number = isinstance(setting.default, int | float) and not isinstance(setting.default, bool)
        timed = re.search(r"DELAY|WAIT|TIMEOUT|TTL|STALE", setting.name)
        if timed and (number or setting.default is None):
            assert setting.unit == "seconds", setting.name
        if setting.name.endswith("_BYTES"):
            assert setting.unit == "bytes", setting.name
        if setting.default is None or setting.default == "":
            assert setting.shown, f"{setting.name}: say what its default means"


def test_defaults_are_shown_in_the_units_a_reader_counts_in() -> None:
    tables = rep_tables()
    durations = {30: "30 s", 60: "60 s", 0.5: "0.5 s", 600: "10 min", 3600: "1 h",
                 86400: "1 day", 604800: "7 days", 2592000: "30 days", 90: "90 s"}  # fmt: skip
    assert {seconds: tables.duration_text(seconds) for seconds in durations} == durations
    sizes = {536870912: "512 MiB", 1048576: "1 MiB", 2048: "2 KiB", 1000: "1,000 bytes"}
    assert {size: tables.size_text(size) for size in sizes} == sizes
    assert tables.number_text(100000) == "100,000"


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
    from rep_engine.usage.purpose import ROWS

    assert "<!-- rep: purpose-table -->" in (DOCS / "purpose-notes.md").read_text(encoding="utf-8")
    table = rep_tables().purpose_table("")
    assert len([line for line in table.splitlines() if line.startswith("| ")]) == len(ROWS) + 1
    assert "| tdmrep | `tdm-reservation: 1` | – | denied | denied |" in table


def test_signals_table_is_written_from_the_code() -> None:
    from rep_engine.verdict.signals import SIGNALS

    assert "<!-- rep: signals-table -->" in (DOCS / "purpose-notes.md").read_text(encoding="utf-8")
    table = rep_tables().signals_table("")
    assert len([line for line in table.splitlines() if line.startswith("| ")]) == len(SIGNALS) + 1
    assert "| Robots-Tag header | response header `robots-tag` | our names |" in table
    assert "| robots meta tag | meta tag `robots` and our names | our names |" in table


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
    from rep_engine.settings import SETTINGS

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
    assert "| [`REP_CACHE_MAX_BYTES`](#rep_cache_max_bytes) | 512 MiB | The memory" in settings
    assert "| [`REP_CACHE_TTL`](#rep_cache_ttl) | 1 day |" in settings
    assert '| [`REP_PURPOSE`](#rep_purpose) | `"search"` |' in settings
    stale_page = settings.replace("| 512 MiB |", "| 536870912 |", 1)
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


def test_the_pages_state_the_trails_schema_as_written_and_whose_pages_they_are() -> None:
    """settings.md said the trail's schema was version 2 while the crawl wrote 3; the site
    owner's page and the operator's were told apart by nothing in their titles."""
    from rep_engine.trail.file import SCHEMA

    for name in ("settings.md", "audit-trail.md"):
        stated = re.findall(r"schema \(?version (\d+)", (DOCS / name).read_text(), re.I)
        assert stated == [str(SCHEMA)], name
    titles = {name: (DOCS / name).read_text().splitlines()[0]
              for name in ("publishers.md", "site-owners.md")}  # fmt: skip
    assert titles["publishers.md"].startswith("# For site owners: ")
    assert titles["site-owners.md"].startswith("# For crawler operators: ")
    assert "audit bundle" in (DOCS / "site-owners.md").read_text()


def test_no_file_of_the_package_docs_or_tests_cites_an_internal_issue_number() -> None:
    """A rule cites the spec or the docs section that states it, and a design choice its
    entry in docs/decisions.md: a future maintainer cannot read this project's issues.
    Other projects' issues (Scrapy's, the aipref working group's) may be cited by name."""
    root = DOCS.parent
    files = [
        *root.glob("scrapy_rep/**/*.py"),
        *(page for page in DOCS.glob("*.md") if page.name != "changelog.md"),
        *DOCS.glob("contributing/*.md"),
        *root.glob("tests/**/*.py"),
        *root.glob("benchmarks/*.py"),
        root / "README.md",
        root / "ARCHITECTURE.md",
        root / "CHANGELOG.md",
    ]
    cited = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in re.finditer(r"\b(\w+ )?issues? #?\d+", line, re.IGNORECASE):
                if (match.group(1) or "").strip().lower() not in {"scrapy", "its", "aipref"}:
                    cited.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert cited == []
    assert not [p for p in root.glob("tests/**/*.py") if re.search(r"issue\d", p.name)]


def test_the_api_page_lists_every_public_name() -> None:
    """docs/api.md's table of public names is ``scrapy_rep.__all__``, no more, no less."""
    import scrapy_rep

    page = (DOCS / "api.md").read_text(encoding="utf-8")
    table = page.split("| names | what they are |", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"`(\w+)`", "".join(row.split(" | ")[0] for row in table.splitlines())))
    assert listed == set(scrapy_rep.__all__)


def test_the_faq_answers_a_newcomers_questions_each_with_a_link() -> None:
    """docs/faq.md: each question a newcomer asks, answered in a few lines that link to
    the page saying it in full; the site's index and the README lead to it."""
    text = (DOCS / "faq.md").read_text(encoding="utf-8")
    answers = dict(re.findall(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL))
    for asked in (
        "items dropped", "crawl waiting", "Scrapy's behaviour", "User-Agent",
        "decided again", "scrapy-playwright", "prove", "permission",
    ):  # fmt: skip
        question = next((q for q in answers if asked.lower() in q.lower()), None)
        assert question, f"the FAQ does not ask about {asked!r}"
        assert re.search(r"\]\([a-z-]+\.md(#[\w-]+)?\)", answers[question]), question
        assert len(answers[question].split()) <= 250, question
    playwright = next(a for q, a in answers.items() if "scrapy-playwright" in q)
    if (DOCS / "plugins.md").exists():
        assert "(plugins.md" in playwright
    assert "(faq.md)" in (DOCS / "index.md").read_text(encoding="utf-8")
    assert "\nfaq\n" in (DOCS / "index.md").read_text(encoding="utf-8")
    assert "`docs/faq.md`" in README.read_text(encoding="utf-8")


def test_the_changelog_says_what_a_user_gets_by_area() -> None:
    """CHANGELOG.md is written for the users of a release: its entries are grouped by
    area, and name no file of the package, no test or benchmark, no internal issue (the
    test above) and no private module (the user pages' test)."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    areas = re.findall(r"^### (.+)$", text, re.MULTILINE)
    assert {"Settings", "robots.txt", "The audit trail", "Command-line tools"} <= set(areas)
    assert not [area for area in areas if re.search(r"earlier|issue|\d", area, re.I)]
    assert re.findall(r"[\w/]+\.py\b|\btests?/|benchmarks/|\.ci/", text) == []


#: What belongs to the contributor pages: the test suite's switches, CI, the tests and
#: benchmarks by path, the corpus beside the checkout, the spec the code cites.
CONTRIBUTOR_DETAIL = re.compile(
    r"\.\./shared|REP_REQUIRE_|REP_CORPUS|REP_SOAK|(?<![\w.-])\.ci/|(?<![\w.-])tests/"
    r"|(?<![\w.-])benchmarks/|SPEC §"
)


@pytest.mark.parametrize("page", USER_PAGES, ids=[p.name for p in USER_PAGES])
def test_user_pages_carry_no_contributor_detail(page: Path) -> None:
    """The user pages (and the README) leave the test suite, CI and the benchmarks'
    scripts to the contributor pages (docs/contributing/, the decisions, the
    benchmarks, the release)."""
    found = CONTRIBUTOR_DETAIL.findall(page.read_text(encoding="utf-8"))
    assert found == []


def test_the_contributor_pages_are_a_section_of_their_own() -> None:
    """The site's index lists the contributor pages under a caption of their own, after
    every user page; the contributor landing page leads to the testing page, which
    names every switch of the suite."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    toctrees = re.findall(r"```\{toctree\}\n(.*?)```", index, re.DOTALL)
    contributing = next(tree for tree in toctrees if ":caption: Contributing" in tree)
    assert toctrees[-1] == contributing
    listed = set(contributing.split()) - {":maxdepth:", "1", ":caption:", "Contributing"}
    expected = {f"contributing/{p.stem}" for p in DOCS.glob("contributing/*.md")}
    expected |= {"decisions", "release"} | {p.stem for p in DOCS.glob("benchmarks*.md")}
    assert listed == expected
    for tree in toctrees[:-1]:
        assert not set(tree.split()) & expected, tree
    testing = (DOCS / "contributing" / "testing.md").read_text(encoding="utf-8")
    for switch in ("REP_REQUIRE_REDIS", "REP_REQUIRE_CHROMIUM", "REP_REQUIRE_EXIFTOOL",
                   "REP_CORPUS", "REP_SOAK"):  # fmt: skip
        assert switch in testing, switch


def test_the_trail_says_what_attempts_counts() -> None:
    """docs/audit-trail.md: a record's ``attempts`` counts Scrapy's downloads, not what went
    over the wire: a download handler may send a request again itself (a site's log then
    shows two requests where the record says one), whichever crawl sent it."""
    text = " ".join((DOCS / "audit-trail.md").read_text(encoding="utf-8").split())
    said = text[text.index("`fate`, `attempts`") :][:900]
    for words in (
        "counts Scrapy's downloads",
        "request_reached_downloader",
        "a download handler may send one again itself",
        "aiohttp handler in a crawl without a Twisted reactor",
        "with scrapy_rep or without it",
    ):
        assert words in said, words
