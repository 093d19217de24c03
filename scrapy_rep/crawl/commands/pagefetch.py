"""The pages the command-line tools fetch (``scrapy rep-robots --page`` / ``--purpose``,
``python -m scrapy_rep check --page``): one page over urllib as a Scrapy response (its
first 10 MiB, within the timeout), its directives described (SPEC §6) with where each one
was found, and with a purpose its usage signals and the page's verdict, decided by the
crawl's own decision after the fetch (:func:`scrapy_rep.verdict.page.decide_page`).
:class:`PageCheck` is what both tools print under a URL robots.txt allows.
"""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.http import Headers
from scrapy.responsetypes import responsetypes

from scrapy_rep.check import EXIT_ALLOWED, EXIT_DISALLOWED, EXIT_UNREACHABLE
from scrapy_rep.checker.download import within
from scrapy_rep.checker.licenses import NO_LICENSES, OriginLicenses
from scrapy_rep.checker.report import google_note
from scrapy_rep.crawl.media.mediagate import file_report
from scrapy_rep.crawl.page.otherdirectives import describe_sources
from scrapy_rep.crawl.page.pagereader import (
    crawler_tokens,
    is_image,
    page_directives,
    read_statements,
)
from scrapy_rep.settings import RepConfig, page_rules
from scrapy_rep.usage.purpose import PURPOSES
from scrapy_rep.usage.rsl.terms import licenses_signals
from scrapy_rep.verdict.page import PageFacts, decide_page

if TYPE_CHECKING:
    from scrapy_rep.robotstxt import RobotsTxt
    from scrapy_rep.usage.policy import UsagePolicy
    from scrapy_rep.usage.tdmrep import TdmRepFile

#: The most of a page read for ``--page`` (the directives are in headers and HTML).
MAX_PAGE_BYTES = 10 * 1024 * 1024


def page_response(url: str, user_agent: str, timeout: float) -> Any:
    """The page as a Scrapy response, or why it could not be fetched."""
    answer = within(timeout, lambda: fetch_page(url, user_agent, timeout))
    if answer is None:
        return f"not fetched (no complete answer within {timeout:g} s)"
    if isinstance(answer, str):
        return answer
    status, headers, body = answer
    cls = responsetypes.from_args(headers=headers, url=url, body=body)
    return cls(url=url, status=status, headers=headers, body=body)


def page_report(
    url: str, user_agent: str, timeout: float, config: RepConfig, also: tuple[str, ...] = ()
) -> tuple[str, bool]:
    """Fetch ``url`` and describe its directives for ``user_agent`` and the further crawler
    names ``also`` (the name the crawl's requests are sent as, when another); (text,
    fetched successfully)."""
    response = page_response(url, user_agent, timeout)
    if isinstance(response, str):
        return response, False
    status = response.status
    directives = page_directives(
        response,
        user_agent,
        extra_tokens=(*also, *config.directive_tokens),
        meta_in_noscript=config.meta_in_noscript,
    )
    where = describe_sources(directives.sources, response)
    return f"{status}, directives: {directives} ({where})", True


def fetch_page(url: str, user_agent: str, timeout: float) -> tuple[int, Headers, bytes] | str:
    """``(status, headers, body)``, or why the page could not be fetched."""
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, raw_headers = answer.status, answer.headers
            body = answer.read(MAX_PAGE_BYTES)
    except urllib.error.HTTPError as error:
        status, raw_headers, body = error.code, error.headers, error.read(MAX_PAGE_BYTES)
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as error:
        return f"not fetched ({type(error).__name__}: {getattr(error, 'reason', error)})"
    headers = Headers({name: raw_headers.get_all(name) for name in set(raw_headers)})
    return status, headers, body


@dataclass(frozen=True)
class PageCheck:
    """What both command-line tools print under a URL robots.txt allows, and its exit
    code: with ``--page`` the page's directives, with a purpose (``policy``) every usage
    signal about it, the origin's and the page's own, and the answer per purpose."""

    config: RepConfig
    #: The purposes asked about (``None``: none; the directives only).
    policy: UsagePolicy | None
    #: ``REP_RSL_LICENSES``, normalised (:attr:`scrapy_rep.verdict.RequestRules.rsl_owned`).
    owned: frozenset[str]
    #: The further names the crawl's requests are held to (the name they are sent as).
    also: tuple[str, ...]
    #: The robots.txt profile (a robots.txt signal Google's parser ignores is said so).
    profile: str
    timeout: float

    def lines(
        self,
        url: str,
        agent: str,
        rules: RobotsTxt,
        tdm: TdmRepFile | None,
        licenses: OriginLicenses = NO_LICENSES,
        *,
        directives: bool = True,
    ) -> tuple[list[str], int]:
        """The lines under ``url`` (``directives``: ``--page`` was given) and the exit
        code they make."""
        lines: list[str] = []
        code = EXIT_ALLOWED
        if directives:
            page_line, fetched = page_report(url, agent, self.timeout, self.config, self.also)
            lines.append(f"      page: {page_line}")
            if not fetched:
                code = EXIT_UNREACHABLE
        if self.policy is not None:
            code = max(code, self._usage(url, agent, rules, tdm, licenses, lines))
        return lines, code

    def _usage(
        self,
        url: str,
        agent: str,
        rules: RobotsTxt,
        tdm: TdmRepFile | None,
        licenses: OriginLicenses,
        lines: list[str],
    ) -> int:
        """Every usage signal about ``url`` and the answer per purpose, added to
        ``lines``; its exit code."""
        policy, config = self.policy, self.config
        assert policy is not None
        rsl = licenses_signals(licenses.documents, url, self.owned)
        further = (*self.also, *config.purpose_agents)
        before = policy.before_fetch(rules, url, agent, tdm, further, rsl)
        response = page_response(url, agent, self.timeout)
        if isinstance(response, str):
            lines.append(f"      page: {response}; only the origin's signals are known")
            decision, code = before.decision(), EXIT_UNREACHABLE
        else:  # the crawl's own decision after the fetch, on the same statements
            tokens = crawler_tokens(agent, (*self.also, *config.directive_tokens))
            statements = read_statements(response, tokens, ai=policy.needs_tdmrep)
            inside, file_lines = file_report(response, config, policy)  # docs/media.md
            image = is_image(response)
            facts = PageFacts(url, tokens, before, image, file=inside is not None)
            said = statements.also(inside=inside or ())
            decision = decide_page(facts, said, page_rules(config, policy)).usage
            code = EXIT_ALLOWED
            lines.extend(f"      {line}" for line in file_lines)
        lines.append("      usage signals:" if decision.signals else "      usage signals: none")
        for signal in decision.signals:
            note = google_note(signal, self.profile)
            lines.append(f"        {signal.source}  ({_answers(signal.answers)}){note}")
        refusal = policy.refusal(decision)
        for purpose in policy.purposes:
            verdict = decision.verdict(purpose)
            by = decision.decided_by(purpose)
            lines.append(f"      {purpose}: {verdict}" + (f" by {by.source}" if by else ""))
        if refusal is not None:
            lines.append(f"      => not for this crawl: {refusal.message}")
            return max(code, EXIT_DISALLOWED)
        return code


def _answers(answers: tuple[bool | None, ...]) -> str:
    said = [
        f"{purpose} {'yes' if answer else 'no'}"
        for purpose, answer in zip(PURPOSES, answers, strict=True)
        if answer is not None
    ]
    return ", ".join(said) or "says nothing about these purposes"
