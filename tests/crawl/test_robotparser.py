"""``scrapy_rep.RobotParser`` as a Scrapy ``ROBOTSTXT_PARSER`` (SPEC §5).

In the style of Scrapy's own ``BaseRobotParserTest`` (tests/test_robotstxt_interface.py):
one base class with the interface contract, one subclass per way of building the parser
and per profile; class attributes say where the profiles differ (SPEC §2).
"""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.robotstxt import RobotParser as ScrapyRobotParser
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

from scrapy_rep import RepSettingError, RobotParser

SITE = "https://www.site.local"


class BaseRobotParserContract:
    """The contract every profile honours; subclasses set how the parser is built."""

    #: REP_PROFILE given to the crawler; None means ``from_crawler(None, body)``.
    profile: str | None = None
    #: longest match (google, rfc9309) or first matching line (legacy)
    longest_match = True
    #: ``*`` and ``$`` are wildcards (not in legacy)
    wildcards = True
    #: ``Disalow:`` and ``user-agent FooBot`` are accepted (google only)
    lenient_syntax = True
    #: ``/robots.txt`` is always allowed (rfc9309 only)
    robots_txt_always_allowed = False
    #: ``Allow: /d/index.html`` also allows ``/d/`` (google only)
    index_html_is_directory = True
    #: a record's name matches as a substring of the crawler's name (legacy only)
    agent_substring = False

    def parse(self, body: bytes) -> RobotParser:
        crawler = None if self.profile is None else get_crawler(settings_dict=self.settings())
        parser = RobotParser.from_crawler(crawler, body)
        assert isinstance(parser, RobotParser)
        return parser

    def settings(self) -> dict[str, str]:
        return {"REP_PROFILE": self.profile} if self.profile else {}

    # -- Scrapy's BaseRobotParserTest cases -------------------------------------------

    def test_is_a_scrapy_robot_parser(self) -> None:
        assert issubclass(RobotParser, ScrapyRobotParser)
        assert load_object("scrapy_rep.RobotParser") is RobotParser
        assert isinstance(self.parse(b""), ScrapyRobotParser)

    def test_allowed(self) -> None:
        body = b"User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10"
        rp = self.parse(body)
        assert rp.allowed(f"{SITE}/allowed", "*") is True
        assert rp.allowed(f"{SITE}/disallowed", "*") is False
        assert rp.allowed(f"{SITE}/disallowed/sub", "mybot/1.0") is False
        assert rp.allowed(f"{SITE}/other", "*") is True

    def test_allowed_wildcards(self) -> None:
        body = b"""User-agent: first
                Disallow: /disallowed/*/end$

                User-agent: second
                Allow: /*allowed
                Disallow: /
                """
        rp = self.parse(body)
        assert rp.allowed(f"{SITE}/disallowed", "first") is True
        assert rp.allowed(f"{SITE}/disallowed/xyz/end", "first") is not self.wildcards
        assert rp.allowed(f"{SITE}/disallowed/abc/end", "first") is not self.wildcards
        assert rp.allowed(f"{SITE}/disallowed/xyz/endinglater", "first") is True
        assert rp.allowed(f"{SITE}/allowed", "second") is self.wildcards
        assert rp.allowed(f"{SITE}/is_still_allowed", "second") is self.wildcards
        assert rp.allowed(f"{SITE}/is_allowed_too", "second") is self.wildcards
        assert rp.allowed(f"{SITE}/other", "second") is False

    def test_length_or_order_based_precedence(self) -> None:
        rp = self.parse(b"User-agent: * \nDisallow: / \nAllow: /page")
        assert rp.allowed(f"{SITE}/page", "*") is self.longest_match
        assert rp.allowed(f"{SITE}/other", "*") is False

    def test_empty_response(self) -> None:
        """An empty body allows everything."""
        rp = self.parse(b"")
        assert rp.allowed("https://site.local/", "*") is True
        assert rp.allowed("https://site.local/", "chrome") is True
        assert rp.allowed("https://site.local/index.html", "*") is True
        assert rp.allowed("https://site.local/disallowed", "*") is True
        assert rp.crawl_delay("*") is None

    def test_garbage_response(self) -> None:
        """A body that is not robots.txt (a GIF) allows everything."""
        rp = self.parse(b"GIF89a\xd3\x00\xfe\x00\xa2")
        assert rp.allowed("https://site.local/", "*") is True
        assert rp.allowed("https://site.local/", "chrome") is True
        assert rp.allowed("https://site.local/index.html", "*") is True
        assert rp.allowed("https://site.local/disallowed", "*") is True

    def test_unicode_url_and_useragent(self) -> None:
        body = """
        User-Agent: *
        Disallow: /admin/
        Disallow: /static/
        # taken from https://en.wikipedia.org/robots.txt
        Disallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:
        Disallow: /wiki/Käyttäjä:

        User-Agent: UnicödeBöt
        Disallow: /some/randome/page.html""".encode()
        rp = self.parse(body)
        assert rp.allowed("https://site.local/", "*") is True
        assert rp.allowed("https://site.local/admin/", "*") is False
        assert rp.allowed("https://site.local/static/", "*") is False
        assert rp.allowed("https://site.local/admin/", "UnicödeBöt") is True
        assert rp.allowed("https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:", "*") is False
        assert rp.allowed("https://site.local/wiki/Käyttäjä:", "*") is False
        assert rp.allowed("https://site.local/some/other/page.html", "UnicödeBöt") is True
        assert rp.allowed("https://site.local/some/randome/page.html", "UnicödeBöt") is False

    def test_crawl_delay(self) -> None:
        body = (
            b"User-agent: * \nDisallow: /x\nCrawl-delay: 10\n\n"
            b"User-agent: slowbot\nCrawl-delay: 2.5\n"
        )
        rp = self.parse(body)
        assert rp.crawl_delay("*") == 10.0
        assert rp.crawl_delay("mybot/1.0") == 10.0
        assert rp.crawl_delay("slowbot") == 2.5
        assert rp.crawl_delay(b"slowbot") == 2.5
        assert self.parse(b"User-agent: *\nDisallow: /x\n").crawl_delay("*") is None

    # -- bytes arguments, user agents ---------------------------------------------------

    def test_bytes_url_and_user_agent(self) -> None:
        rp = self.parse("User-agent: FooBot\nDisallow: /ツ\n".encode())
        assert rp.allowed(f"{SITE}/%E3%83%84".encode(), b"FooBot") is False
        assert rp.allowed(f"{SITE}/%E3%83%84", "FooBot/1.0 (+https://x)") is False
        assert rp.allowed(f"{SITE}/other".encode(), b"FooBot") is True
        assert rp.allowed(f"{SITE}/%E3%83%84".encode(), b"OtherBot") is True

    def test_full_user_agent_is_reduced_to_product_token(self) -> None:
        rp = self.parse(b"User-agent: Scrapy\nDisallow: /\n")
        assert rp.allowed(f"{SITE}/x", "Scrapy/2.19 (+https://scrapy.org)") is False
        assert rp.allowed(f"{SITE}/x", b"Scrapy/2.19 (+https://scrapy.org)") is False
        assert rp.allowed(f"{SITE}/x", "mybot/1.0") is True

    def test_exact_token_or_substring(self) -> None:
        rp = self.parse(b"User-agent: bot\nDisallow: /\n")
        # google/rfc9309: exact product token; legacy: substring of the crawler's name
        assert rp.allowed(f"{SITE}/x", "Googlebot") is not self.agent_substring

    # -- where profiles differ --------------------------------------------------------

    def test_misspelled_keys_and_missing_colon(self) -> None:
        rp = self.parse(b"User-agent: *\nDisalow: /typo\nDisallow /nocolon\n")
        assert rp.allowed(f"{SITE}/typo", "mybot") is not self.lenient_syntax
        assert rp.allowed(f"{SITE}/nocolon", "mybot") is not self.lenient_syntax

    def test_robots_txt_always_allowed(self) -> None:
        rp = self.parse(b"User-agent: *\nDisallow: /\n")
        assert rp.allowed(f"{SITE}/robots.txt", "mybot") is self.robots_txt_always_allowed
        assert rp.allowed(f"{SITE}/x", "mybot") is False

    def test_index_html_is_directory(self) -> None:
        rp = self.parse(b"User-agent: *\nAllow: /d/index.html\nDisallow: /\n")
        assert rp.allowed(f"{SITE}/d/", "mybot") is self.index_html_is_directory
        assert rp.allowed(f"{SITE}/d/index.html", "mybot") is True


