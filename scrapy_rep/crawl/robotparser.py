"""Scrapy's ``ROBOTSTXT_PARSER`` interface on top of :mod:`rep_engine.robotstxt` (SPEC §5).

``ROBOTSTXT_PARSER = "scrapy_rep.RobotParser"`` makes Scrapy's built-in middleware use
our engine; the profile comes from ``REP_PROFILE``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from scrapy.robotstxt import RobotParser as ScrapyRobotParser

from rep_engine.robotstxt import RobotsTxt, parse_robotstxt
from scrapy_rep.crawl.startup import validate

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

#: The profile each crawler's frozen settings name, validated once: Scrapy's middleware
#: builds a parser per robots.txt, and validating every setting (about 1,000 calls) cost
#: as much as parsing the file.
_PROFILES: WeakKeyDictionary[Crawler, str] = WeakKeyDictionary()


class RobotParser(ScrapyRobotParser):
    """A Scrapy robots.txt parser backend using the scrapy_rep engine."""

    def __init__(self, robotstxt_body: bytes | str, profile: str = "google") -> None:
        self.rules: RobotsTxt = parse_robotstxt(robotstxt_body, profile)

    @classmethod
    def from_rules(cls, rules: RobotsTxt) -> Self:
        """Wrap rules parsed already (the middleware's ``robots_parsed`` signal sends these)."""
        parser = cls.__new__(cls)
        parser.rules = rules
        return parser

    @classmethod
    def from_crawler(cls, crawler: Crawler | None, robotstxt_body: bytes) -> Self:
        """Parse ``robotstxt_body``; ``crawler`` may be ``None`` (then profile "google")."""
        if crawler is None:
            return cls(robotstxt_body, "google")
        profile = _PROFILES.get(crawler)
        if profile is None:  # a wrong setting: one line and exit 2 under `scrapy`
            settings = crawler.settings
            profile = validate(settings).profile
            if settings.frozen:  # settings still open may change before the next parse
                _PROFILES[crawler] = profile
        return cls(robotstxt_body, profile)

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return self.rules.allowed(_to_str(url), _to_str(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return self.rules.crawl_delay(_to_str(user_agent))


def _to_str(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
