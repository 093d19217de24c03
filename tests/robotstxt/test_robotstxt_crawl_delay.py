"""``Crawl-delay``: which crawlers a delay belongs to (docs/behaviour.md, "Sitemaps,
crawl-delay and content signals"; docs/decisions.md, "Crawl-delay belongs to the
user-agent lines above it").

Google's parser ignores ``Crawl-delay``, so it gives no verdict on it, and its grouping
(only an allow/disallow line ends a run of user-agent lines) would give one crawler's
delay to the next group's crawlers too. Every parser that reads the key gives a delay to
the user-agent lines just above it; so do we, while allow/disallow keep Google's
grouping. The first table holds those parsers' own Crawl-delay test cases: their inputs
and their expected values (facts, not code), each citing its project and file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from rep_engine.robotstxt import parse_robotstxt

#: The profiles whose crawler names are matched as product tokens, as those parsers
#: match them (``legacy`` reads a record name as a substring of ours, 1996 draft §3.2.1).
TOKEN_PROFILES = ("google", "rfc9309")
CC = (
    "crawler-commons/crawler-commons "
    "src/test/java/crawlercommons/robots/SimpleRobotRulesParserTest.java"
)
CC_FILES = "crawler-commons/crawler-commons src/test/resources/robots/"
TR = "Smerity/texting_robots "
RP = "samclarke/robots-parser test/Robots.js"
SAME = object()


@dataclass(frozen=True)
class DelayCase:
    """One expected delay of another parser's test suite."""

    source: str  # project and file
    test: str  # the test's name there
    body: str | bytes
    agent: str  # the crawler asked for (its product token: see ``why`` when renamed)
    expected: float | None  # what their test expects (seconds; None: no delay)
    ours: object = SAME  # what we answer where we differ on purpose
    why: str = ""  # why we differ, or why the agent is written differently

    @property
    def id(self) -> str:
        return f"{self.test}-{self.agent}".replace(" ", "_")


# --------------------------------------------------------------------------- the bodies

CC_HTML = (
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><HTML>\n<HEAD>\n'
    "<TITLE>/robots.txt</TITLE>\n</HEAD>\n<BODY>\nUser-agent: mybot<BR>\nDisallow: <BR>\n"
    "Crawl-Delay: 10<BR>\n\nUser-agent: *<BR>\nDisallow: /<BR>\nCrawl-Delay: 30<BR>\n\n"
    "</BODY>\n</HTML>\n"
)
CC_HERITRIX = (
    "User-agent: *\nDisallow: /cgi-bin/\nDisallow: /details/software\n\n"
    "User-agent: denybot\nDisallow: /\n\nUser-agent: allowbot1\nDisallow: \n\n"
    "User-agent: allowbot2\nDisallow: /foo\nAllow: /\n\n"
    "User-agent: delaybot\nDisallow: /\nCrawl-Delay: 20\nAllow: /images/\n"
)
CC_DELAY_RULES_1 = (
    "User-agent: bixo\rCrawl-delay: 10\rUser-agent: foobot\rCrawl-delay: 20\r"
    "User-agent: *\rDisallow:/baz\r"
)
CC_DELAY_RULES_2 = "User-agent: foobot\rCrawl-delay: 20\rUser-agent: *\rDisallow:/baz\r"
CC_KRUGLE = (
    "User-agent: *\rDisallow: /maintenance.html\rDisallow: /perl/\rDisallow: /cgi-bin/\r"
    "Disallow: /examples/\rCrawl-delay: 3\r\rUser-agent: googlebot\rCrawl-delay: 1\r\r"
    "User-agent: qihoobot\rDisallow: /"
)
CC_SELECT = (
    "User-Agent: bingbot\r\nCrawl-delay: 1\r\n\r\nUser-Agent: msnbot\r\nCrawl-delay: 2\r\n\r\n"
    "User-Agent: pinterestbot\r\nCrawl-delay: 0.2\r\n\r\nUser-agent: *\r\nDisallow: /login\r\n"
    "Sitemap: http://www.example.com/sitemap.xml\r\nDisallow: /assets/"
)
CC_FLOAT = "User-agent: *\rCrawl-delay: 0.5\rDisallow:\r"
#: dos-line-endings.txt, as the repository stores it.
CC_DOS = "\n\n\nUser-agent: *\nCrawl-delay: 1\n\n"
#: crawl-delay-group-merging.txt without its header comment.
CC_MERGING = (
    "User-agent: mybot\nCrawl-delay: 10\nUser-agent: yourbot\n"
    "Disallow: /private/  # Per RFC9309 (group merging): applies to mybot and yourbot\n\n"
    "User-agent: *\nAllow: /\n\nUser-agent: yourbot\n"
    "Disallow: /login/    # Per RFC9309 (group merging): applies to mybot and yourbot\n\n"
    "User-agent: *\nCrawl-delay: 30\n"
)

