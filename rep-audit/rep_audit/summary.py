"""``audit summary``: a trail's counts per origin, per purpose and per deciding signal
(pure). The HTML report (:mod:`rep_audit.html`) draws the same numbers.

Per record (``url`` line): the *deciding signal* is what its fate came from, as
:func:`rep_engine.records.describe` says it for every command: for a refused
request, ``refused by`` its ``refused_by`` (with what the site said, for a refusal by
purpose: ``refused by purpose (header Content-Signal: ai-train=no)``; and the
override of ``REP_OVERRIDES`` that had expired, for a request robots.txt refused after it
did: ``refused by robots.txt (override expired: its reason …)``); for a page whose items
a usage signal denied, ``denied by`` what the site said (``denied by header
Content-Usage: train-ai=n``), as the HTML report says it too; else ``overridden by
REP_OVERRIDES: its reason, through …`` when robots.txt disallowed it and an authorized
override let it through, ``allowed by a robots.txt rule`` when a robots.txt line allowed
it, ``no rule (allowed)`` when none spoke.

The counts of one row of its tables and of the HTML report's charts: a :class:`Tally` of
``url`` records (requests by fate, items kept and dropped), an :class:`ItemTally` of a
recheck's items (by status); :func:`table` draws them as plain text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from rep_engine.records import (
    FATE_ROWS,
    FILE_FATE_ROWS,
    ITEM_STATUSES,
    NOT_DOWNLOADED,
    RESPONSE_FATES,
    EndReason,
    Fate,
    FateRecord,
    ItemRecord,
    ItemStatus,
    UrlEntry,
    denied_purposes,
    describe,
    item_of,
    items,
    mapping,
    text,
    whole,
)
from rep_engine.trail.read import Line
from rep_engine.trail.terminal import printable

#: The columns of the tables of a recheck's items.
ITEM_COLUMNS: Final = ("items", *ITEM_STATUSES)


#: A count of a :class:`Tally` that is no column of its tables.
_NOT_A_COLUMN: Final = {"column": False}


@dataclass
class Tally:
    """The counts of one row."""

    requests: int = 0
    #: Its requests by their fate's column (:data:`~rep_engine.records.FATE_COLUMNS`;
    #: ``other``: failed, redirected, unfinished).
    refused: int = 0
    fetched: int = 0
    other: int = 0
    kept: int = 0
    dropped: int = 0
    #: Items let through that a later component of the crawl dropped (not a column).
    not_kept: int = field(default=0, metadata=_NOT_A_COLUMN)
    #: Of ``fetched``: the pages some of whose items were dropped after the fetch (their
    #: state: ``fetched, item dropped``); not a column of the text tables.
    fetched_dropped: int = field(default=0, metadata=_NOT_A_COLUMN)

    def add(self, record: FateRecord, times: int = 1) -> None:
        """Count ``record`` (``times = -1``: take it back, to count it in another row)."""
        self.requests += times
        fate, output = record.fate, record.entry.output
        column = FATE_ROWS[fate].colour if fate is not None else "other"
        setattr(self, column, getattr(self, column) + times)
        if fate is Fate.FETCHED and output is not None and output.dropped:
            self.fetched_dropped += times
        if output is not None:
            self.kept += times * output.kept
            self.dropped += times * output.items_dropped
            self.not_kept += times * output.not_kept

    def row(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in COLUMNS)


#: The columns of every table, in order: the counts of a :class:`Tally` by request fate
#: (``other``: failed, redirected, unfinished) and the items of its pages.
COLUMNS: Final = tuple(one.name for one in fields(Tally) if one.metadata != _NOT_A_COLUMN)


@dataclass
class ItemTally:
    """The counts of one row of a recheck's items: every item, and per status."""

    items: int = 0
    kept: int = 0
    refused: int = 0
    unknown: int = 0
    #: The unknown items its run kept (``--keep-unknown``: written with the kept ones).
    kept_unknown: int = 0

    def add(self, item: ItemRecord) -> None:
        self.items += 1
        if item.status in ITEM_STATUSES:
            setattr(self, item.status, getattr(self, item.status) + 1)

    def row(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in ITEM_COLUMNS)


