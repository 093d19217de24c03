"""What the media gate (:mod:`scrapy_rep.crawl.media.mediagate`) finds about a file: its
:class:`FileVerdict`, the ``rep_refused_files`` entry of a refused file (docs/media.md),
and the ``noimageai`` of the page that showed an image."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from itemadapter import ItemAdapter

from rep_engine.usage.media.reading import MediaReading
from rep_engine.usage.purpose import MAPPING, PURPOSE_INDEX, UsageDecision, UsageSignal
from rep_engine.verdict.decide import Refused
from scrapy_rep.crawl import meta

if TYPE_CHECKING:
    from scrapy import Request

_NOIMAGEAI: Final = MAPPING[("robots-meta", "noimageai (image response)")].answers


@dataclass(frozen=True, slots=True)
class FileVerdict:
    """What the gate found about one file."""

    decision: UsageDecision
    reading: MediaReading
    #: Why it must not be stored for a purpose of the crawl (its decision's ``purpose``).
    refusal: Refused | None

    @property
    def reasons(self) -> list[str]:
        """Every statement that denies the refused purpose (several sources can say no)."""
        if self.refusal is None:
            return []
        purpose = self.refusal.purpose
        if self.refusal.signal is None or purpose is None:
            return [self.refusal.message]
        index = PURPOSE_INDEX[purpose]
        denying = [s.source for s in self.decision.signals if s.answers[index] is False]
        return [f"{purpose} denied by {source}" for source in denying]


def refused_file(
    url: str, purpose: str | None, reason: str, statement: str | None, reasons: list[str]
) -> dict[str, Any]:
    """One entry of an item's ``rep_refused_files`` (docs/media.md); ``statement``: the
    deciding one (``None``: nothing said, e.g. ``REP_PURPOSE_UNKNOWN = "deny"``, or an
    unreachable document); ``reasons``: every statement that denies it."""
    return {
        "url": url,
        "purpose": purpose,
        "reason": reason,
        "signal": statement,
        meta.REFUSED: reasons,
    }


def verdict_refused_file(verdict: FileVerdict, url: str) -> dict[str, Any]:
    """The ``rep_refused_files`` entry of a downloaded file refused by ``verdict``."""
    refusal = verdict.refusal
    assert refusal is not None
    statement = None if refusal.signal is None else refusal.signal.source
    entry = refused_file(url, refusal.purpose, refusal.message, statement, verdict.reasons)
    if verdict.reading.unreadable:
        entry[meta.UNREADABLE] = list(verdict.reading.problems)
    return entry


def page_noimageai(request: Request, item: Any) -> list[UsageSignal]:
    """The ``noimageai`` of the page that showed this image, as the page-directives
    middleware recorded it (on the request, or on the item for its image URLs)."""
    found = []
    record = request.meta.get(meta.IMAGE_USAGE)
    if isinstance(record, dict) and record.get("url") == request.url:
        found.append(record)
    try:
        on_item = ItemAdapter(item).get(meta.IMAGE_USAGE) if item is not None else None
    except TypeError:
        on_item = None
    if isinstance(on_item, dict) and request.url in (on_item.get("urls") or ()):
        found.append(on_item)
    return [_record_signal(record) for record in found[:1]]


def _record_signal(record: dict[str, Any]) -> UsageSignal:
    purposes = record.get("purposes") or ("ai-train", "ai-input")
    answers = tuple(
        False if purpose in purposes and answer is False else None
        for purpose, answer in zip(PURPOSE_INDEX, _NOIMAGEAI, strict=True)
    )
    source = str(record.get("source") or "noimageai on the page")[:200]
    return UsageSignal("robots-meta", (answers[0], answers[1], answers[2]), source)