TR_FERRIS = (
    "User-Agent: FerrisCrawler\nAllow: /ocean\nDisallow: /rust\nDisallow: /forest*.py\n"
    "Crawl-Delay: 10\nUser-Agent: *\nDisallow: /\nSitemap: https://www.example.com/site.xml"
)
TR_RETRIEVE = (
    "User-Agent: A\nCrawl-Delay: 42\n# A B and the other Agent ...\nUser-Agent: B\n"
    "User-Agent: C\nCrawl-Delay: 420\nUser-Agent: D\nCrawl-Delay: -1.25\nUser-Agent: E\n"
    "Crawl-Delay: 8\nUser-Agent: *\nCRAWL-Delay : 3600\nUser-Agent: Zero\nCrawl-Delay: 0"
)
TR_NOT_INTEGER = (
    b"User-Agent: A\nCrawl-Delay:1.0\nUser-Agent: B\nCrawl-Delay:4.2\nUser-Agent: C\n"
    b"Crawl-Delay: \x41\xc2\xc3\xb1\x42"
)
TR_EVIL_UTF8 = (
    b"User-Agent: A\nAllow: \x41\xc2\xc3\xb1\x42\nDisallow: \x41\xc2\xc3\xb1\x42\n"
    b"SiteMap: \x41\xc2\xc3\xb1\x42\nCrawl-Delay: \x41\xc2\xc3\xb1\x42\nDisallow: /bob/"
)
TR_HUGE = "115792089237316195423570985008687907853269984665640564039457584007913129639936"
TR_STARTS_WITH = (
    "Crawl-Delay: 42\nUser-Agent: *\nDisallow: /blah\nUser-Agent: SpecialFriend\nAllow: /\n"
    "Crawl-Delay: 1"
)
TR_NULLS = (
    "User-Agent: *\n\x00\x00Allow: /family\x00\x00\nDisallow: /family/photos\x00\x00\x00\n"
    "Crawl-Delay: 42"
)
TR_DEBUG = (
    "User-Agent: A\nAllow: /allow/\nDisallow: /disallow/\nCrawl-Delay: 42\n"
    "SiteMap: https://example.com/sitemap.xml"
)
TR_NO_LEADING_AGENT = "Disallow: /path\nAllow: /path/exception\nCrawl-delay: 5.2"
TR_HN = (
    "User-Agent: *\nDisallow: /x?\nDisallow: /r?\nDisallow: /vote?\nDisallow: /reply?\n"
    "Disallow: /submitted?\nDisallow: /submitlink?\nDisallow: /threads?\nCrawl-delay: 30"
)
#: testdata/ipwatchdog.robots.txt, its first 8 lines (of 3,000): the delay is line 1.
TR_IPWATCHDOG = (
    "Crawl-delay: 120\n\nUser-agent: ia_archiver\nDisallow: /\n\nUser-agent: *\n\n"
    "Disallow: /wp-admin/\n"
)
#: testdata/sgppto.robots.txt, its first 7 lines (of 500): every group that names a
#: crawler the test asks about.
TR_SGPPTO = (
    "User-agent: Seekport Crawler\nDisallow: /\nUser-agent: SemrushBot\nCrawl-delay: 60\n"
    "User-agent: SemrushBot-BA\nUser-agent: *\nDisallow: /events/action~posterboard/\n"
)

RP_PARSE = (
    "user-agent: a\ncrawl-delay: 1\nuser-agent: b\ndisallow: /d\nuser-agent: c\n"
    "user-agent: d\ncrawl-delay: 10"
)
RP_INVALID = (
    "user-agent: a\ncrawl-delay: 1.2.1\nuser-agent: b\ncrawl-delay: 1.a0\nuser-agent: c\n"
    "user-agent: d\ncrawl-delay: 10a"
)
RP_FALLBACK = (
    "user-agent: *\ncrawl-delay: 1\nuser-agent: b\ncrawl-delay: 12\nuser-agent: c\n"
    "user-agent: d\ncrawl-delay: 10"
)
RP_NO_FALLBACK = "user-agent: *\ncrawl-delay: 1\nuser-agent: b\ndisallow:"

