"""May this request go? The one decision of the crawl, its early pass, both tools, the
trail's re-derivation and the media gate (:mod:`scrapy_rep.verdict.decide`;
its values: :mod:`scrapy_rep.verdict.values`)."""

from scrapy_rep.verdict.decide import decide
from scrapy_rep.verdict.reasons import LINK_REASONS, Reason
from scrapy_rep.verdict.values import (
    LICENSE,
    ROBOTS,
    TDM,
    UNCHECKED,
    Allowed,
    Known,
    Obey,
    Override,
    Refused,
    RequestFacts,
    RequestRules,
    Used,
    Verdict,
    Wait,
    obey_of,
)

__all__ = [
    "LICENSE",
    "LINK_REASONS",
    "ROBOTS",
    "TDM",
    "UNCHECKED",
    "Allowed",
    "Known",
    "Obey",
    "Override",
    "Reason",
    "Refused",
    "RequestFacts",
    "RequestRules",
    "Used",
    "Verdict",
    "Wait",
    "decide",
    "obey_of",
]
