"""scrapy_rep: the Robots Exclusion Protocol, completely and correctly, for Scrapy.

The Scrapy-facing names (middlewares, add-on, parser adapter) are imported on first use
(PEP 562), so ``import scrapy_rep.robotstxt`` and the ``check`` command load neither
Scrapy nor Twisted.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from scrapy_rep._version import __version__ as __version__
from scrapy_rep.directives import PageDirectives
from scrapy_rep.robotstxt import (
    ContentSignals,
    Decision,
    ParseOptions,
    RobotsTxt,
    parse_robotstxt,
)
from scrapy_rep.settings import RepConfig, RepSettingError

if TYPE_CHECKING:
    from scrapy_rep.crawl.addon import Addon
    from scrapy_rep.crawl.page.pagereader import page_directives
    from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware
    from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware
    from scrapy_rep.crawl.robotparser import RobotParser

#: Name -> the module that defines it, imported when the name is first used.
_LAZY = {
    "Addon": "scrapy_rep.crawl.addon",
    "PageDirectivesMiddleware": "scrapy_rep.crawl.page.spidermiddlewares",
    "RobotParser": "scrapy_rep.crawl.robotparser",
    "RobotsTxtMiddleware": "scrapy_rep.crawl.requests.downloadermiddlewares",
    "page_directives": "scrapy_rep.crawl.page.pagereader",
}

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
    "__version__",
    "page_directives",
    "parse_robotstxt",
]


def __getattr__(name: str) -> Any:
    """PEP 562: import a Scrapy-facing name on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names only (not this module's own imports such as ``Any``)."""
    return sorted(__all__)