TOKEN = "asked by its product token: ours is the crawler's token, not a User-Agent string"

CASES = [
    DelayCase(CC, "testHtmlMarkupInRobotsTxt", CC_HTML, "mybot", 10.0, None,
              "lines are read as Google reads them, HTML markup and all: '10<BR>' is no "
              "number, so the line is skipped"),
    DelayCase(CC, "testHtmlMarkupInRobotsTxt", CC_HTML, "bogusbot", 30.0, None,
              "as above: '30<BR>' is no number"),
    DelayCase(CC, "testHeritrixCases", CC_HERITRIX, "denybot", None, why=TOKEN),
    DelayCase(CC, "testHeritrixCases", CC_HERITRIX, "delaybot", 20.0, why=TOKEN),
    DelayCase(CC, "testCrawlDelay-rule1", CC_DELAY_RULES_1, "bixo", 10.0),
    DelayCase(CC, "testCrawlDelay-rule2", CC_DELAY_RULES_2, "bixo", None),
    DelayCase(CC, "testBrokenKrugleRobotsTxtFile", CC_KRUGLE, "googlebot/2.1", 1.0),
    DelayCase(CC, "testBrokenKrugleRobotsTxtFile", CC_KRUGLE, "googlebot", 1.0),
    DelayCase(CC, "testBrokenKrugleRobotsTxtFile", CC_KRUGLE, "qihoobot", None),
    DelayCase(CC, "testBrokenKrugleRobotsTxtFile", CC_KRUGLE, "anybot", 3.0),
    DelayCase(CC, "testSelectCrawlDelayGroup", CC_SELECT, "bingbot", 1.0),
    DelayCase(CC, "testSelectCrawlDelayGroup", CC_SELECT, "msnbot", 2.0),
    DelayCase(CC, "testSelectCrawlDelayGroup", CC_SELECT, "anybot", None),
    DelayCase(CC, "testFloatingPointCrawlDelay", CC_FLOAT, "bixo", 0.5),
    DelayCase(CC + " (dos-line-endings.txt)", "testDOSlineEndings", CC_DOS, "bot1", 1.0),
    DelayCase(CC_FILES + "crawl-delay-group-merging.txt", "testCrawlDelayGroupMerging",
              CC_MERGING, "mybot", 10.0),
    DelayCase(CC_FILES + "crawl-delay-group-merging.txt", "testCrawlDelayGroupMerging",
              CC_MERGING, "yourbot", None),
    DelayCase(CC_FILES + "crawl-delay-group-merging.txt", "testCrawlDelayGroupMerging",
              CC_MERGING, "anyotherbot", 30.0),
    DelayCase(TR + "src/lib.rs (the crate's example)", "doc-example", TR_FERRIS,
              "FerrisCrawler", 10.0),
    DelayCase(TR + "src/test.rs", "test_robot_retrieve_crawl_delay", TR_RETRIEVE, "A", 42.0),
    DelayCase(TR + "src/test.rs", "test_robot_retrieve_crawl_delay", TR_RETRIEVE, "B", 420.0),
    DelayCase(TR + "src/test.rs", "test_robot_retrieve_crawl_delay", TR_RETRIEVE, "C", 420.0),
    # A malformed Crawl-delay line is skipped and ends nothing: D shares E's line.
    DelayCase(TR + "src/test.rs", "test_robot_retrieve_crawl_delay", TR_RETRIEVE, "D", 8.0),
    DelayCase(TR + "src/test.rs", "test_robot_retrieve_crawl_delay", TR_RETRIEVE, "Zero", 0.0),
    DelayCase(TR + "src/test.rs", "test_robot_crawl_delay_not_integer", TR_NOT_INTEGER, "A", 1.0),
    DelayCase(TR + "src/test.rs", "test_robot_crawl_delay_not_integer", TR_NOT_INTEGER, "B", 4.2),
    DelayCase(TR + "src/test.rs", "test_robot_crawl_delay_not_integer", TR_NOT_INTEGER, "C", None),
    DelayCase(TR + "src/test.rs", "test_robot_crawl_evil_utf8", TR_EVIL_UTF8, "A", None),
    DelayCase(TR + "src/test.rs", "test_robot_excessive_crawl_delay",
              f"User-Agent: Y\nCrawl-Delay: {TR_HUGE}", "Y", float(TR_HUGE)),
    DelayCase(TR + "src/test.rs", "test_robot_starts_with_crawl_delay", TR_STARTS_WITH,
              "BobBot", 42.0),
    DelayCase(TR + "src/test.rs", "test_robot_starts_with_crawl_delay", TR_STARTS_WITH,
              "SpecialFriend", 1.0, 42.0,
              "a delay before the first group asks every crawler to slow down: a group's "
              "shorter delay does not lift it (docs/decisions.md)"),
    DelayCase(TR + "src/test.rs", "test_robot_handles_random_nulls", TR_NULLS, "BobBot", 42.0),
    DelayCase(TR + "src/test.rs", "test_robot_debug_format", TR_DEBUG, "A", 42.0),
    DelayCase(TR + "src/test_repcpp.rs", "test_repcpp_no_leading_user_agent",
              TR_NO_LEADING_AGENT, "Agent", 5.2),
    DelayCase(TR + "src/test_repcpp.rs", "test_repcpp_well_formed_crawl_delay",
              TR_NO_LEADING_AGENT, "Agent", 5.2),
    DelayCase(TR + "src/test_repcpp.rs", "test_repcpp_malformed_crawl_delay",
              "User-agent: *\nCrawl-delay: word", "Agent", None),
    DelayCase(TR + "tests/integration_test.rs", "test_real_robot_against_hn_robots", TR_HN,
              "BobBot", 30.0),
    DelayCase(TR + "tests/integration_test.rs", "test_real_robot_against_ipwatchdog",
              TR_IPWATCHDOG, "BobBot", 120.0),
    DelayCase(TR + "tests/integration_test.rs", "test_real_robot_against_sgppto", TR_SGPPTO,
              "SemrushBot", 60.0),
    DelayCase(TR + "tests/integration_test.rs", "test_real_robot_against_sgppto", TR_SGPPTO,
              "SemrushBot-BA", None),
    DelayCase(RP, "should parse the crawl-delay directive", RP_PARSE, "a", 1.0),
    DelayCase(RP, "should parse the crawl-delay directive", RP_PARSE, "b", None),
    DelayCase(RP, "should parse the crawl-delay directive", RP_PARSE, "c", 10.0),
    DelayCase(RP, "should parse the crawl-delay directive", RP_PARSE, "d", 10.0),
    DelayCase(RP, "should parse the crawl-delay directive", RP_PARSE, "otherbot", None,
              why="asked with no name there (the '*' rules): a crawler no group names"),
    DelayCase(RP, "should ignore invalid crawl-delay directives", RP_INVALID, "a", None),
    DelayCase(RP, "should ignore invalid crawl-delay directives", RP_INVALID, "b", None),
    DelayCase(RP, "should ignore invalid crawl-delay directives", RP_INVALID, "c", None),
    DelayCase(RP, "should ignore invalid crawl-delay directives", RP_INVALID, "d", None),
    DelayCase(RP, "should fallback to * when a UA has no rules of its own", RP_FALLBACK,
              "should-fall-back", 1.0),
    DelayCase(RP, "should fallback to * when a UA has no rules of its own", RP_FALLBACK,
              "d", 10.0),
    DelayCase(RP, "should fallback to * when a UA has no rules of its own", RP_FALLBACK,
              "dd", 1.0),
    DelayCase(RP, "should not fallback to * when a UA has rules", RP_NO_FALLBACK, "b", None),
    DelayCase(RP, "should ignore version numbers in the UA string", RP_FALLBACK,
              "should-fall-back/1.0.0", 1.0),
    DelayCase(RP, "should ignore version numbers in the UA string", RP_FALLBACK, "d/12", 10.0),
    DelayCase(RP, "should ignore version numbers in the UA string", RP_FALLBACK,
              "dd / 0-32-3", 1.0),
    DelayCase(RP, "should ignore version numbers in the UA string", RP_FALLBACK,
              "b / 1.0", 12.0),
]  # fmt: skip


