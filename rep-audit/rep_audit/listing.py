"""``audit list``: every request record of the trails, one row each, with its fate, what
refused it and why, filtered by fate and reason; as text, CSV or JSON Lines (pure).

A row says what :func:`rep_engine.records.describe` says of its record, as every command
does: its ``fate`` is the record's fate as the trail writes it (a word of
:class:`~rep_engine.records.Fate`: a script's ``fate == "fetched"`` finds every fetched
page); its ``state`` that fate with what became of what it fetched (``fetched, item
dropped`` for a fetched page whose items were dropped, ``fetched, file refused`` or
``marked`` for a file an item pipeline downloaded that the media gate refused: its
``file`` record, which follows, is read with it; the text lines say it); its ``reason``
the record's ``refused_by`` for a refused request (``robots.txt``, ``purpose``,
``unreachable``, ``closed``), its ``item_reason`` for a
fetched page whose items were dropped (``noindex``, ``unavailable_after``, ``purpose``),
``purpose`` for a file the media gate refused, else empty; its ``why`` the record's own
sentence (``why``, ``item_why``, the file's), else what decided it in the words of ``audit
summary`` and the HTML report. ``--fate dropped`` lists the pages whose items, or whose
file, the crawl dropped; ``--fate refused`` the files the media gate refused too. A
recheck's ``item`` records are rows
too (``record`` ``item``, and the item's line in the dataset): their ``fate`` and ``state``
are the item's status (``kept``, ``refused``, ``unknown``), their ``reason`` and ``why`` as
:class:`~rep_engine.records.ItemRecord` reads them
(:attr:`~rep_engine.records.ItemRecord.decided`, when it has no sentence).
"""

from __future__ import annotations

import csv
import io
import json
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

from rep_audit.summary import Summary, with_file
from rep_engine.records import (
    FATES,
    ITEM_REASONS,
    ITEM_STATUSES,
    REFUSED_BY,
    RESPONSE_FATES,
    Described,
    Fate,
    FateRecord,
    ItemRecord,
    Reason,
    RefusedBy,
    describe,
    text,
)
from rep_engine.settings.readers import did_you_mean
from rep_engine.trail.read import Trail

#: ``--fate`` beyond a record's own: a fetched page some of whose items were dropped, or
#: whose file the media gate refused.
DROPPED: Final = "dropped"
#: What ``--fate`` takes (a recheck's items: their status; ``refused`` is one already).
LIST_FATES: Final = (*FATES, DROPPED, *(s for s in ITEM_STATUSES if s not in FATES))
#: What ``--reason`` takes: the trail's words for what refused a request (those a ``url``
#: record's ``refused_by`` is written with), and for what dropped a page's items (its
#: directives).
LIST_REASONS: Final = (
    *(word.value for word in RefusedBy if word in REFUSED_BY.values()),
    *(reason.value for reason in Reason if reason in ITEM_REASONS),
)
#: The columns of a row, in order (``trail`` first when several trails are read).
COLUMNS: Final = (
    "line", "run", "time", "url", "fate", "state", "reason", "why", "record", "dataset_line",
    "shard",
)  # fmt: skip
FORMATS: Final = ("text", "csv", "jsonl")


class ListError(ValueError):
    """A ``--fate`` or ``--reason`` that is none of the words the trail writes."""


def chosen(values: Sequence[str], accepted: Sequence[str], option: str) -> frozenset[str]:
    """The words given to ``option`` (repeated, or comma-separated), each one of
    ``accepted``: a typo must not list nothing, silently."""
    words = {word.strip().lower() for value in values for word in value.split(",")}
    words.discard("")
    for word in sorted(words):
        if word not in accepted:
            raise ListError(
                f"{option}: {word!r} is not a {option.lstrip('-')}"
                f"{did_you_mean(word, accepted)}; expected "
                f"{', '.join(accepted)}"
            )
    return frozenset(words)


def row(record: FateRecord, said: Described) -> dict[str, Any]:
    """One record as a row (:data:`COLUMNS` but ``line``), in the words ``said`` of it
    (:func:`~rep_engine.records.describe`)."""
    return {
        "run": record.run,
        "time": record.time,
        "url": record.entry.url,
        "fate": record.word,
        "state": said.state or record.word,
        "reason": said.reason,
        "why": said.why or said.signal,
        "record": "url",
        "dataset_line": "",
        "shard": "",
    }


def item_row(item: ItemRecord) -> dict[str, Any]:
    """One recheck's item as a row (:data:`COLUMNS` but ``line``)."""
    return {
        "run": item.run,
        "time": item.time,
        "url": item.url,
        "fate": item.status,
        "state": item.status,
        "reason": item.reason,
        "why": item.why or item.decided,
        "record": "item",
        "dataset_line": "" if item.line is None else item.line,
        "shard": item.shard,
    }


