"""scrapy_rep: the Robots Exclusion Protocol, completely and correctly, for Scrapy."""

from scrapy_rep.addon import Addon
from scrapy_rep.directives import PageDirectives
from scrapy_rep.downloadermiddlewares import RobotsTxtMiddleware
from scrapy_rep.pagedirectives import page_directives
from scrapy_rep.robotparser import RobotParser
from scrapy_rep.robotstxt import (
    ContentSignals,
    Decision,
    ParseOptions,
    RobotsTxt,
    parse_robotstxt,
)
from scrapy_rep.settings import RepConfig, RepSettingError
from scrapy_rep.spidermiddlewares import PageDirectivesMiddleware

__all__ = [
    "Addon",
    "ContentSignals",
    "Decision",
    "PageDirectives",
    "PageDirectivesMiddleware",
    "ParseOptions",
    "RepConfig",
    "RepSettingError",
    "RobotParser",
    "RobotsTxt",
    "RobotsTxtMiddleware",
    "page_directives",
    "parse_robotstxt",
]