@pytest.mark.parametrize("profile", TOKEN_PROFILES)
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_other_parsers_crawl_delay_cases(profile: str, case: DelayCase) -> None:
    """Each parser's own Crawl-delay tests (see ``source``), in both profiles whose
    crawler names are product tokens."""
    expected = case.expected if case.ours is SAME else case.ours
    assert parse_robotstxt(case.body, profile).crawl_delay(case.agent) == expected, case.source


def test_every_deliberate_difference_says_why() -> None:
    for case in CASES:
        if case.ours is not SAME:
            assert case.why, case.id
            assert case.ours != case.expected, case.id


# --------------------------------------------------------------------------- grouping

#: The file of the brief: MJ12bot's delay stays MJ12bot's; the allow/disallow lines
#: keep Google's grouping (one group for both names).
MJ12 = "User-agent: MJ12bot\nCrawl-delay: 30\n\nUser-agent: *\nDisallow: /admin\n"


@pytest.mark.parametrize("profile", TOKEN_PROFILES)
def test_a_crawl_delay_belongs_to_the_user_agent_lines_above_it(profile: str) -> None:
    robots = parse_robotstxt(MJ12, profile)
    assert robots.crawl_delay("MJ12bot") == 30.0
    assert robots.crawl_delay("mybot") is None
    # Allow/disallow: Google's grouping, unchanged (one group for MJ12bot and *).
    assert not robots.allowed("https://example.com/admin", "MJ12bot")
    assert not robots.allowed("https://example.com/admin", "mybot")


