"""The RSL licenses an origin's robots.txt names, fetched as the crawl holds them, for
``scrapy rep-robots`` and ``python -m scrapy_rep check`` (docs/purpose-notes.md §9, 'Which crawls
wait for the license'): read only when a purpose is set, as in the crawl; a 4xx is no terms;
one that stays unreachable is what the crawl ends with once it gives up (no AI use), and the
tools exit 3 (it is temporary)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from scrapy_rep.checker.download import fetch_document
from scrapy_rep.fetch.rsl_kind import (
    RSL,
    licenses_not_read,
    licenses_to_wait_for,
)
from scrapy_rep.fetch.rules import Effect
from scrapy_rep.usage.rsl.document import RslDocument

if TYPE_CHECKING:
    from scrapy_rep.robotstxt import RobotsTxt
    from scrapy_rep.verdict import RequestRules


@dataclass(frozen=True)
class OriginLicenses:
    """The licenses of one origin's ``License:`` lines, as the crawl would hold them."""

    #: ``(license URL, document)`` for :meth:`RequestRules.refusal`.
    documents: tuple[tuple[str, RslDocument], ...] = ()
    #: One line per license: ``RSL license URL: outcome``.
    lines: tuple[str, ...] = ()
    unreachable: bool = False


NO_LICENSES: Final = OriginLicenses()


def origin_licenses(
    rules: RobotsTxt, request_rules: RequestRules | None, agent: str, timeout: float
) -> OriginLicenses:
    """Fetch the licenses ``rules`` name (every crawler's) as ``agent``, when the crawl
    would (a purpose is set); more than
    ``REP_RSL_MAX_LICENSES`` are none fetched, as in the crawl."""
    if request_rules is None or not request_rules.purpose_set or not rules.licenses:
        return NO_LICENSES
    documents, lines, unreachable = [], [], False
    keys = licenses_to_wait_for(rules.licenses)
    beyond = licenses_not_read(keys, request_rules.max_licenses)
    if beyond is not None:
        url, stand_in = beyond
        return OriginLicenses((beyond,), (f"RSL license {url}: {stand_in.problem}",))
    for url in keys:
        fetched = fetch_document(url, RSL, user_agent=agent, timeout=timeout)
        if fetched.effect is Effect.PARSE:
            document = RSL.read(fetched.body, fetched.truncated)
        else:
            document = RSL.stand_in(fetched.effect is not Effect.UNREACHABLE)
            unreachable = unreachable or fetched.effect is Effect.UNREACHABLE
        documents.append((url, document))
        lines.append(f"RSL license {url}: {fetched.outcome}")
    return OriginLicenses(tuple(documents), tuple(lines), unreachable)
