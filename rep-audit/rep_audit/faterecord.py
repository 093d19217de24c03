"""A ``url`` or ``file`` record's fate (docs/audit-trail.md, ``url``, ``file``) as a
typed value, read in one place by :meth:`FateRecord.of` for ``audit show``, ``summary``,
``list``, ``report --html`` and ``export`` (pure), with the entry it was written from read
by :meth:`~rep_engine.records.UrlEntry.from_line` (the crawl's own reader of the
line). Never raises: a field missing or not of
its type (a hand-edited trail, an earlier version's) is ``""`` or ``None``. ``audit
verify`` reads the record as written (it reports a forged value as it is).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rep_engine.records import Fate, FileFate, RefusedBy, UrlEntry, mapping, text, whole
from rep_engine.urls.origins import origin_of


@dataclass(frozen=True, slots=True)
class FateRecord:
    """A ``url`` or ``file`` record's fate, read (:meth:`of`)."""

    #: ``url`` or ``file``.
    kind: str
    run: str
    time: str
    id: str
    #: The entry it was written from (:meth:`UrlEntry.from_line`): its URL, status,
    #: ``robots`` part, document versions...
    entry: UrlEntry
    #: The fate's word (``""``: none, or not a string: :attr:`written` says it).
    word: str
    #: What refused it (``refused_by``: a :class:`~rep_engine.records.RefusedBy` word,
    #: as written), the record's sentence, and where a redirect went (``to``).
    refused_by: str
    why: str
    to: str
    #: A file record's pipeline error.
    error: str
    #: Its attempts as written (``None``: not said, where the entry counts ``0``).
    attempts: int | None
    #: A page's items kept and dropped (``None``: not said, as for a download no page
    #: pass read, or not a count, or on the record of a request not fetched), why they
    #: were dropped (``noindex``…) and what said it.
    items_kept: int | None
    items_dropped: int | None
    #: Items the page pass let through that a later component of the crawl dropped
    #: (``0``: none, or a trail written before it was recorded).
    items_not_kept: int
    item_reason: str
    item_why: str
    #: The ``usage`` part (``{}``: none, or no object).
    usage: dict[str, Any]
    #: The record as stored (its ``page`` part, links, for a re-derivation).
    record: dict[str, Any]

    @classmethod
    def of(cls, record: dict[str, Any]) -> FateRecord:
        """``record`` read; never raises."""
        get = record.get
        kind, run, time, key, word, refused_by, why, to, error, reason, item_why = (
            text(get(name))
            for name in ("type", "run", "time", "id", "fate", "refused_by", "why", "to",
                         "error", "item_reason", "item_why")
        )  # fmt: skip
        # a page's output only on a fetched page's record, and only counts (audit verify
        # finds any other: output_problems)
        kept, dropped, not_kept = (
            _count(get(name)) if word == "fetched" else None
            for name in ("items_kept", "items_dropped", "items_not_kept")
        )  # fmt: skip
        if word != "fetched":
            reason = item_why = ""
        return cls(
            kind, run, time, key, UrlEntry.from_line(record), word, refused_by, why, to,
            error, whole(get("attempts")), kept, dropped, not_kept or 0, reason, item_why,
            mapping(get("usage")), record,
        )  # fmt: skip

    @property
    def fate(self) -> Fate | None:
        """A ``url`` record's fate (``None``: no word of :class:`Fate`)."""
        return Fate.of(self.word)

    @property
    def file_fate(self) -> FileFate | None:
        """A ``file`` record's fate (``None``: no word of :class:`FileFate`)."""
        return FileFate.of(self.word)

    @property
    def written(self) -> str:
        """The fate as written: its word, else the value's ``str`` (``None``: missing)."""
        return self.word or str(self.record.get("fate"))

    @property
    def by(self) -> RefusedBy | None:
        """What refused it, as a member (``None``: another word, or none)."""
        return RefusedBy.of(self.refused_by)

    @property
    def origin(self) -> str:
        """The origin its robots.txt part names, else its URL's (``(no origin)``)."""
        return named_origin(self.record, self.entry.url) or "(no origin)"

    @property
    def dropped(self) -> bool:
        """A fetched page some of whose items were dropped after the fetch."""
        return self.fate is Fate.FETCHED and (self.items_dropped or 0) > 0

    @property
    def all_dropped(self) -> bool:
        """A fetched page whose items were dropped after the fetch (a usage signal,
        noindex, unavailable_after): items dropped and none kept."""
        return self.dropped and not self.items_kept

    def denied(self, purpose: str) -> bool:
        answers = self.usage.get("answers")
        return isinstance(answers, dict) and answers.get(purpose) is False


def named_origin(record: dict[str, Any], url: str) -> str:
    """The origin a record's ``robots`` part names (an earlier release wrote it as
    ``origin``), else ``url``'s (``""``: none)."""
    return text(mapping(record.get("robots")).get("origin")) or str(origin_of(url) or "")


def _count(value: Any) -> int | None:
    """A count of a page's output: a whole number of 0 or more, else ``None``."""
    number = whole(value)
    return number if number is not None and number >= 0 else None