def test_legacy_a_blank_line_already_ends_the_record() -> None:
    robots = parse_robotstxt(MJ12, "legacy")
    assert robots.crawl_delay("MJ12bot") == 30.0
    assert robots.crawl_delay("mybot") is None
    assert robots.allowed("https://example.com/admin", "MJ12bot")


#: A line between two user-agent lines, and a's delay when b's is 5 s below them.
BETWEEN_CASES = [
    ("Sitemap: https://example.com/s.xml", 5.0, "sitemap"),
    ("Content-Signal: ai-train=no", 5.0, "content-signal"),
    ("Content-Usage: train-ai=n", 5.0, "content-usage"),
    ("License: https://example.com/license.xml", 5.0, "license"),
    ("Unknown-Key: x", 5.0, "unknown"),
    ("# a comment", 5.0, "comment"),
    ("Crawl-delay: nonsense", 5.0, "malformed-delay"),
    ("Crawl-delay: 2", 2.0, "crawl-delay"),
    ("Disallow: /x", None, "disallow"),
]


@pytest.mark.parametrize("profile", TOKEN_PROFILES)
@pytest.mark.parametrize(
    ("between", "delay_of_a"), [c[:2] for c in BETWEEN_CASES], ids=[c[2] for c in BETWEEN_CASES]
)
def test_what_ends_a_run_of_user_agent_lines_for_the_delay(
    profile: str, between: str, delay_of_a: float | None
) -> None:
    """Only an allow/disallow line and a valid Crawl-delay line end the run: the delay
    below ``b`` is ``a``'s too when nothing else stands between them."""
    body = f"User-agent: a\n{between}\nUser-agent: b\nCrawl-delay: 5\n"
    robots = parse_robotstxt(body, profile)
    assert robots.crawl_delay("b") == 5.0
    assert robots.crawl_delay("a") == delay_of_a


@pytest.mark.parametrize("profile", TOKEN_PROFILES)
def test_several_delays_of_one_crawler_the_largest_counts(profile: str) -> None:
    """Two delays for one crawler (in one group, or in two groups naming it): the more
    polite (docs/deviations.md)."""
    body = (
        "User-agent: a\nCrawl-delay: 2\nCrawl-delay: 7\nDisallow: /\n\n"
        "User-agent: a\nCrawl-delay: 4\n"
    )
    assert parse_robotstxt(body, profile).crawl_delay("a") == 7.0


def test_the_delay_grouping_never_changes_allow_disallow() -> None:
    """A crawl-delay between user-agent lines splits the delay group only: b's
    Disallow is a's too (SPEC §1 "Groups", robots_test.cc ID_LineSyntax_Groups_OtherRules)."""
    robots = parse_robotstxt("User-agent: a\nCrawl-delay: 10\nUser-agent: b\nDisallow: /x\n")
    assert not robots.allowed("https://example.com/x", "a")
    assert robots.crawl_delay("a") == 10.0
    assert robots.crawl_delay("b") is None