def table(
    title: str, rows: Mapping[str, Tally | ItemTally], extra: dict[str, int] | None = None
) -> list[str]:
    """A plain-text table, rows sorted by requests (items, for a recheck's items: most
    first)."""
    columns = ITEM_COLUMNS if any(isinstance(t, ItemTally) for t in rows.values()) else COLUMNS
    heads = [title, *columns] + (["denied"] if extra is not None else [])
    body = [
        [printable(name), *map(str, tally.row())]
        + ([str(extra.get(name, 0))] if extra is not None else [])
        for name, tally in sorted(rows.items(), key=lambda item: (-item[1].row()[0], item[0]))
    ]
    widths = [max(map(len, column)) for column in zip(heads, *body, strict=True)]
    return [
        "  ".join([row[0].ljust(widths[0]), *map(str.rjust, row[1:], widths[1:])]).rstrip()
        for row in [heads, *body]
    ]


def signal_of(record: FateRecord, purposes: list[str], file: FateRecord | None = None) -> str:
    """What decided ``record`` (:attr:`~rep_engine.records.Described.signal`); ``file``: the
    ``file`` record of the same URL and run (the media gate's fate of a file an item
    pipeline downloaded), which decides a fetched record's signal when it refused the file."""
    return describe(with_file(record, file), purposes).signal


def with_file(record: FateRecord, file: FateRecord | None) -> UrlEntry:
    """``record``'s entry, with what became of the file it downloaded (``file``'s)."""
    return record.entry if file is None else replace(record.entry, file=file.outcome)


def file_decided(file: FateRecord) -> bool:
    """Whether a purpose decided a ``file`` record: the media gate refused or marked it."""
    fate = file.file_fate
    return fate is not None and bool(FILE_FATE_ROWS[fate].decided)


#: A download no page pass read, as a file's record counts it in another row.
_DOWNLOAD: Final = FateRecord.of({"fate": Fate.FETCHED.value})
#: Redirects of one download followed at most (a loop written in a trail ends there).
_HOPS: Final = 20


class DownloadRedirects:
    """The redirects of the requests the engine downloaded without the scheduler
    (``unscheduled``: a media pipeline's files), per run until its end: a ``file``
    record names the URL its pipeline asked for, while the ``url`` record of the download
    whose file it read is the last redirect's target's (``MEDIA_ALLOW_REDIRECTS``), and
    every reader says that record by the ``file`` record (:meth:`final`)."""

    def __init__(self) -> None:
        self._to: dict[str, dict[str, str]] = {}

    def saw(self, record: FateRecord) -> None:
        entry = record.entry
        if record.fate is Fate.REDIRECTED and entry.unscheduled and entry.to:
            self._to.setdefault(record.run, {})[entry.url] = entry.to

    def ended(self, run: str) -> None:
        self._to.pop(run, None)

    def final(self, run: str, url: str) -> str:
        """Where the download of ``url`` in run ``run`` ended: ``url`` itself, or the last
        target of its redirects."""
        hops, seen = self._to.get(run, {}), {url}
        while url in hops and len(seen) <= _HOPS and hops[url] not in seen:
            url = hops[url]
            seen.add(url)
        return url


