"""rep_engine: the Robots Exclusion Protocol engine of scrapy_rep, pure (no Scrapy, no
Twisted, no asyncio: ``tests/project/test_architecture.py``).

:data:`__all__` is its public API, the engine's names that ``scrapy_rep`` re-exports
(docs/api.md): robots.txt parsed and matched, page directives, the AI-usage rules, the
settings table's frozen config, and the verdicts. Every other module is private but to
the other parts of this repository (rep-audit, rep-recheck, scrapy_rep), which are
released with it at the same version; the audit trail's words and records
(:mod:`rep_engine.records`), in its file (:mod:`rep_engine.trail`), are their one
contract.
"""

from __future__ import annotations

from rep_engine.directives import PageDirectives
from rep_engine.records import Reason
from rep_engine.robotstxt import (
    ALLOW_ALL,
    DISALLOW_ALL,
    ContentSignals,
    Decision,
    RobotsTxt,
    parse_robotstxt,
)
from rep_engine.robotstxt.aipref import ContentUsageRules
from rep_engine.robotstxt.profiles import ParseOptions
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.usage.standards import STANDARDS
from rep_engine.verdict.decide import Allowed, Refused, Wait

__version__ = "0.1.0"

__all__ = [
    "ALLOW_ALL",
    "DISALLOW_ALL",
    "STANDARDS",
    "Allowed",
    "ContentSignals",
    "ContentUsageRules",
    "Decision",
    "PageDirectives",
    "ParseOptions",
    "Reason",
    "Refused",
    "RepConfig",
    "RepSettingError",
    "RobotsTxt",
    "Wait",
    "__version__",
    "parse_robotstxt",
]