def test_a_file_where_all_three_groupings_part() -> None:
    """allow/disallow (Google), Content-Usage (attach-05) and crawl-delay each group this
    file their own way."""
    body = (
        "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nContent-Usage: train-ai=n\n"
        "User-agent: c\nDisallow: /x\n"
    )
    robots = parse_robotstxt(body)
    assert [robots.allowed("https://example.com/x", bot) for bot in "abc"] == [False] * 3
    assert [robots.crawl_delay(bot) for bot in "abc"] == [3.0, None, None]
    assert [robots.content_usage(bot).prefs("/y").train_ai for bot in "abc"] == [
        False,
        False,
        None,
    ]


# --------------------------------------------------------------------------- file-wide

#: (body, crawler, delay): a Crawl-delay before the first user-agent line asks every
#: crawler to slow down; a group's own delay can only make it longer.
FILE_WIDE_CASES = [
    ("Crawl-delay: 120\nUser-agent: *\nDisallow: /x\n", "mybot", 120.0, "star-group"),
    ("Crawl-delay: 120\nUser-agent: a\nDisallow: /x\n", "mybot", 120.0, "no-group"),
    ("Crawl-delay: 120\n", "mybot", 120.0, "no-group-at-all"),
    ("Crawl-delay: 120\nUser-agent: a\nCrawl-delay: 5\n", "a", 120.0, "group-shorter"),
    ("Crawl-delay: 5\nUser-agent: a\nCrawl-delay: 120\n", "a", 120.0, "group-longer"),
    ("Crawl-delay: 5\nCrawl-delay: 9\nUser-agent: a\n", "a", 9.0, "two-file-wide"),
    ("Crawl-delay: soon\nUser-agent: a\n", "a", None, "malformed"),
]


@pytest.mark.parametrize("profile", ["google", "rfc9309", "legacy"])
@pytest.mark.parametrize(
    ("body", "agent", "delay"),
    [case[:3] for case in FILE_WIDE_CASES],
    ids=[case[3] for case in FILE_WIDE_CASES],
)
def test_a_crawl_delay_before_the_first_group_applies_to_every_crawler(
    profile: str, body: str, agent: str, delay: float | None
) -> None:
    robots = parse_robotstxt(body, profile)
    assert robots.crawl_delay(agent) == delay
    assert robots.allowed("https://example.com/y", agent)


def test_legacy_a_crawl_delay_after_a_blank_line_belongs_to_no_record() -> None:
    """1994 standard: a blank line ends the record; a later line outside any record is
    not file-wide (only lines before the first record are)."""
    body = "User-agent: *\nDisallow: /x\n\nCrawl-delay: 30\n"
    assert parse_robotstxt(body, "legacy").crawl_delay("mybot") is None
    assert parse_robotstxt(body).crawl_delay("mybot") == 30.0


def test_the_delay_is_a_float_and_never_nan() -> None:
    for value in ("nan", "inf", "-1", "1e400"):
        body = f"User-agent: *\nCrawl-delay: {value}\n"
        assert parse_robotstxt(body).crawl_delay("mybot") is None, value
    delay = parse_robotstxt("Crawl-delay: 3\n").crawl_delay("mybot")
    assert isinstance(delay, float)
    assert math.isfinite(delay)


# --------------------------------------------------------------------------- the corpus

#: The real files of ../shared/corpus where our crawler (one no group names) waits
#: another time than under Google's grouping: seven by the grouping, one (the last) by
#: the delay before its first group (file, crawler, the delay before, the delay now).
CORPUS_CHANGES: list[tuple[str, str, float | None, float | None]] = [
    ("egonkm/allo-fogas.arukereso.hu", "mybot", 10.0, None),
    ("egonkm/asmglobal.com", "mybot", 10.0, None),
    ("egonkm/displayadvertising.pazaruvaj.com", "mybot", 10.0, None),
    ("egonkm/gvsu.edu", "mybot", 5.0, None),
    ("egonkm/www.melbournecb.com.au", "mybot", 15.0, 7.0),
    ("scrapy/www.deccanchronicle.com", "mybot", 30.0, None),
    ("scrapy/www.vice.com", "mybot", 2.0, 1.0),
    ("egonkm/dam.media.un.org", "mybot", None, 5.0),
]


@pytest.mark.parametrize(
    ("name", "agent", "before", "after"), CORPUS_CHANGES, ids=[c[0] for c in CORPUS_CHANGES]
)
def test_corpus_files_whose_delays_changed(
    corpus_dir: Path, name: str, agent: str, before: float | None, after: float | None
) -> None:
    robots = parse_robotstxt((corpus_dir / "real" / name).read_bytes())
    assert robots.crawl_delay(agent) == after
    assert before != after