@dataclass
class Summary:
    """Every table, filled line by line (:meth:`feed`)."""

    fates: Counter[str] = field(default_factory=Counter)
    total: Tally = field(default_factory=Tally)
    by_origin: dict[str, Tally] = field(default_factory=dict)
    by_purpose: dict[str, Tally] = field(default_factory=dict)
    #: Per purpose: the pages a signal denied it for.
    denied: Counter[str] = field(default_factory=Counter)
    #: Per deciding signal, a usage signal named by what the site said (its ``source``).
    by_said: dict[str, Tally] = field(default_factory=dict)
    #: The fetched records no download made (answered without one, replayed from Scrapy's
    #: HTTP cache), by the report's words for them.
    not_downloaded: Counter[str] = field(default_factory=Counter)
    runs: list[dict[str, Any]] = field(default_factory=list)
    ends: list[dict[str, Any]] = field(default_factory=list)
    snapshots: int = 0
    #: Lines that are not trail lines (damaged).
    unreadable: int = 0
    #: The ``repair`` lines (``audit repair`` after a cut): line number and record.
    repairs: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: The runs a repair cut short (their end line lost), and the repair's line.
    cut: dict[str, int] = field(default_factory=dict)
    #: The runs read so far without their end line.
    open: dict[str, None] = field(default_factory=dict)
    #: The ``file`` records the media gate refused or marked, by run and URL: the
    #: ``url`` record of the same download (written before) is said by it.
    files: dict[tuple[str, str], FateRecord] = field(default_factory=dict)
    #: The deciding signal of each ``url`` record of a download no page pass read (an
    #: item pipeline's file: fetched, no ``items_kept``), by run and URL: counted under
    #: another if its ``file`` record refuses it.
    _downloads: dict[tuple[str, str], str] = field(default_factory=dict)
    #: Where a file's download ended when it was redirected: the record its ``file``
    #: record says.
    redirects: DownloadRedirects = field(default_factory=DownloadRedirects)
    _purposes: dict[str, list[str]] = field(default_factory=dict)
    #: The recheck runs that kept their unknown items (``--keep-unknown``).
    _keeping_unknown: set[str] = field(default_factory=set)
    #: A recheck's ``item`` records: all of them, per origin, per what decided them
    #: (:attr:`ItemRecord.decided`).
    items: ItemTally = field(default_factory=ItemTally)
    items_by_origin: dict[str, ItemTally] = field(default_factory=dict)
    items_by_said: dict[str, ItemTally] = field(default_factory=dict)
    #: The item of the last line fed, when it was an ``item`` line (``None`` otherwise).
    item: ItemRecord | None = None

    def feed(self, line: Line) -> FateRecord | None:
        """Count one line; the record if it is a ``url`` line (an ``item`` line's item:
        :attr:`item`)."""
        record = line.record
        kind = line.type
        self.item = None
        if record is None:
            self.unreadable += 1
        elif kind == "run":
            self.runs.append(record)
            self.open[str(record.get("run"))] = None
            purposes = record.get("purposes")
            self._purposes[str(record.get("run"))] = (
                [str(p) for p in purposes] if isinstance(purposes, list) else ["search"]
            )
            if mapping(record.get("recheck")).get("keep_unknown") is True:
                self._keeping_unknown.add(str(record.get("run")))
        elif kind == "snapshot":
            self.snapshots += 1
        elif kind == "end":
            self.ends.append(record)
            self.open.pop(str(record.get("run")), None)
            self.redirects.ended(str(record.get("run")))
        elif kind == "repair":  # the runs still open were cut short there
            self.repairs.append((line.number, record))
            self.cut.update(dict.fromkeys(self.open, line.number))
            self.open.clear()
        elif kind == "url":
            self._url(read := FateRecord.of(record))
            return read
        elif kind == "file":
            self._file(FateRecord.of(record))
        elif kind == "item":
            self.item = item_of(line, tuple(self._purposes.get(str(record.get("run")), ["search"])))
            if self.item is not None:
                self._item(self.item)
        return None

    def _item(self, item: ItemRecord) -> None:
        self.items.add(item)
        if item.status == ItemStatus.UNKNOWN and item.run in self._keeping_unknown:
            self.items.kept_unknown += 1
        self.items_by_origin.setdefault(item.origin, ItemTally()).add(item)
        self.items_by_said.setdefault(item.decided, ItemTally()).add(item)

    def file_of(self, record: FateRecord) -> FateRecord | None:
        """The ``file`` record that refused or marked the download of ``record``: a
        download no page pass read (a media pipeline's), never a page's record of the
        same URL (the spider's own request of the image: its items were its own)."""
        if record.entry.output is not None:
            return None
        return self.files.get((record.run, record.entry.url))

    def _file(self, file: FateRecord) -> None:
        """A file's fate: the record of its download (the redirect's target's, when it was
        redirected) now counts under what refused it (and is no longer kept)."""
        key = (file.run, self.redirects.final(file.run, file.entry.url))
        said = self._downloads.pop(key, None)
        if not file_decided(file):  # no purpose decided it
            return
        self.files[key] = file
        if said is not None:  # all its record counts (no items: no page pass): _DOWNLOAD's
            self.by_said[said].add(_DOWNLOAD, -1)
            refused = signal_of(_DOWNLOAD, [], file)
            self.by_said.setdefault(refused, Tally()).add(_DOWNLOAD)

    def purposes_of(self, record: FateRecord) -> list[str]:
        return self._purposes.get(record.run, ["search"])

    def _url(self, record: FateRecord) -> None:
        self.redirects.saw(record)
        purposes = self.purposes_of(record)
        self.fates[record.written] += 1
        self.total.add(record)
        self.by_origin.setdefault(record.origin, Tally()).add(record)
        denied = denied_purposes(record.entry.usage, tuple(purposes))
        for purpose in purposes:
            self.by_purpose.setdefault(purpose, Tally()).add(record)
            self.denied[purpose] += purpose in denied
        described = describe(record.entry, purposes)
        said = described.signal
        self.by_said.setdefault(said, Tally()).add(record)
        if described.row in NOT_DOWNLOADED:
            self.not_downloaded[described.phrase] += 1
        if record.fate in RESPONSE_FATES and record.entry.output is None:
            self._downloads[(record.run, record.entry.url)] = said

    def top_refusing(self) -> list[tuple[str, Tally]]:
        """The ten origins with the most refused requests (ties: by name)."""
        refusing = [(o, t) for o, t in self.by_origin.items() if t.refused]
        return sorted(refusing, key=lambda item: (-item[1].refused, item[0]))[:10]