class TestWithoutCrawler(BaseRobotParserContract):
    """``from_crawler(None, body)``: the "google" profile."""


class TestDefaultProfileFromCrawler(BaseRobotParserContract):
    """A crawler without ``REP_PROFILE``: the "google" profile."""

    profile = ""  # get_crawler() with no REP_PROFILE setting at all


class TestGoogleProfile(BaseRobotParserContract):
    profile = "google"


class TestRfc9309Profile(BaseRobotParserContract):
    profile = "rfc9309"
    lenient_syntax = False
    robots_txt_always_allowed = True
    index_html_is_directory = False

    def test_percent_encoded_unreserved_characters_are_decoded(self) -> None:
        rp = self.parse(b"User-agent: *\nDisallow: /foo/bar/%62%61%7A\n")
        assert rp.allowed(f"{SITE}/foo/bar/baz", "mybot") is False


class TestLegacyProfile(BaseRobotParserContract):
    profile = "legacy"
    longest_match = False
    wildcards = False
    lenient_syntax = False
    index_html_is_directory = False
    agent_substring = True

    def test_escapes_are_decoded_but_a_slashs(self) -> None:
        """1996 draft §3.2.2: ``/%7ejoe/index.html`` matches ``/~joe/index.html``;
        ``/a%2fb.html`` does not match ``/a/b.html``."""
        rp = self.parse(b"User-agent: *\nDisallow: /%7ejoe/index.html\nDisallow: /a%2fb.html\n")
        assert rp.allowed(f"{SITE}/~joe/index.html", "mybot") is False
        assert rp.allowed(f"{SITE}/a/b.html", "mybot") is True
        assert rp.allowed(f"{SITE}/a%2Fb.html", "mybot") is False

    def test_first_matching_line_wins(self) -> None:
        rp = self.parse(b"User-Agent: *\nDisallow: /pics/\nAllow: /pics/public/\n")
        assert rp.allowed(f"{SITE}/pics/public/a.jpg", "mybot") is False

    def test_blank_line_ends_record(self) -> None:
        rp = self.parse(b"User-agent: mybot\n\nDisallow: /\n")
        assert rp.allowed(f"{SITE}/x", "mybot") is True


