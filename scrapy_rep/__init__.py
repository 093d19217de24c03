"""scrapy_rep: the Robots Exclusion Protocol, completely and correctly, for Scrapy.

:data:`__all__` is the public API: the names the docs give (docs/api.md), every
component a project names in its settings, and :mod:`scrapy_rep.signals`. Every other
module of the package is private and may change in any release.

The engine's names are :mod:`rep_engine`'s (the engine alone installs without Scrapy).
The Scrapy-facing names (middlewares, add-on, parser adapter) are imported on first use
(PEP 562), so ``import scrapy_rep`` and the ``check`` command load neither Scrapy nor
Twisted.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from rep_engine import (
    ALLOW_ALL,
    DISALLOW_ALL,
    STANDARDS,
    Allowed,
    ContentSignals,
    ContentUsageRules,
    Decision,
    PageDirectives,
    ParseOptions,
    Reason,
    Refused,
    RepConfig,
    RepSettingError,
    RobotsTxt,
    Wait,
    parse_robotstxt,
)
from scrapy_rep._version import __version__ as __version__

if TYPE_CHECKING:
    from rep_recheck.command import Recheck
    from rep_recheck.pipeline_step import (
        RepOriginPartitioner,
        RepOriginPartitions,
        RepRecheckFilter,
    )
    from scrapy_rep import signals
    from scrapy_rep.crawl.addon import Addon
    from scrapy_rep.crawl.audit.audit import AuditTrail
    from scrapy_rep.crawl.auditing import AuditMiddleware
    from scrapy_rep.crawl.documents.engine_fetch import RobotsTxtResponseGuard
    from scrapy_rep.crawl.media.pipelines import (
        MediaUsageMixin,
        RepFilesPipeline,
        RepImagesPipeline,
    )
    from scrapy_rep.crawl.page.downloadermiddlewares import PageVerdictMiddleware
    from scrapy_rep.crawl.page.pagereader import page_directives
    from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware
    from scrapy_rep.crawl.payment import PaymentRequiredMiddleware
    from scrapy_rep.crawl.report import RepReport
    from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware
    from scrapy_rep.crawl.requests.sentcheck import SentRequestCheck
    from scrapy_rep.crawl.robotparser import RobotParser
    from scrapy_rep.crawl.webbotauth import WebBotAuthMiddleware

#: Name -> the module that defines it, imported when the name is first used. These are the
#: stable paths of every component a project names in its settings (docs/usage.md):
#: ``"scrapy_rep.RobotsTxtMiddleware"``, ``"scrapy_rep.RepImagesPipeline"``…
_LAZY = {
    "Addon": "scrapy_rep.crawl.addon",
    "AuditMiddleware": "scrapy_rep.crawl.auditing",
    "AuditTrail": "scrapy_rep.crawl.audit.audit",
    "MediaUsageMixin": "scrapy_rep.crawl.media.pipelines",
    "PageDirectivesMiddleware": "scrapy_rep.crawl.page.spidermiddlewares",
    "PageVerdictMiddleware": "scrapy_rep.crawl.page.downloadermiddlewares",
    "PaymentRequiredMiddleware": "scrapy_rep.crawl.payment",
    "RepFilesPipeline": "scrapy_rep.crawl.media.pipelines",
    "RepImagesPipeline": "scrapy_rep.crawl.media.pipelines",
    "Recheck": "rep_recheck.command",
    "RepOriginPartitioner": "rep_recheck.pipeline_step",
    "RepOriginPartitions": "rep_recheck.pipeline_step",
    "RepRecheckFilter": "rep_recheck.pipeline_step",
    "RepReport": "scrapy_rep.crawl.report",
    "RobotParser": "scrapy_rep.crawl.robotparser",
    "RobotsTxtMiddleware": "scrapy_rep.crawl.requests.downloadermiddlewares",
    "RobotsTxtResponseGuard": "scrapy_rep.crawl.documents.engine_fetch",
    "SentRequestCheck": "scrapy_rep.crawl.requests.sentcheck",
    "WebBotAuthMiddleware": "scrapy_rep.crawl.webbotauth",
    "page_directives": "scrapy_rep.crawl.page.pagereader",
}

__all__ = [
    "ALLOW_ALL",
    "DISALLOW_ALL",
    "STANDARDS",
    "Addon",
    "Allowed",
    "AuditMiddleware",
    "AuditTrail",
    "ContentSignals",
    "ContentUsageRules",
    "Decision",
    "MediaUsageMixin",
    "PageDirectives",
    "PageDirectivesMiddleware",
    "PageVerdictMiddleware",
    "ParseOptions",
    "PaymentRequiredMiddleware",
    "Reason",
    "Recheck",
    "Refused",
    "RepConfig",
    "RepFilesPipeline",
    "RepImagesPipeline",
    "RepOriginPartitioner",
    "RepOriginPartitions",
    "RepRecheckFilter",
    "RepReport",
    "RepSettingError",
    "RobotParser",
    "RobotsTxt",
    "RobotsTxtMiddleware",
    "RobotsTxtResponseGuard",
    "SentRequestCheck",
    "Wait",
    "WebBotAuthMiddleware",
    "__version__",
    "page_directives",
    "parse_robotstxt",
    "signals",
]


def __getattr__(name: str) -> Any:
    """PEP 562: import a Scrapy-facing name on first use."""
    if name == "signals":
        return import_module("scrapy_rep.signals")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names only (not this module's own imports such as ``Any``)."""
    return sorted(__all__)