def unended(summary: Summary, run: dict[str, Any]) -> str:
    """``""`` for a run with its end line, else that it has none, and whether a repair
    cut it short: its records and counts are partial."""
    run_id = str(run.get("run"))
    if run_id in summary.cut:
        return f"no end line: cut short, repaired at line {summary.cut[run_id]}"
    return "no end line" if run_id in summary.open else ""


def _not_followed(end: dict[str, Any]) -> int:
    """The links a run's pages kept from being requested (its end line's count)."""
    return whole(mapping(end.get("counts")).get("not_followed")) or 0


def summary_text(summary: Summary) -> list[str]:
    total = summary.total
    fates = ", ".join(f"{n} {fate}" for fate, n in sorted(summary.fates.items()))
    if summary.not_downloaded:  # of the fetched: as the crawl's closing line says them
        said = sorted(summary.not_downloaded.items())
        fates += f"; of those fetched, {', '.join(f'{n} {how}' for how, n in said)}"
    not_followed = sum(_not_followed(end) for end in summary.ends)
    links = f", {not_followed} link(s) not followed (never requested: no records)"
    lines = [
        f"{len(summary.runs)} run(s), {total.requests} requested URL(s) ({fates or 'none'}), "
        f"{total.kept} item(s) kept, {total.dropped} dropped"
        + (f", {total.not_kept} not kept by a component of the crawl" if total.not_kept else "")
        + (links if not_followed else "")
        + f", {summary.snapshots} snapshot(s)",
    ]
    failed = {str(end.get("run")): end for end in summary.ends
              if EndReason.of(end.get("reason")) is EndReason.FAILED}  # fmt: skip
    for run in summary.runs:
        purposes = ", ".join(map(str, items(run.get("purposes")))) or "-"
        why = unended(summary, run)
        if (end := failed.get(str(run.get("run")))) is not None:  # a recheck stopped half-way
            why = (f"failed: {text(end.get('error')) or 'no error said'}: not a whole "
                   "recheck, its items are those decided before it stopped")  # fmt: skip
        lines.append(
            f"run {run.get('run')} {run.get('time')} spider {run.get('spider')} "
            f"purposes {purposes} profile {run.get('profile')}" + (f" ({why})" if why else "")
        )
    for number, repair in summary.repairs:
        lines.append(
            f"line {number}: repaired on {repair.get('time')} after a cut "
            f"({repair.get('dropped_bytes')} byte(s) dropped): the trail is not whole; "
            "`audit verify` says what cannot be accounted for"
        )
    if summary.unreadable:
        lines.append(f"{summary.unreadable} unreadable line(s): run `audit verify`")
    tables = (
        ("origin", summary.by_origin, None),
        ("purpose", summary.by_purpose, dict(summary.denied)),
        ("deciding signal", summary.by_said, None),
    )
    for title, rows, extra in tables if total.requests or not summary.items.items else ():
        lines += ["", *table(title, rows, extra)]
    if summary.items.items:
        lines.insert(1, items_line(summary.items))
        lines += ["", *table("item origin", summary.items_by_origin)]
        lines += ["", *table("item decided by", summary.items_by_said)]
    return lines


def items_line(tally: ItemTally) -> str:
    """``7 item(s) re-checked: 2 kept, 3 refused, 2 unknown``."""
    counts = ", ".join(f"{getattr(tally, status)} {status}" for status in ITEM_STATUSES)
    if tally.kept_unknown:  # written with the kept ones: the collection's count said
        counts += (f" ({tally.kept_unknown} unknown kept by --keep-unknown: "
                   f"{tally.kept + tally.kept_unknown} kept in all)")  # fmt: skip
    return f"{tally.items} item(s) re-checked (recheck --trail): {counts}"
