"""The end-of-crawl report's lines of each origin (:mod:`scrapy_rep.crawl.report`
collects them): what its documents' downloads came to, how many requests waited for
them, what the crawl did with its Crawl-delay, its content use and sitemaps; and the
report's file."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rep_engine.settings import RepConfig
from rep_engine.settings.rules import crawl_delay_obeyed

logger = logging.getLogger("scrapy_rep.crawl.report")


@dataclass
class Outcome:
    """One robots.txt (or other document) outcome of an origin, and how many times in a
    row it came (a host refusing connections says the same at every try)."""

    text: str
    times: int = 1

    def __str__(self) -> str:
        return self.text if self.times == 1 else f"{self.text} (x{self.times})"


@dataclass
class OriginReport:
    outcomes: list[Outcome] = field(default_factory=list)
    crawl_delay: float | None = None
    sitemaps: tuple[str, ...] = ()
    #: The requests that waited for its documents, and their waits (a request may wait
    #: more than once: for robots.txt, then for its refresh as it is sent).
    waited: int = 0
    waits: int = 0
    held_unreachable: int = 0
    #: Outcomes left out between the first and the last few (an origin down all crawl).
    outcomes_left_out: int = 0
    #: What the other documents' downloads came to (tdmrep.json), by document.
    documents: dict[str, list[Outcome]] = field(default_factory=dict)
    #: robots.txt's Content-Signal ``use=`` level for the crawler: a condition on use.
    use: str | None = None


def add_outcome(outcomes: list[Outcome], text: str) -> bool:
    """Append ``text``, or count it again when it repeats the last one; whether it was
    appended. A give-up that quotes the failure before it does not quote it again."""
    if outcomes:
        last = outcomes[-1]
        if last.text == text:
            last.times += 1
            return False
        text = text.replace(f" ({last.text})", "")
    outcomes.append(Outcome(text))
    return True


def origin_lines(origins: dict[str, OriginReport], delay_text: Callable[[float], str]) -> list[str]:
    """The lines of each origin: its documents' outcomes, its waits, its crawl-delay (as
    ``delay_text`` says what the crawl did with it), content use and sitemaps."""
    documents = sorted({d for report in origins.values() for d in report.documents})
    heading = " and ".join(["robots.txt", *documents])
    lines = [f"{heading} per origin:"]
    for name in sorted(origins):
        report = origins[name]
        lines.append(f"  {name}")
        outcomes = list(map(str, report.outcomes))
        if report.outcomes_left_out:
            outcomes.insert(2, f"({report.outcomes_left_out} more)")
        if outcomes or not report.documents:  # not for a document keyed by its URL (RSL)
            lines.append(f"    robots.txt: {' -> '.join(outcomes) or 'not downloaded'}")
        for document, fetched in report.documents.items():
            lines.append(f"    {document}: {' -> '.join(map(str, fetched))}")
        extras = []
        if report.waited:
            waits = f" ({report.waits} waits in all)" if report.waits > report.waited else ""
            extras.append(f"{report.waited} request(s) waited for it{waits}")
        if report.held_unreachable:
            extras.append(f"{report.held_unreachable} held while unreachable")
        if report.crawl_delay is not None:
            extras.append(delay_text(report.crawl_delay))
        if extras:
            lines.append(f"    {', '.join(extras)}")
        if report.use is not None:
            lines.append(
                f"    content use: at most {report.use} (Content-Signal use={report.use}: "
                "a condition on how its content may be used, which refuses no purpose)"
            )
        for sitemap in report.sitemaps:
            lines.append(f"    sitemap: {sitemap}")
    return lines


def delay_said(delay: float, not_obeyed: str, delay_max: float) -> str:
    """What the crawl did with a Crawl-delay it read (the slots' floor, capped at
    ``delay_max``; ``not_obeyed``: why it sets no delay, ``""``: it does)."""
    if not_obeyed:
        return f"crawl-delay {delay:g} s read, not obeyed ({not_obeyed})"
    if delay > delay_max:
        cap = f"{delay_max:g} s (REP_CRAWL_DELAY_MAX)"
        return f"crawl-delay {delay:g} s read, applied as {cap}"
    return f"crawl-delay {delay:g} s"


def delay_not_obeyed(config: RepConfig, settings: Any) -> str:
    """Why Crawl-delay sets no download delay in this crawl, as the crawl decides it
    (:func:`crawl_delay_obeyed`, ``ROBOTSTXT_OBEY``); ``""`` when it does."""
    if not settings.getbool("ROBOTSTXT_OBEY"):
        return "ROBOTSTXT_OBEY is False"
    return "" if crawl_delay_obeyed(config) else "REP_OBEY_CRAWL_DELAY is False"


def written(path: str, text: str) -> bool:
    """Whether the report ``text`` could be written to ``path`` (``REP_REPORT_FILE``; its
    missing folders made, as the audit trail's are); if not (checked at start, a full
    disk now), it is logged, and the report follows on standard error."""
    try:
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        return True
    except OSError as error:
        logger.error(
            "scrapy_rep: REP_REPORT_FILE %s cannot be written (%s); the report "
            "follows on standard error",
            path,
            error.strerror or error,
        )
        return False