#: Records a download no page pass read waits for at most, before it is listed without
#: the ``file`` record that says what became of its file (a pipeline checks a file as it
#: comes: its record follows within a few lines).
WAITS_AT_MOST: Final = 10_000


def rows(
    paths: Sequence[str], fates: frozenset[str], reasons: frozenset[str]
) -> Iterator[dict[str, Any]]:
    """The rows of the ``url`` and ``item`` records of ``paths`` that pass the filters
    (none given: no filter), in file order; ``trail`` named when several are read."""
    for path in paths:
        for number, read, said in _records(path):
            if isinstance(read, ItemRecord):
                if fates and read.status not in fates:
                    continue
                shown = item_row(read)
            elif said is None or (fates and not _chosen(read, said, fates)):
                continue
            else:
                shown = row(read, said)
            found: dict[str, Any] = {"line": number}
            found.update({"trail": path} if len(paths) > 1 else {})
            found.update(shown)
            if reasons and found["reason"] not in reasons:  # its word, a member's
                continue
            yield found


def _chosen(record: FateRecord, said: Described, fates: frozenset[str]) -> bool:
    """Whether ``--fate`` chose the record: its fate's word, ``dropped`` for a page whose
    items (or whose file) the crawl dropped, ``refused`` for a file the media gate refused."""
    return (
        record.word in fates
        or (DROPPED in fates and said.dropped)
        or (Fate.REFUSED in fates and said.refused)
    )


def _records(path: str) -> Iterator[tuple[int, FateRecord | ItemRecord, Described | None]]:
    """The ``url`` and ``item`` records of ``path`` in file order, each url record with its
    words: a download no page pass read (an item pipeline's file) waits for the ``file``
    record that says what became of its file, its run's end, or :data:`WAITS_AT_MOST`
    records."""
    summary = Summary()  # each record's run's purposes, and the files refused or marked
    waiting: deque[tuple[int, FateRecord | ItemRecord]] = deque()
    pending: set[tuple[str, str]] = set()
    for line in Trail(path).lines():
        record = summary.feed(line)
        if summary.item is not None:
            waiting.append((line.number, summary.item))
        elif record is not None:
            waiting.append((line.number, record))
            if record.fate in RESPONSE_FATES and record.entry.output is None:
                pending.add((record.run, record.entry.url))
        elif line.type == "file" and line.record is not None:
            run = text(line.record.get("run"))  # its download: the redirects' last target
            pending.discard((run, summary.redirects.final(run, text(line.record.get("url")))))
        elif line.type in ("end", "repair"):
            pending.clear()  # a file's record comes in its run: none after its end
        while waiting and (len(waiting) > WAITS_AT_MOST or _ready(waiting[0][1], pending)):
            yield _told(*waiting.popleft(), summary)
    while waiting:
        yield _told(*waiting.popleft(), summary)


def _ready(read: FateRecord | ItemRecord, pending: set[tuple[str, str]]) -> bool:
    return not isinstance(read, FateRecord) or (read.run, read.entry.url) not in pending


def _told(
    number: int, read: FateRecord | ItemRecord, summary: Summary
) -> tuple[int, FateRecord | ItemRecord, Described | None]:
    if isinstance(read, ItemRecord):
        return number, read, None
    entry = with_file(read, summary.file_of(read))
    return number, read, describe(entry, summary.purposes_of(read))


def formatted(found: Iterable[dict[str, Any]], form: str, several: bool) -> Iterator[str]:
    """The rows as lines of ``form`` (text: one sentence each and a count at the end; CSV
    with its header; JSON Lines)."""
    columns = ("trail", *COLUMNS) if several else COLUMNS
    if form == "csv":
        yield _csv_line(columns)
    count = 0
    for entry in found:
        count += 1
        if form == "jsonl":  # a shard only when the collection is several files
            shown = {name: entry[name] for name in columns if name != "shard" or entry[name]}
            yield json.dumps(shown, ensure_ascii=True)
        elif form == "csv":
            yield _csv_line(entry[name] for name in columns)
        else:
            where = f"line {entry['line']}"
            where = f"{entry['trail']}, {where}" if several else where
            said = f"{entry['state']} ({entry['reason']})" if entry["reason"] else entry["state"]
            if entry["record"] == "item":
                said = f"item{_where(entry['dataset_line'], entry['shard'])} {said}"
            yield f"{where}: {entry['url']} {said}: {entry['why']}"
    if form == "text":
        yield f"{count} record(s)"


def _csv_line(values: Iterable[Any]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(values)
    return buffer.getvalue().rstrip("\n")


def _where(line: int | str, shard: str) -> str:
    """Where an item is: `` (dataset line 3)``, `` (line 3 of shard a.jsonl)``."""
    if not line:
        return f" (shard {shard})" if shard else ""
    return f" (line {line} of shard {shard})" if shard else f" (dataset line {line})"
