"""A ``url`` or ``file`` record (docs/audit-trail.md, ``url``, ``file``) read in one place by
:meth:`FateRecord.of` for every command, ``audit verify`` too (pure): the entry it was
written from, read by :meth:`~rep_engine.records.UrlEntry.from_line` (the crawl's own
reader of the line: its fate, what refused it, why, its page's output...), which
:func:`~rep_engine.records.describe` words for every command, and what the line holds
beside it (its run, time and id; a file record's fate and error). Never raises: a field
missing or not of its type (a hand-edited trail, an earlier version's) is ``""`` or
``None``. ``audit verify`` re-derives a record from it, and reads the record as written
only where it checks what is written (a count that is not one, ``answered`` not ``true``,
the robots.txt line named: it reports a forged value as it is).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rep_engine.records import Fate, FileFate, FileOutcome, UrlEntry, mapping, text, whole
from rep_engine.urls.origins import origin_of


class FateRecord(NamedTuple):
    """A ``url`` or ``file`` record, read (:meth:`of`; a tuple: ``audit verify`` reads one
    per record)."""

    #: ``url`` or ``file``.
    kind: str
    run: str
    time: str
    id: str
    #: The entry it was written from (:meth:`UrlEntry.from_line`): its URL, status, fate,
    #: ``refused_by``, ``why``, ``to``, its page's output, ``robots`` part, ``usage``...
    entry: UrlEntry
    #: The fate's word (``""``: none, or not a string: :attr:`written` says it).
    word: str
    #: Its attempts as written (``None``: not said, where the entry counts ``0``).
    attempts: int | None
    #: The record as stored (its ``page`` part, links, for a re-derivation).
    record: dict[str, Any]

    @classmethod
    def of(cls, record: dict[str, Any]) -> FateRecord:
        """``record`` read; never raises."""
        get = record.get
        kind = text(get("type"))
        # a file's fate is a word of FileFate, never the entry's (its download's record says it)
        entry = UrlEntry.from_line(record if kind != "file" else {**record, "fate": None})
        return cls(kind, text(get("run")), text(get("time")), text(get("id")), entry,
                   text(get("fate")), whole(get("attempts")), record)  # fmt: skip

    @property
    def fate(self) -> Fate | None:
        """A ``url`` record's fate (``None``: no word of :class:`Fate`)."""
        return self.entry.fate

    @property
    def file_fate(self) -> FileFate | None:
        """A ``file`` record's fate (``None``: no word of :class:`FileFate`)."""
        return FileFate.of(self.word)

    @property
    def outcome(self) -> FileOutcome:
        """A ``file`` record's fate, with the sentence that refused or marked the file and the
        pipeline's error: what the ``url`` record of its download reads beside it."""
        return FileOutcome(self.word, self.entry.why, text(self.record.get("error")))

    @property
    def written(self) -> str:
        """The fate as written: its word, else the value's ``str`` (``None``: missing)."""
        return self.word or str(self.record.get("fate"))

    @property
    def origin(self) -> str:
        """The origin its robots.txt part names, else its URL's (``(no origin)``)."""
        return named_origin(self.record, self.entry.url) or "(no origin)"


def named_origin(record: dict[str, Any], url: str) -> str:
    """The origin a record's ``robots`` part names (an earlier release wrote it as
    ``origin``), else ``url``'s (``""``: none)."""
    return text(mapping(record.get("robots")).get("origin")) or str(origin_of(url) or "")
