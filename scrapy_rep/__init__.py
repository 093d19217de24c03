"""scrapy_rep: the Robots Exclusion Protocol, completely and correctly, for Scrapy."""

from scrapy_rep.robotparser import RobotParser
from scrapy_rep.robotstxt import (
    ContentSignals,
    Decision,
    ParseOptions,
    RobotsTxt,
    parse_robotstxt,
)
from scrapy_rep.settings import RepConfig, RepSettingError

__all__ = [
    "ContentSignals",
    "Decision",
    "ParseOptions",
    "RepConfig",
    "RepSettingError",
    "RobotParser",
    "RobotsTxt",
    "parse_robotstxt",
]
