"""docs/switching.md, "Switching from ROBOTSTXT_OBEY": every difference it lists names
the setting that keeps Scrapy's behaviour, each setting exists and takes the value the
page gives, the INFO lines it quotes are the ones the crawl writes, and the README and
the docs' index link to it."""

from __future__ import annotations

import ast
import re

from scrapy.settings import Settings

from rep_engine.settings import SETTINGS, RepConfig
from scrapy_rep.crawl.report import closing_lines
from tests.support.paths import ROOT

PAGE = ROOT / "docs" / "switching.md"
#: Scrapy's own settings the page may name.
SCRAPY = {"ROBOTSTXT_OBEY", "ROBOTSTXT_USER_AGENT"}


def table_rows() -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("<!-- switching: settings -->")[1].split("<!-- switching: end -->")[0]
    rows = [line for line in table.strip().splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def assignments(cell: str) -> dict[str, object]:
    """The ``NAME = value`` settings a cell gives, with their Python values."""
    found = re.findall(r"`([A-Z][A-Z0-9_]+) = ([^`]+)`", cell)
    return {name: ast.literal_eval(value) for name, value in found}


def test_every_difference_names_a_setting_that_exists_with_a_valid_value() -> None:
    rows = table_rows()
    assert len(rows) >= 9
    known = {setting.name for setting in SETTINGS} | SCRAPY
    given: dict[str, object] = {}
    for row in rows:
        assert len(row) == 4, row
        settings = assignments(row[3])
        if not settings:  # a difference with no switch must say so
            assert "no switch" in row[3], row
            settings = assignments(row[3].split("no switch")[0])
        assert settings, f"no setting for {row[0]!r}"
        assert set(settings) <= known, row
        given.update(settings)
    # Every value is one the add-on accepts (a wrong one would stop the crawl at start).
    RepConfig.from_settings(Settings({k: v for k, v in given.items() if k.startswith("REP_")}))
    # The parts the page must cover, each with its switch.
    for name in (
        "REP_NOINDEX_ACTION", "REP_NOFOLLOW_ACTION", "REP_REL_NOFOLLOW", "REP_UNREACHABLE_ACTION",
        "REP_UNREACHABLE_MAX_WAIT", "REP_OBEY_CRAWL_DELAY", "ROBOTSTXT_USER_AGENT",
        "REP_PURPOSE_ACTION", "REP_PROFILE",
    ):  # fmt: skip
        assert name in given, name
    # A project's own robots.txt parser: ignored under the add-on (a WARNING at start).
    parser = next(row for row in rows if "`ROBOTSTXT_PARSER`" in row[0])
    assert "WARNING" in parser[2] and "no switch" in parser[3]


def test_the_info_lines_it_quotes_are_the_crawls() -> None:
    text = PAGE.read_text(encoding="utf-8")
    quoted = re.findall(r"INFO: (scrapy_rep: .+)", text)
    stats = {
        "rep/directives/items_dropped/noindex": 4,
        "rep/directives/items_dropped/unavailable_after": 1,
        "rep/directives/requests_dropped/nofollow": 2,
        "rep/directives/requests_dropped/rel_nofollow": 1,
        "rep/requests/dropped/forbidden": 2,
    }
    assert quoted == closing_lines(stats, RepConfig.from_settings(Settings()))


def test_the_readme_and_the_index_link_to_it() -> None:
    # The README names the page (it is the PyPI description: no relative links there).
    assert "`docs/switching.md`" in (ROOT / "README.md").read_text(encoding="utf-8")
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "](switching.md)" in index
    assert "\nswitching\n" in index  # in a toctree: a page of the site