def test_google_profile_differs_from_legacy_through_settings() -> None:
    body = b"User-Agent: *\nDisallow: /pics/\nAllow: /pics/public/\n"
    target = f"{SITE}/pics/public/a.jpg"
    google = RobotParser.from_crawler(get_crawler(settings_dict={"REP_PROFILE": "google"}), body)
    legacy = RobotParser.from_crawler(get_crawler(settings_dict={"REP_PROFILE": "legacy"}), body)
    assert google.allowed(target, "mybot") is True
    assert legacy.allowed(target, "mybot") is False


def test_invalid_rep_profile_names_the_setting() -> None:
    # SPEC §5: a wrong value stops the crawl with an error naming the setting.
    crawler = get_crawler(settings_dict={"REP_PROFILE": "strict"})
    with pytest.raises(RepSettingError, match="REP_PROFILE"):
        RobotParser.from_crawler(crawler, b"User-agent: *\nDisallow: /\n")


#: A rule whose wildcard the google profile reads and legacy (1996) does not.
WILDCARD = b"User-agent: *\nDisallow: /*.pdf\n"
PDF = f"{SITE}/a/file.pdf"


def test_a_crawl_settings_are_validated_once_not_per_robots_txt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scrapy's middleware builds a parser per robots.txt: the settings are checked at the
    first, and the profile they name is reused while they are frozen (validating every
    setting cost as much as parsing a file)."""
    from scrapy_rep.crawl import robotparser

    validated: list[object] = []
    real = robotparser.validate

    def counting(settings: object) -> object:
        validated.append(settings)
        return real(settings)  # type: ignore[arg-type]

    monkeypatch.setattr(robotparser, "validate", counting)
    crawler = get_crawler(settings_dict={"REP_PROFILE": "legacy"})
    assert crawler.settings.frozen
    parsers = [RobotParser.from_crawler(crawler, WILDCARD) for _ in range(5)]
    assert len(validated) == 1
    assert all(parser.allowed(PDF, "bot") for parser in parsers)  # legacy: no wildcards
    other = get_crawler(settings_dict={"REP_PROFILE": "google"})
    assert not RobotParser.from_crawler(other, WILDCARD).allowed(PDF, "bot")
    assert len(validated) == 2  # another crawl's settings: checked on their own


def test_open_settings_are_validated_at_every_parse() -> None:
    """Settings not frozen yet may still change: a profile named later is read, and a
    wrong one is still refused."""
    from scrapy.settings import Settings

    class OpenCrawler:  # a crawler whose settings are not frozen yet
        settings = Settings({"REP_PROFILE": "google"})

    crawler: Any = OpenCrawler()
    assert not RobotParser.from_crawler(crawler, WILDCARD).allowed(PDF, "bot")
    crawler.settings.set("REP_PROFILE", "legacy")
    assert RobotParser.from_crawler(crawler, WILDCARD).allowed(PDF, "bot")
    crawler.settings.set("REP_PROFILE", "nonsense")
    with pytest.raises(RepSettingError):
        RobotParser.from_crawler(crawler, WILDCARD)


def test_robotparser_alone_refuses_too() -> None:
    """Without the add-on, ``ROBOTSTXT_PARSER = "scrapy_rep.RobotParser"`` checks the
    names as it checks the values."""
    crawler = get_crawler(settings_dict={"REP_PROFIL": "rfc9309"})
    with pytest.raises(RepSettingError, match=r"^REP_PROFIL: unknown setting, did you mean"):
        RobotParser.from_crawler(crawler, b"")
